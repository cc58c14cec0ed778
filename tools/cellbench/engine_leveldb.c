/*
 * The LevelDB engine of cellbench, over Debian's libleveldb C API
 * (<leveldb/c.h>). Default write options (the log is written, not synced),
 * compression as --compression says (Snappy for LZ4: LevelDB has no LZ4), and the shared write buffer, block cache, bloom filter
 * and block size. Called through engine.h by workload.c.
 */
#include <leveldb/c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

typedef struct ldb {
    leveldb_t *db;
    leveldb_options_t *options;
    leveldb_cache_t *cache;
    leveldb_filterpolicy_t *filter;
    leveldb_writeoptions_t *wopts;
    leveldb_readoptions_t *ropts;
} ldb;

static void ldb_version(char *buf, size_t len) {
    snprintf(buf, len, "%d.%d", leveldb_major_version(), leveldb_minor_version());
}

static int fail(engine *e, const char *what, char *msg) {
    snprintf(e->err, sizeof e->err, "%s: %s", what, msg != NULL ? msg : "unknown error");
    leveldb_free(msg);
    return -1;
}

static void ldb_free_all(ldb *l) {
    if (l->db != NULL)
        leveldb_close(l->db);
    if (l->options != NULL)
        leveldb_options_destroy(l->options);
    if (l->cache != NULL)
        leveldb_cache_destroy(l->cache);
    if (l->filter != NULL)
        leveldb_filterpolicy_destroy(l->filter);
    if (l->wopts != NULL)
        leveldb_writeoptions_destroy(l->wopts);
    if (l->ropts != NULL)
        leveldb_readoptions_destroy(l->ropts);
    free(l);
}

static int ldb_open(engine *e, const char *dir, const engine_config *cfg) {
    ldb *l = calloc(1, sizeof *l);
    if (l == NULL) {
        snprintf(e->err, sizeof e->err, "out of memory");
        return -1;
    }
    l->options = leveldb_options_create();
    leveldb_options_set_create_if_missing(l->options, 1);
    leveldb_options_set_write_buffer_size(l->options, cfg->write_buffer_size);
    l->cache = leveldb_cache_create_lru(cfg->cache_size);
    leveldb_options_set_cache(l->options, l->cache);
    /* LevelDB has no LZ4: it compresses with Snappy when asked for LZ4. */
    leveldb_options_set_compression(l->options, cfg->compression == ENGINE_COMPRESSION_NONE
                                                  ? leveldb_no_compression
                                                  : leveldb_snappy_compression);
    if (cfg->bloom_bits > 0) {
        l->filter = leveldb_filterpolicy_create_bloom((int)cfg->bloom_bits);
        leveldb_options_set_filter_policy(l->options, l->filter);
    }
    if (cfg->block_size > 0)
        leveldb_options_set_block_size(l->options, cfg->block_size);
    l->wopts = leveldb_writeoptions_create();
    l->ropts = leveldb_readoptions_create();
    char *msg = NULL;
    l->db = leveldb_open(l->options, dir, &msg);
    if (msg != NULL) {
        l->db = NULL;
        ldb_free_all(l);
        return fail(e, "leveldb_open", msg);
    }
    e->db = l;
    return 0;
}

static int ldb_close(engine *e) {
    ldb_free_all(e->db);
    e->db = NULL;
    return 0;
}

static int ldb_put(engine *e, const char *key, size_t key_len, const char *value,
                   size_t value_len) {
    ldb *l = e->db;
    char *msg = NULL;
    leveldb_put(l->db, l->wopts, key, key_len, value, value_len, &msg);
    return msg == NULL ? 0 : fail(e, "leveldb_put", msg);
}

static int ldb_get(engine *e, const char *key, size_t key_len, bool *found) {
    ldb *l = e->db;
    char *msg = NULL;
    size_t vlen = 0;
    char *v = leveldb_get(l->db, l->ropts, key, key_len, &vlen, &msg);
    if (msg != NULL)
        return fail(e, "leveldb_get", msg);
    *found = v != NULL;
    leveldb_free(v);
    return 0;
}

static int ldb_scan(engine *e, const char *start, size_t start_len, uint64_t limit,
                    uint64_t *entries, uint64_t *bytes) {
    ldb *l = e->db;
    leveldb_iterator_t *it = leveldb_create_iterator(l->db, l->ropts);
    if (start != NULL)
        leveldb_iter_seek(it, start, start_len);
    else
        leveldb_iter_seek_to_first(it);
    uint64_t n = 0, b = 0;
    for (; (limit == 0 || n < limit) && leveldb_iter_valid(it); leveldb_iter_next(it)) {
        size_t klen, vlen;
        (void)leveldb_iter_key(it, &klen);
        (void)leveldb_iter_value(it, &vlen);
        b += klen + vlen;
        n++;
    }
    char *msg = NULL;
    leveldb_iter_get_error(it, &msg);
    leveldb_iter_destroy(it);
    if (msg != NULL)
        return fail(e, "leveldb iterator", msg);
    *entries = n;
    *bytes = b;
    return 0;
}

static int ldb_del(engine *e, const char *key, size_t key_len) {
    ldb *l = e->db;
    char *msg = NULL;
    leveldb_delete(l->db, l->wopts, key, key_len, &msg);
    return msg == NULL ? 0 : fail(e, "leveldb_delete", msg);
}

static int ldb_seek_read(engine *e, const char *start, size_t start_len, size_t prefix_len,
                         uint64_t limit, engine_entry_fn fn, void *ctx) {
    ldb *l = e->db;
    leveldb_iterator_t *it = leveldb_create_iterator(l->db, l->ropts);
    uint64_t n = 0;
    for (leveldb_iter_seek(it, start, start_len); (limit == 0 || n < limit) && leveldb_iter_valid(it);
         leveldb_iter_next(it), n++) {
        size_t klen, vlen;
        const char *k = leveldb_iter_key(it, &klen);
        const char *v = leveldb_iter_value(it, &vlen);
        if (klen < prefix_len || memcmp(k, start, prefix_len) != 0 || !fn(ctx, k, klen, v, vlen))
            break;
    }
    char *msg = NULL;
    leveldb_iter_get_error(it, &msg);
    leveldb_iter_destroy(it);
    return msg == NULL ? 0 : fail(e, "leveldb iterator", msg);
}

const engine_ops engine_leveldb_ops = {
    "leveldb", ldb_version, ldb_open, ldb_close, ldb_put, ldb_get, ldb_scan,
    ldb_del, ldb_seek_read, NULL, NULL, NULL, NULL,
};
