/*
 * The read path's shortcuts keep HBase's answers: a read stops a column once
 * it has its versions or is below the time range (a get seeks past the rest,
 * a scan steps a few entries first), FirstKeyOnlyFilter stops a row at its
 * first visible cell, KeyOnlyFilter copies no value; delete markers newer
 * than a time range still mask the cells inside it. Each case is read from
 * the memstore, after a flush to a sorted file, and with the two mixed.
 * Through kvcore.h only.
 */
#include "kvcore.h"
#include "util/env.h"   /* a test env counts the reads of sorted files */
#include "testutil.h"

#include <inttypes.h>

#define VERSIONS 40
#define COLUMNS 12

/* A new store at dir (local settings lo, NULL: defaults) with table t of
   family f. */
static kv_store *open_table(const char *dir, const kv_local_options *lo, const kv_family_desc *f) {
    kv_store_options o = KV_STORE_OPTIONS_INIT;
    o.create_if_missing = true;
    o.local = lo;
    char msg[300];
    kv_store *s = NULL;
    if (kv_store_open(&s, dir, &o, msg, sizeof msg) != KV_OK) {
        fprintf(stderr, "open %s: %s\n", dir, msg);
        exit(1);
    }
    if (kv_table_create(s, "t", f, 1) != KV_OK) exit(1);
    return s;
}

static kv_store *open_store(const char *dir) {
    kv_family_desc f = KV_FAMILY_DESC_INIT;
    snprintf(f.name, sizeof f.name, "cf");
    f.versions = VERSIONS;
    f.blocksize = 1024; /* many blocks: seeks cross them */
    return open_table(dir, NULL, &f);
}

static void put(kv_store *s, const char *row, const char *q, int64_t ts, const char *v) {
    CHECK_EQ(kv_put(s, "t", row, strlen(row), "cf", q, strlen(q), ts, v, strlen(v), NULL), KV_OK);
}

static void delete_column(kv_store *s, const char *row, const char *q, int64_t ts) {
    kv_mutation *m = NULL;
    REQUIRE(kv_mutation_new(&m, row, strlen(row)) == KV_OK);
    CHECK_EQ(kv_mutation_delete_column(m, "cf", q, strlen(q), ts), KV_OK);
    CHECK_EQ(kv_mutate(s, "t", m, NULL), KV_OK);
    kv_mutation_free(m);
}

/* Rows r0..r2: COLUMNS columns of VERSIONS versions each (value "q<c>@<ts>",
   ts 1..VERSIONS); in r1 column q00 is deleted up to ts VERSIONS, so its first
   visible cell is q01's. With split, half the versions are flushed first. */
static void load(kv_store *s, bool split) {
    char q[16], v[32], row[8];
    for (int half = 0; half < 2; half++) {
        for (int r = 0; r < 3; r++) {
            snprintf(row, sizeof row, "r%d", r);
            for (int c = 0; c < COLUMNS; c++) {
                snprintf(q, sizeof q, "q%02d", c);
                for (int ts = 1 + half * VERSIONS / 2; ts <= (half + 1) * VERSIONS / 2; ts++) {
                    snprintf(v, sizeof v, "q%02d@%d", c, ts);
                    put(s, row, q, ts, v);
                }
            }
        }
        if (half == 0 && split) CHECK_EQ(kv_flush(s, "t"), KV_OK);
    }
    delete_column(s, "r1", "q00", VERSIONS);
}

static bool cell_is(const kv_cell *c, const char *q, int64_t ts) {
    char v[32];
    snprintf(v, sizeof v, "%s@%" PRId64, q, ts);
    return c->qualifier_len == strlen(q) && memcmp(c->qualifier, q, c->qualifier_len) == 0 &&
           c->timestamp == ts && c->value_len == strlen(v) && memcmp(c->value, v, c->value_len) == 0;
}

static void check_gets(kv_store *s) {
    kv_column col = {"cf", "q05", 3};
    kv_read_options ro = KV_READ_OPTIONS_INIT;
    ro.columns = &col;
    ro.ncolumns = 1;
    kv_result *r = NULL;
    /* newest of VERSIONS */
    REQUIRE(kv_get(&r, s, "t", "r0", 2, &ro) == KV_OK);
    CHECK(r->ncells == 1 && cell_is(&r->cells[0], "q05", VERSIONS));
    kv_result_free(r);
    /* three newest */
    ro.max_versions = 3;
    REQUIRE(kv_get(&r, s, "t", "r0", 2, &ro) == KV_OK);
    CHECK(r->ncells == 3 && cell_is(&r->cells[0], "q05", VERSIONS) &&
          cell_is(&r->cells[2], "q05", VERSIONS - 2));
    kv_result_free(r);
    /* a time range: the newest inside [7, 11), then two more */
    ro.time_min = 7;
    ro.time_max = 11;
    REQUIRE(kv_get(&r, s, "t", "r0", 2, &ro) == KV_OK);
    CHECK(r->ncells == 3 && cell_is(&r->cells[0], "q05", 10) && cell_is(&r->cells[2], "q05", 8));
    kv_result_free(r);
    /* a DeleteColumn at VERSIONS masks the range below it in r1's q00 */
    col.qualifier = "q00";
    REQUIRE(kv_get(&r, s, "t", "r1", 2, &ro) == KV_OK);
    CHECK_EQ(r->ncells, 0);
    kv_result_free(r);
    /* the whole row, newest version of each column */
    ro = (kv_read_options)KV_READ_OPTIONS_INIT;
    REQUIRE(kv_get(&r, s, "t", "r2", 2, &ro) == KV_OK);
    CHECK_EQ(r->ncells, COLUMNS);
    CHECK(r->ncells == COLUMNS && cell_is(&r->cells[0], "q00", VERSIONS) &&
          cell_is(&r->cells[COLUMNS - 1], "q11", VERSIONS));
    kv_result_free(r);
}

