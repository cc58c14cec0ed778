/*
 * sst_write.c: writes a sorted file (contract in sst.h, layout in
 * doc/sorted_file_format.md). Entries go into data blocks (block.c); a
 * full block is compressed when that saves at least 1/8, framed with a
 * type byte and checksum, and buffered; its index entry is added when the
 * next key arrives, so that a short separator between the two blocks can
 * stand in for the last key; between two rows it is the next row's start
 * bound, so that a get, or a scan with a stop row, stops there without
 * reading the next unit (sst_read.c, set_upper). finish() appends the bloom, index and meta
 * blocks and the footer, then syncs and closes.
 *
 * Read units (format version 2): a data block of the family's BLOCKSIZE
 * is written as consecutive units of about KV_SST_UNIT_BYTES (uncompressed
 * bytes), each a block of its own (restarts, trailer, frame and checksum,
 * compressed alone when that pays), so that a reader fetches, verifies and
 * decompresses one unit, not the whole block; an entry of a unit's size or
 * more starts a unit of its own. A unit's separator is chosen
 * like a block's, when the next key arrives; the block's index entry lists
 * its units. Without compression (format version 3) a unit also ends
 * before the entry that would carry it past the end of its 4 KiB page of
 * the file, padded to that end, so that reading it is one page.
 * Called by flush and compaction; calls env, block.c, bloom.c, keys.c,
 * lz4 and snappy.
 */
#include "sst.h"
#include "block.h"
#include "bloom.h"
#include "hbase/keys.h"

#include <lz4.h>
#include <snappy-c.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define XXH_STATIC_LINKING_ONLY   /* XXH3_state_t on the stack */
#include <xxhash.h>

/* Buffered output is appended to the file in chunks of this size. */
#define OUT_FLUSH_BYTES ((size_t)256 << 10)
/* A raw metadata block of this size or more (filter, index) is written
   from its builder's memory, not copied into the output buffer. */
#define DIRECT_WRITE_BYTES ((size_t)64 << 10)
/* Above this the output buffer's memory is given back after a flush. */
#define OUT_KEEP_BYTES ((size_t)4 << 20)
/* Largest key or value accepted by one entry (blocks use 32-bit offsets). */
#define ENTRY_MAX_BYTES ((size_t)1 << 30)

struct kv_sst_writer {
    kv_env *env;
    kv_file *file;
    char *path;
    kv_sst_options opts;
    kv_buf out;                  /* framed blocks not yet appended */
    uint64_t flushed;            /* bytes appended to the file */
    kv_block_builder data, index;    /* data: the unit being built */
    bool split;                  /* blocks are cut into read units */
    bool pad;                    /* units kept within pages (uncompressed) */
    bool pending;                /* a unit awaits its separator */
    bool block_full;             /* ... and it ends its block */
    uint64_t pending_size;       /* framed bytes of that unit */
    uint64_t block_off, block_size, block_raw;  /* the open block so far */
    uint32_t block_units;
    kv_buf units;                /* the open block's unit list (index value) */
    kv_bloom_builder bloom;
    kv_buf last_bloom_key;
    kv_buf last_key;             /* last key added */
    kv_buf smallest;
    kv_buf scratch;              /* index values, meta, bloom */
    uint64_t entries, data_blocks, raw_data_bytes;
    bool have_ts;
    int64_t min_ts, max_ts;
    uint64_t max_seq;
    uint64_t column_deletes;     /* DeleteColumn markers, */
    int64_t max_column_delete_ts;    /* ... and their largest timestamp */
    uint64_t family_markers;     /* DeleteFamily, DeleteFamilyVersion markers */
    kv_status error;             /* first failure; the writer is then dead */
    char errmsg[512];
};

static kv_status fail(kv_sst_writer *w, kv_status st, const char *fmt, ...) {
    if (w->error == KV_OK) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(w->errmsg, sizeof w->errmsg, fmt, ap);
        va_end(ap);
        w->error = st;
    }
    return st;
}

static void copy_err(char *err, size_t errlen, const char *msg) {
    if (err && errlen)
        snprintf(err, errlen, "%s", msg);
}

