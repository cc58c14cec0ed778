/*
 * db_bench's workloads over the engine table of engine.h: key generation
 * from a seeded generator (every engine gets the same keys in the same
 * order), the timed loop, and its counts. Called by kvbench.c.
 */
#include "workload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static const char *const kNames[WL_COUNT] = {
    "fillseq", "fillrandom", "overwrite", "readrandom", "readseq", "seekrandom",
};

const char *workload_name(workload_id w) { return w < WL_COUNT ? kNames[w] : "?"; }

int workload_parse(const char *name) {
    for (int i = 0; i < WL_COUNT; i++)
        if (strcmp(kNames[i], name) == 0)
            return i;
    return -1;
}

bool workload_is_fresh_fill(workload_id w) { return w == WL_FILLSEQ || w == WL_FILLRANDOM; }

bool workload_needs_data(workload_id w) { return !workload_is_fresh_fill(w); }

int value_pool_init(value_pool *pool, size_t value_size, uint64_t seed) {
    /* Large enough that consecutive values differ; random bytes, since no
       engine compresses here. */
    pool->size = value_size * 4 > (1u << 20) ? value_size * 4 : (1u << 20);
    pool->pos = 0;
    pool->bytes = malloc(pool->size);
    if (pool->bytes == NULL)
        return -1;
    bench_rng rng;
    bench_rng_seed(&rng, seed ^ 0x5eed);
    for (size_t i = 0; i < pool->size; i++)
        pool->bytes[i] = (char)(' ' + bench_rng_uniform(&rng, 95));
    return 0;
}

void value_pool_free(value_pool *pool) {
    free(pool->bytes);
    pool->bytes = NULL;
}

static const char *next_value(value_pool *pool, size_t len) {
    if (pool->pos + len > pool->size)
        pool->pos = 0;
    const char *v = pool->bytes + pool->pos;
    pool->pos += len;
    return v;
}

static int do_writes(engine *e, const workload_config *cfg, value_pool *pool, bool sequential,
                     bench_rng *rng, char *key, workload_result *r) {
    for (uint64_t i = 0; i < cfg->num; i++) {
        uint64_t k = sequential ? i : bench_rng_uniform(rng, cfg->num);
        bench_key(key, cfg->key_size, k);
        if (e->ops->put(e, key, cfg->key_size, next_value(pool, cfg->value_size),
                        cfg->value_size) != 0)
            return -1;
        r->ops++;
    }
    return 0;
}

static int do_reads(engine *e, const workload_config *cfg, bench_rng *rng, char *key,
                    workload_result *r) {
    for (uint64_t i = 0; i < cfg->reads; i++) {
        bench_key(key, cfg->key_size, bench_rng_uniform(rng, cfg->num));
        bool found = false;
        if (e->ops->get(e, key, cfg->key_size, &found) != 0)
            return -1;
        r->found += found;
        r->ops++;
    }
    return 0;
}

static int do_seeks(engine *e, const workload_config *cfg, bench_rng *rng, char *key,
                    workload_result *r) {
    for (uint64_t i = 0; i < cfg->reads; i++) {
        bench_key(key, cfg->key_size, bench_rng_uniform(rng, cfg->num));
        uint64_t n = 0, bytes = 0;
        if (e->ops->scan(e, key, cfg->key_size, cfg->seek_nexts, &n, &bytes) != 0)
            return -1;
        r->found += n;
        r->ops++;
    }
    return 0;
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
    int rc = 0;
    double t0 = bench_now();
    switch (w) {
    case WL_FILLSEQ:
        rc = do_writes(e, cfg, pool, true, &rng, key, r);
        break;
    case WL_FILLRANDOM:
    case WL_OVERWRITE:
        rc = do_writes(e, cfg, pool, false, &rng, key, r);
        break;
    case WL_READRANDOM:
        rc = do_reads(e, cfg, &rng, key, r);
        break;
    case WL_READSEQ: {
        uint64_t bytes = 0;
        rc = e->ops->scan(e, NULL, 0, cfg->reads, &r->ops, &bytes);
        r->found = r->ops;
        break;
    }
    case WL_SEEKRANDOM:
        rc = do_seeks(e, cfg, &rng, key, r);
        break;
    default:
        snprintf(e->err, sizeof e->err, "unknown workload");
        rc = -1;
        break;
    }
    r->seconds = bench_now() - t0;
    free(key);
    if (rc != 0) {
        r->failed = 1;
        snprintf(r->err, sizeof r->err, "%s", e->err);
    }
    return rc;
}
