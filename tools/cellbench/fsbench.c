/*
 * fsbench.h: the --fs mode's targets and run. Sets up a native directory,
 * a cellfs mount of a new store (its table for ls, find and rsync filled
 * through libkvcore before the mount) and libfuse's passthrough_ll over a
 * second native directory; runs the selected workloads on each target in a
 * child (child.h), reads the daemons' peak memory, prints the report and
 * unmounts, also after a failure or an interrupt. The workloads are in
 * fs_small.c, fs_tree.c and fs_postmark.c (fs_work.h); mount.c starts and
 * stops the daemons.
 */
#include "fsbench.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "child.h"
#include "fs_work.h"
#include "kvcore.h"
#include "mount.h"
#include "report.h"
#include "util.h"

const char *const fs_workload_names[FW_COUNT] = {
    "create", "stat", "restat", "read", "reread", "overwrite", "unlink", "ls-l", "find",
    "rsync-out", "rsync-in",
    "postmark",
};
const char *const fs_target_names[T_COUNT] = {"native", "cellfs", "passthrough_ll"};

int fs_workload_parse(const char *name) {
    for (int w = 0; w < FW_COUNT; w++)
        if (strcmp(name, fs_workload_names[w]) == 0)
            return w;
    return -1;
}

int fs_fail(fs_result *r, const char *what, const char *path) {
    r->failed = 1;
    bench_fmt(r->err, sizeof r->err, "%s %s: %s", what, path, strerror(errno));
    return -1;
}

void fs_content(char *buf, size_t len, uint64_t i) {
    for (size_t k = 0; k < len; k++)
        buf[k] = (char)('a' + (k * 7 + i) % 26);
    char head[24];
    int n = snprintf(head, sizeof head, "%" PRIu64 "\n", i);
    memcpy(buf, head, (size_t)n < len ? (size_t)n : len);
}

typedef struct fs_report {
    fs_result r[T_COUNT][FW_COUNT];
} fs_report;

static bool selected(const bench_options *o, int w) { return (o->fs_mask >> w) & 1u; }

static bool is_small(int w) { return w <= FW_UNLINK; }
static bool is_tree(int w) { return w >= FW_LS && w <= FW_RSYNC_IN; }

/* What one target's run has made so far, for the workloads that need it. */
typedef struct target_state {
    bool files;              /* the small files exist */
    const char *small_failed;/* a small-file phase failed: the rest are not run */
    bool filled;             /* the table exists */
    bool copied;             /* rsync-out's copy exists */
} target_state;

