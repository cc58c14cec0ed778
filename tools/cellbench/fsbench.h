/*
 * The --fs mode of cellbench: small-file create, stat and read on a native
 * directory, on a cellfs mount of a temporary store, and on libfuse's
 * passthrough example when a binary of it is available. Mounts what it
 * needs, runs the file work in a child (child.h) and unmounts at the end,
 * also after a failure or an interrupt. Called by main.c.
 */
#ifndef CELLBENCH_FSBENCH_H
#define CELLBENCH_FSBENCH_H

#include <signal.h>

#include "options.h"

/* Returns the exit status: 0, 1 on a failure, 130 on interrupt. */
int fsbench_run(const bench_options *o, const sigset_t *saved);

#endif