kv_status kv_sst_writer_open(kv_sst_writer **out, kv_env *env, const char *path,
                             const kv_sst_options *opts, char *err, size_t errlen) {
    *out = NULL;
    kv_sst_options o = { 65536, KV_COMPRESSION_NONE, KV_ENCODING_NONE, KV_BLOOM_ROW,
                         KV_BLOOM_DEFAULT_BITS_PER_KEY };
    if (opts)
        o = *opts;
    if (o.block_size == 0)
        o.block_size = 65536;
    if (o.bloom_bits_per_key == 0)
        o.bloom_bits_per_key = KV_BLOOM_DEFAULT_BITS_PER_KEY;
    if ((unsigned)o.compression > KV_COMPRESSION_SNAPPY || (unsigned)o.encoding > KV_ENCODING_DIFF ||
        (unsigned)o.bloom > KV_BLOOM_ROWCOL || o.bloom_bits_per_key > 64) {
        copy_err(err, errlen, "invalid sorted file options");
        return KV_INVALID;
    }
    kv_sst_writer *w = calloc(1, sizeof *w);
    if (!w || !(w->path = strdup(path))) {
        free(w);
        copy_err(err, errlen, "out of memory");
        return KV_NO_MEMORY;
    }
    kv_status st = env->open_append(env, path, true, &w->file, err, errlen);
    if (st != KV_OK) {
        free(w->path);
        free(w);
        return st;
    }
    w->env = env;
    w->opts = o;
    w->split = o.block_size > KV_SST_UNIT_BYTES;
    /* A compressed unit's framed size is known only once compressed: its
       units are not fitted to pages (and half-empty pages would undo the
       compression). */
    w->pad = o.compression == KV_COMPRESSION_NONE;
    kv_block_builder_init(&w->data, o.encoding, 0);
    kv_block_builder_init(&w->index, KV_ENCODING_NONE, 0);
    kv_bloom_builder_init(&w->bloom, o.bloom_bits_per_key);
    *out = w;
    return KV_OK;
}

void kv_sst_writer_expect_bloom_keys(kv_sst_writer *w, uint64_t n) {
    kv_bloom_builder_expect(&w->bloom, n);
}

static kv_status flush_out(kv_sst_writer *w) {
    if (w->out.len == 0)
        return KV_OK;
    char e[256] = "";
    kv_status st = w->env->append(w->file, w->out.data, w->out.len, e, sizeof e);
    if (st != KV_OK)
        return fail(w, st, "%s", e[0] ? e : "write failed");
    w->flushed += w->out.len;
    w->out.len = 0;
    if (w->out.cap > OUT_KEEP_BYTES)
        kv_buf_free(&w->out);
    return KV_OK;
}

/* Tries to compress raw into out after a 5-byte header; returns the
   payload type and sets *clen (compressed bytes) when it pays off. */
static uint8_t try_compress(kv_sst_writer *w, const uint8_t *raw, size_t n, size_t start,
                            size_t *clen) {
    if (w->opts.compression == KV_COMPRESSION_NONE || n == 0 || n > LZ4_MAX_INPUT_SIZE)
        return KV_BLOCK_TYPE_RAW;
    size_t bound = w->opts.compression == KV_COMPRESSION_LZ4 ? (size_t)LZ4_compressBound((int)n)
                                                            : snappy_max_compressed_length(n);
    if (kv_buf_reserve(&w->out, 5 + bound + KV_BLOCK_CHECKSUM_LEN) != 0)
        return KV_BLOCK_TYPE_RAW;
    uint8_t *dst = w->out.data + start + 5;
    uint8_t type;
    size_t c;
    if (w->opts.compression == KV_COMPRESSION_LZ4) {
        int r = LZ4_compress_default((const char *)raw, (char *)dst, (int)n, (int)bound);
        if (r <= 0)
            return KV_BLOCK_TYPE_RAW;
        c = (size_t)r;
        type = KV_BLOCK_TYPE_LZ4;
    } else {
        c = bound;
        if (snappy_compress((const char *)raw, n, (char *)dst, &c) != SNAPPY_OK)
            return KV_BLOCK_TYPE_RAW;
        type = KV_BLOCK_TYPE_SNAPPY;
    }
    /* Keep the compressed form only if it saves at least 1/8. */
    if (c + 4 > n - n / 8)
        return KV_BLOCK_TYPE_RAW;
    *clen = c;
    return type;
}

