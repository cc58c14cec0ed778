/**
 * @file test_bt_client.c
 * End-to-end tests of the Bigtable client against Google's emulator, which
 * scripts/bt_emulator.sh starts on a free loopback port and names in
 * BIGTABLE_EMULATOR_HOST (the test exits 77, skipped, without it): tables
 * created with GC rules and read back, listed and dropped; puts with
 * explicit timestamps read back through version, time-range, TTL, column,
 * prefix, limit and keys-only filters; each kind of delete; increments and
 * appends; check-and-mutate with each kind of test; batched writes with a
 * failing row; a read that outlives its stream's deadline and resumes; an
 * early close; threads sharing one client.
 */
#include <pthread.h>
#include <stdbool.h>
#include <time.h>
#include <unistd.h>

#include "bt_client.h"
#include "bt_read.h"
#include "bt_write.h"
#include "testutil.h"

static int64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Reads @p spec and prints every cell as "row fam:qual@ms=value\n". */
static bt_code dump(bt_client *c, const char *table, const bt_read_spec *spec, char *out,
                    size_t cap, bt_status *st) {
    bt_reader *r;
    out[0] = '\0';
    bt_code rc = bt_reader_open(&r, c, table, spec, now_ms(), st);
    if (rc != BT_OK) return rc;
    size_t len = 0;
    bt_row row = BT_ROW_INIT;
    bool got;
    while ((rc = bt_reader_next(r, &row, &got, st)) == BT_OK && got)
        for (size_t i = 0; i < row.ncells; i++) {
            const bt_cell *cl = &row.cells[i];
            len += (size_t)snprintf(out + len, cap - len, "%.*s %s:%.*s@%lld=%.*s\n",
                                    (int)row.key_len, row.key, cl->family, (int)cl->qualifier_len,
                                    cl->qualifier, (long long)bt_ms_from_micros(cl->ts_micros),
                                    (int)cl->value_len, cl->value ? (char *)cl->value : "");
        }
    bt_row_clear(&row);
    bt_reader_close(r);
    return rc;
}

#define CHECK_DUMP(client, table, spec, expected) do { \
    static char out_[65536]; bt_status st_; \
    CHECK_EQ(dump(client, table, spec, out_, sizeof out_, &st_), BT_OK); \
    CHECK_BYTES(out_, strlen(out_), expected); \
} while (0)

static bt_family_rules fams[2] = { { "cf1", 3, 0, 0, false }, { "cf2", 1, 3600, 0, false } };

static bt_read_spec row_spec(const char *row, int versions) {
    bt_read_spec s = BT_READ_SPEC_INIT;
    s.row = row;
    s.row_len = strlen(row);
    s.families = fams;
    s.nfamilies = 2;
    s.max_versions = versions;
    return s;
}

/* A scan of one column (NULL: every family) of rows starting with @p prefix. */
static bt_read_spec scan_spec(const bt_column *col, const char *prefix) {
    bt_read_spec s = BT_READ_SPEC_INIT;
    s.families = fams;
    s.nfamilies = 2;
    s.columns = col;
    s.ncolumns = col ? 1 : 0;
    s.prefix = prefix;
    s.prefix_len = prefix ? strlen(prefix) : 0;
    return s;
}

static bt_hop put(const char *fam, const char *q, int64_t ts, const char *v) {
    bt_hop h = { BT_HOP_PUT, fam, q, strlen(q), ts, v, strlen(v) };
    return h;
}

static void put1(bt_client *c, const char *t, const char *row, bt_hop h) {
    bt_status st;
    CHECK_EQ(bt_mutate_row(c, t, row, strlen(row), &h, 1, now_ms(), &st), BT_OK);
}

