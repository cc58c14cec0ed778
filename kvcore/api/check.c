/**
 * @file check.c
 * kv_store_check and kv_store_salvage (contracts in kvcore.h): the engine
 * reads the damaged store (engine/check.c); the salvaged catalog and cells
 * are written into the new store through the public calls.
 */
#include "kvcore.h"
#include "engine/check.h"

#include <stdio.h>
#include <string.h>

kv_status kv_store_check(kv_check_stats *stats, const char *path, kv_finding_fn fn, void *ctx) {
    if (!path) return KV_INVALID;
    return kv_engine_check(stats, path, fn, ctx);
}

typedef struct salvage_target {
    kv_store *store;
    char table[2 * KV_NAME_MAX + 2];
    kv_finding_fn fn;
    void *fn_ctx;
} salvage_target;

/* Reports a failure to write into the new store (which stops the salvage). */
static kv_status target_failed(salvage_target *t, kv_status st, const char *what) {
    if (t->fn) {
        char msg[768];
        snprintf(msg, sizeof msg, "writing the new store: %s: %s: %s", what, kv_strerror(st),
                 kv_store_errmsg(t->store));
        kv_finding f = {KV_FINDING_DAMAGE, NULL, -1, msg};
        t->fn(t->fn_ctx, &f);
    }
    return st;
}

static kv_status add_namespace(void *ctx, const char *name, const kv_property *props, size_t nprops) {
    salvage_target *t = ctx;
    kv_status st = KV_OK;
    if (strcmp(name, "default") != 0 && strcmp(name, "hbase") != 0) st = kv_namespace_create(t->store, name);
    for (size_t i = 0; st == KV_OK && i < nprops; i++)
        st = kv_namespace_set_property(t->store, name, props[i].key, props[i].value);
    return st == KV_OK ? KV_OK : target_failed(t, st, name);
}

static kv_status add_table(void *ctx, const char *table, const kv_family_desc *families, size_t n) {
    salvage_target *t = ctx;
    snprintf(t->table, sizeof t->table, "%s", table);
    kv_status st = kv_table_create(t->store, table, families, n);
    return st == KV_OK ? KV_OK : target_failed(t, st, table);
}

static kv_status add_cell(void *ctx, const char *family, const kv_key_parts *key, const uint8_t *value,
                          size_t value_len) {
    salvage_target *t = ctx;
    kv_mutation *m = NULL;
    kv_status st = kv_mutation_new(&m, key->row, key->row_len);
    if (st != KV_OK) return target_failed(t, st, t->table);
    switch (key->type) {
    case KV_TYPE_PUT:
        st = kv_mutation_put(m, family, key->qualifier, key->qualifier_len, key->ts, value, value_len);
        break;
    case KV_TYPE_DELETE:
        st = kv_mutation_delete_version(m, family, key->qualifier, key->qualifier_len, key->ts);
        break;
    case KV_TYPE_DELETE_COLUMN:
        st = kv_mutation_delete_column(m, family, key->qualifier, key->qualifier_len, key->ts);
        break;
    case KV_TYPE_DELETE_FAMILY:
        st = kv_mutation_delete_family(m, family, key->ts);
        break;
    case KV_TYPE_DELETE_FAMILY_VERSION:
        st = kv_mutation_delete_family_version(m, family, key->ts);
        break;
    default:
        st = KV_CORRUPT;
    }
    if (st == KV_OK) st = kv_mutate(t->store, t->table, m, NULL);
    kv_mutation_free(m);
    return st == KV_OK ? KV_OK : target_failed(t, st, t->table);
}

static kv_status end_table(void *ctx, const kv_property *attrs, size_t nattrs, bool enabled) {
    salvage_target *t = ctx;
    kv_status st = nattrs ? kv_table_set_attributes(t->store, t->table, attrs, nattrs) : KV_OK;
    if (st == KV_OK && !enabled) st = kv_table_disable(t->store, t->table);
    return st == KV_OK ? KV_OK : target_failed(t, st, t->table);
}

kv_status kv_store_salvage(kv_check_stats *stats, const char *path, const char *new_path,
                           kv_finding_fn fn, void *ctx) {
    if (stats) memset(stats, 0, sizeof *stats);
    if (!path || !new_path) return KV_INVALID;
    kv_store_options o = KV_STORE_OPTIONS_INIT;
    o.create_if_missing = true;
    o.error_if_exists = true;
    salvage_target t = {.fn = fn, .fn_ctx = ctx};
    char err[512] = "";
    kv_status st = kv_store_open(&t.store, new_path, &o, err, sizeof err);
    if (st != KV_OK) {
        if (fn) {
            char msg[768];
            snprintf(msg, sizeof msg, "cannot create the new store: %s", err);
            kv_finding f = {KV_FINDING_DAMAGE, NULL, -1, msg};
            fn(ctx, &f);
        }
        return st;
    }
    kv_salvage_sink sink = {&t, add_namespace, add_table, add_cell, end_table};
    st = kv_engine_salvage(stats, path, &sink, fn, ctx);
    kv_status fs = kv_flush(t.store, NULL);
    kv_status cs = kv_store_close(t.store);
    if (st == KV_OK || st == KV_CORRUPT) {
        if (fs != KV_OK) st = fs;
        else if (cs != KV_OK) st = cs;
    }
    return st;
}
