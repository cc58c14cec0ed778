/**
 * @file test_flush_oom.c
 * Issue 11 defect 9: an out-of-memory during a flush must leave no family
 * swapped without a manifest. This program replaces malloc, calloc and
 * realloc (ELF interposition, glibc's __libc_* underneath) so that the Nth
 * allocation after arming fails; for N = 1, 2, ... it forks a child that
 * fills two families' memstores, arms the countdown, flushes, and checks:
 * the flush succeeds or returns KV_NO_MEMORY (never a crash, never
 * another status), every row still reads back, and after close and
 * reopen too. The sweep ends when a flush no longer reaches the Nth
 * allocation. Not under AddressSanitizer, which owns malloc there.
 */
#include "kvcore.h"
#include "testutil.h"

#include <signal.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef __SANITIZE_ADDRESS__

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

/* Test-only process state: the countdown to the failing allocation
   (0 = disarmed) and whether it was reached. */
static atomic_long alloc_countdown;
static atomic_bool alloc_failed;

static bool fail_this_one(void) {
    if (atomic_load_explicit(&alloc_countdown, memory_order_relaxed) <= 0) return false;
    if (atomic_fetch_sub(&alloc_countdown, 1) != 1) return false;
    atomic_store(&alloc_failed, true);
    return true;
}

void *malloc(size_t n) { return fail_this_one() ? NULL : __libc_malloc(n); }
void *calloc(size_t n, size_t size) { return fail_this_one() ? NULL : __libc_calloc(n, size); }
void *realloc(void *p, size_t n) { return fail_this_one() ? NULL : __libc_realloc(p, n); }

enum { ROWS = 300 };

static size_t rows_in(kv_store *s, kv_status *st) {
    kv_read_options ro = KV_READ_OPTIONS_INIT;
    kv_scan *sc = NULL;
    size_t n = 0;
    *st = kv_scan_open(&sc, s, "t", &ro);
    const kv_result *r;
    while (*st == KV_OK && (*st = kv_scan_next(&r, sc)) == KV_OK) n++;
    kv_scan_close(sc);
    return n;
}

/* The child's work; its exit status: 0 the flush succeeded without the
   failing allocation, 1 it failed with KV_NO_MEMORY or succeeded past it
   (both right), 10 and up what went wrong. */
static int flush_with_failure(const char *path, long nth) {
    kv_local_options lo = KV_LOCAL_OPTIONS_INIT;
    lo.compaction = KV_COMPACTION_MANUAL;
    kv_store_options o = KV_STORE_OPTIONS_INIT;
    o.create_if_missing = true;
    o.local = &lo;
    kv_store *s = NULL;
    char err[512];
    if (kv_store_open(&s, path, &o, err, sizeof err) != KV_OK) return 10;
    kv_family_desc f[2] = {KV_FAMILY_DESC_INIT, KV_FAMILY_DESC_INIT};
    snprintf(f[0].name, sizeof f[0].name, "f");
    snprintf(f[1].name, sizeof f[1].name, "g");
    if (kv_table_create(s, "t", f, 2) != KV_OK) return 11;
    char row[16], value[200];
    memset(value, 'v', sizeof value);
    for (int i = 0; i < ROWS; i++) {
        snprintf(row, sizeof row, "r%04d", i);
        if (kv_put(s, "t", row, strlen(row), i % 2 ? "f" : "g", "q", 1, KV_LATEST_TIMESTAMP, value,
                   sizeof value, NULL) != KV_OK)
            return 12;
    }
    atomic_store(&alloc_countdown, nth);
    kv_status fst = kv_flush(s, "t");
    atomic_store(&alloc_countdown, 0);
    bool reached = atomic_load(&alloc_failed);
    if (fst != KV_OK && fst != KV_NO_MEMORY) {
        fprintf(stderr, "allocation %ld failed: the flush said %s: %s\n", nth, kv_strerror(fst),
                kv_store_errmsg(s));
        return 13;
    }
    if (fst == KV_NO_MEMORY && !reached) return 14;
    kv_status st;
    size_t n = rows_in(s, &st);
    if (n != ROWS || st != KV_END) {
        fprintf(stderr, "allocation %ld failed (flush: %s): %zu rows read back, %s\n", nth,
                kv_strerror(fst), n, kv_strerror(st));
        return 15;
    }
    (void)kv_store_close(s);   /* may repeat the flush's failure */
    s = NULL;
    if (kv_store_open(&s, path, &o, err, sizeof err) != KV_OK) {
        fprintf(stderr, "allocation %ld failed: the store does not reopen: %s\n", nth, err);
        return 16;
    }
    n = rows_in(s, &st);
    if (n != ROWS || st != KV_END) {
        fprintf(stderr, "allocation %ld failed: after reopen %zu rows, %s\n", nth, n, kv_strerror(st));
        return 17;
    }
    if (kv_store_close(s) != KV_OK) return 18;
    return reached ? 1 : 0;
}

int main(void) {
    signal(SIGPIPE, SIG_IGN);
    const char *one = getenv("FLUSH_OOM_NTH");   /* one case in this process, for a debugger */
    if (one) {
        char *dir = test_tmpdir("flush-oom");
        char path[1100];
        snprintf(path, sizeof path, "%s/store", dir);
        int rc = flush_with_failure(path, atol(one));
        test_rmtree(dir);
        free(dir);
        printf("FLUSH_OOM_NTH=%s: %d\n", one, rc);
        return rc > 1;
    }
    long failures_tried = 0;
    for (long nth = 1; nth <= 5000; nth++) {
        char *dir = test_tmpdir("flush-oom");
        char path[1100];
        snprintf(path, sizeof path, "%s/store", dir);
        pid_t pid = fork();
        REQUIRE(pid >= 0);
        if (pid == 0) _exit(flush_with_failure(path, nth));
        int status;
        REQUIRE(waitpid(pid, &status, 0) == pid);
        test_rmtree(dir);
        free(dir);
        test_checks_run++;
        if (!WIFEXITED(status) || WEXITSTATUS(status) > 1) {
            test_checks_failed++;
            fprintf(stderr, "FAILED: allocation %ld of the flush failing: %s %d\n", nth,
                    WIFEXITED(status) ? "exit" : "signal",
                    WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
            continue;
        }
        if (WEXITSTATUS(status) == 0) break;   /* the flush never reached allocation nth */
        failures_tried++;
    }
    printf("flush with its Nth allocation failing: %ld allocations failed in turn\n", failures_tried);
    CHECK(failures_tried > 0);
    return test_finish("test_flush_oom");
}

#else

int main(void) {
    printf("test_flush_oom: not under AddressSanitizer (it replaces malloc)\n");
    return 77;   /* meson: skipped */
}

#endif
