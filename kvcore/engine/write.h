/**
 * @file write.h
 * The write queue (write.c): applying row mutations with group commit,
 * forcing a flush through the queue, and inserting a log record into the
 * memstores (live writes and recovery).
 */
#ifndef KV_ENGINE_WRITE_H
#define KV_ENGINE_WRITE_H

#include "engine_i.h"
#include "tables.h"

/* Applies mutations through the writer queue; t resolved under the
   caller's shared catalog_lock. statuses (may be NULL) get one status per
   mutation; returns the first failure. */
kv_status kv_write_apply(kv_engine *s, kv_table *t, kv_mutation *const *ms, size_t n,
                         kv_status *statuses, kv_durability d);
/* Forces a memstore switch through the queue and waits until it is
   flushed (catalog_lock held shared). */
kv_status kv_write_flush(kv_engine *s);
/* Inserts a log record into the families' memstores (the write leader,
   or recovery before any writer exists). Reports the record's last
   sequence, its largest timestamp and the bytes added. */
kv_status kv_write_insert(kv_engine *s, const uint8_t *rec, size_t len, uint64_t *last_seq,
                          int64_t *max_ts, size_t *bytes);

#endif
