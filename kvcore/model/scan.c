/**
 * @file scan.c
 * The model's scans (a get is a scan of one row, see api/read.c): the
 * rows of the selected families in key order (reversed: descending, with
 * start_row the first row and stop_row an exclusive lower bound, as in
 * HBase), within the bounds and prefix, each row's cells from visible.c,
 * then the filter (hbase/filter.h, shared above the seam), up to the
 * limit. A scan computes every row at open, under the model's lock, so it
 * is a snapshot of the whole table.
 *
 * Column selection follows HBase's Get/Scan addFamily / addColumn: specs
 * apply in order and the later wins, so a family then one of its columns
 * selects that column, and a column then its family selects the family.
 */
#include "model_i.h"
#include "hbase/filter.h"

#include <stdlib.h>
#include <string.h>

typedef struct m_row {
    kv_result result;
    kv_cell *cells;
    uint8_t *bytes;             /* row, family names, qualifiers, values */
} m_row;

struct m_scan {
    size_t nrows, next;
    m_row *rows;
};

/* A selected family and its columns (none: the whole family). */
typedef struct sel {
    m_family *f;
    bool all;
    size_t nquals;
    kv_column *quals;
} sel;

static void free_sels(sel *s, size_t n) {
    for (size_t i = 0; i < n; i++) free(s[i].quals);
    free(s);
}

/* The families a read selects, in name order, with HBase's rule that the
   later spec of a family wins. */
static kv_status select_families(model *m, m_table *t, const kv_read_options *o, sel **out,
                                 size_t *nout) {
    sel *s = calloc(t->nfams ? t->nfams : 1, sizeof *s);
    if (!s) return KV_NO_MEMORY;
    bool every = !o->columns || o->ncolumns == 0;
    for (size_t i = 0; i < t->nfams; i++) {
        s[i].f = &t->fams[i];
        s[i].all = every;
    }
    bool *chosen = calloc(t->nfams ? t->nfams : 1, sizeof *chosen);
    if (!chosen) {
        free(s);
        return KV_NO_MEMORY;
    }
    for (size_t c = 0; !every && c < o->ncolumns; c++) {
        const kv_column *col = &o->columns[c];
        m_family *f = col->family ? m_find_family(t, col->family) : NULL;
        if (!f) {
            free(chosen);
            free_sels(s, t->nfams);
            return m_fail(m, KV_NO_FAMILY, "table %s:%s has no column family '%s'", t->ns, t->name,
                          col->family ? col->family : "(null)");
        }
        sel *x = &s[f - t->fams];
        bool first = !chosen[f - t->fams];
        chosen[f - t->fams] = true;
        if (!col->qualifier) {
            x->all = true;          /* addFamily: every column */
            x->nquals = 0;
            continue;
        }
        if (x->all || first) {      /* addColumn after addFamily: only this one */
            x->all = false;
            x->nquals = 0;
        }
        kv_column *q = realloc(x->quals, (x->nquals + 1) * sizeof *q);
        if (!q) {
            free(chosen);
            free_sels(s, t->nfams);
            return KV_NO_MEMORY;
        }
        x->quals = q;
        q[x->nquals++] = *col;
    }
    /* Keep the chosen ones (or all), in name order. */
    size_t k = 0;
    for (size_t i = 0; i < t->nfams; i++) {
        if (!every && !chosen[i]) {
            free(s[i].quals);
            continue;
        }
        s[k++] = s[i];
    }
    free(chosen);
    *out = s;
    *nout = k;
    return KV_OK;
}

typedef struct rowkey { const uint8_t *p; size_t n; } rowkey;

static int cmp_rowkey(const void *a, const void *b) {
    const rowkey *x = a, *y = b;
    return m_bytes_cmp(x->p, x->n, y->p, y->n);
}