static void test_admin(bt_client *c, const char *table) {
    bt_status st;
    CHECK_EQ(bt_create_table(c, table, fams, 2, &st), BT_OK);
    CHECK_EQ(bt_create_table(c, table, fams, 2, &st), BT_ALREADY_EXISTS);
    bt_family_rules keep = { "k", 1, 0, 0, true };
    CHECK_EQ(bt_create_table(c, "other", &keep, 1, &st), BT_UNSUPPORTED);
    char **ids;
    size_t n;
    CHECK_EQ(bt_list_tables(c, &ids, &n, &st), BT_OK);
    bool found = false;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(ids[i], table) == 0) found = true;
        free(ids[i]);
    }
    free(ids);
    CHECK(found);
    char name[64];
    CHECK_EQ(bt_table_name(name, sizeof name, table, &st), BT_OK);
    CHECK_BYTES(name, strlen(name), "ns:t1");
    bt_schema s;
    CHECK_EQ(bt_get_table(c, table, &s, &st), BT_OK);
    REQUIRE(s.nfamilies == 2);
    CHECK_BYTES(s.families[0].name, strlen(s.families[0].name), "cf1");
    CHECK_EQ(s.families[0].max_versions, 3);
    CHECK_EQ(s.families[0].ttl_seconds, 0);
    CHECK_EQ(s.families[1].max_versions, 1);
    CHECK_EQ(s.families[1].ttl_seconds, 3600);
    bt_schema_clear(&s);
    /* Families: add one, change it, drop it. */
    bt_family_change add = { BT_FAMILY_CREATE, { "cf3", 2, 0, 0, false } };
    CHECK_EQ(bt_modify_families(c, table, &add, 1, &st), BT_OK);
    bt_family_change upd = { BT_FAMILY_UPDATE, { "cf3", 7, 60, 0, false } };
    CHECK_EQ(bt_modify_families(c, table, &upd, 1, &st), BT_OK);
    CHECK_EQ(bt_get_table(c, table, &s, &st), BT_OK);
    REQUIRE(s.nfamilies == 3);
    CHECK_EQ(s.families[2].max_versions, 7);
    CHECK_EQ(s.families[2].ttl_seconds, 60);
    bt_schema_clear(&s);
    bt_family_change drop = { BT_FAMILY_DROP, { "cf3", 0, 0, 0, false } };
    CHECK_EQ(bt_modify_families(c, table, &drop, 1, &st), BT_OK);
    CHECK_EQ(bt_get_table(c, table, &s, &st), BT_OK);
    CHECK_EQ(s.nfamilies, 2);
    bt_schema_clear(&s);
    CHECK_EQ(bt_get_table(c, "absent", &s, &st), BT_NOT_FOUND);
}

static void test_reads(bt_client *c, const char *t) {
    int64_t now = now_ms();
    put1(c, t, "r1", put("cf1", "a", 1000, "a1"));
    put1(c, t, "r1", put("cf1", "a", 2000, "a2"));
    put1(c, t, "r1", put("cf1", "a", 3000, "a3"));
    /* Four versions in a VERSIONS 3 family: reads never show the fourth,
     * whether or not the emulator has collected it yet. */
    bt_hop four[4] = { put("cf1", "b", 1000, "b1"), put("cf1", "b", 2000, "b2"),
                       put("cf1", "b", 3000, "b3"), put("cf1", "b", 4000, "b4") };
    bt_status st;
    CHECK_EQ(bt_mutate_row(c, t, "r1", 2, four, 4, now, &st), BT_OK);
    /* TTL 3600 s: a cell two hours old is expired although stored. */
    put1(c, t, "r1", put("cf2", "live", now - 1000, "L"));
    put1(c, t, "r1", put("cf2", "old", now - 7200 * 1000, "O"));
    char expect[512];
    bt_read_spec s = row_spec("r1", 10);
    snprintf(expect, sizeof expect,
             "r1 cf1:a@3000=a3\nr1 cf1:a@2000=a2\nr1 cf1:a@1000=a1\n"
             "r1 cf1:b@4000=b4\nr1 cf1:b@3000=b3\nr1 cf1:b@2000=b2\n"
             "r1 cf2:live@%lld=L\n", (long long)(now - 1000));
    CHECK_DUMP(c, t, &s, expect);
    /* VERSIONS 1, and a time range [1500, 3500) counting versions inside it. */
    s.max_versions = 1;
    s.min_ts = 1500;
    s.max_ts = 3500;
    CHECK_DUMP(c, t, &s, "r1 cf1:a@3000=a3\nr1 cf1:b@3000=b3\n");
    /* One column, keys only. */
    bt_column col = { "cf1", "b", 1 };
    s = row_spec("r1", 2);
    s.columns = &col;
    s.ncolumns = 1;
    s.keys_only = true;
    CHECK_DUMP(c, t, &s, "r1 cf1:b@4000=\nr1 cf1:b@3000=\n");
    /* Scans: prefix, start/stop, limit. */
    const char *rows[] = { "p1", "p2", "p3", "q1" };
    for (int i = 0; i < 4; i++) put1(c, t, rows[i], put("cf1", "x", 10, rows[i]));
    bt_column x = { "cf1", "x", 1 };
    bt_read_spec scan = scan_spec(&x, "p");
    CHECK_DUMP(c, t, &scan, "p1 cf1:x@10=p1\np2 cf1:x@10=p2\np3 cf1:x@10=p3\n");
    scan.start = "p2";
    scan.start_len = 2;
    CHECK_DUMP(c, t, &scan, "p2 cf1:x@10=p2\np3 cf1:x@10=p3\n");
    scan.prefix = NULL;
    scan.stop = "q1";
    scan.stop_len = 2;
    scan.limit = 1;
    CHECK_DUMP(c, t, &scan, "p2 cf1:x@10=p2\n");
    scan.limit = 0;
    scan.start = "q";
    scan.start_len = 1;
    CHECK_DUMP(c, t, &scan, "");   /* start after stop: nothing, not sent */
}

