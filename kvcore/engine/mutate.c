/**
 * @file mutate.c
 * The public write calls of the engine: row mutations and batches (handed
 * to the write queue, write.c), and the read-modify-write calls
 * (increment, append, check-and-mutate, and deletes of "the newest
 * version"), which read the current value (read.c) and write under the
 * store's rmw_mu so that each sees the previous one.
 */
#include "errors.h"
#include "read.h"
#include "tables.h"
#include "write.h"
#include "hbase/keys.h"
#include "hbase/mutation.h"

#include <stdlib.h>
#include <string.h>

/* ---- writes ---- */

/* Resolves a table for writing (catalog_lock held shared). */
static kv_status writable_table(kv_store *s, const char *table, kv_table **out) {
    if (s->read_only) return kv_fail(s, KV_READ_ONLY, "store is open read-only");
    kv_table *t = kv_catalog_find(s, table);
    if (!t) return kv_fail(s, KV_NOT_FOUND, "table '%s' does not exist", table ? table : "(null)");
    if (!t->enabled) return kv_fail(s, KV_DISABLED, "table '%s' is disabled", table);
    *out = t;
    return KV_OK;
}

/* Turns "delete the newest version" into a delete at that version's
   timestamp (rmw_mu held). Ops with no version left are dropped. */
