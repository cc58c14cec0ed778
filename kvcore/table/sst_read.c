/*
 * sst_read.c: reads sorted files (contract in sst.h, layout in
 * doc/sorted_file_format.md). Opening reads and checks the footer, then
 * the index (decoded once into an array of read units for binary search),
 * the bloom filter and the meta block. Iterators fetch read units through
 * the block cache, keyed by (file number, unit offset), or straight from
 * the file; each fetch is one read_at of the whole framed unit (read_at_around
 * where the env has it: see MISS_READAROUND), a checksum
 * check and a decompression. A version 1 file is one unit per data block;
 * a version 2 block of a BLOCKSIZE above 4 KiB is several units of about
 * 4 KiB, so a point read fetches and verifies about 4 KiB whatever the
 * family's BLOCKSIZE. A scan that goes on into a
 * second unit reads the rest of the block, and at least 64 KiB, at once
 * (read_ahead) and checks
 * each unit from those bytes as it enters it; such a unit is cached only
 * while the cache has room, else used where it lies in the read-ahead
 * buffer (a long scan evicts no one's blocks and copies nothing). An
 * iterator given an upper bound (iter.h set_upper: a get's row end, a scan's stop row) does
 * not enter a unit whose separator before it is at or above the bound.
 *
 * Memory of a fetched block: one buffer whose byte 0 is not part of the
 * block (it is the on-disk type byte of a raw block, and padding in a
 * decompressed one), so a raw block is used where it was read, without a
 * copy. The cache holds such buffers (size = 1 + block length).
 *
 * Thread safety: after open a reader is immutable except for its last
 * error text (guarded by err_mu) and its pool of closed iterators (atomic
 * slots: a closed iterator keeps its small read buffers for the next one);
 * any number of iterators may run at once.
 * Called by the store's read path and compactions; calls env, block.c,
 * bloom.c, cache.c, lz4 and snappy.
 */
#include "sst.h"
#include "block.h"
#include "bloom.h"

#include <inttypes.h>
#include <lz4.h>
#include <pthread.h>
#include <snappy-c.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for an error message naming a file path and an offset. */
#define MSG_LEN 600
/* Largest read ahead of a sequential scan (the rest of a block). */
#define READAHEAD_MAX ((uint64_t)1 << 20)
/* A sequential scan reads ahead at least the units within this many bytes
   (whatever the BLOCKSIZE: 4 KiB blocks are read 64 KiB at a time). */
#define READAHEAD_SEQ ((uint64_t)64 << 10)

/* A unit that had to come from the device (it was not in the OS's page
   cache) has the aligned window of this many bytes around it read into the
   page cache in the background (a power of two). A store opened cold
   otherwise takes one device trip per ~4 KiB unit it touches; at 10M
   entries (1 GB) cold 1M readrandom: p99 102 us, 64 KiB: 94 us, 256 KiB:
   15 us, 1 MiB: 17-22 us and a slower mean (BENCHMARKS.md, kv10mread).
   Only the unit is checked, copied and cached, as before. */
#define MISS_READAROUND ((uint64_t)256 << 10)

/* Units per entry of a reader's top array of heads (find_block). */
#define TOP_STRIDE 64

/* One read unit: the unit of fetching, checking and caching. */
typedef struct idx_entry {
    const uint8_t *key;          /* separator, into index_mem */
    size_t klen;
    uint64_t off, size;          /* the framed unit */
    uint64_t block_end;          /* end of the data block holding it */
} idx_entry;

/* Closed iterators a reader keeps for the next ones (with their read
   buffers): a get opens one iterator a file and closes it right after. */
#define ITER_POOL 2
/* A pooled iterator keeps a read buffer up to this size (a read unit). */
#define ITER_POOL_KEEP_BYTES ((size_t)16 << 10)

struct sst_iter;
static void iter_pool_free(struct kv_sst_reader *r);

/* Bytes read ahead for a sequential scan: [off, off + len) of the file. */
typedef struct readahead {
    uint8_t *p;
    size_t cap, len;
    uint64_t off;
} readahead;

struct kv_sst_reader {
    kv_env *env;
    kv_file *file;
    char *path;
    uint64_t file_number;
    kv_cache *cache;             /* may be NULL */
    uint64_t file_size;
    uint32_t version;            /* format version of the file */
    uint8_t *index_mem;
    idx_entry *idx;              /* read units in key order */
    size_t nunits;
    size_t nblocks;              /* data blocks (index entries) */
    size_t prefix_len;           /* bytes every separator starts with (those
                                    of idx[0].key) */
    uint64_t *heads;             /* per unit: its separator's 8 bytes after
                                    prefix_len, big-endian, zero-padded */
    uint64_t *top;               /* heads[k * TOP_STRIDE], k < ntop: a small
                                    array that stays in the CPU's caches */
    size_t ntop;
    uint8_t *bloom_mem;
    const uint8_t *bloom;
    size_t bloom_len;
    kv_bloom bloom_kind;
    uint64_t entries;
    uint8_t *meta_keys;          /* the meta block's smallest key, then its largest */
    bool column_deletes_known;   /* the meta block counts DeleteColumn markers */
    uint64_t column_deletes;
    int64_t max_column_delete_ts;
    uint64_t family_markers;     /* DeleteFamily and DeleteFamilyVersion */
    uint64_t bloom_keys;         /* distinct bloom keys (the meta block's) */
    bool bloom_keys_known;
    size_t smallest_len, largest_len;
    pthread_mutex_t err_mu;
    char last_err[MSG_LEN];          /* GUARDED_BY(err_mu) */
    _Atomic(struct sst_iter *) pool[ITER_POOL];   /* closed iterators, or NULL */
};

/* A reusable growable buffer of an iterator. */
typedef struct growbuf {
    uint8_t *p;
    size_t cap;
} growbuf;

