/*
 * Table commands: create, alter, describe, list, exists, enable, disable,
 * is_enabled, is_disabled, drop, truncate, truncate_preserve, flush,
 * compact, major_compact. Family attributes go through kvcore's
 * kv_family_desc_set / kv_family_desc_format, so that cellsh, cellfs's
 * .schema and the store agree on names and defaults.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "args.h"
#include "commands.h"
#include "listing.h"
#include "output.h"

/* Table options of create/alter that concern regions or clusters: accepted
 * so that HBase scripts run, and ignored (a local store has one region). */
static const char *const region_options[] = {
    "SPLITS", "SPLITS_FILE", "NUMREGIONS", "SPLITALGO", "REGION_REPLICATION", "OWNER",
    "DURABILITY", "MAX_FILESIZE", "MEMSTORE_FLUSHSIZE", "READONLY", "COMPACTION_ENABLED",
    "NORMALIZATION_ENABLED", "CONFIGURATION", "METADATA", "SPLIT_POLICY", NULL,
};

/* Fills *d from a family hash {NAME => 'f', VERSIONS => 3, ...} on top of
 * what *d already holds. */
static int family_from_hash(cellsh *sh, kv_family_desc *d, const sh_value *h) {
    for (size_t i = 0; i < h->n; i++) {
        char key[64], value[512], err[256] = "";
        if (sh_value_text(sh, &h->items[2 * i], "an attribute name", key, sizeof key) < 0 ||
            sh_value_text(sh, &h->items[2 * i + 1], key, value, sizeof value) < 0)
            return -1;
        if (strcasecmp(key, "CONFIGURATION") == 0 || strcasecmp(key, "METADATA") == 0)
            continue;
        kv_status st = kv_family_desc_set(d, key, value, err, sizeof err);
        if (st != KV_OK) return sh_error(sh, "%s", err[0] ? err : kv_strerror(st));
    }
    return 0;
}

static bool is_table_options(const sh_value *h) {
    return h->kind == SH_HASH && !sh_hash_get(h, "NAME");
}

int cmd_create(cellsh *sh, const sh_command *cmd) {
    const char *table;
    if (sh_arg_name(sh, &cmd->args[0], "table name", &table) < 0) return -1;
    kv_family_desc *fams = sh_arena_alloc(sh->arena, cmd->nargs * sizeof *fams);
    if (!fams) return sh_error(sh, "out of memory");
    size_t n = 0;
    for (size_t i = 1; i < cmd->nargs; i++) {
        const sh_value *v = &cmd->args[i];
        kv_family_desc d = KV_FAMILY_DESC_INIT;
        char err[256] = "";
        if (v->kind == SH_STR) {
            const char *name;
            if (sh_arg_name(sh, v, "family name", &name) < 0) return -1;
            kv_status st = kv_family_desc_set(&d, "NAME", name, err, sizeof err);
            if (st != KV_OK) return sh_error(sh, "%s", err);
        } else if (is_table_options(v)) {
            if (sh_hash_check(sh, v, region_options, "create") < 0) return -1;
            continue;
        } else if (v->kind == SH_HASH) {
            if (family_from_hash(sh, &d, v) < 0) return -1;
        } else {
            return sh_error(sh, "create takes family names or {NAME => 'family', ...} hashes, "
                            "not %s", sh_kind_name(v->kind));
        }
        if (d.min_versions > d.versions)
            return sh_error(sh, "MIN_VERSIONS (%d) of family %s is larger than VERSIONS (%d)",
                            (int)d.min_versions, d.name, (int)d.versions);
        fams[n++] = d;
    }
    if (n == 0) return sh_error(sh, "Table must have at least one column family");
    kv_status st = kv_table_create(sh->store, table, fams, n);
    if (st != KV_OK) {
        if (st == KV_NOT_FOUND) {
            const char *colon = strchr(table, ':');
            if (colon)
                return sh_error(sh, "Unknown namespace %.*s!", (int)(colon - table), table);
        }
        return sh_kv_error(sh, st, table);
    }
    fprintf(sh->out, "Created table %s\n", table);
    return 0;
}

