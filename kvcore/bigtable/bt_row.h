/**
 * @file bt_row.h
 * A row as the Bigtable backend returns it to its callers: the key and its
 * cells in the order the server sent them (family, then qualifier, then
 * timestamp descending within a family). Filled by the chunk assembler
 * (bt_chunks.c) and by bt_client.c's ReadModifyWrite result; freed by
 * whoever holds it.
 */
#ifndef CELLFS_BT_ROW_H
#define CELLFS_BT_ROW_H

#include <stddef.h>
#include <stdint.h>

typedef struct bt_cell {
    char *family;           /* NUL-terminated, owned */
    uint8_t *qualifier;     /* owned; may be NULL when qualifier_len is 0 */
    size_t qualifier_len;
    int64_t ts_micros;      /* Bigtable's timestamp (microseconds) */
    uint8_t *value;         /* owned; may be NULL when value_len is 0 */
    size_t value_len;
} bt_cell;

typedef struct bt_row {
    uint8_t *key;           /* owned */
    size_t key_len;
    bt_cell *cells;
    size_t ncells, cap;
} bt_row;

#define BT_ROW_INIT { NULL, 0, NULL, 0, 0 }

/** Frees everything @p r holds and leaves it empty (BT_ROW_INIT). */
void bt_row_clear(bt_row *r);

/** Puts the cells of @p r in HBase's order of families (by name), keeping
 *  the server's order within each family. Bigtable does not promise an
 *  order of families within a row (the emulator's changes from read to
 *  read). Returns 0, or -1 when out of memory (@p r unchanged). */
int bt_row_sort_families(bt_row *r);

/** Appends an empty cell to @p r and returns it, or NULL when out of
 *  memory (@p r unchanged). */
bt_cell *bt_row_add_cell(bt_row *r);

#endif
