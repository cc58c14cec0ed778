/**
 * @file test_write_path.c
 * The write path through the public API, where its fast paths are: kv_put
 * and kv_delete of cells that fit their stack buffer and of larger ones,
 * their argument errors (nothing stored, the store still usable), and rows written in key
 * order across memstore switches (the memstore's insertion finger), each
 * read back before and after a reopen that replays the log.
 */
#include "kvcore.h"
#include "teststore.h"

/* Fills v with n bytes that depend on seed. */
static void fill(uint8_t *v, size_t n, unsigned seed) {
    for (size_t i = 0; i < n; i++)
        v[i] = (uint8_t)(seed * 31 + i * 7);
}

/* Checks that row holds exactly one cell, qualifier q and value v. */
static void check_cell(kv_store *s, const char *table, const void *row, size_t row_len,
                       const void *q, size_t qlen, const void *v, size_t vlen) {
    kv_result *r = NULL;
    CHECK_EQ(kv_get(&r, s, table, row, row_len, NULL), KV_OK);
    if (!r)
        return;
    CHECK_EQ(r->ncells, 1);
    if (r->ncells == 1) {
        CHECK_EQ(r->cells[0].qualifier_len, qlen);
        CHECK(r->cells[0].qualifier_len == qlen && memcmp(r->cells[0].qualifier, q, qlen) == 0);
        CHECK_EQ(r->cells[0].value_len, vlen);
        CHECK(r->cells[0].value_len == vlen && (vlen == 0 || memcmp(r->cells[0].value, v, vlen) == 0));
    }
    kv_result_free(r);
}

/* Row, qualifier and value sizes around kv_put's 512-byte stack buffer. */
static const size_t sizes[][3] = {
    {1, 0, 0}, {1, 1, 1}, {16, 0, 100}, {8, 4, 500}, {10, 2, 500}, {10, 3, 500},
    {300, 200, 12}, {2, 0, 10000}, {1000, 1000, 1000}, {32767, 5, 70000},
};
#define NSIZES (sizeof sizes / sizeof sizes[0])

static void check_sizes(kv_store *s, uint8_t *buf) {
    for (size_t i = 0; i < NSIZES; i++) {
        uint8_t *row = buf, *q = buf + 40000, *v = buf + 60000;
        fill(row, sizes[i][0], (unsigned)i);
        row[0] = (uint8_t)i;   /* distinct rows */
        fill(q, sizes[i][1], (unsigned)i + 100);
        fill(v, sizes[i][2], (unsigned)i + 200);
        check_cell(s, "t", row, sizes[i][0], q, sizes[i][1], v, sizes[i][2]);
    }
}

static void test_put_sizes(void) {
    char *dir = test_tmpdir("write-sizes");
    kv_store *s = test_open_store(dir, NULL);
    test_make_table(s, "t");
    uint8_t *buf = malloc(140000);
    REQUIRE(buf != NULL);
    for (size_t i = 0; i < NSIZES; i++) {
        uint8_t *row = buf, *q = buf + 40000, *v = buf + 60000;
        fill(row, sizes[i][0], (unsigned)i);
        row[0] = (uint8_t)i;
        fill(q, sizes[i][1], (unsigned)i + 100);
        fill(v, sizes[i][2], (unsigned)i + 200);
        CHECK_EQ(kv_put(s, "t", row, sizes[i][0], "f", q, sizes[i][1], 7, v, sizes[i][2], NULL),
                 KV_OK);
    }
    check_sizes(s, buf);
    CHECK_EQ(kv_store_close(s), KV_OK);
    s = test_open_store(dir, NULL);   /* the cells come back from the log */
    check_sizes(s, buf);
    CHECK_EQ(kv_store_close(s), KV_OK);
    free(buf);
    test_rmtree(dir);
    free(dir);
}

