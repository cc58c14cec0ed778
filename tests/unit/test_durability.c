/**
 * @file test_durability.c
 * Acceptance tests of kvcore's durability through the public header (and
 * env.h for the fault-injecting env): reopen after close with catalog and
 * cells, SIGKILL of a writing child at random points (also during
 * background flush/compaction), the second-opener lock message, a full
 * disk, failed renames/syncs during flush, power loss (drop unsynced), and
 * corrupted sorted files and manifests.
 */
#include "kvcore.h"
#include "util/env.h"
#include "teststore.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- helpers ---- */

static uint64_t rng_next(uint64_t *s) {
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

static kv_store *open_store(const char *path, kv_store_options *o) {
    kv_store_options def = KV_STORE_OPTIONS_INIT;
    if (!o) o = &def;
    o->create_if_missing = true;
    return test_open_with(path, o);
}

static void make_table(kv_store *s, const char *name, const char *f1, const char *f2) {
    kv_family_desc f[2] = {KV_FAMILY_DESC_INIT, KV_FAMILY_DESC_INIT};
    snprintf(f[0].name, sizeof f[0].name, "%s", f1);
    if (f2) snprintf(f[1].name, sizeof f[1].name, "%s", f2);
    kv_status st = kv_table_create(s, name, f, f2 ? 2 : 1);
    if (st != KV_OK) fprintf(stderr, "create %s: %s %s\n", name, kv_strerror(st), kv_store_errmsg(s));
    REQUIRE(st == KV_OK);
}

static kv_status put_str(kv_store *s, const char *t, const char *row, const char *fam,
                         const char *q, int64_t ts, const char *v, kv_durability d) {
    kv_write_options w = KV_WRITE_OPTIONS_INIT;
    w.durability = d;
    return kv_put(s, t, row, strlen(row), fam, q, strlen(q), ts, v, strlen(v), &w);
}

/* Reads the newest version of one cell. Returns KV_OK (found), KV_NOT_FOUND
   (absent) or the read error; copies the value into buf. */
static kv_status get_cell(kv_store *s, const char *t, const char *row, const char *fam,
                          const char *q, char *buf, size_t buflen, int64_t *ts) {
    kv_column col = {fam, q, strlen(q)};
    kv_read_options ro = KV_READ_OPTIONS_INIT;
    ro.columns = &col;
    ro.ncolumns = 1;
    kv_result *r = NULL;
    kv_status st = kv_get(&r, s, t, row, strlen(row), &ro);
    if (st != KV_OK) return st;
    if (r->ncells == 0) {
        kv_result_free(r);
        return KV_NOT_FOUND;
    }
    const kv_cell *c = &r->cells[0];
    size_t n = c->value_len < buflen - 1 ? c->value_len : buflen - 1;
    memcpy(buf, c->value, n);
    buf[n] = 0;
    if (ts) *ts = c->timestamp;
    kv_result_free(r);
    return KV_OK;
}

static void check_cell(kv_store *s, const char *t, const char *row, const char *fam,
                       const char *q, const char *want, int64_t want_ts) {
    char buf[4096];
    int64_t ts = 0;
    kv_status st = get_cell(s, t, row, fam, q, buf, sizeof buf, &ts);
    if (!want) {
        if (st != KV_NOT_FOUND)
            fprintf(stderr, "  %s/%s/%s:%s expected absent, got %s '%s'\n", t, row, fam, q,
                    kv_strerror(st), st == KV_OK ? buf : "");
        CHECK_EQ(st, KV_NOT_FOUND);
        return;
    }
    if (st != KV_OK) fprintf(stderr, "  %s/%s/%s:%s: %s\n", t, row, fam, q, kv_strerror(st));
    CHECK_EQ(st, KV_OK);
    if (st != KV_OK) return;
    CHECK(strcmp(buf, want) == 0);
    if (want_ts != INT64_MIN) CHECK_EQ(ts, want_ts);
}

/* ---- 1. reopen after close ---- */

#define R_ROWS 300

static void fill_reopen_model(kv_store *s, int round) {
    /* Explicit timestamps so the expected cells are exact. */
    static const char *const tables[] = {"t1", "ns1:t2", "t3"};
    for (int ti = 0; ti < 3; ti++) {
        for (int i = 0; i < R_ROWS; i++) {
            char row[32], v[64];
            snprintf(row, sizeof row, "row%05d", i);
            snprintf(v, sizeof v, "v-%s-%d-a-%d", tables[ti], i, round);
            CHECK_EQ(put_str(s, tables[ti], row, "a", "q1", 1000 + i + round * 10000, v, 0), KV_OK);
            snprintf(v, sizeof v, "v-%s-%d-b-%d", tables[ti], i, round);
            CHECK_EQ(put_str(s, tables[ti], row, "b", "q2", 2000 + i + round * 10000, v, 0), KV_OK);
            if (i == R_ROWS / 2 && round == 0) CHECK_EQ(kv_flush(s, NULL), KV_OK);
        }
        /* Delete the a:q1 column of every 7th row (all versions). */
        for (int i = 0; i < R_ROWS; i += 7) {
            char row[32];
            snprintf(row, sizeof row, "row%05d", i);
            kv_mutation *m;
            REQUIRE(kv_mutation_new(&m, row, strlen(row)) == KV_OK);
            CHECK_EQ(kv_mutation_delete_column(m, "a", "q1", 2, KV_LATEST_TIMESTAMP), KV_OK);
            CHECK_EQ(kv_mutate(s, tables[ti], m, NULL), KV_OK);
            kv_mutation_free(m);
        }
    }
}

static void check_reopen_model(kv_store *s, int round) {
    static const char *const tables[] = {"t1", "ns1:t2", "t3"};
    for (int ti = 0; ti < 3; ti++) {
        for (int i = 0; i < R_ROWS; i++) {
            char row[32], va[64], vb[64];
            snprintf(row, sizeof row, "row%05d", i);
            snprintf(va, sizeof va, "v-%s-%d-a-%d", tables[ti], i, round);
            snprintf(vb, sizeof vb, "v-%s-%d-b-%d", tables[ti], i, round);
            check_cell(s, tables[ti], row, "a", "q1", i % 7 == 0 ? NULL : va, 1000 + i + round * 10000);
            check_cell(s, tables[ti], row, "b", "q2", vb, 2000 + i + round * 10000);
        }
        /* Family a keeps 3 versions: the previous round's value is there too. */
        if (round > 0) {
            kv_read_options ro = KV_READ_OPTIONS_INIT;
            ro.max_versions = INT32_MAX;
            kv_column col = {"b", "q2", 2};
            ro.columns = &col;
            ro.ncolumns = 1;
            kv_result *r;
            CHECK_EQ(kv_get(&r, s, tables[ti], "row00003", 8, &ro), KV_OK);
            CHECK_EQ(r->ncells, round + 1 > 3 ? 3 : round + 1);
            if (r->ncells >= 2) {
                CHECK_EQ(r->cells[0].timestamp, 2003 + round * 10000);
                CHECK_EQ(r->cells[1].timestamp, 2003 + (round - 1) * 10000);
            }
            kv_result_free(r);
        }
    }
}

static void test_reopen_after_close(void) {
    char *dir = test_tmpdir("dur-reopen");
    char *path = test_path_join(dir, "store");
    kv_store *s = open_store(path, NULL);
    CHECK_EQ(kv_namespace_create(s, "ns1"), KV_OK);
    CHECK_EQ(kv_namespace_set_property(s, "ns1", "owner", "alice"), KV_OK);
    CHECK_EQ(kv_namespace_set_property(s, "ns1", "quota", "10 tables"), KV_OK);
    kv_family_desc f[2] = {KV_FAMILY_DESC_INIT, KV_FAMILY_DESC_INIT};
    snprintf(f[0].name, sizeof f[0].name, "a");
    f[0].versions = 1;
    f[0].compression = KV_COMPRESSION_LZ4;
    f[0].bloom = KV_BLOOM_ROWCOL;
    f[0].encoding = KV_ENCODING_DIFF;
    f[0].blocksize = 4096;
    snprintf(f[1].name, sizeof f[1].name, "b");
    f[1].versions = 3;
    f[1].min_versions = 1;
    f[1].compression = KV_COMPRESSION_SNAPPY;
    f[1].bloom = KV_BLOOM_NONE;
    f[1].encoding = KV_ENCODING_PREFIX;
    f[1].in_memory = true;
    f[1].keep_deleted = KV_KEEP_DELETED_TRUE;
    CHECK_EQ(kv_table_create(s, "t1", f, 2), KV_OK);
    CHECK_EQ(kv_table_create(s, "ns1:t2", f, 2), KV_OK);
    CHECK_EQ(kv_table_create(s, "t3", f, 2), KV_OK);
    fill_reopen_model(s, 0);
    check_reopen_model(s, 0);
    CHECK_EQ(kv_store_close(s), KV_OK);

    for (int round = 1; round <= 3; round++) {
        s = open_store(path, NULL);
        if (round == 3) {
            bool en = true;
            CHECK_EQ(kv_table_is_enabled(&en, s, "t3"), KV_OK);
            CHECK(!en);
            char buf[64];
            CHECK_EQ(get_cell(s, "t3", "row00001", "b", "q2", buf, sizeof buf, NULL), KV_DISABLED);
            CHECK_EQ(kv_table_enable(s, "t3"), KV_OK);
        }
        check_reopen_model(s, round - 1);
        if (round == 3) break;
        CHECK_EQ(kv_table_enable(s, "t3"), KV_ENABLED);
        fill_reopen_model(s, round);
        check_reopen_model(s, round);
        if (round == 2) CHECK_EQ(kv_table_disable(s, "t3"), KV_OK);
        CHECK_EQ(kv_store_close(s), KV_OK);
    }
    /* s is open after round 3's reopen: check the catalog. */
    char **names = NULL;
    CHECK_EQ(kv_namespace_list(&names, s), KV_OK);
    int found = 0;
    for (char **p = names; p && *p; p++) found += strcmp(*p, "ns1") == 0 || strcmp(*p, "default") == 0 ||
                                                  strcmp(*p, "hbase") == 0;
    CHECK_EQ(found, 3);
    kv_free_names(names);
    kv_property *props = NULL;
    size_t nprops = 0;
    CHECK_EQ(kv_namespace_describe(&props, &nprops, s, "ns1"), KV_OK);
    CHECK_EQ(nprops, 2);
    int pok = 0;
    for (size_t i = 0; i < nprops; i++) {
        if (strcmp(props[i].key, "owner") == 0 && strcmp(props[i].value, "alice") == 0) pok++;
        if (strcmp(props[i].key, "quota") == 0 && strcmp(props[i].value, "10 tables") == 0) pok++;
    }
    CHECK_EQ(pok, 2);
    kv_free_properties(props, nprops);
    kv_table_desc *d = NULL;
    CHECK_EQ(kv_table_describe(&d, s, "ns1:t2"), KV_OK);
    if (d) {
        CHECK(d->enabled);
        CHECK_EQ(d->nfamilies, 2);
        for (size_t i = 0; i < 2 && i < d->nfamilies; i++) {
            const kv_family_desc *g = &d->families[i], *w = &f[i];
            CHECK(strcmp(g->name, w->name) == 0);
            CHECK_EQ(g->versions, w->versions);
            CHECK_EQ(g->min_versions, w->min_versions);
            CHECK_EQ(g->ttl_seconds, w->ttl_seconds);
            CHECK_EQ(g->keep_deleted, w->keep_deleted);
            CHECK_EQ(g->compression, w->compression);
            CHECK_EQ(g->bloom, w->bloom);
            CHECK_EQ(g->blocksize, w->blocksize);
            CHECK_EQ(g->encoding, w->encoding);
            CHECK_EQ(g->in_memory, w->in_memory);
            CHECK_EQ(g->blockcache, w->blockcache);
            CHECK_EQ(g->new_version_behavior, w->new_version_behavior);
        }
        kv_table_desc_free(d);
    }
    CHECK_EQ(kv_store_close(s), KV_OK);
    test_rmtree(dir);
    free(path);
    free(dir);
}

/* ---- 2. killed without close ---- */

#define KILL_TABLE "k"

static void kill_value(char *buf, size_t len, int round, uint32_t i) {
    /* 100..1100 bytes, derived from (round, i) so the parent can rebuild it. */
    uint64_t r = (uint64_t)round * 1000003u + i + 1;
    size_t n = 100 + (size_t)(rng_next(&r) % 1000);
    if (n >= len) n = len - 1;
    int k = snprintf(buf, len, "%d:%u:", round, i);
    for (size_t j = (size_t)k; j < n; j++) buf[j] = (char)('a' + (rng_next(&r) % 26));
    buf[n > (size_t)k ? n : (size_t)k] = 0;
}

/* Child: writes rows until killed; reports each acknowledged count. */
static void kill_child(const char *path, int round, int wfd, uint32_t self_kill_at) {
    kv_store_options o = KV_STORE_OPTIONS_INIT;
    kv_local_options lo = KV_LOCAL_OPTIONS_INIT;
    o.create_if_missing = true;
    lo.write_buffer_size = 64 << 10;
    o.local = &lo;
    kv_store *s = NULL;
    char err[512];
    if (kv_store_open(&s, path, &o, err, sizeof err) != KV_OK) {
        fprintf(stderr, "child open: %s\n", err);
        _exit(3);
    }
    if (round == 0) {
        kv_family_desc f[2] = {KV_FAMILY_DESC_INIT, KV_FAMILY_DESC_INIT};
        snprintf(f[0].name, sizeof f[0].name, "f");
        snprintf(f[1].name, sizeof f[1].name, "g");
        f[1].compression = KV_COMPRESSION_LZ4;
        if (kv_table_create(s, KILL_TABLE, f, 2) != KV_OK) _exit(4);
    }
    char v[1200];
    for (uint32_t i = 0; i < 200000; i++) {
        char row[32];
        snprintf(row, sizeof row, "r%02d-%07u", round, i);
        kill_value(v, sizeof v, round, i);
        kv_write_options w = KV_WRITE_OPTIONS_INIT;
        w.durability = i % 5 == 0 ? KV_FSYNC_WAL : KV_DURABILITY_DEFAULT;
        kv_mutation *m;
        if (kv_mutation_new(&m, row, strlen(row)) != KV_OK) _exit(5);
        kv_mutation_put(m, "f", "v", 1, KV_LATEST_TIMESTAMP, v, strlen(v));
        kv_mutation_put(m, "g", "i", 1, 5000 + i, row, strlen(row));
        kv_status st = kv_mutate(s, KILL_TABLE, m, &w);
        kv_mutation_free(m);
        if (st != KV_OK) {
            fprintf(stderr, "child put %u: %s %s\n", i, kv_strerror(st), kv_store_errmsg(s));
            _exit(6);
        }
        uint32_t acked = i + 1;
        if (write(wfd, &acked, sizeof acked) != (ssize_t)sizeof acked) _exit(7);
        if (self_kill_at && acked == self_kill_at) raise(SIGKILL);
    }
    _exit(0);
}

static void check_kill_rounds(kv_store *s, const uint32_t *acked, int rounds) {
    char v[1200], got[1200], got2[64];
    for (int round = 0; round < rounds; round++) {
        int bad = 0;
        for (uint32_t i = 0; i < acked[round] && bad < 5; i++) {
            char row[32];
            snprintf(row, sizeof row, "r%02d-%07u", round, i);
            kill_value(v, sizeof v, round, i);
            kv_status st = get_cell(s, KILL_TABLE, row, "f", "v", got, sizeof got, NULL);
            int64_t ts = 0;
            kv_status st2 = get_cell(s, KILL_TABLE, row, "g", "i", got2, sizeof got2, &ts);
            if (st != KV_OK || strcmp(got, v) != 0 || st2 != KV_OK || ts != 5000 + (int64_t)i ||
                strcmp(got2, row) != 0) {
                fprintf(stderr, "  round %d row %u (of %u acked) lost or wrong: %s/%s\n", round, i,
                        acked[round], kv_strerror(st), kv_strerror(st2));
                bad++;
            }
        }
        CHECK_EQ(bad, 0);
    }
    /* Nothing corrupt: a full scan in both directions succeeds. */
    for (int rev = 0; rev < 2; rev++) {
        kv_read_options ro = KV_READ_OPTIONS_INIT;
        ro.reversed = rev;
        kv_scan *sc;
        REQUIRE(kv_scan_open(&sc, s, KILL_TABLE, &ro) == KV_OK);
        const kv_result *r;
        kv_status st;
        uint64_t n = 0;
        while ((st = kv_scan_next(&r, sc)) == KV_OK) {
            n++;
            bool extra = r->row_len == 8 && memcmp(r->row, "zz-extra", 8) == 0;
            CHECK_EQ(r->ncells, extra ? 1 : 2);
        }
        CHECK_EQ(st, KV_END);
        uint64_t min = 0;
        for (int round = 0; round < rounds; round++) min += acked[round];
        CHECK(n >= min && n <= min + 2 * (uint64_t)rounds);
        kv_scan_close(sc);
    }
}

static void test_killed_without_close(void) {
    char *dir = test_tmpdir("dur-kill");
    char *path = test_path_join(dir, "store");
    enum { ROUNDS = 6 };
    /* Kill targets: a few early ones, and some late enough that flushes and
       compactions run (64 KiB buffer, ~700 bytes a row: a flush every ~90). */
    static const uint32_t targets[ROUNDS] = {1, 150, 1200, 400, 2500, 777};
    uint32_t acked[ROUNDS] = {0};
    uint64_t seed = (uint64_t)time(NULL) | 1;
    for (int round = 0; round < ROUNDS; round++) {
        int fds[2];
        REQUIRE(pipe(fds) == 0);
        uint32_t self_kill = round % 3 == 2 ? targets[round] : 0;
        pid_t pid = fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            close(fds[0]);
            kill_child(path, round, fds[1], self_kill);
        }
        close(fds[1]);
        /* Random jitter: kill somewhere within +-25% of the target. */
        uint32_t target = targets[round];
        if (!self_kill && target > 4) target = target * 3 / 4 + (uint32_t)(rng_next(&seed) % (target / 2));
        uint32_t a = 0, last = 0;
        bool killed = false;
        for (;;) {
            ssize_t r = read(fds[0], &a, sizeof a);
            if (r == 0) break;
            if (r < 0 && errno == EINTR) continue;
            REQUIRE(r == (ssize_t)sizeof a);
            last = a;
            if (!self_kill && !killed && a >= target) {
                kill(pid, SIGKILL);
                killed = true;
            }
        }
        close(fds[0]);
        int status;
        REQUIRE(waitpid(pid, &status, 0) == pid);
        CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
        acked[round] = last;
        CHECK(last >= (self_kill ? self_kill : target));

        /* Parent: every acknowledged write is there. */
        kv_store_options o = KV_STORE_OPTIONS_INIT;
        kv_local_options lo = KV_LOCAL_OPTIONS_INIT;
        lo.write_buffer_size = 64 << 10;
        o.local = &lo;
        kv_store *s = open_store(path, &o);
        check_kill_rounds(s, acked, round + 1);
        /* The replayed log can be flushed on request. */
        CHECK_EQ(kv_flush(s, NULL), KV_OK);
        kv_store_stats stats;
        CHECK_EQ(kv_store_stat(&stats, s), KV_OK);
        if (stats.memstore_bytes != 0)
            fprintf(stderr, "  after kv_flush of a replayed store: memstore_bytes = %llu\n",
                    (unsigned long long)stats.memstore_bytes);
        CHECK_EQ(stats.memstore_bytes, 0);
        /* The store can be written and reopened again. */
        CHECK_EQ(put_str(s, KILL_TABLE, "zz-extra", "f", "v", 1, "extra", 0), KV_OK);
        CHECK_EQ(kv_store_close(s), KV_OK);
        s = open_store(path, &o);
        check_cell(s, KILL_TABLE, "zz-extra", "f", "v", "extra", 1);
        CHECK_EQ(kv_store_close(s), KV_OK);
    }
    test_rmtree(dir);
    free(path);
    free(dir);
}

