/**
 * @file bt_chunks.h
 * The ReadRows chunk assembler: turns the stream of CellChunks of
 * ReadRowsResponse messages back into whole, committed rows, following the
 * rules of Bigtable's ReadRows protocol:
 *  - a row starts with a chunk carrying its key, family and qualifier; its
 *    key must sort after every row committed before it in the stream
 *    (before it, in a reversed read);
 *  - within a row a chunk without a family keeps the previous family, one
 *    without a qualifier keeps the previous column (a new family must come
 *    with a qualifier);
 *  - a cell's value may be split across chunks: every chunk but the last
 *    has value_size set to the whole value's length, and continuation
 *    chunks carry nothing but value bytes;
 *  - reset_row drops the row in progress (it will be sent again);
 *    commit_row completes it; labels are ignored.
 * Any other sequence is a protocol error: the stream cannot be trusted and
 * the caller ends it. Used by bt_read.c; calls bt_row.c and protobuf-c's
 * generated types. Not thread-safe: one assembler per stream.
 */
#ifndef CELLFS_BT_CHUNKS_H
#define CELLFS_BT_CHUNKS_H

#include <stdbool.h>
#include <stddef.h>

#include "bigtable.pb-c.h"
#include "bt_row.h"
#include "bt_status.h"

/** Default bound on one row's bytes (Bigtable's own largest readable row). */
#define BT_MAX_ROW_BYTES ((size_t)256 * 1024 * 1024)

typedef struct bt_asm {
    bt_row cur;              /* the row in progress */
    bool in_row;             /* cur has a key and at least one cell */
    bool in_cell;            /* the last cell awaits more value chunks */
    size_t value_size;       /* that cell's declared total length */
    size_t row_bytes;        /* bytes held by cur, against max_row_bytes */
    size_t max_row_bytes;
    uint8_t *last_key;       /* key of the last committed row (owned) */
    size_t last_key_len;
    bool has_last;
    uint64_t rows_committed; /* rows delivered since bt_asm_init */
    bool reversed;           /* rows come in descending key order; set
                                after bt_asm_init, before the first chunk */
} bt_asm;

/** Prepares @p a; @p max_row_bytes 0 means BT_MAX_ROW_BYTES. */
void bt_asm_init(bt_asm *a, size_t max_row_bytes);

/** Frees what @p a holds. */
void bt_asm_destroy(bt_asm *a);

/**
 * Feeds one chunk. Returns 1 when the chunk committed a row, which is moved
 * into @p out (cleared first with bt_row_clear; the caller owns it after);
 * 0 when more chunks are needed; -1 on a protocol error or when out of
 * memory or over the row size bound (@p st says which; BT_ERROR), after
 * which only bt_asm_restart or bt_asm_destroy may be called.
 */
int bt_asm_feed(bt_asm *a, const Btpb__ReadRowsResponse__CellChunk *c, bt_row *out,
                bt_status *st);

/**
 * Checks the end of a stream: BT_OK when no row is in progress, else
 * BT_ERROR ("stream ended inside a row").
 */
bt_code bt_asm_end(const bt_asm *a, bt_status *st);

/** Forgets the row in progress (before reading a resumed stream); keeps the
 *  last committed key, so the resumed stream must continue after it. */
void bt_asm_restart(bt_asm *a);

#endif
