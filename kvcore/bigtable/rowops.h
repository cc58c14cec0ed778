/**
 * @file rowops.h
 * One kv_mutation as the parts of a Bigtable row mutation (bt_hop, mapped
 * to requests by bt_map.c), checked against the table and Bigtable's
 * limits first, so that a refusal names the HBase operation: unknown
 * families (KV_NO_FAMILY), row keys, qualifiers and values above the
 * limits (KV_TOO_LARGE), timestamps Bigtable cannot store, family and row
 * deletes bounded by a timestamp and DeleteFamilyVersion
 * (KV_NOT_SUPPORTED: only a delete marker could express them). Also says
 * which mutations cannot be one plain MutateRow: a delete of "the newest
 * version" (it must read that version first) and a delete of a whole
 * family or row at "now" (Bigtable's DeleteFromFamily and DeleteFromRow
 * take cells stamped after now with them, where HBase's marker at now
 * spares them). rowcas.c applies those. Called by mutate.c and rowcas.c.
 */
#ifndef KV_BIGTABLE_ROWOPS_H
#define KV_BIGTABLE_ROWOPS_H

#include "schema_cache.h"

typedef struct btb_rowops {
    const uint8_t *row;         /* the mutation's bytes */
    size_t row_len;
    bt_hop *hops;               /* point into the mutation's bytes */
    size_t n;
    bool newest;                /* a hop deletes the newest version (ts BT_TS_NONE) */
    bool guard;                 /* a hop deletes a whole family or row at now */
} btb_rowops;

/* The parts of @p m for table @p t (which must outlive *out, as must m).
   KV_OK, or a refusal with a message; free with btb_rowops_free. */
kv_status btb_rowops_build(btb_store *s, const btb_table *t, const kv_mutation *m,
                           btb_rowops *out);
void btb_rowops_free(btb_rowops *r);

#endif
