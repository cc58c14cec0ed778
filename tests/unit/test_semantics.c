/*
 * HBase data-model semantics through the public header: the examples of the
 * reference documents (webtable, the nested map), versions, the four delete
 * markers and their masking rules, TTL with MIN_VERSIONS, KEEP_DELETED_CELLS,
 * NEW_VERSION_BEHAVIOR, counters, append, check-and-mutate, implicit
 * timestamps, and the scan options. Each case runs with its data still in
 * memory and again after a flush to sorted files, where the result must be
 * the same.
 */
#include "kvcore.h"
#include "util/env.h"
#include "testutil.h"

#include <pthread.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef struct fixture {
    char *dir;
    kv_store *s;
    int64_t clock;          /* the store's clock while frozen (>0) */
} fixture;

static int64_t fixed_clock(void *ctx) { return ((fixture *)ctx)->clock; }

static void fx_open(fixture *fx, bool frozen_clock) {
    kv_store_options o = KV_STORE_OPTIONS_INIT;
    o.create_if_missing = true;
    if (frozen_clock) {
        o.clock_ms = fixed_clock;
        o.clock_ctx = fx;
    }
    char err[512];
    kv_status st = kv_store_open(&fx->s, fx->dir, &o, err, sizeof err);
    if (st != KV_OK) fprintf(stderr, "open: %s\n", err);
    REQUIRE(st == KV_OK);
}

static void fx_start(fixture *fx, const char *tag, bool frozen_clock) {
    fx->dir = test_tmpdir(tag);
    fx->clock = 1700000000000;
    fx_open(fx, frozen_clock);
}

static void fx_end(fixture *fx) {
    CHECK_EQ(kv_store_close(fx->s), KV_OK);
    test_rmtree(fx->dir);
    free(fx->dir);
}

static kv_family_desc family(const char *name, int versions) {
    kv_family_desc f = KV_FAMILY_DESC_INIT;
    snprintf(f.name, sizeof f.name, "%s", name);
    f.versions = versions;
    return f;
}

static void put(fixture *fx, const char *t, const char *row, const char *fam, const char *q,
                int64_t ts, const char *v) {
    kv_status st = kv_put(fx->s, t, row, strlen(row), fam, q, strlen(q), ts, v, strlen(v), NULL);
    if (st != KV_OK) fprintf(stderr, "put failed: %s\n", kv_store_errmsg(fx->s));
    CHECK_EQ(st, KV_OK);
}

/* Formats a result as "fam:q@ts=value;..." for compact comparisons. */
static char *render(const kv_result *r) {
    static char buf[8192];
    size_t n = 0;
    buf[0] = 0;
    for (size_t i = 0; r && i < r->ncells; i++) {
        const kv_cell *c = &r->cells[i];
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s:%.*s@%lld", c->family, (int)c->qualifier_len,
                              (const char *)c->qualifier, (long long)c->timestamp);
        if (c->type != KV_TYPE_PUT) n += (size_t)snprintf(buf + n, sizeof buf - n, "#%d", c->type);
        else n += (size_t)snprintf(buf + n, sizeof buf - n, "=%.*s", (int)c->value_len, (const char *)c->value);
        n += (size_t)snprintf(buf + n, sizeof buf - n, ";");
    }
    return buf;
}

static const char *get_str(fixture *fx, const char *t, const char *row, const kv_read_options *o) {
    kv_result *r = NULL;
    kv_status st = kv_get(&r, fx->s, t, row, strlen(row), o);
    CHECK_EQ(st, KV_OK);
    const char *s = render(r);
    kv_result_free(r);
    return s;
}

#define CHECK_STR(actual, expected) do { \
    const char *a_ = (actual), *e_ = (expected); \
    test_checks_run++; \
    if (strcmp(a_, e_) != 0) { test_checks_failed++; \
        fprintf(stderr, "%s:%d: got '%s'\n%*sexpected '%s'\n", __FILE__, __LINE__, a_, \
                (int)strlen(__FILE__) + 8, "", e_); } \
} while (0)

static kv_read_options at_time(int64_t ts) {
    kv_read_options o = KV_READ_OPTIONS_INIT;
    o.has_timestamp = true;
    o.timestamp = ts;
    return o;
}

static void flush(fixture *fx) { CHECK_EQ(kv_flush(fx->s, NULL), KV_OK); }

/* ---- the webtable example (reference 000, "conceptual view") ---- */

static void test_webtable(bool flushed) {
    fixture fx;
    fx_start(&fx, "webtable", false);
    kv_family_desc fams[3] = {family("contents", 3), family("anchor", 3), family("people", 3)};
    REQUIRE(kv_table_create(fx.s, "webtable", fams, 3) == KV_OK);
    put(&fx, "webtable", "com.cnn.www", "anchor", "cnnsi.com", 9, "CNN");
    put(&fx, "webtable", "com.cnn.www", "anchor", "my.look.ca", 8, "CNN.com");
    put(&fx, "webtable", "com.cnn.www", "contents", "html", 6, "<html>6");
    put(&fx, "webtable", "com.cnn.www", "contents", "html", 5, "<html>5");
    put(&fx, "webtable", "com.cnn.www", "contents", "html", 3, "<html>3");
    put(&fx, "webtable", "com.example.www", "contents", "html", 5, "<html>e");
    put(&fx, "webtable", "com.example.www", "people", "author", 5, "John Doe");
    if (flushed) flush(&fx);

    /* contents:html at t8: empty. */
    kv_column html = {"contents", "html", 4};
    kv_read_options o = at_time(8);
    o.columns = &html;
    o.ncolumns = 1;
    CHECK_STR(get_str(&fx, "webtable", "com.cnn.www", &o), "");
    /* anchor:my.look.ca at t9: empty. */
    kv_column look = {"anchor", "my.look.ca", 10};
    o = at_time(9);
    o.columns = &look;
    o.ncolumns = 1;
    CHECK_STR(get_str(&fx, "webtable", "com.cnn.www", &o), "");
    /* No timestamp: the newest of each column, exactly three cells. */
    CHECK_STR(get_str(&fx, "webtable", "com.cnn.www", NULL),
              "anchor:cnnsi.com@9=CNN;anchor:my.look.ca@8=CNN.com;contents:html@6=<html>6;");
    /* All versions. */
    kv_read_options all = KV_READ_OPTIONS_INIT;
    all.max_versions = INT32_MAX;
    all.columns = &html;
    all.ncolumns = 1;
    CHECK_STR(get_str(&fx, "webtable", "com.cnn.www", &all),
              "contents:html@6=<html>6;contents:html@5=<html>5;contents:html@3=<html>3;");
    /* An exact version that exists. */
    o = at_time(5);
    CHECK_STR(get_str(&fx, "webtable", "com.cnn.www", &o), "contents:html@5=<html>5;");
    CHECK_STR(get_str(&fx, "webtable", "com.example.www", NULL),
              "contents:html@5=<html>e;people:author@5=John Doe;");
    fx_end(&fx);
}

/* ---- the nested map (reference 002): reads bounded by a timestamp ---- */

static void test_nested_map(bool flushed) {
    fixture fx;
    fx_start(&fx, "nested", false);
    kv_family_desc fams[2] = {family("A", 3), family("B", 3)};
    REQUIRE(kv_table_create(fx.s, "t", fams, 2) == KV_OK);
    put(&fx, "t", "aaaaa", "A", "foo", 15, "y");
    put(&fx, "t", "aaaaa", "A", "foo", 4, "m");
    put(&fx, "t", "aaaaa", "A", "bar", 15, "d");
    put(&fx, "t", "aaaaa", "B", "", 6, "w");
    put(&fx, "t", "aaaaa", "B", "", 3, "o");
    put(&fx, "t", "aaaaa", "B", "", 1, "w");
    if (flushed) flush(&fx);
    kv_column foo = {"A", "foo", 3};
    kv_read_options o = KV_READ_OPTIONS_INIT;
    o.columns = &foo;
    o.ncolumns = 1;
    CHECK_STR(get_str(&fx, "t", "aaaaa", &o), "A:foo@15=y;");
    o.time_min = 0;
    o.time_max = 11;     /* "a read at time 10": versions <= 10 */
    CHECK_STR(get_str(&fx, "t", "aaaaa", &o), "A:foo@4=m;");
    o.time_max = 4;      /* "at time 3": nothing */
    CHECK_STR(get_str(&fx, "t", "aaaaa", &o), "");
    kv_column b = {"B", "", 0};
    o = (kv_read_options)KV_READ_OPTIONS_INIT;
    o.columns = &b;
    o.ncolumns = 1;
    CHECK_STR(get_str(&fx, "t", "aaaaa", &o), "B:@6=w;");
    fx_end(&fx);
}

/* ---- deletes mask puts until a major compaction ---- */

static void delete_column(fixture *fx, const char *t, const char *row, const char *fam, const char *q,
                          int64_t ts) {
    kv_mutation *m;
    REQUIRE(kv_mutation_new(&m, row, strlen(row)) == KV_OK);
    CHECK_EQ(kv_mutation_delete_column(m, fam, q, strlen(q), ts), KV_OK);
    CHECK_EQ(kv_mutate(fx->s, t, m, NULL), KV_OK);
    kv_mutation_free(m);
}

