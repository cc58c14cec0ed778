/*
 * The contracts of kvcore.h that every caller depends on, through the
 * public header only: status codes outside errno's range with a name each,
 * the distinct end-of-scan status and failures that stick to a scan,
 * versioned options structs that refuse zeroed or foreign structs, and
 * read-only opens that share a store with each other (also across
 * processes), exclude writers, name the holders when refused and write
 * nothing into the store.
 */
#include "kvcore.h"
#include "testutil.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* A temporary directory and the store path inside it. */
typedef struct place { char *dir, *path; } place;

static place place_new(const char *tag) {
    place p;
    p.dir = test_tmpdir(tag);
    p.path = test_path_join(p.dir, "store");
    return p;
}

static void place_free(place *p) {
    test_rmtree(p->dir);
    free(p->path);
    free(p->dir);
}

static kv_store *open_rw(const char *path, const char *owner) {
    kv_store_options o = KV_STORE_OPTIONS_INIT;
    o.create_if_missing = true;
    o.owner = owner;
    kv_store *s = NULL;
    char err[512];
    kv_status st = kv_store_open(&s, path, &o, err, sizeof err);
    if (st != KV_OK) fprintf(stderr, "open %s: %s\n", path, err);
    REQUIRE(st == KV_OK);
    return s;
}

static kv_status open_ro(kv_store **s, const char *path, const char *owner, char *err,
                         size_t errlen) {
    kv_store_options o = KV_STORE_OPTIONS_INIT;
    o.read_only = true;
    o.owner = owner;
    return kv_store_open(s, path, &o, err, errlen);
}

static void make_table(kv_store *s) {
    kv_family_desc f = KV_FAMILY_DESC_INIT;
    snprintf(f.name, sizeof f.name, "f");
    f.versions = 3;
    REQUIRE(kv_table_create(s, "t", &f, 1) == KV_OK);
}

static void put(kv_store *s, const char *row, const char *v) {
    CHECK_EQ(kv_put(s, "t", row, strlen(row), "f", "q", 1, KV_LATEST_TIMESTAMP, v, strlen(v), NULL),
             KV_OK);
}

/* A new store at path with table t and the cell r/f:q = v1, closed. */
static void seed_store(const char *path) {
    kv_store *s = open_rw(path, "the writer");
    make_table(s);
    put(s, "r", "v1");
    CHECK_EQ(kv_store_close(s), KV_OK);
}

/* The newest value of row/f:q, or "" when absent. */
static const char *value_of(kv_store *s, const char *row) {
    static char buf[256];
    kv_result *r = NULL;
    buf[0] = 0;
    kv_status st = kv_get(&r, s, "t", row, strlen(row), NULL);
    CHECK_EQ(st, KV_OK);
    if (st == KV_OK && r->ncells > 0)
        snprintf(buf, sizeof buf, "%.*s", (int)r->cells[0].value_len, (const char *)r->cells[0].value);
    kv_result_free(r);
    return buf;
}

/* ---- status codes ---- */

static void test_status_codes(void) {
    const kv_status all[] = {KV_NOT_FOUND, KV_INVALID, KV_EXISTS, KV_CORRUPT, KV_IO,
                             KV_NO_SPACE, KV_LOCKED, KV_DISABLED, KV_ENABLED, KV_NOT_EMPTY,
                             KV_NO_FAMILY, KV_TOO_LARGE, KV_NOT_COUNTER, KV_READ_ONLY,
                             KV_NO_MEMORY, KV_END, KV_NOT_SUPPORTED, KV_UNAVAILABLE, KV_TIMEOUT};
    size_t n = sizeof all / sizeof all[0];
    const char *unknown = kv_strerror(-999999);
    CHECK(strcmp(unknown, "unknown status") == 0);
    CHECK(strcmp(kv_strerror(KV_OK), unknown) != 0);
    for (size_t i = 0; i < n; i++) {
        /* Never confusable with a negated errno (errno values stay < 1000). */
        CHECK((int)all[i] <= -1000);
        CHECK(strcmp(kv_strerror(all[i]), unknown) != 0);
        for (size_t j = 0; j < i; j++) {
            CHECK(all[i] != all[j]);
            CHECK(strcmp(kv_strerror(all[i]), kv_strerror(all[j])) != 0);
        }
    }
    /* An errno-looking value is not a kvcore code. */
    CHECK(strcmp(kv_strerror(-ENOENT), unknown) == 0);
    CHECK(strcmp(kv_strerror(-EIO), unknown) == 0);
}

