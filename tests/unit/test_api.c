/*
 * The backend seam (kvcore/api over hbase/backend.h): stores are opened by
 * location; every public call dispatches to the store's backend; calls
 * that need a capability the backend lacks are refused with
 * KV_NOT_SUPPORTED and a message before the backend sees them; read-only
 * stores refuse changes in the api; kv_get is a one-row scan; a scan copies
 * its options and keeps KV_END and failures sticky whatever the backend
 * does afterwards. A stub backend with no capabilities stands behind a
 * store handle built here (the api's private header), and counts what
 * reaches it.
 */
#include "kvcore.h"
#ifdef KV_TEST_BIGTABLE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#endif
#include "api/api_i.h"
#include "testutil.h"

#include <errno.h>

/* ---- a stub backend ---- */

typedef struct stub {
    int calls;                  /* methods reached */
    int scan_nexts;
    kv_status next_status[4];   /* what xScanNext returns, in turn */
    int next_i;
    bool last_single_row;
    kv_read_options last_ro;    /* what xScanOpen was given */
    uint8_t row[16];
    kv_cell cell;
    kv_result result;
} stub;

static stub *S(kv_backend *b) { return (stub *)(void *)b; }

static kv_status s_close(kv_backend *b) { (void)b; return KV_OK; }
static int64_t s_now(kv_backend *b) { S(b)->calls++; return 42; }
static kv_status s_flush(kv_backend *b, const char *t) { (void)t; S(b)->calls++; return KV_OK; }
static kv_status s_compact(kv_backend *b, const char *t, bool m) {
    (void)t; (void)m; S(b)->calls++; return KV_OK;
}
static const char *s_why(uint64_t cap) {
    return cap == KV_CAP_RAW_SCANS ? "the stub keeps no markers" : NULL;
}
static kv_status s_name(kv_backend *b, const char *n) { (void)n; S(b)->calls++; return KV_OK; }
static kv_status s_ns_set(kv_backend *b, const char *n, const char *k, const char *v) {
    (void)n; (void)k; (void)v; S(b)->calls++; return KV_OK;
}
static kv_status s_create(kv_backend *b, const char *t, const kv_family_desc *f, size_t n) {
    (void)t; (void)f; (void)n; S(b)->calls++; return KV_OK;
}
static kv_status s_describe(kv_backend *b, const char *t, kv_table_desc **out) {
    (void)t;
    S(b)->calls++;
    *out = calloc(1, sizeof **out);
    (*out)->enabled = true;
    return KV_OK;
}
static kv_status s_alter(kv_backend *b, const char *t, const kv_family_desc *f) {
    (void)t; (void)f; S(b)->calls++; return KV_OK;
}
static kv_status s_set_enabled(kv_backend *b, const char *t, bool e) {
    (void)t; (void)e; S(b)->calls++; return KV_OK;
}
static kv_status s_mutate(kv_backend *b, const char *t, kv_mutation *const *ms, size_t n,
                          kv_status *st, kv_durability d) {
    (void)t; (void)ms; (void)d;
    S(b)->calls++;
    for (size_t i = 0; st && i < n; i++) st[i] = KV_OK;
    return KV_OK;
}
static kv_status s_cam(kv_backend *b, const char *t, const kv_check *c, const kv_mutation *m,
                       kv_durability d, bool *applied) {
    (void)t; (void)c; (void)m; (void)d;
    S(b)->calls++;
    *applied = true;
    return KV_OK;
}
static kv_status s_scan_open(kv_backend *b, const char *t, const kv_read_options *ro,
                             bool single_row, kv_backend_scan **out) {
    (void)t;
    stub *st = S(b);
    st->calls++;
    st->last_single_row = single_row;
    st->last_ro = *ro;
    st->next_i = 0;
    *out = (kv_backend_scan *)(void *)st;
    return KV_OK;
}
static kv_status s_scan_next(kv_backend_scan *sc, const kv_result **row) {
    stub *st = (stub *)(void *)sc;
    st->scan_nexts++;
    kv_status r = st->next_status[st->next_i < 4 ? st->next_i++ : 3];
    if (r == KV_OK) *row = &st->result;
    return r;
}
static void s_scan_close(kv_backend_scan *sc) { (void)sc; }

