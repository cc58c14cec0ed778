/**
 * @file backend.c
 * Cloud Bigtable's face as a backend (backend.h, hbase/backend.h): each
 * method turns the opaque kv_backend into the backend's handle
 * (store_i.h) and calls the module that does the work (handle.c,
 * catalog.c, mutate.c, scan.c). The capabilities say what Bigtable cannot
 * do; xWhyNot says why, for the api's KV_NOT_SUPPORTED messages.
 */
#include "backend.h"
#include "catalog.h"
#include "handle.h"
#include "mutate.h"
#include "scan.h"
#include "schema_cache.h"

static btb_store *B(kv_backend *b) { return (btb_store *)(void *)b; }

static kv_status x_open(kv_backend **out, const char *location, const kv_store_options *opts,
                        kv_report *report) {
    btb_store *s = NULL;
    kv_status st = btb_handle_open(&s, location, opts, report);
    *out = (kv_backend *)(void *)s;
    return st;
}

static kv_status x_close(kv_backend *b) {
    btb_cache_clear(B(b));
    btb_handle_close(B(b));
    return KV_OK;   /* every write was acknowledged by the server already */
}

static int64_t x_now(kv_backend *b) { return btb_now(B(b)); }

static const char *x_why_not(uint64_t cap) {
    switch (cap) {
    case KV_CAP_DELETE_MARKERS:
        return "Cloud Bigtable deletes cells at once and keeps no delete markers";
    case KV_CAP_DELETE_FAMILY_VERSION:
        return "Cloud Bigtable cannot delete every column of a family at one timestamp without "
               "reading the columns first";
    case KV_CAP_RAW_SCANS:
        return "Cloud Bigtable keeps no delete markers and collects surplus versions itself, so "
               "there is nothing raw to show";
    case KV_CAP_NAMESPACES:
        return "Cloud Bigtable has no namespaces: table 'ns:t' is the table id 'ns--t', so a "
               "namespace exists while it holds tables (create 'ns:t' makes it) and has no "
               "properties";
    case KV_CAP_FLUSH: return "Cloud Bigtable writes to its own storage; there is nothing to flush";
    case KV_CAP_COMPACT: return "Cloud Bigtable compacts its storage itself";
    case KV_CAP_SNAPSHOT_SCANS:
        return "a Cloud Bigtable scan reads each row consistently, not the whole table at one "
               "moment";
    case KV_CAP_KEEP_DELETED_CELLS:
        return "Cloud Bigtable deletes cells at once and keeps no delete markers";
    case KV_CAP_MIN_VERSIONS:
        return "a Cloud Bigtable GC rule cannot keep the newest versions past the TTL, and the "
               "attribute cannot be stored";
    case KV_CAP_NEW_VERSION_BEHAVIOR:
        return "Cloud Bigtable keeps no such family attribute";
    case KV_CAP_DISABLE_TABLES:
        return "Cloud Bigtable tables are never disabled (drop deletes a table without it)";
    case KV_CAP_EXCLUSIVE:
        return "other clients may write a Cloud Bigtable instance at any time";
    case KV_CAP_TABLE_ATTRIBUTES:
        return "Cloud Bigtable tables have no HBase table attributes (MAX_FILESIZE, READONLY, "
               "DURABILITY, ...), and none maps to a Bigtable table setting";
    }
    return NULL;
}

/* Methods the api never calls, as they need a capability Bigtable lacks;
   they refuse all the same. */
static kv_status refuse(kv_backend *b, uint64_t cap) {
    return btb_refuse(B(b), KV_NOT_SUPPORTED, "not supported on Cloud Bigtable: %s",
                      x_why_not(cap));
}

static kv_status x_flush(kv_backend *b, const char *table) {
    (void)table;
    return refuse(b, KV_CAP_FLUSH);
}

static kv_status x_compact(kv_backend *b, const char *table, bool major) {
    (void)table;
    (void)major;
    return refuse(b, KV_CAP_COMPACT);
}

static kv_status x_ns_create(kv_backend *b, const char *name) {
    (void)name;
    return refuse(b, KV_CAP_NAMESPACES);
}

