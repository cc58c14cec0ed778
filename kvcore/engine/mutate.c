/**
 * @file mutate.c
 * The engine's write calls (reached through backend.c; contracts as the
 * kvcore.h calls): row mutations and batches, handed to the write queue
 * (write.c), and the read-modify-write calls (increment, append,
 * check-and-mutate, and deletes of "the newest version"), which read the
 * current value (read.c) and write under the store's rmw_mu so that each
 * sees the previous one.
 */
#include "mutate.h"
#include "errors.h"
#include "read.h"
#include "store.h"
#include "tables.h"
#include "write.h"
#include "hbase/keys.h"
#include "hbase/mutation.h"

#include <stdlib.h>
#include <string.h>

/* ---- writes ---- */

/* kv_catalog_find(s, table) (catalog_lock held shared), remembered for
   the catalog generation: while catalog_gen is unchanged (it changes only
   under the exclusive lock), the same name is the same table, and one
   strcmp replaces the catalog search of every write. The first writer of
   a generation to resolve a table keeps it (engine_i.h). */
static kv_table *find_for_write(kv_engine *s, const char *table) {
    uint64_t ready = 2 * s->catalog_gen + 2;
    uint64_t state = atomic_load_explicit(&s->write_table_state, memory_order_acquire);
    if (state == ready && table && strcmp(table, s->write_table_name) == 0) return s->write_table;
    kv_table *t = kv_catalog_find(s, table);
    size_t n = t ? strlen(table) : 0;
    if (t && state != ready && state != ready + 1 && n < sizeof s->write_table_name &&
        atomic_compare_exchange_strong_explicit(&s->write_table_state, &state, ready + 1,
                                                memory_order_acquire, memory_order_relaxed)) {
        memcpy(s->write_table_name, table, n + 1);
        s->write_table = t;
        atomic_store_explicit(&s->write_table_state, ready, memory_order_release);
    }
    return t;
}

/* Resolves a table for writing (catalog_lock held shared). */
static kv_status writable_table(kv_engine *s, const char *table, kv_table **out) {
    kv_table *t = find_for_write(s, table);
    if (!t) return kv_fail(s, KV_NOT_FOUND, "table '%s' does not exist", table ? table : "(null)");
    if (!t->enabled) return kv_fail(s, KV_DISABLED, "table '%s' is disabled", table);
    if (t->attrs.n && kv_tattrs_readonly(&t->attrs))   /* most tables have no attributes */
        return kv_fail(s, KV_READ_ONLY, "table '%s' is read-only (READONLY => 'true')", table);
    *out = t;
    return KV_OK;
}

/* Turns "delete the newest version" into a delete at that version's
   timestamp (rmw_mu held). Ops with no version left are dropped. */
static kv_status resolve_newest(kv_engine *s, kv_table *t, kv_mutation *m) {
    size_t keep = 0;
    for (size_t i = 0; i < m->nops; i++) {
        kv_op op = m->ops[i];
        if (op.type == KV_TYPE_DELETE && op.ts == KV_LATEST_TIMESTAMP) {
            bool found;
            int64_t ts;
            const char *fam = m->families[op.family_index];
            if (!kv_table_family(t, fam)) return kv_fail(s, KV_NO_FAMILY, "table '%s:%s' has no column family '%s'", t->ns, t->name, fam);
            kv_status st = kv_read_newest(s, t, m->bytes.data, m->row_len, fam,
                                          m->bytes.data + op.qoff, op.qlen, &found, &ts, NULL);
            if (st != KV_OK) return st;
            if (!found) continue;
            op.ts = ts;
        }
        m->ops[keep++] = op;
    }
    m->nops = keep;
    return KV_OK;
}

/* Applies mutations that delete "the newest version" one by one under
   rmw_mu, each with that version's timestamp resolved by a read. */
static kv_status apply_resolving_newest(kv_engine *s, kv_table *t, kv_mutation *const *ms,
                                        size_t count, kv_status *statuses, kv_durability d) {
    kv_status st = KV_OK;
    pthread_mutex_lock(&s->rmw_mu);
    for (size_t i = 0; i < count; i++) {
        kv_status one;
        kv_mutation *c = kv_mutation_deletes_newest(ms[i]) ? kv_mutation_copy(ms[i]) : NULL;
        if (kv_mutation_deletes_newest(ms[i]) && !c) one = KV_NO_MEMORY;
        else if (c && (one = resolve_newest(s, t, c)) != KV_OK) {}
        else if (c && c->nops == 0) one = KV_OK; /* nothing left to delete */
        else one = kv_write_apply(s, t, c ? &c : &ms[i], 1, NULL, d);
        kv_mutation_free(c);
        if (statuses) statuses[i] = one;
        if (st == KV_OK) st = one;
    }
    pthread_mutex_unlock(&s->rmw_mu);
    return st;
}

kv_status kv_engine_mutate(kv_engine *s, const char *table, kv_mutation *const *ms, size_t count,
                           kv_status *statuses, kv_durability d) {
    pthread_rwlock_rdlock(&s->catalog_lock);
    kv_table *t;
    kv_status st = writable_table(s, table, &t);
    if (st != KV_OK) {
        for (size_t i = 0; statuses && i < count; i++) statuses[i] = st;
    } else {
        bool rmw = false;
        for (size_t i = 0; i < count && !rmw; i++) rmw = kv_mutation_deletes_newest(ms[i]);
        st = rmw ? apply_resolving_newest(s, t, ms, count, statuses, d)
                 : kv_write_apply(s, t, ms, count, statuses, d);
    }
    pthread_rwlock_unlock(&s->catalog_lock);
    return st;
}

