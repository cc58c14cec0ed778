/**
 * @file catalog.h
 * The engine's catalog calls (catalog.c): contracts as the kvcore.h calls
 * of the same names, with the arguments already checked by the api.
 */
#ifndef KV_ENGINE_CATALOG_H
#define KV_ENGINE_CATALOG_H

#include "engine_i.h"

kv_status kv_engine_namespace_create(kv_engine *s, const char *name);
kv_status kv_engine_namespace_drop(kv_engine *s, const char *name);
kv_status kv_engine_namespace_set_property(kv_engine *s, const char *name, const char *key,
                                           const char *value);
kv_status kv_engine_namespace_list(kv_engine *s, char ***names);
kv_status kv_engine_namespace_describe(kv_engine *s, const char *name, kv_property **props,
                                      size_t *count);
kv_status kv_engine_table_create(kv_engine *s, const char *table, const kv_family_desc *families,
                                 size_t nfamilies);
kv_status kv_engine_table_list(kv_engine *s, const char *ns, char ***names);
kv_status kv_engine_table_describe(kv_engine *s, const char *table, kv_table_desc **out);
kv_status kv_engine_table_alter_family(kv_engine *s, const char *table, const kv_family_desc *family);
kv_status kv_engine_table_set_attributes(kv_engine *s, const char *table, const kv_property *attrs,
                                         size_t count);
kv_status kv_engine_table_delete_family(kv_engine *s, const char *table, const char *family);
kv_status kv_engine_table_set_enabled(kv_engine *s, const char *table, bool enabled);
kv_status kv_engine_table_drop(kv_engine *s, const char *table);
kv_status kv_engine_table_truncate(kv_engine *s, const char *table, bool preserve_splits);

#endif