/* ---- 3. second opener ---- */

static void test_second_opener(void) {
    char *dir = test_tmpdir("dur-lock");
    char *path = test_path_join(dir, "store");
    kv_store_options o = KV_STORE_OPTIONS_INIT;
    o.owner = "cellfs mounted at /mnt/test";
    kv_store *s = open_store(path, &o);
    kv_store *s2 = NULL;
    char err[512] = "";
    kv_store_options o2 = KV_STORE_OPTIONS_INIT;
    CHECK_EQ(kv_store_open(&s2, path, &o2, err, sizeof err), KV_LOCKED);
    CHECK(s2 == NULL);
    char pid[32];
    snprintf(pid, sizeof pid, "%ld", (long)getpid());
    CHECK(strstr(err, pid) != NULL);
    CHECK(strstr(err, "cellfs mounted at /mnt/test") != NULL);
    /* The holder is unaffected. */
    make_table(s, "t", "f", NULL);
    CHECK_EQ(put_str(s, "t", "r", "f", "q", 5, "v", 0), KV_OK);
    CHECK_EQ(kv_store_close(s), KV_OK);
    /* Released at close. */
    s = open_store(path, &o2);
    check_cell(s, "t", "r", "f", "q", "v", 5);
    CHECK_EQ(kv_store_close(s), KV_OK);
    test_rmtree(dir);
    free(path);
    free(dir);
}

