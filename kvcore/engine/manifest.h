/**
 * @file manifest.h
 * The manifest (manifest.c): the whole catalog and every family's sorted
 * files in one file: a snapshot rewritten atomically, then appended edits. Format: doc/manifest_format.md.
 */
#ifndef KV_ENGINE_MANIFEST_H
#define KV_ENGINE_MANIFEST_H

#include "engine_i.h"

/* The manifest lock: held around a change of the catalog or of a
   family's file set and the manifest write that makes it durable, so that
   edits reach the file in the order the changes were made and no other
   change interleaves. Lock order: catalog_lock, manifest lock, mu. */
void kv_manifest_lock(kv_engine *s);
void kv_manifest_unlock(kv_engine *s);

/* Makes the current state durable (manifest lock held, mu not held: it is
   taken only to copy the state, the I/O runs outside it). @p whole (a
   catalog change, open) rewrites the whole manifest atomically (snapshot);
   otherwise an edit with the scalars and the file lists of @p fams is
   appended and synced, unless the edits have outgrown the snapshot or an
   earlier write failed, in which case a snapshot is written instead.
   On failure the file on disk holds the old state (a torn edit at its end
   is ignored when loading) or, when only a final sync failed, maybe the
   new one; the next write is a snapshot. Errors: KV_IO, KV_NO_SPACE,
   KV_NO_MEMORY, with a message. */
kv_status kv_manifest_save(kv_engine *s, bool whole, struct kv_family *const *fams, size_t nfams);

/* Loads the manifest into an empty store handle (at open), opening every
   sorted file it names. Errors: KV_CORRUPT (naming the line), KV_IO. */
kv_status kv_manifest_load(kv_engine *s, const uint8_t *data, size_t len);

#endif