/* Frames one block into the output buffer; off and size locate it on disk.
   A raw block that lies within one page of the file and leaves less than
   pad_below bytes of it is padded to the page's end (KV_BLOCK_FLAG_PADDED),
   so that the next block starts the next page. */
static kv_status write_block(kv_sst_writer *w, const uint8_t *raw, size_t n, bool compress,
                             size_t pad_below, uint64_t *off, uint64_t *size) {
    size_t start = w->out.len, clen = 0, len;
    uint8_t type = compress ? try_compress(w, raw, n, start, &clen) : KV_BLOCK_TYPE_RAW;
    if (type != KV_BLOCK_TYPE_RAW) {
        w->out.data[start] = type;
        kv_put_le32(w->out.data + start + 1, (uint32_t)n);
        len = 5 + clen;
    } else {
        if (kv_buf_reserve(&w->out, 1 + n + KV_BLOCK_CHECKSUM_LEN) != 0)
            return fail(w, KV_NO_MEMORY, "out of memory writing %s", w->path);
        w->out.data[start] = KV_BLOCK_TYPE_RAW;
        if (n)
            memcpy(w->out.data + start + 1, raw, n);
        len = 1 + n;
        uint64_t first = w->flushed + start, end = first + len + KV_BLOCK_CHECKSUM_LEN;
        size_t room = (size_t)(KV_SST_PAGE_BYTES - end % KV_SST_PAGE_BYTES);
        if (room < pad_below && room < KV_SST_PAGE_BYTES && room >= KV_BLOCK_PAD_LEN &&
            first / KV_SST_PAGE_BYTES == end / KV_SST_PAGE_BYTES) {
            if (kv_buf_reserve(&w->out, len + room + KV_BLOCK_CHECKSUM_LEN) != 0)
                return fail(w, KV_NO_MEMORY, "out of memory writing %s", w->path);
            uint8_t *p = w->out.data + start;
            p[0] |= KV_BLOCK_FLAG_PADDED;
            memset(p + len, 0, room - KV_BLOCK_PAD_LEN);
            p[len + room - 2] = (uint8_t)room;
            p[len + room - 1] = (uint8_t)(room >> 8);
            len += room;
        }
    }
    kv_put_le32(w->out.data + start + len, kv_checksum(w->out.data + start, len));
    w->out.len = start + len + KV_BLOCK_CHECKSUM_LEN;
    *off = w->flushed + start;
    *size = len + KV_BLOCK_CHECKSUM_LEN;
    if (w->out.len >= OUT_FLUSH_BYTES)
        return flush_out(w);
    return KV_OK;
}

/* Writes a large raw block (the bloom filter, an uncompressed index:
   megabytes at 10M keys)
   straight from the caller's memory instead of copying it into the output
   buffer; the checksum is the same XXH3 over type byte and payload,
   computed in two steps. */
static kv_status write_raw_large(kv_sst_writer *w, const uint8_t *raw, size_t n, uint64_t *off,
                                 uint64_t *size) {
    if (n < DIRECT_WRITE_BYTES)
        return write_block(w, raw, n, false, 0, off, size);
    uint8_t type = KV_BLOCK_TYPE_RAW;
    XXH3_state_t xs;
    kv_status st;
    if (XXH3_64bits_reset(&xs) != XXH_OK || XXH3_64bits_update(&xs, &type, 1) != XXH_OK ||
        XXH3_64bits_update(&xs, raw, n) != XXH_OK)
        return fail(w, KV_NO_MEMORY, "cannot checksum a block of %s", w->path);
    uint32_t sum = (uint32_t)XXH3_64bits_digest(&xs);
    if (kv_buf_append(&w->out, &type, 1) != 0)
        return fail(w, KV_NO_MEMORY, "out of memory writing %s", w->path);
    if ((st = flush_out(w)) != KV_OK)
        return st;
    *off = w->flushed - 1;
    char e[256] = "";
    if ((st = w->env->append(w->file, raw, n, e, sizeof e)) != KV_OK)
        return fail(w, st, "%s", e[0] ? e : "write failed");
    w->flushed += n;
    uint8_t c[KV_BLOCK_CHECKSUM_LEN];
    kv_put_le32(c, sum);
    if (kv_buf_append(&w->out, c, sizeof c) != 0)
        return fail(w, KV_NO_MEMORY, "out of memory writing %s", w->path);
    *size = 1 + n + KV_BLOCK_CHECKSUM_LEN;
    return KV_OK;
}

