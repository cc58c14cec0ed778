/**
 * @file manifest.h
 * The manifest (manifest.c): the whole catalog and every family's sorted
 * files in one file, rewritten atomically. Format: doc/manifest_format.md.
 */
#ifndef KV_ENGINE_MANIFEST_H
#define KV_ENGINE_MANIFEST_H

#include "engine_i.h"

/* Writes the whole catalog and file sets atomically (mu held, or the
   exclusive catalog lock with mu taken by the caller). Errors: KV_IO,
   KV_NO_SPACE, KV_NO_MEMORY, with a message. */
kv_status kv_manifest_write(kv_engine *s);
/* Loads the manifest into an empty store handle (at open), opening every
   sorted file it names. Errors: KV_CORRUPT (naming the line), KV_IO. */
kv_status kv_manifest_load(kv_engine *s, const uint8_t *data, size_t len);

#endif
