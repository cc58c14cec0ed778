/**
 * @file test_recovery.c
 * Recovery at open through the public header: what a crashed writer left
 * in its logs comes back with the same meaning as before the crash.
 */
#include "kvcore.h"
#include "util/coding.h"
#include "util/env.h"
#include "table/block.h"
#include "teststore.h"

#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

/* A clock that stands still: every implicit timestamp is the same. */
static int64_t frozen_clock(void *ctx) {
    (void)ctx;
    return 1700000000000;
}

static kv_store *open_frozen(const char *path) {
    kv_store_options o = KV_STORE_OPTIONS_INIT;
    o.create_if_missing = true;
    o.clock_ms = frozen_clock;
    return test_open_with(path, &o);
}

static size_t cells_of(kv_store *s, const char *row) {
    kv_result *r = NULL;
    kv_read_options ro = KV_READ_OPTIONS_INIT;
    REQUIRE(kv_get(&r, s, "t", row, strlen(row), &ro) == KV_OK);
    size_t n = r->ncells;
    kv_result_free(r);
    return n;
}

static kv_status put_latest(kv_store *s, const char *row, const char *value) {
    kv_write_options wo = KV_WRITE_OPTIONS_INIT;
    wo.durability = KV_FSYNC_WAL;
    return kv_put(s, "t", row, strlen(row), "f", "q", 1, KV_LATEST_TIMESTAMP, value, strlen(value), &wo);
}

static kv_status delete_latest(kv_store *s, const char *row) {
    kv_mutation *m = NULL;
    REQUIRE(kv_mutation_new(&m, row, strlen(row)) == KV_OK);
    REQUIRE(kv_mutation_delete_column(m, "f", "q", 1, KV_LATEST_TIMESTAMP) == KV_OK);
    kv_write_options wo = KV_WRITE_OPTIONS_INIT;
    wo.durability = KV_FSYNC_WAL;
    kv_status st = kv_mutate(s, "t", m, &wo);
    kv_mutation_free(m);
    return st;
}

/* Defect 4: put, delete, crash (the delete only in the log), reopen, put
   again: the new put is newer than the delete, as it is without a crash. */
static void test_put_after_replayed_delete(void) {
    char *dir = test_tmpdir("recovery-clock");
    char *path = test_path_join(dir, "store");
    kv_store *s = open_frozen(path);
    kv_family_desc f = KV_FAMILY_DESC_INIT;
    snprintf(f.name, sizeof f.name, "f");
    REQUIRE(kv_table_create(s, "t", &f, 1) == KV_OK);
    /* Without a crash: the put after the delete is visible. */
    CHECK_EQ(put_latest(s, "live", "v1"), KV_OK);
    CHECK_EQ(delete_latest(s, "live"), KV_OK);
    CHECK_EQ(put_latest(s, "live", "v2"), KV_OK);
    CHECK_EQ(cells_of(s, "live"), 1);
    CHECK_EQ(kv_store_close(s), KV_OK);

    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        kv_store *c = open_frozen(path);
        if (put_latest(c, "row", "v1") != KV_OK || delete_latest(c, "row") != KV_OK) _exit(2);
        _exit(0); /* a crash: no close, the delete is only in the log */
    }
    int status;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    REQUIRE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    s = open_frozen(path);
    CHECK_EQ(cells_of(s, "row"), 0);
    CHECK_EQ(put_latest(s, "row", "v2"), KV_OK);
    CHECK_EQ(cells_of(s, "row"), 1);
    CHECK_EQ(kv_store_close(s), KV_OK);
    test_rmtree(dir);
    free(path);
    free(dir);
}

/* ---- damaged logs (defect 7) ---- */

static void log_to_buf(void *ctx, int level, const char *msg) {
    (void)level;
    char *buf = ctx;
    size_t n = strlen(buf);
    snprintf(buf + n, 8192 - n, "%s\n", msg);
}