/* The pending unit gets its separator: it goes into the open block's unit
   list, or, when the unit ends the block (always at the end of the file),
   the separator keys the block's index entry, whose value is
   offset, size, unit count and the list (doc/sorted_file_format.md). */
static kv_status end_unit(kv_sst_writer *w, const uint8_t *sep, size_t seplen, bool last) {
    w->pending = false;
    if (!w->block_full && !last) {
        if (kv_buf_append_varint32(&w->units, (uint32_t)seplen) != 0 ||
            kv_buf_append(&w->units, sep, seplen) != 0 ||
            kv_buf_append_varint64(&w->units, w->pending_size) != 0)
            return fail(w, KV_NO_MEMORY, "out of memory writing %s", w->path);
        return KV_OK;
    }
    w->scratch.len = 0;
    if (kv_buf_append_varint64(&w->scratch, w->block_off) != 0 ||
        kv_buf_append_varint64(&w->scratch, w->block_size) != 0 ||
        kv_buf_append_varint32(&w->scratch, w->block_units) != 0 ||
        kv_buf_append(&w->scratch, w->units.data, w->units.len) != 0 ||
        kv_block_builder_add(&w->index, sep, seplen, w->scratch.data, w->scratch.len) != 0)
        return fail(w, KV_NO_MEMORY, "out of memory writing %s", w->path);
    w->data_blocks++;
    w->units.len = 0;
    w->block_units = 0;
    w->block_size = 0;
    w->block_raw = 0;
    return KV_OK;
}

/* Writes the unit being built; with pad (the next entry does not fit in
   its page), padded to the end of its page; else (w->pad) only when what
   is left of the page is too small to be worth a unit that would mostly
   run into the next page. */
static kv_status flush_unit(kv_sst_writer *w, bool pad) {
    size_t n;
    const uint8_t *raw = kv_block_builder_finish(&w->data, &n);
    if (!raw)
        return fail(w, KV_NO_MEMORY, "out of memory writing %s", w->path);
    uint64_t off = 0;   /* set by write_block whenever it returns KV_OK */
    size_t pad_below = pad ? KV_SST_PAGE_BYTES : w->pad ? KV_SST_PAGE_BYTES / 16 : 0;
    kv_status st = write_block(w, raw, n, true, pad_below, &off, &w->pending_size);
    if (st != KV_OK)
        return st;
    if (w->block_units == 0)
        w->block_off = off;
    w->block_units++;
    w->block_size += w->pending_size;
    w->block_raw += n;
    w->pending = true;
    w->block_full = !w->split || w->block_raw >= w->opts.block_size;
    w->raw_data_bytes += n;
    kv_block_builder_reset(&w->data);
    return KV_OK;
}

static int buf_set(kv_buf *b, const uint8_t *p, size_t n) {
    b->len = 0;
    return kv_buf_append(b, p, n);
}

/* Bytes that adding (key, vlen) adds to the block b builds, or a few more
   (block.c's entry layouts): lengths, the key less what it shares with the
   last key (PREFIX, DIFF between restarts; DIFF's suffix fields at most 9
   bytes beyond), the value and a restart offset. */
static size_t entry_bound(const kv_block_builder *b, const uint8_t *key, size_t klen, size_t vlen) {
    size_t n = 2 * kv_varint_length(klen) + kv_varint_length(vlen) + klen + vlen + 4;
    if (b->encoding == KV_ENCODING_NONE)
        return n;
    size_t shared = 0;
    if (b->count > 0 && b->run < b->interval) {
        const uint8_t *last = b->last_key.data;
        size_t max = klen < b->last_key.len ? klen : b->last_key.len;
        while (shared < max && key[shared] == last[shared])
            shared++;
    }
    return n - shared + (b->encoding == KV_ENCODING_DIFF ? 10 : 0);
}

