/**
 * @file read.c
 * The read calls of kvcore.h: scans, and kv_get as a scan of one row whose
 * cells are copied into one malloc'd kv_result (its options outlive its
 * scan, so they are not copied). A scan copies its options
 * (row bounds, column selection) so that the caller's buffers may go at
 * once and the backend may keep pointers into the copy; it makes KV_END
 * and failures sticky for every backend.
 */
#include "api_i.h"

#include <stdlib.h>
#include <string.h>

struct kv_scan {
    kv_store *store;
    kv_backend_scan *bs;
    kv_read_options ro;         /* the copy the backend reads */
    kv_column *cols;            /* ro.columns */
    uint8_t *bytes;             /* bounds, qualifiers and family names */
    kv_status ended;            /* KV_END or a failure, returned again */
    bool started;               /* kv_scan_next was called */
    /* kv_scan_set_batch when the backend returns whole rows: */
    size_t split;               /* cells per part; 0: rows as they come */
    const kv_result *whole;     /* the backend's row being handed out */
    size_t next_cell;           /* its first cell not handed out yet */
    kv_result part;
};

/* Appends n bytes to the copy area at *at (sized beforehand) and returns
   where they went (NULL for NULL). */
static const void *stash(uint8_t **at, const void *p, size_t n) {
    if (!p) return NULL;
    uint8_t *where = *at;
    if (n) memcpy(where, p, n);
    *at += n;
    return where;
}

/* Copies o into sc: the options struct, its columns and every byte they
   point to (the filter is referenced, not copied). */
static kv_status copy_options(kv_scan *sc, const kv_read_options *o) {
    size_t bytes = o->start_row_len + o->stop_row_len + o->row_prefix_len;
    for (size_t i = 0; o->columns && i < o->ncolumns; i++)
        bytes += o->columns[i].qualifier_len + (o->columns[i].family ? strlen(o->columns[i].family) + 1 : 0);
    sc->ro = *o;
    sc->bytes = malloc(bytes ? bytes : 1);
    sc->cols = o->columns ? calloc(o->ncolumns ? o->ncolumns : 1, sizeof *sc->cols) : NULL;
    if (!sc->bytes || (o->columns && !sc->cols)) return KV_NO_MEMORY;
    uint8_t *at = sc->bytes;
    sc->ro.start_row = stash(&at, o->start_row, o->start_row_len);
    sc->ro.stop_row = stash(&at, o->stop_row, o->stop_row_len);
    sc->ro.row_prefix = stash(&at, o->row_prefix, o->row_prefix_len);
    for (size_t i = 0; o->columns && i < o->ncolumns; i++) {
        const kv_column *c = &o->columns[i];
        sc->cols[i].family = c->family ? stash(&at, c->family, strlen(c->family) + 1) : NULL;
        sc->cols[i].qualifier = stash(&at, c->qualifier, c->qualifier_len);
        sc->cols[i].qualifier_len = c->qualifier_len;
    }
    sc->ro.columns = sc->cols;
    return KV_OK;
}

void kv_scan_close(kv_scan *sc) {
    if (!sc) return;
    if (sc->bs) sc->store->ops->xScanClose(sc->bs);
    free(sc->cols);
    free(sc->bytes);
    free(sc);
}

/* The checks of every read's options. */
static kv_status check_read(kv_store *s, const kv_read_options *o) {
    kv_status st = kv_api_version(s, "kv_read_options", o->version, KV_READ_OPTIONS_VERSION);
    if (st == KV_OK && o->raw) st = kv_api_need(s, KV_CAP_RAW_SCANS, "raw read");
    return st;
}

kv_status kv_scan_open(kv_scan **out, kv_store *s, const char *table, const kv_read_options *ropts) {
    *out = NULL;
    kv_api_begin(s);
    if (!s) return KV_INVALID;
    kv_read_options defaults = KV_READ_OPTIONS_INIT;
    const kv_read_options *o = ropts ? ropts : &defaults;
    kv_status st = check_read(s, o);
    if (st != KV_OK) return st;
    kv_scan *sc = calloc(1, sizeof *sc);
    if (!sc) return KV_NO_MEMORY;
    sc->store = s;
    st = copy_options(sc, o);
    if (st == KV_OK) st = s->ops->xScanOpen(s->b, table, &sc->ro, false, &sc->bs);
    if (st != KV_OK) {
        kv_scan_close(sc);
        return st;
    }
    *out = sc;
    return KV_OK;
}

/* The next part of at most sc->split cells of the backend's rows. */
static kv_status next_part(kv_scan *sc, const kv_result **row) {
    if (!sc->whole || sc->next_cell >= sc->whole->ncells) {
        sc->whole = NULL;
        kv_status st = sc->store->ops->xScanNext(sc->bs, &sc->whole);
        if (st != KV_OK) return st;
        sc->next_cell = 0;
    }
    const kv_result *w = sc->whole;
    size_t n = w->ncells - sc->next_cell < sc->split ? w->ncells - sc->next_cell : sc->split;
    sc->part = (kv_result){w->row, w->row_len, n, w->cells + sc->next_cell};
    sc->next_cell += n;
    *row = &sc->part;
    return KV_OK;
}

