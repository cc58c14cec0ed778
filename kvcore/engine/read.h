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

/* A scan of the engine: the state behind a kv_scan. */
typedef struct kv_engine_scan kv_engine_scan;

/* kv_scan_open's contract (catalog_lock not held). single_row: a get of
   ro->start_row, which lets bloom filters skip files. */
kv_status kv_engine_scan_open(kv_engine *s, const char *table, const kv_read_options *ro,
                              bool single_row, kv_engine_scan **out);
/* kv_scan_next's contract: KV_OK, KV_END (again at later calls), or a
   failure that later calls return again. */
kv_status kv_engine_scan_next(kv_engine_scan *sc, const kv_result **row);
/* Returns each row in parts of at most max_cells cells (0: whole rows),
   holding no more than one part's cells (kv_scan_set_batch's contract;
   before the first kv_engine_scan_next). KV_NOT_SUPPORTED for a scan
   with a filter or a raw one, whose rows are judged or reordered whole:
   the caller then splits whole rows. */
kv_status kv_engine_scan_set_batch(kv_engine_scan *sc, size_t max_cells);
/* Ends a scan; its buffers go to the engine's pool for the next scan. */
void kv_engine_scan_close(kv_engine_scan *sc);
/* Frees the pooled scans (at close, when no scan is open). */
void kv_engine_scan_pool_free(kv_engine *s);

/* The newest visible value of one cell (catalog_lock held): *found, its
   timestamp in *ts and, when value is non-NULL, its bytes. */
kv_status kv_read_newest(kv_engine *s, kv_table *t, const void *row, size_t row_len,
                         const char *family, const void *q, size_t qlen, bool *found, int64_t *ts,
                         kv_buf *value);

#endif