/* ---- 4. fault env ---- */

static void check_rows(kv_store *s, const char *t, const char *prefix, int from, int to) {
    int bad = 0;
    for (int i = from; i < to && bad < 5; i++) {
        char row[64], v[64], got[64];
        snprintf(row, sizeof row, "%s%06d", prefix, i);
        snprintf(v, sizeof v, "value-%s-%d-padding-padding-padding", prefix, i);
        kv_status st = get_cell(s, t, row, "f", "q", got, sizeof got, NULL);
        if (st != KV_OK || strcmp(got, v) != 0) {
            fprintf(stderr, "  row %s lost or wrong: %s\n", row, kv_strerror(st));
            bad++;
        }
    }
    CHECK_EQ(bad, 0);
}

static kv_status put_row(kv_store *s, const char *t, const char *prefix, int i, kv_durability d) {
    char row[64], v[64];
    snprintf(row, sizeof row, "%s%06d", prefix, i);
    snprintf(v, sizeof v, "value-%s-%d-padding-padding-padding", prefix, i);
    return put_str(s, t, row, "f", "q", KV_LATEST_TIMESTAMP, v, d);
}

/* Writes until a put fails; returns the number acknowledged. */
static int write_until_full(kv_store *s, const char *prefix, int limit, kv_status *failure) {
    *failure = KV_OK;
    for (int i = 0; i < limit; i++) {
        kv_status st = put_row(s, "t", prefix, i, 0);
        if (st != KV_OK) {
            *failure = st;
            return i;
        }
    }
    return limit;
}

