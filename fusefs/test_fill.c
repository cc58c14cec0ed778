/**
 * @file test_fill.c
 * Test-only loader for the bats tests (not installed): writes many rows
 * straight through libkvcore, much faster than through the mount.
 *   cellfs-test-fill STORE TABLE NROWS
 * creates STORE and TABLE (family 'cf') when missing and puts
 * row r%09d / cf:q = "v" for each row. Exit 0 on success.
 */
#include <kvcore.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BATCH 1000

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s STORE TABLE NROWS\n", argv[0]);
        return 2;
    }
    long nrows = strtol(argv[3], NULL, 10);
    kv_store_options o = KV_STORE_OPTIONS_INIT;
    o.create_if_missing = true;
    kv_store *s = NULL;
    char err[256] = "";
    kv_status st = kv_store_open(&s, argv[1], &o, err, sizeof err);
    if (st != KV_OK) {
        fprintf(stderr, "open %s: %s %s\n", argv[1], kv_strerror(st), err);
        return 1;
    }
    const char *table = argv[2];
    if (kv_table_exists(s, table) != KV_OK) {
        kv_family_desc f = KV_FAMILY_DESC_INIT;
        strcpy(f.name, "cf");
        st = kv_table_create(s, table, &f, 1);
        if (st != KV_OK) {
            fprintf(stderr, "create %s: %s %s\n", table, kv_strerror(st), kv_store_errmsg(s));
            kv_store_close(s);
            return 1;
        }
    }
    kv_mutation *ms[BATCH];
    kv_write_options w = KV_WRITE_OPTIONS_INIT;
    w.durability = KV_ASYNC_WAL;
    for (long i = 0; i < nrows && st == KV_OK; i += BATCH) {
        size_t n = 0;
        for (long j = i; j < nrows && j < i + BATCH && st == KV_OK; j++) {
            char row[32];
            int len = snprintf(row, sizeof row, "r%09ld", j);
            st = kv_mutation_new(&ms[n], row, (size_t)len);
            if (st != KV_OK) break;
            st = kv_mutation_put(ms[n], "cf", "q", 1, KV_LATEST_TIMESTAMP, "v", 1);
            n++;
        }
        if (st == KV_OK) st = kv_mutate_batch(s, table, ms, n, NULL, &w);
        for (size_t k = 0; k < n; k++) kv_mutation_free(ms[k]);
    }
    if (st != KV_OK) fprintf(stderr, "write: %s %s\n", kv_strerror(st), kv_store_errmsg(s));
    kv_status cst = kv_store_close(s);
    if (cst != KV_OK) fprintf(stderr, "close: %s\n", kv_strerror(cst));
    return st == KV_OK && cst == KV_OK ? 0 : 1;
}
