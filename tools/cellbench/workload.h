/*
 * The key-value workloads, with db_bench's names and meaning, run on one
 * engine. kvbench.c calls workload_run for each workload in the order the
 * user asked; this module times it and calls the engine (engine.h).
 */
#ifndef CELLBENCH_WORKLOAD_H
#define CELLBENCH_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"

typedef enum workload_id {
    WL_FILLSEQ,      /* num puts in key order into an empty database */
    WL_FILLRANDOM,   /* num puts of uniformly random keys into an empty database */
    WL_OVERWRITE,    /* num puts of uniformly random keys into the existing one */
    WL_READRANDOM,   /* reads random gets of uniformly random keys */
    WL_READSEQ,      /* one scan from the first key over at most reads entries */
    WL_SEEKRANDOM,   /* reads seeks to a random key, each reading seek_nexts entries */
    WL_DELETERANDOM, /* num deletes of uniformly random keys of the existing database */
    /* HBase-shaped: each starts empty and loads its cells untimed */
    WL_WIDEROW,      /* scans of one row of min(100000, num) qualifiers; ops = cells */
    WL_VERSIONS,     /* reads gets of a column's newest of 10 versions (num/10 columns) */
    WL_TIMERANGE,    /* the same data, gets of the newest version in [4, 7): ts 6 */
    WL_SMALLCELL,    /* reads gets of a small cell in rows that also hold a 64 KiB cell */
    WL_CHECKANDMUTATE, /* reads read-then-check-and-put increments of num/100 counters */
    /* on the loaded database */
    WL_READWRITE90,  /* reads operations on 2 threads: 90 % gets, 10 % puts, random keys */
    WL_COUNT
} workload_id;

/* The name of a workload ("fillseq"), and the reverse (-1 if unknown). */
const char *workload_name(workload_id w);
int workload_parse(const char *name);
/* Fill workloads start from an empty database. */
bool workload_is_fresh_fill(workload_id w);
/* Workloads that need a loaded database. */
bool workload_needs_data(workload_id w);
/* Workloads that write (the loaded data is then not fillseq's any more). */
bool workload_writes(workload_id w);

typedef struct workload_config {
    uint64_t num;          /* keys in the key space, and puts per fill */
    uint64_t reads;        /* operations of the read workloads */
    size_t key_size;
    size_t value_size;
    uint64_t seek_nexts;   /* entries read per seek */
    uint64_t seed;
    bool compressible;     /* values half compressible (compression on) */
} workload_config;

typedef struct workload_result {
    int failed;            /* nonzero: see err */
    uint64_t ops;          /* operations done (entries, for readseq) */
    double seconds;
    uint64_t found;        /* readrandom: keys found; scans: entries read */
    uint64_t bytes;        /* key and value bytes written or read */
    bool timed_ops;        /* each operation was timed: the latencies hold */
    double p50_us, p99_us, p999_us;
    uint64_t disk_bytes;   /* the database's files after the workload */
    char err[512];
} workload_result;

/* Values are slices of this pool of random bytes, as in db_bench. */
typedef struct value_pool {
    char *bytes;
    size_t size;
    size_t pos;
} value_pool;

/* compressible: each value's second half repeats its first, as db_bench's
   values at its default compression ratio of 0.5. */
int value_pool_init(value_pool *pool, size_t value_size, uint64_t seed, bool compressible);
void value_pool_free(value_pool *pool);

/* Runs workload @p w on the open engine @p e and fills *r (also on
 * failure). Returns 0 or -1. */
int workload_run(engine *e, workload_id w, const workload_config *cfg, value_pool *pool,
                 workload_result *r);

#endif
