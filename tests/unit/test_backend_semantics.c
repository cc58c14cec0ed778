/*
 * The HBase semantics that every backend shares, run against a store
 * location, through kvcore.h only: the webtable and nested-map examples,
 * versions and time ranges, deletes of a version, of a column and of the
 * newest version, family and row deletes, TTL, counters, appends,
 * check-and-mutate, batches, scans with bounds, prefixes, limits, column
 * selections (the later spec wins), filters and binary keys, the catalog,
 * table attributes (READONLY), implicit timestamps, and reopening. Where a backend lacks a capability
 * (kv_store_capabilities), the case checks the documented other behaviour
 * instead: the call fails with KV_NOT_SUPPORTED and a message that names
 * the backend and says why, or (without KV_CAP_DELETE_MARKERS) a later put
 * is visible whatever its timestamp. Nothing depends on flushes or
 * compactions (tests/unit/test_semantics.c covers the local engine's
 * physical layers).
 *
 *   test_backend_semantics                 the local engine and model:
 *   test_backend_semantics local|model|bigtable
 *
 * "bigtable" needs BIGTABLE_EMULATOR_HOST (scripts/bt_emulator.sh run
 * starts the emulator); each case gets an instance of its own, so cases
 * share nothing. Without the variable it exits 77 (skipped), saying so.
 */
#include "kvcore.h"
#include "testutil.h"

#include <stdbool.h>
#include <time.h>
#include <unistd.h>

typedef struct fixture {
    const char *kind;           /* "local", "model", "bigtable" */
    char location[256];
    char *dir;                  /* local: the store's directory */
    kv_store *s;
    uint64_t caps;
} fixture;

static const char *g_kind;      /* the backend of this run */

static int64_t wall_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void fx_open(fixture *fx) {
    kv_store_options o = KV_STORE_OPTIONS_INIT;
    o.create_if_missing = true;
    char err[512];
    kv_status st = kv_store_open(&fx->s, fx->location, &o, err, sizeof err);
    if (st != KV_OK) fprintf(stderr, "open %s: %s\n", fx->location, err);
    REQUIRE(st == KV_OK);
    fx->caps = kv_store_capabilities(fx->s);
}

/* A new, empty store of this run's backend. */
static void fx_start(fixture *fx, const char *tag) {
    static unsigned serial;
    memset(fx, 0, sizeof *fx);
    fx->kind = g_kind;
    if (strcmp(g_kind, "local") == 0) {
        fx->dir = test_tmpdir(tag);
        snprintf(fx->location, sizeof fx->location, "%s", fx->dir);
    } else if (strcmp(g_kind, "model") == 0) {
        snprintf(fx->location, sizeof fx->location, "model:");
    } else {
        snprintf(fx->location, sizeof fx->location, "bigtable://semantics/%s-%d-%u", tag,
                 (int)getpid(), serial++);
    }
    fx_open(fx);
}

static void fx_end(fixture *fx) {
    CHECK_EQ(kv_store_close(fx->s), KV_OK);
    if (fx->dir) {
        test_rmtree(fx->dir);
        free(fx->dir);
    }
}

static bool has(const fixture *fx, uint64_t cap) { return (fx->caps & cap) != 0; }

static bool is_bigtable(const fixture *fx) { return strcmp(fx->kind, "bigtable") == 0; }

/* A refusal as kvcore.h promises it: KV_NOT_SUPPORTED, and a message
   naming the backend or the service. */
#define CHECK_REFUSED(fx, call) do { \
    kv_status st_ = (call); \
    CHECK_EQ(st_, KV_NOT_SUPPORTED); \
    const char *m_ = kv_store_errmsg((fx)->s); \
    CHECK(strstr(m_, "not supported") != NULL || strstr(m_, "does not support") != NULL); \
    CHECK(strstr(m_, "bigtable") != NULL || strstr(m_, "Bigtable") != NULL || \
          strstr(m_, (fx)->kind) != NULL); \
} while (0)

static kv_family_desc fam(const char *name, int versions) {
    kv_family_desc f = KV_FAMILY_DESC_INIT;
    snprintf(f.name, sizeof f.name, "%s", name);
    f.versions = versions;
    return f;
}

static void make_table(fixture *fx, const char *t, const kv_family_desc *fs, size_t n) {
    kv_status st = kv_table_create(fx->s, t, fs, n);
    if (st != KV_OK) fprintf(stderr, "create %s: %s\n", t, kv_store_errmsg(fx->s));
    REQUIRE(st == KV_OK);
}

static void put(fixture *fx, const char *t, const char *row, const char *f, const char *q,
                int64_t ts, const char *v) {
    kv_status st = kv_put(fx->s, t, row, strlen(row), f, q, strlen(q), ts, v, strlen(v), NULL);
    if (st != KV_OK) fprintf(stderr, "put %s/%s:%s: %s\n", row, f, q, kv_store_errmsg(fx->s));
    CHECK_EQ(st, KV_OK);
}

/* Applies a mutation of one operation built by @p add, returns the status. */
typedef kv_status (*adder)(kv_mutation *m, const char *f, const char *q, int64_t ts);

static kv_status add_delete_version(kv_mutation *m, const char *f, const char *q, int64_t ts) {
    return kv_mutation_delete_version(m, f, q, strlen(q), ts);
}
static kv_status add_delete_column(kv_mutation *m, const char *f, const char *q, int64_t ts) {
    return kv_mutation_delete_column(m, f, q, strlen(q), ts);
}
static kv_status add_delete_family(kv_mutation *m, const char *f, const char *q, int64_t ts) {
    (void)q;
    return kv_mutation_delete_family(m, f, ts);
}
static kv_status add_delete_family_version(kv_mutation *m, const char *f, const char *q,
                                           int64_t ts) {
    (void)q;
    return kv_mutation_delete_family_version(m, f, ts);
}
static kv_status add_delete_row(kv_mutation *m, const char *f, const char *q, int64_t ts) {
    (void)f;
    (void)q;
    return kv_mutation_delete_row(m, ts);
}

static kv_status apply(fixture *fx, const char *t, const char *row, adder add, const char *f,
                       const char *q, int64_t ts) {
    kv_mutation *m;
    REQUIRE(kv_mutation_new(&m, row, strlen(row)) == KV_OK);
    REQUIRE(add(m, f, q, ts) == KV_OK);
    kv_status st = kv_mutate(fx->s, t, m, NULL);
    kv_mutation_free(m);
    return st;
}

