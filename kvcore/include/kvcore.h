/**
 * @file kvcore.h
 * libkvcore: an embedded, durable table store with the HBase / BigTable data
 * model (namespaces, tables, column families, qualifiers, timestamped
 * versions, delete markers, TTL, compaction) on a log-structured merge core.
 *
 * This is the only header that users of the library (cellfs, cellsh,
 * cellbench) include. It is also the seam for other backends: a program
 * written against these calls does not know how the store keeps its cells.
 *
 * Conventions
 *  - Every call that can fail returns a kv_status: KV_OK (0) or a negative
 *    code; kv_strerror() names it and kv_store_errmsg() gives the detail of
 *    the calling thread's last failure on a store ("corrupt block in
 *    000012.sst at offset 8").
 *    KV_NOT_FOUND is an answer, not a failure.
 *  - Out-parameters come first. Options structs have an initialiser macro;
 *    a NULL options pointer means the defaults.
 *  - Byte strings (rows, qualifiers, values) are pointer + length and may
 *    hold any bytes. Names (namespaces, tables, families) are C strings.
 *  - A table name is "ns:table" or "table" (= "default:table").
 *  - Timestamps are signed 64-bit milliseconds since the epoch.
 *
 * Threads: a kv_store may be used from any number of threads at once. A
 * kv_scan, kv_result or kv_mutation belongs to one thread at a time.
 */
#ifndef KVCORE_H
#define KVCORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KVCORE_VERSION "0.1.0"

/* ------------------------------------------------------------------------ */
/* Status                                                                    */
/* ------------------------------------------------------------------------ */

typedef enum kv_status {
    KV_OK = 0,
    KV_NOT_FOUND = -1,      /* no such cell/row/table/namespace; end of scan */
    KV_INVALID = -2,        /* bad argument, malformed name or filter */
    KV_EXISTS = -3,         /* namespace or table already exists */
    KV_CORRUPT = -4,        /* a checksum or format check failed */
    KV_IO = -5,             /* an I/O call failed (see kv_store_errmsg) */
    KV_NO_SPACE = -6,       /* the disk is full; nothing acknowledged lost */
    KV_LOCKED = -7,         /* another process holds the store */
    KV_DISABLED = -8,       /* the table is disabled */
    KV_ENABLED = -9,        /* the table must be disabled first */
    KV_NOT_EMPTY = -10,     /* the namespace still holds tables */
    KV_NO_FAMILY = -11,     /* the table has no such column family */
    KV_TOO_LARGE = -12,     /* a key or value above the store's limits */
    KV_NOT_COUNTER = -13,   /* increment of a value that is not 8 bytes */
    KV_READ_ONLY = -14,     /* store opened read-only */
    KV_NO_MEMORY = -15,     /* allocation failed */
} kv_status;

/** Returns a static, human-readable name of a status code. */
const char *kv_strerror(int status);

/* ------------------------------------------------------------------------ */
/* Store                                                                     */
/* ------------------------------------------------------------------------ */

typedef struct kv_store kv_store;

/** Log levels passed to kv_store_options.log. */
enum { KV_LOG_ERROR = 0, KV_LOG_WARN = 1, KV_LOG_INFO = 2 };

typedef struct kv_store_options {
    bool create_if_missing;       /* create the directory and an empty store */
    bool error_if_exists;         /* fail with KV_EXISTS if a store is there */
    bool read_only;               /* refuse writes; still takes the lock */
    size_t write_buffer_size;     /* memstore bytes before a flush (all
                                     families together); default 64 MiB */
    size_t block_cache_size;      /* block cache byte budget; default 64 MiB */
    size_t max_value_size;        /* KV_TOO_LARGE above this; default 64 MiB */
    /* Free-form text written into the lock file beside the pid, so that a
       second opener can say who holds the store ("cellfs mounted at /mnt").
       May be NULL. */
    const char *owner;
    /* Optional log sink for background errors and warnings; called from any
       thread. NULL: errors go nowhere but kv_store_errmsg. */
    void (*log)(void *ctx, int level, const char *message);
    void *log_ctx;
    /* I/O layer; NULL = POSIX. Kept by pointer; must outlive the store. */
    struct kv_env *env;
    /* Clock for implicit timestamps (ms); NULL = the real-time clock. */
    int64_t (*clock_ms)(void *ctx);
    void *clock_ctx;
    /* How long to wait for another holder to release the store before
       failing with KV_LOCKED (milliseconds; 0 = fail at once). A process
       that just unmounted the store may still be closing it. */
    unsigned lock_wait_ms;
} kv_store_options;

