/**
 * @file memstore.c
 * The memstore: a skip list of (key, value) entries whose nodes live in an
 * arena of large chunks, with one writer and lock-free concurrent readers.
 * Called by the store's write path (add), by scans and flushes (iterators);
 * calls only libc.
 *
 * Thread safety: add() calls are serialised by the caller. A node is fully
 * written (key, value, its own next pointers) before it is linked in with a
 * release store; readers follow next pointers with acquire loads, so they
 * see every linked node whole. Nodes are never unlinked or freed before the
 * last reference goes, so readers need no lock. The byte and entry counts
 * are relaxed atomics: exact for the writer, approximate for others.
 *
 * The byte count is the memory taken: the handle, every chunk's header,
 * every node as laid out (header, links, key, value, alignment), the tail
 * of a chunk left for a new one, and the row filters. A chunk's room not
 * yet used is not counted: the store's write buffer switches when the
 * count reaches write_buffer_size, and a count of whole chunks (which
 * double up to 2 MiB) would switch a small buffer at half its fill.
 */
#include "memstore.h"
#include "rowkey.h"
#include "util/copy.h"

#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define MAX_HEIGHT 12
#define BRANCHING 4                       /* a node reaches level i+1 with p = 1/4 */
/* The largest arena chunk: one 2 MiB huge page, allocated aligned and
   advised as such (MADV_HUGEPAGE), so that a search of a large memstore,
   which touches nodes all over it, does not miss the TLB at every node. */
#define CHUNK_SIZE ((size_t)2 << 20)
/* Chunks start small and double up to CHUNK_SIZE, so that a store with many
   families and a small write buffer is not charged 1 MiB per memstore. */
#define FIRST_CHUNK ((size_t)4 << 10)

typedef struct node {
    size_t vlen;
    uint32_t klen;              /* sorted files hold keys below 4 GiB only */
    uint16_t height;
    /* What a search compares before the key's bytes (node_note_head):
       the node's key shares its first hoff bytes with the memstore's
       reference key, and head is its bytes [hoff, hoff + 8) as a
       big-endian number, zero-padded. 24 bytes in all, as without them. */
    uint16_t hoff;
    uint64_t head;
    /* next[height], then key bytes, then value bytes. */
    _Atomic(struct node *) next[];
} node;
_Static_assert(sizeof(node) <= 24, "a node's header grew: every entry takes more memory");

/* The filter of the rows of a memstore's entries: a blocked bloom filter
   (each row sets RF_PROBES bits of one 512-bit block: one cache line per
   question). It is replaced by one twice as large or more, built again from
   the entries, when the entries outgrow it; readers may still be using the
   replaced ones, which are freed with the memstore. */
#define RF_BLOCK_BITS 512
#define RF_FIRST_BLOCKS 8                 /* 512 bytes */
#define RF_MAX_BLOCKS ((uint64_t)1 << 16) /* 4 MiB */
#define RF_BITS_PER_ENTRY 10              /* at least, until RF_MAX_BLOCKS */
#define RF_PROBES 6

typedef struct rowfilter {
    struct rowfilter *older;    /* the one it replaced */
    uint64_t nblocks;           /* a power of two */
    _Atomic uint64_t words[];   /* nblocks * 8; set by the writer only */
} rowfilter;

typedef struct chunk {
    struct chunk *next;
    bool mapped;                /* a CHUNK_SIZE mapping of its own (munmap) */
    size_t used;                /* bytes of data holding nodes, one after
                                   another (arena_size each) */
    alignas(max_align_t) unsigned char data[];
} chunk;

struct kv_memstore {
    atomic_int refs;
    atomic_int height;          /* levels in use; readers may see a stale value */
    node *head;                 /* MAX_HEIGHT levels, no key */
    /* The first node added, set before it is linked and never changed:
       each node's hoff and head are relative to its key. */
    _Atomic(const node *) ref;
    _Atomic(node *) last;       /* the node with the largest key, or NULL */
    /* Writer-only state. */
    chunk *chunks;              /* all chunks, newest first */
    chunk *cur;                 /* the chunk alloc_ptr is in */
    unsigned char *alloc_ptr;   /* free space in the current chunk */
    size_t alloc_left;
    size_t next_chunk;          /* size of the next regular chunk */
    uint64_t rng;               /* xorshift state for node heights */
    /* The insertion finger: the node added last and, at every level in
       use, the last node at or before it (the head where there is none);
       tried by the next add only while adds come in key order. */
    node *last_added;
    bool finger_on;
    node *finger[MAX_HEIGHT];
    uint64_t rows_cap;          /* entries the row filter is sized for */
    _Atomic(rowfilter *) rows;  /* NULL until the first entry */
    atomic_bool rows_off;       /* a key without a row: no filter */
    /* Read by anyone. */
    atomic_size_t bytes;
    _Atomic uint64_t entries;
    _Atomic int64_t max_column_delete_ts;   /* INT64_MIN: no DeleteColumn */
    atomic_bool family_markers;             /* a DeleteFamily(Version) was added */
    /* Closed iterators kept for the next kv_memstore_iter (a get opens
       and closes one: no malloc and free each time); freed with m. */
    /* (a line of their own: readers write them, writers the counts above) */
    _Alignas(64) _Atomic(struct mem_iter *) spare[2];
};


