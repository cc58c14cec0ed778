/*
 * The --fs mode of cellbench: file workloads (small files: create, stat,
 * read, overwrite, unlink; a table: ls -l, find, rsync out and in; a
 * PostMark-like mix) on a native directory, on a cellfs mount of a new
 * store, and on libfuse's passthrough_ll example over a native directory
 * when its binary is there; prints rates, ratios and the daemons' peak
 * memory. Mounts what it needs, runs the file work in a child (child.h)
 * and unmounts at the end, also after a failure or an interrupt. Called
 * by main.c.
 */
#ifndef CELLBENCH_FSBENCH_H
#define CELLBENCH_FSBENCH_H

#include <signal.h>

#include "options.h"

/* Returns the exit status: 0, 1 on a failure, 130 on interrupt. */
int fsbench_run(const bench_options *o, const sigset_t *saved);

#endif