static kv_status resolve_newest(kv_store *s, kv_table *t, kv_mutation *m) {
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

kv_status kv_mutate_batch(kv_store *s, const char *table, kv_mutation *const *ms, size_t count,
                          kv_status *statuses, const kv_write_options *wopts) {
    if (!s || (!ms && count)) return KV_INVALID;
    for (size_t i = 0; i < count; i++)
        if (!ms[i]) return KV_INVALID;
    if (wopts && kv_check_version(s, "kv_write_options", wopts->version, KV_WRITE_OPTIONS_VERSION))
        return KV_INVALID;
    kv_durability d = wopts ? wopts->durability : KV_DURABILITY_DEFAULT;
    pthread_rwlock_rdlock(&s->catalog_lock);
    kv_table *t;
    kv_status st = writable_table(s, table, &t);
    if (st != KV_OK) {
        for (size_t i = 0; statuses && i < count; i++) statuses[i] = st;
        pthread_rwlock_unlock(&s->catalog_lock);
        return st;
    }
    bool rmw = false;
    for (size_t i = 0; i < count && !rmw; i++) rmw = kv_mutation_deletes_newest(ms[i]);
    if (!rmw) {
        st = kv_write_apply(s, t, ms, count, statuses, d);
    } else {
        pthread_mutex_lock(&s->rmw_mu);
        st = KV_OK;
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
    }
    pthread_rwlock_unlock(&s->catalog_lock);
    return st;
}

kv_status kv_mutate(kv_store *s, const char *table, const kv_mutation *m, const kv_write_options *wopts) {
    if (!m) return KV_INVALID;
    kv_mutation *one = (kv_mutation *)m;
    return kv_mutate_batch(s, table, &one, 1, NULL, wopts);
}

kv_status kv_put(kv_store *s, const char *table, const void *row, size_t row_len, const char *family,
                 const void *qualifier, size_t qualifier_len, int64_t ts, const void *value,
                 size_t value_len, const kv_write_options *wopts) {
    kv_mutation *m;
    kv_status st = kv_mutation_new(&m, row, row_len);
    if (st != KV_OK) return kv_fail(s, st, "bad row key (%zu bytes)", row_len);
    st = kv_mutation_put(m, family, qualifier, qualifier_len, ts, value, value_len);
    if (st == KV_OK) st = kv_mutate(s, table, m, wopts);
    kv_mutation_free(m);
    return st;
}

/* ---- read-modify-write ---- */

/* Takes the locks of a read-modify-write call and resolves its table and
   family; on success the caller ends with end_read_modify_write. */
static kv_status begin_read_modify_write(kv_store *s, const char *table, const char *family,
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

static void end_read_modify_write(kv_store *s) {
    pthread_mutex_unlock(&s->rmw_mu);
    pthread_rwlock_unlock(&s->catalog_lock);
}

typedef kv_status (*rmw_fn)(kv_store *s, bool found, const kv_buf *old, kv_buf *out, void *ctx);

/* Reads the newest value of one cell, lets fn compute the new one, and
   writes it, atomically with respect to other such calls. When written is
   non-NULL the new value is moved there on success. */
static kv_status read_modify_write(kv_store *s, const char *table, const void *row, size_t row_len,
                                   const char *family, const void *q, size_t qlen, rmw_fn fn,
                                   void *ctx, const kv_write_options *wopts, kv_buf *written) {
    if (!s || !row || !family) return KV_INVALID;
    if (wopts && kv_check_version(s, "kv_write_options", wopts->version, KV_WRITE_OPTIONS_VERSION))
        return KV_INVALID;
    kv_durability d = wopts ? wopts->durability : KV_DURABILITY_DEFAULT;
    kv_table *t;
    kv_status st = begin_read_modify_write(s, table, family, &t);
    if (st != KV_OK) return st;
    kv_buf old = {0}, val = {0};
    bool found;
    int64_t ts = INT64_MIN;
    st = kv_read_newest(s, t, row, row_len, family, q, qlen, &found, &ts, &old);
    if (st == KV_OK) st = fn(s, found, &old, &val, ctx);
    if (st == KV_OK) {
        kv_mutation *m;
        st = kv_mutation_new(&m, row, row_len);
        /* A newer-than-now existing version would hide the new value. */
        int64_t now = kv_store_now(s);
        if (found && ts > now) now = ts;
        if (st == KV_OK) st = kv_mutation_put(m, family, q, qlen, now, val.data, val.len);
        if (st == KV_OK) st = kv_write_apply(s, t, &m, 1, NULL, d);
        kv_mutation_free(m);
    }
    end_read_modify_write(s);
    kv_buf_free(&old);
    if (st == KV_OK && written) {
        *written = val;
        val = (kv_buf){0};
    }
    kv_buf_free(&val);
    return st;
}

typedef struct { int64_t delta, result; } incr_ctx;

static kv_status do_increment(kv_store *s, bool found, const kv_buf *old, kv_buf *out, void *ctx) {
    incr_ctx *c = ctx;
    int64_t v = 0;
    if (found) {
        if (old->len != 8)
            return kv_fail(s, KV_NOT_COUNTER, "field is not a long, it's %zu bytes wide", old->len);
        v = (int64_t)kv_get_be64(old->data);
    }
    v = (int64_t)((uint64_t)v + (uint64_t)c->delta);
    c->result = v;
    uint8_t b[8];
    kv_put_be64(b, (uint64_t)v);
    return kv_buf_append(out, b, 8) ? KV_NO_MEMORY : KV_OK;
}

kv_status kv_increment(int64_t *result, kv_store *s, const char *table, const void *row, size_t row_len,
                       const char *family, const void *qualifier, size_t qualifier_len, int64_t delta,
                       const kv_write_options *wopts) {
    incr_ctx c = {delta, 0};
    kv_status st = read_modify_write(s, table, row, row_len, family, qualifier, qualifier_len,
                                     do_increment, &c, wopts, NULL);
    if (st == KV_OK && result) *result = c.result;
    return st;
}

typedef struct { const void *data; size_t len; } append_ctx;

static kv_status do_append(kv_store *s, bool found, const kv_buf *old, kv_buf *out, void *ctx) {
    (void)s;
    append_ctx *c = ctx;
    if ((found && kv_buf_append(out, old->data, old->len)) || kv_buf_append(out, c->data, c->len))
        return KV_NO_MEMORY;
    return KV_OK;
}

kv_status kv_append(void **result, size_t *result_len, kv_store *s, const char *table,
                    const void *row, size_t row_len, const char *family, const void *qualifier,
                    size_t qualifier_len, const void *data, size_t data_len,
                    const kv_write_options *wopts) {
    if (result) *result = NULL;
    if (result_len) *result_len = 0;
    if (data_len && !data) return KV_INVALID;
    append_ctx c = {data, data_len};
    kv_buf value = {0};
    kv_status st = read_modify_write(s, table, row, row_len, family, qualifier, qualifier_len,
                                     do_append, &c, wopts, result ? &value : NULL);
    if (st == KV_OK && result) {
        /* an empty value still gets a buffer, so that success is non-NULL */
        if (!value.data && kv_buf_reserve(&value, 1)) return KV_NO_MEMORY;
        *result = value.data;
        if (result_len) *result_len = value.len;
    }
    return st;
}

kv_status kv_check_and_mutate(bool *applied, kv_store *s, const char *table, const void *row,
                              size_t row_len, const char *family, const void *qualifier,
                              size_t qualifier_len, kv_compare_op op, const void *expected,
                              size_t expected_len, const kv_mutation *m,
                              const kv_write_options *wopts) {
    *applied = false;
    if (!s || !row || !family || !m) return KV_INVALID;
    if (m->row_len != row_len || memcmp(m->bytes.data, row, row_len) != 0)
        return kv_fail(s, KV_INVALID, "check-and-mutate: the mutation is for another row");
    if (wopts && kv_check_version(s, "kv_write_options", wopts->version, KV_WRITE_OPTIONS_VERSION))
        return KV_INVALID;
    kv_durability d = wopts ? wopts->durability : KV_DURABILITY_DEFAULT;
    kv_table *t;
    kv_status st = begin_read_modify_write(s, table, family, &t);
    if (st != KV_OK) return st;
    kv_buf cur = {0};
    bool found;
    int64_t ts;
    st = kv_read_newest(s, t, row, row_len, family, qualifier, qualifier_len, &found, &ts, &cur);
    bool pass = false;
    if (st == KV_OK) {
        if (!expected) pass = !found;
        else if (found) pass = kv_compare_passes(op, kv_key_compare(cur.data, cur.len, expected, expected_len));
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
    end_read_modify_write(s);
    kv_buf_free(&cur);
    return st;
}

