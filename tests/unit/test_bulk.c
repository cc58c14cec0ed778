/**
 * @file test_bulk.c
 * Acceptance test of kvcore with data many times its memory budget, through
 * the public header: random binary row keys and values of varied sizes
 * (some of 100 KiB), puts, column and row deletes, over every COMPRESSION x
 * DATA_BLOCK_ENCODING pair and every BLOOMFILTER, checked against a
 * reference model by gets, forward and reversed scans, before and after a
 * major compaction and a reopen, while memstore_bytes stays bounded.
 */
#include "kvcore.h"
#include "testutil.h"

#include <unistd.h>

#define NTABLES 3              /* one per COMPRESSION */
#define NFAMS 3                /* one per DATA_BLOCK_ENCODING */
#define NQUALS 2
#define NSLOTS (NFAMS * NQUALS)
#define NROWS 2500             /* per table */
#define WRITE_BUFFER (256u << 10)
#define TOTAL_BYTES (16u << 20)

typedef struct slot {
    int32_t len;               /* -1: absent */
    uint32_t seed;
} slot;

typedef struct model_row {
    uint8_t key[16];
    uint8_t key_len;
    slot slots[NSLOTS];
} model_row;

typedef struct model {
    model_row rows[NTABLES][NROWS];
    uint32_t order[NTABLES][NROWS];  /* row indexes in key order */
} model;

static uint64_t rng(uint64_t *s) {
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

static void fill_value(uint8_t *buf, size_t len, uint32_t seed) {
    uint64_t r = ((uint64_t)seed << 20) ^ 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < len; i++) {
        if ((i & 7) == 0) rng(&r);
        buf[i] = (uint8_t)(r >> ((i & 7) * 8));
    }
    /* Some runs of equal bytes so compression has something to do. */
    for (size_t i = 0; i + 64 < len; i += 256) memset(buf + i, 'x', 64);
}

static const char *table_name(int t) {
    static const char *const names[] = {"bulk_none", "bulk_lz4", "bulk_snappy"};
    return names[t];
}

static const char *fam_name(int f) {
    static const char *const names[] = {"e0", "e1", "e2"};
    return names[f];
}

static const char *qual_name(int q) { return q ? "q1" : "q0"; }

static model *M;
static uint8_t *vbuf, *vbuf2;

static int cmp_rows_t;
static int cmp_rows(const void *a, const void *b) {
    const model_row *x = &M->rows[cmp_rows_t][*(const uint32_t *)a];
    const model_row *y = &M->rows[cmp_rows_t][*(const uint32_t *)b];
    size_t n = x->key_len < y->key_len ? x->key_len : y->key_len;
    int c = memcmp(x->key, y->key, n);
    if (c) return c;
    return (int)x->key_len - (int)y->key_len;
}

static void model_init(uint64_t *seed) {
    for (int t = 0; t < NTABLES; t++) {
        for (uint32_t i = 0; i < NROWS; i++) {
            model_row *r = &M->rows[t][i];
            /* The first 4 bytes are a bijection of i: keys are unique. */
            uint32_t h = i * 2654435761u;
            r->key[0] = (uint8_t)(h >> 24);
            r->key[1] = (uint8_t)(h >> 16);
            r->key[2] = (uint8_t)(h >> 8);
            r->key[3] = (uint8_t)h;
            r->key_len = (uint8_t)(4 + rng(seed) % 12);
            for (int k = 4; k < r->key_len; k++) r->key[k] = (uint8_t)rng(seed); /* 0x00..0xff */
            for (int s = 0; s < NSLOTS; s++) r->slots[s].len = -1;
            M->order[t][i] = i;
        }
        cmp_rows_t = t;
        qsort(M->order[t], NROWS, sizeof M->order[t][0], cmp_rows);
    }
}

static void check_stats(kv_store *s, uint64_t *max_mem) {
    kv_store_stats st;
    CHECK_EQ(kv_store_stat(&st, s), KV_OK);
    if (st.memstore_bytes > *max_mem) *max_mem = st.memstore_bytes;
}