static const uint8_t *node_key(const node *n) {
    return (const uint8_t *)&n->next[n->height];
}

static const uint8_t *node_value(const node *n) {
    return node_key(n) + n->klen;
}

static node *next_of(const node *n, int level) {
    return atomic_load_explicit(&((node *)n)->next[level], memory_order_acquire);
}

/* Adds n to the memory counted (the writer only: a load and a store). */
static void count_bytes(kv_memstore *m, size_t n) {
    atomic_store_explicit(&m->bytes, atomic_load_explicit(&m->bytes, memory_order_relaxed) + n,
                          memory_order_relaxed);
}

/* A chunk of size bytes, or with whole set one of CHUNK_SIZE bytes in all
   (the header included) on a huge page boundary: *size gets its room. */
static unsigned char *new_chunk(kv_memstore *m, size_t *size, bool whole) {
    chunk *c = NULL;
    if (whole) {
        /* A mapping of its own, unmapped when the memstore goes: memory
           from malloc would stay with the process after a flush. Mapped
           at twice the size, the unaligned ends given back. */
        uint8_t *p = mmap(NULL, 2 * CHUNK_SIZE, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            return NULL;
        uintptr_t at = ((uintptr_t)p + CHUNK_SIZE - 1) & ~(uintptr_t)(CHUNK_SIZE - 1);
        size_t head = at - (uintptr_t)p;
        /* munmap of part of a fresh private mapping does not fail; were it
           to, the ends would only stay mapped, untouched */
        if (head)
            (void)munmap(p, head);
        (void)munmap((uint8_t *)at + CHUNK_SIZE, CHUNK_SIZE - head);
        /* advice: without huge pages the chunk works the same, slower */
        (void)madvise((void *)at, CHUNK_SIZE, MADV_HUGEPAGE);
        c = (chunk *)at;
        c->mapped = true;
        *size = CHUNK_SIZE - offsetof(chunk, data);
    } else {
        c = malloc(sizeof *c + *size);
        if (!c)
            return NULL;
        c->mapped = false;
    }
    c->used = 0;
    c->next = m->chunks;
    m->chunks = c;
    count_bytes(m, offsetof(chunk, data));
    return c->data;
}

/* The bytes a node of size bytes takes in a chunk. */
static size_t arena_size(size_t size) {
    size_t align = alignof(max_align_t);
    return (size + align - 1) & ~(align - 1);
}

static void *arena_alloc(kv_memstore *m, size_t size) {
    size = arena_size(size);
    /* Nodes above a quarter chunk get a chunk of their own, which keeps
       the current chunk's free space. */
    if (size > m->next_chunk / 4) {
        unsigned char *p = new_chunk(m, &size, false);
        if (p) {
            m->chunks->used = size;
            count_bytes(m, size);
        }
        return p;
    }
    if (size > m->alloc_left) {
        size_t room = m->next_chunk;
        unsigned char *p = new_chunk(m, &room, room == CHUNK_SIZE);
        if (!p)
            return NULL;
        count_bytes(m, m->alloc_left);   /* the old chunk's tail, unused from now on */
        m->cur = m->chunks;
        m->alloc_ptr = p;
        m->alloc_left = room;
        if (m->next_chunk < CHUNK_SIZE)
            m->next_chunk *= 2;
    }
    void *p = m->alloc_ptr;
    m->alloc_ptr += size;
    m->alloc_left -= size;
    m->cur->used += size;
    count_bytes(m, size);
    return p;
}

/* The bytes of a node of height with klen and vlen bytes. */
static size_t node_size(int height, size_t klen, size_t vlen) {
    return sizeof(node) + (size_t)height * sizeof(_Atomic(node *)) + klen + vlen;
}

static node *new_node(kv_memstore *m, int height, size_t klen, size_t vlen) {
    size_t fixed = node_size(height, 0, 0);
    size_t limit = SIZE_MAX / 2;   /* leaves room for rounding and the chunk header */
    if (klen > UINT32_MAX || klen > limit - fixed || vlen > limit - fixed - klen)
        return NULL;
    node *n = arena_alloc(m, node_size(height, klen, vlen));
    if (!n)
        return NULL;
    n->klen = (uint32_t)klen;
    n->vlen = vlen;
    n->height = (uint16_t)height;
    for (int i = 0; i < height; i++)
        atomic_init(&n->next[i], NULL);
    return n;
}

static int random_height(kv_memstore *m) {
    int h = 1;
    for (;;) {
        m->rng ^= m->rng << 13;
        m->rng ^= m->rng >> 7;
        m->rng ^= m->rng << 17;
        if (h >= MAX_HEIGHT || (m->rng >> 32) % BRANCHING != 0)
            return h;
        h++;
    }
}

kv_memstore *kv_memstore_new(void) {
    kv_memstore *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    atomic_init(&m->refs, 1);
    atomic_init(&m->height, 1);
    atomic_init(&m->bytes, sizeof *m);
    atomic_init(&m->entries, 0);
    atomic_init(&m->max_column_delete_ts, INT64_MIN);
    atomic_init(&m->family_markers, false);
    atomic_init(&m->last, NULL);
    atomic_init(&m->ref, NULL);
    atomic_init(&m->rows, NULL);
    atomic_init(&m->rows_off, false);
    m->next_chunk = FIRST_CHUNK;
    /* Seeded from the address: heights need not be reproducible. */
    m->rng = 0x9e3779b97f4a7c15ull ^ (uint64_t)(uintptr_t)m;
    if (!m->rng)
        m->rng = 1;
    m->head = new_node(m, MAX_HEIGHT, 0, 0);
    if (!m->head) {
        free(m);
        return NULL;
    }
    for (int i = 0; i < MAX_HEIGHT; i++)
        m->finger[i] = m->head;
    return m;
}

/* A 64-bit hash of a row's key (in-memory only: no fixed byte order). */
static uint64_t row_hash(const uint8_t *p, size_t n) {
    const uint64_t k = 0x9fb21c651e98df25ull;
    uint64_t h = 0x9e3779b97f4a7c15ull ^ ((uint64_t)n * 0xff51afd7ed558ccdull);
    for (; n >= 8; p += 8, n -= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ w) * k;
        h ^= h >> 29;
    }
    uint64_t w = 0;
    if (n)
        memcpy(&w, p, n);
    h = (h ^ w) * k;
    h ^= h >> 32;
    h *= 0xd6e8feb86659fd93ull;
    h ^= h >> 32;
    return h;
}

