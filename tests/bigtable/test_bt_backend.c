/**
 * @file test_bt_backend.c
 * The Cloud Bigtable backend through kvcore.h, against Google's emulator
 * (scripts/bt_emulator.sh run starts it and sets BIGTABLE_EMULATOR_HOST;
 * without it the test exits 77, skipped): what is Bigtable's own rather
 * than HBase's (test_backend_semantics covers what all backends share):
 * its capabilities, locations and open options, Bigtable's limits on
 * names, keys and timestamps refused with KV_TOO_LARGE / KV_NOT_SUPPORTED
 * and a message, storage settings it cannot keep, namespaces read from
 * table ids, two clients of one instance seeing each other's writes and
 * schema changes, a stale cached schema, FUSE-like worker threads sharing
 * one store, one TCP connection per endpoint for the whole process, a
 * cell above gRPC's default 4 MiB message limit, and long scans closed
 * early.
 */
#include "kvcore.h"
#include "testutil.h"

#include <pthread.h>
#include <unistd.h>

static char g_loc[128];

static kv_store *open_store(const char *loc, unsigned cache_ms, bool read_only) {
    kv_store_options o = KV_STORE_OPTIONS_INIT;
    kv_bigtable_options bo = KV_BIGTABLE_OPTIONS_INIT;
    bo.schema_cache_ms = cache_ms;
    o.bigtable = &bo;
    o.read_only = read_only;
    kv_store *s = NULL;
    char err[512];
    kv_status st = kv_store_open(&s, loc, &o, err, sizeof err);
    if (st != KV_OK) fprintf(stderr, "open %s: %s\n", loc, err);
    REQUIRE(st == KV_OK);
    return s;
}

static kv_family_desc fam(const char *name, int versions) {
    kv_family_desc f = KV_FAMILY_DESC_INIT;
    snprintf(f.name, sizeof f.name, "%s", name);
    f.versions = versions;
    return f;
}

/* The call failed with @p code and a message containing @p words. */
#define CHECK_FAILS(s, call, code, words) do { \
    kv_status st_ = (call); \
    CHECK_EQ(st_, code); \
    const char *m_ = kv_store_errmsg(s); \
    if (!strstr(m_, words)) fprintf(stderr, "%s:%d: message: %s\n", __FILE__, __LINE__, m_); \
    CHECK(strstr(m_, words) != NULL); \
} while (0)

static void test_store_and_locations(void) {
    kv_store *s = open_store(g_loc, 0, false);
    CHECK_EQ(kv_store_capabilities(s), KV_CAP_DURABLE);
    CHECK(strcmp(kv_store_backend(s), "bigtable") == 0);
    kv_store_stats stats;
    CHECK_FAILS(s, kv_store_stat(&stats, s), KV_NOT_SUPPORTED, "bigtable");
    CHECK_EQ(kv_store_close(s), KV_OK);
    kv_store_options o = KV_STORE_OPTIONS_INIT;
    char err[512];
    static const char *const bad[] = {"bigtable://p", "bigtable://p/", "bigtable:///i",
                                      "bigtable://p/i/x", "bigtable://p/i j"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        kv_status st = kv_store_open(&s, bad[i], &o, err, sizeof err);
        CHECK(st == KV_INVALID || st == KV_IO);
        CHECK(s == NULL && strstr(err, "PROJECT/INSTANCE") != NULL);
    }
    o.error_if_exists = true;
    CHECK_EQ(kv_store_open(&s, g_loc, &o, err, sizeof err), KV_EXISTS);
    CHECK(strstr(err, "always exists") != NULL);
    /* Read-only: reads work, every change is refused before it is sent. */
    s = open_store(g_loc, 0, false);
    kv_family_desc f = fam("cf", 1);
    REQUIRE(kv_table_create(s, "ro", &f, 1) == KV_OK);
    CHECK_EQ(kv_put(s, "ro", "r", 1, "cf", "q", 1, 5, "v", 1, NULL), KV_OK);
    kv_store_close(s);
    s = open_store(g_loc, 0, true);
    CHECK_FAILS(s, kv_put(s, "ro", "r", 1, "cf", "q", 1, 6, "w", 1, NULL), KV_READ_ONLY, "read-only");
    CHECK_FAILS(s, kv_table_drop(s, "ro"), KV_READ_ONLY, "read-only");
    kv_result *r;
    REQUIRE(kv_get(&r, s, "ro", "r", 1, NULL) == KV_OK);
    CHECK(r->ncells == 1 && r->cells[0].timestamp == 5);
    kv_result_free(r);
    kv_store_close(s);
}

