/**
 * @file mutate.c
 * Writes on Cloud Bigtable (mutate.h): each kv_mutation is checked and
 * mapped by rowops.c, then sent as MutateRow, MutateRows, or through
 * rowcas.c; increments, appends and check-and-mutates are single calls of
 * bt_client.c (an increment of a value that is not a counter reads its
 * length back through scan.c for HBase's message).
 */
#include "mutate.h"
#include "bt_write.h"
#include "handle.h"
#include "rowcas.h"
#include "rowops.h"
#include "scan.h"
#include "schema_cache.h"
#include "hbase/mutation.h"

#include <stdlib.h>
#include <string.h>

/* A failure of the server about a write may mean that the cached schema
   is stale (a family dropped by another client): forget it. */
static kv_status write_failed(btb_store *s, const btb_table *t, const bt_status *st,
                              const char *what) {
    if (st->code != BT_UNAVAILABLE && st->code != BT_DEADLINE) btb_cache_forget(s, t->id);
    return btb_fail(s, st, "%s in table %s", what, t->name);
}

/* Sends the plain rows (those not through rowcas.c) of a batch. */
static void send_plain(btb_store *s, const btb_table *t, btb_rowops *rows, const size_t *idx,
                       size_t n, int64_t now, kv_status *out) {
    bt_status st;
    if (n == 1) {
        const btb_rowops *r = &rows[idx[0]];
        out[idx[0]] = bt_mutate_row(s->client, t->id, r->row, r->row_len, r->hops, r->n, now, &st)
                          == BT_OK ? KV_OK : write_failed(s, t, &st, "write");
        return;
    }
    bt_row_mutation *ms = calloc(n, sizeof *ms);
    bt_code *codes = calloc(n, sizeof *codes);
    if (!ms || !codes) {
        for (size_t i = 0; i < n; i++) out[idx[i]] = KV_NO_MEMORY;
    } else {
        for (size_t i = 0; i < n; i++)
            ms[i] = (bt_row_mutation){ rows[idx[i]].row, rows[idx[i]].row_len, rows[idx[i]].hops,
                                       rows[idx[i]].n };
        bt_code first = bt_mutate_rows(s->client, t->id, ms, n, now, codes, &st);
        kv_status failed = first == BT_OK ? KV_OK : write_failed(s, t, &st, "batch write");
        /* Each row gets its own code; the message is the batch's first. */
        for (size_t i = 0; i < n; i++) out[idx[i]] = codes[i] == BT_OK ? KV_OK
                                                      : codes[i] == first ? failed
                                                      : btb_status(codes[i]);
    }
    free(ms);
    free(codes);
}

kv_status btb_mutate(btb_store *s, const char *table, kv_mutation *const *ms, size_t n,
                     kv_status *statuses) {
    kv_status local[16];
    kv_status *out = statuses ? statuses : n <= 16 ? local : malloc(n * sizeof *out);
    btb_rowops *rows = calloc(n ? n : 1, sizeof *rows);
    size_t *plain = calloc(n ? n : 1, sizeof *plain);
    if (!out || !rows || !plain) {
        if (out != statuses && out != local) free(out);
        free(rows);
        free(plain);
        return KV_NO_MEMORY;
    }
    btb_table *t = NULL;
    kv_status rc = btb_table_get(s, table, false, &t);
    int64_t now = btb_now(s);
    size_t np = 0;
    for (size_t i = 0; i < n; i++) {
        out[i] = rc != KV_OK ? rc : btb_rowops_build(s, t, ms[i], &rows[i]);
        if (out[i] != KV_OK) continue;
        if (rows[i].newest || rows[i].guard) out[i] = btb_rowcas_apply(s, t, &rows[i], now);
        else plain[np++] = i;
    }
    if (np) send_plain(s, t, rows, plain, np, now, out);
    kv_status first = rc;   /* no such table: also for an empty batch */
    for (size_t i = 0; i < n; i++) {
        if (first == KV_OK) first = out[i];
        btb_rowops_free(&rows[i]);
    }
    btb_table_free(t);
    if (out != statuses && out != local) free(out);
    free(rows);
    free(plain);
    return first;
}

