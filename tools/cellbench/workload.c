/*
 * db_bench's workloads over the engine table of engine.h: key generation
 * from a seeded generator (every engine gets the same keys in the same
 * order), the timed loop, and its counts. Called by kvbench.c.
 */
#include "workload.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util.h"

static const char *const kNames[WL_COUNT] = {
    "fillseq", "fillrandom", "overwrite", "readrandom", "readseq", "seekrandom",
    "deleterandom", "widerow", "versions", "timerange", "smallcell", "checkandmutate",
    "readwrite90",
};

/* ---- latencies: a log-linear histogram of nanoseconds (8 steps per
   power of two, so a percentile is within 12 %) ---- */
#define HIST_SUB 8
#define HIST_BUCKETS (HIST_SUB * 64)

typedef struct hist {
    uint64_t n[HIST_BUCKETS];
    uint64_t count;
} hist;

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static size_t bucket_of(uint64_t ns) {
    if (ns < HIST_SUB)
        return (size_t)ns;
    int e = 63 - __builtin_clzll(ns);          /* >= 3 */
    size_t sub = (size_t)(ns >> (e - 3)) & (HIST_SUB - 1);
    return (size_t)(e - 2) * HIST_SUB + sub;
}

/* The smallest value of a bucket. */
static double bucket_low(size_t b) {
    if (b < HIST_SUB)
        return (double)b;
    int e = (int)(b / HIST_SUB) + 2;
    return (double)((uint64_t)(HIST_SUB + b % HIST_SUB) << (e - 3));
}

static void hist_add(hist *h, uint64_t ns) {
    h->n[bucket_of(ns)]++;
    h->count++;
}

static void hist_merge(hist *into, const hist *h) {
    for (size_t i = 0; i < HIST_BUCKETS; i++)
        into->n[i] += h->n[i];
    into->count += h->count;
}

/* The q-quantile in microseconds (the middle of its bucket). */
static double hist_quantile(const hist *h, double q) {
    if (h->count == 0)
        return 0;
    uint64_t rank = (uint64_t)(q * (double)(h->count - 1)) + 1, seen = 0;
    for (size_t i = 0; i < HIST_BUCKETS; i++) {
        seen += h->n[i];
        if (seen >= rank)
            return (bucket_low(i) + (i + 1 < HIST_BUCKETS ? bucket_low(i + 1) : bucket_low(i))) / 2e3;
    }
    return 0;
}

/* Times one engine call into h. */
#define TIMED(h, call)                                                         \
    ({                                                                         \
        uint64_t t0_ = now_ns();                                               \
        int rc_ = (call);                                                      \
        hist_add((h), now_ns() - t0_);                                         \
        rc_;                                                                   \
    })

const char *workload_name(workload_id w) { return w < WL_COUNT ? kNames[w] : "?"; }

int workload_parse(const char *name) {
    for (int i = 0; i < WL_COUNT; i++)
        if (strcmp(kNames[i], name) == 0)
            return i;
    return -1;
}

bool workload_is_fresh_fill(workload_id w) { return w == WL_FILLSEQ || w == WL_FILLRANDOM; }

/* The HBase-shaped workloads load their own cells into an empty database. */
static bool loads_cells(workload_id w) {
    return w == WL_WIDEROW || w == WL_VERSIONS || w == WL_TIMERANGE || w == WL_SMALLCELL ||
           w == WL_CHECKANDMUTATE;
}

bool workload_needs_data(workload_id w) { return !workload_is_fresh_fill(w) && !loads_cells(w); }

bool workload_writes(workload_id w) {
    return w != WL_READRANDOM && w != WL_READSEQ && w != WL_SEEKRANDOM;
}

