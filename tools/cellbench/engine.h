/*
 * The seam between the workloads and the stores they measure: each engine
 * (libkvcore, LevelDB, RocksDB) fills this table of operations over its
 * own C API. workload.c calls it; engine_kvcore.c, engine_leveldb.c and
 * engine_rocksdb.c implement it.
 *
 * Every operation returns 0, or -1 with the reason in engine->err.
 */
#ifndef CELLBENCH_ENGINE_H
#define CELLBENCH_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The settings every engine gets alike (cellbench's shared options). */
typedef struct engine_config {
    uint64_t write_buffer_size;   /* memtable / memstore bytes */
    uint64_t cache_size;          /* block cache bytes */
    uint32_t bloom_bits;          /* bloom filter bits per key; 0 = none */
    uint32_t block_size;          /* data block bytes; 0 = engine default */
} engine_config;

typedef struct engine engine;

typedef struct engine_ops {
    const char *name;             /* "kvcore", "leveldb", "rocksdb", "bigtable" */
    /* The library's version text, e.g. "1.23". */
    void (*version)(char *buf, size_t len);
    /* Opens or creates the database in directory @p dir. */
    int (*open)(engine *e, const char *dir, const engine_config *cfg);
    /* Closes it (flushing what the engine flushes at close). */
    int (*close)(engine *e);
    /* One write with the engine's default durability (WAL on, no sync). */
    int (*put)(engine *e, const char *key, size_t key_len, const char *value, size_t value_len);
    /* One point read; *found tells whether the key exists. */
    int (*get)(engine *e, const char *key, size_t key_len, bool *found);
    /* Reads up to @p limit entries in key order from @p start (NULL: the
     * first key); *entries gets how many, *bytes their key+value bytes. */
    int (*scan)(engine *e, const char *start, size_t start_len, uint64_t limit,
                uint64_t *entries, uint64_t *bytes);
} engine_ops;

struct engine {
    const engine_ops *ops;
    void *db;                     /* the engine's own state */
    char err[512];
};

extern const engine_ops engine_kvcore_ops;
extern const engine_ops engine_leveldb_ops;
extern const engine_ops engine_rocksdb_ops;
extern const engine_ops engine_bigtable_ops;   /* Google's emulator only */

/* The engine named @p name, or NULL. */
const engine_ops *engine_find(const char *name);

#endif