/* The table and family of a single-cell call, and the cell's sizes. */
static kv_status cell_target(btb_store *s, const char *table, size_t row_len, const char *family,
                             size_t qualifier_len, btb_table **t, const bt_family_rules **f) {
    kv_status rc = btb_table_get(s, table, false, t);
    if (rc != KV_OK) return rc;
    if (!(*f = btb_table_family(*t, family)))
        return btb_refuse(s, KV_NO_FAMILY, "table %s has no column family '%s'", (*t)->name, family);
    if (row_len == 0 || row_len > BT_MAX_ROW_KEY)
        return btb_refuse(s, row_len ? KV_TOO_LARGE : KV_INVALID, "row key of %zu bytes: Cloud "
                          "Bigtable allows 1 to %d", row_len, BT_MAX_ROW_KEY);
    if (qualifier_len > BT_MAX_QUALIFIER)
        return btb_refuse(s, KV_TOO_LARGE, "qualifier of %zu bytes: Cloud Bigtable allows at most "
                          "%d", qualifier_len, BT_MAX_QUALIFIER);
    return KV_OK;
}

/* KV_NOT_COUNTER with HBase's message, which names the value's length
   (read again, as the server's message does not). */
static kv_status not_counter(btb_store *s, const char *table, const kv_rmw *op,
                             const bt_status *st) {
    kv_column col = { op->family, op->qualifier, op->qualifier_len };
    kv_read_options o = KV_READ_OPTIONS_INIT;
    o.columns = &col;
    o.ncolumns = 1;
    o.start_row = op->row;
    o.start_row_len = op->row_len;
    kv_backend_scan *sc = NULL;
    const kv_result *r = NULL;
    bool known = btb_scan_open(s, table, &o, true, &sc) == KV_OK && btb_scan_next(sc, &r) == KV_OK &&
                 r->ncells > 0;
    size_t len = known ? r->cells[0].value_len : 0;
    btb_scan_close(sc);
    if (known)
        return kv_backend_fail(s->report, KV_NOT_COUNTER, "field is not a long, it's %zu bytes "
                               "wide", len);
    return kv_backend_fail(s->report, KV_NOT_COUNTER, "field is not a long (Cloud Bigtable: %s)",
                           st->msg);
}

kv_status btb_read_modify_write(btb_store *s, const char *table, const kv_rmw *op, kv_buf *result) {
    btb_table *t = NULL;
    const bt_family_rules *f = NULL;
    kv_status rc = cell_target(s, table, op->row_len, op->family, op->qualifier_len, &t, &f);
    bt_status st;
    if (rc == KV_OK && op->kind == KV_RMW_INCREMENT) {
        int64_t v;
        bt_code code = bt_increment(s->client, t->id, op->row, op->row_len, op->family,
                                    op->qualifier, op->qualifier_len, op->delta, &v, &st);
        /* The service says INVALID_ARGUMENT, the emulator UNKNOWN ("increment
           on non-64-bit value"): both mean the cell is not a counter. */
        if (code == BT_INVALID || (code == BT_ERROR && strstr(st.msg, "64-bit")))
            rc = not_counter(s, table, op, &st);
        else if (code != BT_OK) rc = write_failed(s, t, &st, "incr");
        else if (kv_buf_append_be64(result, (uint64_t)v)) rc = KV_NO_MEMORY;
    } else if (rc == KV_OK) {
        void *v = NULL;
        size_t vlen = 0;
        if (bt_append(s->client, t->id, op->row, op->row_len, op->family, op->qualifier,
                      op->qualifier_len, op->data, op->data_len, &v, &vlen, &st) != BT_OK)
            rc = write_failed(s, t, &st, "append");
        else if (kv_buf_append(result, v, vlen)) rc = KV_NO_MEMORY;
        free(v);
    }
    btb_table_free(t);
    return rc;
}

kv_status btb_check_and_mutate(btb_store *s, const char *table, const kv_check *check,
                               const kv_mutation *m, bool *applied) {
    *applied = false;
    btb_table *t = NULL;
    const bt_family_rules *f = NULL;
    btb_rowops r = {0};
    kv_status rc = cell_target(s, table, check->row_len, check->family, check->qualifier_len, &t, &f);
    if (rc == KV_OK) rc = btb_rowops_build(s, t, m, &r);
    if (rc == KV_OK && (r.newest || r.guard))
        rc = btb_refuse(s, KV_NOT_SUPPORTED, "check-and-mutate whose mutation deletes the newest "
                        "version of a column, or a whole family or row, is not supported on Cloud "
                        "Bigtable: that delete needs a condition of its own, and a "
                        "CheckAndMutateRow has one");
    bt_check c = { f, check->qualifier, check->qualifier_len, (bt_cmp)check->op, check->expected,
                   check->expected_len };
    bt_status st;
    if (rc == KV_OK && bt_check_and_mutate(s->client, t->id, check->row, check->row_len, &c, r.hops,
                                           r.n, btb_now(s), applied, &st) != BT_OK)
        rc = write_failed(s, t, &st, "check-and-mutate");
    btb_rowops_free(&r);
    btb_table_free(t);
    return rc;
}