static void test_deletes(bt_client *c, const char *t) {
    bt_status st;
    bt_read_spec s = row_spec("r1", 10);
    bt_column col = { "cf1", "a", 1 };
    s.columns = &col;
    s.ncolumns = 1;
    bt_hop dv = { BT_HOP_DELETE_VERSION, "cf1", "a", 1, 2000, NULL, 0 };
    CHECK_EQ(bt_mutate_row(c, t, "r1", 2, &dv, 1, now_ms(), &st), BT_OK);
    CHECK_DUMP(c, t, &s, "r1 cf1:a@3000=a3\nr1 cf1:a@1000=a1\n");
    bt_hop dc = { BT_HOP_DELETE_COLUMN, "cf1", "a", 1, 1000, NULL, 0 };
    CHECK_EQ(bt_mutate_row(c, t, "r1", 2, &dc, 1, now_ms(), &st), BT_OK);
    CHECK_DUMP(c, t, &s, "r1 cf1:a@3000=a3\n");
    /* No markers: a put older than a delete is visible (HBase would hide it). */
    dc.ts = BT_TS_NONE;
    CHECK_EQ(bt_mutate_row(c, t, "r1", 2, &dc, 1, now_ms(), &st), BT_OK);
    CHECK_DUMP(c, t, &s, "");
    put1(c, t, "r1", put("cf1", "a", 500, "late"));
    CHECK_DUMP(c, t, &s, "r1 cf1:a@500=late\n");
    /* Family and row deletes; the unsupported kinds change nothing. */
    bt_hop dfv = { BT_HOP_DELETE_FAMILY_VERSION, "cf1", NULL, 0, 500, NULL, 0 };
    CHECK_EQ(bt_mutate_row(c, t, "r1", 2, &dfv, 1, now_ms(), &st), BT_UNSUPPORTED);
    bt_hop dfts = { BT_HOP_DELETE_FAMILY, "cf1", NULL, 0, 500, NULL, 0 };
    CHECK_EQ(bt_mutate_row(c, t, "r1", 2, &dfts, 1, now_ms(), &st), BT_UNSUPPORTED);
    CHECK_DUMP(c, t, &s, "r1 cf1:a@500=late\n");
    bt_hop df = { BT_HOP_DELETE_FAMILY, "cf1", NULL, 0, BT_TS_NONE, NULL, 0 };
    CHECK_EQ(bt_mutate_row(c, t, "r1", 2, &df, 1, now_ms(), &st), BT_OK);
    bt_read_spec all = row_spec("r1", 10);
    char out[4096];
    CHECK_EQ(dump(c, t, &all, out, sizeof out, &st), BT_OK);
    CHECK(strstr(out, "cf1:") == NULL);
    CHECK(strstr(out, "cf2:live") != NULL);
    bt_hop dr = { BT_HOP_DELETE_ROW, NULL, NULL, 0, BT_TS_NONE, NULL, 0 };
    CHECK_EQ(bt_mutate_row(c, t, "r1", 2, &dr, 1, now_ms(), &st), BT_OK);
    CHECK_DUMP(c, t, &all, "");
    /* Unknown family: the server refuses, nothing is written. */
    bt_hop bad = put("nofam", "q", 1, "v");
    CHECK(bt_mutate_row(c, t, "r1", 2, &bad, 1, now_ms(), &st) != BT_OK);
    CHECK(st.msg[0] != '\0');
}