/* One change of an alter command, gathered before anything is applied. */
typedef struct alter_op {
    bool remove;
    kv_family_desc desc;   /* remove: only the name */
} alter_op;

static const kv_family_desc *find_family(const kv_table_desc *t, const char *name) {
    for (size_t i = 0; i < t->nfamilies; i++)
        if (strcmp(t->families[i].name, name) == 0) return &t->families[i];
    return NULL;
}

/* Turns one alter argument into an operation, starting from the family's
 * current attributes when it exists (as HBase does). */
static int alter_arg(cellsh *sh, const kv_table_desc *t, const sh_value *v, alter_op *op) {
    char name[KV_NAME_MAX + 1];
    const sh_value *method = NULL;
    memset(op, 0, sizeof *op);
    if (v->kind == SH_STR) {
        if (sh_value_text(sh, v, "family name", name, sizeof name) < 0) return -1;
    } else if (v->kind == SH_HASH) {
        const sh_value *del = sh_hash_get(v, "delete");
        if (del && v->n == 1) {   /* 'delete' => 'f' */
            op->remove = true;
            return sh_value_text(sh, del, "family name", op->desc.name, sizeof op->desc.name);
        }
        method = sh_hash_get(v, "METHOD");
        const sh_value *nv = sh_hash_get(v, "NAME");
        if (method && sh_value_is(method, "table_att"))
            return sh_error(sh, "table attributes (METHOD => 'table_att') are not supported");
        if (!nv) {
            if (sh_hash_check(sh, v, region_options, "alter") < 0) return -1;
            op->remove = false;
            op->desc.name[0] = '\0';   /* nothing to do */
            return 0;
        }
        if (sh_value_text(sh, nv, "NAME", name, sizeof name) < 0) return -1;
        if (method && sh_value_is(method, "delete")) {
            op->remove = true;
            snprintf(op->desc.name, sizeof op->desc.name, "%s", name);
            return 0;
        }
        if (method && !sh_value_is(method, "add") && !sh_value_is(method, "modify"))
            return sh_error(sh, "unknown METHOD for alter; use 'delete' or leave it out");
    } else {
        return sh_error(sh, "alter takes family names or hashes, not %s", sh_kind_name(v->kind));
    }
    {
        const kv_family_desc *cur = find_family(t, name);
        kv_family_desc d = KV_FAMILY_DESC_INIT;
        if (cur) d = *cur;
        char err[256] = "";
        kv_status st = kv_family_desc_set(&d, "NAME", name, err, sizeof err);
        if (st != KV_OK) return sh_error(sh, "%s", err);
        if (v->kind == SH_HASH && family_from_hash(sh, &d, v) < 0) return -1;
        if (d.min_versions > d.versions)
            return sh_error(sh, "MIN_VERSIONS (%d) of family %s is larger than VERSIONS (%d)",
                            (int)d.min_versions, d.name, (int)d.versions);
        op->desc = d;
        return 0;
    }
}

/* Checks that the families deleted exist when their turn comes and that one
 * is left at the end, before anything is changed. */
static int check_alter(cellsh *sh, const char *table, const kv_table_desc *t, const alter_op *ops,
                       size_t n) {
    const char **names = sh_arena_alloc(sh->arena, (t->nfamilies + n) * sizeof *names);
    if (!names) return sh_error(sh, "out of memory");
    size_t count = 0;
    for (size_t i = 0; i < t->nfamilies; i++) names[count++] = t->families[i].name;
    for (size_t i = 0; i < n; i++) {
        const char *name = ops[i].desc.name;
        if (!name[0]) continue;
        size_t j = 0;
        while (j < count && strcmp(names[j], name) != 0) j++;
        if (ops[i].remove && j == count)
            return sh_error(sh, "Can't find family %s in table %s", name, table);
        if (ops[i].remove) names[j] = names[--count];
        else if (j == count) names[count++] = name;
    }
    if (count == 0) return sh_error(sh, "Table %s should have at least one column family.", table);
    return 0;
}

