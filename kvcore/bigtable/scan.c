/**
 * @file scan.c
 * Scans and gets on Cloud Bigtable (scan.h): the read options become one
 * bt_read_spec, the rows of bt_reader become kv_results that point into
 * the row the reader filled, and the HBase filter runs on each row.
 */
#include "scan.h"
#include "bt_read.h"
#include "handle.h"
#include "schema_cache.h"
#include "hbase/filter.h"
#include "hbase/filter_hints.h"

#include <stdlib.h>
#include <string.h>

/* The largest millisecond timestamp whose microseconds Bigtable can hold. */
#define MAX_TS_MS (INT64_MAX / 1000 - 1)

typedef struct btb_scan {
    btb_store *s;
    btb_table *t;
    bt_reader *rd;              /* NULL once the read is over */
    kv_filter_run *fr;          /* NULL without a filter */
    bool reversed;
    uint64_t limit, returned;   /* rows, when the filter decides (else the server) */
    bool last;                  /* the filter ends the scan after this row */
    bt_row row;                 /* the row handed out */
    bt_row next;                /* the row being read; swapped with row, so
                                   that the one handed out stays intact when
                                   the read ends or fails */
    kv_cell *cells;
    size_t capcells;
    kv_result result;
} btb_scan;

void btb_scan_close(kv_backend_scan *scan) {
    btb_scan *sc = (btb_scan *)(void *)scan;
    if (!sc) return;
    bt_reader_close(sc->rd);   /* cancels the call if rows remain */
    bt_row_clear(&sc->row);
    bt_row_clear(&sc->next);
    kv_filter_run_free(sc->fr);
    btb_table_free(sc->t);
    free(sc->cells);
    free(sc);
}

/* The column selection of @p o as Bigtable columns, with HBase's rule that
   the later spec of a family wins (addFamily / addColumn): per family in
   the table's order, the whole family or its qualifiers. *cols NULL (and
   *n 0) selects every family. */
static kv_status select_columns(btb_scan *sc, const kv_read_options *o, bt_column **cols,
                                size_t *n) {
    *cols = NULL;
    *n = 0;
    if (!o->columns || o->ncolumns == 0) return KV_OK;
    const btb_table *t = sc->t;
    bt_column *out = calloc(o->ncolumns, sizeof *out);
    /* Per family: 0 not chosen, 1 the whole family, 2 some columns. */
    unsigned char *mode = calloc(t->nfams ? t->nfams : 1, 1);
    if (!out || !mode) {
        free(out);
        free(mode);
        return KV_NO_MEMORY;
    }
    kv_status rc = KV_OK;
    for (size_t i = 0; rc == KV_OK && i < o->ncolumns; i++) {
        const kv_column *c = &o->columns[i];
        const bt_family_rules *f = btb_table_family(t, c->family);
        if (!f)
            rc = btb_refuse(sc->s, KV_NO_FAMILY, "table %s has no column family '%s'", t->name,
                            c->family ? c->family : "(null)");
        else mode[f - t->fams] = c->qualifier ? 2 : 1;
    }
    /* Emit per family in table order; a family's columns in spec order. */
    for (size_t k = 0; rc == KV_OK && k < t->nfams; k++) {
        if (mode[k] == 1) out[(*n)++] = (bt_column){ t->fams[k].name, NULL, 0 };
        if (mode[k] != 2) continue;
        /* Only the specs after the family's last whole-family spec count. */
        size_t from = 0;
        for (size_t i = 0; i < o->ncolumns; i++)
            if (strcmp(o->columns[i].family, t->fams[k].name) == 0 && !o->columns[i].qualifier)
                from = i + 1;
        for (size_t i = from; i < o->ncolumns; i++) {
            const kv_column *c = &o->columns[i];
            /* A qualifier too long for Bigtable names no cell. */
            if (strcmp(c->family, t->fams[k].name) != 0 || c->qualifier_len > BT_MAX_QUALIFIER)
                continue;
            bool dup = false;   /* a column named twice is read once */
            for (size_t j = 0; j < *n && !dup; j++)
                dup = out[j].family == t->fams[k].name && out[j].qualifier_len == c->qualifier_len &&
                      (c->qualifier_len == 0 || memcmp(out[j].qualifier, c->qualifier,
                                                       c->qualifier_len) == 0);
            if (!dup) out[(*n)++] = (bt_column){ t->fams[k].name, c->qualifier, c->qualifier_len };
        }
    }
    free(mode);
    if (rc != KV_OK) {
        free(out);
        *n = 0;
        return rc;
    }
    *cols = out;
    return KV_OK;
}

