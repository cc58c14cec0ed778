/**
 * @file schema.h
 * HBase's rules for names and family descriptors, independent of storage
 * (schema.c): table names split into namespace and qualifier, and a
 * descriptor's attributes checked. kv_check_name itself is public
 * (kvcore.h). Used by every backend's catalog and by the api layer.
 */
#ifndef KV_HBASE_SCHEMA_H
#define KV_HBASE_SCHEMA_H

#include "kvcore.h"

/* Splits "ns:t" or "t" (= "default:t") into @p ns and @p name (each at
   least KV_NAME_MAX + 1 bytes). KV_OK or KV_INVALID (illegal name). */
kv_status kv_split_table_name(const char *full, char *ns, char *name);
/* Validates a family descriptor's version and attributes; the reason goes
   to err (when non-NULL). KV_OK or KV_INVALID. */
kv_status kv_family_desc_check(const kv_family_desc *f, char *err, size_t errlen);

#endif