#define KV_STORE_OPTIONS_INIT \
    { false, false, false, 64u << 20, 64u << 20, 64u << 20, NULL, NULL, NULL, NULL, NULL, NULL, 0 }

/**
 * Opens (or with create_if_missing creates) the store in directory @p path,
 * replays its write-ahead log and starts its background thread.
 * On success *out holds the handle; close it with kv_store_close.
 * An existing directory must hold a store or be empty: one holding other
 * files is refused (KV_INVALID) and left untouched.
 * Errors: KV_NOT_FOUND (no store and not create_if_missing, or no parent
 * directory), KV_EXISTS (error_if_exists), KV_INVALID,
 * KV_LOCKED (another opener; the message names its pid and owner text),
 * KV_CORRUPT, KV_IO. On failure *out is NULL; when @p errmsg is non-NULL
 * the detail is written there (at most @p errlen bytes, NUL-terminated).
 */
kv_status kv_store_open(kv_store **out, const char *path, const kv_store_options *opts,
                        char *errmsg, size_t errlen);

/**
 * Flushes every memstore to sorted files, waits for background work, syncs,
 * releases the lock and frees the handle. Returns the first error of the
 * flush; the handle is freed in every case. NULL is a no-op.
 */
kv_status kv_store_close(kv_store *store);

/** The detail text of the calling thread's last failure on this store (""
 *  if none), such as "corrupt block in /s/000012.sst at offset 8192". Each
 *  thread sees its own failures only. The pointer stays valid until the
 *  thread's next failing call on the store (or until 32 other threads have
 *  failed since); copy it to keep it. */
const char *kv_store_errmsg(kv_store *store);

typedef struct kv_store_stats {
    uint64_t disk_bytes;        /* bytes of sorted files + log */
    uint64_t memstore_bytes;    /* bytes in memory buffers */
    uint64_t sorted_files;      /* number of sorted files */
    uint64_t cache_bytes;       /* bytes held by the block cache */
    uint64_t flushes;           /* flushes done since open */
    uint64_t compactions;       /* compactions done since open */
    uint64_t last_sequence;     /* sequence number of the newest mutation */
} kv_store_stats;

/** Fills *out with figures about the store. */
kv_status kv_store_stat(kv_store_stats *out, kv_store *store);

/** The current value of the store's clock for implicit timestamps: never
 *  smaller than any implicit timestamp handed out before. */
int64_t kv_store_now(kv_store *store);

/* ------------------------------------------------------------------------ */
/* Catalog: namespaces, tables, families                                    */
/* ------------------------------------------------------------------------ */

#define KV_NAME_MAX 255          /* longest namespace, table or family name */
#define KV_FOREVER INT64_MAX     /* TTL that never expires */

typedef enum kv_keep_deleted { KV_KEEP_DELETED_FALSE = 0, KV_KEEP_DELETED_TRUE = 1, KV_KEEP_DELETED_TTL = 2 } kv_keep_deleted;
typedef enum kv_compression { KV_COMPRESSION_NONE = 0, KV_COMPRESSION_LZ4 = 1, KV_COMPRESSION_SNAPPY = 2 } kv_compression;
typedef enum kv_bloom { KV_BLOOM_NONE = 0, KV_BLOOM_ROW = 1, KV_BLOOM_ROWCOL = 2 } kv_bloom;
typedef enum kv_encoding { KV_ENCODING_NONE = 0, KV_ENCODING_PREFIX = 1, KV_ENCODING_DIFF = 2 } kv_encoding;

