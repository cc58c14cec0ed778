/*
 * Starting and stopping a FUSE daemon (the cellfs driver, libfuse's
 * passthrough_ll example) for --fs mode, and reading its peak memory: the daemon runs in the foreground as
 * our child, in a process group of its own so that a terminal's Ctrl-C
 * reaches only cellbench, which then unmounts it. Used by fsbench.c.
 */
#ifndef CELLBENCH_MOUNT_H
#define CELLBENCH_MOUNT_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct bench_mount {
    pid_t pid;               /* the daemon; 0 when none */
    char mnt[PATH_MAX];      /* absolute mount point */
    char log[PATH_MAX];      /* the daemon's stdout and stderr */
} bench_mount;

/* True when @p path (absolute) is a mount point in /proc/mounts. */
bool bench_is_mounted(const char *path);

/* Runs argv (argv[0] a path) with its output to @p log and waits up to
 * @p timeout seconds until @p mnt is mounted. Returns 0, or -1 with the
 * reason in @p err (the daemon is then stopped). */
int bench_mount_start(bench_mount *m, char *const argv[], const char *mnt, const char *log,
                      double timeout, char *err, size_t errlen);

/* Unmounts with fusermount3 -u (retrying, then lazily) and waits for the
 * daemon, ending it by its pid if it does not exit. Returns 0 when the
 * mount is gone. Safe to call on a bench_mount that never started. */
int bench_mount_stop(bench_mount *m);

/* The peak resident memory (VmHWM) of the daemon in KiB while it runs, or
 * 0 when it cannot be read. */
uint64_t bench_mount_peak_rss_kib(const bench_mount *m);

/* The executable @p name in $PATH, or false. */
bool bench_find_in_path(char *out, size_t len, const char *name);

#endif
