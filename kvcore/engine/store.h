/**
 * @file store.h
 * The engine's handle (store.c): open, close, figures, the clock, flush
 * and compact, with the contracts of the kvcore.h calls of the same names
 * and the arguments already checked by the api.
 */
#ifndef KV_ENGINE_STORE_H
#define KV_ENGINE_STORE_H

#include "engine_i.h"

/* Opens the store in directory path. opts is complete (defaults applied);
   failure messages go to report, which must outlive the engine. */
kv_status kv_engine_open(kv_engine **out, const char *path, const kv_store_options *opts,
                         kv_report *report);
/* As kv_engine_open, read-only, for a salvage: damage in a log ends its
   replay with a warning ("lost: ...") instead of failing the open. */
kv_status kv_engine_open_salvage(kv_engine **out, const char *path, kv_report *report);
/* Flushes (unless read-only), stops the threads, unlocks, frees s. */
kv_status kv_engine_close(kv_engine *s);
kv_status kv_engine_stat(kv_engine *s, kv_store_stats *out);
/* The clock for implicit timestamps, never below the clock floor. */
int64_t kv_engine_now(kv_engine *s);
kv_status kv_engine_flush(kv_engine *s, const char *table);
kv_status kv_engine_compact(kv_engine *s, const char *table, bool major);

#endif