static bool grow(growbuf *g, size_t n) {
    if (g->cap >= n)
        return true;
    uint8_t *np = realloc(g->p, n);
    if (!np)
        return false;
    g->p = np;
    g->cap = n;
    return true;
}


/* Whether the bytes read ahead hold the framed unit at (off, size). */
static bool ra_holds(const readahead *ra, uint64_t off, uint64_t size) {
    return ra && ra->len && off >= ra->off && size <= ra->len && off - ra->off <= ra->len - size;
}

/*
 * Reads the framed block at (off, size), checks it and decompresses it.
 * On success blk and blen give the block contents. With detach, *mem receives
 * a malloc'd buffer holding them at *mem + 1 (*memlen: its allocated
 * bytes) and the caller owns it; else they live in rb or db, or in ra's
 * buffer when it holds the block (checked there, not copied).
 */
static kv_status fetch(kv_sst_reader *r, const readahead *ra, uint64_t off, uint64_t size,
                       growbuf *rb, growbuf *db, bool detach, uint8_t **mem, size_t *memlen,
                       const uint8_t **blk, size_t *blen, char *err, size_t errlen) {
    if (size < 1 + KV_BLOCK_CHECKSUM_LEN || off > r->file_size || size > r->file_size - off ||
        size > SIZE_MAX / 2) {
        kv_env_errf(err, errlen, "corrupt block in %s at offset %" PRIu64 " (bad block handle)", r->path, off);
        return KV_CORRUPT;
    }
    const uint8_t *raw;
    if (!detach && ra_holds(ra, off, size)) {
        /* Read ahead already: checked below where it lies. */
        raw = ra->p + (off - ra->off);
    } else {
        if (!grow(rb, (size_t)size)) {
            kv_env_errf(err, errlen, "out of memory reading %s", r->path);
            return KV_NO_MEMORY;
        }
        size_t got = 0;
        char e[256] = "";
        kv_status st = KV_OK;
        if (ra_holds(ra, off, size)) {
            /* Read ahead already: the same bytes, checked below all the same. */
            memcpy(rb->p, ra->p + (off - ra->off), (size_t)size);
            got = (size_t)size;
        } else if (r->env->read_at_around && size < MISS_READAROUND) {
            /* From the device: its window follows (MISS_READAROUND; a
               unit as large is its own read-around). */
            uint64_t lo = off & ~(MISS_READAROUND - 1);
            uint64_t hi = (off + size + MISS_READAROUND - 1) & ~(MISS_READAROUND - 1);
            st = r->env->read_at_around(r->file, off, rb->p, (size_t)size, lo, (size_t)(hi - lo), &got,
                                        e, sizeof e);
        } else {
            st = r->env->read_at(r->file, off, rb->p, (size_t)size, &got, e, sizeof e);
        }
        if (st != KV_OK) {
            kv_env_errf(err, errlen, "read error in %s at offset %" PRIu64 ": %s", r->path, off, e);
            return st;
        }
        if (got != size) {
            kv_env_errf(err, errlen, "corrupt block in %s at offset %" PRIu64 " (file truncated)",
                        r->path, off);
            return KV_CORRUPT;
        }
        raw = rb->p;
    }
    size_t body = (size_t)size - KV_BLOCK_CHECKSUM_LEN;
    if (!KV_CHECKSUM_OK(kv_get_le32(raw + body), raw, body)) {
        kv_env_errf(err, errlen, "corrupt block in %s at offset %" PRIu64 " (checksum mismatch)", r->path, off);
        return KV_CORRUPT;
    }
    uint8_t type = raw[0];
    if (type & KV_BLOCK_FLAG_PADDED) {
        /* Version 3: the padding (its length in its last two bytes) ends
           the payload. */
        size_t pad = body >= 1 + KV_BLOCK_PAD_LEN ? (size_t)raw[body - 2] | (size_t)raw[body - 1] << 8 : 0;
        if (r->version < KV_SST_FORMAT_VERSION || pad < KV_BLOCK_PAD_LEN || pad > body - 1) {
            kv_env_errf(err, errlen, "corrupt block in %s at offset %" PRIu64 " (bad padding)", r->path, off);
            return KV_CORRUPT;
        }
        body -= pad;
        type &= (uint8_t)~KV_BLOCK_FLAG_PADDED;
    }
    if (type == KV_BLOCK_TYPE_RAW) {
        if (detach) {
            /* A buffer grown by an earlier, larger block would be charged
               (and held) in full: trim it to this block. */
            if (rb->cap > size + size / 4) {
                uint8_t *t = realloc(rb->p, (size_t)size);
                if (t) {
                    rb->p = t;
                    rb->cap = (size_t)size;
                }
            }
            raw = rb->p;   /* detached blocks are always in rb */
        }
        *blk = raw + 1;
        *blen = body - 1;
        if (detach) {
            *mem = rb->p;
            *memlen = rb->cap;
            rb->p = NULL;
            rb->cap = 0;
        }
        return KV_OK;
    }
    if ((type != KV_BLOCK_TYPE_LZ4 && type != KV_BLOCK_TYPE_SNAPPY) || body < 5)
        goto corrupt;
    size_t rawlen = kv_get_le32(raw + 1);
    const char *src = (const char *)raw + 5;
    size_t srclen = body - 5;
    /* The declared length is checked against what the block can hold before
       anything is allocated: the writer compresses only when that saves
       space (so raw > compressed), and neither LZ4 (at most 255 output bytes
       per input byte) nor Snappy (at most 64 per 3-byte copy) expands more. */
    size_t max_ratio = type == KV_BLOCK_TYPE_LZ4 ? 255 : 22;
    if (rawlen <= srclen || rawlen / max_ratio > srclen) {
        kv_env_errf(err, errlen, "corrupt block in %s at offset %" PRIu64 " (declares %zu bytes "
                    "uncompressed from %zu compressed: impossible)", r->path, off, rawlen, srclen);
        return KV_CORRUPT;
    }
    uint8_t *dst;
    if (detach) {
        dst = malloc(rawlen + 1);
    } else {
        dst = grow(db, rawlen + 1) ? db->p : NULL;
    }
    if (!dst) {
        kv_env_errf(err, errlen, "out of memory reading %s", r->path);
        return KV_NO_MEMORY;
    }
    bool ok;
    if (type == KV_BLOCK_TYPE_LZ4) {
        ok = rawlen <= LZ4_MAX_INPUT_SIZE && srclen <= INT32_MAX &&
             LZ4_decompress_safe(src, (char *)dst + 1, (int)srclen, (int)rawlen) == (int)rawlen;
    } else {
        size_t n = 0;
        ok = snappy_uncompressed_length(src, srclen, &n) == SNAPPY_OK && n == rawlen &&
             snappy_uncompress(src, srclen, (char *)dst + 1, &n) == SNAPPY_OK && n == rawlen;
    }
    if (!ok) {
        if (detach)
            free(dst);
        goto corrupt;
    }
    *blk = dst + 1;
    *blen = rawlen;
    if (detach) {
        *mem = dst;
        *memlen = rawlen + 1;
    }
    return KV_OK;
corrupt:
    kv_env_errf(err, errlen, "corrupt block in %s at offset %" PRIu64 " (bad compressed data)", r->path, off);
    return KV_CORRUPT;
}

