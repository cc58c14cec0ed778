/**
 * @file fileset.c
 * Reference counts of sorted files and file sets (fileset.h). The last
 * reference to an obsolete file removes it from disk (through the store's
 * env) and drops its blocks from the cache.
 */
#include "fileset.h"
#include "errors.h"
#include "util/filename.h"
#include "hbase/keys.h"
#include "table/cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

void kv_release_free_memory(void) {
#ifdef __GLIBC__
    (void)malloc_trim(0);
#endif
}

/* Opens a file; with @p tolerate a damaged or missing one is returned
   broken instead of failing. */
static kv_status open_file(kv_engine *s, uint64_t number, kv_sst_meta *meta, bool tolerate, kv_sstfile **out) {
    *out = NULL;
    char *path = kv_filename_sst(s->dir, number);
    kv_sstfile *f = calloc(1, sizeof *f);
    if (!path || !f) {
        free(path);
        free(f);
        return KV_NO_MEMORY;
    }
    char err[512] = "";
    kv_status st = kv_sst_open(&f->reader, s->env, path, number, s->cache, err, sizeof err);
    if (st == KV_OK && !kv_sst_matches(f->reader, meta)) {
        kv_sst_close(f->reader);
        f->reader = NULL;
        snprintf(err, sizeof err, "corrupt sorted file %s: not the file the manifest names (its size, "
                 "entry count or key range differ: another file copied or renamed over it?)", path);
        st = KV_CORRUPT;
    }
    if (tolerate && (st == KV_CORRUPT || st == KV_IO || st == KV_NOT_FOUND)) {
        char msg[700];
        snprintf(msg, sizeof msg, "sorted file %s cannot be read (%s): %s", path, kv_strerror(st), err);
        f->reader = NULL;
        if (!(f->broken = strdup(msg))) st = KV_NO_MEMORY;
        else {
            kv_log(s, KV_LOG_WARN, "%s; reads that need it will fail, everything else works", msg);
            st = KV_OK;
        }
    }
    free(path);
    if (st != KV_OK) {
        kv_sst_close(f->reader);
        free(f);
        return kv_fail(s, st, "opening sorted file: %s", err);
    }
    atomic_init(&f->refs, 1);
    f->number = number;
    f->meta = *meta;
    *meta = (kv_sst_meta){0};
    f->store = s;
    *out = f;
    return KV_OK;
}

kv_status kv_sstfile_open(kv_engine *s, uint64_t number, kv_sst_meta *meta, kv_sstfile **out) {
    return open_file(s, number, meta, false, out);
}

kv_status kv_sstfile_open_or_broken(kv_engine *s, uint64_t number, kv_sst_meta *meta, kv_sstfile **out) {
    return open_file(s, number, meta, true, out);
}

/* ---- the iterator of a broken file ---- */

/* It has no entries to give: a seek that would land in the file's key
   range (as the manifest recorded it) fails with KV_CORRUPT; one past the
   range (a scan that starts after it, a reversed one that starts before)
   is simply at the end, so such scans work. */
typedef struct broken_iter {
    kv_iter base;
    kv_sstfile *file;
    kv_status status;
} broken_iter;

static void broken_seek(kv_iter *it, const uint8_t *target, size_t len) {
    broken_iter *b = (broken_iter *)it;
    const kv_sst_meta *m = &b->file->meta;
    bool past = len > 0 && m->largest_len > 0 && kv_key_compare(target, len, m->largest, m->largest_len) > 0;
    b->status = past ? KV_OK : KV_CORRUPT;
}
static void broken_seek_before(kv_iter *it, const uint8_t *target, size_t len) {
    broken_iter *b = (broken_iter *)it;
    const kv_sst_meta *m = &b->file->meta;
    bool before = target && m->smallest_len > 0 && kv_key_compare(target, len, m->smallest, m->smallest_len) <= 0;
    b->status = before ? KV_OK : KV_CORRUPT;
}
static void broken_next(kv_iter *it) { (void)it; }
static bool broken_valid(const kv_iter *it) { (void)it; return false; }
static const uint8_t *broken_bytes(const kv_iter *it, size_t *len) {
    (void)it;
    *len = 0;
    return NULL;
}
static kv_status broken_status(const kv_iter *it) { return ((const broken_iter *)it)->status; }
static void broken_destroy(kv_iter *it) {
    kv_sstfile_unref(((broken_iter *)it)->file);
    free(it);
}