/* The time range of @p o in Bigtable's terms: [*lo, *hi) with *hi
   BT_TS_NONE for no end; *empty when nothing can match (the range lies
   below 0, where Bigtable keeps nothing). */
static kv_status time_range(btb_scan *sc, const kv_read_options *o, int64_t *lo, int64_t *hi,
                            bool *empty) {
    int64_t a = o->time_min, b = o->time_max;
    if (o->has_timestamp) {
        a = o->timestamp;
        b = o->timestamp == INT64_MAX ? INT64_MAX : o->timestamp + 1;
    } else if (a > b) {
        return btb_refuse(sc->s, KV_INVALID, "time range [%lld, %lld) is empty", (long long)a,
                          (long long)b);
    }
    *empty = b <= 0 || a > MAX_TS_MS;
    *lo = a < 0 ? 0 : a;
    *hi = b > MAX_TS_MS ? BT_TS_NONE : b;
    return KV_OK;
}

/* A failed read, with what it was; a server without reversed reads (the
   emulator) is told apart, as that is a refusal and not a fault. */
static kv_status read_failed(btb_scan *sc, const bt_status *st) {
    if (sc->reversed && st->code == BT_UNSUPPORTED)
        return btb_fail(sc->s, st, "reversed scan of table %s is not supported by this server "
                        "(Cloud Bigtable has reversed reads; the emulator has none)", sc->t->name);
    return btb_fail(sc->s, st, "%sscan of table %s", sc->reversed ? "reversed " : "", sc->t->name);
}

kv_status btb_scan_open(btb_store *s, const char *table, const kv_read_options *o,
                        bool single_row, kv_backend_scan **out) {
    *out = NULL;
    btb_scan *sc = calloc(1, sizeof *sc);
    if (!sc) return KV_NO_MEMORY;
    sc->s = s;
    sc->reversed = o->reversed;
    bt_column *cols = NULL;
    size_t ncols = 0;
    bt_read_spec spec = BT_READ_SPEC_INIT;
    bool empty = false;
    kv_status rc = btb_table_get(s, table, false, &sc->t);
    if (rc == KV_OK) rc = select_columns(sc, o, &cols, &ncols);
    if (rc == KV_OK) rc = time_range(sc, o, &spec.min_ts, &spec.max_ts, &empty);
    if (rc == KV_OK && o->filter && !(sc->fr = kv_filter_run_new(o->filter))) rc = KV_NO_MEMORY;
    if (rc == KV_OK && o->columns && o->ncolumns && ncols == 0) empty = true;
    if (rc == KV_OK && single_row && (o->start_row_len == 0 || o->start_row_len > BT_MAX_ROW_KEY))
        empty = true;   /* a row Bigtable cannot hold has no cells */
    if (rc == KV_OK && !empty) {
        kv_filter_hints h = kv_filter_hints_of(o->filter);
        spec.keys_only = h.keys_only;
        spec.first_cell_per_family = h.first_cell_only;
        if (single_row) {
            spec.row = o->start_row;
            spec.row_len = o->start_row_len;
        } else {
            spec.start = o->start_row;
            spec.start_len = o->start_row ? o->start_row_len : 0;
            spec.stop = o->stop_row;
            spec.stop_len = o->stop_row ? o->stop_row_len : 0;
            spec.prefix = o->row_prefix;
            spec.prefix_len = o->row_prefix ? o->row_prefix_len : 0;
            spec.reversed = o->reversed;
        }
        spec.families = sc->t->fams;
        spec.nfamilies = sc->t->nfams;
        spec.columns = cols;
        spec.ncolumns = ncols;
        spec.max_versions = o->max_versions <= 0 ? 1 : o->max_versions;
        /* A filter is offered the family's VERSIONS (the reader caps at
           them) and the read's VERSIONS apply after it, as HBase does. */
        if (sc->fr) {
            kv_filter_run_set_versions(sc->fr, spec.max_versions);
            spec.max_versions = INT32_MAX;
        }
        /* With a filter, rows it drops must not count against the limit. */
        if (sc->fr) sc->limit = o->limit;
        else spec.limit = o->limit > INT64_MAX ? INT64_MAX : (int64_t)o->limit;
        bt_status st;
        if (bt_reader_open(&sc->rd, s->client, sc->t->id, &spec, btb_now(s), &st) != BT_OK)
            rc = read_failed(sc, &st);
    }
    free(cols);
    if (rc != KV_OK) {
        btb_scan_close((kv_backend_scan *)(void *)sc);
        return rc;
    }
    *out = (kv_backend_scan *)(void *)sc;
    return KV_OK;
}

