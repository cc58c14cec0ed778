/**
 * @file write.c
 * The write path: row mutations go through a queue of writers; the writer at
 * the head becomes the leader, takes a group of queued writers, gives every
 * cell a sequence number and every implicit timestamp a value, appends the
 * group to the write-ahead log as one record (one fsync for all the
 * group's FSYNC_WAL writers: group commit), inserts the record into the
 * family memstores, and only then publishes the group's last sequence to
 * readers, so no reader sees part of a row mutation.
 * Recovery replays log records through the same insert code.
 * Record layout: doc/log_format.md ("Batch payload").
 */
#include "store_internal.h"
#include "keys.h"

#include <stdlib.h>
#include <string.h>

struct kv_writer {
    kv_table *table;
    kv_mutation *const *ms;
    size_t n;
    kv_status *statuses;        /* per mutation, may be NULL */
    kv_durability durability;
    bool force_flush;
    bool done;
    kv_status status;           /* first failure */
    pthread_cond_t cv;
    kv_writer *next;
};

#define GROUP_MAX_BYTES (1u << 20)
#define GROUP_MAX_WRITERS 256

/* ---- record encoding ---- */

static int put_u32(kv_buf *b, uint32_t v) {
    uint8_t x[4];
    kv_put_le32(x, v);
    return kv_buf_append(b, x, 4);
}

static int put_u64(kv_buf *b, uint64_t v) {
    uint8_t x[8];
    kv_put_le64(x, v);
    return kv_buf_append(b, x, 8);
}

static int put_bytes(kv_buf *b, const void *p, size_t n) {
    return kv_buf_append_varint64(b, n) || kv_buf_append(b, p, n);
}

static int put_op(kv_buf *b, uint32_t family_id, kv_cell_type type, int64_t ts, const void *q,
                  size_t qlen, const void *v, size_t vlen) {
    uint8_t t = (uint8_t)type;
    return put_u32(b, family_id) || kv_buf_append(b, &t, 1) || put_u64(b, (uint64_t)ts) ||
           put_bytes(b, q, qlen) || put_bytes(b, v, vlen);
}

/* Encodes mutation m of table t into b, resolving implicit timestamps to
   now. Counts ops into *nops. Returns KV_OK or the mutation's failure
   (nothing of it is then in b). */
static kv_status encode_mutation(kv_store *s, kv_buf *b, kv_table *t, const kv_mutation *m,
                                 int64_t now, bool *deleted_implicitly, uint64_t *nops) {
    if (m->nops == 0) return KV_INVALID;
    kv_family *fam[64];
    if (m->nfamilies > 64)
        return kv_fail(s, KV_INVALID, "a mutation may touch at most 64 families, not %zu", m->nfamilies);
    for (size_t i = 0; i < m->nfamilies; i++) {
        fam[i] = kv_table_family(t, m->families[i]);
        if (!fam[i]) {
            kv_fail(s, KV_NO_FAMILY, "table %s:%s has no column family '%s'", t->ns, t->name,
                    m->families[i]);
            return KV_NO_FAMILY;
        }
    }
    size_t mark = b->len;
    uint64_t count = 0;
    for (size_t i = 0; i < m->nops; i++) {
        const kv_op *op = &m->ops[i];
        if (op->vlen > s->opts.max_value_size) {
            b->len = mark;
            kv_fail(s, KV_TOO_LARGE, "value of %u bytes is above the limit of %zu bytes", op->vlen,
                    s->opts.max_value_size);
            return KV_TOO_LARGE;
        }
        count += op->whole_row ? t->nfamilies : 1;
    }
    if (put_u32(b, t->id) || put_bytes(b, m->bytes.data, m->row_len) ||
        kv_buf_append_varint64(b, count))
        goto nomem;
    for (size_t i = 0; i < m->nops; i++) {
        const kv_op *op = &m->ops[i];
        int64_t ts = op->ts;
        if (ts == KV_LATEST_TIMESTAMP) {
            ts = now;
            if (op->type != KV_TYPE_PUT) *deleted_implicitly = true;
        }
        const uint8_t *q = m->bytes.data + op->qoff, *v = m->bytes.data + op->voff;
        if (op->whole_row) {
            for (size_t f = 0; f < t->nfamilies; f++)
                if (put_op(b, t->families[f]->id, op->type, ts, NULL, 0, NULL, 0)) goto nomem;
        } else if (put_op(b, fam[op->family_index]->id, op->type, ts, q, op->qlen, v, op->vlen)) {
            goto nomem;
        }
    }
    *nops += count;
    return KV_OK;
nomem:
    b->len = mark;
    return KV_NO_MEMORY;
}