static void test_put_errors(void) {
    char *dir = test_tmpdir("write-errors");
    kv_store *s = test_open_store(dir, NULL);
    test_make_table(s, "t");
    CHECK_EQ(kv_put(s, "t", "r", 1, "f", "q", 1, 5, "v", 1, NULL), KV_OK);
    static uint8_t big_row[32768];
    CHECK(kv_put(s, "t", NULL, 1, "f", "q", 1, 5, "x", 1, NULL) != KV_OK);
    CHECK_EQ(kv_put(s, "t", "r", 0, "f", "q", 1, 5, "x", 1, NULL), KV_INVALID);
    CHECK_EQ(kv_put(s, "t", big_row, sizeof big_row, "f", "q", 1, 5, "x", 1, NULL), KV_TOO_LARGE);
    CHECK(strstr(kv_store_errmsg(s), "row") != NULL);
    CHECK_EQ(kv_put(s, "t", "r", 1, NULL, "q", 1, 5, "x", 1, NULL), KV_INVALID);
    CHECK_EQ(kv_put(s, "t", "r", 1, "f:g", "q", 1, 5, "x", 1, NULL), KV_INVALID);
    CHECK(strstr(kv_store_errmsg(s), "f:g") != NULL);
    CHECK_EQ(kv_put(s, "t", "r", 1, "f", NULL, 1, 5, "x", 1, NULL), KV_INVALID);
    CHECK_EQ(kv_put(s, "t", "r", 1, "f", "q", 1, 5, NULL, 1, NULL), KV_INVALID);
    CHECK_EQ(kv_put(s, "t", "r", 1, "nofamily", "q", 1, 5, "x", 1, NULL), KV_NO_FAMILY);
    /* family names as kv_check_name judges them, through kv_put and the
       kv_mutation builder alike */
    static const char *const names[] = {"f", "-f", ".f", "f..g", "f.g", "f-g", "_f", "9",
                                        "f g", "f\xe9", "\xe9", "", "f/g", "F_G-1"};
    char longname[KV_NAME_MAX + 2];
    memset(longname, 'a', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    for (size_t i = 0; i <= sizeof names / sizeof names[0]; i++) {
        const char *fam = i < sizeof names / sizeof names[0] ? names[i] : longname;
        kv_status want = kv_check_name(fam) == KV_OK ? (strcmp(fam, "f") ? KV_NO_FAMILY : KV_OK)
                                                     : KV_INVALID;
        CHECK_EQ(kv_put(s, "t", "r3", 2, fam, "q", 1, 5, "x", 1, NULL), want);
        kv_mutation *m;
        CHECK_EQ(kv_mutation_new(&m, "r3", 2), KV_OK);
        CHECK_EQ(kv_mutation_put(m, fam, "q", 1, 5, "x", 1), want == KV_INVALID ? KV_INVALID : KV_OK);
        kv_mutation_free(m);
    }
    longname[KV_NAME_MAX] = 0;   /* the longest valid name */
    CHECK_EQ(kv_put(s, "t", "r3", 2, longname, "q", 1, 5, "x", 1, NULL), KV_NO_FAMILY);
    CHECK_EQ(kv_check_name("f..g"), KV_INVALID);
    CHECK_EQ(kv_check_name("-f"), KV_INVALID);
    CHECK_EQ(kv_check_name(longname), KV_OK);
    CHECK_EQ(kv_put(s, "nosuchtable", "r", 1, "f", "q", 1, 5, "x", 1, NULL), KV_NOT_FOUND);
    /* nothing of the failed puts is stored, and the store goes on */
    check_cell(s, "t", "r", 1, "q", 1, "v", 1);
    CHECK_EQ(kv_put(s, "t", "r2", 2, "f", "", 0, 5, "w", 1, NULL), KV_OK);
    check_cell(s, "t", "r2", 2, "", 0, "w", 1);
    CHECK_EQ(kv_store_close(s), KV_OK);
    test_rmtree(dir);
    free(dir);
}

/* Rows written in key order with a small write buffer (many memstores,
   each filled in order), one in 7 written again later in the middle of
   what is there; every row then reads back, by get and by a full scan. */
static void test_ordered_rows(void) {
    char *dir = test_tmpdir("write-ordered");
    kv_local_options lo = KV_LOCAL_OPTIONS_INIT;
    lo.write_buffer_size = 256 << 10;
    kv_store *s = test_open_store(dir, &lo);
    test_make_table(s, "t");
    enum { N = 20000 };
    char row[32], val[64];
    for (int i = 0; i < N; i++) {
        int n = snprintf(row, sizeof row, "row%08d", i);
        int vn = snprintf(val, sizeof val, "value of %d", i);
        REQUIRE(kv_put(s, "t", row, (size_t)n, "f", "q", 1, 10, val, (size_t)vn, NULL) == KV_OK);
        if (i % 7 == 3) {   /* a newer version of an earlier row */
            int j = i / 2;
            n = snprintf(row, sizeof row, "row%08d", j);
            vn = snprintf(val, sizeof val, "newer of %d", j);
            REQUIRE(kv_put(s, "t", row, (size_t)n, "f", "q", 1, 20, val, (size_t)vn, NULL) == KV_OK);
        }
    }
    for (int pass = 0; pass < 2; pass++) {
        int wrong = 0;
        for (int i = 0; i < N; i += 13) {
            int n = snprintf(row, sizeof row, "row%08d", i);
            bool newer = false;
            for (int k = 3; k < N && !newer; k += 7)
                newer = k / 2 == i;
            int vn = snprintf(val, sizeof val, newer ? "newer of %d" : "value of %d", i);
            kv_result *r = NULL;
            if (kv_get(&r, s, "t", row, (size_t)n, NULL) != KV_OK || r->ncells != 1 ||
                r->cells[0].value_len != (size_t)vn || memcmp(r->cells[0].value, val, (size_t)vn))
                wrong++;
            kv_result_free(r);
        }
        CHECK_EQ(wrong, 0);
        kv_scan *sc = NULL;
        REQUIRE(kv_scan_open(&sc, s, "t", NULL) == KV_OK);
        const kv_result *r;
        int rows = 0, unordered = 0;
        while (kv_scan_next(&r, sc) == KV_OK) {
            int n = snprintf(row, sizeof row, "row%08d", rows);
            if (r->row_len != (size_t)n || memcmp(r->row, row, (size_t)n) != 0)
                unordered++;
            rows++;
        }
        kv_scan_close(sc);
        CHECK_EQ(rows, N);
        CHECK_EQ(unordered, 0);
        CHECK_EQ(kv_store_close(s), KV_OK);
        if (pass == 0)
            s = test_open_store(dir, &lo);
    }
    test_rmtree(dir);
    free(dir);
}

/* One mutation of several operations, a row delete among them (logged as
   one operation per family), replayed from the log by a reopen. */
static void test_mixed_mutation(void) {
    char *dir = test_tmpdir("write-mixed");
    kv_store *s = test_open_store(dir, NULL);
    kv_family_desc f[3] = {KV_FAMILY_DESC_INIT, KV_FAMILY_DESC_INIT, KV_FAMILY_DESC_INIT};
    snprintf(f[0].name, sizeof f[0].name, "a");
    snprintf(f[1].name, sizeof f[1].name, "b");
    snprintf(f[2].name, sizeof f[2].name, "c");
    REQUIRE(kv_table_create(s, "t", f, 3) == KV_OK);
    kv_mutation *m = NULL;
    REQUIRE(kv_mutation_new(&m, "row", 3) == KV_OK);
    REQUIRE(kv_mutation_put(m, "a", "q1", 2, 10, "old", 3) == KV_OK);
    REQUIRE(kv_mutation_put(m, "c", "q2", 2, 10, "old", 3) == KV_OK);
    REQUIRE(kv_mutation_delete_row(m, 15) == KV_OK);
    REQUIRE(kv_mutation_put(m, "b", "q3", 2, 20, "new", 3) == KV_OK);
    REQUIRE(kv_mutation_put(m, "a", "", 0, 20, "", 0) == KV_OK);
    CHECK_EQ(kv_mutate(s, "t", m, NULL), KV_OK);
    kv_mutation_free(m);
    for (int pass = 0; pass < 2; pass++) {
        kv_result *r = NULL;
        CHECK_EQ(kv_get(&r, s, "t", "row", 3, NULL), KV_OK);
        REQUIRE(r != NULL);
        CHECK_EQ(r->ncells, 2);
        if (r->ncells == 2) {
            CHECK(strcmp(r->cells[0].family, "a") == 0 && r->cells[0].qualifier_len == 0 &&
                  r->cells[0].value_len == 0 && r->cells[0].timestamp == 20);
            CHECK(strcmp(r->cells[1].family, "b") == 0);
            CHECK_BYTES(r->cells[1].value, r->cells[1].value_len, "new");
        }
        kv_result_free(r);
        CHECK_EQ(kv_store_close(s), KV_OK);
        if (pass == 0)
            s = test_open_store(dir, NULL);
    }
    test_rmtree(dir);
    free(dir);
}

/* Read-modify-writes and check-and-mutates one after another (they share
   the engine's buffer for the value read), a value above 64 KiB among
   them. */
static void test_read_modify_writes(void) {
    char *dir = test_tmpdir("write-rmw");
    kv_store *s = test_open_store(dir, NULL);
    test_make_table(s, "t");
    int64_t n = 0;
    for (int i = 0; i < 50; i++)
        CHECK_EQ(kv_increment(&n, s, "t", "r", 1, "f", "n", 1, i, NULL), KV_OK);
    CHECK_EQ(n, 49 * 50 / 2);
    size_t big = 100000;
    uint8_t *data = malloc(big);
    REQUIRE(data != NULL);
    fill(data, big, 3);
    void *got = NULL;
    size_t got_len = 0;
    CHECK_EQ(kv_append(&got, &got_len, s, "t", "a", 1, "f", "q", 1, "ab", 2, NULL), KV_OK);
    free(got);
    CHECK_EQ(kv_append(&got, &got_len, s, "t", "a", 1, "f", "q", 1, data, big, NULL), KV_OK);
    CHECK(got_len == big + 2 && memcmp(got, "ab", 2) == 0 && memcmp((uint8_t *)got + 2, data, big) == 0);
    free(got);
    CHECK_EQ(kv_append(&got, &got_len, s, "t", "a", 1, "f", "q", 1, "c", 1, NULL), KV_OK);
    CHECK(got_len == big + 3 && memcmp((uint8_t *)got + 2, data, big) == 0 &&
          ((uint8_t *)got)[big + 2] == 'c');
    free(got);
    /* a counter as check-and-mutate keeps it: each writes value + 1 if the
       value is still the one read */
    char cur[16] = "", next[16];
    bool applied = false;
    for (int i = 0; i < 30; i++) {
        int nl = snprintf(next, sizeof next, "%d", i + 1);
        kv_mutation *m = NULL;
        REQUIRE(kv_mutation_new(&m, "c", 1) == KV_OK);
        REQUIRE(kv_mutation_put(m, "f", "x", 1, KV_LATEST_TIMESTAMP, next, (size_t)nl) == KV_OK);
        CHECK_EQ(kv_check_and_mutate(&applied, s, "t", "c", 1, "f", "x", 1, KV_CMP_EQUAL,
                                     i ? cur : NULL, strlen(cur), m, NULL), KV_OK);
        CHECK(applied);
        /* a stale expectation fails and changes nothing */
        CHECK_EQ(kv_check_and_mutate(&applied, s, "t", "c", 1, "f", "x", 1, KV_CMP_EQUAL,
                                     i ? cur : "none", i ? strlen(cur) : 4, m, NULL), KV_OK);
        CHECK(!applied);
        kv_mutation_free(m);
        memcpy(cur, next, (size_t)nl + 1);
    }
    check_cell(s, "t", "c", 1, "x", 1, "30", 2);
    CHECK_EQ(kv_store_close(s), KV_OK);
    free(data);
    test_rmtree(dir);
    free(dir);
}

/* kv_delete: every version of one column at or below its timestamp (the
   other columns and newer versions stay), a qualifier above the stack
   buffer, a reopen that replays the markers, and its argument errors
   (nothing stored, the store still usable). */
static void test_delete(void) {
    char *dir = test_tmpdir("write-delete");
    kv_store *s = test_open_store(dir, NULL);
    kv_family_desc f = KV_FAMILY_DESC_INIT;
    snprintf(f.name, sizeof f.name, "f");
    f.versions = 5;
    REQUIRE(kv_table_create(s, "t", &f, 1) == KV_OK);
    static uint8_t bigq[2000];
    fill(bigq, sizeof bigq, 9);
    for (int64_t ts = 1; ts <= 3; ts++) {
        CHECK_EQ(kv_put(s, "t", "r", 1, "f", "q", 1, ts, "v", 1, NULL), KV_OK);
        CHECK_EQ(kv_put(s, "t", "r", 1, "f", "p", 1, ts, "w", 1, NULL), KV_OK);
        CHECK_EQ(kv_put(s, "t", "b", 1, "f", bigq, sizeof bigq, ts, "x", 1, NULL), KV_OK);
        CHECK_EQ(kv_put(s, "t", "c", 1, "f", "q", 1, ts, "y", 1, NULL), KV_OK);
    }
    CHECK_EQ(kv_delete(s, "t", "r", 1, "f", "q", 1, 2, NULL), KV_OK);
    CHECK_EQ(kv_delete(s, "t", "b", 1, "f", bigq, sizeof bigq, 3, NULL), KV_OK);
    CHECK_EQ(kv_delete(s, "t", "c", 1, "f", "q", 1, KV_LATEST_TIMESTAMP, NULL), KV_OK);
    static uint8_t big_row[32768];
    CHECK_EQ(kv_delete(s, "t", "r", 0, "f", "p", 1, 5, NULL), KV_INVALID);
    CHECK_EQ(kv_delete(s, "t", big_row, sizeof big_row, "f", "p", 1, 5, NULL), KV_TOO_LARGE);
    CHECK(strstr(kv_store_errmsg(s), "row") != NULL);
    CHECK_EQ(kv_delete(s, "t", "r", 1, NULL, "p", 1, 5, NULL), KV_INVALID);
    CHECK_EQ(kv_delete(s, "t", "r", 1, "f:g", "p", 1, 5, NULL), KV_INVALID);
    CHECK(strstr(kv_store_errmsg(s), "f:g") != NULL);
    CHECK_EQ(kv_delete(s, "t", "r", 1, "f", NULL, 1, 5, NULL), KV_INVALID);
    CHECK_EQ(kv_delete(s, "t", "r", 1, "nofamily", "p", 1, 5, NULL), KV_NO_FAMILY);
    CHECK_EQ(kv_delete(s, "nosuchtable", "r", 1, "f", "p", 1, 5, NULL), KV_NOT_FOUND);
    kv_read_options all = KV_READ_OPTIONS_INIT;
    all.max_versions = 10;
    for (int pass = 0; pass < 2; pass++) {
        kv_result *r = NULL;
        /* r: p@3,2,1 and q@3 */
        CHECK_EQ(kv_get(&r, s, "t", "r", 1, &all), KV_OK);
        REQUIRE(r != NULL);
        CHECK_EQ(r->ncells, 4);
        if (r->ncells == 4) {
            for (int i = 0; i < 3; i++)
                CHECK(r->cells[i].qualifier_len == 1 && r->cells[i].qualifier[0] == 'p' &&
                      r->cells[i].timestamp == 3 - i);
            CHECK(r->cells[3].qualifier_len == 1 && r->cells[3].qualifier[0] == 'q' &&
                  r->cells[3].timestamp == 3);
        }
        kv_result_free(r);
        for (int k = 0; k < 2; k++) {
            r = NULL;
            CHECK_EQ(kv_get(&r, s, "t", k ? "c" : "b", 1, &all), KV_OK);
            CHECK(r != NULL && r->ncells == 0);
            kv_result_free(r);
        }
        CHECK_EQ(kv_store_close(s), KV_OK);
        if (pass == 0)
            s = test_open_store(dir, NULL);   /* the markers come back from the log */
    }
    test_rmtree(dir);
    free(dir);
}

static kv_status put1(kv_store *s, const char *table, const char *family, const char *v) {
    return kv_put(s, table, "r", 1, family, "q", 1, KV_LATEST_TIMESTAMP, v, strlen(v), NULL);
}

/* Writes resolve their table after every catalog change (the write side's
   table remembered for a catalog generation, mutate.c). */
static void test_catalog_changes(void) {
    char *dir = test_tmpdir("write-catalog");
    kv_store *s = test_open_store(dir, NULL);
    test_make_table(s, "t");
    kv_family_desc g = KV_FAMILY_DESC_INIT;
    snprintf(g.name, sizeof g.name, "g");
    CHECK_EQ(kv_table_create(s, "u", &g, 1), KV_OK);
    CHECK_EQ(put1(s, "t", "f", "1"), KV_OK);
    CHECK_EQ(put1(s, "u", "g", "2"), KV_OK);
    CHECK_EQ(put1(s, "default:t", "f", "3"), KV_OK);
    CHECK_EQ(put1(s, "u", "f", "x"), KV_NO_FAMILY);
    CHECK_EQ(put1(s, "t", "g", "x"), KV_NO_FAMILY);
    check_cell(s, "t", "r", 1, "q", 1, "3", 1);
    check_cell(s, "u", "r", 1, "q", 1, "2", 1);
    /* disabled, then enabled again */
    CHECK_EQ(kv_table_disable(s, "t"), KV_OK);
    CHECK_EQ(put1(s, "t", "f", "x"), KV_DISABLED);
    int64_t n = 0;
    CHECK_EQ(kv_increment(&n, s, "t", "r", 1, "f", "n", 1, 1, NULL), KV_DISABLED);
    CHECK_EQ(kv_table_enable(s, "t"), KV_OK);
    CHECK_EQ(put1(s, "t", "f", "4"), KV_OK);
    /* its family replaced */
    CHECK_EQ(kv_table_alter_family(s, "t", &g), KV_OK);
    CHECK_EQ(kv_table_delete_family(s, "t", "f"), KV_OK);
    CHECK_EQ(put1(s, "t", "f", "x"), KV_NO_FAMILY);
    CHECK_EQ(put1(s, "t", "g", "5"), KV_OK);
    check_cell(s, "t", "r", 1, "q", 1, "5", 1);
    /* dropped, then made again: the new table takes the writes */
    CHECK_EQ(kv_table_disable(s, "t"), KV_OK);
    CHECK_EQ(kv_table_drop(s, "t"), KV_OK);
    CHECK_EQ(put1(s, "t", "g", "x"), KV_NOT_FOUND);
    CHECK_EQ(kv_increment(&n, s, "t", "r", 1, "g", "n", 1, 1, NULL), KV_NOT_FOUND);
    test_make_table(s, "t");
    CHECK_EQ(put1(s, "t", "g", "x"), KV_NO_FAMILY);
    CHECK_EQ(put1(s, "t", "f", "6"), KV_OK);
    check_cell(s, "t", "r", 1, "q", 1, "6", 1);
    check_cell(s, "u", "r", 1, "q", 1, "2", 1);
    CHECK_EQ(kv_store_close(s), KV_OK);
    s = test_open_store(dir, NULL);   /* and the log holds them */
    check_cell(s, "t", "r", 1, "q", 1, "6", 1);
    CHECK_EQ(put1(s, "t", "f", "7"), KV_OK);
    check_cell(s, "t", "r", 1, "q", 1, "7", 1);
    CHECK_EQ(kv_store_close(s), KV_OK);
    test_rmtree(dir);
    free(dir);
}

int main(void) {
    test_catalog_changes();
    test_delete();
    test_read_modify_writes();
    test_mixed_mutation();
    test_put_sizes();
    test_put_errors();
    test_ordered_rows();
    return test_finish("test_write_path");
}
