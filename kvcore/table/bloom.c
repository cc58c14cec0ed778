/*
 * bloom.c: builds and probes the bloom filter of a sorted file. A key is
 * hashed once with XXH3-64; the k probe positions come from double hashing
 * of that hash (h, h + d, h + 2d, ...), so probing costs one hash per key.
 * Called by sst_write.c (builder) and sst_read.c (probe).
 */
#include "bloom.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

/* on-disk format: do not change (the probe sequence and k's range are part
   of the bloom block layout, doc/sorted_file_format.md). */
#define BLOOM_MIN_BITS 64
#define BLOOM_MAX_K 30

uint64_t kv_bloom_hash(const uint8_t *key, size_t len) {
    return XXH3_64bits(key, len);
}

/* The step of the double hashing: the hash rotated by 32 bits. */
static uint64_t bloom_delta(uint64_t h) {
    return (h >> 32) | (h << 32);
}

void kv_bloom_builder_init(kv_bloom_builder *b, uint32_t bits_per_key) {
    memset(b, 0, sizeof *b);
    b->bits_per_key = bits_per_key ? bits_per_key : KV_BLOOM_DEFAULT_BITS_PER_KEY;
}

void kv_bloom_builder_expect(kv_bloom_builder *b, uint64_t n) {
    b->expected = n;
}

/* Sets the k bits of hash h in the array of b. */
static void set_bits(kv_bloom_builder *b, uint64_t h, uint32_t k) {
    uint64_t d = bloom_delta(h);
    for (uint32_t j = 0; j < k; j++) {
        uint64_t pos = h % b->nbits;
        b->bits[pos >> 3] |= (uint8_t)(1u << (pos & 7));
        h += d;
    }
}

static uint32_t probes(const kv_bloom_builder *b) {
    /* k = bits_per_key * ln 2 minimises the false-positive rate. */
    uint32_t k = (uint32_t)(b->bits_per_key * 0.69);
    if (k < 1)
        k = 1;
    if (k > BLOOM_MAX_K)
        k = BLOOM_MAX_K;
    return k;
}

/* Sizes the array for @p keys keys and moves the buffered hashes into it. */
static int size_array(kv_bloom_builder *b, uint64_t keys) {
    uint64_t nbits = keys * b->bits_per_key;
    if (nbits < BLOOM_MIN_BITS)
        nbits = BLOOM_MIN_BITS;
    uint64_t nbytes = (nbits + 7) / 8;
    if (nbytes > SIZE_MAX - 1 || !(b->bits = calloc((size_t)nbytes + 1, 1)))
        return -1;
    b->nbits = nbytes * 8;
    uint32_t k = probes(b);
    b->bits[nbytes] = (uint8_t)k;
    for (size_t i = 0; i < b->nhashes; i++)
        set_bits(b, b->hashes[i], k);
    free(b->hashes);
    b->hashes = NULL;
    b->nhashes = b->cap = 0;
    return 0;
}

int kv_bloom_builder_add(kv_bloom_builder *b, const uint8_t *key, size_t len) {
    if (b->bits) {
        set_bits(b, kv_bloom_hash(key, len), b->bits[b->nbits / 8]);
        b->n++;
        return 0;
    }
    if (b->nhashes == b->cap) {
        size_t ncap = b->cap ? b->cap * 2 : 1024;
        uint64_t *nh = realloc(b->hashes, ncap * sizeof *nh);
        if (!nh)
            return -1;
        b->hashes = nh;
        b->cap = ncap;
    }
    b->hashes[b->nhashes++] = kv_bloom_hash(key, len);
    b->n++;
    if (b->expected && b->nhashes >= KV_BLOOM_BUFFER_KEYS)
        return size_array(b, b->expected > b->n ? b->expected : b->n);
    return 0;
}

size_t kv_bloom_builder_count(const kv_bloom_builder *b) {
    return b->n;
}

int kv_bloom_builder_finish(kv_bloom_builder *b, const uint8_t **filter, size_t *len) {
    /* Not sized yet: every hash is here, the array fits the exact count. */
    if (!b->bits && size_array(b, b->n) != 0)
        return -1;
    *filter = b->bits;
    *len = (size_t)(b->nbits / 8) + 1;
    return 0;
}

void kv_bloom_builder_free(kv_bloom_builder *b) {
    free(b->hashes);
    free(b->bits);
    memset(b, 0, sizeof *b);
}

bool kv_bloom_filter_valid(const uint8_t *filter, size_t len) {
    if (!filter || len < 2)
        return false;
    uint8_t k = filter[len - 1];
    return k >= 1 && k <= BLOOM_MAX_K;
}

bool kv_bloom_may_contain(const uint8_t *filter, size_t len, const uint8_t *key, size_t klen) {
    if (!kv_bloom_filter_valid(filter, len))
        return true;
    return kv_bloom_may_contain_hash(filter, len, kv_bloom_hash(key, klen));
}

bool kv_bloom_may_contain_hash(const uint8_t *filter, size_t len, uint64_t h) {
    if (!kv_bloom_filter_valid(filter, len))
        return true;
    uint32_t k = filter[len - 1];
    uint64_t nbits = (uint64_t)(len - 1) * 8;
    uint64_t d = bloom_delta(h);
    /* A file's filter is megabytes at 10M entries: each probe is a cache
       (and TLB) miss. All k loads are started before the first is tested,
       so the misses overlap instead of following one another. */
    uint64_t pos[BLOOM_MAX_K];
    for (uint32_t j = 0; j < k; j++) {
        pos[j] = h % nbits;
        __builtin_prefetch(&filter[pos[j] >> 3]);
        h += d;
    }
    for (uint32_t j = 0; j < k; j++)
        if (!(filter[pos[j] >> 3] & (1u << (pos[j] & 7))))
            return false;
    return true;
}
