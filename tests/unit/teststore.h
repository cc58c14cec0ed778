/**
 * @file teststore.h
 * Store helpers shared by the unit tests of libkvcore (beside testutil.h's
 * checks, which tests of other parts use too).
 */
#ifndef CELLFS_TESTSTORE_H
#define CELLFS_TESTSTORE_H

#include "kvcore.h"
#include "testutil.h"

/* Opens the store at path with options o; stops the test when it cannot. */
static inline kv_store *test_open_with(const char *path, const kv_store_options *o) {
    kv_store *s = NULL;
    char err[512];
    kv_status st = kv_store_open(&s, path, o, err, sizeof err);
    if (st != KV_OK) fprintf(stderr, "open %s: %s: %s\n", path, kv_strerror(st), err);
    REQUIRE(st == KV_OK);
    return s;
}

/* Opens (creating) the local store at path, with lo's settings if given;
   stops the test when it cannot. */
static inline kv_store *test_open_store(const char *path, kv_local_options *lo) {
    kv_store_options o = KV_STORE_OPTIONS_INIT;
    o.create_if_missing = true;
    o.local = lo;
    return test_open_with(path, &o);
}

/* Creates table name with one family "f" of default settings. */
static inline void test_make_table(kv_store *s, const char *name) {
    kv_family_desc f = KV_FAMILY_DESC_INIT;
    snprintf(f.name, sizeof f.name, "f");
    REQUIRE(kv_table_create(s, name, &f, 1) == KV_OK);
}

#endif
