/**
 * @file merge_iter.c
 * The merging iterator: one key-ordered view over several child iterators
 * (memstores and sorted files), forward with a binary min-heap, backward
 * positioning (seek_before) by asking every child. A heap entry keeps its
 * child's current key, fetched once per move of that child, so that the
 * comparisons of a sift make no calls. Called by scans, gets, flushes and
 * compactions; calls only the children's kv_iter operations.
 */
#include "iter.h"
#include "hbase/keys.h"

#include <stdlib.h>
#include <string.h>

#define NONE ((size_t)-1)

/* A valid child in the heap, with its current key (valid until it moves). */
typedef struct hent {
    const uint8_t *key;
    size_t klen;
    size_t kid;
} hent;

typedef struct merge_iter {
    kv_iter it;          /* first member: kv_iter * and merge_iter * convert */
    kv_iter **kids;      /* owned */
    size_t n;
    hent *heap;          /* the valid children; heap[0] is the smallest */
    size_t hn;
    size_t second;       /* 1 or 2: the smaller of heap[1], heap[2] (the
                            runner-up), or 0 when not known */
    size_t back;         /* after seek_before: the chosen child, or NONE */
    bool backward;       /* positioned by seek_before */
    bool failed;         /* a child stopped with an error: the merge stops too */
    /* kids and heap live in the same allocation, after the struct */
} merge_iter;

static merge_iter *mg(kv_iter *it) { return (merge_iter *)(void *)it; }
static const merge_iter *cmg(const kv_iter *it) { return (const merge_iter *)(const void *)it; }


/* Order of two heap entries at their keys (kv_key_compare, inlined: a
   scan makes two of these per entry, on keys that mostly differ within
   their first few words); ties by child index. */
static inline int ent_cmp(const hent *a, const hent *b) {
    size_t n = a->klen < b->klen ? a->klen : b->klen, i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t x = kv_load_be64(a->key + i), y = kv_load_be64(b->key + i);
        if (x != y)
            return x < y ? -1 : 1;
    }
    for (; i < n; i++)
        if (a->key[i] != b->key[i])
            return a->key[i] < b->key[i] ? -1 : 1;
    if (a->klen != b->klen)
        return a->klen < b->klen ? -1 : 1;
    return a->kid < b->kid ? -1 : a->kid > b->kid ? 1 : 0;
}

static void ent_set(hent *e, kv_iter *k, size_t i) {
    e->kid = i;
    e->key = k->key(k, &e->klen);
}

static void sift_down(merge_iter *m, size_t pos) {
    m->second = 0;
    for (;;) {
        size_t l = 2 * pos + 1, r = l + 1, best = pos;
        if (l < m->hn && ent_cmp(&m->heap[l], &m->heap[best]) < 0)
            best = l;
        if (r < m->hn && ent_cmp(&m->heap[r], &m->heap[best]) < 0)
            best = r;
        if (best == pos)
            return;
        hent t = m->heap[pos];
        m->heap[pos] = m->heap[best];
        m->heap[best] = t;
        pos = best;
    }
}

/* Notes a child that went invalid: an error in it ends the merge, so that
   no one reads a sequence with another child's entries missing. */
static void check_kid(merge_iter *m, size_t i) {
    if (m->kids[i]->status(m->kids[i]) != KV_OK)
        m->failed = true;
}

static void mg_seek(kv_iter *it, const uint8_t *target, size_t len) {
    merge_iter *m = mg(it);
    m->backward = false;
    m->back = NONE;
    m->hn = 0;
    m->second = 0;
    m->failed = false;
    for (size_t i = 0; i < m->n; i++) {
        m->kids[i]->seek(m->kids[i], target, len);
        if (m->kids[i]->valid(m->kids[i]))
            ent_set(&m->heap[m->hn++], m->kids[i], i);
        else
            check_kid(m, i);
    }
    for (size_t p = m->hn / 2; p-- > 0;)
        sift_down(m, p);
}

static void mg_seek_before(kv_iter *it, const uint8_t *target, size_t len) {
    merge_iter *m = mg(it);
    m->backward = true;
    m->back = NONE;
    m->hn = 0;
    m->second = 0;
    m->failed = false;
    for (size_t i = 0; i < m->n; i++) {
        kv_iter *k = m->kids[i];
        k->seek_before(k, target, len);
        if (!k->valid(k)) {
            check_kid(m, i);
            continue;
        }
        /* Largest key wins; on a tie the lower index, which came first. */
        if (m->back == NONE) {
            m->back = i;
        } else {
            size_t al, bl;
            const uint8_t *a = k->key(k, &al);
            const uint8_t *b = m->kids[m->back]->key(m->kids[m->back], &bl);
            if (kv_key_compare(a, al, b, bl) > 0)
                m->back = i;
        }
    }
}