static const kv_backend_ops stub_ops = {
    .version = KV_BACKEND_OPS_VERSION,
    .name = "stub",
    .capabilities = 0,
    .xClose = s_close,
    .xNow = s_now,
    .xStat = NULL,
    .xFlush = s_flush,
    .xCompact = s_compact,
    .xWhyNot = s_why,
    .xNamespaceCreate = s_name,
    .xNamespaceDrop = s_name,
    .xNamespaceSetProperty = s_ns_set,
    .xTableCreate = s_create,
    .xTableDescribe = s_describe,
    .xTableAlterFamily = s_alter,
    .xTableSetEnabled = s_set_enabled,
    .xMutate = s_mutate,
    .xCheckAndMutate = s_cam,
    .xScanOpen = s_scan_open,
    .xScanNext = s_scan_next,
    .xScanClose = s_scan_close,
};

static void stub_store(kv_store *s, stub *st, bool read_only) {
    memset(st, 0, sizeof *st);
    memset(s, 0, sizeof *s);
    s->ops = &stub_ops;
    s->b = (kv_backend *)(void *)st;
    s->read_only = read_only;
    kv_report_init(&s->report, NULL, NULL);
    memcpy(st->row, "r", 1);
    st->cell = (kv_cell){.row = st->row, .row_len = 1, .family = "f", .qualifier = (const uint8_t *)"q",
                         .qualifier_len = 1, .timestamp = 5, .type = KV_TYPE_PUT,
                         .value = (const uint8_t *)"v", .value_len = 1};
    st->result = (kv_result){.row = st->row, .row_len = 1, .ncells = 1, .cells = &st->cell};
}

/* Expects KV_NOT_SUPPORTED with a message naming the stub backend. */
#define CHECK_REFUSED(call, s) do { \
    CHECK_EQ((call), KV_NOT_SUPPORTED); \
    CHECK(strstr(kv_store_errmsg(s), "the stub backend does not support") != NULL); \
} while (0)

static void test_capabilities(void) {
    kv_store s;
    stub st;
    stub_store(&s, &st, false);
    CHECK_EQ(kv_store_capabilities(&s), 0);
    CHECK(strcmp(kv_store_backend(&s), "stub") == 0);

    CHECK_REFUSED(kv_flush(&s, NULL), &s);
    CHECK(strstr(kv_store_errmsg(&s), "flush") != NULL);
    CHECK_REFUSED(kv_compact(&s, "t", true), &s);
    CHECK_REFUSED(kv_namespace_create(&s, "ns"), &s);
    CHECK(strstr(kv_store_errmsg(&s), "namespaces") != NULL);
    CHECK_REFUSED(kv_namespace_drop(&s, "ns"), &s);
    CHECK_REFUSED(kv_namespace_set_property(&s, "ns", "k", "v"), &s);
    CHECK_REFUSED(kv_table_disable(&s, "t"), &s);
    CHECK_REFUSED(kv_table_enable(&s, "t"), &s);

    kv_family_desc f = KV_FAMILY_DESC_INIT;
    snprintf(f.name, sizeof f.name, "f");
    f.keep_deleted = KV_KEEP_DELETED_TRUE;
    CHECK_REFUSED(kv_table_create(&s, "t", &f, 1), &s);
    CHECK(strstr(kv_store_errmsg(&s), "KEEP_DELETED_CELLS") != NULL);
    CHECK_REFUSED(kv_table_alter_family(&s, "t", &f), &s);
    f.keep_deleted = KV_KEEP_DELETED_FALSE;
    f.min_versions = 1;
    CHECK_REFUSED(kv_table_create(&s, "t", &f, 1), &s);
    f.min_versions = 0;
    f.new_version_behavior = true;
    CHECK_REFUSED(kv_table_create(&s, "t", &f, 1), &s);
    f.new_version_behavior = false;

    /* Raw reads, with the backend's reason. */
    kv_read_options raw = KV_READ_OPTIONS_INIT;
    raw.raw = true;
    kv_scan *sc = NULL;
    CHECK_REFUSED(kv_scan_open(&sc, &s, "t", &raw), &s);
    CHECK(sc == NULL);
    CHECK(strstr(kv_store_errmsg(&s), "the stub keeps no markers") != NULL);
    kv_result *r = NULL;
    CHECK_REFUSED(kv_get(&r, &s, "t", "r", 1, &raw), &s);

    /* DeleteFamilyVersion, in every write call that takes a mutation. */
    kv_mutation *m;
    REQUIRE(kv_mutation_new(&m, "r", 1) == KV_OK);
    CHECK_EQ(kv_mutation_put(m, "f", "q", 1, 5, "v", 1), KV_OK);
    CHECK_EQ(kv_mutation_delete_family_version(m, "f", 7), KV_OK);
    CHECK_REFUSED(kv_mutate(&s, "t", m, NULL), &s);
    kv_status sts[1] = {KV_OK};
    CHECK_REFUSED(kv_mutate_batch(&s, "t", &m, 1, sts, NULL), &s);
    CHECK_EQ(sts[0], KV_NOT_SUPPORTED);
    bool applied = true;
    CHECK_REFUSED(kv_check_and_mutate(&applied, &s, "t", "r", 1, "f", "q", 1, KV_CMP_EQUAL, "v", 1,
                                      m, NULL), &s);
    CHECK(!applied);
    kv_mutation_free(m);
    kv_store_stats stats;
    CHECK_EQ(kv_store_stat(&stats, &s), KV_NOT_SUPPORTED);

    /* None of it reached the backend; what needs nothing does. */
    CHECK_EQ(st.calls, 0);
    CHECK_EQ(kv_table_create(&s, "t", &f, 1), KV_OK);
    CHECK_EQ(kv_table_exists(&s, "t"), KV_OK);
    bool enabled = false;
    CHECK_EQ(kv_table_is_enabled(&enabled, &s, "t"), KV_OK);
    CHECK(enabled);
    CHECK_EQ(kv_put(&s, "t", "r", 1, "f", "q", 1, 5, "v", 1, NULL), KV_OK);
    CHECK_EQ(kv_store_now(&s), 42);
    CHECK_EQ(st.calls, 5);
    kv_report_destroy(&s.report);
}

