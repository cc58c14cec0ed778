/**
 * @file catalog.c
 * The model's namespaces, tables and families, with HBase's catalog rules:
 * default and hbase always exist and cannot be dropped, a namespace is
 * dropped only when empty, a table only when disabled, a table keeps at
 * least one family, disabled tables refuse reads and writes. Names and
 * descriptors are checked by hbase/schema.h. Callers hold the model's mu.
 */
#include "model_i.h"
#include "hbase/schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

m_table *m_find_table(model *m, const char *name) {
    char ns[KV_NAME_MAX + 1], t[KV_NAME_MAX + 1];
    if (kv_split_table_name(name, ns, t) != KV_OK) return NULL;
    for (size_t i = 0; i < m->ntables; i++)
        if (strcmp(m->tables[i]->ns, ns) == 0 && strcmp(m->tables[i]->name, t) == 0)
            return m->tables[i];
    return NULL;
}

m_family *m_find_family(m_table *t, const char *name) {
    for (size_t i = 0; i < t->nfams; i++)
        if (strcmp(t->fams[i].desc.name, name) == 0) return &t->fams[i];
    return NULL;
}

static kv_status no_table(model *m, const char *name) {
    return m_fail(m, KV_NOT_FOUND, "table '%s' does not exist", name ? name : "(null)");
}

kv_status m_usable_table(model *m, const char *name, m_table **out) {
    *out = m_find_table(m, name);
    if (!*out) return no_table(m, name);
    if (!(*out)->enabled) return m_fail(m, KV_DISABLED, "table '%s' is disabled", name);
    return KV_OK;
}

kv_status m_writable_table(model *m, const char *name, m_table **out) {
    kv_status st = m_usable_table(m, name, out);
    if (st == KV_OK && kv_tattrs_readonly(&(*out)->attrs))
        st = m_fail(m, KV_READ_ONLY, "table '%s' is read-only (READONLY => 'true')", name);
    return st;
}

static m_namespace *find_ns(model *m, const char *name) {
    for (size_t i = 0; i < m->nns; i++)
        if (strcmp(m->ns[i].name, name) == 0) return &m->ns[i];
    return NULL;
}

static void free_table(m_table *t) {
    if (!t) return;
    for (size_t i = 0; i < t->nfams; i++) m_family_clear(&t->fams[i]);
    free(t->fams);
    kv_tattrs_clear(&t->attrs);
    free(t);
}

void m_free_catalog(model *m) {
    for (size_t i = 0; i < m->ntables; i++) free_table(m->tables[i]);
    free(m->tables);
    for (size_t i = 0; i < m->nns; i++) kv_free_properties(m->ns[i].props, m->ns[i].nprops);
    free(m->ns);
    m->tables = NULL;
    m->ns = NULL;
    m->ntables = m->nns = 0;
}

/* ---- namespaces ---- */

kv_status m_namespace_create(model *m, const char *name) {
    if (kv_check_name(name) != KV_OK)
        return m_fail(m, KV_INVALID, "illegal namespace name '%s'", name ? name : "(null)");
    if (find_ns(m, name)) return m_fail(m, KV_EXISTS, "namespace '%s' already exists", name);
    m_namespace *p = realloc(m->ns, (m->nns + 1) * sizeof *p);
    if (!p) return KV_NO_MEMORY;
    m->ns = p;
    memset(&p[m->nns], 0, sizeof *p);
    snprintf(p[m->nns++].name, KV_NAME_MAX + 1, "%s", name);
    return KV_OK;
}

kv_status m_namespace_drop(model *m, const char *name) {
    if (!name) return KV_INVALID;
    if (strcmp(name, "default") == 0 || strcmp(name, "hbase") == 0)
        return m_fail(m, KV_INVALID, "namespace '%s' is reserved and cannot be dropped", name);
    m_namespace *ns = find_ns(m, name);
    if (!ns) return m_fail(m, KV_NOT_FOUND, "namespace '%s' does not exist", name);
    for (size_t i = 0; i < m->ntables; i++)
        if (strcmp(m->tables[i]->ns, name) == 0)
            return m_fail(m, KV_NOT_EMPTY, "namespace '%s' still has tables", name);
    kv_free_properties(ns->props, ns->nprops);
    size_t i = (size_t)(ns - m->ns);
    memmove(ns, ns + 1, (m->nns - i - 1) * sizeof *ns);
    m->nns--;
    return KV_OK;
}