/* The probes of hash h: its block's first word, and the bit numbers. */
static _Atomic uint64_t *rf_block(const rowfilter *f, uint64_t h) {
    uint64_t b = (h >> 40) & (f->nblocks - 1);
    return (_Atomic uint64_t *)&f->words[b * (RF_BLOCK_BITS / 64)];
}

static void rf_set(rowfilter *f, uint64_t h) {
    _Atomic uint64_t *w = rf_block(f, h);
    for (int i = 0; i < RF_PROBES; i++) {
        unsigned bit = (unsigned)(h >> (6 * i)) & (RF_BLOCK_BITS - 1);
        /* one writer: load and store, no read-modify-write needed */
        uint64_t x = atomic_load_explicit(&w[bit / 64], memory_order_relaxed);
        atomic_store_explicit(&w[bit / 64], x | (uint64_t)1 << (bit % 64), memory_order_relaxed);
    }
}

static bool rf_test(const rowfilter *f, uint64_t h) {
    _Atomic uint64_t *w = rf_block(f, h);
    for (int i = 0; i < RF_PROBES; i++) {
        unsigned bit = (unsigned)(h >> (6 * i)) & (RF_BLOCK_BITS - 1);
        if (!(atomic_load_explicit(&w[bit / 64], memory_order_relaxed) & (uint64_t)1 << (bit % 64)))
            return false;
    }
    return true;
}

/* A filter for at least 2 * entries entries holding the rows of every
   entry linked now, published in place of the current one (writer only).
   NULL on out-of-memory. */
