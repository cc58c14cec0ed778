/*
 * fsbench.h: the file phases (create, stat, read of N files in one
 * directory, in a random order shared by every target), the targets'
 * set-up, and their report. Calls mount.c, child.c, report.c and util.c.
 */
#include "fsbench.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "child.h"
#include "kvcore.h"
#include "mount.h"
#include "report.h"
#include "util.h"

enum { T_NATIVE, T_CELLFS, T_PASSTHROUGH, T_COUNT };
enum { P_CREATE, P_STAT, P_READ, P_COUNT };

static const char *const kTargetNames[T_COUNT] = {"native", "cellfs", "passthrough"};
static const char *const kPhaseNames[P_COUNT] = {"create", "stat", "read"};

typedef struct phase_result {
    int failed;
    uint64_t ops;
    double seconds;
    char err[400];
} phase_result;

typedef struct fs_report {
    phase_result r[T_COUNT][P_COUNT];
} fs_report;

typedef struct fs_job {
    const bench_options *o;
    bool available[T_COUNT];
    char dir[T_COUNT][PATH_MAX];   /* where the files go */
} fs_job;

static void file_name(char *buf, size_t len, const char *dir, uint64_t i) {
    bench_fmt(buf, len, "%s/f%08" PRIu64, dir, i);
}

/* The content of file i: its number, then a fixed pattern. */
static void file_content(char *buf, size_t len, uint64_t i) {
    for (size_t k = 0; k < len; k++)
        buf[k] = (char)('a' + (k * 7 + i) % 26);
    char head[24];
    int n = bench_fmt(head, sizeof head, "%" PRIu64 "\n", i);
    memcpy(buf, head, (size_t)n < len ? (size_t)n : len);
}

static int phase_fail(phase_result *r, const char *what, const char *path) {
    r->failed = 1;
    bench_fmt(r->err, sizeof r->err, "%s %s: %s", what, path, strerror(errno));
    return -1;
}

static int do_create(const fs_job *job, const char *dir, char *buf, phase_result *r) {
    size_t size = (size_t)job->o->file_size;
    char path[PATH_MAX + 32];
    for (uint64_t i = 0; i < job->o->files; i++) {
        file_name(path, sizeof path, dir, i);
        file_content(buf, size, i);
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0)
            return phase_fail(r, "create", path);
        if (child_write_all(fd, buf, size) != 0) {
            int e = errno;
            close(fd);
            errno = e;
            return phase_fail(r, "write", path);
        }
        /* On cellfs the close commits the cell: its result is the write's. */
        if (close(fd) != 0)
            return phase_fail(r, "close", path);
        r->ops++;
    }
    return 0;
}

static int do_stat(const fs_job *job, const char *dir, const uint64_t *order, phase_result *r) {
    char path[PATH_MAX + 32];
    for (uint64_t i = 0; i < job->o->files; i++) {
        file_name(path, sizeof path, dir, order[i]);
        struct stat st;
        if (stat(path, &st) != 0)
            return phase_fail(r, "stat", path);
        if ((uint64_t)st.st_size != job->o->file_size) {
            r->failed = 1;
            bench_fmt(r->err, sizeof r->err, "stat %s: size %lld, expected %" PRIu64, path,
                     (long long)st.st_size, job->o->file_size);
            return -1;
        }
        r->ops++;
    }
    return 0;
}

static int do_read(const fs_job *job, const char *dir, const uint64_t *order, char *buf,
                   char *want, phase_result *r) {
    size_t size = (size_t)job->o->file_size;
    char path[PATH_MAX + 32];
    for (uint64_t i = 0; i < job->o->files; i++) {
        file_name(path, sizeof path, dir, order[i]);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return phase_fail(r, "open", path);
        size_t got = 0;
        for (;;) {
            /* One byte of room past the size notices a file too long. */
            ssize_t n = read(fd, buf + got, size + 1 - got);
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0) {
                int e = errno;
                close(fd);
                errno = e;
                return phase_fail(r, "read", path);
            }
            if (n == 0 || (got += (size_t)n) > size)
                break;
        }
        close(fd);
        file_content(want, size, order[i]);
        if (got != size || memcmp(buf, want, size) != 0) {
            r->failed = 1;
            bench_fmt(r->err, sizeof r->err, "read %s: wrong content (%zu bytes)", path, got);
            return -1;
        }
        r->ops++;
    }
    return 0;
}

