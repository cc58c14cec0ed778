/**
 * @file schema_cache.h
 * Tables by HBase name: the Bigtable table id a name maps to, and the
 * table's families with the VERSIONS and TTL that every read and write
 * needs (Bigtable's garbage collection is lazy, so reads apply them
 * themselves). Schemas are cached for kv_bigtable_options.schema_cache_ms,
 * because a GetTable per cell read would be slow and the admin API's quota
 * is small; this handle's own catalog changes forget the entry at once,
 * other clients' changes show when it expires. Called by catalog.c,
 * mutate.c, rowcas.c and scan.c; calls bt_client.c and bt_map.c.
 */
#ifndef KV_BIGTABLE_SCHEMA_CACHE_H
#define KV_BIGTABLE_SCHEMA_CACHE_H

#include "store_i.h"

/* A table as one lookup saw it; owned by the caller. */
typedef struct btb_table {
    char name[2 * KV_NAME_MAX + 2];  /* as the caller named it, for messages */
    char id[BT_MAX_TABLE_ID + 1];
    size_t nfams;
    bt_family_rules *fams;           /* sorted by name; names in this block */
} btb_table;

/* The table id of HBase table name @p table. KV_INVALID for an illegal
   name; KV_NOT_SUPPORTED for a name too long for a Bigtable id (each with
   a message). */
kv_status btb_table_id(btb_store *s, const char *table, char id[BT_MAX_TABLE_ID + 1]);

/* Looks @p table up: from the cache when it is fresh enough and @p fresh
   is false, else from the server (and caches it). KV_NOT_FOUND (with a
   message) when there is no such table, also for names that no Bigtable
   table can have; transport failures as btb_fail. Free *out with
   btb_table_free; NULL on failure. */
kv_status btb_table_get(btb_store *s, const char *table, bool fresh, btb_table **out);
void btb_table_free(btb_table *t);

/* The family @p name of @p t, or NULL. */
const bt_family_rules *btb_table_family(const btb_table *t, const char *name);

/* Forgets the cached schema of table id @p id (after a change to it, or a
   failure that suggests the cache is stale). */
void btb_cache_forget(btb_store *s, const char *id);
/* Forgets every cached schema and frees the cache (at close). */
void btb_cache_clear(btb_store *s);

#endif