/* A scan of all rows with the filter text: the cells of each row. */
static void scan_rows(kv_store *s, const char *filter, int32_t versions, size_t *ncells,
                      const kv_cell *first[3], size_t *nrows) {
    kv_filter *f = NULL;
    char msg[200];
    if (filter) REQUIRE(kv_filter_parse(&f, filter, msg, sizeof msg) == KV_OK);
    kv_read_options ro = KV_READ_OPTIONS_INIT;
    ro.filter = f;
    ro.max_versions = versions;
    kv_scan *sc = NULL;
    REQUIRE(kv_scan_open(&sc, s, "t", &ro) == KV_OK);
    const kv_result *row;
    static kv_cell keep[3];
    static uint8_t qual[3][16], val[3][32];
    *nrows = 0;
    kv_status st;
    while ((st = kv_scan_next(&row, sc)) == KV_OK && *nrows < 3) {
        ncells[*nrows] = row->ncells;
        keep[*nrows] = row->cells[0];
        memcpy(qual[*nrows], row->cells[0].qualifier, row->cells[0].qualifier_len);
        memcpy(val[*nrows], row->cells[0].value,
               row->cells[0].value_len < 32 ? row->cells[0].value_len : 31);
        keep[*nrows].qualifier = qual[*nrows];
        keep[*nrows].value = val[*nrows];
        first[*nrows] = &keep[*nrows];
        (*nrows)++;
    }
    CHECK_EQ(st, KV_END);
    kv_scan_close(sc);
    kv_filter_free(f);
}

static void check_scans(kv_store *s) {
    size_t n[3], rows;
    const kv_cell *first[3];
    scan_rows(s, NULL, 2, n, first, &rows);
    REQUIRE(rows == 3);
    CHECK(n[0] == 2 * COLUMNS && n[1] == 2 * (COLUMNS - 1) && n[2] == 2 * COLUMNS);
    CHECK(cell_is(first[0], "q00", VERSIONS) && cell_is(first[1], "q01", VERSIONS));

    scan_rows(s, "FirstKeyOnlyFilter()", 0, n, first, &rows);
    REQUIRE(rows == 3);
    CHECK(n[0] == 1 && n[1] == 1 && n[2] == 1);
    CHECK(cell_is(first[0], "q00", VERSIONS));
    CHECK(cell_is(first[1], "q01", VERSIONS)); /* q00 is deleted in r1 */

    scan_rows(s, "KeyOnlyFilter() AND FirstKeyOnlyFilter()", 0, n, first, &rows);
    REQUIRE(rows == 3);
    CHECK(n[0] == 1 && first[0]->value_len == 0 && first[0]->timestamp == VERSIONS &&
          first[1]->qualifier_len == 3 && memcmp(first[1]->qualifier, "q01", 3) == 0);

    scan_rows(s, "KeyOnlyFilter()", 1, n, first, &rows);
    REQUIRE(rows == 3);
    CHECK(n[0] == COLUMNS && first[0]->value_len == 0);
}

/* Rows holding 0x00 bytes come back whole from a scan (the row is
   unescaped from the internal key). */
static void check_binary_rows(kv_store *s) {
    static const char rows[][6] = {{'\0'}, {'z', '\0', 'b'}, {'z', '\0', '\0', 'c', '\0'}};
    static const size_t lens[] = {1, 3, 5};
    for (size_t i = 0; i < 3; i++)
        CHECK_EQ(kv_put(s, "t", rows[i], lens[i], "cf", "q", 1, 1, "v", 1, NULL), KV_OK);
    kv_scan *sc = NULL;
    REQUIRE(kv_scan_open(&sc, s, "t", NULL) == KV_OK);
    const kv_result *r;
    size_t seen = 0;
    while (kv_scan_next(&r, sc) == KV_OK) {
        if (seen == 0) CHECK(r->row_len == 1 && r->row[0] == 0);
        if (r->row_len == 3 && memcmp(r->row, rows[1], 3) == 0) seen |= 2;
        if (r->row_len == 5 && memcmp(r->row, rows[2], 5) == 0) seen |= 4;
        if (seen == 0) seen = 1;
    }
    CHECK_EQ(seen, 7);
    kv_scan_close(sc);
    /* gets of each row, whole and by a column whose name holds zero bytes
       (the row and qualifier are escaped for the seek as when written) */
    static const char zq[] = {'q', '\0', '\0', 'x'};
    for (size_t i = 0; i < 3; i++)
        CHECK_EQ(kv_put(s, "t", rows[i], lens[i], "cf", zq, sizeof zq, 1, rows[i], lens[i], NULL), KV_OK);
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < 3; i++) {
            kv_column col = {"cf", zq, sizeof zq};
            kv_read_options ro = KV_READ_OPTIONS_INIT;
            ro.columns = pass ? &col : NULL;
            ro.ncolumns = pass ? 1 : 0;
            kv_result *g = NULL;
            REQUIRE(kv_get(&g, s, "t", rows[i], lens[i], &ro) == KV_OK);
            CHECK_EQ(g->ncells, pass ? 1u : 2u);
            const kv_cell *c = &g->cells[0];
            if (g->ncells == 1u)
                CHECK(c->qualifier_len == sizeof zq && memcmp(c->qualifier, zq, sizeof zq) == 0 &&
                      c->value_len == lens[i] && memcmp(c->value, rows[i], lens[i]) == 0);
            kv_result_free(g);
        }
}

/* Rows without zero bytes are decoded from the row on (read.c
   decode_in_row): their qualifiers with zero bytes, empty or not, come
   back whole from a scan, in qualifier order, flushed or not. */