static rowfilter *rows_grow(kv_memstore *m, uint64_t entries) {
    uint64_t nblocks = RF_FIRST_BLOCKS;
    while (nblocks < RF_MAX_BLOCKS && nblocks * RF_BLOCK_BITS < 2 * entries * RF_BITS_PER_ENTRY)
        nblocks *= 2;
    size_t bytes = sizeof(rowfilter) + nblocks * (RF_BLOCK_BITS / 8);
    rowfilter *f = calloc(1, bytes);
    if (!f)
        return NULL;
    f->nblocks = nblocks;
    const uint8_t *prev = NULL;
    size_t prev_len = 0;
    /* Every node but the head, in the order the arena holds them (memory
       read in order, not a cache miss a node as in key order); every node
       allocated is linked, or is being linked with its row noted. */
    for (const chunk *c = m->chunks; c; c = c->next) {
        for (size_t off = 0; off < c->used;) {
            const node *n = (const node *)(const void *)(c->data + off);
            off += arena_size(node_size(n->height, n->klen, n->vlen));
            if (n == m->head)
                continue;
            size_t rl = kv_row_prefix_len(node_key(n), n->klen);
            /* the entries of a row are mostly added together: hash a run
               of them once */
            if (prev && rl == prev_len && memcmp(prev, node_key(n), rl) == 0)
                continue;
            prev = node_key(n);
            prev_len = rl;
            rf_set(f, row_hash(prev, rl));
        }
    }
    f->older = atomic_load_explicit(&m->rows, memory_order_relaxed);
    atomic_store_explicit(&m->rows, f, memory_order_release);
    m->rows_cap = nblocks >= RF_MAX_BLOCKS ? UINT64_MAX : nblocks * RF_BLOCK_BITS / RF_BITS_PER_ENTRY;
    count_bytes(m, bytes);
    return f;
}

/* The row of a key about to be added (writer only): its length in *rl
   (0: not an internal key) and its hash, whose block of the filter starts
   loading now, while the add searches. */
static uint64_t rows_hash(kv_memstore *m, const uint8_t *key, size_t klen, size_t *rl) {
    *rl = 0;
    if (atomic_load_explicit(&m->rows_off, memory_order_relaxed))
        return 0;
    *rl = kv_row_prefix_len(key, klen);
    uint64_t h = row_hash(key, *rl);
    rowfilter *f = atomic_load_explicit(&m->rows, memory_order_relaxed);
    if (f && *rl)
        __builtin_prefetch(rf_block(f, h), 1);
    return h;
}

/* Notes the row of a key about to be linked (writer only), given
   rows_hash's answers: before the link, so that whoever can see the entry
   sees its row in the filter. */
static void rows_note(kv_memstore *m, size_t rl, uint64_t h) {
    if (atomic_load_explicit(&m->rows_off, memory_order_relaxed))
        return;
    uint64_t entries = atomic_load_explicit(&m->entries, memory_order_relaxed) + 1;
    rowfilter *f = atomic_load_explicit(&m->rows, memory_order_relaxed);
    if (rl && (!f || entries > m->rows_cap))
        f = rows_grow(m, entries);
    if (!rl || !f) {
        /* not an internal key, or no memory for a filter: answer true */
        atomic_store_explicit(&m->rows_off, true, memory_order_release);
        return;
    }
    rf_set(f, h);
}

void kv_memstore_prefetch_row(const kv_memstore *m, const uint8_t *row_key, size_t len) {
    const rowfilter *f = atomic_load_explicit(&((kv_memstore *)m)->rows, memory_order_acquire);
    if (f && len)
        __builtin_prefetch(rf_block(f, row_hash(row_key, len)), 1);
}

bool kv_memstore_may_hold_row(const kv_memstore *m, const uint8_t *row_key, size_t len) {
    kv_memstore *mm = (kv_memstore *)m;
    if (atomic_load_explicit(&mm->rows_off, memory_order_acquire))
        return true;
    const rowfilter *f = atomic_load_explicit(&mm->rows, memory_order_acquire);
    if (!f)
        return next_of(m->head, 0) != NULL;
    return rf_test(f, row_hash(row_key, len));
}

void kv_memstore_ref(kv_memstore *m) {
    atomic_fetch_add_explicit(&m->refs, 1, memory_order_relaxed);
}

