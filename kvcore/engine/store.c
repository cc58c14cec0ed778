/**
 * @file store.c
 * The store handle: open (lock, manifest, log replay), close (flush, stop
 * the background thread, unlock), the failure message, the clock, and the
 * public write entry points that resolve a table and hand mutations to the
 * write queue (write.c).
 */
#include "store_internal.h"
#include "keys.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- messages ---- */

/* The message slot of the calling thread, taking the oldest slot when the
   thread has none (errmsg_mu held). */
static struct kv_errslot *thread_slot(kv_store *s, bool create) {
    pthread_t self = pthread_self();
    for (size_t i = 0; i < KV_ERRMSG_SLOTS; i++)
        if (s->errslots[i].used && pthread_equal(s->errslots[i].thread, self)) return &s->errslots[i];
    if (!create) return NULL;
    struct kv_errslot *slot = &s->errslots[s->errslot_next++ % KV_ERRMSG_SLOTS];
    slot->used = true;
    slot->thread = self;
    return slot;
}

static bool on_background_thread(const kv_store *s) {
    pthread_t self = pthread_self();
    return (s->bg_started && pthread_equal(self, s->bg_thread)) ||
           (s->compact_started && pthread_equal(self, s->compact_thread));
}

/* Records a failure message for the calling thread (a background thread's
   also becomes the store's background message, which callers whose writes
   fail because of it are given); passes kv_log's messages to the user's log
   sink. Failures of a call are returned to its caller and not logged, so
   that nothing is reported twice. */
static void vrecord(kv_store *s, int level, bool to_sink, const char *fmt, va_list ap) {
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (level == KV_LOG_ERROR) {
        pthread_mutex_lock(&s->errmsg_mu);
        struct kv_errslot *slot = thread_slot(s, true);
        snprintf(slot->text, sizeof slot->text, "%s", msg);
        if (on_background_thread(s)) snprintf(s->bg_errmsg, sizeof s->bg_errmsg, "%s", msg);
        pthread_mutex_unlock(&s->errmsg_mu);
    }
    if (to_sink && s->opts.log) s->opts.log(s->opts.log_ctx, level, msg);
}

kv_status kv_fail(kv_store *s, kv_status status, const char *fmt, ...) {
    if (!s) return status;
    va_list ap;
    va_start(ap, fmt);
    vrecord(s, KV_LOG_ERROR, false, fmt, ap);
    va_end(ap);
    return status;
}

kv_status kv_fail_background(kv_store *s, kv_status status, const char *what) {
    char bg[512];
    pthread_mutex_lock(&s->errmsg_mu);
    snprintf(bg, sizeof bg, "%s", s->bg_errmsg[0] ? s->bg_errmsg : kv_strerror(status));
    pthread_mutex_unlock(&s->errmsg_mu);
    return kv_fail(s, status, "%s: %s", what, bg);
}

void kv_log(kv_store *s, int level, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vrecord(s, level, true, fmt, ap);
    va_end(ap);
}

const char *kv_store_errmsg(kv_store *s) {
    if (!s) return "";
    pthread_mutex_lock(&s->errmsg_mu);
    struct kv_errslot *slot = thread_slot(s, false);
    pthread_mutex_unlock(&s->errmsg_mu);
    return slot ? slot->text : "";
}

kv_status kv_check_version(kv_store *s, const char *what, int got, int want) {
    if (got == want) return KV_OK;
    return kv_fail(s, KV_INVALID, "%s has version %d; this library knows version %d (start from "
                   "the struct's _INIT macro)", what, got, want);
}

/* ---- clock ---- */

