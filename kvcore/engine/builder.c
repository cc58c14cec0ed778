/**
 * @file builder.c
 * Writes one family's sorted file from an iterator (builder.h): every
 * entry the matcher keeps, in key order, through the sorted-file writer of
 * table/sst.h; then reopens the finished file for reading. Used by flushes
 * (flush.c) and compactions (compact.c).
 */
#include "builder.h"
#include "errors.h"
#include "rowkey.h"
#include "hbase/keys.h"
#include "util/filename.h"

#include <stdlib.h>
#include <string.h>

/* The oldest put timestamp among its entries (KV_TIME_MAX: none): what a
   major compaction of a KEEP_DELETED_CELLS family needs (matcher.h). */
static int64_t earliest_put(kv_iter *it) {
    int64_t e = KV_TIME_MAX;
    for (it->seek(it, NULL, 0); it->valid(it); it->next(it)) {
        size_t klen;
        const uint8_t *key = it->key(it, &klen);
        if (klen < KV_KEY_SUFFIX_LEN || kv_key_type(key, klen) != KV_TYPE_PUT) continue;
        int64_t ts = kv_key_timestamp(key, klen);
        if (ts < e) e = ts;
    }
    return e;
}

kv_status kv_build_family_file(kv_engine *s, const kv_family_desc *desc, kv_iter *it,
                                   kv_match_mode mode, uint64_t bloom_keys, kv_sstfile **out) {
    *out = NULL;
    char err[512] = "";
    pthread_mutex_lock(&s->mu);
    uint64_t number = s->next_file++;
    pthread_mutex_unlock(&s->mu);
    char *path = kv_filename_sst(s->dir, number);
    if (!path) return KV_NO_MEMORY;
    kv_sst_options o = {(uint32_t)desc->blocksize, desc->compression, desc->encoding, desc->bloom, 10};
    kv_sst_writer *w;
    kv_status st = kv_sst_writer_open(&w, s->env, path, &o, err, sizeof err);
    if (st != KV_OK) {
        free(path);
        return kv_fail(s, st, "creating sorted file: %s", err);
    }
    if (bloom_keys)
        kv_sst_writer_expect_bloom_keys(w, bloom_keys);
    kv_matcher m;
    kv_matcher_init(&m, mode, desc, UINT64_MAX, kv_clock_now(s));
    if (mode == KV_MATCH_MAJOR && desc->keep_deleted != KV_KEEP_DELETED_FALSE) {
        m.earliest_put_ts = earliest_put(it);
        st = it->status(it);
        if (st != KV_OK) kv_fail(s, st, "reading the files to compact: %s", kv_strerror(st));
    }
    kv_buf row = {0}, col = {0};
    bool first = true;
    for (it->seek(it, NULL, 0); st == KV_OK && it->valid(it); it->next(it)) {
        size_t klen, vlen;
        const uint8_t *key = it->key(it, &klen);
        const uint8_t *val = it->value(it, &vlen);
        size_t rl = kv_row_prefix_len(key, klen), cl = kv_key_column_prefix_len(key, klen);
        if (rl == 0 || cl == 0 || klen != cl + KV_KEY_SUFFIX_LEN) {
            st = kv_fail(s, KV_CORRUPT, "malformed key while writing %06llu.sst", (unsigned long long)number);
            break;
        }
        if (first || row.len != rl || memcmp(row.data, key, rl) != 0) {
            kv_matcher_start_row(&m);
            row.len = 0;
            col.len = 0;
            if (kv_buf_append(&row, key, rl)) { st = KV_NO_MEMORY; break; }
        }
        bool family_kind = key[rl] == KV_KIND_FAMILY_MARKER;
        if (first || col.len != cl || memcmp(col.data, key, cl) != 0) {
            if (!family_kind) kv_matcher_start_column(&m);
            col.len = 0;
            if (kv_buf_append(&col, key, cl)) { st = KV_NO_MEMORY; break; }
        }
        first = false;
        if (kv_matcher_match(&m, kv_key_timestamp(key, klen), kv_key_type(key, klen),
                             kv_key_sequence(key, klen), family_kind) &&
            (st = kv_sst_add(w, key, klen, val, vlen)) != KV_OK)
            /* Say why (a full disk, mostly): the background log and the
               writers refused because of this failure show this message. */
            kv_fail(s, st, "writing %s: %s", path, kv_strerror(st));
    }
    if (st == KV_OK) st = it->status(it);
    kv_matcher_free(&m);
    kv_buf_free(&row);
    kv_buf_free(&col);
    kv_sst_meta meta = {0};
    if (st == KV_OK) {
        st = kv_sst_finish(w, &meta, err, sizeof err);
        if (st != KV_OK) kv_fail(s, st, "finishing sorted file: %s", err);
    } else {
        kv_sst_abandon(w);
    }
    if (st != KV_OK || meta.entries == 0) {
        s->env->remove(s->env, path, err, sizeof err);
        free(path);
        kv_sst_meta_clear(&meta);
        return st;
    }
    free(path);
    kv_sstfile *f;
    st = kv_sstfile_open(s, number, &meta, &f);
    if (st != KV_OK) {
        char *p = kv_filename_sst(s->dir, number);
        if (p) s->env->remove(s->env, p, NULL, 0);
        free(p);
        kv_sst_meta_clear(&meta);
        return st;
    }
    *out = f;
    return KV_OK;
}
