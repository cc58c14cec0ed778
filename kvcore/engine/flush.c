/**
 * @file flush.c
 * Moving cells from memory to sorted files and merging files: the memstore
 * switch (a new log, every family's buffer set aside), the flush of the
 * set-aside buffers to one sorted file per family, minor compactions picked
 * by a size-ratio policy, major compactions on demand, and the background
 * thread that runs them. Retention during both is decided by matcher.c.
 * A new file set is published only after the manifest naming it is on
 * disk; replaced files are removed when the last scan using them ends.
 */
#include "store_internal.h"
#include "keys.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define COMPACT_MIN_FILES 3
#define COMPACT_MAX_FILES 10
#define COMPACT_RATIO 1.2
#define FILES_FORCING_COMPACTION 12

/* ---- switch ---- */

kv_status kv_open_new_log(kv_store *s, uint64_t number, kv_wal_writer **out) {
    char err[512] = "";
    char *path = kv_filename_log(s->dir, number);
    kv_status st = path ? kv_wal_writer_open(out, s->env, path, err, sizeof err) : KV_NO_MEMORY;
    /* An fsync'd record must be findable after power loss: make the new
       log's directory entry durable before anything is logged in it. */
    if (st == KV_OK && (st = s->env->sync_dir(s->env, s->dir, err, sizeof err)) != KV_OK) {
        kv_wal_writer_close(*out, NULL, 0);
        *out = NULL;
    }
    /* On a full disk every write retries this: leave no empty log behind
       each time (best effort; nothing was logged in it). */
    if (st != KV_OK && path) s->env->remove(s->env, path, NULL, 0);
    free(path);
    if (st != KV_OK) return kv_fail(s, st, "creating a new write-ahead log: %s", err);
    return KV_OK;
}

kv_status kv_switch_memstores(kv_store *s) {
    char err[512] = "";
    uint64_t number = s->next_file++;
    kv_wal_writer *w = NULL;
    kv_status st = kv_open_new_log(s, number, &w);
    if (st != KV_OK) return st;
    /* The old log's records are all written (each append is whole); what
       FSYNC_WAL callers needed synced was synced before they returned. */
    if (s->wal && kv_wal_writer_close(s->wal, err, sizeof err) != KV_OK)
        kv_log(s, KV_LOG_WARN, "closing the old log: %s", err);
    s->wal = w;
    s->wal_number = number;
    bool any = false;
    for (size_t i = 0; i < s->ntables; i++)
        for (size_t f = 0; f < s->tables[i]->nfamilies; f++) {
            kv_family *fam = s->tables[i]->families[f];
            if (fam->mem && kv_memstore_entries(fam->mem) > 0) {
                fam->imm = fam->mem;
                fam->mem = NULL;
                any = true;
            }
        }
    s->pending_log_number = number;
    s->flush_pending = true;
    /* A new flush starts (none is pending): an earlier failure is stale. */
    s->bg_error = KV_OK;
    (void)any;
    pthread_cond_broadcast(&s->work_cv);
    return KV_OK;
}

/* ---- writing a family file from an iterator ---- */

/* Writes the entries of it that the matcher keeps into a new sorted file.
   *out is NULL when nothing was kept (no file is left behind). */