int cmd_alter(cellsh *sh, const sh_command *cmd) {
    const char *table;
    if (sh_arg_name(sh, &cmd->args[0], "table name", &table) < 0) return -1;
    kv_table_desc *t = NULL;
    kv_status st = kv_table_describe(&t, sh->store, table);
    if (st == KV_NOT_FOUND) return sh_error(sh, "Can't find a table: %s", table);
    if (st != KV_OK) return sh_kv_error(sh, st, table);
    size_t n = cmd->nargs - 1;
    alter_op *ops = sh_arena_alloc(sh->arena, n * sizeof *ops);
    int rc = ops ? 0 : sh_error(sh, "out of memory");
    for (size_t i = 0; rc == 0 && i < n; i++) rc = alter_arg(sh, t, &cmd->args[i + 1], &ops[i]);
    if (rc == 0) rc = check_alter(sh, table, t, ops, n);
    kv_table_desc_free(t);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        if (!ops[i].desc.name[0]) continue;
        st = ops[i].remove ? kv_table_delete_family(sh->store, table, ops[i].desc.name)
                           : kv_table_alter_family(sh->store, table, &ops[i].desc);
        if (st != KV_OK) rc = sh_kv_error(sh, st, table);
    }
    /* HBase 2 waits for the regions to take the schema and says so; a local
     * table is one region, changed when the call returns. */
    if (rc == 0)
        fprintf(sh->out, "Updating all regions with the new schema...\n1/1 regions updated.\nDone.\n");
    return rc;
}

int cmd_describe(cellsh *sh, const sh_command *cmd) {
    const char *table;
    if (sh_arg_name(sh, &cmd->args[0], "table name", &table) < 0) return -1;
    kv_table_desc *t = NULL;
    kv_status st = kv_table_describe(&t, sh->store, table);
    if (st != KV_OK) return sh_kv_error(sh, st, table);
    fprintf(sh->out, "Table %s is %s\n", table, t->enabled ? "ENABLED" : "DISABLED");
    fprintf(sh->out, "%s\n", table);
    fprintf(sh->out, "COLUMN FAMILIES DESCRIPTION\n");
    for (size_t i = 0; i < t->nfamilies; i++) {
        char buf[1024];
        int n = kv_family_desc_format(buf, sizeof buf, &t->families[i]);
        if (n < 0 || (size_t)n >= sizeof buf) {
            kv_table_desc_free(t);
            return sh_error(sh, "family description too long");
        }
        fprintf(sh->out, "%s\n", buf);
    }
    sh_footer_rows(sh, t->nfamilies);
    kv_table_desc_free(t);
    return 0;
}

int cmd_list(cellsh *sh, const sh_command *cmd) {
    regex_t re;
    bool have_re;
    if (sh_name_filter(sh, cmd, 0, &re, &have_re) < 0) return -1;
    char **names = NULL;
    kv_status st = kv_table_list(&names, sh->store, NULL);
    int rc = st == KV_OK ? sh_print_name_list(sh, "TABLE", names, have_re ? &re : NULL, false)
                         : sh_kv_error(sh, st, NULL);
    kv_free_names(names);
    if (have_re) regfree(&re);
    return rc;
}

int cmd_exists(cellsh *sh, const sh_command *cmd) {
    const char *table;
    if (sh_arg_name(sh, &cmd->args[0], "table name", &table) < 0) return -1;
    kv_status st = kv_table_exists(sh->store, table);
    if (st != KV_OK && st != KV_NOT_FOUND && st != KV_INVALID) return sh_kv_error(sh, st, table);
    fprintf(sh->out, "Table %s %s\n", table, st == KV_OK ? "does exist" : "does not exist");
    return 0;
}

int cmd_enable(cellsh *sh, const sh_command *cmd) {
    const char *table;
    if (sh_arg_name(sh, &cmd->args[0], "table name", &table) < 0) return -1;
    kv_status st = kv_table_enable(sh->store, table);
    if (st != KV_OK && st != KV_ENABLED) return sh_kv_error(sh, st, table);
    return 0;
}