/* ---- options versions ---- */

static void test_versions(void) {
    place pl = place_new("contracts-ver");
    const char *path = pl.path;
    kv_store *s = NULL;
    char err[512] = "";

    /* A zeroed options struct is refused before anything is created. */
    kv_store_options zero;
    memset(&zero, 0, sizeof zero);
    zero.create_if_missing = true;
    CHECK_EQ(kv_store_open(&s, path, &zero, err, sizeof err), KV_INVALID);
    CHECK(s == NULL);
    CHECK(strstr(err, "KV_STORE_OPTIONS_INIT") != NULL);
    struct stat sb;
    CHECK(stat(path, &sb) != 0);
    kv_store_options future = KV_STORE_OPTIONS_INIT;
    future.version = KV_STORE_OPTIONS_VERSION + 1;
    future.create_if_missing = true;
    CHECK_EQ(kv_store_open(&s, path, &future, err, sizeof err), KV_INVALID);

    s = open_rw(path, NULL);
    make_table(s);
    put(s, "r", "v");

    /* Families: a descriptor that did not start from KV_FAMILY_DESC_INIT. */
    kv_family_desc fz;
    memset(&fz, 0, sizeof fz);
    snprintf(fz.name, sizeof fz.name, "g");
    fz.versions = 1;
    fz.ttl_seconds = KV_FOREVER;
    fz.blocksize = 65536;
    CHECK_EQ(kv_table_create(s, "t2", &fz, 1), KV_INVALID);
    CHECK(strstr(kv_store_errmsg(s), "KV_FAMILY_DESC_INIT") != NULL);
    CHECK_EQ(kv_table_exists(s, "t2"), KV_NOT_FOUND);
    CHECK_EQ(kv_table_alter_family(s, "t", &fz), KV_INVALID);
    fz.version = KV_FAMILY_DESC_VERSION;
    CHECK_EQ(kv_table_create(s, "t2", &fz, 1), KV_OK);

    /* Reads. */
    kv_read_options rz;
    memset(&rz, 0, sizeof rz);
    kv_result *r = NULL;
    CHECK_EQ(kv_get(&r, s, "t", "r", 1, &rz), KV_INVALID);
    CHECK(r == NULL);
    CHECK(strstr(kv_store_errmsg(s), "kv_read_options") != NULL);
    kv_scan *sc = NULL;
    CHECK_EQ(kv_scan_open(&sc, s, "t", &rz), KV_INVALID);
    CHECK(sc == NULL);

    /* Writes, through every write call; nothing is written. */
    kv_write_options wz;
    memset(&wz, 0, sizeof wz);
    CHECK_EQ(kv_put(s, "t", "r", 1, "f", "q", 1, KV_LATEST_TIMESTAMP, "w", 1, &wz), KV_INVALID);
    kv_mutation *m;
    REQUIRE(kv_mutation_new(&m, "r", 1) == KV_OK);
    CHECK_EQ(kv_mutation_put(m, "f", "q", 1, KV_LATEST_TIMESTAMP, "w", 1), KV_OK);
    CHECK_EQ(kv_mutate(s, "t", m, &wz), KV_INVALID);
    kv_status st1 = KV_OK;
    CHECK_EQ(kv_mutate_batch(s, "t", &m, 1, &st1, &wz), KV_INVALID);
    int64_t n = 0;
    CHECK_EQ(kv_increment(&n, s, "t", "c", 1, "f", "n", 1, 1, &wz), KV_INVALID);
    void *av = NULL;
    CHECK_EQ(kv_append(&av, NULL, s, "t", "r", 1, "f", "a", 1, "x", 1, &wz), KV_INVALID);
    CHECK(av == NULL);
    bool applied = true;
    CHECK_EQ(kv_check_and_mutate(&applied, s, "t", "r", 1, "f", "q", 1, KV_CMP_EQUAL, "v", 1, m,
                                 &wz), KV_INVALID);
    CHECK(!applied);
    kv_mutation_free(m);
    CHECK(strcmp(value_of(s, "r"), "v") == 0);
    kv_result *cr = NULL;
    CHECK_EQ(kv_get(&cr, s, "t", "c", 1, NULL), KV_OK);
    CHECK_EQ(cr ? cr->ncells : 99, 0);
    kv_result_free(cr);

    /* The macros themselves are accepted everywhere. */
    kv_write_options w = KV_WRITE_OPTIONS_INIT;
    CHECK_EQ(kv_put(s, "t", "r", 1, "f", "q", 1, KV_LATEST_TIMESTAMP, "w", 1, &w), KV_OK);
    kv_read_options ro = KV_READ_OPTIONS_INIT;
    CHECK_EQ(kv_get(&r, s, "t", "r", 1, &ro), KV_OK);
    kv_result_free(r);
    CHECK_EQ(kv_store_close(s), KV_OK);
    place_free(&pl);
}

