/**
 * @file coding.h
 * Byte encodings shared by the on-disk formats: fixed-width big- and
 * little-endian integers, varints, and the block/record checksum.
 * Pure functions; no allocation.
 */
#ifndef KV_CODING_H
#define KV_CODING_H

#include <stdint.h>
#include <stddef.h>

void kv_put_be32(uint8_t *p, uint32_t v);
void kv_put_be64(uint8_t *p, uint64_t v);
uint32_t kv_get_be32(const uint8_t *p);
uint64_t kv_get_be64(const uint8_t *p);
/* kv_get_be64 inline, one load and a byte swap: for hot loops that order
   keys by 8 bytes at a time (the numbers order as the bytes do). */
static inline uint64_t kv_load_be64(const uint8_t *p) {
    uint64_t v;
    __builtin_memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    v = __builtin_bswap64(v);
#elif !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_BIG_ENDIAN__
#error "coding.h: unknown byte order"
#endif
    return v;
}
/* Little-endian integers, inline (one store or load, a byte swap only on a
   big-endian host): the log record's coder calls them for every field. */
static inline void kv_put_le32(uint8_t *p, uint32_t v) {
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
    v = __builtin_bswap32(v);
#endif
    __builtin_memcpy(p, &v, 4);
}
static inline void kv_put_le64(uint8_t *p, uint64_t v) {
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    __builtin_memcpy(p, &v, 8);
}
static inline uint32_t kv_get_le32(const uint8_t *p) {
    uint32_t v;
    __builtin_memcpy(&v, p, 4);
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
    v = __builtin_bswap32(v);
#endif
    return v;
}
static inline uint64_t kv_get_le64(const uint8_t *p) {
    uint64_t v;
    __builtin_memcpy(&v, p, 8);
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

/* Writes a LEB128 varint; returns bytes written (<= 5 / <= 10). */
size_t kv_put_varint32(uint8_t *p, uint32_t v);
size_t kv_put_varint64(uint8_t *p, uint64_t v);
/* Reads a varint from [p, end); returns the byte after it, or NULL if it is
   truncated or too long. */
const uint8_t *kv_get_varint32(const uint8_t *p, const uint8_t *end, uint32_t *v);
const uint8_t *kv_get_varint64(const uint8_t *p, const uint8_t *end, uint64_t *v);
size_t kv_varint_length(uint64_t v);

/* The checksum of every log record and file block: the low 32 bits of
   XXH3-64 of the bytes. */
uint32_t kv_checksum(const void *data, size_t n);
/* Whether @p stored is kv_checksum(data, n): the check of the sorted-file
   and log readers. Fuzz builds (meson -Dfuzzing=true defines KV_FUZZING)
   accept every checksum here so that fuzzers reach the structure behind
   it; this macro is the one place that bypass lives. */
#ifdef KV_FUZZING
#define KV_CHECKSUM_OK(stored, data, n) ((void)(data), (void)(n), (void)(stored), 1)
#else
#define KV_CHECKSUM_OK(stored, data, n) (kv_checksum((data), (n)) == (stored))
#endif

/* A growable byte buffer (used by writers). */
typedef struct kv_buf { uint8_t *data; size_t len, cap; } kv_buf;
/* Each returns 0, or -1 when memory runs out (the buffer is unchanged). */
int kv_buf_reserve(kv_buf *b, size_t extra);
int kv_buf_append(kv_buf *b, const void *p, size_t n);
int kv_buf_append_varint32(kv_buf *b, uint32_t v);
int kv_buf_append_varint64(kv_buf *b, uint64_t v);
int kv_buf_append_be64(kv_buf *b, uint64_t v);
int kv_buf_append_be32(kv_buf *b, uint32_t v);
void kv_buf_free(kv_buf *b);

#endif
