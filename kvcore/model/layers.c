/**
 * @file layers.c
 * The model's physical layers and what flushes and compactions keep, from
 * HBase's rules (SPEC §1, "Retention and version counting"):
 *
 *  - the memstore keeps every write;
 *  - a flush writes the memstore as a new file, and a compaction merges
 *    files into one, keeping per column, of the puts that a marker in the
 *    same input does not mask, at most VERSIONS, newest first, where a put
 *    that a later put of the same timestamp replaced is gone, and a put
 *    older than TTL is dropped unless it is among the newest MIN_VERSIONS;
 *  - a flush keeps every delete marker; a compaction that merges every
 *    file of the family (the model's compactions always do) drops them, as
 *    HBase's COMPACT_DROP_DELETES; a major one first flushes, a minor one
 *    does not, so a marker it drops no longer masks an older put that is
 *    still in the memstore;
 *  - KEEP_DELETED_CELLS TRUE keeps masked puts (they then count as
 *    versions) and, in compactions, the markers; TTL does so until
 *    the masked put (or the marker) has expired; even then a compaction
 *    drops a marker older than every put of its inputs, and a
 *    column marker below a put of its column that VERSIONS or TTL dropped
 *    (HBase counts such markers with the puts);
 *  - with NEW_VERSION_BEHAVIOR a marker masks only puts written before it.
 *
 * Called with the model's mu held.
 */
#include "model_i.h"

#include <stdlib.h>
#include <string.h>

int m_bytes_cmp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen) {
    size_t n = alen < blen ? alen : blen;
    int c = n ? memcmp(a, b, n) : 0;
    if (c) return c;
    return alen < blen ? -1 : alen > blen;
}

static uint8_t *dup_bytes(const uint8_t *p, size_t n) {
    uint8_t *d = malloc(n ? n : 1);
    if (d && n) memcpy(d, p, n);
    return d;
}

kv_status m_layer_add(m_layer *l, const m_entry *e) {
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        m_entry *p = realloc(l->e, cap * sizeof *p);
        if (!p) return KV_NO_MEMORY;
        l->e = p;
        l->cap = cap;
    }
    m_entry c = *e;
    c.row = dup_bytes(e->row, e->row_len);
    c.qual = dup_bytes(e->qual, e->qual_len);
    c.value = dup_bytes(e->value, e->value_len);
    if (!c.row || !c.qual || !c.value) {
        free(c.row);
        free(c.qual);
        free(c.value);
        return KV_NO_MEMORY;
    }
    l->e[l->n++] = c;
    return KV_OK;
}

void m_layer_clear(m_layer *l) {
    for (size_t i = 0; i < l->n; i++) {
        free(l->e[i].row);
        free(l->e[i].qual);
        free(l->e[i].value);
    }
    free(l->e);
    *l = (m_layer){0};
}

void m_family_clear(m_family *f) {
    m_layer_clear(&f->mem);
    for (size_t i = 0; i < f->nfiles; i++) m_layer_clear(&f->files[i]);
    free(f->files);
    f->files = NULL;
    f->nfiles = 0;
}

bool m_expired(const kv_family_desc *d, int64_t ts, int64_t now) {
    if (d->ttl_seconds == KV_FOREVER || d->ttl_seconds <= 0 || d->ttl_seconds > INT64_MAX / 1000)
        return false;
    return ts < now - d->ttl_seconds * 1000;
}

bool m_masks(const kv_family_desc *d, const m_entry *marker, const m_entry *put) {
    if (d->new_version_behavior && marker->seq < put->seq) return false;
    switch (marker->type) {
    case KV_TYPE_DELETE_FAMILY: return put->ts <= marker->ts;
    case KV_TYPE_DELETE_FAMILY_VERSION: return put->ts == marker->ts;
    case KV_TYPE_DELETE_COLUMN:
        return put->ts <= marker->ts &&
               m_bytes_cmp(put->qual, put->qual_len, marker->qual, marker->qual_len) == 0;
    case KV_TYPE_DELETE:
        return put->ts == marker->ts &&
               m_bytes_cmp(put->qual, put->qual_len, marker->qual, marker->qual_len) == 0;
    default: return false;
    }
}

/* Order of the puts of one column: row, qualifier, then newest timestamp
   and the latest write first. */
static int cmp_put(const void *a, const void *b) {
    const m_entry *x = *(const m_entry *const *)a, *y = *(const m_entry *const *)b;
    int c = m_bytes_cmp(x->row, x->row_len, y->row, y->row_len);
    if (!c) c = m_bytes_cmp(x->qual, x->qual_len, y->qual, y->qual_len);
    if (!c) c = x->ts > y->ts ? -1 : x->ts < y->ts;
    if (!c) c = x->seq > y->seq ? -1 : x->seq < y->seq;
    return c;
}

static bool same_row(const m_entry *a, const m_entry *b) {
    return m_bytes_cmp(a->row, a->row_len, b->row, b->row_len) == 0;
}

/* Whether put p (of the input) is masked by a marker of the input. */
static bool masked_in(const kv_family_desc *d, m_entry *const *markers, size_t nm, const m_entry *p) {
    for (size_t i = 0; i < nm; i++)
        if (same_row(markers[i], p) && m_masks(d, markers[i], p)) return true;
    return false;
}

/* Whether a masked put is kept by KEEP_DELETED_CELLS. */
static bool keeps_deleted(const kv_family_desc *d, const m_entry *p, int64_t now) {
    if (d->keep_deleted == KV_KEEP_DELETED_TRUE) return true;
    return d->keep_deleted == KV_KEEP_DELETED_TTL && !m_expired(d, p->ts, now);
}

