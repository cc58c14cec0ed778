/**
 * @file scan.h
 * Reads of the Bigtable backend (hbase/backend.h's xScanOpen, xScanNext,
 * xScanClose): one ReadRows call read as a pull iterator (bt_read.c), so
 * that memory holds one response message and one row whatever the table's
 * size; closing early cancels the call, and a stream that fails with
 * UNAVAILABLE or DEADLINE_EXCEEDED resumes after the last row delivered.
 * The request carries the table's VERSIONS and TTL as filters (Bigtable's
 * garbage collection is lazy), the read's versions and time range, the
 * column selection (HBase's rule: the later spec of a family wins), the
 * row bounds and the limit; the HBase filter language runs here, on each
 * row, with hbase/filter.h (parts of it also prune on the server, see
 * hbase/filter_hints.h). Each row is read consistently; a scan is not a
 * snapshot of the table (no KV_CAP_SNAPSHOT_SCANS). Reversed scans send
 * Bigtable's "reversed" flag; a server without it (the emulator) answers
 * KV_NOT_SUPPORTED. Called by backend.c; calls schema_cache.c, bt_read.c.
 */
#ifndef KV_BIGTABLE_SCAN_H
#define KV_BIGTABLE_SCAN_H

#include "store_i.h"

kv_status btb_scan_open(btb_store *s, const char *table, const kv_read_options *ro,
                        bool single_row, kv_backend_scan **out);
kv_status btb_scan_next(kv_backend_scan *scan, const kv_result **row);
void btb_scan_close(kv_backend_scan *scan);

#endif