/* Bigtable's limits and what it cannot keep, refused with a message. */
static void test_limits_and_refusals(void) {
    kv_store *s = open_store(g_loc, 0, false);
    kv_family_desc f = fam("cf", 3);
    REQUIRE(kv_table_create(s, "lim", &f, 1) == KV_OK);
    static const struct { const char *attr, *value; } knobs[] = {
        {"COMPRESSION", "LZ4"}, {"BLOOMFILTER", "ROWCOL"}, {"BLOCKSIZE", "8192"},
        {"DATA_BLOCK_ENCODING", "PREFIX"}, {"IN_MEMORY", "true"}, {"BLOCKCACHE", "false"},
    };
    for (size_t i = 0; i < sizeof knobs / sizeof knobs[0]; i++) {
        kv_family_desc k = fam("k", 1);
        char err[256];
        REQUIRE(kv_family_desc_set(&k, knobs[i].attr, knobs[i].value, err, sizeof err) == KV_OK);
        CHECK_FAILS(s, kv_table_create(s, "knob", &k, 1), KV_NOT_SUPPORTED, knobs[i].attr);
        CHECK_FAILS(s, kv_table_alter_family(s, "lim", &k), KV_NOT_SUPPORTED, knobs[i].attr);
    }
    CHECK_EQ(kv_table_exists(s, "knob"), KV_NOT_FOUND);
    kv_family_desc nvb = fam("n", 1);
    nvb.new_version_behavior = true;
    CHECK_FAILS(s, kv_table_create(s, "knob", &nvb, 1), KV_NOT_SUPPORTED, "NEW_VERSION_BEHAVIOR");
    /* Names: families up to 64 bytes, table ids up to 50. */
    kv_family_desc longf = KV_FAMILY_DESC_INIT;
    memset(longf.name, 'f', 65);
    CHECK_FAILS(s, kv_table_create(s, "knob", &longf, 1), KV_NOT_SUPPORTED, "64");
    char longt[60];
    memset(longt, 't', 51);
    longt[51] = '\0';
    CHECK_FAILS(s, kv_table_create(s, longt, &f, 1), KV_NOT_SUPPORTED, "50");
    CHECK_EQ(kv_table_exists(s, longt), KV_NOT_FOUND);
    /* Keys, qualifiers, values, timestamps. */
    static char big[20000];   /* above every key and qualifier limit */
    memset(big, 'k', sizeof big);
    CHECK_FAILS(s, kv_put(s, "lim", big, 4097, "cf", "q", 1, 5, "v", 1, NULL), KV_TOO_LARGE, "4096");
    CHECK_EQ(kv_put(s, "lim", big, 4096, "cf", "q", 1, 5, "v", 1, NULL), KV_OK);
    CHECK_FAILS(s, kv_put(s, "lim", "r", 1, "cf", big, 16385, 5, "v", 1, NULL), KV_TOO_LARGE,
                "16384");
    CHECK_FAILS(s, kv_put(s, "lim", "r", 1, "cf", "q", 1, -5, "v", 1, NULL), KV_NOT_SUPPORTED,
                "timestamp");
    kv_result *r = NULL;
    CHECK_EQ(kv_get(&r, s, "lim", big, 5000, NULL), KV_OK);   /* cannot exist: empty */
    CHECK(r && r->ncells == 0);
    kv_result_free(r);
    /* Reversed scans: the emulator has none; the refusal says so. */
    kv_read_options o = KV_READ_OPTIONS_INIT;
    o.reversed = true;
    kv_scan *sc;
    const kv_result *row;
    kv_status st = kv_scan_open(&sc, s, "lim", &o);
    if (st == KV_OK) {
        st = kv_scan_next(&row, sc);
        kv_scan_close(sc);
    }
    CHECK_EQ(st, KV_NOT_SUPPORTED);
    CHECK(strstr(kv_store_errmsg(s), "reversed scan") != NULL);
    /* A check-and-mutate whose mutation would need a condition of its own. */
    kv_mutation *m;
    REQUIRE(kv_mutation_new(&m, "r", 1) == KV_OK);
    REQUIRE(kv_mutation_delete_row(m, KV_LATEST_TIMESTAMP) == KV_OK);
    bool applied;
    CHECK_FAILS(s, kv_check_and_mutate(&applied, s, "lim", "r", 1, "cf", "q", 1, KV_CMP_EQUAL,
                                       NULL, 0, m, NULL), KV_NOT_SUPPORTED, "condition");
    kv_mutation_free(m);
    kv_store_close(s);
}