/* One random operation; returns the bytes it wrote. */
static size_t random_op(kv_store *s, uint64_t *seed, uint32_t *next_seed) {
    int t = (int)(rng(seed) % NTABLES);
    uint32_t i = (uint32_t)(rng(seed) % NROWS);
    model_row *r = &M->rows[t][i];
    uint64_t kind = rng(seed) % 100;
    kv_mutation *m;
    REQUIRE(kv_mutation_new(&m, r->key, r->key_len) == KV_OK);
    size_t bytes = 0;
    if (kind < 85) {
        /* Puts of 1..3 columns of the row in one mutation. */
        int n = 1 + (int)(rng(seed) % 3);
        for (int k = 0; k < n; k++) {
            int sl = (int)(rng(seed) % NSLOTS);
            uint64_t sz = rng(seed) % 1000;
            size_t len = sz < 2 ? 0 : sz < 12 ? 100 * 1024 : sz < 500 ? rng(seed) % 200 : rng(seed) % 4000;
            uint32_t vs = (*next_seed)++;
            fill_value(vbuf, len, vs);
            CHECK_EQ(kv_mutation_put(m, fam_name(sl / NQUALS), qual_name(sl % NQUALS), 2,
                                     KV_LATEST_TIMESTAMP, vbuf, len), KV_OK);
            r->slots[sl].len = (int32_t)len;
            r->slots[sl].seed = vs;
            bytes += len + r->key_len + 10;
        }
    } else if (kind < 97) {
        int sl = (int)(rng(seed) % NSLOTS);
        CHECK_EQ(kv_mutation_delete_column(m, fam_name(sl / NQUALS), qual_name(sl % NQUALS), 2,
                                           KV_LATEST_TIMESTAMP), KV_OK);
        r->slots[sl].len = -1;
        bytes += 32;
    } else {
        CHECK_EQ(kv_mutation_delete_row(m, KV_LATEST_TIMESTAMP), KV_OK);
        for (int sl = 0; sl < NSLOTS; sl++) r->slots[sl].len = -1;
        bytes += 32;
    }
    kv_status st = kv_mutate(s, table_name(t), m, NULL);
    if (st != KV_OK) fprintf(stderr, "mutate: %s %s\n", kv_strerror(st), kv_store_errmsg(s));
    CHECK_EQ(st, KV_OK);
    kv_mutation_free(m);
    return bytes;
}

/* Compares a returned row with the model; returns the number of problems. */
static int compare_row(int t, const model_row *r, const kv_result *res) {
    int bad = 0;
    size_t c = 0;
    if (res->row_len != r->key_len || memcmp(res->row, r->key, r->key_len) != 0) return 1;
    for (int sl = 0; sl < NSLOTS; sl++) {
        if (r->slots[sl].len < 0) continue;
        if (c >= res->ncells) return bad + 1;
        const kv_cell *cell = &res->cells[c++];
        if (strcmp(cell->family, fam_name(sl / NQUALS)) != 0 || cell->qualifier_len != 2 ||
            memcmp(cell->qualifier, qual_name(sl % NQUALS), 2) != 0 || cell->type != KV_TYPE_PUT) {
            bad++;
            continue;
        }
        size_t len = (size_t)r->slots[sl].len;
        fill_value(vbuf2, len, r->slots[sl].seed);
        if (cell->value_len != len || (len && memcmp(cell->value, vbuf2, len) != 0)) {
            if (bad == 0)
                fprintf(stderr, "  %s slot %d: value of %zu bytes, expected %zu\n", table_name(t), sl,
                        cell->value_len, len);
            bad++;
        }
    }
    if (c != res->ncells) bad++;
    return bad;
}

static bool row_present(const model_row *r) {
    for (int sl = 0; sl < NSLOTS; sl++)
        if (r->slots[sl].len >= 0) return true;
    return false;
}

static void verify_all(kv_store *s, const char *when) {
    int bad_gets = 0, bad_scan = 0;
    for (int t = 0; t < NTABLES; t++) {
        for (uint32_t i = 0; i < NROWS; i++) {
            const model_row *r = &M->rows[t][i];
            kv_result *res = NULL;
            kv_status st = kv_get(&res, s, table_name(t), r->key, r->key_len, NULL);
            if (st != KV_OK) {
                bad_gets++;
                continue;
            }
            int b = compare_row(t, r, res);
            if (!row_present(r) && res->ncells == 0) b = 0;
            bad_gets += b != 0;
            kv_result_free(res);
        }
        for (int rev = 0; rev < 2; rev++) {
            kv_read_options ro = KV_READ_OPTIONS_INIT;
            ro.reversed = rev;
            kv_scan *sc;
            REQUIRE(kv_scan_open(&sc, s, table_name(t), &ro) == KV_OK);
            const kv_result *res;
            int pos = rev ? NROWS - 1 : 0;
            kv_status st;
            while ((st = kv_scan_next(&res, sc)) == KV_OK) {
                while (pos >= 0 && pos < NROWS && !row_present(&M->rows[t][M->order[t][pos]]))
                    pos += rev ? -1 : 1;
                if (pos < 0 || pos >= NROWS) {
                    bad_scan++;
                    break;
                }
                if (compare_row(t, &M->rows[t][M->order[t][pos]], res) != 0) bad_scan++;
                pos += rev ? -1 : 1;
            }
            CHECK_EQ(st, KV_END);
            while (pos >= 0 && pos < NROWS && !row_present(&M->rows[t][M->order[t][pos]]))
                pos += rev ? -1 : 1;
            if (pos >= 0 && pos < NROWS) {
                fprintf(stderr, "  %s: %s scan ended early\n", table_name(t), rev ? "reversed" : "forward");
                bad_scan++;
            }
            kv_scan_close(sc);
        }
    }
    if (bad_gets || bad_scan) fprintf(stderr, "%s: %d bad gets, %d bad scans\n", when, bad_gets, bad_scan);
    CHECK_EQ(bad_gets, 0);
    CHECK_EQ(bad_scan, 0);
}

