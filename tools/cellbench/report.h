/*
 * The result lines of cellbench, in db_bench's manner, one per workload per
 * engine (or per file phase per target), each followed by its ratio to the
 * others:
 *   fillseq      kvcore    123456 ops/s     8.10 us/op   x1.12 vs leveldb
 * A ratio is this figure divided by the other's: above 1 is faster for
 * rates, and more memory for peak-rss. Used by kvbench.c and fsbench.c.
 */
#ifndef CELLBENCH_REPORT_H
#define CELLBENCH_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct report_peer {
    const char *name;
    double value;        /* ops/s, or KiB for memory; <= 0: not measured */
} report_peer;

/* "WHAT WHO RATE ops/s US us/op [xR vs PEER]... [NOTE]". */
void report_rate(FILE *out, const char *what, const char *who, double ops, double seconds,
                 const report_peer *peers, size_t npeers, const char *note);
/* The same with @p detail (NULL: none) between "us/op" and the ratios. */
void report_rate_detail(FILE *out, const char *what, const char *who, double ops, double seconds,
                        const char *detail, const report_peer *peers, size_t npeers,
                        const char *note);
/* "WHAT WHO FAILED: MESSAGE". */
void report_failed(FILE *out, const char *what, const char *who, const char *message);
/* "peak-rss     WHO   123.4 MiB [xR vs PEER]...". */
void report_rss(FILE *out, const char *who, uint64_t kib, const report_peer *peers,
                size_t npeers);

#endif