static void test_read_only(void) {
    kv_store s;
    stub st;
    stub_store(&s, &st, true);
    CHECK_EQ(kv_put(&s, "t", "r", 1, "f", "q", 1, 5, "v", 1, NULL), KV_READ_ONLY);
    CHECK(strstr(kv_store_errmsg(&s), "read-only") != NULL);
    kv_family_desc f = KV_FAMILY_DESC_INIT;
    snprintf(f.name, sizeof f.name, "f");
    CHECK_EQ(kv_table_create(&s, "t", &f, 1), KV_READ_ONLY);
    CHECK_EQ(kv_table_alter_family(&s, "t", &f), KV_READ_ONLY);
    CHECK_EQ(kv_table_drop(&s, "t"), KV_READ_ONLY);
    CHECK_EQ(kv_table_truncate(&s, "t", false), KV_READ_ONLY);
    int64_t n = 0;
    CHECK_EQ(kv_increment(&n, &s, "t", "r", 1, "f", "q", 1, 1, NULL), KV_READ_ONLY);
    void *v = NULL;
    CHECK_EQ(kv_append(&v, NULL, &s, "t", "r", 1, "f", "q", 1, "x", 1, NULL), KV_READ_ONLY);
    CHECK_EQ(st.calls, 0);
    /* Reads go through. */
    kv_result *r = NULL;
    st.next_status[0] = KV_OK;
    CHECK_EQ(kv_get(&r, &s, "t", "r", 1, NULL), KV_OK);
    CHECK_EQ(st.calls, 1);
    kv_result_free(r);
    kv_report_destroy(&s.report);
}

/* kv_store_errmsg after a failed call is about that call (issue 10 rule 9):
   never the text of an earlier failure when the later one records none
   (then ""), and "" after a call that succeeded. */