static void delete_version(fixture *fx, const char *t, const char *row, const char *fam, const char *q,
                           int64_t ts) {
    kv_mutation *m;
    REQUIRE(kv_mutation_new(&m, row, strlen(row)) == KV_OK);
    CHECK_EQ(kv_mutation_delete_version(m, fam, q, strlen(q), ts), KV_OK);
    CHECK_EQ(kv_mutate(fx->s, t, m, NULL), KV_OK);
    kv_mutation_free(m);
}

static void test_deletes_mask_puts(bool flushed) {
    fixture fx;
    fx_start(&fx, "mask", false);
    kv_family_desc f = family("cf", 3);
    REQUIRE(kv_table_create(fx.s, "t", &f, 1) == KV_OK);
    put(&fx, "t", "r", "cf", "q", 100, "old");
    delete_column(&fx, "t", "r", "cf", "q", 200);
    put(&fx, "t", "r", "cf", "q", 150, "later-but-older");
    if (flushed) flush(&fx);
    CHECK_STR(get_str(&fx, "t", "r", NULL), "");
    put(&fx, "t", "r", "cf", "q", 250, "newer");
    CHECK_STR(get_str(&fx, "t", "r", NULL), "cf:q@250=newer;");
    /* Major compaction drops the marker and what it masked... */
    CHECK_EQ(kv_compact(fx.s, "t", true), KV_OK);
    kv_read_options raw = KV_READ_OPTIONS_INIT;
    raw.raw = true;
    raw.max_versions = INT32_MAX;
    CHECK_STR(get_str(&fx, "t", "r", &raw), "cf:q@250=newer;");
    /* ...so a put at an old timestamp is visible again. */
    put(&fx, "t", "r", "cf", "q", 150, "again");
    kv_read_options all = KV_READ_OPTIONS_INIT;
    all.max_versions = 3;
    CHECK_STR(get_str(&fx, "t", "r", &all), "cf:q@250=newer;cf:q@150=again;");
    fx_end(&fx);
}

/* ---- a minor compaction drops what a marker of its inputs masks ---- */

/* Creates a store in a new directory with the local options lo. */
static void fx_open_local(fixture *fx, const char *tag, const kv_local_options *lo) {
    fx->dir = test_tmpdir(tag);
    kv_store_options o = KV_STORE_OPTIONS_INIT;
    o.create_if_missing = true;
    o.local = lo;
    char err[512];
    kv_status st = kv_store_open(&fx->s, fx->dir, &o, err, sizeof err);
    if (st != KV_OK) fprintf(stderr, "open: %s\n", err);
    REQUIRE(st == KV_OK);
}

static void fx_open_style(fixture *fx, const char *tag, kv_compaction_style style) {
    kv_local_options lo = KV_LOCAL_OPTIONS_INIT;
    lo.compaction = style;
    fx_open_local(fx, tag, &lo);
}

/* HBase's minor compaction drops the puts that a marker among the same
   input files masks, unless KEEP_DELETED_CELLS; puts in files it does not
   take stay. One that takes every sorted file of the family drops the
   markers too (COMPACT_DROP_DELETES, as a major one; KEEP_DELETED_CELLS
   keeps them). The store compacts only when asked (MANUAL: a minor
   kv_compact takes every sorted file), so the state before the compaction
   can be read. */
static void test_minor_compaction_drops_masked(void) {
    fixture fx;
    fx_open_style(&fx, "minor", KV_COMPACTION_MANUAL);
    kv_family_desc fams[2] = {family("cf", 3), family("kd", 3)};
    fams[1].keep_deleted = KV_KEEP_DELETED_TRUE;
    REQUIRE(kv_table_create(fx.s, "t", fams, 2) == KV_OK);
    const char *fam[2] = {"cf", "kd"};
    for (int i = 0; i < 2; i++) {
        put(&fx, "t", "r", fam[i], "q", 100, "old");
        put(&fx, "t", "r", fam[i], "p", 100, "kept");
    }
    flush(&fx);
    for (int i = 0; i < 2; i++) delete_column(&fx, "t", "r", fam[i], "q", 200);
    flush(&fx);
    for (int i = 0; i < 2; i++) put(&fx, "t", "r", fam[i], "q", 300, "new");
    kv_read_options raw = KV_READ_OPTIONS_INIT;
    raw.raw = true;
    raw.max_versions = INT32_MAX;
    const char *before = "cf:p@100=kept;cf:q@300=new;cf:q@200#12;cf:q@100=old;"
                         "kd:p@100=kept;kd:q@300=new;kd:q@200#12;kd:q@100=old;";
    CHECK_STR(get_str(&fx, "t", "r", &raw), before);
    /* A flush keeps the marker and the put that it does not meet. */
    flush(&fx);
    CHECK_STR(get_str(&fx, "t", "r", &raw), before);
    kv_store_stats st;
    CHECK_EQ(kv_store_stat(&st, fx.s), KV_OK);
    CHECK_EQ(st.sorted_files, 6u);
    CHECK_EQ(kv_compact(fx.s, "t", false), KV_OK);
    CHECK_EQ(kv_store_stat(&st, fx.s), KV_OK);
    CHECK_EQ(st.sorted_files, 2u);
    CHECK_STR(get_str(&fx, "t", "r", &raw), "cf:p@100=kept;cf:q@300=new;"
                                            "kd:p@100=kept;kd:q@300=new;kd:q@200#12;kd:q@100=old;");
    kv_read_options all = KV_READ_OPTIONS_INIT;
    all.max_versions = 3;
    CHECK_STR(get_str(&fx, "t", "r", &all), "cf:p@100=kept;cf:q@300=new;kd:p@100=kept;kd:q@300=new;");
    fx_end(&fx);
}

/* ---- which minor compactions drop delete markers ---- */

/* A raw read of every version and marker. */
static kv_read_options raw_all(void) {
    kv_read_options o = KV_READ_OPTIONS_INIT;
    o.raw = true;
    o.max_versions = INT32_MAX;
    return o;
}

/* Opens a store with table t, family cf (VERSIONS 3), and puts cf:q@100
   in row r. */
static void open_with_old_put(fixture *fx, const char *tag, kv_compaction_style style) {
    fx_open_style(fx, tag, style);
    kv_family_desc f = family("cf", 3);
    REQUIRE(kv_table_create(fx->s, "t", &f, 1) == KV_OK);
    put(fx, "t", "r", "cf", "q", 100, "old");
}

/* A minor compaction that takes every file drops markers, but the memstore
   is not among its inputs: a marker it drops no longer masks an older put
   still in memory, as in HBase (deletes mask puts until a compaction that
   drops them). */
static void test_all_files_minor_drops_markers(void) {
    fixture fx;
    open_with_old_put(&fx, "allfiles", KV_COMPACTION_MANUAL);
    flush(&fx);
    delete_column(&fx, "t", "r", "cf", "q", 200);
    delete_version(&fx, "t", "r", "cf", "v", 50);
    flush(&fx);
    put(&fx, "t", "r", "cf", "q", 150, "mem");
    kv_read_options raw = raw_all();
    CHECK_STR(get_str(&fx, "t", "r", &raw), "cf:q@200#12;cf:q@150=mem;cf:q@100=old;cf:v@50#8;");
    CHECK_STR(get_str(&fx, "t", "r", NULL), "");
    CHECK_EQ(kv_compact(fx.s, "t", false), KV_OK);
    CHECK_STR(get_str(&fx, "t", "r", &raw), "cf:q@150=mem;");
    CHECK_STR(get_str(&fx, "t", "r", NULL), "cf:q@150=mem;");
    flush(&fx);
    CHECK_STR(get_str(&fx, "t", "r", NULL), "cf:q@150=mem;");
    fx_end(&fx);
}

/* Fills buf with n - 1 random letters and a NUL: incompressible, whatever
   the family's compression. */
static void incompressible(char *buf, size_t n, uint32_t x) {
    for (size_t i = 0; i + 1 < n; i++) {
        x = x * 1103515245u + 12345u;
        buf[i] = (char)('a' + (x >> 16) % 26);
    }
    buf[n - 1] = 0;
}

/* On the store of open_with_old_put: three flushed files, the one holding
   the large cell big (row filler) first (the oldest) or second, then one
   with a DeleteColumn of r's q@100, then one with cf:a. */
static void three_files(fixture *fx, const char *big, bool big_first) {
    if (big_first) put(fx, "t", "filler", "cf", "x", 1, big);
    flush(fx);
    if (!big_first) put(fx, "t", "filler", "cf", "x", 1, big);
    delete_column(fx, "t", "r", "cf", "q", 200);
    flush(fx);
    put(fx, "t", "r", "cf", "a", 1, "1");
    flush(fx);
}

/* A minor compaction of only some files (AUTO: the size-ratio policy
   leaves out a large old file) keeps the markers: the file it leaves out
   may hold puts they mask. */
