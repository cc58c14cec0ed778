/*
 * fs_work.h: the whole-table workloads of cellbench --fs, run with the real
 * tools a user runs: `ls -l` of a table of N rows, `find TABLE -type f`
 * over its N cells, `rsync -a` of it out to a native directory and back
 * into an empty table. Each checks the tool's exit status and what it did
 * (lines printed, sample cells copied). Also fills the table before the
 * run: a native directory file by file, a cellfs store through libkvcore
 * (kvcore.h) before it is mounted. Called by fsbench.c; runs ls, find and
 * rsync from PATH.
 */
#include "fs_work.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "kvcore.h"
#include "util.h"

#define FILL_BATCH 1000

static void row_name(char *buf, size_t len, uint64_t i) { bench_fmt(buf, len, "r%08" PRIu64, i); }

int fs_tree_fill_dir(const char *dir, uint64_t rows, size_t size, char *err, size_t errlen) {
    char *buf = malloc(size + 1);
    if (buf == NULL || bench_mkdirs(dir) != 0) {
        bench_fmt(err, errlen, "cannot make %s: %s", dir, strerror(errno));
        free(buf);
        return -1;
    }
    char path[PATH_MAX + 64], row[24];
    for (uint64_t i = 0; i < rows; i++) {
        row_name(row, sizeof row, i);
        bench_fmt(path, sizeof path, "%s/%s", dir, row);
        int rc = mkdir(path, 0755);
        bench_fmt(path, sizeof path, "%s/%s/cf", dir, row);
        rc = rc == 0 ? mkdir(path, 0755) : rc;
        bench_fmt(path, sizeof path, "%s/%s/cf/q", dir, row);
        int fd = rc == 0 ? open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : -1;
        fs_content(buf, size, i);
        if (fd < 0 || child_write_all(fd, buf, size) != 0 || close(fd) != 0) {
            bench_fmt(err, errlen, "cannot fill %s: %s", path, strerror(errno));
            free(buf);
            return -1;
        }
    }
    free(buf);
    return 0;
}

int fs_tree_fill_store(const char *store, const char *table, uint64_t rows, size_t size,
                       char *err, size_t errlen) {
    kv_store_options so = KV_STORE_OPTIONS_INIT;
    so.create_if_missing = true;
    kv_store *s = NULL;
    char msg[256] = "";
    kv_status st = kv_store_open(&s, store, &so, msg, sizeof msg);
    if (st != KV_OK) {
        bench_fmt(err, errlen, "open %s: %s %s", store, kv_strerror(st), msg);
        return -1;
    }
    kv_family_desc f = KV_FAMILY_DESC_INIT;
    snprintf(f.name, sizeof f.name, "cf");
    st = kv_table_create(s, table, &f, 1);
    char *buf = malloc(size + 1);
    kv_mutation *ms[FILL_BATCH];
    kv_write_options w = KV_WRITE_OPTIONS_INIT;
    w.durability = KV_ASYNC_WAL;   /* the close below flushes everything */
    for (uint64_t i = 0; i < rows && st == KV_OK && buf != NULL; i += FILL_BATCH) {
        size_t n = 0;
        for (uint64_t j = i; j < rows && j < i + FILL_BATCH && st == KV_OK; j++) {
            char row[24];
            row_name(row, sizeof row, j);
            fs_content(buf, size, j);
            st = kv_mutation_new(&ms[n], row, strlen(row));
            if (st != KV_OK)
                break;
            n++;
            st = kv_mutation_put(ms[n - 1], "cf", "q", 1, KV_LATEST_TIMESTAMP, buf, size);
        }
        if (st == KV_OK)
            st = kv_mutate_batch(s, table, ms, n, NULL, &w);
        for (size_t k = 0; k < n; k++)
            kv_mutation_free(ms[k]);
    }
    if (st != KV_OK || buf == NULL)
        bench_fmt(err, errlen, "filling %s of %s: %s %s", table, store,
                  buf ? kv_strerror(st) : "out of memory", buf ? kv_store_errmsg(s) : "");
    free(buf);
    kv_status cst = kv_store_close(s);
    if (st == KV_OK && cst != KV_OK)
        bench_fmt(err, errlen, "closing %s: %s", store, kv_strerror(cst));
    return buf != NULL && st == KV_OK && cst == KV_OK ? 0 : -1;
}

/* Runs argv (argv[0] found in PATH), counting the lines of its standard
 * output and keeping the start of its standard error for the message.
 * Returns 0 when it exits 0, else -1 with r->err set. */
