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
/* Versions kept per column in the table of the HBase-shaped workloads
   (put_cell, get_cell, scan_row, check_and_put): the "versions" workload
   writes this many and reads the newest. */
#define CELL_VERSIONS 10

typedef struct engine_config {
    uint64_t write_buffer_size;   /* memtable / memstore bytes */
    uint64_t cache_size;          /* block cache bytes */
    uint32_t bloom_bits;          /* bloom filter bits per key; 0 = none */
    uint32_t block_size;          /* data block bytes; 0 = engine default */
    int compression;              /* ENGINE_COMPRESSION_* */
    int encoding;                 /* ENGINE_ENCODING_*: kvcore's DATA_BLOCK_ENCODING
                                     (LevelDB and RocksDB always share key prefixes) */
} engine_config;

enum { ENGINE_COMPRESSION_NONE, ENGINE_COMPRESSION_LZ4, ENGINE_COMPRESSION_SNAPPY };
enum { ENGINE_ENCODING_NONE, ENGINE_ENCODING_PREFIX, ENGINE_ENCODING_DIFF };

/* Called for each entry a seek_read meets; false stops the read. */
typedef bool (*engine_entry_fn)(void *ctx, const char *key, size_t key_len, const char *value,
                                size_t value_len);

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
    /* The members below may be NULL: a workload that needs one then fails
     * with "not supported". */
    /* One delete of a key (absent keys too). */
    int (*del)(engine *e, const char *key, size_t key_len);
    /* Flat stores: entries from the first key >= start while they begin
     * with start[0..prefix_len), at most limit (0: all), each given to fn. */
    int (*seek_read)(engine *e, const char *start, size_t start_len, size_t prefix_len,
                     uint64_t limit, engine_entry_fn fn, void *ctx);
    /* Cells of the HBase-shaped workloads (versions kept: at least 10). A
     * NULL member is done over put / seek_read with the flat layout of
     * engine_cells.c. */
    int (*put_cell)(engine *e, const char *row, size_t row_len, const char *qual,
                    size_t qual_len, int64_t ts, const char *value, size_t value_len);
    /* The newest version with ts in [tmin, tmax) of one column: *found, and
     * its bytes added to *bytes; when value is non-NULL, up to *value_len
     * bytes of the value are copied there and *value_len set to that. */
    int (*get_cell)(engine *e, const char *row, size_t row_len, const char *qual,
                    size_t qual_len, int64_t tmin, int64_t tmax, bool *found, uint64_t *bytes,
                    char *value, size_t *value_len);
    /* Every column's newest version in one row: *cells and their bytes. */
    int (*scan_row)(engine *e, const char *row, size_t row_len, uint64_t *cells,
                    uint64_t *bytes);
    /* Writes value at ts if the column's newest value equals expected
     * (expected NULL: the column is absent); *applied says whether it did. */
    int (*check_and_put)(engine *e, const char *row, size_t row_len, const char *qual,
                         size_t qual_len, const char *expected, size_t expected_len, int64_t ts,
                         const char *value, size_t value_len, bool *applied);
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

/* The cell operations of the flat stores (engine_cells.c): key = row 0x00
 * qualifier 0x00 ~ts (8 bytes, big-endian), newest first; over e->ops->put
 * and seek_read. check_and_put is a read then a write: not atomic, which
 * the single-threaded loop of checkandmutate does not need. */
int cells_put(engine *e, const char *row, size_t row_len, const char *qual, size_t qual_len,
              int64_t ts, const char *value, size_t value_len);
int cells_get(engine *e, const char *row, size_t row_len, const char *qual, size_t qual_len,
              int64_t tmin, int64_t tmax, bool *found, uint64_t *bytes, char *value,
              size_t *value_len);
int cells_scan_row(engine *e, const char *row, size_t row_len, uint64_t *cells, uint64_t *bytes);
int cells_check_and_put(engine *e, const char *row, size_t row_len, const char *qual,
                        size_t qual_len, const char *expected, size_t expected_len, int64_t ts,
                        const char *value, size_t value_len, bool *applied);

#endif