static void test_read_modify_write(bt_client *c, const char *t) {
    bt_status st;
    int64_t v = 0;
    CHECK_EQ(bt_increment(c, t, "ctr", 3, "cf1", "n", 1, 5, &v, &st), BT_OK);
    CHECK_EQ(v, 5);
    CHECK_EQ(bt_increment(c, t, "ctr", 3, "cf1", "n", 1, 10, &v, &st), BT_OK);
    CHECK_EQ(v, 15);
    CHECK_EQ(bt_increment(c, t, "ctr", 3, "cf1", "n", 1, -20, &v, &st), BT_OK);
    CHECK_EQ(v, -5);
    /* The stored value is the 8-byte big-endian counter HBase uses. */
    bt_read_spec s = row_spec("ctr", 1);
    bt_reader *r;
    bt_row row = BT_ROW_INIT;
    bool got;
    REQUIRE(bt_reader_open(&r, c, t, &s, now_ms(), &st) == BT_OK);
    CHECK_EQ(bt_reader_next(r, &row, &got, &st), BT_OK);
    REQUIRE(got && row.ncells == 1 && row.cells[0].value_len == 8);
    CHECK(memcmp(row.cells[0].value, "\xff\xff\xff\xff\xff\xff\xff\xfb", 8) == 0);
    bt_row_clear(&row);
    bt_reader_close(r);
    /* Not a counter: refused, value unchanged. */
    put1(c, t, "ctr", put("cf1", "s", 1, "abc"));
    CHECK(bt_increment(c, t, "ctr", 3, "cf1", "s", 1, 1, &v, &st) != BT_OK);
    CHECK(st.msg[0] != '\0');
    void *res;
    size_t len;
    CHECK_EQ(bt_append(c, t, "ctr", 3, "cf1", "s", 1, "de", 2, &res, &len, &st), BT_OK);
    CHECK_BYTES(res, len, "abcde");
    free(res);
    CHECK_EQ(bt_append(c, t, "ctr", 3, "cf1", "new", 3, "x", 1, &res, &len, &st), BT_OK);
    CHECK_BYTES(res, len, "x");
    free(res);
}

