/**
 * @file test_manifest.c
 * The manifest through the public header (and env.h for the fault env):
 * malformed or foreign manifests are refused with a message naming the file
 * and the line, never read past their end (issue 11 defect 5).
 */
#include "kvcore.h"
#include "util/coding.h"
#include "util/env.h"
#include "teststore.h"

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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
    char *store = test_path_join(dir, "store");
    kv_store *s = test_open_store(store, NULL);
    test_make_table(s, "t");
    CHECK_EQ(kv_store_close(s), KV_OK);
    char *mf = test_path_join(store, "MANIFEST");
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

    /* A version 2 manifest (before table attributes) opens. */
    char *v2 = replace(body, "cellfs-manifest 3", "cellfs-manifest 2");
    write_manifest(mf, v2);
    s = test_open_store(store, NULL);
    CHECK_EQ(kv_table_exists(s, "t"), KV_OK);
    CHECK_EQ(kv_store_close(s), KV_OK);
    free(v2);

    /* Table attributes: of an unknown table, given twice, bad hex, an
       empty key; a well-formed one is read back. */
    unsigned tid = 0;
    const char *tl = strstr(body, "\ntable ");
    REQUIRE(tl && sscanf(tl, "\ntable %u", &tid) == 1);
    static const char *const bad_attrs[][2] = {
        {"attribute 999999 4b 76\n", "unknown table"},
        {"attribute %u 4b 76\nattribute %u 4b 77\n", "twice"},
        {"attribute %u 4g 76\n", "hex"},
        {"attribute %u - 76\n", "hex"},
        {"attribute %u 4b\n", "line"},
    };
    for (size_t i = 0; i < sizeof bad_attrs / sizeof bad_attrs[0]; i++) {
        char attr_line[200];
        snprintf(attr_line, sizeof attr_line, bad_attrs[i][0], tid, tid);
        strncat(attr_line, "family ", sizeof attr_line - strlen(attr_line) - 1);
        char *bad = replace(body, "family ", attr_line);
        write_manifest(mf, bad);
        expect_refused(store, mf, bad_attrs[i][1]);
        free(bad);
    }
    {
        char attr_line[200];
        snprintf(attr_line, sizeof attr_line, "attribute %u 4f574e4552 626f62\nfamily ", tid);
        char *ok = replace(body, "family ", attr_line);
        write_manifest(mf, ok);
        free(ok);
        s = test_open_store(store, NULL);
        kv_table_desc *d = NULL;
        REQUIRE(kv_table_describe(&d, s, "t") == KV_OK);
        CHECK(d->nattributes == 1 && strcmp(d->attributes[0].key, "OWNER") == 0 &&
              strcmp(d->attributes[0].value, "bob") == 0);
        kv_table_desc_free(d);
        CHECK_EQ(kv_store_close(s), KV_OK);
        char *again = read_text(mf);
        CHECK(strstr(again, "cellfs-manifest 3\n") == again);
        CHECK(strstr(again, "attribute ") != NULL);
        free(again);
    }

    /* Not a manifest at all. */
    write_raw(mf, "hello\n", 6);
    expect_refused(store, mf, "line 1");

    /* The good one still opens. */
    write_raw(mf, good, strlen(good));
    s = test_open_store(store, NULL);
    CHECK_EQ(kv_store_close(s), KV_OK);
    free(good);
    free(body);
    free(mf);
    test_rmtree(dir);
    free(store);
    free(dir);
}


/* ---- catalog changes are transactional (defect 3) ---- */

static void put_n(kv_store *s, const char *table, const char *fam, int from, int n) {
    for (int i = from; i < from + n; i++) {
        char row[32];
        snprintf(row, sizeof row, "r%05d", i);
        REQUIRE(kv_put(s, table, row, strlen(row), fam, "q", 1, 1000 + i, row, strlen(row), NULL) == KV_OK);
    }
}

