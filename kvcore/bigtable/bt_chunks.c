/**
 * @file bt_chunks.c
 * ReadRows chunk assembly (rules in bt_chunks.h). The state is the row in
 * progress: its last cell gives the family and qualifier that later chunks
 * carry over, and in_cell says whether that cell's value is still being
 * split. Called by bt_read.c and the wire-level tests; calls bt_row.c.
 */
#include "bt_chunks.h"

#include <stdlib.h>
#include <string.h>

void bt_asm_init(bt_asm *a, size_t max_row_bytes) {
    memset(a, 0, sizeof *a);
    a->max_row_bytes = max_row_bytes ? max_row_bytes : BT_MAX_ROW_BYTES;
}

void bt_asm_destroy(bt_asm *a) {
    bt_row_clear(&a->cur);
    free(a->last_key);
    memset(a, 0, sizeof *a);
}

void bt_asm_restart(bt_asm *a) {
    bt_row_clear(&a->cur);
    a->in_row = a->in_cell = false;
    a->value_size = a->row_bytes = 0;
}

bt_code bt_asm_end(const bt_asm *a, bt_status *st) {
    if (a->in_row)
        return bt_fail(st, BT_ERROR, "ReadRows protocol error: stream ended inside a row");
    bt_status_ok(st);
    return BT_OK;
}

static int protocol_error(bt_status *st, const char *what) {
    bt_fail(st, BT_ERROR, "ReadRows protocol error: %s", what);
    return -1;
}

/* Unsigned byte order, shorter first on a common prefix: Bigtable's. */
static int key_cmp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen) {
    int c = memcmp(a, b, alen < blen ? alen : blen);
    if (c) return c;
    return alen < blen ? -1 : alen > blen;
}

static void *dup_bytes(const void *p, size_t n) {
    void *d = malloc(n ? n : 1);
    if (d && n) memcpy(d, p, n);
    return d;
}

/* Appends @p n value bytes to the last cell, within the row bound. */
static int append_value(bt_asm *a, const uint8_t *p, size_t n, bt_status *st) {
    if (n == 0) return 0;
    if (a->row_bytes + n > a->max_row_bytes) {
        bt_fail(st, BT_ERROR, "row larger than %zu bytes", a->max_row_bytes);
        return -1;
    }
    bt_cell *cell = &a->cur.cells[a->cur.ncells - 1];
    /* A split cell's buffer was sized from value_size; otherwise grow. */
    if (!(a->in_cell && a->value_size >= cell->value_len + n)) {
        uint8_t *v = realloc(cell->value, cell->value_len + n);
        if (!v) {
            bt_fail(st, BT_ERROR, "out of memory");
            return -1;
        }
        cell->value = v;
    }
    memcpy(cell->value + cell->value_len, p, n);
    cell->value_len += n;
    a->row_bytes += n;
    return 0;
}

/* A chunk that continues a split cell may carry value bytes only. */
static bool only_value(const Btpb__ReadRowsResponse__CellChunk *c, const bt_row *cur) {
    bool key_ok = c->row_key.len == 0 ||
                  key_cmp(c->row_key.data, c->row_key.len, cur->key, cur->key_len) == 0;
    return key_ok && !c->family_name && !c->qualifier && c->timestamp_micros == 0 &&
           c->n_labels == 0;
}

/* Starts a cell from a chunk's family, qualifier and timestamp, carrying
 * the previous cell's family and qualifier where the chunk has none. */
static int start_cell(bt_asm *a, const Btpb__ReadRowsResponse__CellChunk *c, bt_status *st) {
    const bt_cell *prev = a->cur.ncells ? &a->cur.cells[a->cur.ncells - 1] : NULL;
    if (c->family_name && !c->qualifier) return protocol_error(st, "new family without a qualifier");
    if (!prev && (!c->family_name || !c->qualifier))
        return protocol_error(st, "a row's first chunk lacks its family or qualifier");
    const char *family = c->family_name ? c->family_name->value : prev->family;
    const uint8_t *q = c->qualifier ? c->qualifier->value.data : prev->qualifier;
    size_t qlen = c->qualifier ? c->qualifier->value.len : prev->qualifier_len;
    size_t need = strlen(family) + qlen;
    if (a->row_bytes + need > a->max_row_bytes) {
        bt_fail(st, BT_ERROR, "row larger than %zu bytes", a->max_row_bytes);
        return -1;
    }
    bt_cell *cell = bt_row_add_cell(&a->cur);
    if (!cell) goto oom;
    cell->ts_micros = c->timestamp_micros;
    cell->family = strdup(family);
    cell->qualifier = dup_bytes(q, qlen);
    if (!cell->family || !cell->qualifier) goto oom;
    cell->qualifier_len = qlen;
    a->row_bytes += need;
    if (c->value_size < 0) return protocol_error(st, "negative value_size");
    if (c->value_size > 0) {
        if ((size_t)c->value_size > a->max_row_bytes - a->row_bytes) {
            bt_fail(st, BT_ERROR, "row larger than %zu bytes", a->max_row_bytes);
            return -1;
        }
        if (c->value.len > (size_t)c->value_size)
            return protocol_error(st, "value chunk longer than value_size");
        /* Allocate the whole value once: value_size is its total length. */
        if (!(cell->value = malloc((size_t)c->value_size))) goto oom;
        a->in_cell = true;
        a->value_size = (size_t)c->value_size;
    }
    a->in_row = true;
    return append_value(a, c->value.data, c->value.len, st);
oom:
    bt_fail(st, BT_ERROR, "out of memory");
    return -1;
}