int value_pool_init(value_pool *pool, size_t value_size, uint64_t seed, bool compressible) {
    /* Large enough that consecutive values differ; random printable bytes
       (about 6.6 bits of entropy in 8), or halves repeated. */
    pool->size = value_size * 4 > (1u << 20) ? value_size * 4 : (1u << 20);
    pool->pos = 0;
    pool->bytes = malloc(pool->size);
    if (pool->bytes == NULL)
        return -1;
    bench_rng rng;
    bench_rng_seed(&rng, seed ^ 0x5eed);
    for (size_t i = 0; i < pool->size; i++)
        pool->bytes[i] = (char)(' ' + bench_rng_uniform(&rng, 95));
    if (compressible && value_size >= 2) {
        /* next_value hands out consecutive slices of value_size bytes */
        size_t half = value_size / 2;
        for (size_t at = 0; at + value_size <= pool->size; at += value_size)
            memcpy(pool->bytes + at + value_size - half, pool->bytes + at, half);
    }
    return 0;
}

void value_pool_free(value_pool *pool) {
    free(pool->bytes);
    pool->bytes = NULL;
}

static const char *next_value(value_pool *pool, size_t len) {
    if (pool->pos + len > pool->size || len == 0)
        pool->pos = 0;
    const char *v = pool->bytes + pool->pos;
    pool->pos += len;
    return v;
}

static int do_writes(engine *e, const workload_config *cfg, value_pool *pool, bool sequential,
                     bench_rng *rng, char *key, workload_result *r, hist *h) {
    for (uint64_t i = 0; i < cfg->num; i++) {
        uint64_t k = sequential ? i : bench_rng_uniform(rng, cfg->num);
        bench_key(key, cfg->key_size, k);
        const char *v = next_value(pool, cfg->value_size);
        if (TIMED(h, e->ops->put(e, key, cfg->key_size, v, cfg->value_size)) != 0)
            return -1;
        r->ops++;
        r->bytes += cfg->key_size + cfg->value_size;
    }
    return 0;
}

static int do_deletes(engine *e, const workload_config *cfg, bench_rng *rng, char *key,
                      workload_result *r, hist *h) {
    if (e->ops->del == NULL) {
        snprintf(e->err, sizeof e->err, "not supported by the %s engine", e->ops->name);
        return -1;
    }
    for (uint64_t i = 0; i < cfg->num; i++) {
        bench_key(key, cfg->key_size, bench_rng_uniform(rng, cfg->num));
        if (TIMED(h, e->ops->del(e, key, cfg->key_size)) != 0)
            return -1;
        r->ops++;
        r->bytes += cfg->key_size;
    }
    return 0;
}

static int do_reads(engine *e, const workload_config *cfg, bench_rng *rng, char *key,
                    workload_result *r, hist *h) {
    for (uint64_t i = 0; i < cfg->reads; i++) {
        bench_key(key, cfg->key_size, bench_rng_uniform(rng, cfg->num));
        bool found = false;
        if (TIMED(h, e->ops->get(e, key, cfg->key_size, &found)) != 0)
            return -1;
        r->found += found;
        r->ops++;
        r->bytes += cfg->key_size + (found ? cfg->value_size : 0);
    }
    return 0;
}

static int do_seeks(engine *e, const workload_config *cfg, bench_rng *rng, char *key,
                    workload_result *r, hist *h) {
    for (uint64_t i = 0; i < cfg->reads; i++) {
        bench_key(key, cfg->key_size, bench_rng_uniform(rng, cfg->num));
        uint64_t n = 0, bytes = 0;
        if (TIMED(h, e->ops->scan(e, key, cfg->key_size, cfg->seek_nexts, &n, &bytes)) != 0)
            return -1;
        r->found += n;
        r->ops++;
        r->bytes += bytes;
    }
    return 0;
}

/* ---- HBase-shaped workloads ---- */

#define WIDE_QUALIFIERS 100000
#define COUNTER_ROWS_PER 100     /* checkandmutate: num / 100 counters */
#define SMALLCELL_ROWS_PER 1000  /* smallcell: num / 1000 rows */
#define SMALLCELL_BIG (64 * 1024) /* the size of each row's other cell */

static int put_cell(engine *e, const char *row, size_t rl, const char *q, size_t ql, int64_t ts,
                    const char *v, size_t vl) {
    return e->ops->put_cell ? e->ops->put_cell(e, row, rl, q, ql, ts, v, vl)
                            : cells_put(e, row, rl, q, ql, ts, v, vl);
}