static void test_some_files_minor_keeps_markers(void) {
    fixture fx;
    open_with_old_put(&fx, "somefiles", KV_COMPACTION_AUTO);
    static char big[200000];
    incompressible(big, sizeof big, 12345);
    three_files(&fx, big, true);
    put(&fx, "t", "r", "cf", "b", 1, "2");
    flush(&fx);
    CHECK_EQ(kv_compact(fx.s, "t", false), KV_OK);
    kv_store_stats st;
    CHECK_EQ(kv_store_stat(&st, fx.s), KV_OK);
    CHECK_EQ(st.sorted_files, 2u);
    kv_read_options raw = raw_all();
    CHECK_STR(get_str(&fx, "t", "r", &raw), "cf:a@1=1;cf:b@1=2;cf:q@200#12;cf:q@100=old;");
    CHECK_STR(get_str(&fx, "t", "r", NULL), "cf:a@1=1;cf:b@1=2;");
    fx_end(&fx);
}

/* ---- many markers: every file is compacted (AUTO) ---- */

/* Row names r0000, r0001, ... */
static const char *row_name(int i) {
    static char buf[16];
    snprintf(buf, sizeof buf, "r%04d", i);
    return buf;
}

/* A store (AUTO, 32 KiB write buffer) with table t, family cf (VERSIONS 1,
   KEEP_DELETED_CELLS kdc): 1,000 rows of cf:q@100 compacted into one
   file, then DeleteColumn markers at 200 for the first ndeletes rows,
   flushed into a second file. */
static void two_files_with_deletes(fixture *fx, const char *tag, kv_keep_deleted kdc, int ndeletes) {
    kv_local_options lo = KV_LOCAL_OPTIONS_INIT;
    lo.write_buffer_size = 32u << 10;
    fx_open_local(fx, tag, &lo);
    kv_family_desc f = family("cf", 1);
    f.keep_deleted = kdc;
    REQUIRE(kv_table_create(fx->s, "t", &f, 1) == KV_OK);
    char value[101];
    incompressible(value, sizeof value, 7);
    for (int i = 0; i < 1000; i++) put(fx, "t", row_name(i), "cf", "q", 100, value);
    CHECK_EQ(kv_compact(fx->s, "t", true), KV_OK);
    for (int i = 0; i < ndeletes; i++) delete_column(fx, "t", row_name(i), "cf", "q", 200);
    flush(fx);
}

static uint64_t sorted_files(fixture *fx) {
    kv_store_stats st;
    CHECK_EQ(kv_store_stat(&st, fx->s), KV_OK);
    return st.sorted_files;
}

static int rows_readable(fixture *fx) {
    int n = 0;
    for (int i = 0; i < 1000; i++) n += get_str(fx, "t", row_name(i), NULL)[0] != 0;
    return n;
}

/* On two_files_with_deletes' store, a minor compaction leaves the two
   files, the first row's marker and the put it masks. */
static void markers_stay(fixture *fx, const char *tag, kv_keep_deleted kdc, int ndeletes) {
    two_files_with_deletes(fx, tag, kdc, ndeletes);
    kv_read_options raw = raw_all();
    CHECK_EQ(kv_compact(fx->s, "t", false), KV_OK);
    CHECK_EQ(sorted_files(fx), 2u);
    CHECK(strncmp(get_str(fx, "t", row_name(0), &raw), "cf:q@200#12;cf:q@100=", 21) == 0);
    CHECK_EQ(rows_readable(fx), 1000 - ndeletes);
    fx_end(fx);
}

/* When markers are a tenth of the files' entries (150 of 1,150), a minor
   pass compacts every file, though the size-ratio rule takes none of two
   files, and drops the markers and the puts they mask; what reads return
   is the same before and after. Below a tenth (100 of 1,100), and under
   KEEP_DELETED_CELLS, the two files stay. */
static void test_many_markers_compact_all_files(void) {
    fixture fx;
    kv_read_options raw = raw_all();
    two_files_with_deletes(&fx, "manymarkers", KV_KEEP_DELETED_FALSE, 150);
    CHECK_EQ(rows_readable(&fx), 850);
    CHECK_STR(get_str(&fx, "t", row_name(149), NULL), "");
    CHECK_EQ(kv_compact(fx.s, "t", false), KV_OK);
    CHECK_EQ(sorted_files(&fx), 1u);
    CHECK_STR(get_str(&fx, "t", row_name(149), &raw), "");
    CHECK_STR(get_str(&fx, "t", row_name(0), &raw), "");
    CHECK(strncmp(get_str(&fx, "t", row_name(150), &raw), "cf:q@100=", 9) == 0);
    CHECK_EQ(rows_readable(&fx), 850);
    fx_end(&fx);

    markers_stay(&fx, "fewmarkers", KV_KEEP_DELETED_FALSE, 100);
    markers_stay(&fx, "keptmarkers", KV_KEEP_DELETED_TRUE, 150);
}

/* A close (AUTO) merges a family's newer files into one when together they
   are no larger than the oldest, so that the store reopens with two sorted
   runs; the merge takes only some files, so a marker stays. When the newer
   files are larger than the oldest, the close leaves them alone. */
static void test_close_leaves_two_runs(void) {
    static char big[200000];
    incompressible(big, sizeof big, 4321);
    for (int big_first = 1; big_first >= 0; big_first--) {
        fixture fx;
        open_with_old_put(&fx, big_first ? "close2" : "close3", KV_COMPACTION_AUTO);
        three_files(&fx, big, big_first);
        kv_store_stats st;
        CHECK_EQ(kv_store_stat(&st, fx.s), KV_OK);
        CHECK_EQ(st.sorted_files, 3u);   /* the size-ratio rule merges none */
        CHECK_EQ(kv_store_close(fx.s), KV_OK);
        fx_open(&fx, false);
        CHECK_EQ(kv_store_stat(&st, fx.s), KV_OK);
        CHECK_EQ(st.sorted_files, big_first ? 2u : 3u);
        kv_read_options raw = raw_all();
        CHECK_STR(get_str(&fx, "t", "r", &raw), "cf:a@1=1;cf:q@200#12;cf:q@100=old;");
        CHECK_STR(get_str(&fx, "t", "r", NULL), "cf:a@1=1;");
        fx_end(&fx);
    }
    /* Nor does it when the newer files are more than 8 write buffers (the
       close must not take minutes): 2 x 20 KB against 8 x 4 KiB. */
    static char mid[20000];
    incompressible(mid, sizeof mid, 999);
    for (int small_buffer = 0; small_buffer <= 1; small_buffer++) {
        fixture fx;
        kv_local_options lo = KV_LOCAL_OPTIONS_INIT;
        if (small_buffer) lo.write_buffer_size = 4096;
        fx_open_local(&fx, small_buffer ? "closelimit" : "closenolimit", &lo);
        kv_family_desc f = family("cf", 3);
        REQUIRE(kv_table_create(fx.s, "t", &f, 1) == KV_OK);
        put(&fx, "t", "filler", "cf", "x", 1, big);
        flush(&fx);
        put(&fx, "t", "m1", "cf", "x", 1, mid);
        flush(&fx);
        put(&fx, "t", "m2", "cf", "x", 1, mid);
        flush(&fx);
        kv_store_stats st;
        CHECK_EQ(kv_store_stat(&st, fx.s), KV_OK);
        CHECK_EQ(st.sorted_files, 3u);
        CHECK_EQ(kv_store_close(fx.s), KV_OK);
        fx_open(&fx, false);
        CHECK_EQ(kv_store_stat(&st, fx.s), KV_OK);
        CHECK_EQ(st.sorted_files, small_buffer ? 3u : 2u);
        kv_result *r = NULL;
        CHECK_EQ(kv_get(&r, fx.s, "t", "m2", 2, NULL), KV_OK);
        CHECK(r && r->ncells == 1 && r->cells[0].value_len == sizeof mid - 1);
        kv_result_free(r);
        fx_end(&fx);
    }
    /* A disk that fills during that merge: the close still succeeds, and
       the store reopens with its three files and every cell. */
    kv_fault_env *fe = kv_fault_env_new(kv_env_posix());
    REQUIRE(fe);
    fixture fx;
    kv_local_options lo = KV_LOCAL_OPTIONS_INIT;
    lo.env = kv_fault_env_env(fe);
    fx_open_local(&fx, "closefull", &lo);
    kv_family_desc f = family("cf", 3);
    REQUIRE(kv_table_create(fx.s, "t", &f, 1) == KV_OK);
    put(&fx, "t", "r", "cf", "q", 100, "old");
    three_files(&fx, big, true);
    kv_fault_env_set_space(fe, 100);
    uint64_t appends = kv_fault_env_calls(fe, "append");
    CHECK_EQ(kv_store_close(fx.s), KV_OK);
    CHECK(kv_fault_env_calls(fe, "append") > appends);   /* the merge was tried */
    kv_fault_env_set_space(fe, -1);
    fx_open(&fx, false);
    kv_store_stats st;
    CHECK_EQ(kv_store_stat(&st, fx.s), KV_OK);
    CHECK_EQ(st.sorted_files, 3u);
    kv_read_options raw = raw_all();
    CHECK_STR(get_str(&fx, "t", "r", &raw), "cf:a@1=1;cf:q@200#12;cf:q@100=old;");
    fx_end(&fx);
    kv_fault_env_free(fe);
}

/* ---- versions reappear when newer ones are deleted ---- */