/* A child writes rows r00..r19 (each synced) and dies without closing. */
static void crash_after_writes(const char *path) {
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        kv_store *c = open_frozen(path);
        kv_family_desc f = KV_FAMILY_DESC_INIT;
        snprintf(f.name, sizeof f.name, "f");
        if (kv_table_create(c, "t", &f, 1) != KV_OK) _exit(2);
        for (int i = 0; i < 20; i++) {
            char row[8];
            snprintf(row, sizeof row, "r%02d", i);
            if (put_latest(c, row, "value-value-value") != KV_OK) _exit(3);
        }
        _exit(0);
    }
    int status;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    REQUIRE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* The store's one log file (the crashed writer's). */
static char *the_log(const char *store) {
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "ls -S '%s'/*.log 2>/dev/null | head -1", store);
    FILE *p = popen(cmd, "r");
    REQUIRE(p != NULL);
    char line[1024] = "";
    char *got = fgets(line, sizeof line, p);
    pclose(p);
    REQUIRE(got != NULL);
    line[strcspn(line, "\n")] = 0;
    return strdup(line);
}

static long size_of(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fclose(f);
    return n;
}

static void test_torn_log_tail(void) {
    char *dir = test_tmpdir("recovery-torn");
    char *path = test_path_join(dir, "store");
    crash_after_writes(path);
    char *log = the_log(path);
    long size = size_of(log);
    REQUIRE(size > 100);
    REQUIRE(truncate(log, size - 3) == 0); /* the last record is torn */
    kv_store_options o = KV_STORE_OPTIONS_INIT;
    char logbuf[8192] = "";
    o.log = log_to_buf;
    o.log_ctx = logbuf;
    kv_store *s = NULL;
    char err[512] = "";
    REQUIRE(kv_store_open(&s, path, &o, err, sizeof err) == KV_OK);
    size_t rows = 0;
    for (int i = 0; i < 20; i++) {
        char row[8];
        snprintf(row, sizeof row, "r%02d", i);
        rows += cells_of(s, row);
    }
    CHECK_EQ(rows, 19);
    CHECK_EQ(kv_store_close(s), KV_OK);
    /* Reported, naming the log, and the log kept aside. */
    if (!strstr(logbuf, log)) fprintf(stderr, "log lines: %s\n", logbuf);
    CHECK(strstr(logbuf, log) != NULL);
    CHECK(strstr(logbuf, "dropped") != NULL);
    char aside[1100];
    snprintf(aside, sizeof aside, "%s.damaged", log);
    CHECK_EQ(size_of(aside), size - 3);
    CHECK_EQ(size_of(log), -1); /* flushed and removed */
    /* The next open has nothing to report, and the copy stays. */
    logbuf[0] = 0;
    REQUIRE(kv_store_open(&s, path, &o, err, sizeof err) == KV_OK);
    CHECK_EQ(kv_store_close(s), KV_OK);
    CHECK(strstr(logbuf, "dropped") == NULL);
    CHECK_EQ(size_of(aside), size - 3);
    free(log);
    test_rmtree(dir);
    free(path);
    free(dir);
}

static void test_damaged_log_middle(void) {
    char *dir = test_tmpdir("recovery-middle");
    char *path = test_path_join(dir, "store");
    crash_after_writes(path);
    char *log = the_log(path);
    long size = size_of(log);
    FILE *f = fopen(log, "r+b");
    REQUIRE(f != NULL);
    REQUIRE(fseek(f, size / 2, SEEK_SET) == 0);
    int c = fgetc(f);
    REQUIRE(fseek(f, size / 2, SEEK_SET) == 0);
    fputc(c ^ 0x5a, f);
    fclose(f);
    kv_store_options o = KV_STORE_OPTIONS_INIT;
    kv_store *s = NULL;
    char err[512] = "";
    CHECK_EQ(kv_store_open(&s, path, &o, err, sizeof err), KV_CORRUPT);
    CHECK(strstr(err, log) != NULL);
    CHECK(strstr(err, "offset") != NULL);
    CHECK_EQ(size_of(log), size); /* the evidence is not touched */
    free(log);
    test_rmtree(dir);
    free(path);
    free(dir);
}