static void test_errmsg_is_about_the_failed_call(void) {
    kv_store s;
    stub st;
    stub_store(&s, &st, true);
    CHECK_EQ(kv_put(&s, "t", "r", 1, "f", "q", 1, 5, "v", 1, NULL), KV_READ_ONLY);
    CHECK(strstr(kv_store_errmsg(&s), "read-only") != NULL);
    /* a failure of the backend that records no text */
    kv_result *r = NULL;
    st.next_status[0] = KV_IO;
    CHECK_EQ(kv_get(&r, &s, "t", "r", 1, NULL), KV_IO);
    CHECK(strcmp(kv_store_errmsg(&s), "") == 0);
    /* argument failures say what was wrong */
    CHECK_EQ(kv_put(&s, "t", "r", 1, "f", "q", 1, 5, "v", 1, NULL), KV_READ_ONLY);
    CHECK_EQ(kv_mutate_batch(&s, "t", NULL, 1, NULL, NULL), KV_INVALID);
    CHECK(strstr(kv_store_errmsg(&s), "no mutations given") != NULL);
    CHECK_EQ(kv_get(&r, &s, "t", NULL, 3, NULL), KV_INVALID);
    CHECK(strstr(kv_store_errmsg(&s), "get: a 3-byte row at NULL") != NULL);
    /* a call that succeeds leaves no text behind */
    st.next_i = 0;
    st.next_status[0] = KV_OK;
    CHECK_EQ(kv_get(&r, &s, "t", "r", 1, NULL), KV_OK);
    kv_result_free(r);
    CHECK(strcmp(kv_store_errmsg(&s), "") == 0);
    /* a failed scan says so again at every later call */
    kv_scan *sc = NULL;
    const kv_result *row;
    st.next_i = 0;
    st.next_status[0] = KV_CORRUPT;
    REQUIRE(kv_scan_open(&sc, &s, "t", NULL) == KV_OK);
    CHECK_EQ(kv_scan_next(&row, sc), KV_CORRUPT);
    CHECK_EQ(kv_put(&s, "t", "r", 1, "f", "q", 1, 5, "v", 1, NULL), KV_READ_ONLY);
    CHECK_EQ(kv_scan_next(&row, sc), KV_CORRUPT);
    CHECK(strstr(kv_store_errmsg(&s), "the scan failed earlier") != NULL);
    kv_scan_close(sc);
    kv_report_destroy(&s.report);
}

/* kv_get is a one-row scan: the backend is asked for [row, row\0) with a
   limit of 1 and the single-row hint; the cells come back in one block. */
static void test_get_is_a_scan(void) {
    kv_store s;
    stub st;
    stub_store(&s, &st, false);
    st.next_status[0] = KV_OK;
    kv_result *r = NULL;
    CHECK_EQ(kv_get(&r, &s, "t", "r", 1, NULL), KV_OK);
    REQUIRE(r != NULL);
    CHECK(st.last_single_row);
    CHECK_EQ(st.last_ro.limit, 1);
    CHECK_EQ(st.last_ro.stop_row_len, 2);
    CHECK_EQ(st.scan_nexts, 1);
    CHECK_EQ(r->ncells, 1);
    CHECK_BYTES(r->cells[0].value, r->cells[0].value_len, "v");
    /* The copy does not point into the backend's buffers. */
    CHECK(r->cells[0].value != st.cell.value);
    kv_result_free(r);
    /* An absent row is an empty result. */
    st.next_status[0] = KV_END;
    CHECK_EQ(kv_get(&r, &s, "t", "r", 1, NULL), KV_OK);
    CHECK_EQ(r ? r->ncells : 99, 0);
    kv_result_free(r);
    kv_report_destroy(&s.report);
}

/* Whatever a backend returns after KV_END or a failure, the caller sees
   KV_END or the failure again, and the backend is not asked. */
static void test_sticky_end(void) {
    kv_store s;
    stub st;
    stub_store(&s, &st, false);
    const kv_result *row;
    kv_scan *sc;
    st.next_status[0] = KV_OK;
    st.next_status[1] = KV_END;
    st.next_status[2] = KV_OK;
    st.next_status[3] = KV_OK;
    REQUIRE(kv_scan_open(&sc, &s, "t", NULL) == KV_OK);
    CHECK_EQ(kv_scan_next(&row, sc), KV_OK);
    CHECK_EQ(kv_scan_next(&row, sc), KV_END);
    CHECK_EQ(kv_scan_next(&row, sc), KV_END);
    CHECK(row == NULL);
    CHECK_EQ(st.scan_nexts, 2);
    kv_scan_close(sc);
    st.scan_nexts = 0;
    st.next_status[0] = KV_IO;
    st.next_status[1] = KV_END;
    REQUIRE(kv_scan_open(&sc, &s, "t", NULL) == KV_OK);
    CHECK_EQ(kv_scan_next(&row, sc), KV_IO);
    CHECK_EQ(kv_scan_next(&row, sc), KV_IO);
    CHECK_EQ(st.scan_nexts, 1);
    kv_scan_close(sc);
    kv_report_destroy(&s.report);
}

