/*
 * The RocksDB engine of cellbench, over Debian's librocksdb C API
 * (<rocksdb/c.h>). Default options and write options (WAL written, not
 * synced), compression as --compression says, and the shared write buffer, block cache, bloom
 * filter and block size through the block-based table options. Called
 * through engine.h by workload.c.
 */
#include <rocksdb/c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

#ifndef CELLBENCH_ROCKSDB_VERSION
#define CELLBENCH_ROCKSDB_VERSION "unknown"
#endif

typedef struct rdb {
    rocksdb_t *db;
    rocksdb_options_t *options;
    rocksdb_block_based_table_options_t *table;
    rocksdb_cache_t *cache;
    rocksdb_writeoptions_t *wopts;
    rocksdb_readoptions_t *ropts;
} rdb;

static void rdb_version(char *buf, size_t len) {
    snprintf(buf, len, "%s", CELLBENCH_ROCKSDB_VERSION);
}

static int fail(engine *e, const char *what, char *msg) {
    snprintf(e->err, sizeof e->err, "%s: %s", what, msg != NULL ? msg : "unknown error");
    rocksdb_free(msg);
    return -1;
}

static void rdb_free_all(rdb *r) {
    if (r->db != NULL)
        rocksdb_close(r->db);
    if (r->options != NULL)
        rocksdb_options_destroy(r->options);
    /* The table options own the filter policy they were given. */
    if (r->table != NULL)
        rocksdb_block_based_options_destroy(r->table);
    if (r->cache != NULL)
        rocksdb_cache_destroy(r->cache);
    if (r->wopts != NULL)
        rocksdb_writeoptions_destroy(r->wopts);
    if (r->ropts != NULL)
        rocksdb_readoptions_destroy(r->ropts);
    free(r);
}

static int rdb_open(engine *e, const char *dir, const engine_config *cfg) {
    rdb *r = calloc(1, sizeof *r);
    if (r == NULL) {
        snprintf(e->err, sizeof e->err, "out of memory");
        return -1;
    }
    r->options = rocksdb_options_create();
    rocksdb_options_set_create_if_missing(r->options, 1);
    rocksdb_options_set_write_buffer_size(r->options, cfg->write_buffer_size);
    int comp = rocksdb_no_compression;
    if (cfg->compression == ENGINE_COMPRESSION_LZ4)
        comp = rocksdb_lz4_compression;
    else if (cfg->compression == ENGINE_COMPRESSION_SNAPPY)
        comp = rocksdb_snappy_compression;
    rocksdb_options_set_compression(r->options, comp);
    r->table = rocksdb_block_based_options_create();
    r->cache = rocksdb_cache_create_lru(cfg->cache_size);
    rocksdb_block_based_options_set_block_cache(r->table, r->cache);
    if (cfg->bloom_bits > 0)
        rocksdb_block_based_options_set_filter_policy(
            r->table, rocksdb_filterpolicy_create_bloom((double)cfg->bloom_bits));
    if (cfg->block_size > 0)
        rocksdb_block_based_options_set_block_size(r->table, cfg->block_size);
    rocksdb_options_set_block_based_table_factory(r->options, r->table);
    r->wopts = rocksdb_writeoptions_create();
    r->ropts = rocksdb_readoptions_create();
    char *msg = NULL;
    r->db = rocksdb_open(r->options, dir, &msg);
    if (msg != NULL) {
        r->db = NULL;
        rdb_free_all(r);
        return fail(e, "rocksdb_open", msg);
    }
    e->db = r;
    return 0;
}

static int rdb_close(engine *e) {
    rdb_free_all(e->db);
    e->db = NULL;
    return 0;
}

static int rdb_put(engine *e, const char *key, size_t key_len, const char *value,
                   size_t value_len) {
    rdb *r = e->db;
    char *msg = NULL;
    rocksdb_put(r->db, r->wopts, key, key_len, value, value_len, &msg);
    return msg == NULL ? 0 : fail(e, "rocksdb_put", msg);
}

static int rdb_get(engine *e, const char *key, size_t key_len, bool *found) {
    rdb *r = e->db;
    char *msg = NULL;
    size_t vlen = 0;
    char *v = rocksdb_get(r->db, r->ropts, key, key_len, &vlen, &msg);
    if (msg != NULL)
        return fail(e, "rocksdb_get", msg);
    *found = v != NULL;
    rocksdb_free(v);
    return 0;
}

static int rdb_scan(engine *e, const char *start, size_t start_len, uint64_t limit,
                    uint64_t *entries, uint64_t *bytes) {
    rdb *r = e->db;
    rocksdb_iterator_t *it = rocksdb_create_iterator(r->db, r->ropts);
    if (start != NULL)
        rocksdb_iter_seek(it, start, start_len);
    else
        rocksdb_iter_seek_to_first(it);
    uint64_t n = 0, b = 0;
    for (; (limit == 0 || n < limit) && rocksdb_iter_valid(it); rocksdb_iter_next(it)) {
        size_t klen, vlen;
        (void)rocksdb_iter_key(it, &klen);
        (void)rocksdb_iter_value(it, &vlen);
        b += klen + vlen;
        n++;
    }
    char *msg = NULL;
    rocksdb_iter_get_error(it, &msg);
    rocksdb_iter_destroy(it);
    if (msg != NULL)
        return fail(e, "rocksdb iterator", msg);
    *entries = n;
    *bytes = b;
    return 0;
}

static int rdb_del(engine *e, const char *key, size_t key_len) {
    rdb *r = e->db;
    char *msg = NULL;
    rocksdb_delete(r->db, r->wopts, key, key_len, &msg);
    return msg == NULL ? 0 : fail(e, "rocksdb_delete", msg);
}

static int rdb_seek_read(engine *e, const char *start, size_t start_len, size_t prefix_len,
                         uint64_t limit, engine_entry_fn fn, void *ctx) {
    rdb *r = e->db;
    rocksdb_iterator_t *it = rocksdb_create_iterator(r->db, r->ropts);
    uint64_t n = 0;
    for (rocksdb_iter_seek(it, start, start_len); (limit == 0 || n < limit) && rocksdb_iter_valid(it);
         rocksdb_iter_next(it), n++) {
        size_t klen, vlen;
        const char *k = rocksdb_iter_key(it, &klen);
        const char *v = rocksdb_iter_value(it, &vlen);
        if (klen < prefix_len || memcmp(k, start, prefix_len) != 0 || !fn(ctx, k, klen, v, vlen))
            break;
    }
    char *msg = NULL;
    rocksdb_iter_get_error(it, &msg);
    rocksdb_iter_destroy(it);
    return msg == NULL ? 0 : fail(e, "rocksdb iterator", msg);
}

const engine_ops engine_rocksdb_ops = {
    "rocksdb", rdb_version, rdb_open, rdb_close, rdb_put, rdb_get, rdb_scan,
    rdb_del, rdb_seek_read, NULL, NULL, NULL, NULL,
};

const engine_ops *engine_find(const char *name) {
    static const engine_ops *const all[] = {&engine_kvcore_ops, &engine_leveldb_ops,
                                            &engine_rocksdb_ops, &engine_bigtable_ops};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (strcmp(all[i]->name, name) == 0)
            return all[i];
    return NULL;
}
