/**
 * @file cache.h
 * The block cache: a sharded LRU of decompressed sorted-file blocks under a
 * byte budget, keyed by (file number, block offset). Thread-safe. Entries
 * are reference-counted: a looked-up block stays valid until released even
 * if it is evicted meanwhile.
 */
#ifndef KV_CACHE_H
#define KV_CACHE_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

typedef struct kv_cache kv_cache;
typedef struct kv_cache_handle kv_cache_handle;

/* capacity 0 = caching disabled (lookups miss, inserts return a handle
   that only lives until released). NULL on out-of-memory. */
kv_cache *kv_cache_new(size_t capacity);
void kv_cache_free(kv_cache *c);
/* Takes ownership of data (freed with free() on eviction); charge = bytes.
   high_priority entries (IN_MEMORY families) are evicted last. Returns a
   handle (the entry is referenced once), or NULL on out-of-memory (data is
   then freed). An existing entry with the same key is replaced. */
kv_cache_handle *kv_cache_insert(kv_cache *c, uint64_t file, uint64_t offset, void *data,
                                 size_t size, size_t charge, bool high_priority);
/* As kv_cache_insert; besides, the data of one entry evicted to make room
   whose last reference that was is handed to the caller in *spare_data
   (with the charge it was inserted with, *spare_charge) instead of being
   freed: the caller reuses or frees it. *spare_data is NULL if none. A
   caller that charges every entry its data's allocated bytes may reuse the
   buffer as one of *spare_charge bytes. */
kv_cache_handle *kv_cache_insert_reuse(kv_cache *c, uint64_t file, uint64_t offset, void *data,
                                       size_t size, size_t charge, bool high_priority,
                                       void **spare_data, size_t *spare_charge);
/* NULL on miss; else a referenced handle. */
kv_cache_handle *kv_cache_lookup(kv_cache *c, uint64_t file, uint64_t offset);
const void *kv_cache_data(const kv_cache_handle *h, size_t *size);
void kv_cache_release(kv_cache *c, kv_cache_handle *h);
/* Drops every unreferenced entry of a file (when the file is deleted). */
void kv_cache_erase_file(kv_cache *c, uint64_t file);
size_t kv_cache_usage(const kv_cache *c);
/* Whether an entry of charge bytes at (file, offset) would fit in its shard
   now without evicting anything. Advisory: other threads may insert or
   evict right after. */
bool kv_cache_has_room(kv_cache *c, uint64_t file, uint64_t offset, size_t charge);

#endif
