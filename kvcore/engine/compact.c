/**
 * @file compact.c
 * Compactions: minor ones merge files picked by a size-ratio policy (with
 * the manual compaction style: every file of a family) and keep delete
 * markers, unless they take every file of the family: then, as HBase's
 * (CompactionRequest.isAllFiles, COMPACT_DROP_DELETES), they drop markers
 * as a major one does, though the memstore is not an input (a minor pass
 * takes every file when markers are a tenth of the entries); major ones
 * (kv_compact) first flush, then rewrite each family into one file
 * without markers and without the cells they mask, expired or surplus
 * (retention by matcher.c, files by builder.c).
 * The compaction thread runs minor passes after each flush; a close merges
 * a family's newer files into one when they are no larger than its oldest
 * (kv_compact_at_close). A new file set
 * is published only after the manifest naming it is on disk; replaced
 * files are removed when the last scan using them ends.
 */
#include "compact.h"
#include "builder.h"
#include "errors.h"
#include "fileset.h"
#include "manifest.h"
#include "tables.h"
#include "write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COMPACT_MIN_FILES 3
#define COMPACT_MAX_FILES 10
#define COMPACT_RATIO 1.2
#define FILES_FORCING_COMPACTION 12

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

/* Markers leave the files only in a compaction that takes every file of
   the family, and the size-ratio rule leaves the large old files out:
   after many deletes (cellbench's deleterandom: ~200k DeleteColumn
   markers flushed beside ~1.3M entries) the markers and the puts they mask
   stayed on disk until some later all-files compaction. When the files'
   markers are at least 1/MARKER_SHARE_FORCING_ALL_FILES of their entries,
   every file is compacted (dropping them, as any all-files compaction
   does): each such rewrite removes at least that share of its entries, so
   a marker costs at most that many entries rewritten, as LevelDB's
   ten-fold level sizes bound its rewrites. Only once the files hold at
   least a write buffer's bytes: below that their markers weigh less than
   the memstore, and a small store keeps its files as the size-ratio rule
   leaves them. Not under KEEP_DELETED_CELLS, whose compactions keep
   markers (the rule would fire again at once). */
#define MARKER_SHARE_FORCING_ALL_FILES 10

static bool markers_worth_dropping(const kv_fileset *fs, const kv_family_desc *desc, uint64_t write_buffer) {
    if (desc->keep_deleted != KV_KEEP_DELETED_FALSE) return false;
    uint64_t markers = 0, entries = 0, bytes = 0;
    for (size_t i = 0; i < fs->n; i++) {
        const kv_sstfile *f = fs->files[i];
        uint64_t column = 0, family = 0;
        int64_t max_ts;
        /* a file without a reader or that predates the counts adds none */
        if (f->reader && kv_sst_marker_counts(f->reader, &column, &max_ts, &family)) markers += column + family;
        entries += f->meta.entries;
        bytes += f->meta.file_size;
    }
    return bytes >= write_buffer && markers > 0 && markers * MARKER_SHARE_FORCING_ALL_FILES >= entries;
}

/* A close rewrites at most this many write buffers' worth of files (a
   mount of a large store must not take minutes to unmount). */
#define CLOSE_MERGE_BUFFERS 8

/* At close (after its flush), a family of more than two files whose newer
   files together are at most the size of the oldest, and at most
   CLOSE_MERGE_BUFFERS write buffers, merges those newer files [0, n-1)
   into one: a reopened store then has two sorted runs to position on each
   seek (a fillrandom of 10M entries leaves 765, 291, 53 and 8 MB: four),
   and the close rewrites at most half of the family. */
static bool pick_close(const kv_fileset *fs, uint64_t limit, size_t *lo, size_t *hi) {
    size_t n = fs->n;
    if (n <= 2) return false;
    uint64_t newer = 0;
    for (size_t i = 0; i + 1 < n; i++) newer += fs->files[i]->meta.file_size;
    if (newer > fs->files[n - 1]->meta.file_size || newer > limit) return false;
    *lo = 0;
    *hi = n - 1;
    return true;
}

