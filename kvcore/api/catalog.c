/**
 * @file catalog.c
 * The catalog calls of kvcore.h (namespaces, tables, families): checks
 * shared by every backend (read-only stores, the capabilities that
 * namespaces, disabled tables and some family attributes need, descriptor
 * versions) and dispatch to the store's backend. kv_table_exists and
 * kv_table_is_enabled are answered from a description.
 */
#include "api_i.h"

#include <stdio.h>
#include <stdlib.h>

/* Checks a change of the catalog: a writable store and, when @p cap is
   not 0, the capability it needs. */
static kv_status change(kv_store *s, const char *what, uint64_t cap) {
    kv_api_begin(s);
    if (!s) return KV_INVALID;
    kv_status st = kv_api_writable(s, what);
    if (st == KV_OK && cap) st = kv_api_need(s, cap, what);
    return st;
}

/* The capabilities a family's attributes need, and its version. */
static kv_status check_family(kv_store *s, const kv_family_desc *f, const char *what) {
    kv_status st = kv_api_version(s, "kv_family_desc", f->version, KV_FAMILY_DESC_VERSION);
    if (st == KV_OK && f->keep_deleted != KV_KEEP_DELETED_FALSE)
        st = kv_api_need(s, KV_CAP_KEEP_DELETED_CELLS, what);
    if (st == KV_OK && f->min_versions > 0) st = kv_api_need(s, KV_CAP_MIN_VERSIONS, what);
    if (st == KV_OK && f->new_version_behavior) st = kv_api_need(s, KV_CAP_NEW_VERSION_BEHAVIOR, what);
    return st;
}

kv_status kv_namespace_create(kv_store *s, const char *name) {
    kv_status st = change(s, "create_namespace", KV_CAP_NAMESPACES);
    return st == KV_OK ? s->ops->xNamespaceCreate(s->b, name) : st;
}

kv_status kv_namespace_drop(kv_store *s, const char *name) {
    kv_status st = change(s, "drop_namespace", KV_CAP_NAMESPACES);
    return st == KV_OK ? s->ops->xNamespaceDrop(s->b, name) : st;
}

kv_status kv_namespace_set_property(kv_store *s, const char *name, const char *key,
                                    const char *value) {
    kv_status st = change(s, "alter_namespace", KV_CAP_NAMESPACES);
    return st == KV_OK ? s->ops->xNamespaceSetProperty(s->b, name, key, value) : st;
}

kv_status kv_namespace_list(char ***names, kv_store *s) {
    *names = NULL;
    kv_api_begin(s);
    if (!s) return KV_INVALID;
    return s->ops->xNamespaceList(s->b, names);
}

kv_status kv_namespace_describe(kv_property **props, size_t *count, kv_store *s, const char *name) {
    *props = NULL;
    *count = 0;
    kv_api_begin(s);
    if (!s || !name) return KV_INVALID;
    return s->ops->xNamespaceDescribe(s->b, name, props, count);
}

kv_status kv_table_create(kv_store *s, const char *table, const kv_family_desc *families,
                          size_t nfamilies) {
    kv_status st = change(s, "create", 0);
    for (size_t i = 0; st == KV_OK && families && i < nfamilies; i++)
        st = check_family(s, &families[i], "create");
    return st == KV_OK ? s->ops->xTableCreate(s->b, table, families, nfamilies) : st;
}

kv_status kv_table_list(char ***names, kv_store *s, const char *ns) {
    *names = NULL;
    kv_api_begin(s);
    if (!s) return KV_INVALID;
    return s->ops->xTableList(s->b, ns, names);
}

kv_status kv_table_describe(kv_table_desc **out, kv_store *s, const char *table) {
    *out = NULL;
    kv_api_begin(s);
    if (!s) return KV_INVALID;
    return s->ops->xTableDescribe(s->b, table, out);
}

void kv_table_desc_free(kv_table_desc *desc) { free(desc); }

kv_status kv_table_exists(kv_store *s, const char *table) {
    kv_table_desc *d;
    kv_status st = kv_table_describe(&d, s, table);
    kv_table_desc_free(d);
    return st;
}

kv_status kv_table_is_enabled(bool *enabled, kv_store *s, const char *table) {
    kv_table_desc *d;
    kv_status st = kv_table_describe(&d, s, table);
    if (st == KV_OK) *enabled = d->enabled;
    kv_table_desc_free(d);
    return st;
}

kv_status kv_table_alter_family(kv_store *s, const char *table, const kv_family_desc *family) {
    kv_status st = change(s, "alter", 0);
    if (st == KV_OK && !family) st = KV_INVALID;
    if (st == KV_OK) st = check_family(s, family, "alter");
    return st == KV_OK ? s->ops->xTableAlterFamily(s->b, table, family) : st;
}

kv_status kv_table_set_attributes(kv_store *s, const char *table, const kv_property *attrs,
                                  size_t count) {
    kv_status st = change(s, "alter", 0);
    if (st == KV_OK && !attrs && count) st = KV_INVALID;
    if (st == KV_OK && count) {
        char what[KV_NAME_MAX + 64];
        snprintf(what, sizeof what, "alter (table attribute %s)", attrs[0].key ? attrs[0].key : "");
        st = kv_api_need(s, KV_CAP_TABLE_ATTRIBUTES, what);
    }
    char key[KV_NAME_MAX + 1], err[300];
    char *value = st == KV_OK ? malloc(KV_TABLE_ATTR_VALUE_MAX + 1) : NULL;
    if (st == KV_OK && !value) st = KV_NO_MEMORY;
    for (size_t i = 0; st == KV_OK && i < count; i++)
        if ((st = kv_table_attribute_check(attrs[i].key, attrs[i].value, key, value, err,
                                           sizeof err)) != KV_OK)
            kv_api_fail(s, st, "%s", err);
    free(value);
    return st == KV_OK ? s->ops->xTableSetAttributes(s->b, table, attrs, count) : st;
}

kv_status kv_table_delete_family(kv_store *s, const char *table, const char *family) {
    kv_status st = change(s, "alter", 0);
    if (st == KV_OK && !family) st = KV_INVALID;
    return st == KV_OK ? s->ops->xTableDeleteFamily(s->b, table, family) : st;
}

kv_status kv_table_enable(kv_store *s, const char *table) {
    kv_status st = change(s, "enable", KV_CAP_DISABLE_TABLES);
    return st == KV_OK ? s->ops->xTableSetEnabled(s->b, table, true) : st;
}

kv_status kv_table_disable(kv_store *s, const char *table) {
    kv_status st = change(s, "disable", KV_CAP_DISABLE_TABLES);
    return st == KV_OK ? s->ops->xTableSetEnabled(s->b, table, false) : st;
}

kv_status kv_table_drop(kv_store *s, const char *table) {
    kv_status st = change(s, "drop", 0);
    return st == KV_OK ? s->ops->xTableDrop(s->b, table) : st;
}

kv_status kv_table_truncate(kv_store *s, const char *table, bool preserve_splits) {
    kv_status st = change(s, "truncate", 0);
    return st == KV_OK ? s->ops->xTableTruncate(s->b, table, preserve_splits) : st;
}
