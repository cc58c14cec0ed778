/*
 * The write commands: put, delete, deleteall, incr, append. Every argument
 * is checked before the first write, so a malformed command changes
 * nothing. Calls kv_put, kv_mutate, kv_increment, kv_append.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "output.h"

static const char *const put_options[] = { "ATTRIBUTES", "VISIBILITY", NULL };

/* Reads an optional [ts][, {ATTRIBUTES...}] tail starting at args[i]. */
static int read_ts_tail(cellsh *sh, const sh_command *cmd, size_t i, int64_t *ts) {
    *ts = KV_LATEST_TIMESTAMP;
    for (; i < cmd->nargs; i++) {
        const sh_value *v = &cmd->args[i];
        if (v->kind == SH_HASH) {
            if (sh_hash_check(sh, v, put_options, cmd->name) < 0) return -1;
            continue;
        }
        if (*ts != KV_LATEST_TIMESTAMP) return sh_error(sh, "%s: too many timestamps", cmd->name);
        if (sh_arg_int(sh, v, "timestamp", ts) < 0) return -1;
        if (*ts < 0 || *ts == KV_LATEST_TIMESTAMP)
            return sh_error(sh, "timestamp %" PRId64 " is out of range", *ts);
    }
    return 0;
}

int cmd_put(cellsh *sh, const sh_command *cmd) {
    const char *table, *row, *value;
    size_t row_len, value_len;
    sh_column col;
    int64_t ts;
    if (sh_arg_name(sh, &cmd->args[0], "table name", &table) < 0 ||
        sh_arg_bytes(sh, &cmd->args[1], "row", &row, &row_len) < 0 ||
        sh_arg_cell_column(sh, &cmd->args[2], &col) < 0 ||
        sh_arg_bytes(sh, &cmd->args[3], "value", &value, &value_len) < 0 ||
        read_ts_tail(sh, cmd, 4, &ts) < 0)
        return -1;
    kv_status st = kv_put(sh->store, table, row, row_len, col.family, col.qualifier,
                          col.qualifier_len, ts, value, value_len, &sh->wopts);
    if (st != KV_OK) return sh_kv_error(sh, st, table);
    sh_footer_took(sh);
    return 0;
}

/* The kinds of delete the shell can ask for. */
enum delete_kind { DELETE_ROW, DELETE_ALL_VERSIONS, DELETE_ONE_VERSION };

static kv_status add_delete(kv_mutation *m, enum delete_kind kind, const sh_column *col,
                            int64_t ts) {
    if (kind == DELETE_ROW) return kv_mutation_delete_row(m, ts);
    if (kind == DELETE_ALL_VERSIONS) {
        if (!col->qualifier) return kv_mutation_delete_family(m, col->family, ts);
        return kv_mutation_delete_column(m, col->family, col->qualifier, col->qualifier_len, ts);
    }
    if (!col->qualifier) return kv_mutation_delete_family_version(m, col->family, ts);
    return kv_mutation_delete_version(m, col->family, col->qualifier, col->qualifier_len, ts);
}

static int apply(cellsh *sh, const char *table, const void *row, size_t row_len,
                 enum delete_kind kind, const sh_column *col, int64_t ts) {
    kv_mutation *m = NULL;
    kv_status st = kv_mutation_new(&m, row, row_len);
    if (st != KV_OK) return sh_kv_error(sh, st, table);
    st = add_delete(m, kind, col, ts);
    if (st == KV_OK) st = kv_mutate(sh->store, table, m, &sh->wopts);
    kv_mutation_free(m);
    if (st != KV_OK) return sh_kv_error(sh, st, table);
    return 0;
}

/* delete 't', 'r', 'f:q' [, ts]: the one version at ts (default: the newest),
 * as the HBase 2 shell does (a Delete marker); delete 't', 'r', 'f', ts
 * deletes every column of the family at exactly ts (DeleteFamilyVersion). */
int cmd_delete(cellsh *sh, const sh_command *cmd) {
    const char *table, *row;
    size_t row_len;
    sh_column col;
    int64_t ts;
    if (sh_arg_name(sh, &cmd->args[0], "table name", &table) < 0 ||
        sh_arg_bytes(sh, &cmd->args[1], "row", &row, &row_len) < 0 ||
        sh_arg_column(sh, &cmd->args[2], &col) < 0 || read_ts_tail(sh, cmd, 3, &ts) < 0)
        return -1;
    if (!col.qualifier && ts == KV_LATEST_TIMESTAMP)
        return sh_error(sh, "deleting a family version needs a timestamp; use deleteall '%s', "
                        "'row', '%s' to delete every version", table, col.family);
    if (apply(sh, table, row, row_len, DELETE_ONE_VERSION, &col, ts) < 0) return -1;
    sh_footer_took(sh);
    return 0;
}