static void check_plain_rows_binary_qualifiers(kv_store *s) {
    static const char qs[][4] = {{'\0'}, {'a', '\0', '\0', 'c'}, {'a', '\0', 'b'}, {'x'}};
    static const size_t qlens[] = {0, 4, 3, 1};
    static const char *rows[] = {"pq1", "pq2"};
    for (size_t r = 0; r < 2; r++)
        for (size_t q = 0; q < 4; q++) {
            char v[8];
            int n = snprintf(v, sizeof v, "v%zu%zu", r, q);
            CHECK_EQ(kv_put(s, "t", rows[r], 3, "cf", qs[q], qlens[q], 5, v, (size_t)n, NULL), KV_OK);
        }
    kv_read_options ro = KV_READ_OPTIONS_INIT;
    ro.start_row = "pq1";
    ro.start_row_len = 3;
    ro.stop_row = "pq3";
    ro.stop_row_len = 3;
    kv_scan *sc = NULL;
    REQUIRE(kv_scan_open(&sc, s, "t", &ro) == KV_OK);
    const kv_result *res;
    size_t nrows = 0;
    while (kv_scan_next(&res, sc) == KV_OK) {
        REQUIRE(nrows < 2);
        CHECK(res->row_len == 3 && memcmp(res->row, rows[nrows], 3) == 0);
        REQUIRE(res->ncells == 4u);
        for (size_t q = 0; q < 4; q++) {
            const kv_cell *c = &res->cells[q];
            char v[8];
            int n = snprintf(v, sizeof v, "v%zu%zu", nrows, q);
            CHECK(c->qualifier_len == qlens[q] && memcmp(c->qualifier, qs[q], qlens[q]) == 0);
            CHECK(c->value_len == (size_t)n && memcmp(c->value, v, (size_t)n) == 0);
            CHECK(c->row_len == 3 && memcmp(c->row, rows[nrows], 3) == 0 && c->timestamp == 5);
        }
        nrows++;
    }
    CHECK_EQ(nrows, 2u);
    kv_scan_close(sc);
}

/* A get hashes its row once and probes every file's row filter with that
   hash, in each of its families: rows that lie only in sorted files (one
   batch a flush, the oldest first), in two families, are all found, and rows
   never written are not. */
static void check_row_hash_across_files(void) {
    char *dir = test_tmpdir("readpath-rowhash");
    kv_family_desc f[2] = {KV_FAMILY_DESC_INIT, KV_FAMILY_DESC_INIT};
    snprintf(f[0].name, sizeof f[0].name, "a");
    snprintf(f[1].name, sizeof f[1].name, "b");
    f[0].bloom = f[1].bloom = KV_BLOOM_ROW;
    kv_store_options o = KV_STORE_OPTIONS_INIT;
    o.create_if_missing = true;
    kv_store *s = NULL;
    char msg[300];
    REQUIRE(kv_store_open(&s, dir, &o, msg, sizeof msg) == KV_OK);
    REQUIRE(kv_table_create(s, "t", f, 2) == KV_OK);
    char row[16];
    for (int i = 0; i < 400; i++) {
        int n = snprintf(row, sizeof row, "h%04d", i);
        CHECK_EQ(kv_put(s, "t", row, (size_t)n, "a", "q", 1, 1, row, (size_t)n, NULL), KV_OK);
        CHECK_EQ(kv_put(s, "t", row, (size_t)n, "b", "q", 1, 1, "b", 1, NULL), KV_OK);
        if (i % 100 == 99) CHECK_EQ(kv_flush(s, "t"), KV_OK);
    }
    for (int i = 0; i < 420; i++) {
        /* 400..419 were never written */
        int n = snprintf(row, sizeof row, "h%04d", i);
        kv_result *g = NULL;
        REQUIRE(kv_get(&g, s, "t", row, (size_t)n, NULL) == KV_OK);
        CHECK_EQ(g->ncells, i < 400 ? 2u : 0u);
        if (g->ncells == 2u)
            CHECK(g->cells[0].value_len == (size_t)n && memcmp(g->cells[0].value, row, (size_t)n) == 0);
        kv_result_free(g);
    }
    CHECK_EQ(kv_store_close(s), KV_OK);
    test_rmtree(dir);
    free(dir);
}

/* A scan returns memstore values where they lie in the memstore: each row
   must still read right when the memstore is flushed, and written over,
   between two kv_scan_next calls (the scan keeps the memstore it read). */
static void check_scan_across_flush(void) {
    char *dir = test_tmpdir("readpath-flush");
    kv_store *s = open_store(dir);
    char row[16], val[64];
    for (int i = 0; i < 200; i++) {
        snprintf(row, sizeof row, "f%03d", i);
        snprintf(val, sizeof val, "value of %s, the first", row);
        put(s, row, "q", 1, val);
    }
    kv_read_options o = KV_READ_OPTIONS_INIT;
    o.start_row = "f";
    o.start_row_len = 1;
    kv_scan *sc = NULL;
    REQUIRE(kv_scan_open(&sc, s, "t", &o) == KV_OK);
    const kv_result *r;
    int n = 0;
    kv_status st;
    while ((st = kv_scan_next(&r, sc)) == KV_OK && r->row_len == 4 && r->row[0] == 'f') {
        snprintf(row, sizeof row, "f%03d", n);
        snprintf(val, sizeof val, "value of %s, the first", row);
        CHECK_EQ(r->ncells, 1);
        CHECK(r->ncells == 1 && r->cells[0].value_len == strlen(val) &&
              memcmp(r->cells[0].value, val, strlen(val)) == 0);
        /* every 50 rows: the rows read so far written over, and flushed */
        if (n % 50 == 25) {
            for (int i = 0; i <= n; i++) {
                snprintf(row, sizeof row, "f%03d", i);
                put(s, row, "q", 1, "written over after the scan began");
            }
            CHECK_EQ(kv_flush(s, "t"), KV_OK);
            /* the row returned last is still what it was */
            CHECK(r->cells[0].value_len == strlen(val) && memcmp(r->cells[0].value, val, strlen(val)) == 0);
        }
        n++;
    }
    CHECK_EQ(n, 200);
    kv_scan_close(sc);
    CHECK_EQ(kv_store_close(s), KV_OK);
    test_rmtree(dir);
    free(dir);
}

/* A get of [min, max) in column q of row: the timestamps it returns
   (up to 4, newest first), their number. */
static size_t range_get(kv_store *s, const char *row, const char *q, int64_t min, int64_t max,
                        int32_t versions, int64_t ts[4]) {
    kv_column col = {"cf", q, strlen(q)};
    kv_read_options ro = KV_READ_OPTIONS_INIT;
    ro.columns = &col;
    ro.ncolumns = 1;
    ro.time_min = min;
    ro.time_max = max;
    ro.max_versions = versions;
    kv_result *r = NULL;
    REQUIRE(kv_get(&r, s, "t", row, strlen(row), &ro) == KV_OK);
    size_t n = r->ncells;
    for (size_t i = 0; i < n && i < 4; i++) ts[i] = r->cells[i].timestamp;
    kv_result_free(r);
    return n;
}