/* The distinct rows of the selected families, ascending. */
static kv_status candidate_rows(const sel *s, size_t ns, rowkey **out, size_t *n) {
    size_t total = 0;
    for (size_t i = 0; i < ns; i++) {
        total += s[i].f->mem.n;
        for (size_t l = 0; l < s[i].f->nfiles; l++) total += s[i].f->files[l].n;
    }
    rowkey *r = malloc((total ? total : 1) * sizeof *r);
    if (!r) return KV_NO_MEMORY;
    size_t k = 0;
    for (size_t i = 0; i < ns; i++)
        for (size_t l = 0; l <= s[i].f->nfiles; l++) {
            const m_layer *layer = l == 0 ? &s[i].f->mem : &s[i].f->files[l - 1];
            for (size_t e = 0; e < layer->n; e++) r[k++] = (rowkey){layer->e[e].row, layer->e[e].row_len};
        }
    qsort(r, k, sizeof *r, cmp_rowkey);
    size_t u = 0;
    for (size_t i = 0; i < k; i++)
        if (u == 0 || cmp_rowkey(&r[u - 1], &r[i]) != 0) r[u++] = r[i];
    *out = r;
    *n = u;
    return KV_OK;
}

/* Whether row lies within the scan's start, stop and prefix. */
static bool in_bounds(const kv_read_options *o, const rowkey *row) {
    if (o->row_prefix && o->row_prefix_len &&
        (row->n < o->row_prefix_len || memcmp(row->p, o->row_prefix, o->row_prefix_len) != 0))
        return false;
    if (o->start_row) {
        int c = m_bytes_cmp(row->p, row->n, o->start_row, o->start_row_len);
        if (o->reversed ? c > 0 : c < 0) return false;
    }
    if (o->stop_row && o->stop_row_len) {
        int c = m_bytes_cmp(row->p, row->n, o->stop_row, o->stop_row_len);
        if (o->reversed ? c <= 0 : c >= 0) return false;
    }
    return true;
}

/* Copies the n cells of one row into a new row of the scan. */
static kv_status add_row(m_scan *sc, const rowkey *row, const kv_cell *cells, size_t n) {
    size_t bytes = row->n;
    for (size_t i = 0; i < n; i++)
        bytes += strlen(cells[i].family) + 1 + cells[i].qualifier_len + cells[i].value_len;
    m_row *rows = realloc(sc->rows, (sc->nrows + 1) * sizeof *rows);
    if (!rows) return KV_NO_MEMORY;
    sc->rows = rows;
    m_row *r = &rows[sc->nrows];
    r->cells = malloc((n ? n : 1) * sizeof *r->cells);
    r->bytes = malloc(bytes ? bytes : 1);
    if (!r->cells || !r->bytes) {
        free(r->cells);
        free(r->bytes);
        return KV_NO_MEMORY;
    }
    uint8_t *p = r->bytes;
    memcpy(p, row->p, row->n);
    const uint8_t *rowp = p;
    p += row->n;
    for (size_t i = 0; i < n; i++) {
        kv_cell c = cells[i];
        c.row = rowp;
        c.row_len = row->n;
        size_t fl = strlen(cells[i].family) + 1;
        memcpy(p, cells[i].family, fl);
        c.family = (const char *)p;
        p += fl;
        if (c.qualifier_len) memcpy(p, cells[i].qualifier, c.qualifier_len);
        c.qualifier = p;
        p += c.qualifier_len;
        if (c.value_len) memcpy(p, cells[i].value, c.value_len);
        c.value = p;
        p += c.value_len;
        r->cells[i] = c;
    }
    r->result = (kv_result){rowp, row->n, n, r->cells};
    sc->nrows++;
    return KV_OK;
}

/* The visible cells of one row in every selected family, as kv_cells
   pointing into the layers. */
static kv_status row_cells(const sel *s, size_t ns, const rowkey *row, m_read *rd, m_entry **ents,
                           size_t *cap, kv_cell **cells, size_t *ncells) {
    size_t n = 0;
    size_t *per = calloc(ns ? ns : 1, sizeof *per);
    if (!per) return KV_NO_MEMORY;
    kv_status st = KV_OK;
    for (size_t i = 0; st == KV_OK && i < ns; i++) {
        rd->nquals = s[i].all ? 0 : s[i].nquals;
        rd->quals = s[i].quals;
        size_t before = n;
        st = m_visible(s[i].f, row->p, row->n, rd, ents, &n, cap);
        per[i] = n - before;
    }
    kv_cell *c = st == KV_OK ? malloc((n ? n : 1) * sizeof *c) : NULL;
    if (st == KV_OK && !c) st = KV_NO_MEMORY;
    size_t k = 0;
    for (size_t i = 0; st == KV_OK && i < ns; i++)
        for (size_t j = 0; j < per[i]; j++, k++) {
            const m_entry *e = &(*ents)[k];
            c[k] = (kv_cell){e->row, e->row_len, s[i].f->desc.name, e->qual, e->qual_len, e->ts,
                             e->type, e->value, e->value_len};
        }
    free(per);
    *cells = c;
    *ncells = n;
    return st;
}