/** A column family's attributes, with HBase's names and defaults. */
typedef struct kv_family_desc {
    char name[KV_NAME_MAX + 1];
    int32_t versions;            /* VERSIONS, >= 1 */
    int32_t min_versions;        /* MIN_VERSIONS, 0 <= min <= versions */
    int64_t ttl_seconds;         /* TTL; KV_FOREVER for none */
    kv_keep_deleted keep_deleted;/* KEEP_DELETED_CELLS */
    kv_compression compression;  /* COMPRESSION */
    kv_bloom bloom;              /* BLOOMFILTER */
    int32_t blocksize;           /* BLOCKSIZE in bytes */
    kv_encoding encoding;        /* DATA_BLOCK_ENCODING */
    bool in_memory;              /* IN_MEMORY: cache blocks with priority */
    bool blockcache;             /* BLOCKCACHE: cache this family's blocks */
    bool new_version_behavior;   /* NEW_VERSION_BEHAVIOR */
} kv_family_desc;

#define KV_FAMILY_DESC_INIT \
    { "", 1, 0, KV_FOREVER, KV_KEEP_DELETED_FALSE, KV_COMPRESSION_NONE, KV_BLOOM_ROW, \
      65536, KV_ENCODING_NONE, false, true, false }

/**
 * Sets one family attribute from its HBase shell name and text value, as
 * in `{NAME => 'f', VERSIONS => 3, TTL => 'FOREVER', COMPRESSION => 'LZ4'}`:
 * NAME, VERSIONS, MIN_VERSIONS, TTL (seconds or FOREVER), KEEP_DELETED_CELLS
 * (TRUE/FALSE/TTL), COMPRESSION (NONE/LZ4/SNAPPY), BLOOMFILTER
 * (NONE/ROW/ROWCOL), BLOCKSIZE, DATA_BLOCK_ENCODING (NONE/PREFIX/DIFF),
 * IN_MEMORY, BLOCKCACHE, NEW_VERSION_BEHAVIOR (true/false). Names and
 * constants are case-insensitive; REPLICATION_SCOPE and METHOD are accepted
 * and ignored. Errors: KV_INVALID with the reason in @p errmsg.
 */
kv_status kv_family_desc_set(kv_family_desc *family, const char *attribute, const char *value,
                             char *errmsg, size_t errlen);
/**
 * Parses one family in HBase's describe syntax, "{NAME => 'f', VERSIONS =>
 * '3', ...}" (values quoted or bare), starting from KV_FAMILY_DESC_INIT.
 * Errors: KV_INVALID with the reason in @p errmsg.
 */
kv_status kv_family_desc_parse(kv_family_desc *family, const char *text, char *errmsg,
                               size_t errlen);
/**
 * Formats a family as the HBase shell's describe prints it:
 * {NAME => 'f', BLOOMFILTER => 'ROW', IN_MEMORY => 'false', VERSIONS => '1',
 *  KEEP_DELETED_CELLS => 'FALSE', DATA_BLOCK_ENCODING => 'NONE',
 *  COMPRESSION => 'NONE', TTL => 'FOREVER', MIN_VERSIONS => '0',
 *  BLOCKCACHE => 'true', BLOCKSIZE => '65536', REPLICATION_SCOPE => '0'}
 * (NEW_VERSION_BEHAVIOR is shown only when true). Returns the length it
 * needs, like snprintf; the output is always NUL-terminated when len > 0.
 * kv_family_desc_parse reads it back to an equal descriptor.
 */
int kv_family_desc_format(char *buf, size_t len, const kv_family_desc *family);

/** Checks a namespace, table qualifier or family name against HBase's rules
 *  ([A-Za-z0-9_][A-Za-z0-9_.-]*, no "..", at most KV_NAME_MAX bytes; a
 *  family name additionally has no '.' start). Returns KV_OK or KV_INVALID. */
kv_status kv_check_name(const char *name);