/* A namespace is what table ids show: "ns:t" is stored as "ns--t". */
static void test_namespaces_from_ids(void) {
    kv_store *s = open_store(g_loc, 0, false);
    kv_family_desc f = fam("cf", 1);
    CHECK_EQ(kv_table_create(s, "ns-a:t-b", &f, 1), KV_OK);
    char **names;
    REQUIRE(kv_namespace_list(&names, s) == KV_OK);
    bool found = false;
    for (char **n = names; *n; n++) found |= strcmp(*n, "ns-a") == 0;
    CHECK(found);
    kv_free_names(names);
    REQUIRE(kv_table_list(&names, s, "ns-a") == KV_OK);
    CHECK(names[0] && strcmp(names[0], "ns-a:t-b") == 0 && !names[1]);
    kv_free_names(names);
    CHECK_EQ(kv_put(s, "ns-a:t-b", "r", 1, "cf", "q", 1, 5, "v", 1, NULL), KV_OK);
    CHECK_EQ(kv_table_drop(s, "ns-a:t-b"), KV_OK);
    CHECK_FAILS(s, kv_table_list(&names, s, "ns-a"), KV_NOT_FOUND, "holds tables");
    kv_store_close(s);
}

/* Two clients of one instance: writes show at once, schema changes once
   the other's cache expires (here: no cache), and a write through a stale
   cache is refused by the server, then by the refreshed cache. */
static void test_two_clients(void) {
    kv_store *a = open_store(g_loc, 0, false);
    kv_store *b = open_store(g_loc, KV_BIGTABLE_NO_CACHE, false);
    kv_family_desc fs[2] = {fam("f", 1), fam("g", 1)};
    REQUIRE(kv_table_create(a, "two", fs, 2) == KV_OK);
    CHECK_EQ(kv_put(a, "two", "r", 1, "f", "q", 1, 5, "from a", 6, NULL), KV_OK);
    kv_result *r;
    REQUIRE(kv_get(&r, b, "two", "r", 1, NULL) == KV_OK);
    CHECK(r->ncells == 1 && r->cells[0].value_len == 6);
    kv_result_free(r);
    CHECK_EQ(kv_put(a, "two", "r", 1, "g", "q", 1, 5, "g", 1, NULL), KV_OK);   /* a caches */
    kv_family_desc g3 = fam("g", 3);
    CHECK_EQ(kv_table_alter_family(a, "two", &g3), KV_OK);
    kv_table_desc *d;
    REQUIRE(kv_table_describe(&d, b, "two") == KV_OK);
    CHECK(d->nfamilies == 2 && d->families[1].versions == 3);
    kv_table_desc_free(d);
    CHECK_EQ(kv_table_delete_family(b, "two", "g"), KV_OK);
    /* a still believes in g: the server refuses, a forgets, then knows. */
    kv_status st = kv_put(a, "two", "r", 1, "g", "q", 1, 6, "g", 1, NULL);
    CHECK(st != KV_OK);
    CHECK(kv_store_errmsg(a)[0] != '\0');
    CHECK_FAILS(a, kv_put(a, "two", "r", 1, "g", "q", 1, 6, "g", 1, NULL), KV_NO_FAMILY, "'g'");
    kv_store_close(a);
    kv_store_close(b);
}

