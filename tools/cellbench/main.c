/*
 * cellbench: the benchmark of cellfs. Without --fs it runs db_bench's
 * key-value workloads on libkvcore, LevelDB and RocksDB (kvbench.c); with
 * --fs it compares small-file work on a native directory, a cellfs mount
 * and libfuse's passthrough example (fsbench.c). Parses the options
 * (options.c) and blocks termination signals so that an interrupt still
 * removes temp dirs and unmounts (child.c). Exit status: 0 success, 1 a
 * workload or phase failed, 2 bad usage, 130 interrupted.
 */
#include <stdio.h>

#include "child.h"
#include "fsbench.h"
#include "kvbench.h"
#include "options.h"

int main(int argc, char **argv) {
    bench_options o;
    int rc = options_parse(&o, argc, argv);
    if (rc == OPTIONS_EXIT)
        return 0;
    if (rc != OPTIONS_OK)
        return 2;
    sigset_t saved;
    child_signals_init(&saved);
    return o.fs_mode ? fsbench_run(&o, &saved) : kvbench_run(&o, &saved);
}
