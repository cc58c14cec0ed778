/**
 * @file bt_read.h
 * Streaming reads: a ReadRows call read row by row as a pull iterator.
 * Memory is bounded by one response message plus the row being assembled:
 * nothing is received before the caller asks for the next row. Closing
 * early cancels the call. When the stream fails with UNAVAILABLE or
 * DEADLINE_EXCEEDED (also when the consumer was slower than the stream's
 * deadline), the read resumes with a new call that starts after the last
 * row delivered and asks for the remaining row limit only, so every row is
 * delivered exactly once and in order. A reversed read resumes below the
 * last row. Called by the backend (scan.c, rowcas.c) and the tests;
 * calls bt_map.c, bt_chunks.c, bt_transport.c and bt_client.c.
 */
#ifndef CELLFS_BT_READ_H
#define CELLFS_BT_READ_H

#include <stdbool.h>

#include "bt_client.h"

typedef struct bt_reader bt_reader;

/**
 * Starts reading @p spec from @p table_id as of @p now_ms (for TTLs). The
 * reader keeps its own copy of the request: @p spec's buffers may be freed
 * after this returns. Errors: those of bt_map_read, and a failure to start
 * the call.
 */
bt_code bt_reader_open(bt_reader **out, bt_client *c, const char *table_id,
                       const bt_read_spec *spec, int64_t now_ms, bt_status *st);

/**
 * The next row, into @p row (cleared first; the caller frees it with
 * bt_row_clear). At the end returns BT_OK with *@p got false. After a
 * failure (protocol error, non-retryable status, retries exhausted) the
 * reader returns the same failure again.
 */
bt_code bt_reader_next(bt_reader *r, bt_row *row, bool *got, bt_status *st);

/** How many times the read resumed after a failed stream. */
unsigned bt_reader_resumes(const bt_reader *r);

/** Ends the read (cancelling the call if rows remain) and frees @p r. */
void bt_reader_close(bt_reader *r);

#endif
