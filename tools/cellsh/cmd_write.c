/*
 * The write commands: put, delete, deleteall, incr, append, with the
 * argument forms of the HBase 2 shell (a trailing {ATTRIBUTES/VISIBILITY}
 * hash, a row prefix hash for the deletes, '' for the whole row). Every
 * argument is checked before the first write, so a malformed command
 * changes nothing. Calls kv_put, kv_mutate, kv_mutate_batch (batch.c),
 * kv_increment, kv_append.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "batch.h"
#include "commands.h"
#include "output.h"

/* The operation attributes HBase takes in a trailing hash. A local store has
 * no visibility labels or attribute consumers: they are accepted and have
 * no effect, as on an HBase cluster without the coprocessors that read
 * them. */
static const char *const put_options[] = { "ATTRIBUTES", "VISIBILITY", NULL };
static const char *const delete_options[] = { "VISIBILITY", NULL };

/*
 * Reads the tail "[, n][, {OPTIONS}]" that starts at args[i]: an integer
 * (a timestamp, an increment) and/or one hash of @p options, in that order,
 * as HBase's put, delete, deleteall and incr take them. *n keeps its value
 * when the integer is left out.
 */
static int read_tail(cellsh *sh, const sh_command *cmd, size_t i, const char *const *options,
                     const char *what, int64_t *n) {
    if (i < cmd->nargs && cmd->args[i].kind != SH_HASH) {
        if (sh_arg_int(sh, &cmd->args[i], what, n) < 0) return -1;
        i++;
    }
    if (i < cmd->nargs) {
        if (cmd->args[i].kind != SH_HASH)
            return sh_error(sh, "%s: argument %zu must be a hash of options, not %s", cmd->name,
                            i + 1, sh_kind_name(cmd->args[i].kind));
        if (sh_hash_check(sh, &cmd->args[i], options, cmd->name) < 0) return -1;
        i++;
    }
    if (i < cmd->nargs) return sh_error(sh, "%s: too many arguments", cmd->name);
    return 0;
}

int cmd_put(cellsh *sh, const sh_command *cmd) {
    const char *table, *row, *value;
    size_t row_len, value_len;
    sh_column col;
    int64_t ts = KV_LATEST_TIMESTAMP;
    if (sh_arg_name(sh, &cmd->args[0], "table name", &table) < 0 ||
        sh_arg_bytes(sh, &cmd->args[1], "row", &row, &row_len) < 0 ||
        sh_arg_cell_column(sh, &cmd->args[2], &col) < 0 ||
        sh_arg_bytes(sh, &cmd->args[3], "value", &value, &value_len) < 0 ||
        read_tail(sh, cmd, 4, put_options, "timestamp", &ts) < 0)
        return -1;
    kv_status st = kv_put(sh->store, table, row, row_len, col.family, col.qualifier,
                          col.qualifier_len, ts, value, value_len, &sh->wopts);
    if (st != KV_OK) return sh_kv_error(sh, st, table);
    return 0;
}

/* What a delete or deleteall names, checked before anything is written. */
typedef struct delete_spec {
    const char *table;
    const char *row;           /* one row, or NULL with a prefix */
    size_t row_len;
    const char *prefix;        /* {ROWPREFIXFILTER => 'p'} */
    size_t prefix_len;
    int64_t cache;             /* rows per batch with a prefix (CACHE) */
    bool whole_row;            /* no column, or '' */
    sh_column col;
    int64_t ts;
    bool all_versions;         /* deleteall: everything up to ts */
} delete_spec;

/* Reads "'t', 'row' | {ROWPREFIXFILTER => 'p', CACHE => n}, 'column', ts,
 * {VISIBILITY => ...}", the column required by delete, optional for
 * deleteall. */
