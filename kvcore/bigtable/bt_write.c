/**
 * @file bt_write.c
 * MutateRows batching with per-entry retry (see bt_write.h). Every row is
 * mapped once into an entry; then rounds of requests send the entries
 * still pending, each request within the service's limits, and the
 * streamed per-entry statuses decide which entries are done, failed, or
 * pending for the next round.
 */
#include "bt_write.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MUTATE_ROWS "/google.bigtable.v2.Bigtable/MutateRows"

/* The state of one row across rounds. */
typedef struct entry_state {
    Btpb__MutateRowsRequest__Entry *entry;  /* NULL when mapping failed */
    size_t bytes;                           /* its packed size */
    bt_code code;                           /* last outcome */
    bool pending;                           /* to be sent (again) */
} entry_state;

/* What the call says when rows failed: the message of the first row that
 * failed for good, else of the last transient failure. */
typedef struct failures {
    bt_status first_final;
    size_t first_final_row;      /* SIZE_MAX: none yet */
    bt_status last;
} failures;

/* Records the outcome of row @p e (index @p row). */
static void settle(entry_state *e, size_t row, bt_code code, bool retryable,
                   const bt_status *why, failures *f) {
    e->code = code;
    e->pending = code != BT_OK && retryable;
    if (code == BT_OK) return;
    f->last = *why;
    if (!retryable && row < f->first_final_row) {
        f->first_final = *why;
        f->first_final_row = row;
    }
}

/* Sends one MutateRows request holding the rows @p idx[0..k) and settles
 * each from the streamed statuses. Rows the stream never reported get the
 * call's own status. */
static void send_request(bt_client *c, const char *name, entry_state *es, const size_t *idx,
                         size_t k, failures *f) {
    Btpb__MutateRowsRequest req = BTPB__MUTATE_ROWS_REQUEST__INIT;
    Btpb__MutateRowsRequest__Entry **entries = malloc(k * sizeof *entries);
    bool *reported = calloc(k, sizeof *reported);
    bt_status st;
    if (!entries || !reported) {
        bt_fail(&st, BT_ERROR, "out of memory");
        for (size_t j = 0; j < k; j++) settle(&es[idx[j]], idx[j], BT_ERROR, false, &st, f);
        free(entries);
        free(reported);
        return;
    }
    for (size_t j = 0; j < k; j++) entries[j] = es[idx[j]].entry;
    req.table_name = (char *)name;
    req.entries = entries;
    req.n_entries = k;
    bt_call spec = { MUTATE_ROWS, "table_name", name, bt_client_opts(c)->stream_timeout_ms };
    bt_stream *s = NULL;
    bt_code rc = bt_stream_open(&s, bt_client_data(c), &spec, &req.base,
                                &btpb__mutate_rows_response__descriptor, &st);
    while (rc == BT_OK) {
        Btpb__MutateRowsResponse *m;
        rc = bt_stream_next(s, (ProtobufCMessage **)&m, &st);
        if (rc != BT_OK || !m) break;
        for (size_t i = 0; i < m->n_entries; i++) {
            const Btpb__MutateRowsResponse__Entry *e = m->entries[i];
            if (e->index < 0 || (uint64_t)e->index >= k || reported[e->index]) continue;
            reported[e->index] = true;
            int code = e->status ? e->status->code : 0;
            bt_status why;
            bt_status_ok(&why);
            if (code != 0) {
                bt_fail(&why, bt_code_from_grpc(code), "MutateRows: %s",
                        e->status->message ? e->status->message : "");
                why.grpc_code = code;
            }
            settle(&es[idx[e->index]], idx[e->index], bt_code_from_grpc(code),
                   bt_grpc_retryable(code), &why, f);
        }
        protobuf_c_message_free_unpacked(&m->base, NULL);
    }
    bt_stream_close(s);
    if (rc == BT_OK) {
        /* The stream ended cleanly but left rows unreported: their fate is
         * unknown, and sending them again is safe. */
        bt_fail(&st, BT_UNAVAILABLE, "MutateRows: the server did not report every row");
        st.grpc_code = 14;
    }
    for (size_t j = 0; j < k; j++)
        if (!reported[j])
            settle(&es[idx[j]], idx[j], st.code,
                   st.grpc_code >= 0 && bt_grpc_retryable(st.grpc_code), &st, f);
    free(entries);
    free(reported);
}

