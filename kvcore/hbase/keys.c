/**
 * @file keys.c
 * Encoding and decoding of internal keys (layout in keys.h). The encoding is
 * chosen so that memcmp order is cell order, which lets memstores, sorted
 * files, bloom filters and the merge iterator all compare with memcmp.
 */
#include "keys.h"

#include <string.h>

/* on-disk format: do not change */
#define ESC_BYTE 0x00
#define ESC_ZERO 0xFF   /* 0x00 0xFF: a zero byte inside the string */
#define ESC_END 0x01    /* 0x00 0x01: end of the string */
#define TS_FLIP 0x8000000000000000ULL

static size_t escaped_len(const uint8_t *p, size_t n) {
    size_t zeros = 0;
    for (const uint8_t *z = p, *end = p + n; n && (z = memchr(z, 0, (size_t)(end - z))) != NULL; z++)
        zeros++;
    return n + zeros + 2;
}

/* put_escaped for a short string (a row or qualifier of up to 32 bytes,
   2 * n + 2 bytes of room at out): one pass, 8 bytes at a time while a
   word holds no zero byte, no memchr or memcpy calls. */
static uint8_t *put_escaped_short(uint8_t *out, const uint8_t *p, size_t n) {
    size_t i = 0;
    for (uint64_t w; i + 8 <= n; i += 8, out += 8) {
        memcpy(&w, p + i, 8);
        if ((w - 0x0101010101010101ull) & ~w & 0x8080808080808080ull) break;
        memcpy(out, &w, 8);
    }
    for (; i < n; i++) {
        *out++ = p[i];
        if (p[i] == ESC_BYTE) *out++ = ESC_ZERO;
    }
    *out++ = ESC_BYTE;
    *out++ = ESC_END;
    return out;
}

/* Writes esc(p[0..n)) at out (escaped_len bytes; 2 * n + 2 for n <= 32);
   returns the end. Runs without a zero byte are copied whole. */
static uint8_t *put_escaped(uint8_t *out, const uint8_t *p, size_t n) {
    if (n <= 32) return put_escaped_short(out, p, n);
    const uint8_t *end = p + n;
    while (n) {
        const uint8_t *z = memchr(p, 0, (size_t)(end - p));
        size_t run = (size_t)((z ? z : end) - p);
        if (run) memcpy(out, p, run);
        out += run;
        if (!z) break;
        *out++ = ESC_BYTE;
        *out++ = ESC_ZERO;
        p = z + 1;
    }
    *out++ = ESC_BYTE;
    *out++ = ESC_END;
    return out;
}

static int append_escaped(kv_buf *b, const uint8_t *p, size_t n) {
    if (n <= 32 && b->cap - b->len >= 2 * n + 2) {
        /* short (a get's row or qualifier) with room for the longest
           escape */
        b->len = (size_t)(put_escaped_short(b->data + b->len, p, n) - b->data);
        return 0;
    }
    if (kv_buf_reserve(b, escaped_len(p, n)) != 0) return -1;
    b->len = (size_t)(put_escaped(b->data + b->len, p, n) - b->data);
    return 0;
}

/* Length of the escaped string at p (including its terminator), or 0. */
static size_t scan_escaped(const uint8_t *p, size_t n, size_t *raw_len, bool *has_zero) {
    size_t raw = 0;
    *has_zero = false;
    const uint8_t *start = p, *end = p + n;
    while (n) {
        const uint8_t *e = memchr(p, ESC_BYTE, (size_t)(end - p));
        if (!e || e + 1 >= end) return 0;
        raw += (size_t)(e - p);
        if (e[1] == ESC_END) {
            *raw_len = raw;
            return (size_t)(e + 2 - start);
        }
        if (e[1] != ESC_ZERO) return 0;
        *has_zero = true;
        raw++;
        p = e + 2;
    }
    return 0;
}

static void unescape(uint8_t *out, const uint8_t *p, size_t enc_len) {
    for (size_t i = 0; i + 2 < enc_len; i++) {
        *out++ = p[i];
        if (p[i] == ESC_BYTE) i++;
    }
}

size_t kv_key_max_len(size_t row_len, size_t qualifier_len) {
    return 2 * row_len + 2 + 1 + 2 * qualifier_len + 2 + KV_KEY_SUFFIX_LEN;
}

int kv_key_encode_row(kv_buf *b, const void *row, size_t row_len) {
    return append_escaped(b, row, row_len);
}

int kv_key_encode_column(kv_buf *b, const void *row, size_t row_len, uint8_t kind,
                         const void *qualifier, size_t qualifier_len) {
    size_t mark = b->len;
    if (append_escaped(b, row, row_len) != 0 || kv_buf_append(b, &kind, 1) != 0 ||
        append_escaped(b, qualifier, qualifier_len) != 0) {
        b->len = mark;
        return -1;
    }
    return 0;
}

int kv_key_append_ts(kv_buf *b, int64_t ts) {
    uint8_t p[8];
    kv_put_be64(p, ~((uint64_t)ts ^ TS_FLIP));
    return kv_buf_append(b, p, sizeof p);
}

/* kv_put_be64 without a call (two a key written). */
static inline void put_be64(uint8_t *p, uint64_t v) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    memcpy(p, &v, 8);
}

