/**
 * @file test_concurrency.c
 * Acceptance tests of kvcore under threads, through the public header: row
 * mutations over two families are never seen half-applied by concurrent
 * scans and gets (while flushes and compactions run), concurrent
 * FSYNC_WAL writers (group commit) all land, concurrent increments of one
 * counter are exact, catalog changes run beside writers without
 * deadlock, and a get does not wait for the I/O of a memstore switch.
 * Threads count their own failures; main checks the counts.
 */
#include "kvcore.h"
#include "testhold.h"
#include "teststore.h"
#include "util/env.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#define NROWS 64
#define VALUE_PAD 200

typedef struct shared {
    kv_store *s;
    atomic_bool stop;
    atomic_long failures;       /* unexpected errors */
    atomic_long torn;           /* rows seen half-mutated */
    atomic_long reads, writes;
    atomic_long negative_incrs; /* increments by a negative delta begun */
} shared;

typedef struct worker {
    shared *sh;
    int id;
    uint64_t rng;
} worker;

static uint64_t rng(uint64_t *s) {
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void fail(shared *sh, const char *what, kv_status st) {
    if (atomic_fetch_add(&sh->failures, 1) < 10)
        fprintf(stderr, "  %s: %s (%s)\n", what, kv_strerror(st), kv_store_errmsg(sh->s));
}

static kv_store *open_store(const char *path, size_t wbs) {
    kv_store_options o = KV_STORE_OPTIONS_INIT;
    kv_local_options lo = KV_LOCAL_OPTIONS_INIT;
    o.create_if_missing = true;
    lo.write_buffer_size = wbs;
    o.local = &lo;
    kv_store *s = NULL;
    char err[512];
    kv_status st = kv_store_open(&s, path, &o, err, sizeof err);
    if (st != KV_OK) fprintf(stderr, "open: %s\n", err);
    REQUIRE(st == KV_OK);
    return s;
}

static void create_table(kv_store *s, const char *name, const char *f1, const char *f2) {
    kv_family_desc f[2] = {KV_FAMILY_DESC_INIT, KV_FAMILY_DESC_INIT};
    snprintf(f[0].name, sizeof f[0].name, "%s", f1);
    if (f2) snprintf(f[1].name, sizeof f[1].name, "%s", f2);
    kv_status st = kv_table_create(s, name, f, f2 ? 2 : 1);
    if (st != KV_OK) fprintf(stderr, "create %s: %s\n", name, kv_strerror(st));
    REQUIRE(st == KV_OK);
}

/* ---- 1. row atomicity ---- */

/* The five columns of a row: a:q0 a:q1 a:q2 b:q0 b:q1. */
static const char *const col_fam[5] = {"a", "a", "a", "b", "b"};
static const char *const col_q[5] = {"q0", "q1", "q2", "q0", "q1"};

static void *atom_writer(void *arg) {
    worker *w = arg;
    shared *sh = w->sh;
    char value[64 + VALUE_PAD];
    for (long n = 0; !atomic_load(&sh->stop); n++) {
        char row[16];
        snprintf(row, sizeof row, "row%03d", (int)(rng(&w->rng) % NROWS));
        int len = snprintf(value, 64, "w%d-%ld-", w->id, n);
        size_t vlen = (size_t)len + (size_t)(rng(&w->rng) % VALUE_PAD);
        memset(value + len, 'p', vlen - (size_t)len);
        kv_mutation *m;
        if (kv_mutation_new(&m, row, strlen(row)) != KV_OK) {
            fail(sh, "mutation_new", KV_NO_MEMORY);
            break;
        }
        /* Every 16th mutation deletes the row and rewrites it in one go:
           readers must still see all five columns or none. */
        if (n % 16 == 15) kv_mutation_delete_row(m, KV_LATEST_TIMESTAMP);
        for (int c = 0; c < 5; c++)
            kv_mutation_put(m, col_fam[c], col_q[c], 2, KV_LATEST_TIMESTAMP, value, vlen);
        kv_status st = kv_mutate(sh->s, "atom", m, NULL);
        kv_mutation_free(m);
        if (st != KV_OK) fail(sh, "mutate", st);
        atomic_fetch_add(&sh->writes, 1);
    }
    return NULL;
}

/* Checks one returned row: five columns with equal values, or nothing. */
static void check_row(shared *sh, const kv_result *r) {
    if (r->ncells == 0) return;
    bool ok = r->ncells == 5;
    for (size_t c = 0; ok && c < 5; c++) {
        const kv_cell *cell = &r->cells[c];
        ok = strcmp(cell->family, col_fam[c]) == 0 && cell->qualifier_len == 2 &&
             memcmp(cell->qualifier, col_q[c], 2) == 0 && cell->value_len == r->cells[0].value_len &&
             memcmp(cell->value, r->cells[0].value, cell->value_len) == 0;
    }
    if (!ok && atomic_fetch_add(&sh->torn, 1) < 5) {
        fprintf(stderr, "  torn row %.*s: %zu cells:", (int)r->row_len, (const char *)r->row, r->ncells);
        for (size_t c = 0; c < r->ncells; c++)
            fprintf(stderr, " %s:%.*s=%.12s", r->cells[c].family, (int)r->cells[c].qualifier_len,
                    (const char *)r->cells[c].qualifier, (const char *)r->cells[c].value);
        fprintf(stderr, "\n");
    }
}

static void *atom_scanner(void *arg) {
    worker *w = arg;
    shared *sh = w->sh;
    while (!atomic_load(&sh->stop)) {
        kv_read_options ro = KV_READ_OPTIONS_INIT;
        ro.reversed = rng(&w->rng) % 2;
        kv_scan *sc;
        kv_status st = kv_scan_open(&sc, sh->s, "atom", &ro);
        if (st != KV_OK) {
            fail(sh, "scan_open", st);
            break;
        }
        const kv_result *r;
        int rows = 0;
        while ((st = kv_scan_next(&r, sc)) == KV_OK) {
            check_row(sh, r);
            rows++;
        }
        if (st != KV_END) fail(sh, "scan_next", st);
        kv_scan_close(sc);
        atomic_fetch_add(&sh->reads, rows);
    }
    return NULL;
}

static void *atom_getter(void *arg) {
    worker *w = arg;
    shared *sh = w->sh;
    while (!atomic_load(&sh->stop)) {
        char row[16];
        snprintf(row, sizeof row, "row%03d", (int)(rng(&w->rng) % NROWS));
        kv_result *r;
        kv_status st = kv_get(&r, sh->s, "atom", row, strlen(row), NULL);
        if (st != KV_OK) {
            fail(sh, "get", st);
            continue;
        }
        check_row(sh, r);
        kv_result_free(r);
        atomic_fetch_add(&sh->reads, 1);
        /* What df on a mount asks while its writers append (under TSan:
           the log's size read beside its appender). */
        kv_store_stats stats;
        if (rng(&w->rng) % 8 == 0 && (st = kv_store_stat(&stats, sh->s)) != KV_OK)
            fail(sh, "stat", st);
    }
    return NULL;
}

/* Drops and re-creates other tables while the writers run. */
static void *catalog_changer(void *arg) {
    worker *w = arg;
    shared *sh = w->sh;
    for (int i = 0; !atomic_load(&sh->stop); i++) {
        char name[32];
        snprintf(name, sizeof name, "other%d", i % 3);
        kv_family_desc f = KV_FAMILY_DESC_INIT;
        snprintf(f.name, sizeof f.name, "f");
        kv_status st = kv_table_create(sh->s, name, &f, 1);
        if (st != KV_OK) fail(sh, "table_create", st);
        for (int k = 0; st == KV_OK && k < 20; k++) {
            char row[16];
            snprintf(row, sizeof row, "r%d", k);
            kv_status ps = kv_put(sh->s, name, row, strlen(row), "f", "q", 1, KV_LATEST_TIMESTAMP,
                                  "v", 1, NULL);
            if (ps != KV_OK) fail(sh, "put to the changing table", ps);
        }
        /* a get of the table just made under an old name: the scans'
           cached tables (read.c) meet catalog changes from this thread
           while the getters use them (under TSan in CI) */
        kv_result *r = NULL;
        kv_status gs = kv_get(&r, sh->s, name, "r0", 2, NULL);
        if (gs != KV_OK) fail(sh, "get from the changing table", gs);
        else if (r->ncells != 1) fail(sh, "get from the changing table: cells", KV_CORRUPT);
        kv_result_free(r);
        if (i % 4 == 1) {
            kv_family_desc g = KV_FAMILY_DESC_INIT;
            snprintf(g.name, sizeof g.name, "g");
            st = kv_table_alter_family(sh->s, name, &g);
            if (st != KV_OK) fail(sh, "alter_family", st);
        }
        if (i % 4 == 2 && (st = kv_table_truncate(sh->s, name, false)) != KV_OK) fail(sh, "truncate", st);
        if ((st = kv_table_disable(sh->s, name)) != KV_OK) fail(sh, "disable", st);
        if ((st = kv_table_drop(sh->s, name)) != KV_OK) fail(sh, "drop", st);
        if (i % 5 == 0 && (st = kv_compact(sh->s, "atom", i % 10 == 0)) != KV_OK) fail(sh, "compact", st);
        if (i % 7 == 0 && (st = kv_flush(sh->s, NULL)) != KV_OK) fail(sh, "flush", st);
    }
    return NULL;
}

static void test_row_atomicity(const char *dir) {
    char path[600];
    snprintf(path, sizeof path, "%s/atom", dir);
    shared sh = {0};
    sh.s = open_store(path, 64 << 10);
    create_table(sh.s, "atom", "a", "b");
    enum { NW = 4, NS = 2, NG = 2 };
    worker ws[NW + NS + NG + 1];
    pthread_t th[NW + NS + NG + 1];
    for (int i = 0; i < NW + NS + NG + 1; i++) {
        ws[i].sh = &sh;
        ws[i].id = i;
        ws[i].rng = 0x9e3779b97f4a7c15ull * (uint64_t)(i + 1);
        void *(*fn)(void *) = i < NW ? atom_writer : i < NW + NS ? atom_scanner
                              : i < NW + NS + NG ? atom_getter : catalog_changer;
        REQUIRE(pthread_create(&th[i], NULL, fn, &ws[i]) == 0);
    }
    double start = now_s();
    while (now_s() - start < 3.0) usleep(50 * 1000);
    atomic_store(&sh.stop, true);
    for (int i = 0; i < NW + NS + NG + 1; i++) pthread_join(th[i], NULL);
    kv_store_stats st;
    CHECK_EQ(kv_store_stat(&st, sh.s), KV_OK);
    printf("atomicity: %ld writes, %ld rows read, %llu flushes, %llu compactions\n",
           atomic_load(&sh.writes), atomic_load(&sh.reads), (unsigned long long)st.flushes,
           (unsigned long long)st.compactions);
    CHECK_EQ(atomic_load(&sh.failures), 0);
    CHECK_EQ(atomic_load(&sh.torn), 0);
    CHECK(atomic_load(&sh.writes) > 100);
    CHECK(atomic_load(&sh.reads) > 100);
    CHECK(st.flushes > 0);
    /* The other tables are gone; the store still reopens with every row whole. */
    CHECK_EQ(kv_store_close(sh.s), KV_OK);
    sh.s = open_store(path, 64 << 10);
    CHECK_EQ(kv_table_exists(sh.s, "other0"), KV_NOT_FOUND);
    kv_scan *sc;
    REQUIRE(kv_scan_open(&sc, sh.s, "atom", NULL) == KV_OK);
    const kv_result *r;
    int rows = 0;
    while (kv_scan_next(&r, sc) == KV_OK) {
        check_row(&sh, r);
        rows++;
    }
    kv_scan_close(sc);
    CHECK(rows > 0 && rows <= NROWS);
    CHECK_EQ(atomic_load(&sh.torn), 0);
    CHECK_EQ(kv_store_close(sh.s), KV_OK);
}

/* ---- 2. group commit ---- */

#define SYNC_THREADS 8
#define SYNC_PUTS 150

static void *sync_writer(void *arg) {
    worker *w = arg;
    kv_write_options wo = KV_WRITE_OPTIONS_INIT;
    wo.durability = KV_FSYNC_WAL;
    for (int i = 0; i < SYNC_PUTS; i++) {
        char row[32], v[32];
        snprintf(row, sizeof row, "t%d-%04d", w->id, i);
        snprintf(v, sizeof v, "v%d-%d", w->id, i);
        kv_status st = kv_put(w->sh->s, "sync", row, strlen(row), "f", "q", 1, KV_LATEST_TIMESTAMP, v,
                              strlen(v), &wo);
        if (st != KV_OK) fail(w->sh, "fsync put", st);
        atomic_fetch_add(&w->sh->writes, 1);
    }
    return NULL;
}

static int check_sync_values(kv_store *s) {
    int bad = 0;
    for (int t = 0; t < SYNC_THREADS; t++)
        for (int i = 0; i < SYNC_PUTS; i++) {
            char row[32], v[32];
            snprintf(row, sizeof row, "t%d-%04d", t, i);
            snprintf(v, sizeof v, "v%d-%d", t, i);
            kv_result *r;
            if (kv_get(&r, s, "sync", row, strlen(row), NULL) != KV_OK) {
                bad++;
                continue;
            }
            if (r->ncells != 1 || r->cells[0].value_len != strlen(v) ||
                memcmp(r->cells[0].value, v, strlen(v)) != 0)
                bad++;
            kv_result_free(r);
        }
    return bad;
}

static void test_group_commit(const char *dir) {
    char path[600];
    snprintf(path, sizeof path, "%s/sync", dir);
    shared sh = {0};
    sh.s = open_store(path, 1 << 20);
    create_table(sh.s, "sync", "f", NULL);
    kv_store_stats before, after;
    CHECK_EQ(kv_store_stat(&before, sh.s), KV_OK);
    worker ws[SYNC_THREADS];
    pthread_t th[SYNC_THREADS];
    double start = now_s();
    for (int i = 0; i < SYNC_THREADS; i++) {
        ws[i].sh = &sh;
        ws[i].id = i;
        REQUIRE(pthread_create(&th[i], NULL, sync_writer, &ws[i]) == 0);
    }
    for (int i = 0; i < SYNC_THREADS; i++) pthread_join(th[i], NULL);
    double secs = now_s() - start;
    CHECK_EQ(kv_store_stat(&after, sh.s), KV_OK);
    printf("group commit: %d fsync puts in %.2f s\n", SYNC_THREADS * SYNC_PUTS, secs);
    CHECK_EQ(atomic_load(&sh.failures), 0);
    CHECK_EQ(after.last_sequence - before.last_sequence, SYNC_THREADS * SYNC_PUTS);
    CHECK_EQ(check_sync_values(sh.s), 0);
    CHECK_EQ(kv_store_close(sh.s), KV_OK);
    sh.s = open_store(path, 1 << 20);
    CHECK_EQ(check_sync_values(sh.s), 0);
    CHECK_EQ(kv_store_close(sh.s), KV_OK);
}

/* ---- 3. concurrent increments ---- */

#define INCR_THREADS 8
#define INCR_EACH 400

static void *incrementer(void *arg) {
    worker *w = arg;
    int64_t last = INT64_MIN;
    for (int i = 0; i < INCR_EACH; i++) {
        int64_t delta = (i % 10 == 9) ? -3 : 1 + w->id % 2;
        int64_t res;
        if (delta < 0) atomic_fetch_add(&w->sh->negative_incrs, 1);
        kv_status st = kv_increment(&res, w->sh->s, "ctr", "row", 3, "f", "n", 1, delta, NULL);
        if (st != KV_OK) fail(w->sh, "increment", st);
        /* While no thread has begun a negative increment (another thread
           may be 9 increments ahead), results keep growing. */
        if (st == KV_OK && atomic_load(&w->sh->negative_incrs) == 0 && res <= last)
            fail(w->sh, "increment went backwards", KV_OK);
        last = res;
        /* A second counter in another column of the same row, with puts
           to a third column in between. */
        if (i % 4 == 0) {
            st = kv_increment(NULL, w->sh->s, "ctr", "row", 3, "f", "m", 1, 1, NULL);
            if (st != KV_OK) fail(w->sh, "increment m", st);
            st = kv_put(w->sh->s, "ctr", "row", 3, "f", "x", 1, KV_LATEST_TIMESTAMP, "y", 1, NULL);
            if (st != KV_OK) fail(w->sh, "put x", st);
        }
    }
    return NULL;
}

static int64_t read_counter(kv_store *s, const char *q) {
    kv_column col = {"f", q, 1};
    kv_read_options ro = KV_READ_OPTIONS_INIT;
    ro.columns = &col;
    ro.ncolumns = 1;
    kv_result *r;
    if (kv_get(&r, s, "ctr", "row", 3, &ro) != KV_OK) return INT64_MIN;
    int64_t v = INT64_MIN;
    if (r->ncells == 1 && r->cells[0].value_len == 8) {
        uint64_t u = 0;
        for (int i = 0; i < 8; i++) u = u << 8 | r->cells[0].value[i];
        v = (int64_t)u;
    }
    kv_result_free(r);
    return v;
}

static void test_increments(const char *dir) {
    char path[600];
    snprintf(path, sizeof path, "%s/ctr", dir);
    shared sh = {0};
    sh.s = open_store(path, 64 << 10);
    create_table(sh.s, "ctr", "f", NULL);
    worker ws[INCR_THREADS];
    pthread_t th[INCR_THREADS];
    for (int i = 0; i < INCR_THREADS; i++) {
        ws[i].sh = &sh;
        ws[i].id = i;
        REQUIRE(pthread_create(&th[i], NULL, incrementer, &ws[i]) == 0);
    }
    for (int i = 0; i < INCR_THREADS; i++) pthread_join(th[i], NULL);
    int64_t want = 0;
    for (int t = 0; t < INCR_THREADS; t++)
        for (int i = 0; i < INCR_EACH; i++) want += (i % 10 == 9) ? -3 : 1 + t % 2;
    CHECK_EQ(atomic_load(&sh.failures), 0);
    CHECK_EQ(read_counter(sh.s, "n"), want);
    CHECK_EQ(read_counter(sh.s, "m"), INCR_THREADS * ((INCR_EACH + 3) / 4));
    CHECK_EQ(kv_store_close(sh.s), KV_OK);
    sh.s = open_store(path, 64 << 10);
    CHECK_EQ(read_counter(sh.s, "n"), want);
    CHECK_EQ(kv_store_close(sh.s), KV_OK);
}

/* ---- a get does not wait for the I/O of a memstore switch ---- */

/* An env that, once armed, holds its next sync_dir (the new log's, in a
   memstore switch) until the test says a get has finished, or 10 s. */
typedef struct held_env {
    kv_env base;                /* first: the store calls base's functions */
    kv_env *inner;
    test_hold hold;
} held_env;

static kv_status held_sync_dir(kv_env *env, const char *dir, char *err, size_t errlen) {
    held_env *h = (held_env *)env;
    test_hold_here(&h->hold, true, 10);
    return h->inner->sync_dir(h->inner, dir, err, errlen);
}

static void *flusher(void *arg) {
    kv_store *s = arg;
    return kv_flush(s, NULL) == KV_OK ? NULL : (void *)1;
}

static void test_get_during_switch(const char *dir) {
    char path[600];
    snprintf(path, sizeof path, "%s/switch", dir);
    held_env h = {.inner = kv_env_posix()};
    h.base = *h.inner;
    h.base.sync_dir = held_sync_dir;
    test_hold_init(&h.hold);
    kv_local_options lo = KV_LOCAL_OPTIONS_INIT;
    lo.env = &h.base;
    lo.compaction = KV_COMPACTION_MANUAL;
    kv_store *s = test_open_store(path, &lo);
    create_table(s, "t", "f", NULL);
    REQUIRE(kv_put(s, "t", "r", 1, "f", "q", 1, 5, "v", 1, NULL) == KV_OK);
    test_hold_arm(&h.hold);
    pthread_t th;
    REQUIRE(pthread_create(&th, NULL, flusher, s) == 0);
    test_hold_wait_holding(&h.hold);
    /* The flush's switch is creating its new log now: a get goes on. */
    kv_result *r = NULL;
    CHECK_EQ(kv_get(&r, s, "t", "r", 1, NULL), KV_OK);
    CHECK(r && r->ncells == 1);
    kv_result_free(r);
    CHECK(test_hold_release(&h.hold));   /* the get ended while the sync was held */
    void *ret = NULL;
    pthread_join(th, &ret);
    CHECK(ret == NULL);
    r = NULL;
    CHECK_EQ(kv_get(&r, s, "t", "r", 1, NULL), KV_OK);
    CHECK(r && r->ncells == 1);
    kv_result_free(r);
    CHECK_EQ(kv_store_close(s), KV_OK);
    test_hold_destroy(&h.hold);
}

int main(void) {
    /* A deadlock fails the test instead of hanging it. */
    alarm(300);
    char *dir = test_tmpdir("conc");
    test_row_atomicity(dir);
    test_group_commit(dir);
    test_increments(dir);
    test_get_during_switch(dir);
    test_rmtree(dir);
    free(dir);
    return test_finish("test_concurrency");
}