/* ---- locations and a real store ---- */

static void test_locations(void) {
    kv_store *s = NULL;
    char err[512] = "";
    kv_store_options o = KV_STORE_OPTIONS_INIT;
    o.create_if_missing = true;
#ifdef KV_TEST_BIGTABLE
    /* Built with the backend: an emulator address where nothing listens
       gives KV_UNAVAILABLE at open, naming the address. */
    kv_bigtable_options bo = KV_BIGTABLE_OPTIONS_INIT;
    bo.emulator_host = "127.0.0.1:1";
    bo.max_attempts = 1;
    o.bigtable = &bo;
    CHECK_EQ(kv_store_open(&s, "bigtable://proj/inst", &o, err, sizeof err), KV_UNAVAILABLE);
    CHECK(strstr(err, "127.0.0.1:1") != NULL);
    CHECK_EQ(kv_store_open(&s, "bigtable://proj", &o, err, sizeof err), KV_INVALID);
    CHECK(strstr(err, "bigtable://PROJECT/INSTANCE") != NULL);
    /* A server that takes the connection and never answers: the call's
       deadline passes, KV_TIMEOUT, saying the effect is unknown. */
    int lfd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t salen = sizeof sa;
    REQUIRE(lfd >= 0 && bind(lfd, (struct sockaddr *)&sa, sizeof sa) == 0 && listen(lfd, 4) == 0 &&
            getsockname(lfd, (struct sockaddr *)&sa, &salen) == 0);
    char silent[32];
    snprintf(silent, sizeof silent, "127.0.0.1:%d", ntohs(sa.sin_port));
    bo.emulator_host = silent;
    bo.timeout_ms = 300;
    CHECK_EQ(kv_store_open(&s, "bigtable://proj/inst", &o, err, sizeof err), KV_TIMEOUT);
    CHECK(strstr(err, "timed out") != NULL && strstr(err, silent) != NULL);
    close(lfd);
    bo.version = 0;
    CHECK_EQ(kv_store_open(&s, "bigtable://proj/inst", &o, err, sizeof err), KV_INVALID);
    CHECK(strstr(err, "KV_BIGTABLE_OPTIONS_INIT") != NULL);
    o.bigtable = NULL;
#else
    CHECK_EQ(kv_store_open(&s, "bigtable://proj/inst", &o, err, sizeof err), KV_NOT_SUPPORTED);
    CHECK(strstr(err, "Cloud Bigtable backend") != NULL);
#endif
    CHECK(s == NULL);
    CHECK_EQ(kv_store_open(&s, "hdfs://nn/x", &o, err, sizeof err), KV_NOT_SUPPORTED);
    CHECK(strstr(err, "\"hdfs://\"") != NULL);
    CHECK_EQ(kv_store_open(&s, "", &o, err, sizeof err), KV_INVALID);
    CHECK(kv_location_is_local("/data/store"));
    CHECK(kv_location_is_local("rel/store"));
    CHECK(kv_location_is_local("./hdfs://x"));
    CHECK(!kv_location_is_local("bigtable://p/i"));
    CHECK(!kv_location_is_local("hdfs://nn/x"));
}

/* A local store: every capability; a scan keeps working after the caller
   has overwritten and freed its column selection and bounds. */