static void test_versions_reappear(void) {
    fixture fx;
    fx_start(&fx, "reappear", false);
    kv_family_desc f = family("cf", 2);
    REQUIRE(kv_table_create(fx.s, "t", &f, 1) == KV_OK);
    put(&fx, "t", "r", "cf", "q", 1, "v1");
    put(&fx, "t", "r", "cf", "q", 2, "v2");
    put(&fx, "t", "r", "cf", "q", 3, "v3");
    kv_read_options all = KV_READ_OPTIONS_INIT;
    all.max_versions = 10;
    CHECK_STR(get_str(&fx, "t", "r", &all), "cf:q@3=v3;cf:q@2=v2;");
    delete_version(&fx, "t", "r", "cf", "q", 3);
    CHECK_STR(get_str(&fx, "t", "r", &all), "cf:q@2=v2;cf:q@1=v1;");
    /* Deleting the newest version without a timestamp deletes v2. */
    delete_version(&fx, "t", "r", "cf", "q", KV_LATEST_TIMESTAMP);
    CHECK_STR(get_str(&fx, "t", "r", &all), "cf:q@1=v1;");
    /* After a major compaction the surplus version is gone for good. */
    put(&fx, "t", "r", "cf", "p", 1, "p1");
    put(&fx, "t", "r", "cf", "p", 2, "p2");
    put(&fx, "t", "r", "cf", "p", 3, "p3");
    CHECK_EQ(kv_compact(fx.s, "t", true), KV_OK);
    delete_version(&fx, "t", "r", "cf", "p", 3);
    CHECK_STR(get_str(&fx, "t", "r", &all), "cf:p@2=p2;cf:q@1=v1;");
    fx_end(&fx);
}

/* ---- TTL and MIN_VERSIONS ---- */

static void test_ttl(bool flushed) {
    fixture fx;
    fx_start(&fx, "ttl", true);
    kv_family_desc fams[2] = {family("keep1", 3), family("keep0", 3)};
    fams[0].ttl_seconds = 10;
    fams[0].min_versions = 1;
    fams[1].ttl_seconds = 10;
    REQUIRE(kv_table_create(fx.s, "t", fams, 2) == KV_OK);
    int64_t now = fx.clock;
    put(&fx, "t", "r", "keep1", "q", now - 20000, "expired-older");
    put(&fx, "t", "r", "keep1", "q", now - 15000, "expired-newer");
    put(&fx, "t", "r", "keep0", "q", now - 15000, "expired");
    put(&fx, "t", "r", "keep0", "fresh", now - 5000, "fresh");
    if (flushed) flush(&fx);
    kv_read_options all = KV_READ_OPTIONS_INIT;
    all.max_versions = 3;
    const char *want = NULL;
    char buf[256];
    snprintf(buf, sizeof buf, "keep0:fresh@%lld=fresh;keep1:q@%lld=expired-newer;",
             (long long)(now - 5000), (long long)(now - 15000));
    want = buf;
    CHECK_STR(get_str(&fx, "t", "r", &all), want);
    /* Time moves on: the fresh cell expires too. */
    fx.clock += 6000;
    snprintf(buf, sizeof buf, "keep1:q@%lld=expired-newer;", (long long)(now - 15000));
    CHECK_STR(get_str(&fx, "t", "r", &all), buf);
    CHECK_EQ(kv_compact(fx.s, "t", true), KV_OK);
    CHECK_STR(get_str(&fx, "t", "r", &all), buf);
    kv_read_options raw = KV_READ_OPTIONS_INIT;
    raw.raw = true;
    raw.max_versions = INT32_MAX;
    CHECK_STR(get_str(&fx, "t", "r", &raw), buf);
    fx_end(&fx);
}

/* ---- KEEP_DELETED_CELLS ---- */

static void test_keep_deleted(bool flushed) {
    fixture fx;
    fx_start(&fx, "kdc", false);
    kv_family_desc fams[2] = {family("keep", 5), family("drop", 5)};
    fams[0].keep_deleted = KV_KEEP_DELETED_TRUE;
    REQUIRE(kv_table_create(fx.s, "t", fams, 2) == KV_OK);
    put(&fx, "t", "r", "keep", "q", 100, "v");
    put(&fx, "t", "r", "drop", "q", 100, "v");
    delete_column(&fx, "t", "r", "keep", "q", 200);
    delete_column(&fx, "t", "r", "drop", "q", 200);
    if (flushed) flush(&fx);
    CHECK_STR(get_str(&fx, "t", "r", NULL), "");
    /* A time range before the delete still sees the kept cell. */
    kv_read_options before = KV_READ_OPTIONS_INIT;
    before.time_min = 0;
    before.time_max = 150;
    CHECK_STR(get_str(&fx, "t", "r", &before), "keep:q@100=v;");
    kv_read_options raw = KV_READ_OPTIONS_INIT;
    raw.raw = true;
    raw.max_versions = INT32_MAX;
    /* A flush, like HBase's, drops cells masked by markers (unless kept). */
    CHECK_STR(get_str(&fx, "t", "r", &raw), flushed ? "drop:q@200#12;keep:q@200#12;keep:q@100=v;"
                                                    : "drop:q@200#12;drop:q@100=v;keep:q@200#12;keep:q@100=v;");
    CHECK_EQ(kv_compact(fx.s, "t", true), KV_OK);
    CHECK_STR(get_str(&fx, "t", "r", &raw), "keep:q@200#12;keep:q@100=v;");
    CHECK_STR(get_str(&fx, "t", "r", &before), "keep:q@100=v;");
    CHECK_STR(get_str(&fx, "t", "r", NULL), "");
    fx_end(&fx);
}

/* ---- NEW_VERSION_BEHAVIOR: a marker masks only earlier writes ---- */

static void test_new_version_behavior(void) {
    fixture fx;
    fx_start(&fx, "nvb", false);
    kv_family_desc fams[2] = {family("new", 3), family("old", 3)};
    fams[0].new_version_behavior = true;
    REQUIRE(kv_table_create(fx.s, "t", fams, 2) == KV_OK);
    put(&fx, "t", "r", "new", "q", 100, "before");
    put(&fx, "t", "r", "old", "q", 100, "before");
    delete_column(&fx, "t", "r", "new", "q", 200);
    delete_column(&fx, "t", "r", "old", "q", 200);
    put(&fx, "t", "r", "new", "q", 150, "after");
    put(&fx, "t", "r", "old", "q", 150, "after");
    CHECK_STR(get_str(&fx, "t", "r", NULL), "new:q@150=after;");
    flush(&fx);
    CHECK_STR(get_str(&fx, "t", "r", NULL), "new:q@150=after;");
    fx_end(&fx);
}

/* ---- family and row deletes ---- */

static void test_family_and_row_deletes(bool flushed) {
    fixture fx;
    fx_start(&fx, "famdel", false);
    kv_family_desc fams[2] = {family("a", 5), family("b", 5)};
    REQUIRE(kv_table_create(fx.s, "t", fams, 2) == KV_OK);
    put(&fx, "t", "r", "a", "x", 10, "ax10");
    put(&fx, "t", "r", "a", "y", 20, "ay20");
    put(&fx, "t", "r", "a", "", 30, "a-empty30");
    put(&fx, "t", "r", "b", "x", 10, "bx10");
    put(&fx, "t", "r", "b", "y", 20, "by20");
    kv_mutation *m;
    REQUIRE(kv_mutation_new(&m, "r", 1) == KV_OK);
    CHECK_EQ(kv_mutation_delete_family(m, "a", 20), KV_OK);
    CHECK_EQ(kv_mutation_delete_family_version(m, "b", 10), KV_OK);
    CHECK_EQ(kv_mutate(fx.s, "t", m, NULL), KV_OK);
    kv_mutation_free(m);
    if (flushed) flush(&fx);
    CHECK_STR(get_str(&fx, "t", "r", NULL), "a:@30=a-empty30;b:y@20=by20;");
    kv_column picks[4] = {{"b", "y", 1}, {"a", "y", 1}, {"a", "", 0}, {"b", "x", 1}};
    kv_read_options po = KV_READ_OPTIONS_INIT;
    po.columns = picks;
    po.ncolumns = 4;
    CHECK_STR(get_str(&fx, "t", "r", &po), "a:@30=a-empty30;b:y@20=by20;");
    po.raw = true;
    po.max_versions = 5;
    /* Cell order puts the family marker (empty qualifier) after the newer
       put of the empty qualifier; b's marker is not shown, as b's empty
       qualifier is not selected. */
    CHECK_STR(get_str(&fx, "t", "r", &po), flushed
              ? "a:@30=a-empty30;a:@20#14;b:y@20=by20;"
              : "a:@30=a-empty30;a:@20#14;a:y@20=ay20;b:x@10=bx10;b:y@20=by20;");
    REQUIRE(kv_mutation_new(&m, "r", 1) == KV_OK);
    CHECK_EQ(kv_mutation_delete_row(m, KV_LATEST_TIMESTAMP), KV_OK);
    CHECK_EQ(kv_mutate(fx.s, "t", m, NULL), KV_OK);
    kv_mutation_free(m);
    CHECK_STR(get_str(&fx, "t", "r", NULL), "");
    /* A put right after, with an implicit timestamp, is not masked. */
    put(&fx, "t", "r", "a", "x", KV_LATEST_TIMESTAMP, "back");
    kv_result *r;
    REQUIRE(kv_get(&r, fx.s, "t", "r", 1, NULL) == KV_OK);
    CHECK_EQ(r->ncells, 1);
    kv_result_free(r);
    fx_end(&fx);
}