static int read_delete(cellsh *sh, const sh_command *cmd, bool all_versions, delete_spec *d) {
    static const char *const prefix_options[] = { "ROWPREFIXFILTER", "CACHE", NULL };
    memset(d, 0, sizeof *d);
    d->all_versions = all_versions;
    d->ts = KV_LATEST_TIMESTAMP;
    d->cache = 100;   /* HBase's default */
    if (sh_arg_name(sh, &cmd->args[0], "table name", &d->table) < 0) return -1;
    const sh_value *rv = &cmd->args[1];
    if (rv->kind == SH_HASH) {
        if (sh_hash_check(sh, rv, prefix_options, cmd->name) < 0) return -1;
        const sh_value *p = sh_hash_get(rv, "ROWPREFIXFILTER");
        if (!p)
            return sh_error(sh, "%s needs a row or {ROWPREFIXFILTER => 'prefix'}", cmd->name);
        if (sh_arg_bytes(sh, p, "ROWPREFIXFILTER", &d->prefix, &d->prefix_len) < 0) return -1;
        const sh_value *c = sh_hash_get(rv, "CACHE");
        if (c && sh_arg_int(sh, c, "CACHE", &d->cache) < 0) return -1;
        if (d->cache < 1) d->cache = 1;   /* HBase then sends each row alone */
    } else if (sh_arg_bytes(sh, rv, "row", &d->row, &d->row_len) < 0) {
        return -1;
    }
    d->whole_row = true;
    if (cmd->nargs > 2) {
        const sh_value *cv = &cmd->args[2];
        if (cv->kind != SH_STR)
            return sh_error(sh, "%s: the column must be a string 'family:qualifier', 'family' "
                            "or '' (the whole row), not %s", cmd->name, sh_kind_name(cv->kind));
        /* HBase's shell: an empty column means the whole row. */
        if (cv->len > 0) {
            if (sh_arg_column(sh, cv, &d->col) < 0) return -1;
            d->whole_row = false;
        }
    }
    if (read_tail(sh, cmd, 3, delete_options, "timestamp", &d->ts) < 0) return -1;
    if (!all_versions && !d->whole_row && !d->col.qualifier && d->ts == KV_LATEST_TIMESTAMP)
        return sh_error(sh, "deleting a family version needs a timestamp; use deleteall '%s', "
                        "'row', '%s' to delete every version", d->table, d->col.family);
    return 0;
}

/* The mutation that deletes what @p d names in one row. */
static kv_status delete_mutation(kv_mutation **out, const delete_spec *d, const void *row,
                                 size_t row_len) {
    kv_mutation *m = NULL;
    kv_status st = kv_mutation_new(&m, row, row_len);
    if (st != KV_OK) return st;
    const sh_column *c = &d->col;
    if (d->whole_row)
        st = kv_mutation_delete_row(m, d->ts);
    else if (d->all_versions && c->qualifier)
        st = kv_mutation_delete_column(m, c->family, c->qualifier, c->qualifier_len, d->ts);
    else if (d->all_versions)
        st = kv_mutation_delete_family(m, c->family, d->ts);
    else if (c->qualifier)
        st = kv_mutation_delete_version(m, c->family, c->qualifier, c->qualifier_len, d->ts);
    else
        st = kv_mutation_delete_family_version(m, c->family, d->ts);
    if (st != KV_OK) {
        kv_mutation_free(m);
        return st;
    }
    *out = m;
    return KV_OK;
}

/* Every row with the prefix, row by row over a snapshot, CACHE rows per
 * batch: each row's delete is atomic, the whole prefix is not (as in
 * HBase). Ctrl-C stops between rows. */
static int delete_prefix(cellsh *sh, const delete_spec *d) {
    kv_read_options ro = KV_READ_OPTIONS_INIT;
    ro.row_prefix = d->prefix;
    ro.row_prefix_len = d->prefix_len;
    ro.fill_cache = false;
    kv_scan *scan = NULL;
    kv_status st = kv_scan_open(&scan, sh->store, d->table, &ro);
    if (st != KV_OK) return sh_kv_error(sh, st, d->table);
    sh_batch b;
    sh_batch_init(&b, sh, d->table);
    b.max = d->cache < SH_BATCH_MAX ? (size_t)d->cache : SH_BATCH_MAX;
    const kv_result *r;
    uint64_t rows = 0;
    int rc = 0;
    enum sh_scan_step step = SH_SCAN_END;
    while (rc == 0 && (step = sh_scan_next(sh, scan, &r, d->table)) == SH_SCAN_ROW) {
        kv_mutation *m = NULL;
        st = delete_mutation(&m, d, r->row, r->row_len);
        if (st != KV_OK) rc = sh_kv_error(sh, st, d->table);
        else rc = sh_batch_add(&b, m, r->row_len);
        if (rc == 0) rows++;
    }
    if (step == SH_SCAN_FAILED) rc = -1;
    /* the rows read before a failure or Ctrl-C are deleted, as the message says */
    if (sh_batch_flush(&b) < 0) rc = -1;
    if (rc == 0 && step == SH_SCAN_INTERRUPTED)
        rc = sh_interrupted_after(sh, rows, "; those rows are deleted");
    kv_scan_close(scan);
    return rc;
}