/* ---- a damaged sorted file takes down only what it holds (defect 6) ---- */

static kv_status get_row(kv_store *s, const char *table, const char *row, size_t *ncells) {
    kv_result *r = NULL;
    kv_read_options ro = KV_READ_OPTIONS_INIT;
    kv_status st = kv_get(&r, s, table, row, strlen(row), &ro);
    *ncells = r ? r->ncells : 0;
    kv_result_free(r);
    return st;
}

/* The sorted files of the store, by name. */
static int list_ssts(const char *store, char names[][64], int max) {
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cd '%s' && ls *.sst 2>/dev/null", store);
    FILE *p = popen(cmd, "r");
    REQUIRE(p != NULL);
    int n = 0;
    while (n < max && fgets(names[n], 64, p)) {
        names[n][strcspn(names[n], "\n")] = 0;
        n++;
    }
    pclose(p);
    return n;
}

static void damaged_file_case(bool missing, bool read_only) {
    char *dir = test_tmpdir("recovery-badsst");
    char *path = test_path_join(dir, "store");
    kv_store_options o = KV_STORE_OPTIONS_INIT;
    o.create_if_missing = true;
    kv_local_options lo = KV_LOCAL_OPTIONS_INIT;
    lo.compaction = KV_COMPACTION_MANUAL;
    o.local = &lo;
    kv_store *s = NULL;
    REQUIRE(kv_store_open(&s, path, &o, NULL, 0) == KV_OK);
    kv_family_desc f = KV_FAMILY_DESC_INIT;
    snprintf(f.name, sizeof f.name, "f");
    REQUIRE(kv_table_create(s, "bad", &f, 1) == KV_OK);
    for (int i = 0; i < 50; i++) {
        char row[16];
        snprintf(row, sizeof row, "m%03d", i);
        REQUIRE(kv_put(s, "bad", row, strlen(row), "f", "q", 1, 1, "v", 1, NULL) == KV_OK);
    }
    REQUIRE(kv_flush(s, NULL) == KV_OK); /* the one file, rows m000..m049 */
    char before[8][64];
    REQUIRE(list_ssts(path, before, 8) == 1);
    REQUIRE(kv_table_create(s, "good", &f, 1) == KV_OK);
    REQUIRE(kv_put(s, "good", "g", 1, "f", "q", 1, 1, "v", 1, NULL) == KV_OK);
    REQUIRE(kv_put(s, "bad", "z", 1, "f", "q", 1, 1, "v", 1, NULL) == KV_OK);
    REQUIRE(kv_flush(s, NULL) == KV_OK);
    REQUIRE(kv_store_close(s) == KV_OK);
    char *victim = test_path_join(path, before[0]);
    if (missing) REQUIRE(unlink(victim) == 0);
    else REQUIRE(truncate(victim, size_of(victim) / 2) == 0);

    o.read_only = read_only;
    o.create_if_missing = false;
    char err[512] = "";
    s = NULL;
    kv_status st = kv_store_open(&s, path, &o, err, sizeof err);
    if (st != KV_OK) fprintf(stderr, "open with a %s file: %s\n", missing ? "missing" : "damaged", err);
    REQUIRE(st == KV_OK);
    size_t n = 0;
    /* The other table, and rows of the table the file does not hold. */
    CHECK_EQ(get_row(s, "good", "g", &n), KV_OK);
    CHECK_EQ(n, 1);
    CHECK_EQ(get_row(s, "bad", "z", &n), KV_OK);
    CHECK_EQ(n, 1);
    CHECK_EQ(get_row(s, "bad", "a", &n), KV_OK);
    CHECK_EQ(n, 0);
    /* A row the file holds fails, naming the file. */
    CHECK_EQ(get_row(s, "bad", "m007", &n), KV_CORRUPT);
    CHECK(strstr(kv_store_errmsg(s), before[0]) != NULL);
    /* A scan of the table fails too, never a shorter table. */
    kv_scan *sc = NULL;
    kv_read_options ro = KV_READ_OPTIONS_INIT;
    const kv_result *r;
    REQUIRE(kv_scan_open(&sc, s, "bad", &ro) == KV_OK);
    while ((st = kv_scan_next(&r, sc)) == KV_OK) {}
    CHECK_EQ(st, KV_CORRUPT);
    kv_scan_close(sc);
    /* A scan that starts past the file's rows does not need it. */
    ro.start_row = "n";
    ro.start_row_len = 1;
    REQUIRE(kv_scan_open(&sc, s, "bad", &ro) == KV_OK);
    size_t rows = 0;
    while ((st = kv_scan_next(&r, sc)) == KV_OK) rows++;
    if (st != KV_END) fprintf(stderr, "scan from 'n': %s: %s\n", kv_strerror(st), kv_store_errmsg(s));
    CHECK_EQ(st, KV_END);
    CHECK_EQ(rows, 1); /* z */
    kv_scan_close(sc);
    /* Nor does one that stops before them. */
    kv_read_options upto = KV_READ_OPTIONS_INIT;
    upto.stop_row = "m";
    upto.stop_row_len = 1;
    REQUIRE(kv_scan_open(&sc, s, "bad", &upto) == KV_OK);
    rows = 0;
    while ((st = kv_scan_next(&r, sc)) == KV_OK) rows++;
    if (st != KV_END) fprintf(stderr, "scan up to 'm': %s: %s\n", kv_strerror(st), kv_store_errmsg(s));
    CHECK_EQ(st, KV_END);
    CHECK_EQ(rows, 0);
    kv_scan_close(sc);
    /* One that stops inside them needs the file. */
    upto.stop_row = "m005";
    upto.stop_row_len = 4;
    REQUIRE(kv_scan_open(&sc, s, "bad", &upto) == KV_OK);
    while ((st = kv_scan_next(&r, sc)) == KV_OK) {}
    CHECK_EQ(st, KV_CORRUPT);
    kv_scan_close(sc);
    /* A reversed scan from before the file's rows does not either. */
    kv_read_options rev = KV_READ_OPTIONS_INIT;
    rev.reversed = true;
    rev.start_row = "b";
    rev.start_row_len = 1;
    REQUIRE(kv_scan_open(&sc, s, "bad", &rev) == KV_OK);
    rows = 0;
    while ((st = kv_scan_next(&r, sc)) == KV_OK) rows++;
    if (st != KV_END) fprintf(stderr, "reversed scan from 'b': %s: %s\n", kv_strerror(st), kv_store_errmsg(s));
    CHECK_EQ(st, KV_END);
    CHECK_EQ(rows, 0);
    kv_scan_close(sc);
    if (!read_only) {
        /* Writes work, and survive a reopen. */
        CHECK_EQ(kv_put(s, "bad", "y", 1, "f", "q", 1, 1, "v", 1, NULL), KV_OK);
        CHECK_EQ(kv_put(s, "good", "h", 1, "f", "q", 1, 1, "v", 1, NULL), KV_OK);
        CHECK_EQ(kv_flush(s, NULL), KV_OK);
    }
    CHECK_EQ(kv_store_close(s), KV_OK);
    if (!read_only) {
        REQUIRE(kv_store_open(&s, path, &o, err, sizeof err) == KV_OK);
        CHECK_EQ(get_row(s, "bad", "y", &n), KV_OK);
        CHECK_EQ(n, 1);
        CHECK_EQ(get_row(s, "good", "h", &n), KV_OK);
        CHECK_EQ(n, 1);
        CHECK_EQ(get_row(s, "bad", "m007", &n), KV_CORRUPT);
        CHECK_EQ(kv_store_close(s), KV_OK);
        /* The damaged file is still there (evidence; never an orphan). */
        if (!missing) CHECK(size_of(victim) > 0);
    }
    free(victim);
    test_rmtree(dir);
    free(path);
    free(dir);
}