/** A namespace property (alter_namespace ... METHOD => 'set'). */
typedef struct kv_property { const char *key; const char *value; } kv_property;

/** Creates namespace @p name. Errors: KV_INVALID, KV_EXISTS. */
kv_status kv_namespace_create(kv_store *store, const char *name);
/** Drops an empty namespace. Errors: KV_NOT_FOUND, KV_NOT_EMPTY, KV_INVALID
 *  (default and hbase cannot be dropped). */
kv_status kv_namespace_drop(kv_store *store, const char *name);
/** Sets (value non-NULL) or unsets (value NULL) a namespace property. */
kv_status kv_namespace_set_property(kv_store *store, const char *name, const char *key,
                                    const char *value);
/** Lists namespaces in name order. *names is a NULL-terminated array freed
 *  with kv_free_names. */
kv_status kv_namespace_list(char ***names, kv_store *store);
/** The properties of a namespace: *props is an array of *count entries,
 *  freed with kv_free_properties. Errors: KV_NOT_FOUND. */
kv_status kv_namespace_describe(kv_property **props, size_t *count, kv_store *store,
                                const char *name);
void kv_free_properties(kv_property *props, size_t count);
/** Frees a NULL-terminated name array (NULL is a no-op). */
void kv_free_names(char **names);

/** Creates a table with @p nfamilies (>= 1) families. Errors: KV_INVALID
 *  (bad name or attribute, duplicate family), KV_EXISTS, KV_NOT_FOUND (no
 *  such namespace). */
kv_status kv_table_create(kv_store *store, const char *table, const kv_family_desc *families,
                          size_t nfamilies);
/** Lists "ns:table" names (tables of default without the prefix), sorted;
 *  @p ns NULL for all namespaces. Freed with kv_free_names. */
kv_status kv_table_list(char ***names, kv_store *store, const char *ns);
/** KV_OK if the table exists, else KV_NOT_FOUND. */
kv_status kv_table_exists(kv_store *store, const char *table);

typedef struct kv_table_desc {
    char name[2 * KV_NAME_MAX + 2];  /* "ns:table" */
    bool enabled;
    size_t nfamilies;
    kv_family_desc *families;        /* sorted by name */
} kv_table_desc;

/** Describes a table; free with kv_table_desc_free. Works on disabled
 *  tables. Errors: KV_NOT_FOUND, KV_INVALID. */
kv_status kv_table_describe(kv_table_desc **out, kv_store *store, const char *table);
void kv_table_desc_free(kv_table_desc *desc);

/** Adds a family, or changes the attributes of an existing one (by name).
 *  Works on enabled and disabled tables. */
kv_status kv_table_alter_family(kv_store *store, const char *table, const kv_family_desc *family);
/** Deletes a family and all its cells. A table keeps at least one family
 *  (KV_INVALID otherwise). Errors: KV_NO_FAMILY. */
kv_status kv_table_delete_family(kv_store *store, const char *table, const char *family);
kv_status kv_table_enable(kv_store *store, const char *table);   /* KV_ENABLED if already */
kv_status kv_table_disable(kv_store *store, const char *table);  /* KV_DISABLED if already */
/** KV_OK with *enabled set; KV_NOT_FOUND. */
kv_status kv_table_is_enabled(bool *enabled, kv_store *store, const char *table);
/** Drops a disabled table and its files. Errors: KV_ENABLED, KV_NOT_FOUND. */
kv_status kv_table_drop(kv_store *store, const char *table);
/** Removes every cell, keeping the families. The table may be enabled (as
 *  in the HBase shell, which disables and re-enables it); it ends enabled.
 *  @p preserve_splits is accepted for truncate_preserve and has no other
 *  effect (a local store has no regions). */
kv_status kv_table_truncate(kv_store *store, const char *table, bool preserve_splits);

/** Writes every memstore of @p table (NULL: all tables) to sorted files. */
kv_status kv_flush(kv_store *store, const char *table);
/** Compacts the table's files (NULL: all tables) and waits. Minor merges by
 *  the size-ratio policy; major rewrites each family into one file, drops
 *  delete markers and masked, expired and surplus cells. */
