/*
 * fs_work.h: the small-file phases of cellbench --fs, on one directory of
 * N files: create (in name order), then stat, read, overwrite and unlink
 * (in a random order shared by every target). Each checks what it did:
 * sizes, contents, the overwritten contents (read back untimed) and an
 * empty directory after unlink. Called by fsbench.c's worker; calls libc.
 */
#include "fs_work.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "child.h"
#include "util.h"

static void file_name(char *buf, size_t len, const char *dir, uint64_t i) {
    bench_fmt(buf, len, "%s/f%08" PRIu64, dir, i);
}

/* Writes @p size bytes of content @p n into @p path (O_TRUNC, created
 * when @p create). */
static int write_file(const char *path, char *buf, size_t size, uint64_t n, bool create,
                      fs_result *r) {
    fs_content(buf, size, n);
    int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | (create ? O_CREAT : 0), 0644);
    if (fd < 0)
        return fs_fail(r, create ? "create" : "open", path);
    if (child_write_all(fd, buf, size) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return fs_fail(r, "write", path);
    }
    /* On cellfs the close commits the cell: its result is the write's. */
    if (close(fd) != 0)
        return fs_fail(r, "close", path);
    return 0;
}

/* Reads @p path whole and compares it with content @p n. */
static int check_file(const char *path, char *buf, char *want, size_t size, uint64_t n,
                      fs_result *r) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return fs_fail(r, "open", path);
    size_t got = 0;
    for (;;) {
        /* One byte of room past the size notices a file too long. */
        ssize_t k = read(fd, buf + got, size + 1 - got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            int e = errno;
            close(fd);
            errno = e;
            return fs_fail(r, "read", path);
        }
        if (k == 0 || (got += (size_t)k) > size)
            break;
    }
    close(fd);
    fs_content(want, size, n);
    if (got != size || memcmp(buf, want, size) != 0) {
        r->failed = 1;
        bench_fmt(r->err, sizeof r->err, "read %s: wrong content (%zu bytes)", path, got);
        return -1;
    }
    return 0;
}

static int count_entries(const char *dir, uint64_t *n, fs_result *r) {
    DIR *d = opendir(dir);
    if (d == NULL)
        return fs_fail(r, "opendir", dir);
    *n = 0;
    struct dirent *e;
    errno = 0;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            (*n)++;
    int err = errno;
    closedir(d);
    errno = err;
    return err != 0 ? fs_fail(r, "readdir", dir) : 0;
}

int fs_small_run(const fs_job *job, const fs_target *t, fs_workload w, const uint64_t *order,
                 char *buf, char *want, fs_result *r) {
    /* restat and reread time a second pass over files just stat'ed or
       read (what a build or a second rsync does): the first is untimed. */
    if (w == FW_RESTAT || w == FW_REREAD) {
        fs_workload first = w == FW_RESTAT ? FW_STAT : FW_READ;
        if (fs_small_run(job, t, first, order, buf, want, r) != 0)
            return -1;
        memset(r, 0, sizeof *r);
        w = first;
    }
    const bench_options *o = job->o;
    size_t size = (size_t)o->file_size;
    char path[PATH_MAX + 32];
    /* The overwritten contents differ from the created ones. */
    uint64_t second = o->files;
    double t0 = bench_now();
    for (uint64_t k = 0; k < o->files; k++) {
        uint64_t i = w == FW_CREATE ? k : order[k];
        file_name(path, sizeof path, t->files, i);
        struct stat st;
        int rc = 0;
        switch (w) {
        case FW_CREATE: rc = write_file(path, buf, size, i, true, r); break;
        case FW_OVERWRITE: rc = write_file(path, buf, size, second + i, false, r); break;
        case FW_READ: rc = check_file(path, buf, want, size, i, r); break;
        case FW_UNLINK: rc = unlink(path) == 0 ? 0 : fs_fail(r, "unlink", path); break;
        case FW_STAT:
            if (stat(path, &st) != 0) {
                rc = fs_fail(r, "stat", path);
            } else if ((uint64_t)st.st_size != o->file_size) {
                r->failed = 1;
                bench_fmt(r->err, sizeof r->err, "stat %s: size %lld, expected %" PRIu64, path,
                          (long long)st.st_size, o->file_size);
                rc = -1;
            }
            break;
        default: break;
        }
        if (rc != 0)
            return -1;
        r->ops++;
    }
    r->seconds = bench_now() - t0;
    /* Untimed: what the phase did is there. */
    if (w == FW_OVERWRITE) {
        for (uint64_t i = 0; i < o->files; i++) {
            file_name(path, sizeof path, t->files, i);
            if (check_file(path, buf, want, size, second + i, r) != 0)
                return -1;
        }
    } else if (w == FW_UNLINK) {
        uint64_t left = 0;
        if (count_entries(t->files, &left, r) != 0)
            return -1;
        if (left != 0) {
            r->failed = 1;
            bench_fmt(r->err, sizeof r->err, "%" PRIu64 " files still listed in %s after unlink",
                      left, t->files);
            return -1;
        }
    }
    return 0;
}
