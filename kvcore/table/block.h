/**
 * @file block.h
 * Blocks of sorted files: a run of (key, value) entries in key order,
 * encoded NONE, PREFIX or DIFF, followed by a restart array so that a seek
 * is a binary search over restart points and a short linear scan.
 * Layout: doc/sorted_file_format.md ("Block contents"). The builder is used
 * by sst_write.c for data and index blocks; the reader and iterator by
 * sst_read.c. Keys compare with memcmp (shorter prefix first).
 *
 * Thread safety: a kv_block is immutable and may be shared; a builder or a
 * kv_block_iter belongs to one thread.
 */
#ifndef KV_BLOCK_H
#define KV_BLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kvcore.h"
#include "util/coding.h"

/* Entries between restart points in PREFIX and DIFF blocks (NONE blocks
   make every entry a restart). */
#define KV_BLOCK_RESTART_INTERVAL 16
/* Bytes after the entries besides the restart offsets: count + encoding. */
#define KV_BLOCK_TRAILER_FIXED 5

typedef struct kv_block_builder {
    kv_buf buf;              /* entries, then (after finish) the trailer */
    kv_buf restarts;         /* uint32 offsets, native order until finish */
    kv_buf last_key;
    kv_encoding encoding;
    uint32_t interval;       /* entries per restart run */
    uint32_t run;            /* entries since the last restart */
    size_t count;
    bool finished;
    uint8_t suffix[17];      /* DIFF: the previous entry's key suffix */
} kv_block_builder;

/* restart_interval 0 = the default for the encoding. */
void kv_block_builder_init(kv_block_builder *b, kv_encoding encoding, uint32_t restart_interval);
/* Adds an entry; keys must increase (not checked here). The encoded entry
   must stay below 4 GiB in total. 0, or -1 on out-of-memory. */
int kv_block_builder_add(kv_block_builder *b, const uint8_t *key, size_t klen,
                         const uint8_t *value, size_t vlen);
/* Estimated size of the finished block. */
size_t kv_block_builder_size(const kv_block_builder *b);
size_t kv_block_builder_count(const kv_block_builder *b);
/* The last key added (valid until the next add/reset). */
const uint8_t *kv_block_builder_last_key(const kv_block_builder *b, size_t *len);
/* Appends the trailer and returns the whole block (valid until reset or
   free); NULL on out-of-memory. */
const uint8_t *kv_block_builder_finish(kv_block_builder *b, size_t *len);
/* Empties the builder for the next block, keeping its memory. */
void kv_block_builder_reset(kv_block_builder *b);
void kv_block_builder_free(kv_block_builder *b);

/* A parsed block: points into caller-owned bytes. */
typedef struct kv_block {
    const uint8_t *data;
    uint32_t entries_end;      /* bytes of entries (restart array starts here) */
    const uint8_t *restarts;   /* little-endian uint32 offsets */
    uint32_t nrestarts;
    kv_encoding encoding;
} kv_block;

/* Checks the trailer; KV_CORRUPT if it is malformed. */
kv_status kv_block_parse(kv_block *b, const uint8_t *data, size_t len);

/* An iterator over one block. Entry decoding errors make it invalid with
   status KV_CORRUPT; no allocation except growing its key buffer. */
typedef struct kv_block_iter {
    kv_block b;
    uint32_t cur;              /* offset of the current entry */
    uint32_t next;             /* offset of the entry after it */
    uint32_t restart;          /* index of the restart run holding cur */
    const uint8_t *key;        /* into the block or kbuf */
    size_t key_len;
    const uint8_t *val;        /* into the block */
    size_t val_len;
    kv_buf kbuf;               /* reassembled key (PREFIX, DIFF) */
    uint8_t suffix[17];        /* DIFF: suffix of the previous entry */
    bool valid;
    kv_status status;
} kv_block_iter;

/* Inline: a pooled sorted-file iterator clears itself and its block
   iterator with it (sst_read.c's kv_sst_iter) in one go. */
static inline void kv_block_iter_init(kv_block_iter *it) {
    memset(it, 0, sizeof *it);
}
/* Points the iterator at block b (invalid until a seek). */
void kv_block_iter_set(kv_block_iter *it, const kv_block *b);
void kv_block_iter_seek_first(kv_block_iter *it);
void kv_block_iter_seek_last(kv_block_iter *it);
/* First entry with key >= target. */
void kv_block_iter_seek(kv_block_iter *it, const uint8_t *target, size_t len);
/* Last entry with key < target. Only key/value may follow, not next. */
void kv_block_iter_seek_before(kv_block_iter *it, const uint8_t *target, size_t len);
void kv_block_iter_next(kv_block_iter *it);
void kv_block_iter_free(kv_block_iter *it);

/* ---- File framing shared by sst_write.c and sst_read.c ----
   on-disk format: do not change (doc/sorted_file_format.md). Every block of
   a file is stored as [type u8][payload][checksum u32le], the checksum being
   kv_checksum of type + payload. A compressed payload is
   [uncompressed length u32le][compressed bytes]. */
#define KV_BLOCK_TYPE_RAW 0
#define KV_BLOCK_TYPE_LZ4 1
#define KV_BLOCK_TYPE_SNAPPY 2
/* Version 3: a type byte with this bit set ends its payload with padding
   (zero bytes, then the padding's length, u16le, counting these two bytes)
   before the checksum, which covers it; the writer pads a data unit to the
   end of its 4 KiB page of the file. */
#define KV_BLOCK_FLAG_PADDED 0x80
#define KV_BLOCK_PAD_LEN 2
#define KV_BLOCK_CHECKSUM_LEN 4
#define KV_SST_FOOTER_LEN 64
/* Version 2 stores a data block as one or more read units, each framed and
   checksummed alone, and lists them in the index entry of the block;
   version 1 (one unit per block, no unit list) is still read. Version 3
   is version 2 with padded frames (KV_BLOCK_FLAG_PADDED); 2 is still read. */
#define KV_SST_FORMAT_VERSION 3
#define KV_SST_FORMAT_VERSION_2 2
#define KV_SST_FORMAT_VERSION_1 1
#define KV_SST_MAGIC UINT64_C(0xce11f5d5ab1e5571)
#define KV_SST_META_VERSION 1
/* end of on-disk format constants */

/* The writer's target for the uncompressed bytes of one read unit of a
   data block (not part of the format: a reader takes units of any size). */
#define KV_SST_UNIT_BYTES 4096
/* The page the writer keeps an uncompressed data unit within (padding it
   to the page's end), so that reading it is one page of the page cache
   (not part of the format either). */
#define KV_SST_PAGE_BYTES 4096

/* memcmp order, a proper prefix first. */
static inline int kv_bytes_compare(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen) {
    size_t n = alen < blen ? alen : blen;
    int c = n ? memcmp(a, b, n) : 0;
    if (c)
        return c;
    return alen < blen ? -1 : alen > blen ? 1 : 0;
}

#endif
