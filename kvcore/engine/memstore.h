/**
 * @file memstore.h
 * A family's in-memory sorted buffer: a skip list of (internal key, value)
 * entries in an arena, one per family per table. Writes come from one
 * thread at a time (the store's write leader, which holds the write lock);
 * any number of readers iterate concurrently without locks and see each
 * entry either wholly or not at all (entries are published with release
 * stores). Keys are unique: every cell carries its own sequence number.
 * Reference-counted, because scans keep a memstore alive after a flush has
 * replaced it.
 */
#ifndef KV_MEMSTORE_H
#define KV_MEMSTORE_H

#include "table/iter.h"

typedef struct kv_memstore kv_memstore;

/* A new empty memstore with one reference. NULL on out-of-memory. */
kv_memstore *kv_memstore_new(void);
void kv_memstore_ref(kv_memstore *m);
/* Drops a reference; frees at zero. NULL is a no-op. */
void kv_memstore_unref(kv_memstore *m);
/* Inserts an entry (copies key and value). KV_EXISTS if the key is there,
   KV_NO_MEMORY. Callers serialise add() calls; readers need no lock. */
kv_status kv_memstore_add(kv_memstore *m, const uint8_t *key, size_t klen, const uint8_t *value,
                          size_t vlen);
/* The bytes of memory m has taken: its handle, its nodes as laid out in
   its chunks (header, links, key, value, alignment), its chunks' headers
   and the tails they left unused, its row filters; not the room of its
   current chunk that no node uses yet. Only grows. Exact for the writer,
   a recent value for other threads. */
size_t kv_memstore_bytes(const kv_memstore *m);
uint64_t kv_memstore_entries(const kv_memstore *m);
/* The largest timestamp of the DeleteColumn markers (keys.h: a key whose
   type is KV_TYPE_DELETE_COLUMN) among the entries added before the call,
   INT64_MIN if none: a time-range read may seek past a column's versions
   above its range when no source holds such a marker at or above its end.
   Readers need no lock. */
int64_t kv_memstore_max_column_delete_ts(const kv_memstore *m);
/* Whether a family-level marker (a key of type KV_TYPE_DELETE_FAMILY or
   KV_TYPE_DELETE_FAMILY_VERSION) was added before the call: a get of one
   column may skip the row's family markers only when no source holds
   one. Readers need no lock. */
bool kv_memstore_has_family_markers(const kv_memstore *m);
/* Whether m may hold a key in [lo, hi): false only when every key it
   holds now is below lo or at or above hi (a get skips a memstore of
   other rows). Readers need no lock; a key added after the call is not
   considered. */
bool kv_memstore_may_hold(const kv_memstore *m, const uint8_t *lo, size_t lolen, const uint8_t *hi,
                          size_t hilen);
/* Whether m may hold an entry of the row whose esc(row) is row_key (as
   kv_key_encode_row makes it): false only when a filter of the rows of its
   entries (a bloom filter that grows with the memstore, about 1 % false
   positives) rules the row out, so that a get can leave the memstore out
   without searching it. Every entry added before the call counts; readers
   need no lock. A memstore given a key that is not an internal key
   (keys.h) answers true from then on. */
bool kv_memstore_may_hold_row(const kv_memstore *m, const uint8_t *row_key, size_t len);
/* A hint before an add of an entry of the row whose esc(row) is row_key:
   starts loading the block of the row filter that the add will set (a
   cache miss a new row otherwise), so that work done in between (the
   log's write) hides it. Changes nothing; the writer calls it. */
void kv_memstore_prefetch_row(const kv_memstore *m, const uint8_t *row_key, size_t len);
/* An iterator that holds a reference to m until destroyed. */
kv_iter *kv_memstore_iter(kv_memstore *m);
/* As kv_memstore_iter, but takes over a reference the caller holds (no
   new one: a get's two atomic updates fewer). On out-of-memory (NULL) the
   reference is still the caller's. */
kv_iter *kv_memstore_iter_adopt(kv_memstore *m);
/* As kv_memstore_iter_adopt, for a caller that found the keys it will
   seek within m's range (kv_memstore_may_hold, a get): its seeks search
   at once instead of first comparing the target with m's first and last
   keys (the same answers, found without those two compares). */
kv_iter *kv_memstore_iter_adopt_near(kv_memstore *m);
/* As kv_memstore_iter_adopt_near, in the iterator *keep when not NULL
   (one this call made for an earlier read and that read destroyed), else
   in a new one left in *keep: a caller that keeps its iterators (a pooled
   scan) takes no memstore's spare slot (two atomic exchanges) nor
   memory. Destroying it drops its reference only; the caller frees *keep
   with kv_memstore_iter_free once it reads no more. NULL on
   out-of-memory (the reference is still the caller's). */
kv_iter *kv_memstore_iter_adopt_kept(kv_memstore *m, kv_iter **keep);
/* Frees an iterator kv_memstore_iter_adopt_kept left (destroyed, or never
   used); NULL is a no-op. */
void kv_memstore_iter_free(kv_iter *kept);

#endif