/* Every cell a read returns, as "f:q@ts=v " (rows of a scan as "row{...} "). */
static void cells_to(char *out, size_t cap, size_t *len, const kv_result *r) {
    for (size_t i = 0; r && i < r->ncells; i++) {
        const kv_cell *c = &r->cells[i];
        *len += (size_t)snprintf(out + *len, cap - *len, "%s:%.*s@%lld=%.*s ", c->family,
                                 (int)c->qualifier_len, (const char *)c->qualifier,
                                 (long long)c->timestamp, (int)c->value_len,
                                 (const char *)c->value);
    }
}

static char got_buf[8192];

static const char *get(fixture *fx, const char *t, const char *row, const kv_read_options *o) {
    kv_result *r = NULL;
    size_t len = 0;
    got_buf[0] = '\0';
    kv_status st = kv_get(&r, fx->s, t, row, strlen(row), o);
    if (st != KV_OK) fprintf(stderr, "get: %s\n", kv_store_errmsg(fx->s));
    CHECK_EQ(st, KV_OK);
    cells_to(got_buf, sizeof got_buf, &len, r);
    kv_result_free(r);
    return got_buf;
}

/* Scans and renders each row as "row(ncells) ", or "row{cells} " with
   @p cells; NULL options read everything. Returns the status that ended
   the scan (KV_END when all went well) through *end when non-NULL. */
static const char *scan(fixture *fx, const char *t, const kv_read_options *o, bool cells,
                        kv_status *end) {
    kv_scan *sc;
    size_t len = 0;
    got_buf[0] = '\0';
    kv_status st = kv_scan_open(&sc, fx->s, t, o);
    if (st == KV_OK) {
        const kv_result *r;
        while ((st = kv_scan_next(&r, sc)) == KV_OK) {
            len += (size_t)snprintf(got_buf + len, sizeof got_buf - len, "%.*s", (int)r->row_len,
                                    (const char *)r->row);
            if (cells) {
                len += (size_t)snprintf(got_buf + len, sizeof got_buf - len, "{");
                cells_to(got_buf, sizeof got_buf, &len, r);
                len += (size_t)snprintf(got_buf + len, sizeof got_buf - len, "} ");
            } else {
                len += (size_t)snprintf(got_buf + len, sizeof got_buf - len, "(%zu) ", r->ncells);
            }
        }
        kv_scan_close(sc);
    }
    if (end) *end = st;
    else if (st != KV_END) {
        fprintf(stderr, "scan ended with %s: %s\n", kv_strerror(st), kv_store_errmsg(fx->s));
        CHECK_EQ(st, KV_END);
    }
    return got_buf;
}

#define CHECK_STR(actual, expected) do { \
    const char *a_ = (actual), *e_ = (expected); \
    test_checks_run++; \
    if (strcmp(a_, e_) != 0) { test_checks_failed++; \
        fprintf(stderr, "%s:%d: got '%s'\n    expected '%s'\n", __FILE__, __LINE__, a_, e_); } \
} while (0)

static kv_read_options exactly(int64_t ts) {
    kv_read_options o = KV_READ_OPTIONS_INIT;
    o.has_timestamp = true;
    o.timestamp = ts;
    return o;
}

/* ---- cases ---- */

/* The webtable of the Bigtable paper and HBase's reference guide. */
static void test_webtable(void) {
    fixture fx;
    fx_start(&fx, "webtable");
    kv_family_desc fs[3] = {fam("contents", 3), fam("anchor", 3), fam("people", 3)};
    make_table(&fx, "webtable", fs, 3);
    put(&fx, "webtable", "com.cnn.www", "anchor", "cnnsi.com", 9, "CNN");
    put(&fx, "webtable", "com.cnn.www", "anchor", "my.look.ca", 8, "CNN.com");
    put(&fx, "webtable", "com.cnn.www", "contents", "html", 6, "<html>6");
    put(&fx, "webtable", "com.cnn.www", "contents", "html", 5, "<html>5");
    put(&fx, "webtable", "com.cnn.www", "contents", "html", 3, "<html>3");
    put(&fx, "webtable", "com.example.www", "people", "author", 5, "John Doe");
    kv_column html = {"contents", "html", 4};
    kv_read_options o = exactly(8);
    o.columns = &html;
    o.ncolumns = 1;
    CHECK_STR(get(&fx, "webtable", "com.cnn.www", &o), "");
    CHECK_STR(get(&fx, "webtable", "com.cnn.www", NULL),
              "anchor:cnnsi.com@9=CNN anchor:my.look.ca@8=CNN.com contents:html@6=<html>6 ");
    kv_read_options all = KV_READ_OPTIONS_INIT;
    all.max_versions = INT32_MAX;
    all.columns = &html;
    all.ncolumns = 1;
    CHECK_STR(get(&fx, "webtable", "com.cnn.www", &all),
              "contents:html@6=<html>6 contents:html@5=<html>5 contents:html@3=<html>3 ");
    all.max_versions = 2;
    CHECK_STR(get(&fx, "webtable", "com.cnn.www", &all),
              "contents:html@6=<html>6 contents:html@5=<html>5 ");
    o = exactly(5);
    CHECK_STR(get(&fx, "webtable", "com.cnn.www", &o), "contents:html@5=<html>5 ");
    CHECK_STR(get(&fx, "webtable", "com.example.www", NULL), "people:author@5=John Doe ");
    CHECK_STR(get(&fx, "webtable", "com.nobody.www", NULL), "");
    fx_end(&fx);
}

/* Time ranges count versions inside the range only (HBase's rule). */
static void test_time_ranges(void) {
    fixture fx;
    fx_start(&fx, "timerange");
    kv_family_desc fs[2] = {fam("A", 3), fam("B", 3)};
    make_table(&fx, "t", fs, 2);
    put(&fx, "t", "aaaaa", "A", "foo", 15, "y");
    put(&fx, "t", "aaaaa", "A", "foo", 4, "m");
    put(&fx, "t", "aaaaa", "B", "", 6, "w");
    put(&fx, "t", "aaaaa", "B", "", 3, "o");
    kv_column foo = {"A", "foo", 3};
    kv_read_options o = KV_READ_OPTIONS_INIT;
    o.columns = &foo;
    o.ncolumns = 1;
    CHECK_STR(get(&fx, "t", "aaaaa", &o), "A:foo@15=y ");
    o.time_min = 0;
    o.time_max = 11;
    CHECK_STR(get(&fx, "t", "aaaaa", &o), "A:foo@4=m ");
    o.time_max = 4;
    CHECK_STR(get(&fx, "t", "aaaaa", &o), "");
    kv_column b = {"B", "", 0};
    o = (kv_read_options)KV_READ_OPTIONS_INIT;
    o.columns = &b;
    o.ncolumns = 1;
    o.max_versions = 5;
    o.time_min = 4;
    CHECK_STR(get(&fx, "t", "aaaaa", &o), "B:@6=w ");
    /* An empty range is refused, as every backend does. */
    o.time_min = 9;
    o.time_max = 3;
    kv_result *r = NULL;
    CHECK_EQ(kv_get(&r, fx.s, "t", "aaaaa", 5, &o), KV_INVALID);
    CHECK(r == NULL);
    fx_end(&fx);
}