static void test_check_and_mutate(bt_client *c, const char *t) {
    bt_status st;
    bool applied;
    bt_hop set = put("cf1", "v", 100, "b");
    bt_check absent = { &fams[0], "v", 1, BT_CMP_EQUAL, NULL, 0 };
    CHECK_EQ(bt_check_and_mutate(c, t, "cm", 2, &absent, &set, 1, now_ms(), &applied, &st), BT_OK);
    CHECK(applied);
    CHECK_EQ(bt_check_and_mutate(c, t, "cm", 2, &absent, &set, 1, now_ms(), &applied, &st), BT_OK);
    CHECK(!applied);
    static const struct { bt_cmp op; const char *expected; bool applies; } cases[] = {
        { BT_CMP_EQUAL, "b", true }, { BT_CMP_EQUAL, "c", false },
        { BT_CMP_NOT_EQUAL, "c", true }, { BT_CMP_NOT_EQUAL, "b", false },
        { BT_CMP_LESS, "c", true }, { BT_CMP_LESS, "b", false },
        { BT_CMP_LESS_OR_EQUAL, "b", true }, { BT_CMP_LESS_OR_EQUAL, "a", false },
        { BT_CMP_GREATER, "a", true }, { BT_CMP_GREATER, "b", false },
        { BT_CMP_GREATER_OR_EQUAL, "b", true }, { BT_CMP_GREATER_OR_EQUAL, "c", false },
        { BT_CMP_NO_OP, "zzz", true },
    };
    bt_hop mark = put("cf1", "m", 1, "1");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bt_check chk = { &fams[0], "v", 1, cases[i].op, cases[i].expected, 1 };
        applied = !cases[i].applies;
        CHECK_EQ(bt_check_and_mutate(c, t, "cm", 2, &chk, &mark, 1, now_ms(), &applied, &st),
                 BT_OK);
        CHECK_EQ(applied, cases[i].applies);
        if (applied != cases[i].applies) fprintf(stderr, "  case %zu\n", i);
    }
    /* Only the newest version is compared: "a" newer than "b" now. */
    put1(c, t, "cm", put("cf1", "v", 200, "a"));
    bt_check eqb = { &fams[0], "v", 1, BT_CMP_EQUAL, "b", 1 };
    CHECK_EQ(bt_check_and_mutate(c, t, "cm", 2, &eqb, &mark, 1, now_ms(), &applied, &st), BT_OK);
    CHECK(!applied);
    /* An expired cell (TTL) counts as absent. */
    put1(c, t, "cm", put("cf2", "e", now_ms() - 7200 * 1000, "old"));
    bt_check gone = { &fams[1], "e", 1, BT_CMP_EQUAL, NULL, 0 };
    CHECK_EQ(bt_check_and_mutate(c, t, "cm", 2, &gone, &mark, 1, now_ms(), &applied, &st), BT_OK);
    CHECK(applied);
}

static void test_batches(bt_client *c, const char *t) {
    bt_status st;
    bt_hop ok = put("cf1", "q", 7, "ok");
    bt_hop badfam = put("nofam", "q", 7, "x");
    bt_hop unsup = { BT_HOP_DELETE_FAMILY_VERSION, "cf1", NULL, 0, 7, NULL, 0 };
    bt_row_mutation rows[4] = {
        { "b1", 2, &ok, 1 }, { "b2", 2, &badfam, 1 }, { "b3", 2, &unsup, 1 }, { "b4", 2, &ok, 1 },
    };
    bt_code codes[4];
    CHECK(bt_mutate_rows(c, t, rows, 4, now_ms(), codes, &st) != BT_OK);
    CHECK_EQ(codes[0], BT_OK);
    CHECK(codes[1] != BT_OK && codes[1] != BT_UNAVAILABLE);
    CHECK_EQ(codes[2], BT_UNSUPPORTED);
    CHECK_EQ(codes[3], BT_OK);
    bt_column q = { "cf1", "q", 1 };
    bt_read_spec scan = scan_spec(&q, "b");
    CHECK_DUMP(c, t, &scan, "b1 cf1:q@7=ok\nb4 cf1:q@7=ok\n");
    /* Sending the same batch again changes nothing: timestamps are explicit. */
    CHECK_EQ(bt_mutate_rows(c, t, rows, 1, now_ms(), codes, &st), BT_OK);
    scan.max_versions = 5;
    CHECK_DUMP(c, t, &scan, "b1 cf1:q@7=ok\nb4 cf1:q@7=ok\n");
}

/* Enough data that the server cannot have sent it all when the consumer
 * stops to wait past the stream's deadline. */
#define BIG_ROWS 160
#define BIG_VALUE (64 * 1024)

static void fill_big(bt_client *c, const char *t) {
    static char value[BIG_VALUE];
    memset(value, 'v', sizeof value);
    static char keys[BIG_ROWS][16];
    bt_hop h = { BT_HOP_PUT, "cf1", "big", 3, 1, value, sizeof value };
    bt_row_mutation rows[BIG_ROWS];
    for (int i = 0; i < BIG_ROWS; i++) {
        snprintf(keys[i], sizeof keys[i], "big%04d", i);
        rows[i] = (bt_row_mutation){ keys[i], strlen(keys[i]), &h, 1 };
    }
    bt_status st;
    CHECK_EQ(bt_mutate_rows(c, t, rows, BIG_ROWS, now_ms(), NULL, &st), BT_OK);
}

