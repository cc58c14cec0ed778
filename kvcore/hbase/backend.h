/**
 * @file backend.h
 * The backend seam: what a store implementation provides so that the public
 * calls of kvcore.h (kvcore/api/) can dispatch to it, in the manner of
 * SQLite's sqlite3_vfs: a versioned, named table of x* methods with
 * capability flags. The local LSM engine (kvcore/engine/backend.c) is the
 * first backend; others (an in-memory reference model, Cloud Bigtable in
 * kvcore/bigtable/) plug in the same way, and kvcore/api/registry.c lists
 * them by the location scheme they serve.
 *
 * What stays above the seam, shared by every backend: the mutation builder
 * (hbase/mutation.h: a backend reads kv_mutation's operations), the
 * compiled filter (parsed once by kv_filter_parse; a backend evaluates it,
 * e.g. with hbase/filter.h, or translates it), kv_get (a one-row scan), the
 * result structures, argument and options-version checks, read-only
 * refusals and the capability checks below. The api also copies a scan's
 * options (bounds, columns) so that a backend may keep pointers into them
 * until the scan is closed.
 *
 * Contract of every method: it returns a kv_status of kvcore.h and, on a
 * failure, records the detail for the calling thread with
 * kv_backend_fail() on the report it was given at open (the api never
 * invents a message for it). Arguments are already checked: handles and
 * required pointers are non-NULL, options structs are of a known version,
 * the store is writable for changes, and nothing needs a capability the
 * backend lacks. Methods are called from any number of threads at once,
 * except xClose (after every other call has returned and every scan is
 * closed); a scan is used by one thread at a time.
 */
#ifndef KV_HBASE_BACKEND_H
#define KV_HBASE_BACKEND_H

#include "kvcore.h"
#include "util/coding.h"
#include "util/report.h"

#define KV_BACKEND_OPS_VERSION 1

/* A backend's state for one open store, and for one scan. Opaque to the
   api; each backend casts them to its own types. */
typedef struct kv_backend kv_backend;
typedef struct kv_backend_scan kv_backend_scan;

/* kv_increment and kv_append: read the newest value of one cell, compute
   the new one, write it, atomically with respect to other such calls and
   check-and-mutates of the store. */
typedef enum kv_rmw_kind { KV_RMW_INCREMENT, KV_RMW_APPEND } kv_rmw_kind;
typedef struct kv_rmw {
    kv_rmw_kind kind;
    const void *row;
    size_t row_len;
    const char *family;
    const void *qualifier;
    size_t qualifier_len;
    int64_t delta;              /* INCREMENT: the 8-byte big-endian sum */
    const void *data;           /* APPEND: bytes added to the value */
    size_t data_len;
    kv_durability durability;
} kv_rmw;

/* The condition of kv_check_and_mutate: compare(newest value, expected)
   passes kv_compare_passes(op, ...); expected NULL: the cell is absent. */
typedef struct kv_check {
    const void *row;
    size_t row_len;
    const char *family;
    const void *qualifier;
    size_t qualifier_len;
    kv_compare_op op;
    const void *expected;
    size_t expected_len;
} kv_check;