void kv_memstore_unref(kv_memstore *m) {
    if (!m)
        return;
    if (atomic_fetch_sub_explicit(&m->refs, 1, memory_order_acq_rel) != 1)
        return;
    for (rowfilter *f = atomic_load_explicit(&m->rows, memory_order_relaxed); f;) {
        rowfilter *older = f->older;
        free(f);
        f = older;
    }
    for (size_t i = 0; i < sizeof m->spare / sizeof m->spare[0]; i++)
        free(atomic_load_explicit(&m->spare[i], memory_order_relaxed));
    chunk *c = m->chunks;
    while (c) {
        chunk *n = c->next;
        if (c->mapped)
            (void)munmap(c, CHUNK_SIZE);   /* fails only for a bad range */
        else
            free(c);
        c = n;
    }
    free(m);
}

/* Bytes [off, off + 8) of key (len bytes) as a big-endian number,
   zero-padded: for two keys that share their first off bytes, a smaller
   number means a smaller key, and equal numbers decide nothing. */
static inline uint64_t head_at(const uint8_t *key, size_t len, size_t off) {
    if (off + 8 <= len && off + 8 > off)
        return kv_load_be64(key + off);
    uint8_t b[8] = {0};
    for (size_t i = 0; off < len && i < len - off && i < 8; i++)
        b[i] = key[off + i];
    return kv_load_be64(b);
}

static size_t common_prefix(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen) {
    size_t n = alen < blen ? alen : blen, i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t x, y;
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        if (x != y)
            break;
    }
    while (i < n && a[i] == b[i])
        i++;
    return i;
}

/* Sets n's hoff and head from its key (the writer, before n is linked;
   the first node added becomes the reference). */
static void node_note_head(kv_memstore *m, node *n) {
    const node *ref = atomic_load_explicit(&m->ref, memory_order_relaxed);
    if (!ref) {
        ref = n;
        atomic_store_explicit(&m->ref, n, memory_order_release);
    }
    size_t off = common_prefix(node_key(ref), ref->klen, node_key(n), n->klen);
    if (off > UINT16_MAX)
        off = UINT16_MAX;   /* any shorter shared prefix holds as well */
    n->hoff = (uint16_t)off;
    n->head = head_at(node_key(n), n->klen, off);
}

/* A search's key and what is known of it against the reference key. */
typedef struct probe {
    const uint8_t *key;
    size_t klen;
    const uint8_t *ref;         /* NULL: no reference, whole-key compares */
    size_t lcp;                 /* bytes key shares with the reference */
    size_t hoff;                /* the last head of the key computed: */
    uint64_t head;              /* ... head_at(key, klen, hoff) */
} probe;

static probe probe_of(const kv_memstore *m, const uint8_t *key, size_t klen) {
    probe p = {key, klen, NULL, 0, 0, head_at(key, klen, 0)};
    const node *ref = atomic_load_explicit(&((kv_memstore *)m)->ref, memory_order_acquire);
    if (ref) {
        p.ref = node_key(ref);
        p.lcp = common_prefix(key, klen, p.ref, ref->klen);
    }
    return p;
}

/* kv_key_compare(n's key, p's key), mostly without reading n's key: n
   and the reference share hoff bytes; a key that leaves the reference
   before that is ordered against n as against the reference, else their
   heads decide unless equal. */
static inline int probe_compare(const node *n, probe *p) {
    if (p->ref) {
        size_t off = n->hoff;
        if (p->lcp < off) {
            /* the reference is longer than off > lcp */
            if (p->lcp == p->klen)
                return 1;   /* the key is a proper prefix of n's */
            return p->ref[p->lcp] < p->key[p->lcp] ? -1 : 1;
        }
        /* most nodes leave the reference at the same byte: one head */
        if (off != p->hoff) {
            p->hoff = off;
            p->head = head_at(p->key, p->klen, off);
        }
        if (n->head != p->head)
            return n->head < p->head ? -1 : 1;
    }
    return kv_key_compare(node_key(n), n->klen, p->key, p->klen);
}

/* The first node with key >= target, filling prev[] (when non-NULL) with
   the last node before it at every level. */
