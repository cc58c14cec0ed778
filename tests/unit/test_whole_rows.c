/*
 * A forward scan of one family's whole rows with one version and no filter
 * or column list takes a row whose columns each start with a kept put
 * without the general loop (read.c whole_row). Every case it must hand
 * back to the general loop keeps HBase's answer: delete markers (of a
 * version, a column, the family) in another file or the memstore, the same
 * key in two files, older versions in other files, TTL, time ranges, puts
 * made after the scan opened, zero bytes in rows and qualifiers, limits and
 * stop rows. Each scan is checked against the rows written and against the
 * same scan read in parts (kv_scan_set_batch: the general loop). Through
 * kvcore.h only.
 */
#include "kvcore.h"
#include "teststore.h"

#include <time.h>

#define TTL_SECONDS 3600

static kv_store *open_store(const char *dir, int64_t ttl_seconds) {
    kv_store *s = test_open_store(dir, NULL);
    kv_family_desc f = KV_FAMILY_DESC_INIT;
    snprintf(f.name, sizeof f.name, "cf");
    f.versions = 3;
    f.ttl_seconds = ttl_seconds;
    f.blocksize = 1024;
    REQUIRE(kv_table_create(s, "t", &f, 1) == KV_OK);
    return s;
}

static void put_bytes(kv_store *s, const char *row, size_t row_len, const char *q, size_t q_len, int64_t ts,
                      const char *v) {
    CHECK_EQ(kv_put(s, "t", row, row_len, "cf", q, q_len, ts, v, strlen(v), NULL), KV_OK);
}

static void put(kv_store *s, const char *row, const char *q, int64_t ts, const char *v) {
    put_bytes(s, row, strlen(row), q, strlen(q), ts, v);
}

/* Applies one delete of kind 'v' (a version), 'c' (a column) or 'f' (the
   family) at ts. */
static void delete_at(kv_store *s, const char *row, char kind, const char *q, int64_t ts) {
    kv_mutation *m = NULL;
    REQUIRE(kv_mutation_new(&m, row, strlen(row)) == KV_OK);
    kv_status st = kind == 'v'   ? kv_mutation_delete_version(m, "cf", q, strlen(q), ts)
                   : kind == 'c' ? kv_mutation_delete_column(m, "cf", q, strlen(q), ts)
                                 : kv_mutation_delete_family(m, "cf", ts);
    CHECK_EQ(st, KV_OK);
    CHECK_EQ(kv_mutate(s, "t", m, NULL), KV_OK);
    kv_mutation_free(m);
}

/* Adds a row's cells to out as "row/q@ts=value;" (zero bytes as '~'). */
static void render_row(test_text *out, const kv_result *r) {
    for (size_t i = 0; i < r->ncells; i++) {
        const kv_cell *c = &r->cells[i];
        for (size_t k = 0; k < c->row_len; k++) test_text_add(out, c->row[k] ? (const char *)&c->row[k] : "~", 1);
        test_text_add(out, "/", 1);
        for (size_t k = 0; k < c->qualifier_len; k++)
            test_text_add(out, c->qualifier[k] ? (const char *)&c->qualifier[k] : "~", 1);
        test_text_printf(out, "@%" PRId64 "=", c->timestamp);
        test_text_add(out, c->value, c->value_len);
        test_text_add(out, ";", 1);
    }
}

/* The whole scan of t with ro (NULL: defaults) as text; read in parts of
   at most batch cells when batch > 0. */
static char *scan_text(kv_store *s, const kv_read_options *ro, size_t batch) {
    kv_scan *sc = NULL;
    REQUIRE(kv_scan_open(&sc, s, "t", ro) == KV_OK);
    if (batch) CHECK_EQ(kv_scan_set_batch(sc, batch), KV_OK);
    test_text out = {0};
    test_text_add(&out, "", 0);
    const kv_result *r;
    kv_status st;
    while ((st = kv_scan_next(&r, sc)) == KV_OK) render_row(&out, r);
    CHECK_EQ(st, KV_END);
    kv_scan_close(sc);
    return out.p;
}