/* ---- end of scan ---- */

static void test_scan_end(void) {
    place pl = place_new("contracts-end");
    const char *path = pl.path;
    kv_store *s = open_rw(path, NULL);
    make_table(s);
    const kv_result *r;
    kv_scan *sc = NULL;

    /* An empty table ends at once, and stays ended. */
    REQUIRE(kv_scan_open(&sc, s, "t", NULL) == KV_OK);
    CHECK_EQ(kv_scan_next(&r, sc), KV_END);
    CHECK(r == NULL);
    CHECK_EQ(kv_scan_next(&r, sc), KV_END);
    kv_scan_close(sc);

    put(s, "a", "1");
    put(s, "b", "2");
    put(s, "c", "3");
    /* A limit ends the scan with KV_END too. */
    kv_read_options o = KV_READ_OPTIONS_INIT;
    o.limit = 2;
    REQUIRE(kv_scan_open(&sc, s, "t", &o) == KV_OK);
    CHECK_EQ(kv_scan_next(&r, sc), KV_OK);
    CHECK_EQ(kv_scan_next(&r, sc), KV_OK);
    CHECK_EQ(kv_scan_next(&r, sc), KV_END);
    kv_scan_close(sc);

    /* KV_NOT_FOUND means no such table, never the end of a scan. */
    sc = (kv_scan *)&o;
    CHECK_EQ(kv_scan_open(&sc, s, "nosuch", NULL), KV_NOT_FOUND);
    CHECK(sc == NULL);
    CHECK_EQ(kv_store_close(s), KV_OK);
    place_free(&pl);
}

/* ---- read-only opens ---- */

/* Names, sizes and mtimes of every file of a store but LOCK, as one string. */
static char *store_files(const char *path) {
    static char buf[8192];
    size_t n = 0;
    buf[0] = 0;
    DIR *d = opendir(path);
    REQUIRE(d != NULL);
    struct dirent *e;
    char names[64][256];
    int count = 0;
    while ((e = readdir(d)) && count < 64) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, "LOCK") == 0) continue;
        snprintf(names[count++], 256, "%s", e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)count, sizeof names[0], (int (*)(const void *, const void *))strcmp);
    for (int i = 0; i < count; i++) {
        char *p = test_path_join(path, names[i]);
        struct stat sb;
        CHECK(stat(p, &sb) == 0);
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s:%lld:%lld.%09ld ", names[i],
                              (long long)sb.st_size, (long long)sb.st_mtim.tv_sec,
                              sb.st_mtim.tv_nsec);
        free(p);
    }
    return buf;
}