kv_iter *kv_sstfile_iter(kv_sstfile *f, bool fill_cache, bool high_priority) {
    if (!f->broken) return kv_sst_iter(f->reader, fill_cache, high_priority);
    broken_iter *b = calloc(1, sizeof *b);
    if (!b) return NULL;
    b->base = (kv_iter){broken_seek, broken_seek_before, broken_next, broken_valid, broken_bytes,
                        broken_bytes, broken_status, broken_destroy, NULL, NULL};
    kv_sstfile_ref(f);
    b->file = f;
    b->status = KV_CORRUPT;
    return &b->base;
}

bool kv_sstfile_may_hold_row(const kv_sstfile *f, const uint8_t *row_key, size_t len) {
    const kv_sst_meta *m = &f->meta;
    if (!m->smallest_len || !m->largest_len) return true;
    size_t n = m->smallest_len < len ? m->smallest_len : len;
    int c = memcmp(m->smallest, row_key, n);
    if (c > 0) return false; /* every key of the file is past the row */
    n = m->largest_len < len ? m->largest_len : len;
    c = memcmp(m->largest, row_key, n);
    if (c < 0 || (c == 0 && m->largest_len < len)) return false; /* all before the row */
    return true;
}

bool kv_sstfile_starts_at_or_after(const kv_sstfile *f, const uint8_t *row_key, size_t len) {
    const kv_sst_meta *m = &f->meta;
    if (!m->smallest_len) return false;
    size_t n = m->smallest_len < len ? m->smallest_len : len;
    int c = memcmp(m->smallest, row_key, n);
    /* encoded rows are prefix-free: equal over the row's length means the
       file's first row is that row */
    return c > 0 || (c == 0 && m->smallest_len >= len);
}

void kv_sstfile_last_error(const kv_sstfile *f, char *buf, size_t len) {
    if (!len) return;
    buf[0] = 0;
    if (f->broken) snprintf(buf, len, "%s", f->broken);
    else kv_sst_last_error(f->reader, buf, len);
}

void kv_sstfile_ref(kv_sstfile *f) { atomic_fetch_add(&f->refs, 1); }

void kv_sstfile_unref(kv_sstfile *f) {
    if (!f || atomic_fetch_sub(&f->refs, 1) != 1) return;
    kv_engine *s = f->store;
    kv_sst_close(f->reader);
    if (f->obsolete && s) {
        char *path = kv_filename_sst(s->dir, f->number);
        char err[256];
        if (path && s->env->remove(s->env, path, err, sizeof err) != KV_OK)
            kv_log(s, KV_LOG_WARN, "could not remove obsolete file: %s", err);
        free(path);
        if (s->cache) kv_cache_erase_file(s->cache, f->number);
    }
    kv_sst_meta_clear(&f->meta);
    free(f->broken);
    free(f);
}

kv_fileset *kv_fileset_new(size_t n) {
    kv_fileset *fs = calloc(1, sizeof *fs);
    if (!fs) return NULL;
    if (n && !(fs->files = calloc(n, sizeof *fs->files))) {
        free(fs);
        return NULL;
    }
    atomic_init(&fs->refs, 1);
    return fs;
}

void kv_fileset_ref(kv_fileset *fs) { atomic_fetch_add(&fs->refs, 1); }

void kv_fileset_unref(kv_fileset *fs) {
    if (!fs || atomic_fetch_sub(&fs->refs, 1) != 1) return;
    for (size_t i = 0; i < fs->n; i++) kv_sstfile_unref(fs->files[i]);
    free(fs->files);
    free(fs);
}
