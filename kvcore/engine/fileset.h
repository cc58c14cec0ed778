/**
 * @file fileset.h
 * The sorted files a family reads (fileset.c): each open file is shared
 * by every file set that lists it and reference-counted; a file set is an
 * immutable list, newest first, that flushes and compactions replace as a
 * whole and that scans keep alive while they read it. A file marked
 * obsolete (replaced by a compaction, or of a dropped family) is removed
 * from disk and from the block cache when its last reference goes.
 */
#ifndef KV_ENGINE_FILESET_H
#define KV_ENGINE_FILESET_H

#include "engine_i.h"
#include "table/sst.h"

#include <stdatomic.h>

/* One sorted file of a family, shared by file sets; refcounted. */
typedef struct kv_sstfile {
    atomic_int refs;
    uint64_t number;
    kv_sst_meta meta;
    kv_sst_reader *reader;
    bool obsolete;              /* remove from disk at the last unref (mu) */
    char *broken;               /* NULL, or why the file could not be opened
                                   (reader is then NULL): reads that need
                                   it fail with this message */
    struct kv_engine *store;     /* for the directory, env, cache and log */
} kv_sstfile;

/* An immutable set of files, newest first; refcounted. */
typedef struct kv_fileset {
    atomic_int refs;
    size_t n;
    kv_sstfile **files;
} kv_fileset;

/* Opens sorted file @p number of the store as a kv_sstfile with one
   reference; meta is moved into it. Errors: those of kv_sst_open, with a
   message naming the file. */
kv_status kv_sstfile_open(kv_engine *s, uint64_t number, kv_sst_meta *meta, kv_sstfile **out);
/* As kv_sstfile_open, but a file that is damaged or missing (KV_CORRUPT,
   KV_IO, KV_NOT_FOUND) is still returned, marked broken, and a warning is
   logged: it takes down only the reads that need it. Errors: KV_NO_MEMORY. */
kv_status kv_sstfile_open_or_broken(kv_engine *s, uint64_t number, kv_sst_meta *meta, kv_sstfile **out);
/* The file's iterator (kv_sst_iter), or for a broken file an iterator that
   is invalid at once with status KV_CORRUPT. NULL: out of memory. */
kv_iter *kv_sstfile_iter(kv_sstfile *f, bool fill_cache, bool high_priority);
/* Whether a broken file may hold cells of the row whose esc(row) is given,
   judged from the smallest and largest keys the manifest recorded (true
   when unknown). */
bool kv_sstfile_may_hold_row(const kv_sstfile *f, const uint8_t *row_key, size_t len);
/* Whether every key of a file (by the range the manifest recorded) is at
   or after the row whose esc(row) is given: a forward scan that stops at
   that row needs nothing of the file. False when the range is unknown. */
bool kv_sstfile_starts_at_or_after(const kv_sstfile *f, const uint8_t *row_key, size_t len);
/* The message of the file's last read error, or why it is broken; "" if
   none. */
void kv_sstfile_last_error(const kv_sstfile *f, char *buf, size_t len);
void kv_sstfile_ref(kv_sstfile *f);
void kv_sstfile_unref(kv_sstfile *f);
/* A file set with room for n files (n = 0 allowed), one reference. */
kv_fileset *kv_fileset_new(size_t n);
void kv_fileset_ref(kv_fileset *fs);
void kv_fileset_unref(kv_fileset *fs);
/* Gives the C library's free pages back to the system (glibc's
   malloc_trim; a no-op elsewhere). Called by the flush and compaction
   threads after each file they write: the megabytes they and replaced
   files' readers freed (indexes, filters, merge buffers) otherwise stay in
   the process's heaps, and sat under the next memstore in the fill's peak
   (kv10mruns in BENCHMARKS.md). */
void kv_release_free_memory(void);

#endif
