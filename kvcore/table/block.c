/*
 * block.c: builds and reads the blocks of sorted files (block.h; byte
 * layout in doc/sorted_file_format.md). Three entry encodings:
 *   NONE   every entry holds its whole key; every entry is a restart point.
 *   PREFIX an entry holds the length of the prefix it shares with the
 *          previous key and the rest; restart points every 16 entries.
 *   DIFF   as PREFIX for the key minus its 17-byte suffix (ts', type',
 *          seq', keys.h); the suffix fields are coded against the previous
 *          entry's: "same", a zigzag varint delta, or the raw bytes,
 *          whichever is shortest.
 * At a restart point the previous key is empty and the previous suffix is
 * all zero bytes, so decoding can start at any restart.
 * Called by sst_write.c and sst_read.c; calls coding.c.
 */
#include "block.h"
#include "util/copy.h"

#include <stdlib.h>
#include <string.h>

/* on-disk format: do not change. DIFF flag bits of an entry. */
#define DIFF_TS_MASK 0x03       /* bits 0-1: ts' mode */
#define DIFF_TYPE_STORED 0x04   /* bit 2: type' byte present (else same) */
#define DIFF_SEQ_SHIFT 3        /* bits 3-4: seq' mode */
#define DIFF_NO_SUFFIX 0x80     /* bit 7: key shorter than 17 bytes, no split */
#define DIFF_UNUSED_BITS 0x60   /* bits 5-6: zero */
#define DIFF_FULL 0             /* mode: 8 raw bytes */
#define DIFF_SAME 1             /* mode: equal to the previous */
#define DIFF_DELTA 2            /* mode: zigzag varint of (this - previous) */
#define SUFFIX_LEN 17
/* end of on-disk format constants */

static size_t common_prefix(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen) {
    size_t n = alen < blen ? alen : blen, i = 0;
    while (i < n && a[i] == b[i])
        i++;
    return i;
}

/* Inlined forms of the coding.c readers for the entry-decoding loop: most
   varints in a block are one byte. */
static inline const uint8_t *get_varint32(const uint8_t *p, const uint8_t *end, uint32_t *v) {
    if (p < end && *p < 0x80) {
        *v = *p;
        return p + 1;
    }
    return kv_get_varint32(p, end, v);
}

static inline uint32_t get_le32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t zigzag(uint64_t d) {
    return (d << 1) ^ (uint64_t)((int64_t)d >> 63);
}

static uint64_t unzigzag(uint64_t z) {
    return (z >> 1) ^ (0 - (z & 1));
}

/* ---------------------------------------------------------------- builder */

void kv_block_builder_init(kv_block_builder *b, kv_encoding encoding, uint32_t restart_interval) {
    memset(b, 0, sizeof *b);
    b->encoding = encoding;
    if (restart_interval == 0)
        restart_interval = encoding == KV_ENCODING_NONE ? 1 : KV_BLOCK_RESTART_INTERVAL;
    b->interval = restart_interval;
}

/* Picks the mode of one 8-byte suffix field and appends its coding. */
static uint8_t diff_field(uint8_t *out, size_t *n, const uint8_t *cur, const uint8_t *prev) {
    uint64_t d = kv_get_be64(cur) - kv_get_be64(prev);
    if (d == 0)
        return DIFF_SAME;
    uint64_t z = zigzag(d);
    if (kv_varint_length(z) < 8) {
        *n += kv_put_varint64(out + *n, z);
        return DIFF_DELTA;
    }
    memcpy(out + *n, cur, 8);
    *n += 8;
    return DIFF_FULL;
}

