/**
 * @file write.c
 * The write path: row mutations go through a queue of writers; the writer at
 * the head becomes the leader, takes a group of queued writers, gives every
 * cell a sequence number and every implicit timestamp a value, encodes the
 * group as one log record (batch.c), appends it to the write-ahead log
 * (wal.c; one fsync for all the group's FSYNC_WAL writers: group commit),
 * inserts the record into the family memstores, and only then publishes the
 * group's last sequence to readers, so no reader sees part of a row
 * mutation. A queued writer spins up to SPIN_NS for the leader to finish
 * before it sleeps on its condition variable. When the memstores are full
 * the leader switches them (flush.c) before it writes. Recovery (recovery.c) inserts replayed records through
 * the same insert code.
 */
#include "write.h"
#include "batch.h"
#include "errors.h"
#include "flush.h"
#include "tables.h"
#include "wal.h"
#include "hbase/keys.h"
#include "hbase/mutation.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A writer waiting in the queue. */
typedef struct kv_writer kv_writer;
struct kv_writer {
    kv_table *table;
    kv_mutation *const *ms;
    size_t n;
    kv_status *statuses;        /* per mutation, may be NULL */
    kv_durability durability;
    bool force_flush;
    bool done;
    kv_status status;           /* first failure */
    pthread_cond_t cv;          /* initialized only for a writer that
                                   queues behind another (cv_init): the
                                   head of an empty queue leads at once
                                   and is never signalled */
    bool cv_init;
    atomic_bool ready;          /* done, or at the head of the queue: set
                                   with the signal of cv, for a writer
                                   that spins before it sleeps */
    kv_writer *next;
};

#define GROUP_MAX_BYTES (1u << 20)
#define GROUP_MAX_WRITERS 256

/* ---- inserting records into memstores ---- */

typedef struct insert_ctx {
    kv_engine *s;
    kv_buf *key;                /* s->insert_key */
    int64_t max_ts;
    size_t bytes;
} insert_ctx;

/* Inserts one op into its family's active memstore. Ops of tables or
   families that no longer exist are skipped (they were dropped or
   truncated after being logged). */
static kv_status insert_op(void *arg, const kv_batch_op *op) {
    insert_ctx *c = arg;
    kv_engine *s = c->s;
    if (op->ts > c->max_ts) c->max_ts = op->ts;
    kv_family *f = kv_catalog_family_by_id(s, op->table_id, op->family_id);
    if (!f) return KV_OK;
    uint8_t kind = (op->type == KV_TYPE_DELETE_FAMILY || op->type == KV_TYPE_DELETE_FAMILY_VERSION)
                       ? KV_KIND_FAMILY_MARKER : KV_KIND_COLUMN;
    c->key->len = 0;
    if (kv_key_encode(c->key, op->row, op->row_len, kind, op->qualifier, op->qualifier_len, op->ts,
                      op->type, op->seq))
        return KV_NO_MEMORY;
    /* The memory the memstore takes for the op (its node, a new chunk's
       header, a larger row filter; the memstore itself when new): what
       the write buffer counts (kv_memstore_bytes). */
    size_t before = 0;
    if (!f->mem) {
        pthread_mutex_lock(&s->mu);
        if (!f->mem) f->mem = kv_memstore_new();
        pthread_mutex_unlock(&s->mu);
        if (!f->mem) return KV_NO_MEMORY;
    } else {
        before = kv_memstore_bytes(f->mem);
    }
    kv_status as = kv_memstore_add(f->mem, c->key->data, c->key->len, op->value, op->value_len);
    c->bytes += kv_memstore_bytes(f->mem) - before;
    if (as != KV_OK && as != KV_EXISTS) return as;
    return KV_OK;
}

kv_status kv_write_insert(kv_engine *s, const uint8_t *rec, size_t len, uint64_t *last_seq,
                          int64_t *max_ts, size_t *bytes) {
    insert_ctx c = {s, &s->insert_key, INT64_MIN, 0};
    kv_status st = kv_batch_decode(rec, len, insert_op, &c, last_seq);
    /* Do not keep a huge buffer around after one big key. */
    if (s->insert_key.cap > (64u << 10)) kv_buf_free(&s->insert_key);
    *max_ts = c.max_ts;
    *bytes = c.bytes;
    return st;
}