static int fs_worker(void *ctx, int fd) {
    const fs_job *job = ctx;
    const bench_options *o = job->o;
    fs_report *rep = calloc(1, sizeof *rep);
    uint64_t *order = malloc(o->files * sizeof *order);
    char *buf = malloc(o->file_size + 1);
    char *want = malloc(o->file_size + 1);
    int rc = 1;
    if (rep == NULL || order == NULL || buf == NULL || want == NULL)
        goto out;
    bench_rng rng;
    bench_rng_seed(&rng, o->wl.seed);
    for (uint64_t i = 0; i < o->files; i++)
        order[i] = i;
    for (uint64_t i = o->files; i > 1; i--) {
        uint64_t j = bench_rng_uniform(&rng, i);
        uint64_t t = order[i - 1];
        order[i - 1] = order[j];
        order[j] = t;
    }
    bool progress = isatty(STDERR_FILENO) != 0;
    for (int t = 0; t < T_COUNT; t++) {
        if (!job->available[t])
            continue;
        for (int p = 0; p < P_COUNT; p++) {
            phase_result *r = &rep->r[t][p];
            if (progress)
                fprintf(stderr, "cellbench: %-11s %-6s ...\r", kTargetNames[t], kPhaseNames[p]);
            double t0 = bench_now();
            int prc = p == P_CREATE ? do_create(job, job->dir[t], buf, r)
                      : p == P_STAT ? do_stat(job, job->dir[t], order, r)
                                    : do_read(job, job->dir[t], order, buf, want, r);
            r->seconds = bench_now() - t0;
            if (prc != 0) {
                for (int q = p + 1; q < P_COUNT; q++) {
                    rep->r[t][q].failed = 1;
                    bench_fmt(rep->r[t][q].err, sizeof rep->r[t][q].err,
                             "not run after the %s failure", kPhaseNames[p]);
                }
                break;
            }
        }
    }
    if (progress)
        fprintf(stderr, "%60s\r", "");
    rc = child_write_all(fd, rep, sizeof *rep) == 0 ? 0 : 1;
out:
    free(rep);
    free(order);
    free(buf);
    free(want);
    return rc;
}

/* The cellfs binary: --cellfs, else ../fusefs/cellfs from our own binary
 * (the build tree), else cellfs beside it, else cellfs in $PATH. */
static bool find_cellfs(char *out, size_t len, const bench_options *o) {
    if (o->cellfs_path != NULL) {
        if (realpath(o->cellfs_path, out) == NULL || access(out, X_OK) != 0)
            return false;
        return true;
    }
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = '\0';
        char *slash = strrchr(self, '/');
        if (slash != NULL) {
            *slash = '\0';
            static const char *const rel[] = {"/../fusefs/cellfs", "/cellfs"};
            for (size_t i = 0; i < 2; i++) {
                char cand[PATH_MAX + 32];
                bench_fmt(cand, sizeof cand, "%s%s", self, rel[i]);
                if (access(cand, X_OK) == 0 && realpath(cand, out) != NULL)
                    return true;
            }
        }
    }
    return bench_find_in_path(out, len, "cellfs");
}

