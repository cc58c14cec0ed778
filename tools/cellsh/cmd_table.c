/*
 * Table commands: create, alter, describe, list, exists, enable, disable,
 * is_enabled, is_disabled, drop, truncate, truncate_preserve, flush,
 * compact, major_compact. Family attributes go through kvcore's
 * kv_family_desc_set / kv_family_desc_format, so that cellsh, cellfs's
 * .schema and the store agree on names and defaults; table attributes
 * (MAX_FILESIZE, READONLY, DURABILITY, METADATA, ...) through
 * kv_table_set_attributes.
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
 * so that HBase scripts run, and ignored (a local store has one region).
 * Table attributes (kv_table_attribute_known, METADATA) are kept. */
static const char *const region_options[] = {
    "SPLITS", "SPLITS_FILE", "NUMREGIONS", "SPLITALGO", "CONFIGURATION", NULL,
};

/* A list of table attribute changes gathered from the arguments. */
typedef struct attr_list {
    kv_property *items;
    size_t n, cap;
} attr_list;

static int attr_add(cellsh *sh, attr_list *l, const char *key, const char *value) {
    char k[KV_NAME_MAX + 1], err[300];
    char *v = value ? sh_arena_alloc(sh->arena, KV_TABLE_ATTR_VALUE_MAX + 1) : NULL;
    if (value && !v) return sh_error(sh, "out of memory");
    if (kv_table_attribute_check(key, value, k, v, err, sizeof err) != KV_OK)
        return sh_error(sh, "%s", err);
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 8;
        kv_property *p = sh_arena_alloc(sh->arena, cap * sizeof *p);
        if (!p) return sh_error(sh, "out of memory");
        if (l->n) memcpy(p, l->items, l->n * sizeof *p);
        l->items = p;
        l->cap = cap;
    }
    l->items[l->n].key = sh_arena_strndup(sh->arena, k, strlen(k));
    l->items[l->n].value = v;
    if (!l->items[l->n].key) return sh_error(sh, "out of memory");
    l->n++;
    return 0;
}

/* The table attributes of a hash (create's options, alter's table_att):
 * known keys, METADATA => {'key' => 'value', ...}; region options are
 * ignored, other keys are ignored with HBase's notice. */
static int attrs_from_hash(cellsh *sh, const sh_value *h, attr_list *l) {
    for (size_t i = 0; i < h->n; i++) {
        const sh_value *k = &h->items[2 * i], *v = &h->items[2 * i + 1];
        char key[KV_NAME_MAX + 1];
        if (sh_value_is(k, "METHOD")) continue;
        bool region = false;
        for (const char *const *r = region_options; *r && !region; r++) region = sh_value_is(k, *r);
        if (region) continue;
        if (sh_value_text(sh, k, "an attribute name", key, sizeof key) < 0) return -1;
        if (sh_value_is(k, "METADATA")) {
            if (v->kind != SH_HASH)
                return sh_error(sh, "METADATA takes a hash {'key' => 'value', ...}, not %s",
                                sh_kind_name(v->kind));
            for (size_t j = 0; j < v->n; j++) {
                char mk[KV_NAME_MAX + 1];
                char *mv = sh_arena_alloc(sh->arena, KV_TABLE_ATTR_VALUE_MAX + 1);
                if (!mv) return sh_error(sh, "out of memory");
                if (sh_value_text(sh, &v->items[2 * j], "a METADATA key", mk, sizeof mk) < 0 ||
                    sh_value_text(sh, &v->items[2 * j + 1], mk, mv, KV_TABLE_ATTR_VALUE_MAX + 1) < 0 ||
                    attr_add(sh, l, mk, mv) < 0)
                    return -1;
            }
            continue;
        }
        if (!kv_table_attribute_known(key)) {
            fprintf(sh->out, "Unknown argument ignored: %s\n", key);
            continue;
        }
        char *value = sh_arena_alloc(sh->arena, KV_TABLE_ATTR_VALUE_MAX + 1);
        if (!value) return sh_error(sh, "out of memory");
        if (sh_value_text(sh, v, key, value, KV_TABLE_ATTR_VALUE_MAX + 1) < 0 ||
            attr_add(sh, l, key, value) < 0)
            return -1;
    }
    return 0;
}

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

/* The ERROR: line of a failed kv_table_create: a missing namespace is
 * named as HBase names it. */
static int create_error(cellsh *sh, kv_status st, const char *table) {
    const char *colon = strchr(table, ':');
    if (st == KV_NOT_FOUND && colon)
        return sh_error(sh, "Unknown namespace %.*s!", (int)(colon - table), table);
    return sh_kv_error(sh, st, table);
}

