/**
 * @file bloom.h
 * Bloom filters of sorted files (one filter per file). The writer feeds
 * each distinct bloom key (esc(row) or the column prefix, keys.h) to a
 * builder; the reader asks may_contain on the finished filter bytes.
 * Layout of the filter bytes: doc/sorted_file_format.md ("Bloom block").
 * Used by sst_write.c and sst_read.c; calls xxhash.
 */
#ifndef KV_BLOOM_H
#define KV_BLOOM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/coding.h"

#define KV_BLOOM_DEFAULT_BITS_PER_KEY 10

typedef struct kv_bloom_builder {
    uint64_t *hashes;        /* one XXH3-64 hash per added key */
    size_t n, cap;
    uint32_t bits_per_key;
} kv_bloom_builder;

/* bits_per_key 0 means the default (10). */
void kv_bloom_builder_init(kv_bloom_builder *b, uint32_t bits_per_key);
/* Records one key (the caller adds each distinct key once). 0, or -1 on
   out-of-memory. */
int kv_bloom_builder_add(kv_bloom_builder *b, const uint8_t *key, size_t len);
size_t kv_bloom_builder_count(const kv_bloom_builder *b);
/* Appends the filter bytes to out. 0, or -1 on out-of-memory. */
int kv_bloom_builder_finish(const kv_bloom_builder *b, kv_buf *out);
void kv_bloom_builder_free(kv_bloom_builder *b);

/* Checks the shape of filter bytes read from disk: true if usable. */
bool kv_bloom_filter_valid(const uint8_t *filter, size_t len);
/* false only if key was certainly never added. A filter that fails
   kv_bloom_filter_valid answers true. */
bool kv_bloom_may_contain(const uint8_t *filter, size_t len, const uint8_t *key, size_t klen);

#endif
