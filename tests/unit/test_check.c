/**
 * @file test_check.c
 * kv_store_check and kv_store_salvage through the public header: a clean
 * store is clean; damage is found naming file and offset; a salvage copies
 * the readable rest with its timestamps and delete markers and reports
 * what was lost; the checked store is never changed.
 */
#include "kvcore.h"
#include "testutil.h"

#include <sys/stat.h>
#include <unistd.h>

typedef struct collected {
    int damage, warning, lost;
    char text[8192];
} collected;

static void collect(void *ctx, const kv_finding *f) {
    collected *c = ctx;
    c->damage += f->kind == KV_FINDING_DAMAGE;
    c->warning += f->kind == KV_FINDING_WARNING;
    c->lost += f->kind == KV_FINDING_LOST;
    size_t n = strlen(c->text);
    snprintf(c->text + n, sizeof c->text - n, "%d %s %lld %s\n", (int)f->kind, f->file ? f->file : "-",
             (long long)f->offset, f->message);
}

static kv_store *open_store(const char *path) {
    kv_store_options o = KV_STORE_OPTIONS_INIT;
    o.create_if_missing = true;
    kv_store *s = NULL;
    char err[512];
    kv_status st = kv_store_open(&s, path, &o, err, sizeof err);
    if (st != KV_OK) fprintf(stderr, "open %s: %s\n", path, err);
    REQUIRE(st == KV_OK);
    return s;
}

static void put(kv_store *s, const char *table, const char *row, int64_t ts, const char *v) {
    REQUIRE(kv_put(s, table, row, strlen(row), "f", "q", 1, ts, v, strlen(v), NULL) == KV_OK);
}

/* The newest value of row/f:q at or below max_ts ("" if none). */
static void get_value(kv_store *s, const char *table, const char *row, char *out, size_t len) {
    kv_result *r = NULL;
    kv_read_options ro = KV_READ_OPTIONS_INIT;
    REQUIRE(kv_get(&r, s, table, row, strlen(row), &ro) == KV_OK);
    out[0] = 0;
    if (r->ncells) snprintf(out, len, "%.*s", (int)r->cells[0].value_len, (const char *)r->cells[0].value);
    kv_result_free(r);
}

/* Every value of every version in table (all families), "a,b,c,". */
static void all_values(kv_store *s, const char *table, char *out, size_t len) {
    kv_read_options ro = KV_READ_OPTIONS_INIT;
    ro.max_versions = INT32_MAX;
    kv_scan *sc = NULL;
    out[0] = 0;
    REQUIRE(kv_scan_open(&sc, s, table, &ro) == KV_OK);
    const kv_result *r;
    while (kv_scan_next(&r, sc) == KV_OK)
        for (size_t i = 0; i < r->ncells; i++) {
            size_t n = strlen(out);
            snprintf(out + n, len - n, "%.*s,", (int)r->cells[i].value_len, (const char *)r->cells[i].value);
        }
    kv_scan_close(sc);
}

/* Flips one byte of a file. */
static void flip_byte(const char *path, long off) {
    FILE *fp = fopen(path, "r+b");
    REQUIRE(fp != NULL);
    fseek(fp, off, SEEK_SET);
    int ch = fgetc(fp);
    fseek(fp, off, SEEK_SET);
    fputc(ch ^ 0x5a, fp);
    fclose(fp);
}

/* A new store at path with namespace ns (owner => me) and *f a family
   "f" of 3 versions. */
static kv_store *open_with_ns(const char *path, kv_family_desc *f) {
    kv_store *s = open_store(path);
    *f = (kv_family_desc)KV_FAMILY_DESC_INIT;
    snprintf(f->name, sizeof f->name, "f");
    f->versions = 3;
    REQUIRE(kv_namespace_create(s, "ns") == KV_OK);
    REQUIRE(kv_namespace_set_property(s, "ns", "owner", "me") == KV_OK);
    return s;
}

/* The salvaged catalog: namespace ns with its property, table ns:a with
   its family's 3 versions and one attribute of value attr (or none). */
static void check_catalog(kv_store *s, const char *attr) {
    kv_property *props = NULL;
    size_t np = 0;
    CHECK_EQ(kv_namespace_describe(&props, &np, s, "ns"), KV_OK);
    CHECK(np == 1 && strcmp(props[0].value, "me") == 0);
    kv_free_properties(props, np);
    kv_table_desc *d = NULL;
    CHECK_EQ(kv_table_describe(&d, s, "ns:a"), KV_OK);
    CHECK(d && d->families[0].versions == 3);
    if (attr) CHECK(d && d->nattributes == 1 && strcmp(d->attributes[0].value, attr) == 0);
    else CHECK(d && d->nattributes == 0);
    kv_table_desc_free(d);
}

