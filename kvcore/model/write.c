/**
 * @file write.c
 * The model's writes, from HBase's rules and kvcore.h's contracts: every
 * operation of a row mutation becomes one physical entry in its family's
 * memstore with the next sequence number (a row delete becomes a
 * DeleteFamily marker in every family); an implicit timestamp is the
 * store's clock, which never goes below one handed out and moves past a
 * delete with an implicit timestamp, so that a later implicit put is not
 * masked by it; "delete the newest version" takes that version's timestamp
 * (and deletes nothing when there is none). A batch is one group with one
 * clock reading, unless a mutation deletes a newest version: then each
 * mutation is its own group. Increments and appends stamp
 * max(previous timestamp + 1, now), as HBase's region code does, so that
 * they never replace a version in place. Called with the model's mu held.
 */
#include "model_i.h"
#include "hbase/mutation.h"

#include <stdlib.h>
#include <string.h>

/* Most families one mutation may touch (as the engine's log record). */
#define MODEL_MAX_FAMILIES 64

int64_t m_now(model *m) {
    int64_t now = kv_clock_read(&m->clock);
    return now < m->floor ? m->floor : now;
}

kv_status m_newest(model *m, m_table *t, const void *row, size_t row_len, const char *family,
                   const void *q, size_t qlen, const m_entry **out) {
    *out = NULL;
    m_family *f = m_find_family(t, family);
    if (!f) return m_fail(m, KV_NO_FAMILY, "table '%s:%s' has no column family '%s'", t->ns, t->name, family);
    kv_column col = {family, q, qlen};
    m_read r = {.versions = 1, .tmin = KV_TIME_MIN, .tmax = KV_TIME_MAX, .nquals = 1, .quals = &col,
                .now = kv_clock_read(&m->clock)};
    m_entry *v = NULL;
    size_t n = 0, cap = 0;
    kv_status st = m_visible(f, row, row_len, &r, &v, &n, &cap);
    if (st == KV_OK && n > 0) {
        /* Point at the layer's entry, which outlives this call. */
        for (size_t l = 0; l <= f->nfiles && !*out; l++) {
            const m_layer *layer = l == 0 ? &f->mem : &f->files[l - 1];
            for (size_t i = 0; i < layer->n && !*out; i++)
                if (layer->e[i].row == v[0].row) *out = &layer->e[i];
        }
    }
    free(v);
    return st;
}

/* Checks a mutation against the table: KV_INVALID, KV_NO_FAMILY,
   KV_TOO_LARGE with a message, as the engine's log record does. */
static kv_status check_mutation(model *m, m_table *t, const kv_mutation *mu) {
    if (mu->nops == 0) return KV_INVALID;
    if (mu->nfamilies > MODEL_MAX_FAMILIES)
        return m_fail(m, KV_INVALID, "a mutation may touch at most %d families, not %zu",
                      MODEL_MAX_FAMILIES, mu->nfamilies);
    for (size_t i = 0; i < mu->nfamilies; i++)
        if (!m_find_family(t, mu->families[i]))
            return m_fail(m, KV_NO_FAMILY, "table %s:%s has no column family '%s'", t->ns, t->name,
                          mu->families[i]);
    for (size_t i = 0; i < mu->nops; i++)
        if (mu->ops[i].vlen > m->max_value_size)
            return m_fail(m, KV_TOO_LARGE, "value of %u bytes is above the limit of %zu bytes",
                          mu->ops[i].vlen, m->max_value_size);
    return KV_OK;
}

static kv_status add_entry(model *m, m_family *f, const kv_mutation *mu, kv_cell_type type,
                           int64_t ts, const uint8_t *q, size_t qlen, const uint8_t *v,
                           size_t vlen) {
    m_entry e = {(uint8_t *)mu->bytes.data, mu->row_len, (uint8_t *)q, qlen, ts, type, ++m->seq,
                 (uint8_t *)v, vlen};
    return m_layer_add(&f->mem, &e);
}