static int make_dir(const char *path, char *err, size_t errlen) {
    if (mkdir(path, 0755) != 0 && errno != EEXIST) {
        bench_fmt(err, errlen, "mkdir %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* Mounts a fresh store and makes table default:bench, row r, family cf:
 * the files are the cells of that row. */
static int setup_cellfs(bench_mount *m, fs_job *job, const char *base, const char *cellfs,
                        char *err, size_t errlen) {
    char store[PATH_MAX], mnt[PATH_MAX], log[PATH_MAX];
    bench_fmt(store, sizeof store, "%s/store", base);
    bench_fmt(mnt, sizeof mnt, "%s/mnt", base);
    bench_fmt(log, sizeof log, "%s/cellfs.log", base);
    if (make_dir(mnt, err, errlen) != 0)
        return -1;
    char *argv[] = {(char *)cellfs, store, mnt, "-f", "-o", "create", NULL};
    if (bench_mount_start(m, argv, mnt, log, 20, err, errlen) != 0)
        return -1;
    static const char *const parts[] = {"/default/bench", "/default/bench/r",
                                        "/default/bench/r/cf"};
    char dir[PATH_MAX + 64];
    for (size_t i = 0; i < 3; i++) {
        bench_fmt(dir, sizeof dir, "%s%s", mnt, parts[i]);
        if (make_dir(dir, err, errlen) != 0)
            return -1;
    }
    bench_fmt(job->dir[T_CELLFS], sizeof job->dir[T_CELLFS], "%s", dir);
    return 0;
}

/* libfuse's passthrough mirrors / at its mount point. */
static int setup_passthrough(bench_mount *m, fs_job *job, const char *base, const char *binary,
                             char *err, size_t errlen) {
    char src[PATH_MAX], mnt[PATH_MAX], log[PATH_MAX];
    bench_fmt(src, sizeof src, "%s/passthrough-files", base);
    bench_fmt(mnt, sizeof mnt, "%s/passthrough-mnt", base);
    bench_fmt(log, sizeof log, "%s/passthrough.log", base);
    if (make_dir(src, err, errlen) != 0 || make_dir(mnt, err, errlen) != 0)
        return -1;
    char *argv[] = {(char *)binary, "-f", mnt, NULL};
    if (bench_mount_start(m, argv, mnt, log, 20, err, errlen) != 0)
        return -1;
    int n = bench_fmt(job->dir[T_PASSTHROUGH], sizeof job->dir[T_PASSTHROUGH], "%s%s", mnt, src);
    if (n < 0 || (size_t)n >= sizeof job->dir[T_PASSTHROUGH]) {
        bench_fmt(err, errlen, "path too long");
        return -1;
    }
    return 0;
}

static void print_results(const fs_job *job, const fs_report *rep) {
    for (int p = 0; p < P_COUNT; p++) {
        for (int t = 0; t < T_COUNT; t++) {
            if (!job->available[t])
                continue;
            const phase_result *r = &rep->r[t][p];
            if (r->failed) {
                report_failed(stdout, kPhaseNames[p], kTargetNames[t], r->err);
                continue;
            }
            report_peer peers[2];
            size_t np = 0;
            for (int u = 0; u < T_COUNT && t != T_NATIVE; u++) {
                if (u == t || !job->available[u] || (u == T_PASSTHROUGH && t != T_CELLFS))
                    continue;
                const phase_result *q = &rep->r[u][p];
                double rate = q->failed ? 0 : (double)q->ops / (q->seconds > 1e-9 ? q->seconds : 1e-9);
                peers[np++] = (report_peer){kTargetNames[u], rate};
            }
            report_rate(stdout, kPhaseNames[p], kTargetNames[t], (double)r->ops, r->seconds, peers,
                        np, NULL);
        }
    }
}

int fsbench_run(const bench_options *o, const sigset_t *saved) {
    char base[PATH_MAX];
    bool temp = o->db_dir == NULL;
    if (bench_workdir(base, sizeof base, o->db_dir, "cellbench-fs") != 0)
        return 1;
    static const char *const subdirs[] = {"native", "store", "mnt", "passthrough-files",
                                          "passthrough-mnt"};
    for (size_t i = 0; i < sizeof subdirs / sizeof subdirs[0]; i++) {
        char p[PATH_MAX + 32];
        bench_fmt(p, sizeof p, "%s/%s", base, subdirs[i]);
        if (bench_is_mounted(p) || bench_rmtree(p) != 0) {
            fprintf(stderr, "cellbench: cannot empty %s (still mounted?)\n", p);
            return 1;
        }
    }

    fs_job job;
    memset(&job, 0, sizeof job);
    job.o = o;
    char err[600] = "";
    int status = 0;
    bench_mount cellfs_m, pt_m;
    memset(&cellfs_m, 0, sizeof cellfs_m);
    memset(&pt_m, 0, sizeof pt_m);

    bench_fmt(job.dir[T_NATIVE], sizeof job.dir[T_NATIVE], "%s/native", base);
    if (make_dir(job.dir[T_NATIVE], err, sizeof err) == 0)
        job.available[T_NATIVE] = true;
    else
        fprintf(stderr, "cellbench: %s\n", err);

    char cellfs[PATH_MAX], cellfs_note[PATH_MAX + 700];
    if (!find_cellfs(cellfs, sizeof cellfs, o)) {
        bench_fmt(cellfs_note, sizeof cellfs_note, "FAILED: no cellfs binary (%s)",
                 o->cellfs_path ? o->cellfs_path : "give --cellfs PATH");
        status = 1;
    } else if (setup_cellfs(&cellfs_m, &job, base, cellfs, err, sizeof err) != 0) {
        bench_fmt(cellfs_note, sizeof cellfs_note, "FAILED: %s", err);
        status = strcmp(err, "interrupted") == 0 ? 130 : 1;
    } else {
        job.available[T_CELLFS] = true;
        bench_fmt(cellfs_note, sizeof cellfs_note, "%s (%s, a new store)", job.dir[T_CELLFS],
                 cellfs);
    }

    char pt[PATH_MAX], pt_note[PATH_MAX + 700];
    bool have_pt = o->passthrough_path != NULL ? realpath(o->passthrough_path, pt) != NULL
                                               : bench_find_in_path(pt, sizeof pt, "passthrough");
    if (!have_pt) {
        bench_fmt(pt_note, sizeof pt_note,
                 "not available (no passthrough binary in PATH; libfuse3-dev ships only the "
                 "example's sources; give --passthrough PATH)");
    } else if (status != 130 && setup_passthrough(&pt_m, &job, base, pt, err, sizeof err) != 0) {
        bench_fmt(pt_note, sizeof pt_note, "not available (%s: %s)", pt, err);
    } else if (status != 130) {
        job.available[T_PASSTHROUGH] = true;
        bench_fmt(pt_note, sizeof pt_note, "%s (%s)", job.dir[T_PASSTHROUGH], pt);
    } else {
        bench_fmt(pt_note, sizeof pt_note, "not run");
    }

    char size[32];
    bench_format_size(size, sizeof size, o->file_size);
    printf("cellbench %s --fs: %" PRIu64 " files of %s in one directory: create (open O_CREAT, "
           "write, close) in name order; stat, read (open, read, close) in a random order\n",
           KVCORE_VERSION, o->files, size);
    printf("native:      %s\n", job.dir[T_NATIVE]);
    printf("cellfs:      %s\n", cellfs_note);
    printf("passthrough: %s\n", pt_note);
    printf("Work dir:    %s%s\n", base, temp ? " (temporary, removed at exit)" : "");
    printf("------------------------------------------------------------------------------\n");
    fflush(stdout);

    if (status != 130) {
        fs_report *rep = calloc(1, sizeof *rep);
        child_outcome out;
        if (rep == NULL || child_run(&out, saved, fs_worker, &job, rep, sizeof *rep) != 0) {
            status = 1;
        } else if (out.interrupted) {
            status = 130;
            fprintf(stderr, "cellbench: interrupted\n");
        } else if (out.received != sizeof *rep) {
            fprintf(stderr, "cellbench: the file worker ended with status %d\n", out.exit_status);
            status = 1;
        } else {
            print_results(&job, rep);
            for (int t = 0; t < T_COUNT; t++)
                for (int p = 0; p < P_COUNT; p++)
                    if (job.available[t] && rep->r[t][p].failed)
                        status = 1;
        }
        free(rep);
    }

    /* Unmount whatever happened above. */
    bool unmounted = bench_mount_stop(&pt_m) == 0;
    unmounted = bench_mount_stop(&cellfs_m) == 0 && unmounted;
    if (!unmounted && status == 0)
        status = 1;
    if (temp && unmounted && bench_rmtree(base) != 0) {
        fprintf(stderr, "cellbench: could not remove %s\n", base);
        if (status == 0)
            status = 1;
    }
    return status;
}