int cmd_disable(cellsh *sh, const sh_command *cmd) {
    const char *table;
    if (sh_arg_name(sh, &cmd->args[0], "table name", &table) < 0) return -1;
    kv_status st = kv_table_disable(sh->store, table);
    if (st != KV_OK && st != KV_DISABLED) return sh_kv_error(sh, st, table);
    return 0;
}

static int print_enabled(cellsh *sh, const sh_command *cmd, bool want_enabled) {
    const char *table;
    if (sh_arg_name(sh, &cmd->args[0], "table name", &table) < 0) return -1;
    bool enabled = false;
    kv_status st = kv_table_is_enabled(&enabled, sh->store, table);
    if (st != KV_OK) return sh_kv_error(sh, st, table);
    fprintf(sh->out, "%s\n", enabled == want_enabled ? "true" : "false");
    return 0;
}

int cmd_is_enabled(cellsh *sh, const sh_command *cmd) { return print_enabled(sh, cmd, true); }
int cmd_is_disabled(cellsh *sh, const sh_command *cmd) { return print_enabled(sh, cmd, false); }

int cmd_drop(cellsh *sh, const sh_command *cmd) {
    const char *table;
    if (sh_arg_name(sh, &cmd->args[0], "table name", &table) < 0) return -1;
    kv_status st = kv_table_drop(sh->store, table);
    if (st != KV_OK) return sh_kv_error(sh, st, table);
    return 0;
}

static int truncate_table(cellsh *sh, const sh_command *cmd, bool preserve) {
    const char *table;
    if (sh_arg_name(sh, &cmd->args[0], "table name", &table) < 0) return -1;
    bool enabled = false;
    kv_status st = kv_table_is_enabled(&enabled, sh->store, table);
    if (st != KV_OK) return sh_kv_error(sh, st, table);
    /* HBase 2's steps; kv_table_truncate does them as one call */
    fprintf(sh->out, "Truncating '%s' table (it may take a while):\n", table);
    if (enabled) fprintf(sh->out, "Disabling table...\n");
    fprintf(sh->out, "Truncating table...\n");
    st = kv_table_truncate(sh->store, table, preserve);
    if (st != KV_OK) return sh_kv_error(sh, st, table);
    return 0;
}

int cmd_truncate(cellsh *sh, const sh_command *cmd) { return truncate_table(sh, cmd, false); }
int cmd_truncate_preserve(cellsh *sh, const sh_command *cmd) {
    return truncate_table(sh, cmd, true);
}

/* flush/compact/major_compact 't' [, 'family']: no table = every table; a
 * family argument is checked but the whole table is processed. */
static int maintain(cellsh *sh, const sh_command *cmd, int what) {
    const char *table = NULL;
    if (cmd->nargs > 0 && sh_arg_name(sh, &cmd->args[0], "table name", &table) < 0) return -1;
    if (cmd->nargs > 1) {
        const char *family;
        if (sh_arg_name(sh, &cmd->args[1], "family name", &family) < 0) return -1;
        kv_table_desc *t = NULL;
        kv_status st = kv_table_describe(&t, sh->store, table);
        if (st != KV_OK) return sh_kv_error(sh, st, table);
        bool found = find_family(t, family) != NULL;
        kv_table_desc_free(t);
        if (!found) return sh_kv_error(sh, KV_NO_FAMILY, table);
    }
    kv_status st = what == 0 ? kv_flush(sh->store, table) : kv_compact(sh->store, table, what == 2);
    if (st != KV_OK) return sh_kv_error(sh, st, table);
    return 0;
}

int cmd_flush(cellsh *sh, const sh_command *cmd) { return maintain(sh, cmd, 0); }
int cmd_compact(cellsh *sh, const sh_command *cmd) { return maintain(sh, cmd, 1); }
int cmd_major_compact(cellsh *sh, const sh_command *cmd) { return maintain(sh, cmd, 2); }