static node *find_ge(const kv_memstore *m, const uint8_t *key, size_t klen, node **prev) {
    node *x = m->head;
    int level = atomic_load_explicit(&((kv_memstore *)m)->height, memory_order_relaxed) - 1;
    /* The node found >= key one level up: met again on the way down, it
       needs no second comparison (a tall node is reached on every level). */
    const node *bigger = NULL;
    probe p = probe_of(m, key, klen);
    for (;;) {
        node *n = next_of(x, level);
        /* Each step is a cache miss on a node somewhere in the arena. The
           node after x one level down is the next one compared when n is
           past key (unless it is n): load it while n is compared. */
        if (level > 0) {
            const node *down = next_of(x, level - 1);
            if (down != n)
                __builtin_prefetch(down);
        }
        if (n && n != bigger && probe_compare(n, &p) < 0) {
            x = n;
            continue;
        }
        bigger = n;
        if (prev)
            prev[level] = x;
        if (level == 0)
            return n;
        level--;
    }
}

/* The last node with key < target (target NULL: the last node); the head
   when there is none. */
static node *find_lt(const kv_memstore *m, const uint8_t *key, size_t klen) {
    node *x = m->head;
    int level = atomic_load_explicit(&((kv_memstore *)m)->height, memory_order_relaxed) - 1;
    probe p = probe_of(m, key, key ? klen : 0);
    for (;;) {
        node *n = next_of(x, level);
        if (n && (!key || probe_compare(n, &p) < 0)) {
            x = n;
            continue;
        }
        if (level == 0)
            return x;
        level--;
    }
}

/* find_ge for a key after the one added last, from the finger instead of
   the top (writer only): fills prev[] and *found as find_ge does and
   returns true, or returns false when key is not after the last key added
   or some node lies between the two (the caller then searches from the
   top). Two comparisons at most, none with the node after the last one
   at the end of the list (a sequential load): a node at any level after
   that level's finger is after the last key, and the node after the last
   key is before key if any of them is. */
static bool find_ge_from_finger(kv_memstore *m, const uint8_t *key, size_t klen, node **prev,
                                node **found) {
    node *last = m->last_added;
    if (!m->finger_on || kv_key_compare(node_key(last), last->klen, key, klen) >= 0)
        return false;
    node *n = next_of(last, 0);
    if (n && kv_key_compare(node_key(n), n->klen, key, klen) < 0)
        return false;
    *found = n;
    int height = atomic_load_explicit(&m->height, memory_order_relaxed);
    for (int i = 0; i < height; i++)
        prev[i] = m->finger[i];
    return true;
}

kv_status kv_memstore_add(kv_memstore *m, const uint8_t *key, size_t klen, const uint8_t *value,
                          size_t vlen) {
    if (!m || (!key && klen) || (!value && vlen))
        return KV_INVALID;
    size_t rl;
    uint64_t rh = rows_hash(m, key, klen, &rl);
    node *prev[MAX_HEIGHT];
    node *found = NULL;
    if (!find_ge_from_finger(m, key, klen, prev, &found))
        found = find_ge(m, key, klen, prev);
    if (found && kv_key_compare(node_key(found), found->klen, key, klen) == 0)
        return KV_EXISTS;
    /* before the node is allocated: rows_grow walks every node in the
       arena (a row noted for an add that then fails is only a false
       positive) */
    rows_note(m, rl, rh);
    int h = random_height(m);
    node *n = new_node(m, h, klen, vlen);
    if (!n)
        return KV_NO_MEMORY;
    if (klen)
        kv_copy((uint8_t *)node_key(n), key, klen);
    node_note_head(m, n);
    if (vlen)
        kv_copy((uint8_t *)node_value(n), value, vlen);
    int cur = atomic_load_explicit(&m->height, memory_order_relaxed);
    if (h > cur) {
        for (int i = cur; i < h; i++)
            prev[i] = m->head;
        /* A reader that sees the new height before the links finds NULL at
           those levels of the head and simply drops a level. */
        atomic_store_explicit(&m->height, h, memory_order_relaxed);
        cur = h;
    }
    for (int i = 0; i < h; i++) {
        /* n is not reachable yet: a relaxed store suffices for its own link. */
        atomic_store_explicit(&n->next[i],
                              atomic_load_explicit(&prev[i]->next[i], memory_order_relaxed),
                              memory_order_relaxed);
        atomic_store_explicit(&prev[i]->next[i], n, memory_order_release);
    }
    /* The finger for the next add, tried only while adds follow each other
       in key order (n went right after the node added before it, or at
       the end), so that random adds pay no comparison for it. */
    m->finger_on = (m->last_added && prev[0] == m->last_added) || !found;
    m->last_added = n;
    for (int i = 0; i < cur; i++)
        m->finger[i] = i < h ? n : prev[i];
    /* linked at the end: the new largest key */
    if (!atomic_load_explicit(&n->next[0], memory_order_relaxed))
        atomic_store_explicit(&m->last, n, memory_order_release);
    /* A DeleteColumn marker: a time-range read seeks past the newer
       versions of a column only while no source holds one above the
       range (kv_memstore_max_column_delete_ts). One writer: load, store. */
    kv_cell_type type = klen >= KV_KEY_SUFFIX_LEN ? kv_key_type(key, klen) : KV_TYPE_PUT;
    if (type == KV_TYPE_DELETE_COLUMN) {
        int64_t ts = kv_key_timestamp(key, klen);
        if (ts > atomic_load_explicit(&m->max_column_delete_ts, memory_order_relaxed))
            atomic_store_explicit(&m->max_column_delete_ts, ts, memory_order_release);
    } else if (type == KV_TYPE_DELETE_FAMILY || type == KV_TYPE_DELETE_FAMILY_VERSION) {
        atomic_store_explicit(&m->family_markers, true, memory_order_release);
    }
    /* One writer: a plain load and store, no locked read-modify-write
       (which would wait for every store above to reach the cache). */
    atomic_store_explicit(&m->entries, atomic_load_explicit(&m->entries, memory_order_relaxed) + 1,
                          memory_order_relaxed);
    return KV_OK;
}

