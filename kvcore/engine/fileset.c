/**
 * @file fileset.c
 * Reference counts of sorted files and file sets (fileset.h). The last
 * reference to an obsolete file removes it from disk (through the store's
 * env) and drops its blocks from the cache.
 */
#include "fileset.h"
#include "errors.h"
#include "util/filename.h"
#include "table/cache.h"

#include <stdlib.h>

kv_status kv_sstfile_open(kv_engine *s, uint64_t number, kv_sst_meta *meta, kv_sstfile **out) {
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
    free(path);
    if (st != KV_OK) {
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
