/**
 * @file coding.c
 * Byte encodings for the on-disk formats (fixed-width integers, LEB128
 * varints), the record/block checksum and a growable byte buffer. Called by
 * the log, sorted-file, manifest and key modules; calls only libxxhash.
 */
#include "coding.h"
#include "copy.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>
#ifdef KV_HAVE_XXH_DISPATCH
/* XXH3_64bits becomes libxxhash's XXH3_64bits_dispatch: the widest vector
   unit the CPU has (meson.build), the same values */
#include <xxh_x86dispatch.h>
#endif

void kv_put_be32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

void kv_put_be64(uint8_t *p, uint64_t v) {
    kv_put_be32(p, (uint32_t)(v >> 32));
    kv_put_be32(p + 4, (uint32_t)v);
}

uint32_t kv_get_be32(const uint8_t *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

uint64_t kv_get_be64(const uint8_t *p) {
    return ((uint64_t)kv_get_be32(p) << 32) | kv_get_be32(p + 4);
}

size_t kv_put_varint64(uint8_t *p, uint64_t v) {
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

size_t kv_put_varint32(uint8_t *p, uint32_t v) {
    return kv_put_varint64(p, v);
}

const uint8_t *kv_get_varint64(const uint8_t *p, const uint8_t *end, uint64_t *v) {
    uint64_t result = 0;
    for (unsigned shift = 0; shift <= 63 && p < end; shift += 7) {
        uint64_t byte = *p++;
        /* The tenth byte may only carry the top bit of a 64-bit value. */
        if (shift == 63 && byte > 1)
            return NULL;
        result |= (byte & 0x7f) << shift;
        if (!(byte & 0x80)) {
            *v = result;
            return p;
        }
    }
    return NULL;
}

const uint8_t *kv_get_varint32(const uint8_t *p, const uint8_t *end, uint32_t *v) {
    uint32_t result = 0;
    for (unsigned shift = 0; shift <= 28 && p < end; shift += 7) {
        uint32_t byte = *p++;
        /* The fifth byte may only carry the top four bits. */
        if (shift == 28 && byte > 0x0f)
            return NULL;
        result |= (byte & 0x7f) << shift;
        if (!(byte & 0x80)) {
            *v = result;
            return p;
        }
    }
    return NULL;
}

size_t kv_varint_length(uint64_t v) {
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

uint32_t kv_checksum(const void *data, size_t n) {
    return (uint32_t)XXH3_64bits(data, n);
}

int kv_buf_reserve(kv_buf *b, size_t extra) {
    if (extra <= b->cap - b->len)
        return 0;
    if (extra > SIZE_MAX - b->len)
        return -1;
    size_t need = b->len + extra;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    uint8_t *d = realloc(b->data, cap);
    if (!d)
        return -1;
    b->data = d;
    b->cap = cap;
    return 0;
}

int kv_buf_append(kv_buf *b, const void *p, size_t n) {
    if (n == 0)
        return 0;
    if (kv_buf_reserve(b, n) != 0)
        return -1;
    kv_copy(b->data + b->len, p, n);
    b->len += n;
    return 0;
}

int kv_buf_append_varint32(kv_buf *b, uint32_t v) {
    uint8_t tmp[5];
    return kv_buf_append(b, tmp, kv_put_varint32(tmp, v));
}

int kv_buf_append_varint64(kv_buf *b, uint64_t v) {
    uint8_t tmp[10];
    return kv_buf_append(b, tmp, kv_put_varint64(tmp, v));
}

int kv_buf_append_be64(kv_buf *b, uint64_t v) {
    uint8_t tmp[8];
    kv_put_be64(tmp, v);
    return kv_buf_append(b, tmp, 8);
}

int kv_buf_append_be32(kv_buf *b, uint32_t v) {
    uint8_t tmp[4];
    kv_put_be32(tmp, v);
    return kv_buf_append(b, tmp, 4);
}

void kv_buf_free(kv_buf *b) {
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}