static size_t count_rows(kv_store *s, const char *table) {
    kv_scan *sc = NULL;
    kv_read_options ro = KV_READ_OPTIONS_INIT;
    if (kv_scan_open(&sc, s, table, &ro) != KV_OK) return (size_t)-1;
    size_t n = 0;
    const kv_result *r;
    kv_status st;
    while ((st = kv_scan_next(&r, sc)) == KV_OK) n += r->ncells;
    kv_scan_close(sc);
    return st == KV_END ? n : (size_t)-1;
}

enum change { DROP, TRUNCATE, DELETE_FAMILY, ALTER_ADD, SET_PROPERTY, DROP_NS, SET_ATTRIBUTES };
static const char *const change_names[] = {"drop", "truncate", "delete family", "add family",
                                           "set property", "drop namespace", "set attributes"};

static kv_status apply_change(kv_store *s, enum change c) {
    kv_family_desc fd = KV_FAMILY_DESC_INIT;
    switch (c) {
    case DROP: return kv_table_drop(s, "t");
    case TRUNCATE: return kv_table_truncate(s, "t", false);
    case DELETE_FAMILY: return kv_table_delete_family(s, "t", "g");
    case ALTER_ADD:
        snprintf(fd.name, sizeof fd.name, "h");
        return kv_table_alter_family(s, "t", &fd);
    case SET_PROPERTY: return kv_namespace_set_property(s, "ns", "k", "v2");
    case DROP_NS: return kv_namespace_drop(s, "ns");
    case SET_ATTRIBUTES: {
        kv_property p[] = {{"READONLY", "true"}, {"MAX_FILESIZE", "1024"}};
        return kv_table_set_attributes(s, "t", p, 2);
    }
    }
    return KV_INVALID;
}

/* The state the test expects while the change has not happened. */
static void check_old_state(kv_store *s, enum change c, const char *when) {
    size_t rows = count_rows(s, "t");
    if (rows != 40) fprintf(stderr, "%s %s: %zu cells in t, expected 40\n", change_names[c], when, rows);
    CHECK_EQ(rows, 40);
    kv_table_desc *d = NULL;
    CHECK_EQ(kv_table_describe(&d, s, "t"), KV_OK);
    CHECK(d && d->nfamilies == 2);
    CHECK(d && d->nattributes == 0);
    free(d);
    kv_property *props = NULL;
    size_t np = 0;
    CHECK_EQ(kv_namespace_describe(&props, &np, s, "ns"), KV_OK);
    CHECK(np == 1 && strcmp(props[0].value, "v1") == 0);
    kv_free_properties(props, np);
}

/* One failed manifest write (a full disk, then a failed rename) during each
   catalog change: the call fails, the old state stays in force in the
   running store and after reopening, and nothing stored is lost. */