/* Rows of a group hinted to their memstores before the log is written. */
#define PREFETCH_ROWS 16

/* Starts loading what the insert of mutation m (of families fams, as
   kv_batch_add resolved them) will touch at once (the memstores' row
   filters: a cache miss a new row), while the group is encoded and the
   log's write(2) runs. A hint only. */
static void prefetch_row(kv_engine *s, const kv_mutation *m, kv_family *const *fams) {
    s->insert_key.len = 0;
    if (kv_key_encode_row(&s->insert_key, m->bytes.data, m->row_len)) return;
    for (size_t j = 0; j < m->nfamilies; j++)
        if (fams[j]->mem) kv_memstore_prefetch_row(fams[j]->mem, s->insert_key.data, s->insert_key.len);
}

/* ---- the queue ---- */

/* The bytes the active memstores may take while others are flushed: the
   memstores being flushed count against the budget too, so that both
   together stay within one and a half write buffers (issue 9: peak memory
   bounded by the configured buffers; a full active memstore beside a full
   one being flushed would be two). */
static size_t active_limit(const kv_engine *s) {
    size_t wbs = s->local.write_buffer_size;
    if (!s->flush_pending) return wbs;
    size_t budget = wbs + wbs / 2;
    size_t room = budget > s->imm_bytes ? budget - s->imm_bytes : 0;
    return room < wbs ? room : wbs;
}