int kv_block_builder_add(kv_block_builder *b, const uint8_t *key, size_t klen,
                         const uint8_t *value, size_t vlen) {
    bool restart = b->count == 0 || b->run >= b->interval;
    if (restart) {
        if (kv_buf_reserve(&b->restarts, 4) != 0)
            return -1;
        kv_put_le32(b->restarts.data + b->restarts.len, (uint32_t)b->buf.len);
        b->run = 0;
        memset(b->suffix, 0, sizeof b->suffix);
    }
    const uint8_t *prev = restart ? NULL : b->last_key.data;
    size_t prev_len = restart ? 0 : b->last_key.len;
    uint8_t hdr[3 * 5 + 1 + 8 + 1 + 8 + 10];
    size_t h = 0;
    size_t shared = 0, head = klen;
    uint8_t sfx[26];
    size_t sn = 0;
    switch (b->encoding) {
    case KV_ENCODING_PREFIX:
        shared = common_prefix(key, klen, prev, prev_len);
        h += kv_put_varint32(hdr + h, (uint32_t)shared);
        h += kv_put_varint32(hdr + h, (uint32_t)(klen - shared));
        h += kv_put_varint32(hdr + h, (uint32_t)vlen);
        break;
    case KV_ENCODING_DIFF: {
        uint8_t flags;
        if (klen >= SUFFIX_LEN) {
            head = klen - SUFFIX_LEN;
            const uint8_t *s = key + head;
            flags = diff_field(sfx, &sn, s, b->suffix);
            if (s[8] != b->suffix[8]) {
                flags |= DIFF_TYPE_STORED;
                sfx[sn++] = s[8];
            }
            flags |= (uint8_t)(diff_field(sfx, &sn, s + 9, b->suffix + 9) << DIFF_SEQ_SHIFT);
        } else {
            flags = DIFF_NO_SUFFIX;
        }
        shared = common_prefix(key, head, prev, prev_len);
        h += kv_put_varint32(hdr + h, (uint32_t)shared);
        h += kv_put_varint32(hdr + h, (uint32_t)(head - shared));
        h += kv_put_varint32(hdr + h, (uint32_t)vlen);
        hdr[h++] = flags;
        break;
    }
    default:
        h += kv_put_varint32(hdr + h, (uint32_t)klen);
        h += kv_put_varint32(hdr + h, (uint32_t)vlen);
        break;
    }
    size_t need = h + (head - shared) + sn + vlen;
    if (kv_buf_reserve(&b->buf, need) != 0)
        return -1;
    if (kv_buf_reserve(&b->last_key, klen) != 0)
        return -1;
    if (restart)
        b->restarts.len += 4;
    uint8_t *p = b->buf.data + b->buf.len;
    memcpy(p, hdr, h);
    p += h;
    if (head > shared)
        kv_copy(p, key + shared, head - shared);
    p += head - shared;
    if (sn)
        memcpy(p, sfx, sn);
    p += sn;
    if (vlen)
        kv_copy(p, value, vlen);
    b->buf.len += need;
    if (b->encoding == KV_ENCODING_DIFF && klen >= SUFFIX_LEN)
        memcpy(b->suffix, key + klen - SUFFIX_LEN, SUFFIX_LEN);
    if (klen)
        kv_copy(b->last_key.data, key, klen);
    b->last_key.len = klen;
    b->run++;
    b->count++;
    return 0;
}

size_t kv_block_builder_size(const kv_block_builder *b) {
    return b->buf.len + b->restarts.len + KV_BLOCK_TRAILER_FIXED;
}

size_t kv_block_builder_count(const kv_block_builder *b) {
    return b->count;
}

const uint8_t *kv_block_builder_last_key(const kv_block_builder *b, size_t *len) {
    *len = b->last_key.len;
    return b->last_key.data;
}

const uint8_t *kv_block_builder_finish(kv_block_builder *b, size_t *len) {
    if (!b->finished) {
        if (kv_buf_reserve(&b->buf, b->restarts.len + KV_BLOCK_TRAILER_FIXED) != 0)
            return NULL;
        if (b->restarts.len)
            memcpy(b->buf.data + b->buf.len, b->restarts.data, b->restarts.len);
        b->buf.len += b->restarts.len;
        kv_put_le32(b->buf.data + b->buf.len, (uint32_t)(b->restarts.len / 4));
        b->buf.data[b->buf.len + 4] = (uint8_t)b->encoding;
        b->buf.len += KV_BLOCK_TRAILER_FIXED;
        b->finished = true;
    }
    *len = b->buf.len;
    return b->buf.data;
}

void kv_block_builder_reset(kv_block_builder *b) {
    b->buf.len = 0;
    b->restarts.len = 0;
    b->last_key.len = 0;
    b->run = 0;
    b->count = 0;
    b->finished = false;
    memset(b->suffix, 0, sizeof b->suffix);
}

void kv_block_builder_free(kv_block_builder *b) {
    kv_buf_free(&b->buf);
    kv_buf_free(&b->restarts);
    kv_buf_free(&b->last_key);
    memset(b, 0, sizeof *b);
}

/* ----------------------------------------------------------------- reader */