kv_status m_namespace_set_property(model *m, const char *name, const char *key, const char *value) {
    if (!name || !key || !*key) return KV_INVALID;
    m_namespace *ns = find_ns(m, name);
    if (!ns) return m_fail(m, KV_NOT_FOUND, "namespace '%s' does not exist", name);
    size_t i = 0;
    while (i < ns->nprops && strcmp(ns->props[i].key, key) != 0) i++;
    if (!value) {
        if (i == ns->nprops) return KV_OK;
        free((char *)ns->props[i].key);
        free((char *)ns->props[i].value);
        memmove(&ns->props[i], &ns->props[i + 1], (ns->nprops - i - 1) * sizeof *ns->props);
        ns->nprops--;
        return KV_OK;
    }
    char *v = strdup(value);
    if (!v) return KV_NO_MEMORY;
    if (i < ns->nprops) {
        free((char *)ns->props[i].value);
        ns->props[i].value = v;
        return KV_OK;
    }
    kv_property *p = realloc(ns->props, (ns->nprops + 1) * sizeof *p);
    char *k = strdup(key);
    if (p) ns->props = p;
    if (!p || !k) {
        free(v);
        free(k);
        return KV_NO_MEMORY;
    }
    p[ns->nprops++] = (kv_property){k, v};
    return KV_OK;
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The name of entry i for a list, or NULL to leave it out (ns: a filter). */
typedef const char *(*list_name)(model *m, size_t i, const char *ns, char *buf);

/* A sorted, NULL-terminated copy of the names name() gives for 0..n-1. */
static kv_status name_list(char ***out, size_t n, list_name name, model *m, const char *ns) {
    char **v = calloc(n + 1, sizeof *v);
    if (!v) return KV_NO_MEMORY;
    size_t k = 0;
    char buf[2 * KV_NAME_MAX + 2];
    for (size_t i = 0; i < n; i++) {
        const char *s = name(m, i, ns, buf);
        if (!s) continue;
        if (!(v[k++] = strdup(s))) {
            kv_free_names(v);
            return KV_NO_MEMORY;
        }
    }
    qsort(v, k, sizeof *v, cmp_str);
    *out = v;
    return KV_OK;
}

static const char *ns_name(model *m, size_t i, const char *ns, char *buf) {
    (void)ns;
    (void)buf;
    return m->ns[i].name;
}

kv_status m_namespace_list(model *m, char ***names) {
    return name_list(names, m->nns, ns_name, m, NULL);
}

kv_status m_namespace_describe(model *m, const char *name, kv_property **props, size_t *count) {
    m_namespace *ns = find_ns(m, name);
    if (!ns) return m_fail(m, KV_NOT_FOUND, "namespace '%s' does not exist", name);
    if (!ns->nprops) return KV_OK;
    kv_property *p = calloc(ns->nprops, sizeof *p);
    if (!p) return KV_NO_MEMORY;
    for (size_t i = 0; i < ns->nprops; i++) {
        p[i].key = strdup(ns->props[i].key);
        p[i].value = strdup(ns->props[i].value);
        if (!p[i].key || !p[i].value) {
            kv_free_properties(p, ns->nprops);
            return KV_NO_MEMORY;
        }
    }
    *props = p;
    *count = ns->nprops;
    return KV_OK;
}

/* ---- tables ---- */

static int cmp_family(const void *a, const void *b) {
    return strcmp(((const m_family *)a)->desc.name, ((const m_family *)b)->desc.name);
}

static kv_status check_families(model *m, const kv_family_desc *f, size_t n) {
    char err[256];
    for (size_t i = 0; i < n; i++) {
        if (kv_family_desc_check(&f[i], err, sizeof err) != KV_OK) return m_fail(m, KV_INVALID, "%s", err);
        for (size_t j = 0; j < i; j++)
            if (strcmp(f[i].name, f[j].name) == 0)
                return m_fail(m, KV_INVALID, "family '%s' is given twice", f[i].name);
    }
    return KV_OK;
}

kv_status m_table_create(model *m, const char *table, const kv_family_desc *f, size_t n) {
    char ns[KV_NAME_MAX + 1], name[KV_NAME_MAX + 1];
    if (kv_split_table_name(table, ns, name) != KV_OK)
        return m_fail(m, KV_INVALID, "illegal table name '%s'", table ? table : "(null)");
    if (!f || n == 0) return m_fail(m, KV_INVALID, "table '%s' needs at least one column family", table);
    kv_status st = check_families(m, f, n);
    if (st != KV_OK) return st;
    if (!find_ns(m, ns)) return m_fail(m, KV_NOT_FOUND, "namespace '%s' does not exist", ns);
    if (m_find_table(m, table)) return m_fail(m, KV_EXISTS, "table '%s' already exists", table);
    m_table *t = calloc(1, sizeof *t);
    m_table **tables = realloc(m->tables, (m->ntables + 1) * sizeof *tables);
    if (tables) m->tables = tables;
    if (!t || !tables || !(t->fams = calloc(n, sizeof *t->fams))) {
        free(t);
        return KV_NO_MEMORY;
    }
    snprintf(t->ns, sizeof t->ns, "%s", ns);
    snprintf(t->name, sizeof t->name, "%s", name);
    t->enabled = true;
    for (size_t i = 0; i < n; i++) t->fams[i].desc = f[i];
    t->nfams = n;
    qsort(t->fams, n, sizeof *t->fams, cmp_family);
    m->tables[m->ntables++] = t;
    return KV_OK;
}

/* "ns:t", or "t" in namespace default; NULL outside namespace ns. */
static const char *table_name(model *m, size_t i, const char *ns, char *buf) {
    const m_table *t = m->tables[i];
    if (ns && strcmp(t->ns, ns) != 0) return NULL;
    if (strcmp(t->ns, "default") == 0) snprintf(buf, 2 * KV_NAME_MAX + 2, "%s", t->name);
    else snprintf(buf, 2 * KV_NAME_MAX + 2, "%s:%s", t->ns, t->name);
    return buf;
}

kv_status m_table_list(model *m, const char *ns, char ***names) {
    if (ns && !find_ns(m, ns)) return m_fail(m, KV_NOT_FOUND, "namespace '%s' does not exist", ns);
    return name_list(names, m->ntables, table_name, m, ns);
}

kv_status m_table_describe(model *m, const char *table, kv_table_desc **out) {
    m_table *t = m_find_table(m, table);
    if (!t) return no_table(m, table);
    kv_table_desc *d = kv_table_desc_alloc(t->nfams, &t->attrs);
    if (!d) return KV_NO_MEMORY;
    snprintf(d->name, sizeof d->name, "%s:%s", t->ns, t->name);
    d->enabled = t->enabled;
    for (size_t i = 0; i < t->nfams; i++) d->families[i] = t->fams[i].desc;
    *out = d;
    return KV_OK;
}

kv_status m_table_alter_family(model *m, const char *table, const kv_family_desc *f) {
    kv_status st = check_families(m, f, 1);
    if (st != KV_OK) return st;
    m_table *t = m_find_table(m, table);
    if (!t) return no_table(m, table);
    m_family *fam = m_find_family(t, f->name);
    if (fam) {
        fam->desc = *f;
        return KV_OK;
    }
    m_family *p = realloc(t->fams, (t->nfams + 1) * sizeof *p);
    if (!p) return KV_NO_MEMORY;
    t->fams = p;
    memset(&p[t->nfams], 0, sizeof *p);
    p[t->nfams++].desc = *f;
    qsort(t->fams, t->nfams, sizeof *t->fams, cmp_family);
    return KV_OK;
}

kv_status m_table_set_attributes(model *m, const char *table, const kv_property *attrs, size_t n) {
    char err[300];
    m_table *t = m_find_table(m, table);
    if (!t) return no_table(m, table);
    kv_tattrs next;
    kv_status st = kv_tattrs_apply(&next, &t->attrs, attrs, n, err, sizeof err);
    if (st != KV_OK) return st == KV_INVALID ? m_fail(m, st, "%s", err) : st;
    kv_tattrs_clear(&t->attrs);
    t->attrs = next;
    return KV_OK;
}

kv_status m_table_delete_family(model *m, const char *table, const char *family) {
    m_table *t = m_find_table(m, table);
    if (!t) return no_table(m, table);
    m_family *f = m_find_family(t, family);
    if (!f) return m_fail(m, KV_NO_FAMILY, "table '%s' has no column family '%s'", table, family);
    if (t->nfams == 1) return m_fail(m, KV_INVALID, "cannot delete the only family of '%s'", table);
    m_family_clear(f);
    size_t i = (size_t)(f - t->fams);
    memmove(f, f + 1, (t->nfams - i - 1) * sizeof *f);
    t->nfams--;
    return KV_OK;
}

kv_status m_table_set_enabled(model *m, const char *table, bool enabled) {
    m_table *t = m_find_table(m, table);
    if (!t) return no_table(m, table);
    if (t->enabled == enabled)
        return m_fail(m, enabled ? KV_ENABLED : KV_DISABLED, "table '%s' is already %s", table,
                      enabled ? "enabled" : "disabled");
    t->enabled = enabled;
    return KV_OK;
}

kv_status m_table_drop(model *m, const char *table) {
    m_table *t = m_find_table(m, table);
    if (!t) return no_table(m, table);
    if (t->enabled)
        return m_fail(m, KV_ENABLED, "table '%s' must be disabled before it is dropped", table);
    size_t i = 0;
    while (m->tables[i] != t) i++;
    memmove(&m->tables[i], &m->tables[i + 1], (m->ntables - i - 1) * sizeof *m->tables);
    m->ntables--;
    free_table(t);
    return KV_OK;
}

kv_status m_table_truncate(model *m, const char *table) {
    m_table *t = m_find_table(m, table);
    if (!t) return no_table(m, table);
    for (size_t i = 0; i < t->nfams; i++) {
        kv_family_desc d = t->fams[i].desc;
        m_family_clear(&t->fams[i]);
        t->fams[i].desc = d;
    }
    t->enabled = true;
    return KV_OK;
}