static kv_status write_family_file(kv_store *s, const kv_family_desc *desc, kv_iter *it,
                                   kv_match_mode mode, kv_sstfile **out) {
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
    kv_matcher m;
    kv_matcher_init(&m, mode, desc, UINT64_MAX, kv_clock_now(s));
    kv_buf row = {0}, col = {0};
    bool first = true;
    for (it->seek(it, NULL, 0); st == KV_OK && it->valid(it); it->next(it)) {
        size_t klen, vlen;
        const uint8_t *key = it->key(it, &klen);
        const uint8_t *val = it->value(it, &vlen);
        size_t rl = kv_key_row_prefix_len(key, klen), cl = kv_key_column_prefix_len(key, klen);
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
    kv_sstfile *f = calloc(1, sizeof *f);
    if (!f) st = KV_NO_MEMORY;
    else st = kv_sst_open(&f->reader, s->env, path, number, s->cache, err, sizeof err);
    if (st != KV_OK) {
        if (f) kv_fail(s, st, "reopening sorted file: %s", err);
        free(f);
        s->env->remove(s->env, path, err, sizeof err);
        free(path);
        kv_sst_meta_clear(&meta);
        return st;
    }
    free(path);
    atomic_init(&f->refs, 1);
    f->number = number;
    f->meta = meta;
    f->store = s;
    *out = f;
    return KV_OK;
}

/* ---- flush ---- */

typedef struct flush_item {
    kv_family *fam;
    kv_memstore *imm;
    kv_family_desc desc;
    kv_sstfile *file;
} flush_item;

static void remove_old_logs(kv_store *s, uint64_t below) {
    char **names = NULL;
    char err[256];
    if (s->env->list(s->env, s->dir, &names, err, sizeof err) != KV_OK) return;
    for (char **p = names; *p; p++) {
        uint64_t n;
        if (kv_filename_parse(*p, &n) != 'l' || n >= below) continue;
        char *path = kv_filename_log(s->dir, n);
        if (path && s->env->remove(s->env, path, err, sizeof err) != KV_OK)
            kv_log(s, KV_LOG_WARN, "could not remove old log: %s", err);
        free(path);
    }
    kv_free_names(names);
}

/* Flushes every imm memstore (catalog_lock held shared, mu not held). */
static kv_status flush_imm_locked(kv_store *s) {
    pthread_mutex_lock(&s->mu);
    size_t n = 0;
    for (size_t i = 0; i < s->ntables; i++)
        for (size_t f = 0; f < s->tables[i]->nfamilies; f++) n += s->tables[i]->families[f]->imm != NULL;
    flush_item *items = calloc(n ? n : 1, sizeof *items);
    if (!items) {
        pthread_mutex_unlock(&s->mu);
        return KV_NO_MEMORY;
    }
    size_t k = 0;
    for (size_t i = 0; i < s->ntables; i++)
        for (size_t f = 0; f < s->tables[i]->nfamilies; f++) {
            kv_family *fam = s->tables[i]->families[f];
            if (!fam->imm) continue;
            items[k].fam = fam;
            items[k].imm = fam->imm;
            items[k].desc = fam->desc;
            kv_memstore_ref(fam->imm);
            k++;
        }
    uint64_t log_after = s->pending_log_number;
    pthread_mutex_unlock(&s->mu);

    kv_status st = KV_OK;
    for (size_t i = 0; i < n && st == KV_OK; i++) {
        kv_memstore_ref(items[i].imm);
        kv_iter *it = kv_memstore_iter(items[i].imm);
        kv_memstore_unref(items[i].imm);
        if (!it) { st = KV_NO_MEMORY; break; }
        st = write_family_file(s, &items[i].desc, it, KV_MATCH_MINOR, &items[i].file);
        it->destroy(it);
    }
    pthread_mutex_lock(&s->mu);
    if (st == KV_OK) {
        kv_fileset *old_sets[n ? n : 1];
        for (size_t i = 0; i < n; i++) {
            kv_family *fam = items[i].fam;
            old_sets[i] = NULL;
            if (fam->dropped || !items[i].file) continue;
            kv_fileset *fs = kv_fileset_new(fam->files->n + 1);
            if (!fs) { st = KV_NO_MEMORY; break; }
            fs->files[0] = items[i].file;
            for (size_t j = 0; j < fam->files->n; j++) {
                atomic_fetch_add(&fam->files->files[j]->refs, 1);
                fs->files[j + 1] = fam->files->files[j];
            }
            fs->n = fam->files->n + 1;
            old_sets[i] = fam->files;
            fam->files = fs;
            items[i].file = NULL; /* owned by the set now */
        }
        if (st == KV_OK) {
            uint64_t saved = s->log_number;
            s->log_number = log_after;
            kv_status ms = kv_manifest_write(s);
            if (ms != KV_OK) s->log_number = saved;
            /* Even if the manifest failed, the memory state is right; the old
               logs stay until a manifest names the new files. */
            st = ms;
            for (size_t i = 0; i < n; i++) {
                kv_family *fam = items[i].fam;
                if (fam->imm == items[i].imm) {
                    kv_memstore_unref(fam->imm);
                    fam->imm = NULL;
                }
                if (old_sets[i]) kv_fileset_unref(old_sets[i]);
            }
            s->flush_pending = false;
            s->flushes++;
        }
    }
    /* Set here, before waiters wake, so kv_flush reports this flush. */
    s->bg_error = st;
    pthread_cond_broadcast(&s->bg_cv);
    uint64_t log_number = s->log_number;
    pthread_mutex_unlock(&s->mu);
    for (size_t i = 0; i < n; i++) {
        if (items[i].file) {
            items[i].file->obsolete = true;
            kv_sstfile_unref(items[i].file);
        }
        kv_memstore_unref(items[i].imm);
    }
    free(items);
    if (st == KV_OK) remove_old_logs(s, log_number);
    return st;
}

kv_status kv_flush_imm(kv_store *s) {
    pthread_rwlock_rdlock(&s->catalog_lock);
    kv_status st = flush_imm_locked(s);
    pthread_rwlock_unlock(&s->catalog_lock);
    return st;
}

/* ---- compaction ---- */

/* Chooses files [*lo, *hi) of fs (newest first) for a minor compaction by
   the size-ratio rule: each file at most RATIO times the rest together.
   Returns false when nothing is worth compacting. */
static bool pick_minor(const kv_fileset *fs, size_t *lo, size_t *hi) {
    size_t n = fs->n;
    if (n < COMPACT_MIN_FILES) return false;
    bool found = false;
    size_t best_count = 0;
    uint64_t best_total = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t total = 0;
        for (size_t j = i; j < n && j - i < COMPACT_MAX_FILES; j++) {
            total += fs->files[j]->meta.file_size;
            size_t count = j - i + 1;
            if (count < COMPACT_MIN_FILES) continue;
            bool ok = true;
            for (size_t k = i; k <= j && ok; k++) {
                uint64_t sz = fs->files[k]->meta.file_size;
                ok = (double)sz <= COMPACT_RATIO * (double)(total - sz);
            }
            if (ok && (count > best_count || (count == best_count && total < best_total))) {
                found = true;
                best_count = count;
                best_total = total;
                *lo = i;
                *hi = j + 1;
            }
        }
    }
    if (!found && n >= FILES_FORCING_COMPACTION) {
        /* Too many files and none fits the ratio: merge the newest ones,
           which are the smallest. */
        *lo = 0;
        *hi = COMPACT_MAX_FILES;
        found = true;
    }
    return found;
}