static int run_delete(cellsh *sh, const sh_command *cmd, bool all_versions) {
    delete_spec d;
    if (read_delete(sh, cmd, all_versions, &d) < 0) return -1;
    if (d.prefix) return delete_prefix(sh, &d);
    kv_mutation *m = NULL;
    kv_status st = delete_mutation(&m, &d, d.row, d.row_len);
    if (st == KV_OK) st = kv_mutate(sh->store, d.table, m, &sh->wopts);
    kv_mutation_free(m);
    if (st != KV_OK) return sh_kv_error(sh, st, d.table);
    return 0;
}

/* delete 't', 'r', 'f:q' [, ts]: the one version at ts (default: the newest),
 * as the HBase 2 shell does (a Delete marker); 'f' with a ts deletes every
 * column of the family at exactly ts (DeleteFamilyVersion); '' the row. */
int cmd_delete(cellsh *sh, const sh_command *cmd) { return run_delete(sh, cmd, false); }

/* deleteall 't', 'r' [, 'f:q' | 'f' | ''] [, ts]: every version up to ts. */
int cmd_deleteall(cellsh *sh, const sh_command *cmd) { return run_delete(sh, cmd, true); }

/* The column of incr and append: HBase requires a qualifier there. */
static int read_counter_column(cellsh *sh, const sh_command *cmd, sh_column *col) {
    if (sh_arg_column(sh, &cmd->args[2], col) < 0) return -1;
    if (!col->qualifier)
        return sh_error(sh, "Failed to provide both column family and column qualifier for %s",
                        cmd->name);
    return 0;
}

int cmd_incr(cellsh *sh, const sh_command *cmd) {
    const char *table, *row;
    size_t row_len;
    sh_column col;
    int64_t delta = 1;
    if (sh_arg_name(sh, &cmd->args[0], "table name", &table) < 0 ||
        sh_arg_bytes(sh, &cmd->args[1], "row", &row, &row_len) < 0 ||
        read_counter_column(sh, cmd, &col) < 0 ||
        read_tail(sh, cmd, 3, put_options, "the increment", &delta) < 0)
        return -1;
    int64_t result = 0;
    kv_status st = kv_increment(&result, sh->store, table, row, row_len, col.family,
                                col.qualifier, col.qualifier_len, delta, &sh->wopts);
    if (st != KV_OK) return sh_kv_error(sh, st, table);
    fprintf(sh->out, "COUNTER VALUE = %" PRId64 "\n", result);
    return 0;
}

int cmd_append(cellsh *sh, const sh_command *cmd) {
    const char *table, *row, *value;
    size_t row_len, value_len;
    sh_column col;
    if (sh_arg_name(sh, &cmd->args[0], "table name", &table) < 0 ||
        sh_arg_bytes(sh, &cmd->args[1], "row", &row, &row_len) < 0 ||
        read_counter_column(sh, cmd, &col) < 0 ||
        sh_arg_bytes(sh, &cmd->args[3], "value", &value, &value_len) < 0)
        return -1;
    if (cmd->nargs > 4 && cmd->args[4].kind != SH_HASH)
        return sh_error(sh, "append: argument 5 must be a hash of options");
    if (cmd->nargs > 4 && sh_hash_check(sh, &cmd->args[4], put_options, "append") < 0) return -1;
    void *value_now = NULL;
    size_t value_now_len = 0;
    kv_status st = kv_append(&value_now, &value_now_len, sh->store, table, row, row_len, col.family,
                             col.qualifier, col.qualifier_len, value, value_len, &sh->wopts);
    if (st != KV_OK) return sh_kv_error(sh, st, table);
    fputs("CURRENT VALUE = ", sh->out);
    sh_print_escaped(sh->out, value_now, value_now_len);
    fputc('\n', sh->out);
    free(value_now);
    return 0;
}