static int run_tool(char *const argv[], uint64_t *lines, fs_result *r) {
    int out[2], errp[2];
    if (pipe2(out, O_CLOEXEC) != 0)
        return fs_fail(r, "pipe for", argv[0]);
    if (pipe2(errp, O_CLOEXEC) != 0) {
        close(out[0]);
        close(out[1]);
        return fs_fail(r, "pipe for", argv[0]);
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(out[0]), close(out[1]), close(errp[0]), close(errp[1]);
        return fs_fail(r, "fork for", argv[0]);
    }
    if (pid == 0) {
        dup2(out[1], STDOUT_FILENO);
        dup2(errp[1], STDERR_FILENO);
        execvp(argv[0], argv);
        fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(out[1]);
    close(errp[1]);
    char msg[300] = "", chunk[65536];
    size_t msglen = 0;
    *lines = 0;
    struct pollfd p[2] = {{out[0], POLLIN, 0}, {errp[0], POLLIN, 0}};
    int open_fds = 2;
    while (open_fds > 0) {
        if (poll(p, 2, -1) < 0 && errno != EINTR)
            break;
        for (int k = 0; k < 2; k++) {
            if (p[k].fd < 0 || p[k].revents == 0)
                continue;
            ssize_t n = read(p[k].fd, chunk, sizeof chunk);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                close(p[k].fd);
                p[k].fd = -1;
                open_fds--;
            } else if (k == 0) {
                for (ssize_t i = 0; i < n; i++)
                    *lines += chunk[i] == '\n';
            } else if (msglen + 1 < sizeof msg) {
                size_t take = (size_t)n < sizeof msg - 1 - msglen ? (size_t)n : sizeof msg - 1 - msglen;
                memcpy(msg + msglen, chunk, take);
                msg[msglen += take] = '\0';
            }
        }
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    r->failed = 1;
    char *nl = strchr(msg, '\n');
    if (nl != NULL)
        *nl = '\0';
    bench_fmt(r->err, sizeof r->err, "%s exited with status %d: %s", argv[0],
              WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), msg);
    return -1;
}

/* The cells of rows 0, n/2 and n-1 of the table at @p dir hold their
 * contents. */
static int check_samples(const char *dir, uint64_t rows, size_t size, fs_result *r) {
    char *buf = malloc(size + 2), *want = malloc(size + 1);
    int rc = 0;
    uint64_t sample[3] = {0, rows / 2, rows - 1};
    for (int k = 0; k < 3 && rc == 0 && buf != NULL && want != NULL; k++) {
        char path[PATH_MAX + 64], row[24];
        row_name(row, sizeof row, sample[k]);
        bench_fmt(path, sizeof path, "%s/%s/cf/q", dir, row);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ssize_t n = fd >= 0 ? read(fd, buf, size + 1) : -1;
        if (fd >= 0)
            close(fd);
        fs_content(want, size, sample[k]);
        if (n < 0)
            rc = fs_fail(r, "read of the copy", path);
        else if ((size_t)n != size || memcmp(buf, want, size) != 0) {
            r->failed = 1;
            bench_fmt(r->err, sizeof r->err, "%s: wrong content after the copy", path);
            rc = -1;
        }
    }
    if (buf == NULL || want == NULL) {
        r->failed = 1;
        bench_fmt(r->err, sizeof r->err, "out of memory");
        rc = -1;
    }
    free(buf);
    free(want);
    return rc;
}

int fs_tree_run(const fs_job *job, const fs_target *t, fs_workload w, fs_result *r) {
    const bench_options *o = job->o;
    char src[PATH_MAX + 2], dst[PATH_MAX + 2];
    uint64_t lines = 0, want = 0;
    char *argv[6] = {NULL};
    switch (w) {
    case FW_LS:
        argv[0] = "ls", argv[1] = "-l", argv[2] = (char *)t->table;
        want = o->rows + 1;   /* and the "total" line; .schema is hidden */
        break;
    case FW_FIND:
        argv[0] = "find", argv[1] = (char *)t->table, argv[2] = "-type", argv[3] = "f";
        want = o->rows + (t->cellfs ? 1 : 0);   /* and cellfs's .schema */
        break;
    case FW_RSYNC_OUT:
    case FW_RSYNC_IN:
        bench_fmt(src, sizeof src, "%s/", w == FW_RSYNC_OUT ? t->table : t->copy);
        bench_fmt(dst, sizeof dst, "%s/", w == FW_RSYNC_OUT ? t->copy : t->table_in);
        argv[0] = "rsync", argv[1] = "-a", argv[2] = src, argv[3] = dst;
        if (w == FW_RSYNC_IN && mkdir(t->table_in, 0755) != 0)
            return fs_fail(r, "mkdir", t->table_in);
        break;
    default:
        return 0;
    }
    double t0 = bench_now();
    int rc = run_tool(argv, &lines, r);
    r->seconds = bench_now() - t0;
    if (rc != 0)
        return -1;
    r->ops = o->rows;
    bench_fmt(r->note, sizeof r->note, "(%" PRIu64 " %s in %.2f s)", o->rows,
              w == FW_LS ? "rows" : "cells", r->seconds);
    if ((w == FW_LS || w == FW_FIND) && lines != want) {
        r->failed = 1;
        bench_fmt(r->err, sizeof r->err, "%s printed %" PRIu64 " lines, expected %" PRIu64,
                  argv[0], lines, want);
        return -1;
    }
    if (w == FW_RSYNC_OUT || w == FW_RSYNC_IN)
        return check_samples(w == FW_RSYNC_OUT ? t->copy : t->table_in, o->rows,
                             (size_t)o->file_size, r);
    return 0;
}
