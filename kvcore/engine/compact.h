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
/* Starts / stops the compaction thread (stop: a no-op if not started). */
kv_status kv_compact_start(kv_engine *s);
void kv_compact_stop(kv_engine *s);

#endif