/* Retries a put for a few seconds (the background flush retries each
   second after a failure). */
static kv_status put_row_retry(kv_store *s, const char *prefix, int i) {
    kv_status st = KV_OK;
    for (int tries = 0; tries < 60; tries++) {
        st = put_row(s, "t", prefix, i, 0);
        if (st == KV_OK) return st;
        usleep(100 * 1000);
    }
    return st;
}

static void test_full_disk(void) {
    char *dir = test_tmpdir("dur-full");
    char *path = test_path_join(dir, "store");
    kv_fault_env *fe = kv_fault_env_new(kv_env_posix());
    REQUIRE(fe != NULL);
    kv_store_options o = KV_STORE_OPTIONS_INIT;
    kv_local_options lo = KV_LOCAL_OPTIONS_INIT;
    lo.env = kv_fault_env_env(fe);
    lo.write_buffer_size = 64 << 10;
    o.local = &lo;
    kv_store *s = open_store(path, &o);
    make_table(s, "t", "f", NULL);
    for (int i = 0; i < 500; i++) CHECK_EQ(put_row(s, "t", "a", i, 0), KV_OK);

    /* Full disk: a budget smaller than the data to come. */
    kv_fault_env_set_space(fe, 100000);
    kv_status failure;
    int acked = write_until_full(s, "b", 20000, &failure);
    CHECK(acked < 20000);
    CHECK(failure == KV_NO_SPACE || failure == KV_IO);
    if (failure != KV_OK) CHECK(kv_store_errmsg(s)[0] != 0);
    /* More attempts fail cleanly, reads still work. */
    for (int i = 0; i < 20; i++) {
        kv_status st = put_row(s, "t", "c", i, 0);
        CHECK(st == KV_OK || st == KV_NO_SPACE || st == KV_IO);
    }
    check_rows(s, "t", "a", 0, 500);
    check_rows(s, "t", "b", 0, acked);

    /* Space freed: writes work again. */
    kv_fault_env_set_space(fe, -1);
    kv_status st = put_row_retry(s, "d", 0);
    if (st != KV_OK) fprintf(stderr, "  write after freeing space: %s %s\n", kv_strerror(st), kv_store_errmsg(s));
    CHECK_EQ(st, KV_OK);
    for (int i = 1; i < 300; i++) CHECK_EQ(put_row(s, "t", "d", i, 0), KV_OK);
    check_rows(s, "t", "b", 0, acked);
    CHECK_EQ(kv_store_close(s), KV_OK);
    kv_fault_env_free(fe);

    kv_store_options po = KV_STORE_OPTIONS_INIT;
    s = open_store(path, &po);
    check_rows(s, "t", "a", 0, 500);
    check_rows(s, "t", "b", 0, acked);
    check_rows(s, "t", "d", 0, 300);
    CHECK_EQ(kv_store_close(s), KV_OK);
    test_rmtree(dir);
    free(path);
    free(dir);
}