/* Deletes of one version (given or the newest) and of a column up to a
   timestamp; older versions come back into view. */
static void test_version_deletes(void) {
    fixture fx;
    fx_start(&fx, "versiondel");
    kv_family_desc f = fam("cf", 5);
    make_table(&fx, "t", &f, 1);
    put(&fx, "t", "r", "cf", "q", 1, "v1");
    put(&fx, "t", "r", "cf", "q", 2, "v2");
    put(&fx, "t", "r", "cf", "q", 3, "v3");
    put(&fx, "t", "r", "cf", "p", 10, "p10");
    put(&fx, "t", "r", "cf", "p", 20, "p20");
    put(&fx, "t", "r", "cf", "p", 30, "p30");
    kv_read_options all = KV_READ_OPTIONS_INIT;
    all.max_versions = 10;
    CHECK_EQ(apply(&fx, "t", "r", add_delete_version, "cf", "q", 3), KV_OK);
    CHECK_STR(get(&fx, "t", "r", &all), "cf:p@30=p30 cf:p@20=p20 cf:p@10=p10 cf:q@2=v2 cf:q@1=v1 ");
    /* Without a timestamp: the newest version present. */
    CHECK_EQ(apply(&fx, "t", "r", add_delete_version, "cf", "q", KV_LATEST_TIMESTAMP), KV_OK);
    CHECK_STR(get(&fx, "t", "r", &all), "cf:p@30=p30 cf:p@20=p20 cf:p@10=p10 cf:q@1=v1 ");
    /* The newest of a column that has none: nothing happens. */
    CHECK_EQ(apply(&fx, "t", "r", add_delete_version, "cf", "none", KV_LATEST_TIMESTAMP), KV_OK);
    /* A version that is not there: nothing happens either. */
    CHECK_EQ(apply(&fx, "t", "r", add_delete_version, "cf", "q", 7), KV_OK);
    CHECK_EQ(apply(&fx, "t", "r", add_delete_column, "cf", "p", 20), KV_OK);
    CHECK_STR(get(&fx, "t", "r", &all), "cf:p@30=p30 cf:q@1=v1 ");
    CHECK_EQ(apply(&fx, "t", "r", add_delete_column, "cf", "p", KV_LATEST_TIMESTAMP), KV_OK);
    CHECK_STR(get(&fx, "t", "r", &all), "cf:q@1=v1 ");
    /* A row whose cells are all deleted is not returned by scans. */
    CHECK_EQ(apply(&fx, "t", "r", add_delete_column, "cf", "q", KV_LATEST_TIMESTAMP), KV_OK);
    CHECK_STR(scan(&fx, "t", NULL, false, NULL), "");
    fx_end(&fx);
}

/* "Deletes mask puts": with delete markers a later put at an older
   timestamp stays hidden; without them (kvcore.h, KV_CAP_DELETE_MARKERS)
   it is visible. Either way, an implicit put after an implicit delete is
   visible (SPEC §1). */
static void test_puts_after_deletes(void) {
    fixture fx;
    fx_start(&fx, "mask");
    kv_family_desc f = fam("cf", 3);
    make_table(&fx, "t", &f, 1);
    put(&fx, "t", "r", "cf", "q", 100, "old");
    CHECK_EQ(apply(&fx, "t", "r", add_delete_column, "cf", "q", 200), KV_OK);
    put(&fx, "t", "r", "cf", "q", 150, "later-but-older");
    CHECK_STR(get(&fx, "t", "r", NULL),
              has(&fx, KV_CAP_DELETE_MARKERS) ? "" : "cf:q@150=later-but-older ");
    put(&fx, "t", "r", "cf", "q", 250, "newer");
    CHECK_STR(get(&fx, "t", "r", NULL), "cf:q@250=newer ");
    put(&fx, "t", "r", "cf", "i", KV_LATEST_TIMESTAMP, "one");
    CHECK_EQ(apply(&fx, "t", "r", add_delete_column, "cf", "i", KV_LATEST_TIMESTAMP), KV_OK);
    put(&fx, "t", "r", "cf", "i", KV_LATEST_TIMESTAMP, "two");
    kv_column i = {"cf", "i", 1};
    kv_read_options o = KV_READ_OPTIONS_INIT;
    o.columns = &i;
    o.ncolumns = 1;
    kv_result *r;
    REQUIRE(kv_get(&r, fx.s, "t", "r", 1, &o) == KV_OK);
    REQUIRE(r->ncells == 1);
    CHECK_BYTES(r->cells[0].value, r->cells[0].value_len, "two");
    kv_result_free(r);
    fx_end(&fx);
}

/* Family and row deletes at "now" remove every cell up to now; bounded by
   an explicit timestamp they need delete markers; a cell stamped after
   now survives HBase's delete at now, and a backend that cannot spare it
   refuses instead of deleting it. */