static void test_read_only_shares(void) {
    place pl = place_new("contracts-ro");
    const char *path = pl.path;
    seed_store(path);

    /* Two read-only opens share the store and both read it. */
    kv_store *a = NULL, *b = NULL, *w = NULL;
    char err[1024] = "";
    CHECK_EQ(open_ro(&a, path, "reader A", err, sizeof err), KV_OK);
    CHECK_EQ(open_ro(&b, path, "reader B", err, sizeof err), KV_OK);
    REQUIRE(a && b);
    CHECK(strcmp(value_of(a, "r"), "v1") == 0);
    CHECK(strcmp(value_of(b, "r"), "v1") == 0);
    /* Every change is refused on a read-only store. */
    CHECK_EQ(kv_put(a, "t", "r", 1, "f", "q", 1, KV_LATEST_TIMESTAMP, "x", 1, NULL), KV_READ_ONLY);
    CHECK_EQ(kv_flush(a, NULL), KV_READ_ONLY);
    CHECK_EQ(kv_compact(a, NULL, true), KV_READ_ONLY);
    CHECK_EQ(kv_namespace_create(a, "ns"), KV_READ_ONLY);
    CHECK_EQ(kv_table_disable(a, "t"), KV_READ_ONLY);

    /* A writer is refused, and told who reads the store. */
    kv_store_options wo = KV_STORE_OPTIONS_INIT;
    CHECK_EQ(kv_store_open(&w, path, &wo, err, sizeof err), KV_LOCKED);
    CHECK(w == NULL);
    char pid[64];
    snprintf(pid, sizeof pid, "pid %ld", (long)getpid());
    CHECK(strstr(err, pid) != NULL);
    CHECK(strstr(err, "reader A") != NULL);
    CHECK(strstr(err, "reader B") != NULL);
    CHECK(strstr(err, "read-only") != NULL);
    if (!strstr(err, "reader B")) fprintf(stderr, "message: %s\n", err);
    CHECK_EQ(kv_store_close(a), KV_OK);
    /* Still refused while B reads; the message names B only. */
    CHECK_EQ(kv_store_open(&w, path, &wo, err, sizeof err), KV_LOCKED);
    CHECK(strstr(err, "reader B") != NULL);
    CHECK_EQ(kv_store_close(b), KV_OK);

    /* Beside a writer, a read-only open is refused and names the writer. */
    w = open_rw(path, "the writer");
    CHECK_EQ(open_ro(&a, path, "reader A", err, sizeof err), KV_LOCKED);
    CHECK(a == NULL);
    CHECK(strstr(err, pid) != NULL);
    CHECK(strstr(err, "the writer") != NULL);
    CHECK(strstr(err, "read-only") == NULL);
    put(w, "r", "v2");
    CHECK_EQ(kv_store_close(w), KV_OK);
    place_free(&pl);
}

/* Another process holds the store read-only: a read-only open here shares
   it, a writer here is refused with the other process's pid. */