/* Compacts one family (catalog_lock held shared, mu not held). */
static kv_status compact_family(kv_store *s, kv_family *fam, bool major, bool *did) {
    *did = false;
    pthread_mutex_lock(&s->mu);
    while (fam->compacting) pthread_cond_wait(&s->bg_cv, &s->mu);
    kv_fileset *fs = fam->files;
    size_t lo = 0, hi = fs->n;
    bool go = major ? fs->n > 0 : pick_minor(fs, &lo, &hi);
    if (!go || fam->dropped) {
        pthread_mutex_unlock(&s->mu);
        return KV_OK;
    }
    fam->compacting = true;
    kv_fileset_ref(fs);
    kv_family_desc desc = fam->desc;
    pthread_mutex_unlock(&s->mu);

    kv_status st = KV_OK;
    kv_iter **kids = calloc(hi - lo, sizeof *kids);
    kv_sstfile *out = NULL;
    if (!kids) st = KV_NO_MEMORY;
    for (size_t i = lo; st == KV_OK && i < hi; i++) kids[i - lo] = kv_sst_iter(fs->files[i]->reader, false, false);
    kv_iter *it = st == KV_OK ? kv_merge_iter_new(kids, hi - lo) : NULL;
    free(kids);
    if (st == KV_OK && !it) st = KV_NO_MEMORY;
    if (st == KV_OK) st = write_family_file(s, &desc, it, major ? KV_MATCH_MAJOR : KV_MATCH_MINOR, &out);
    if (it) it->destroy(it);

    pthread_mutex_lock(&s->mu);
    if (st == KV_OK && !fam->dropped) {
        /* The current set may have gained newer files from flushes meanwhile;
           replace exactly the inputs. */
        kv_fileset *cur = fam->files;
        kv_fileset *next = kv_fileset_new(cur->n + 1);
        if (!next) {
            st = KV_NO_MEMORY;
        } else {
            bool placed = false;
            for (size_t i = 0; i < cur->n; i++) {
                kv_sstfile *f = cur->files[i];
                bool input = false;
                for (size_t j = lo; j < hi && !input; j++) input = fs->files[j] == f;
                if (input) {
                    if (!placed && out) next->files[next->n++] = out;
                    placed = true;
                    continue;
                }
                atomic_fetch_add(&f->refs, 1);
                next->files[next->n++] = f;
            }
            if (!placed && out) next->files[next->n++] = out;
            fam->files = next;
            kv_status ms = kv_manifest_write(s);
            if (ms != KV_OK) {
                /* Keep the old set: the manifest on disk still names it. */
                fam->files = cur;
                if (out) out->obsolete = true;
                kv_fileset_unref(next);
                if (out && !placed) kv_sstfile_unref(out);
                out = NULL;
                st = ms;
            } else {
                for (size_t j = lo; j < hi; j++) fs->files[j]->obsolete = true;
                kv_fileset_unref(cur);
                out = NULL;
                s->compactions++;
                *did = true;
            }
        }
    }
    fam->compacting = false;
    pthread_cond_broadcast(&s->bg_cv);
    pthread_mutex_unlock(&s->mu);
    if (out) {
        out->obsolete = true;
        kv_sstfile_unref(out);
    }
    kv_fileset_unref(fs);
    return st;
}