kv_status kv_block_parse(kv_block *b, const uint8_t *data, size_t len) {
    memset(b, 0, sizeof *b);
    if (len < KV_BLOCK_TRAILER_FIXED || len > UINT32_MAX)
        return KV_CORRUPT;
    uint8_t enc = data[len - 1];
    if (enc > KV_ENCODING_DIFF)
        return KV_CORRUPT;
    uint32_t n = kv_get_le32(data + len - KV_BLOCK_TRAILER_FIXED);
    uint64_t tail = (uint64_t)n * 4 + KV_BLOCK_TRAILER_FIXED;
    if (tail > len)
        return KV_CORRUPT;
    uint32_t end = (uint32_t)(len - tail);
    if ((n == 0) != (end == 0))
        return KV_CORRUPT;
    if (n > 0 && kv_get_le32(data + end) != 0)
        return KV_CORRUPT;
    b->data = data;
    b->entries_end = end;
    b->restarts = data + end;
    b->nrestarts = n;
    b->encoding = (kv_encoding)enc;
    return KV_OK;
}

void kv_block_iter_set(kv_block_iter *it, const kv_block *b) {
    it->b = *b;
    it->valid = false;
    it->status = KV_OK;
    it->key = NULL;
    it->key_len = 0;
    it->kbuf.len = 0;
}

void kv_block_iter_free(kv_block_iter *it) {
    kv_buf_free(&it->kbuf);
    memset(it, 0, sizeof *it);
}

static void iter_corrupt(kv_block_iter *it) {
    it->valid = false;
    it->status = KV_CORRUPT;
}

static uint32_t restart_offset(const kv_block *b, uint32_t i) {
    return get_le32(b->restarts + 4 * (size_t)i);
}

/* Reads one 8-byte suffix field coded in mode against prev into out. */
static const uint8_t *diff_decode_field(const uint8_t *p, const uint8_t *end, unsigned mode,
                                        const uint8_t *prev, uint8_t *out) {
    if (mode == DIFF_SAME) {
        memcpy(out, prev, 8);
        return p;
    }
    if (mode == DIFF_FULL) {
        if (end - p < 8)
            return NULL;
        memcpy(out, p, 8);
        return p + 8;
    }
    if (mode != DIFF_DELTA)
        return NULL;
    uint64_t z;
    p = kv_get_varint64(p, end, &z);
    if (!p)
        return NULL;
    kv_put_be64(out, kv_get_be64(prev) + unzigzag(z));
    return p;
}

/* Decodes the entry at off; reset: off is a restart point. */
static bool decode_at(kv_block_iter *it, uint32_t off, bool reset) {
    const uint8_t *base = it->b.data;
    const uint8_t *p = base + off;
    const uint8_t *end = base + it->b.entries_end;
    uint32_t shared = 0, nonshared, vlen;
    if (it->b.encoding == KV_ENCODING_NONE) {
        if (!(p = get_varint32(p, end, &nonshared)) || !(p = get_varint32(p, end, &vlen)))
            goto bad;
        if ((size_t)(end - p) < (uint64_t)nonshared + vlen)
            goto bad;
        it->key = p;
        it->key_len = nonshared;
        p += nonshared;
    } else {
        if (reset) {
            it->kbuf.len = 0;
            memset(it->suffix, 0, sizeof it->suffix);
        }
        if (!(p = get_varint32(p, end, &shared)) || !(p = get_varint32(p, end, &nonshared)) ||
            !(p = get_varint32(p, end, &vlen)))
            goto bad;
        uint8_t flags = 0;
        if (it->b.encoding == KV_ENCODING_DIFF) {
            if (p == end)
                goto bad;
            flags = *p++;
        }
        if (shared > it->kbuf.len || (size_t)(end - p) < nonshared)
            goto bad;
        if (kv_buf_reserve(&it->kbuf, (size_t)nonshared + SUFFIX_LEN) != 0) {
            it->valid = false;
            it->status = KV_NO_MEMORY;
            return false;
        }
        it->kbuf.len = shared;
        kv_copy(it->kbuf.data + shared, p, nonshared);
        it->kbuf.len += nonshared;
        p += nonshared;
        if (it->b.encoding == KV_ENCODING_DIFF && !(flags & DIFF_NO_SUFFIX)) {
            if (flags & DIFF_UNUSED_BITS)
                goto bad;
            uint8_t *s = it->suffix;
            uint8_t nsfx[SUFFIX_LEN];
            if (!(p = diff_decode_field(p, end, flags & DIFF_TS_MASK, s, nsfx)))
                goto bad;
            if (flags & DIFF_TYPE_STORED) {
                if (p == end)
                    goto bad;
                nsfx[8] = *p++;
            } else {
                nsfx[8] = s[8];
            }
            if (!(p = diff_decode_field(p, end, (flags >> DIFF_SEQ_SHIFT) & 3, s + 9, nsfx + 9)))
                goto bad;
            memcpy(s, nsfx, SUFFIX_LEN);
            memcpy(it->kbuf.data + it->kbuf.len, nsfx, SUFFIX_LEN);
            it->kbuf.len += SUFFIX_LEN;
        } else if (flags & ~DIFF_NO_SUFFIX) {
            goto bad;
        }
        if ((size_t)(end - p) < vlen)
            goto bad;
        it->key = it->kbuf.data;
        it->key_len = it->kbuf.len;
    }
    it->val = p;
    it->val_len = vlen;
    it->cur = off;
    it->next = (uint32_t)(p + vlen - base);
    it->valid = true;
    return true;
bad:
    iter_corrupt(it);
    return false;
}