/* Writes the checked mutation's entries at group time now. Ops of
   "delete the newest version" have been resolved by the caller
   (resolved[i] is the timestamp, or INT64_MIN to skip the op). */
static kv_status apply(model *m, m_table *t, const kv_mutation *mu, const int64_t *resolved,
                       int64_t now, bool *deleted_implicitly) {
    kv_status st = KV_OK;
    for (size_t i = 0; st == KV_OK && i < mu->nops; i++) {
        const kv_op *op = &mu->ops[i];
        int64_t ts = op->ts;
        if (resolved && resolved[i] != KV_LATEST_TIMESTAMP) {
            if (resolved[i] == INT64_MIN) continue;
            ts = resolved[i];
        } else if (ts == KV_LATEST_TIMESTAMP) {
            ts = now;
            if (op->type != KV_TYPE_PUT) *deleted_implicitly = true;
        }
        const uint8_t *q = mu->bytes.data + op->qoff, *v = mu->bytes.data + op->voff;
        if (op->whole_row) {
            for (size_t f = 0; st == KV_OK && f < t->nfams; f++)
                st = add_entry(m, &t->fams[f], mu, op->type, ts, (const uint8_t *)"", 0, NULL, 0);
        } else {
            m_family *f = m_find_family(t, mu->families[op->family_index]);
            st = add_entry(m, f, mu, op->type, ts, q, op->qlen, v, op->vlen);
        }
    }
    return st;
}

/* The clock after a group written at now. */
static void advance_floor(model *m, int64_t now, bool deleted_implicitly) {
    int64_t next = deleted_implicitly ? now + 1 : now;
    if (next > m->floor) m->floor = next;
}

/* Resolves the "delete the newest version" ops of mu into resolved[]:
   the version's timestamp, INT64_MIN when there is none, or
   KV_LATEST_TIMESTAMP for other ops. */
static kv_status resolve_newest(model *m, m_table *t, const kv_mutation *mu, int64_t *resolved) {
    for (size_t i = 0; i < mu->nops; i++) {
        const kv_op *op = &mu->ops[i];
        resolved[i] = KV_LATEST_TIMESTAMP;
        if (op->type != KV_TYPE_DELETE || op->ts != KV_LATEST_TIMESTAMP) continue;
        const m_entry *e;
        kv_status st = m_newest(m, t, mu->bytes.data, mu->row_len, mu->families[op->family_index],
                                mu->bytes.data + op->qoff, op->qlen, &e);
        if (st != KV_OK) return st;
        resolved[i] = e ? e->ts : INT64_MIN;
    }
    return KV_OK;
}

/* Applies one mutation as its own group, resolving newest-version deletes
   first. A mutation left with nothing to delete writes nothing. */
static kv_status apply_alone(model *m, m_table *t, const kv_mutation *mu) {
    kv_status st = check_mutation(m, t, mu);
    if (st != KV_OK) return st;
    int64_t *resolved = malloc(mu->nops * sizeof *resolved);
    if (!resolved) return KV_NO_MEMORY;
    st = resolve_newest(m, t, mu, resolved);
    bool any = false;
    for (size_t i = 0; st == KV_OK && i < mu->nops; i++) any |= resolved[i] != INT64_MIN;
    if (st == KV_OK && any) {
        int64_t now = m_now(m);
        bool implicit = false;
        st = apply(m, t, mu, resolved, now, &implicit);
        if (st == KV_OK) advance_floor(m, now, implicit);
    }
    free(resolved);
    return st;
}