static void test_check_and_salvage(void) {
    char *dir = test_tmpdir("check");
    char *store = test_path_join(dir, "store");
    kv_family_desc f;
    kv_store *s = open_with_ns(store, &f);
    REQUIRE(kv_table_create(s, "ns:a", &f, 1) == KV_OK);
    REQUIRE(kv_table_create(s, "b", &f, 1) == KV_OK);
    put(s, "ns:a", "r1", 10, "old");
    put(s, "ns:a", "r1", 20, "new");
    put(s, "ns:a", "r2", 10, "gone");
    kv_mutation *m = NULL;
    REQUIRE(kv_mutation_new(&m, "r2", 2) == KV_OK);
    REQUIRE(kv_mutation_delete_column(m, "f", "q", 1, 15) == KV_OK);
    REQUIRE(kv_mutate(s, "ns:a", m, NULL) == KV_OK);
    kv_mutation_free(m);
    REQUIRE(kv_flush(s, NULL) == KV_OK);
    put(s, "b", "x", 5, "bee");
    REQUIRE(kv_flush(s, NULL) == KV_OK);
    put(s, "ns:a", "r3", 7, "logged");
    REQUIRE(kv_table_disable(s, "b") == KV_OK);
    REQUIRE(kv_store_close(s) == KV_OK);

    /* Clean. */
    collected c = {0};
    kv_check_stats st;
    CHECK_EQ(kv_store_check(&st, store, collect, &c), KV_OK);
    CHECK_EQ(c.damage, 0);
    CHECK_EQ(st.sorted_files, 3);

    CHECK(st.cells >= 5); /* the flush drops the put the delete masks */

    /* A salvage of a clean store loses nothing and keeps the meaning. */
    char *copy = test_path_join(dir, "copy");
    memset(&c, 0, sizeof c);
    CHECK_EQ(kv_store_salvage(&st, store, copy, collect, &c), KV_OK);
    CHECK_EQ(c.lost, 0);
    s = open_store(copy);
    char v[64];
    get_value(s, "ns:a", "r1", v, sizeof v);
    CHECK(strcmp(v, "new") == 0);
    get_value(s, "ns:a", "r2", v, sizeof v);
    CHECK(strcmp(v, "") == 0); /* the delete marker came along */
    get_value(s, "ns:a", "r3", v, sizeof v);
    CHECK(strcmp(v, "logged") == 0);
    bool enabled = true;
    CHECK_EQ(kv_table_is_enabled(&enabled, s, "b"), KV_OK);
    CHECK(!enabled);
    check_catalog(s, NULL);
    CHECK_EQ(kv_store_close(s), KV_OK);

    /* Damage in the oldest sorted file: found, named; salvage loses it
       only. The first file written holds table a's cells. */
    char *victim = test_path_join(store, "000003.sst");
    struct stat sb;
    REQUIRE(stat(victim, &sb) == 0);
    flip_byte(victim, 2);
    memset(&c, 0, sizeof c);
    CHECK_EQ(kv_store_check(&st, store, collect, &c), KV_CORRUPT);
    CHECK(c.damage >= 1);
    CHECK(strstr(c.text, "0 000003.sst 0 ") != NULL);
    char *copy2 = test_path_join(dir, "copy2");
    memset(&c, 0, sizeof c);
    CHECK_EQ(kv_store_salvage(&st, store, copy2, collect, &c), KV_CORRUPT);
    CHECK(c.lost >= 1);
    CHECK(strstr(c.text, "000003.sst") != NULL);
    CHECK(st.cells_lost >= 3);
    s = open_store(copy2);
    get_value(s, "ns:a", "r3", v, sizeof v);
    CHECK(strcmp(v, "logged") == 0);
    CHECK_EQ(kv_table_enable(s, "b"), KV_OK);
    get_value(s, "b", "x", v, sizeof v);
    CHECK(strcmp(v, "bee") == 0);
    CHECK_EQ(kv_store_close(s), KV_OK);
    /* The checked store was not changed. */
    struct stat after;
    REQUIRE(stat(victim, &after) == 0);
    CHECK_EQ(after.st_size, sb.st_size);
    /* No store; an existing target. */
    CHECK_EQ(kv_store_check(NULL, copy2, NULL, NULL), KV_OK);
    char *none = test_path_join(dir, "none");
    CHECK_EQ(kv_store_check(NULL, none, NULL, NULL), KV_NOT_FOUND);
    CHECK_EQ(kv_store_salvage(NULL, store, copy, NULL, NULL), KV_EXISTS);
    free(none);
    free(victim);
    free(copy);
    free(copy2);
    test_rmtree(dir);
    free(store);
    free(dir);
}

