/**
 * @file check.c
 * Verification and salvage of a local store (check.h; the contracts are
 * kvcore.h's kv_store_check and kv_store_salvage). Both open the store
 * read-only and read its files directly: the manifest through the open,
 * each sorted file block by block and key by key, each log record by
 * record. Findings name the file and, where one applies, the offset.
 */
#include "check.h"
#include "batch.h"
#include "fileset.h"
#include "memstore.h"
#include "recovery.h"
#include "store.h"
#include "tables.h"
#include "wal.h"
#include "util/filename.h"
#include "util/report.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct checker {
    const char *dir;
    kv_finding_fn fn;
    void *ctx;
    kv_check_stats st;
} checker;

static void emit(checker *c, kv_finding_kind kind, const char *file, int64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void emit(checker *c, kv_finding_kind kind, const char *file, int64_t offset, const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (kind == KV_FINDING_DAMAGE) c->st.damage++;
    else if (kind == KV_FINDING_WARNING) c->st.warnings++;
    else if (kind == KV_FINDING_LOST) c->st.lost++;
    if (c->fn) {
        kv_finding f = {kind, file, offset, msg};
        c->fn(c->ctx, &f);
    }
}

/* The byte offset a message names ("at offset N", "offset N"), or -1. */
static int64_t offset_in(const char *msg) {
    const char *p = strstr(msg, "offset ");
    if (!p) return -1;
    char *end;
    long long v = strtoll(p + 7, &end, 10);
    return end == p + 7 || v < 0 ? -1 : (int64_t)v;
}

/* The name of the first file of the store directory a message names. */
static const char *file_in(const checker *c, const char *msg, char *buf, size_t len) {
    size_t dl = strlen(c->dir);
    for (const char *p = strstr(msg, c->dir); p; p = strstr(p + 1, c->dir)) {
        if (p[dl] != '/') continue;
        const char *name = p + dl + 1;
        size_t n = strcspn(name, " :,()'");
        if (n == 0 || n >= len) continue;
        memcpy(buf, name, n);
        buf[n] = 0;
        return buf;
    }
    return NULL;
}

/* Messages logged while the store opens: torn tails that were dropped and
   the like are warnings; sorted files are checked one by one below. */
static void open_sink(void *ctx, int level, const char *msg) {
    checker *c = ctx;
    if (level > KV_LOG_WARN || strncmp(msg, "sorted file ", 12) == 0) return;
    char name[256];
    kv_finding_kind kind = KV_FINDING_WARNING;
    if (strncmp(msg, "lost: ", 6) == 0) {
        kind = KV_FINDING_LOST;
        msg += 6;
    }
    emit(c, kind, file_in(c, msg, name, sizeof name), offset_in(msg), "%s", msg);
}

/* Opens the store read-only (for a salvage, past damage in a log); on
   failure the reason is a finding. */
static kv_status open_store(checker *c, const char *path, kv_report *rep, bool salvage, kv_engine **out) {
    kv_store_options o = KV_STORE_OPTIONS_INIT;
    o.read_only = true;
    o.create_if_missing = false;
    kv_report_init(rep, open_sink, c);
    kv_status st = salvage ? kv_engine_open_salvage(out, path, rep) : kv_engine_open(out, path, &o, rep);
    if (st != KV_OK) {
        /* Damage, or why the check cannot run (not a store, locked...). */
        const char *why = kv_report_last(rep);
        char name[256];
        emit(c, st == KV_CORRUPT || st == KV_IO ? KV_FINDING_DAMAGE : KV_FINDING_INFO,
             file_in(c, why, name, sizeof name), offset_in(why), "the store does not open: %s", why);
    }
    return st;
}

static bool same_key(const uint8_t *a, size_t al, const kv_buf *b) {
    return al == b->len && (al == 0 || memcmp(a, b->data, al) == 0);
}

/* The meta block's marker counts against the file's entries (files
   written before it counted them have none): a wrong count could let a
   time-range read skip a marker's masking. */
static void check_marker_counts(checker *c, const kv_sst_reader *r, const char *name, uint64_t n,
                                int64_t max_ts, uint64_t fam) {
    uint64_t meta_n, meta_fam;
    int64_t meta_max;
    if (!kv_sst_marker_counts(r, &meta_n, &meta_max, &meta_fam)) return;
    if (meta_n != n || (n && meta_max != max_ts) || meta_fam != fam)
        emit(c, KV_FINDING_DAMAGE, name, -1, "%s: its meta block records %" PRIu64 " DeleteColumn "
             "markers (newest at %" PRId64 ") and %" PRIu64 " family markers; the file holds %"
             PRIu64 " (newest at %" PRId64 ") and %" PRIu64, name, meta_n, meta_n ? meta_max : 0,
             meta_fam, n, n ? max_ts : 0, fam);
}

/* Checks one sorted file; meta is the manifest's record of it, or NULL. */
static void check_sst(checker *c, kv_env *env, uint64_t number, const kv_sst_meta *meta) {
    char name[32];
    snprintf(name, sizeof name, "%06" PRIu64 ".sst", number);
    char *path = kv_filename_sst(c->dir, number);
    if (!path) return;
    c->st.sorted_files++;
    kv_sst_reader *r = NULL;
    char err[512] = "";
    kv_status st = kv_sst_open(&r, env, path, number, NULL, err, sizeof err);
    free(path);
    if (st != KV_OK) {
        emit(c, KV_FINDING_DAMAGE, name, offset_in(err), "%s", err);
        return;
    }
    kv_iter *it = kv_sst_iter(r, false, false);
    if (!it) {
        kv_sst_close(r);
        emit(c, KV_FINDING_DAMAGE, name, -1, "%s: out of memory while checking", name);
        return;
    }
    kv_buf prev = {0}, first = {0}, scratch = {0};
    uint64_t n = 0, column_deletes = 0, family_markers = 0;
    int64_t max_column_delete_ts = 0;
    bool bloom_reported = false, stop = false;
    for (it->seek(it, (const uint8_t *)"", 0); !stop && it->valid(it); it->next(it)) {
        size_t kl;
        const uint8_t *key = it->key(it, &kl);
        kv_key_parts kp;
        if (kv_key_decode(&kp, key, kl, &scratch) != KV_OK) {
            emit(c, KV_FINDING_DAMAGE, name, -1, "%s: entry %" PRIu64 " has a malformed key", name, n);
            stop = true;
        } else if (n && kv_key_compare(prev.data, prev.len, key, kl) >= 0) {
            emit(c, KV_FINDING_DAMAGE, name, -1, "%s: entry %" PRIu64 " (row '%.*s') is not after the "
                 "one before it in cell order", name, n, (int)(kp.row_len > 64 ? 64 : kp.row_len), kp.row);
            stop = true;
        } else if (!bloom_reported && (!kv_sst_may_contain_row(r, key, kp.row_prefix_len) ||
                                       !kv_sst_may_contain_column(r, key, kp.column_prefix_len))) {
            emit(c, KV_FINDING_DAMAGE, name, -1, "%s: the bloom filter denies row '%.*s' that the file "
                 "holds", name, (int)(kp.row_len > 64 ? 64 : kp.row_len), kp.row);
            bloom_reported = true;
        }
        if (!stop && kp.type == KV_TYPE_DELETE_COLUMN &&
            (column_deletes++ == 0 || kp.ts > max_column_delete_ts))
            max_column_delete_ts = kp.ts;
        if (!stop && (kp.type == KV_TYPE_DELETE_FAMILY || kp.type == KV_TYPE_DELETE_FAMILY_VERSION))
            family_markers++;
        prev.len = 0;
        if (kv_buf_append(&prev, key, kl) || (n == 0 && kv_buf_append(&first, key, kl))) stop = true;
        if (!stop) {
            size_t vl;
            (void)it->value(it, &vl);
            n++;
        }
    }
    st = it->status(it);
    if (st != KV_OK) {
        char msg[512] = "";
        kv_sst_last_error(r, msg, sizeof msg);
        if (!msg[0]) snprintf(msg, sizeof msg, "%s: %s", name, kv_strerror(st));
        emit(c, KV_FINDING_DAMAGE, name, offset_in(msg), "%s (after %" PRIu64 " good entries)", msg, n);
    } else if (!stop) {
        check_marker_counts(c, r, name, column_deletes, max_column_delete_ts, family_markers);
    }
    if (st == KV_OK && !stop && meta) {
        if (meta->entries != n)
            emit(c, KV_FINDING_DAMAGE, name, -1, "%s holds %" PRIu64 " entries; the manifest records %" PRIu64,
                 name, n, meta->entries);
        else if (n && (!same_key(first.data, first.len, &(kv_buf){meta->smallest, meta->smallest_len, 0}) ||
                       !same_key(prev.data, prev.len, &(kv_buf){meta->largest, meta->largest_len, 0})))
            emit(c, KV_FINDING_DAMAGE, name, -1, "%s: its first or last key differs from the manifest's "
                 "record", name);
    }
    c->st.cells += n;
    it->destroy(it);
    kv_sst_close(r);
    kv_buf_free(&prev);
    kv_buf_free(&first);
    kv_buf_free(&scratch);
}

static kv_status count_op(void *ctx, const kv_batch_op *op) {
    (void)op;
    (*(uint64_t *)ctx)++;
    return KV_OK;
}

/* Checks one write-ahead log. */
static void check_log(checker *c, kv_env *env, uint64_t number) {
    char name[32];
    snprintf(name, sizeof name, "%06" PRIu64 ".log", number);
    char *path = kv_filename_log(c->dir, number);
    if (!path) return;
    c->st.logs++;
    kv_wal_reader *r = NULL;
    char err[512] = "";
    kv_status st = kv_wal_reader_open(&r, env, path, err, sizeof err);
    free(path);
    if (st != KV_OK) {
        emit(c, KV_FINDING_DAMAGE, name, offset_in(err), "%s", err);
        return;
    }
    for (;;) {
        uint64_t at = kv_wal_reader_offset(r), ops = 0, last = 0;
        const uint8_t *rec;
        size_t len;
        st = kv_wal_read(r, &rec, &len, err, sizeof err);
        if (st == KV_END) {
            uint64_t dropped = kv_wal_reader_dropped(r);
            if (dropped)
                emit(c, KV_FINDING_WARNING, name, (int64_t)kv_wal_reader_offset(r),
                     "%s: %" PRIu64 " bytes at offset %" PRIu64 " at its end are not a whole record (a "
                     "torn tail: recovery drops them and keeps a copy of the log)", name, dropped,
                     kv_wal_reader_offset(r));
            break;
        }
        if (st != KV_OK) {
            emit(c, KV_FINDING_DAMAGE, name, offset_in(err), "%s", err);
            break;
        }
        if (kv_batch_decode(rec, len, count_op, &ops, &last) != KV_OK) {
            emit(c, KV_FINDING_DAMAGE, name, (int64_t)at, "%s: the record at offset %" PRIu64
                 " has a valid checksum but does not decode", name, at);
            break;
        }
        c->st.cells += ops;
    }
    kv_wal_reader_close(r);
}

kv_status kv_engine_check(kv_check_stats *stats, const char *path, kv_finding_fn fn, void *ctx) {
    checker c = {.dir = path, .fn = fn, .ctx = ctx};
    if (stats) memset(stats, 0, sizeof *stats);
    kv_env *env = kv_env_posix();
    char **names = NULL;
    char err[512] = "";
    kv_status st = env->list(env, path, &names, err, sizeof err);
    if (st != KV_OK) return st;
    kv_report *rep = malloc(sizeof *rep);
    if (!rep) {
        kv_free_names(names);
        return KV_NO_MEMORY;
    }
    bool has_manifest = false, has_data = false;
    for (char **p = names; *p; p++) {
        uint64_t num;
        char kind = kv_filename_parse(*p, &num);
        if (strcmp(*p, "MANIFEST") == 0) has_manifest = true;
        else if (kind == 's' || kind == 'l') has_data = true;
    }
    kv_engine *s = NULL;
    if (!has_manifest && has_data) {
        /* Not an empty directory: a store that lost its manifest. */
        emit(&c, KV_FINDING_DAMAGE, "MANIFEST", -1, "%s/MANIFEST is missing, but the directory holds sorted "
             "files or logs: the catalog is unknown (cellck --salvage copies their cells into a table "
             "lost_found)", path);
        st = KV_CORRUPT;
    } else {
        st = open_store(&c, path, rep, false, &s);
    }
    if (st != KV_OK && st != KV_CORRUPT && st != KV_IO) {
        kv_report_destroy(rep);
        free(rep);
        kv_free_names(names);
        return st;
    }
    /* Sorted files the manifest names, with its records of them. */
    for (size_t i = 0; s && i < s->ntables; i++)
        for (size_t f = 0; f < s->tables[i]->nfamilies; f++) {
            const kv_fileset *fs = s->tables[i]->families[f]->files;
            for (size_t k = 0; k < fs->n; k++) check_sst(&c, env, fs->files[k]->number, &fs->files[k]->meta);
        }
    /* Then the directory: logs, and files no manifest names. */
    for (char **p = names; *p; p++) {
        uint64_t num;
        char kind = kv_filename_parse(*p, &num);
        size_t len = strlen(*p);
        if (kind == 's' && !kv_recovery_names_file(s, num)) {
            /* An interrupted flush or compaction leaves such a file, often
               empty or cut short: it is not the store's data, so its blocks
               are not judged (crashtest, tests/fuzz/FINDINGS.md F8). Without
               a manifest there is no telling, and the file is checked. */
            if (s)
                emit(&c, KV_FINDING_WARNING, *p, -1, "%s: no manifest names it (left by an interrupted "
                     "flush or compaction; a writer's open removes it; its blocks are not checked)", *p);
            else
                check_sst(&c, env, num, NULL);
        } else if (kind == 'l') {
            check_log(&c, env, num);
        } else if (len > 12 && strcmp(*p + len - 12, ".log.damaged") == 0) {
            emit(&c, KV_FINDING_WARNING, *p, -1, "%s: a copy kept of a log whose torn end was dropped "
                 "at recovery (evidence; the store does not read it)", *p);
        }
    }
    kv_free_names(names);
    if (s) kv_engine_close(s);
    kv_report_destroy(rep);
    free(rep);
    if (stats) *stats = c.st;
    return c.st.damage ? KV_CORRUPT : KV_OK;
}

/* ---- salvage ---- */

/* Copies one source of a family (a sorted file's or memstore's iterator)
   into the sink; what cannot be read is reported lost. */
static kv_status copy_source(checker *c, const kv_salvage_sink *sink, const char *family, kv_iter *it,
                             const char *name, const kv_sstfile *file, const kv_sst_reader *reader) {
    kv_buf scratch = {0}, last = {0};
    uint64_t n = 0;
    kv_status st = KV_OK;
    for (it->seek(it, (const uint8_t *)"", 0); st == KV_OK && it->valid(it); it->next(it)) {
        size_t kl, vl;
        const uint8_t *key = it->key(it, &kl);
        const uint8_t *value = it->value(it, &vl);
        kv_key_parts kp;
        if (kv_key_decode(&kp, key, kl, &scratch) != KV_OK) break;
        st = sink->add_cell(sink->ctx, family, &kp, value, vl);
        if (st == KV_OK) {
            n++;
            last.len = 0;
            if (kv_buf_append(&last, kp.row, kp.row_len)) st = KV_NO_MEMORY;
        }
    }
    kv_status is = it->status(it);
    if (st == KV_OK && (is != KV_OK || it->valid(it))) {
        char msg[512] = "";
        if (file) kv_sstfile_last_error(file, msg, sizeof msg);
        else if (reader) kv_sst_last_error(reader, msg, sizeof msg);
        if (!msg[0]) snprintf(msg, sizeof msg, "%s", is != KV_OK ? kv_strerror(is) : "a malformed key");
        uint64_t total = file ? file->meta.entries : 0;
        c->st.cells_lost += total > n ? total - n : 0;
        if (n && !file)
            emit(c, KV_FINDING_LOST, name, offset_in(msg), "%s: lost the rest of the file after row '%.*s' "
                 "(%" PRIu64 " entries copied): %s", name, (int)(last.len > 64 ? 64 : last.len),
                 (const char *)last.data, n, msg);
        else if (n)
            emit(c, KV_FINDING_LOST, name, offset_in(msg), "%s: lost the rest of the file after row '%.*s' "
                 "(%" PRIu64 " of %" PRIu64 " entries copied): %s", name, (int)(last.len > 64 ? 64 : last.len),
                 (const char *)last.data, n, total, msg);
        else
            emit(c, KV_FINDING_LOST, name, offset_in(msg), "%s: lost the file from its start (0 of %" PRIu64
                 " entries copied): %s", name, total, msg);
    }
    c->st.cells += n;
    kv_buf_free(&scratch);
    kv_buf_free(&last);
    return st;
}

static kv_status salvage_family(checker *c, const kv_salvage_sink *sink, kv_family *fam) {
    kv_status st = KV_OK;
    const char *family = fam->desc.name;
    /* Oldest first, so that the newest of equal cells is written last. */
    for (size_t k = fam->files->n; st == KV_OK && k-- > 0;) {
        kv_sstfile *f = fam->files->files[k];
        char name[32];
        snprintf(name, sizeof name, "%06" PRIu64 ".sst", f->number);
        if (f->broken) {
            const kv_sst_meta *m = &f->meta;
            c->st.cells_lost += m->entries;
            emit(c, KV_FINDING_LOST, name, -1, "%s: lost the whole file (%" PRIu64 " entries of family "
                 "'%s'): %s", name, m->entries, family, f->broken);
            continue;
        }
        kv_iter *it = kv_sst_iter(f->reader, false, false);
        if (!it) return KV_NO_MEMORY;
        c->st.sorted_files++;
        st = copy_source(c, sink, family, it, name, f, NULL);
        it->destroy(it);
    }
    kv_memstore *mems[2] = {fam->imm, fam->mem};
    for (int i = 0; i < 2 && st == KV_OK; i++) {
        if (!mems[i]) continue;
        kv_iter *it = kv_memstore_iter(mems[i]);
        if (!it) return KV_NO_MEMORY;
        st = copy_source(c, sink, family, it, "the write-ahead logs", NULL, NULL);
        it->destroy(it);
    }
    return st;
}

/* ---- lost_found: what a damaged manifest cannot place ---- */

/* A family of lost_found: the cells of one sorted file that no manifest
   line names, or the logged cells of one (table id, family id) that the
   catalog read does not know. */
typedef struct lf_family {
    char name[KV_NAME_MAX + 1];
    uint64_t sst;               /* its sorted file, or 0 */
    kv_sst_reader *reader;      /* the file, open */
    uint32_t table_id, family_id; /* of logged cells (sst == 0) */
    uint64_t entries;           /* logged cells */
} lf_family;

typedef struct lost_found {
    checker *c;
    kv_engine *s;
    const kv_salvage_sink *sink;
    lf_family *fams;
    size_t n, cap;
    bool copying;               /* the second pass over the logs */
} lost_found;

static lf_family *lf_add(lost_found *lf) {
    if (lf->n == lf->cap) {
        size_t cap = lf->cap ? 2 * lf->cap : 8;
        lf_family *p = realloc(lf->fams, cap * sizeof *p);
        if (!p) return NULL;
        lf->fams = p;
        lf->cap = cap;
    }
    lf_family *f = &lf->fams[lf->n++];
    memset(f, 0, sizeof *f);
    return f;
}

/* One logged cell: counted (first pass), then copied (second pass) when
   the catalog read has no family for its ids. */
static kv_status lf_log_op(void *ctx, const kv_batch_op *op) {
    lost_found *lf = ctx;
    if (kv_catalog_family_by_id(lf->s, op->table_id, op->family_id)) return KV_OK; /* replayed */
    lf_family *f = NULL;
    for (size_t i = 0; i < lf->n && !f; i++)
        if (!lf->fams[i].sst && lf->fams[i].table_id == op->table_id && lf->fams[i].family_id == op->family_id)
            f = &lf->fams[i];
    if (!f) {
        if (lf->copying || !(f = lf_add(lf))) return KV_NO_MEMORY;
        f->table_id = op->table_id;
        f->family_id = op->family_id;
        snprintf(f->name, sizeof f->name, "log_t%" PRIu32 "_f%" PRIu32, op->table_id, op->family_id);
    }
    if (!lf->copying) {
        f->entries++;
        return KV_OK;
    }
    kv_key_parts kp = {.row = op->row, .row_len = op->row_len, .qualifier = op->qualifier,
                       .qualifier_len = op->qualifier_len, .ts = op->ts, .type = op->type, .seq = op->seq};
    kv_status st = lf->sink->add_cell(lf->sink->ctx, f->name, &kp, op->value, op->value_len);
    if (st == KV_OK) lf->c->st.cells++;
    return st;
}

/* Reads every log in number order through lf_log_op; a log's damage ends
   it (the replay has reported what is lost). */
static kv_status lf_read_logs(lost_found *lf, kv_env *env, const uint64_t *logs, size_t nlogs) {
    for (size_t i = 0; i < nlogs; i++) {
        char *path = kv_filename_log(lf->s->dir, logs[i]);
        if (!path) return KV_NO_MEMORY;
        kv_wal_reader *r = NULL;
        char err[512] = "";
        kv_status st = kv_wal_reader_open(&r, env, path, err, sizeof err);
        free(path);
        if (st != KV_OK) continue;
        for (;;) {
            const uint8_t *rec;
            size_t len;
            uint64_t last = 0;
            if (kv_wal_read(r, &rec, &len, err, sizeof err) != KV_OK) break;
            st = kv_batch_decode(rec, len, lf_log_op, lf, &last);
            if (st == KV_CORRUPT) break;
            if (st != KV_OK) {
                kv_wal_reader_close(r);
                return st;
            }
        }
        kv_wal_reader_close(r);
    }
    return KV_OK;
}

static int cmp_number(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The sorted files of the directory that the catalog read does not name,
   and all its logs, each sorted by number. */
static kv_status lf_list(kv_engine *s, kv_env *env, uint64_t **ssts, size_t *nssts, uint64_t **logs,
                         size_t *nlogs) {
    char **names = NULL;
    char err[512] = "";
    kv_status st = env->list(env, s->dir, &names, err, sizeof err);
    if (st != KV_OK) return st;
    size_t n = 0;
    for (char **p = names; *p; p++) n++;
    *ssts = calloc(n + 1, sizeof **ssts);
    *logs = calloc(n + 1, sizeof **logs);
    *nssts = *nlogs = 0;
    if (!*ssts || !*logs) st = KV_NO_MEMORY;
    for (char **p = names; st == KV_OK && *p; p++) {
        uint64_t num;
        char kind = kv_filename_parse(*p, &num);
        if (kind == 's' && !kv_recovery_names_file(s, num)) (*ssts)[(*nssts)++] = num;
        else if (kind == 'l') (*logs)[(*nlogs)++] = num;
    }
    kv_free_names(names);
    if (st == KV_OK) {
        qsort(*ssts, *nssts, sizeof **ssts, cmp_number);
        qsort(*logs, *nlogs, sizeof **logs, cmp_number);
    }
    return st;
}

/* After a missing or damaged manifest: a table lost_found (lost_found_2...
   when the catalog has one) with a family per sorted file no manifest line
   names (sst_NNNNNN) and per (table id, family id) of logged cells the
   catalog does not know (log_tT_fF), each keeping every version and
   delete marker. Each is reported as a loss (of its table and family). */
static kv_status salvage_lost_found(checker *c, const kv_salvage_sink *sink, kv_engine *s) {
    kv_env *env = kv_env_posix();
    lost_found lf = {.c = c, .s = s, .sink = sink};
    uint64_t *ssts = NULL, *logs = NULL;
    size_t nssts = 0, nlogs = 0;
    kv_status st = lf_list(s, env, &ssts, &nssts, &logs, &nlogs);
    for (size_t i = 0; st == KV_OK && i < nssts; i++) {
        char name[32];
        snprintf(name, sizeof name, "%06" PRIu64 ".sst", ssts[i]);
        char *path = kv_filename_sst(s->dir, ssts[i]);
        kv_sst_reader *r = NULL;
        char err[512] = "";
        st = path ? kv_sst_open(&r, env, path, ssts[i], NULL, err, sizeof err) : KV_NO_MEMORY;
        free(path);
        if (st == KV_NO_MEMORY) break;
        if (st != KV_OK) {
            emit(c, KV_FINDING_LOST, name, offset_in(err), "%s: no manifest line names it, and it does not "
                 "open: lost the whole file: %s", name, err);
            st = KV_OK;
            continue;
        }
        lf_family *f = lf_add(&lf);
        if (!f) {
            kv_sst_close(r);
            st = KV_NO_MEMORY;
            break;
        }
        f->sst = ssts[i];
        f->reader = r;
        snprintf(f->name, sizeof f->name, "sst_%06" PRIu64, ssts[i]);
    }
    if (st == KV_OK) st = lf_read_logs(&lf, env, logs, nlogs);
    char table[2 * KV_NAME_MAX + 2] = "lost_found";
    for (int k = 2; kv_catalog_find(s, table); k++) snprintf(table, sizeof table, "lost_found_%d", k);
    kv_family_desc *descs = st == KV_OK && lf.n ? calloc(lf.n, sizeof *descs) : NULL;
    if (st == KV_OK && lf.n && !descs) st = KV_NO_MEMORY;
    for (size_t i = 0; st == KV_OK && i < lf.n; i++) {
        kv_family_desc d = KV_FAMILY_DESC_INIT;
        snprintf(d.name, sizeof d.name, "%s", lf.fams[i].name);
        d.versions = INT32_MAX;
        d.keep_deleted = KV_KEEP_DELETED_TRUE;
        descs[i] = d;
    }
    if (st == KV_OK && lf.n) st = sink->add_table(sink->ctx, table, descs, lf.n);
    free(descs);
    for (size_t i = 0; st == KV_OK && i < lf.n; i++) {
        lf_family *f = &lf.fams[i];
        if (!f->sst) continue;
        char name[32];
        snprintf(name, sizeof name, "%06" PRIu64 ".sst", f->sst);
        kv_iter *it = kv_sst_iter(f->reader, false, false);
        if (!it) {
            st = KV_NO_MEMORY;
            break;
        }
        c->st.sorted_files++;
        uint64_t before = c->st.cells;
        st = copy_source(c, sink, f->name, it, name, NULL, f->reader);
        it->destroy(it);
        emit(c, KV_FINDING_LOST, name, -1, "%s: no manifest line names it: its table and family are lost; "
             "its %" PRIu64 " entries are copied into table %s, family %s", name, c->st.cells - before,
             table, f->name);
    }
    lf.copying = true;
    if (st == KV_OK && lf.n) st = lf_read_logs(&lf, env, logs, nlogs);
    for (size_t i = 0; st == KV_OK && i < lf.n; i++)
        if (!lf.fams[i].sst)
            emit(c, KV_FINDING_LOST, NULL, -1, "the logs hold %" PRIu64 " entries of table id %" PRIu32 ", family "
                 "id %" PRIu32 ", which the manifest does not name: their table and family are lost; they "
                 "are copied into table %s, family %s", lf.fams[i].entries, lf.fams[i].table_id,
                 lf.fams[i].family_id, table, lf.fams[i].name);
    if (st == KV_OK && lf.n) st = sink->end_table(sink->ctx, NULL, 0, true);
    for (size_t i = 0; i < lf.n; i++)
        if (lf.fams[i].reader) kv_sst_close(lf.fams[i].reader);
    free(lf.fams);
    free(ssts);
    free(logs);
    return st;
}

kv_status kv_engine_salvage(kv_check_stats *stats, const char *path, const kv_salvage_sink *sink,
                            kv_finding_fn fn, void *ctx) {
    checker c = {.dir = path, .fn = fn, .ctx = ctx};
    if (stats) memset(stats, 0, sizeof *stats);
    kv_report *rep = malloc(sizeof *rep);
    if (!rep) return KV_NO_MEMORY;
    kv_engine *s = NULL;
    kv_status st = open_store(&c, path, rep, true, &s);
    for (size_t i = 0; st == KV_OK && i < s->nnamespaces; i++) {
        const kv_namespace *ns = &s->namespaces[i];
        st = sink->add_namespace(sink->ctx, ns->name, ns->props, ns->nprops);
    }
    for (size_t i = 0; st == KV_OK && i < s->ntables; i++) {
        kv_table *t = s->tables[i];
        char tname[2 * KV_NAME_MAX + 2];
        snprintf(tname, sizeof tname, "%s:%s", t->ns, t->name);
        kv_family_desc *descs = calloc(t->nfamilies ? t->nfamilies : 1, sizeof *descs);
        if (!descs) {
            st = KV_NO_MEMORY;
            break;
        }
        for (size_t f = 0; f < t->nfamilies; f++) descs[f] = t->families[f]->desc;
        st = sink->add_table(sink->ctx, tname, descs, t->nfamilies);
        free(descs);
        for (size_t f = 0; st == KV_OK && f < t->nfamilies; f++) st = salvage_family(&c, sink, t->families[f]);
        if (st == KV_OK) st = sink->end_table(sink->ctx, t->attrs.p, t->attrs.n, t->enabled);
    }
    if (st == KV_OK && s->manifest_damaged) st = salvage_lost_found(&c, sink, s);
    if (s) kv_engine_close(s);
    kv_report_destroy(rep);
    free(rep);
    if (stats) *stats = c.st;
    if (st != KV_OK) return st;
    return c.st.lost ? KV_CORRUPT : KV_OK;
}
