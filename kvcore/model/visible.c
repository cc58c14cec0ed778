/**
 * @file visible.c
 * Which cells of one family row a read returns, from HBase's rules (SPEC
 * §1), over every physical layer of the family at once:
 *
 *  - cells come in cell order: qualifier, then timestamp descending, then
 *    delete markers before puts (DeleteFamily, DeleteColumn,
 *    DeleteFamilyVersion, Delete by type code), then the latest write;
 *    family markers have the empty qualifier;
 *  - a put that a later put of the same cell and timestamp replaced is
 *    never returned;
 *  - a read returns per column at most its VERSIONS (capped by the
 *    family's, except for raw reads, which use their own) of the puts in
 *    its time range, newest first; puts newer than the range are not
 *    counted; puts older than TTL are not returned unless among the newest
 *    MIN_VERSIONS counted;
 *  - a put masked by a marker is neither returned nor counted, where a
 *    marker takes part if its timestamp is at or after the start of the
 *    read's range (with KEEP_DELETED_CELLS: inside the range);
 *  - a raw read returns the markers in its range and the masked puts too.
 *
 * Called with the model's mu held.
 */
#include "model_i.h"

#include <stdlib.h>
#include <string.h>

static bool in_range(const m_read *r, int64_t ts) { return ts >= r->tmin && ts < r->tmax; }

/* Whether a marker takes part in masking for this read. */
static bool marker_applies(const kv_family_desc *d, const m_read *r, const m_entry *mk) {
    if (d->keep_deleted != KV_KEEP_DELETED_FALSE) return in_range(r, mk->ts);
    return mk->ts >= r->tmin;
}

/* Cell order within one row and family (see the file comment). */
static int cmp_cell(const void *a, const void *b) {
    const m_entry *x = *(const m_entry *const *)a, *y = *(const m_entry *const *)b;
    int c = m_bytes_cmp(x->qual, x->qual_len, y->qual, y->qual_len);
    if (!c) c = x->ts > y->ts ? -1 : x->ts < y->ts;
    if (!c) c = (int)y->type - (int)x->type;
    if (!c) c = x->seq > y->seq ? -1 : x->seq < y->seq;
    return c;
}

static bool selected(const m_read *r, const m_entry *e) {
    if (r->nquals == 0) return true;
    for (size_t i = 0; i < r->nquals; i++)
        if (m_bytes_cmp(e->qual, e->qual_len, r->quals[i].qualifier, r->quals[i].qualifier_len) == 0)
            return true;
    return false;
}

static kv_status push(m_entry **out, size_t *n, size_t *cap, const m_entry *e) {
    if (*n == *cap) {
        size_t c = *cap ? 2 * *cap : 16;
        m_entry *p = realloc(*out, c * sizeof *p);
        if (!p) return KV_NO_MEMORY;
        *out = p;
        *cap = c;
    }
    (*out)[(*n)++] = *e;
    return KV_OK;
}

kv_status m_visible(const m_family *f, const uint8_t *row, size_t row_len, const m_read *r,
                    m_entry **out, size_t *n, size_t *cap) {
    const kv_family_desc *d = &f->desc;
    size_t total = f->mem.n;
    for (size_t i = 0; i < f->nfiles; i++) total += f->files[i].n;
    m_entry **all = malloc((total ? total : 1) * sizeof *all);
    m_entry **marks = malloc((total ? total : 1) * sizeof *marks);
    if (!all || !marks) {
        free(all);
        free(marks);
        return KV_NO_MEMORY;
    }
    size_t na = 0, nm = 0;
    for (size_t l = 0; l <= f->nfiles; l++) {
        const m_layer *layer = l == 0 ? &f->mem : &f->files[l - 1];
        for (size_t i = 0; i < layer->n; i++) {
            m_entry *e = &layer->e[i];
            if (m_bytes_cmp(e->row, e->row_len, row, row_len) != 0) continue;
            all[na++] = e;
            if (e->type != KV_TYPE_PUT && marker_applies(d, r, e)) marks[nm++] = e;
        }
    }
    qsort(all, na, sizeof *all, cmp_cell);
    int32_t limit = r->versions;
    if (!r->raw && (limit > d->versions || r->filtered)) limit = d->versions;
    kv_status st = KV_OK;
    int32_t count = 0;
    const m_entry *prev_put = NULL;
    bool full = false;   /* a put of the column was past VERSIONS */
    for (size_t i = 0; st == KV_OK && i < na; i++) {
        const m_entry *e = all[i];
        bool new_column = i == 0 || m_bytes_cmp(all[i - 1]->qual, all[i - 1]->qual_len, e->qual,
                                                e->qual_len) != 0;
        if (new_column) {
            count = 0;
            prev_put = NULL;
            full = false;
        }
        if (e->type != KV_TYPE_PUT) {
            /* Family markers belong to the empty qualifier: a selection of
               other columns does not show them. A column's markers below
               its put past VERSIONS are not shown (HBase's raw scan). */
            bool family = e->type == KV_TYPE_DELETE_FAMILY || e->type == KV_TYPE_DELETE_FAMILY_VERSION;
            if (r->raw && in_range(r, e->ts) && selected(r, e) && (family || !full))
                st = push(out, n, cap, e);
            continue;
        }
        bool replaced = prev_put && prev_put->ts == e->ts;
        prev_put = e;
        if (replaced || !selected(r, e) || !in_range(r, e->ts)) continue;
        bool masked = false;
        for (size_t k = 0; k < nm && !masked; k++) masked = m_masks(d, marks[k], e);
        if (masked && !r->raw) continue;
        if (count >= limit) full = true;
        if (m_expired(d, e->ts, r->now) && count >= d->min_versions) continue;
        if (count >= limit) continue;
        count++;
        st = push(out, n, cap, e);
    }
    free(all);
    free(marks);
    return st;
}
