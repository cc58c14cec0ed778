/**
 * @file test_recovery.c
 * Recovery at open through the public header: what a crashed writer left
 * in its logs comes back with the same meaning as before the crash.
 */
#include "kvcore.h"
#include "util/env.h"
#include "testutil.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

static char *path_join(const char *dir, const char *name) {
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    REQUIRE(p != NULL);
    snprintf(p, n, "%s/%s", dir, name);
    return p;
}

/* A clock that stands still: every implicit timestamp is the same. */
static int64_t frozen_clock(void *ctx) {
    (void)ctx;
    return 1700000000000;
}

static kv_store *open_frozen(const char *path) {
    kv_store_options o = KV_STORE_OPTIONS_INIT;
    o.create_if_missing = true;
    o.clock_ms = frozen_clock;
    kv_store *s = NULL;
    char err[512];
    kv_status st = kv_store_open(&s, path, &o, err, sizeof err);
    if (st != KV_OK) fprintf(stderr, "open %s: %s: %s\n", path, kv_strerror(st), err);
    REQUIRE(st == KV_OK);
    return s;
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
    char *path = path_join(dir, "store");
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

int main(void) {
    signal(SIGPIPE, SIG_IGN);
    test_put_after_replayed_delete();
    return test_finish("test_recovery");
}