/* ---- threads sharing one store, as FUSE's workers do ---- */

typedef struct worker {
    kv_store *s;
    int id;
    int errors;
} worker;

static void *work(void *arg) {
    worker *w = arg;
    for (int i = 0; i < 100; i++) {
        char row[32], val[32];
        snprintf(row, sizeof row, "w%d-%03d", w->id, i);
        snprintf(val, sizeof val, "v%d", i);
        if (kv_put(w->s, "mt", row, strlen(row), "cf", "q", 1, KV_LATEST_TIMESTAMP, val,
                   strlen(val), NULL) != KV_OK)
            w->errors++;
        kv_result *r = NULL;
        if (kv_get(&r, w->s, "mt", row, strlen(row), NULL) != KV_OK || r->ncells != 1 ||
            r->cells[0].value_len != strlen(val) || memcmp(r->cells[0].value, val, strlen(val)))
            w->errors++;
        kv_result_free(r);
    }
    return NULL;
}

static void test_threads_share_one_store(void) {
    kv_store *s = open_store(g_loc, 0, false);
    kv_family_desc f = fam("cf", 1);
    REQUIRE(kv_table_create(s, "mt", &f, 1) == KV_OK);
    pthread_t t[8];
    worker w[8];
    for (int i = 0; i < 8; i++) {
        w[i] = (worker){s, i, 0};
        REQUIRE(pthread_create(&t[i], NULL, work, &w[i]) == 0);
    }
    for (int i = 0; i < 8; i++) {
        pthread_join(t[i], NULL);
        CHECK_EQ(w[i].errors, 0);
    }
    kv_scan *sc;
    REQUIRE(kv_scan_open(&sc, s, "mt", NULL) == KV_OK);
    const kv_result *r;
    int rows = 0;
    while (kv_scan_next(&r, sc) == KV_OK) rows++;
    kv_scan_close(sc);
    CHECK_EQ(rows, 800);
    kv_store_close(s);
}

/* TCP connections of this process to the emulator's port. */
static int connections_to(int port) {
    int n = 0;
    const char *files[] = {"/proc/self/net/tcp", "/proc/self/net/tcp6"};
    for (int f = 0; f < 2; f++) {
        FILE *fp = fopen(files[f], "r");
        if (!fp) continue;
        char line[512];
        while (fgets(line, sizeof line, fp)) {
            char rem[64];
            unsigned state;
            /* sl local_address rem_address st ... */
            if (sscanf(line, "%*s %*s %63s %x", rem, &state) != 2) continue;
            const char *colon = strrchr(rem, ':');
            if (colon && state == 1 && (int)strtol(colon + 1, NULL, 16) == port) n++;
        }
        fclose(fp);
    }
    return n;
}

/* Stores of one process share one connection per endpoint (gRPC's
   subchannel pool; data and admin calls share the emulator's). The
   emulator serves only this test, so every connection to its port that
   the network namespace shows is ours. */
static void test_one_connection(void) {
    const char *host = getenv("BIGTABLE_EMULATOR_HOST");
    const char *colon = host ? strrchr(host, ':') : NULL;
    REQUIRE(colon != NULL);
    int port = atoi(colon + 1);
    kv_store *a = open_store(g_loc, KV_BIGTABLE_NO_CACHE, false);
    kv_store *b = open_store(g_loc, KV_BIGTABLE_NO_CACHE, false);
    kv_family_desc f = fam("cf", 1);
    REQUIRE(kv_table_create(a, "conn", &f, 1) == KV_OK);
    CHECK_EQ(kv_put(b, "conn", "r", 1, "cf", "q", 1, 5, "v", 1, NULL), KV_OK);
    kv_result *r;
    REQUIRE(kv_get(&r, a, "conn", "r", 1, NULL) == KV_OK);
    kv_result_free(r);
    CHECK_EQ(connections_to(port), 1);
    kv_store_close(a);
    kv_store_close(b);
}

