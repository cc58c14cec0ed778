/*
 * fs_work.h: a PostMark-like workload for cellbench --fs (after Katcher's
 * PostMark, the mail-server benchmark): a pool of small files of 500 to
 * 10,000 bytes in a few directories, then transactions, each one create or
 * delete of a file and one read or append of another, with equal odds,
 * from one seeded generator so that every target sees the same sequence.
 * Only the transactions are timed. On every target a directory is DIR/cf
 * (on cellfs a row and its family). Called by fsbench.c; calls libc.
 */
#include "fs_work.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "child.h"
#include "util.h"

#define PM_MIN_SIZE 500
#define PM_MAX_SIZE 10000
/* Appends stop growing a file here: every file stays a small cell. */
#define PM_FILE_CAP (256u << 10)

typedef struct pm_file {
    uint64_t id;
    size_t size;
} pm_file;

typedef struct pm_state {
    const fs_job *job;
    const fs_target *t;
    bench_rng rng;
    pm_file *files;          /* the files that exist */
    size_t n;
    uint64_t next_id;
    char *buf;               /* PM_FILE_CAP + PM_MAX_SIZE */
    uint64_t created, deleted, read, appended;
} pm_state;

static void pm_path(const pm_state *s, char *out, size_t len, uint64_t id) {
    bench_fmt(out, len, "%s/d%03" PRIu64 "/cf/p%08" PRIu64, s->t->postmark,
              id % s->job->o->pm_dirs, id);
}

static size_t pm_size(pm_state *s) {
    return PM_MIN_SIZE + (size_t)bench_rng_uniform(&s->rng, PM_MAX_SIZE - PM_MIN_SIZE + 1);
}

static int pm_create(pm_state *s, fs_result *r) {
    pm_file f = {s->next_id++, pm_size(s)};
    char path[PATH_MAX + 64];
    pm_path(s, path, sizeof path, f.id);
    fs_content(s->buf, f.size, f.id);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return fs_fail(r, "create", path);
    if (child_write_all(fd, s->buf, f.size) != 0) {
        close(fd);
        return fs_fail(r, "write", path);
    }
    if (close(fd) != 0)
        return fs_fail(r, "close", path);
    s->files[s->n++] = f;
    s->created++;
    return 0;
}

static int pm_delete(pm_state *s, fs_result *r) {
    size_t k = (size_t)bench_rng_uniform(&s->rng, s->n);
    char path[PATH_MAX + 64];
    pm_path(s, path, sizeof path, s->files[k].id);
    if (unlink(path) != 0)
        return fs_fail(r, "unlink", path);
    s->files[k] = s->files[--s->n];
    s->deleted++;
    return 0;
}

static int pm_read(pm_state *s, fs_result *r) {
    pm_file *f = &s->files[bench_rng_uniform(&s->rng, s->n)];
    char path[PATH_MAX + 64];
    pm_path(s, path, sizeof path, f->id);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return fs_fail(r, "open", path);
    size_t got = 0;
    ssize_t n;
    while ((n = read(fd, s->buf + got, PM_FILE_CAP + PM_MAX_SIZE - got)) > 0)
        got += (size_t)n;
    int e = errno;
    close(fd);
    errno = e;
    if (n < 0)
        return fs_fail(r, "read", path);
    if (got != f->size) {
        r->failed = 1;
        bench_fmt(r->err, sizeof r->err, "read %s: %zu bytes, expected %zu", path, got, f->size);
        return -1;
    }
    s->read++;
    return 0;
}

static int pm_append(pm_state *s, fs_result *r) {
    pm_file *f = &s->files[bench_rng_uniform(&s->rng, s->n)];
    size_t len = pm_size(s);
    if (f->size + len > PM_FILE_CAP)
        return pm_read(s, r);
    char path[PATH_MAX + 64];
    pm_path(s, path, sizeof path, f->id);
    fs_content(s->buf, len, f->id + f->size);
    int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd < 0)
        return fs_fail(r, "open O_APPEND", path);
    if (child_write_all(fd, s->buf, len) != 0) {
        close(fd);
        return fs_fail(r, "append", path);
    }
    if (close(fd) != 0)
        return fs_fail(r, "close", path);
    f->size += len;
    s->appended++;
    return 0;
}

static int make_dirs(const pm_state *s, fs_result *r) {
    if (mkdir(s->t->postmark, 0755) != 0)
        return fs_fail(r, "mkdir", s->t->postmark);
    char path[PATH_MAX + 64];
    for (uint64_t d = 0; d < s->job->o->pm_dirs; d++) {
        bench_fmt(path, sizeof path, "%s/d%03" PRIu64, s->t->postmark, d);
        if (mkdir(path, 0755) != 0)
            return fs_fail(r, "mkdir", path);
        bench_fmt(path, sizeof path, "%s/d%03" PRIu64 "/cf", s->t->postmark, d);
        /* A cellfs row may list its families already. */
        if (mkdir(path, 0755) != 0 && errno != EEXIST)
            return fs_fail(r, "mkdir", path);
    }
    return 0;
}

int fs_postmark_run(const fs_job *job, const fs_target *t, fs_result *r) {
    const bench_options *o = job->o;
    pm_state s;
    memset(&s, 0, sizeof s);
    s.job = job;
    s.t = t;
    bench_rng_seed(&s.rng, o->wl.seed);
    /* Each transaction creates at most one file. */
    s.files = malloc((o->pm_files + o->pm_transactions) * sizeof s.files[0]);
    s.buf = malloc(PM_FILE_CAP + PM_MAX_SIZE);
    int rc = -1;
    if (s.files == NULL || s.buf == NULL) {
        r->failed = 1;
        bench_fmt(r->err, sizeof r->err, "out of memory");
        goto out;
    }
    double t0 = bench_now();
    if (make_dirs(&s, r) != 0)
        goto out;
    for (uint64_t i = 0; i < o->pm_files; i++)
        if (pm_create(&s, r) != 0)
            goto out;
    double pool = bench_now() - t0;
    s.created = 0;
    t0 = bench_now();
    for (uint64_t i = 0; i < o->pm_transactions; i++) {
        bool create = s.n == 0 || bench_rng_uniform(&s.rng, 2) == 0;
        if ((create ? pm_create(&s, r) : pm_delete(&s, r)) != 0)
            goto out;
        if (s.n == 0 && pm_create(&s, r) != 0)
            goto out;
        bool do_read = bench_rng_uniform(&s.rng, 2) == 0;
        if ((do_read ? pm_read(&s, r) : pm_append(&s, r)) != 0)
            goto out;
        r->ops++;
    }
    r->seconds = bench_now() - t0;
    bench_fmt(r->note, sizeof r->note,
              "(%" PRIu64 " created, %" PRIu64 " deleted, %" PRIu64 " read, %" PRIu64
              " appended; pool of %" PRIu64 " in %.2f s)",
              s.created, s.deleted, s.read, s.appended, o->pm_files, pool);
    rc = 0;
out:
    free(s.files);
    free(s.buf);
    return rc;
}
