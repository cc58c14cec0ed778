/**
 * @file test_table_attributes.c
 * Table attributes (alter 't', METHOD => 'table_att') through the public
 * header, on the local engine and on the model: values checked and
 * normalised, kept across reopen in the manifest, READONLY refusing every
 * write with KV_READ_ONLY naming the table, DURABILITY => SKIP_WAL giving
 * unlogged writes, unset, and an all-or-nothing change (issue 10 rule 7).
 */
#include "kvcore.h"
#include "teststore.h"

#include <sys/wait.h>
#include <unistd.h>

static kv_status set1(kv_store *s, const char *table, const char *key, const char *value) {
    kv_property p = {key, value};
    return kv_table_set_attributes(s, table, &p, 1);
}

/* The attribute's value in describe, or NULL. The string lives in a static
   buffer until the next call. */
static const char *attr(kv_store *s, const char *table, const char *key) {
    static char buf[KV_TABLE_ATTR_VALUE_MAX + 1];
    kv_table_desc *d = NULL;
    REQUIRE(kv_table_describe(&d, s, table) == KV_OK);
    const char *out = NULL;
    for (size_t i = 0; i < d->nattributes; i++)
        if (strcmp(d->attributes[i].key, key) == 0) {
            snprintf(buf, sizeof buf, "%s", d->attributes[i].value);
            out = buf;
        }
    for (size_t i = 1; i < d->nattributes; i++)
        CHECK(strcmp(d->attributes[i - 1].key, d->attributes[i].key) < 0);
    kv_table_desc_free(d);
    return out;
}

static size_t nattrs(kv_store *s, const char *table) {
    kv_table_desc *d = NULL;
    REQUIRE(kv_table_describe(&d, s, table) == KV_OK);
    size_t n = d->nattributes;
    CHECK(n == 0 ? d->attributes == NULL : d->attributes != NULL);
    kv_table_desc_free(d);
    return n;
}

static kv_status put(kv_store *s, const char *table, const char *row, const char *value,
                     kv_durability d) {
    kv_write_options w = KV_WRITE_OPTIONS_INIT;
    w.durability = d;
    return kv_put(s, table, row, strlen(row), "f", "q", 1, KV_LATEST_TIMESTAMP, value,
                  strlen(value), &w);
}

static size_t cells_of(kv_store *s, const char *table, const char *row) {
    kv_result *r = NULL;
    REQUIRE(kv_get(&r, s, table, row, strlen(row), NULL) == KV_OK);
    size_t n = r->ncells;
    kv_result_free(r);
    return n;
}

static void test_check_call(void) {
    char k[KV_NAME_MAX + 1], v[KV_TABLE_ATTR_VALUE_MAX + 1], err[300];
    CHECK_EQ(kv_table_attribute_check("max_filesize", "0134217728", k, v, err, sizeof err), KV_OK);
    CHECK(strcmp(k, "MAX_FILESIZE") == 0 && strcmp(v, "134217728") == 0);
    CHECK_EQ(kv_table_attribute_check("ReadOnly", "TRUE", k, v, err, sizeof err), KV_OK);
    CHECK(strcmp(k, "READONLY") == 0 && strcmp(v, "true") == 0);
    CHECK_EQ(kv_table_attribute_check("durability", "fsync_wal", k, v, err, sizeof err), KV_OK);
    CHECK(strcmp(k, "DURABILITY") == 0 && strcmp(v, "FSYNC_WAL") == 0);
    CHECK_EQ(kv_table_attribute_check("my.key", "Any Text", k, v, err, sizeof err), KV_OK);
    CHECK(strcmp(k, "my.key") == 0 && strcmp(v, "Any Text") == 0);
    CHECK_EQ(kv_table_attribute_check("MAX_FILESIZE", NULL, k, v, err, sizeof err), KV_OK);
    CHECK_EQ(kv_table_attribute_check("MAX_FILESIZE", "big", k, v, err, sizeof err), KV_INVALID);
    CHECK(strstr(err, "MAX_FILESIZE") != NULL);
    CHECK_EQ(kv_table_attribute_check("MAX_FILESIZE", "-5", k, v, err, sizeof err), KV_INVALID);
    CHECK_EQ(kv_table_attribute_check("READONLY", "yes", k, v, err, sizeof err), KV_INVALID);
    CHECK(strstr(err, "READONLY") != NULL && strstr(err, "yes") != NULL);
    CHECK_EQ(kv_table_attribute_check("DURABILITY", "NEVER", k, v, err, sizeof err), KV_INVALID);
    CHECK_EQ(kv_table_attribute_check("REGION_REPLICATION", "0", k, v, err, sizeof err), KV_INVALID);
    CHECK_EQ(kv_table_attribute_check("", "1", k, v, err, sizeof err), KV_INVALID);
}