typedef struct kv_backend_ops {
    int version;                /* KV_BACKEND_OPS_VERSION */
    const char *name;           /* "local", "model", "bigtable": in messages */
    uint64_t capabilities;      /* KV_CAP_* of kvcore.h */

    /* ---- store ---- */
    /* Opens the store at location (the full location string: a path, or
       the backend's scheme and what follows). opts is complete (the api
       applied the defaults). Failure messages go to report, which
       outlives the backend. *out is NULL on failure. */
    kv_status (*xOpen)(kv_backend **out, const char *location, const kv_store_options *opts,
                       kv_report *report);
    /* Flushes what must survive, releases everything; frees b in every
       case and returns the first failure. */
    kv_status (*xClose)(kv_backend *b);
    /* The clock for implicit timestamps: never below one handed out. */
    int64_t (*xNow)(kv_backend *b);
    /* Figures; NULL when the backend has none (KV_NOT_SUPPORTED). */
    kv_status (*xStat)(kv_backend *b, kv_store_stats *out);
    /* kv_flush and kv_compact; with KV_CAP_FLUSH / KV_CAP_COMPACT only. */
    kv_status (*xFlush)(kv_backend *b, const char *table);
    kv_status (*xCompact)(kv_backend *b, const char *table, bool major);
    /* Why a capability is missing, for the KV_NOT_SUPPORTED message
       ("Cloud Bigtable has no delete markers"), or NULL. May be NULL. */
    const char *(*xWhyNot)(uint64_t capability);

    /* ---- catalog: contracts as the kvcore.h calls of the same names ---- */
    kv_status (*xNamespaceCreate)(kv_backend *b, const char *name);
    kv_status (*xNamespaceDrop)(kv_backend *b, const char *name);
    kv_status (*xNamespaceSetProperty)(kv_backend *b, const char *name, const char *key,
                                       const char *value);
    kv_status (*xNamespaceList)(kv_backend *b, char ***names);
    kv_status (*xNamespaceDescribe)(kv_backend *b, const char *name, kv_property **props,
                                    size_t *count);
    kv_status (*xTableCreate)(kv_backend *b, const char *table, const kv_family_desc *families,
                              size_t nfamilies);
    kv_status (*xTableList)(kv_backend *b, const char *ns, char ***names);
    /* Also answers kv_table_exists and kv_table_is_enabled. */
    kv_status (*xTableDescribe)(kv_backend *b, const char *table, kv_table_desc **out);
    kv_status (*xTableAlterFamily)(kv_backend *b, const char *table, const kv_family_desc *family);
    kv_status (*xTableDeleteFamily)(kv_backend *b, const char *table, const char *family);
    /* The attributes are checked (kv_table_attribute_check) by the api. */
    kv_status (*xTableSetAttributes)(kv_backend *b, const char *table, const kv_property *attrs,
                                     size_t count);
    kv_status (*xTableSetEnabled)(kv_backend *b, const char *table, bool enabled);
    kv_status (*xTableDrop)(kv_backend *b, const char *table);
    kv_status (*xTableTruncate)(kv_backend *b, const char *table, bool preserve_splits);

    /* ---- writes ---- */
    /* kv_mutate_batch: each of the n mutations atomic (every one non-empty
       is passed on), statuses may be NULL. */
    kv_status (*xMutate)(kv_backend *b, const char *table, kv_mutation *const *ms, size_t n,
                         kv_status *statuses, kv_durability durability);
    /* Increment or append; *result gets the new value (the caller frees). */
    kv_status (*xReadModifyWrite)(kv_backend *b, const char *table, const kv_rmw *op,
                                  kv_buf *result);
    /* kv_check_and_mutate; the mutation is for check->row. */
    kv_status (*xCheckAndMutate)(kv_backend *b, const char *table, const kv_check *check,
                                 const kv_mutation *m, kv_durability durability, bool *applied);

    /* ---- reads ---- */
    /* Opens a scan (kv_scan_open's contract). single_row: the scan is a
       kv_get of start_row (stop_row is start_row's successor, limit 1),
       so that a backend may use point lookups. The options stay valid
       until xScanClose. */
    kv_status (*xScanOpen)(kv_backend *b, const char *table, const kv_read_options *ro,
                           bool single_row, kv_backend_scan **out);
    /* kv_scan_next's contract: KV_OK with *row (valid until the next call),
       KV_END, or a failure. The api keeps KV_END and failures sticky. */
    kv_status (*xScanNext)(kv_backend_scan *scan, const kv_result **row);
    void (*xScanClose)(kv_backend_scan *scan);
    /* May be NULL. kv_scan_set_batch, before the first xScanNext: the
       backend returns each row in parts of at most max_cells cells (0:
       whole rows), or answers KV_NOT_SUPPORTED and the api splits whole
       rows itself. */
    kv_status (*xScanSetBatch)(kv_backend_scan *scan, size_t max_cells);
} kv_backend_ops;

/* Records a failure message for the calling thread on a backend's report
   and returns status: the one way a backend explains a failure. */
kv_status kv_backend_fail(kv_report *report, kv_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
