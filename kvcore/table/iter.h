/**
 * @file iter.h
 * The internal iterator over (internal key, value) entries in key order,
 * implemented by memstores, sorted files and the merging iterator. Keys
 * compare with memcmp (keys.h). Reversed scans are built from seek_before.
 */
#ifndef KV_ITER_H
#define KV_ITER_H

#include "kvcore.h"

typedef struct kv_iter kv_iter;
struct kv_iter {
    /* Positions at the first entry with key >= target (len 0: first entry). */
    void (*seek)(kv_iter *it, const uint8_t *target, size_t len);
    /* Positions at the last entry with key < target (target NULL: the last
       entry). Only valid() / key() / value() may follow before a seek. */
    void (*seek_before)(kv_iter *it, const uint8_t *target, size_t len);
    void (*next)(kv_iter *it);
    bool (*valid)(const kv_iter *it);
    /* Key and value of the current entry; valid until the iterator moves. */
    const uint8_t *(*key)(const kv_iter *it, size_t *len);
    const uint8_t *(*value)(const kv_iter *it, size_t *len);
    /* KV_OK, or the error that made the iterator invalid (KV_CORRUPT...). */
    kv_status (*status)(const kv_iter *it);
    void (*destroy)(kv_iter *it);
    /* Optional (NULL: never). Whether value() of the current entry stays
       valid and unchanged until the iterator is destroyed, not only until
       it moves (a memstore's nodes do), so that a reader may keep the
       pointer instead of copying the bytes. */
    bool (*value_pinned)(const kv_iter *it);
    /* Optional (NULL: the iterator has no use for it). Says that no entry
       with key >= bound (len 0: none, the default) is wanted until the next
       call: the iterator may then end (invalid, status KV_OK) instead of
       reading on to such an entry, though it may still show some. A sorted
       file's iterator stops before a unit whose keys all lie at or above
       the bound, unread. The bytes are not copied: they must stay as they
       are until the next set_upper or destroy. A merging iterator passes
       the bound to its children. */
    void (*set_upper)(kv_iter *it, const uint8_t *bound, size_t len);
};

/* Merges @p n children (taking ownership) into one iterator in key order.
   Equal keys: the child with the lower index comes first. A single child
   is returned as it is. NULL on out-of-memory (the children are freed). */
kv_iter *kv_merge_iter_new(kv_iter **children, size_t n);

#endif