/* ---- raw reads: cell order and column selections ---- */

/* A raw read returns cells in cell order (qualifier, timestamp descending,
   markers first), so family markers, whose qualifier is empty, sit among
   the empty qualifier's cells by timestamp; and with a column selection it
   shows only the selected columns, so family markers only when the empty
   qualifier is selected (HBase's ExplicitColumnTracker). Masking by them
   still applies to every column. */
static void test_raw_order_and_selection(bool flushed) {
    fixture fx;
    fx_start(&fx, "raworder", false);
    kv_family_desc f = family("f", 5);
    REQUIRE(kv_table_create(fx.s, "t", &f, 1) == KV_OK);
    put(&fx, "t", "r", "f", "", 40, "e40");
    put(&fx, "t", "r", "f", "", 20, "e20");
    put(&fx, "t", "r", "f", "q", 10, "q10");
    put(&fx, "t", "r", "f", "q", 40, "q40");
    kv_mutation *m;
    REQUIRE(kv_mutation_new(&m, "r", 1) == KV_OK);
    CHECK_EQ(kv_mutation_delete_family(m, "f", 30), KV_OK);
    CHECK_EQ(kv_mutation_delete_family_version(m, "f", 40), KV_OK);
    CHECK_EQ(kv_mutate(fx.s, "t", m, NULL), KV_OK);
    kv_mutation_free(m);
    if (flushed) flush(&fx);
    kv_read_options o = KV_READ_OPTIONS_INIT;
    o.raw = true;
    o.max_versions = 5;
    /* (A flush keeps the markers and drops the puts they mask.) */
    CHECK_STR(get_str(&fx, "t", "r", &o), flushed
              ? "f:@40#10;f:@30#14;"
              : "f:@40#10;f:@40=e40;f:@30#14;f:@20=e20;f:q@40=q40;f:q@10=q10;");
    kv_column q = {"f", "q", 1};
    o.columns = &q;
    o.ncolumns = 1;
    CHECK_STR(get_str(&fx, "t", "r", &o), flushed ? "" : "f:q@40=q40;f:q@10=q10;");
    o.raw = false;
    CHECK_STR(get_str(&fx, "t", "r", &o), "");
    fx_end(&fx);
}

/* Puts t/r/f:q = "v<ts>" at timestamps 1..n. */
static void put_versions(fixture *fx, int n) {
    for (int ts = 1; ts <= n; ts++) {
        char v[16];
        snprintf(v, sizeof v, "v%d", ts);
        put(fx, "t", "r", "f", "q", ts, v);
    }
}

/* A raw read shows what is physically there, counting versions with its
   own VERSIONS, not the family's (SPEC §1; issue 10): surplus versions
   still in the memstore, until a flush drops them. */
static void test_raw_counts_own_versions(bool flushed) {
    fixture fx;
    fx_start(&fx, "rawver", false);
    kv_family_desc f = family("f", 2);
    REQUIRE(kv_table_create(fx.s, "t", &f, 1) == KV_OK);
    put_versions(&fx, 4);
    if (flushed) flush(&fx);
    kv_read_options o = KV_READ_OPTIONS_INIT;
    o.raw = true;
    o.max_versions = 10;
    CHECK_STR(get_str(&fx, "t", "r", &o),
              flushed ? "f:q@4=v4;f:q@3=v3;" : "f:q@4=v4;f:q@3=v3;f:q@2=v2;f:q@1=v1;");
    o.max_versions = 3;
    CHECK_STR(get_str(&fx, "t", "r", &o), flushed ? "f:q@4=v4;f:q@3=v3;" : "f:q@4=v4;f:q@3=v3;f:q@2=v2;");
    /* A plain read stays capped by the family's VERSIONS. */
    o.raw = false;
    CHECK_STR(get_str(&fx, "t", "r", &o), "f:q@4=v4;f:q@3=v3;");
    fx_end(&fx);
}

/* Increments and appends stamp max(previous timestamp + 1, now), as
   HBase's region code does, so that they never replace a version in place
   (issue 10): two within one millisecond leave two versions, and one after
   a version in the future goes just above it. */
static void test_rmw_timestamps(bool flushed) {
    fixture fx;
    fx_start(&fx, "rmwts", true);   /* the clock stands still */
    kv_family_desc f = family("f", 5);
    REQUIRE(kv_table_create(fx.s, "t", &f, 1) == KV_OK);
    int64_t now = fx.clock, v = 0;
    CHECK_EQ(kv_increment(&v, fx.s, "t", "r", 1, "f", "n", 1, 1, NULL), KV_OK);
    if (flushed) flush(&fx);
    CHECK_EQ(kv_increment(&v, fx.s, "t", "r", 1, "f", "n", 1, 1, NULL), KV_OK);
    CHECK_EQ(v, 2);
    CHECK_EQ(kv_append(NULL, NULL, fx.s, "t", "r", 1, "f", "s", 1, "a", 1, NULL), KV_OK);
    CHECK_EQ(kv_append(NULL, NULL, fx.s, "t", "r", 1, "f", "s", 1, "b", 1, NULL), KV_OK);
    put(&fx, "t", "r", "f", "z", now + 1000, "future");
    CHECK_EQ(kv_append(NULL, NULL, fx.s, "t", "r", 1, "f", "z", 1, "!", 1, NULL), KV_OK);
    if (flushed) flush(&fx);
    kv_read_options o = KV_READ_OPTIONS_INIT;
    o.max_versions = 5;
    kv_result *r;
    REQUIRE(kv_get(&r, fx.s, "t", "r", 1, &o) == KV_OK);
    REQUIRE(r->ncells == 6);
    /* f:n, newest first: 2 at now + 1, 1 at now */
    CHECK_EQ(r->cells[0].timestamp, now + 1);
    CHECK_EQ(r->cells[0].value_len, 8);
    CHECK_EQ(r->cells[0].value[7], 2);
    CHECK_EQ(r->cells[1].timestamp, now);
    CHECK_EQ(r->cells[1].value[7], 1);
    kv_result_free(r);
    kv_column sz[2] = {{"f", "s", 1}, {"f", "z", 1}};
    o.columns = sz;
    o.ncolumns = 2;
    char want[256];
    snprintf(want, sizeof want, "f:s@%lld=ab;f:s@%lld=a;f:z@%lld=future!;f:z@%lld=future;",
             (long long)now + 1, (long long)now, (long long)now + 1001, (long long)now + 1000);
    CHECK_STR(get_str(&fx, "t", "r", &o), want);
    fx_end(&fx);
}

/* Versions are trimmed when cells are written to a file, not when they are
   put (SPEC §1; issue 10): the memstore keeps every version, and versions
   newer than a read's time range are not counted, so until a flush a
   time-range or timestamp read finds versions beyond VERSIONS; after it,
   not. */
static void test_trim_at_flush(bool flushed) {
    fixture fx;
    fx_start(&fx, "trim", false);
    kv_family_desc f = family("f", 2);
    REQUIRE(kv_table_create(fx.s, "t", &f, 1) == KV_OK);
    put_versions(&fx, 4);
    if (flushed) flush(&fx);
    kv_read_options o = KV_READ_OPTIONS_INIT;
    o.max_versions = 2;
    o.time_min = 0;
    o.time_max = 3;
    CHECK_STR(get_str(&fx, "t", "r", &o), flushed ? "" : "f:q@2=v2;f:q@1=v1;");
    o = at_time(1);
    CHECK_STR(get_str(&fx, "t", "r", &o), flushed ? "" : "f:q@1=v1;");
    CHECK_STR(get_str(&fx, "t", "r", NULL), "f:q@4=v4;");
    fx_end(&fx);
}

/* Filters are offered up to the family's VERSIONS versions of each column
   and the read's VERSIONS counts the cells they include, as HBase's
   UserScanQueryMatcher does (issue 10, rule 6): a TimestampsFilter, which
   skips newer versions, finds one older than the cap; a
   SingleColumnValueFilter with latestVersionOnly=false includes every
   version, so it sees one more than the cap and matches an older version
   only when the read's VERSIONS reach it; versions beyond the family's
   VERSIONS are never offered. */
static const char *get_filtered(fixture *fx, const char *text, int versions) {
    kv_filter *flt = NULL;
    char err[256];
    REQUIRE(kv_filter_parse(&flt, text, err, sizeof err) == KV_OK);
    kv_read_options o = KV_READ_OPTIONS_INIT;
    o.filter = flt;
    o.max_versions = versions;
    const char *s = get_str(fx, "t", "r", &o);
    kv_filter_free(flt);
    return s;
}

