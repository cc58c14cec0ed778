/*
 * Import/export progress line (see progress.h). Called by the transfer
 * code; uses shell.c's clock.
 */
#include "progress.h"

#include "shell.h"

void sh_progress_start(sh_progress *p, FILE *out, bool enabled, const char *label,
                       uint64_t total_bytes) {
    p->out = enabled ? out : NULL;
    p->label = label;
    p->total = total_bytes;
    p->start = sh_now();
    p->last = 0;
}

static void human_bytes(char *buf, size_t len, uint64_t b) {
    if (b >= (1u << 30)) snprintf(buf, len, "%.1f GB", (double)b / (1u << 30));
    else if (b >= (1u << 20)) snprintf(buf, len, "%.1f MB", (double)b / (1u << 20));
    else if (b >= 1024) snprintf(buf, len, "%.1f KB", (double)b / 1024);
    else snprintf(buf, len, "%u B", (unsigned)b);
}

void sh_progress_update(sh_progress *p, uint64_t rows, uint64_t bytes) {
    if (!p->out) return;
    double now = sh_now();
    if (now - p->last < 0.1) return;
    p->last = now;
    double secs = now - p->start > 1e-6 ? now - p->start : 1e-6;
    char b[32], rate[32];
    human_bytes(b, sizeof b, bytes);
    human_bytes(rate, sizeof rate, (uint64_t)((double)bytes / secs));
    fprintf(p->out, "\r%s ", p->label);
    if (p->total > 0) {
        unsigned pct = (unsigned)(bytes >= p->total ? 100 : bytes * 100 / p->total);
        fputc('[', p->out);
        for (unsigned i = 0; i < 30; i++) fputc(i < pct * 30 / 100 ? '#' : '.', p->out);
        fprintf(p->out, "] %3u%% ", pct);
    }
    fprintf(p->out, "%llu rows, %s, %.0f rows/s, %s/s\033[K", (unsigned long long)rows, b,
            (double)rows / secs, rate);
    fflush(p->out);
}

void sh_progress_end(sh_progress *p, uint64_t rows, uint64_t bytes) {
    if (!p->out) return;
    double secs = sh_now() - p->start;
    if (secs < 1e-6) secs = 1e-6;
    char b[32];
    human_bytes(b, sizeof b, bytes);
    fprintf(p->out, "\r\033[K%s: %llu rows, %s in %.1f s, %.0f rows/s\n", p->label,
            (unsigned long long)rows, b, secs, (double)rows / secs);
    fflush(p->out);
}