/* Fetches a metadata block into its own buffer. */
static kv_status fetch_owned(kv_sst_reader *r, uint64_t off, uint64_t size, uint8_t **mem,
                             const uint8_t **blk, size_t *blen, char *err, size_t errlen) {
    growbuf rb = { NULL, 0 }, db = { NULL, 0 };
    size_t memlen;
    *mem = NULL;
    kv_status st = fetch(r, NULL, off, size, &rb, &db, true, mem, &memlen, blk, blen, err, errlen);
    free(rb.p);
    free(db.p);
    return st;
}

/* Appends a unit to r->idx (grown as needed); false on out of memory. */
static bool push_unit(kv_sst_reader *r, size_t *cap, const uint8_t *key, size_t klen,
                      uint64_t off, uint64_t size) {
    if (r->nunits == *cap) {
        size_t ncap = *cap ? *cap * 2 : 64;
        idx_entry *n = realloc(r->idx, ncap * sizeof *n);
        if (!n)
            return false;
        r->idx = n;
        *cap = ncap;
    }
    r->idx[r->nunits++] = (idx_entry){ key, klen, off, size, 0 };
    return true;
}

/*
 * Decodes one index entry into units. v1: offset, size. v2: offset, size,
 * unit count, then per unit but the last its separator and framed size
 * (the last unit takes the rest and the entry's key). Units must be at
 * least a frame long, in file order, and (v2) contiguous from the end of
 * the previous block, so that every data byte is in some checked unit.
 * Returns 0, -1 if malformed, -2 on out of memory.
 */
static int decode_index_entry(kv_sst_reader *r, size_t *cap, const uint8_t *key, size_t klen,
                              const uint8_t *p, const uint8_t *end, uint64_t data_end,
                              uint64_t *prev_end) {
    uint64_t off, size;
    if (!(p = kv_get_varint64(p, end, &off)) || !(p = kv_get_varint64(p, end, &size)))
        return -1;
    if (size > data_end || off > data_end - size || off < *prev_end)
        return -1;
    uint32_t n = 1;
    if (r->version != KV_SST_FORMAT_VERSION_1) {
        if (off != *prev_end || !(p = kv_get_varint32(p, end, &n)) || n == 0 ||
            n > size / (1 + KV_BLOCK_CHECKSUM_LEN))
            return -1;
    }
    uint64_t at = off;
    for (uint32_t u = 0; u + 1 < n; u++) {
        uint32_t sl;
        uint64_t us;
        if (!(p = kv_get_varint32(p, end, &sl)) || (size_t)(end - p) < sl)
            return -1;
        const uint8_t *sep = p;
        p += sl;
        if (!(p = kv_get_varint64(p, end, &us)) || us < 1 + KV_BLOCK_CHECKSUM_LEN ||
            us > off + size - at)
            return -1;
        if (r->nunits > 0 && kv_bytes_compare(r->idx[r->nunits - 1].key, r->idx[r->nunits - 1].klen,
                                              sep, sl) >= 0)
            return -1;
        if (!push_unit(r, cap, sep, sl, at, us))
            return -2;
        at += us;
    }
    if (p != end || off + size - at < 1 + KV_BLOCK_CHECKSUM_LEN)
        return -1;
    if (r->nunits > 0 &&
        kv_bytes_compare(r->idx[r->nunits - 1].key, r->idx[r->nunits - 1].klen, key, klen) >= 0)
        return -1;
    if (!push_unit(r, cap, key, klen, at, off + size - at))
        return -2;
    for (size_t u = r->nunits - n; u < r->nunits; u++)
        r->idx[u].block_end = off + size;
    *prev_end = off + size;
    return 0;
}

/* Bytes [from, from + 8) of key as a big-endian number, zero-padded:
   for keys with the same first from bytes, a smaller number means a
   smaller key (equal numbers decide nothing). */
static uint64_t head_of(const uint8_t *key, size_t klen, size_t from) {
    uint64_t h = 0;
    for (size_t i = from; i < from + 8; i++)
        h = h << 8 | (i < klen ? key[i] : 0);
    return h;
}

/* Notes the separators' common prefix and each one's head, in an array
   of their own and every TOP_STRIDE-th again in a small one, so that
   find_block searches a few kilobytes of numbers that stay in the CPU's
   caches, then one stretch of TOP_STRIDE heads (a few cache lines), and
   reads a separator's bytes only on a tie. Heads are nondecreasing in
   unit order (zero padding keeps the order of sorted keys). False: out of
   memory. */
