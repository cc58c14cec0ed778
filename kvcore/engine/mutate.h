/**
 * @file mutate.h
 * The engine's write calls (mutate.c): contracts as kv_mutate_batch,
 * kv_increment / kv_append (one kv_rmw) and kv_check_and_mutate of
 * kvcore.h, with the arguments already checked by the api.
 */
#ifndef KV_ENGINE_MUTATE_H
#define KV_ENGINE_MUTATE_H

#include "engine_i.h"
#include "hbase/backend.h"

kv_status kv_engine_mutate(kv_engine *s, const char *table, kv_mutation *const *ms, size_t count,
                           kv_status *statuses, kv_durability d);
kv_status kv_engine_read_modify_write(kv_engine *s, const char *table, const kv_rmw *op,
                                      kv_buf *result);
kv_status kv_engine_check_and_mutate(kv_engine *s, const char *table, const kv_check *check,
                                     const kv_mutation *m, kv_durability d, bool *applied);

#endif