/* ---- inserting records into memstores ---- */

static kv_family *family_by_id(kv_store *s, uint32_t table_id, uint32_t family_id) {
    for (size_t i = 0; i < s->ntables; i++) {
        kv_table *t = s->tables[i];
        if (t->id != table_id) continue;
        for (size_t f = 0; f < t->nfamilies; f++)
            if (t->families[f]->id == family_id) return t->families[f];
        return NULL;
    }
    return NULL;
}

static const uint8_t *get_u32(const uint8_t *p, const uint8_t *end, uint32_t *v) {
    if (!p || end - p < 4) return NULL;
    *v = kv_get_le32(p);
    return p + 4;
}

static const uint8_t *get_u64(const uint8_t *p, const uint8_t *end, uint64_t *v) {
    if (!p || end - p < 8) return NULL;
    *v = kv_get_le64(p);
    return p + 8;
}

static const uint8_t *get_bytes(const uint8_t *p, const uint8_t *end, const uint8_t **out,
                                size_t *len) {
    uint64_t n;
    if (!p || !(p = kv_get_varint64(p, end, &n)) || (uint64_t)(end - p) < n) return NULL;
    *out = p;
    *len = (size_t)n;
    return p + n;
}

static bool valid_type(uint8_t t) {
    return t == KV_TYPE_PUT || t == KV_TYPE_DELETE || t == KV_TYPE_DELETE_COLUMN ||
           t == KV_TYPE_DELETE_FAMILY || t == KV_TYPE_DELETE_FAMILY_VERSION;
}

/* Inserts one record. Cells of tables or families that no longer exist are
   skipped (they were dropped or truncated after being logged). Also
   reports the largest sequence and timestamp seen. */
static kv_status insert_record(kv_store *s, const uint8_t *rec, size_t len, uint64_t *last_seq,
                               int64_t *max_ts, size_t *bytes) {
    const uint8_t *p = rec, *end = rec + len;
    uint64_t seq;
    uint32_t nmut;
    kv_buf key = {0};
    kv_status st = KV_OK;
    p = get_u32(get_u64(p, end, &seq), end, &nmut);
    if (!p) return KV_CORRUPT;
    for (uint32_t i = 0; i < nmut && st == KV_OK; i++) {
        uint32_t table_id;
        const uint8_t *row;
        size_t row_len;
        uint64_t nops;
        p = get_u32(p, end, &table_id);
        p = get_bytes(p, end, &row, &row_len);
        if (!p || !(p = kv_get_varint64(p, end, &nops))) { st = KV_CORRUPT; break; }
        for (uint64_t k = 0; k < nops; k++) {
            uint32_t family_id;
            uint64_t ts;
            const uint8_t *q, *v;
            size_t qlen, vlen;
            p = get_u32(p, end, &family_id);
            if (!p || p >= end || !valid_type(*p)) { st = KV_CORRUPT; break; }
            kv_cell_type type = (kv_cell_type)*p++;
            p = get_bytes(get_bytes(get_u64(p, end, &ts), end, &q, &qlen), end, &v, &vlen);
            if (!p) { st = KV_CORRUPT; break; }
            uint64_t this_seq = seq++;
            if ((int64_t)ts > *max_ts) *max_ts = (int64_t)ts;
            kv_family *f = family_by_id(s, table_id, family_id);
            if (!f) continue;
            uint8_t kind = (type == KV_TYPE_DELETE_FAMILY || type == KV_TYPE_DELETE_FAMILY_VERSION)
                               ? KV_KIND_FAMILY_MARKER : KV_KIND_COLUMN;
            key.len = 0;
            if (kv_key_encode(&key, row, row_len, kind, q, qlen, (int64_t)ts, type, this_seq)) {
                st = KV_NO_MEMORY;
                break;
            }
            if (!f->mem) {
                pthread_mutex_lock(&s->mu);
                if (!f->mem) f->mem = kv_memstore_new();
                pthread_mutex_unlock(&s->mu);
                if (!f->mem) { st = KV_NO_MEMORY; break; }
            }
            kv_status as = kv_memstore_add(f->mem, key.data, key.len, v, vlen);
            if (as != KV_OK && as != KV_EXISTS) { st = as; break; }
            *bytes += key.len + vlen + 32;
        }
    }
    if (st == KV_OK) *last_seq = seq - 1;
    kv_buf_free(&key);
    return st;
}