kv_status kv_scan_set_batch(kv_scan *sc, size_t max_cells) {
    if (!sc) return KV_INVALID;
    kv_api_begin(sc->store);
    if (sc->started)
        return kv_api_fail(sc->store, KV_INVALID, "kv_scan_set_batch after the scan's first kv_scan_next");
    kv_status st = sc->store->ops->xScanSetBatch ? sc->store->ops->xScanSetBatch(sc->bs, max_cells)
                                                 : KV_NOT_SUPPORTED;
    if (st == KV_NOT_SUPPORTED) {
        sc->split = max_cells;
        return KV_OK;
    }
    if (st == KV_OK) sc->split = 0;
    return st;
}

kv_status kv_scan_next(const kv_result **row, kv_scan *sc) {
    *row = NULL;
    if (!sc) return KV_INVALID;
    sc->started = true;
    if (sc->ended != KV_OK && sc->ended != KV_END) {
        kv_api_begin(sc->store);
        return kv_api_fail(sc->store, sc->ended, "the scan failed earlier (%s)", kv_strerror(sc->ended));
    }
    if (sc->ended != KV_OK) return sc->ended;
    kv_api_begin(sc->store);
    kv_status st = sc->split ? next_part(sc, row) : sc->store->ops->xScanNext(sc->bs, row);
    if (st != KV_OK) {
        *row = NULL;
        sc->ended = st;
    }
    return st;
}

/* A copy of r (or an empty result for row when r is NULL) in one block. */
static kv_result *copy_result(const void *row, size_t row_len, const kv_result *r) {
    size_t n = r ? r->ncells : 0, bytes = row_len;
    /* a family's name once for each run of its cells */
    const char *fam = NULL;
    for (size_t i = 0; i < n; i++) {
        if (r->cells[i].family != fam) {
            fam = r->cells[i].family;
            bytes += strlen(fam) + 1;
        }
        bytes += r->cells[i].qualifier_len + r->cells[i].value_len;
    }
    kv_result *res = malloc(sizeof *res + n * sizeof(kv_cell) + bytes + 1);
    if (!res) return NULL;
    kv_cell *cells = (kv_cell *)(res + 1);
    uint8_t *p = (uint8_t *)(cells + n);
    if (row_len) memcpy(p, row, row_len);
    res->row = p;
    res->row_len = row_len;
    p += row_len;
    for (size_t i = 0; i < n; i++) {
        kv_cell c = r->cells[i];
        c.row = res->row;
        if (i > 0 && c.family == r->cells[i - 1].family) {
            c.family = cells[i - 1].family;   /* the copy made for the cell before */
        } else {
            size_t fl = strlen(c.family) + 1;
            memcpy(p, c.family, fl);
            c.family = (const char *)p;
            p += fl;
        }
        if (c.qualifier_len) memcpy(p, c.qualifier, c.qualifier_len);
        c.qualifier = p;
        p += c.qualifier_len;
        if (c.value_len) memcpy(p, c.value, c.value_len);
        c.value = p;
        p += c.value_len;
        cells[i] = c;
    }
    res->cells = cells;
    res->ncells = n;
    return res;
}

/* Rows up to this long get their stop row on the stack. */
#define GET_STOP_INLINE 256

kv_status kv_get(kv_result **out, kv_store *s, const char *table, const void *row, size_t row_len,
                 const kv_read_options *ropts) {
    *out = NULL;
    kv_api_begin(s);
    if (!s) return KV_INVALID;
    if (!row && row_len) return kv_api_fail(s, KV_INVALID, "get: a %zu-byte row at NULL", row_len);
    kv_read_options o;
    if (ropts) o = *ropts;
    else o = (kv_read_options)KV_READ_OPTIONS_INIT;
    kv_status st = check_read(s, &o);
    if (st != KV_OK) return st;
    /* One row: from the row to its successor (the row and a zero byte).
       The options outlive this call's scan, so they need no copy. */
    uint8_t inline_stop[GET_STOP_INLINE];
    uint8_t *stop = row_len < sizeof inline_stop ? inline_stop : malloc(row_len + 1);
    if (!stop) return KV_NO_MEMORY;
    if (row_len) memcpy(stop, row, row_len);
    stop[row_len] = 0;
    o.start_row = row ? row : "";
    o.start_row_len = row_len;
    o.stop_row = stop;
    o.stop_row_len = row_len + 1;
    o.row_prefix = NULL;
    o.row_prefix_len = 0;
    o.limit = 1;
    o.reversed = false;
    kv_backend_scan *bs = NULL;
    st = s->ops->xScanOpen(s->b, table, &o, true, &bs);
    const kv_result *r = NULL;
    if (st == KV_OK) st = s->ops->xScanNext(bs, &r);
    if (st == KV_END) {
        st = KV_OK;
        r = NULL;
    } else if (st == KV_OK && (r->row_len != row_len || memcmp(r->row, row, row_len) != 0)) {
        st = kv_api_fail(s, KV_CORRUPT, "the %s backend answered a get with another row",
                         s->ops->name);
    }
    if (st == KV_OK && !(*out = copy_result(row, row_len, r))) st = KV_NO_MEMORY;
    if (bs) s->ops->xScanClose(bs);
    if (stop != inline_stop) free(stop);
    return st;
}

void kv_result_free(kv_result *result) { free(result); }
