/*
 * libFuzzer target: store open from a fuzzed directory (manifest parsing,
 * log replay, sorted-file opening) and a full read of what opened. The
 * input is the MANIFEST text without its checksum line (this target
 * appends the right one, so that the parser behind it is reached; an input
 * beginning with '!' is written as it is), then optionally a NUL and the
 * bytes of the log, then optionally FUZZ_SST_MARK and the bytes of one
 * sorted file. The log is named by the manifest's log_number, the sorted
 * file by its first `file` line. An odd-sized input is opened writable
 * (recovery then flushes and rewrites), an even-sized one read-only.
 */
#include "fuzz_util.h"

#include <dirent.h>
#include <stdbool.h>

#include "kvcore.h"
#include "util/coding.h"

#define FUZZ_SST_MARK "\n@@SST@@\n"

/* The number after the first "\n<key> " in text (NUL-terminated) when it
   parses, else dflt. */
static unsigned long long number_after(const char *text, const char *key,
                                       unsigned long long dflt) {
    const char *p = strstr(text, key);
    unsigned long long n = 0;
    if (p && sscanf(p + strlen(key), "%llu", &n) == 1 && n < 100000000ULL)
        return n;
    return dflt;
}

static void clear_dir(const char *dir) {
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char path[1200];
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(d);
}

static const uint8_t *find_mark(const uint8_t *p, size_t n, const char *mark) {
    size_t m = strlen(mark);
    for (size_t i = 0; i + m <= n; i++)
        if (memcmp(p + i, mark, m) == 0)
            return p + i;
    return NULL;
}

/* Reads every table of the store to its end. */
static void read_all(kv_store *s) {
    char **tables = NULL;
    if (kv_table_list(&tables, s, NULL) != KV_OK)
        return;
    for (size_t i = 0; tables[i]; i++) {
        kv_read_options ro = KV_READ_OPTIONS_INIT;
        ro.max_versions = INT32_MAX;
        for (int raw = 0; raw < 2; raw++) {
            ro.raw = raw;
            kv_scan *sc = NULL;
            if (kv_scan_open(&sc, s, tables[i], &ro) != KV_OK)
                continue;
            const kv_result *row;
            kv_status st;
            int n = 0;
            while ((st = kv_scan_next(&row, sc)) == KV_OK && n++ < 100000)
                ;
            kv_scan_close(sc);
        }
        kv_result *res = NULL;
        if (kv_get(&res, s, tables[i], "r", 1, &ro) == KV_OK)
            kv_result_free(res);
    }
    kv_free_names(tables);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *dir = fuzz_scratch_dir();
    if (!dir || size > (1u << 20))
        return 0;
    clear_dir(dir);
    const uint8_t *nul = memchr(data, 0, size);
    size_t mlen = nul ? (size_t)(nul - data) : size;
    const uint8_t *rest = nul ? nul + 1 : data + size;
    size_t rest_len = (size_t)(data + size - rest);
    const uint8_t *mark = find_mark(rest, rest_len, FUZZ_SST_MARK);
    size_t log_len = mark ? (size_t)(mark - rest) : rest_len;

    /* Each line may grow by " xxxxxxxx"; a "checksum" line may be added. */
    size_t cap = mlen + 9 * (mlen / 3 + 1) + 32;
    char *manifest = malloc(cap);
    if (!manifest)
        return 0;
    size_t total = 0;
    if (mlen > 0 && data[0] == '!') {
        memcpy(manifest, data, mlen);
        total = mlen;
    } else {
        bool have_sum = false;
        size_t edit_start = 0;
        for (size_t i = 0; i < mlen;) {
            const uint8_t *nl = memchr(data + i, '\n', mlen - i);
            size_t len = nl ? (size_t)(nl - (data + i)) : mlen - i;
            const char *line = (const char *)data + i;
            size_t start = total;
            if (len == 8 && memcmp(line, "checksum", 8) == 0) {
                total += (size_t)sprintf(manifest + total, "checksum %08x",
                                         kv_checksum(manifest, start));
                have_sum = true;
            } else if (len == 3 && memcmp(line, "end", 3) == 0) {
                total += (size_t)sprintf(manifest + total, "end %08x",
                                         kv_checksum(manifest + edit_start, start - edit_start));
            } else {
                if (len >= 5 && memcmp(line, "edit ", 5) == 0)
                    edit_start = start;
                memcpy(manifest + total, line, len);
                total += len;
            }
            if (nl)
                manifest[total++] = '\n';
            i += len + (nl ? 1 : 0);
        }
        if (!have_sum)
            total += (size_t)snprintf(manifest + total, 32, "checksum %08x\n",
                                      kv_checksum(manifest, total));
    }
    manifest[total] = '\0';
    char path[1200];
    snprintf(path, sizeof path, "%s/MANIFEST", dir);
    int ok = fuzz_write_file(path, (const uint8_t *)manifest, total) == 0;
    /* (the numbers below are read from the terminated copy) */
    unsigned long long log_no = number_after(manifest, "\nlog_number ", 5);
    const char *file_line = strstr(manifest, "\nfile ");
    unsigned long long sst_no = 4;
    if (file_line) {
        unsigned long long fam = 0, n = 0;
        if (sscanf(file_line + 6, "%llu %llu", &fam, &n) == 2 && n < 100000000ULL)
            sst_no = n;
    }
    if (ok && nul) {
        snprintf(path, sizeof path, "%s/%06llu.log", dir, log_no);
        ok = fuzz_write_file(path, rest, log_len) == 0;
    }
    if (ok && mark) {
        size_t off = strlen(FUZZ_SST_MARK);
        snprintf(path, sizeof path, "%s/%06llu.sst", dir, sst_no);
        ok = fuzz_write_file(path, mark + off, log_len < rest_len ? rest_len - log_len - off : 0) == 0;
    }
    free(manifest);
    if (!ok)
        return 0;

    kv_local_options lo = KV_LOCAL_OPTIONS_INIT;
    lo.compaction = KV_COMPACTION_MANUAL;
    lo.block_cache_size = 1u << 20;
    kv_store_options o = KV_STORE_OPTIONS_INIT;
    o.read_only = (size % 2) == 0;
    o.local = &lo;
    kv_store *s = NULL;
    char err[512];
    kv_status st = kv_store_open(&s, dir, &o, err, sizeof err);
    /* FUZZ_VERBOSE=1: say how the open went (to check the seeds). */
    if (getenv("FUZZ_VERBOSE"))
        fprintf(stderr, "fuzz_store: open (%s): %s %s\n", o.read_only ? "read-only" : "writable",
                kv_strerror(st), st == KV_OK ? "" : err);
    if (st == KV_OK) {
        read_all(s);
        kv_store_close(s);
    }
    return 0;
}