static void test_family_and_row_deletes(void) {
    fixture fx;
    fx_start(&fx, "famdel");
    kv_family_desc fs[2] = {fam("a", 5), fam("b", 5)};
    make_table(&fx, "t", fs, 2);
    put(&fx, "t", "r", "a", "x", 10, "ax");
    put(&fx, "t", "r", "a", "", 30, "a-empty");
    put(&fx, "t", "r", "b", "x", 10, "bx");
    put(&fx, "t", "r2", "a", "x", 10, "r2");
    CHECK_EQ(apply(&fx, "t", "r", add_delete_family, "a", NULL, KV_LATEST_TIMESTAMP), KV_OK);
    CHECK_STR(get(&fx, "t", "r", NULL), "b:x@10=bx ");
    if (has(&fx, KV_CAP_DELETE_MARKERS)) {
        put(&fx, "t", "r", "a", "x", 10, "ax");
        put(&fx, "t", "r", "a", "y", 20, "ay");
        CHECK_EQ(apply(&fx, "t", "r", add_delete_family, "a", NULL, 15), KV_OK);
        CHECK_EQ(apply(&fx, "t", "r", add_delete_row, NULL, NULL, 5), KV_OK);
        /* (a:x was put again after the family marker at "now": masked) */
        CHECK_STR(get(&fx, "t", "r", NULL), "b:x@10=bx ");
    } else {
        put(&fx, "t", "r", "a", "y", 20, "ay");
        CHECK_REFUSED(&fx, apply(&fx, "t", "r", add_delete_family, "a", NULL, 15));
        CHECK_REFUSED(&fx, apply(&fx, "t", "r", add_delete_row, NULL, NULL, 5));
        CHECK_STR(get(&fx, "t", "r", NULL), "a:y@20=ay b:x@10=bx ");
    }
    CHECK_EQ(apply(&fx, "t", "r", add_delete_row, NULL, NULL, KV_LATEST_TIMESTAMP), KV_OK);
    CHECK_STR(get(&fx, "t", "r", NULL), "");
    CHECK_STR(get(&fx, "t", "r2", NULL), "a:x@10=r2 ");
    /* A put right after, with an implicit timestamp, is not masked. */
    put(&fx, "t", "r", "a", "x", KV_LATEST_TIMESTAMP, "back");
    kv_result *res;
    REQUIRE(kv_get(&res, fx.s, "t", "r", 1, NULL) == KV_OK);
    CHECK_EQ(res->ncells, 1);
    kv_result_free(res);
    /* A cell an hour ahead of the clock. */
    char future[64];
    int64_t later = wall_ms() + 3600 * 1000;
    snprintf(future, sizeof future, "a:f@%lld=future ", (long long)later);
    put(&fx, "t", "f", "a", "f", later, "future");
    put(&fx, "t", "f", "a", "g", 10, "past");
    kv_status st = apply(&fx, "t", "f", add_delete_row, NULL, NULL, KV_LATEST_TIMESTAMP);
    if (has(&fx, KV_CAP_DELETE_MARKERS)) {
        CHECK_EQ(st, KV_OK);
        CHECK_STR(get(&fx, "t", "f", NULL), future);
    } else {
        CHECK_EQ(st, KV_NOT_SUPPORTED);
        CHECK(strstr(kv_store_errmsg(fx.s), "after now") != NULL);
        char both[128];
        snprintf(both, sizeof both, "%sa:g@10=past ", future);
        CHECK_STR(get(&fx, "t", "f", NULL), both);   /* nothing was deleted */
    }
    /* DeleteFamilyVersion needs its capability. */
    if (has(&fx, KV_CAP_DELETE_FAMILY_VERSION))
        CHECK_EQ(apply(&fx, "t", "r2", add_delete_family_version, "a", NULL, 10), KV_OK);
    else CHECK_REFUSED(&fx, apply(&fx, "t", "r2", add_delete_family_version, "a", NULL, 10));
    CHECK_STR(get(&fx, "t", "r2", NULL),
              has(&fx, KV_CAP_DELETE_FAMILY_VERSION) ? "" : "a:x@10=r2 ");
    fx_end(&fx);
}

/* Cells older than the family's TTL are never returned. */
static void test_ttl(void) {
    fixture fx;
    fx_start(&fx, "ttl");
    kv_family_desc fs[2] = {fam("short", 3), fam("long", 3)};
    fs[0].ttl_seconds = 60;
    make_table(&fx, "t", fs, 2);
    int64_t now = wall_ms();
    put(&fx, "t", "r", "short", "old", now - 600 * 1000, "expired");
    put(&fx, "t", "r", "short", "new", now - 5 * 1000, "fresh");
    put(&fx, "t", "r", "long", "old", now - 600 * 1000, "kept");
    char want[256];
    snprintf(want, sizeof want, "long:old@%lld=kept short:new@%lld=fresh ",
             (long long)(now - 600 * 1000), (long long)(now - 5 * 1000));
    CHECK_STR(get(&fx, "t", "r", NULL), want);
    /* A time range that lies wholly past the TTL finds nothing. */
    kv_read_options o = KV_READ_OPTIONS_INIT;
    kv_column sh = {"short", NULL, 0};
    o.columns = &sh;
    o.ncolumns = 1;
    o.time_min = 0;
    o.time_max = now - 300 * 1000;
    CHECK_STR(get(&fx, "t", "r", &o), "");
    /* MIN_VERSIONS and KEEP_DELETED_CELLS need their capabilities. */
    kv_family_desc mv = fam("mv", 3);
    mv.min_versions = 1;
    if (has(&fx, KV_CAP_MIN_VERSIONS)) CHECK_EQ(kv_table_alter_family(fx.s, "t", &mv), KV_OK);
    else CHECK_REFUSED(&fx, kv_table_alter_family(fx.s, "t", &mv));
    kv_family_desc kd = fam("kd", 3);
    kd.keep_deleted = KV_KEEP_DELETED_TRUE;
    if (has(&fx, KV_CAP_KEEP_DELETED_CELLS)) CHECK_EQ(kv_table_create(fx.s, "t2", &kd, 1), KV_OK);
    else CHECK_REFUSED(&fx, kv_table_create(fx.s, "t2", &kd, 1));
    fx_end(&fx);
}

