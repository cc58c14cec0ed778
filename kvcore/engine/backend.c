/**
 * @file backend.c
 * The local LSM engine's face as a backend (hbase/backend.h): each method
 * turns the opaque kv_backend into the engine's handle and calls the
 * engine module that does the work (store.c, catalog.c, mutate.c,
 * read.c). The engine has every capability.
 */
#include "backend.h"
#include "catalog.h"
#include "mutate.h"
#include "read.h"
#include "store.h"

static kv_engine *E(kv_backend *b) { return (kv_engine *)(void *)b; }

static kv_status x_open(kv_backend **out, const char *location, const kv_store_options *opts,
                        kv_report *report) {
    kv_engine *s = NULL;
    kv_status st = kv_engine_open(&s, location, opts, report);
    *out = (kv_backend *)(void *)s;
    return st;
}

static kv_status x_close(kv_backend *b) { return kv_engine_close(E(b)); }
static int64_t x_now(kv_backend *b) { return kv_engine_now(E(b)); }
static kv_status x_stat(kv_backend *b, kv_store_stats *out) { return kv_engine_stat(E(b), out); }
static kv_status x_flush(kv_backend *b, const char *table) { return kv_engine_flush(E(b), table); }

static kv_status x_compact(kv_backend *b, const char *table, bool major) {
    return kv_engine_compact(E(b), table, major);
}

static kv_status x_ns_create(kv_backend *b, const char *name) {
    return kv_engine_namespace_create(E(b), name);
}

static kv_status x_ns_drop(kv_backend *b, const char *name) {
    return kv_engine_namespace_drop(E(b), name);
}

static kv_status x_ns_set(kv_backend *b, const char *name, const char *key, const char *value) {
    return kv_engine_namespace_set_property(E(b), name, key, value);
}

static kv_status x_ns_list(kv_backend *b, char ***names) {
    return kv_engine_namespace_list(E(b), names);
}

static kv_status x_ns_describe(kv_backend *b, const char *name, kv_property **props,
                               size_t *count) {
    return kv_engine_namespace_describe(E(b), name, props, count);
}

static kv_status x_table_create(kv_backend *b, const char *table, const kv_family_desc *families,
                                size_t n) {
    return kv_engine_table_create(E(b), table, families, n);
}

static kv_status x_table_list(kv_backend *b, const char *ns, char ***names) {
    return kv_engine_table_list(E(b), ns, names);
}

static kv_status x_table_describe(kv_backend *b, const char *table, kv_table_desc **out) {
    return kv_engine_table_describe(E(b), table, out);
}

static kv_status x_alter_family(kv_backend *b, const char *table, const kv_family_desc *family) {
    return kv_engine_table_alter_family(E(b), table, family);
}

static kv_status x_delete_family(kv_backend *b, const char *table, const char *family) {
    return kv_engine_table_delete_family(E(b), table, family);
}

static kv_status x_set_attributes(kv_backend *b, const char *table, const kv_property *attrs,
                                  size_t count) {
    return kv_engine_table_set_attributes(E(b), table, attrs, count);
}

static kv_status x_set_enabled(kv_backend *b, const char *table, bool enabled) {
    return kv_engine_table_set_enabled(E(b), table, enabled);
}

static kv_status x_table_drop(kv_backend *b, const char *table) {
    return kv_engine_table_drop(E(b), table);
}

static kv_status x_truncate(kv_backend *b, const char *table, bool preserve_splits) {
    return kv_engine_table_truncate(E(b), table, preserve_splits);
}

static kv_status x_mutate(kv_backend *b, const char *table, kv_mutation *const *ms, size_t n,
                          kv_status *statuses, kv_durability d) {
    return kv_engine_mutate(E(b), table, ms, n, statuses, d);
}

static kv_status x_rmw(kv_backend *b, const char *table, const kv_rmw *op, kv_buf *result) {
    return kv_engine_read_modify_write(E(b), table, op, result);
}

static kv_status x_check_and_mutate(kv_backend *b, const char *table, const kv_check *check,
                                    const kv_mutation *m, kv_durability d, bool *applied) {
    return kv_engine_check_and_mutate(E(b), table, check, m, d, applied);
}

static kv_status x_scan_open(kv_backend *b, const char *table, const kv_read_options *ro,
                             bool single_row, kv_backend_scan **out) {
    kv_engine_scan *sc = NULL;
    kv_status st = kv_engine_scan_open(E(b), table, ro, single_row, &sc);
    *out = (kv_backend_scan *)(void *)sc;
    return st;
}

static kv_status x_scan_next(kv_backend_scan *sc, const kv_result **row) {
    return kv_engine_scan_next((kv_engine_scan *)(void *)sc, row);
}

static void x_scan_close(kv_backend_scan *sc) { kv_engine_scan_close((kv_engine_scan *)(void *)sc); }

static kv_status x_scan_set_batch(kv_backend_scan *sc, size_t max_cells) {
    return kv_engine_scan_set_batch((kv_engine_scan *)(void *)sc, max_cells);
}

const kv_backend_ops kv_engine_backend = {
    .version = KV_BACKEND_OPS_VERSION,
    .name = "local",
    .capabilities = KV_CAP_DELETE_MARKERS | KV_CAP_DELETE_FAMILY_VERSION | KV_CAP_RAW_SCANS |
                    KV_CAP_NAMESPACES | KV_CAP_FLUSH | KV_CAP_COMPACT | KV_CAP_SNAPSHOT_SCANS |
                    KV_CAP_KEEP_DELETED_CELLS | KV_CAP_MIN_VERSIONS |
                    KV_CAP_NEW_VERSION_BEHAVIOR | KV_CAP_DISABLE_TABLES | KV_CAP_DURABLE |
                    KV_CAP_EXCLUSIVE | KV_CAP_TABLE_ATTRIBUTES,
    .xOpen = x_open,
    .xClose = x_close,
    .xNow = x_now,
    .xStat = x_stat,
    .xFlush = x_flush,
    .xCompact = x_compact,
    .xWhyNot = NULL,
    .xNamespaceCreate = x_ns_create,
    .xNamespaceDrop = x_ns_drop,
    .xNamespaceSetProperty = x_ns_set,
    .xNamespaceList = x_ns_list,
    .xNamespaceDescribe = x_ns_describe,
    .xTableCreate = x_table_create,
    .xTableList = x_table_list,
    .xTableDescribe = x_table_describe,
    .xTableAlterFamily = x_alter_family,
    .xTableDeleteFamily = x_delete_family,
    .xTableSetEnabled = x_set_enabled,
    .xTableSetAttributes = x_set_attributes,
    .xTableDrop = x_table_drop,
    .xTableTruncate = x_truncate,
    .xMutate = x_mutate,
    .xReadModifyWrite = x_rmw,
    .xCheckAndMutate = x_check_and_mutate,
    .xScanOpen = x_scan_open,
    .xScanNext = x_scan_next,
    .xScanClose = x_scan_close,
    .xScanSetBatch = x_scan_set_batch,
};
