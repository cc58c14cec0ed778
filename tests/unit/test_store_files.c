/**
 * @file test_store_files.c
 * Security of a store's files through the public header: every file a
 * store creates is private to its owner (0600, the directory 0700,
 * whatever the umask), and a second opener in another process is refused
 * with a message naming the holder's pid and owner text.
 */
#include "kvcore.h"
#include "testutil.h"

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static kv_store *open_store(const char *path, const char *owner) {
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

static void test_private_files(void) {
    mode_t old = umask(022);
    char *dir = test_tmpdir("files-mode");
    char *path = test_path_join(dir, "store");
    kv_store *s = open_store(path, NULL);
    kv_family_desc f = KV_FAMILY_DESC_INIT;
    snprintf(f.name, sizeof f.name, "f");
    REQUIRE(kv_table_create(s, "t", &f, 1) == KV_OK);
    REQUIRE(kv_put(s, "t", "r", 1, "f", "q", 1, 1, "v", 1, NULL) == KV_OK);
    REQUIRE(kv_flush(s, NULL) == KV_OK);
    REQUIRE(kv_put(s, "t", "s", 1, "f", "q", 1, 1, "v", 1, NULL) == KV_OK);
    /* Closed first: the background flush removes old logs as it goes. */
    CHECK_EQ(kv_store_close(s), KV_OK);
    struct stat st;
    REQUIRE(stat(path, &st) == 0);
    CHECK_EQ(st.st_mode & 0777, 0700);
    DIR *d = opendir(path);
    REQUIRE(d != NULL);
    int files = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char *p = test_path_join(path, e->d_name);
        REQUIRE(stat(p, &st) == 0);
        if ((st.st_mode & 0777) != 0600) fprintf(stderr, "%s has mode %o\n", e->d_name, st.st_mode & 0777);
        CHECK_EQ(st.st_mode & 0777, 0600);
        files++;
        free(p);
    }
    closedir(d);
    CHECK(files >= 4); /* LOCK, MANIFEST, a log, a sorted file */
    test_rmtree(dir);
    free(path);
    free(dir);
    umask(old);
}

static void test_second_opener_other_process(void) {
    char *dir = test_tmpdir("files-lock");
    char *path = test_path_join(dir, "store");
    int ready[2], done[2];
    REQUIRE(pipe(ready) == 0 && pipe(done) == 0);
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        kv_store *s = open_store(path, "the holder in a test");
        char c = 1;
        if (write(ready[1], &c, 1) != 1) _exit(2);
        if (read(done[0], &c, 1) != 1) _exit(3); /* hold until told */
        kv_store_close(s);
        _exit(0);
    }
    char c;
    REQUIRE(read(ready[0], &c, 1) == 1);
    kv_store_options o = KV_STORE_OPTIONS_INIT;
    kv_store *s = NULL;
    char err[512] = "";
    CHECK_EQ(kv_store_open(&s, path, &o, err, sizeof err), KV_LOCKED);
    char want[32];
    snprintf(want, sizeof want, "%ld", (long)pid);
    if (!strstr(err, want)) fprintf(stderr, "message lacks the pid %s: %s\n", want, err);
    CHECK(strstr(err, want) != NULL);
    CHECK(strstr(err, "the holder in a test") != NULL);
    /* A read-only opener is refused too while a writer holds it. */
    o.read_only = true;
    err[0] = 0;
    CHECK_EQ(kv_store_open(&s, path, &o, err, sizeof err), KV_LOCKED);
    CHECK(strstr(err, want) != NULL);
    REQUIRE(write(done[1], &c, 1) == 1);
    int status;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    /* Released: the next opener gets it. */
    o.read_only = false;
    CHECK_EQ(kv_store_open(&s, path, &o, err, sizeof err), KV_OK);
    if (s) CHECK_EQ(kv_store_close(s), KV_OK);
    test_rmtree(dir);
    free(path);
    free(dir);
}

/* A writer is refused while a read-only opener in another process holds
   the store, naming that holder. */
static void test_writer_refused_by_reader(void) {
    char *dir = test_tmpdir("files-rlock");
    char *path = test_path_join(dir, "store");
    kv_store *s = open_store(path, NULL);
    REQUIRE(kv_store_close(s) == KV_OK);
    int ready[2], done[2];
    REQUIRE(pipe(ready) == 0 && pipe(done) == 0);
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        kv_store_options o = KV_STORE_OPTIONS_INIT;
        o.read_only = true;
        o.owner = "a reader in a test";
        kv_store *r = NULL;
        if (kv_store_open(&r, path, &o, NULL, 0) != KV_OK) _exit(2);
        char c = 1;
        if (write(ready[1], &c, 1) != 1) _exit(3);
        if (read(done[0], &c, 1) != 1) _exit(4);
        kv_store_close(r);
        _exit(0);
    }
    char c;
    REQUIRE(read(ready[0], &c, 1) == 1);
    kv_store_options o = KV_STORE_OPTIONS_INIT;
    char err[512] = "";
    s = NULL;
    CHECK_EQ(kv_store_open(&s, path, &o, err, sizeof err), KV_LOCKED);
    char want[32];
    snprintf(want, sizeof want, "%ld", (long)pid);
    if (!strstr(err, want)) fprintf(stderr, "message lacks the reader's pid %s: %s\n", want, err);
    CHECK(strstr(err, want) != NULL);
    CHECK(strstr(err, "a reader in a test") != NULL);
    REQUIRE(write(done[1], &c, 1) == 1);
    int status;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    test_rmtree(dir);
    free(path);
    free(dir);
}

int main(void) {
    signal(SIGPIPE, SIG_IGN);
    test_private_files();
    test_second_opener_other_process();
    test_writer_refused_by_reader();
    return test_finish("test_store_files");
}