/* ---- read-modify-write ---- */

/* Takes the locks of a read-modify-write call and resolves its table and
   family; on success the caller ends with end_read_modify_write. */
static kv_status begin_read_modify_write(kv_engine *s, const char *table, const char *family,
                                         kv_table **t) {
    pthread_rwlock_rdlock(&s->catalog_lock);
    kv_status st = writable_table(s, table, t);
    if (st == KV_OK && !kv_table_family(*t, family))
        st = kv_fail(s, KV_NO_FAMILY, "table '%s' has no column family '%s'", table, family);
    if (st != KV_OK) {
        pthread_rwlock_unlock(&s->catalog_lock);
        return st;
    }
    pthread_mutex_lock(&s->rmw_mu);
    return KV_OK;
}

/* Frees the read value's buffer after a large value (rmw_mu held). */
static void release_rmw_value(kv_engine *s) {
    if (s->rmw_value.cap > (64u << 10)) kv_buf_free(&s->rmw_value);
}

static void end_read_modify_write(kv_engine *s) {
    pthread_mutex_unlock(&s->rmw_mu);
    pthread_rwlock_unlock(&s->catalog_lock);
}

/* The new value of an increment or append, given the newest one. */
static kv_status compute(kv_engine *s, const kv_rmw *op, bool found, const kv_buf *old,
                         kv_buf *out) {
    if (op->kind == KV_RMW_APPEND) {
        if ((found && kv_buf_append(out, old->data, old->len)) ||
            kv_buf_append(out, op->data, op->data_len))
            return KV_NO_MEMORY;
        return KV_OK;
    }
    int64_t v = 0;
    if (found) {
        if (old->len != 8)
            return kv_fail(s, KV_NOT_COUNTER, "field is not a long, it's %zu bytes wide", old->len);
        v = (int64_t)kv_get_be64(old->data);
    }
    v = (int64_t)((uint64_t)v + (uint64_t)op->delta);
    uint8_t b[8];
    kv_put_be64(b, (uint64_t)v);
    return kv_buf_append(out, b, 8) ? KV_NO_MEMORY : KV_OK;
}

kv_status kv_engine_read_modify_write(kv_engine *s, const char *table, const kv_rmw *op,
                                      kv_buf *result) {
    kv_table *t;
    kv_status st = begin_read_modify_write(s, table, op->family, &t);
    if (st != KV_OK) return st;
    kv_buf *old = &s->rmw_value;   /* held by rmw_mu: no allocation a call */
    bool found;
    int64_t ts = INT64_MIN;
    result->len = 0;
    st = kv_read_newest(s, t, op->row, op->row_len, op->family, op->qualifier, op->qualifier_len,
                        &found, &ts, old);
    if (st == KV_OK) st = compute(s, op, found, old, result);
    if (st == KV_OK) {
        kv_mutation_one m;
        st = kv_mutation_one_row(&m, op->row, op->row_len);
        /* max(previous timestamp + 1, now), as HBase stamps increments and
           appends: a version at or after now would otherwise be replaced
           in place or hide the new value. */
        int64_t now = kv_engine_now(s);
        if (found && ts >= now && ts < INT64_MAX) now = ts + 1;
        if (st == KV_OK)
            st = kv_mutation_one_put(&m, op->family, op->qualifier, op->qualifier_len, now,
                                     result->data, result->len);
        kv_mutation *use = &m.m;
        if (st == KV_OK) st = kv_write_apply(s, t, &use, 1, NULL, op->durability);
        kv_mutation_one_done(&m);
    }
    release_rmw_value(s);
    end_read_modify_write(s);
    return st;
}

kv_status kv_engine_check_and_mutate(kv_engine *s, const char *table, const kv_check *check,
                                     const kv_mutation *m, kv_durability d, bool *applied) {
    *applied = false;
    kv_table *t;
    kv_status st = begin_read_modify_write(s, table, check->family, &t);
    if (st != KV_OK) return st;
    kv_buf *cur = &s->rmw_value;   /* held by rmw_mu: no allocation a call */
    bool found;
    int64_t ts;
    st = kv_read_newest(s, t, check->row, check->row_len, check->family, check->qualifier,
                        check->qualifier_len, &found, &ts, cur);
    bool pass = false;
    if (st == KV_OK) {
        if (!check->expected) pass = !found;
        else if (found)
            pass = kv_compare_passes(check->op, kv_key_compare(cur->data, cur->len, check->expected,
                                                               check->expected_len));
    }
    if (pass) {
        kv_mutation *c = kv_mutation_deletes_newest(m) ? kv_mutation_copy(m) : NULL;
        if (kv_mutation_deletes_newest(m) && !c) st = KV_NO_MEMORY;
        else if (c) st = resolve_newest(s, t, c);
        kv_mutation *use = c ? c : (kv_mutation *)m;
        if (st == KV_OK && use->nops > 0) st = kv_write_apply(s, t, &use, 1, NULL, d);
        if (st == KV_OK) *applied = true;
        kv_mutation_free(c);
    }
    release_rmw_value(s);
    end_read_modify_write(s);
    return st;
}