/* ---- a compressed block that lies about its size (defect 8) ---- */

/* Finds the first framed LZ4 block at offset 0 of a sorted file (its size
   is where its checksum matches), sets its declared raw length to nearly
   4 GB and fixes the checksum, as a hostile file would. */
static bool forge_block(const char *file) {
    long size = size_of(file);
    FILE *f = fopen(file, "r+b");
    if (!f || size <= 0) return false;
    uint8_t *d = malloc((size_t)size);
    bool ok = d && fread(d, 1, (size_t)size, f) == (size_t)size && d[0] == KV_BLOCK_TYPE_LZ4;
    size_t blk = 0;
    for (size_t n = 9; ok && n <= (size_t)size && !blk; n++) {
        uint32_t want = (uint32_t)d[n - 4] | (uint32_t)d[n - 3] << 8 | (uint32_t)d[n - 2] << 16 |
                        (uint32_t)d[n - 1] << 24;
        if (kv_checksum(d, n - 4) == want) blk = n;
    }
    ok = ok && blk;
    if (ok) {
        d[1] = 0x00; d[2] = 0xff; d[3] = 0xff; d[4] = 0xff; /* 4294967040 bytes */
        uint32_t sum = kv_checksum(d, blk - 4);
        for (int i = 0; i < 4; i++) d[blk - 4 + (size_t)i] = (uint8_t)(sum >> (8 * i));
        ok = fseek(f, 0, SEEK_SET) == 0 && fwrite(d, 1, blk, f) == blk;
    }
    free(d);
    fclose(f);
    return ok;
}