/* The same, but the process dies after space was freed: the log written
   around the failure must still replay every acknowledged write. */
static void test_full_disk_then_crash(void) {
    char *dir = test_tmpdir("dur-fullcrash");
    char *path = test_path_join(dir, "store");
    int fds[2];
    REQUIRE(pipe(fds) == 0);
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        kv_fault_env *fe = kv_fault_env_new(kv_env_posix());
        kv_store_options o = KV_STORE_OPTIONS_INIT;
        kv_local_options lo = KV_LOCAL_OPTIONS_INIT;
        lo.env = kv_fault_env_env(fe);
        o.local = &lo;
        o.create_if_missing = true;
        kv_store *s = NULL;
        if (kv_store_open(&s, path, &o, NULL, 0) != KV_OK) _exit(3);
        kv_family_desc f = KV_FAMILY_DESC_INIT;
        snprintf(f.name, sizeof f.name, "f");
        if (kv_table_create(s, "t", &f, 1) != KV_OK) _exit(4);
        int counts[3] = {0, 0, 0};
        for (int i = 0; i < 200; i++)
            if (put_row(s, "t", "a", i, 0) == KV_OK) counts[0] = i + 1;
        kv_fault_env_set_space(fe, 30000);
        kv_status failure;
        counts[1] = write_until_full(s, "b", 20000, &failure);
        kv_fault_env_set_space(fe, -1);
        for (int i = 0; i < 200; i++) {
            if (put_row_retry(s, "d", i) != KV_OK) break;
            counts[2] = i + 1;
        }
        if (write(fds[1], counts, sizeof counts) != (ssize_t)sizeof counts) _exit(5);
        raise(SIGKILL);
        _exit(0);
    }
    close(fds[1]);
    int counts[3] = {-1, -1, -1};
    ssize_t r = read(fds[0], counts, sizeof counts);
    close(fds[0]);
    int status;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    CHECK(WIFSIGNALED(status));
    CHECK_EQ(r, (ssize_t)sizeof counts);
    CHECK_EQ(counts[0], 200);
    CHECK(counts[1] >= 0 && counts[1] < 20000);
    CHECK_EQ(counts[2], 200);
    kv_store *s = open_store(path, NULL);
    check_rows(s, "t", "a", 0, counts[0]);
    check_rows(s, "t", "b", 0, counts[1]);
    check_rows(s, "t", "d", 0, counts[2]);
    CHECK_EQ(kv_store_close(s), KV_OK);
    test_rmtree(dir);
    free(path);
    free(dir);
}