static void test_failed_change(enum change c, const char *fault) {
    char *dir = test_tmpdir("manifest-tx");
    char *store = test_path_join(dir, "store");
    kv_fault_env *fe = kv_fault_env_new(kv_env_posix());
    kv_local_options lo = KV_LOCAL_OPTIONS_INIT;
    lo.env = kv_fault_env_env(fe);
    lo.compaction = KV_COMPACTION_MANUAL;
    kv_store *s = test_open_store(store, &lo);
    kv_family_desc f[2] = {KV_FAMILY_DESC_INIT, KV_FAMILY_DESC_INIT};
    snprintf(f[0].name, sizeof f[0].name, "f");
    snprintf(f[1].name, sizeof f[1].name, "g");
    REQUIRE(kv_table_create(s, "t", f, 2) == KV_OK);
    REQUIRE(kv_namespace_create(s, "ns") == KV_OK);
    REQUIRE(kv_namespace_set_property(s, "ns", "k", "v1") == KV_OK);
    put_n(s, "t", "f", 0, 10);
    put_n(s, "t", "g", 0, 10);
    REQUIRE(kv_flush(s, NULL) == KV_OK); /* sorted files */
    put_n(s, "t", "f", 10, 10);
    put_n(s, "t", "g", 10, 10);          /* and cells only in the log */
    if (c == DROP) REQUIRE(kv_table_disable(s, "t") == KV_OK);
    if (strcmp(fault, "space") == 0) kv_fault_env_set_space(fe, 0);
    else kv_fault_env_fail_nth(fe, fault, 1);
    kv_status st = apply_change(s, c);
    if (st == KV_OK) fprintf(stderr, "%s with a failing %s succeeded\n", change_names[c], fault);
    CHECK(st != KV_OK);
    kv_fault_env_set_space(fe, -1);
    kv_fault_env_fail_nth(fe, fault, 0);
    if (c == DROP) CHECK_EQ(kv_table_enable(s, "t"), KV_OK);
    check_old_state(s, c, "after the failure");
    CHECK_EQ(kv_store_close(s), KV_OK);
    /* Reopened without faults: the old state, everything there. */
    s = test_open_store(store, NULL);
    check_old_state(s, c, "after reopening");
    /* And the change can be made now. */
    if (c == DROP) REQUIRE(kv_table_disable(s, "t") == KV_OK);
    CHECK_EQ(apply_change(s, c), KV_OK);
    CHECK_EQ(kv_store_close(s), KV_OK);
    s = test_open_store(store, NULL);
    CHECK_EQ(kv_store_close(s), KV_OK);
    kv_fault_env_free(fe);
    test_rmtree(dir);
    free(store);
    free(dir);
}

/* The same failure, then a crash before anything else is written. */
static void test_failed_change_then_crash(enum change c) {
    char *dir = test_tmpdir("manifest-txc");
    char *store = test_path_join(dir, "store");
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        kv_fault_env *fe = kv_fault_env_new(kv_env_posix());
        kv_local_options lo = KV_LOCAL_OPTIONS_INIT;
        lo.env = kv_fault_env_env(fe);
        lo.compaction = KV_COMPACTION_MANUAL;
        kv_store *s = test_open_store(store, &lo);
        kv_family_desc f[2] = {KV_FAMILY_DESC_INIT, KV_FAMILY_DESC_INIT};
        snprintf(f[0].name, sizeof f[0].name, "f");
        snprintf(f[1].name, sizeof f[1].name, "g");
        if (kv_table_create(s, "t", f, 2) != KV_OK || kv_namespace_create(s, "ns") != KV_OK ||
            kv_namespace_set_property(s, "ns", "k", "v1") != KV_OK) _exit(2);
        put_n(s, "t", "f", 0, 20);
        put_n(s, "t", "g", 0, 20);
        if (kv_flush(s, NULL) != KV_OK) _exit(3);
        if (c == DROP && kv_table_disable(s, "t") != KV_OK) _exit(4);
        kv_fault_env_set_space(fe, 0);
        if (apply_change(s, c) == KV_OK) _exit(5);
        _exit(0); /* no close: whatever the failed change set in motion is on disk */
    }
    int status;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    kv_store *s = test_open_store(store, NULL);
    if (c == DROP) CHECK_EQ(kv_table_enable(s, "t"), KV_OK);
    check_old_state(s, c, "after a crash");
    CHECK_EQ(kv_store_close(s), KV_OK);
    test_rmtree(dir);
    free(store);
    free(dir);
}

/* ---- appended edits (issue 9 item 2) ---- */

