/**
 * @file rowcas.h
 * Row mutations that one MutateRow cannot express exactly (rowops.h),
 * applied as a read of what they depend on and a CheckAndMutateRow that
 * applies them only if that has not changed since:
 *  - a delete of "the newest version" of a column becomes a delete of the
 *    version the read found (nothing, when the column has none), applied
 *    unless a newer version appeared meanwhile;
 *  - a delete of a whole family or row at "now" is applied unless the
 *    family or row holds a cell stamped after now, which Bigtable's
 *    DeleteFromFamily / DeleteFromRow would delete too while HBase's
 *    marker at now spares it: then KV_NOT_SUPPORTED, saying so.
 * When another writer changes the row between the read and the write, it
 * tries again (a few times, then KV_UNAVAILABLE). A lost reply is never
 * retried: its outcome is unknown (KV_UNAVAILABLE / KV_TIMEOUT).
 * Called by mutate.c; calls bt_read.c and bt_client.c.
 */
#ifndef KV_BIGTABLE_ROWCAS_H
#define KV_BIGTABLE_ROWCAS_H

#include "rowops.h"

/* Applies @p r (with newest or guard set) to table @p t at @p now_ms. */
kv_status btb_rowcas_apply(btb_store *s, const btb_table *t, const btb_rowops *r, int64_t now_ms);

#endif