size_t kv_memstore_bytes(const kv_memstore *m) {
    return m ? atomic_load_explicit(&((kv_memstore *)m)->bytes, memory_order_relaxed) : 0;
}

int64_t kv_memstore_max_column_delete_ts(const kv_memstore *m) {
    return m ? atomic_load_explicit(&((kv_memstore *)m)->max_column_delete_ts, memory_order_acquire)
             : INT64_MIN;
}

bool kv_memstore_has_family_markers(const kv_memstore *m) {
    return m && atomic_load_explicit(&((kv_memstore *)m)->family_markers, memory_order_acquire);
}

uint64_t kv_memstore_entries(const kv_memstore *m) {
    return m ? atomic_load_explicit(&((kv_memstore *)m)->entries, memory_order_relaxed) : 0;
}

/* ---- iterator ---- */

typedef struct mem_iter {
    kv_iter it;          /* first member: kv_iter * and mem_iter * convert */
    kv_memstore *m;      /* one reference held */
    const node *cur;     /* NULL when not valid */
    bool ends;           /* seeks look at the first and last keys first */
    bool kept;           /* the caller's (kv_memstore_iter_adopt_kept) */
} mem_iter;

static mem_iter *mi(kv_iter *it) { return (mem_iter *)(void *)it; }
static const mem_iter *cmi(const kv_iter *it) { return (const mem_iter *)(const void *)it; }

/* find_ge's answer without a search when key is at or before the first
   key or after the last (a get of a row the memstore has no entry near,
   e.g. older rows while the newest are being written): true and *out set,
   else false. Each answer holds at the moment its node was read: nodes
   are only added, and last with no successor is the largest. */
static bool find_ge_at_ends(const kv_memstore *m, const uint8_t *key, size_t klen, node **out) {
    node *first = next_of(m->head, 0);
    if (!first || kv_key_compare(node_key(first), first->klen, key, klen) >= 0) {
        *out = first;
        return true;
    }
    node *last = atomic_load_explicit(&((kv_memstore *)m)->last, memory_order_acquire);
    if (last && kv_key_compare(node_key(last), last->klen, key, klen) < 0 && !next_of(last, 0)) {
        *out = NULL;
        return true;
    }
    return false;
}

bool kv_memstore_may_hold(const kv_memstore *m, const uint8_t *lo, size_t lolen, const uint8_t *hi,
                          size_t hilen) {
    node *first = next_of(m->head, 0);
    if (!first || kv_key_compare(node_key(first), first->klen, hi, hilen) >= 0)
        return false;
    node *last = atomic_load_explicit(&((kv_memstore *)m)->last, memory_order_acquire);
    return !(last && kv_key_compare(node_key(last), last->klen, lo, lolen) < 0 && !next_of(last, 0));
}

static void mi_seek(kv_iter *it, const uint8_t *target, size_t len) {
    mem_iter *x = mi(it);
    node *n;
    if (len == 0 || !target)
        x->cur = next_of(x->m->head, 0);
    else if (x->ends && find_ge_at_ends(x->m, target, len, &n))
        x->cur = n;
    else
        x->cur = find_ge(x->m, target, len, NULL);
}