static void test_flush_failure(const char *op) {
    char *dir = test_tmpdir("dur-flushfail");
    char *path = test_path_join(dir, "store");
    kv_fault_env *fe = kv_fault_env_new(kv_env_posix());
    REQUIRE(fe != NULL);
    kv_store_options o = KV_STORE_OPTIONS_INIT;
    kv_local_options lo = KV_LOCAL_OPTIONS_INIT;
    lo.env = kv_fault_env_env(fe);
    o.local = &lo;
    kv_store *s = open_store(path, &o);
    make_table(s, "t", "f", NULL);
    for (int i = 0; i < 1000; i++) CHECK_EQ(put_row(s, "t", "a", i, 0), KV_OK);
    kv_fault_env_fail_nth(fe, op, 1);
    kv_status st = kv_flush(s, NULL);
    if (st == KV_OK)
        fprintf(stderr, "  kv_flush with a failing %s returned KV_OK (errmsg '%s')\n", op, kv_store_errmsg(s));
    CHECK(st == KV_IO);
    CHECK(kv_store_errmsg(s)[0] != 0);
    kv_fault_env_fail_nth(fe, op, 0);
    /* Reads are unaffected, and writes work again (possibly after the
       background retry). */
    check_rows(s, "t", "a", 0, 1000);
    CHECK_EQ(put_row_retry(s, "b", 0), KV_OK);
    for (int i = 1; i < 100; i++) {
        kv_status ps = put_row(s, "t", "b", i, 0);
        if (ps != KV_OK && i < 3) fprintf(stderr, "  put after a failed %s: %s\n", op, kv_store_errmsg(s));
        CHECK_EQ(ps, KV_OK);
    }
    CHECK_EQ(kv_flush(s, NULL), KV_OK);
    for (int i = 100; i < 200; i++) CHECK_EQ(put_row(s, "t", "b", i, 0), KV_OK);
    CHECK_EQ(kv_store_close(s), KV_OK);
    kv_fault_env_free(fe);
    s = open_store(path, NULL);
    check_rows(s, "t", "a", 0, 1000);
    check_rows(s, "t", "b", 0, 200);
    CHECK_EQ(kv_store_close(s), KV_OK);
    test_rmtree(dir);
    free(path);
    free(dir);
}