static bool index_heads(kv_sst_reader *r) {
    if (r->nunits == 0)
        return true;
    const idx_entry *a = &r->idx[0], *b = &r->idx[r->nunits - 1];
    size_t n = a->klen < b->klen ? a->klen : b->klen, cp = 0;
    /* sorted: the first and the last share what all share */
    while (cp < n && a->key[cp] == b->key[cp])
        cp++;
    r->prefix_len = cp;
    r->ntop = (r->nunits + TOP_STRIDE - 1) / TOP_STRIDE;
    r->heads = malloc(r->nunits * sizeof *r->heads);
    r->top = malloc(r->ntop * sizeof *r->top);
    if (!r->heads || !r->top)
        return false;
    for (size_t i = 0; i < r->nunits; i++)
        r->heads[i] = head_of(r->idx[i].key, r->idx[i].klen, cp);
    for (size_t k = 0; k < r->ntop; k++)
        r->top[k] = r->heads[k * TOP_STRIDE];
    return true;
}

static kv_status load_index(kv_sst_reader *r, uint64_t off, uint64_t size, uint64_t data_end,
                            char *err, size_t errlen) {
    const uint8_t *blk;
    size_t blen;
    kv_status st = fetch_owned(r, off, size, &r->index_mem, &blk, &blen, err, errlen);
    if (st != KV_OK)
        return st;
    kv_block b;
    /* Index keys are used in place, so the index is always NONE-encoded. */
    if (kv_block_parse(&b, blk, blen) != KV_OK || b.encoding != KV_ENCODING_NONE)
        goto corrupt;
    kv_block_iter it;
    kv_block_iter_init(&it);
    kv_block_iter_set(&it, &b);
    uint64_t prev_end = 0;
    size_t cap = 0;
    int rc = 0;
    for (kv_block_iter_seek_first(&it); it.valid; kv_block_iter_next(&it)) {
        if (r->nblocks == b.nrestarts)
            break;
        rc = decode_index_entry(r, &cap, it.key, it.key_len, it.val, it.val + it.val_len, data_end,
                                &prev_end);
        if (rc != 0)
            break;
        r->nblocks++;
    }
    /* Version 2 leaves no byte between the data blocks unchecked. */
    bool bad = it.valid || it.status != KV_OK || r->nblocks != b.nrestarts ||
               (r->version != KV_SST_FORMAT_VERSION_1 && prev_end != data_end);
    kv_block_iter_free(&it);
    if (rc == -2) {
        kv_env_errf(err, errlen, "out of memory reading %s", r->path);
        return KV_NO_MEMORY;
    }
    if (!bad) {
        /* Give back the slack of the doubling (kept if realloc fails). */
        idx_entry *fit = r->nunits && r->nunits < cap ? realloc(r->idx, r->nunits * sizeof *fit) : NULL;
        if (fit)
            r->idx = fit;
        if (index_heads(r))
            return KV_OK;
        kv_env_errf(err, errlen, "out of memory reading %s", r->path);
        return KV_NO_MEMORY;
    }
corrupt:
    kv_env_errf(err, errlen, "corrupt block in %s at offset %" PRIu64 " (bad index)", r->path, off);
    return KV_CORRUPT;
}

/* The meta block's optional fields after the bloom kind (at p): the
   count of distinct bloom keys, the DeleteColumn count and largest
   timestamp and the family-marker count, absent in older files (then the
   file may hold such markers). */
static void load_column_deletes(kv_sst_reader *r, const uint8_t *p, const uint8_t *end) {
    uint32_t bits, block_size;
    uint64_t bloom_keys, raw_bytes, n;
    if (end - p < 3)
        return;
    p += 3;
    if (!(p = kv_get_varint32(p, end, &bits)) || !(p = kv_get_varint32(p, end, &block_size)) ||
        !(p = kv_get_varint64(p, end, &bloom_keys)))
        return;
    r->bloom_keys_known = true;
    r->bloom_keys = bloom_keys;
    if ((p = kv_get_varint64(p, end, &raw_bytes)) && (p = kv_get_varint64(p, end, &n)) && end - p >= 8 &&
        kv_get_varint64(p + 8, end, &r->family_markers)) {
        r->column_deletes_known = true;
        r->column_deletes = n;
        r->max_column_delete_ts = (int64_t)kv_get_le64(p);
    }
}

uint64_t kv_sst_bloom_keys(const kv_sst_reader *r, kv_bloom kind) {
    /* Never above the entries: a damaged or forged count must not size a
       compaction's filter beyond what its inputs can hold. */
    bool known = r->bloom_keys_known && r->bloom && r->bloom_kind == kind;
    return known && r->bloom_keys < r->entries ? r->bloom_keys : r->entries;
}

bool kv_sst_column_deletes_below(const kv_sst_reader *r, int64_t ts) {
    return r->column_deletes_known && (r->column_deletes == 0 || r->max_column_delete_ts < ts);
}

bool kv_sst_no_family_markers(const kv_sst_reader *r) {
    return r->column_deletes_known && r->family_markers == 0;
}

bool kv_sst_marker_counts(const kv_sst_reader *r, uint64_t *column_deletes, int64_t *max_ts,
                          uint64_t *family_markers) {
    *column_deletes = r->column_deletes;
    *max_ts = r->max_column_delete_ts;
    *family_markers = r->family_markers;
    return r->column_deletes_known;
}