int64_t kv_clock_now(kv_store *s) {
    if (s->opts.clock_ms) return s->opts.clock_ms(s->opts.clock_ctx);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t kv_store_now(kv_store *s) {
    int64_t now = kv_clock_now(s);
    pthread_mutex_lock(&s->mu);
    if (now < s->clock_floor) now = s->clock_floor;
    pthread_mutex_unlock(&s->mu);
    return now;
}

/* ---- file sets ---- */

void kv_sstfile_unref(kv_sstfile *f) {
    if (!f || atomic_fetch_sub(&f->refs, 1) != 1) return;
    kv_store *s = f->store;
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

/* ---- open / close ---- */

static void free_catalog(kv_store *s) {
    for (size_t i = 0; i < s->ntables; i++) kv_table_free(s->tables[i]);
    free(s->tables);
    s->tables = NULL;
    s->ntables = 0;
    for (size_t i = 0; i < s->nnamespaces; i++)
        kv_free_properties(s->namespaces[i].props, s->namespaces[i].nprops);
    free(s->namespaces);
    s->namespaces = NULL;
    while (s->graveyard) {
        kv_family *f = s->graveyard;
        s->graveyard = f->graveyard_next;
        kv_family_free(f);
    }
}

static void free_store(kv_store *s) {
    if (!s) return;
    free_catalog(s);
    char err[256];
    if (s->wal) kv_wal_writer_close(s->wal, err, sizeof err);
    if (s->lock) s->env->unlock(s->lock, err, sizeof err);
    if (s->cache) kv_cache_free(s->cache);
    kv_buf_free(&s->leader_record);
    pthread_rwlock_destroy(&s->catalog_lock);
    pthread_mutex_destroy(&s->rmw_mu);
    pthread_mutex_destroy(&s->mu);
    pthread_mutex_destroy(&s->errmsg_mu);
    pthread_cond_destroy(&s->bg_cv);
    pthread_cond_destroy(&s->work_cv);
    pthread_cond_destroy(&s->compact_cv);
    free(s->dir);
    free(s);
}

static kv_status add_namespace(kv_store *s, const char *name) {
    kv_namespace *p = realloc(s->namespaces, (s->nnamespaces + 1) * sizeof *p);
    if (!p) return KV_NO_MEMORY;
    s->namespaces = p;
    memset(&p[s->nnamespaces], 0, sizeof *p);
    snprintf(p[s->nnamespaces++].name, KV_NAME_MAX + 1, "%s", name);
    return KV_OK;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Replays every log at or above log_number, in order, then removes them
   once their contents are safely in the new log (they are flushed at the
   first switch like any other memstore contents). */
static kv_status replay_logs(kv_store *s, uint64_t **old_logs, size_t *nold) {
    char **names = NULL;
    char err[512] = "";
    kv_status st = s->env->list(s->env, s->dir, &names, err, sizeof err);
    if (st != KV_OK) return kv_fail(s, st, "listing %s: %s", s->dir, err);
    size_t n = 0, cap = 0;
    uint64_t *logs = NULL;
    for (char **p = names; *p; p++) {
        uint64_t num;
        char kind = kv_filename_parse(*p, &num);
        if (kind == 'l' || kind == 's') {
            if (num >= s->next_file) s->next_file = num + 1;
        }
        if (kind != 'l') continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 8;
            uint64_t *q = realloc(logs, cap * sizeof *q);
            if (!q) { kv_free_names(names); free(logs); return KV_NO_MEMORY; }
            logs = q;
        }
        logs[n++] = num;
    }
    kv_free_names(names);
    if (n) qsort(logs, n, sizeof *logs, cmp_u64);
    for (size_t i = 0; i < n && st == KV_OK; i++) {
        if (logs[i] < s->log_number) continue;
        char *path = kv_filename_log(s->dir, logs[i]);
        kv_wal_reader *r = NULL;
        st = path ? kv_wal_reader_open(&r, s->env, path, err, sizeof err) : KV_NO_MEMORY;
        while (st == KV_OK) {
            const uint8_t *rec;
            size_t len;
            st = kv_wal_read(r, &rec, &len, err, sizeof err);
            if (st == KV_END) { st = KV_OK; break; }
            if (st != KV_OK) break;
            st = kv_write_replay(s, rec, len);
            if (st == KV_CORRUPT) snprintf(err, sizeof err, "%s: undecodable record", path);
        }
        kv_wal_reader_close(r);
        if (st != KV_OK) kv_fail(s, st, "replaying the write-ahead log: %s", err);
        free(path);
    }
    *old_logs = logs;
    *nold = n;
    return st;
}

kv_status kv_store_open(kv_store **out, const char *path, const kv_store_options *opts,
                        char *errmsg, size_t errlen) {
    kv_store_options defaults = KV_STORE_OPTIONS_INIT;
    *out = NULL;
    if (errmsg && errlen) errmsg[0] = 0;
    if (!path || !*path) return KV_INVALID;
    if (opts && opts->version != KV_STORE_OPTIONS_VERSION) {
        if (errmsg && errlen)
            snprintf(errmsg, errlen, "kv_store_options has version %d; this library knows version "
                     "%d (start from KV_STORE_OPTIONS_INIT)", opts->version, KV_STORE_OPTIONS_VERSION);
        return KV_INVALID;
    }
    kv_store *s = calloc(1, sizeof *s);
    if (!s) return KV_NO_MEMORY;
    s->opts = opts ? *opts : defaults;
    if (!s->opts.write_buffer_size) s->opts.write_buffer_size = defaults.write_buffer_size;
    if (!s->opts.max_value_size) s->opts.max_value_size = defaults.max_value_size;
    s->env = s->opts.env ? s->opts.env : kv_env_posix();
    s->read_only = s->opts.read_only;
    s->dir = strdup(path);
    pthread_rwlock_init(&s->catalog_lock, NULL);
    pthread_mutex_init(&s->rmw_mu, NULL);
    pthread_mutex_init(&s->mu, NULL);
    pthread_mutex_init(&s->errmsg_mu, NULL);
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
        if (!has_manifest && has_other) {
            st = kv_fail(s, KV_INVALID, "%s is not a cellfs store: it holds other files and no MANIFEST", path);
            goto out;
        }
        if (!has_manifest && s->read_only) {
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
        if (st != KV_LOCKED || waited >= s->opts.lock_wait_ms) break;
        nanosleep(&(struct timespec){0, 50 * 1000 * 1000}, NULL);
    }
    if (st != KV_OK) { kv_fail(s, st, "%s", err); goto out; }

    manifest = kv_filename_manifest(path);
    st = manifest ? kv_env_read_file(s->env, manifest, &mdata, &mlen, err, sizeof err) : KV_NO_MEMORY;
    if (st == KV_NOT_FOUND) {
        if (!s->opts.create_if_missing || s->read_only) { st = kv_fail(s, KV_NOT_FOUND, "no store at %s (no MANIFEST)", path); goto out; }
        if ((st = add_namespace(s, "default")) != KV_OK || (st = add_namespace(s, "hbase")) != KV_OK) goto out;
        if ((st = kv_manifest_write(s)) != KV_OK) goto out;
    } else if (st != KV_OK) {
        kv_fail(s, st, "reading the manifest: %s", err);
        goto out;
    } else {
        if (s->opts.error_if_exists) { st = kv_fail(s, KV_EXISTS, "a store exists at %s", path); goto out; }
        s->cache = kv_cache_new(s->opts.block_cache_size);
        if (!s->cache) { st = KV_NO_MEMORY; goto out; }
        if ((st = kv_manifest_load(s, mdata, mlen)) != KV_OK) goto out;
    }
    if (!s->cache && !(s->cache = kv_cache_new(s->opts.block_cache_size))) { st = KV_NO_MEMORY; goto out; }
    for (size_t i = 0; i < s->ntables; i++)
        for (size_t f = 0; f < s->tables[i]->nfamilies; f++) {
            uint64_t maxseq = 0;
            kv_fileset *fs = s->tables[i]->families[f]->files;
            for (size_t k = 0; k < fs->n; k++)
                if (fs->files[k]->meta.max_seq > maxseq) maxseq = fs->files[k]->meta.max_seq;
            if (maxseq > s->last_seq) s->last_seq = maxseq;
        }
    atomic_store(&s->visible_seq, s->last_seq);

    if ((st = replay_logs(s, &logs, &nlogs)) != KV_OK) goto out;
    if (!s->read_only) {
        /* Start a fresh log; the replayed contents are flushed at once so
           the old logs can go. */
        s->wal_number = s->next_file++;
        if ((st = kv_open_new_log(s, s->wal_number, &s->wal)) != KV_OK) goto out;
        if ((st = kv_bg_start(s)) != KV_OK) goto out;
        bool replayed = false;
        for (size_t i = 0; i < s->ntables && !replayed; i++)
            for (size_t f = 0; f < s->tables[i]->nfamilies; f++)
                if (s->tables[i]->families[f]->mem) replayed = true;
        if (replayed) {
            st = kv_write_flush(s);
            if (st != KV_OK) goto out;
        } else {
            pthread_mutex_lock(&s->mu);
            s->log_number = s->wal_number;
            st = kv_manifest_write(s);
            pthread_mutex_unlock(&s->mu);
            if (st != KV_OK) goto out;
            for (size_t i = 0; i < nlogs; i++) {
                if (logs[i] >= s->wal_number) continue;
                char *lp = kv_filename_log(path, logs[i]);
                if (lp) s->env->remove(s->env, lp, err, sizeof err);
                free(lp);
            }
        }
    }
out:
    free(logs);
    free(mdata);
    free(manifest);
    free(lockpath);
    if (st != KV_OK) {
        const char *why = kv_store_errmsg(s);
        if (errmsg && errlen) snprintf(errmsg, errlen, "%s", why[0] ? why : kv_strerror(st));
        if (s->bg_started) kv_bg_stop(s);
        free_store(s);
        return st;
    }
    *out = s;
    return KV_OK;
}

kv_status kv_store_close(kv_store *s) {
    if (!s) return KV_OK;
    kv_status st = KV_OK;
    if (!s->read_only) {
        pthread_rwlock_rdlock(&s->catalog_lock);
        st = kv_write_flush(s);
        pthread_rwlock_unlock(&s->catalog_lock);
    }
    if (s->bg_started) kv_bg_stop(s);
    if (s->wal) {
        char err[256];
        kv_status cs = kv_wal_sync(s->wal, err, sizeof err);
        if (st == KV_OK && cs != KV_OK) st = kv_fail(s, cs, "syncing the log: %s", err);
    }
    free_store(s);
    return st;
}

kv_status kv_store_stat(kv_store_stats *out, kv_store *s) {
    memset(out, 0, sizeof *out);
    if (!s) return KV_INVALID;
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
    out->last_sequence = atomic_load(&s->visible_seq);
    pthread_mutex_unlock(&s->mu);
    pthread_rwlock_unlock(&s->catalog_lock);
    out->cache_bytes = s->cache ? kv_cache_usage(s->cache) : 0;
    return KV_OK;
}

/* ---- writes ---- */

/* Resolves a table for writing (catalog_lock held shared). */
static kv_status writable_table(kv_store *s, const char *table, kv_table **out) {
    if (s->read_only) return kv_fail(s, KV_READ_ONLY, "store is open read-only");
    kv_table *t = kv_catalog_find(s, table);
    if (!t) return kv_fail(s, KV_NOT_FOUND, "table '%s' does not exist", table ? table : "(null)");
    if (!t->enabled) return kv_fail(s, KV_DISABLED, "table '%s' is disabled", table);
    *out = t;
    return KV_OK;
}

static bool needs_newest(const kv_mutation *m) {
    for (size_t i = 0; i < m->nops; i++)
        if (m->ops[i].type == KV_TYPE_DELETE && m->ops[i].ts == KV_LATEST_TIMESTAMP) return true;
    return false;
}

/* Turns "delete the newest version" into a delete at that version's
   timestamp (rmw_mu held). Ops with no version left are dropped. */
static kv_status resolve_newest(kv_store *s, kv_table *t, kv_mutation *m) {
    size_t keep = 0;
    for (size_t i = 0; i < m->nops; i++) {
        kv_op op = m->ops[i];
        if (op.type == KV_TYPE_DELETE && op.ts == KV_LATEST_TIMESTAMP) {
            bool found;
            int64_t ts;
            const char *fam = m->families[op.family_index];
            if (!kv_table_family(t, fam)) return kv_fail(s, KV_NO_FAMILY, "table '%s:%s' has no column family '%s'", t->ns, t->name, fam);
            kv_status st = kv_read_newest(s, t, m->bytes.data, m->row_len, fam,
                                          m->bytes.data + op.qoff, op.qlen, &found, &ts, NULL);
            if (st != KV_OK) return st;
            if (!found) continue;
            op.ts = ts;
        }
        m->ops[keep++] = op;
    }
    m->nops = keep;
    return KV_OK;
}

static kv_mutation *mutation_copy(const kv_mutation *m) {
    kv_mutation *c;
    if (kv_mutation_new(&c, m->bytes.data, m->row_len) != KV_OK) return NULL;
    c->bytes.len = 0;
    if (kv_buf_append(&c->bytes, m->bytes.data, m->bytes.len) ||
        !(c->ops = malloc((m->nops ? m->nops : 1) * sizeof *c->ops)) ||
        !(c->families = calloc(m->nfamilies + 1, sizeof *c->families))) {
        kv_mutation_free(c);
        return NULL;
    }
    memcpy(c->ops, m->ops, m->nops * sizeof *c->ops);
    c->nops = c->capops = m->nops;
    for (size_t i = 0; i < m->nfamilies; i++) {
        if (!(c->families[i] = strdup(m->families[i]))) {
            kv_mutation_free(c);
            return NULL;
        }
        c->nfamilies++;
    }
    return c;
}

kv_status kv_mutate_batch(kv_store *s, const char *table, kv_mutation *const *ms, size_t count,
                          kv_status *statuses, const kv_write_options *wopts) {
    if (!s || (!ms && count)) return KV_INVALID;
    for (size_t i = 0; i < count; i++)
        if (!ms[i]) return KV_INVALID;
    if (wopts && kv_check_version(s, "kv_write_options", wopts->version, KV_WRITE_OPTIONS_VERSION))
        return KV_INVALID;
    kv_durability d = wopts ? wopts->durability : KV_DURABILITY_DEFAULT;
    pthread_rwlock_rdlock(&s->catalog_lock);
    kv_table *t;
    kv_status st = writable_table(s, table, &t);
    if (st != KV_OK) {
        for (size_t i = 0; statuses && i < count; i++) statuses[i] = st;
        pthread_rwlock_unlock(&s->catalog_lock);
        return st;
    }
    bool rmw = false;
    for (size_t i = 0; i < count && !rmw; i++) rmw = needs_newest(ms[i]);
    if (!rmw) {
        st = kv_write_apply(s, t, ms, count, statuses, d);
    } else {
        pthread_mutex_lock(&s->rmw_mu);
        st = KV_OK;
        for (size_t i = 0; i < count; i++) {
            kv_status one;
            kv_mutation *c = needs_newest(ms[i]) ? mutation_copy(ms[i]) : NULL;
            if (needs_newest(ms[i]) && !c) one = KV_NO_MEMORY;
            else if (c && (one = resolve_newest(s, t, c)) != KV_OK) {}
            else if (c && c->nops == 0) one = KV_OK; /* nothing left to delete */
            else one = kv_write_apply(s, t, c ? &c : &ms[i], 1, NULL, d);
            kv_mutation_free(c);
            if (statuses) statuses[i] = one;
            if (st == KV_OK) st = one;
        }
        pthread_mutex_unlock(&s->rmw_mu);
    }
    pthread_rwlock_unlock(&s->catalog_lock);
    return st;
}

kv_status kv_mutate(kv_store *s, const char *table, const kv_mutation *m, const kv_write_options *wopts) {
    if (!m) return KV_INVALID;
    kv_mutation *one = (kv_mutation *)m;
    return kv_mutate_batch(s, table, &one, 1, NULL, wopts);
}

kv_status kv_put(kv_store *s, const char *table, const void *row, size_t row_len, const char *family,
                 const void *qualifier, size_t qualifier_len, int64_t ts, const void *value,
                 size_t value_len, const kv_write_options *wopts) {
    kv_mutation *m;
    kv_status st = kv_mutation_new(&m, row, row_len);
    if (st != KV_OK) return kv_fail(s, st, "bad row key (%zu bytes)", row_len);
    st = kv_mutation_put(m, family, qualifier, qualifier_len, ts, value, value_len);
    if (st == KV_OK) st = kv_mutate(s, table, m, wopts);
    kv_mutation_free(m);
    return st;
}

/* ---- read-modify-write ---- */

/* Takes the locks of a read-modify-write call and resolves its table and
   family; on success the caller ends with end_read_modify_write. */
static kv_status begin_read_modify_write(kv_store *s, const char *table, const char *family,
                                         kv_table **t) {
    pthread_rwlock_rdlock(&s->catalog_lock);
    kv_status st = writable_table(s, table, t);
    if (st == KV_OK && !kv_table_family(*t, family))
        st = kv_fail(s, KV_NO_FAMILY, "table '%s' has no column family '%s'", table, family);
    if (st != KV_OK) {
        pthread_rwlock_unlock(&s->catalog_lock);
        return st;
    }
    pthread_mutex_lock(&s->rmw_mu);
    return KV_OK;
}

static void end_read_modify_write(kv_store *s) {
    pthread_mutex_unlock(&s->rmw_mu);
    pthread_rwlock_unlock(&s->catalog_lock);
}

typedef kv_status (*rmw_fn)(kv_store *s, bool found, const kv_buf *old, kv_buf *out, void *ctx);

/* Reads the newest value of one cell, lets fn compute the new one, and
   writes it, atomically with respect to other such calls. When written is
   non-NULL the new value is moved there on success. */
static kv_status read_modify_write(kv_store *s, const char *table, const void *row, size_t row_len,
                                   const char *family, const void *q, size_t qlen, rmw_fn fn,
                                   void *ctx, const kv_write_options *wopts, kv_buf *written) {
    if (!s || !row || !family) return KV_INVALID;
    if (wopts && kv_check_version(s, "kv_write_options", wopts->version, KV_WRITE_OPTIONS_VERSION))
        return KV_INVALID;
    kv_durability d = wopts ? wopts->durability : KV_DURABILITY_DEFAULT;
    kv_table *t;
    kv_status st = begin_read_modify_write(s, table, family, &t);
    if (st != KV_OK) return st;
    kv_buf old = {0}, val = {0};
    bool found;
    int64_t ts = INT64_MIN;
    st = kv_read_newest(s, t, row, row_len, family, q, qlen, &found, &ts, &old);
    if (st == KV_OK) st = fn(s, found, &old, &val, ctx);
    if (st == KV_OK) {
        kv_mutation *m;
        st = kv_mutation_new(&m, row, row_len);
        /* A newer-than-now existing version would hide the new value. */
        int64_t now = kv_store_now(s);
        if (found && ts > now) now = ts;
        if (st == KV_OK) st = kv_mutation_put(m, family, q, qlen, now, val.data, val.len);
        if (st == KV_OK) st = kv_write_apply(s, t, &m, 1, NULL, d);
        kv_mutation_free(m);
    }
    end_read_modify_write(s);
    kv_buf_free(&old);
    if (st == KV_OK && written) {
        *written = val;
        val = (kv_buf){0};
    }
    kv_buf_free(&val);
    return st;
}

typedef struct { int64_t delta, result; } incr_ctx;

static kv_status do_increment(kv_store *s, bool found, const kv_buf *old, kv_buf *out, void *ctx) {
    incr_ctx *c = ctx;
    int64_t v = 0;
    if (found) {
        if (old->len != 8)
            return kv_fail(s, KV_NOT_COUNTER, "field is not a long, it's %zu bytes wide", old->len);
        v = (int64_t)kv_get_be64(old->data);
    }
    v = (int64_t)((uint64_t)v + (uint64_t)c->delta);
    c->result = v;
    uint8_t b[8];
    kv_put_be64(b, (uint64_t)v);
    return kv_buf_append(out, b, 8) ? KV_NO_MEMORY : KV_OK;
}

kv_status kv_increment(int64_t *result, kv_store *s, const char *table, const void *row, size_t row_len,
                       const char *family, const void *qualifier, size_t qualifier_len, int64_t delta,
                       const kv_write_options *wopts) {
    incr_ctx c = {delta, 0};
    kv_status st = read_modify_write(s, table, row, row_len, family, qualifier, qualifier_len,
                                     do_increment, &c, wopts, NULL);
    if (st == KV_OK && result) *result = c.result;
    return st;
}

typedef struct { const void *data; size_t len; } append_ctx;

static kv_status do_append(kv_store *s, bool found, const kv_buf *old, kv_buf *out, void *ctx) {
    (void)s;
    append_ctx *c = ctx;
    if ((found && kv_buf_append(out, old->data, old->len)) || kv_buf_append(out, c->data, c->len))
        return KV_NO_MEMORY;
    return KV_OK;
}

kv_status kv_append(void **result, size_t *result_len, kv_store *s, const char *table,
                    const void *row, size_t row_len, const char *family, const void *qualifier,
                    size_t qualifier_len, const void *data, size_t data_len,
                    const kv_write_options *wopts) {
    if (result) *result = NULL;
    if (result_len) *result_len = 0;
    if (data_len && !data) return KV_INVALID;
    append_ctx c = {data, data_len};
    kv_buf value = {0};
    kv_status st = read_modify_write(s, table, row, row_len, family, qualifier, qualifier_len,
                                     do_append, &c, wopts, result ? &value : NULL);
    if (st == KV_OK && result) {
        /* an empty value still gets a buffer, so that success is non-NULL */
        if (!value.data && kv_buf_reserve(&value, 1)) return KV_NO_MEMORY;
        *result = value.data;
        if (result_len) *result_len = value.len;
    }
    return st;
}

static bool compare_ok(kv_compare_op op, int c) {
    switch (op) {
    case KV_CMP_LESS: return c < 0;
    case KV_CMP_LESS_OR_EQUAL: return c <= 0;
    case KV_CMP_EQUAL: return c == 0;
    case KV_CMP_NOT_EQUAL: return c != 0;
    case KV_CMP_GREATER_OR_EQUAL: return c >= 0;
    case KV_CMP_GREATER: return c > 0;
    case KV_CMP_NO_OP: return true;
    }
    return false;
}

kv_status kv_check_and_mutate(bool *applied, kv_store *s, const char *table, const void *row,
                              size_t row_len, const char *family, const void *qualifier,
                              size_t qualifier_len, kv_compare_op op, const void *expected,
                              size_t expected_len, const kv_mutation *m,
                              const kv_write_options *wopts) {
    *applied = false;
    if (!s || !row || !family || !m) return KV_INVALID;
    if (m->row_len != row_len || memcmp(m->bytes.data, row, row_len) != 0)
        return kv_fail(s, KV_INVALID, "check-and-mutate: the mutation is for another row");
    if (wopts && kv_check_version(s, "kv_write_options", wopts->version, KV_WRITE_OPTIONS_VERSION))
        return KV_INVALID;
    kv_durability d = wopts ? wopts->durability : KV_DURABILITY_DEFAULT;
    kv_table *t;
    kv_status st = begin_read_modify_write(s, table, family, &t);
    if (st != KV_OK) return st;
    kv_buf cur = {0};
    bool found;
    int64_t ts;
    st = kv_read_newest(s, t, row, row_len, family, qualifier, qualifier_len, &found, &ts, &cur);
    bool pass = false;
    if (st == KV_OK) {
        if (!expected) pass = !found;
        else if (found) pass = compare_ok(op, kv_key_compare(cur.data, cur.len, expected, expected_len));
    }
    if (pass) {
        kv_mutation *c = needs_newest(m) ? mutation_copy(m) : NULL;
        if (needs_newest(m) && !c) st = KV_NO_MEMORY;
        else if (c) st = resolve_newest(s, t, c);
        kv_mutation *use = c ? c : (kv_mutation *)m;
        if (st == KV_OK && use->nops > 0) st = kv_write_apply(s, t, &use, 1, NULL, d);
        if (st == KV_OK) *applied = true;
        kv_mutation_free(c);
    }
    end_read_modify_write(s);
    kv_buf_free(&cur);
    return st;
}

/* ---- maintenance ---- */

kv_status kv_flush(kv_store *s, const char *table) {
    if (!s) return KV_INVALID;
    if (s->read_only) return kv_fail(s, KV_READ_ONLY, "store is open read-only");
    pthread_rwlock_rdlock(&s->catalog_lock);
    kv_status st = KV_OK;
    if (table && !kv_catalog_find(s, table)) st = kv_fail(s, KV_NOT_FOUND, "table '%s' does not exist", table);
    /* Memstores are switched store-wide, so flushing one table flushes all. */
    if (st == KV_OK) st = kv_write_flush(s);
    pthread_rwlock_unlock(&s->catalog_lock);
    return st;
}

kv_status kv_compact(kv_store *s, const char *table, bool major) {
    if (!s) return KV_INVALID;
    if (s->read_only) return kv_fail(s, KV_READ_ONLY, "store is open read-only");
    pthread_rwlock_rdlock(&s->catalog_lock);
    kv_status st = KV_OK;
    kv_table *t = NULL;
    if (table && !(t = kv_catalog_find(s, table)))
        st = kv_fail(s, KV_NOT_FOUND, "table '%s' does not exist", table);
    if (st == KV_OK) st = kv_compact_now(s, t, major);
    pthread_rwlock_unlock(&s->catalog_lock);
    return st;
}
