/*
 * Writes the seed corpus of the store, sst and wal targets:
 * `fuzz_seedgen OUTDIR` makes a small store (families with every
 * compression, encoding and bloom kind, puts and deletes, a flush, then
 * unflushed writes left in the log) and copies its files, while it is
 * open, into OUTDIR/sst/, OUTDIR/wal/ and OUTDIR/store/ (the store
 * target's container: manifest text, NUL, log, mark, one sorted file).
 * Run by hand when the formats change; the output is committed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <dirent.h>

#include "kvcore.h"
#include "util/coding.h"

static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    if (b)
        b[n] = '\0';
    *len = (size_t)n;
    return b;
}

static void spit(const char *path, const void *a, size_t alen, const void *b, size_t blen) {
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(a, 1, alen, f) != alen || (blen && fwrite(b, 1, blen, f) != blen)) {
        perror(path);
        exit(1);
    }
    fclose(f);
}

static void must(kv_status st, const char *what) {
    if (st != KV_OK) {
        fprintf(stderr, "seedgen: %s: %s\n", what, kv_strerror(st));
        exit(1);
    }
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: fuzz_seedgen OUTDIR\n");
        return 2;
    }
    char tmpl[] = "/tmp/cellfs-seedgen-XXXXXX";
    char *dir = mkdtemp(tmpl);
    if (!dir)
        return 1;
    kv_store_options o = KV_STORE_OPTIONS_INIT;
    o.create_if_missing = true;
    kv_local_options lo = KV_LOCAL_OPTIONS_INIT;
    lo.compaction = KV_COMPACTION_MANUAL;
    o.local = &lo;
    kv_store *s = NULL;
    char err[256];
    must(kv_store_open(&s, dir, &o, err, sizeof err), "open");
    kv_family_desc f[4] = {KV_FAMILY_DESC_INIT, KV_FAMILY_DESC_INIT, KV_FAMILY_DESC_INIT,
                           KV_FAMILY_DESC_INIT};
    const char *names[4] = {"a", "b", "c", "d"};
    for (int i = 0; i < 4; i++)
        snprintf(f[i].name, sizeof f[i].name, "%s", names[i]);
    f[1].compression = KV_COMPRESSION_LZ4;
    f[1].encoding = KV_ENCODING_PREFIX;
    f[1].bloom = KV_BLOOM_ROWCOL;
    f[2].compression = KV_COMPRESSION_SNAPPY;
    f[2].encoding = KV_ENCODING_DIFF;
    f[2].bloom = KV_BLOOM_NONE;
    f[3].blocksize = 1024;
    f[3].versions = 3;
    must(kv_table_create(s, "t", f, 4), "create");
    for (int r = 0; r < 40; r++) {
        char row[16], val[48];
        snprintf(row, sizeof row, "row%03d", r);
        for (int i = 0; i < 4; i++) {
            int n = snprintf(val, sizeof val, "value-%d-%d-xxxxxxxxxxxx", r, i);
            must(kv_put(s, "t", row, strlen(row), names[i], "q", 1, 100 + r, val, (size_t)n, NULL),
                 "put");
            must(kv_put(s, "t", row, strlen(row), names[i], "q2", 2, 100 + r, "", 0, NULL), "put");
        }
        if (r % 7 == 0) {
            kv_mutation *m = NULL;
            must(kv_mutation_new(&m, row, strlen(row)), "mutation");
            must(kv_mutation_delete_column(m, "a", "q2", 2, 200), "delete");
            must(kv_mutation_delete_family(m, "b", 150), "delete");
            must(kv_mutate(s, "t", m, NULL), "mutate");
            kv_mutation_free(m);
        }
    }
    must(kv_flush(s, "t"), "flush");
    for (int r = 0; r < 5; r++) {
        char row[16];
        snprintf(row, sizeof row, "late%d", r);
        must(kv_put(s, "t", row, strlen(row), "a", "q", 1, 300 + r, "v", 1, NULL), "put");
    }
    kv_mutation *m = NULL;
    must(kv_mutation_new(&m, "row001", 6), "mutation");
    must(kv_mutation_delete_row(m, 400), "delete");
    must(kv_mutate(s, "t", m, NULL), "mutate");
    kv_mutation_free(m);

    char path[1024], out[1024];
    for (const char *sub = "sst\0wal\0store\0"; *sub; sub += strlen(sub) + 1) {
        snprintf(out, sizeof out, "%s/%s", argv[1], sub);
        mkdir(out, 0755);
    }
    size_t mlen = 0;
    snprintf(path, sizeof path, "%s/MANIFEST", dir);
    char *manifest = slurp(path, &mlen);
    if (!manifest)
        return 1;
    /* The store target's form: checksums left out ("checksum", "end"). */
    size_t w = 0;
    for (size_t i = 0; i < mlen;) {
        char *nl = memchr(manifest + i, '\n', mlen - i);
        size_t len = nl ? (size_t)(nl - (manifest + i)) : mlen - i;
        if (len > 9 && strncmp(manifest + i, "checksum ", 9) == 0)
            len = 8;
        else if (len > 4 && strncmp(manifest + i, "end ", 4) == 0)
            len = 3;
        memmove(manifest + w, manifest + i, len);
        w += len;
        if (nl)
            manifest[w++] = '\n';
        i = nl ? (size_t)(nl - manifest) + 1 : mlen;
    }
    mlen = w;
    char *log = NULL, *sst = NULL;
    size_t log_len = 0, sst_len = 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    int nsst = 0;
    while (d && (e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        size_t len = 0;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (n > 4 && strcmp(e->d_name + n - 4, ".sst") == 0) {
            char *b = slurp(path, &len);
            snprintf(out, sizeof out, "%s/sst/seed-%d", argv[1], nsst++);
            spit(out, b, len, NULL, 0);
            if (!sst) {
                sst = b;
                sst_len = len;
            } else {
                free(b);
            }
        } else if (n > 4 && strcmp(e->d_name + n - 4, ".log") == 0) {
            char *b = slurp(path, &len);
            if (len > log_len) {
                free(log);
                log = b;
                log_len = len;
            } else {
                free(b);
            }
        }
    }
    if (d)
        closedir(d);
    if (!log || !sst)
        return 1;
    snprintf(out, sizeof out, "%s/wal/seed-0", argv[1]);
    spit(out, log, log_len, NULL, 0);
    /* Store containers: manifest only; manifest + log; all three. */
    snprintf(out, sizeof out, "%s/store/seed-manifest", argv[1]);
    spit(out, manifest, mlen, NULL, 0);
    size_t blen = mlen + 1 + log_len + 9 + sst_len;
    char *b = malloc(blen);
    memcpy(b, manifest, mlen);
    b[mlen] = '\0';
    memcpy(b + mlen + 1, log, log_len);
    snprintf(out, sizeof out, "%s/store/seed-log", argv[1]);
    spit(out, b, mlen + 1 + log_len, NULL, 0);
    memcpy(b + mlen + 1 + log_len, "\n@@SST@@\n", 9);
    memcpy(b + mlen + 1 + log_len + 9, sst, sst_len);
    snprintf(out, sizeof out, "%s/store/seed-all", argv[1]);
    spit(out, b, blen, NULL, 0);
    /* The twin of the other parity (odd sizes open writable, even ones
       read-only): one more byte at the end of the log, a torn tail. */
    char *twin = malloc(blen + 1);
    size_t at = mlen + 1 + log_len;
    memcpy(twin, b, at);
    twin[at] = '\0';
    memcpy(twin + at + 1, b + at, blen - at);
    snprintf(out, sizeof out, "%s/store/seed-all-twin", argv[1]);
    spit(out, twin, blen + 1, NULL, 0);
    free(twin);
    free(b);
    free(manifest);
    free(log);
    free(sst);
    kv_store_close(s);
    snprintf(path, sizeof path, "rm -rf '%s'", dir);
    return system(path) == 0 ? 0 : 1;
}