/* Power loss: the child writes with FSYNC_WAL (some after a flush), drops
   everything unsynced, and dies. */
static void test_power_loss(bool with_flush) {
    char *dir = test_tmpdir("dur-power");
    char *path = test_path_join(dir, "store");
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        kv_fault_env *fe = kv_fault_env_new(kv_env_posix());
        kv_store_options o = KV_STORE_OPTIONS_INIT;
        kv_local_options lo = KV_LOCAL_OPTIONS_INIT;
        lo.env = kv_fault_env_env(fe);
        o.local = &lo;
        o.create_if_missing = true;
        kv_store *s = NULL;
        if (kv_store_open(&s, path, &o, NULL, 0) != KV_OK) _exit(3);
        kv_family_desc f = KV_FAMILY_DESC_INIT;
        snprintf(f.name, sizeof f.name, "f");
        if (kv_table_create(s, "t", &f, 1) != KV_OK) _exit(4);
        for (int i = 0; i < 300; i++)
            if (put_row(s, "t", "a", i, KV_FSYNC_WAL) != KV_OK) _exit(5);
        if (with_flush && kv_flush(s, NULL) != KV_OK) _exit(6);
        for (int i = 0; i < 300; i++)
            if (put_row(s, "t", "b", i, KV_FSYNC_WAL) != KV_OK) _exit(7);
        /* Unsynced writes after the last sync may vanish. */
        for (int i = 0; i < 50; i++)
            if (put_row(s, "t", "c", i, KV_SYNC_WAL) != KV_OK) _exit(8);
        if (kv_fault_env_drop_unsynced(fe) != KV_OK) _exit(9);
        raise(SIGKILL);
        _exit(0);
    }
    int status;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    if (!WIFSIGNALED(status)) fprintf(stderr, "  child exit %d\n", WEXITSTATUS(status));
    CHECK(WIFSIGNALED(status));
    kv_store *s = open_store(path, NULL);
    check_rows(s, "t", "a", 0, 300);
    check_rows(s, "t", "b", 0, 300);
    CHECK_EQ(put_row(s, "t", "e", 0, 0), KV_OK);
    CHECK_EQ(kv_store_close(s), KV_OK);
    s = open_store(path, NULL);
    check_rows(s, "t", "e", 0, 1);
    CHECK_EQ(kv_store_close(s), KV_OK);
    test_rmtree(dir);
    free(path);
    free(dir);
}

/* ---- 5. corruption ---- */

static int flip_byte(const char *file, double where) {
    int fd = open(file, O_RDWR);
    if (fd < 0) return -1;
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size < 16) {
        close(fd);
        return -1;
    }
    off_t off = (off_t)((double)st.st_size * where);
    unsigned char b;
    if (pread(fd, &b, 1, off) != 1) {
        close(fd);
        return -1;
    }
    b ^= 0x5a;
    int rc = pwrite(fd, &b, 1, off) == 1 ? 0 : -1;
    close(fd);
    return rc;
}

/* The largest file of dir with the given suffix (name copied into out). */
static bool largest_file(const char *dir, const char *suffix, char *out, size_t outlen) {
    DIR *d = opendir(dir);
    if (!d) return false;
    struct dirent *e;
    off_t best = -1;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name), sl = strlen(suffix);
        if (n < sl || strcmp(e->d_name + n - sl, suffix) != 0) continue;
        char *p = test_path_join(dir, e->d_name);
        struct stat st;
        if (stat(p, &st) == 0 && st.st_size > best) {
            best = st.st_size;
            snprintf(out, outlen, "%s", e->d_name);
        }
        free(p);
    }
    closedir(d);
    return best >= 0;
}