int cmd_create(cellsh *sh, const sh_command *cmd) {
    const char *table;
    if (sh_arg_name(sh, &cmd->args[0], "table name", &table) < 0) return -1;
    kv_family_desc *fams = sh_arena_alloc(sh->arena, cmd->nargs * sizeof *fams);
    if (!fams) return sh_error(sh, "out of memory");
    attr_list attrs = {0};
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
            if (attrs_from_hash(sh, v, &attrs) < 0) return -1;
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
    if (attrs.n && !(kv_store_capabilities(sh->store) & KV_CAP_TABLE_ATTRIBUTES))
        return sh_error(sh, "table attribute %s: the %s backend keeps no table attributes",
                        attrs.items[0].key, kv_store_backend(sh->store));
    kv_status st = kv_table_create(sh->store, table, fams, n);
    if (st != KV_OK) return create_error(sh, st, table);
    /* Checked above, so this fails only when the store does: the new,
     * empty table is then dropped again, so that create fails as a whole. */
    if (attrs.n && (st = kv_table_set_attributes(sh->store, table, attrs.items, attrs.n)) != KV_OK) {
        int rc = sh_kv_error(sh, st, table);
        if (kv_table_disable(sh->store, table) == KV_OK) (void)kv_table_drop(sh->store, table);
        return rc;
    }
    fprintf(sh->out, "Created table %s\n", table);
    return 0;
}

/* One change of an alter command, gathered before anything is applied. */
typedef struct alter_op {
    bool remove;
    kv_family_desc desc;   /* remove: only the name; empty: no family change */
    attr_list attrs;       /* table attributes to set or (value NULL) unset */
} alter_op;

/* alter 't', METHOD => 'table_att_unset', NAME => 'KEY' or ['K1', 'K2']:
 * every attribute must be set, as in HBase. */
static int unset_attrs(cellsh *sh, const kv_table_desc *t, const sh_value *names, alter_op *op) {
    if (!names) return sh_error(sh, "NAME parameter missing for table_att_unset method");
    size_t n = names->kind == SH_ARRAY ? names->n : 1;
    for (size_t i = 0; i < n; i++) {
        char key[KV_NAME_MAX + 1];
        const sh_value *v = names->kind == SH_ARRAY ? &names->items[i] : names;
        if (sh_value_text(sh, v, "NAME", key, sizeof key) < 0) return -1;
        char k[KV_NAME_MAX + 1], err[300];
        if (kv_table_attribute_check(key, NULL, k, NULL, err, sizeof err) != KV_OK)
            return sh_error(sh, "%s", err);
        bool found = false;
        for (size_t j = 0; j < t->nattributes && !found; j++)
            found = strcmp(t->attributes[j].key, k) == 0;
        if (!found) return sh_error(sh, "Could not find attribute: %s", key);
        if (attr_add(sh, &op->attrs, k, NULL) < 0) return -1;
    }
    return 0;
}

static const kv_family_desc *find_family(const kv_table_desc *t, const char *name) {
    for (size_t i = 0; i < t->nfamilies; i++)
        if (strcmp(t->families[i].name, name) == 0) return &t->families[i];
    return NULL;
}

static int bad_method(cellsh *sh) {
    return sh_error(sh, "unknown METHOD for alter; use 'delete', 'table_att', 'table_att_unset' "
                    "or leave it out");
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
        if (method && sh_value_is(method, "table_att")) return attrs_from_hash(sh, v, &op->attrs);
        if (method && sh_value_is(method, "table_att_unset")) return unset_attrs(sh, t, nv, op);
        if (!nv && !method) return attrs_from_hash(sh, v, &op->attrs);   /* MAX_FILESIZE => ... */
        if (!nv && sh_value_is(method, "delete"))
            return sh_error(sh, "NAME parameter missing for delete method");
        if (!nv) return bad_method(sh);
        if (sh_value_text(sh, nv, "NAME", name, sizeof name) < 0) return -1;
        if (method && sh_value_is(method, "delete")) {
            op->remove = true;
            snprintf(op->desc.name, sizeof op->desc.name, "%s", name);
            return 0;
        }
        if (method && !sh_value_is(method, "add") && !sh_value_is(method, "modify"))
            return bad_method(sh);
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

/* alter waits for the regions to take the schema and says so; alter_async
 * returns at once, silently, as in HBase. A local table is one region,
 * changed when the call returns, so the two differ only in what they print. */
static int alter_table(cellsh *sh, const sh_command *cmd, bool wait) {
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
        if (ops[i].attrs.n) {
            st = kv_table_set_attributes(sh->store, table, ops[i].attrs.items, ops[i].attrs.n);
            if (st != KV_OK) rc = sh_kv_error(sh, st, table);
        }
        if (rc != 0 || !ops[i].desc.name[0]) continue;
        st = ops[i].remove ? kv_table_delete_family(sh->store, table, ops[i].desc.name)
                           : kv_table_alter_family(sh->store, table, &ops[i].desc);
        if (st != KV_OK) rc = sh_kv_error(sh, st, table);
    }
    if (rc == 0 && wait)
        fprintf(sh->out, "Updating all regions with the new schema...\n1/1 regions updated.\nDone.\n");
    return rc;
}

