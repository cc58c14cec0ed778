/*
 * util.c: what both fsx modes share (fsx.h): the random generator, the
 * operation log, the byte pattern, the comparison report, the failure
 * exit and whole-range pread/pwrite. Calls only libc.
 */
#include "fsx.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void fsx_rng_seed(fsx_rng *r, uint64_t seed) { r->state = seed; }

uint64_t fsx_rand(fsx_rng *r) {
    uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

uint64_t fsx_below(fsx_rng *r, uint64_t n) { return n == 0 ? 0 : fsx_rand(r) % n; }

uint64_t fsx_range(fsx_rng *r, uint64_t lo, uint64_t hi) {
    return lo + fsx_below(r, hi - lo + 1);
}

int fsx_log_init(fsx_log *log, size_t size, bool echo) {
    memset(log, 0, sizeof *log);
    log->size = size > 0 ? size : 1;
    log->echo = echo;
    log->lines = calloc(log->size, sizeof log->lines[0]);
    return log->lines != NULL ? 0 : -1;
}

void fsx_log_free(fsx_log *log) {
    free(log->lines);
    log->lines = NULL;
}

void fsx_pause(const fsx_options *opt) {
    if (opt->pause_ms == 0)
        return;
    struct timespec ts = {(time_t)(opt->pause_ms / 1000), (long)(opt->pause_ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

void fsx_log_add(fsx_log *log, uint64_t op, const char *fmt, ...) {
    char *line = log->lines[log->count % log->size];
    int n = snprintf(line, sizeof log->lines[0], "%6" PRIu64 " ", op);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof log->lines[0] - (size_t)n, fmt, ap);
    va_end(ap);
    log->count++;
    if (log->echo) {
        printf("%s\n", line);
        fflush(stdout);
    }
}

/* 131 is prime to 255, so the op number modulo 255 can be recovered from
   a byte and its offset; 146 is 131's inverse modulo 255. */
uint8_t fsx_pattern(uint64_t op, uint64_t pos) {
    return (uint8_t)(1 + ((op % 255) * 131 + pos % 255) % 255);
}

void fsx_fill(uint8_t *buf, size_t len, uint64_t op, uint64_t pos) {
    for (size_t i = 0; i < len; i++)
        buf[i] = fsx_pattern(op, pos + i);
}

int fsx_pattern_op(uint8_t b, uint64_t pos) {
    if (b == 0)
        return -1;
    int64_t x = ((int64_t)b - 1 - (int64_t)(pos % 255)) % 255;
    if (x < 0)
        x += 255;
    return (int)((x * 146) % 255);
}

static void dump_log(const fsx_run *run) {
    const fsx_log *log = &run->log;
    uint64_t first = log->count > log->size ? log->count - log->size : 0;
    fprintf(stderr, "LOG: the last %" PRIu64 " operations (of %" PRIu64 ")\n",
            log->count - first, log->count);
    for (uint64_t i = first; i < log->count; i++)
        fprintf(stderr, "  %s\n", log->lines[i % log->size]);
}

static void vfail(const fsx_run *run, const char *fmt, va_list ap, int err) {
    fflush(stdout);
    fprintf(stderr, "fsx: FAIL at op %" PRIu64 ": ", run->op);
    vfprintf(stderr, fmt, ap);
    if (err != 0)
        fprintf(stderr, ": %s", strerror(err));
    fputc('\n', stderr);
    dump_log(run);
    fprintf(stderr, "fsx: seed %" PRIu64 "; the run stopped at op %" PRIu64
            " of %" PRIu64 " (-S %" PRIu64 " -N %" PRIu64 " reproduces it)\n",
            run->opt->seed, run->op, run->opt->ops, run->opt->seed, run->op);
    exit(1);
}

void fsx_fail(const fsx_run *run, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vfail(run, fmt, ap, 0);
    va_end(ap);
    exit(1);
}

void fsx_fail_errno(const fsx_run *run, const char *fmt, ...) {
    int err = errno;
    va_list ap;
    va_start(ap, fmt);
    vfail(run, fmt, ap, err);
    va_end(ap);
    exit(1);
}

static void show_bytes(const char *label, uint64_t off, const uint8_t *p, size_t n,
                       const uint64_t *writer) {
    fprintf(stderr, "  %-8s", label);
    for (size_t i = 0; i < n; i++)
        fprintf(stderr, " %02x", p[i]);
    fputc('\n', stderr);
    fprintf(stderr, "  %-8s", "op%255");
    for (size_t i = 0; i < n; i++) {
        int w = fsx_pattern_op(p[i], off + i);
        if (w < 0)
            fprintf(stderr, "  --");
        else
            fprintf(stderr, " %3d", w);
    }
    fputc('\n', stderr);
    if (writer != NULL) {
        fprintf(stderr, "  %-8s", "by op");
        for (size_t i = 0; i < n; i++)
            fprintf(stderr, " %" PRIu64, writer[i]);
        fputc('\n', stderr);
    }
}

void fsx_compare(const fsx_run *run, const char *what, uint64_t off, const uint8_t *want,
                 size_t want_len, const uint8_t *got, size_t got_len, const uint64_t *writer) {
    size_t common = want_len < got_len ? want_len : got_len;
    size_t first = 0;
    while (first < common && want[first] == got[first])
        first++;
    if (first == common && want_len == got_len)
        return;
    size_t last = first;
    for (size_t i = first; i < common; i++)
        if (want[i] != got[i])
            last = i;
    fflush(stdout);
    fprintf(stderr, "fsx: %s at offset %" PRIu64 ": expected %zu bytes, read %zu\n", what, off,
            want_len, got_len);
    if (first < common) {
        fprintf(stderr, "  bytes differ from offset %" PRIu64 " (0x%" PRIx64 ") to %" PRIu64
                " (0x%" PRIx64 ")\n",
                off + first, off + first, off + last, off + last);
        size_t n = common - first < 16 ? common - first : 16;
        show_bytes("expected", off + first, want + first, n, writer ? writer + first : NULL);
        show_bytes("found", off + first, got + first, n, NULL);
    } else {
        fprintf(stderr, "  the first %zu bytes agree; the lengths differ\n", common);
    }
    fsx_fail(run, "%s: wrong data", what);
}

ssize_t fsx_pread_all(int fd, void *buf, size_t len, uint64_t off) {
    size_t done = 0;
    while (done < len) {
        ssize_t n = pread(fd, (char *)buf + done, len - done, (off_t)(off + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        if (n == 0)
            break;
        done += (size_t)n;
    }
    return (ssize_t)done;
}

ssize_t fsx_pwrite_all(int fd, const void *buf, size_t len, uint64_t off) {
    size_t done = 0;
    while (done < len) {
        ssize_t n = pwrite(fd, (const char *)buf + done, len - done, (off_t)(off + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        if (n == 0) {
            errno = EIO;
            return -1;
        }
        done += (size_t)n;
    }
    return (ssize_t)done;
}
