/**
 * @file copy.h
 * kv_copy: memcpy for the short byte strings of a put (rows, qualifiers,
 * values, log records), inline.
 *
 * Why not memcpy: on x86-64 CPUs with AVX-512, glibc's memcpy copies 64
 * bytes and more with 512-bit registers and leaves them dirty; the next
 * SSE instruction of code built for the baseline ISA (kvcore's) then
 * stalls. A put made eight such calls, and `perf` put a quarter of the
 * writer's time at the SSE instruction after each (BENCHMARKS.md,
 * kvfillseq). Copies of up to KV_COPY_INLINE_MAX bytes are done here with
 * 16-byte moves (overlapping at the ends, as memcpy's own short paths do);
 * longer ones still go to memcpy, where the call is a small part of the
 * work.
 */
#ifndef KV_COPY_H
#define KV_COPY_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define KV_COPY_INLINE_MAX 256

/* Copies 16 <= n <= 32 bytes as two 16-byte moves, the first and the
   last 16 bytes (they overlap when n < 32). */
static inline void kv_copy_16_32(uint8_t *d, const uint8_t *s, size_t n) {
    uint8_t a[16], b[16];
    __builtin_memcpy(a, s, 16);
    __builtin_memcpy(b, s + n - 16, 16);
    __builtin_memcpy(d, a, 16);
    __builtin_memcpy(d + n - 16, b, 16);
}

/* Copies n bytes from src to dst, which must not overlap (as memcpy). */
static inline void kv_copy(void *dst, const void *src, size_t n) {
    uint8_t *d = dst;
    const uint8_t *s = src;
    if (n > KV_COPY_INLINE_MAX) {
        memcpy(d, s, n);
    } else if (n > 32) {
        /* 32-byte steps, then the last 32 bytes (overlapping the steps) */
        for (size_t i = 0; i + 32 < n; i += 32) kv_copy_16_32(d + i, s + i, 32);
        kv_copy_16_32(d + n - 32, s + n - 32, 32);
    } else if (n >= 16) {
        kv_copy_16_32(d, s, n);
    } else if (n >= 8) {
        uint64_t a, b;
        __builtin_memcpy(&a, s, 8);
        __builtin_memcpy(&b, s + n - 8, 8);
        __builtin_memcpy(d, &a, 8);
        __builtin_memcpy(d + n - 8, &b, 8);
    } else if (n >= 4) {
        uint32_t a, b;
        __builtin_memcpy(&a, s, 4);
        __builtin_memcpy(&b, s + n - 4, 4);
        __builtin_memcpy(d, &a, 4);
        __builtin_memcpy(d + n - 4, &b, 4);
    } else if (n) {
        /* 1..3 bytes; no loop, which the compiler would turn back into a
           memcpy call */
        d[0] = s[0];
        d[n / 2] = s[n / 2];
        d[n - 1] = s[n - 1];
    }
}

#endif
