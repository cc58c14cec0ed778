/**
 * @file kvcore.h
 * libkvcore: an embedded, durable table store with the HBase / BigTable data
 * model (namespaces, tables, column families, qualifiers, timestamped
 * versions, delete markers, TTL, compaction) on a log-structured merge core.
 *
 * This is the only header that users of the library (cellfs, cellsh,
 * cellbench) include. It is also the seam between them and the store's
 * backend: a store is opened by a location (a directory for the local LSM
 * engine, "model:" for the in-memory reference model,
 * "bigtable://PROJECT/INSTANCE" for Cloud Bigtable), every call dispatches
 * to that store's backend, and kv_store_capabilities() says what the
 * backend cannot do;
 * calls that need a missing capability fail with KV_NOT_SUPPORTED and a
 * message saying what and why, never with a silently different result.
 *
 * Conventions
 *  - Every call that can fail returns a kv_status: KV_OK (0) or a negative
 *    code below -1000 (so that no code is ever mistaken for a negated
 *    errno); kv_strerror() names it and kv_store_errmsg() gives the detail
 *    of the calling thread's last failure on a store ("corrupt block in
 *    000012.sst at offset 8").
 *    KV_NOT_FOUND ("no such table / namespace / store") and KV_END (a scan
 *    has no more rows) are answers, not failures.
 *  - Each call lists the codes it returns. Every call that reaches a store
 *    may in addition return KV_NO_MEMORY (an allocation failed; nothing
 *    was changed) and KV_INVALID for a NULL handle or a NULL required
 *    pointer; these two are not repeated in each list.
 *  - Out-parameters come first. Options structs have an initialiser macro
 *    with designated initialisers whose first member is a version number
 *    (KV_STORE_OPTIONS_INIT sets .version = KV_STORE_OPTIONS_VERSION); the
 *    library refuses a struct whose version it does not know with
 *    KV_INVALID, which catches structs that were zeroed instead of
 *    initialised. Always start from the macro and set fields by name.
 *    A NULL options pointer means the defaults.
 *  - Byte strings (rows, qualifiers, values) are pointer + length and may
 *    hold any bytes. Names (namespaces, tables, families) are C strings.
 *  - A table name is "ns:table" or "table" (= "default:table").
 *  - Timestamps are signed 64-bit milliseconds since the epoch.
 *
 * Threads: a kv_store may be used from any number of threads at once. A
 * kv_scan, kv_result or kv_mutation belongs to one thread at a time.
 *
 * Enums whose values are written to disk (cell types, compression, bloom
 * filters, block encoding, KEEP_DELETED_CELLS) are fenced "never
 * renumber": their numbers are part of the file formats.
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

/* The values are part of the ABI: never renumber; add new codes at the end. */
typedef enum kv_status {
    KV_OK = 0,
    KV_NOT_FOUND = -1001,     /* no such store, namespace or table */
    KV_INVALID = -1002,       /* bad argument, malformed name or filter, an
                                 options struct of an unknown version */
    KV_EXISTS = -1003,        /* namespace or table already exists */
    KV_CORRUPT = -1004,       /* a checksum or format check failed */
    KV_IO = -1005,            /* an I/O call failed (see kv_store_errmsg) */
    KV_NO_SPACE = -1006,      /* the disk is full; nothing acknowledged lost */
    KV_LOCKED = -1007,        /* another opener holds the store */
    KV_DISABLED = -1008,      /* the table is disabled */
    KV_ENABLED = -1009,       /* the table must be disabled first */
    KV_NOT_EMPTY = -1010,     /* the namespace still holds tables */
    KV_NO_FAMILY = -1011,     /* the table has no such column family */
    KV_TOO_LARGE = -1012,     /* a key or value above the store's limits */
    KV_NOT_COUNTER = -1013,   /* increment of a value that is not 8 bytes */
    KV_READ_ONLY = -1014,     /* store opened read-only */
    KV_NO_MEMORY = -1015,     /* allocation failed */
    KV_END = -1016,           /* kv_scan_next: no more rows */
    KV_NOT_SUPPORTED = -1017, /* the store's backend cannot do this; the
                                 message says what and why */
    KV_UNAVAILABLE = -1018,   /* a remote store cannot be reached now;
                                 the call may be retried */
    KV_TIMEOUT = -1019,       /* a remote call did not finish in time; its
                                 effect is unknown */
} kv_status;

/** Returns a static, human-readable name of a status code ("unknown
 *  status" for a value that is not one). Thread-safe. */
const char *kv_strerror(int status);

/* ------------------------------------------------------------------------ */
/* Store                                                                     */
/* ------------------------------------------------------------------------ */

typedef struct kv_store kv_store;

/** Log levels passed to kv_store_options.log. */
enum { KV_LOG_ERROR = 0, KV_LOG_WARN = 1, KV_LOG_INFO = 2 };

/* How the local engine runs compactions. */
typedef enum kv_compaction_style {
    KV_COMPACTION_AUTO = 0,     /* a background thread merges files after
                                   flushes by a size-ratio rule; a minor
                                   kv_compact uses the same rule; a close
                                   merges a family's newer files into one
                                   when together they are no larger than
                                   its oldest nor than 8 write buffers
                                   (two runs to seek) */
    KV_COMPACTION_MANUAL = 1,   /* no background compaction; a minor
                                   kv_compact merges every sorted file of
                                   each family into one (keeping delete
                                   markers), so that the files are a
                                   function of the calls made (tests, and
                                   callers who schedule compactions) */
} kv_compaction_style;

#define KV_LOCAL_OPTIONS_VERSION 1

/** Settings of the local engine (stores opened by a directory path);
 *  other backends ignore them. */
typedef struct kv_local_options {
    int version;                  /* KV_LOCAL_OPTIONS_VERSION */
    size_t write_buffer_size;     /* memstore bytes before a flush (all
                                     families together); default 64 MiB.
                                     The memstores being flushed count
                                     too: while a flush runs, writes wait
                                     once all memstores hold 1.5 times
                                     this */
    size_t block_cache_size;      /* block cache byte budget; default 64 MiB */
    /* I/O layer; NULL = POSIX. Kept by pointer; must outlive the store. */
    struct kv_env *env;
    /* How long to wait for another holder to release the store before
       failing with KV_LOCKED (milliseconds; 0 = fail at once). A process
       that just unmounted the store may still be closing it. */
    unsigned lock_wait_ms;
    kv_compaction_style compaction;
} kv_local_options;

#define KV_LOCAL_OPTIONS_INIT                                                  \
    { .version = KV_LOCAL_OPTIONS_VERSION, .write_buffer_size = 64u << 20,    \
      .block_cache_size = 64u << 20, .env = NULL, .lock_wait_ms = 0,          \
      .compaction = KV_COMPACTION_AUTO }

