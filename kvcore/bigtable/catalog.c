/**
 * @file catalog.c
 * Namespaces and tables on Cloud Bigtable (catalog.h): table ids from
 * bt_map.c's scheme, schemas through schema_cache.c, admin calls through
 * bt_client.c. Every change forgets the table's cached schema.
 */
#include "catalog.h"
#include "handle.h"
#include "schema_cache.h"
#include "hbase/schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- names ---- */

/* The HBase names of the instance's tables ("t", "ns:t"), sorted; ids that
   no name maps to (other tools' tables) are left out. */
static kv_status table_names(btb_store *s, char ***out, size_t *n) {
    *out = NULL;
    *n = 0;
    char **ids = NULL;
    size_t nids = 0;
    bt_status st;
    if (bt_list_tables(s->client, &ids, &nids, &st) != BT_OK) return btb_fail(s, &st, "list tables");
    char **names = calloc(nids + 1, sizeof *names);
    kv_status rc = names ? KV_OK : KV_NO_MEMORY;
    for (size_t i = 0; rc == KV_OK && i < nids; i++) {
        char name[2 * KV_NAME_MAX + 2];
        if (bt_table_name(name, sizeof name, ids[i], &st) != BT_OK) continue;
        if (!(names[(*n)++] = strdup(name))) rc = KV_NO_MEMORY;
    }
    for (size_t i = 0; i < nids; i++) free(ids[i]);
    free(ids);
    if (rc != KV_OK) {
        kv_free_names(names);
        *n = 0;
        return rc;
    }
    *out = names;
    return KV_OK;
}

