/**
 * @file vecstate.h
 * kv_vector_state_clean: clears the upper halves of the vector registers
 * (x86 `vzeroupper`) on CPUs with AVX, and does nothing elsewhere.
 *
 * Why: a caller's glibc memcpy, memcmp or memchr (their AVX-512 and EVEX
 * variants return without `vzeroupper`) leaves the upper state dirty, and
 * kvcore's code, built for the baseline x86-64 ISA, stalls at its first
 * SSE instruction after that (BENCHMARKS.md, kvfillseq). Each public call
 * clears it once on entry.
 */
#ifndef KV_VECSTATE_H
#define KV_VECSTATE_H

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx"))) static inline void kv_vzeroupper_avx(void) {
    __builtin_ia32_vzeroupper();
}
static inline void kv_vector_state_clean(void) {
    if (__builtin_cpu_supports("avx")) kv_vzeroupper_avx();
}
#else
static inline void kv_vector_state_clean(void) {}
#endif

#endif