static void test_corrupt_sst(kv_compression comp) {
    char *dir = test_tmpdir("dur-corrupt");
    char *path = test_path_join(dir, "store");
    kv_store *s = open_store(path, NULL);
    kv_family_desc f = KV_FAMILY_DESC_INIT;
    snprintf(f.name, sizeof f.name, "f");
    f.compression = comp;
    f.blocksize = 4096;
    CHECK_EQ(kv_table_create(s, "t", &f, 1), KV_OK);
    for (int i = 0; i < 3000; i++) CHECK_EQ(put_row(s, "t", "a", i, 0), KV_OK);
    CHECK_EQ(kv_flush(s, NULL), KV_OK);
    CHECK_EQ(kv_store_close(s), KV_OK);
    char name[256];
    REQUIRE(largest_file(path, ".sst", name, sizeof name));
    char *file = test_path_join(path, name);
    REQUIRE(flip_byte(file, 0.3) == 0);
    free(file);

    kv_store_options o = KV_STORE_OPTIONS_INIT;
    o.create_if_missing = false;
    char err[512] = "";
    kv_status st = kv_store_open(&s, path, &o, err, sizeof err);
    if (st != KV_OK) {
        CHECK_EQ(st, KV_CORRUPT);
        CHECK(strstr(err, name) != NULL);
    } else {
        int corrupt = 0, wrong = 0, named = 0;
        for (int i = 0; i < 3000; i++) {
            char row[64], v[64], got[64];
            snprintf(row, sizeof row, "a%06d", i);
            snprintf(v, sizeof v, "value-a-%d-padding-padding-padding", i);
            kv_status g = get_cell(s, "t", row, "f", "q", got, sizeof got, NULL);
            if (g == KV_CORRUPT) {
                corrupt++;
                named += strstr(kv_store_errmsg(s), name) != NULL;
            } else if (g != KV_OK || strcmp(got, v) != 0) {
                wrong++;
            }
        }
        CHECK(corrupt > 0);
        CHECK_EQ(named, corrupt);
        CHECK_EQ(wrong, 0);
        /* A scan returns correct rows and then KV_CORRUPT, never garbage and
           never a silent end. */
        for (int rev = 0; rev < 2; rev++) {
            kv_read_options ro = KV_READ_OPTIONS_INIT;
            ro.reversed = rev;
            kv_scan *sc;
            REQUIRE(kv_scan_open(&sc, s, "t", &ro) == KV_OK);
            const kv_result *r;
            int rows = 0, bad = 0;
            kv_status ss;
            while ((ss = kv_scan_next(&r, sc)) == KV_OK) {
                int i = rev ? 2999 - rows : rows;
                char row[64], v[64];
                snprintf(row, sizeof row, "a%06d", i);
                snprintf(v, sizeof v, "value-a-%d-padding-padding-padding", i);
                if (r->row_len != strlen(row) || memcmp(r->row, row, r->row_len) != 0 ||
                    r->ncells != 1 || r->cells[0].value_len != strlen(v) ||
                    memcmp(r->cells[0].value, v, strlen(v)) != 0)
                    bad++;
                rows++;
            }
            if (ss != KV_CORRUPT)
                fprintf(stderr, "  %s scan over a corrupt file ended with %s after %d rows\n",
                        rev ? "reversed" : "forward", kv_strerror(ss), rows);
            CHECK_EQ(ss, KV_CORRUPT);
            CHECK(strstr(kv_store_errmsg(s), name) != NULL);
            CHECK_EQ(bad, 0);
            /* The failure sticks: a caller that asks again is never told
               that the table simply ended. */
            CHECK_EQ(kv_scan_next(&r, sc), KV_CORRUPT);
            CHECK_EQ(kv_scan_next(&r, sc), KV_CORRUPT);
            CHECK(r == NULL);
            kv_scan_close(sc);
        }
        CHECK_EQ(kv_store_close(s), KV_OK);
    }
    test_rmtree(dir);
    free(path);
    free(dir);
}

static void test_corrupt_manifest(void) {
    char *dir = test_tmpdir("dur-manifest");
    char *path = test_path_join(dir, "store");
    kv_store *s = open_store(path, NULL);
    make_table(s, "t", "f", NULL);
    CHECK_EQ(put_row(s, "t", "a", 1, 0), KV_OK);
    CHECK_EQ(kv_store_close(s), KV_OK);
    char *mf = test_path_join(path, "MANIFEST");
    REQUIRE(flip_byte(mf, 0.5) == 0);
    kv_store_options o = KV_STORE_OPTIONS_INIT;
    char err[512] = "";
    s = NULL;
    CHECK_EQ(kv_store_open(&s, path, &o, err, sizeof err), KV_CORRUPT);
    CHECK(s == NULL);
    CHECK(strstr(err, "MANIFEST") != NULL);
    /* Truncated manifest. */
    REQUIRE(flip_byte(mf, 0.5) == 0);
    REQUIRE(truncate(mf, 30) == 0);
    err[0] = 0;
    CHECK_EQ(kv_store_open(&s, path, &o, err, sizeof err), KV_CORRUPT);
    CHECK(err[0] != 0);
    /* Empty manifest. */
    REQUIRE(truncate(mf, 0) == 0);
    err[0] = 0;
    CHECK_EQ(kv_store_open(&s, path, &o, err, sizeof err), KV_CORRUPT);
    CHECK(err[0] != 0);
    free(mf);
    test_rmtree(dir);
    free(path);
    free(dir);
}

int main(void) {
    signal(SIGPIPE, SIG_IGN);
    test_reopen_after_close();
    test_second_opener();
    test_killed_without_close();
    test_full_disk();
    test_full_disk_then_crash();
    test_flush_failure("append"); /* a flush appends a manifest edit: it renames nothing */
    test_flush_failure("sync");
    test_power_loss(false);
    test_power_loss(true);
    test_corrupt_sst(KV_COMPRESSION_NONE);
    test_corrupt_sst(KV_COMPRESSION_LZ4);
    test_corrupt_manifest();
    return test_finish("test_durability");
}