/* Continues the split cell with a chunk of its value. */
static int continue_cell(bt_asm *a, const Btpb__ReadRowsResponse__CellChunk *c, bt_status *st) {
    if (!only_value(c, &a->cur))
        return protocol_error(st, "a split cell's continuation carries more than value bytes");
    if (c->value_size < 0) return protocol_error(st, "negative value_size");
    const bt_cell *cell = &a->cur.cells[a->cur.ncells - 1];
    if (cell->value_len + c->value.len > a->value_size)
        return protocol_error(st, "split cell longer than its value_size");
    if (c->value_size > 0 && (size_t)c->value_size != a->value_size)
        return protocol_error(st, "value_size changed within a split cell");
    if (append_value(a, c->value.data, c->value.len, st) < 0) return -1;
    if (c->value_size == 0) {
        /* The last chunk of the cell: the value must be complete. */
        if (cell->value_len != a->value_size)
            return protocol_error(st, "split cell shorter than its value_size");
        a->in_cell = false;
        a->value_size = 0;
    }
    return 0;
}

int bt_asm_feed(bt_asm *a, const Btpb__ReadRowsResponse__CellChunk *c, bt_row *out,
                bt_status *st) {
    if (c->row_status_case == BTPB__READ_ROWS_RESPONSE__CELL_CHUNK__ROW_STATUS_RESET_ROW &&
        c->reset_row) {
        if (!a->in_row) return protocol_error(st, "reset_row with no row in progress");
        if (c->row_key.len || c->family_name || c->qualifier || c->timestamp_micros ||
            c->n_labels || c->value.len || c->value_size)
            return protocol_error(st, "reset_row chunk carries data");
        bt_asm_restart(a);
        return 0;
    }
    if (a->in_cell) {
        if (continue_cell(a, c, st) < 0) return -1;
    } else if (!a->in_row) {
        if (c->row_key.len == 0) return protocol_error(st, "a new row's chunk has no row key");
        if (a->has_last) {
            int order = key_cmp(c->row_key.data, c->row_key.len, a->last_key, a->last_key_len);
            if (a->reversed ? order >= 0 : order <= 0)
                return protocol_error(st, a->reversed
                                              ? "row key not before the last committed row"
                                              : "row key not after the last committed row");
        }
        if (!(a->cur.key = dup_bytes(c->row_key.data, c->row_key.len))) {
            bt_fail(st, BT_ERROR, "out of memory");
            return -1;
        }
        a->cur.key_len = c->row_key.len;
        a->row_bytes = c->row_key.len;
        if (start_cell(a, c, st) < 0) return -1;
    } else {
        if (c->row_key.len &&
            key_cmp(c->row_key.data, c->row_key.len, a->cur.key, a->cur.key_len) != 0)
            return protocol_error(st, "row key changed inside a row");
        if (start_cell(a, c, st) < 0) return -1;
    }
    if (c->row_status_case != BTPB__READ_ROWS_RESPONSE__CELL_CHUNK__ROW_STATUS_COMMIT_ROW ||
        !c->commit_row)
        return 0;
    if (a->in_cell) return protocol_error(st, "commit_row inside a split cell");
    if (bt_row_sort_families(&a->cur) < 0) {
        bt_fail(st, BT_ERROR, "out of memory");
        return -1;
    }
    uint8_t *last = dup_bytes(a->cur.key, a->cur.key_len);
    if (!last) {
        bt_fail(st, BT_ERROR, "out of memory");
        return -1;
    }
    free(a->last_key);
    a->last_key = last;
    a->last_key_len = a->cur.key_len;
    a->has_last = true;
    a->rows_committed++;
    bt_row_clear(out);
    *out = a->cur;
    memset(&a->cur, 0, sizeof a->cur);
    a->in_row = false;
    a->row_bytes = 0;
    return 1;
}