kv_status kv_compact(kv_store *store, const char *table, bool major);

/* ------------------------------------------------------------------------ */
/* Cells                                                                     */
/* ------------------------------------------------------------------------ */

/** Timestamp meaning "now" (the store clock) for puts and deletes. */
#define KV_LATEST_TIMESTAMP INT64_MAX

/** Cell types; the numbers are HBase's KeyValue type codes. */
typedef enum kv_cell_type {
    KV_TYPE_PUT = 4,
    KV_TYPE_DELETE = 8,                 /* one version */
    KV_TYPE_DELETE_FAMILY_VERSION = 10, /* all columns of a family at exactly ts */
    KV_TYPE_DELETE_COLUMN = 12,         /* all versions of a column <= ts */
    KV_TYPE_DELETE_FAMILY = 14,         /* all columns of a family <= ts */
} kv_cell_type;

/** A cell as returned by reads. All pointers stay valid until the result
 *  or scan row that holds the cell is released or advanced. */
typedef struct kv_cell {
    const uint8_t *row;
    size_t row_len;
    const char *family;          /* NUL-terminated */
    const uint8_t *qualifier;    /* empty for family delete markers */
    size_t qualifier_len;
    int64_t timestamp;
    kv_cell_type type;
    const uint8_t *value;
    size_t value_len;
} kv_cell;

/* ------------------------------------------------------------------------ */
/* Writes                                                                    */
/* ------------------------------------------------------------------------ */

/** How durable a write is before the call returns (HBase's Durability). */
typedef enum kv_durability {
    KV_DURABILITY_DEFAULT = 0,   /* = SYNC_WAL */
    KV_SKIP_WAL = 1,             /* not logged: lost if the process dies
                                    before the next flush */
    KV_ASYNC_WAL = 2,            /* treated as SYNC_WAL: the log append is
                                    one write(2) and costs no more */
    KV_SYNC_WAL = 3,             /* written to the OS: survives the death of
                                    the process */
    KV_FSYNC_WAL = 4,            /* fsync'd: survives power loss; concurrent
                                    syncers share one fsync */
} kv_durability;

typedef struct kv_write_options {
    kv_durability durability;
} kv_write_options;
#define KV_WRITE_OPTIONS_INIT { KV_DURABILITY_DEFAULT }

/** A mutation of one row: puts and deletes applied atomically. */
typedef struct kv_mutation kv_mutation;

/** Creates an empty mutation of @p row (1..32767 bytes). */
kv_status kv_mutation_new(kv_mutation **out, const void *row, size_t row_len);
void kv_mutation_free(kv_mutation *m);
/** The number of operations added so far. */
size_t kv_mutation_count(const kv_mutation *m);
/** Adds a put; @p ts KV_LATEST_TIMESTAMP = the store clock at apply time. */
kv_status kv_mutation_put(kv_mutation *m, const char *family, const void *qualifier,
                          size_t qualifier_len, int64_t ts, const void *value, size_t value_len);
/** Deletes one version at exactly @p ts; KV_LATEST_TIMESTAMP deletes the
 *  newest version present when the mutation is applied. */
kv_status kv_mutation_delete_version(kv_mutation *m, const char *family, const void *qualifier,
                                     size_t qualifier_len, int64_t ts);
/** Deletes all versions of a column with timestamp <= @p ts (LATEST: now). */
kv_status kv_mutation_delete_column(kv_mutation *m, const char *family, const void *qualifier,
                                    size_t qualifier_len, int64_t ts);
/** Deletes all columns of a family with timestamp <= @p ts (LATEST: now). */
kv_status kv_mutation_delete_family(kv_mutation *m, const char *family, int64_t ts);
/** Deletes all columns of a family with timestamp exactly @p ts. */
kv_status kv_mutation_delete_family_version(kv_mutation *m, const char *family, int64_t ts);
/** Deletes the whole row: a family marker <= @p ts in every family. */
kv_status kv_mutation_delete_row(kv_mutation *m, int64_t ts);