kv_status kv_write_replay(kv_store *s, const uint8_t *rec, size_t len) {
    uint64_t last = 0;
    int64_t max_ts = INT64_MIN;
    size_t bytes = 0;
    kv_status st = insert_record(s, rec, len, &last, &max_ts, &bytes);
    if (st != KV_OK) return st;
    /* Counted like live writes, so that the flush at open (and kv_flush)
       sees the replayed cells and switches them out. */
    s->mem_bytes += bytes;
    if (last > s->last_seq) s->last_seq = last;
    if (max_ts != INT64_MAX && max_ts >= s->clock_floor) s->clock_floor = max_ts;
    atomic_store(&s->visible_seq, s->last_seq);
    return KV_OK;
}

/* ---- the queue ---- */

/* Makes sure the memstores can take more writes (mu held, leader). */
static kv_status make_room(kv_store *s, bool force) {
    size_t *mem_bytes = &s->mem_bytes;
    for (;;) {
        if (s->bg_error != KV_OK && s->flush_pending)
            return kv_fail_background(s, s->bg_error, "memstores are full and cannot be flushed");
        if (!force && *mem_bytes < s->opts.write_buffer_size) return KV_OK;
        if (s->flush_pending) {
            pthread_cond_wait(&s->bg_cv, &s->mu);
            continue;
        }
        if (force && *mem_bytes == 0) return KV_OK;
        kv_status st = kv_switch_memstores(s);
        if (st != KV_OK) return st;
        *mem_bytes = 0;
        return KV_OK;
    }
}

static void finish_writer(kv_writer *w, kv_status st) {
    if (w->status == KV_OK) w->status = st;
    w->done = true;
    pthread_cond_signal(&w->cv);
}

/* The leader's work for one group [first .. last]; mu held on entry and
   exit, released while logging and inserting. */
static void lead_group(kv_store *s, kv_writer *first, kv_writer *last) {
    kv_buf *rec = &s->leader_record;
    rec->len = 0;
    uint64_t first_seq = s->last_seq + 1, nops = 0;
    int64_t now = kv_clock_now(s);
    if (now < s->clock_floor) now = s->clock_floor;
    bool deleted_implicitly = false, log = false, sync = false;
    uint32_t nmut = 0;
    /* The log refuses records after a failed append (a full disk): try a
       new one first, so that the first write after space returns works. */
    if (kv_wal_failed(s->wal) && !s->flush_pending && kv_switch_memstores(s) == KV_OK)
        s->mem_bytes = 0;
    pthread_mutex_unlock(&s->mu);

    put_u64(rec, first_seq);
    put_u32(rec, 0);
    for (kv_writer *w = first;; w = w->next) {
        for (size_t i = 0; i < w->n; i++) {
            kv_status st = encode_mutation(s, rec, w->table, w->ms[i], now, &deleted_implicitly,
                                           &nops);
            if (w->statuses) w->statuses[i] = st;
            if (st != KV_OK && w->status == KV_OK) w->status = st;
            if (st == KV_OK) nmut++;
        }
        if (w->durability != KV_SKIP_WAL) log = true;
        if (w->durability == KV_FSYNC_WAL) sync = true;
        if (w == last) break;
    }
    kv_status st = KV_OK;
    if (rec->len >= 12) kv_put_le32(rec->data + 8, nmut);
    if (nmut > 0) {
        char err[256] = "";
        if (log) st = kv_wal_append(s->wal, rec->data, rec->len, err, sizeof err);
        if (st == KV_OK && sync) st = kv_wal_sync(s->wal, err, sizeof err);
        if (st != KV_OK) {
            kv_fail(s, st, "write-ahead log: %s", err);
            /* The log may hold part of the record: switch to a new log so
               later records do not follow a torn one. */
        } else {
            uint64_t last_seq = first_seq - 1;
            int64_t max_ts = INT64_MIN;
            size_t bytes = 0;
            st = insert_record(s, rec->data, rec->len, &last_seq, &max_ts, &bytes);
            if (st != KV_OK) kv_fail(s, st, "inserting into memstore failed");
            pthread_mutex_lock(&s->mu);
            s->mem_bytes += bytes;
            s->last_seq = first_seq + nops - 1;
            if (deleted_implicitly && now + 1 > s->clock_floor) s->clock_floor = now + 1;
            else if (now > s->clock_floor) s->clock_floor = now;
            atomic_store(&s->visible_seq, s->last_seq);
            pthread_mutex_unlock(&s->mu);
        }
    }
    pthread_mutex_lock(&s->mu);
    if (st != KV_OK && nmut > 0 && log) {
        /* A failed append may have left a torn tail: start a new log. */
        if (!s->flush_pending && kv_switch_memstores(s) == KV_OK) s->mem_bytes = 0;
    }
    for (kv_writer *w = first;; w = w->next) {
        bool end = w == last;
        if (st != KV_OK && w->statuses)
            for (size_t i = 0; i < w->n; i++)
                if (w->statuses[i] == KV_OK) w->statuses[i] = st;
        if (w != first) finish_writer(w, st);
        else if (w->status == KV_OK) w->status = st;
        if (end) break;
    }
}