/* Increments, appends and check-and-mutate. */
static void test_counters_and_checks(void) {
    fixture fx;
    fx_start(&fx, "counters");
    kv_family_desc f = fam("cf", 3);
    make_table(&fx, "t", &f, 1);
    int64_t v = 0;
    CHECK_EQ(kv_increment(&v, fx.s, "t", "r", 1, "cf", "c", 1, 1, NULL), KV_OK);
    CHECK_EQ(v, 1);
    CHECK_EQ(kv_increment(&v, fx.s, "t", "r", 1, "cf", "c", 1, 41, NULL), KV_OK);
    CHECK_EQ(v, 42);
    CHECK_EQ(kv_increment(&v, fx.s, "t", "r", 1, "cf", "c", 1, -50, NULL), KV_OK);
    CHECK_EQ(v, -8);
    kv_column c = {"cf", "c", 1};
    kv_read_options o = KV_READ_OPTIONS_INIT;
    o.columns = &c;
    o.ncolumns = 1;
    kv_result *r;
    REQUIRE(kv_get(&r, fx.s, "t", "r", 1, &o) == KV_OK);
    REQUIRE(r->ncells == 1);
    CHECK(r->cells[0].value_len == 8 &&
          memcmp(r->cells[0].value, "\xff\xff\xff\xff\xff\xff\xff\xf8", 8) == 0);
    kv_result_free(r);
    put(&fx, "t", "r", "cf", "text", KV_LATEST_TIMESTAMP, "abc");
    CHECK_EQ(kv_increment(&v, fx.s, "t", "r", 1, "cf", "text", 4, 1, NULL), KV_NOT_COUNTER);
    CHECK(kv_store_errmsg(fx.s)[0] != '\0');
    CHECK_EQ(kv_increment(&v, fx.s, "t", "r", 1, "nofam", "c", 1, 1, NULL), KV_NO_FAMILY);
    CHECK_EQ(kv_increment(&v, fx.s, "nosuch", "r", 1, "cf", "c", 1, 1, NULL), KV_NOT_FOUND);
    void *out = NULL;
    size_t out_len = 0;
    CHECK_EQ(kv_append(&out, &out_len, fx.s, "t", "r", 1, "cf", "text", 4, "def", 3, NULL), KV_OK);
    CHECK_BYTES(out, out_len, "abcdef");
    free(out);
    CHECK_EQ(kv_append(&out, &out_len, fx.s, "t", "r", 1, "cf", "new", 3, "xyz", 3, NULL), KV_OK);
    CHECK_BYTES(out, out_len, "xyz");
    free(out);

    kv_mutation *m;
    bool applied = true;
    REQUIRE(kv_mutation_new(&m, "r", 1) == KV_OK);
    REQUIRE(kv_mutation_put(m, "cf", "flag", 4, KV_LATEST_TIMESTAMP, "set", 3) == KV_OK);
    static const struct { kv_compare_op op; const char *expected; bool applies; } cases[] = {
        {KV_CMP_EQUAL, "nope", false},   {KV_CMP_EQUAL, "abcdef", true},
        {KV_CMP_NOT_EQUAL, "abcdef", false}, {KV_CMP_NOT_EQUAL, "zzz", true},
        /* "value OP expected": "abcdef" < "b", > "abc" */
        {KV_CMP_LESS, "b", true},        {KV_CMP_LESS, "abc", false},
        {KV_CMP_GREATER, "abc", true},   {KV_CMP_GREATER_OR_EQUAL, "abcdef", true},
        {KV_CMP_LESS_OR_EQUAL, "abcde", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CHECK_EQ(kv_check_and_mutate(&applied, fx.s, "t", "r", 1, "cf", "text", 4, cases[i].op,
                                     cases[i].expected, strlen(cases[i].expected), m, NULL),
                 KV_OK);
        if (applied != cases[i].applies) fprintf(stderr, "  case %zu\n", i);
        CHECK(applied == cases[i].applies);
    }
    CHECK_EQ(kv_check_and_mutate(&applied, fx.s, "t", "r", 1, "cf", "absent", 6, KV_CMP_EQUAL,
                                 NULL, 0, m, NULL), KV_OK);
    CHECK(applied);
    CHECK_EQ(kv_check_and_mutate(&applied, fx.s, "t", "r", 1, "cf", "text", 4, KV_CMP_EQUAL,
                                 NULL, 0, m, NULL), KV_OK);
    CHECK(!applied);
    CHECK_EQ(kv_check_and_mutate(&applied, fx.s, "t", "other", 5, "cf", "text", 4, KV_CMP_EQUAL,
                                 NULL, 0, m, NULL), KV_INVALID);
    CHECK_EQ(kv_check_and_mutate(&applied, fx.s, "t", "r", 1, "nofam", "text", 4, KV_CMP_EQUAL,
                                 NULL, 0, m, NULL), KV_NO_FAMILY);
    kv_mutation_free(m);
    kv_column flag = {"cf", "flag", 4};
    o.columns = &flag;
    REQUIRE(kv_get(&r, fx.s, "t", "r", 1, &o) == KV_OK);
    CHECK(r->ncells == 1 && r->cells[0].value_len == 3);
    kv_result_free(r);
    fx_end(&fx);
}

/* A batch: each row atomic, a bad row reported in its own status. */
static void test_batches(void) {
    fixture fx;
    fx_start(&fx, "batch");
    kv_family_desc f = fam("cf", 1);
    make_table(&fx, "t", &f, 1);
    kv_mutation *ms[5];
    for (int i = 0; i < 5; i++) {
        char row[8];
        snprintf(row, sizeof row, "row%d", i);
        REQUIRE(kv_mutation_new(&ms[i], row, strlen(row)) == KV_OK);
        REQUIRE(kv_mutation_put(ms[i], i == 2 ? "nofam" : "cf", "q", 1, 7, row, strlen(row)) == KV_OK);
        REQUIRE(kv_mutation_put(ms[i], i == 2 ? "nofam" : "cf", "p", 1, 7, "p", 1) == KV_OK);
    }
    kv_status statuses[5];
    CHECK_EQ(kv_mutate_batch(fx.s, "t", ms, 5, statuses, NULL), KV_NO_FAMILY);
    for (int i = 0; i < 5; i++) CHECK_EQ(statuses[i], i == 2 ? KV_NO_FAMILY : KV_OK);
    for (int i = 0; i < 5; i++) kv_mutation_free(ms[i]);
    CHECK_STR(scan(&fx, "t", NULL, false, NULL), "row0(2) row1(2) row3(2) row4(2) ");
    CHECK_EQ(kv_mutate_batch(fx.s, "nosuch", ms, 0, NULL, NULL), KV_NOT_FOUND);
    fx_end(&fx);
}

/* Scans: bounds, prefixes, limits, selections, filters, binary keys. */
static void test_scans(void) {
    fixture fx;
    fx_start(&fx, "scan");
    kv_family_desc fs[2] = {fam("a", 3), fam("b", 3)};
    make_table(&fx, "t", fs, 2);
    const char *rows[] = {"abc1", "abc2", "abc3", "row1", "row2", "row3", "zz"};
    for (int i = 0; i < 7; i++) {
        put(&fx, "t", rows[i], "a", "q", 10, rows[i]);
        if (i % 2) put(&fx, "t", rows[i], "b", "p", 10, "odd");
    }
    CHECK_STR(scan(&fx, "t", NULL, false, NULL), "abc1(1) abc2(2) abc3(1) row1(2) row2(1) row3(2) zz(1) ");
    kv_read_options o = KV_READ_OPTIONS_INIT;
    o.start_row = "abc3";
    o.start_row_len = 4;
    o.stop_row = "row3";
    o.stop_row_len = 4;
    CHECK_STR(scan(&fx, "t", &o, false, NULL), "abc3(1) row1(2) row2(1) ");
    o.limit = 2;
    CHECK_STR(scan(&fx, "t", &o, false, NULL), "abc3(1) row1(2) ");
    o = (kv_read_options)KV_READ_OPTIONS_INIT;
    o.row_prefix = "row";
    o.row_prefix_len = 3;
    CHECK_STR(scan(&fx, "t", &o, false, NULL), "row1(2) row2(1) row3(2) ");
    o.start_row = "row2";
    o.start_row_len = 4;
    CHECK_STR(scan(&fx, "t", &o, false, NULL), "row2(1) row3(2) ");
    /* Reversed: every backend but the emulator's (no reversed reads). */
    o = (kv_read_options)KV_READ_OPTIONS_INIT;
    o.reversed = true;
    o.start_row = "row2";
    o.start_row_len = 4;
    o.stop_row = "abc2";
    o.stop_row_len = 4;
    kv_status end;
    const char *got = scan(&fx, "t", &o, false, &end);
    if (is_bigtable(&fx) && getenv("BIGTABLE_EMULATOR_HOST")) {
        CHECK_EQ(end, KV_NOT_SUPPORTED);
        CHECK(strstr(kv_store_errmsg(fx.s), "reversed") != NULL);
    } else {
        CHECK_EQ(end, KV_END);
        CHECK_STR(got, "row2(1) row1(2) abc3(1) ");
    }
    o = (kv_read_options)KV_READ_OPTIONS_INIT;
    kv_column b = {"b", NULL, 0};
    o.columns = &b;
    o.ncolumns = 1;
    CHECK_STR(scan(&fx, "t", &o, false, NULL), "abc2(1) row1(1) row3(1) ");
    kv_column sel[3] = {{"b", "p", 1}, {"a", "q", 1}, {"b", "p", 1}};
    o.columns = sel;
    o.ncolumns = 3;
    CHECK_STR(scan(&fx, "t", &o, false, NULL), "abc1(1) abc2(2) abc3(1) row1(2) row2(1) row3(2) zz(1) ");
    kv_column absent = {"a", "nope", 4};
    o.columns = &absent;
    o.ncolumns = 1;
    CHECK_STR(scan(&fx, "t", &o, false, NULL), "");
    kv_column nofam = {"c", NULL, 0};
    o.columns = &nofam;
    kv_scan *sc = NULL;
    CHECK_EQ(kv_scan_open(&sc, fx.s, "t", &o), KV_NO_FAMILY);
    CHECK(sc == NULL);
    CHECK_EQ(kv_scan_open(&sc, fx.s, "nosuch", NULL), KV_NOT_FOUND);
    /* Raw reads need their capability. */
    o = (kv_read_options)KV_READ_OPTIONS_INIT;
    o.raw = true;
    if (has(&fx, KV_CAP_RAW_SCANS)) CHECK_STR(scan(&fx, "t", &o, false, NULL),
                                              "abc1(1) abc2(2) abc3(1) row1(2) row2(1) row3(2) zz(1) ");
    else CHECK_REFUSED(&fx, kv_scan_open(&sc, fx.s, "t", &o));
    /* Filters, in HBase's language. */
    static const struct { const char *filter; const char *rows; } filters[] = {
        {"PrefixFilter('row') AND ValueFilter(=, 'binary:row2')", "row2{a:q@10=row2 } "},
        {"PageFilter(2)", "abc1{a:q@10=abc1 } abc2{a:q@10=abc2 b:p@10=odd } "},
        {"FirstKeyOnlyFilter() AND KeyOnlyFilter() AND PrefixFilter('row')",
         "row1{a:q@10= } row2{a:q@10= } row3{a:q@10= } "},
        {"KeyOnlyFilter() AND PrefixFilter('abc2')", "abc2{a:q@10= b:p@10= } "},
        {"QualifierFilter(=, 'binary:p')", "abc2{b:p@10=odd } row1{b:p@10=odd } row3{b:p@10=odd } "},
        {"SingleColumnValueFilter('a', 'q', =, 'binary:zz')", "zz{a:q@10=zz } "},
    };
    for (size_t i = 0; i < sizeof filters / sizeof filters[0]; i++) {
        kv_filter *flt;
        char err[256];
        REQUIRE(kv_filter_parse(&flt, filters[i].filter, err, sizeof err) == KV_OK);
        o = (kv_read_options)KV_READ_OPTIONS_INIT;
        o.filter = flt;
        CHECK_STR(scan(&fx, "t", &o, true, NULL), filters[i].rows);
        /* A limit counts the rows the filter lets through. */
        o.limit = 1;
        o.start_row = "abc2";
        o.start_row_len = 4;
        const char *first = scan(&fx, "t", &o, false, NULL);
        CHECK(strchr(first, ')') == strrchr(first, ')'));   /* at most one row */
        kv_filter_free(flt);
    }
    /* Binary keys sort as unsigned bytes, zero bytes included. */
    CHECK_EQ(kv_put(fx.s, "t", "a\0b", 3, "a", "q", 1, 1, "z", 1, NULL), KV_OK);
    CHECK_EQ(kv_put(fx.s, "t", "a", 1, "a", "q", 1, 1, "z", 1, NULL), KV_OK);
    CHECK_EQ(kv_put(fx.s, "t", "\xff\x01", 2, "a", "q", 1, 1, "z", 1, NULL), KV_OK);
    REQUIRE(kv_scan_open(&sc, fx.s, "t", NULL) == KV_OK);
    const kv_result *r;
    REQUIRE(kv_scan_next(&r, sc) == KV_OK);
    CHECK(r->row_len == 1 && r->row[0] == 'a');
    REQUIRE(kv_scan_next(&r, sc) == KV_OK);
    CHECK(r->row_len == 3 && memcmp(r->row, "a\0b", 3) == 0);
    char last[8] = "";   /* a row is valid until the next call: copy it */
    size_t last_len = 0;
    while (kv_scan_next(&r, sc) == KV_OK && r->row_len <= sizeof last) {
        last_len = r->row_len;
        memcpy(last, r->row, last_len);
    }
    CHECK(last_len == 2 && memcmp(last, "\xff\x01", 2) == 0);
    kv_scan_close(sc);
    kv_result *one;
    REQUIRE(kv_get(&one, fx.s, "t", "a\0b", 3, NULL) == KV_OK);
    CHECK_EQ(one->ncells, 1);
    kv_result_free(one);
    /* A scan closed early (its call cancelled) leaves the store usable. */
    REQUIRE(kv_scan_open(&sc, fx.s, "t", NULL) == KV_OK);
    REQUIRE(kv_scan_next(&r, sc) == KV_OK);
    kv_scan_close(sc);
    CHECK_STR(get(&fx, "t", "zz", NULL), "a:q@10=zz ");
    fx_end(&fx);
}

/* A read naming a family and one of its columns: the later spec wins. */
static void test_family_then_column(void) {
    fixture fx;
    fx_start(&fx, "famcol");
    kv_family_desc fs[2] = {fam("f", 3), fam("g", 3)};
    make_table(&fx, "t", fs, 2);
    put(&fx, "t", "r", "f", "a", 1, "fa");
    put(&fx, "t", "r", "f", "b", 1, "fb");
    put(&fx, "t", "r", "g", "a", 1, "ga");
    kv_read_options o = KV_READ_OPTIONS_INIT;
    kv_column family_then_column[3] = {{"f", NULL, 0}, {"f", "a", 1}, {"g", NULL, 0}};
    o.columns = family_then_column;
    o.ncolumns = 3;
    CHECK_STR(get(&fx, "t", "r", &o), "f:a@1=fa g:a@1=ga ");
    kv_column column_then_family[2] = {{"f", "a", 1}, {"f", NULL, 0}};
    o.columns = column_then_family;
    o.ncolumns = 2;
    CHECK_STR(get(&fx, "t", "r", &o), "f:a@1=fa f:b@1=fb ");
    fx_end(&fx);
}

/* Namespaces, tables and families. */
static void test_catalog(void) {
    fixture fx;
    fx_start(&fx, "catalog");
    char **names;
    REQUIRE(kv_namespace_list(&names, fx.s) == KV_OK);
    CHECK(names[0] && strcmp(names[0], "default") == 0);
    CHECK(names[1] && strcmp(names[1], "hbase") == 0);
    CHECK(names[2] == NULL);
    kv_free_names(names);
    kv_family_desc f = fam("cf", 1);
    if (has(&fx, KV_CAP_NAMESPACES)) {
        CHECK_EQ(kv_namespace_create(fx.s, "ns1"), KV_OK);
        CHECK_EQ(kv_table_create(fx.s, "nons:t", &f, 1), KV_NOT_FOUND);
    } else {
        CHECK_REFUSED(&fx, kv_namespace_create(fx.s, "ns1"));
        CHECK_REFUSED(&fx, kv_namespace_set_property(fx.s, "default", "k", "v"));
    }
    CHECK_EQ(kv_table_create(fx.s, "ns1:t", &f, 1), KV_OK);
    CHECK_EQ(kv_table_create(fx.s, "ns1:t", &f, 1), KV_EXISTS);
    CHECK_EQ(kv_table_create(fx.s, "..", &f, 1), KV_INVALID);
    CHECK_EQ(kv_table_create(fx.s, "x/y", &f, 1), KV_INVALID);
    CHECK_EQ(kv_table_create(fx.s, "plain", &f, 1), KV_OK);
    CHECK_EQ(kv_table_create(fx.s, "nofam", &f, 0), KV_INVALID);
    kv_family_desc dup[2] = {f, f};
    CHECK_EQ(kv_table_create(fx.s, "dup", dup, 2), KV_INVALID);
    REQUIRE(kv_namespace_list(&names, fx.s) == KV_OK);
    CHECK(names[2] && strcmp(names[2], "ns1") == 0);
    kv_free_names(names);
    kv_property *props;
    size_t np;
    CHECK_EQ(kv_namespace_describe(&props, &np, fx.s, "ns1"), KV_OK);
    kv_free_properties(props, np);
    CHECK_EQ(kv_namespace_describe(&props, &np, fx.s, "nons"), KV_NOT_FOUND);
    REQUIRE(kv_table_list(&names, fx.s, NULL) == KV_OK);
    CHECK(names[0] && strcmp(names[0], "ns1:t") == 0);
    CHECK(names[1] && strcmp(names[1], "plain") == 0);
    CHECK(names[1] && !names[2]);
    kv_free_names(names);
    REQUIRE(kv_table_list(&names, fx.s, "default") == KV_OK);
    CHECK(names[0] && strcmp(names[0], "plain") == 0 && !names[1]);
    kv_free_names(names);
    CHECK_EQ(kv_table_list(&names, fx.s, "nons"), KV_NOT_FOUND);
    CHECK_EQ(kv_table_exists(fx.s, "ns1:t"), KV_OK);
    CHECK_EQ(kv_table_exists(fx.s, "default:plain"), KV_OK);
    CHECK_EQ(kv_table_exists(fx.s, "nosuch"), KV_NOT_FOUND);
    CHECK_EQ(kv_table_exists(fx.s, "bad name"), KV_NOT_FOUND);
    put(&fx, "ns1:t", "r", "cf", "q", 5, "v");
    /* Disabling needs its capability; without it, drop needs no disable. */
    bool en = false;
    CHECK_EQ(kv_table_is_enabled(&en, fx.s, "ns1:t"), KV_OK);
    CHECK(en);
    if (has(&fx, KV_CAP_DISABLE_TABLES)) {
        CHECK_EQ(kv_table_drop(fx.s, "plain"), KV_ENABLED);
        CHECK_EQ(kv_table_disable(fx.s, "plain"), KV_OK);
    } else {
        CHECK_REFUSED(&fx, kv_table_disable(fx.s, "plain"));
    }
    CHECK_EQ(kv_table_drop(fx.s, "plain"), KV_OK);
    CHECK_EQ(kv_table_exists(fx.s, "plain"), KV_NOT_FOUND);
    CHECK_EQ(kv_table_drop(fx.s, "plain"), KV_NOT_FOUND);
    CHECK_EQ(kv_table_truncate(fx.s, "ns1:t", false), KV_OK);
    CHECK_STR(get(&fx, "ns1:t", "r", NULL), "");
    kv_family_desc g = fam("g", 4);
    g.ttl_seconds = 86400;
    CHECK_EQ(kv_table_alter_family(fx.s, "ns1:t", &g), KV_OK);
    g.versions = 2;
    CHECK_EQ(kv_table_alter_family(fx.s, "ns1:t", &g), KV_OK);
    int64_t now = wall_ms();   /* within g's TTL */
    put(&fx, "ns1:t", "r", "g", "q", now, "gv");
    char want[64];
    snprintf(want, sizeof want, "g:q@%lld=gv ", (long long)now);
    CHECK_STR(get(&fx, "ns1:t", "r", NULL), want);
    kv_table_desc *d;
    REQUIRE(kv_table_describe(&d, fx.s, "ns1:t") == KV_OK);
    CHECK(strcmp(d->name, "ns1:t") == 0 && d->enabled);
    REQUIRE(d->nfamilies == 2);
    CHECK(strcmp(d->families[0].name, "cf") == 0 && d->families[0].versions == 1 &&
          d->families[0].ttl_seconds == KV_FOREVER);
    CHECK(strcmp(d->families[1].name, "g") == 0 && d->families[1].versions == 2 &&
          d->families[1].ttl_seconds == 86400);
    kv_table_desc_free(d);
    CHECK_EQ(kv_table_describe(&d, fx.s, "nosuch"), KV_NOT_FOUND);
    CHECK(d == NULL);
    CHECK_EQ(kv_table_delete_family(fx.s, "ns1:t", "cf"), KV_OK);
    CHECK_EQ(kv_table_delete_family(fx.s, "ns1:t", "cf"), KV_NO_FAMILY);
    CHECK_EQ(kv_table_delete_family(fx.s, "ns1:t", "g"), KV_INVALID);
    CHECK_EQ(kv_put(fx.s, "ns1:t", "r", 1, "cf", "q", 1, 5, "v", 1, NULL), KV_NO_FAMILY);
    CHECK_EQ(kv_put(fx.s, "nosuch", "r", 1, "cf", "q", 1, 5, "v", 1, NULL), KV_NOT_FOUND);
    /* Flushes and compactions need their capabilities. */
    if (has(&fx, KV_CAP_FLUSH)) CHECK_EQ(kv_flush(fx.s, NULL), KV_OK);
    else CHECK_REFUSED(&fx, kv_flush(fx.s, NULL));
    if (has(&fx, KV_CAP_COMPACT)) CHECK_EQ(kv_compact(fx.s, NULL, true), KV_OK);
    else CHECK_REFUSED(&fx, kv_compact(fx.s, NULL, true));
    /* What a durable store holds survives a reopen. */
    if (has(&fx, KV_CAP_DURABLE)) {
        CHECK_EQ(kv_store_close(fx.s), KV_OK);
        fx_open(&fx);
        CHECK_STR(get(&fx, "ns1:t", "r", NULL), want);
    }
    fx_end(&fx);
}

/* Table attributes: READONLY refuses writes, naming the table, and
   describe shows what was set; without the capability the call is
   refused naming the attribute, and nothing is shown. */
static void test_table_attributes(void) {
    fixture fx;
    fx_start(&fx, "tableatt");
    kv_family_desc f = fam("cf", 1);
    make_table(&fx, "t", &f, 1);
    put(&fx, "t", "r", "cf", "q", 5, "a");
    kv_property set[] = {{"READONLY", "true"}, {"MAX_FILESIZE", "134217728"}};
    kv_table_desc *d = NULL;
    if (!has(&fx, KV_CAP_TABLE_ATTRIBUTES)) {
        CHECK_REFUSED(&fx, kv_table_set_attributes(fx.s, "t", set, 2));
        CHECK(strstr(kv_store_errmsg(fx.s), "READONLY") != NULL);
        REQUIRE(kv_table_describe(&d, fx.s, "t") == KV_OK);
        CHECK_EQ(d->nattributes, 0);
        kv_table_desc_free(d);
        fx_end(&fx);
        return;
    }
    CHECK_EQ(kv_table_set_attributes(fx.s, "t", set, 2), KV_OK);
    REQUIRE(kv_table_describe(&d, fx.s, "t") == KV_OK);
    REQUIRE(d->nattributes == 2);
    CHECK(strcmp(d->attributes[0].key, "MAX_FILESIZE") == 0);
    CHECK(strcmp(d->attributes[0].value, "134217728") == 0);
    CHECK(strcmp(d->attributes[1].key, "READONLY") == 0);
    CHECK(strcmp(d->attributes[1].value, "true") == 0);
    kv_table_desc_free(d);
    CHECK_EQ(kv_put(fx.s, "t", "r", 1, "cf", "q", 1, 6, "b", 1, NULL), KV_READ_ONLY);
    CHECK(strstr(kv_store_errmsg(fx.s), "'t'") != NULL);
    CHECK_STR(get(&fx, "t", "r", NULL), "cf:q@5=a ");
    kv_property unset = {"READONLY", NULL};
    CHECK_EQ(kv_table_set_attributes(fx.s, "t", &unset, 1), KV_OK);
    put(&fx, "t", "r", "cf", "q", 6, "b");
    CHECK_STR(get(&fx, "t", "r", NULL), "cf:q@6=b ");
    fx_end(&fx);
}

/* Implicit timestamps come from the store's clock and never go back. */
static void test_implicit_timestamps(void) {
    fixture fx;
    fx_start(&fx, "implicit");
    kv_family_desc f = fam("cf", 5);
    make_table(&fx, "t", &f, 1);
    int64_t before = kv_store_now(fx.s);
    put(&fx, "t", "r", "cf", "q", KV_LATEST_TIMESTAMP, "a");
    int64_t after = kv_store_now(fx.s);
    CHECK(after >= before);
    CHECK(before > wall_ms() - 60000 && before < wall_ms() + 60000);
    kv_result *r;
    REQUIRE(kv_get(&r, fx.s, "t", "r", 1, NULL) == KV_OK);
    REQUIRE(r->ncells == 1);
    CHECK(r->cells[0].timestamp >= before && r->cells[0].timestamp <= after);
    kv_result_free(r);
    fx_end(&fx);
}

static void run_all(const char *kind) {
    g_kind = kind;
    fprintf(stderr, "-- %s\n", kind);
    test_webtable();
    test_time_ranges();
    test_version_deletes();
    test_puts_after_deletes();
    test_family_and_row_deletes();
    test_ttl();
    test_counters_and_checks();
    test_batches();
    test_scans();
    test_family_then_column();
    test_catalog();
    test_table_attributes();
    test_implicit_timestamps();
}

int main(int argc, char **argv) {
    if (argc > 1) {
        if (strcmp(argv[1], "local") && strcmp(argv[1], "model") && strcmp(argv[1], "bigtable")) {
            fprintf(stderr, "usage: %s [local|model|bigtable]\n", argv[0]);
            return 2;
        }
        if (strcmp(argv[1], "bigtable") == 0 && !getenv("BIGTABLE_EMULATOR_HOST")) {
            printf("SKIP: bigtable needs BIGTABLE_EMULATOR_HOST (run through "
                   "scripts/bt_emulator.sh run)\n");
            return 77;
        }
        run_all(argv[1]);
    } else {
        run_all("local");
        run_all("model");
    }
    return test_finish("test_backend_semantics");
}
