/**
 * @file mutate.h
 * The writes of the Bigtable backend (contracts of hbase/backend.h's
 * xMutate, xReadModifyWrite and xCheckAndMutate):
 *  - a row mutation is one MutateRow (retried on transient failures, safe
 *    because every timestamp is explicit: implicit ones get the store's
 *    clock once, before the first try); a batch is MutateRows with
 *    per-row retries (bt_write.c); mutations that depend on a read go
 *    through rowcas.c;
 *  - increment and append are ReadModifyWriteRow: atomic on the server,
 *    8-byte big-endian counters as in HBase; the new cell's timestamp is
 *    the server's (the larger of its clock and the old cell's), so two
 *    within one millisecond leave one version; never retried;
 *  - check-and-mutate is CheckAndMutateRow (newest live version of the
 *    cell, compared as HBase does); never retried.
 * Durability settings change nothing: Bigtable acknowledges a write once
 * it is replicated. Called by backend.c; calls rowops.c, rowcas.c,
 * bt_client.c and bt_write.c.
 */
#ifndef KV_BIGTABLE_MUTATE_H
#define KV_BIGTABLE_MUTATE_H

#include "store_i.h"

kv_status btb_mutate(btb_store *s, const char *table, kv_mutation *const *ms, size_t n,
                     kv_status *statuses);
kv_status btb_read_modify_write(btb_store *s, const char *table, const kv_rmw *op, kv_buf *result);
kv_status btb_check_and_mutate(btb_store *s, const char *table, const kv_check *check,
                               const kv_mutation *m, bool *applied);

#endif