/* The end of the read: no more rows; the call is cancelled if it still
   runs. */
static kv_status finish(btb_scan *sc) {
    bt_reader_close(sc->rd);
    sc->rd = NULL;
    return KV_END;
}

/* Points the scan's cells at the row just read. */
static kv_status load_cells(btb_scan *sc) {
    const bt_row *r = &sc->row;
    if (r->ncells > sc->capcells) {
        kv_cell *c = realloc(sc->cells, r->ncells * sizeof *c);
        if (!c) return KV_NO_MEMORY;
        sc->cells = c;
        sc->capcells = r->ncells;
    }
    for (size_t i = 0; i < r->ncells; i++) {
        const bt_cell *b = &r->cells[i];
        sc->cells[i] = (kv_cell){ r->key, r->key_len, b->family,
                                  b->qualifier ? b->qualifier : (const uint8_t *)"",
                                  b->qualifier_len, bt_ms_from_micros(b->ts_micros), KV_TYPE_PUT,
                                  b->value ? b->value : (const uint8_t *)"", b->value_len };
    }
    sc->result = (kv_result){ r->key, r->key_len, r->ncells, sc->cells };
    return KV_OK;
}

kv_status btb_scan_next(kv_backend_scan *scan, const kv_result **row) {
    btb_scan *sc = (btb_scan *)(void *)scan;
    *row = NULL;
    for (;;) {
        if (!sc->rd || sc->last || (sc->limit && sc->returned >= sc->limit)) return finish(sc);
        bool got;
        bt_status st;
        if (bt_reader_next(sc->rd, &sc->next, &got, &st) != BT_OK)
            return read_failed(sc, &st);
        if (!got) return finish(sc);
        bt_row swap = sc->row;
        sc->row = sc->next;
        sc->next = swap;
        kv_status rc = load_cells(sc);
        if (rc != KV_OK) return rc;
        size_t n = sc->row.ncells;
        if (sc->fr) {
            bool stop = false;
            bool want = kv_filter_run_row_key(sc->fr, sc->row.key, sc->row.key_len, sc->reversed,
                                              &stop);
            if (!want && stop) return finish(sc);
            if (stop) sc->last = true;
            if (!want) continue;
            bool fstop = false;
            bool keep = kv_filter_run_row(sc->fr, sc->cells, &n, &fstop);
            if (fstop) sc->last = true;
            if (!keep || n == 0) continue;
        }
        if (n == 0) continue;
        sc->result.ncells = n;
        sc->returned++;
        *row = &sc->result;
        return KV_OK;
    }
}