int cmd_alter(cellsh *sh, const sh_command *cmd) { return alter_table(sh, cmd, true); }
int cmd_alter_async(cellsh *sh, const sh_command *cmd) { return alter_table(sh, cmd, false); }

/* clone_table_schema 'src', 'dst' [, preserve_splits]: a new, empty table
 * with the families and table attributes of src. There are no split keys to
 * preserve; the flag is checked and has no effect. An existing dst fails,
 * as HBase's TableExistsException does. */
int cmd_clone_table_schema(cellsh *sh, const sh_command *cmd) {
    const char *src, *dst;
    bool preserve_splits;
    if (sh_arg_name(sh, &cmd->args[0], "table name", &src) < 0 ||
        sh_arg_name(sh, &cmd->args[1], "new table name", &dst) < 0 ||
        (cmd->nargs > 2 && sh_arg_bool(sh, &cmd->args[2], "preserve_splits", &preserve_splits) < 0))
        return -1;
    kv_table_desc *t = NULL;
    kv_status st = kv_table_describe(&t, sh->store, src);
    if (st != KV_OK) return sh_kv_error(sh, st, src);
    st = kv_table_exists(sh->store, dst);
    int rc = st == KV_OK ? sh_kv_error(sh, KV_EXISTS, dst) : 0;
    if (rc == 0 && (st = kv_table_create(sh->store, dst, t->families, t->nfamilies)) != KV_OK)
        rc = create_error(sh, st, dst);
    if (rc == 0 && t->nattributes &&
        (st = kv_table_set_attributes(sh->store, dst, t->attributes, t->nattributes)) != KV_OK) {
        rc = sh_kv_error(sh, st, dst);
        /* the copy is whole or absent */
        if (kv_table_disable(sh->store, dst) == KV_OK) (void)kv_table_drop(sh->store, dst);
    }
    kv_table_desc_free(t);
    return rc;
}

/* A quoted attribute key or value, with ' and \\ escaped. */
static void put_quoted(FILE *out, const char *s) {
    fputc('\'', out);
    for (; *s; s++) {
        if (*s == '\'' || *s == '\\') fputc('\\', out);
        fputc(*s, out);
    }
    fputc('\'', out);
}

/* HBase 2's table line: "t" or
 * "t, {TABLE_ATTRIBUTES => {MAX_FILESIZE => '1', METADATA => {'k' => 'v'}}}". */
static void print_table_attributes(cellsh *sh, const char *table, const kv_table_desc *t) {
    fputs(table, sh->out);
    if (t->nattributes) {
        fputs(", {TABLE_ATTRIBUTES => {", sh->out);
        size_t shown = 0, meta = 0;
        for (size_t i = 0; i < t->nattributes; i++) {
            if (!kv_table_attribute_known(t->attributes[i].key)) {
                meta++;
                continue;
            }
            fprintf(sh->out, "%s%s => ", shown++ ? ", " : "", t->attributes[i].key);
            put_quoted(sh->out, t->attributes[i].value);
        }
        if (meta) {
            fprintf(sh->out, "%sMETADATA => {", shown ? ", " : "");
            size_t m = 0;
            for (size_t i = 0; i < t->nattributes; i++) {
                if (kv_table_attribute_known(t->attributes[i].key)) continue;
                if (m++) fputs(", ", sh->out);
                put_quoted(sh->out, t->attributes[i].key);
                fputs(" => ", sh->out);
                put_quoted(sh->out, t->attributes[i].value);
            }
            fputc('}', sh->out);
        }
        fputs("}}", sh->out);
    }
    fputc('\n', sh->out);
}

int cmd_describe(cellsh *sh, const sh_command *cmd) {
    const char *table;
    if (sh_arg_name(sh, &cmd->args[0], "table name", &table) < 0) return -1;
    kv_table_desc *t = NULL;
    kv_status st = kv_table_describe(&t, sh->store, table);
    if (st != KV_OK) return sh_kv_error(sh, st, table);
    fprintf(sh->out, "Table %s is %s\n", table, t->enabled ? "ENABLED" : "DISABLED");
    print_table_attributes(sh, table, t);
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
