/*
 * Small helpers shared by every part of cellbench: a monotonic clock, a
 * seeded random generator (so every engine sees exactly the same keys), the
 * key format, byte-size parsing and printing, directory removal that never
 * crosses into a mount, and the peak resident memory of this process.
 * Implemented in util.c; used by all the other cellbench files.
 */
#ifndef CELLBENCH_UTIL_H
#define CELLBENCH_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* snprintf that returns 0, or -1 when the text was cut to fit (callers
 * keep their paths short enough; see the checks in kvbench.c, fsbench.c). */
int bench_fmt(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Seconds on the monotonic clock. */
double bench_now(void);

/* A splitmix64 generator; the same seed gives the same sequence. */
typedef struct bench_rng {
    uint64_t state;
} bench_rng;

void bench_rng_seed(bench_rng *rng, uint64_t seed);
uint64_t bench_rng_next(bench_rng *rng);
/* A number in [0, n); n > 0. */
uint64_t bench_rng_uniform(bench_rng *rng, uint64_t n);

/* Writes @p n as a decimal number zero-padded to exactly @p len bytes
 * (db_bench's "%016d" for 16-byte keys), so that numeric order is byte
 * order. Digits that do not fit are cut from the left; callers keep len
 * >= 8 and n below 10^8 or so. No NUL is written. */
void bench_key(char *buf, size_t len, uint64_t n);

/* Parses "1000", "64K", "64M", "1G" (binary multiples, optional "iB" or
 * "B"). Returns 0, or -1 on malformed text or overflow. */
int bench_parse_size(uint64_t *out, const char *text);
/* Formats bytes as "64 MiB", "512 KiB" or "100 B" into buf. */
void bench_format_size(char *buf, size_t len, uint64_t bytes);

/* Removes @p path and everything below it without following symlinks or
 * entering other mounted file systems. A missing path is success. Returns
 * 0, or -1 with errno set. */
int bench_rmtree(const char *path);
/* The work directory of a run: @p db_dir (created if missing, made
 * absolute) or, when NULL, a new "<prefix>.XXXXXX" in $TMPDIR or /tmp.
 * Paths longer than PATH_MAX - 512 are refused so that every path built
 * under it fits. Returns 0, or -1 after printing the reason. */
int bench_workdir(char *base, size_t len, const char *db_dir, const char *prefix);

/* mkdir -p; returns 0 or -1 with errno set. */
int bench_mkdirs(const char *path);

/* Peak resident set size of this process in KiB (VmHWM of
 * /proc/self/status), or 0 when it cannot be read. */
uint64_t bench_peak_rss_kib(void);
/* Bytes of the regular files under @p path (apparent sizes); 0 if none. */
uint64_t bench_dir_bytes(const char *path);

/* Sleeps @p seconds; returns false when a signal arrived meanwhile (the
 * caller's blocked termination signals are let through while sleeping). */
bool bench_sleep(double seconds);

#endif