#define KV_BIGTABLE_OPTIONS_VERSION 1

/** Settings of the Cloud Bigtable backend (stores opened by a
 *  "bigtable://PROJECT/INSTANCE" location); other backends ignore them.
 *  Zero in a number means its default. */
typedef struct kv_bigtable_options {
    int version;                  /* KV_BIGTABLE_OPTIONS_VERSION */
    /* "host:port" of Google's emulator (plaintext, no credentials).
       NULL: $BIGTABLE_EMULATOR_HOST, as Google's own clients do; "" forces
       the real service even when that variable is set. */
    const char *emulator_host;
    /* The real service's endpoints (TLS with Application Default
       Credentials); NULL: bigtable.googleapis.com:443 and
       bigtableadmin.googleapis.com:443. */
    const char *data_endpoint;
    const char *admin_endpoint;
    unsigned timeout_ms;          /* deadline of one call; default 30000 */
    unsigned stream_timeout_ms;   /* deadline of one streamed read or batch
                                     write; default 300000 (a read that
                                     runs out resumes after its last row) */
    unsigned max_attempts;        /* tries of a call that is safe to repeat
                                     (reads, writes with explicit
                                     timestamps); default 5 */
    /* How long a table's families (VERSIONS, TTL: every read applies them,
       as Bigtable's garbage collection is lazy) are reused before they are
       read again; this handle's own catalog changes refresh them at once.
       Default 2000; KV_BIGTABLE_NO_CACHE reads them for every call. */
    unsigned schema_cache_ms;
} kv_bigtable_options;

#define KV_BIGTABLE_NO_CACHE UINT32_MAX

#define KV_BIGTABLE_OPTIONS_INIT                                               \
    { .version = KV_BIGTABLE_OPTIONS_VERSION, .emulator_host = NULL,           \
      .data_endpoint = NULL, .admin_endpoint = NULL, .timeout_ms = 0,          \
      .stream_timeout_ms = 0, .max_attempts = 0, .schema_cache_ms = 0 }

/* 3: kv_bigtable_options (the bigtable member). */
#define KV_STORE_OPTIONS_VERSION 3

/** What every backend means by opening a store. */
typedef struct kv_store_options {
    int version;                  /* KV_STORE_OPTIONS_VERSION */
    bool create_if_missing;       /* create an empty store if there is none */
    bool error_if_exists;         /* fail with KV_EXISTS if a store is there */
    /* Refuse every change. A read-only open of a local store shares it
       with other read-only opens (a shared lock) and writes nothing but
       its line in the lock file; see kv_store_open. */
    bool read_only;
    size_t max_value_size;        /* KV_TOO_LARGE above this; default 64 MiB */
    /* Free-form text that tells another opener who holds the store
       ("cellfs mounted at /mnt"). May be NULL. */
    const char *owner;
    /* Optional log sink for background errors and warnings; called from any
       thread. NULL: errors go nowhere but kv_store_errmsg. */
    void (*log)(void *ctx, int level, const char *message);
    void *log_ctx;
    /* Clock for implicit timestamps and TTL (ms); NULL = the real-time
       clock. Called from any thread. */
    int64_t (*clock_ms)(void *ctx);
    void *clock_ctx;
    /* Settings of the local engine; NULL = KV_LOCAL_OPTIONS_INIT. Copied
       at open. */
    const kv_local_options *local;
    /* Settings of the Cloud Bigtable backend; NULL =
       KV_BIGTABLE_OPTIONS_INIT. Copied at open. */
    const kv_bigtable_options *bigtable;
} kv_store_options;

#define KV_STORE_OPTIONS_INIT                                                  \
    { .version = KV_STORE_OPTIONS_VERSION, .create_if_missing = false,        \
      .error_if_exists = false, .read_only = false, .max_value_size = 64u << 20, \
      .owner = NULL, .log = NULL, .log_ctx = NULL, .clock_ms = NULL,           \
      .clock_ctx = NULL, .local = NULL, .bigtable = NULL }

/**
 * Opens (or with create_if_missing creates) the store at @p location:
 *  - a directory path ("/data/store", "./rel", "rel"): the local LSM engine;
 *  - "model:" (anything may follow): a new, empty, in-memory store of the
 *    reference model (kvcore/model/), gone at close; for tests. It
 *    ignores create_if_missing and error_if_exists;
 *  - "bigtable://PROJECT/INSTANCE": an instance of Cloud Bigtable, when
 *    this libkvcore is built with its backend (otherwise KV_NOT_SUPPORTED,
 *    naming what the build lacked): Google's emulator at
 *    $BIGTABLE_EMULATOR_HOST (or kv_bigtable_options.emulator_host), else
 *    the service with TLS and Application Default Credentials. The
 *    instance must exist; the open makes one call, so that an unreachable
 *    server is KV_UNAVAILABLE here. create_if_missing changes nothing and
 *    error_if_exists gives KV_EXISTS (an instance is always there). There
 *    is no lock: other clients may write the instance meanwhile (no
 *    KV_CAP_EXCLUSIVE). kvcore(3) has the mapping of every call.
 * Another "scheme://" is KV_NOT_SUPPORTED; a local path that begins like
 * one is written "./model:x".
 * On success *out holds the handle; close it with kv_store_close.
 *
 * Local stores: the engine replays its write-ahead log and starts its
 * background threads. An existing directory must hold a store or be
 * empty: one holding other files is refused (KV_INVALID) and left
 * untouched. A writer takes the store's lock exclusively; a read_only open
 * takes it shared, so any number of read-only opens (cellsh -r beside a
 * cellfs -o ro mount) read one store at once, while a writer and any other
 * opener exclude each other: a writer removes logs and sorted files that a
 * reader would still be reading, and its memstores are invisible to other
 * processes, so the format cannot let a reader follow a writer. A
 * read-only open replays the write-ahead log into memory only: it creates,
 * renames and removes nothing and writes only its own line (pid and owner)
 * into the lock file; it never creates a store (KV_NOT_FOUND).
 *
 * Errors: KV_NOT_FOUND (no store and not create_if_missing, a read-only
 * open of a missing store, or no parent directory), KV_EXISTS
 * (error_if_exists), KV_INVALID (empty location, a directory that is not a
 * store, an unknown options version), KV_LOCKED (another opener
 * conflicts; the message names each holder's pid and owner text),
 * KV_CORRUPT (manifest or log damaged), KV_IO, KV_NO_SPACE (creating),
 * KV_NOT_SUPPORTED (a backend this build lacks), KV_UNAVAILABLE /
 * KV_TIMEOUT (a remote store). On failure *out is NULL; when @p errmsg is
 * non-NULL the detail is written there (at most @p errlen bytes,
 * NUL-terminated).
 */