static void test_lying_compressed_block(void) {
    char *dir = test_tmpdir("recovery-lz4");
    char *path = test_path_join(dir, "store");
    kv_store_options o = KV_STORE_OPTIONS_INIT;
    o.create_if_missing = true;
    kv_store *s = NULL;
    REQUIRE(kv_store_open(&s, path, &o, NULL, 0) == KV_OK);
    kv_family_desc f = KV_FAMILY_DESC_INIT;
    snprintf(f.name, sizeof f.name, "f");
    f.compression = KV_COMPRESSION_LZ4;
    REQUIRE(kv_table_create(s, "t", &f, 1) == KV_OK);
    char value[200];
    memset(value, 'x', sizeof value);
    for (int i = 0; i < 20; i++) {
        char row[16];
        snprintf(row, sizeof row, "r%03d", i);
        REQUIRE(kv_put(s, "t", row, strlen(row), "f", "q", 1, 1, value, sizeof value, NULL) == KV_OK);
    }
    REQUIRE(kv_flush(s, NULL) == KV_OK);
    REQUIRE(kv_store_close(s) == KV_OK);
    char names[4][64];
    REQUIRE(list_ssts(path, names, 4) == 1);
    char *file = test_path_join(path, names[0]);
    REQUIRE(forge_block(file));
    /* In a child with 1 GiB of address space: allocating the declared size
       would fail with KV_NO_MEMORY; checked first, it is KV_CORRUPT. */
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
#ifndef __SANITIZE_ADDRESS__ /* ASan's shadow memory needs more address space */
        struct rlimit rl = {1u << 30, 1u << 30};
        setrlimit(RLIMIT_AS, &rl);
#endif
        kv_store *c = NULL;
        kv_store_options co = KV_STORE_OPTIONS_INIT;
        co.read_only = true;
        if (kv_store_open(&c, path, &co, NULL, 0) != KV_OK) _exit(2);
        size_t n;
        kv_status st = get_row(c, "t", "r005", &n);
        if (st != KV_CORRUPT) fprintf(stderr, "get over a lying block: %s: %s\n", kv_strerror(st), kv_store_errmsg(c));
        bool named = strstr(kv_store_errmsg(c), names[0]) != NULL;
        kv_store_close(c);
        _exit(st == KV_CORRUPT && named ? 0 : 3);
    }
    int status;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    free(file);
    test_rmtree(dir);
    free(path);
    free(dir);
}

/* ---- compaction failures say why (defect 9) ---- */

