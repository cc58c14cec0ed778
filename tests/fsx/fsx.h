/*
 * fsx: a random operation tester for cellfs in the spirit of xfstests' fsx.
 * Each mode keeps a model of what the file system must show and checks the
 * real thing against it after every operation; the first difference prints
 * the last operations, what was expected and what was found, and ends the
 * run with status 1.
 *
 * This header holds what both modes share: the options (main.c parses
 * them), a seeded random generator, the operation log, the byte pattern
 * written by each operation, comparison with a readable report, and the
 * failure exit. The modes are file_mode.c (one file's bytes) and
 * table_mode.c (a table of rows, families and cells, with table_model.c
 * and table_check.c).
 */
#ifndef FSX_H
#define FSX_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

typedef struct fsx_options {
    const char *path;        /* the file (file mode) or the table directory */
    bool table_mode;         /* -M */
    uint64_t seed;           /* -S */
    uint64_t ops;            /* -N */
    size_t maxlen;           /* -l: largest file / value: the mount's max_value or less */
    size_t maxoplen;         /* -o: largest single read or write */
    unsigned closeprob;      /* -c: close and reopen after 1 op in N (0: never) */
    size_t logsize;          /* -L: operations shown after a failure */
    bool verbose;            /* -v: print every operation as it runs */
    unsigned pause_ms;       /* -P: sleep between operations (a slow user) */
    /* File mode: operation classes switched off. */
    bool no_mapread;         /* -R */
    bool no_mapwrite;        /* -W */
    bool no_truncate;        /* -T */
    bool no_append;          /* -A */
    bool no_fsync;           /* -F */
    bool no_second;          /* -D: no second descriptor */
    bool no_shrinkgrow;      /* -K: no shrink-then-grow-then-reopen */
    /* Table mode. */
    bool native;             /* -n: a plain directory; no cellfs-only checks */
    bool versions_listed;    /* -V: the mount lists q@ts (cellfs -o versions) */
    bool new_version_behavior; /* -B: NEW_VERSION_BEHAVIOR families: deletes mask
                                  only earlier puts */
    const char *remount_cmd; /* -r: run with /bin/sh -c to remount */
    unsigned remount_every;  /* -m: remount after 1 op in N (0: never) */
    unsigned check_every;    /* -C: full comparison after 1 op in N */
    const char *skip_ops;    /* -x: comma-separated operation names left out */
    bool no_future;          /* -U: no timestamps in the future */
    /* Both: the self-test of the checks. */
    uint64_t corrupt_at;     /* -Z: change one byte of the model after op N */
} fsx_options;

/* ---- util.c ---- */

/* splitmix64: the same seed gives the same run on every machine. */
typedef struct fsx_rng {
    uint64_t state;
} fsx_rng;

void fsx_rng_seed(fsx_rng *r, uint64_t seed);
uint64_t fsx_rand(fsx_rng *r);
/* A number in [0, n); 0 when n is 0. */
uint64_t fsx_below(fsx_rng *r, uint64_t n);
/* A number in [lo, hi]; lo <= hi. */
uint64_t fsx_range(fsx_rng *r, uint64_t lo, uint64_t hi);

/* Sleeps opt->pause_ms (-P) before an operation. */
void fsx_pause(const fsx_options *opt);

/* The last operations, kept in a ring for the failure report. */
typedef struct fsx_log {
    char (*lines)[160];
    size_t size;             /* capacity */
    uint64_t count;          /* lines ever added */
    bool echo;               /* print each line as it is added (-v) */
} fsx_log;

/* Returns 0, or -1 when out of memory. */
int fsx_log_init(fsx_log *log, size_t size, bool echo);
void fsx_log_free(fsx_log *log);
/* Adds "op N: <text>". */
void fsx_log_add(fsx_log *log, uint64_t op, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The byte that operation @p op writes at file offset @p pos: never 0
 * (so zeros are holes and truncated ranges), and from a byte and its
 * offset the operation number modulo 255 can be told (fsx_pattern_op). */
uint8_t fsx_pattern(uint64_t op, uint64_t pos);
void fsx_fill(uint8_t *buf, size_t len, uint64_t op, uint64_t pos);
/* Which operation (modulo 255) wrote @p b at @p pos; -1 for a zero. */
int fsx_pattern_op(uint8_t b, uint64_t pos);

/* A run's context for failure reports: the log and how to reproduce. */
typedef struct fsx_run {
    const fsx_options *opt;
    fsx_log log;
    uint64_t op;             /* the operation running now */
} fsx_run;

/* Prints "FAIL at op N: <message>", the log and the seed, and exits 1. */
void fsx_fail(const fsx_run *run, const char *fmt, ...) __attribute__((format(printf, 2, 3)))
    __attribute__((noreturn));
/* fsx_fail with ": <strerror(errno)>" added. */
void fsx_fail_errno(const fsx_run *run, const char *fmt, ...)
    __attribute__((format(printf, 2, 3))) __attribute__((noreturn));

/* Compares @p got (@p got_len bytes read at file offset @p off) with
 * @p want (@p want_len bytes). On a difference prints where it starts and
 * ends, up to 16 bytes of each side with the operations that wrote them
 * (from @p writer, the op number of each model byte, when not NULL) and
 * fails the run with @p what in the message. */
void fsx_compare(const fsx_run *run, const char *what, uint64_t off, const uint8_t *want,
                 size_t want_len, const uint8_t *got, size_t got_len, const uint64_t *writer);

/* pread/pwrite of the whole range, retrying short transfers and EINTR.
 * Return the bytes moved (fewer than @p len only at end of file for
 * reads), or -1 with errno set. */
ssize_t fsx_pread_all(int fd, void *buf, size_t len, uint64_t off);
ssize_t fsx_pwrite_all(int fd, const void *buf, size_t len, uint64_t off);

/* ---- the modes ---- */
/* Each returns the exit status: 0 when every check passed (a failure
 * exits through fsx_fail). */
int fsx_file_mode(const fsx_options *opt);
int fsx_table_mode(const fsx_options *opt);

#endif