/* Runs the scan to its end into sc (the filter's flow as the engine's
   read path runs it: row key first, then the row's cells). */
static kv_status run(model *m, m_scan *sc, const sel *s, size_t ns, const kv_read_options *o,
                     m_read *rd) {
    rowkey *rows = NULL;
    size_t nrows = 0;
    kv_status st = candidate_rows(s, ns, &rows, &nrows);
    if (st != KV_OK) return st;
    kv_filter_run *fr = o->filter ? kv_filter_run_new(o->filter) : NULL;
    if (o->filter && !fr) st = KV_NO_MEMORY;
    if (fr) kv_filter_run_set_versions(fr, rd->versions);
    m_entry *ents = NULL;
    size_t cap = 0;
    bool finished = false;
    for (size_t i = 0; st == KV_OK && !finished && i < nrows; i++) {
        if (o->limit && sc->nrows >= o->limit) break;
        const rowkey *row = &rows[o->reversed ? nrows - 1 - i : i];
        if (!in_bounds(o, row)) continue;
        bool stop = false;
        bool want = !fr || kv_filter_run_row_key(fr, row->p, row->n, o->reversed, &stop);
        if (stop && !want) break;
        if (stop) finished = true;
        if (!want) continue;
        kv_cell *cells = NULL;
        size_t n = 0;
        st = row_cells(s, ns, row, rd, &ents, &cap, &cells, &n);
        if (st == KV_OK && n > 0) {
            bool keep = true, fstop = false;
            if (fr) keep = kv_filter_run_row(fr, cells, &n, &fstop);
            if (fstop) finished = true;
            if (keep && n > 0) st = add_row(sc, row, cells, n);
        }
        free(cells);
    }
    (void)m;
    free(ents);
    kv_filter_run_free(fr);
    free(rows);
    return st;
}

kv_status m_scan_open(model *m, const char *table, const kv_read_options *o, m_scan **out) {
    *out = NULL;
    m_table *t;
    kv_status st = m_usable_table(m, table, &t);
    if (st != KV_OK) return st;
    if (o->time_min > o->time_max)
        return m_fail(m, KV_INVALID, "time range [%lld, %lld) is empty", (long long)o->time_min,
                      (long long)o->time_max);
    sel *s = NULL;
    size_t ns = 0;
    if ((st = select_families(m, t, o, &s, &ns)) != KV_OK) return st;
    m_read rd = {.versions = o->max_versions <= 0 ? 1 : o->max_versions, .tmin = o->time_min,
                 .tmax = o->time_max, .raw = o->raw, .filtered = o->filter != NULL,
                 .now = kv_clock_read(&m->clock)};
    if (o->has_timestamp) {
        rd.tmin = o->timestamp;
        rd.tmax = o->timestamp == INT64_MAX ? INT64_MAX : o->timestamp + 1;
    }
    m_scan *sc = calloc(1, sizeof *sc);
    if (!sc) st = KV_NO_MEMORY;
    if (st == KV_OK) st = run(m, sc, s, ns, o, &rd);
    free_sels(s, ns);
    if (st != KV_OK) {
        m_scan_close(sc);
        return st;
    }
    *out = sc;
    return KV_OK;
}

kv_status m_scan_next(m_scan *sc, const kv_result **row) {
    if (sc->next >= sc->nrows) return KV_END;
    *row = &sc->rows[sc->next++].result;
    return KV_OK;
}

void m_scan_close(m_scan *sc) {
    if (!sc) return;
    for (size_t i = 0; i < sc->nrows; i++) {
        free(sc->rows[i].cells);
        free(sc->rows[i].bytes);
    }
    free(sc->rows);
    free(sc);
}