/**
 * Applies one row mutation atomically: readers see all of it or none.
 * Errors: KV_NOT_FOUND (table), KV_DISABLED, KV_NO_FAMILY, KV_TOO_LARGE,
 * KV_INVALID (empty mutation, or more than 64 families in one mutation),
 * KV_IO / KV_NO_SPACE (nothing applied),
 * KV_READ_ONLY.
 */
kv_status kv_mutate(kv_store *store, const char *table, const kv_mutation *m,
                    const kv_write_options *wopts);

/**
 * Applies @p count row mutations; each row is atomic, the batch is not.
 * When @p statuses is non-NULL it receives one status per mutation; the
 * return value is the first failure (KV_OK if none).
 */
kv_status kv_mutate_batch(kv_store *store, const char *table, kv_mutation *const *ms,
                          size_t count, kv_status *statuses, const kv_write_options *wopts);

/** Convenience: one put of one cell. */
kv_status kv_put(kv_store *store, const char *table, const void *row, size_t row_len,
                 const char *family, const void *qualifier, size_t qualifier_len, int64_t ts,
                 const void *value, size_t value_len, const kv_write_options *wopts);

/**
 * Adds @p delta to the 8-byte big-endian counter at row/family:qualifier
 * (absent = 0) and stores the sum with the current timestamp, atomically
 * with respect to other increments, appends and check-and-mutates.
 * *result receives the new value when non-NULL.
 * Errors: KV_NOT_COUNTER if the newest value is not 8 bytes long.
 */
kv_status kv_increment(int64_t *result, kv_store *store, const char *table, const void *row,
                       size_t row_len, const char *family, const void *qualifier,
                       size_t qualifier_len, int64_t delta, const kv_write_options *wopts);

/** Appends @p data to the newest value of the cell (absent = empty) and
 *  stores the result with the current timestamp, atomically like increment.
 *  When @p result is non-NULL it receives a malloc'd copy of the new value
 *  (free it with free()) and @p result_len, when non-NULL, its length. */
kv_status kv_append(void **result, size_t *result_len, kv_store *store, const char *table,
                    const void *row, size_t row_len, const char *family, const void *qualifier,
                    size_t qualifier_len, const void *data, size_t data_len,
                    const kv_write_options *wopts);

typedef enum kv_compare_op {
    KV_CMP_LESS, KV_CMP_LESS_OR_EQUAL, KV_CMP_EQUAL, KV_CMP_NOT_EQUAL,
    KV_CMP_GREATER_OR_EQUAL, KV_CMP_GREATER, KV_CMP_NO_OP
} kv_compare_op;

/**
 * Applies @p m if the newest value of row/family:qualifier compares as asked
 * with @p expected (HBase order: "value OP expected"); @p expected NULL means
 * "the cell does not exist". The check and the write are atomic with
 * respect to other check-and-mutates, increments and appends of the store.
 * *applied tells whether the mutation was applied. The mutation's row must
 * be @p row (KV_INVALID otherwise).
 */
kv_status kv_check_and_mutate(bool *applied, kv_store *store, const char *table, const void *row,
                              size_t row_len, const char *family, const void *qualifier,
                              size_t qualifier_len, kv_compare_op op, const void *expected,
                              size_t expected_len, const kv_mutation *m,
                              const kv_write_options *wopts);

/* ------------------------------------------------------------------------ */
/* Reads                                                                     */
/* ------------------------------------------------------------------------ */

/** A compiled filter (HBase filter language); see kv_filter_parse. */
typedef struct kv_filter kv_filter;

