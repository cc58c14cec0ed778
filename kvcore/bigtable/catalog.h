/**
 * @file catalog.h
 * The catalog calls of the Bigtable backend (contracts as the kvcore.h
 * calls of the same names, with the mapping of kvcore(3)'s "Cloud
 * Bigtable" section): a table "ns:t" is the Bigtable table id of
 * bt_table_id ("ns--t"); a namespace has no counterpart, so the namespaces
 * are default, hbase and those the table ids show, and a namespace exists
 * while it holds tables (create 'ns:t' makes it); tables are never
 * disabled, so drop needs no disable first; a family keeps VERSIONS and
 * TTL as its GC rule, and the attributes of local storage (COMPRESSION,
 * BLOOMFILTER, BLOCKSIZE, DATA_BLOCK_ENCODING, IN_MEMORY, BLOCKCACHE) have
 * no counterpart: other values than the defaults are KV_NOT_SUPPORTED.
 * Called by backend.c; calls schema_cache.c and bt_client.c.
 */
#ifndef KV_BIGTABLE_CATALOG_H
#define KV_BIGTABLE_CATALOG_H

#include "store_i.h"

kv_status btb_namespace_list(btb_store *s, char ***names);
kv_status btb_namespace_describe(btb_store *s, const char *name, kv_property **props,
                                 size_t *count);
kv_status btb_table_create(btb_store *s, const char *table, const kv_family_desc *families,
                           size_t n);
kv_status btb_table_list(btb_store *s, const char *ns, char ***names);
kv_status btb_table_describe(btb_store *s, const char *table, kv_table_desc **out);
kv_status btb_table_alter_family(btb_store *s, const char *table, const kv_family_desc *f);
kv_status btb_table_delete_family(btb_store *s, const char *table, const char *family);
kv_status btb_table_drop(btb_store *s, const char *table);
kv_status btb_table_truncate(btb_store *s, const char *table);

#endif