kv_status kv_sst_add(kv_sst_writer *w, const uint8_t *key, size_t klen, const uint8_t *value,
                     size_t vlen) {
    if (w->error != KV_OK)
        return w->error;
    if (w->entries > 0 && kv_bytes_compare(key, klen, w->last_key.data, w->last_key.len) <= 0)
        return KV_INVALID;
    if (klen > ENTRY_MAX_BYTES || vlen > ENTRY_MAX_BYTES)
        return KV_TOO_LARGE;
    /* An entry of a unit's size or more starts a unit of its own: the
       small entries before it (a small column beside a large one) are then
       read without it. */
    if (w->split && klen + vlen >= KV_SST_UNIT_BYTES && kv_block_builder_count(&w->data) > 0) {
        kv_status st = flush_unit(w, false);
        if (st != KV_OK)
            return st;
    }
    /* An uncompressed unit ends before the entry that would carry it past
       the end of its page (framed and padded), so that a unit that starts a
       page is read as one page. */
    if (w->pad && kv_block_builder_count(&w->data) > 0) {
        uint64_t start = (w->flushed + w->out.len) % KV_SST_PAGE_BYTES;
        uint64_t est = 1 + (uint64_t)kv_block_builder_size(&w->data) + entry_bound(&w->data, key, klen, vlen) +
                       KV_BLOCK_PAD_LEN + KV_BLOCK_CHECKSUM_LEN;
        if (start + est > KV_SST_PAGE_BYTES) {
            kv_status st = flush_unit(w, true);
            if (st != KV_OK)
                return st;
        }
    }
    if (w->pending) {
        /* Between two rows: the next row's start bound, esc(next row) and
           the first byte of its terminator (0x00): above every key of the
           earlier row and of any row between, below every key of the next
           one. A read bounded by a row's end, or by a stop row at or
           after the next row, stops at it without reading the next unit
           (set_upper). Else the shortest s with last <= s < key replaces
           the last key. */
        const uint8_t *a = w->last_key.data;
        size_t alen = w->last_key.len, p = 0, nrl;
        while (p < alen && p < klen && a[p] == key[p])
            p++;
        const uint8_t *sep = a;
        size_t seplen = alen;
        if (p < kv_key_row_prefix_len(a, alen) && (nrl = kv_key_row_prefix_len(key, klen)) >= 2 &&
            key[nrl - 2] == 0x00 && key[nrl - 1] == 0x01 &&
            kv_bytes_compare(a, alen, key, nrl - 1) < 0) {
            sep = key;
            seplen = nrl - 1;
        } else if (p < alen && p < klen && a[p] < 0xff && a[p] + 1 < key[p]) {
            w->last_key.data[p]++;
            seplen = p + 1;
        }
        kv_status st = end_unit(w, sep, seplen, false);
        if (st != KV_OK)
            return st;
    }
    if (kv_block_builder_add(&w->data, key, klen, value, vlen) != 0 || buf_set(&w->last_key, key, klen) != 0)
        return fail(w, KV_NO_MEMORY, "out of memory writing %s", w->path);
    if (w->entries == 0 && buf_set(&w->smallest, key, klen) != 0)
        return fail(w, KV_NO_MEMORY, "out of memory writing %s", w->path);
    if (w->opts.bloom != KV_BLOOM_NONE) {
        size_t blen = w->opts.bloom == KV_BLOOM_ROW ? kv_key_row_prefix_len(key, klen)
                                                   : kv_key_column_prefix_len(key, klen);
        if (blen == 0)
            blen = klen;   /* not an internal key: the whole key stands in */
        if (w->bloom.n == 0 ||
            kv_bytes_compare(key, blen, w->last_bloom_key.data, w->last_bloom_key.len) != 0) {
            if (kv_bloom_builder_add(&w->bloom, key, blen) != 0 ||
                buf_set(&w->last_bloom_key, key, blen) != 0)
                return fail(w, KV_NO_MEMORY, "out of memory writing %s", w->path);
        }
    }
    if (klen >= KV_KEY_SUFFIX_LEN) {
        int64_t ts = kv_key_timestamp(key, klen);
        uint64_t seq = kv_key_sequence(key, klen);
        if (!w->have_ts || ts < w->min_ts)
            w->min_ts = ts;
        if (!w->have_ts || ts > w->max_ts)
            w->max_ts = ts;
        if (seq > w->max_seq)
            w->max_seq = seq;
        if (kv_key_type(key, klen) == KV_TYPE_DELETE_COLUMN &&
            (w->column_deletes++ == 0 || ts > w->max_column_delete_ts))
            w->max_column_delete_ts = ts;
        kv_cell_type type = kv_key_type(key, klen);
        if (type == KV_TYPE_DELETE_FAMILY || type == KV_TYPE_DELETE_FAMILY_VERSION)
            w->family_markers++;
        w->have_ts = true;
    }
    w->entries++;
    size_t size = kv_block_builder_size(&w->data);
    if (size >= w->opts.block_size ||
        (w->split && (size >= KV_SST_UNIT_BYTES || w->block_raw + size >= w->opts.block_size)))
        return flush_unit(w, false);
    return KV_OK;
}