kv_status kv_store_open(kv_store **out, const char *location, const kv_store_options *opts,
                        char *errmsg, size_t errlen);

/** Whether @p location names a directory of the local engine (so that a
 *  caller may, for instance, make it absolute), rather than a "model:" or
 *  "scheme://" location. Needs no store; thread-safe. */
bool kv_location_is_local(const char *location);

/**
 * Flushes every memstore to sorted files, waits for background work
 * (with KV_COMPACTION_AUTO it then merges a family's newer files into one
 * when together they are no larger than its oldest nor than 8 write
 * buffers; a failure there is only logged), syncs,
 * releases the lock and frees the handle (a read-only store only releases
 * and frees). Every scan of the store must be closed first. Returns the
 * first error of the flush (KV_IO, KV_NO_SPACE, KV_CORRUPT): the cells it
 * could not write stay in the log and are replayed at the next open. The
 * handle is freed in every case. NULL is a no-op (KV_OK).
 */
kv_status kv_store_close(kv_store *store);

/** The detail text of the calling thread's last call on this store when
 *  it failed, such as "corrupt block in /s/000012.sst at offset 8192": always
 *  about that call, never an earlier one ("" when the call succeeded or
 *  recorded no detail; then kv_strerror of its status is all there is).
 *  Each thread sees its own failures only. The text stays valid until the
 *  thread's next call on the store (or until 32 other threads have failed
 *  since) and at most until kv_store_close; copy it to keep it. Calls that
 *  take no store or scan (kv_filter_parse, kv_result_free, kv_scan_close,
 *  kv_strerror, ...) leave it alone. NULL gives "". */
const char *kv_store_errmsg(kv_store *store);

typedef struct kv_store_stats {
    uint64_t disk_bytes;        /* bytes of sorted files + log */
    uint64_t memstore_bytes;    /* bytes in memory buffers */
    uint64_t sorted_files;      /* number of sorted files */
    uint64_t cache_bytes;       /* bytes held by the block cache */
    uint64_t flushes;           /* flushes done since open */
    uint64_t compactions;       /* compactions done since open */
    uint64_t last_sequence;     /* sequence number of the newest mutation */
    uint64_t write_stalls;      /* writes that waited for a flush since
                                   open: the memstores had reached their
                                   budget (write_buffer_size) */
} kv_store_stats;

/** Fills *out with figures about the store (a snapshot; the figures move
 *  on while other threads work). Errors: KV_NOT_SUPPORTED (a backend
 *  without figures). */
kv_status kv_store_stat(kv_store_stats *out, kv_store *store);

/* Capabilities: what a store's backend can do (kv_store_capabilities). A
   call that needs one the backend lacks returns KV_NOT_SUPPORTED with a
   message naming the capability and the backend. */
/** Deletes are markers that mask puts at or below their timestamp, also
 *  puts written later (HBase's "deletes mask puts"), until a major
 *  compaction. Without it a delete removes the cells present when it is
 *  applied, and later puts are visible whatever their timestamp; deletes
 *  of a family or a row bounded by an explicit timestamp, which only a
 *  marker can express, are KV_NOT_SUPPORTED. */
#define KV_CAP_DELETE_MARKERS        UINT64_C(0x0001)
/** kv_mutation_delete_family_version can be applied. */
#define KV_CAP_DELETE_FAMILY_VERSION UINT64_C(0x0002)
/** Raw reads (kv_read_options.raw): markers and masked cells. */
#define KV_CAP_RAW_SCANS             UINT64_C(0x0004)
/** Namespaces other than default and hbase can be made and changed. */
#define KV_CAP_NAMESPACES            UINT64_C(0x0008)
/** kv_flush. */
#define KV_CAP_FLUSH                 UINT64_C(0x0010)
/** kv_compact. */
#define KV_CAP_COMPACT               UINT64_C(0x0020)
/** A scan reads a snapshot of the whole table taken at kv_scan_open: it
 *  sees every write that returned before and none that starts after.
 *  Without it only each row is consistent (a remote store's scan sees
 *  writes to rows it has not reached yet). */
#define KV_CAP_SNAPSHOT_SCANS        UINT64_C(0x0040)
/** KEEP_DELETED_CELLS other than FALSE. */
#define KV_CAP_KEEP_DELETED_CELLS    UINT64_C(0x0080)
/** MIN_VERSIONS above 0. */
#define KV_CAP_MIN_VERSIONS          UINT64_C(0x0100)
/** NEW_VERSION_BEHAVIOR true. */
#define KV_CAP_NEW_VERSION_BEHAVIOR  UINT64_C(0x0200)
/** Tables can be disabled (and then refuse reads and writes). */
#define KV_CAP_DISABLE_TABLES        UINT64_C(0x0400)
/** The store survives kv_store_close (not so the in-memory model). */
#define KV_CAP_DURABLE               UINT64_C(0x0800)
/** No one but this handle changes the store while it is open: a local
 *  store's lock keeps other writers out, the model lives in this process.
 *  So what a caller has read stays true until it changes the store itself,
 *  and caching it (cellfs's entry and attribute timeouts) is safe for as
 *  long as the caller likes. Without it (Cloud Bigtable) other processes
 *  and machines may write at any moment: a caller that caches must let its
 *  cache expire (cellfs takes the timeouts from a mount option). */
#define KV_CAP_EXCLUSIVE             UINT64_C(0x1000)
/** Table attributes can be set (kv_table_set_attributes). */
#define KV_CAP_TABLE_ATTRIBUTES      UINT64_C(0x2000)

/** The KV_CAP_* bits of the store's backend (0 for NULL). Thread-safe. */
uint64_t kv_store_capabilities(kv_store *store);
/** The name of the store's backend: "local", "model", ... ("" for NULL). */
const char *kv_store_backend(kv_store *store);

/** The current value of the store's clock for implicit timestamps: never
 *  smaller than any implicit timestamp handed out before. Thread-safe. */
int64_t kv_store_now(kv_store *store);

/* ------------------------------------------------------------------------ */
/* Catalog: namespaces, tables, families                                    */
/* ------------------------------------------------------------------------ */

#define KV_NAME_MAX 255          /* longest namespace, table or family name */
#define KV_FOREVER INT64_MAX     /* TTL that never expires */

/* The values of these four enums are stored in the manifest and in sorted
   files (doc/manifest_format.md, doc/sorted_file_format.md): never
   renumber them; add new values at the end. */