/* Runs @p w, or an untimed run of what it needs first. */
static void run_workload(const fs_job *job, int t, int w, target_state *st, const uint64_t *order,
                         char *buf, char *want, fs_result *r) {
    const fs_target *tg = &job->t[t];
    fs_result pre;
    memset(&pre, 0, sizeof pre);
    if (is_small(w)) {
        if (st->small_failed != NULL) {
            r->failed = 1;
            bench_fmt(r->err, sizeof r->err, "not run after the %s failure", st->small_failed);
            return;
        }
        if (w != FW_CREATE && !st->files &&
            fs_small_run(job, tg, FW_CREATE, order, buf, want, &pre) != 0) {
            *r = pre;
            st->small_failed = "untimed create";
            return;
        }
        bench_fmt(r->note, sizeof r->note, "%s", w != FW_CREATE && !st->files ?
                  "(after an untimed create)" : "");
        st->files = true;
        if (fs_small_run(job, tg, (fs_workload)w, order, buf, want, r) != 0)
            st->small_failed = fs_workload_names[w];
        else if (w == FW_UNLINK)
            st->files = false;
        return;
    }
    if (is_tree(w)) {
        if (!st->filled && fs_tree_fill_dir(tg->table_src, job->o->rows, (size_t)job->o->file_size,
                                            r->err, sizeof r->err) != 0) {
            r->failed = 1;
            return;
        }
        st->filled = true;
        if (w == FW_RSYNC_IN && !st->copied && fs_tree_run(job, tg, FW_RSYNC_OUT, &pre) != 0) {
            *r = pre;
            return;
        }
        st->copied = true;
        fs_tree_run(job, tg, (fs_workload)w, r);
        return;
    }
    fs_postmark_run(job, tg, r);
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
        if (!job->t[t].available)
            continue;
        target_state st = {.filled = job->t[t].table_src[0] == '\0'};
        for (int w = 0; w < FW_COUNT; w++) {
            if (!selected(o, w))
                continue;
            if (progress)
                fprintf(stderr, "cellbench: %-14s %-10s ...\r", fs_target_names[t],
                        fs_workload_names[w]);
            run_workload(job, t, w, &st, order, buf, want, &rep->r[t][w]);
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

/* A program: @p given (an option), else @p name beside our own binary or
 * at @p rel from its directory (the build tree), else in $PATH. */
static bool find_program(char *out, size_t len, const char *given, const char *rel,
                         const char *name) {
    if (given != NULL)
        return realpath(given, out) != NULL && access(out, X_OK) == 0;
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    char *slash = n > 0 ? (self[n] = '\0', strrchr(self, '/')) : NULL;
    if (slash != NULL) {
        *slash = '\0';
        const char *cands[] = {rel, name};
        for (size_t i = 0; i < 2; i++) {
            char cand[PATH_MAX + 64];
            if (cands[i] != NULL && bench_fmt(cand, sizeof cand, "%s/%s", self, cands[i]) == 0 &&
                access(cand, X_OK) == 0 && realpath(cand, out) != NULL)
                return true;
        }
    }
    return bench_find_in_path(out, len, name);
}

static int make_dir(const char *path, char *err, size_t errlen) {
    if (bench_mkdirs(path) != 0) {
        bench_fmt(err, errlen, "mkdir %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

static bool any_tree(const bench_options *o) {
    for (int w = FW_LS; w <= FW_RSYNC_IN; w++)
        if (selected(o, w))
            return true;
    return false;
}

/* The paths of a target whose root is @p root (files of the small phases
 * in @p files), and rsync's copy in the work dir. */
static void target_paths(fs_target *t, const char *base, const char *root, const char *files,
                         const char *name) {
    bench_fmt(t->files, sizeof t->files, "%s", files);
    bench_fmt(t->table, sizeof t->table, "%s/big", root);
    bench_fmt(t->table_in, sizeof t->table_in, "%s/bigin", root);
    bench_fmt(t->postmark, sizeof t->postmark, "%s/pm", root);
    bench_fmt(t->copy, sizeof t->copy, "%s/rsync-%s", base, name);
}

/* A new store (with table big filled when a tree workload runs), mounted
 * at base/mnt; the small files are the cells of row r of default:bench. */
static int setup_cellfs(bench_mount *m, fs_target *t, const bench_options *o, const char *base,
                        const char *cellfs, char *err, size_t errlen) {
    char store[PATH_MAX], mnt[PATH_MAX], log[PATH_MAX], files[PATH_MAX + 32];
    bench_fmt(store, sizeof store, "%s/store", base);
    bench_fmt(mnt, sizeof mnt, "%s/mnt", base);
    bench_fmt(log, sizeof log, "%s/cellfs.log", base);
    if (any_tree(o) && fs_tree_fill_store(store, "big", o->rows, (size_t)o->file_size, err,
                                          errlen) != 0)
        return -1;
    if (make_dir(mnt, err, errlen) != 0)
        return -1;
    char *argv[] = {(char *)cellfs, store, mnt, "-f", "-o", "create", NULL};
    if (bench_mount_start(m, argv, mnt, log, 20, err, errlen) != 0)
        return -1;
    char root[PATH_MAX + 16];
    bench_fmt(root, sizeof root, "%s/default", mnt);
    bench_fmt(files, sizeof files, "%s/bench/r/cf", root);
    if (make_dir(files, err, errlen) != 0)
        return -1;
    target_paths(t, base, root, files, "cellfs");
    t->table_src[0] = '\0';
    t->cellfs = true;
    return 0;
}

/* passthrough_ll -o source=base/pt-src at base/pt-mnt. */
static int setup_passthrough(bench_mount *m, fs_target *t, const char *base, const char *binary,
                             char *err, size_t errlen) {
    char src[PATH_MAX], mnt[PATH_MAX], log[PATH_MAX], opt[PATH_MAX + 16], files[PATH_MAX + 16];
    bench_fmt(src, sizeof src, "%s/pt-src", base);
    bench_fmt(mnt, sizeof mnt, "%s/pt-mnt", base);
    bench_fmt(log, sizeof log, "%s/passthrough_ll.log", base);
    bench_fmt(opt, sizeof opt, "source=%s", src);
    if (make_dir(src, err, errlen) != 0 || make_dir(mnt, err, errlen) != 0)
        return -1;
    char *argv[] = {(char *)binary, "-f", "-o", opt, mnt, NULL};
    if (bench_mount_start(m, argv, mnt, log, 20, err, errlen) != 0)
        return -1;
    bench_fmt(files, sizeof files, "%s/files", mnt);
    if (make_dir(files, err, errlen) != 0)
        return -1;
    target_paths(t, base, mnt, files, "passthrough_ll");
    bench_fmt(t->table_src, sizeof t->table_src, "%s/big", src);
    return 0;
}

static void print_results(const fs_job *job, const fs_report *rep, const uint64_t *rss) {
    for (int w = 0; w < FW_COUNT; w++) {
        if (!selected(job->o, w))
            continue;
        for (int t = 0; t < T_COUNT; t++) {
            if (!job->t[t].available)
                continue;
            const fs_result *r = &rep->r[t][w];
            if (r->failed) {
                report_failed(stdout, fs_workload_names[w], fs_target_names[t], r->err);
                continue;
            }
            /* cellfs against both others, passthrough_ll against native. */
            report_peer peers[2];
            size_t np = 0;
            for (int u = 0; u < T_COUNT && t != T_NATIVE; u++) {
                if (u == t || !job->t[u].available || (t == T_PASSTHROUGH && u != T_NATIVE))
                    continue;
                const fs_result *q = &rep->r[u][w];
                double rate = q->failed ? 0 : (double)q->ops / (q->seconds > 1e-9 ? q->seconds : 1e-9);
                peers[np++] = (report_peer){fs_target_names[u], rate};
            }
            report_rate(stdout, fs_workload_names[w], fs_target_names[t], (double)r->ops,
                        r->seconds, peers, np, r->note);
        }
    }
    for (int t = T_CELLFS; t < T_COUNT; t++) {
        if (!job->t[t].available || rss[t] == 0)
            continue;
        report_peer peer = {fs_target_names[T_PASSTHROUGH], (double)rss[T_PASSTHROUGH]};
        report_rss(stdout, fs_target_names[t], rss[t], &peer, t == T_CELLFS ? 1 : 0);
    }
}

static void print_header(const bench_options *o, const char *notes[T_COUNT], const char *base,
                         bool temp) {
    char size[32];
    bench_format_size(size, sizeof size, o->file_size);
    printf("cellbench %s --fs: small files: %" PRIu64 " of %s in one directory (create in name "
           "order; stat, read, overwrite, unlink in a random order); table: %" PRIu64
           " rows of one %s cell; PostMark: %" PRIu64 " files in %" PRIu64
           " directories, %" PRIu64 " transactions\n",
           KVCORE_VERSION, o->files, size, o->rows, size, o->pm_files, o->pm_dirs,
           o->pm_transactions);
    for (int t = 0; t < T_COUNT; t++)
        printf("%-16s%s\n", t == T_NATIVE ? "native:" : t == T_CELLFS ? "cellfs:" :
               "passthrough_ll:", notes[t]);
    printf("%-16s%s%s\n", "Work dir:", base, temp ? " (temporary, removed at exit)" : "");
    printf("------------------------------------------------------------------------------\n");
    fflush(stdout);
}

/* passthrough_ll keeps a descriptor open for every inode the kernel knows
   (over 100,000 in the table workloads), more than a default limit allows.
   The limit is raised for all three targets alike (the daemons inherit it),
   as far as this process may; a target that still runs out fails its
   workload with EMFILE in the report. */
static void raise_open_files_limit(void) {
    struct rlimit want = {1u << 20, 1u << 20};
    if (setrlimit(RLIMIT_NOFILE, &want) == 0)
        return;
    struct rlimit now;
    if (getrlimit(RLIMIT_NOFILE, &now) != 0)
        return;
    now.rlim_cur = now.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &now) != 0)
        fprintf(stderr, "cellbench: cannot raise the open-files limit: %s\n", strerror(errno));
}

int fsbench_run(const bench_options *o, const sigset_t *saved) {
    char base[PATH_MAX];
    raise_open_files_limit();
    bool temp = o->db_dir == NULL;
    if (bench_workdir(base, sizeof base, o->db_dir, "cellbench-fs") != 0)
        return 1;
    static const char *const subdirs[] = {"native", "store", "mnt", "pt-src", "pt-mnt",
                                          "rsync-native", "rsync-cellfs", "rsync-passthrough_ll"};
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
    bench_mount mounts[T_COUNT];
    memset(mounts, 0, sizeof mounts);
    char notes[T_COUNT][PATH_MAX + 700];

    /* The native directory. */
    char root[PATH_MAX + 16], files[PATH_MAX + 32];
    bench_fmt(root, sizeof root, "%s/native", base);
    bench_fmt(files, sizeof files, "%s/files", root);
    if (make_dir(files, err, sizeof err) == 0) {
        target_paths(&job.t[T_NATIVE], base, root, files, "native");
        bench_fmt(job.t[T_NATIVE].table_src, sizeof job.t[T_NATIVE].table_src, "%s",
                  job.t[T_NATIVE].table);
        job.t[T_NATIVE].available = true;
        bench_fmt(notes[T_NATIVE], sizeof notes[T_NATIVE], "%s", root);
    } else {
        bench_fmt(notes[T_NATIVE], sizeof notes[T_NATIVE], "FAILED: %s", err);
        status = 1;
    }

    /* cellfs: a failure to mount it is a failure of the run. */
    char cellfs[PATH_MAX];
    if (!find_program(cellfs, sizeof cellfs, o->cellfs_path, "../fusefs/cellfs", "cellfs")) {
        bench_fmt(notes[T_CELLFS], sizeof notes[T_CELLFS], "FAILED: no cellfs binary (%s)",
                  o->cellfs_path ? o->cellfs_path : "give --cellfs PATH");
        status = 1;
    } else if (setup_cellfs(&mounts[T_CELLFS], &job.t[T_CELLFS], o, base, cellfs, err,
                            sizeof err) != 0) {
        bench_fmt(notes[T_CELLFS], sizeof notes[T_CELLFS], "FAILED: %s", err);
        status = strcmp(err, "interrupted") == 0 ? 130 : 1;
    } else {
        job.t[T_CELLFS].available = true;
        bench_fmt(notes[T_CELLFS], sizeof notes[T_CELLFS], "%s/mnt (%s, a new store)", base,
                  cellfs);
    }

    /* passthrough_ll: measured when it can be, else said why not. */
    char pt[PATH_MAX];
    if (!find_program(pt, sizeof pt, o->passthrough_path, NULL, "passthrough_ll")) {
        bench_fmt(notes[T_PASSTHROUGH], sizeof notes[T_PASSTHROUGH],
                  "not available (no passthrough_ll beside cellbench or in PATH: it is built "
                  "from libfuse3-dev's examples when they are installed; give --passthrough PATH)");
    } else if (status == 130) {
        bench_fmt(notes[T_PASSTHROUGH], sizeof notes[T_PASSTHROUGH], "not run");
    } else if (setup_passthrough(&mounts[T_PASSTHROUGH], &job.t[T_PASSTHROUGH], base, pt, err,
                                 sizeof err) != 0) {
        bench_fmt(notes[T_PASSTHROUGH], sizeof notes[T_PASSTHROUGH], "not available (%s: %s)", pt,
                  err);
        bench_mount_stop(&mounts[T_PASSTHROUGH]);
        /* An interrupt while it mounted ends the run like one before. */
        if (strcmp(err, "interrupted") == 0)
            status = 130;
    } else {
        job.t[T_PASSTHROUGH].available = true;
        bench_fmt(notes[T_PASSTHROUGH], sizeof notes[T_PASSTHROUGH],
                  "%s/pt-mnt (%s -o source=%s/pt-src)", base, pt, base);
    }

    const char *note_ptrs[T_COUNT] = {notes[0], notes[1], notes[2]};
    print_header(o, note_ptrs, base, temp);

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
            uint64_t rss[T_COUNT] = {0};
            for (int t = T_CELLFS; t < T_COUNT; t++)
                rss[t] = bench_mount_peak_rss_kib(&mounts[t]);
            print_results(&job, rep, rss);
            for (int t = 0; t < T_COUNT; t++)
                for (int w = 0; w < FW_COUNT; w++)
                    if (job.t[t].available && selected(o, w) && rep->r[t][w].failed)
                        status = 1;
        }
        free(rep);
    }

    /* Unmount whatever happened above. */
    bool unmounted = true;
    for (int t = T_COUNT - 1; t > T_NATIVE; t--)
        unmounted = bench_mount_stop(&mounts[t]) == 0 && unmounted;
    if (!unmounted && status == 0)
        status = 1;
    if (temp && unmounted && bench_rmtree(base) != 0) {
        fprintf(stderr, "cellbench: could not remove %s\n", base);
        if (status == 0)
            status = 1;
    }
    return status;
}