kv_status kv_compact_now(kv_store *s, kv_table *t, bool major) {
    kv_status st = KV_OK;
    bool did;
    if (major) st = kv_write_flush(s);
    for (size_t i = 0; st == KV_OK && i < s->ntables; i++) {
        kv_table *tab = s->tables[i];
        if (t && tab != t) continue;
        for (size_t f = 0; st == KV_OK && f < tab->nfamilies; f++)
            st = compact_family(s, tab->families[f], major, &did);
    }
    return st;
}

/* ---- background thread ---- */

/* One pass of minor compactions over every family. Returns whether any
   family was compacted (then another pass may find more to do). */
static bool compaction_pass(kv_store *s) {
    bool any = false;
    pthread_rwlock_rdlock(&s->catalog_lock);
    for (size_t i = 0; i < s->ntables; i++)
        for (size_t f = 0; f < s->tables[i]->nfamilies; f++) {
            pthread_mutex_lock(&s->mu);
            bool stop = s->shutting_down;
            pthread_mutex_unlock(&s->mu);
            if (stop) goto out;
            bool did = false;
            kv_status st = compact_family(s, s->tables[i]->families[f], false, &did);
            if (st != KV_OK) kv_log(s, KV_LOG_ERROR, "background compaction failed: %s", kv_store_errmsg(s));
            any |= did;
        }
out:
    pthread_rwlock_unlock(&s->catalog_lock);
    return any;
}

/* The flush thread: writes set-aside memstores as soon as they exist, so
   writers never wait behind a compaction. */
static void *flush_main(void *arg) {
    kv_store *s = arg;
    pthread_mutex_lock(&s->mu);
    while (!s->shutting_down) {
        if (s->flush_pending) {
            pthread_mutex_unlock(&s->mu);
            kv_status st = kv_flush_imm(s);
            pthread_mutex_lock(&s->mu);
            pthread_cond_broadcast(&s->bg_cv);
            if (st == KV_OK) {
                s->compaction_wanted = true;
                pthread_cond_broadcast(&s->compact_cv);
            } else if (!s->shutting_down) {
                kv_log(s, KV_LOG_ERROR, "background flush failed (will retry): %s", kv_store_errmsg(s));
                struct timespec until;
                clock_gettime(CLOCK_REALTIME, &until);
                until.tv_sec += 1;
                pthread_cond_timedwait(&s->work_cv, &s->mu, &until);
            }
            continue;
        }
        pthread_cond_wait(&s->work_cv, &s->mu);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

/* The compaction thread: after each flush, passes over the families until
   none needs a minor compaction. */
static void *compact_main(void *arg) {
    kv_store *s = arg;
    pthread_mutex_lock(&s->mu);
    while (!s->shutting_down) {
        if (s->compaction_wanted) {
            s->compaction_wanted = false;
            pthread_mutex_unlock(&s->mu);
            while (compaction_pass(s)) {}
            pthread_mutex_lock(&s->mu);
            continue;
        }
        pthread_cond_wait(&s->compact_cv, &s->mu);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

kv_status kv_bg_start(kv_store *s) {
    int rc = pthread_create(&s->bg_thread, NULL, flush_main, s);
    if (rc != 0) return kv_fail(s, KV_NO_MEMORY, "cannot start the flush thread: %s", strerror(rc));
    rc = pthread_create(&s->compact_thread, NULL, compact_main, s);
    if (rc != 0) {
        kv_bg_stop(s);
        return kv_fail(s, KV_NO_MEMORY, "cannot start the compaction thread: %s", strerror(rc));
    }
    s->bg_started = true;
    s->compact_started = true;
    return KV_OK;
}

void kv_bg_stop(kv_store *s) {
    pthread_mutex_lock(&s->mu);
    s->shutting_down = true;
    pthread_cond_broadcast(&s->work_cv);
    pthread_cond_broadcast(&s->compact_cv);
    pthread_mutex_unlock(&s->mu);
    pthread_join(s->bg_thread, NULL);
    if (s->compact_started) pthread_join(s->compact_thread, NULL);
    s->bg_started = s->compact_started = false;
}