typedef enum kv_keep_deleted {
    KV_KEEP_DELETED_FALSE = 0,
    KV_KEEP_DELETED_TRUE = 1,
    KV_KEEP_DELETED_TTL = 2,
} kv_keep_deleted;
typedef enum kv_compression {
    KV_COMPRESSION_NONE = 0,
    KV_COMPRESSION_LZ4 = 1,
    KV_COMPRESSION_SNAPPY = 2,
} kv_compression;
typedef enum kv_bloom {
    KV_BLOOM_NONE = 0,
    KV_BLOOM_ROW = 1,
    KV_BLOOM_ROWCOL = 2,
} kv_bloom;
typedef enum kv_encoding {
    KV_ENCODING_NONE = 0,
    KV_ENCODING_PREFIX = 1,
    KV_ENCODING_DIFF = 2,
} kv_encoding;

#define KV_FAMILY_DESC_VERSION 1

/** A column family's attributes, with HBase's names and defaults. */
typedef struct kv_family_desc {
    int version;                 /* KV_FAMILY_DESC_VERSION */
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

#define KV_FAMILY_DESC_INIT                                                    \
    { .version = KV_FAMILY_DESC_VERSION, .name = "", .versions = 1, .min_versions = 0, \
      .ttl_seconds = KV_FOREVER, .keep_deleted = KV_KEEP_DELETED_FALSE,        \
      .compression = KV_COMPRESSION_NONE, .bloom = KV_BLOOM_ROW, .blocksize = 65536, \
      .encoding = KV_ENCODING_NONE, .in_memory = false, .blockcache = true,    \
      .new_version_behavior = false }

/**
 * Sets one family attribute from its HBase shell name and text value, as
 * in `{NAME => 'f', VERSIONS => 3, TTL => 'FOREVER', COMPRESSION => 'LZ4'}`:
 * NAME, VERSIONS, MIN_VERSIONS, TTL (seconds or FOREVER), KEEP_DELETED_CELLS
 * (TRUE/FALSE/TTL), COMPRESSION (NONE/LZ4/SNAPPY), BLOOMFILTER
 * (NONE/ROW/ROWCOL), BLOCKSIZE, DATA_BLOCK_ENCODING (NONE/PREFIX/DIFF),
 * IN_MEMORY, BLOCKCACHE, NEW_VERSION_BEHAVIOR (true/false). Names and
 * constants are case-insensitive; REPLICATION_SCOPE and METHOD are accepted
 * and ignored. Needs no store; thread-safe on distinct descriptors.
 * Errors: KV_INVALID with the reason in @p errmsg (the descriptor is then
 * unchanged).
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

/* Catalog changes (create, drop, alter, enable, disable, truncate) are
   persisted before they return; besides the codes listed with each they
   return KV_READ_ONLY on a read-only store and KV_IO / KV_NO_SPACE when the
   manifest cannot be written (the change is then undone in memory too).
   They wait for running reads and writes of the store and make those that
   follow wait for them. Namespace changes need KV_CAP_NAMESPACES; family
   attributes KEEP_DELETED_CELLS, MIN_VERSIONS and NEW_VERSION_BEHAVIOR need
   their capabilities, enable and disable KV_CAP_DISABLE_TABLES (else
   KV_NOT_SUPPORTED). */

/** Creates namespace @p name. Errors: KV_INVALID (illegal name), KV_EXISTS. */
kv_status kv_namespace_create(kv_store *store, const char *name);
/** Drops an empty namespace. Errors: KV_NOT_FOUND, KV_NOT_EMPTY, KV_INVALID
 *  (default and hbase cannot be dropped). */
kv_status kv_namespace_drop(kv_store *store, const char *name);
/** Sets (value non-NULL) or unsets (value NULL) a namespace property; the
 *  strings are copied. Unsetting an absent key is KV_OK.
 *  Errors: KV_NOT_FOUND (namespace), KV_INVALID (empty key). */
kv_status kv_namespace_set_property(kv_store *store, const char *name, const char *key,
                                    const char *value);
/** Lists namespaces in name order. *names is a NULL-terminated array of
 *  malloc'd strings, freed with kv_free_names; NULL on failure. */
kv_status kv_namespace_list(char ***names, kv_store *store);
/** The properties of a namespace: *props is a malloc'd array of *count
 *  entries (NULL when there are none), freed with kv_free_properties.
 *  Errors: KV_NOT_FOUND. */
kv_status kv_namespace_describe(kv_property **props, size_t *count, kv_store *store,
                                const char *name);
/** Frees what kv_namespace_describe returned (NULL is a no-op). */
void kv_free_properties(kv_property *props, size_t count);
/** Frees a NULL-terminated name array (NULL is a no-op). */
void kv_free_names(char **names);

/** Creates an enabled table with @p nfamilies (>= 1) families (copied).
 *  Errors: KV_INVALID (bad name or attribute, duplicate family, unknown
 *  descriptor version), KV_EXISTS, KV_NOT_FOUND (no such namespace). */
kv_status kv_table_create(kv_store *store, const char *table, const kv_family_desc *families,
                          size_t nfamilies);
/** Lists "ns:table" names (tables of default without the prefix), sorted;
 *  @p ns NULL for all namespaces. *names is freed with kv_free_names.
 *  Errors: KV_NOT_FOUND (no such namespace). */
kv_status kv_table_list(char ***names, kv_store *store, const char *ns);
/** KV_OK if the table exists (enabled or not), else KV_NOT_FOUND (also for
 *  an illegal name). */
kv_status kv_table_exists(kv_store *store, const char *table);

/* A description is allocated by the library only (kv_table_describe), so
   fields are appended at its end without a version number: code built
   against an older header keeps reading the fields it knows. */
typedef struct kv_table_desc {
    char name[2 * KV_NAME_MAX + 2];  /* "ns:table" */
    bool enabled;
    size_t nfamilies;
    kv_family_desc *families;        /* sorted by name */
    /* Table attributes (alter 't', METHOD => 'table_att'), sorted by key;
       see kv_table_set_attributes. NULL when there are none. */
    size_t nattributes;
    kv_property *attributes;
} kv_table_desc;

/** Describes a table into one malloc'd block; free it with
 *  kv_table_desc_free. Works on disabled tables. Errors: KV_NOT_FOUND. */
kv_status kv_table_describe(kv_table_desc **out, kv_store *store, const char *table);
/** Frees a description (NULL is a no-op). */
void kv_table_desc_free(kv_table_desc *desc);

/** Adds a family, or changes the attributes of an existing one (by name).
 *  Works on enabled and disabled tables; reads that start afterwards use
 *  the new attributes, and flushes and compactions apply them to cells
 *  already stored (a lower VERSIONS or TTL drops cells from then on).
 *  Errors: KV_NOT_FOUND (table), KV_INVALID (bad attribute, unknown
 *  descriptor version). */
kv_status kv_table_alter_family(kv_store *store, const char *table, const kv_family_desc *family);
/**
 * Table attributes, HBase's TableDescriptor values, as set by
 * `alter 't', METHOD => 'table_att', KEY => 'value'`. Known keys (matched
 * case-insensitively, stored upper-case) and their values:
 *  - MAX_FILESIZE, MEMSTORE_FLUSHSIZE: a size in bytes, 1..2^63-1. Kept
 *    and shown; a local store has no regions to split.
 *  - DURABILITY: USE_DEFAULT, SKIP_WAL, ASYNC_WAL, SYNC_WAL or FSYNC_WAL.
 *    The durability of writes to the table whose write options say
 *    KV_DURABILITY_DEFAULT (a write's own durability wins, as in HBase).
 *  - READONLY: true or false. When true every write to the table (put,
 *    delete, increment, append, check-and-mutate) fails with
 *    KV_READ_ONLY and a message naming the table; reads, flushes,
 *    compactions and catalog changes still work.
 *  - COMPACTION_ENABLED, NORMALIZATION_ENABLED, SPLIT_ENABLED,
 *    MERGE_ENABLED: true or false; REGION_REPLICATION, PRIORITY: an
 *    integer (REGION_REPLICATION >= 1); SPLIT_POLICY, OWNER, FLUSH_POLICY:
 *    any text. Kept and shown, without effect here.
 * Any other key is user metadata (HBase's METADATA => {'k' => 'v'}), kept
 * with its key as given. Booleans are stored 'true'/'false', DURABILITY
 * upper-case, numbers in decimal.
 */
#define KV_TABLE_ATTR_VALUE_MAX 4096   /* bytes of one value */

/** Checks one table attribute and writes its stored form: the key to
 *  @p key_out (at least KV_NAME_MAX + 1 bytes) and, when @p value is not
 *  NULL, the value to @p value_out (at least KV_TABLE_ATTR_VALUE_MAX + 1
 *  bytes). Needs no store. Errors: KV_INVALID with the reason in @p errmsg
 *  (empty or longer key, empty value, a value the key does not take). */
kv_status kv_table_attribute_check(const char *key, const char *value, char *key_out,
                                   char *value_out, char *errmsg, size_t errlen);
/** True when @p key is one of the known keys above (case-insensitive),
 *  false for user metadata and NULL. Needs no store. */
bool kv_table_attribute_known(const char *key);
/** Sets (value non-NULL) or unsets (value NULL) @p count table attributes
 *  in one catalog change: all of them or, on any error, none. Unsetting an
 *  absent attribute is no change. Works on enabled and disabled tables;
 *  writes that start afterwards see the new READONLY and DURABILITY.
 *  Errors: KV_NOT_FOUND (table), KV_INVALID (see
 *  kv_table_attribute_check; the message names the attribute),
 *  KV_NOT_SUPPORTED (a backend without table attributes; the message
 *  names the attribute; without KV_CAP_TABLE_ATTRIBUTES). */
kv_status kv_table_set_attributes(kv_store *store, const char *table, const kv_property *attrs,
                                  size_t count);
/** Deletes a family and all its cells. A table keeps at least one family.
 *  Errors: KV_NOT_FOUND (table), KV_NO_FAMILY, KV_INVALID (the last family). */
kv_status kv_table_delete_family(kv_store *store, const char *table, const char *family);
/** Enables a table. Errors: KV_NOT_FOUND, KV_ENABLED (already enabled). */
kv_status kv_table_enable(kv_store *store, const char *table);
/** Disables a table: reads and writes are then refused with KV_DISABLED.
 *  Errors: KV_NOT_FOUND, KV_DISABLED (already disabled). */
kv_status kv_table_disable(kv_store *store, const char *table);
/** KV_OK with *enabled set. Errors: KV_NOT_FOUND. */
kv_status kv_table_is_enabled(bool *enabled, kv_store *store, const char *table);
/** Drops a disabled table; its files go when the last scan using them ends.
 *  Errors: KV_NOT_FOUND, KV_ENABLED. */
kv_status kv_table_drop(kv_store *store, const char *table);
/** Removes every cell, keeping the families. The table may be enabled (as
 *  in the HBase shell, which disables and re-enables it); it ends enabled.
 *  @p preserve_splits is accepted for truncate_preserve and has no other
 *  effect (a local store has no regions). Errors: KV_NOT_FOUND. */
kv_status kv_table_truncate(kv_store *store, const char *table, bool preserve_splits);

/** Writes the memstores to sorted files and waits until they are on disk
 *  and named in the manifest. Memstores are switched store-wide, so a
 *  table's flush (@p table non-NULL) flushes every table; NULL flushes all.
 *  Errors: KV_NOT_FOUND (table), KV_READ_ONLY, KV_NOT_SUPPORTED (without
 *  KV_CAP_FLUSH), KV_IO / KV_NO_SPACE (the cells stay in memory and in the
 *  log; a later flush retries). */
kv_status kv_flush(kv_store *store, const char *table);
/** Compacts the table's files (NULL: all tables) and waits. Minor merges
 *  files (with KV_COMPACTION_AUTO those picked by the size-ratio policy,
 *  or every file of a family when, without KEEP_DELETED_CELLS, its files
 *  hold a write buffer's bytes or more and DeleteColumn and family markers
 *  make a tenth or more of their entries; with KV_COMPACTION_MANUAL all of
 *  each family) and keeps delete markers,
 *  except where it takes every file of a family: then it drops them and
 *  what they mask as major does (HBase's rule), without flushing first;
 *  major first flushes, then rewrites each family into one file and drops
 *  delete markers and masked, expired and surplus cells. Errors:
 *  KV_NOT_FOUND (table), KV_READ_ONLY, KV_NOT_SUPPORTED (without
 *  KV_CAP_COMPACT), KV_IO / KV_NO_SPACE (the old files stay in use),
 *  KV_CORRUPT (an input file is damaged; nothing is replaced). */
kv_status kv_compact(kv_store *store, const char *table, bool major);

/* ------------------------------------------------------------------------ */
/* Cells                                                                     */
/* ------------------------------------------------------------------------ */

/** Timestamp meaning "now" (the store clock) for puts and deletes. */
#define KV_LATEST_TIMESTAMP INT64_MAX

/** Cell types; the numbers are HBase's KeyValue type codes. They are
 *  stored in every log record and sorted-file key: never renumber. */
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

#define KV_WRITE_OPTIONS_VERSION 1

typedef struct kv_write_options {
    int version;                 /* KV_WRITE_OPTIONS_VERSION */
    kv_durability durability;
} kv_write_options;
#define KV_WRITE_OPTIONS_INIT \
    { .version = KV_WRITE_OPTIONS_VERSION, .durability = KV_DURABILITY_DEFAULT }

/* Every write call below returns, besides the codes listed with it:
   KV_NOT_FOUND (no such table), KV_DISABLED, KV_READ_ONLY, KV_INVALID (an
   unknown write-options version), KV_IO / KV_NO_SPACE (the log could not
   be written: nothing of the mutation was applied), a failure of the
   background flush when the memstores are full and cannot be flushed
   (its message says why), and for remote stores KV_UNAVAILABLE and
   KV_TIMEOUT (whether the write was applied is then unknown). A write that returned KV_OK is visible to every
   read that starts after it, in any thread. */

/** A mutation of one row: puts and deletes applied atomically. The
 *  builder needs no store; a mutation belongs to one thread at a time and
 *  may be applied any number of times, to any store. */
typedef struct kv_mutation kv_mutation;

/** Creates an empty mutation of @p row (1..32767 bytes, copied).
 *  Errors: KV_INVALID (NULL or empty row), KV_TOO_LARGE (longer row),
 *  KV_NO_MEMORY. *out is NULL on failure. */
kv_status kv_mutation_new(kv_mutation **out, const void *row, size_t row_len);
/** Frees a mutation (NULL is a no-op). */
void kv_mutation_free(kv_mutation *m);
/** Empties @p m for reuse as a mutation of @p row, as kv_mutation_free then
 *  kv_mutation_new would but keeping m's memory (a loop of mutations
 *  allocates nothing once m has grown): its operations and families are
 *  dropped. Errors: kv_mutation_new's (KV_INVALID also for a NULL m); on
 *  failure m holds no operation and may only be reset again or freed. */
kv_status kv_mutation_reset(kv_mutation *m, const void *row, size_t row_len);
/** The number of operations added so far (0 for NULL). */
size_t kv_mutation_count(const kv_mutation *m);
/* The builders below copy their bytes. Each returns KV_OK, KV_INVALID (NULL
   mutation, illegal family name, NULL pointer with a non-zero length),
   KV_TOO_LARGE (a qualifier or value above 2 GiB, or a mutation above
   2 GiB in all) or KV_NO_MEMORY; on failure the mutation is unchanged.
   Whether the table has the family is checked when the mutation is
   applied (KV_NO_FAMILY). */
/** Adds a put; @p ts KV_LATEST_TIMESTAMP = the store clock at apply time. */
kv_status kv_mutation_put(kv_mutation *m, const char *family, const void *qualifier,
                          size_t qualifier_len, int64_t ts, const void *value, size_t value_len);
/** Deletes one version at exactly @p ts; KV_LATEST_TIMESTAMP deletes the
 *  newest version present when the mutation is applied (nothing if the
 *  column has none). */
kv_status kv_mutation_delete_version(kv_mutation *m, const char *family, const void *qualifier,
                                     size_t qualifier_len, int64_t ts);
/** Deletes all versions of a column with timestamp <= @p ts (LATEST: now). */
kv_status kv_mutation_delete_column(kv_mutation *m, const char *family, const void *qualifier,
                                    size_t qualifier_len, int64_t ts);
/** Deletes all columns of a family with timestamp <= @p ts (LATEST: now). */
kv_status kv_mutation_delete_family(kv_mutation *m, const char *family, int64_t ts);
/** Deletes all columns of a family with timestamp exactly @p ts; @p ts
 *  must be explicit (KV_INVALID for KV_LATEST_TIMESTAMP). Applying it
 *  needs KV_CAP_DELETE_FAMILY_VERSION. */
kv_status kv_mutation_delete_family_version(kv_mutation *m, const char *family, int64_t ts);
/** Deletes the whole row: a family marker <= @p ts in every family the
 *  table has when the mutation is applied. */
kv_status kv_mutation_delete_row(kv_mutation *m, int64_t ts);

/**
 * Applies one row mutation atomically: readers see all of it or none.
 * The mutation is not changed and stays the caller's.
 * Errors: KV_NO_FAMILY, KV_TOO_LARGE (a value above max_value_size),
 * KV_INVALID (empty mutation, or more than 64 families in one mutation),
 * and those common to writes.
 */
kv_status kv_mutate(kv_store *store, const char *table, const kv_mutation *m,
                    const kv_write_options *wopts);

/**
 * Applies @p count row mutations; each row is atomic, the batch is not.
 * When @p statuses is non-NULL it receives one status per mutation; the
 * return value is the first failure (KV_OK if none). Errors: those of
 * kv_mutate, per mutation.
 */
kv_status kv_mutate_batch(kv_store *store, const char *table, kv_mutation *const *ms,
                          size_t count, kv_status *statuses, const kv_write_options *wopts);

/** Convenience: one put of one cell (a mutation of one operation).
 *  Errors: those of kv_mutation_new, kv_mutation_put and kv_mutate. */
kv_status kv_put(kv_store *store, const char *table, const void *row, size_t row_len,
                 const char *family, const void *qualifier, size_t qualifier_len, int64_t ts,
                 const void *value, size_t value_len, const kv_write_options *wopts);

/** Convenience: deletes every version of one column with timestamp <= @p ts
 *  (KV_LATEST_TIMESTAMP: the store clock at apply time), HBase's
 *  Delete.addColumns and the shell's delete of one column: a mutation of
 *  one kv_mutation_delete_column, built without allocation.
 *  Errors: those of kv_mutation_new, kv_mutation_delete_column and
 *  kv_mutate. */
kv_status kv_delete(kv_store *store, const char *table, const void *row, size_t row_len,
                    const char *family, const void *qualifier, size_t qualifier_len, int64_t ts,
                    const kv_write_options *wopts);

/**
 * Adds @p delta to the 8-byte big-endian counter at row/family:qualifier
 * (absent = 0) and stores the sum with timestamp max(previous timestamp +
 * 1, the store's clock), as HBase does, so that no version is replaced in
 * place; atomically
 * with respect to other increments, appends and check-and-mutates.
 * *result receives the new value when non-NULL (wrapping on overflow).
 * Errors: KV_NOT_COUNTER (the newest value is not 8 bytes long),
 * KV_NO_FAMILY, and those common to writes.
 */
kv_status kv_increment(int64_t *result, kv_store *store, const char *table, const void *row,
                       size_t row_len, const char *family, const void *qualifier,
                       size_t qualifier_len, int64_t delta, const kv_write_options *wopts);

/** Appends @p data to the newest value of the cell (absent = empty) and
 *  stores the result with a timestamp as kv_increment does, atomically
 *  like increment.
 *  When @p result is non-NULL it receives a malloc'd copy of the new value
 *  (free it with free()) and @p result_len, when non-NULL, its length.
 *  Errors: KV_NO_FAMILY, KV_TOO_LARGE, and those common to writes; on
 *  failure *result is NULL. */
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
 * *applied tells whether the mutation was applied.
 * Errors: KV_INVALID (the mutation is for another row than @p row),
 * KV_NO_FAMILY, and those of kv_mutate.
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
 * ValueFilter(=, 'binary:abc')". Supported: every filter HBase 2's
 * ParseFilter registers (kv_filter_name lists them): PrefixFilter,
 * ColumnPrefixFilter, MultipleColumnPrefixFilter, QualifierFilter,
 * ValueFilter, RowFilter, FamilyFilter, SingleColumnValueFilter,
 * SingleColumnValueExcludeFilter, KeyOnlyFilter, FirstKeyOnlyFilter,
 * TimestampsFilter, PageFilter, ColumnCountGetFilter, InclusiveStopFilter,
 * ColumnRangeFilter, ColumnPaginationFilter, DependentColumnFilter,
 * ColumnValueFilter, MultiRowRangeFilter, with HBase's argument checks;
 * comparators binary:, binaryprefix:, substring: and regexstring: (Java's
 * find() with DOTALL, on a backtracking-free matcher of Java's common
 * syntax: constructs it cannot run exactly — lookaround, backreferences,
 * possessive quantifiers, \p{...}, class intersections — and patterns over
 * 4096 bytes or 20000 steps once repetitions are expanded are refused
 * with the reason); a filter of more than 256 filters and operators is
 * refused;
 * the operators SKIP, WHILE (binding tightest), AND, then OR, and
 * parentheses. Filters answer HBase's return codes (INCLUDE, SKIP,
 * NEXT_COL, NEXT_ROW, SEEK_NEXT_USING_HINT, INCLUDE_AND_NEXT_COL, ...),
 * applied as HBase's scan matcher and FilterList apply them. A read with a
 * filter offers it up to the family's VERSIONS versions of each column,
 * newest first, and the read's VERSIONS counts the cells it includes: the
 * version that goes past the count is still offered (and dropped), older
 * ones are not, as in HBase. Needs no store. A
 * compiled filter is immutable: any number of reads in any threads may use
 * it at once; it must outlive the scans that use it.
 * Errors: KV_INVALID, with the reason in @p errmsg when non-NULL;
 * KV_NO_MEMORY. *out is NULL on failure.
 */