/**
 * Compiles an HBase filter string, e.g. "PrefixFilter('row') AND
 * ValueFilter(=, 'binary:abc')". Supported: PrefixFilter, ColumnPrefixFilter,
 * MultipleColumnPrefixFilter, QualifierFilter, ValueFilter, RowFilter,
 * FamilyFilter, SingleColumnValueFilter, SingleColumnValueExcludeFilter,
 * KeyOnlyFilter, FirstKeyOnlyFilter, TimestampsFilter, PageFilter,
 * ColumnCountGetFilter, InclusiveStopFilter, ColumnRangeFilter, with
 * comparators binary:, binaryprefix:, substring:, regexstring:, and the
 * operators AND, OR, SKIP, WHILE and parentheses.
 * Errors: KV_INVALID, with the reason in @p errmsg when non-NULL.
 */
kv_status kv_filter_parse(kv_filter **out, const char *text, char *errmsg, size_t errlen);
void kv_filter_free(kv_filter *filter);

/** A column selection: @p qualifier NULL selects the whole family. */
typedef struct kv_column {
    const char *family;
    const void *qualifier;
    size_t qualifier_len;
} kv_column;

#define KV_TIME_MIN INT64_MIN
#define KV_TIME_MAX INT64_MAX

typedef struct kv_read_options {
    int32_t max_versions;        /* versions per column; 0 = 1; INT32_MAX = all */
    bool has_timestamp;          /* read exactly @c timestamp */
    int64_t timestamp;
    int64_t time_min;            /* TIMERANGE [time_min, time_max) */
    int64_t time_max;
    const kv_column *columns;    /* NULL = every family */
    size_t ncolumns;
    bool raw;                    /* include delete markers and masked cells */
    const kv_filter *filter;     /* may be NULL; not owned */
    /* Scans only: */
    const void *start_row;       /* inclusive; NULL = first row */
    size_t start_row_len;
    const void *stop_row;        /* exclusive; NULL = past the last row */
    size_t stop_row_len;
    const void *row_prefix;      /* only rows starting with these bytes */
    size_t row_prefix_len;
    uint64_t limit;              /* most rows to return; 0 = no limit */
    bool reversed;               /* rows in descending order; with start_row
                                    the first (largest) row, stop_row the
                                    exclusive lower bound, as in HBase */
    bool fill_cache;             /* put read blocks into the cache */
} kv_read_options;

#define KV_READ_OPTIONS_INIT \
    { 0, false, 0, KV_TIME_MIN, KV_TIME_MAX, NULL, 0, false, NULL, NULL, 0, NULL, 0, NULL, 0, 0, false, true }

/** The cells of one row, in cell order. */
typedef struct kv_result {
    const uint8_t *row;
    size_t row_len;
    size_t ncells;
    const kv_cell *cells;
} kv_result;

/**
 * Reads one row. On success *out holds the row's visible cells (ncells may
 * be 0: an absent row is an empty result, not an error); free it with
 * kv_result_free. The read sees a consistent snapshot.
 * Errors: KV_NOT_FOUND (table), KV_DISABLED, KV_NO_FAMILY, KV_CORRUPT, KV_IO.
 */
kv_status kv_get(kv_result **out, kv_store *store, const char *table, const void *row,
                 size_t row_len, const kv_read_options *ropts);
void kv_result_free(kv_result *result);

/** A scan over a snapshot of a table. */
typedef struct kv_scan kv_scan;

/** Opens a scan; the snapshot is taken now. Errors as kv_get. */
kv_status kv_scan_open(kv_scan **out, kv_store *store, const char *table,
                       const kv_read_options *ropts);
/**
 * Moves to the next row with at least one cell to return. KV_OK with *row
 * set (valid until the next call or kv_scan_close); KV_NOT_FOUND at the
 * end; another error on failure (the scan then stays at its end).
 */
kv_status kv_scan_next(const kv_result **row, kv_scan *scan);
void kv_scan_close(kv_scan *scan);

/* ------------------------------------------------------------------------ */
/* I/O layer                                                                 */
/* ------------------------------------------------------------------------ */

/** The swappable I/O layer (see kvcore/env.h for its operations). */
typedef struct kv_env kv_env;
/** The POSIX implementation (shared, stateless). */
kv_env *kv_env_posix(void);

#ifdef __cplusplus
}
#endif
#endif /* KVCORE_H */
