/**
 * @file store.c
 * The engine's handle: open (directory checks, the lock, the manifest,
 * recovery, the background threads), close (flush, stop the threads,
 * unlock), figures, the clock, and the maintenance calls flush and compact.
 * Reached through the backend table of backend.c; the contracts are those
 * of the kvcore.h calls of the same names.
 */
#include "store.h"
#include "compact.h"
#include "errors.h"
#include "fileset.h"
#include "flush.h"
#include "manifest.h"
#include "read.h"
#include "recovery.h"
#include "tables.h"
#include "wal.h"
#include "write.h"
#include "util/filename.h"
#include "table/cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int64_t kv_engine_now(kv_engine *s) {
    int64_t now = kv_clock_now(s);
    pthread_mutex_lock(&s->mu);
    if (now < s->clock_floor) now = s->clock_floor;
    pthread_mutex_unlock(&s->mu);
    return now;
}

/* ---- open / close ---- */

static void free_store(kv_engine *s) {
    if (!s) return;
    kv_engine_scan_pool_free(s);
    kv_catalog_free(s);
    char err[256];
    if (s->wal) kv_wal_writer_close(s->wal, err, sizeof err);
    if (s->lock) s->env->unlock(s->lock, err, sizeof err);
    if (s->cache) kv_cache_free(s->cache);
    kv_buf_free(&s->leader_record);
    kv_buf_free(&s->insert_key);
    kv_buf_free(&s->rmw_value);
    pthread_rwlock_destroy(&s->catalog_lock);
    pthread_mutex_destroy(&s->rmw_mu);
    pthread_mutex_destroy(&s->mu);
    pthread_mutex_destroy(&s->manifest_mu);
    pthread_cond_destroy(&s->bg_cv);
    pthread_cond_destroy(&s->work_cv);
    pthread_cond_destroy(&s->compact_cv);
    free(s->dir);
    free(s);
}

