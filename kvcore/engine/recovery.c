/**
 * @file recovery.c
 * Recovery at open, in one place: the last sequence number from the sorted
 * files, the replay of every write-ahead log the manifest does not cover
 * into memstores (through write.c's insert, as live writes), and, for a
 * writer, a fresh log, a flush of what was replayed and the removal of the
 * old logs. A torn record at the end of a log (the process died while
 * appending) ends that log; a damaged record followed by more data is
 * KV_CORRUPT.
 */
#include "recovery.h"
#include "batch.h"
#include "errors.h"
#include "fileset.h"
#include "flush.h"
#include "manifest.h"
#include "tables.h"
#include "wal.h"
#include "write.h"
#include "util/filename.h"

#include <stdio.h>
#include <inttypes.h>
#include <stdlib.h>

/* The clock floor a replayed op requires: past its timestamp, and one past
   a delete's, so that an implicit-timestamp put after reopening is newer
   than a delete that was only in the log (the live path moves the clock
   past implicit deletes; the log no longer tells which were implicit, so
   every replayed delete counts). */
static kv_status floor_op(void *arg, const kv_batch_op *op) {
    int64_t *floor = arg;
    int64_t need = op->ts;
    if (need == INT64_MAX) return KV_OK;
    if (op->type != KV_TYPE_PUT) need++;
    if (need > *floor) *floor = need;
    return KV_OK;
}

/* Inserts one replayed record, counted like a live write so that the
   flush at open (and kv_flush) sees the replayed cells, and moves the clock
   floor as floor_op says. */
static kv_status replay_record(kv_engine *s, const uint8_t *rec, size_t len) {
    uint64_t last = 0, ignored = 0;
    int64_t max_ts = INT64_MIN, floor = INT64_MIN;
    size_t bytes = 0;
    kv_status st = kv_write_insert(s, rec, len, &last, &max_ts, &bytes);
    if (st == KV_OK) st = kv_batch_decode(rec, len, floor_op, &floor, &ignored);
    if (st != KV_OK) return st;
    s->mem_bytes += bytes;
    if (last > s->last_seq) s->last_seq = last;
    if (floor > s->clock_floor) s->clock_floor = floor;
    atomic_store(&s->visible_seq, s->last_seq);
    return KV_OK;
}

/* A log whose end was dropped as a torn record (LevelDB's rule: the
   process died while appending it, so it was never acknowledged; but the
   same bytes may be damage to an acknowledged record): say so, and for a
   writer keep a copy as NNNNNN.log.damaged, since the log itself is
   removed once its records are flushed. */
static void keep_damaged_log(kv_engine *s, const char *path, uint64_t offset, uint64_t dropped) {
    char aside[4096];
    snprintf(aside, sizeof aside, "%s.damaged", path);
    if (s->read_only) {
        kv_log(s, KV_LOG_WARN, "%s: %llu bytes at offset %llu at the end of the log are not a whole "
               "record (torn by a crash while appending, or damaged) and were dropped",
               path, (unsigned long long)dropped, (unsigned long long)offset);
        return;
    }
    char err[512] = "";
    uint8_t *data = NULL;
    size_t len = 0;
    kv_status st = kv_env_read_file(s->env, path, &data, &len, err, sizeof err);
    if (st == KV_OK) st = kv_env_write_file_atomic(s->env, s->dir, aside, data, len, err, sizeof err);
    free(data);
    if (st == KV_OK)
        kv_log(s, KV_LOG_WARN, "%s: %llu bytes at offset %llu at the end of the log are not a whole "
               "record (torn by a crash while appending, or damaged) and were dropped; the log is "
               "kept as %s", path, (unsigned long long)dropped, (unsigned long long)offset, aside);
    else
        kv_log(s, KV_LOG_WARN, "%s: %llu bytes at offset %llu at the end of the log are not a whole "
               "record and were dropped; keeping a copy failed: %s", path,
               (unsigned long long)dropped, (unsigned long long)offset, err);
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Replays every log at or above log_number, in order; *old_logs gets
   every log number found, sorted. */
static kv_status replay_logs(kv_engine *s, uint64_t **old_logs, size_t *nold) {
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
            st = replay_record(s, rec, len);
            if (st == KV_CORRUPT) snprintf(err, sizeof err, "%s: undecodable record", path);
        }
        uint64_t dropped = st == KV_OK ? kv_wal_reader_dropped(r) : 0;
        uint64_t good_end = kv_wal_reader_offset(r);
        kv_wal_reader_close(r);
        if (st == KV_CORRUPT && s->salvage) {
            /* Salvage: keep what came before the damage, say what is lost. */
            kv_log(s, KV_LOG_WARN, "lost: the rest of %s from offset %llu (%s)", path,
                   (unsigned long long)good_end, err);
            st = KV_OK;
            dropped = 0;
        }
        if (st != KV_OK) kv_fail(s, st, "replaying the write-ahead log: %s", err);
        if (dropped) keep_damaged_log(s, path, good_end, dropped);
        free(path);
    }
    *old_logs = logs;
    *nold = n;
    return st;
}

