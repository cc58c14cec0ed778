/*
 * cache.c: the block cache (contract in cache.h). A fixed set of shards,
 * picked by a hash of (file, offset), each an LRU under its own mutex with
 * a chained hash table and two recency lists: normal and high priority.
 * Eviction takes the least recently used normal entry, and a high-priority
 * (IN_MEMORY) entry only when no normal entry is left in the shard.
 *
 * Shard count: 16 for budgets of at least 16 MiB, fewer (down to one) for
 * small budgets so that each shard still holds at least 1 MiB; a block
 * larger than its shard's budget is not kept (its handle still works).
 *
 * Reference counting: an entry in the table holds one reference; every
 * handle given out holds one more. Eviction (budget, replacement,
 * erase_file) unlinks the entry and drops the table's reference; the data is
 * freed when the last reference goes. Usage counts only linked entries.
 * The count is atomic: references are taken under the shard's mutex (a
 * lookup finds the entry linked), but a release drops its one without
 * the lock (a reader takes the mutex once per block, not twice): only an
 * unlinked entry can reach zero, and whoever drops the last frees it.
 *
 * Called by sst_read.c (and the store for stats); calls pthreads only.
 */
#include "cache.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SHARD_BITS 4
#define MIN_SHARD_BYTES ((size_t)1 << 20)

typedef struct entry {
    struct entry *hnext;         /* hash chain */
    struct entry *prev, *next;   /* recency list, when linked */
    uint64_t file, offset;
    uint64_t hash;
    void *data;
    size_t size, charge;
    atomic_uint refs;            /* the table's one + one per handle */
    bool linked;                 /* in the table and a list */
    bool high;                   /* high-priority list */
} entry;

typedef struct shard {
    pthread_mutex_t mu;
    size_t capacity;             /* immutable after creation */
    size_t usage;                /* GUARDED_BY(mu): charges of linked entries */
    entry low, high;             /* GUARDED_BY(mu): list heads; next = oldest */
    entry **table;               /* GUARDED_BY(mu) */
    size_t buckets, count;       /* GUARDED_BY(mu) */
} shard;

struct kv_cache {
    unsigned shard_bits;
    unsigned nshards;
    shard shards[];
};

static uint64_t mix_key(uint64_t file, uint64_t offset) {
    uint64_t x = file * 0x9E3779B97F4A7C15ull ^ offset;
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 31;
    return x;
}

static shard *shard_of(kv_cache *c, uint64_t hash) {
    return &c->shards[c->shard_bits ? hash >> (64 - c->shard_bits) : 0];
}

static void list_init(entry *head) {
    head->prev = head->next = head;
}

static void list_remove(entry *e) {
    e->prev->next = e->next;
    e->next->prev = e->prev;
    e->prev = e->next = NULL;
}

/* Appends at the most-recent end (just before head). */
static void list_append(entry *head, entry *e) {
    e->next = head;
    e->prev = head->prev;
    e->prev->next = e;
    head->prev = e;
}

static entry **bucket_find(shard *s, uint64_t hash, uint64_t file, uint64_t offset) {
    entry **pp = &s->table[hash & (s->buckets - 1)];
    while (*pp && ((*pp)->file != file || (*pp)->offset != offset))
        pp = &(*pp)->hnext;
    return pp;
}

/* Doubles the table; on out-of-memory keeps the old (longer chains). */
static void table_grow(shard *s) {
    size_t nb = s->buckets * 2;
    entry **nt = calloc(nb, sizeof *nt);
    if (!nt)
        return;
    for (size_t i = 0; i < s->buckets; i++) {
        entry *e = s->table[i];
        while (e) {
            entry *next = e->hnext;
            entry **slot = &nt[e->hash & (nb - 1)];
            e->hnext = *slot;
            *slot = e;
            e = next;
        }
    }
    free(s->table);
    s->table = nt;
    s->buckets = nb;
}

/* A buffer of an evicted entry handed back for reuse (kv_cache_insert_reuse):
   spare NULL, or it is the place for one and holds none yet. */
typedef struct spare {
    void **data;
    size_t *charge;
} spare;

/* Drops a reference; the last one frees e, and e's data too unless sp
   takes it. */
static void entry_unref_to(entry *e, spare *sp) {
    if (atomic_fetch_sub_explicit(&e->refs, 1, memory_order_acq_rel) == 1) {
        if (sp && sp->data && !*sp->data) {
            *sp->data = e->data;
            *sp->charge = e->charge;
        } else {
            free(e->data);
        }
        free(e);
    }
}

static void entry_unref(entry *e) {
    entry_unref_to(e, NULL);
}

/* Unlinks e from the table and its list and drops the table's reference
   (sp: as for entry_unref_to). */
static void shard_unlink_to(shard *s, entry *e, spare *sp) {
    entry **pp = bucket_find(s, e->hash, e->file, e->offset);
    if (*pp == e)
        *pp = e->hnext;
    e->hnext = NULL;
    list_remove(e);
    e->linked = false;
    s->usage -= e->charge;
    s->count--;
    entry_unref_to(e, sp);
}

static void shard_unlink(shard *s, entry *e) {
    shard_unlink_to(s, e, NULL);
}

static void shard_evict(shard *s, spare *sp) {
    while (s->usage > s->capacity) {
        entry *victim;
        if (s->low.next != &s->low)
            victim = s->low.next;
        else if (s->high.next != &s->high)
            victim = s->high.next;
        else
            break;
        shard_unlink_to(s, victim, sp);
    }
}