kv_status kv_filter_parse(kv_filter **out, const char *text, char *errmsg, size_t errlen);
/** As kv_filter_parse, for a filter of @p len bytes that may hold NUL
 *  bytes (inside quoted arguments: 'binary:\0...' compares with zero
 *  bytes, as HBase's byte-array filter strings can). */
kv_status kv_filter_parse_len(kv_filter **out, const char *text, size_t len, char *errmsg,
                              size_t errlen);
/** Frees a compiled filter (NULL is a no-op). */
void kv_filter_free(kv_filter *filter);
/** The name of the @p i th filter kv_filter_parse knows (0, 1, ...), in
 *  alphabetical order; NULL past the last. Static strings; thread-safe. */
const char *kv_filter_name(size_t i);

/** A column selection: @p qualifier NULL selects the whole family. */
typedef struct kv_column {
    const char *family;
    const void *qualifier;
    size_t qualifier_len;
} kv_column;

#define KV_TIME_MIN INT64_MIN
#define KV_TIME_MAX INT64_MAX

#define KV_READ_OPTIONS_VERSION 1

typedef struct kv_read_options {
    int version;                 /* KV_READ_OPTIONS_VERSION */
    int32_t max_versions;        /* versions per column; 0 = 1; INT32_MAX = all */
    bool has_timestamp;          /* read exactly @c timestamp */
    int64_t timestamp;
    int64_t time_min;            /* TIMERANGE [time_min, time_max) */
    int64_t time_max;
    const kv_column *columns;    /* NULL = every family; copied by the call;
                                    the later spec of a family wins (HBase's
                                    addFamily / addColumn) */
    size_t ncolumns;
    bool raw;                    /* what is physically there: delete markers,
                                    masked cells, surplus versions, counted
                                    with max_versions uncapped (needs
                                    KV_CAP_RAW_SCANS) */
    const kv_filter *filter;     /* may be NULL; not owned, not copied */
    /* Scans only (copied by kv_scan_open): */
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
    bool fill_cache;             /* put read blocks into the cache (the
                                    blocks a long scan reads ahead only
                                    while the cache has room: it evicts
                                    nothing for them) */
} kv_read_options;