static kv_status load_meta(kv_sst_reader *r, uint64_t off, uint64_t size, char *err, size_t errlen) {
    uint8_t *mem;
    const uint8_t *p, *end;
    size_t blen;
    kv_status st = fetch_owned(r, off, size, &mem, &p, &blen, err, errlen);
    if (st != KV_OK)
        return st;
    end = p + blen;
    uint32_t version, slen, llen;
    uint64_t entries, blocks;
    const uint8_t *sk = NULL, *lk = NULL;
    bool ok = (p = kv_get_varint32(p, end, &version)) && version == KV_SST_META_VERSION &&
              (p = kv_get_varint64(p, end, &entries)) && (p = kv_get_varint64(p, end, &blocks)) &&
              end - p >= 24 && (p += 24) && (p = kv_get_varint32(p, end, &slen)) &&
              (size_t)(end - p) >= slen && (sk = p) && (p += slen) &&
              (p = kv_get_varint32(p, end, &llen)) && (size_t)(end - p) >= llen && (lk = p) &&
              (p += llen) && end - p >= 3;
    if (ok && slen + llen > 0) {
        /* Kept for kv_sst_matches: the keys that tell this file from
           another one copied over it. */
        free(r->meta_keys);
        r->meta_keys = malloc((size_t)slen + llen);
        if (!r->meta_keys) {
            free(mem);
            kv_env_errf(err, errlen, "%s: out of memory", r->path);
            return KV_NO_MEMORY;
        }
        memcpy(r->meta_keys, sk, slen);
        memcpy(r->meta_keys + slen, lk, llen);
        r->smallest_len = slen;
        r->largest_len = llen;
    }
    if (ok) {
        uint8_t bloom = p[2];
        ok = p[0] <= KV_COMPRESSION_SNAPPY && p[1] <= KV_ENCODING_DIFF && bloom <= KV_BLOOM_ROWCOL &&
             blocks == r->nblocks;
        r->bloom_kind = (kv_bloom)bloom;
        r->entries = entries;
        load_column_deletes(r, p, end);
    }
    free(mem);
    if (ok)
        return KV_OK;
    kv_env_errf(err, errlen, "corrupt block in %s at offset %" PRIu64 " (bad meta block)", r->path, off);
    return KV_CORRUPT;
}

void kv_sst_close(kv_sst_reader *r) {
    if (!r)
        return;
    if (r->file)
        r->env->close(r->file, NULL, 0);
    pthread_mutex_destroy(&r->err_mu);
    iter_pool_free(r);
    free(r->index_mem);
    free(r->idx);
    free(r->heads);
    free(r->top);
    free(r->bloom_mem);
    free(r->meta_keys);
    free(r->path);
    free(r);
}

bool kv_sst_matches(const kv_sst_reader *r, const kv_sst_meta *m) {
    if (!r || !m)
        return true;
    if (m->file_size && m->file_size != r->file_size)
        return false;
    if (m->entries && m->entries != r->entries)
        return false;
    if (m->smallest_len && (m->smallest_len != r->smallest_len ||
                            memcmp(m->smallest, r->meta_keys, m->smallest_len) != 0))
        return false;
    if (m->largest_len && (m->largest_len != r->largest_len ||
                           memcmp(m->largest, r->meta_keys + r->smallest_len, m->largest_len) != 0))
        return false;
    return true;
}

kv_status kv_sst_open(kv_sst_reader **out, kv_env *env, const char *path, uint64_t file_number,
                      kv_cache *cache, char *err, size_t errlen) {
    *out = NULL;
    kv_sst_reader *r = calloc(1, sizeof *r);
    if (!r || !(r->path = strdup(path))) {
        free(r);
        kv_env_errf(err, errlen, "out of memory opening %s", path);
        return KV_NO_MEMORY;
    }
    if (pthread_mutex_init(&r->err_mu, NULL) != 0) {
        free(r->path);
        free(r);
        kv_env_errf(err, errlen, "cannot create mutex opening %s", path);
        return KV_NO_MEMORY;
    }
    r->env = env;
    r->file_number = file_number;
    r->cache = cache;
    kv_status st = env->open_read(env, path, &r->file, err, errlen);
    if (st == KV_OK)
        st = env->size(r->file, &r->file_size, err, errlen);
    if (st != KV_OK) {
        kv_sst_close(r);
        return st;
    }
    uint8_t f[KV_SST_FOOTER_LEN];
    uint64_t foff = r->file_size >= KV_SST_FOOTER_LEN ? r->file_size - KV_SST_FOOTER_LEN : 0;
    size_t got = 0;
    if (r->file_size < KV_SST_FOOTER_LEN) {
        kv_env_errf(err, errlen, "corrupt sorted file %s: %" PRIu64 " bytes is too short (truncated)",
                path, r->file_size);
        st = KV_CORRUPT;
    } else if ((st = env->read_at(r->file, foff, f, sizeof f, &got, err, errlen)) == KV_OK &&
               (got != sizeof f || kv_get_le64(f + 56) != KV_SST_MAGIC ||
                !KV_CHECKSUM_OK(kv_get_le32(f + 52), f, 52) ||
                (kv_get_le32(f + 48) != KV_SST_FORMAT_VERSION &&
                 kv_get_le32(f + 48) != KV_SST_FORMAT_VERSION_2 &&
                 kv_get_le32(f + 48) != KV_SST_FORMAT_VERSION_1))) {
        kv_env_errf(err, errlen, "corrupt sorted file %s: bad footer at offset %" PRIu64
                " (truncated or damaged)", path, foff);
        st = KV_CORRUPT;
    }
    if (st != KV_OK) {
        kv_sst_close(r);
        return st;
    }
    r->version = kv_get_le32(f + 48);
    uint64_t index_off = kv_get_le64(f), index_size = kv_get_le64(f + 8);
    uint64_t bloom_off = kv_get_le64(f + 16), bloom_size = kv_get_le64(f + 24);
    uint64_t meta_off = kv_get_le64(f + 32), meta_size = kv_get_le64(f + 40);
    /* Data blocks lie before the first metadata block. */
    uint64_t data_end = bloom_size ? bloom_off : index_off;
    if (data_end > foff) {
        kv_env_errf(err, errlen, "corrupt sorted file %s: bad footer at offset %" PRIu64, path, foff);
        kv_sst_close(r);
        return KV_CORRUPT;
    }
    st = load_index(r, index_off, index_size, data_end, err, errlen);
    if (st == KV_OK && bloom_size) {
        const uint8_t *blk;
        st = fetch_owned(r, bloom_off, bloom_size, &r->bloom_mem, &blk, &r->bloom_len, err, errlen);
        r->bloom = blk;
        if (st == KV_OK && !kv_bloom_filter_valid(r->bloom, r->bloom_len)) {
            kv_env_errf(err, errlen, "corrupt block in %s at offset %" PRIu64 " (bad bloom filter)",
                    path, bloom_off);
            st = KV_CORRUPT;
        }
    }
    if (st == KV_OK)
        st = load_meta(r, meta_off, meta_size, err, errlen);
    if (st != KV_OK) {
        kv_sst_close(r);
        return st;
    }
    if (!r->bloom)
        r->bloom_kind = KV_BLOOM_NONE;
    *out = r;
    return KV_OK;
}