static void test_filter_sees_family_versions(bool flushed) {
    fixture fx;
    fx_start(&fx, "fltver", false);
    kv_family_desc f = family("f", 3);
    REQUIRE(kv_table_create(fx.s, "t", &f, 1) == KV_OK);
    put_versions(&fx, 4);
    if (flushed) flush(&fx);
    CHECK_STR(get_filtered(&fx, "TimestampsFilter(2, 3)", 1), "f:q@3=v3;");
    CHECK_STR(get_filtered(&fx, "TimestampsFilter(2, 3)", 5), "f:q@3=v3;f:q@2=v2;");
    CHECK_STR(get_filtered(&fx, "TimestampsFilter(1, 2)", 1), "f:q@2=v2;");
    /* v1 is beyond the family's 3 versions: never offered, even in memory */
    CHECK_STR(get_filtered(&fx, "TimestampsFilter(1)", 5), "");
    CHECK_STR(get_filtered(&fx, "ValueFilter(=, 'binary:v2')", 1), "f:q@2=v2;");
    CHECK_STR(get_filtered(&fx, "SingleColumnValueFilter('f', 'q', =, 'binary:v2', true, false)", 1), "");
    CHECK_STR(get_filtered(&fx, "SingleColumnValueFilter('f', 'q', =, 'binary:v3', true, false)", 1),
              "f:q@4=v4;");
    CHECK_STR(get_filtered(&fx, "SingleColumnValueFilter('f', 'q', =, 'binary:v2', true, false)", 3),
              "f:q@4=v4;f:q@3=v3;f:q@2=v2;");
    CHECK_STR(get_filtered(&fx, "SingleColumnValueFilter('f', 'q', =, 'binary:v2', true, true)", 1), "");
    /* without a filter the read's VERSIONS count as before */
    kv_read_options o = KV_READ_OPTIONS_INIT;
    o.max_versions = 2;
    CHECK_STR(get_str(&fx, "t", "r", &o), "f:q@4=v4;f:q@3=v3;");
    fx_end(&fx);
}

/* A read naming a family and one of its columns: the later spec wins, as
   HBase's Get/Scan addFamily / addColumn do (issue 10). */
static void test_family_then_column(bool flushed) {
    fixture fx;
    fx_start(&fx, "famcol", false);
    kv_family_desc fams[2] = {family("f", 3), family("g", 3)};
    REQUIRE(kv_table_create(fx.s, "t", fams, 2) == KV_OK);
    put(&fx, "t", "r", "f", "a", 1, "fa");
    put(&fx, "t", "r", "f", "b", 1, "fb");
    put(&fx, "t", "r", "g", "a", 1, "ga");
    if (flushed) flush(&fx);
    kv_read_options o = KV_READ_OPTIONS_INIT;
    kv_column family_then_column[3] = {{"f", NULL, 0}, {"f", "a", 1}, {"g", NULL, 0}};
    o.columns = family_then_column;
    o.ncolumns = 3;
    CHECK_STR(get_str(&fx, "t", "r", &o), "f:a@1=fa;g:a@1=ga;");
    kv_column column_then_family[2] = {{"f", "a", 1}, {"f", NULL, 0}};
    o.columns = column_then_family;
    o.ncolumns = 2;
    CHECK_STR(get_str(&fx, "t", "r", &o), "f:a@1=fa;f:b@1=fb;");
    kv_column two_columns[3] = {{"f", NULL, 0}, {"f", "b", 1}, {"f", "a", 1}};
    o.columns = two_columns;
    o.ncolumns = 3;
    CHECK_STR(get_str(&fx, "t", "r", &o), "f:a@1=fa;f:b@1=fb;");
    fx_end(&fx);
}

/* ---- implicit timestamps within one millisecond ---- */

static void test_implicit_timestamps(void) {
    fixture fx;
    fx_start(&fx, "implicit", true);   /* the clock never moves */
    kv_family_desc f = family("cf", 1);
    REQUIRE(kv_table_create(fx.s, "t", &f, 1) == KV_OK);
    put(&fx, "t", "r", "cf", "q", KV_LATEST_TIMESTAMP, "one");
    delete_column(&fx, "t", "r", "cf", "q", KV_LATEST_TIMESTAMP);
    CHECK_STR(get_str(&fx, "t", "r", NULL), "");
    put(&fx, "t", "r", "cf", "q", KV_LATEST_TIMESTAMP, "two");
    kv_result *r;
    REQUIRE(kv_get(&r, fx.s, "t", "r", 1, NULL) == KV_OK);
    REQUIRE(r->ncells == 1);
    CHECK_BYTES(r->cells[0].value, r->cells[0].value_len, "two");
    CHECK(r->cells[0].timestamp > fx.clock);   /* moved past the delete */
    int64_t ts = r->cells[0].timestamp;
    kv_result_free(r);
    /* Same cell, same millisecond: the later put replaces the value. */
    put(&fx, "t", "r", "cf", "q", KV_LATEST_TIMESTAMP, "three");
    REQUIRE(kv_get(&r, fx.s, "t", "r", 1, NULL) == KV_OK);
    REQUIRE(r->ncells == 1);
    CHECK_BYTES(r->cells[0].value, r->cells[0].value_len, "three");
    CHECK(r->cells[0].timestamp >= ts);
    kv_result_free(r);
    /* Never backwards, across a reopen too. */
    CHECK(kv_store_now(fx.s) >= ts);
    CHECK_EQ(kv_store_close(fx.s), KV_OK);
    fx.clock -= 100000;   /* the wall clock jumps back */
    fx_open(&fx, true);
    CHECK(kv_store_now(fx.s) >= ts);
    put(&fx, "t", "r", "cf", "q", KV_LATEST_TIMESTAMP, "four");
    REQUIRE(kv_get(&r, fx.s, "t", "r", 1, NULL) == KV_OK);
    REQUIRE(r->ncells == 1);
    CHECK_BYTES(r->cells[0].value, r->cells[0].value_len, "four");
    kv_result_free(r);
    fx_end(&fx);
}

/* ---- counters, append, check-and-mutate ---- */

static void test_counters(void) {
    fixture fx;
    fx_start(&fx, "counters", false);
    kv_family_desc f = family("cf", 1);
    REQUIRE(kv_table_create(fx.s, "t", &f, 1) == KV_OK);
    int64_t v = 0;
    CHECK_EQ(kv_increment(&v, fx.s, "t", "r", 1, "cf", "c", 1, 1, NULL), KV_OK);
    CHECK_EQ(v, 1);
    CHECK_EQ(kv_increment(&v, fx.s, "t", "r", 1, "cf", "c", 1, 41, NULL), KV_OK);
    CHECK_EQ(v, 42);
    CHECK_EQ(kv_increment(&v, fx.s, "t", "r", 1, "cf", "c", 1, -50, NULL), KV_OK);
    CHECK_EQ(v, -8);
    kv_result *r;
    REQUIRE(kv_get(&r, fx.s, "t", "r", 1, NULL) == KV_OK);
    REQUIRE(r->ncells == 1);
    CHECK_EQ(r->cells[0].value_len, 8);
    CHECK(memcmp(r->cells[0].value, "\xff\xff\xff\xff\xff\xff\xff\xf8", 8) == 0);
    kv_result_free(r);
    put(&fx, "t", "r", "cf", "text", KV_LATEST_TIMESTAMP, "abc");
    CHECK_EQ(kv_increment(&v, fx.s, "t", "r", 1, "cf", "text", 4, 1, NULL), KV_NOT_COUNTER);
    CHECK(strstr(kv_store_errmsg(fx.s), "3 bytes") != NULL);
    kv_column text = {"cf", "text", 4};
    kv_read_options o = KV_READ_OPTIONS_INIT;
    o.columns = &text;
    o.ncolumns = 1;
    REQUIRE(kv_get(&r, fx.s, "t", "r", 1, &o) == KV_OK);
    REQUIRE(r->ncells == 1);
    CHECK_BYTES(r->cells[0].value, r->cells[0].value_len, "abc");
    kv_result_free(r);
    CHECK_EQ(kv_increment(&v, fx.s, "t", "r", 1, "nofam", "c", 1, 1, NULL), KV_NO_FAMILY);

    void *appended = NULL;
    size_t appended_len = 0;
    CHECK_EQ(kv_append(&appended, &appended_len, fx.s, "t", "r", 1, "cf", "text", 4, "def", 3, NULL), KV_OK);
    CHECK_BYTES(appended, appended_len, "abcdef");
    free(appended);
    CHECK_EQ(kv_append(NULL, NULL, fx.s, "t", "r", 1, "cf", "new", 3, "xyz", 3, NULL), KV_OK);
    kv_column cols[2] = {{"cf", "text", 4}, {"cf", "new", 3}};
    o.columns = cols;
    o.ncolumns = 2;
    REQUIRE(kv_get(&r, fx.s, "t", "r", 1, &o) == KV_OK);
    REQUIRE(r->ncells == 2);
    CHECK_BYTES(r->cells[0].value, r->cells[0].value_len, "xyz");
    CHECK_BYTES(r->cells[1].value, r->cells[1].value_len, "abcdef");
    kv_result_free(r);

    kv_mutation *m;
    bool applied = true;
    REQUIRE(kv_mutation_new(&m, "r", 1) == KV_OK);
    CHECK_EQ(kv_mutation_put(m, "cf", "flag", 4, KV_LATEST_TIMESTAMP, "set", 3), KV_OK);
    CHECK_EQ(kv_check_and_mutate(&applied, fx.s, "t", "r", 1, "cf", "text", 4, KV_CMP_EQUAL, "nope", 4, m, NULL), KV_OK);
    CHECK(!applied);
    CHECK_EQ(kv_check_and_mutate(&applied, fx.s, "t", "r", 1, "cf", "text", 4, KV_CMP_EQUAL, "abcdef", 6, m, NULL), KV_OK);
    CHECK(applied);
    CHECK_EQ(kv_check_and_mutate(&applied, fx.s, "t", "r", 1, "cf", "absent", 6, KV_CMP_EQUAL, NULL, 0, m, NULL), KV_OK);
    CHECK(applied);
    CHECK_EQ(kv_check_and_mutate(&applied, fx.s, "t", "r", 1, "cf", "text", 4, KV_CMP_EQUAL, NULL, 0, m, NULL), KV_OK);
    CHECK(!applied);
    CHECK_EQ(kv_check_and_mutate(&applied, fx.s, "t", "other", 5, "cf", "text", 4, KV_CMP_EQUAL, NULL, 0, m, NULL), KV_INVALID);
    kv_mutation_free(m);
    fx_end(&fx);
}

