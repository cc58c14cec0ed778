/**
 * @file tables.c
 * Namespaces, tables and families in memory (tables.h): their creation,
 * lookups by name and by id, and freeing at close. Calls the memstore and
 * file-set reference counts and the name rules of hbase/schema.h.
 */
#include "tables.h"
#include "hbase/schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

kv_family *kv_family_new(const kv_family_desc *desc, uint32_t id) {
    kv_family *f = calloc(1, sizeof *f);
    if (!f) return NULL;
    f->desc = *desc;
    f->id = id;
    f->files = kv_fileset_new(0);
    if (!f->files) {
        free(f);
        return NULL;
    }
    return f;
}

void kv_family_free(kv_family *f) {
    if (!f) return;
    kv_memstore_unref(f->mem);
    kv_memstore_unref(f->imm);
    kv_fileset_unref(f->files);
    free(f);
}

void kv_table_free(kv_table *t) {
    if (!t) return;
    for (size_t i = 0; i < t->nfamilies; i++) kv_family_free(t->families[i]);
    free(t->families);
    kv_tattrs_clear(&t->attrs);
    free(t);
}

kv_family *kv_table_family(const kv_table *t, const char *name) {
    for (size_t i = 0; i < t->nfamilies; i++)
        if (strcmp(t->families[i]->desc.name, name) == 0) return t->families[i];
    return NULL;
}

kv_table *kv_catalog_find(kv_engine *s, const char *table) {
    if (!table) return NULL;
    /* "ns:name" or "name" (namespace default) compared as given: no copy
       and no name check per read, since every table in the catalog has
       valid names and an invalid one matches none of them */
    const char *colon = strchr(table, ':');
    size_t nl = colon ? (size_t)(colon - table) : 0;
    const char *name = colon ? colon + 1 : table;
    for (size_t i = 0; i < s->ntables; i++) {
        const kv_table *t = s->tables[i];
        bool ns_ok = colon ? strncmp(t->ns, table, nl) == 0 && t->ns[nl] == 0
                           : strcmp(t->ns, "default") == 0;
        if (ns_ok && strcmp(t->name, name) == 0) return s->tables[i];
    }
    return NULL;
}

kv_namespace *kv_catalog_find_ns(kv_engine *s, const char *name) {
    for (size_t i = 0; i < s->nnamespaces; i++)
        if (strcmp(s->namespaces[i].name, name) == 0) return &s->namespaces[i];
    return NULL;
}

kv_table *kv_catalog_table_by_id(kv_engine *s, uint32_t id) {
    for (size_t i = 0; i < s->ntables; i++)
        if (s->tables[i]->id == id) return s->tables[i];
    return NULL;
}

kv_family *kv_catalog_family_by_id(kv_engine *s, uint32_t table_id, uint32_t family_id) {
    for (size_t i = 0; i < s->ntables; i++) {
        kv_table *t = s->tables[i];
        if (table_id && t->id != table_id) continue;
        for (size_t f = 0; f < t->nfamilies; f++)
            if (t->families[f]->id == family_id) return t->families[f];
        if (table_id) return NULL;
    }
    return NULL;
}

kv_status kv_catalog_add_namespace(kv_engine *s, const char *name) {
    kv_namespace *p = realloc(s->namespaces, (s->nnamespaces + 1) * sizeof *p);
    if (!p) return KV_NO_MEMORY;
    s->namespaces = p;
    memset(&p[s->nnamespaces], 0, sizeof *p);
    snprintf(p[s->nnamespaces++].name, KV_NAME_MAX + 1, "%s", name);
    return KV_OK;
}

void kv_catalog_free(kv_engine *s) {
    for (size_t i = 0; i < s->ntables; i++) kv_table_free(s->tables[i]);
    free(s->tables);
    s->tables = NULL;
    s->ntables = 0;
    for (size_t i = 0; i < s->nnamespaces; i++)
        kv_free_properties(s->namespaces[i].props, s->namespaces[i].nprops);
    free(s->namespaces);
    s->namespaces = NULL;
    s->nnamespaces = 0;
    while (s->graveyard) {
        kv_family *f = s->graveyard;
        s->graveyard = f->graveyard_next;
        kv_family_free(f);
    }
}