uint64_t kv_sst_writer_size(const kv_sst_writer *w) {
    return w->flushed + w->out.len + kv_block_builder_size(&w->data);
}

static int put_u64(kv_buf *b, uint64_t v) {
    uint8_t t[8];
    kv_put_le64(t, v);
    return kv_buf_append(b, t, 8);
}

/* The meta block (doc/sorted_file_format.md, "Meta block"). */
static int encode_meta(kv_sst_writer *w, kv_buf *b) {
    b->len = 0;
    return kv_buf_append_varint32(b, KV_SST_META_VERSION) || kv_buf_append_varint64(b, w->entries) ||
           kv_buf_append_varint64(b, w->data_blocks) || put_u64(b, (uint64_t)w->min_ts) ||
           put_u64(b, (uint64_t)w->max_ts) || put_u64(b, w->max_seq) ||
           kv_buf_append_varint32(b, (uint32_t)w->smallest.len) ||
           kv_buf_append(b, w->smallest.data, w->smallest.len) ||
           kv_buf_append_varint32(b, (uint32_t)w->last_key.len) ||
           kv_buf_append(b, w->last_key.data, w->last_key.len) ||
           kv_buf_append(b, &(uint8_t){ (uint8_t)w->opts.compression }, 1) ||
           kv_buf_append(b, &(uint8_t){ (uint8_t)w->opts.encoding }, 1) ||
           kv_buf_append(b, &(uint8_t){ (uint8_t)w->opts.bloom }, 1) ||
           kv_buf_append_varint32(b, w->opts.bloom_bits_per_key) ||
           kv_buf_append_varint32(b, w->opts.block_size) ||
           kv_buf_append_varint64(b, kv_bloom_builder_count(&w->bloom)) ||
           kv_buf_append_varint64(b, w->raw_data_bytes) ||
           kv_buf_append_varint64(b, w->column_deletes) ||
           put_u64(b, w->column_deletes ? (uint64_t)w->max_column_delete_ts : 0) ||
           kv_buf_append_varint64(b, w->family_markers) ? -1 : 0;
}

static uint8_t *dup_bytes(const kv_buf *b) {
    uint8_t *p = malloc(b->len ? b->len : 1);
    if (p && b->len)
        memcpy(p, b->data, b->len);
    return p;
}