kv_status m_mutate(model *m, const char *table, kv_mutation *const *ms, size_t n,
                   kv_status *statuses) {
    m_table *t;
    kv_status st = m_writable_table(m, table, &t);
    if (st != KV_OK) {
        for (size_t i = 0; statuses && i < n; i++) statuses[i] = st;
        return st;
    }
    bool alone = false;
    for (size_t i = 0; i < n && !alone; i++) alone = kv_mutation_deletes_newest(ms[i]);
    int64_t now = m_now(m);
    bool implicit = false, wrote = false;
    kv_status first = KV_OK;
    for (size_t i = 0; i < n; i++) {
        kv_status one;
        if (alone) {
            one = apply_alone(m, t, ms[i]);
        } else {
            one = check_mutation(m, t, ms[i]);
            if (one == KV_OK) one = apply(m, t, ms[i], NULL, now, &implicit);
            wrote |= one == KV_OK;
        }
        if (statuses) statuses[i] = one;
        if (first == KV_OK) first = one;
    }
    if (wrote) advance_floor(m, now, implicit);
    return first;
}

/* The family of a read-modify-write on a usable table. */
static kv_status rmw_target(model *m, const char *table, const char *family, m_table **t) {
    kv_status st = m_writable_table(m, table, t);
    if (st == KV_OK && !m_find_family(*t, family))
        st = m_fail(m, KV_NO_FAMILY, "table '%s' has no column family '%s'", table, family);
    return st;
}

kv_status m_read_modify_write(model *m, const char *table, const kv_rmw *op, kv_buf *result) {
    m_table *t;
    kv_status st = rmw_target(m, table, op->family, &t);
    const m_entry *old = NULL;
    if (st == KV_OK)
        st = m_newest(m, t, op->row, op->row_len, op->family, op->qualifier, op->qualifier_len, &old);
    if (st != KV_OK) return st;
    result->len = 0;
    if (op->kind == KV_RMW_INCREMENT) {
        int64_t v = 0;
        if (old && old->value_len != 8)
            return m_fail(m, KV_NOT_COUNTER, "field is not a long, it's %zu bytes wide", old->value_len);
        if (old) v = (int64_t)kv_get_be64(old->value);
        uint8_t b[8];
        kv_put_be64(b, (uint64_t)v + (uint64_t)op->delta);
        if (kv_buf_append(result, b, 8)) return KV_NO_MEMORY;
    } else if ((old && kv_buf_append(result, old->value, old->value_len)) ||
               kv_buf_append(result, op->data, op->data_len)) {
        return KV_NO_MEMORY;
    }
    if (result->len > m->max_value_size)
        return m_fail(m, KV_TOO_LARGE, "value of %zu bytes is above the limit of %zu bytes",
                      result->len, m->max_value_size);
    int64_t now = m_now(m);
    int64_t ts = old && old->ts >= now && old->ts < INT64_MAX ? old->ts + 1 : now;
    kv_mutation *mu;
    st = kv_mutation_new(&mu, op->row, op->row_len);
    if (st == KV_OK)
        st = kv_mutation_put(mu, op->family, op->qualifier, op->qualifier_len, ts, result->data,
                             result->len);
    bool implicit = false;
    if (st == KV_OK) st = apply(m, t, mu, NULL, now, &implicit);
    if (st == KV_OK) advance_floor(m, now, false);
    kv_mutation_free(mu);
    return st;
}

kv_status m_check_and_mutate(model *m, const char *table, const kv_check *c, const kv_mutation *mu,
                             bool *applied) {
    *applied = false;
    m_table *t;
    kv_status st = rmw_target(m, table, c->family, &t);
    const m_entry *cur = NULL;
    if (st == KV_OK)
        st = m_newest(m, t, c->row, c->row_len, c->family, c->qualifier, c->qualifier_len, &cur);
    if (st != KV_OK) return st;
    bool pass = !c->expected ? !cur
                : cur && kv_compare_passes(c->op, m_bytes_cmp(cur->value, cur->value_len,
                                                              c->expected, c->expected_len));
    if (!pass) return KV_OK;
    /* An empty mutation passes and writes nothing, as in the engine. */
    st = mu->nops ? apply_alone(m, t, mu) : KV_OK;
    if (st == KV_OK) *applied = true;
    return st;
}