static kv_status open_engine(kv_engine **out, const char *path, const kv_store_options *opts,
                             kv_report *report, bool salvage) {
    kv_local_options local_defaults = KV_LOCAL_OPTIONS_INIT;
    *out = NULL;
    kv_engine *s = calloc(1, sizeof *s);
    if (!s) return KV_NO_MEMORY;
    s->report = report;
    s->opts = *opts;
    s->local = opts->local ? *opts->local : local_defaults;
    if (s->local.version != KV_LOCAL_OPTIONS_VERSION) {
        kv_status st = kv_fail(s, KV_INVALID, "kv_local_options has version %d; this library "
                               "knows version %d (start from KV_LOCAL_OPTIONS_INIT)",
                               s->local.version, KV_LOCAL_OPTIONS_VERSION);
        free(s);
        return st;
    }
    if (!s->local.write_buffer_size) s->local.write_buffer_size = local_defaults.write_buffer_size;
    s->opts.local = &s->local;
    s->env = s->local.env ? s->local.env : kv_env_posix();
    s->read_only = s->opts.read_only || salvage;
    s->salvage = salvage;
    s->dir = strdup(path);
    pthread_rwlock_init(&s->catalog_lock, NULL);
    pthread_mutex_init(&s->rmw_mu, NULL);
    /* mu is held for short steps by readers, the write leader and the
       background threads: an adaptive mutex spins briefly before it
       sleeps, so that a get meeting a leader's publish does not pay two
       futex calls (a sleep and a wake-up) for a wait of a few hundred ns. */
    pthread_mutexattr_t mu_attr;
    pthread_mutexattr_init(&mu_attr);
    pthread_mutexattr_settype(&mu_attr, PTHREAD_MUTEX_ADAPTIVE_NP);
    pthread_mutex_init(&s->mu, &mu_attr);
    pthread_mutexattr_destroy(&mu_attr);
    pthread_mutex_init(&s->manifest_mu, NULL);
    s->clock = (kv_clock){s->opts.clock_ms, s->opts.clock_ctx};
    pthread_cond_init(&s->bg_cv, NULL);
    pthread_cond_init(&s->work_cv, NULL);
    pthread_cond_init(&s->compact_cv, NULL);
    atomic_init(&s->visible_seq, 0);
    s->next_file = 1;
    s->next_id = 1;
    s->clock_floor = INT64_MIN;
    char err[512] = "";
    kv_status st = s->dir ? KV_OK : KV_NO_MEMORY;
    char *manifest = NULL, *lockpath = NULL;
    uint8_t *mdata = NULL;
    size_t mlen = 0;
    uint64_t *logs = NULL;
    size_t nlogs = 0;
    if (st != KV_OK) goto out;

    /* A missing directory becomes a new store (when asked); an existing one
       must be a store or empty, so that no other directory is written into. */
    char **names = NULL;
    st = s->env->list(s->env, path, &names, err, sizeof err);
    if (st == KV_NOT_FOUND) {
        if (s->read_only) { st = kv_fail(s, KV_NOT_FOUND, "no store at %s (a read-only open creates none)", path); goto out; }
        if (!s->opts.create_if_missing) { st = kv_fail(s, KV_NOT_FOUND, "no store at %s", path); goto out; }
        st = s->env->mkdir(s->env, path, err, sizeof err);
        if (st == KV_NOT_FOUND) { st = kv_fail(s, st, "cannot create %s: parent directory missing", path); goto out; }
        if (st != KV_OK && st != KV_EXISTS) { kv_fail(s, st, "%s", err); goto out; }
    } else if (st != KV_OK) {
        kv_fail(s, st, "%s", err);
        goto out;
    } else {
        bool has_manifest = false, has_other = false;
        for (char **n = names; *n; n++) {
            if (strcmp(*n, "MANIFEST") == 0) has_manifest = true;
            else if (strcmp(*n, "LOCK") != 0 && strcmp(*n, "MANIFEST.tmp") != 0) has_other = true;
        }
        kv_free_names(names);
        if (!has_manifest && has_other && salvage) {
            /* A salvage reads what the files hold (below). */
        } else if (!has_manifest && has_other) {
            st = kv_fail(s, KV_INVALID, "%s is not a cellfs store: it holds other files and no MANIFEST", path);
            goto out;
        }
        if (!has_manifest && s->read_only && !(salvage && has_other)) {
            st = kv_fail(s, KV_NOT_FOUND, "no store at %s (a read-only open creates none)", path);
            goto out;
        }
    }
    st = KV_OK;

    lockpath = kv_filename_lock(path);
    st = lockpath ? KV_LOCKED : KV_NO_MEMORY;
    for (unsigned waited = 0; st == KV_LOCKED; waited += 50) {
        st = s->env->lock(s->env, lockpath, s->opts.owner ? s->opts.owner : "", s->read_only, &s->lock,
                          err, sizeof err);
        if (st != KV_LOCKED || waited >= s->local.lock_wait_ms) break;
        nanosleep(&(struct timespec){0, 50 * 1000 * 1000}, NULL);
    }
    if (st != KV_OK) { kv_fail(s, st, "%s", err); goto out; }

    manifest = kv_filename_manifest(path);
    st = manifest ? kv_env_read_file(s->env, manifest, &mdata, &mlen, err, sizeof err) : KV_NO_MEMORY;
    if (st == KV_NOT_FOUND && salvage) {
        /* Nothing tells the catalog: the sorted files and logged cells go
           to lost_found (check.c). */
        s->manifest_damaged = true;
        kv_log(s, KV_LOG_WARN, "lost: %s is missing: the catalog (namespaces, tables, families) is "
               "unknown", manifest);
        if ((st = kv_catalog_add_namespace(s, "default")) != KV_OK || (st = kv_catalog_add_namespace(s, "hbase")) != KV_OK) goto out;
    } else if (st == KV_NOT_FOUND) {
        if (!s->opts.create_if_missing || s->read_only) { st = kv_fail(s, KV_NOT_FOUND, "no store at %s (no MANIFEST)", path); goto out; }
        if ((st = kv_catalog_add_namespace(s, "default")) != KV_OK || (st = kv_catalog_add_namespace(s, "hbase")) != KV_OK) goto out;
        kv_manifest_lock(s);
        st = kv_manifest_save(s, true, NULL, 0);
        kv_manifest_unlock(s);
        if (st != KV_OK) goto out;
    } else if (st != KV_OK) {
        kv_fail(s, st, "reading the manifest: %s", err);
        goto out;
    } else {
        if (s->opts.error_if_exists) { st = kv_fail(s, KV_EXISTS, "a store exists at %s", path); goto out; }
        s->cache = kv_cache_new(s->local.block_cache_size);
        if (!s->cache) { st = KV_NO_MEMORY; goto out; }
        if ((st = kv_manifest_load(s, mdata, mlen)) != KV_OK) goto out;
    }
    if (!s->cache && !(s->cache = kv_cache_new(s->local.block_cache_size))) { st = KV_NO_MEMORY; goto out; }
    if ((st = kv_recovery_replay(s, &logs, &nlogs)) != KV_OK) goto out;
    if (!s->read_only) {
        if ((st = kv_flush_start(s)) != KV_OK) goto out;
        if (s->local.compaction == KV_COMPACTION_AUTO && (st = kv_compact_start(s)) != KV_OK) goto out;
        if ((st = kv_recovery_finish(s, logs, nlogs)) != KV_OK) goto out;
    }
out:
    free(logs);
    free(mdata);
    free(manifest);
    free(lockpath);
    if (st != KV_OK) {
        kv_compact_stop(s);
        kv_flush_stop(s);
        free_store(s);
        return st;
    }
    *out = s;
    return KV_OK;
}

