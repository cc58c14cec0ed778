/**
 * @file tables.h
 * The engine's catalog in memory (tables.c): namespaces, tables and their
 * families, each family with its memstores and its set of sorted files,
 * and the lookups every engine module uses. The public catalog calls that
 * change it are in catalog.c; the manifest persists it.
 *
 * Fields are guarded as noted: catalog_lock (exclusive to change, shared
 * to read) and the store's mu for what the write and flush paths swap.
 */
#ifndef KV_ENGINE_TABLES_H
#define KV_ENGINE_TABLES_H

#include "engine_i.h"
#include "fileset.h"
#include "memstore.h"
#include "hbase/table_attrs.h"

typedef struct kv_family {
    kv_family_desc desc;        /* changed only under catalog_lock (excl) */
    uint32_t id;                /* store-unique; names WAL records and files */
    kv_memstore *mem;           /* active buffer or NULL (mu) */
    kv_memstore *imm;           /* being flushed or NULL (mu) */
    kv_fileset *files;          /* current file set (mu) */
    bool dropped;               /* removed from its table (mu) */
    bool compacting;            /* a compaction of it runs (mu) */
    struct kv_family *graveyard_next; /* dropped families, freed at close */
} kv_family;

typedef struct kv_table {
    char ns[KV_NAME_MAX + 1];
    char name[KV_NAME_MAX + 1];
    uint32_t id;
    bool enabled;
    size_t nfamilies;
    kv_family **families;       /* sorted by name */
    kv_tattrs attrs;            /* table attributes (catalog_lock) */
} kv_table;

typedef struct kv_namespace {
    char name[KV_NAME_MAX + 1];
    size_t nprops;
    kv_property *props;         /* malloc'd keys and values */
} kv_namespace;

/* A family with an empty file set and no memstore; NULL on out-of-memory. */
kv_family *kv_family_new(const kv_family_desc *desc, uint32_t id);
void kv_family_free(kv_family *f);
void kv_table_free(kv_table *t);
/* The family of t named name, or NULL. */
kv_family *kv_table_family(const kv_table *t, const char *name);
/* Resolves "ns:t" or "t" (catalog_lock held). NULL if absent or invalid. */
kv_table *kv_catalog_find(kv_engine *s, const char *table);
kv_namespace *kv_catalog_find_ns(kv_engine *s, const char *name);
kv_table *kv_catalog_table_by_id(kv_engine *s, uint32_t id);
/* The family with family_id in table table_id (0: any table), or NULL. */
kv_family *kv_catalog_family_by_id(kv_engine *s, uint32_t table_id, uint32_t family_id);
/* Appends an empty namespace. KV_OK or KV_NO_MEMORY. */
kv_status kv_catalog_add_namespace(kv_engine *s, const char *name);
/* Frees every namespace, table and buried family (at close). */
void kv_catalog_free(kv_engine *s);

#endif