static void test_read_only_across_processes(void) {
    place pl = place_new("contracts-ro2");
    const char *path = pl.path;
    seed_store(path);

    int ready[2], done[2];
    REQUIRE(pipe(ready) == 0 && pipe(done) == 0);
    pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        close(ready[0]);
        close(done[1]);
        kv_store *cs = NULL;
        char cerr[512];
        int ok = open_ro(&cs, path, "child reader", cerr, sizeof cerr) == KV_OK;
        char c = ok ? 'y' : 'n';
        if (write(ready[1], &c, 1) != 1) _exit(2);
        if (read(done[0], &c, 1) < 0) _exit(2);
        kv_store_close(cs);
        _exit(ok ? 0 : 1);
    }
    close(ready[1]);
    close(done[0]);
    char c = 0;
    CHECK_EQ(read(ready[0], &c, 1), 1);
    CHECK_EQ(c, 'y');

    kv_store *r = NULL, *w = NULL;
    char err[1024] = "";
    CHECK_EQ(open_ro(&r, path, "parent reader", err, sizeof err), KV_OK);
    if (r) {
        CHECK(strcmp(value_of(r, "r"), "v1") == 0);
        CHECK_EQ(kv_store_close(r), KV_OK);
    }
    kv_store_options wo = KV_STORE_OPTIONS_INIT;
    CHECK_EQ(kv_store_open(&w, path, &wo, err, sizeof err), KV_LOCKED);
    char pid[64];
    snprintf(pid, sizeof pid, "pid %ld (child reader)", (long)child);
    CHECK(strstr(err, pid) != NULL);
    if (!strstr(err, pid)) fprintf(stderr, "message: %s\n", err);

    CHECK_EQ(write(done[1], "x", 1), 1);
    int status = 0;
    CHECK_EQ(waitpid(child, &status, 0), child);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    close(ready[0]);
    close(done[1]);
    /* Released: the writer gets in. */
    w = open_rw(path, NULL);
    CHECK_EQ(kv_store_close(w), KV_OK);
    place_free(&pl);
}

/* A read-only open of a store whose writer died with cells only in the log
   sees them, and leaves every file as it was: it replays nothing to disk
   and removes no log. */
static void test_read_only_writes_nothing(void) {
    place pl = place_new("contracts-ro3");
    const char *path = pl.path;
    const char *dir = pl.dir;
    kv_store *s = open_rw(path, NULL);
    make_table(s);
    put(s, "flushed", "1");
    CHECK_EQ(kv_flush(s, NULL), KV_OK);
    CHECK_EQ(kv_store_close(s), KV_OK);
    /* A writer that dies without closing: its last put is in the log only. */
    pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        kv_store *cs = open_rw(path, NULL);
        put(cs, "logged", "2");
        _exit(test_checks_failed ? 1 : 0);
    }
    int status = 0;
    CHECK_EQ(waitpid(child, &status, 0), child);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);

    char before[8192];
    snprintf(before, sizeof before, "%s", store_files(path));
    CHECK(strstr(before, ".log") != NULL);
    kv_store *r = NULL;
    char err[512] = "";
    CHECK_EQ(open_ro(&r, path, NULL, err, sizeof err), KV_OK);
    if (r) {
        CHECK(strcmp(value_of(r, "flushed"), "1") == 0);
        CHECK(strcmp(value_of(r, "logged"), "2") == 0);
        CHECK_EQ(kv_store_close(r), KV_OK);
    }
    CHECK(strcmp(store_files(path), before) == 0);
    if (strcmp(store_files(path), before) != 0)
        fprintf(stderr, "before: %s\nafter:  %s\n", before, store_files(path));

    /* A read-only open never creates a store: not in a missing directory,
       not in an empty one (which gets no lock file either). */
    char *missing = test_path_join(dir, "missing");
    kv_store_options o = KV_STORE_OPTIONS_INIT;
    o.read_only = true;
    o.create_if_missing = true;
    CHECK_EQ(kv_store_open(&r, missing, &o, err, sizeof err), KV_NOT_FOUND);
    struct stat sb;
    CHECK(stat(missing, &sb) != 0);
    CHECK_EQ(mkdir(missing, 0755), 0);
    CHECK_EQ(kv_store_open(&r, missing, &o, err, sizeof err), KV_NOT_FOUND);
    char *lock = test_path_join(missing, "LOCK");
    CHECK(stat(lock, &sb) != 0);
    free(lock);
    free(missing);

    /* The writer recovers the logged cell afterwards. */
    s = open_rw(path, NULL);
    CHECK(strcmp(value_of(s, "logged"), "2") == 0);
    CHECK_EQ(kv_store_close(s), KV_OK);
    place_free(&pl);
}

int main(void) {
    test_status_codes();
    test_versions();
    test_scan_end();
    test_read_only_shares();
    test_read_only_across_processes();
    test_read_only_writes_nothing();
    return test_finish("test_contracts");
}
