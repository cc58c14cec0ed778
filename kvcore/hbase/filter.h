/**
 * @file filter.h
 * Evaluation of compiled filters (kv_filter, parsed by kv_filter_parse in
 * filter_parse.c) against the cells of one row, with HBase's return codes
 * (filter_eval.c). The read path assembles a row's visible cells (after the
 * time range and deletes, up to the family's VERSIONS per column) and
 * passes them here; a kv_filter_run holds the per-scan state (PageFilter's
 * row count, WHILE's latch, the per-row state of the filters, KeyOnlyFilter's
 * scratch).
 */
#ifndef KV_FILTER_H
#define KV_FILTER_H

#include "kvcore.h"

typedef struct kv_filter_run kv_filter_run;

/* Per-scan (or per-get) state for filter f. NULL on out-of-memory. */
kv_filter_run *kv_filter_run_new(const kv_filter *f);
void kv_filter_run_free(kv_filter_run *r);

/* The read's VERSIONS (HBase's versionsAfterFilter): after the filter, at
   most this many of each column's cells are kept, newest first. Readers
   offer the filter up to the family's VERSIONS versions of each column (a
   raw read: its own VERSIONS) and set the read's VERSIONS here, as HBase's
   UserScanQueryMatcher does, so TimestampsFilter and friends see versions
   older than the read's cap. 0 or less: no cap (the default). */
void kv_filter_run_set_versions(kv_filter_run *r, int32_t versions);

/* Cheap check before a row is read: false if the row key alone excludes the
   row (PrefixFilter, RowFilter, InclusiveStopFilter...). Sets *stop when no
   later row (in scan direction, reversed = descending) can pass either. */
bool kv_filter_run_row_key(kv_filter_run *r, const uint8_t *row, size_t row_len, bool reversed,
                           bool *stop);

/* Filters one row in place. cells[0..*ncells) are the row's cells in cell
   order; on return the first *ncells are those that pass, possibly changed
   (KeyOnlyFilter empties values; their bytes then live in r until the next
   call). Returns true if the row is returned (then *ncells > 0). Sets *stop
   when the scan must end after this row (PageFilter reached its count, a
   WHILE failed, filterAllRemaining stopped the row: the cells included
   before that are still returned, as in HBase). */
bool kv_filter_run_row(kv_filter_run *r, kv_cell *cells, size_t *ncells, bool *stop);

#endif
