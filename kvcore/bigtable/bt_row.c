/**
 * @file bt_row.c
 * Storage of rows returned by the Bigtable backend (see bt_row.h). Used by
 * bt_chunks.c and bt_client.c; calls only libc.
 */
#include "bt_row.h"

#include <stdbool.h>
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

/* A run of consecutive cells of one family. */
typedef struct family_run { size_t start, len; const char *family; } family_run;

static int run_cmp(const void *a, const void *b) {
    const family_run *x = a, *y = b;
    int c = strcmp(x->family, y->family);
    if (c) return c;
    return x->start < y->start ? -1 : x->start > y->start;
}

int bt_row_sort_families(bt_row *r) {
    size_t nruns = 0;
    bool sorted = true;
    for (size_t i = 0; i < r->ncells; i++) {
        if (i == 0 || strcmp(r->cells[i].family, r->cells[i - 1].family) != 0) {
            if (i > 0 && strcmp(r->cells[i].family, r->cells[i - 1].family) < 0) sorted = false;
            nruns++;
        }
    }
    if (sorted) return 0;
    family_run *runs = malloc(nruns * sizeof *runs);
    bt_cell *cells = malloc(r->ncells * sizeof *cells);
    if (!runs || !cells) {
        free(runs);
        free(cells);
        return -1;
    }
    size_t n = 0;
    for (size_t i = 0; i < r->ncells; i++) {
        if (i == 0 || strcmp(r->cells[i].family, r->cells[i - 1].family) != 0)
            runs[n++] = (family_run){ i, 0, r->cells[i].family };
        runs[n - 1].len++;
    }
    /* Runs of one family keep their relative order (start breaks ties). */
    qsort(runs, nruns, sizeof *runs, run_cmp);
    size_t out = 0;
    for (size_t k = 0; k < nruns; k++) {
        memcpy(&cells[out], &r->cells[runs[k].start], runs[k].len * sizeof *cells);
        out += runs[k].len;
    }
    free(r->cells);
    r->cells = cells;
    r->cap = r->ncells;
    free(runs);
    return 0;
}