kv_cache *kv_cache_new(size_t capacity) {
    unsigned bits = 0;
    while (bits < MAX_SHARD_BITS && capacity >> (bits + 1) >= MIN_SHARD_BYTES)
        bits++;
    unsigned n = 1u << bits;
    kv_cache *c = calloc(1, sizeof *c + n * sizeof(shard));
    if (!c)
        return NULL;
    c->shard_bits = bits;
    c->nshards = n;
    for (unsigned i = 0; i < n; i++) {
        shard *s = &c->shards[i];
        s->capacity = capacity / n + (i < capacity % n ? 1 : 0);
        list_init(&s->low);
        list_init(&s->high);
        s->buckets = 64;
        s->table = calloc(s->buckets, sizeof *s->table);
        if (!s->table || pthread_mutex_init(&s->mu, NULL) != 0) {
            free(s->table);
            for (unsigned j = 0; j < i; j++) {
                free(c->shards[j].table);
                pthread_mutex_destroy(&c->shards[j].mu);
            }
            free(c);
            return NULL;
        }
    }
    return c;
}

void kv_cache_free(kv_cache *c) {
    if (!c)
        return;
    for (unsigned i = 0; i < c->nshards; i++) {
        shard *s = &c->shards[i];
        entry *heads[2] = { &s->low, &s->high };
        for (int h = 0; h < 2; h++) {
            /* Entries still referenced by handles stay alive until released,
               which callers must do before freeing the cache. */
            while (heads[h]->next != heads[h])
                shard_unlink(s, heads[h]->next);
        }
        free(s->table);
        pthread_mutex_destroy(&s->mu);
    }
    free(c);
}

kv_cache_handle *kv_cache_insert(kv_cache *c, uint64_t file, uint64_t offset, void *data,
                                 size_t size, size_t charge, bool high_priority) {
    return kv_cache_insert_reuse(c, file, offset, data, size, charge, high_priority, NULL, NULL);
}

kv_cache_handle *kv_cache_insert_reuse(kv_cache *c, uint64_t file, uint64_t offset, void *data,
                                       size_t size, size_t charge, bool high_priority,
                                       void **spare_data, size_t *spare_charge) {
    spare sp = { spare_data, spare_charge };
    if (spare_data)
        *spare_data = NULL;
    entry *e = malloc(sizeof *e);
    if (!e) {
        free(data);
        return NULL;
    }
    uint64_t hash = mix_key(file, offset);
    *e = (entry){ .file = file, .offset = offset, .hash = hash, .data = data, .size = size,
                  .charge = charge, .high = high_priority };
    atomic_init(&e->refs, 1);
    shard *s = shard_of(c, hash);
    pthread_mutex_lock(&s->mu);
    if (s->capacity > 0 && charge <= s->capacity) {
        entry **pp = bucket_find(s, hash, file, offset);
        if (*pp)
            shard_unlink(s, *pp);
        pp = bucket_find(s, hash, file, offset);
        e->hnext = NULL;
        *pp = e;
        atomic_fetch_add_explicit(&e->refs, 1, memory_order_relaxed);
        e->linked = true;
        list_append(high_priority ? &s->high : &s->low, e);
        s->usage += charge;
        s->count++;
        shard_evict(s, &sp);
        if (s->count > s->buckets)
            table_grow(s);
    }
    pthread_mutex_unlock(&s->mu);
    return (kv_cache_handle *)e;
}

kv_cache_handle *kv_cache_lookup(kv_cache *c, uint64_t file, uint64_t offset) {
    uint64_t hash = mix_key(file, offset);
    shard *s = shard_of(c, hash);
    pthread_mutex_lock(&s->mu);
    entry *e = *bucket_find(s, hash, file, offset);
    if (e) {
        atomic_fetch_add_explicit(&e->refs, 1, memory_order_relaxed);
        list_remove(e);
        list_append(e->high ? &s->high : &s->low, e);
    }
    pthread_mutex_unlock(&s->mu);
    return (kv_cache_handle *)e;
}

const void *kv_cache_data(const kv_cache_handle *h, size_t *size) {
    const entry *e = (const entry *)h;
    if (size)
        *size = e->size;
    return e->data;
}

void kv_cache_release(kv_cache *c, kv_cache_handle *h) {
    if (!h)
        return;
    (void)c;
    entry_unref((entry *)h);   /* no lock: see the file comment */
}

void kv_cache_erase_file(kv_cache *c, uint64_t file) {
    for (unsigned i = 0; i < c->nshards; i++) {
        shard *s = &c->shards[i];
        pthread_mutex_lock(&s->mu);
        entry *heads[2] = { &s->low, &s->high };
        for (int h = 0; h < 2; h++) {
            entry *e = heads[h]->next;
            while (e != heads[h]) {
                entry *next = e->next;
                if (e->file == file && atomic_load_explicit(&e->refs, memory_order_acquire) == 1)
                    shard_unlink(s, e);
                e = next;
            }
        }
        pthread_mutex_unlock(&s->mu);
    }
}

bool kv_cache_has_room(kv_cache *c, uint64_t file, uint64_t offset, size_t charge) {
    shard *s = shard_of(c, mix_key(file, offset));
    pthread_mutex_lock(&s->mu);
    bool room = s->usage <= s->capacity && charge <= s->capacity - s->usage;
    pthread_mutex_unlock(&s->mu);
    return room;
}

size_t kv_cache_usage(const kv_cache *c) {
    kv_cache *mc = (kv_cache *)c;   /* locking does not change the contents */
    size_t total = 0;
    for (unsigned i = 0; i < mc->nshards; i++) {
        shard *s = &mc->shards[i];
        pthread_mutex_lock(&s->mu);
        total += s->usage;
        pthread_mutex_unlock(&s->mu);
    }
    return total;
}