static void mi_seek_before(kv_iter *it, const uint8_t *target, size_t len) {
    mem_iter *x = mi(it);
    node *n = find_lt(x->m, target, target ? len : 0);
    x->cur = n == x->m->head ? NULL : n;
}

static void mi_next(kv_iter *it) {
    mem_iter *x = mi(it);
    if (!x->cur)
        return;
    x->cur = next_of(x->cur, 0);
    /* A scan reads node after node, each somewhere else in the arena (in
       the order they were added): start loading the one after this while
       the caller works on this one. */
    if (x->cur) {
        const node *after = next_of(x->cur, 0);
        if (after)
            __builtin_prefetch(after);
    }
}

static bool mi_valid(const kv_iter *it) {
    return cmi(it)->cur != NULL;
}

static const uint8_t *mi_key(const kv_iter *it, size_t *len) {
    const node *n = cmi(it)->cur;
    if (!n) {
        if (len)
            *len = 0;
        return NULL;
    }
    if (len)
        *len = n->klen;
    return node_key(n);
}

static const uint8_t *mi_value(const kv_iter *it, size_t *len) {
    const node *n = cmi(it)->cur;
    if (!n) {
        if (len)
            *len = 0;
        return NULL;
    }
    if (len)
        *len = n->vlen;
    return node_value(n);
}

/* Nodes are neither moved nor freed while a reference is held. */
static bool mi_value_pinned(const kv_iter *it) {
    (void)it;
    return true;
}

static kv_status mi_status(const kv_iter *it) {
    (void)it;
    return KV_OK;
}

/* Puts a closed iterator of m into one of m's spare slots (its reference
   to m still held), or frees it when both are taken. */
static void mi_keep(kv_memstore *m, mem_iter *x) {
    for (size_t i = 0; i < sizeof m->spare / sizeof m->spare[0]; i++) {
        mem_iter *expect = NULL;
        if (atomic_compare_exchange_strong_explicit(&m->spare[i], &expect, x, memory_order_release,
                                                    memory_order_relaxed))
            return;
    }
    free(x);
}

static void mi_destroy(kv_iter *it) {
    if (!it)
        return;
    kv_memstore *m = mi(it)->m;
    if (mi(it)->kept) {
        mi(it)->m = NULL;
        mi(it)->cur = NULL;
    } else {
        mi_keep(m, mi(it));   /* before the unref that may free m and its slots */
    }
    kv_memstore_unref(m);
}

/* Sets x up as an iterator over m (taking over a reference). */
static kv_iter *iter_init(mem_iter *x, kv_memstore *m, bool ends, bool kept) {
    x->it = (kv_iter){
        .seek = mi_seek,
        .seek_before = mi_seek_before,
        .next = mi_next,
        .valid = mi_valid,
        .key = mi_key,
        .value = mi_value,
        .value_pinned = mi_value_pinned,
        .status = mi_status,
        .destroy = mi_destroy,
    };
    x->m = m;
    x->cur = NULL;
    x->ends = ends;
    x->kept = kept;
    return &x->it;
}

static kv_iter *adopt(kv_memstore *m, bool ends) {
    if (!m)
        return NULL;
    mem_iter *x = NULL;
    for (size_t i = 0; !x && i < sizeof m->spare / sizeof m->spare[0]; i++)
        if (atomic_load_explicit(&m->spare[i], memory_order_relaxed))
            x = atomic_exchange_explicit(&m->spare[i], NULL, memory_order_acquire);
    if (!x)
        x = malloc(sizeof *x);
    if (!x)
        return NULL;
    return iter_init(x, m, ends, false);
}

kv_iter *kv_memstore_iter_adopt_kept(kv_memstore *m, kv_iter **keep) {
    if (!m)
        return NULL;
    mem_iter *x = *keep ? mi(*keep) : malloc(sizeof *x);
    if (!x)
        return NULL;
    *keep = &x->it;
    return iter_init(x, m, false, true);
}

void kv_memstore_iter_free(kv_iter *kept) {
    free(kept ? mi(kept) : NULL);
}

kv_iter *kv_memstore_iter_adopt(kv_memstore *m) {
    return adopt(m, true);
}

kv_iter *kv_memstore_iter_adopt_near(kv_memstore *m) {
    return adopt(m, false);
}

kv_iter *kv_memstore_iter(kv_memstore *m) {
    if (!m)
        return NULL;
    kv_memstore_ref(m);
    kv_iter *it = kv_memstore_iter_adopt(m);
    if (!it)
        kv_memstore_unref(m);
    return it;
}