bool kv_sst_may_contain_row(const kv_sst_reader *r, const uint8_t *row_key, size_t len) {
    if (r->bloom_kind != KV_BLOOM_ROW)
        return true;
    return kv_bloom_may_contain(r->bloom, r->bloom_len, row_key, len);
}

uint64_t kv_sst_bloom_hash(const uint8_t *key, size_t len) {
    return kv_bloom_hash(key, len);
}

bool kv_sst_may_contain_row_hash(const kv_sst_reader *r, const uint8_t *row_key, size_t len, uint64_t hash) {
    if (r->bloom_kind != KV_BLOOM_ROW)
        return true;
    /* Every format version's filter probes from kv_bloom_hash of the key
       (doc/sorted_file_format.md, "Bloom block"); a version hashing
       otherwise would rehash row_key here. */
    (void)row_key;
    (void)len;
    return kv_bloom_may_contain_hash(r->bloom, r->bloom_len, hash);
}

bool kv_sst_may_contain_column(const kv_sst_reader *r, const uint8_t *column_key, size_t len) {
    if (r->bloom_kind != KV_BLOOM_ROWCOL)
        return true;
    return kv_bloom_may_contain(r->bloom, r->bloom_len, column_key, len);
}

void kv_sst_last_error(const kv_sst_reader *r, char *buf, size_t len) {
    kv_sst_reader *mr = (kv_sst_reader *)r;   /* locking does not change it */
    if (!buf || !len)
        return;
    pthread_mutex_lock(&mr->err_mu);
    snprintf(buf, len, "%s", mr->last_err);
    pthread_mutex_unlock(&mr->err_mu);
}

uint64_t kv_sst_file_size(const kv_sst_reader *r) {
    return r->file_size;
}

static void record_error(kv_sst_reader *r, const char *msg) {
    pthread_mutex_lock(&r->err_mu);
    snprintf(r->last_err, sizeof r->last_err, "%s", msg);
    pthread_mutex_unlock(&r->err_mu);
}

/* ---------------------------------------------------------------- iterator */

typedef struct sst_iter {
    kv_iter base;
    kv_sst_reader *r;
    bool fill, high;
    size_t bi;                   /* unit in bit; r->nunits = none */
    kv_cache_handle *h;          /* pins the current block when cached */
    growbuf rb, db;              /* reused when blocks are not cached */
    readahead ra;                /* the rest of a block, for a sequential scan */
    unsigned seq;                /* units entered by next() since the last seek */
    kv_block_iter bit;
    kv_status status;            /* sticky: set by the first error */
    const uint8_t *upper;        /* set_upper's bound (the caller's bytes) */
    size_t upper_len;            /* 0: none */
} sst_iter;

static void iter_error(sst_iter *it, kv_status st, const char *msg) {
    it->status = st;
    it->bit.valid = false;
    record_error(it->r, msg);
}

static void drop_block(sst_iter *it) {
    if (it->h) {
        kv_cache_release(it->r->cache, it->h);
        it->h = NULL;
    }
    it->bi = it->r->nunits;
    it->bit.valid = false;
}

/*
 * A scan that has stepped into a second unit in a row reads the rest of the
 * unit's block in one read_at (the block is what BLOCKSIZE sizes), and with
 * it the following units that end within READAHEAD_SEQ bytes of this one's
 * start (small blocks: about 64 KiB a read all the same); its units are
 * then checked one by one as they are entered, like any fetch. A failed
 * read ahead is dropped: the unit's own read reports the error.
 */
static void read_ahead(sst_iter *it, size_t i) {
    const kv_sst_reader *r = it->r;
    const idx_entry *e = &r->idx[i];
    readahead *ra = &it->ra;
    if (it->seq < 2 || (ra->len && e->off >= ra->off && e->off - ra->off < ra->len))
        return;
    uint64_t end = e->block_end - e->off <= READAHEAD_MAX ? e->block_end : e->off + e->size;
    /* units lie in file order */
    for (size_t j = i + 1; j < r->nunits && r->idx[j].off + r->idx[j].size - e->off <= READAHEAD_SEQ; j++)
        if (r->idx[j].off + r->idx[j].size > end)
            end = r->idx[j].off + r->idx[j].size;
    uint64_t n = end - e->off;
    if (n <= e->size)
        return;
    ra->len = 0;
    if (ra->cap < n) {
        uint8_t *p = realloc(ra->p, (size_t)n);
        if (!p)
            return;
        ra->p = p;
        ra->cap = (size_t)n;
    }
    size_t got = 0;
    if (r->env->read_at(r->file, e->off, ra->p, (size_t)n, &got, NULL, 0) == KV_OK) {
        ra->off = e->off;
        ra->len = got;
    }
}