/* Reads the big rows with a pause after the first; returns rows seen, in
 * order and each once (else -1). */
static int read_big(bt_client *c, const char *t, int64_t limit, unsigned *resumes) {
    bt_read_spec s = scan_spec(NULL, "big");
    s.limit = limit;
    bt_reader *r;
    bt_status st;
    if (bt_reader_open(&r, c, t, &s, now_ms(), &st) != BT_OK) return -1;
    bt_row row = BT_ROW_INIT;
    bool got;
    int n = 0;
    bt_code rc;
    while ((rc = bt_reader_next(r, &row, &got, &st)) == BT_OK && got) {
        char want[16];
        snprintf(want, sizeof want, "big%04d", n);
        if (row.key_len != strlen(want) || memcmp(row.key, want, row.key_len) != 0 ||
            row.ncells != 1 || row.cells[0].value_len != BIG_VALUE) {
            n = -1;
            break;
        }
        if (n++ == 0) usleep(1500 * 1000);   /* longer than the stream deadline */
    }
    if (rc != BT_OK) {
        fprintf(stderr, "read_big: %s\n", st.msg);
        n = -1;
    }
    *resumes = bt_reader_resumes(r);
    bt_row_clear(&row);
    bt_reader_close(r);
    return n;
}

static void test_resume_and_early_close(const char *t) {
    /* A client whose streams have a 1 s deadline: a consumer that pauses
     * 1.5 s makes the stream fail with DEADLINE_EXCEEDED mid-read. */
    bt_client_options o = BT_CLIENT_OPTIONS_INIT;
    o.project = "p";
    o.instance = "i";
    o.stream_timeout_ms = 1000;
    bt_status st;
    bt_client *c = bt_client_open(&o, &st);
    REQUIRE(c != NULL);
    fill_big(c, t);
    unsigned resumes = 0;
    CHECK_EQ(read_big(c, t, 0, &resumes), BIG_ROWS);
    CHECK(resumes >= 1);
    CHECK_EQ(read_big(c, t, 100, &resumes), 100);   /* the limit survives resuming */
    CHECK(resumes >= 1);
    /* Early close: read one row of many, close; the client goes on working. */
    bt_read_spec s = scan_spec(NULL, NULL);
    bt_reader *r;
    bt_row row = BT_ROW_INIT;
    bool got;
    REQUIRE(bt_reader_open(&r, c, t, &s, now_ms(), &st) == BT_OK);
    CHECK_EQ(bt_reader_next(r, &row, &got, &st), BT_OK);
    CHECK(got);
    bt_reader_close(r);
    bt_row_clear(&row);
    put1(c, t, "after", put("cf1", "q", 1, "v"));
    /* Sample keys, then drop the big rows by prefix. */
    uint8_t **keys;
    size_t *lens, n;
    int64_t *offs;
    CHECK_EQ(bt_sample_row_keys(c, t, &keys, &lens, &offs, &n, &st), BT_OK);
    CHECK(n >= 1);
    for (size_t i = 0; i < n; i++) free(keys[i]);
    free(keys);
    free(lens);
    free(offs);
    CHECK_EQ(bt_drop_rows(c, t, "big", 3, &st), BT_OK);
    CHECK_EQ(read_big(c, t, 0, &resumes), 0);
    bt_client_close(c);
}

