/**
 * @file bt_write.h
 * Batched writes: many rows' mutations sent as MutateRows requests. Each
 * row is atomic, the batch is not (as with kv_mutate_batch). Rows whose
 * entry fails with a retryable status (UNAVAILABLE, DEADLINE_EXCEEDED,
 * ABORTED) are sent again, and only those; rows that failed otherwise are
 * reported at once. Sending a row twice is harmless because every
 * timestamp is explicit (puts without one get @p now_ms, stamped once
 * before the first try). Increments and check-and-mutates never come
 * here. Called by the backend (mutate.c) and the tests; calls bt_map.c,
 * bt_transport.c and bt_client.c.
 */
#ifndef CELLFS_BT_WRITE_H
#define CELLFS_BT_WRITE_H

#include "bt_client.h"

/** The service's limit of mutations in one MutateRows request. */
#define BT_BATCH_MAX_MUTATIONS 100000
/** Our bound on one request's size, far below gRPC's and the service's. */
#define BT_BATCH_MAX_BYTES (16 * 1024 * 1024)

/** One row's mutation in a batch. */
typedef struct bt_row_mutation {
    const void *row;
    size_t row_len;
    const bt_hop *ops;
    size_t nops;
} bt_row_mutation;

/**
 * Applies @p n rows' mutations. @p codes, when non-NULL, receives one code
 * per row (BT_OK, or why that row was not applied: its mapping failed, or
 * the server refused it, or retries ran out). Returns BT_OK when every row
 * was applied, else the first failure, described in @p st.
 */
bt_code bt_mutate_rows(bt_client *c, const char *table_id, const bt_row_mutation *rows,
                       size_t n, int64_t now_ms, bt_code *codes, bt_status *st);

#endif
