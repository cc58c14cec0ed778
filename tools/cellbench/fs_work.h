/*
 * The file workloads of cellbench --fs and what they share: the targets
 * (a native directory, a cellfs mount, libfuse's passthrough_ll over a
 * native directory), the paths each workload uses on each target, and the
 * result of one workload on one target. fsbench.c sets the targets up and
 * runs the workloads in a child; fs_small.c has the small-file phases
 * (create, stat, read, overwrite, unlink), fs_tree.c the whole-table ones
 * (ls -l, find, rsync out and back in) and fs_postmark.c the PostMark-like
 * mix.
 */
#ifndef CELLBENCH_FS_WORK_H
#define CELLBENCH_FS_WORK_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "options.h"

enum { T_NATIVE, T_CELLFS, T_PASSTHROUGH, T_COUNT };

typedef enum fs_workload {
    FW_CREATE, FW_STAT, FW_RESTAT, FW_READ, FW_REREAD, FW_OVERWRITE, FW_UNLINK,
    FW_LS, FW_FIND, FW_RSYNC_OUT, FW_RSYNC_IN, FW_POSTMARK,
    FW_COUNT
} fs_workload;

/* "create", ..., "postmark", as --benchmarks takes them in --fs mode. */
extern const char *const fs_workload_names[FW_COUNT];
extern const char *const fs_target_names[T_COUNT];
/* The index of @p name, or -1. */
int fs_workload_parse(const char *name);

typedef struct fs_result {
    int failed;
    uint64_t ops;            /* files, entries or transactions done */
    double seconds;
    char note[160];          /* shown after the ratios */
    char err[400];
} fs_result;

/* Where each workload works on one target. The table of the whole-table
 * workloads has one cell per row: TABLE/r<8 digits>/cf/q. */
typedef struct fs_target {
    bool available;
    bool cellfs;             /* rows hold families: PostMark's dirs get cf/ */
    char files[PATH_MAX];    /* the small files: one directory */
    char table[PATH_MAX];    /* a table of o->rows rows, filled before the run */
    char table_src[PATH_MAX];/* where the worker fills it natively ("" on cellfs,
                                whose store is filled before the mount) */
    char table_in[PATH_MAX]; /* rsync-in's target: made empty by the worker */
    char copy[PATH_MAX];     /* rsync-out's copy, on the native disk */
    char postmark[PATH_MAX]; /* PostMark's directories go here */
} fs_target;

typedef struct fs_job {
    const bench_options *o;
    fs_target t[T_COUNT];
} fs_job;

/* Puts "WHAT PATH: strerror(errno)" into r->err and marks r failed;
 * returns -1. */
int fs_fail(fs_result *r, const char *what, const char *path);

/* The content of file (or row) @p i: its number, then a fixed pattern. */
void fs_content(char *buf, size_t len, uint64_t i);

/* ---- fs_small.c ---- */
/* Runs create, stat, read, overwrite or unlink of o->files files of
 * o->file_size bytes in t->files, stat, read, overwrite and unlink in the
 * random @p order. @p buf and @p want hold file_size + 1 bytes. Returns
 * 0, or -1 with r->err set. */
int fs_small_run(const fs_job *job, const fs_target *t, fs_workload w, const uint64_t *order,
                 char *buf, char *want, fs_result *r);

/* ---- fs_tree.c ---- */
/* Fills a native directory with the table layout (untimed). */
int fs_tree_fill_dir(const char *dir, uint64_t rows, size_t size, char *err, size_t errlen);
/* Fills table default:<table> of the store at @p store (created if
 * missing) through libkvcore, before it is mounted. */
int fs_tree_fill_store(const char *store, const char *table, uint64_t rows, size_t size,
                       char *err, size_t errlen);
/* Runs ls -l, find, rsync-out or rsync-in on target @p t. */
int fs_tree_run(const fs_job *job, const fs_target *t, fs_workload w, fs_result *r);

/* ---- fs_postmark.c ---- */
/* The PostMark-like mix: a pool of o->pm_files files in o->pm_dirs
 * directories (untimed), then o->pm_transactions transactions, each a
 * create or a delete and a read or an append (timed), then the rest
 * deleted (untimed). */
int fs_postmark_run(const fs_job *job, const fs_target *t, fs_result *r);

#endif