static int name_order(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The namespace of an HBase table name ("default" without a colon). */
static void ns_of(const char *table, char *ns) {
    const char *colon = strchr(table, ':');
    size_t n = colon ? (size_t)(colon - table) : 7;
    memcpy(ns, colon ? table : "default", n);
    ns[n] = '\0';
}

/* Adds @p name to the sorted-later list unless it is there. */
static kv_status add_unique(char ***list, size_t *n, const char *name) {
    for (size_t i = 0; i < *n; i++)
        if (strcmp((*list)[i], name) == 0) return KV_OK;
    char **grown = realloc(*list, (*n + 2) * sizeof *grown);
    if (!grown) return KV_NO_MEMORY;
    *list = grown;
    if (!(grown[*n] = strdup(name))) return KV_NO_MEMORY;
    grown[++*n] = NULL;
    return KV_OK;
}

kv_status btb_namespace_list(btb_store *s, char ***out) {
    *out = NULL;
    char **tables;
    size_t nt;
    kv_status rc = table_names(s, &tables, &nt);
    if (rc != KV_OK) return rc;
    char **list = NULL;
    size_t n = 0;
    rc = add_unique(&list, &n, "default");
    if (rc == KV_OK) rc = add_unique(&list, &n, "hbase");
    for (size_t i = 0; rc == KV_OK && i < nt; i++) {
        char ns[KV_NAME_MAX + 1];
        ns_of(tables[i], ns);
        rc = add_unique(&list, &n, ns);
    }
    kv_free_names(tables);
    if (rc != KV_OK) {
        kv_free_names(list);
        return rc;
    }
    qsort(list, n, sizeof *list, name_order);
    *out = list;
    return KV_OK;
}

/* KV_OK when namespace @p name exists: default, hbase, or one that holds a
   table. */
static kv_status ns_exists(btb_store *s, const char *name) {
    if (kv_check_name(name) != KV_OK) return btb_refuse(s, KV_INVALID, "illegal namespace name '%s'", name);
    char **list;
    kv_status rc = btb_namespace_list(s, &list);
    if (rc != KV_OK) return rc;
    bool found = false;
    for (char **p = list; *p && !found; p++) found = strcmp(*p, name) == 0;
    kv_free_names(list);
    return found ? KV_OK
                 : btb_refuse(s, KV_NOT_FOUND, "namespace '%s' does not exist (on Cloud Bigtable "
                              "a namespace exists while it holds tables)", name);
}

kv_status btb_namespace_describe(btb_store *s, const char *name, kv_property **props,
                                 size_t *count) {
    *props = NULL;
    *count = 0;   /* Bigtable keeps no namespace properties */
    return ns_exists(s, name);
}

kv_status btb_table_list(btb_store *s, const char *ns, char ***out) {
    *out = NULL;
    if (ns && strcmp(ns, "default") != 0 && strcmp(ns, "hbase") != 0) {
        kv_status rc = ns_exists(s, ns);
        if (rc != KV_OK) return rc;
    }
    char **tables;
    size_t nt;
    kv_status rc = table_names(s, &tables, &nt);
    if (rc != KV_OK) return rc;
    size_t k = 0;
    for (size_t i = 0; i < nt; i++) {
        char tns[KV_NAME_MAX + 1];
        ns_of(tables[i], tns);
        if (ns && strcmp(ns, tns) != 0) free(tables[i]);
        else tables[k++] = tables[i];
    }
    tables[k] = NULL;
    qsort(tables, k, sizeof *tables, name_order);
    *out = tables;
    return KV_OK;
}

/* ---- families ---- */

/* KV_OK when Bigtable can keep @p f: a legal descriptor, a family name
   Bigtable accepts, and the local storage settings at their defaults. */
static kv_status check_family(btb_store *s, const kv_family_desc *f) {
    char why[256];
    if (kv_family_desc_check(f, why, sizeof why) != KV_OK) return btb_refuse(s, KV_INVALID, "%s", why);
    bt_status st;
    if (bt_check_family(f->name, &st) != BT_OK) return btb_refuse(s, KV_NOT_SUPPORTED, "%s", st.msg);
    const kv_family_desc d = KV_FAMILY_DESC_INIT;
    const char *knob = f->compression != d.compression ? "COMPRESSION"
                       : f->bloom != d.bloom           ? "BLOOMFILTER"
                       : f->blocksize != d.blocksize   ? "BLOCKSIZE"
                       : f->encoding != d.encoding     ? "DATA_BLOCK_ENCODING"
                       : f->in_memory != d.in_memory   ? "IN_MEMORY"
                       : f->blockcache != d.blockcache ? "BLOCKCACHE"
                                                       : NULL;
    if (knob)
        return btb_refuse(s, KV_NOT_SUPPORTED, "family '%s': %s is not supported on Cloud Bigtable: "
                          "it stores its data its own way and keeps no per-family storage "
                          "settings (only VERSIONS and TTL map, as GC rules)", f->name, knob);
    return KV_OK;
}

static bt_family_rules rules_of(const kv_family_desc *f) {
    bt_family_rules r = { f->name, f->versions, f->ttl_seconds == KV_FOREVER ? 0 : f->ttl_seconds,
                          f->min_versions, f->keep_deleted != KV_KEEP_DELETED_FALSE };
    return r;
}

static kv_family_desc desc_of(const bt_family_rules *r) {
    kv_family_desc f = KV_FAMILY_DESC_INIT;
    snprintf(f.name, sizeof f.name, "%s", r->name);
    /* No version rule keeps every version. */
    f.versions = r->max_versions > 0 ? r->max_versions : INT32_MAX;
    f.ttl_seconds = r->ttl_seconds > 0 ? r->ttl_seconds : KV_FOREVER;
    return f;
}

/* ---- tables ---- */

kv_status btb_table_create(btb_store *s, const char *table, const kv_family_desc *families,
                           size_t n) {
    char id[BT_MAX_TABLE_ID + 1];
    kv_status rc = btb_table_id(s, table, id);
    if (rc != KV_OK) return rc;
    if (n == 0 || !families) return btb_refuse(s, KV_INVALID, "table '%s' needs a column family", table);
    bt_family_rules *rules = calloc(n, sizeof *rules);
    if (!rules) return KV_NO_MEMORY;
    for (size_t i = 0; rc == KV_OK && i < n; i++) {
        rc = check_family(s, &families[i]);
        for (size_t j = 0; rc == KV_OK && j < i; j++)
            if (strcmp(families[i].name, families[j].name) == 0)
                rc = btb_refuse(s, KV_INVALID, "family '%s' given twice", families[i].name);
        rules[i] = rules_of(&families[i]);
    }
    bt_status st;
    if (rc == KV_OK && bt_create_table(s->client, id, rules, n, &st) != BT_OK)
        rc = st.code == BT_ALREADY_EXISTS
                 ? btb_refuse(s, KV_EXISTS, "table '%s' already exists", table)
                 : btb_fail(s, &st, "create '%s'", table);
    free(rules);
    btb_cache_forget(s, id);
    return rc;
}

kv_status btb_table_describe(btb_store *s, const char *table, kv_table_desc **out) {
    *out = NULL;
    btb_table *t;
    kv_status rc = btb_table_get(s, table, false, &t);
    if (rc != KV_OK) return rc;
    kv_table_desc *d = calloc(1, sizeof *d + t->nfams * sizeof(kv_family_desc));
    if (!d) {
        btb_table_free(t);
        return KV_NO_MEMORY;
    }
    char ns[KV_NAME_MAX + 1], name[KV_NAME_MAX + 1];
    if (kv_split_table_name(table, ns, name) == KV_OK)
        snprintf(d->name, sizeof d->name, "%s:%s", ns, name);
    d->enabled = true;   /* Bigtable tables are never disabled */
    d->nfamilies = t->nfams;
    d->families = (kv_family_desc *)(d + 1);
    for (size_t i = 0; i < t->nfams; i++) d->families[i] = desc_of(&t->fams[i]);
    btb_table_free(t);
    *out = d;
    return KV_OK;
}

/* One ModifyColumnFamilies of table @p t. */
static kv_status modify(btb_store *s, const btb_table *t, const bt_family_change *ch,
                        const char *what) {
    bt_status st;
    bt_code code = bt_modify_families(s->client, t->id, ch, 1, &st);
    btb_cache_forget(s, t->id);
    return code == BT_OK ? KV_OK : btb_fail(s, &st, "%s of '%s'", what, t->name);
}

kv_status btb_table_alter_family(btb_store *s, const char *table, const kv_family_desc *f) {
    kv_status rc = check_family(s, f);
    btb_table *t = NULL;
    if (rc == KV_OK) rc = btb_table_get(s, table, true, &t);
    if (rc != KV_OK) return rc;
    bt_family_change ch = { btb_table_family(t, f->name) ? BT_FAMILY_UPDATE : BT_FAMILY_CREATE,
                            rules_of(f) };
    rc = modify(s, t, &ch, "alter");
    btb_table_free(t);
    return rc;
}

kv_status btb_table_delete_family(btb_store *s, const char *table, const char *family) {
    btb_table *t;
    kv_status rc = btb_table_get(s, table, true, &t);
    if (rc != KV_OK) return rc;
    if (!btb_table_family(t, family))
        rc = btb_refuse(s, KV_NO_FAMILY, "table '%s' has no column family '%s'", table, family);
    else if (t->nfams == 1)
        rc = btb_refuse(s, KV_INVALID, "'%s' is the last family of '%s'; a table keeps one",
                        family, table);
    bt_family_change ch = { BT_FAMILY_DROP, { family, 0, 0, 0, false } };
    if (rc == KV_OK) rc = modify(s, t, &ch, "delete of a family");
    btb_table_free(t);
    return rc;
}

kv_status btb_table_drop(btb_store *s, const char *table) {
    char id[BT_MAX_TABLE_ID + 1];
    kv_status rc = btb_table_id(s, table, id);
    if (rc != KV_OK) return btb_refuse(s, KV_NOT_FOUND, "table '%s' does not exist", table);
    bt_status st;
    bt_code code = bt_delete_table(s->client, id, &st);
    btb_cache_forget(s, id);
    if (code == BT_NOT_FOUND) return btb_refuse(s, KV_NOT_FOUND, "table '%s' does not exist", table);
    return code == BT_OK ? KV_OK : btb_fail(s, &st, "drop '%s'", table);
}

kv_status btb_table_truncate(btb_store *s, const char *table) {
    char id[BT_MAX_TABLE_ID + 1];
    kv_status rc = btb_table_id(s, table, id);
    if (rc != KV_OK) return btb_refuse(s, KV_NOT_FOUND, "table '%s' does not exist", table);
    bt_status st;
    bt_code code = bt_drop_rows(s->client, id, NULL, 0, &st);
    if (code == BT_NOT_FOUND) return btb_refuse(s, KV_NOT_FOUND, "table '%s' does not exist", table);
    return code == BT_OK ? KV_OK : btb_fail(s, &st, "truncate '%s'", table);
}
