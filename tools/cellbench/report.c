/*
 * report.h: formatting of result lines and their ratios. Called by
 * kvbench.c and fsbench.c; writes to the stream it is given.
 */
#include "report.h"

static void ratios(FILE *out, double mine, const report_peer *peers, size_t npeers) {
    for (size_t i = 0; i < npeers; i++)
        if (peers[i].value > 0 && mine > 0)
            fprintf(out, "   x%.2f vs %s", mine / peers[i].value, peers[i].name);
}

void report_rate(FILE *out, const char *what, const char *who, double ops, double seconds,
                 const report_peer *peers, size_t npeers, const char *note) {
    report_rate_detail(out, what, who, ops, seconds, NULL, peers, npeers, note);
}

void report_rate_detail(FILE *out, const char *what, const char *who, double ops, double seconds,
                        const char *detail, const report_peer *peers, size_t npeers,
                        const char *note) {
    /* A run too short for the clock still gets a positive rate. */
    if (seconds < 1e-9)
        seconds = 1e-9;
    double rate = ops / seconds;
    double us = ops > 0 ? seconds * 1e6 / ops : 0;
    fprintf(out, "%-12s %-14s %10.0f ops/s %9.2f us/op", what, who, rate, us);
    if (detail != NULL && *detail)
        fprintf(out, " %s", detail);
    ratios(out, rate, peers, npeers);
    if (note != NULL && *note)
        fprintf(out, "   %s", note);
    fputc('\n', out);
    fflush(out);
}

void report_failed(FILE *out, const char *what, const char *who, const char *message) {
    fprintf(out, "%-12s %-14s FAILED: %s\n", what, who, message);
    fflush(out);
}

void report_rss(FILE *out, const char *who, uint64_t kib, const report_peer *peers,
                size_t npeers) {
    fprintf(out, "%-12s %-14s %10.1f MiB", "peak-rss", who, (double)kib / 1024.0);
    ratios(out, (double)kib, peers, npeers);
    fputc('\n', out);
    fflush(out);
}