/* Records why compacting files [lo, hi) of fs failed: the input file's own
   message when one failed to read (a damaged or missing file), else the
   message the builder left, else the status. Returns st. */
static kv_status compaction_failed(kv_engine *s, const kv_family_desc *desc, const kv_fileset *fs,
                                   size_t lo, size_t hi, kv_status st) {
    char detail[KV_REPORT_TEXT] = "";
    for (size_t i = lo; i < hi && !detail[0]; i++) kv_sstfile_last_error(fs->files[i], detail, sizeof detail);
    if (!detail[0] && st != KV_NO_MEMORY) snprintf(detail, sizeof detail, "%s", kv_report_last(s->report));
    if (!detail[0]) snprintf(detail, sizeof detail, "%s", kv_strerror(st));
    return kv_fail(s, st, "compacting family '%s' (%zu files): %s", desc->name, hi - lo, detail);
}

typedef enum { PICK_MINOR, PICK_MAJOR, PICK_CLOSE } pick_kind;

/* Compacts one family (catalog_lock held shared, mu not held). */
static kv_status compact_family(kv_engine *s, kv_family *fam, pick_kind kind, bool *did) {
    *did = false;
    bool major = kind == PICK_MAJOR;
    pthread_mutex_lock(&s->mu);
    while (fam->compacting) pthread_cond_wait(&s->bg_cv, &s->mu);
    kv_fileset *fs = fam->files;
    size_t lo = 0, hi = fs->n;
    /* Manual compaction style: a minor compaction takes every file, so
       that the result depends on the calls made, not on file sizes. */
    bool all = major || s->local.compaction == KV_COMPACTION_MANUAL;
    uint64_t close_limit = (uint64_t)CLOSE_MERGE_BUFFERS * s->local.write_buffer_size;
    bool go = kind == PICK_CLOSE ? pick_close(fs, close_limit, &lo, &hi)
              : all              ? fs->n > 0
                                 : pick_minor(fs, &lo, &hi);
    if (kind == PICK_MINOR && markers_worth_dropping(fs, &fam->desc, s->local.write_buffer_size)) {
        lo = 0;
        hi = fs->n;
        go = true;
    }
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
    for (size_t i = lo; st == KV_OK && i < hi; i++) kids[i - lo] = kv_sstfile_iter(fs->files[i], false, false);
    kv_iter *it = st == KV_OK ? kv_merge_iter_new(kids, hi - lo) : NULL;
    free(kids);
    if (st == KV_OK && !it) st = KV_NO_MEMORY;
    /* Every file of the family is an input: no file left out can hold a
       put that a marker masks, so the markers go (the memstore's puts are
       then no longer masked, as in HBase). */
    bool drop_deletes = major || (lo == 0 && hi == fs->n);
    /* The output holds at most the inputs' distinct bloom keys: its filter
       is built in place at that size (a few MB at 10M rows, not 8 bytes
       a key until the end). */
    uint64_t bloom_keys = 0;
    for (size_t i = lo; i < hi; i++) {
        const kv_sstfile *f = fs->files[i];
        bloom_keys += f->reader ? kv_sst_bloom_keys(f->reader, desc.bloom) : f->meta.entries;
    }
    if (st == KV_OK)
        st = kv_build_family_file(s, &desc, it, drop_deletes ? KV_MATCH_MAJOR : KV_MATCH_MINOR, bloom_keys,
                                  &out);
    if (it) it->destroy(it);
    if (st != KV_OK) st = compaction_failed(s, &desc, fs, lo, hi, st);

    /* The manifest lock keeps other file-set changes out until the new set
       is durable; the manifest I/O runs outside mu. */
    kv_manifest_lock(s);
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
                kv_sstfile_ref(f);
                next->files[next->n++] = f;
            }
            if (!placed && out) next->files[next->n++] = out;
            /* Readers may see the new set at once (it holds the same cells);
               the inputs are removed only once a manifest without them is
               durable. */
            fam->files = next;
            pthread_mutex_unlock(&s->mu);
            kv_status ms = kv_manifest_save(s, false, &fam, 1);
            pthread_mutex_lock(&s->mu);
            if (ms != KV_OK) {
                /* Keep the old set: the manifest on disk names it. The output
                   stays on disk (if only the final sync failed, the manifest
                   may name it); open removes files no manifest names. */
                fam->files = cur;
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
    kv_manifest_unlock(s);
    fam->compacting = false;
    pthread_cond_broadcast(&s->bg_cv);
    pthread_mutex_unlock(&s->mu);
    if (out) {
        out->obsolete = true;
        kv_sstfile_unref(out);
    }
    kv_fileset_unref(fs);
    kv_release_free_memory();
    return st;
}