static long file_size(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static size_t count_str(const char *text, const char *what) {
    size_t n = 0;
    for (const char *p = text; (p = strstr(p, what)); p++) n++;
    return n;
}

/* A flush appends an edit instead of rewriting the manifest; the edits are
   folded into a new snapshot once they outgrow it, so the file stays
   small; every state in between opens with all cells. */
static void test_edits(void) {
    char *dir = test_tmpdir("manifest-edits");
    char *store = test_path_join(dir, "store");
    kv_local_options lo = KV_LOCAL_OPTIONS_INIT;
    lo.compaction = KV_COMPACTION_MANUAL;
    kv_store *s = test_open_store(store, &lo);
    kv_family_desc f = KV_FAMILY_DESC_INIT;
    snprintf(f.name, sizeof f.name, "f");
    REQUIRE(kv_table_create(s, "t", &f, 1) == KV_OK);
    char *mf = test_path_join(store, "MANIFEST");
    long after_create = file_size(mf);
    put_n(s, "t", "f", 0, 5);
    REQUIRE(kv_flush(s, NULL) == KV_OK);
    char *text = read_text(mf);
    CHECK_EQ(count_str(text, "\nedit "), 1);
    CHECK(file_size(mf) > after_create);
    free(text);
    long largest = 0;
    for (int i = 1; i < 400; i++) {
        put_n(s, "t", "f", i * 5, 5);
        REQUIRE(kv_flush(s, NULL) == KV_OK);
        long sz = file_size(mf);
        if (sz > largest) largest = sz;
        if (i % 100 == 0) REQUIRE(kv_compact(s, "t", true) == KV_OK);
    }
    /* 400 flushes of ~200 bytes each would be ~80 KB of edits plus ever
       longer file lists; the rewrite keeps it near its 64 KiB bound. */
    CHECK(largest < 200 * 1024);
    text = read_text(mf);
    CHECK(strncmp(text, "cellfs-manifest 3\n", 18) == 0);
    free(text);
    CHECK_EQ(kv_store_close(s), KV_OK);
    s = test_open_store(store, NULL);
    CHECK_EQ(count_rows(s, "t"), 2000);
    CHECK_EQ(kv_store_close(s), KV_OK);
    free(mf);
    test_rmtree(dir);
    free(store);
    free(dir);
}

/* The end of the manifest after a crash while appending an edit (cut
   short: never acknowledged) is dropped with a log line; a whole edit that
   is damaged is an error naming the offset. */
static void log_to_buf(void *ctx, int level, const char *msg) {
    (void)level;
    char *buf = ctx;
    size_t n = strlen(buf);
    snprintf(buf + n, 4096 - n, "%s\n", msg);
}

static void test_torn_edit(void) {
    char *dir = test_tmpdir("manifest-torn");
    char *store = test_path_join(dir, "store");
    kv_local_options lo = KV_LOCAL_OPTIONS_INIT;
    lo.compaction = KV_COMPACTION_MANUAL;
    kv_store *s = test_open_store(store, &lo);
    kv_family_desc f = KV_FAMILY_DESC_INIT;
    snprintf(f.name, sizeof f.name, "f");
    REQUIRE(kv_table_create(s, "t", &f, 1) == KV_OK);
    put_n(s, "t", "f", 0, 10);
    REQUIRE(kv_flush(s, NULL) == KV_OK);
    CHECK_EQ(kv_store_close(s), KV_OK);
    char *mf = test_path_join(store, "MANIFEST");
    char *good = read_text(mf);
    const char *last_edit = strstr(good, "\nedit ");
    REQUIRE(last_edit != NULL);
    size_t good_len = strlen(good);
    /* A torn append: half of another edit. */
    char *torn = malloc(good_len + 64);
    REQUIRE(torn != NULL);
    snprintf(torn, good_len + 64, "%sedit 99\nnext_file 1", good);
    write_raw(mf, torn, strlen(torn));
    char logbuf[4096] = "";
    kv_store_options o = KV_STORE_OPTIONS_INIT;
    o.log = log_to_buf;
    o.log_ctx = logbuf;
    s = NULL;
    char err[512] = "";
    CHECK_EQ(kv_store_open(&s, store, &o, err, sizeof err), KV_OK);
    if (s) {
        CHECK_EQ(count_rows(s, "t"), 10);
        CHECK_EQ(kv_store_close(s), KV_OK);
    }
    CHECK(strstr(logbuf, "incomplete edit") != NULL);
    CHECK(strstr(logbuf, mf) != NULL);
    /* A damaged whole edit: refused, naming the file. */
    char *bad = strdup(good);
    REQUIRE(bad != NULL);
    char *flip = strstr(bad + (last_edit - good), "next_id ");
    REQUIRE(flip != NULL);
    flip[8] = flip[8] == '9' ? '8' : '9';
    write_raw(mf, bad, good_len);
    expect_refused(store, mf, "edit checksum");
    write_raw(mf, good, good_len);
    s = test_open_store(store, NULL);
    CHECK_EQ(count_rows(s, "t"), 10);
    CHECK_EQ(kv_store_close(s), KV_OK);
    free(bad);
    free(torn);
    free(good);
    free(mf);
    test_rmtree(dir);
    free(store);
    free(dir);
}

/* A compaction whose manifest edit fails (the append, or its sync, after
   which the edit may be whole on disk): the call fails, reads are right,
   and after a reopen every cell is there and the store checks clean. */
static void test_failed_compaction_edit(const char *op, int nth) {
    char *dir = test_tmpdir("manifest-compact");
    char *store = test_path_join(dir, "store");
    kv_fault_env *fe = kv_fault_env_new(kv_env_posix());
    kv_local_options lo = KV_LOCAL_OPTIONS_INIT;
    lo.env = kv_fault_env_env(fe);
    lo.compaction = KV_COMPACTION_MANUAL;
    kv_store *s = test_open_store(store, &lo);
    kv_family_desc f = KV_FAMILY_DESC_INIT;
    snprintf(f.name, sizeof f.name, "f");
    REQUIRE(kv_table_create(s, "t", &f, 1) == KV_OK);
    for (int i = 0; i < 4; i++) {
        put_n(s, "t", "f", i * 10, 10);
        REQUIRE(kv_flush(s, NULL) == KV_OK);
    }
    /* The compaction's appends: the sorted file's, then the edit's; its
       syncs likewise. */
    kv_fault_env_fail_nth(fe, op, nth);
    kv_status st = kv_compact(s, "t", false);
    kv_fault_env_fail_nth(fe, op, 0);
    if (st == KV_OK) fprintf(stderr, "compaction with %s #%d failing succeeded\n", op, nth);
    CHECK(st != KV_OK);
    CHECK_EQ(count_rows(s, "t"), 40);
    CHECK_EQ(kv_store_close(s), KV_OK);
    kv_check_stats cs;
    CHECK_EQ(kv_store_check(&cs, store, NULL, NULL), KV_OK);
    CHECK_EQ(cs.damage, 0);
    s = test_open_store(store, NULL);
    CHECK_EQ(count_rows(s, "t"), 40);
    CHECK_EQ(kv_compact(s, "t", false), KV_OK);
    CHECK_EQ(count_rows(s, "t"), 40);
    CHECK_EQ(kv_store_close(s), KV_OK);
    CHECK_EQ(kv_store_check(&cs, store, NULL, NULL), KV_OK);
    CHECK_EQ(cs.warnings, 0); /* the orphan, if any, was removed */
    kv_fault_env_free(fe);
    test_rmtree(dir);
    free(store);
    free(dir);
}

int main(void) {
    signal(SIGPIPE, SIG_IGN);
    test_malformed();
    test_edits();
    test_torn_edit();
    test_failed_compaction_edit("sync", 2);
    test_failed_compaction_edit("append", 2);
    for (int c = DROP; c <= SET_ATTRIBUTES; c++) {
        test_failed_change((enum change)c, "space");
        test_failed_change((enum change)c, "rename");
        test_failed_change((enum change)c, "sync_dir"); /* after the rename: the new text is in place */
        test_failed_change_then_crash((enum change)c);
    }
    return test_finish("test_manifest");
}