#define KV_READ_OPTIONS_INIT                                                   \
    { .version = KV_READ_OPTIONS_VERSION, .max_versions = 0, .has_timestamp = false, \
      .timestamp = 0, .time_min = KV_TIME_MIN, .time_max = KV_TIME_MAX,        \
      .columns = NULL, .ncolumns = 0, .raw = false, .filter = NULL,            \
      .start_row = NULL, .stop_row = NULL, .row_prefix = NULL, .limit = 0,     \
      .reversed = false, .fill_cache = true }

/** The cells of one row, in cell order. */
typedef struct kv_result {
    const uint8_t *row;
    size_t row_len;
    size_t ncells;
    const kv_cell *cells;
} kv_result;

/* Every read returns, besides the codes listed with it: KV_NOT_FOUND (no
   such table), KV_DISABLED, KV_NO_FAMILY (a selected family the table does
   not have), KV_INVALID (an unknown read-options version, an empty time
   range), KV_NOT_SUPPORTED (raw without KV_CAP_RAW_SCANS), KV_CORRUPT (a
   damaged sorted file or block; the message names the file), KV_IO, and
   for remote stores KV_UNAVAILABLE / KV_TIMEOUT. */

/**
 * Reads one row. On success *out holds the row's visible cells (ncells may
 * be 0: an absent row is an empty result, not an error) in one malloc'd
 * block that the caller owns and frees with kv_result_free; it stays
 * valid after the store changes. The read sees a consistent snapshot.
 * *out is NULL on failure.
 */