bt_code bt_mutate_rows(bt_client *c, const char *table_id, const bt_row_mutation *rows,
                       size_t n, int64_t now_ms, bt_code *codes, bt_status *st) {
    char name[512];
    bt_code rc = bt_client_table_name(c, table_id, name, sizeof name, st);
    if (rc != BT_OK) {
        for (size_t i = 0; codes && i < n; i++) codes[i] = rc;
        return rc;
    }
    failures f = { .first_final_row = SIZE_MAX };
    bt_status_ok(&f.last);
    bt_arena a = BT_ARENA_INIT;
    entry_state *es = calloc(n ? n : 1, sizeof *es);
    size_t *idx = malloc((n ? n : 1) * sizeof *idx);
    if (!es || !idx) {
        free(es);
        free(idx);
        for (size_t i = 0; codes && i < n; i++) codes[i] = BT_ERROR;
        return bt_fail(st, BT_ERROR, "out of memory");
    }
    /* Map every row once: its timestamps are fixed from here on. */
    for (size_t i = 0; i < n; i++) {
        bt_status why;
        Btpb__MutateRowsRequest__Entry *e = bt_arena_alloc(&a, sizeof *e);
        if (!e) {
            settle(&es[i], i, bt_fail(&why, BT_ERROR, "out of memory"), false, &why, &f);
            continue;
        }
        btpb__mutate_rows_request__entry__init(e);
        bt_code mrc = bt_check_row(rows[i].row, rows[i].row_len, &why);
        if (mrc == BT_OK)
            mrc = bt_map_mutations(&e->mutations, &e->n_mutations, &a, rows[i].ops, rows[i].nops,
                                   now_ms, &why);
        if (mrc != BT_OK) {
            settle(&es[i], i, mrc, false, &why, &f);
            continue;
        }
        e->row_key.data = (uint8_t *)(uintptr_t)rows[i].row;
        e->row_key.len = rows[i].row_len;
        es[i].entry = e;
        es[i].bytes = protobuf_c_message_get_packed_size(&e->base) + 8;
        es[i].pending = true;
    }
    int max_attempts = bt_client_opts(c)->max_attempts;
    for (int attempt = 1; attempt <= max_attempts; attempt++) {
        if (attempt > 1) bt_client_backoff(c, attempt - 1);
        size_t i = 0, sent = 0;
        while (i < n) {
            size_t k = 0, muts = 0, bytes = 0;
            for (; i < n; i++) {
                if (!es[i].pending) continue;
                size_t m = es[i].entry->n_mutations;
                if (k > 0 && (muts + m > BT_BATCH_MAX_MUTATIONS ||
                              bytes + es[i].bytes > BT_BATCH_MAX_BYTES))
                    break;
                idx[k++] = i;
                muts += m;
                bytes += es[i].bytes;
            }
            if (k == 0) break;
            send_request(c, name, es, idx, k, &f);
            sent += k;
        }
        if (sent == 0) break;
    }
    rc = BT_OK;
    size_t first_failed = SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        if (codes) codes[i] = es[i].code;
        if (es[i].code != BT_OK && rc == BT_OK) {
            rc = es[i].code;
            first_failed = i;
        }
    }
    if (rc == BT_OK) bt_status_ok(st);
    else if (st) *st = first_failed == f.first_final_row ? f.first_final : f.last;
    free(es);
    free(idx);
    bt_arena_free(&a);
    return rc;
}