/* Set, normalise, refuse bad values without a change, unset. */
static void test_set_and_unset(const char *location) {
    kv_store *s = test_open_store(location, NULL);
    test_make_table(s, "t");
    CHECK_EQ(nattrs(s, "t"), 0);
    kv_property two[] = {{"MAX_FILESIZE", "134217728"}, {"readonly", "True"}};
    CHECK_EQ(kv_table_set_attributes(s, "t", two, 2), KV_OK);
    CHECK(attr(s, "t", "MAX_FILESIZE") && strcmp(attr(s, "t", "MAX_FILESIZE"), "134217728") == 0);
    CHECK(attr(s, "t", "READONLY") && strcmp(attr(s, "t", "READONLY"), "true") == 0);
    /* One bad attribute: nothing of the call is applied. */
    kv_property mixed[] = {{"OWNER", "bob"}, {"DURABILITY", "SOMETIMES"}};
    CHECK_EQ(kv_table_set_attributes(s, "t", mixed, 2), KV_INVALID);
    CHECK(strstr(kv_store_errmsg(s), "DURABILITY") != NULL);
    CHECK(attr(s, "t", "OWNER") == NULL);
    CHECK_EQ(nattrs(s, "t"), 2);
    CHECK_EQ(set1(s, "nosuch", "OWNER", "bob"), KV_NOT_FOUND);
    /* Unset, and unset of an absent attribute. */
    CHECK_EQ(set1(s, "t", "max_filesize", NULL), KV_OK);
    CHECK(attr(s, "t", "MAX_FILESIZE") == NULL);
    CHECK_EQ(set1(s, "t", "MAX_FILESIZE", NULL), KV_OK);
    CHECK_EQ(nattrs(s, "t"), 1);
    /* Disabled tables take attributes too. */
    REQUIRE(kv_table_disable(s, "t") == KV_OK);
    CHECK_EQ(set1(s, "t", "COMPACTION_ENABLED", "FALSE"), KV_OK);
    CHECK(attr(s, "t", "COMPACTION_ENABLED") && strcmp(attr(s, "t", "COMPACTION_ENABLED"), "false") == 0);
    REQUIRE(kv_table_enable(s, "t") == KV_OK);
    CHECK_EQ(kv_store_close(s), KV_OK);
}

/* READONLY refuses every kind of write, naming the table; reads go on. */
static void test_readonly(const char *location) {
    kv_store *s = test_open_store(location, NULL);
    test_make_table(s, "ns_ro");
    CHECK_EQ(put(s, "ns_ro", "r1", "v", KV_DURABILITY_DEFAULT), KV_OK);
    CHECK_EQ(set1(s, "ns_ro", "READONLY", "true"), KV_OK);
    CHECK_EQ(put(s, "ns_ro", "r2", "v", KV_DURABILITY_DEFAULT), KV_READ_ONLY);
    CHECK(strstr(kv_store_errmsg(s), "ns_ro") != NULL);
    int64_t n = 0;
    CHECK_EQ(kv_increment(&n, s, "ns_ro", "c", 1, "f", "n", 1, 1, NULL), KV_READ_ONLY);
    kv_mutation *m = NULL;
    REQUIRE(kv_mutation_new(&m, "r1", 2) == KV_OK);
    REQUIRE(kv_mutation_delete_row(m, KV_LATEST_TIMESTAMP) == KV_OK);
    CHECK_EQ(kv_mutate(s, "ns_ro", m, NULL), KV_READ_ONLY);
    bool applied = true;
    CHECK_EQ(kv_check_and_mutate(&applied, s, "ns_ro", "r1", 2, "f", "q", 1, KV_CMP_EQUAL, "v", 1,
                                 m, NULL), KV_READ_ONLY);
    kv_mutation_free(m);
    CHECK_EQ(cells_of(s, "ns_ro", "r1"), 1);
    CHECK_EQ(cells_of(s, "ns_ro", "r2"), 0);
    CHECK_EQ(set1(s, "ns_ro", "READONLY", "false"), KV_OK);
    CHECK_EQ(put(s, "ns_ro", "r2", "v", KV_DURABILITY_DEFAULT), KV_OK);
    CHECK_EQ(cells_of(s, "ns_ro", "r2"), 1);
    CHECK_EQ(kv_store_close(s), KV_OK);
}

