/**
 * @file read.h
 * The engine's reads (read.c): gets and scans over a snapshot of a
 * table's memstores and sorted files, and the newest-value lookup that
 * read-modify-write calls use.
 */
#ifndef KV_ENGINE_READ_H
#define KV_ENGINE_READ_H

#include "engine_i.h"
#include "tables.h"

/* The newest visible value of one cell (catalog_lock held): *found, its
   timestamp in *ts and, when value is non-NULL, its bytes. */
kv_status kv_read_newest(kv_store *s, kv_table *t, const void *row, size_t row_len,
                         const char *family, const void *q, size_t qlen, bool *found, int64_t *ts,
                         kv_buf *value);

#endif
