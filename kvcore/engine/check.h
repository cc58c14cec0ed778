/**
 * @file check.h
 * Verification and salvage of a local store (check.c), behind kvcore.h's
 * kv_store_check and kv_store_salvage (api/check.c): the engine reads its
 * own files; the api writes the salvaged cells into the new store through
 * the public calls (a sink), so that this layer never calls up.
 */
#ifndef KV_ENGINE_CHECK_H
#define KV_ENGINE_CHECK_H

#include "kvcore.h"
#include "hbase/keys.h"

/* kv_store_check: contract in kvcore.h. */
kv_status kv_engine_check(kv_check_stats *stats, const char *path, kv_finding_fn fn, void *ctx);

/* Where a salvage puts what it reads; each call returns KV_OK or the error
   that stops the salvage (with its own message in *the sink's* store). */
typedef struct kv_salvage_sink {
    void *ctx;
    /* A namespace other than default and hbase, with its properties. */
    kv_status (*add_namespace)(void *ctx, const char *name, const kv_property *props, size_t nprops);
    /* A table ("ns:name"), created enabled. */
    kv_status (*add_table)(void *ctx, const char *table, const kv_family_desc *families, size_t n);
    /* One cell or delete marker of a family of the last table added. */
    kv_status (*add_cell)(void *ctx, const char *family, const kv_key_parts *key, const uint8_t *value,
                          size_t value_len);
    /* The table's cells are all given; its attributes (kv_table_set_attributes)
       and @p enabled, its state, are to be kept. */
    kv_status (*end_table)(void *ctx, const kv_property *attrs, size_t nattrs, bool enabled);
} kv_salvage_sink;

/* Reads everything readable of the store at @p path (read-only) into
   @p sink, reporting to fn what was lost. With a missing or damaged
   manifest, the catalog is what can be read of it, and the cells it cannot
   place (sorted files it does not name, logged cells of table or family
   ids it does not know) go to a table lost_found (see kv_store_salvage).
   Returns as kv_store_salvage. */
kv_status kv_engine_salvage(kv_check_stats *stats, const char *path, const kv_salvage_sink *sink,
                            kv_finding_fn fn, void *ctx);

#endif