int kv_key_encode(kv_buf *b, const void *row, size_t row_len, uint8_t kind, const void *qualifier,
                  size_t qualifier_len, int64_t ts, kv_cell_type type, uint64_t seq) {
    /* room for the longest encoding: one reserve, then written in place */
    if (row_len > SIZE_MAX / 4 || qualifier_len > SIZE_MAX / 4 ||
        kv_buf_reserve(b, kv_key_max_len(row_len, qualifier_len)) != 0)
        return -1;
    uint8_t *p = put_escaped(b->data + b->len, row, row_len);
    *p++ = kind;
    p = put_escaped(p, qualifier, qualifier_len);
    put_be64(p, ~((uint64_t)ts ^ TS_FLIP));
    p[8] = (uint8_t)(255 - (int)type);
    put_be64(p + 9, ~seq);
    b->len = (size_t)(p + KV_KEY_SUFFIX_LEN - b->data);
    return 0;
}

size_t kv_key_row_prefix_len(const uint8_t *key, size_t len) {
    size_t raw;
    bool z;
    return scan_escaped(key, len, &raw, &z);
}

size_t kv_key_column_prefix_len(const uint8_t *key, size_t len) {
    size_t raw;
    bool z;
    size_t r = scan_escaped(key, len, &raw, &z);
    if (r == 0 || r >= len) return 0;
    size_t q = scan_escaped(key + r + 1, len - r - 1, &raw, &z);
    return q ? r + 1 + q : 0;
}

int64_t kv_key_timestamp(const uint8_t *key, size_t len) {
    return (int64_t)(~kv_load_be64(key + len - KV_KEY_SUFFIX_LEN) ^ TS_FLIP);
}

kv_cell_type kv_key_type(const uint8_t *key, size_t len) {
    return (kv_cell_type)(255 - key[len - KV_KEY_SUFFIX_LEN + 8]);
}

uint64_t kv_key_sequence(const uint8_t *key, size_t len) {
    return ~kv_load_be64(key + len - 8);
}

static bool valid_type(int t) {
    return t == KV_TYPE_PUT || t == KV_TYPE_DELETE || t == KV_TYPE_DELETE_COLUMN ||
           t == KV_TYPE_DELETE_FAMILY || t == KV_TYPE_DELETE_FAMILY_VERSION;
}

/* kv_key_decode of a key whose row and qualifier hold no zero byte (the
   common case), found with memchr; false for any other key. */
static bool decode_plain(kv_key_parts *out, const uint8_t *key, size_t len) {
    if (len < 2 + 1 + 2 + KV_KEY_SUFFIX_LEN) return false;
    size_t qend = len - KV_KEY_SUFFIX_LEN;   /* just past esc(qualifier) */
    const uint8_t *z = memchr(key, ESC_BYTE, qend);
    if (!z || (size_t)(z - key) + 1 >= qend || z[1] != ESC_END) return false;
    size_t r = (size_t)(z - key) + 2;        /* esc(row) */
    if (r + 1 + 2 > qend || key[qend - 2] != ESC_BYTE || key[qend - 1] != ESC_END) return false;
    size_t qlen = qend - 2 - (r + 1);
    if (qlen && memchr(key + r + 1, ESC_BYTE, qlen)) return false;
    uint8_t kind = key[r];
    int type = 255 - key[qend + 8];
    if ((kind != KV_KIND_FAMILY_MARKER && kind != KV_KIND_COLUMN) || !valid_type(type)) return false;
    out->kind = kind;
    out->row_prefix_len = r;
    out->column_prefix_len = qend;
    out->ts = kv_key_timestamp(key, len);
    out->type = (kv_cell_type)type;
    out->seq = kv_key_sequence(key, len);
    out->row = key;
    out->row_len = r - 2;
    out->qualifier = key + r + 1;
    out->qualifier_len = qlen;
    return true;
}

kv_status kv_key_decode(kv_key_parts *out, const uint8_t *key, size_t len, kv_buf *scratch) {
    if (decode_plain(out, key, len)) return KV_OK;
    size_t row_raw, q_raw;
    bool row_zero, q_zero;
    size_t r = scan_escaped(key, len, &row_raw, &row_zero);
    if (r == 0 || r + 1 > len) return KV_CORRUPT;
    uint8_t kind = key[r];
    if (kind != KV_KIND_FAMILY_MARKER && kind != KV_KIND_COLUMN) return KV_CORRUPT;
    size_t q = scan_escaped(key + r + 1, len - r - 1, &q_raw, &q_zero);
    if (q == 0 || r + 1 + q + KV_KEY_SUFFIX_LEN != len) return KV_CORRUPT;
    int type = 255 - key[len - KV_KEY_SUFFIX_LEN + 8];
    if (!valid_type(type)) return KV_CORRUPT;
    out->kind = kind;
    out->row_prefix_len = r;
    out->column_prefix_len = r + 1 + q;
    out->ts = kv_key_timestamp(key, len);
    out->type = (kv_cell_type)type;
    out->seq = kv_key_sequence(key, len);
    out->row_len = row_raw;
    out->qualifier_len = q_raw;
    if (row_zero || q_zero) {
        scratch->len = 0;
        if (kv_buf_reserve(scratch, row_raw + q_raw + 1) != 0) return KV_NO_MEMORY;
        unescape(scratch->data, key, r);
        unescape(scratch->data + row_raw, key + r + 1, q);
        out->row = scratch->data;
        out->qualifier = scratch->data + row_raw;
    } else {
        out->row = key;
        out->qualifier = key + r + 1;
    }
    return KV_OK;
}

int kv_key_compare(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen) {
    size_t n = alen < blen ? alen : blen;
    int c = n ? memcmp(a, b, n) : 0;
    if (c) return c;
    return alen < blen ? -1 : alen > blen;
}