/* A store whose manifest is missing or damaged: check names the manifest;
   salvage keeps every part of the catalog that can be read (namespaces
   and their properties, families' settings, table attributes) and puts
   the cells it cannot place in lost_found, flushed and logged alike. */
static void test_salvage_damaged_manifest(void) {
    char *dir = test_tmpdir("checkman");
    char *store = test_path_join(dir, "store");
    kv_family_desc f;
    kv_store *s = open_with_ns(store, &f);
    REQUIRE(kv_table_create(s, "ns:a", &f, 1) == KV_OK);
    kv_property attr = {"colour", "blue"};
    REQUIRE(kv_table_set_attributes(s, "ns:a", &attr, 1) == KV_OK);
    REQUIRE(kv_table_create(s, "b", &f, 1) == KV_OK);
    put(s, "ns:a", "r1", 10, "old");
    put(s, "ns:a", "r1", 20, "new");
    put(s, "b", "x", 5, "bee");
    REQUIRE(kv_flush(s, NULL) == KV_OK);
    put(s, "ns:a", "r3", 7, "logged");
    /* Copies of the open store: its log holds r3. */
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "cp -a '%s' '%s/gone' && cp -a '%s' '%s/flipped'", store, dir, store, dir);
    REQUIRE(system(cmd) == 0);
    REQUIRE(kv_store_close(s) == KV_OK);

    /* The manifest deleted: damage naming it; everything in lost_found. */
    char *gone = test_path_join(dir, "gone");
    char *man = test_path_join(gone, "MANIFEST");
    REQUIRE(unlink(man) == 0);
    collected c = {0};
    kv_check_stats st;
    CHECK_EQ(kv_store_check(&st, gone, collect, &c), KV_CORRUPT);
    CHECK(strstr(c.text, "0 MANIFEST -1 ") != NULL);
    CHECK_EQ(st.sorted_files, 2);
    char *copy = test_path_join(dir, "copy");
    memset(&c, 0, sizeof c);
    CHECK_EQ(kv_store_salvage(&st, gone, copy, collect, &c), KV_CORRUPT);
    CHECK(c.lost >= 1 && strstr(c.text, "lost_found") != NULL);
    /* At least each cell once: a compaction's inputs not yet removed, or
       a log not yet removed after its flush, give some twice. */
    CHECK(st.cells >= 4);
    s = open_store(copy);
    char v[256];
    all_values(s, "lost_found", v, sizeof v);
    CHECK(strstr(v, "new,old,") && strstr(v, "bee,") && strstr(v, "logged,"));
    char **names = NULL;
    CHECK_EQ(kv_table_list(&names, s, NULL), KV_OK);
    CHECK(names && names[0] && strcmp(names[0], "lost_found") == 0 && !names[1]);
    kv_free_names(names);
    CHECK_EQ(kv_store_close(s), KV_OK);

    /* A flipped byte in the snapshot's scalars: damage naming the
       manifest and an offset; the catalog survives whole. */
    char *flipped = test_path_join(dir, "flipped");
    char *man2 = test_path_join(flipped, "MANIFEST");
    flip_byte(man2, 30);
    memset(&c, 0, sizeof c);
    CHECK_EQ(kv_store_check(&st, flipped, collect, &c), KV_CORRUPT);
    CHECK(strstr(c.text, "0 MANIFEST ") != NULL && strstr(c.text, "0 MANIFEST -1 ") == NULL);
    char *copy2 = test_path_join(dir, "copy2");
    memset(&c, 0, sizeof c);
    CHECK_EQ(kv_store_salvage(&st, flipped, copy2, collect, &c), KV_CORRUPT);
    CHECK(strstr(c.text, "2 MANIFEST ") != NULL);
    CHECK(strstr(c.text, "lost_found") == NULL);
    s = open_store(copy2);
    get_value(s, "ns:a", "r1", v, sizeof v);
    CHECK(strcmp(v, "new") == 0);
    get_value(s, "ns:a", "r3", v, sizeof v);
    CHECK(strcmp(v, "logged") == 0);
    get_value(s, "b", "x", v, sizeof v);
    CHECK(strcmp(v, "bee") == 0);
    check_catalog(s, "blue");
    CHECK_EQ(kv_store_close(s), KV_OK);

    free(man);
    free(man2);
    free(gone);
    free(flipped);
    free(copy);
    free(copy2);
    test_rmtree(dir);
    free(store);
    free(dir);
}

int main(void) {
    test_check_and_salvage();
    test_salvage_damaged_manifest();
    return test_finish("test_check");
}
