/*
 * Helpers of util.h: clock, random numbers, keys, sizes, directory
 * removal and peak memory. Used by every cellbench module; calls only libc.
 */
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int bench_fmt(char *buf, size_t len, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, len, fmt, ap);
    va_end(ap);
    return n >= 0 && (size_t)n < len ? 0 : -1;
}

double bench_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void bench_rng_seed(bench_rng *rng, uint64_t seed) { rng->state = seed; }

uint64_t bench_rng_next(bench_rng *rng) {
    uint64_t z = (rng->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

uint64_t bench_rng_uniform(bench_rng *rng, uint64_t n) { return bench_rng_next(rng) % n; }

void bench_key(char *buf, size_t len, uint64_t n) {
    for (size_t i = len; i > 0; i--) {
        buf[i - 1] = (char)('0' + n % 10);
        n /= 10;
    }
}

int bench_parse_size(uint64_t *out, const char *text) {
    if (text == NULL || *text < '0' || *text > '9')
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno != 0)
        return -1;
    unsigned shift = 0;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    default: break;
    }
    if (shift != 0 && strcmp(end, "iB") == 0)
        end += 2;
    else if (*end == 'B')
        end++;
    if (*end != '\0')
        return -1;
    if (shift != 0 && v > (UINT64_MAX >> shift))
        return -1;
    *out = (uint64_t)v << shift;
    return 0;
}

void bench_format_size(char *buf, size_t len, uint64_t bytes) {
    static const char *const units[] = {"B", "KiB", "MiB", "GiB"};
    size_t u = 0;
    uint64_t v = bytes;
    while (u + 1 < sizeof units / sizeof units[0] && v >= 1024 && v % 1024 == 0) {
        v /= 1024;
        u++;
    }
    snprintf(buf, len, "%" PRIu64 " %s", v, units[u]);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st;
    (void)ftw;
    int rc = (flag == FTW_DP) ? rmdir(path) : unlink(path);
    if (rc != 0 && errno != ENOENT) {
        fprintf(stderr, "cellbench: cannot remove %s: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

int bench_rmtree(const char *path) {
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno == ENOENT ? 0 : -1;
    /* FTW_MOUNT: a mount left below (a FUSE mount point) is never emptied
       through the mount; its rmdir then fails and is reported. */
    return nftw(path, rm_entry, 32, FTW_DEPTH | FTW_PHYS | FTW_MOUNT) == 0 ? 0 : -1;
}

int bench_mkdirs(const char *path) {
    char buf[4096];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(buf, path, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (buf[i] != '/' && buf[i] != '\0')
            continue;
        char c = buf[i];
        buf[i] = '\0';
        if (mkdir(buf, 0755) != 0 && errno != EEXIST)
            return -1;
        buf[i] = c;
    }
    return 0;
}

uint64_t bench_dir_bytes(const char *path) {
    DIR *d = opendir(path);
    if (d == NULL)
        return 0;
    uint64_t total = 0;
    struct dirent *de;
    char sub[4096];
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        if (bench_fmt(sub, sizeof sub, "%s/%s", path, de->d_name) != 0)
            continue;
        struct stat st;
        if (lstat(sub, &st) != 0)
            continue;
        if (S_ISREG(st.st_mode))
            total += (uint64_t)st.st_size;
        else if (S_ISDIR(st.st_mode))
            total += bench_dir_bytes(sub);
    }
    closedir(d);
    return total;
}

uint64_t bench_peak_rss_kib(void) {
    FILE *f = fopen("/proc/self/status", "r");
    if (f == NULL)
        return 0;
    char line[256];
    uint64_t kib = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        if (sscanf(line, "VmHWM: %" SCNu64, &kib) == 1)
            break;
    }
    fclose(f);
    return kib;
}

bool bench_sleep(double seconds) {
    struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    sigset_t none;
    sigemptyset(&none);
    return ppoll(NULL, 0, &ts, &none) >= 0 || errno != EINTR;
}

int bench_workdir(char *base, size_t len, const char *db_dir, const char *prefix) {
    char buf[PATH_MAX];
    if (db_dir == NULL) {
        const char *tmp = getenv("TMPDIR");
        if (tmp == NULL || *tmp == '\0')
            tmp = "/tmp";
        if (bench_fmt(buf, sizeof buf - 512, "%s/%s.XXXXXX", tmp, prefix) != 0) {
            fprintf(stderr, "cellbench: TMPDIR is too long\n");
            return -1;
        }
        if (mkdtemp(buf) == NULL) {
            fprintf(stderr, "cellbench: cannot create a temp dir in %s: %s\n", tmp,
                    strerror(errno));
            return -1;
        }
    } else if (bench_mkdirs(db_dir) != 0 || realpath(db_dir, buf) == NULL) {
        fprintf(stderr, "cellbench: cannot use --db %s: %s\n", db_dir, strerror(errno));
        return -1;
    }
    if (strlen(buf) > PATH_MAX - 512 || bench_fmt(base, len, "%s", buf) != 0) {
        fprintf(stderr, "cellbench: work directory path too long: %s\n", buf);
        return -1;
    }
    return 0;
}
