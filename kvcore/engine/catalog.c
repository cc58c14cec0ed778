/**
 * @file catalog.c
 * Namespaces, tables and families: the engine's catalog calls (reached
 * through backend.c; contracts as the kvcore.h calls), with HBase's
 * rules (default and hbase always exist, a namespace is dropped only when
 * empty, a table is dropped only when disabled, disabled tables refuse
 * reads and writes). Every change is made under the exclusive catalog lock
 * and persisted in the manifest before the call returns; a change that
 * cannot be persisted is undone (transactional: the old state stays in
 * force, and files are removed only after the manifest without them is
 * durable). Truncating a table
 * or deleting a family gives the families new ids, so log records written
 * before are skipped by recovery.
 */
#include "catalog.h"
#include "errors.h"
#include "manifest.h"
#include "tables.h"
#include "hbase/schema.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Moves a family out of its table: its memory lives until close, because
   scans may still read it; its files are removed when no scan uses them. */
static void bury_family(kv_engine *s, kv_family *f) {
    pthread_mutex_lock(&s->mu);
    f->dropped = true;
    for (size_t i = 0; f->files && i < f->files->n; i++) f->files->files[i]->obsolete = true;
    f->graveyard_next = s->graveyard;
    s->graveyard = f;
    pthread_mutex_unlock(&s->mu);
}

/* Persists the catalog as it is in memory (exclusive catalog lock held, so
   no flush or compaction runs). Every change below is made in memory, then
   persisted, and undone if that fails: the old state stays in force until
   the new manifest is durable, and nothing is buried (no file marked for
   removal) before. */
static kv_status persist(kv_engine *s) {
    kv_manifest_lock(s);
    kv_status st = kv_manifest_save(s, true, NULL, 0);
    kv_manifest_unlock(s);
    return st;
}

static kv_status begin_change(kv_engine *s) {
    pthread_rwlock_wrlock(&s->catalog_lock);
    return KV_OK;
}

static kv_status end_change(kv_engine *s, kv_status st) {
    s->catalog_gen++;   /* what a get cached of the catalog is stale */
    pthread_rwlock_unlock(&s->catalog_lock);
    return st;
}

/* ---- namespaces ---- */

kv_status kv_engine_namespace_create(kv_engine *s, const char *name) {
    if (kv_check_name(name) != KV_OK)
        return kv_fail(s, KV_INVALID, "illegal namespace name '%s'", name ? name : "(null)");
    kv_status st = begin_change(s);
    if (st != KV_OK) return st;
    if (kv_catalog_find_ns(s, name)) return end_change(s, kv_fail(s, KV_EXISTS, "namespace '%s' already exists", name));
    if ((st = kv_catalog_add_namespace(s, name)) != KV_OK) return end_change(s, st);
    st = persist(s);
    if (st != KV_OK) s->nnamespaces--;
    return end_change(s, st);
}

kv_status kv_engine_namespace_drop(kv_engine *s, const char *name) {
    if (!name) return KV_INVALID;
    if (strcmp(name, "default") == 0 || strcmp(name, "hbase") == 0)
        return kv_fail(s, KV_INVALID, "namespace '%s' is reserved and cannot be dropped", name);
    kv_status st = begin_change(s);
    if (st != KV_OK) return st;
    kv_namespace *ns = kv_catalog_find_ns(s, name);
    if (!ns) return end_change(s, kv_fail(s, KV_NOT_FOUND, "namespace '%s' does not exist", name));
    for (size_t i = 0; i < s->ntables; i++)
        if (strcmp(s->tables[i]->ns, name) == 0)
            return end_change(s, kv_fail(s, KV_NOT_EMPTY, "namespace '%s' still has tables", name));
    kv_namespace saved = *ns;
    size_t idx = (size_t)(ns - s->namespaces);
    memmove(ns, ns + 1, (s->nnamespaces - idx - 1) * sizeof *ns);
    s->nnamespaces--;
    st = persist(s);
    if (st != KV_OK) {
        memmove(&s->namespaces[idx + 1], &s->namespaces[idx], (s->nnamespaces - idx) * sizeof *ns);
        s->namespaces[idx] = saved;
        s->nnamespaces++;
    } else {
        kv_free_properties(saved.props, saved.nprops);
    }
    return end_change(s, st);
}