static int get_cell(engine *e, const char *row, size_t rl, const char *q, size_t ql, int64_t tmin,
                    int64_t tmax, bool *found, uint64_t *bytes, char *value, size_t *value_len) {
    return e->ops->get_cell
               ? e->ops->get_cell(e, row, rl, q, ql, tmin, tmax, found, bytes, value, value_len)
               : cells_get(e, row, rl, q, ql, tmin, tmax, found, bytes, value, value_len);
}

static uint64_t wide_qualifiers(const workload_config *cfg) {
    return cfg->num < WIDE_QUALIFIERS ? (cfg->num ? cfg->num : 1) : WIDE_QUALIFIERS;
}

static uint64_t version_columns(const workload_config *cfg) {
    return cfg->num / CELL_VERSIONS ? cfg->num / CELL_VERSIONS : 1;
}

static uint64_t smallcell_rows(const workload_config *cfg) {
    return cfg->num / SMALLCELL_ROWS_PER ? cfg->num / SMALLCELL_ROWS_PER : 1;
}

/* Loads what the HBase-shaped workload w reads (untimed). */
static int load_cells(engine *e, workload_id w, const workload_config *cfg, value_pool *pool) {
    char q[32];
    if (w == WL_WIDEROW) {
        for (uint64_t i = 0; i < wide_qualifiers(cfg); i++) {
            int ql = snprintf(q, sizeof q, "q%08" PRIu64, i);
            if (put_cell(e, "wide", 4, q, (size_t)ql, 1, next_value(pool, cfg->value_size),
                         cfg->value_size) != 0)
                return -1;
        }
        return 0;
    }
    if (w == WL_VERSIONS || w == WL_TIMERANGE) {
        char *row = malloc(cfg->key_size);
        if (row == NULL)
            return -1;
        int rc = 0;
        for (uint64_t i = 0; rc == 0 && i < version_columns(cfg); i++) {
            bench_key(row, cfg->key_size, i);
            for (int64_t ts = 1; rc == 0 && ts <= CELL_VERSIONS; ts++)
                rc = put_cell(e, row, cfg->key_size, "q", 1, ts, next_value(pool, cfg->value_size),
                              cfg->value_size);
        }
        free(row);
        return rc;
    }
    if (w == WL_SMALLCELL) {
        /* each row: "b" (64 KiB, sorts first) and "s" (value_size bytes) */
        char *row = malloc(cfg->key_size);
        if (row == NULL)
            return -1;
        int rc = 0;
        for (uint64_t i = 0; rc == 0 && i < smallcell_rows(cfg); i++) {
            bench_key(row, cfg->key_size, i);
            rc = put_cell(e, row, cfg->key_size, "b", 1, 1, next_value(pool, SMALLCELL_BIG),
                          SMALLCELL_BIG);
            if (rc == 0)
                rc = put_cell(e, row, cfg->key_size, "s", 1, 1, next_value(pool, cfg->value_size),
                              cfg->value_size);
        }
        free(row);
        return rc;
    }
    return 0;   /* checkandmutate starts from absent counters */
}

static int do_widerow(engine *e, const workload_config *cfg, workload_result *r, hist *h) {
    uint64_t passes = cfg->reads / WIDE_QUALIFIERS ? cfg->reads / WIDE_QUALIFIERS : 1;
    for (uint64_t i = 0; i < passes; i++) {
        uint64_t cells = 0, bytes = 0;
        int rc = e->ops->scan_row ? TIMED(h, e->ops->scan_row(e, "wide", 4, &cells, &bytes))
                                  : TIMED(h, cells_scan_row(e, "wide", 4, &cells, &bytes));
        if (rc != 0)
            return -1;
        r->ops += cells;
        r->found += cells;
        r->bytes += bytes;
    }
    return 0;
}

/* reads gets of column q of a random one of rows rows. */
static int do_column_reads(engine *e, const workload_config *cfg, bench_rng *rng, char *key,
                           uint64_t rows, const char *q, int64_t tmin, int64_t tmax,
                           workload_result *r, hist *h) {
    for (uint64_t i = 0; i < cfg->reads; i++) {
        bench_key(key, cfg->key_size, bench_rng_uniform(rng, rows));
        bool found = false;
        if (TIMED(h, get_cell(e, key, cfg->key_size, q, 1, tmin, tmax, &found, &r->bytes, NULL,
                              NULL)) != 0)
            return -1;
        r->found += found;
        r->ops++;
    }
    return 0;
}

