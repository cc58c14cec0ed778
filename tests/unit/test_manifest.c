/**
 * @file test_manifest.c
 * The manifest through the public header (and env.h for the fault env):
 * malformed or foreign manifests are refused with a message naming the file
 * and the line, never read past their end (issue 11 defect 5).
 */
#include "kvcore.h"
#include "util/coding.h"
#include "util/env.h"
#include "testutil.h"

#include <sys/stat.h>
#include <unistd.h>

static char *path_join(const char *dir, const char *name) {
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    REQUIRE(p != NULL);
    snprintf(p, n, "%s/%s", dir, name);
    return p;
}

static kv_store *open_store(const char *path, kv_local_options *lo) {
    kv_store_options o = KV_STORE_OPTIONS_INIT;
    o.create_if_missing = true;
    o.local = lo;
    kv_store *s = NULL;
    char err[512];
    kv_status st = kv_store_open(&s, path, &o, err, sizeof err);
    if (st != KV_OK) fprintf(stderr, "open %s: %s: %s\n", path, kv_strerror(st), err);
    REQUIRE(st == KV_OK);
    return s;
}

static void make_table(kv_store *s, const char *name) {
    kv_family_desc f = KV_FAMILY_DESC_INIT;
    snprintf(f.name, sizeof f.name, "f");
    REQUIRE(kv_table_create(s, name, &f, 1) == KV_OK);
}

static void write_raw(const char *path, const char *data, size_t len) {
    FILE *f = fopen(path, "wb");
    REQUIRE(f != NULL);
    REQUIRE(fwrite(data, 1, len, f) == len);
    REQUIRE(fclose(f) == 0);
}

/* Writes body followed by its checksum line, as the engine does. */
static void write_manifest(const char *path, const char *body) {
    char sum[32];
    snprintf(sum, sizeof sum, "checksum %08x\n", kv_checksum(body, strlen(body)));
    size_t n = strlen(body) + strlen(sum);
    char *all = malloc(n + 1);
    REQUIRE(all != NULL);
    snprintf(all, n + 1, "%s%s", body, sum);
    write_raw(path, all, n);
    free(all);
}

static char *read_text(const char *path) {
    FILE *f = fopen(path, "rb");
    REQUIRE(f != NULL);
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    return strdup(buf);
}

/* The manifest's text without its checksum line. */
static char *body_of(const char *mf) {
    char *t = read_text(mf);
    char *c = strstr(t, "checksum ");
    REQUIRE(c != NULL);
    *c = 0;
    return t;
}

/* Opens and expects KV_CORRUPT with all of the words in the message. */
static void expect_refused(const char *store, const char *w1, const char *w2) {
    kv_store_options o = KV_STORE_OPTIONS_INIT;
    kv_store *s = NULL;
    char err[512] = "";
    CHECK_EQ(kv_store_open(&s, store, &o, err, sizeof err), KV_CORRUPT);
    CHECK(s == NULL);
    if (w1 && !strstr(err, w1)) fprintf(stderr, "message lacks '%s': %s\n", w1, err);
    if (w2 && !strstr(err, w2)) fprintf(stderr, "message lacks '%s': %s\n", w2, err);
    CHECK(!w1 || strstr(err, w1) != NULL);
    CHECK(!w2 || strstr(err, w2) != NULL);
    if (s) kv_store_close(s);
}

static char *replace(const char *text, const char *from, const char *to) {
    const char *at = strstr(text, from);
    REQUIRE(at != NULL);
    size_t n = strlen(text) - strlen(from) + strlen(to);
    char *out = malloc(n + 1);
    REQUIRE(out != NULL);
    snprintf(out, n + 1, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    return out;
}

static void test_malformed(void) {
    char *dir = test_tmpdir("manifest-bad");
    char *store = path_join(dir, "store");
    kv_store *s = open_store(store, NULL);
    make_table(s, "t");
    CHECK_EQ(kv_store_close(s), KV_OK);
    char *mf = path_join(store, "MANIFEST");
    char *good = read_text(mf);
    char *body = body_of(mf);

    /* An unknown version is named as such. */
    char *nl = strchr(body, '\n');
    REQUIRE(nl != NULL);
    char *v9 = replace(body, "cellfs-manifest ", "cellfs-manifest 9");
    write_manifest(mf, v9 + 0);
    expect_refused(store, mf, "version");
    free(v9);

    /* A line that does not parse is named with its number. */
    char *bogus = replace(body, "next_file", "bogus line\nnext_file");
    write_manifest(mf, bogus);
    expect_refused(store, mf, "line 2");
    free(bogus);
    char *shortt = replace(body, "table ", "table 1\ntable ");
    write_manifest(mf, shortt);
    expect_refused(store, mf, "line");
    free(shortt);

    /* An overlong name. */
    char longname[400];
    memset(longname, 'a', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    char line[500];
    snprintf(line, sizeof line, "namespace %s\nnamespace ", longname);
    char *longns = replace(body, "namespace ", line);
    write_manifest(mf, longns);
    expect_refused(store, mf, "line");
    free(longns);

    /* A number that overflows. */
    char *big = replace(body, "next_id ", "next_id 99999999999999999999");
    write_manifest(mf, big);
    expect_refused(store, mf, "line");
    free(big);

    /* A checksum line without its digits: nothing may be read past the
       file's end (ASan reports a read past the buffer otherwise). */
    size_t bl = strlen(body);
    char *nosum = malloc(bl + 32);
    REQUIRE(nosum != NULL);
    snprintf(nosum, bl + 32, "%schecksum \n", body);
    write_raw(mf, nosum, strlen(nosum));
    expect_refused(store, mf, "checksum");
    snprintf(nosum, bl + 32, "%schecksum 1\n", body);
    write_raw(mf, nosum, strlen(nosum));
    expect_refused(store, mf, NULL);
    free(nosum);

    /* Not a manifest at all. */
    write_raw(mf, "hello\n", 6);
    expect_refused(store, mf, "line 1");

    /* The good one still opens. */
    write_raw(mf, good, strlen(good));
    s = open_store(store, NULL);
    CHECK_EQ(kv_store_close(s), KV_OK);
    free(good);
    free(body);
    free(mf);
    test_rmtree(dir);
    free(store);
    free(dir);
}

int main(void) {
    test_malformed();
    return test_finish("test_manifest");
}