kv_status kv_engine_namespace_set_property(kv_engine *s, const char *name, const char *key,
                                           const char *value) {
    if (!name || !key || !*key) return KV_INVALID;
    kv_status st = begin_change(s);
    if (st != KV_OK) return st;
    kv_namespace *ns = kv_catalog_find_ns(s, name);
    if (!ns) return end_change(s, kv_fail(s, KV_NOT_FOUND, "namespace '%s' does not exist", name));
    size_t i = 0;
    while (i < ns->nprops && strcmp(ns->props[i].key, key) != 0) i++;
    if (!value) {
        if (i == ns->nprops) return end_change(s, KV_OK);
        kv_property removed = ns->props[i];
        memmove(&ns->props[i], &ns->props[i + 1], (ns->nprops - i - 1) * sizeof *ns->props);
        ns->nprops--;
        if ((st = persist(s)) != KV_OK) {
            memmove(&ns->props[i + 1], &ns->props[i], (ns->nprops - i) * sizeof *ns->props);
            ns->props[i] = removed;
            ns->nprops++;
        } else {
            free((char *)removed.key);
            free((char *)removed.value);
        }
        return end_change(s, st);
    }
    char *v = strdup(value);
    if (!v) return end_change(s, KV_NO_MEMORY);
    if (i < ns->nprops) {
        const char *old = ns->props[i].value;
        ns->props[i].value = v;
        if ((st = persist(s)) != KV_OK) ns->props[i].value = old;
        free(st == KV_OK ? (char *)old : v);
        return end_change(s, st);
    }
    kv_property *p = realloc(ns->props, (ns->nprops + 1) * sizeof *p);
    char *k = strdup(key);
    if (p) ns->props = p;
    if (!p || !k) {
        free(v);
        free(k);
        return end_change(s, KV_NO_MEMORY);
    }
    p[ns->nprops].key = k;
    p[ns->nprops].value = v;
    ns->nprops++;
    if ((st = persist(s)) != KV_OK) {
        ns->nprops--;
        free(k);
        free(v);
    }
    return end_change(s, st);
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

kv_status kv_engine_namespace_list(kv_engine *s, char ***names) {
    *names = NULL;
    pthread_rwlock_rdlock(&s->catalog_lock);
    char **out = calloc(s->nnamespaces + 1, sizeof *out);
    kv_status st = out ? KV_OK : KV_NO_MEMORY;
    for (size_t i = 0; out && i < s->nnamespaces; i++)
        if (!(out[i] = strdup(s->namespaces[i].name))) st = KV_NO_MEMORY;
    pthread_rwlock_unlock(&s->catalog_lock);
    if (st != KV_OK) {
        kv_free_names(out);
        return st;
    }
    size_t n = 0;
    while (out[n]) n++;
    qsort(out, n, sizeof *out, cmp_str);
    *names = out;
    return KV_OK;
}

kv_status kv_engine_namespace_describe(kv_engine *s, const char *name, kv_property **props,
                                      size_t *count) {
    *props = NULL;
    *count = 0;
    pthread_rwlock_rdlock(&s->catalog_lock);
    kv_status st = KV_OK;
    kv_namespace *ns = kv_catalog_find_ns(s, name);
    if (!ns) {
        st = kv_fail(s, KV_NOT_FOUND, "namespace '%s' does not exist", name);
    } else if (ns->nprops) {
        kv_property *p = calloc(ns->nprops, sizeof *p);
        if (!p) st = KV_NO_MEMORY;
        for (size_t i = 0; p && i < ns->nprops; i++) {
            p[i].key = strdup(ns->props[i].key);
            p[i].value = strdup(ns->props[i].value);
            if (!p[i].key || !p[i].value) st = KV_NO_MEMORY;
        }
        if (st == KV_OK) {
            *props = p;
            *count = ns->nprops;
        } else {
            kv_free_properties(p, p ? ns->nprops : 0);
        }
    }
    pthread_rwlock_unlock(&s->catalog_lock);
    return st;
}

/* ---- tables ---- */

static int cmp_family(const void *a, const void *b) {
    return strcmp((*(kv_family *const *)a)->desc.name, (*(kv_family *const *)b)->desc.name);
}

kv_status kv_engine_table_create(kv_engine *s, const char *table, const kv_family_desc *families,
                                 size_t nfamilies) {
    char ns[KV_NAME_MAX + 1], name[KV_NAME_MAX + 1], err[256];
    if (kv_split_table_name(table, ns, name) != KV_OK)
        return kv_fail(s, KV_INVALID, "illegal table name '%s'", table ? table : "(null)");
    if (!families || nfamilies == 0)
        return kv_fail(s, KV_INVALID, "table '%s' needs at least one column family", table);
    for (size_t i = 0; i < nfamilies; i++) {
        if (kv_family_desc_check(&families[i], err, sizeof err) != KV_OK)
            return kv_fail(s, KV_INVALID, "%s", err);
        for (size_t j = 0; j < i; j++)
            if (strcmp(families[i].name, families[j].name) == 0)
                return kv_fail(s, KV_INVALID, "family '%s' is given twice", families[i].name);
    }
    kv_status st = begin_change(s);
    if (st != KV_OK) return st;
    if (!kv_catalog_find_ns(s, ns)) return end_change(s, kv_fail(s, KV_NOT_FOUND, "namespace '%s' does not exist", ns));
    if (kv_catalog_find(s, table))
        return end_change(s, kv_fail(s, KV_EXISTS, "table '%s' already exists", table));
    kv_table *t = calloc(1, sizeof *t);
    kv_table **tables = realloc(s->tables, (s->ntables + 1) * sizeof *tables);
    if (tables) s->tables = tables;
    if (!t || !tables || !(t->families = calloc(nfamilies, sizeof *t->families))) {
        free(t);
        return end_change(s, KV_NO_MEMORY);
    }
    strcpy(t->ns, ns);
    strcpy(t->name, name);
    t->id = s->next_id++;
    t->enabled = true;
    for (size_t i = 0; i < nfamilies; i++) {
        if (!(t->families[i] = kv_family_new(&families[i], s->next_id++))) {
            kv_table_free(t);
            return end_change(s, KV_NO_MEMORY);
        }
        t->nfamilies++;
    }
    qsort(t->families, t->nfamilies, sizeof *t->families, cmp_family);
    s->tables[s->ntables++] = t;
    st = persist(s);
    if (st != KV_OK) {
        s->ntables--;
        kv_table_free(t);
    }
    return end_change(s, st);
}

kv_status kv_engine_table_list(kv_engine *s, const char *ns, char ***names) {
    *names = NULL;
    pthread_rwlock_rdlock(&s->catalog_lock);
    kv_status st = KV_OK;
    if (ns && !kv_catalog_find_ns(s, ns)) st = kv_fail(s, KV_NOT_FOUND, "namespace '%s' does not exist", ns);
    char **out = st == KV_OK ? calloc(s->ntables + 1, sizeof *out) : NULL;
    if (st == KV_OK && !out) st = KV_NO_MEMORY;
    size_t n = 0;
    for (size_t i = 0; st == KV_OK && i < s->ntables; i++) {
        kv_table *t = s->tables[i];
        if (ns && strcmp(t->ns, ns) != 0) continue;
        char buf[2 * KV_NAME_MAX + 2];
        if (strcmp(t->ns, "default") == 0) snprintf(buf, sizeof buf, "%s", t->name);
        else snprintf(buf, sizeof buf, "%s:%s", t->ns, t->name);
        if (!(out[n++] = strdup(buf))) st = KV_NO_MEMORY;
    }
    pthread_rwlock_unlock(&s->catalog_lock);
    if (st != KV_OK) {
        kv_free_names(out);
        return st;
    }
    qsort(out, n, sizeof *out, cmp_str);
    *names = out;
    return KV_OK;
}

kv_status kv_engine_table_describe(kv_engine *s, const char *table, kv_table_desc **out) {
    *out = NULL;
    pthread_rwlock_rdlock(&s->catalog_lock);
    kv_status st = KV_OK;
    kv_table *t = kv_catalog_find(s, table);
    if (!t) {
        st = kv_fail(s, KV_NOT_FOUND, "table '%s' does not exist", table ? table : "(null)");
    } else {
        kv_table_desc *d = kv_table_desc_alloc(t->nfamilies, &t->attrs);
        if (!d) {
            st = KV_NO_MEMORY;
        } else {
            snprintf(d->name, sizeof d->name, "%s:%s", t->ns, t->name);
            d->enabled = t->enabled;
            for (size_t i = 0; i < t->nfamilies; i++) d->families[i] = t->families[i]->desc;
            *out = d;
        }
    }
    pthread_rwlock_unlock(&s->catalog_lock);
    return st;
}

/* Finds a table for a change (exclusive lock held). */
static kv_status change_target(kv_engine *s, const char *table, kv_table **t) {
    *t = kv_catalog_find(s, table);
    if (!*t) return kv_fail(s, KV_NOT_FOUND, "table '%s' does not exist", table ? table : "(null)");
    return KV_OK;
}

static void remove_family_at(kv_table *t, size_t i) {
    memmove(&t->families[i], &t->families[i + 1], (t->nfamilies - i - 1) * sizeof *t->families);
    t->nfamilies--;
}

/* Puts family f back at index i of t (its array has room: f was there). */
static void restore_family_at(kv_table *t, size_t i, kv_family *f) {
    memmove(&t->families[i + 1], &t->families[i], (t->nfamilies - i) * sizeof *t->families);
    t->families[i] = f;
    t->nfamilies++;
}

kv_status kv_engine_table_alter_family(kv_engine *s, const char *table, const kv_family_desc *family) {
    char err[256];
    if (!family) return KV_INVALID;
    if (kv_family_desc_check(family, err, sizeof err) != KV_OK) return kv_fail(s, KV_INVALID, "%s", err);
    kv_status st = begin_change(s);
    if (st != KV_OK) return st;
    kv_table *t;
    if ((st = change_target(s, table, &t)) != KV_OK) return end_change(s, st);
    kv_family *f = kv_table_family(t, family->name);
    if (f) {
        kv_family_desc old = f->desc;
        f->desc = *family;
        st = persist(s);
        if (st != KV_OK) f->desc = old;
        return end_change(s, st);
    }
    kv_family **fams = realloc(t->families, (t->nfamilies + 1) * sizeof *fams);
    if (!fams) return end_change(s, KV_NO_MEMORY);
    t->families = fams;
    if (!(f = kv_family_new(family, s->next_id++))) return end_change(s, KV_NO_MEMORY);
    fams[t->nfamilies++] = f;
    qsort(t->families, t->nfamilies, sizeof *fams, cmp_family);
    if ((st = persist(s)) != KV_OK) {
        size_t i = 0;
        while (t->families[i] != f) i++;
        remove_family_at(t, i);
        kv_family_free(f);
    }
    return end_change(s, st);
}

kv_status kv_engine_table_set_attributes(kv_engine *s, const char *table, const kv_property *attrs,
                                         size_t count) {
    char err[300];
    kv_status st = begin_change(s);
    if (st != KV_OK) return st;
    kv_table *t;
    if ((st = change_target(s, table, &t)) != KV_OK) return end_change(s, st);
    kv_tattrs next, old = t->attrs;
    if ((st = kv_tattrs_apply(&next, &old, attrs, count, err, sizeof err)) != KV_OK)
        return end_change(s, st == KV_INVALID ? kv_fail(s, st, "%s", err) : st);
    t->attrs = next;
    if ((st = persist(s)) != KV_OK) t->attrs = old;
    kv_tattrs_clear(st == KV_OK ? &old : &next);
    return end_change(s, st);
}

kv_status kv_engine_table_delete_family(kv_engine *s, const char *table, const char *family) {
    if (!family) return KV_INVALID;
    kv_status st = begin_change(s);
    if (st != KV_OK) return st;
    kv_table *t;
    if ((st = change_target(s, table, &t)) != KV_OK) return end_change(s, st);
    size_t i = 0;
    while (i < t->nfamilies && strcmp(t->families[i]->desc.name, family) != 0) i++;
    if (i == t->nfamilies)
        return end_change(s, kv_fail(s, KV_NO_FAMILY, "table '%s' has no column family '%s'", table, family));
    if (t->nfamilies == 1)
        return end_change(s, kv_fail(s, KV_INVALID, "cannot delete the only family of '%s'", table));
    kv_family *f = t->families[i];
    remove_family_at(t, i);
    if ((st = persist(s)) != KV_OK) restore_family_at(t, i, f);
    else bury_family(s, f);
    return end_change(s, st);
}

kv_status kv_engine_table_set_enabled(kv_engine *s, const char *table, bool enabled) {
    kv_status st = begin_change(s);
    if (st != KV_OK) return st;
    kv_table *t;
    if ((st = change_target(s, table, &t)) != KV_OK) return end_change(s, st);
    if (t->enabled == enabled)
        return end_change(s, kv_fail(s, enabled ? KV_ENABLED : KV_DISABLED, "table '%s' is already %s",
                                     table, enabled ? "enabled" : "disabled"));
    t->enabled = enabled;
    st = persist(s);
    if (st != KV_OK) t->enabled = !enabled;
    return end_change(s, st);
}

kv_status kv_engine_table_drop(kv_engine *s, const char *table) {
    kv_status st = begin_change(s);
    if (st != KV_OK) return st;
    kv_table *t;
    if ((st = change_target(s, table, &t)) != KV_OK) return end_change(s, st);
    if (t->enabled)
        return end_change(s, kv_fail(s, KV_ENABLED, "table '%s' must be disabled before it is dropped", table));
    size_t i = 0;
    while (s->tables[i] != t) i++;
    memmove(&s->tables[i], &s->tables[i + 1], (s->ntables - i - 1) * sizeof *s->tables);
    s->ntables--;
    if ((st = persist(s)) != KV_OK) {
        memmove(&s->tables[i + 1], &s->tables[i], (s->ntables - i) * sizeof *s->tables);
        s->tables[i] = t;
        s->ntables++;
        return end_change(s, st);
    }
    for (size_t f = 0; f < t->nfamilies; f++) bury_family(s, t->families[f]);
    t->nfamilies = 0;
    kv_table_free(t);
    return end_change(s, st);
}

kv_status kv_engine_table_truncate(kv_engine *s, const char *table, bool preserve_splits) {
    (void)preserve_splits;
    kv_status st = begin_change(s);
    if (st != KV_OK) return st;
    kv_table *t;
    if ((st = change_target(s, table, &t)) != KV_OK) return end_change(s, st);
    kv_family **fresh = calloc(t->nfamilies, sizeof *fresh);
    if (!fresh) return end_change(s, KV_NO_MEMORY);
    for (size_t i = 0; i < t->nfamilies; i++) {
        if (!(fresh[i] = kv_family_new(&t->families[i]->desc, s->next_id++))) {
            for (size_t j = 0; j < i; j++) kv_family_free(fresh[j]);
            free(fresh);
            return end_change(s, KV_NO_MEMORY);
        }
    }
    /* Swap the fresh families in; swap back if the manifest fails. */
    bool was_enabled = t->enabled;
    for (size_t i = 0; i < t->nfamilies; i++) {
        kv_family *old = t->families[i];
        t->families[i] = fresh[i];
        fresh[i] = old;
    }
    t->enabled = true;
    st = persist(s);
    for (size_t i = 0; i < t->nfamilies; i++) {
        if (st == KV_OK) {
            bury_family(s, fresh[i]);
        } else {
            kv_family *f = t->families[i];
            t->families[i] = fresh[i];
            kv_family_free(f);
        }
    }
    if (st != KV_OK) t->enabled = was_enabled;
    free(fresh);
    return end_change(s, st);
}