/* A time-range get seeks a column past its versions above the range only
   when no source holds a DeleteColumn marker at or above the range's end:
   a marker in a sorted file (or the memstore) still masks the range when
   the newer versions lie in another source, and cells come back right
   when nothing masks them. */
static void check_range_seek(void) {
    char *dir = test_tmpdir("readpath-range");
    kv_store *s = open_store(dir);
    int64_t ts[4];
    /* a: versions 1..10 flushed, then a DeleteColumn at 8 flushed (a flush
       drops the puts a marker masks: they must lie in another file), then
       11..20 in the memstore (which holds no marker) */
    for (int t = 1; t <= 10; t++) put(s, "a", "q", t, "a");
    /* c: no marker anywhere; versions 1..10 flushed, 11..20 in the memstore */
    for (int t = 1; t <= 10; t++) put(s, "c", "q", t, "c");
    CHECK_EQ(kv_flush(s, "t"), KV_OK);
    delete_column(s, "a", "q", 8);
    CHECK_EQ(kv_flush(s, "t"), KV_OK);
    for (int t = 11; t <= 20; t++) {
        put(s, "a", "q", t, "a");
        put(s, "c", "q", t, "c");
    }
    for (int pass = 0; pass < 2; pass++) {
        /* a: the marker at 8 (in a file) masks [3, 6) and [3, 9) ... */
        CHECK_EQ(range_get(s, "a", "q", 3, 6, 1, ts), 0);
        CHECK_EQ(range_get(s, "a", "q", 3, 9, 1, ts), 0);
        /* ... but not 9..11 of [3, 12) */
        CHECK(range_get(s, "a", "q", 3, 12, 4, ts) == 3 && ts[0] == 11 && ts[2] == 9);
        /* c: nothing masks: the newest versions in the range */
        CHECK(range_get(s, "c", "q", 4, 7, 2, ts) == 2 && ts[0] == 6 && ts[1] == 5);
        CHECK(range_get(s, "c", "q", 12, 15, 4, ts) == 3 && ts[0] == 14 && ts[2] == 12);
        CHECK(range_get(s, "c", "q", 9, 13, 4, ts) == 4 && ts[0] == 12 && ts[3] == 9);
        CHECK(range_get(s, "c", "q", 25, 30, 1, ts) == 0);
        CHECK(range_get(s, "c", "q", INT64_MIN, INT64_MIN + 1, 1, ts) == 0);
        /* the same with every source a file */
        CHECK_EQ(kv_flush(s, "t"), KV_OK);
    }
    /* b: versions 1..20 flushed, a DeleteColumn at 15 in the memstore,
       then flushed too */
    for (int t = 1; t <= 20; t++) put(s, "b", "q", t, "b");
    CHECK_EQ(kv_flush(s, "t"), KV_OK);
    delete_column(s, "b", "q", 15);
    for (int pass = 0; pass < 2; pass++) {
        CHECK_EQ(range_get(s, "b", "q", 2, 12, 1, ts), 0);
        CHECK_EQ(range_get(s, "b", "q", 2, 16, 1, ts), 0);
        CHECK(range_get(s, "b", "q", 2, 18, 3, ts) == 2 && ts[0] == 17 && ts[1] == 16);
        CHECK(range_get(s, "c", "q", 4, 7, 2, ts) == 2 && ts[0] == 6 && ts[1] == 5);
        CHECK_EQ(kv_flush(s, "t"), KV_OK);
    }
    /* d: versions 1..10 flushed, a DeleteFamily at 5 in the memstore, then
       flushed too: a get of one column must still read the row's family
       markers, which lead the row */
    for (int t = 1; t <= 10; t++) put(s, "d", "q", t, "d");
    CHECK_EQ(kv_flush(s, "t"), KV_OK);
    kv_mutation *m = NULL;
    REQUIRE(kv_mutation_new(&m, "d", 1) == KV_OK);
    CHECK_EQ(kv_mutation_delete_family(m, "cf", 5), KV_OK);
    CHECK_EQ(kv_mutate(s, "t", m, NULL), KV_OK);
    kv_mutation_free(m);
    for (int pass = 0; pass < 2; pass++) {
        CHECK(range_get(s, "d", "q", 3, 8, 4, ts) == 2 && ts[0] == 7 && ts[1] == 6);
        CHECK_EQ(range_get(s, "d", "q", 1, 6, 4, ts), 0);
        CHECK(range_get(s, "c", "q", 4, 7, 2, ts) == 2 && ts[0] == 6 && ts[1] == 5);
        CHECK_EQ(kv_flush(s, "t"), KV_OK);
    }
    CHECK_EQ(kv_store_close(s), KV_OK);
    test_rmtree(dir);
    free(dir);
}

/* A row-level marker of family cf at ts in row (DeleteFamily, or with
   version DeleteFamilyVersion). */
static void delete_family(kv_store *s, const char *row, int64_t ts, bool version) {
    kv_mutation *m = NULL;
    REQUIRE(kv_mutation_new(&m, row, strlen(row)) == KV_OK);
    CHECK_EQ(version ? kv_mutation_delete_family_version(m, "cf", ts)
                     : kv_mutation_delete_family(m, "cf", ts),
             KV_OK);
    CHECK_EQ(kv_mutate(s, "t", m, NULL), KV_OK);
    kv_mutation_free(m);
}

/* A get of one column with no time range goes straight to the column
   when no source holds a family-level marker: the columns before it are
   not read, and a family marker in any source (memstore or file, with the
   newer versions in another) still masks it. */