static void test_local_store_copies_options(void) {
    char *dir = test_tmpdir("api");
    kv_store_options o = KV_STORE_OPTIONS_INIT;
    o.create_if_missing = true;
    kv_store *s = NULL;
    char err[512];
    REQUIRE(kv_store_open(&s, dir, &o, err, sizeof err) == KV_OK);
    CHECK(strcmp(kv_store_backend(s), "local") == 0);
    uint64_t all = KV_CAP_DELETE_MARKERS | KV_CAP_DELETE_FAMILY_VERSION | KV_CAP_RAW_SCANS |
                   KV_CAP_NAMESPACES | KV_CAP_FLUSH | KV_CAP_COMPACT | KV_CAP_SNAPSHOT_SCANS |
                   KV_CAP_KEEP_DELETED_CELLS | KV_CAP_MIN_VERSIONS | KV_CAP_NEW_VERSION_BEHAVIOR |
                   KV_CAP_DISABLE_TABLES | KV_CAP_DURABLE | KV_CAP_EXCLUSIVE |
                   KV_CAP_TABLE_ATTRIBUTES;
    CHECK_EQ(kv_store_capabilities(s), all);
    kv_family_desc f = KV_FAMILY_DESC_INIT;
    snprintf(f.name, sizeof f.name, "f");
    REQUIRE(kv_table_create(s, "t", &f, 1) == KV_OK);
    const char *rows[] = {"a", "b", "c"};
    for (int i = 0; i < 3; i++) {
        CHECK_EQ(kv_put(s, "t", rows[i], 1, "f", "x", 1, 1, "vx", 2, NULL), KV_OK);
        CHECK_EQ(kv_put(s, "t", rows[i], 1, "f", "y", 1, 1, "vy", 2, NULL), KV_OK);
    }
    char *fam = strdup("f"), *qual = strdup("y"), *start = strdup("b");
    kv_column *col = malloc(sizeof *col);
    *col = (kv_column){fam, qual, 1};
    kv_read_options ro = KV_READ_OPTIONS_INIT;
    ro.columns = col;
    ro.ncolumns = 1;
    ro.start_row = start;
    ro.start_row_len = 1;
    kv_scan *sc;
    REQUIRE(kv_scan_open(&sc, s, "t", &ro) == KV_OK);
    /* The caller's buffers change and go. */
    fam[0] = 'g';
    qual[0] = 'x';
    start[0] = 'a';
    free(fam);
    free(qual);
    free(start);
    col->family = NULL;
    free(col);
    const kv_result *r;
    int n = 0;
    while (kv_scan_next(&r, sc) == KV_OK) {
        CHECK_EQ(r->ncells, 1);
        CHECK_BYTES(r->cells[0].qualifier, r->cells[0].qualifier_len, "y");
        CHECK_BYTES(r->row, r->row_len, n == 0 ? "b" : "c");
        n++;
    }
    CHECK_EQ(n, 2);
    kv_scan_close(sc);
    CHECK_EQ(kv_store_close(s), KV_OK);
    test_rmtree(dir);
    free(dir);
}

/* "model:" opens a new, empty, in-memory store of the reference model:
   every capability but durability; its cells are gone at close. */
static void test_model_location(void) {
    kv_store_options o = KV_STORE_OPTIONS_INIT;
    kv_store *s = NULL;
    char err[512];
    REQUIRE(kv_store_open(&s, "model:", &o, err, sizeof err) == KV_OK);
    CHECK(strcmp(kv_store_backend(s), "model") == 0);
    CHECK_EQ(kv_store_capabilities(s) & KV_CAP_DURABLE, 0);
    CHECK(kv_store_capabilities(s) & KV_CAP_RAW_SCANS);
    CHECK(!kv_location_is_local("model:"));
    kv_family_desc f = KV_FAMILY_DESC_INIT;
    snprintf(f.name, sizeof f.name, "f");
    CHECK_EQ(kv_table_create(s, "t", &f, 1), KV_OK);
    CHECK_EQ(kv_put(s, "t", "r", 1, "f", "q", 1, 5, "v", 1, NULL), KV_OK);
    kv_result *r = NULL;
    CHECK_EQ(kv_get(&r, s, "t", "r", 1, NULL), KV_OK);
    CHECK_EQ(r ? r->ncells : 0, 1);
    kv_result_free(r);
    CHECK_EQ(kv_store_close(s), KV_OK);
    REQUIRE(kv_store_open(&s, "model:", &o, err, sizeof err) == KV_OK);
    CHECK_EQ(kv_table_exists(s, "t"), KV_NOT_FOUND);
    CHECK_EQ(kv_store_close(s), KV_OK);
}

int main(void) {
    test_capabilities();
    test_model_location();
    test_read_only();
    test_errmsg_is_about_the_failed_call();
    test_get_is_a_scan();
    test_sticky_end();
    test_locations();
    test_local_store_copies_options();
    return test_finish("test_api");
}