static kv_status finish_file(kv_sst_writer *w) {
    kv_status st;
    if (kv_block_builder_count(&w->data) > 0 && (st = flush_unit(w, false)) != KV_OK)
        return st;
    if (w->pending && (st = end_unit(w, w->last_key.data, w->last_key.len, true)) != KV_OK)
        return st;
    uint64_t bloom_off = 0, bloom_size = 0, index_off, index_size, meta_off, meta_size;
    if (w->opts.bloom != KV_BLOOM_NONE) {
        const uint8_t *filter;
        size_t flen;
        if (kv_bloom_builder_finish(&w->bloom, &filter, &flen) != 0)
            return fail(w, KV_NO_MEMORY, "out of memory writing %s", w->path);
        /* Bloom bits look random: never worth compressing. */
        if ((st = write_raw_large(w, filter, flen, &bloom_off, &bloom_size)) != KV_OK)
            return st;
    }
    size_t n;
    const uint8_t *idx = kv_block_builder_finish(&w->index, &n);
    if (!idx)
        return fail(w, KV_NO_MEMORY, "out of memory writing %s", w->path);
    /* Uncompressed (the default), a large index (megabytes at 10M entries)
       goes to the file from the builder, not through a copy. */
    if ((st = w->opts.compression == KV_COMPRESSION_NONE ? write_raw_large(w, idx, n, &index_off, &index_size)
                                                         : write_block(w, idx, n, true, 0, &index_off, &index_size)) != KV_OK)
        return st;
    if (encode_meta(w, &w->scratch) != 0)
        return fail(w, KV_NO_MEMORY, "out of memory writing %s", w->path);
    if ((st = write_block(w, w->scratch.data, w->scratch.len, false, 0, &meta_off, &meta_size)) != KV_OK)
        return st;
    uint8_t f[KV_SST_FOOTER_LEN];
    kv_put_le64(f + 0, index_off);
    kv_put_le64(f + 8, index_size);
    kv_put_le64(f + 16, bloom_off);
    kv_put_le64(f + 24, bloom_size);
    kv_put_le64(f + 32, meta_off);
    kv_put_le64(f + 40, meta_size);
    kv_put_le32(f + 48, KV_SST_FORMAT_VERSION);
    kv_put_le32(f + 52, kv_checksum(f, 52));
    kv_put_le64(f + 56, KV_SST_MAGIC);
    if (kv_buf_append(&w->out, f, sizeof f) != 0)
        return fail(w, KV_NO_MEMORY, "out of memory writing %s", w->path);
    if ((st = flush_out(w)) != KV_OK)
        return st;
    char e[256] = "";
    if ((st = w->env->sync(w->file, e, sizeof e)) != KV_OK)
        return fail(w, st, "%s", e[0] ? e : "sync failed");
    kv_file *file = w->file;
    w->file = NULL;
    if ((st = w->env->close(file, e, sizeof e)) != KV_OK)
        return fail(w, st, "%s", e[0] ? e : "close failed");
    return KV_OK;
}

static void writer_free(kv_sst_writer *w) {
    if (w->file)
        w->env->close(w->file, NULL, 0);
    kv_buf_free(&w->out);
    kv_block_builder_free(&w->data);
    kv_block_builder_free(&w->index);
    kv_bloom_builder_free(&w->bloom);
    kv_buf_free(&w->last_bloom_key);
    kv_buf_free(&w->last_key);
    kv_buf_free(&w->smallest);
    kv_buf_free(&w->scratch);
    kv_buf_free(&w->units);
    free(w->path);
    free(w);
}

kv_status kv_sst_finish(kv_sst_writer *w, kv_sst_meta *meta, char *err, size_t errlen) {
    if (meta)
        memset(meta, 0, sizeof *meta);
    kv_status st = w->error != KV_OK ? w->error : finish_file(w);
    if (st == KV_OK && meta) {
        meta->file_size = w->flushed;
        meta->entries = w->entries;
        meta->min_ts = w->min_ts;
        meta->max_ts = w->max_ts;
        meta->max_seq = w->max_seq;
        meta->smallest = dup_bytes(&w->smallest);
        meta->largest = dup_bytes(&w->last_key);
        if (!meta->smallest || !meta->largest) {
            kv_sst_meta_clear(meta);
            st = fail(w, KV_NO_MEMORY, "out of memory writing %s", w->path);
        } else {
            meta->smallest_len = w->smallest.len;
            meta->largest_len = w->last_key.len;
        }
    }
    if (st != KV_OK)
        copy_err(err, errlen, w->errmsg);
    writer_free(w);
    return st;
}

void kv_sst_abandon(kv_sst_writer *w) {
    if (w)
        writer_free(w);
}

void kv_sst_meta_clear(kv_sst_meta *m) {
    if (!m)
        return;
    free(m->smallest);
    free(m->largest);
    memset(m, 0, sizeof *m);
}
