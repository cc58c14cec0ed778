/**
 * @file batch.h
 * The log record of one write group (batch.c): the encoding of row
 * mutations into the payload that the write-ahead log frames, and its
 * decoding, shared by the live write path (write.c, which inserts the ops
 * it just logged) and recovery (recovery.c). Layout: doc/log_format.md,
 * "Batch payload":
 *
 *   first_seq (8, LE) | nmut (4, LE) | nmut x mutation
 *   mutation := table_id (4) | row (varint length, bytes) | nops (varint) | nops x op
 *   op       := family_id (4) | type (1) | ts (8) | qualifier (varint, bytes)
 *               | value (varint, bytes)
 *
 * Op i of the record has sequence number first_seq + i.
 */
#ifndef KV_ENGINE_BATCH_H
#define KV_ENGINE_BATCH_H

#include "engine_i.h"
#include "tables.h"

/* Bytes of the record header (first_seq, nmut). */
#define KV_BATCH_HEADER_LEN 12

/* Starts the record of a group whose first op gets sequence first_seq. */
int kv_batch_begin(kv_buf *rec, uint64_t first_seq);
/* Appends mutation m of table t; KV_LATEST_TIMESTAMP becomes @p now and
   sets *deleted_implicitly for markers; adds the ops written to *nops.
   When fams is not NULL, fams[i] is set to the family of m->families[i]
   (room for KV_BATCH_MAX_FAMILIES) on success.
   Errors (with a message; nothing of m is then in rec): KV_INVALID (empty,
   more than KV_BATCH_MAX_FAMILIES families), KV_NO_FAMILY, KV_TOO_LARGE (a
   value above max_value_size), KV_NO_MEMORY. */
#define KV_BATCH_MAX_FAMILIES 64
kv_status kv_batch_add(kv_engine *s, kv_buf *rec, const kv_table *t, const kv_mutation *m,
                       int64_t now, bool *deleted_implicitly, uint64_t *nops, kv_family **fams);
/* Writes the number of mutations into the header. */
void kv_batch_set_count(kv_buf *rec, uint32_t nmut);

/* One decoded op; pointers into the record. */
typedef struct kv_batch_op {
    uint64_t seq;
    uint32_t table_id, family_id;
    const uint8_t *row;
    size_t row_len;
    kv_cell_type type;
    int64_t ts;
    const uint8_t *qualifier;
    size_t qualifier_len;
    const uint8_t *value;
    size_t value_len;
} kv_batch_op;

typedef kv_status (*kv_batch_visit)(void *ctx, const kv_batch_op *op);

/* Calls visit for each op in order, stopping at its first failure (which
   is returned). KV_CORRUPT for a malformed record (the ops before the
   damage have been visited). *last_seq gets the sequence of the last op. */
kv_status kv_batch_decode(const uint8_t *rec, size_t len, kv_batch_visit visit, void *ctx,
                          uint64_t *last_seq);

#endif