static int do_check_and_mutate(engine *e, const workload_config *cfg, bench_rng *rng, char *key,
                               workload_result *r, hist *h) {
    uint64_t rows = cfg->num / COUNTER_ROWS_PER ? cfg->num / COUNTER_ROWS_PER : 1;
    for (uint64_t i = 0; i < cfg->reads; i++) {
        bench_key(key, cfg->key_size, bench_rng_uniform(rng, rows));
        /* read the counter, then write counter + 1 if it is still that */
        uint64_t t0 = now_ns();
        char cur[32], next[32];
        size_t cur_len = sizeof cur - 1;
        bool found = false, applied = false;
        if (get_cell(e, key, cfg->key_size, "n", 1, INT64_MIN, INT64_MAX, &found, &r->bytes, cur,
                     &cur_len) != 0)
            return -1;
        cur[found ? cur_len : 0] = '\0';
        int nl = snprintf(next, sizeof next, "%" PRIu64, (uint64_t)strtoull(cur, NULL, 10) + 1);
        const char *expect = found ? cur : NULL;
        int rc = e->ops->check_and_put
                     ? e->ops->check_and_put(e, key, cfg->key_size, "n", 1, expect, cur_len,
                                             (int64_t)i + 1, next, (size_t)nl, &applied)
                     : cells_check_and_put(e, key, cfg->key_size, "n", 1, expect, cur_len,
                                           (int64_t)i + 1, next, (size_t)nl, &applied);
        if (rc != 0)
            return -1;
        hist_add(h, now_ns() - t0);
        r->found += applied;
        r->ops++;
        r->bytes += cfg->key_size + (size_t)nl;
    }
    return 0;
}

/* readwrite90: one of the two threads. */
typedef struct mix_thread {
    engine *e;
    const workload_config *cfg;
    const char *values;          /* a private slice of the pool's bytes */
    size_t nvalues;
    uint64_t ops, seed;
    workload_result r;
    hist h;
    int rc;
} mix_thread;

static void *mix_main(void *arg) {
    mix_thread *t = arg;
    const workload_config *cfg = t->cfg;
    char key[64];
    bench_rng rng;
    bench_rng_seed(&rng, t->seed);
    for (uint64_t i = 0; i < t->ops; i++) {
        bench_key(key, cfg->key_size, bench_rng_uniform(&rng, cfg->num));
        if (bench_rng_uniform(&rng, 10) == 0) {
            const char *v = t->values + (i % t->nvalues) * cfg->value_size;
            if (TIMED(&t->h, t->e->ops->put(t->e, key, cfg->key_size, v, cfg->value_size)) != 0) {
                t->rc = -1;
                return NULL;
            }
            t->r.bytes += cfg->key_size + cfg->value_size;
        } else {
            bool found = false;
            if (TIMED(&t->h, t->e->ops->get(t->e, key, cfg->key_size, &found)) != 0) {
                t->rc = -1;
                return NULL;
            }
            t->r.found += found;
            t->r.bytes += cfg->key_size + (found ? cfg->value_size : 0);
        }
        t->r.ops++;
    }
    return NULL;
}

#define MIX_THREADS 2