/* ---- scans ---- */

static char *scan_rows(fixture *fx, const char *t, const kv_read_options *o) {
    static char buf[4096];
    size_t n = 0;
    buf[0] = 0;
    kv_scan *sc;
    kv_status st = kv_scan_open(&sc, fx->s, t, o);
    CHECK_EQ(st, KV_OK);
    if (st != KV_OK) return buf;
    const kv_result *r;
    while ((st = kv_scan_next(&r, sc)) == KV_OK)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%.*s(%zu) ", (int)r->row_len, (const char *)r->row, r->ncells);
    CHECK_EQ(st, KV_END);
    kv_scan_close(sc);
    return buf;
}

static void test_scans(bool flushed) {
    fixture fx;
    fx_start(&fx, "scan", false);
    kv_family_desc fams[2] = {family("a", 3), family("b", 3)};
    REQUIRE(kv_table_create(fx.s, "t", fams, 2) == KV_OK);
    const char *rows[] = {"abc1", "abc2", "abc3", "row1", "row2", "row3", "zz"};
    for (int i = 0; i < 7; i++) {
        put(&fx, "t", rows[i], "a", "q", 10, rows[i]);
        if (i % 2) put(&fx, "t", rows[i], "b", "p", 10, "odd");
    }
    /* a row that exists only as deleted cells is not returned */
    put(&fx, "t", "gone", "a", "q", 10, "x");
    delete_column(&fx, "t", "gone", "a", "q", 10);
    if (flushed) flush(&fx);
    CHECK_STR(scan_rows(&fx, "t", NULL), "abc1(1) abc2(2) abc3(1) row1(2) row2(1) row3(2) zz(1) ");
    kv_read_options o = KV_READ_OPTIONS_INIT;
    o.start_row = "abc3";
    o.start_row_len = 4;
    o.stop_row = "row3";
    o.stop_row_len = 4;
    CHECK_STR(scan_rows(&fx, "t", &o), "abc3(1) row1(2) row2(1) ");
    o.limit = 2;
    CHECK_STR(scan_rows(&fx, "t", &o), "abc3(1) row1(2) ");
    o = (kv_read_options)KV_READ_OPTIONS_INIT;
    o.row_prefix = "row";
    o.row_prefix_len = 3;
    CHECK_STR(scan_rows(&fx, "t", &o), "row1(2) row2(1) row3(2) ");
    o.reversed = true;
    CHECK_STR(scan_rows(&fx, "t", &o), "row3(2) row2(1) row1(2) ");
    o = (kv_read_options)KV_READ_OPTIONS_INIT;
    o.reversed = true;
    CHECK_STR(scan_rows(&fx, "t", &o), "zz(1) row3(2) row2(1) row1(2) abc3(1) abc2(2) abc1(1) ");
    o.start_row = "row2";
    o.start_row_len = 4;
    o.stop_row = "abc2";
    o.stop_row_len = 4;
    CHECK_STR(scan_rows(&fx, "t", &o), "row2(1) row1(2) abc3(1) ");
    o = (kv_read_options)KV_READ_OPTIONS_INIT;
    kv_column b = {"b", NULL, 0};
    o.columns = &b;
    o.ncolumns = 1;
    CHECK_STR(scan_rows(&fx, "t", &o), "abc2(1) row1(1) row3(1) ");
    /* selected qualifiers: each read by seeking to it, rows in order both ways */
    kv_column sel[3] = {{"b", "p", 1}, {"a", "q", 1}, {"b", "p", 1}};
    o = (kv_read_options)KV_READ_OPTIONS_INIT;
    o.columns = sel;
    o.ncolumns = 3;
    CHECK_STR(scan_rows(&fx, "t", &o), "abc1(1) abc2(2) abc3(1) row1(2) row2(1) row3(2) zz(1) ");
    o.reversed = true;
    CHECK_STR(scan_rows(&fx, "t", &o), "zz(1) row3(2) row2(1) row1(2) abc3(1) abc2(2) abc1(1) ");
    kv_column absent = {"a", "nope", 4};
    o = (kv_read_options)KV_READ_OPTIONS_INIT;
    o.columns = &absent;
    o.ncolumns = 1;
    CHECK_STR(scan_rows(&fx, "t", &o), "");
    o = (kv_read_options)KV_READ_OPTIONS_INIT;
    o.raw = true;
    CHECK_STR(scan_rows(&fx, "t", &o), flushed
              ? "abc1(1) abc2(2) abc3(1) gone(1) row1(2) row2(1) row3(2) zz(1) "
              : "abc1(1) abc2(2) abc3(1) gone(2) row1(2) row2(1) row3(2) zz(1) ");
    /* filters */
    kv_filter *f;
    char err[256];
    REQUIRE(kv_filter_parse(&f, "PrefixFilter('row') AND ValueFilter(=, 'binary:row2')", err, sizeof err) == KV_OK);
    o = (kv_read_options)KV_READ_OPTIONS_INIT;
    o.filter = f;
    CHECK_STR(scan_rows(&fx, "t", &o), "row2(1) ");
    kv_filter_free(f);
    REQUIRE(kv_filter_parse(&f, "PageFilter(2)", err, sizeof err) == KV_OK);
    o.filter = f;
    CHECK_STR(scan_rows(&fx, "t", &o), "abc1(1) abc2(2) ");
    kv_filter_free(f);
    /* binary row keys, including zero bytes, sort as unsigned bytes */
    kv_status st = kv_put(fx.s, "t", "a\0b", 3, "a", "q", 1, 1, "z", 1, NULL);
    CHECK_EQ(st, KV_OK);
    st = kv_put(fx.s, "t", "a", 1, "a", "q", 1, 1, "z", 1, NULL);
    CHECK_EQ(st, KV_OK);
    st = kv_put(fx.s, "t", "\xff", 1, "a", "q", 1, 1, "z", 1, NULL);
    CHECK_EQ(st, KV_OK);
    kv_scan *sc;
    REQUIRE(kv_scan_open(&sc, fx.s, "t", NULL) == KV_OK);
    const kv_result *r;
    REQUIRE(kv_scan_next(&r, sc) == KV_OK);
    CHECK(r->row_len == 1 && r->row[0] == 'a');
    REQUIRE(kv_scan_next(&r, sc) == KV_OK);
    CHECK(r->row_len == 3 && memcmp(r->row, "a\0b", 3) == 0);
    const kv_result *last = NULL;
    while (kv_scan_next(&r, sc) == KV_OK) last = r;
    CHECK(last && last->row_len == 1 && last->row[0] == 0xff);
    kv_scan_close(sc);
    fx_end(&fx);
}

/* ---- catalog rules ---- */