kv_status kv_engine_open(kv_engine **out, const char *path, const kv_store_options *opts,
                         kv_report *report) {
    return open_engine(out, path, opts, report, false);
}

kv_status kv_engine_open_salvage(kv_engine **out, const char *path, kv_report *report) {
    kv_store_options o = KV_STORE_OPTIONS_INIT;
    o.read_only = true;
    return open_engine(out, path, &o, report, true);
}

kv_status kv_engine_close(kv_engine *s) {
    kv_status st = KV_OK;
    if (!s->read_only) {
        pthread_rwlock_rdlock(&s->catalog_lock);
        st = kv_write_flush(s);
        /* A manifest write failed since the last snapshot (maybe after the
           new text reached the disk): leave the state in memory on disk. */
        kv_manifest_lock(s);
        if (st == KV_OK && s->manifest_snapshot_needed) st = kv_manifest_save(s, true, NULL, 0);
        kv_manifest_unlock(s);
        pthread_rwlock_unlock(&s->catalog_lock);
        if (st == KV_OK) kv_compact_at_close(s);
    }
    kv_compact_stop(s);
    kv_flush_stop(s);
    if (s->wal) {
        char err[256];
        kv_status cs = kv_wal_sync(s->wal, err, sizeof err);
        if (st == KV_OK && cs != KV_OK) st = kv_fail(s, cs, "syncing the log: %s", err);
    }
    free_store(s);
    return st;
}

kv_status kv_engine_stat(kv_engine *s, kv_store_stats *out) {
    memset(out, 0, sizeof *out);
    pthread_rwlock_rdlock(&s->catalog_lock);
    pthread_mutex_lock(&s->mu);
    for (size_t i = 0; i < s->ntables; i++)
        for (size_t f = 0; f < s->tables[i]->nfamilies; f++) {
            kv_family *fam = s->tables[i]->families[f];
            if (fam->mem) out->memstore_bytes += kv_memstore_bytes(fam->mem);
            if (fam->imm) out->memstore_bytes += kv_memstore_bytes(fam->imm);
            for (size_t k = 0; k < fam->files->n; k++) {
                out->disk_bytes += fam->files->files[k]->meta.file_size;
                out->sorted_files++;
            }
        }
    if (s->wal) out->disk_bytes += kv_wal_size(s->wal);
    out->flushes = s->flushes;
    out->compactions = s->compactions;
    out->write_stalls = s->write_stalls;
    out->last_sequence = atomic_load(&s->visible_seq);
    pthread_mutex_unlock(&s->mu);
    pthread_rwlock_unlock(&s->catalog_lock);
    out->cache_bytes = s->cache ? kv_cache_usage(s->cache) : 0;
    return KV_OK;
}

/* ---- maintenance ---- */

kv_status kv_engine_flush(kv_engine *s, const char *table) {
    pthread_rwlock_rdlock(&s->catalog_lock);
    kv_status st = KV_OK;
    if (table && !kv_catalog_find(s, table)) st = kv_fail(s, KV_NOT_FOUND, "table '%s' does not exist", table);
    /* Memstores are switched store-wide, so flushing one table flushes all. */
    if (st == KV_OK) st = kv_write_flush(s);
    pthread_rwlock_unlock(&s->catalog_lock);
    return st;
}

kv_status kv_engine_compact(kv_engine *s, const char *table, bool major) {
    pthread_rwlock_rdlock(&s->catalog_lock);
    kv_status st = KV_OK;
    kv_table *t = NULL;
    if (table && !(t = kv_catalog_find(s, table)))
        st = kv_fail(s, KV_NOT_FOUND, "table '%s' does not exist", table);
    if (st == KV_OK) st = kv_compact_now(s, t, major);
    pthread_rwlock_unlock(&s->catalog_lock);
    return st;
}