static int do_mix(engine *e, const workload_config *cfg, value_pool *pool, workload_result *r,
                  hist *h) {
    mix_thread *t = calloc(MIX_THREADS, sizeof *t);
    if (t == NULL) {
        snprintf(e->err, sizeof e->err, "out of memory");
        return -1;
    }
    pthread_t th[MIX_THREADS];
    size_t nvalues = cfg->value_size ? pool->size / cfg->value_size / MIX_THREADS : 0;
    int started = 0, rc = 0;
    for (int k = 0; k < MIX_THREADS; k++) {
        t[k] = (mix_thread){e, cfg, pool->bytes + (size_t)k * nvalues * cfg->value_size,
                            nvalues ? nvalues : 1, cfg->reads / MIX_THREADS,
                            cfg->seed * 7919u + (uint64_t)k, {0}, {{0}, 0}, 0};
        if (pthread_create(&th[k], NULL, mix_main, &t[k]) != 0) {
            snprintf(e->err, sizeof e->err, "cannot start a thread");
            rc = -1;
            break;
        }
        started++;
    }
    for (int k = 0; k < started; k++) {
        pthread_join(th[k], NULL);
        rc |= t[k].rc;
        r->ops += t[k].r.ops;
        r->found += t[k].r.found;
        r->bytes += t[k].r.bytes;
        hist_merge(h, &t[k].h);
    }
    free(t);
    return rc;
}

int workload_run(engine *e, workload_id w, const workload_config *cfg, value_pool *pool,
                 workload_result *r) {
    memset(r, 0, sizeof *r);
    char *key = malloc(cfg->key_size);
    if (key == NULL) {
        snprintf(r->err, sizeof r->err, "out of memory");
        r->failed = 1;
        return -1;
    }
    /* Each workload has its own stream, so that every engine, and a run of
       one workload alone, sees the same keys. */
    bench_rng rng;
    bench_rng_seed(&rng, cfg->seed * 1000003u + (uint64_t)w);
    e->err[0] = '\0';
    hist *h = calloc(1, sizeof *h);
    if (h == NULL) {
        free(key);
        snprintf(r->err, sizeof r->err, "out of memory");
        r->failed = 1;
        return -1;
    }
    int rc = loads_cells(w) ? load_cells(e, w, cfg, pool) : 0;
    double t0 = bench_now();
    switch (rc != 0 ? WL_COUNT + 1 : (int)w) {
    case WL_COUNT + 1:
        break;
    case WL_FILLSEQ:
        rc = do_writes(e, cfg, pool, true, &rng, key, r, h);
        break;
    case WL_FILLRANDOM:
    case WL_OVERWRITE:
        rc = do_writes(e, cfg, pool, false, &rng, key, r, h);
        break;
    case WL_READRANDOM:
        rc = do_reads(e, cfg, &rng, key, r, h);
        break;
    case WL_READSEQ:
        rc = e->ops->scan(e, NULL, 0, cfg->reads, &r->ops, &r->bytes);
        r->found = r->ops;
        break;
    case WL_SEEKRANDOM:
        rc = do_seeks(e, cfg, &rng, key, r, h);
        break;
    case WL_DELETERANDOM:
        rc = do_deletes(e, cfg, &rng, key, r, h);
        break;
    case WL_WIDEROW:
        rc = do_widerow(e, cfg, r, h);
        break;
    case WL_VERSIONS:
        rc = do_column_reads(e, cfg, &rng, key, version_columns(cfg), "q", INT64_MIN, INT64_MAX,
                             r, h);
        break;
    case WL_TIMERANGE:
        rc = do_column_reads(e, cfg, &rng, key, version_columns(cfg), "q", 4, 7, r, h);
        break;
    case WL_SMALLCELL:
        rc = do_column_reads(e, cfg, &rng, key, smallcell_rows(cfg), "s", INT64_MIN, INT64_MAX,
                             r, h);
        break;
    case WL_CHECKANDMUTATE:
        rc = do_check_and_mutate(e, cfg, &rng, key, r, h);
        break;
    case WL_READWRITE90:
        rc = do_mix(e, cfg, pool, r, h);
        break;
    default:
        snprintf(e->err, sizeof e->err, "unknown workload");
        rc = -1;
        break;
    }
    r->seconds = bench_now() - t0;
    /* a widerow "operation" is a cell; its latency is one scan of the row */
    r->timed_ops = h->count > 0;
    r->p50_us = hist_quantile(h, 0.5);
    r->p99_us = hist_quantile(h, 0.99);
    r->p999_us = hist_quantile(h, 0.999);
    free(h);
    free(key);
    if (rc != 0) {
        r->failed = 1;
        snprintf(r->err, sizeof r->err, "%s", e->err);
    }
    return rc;
}
