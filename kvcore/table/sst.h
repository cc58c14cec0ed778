/**
 * @file sst.h
 * Sorted files: the immutable per-family files that memstores are flushed
 * to and compactions write. Checksummed blocks of entries in internal-key
 * order, optionally compressed (LZ4, Snappy) and prefix/diff encoded, a
 * block index, a bloom filter (row or row+column), and a footer.
 * Format: doc/sorted_file_format.md. Writers are single-threaded; an open
 * reader may be shared by any number of threads and iterators.
 */
#ifndef KV_SST_H
#define KV_SST_H

#include "util/env.h"
#include "iter.h"
#include "cache.h"

typedef struct kv_sst_options {
    uint32_t block_size;          /* target uncompressed block bytes */
    kv_compression compression;
    kv_encoding encoding;
    kv_bloom bloom;
    uint32_t bloom_bits_per_key;  /* 10 by default */
} kv_sst_options;

/* Figures about a finished file, kept in the manifest. */
typedef struct kv_sst_meta {
    uint64_t file_size;
    uint64_t entries;
    int64_t min_ts, max_ts;       /* over all entries */
    uint64_t max_seq;             /* largest sequence number in the file */
    /* smallest and largest internal key, malloc'd (owned by the struct) */
    uint8_t *smallest; size_t smallest_len;
    uint8_t *largest; size_t largest_len;
} kv_sst_meta;
void kv_sst_meta_clear(kv_sst_meta *m);

typedef struct kv_sst_writer kv_sst_writer;
kv_status kv_sst_writer_open(kv_sst_writer **out, kv_env *env, const char *path,
                             const kv_sst_options *opts, char *err, size_t errlen);
/* Says how many distinct bloom keys to expect at most (a compaction: the
   sum of its inputs' counts), before the first add: the filter is then
   sized from it once it is large, and a key sets its bits as it is added
   instead of its hash being kept until finish (kv_bloom_builder_expect).
   Without it (a flush) the filter fits the exact count. */
void kv_sst_writer_expect_bloom_keys(kv_sst_writer *w, uint64_t n);
/* Entries must come in strictly increasing key order (KV_INVALID if not). */
kv_status kv_sst_add(kv_sst_writer *w, const uint8_t *key, size_t klen,
                     const uint8_t *value, size_t vlen);
/* Bytes written so far (approximate file size), for splitting outputs. */
uint64_t kv_sst_writer_size(const kv_sst_writer *w);
/* Writes index, bloom, footer; syncs; closes; frees w. *meta filled. */
kv_status kv_sst_finish(kv_sst_writer *w, kv_sst_meta *meta, char *err, size_t errlen);
/* Closes and frees without finishing (the caller removes the file). */
void kv_sst_abandon(kv_sst_writer *w);

typedef struct kv_sst_reader kv_sst_reader;
/* Opens and validates footer/index/bloom. file_number keys the cache.
   cache may be NULL. Corruption: KV_CORRUPT with err naming the file. */
kv_status kv_sst_open(kv_sst_reader **out, kv_env *env, const char *path, uint64_t file_number,
                      kv_cache *cache, char *err, size_t errlen);
void kv_sst_close(kv_sst_reader *r);
/* false only if the bloom filter proves the key absent. bloom_key is
   esc(row) for ROW filters or the column prefix for ROWCOL (keys.h); a file
   without that kind of filter answers true. */
bool kv_sst_may_contain_row(const kv_sst_reader *r, const uint8_t *row_key, size_t len);
bool kv_sst_may_contain_column(const kv_sst_reader *r, const uint8_t *column_key, size_t len);
/* The hash of a bloom key that kv_sst_may_contain_row_hash takes: one
   hash serves every file (each format version's filters probe from it). */
uint64_t kv_sst_bloom_hash(const uint8_t *key, size_t len);
/* kv_sst_may_contain_row for row_key whose kv_sst_bloom_hash is hash: a
   get probes every file's filter with one hash of its row. row_key is
   still given, for a file whose filter would hash differently. */
bool kv_sst_may_contain_row_hash(const kv_sst_reader *r, const uint8_t *row_key, size_t len, uint64_t hash);
/* A new iterator over the file. Blocks are read through the cache when
   fill_cache (and the reader has a cache); high_priority marks IN_MEMORY.
   A checksum failure makes the iterator invalid with status KV_CORRUPT;
   the message (file and offset) is available from kv_sst_last_error. */
kv_iter *kv_sst_iter(kv_sst_reader *r, bool fill_cache, bool high_priority);
/* The message of the last corruption/I-O error met by any iterator of r. */
void kv_sst_last_error(const kv_sst_reader *r, char *buf, size_t len);
uint64_t kv_sst_file_size(const kv_sst_reader *r);
/* The meta block's count of distinct bloom keys (rows for ROW, columns for
   ROWCOL) when the file has a filter of @p kind; else (no such filter, or a
   file that predates the count) its entry count, and never more than
   that: either way an upper bound of the file's distinct keys of that
   kind. */
uint64_t kv_sst_bloom_keys(const kv_sst_reader *r, kv_bloom kind);
/* Whether the file's meta block says it holds no DeleteColumn marker
   (keys.h type KV_TYPE_DELETE_COLUMN) at or above ts: a time-range read
   ending at ts may then seek past the newer versions of a column. False
   for a file written before the meta block counted them (it may). */
bool kv_sst_column_deletes_below(const kv_sst_reader *r, int64_t ts);
/* Whether the meta block says the file holds no family-level marker
   (DeleteFamily, DeleteFamilyVersion): a get of one column may then go
   straight to the column. False for a file that predates the count. */
bool kv_sst_no_family_markers(const kv_sst_reader *r);
/* The meta block's count of DeleteColumn markers, their largest timestamp
   (0 if none) and its count of family-level markers: false, and zeros,
   when the file predates them. */
bool kv_sst_marker_counts(const kv_sst_reader *r, uint64_t *column_deletes, int64_t *max_ts,
                          uint64_t *family_markers);
/* Whether r is the file @p m (the manifest's record of it) describes: the
   same size, entry count, smallest and largest key as its meta block.
   Fields m leaves zero or empty are not compared. A file copied or renamed
   over another has valid checksums but fails this. */
bool kv_sst_matches(const kv_sst_reader *r, const kv_sst_meta *m);

#endif