static bool load_block(sst_iter *it, size_t i) {
    kv_sst_reader *r = it->r;
    drop_block(it);
    if (it->status != KV_OK)
        return false;
    const idx_entry *e = &r->idx[i];
    const uint8_t *blk = NULL;
    size_t blen = 0;
    /* A unit already read ahead is checked from those bytes, without a
       cache lookup (a long scan's lookups miss; an IN_MEMORY family's hit) */
    if (r->cache && (it->high || !ra_holds(&it->ra, e->off, e->size)))
        it->h = kv_cache_lookup(r->cache, r->file_number, e->off);
    if (!it->h) {
        char msg[MSG_LEN];
        read_ahead(it, i);
        /* A unit read ahead goes into the cache only while the cache has
           room for it (IN_MEMORY: always): a long scan evicts nothing, and
           serves the rest of its units from its own buffer (about: the
           charge of a compressed unit is its larger decompressed size). */
        bool detach = r->cache && it->fill &&
                      (it->high || !ra_holds(&it->ra, e->off, e->size) ||
                       kv_cache_has_room(r->cache, r->file_number, e->off, (size_t)e->size));
        uint8_t *mem = NULL;
        size_t memlen = 0;
        kv_status st = fetch(r, &it->ra, e->off, e->size, &it->rb, &it->db, detach, &mem, &memlen,
                             &blk, &blen, msg, sizeof msg);
        if (st != KV_OK) {
            iter_error(it, st, msg);
            return false;
        }
        if (detach) {
            /* Entries are charged their allocated bytes (memlen), so the
               buffer of a block evicted for this one serves the next read. */
            void *spare = NULL;
            size_t spare_len = 0;
            it->h = kv_cache_insert_reuse(r->cache, r->file_number, e->off, mem, blen + 1, memlen,
                                          it->high, &spare, &spare_len);
            if (spare && !it->rb.p) {
                it->rb.p = spare;
                it->rb.cap = spare_len;
            } else {
                free(spare);
            }
            if (!it->h) {
                iter_error(it, KV_NO_MEMORY, "out of memory caching a block");
                return false;
            }
        }
    }
    if (it->h) {
        size_t size;
        blk = (const uint8_t *)kv_cache_data(it->h, &size) + 1;
        blen = size - 1;
    }
    kv_block b;
    if (kv_block_parse(&b, blk, blen) != KV_OK) {
        char msg[MSG_LEN];
        snprintf(msg, sizeof msg, "corrupt block in %s at offset %" PRIu64 " (bad block trailer)",
                 r->path, e->off);
        iter_error(it, KV_CORRUPT, msg);
        return false;
    }
    kv_block_iter_set(&it->bit, &b);
    it->bi = i;
    return true;
}

/* After a block-iterator move: reports decoding errors. */
static bool block_ok(sst_iter *it) {
    if (it->bit.status == KV_OK)
        return true;
    char msg[MSG_LEN];
    if (it->bit.status == KV_CORRUPT)
        snprintf(msg, sizeof msg, "corrupt block in %s at offset %" PRIu64 " (bad entry)",
                 it->r->path, it->r->idx[it->bi].off);
    else
        snprintf(msg, sizeof msg, "out of memory reading %s", it->r->path);
    iter_error(it, it->bit.status, msg);
    return false;
}

/* Whether the keys after unit i all lie at or above the iterator's bound:
   they are above its separator (doc/sorted_file_format.md), which is. */
static bool past_upper(const sst_iter *it, size_t i) {
    const idx_entry *e = &it->r->idx[i];
    return it->upper_len && kv_bytes_compare(e->key, e->klen, it->upper, it->upper_len) >= 0;
}

/* Moves past the ends of blocks to the next entry, if any: none when the
   next unit lies wholly at or above the bound (it is not read). */
static void skip_forward(sst_iter *it) {
    while (!it->bit.valid && block_ok(it) && it->bi + 1 < it->r->nunits) {
        if (past_upper(it, it->bi)) {
            drop_block(it);
            return;
        }
        it->seq++;
        if (!load_block(it, it->bi + 1))
            return;
        kv_block_iter_seek_first(&it->bit);
    }
    block_ok(it);
}

