/**
 * @file table_attrs.h
 * Table attributes (kvcore.h kv_table_set_attributes) independent of
 * storage (table_attrs.c): a sorted set of key/value strings, the checks
 * and normal forms of HBase's known keys, what READONLY and DURABILITY
 * mean for writes, and the one-block kv_table_desc every backend's
 * describe returns. Used by the engine, the model and the api layer.
 */
#ifndef KV_HBASE_TABLE_ATTRS_H
#define KV_HBASE_TABLE_ATTRS_H

#include "kvcore.h"

/* A set of attributes: malloc'd keys and values, sorted by key. A zeroed
   struct is the empty set. */
typedef struct kv_tattrs {
    size_t n;
    kv_property *p;
} kv_tattrs;

/* Sets (value non-NULL) or removes (value NULL) one attribute; key and
   value are stored as given (check them with kv_table_attribute_check
   first). KV_OK or KV_NO_MEMORY (the set is then unchanged). */
kv_status kv_tattrs_put(kv_tattrs *a, const char *key, const char *value);
/* Applies @p count checked changes to a copy of @p a in @p out (the caller
   swaps it in and clears the old one, or clears the copy to undo).
   KV_OK, KV_NO_MEMORY or KV_INVALID (err says which attribute). */
kv_status kv_tattrs_apply(kv_tattrs *out, const kv_tattrs *a, const kv_property *changes,
                          size_t count, char *err, size_t errlen);
void kv_tattrs_clear(kv_tattrs *a);
/* The value of key, or NULL. */
const char *kv_tattrs_get(const kv_tattrs *a, const char *key);
/* READONLY => 'true'. */
bool kv_tattrs_readonly(const kv_tattrs *a);
/* The durability a write with @p d gets in a table with these attributes:
   @p d unless it is KV_DURABILITY_DEFAULT, else the table's DURABILITY
   (USE_DEFAULT or none: KV_DURABILITY_DEFAULT). */
kv_durability kv_tattrs_durability(const kv_tattrs *a, kv_durability d);
/* A zeroed description in one malloc'd block (freed by
   kv_table_desc_free) with room for nfamilies families and a copy of the
   attributes (a may be NULL). NULL on out-of-memory. */
kv_table_desc *kv_table_desc_alloc(size_t nfamilies, const kv_tattrs *a);

#endif