/* Checks that the scan with ro gives expect, and so does the general loop. */
static void check_scan(kv_store *s, const kv_read_options *ro, const char *expect, const char *what) {
    char *fast = scan_text(s, ro, 0);
    char *parts = scan_text(s, ro, 1000);
    if (strcmp(fast, expect) != 0) fprintf(stderr, "%s:\n  got    %s\n  wanted %s\n", what, fast, expect);
    CHECK(strcmp(fast, expect) == 0);
    CHECK(strcmp(fast, parts) == 0);
    free(fast);
    free(parts);
}

static int64_t now_ms(void) {
    struct timespec t;
    REQUIRE(clock_gettime(CLOCK_REALTIME, &t) == 0);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Delete markers in another file or the memstore than the puts they mask,
   and the same key written twice to two files. */
static void check_markers_and_same_keys(void) {
    char *dir = test_tmpdir("wholerows-markers");
    kv_store *s = open_store(dir, KV_FOREVER);
    put(s, "a", "q", 5, "a5");
    put(s, "b", "q", 5, "b5");
    put(s, "c", "q", 4, "c4");
    put(s, "c", "q", 5, "c5");
    put(s, "d", "q", 5, "d5");
    put(s, "e", "q", 5, "e-first");
    put(s, "f", "q1", 5, "f1");
    put(s, "f", "q2", 5, "f2");
    put(s, "f", "q3", 5, "f3");
    CHECK_EQ(kv_flush(s, "t"), KV_OK);
    delete_at(s, "b", 'c', "q", 10);      /* b: all versions */
    delete_at(s, "c", 'v', "q", 5);       /* c: the newest, c4 shows */
    put(s, "e", "q", 5, "e-second");      /* e: the same key, newer */
    delete_at(s, "f", 'c', "q2", 5);      /* f: the middle column */
    CHECK_EQ(kv_flush(s, "t"), KV_OK);
    delete_at(s, "d", 'f', NULL, 6);      /* d: the family, in the memstore */
    check_scan(s, NULL, "a/q@5=a5;c/q@4=c4;e/q@5=e-second;f/q1@5=f1;f/q3@5=f3;", "markers, files and memstore");
    CHECK_EQ(kv_flush(s, "t"), KV_OK);
    check_scan(s, NULL, "a/q@5=a5;c/q@4=c4;e/q@5=e-second;f/q1@5=f1;f/q3@5=f3;", "markers, all in files");
    CHECK_EQ(kv_store_close(s), KV_OK);
    test_rmtree(dir);
    free(dir);
}

/* Older versions in other files; more versions asked; a time range that
   leaves the newest out. */
static void check_versions_and_ranges(void) {
    char *dir = test_tmpdir("wholerows-versions");
    kv_store *s = open_store(dir, KV_FOREVER);
    for (int64_t ts = 1; ts <= 3; ts++) {
        char v[16];
        snprintf(v, sizeof v, "a%" PRId64, ts);
        put(s, "a", "q", ts, v);
        snprintf(v, sizeof v, "b%" PRId64, ts);
        put(s, "b", "q", 4 - ts, v);   /* b: the newest in the first file */
        CHECK_EQ(kv_flush(s, "t"), KV_OK);
    }
    check_scan(s, NULL, "a/q@3=a3;b/q@3=b1;", "newest of three files");
    kv_read_options ro = KV_READ_OPTIONS_INIT;
    ro.max_versions = 2;
    check_scan(s, &ro, "a/q@3=a3;a/q@2=a2;b/q@3=b1;b/q@2=b2;", "two versions");
    ro = (kv_read_options)KV_READ_OPTIONS_INIT;
    ro.time_min = 1;
    ro.time_max = 3;
    check_scan(s, &ro, "a/q@2=a2;b/q@2=b2;", "time range below the newest");
    CHECK_EQ(kv_store_close(s), KV_OK);
    test_rmtree(dir);
    free(dir);
}

/* TTL: an expired row, and an expired column between two live ones. */
static void check_ttl(void) {
    char *dir = test_tmpdir("wholerows-ttl");
    kv_store *s = open_store(dir, TTL_SECONDS);
    int64_t now = now_ms(), old = now - 2 * TTL_SECONDS * 1000;
    put(s, "a", "q", now, "a-live");
    put(s, "b", "q", old, "b-expired");
    put(s, "c", "q1", now, "c1-live");
    CHECK_EQ(kv_flush(s, "t"), KV_OK);
    put(s, "c", "q2", old, "c2-expired");
    put(s, "c", "q3", now, "c3-live");
    put(s, "d", "q", old, "d-expired");
    put(s, "d", "q", old - 1, "d-older");
    test_text expect = {0};
    test_text_printf(&expect, "a/q@%" PRId64 "=a-live;c/q1@%" PRId64 "=c1-live;c/q3@%" PRId64 "=c3-live;", now,
                     now, now);
    check_scan(s, NULL, expect.p, "ttl, file and memstore");
    CHECK_EQ(kv_flush(s, "t"), KV_OK);
    check_scan(s, NULL, expect.p, "ttl, files");
    free(expect.p);
    CHECK_EQ(kv_store_close(s), KV_OK);
    test_rmtree(dir);
    free(dir);
}

/* Zero bytes in rows and qualifiers, a limit, a stop row, and puts made
   after the scan opened (not in its snapshot). */
static void check_bytes_bounds_snapshot(void) {
    char *dir = test_tmpdir("wholerows-bounds");
    kv_store *s = open_store(dir, KV_FOREVER);
    put(s, "a", "q", 5, "a5");
    put_bytes(s, "b\0b", 3, "q", 1, 5, "b5");
    put(s, "c", "p1", 5, "c1");
    put_bytes(s, "c", 1, "q\0z", 3, 5, "cz");
    put(s, "c", "q3", 5, "c3");
    put(s, "d", "q", 5, "d5");
    CHECK_EQ(kv_flush(s, "t"), KV_OK);
    put(s, "e", "q", 5, "e5");
    check_scan(s, NULL, "a/q@5=a5;b~b/q@5=b5;c/p1@5=c1;c/q~z@5=cz;c/q3@5=c3;d/q@5=d5;e/q@5=e5;", "zero bytes");
    kv_read_options ro = KV_READ_OPTIONS_INIT;
    ro.limit = 2;
    check_scan(s, &ro, "a/q@5=a5;b~b/q@5=b5;", "limit");
    ro = (kv_read_options)KV_READ_OPTIONS_INIT;
    ro.stop_row = "d";
    ro.stop_row_len = 1;
    check_scan(s, &ro, "a/q@5=a5;b~b/q@5=b5;c/p1@5=c1;c/q~z@5=cz;c/q3@5=c3;", "stop row");

    kv_scan *sc = NULL;
    REQUIRE(kv_scan_open(&sc, s, "t", NULL) == KV_OK);
    const kv_result *r;
    REQUIRE(kv_scan_next(&r, sc) == KV_OK);
    put(s, "d", "q", 9, "d9-after");   /* newer than the scan's snapshot */
    put(s, "d", "q0", 9, "d0-after");
    put(s, "f", "q", 9, "f9-after");
    test_text got = {0};
    render_row(&got, r);
    kv_status st;
    while ((st = kv_scan_next(&r, sc)) == KV_OK) render_row(&got, r);
    CHECK_EQ(st, KV_END);
    kv_scan_close(sc);
    CHECK(strcmp(got.p, "a/q@5=a5;b~b/q@5=b5;c/p1@5=c1;c/q~z@5=cz;c/q3@5=c3;d/q@5=d5;e/q@5=e5;") == 0);
    free(got.p);
    CHECK_EQ(kv_store_close(s), KV_OK);
    test_rmtree(dir);
    free(dir);
}

int main(void) {
    check_markers_and_same_keys();
    check_versions_and_ranges();
    check_ttl();
    check_bytes_bounds_snapshot();
    return test_finish("test_whole_rows");
}