static void mg_next(kv_iter *it) {
    merge_iter *m = mg(it);
    if (m->backward) {
        /* Not supported after seek_before (iter.h): become invalid. */
        m->back = NONE;
        return;
    }
    if (m->hn == 0 || m->failed)
        return;
    size_t top = m->heap[0].kid;
    kv_iter *k = m->kids[top];
    k->next(k);
    if (!k->valid(k)) {
        check_kid(m, top);
        m->heap[0] = m->heap[--m->hn];
        if (m->hn)
            sift_down(m, 0);
        return;
    }
    ent_set(&m->heap[0], k, top);
    if (m->hn < 2)
        return;
    /* The runner-up is known while heap[1] and heap[2] stay put: when one
       child gives many entries in a row (a scan over one large file and
       small ones), each of its steps costs one comparison, not two. */
    size_t r = m->second;
    if (r == 0)
        r = m->hn == 2 || ent_cmp(&m->heap[1], &m->heap[2]) < 0 ? 1 : 2;
    if (ent_cmp(&m->heap[0], &m->heap[r]) < 0) {
        m->second = r;
        return;
    }
    hent t = m->heap[0];
    m->heap[0] = m->heap[r];
    m->heap[r] = t;
    sift_down(m, r);
}

static bool mg_valid(const kv_iter *it) {
    const merge_iter *m = cmg(it);
    if (m->failed)
        return false;
    return m->backward ? m->back != NONE : m->hn > 0;
}

static kv_iter *current(const merge_iter *m) {
    if (m->failed)
        return NULL;
    if (m->backward)
        return m->back == NONE ? NULL : m->kids[m->back];
    return m->hn ? m->kids[m->heap[0].kid] : NULL;
}

static const uint8_t *mg_key(const kv_iter *it, size_t *len) {
    const merge_iter *m = cmg(it);
    if (!m->failed && !m->backward && m->hn) {
        if (len)
            *len = m->heap[0].klen;
        return m->heap[0].key;
    }
    kv_iter *k = current(m);
    if (!k) {
        if (len)
            *len = 0;
        return NULL;
    }
    return k->key(k, len);
}

static const uint8_t *mg_value(const kv_iter *it, size_t *len) {
    kv_iter *k = current(cmg(it));
    if (!k) {
        if (len)
            *len = 0;
        return NULL;
    }
    return k->value(k, len);
}

static bool mg_value_pinned(const kv_iter *it) {
    kv_iter *k = current(cmg(it));
    return k && k->value_pinned && k->value_pinned(k);
}

static void mg_set_upper(kv_iter *it, const uint8_t *bound, size_t len) {
    merge_iter *m = mg(it);
    for (size_t i = 0; i < m->n; i++)
        if (m->kids[i]->set_upper)
            m->kids[i]->set_upper(m->kids[i], bound, len);
}

static kv_status mg_status(const kv_iter *it) {
    const merge_iter *m = cmg(it);
    for (size_t i = 0; i < m->n; i++) {
        kv_status st = m->kids[i]->status(m->kids[i]);
        if (st != KV_OK)
            return st;
    }
    return KV_OK;
}

static void mg_destroy(kv_iter *it) {
    if (!it)
        return;
    merge_iter *m = mg(it);
    for (size_t i = 0; i < m->n; i++)
        if (m->kids[i])
            m->kids[i]->destroy(m->kids[i]);
    free(m);
}

kv_iter *kv_merge_iter_new(kv_iter **children, size_t n) {
    /* One child merges to itself: its contract is the merge's. */
    if (n == 1 && children && children[0])
        return children[0];
    merge_iter *m = NULL;
    if (n < (SIZE_MAX - sizeof *m) / (sizeof(kv_iter *) + sizeof(hent)))
        m = calloc(1, sizeof *m + n * (sizeof(kv_iter *) + sizeof(hent)));
    bool bad = !m || (n && !children);
    for (size_t i = 0; !bad && i < n; i++)
        if (!children[i])
            bad = true;
    if (bad) {
        /* Ownership was passed: do not leak the children. */
        for (size_t i = 0; children && i < n; i++)
            if (children[i])
                children[i]->destroy(children[i]);
        free(m);
        return NULL;
    }
    /* hent's alignment is a pointer's on every supported target */
    kv_iter **kids = (kv_iter **)(void *)(m + 1);
    hent *heap = (hent *)(void *)(kids + n);
    if (n)
        memcpy(kids, children, n * sizeof *kids);
    m->it = (kv_iter){
        .seek = mg_seek,
        .seek_before = mg_seek_before,
        .next = mg_next,
        .valid = mg_valid,
        .key = mg_key,
        .value = mg_value,
        .status = mg_status,
        .destroy = mg_destroy,
        .value_pinned = mg_value_pinned,
        .set_upper = mg_set_upper,
    };
    m->kids = kids;
    m->n = n;
    m->heap = heap;
    m->back = NONE;
    /* values are pinned only where a child pins them (iter.h): with none
       that does, a reader need not ask for each entry */
    bool pins = false;
    for (size_t i = 0; i < n; i++)
        pins |= kids[i]->value_pinned != NULL;
    if (!pins)
        m->it.value_pinned = NULL;
    return &m->it;
}