bool kv_recovery_names_file(const kv_engine *s, uint64_t number) {
    for (size_t i = 0; s && i < s->ntables; i++)
        for (size_t f = 0; f < s->tables[i]->nfamilies; f++) {
            const kv_fileset *fs = s->tables[i]->families[f]->files;
            for (size_t k = 0; k < fs->n; k++)
                if (fs->files[k]->number == number) return true;
        }
    return false;
}

/* Removes sorted files that the manifest does not name: outputs of a flush
   or compaction whose manifest write failed or that a crash interrupted
   (a writer, before any background work starts). */
static void remove_orphans(kv_engine *s) {
    char **names = NULL;
    char err[256] = "";
    if (s->env->list(s->env, s->dir, &names, err, sizeof err) != KV_OK) return;
    for (char **p = names; *p; p++) {
        uint64_t num;
        if (kv_filename_parse(*p, &num) != 's' || kv_recovery_names_file(s, num)) continue;
        char *path = kv_filename_sst(s->dir, num);
        if (!path) continue;
        if (s->env->remove(s->env, path, err, sizeof err) == KV_OK)
            kv_log(s, KV_LOG_INFO, "removed %s: no manifest names it (left by an interrupted flush or compaction)", path);
        free(path);
    }
    kv_free_names(names);
}

/* A sorted file that no edit names is either the output of a flush or
   compaction that a crash interrupted, or the sign of a manifest that lost
   its last edits (truncated or rolled back). The two differ in the log the
   manifest names: an interrupted flush leaves that log in place until its
   edit is durable, while a lost edit had already retired it. Removing the
   files in the second case would destroy flushed data, so the open fails
   naming the manifest and nothing is removed. */
static kv_status check_manifest_complete(kv_engine *s) {
    char **names = NULL;
    char err[256] = "";
    kv_status st = s->env->list(s->env, s->dir, &names, err, sizeof err);
    if (st != KV_OK) return kv_fail(s, st, "listing %s: %s", s->dir, err);
    bool log_present = false;
    uint64_t unnamed = 0;
    for (char **p = names; *p; p++) {
        uint64_t num;
        char kind = kv_filename_parse(*p, &num);
        if (kind == 'l' && num == s->log_number) log_present = true;
        if (kind == 's' && !unnamed && !kv_recovery_names_file(s, num)) unnamed = num;
    }
    kv_free_names(names);
    if (unnamed && !log_present && s->log_number != 0)
        return kv_fail(s, KV_CORRUPT,
                       "%s/MANIFEST has lost edits: it names log %06" PRIu64
                       ", which is gone, and no edit names sorted file %06" PRIu64
                       ".sst (a truncated or damaged manifest; nothing was removed, and "
                       "cellck checks the sorted files one by one)",
                       s->dir, s->log_number, unnamed);
    return KV_OK;
}

kv_status kv_recovery_replay(kv_engine *s, uint64_t **logs, size_t *nlogs) {
    kv_status cst = check_manifest_complete(s);
    if (cst == KV_CORRUPT && s->salvage) {
        /* The files no edit names are the store's data: lost_found. */
        s->manifest_damaged = true;
        kv_log(s, KV_LOG_WARN, "lost: %s", kv_report_last(s->report));
    } else if (cst != KV_OK) {
        return cst;
    }
    if (!s->read_only) remove_orphans(s);
    for (size_t i = 0; i < s->ntables; i++)
        for (size_t f = 0; f < s->tables[i]->nfamilies; f++) {
            uint64_t maxseq = 0;
            kv_fileset *fs = s->tables[i]->families[f]->files;
            for (size_t k = 0; k < fs->n; k++)
                if (fs->files[k]->meta.max_seq > maxseq) maxseq = fs->files[k]->meta.max_seq;
            if (maxseq > s->last_seq) s->last_seq = maxseq;
        }
    atomic_store(&s->visible_seq, s->last_seq);
    return replay_logs(s, logs, nlogs);
}

kv_status kv_recovery_finish(kv_engine *s, const uint64_t *logs, size_t nlogs) {
    /* A fresh log; the replayed contents are flushed at once so that the
       old logs can go. */
    s->wal_number = s->next_file++;
    kv_status st = kv_open_new_log(s, s->wal_number, &s->wal);
    if (st != KV_OK) return st;
    bool replayed = false;
    for (size_t i = 0; i < s->ntables && !replayed; i++)
        for (size_t f = 0; f < s->tables[i]->nfamilies; f++)
            if (s->tables[i]->families[f]->mem) replayed = true;
    if (replayed) return kv_write_flush(s);
    kv_manifest_lock(s);
    pthread_mutex_lock(&s->mu);
    s->log_number = s->wal_number;
    pthread_mutex_unlock(&s->mu);
    st = kv_manifest_save(s, true, NULL, 0);
    kv_manifest_unlock(s);
    if (st != KV_OK) return st;
    for (size_t i = 0; i < nlogs; i++) {
        if (logs[i] >= s->wal_number) continue;
        char *lp = kv_filename_log(s->dir, logs[i]);
        if (lp) s->env->remove(s->env, lp, NULL, 0);
        free(lp);
    }
    return KV_OK;
}
