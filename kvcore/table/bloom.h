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

/* Keys whose hashes a builder with an expected count buffers before it
   fixes the filter's size and sets bits directly (8 bytes a key). */
#define KV_BLOOM_BUFFER_KEYS 65536

typedef struct kv_bloom_builder {
    uint64_t *hashes;        /* one XXH3-64 hash per key not yet in bits */
    size_t nhashes, cap;
    size_t n;                /* keys added */
    uint32_t bits_per_key;
    uint64_t expected;       /* keys expected, 0 if unknown */
    uint8_t *bits;           /* once sized: the filter bytes (array, then k) */
    uint64_t nbits;
} kv_bloom_builder;

/* bits_per_key 0 means the default (10). */
void kv_bloom_builder_init(kv_bloom_builder *b, uint32_t bits_per_key);
/* Says how many keys to expect (an upper bound, e.g. the sum of the inputs'
   counts of a compaction). Without it every hash is kept until finish (8
   bytes a key: 61 MB for 7.6M keys) so that the array fits the exact count.
   With it, once KV_BLOOM_BUFFER_KEYS keys are added the array is sized for
   the larger of @p n and the keys so far, and each key then sets its bits:
   memory is the array alone. Call before the first add. */
void kv_bloom_builder_expect(kv_bloom_builder *b, uint64_t n);
/* Records one key (the caller adds each distinct key once). 0, or -1 on
   out-of-memory. */
int kv_bloom_builder_add(kv_bloom_builder *b, const uint8_t *key, size_t len);
size_t kv_bloom_builder_count(const kv_bloom_builder *b);
/* Completes the filter and points *filter at its bytes (owned by b, valid
   until kv_bloom_builder_free): *len bytes, array then k. 0, or -1 on
   out-of-memory. */
int kv_bloom_builder_finish(kv_bloom_builder *b, const uint8_t **filter, size_t *len);
void kv_bloom_builder_free(kv_bloom_builder *b);

/* Checks the shape of filter bytes read from disk: true if usable. */
bool kv_bloom_filter_valid(const uint8_t *filter, size_t len);
/* false only if key was certainly never added. A filter that fails
   kv_bloom_filter_valid answers true. */
bool kv_bloom_may_contain(const uint8_t *filter, size_t len, const uint8_t *key, size_t klen);
/* The hash a filter's probes derive from: XXH3-64 of the key, no seed
   (doc/sorted_file_format.md, "Bloom block"; the same for every format
   version). One key probed in several filters is hashed once. */
uint64_t kv_bloom_hash(const uint8_t *key, size_t len);
/* kv_bloom_may_contain for a key whose kv_bloom_hash is h. */
bool kv_bloom_may_contain_hash(const uint8_t *filter, size_t len, uint64_t h);

#endif