/* Whether a major compaction keeps a marker: only by KEEP_DELETED_CELLS,
   and then only while a put of the inputs is as old as it and (a column
   marker) no newer put of its column was dropped (dropped[] flags puts[]). */
static bool major_keeps_marker(const kv_family_desc *d, const m_entry *mk, int64_t now,
                               m_entry *const *puts, const bool *dropped, size_t np) {
    bool kdc = d->keep_deleted == KV_KEEP_DELETED_TRUE ||
               (d->keep_deleted == KV_KEEP_DELETED_TTL && !m_expired(d, mk->ts, now));
    if (!kdc) return false;
    int64_t earliest = KV_TIME_MAX;
    for (size_t i = 0; i < np; i++)
        if (puts[i]->ts < earliest) earliest = puts[i]->ts;
    if (mk->ts < earliest) return false;
    if (mk->type == KV_TYPE_DELETE_FAMILY || mk->type == KV_TYPE_DELETE_FAMILY_VERSION) return true;
    for (size_t i = 0; i < np; i++)
        if (dropped[i] && puts[i]->ts > mk->ts && same_row(puts[i], mk) &&
            m_bytes_cmp(puts[i]->qual, puts[i]->qual_len, mk->qual, mk->qual_len) == 0)
            return false;
    return true;
}

/* Writes what the input layers keep into out (see the file comment). */
static kv_status retain(const kv_family_desc *d, m_layer *in, size_t nin, bool major, int64_t now,
                        m_layer *out) {
    size_t total = 0;
    for (size_t i = 0; i < nin; i++) total += in[i].n;
    m_entry **puts = malloc((total ? total : 1) * sizeof *puts);
    m_entry **marks = malloc((total ? total : 1) * sizeof *marks);
    bool *dropped = calloc(total ? total : 1, sizeof *dropped);
    kv_status st = puts && marks && dropped ? KV_OK : KV_NO_MEMORY;
    size_t np = 0, nm = 0;
    for (size_t i = 0; st == KV_OK && i < nin; i++)
        for (size_t k = 0; k < in[i].n; k++) {
            m_entry *e = &in[i].e[k];
            if (e->type == KV_TYPE_PUT) puts[np++] = e;
            else marks[nm++] = e;
        }
    if (st == KV_OK) qsort(puts, np, sizeof *puts, cmp_put);
    int32_t count = 0;
    for (size_t i = 0; st == KV_OK && i < np; i++) {
        const m_entry *p = puts[i];
        bool new_column = i == 0 || !same_row(puts[i - 1], p) ||
                          m_bytes_cmp(puts[i - 1]->qual, puts[i - 1]->qual_len, p->qual, p->qual_len) != 0;
        if (new_column) count = 0;
        else if (puts[i - 1]->ts == p->ts) continue;   /* replaced by a later write */
        if (masked_in(d, marks, nm, p) && !keeps_deleted(d, p, now)) continue;
        if ((m_expired(d, p->ts, now) && count >= d->min_versions) || count >= d->versions) {
            dropped[i] = true;
            continue;
        }
        count++;
        st = m_layer_add(out, p);
    }
    for (size_t i = 0; st == KV_OK && i < nm; i++)
        if (!major || major_keeps_marker(d, marks[i], now, puts, dropped, np))
            st = m_layer_add(out, marks[i]);
    free(puts);
    free(marks);
    free(dropped);
    return st;
}

/* Replaces layers in[0..nin) (which the caller then frees) by what they
   keep, as one new file in front of f's files. */
static kv_status write_file(m_family *f, m_layer *in, size_t nin, bool major, int64_t now,
                            m_layer *made) {
    *made = (m_layer){0};
    kv_status st = retain(&f->desc, in, nin, major, now, made);
    if (st != KV_OK) m_layer_clear(made);
    return st;
}

static kv_status push_file(m_family *f, m_layer *l) {
    if (l->n == 0) return KV_OK;    /* nothing kept: no file, as in HBase */
    m_layer *p = realloc(f->files, (f->nfiles + 1) * sizeof *p);
    if (!p) return KV_NO_MEMORY;
    f->files = p;
    memmove(&p[1], &p[0], f->nfiles * sizeof *p);
    p[0] = *l;
    f->nfiles++;
    *l = (m_layer){0};
    return KV_OK;
}

kv_status m_flush_all(model *m, int64_t now) {
    bool any = false;
    for (size_t i = 0; i < m->ntables; i++)
        for (size_t k = 0; k < m->tables[i]->nfams; k++) {
            m_family *f = &m->tables[i]->fams[k];
            if (f->mem.n == 0) continue;
            m_layer made;
            kv_status st = write_file(f, &f->mem, 1, false, now, &made);
            if (st == KV_OK) st = push_file(f, &made);
            m_layer_clear(&made);
            if (st != KV_OK) return st;
            m_layer_clear(&f->mem);
            any = true;
        }
    if (any) m->flushes++;
    return KV_OK;
}

kv_status m_compact(model *m, m_table *t, bool major, int64_t now) {
    kv_status st = major ? m_flush_all(m, now) : KV_OK;
    for (size_t i = 0; st == KV_OK && i < m->ntables; i++) {
        m_table *tab = m->tables[i];
        if (t && tab != t) continue;
        for (size_t k = 0; st == KV_OK && k < tab->nfams; k++) {
            m_family *f = &tab->fams[k];
            if (f->nfiles == 0) continue;
            m_layer made;
            st = write_file(f, f->files, f->nfiles, true, now, &made);   /* every file */
            if (st != KV_OK) break;
            for (size_t j = 0; j < f->nfiles; j++) m_layer_clear(&f->files[j]);
            f->nfiles = 0;
            st = push_file(f, &made);
            m_layer_clear(&made);
            m->compactions++;
        }
    }
    return st;
}
