/**
 * @file bt_row.c
 * Storage of rows returned by the Bigtable backend (see bt_row.h). Used by
 * bt_chunks.c and bt_client.c; calls only libc.
 */
#include "bt_row.h"

#include <stdlib.h>
#include <string.h>

void bt_row_clear(bt_row *r) {
    for (size_t i = 0; i < r->ncells; i++) {
        free(r->cells[i].family);
        free(r->cells[i].qualifier);
        free(r->cells[i].value);
    }
    free(r->cells);
    free(r->key);
    memset(r, 0, sizeof *r);
}

bt_cell *bt_row_add_cell(bt_row *r) {
    if (r->ncells == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 8;
        bt_cell *cells = realloc(r->cells, cap * sizeof *cells);
        if (!cells) return NULL;
        r->cells = cells;
        r->cap = cap;
    }
    bt_cell *c = &r->cells[r->ncells++];
    memset(c, 0, sizeof *c);
    return c;
}