static void test_catalog(void) {
    fixture fx;
    fx_start(&fx, "catalog", false);
    char **names;
    REQUIRE(kv_namespace_list(&names, fx.s) == KV_OK);
    CHECK(names[0] && strcmp(names[0], "default") == 0);
    CHECK(names[1] && strcmp(names[1], "hbase") == 0);
    CHECK(names[2] == NULL);
    kv_free_names(names);
    CHECK_EQ(kv_namespace_drop(fx.s, "default"), KV_INVALID);
    CHECK_EQ(kv_namespace_create(fx.s, "ns1"), KV_OK);
    CHECK_EQ(kv_namespace_create(fx.s, "ns1"), KV_EXISTS);
    CHECK_EQ(kv_namespace_create(fx.s, "../evil"), KV_INVALID);
    CHECK_EQ(kv_namespace_create(fx.s, "a/b"), KV_INVALID);
    CHECK_EQ(kv_namespace_set_property(fx.s, "ns1", "owner", "me"), KV_OK);
    kv_property *props;
    size_t np;
    REQUIRE(kv_namespace_describe(&props, &np, fx.s, "ns1") == KV_OK);
    CHECK_EQ(np, 1);
    CHECK(np == 1 && strcmp(props[0].key, "owner") == 0 && strcmp(props[0].value, "me") == 0);
    kv_free_properties(props, np);
    kv_family_desc f = family("cf", 1);
    CHECK_EQ(kv_table_create(fx.s, "ns1:t", &f, 1), KV_OK);
    CHECK_EQ(kv_table_create(fx.s, "ns1:t", &f, 1), KV_EXISTS);
    CHECK_EQ(kv_table_create(fx.s, "nons:t", &f, 1), KV_NOT_FOUND);
    CHECK_EQ(kv_table_create(fx.s, "..", &f, 1), KV_INVALID);
    CHECK_EQ(kv_table_create(fx.s, "x/y", &f, 1), KV_INVALID);
    CHECK_EQ(kv_table_create(fx.s, "plain", &f, 1), KV_OK);
    CHECK_EQ(kv_table_create(fx.s, "nofam", &f, 0), KV_INVALID);
    kv_family_desc dup[2] = {f, f};
    CHECK_EQ(kv_table_create(fx.s, "dup", dup, 2), KV_INVALID);
    REQUIRE(kv_table_list(&names, fx.s, NULL) == KV_OK);
    CHECK(names[0] && strcmp(names[0], "ns1:t") == 0);
    CHECK(names[1] && strcmp(names[1], "plain") == 0);
    kv_free_names(names);
    CHECK_EQ(kv_namespace_drop(fx.s, "ns1"), KV_NOT_EMPTY);
    put(&fx, "ns1:t", "r", "cf", "q", 5, "v");
    CHECK_EQ(kv_table_drop(fx.s, "ns1:t"), KV_ENABLED);
    CHECK_EQ(kv_table_disable(fx.s, "ns1:t"), KV_OK);
    CHECK_EQ(kv_table_disable(fx.s, "ns1:t"), KV_DISABLED);
    bool en = true;
    CHECK_EQ(kv_table_is_enabled(&en, fx.s, "ns1:t"), KV_OK);
    CHECK(!en);
    kv_result *r = NULL;
    CHECK_EQ(kv_get(&r, fx.s, "ns1:t", "r", 1, NULL), KV_DISABLED);
    CHECK_EQ(kv_put(fx.s, "ns1:t", "r", 1, "cf", "q", 1, 5, "v", 1, NULL), KV_DISABLED);
    CHECK_EQ(kv_table_enable(fx.s, "ns1:t"), KV_OK);
    CHECK_STR(get_str(&fx, "ns1:t", "r", NULL), "cf:q@5=v;");
    /* truncate keeps the families and drops the cells, also after reopen */
    CHECK_EQ(kv_table_truncate(fx.s, "ns1:t", false), KV_OK);
    CHECK_STR(get_str(&fx, "ns1:t", "r", NULL), "");
    /* alter: add a family, change one, delete one */
    kv_family_desc g = family("g", 4);
    g.compression = KV_COMPRESSION_LZ4;
    CHECK_EQ(kv_table_alter_family(fx.s, "ns1:t", &g), KV_OK);
    put(&fx, "ns1:t", "r", "g", "q", 7, "gv");
    kv_table_desc *d;
    REQUIRE(kv_table_describe(&d, fx.s, "ns1:t") == KV_OK);
    CHECK_EQ(d->nfamilies, 2);
    CHECK(strcmp(d->families[1].name, "g") == 0 && d->families[1].versions == 4 &&
          d->families[1].compression == KV_COMPRESSION_LZ4);
    CHECK(d->families[0].bloom == KV_BLOOM_ROW && d->families[0].blocksize == 65536 &&
          d->families[0].ttl_seconds == KV_FOREVER && d->families[0].blockcache);
    kv_table_desc_free(d);
    CHECK_EQ(kv_table_delete_family(fx.s, "ns1:t", "cf"), KV_OK);
    CHECK_EQ(kv_table_delete_family(fx.s, "ns1:t", "g"), KV_INVALID);
    CHECK_EQ(kv_put(fx.s, "ns1:t", "r", 1, "cf", "q", 1, 5, "v", 1, NULL), KV_NO_FAMILY);
    /* everything survives a reopen */
    CHECK_EQ(kv_store_close(fx.s), KV_OK);
    fx_open(&fx, false);
    CHECK_STR(get_str(&fx, "ns1:t", "r", NULL), "g:q@7=gv;");
    REQUIRE(kv_namespace_describe(&props, &np, fx.s, "ns1") == KV_OK);
    CHECK_EQ(np, 1);
    kv_free_properties(props, np);
    CHECK_EQ(kv_table_disable(fx.s, "ns1:t"), KV_OK);
    CHECK_EQ(kv_table_drop(fx.s, "ns1:t"), KV_OK);
    CHECK_EQ(kv_table_exists(fx.s, "ns1:t"), KV_NOT_FOUND);
    CHECK_EQ(kv_namespace_drop(fx.s, "ns1"), KV_OK);
    fx_end(&fx);
}

/* ---- what kv_store_open accepts ---- */

static void *close_later(void *arg) {
    nanosleep(&(struct timespec){0, 200 * 1000 * 1000}, NULL);
    kv_store_close(arg);
    return NULL;
}

/* A second opener fails at once, or waits for the holder with lock_wait_ms. */
static void test_lock_wait(void) {
    char *dir = test_tmpdir("lockwait");
    char err[512];
    kv_store_options o = KV_STORE_OPTIONS_INIT;
    o.create_if_missing = true;
    o.owner = "first opener";
    kv_store *a, *b = NULL;
    REQUIRE(kv_store_open(&a, dir, &o, err, sizeof err) == KV_OK);
    CHECK_EQ(kv_store_open(&b, dir, &o, err, sizeof err), KV_LOCKED);
    CHECK(strstr(err, "first opener") != NULL);
    pthread_t t;
    REQUIRE(pthread_create(&t, NULL, close_later, a) == 0);
    kv_local_options lo = KV_LOCAL_OPTIONS_INIT;
    lo.lock_wait_ms = 5000;
    o.local = &lo;
    CHECK_EQ(kv_store_open(&b, dir, &o, err, sizeof err), KV_OK);
    pthread_join(t, NULL);
    CHECK_EQ(kv_store_close(b), KV_OK);
    test_rmtree(dir);
    free(dir);
}

static void test_open_rules(void) {
    char *dir = test_tmpdir("openrules");
    char path[1024], err[512];
    kv_store *s = NULL;
    kv_store_options o = KV_STORE_OPTIONS_INIT;
    /* a directory holding other files is not turned into a store */
    snprintf(path, sizeof path, "%s/notes.txt", dir);
    FILE *f = fopen(path, "w");
    REQUIRE(f != NULL);
    fputs("mine\n", f);
    fclose(f);
    o.create_if_missing = true;
    CHECK_EQ(kv_store_open(&s, dir, &o, err, sizeof err), KV_INVALID);
    CHECK(strstr(err, "not a cellfs store") != NULL);
    snprintf(path, sizeof path, "%s/MANIFEST", dir);
    CHECK(access(path, F_OK) != 0);
    snprintf(path, sizeof path, "%s/LOCK", dir);
    CHECK(access(path, F_OK) != 0);
    /* a missing store is not created unless asked */
    snprintf(path, sizeof path, "%s/new", dir);
    o.create_if_missing = false;
    CHECK_EQ(kv_store_open(&s, path, &o, err, sizeof err), KV_NOT_FOUND);
    CHECK(strstr(err, "no store at") != NULL);
    CHECK(access(path, F_OK) != 0);
    /* nor is a missing parent */
    snprintf(path, sizeof path, "%s/no/such/parent", dir);
    o.create_if_missing = true;
    CHECK_EQ(kv_store_open(&s, path, &o, err, sizeof err), KV_NOT_FOUND);
    CHECK(strstr(err, "parent directory missing") != NULL);
    /* an empty directory becomes a store; error_if_exists refuses it next */
    snprintf(path, sizeof path, "%s/empty", dir);
    REQUIRE(mkdir(path, 0755) == 0);
    REQUIRE(kv_store_open(&s, path, &o, err, sizeof err) == KV_OK);
    CHECK_EQ(kv_store_close(s), KV_OK);
    o.error_if_exists = true;
    CHECK_EQ(kv_store_open(&s, path, &o, err, sizeof err), KV_EXISTS);
    test_rmtree(dir);
    free(dir);
}

int main(void) {
    for (int flushed = 0; flushed < 2; flushed++) {
        test_webtable(flushed);
        test_nested_map(flushed);
        test_deletes_mask_puts(flushed);
        test_ttl(flushed);
        test_keep_deleted(flushed);
        test_family_and_row_deletes(flushed);
        test_raw_order_and_selection(flushed);
        test_family_then_column(flushed);
        test_raw_counts_own_versions(flushed);
        test_rmw_timestamps(flushed);
        test_trim_at_flush(flushed);
        test_filter_sees_family_versions(flushed);
        test_scans(flushed);
    }
    test_versions_reappear();
    test_minor_compaction_drops_masked();
    test_all_files_minor_drops_markers();
    test_some_files_minor_keeps_markers();
    test_many_markers_compact_all_files();
    test_close_leaves_two_runs();
    test_new_version_behavior();
    test_implicit_timestamps();
    test_counters();
    test_catalog();
    test_open_rules();
    test_lock_wait();
    return test_finish("test_semantics");
}
