/**
 * @file compact.h
 * Compactions (compact.c) and the compaction thread.
 */
#ifndef KV_ENGINE_COMPACT_H
#define KV_ENGINE_COMPACT_H

#include "engine_i.h"
#include "tables.h"

/* Compacts every family of t (NULL: of every table) and waits; major
   flushes first (catalog_lock held shared). */
kv_status kv_compact_now(kv_engine *s, kv_table *t, bool major);
/* At close, after the final flush (catalog_lock not held): with
   KV_COMPACTION_AUTO, each family of more than two files whose newer files
   together are no larger than its oldest, nor than 8 write buffers
   (write_buffer_size), gets those newer files merged
   into one (a minor compaction: delete markers kept), so that the store
   reopens with at most two sorted runs there. A failure is logged and
   leaves the files as they were (nothing is lost). No-op when read-only. */
void kv_compact_at_close(kv_engine *s);
/* Starts / stops the compaction thread (stop: a no-op if not started). */
kv_status kv_compact_start(kv_engine *s);
void kv_compact_stop(kv_engine *s);

#endif