static kv_status x_ns_drop(kv_backend *b, const char *name) {
    (void)name;
    return refuse(b, KV_CAP_NAMESPACES);
}

static kv_status x_ns_set(kv_backend *b, const char *name, const char *key, const char *value) {
    (void)name;
    (void)key;
    (void)value;
    return refuse(b, KV_CAP_NAMESPACES);
}

static kv_status x_ns_list(kv_backend *b, char ***names) { return btb_namespace_list(B(b), names); }

static kv_status x_ns_describe(kv_backend *b, const char *name, kv_property **props,
                               size_t *count) {
    return btb_namespace_describe(B(b), name, props, count);
}

static kv_status x_table_create(kv_backend *b, const char *table, const kv_family_desc *f,
                                size_t n) {
    return btb_table_create(B(b), table, f, n);
}

static kv_status x_table_list(kv_backend *b, const char *ns, char ***names) {
    return btb_table_list(B(b), ns, names);
}

static kv_status x_table_describe(kv_backend *b, const char *table, kv_table_desc **out) {
    return btb_table_describe(B(b), table, out);
}

static kv_status x_alter_family(kv_backend *b, const char *table, const kv_family_desc *f) {
    return btb_table_alter_family(B(b), table, f);
}

static kv_status x_set_attributes(kv_backend *b, const char *table, const kv_property *attrs,
                                  size_t count) {
    (void)table;
    (void)attrs;
    return count ? refuse(b, KV_CAP_TABLE_ATTRIBUTES) : KV_OK;
}

static kv_status x_delete_family(kv_backend *b, const char *table, const char *family) {
    return btb_table_delete_family(B(b), table, family);
}

static kv_status x_set_enabled(kv_backend *b, const char *table, bool enabled) {
    (void)table;
    (void)enabled;
    return refuse(b, KV_CAP_DISABLE_TABLES);
}

static kv_status x_table_drop(kv_backend *b, const char *table) {
    return btb_table_drop(B(b), table);
}

static kv_status x_truncate(kv_backend *b, const char *table, bool preserve_splits) {
    (void)preserve_splits;   /* Bigtable splits its tables itself */
    return btb_table_truncate(B(b), table);
}

static kv_status x_mutate(kv_backend *b, const char *table, kv_mutation *const *ms, size_t n,
                          kv_status *statuses, kv_durability d) {
    (void)d;   /* an acknowledged write is replicated: every durability is met */
    return btb_mutate(B(b), table, ms, n, statuses);
}

static kv_status x_rmw(kv_backend *b, const char *table, const kv_rmw *op, kv_buf *result) {
    return btb_read_modify_write(B(b), table, op, result);
}

static kv_status x_check_and_mutate(kv_backend *b, const char *table, const kv_check *check,
                                    const kv_mutation *m, kv_durability d, bool *applied) {
    (void)d;
    return btb_check_and_mutate(B(b), table, check, m, applied);
}

static kv_status x_scan_open(kv_backend *b, const char *table, const kv_read_options *ro,
                             bool single_row, kv_backend_scan **out) {
    return btb_scan_open(B(b), table, ro, single_row, out);
}

const kv_backend_ops kv_bigtable_backend = {
    .version = KV_BACKEND_OPS_VERSION,
    .name = "bigtable",
    .capabilities = KV_CAP_DURABLE,
    .xOpen = x_open,
    .xClose = x_close,
    .xNow = x_now,
    .xStat = NULL,   /* no figures: the instance's are in the Cloud console */
    .xFlush = x_flush,
    .xCompact = x_compact,
    .xWhyNot = x_why_not,
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
    .xTableSetAttributes = x_set_attributes,
    .xTableSetEnabled = x_set_enabled,
    .xTableDrop = x_table_drop,
    .xTableTruncate = x_truncate,
    .xMutate = x_mutate,
    .xReadModifyWrite = x_rmw,
    .xCheckAndMutate = x_check_and_mutate,
    .xScanOpen = x_scan_open,
    .xScanNext = btb_scan_next,
    .xScanClose = btb_scan_close,
};
