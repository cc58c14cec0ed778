/*
 * cellbench's command line: the options of both modes, their defaults and
 * their checks. Parsed by options.c for main.c; read by kvbench.c and
 * fsbench.c.
 */
#ifndef CELLBENCH_OPTIONS_H
#define CELLBENCH_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "workload.h"

#define BENCH_MAX_ENGINES 3
#define BENCH_MAX_WORKLOADS 32

typedef struct bench_options {
    bool fs_mode;                      /* --fs */
    /* Key-value mode */
    workload_config wl;
    engine_config engine;
    workload_id workloads[BENCH_MAX_WORKLOADS];
    size_t nworkloads;
    const engine_ops *engines[BENCH_MAX_ENGINES];
    size_t nengines;
    /* Both modes */
    const char *db_dir;                /* --db; NULL = a temp dir, removed after */
    bool use_existing_db;              /* --use-existing-db: open what --db holds */
    /* --fs mode */
    uint32_t fs_mask;                  /* --benchmarks: bit i = fs_workload i */
    uint64_t files;                    /* --files */
    uint64_t file_size;                /* --file-size */
    uint64_t rows;                     /* --rows: the table of ls, find, rsync */
    uint64_t pm_files;                 /* --pm-files: PostMark's pool */
    uint64_t pm_transactions;          /* --pm-transactions */
    uint64_t pm_dirs;                  /* --pm-dirs */
    const char *cellfs_path;           /* --cellfs; NULL = found beside cellbench */
    const char *passthrough_path;      /* --passthrough; NULL = passthrough_ll
                                          beside cellbench, else in PATH */
} bench_options;

enum { OPTIONS_OK = 0, OPTIONS_EXIT = 1, OPTIONS_BAD = 2 };

/* Parses argv into *o. OPTIONS_EXIT after --help / --version (printed),
 * OPTIONS_BAD after a usage error (printed on stderr). */
int options_parse(bench_options *o, int argc, char **argv);

#endif