static bool seek_restart(kv_block_iter *it, uint32_t i) {
    uint32_t off = restart_offset(&it->b, i);
    if (off >= it->b.entries_end) {
        iter_corrupt(it);
        return false;
    }
    it->restart = i;
    return decode_at(it, off, true);
}

void kv_block_iter_next(kv_block_iter *it) {
    if (!it->valid)
        return;
    if (it->next >= it->b.entries_end) {
        it->valid = false;
        return;
    }
    bool reset = false;
    if (it->restart + 1 < it->b.nrestarts && restart_offset(&it->b, it->restart + 1) == it->next) {
        it->restart++;
        reset = true;
    }
    decode_at(it, it->next, reset);
}

void kv_block_iter_seek_first(kv_block_iter *it) {
    it->valid = false;
    if (it->b.nrestarts == 0 || it->status != KV_OK)
        return;
    seek_restart(it, 0);
}

void kv_block_iter_seek_last(kv_block_iter *it) {
    it->valid = false;
    if (it->b.nrestarts == 0 || it->status != KV_OK)
        return;
    if (!seek_restart(it, it->b.nrestarts - 1))
        return;
    while (it->valid && it->next < it->b.entries_end)
        kv_block_iter_next(it);
}

static int cmp_cur(const kv_block_iter *it, const uint8_t *t, size_t tlen) {
    return kv_bytes_compare(it->key, it->key_len, t, tlen);
}

/* Index of the last restart whose key is < target (0 if none); false if
   the block is empty or corrupt. */
static bool find_restart(kv_block_iter *it, const uint8_t *target, size_t len, uint32_t *out) {
    if (it->b.nrestarts == 0 || it->status != KV_OK)
        return false;
    uint32_t lo = 0, hi = it->b.nrestarts - 1;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo + 1) / 2;
        if (!seek_restart(it, mid))
            return false;
        if (cmp_cur(it, target, len) < 0)
            lo = mid;
        else
            hi = mid - 1;
    }
    *out = lo;
    return true;
}

void kv_block_iter_seek(kv_block_iter *it, const uint8_t *target, size_t len) {
    uint32_t r;
    it->valid = false;
    if (!find_restart(it, target, len, &r))
        return;
    if (!seek_restart(it, r))
        return;
    while (it->valid && cmp_cur(it, target, len) < 0)
        kv_block_iter_next(it);
}

void kv_block_iter_seek_before(kv_block_iter *it, const uint8_t *target, size_t len) {
    uint32_t r;
    it->valid = false;
    if (!find_restart(it, target, len, &r))
        return;
    if (!seek_restart(it, r))
        return;
    if (cmp_cur(it, target, len) >= 0) {
        it->valid = false;          /* r == 0: nothing in the block is < target */
        return;
    }
    uint32_t cand = it->cur, cand_restart = it->restart;
    for (;;) {
        kv_block_iter_next(it);
        if (!it->valid || cmp_cur(it, target, len) >= 0)
            break;
        cand = it->cur;
        cand_restart = it->restart;
    }
    if (it->status != KV_OK)
        return;
    /* Prefix coding only decodes forwards: replay the candidate's run. */
    if (!seek_restart(it, cand_restart))
        return;
    while (it->valid && it->cur != cand)
        kv_block_iter_next(it);
}