kv_status kv_get(kv_result **out, kv_store *store, const char *table, const void *row,
                 size_t row_len, const kv_read_options *ropts);
/** Frees a kv_get result (NULL is a no-op). */
void kv_result_free(kv_result *result);

/** A scan over a snapshot of a table. */
typedef struct kv_scan kv_scan;

/** Opens a scan. With KV_CAP_SNAPSHOT_SCANS (the local engine, the model)
 *  the snapshot is taken now: the scan sees every write that returned
 *  before and none that starts after; without it each row is read
 *  consistently but later rows may show later writes. The row bounds and
 *  the column selection are copied; the filter is referenced and must
 *  outlive the scan. Errors as
 *  kv_get. A scan belongs to one thread at a time and must be closed
 *  before its store. */
kv_status kv_scan_open(kv_scan **out, kv_store *store, const char *table,
                       const kv_read_options *ropts);
/**
 * Moves to the next row with at least one cell to return. KV_OK with *row
 * set (valid until the next call or kv_scan_close); KV_END when there are
 * no more rows (and at every later call); another error on failure, which
 * every later call returns again: a failed scan never reports KV_END, so
 * that a caller cannot mistake a failure for the end of the table.
 * *row is NULL unless KV_OK.
 */
kv_status kv_scan_next(const kv_result **row, kv_scan *scan);
/**
 * Returns each row in parts of at most @p max_cells cells (HBase's
 * Scan.setBatch, for rows too wide to hold at once); 0 (the default)
 * returns whole rows. Each kv_scan_next then gives the next part: a row's
 * parts follow one another with the same row, in cell order, none empty,
 * and together hold exactly the cells the row would have whole. The
 * limit of kv_read_options counts rows, not parts. The local store then
 * holds one part in memory at a time, not the row, unless the scan has a
 * filter or is raw (the filter judges, and a raw read orders, the row
 * whole): those rows, and every row of other backends (the model, Cloud
 * Bigtable), are read whole and handed out in parts. Must be called before
 * the scan's first kv_scan_next (else KV_INVALID); KV_INVALID for a NULL
 * scan.
 */
