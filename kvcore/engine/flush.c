/**
 * @file flush.c
 * Moving cells from memory to sorted files: the memstore switch (a new
 * log, every family's buffer set aside), the flush of the set-aside
 * buffers to one sorted file per family (builder.c; retention decided by
 * matcher.c as in a minor compaction), the manifest update that publishes
 * the new files, the removal of the logs they cover, and the flush thread
 * that runs it. After a flush the compaction thread (compact.c) is told
 * that there may be work.
 */
#include "flush.h"
#include "builder.h"
#include "errors.h"
#include "fileset.h"
#include "manifest.h"
#include "tables.h"
#include "wal.h"
#include "util/filename.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- switch ---- */

kv_status kv_open_new_log(kv_engine *s, uint64_t number, kv_wal_writer **out) {
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

kv_status kv_switch_memstores(kv_engine *s) {
    char err[512] = "";
    uint64_t number = s->next_file++;
    kv_wal_writer *w = NULL;
    /* The open and the directory sync take milliseconds (a journal
       commit): not under mu, which every get takes. */
    pthread_mutex_unlock(&s->mu);
    kv_status st = kv_open_new_log(s, number, &w);
    pthread_mutex_lock(&s->mu);
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
    s->imm_bytes = s->mem_bytes;
    s->flush_pending = true;
    /* A new flush starts (none is pending): an earlier failure is stale. */
    s->bg_error = KV_OK;
    (void)any;
    pthread_cond_broadcast(&s->work_cv);
    return KV_OK;
}

/* ---- flush ---- */

typedef struct flush_item {
    kv_family *fam;
    kv_memstore *imm;
    kv_family_desc desc;
    kv_sstfile *file;
} flush_item;

static void remove_old_logs(kv_engine *s, uint64_t below) {
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
static kv_status flush_imm_locked(kv_engine *s) {
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
        st = kv_build_family_file(s, &items[i].desc, it, KV_MATCH_MINOR, 0, &items[i].file);
        it->destroy(it);
    }
    /* The manifest lock keeps other file-set changes out until the new sets
       are durable; the manifest I/O runs outside mu. */
    kv_manifest_lock(s);
    pthread_mutex_lock(&s->mu);
    kv_family **changed = st == KV_OK ? calloc(n ? n : 1, sizeof *changed) : NULL;
    size_t nchanged = 0;
    if (st == KV_OK && !changed) st = KV_NO_MEMORY;
    if (st == KV_OK) {
        kv_fileset *old_sets[n ? n : 1];
        for (size_t i = 0; i < n; i++) old_sets[i] = NULL;
        /* Build every new set first: an allocation failure leaves every
           family as it was. */
        kv_fileset *new_sets[n ? n : 1];
        for (size_t i = 0; i < n; i++) new_sets[i] = NULL;   /* all of them: a failure stops the loop */
        for (size_t i = 0; i < n && st == KV_OK; i++) {
            kv_family *fam = items[i].fam;
            if (fam->dropped || !items[i].file) continue;
            if (!(new_sets[i] = kv_fileset_new(fam->files->n + 1))) st = KV_NO_MEMORY;
        }
        if (st != KV_OK) {
            for (size_t i = 0; i < n; i++) kv_fileset_unref(new_sets[i]);
        } else {
            for (size_t i = 0; i < n; i++) {
                kv_family *fam = items[i].fam;
                kv_fileset *fs = new_sets[i];
                if (!fs) continue;
                fs->files[0] = items[i].file;
                for (size_t j = 0; j < fam->files->n; j++) {
                    kv_sstfile_ref(fam->files->files[j]);
                    fs->files[j + 1] = fam->files->files[j];
                }
                fs->n = fam->files->n + 1;
                old_sets[i] = fam->files;
                fam->files = fs;
                changed[nchanged++] = fam;
                items[i].file = NULL; /* owned by the set now */
            }
            uint64_t saved = s->log_number;
            s->log_number = log_after;
            pthread_mutex_unlock(&s->mu);
            kv_status ms = kv_manifest_save(s, false, changed, nchanged);
            pthread_mutex_lock(&s->mu);
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
            s->imm_bytes = 0;
            s->flushes++;
        }
    }
    free(changed);
    kv_manifest_unlock(s);
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
    kv_release_free_memory();
    return st;
}

static kv_status flush_imm(kv_engine *s) {
    pthread_rwlock_rdlock(&s->catalog_lock);
    kv_status st = flush_imm_locked(s);
    pthread_rwlock_unlock(&s->catalog_lock);
    return st;
}

/* ---- background thread ---- */

/* The flush thread: writes set-aside memstores as soon as they exist, so
   writers never wait behind a compaction. */
static void *flush_main(void *arg) {
    kv_engine *s = arg;
    pthread_mutex_lock(&s->mu);
    while (!s->shutting_down) {
        if (s->flush_pending) {
            pthread_mutex_unlock(&s->mu);
            kv_status st = flush_imm(s);
            pthread_mutex_lock(&s->mu);
            pthread_cond_broadcast(&s->bg_cv);
            if (st == KV_OK) {
                s->compaction_wanted = true;
                pthread_cond_broadcast(&s->compact_cv);
            } else if (!s->shutting_down) {
                kv_log(s, KV_LOG_ERROR, "background flush failed (will retry): %s", kv_report_last(s->report));
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

kv_status kv_flush_start(kv_engine *s) {
    int rc = pthread_create(&s->bg_thread, NULL, flush_main, s);
    if (rc != 0) return kv_fail(s, KV_NO_MEMORY, "cannot start the flush thread: %s", strerror(rc));
    s->bg_started = true;
    return KV_OK;
}

void kv_flush_stop(kv_engine *s) {
    if (!s->bg_started) return;
    pthread_mutex_lock(&s->mu);
    s->shutting_down = true;
    pthread_cond_broadcast(&s->work_cv);
    pthread_mutex_unlock(&s->mu);
    pthread_join(s->bg_thread, NULL);
    s->bg_started = false;
}