typedef struct locked_log {
    pthread_mutex_t mu;
    char text[8192];
} locked_log;

static void log_locked(void *ctx, int level, const char *msg) {
    (void)level;
    locked_log *l = ctx;
    pthread_mutex_lock(&l->mu);
    size_t n = strlen(l->text);
    snprintf(l->text + n, sizeof l->text - n, "%s\n", msg);
    pthread_mutex_unlock(&l->mu);
}

static void put_rows(kv_store *s, int from) {
    for (int i = from; i < from + 30; i++) {
        char row[16];
        snprintf(row, sizeof row, "c%03d", i);
        REQUIRE(kv_put(s, "t", row, strlen(row), "f", "q", 1, 1, "value", 5, NULL) == KV_OK);
    }
}

static void test_compaction_failure_reason(void) {
    char *dir = test_tmpdir("recovery-compact");
    char *path = test_path_join(dir, "store");
    kv_store_options o = KV_STORE_OPTIONS_INIT;
    o.create_if_missing = true;
    kv_local_options lo = KV_LOCAL_OPTIONS_INIT;
    lo.compaction = KV_COMPACTION_MANUAL;
    o.local = &lo;
    kv_store *s = NULL;
    REQUIRE(kv_store_open(&s, path, &o, NULL, 0) == KV_OK);
    kv_family_desc f = KV_FAMILY_DESC_INIT;
    snprintf(f.name, sizeof f.name, "f");
    REQUIRE(kv_table_create(s, "t", &f, 1) == KV_OK);
    put_rows(s, 0);
    REQUIRE(kv_flush(s, NULL) == KV_OK);
    char names[4][64];
    REQUIRE(list_ssts(path, names, 4) == 1);
    put_rows(s, 30);
    REQUIRE(kv_flush(s, NULL) == KV_OK);
    REQUIRE(kv_store_close(s) == KV_OK);
    char *victim = test_path_join(path, names[0]);
    REQUIRE(truncate(victim, size_of(victim) / 2) == 0);

    /* A requested compaction fails naming the file. */
    o.create_if_missing = false;
    REQUIRE(kv_store_open(&s, path, &o, NULL, 0) == KV_OK);
    CHECK_EQ(kv_compact(s, "t", true), KV_CORRUPT);
    if (!strstr(kv_store_errmsg(s), names[0])) fprintf(stderr, "compact: '%s'\n", kv_store_errmsg(s));
    CHECK(strstr(kv_store_errmsg(s), names[0]) != NULL);
    REQUIRE(kv_store_close(s) == KV_OK);

    /* A background compaction logs the reason. */
    static locked_log log = {PTHREAD_MUTEX_INITIALIZER, ""};
    lo.compaction = KV_COMPACTION_AUTO;
    o.log = log_locked;
    o.log_ctx = &log;
    REQUIRE(kv_store_open(&s, path, &o, NULL, 0) == KV_OK);
    put_rows(s, 60);
    REQUIRE(kv_flush(s, NULL) == KV_OK); /* three files of one size: a minor compaction */
    bool seen = false;
    for (int i = 0; i < 400 && !seen; i++) { /* up to 20 s on a loaded machine */
        pthread_mutex_lock(&log.mu);
        const char *at = strstr(log.text, "compaction failed");
        seen = at && strstr(at, names[0]) != NULL;
        pthread_mutex_unlock(&log.mu);
        if (!seen) usleep(50 * 1000);
    }
    if (!seen) fprintf(stderr, "log: %s\n", log.text);
    CHECK(seen);
    REQUIRE(kv_store_close(s) == KV_OK);
    free(victim);
    test_rmtree(dir);
    free(path);
    free(dir);
}

int main(void) {
    signal(SIGPIPE, SIG_IGN);
    test_put_after_replayed_delete();
    test_torn_log_tail();
    test_damaged_log_middle();
    damaged_file_case(false, false);
    damaged_file_case(false, true);
    damaged_file_case(true, false);
    test_lying_compressed_block();
    test_compaction_failure_reason();
    return test_finish("test_recovery");
}