kv_status kv_scan_set_batch(kv_scan *scan, size_t max_cells);
/** Closes a scan and releases its snapshot (NULL is a no-op). */
void kv_scan_close(kv_scan *scan);

/* ------------------------------------------------------------------------ */
/* Verification and salvage (local stores; the cellck tool)                  */
/* ------------------------------------------------------------------------ */

/** The kind of a finding. */
typedef enum kv_finding_kind {
    KV_FINDING_DAMAGE = 0,  /* bytes that cannot be read, or are wrong */
    KV_FINDING_WARNING = 1, /* not damage, worth knowing: a torn log tail or
                               manifest edit that was dropped, a kept
                               NNNNNN.log.damaged, a file no manifest names */
    KV_FINDING_LOST = 2,    /* salvage: what could not be copied */
    KV_FINDING_INFO = 3     /* what was checked or copied */
} kv_finding_kind;

/** One thing kv_store_check or kv_store_salvage found. The strings are valid
 *  only during the callback. */
typedef struct kv_finding {
    kv_finding_kind kind;
    const char *file;       /* its name in the store directory ("MANIFEST",
                               "000012.sst", "000013.log"), or NULL */
    int64_t offset;         /* byte offset in file, or -1 when none applies */
    const char *message;    /* one line; names the file again */
} kv_finding;

/** Receives findings, in the order they are made, on the calling thread. */
typedef void (*kv_finding_fn)(void *ctx, const kv_finding *finding);

/** Counts of a check or salvage. */
typedef struct kv_check_stats {
    uint64_t sorted_files;  /* sorted files examined */
    uint64_t logs;          /* write-ahead logs examined */
    uint64_t cells;         /* entries read (check) or copied (salvage) */
    uint64_t cells_lost;    /* salvage: entries not copied (from the
                               manifest's count for a file that could not be
                               read at all; a lower bound) */
    uint64_t damage;        /* findings of kind KV_FINDING_DAMAGE */
    uint64_t warnings;      /* findings of kind KV_FINDING_WARNING */
    uint64_t lost;          /* findings of kind KV_FINDING_LOST */
} kv_check_stats;

/**
 * Verifies the local store at @p path without changing it: opens it
 * read-only (a shared lock: refused with KV_LOCKED while a writer has it),
 * then checks the manifest (snapshot and edits), every sorted file (footer,
 * index, bloom filter, meta, every data block's checksum and compression,
 * every key decodable and in cell order, the bloom filter answering for
 * every key, entry count and key range as the manifest records them), every
 * write-ahead log (framing, checksums, record payloads; a torn tail is a
 * warning), and the directory (files no manifest names, kept
 * NNNNNN.log.damaged copies). When the store does not open (a damaged
 * manifest or log) that is reported (for the manifest with its line or
 * offset) and every sorted file in the directory is still checked on its
 * own; a directory with sorted files or logs but no MANIFEST is damage
 * (file "MANIFEST"). Each finding goes to @p fn (may be NULL);
 * @p stats (may be NULL) receives the counts.
 * Returns KV_OK when nothing is damaged (warnings allowed), KV_CORRUPT when
 * something is, or the error that kept the check from running: KV_NOT_FOUND
 * (no store), KV_LOCKED, KV_IO, KV_NO_MEMORY. Thread-safe (no shared state).
 */
kv_status kv_store_check(kv_check_stats *stats, const char *path, kv_finding_fn fn, void *ctx);

/**
 * Copies everything still readable of the local store at @p path into a
 * new store at @p new_path (which must not exist or be an empty
 * directory; KV_EXISTS otherwise), leaving the old store unchanged: the
 * catalog (namespaces and their properties, tables, families and their
 * attributes, enabled state), and every cell and delete marker of each
 * family, from each readable sorted file (oldest first) and from the logs
 * as recovery replays them, with their timestamps. A sorted file that
 * cannot be opened, and the rest of a file after an unreadable block, are
 * reported as KV_FINDING_LOST (naming file, offset and the key range lost
 * as far as known), and so is the rest of a log after damage in its middle
 * (its records before the damage are copied); everything else is copied.
 * The new store is flushed and closed before returning.
 * A missing or damaged manifest is read as far as it can be: the lines of
 * its snapshot that parse (each line left out is a KV_FINDING_LOST naming
 * its line and offset) and every edit whose checksum holds. What it cannot
 * place goes to a table "lost_found" of the default namespace
 * ("lost_found_2"... if the catalog read has one): a family "sst_NNNNNN"
 * for each sorted file no manifest line names, and "log_tT_fF" for the
 * logged cells of a table id T / family id F the catalog read does not
 * know (sorted files do not record their table or family; log records
 * record only these ids). Those families keep every version and delete
 * marker (VERSIONS 2147483647, KEEP_DELETED_CELLS TRUE, TTL FOREVER, the
 * other settings KV_FAMILY_DESC_INIT's); each is reported as a
 * KV_FINDING_LOST (its table and family are lost). Namespaces, family
 * settings and table attributes are kept as far as their lines can be
 * read; a namespace is recreated from a table's line when its own line is
 * lost.
 * Returns KV_OK when everything was copied, KV_CORRUPT when something was
 * lost (the new store then holds the rest), or the error that stopped it.
 */
kv_status kv_store_salvage(kv_check_stats *stats, const char *path, const char *new_path,
                           kv_finding_fn fn, void *ctx);

/* ------------------------------------------------------------------------ */
/* I/O layer                                                                 */
/* ------------------------------------------------------------------------ */

/** The swappable I/O layer (see kvcore/util/env.h for its operations). */
typedef struct kv_env kv_env;
/** The POSIX implementation (shared, stateless). */
kv_env *kv_env_posix(void);

#ifdef __cplusplus
}
#endif
#endif /* KVCORE_H */
