/*
 * Running one part of the benchmark in a forked child process: each engine
 * gets a process of its own so that its peak memory (VmHWM) is its own, and
 * the --fs worker runs apart from the process that owns the mounts so that
 * they are unmounted whatever happens to the worker. Results come back as
 * bytes over a pipe. Used by kvbench.c and fsbench.c.
 *
 * Termination signals (SIGINT, SIGTERM, SIGHUP) are blocked in the parent
 * by child_signals_init and let through only while it waits, so that an
 * interrupt is noticed there and the parent can clean up.
 */
#ifndef CELLBENCH_CHILD_H
#define CELLBENCH_CHILD_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Blocks the termination signals and installs a handler that only
 * interrupts waits; keeps the previous mask in *saved. */
void child_signals_init(sigset_t *saved);
/* In a new child: default dispositions and the @p saved mask again. */
void child_signals_reset(const sigset_t *saved);

/* The work of a child: writes its result to @p fd; returns the exit
 * status of the child. */
typedef int (*child_fn)(void *ctx, int fd);

typedef struct child_outcome {
    bool interrupted;    /* a termination signal reached the parent */
    int exit_status;     /* the child's exit status, or 128 + signal */
    size_t received;     /* result bytes read */
} child_outcome;

/* Forks, runs @p fn in the child, reads up to @p len result bytes into
 * @p out and waits for the child. On an interrupt the child is killed.
 * Returns 0, or -1 when the child could not be started (message on stderr). */
int child_run(child_outcome *res, const sigset_t *saved, child_fn fn, void *ctx, void *out,
              size_t len);

/* A child started by child_start and not yet finished. */
typedef struct child_proc {
    pid_t pid;
    int fd;              /* the result pipe's read end */
} child_proc;

/* child_run in two steps, so that several children run at once: forks and
 * runs @p fn in the child (returns 0, or -1 with a message on stderr) ... */
int child_start(child_proc *p, const sigset_t *saved, child_fn fn, void *ctx);
/* ... then reads up to @p len result bytes into @p out and waits for it
 * (killing it on an interrupt, as child_run). */
void child_finish(child_proc *p, child_outcome *res, void *out, size_t len);
/* Kills a started child (SIGKILL); child_finish still reaps it. */
void child_kill(const child_proc *p);

/* Writes all of @p len bytes; returns 0 or -1. */
int child_write_all(int fd, const void *buf, size_t len);

#endif