static void test_large_cell(bt_client *c, const char *t) {
    /* 6 MiB: above gRPC's default 4 MiB receive limit, which the channel
     * raises; the emulator sends the cell in one message. */
    size_t n = 6 * 1024 * 1024;
    char *big = malloc(n);
    REQUIRE(big != NULL);
    for (size_t i = 0; i < n; i++) big[i] = (char)('a' + i % 26);
    bt_hop h = { BT_HOP_PUT, "cf1", "big", 3, 9, big, n };
    bt_status st;
    CHECK_EQ(bt_mutate_row(c, t, "large", 5, &h, 1, now_ms(), &st), BT_OK);
    bt_read_spec s = row_spec("large", 1);
    bt_reader *r;
    bt_row row = BT_ROW_INIT;
    bool got = false;
    REQUIRE(bt_reader_open(&r, c, t, &s, now_ms(), &st) == BT_OK);
    CHECK_EQ(bt_reader_next(r, &row, &got, &st), BT_OK);
    CHECK(got && row.ncells == 1 && row.cells[0].value_len == n &&
          memcmp(row.cells[0].value, big, n) == 0);
    bt_row_clear(&row);
    bt_reader_close(r);
    /* The ReadModifyWrite reply carries the whole new value too. */
    void *res = NULL;
    size_t len = 0;
    CHECK_EQ(bt_append(c, t, "large", 5, "cf1", "big", 3, "!", 1, &res, &len, &st), BT_OK);
    CHECK_EQ(len, n + 1);
    CHECK(res && memcmp(res, big, n) == 0 && ((char *)res)[n] == '!');
    free(res);
    free(big);
}

typedef struct worker { bt_client *c; const char *t; int id; int failures; } worker;

static void *work(void *arg) {
    worker *w = arg;
    for (int i = 0; i < 20; i++) {
        char row[32], val[32];
        snprintf(row, sizeof row, "w%d-%02d", w->id, i);
        snprintf(val, sizeof val, "%d", i);
        bt_hop h = put("cf1", "q", 1, val);
        bt_status st;
        if (bt_mutate_row(w->c, w->t, row, strlen(row), &h, 1, now_ms(), &st) != BT_OK)
            w->failures++;
        int64_t v;
        if (bt_increment(w->c, w->t, "shared", 6, "cf1", "n", 1, 1, &v, &st) != BT_OK)
            w->failures++;
    }
    return NULL;
}

static void test_threads(bt_client *c, const char *t) {
    worker ws[4];
    pthread_t th[4];
    for (int i = 0; i < 4; i++) {
        ws[i] = (worker){ c, t, i, 0 };
        REQUIRE(pthread_create(&th[i], NULL, work, &ws[i]) == 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        CHECK_EQ(ws[i].failures, 0);
    }
    int64_t v;
    bt_status st;
    CHECK_EQ(bt_increment(c, t, "shared", 6, "cf1", "n", 1, 0, &v, &st), BT_OK);
    CHECK_EQ(v, 80);
    bt_column q = { "cf1", "q", 1 };
    bt_read_spec scan = scan_spec(&q, "w");
    char out[8192];
    CHECK_EQ(dump(c, t, &scan, out, sizeof out, &st), BT_OK);
    int lines = 0;
    for (const char *p = out; (p = strchr(p, '\n')); p++) lines++;
    CHECK_EQ(lines, 80);
}

int main(void) {
    const char *host = getenv("BIGTABLE_EMULATOR_HOST");
    if (!host || !*host) {
        printf("SKIP: BIGTABLE_EMULATOR_HOST is not set; run through scripts/bt_emulator.sh\n");
        return 77;
    }
    bt_client_options o = BT_CLIENT_OPTIONS_INIT;
    o.project = "p";
    o.instance = "i";
    bt_status st;
    bt_client *c = bt_client_open(&o, &st);
    REQUIRE(c != NULL);
    CHECK(bt_client_is_emulator(c));
    char table[64];
    REQUIRE(bt_table_id(table, sizeof table, "ns:t1", &st) == BT_OK);
    test_admin(c, table);
    test_reads(c, table);
    test_deletes(c, table);
    test_read_modify_write(c, table);
    test_check_and_mutate(c, table);
    test_batches(c, table);
    test_threads(c, table);
    test_large_cell(c, table);
    test_resume_and_early_close(table);
    CHECK_EQ(bt_drop_rows(c, table, NULL, 0, &st), BT_OK);
    bt_read_spec all = scan_spec(NULL, NULL);
    CHECK_DUMP(c, table, &all, "");
    CHECK_EQ(bt_delete_table(c, table, &st), BT_OK);
    bt_schema s;
    CHECK_EQ(bt_get_table(c, table, &s, &st), BT_NOT_FOUND);
    CHECK_EQ(bt_delete_table(c, table, &st), BT_NOT_FOUND);
    bt_client_close(c);
    return test_finish("test_bt_client");
}