static void check_column_seek(void) {
    char *dir = test_tmpdir("readpath-column");
    kv_store *s = open_store(dir);
    int64_t ts[4];
    char big[600];
    memset(big, 'b', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    /* w: column b (many blocks of versions) before column s, then z */
    for (int t = 1; t <= 10; t++) {
        put(s, "w", "b", t, big);
        put(s, "w", "s", t, "s");
    }
    put(s, "x", "a", 1, "x");
    for (int pass = 0; pass < 2; pass++) {
        CHECK(range_get(s, "w", "s", INT64_MIN, INT64_MAX, 4, ts) == 4 && ts[0] == 10 && ts[3] == 7);
        CHECK(range_get(s, "w", "b", INT64_MIN, INT64_MAX, 2, ts) == 2 && ts[0] == 10 && ts[1] == 9);
        CHECK_EQ(range_get(s, "w", "m", INT64_MIN, INT64_MAX, 4, ts), 0);   /* between b and s */
        CHECK_EQ(range_get(s, "w", "z", INT64_MIN, INT64_MAX, 4, ts), 0);   /* after the row's last */
        CHECK_EQ(range_get(s, "v", "s", INT64_MIN, INT64_MAX, 4, ts), 0);   /* an absent row */
        CHECK_EQ(kv_flush(s, "t"), KV_OK);
    }
    /* a DeleteFamily at 8 in the memstore, then in a file while the
       memstore holds newer versions and no marker */
    delete_family(s, "w", 8, false);
    CHECK(range_get(s, "w", "s", INT64_MIN, INT64_MAX, 4, ts) == 2 && ts[0] == 10 && ts[1] == 9);
    CHECK_EQ(kv_flush(s, "t"), KV_OK);
    CHECK(range_get(s, "w", "s", INT64_MIN, INT64_MAX, 4, ts) == 2 && ts[0] == 10 && ts[1] == 9);
    put(s, "w", "s", 11, "s");
    put(s, "w", "s", 7, "s");   /* below the marker: masked */
    CHECK(range_get(s, "w", "s", INT64_MIN, INT64_MAX, 4, ts) == 3 && ts[0] == 11 && ts[2] == 9);
    /* a DeleteFamilyVersion at 10, in the memstore then in a file */
    delete_family(s, "w", 10, true);
    for (int pass = 0; pass < 2; pass++) {
        CHECK(range_get(s, "w", "s", INT64_MIN, INT64_MAX, 4, ts) == 2 && ts[0] == 11 && ts[1] == 9);
        CHECK(range_get(s, "w", "b", INT64_MIN, INT64_MAX, 4, ts) == 1 && ts[0] == 9);
        CHECK_EQ(kv_flush(s, "t"), KV_OK);
    }
    CHECK(range_get(s, "x", "a", INT64_MIN, INT64_MAX, 4, ts) == 1 && ts[0] == 1);
    CHECK_EQ(kv_store_close(s), KV_OK);
    test_rmtree(dir);
    free(dir);
}

/* A whole-row get in a family of VERSIONS 1 steps one entry past each
   column before it seeks: older versions of a column in the same source
   (a file written before the family went to VERSIONS 1) or in other
   sources still never show, and every column of the row does. */
static void check_versions_one_row_get(void) {
    char *dir = test_tmpdir("readpath-v1");
    kv_store *s = open_store(dir);   /* VERSIONS 40 */
    /* r: columns a, b, c with 5 versions each in one file, a DeleteColumn
       of b at 2 and newer a in a second file, a newest c in the memstore */
    for (int t = 1; t <= 5; t++) {
        put(s, "r", "a", t, "a");
        put(s, "r", "b", t, "b");
        put(s, "r", "c", t, "c");
        put(s, "q", "a", t, "q");
        put(s, "s", "a", t, "s");
    }
    CHECK_EQ(kv_flush(s, "t"), KV_OK);
    kv_family_desc f = KV_FAMILY_DESC_INIT;
    snprintf(f.name, sizeof f.name, "cf");
    f.versions = 1;
    f.blocksize = 1024;
    CHECK_EQ(kv_table_alter_family(s, "t", &f), KV_OK);
    put(s, "r", "a", 7, "a");
    delete_column(s, "r", "b", 9);
    put(s, "r", "b", 8, "b");   /* masked: below the marker */
    CHECK_EQ(kv_flush(s, "t"), KV_OK);
    put(s, "r", "c", 6, "c");
    for (int pass = 0; pass < 2; pass++) {
        kv_result *r = NULL;
        REQUIRE(kv_get(&r, s, "t", "r", 1, NULL) == KV_OK);
        CHECK_EQ(r->ncells, 2);
        if (r->ncells == 2) {
            CHECK(r->cells[0].qualifier_len == 1 && ((const char *)r->cells[0].qualifier)[0] == 'a' &&
                  r->cells[0].timestamp == 7);
            CHECK(r->cells[1].qualifier_len == 1 && ((const char *)r->cells[1].qualifier)[0] == 'c' &&
                  r->cells[1].timestamp == 6);
        }
        kv_result_free(r);
        REQUIRE(kv_get(&r, s, "t", "q", 1, NULL) == KV_OK);
        CHECK(r->ncells == 1 && r->cells[0].timestamp == 5);
        kv_result_free(r);
        CHECK_EQ(kv_flush(s, "t"), KV_OK);
    }
    CHECK_EQ(kv_store_close(s), KV_OK);
    test_rmtree(dir);
    free(dir);
}

/* A get of one column reads the sorted file with the newest timestamps
   first and leaves out the files whose timestamps all lie below the
   versions it found (HBase's lazy seek): counted by the env's reads, with
   no block cache. It still reads them when they may matter: a version
   found at a timestamp equal to another file's newest (a later put there
   replaces it), too few versions, a marker in an older file, NEW_VERSION_
   BEHAVIOR, a time range, a raw read. */
static kv_store *open_counted(const char *dir, kv_fault_env *fe, bool nvb) {
    kv_local_options lo = KV_LOCAL_OPTIONS_INIT;
    lo.env = kv_fault_env_env(fe);
    lo.block_cache_size = 0;
    lo.compaction = KV_COMPACTION_MANUAL;
    kv_family_desc f = KV_FAMILY_DESC_INIT;
    snprintf(f.name, sizeof f.name, "cf");
    f.versions = 3;
    f.new_version_behavior = nvb;
    return open_table(dir, &lo, &f);
}

/* The cells of a get of cf:q (VERSIONS versions, time range [min, max),
   raw or not), their timestamps and values' first letters in ts[] and
   v[]; *reads: the env's reads it made. */
static size_t counted_get(kv_store *s, kv_fault_env *fe, const char *q, int32_t versions, int64_t min,
                          int64_t max, bool raw, int64_t ts[4], char v[4], uint64_t *reads) {
    kv_column col = {"cf", q, strlen(q)};
    kv_read_options ro = KV_READ_OPTIONS_INIT;
    ro.columns = &col;
    ro.ncolumns = 1;
    ro.max_versions = versions;
    ro.time_min = min;
    ro.time_max = max;
    ro.raw = raw;
    uint64_t before = kv_fault_env_calls(fe, "read_at");
    kv_result *r = NULL;
    REQUIRE(kv_get(&r, s, "t", "r", 1, &ro) == KV_OK);
    *reads = kv_fault_env_calls(fe, "read_at") - before;
    size_t n = r->ncells;
    for (size_t i = 0; i < n && i < 4; i++) {
        ts[i] = r->cells[i].timestamp;
        v[i] = r->cells[i].value_len ? ((const char *)r->cells[i].value)[0] : (char)r->cells[i].type;
    }
    kv_result_free(r);
    return n;
}

static void check_timestamp_skip(void) {
    for (int nvb = 0; nvb < 2; nvb++) {
        char *dir = test_tmpdir("readpath-tsskip");
        kv_fault_env *fe = kv_fault_env_new(kv_env_posix());
        REQUIRE(fe != NULL);
        kv_store *s = open_counted(dir, fe, nvb);
        /* file 1 (oldest): a@100, and a DeleteColumn of b at 150 over b@120;
           c@50; file 2: a@200, b@250, c@60, e@300 "old";
           file 3 (newest): c@1000 (its max), e@300 "new" */
        put(s, "r", "a", 100, "x");
        put(s, "r", "b", 120, "x");
        put(s, "r", "c", 50, "x");
        delete_column(s, "r", "b", 150);
        CHECK_EQ(kv_flush(s, "t"), KV_OK);
        put(s, "r", "a", 200, "y");
        put(s, "r", "b", 250, "y");
        put(s, "r", "c", 60, "y");
        put(s, "r", "e", 300, "o");
        CHECK_EQ(kv_flush(s, "t"), KV_OK);
        put(s, "r", "e", 300, "n");
        put(s, "r", "c", 1000, "z");
        CHECK_EQ(kv_flush(s, "t"), KV_OK);
        int64_t ts[4];
        char v[4];
        uint64_t one, all;
        size_t n;
        /* c: its newest version in file 3, above the others' max (300):
           they are not read; VERSIONS 3 reads them */
        REQUIRE(counted_get(s, fe, "c", 3, KV_TIME_MIN, KV_TIME_MAX, false, ts, v, &all) == 3);
        CHECK(ts[0] == 1000 && ts[1] == 60 && ts[2] == 50);
        REQUIRE(counted_get(s, fe, "c", 1, KV_TIME_MIN, KV_TIME_MAX, false, ts, v, &one) == 1);
        CHECK(ts[0] == 1000 && v[0] == 'z');
        if (one >= all)
            fprintf(stderr, "a get of the newest version read %" PRIu64 " times, of two %" PRIu64 "\n",
                    one, all);
        CHECK(one < all);
        /* a: in files 1 and 2, not 3 */
        REQUIRE(counted_get(s, fe, "a", 2, KV_TIME_MIN, KV_TIME_MAX, false, ts, v, &all) == 2);
        CHECK(ts[0] == 200 && ts[1] == 100);
        REQUIRE(counted_get(s, fe, "a", 1, KV_TIME_MIN, KV_TIME_MAX, false, ts, v, &one) == 1);
        CHECK(ts[0] == 200 && v[0] == 'y');
        /* b: the marker in file 1 masks b@120, not b@250 */
        REQUIRE(counted_get(s, fe, "b", 1, KV_TIME_MIN, KV_TIME_MAX, false, ts, v, &one) == 1);
        CHECK(ts[0] == 250);
        CHECK_EQ(counted_get(s, fe, "b", 3, KV_TIME_MIN, KV_TIME_MAX, false, ts, v, &one), 1);
        /* e@300 in files 2 and 3: the later put wins whichever is read first */
        REQUIRE(counted_get(s, fe, "e", 1, KV_TIME_MIN, KV_TIME_MAX, false, ts, v, &one) == 1);
        CHECK(ts[0] == 300 && v[0] == 'n');
        /* time ranges: below file 2, and above file 1 (not read at all) */
        REQUIRE(counted_get(s, fe, "a", 3, 0, 150, false, ts, v, &one) == 1);
        CHECK(ts[0] == 100);
        REQUIRE(counted_get(s, fe, "a", 3, 160, 2000, false, ts, v, &one) == 1);
        CHECK(ts[0] == 200);
        /* raw: the marker and the masked put are shown */
        n = counted_get(s, fe, "b", 3, KV_TIME_MIN, KV_TIME_MAX, true, ts, v, &one);
        CHECK(n >= 2 && ts[0] == 250 && ts[1] == 150);
        /* a newer file whose max is below: a DeleteColumn of a at 50 (file
           4) neither masks a@200 nor, NVB or not, a@100 (at 100 > 50) */
        delete_column(s, "r", "a", 50);
        CHECK_EQ(kv_flush(s, "t"), KV_OK);
        CHECK_EQ(counted_get(s, fe, "a", 3, KV_TIME_MIN, KV_TIME_MAX, false, ts, v, &one), 2);
        /* file 5: a DeleteColumn of a at 100 masks a@100 only without
           NEW_VERSION_BEHAVIOR... written after it, it masks it either way */
        delete_column(s, "r", "a", 100);
        CHECK_EQ(kv_flush(s, "t"), KV_OK);
        REQUIRE(counted_get(s, fe, "a", 3, KV_TIME_MIN, KV_TIME_MAX, false, ts, v, &one) == 1);
        CHECK(ts[0] == 200);
        /* under NVB a put written after a marker at its timestamp shows */
        put(s, "r", "a", 90, "w");
        CHECK_EQ(kv_flush(s, "t"), KV_OK);
        n = counted_get(s, fe, "a", 3, KV_TIME_MIN, KV_TIME_MAX, false, ts, v, &one);
        CHECK_EQ(n, nvb ? 2u : 1u);
        if (n == 2) CHECK(ts[1] == 90 && v[1] == 'w');
        /* g@2000 in files 6 and 7; file 8 (newest, max 3000) is read,
           file 7 (max 2000) waits, file 6 (max 5000) is read: g@2000 there
           is not above file 7's max, where a later put of it replaces it */
        put(s, "r", "g", 2000, "o");
        put(s, "r", "h", 5000, "o");
        CHECK_EQ(kv_flush(s, "t"), KV_OK);
        put(s, "r", "g", 2000, "n");
        CHECK_EQ(kv_flush(s, "t"), KV_OK);
        put(s, "r", "k", 3000, "k");
        CHECK_EQ(kv_flush(s, "t"), KV_OK);
        REQUIRE(counted_get(s, fe, "g", 1, KV_TIME_MIN, KV_TIME_MAX, false, ts, v, &one) == 1);
        CHECK(ts[0] == 2000 && v[0] == 'n');
        CHECK_EQ(kv_store_close(s), KV_OK);
        kv_fault_env_free(fe);
        test_rmtree(dir);
        free(dir);
    }
}

/* The cells a get of row r of table t finds (column cf:q, or the whole
   row when q is NULL; at most versions each), or -1 with *st set. */
static long cached_get(kv_store *s, const char *t, const char *q, int32_t versions, kv_status *st) {
    kv_column col = {"cf", q, q ? strlen(q) : 0};
    kv_read_options ro = KV_READ_OPTIONS_INIT;
    ro.columns = q ? &col : NULL;
    ro.ncolumns = q ? 1 : 0;
    ro.max_versions = versions;
    kv_result *r = NULL;
    *st = kv_get(&r, s, t, "r", 1, &ro);
    long n = *st == KV_OK ? (long)r->ncells : -1;
    kv_result_free(r);
    return n;
}

/* A get keeps what it looked up of the catalog for the next get of the
   same table: every catalog change in between is seen (disable, alter,
   a family deleted, the table dropped and made again under its name). */
static void check_catalog_changes(void) {
    char *dir = test_tmpdir("readpath-catalog");
    kv_store *s = open_store(dir);
    kv_family_desc g = KV_FAMILY_DESC_INIT;
    snprintf(g.name, sizeof g.name, "g");
    CHECK_EQ(kv_table_create(s, "u", &g, 1), KV_OK);
    for (int ts = 1; ts <= 3; ts++) put(s, "r", "a", ts, "v");
    kv_status st;
    CHECK_EQ(cached_get(s, "t", "a", 5, &st), 3);
    CHECK_EQ(cached_get(s, "default:t", "a", 5, &st), 3);
    CHECK_EQ(cached_get(s, "u", NULL, 5, &st), 0);
    CHECK_EQ(cached_get(s, "t", "a", 5, &st), 3);
    /* disabled, then enabled again */
    CHECK_EQ(kv_table_disable(s, "t"), KV_OK);
    CHECK_EQ(cached_get(s, "t", "a", 5, &st), -1);
    CHECK_EQ(st, KV_DISABLED);
    CHECK_EQ(kv_table_enable(s, "t"), KV_OK);
    CHECK_EQ(cached_get(s, "t", "a", 5, &st), 3);
    /* VERSIONS lowered: reads that start afterwards return one */
    kv_family_desc f = KV_FAMILY_DESC_INIT;
    snprintf(f.name, sizeof f.name, "cf");
    f.versions = 1;
    CHECK_EQ(kv_table_alter_family(s, "t", &f), KV_OK);
    CHECK_EQ(cached_get(s, "t", "a", 5, &st), 1);
    /* the family deleted (another one added first: a table keeps one) */
    CHECK_EQ(kv_table_alter_family(s, "t", &g), KV_OK);
    CHECK_EQ(kv_table_delete_family(s, "t", "cf"), KV_OK);
    CHECK_EQ(cached_get(s, "t", "a", 5, &st), -1);
    CHECK_EQ(st, KV_NO_FAMILY);
    /* dropped, then made again with cf: empty */
    CHECK_EQ(kv_table_disable(s, "t"), KV_OK);
    CHECK_EQ(kv_table_drop(s, "t"), KV_OK);
    CHECK_EQ(cached_get(s, "t", NULL, 5, &st), -1);
    CHECK_EQ(st, KV_NOT_FOUND);
    CHECK_EQ(kv_table_create(s, "t", &f, 1), KV_OK);
    CHECK_EQ(cached_get(s, "t", "a", 5, &st), 0);
    CHECK_EQ(cached_get(s, "t", NULL, 5, &st), 0);
    put(s, "r", "a", 9, "w");
    CHECK_EQ(cached_get(s, "t", "a", 5, &st), 1);
    CHECK_EQ(kv_store_close(s), KV_OK);
    test_rmtree(dir);
    free(dir);
}

/* A read stops at its row's end (issue 9, kvnextrow): a get of a column
   that sorts after the last cell of its row, and a scan that stops before
   the next row, read no unit of the next row, whatever that row holds (a
   4 MiB value here, a unit of its own, read whole and checksummed if it
   were touched); nor does a get or a scan of the next row read a unit
   of the row before. Counted in bytes by an env that wraps the POSIX one,
   without a block cache, in a sorted file written by a flush and by a
   major compaction; every read still returns what it did. */
static uint64_t bytes_read;   /* by counting_env's reads */

static kv_status counting_read_at(kv_file *f, uint64_t offset, void *buf, size_t n, size_t *got, char *err,
                                  size_t errlen) {
    kv_status st = kv_env_posix()->read_at(f, offset, buf, n, got, err, errlen);
    if (st == KV_OK) bytes_read += *got;
    return st;
}

static kv_status counting_read_at_around(kv_file *f, uint64_t offset, void *buf, size_t n, uint64_t around_off,
                                         size_t around_len, size_t *got, char *err, size_t errlen) {
    kv_status st = kv_env_posix()->read_at_around(f, offset, buf, n, around_off, around_len, got, err, errlen);
    if (st == KV_OK) bytes_read += *got;
    return st;
}

/* A get of row's column cf:q (q NULL: of the whole row; "": of family cf,
   all versions, raw), *bytes: what it read. */
static size_t bytes_of_get(kv_store *s, const char *row, const char *q, uint64_t *bytes, size_t *vlen) {
    kv_column col = {"cf", q && *q ? q : NULL, q ? strlen(q) : 0};
    kv_read_options ro = KV_READ_OPTIONS_INIT;
    ro.columns = q ? &col : NULL;
    ro.ncolumns = q ? 1 : 0;
    if (q && !*q) {
        ro.max_versions = INT32_MAX;
        ro.raw = true;
    }
    uint64_t before = bytes_read;
    kv_result *r = NULL;
    REQUIRE(kv_get(&r, s, "t", row, strlen(row), &ro) == KV_OK);
    *bytes = bytes_read - before;
    size_t n = r->ncells;
    *vlen = n ? r->cells[0].value_len : 0;
    kv_result_free(r);
    return n;
}

static size_t bytes_of_scan(kv_store *s, const char *start, const char *stop, uint64_t *bytes) {
    kv_read_options ro = KV_READ_OPTIONS_INIT;
    ro.start_row = start;
    ro.start_row_len = strlen(start);
    ro.stop_row = stop;
    ro.stop_row_len = strlen(stop);
    uint64_t before = bytes_read;
    kv_scan *sc = NULL;
    REQUIRE(kv_scan_open(&sc, s, "t", &ro) == KV_OK);
    size_t cells = 0;
    const kv_result *r = NULL;
    kv_status st;
    while ((st = kv_scan_next(&r, sc)) == KV_OK) cells += r->ncells;
    CHECK_EQ(st, KV_END);
    kv_scan_close(sc);
    *bytes = bytes_read - before;
    return cells;
}

static void check_stops_at_row_end(void) {
    char *dir = test_tmpdir("readpath-rowend");
    kv_env env = *kv_env_posix();
    env.read_at = counting_read_at;
    if (env.read_at_around) env.read_at_around = counting_read_at_around;
    kv_local_options lo = KV_LOCAL_OPTIONS_INIT;
    lo.env = &env;
    lo.block_cache_size = 0;
    lo.compaction = KV_COMPACTION_MANUAL;
    kv_family_desc f = KV_FAMILY_DESC_INIT;
    snprintf(f.name, sizeof f.name, "cf");
    kv_store *s = open_table(dir, &lo, &f);
    size_t big = (size_t)4 << 20;
    char *v = malloc(big);
    REQUIRE(v != NULL);
    memset(v, 'b', big);
    put(s, "a", "m", 10, "small");
    CHECK_EQ(kv_put(s, "t", "b", 1, "cf", "big", 3, 10, v, big, NULL), KV_OK);
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 0) CHECK_EQ(kv_flush(s, "t"), KV_OK);
        else CHECK_EQ(kv_compact(s, "t", true), KV_OK);
        uint64_t before, hit, after, scan;
        size_t vlen;
        CHECK_EQ(bytes_of_get(s, "a", "0before", &before, &vlen), 0u);
        CHECK_EQ(bytes_of_get(s, "a", "m", &hit, &vlen), 1u);
        CHECK_EQ(vlen, 5u);
        CHECK_EQ(bytes_of_get(s, "a", "zafter", &after, &vlen), 0u);
        if (after >= big || hit >= big || before >= big)
            fprintf(stderr, "pass %d: gets in row a read %" PRIu64 " bytes (a column before its first), %" PRIu64
                    " (its cell), %" PRIu64 " (a column after its last)\n", pass, before, hit, after);
        CHECK(after < big && hit < big && before < big);
        /* the whole row, and its family raw with all versions */
        uint64_t row, fam;
        CHECK_EQ(bytes_of_get(s, "a", NULL, &row, &vlen), 1u);
        CHECK_EQ(bytes_of_get(s, "a", "", &fam, &vlen), 1u);
        if (row >= big || fam >= big)
            fprintf(stderr, "pass %d: gets of row a read %" PRIu64 " bytes (whole), %" PRIu64 " (family, raw)\n",
                    pass, row, fam);
        CHECK(row < big && fam < big);
        /* a scan of row a alone (stop row b) */
        CHECK_EQ(bytes_of_scan(s, "a", "b", &scan), 1u);
        if (scan >= big)
            fprintf(stderr, "pass %d: a scan of [a, b) read %" PRIu64 " bytes\n", pass, scan);
        CHECK(scan < big);
        /* the next row reads as it did, and no unit of row a */
        CHECK_EQ(bytes_of_get(s, "b", "big", &hit, &vlen), 1u);
        CHECK_EQ(vlen, big);
        CHECK(hit >= big);
        CHECK_EQ(bytes_of_get(s, "b", NULL, &row, &vlen), 1u);
        if (row != hit)
            fprintf(stderr, "pass %d: a get of row b read %" PRIu64 " bytes, of its column %" PRIu64 "\n",
                    pass, row, hit);
        CHECK_EQ(row, hit);
        CHECK_EQ(bytes_of_scan(s, "b", "c", &scan), 1u);
        CHECK_EQ(scan, hit);
        CHECK_EQ(bytes_of_scan(s, "a", "c", &scan), 2u);
        CHECK(scan >= big);
    }
    free(v);
    CHECK_EQ(kv_store_close(s), KV_OK);
    test_rmtree(dir);
    free(dir);
}

int main(void) {
    check_catalog_changes();
    check_row_hash_across_files();
    check_scan_across_flush();
    check_range_seek();
    check_column_seek();
    check_versions_one_row_get();
    check_timestamp_skip();
    check_stops_at_row_end();
    for (int mode = 0; mode < 3; mode++) {
        char *dir = test_tmpdir("readpath");
        kv_store *s = open_store(dir);
        load(s, mode == 2);
        if (mode == 1) CHECK_EQ(kv_flush(s, "t"), KV_OK);
        check_gets(s);
        check_scans(s);
        check_binary_rows(s);
        check_plain_rows_binary_qualifiers(s);
        if (mode == 1) {
            CHECK_EQ(kv_flush(s, "t"), KV_OK);
            check_plain_rows_binary_qualifiers(s);
        }
        CHECK_EQ(kv_store_close(s), KV_OK);
        test_rmtree(dir);
        free(dir);
    }
    return test_finish("test_read_path");
}
