/**
 * @file backend.c
 * The reference model's face as a backend (hbase/backend.h): "model:"
 * opens a new, empty store in memory, gone at close. Every method takes
 * the model's one lock and calls catalog.c, write.c, layers.c or scan.c.
 * The model has every capability but durability.
 */
#include "model.h"
#include "model_i.h"

#include <stdlib.h>

static model *M(kv_backend *b) { return (model *)(void *)b; }

static kv_status x_open(kv_backend **out, const char *location, const kv_store_options *opts,
                        kv_report *report) {
    (void)location;
    *out = NULL;
    model *m = calloc(1, sizeof *m);
    if (!m) return KV_NO_MEMORY;
    pthread_mutex_init(&m->mu, NULL);
    m->report = report;
    m->clock = (kv_clock){opts->clock_ms, opts->clock_ctx};
    m->max_value_size = opts->max_value_size;
    m->floor = INT64_MIN;
    kv_status st = m_namespace_create(m, "default");
    if (st == KV_OK) st = m_namespace_create(m, "hbase");
    if (st != KV_OK) {
        m_free_catalog(m);
        pthread_mutex_destroy(&m->mu);
        free(m);
        return st;
    }
    *out = (kv_backend *)(void *)m;
    return KV_OK;
}

static kv_status x_close(kv_backend *b) {
    model *m = M(b);
    m_free_catalog(m);
    pthread_mutex_destroy(&m->mu);
    free(m);
    return KV_OK;
}

/* Each method below runs its body under the model's lock. */
#define LOCKED(b, expr)                        \
    do {                                       \
        model *m_ = M(b);                      \
        pthread_mutex_lock(&m_->mu);           \
        kv_status st_ = (expr);                \
        pthread_mutex_unlock(&m_->mu);         \
        return st_;                            \
    } while (0)

static int64_t x_now(kv_backend *b) {
    model *m = M(b);
    pthread_mutex_lock(&m->mu);
    int64_t now = m_now(m);
    pthread_mutex_unlock(&m->mu);
    return now;
}

static kv_status stat_locked(model *m, kv_store_stats *out) {
    for (size_t i = 0; i < m->ntables; i++)
        for (size_t k = 0; k < m->tables[i]->nfams; k++) {
            const m_family *f = &m->tables[i]->fams[k];
            for (size_t e = 0; e < f->mem.n; e++)
                out->memstore_bytes += f->mem.e[e].row_len + f->mem.e[e].qual_len + f->mem.e[e].value_len;
            out->sorted_files += f->nfiles;
        }
    out->flushes = m->flushes;
    out->compactions = m->compactions;
    out->last_sequence = m->seq;
    return KV_OK;
}

static kv_status x_stat(kv_backend *b, kv_store_stats *out) { LOCKED(b, stat_locked(m_, out)); }

static kv_status flush_locked(model *m, const char *table) {
    if (table && !m_find_table(m, table))
        return m_fail(m, KV_NOT_FOUND, "table '%s' does not exist", table);
    return m_flush_all(m, kv_clock_read(&m->clock));
}

static kv_status x_flush(kv_backend *b, const char *table) { LOCKED(b, flush_locked(m_, table)); }

static kv_status compact_locked(model *m, const char *table, bool major) {
    m_table *t = NULL;
    if (table && !(t = m_find_table(m, table)))
        return m_fail(m, KV_NOT_FOUND, "table '%s' does not exist", table);
    return m_compact(m, t, major, kv_clock_read(&m->clock));
}

static kv_status x_compact(kv_backend *b, const char *table, bool major) {
    LOCKED(b, compact_locked(m_, table, major));
}

static const char *x_why_not(uint64_t cap) {
    return cap == KV_CAP_DURABLE ? "the model keeps its cells in memory until it is closed" : NULL;
}

static kv_status x_ns_create(kv_backend *b, const char *name) { LOCKED(b, m_namespace_create(m_, name)); }
static kv_status x_ns_drop(kv_backend *b, const char *name) { LOCKED(b, m_namespace_drop(m_, name)); }

static kv_status x_ns_set(kv_backend *b, const char *name, const char *key, const char *value) {
    LOCKED(b, m_namespace_set_property(m_, name, key, value));
}

