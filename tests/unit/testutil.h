/**
 * @file testutil.h
 * The unit tests' checks: each CHECK records a failure with file and line
 * and goes on; a test's main returns test_finish(), which prints
 * "N checks, M failed" and exits non-zero if any failed.
 */
#ifndef CELLFS_TESTUTIL_H
#define CELLFS_TESTUTIL_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long test_checks_run, test_checks_failed;

#define CHECK(cond) do { \
    test_checks_run++; \
    if (!(cond)) { test_checks_failed++; \
        fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); } \
} while (0)

/* Compares two integers and prints both on failure. */
#define CHECK_EQ(a, b) do { \
    long long check_a_ = (long long)(a), check_b_ = (long long)(b); \
    test_checks_run++; \
    if (check_a_ != check_b_) { test_checks_failed++; \
        fprintf(stderr, "%s:%d: CHECK_EQ failed: %s = %lld, %s = %lld\n", __FILE__, __LINE__, \
                #a, check_a_, #b, check_b_); } \
} while (0)

/* Compares a byte string with a C string. */
#define CHECK_BYTES(ptr, len, str) do { \
    const void *check_p_ = (ptr); size_t check_l_ = (len); const char *check_s_ = (str); \
    test_checks_run++; \
    if (check_l_ != strlen(check_s_) || memcmp(check_p_, check_s_, check_l_) != 0) { \
        test_checks_failed++; \
        fprintf(stderr, "%s:%d: CHECK_BYTES failed: %s = '%.*s', expected '%s'\n", __FILE__, \
                __LINE__, #ptr, (int)check_l_, (const char *)check_p_, check_s_); } \
} while (0)

/* Stops the test at once (for failures that make the rest meaningless). */
#define REQUIRE(cond) do { \
    int require_ok_ = !!(cond); \
    test_checks_run++; \
    if (!require_ok_) { test_checks_failed++; \
        fprintf(stderr, "%s:%d: REQUIRE failed: %s\nstopping\n", __FILE__, __LINE__, #cond); \
        exit(1); } \
} while (0)

static inline int test_finish(const char *name) {
    printf("%s: %lu checks, %lu failed\n", name, test_checks_run, test_checks_failed);
    return test_checks_failed ? 1 : 0;
}

/* A fresh empty directory under $TMPDIR for one test; path is malloc'd. */
static inline char *test_tmpdir(const char *tag) {
    const char *base = getenv("TMPDIR");
    char tmpl[512];
    snprintf(tmpl, sizeof tmpl, "%s/kvtest-%s-XXXXXX", base && *base ? base : "/tmp", tag);
    char *dir = mkdtemp(tmpl);
    if (!dir) { perror("mkdtemp"); exit(1); }
    return strdup(dir);
}

/* Removes a directory tree made by test_tmpdir. */
static inline void test_rmtree(const char *dir) {
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "warning: could not remove %s\n", dir);
}

/* dir + "/" + name, malloc'd. */
static inline char *test_path_join(const char *dir, const char *name) {
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    REQUIRE(p != NULL);
    snprintf(p, n, "%s/%s", dir, name);
    return p;
}

/* A growing NUL-terminated text, for tests that describe a store's state
   as text to compare it. */
typedef struct test_text { char *p; size_t len, cap; } test_text;

static inline void test_text_add(test_text *b, const void *data, size_t n) {
    if (b->len + n + 1 > b->cap) {
        size_t cap = (b->cap ? b->cap * 2 : 1024) + n;
        char *np = realloc(b->p, cap);
        REQUIRE(np != NULL);
        b->p = np;
        b->cap = cap;
    }
    memcpy(b->p + b->len, data, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static inline void test_text_printf(test_text *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static inline void test_text_printf(test_text *b, const char *fmt, ...) {
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    test_text_add(b, tmp, n < 0 ? 0 : n < (int)sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

#endif