/* Attributes are in the manifest: kept across close and reopen. */
static void test_reopen(void) {
    char *dir = test_tmpdir("tableatt");
    kv_store *s = test_open_store(dir, NULL);
    test_make_table(s, "t");
    test_make_table(s, "u");
    kv_property attrs[] = {{"MAX_FILESIZE", "1073741824"}, {"READONLY", "true"},
                           {"DURABILITY", "ASYNC_WAL"}, {"key with spaces", "va'lue\n2"},
                           {"OWNER", ""}};
    CHECK_EQ(kv_table_set_attributes(s, "t", attrs, 5), KV_OK);
    CHECK_EQ(kv_store_close(s), KV_OK);
    s = test_open_store(dir, NULL);
    CHECK_EQ(nattrs(s, "t"), 5);
    CHECK_EQ(nattrs(s, "u"), 0);
    CHECK(attr(s, "t", "MAX_FILESIZE") && strcmp(attr(s, "t", "MAX_FILESIZE"), "1073741824") == 0);
    CHECK(attr(s, "t", "key with spaces") && strcmp(attr(s, "t", "key with spaces"), "va'lue\n2") == 0);
    CHECK(attr(s, "t", "OWNER") && strcmp(attr(s, "t", "OWNER"), "") == 0);
    CHECK_EQ(put(s, "t", "r", "v", KV_DURABILITY_DEFAULT), KV_READ_ONLY);
    CHECK_EQ(set1(s, "t", "READONLY", NULL), KV_OK);
    CHECK_EQ(kv_store_close(s), KV_OK);
    s = test_open_store(dir, NULL);
    CHECK(attr(s, "t", "READONLY") == NULL);
    CHECK_EQ(put(s, "t", "r", "v", KV_DURABILITY_DEFAULT), KV_OK);
    /* Truncate keeps them, as HBase's truncate keeps the descriptor. */
    CHECK_EQ(kv_table_truncate(s, "t", false), KV_OK);
    CHECK_EQ(nattrs(s, "t"), 4);
    CHECK_EQ(kv_store_close(s), KV_OK);
    test_rmtree(dir);
    free(dir);
}

/* A child writes and dies without closing; returns what the parent finds
   of its row after reopening. */
static size_t survives_crash(const char *dir, const char *row, kv_durability d) {
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        kv_store *s = test_open_store(dir, NULL);
        _exit(put(s, "t", row, "v", d) == KV_OK ? 0 : 1);
    }
    int status = 0;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    kv_store *s = test_open_store(dir, NULL);
    size_t n = cells_of(s, "t", row);
    CHECK_EQ(kv_store_close(s), KV_OK);
    return n;
}

/* DURABILITY => SKIP_WAL leaves writes out of the log (lost when the
   process dies before a flush) unless the write asks for more. */
static void test_durability(void) {
    char *dir = test_tmpdir("tableatt_wal");
    kv_store *s = test_open_store(dir, NULL);
    test_make_table(s, "t");
    CHECK_EQ(kv_store_close(s), KV_OK);
    CHECK_EQ(survives_crash(dir, "logged", KV_DURABILITY_DEFAULT), 1);
    s = test_open_store(dir, NULL);
    CHECK_EQ(set1(s, "t", "DURABILITY", "SKIP_WAL"), KV_OK);
    CHECK_EQ(kv_store_close(s), KV_OK);
    CHECK_EQ(survives_crash(dir, "unlogged", KV_DURABILITY_DEFAULT), 0);
    CHECK_EQ(survives_crash(dir, "asked", KV_SYNC_WAL), 1);
    s = test_open_store(dir, NULL);
    CHECK_EQ(set1(s, "t", "DURABILITY", "USE_DEFAULT"), KV_OK);
    CHECK_EQ(kv_store_close(s), KV_OK);
    CHECK_EQ(survives_crash(dir, "default", KV_DURABILITY_DEFAULT), 1);
    test_rmtree(dir);
    free(dir);
}

int main(void) {
    test_check_call();
    char *dir = test_tmpdir("tableatt_local");
    test_set_and_unset(dir);
    test_rmtree(dir);
    free(dir);
    test_set_and_unset("model:");
    dir = test_tmpdir("tableatt_ro");
    test_readonly(dir);
    test_rmtree(dir);
    free(dir);
    test_readonly("model:");
    test_reopen();
    test_durability();
    return test_finish("test_table_attributes");
}