static kv_store *open_bulk(const char *path) {
    kv_store_options o = KV_STORE_OPTIONS_INIT;
    kv_local_options lo = KV_LOCAL_OPTIONS_INIT;
    o.create_if_missing = true;
    lo.write_buffer_size = WRITE_BUFFER;
    lo.block_cache_size = 512u << 10;
    o.local = &lo;
    kv_store *s = NULL;
    char err[512];
    kv_status st = kv_store_open(&s, path, &o, err, sizeof err);
    if (st != KV_OK) fprintf(stderr, "open: %s\n", err);
    REQUIRE(st == KV_OK);
    return s;
}

int main(void) {
    M = calloc(1, sizeof *M);
    vbuf = malloc(100 * 1024 + 16);
    vbuf2 = malloc(100 * 1024 + 16);
    REQUIRE(M && vbuf && vbuf2);
    uint64_t seed = 0x1234567887654321ull;
    model_init(&seed);
    char *dir = test_tmpdir("bulk");
    char path[1024];
    snprintf(path, sizeof path, "%s/store", dir);
    kv_store *s = open_bulk(path);

    /* Table t has COMPRESSION t; its family f has DATA_BLOCK_ENCODING f and
       BLOOMFILTER (t + f) % 3, so every pair and every filter is used. */
    for (int t = 0; t < NTABLES; t++) {
        kv_family_desc fd[NFAMS];
        for (int f = 0; f < NFAMS; f++) {
            kv_family_desc d = KV_FAMILY_DESC_INIT;
            fd[f] = d;
            snprintf(fd[f].name, sizeof fd[f].name, "%s", fam_name(f));
            fd[f].compression = (kv_compression)t;
            fd[f].encoding = (kv_encoding)f;
            fd[f].bloom = (kv_bloom)((t + f) % 3);
            fd[f].blocksize = f == 1 ? 4096 : 16384;
        }
        CHECK_EQ(kv_table_create(s, table_name(t), fd, NFAMS), KV_OK);
    }

    uint64_t max_mem = 0;
    size_t written = 0;
    uint32_t next_seed = 1;
    int ops = 0;
    while (written < TOTAL_BYTES) {
        written += random_op(s, &seed, &next_seed);
        if (++ops % 50 == 0) check_stats(s, &max_mem);
        if (ops == 3000) verify_all(s, "midway");
    }
    check_stats(s, &max_mem);
    kv_store_stats st;
    CHECK_EQ(kv_store_stat(&st, s), KV_OK);
    printf("ops %d, written %zu bytes, flushes %llu, compactions %llu, files %llu, max memstore %llu\n",
           ops, written, (unsigned long long)st.flushes, (unsigned long long)st.compactions,
           (unsigned long long)st.sorted_files, (unsigned long long)max_mem);
    CHECK(st.flushes > 5);
    CHECK(st.compactions > 0);
    if (max_mem > 3 * WRITE_BUFFER)
        fprintf(stderr, "memstore_bytes reached %llu (> 3 x write_buffer_size = %u)\n",
                (unsigned long long)max_mem, 3 * WRITE_BUFFER);
    CHECK(max_mem <= 3 * WRITE_BUFFER);
    CHECK(st.cache_bytes <= (512u << 10) + (128u << 10));
    verify_all(s, "after writes");

    CHECK_EQ(kv_compact(s, NULL, true), KV_OK);
    CHECK_EQ(kv_store_stat(&st, s), KV_OK);
    CHECK(st.sorted_files <= NTABLES * NFAMS);
    verify_all(s, "after major compaction");

    /* More churn after the major compaction, then reopen. */
    for (int i = 0; i < 1500; i++) random_op(s, &seed, &next_seed);
    verify_all(s, "after more writes");
    CHECK_EQ(kv_store_close(s), KV_OK);
    s = open_bulk(path);
    verify_all(s, "after reopen");
    CHECK_EQ(kv_store_close(s), KV_OK);

    test_rmtree(dir);
    free(dir);
    free(M);
    free(vbuf);
    free(vbuf2);
    return test_finish("test_bulk");
}
