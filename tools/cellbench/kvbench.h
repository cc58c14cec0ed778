/*
 * The key-value mode of cellbench: runs the chosen workloads on each chosen
 * engine, each engine in a child process of its own (child.h), then prints
 * every figure with its ratios (report.h) and each engine's peak memory.
 * Called by main.c.
 */
#ifndef CELLBENCH_KVBENCH_H
#define CELLBENCH_KVBENCH_H

#include <signal.h>

#include "options.h"

/* Returns the exit status: 0, 1 if a workload failed, 130 on interrupt. */
int kvbench_run(const bench_options *o, const sigset_t *saved);

#endif