/* The first unit whose separator is >= target (nunits if none). */
static size_t find_block(const kv_sst_reader *r, const uint8_t *target, size_t len) {
    size_t lo = 0, hi = r->nunits, cp = r->prefix_len;
    if (hi == 0)
        return 0;
    /* against the prefix every separator shares: below it (or a proper
       prefix of it), target is below them all; above it, above them all */
    size_t n = len < cp ? len : cp;
    int c = n ? memcmp(target, r->idx[0].key, n) : 0;
    if (c < 0 || (c == 0 && len < cp))
        return 0;
    if (c > 0)
        return r->nunits;
    uint64_t th = head_of(target, len, cp);
    /* In the top array: samples [0, k1) have heads below th, so every unit
       up to sample k1 - 1 is below target; from sample k2 on the heads
       are above th, so unit k2 * TOP_STRIDE is above target. */
    size_t l = 0, h = r->ntop;
    while (l < h) {
        size_t mid = l + (h - l) / 2;
        if (r->top[mid] < th)
            l = mid + 1;
        else
            h = mid;
    }
    size_t k1 = l;
    for (h = r->ntop; l < h;) {
        size_t mid = l + (h - l) / 2;
        if (r->top[mid] <= th)
            l = mid + 1;
        else
            h = mid;
    }
    size_t k2 = l;
    if (k1 > 0)
        lo = (k1 - 1) * TOP_STRIDE + 1;
    if (k2 < r->ntop)
        hi = k2 * TOP_STRIDE;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint64_t mh = r->heads[mid];
        int d = mh < th ? -1 : mh > th ? 1 : kv_bytes_compare(r->idx[mid].key, r->idx[mid].klen, target, len);
        if (d < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void it_seek(kv_iter *base, const uint8_t *target, size_t len) {
    sst_iter *it = (sst_iter *)base;
    it->seq = 0;
    size_t i = len == 0 ? 0 : find_block(it->r, target, len);
    if (i >= it->r->nunits) {
        drop_block(it);
        return;
    }
    /* a seek within the unit at hand (a scan skipping a column or a row)
       keeps it: no cache lookup, no release, no parse */
    if ((i != it->bi || it->status != KV_OK) && !load_block(it, i))
        return;
    if (len == 0)
        kv_block_iter_seek_first(&it->bit);
    else
        kv_block_iter_seek(&it->bit, target, len);
    skip_forward(it);
}

static void seek_last_of(sst_iter *it, size_t i) {
    if (load_block(it, i)) {
        kv_block_iter_seek_last(&it->bit);
        block_ok(it);
    }
}

static void it_seek_before(kv_iter *base, const uint8_t *target, size_t len) {
    sst_iter *it = (sst_iter *)base;
    it->seq = 0;
    size_t n = it->r->nunits;
    if (n == 0) {
        drop_block(it);
        return;
    }
    if (!target) {
        seek_last_of(it, n - 1);
        return;
    }
    size_t i = find_block(it->r, target, len);
    if (i >= n) {
        /* Every separator, hence every key, is < target. */
        seek_last_of(it, n - 1);
        return;
    }
    if (!load_block(it, i))
        return;
    kv_block_iter_seek_before(&it->bit, target, len);
    if (!block_ok(it) || it->bit.valid)
        return;
    if (i == 0) {
        drop_block(it);
        return;
    }
    /* Block i-1 ends at or before its separator, which is < target. */
    seek_last_of(it, i - 1);
}

static void it_next(kv_iter *base) {
    sst_iter *it = (sst_iter *)base;
    if (!it->bit.valid || it->status != KV_OK)
        return;
    kv_block_iter_next(&it->bit);
    skip_forward(it);
}

static void it_set_upper(kv_iter *base, const uint8_t *bound, size_t len) {
    sst_iter *it = (sst_iter *)base;
    it->upper = bound;
    it->upper_len = bound ? len : 0;
}

static bool it_valid(const kv_iter *base) {
    const sst_iter *it = (const sst_iter *)base;
    return it->status == KV_OK && it->bi < it->r->nunits && it->bit.valid;
}

static const uint8_t *it_key(const kv_iter *base, size_t *len) {
    const sst_iter *it = (const sst_iter *)base;
    *len = it->bit.key_len;
    return it->bit.key;
}

static const uint8_t *it_value(const kv_iter *base, size_t *len) {
    const sst_iter *it = (const sst_iter *)base;
    *len = it->bit.val_len;
    return it->bit.val;
}

static kv_status it_status(const kv_iter *base) {
    return ((const sst_iter *)base)->status;
}

/* Frees an iterator and its buffers. */
static void iter_free(sst_iter *it) {
    kv_block_iter_free(&it->bit);
    free(it->rb.p);
    free(it->db.p);
    free(it->ra.p);
    free(it);
}

/* A buffer a pooled iterator keeps: a small one, for the next unit read. */
static void keep_small(growbuf *g) {
    if (g->cap > ITER_POOL_KEEP_BYTES) {
        free(g->p);
        g->p = NULL;
        g->cap = 0;
    }
}

static void it_destroy(kv_iter *base) {
    sst_iter *it = (sst_iter *)base;
    if (!it)
        return;
    drop_block(it);
    /* Into the reader's pool, keeping its small read buffers: the next get
       allocates no iterator and no buffer for a unit it reads. The read-
       ahead buffer of a scan is not kept. */
    kv_sst_reader *r = it->r;
    free(it->ra.p);
    it->ra = (readahead){0};
    keep_small(&it->rb);
    keep_small(&it->db);
    if (it->bit.kbuf.cap > ITER_POOL_KEEP_BYTES)
        kv_buf_free(&it->bit.kbuf);
    for (size_t i = 0; i < ITER_POOL; i++) {
        sst_iter *expect = NULL;
        if (atomic_compare_exchange_strong_explicit(&r->pool[i], &expect, it, memory_order_release,
                                                    memory_order_relaxed))
            return;
    }
    iter_free(it);
}

/* Frees the reader's pooled iterators (at close: none is open). */
static void iter_pool_free(kv_sst_reader *r) {
    for (size_t i = 0; i < ITER_POOL; i++) {
        sst_iter *it = atomic_exchange_explicit(&r->pool[i], NULL, memory_order_acquire);
        if (it)
            iter_free(it);
    }
}

kv_iter *kv_sst_iter(kv_sst_reader *r, bool fill_cache, bool high_priority) {
    sst_iter *it = NULL;
    for (size_t i = 0; i < ITER_POOL && !it; i++)
        it = atomic_exchange_explicit(&r->pool[i], NULL, memory_order_acquire);
    if (it) {
        /* a closed one: its buffers stay, the rest starts afresh */
        kv_buf kbuf = it->bit.kbuf;
        growbuf rb = it->rb, db = it->db;
        memset(it, 0, sizeof *it);
        kv_block_iter_init(&it->bit);
        it->bit.kbuf = (kv_buf){kbuf.data, 0, kbuf.cap};
        it->rb = rb;
        it->db = db;
    } else {
        it = calloc(1, sizeof *it);
        if (!it)
            return NULL;
        kv_block_iter_init(&it->bit);
    }
    it->base = (kv_iter){ it_seek, it_seek_before, it_next, it_valid, it_key, it_value, it_status,
                          it_destroy, NULL, it_set_upper };
    it->r = r;
    it->fill = fill_cache;
    it->high = high_priority;
    it->bi = r->nunits;
    return &it->base;
}