kv_status kv_compact_now(kv_engine *s, kv_table *t, bool major) {
    kv_status st = KV_OK;
    bool did;
    if (major) st = kv_write_flush(s);
    for (size_t i = 0; st == KV_OK && i < s->ntables; i++) {
        kv_table *tab = s->tables[i];
        if (t && tab != t) continue;
        for (size_t f = 0; st == KV_OK && f < tab->nfamilies; f++)
            st = compact_family(s, tab->families[f], major ? PICK_MAJOR : PICK_MINOR, &did);
    }
    return st;
}

void kv_compact_at_close(kv_engine *s) {
    if (s->read_only || s->local.compaction != KV_COMPACTION_AUTO) return;
    pthread_rwlock_rdlock(&s->catalog_lock);
    for (size_t i = 0; i < s->ntables; i++)
        for (size_t f = 0; f < s->tables[i]->nfamilies; f++) {
            bool did;
            if (compact_family(s, s->tables[i]->families[f], PICK_CLOSE, &did) != KV_OK)
                kv_log(s, KV_LOG_WARN, "merging the newer files at close failed (the files stay as they "
                       "were): %s", kv_report_last(s->report));
        }
    pthread_rwlock_unlock(&s->catalog_lock);
}

/* One pass of minor compactions over every family. Returns whether any
   family was compacted (then another pass may find more to do). */
static bool compaction_pass(kv_engine *s) {
    bool any = false;
    pthread_rwlock_rdlock(&s->catalog_lock);
    for (size_t i = 0; i < s->ntables; i++)
        for (size_t f = 0; f < s->tables[i]->nfamilies; f++) {
            pthread_mutex_lock(&s->mu);
            bool stop = s->shutting_down;
            pthread_mutex_unlock(&s->mu);
            if (stop) goto out;
            bool did = false;
            kv_status st = compact_family(s, s->tables[i]->families[f], PICK_MINOR, &did);
            if (st != KV_OK) kv_log(s, KV_LOG_ERROR, "background compaction failed: %s", kv_report_last(s->report));
            any |= did;
        }
out:
    pthread_rwlock_unlock(&s->catalog_lock);
    return any;
}

/* The compaction thread: after each flush, passes over the families until
   none needs a minor compaction. */
static void *compact_main(void *arg) {
    kv_engine *s = arg;
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

kv_status kv_compact_start(kv_engine *s) {
    int rc = pthread_create(&s->compact_thread, NULL, compact_main, s);
    if (rc != 0)
        return kv_fail(s, KV_NO_MEMORY, "cannot start the compaction thread: %s", strerror(rc));
    s->compact_started = true;
    return KV_OK;
}

void kv_compact_stop(kv_engine *s) {
    if (!s->compact_started) return;
    pthread_mutex_lock(&s->mu);
    s->shutting_down = true;
    pthread_cond_broadcast(&s->compact_cv);
    pthread_mutex_unlock(&s->mu);
    pthread_join(s->compact_thread, NULL);
    s->compact_started = false;
}