/* A cell above gRPC's default 4 MiB receive limit, and long scans. */
static void test_large_cell_and_long_scans(void) {
    kv_store *s = open_store(g_loc, 0, false);
    kv_family_desc f = fam("cf", 1);
    REQUIRE(kv_table_create(s, "big", &f, 1) == KV_OK);
    size_t n = 6u << 20;
    char *v = malloc(n);
    REQUIRE(v != NULL);
    for (size_t i = 0; i < n; i++) v[i] = (char)('a' + i % 26);
    CHECK_EQ(kv_put(s, "big", "r", 1, "cf", "q", 1, 5, v, n, NULL), KV_OK);
    kv_result *r;
    REQUIRE(kv_get(&r, s, "big", "r", 1, NULL) == KV_OK);
    CHECK(r->ncells == 1 && r->cells[0].value_len == n && memcmp(r->cells[0].value, v, n) == 0);
    kv_result_free(r);
    free(v);
    /* 2000 rows in batches; a scan closed after 5 rows; a count; a limit. */
    kv_mutation *ms[100];
    for (int b = 0; b < 20; b++) {
        for (int i = 0; i < 100; i++) {
            char row[16];
            snprintf(row, sizeof row, "row%05d", b * 100 + i);
            REQUIRE(kv_mutation_new(&ms[i], row, strlen(row)) == KV_OK);
            REQUIRE(kv_mutation_put(ms[i], "cf", "q", 1, 7, row, strlen(row)) == KV_OK);
        }
        CHECK_EQ(kv_mutate_batch(s, "big", ms, 100, NULL, NULL), KV_OK);
        for (int i = 0; i < 100; i++) kv_mutation_free(ms[i]);
    }
    kv_read_options o = KV_READ_OPTIONS_INIT;
    o.row_prefix = "row";
    o.row_prefix_len = 3;
    kv_scan *sc;
    const kv_result *row;
    REQUIRE(kv_scan_open(&sc, s, "big", &o) == KV_OK);
    for (int i = 0; i < 5; i++) CHECK_EQ(kv_scan_next(&row, sc), KV_OK);
    CHECK(row->row_len == 8 && memcmp(row->row, "row00004", 8) == 0);
    kv_scan_close(sc);
    kv_filter *fk;
    REQUIRE(kv_filter_parse(&fk, "FirstKeyOnlyFilter() AND KeyOnlyFilter()", NULL, 0) == KV_OK);
    o.filter = fk;
    REQUIRE(kv_scan_open(&sc, s, "big", &o) == KV_OK);
    int rows = 0;
    kv_status st;
    while ((st = kv_scan_next(&row, sc)) == KV_OK) {
        rows++;
        if (row->ncells != 1 || row->cells[0].value_len != 0) CHECK(false);
    }
    CHECK_EQ(st, KV_END);
    CHECK_EQ(rows, 2000);
    kv_scan_close(sc);
    o.limit = 1500;
    REQUIRE(kv_scan_open(&sc, s, "big", &o) == KV_OK);
    rows = 0;
    while (kv_scan_next(&row, sc) == KV_OK) rows++;
    CHECK_EQ(rows, 1500);
    kv_scan_close(sc);
    kv_filter_free(fk);
    kv_store_close(s);
}

int main(void) {
    if (!getenv("BIGTABLE_EMULATOR_HOST")) {
        printf("SKIP: needs BIGTABLE_EMULATOR_HOST (run through scripts/bt_emulator.sh run)\n");
        return 77;
    }
    snprintf(g_loc, sizeof g_loc, "bigtable://backend/test-%d", (int)getpid());
    test_store_and_locations();
    test_limits_and_refusals();
    test_namespaces_from_ids();
    test_two_clients();
    test_threads_share_one_store();
    test_one_connection();
    test_large_cell_and_long_scans();
    return test_finish("test_bt_backend");
}