static kv_status enqueue(kv_store *s, kv_writer *w) {
    pthread_cond_init(&w->cv, NULL);
    pthread_mutex_lock(&s->mu);
    if (s->queue_tail) s->queue_tail->next = w;
    else s->queue_head = w;
    s->queue_tail = w;
    while (!w->done && s->queue_head != w) pthread_cond_wait(&w->cv, &s->mu);
    if (w->done) {
        pthread_mutex_unlock(&s->mu);
        pthread_cond_destroy(&w->cv);
        return w->status;
    }
    /* Leader. */
    kv_status st = make_room(s, w->force_flush);
    kv_writer *last = w;
    if (st != KV_OK) {
        w->status = st;
        if (w->statuses)
            for (size_t i = 0; i < w->n; i++) w->statuses[i] = st;
    } else if (!w->force_flush) {
        size_t bytes = 0, count = 1;
        for (kv_writer *x = w->next; x && count < GROUP_MAX_WRITERS && bytes < GROUP_MAX_BYTES;
             x = x->next) {
            if (x->force_flush) break;
            for (size_t i = 0; i < x->n; i++) bytes += x->ms[i]->bytes.len;
            last = x;
            count++;
        }
        lead_group(s, w, last);
    }
    /* Pop the group and hand leadership on. */
    s->queue_head = last->next;
    if (!s->queue_head) s->queue_tail = NULL;
    else pthread_cond_signal(&s->queue_head->cv);
    if (w->force_flush && st == KV_OK) {
        while (s->flush_pending && s->bg_error == KV_OK) pthread_cond_wait(&s->bg_cv, &s->mu);
        /* bg_error also reports a flush whose files were written but whose
           manifest was not (flush_pending is then already false). */
        if (s->bg_error != KV_OK) st = w->status = kv_fail_background(s, s->bg_error, "flush failed");
    }
    pthread_mutex_unlock(&s->mu);
    pthread_cond_destroy(&w->cv);
    return w->status;
}

kv_status kv_write_apply(kv_store *s, kv_table *t, kv_mutation *const *ms, size_t n,
                         kv_status *statuses, kv_durability d) {
    kv_writer w = {0};
    w.table = t;
    w.ms = ms;
    w.n = n;
    w.statuses = statuses;
    w.durability = d == KV_DURABILITY_DEFAULT ? KV_SYNC_WAL : d;
    return enqueue(s, &w);
}

kv_status kv_write_flush(kv_store *s) {
    kv_writer w = {0};
    w.force_flush = true;
    return enqueue(s, &w);
}