/* deleteall 't', 'r' [, 'f:q'] [, ts], or 't', {ROWPREFIXFILTER => 'p'} ... */
int cmd_deleteall(cellsh *sh, const sh_command *cmd) {
    const char *table, *row = NULL;
    size_t row_len = 0;
    const void *prefix = NULL;
    size_t prefix_len = 0;
    sh_column col;
    bool have_col = false;
    int64_t ts = KV_LATEST_TIMESTAMP;
    if (sh_arg_name(sh, &cmd->args[0], "table name", &table) < 0) return -1;
    const sh_value *rv = &cmd->args[1];
    if (rv->kind == SH_HASH) {
        static const char *const opts[] = { "ROWPREFIXFILTER", "CACHE", NULL };
        if (sh_hash_check(sh, rv, opts, "deleteall") < 0) return -1;
        const sh_value *p = sh_hash_get(rv, "ROWPREFIXFILTER");
        if (!p) return sh_error(sh, "deleteall needs a row or {ROWPREFIXFILTER => 'prefix'}");
        const char *s;
        if (sh_arg_bytes(sh, p, "ROWPREFIXFILTER", &s, &prefix_len) < 0) return -1;
        prefix = s;
    } else if (sh_arg_bytes(sh, rv, "row", &row, &row_len) < 0) {
        return -1;
    }
    size_t i = 2;
    if (i < cmd->nargs && (cmd->args[i].kind == SH_STR || cmd->args[i].kind == SH_CONST)) {
        if (sh_arg_column(sh, &cmd->args[i], &col) < 0) return -1;
        have_col = true;
        i++;
    }
    if (read_ts_tail(sh, cmd, i, &ts) < 0) return -1;
    if (!prefix) {
        if (apply(sh, table, row, row_len, have_col ? DELETE_ALL_VERSIONS : DELETE_ROW,
                  have_col ? &col : NULL, ts) < 0)
            return -1;
        sh_footer_took(sh);
        return 0;
    }
    /* Row by row over a snapshot: each row's delete is atomic, the whole
     * prefix is not (as in HBase). */
    kv_read_options ro = KV_READ_OPTIONS_INIT;
    ro.row_prefix = prefix;
    ro.row_prefix_len = prefix_len;
    ro.fill_cache = false;
    kv_scan *scan = NULL;
    kv_status st = kv_scan_open(&scan, sh->store, table, &ro);
    if (st != KV_OK) return sh_kv_error(sh, st, table);
    const kv_result *r;
    int rc = 0;
    while (rc == 0 && (st = kv_scan_next(&r, scan)) == KV_OK)
        rc = apply(sh, table, r->row, r->row_len, have_col ? DELETE_ALL_VERSIONS : DELETE_ROW,
                   have_col ? &col : NULL, ts);
    if (rc == 0 && st != KV_END) rc = sh_kv_error(sh, st, table);
    kv_scan_close(scan);
    if (rc == 0) sh_footer_took(sh);
    return rc;
}

int cmd_incr(cellsh *sh, const sh_command *cmd) {
    const char *table, *row;
    size_t row_len;
    sh_column col;
    int64_t delta = 1;
    if (sh_arg_name(sh, &cmd->args[0], "table name", &table) < 0 ||
        sh_arg_bytes(sh, &cmd->args[1], "row", &row, &row_len) < 0 ||
        sh_arg_cell_column(sh, &cmd->args[2], &col) < 0)
        return -1;
    for (size_t i = 3; i < cmd->nargs; i++) {
        const sh_value *v = &cmd->args[i];
        if (v->kind == SH_HASH) {
            if (sh_hash_check(sh, v, put_options, "incr") < 0) return -1;
        } else if (i == 3) {
            if (v->kind != SH_INT) return sh_error(sh, "the increment must be an integer");
            delta = v->num;
        } else {
            return sh_error(sh, "incr: unexpected argument %zu", i + 1);
        }
    }
    int64_t result = 0;
    kv_status st = kv_increment(&result, sh->store, table, row, row_len, col.family,
                                col.qualifier, col.qualifier_len, delta, &sh->wopts);
    if (st != KV_OK) return sh_kv_error(sh, st, table);
    fprintf(sh->out, "COUNTER VALUE = %" PRId64 "\n", result);
    sh_footer_took(sh);
    return 0;
}

int cmd_append(cellsh *sh, const sh_command *cmd) {
    const char *table, *row, *value;
    size_t row_len, value_len;
    sh_column col;
    if (sh_arg_name(sh, &cmd->args[0], "table name", &table) < 0 ||
        sh_arg_bytes(sh, &cmd->args[1], "row", &row, &row_len) < 0 ||
        sh_arg_cell_column(sh, &cmd->args[2], &col) < 0 ||
        sh_arg_bytes(sh, &cmd->args[3], "value", &value, &value_len) < 0)
        return -1;
    for (size_t i = 4; i < cmd->nargs; i++) {
        if (cmd->args[i].kind != SH_HASH) return sh_error(sh, "append: unexpected argument");
        if (sh_hash_check(sh, &cmd->args[i], put_options, "append") < 0) return -1;
    }
    void *value_now = NULL;
    size_t value_now_len = 0;
    kv_status st = kv_append(&value_now, &value_now_len, sh->store, table, row, row_len, col.family,
                             col.qualifier, col.qualifier_len, value, value_len, &sh->wopts);
    if (st != KV_OK) return sh_kv_error(sh, st, table);
    fputs("CURRENT VALUE = ", sh->out);
    sh_print_escaped(sh->out, value_now, value_now_len);
    fputc('\n', sh->out);
    free(value_now);
    sh_footer_took(sh);
    return 0;
}