static kv_status x_ns_list(kv_backend *b, char ***names) { LOCKED(b, m_namespace_list(m_, names)); }

static kv_status x_ns_describe(kv_backend *b, const char *name, kv_property **props,
                               size_t *count) {
    LOCKED(b, m_namespace_describe(m_, name, props, count));
}

static kv_status x_table_create(kv_backend *b, const char *table, const kv_family_desc *f,
                                size_t n) {
    LOCKED(b, m_table_create(m_, table, f, n));
}

static kv_status x_table_list(kv_backend *b, const char *ns, char ***names) {
    LOCKED(b, m_table_list(m_, ns, names));
}

static kv_status x_table_describe(kv_backend *b, const char *table, kv_table_desc **out) {
    LOCKED(b, m_table_describe(m_, table, out));
}

static kv_status x_alter_family(kv_backend *b, const char *table, const kv_family_desc *f) {
    LOCKED(b, m_table_alter_family(m_, table, f));
}

static kv_status x_delete_family(kv_backend *b, const char *table, const char *family) {
    LOCKED(b, m_table_delete_family(m_, table, family));
}

static kv_status x_set_attributes(kv_backend *b, const char *table, const kv_property *attrs,
                                  size_t count) {
    LOCKED(b, m_table_set_attributes(m_, table, attrs, count));
}

static kv_status x_set_enabled(kv_backend *b, const char *table, bool enabled) {
    LOCKED(b, m_table_set_enabled(m_, table, enabled));
}

static kv_status x_table_drop(kv_backend *b, const char *table) { LOCKED(b, m_table_drop(m_, table)); }

static kv_status x_truncate(kv_backend *b, const char *table, bool preserve_splits) {
    (void)preserve_splits;
    LOCKED(b, m_table_truncate(m_, table));
}

static kv_status x_mutate(kv_backend *b, const char *table, kv_mutation *const *ms, size_t n,
                          kv_status *statuses, kv_durability d) {
    (void)d;   /* nothing is durable here */
    LOCKED(b, m_mutate(m_, table, ms, n, statuses));
}

static kv_status x_rmw(kv_backend *b, const char *table, const kv_rmw *op, kv_buf *result) {
    LOCKED(b, m_read_modify_write(m_, table, op, result));
}

static kv_status x_check_and_mutate(kv_backend *b, const char *table, const kv_check *check,
                                    const kv_mutation *mu, kv_durability d, bool *applied) {
    (void)d;
    LOCKED(b, m_check_and_mutate(m_, table, check, mu, applied));
}

static kv_status x_scan_open(kv_backend *b, const char *table, const kv_read_options *ro,
                             bool single_row, kv_backend_scan **out) {
    (void)single_row;   /* no point lookups to gain */
    m_scan *sc = NULL;
    model *m = M(b);
    pthread_mutex_lock(&m->mu);
    kv_status st = m_scan_open(m, table, ro, &sc);
    pthread_mutex_unlock(&m->mu);
    *out = (kv_backend_scan *)(void *)sc;
    return st;
}

static kv_status x_scan_next(kv_backend_scan *sc, const kv_result **row) {
    return m_scan_next((m_scan *)(void *)sc, row);
}

static void x_scan_close(kv_backend_scan *sc) { m_scan_close((m_scan *)(void *)sc); }

const kv_backend_ops kv_model_backend = {
    .version = KV_BACKEND_OPS_VERSION,
    .name = "model",
    .capabilities = KV_CAP_DELETE_MARKERS | KV_CAP_DELETE_FAMILY_VERSION | KV_CAP_RAW_SCANS |
                    KV_CAP_NAMESPACES | KV_CAP_FLUSH | KV_CAP_COMPACT | KV_CAP_SNAPSHOT_SCANS |
                    KV_CAP_KEEP_DELETED_CELLS | KV_CAP_MIN_VERSIONS |
                    KV_CAP_NEW_VERSION_BEHAVIOR | KV_CAP_DISABLE_TABLES | KV_CAP_EXCLUSIVE |
                    KV_CAP_TABLE_ATTRIBUTES,
    .xOpen = x_open,
    .xClose = x_close,
    .xNow = x_now,
    .xStat = x_stat,
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
};