/* Makes sure the memstores can take more writes (mu held, leader). */
static kv_status make_room(kv_engine *s, bool force) {
    size_t *mem_bytes = &s->mem_bytes;
    bool stalled = false;
    for (;;) {
        if (s->bg_error != KV_OK && s->flush_pending)
            return kv_fail_background(s, s->bg_error, "memstores are full and cannot be flushed");
        if (!force && *mem_bytes < active_limit(s)) return KV_OK;
        if (s->flush_pending) {
            if (!stalled && !force) s->write_stalls++;
            stalled = true;
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

/* Wakes writer w (mu held): a spinning writer sees ready, a sleeping one
   the signal. */
static void wake_writer(kv_writer *w) {
    atomic_store_explicit(&w->ready, true, memory_order_release);
    pthread_cond_signal(&w->cv);
}

static void finish_writer(kv_writer *w, kv_status st) {
    if (w->status == KV_OK) w->status = st;
    w->done = true;
    wake_writer(w);
}

/* How long a queued writer spins before it sleeps: a group of small
   writes is logged and inserted in a few microseconds, and a sleep and
   wake-up cost two futex calls and two context switches. */
#define SPIN_NS 20000

static void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* Waits up to SPIN_NS for w->ready, without mu. */
static void spin_until_ready(kv_writer *w) {
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        for (int i = 0; i < 64; i++) {
            if (atomic_load_explicit(&w->ready, memory_order_acquire)) return;
            cpu_relax();
        }
        clock_gettime(CLOCK_MONOTONIC, &t);
        if ((t.tv_sec - t0.tv_sec) * 1000000000LL + (t.tv_nsec - t0.tv_nsec) > SPIN_NS) return;
    }
}

/* The leader's work for one group [first .. last]; mu held on entry and
   exit, released while logging and inserting. */
static void lead_group(kv_engine *s, kv_writer *first, kv_writer *last) {
    kv_buf *rec = &s->leader_record;
    rec->len = 0;
    uint64_t first_seq = s->last_seq + 1, nops = 0;
    int64_t now = kv_clock_now(s);
    if (now < s->clock_floor) now = s->clock_floor;
    bool deleted_implicitly = false, log = false, sync = false, locked = false;
    uint32_t nmut = 0;
    /* The log refuses records after a failed append (a full disk): try a
       new one first, so that the first write after space returns works. */
    if (kv_wal_failed(s->wal) && !s->flush_pending && kv_switch_memstores(s) == KV_OK)
        s->mem_bytes = 0;
    pthread_mutex_unlock(&s->mu);

    kv_status st = kv_batch_begin(rec, first_seq) ? KV_NO_MEMORY : KV_OK;
    kv_family *fams[KV_BATCH_MAX_FAMILIES];
    for (kv_writer *w = first; st == KV_OK; w = w->next) {
        for (size_t i = 0; i < w->n; i++) {
            kv_status ms = kv_batch_add(s, rec, w->table, w->ms[i], now, &deleted_implicitly, &nops,
                                        fams);
            if (w->statuses) w->statuses[i] = ms;
            if (ms != KV_OK && w->status == KV_OK) w->status = ms;
            if (ms == KV_OK && nmut++ < PREFETCH_ROWS) prefetch_row(s, w->ms[i], fams);
        }
        if (w->durability != KV_SKIP_WAL) log = true;
        if (w->durability == KV_FSYNC_WAL) sync = true;
        if (w == last) break;
    }
    kv_batch_set_count(rec, nmut);
    if (st == KV_OK && nmut > 0) {
        char err[256];   /* set by a failing append or sync */
        err[0] = 0;
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
            st = kv_write_insert(s, rec->data, rec->len, &last_seq, &max_ts, &bytes);
            if (st != KV_OK) kv_fail(s, st, "inserting into memstore failed");
            pthread_mutex_lock(&s->mu);   /* held on to the end */
            locked = true;
            s->mem_bytes += bytes;
            s->last_seq = first_seq + nops - 1;
            if (deleted_implicitly && now + 1 > s->clock_floor) s->clock_floor = now + 1;
            else if (now > s->clock_floor) s->clock_floor = now;
            /* release: a reader that loads the new sequence sees the
               inserts above */
            atomic_store_explicit(&s->visible_seq, s->last_seq, memory_order_release);
        }
    }
    if (!locked) pthread_mutex_lock(&s->mu);
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

/* Destroys w's condition variable if enqueue made one. */
static void writer_done(kv_writer *w) {
    if (w->cv_init) pthread_cond_destroy(&w->cv);
}

static kv_status enqueue(kv_engine *s, kv_writer *w) {
    pthread_mutex_lock(&s->mu);
    if (s->queue_tail) s->queue_tail->next = w;
    else s->queue_head = w;
    s->queue_tail = w;
    if (s->queue_head != w) {
        /* a leader will signal it (finish_writer, or the hand-over) */
        pthread_cond_init(&w->cv, NULL);
        w->cv_init = true;
    }
    if (!w->done && s->queue_head != w) {
        /* Another leader's group is being written: spin a little first. */
        pthread_mutex_unlock(&s->mu);
        spin_until_ready(w);
        pthread_mutex_lock(&s->mu);
    }
    while (!w->done && s->queue_head != w) pthread_cond_wait(&w->cv, &s->mu);
    if (w->done) {
        pthread_mutex_unlock(&s->mu);
        writer_done(w);
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
    else wake_writer(s->queue_head);
    if (w->force_flush && st == KV_OK) {
        while (s->flush_pending && s->bg_error == KV_OK) pthread_cond_wait(&s->bg_cv, &s->mu);
        /* bg_error also reports a flush whose files were written but whose
           manifest was not (flush_pending is then already false). */
        if (s->bg_error != KV_OK) st = w->status = kv_fail_background(s, s->bg_error, "flush failed");
    }
    pthread_mutex_unlock(&s->mu);
    writer_done(w);
    return w->status;
}

kv_status kv_write_apply(kv_engine *s, kv_table *t, kv_mutation *const *ms, size_t n,
                         kv_status *statuses, kv_durability d) {
    kv_writer w = {0};
    w.table = t;
    w.ms = ms;
    w.n = n;
    w.statuses = statuses;
    if (t->attrs.n) d = kv_tattrs_durability(&t->attrs, d);   /* none: d as given */
    w.durability = d == KV_DURABILITY_DEFAULT ? KV_SYNC_WAL : d;
    return enqueue(s, &w);
}

kv_status kv_write_flush(kv_engine *s) {
    kv_writer w = {0};
    w.force_flush = true;
    return enqueue(s, &w);
}
