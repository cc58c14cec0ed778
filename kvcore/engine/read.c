/**
 * @file read.c
 * The engine's scans (a get is a scan of one row, see api/read.c). A scan takes a snapshot (the published sequence number
 * and references to every selected family's memstores and file set), keeps
 * one merged iterator per family, and assembles rows: the smallest (or for
 * reversed scans the largest) row any family is at, each family's entries
 * of that row judged by the matcher, then the filter. Gets are scans of one
 * row that skip files whose bloom filter rules the row or columns out.
 */
#include "read.h"
#include "errors.h"
#include "fileset.h"
#include "matcher.h"
#include "tables.h"
#include "hbase/filter.h"
#include "hbase/filter_hints.h"
#include "rowkey.h"
#include "hbase/keys.h"
#include "table/iter.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Whether key (klen bytes) starts with prefix[0..len), compared from the
   end: the entries a scan meets one after another share long prefixes, so
   an entry of the next column or row differs near the end of the prefix
   (a memcmp from the front reads all the shared bytes first). */
static inline bool has_prefix(const uint8_t *key, size_t klen, const uint8_t *prefix, size_t len) {
    if (klen < len)
        return false;
    if (len < 8) {
        while (len > 0) {
            len--;
            if (key[len] != prefix[len])
                return false;
        }
        return true;
    }
    /* 8 bytes at a time from the last 8; the word at 0 may overlap the
       one after it */
    for (size_t i = len - 8;; i = i > 8 ? i - 8 : 0) {
        uint64_t a, b;
        memcpy(&a, key + i, 8);
        memcpy(&b, prefix + i, 8);
        if (a != b)
            return false;
        if (i == 0)
            return true;
    }
}

/* kv_buf_append without a call when b has room (a pooled scan's buffers
   most often have). */
static inline int buf_add(kv_buf *b, const void *p, size_t n) {
    if (n > b->cap - b->len) return kv_buf_append(b, p, n);
    uint8_t *d = b->data + b->len;
    const uint8_t *src = p;
    if (n >= 8 && n <= 32) {
        /* a row or row key: words, the last one ending at n (it may
           overlap the one before), no call */
        uint64_t w;
        for (size_t i = 0; i + 8 < n; i += 8) {
            memcpy(&w, src + i, 8);
            memcpy(d + i, &w, 8);
        }
        memcpy(&w, src + n - 8, 8);
        memcpy(d + n - 8, &w, 8);
    } else if (n < 8) {
        for (size_t i = 0; i < n; i++) d[i] = src[i];
    } else {
        memcpy(d, src, n);
    }
    b->len += n;
    return 0;
}

/* kv_buf_reserve without a call when b has room (a scan's row, cell by
   cell). */
static inline int buf_room(kv_buf *b, size_t n) {
    return n <= b->cap - b->len ? 0 : kv_buf_reserve(b, n);
}

/* Sorted files a get may leave out at first (fam_reader.deferred). */
#define MAX_DEFERRED 4

typedef struct fam_reader {
    kv_family *fam;
    kv_family_desc desc;        /* copy: alter may change the live one */
    kv_iter *it;
    kv_fileset *files;
    const kv_column *cols;      /* selected qualifiers of this family */
    size_t ncols;               /* 0: the whole family */
    kv_matcher matcher;
    /* A time range ending below KV_TIME_MAX and no source holding a
       DeleteColumn marker at or above its end: a selected column is read
       from its first entry inside the range (the newer versions can
       neither count nor mask). */
    bool range_seek;
    /* No source holds a family-level marker: the rows' family markers
       are not looked for, and a get of one column is positioned at the
       column's first entry (with range_seek, its first below the range's
       end), reading nothing of the columns before it. */
    bool no_family_markers;
    /* A get of one column (not raw, no filter) leaves out, at first, the
       sorted files whose every entry is older than the newest of the
       others (HBase's lazy seek by a file's maximum timestamp): none holds
       an entry above deferred_max_ts. They are merged in (merge_deferred)
       unless the column's versions were all found above that: a marker in
       them masks nothing above its own timestamp, and a put in them comes
       after those versions. This holds with NEW_VERSION_BEHAVIOR too: the
       sequence numbers only decide whether a marker masks a put at or
       below its timestamp. */
    kv_sstfile *deferred[MAX_DEFERRED];
    size_t ndeferred;
    int64_t deferred_max_ts;
    bool fill_cache;            /* the read's, for the deferred files */
    /* A row returned in parts (batch) stopped inside this family: */
    bool resume;                /* read_family_row goes on where it stopped */
    size_t col;                 /* ncols > 0: 0 reading family markers,
                                   c + 1 reading column c */
    bool mid;                   /* ... and stopped inside it */
    kv_column inline_cols[2];   /* cols when there are this few (a get) */
} fam_reader;

typedef struct cell_ref {       /* a cell while its bytes may still move */
    size_t fam;                 /* index into fams */
    size_t qoff, qlen, voff, vlen;
    const uint8_t *vptr;        /* the value where it lies (pinned), or NULL:
                                   at voff in bytes */
    int64_t ts;
    kv_cell_type type;
} cell_ref;

struct kv_engine_scan {
    kv_engine *store;
    kv_read_options opts;
    uint64_t snapshot;
    int64_t now;                /* the clock, read for a family with a TTL */
    size_t nfams;
    kv_filter_run *filter;
    uint64_t rows_returned;
    bool finished;
    kv_status error;
    bool have_upper;
    size_t ncells;
    kv_result result;
    kv_filter_hints hints;      /* what the filter drops anyway (not raw) */
    bool have_coltg;
    size_t col_prefix_len;      /* read_entries: colkey's length */
    /* Rows in parts of at most batch cells (0: whole rows): */
    size_t batch;
    bool paused;                /* read_entries stopped with a full part */
    bool col_finished;          /* ... at the end of its one column */
    bool in_row;                /* the row has parts still to return */
    size_t row_fam;             /* the family it stopped in */
    size_t row_len;             /* the row's unescaped length */
    bool row_started;           /* a part of this row was returned */
    bool row_plain;             /* next_row_key: row_key's row holds no
                                   zero byte (its bytes need no decoding) */
    /* One family: the key of its iterator's current entry (valid, and
       unmoved since), or NULL when not known. Set where a reader has just
       seen it, cleared wherever the iterator moves: the next reader of the
       entry (next_row_key, then read_entries) need not ask again. */
    const uint8_t *peek;
    size_t peek_len;
    /* A forward scan of one family's whole rows, newest version only, with
       no filter, column list, raw read or get (scan_open): whole_row may
       take its rows. */
    bool whole_rows;

    /* ---- kept by scan_reset for the next scan (buffers emptied) ---- */
    kv_buf bounds;              /* owned copies of start/stop/prefix */
    kv_buf row_key;             /* esc(row) of the current row */
    kv_buf upper;               /* reversed: next rows are below this key */
    kv_buf target;
    kv_buf colkey;              /* the column being read */
    kv_buf scratch;
    kv_buf bytes;               /* row, qualifiers, values of the result */
    kv_buf point;               /* a get: esc(row), for the bloom filters */
    kv_buf skip;                /* the key skip_prefix seeks to */
    /* A get of one column of one family without family markers: the
       column's prefix esc(row) 0x01 esc(q), built once by scan_open. */
    kv_buf coltg;
    /* What the families' iterators may stop at (iter.h set_upper; they
       keep the pointer): a get's row end, esc(row) with 0x02 last, or a
       forward scan's encoded stop row; empty: no bound. */
    kv_buf stop_bound;
    kv_key_parts col_parts;     /* have_coltg: the parts of the column's
                                   keys but their suffix (read_entries) */
    /* The first family's memstore iterators of a get (memstore and
       snapshot), kept for the next get: kv_memstore_iter_adopt_kept. */
    kv_iter *mem_keep[2];
    cell_ref *refs;
    kv_cell *cells;
    size_t cap;                 /* room in refs and cells */
    fam_reader *fams;
    size_t fams_cap;            /* room in fams */
    /* The table the last scan opened through this (pooled) scan read,
       and the name it was asked by (NUL-terminated): while the engine's
       catalog_gen is still ctx_gen, the same name is the same table and
       the catalog is not searched again (catalog_lock held shared). */
    kv_table *ctx_table;
    uint64_t ctx_gen;
    kv_buf ctx_name;
};

/* Buffers above this stay out of the pool: a scan of one huge row must not
   pin its memory for every later get. */
#define POOL_KEEP_BYTES ((size_t)64 << 10)
#define POOL_KEEP_CELLS ((size_t)1024)
/* Files and families per read whose arrays live on the stack. */
#define STACK_KIDS 64
#define STACK_FAMS 8

/* ---- setup ---- */

/* References to a family's memstores and files, taken together with the
   snapshot under mu. */
typedef struct fam_sources {
    kv_memstore *mem, *imm;
    kv_fileset *files;
} fam_sources;

static void grab_sources(kv_family *f, fam_sources *src) {
    src->mem = f->mem;
    src->imm = f->imm;
    src->files = f->files;
    if (src->mem) kv_memstore_ref(src->mem);
    if (src->imm) kv_memstore_ref(src->imm);
    if (src->files) kv_fileset_ref(src->files);
}

/* A get's row hashed for the files' row filters: at the first file that
   asks, then kept for the get's other files and families. */
typedef struct row_hash {
    uint64_t h;
    bool known;
} row_hash;

/* Whether a file's bloom filter allows the point row (and, for ROWCOL
   filters with selected columns, one of those columns or a family marker). */
static bool file_may_hold(const kv_sstfile *file, const kv_family_desc *desc, const kv_buf *point_row,
                          row_hash *rh, const kv_column *cols, size_t ncols, kv_buf *colkey) {
    const uint8_t *row = point_row->data;
    if (file->broken) return kv_sstfile_may_hold_row(file, row, point_row->len);
    if (desc->bloom == KV_BLOOM_ROW) {
        if (!rh->known) {
            rh->h = kv_sst_bloom_hash(row, point_row->len);
            rh->known = true;
        }
        return kv_sst_may_contain_row_hash(file->reader, row, point_row->len, rh->h);
    }
    if (desc->bloom != KV_BLOOM_ROWCOL || ncols == 0) return true;
    for (size_t c = 0; c <= ncols; c++) {
        /* c == ncols: family markers, stored under the empty qualifier */
        uint8_t kind = c < ncols ? KV_KIND_COLUMN : KV_KIND_FAMILY_MARKER;
        colkey->len = 0;
        if (buf_add(colkey, row, point_row->len) || buf_add(colkey, &kind, 1) ||
            kv_key_encode_row(colkey, c < ncols ? cols[c].qualifier : "", c < ncols ? cols[c].qualifier_len : 0))
            return true;
        if (kv_sst_may_contain_column(file->reader, colkey->data, colkey->len)) return true;
    }
    return false;
}

/* Whether a memstore may hold keys of a get's row: its key range, then
   its filter of rows. */
static bool mem_may_hold(const kv_memstore *m, const kv_buf *point_row, const uint8_t *hi, size_t hi_len) {
    return kv_memstore_may_hold(m, point_row->data, point_row->len, hi, hi_len) &&
           kv_memstore_may_hold_row(m, point_row->data, point_row->len);
}

/* Whether a memstore holds no DeleteColumn marker at or above range_end. */
static bool mem_below(const kv_memstore *m, int64_t range_end) {
    return kv_memstore_max_column_delete_ts(m) < range_end;
}

/* Builds the merged iterator over a family's sources. Takes over the
   references in src (the file set's goes to *files_out). *range_seek:
   whether no source merged holds a DeleteColumn marker at or above
   range_end (KV_TIME_MAX: no range, false); *no_family_markers: whether
   none holds a family-level marker. With fr (a get of one column that
   may leave files out, fam_reader.deferred), files of the row that cannot
   hold an entry at or above fr->matcher.time_min are left out, and so are,
   for now, the files whose maximum timestamp is below that of a file
   merged before them (MAX_DEFERRED at most; scan_open merges them at once
   when a source holds a family marker). */
static kv_iter *family_iterator(fam_sources *src, const kv_family_desc *desc, kv_fileset **files_out,
                                const kv_buf *point_row, row_hash *rh, const kv_buf *stop_key,
                                const kv_column *cols,
                                size_t ncols, bool fill_cache, kv_buf *colkey, int64_t range_end,
                                bool *range_seek, bool *no_family_markers, fam_reader *fr,
                                kv_iter **mem_keep) {
    bool below = range_end != KV_TIME_MAX && range_end != KV_TIME_MIN, nofam = true;
    size_t nfiles = src->files ? src->files->n : 0, n = 0;
    kv_iter *stack_kids[STACK_KIDS];
    kv_iter **kids = nfiles + 2 <= STACK_KIDS ? stack_kids : malloc((nfiles + 2) * sizeof *kids);
    kv_iter *it = NULL;
    /* fr: the largest maximum timestamp of the files merged */
    int64_t top = INT64_MIN;
    /* a get: the keys of its row are [esc(row), esc(row) with 0x02 last) */
    uint8_t hi_stack[256];
    size_t hi_len = point_row ? point_row->len : 0;
    uint8_t *hi = hi_len <= sizeof hi_stack ? hi_stack : malloc(hi_len);
    if (hi && point_row) {
        memcpy(hi, point_row->data, hi_len);
        hi[hi_len - 1] = 0x02;
    }
    if (kids && hi) {
        /* a get leaves out a memstore that holds no key of its row */
        if (src->mem && (!point_row || mem_may_hold(src->mem, point_row, hi, hi_len))) {
            below = below && mem_below(src->mem, range_end);
            nofam = nofam && !kv_memstore_has_family_markers(src->mem);
            /* the iterator takes over the reference (a get's: its row
               lies within the memstore's keys, mem_may_hold; in the
               scan's own iterator when it keeps one) */
            if ((kids[n] = !point_row ? kv_memstore_iter_adopt(src->mem)
                           : mem_keep ? kv_memstore_iter_adopt_kept(src->mem, &mem_keep[0])
                                      : kv_memstore_iter_adopt_near(src->mem)))
                src->mem = NULL;
            n++;
        }
        if (src->imm && (!point_row || mem_may_hold(src->imm, point_row, hi, hi_len))) {
            below = below && mem_below(src->imm, range_end);
            nofam = nofam && !kv_memstore_has_family_markers(src->imm);
            if ((kids[n] = !point_row ? kv_memstore_iter_adopt(src->imm)
                           : mem_keep ? kv_memstore_iter_adopt_kept(src->imm, &mem_keep[1])
                                      : kv_memstore_iter_adopt_near(src->imm)))
                src->imm = NULL;
            n++;
        }
        for (size_t i = 0; i < nfiles; i++) {
            kv_sstfile *file = src->files->files[i];
            if (point_row && !file_may_hold(file, desc, point_row, rh, cols, ncols, colkey)) continue;
            /* a broken file wholly past a forward scan's stop row is not
               needed (issue 11 defect 6); healthy files are cheap to keep */
            if (file->broken && stop_key && kv_sstfile_starts_at_or_after(file, stop_key->data, stop_key->len))
                continue;
            /* nothing at or above the range's start: no put in it, no
               marker that applies to it (matcher.c marker_applies) */
            if (fr && !file->broken && file->meta.max_ts < fr->matcher.time_min) continue;
            below = below && !file->broken && kv_sst_column_deletes_below(file->reader, range_end);
            nofam = nofam && !file->broken && kv_sst_no_family_markers(file->reader);
            if (fr && !file->broken) {
                /* newest first, so most often the first file has the
                   largest maximum: a file below every one merged waits
                   (one at the same maximum is read: a put there may
                   replace one at the same timestamp) */
                int64_t max_ts = file->meta.max_ts;
                if (top != INT64_MIN && max_ts < top && fr->ndeferred < MAX_DEFERRED) {
                    if (fr->ndeferred == 0 || max_ts > fr->deferred_max_ts) fr->deferred_max_ts = max_ts;
                    fr->deferred[fr->ndeferred++] = file;
                    continue;
                }
                if (max_ts > top) top = max_ts;
            }
            kids[n++] = kv_sstfile_iter(file, fill_cache && desc->blockcache, desc->in_memory);
        }
        it = kv_merge_iter_new(kids, n);
    }
    if (kids && kids != stack_kids) free(kids);
    if (hi && hi != hi_stack) free(hi);
    /* the references no iterator took over (a memstore left out) */
    kv_memstore_unref(src->mem);
    kv_memstore_unref(src->imm);
    src->mem = src->imm = NULL;
    if (!it) {
        kv_fileset_unref(src->files);
        src->files = NULL;
        return NULL;
    }
    *files_out = src->files;
    src->files = NULL;
    *range_seek = below;
    *no_family_markers = nofam;
    return it;
}

static int bounds_copy(kv_buf *b, const void *p, size_t n, const void **out) {
    if (!p) return 0;
    size_t off = b->len;
    if (buf_add(b, p, n) != 0) return -1;
    *out = (const void *)(uintptr_t)off; /* fixed up once b stops growing */
    return 0;
}

static int cmp_column(const void *a, const void *b) {
    const kv_column *x = a, *y = b;
    return kv_key_compare(x->qualifier, x->qualifier_len, y->qualifier, y->qualifier_len);
}

/* Whether column spec c of o is of family f: by the families looked up
   beforehand (colfam), or by name where there are too many specs. */
static bool column_of(const kv_read_options *o, kv_family *const *colfam, size_t c, const kv_family *f) {
    return colfam ? colfam[c] == f : strcmp(o->columns[c].family, f->desc.name) == 0;
}

static bool selected(const kv_read_options *o, kv_family *const *colfam, const kv_family *f) {
    if (!o->columns || o->ncolumns == 0) return true;
    for (size_t i = 0; i < o->ncolumns; i++)
        if (column_of(o, colfam, i, f)) return true;
    return false;
}

/* Empties a buffer a pooled scan keeps (a large one is freed). */
static void keep_buf(kv_buf *b) {
    if (b->cap > POOL_KEEP_BYTES) kv_buf_free(b);
    b->len = 0;
}

/* Empties a closed scan for reuse, keeping its buffers, arrays and cached
   table: only the fields before them are cleared (a copy or a clearing of
   the whole scan costs more). */
static void scan_reset(kv_engine_scan *sc) {
    keep_buf(&sc->bounds);
    keep_buf(&sc->row_key);
    keep_buf(&sc->upper);
    keep_buf(&sc->target);
    keep_buf(&sc->colkey);
    keep_buf(&sc->scratch);
    keep_buf(&sc->bytes);
    keep_buf(&sc->point);
    keep_buf(&sc->skip);
    keep_buf(&sc->coltg);
    keep_buf(&sc->stop_bound);
    if (sc->cap > POOL_KEEP_CELLS) {
        free(sc->refs);
        free(sc->cells);
        sc->refs = NULL;
        sc->cells = NULL;
        sc->cap = 0;
    }
    memset(sc, 0, offsetof(kv_engine_scan, bounds));
}

/* A scan from the engine's pool, or a new one; NULL on out-of-memory. */
static kv_engine_scan *scan_get(kv_engine *s) {
    for (size_t i = 0; i < KV_SCAN_POOL; i++) {
        kv_engine_scan *sc = atomic_exchange_explicit(&s->scan_pool[i], NULL, memory_order_acquire);
        if (sc) return sc;
    }
    return calloc(1, sizeof(kv_engine_scan));
}

/* Gives an emptied scan to the pool: false when every slot is taken. */
static bool scan_put(kv_engine *s, kv_engine_scan *sc) {
    for (size_t i = 0; i < KV_SCAN_POOL; i++) {
        kv_engine_scan *expect = NULL;
        if (atomic_compare_exchange_strong_explicit(&s->scan_pool[i], &expect, sc, memory_order_release,
                                                    memory_order_relaxed))
            return true;
    }
    return false;
}

static void scan_free(kv_engine_scan *sc) {
    free(sc->fams);
    kv_buf_free(&sc->bounds);
    kv_buf_free(&sc->row_key);
    kv_buf_free(&sc->upper);
    kv_buf_free(&sc->target);
    kv_buf_free(&sc->colkey);
    kv_buf_free(&sc->scratch);
    kv_buf_free(&sc->bytes);
    kv_buf_free(&sc->point);
    kv_buf_free(&sc->skip);
    kv_buf_free(&sc->stop_bound);
    kv_buf_free(&sc->coltg);
    kv_buf_free(&sc->ctx_name);
    kv_memstore_iter_free(sc->mem_keep[0]);
    kv_memstore_iter_free(sc->mem_keep[1]);
    free(sc->refs);
    free(sc->cells);
    free(sc);
}

void kv_engine_scan_close(kv_engine_scan *sc) {
    if (!sc) return;
    for (size_t i = 0; i < sc->nfams; i++) {
        fam_reader *fr = &sc->fams[i];
        if (fr->it) fr->it->destroy(fr->it);
        if (fr->files) kv_fileset_unref(fr->files);
        kv_matcher_free(&fr->matcher);
        if (fr->cols != fr->inline_cols) free((void *)fr->cols);
    }
    kv_filter_run_free(sc->filter);
    kv_engine *s = sc->store;
    scan_reset(sc);
    if (!s || !scan_put(s, sc)) scan_free(sc);
}

void kv_engine_scan_pool_free(kv_engine *s) {
    for (size_t i = 0; i < KV_SCAN_POOL; i++) {
        kv_engine_scan *sc = atomic_exchange_explicit(&s->scan_pool[i], NULL, memory_order_acquire);
        if (sc) scan_free(sc);
    }
}

/* Merges the files a get left out (fam_reader.deferred) into fr's
   iterator; with position, the iterator is then put where scan_open put a
   get of one column (at sc->coltg, or its first entry below the range's
   end). KV_NO_MEMORY leaves fr's iterator as it was, or NULL. */
static kv_status merge_deferred(kv_engine_scan *sc, fam_reader *fr, bool position) {
    kv_iter *kids[1 + MAX_DEFERRED];
    size_t n = 0;
    kids[n++] = fr->it;
    for (size_t i = 0; i < fr->ndeferred; i++) {
        kv_iter *k = kv_sstfile_iter(fr->deferred[i], fr->fill_cache && fr->desc.blockcache, fr->desc.in_memory);
        if (!k) {
            while (--n > 0) kids[n]->destroy(kids[n]);
            return KV_NO_MEMORY;
        }
        kids[n++] = k;
    }
    fr->ndeferred = 0;
    sc->peek = NULL;
    fr->it = kv_merge_iter_new(kids, n);
    if (!fr->it) return KV_NO_MEMORY;
    /* the files merged now stop at the get's row end too (scan_open) */
    if (fr->it->set_upper && sc->stop_bound.len) fr->it->set_upper(fr->it, sc->stop_bound.data, sc->stop_bound.len);
    if (position) {
        kv_buf *ct = &sc->coltg;
        size_t len = ct->len;
        if (fr->range_seek && kv_key_append_ts(ct, fr->matcher.time_max - 1)) return KV_NO_MEMORY;
        fr->it->seek(fr->it, ct->data, ct->len);
        ct->len = len;
    }
    return KV_OK;
}

/* Opens sc (from scan_get, store set) as a scan of table t (catalog_lock
   held shared by the caller). single_row: a get of start_row, which lets
   bloom filters skip files. On failure the caller closes sc. */
static kv_status scan_open(kv_engine_scan *sc, kv_table *t, const kv_read_options *ropts, bool single_row) {
    static const kv_read_options defaults = KV_READ_OPTIONS_INIT;
    const kv_read_options *o = ropts ? ropts : &defaults;
    kv_engine *s = sc->store;
    /* each column's family, looked up once by name (a few columns) */
    kv_family *colfam_stack[STACK_FAMS];
    kv_family **colfam = o->columns && o->ncolumns <= STACK_FAMS ? colfam_stack : NULL;
    if (o->columns)
        for (size_t i = 0; i < o->ncolumns; i++) {
            kv_family *cf = o->columns[i].family ? kv_table_family(t, o->columns[i].family) : NULL;
            if (colfam) colfam[i] = cf;
            if (!cf) {
                kv_fail(s, KV_NO_FAMILY, "table %s:%s has no column family '%s'", t->ns, t->name,
                        o->columns[i].family ? o->columns[i].family : "(null)");
                return KV_NO_FAMILY;
            }
        }
    if (o->time_min > o->time_max) return kv_fail(s, KV_INVALID, "time range [%lld, %lld) is empty",
                                                  (long long)o->time_min, (long long)o->time_max);
    sc->opts = *o;
    const kv_buf *point_row = NULL;
    if (single_row) {
        if (kv_key_encode_row(&sc->point, o->start_row, o->start_row_len)) goto nomem;
        point_row = &sc->point;
    }
    row_hash rh = {0, false};
    const void *start = NULL, *stop = NULL, *prefix = NULL;
    if (bounds_copy(&sc->bounds, o->start_row, o->start_row_len, &start) ||
        bounds_copy(&sc->bounds, o->stop_row, o->stop_row_len, &stop) ||
        bounds_copy(&sc->bounds, o->row_prefix, o->row_prefix_len, &prefix))
        goto nomem;
    sc->opts.start_row = o->start_row ? sc->bounds.data + (uintptr_t)start : NULL;
    sc->opts.stop_row = o->stop_row ? sc->bounds.data + (uintptr_t)stop : NULL;
    sc->opts.row_prefix = o->row_prefix ? sc->bounds.data + (uintptr_t)prefix : NULL;
    if (o->row_prefix && o->row_prefix_len == 0) sc->opts.row_prefix = NULL;
    sc->opts.columns = NULL; /* the per-family lists below replace it */
    if (o->filter && !(sc->filter = kv_filter_run_new(o->filter))) goto nomem;
    if (sc->filter) kv_filter_run_set_versions(sc->filter, o->max_versions <= 0 ? 1 : o->max_versions);
    /* Raw reads put family markers back in cell order after reading, so
       the first cell read need not be the first returned. */
    if (o->filter && !o->raw) sc->hints = kv_filter_hints_of(o->filter);
    /* the clock is read only for a family with a TTL (the matcher's
       only use of it on reads): a get makes no clock call otherwise */
    bool have_now = false;
    if (t->nfamilies > sc->fams_cap) {
        fam_reader *f = realloc(sc->fams, t->nfamilies * sizeof *f);
        if (!f) goto nomem;
        sc->fams = f;
        sc->fams_cap = t->nfamilies;
    }
    if (t->nfamilies) memset(sc->fams, 0, t->nfamilies * sizeof *sc->fams);
    int64_t tmin = o->time_min, tmax = o->time_max;
    if (o->has_timestamp) {
        tmin = o->timestamp;
        tmax = o->timestamp == INT64_MAX ? INT64_MAX : o->timestamp + 1;
    }
    for (size_t i = 0; i < t->nfamilies; i++) {
        kv_family *f = t->families[i];
        if (!selected(o, colfam, f)) continue;
        fam_reader *fr = &sc->fams[sc->nfams];
        fr->fam = f;
        fr->desc = f->desc;
        /* The family's specs in order, the later winning as HBase's
           addFamily / addColumn: a family spec selects every column, a
           column spec after it only that column, and further column specs
           add to it. first: where the column specs that count begin. */
        size_t ncols = 0, first = 0;
        bool whole = !o->columns || o->ncolumns == 0;
        for (size_t c = 0; o->columns && c < o->ncolumns; c++) {
            if (!column_of(o, colfam, c, f)) continue;
            if (!o->columns[c].qualifier) {
                whole = true;
                ncols = 0;
            } else {
                if (whole) first = c;
                whole = false;
                ncols++;
            }
        }
        if (!whole && ncols) {
            kv_column *cols = ncols <= sizeof fr->inline_cols / sizeof fr->inline_cols[0]
                                  ? fr->inline_cols
                                  : malloc(ncols * sizeof *cols);
            if (!cols) goto nomem;
            size_t k = 0;
            for (size_t c = first; c < o->ncolumns; c++)
                if (column_of(o, colfam, c, f)) cols[k++] = o->columns[c];
            /* in cell order, each once: read_family_row seeks to them in turn */
            if (k > 1) qsort(cols, k, sizeof *cols, cmp_column);
            size_t u = 0;
            for (size_t c = 0; c < k; c++)
                if (u == 0 || cmp_column(&cols[u - 1], &cols[c]) != 0) cols[u++] = cols[c];
            fr->cols = cols;
            fr->ncols = u;
        }
        if (!have_now && fr->desc.ttl_seconds != KV_FOREVER && fr->desc.ttl_seconds > 0) {
            sc->now = kv_clock_now(s);
            have_now = true;
        }
        kv_matcher_init(&fr->matcher, KV_MATCH_READ, &fr->desc, 0, sc->now);
        /* A raw read counts with its own VERSIONS: it shows what is there,
           surplus versions not yet dropped by a flush included. */
        int32_t mv = o->max_versions <= 0 ? 1 : o->max_versions;
        fr->matcher.max_versions = o->raw || mv < fr->desc.versions ? mv : fr->desc.versions;
        /* With a filter the family's VERSIONS are offered to it and the
           read's cap is applied after it (kv_filter_run_set_versions). */
        if (o->filter && !o->raw) fr->matcher.max_versions = fr->desc.versions;
        fr->matcher.time_min = tmin;
        fr->matcher.time_max = tmax;
        fr->matcher.raw = o->raw;
        sc->nfams++;
    }
    /* The snapshot and every family's memstores and files are taken under
       one hold of mu: a flush or compaction between them could otherwise
       drop versions the snapshot still needs from one family only, and a
       row mutation would be seen half-applied. The iterators are built
       afterwards, outside the lock. */
    fam_sources stack_srcs[STACK_FAMS];
    fam_sources *srcs = sc->nfams <= STACK_FAMS ? stack_srcs : calloc(sc->nfams, sizeof *srcs);
    if (!srcs) goto nomem;
    pthread_mutex_lock(&s->mu);
    sc->snapshot = atomic_load(&s->visible_seq);
    for (size_t i = 0; i < sc->nfams; i++) grab_sources(sc->fams[i].fam, &srcs[i]);
    pthread_mutex_unlock(&s->mu);
    bool built = true;
    /* a get wants nothing past its row, a forward scan nothing from its
       stop row on: a sorted file stops at a unit beyond them, unread.
       The bound: the row's end, esc(row) 0x02; the stop row's start,
       esc(stop) 0x00 (every key at or above it is the stop row's or a
       later row's: no key has 0x00 0x00 in its row) */
    kv_buf *sb = &sc->stop_bound;
    sb->len = 0;
    bool has_stop = o->stop_row && o->stop_row_len > 0 && !o->reversed && !single_row;
    if (has_stop && kv_key_encode_row(sb, o->stop_row, o->stop_row_len)) has_stop = false;
    if (!has_stop) sb->len = 0;
    if (point_row && !o->reversed) {
        if (buf_add(sb, point_row->data, point_row->len)) sb->len = 0;   /* no memory: no bound */
        else sb->data[sb->len - 1] = 0x02;
    }
    size_t bound_len = has_stop ? sb->len - 1 : sb->len;
    for (size_t i = 0; i < sc->nfams; i++) {
        fam_reader *fr = &sc->fams[i];
        fr->matcher.snapshot = sc->snapshot;
        if (built) {
            /* a get of one column may leave out files (fam_reader.deferred):
               not a raw read (it shows every marker), nor one with a filter
               (it sees versions the matcher does not count) */
            bool may_defer = point_row && sc->nfams == 1 && fr->ncols == 1 && !o->raw && !o->filter &&
                             !o->reversed;
            fr->fill_cache = o->fill_cache;
            /* a raw read shows what lies above the range too */
            fr->it = family_iterator(&srcs[i], &fr->desc, &fr->files, point_row, &rh,
                                     has_stop ? sb : NULL, fr->cols, fr->ncols, o->fill_cache,
                                     &sc->colkey, o->raw ? KV_TIME_MAX : fr->matcher.time_max,
                                     &fr->range_seek, &fr->no_family_markers, may_defer ? fr : NULL,
                                     i == 0 ? sc->mem_keep : NULL);
            built = fr->it != NULL;
            if (built && fr->it->set_upper && bound_len) fr->it->set_upper(fr->it, sb->data, bound_len);
        } else {
            kv_memstore_unref(srcs[i].mem);
            kv_memstore_unref(srcs[i].imm);
            kv_fileset_unref(srcs[i].files);
        }
    }
    if (srcs != stack_srcs) free(srcs);
    if (!built) goto nomem;
    /* Position every family. */
    if (!o->reversed) {
        kv_buf *tg = &sc->target;
        tg->len = 0;
        const uint8_t *lo = sc->opts.start_row;
        size_t lolen = sc->opts.start_row_len;
        if (sc->opts.row_prefix &&
            (!lo || kv_key_compare(sc->opts.row_prefix, sc->opts.row_prefix_len, lo, lolen) > 0)) {
            lo = sc->opts.row_prefix;
            lolen = sc->opts.row_prefix_len;
        }
        /* a get's row is escaped already (the bloom filters' point key) */
        if (lo && lo == sc->opts.start_row && point_row) {
            if (buf_add(tg, point_row->data, point_row->len)) goto nomem;
        } else if (lo && kv_key_encode_row(tg, lo, lolen) != 0) {
            goto nomem;
        }
        /* a row prefix: esc(lo) without terminator, before all keys of the
           rows that start with it; a start row: esc(lo) and terminator,
           above the separator a sorted file has before lo's first unit
           (esc(lo) 0x00), so that the seek does not enter the unit before */
        if (lo && lo != sc->opts.start_row) tg->len -= 2;
        fam_reader *f0 = sc->nfams == 1 ? &sc->fams[0] : NULL;
        if (point_row && lo == sc->opts.start_row && f0 && f0->no_family_markers && f0->ncols == 1) {
            /* a get of one column and no family marker to read: straight
               to the column's first entry, or with nothing to read above
               its range to its first entry below the range's end (on in
               the next column or row when it has none: an empty get).
               The row's other columns are not read: a get of a small
               column beside a large one reads no block of the large one.
               The column's prefix is kept for read_family_row. */
            uint8_t kind = KV_KIND_COLUMN;
            kv_buf *ct = &sc->coltg;
            ct->len = 0;
            if (buf_add(ct, point_row->data, point_row->len) || buf_add(ct, &kind, 1) ||
                kv_key_encode_row(ct, f0->cols[0].qualifier, f0->cols[0].qualifier_len))
                goto nomem;
            size_t len = ct->len;
            if (f0->range_seek && kv_key_append_ts(ct, f0->matcher.time_max - 1)) goto nomem;
            f0->it->seek(f0->it, ct->data, ct->len);
            ct->len = len;
            sc->have_coltg = true;
            sc->col_parts = (kv_key_parts){
                .row = sc->opts.start_row, .row_len = sc->opts.start_row_len,
                .qualifier = f0->cols[0].qualifier, .qualifier_len = f0->cols[0].qualifier_len,
                .kind = KV_KIND_COLUMN, .row_prefix_len = point_row->len, .column_prefix_len = len};
        } else {
            for (size_t i = 0; i < sc->nfams; i++) {
                if (sc->fams[i].ndeferred && merge_deferred(sc, &sc->fams[i], false) != KV_OK) goto nomem;
                sc->fams[i].it->seek(sc->fams[i].it, tg->data, tg->len);
            }
        }
    } else {
        /* The first row is the largest <= start_row (and within prefix). */
        sc->have_upper = false;
        if (sc->opts.start_row) {
            if (kv_key_encode_row(&sc->upper, sc->opts.start_row, sc->opts.start_row_len))
                goto nomem;
            sc->upper.data[sc->upper.len - 1] = 0x02; /* just past start_row's keys */
            sc->have_upper = true;
        }
        if (sc->opts.row_prefix) {
            /* successor of the prefix: first string above every string with it */
            kv_buf succ = {0};
            if (buf_add(&succ, sc->opts.row_prefix, sc->opts.row_prefix_len)) goto nomem;
            while (succ.len > 0 && succ.data[succ.len - 1] == 0xFF) succ.len--;
            if (succ.len > 0) {
                succ.data[succ.len - 1]++;
                kv_buf enc = {0};
                if (kv_key_encode_row(&enc, succ.data, succ.len)) { kv_buf_free(&succ); goto nomem; }
                enc.len -= 2;
                if (!sc->have_upper || kv_key_compare(enc.data, enc.len, sc->upper.data, sc->upper.len) < 0) {
                    sc->upper.len = 0;
                    buf_add(&sc->upper, enc.data, enc.len);
                    sc->have_upper = true;
                }
                kv_buf_free(&enc);
            }
            kv_buf_free(&succ);
        }
    }
    sc->whole_rows = !single_row && sc->nfams == 1 && !o->reversed && !sc->filter && !o->raw &&
                     sc->fams[0].ncols == 0 && sc->fams[0].ndeferred == 0 &&
                     sc->fams[0].matcher.max_versions == 1;
    return KV_OK;
nomem:
    return KV_NO_MEMORY;
}

/* ---- row assembly ---- */

/* Adds a cell: its qualifier is copied into sc->bytes, and so is its value
   unless pinned (it stays where it is until the scan closes: a memstore's
   node, kept by the scan's reference; iter.h value_pinned). */
static int add_cell(kv_engine_scan *sc, size_t fam, const kv_key_parts *kp, const uint8_t *v, size_t vlen,
                    bool pinned) {
    if (sc->ncells == sc->cap) {
        size_t cap = sc->cap ? 2 * sc->cap : 16;
        cell_ref *r = realloc(sc->refs, cap * sizeof *r);
        if (!r) return -1;
        sc->refs = r;
        kv_cell *c = realloc(sc->cells, cap * sizeof *c);
        if (!c) return -1;
        sc->cells = c;
        sc->cap = cap;
    }
    cell_ref *r = &sc->refs[sc->ncells];
    r->fam = fam;
    r->ts = kp->ts;
    r->type = kp->type;
    kv_buf *b = &sc->bytes;
    size_t copied = pinned ? 0 : vlen;
    if (buf_room(b, kp->qualifier_len + copied)) return -1;
    r->qoff = b->len;
    r->qlen = kp->qualifier_len;
    if (kp->qualifier_len) memcpy(b->data + b->len, kp->qualifier, kp->qualifier_len);
    b->len += kp->qualifier_len;
    r->voff = b->len;
    r->vlen = vlen;
    r->vptr = pinned ? v : NULL;
    if (copied) memcpy(b->data + b->len, v, copied);
    b->len += copied;
    sc->ncells++;
    return 0;
}

/* Whether an entry's column is selected; family markers belong to the
   empty qualifier (they are shown only when it is selected, as HBase's
   explicit column tracker does, but mask every column). */
static bool column_selected(const fam_reader *fr, const kv_key_parts *kp) {
    if (fr->ncols == 0) return true;
    for (size_t i = 0; i < fr->ncols; i++)
        if (fr->cols[i].qualifier_len == kp->qualifier_len &&
            memcmp(fr->cols[i].qualifier, kp->qualifier, kp->qualifier_len) == 0)
            return true;
    return false;
}

/* Puts a family's family markers among its empty qualifier's cells in
   cell order (timestamp descending, markers by type code first): the
   internal keys keep family markers ahead of every column so that they are
   read before what they mask, but a raw read returns them in cell order.
   refs[first..) are the family's cells of this row. */
static void order_family_markers(kv_engine_scan *sc, size_t first) {
    size_t k = first;
    while (k < sc->ncells && (sc->refs[k].type == KV_TYPE_DELETE_FAMILY ||
                              sc->refs[k].type == KV_TYPE_DELETE_FAMILY_VERSION))
        k++;
    size_t end = k;
    while (end < sc->ncells && sc->refs[end].qlen == 0) end++;
    if (k == first || end == k) return;
    /* Both runs are in order already: a stable insertion merge. */
    for (size_t i = first + 1; i < end; i++) {
        cell_ref r = sc->refs[i];
        size_t j = i;
        while (j > first && (sc->refs[j - 1].ts < r.ts ||
                             (sc->refs[j - 1].ts == r.ts && sc->refs[j - 1].type < r.type))) {
            sc->refs[j] = sc->refs[j - 1];
            j--;
        }
        sc->refs[j] = r;
    }
}

/* Records a failed iterator of family fi on the store, naming the sorted
   file that failed when one reports an error, and returns st. */
static kv_status iter_failed(kv_engine_scan *sc, size_t fi, kv_status st) {
    if (st == KV_OK || st == KV_NO_MEMORY) return st;
    const kv_fileset *fs = sc->fams[fi].files;
    char msg[400] = "";
    for (size_t i = 0; fs && i < fs->n && !msg[0]; i++)
        kv_sstfile_last_error(fs->files[i], msg, sizeof msg);
    if (msg[0]) return kv_fail(sc->store, st, "%s", msg);
    return kv_fail(sc->store, st, "reading family %s: %s", sc->fams[fi].desc.name, kv_strerror(st));
}

/* Reads family fr's entries of the row sc->row_key (the iterator is at the
   row's first entry or past it), adding kept cells. Leaves the iterator
   after the row. */
static void skip_family_row(kv_engine_scan *sc, size_t fi);

/* Entries a scan steps over with next() in a column that can give no more
   cells before it seeks past the column instead. A get seeks at once: the
   rest may be old versions of any size, each in blocks of its own. */
#define SKIP_NEXTS 8

/* Whether column entries after one at ts can add nothing: the column has
   its versions, or ts is below the time range (older entries are too, and
   a marker below the range masks nothing inside it). Raw reads show every
   marker, so they never stop early. */
static bool column_done(const kv_matcher *m, int64_t ts) {
    return !m->raw && (m->versions >= m->max_versions || ts < m->time_min);
}

/* Moves family fi's iterator past the entries starting with key[0..len)
   (a column's or a row's prefix, ending in an esc() terminator), stepping
   at most SKIP_NEXTS entries before it seeks. A get steps one entry in a
   family of VERSIONS 1 (where a source holds one version of a column, so
   the next entry is most often another column's or row's, in the unit at
   hand: a seek of every source again costs more), none in others (the
   next may be an old version of any size, in a unit of its own). Returns
   the key of the entry a step stopped at (*at_len its length: the caller
   need not ask the iterator again), else NULL. */
static const uint8_t *skip_prefix(kv_engine_scan *sc, size_t fi, const uint8_t *key, size_t len,
                                  size_t *at_len) {
    kv_iter *it = sc->fams[fi].it;
    const fam_reader *fr = &sc->fams[fi];
    int steps = sc->point.len == 0 ? SKIP_NEXTS : fr->desc.versions == 1 && !fr->matcher.raw ? 1 : 0;
    sc->peek = NULL;
    /* key is the scan's own copy (colkey, row_key): next() leaves it be */
    for (int i = 0; i < steps; i++) {
        it->next(it);
        if (!it->valid(it)) return NULL;
        const uint8_t *k = it->key(it, at_len);
        if (!has_prefix(k, *at_len, key, len)) return k;
    }
    kv_buf *tg = &sc->skip;
    tg->len = 0;
    if (buf_add(tg, key, len)) {
        it->next(it); /* out of memory: step on instead */
        return NULL;
    }
    /* esc() ends 0x00 0x01: with 0x02 it is just past the prefix's keys */
    tg->data[tg->len - 1] = 0x02;
    it->seek(it, tg->data, tg->len);
    return NULL;
}

/* Takes key, of the same column as the key kp was decoded from (the same
   bytes up to its suffix), into kp: its timestamp, type and sequence, and
   the qualifier where it now lies (at qoff in key, or in the scratch
   buffer, untouched since). False for a bad type (as kv_key_decode). */
static bool same_column_entry(kv_key_parts *kp, const uint8_t *key, size_t klen, size_t qoff) {
    kv_cell_type t = kv_key_type(key, klen);
    if (t != KV_TYPE_PUT && t != KV_TYPE_DELETE && t != KV_TYPE_DELETE_COLUMN &&
        t != KV_TYPE_DELETE_FAMILY && t != KV_TYPE_DELETE_FAMILY_VERSION)
        return false;
    kp->type = t;
    kp->ts = kv_key_timestamp(key, klen);
    kp->seq = kv_key_sequence(key, klen);
    if (qoff != SIZE_MAX) {
        /* decoded in place: the row leads the key */
        kp->row = key;
        kp->qualifier = key + qoff;
    }
    return true;
}

/* kv_key_decode of key, which starts with esc(row) of r bytes for a row
   without zero bytes (sc->row_key when sc->row_plain): only the rest is
   decoded. False when the qualifier holds a zero byte or the key is not
   well formed (kv_key_decode then decodes it, or reports it). */
static inline bool decode_in_row(kv_key_parts *kp, const uint8_t *key, size_t klen, size_t r) {
    if (klen < r + 1 + 2 + KV_KEY_SUFFIX_LEN) return false;
    size_t qend = klen - KV_KEY_SUFFIX_LEN;   /* just past esc(qualifier) */
    size_t qlen = qend - 2 - (r + 1);
    uint8_t kind = key[r];
    if (key[qend - 2] != 0x00 || key[qend - 1] != 0x01 || (qlen && memchr(key + r + 1, 0x00, qlen)) ||
        (kind != KV_KIND_FAMILY_MARKER && kind != KV_KIND_COLUMN))
        return false;
    kp->kind = kind;
    kp->row_prefix_len = r;
    kp->column_prefix_len = qend;
    kp->row_len = r - 2;
    kp->qualifier_len = qlen;
    kp->qualifier = key + r + 1;
    kp->row = key;
    return same_column_entry(kp, key, klen, SIZE_MAX);
}

/* Feeds family fi's entries that start with prefix (the iterator is at the
   first of them or past them) to the matcher, adding kept cells, and stops
   at the first entry without the prefix. Skips the rest of a column once
   it can give no more cells, so a read of the newest version costs the same
   whatever the number or size of the older ones. With the first-cell hint
   it stops after the first cell kept and sets *row_done. */
static kv_status read_entries(kv_engine_scan *sc, size_t fi, const uint8_t *prefix, size_t prefix_len,
                              bool one_column, bool resume, bool *row_done) {
    fam_reader *fr = &sc->fams[fi];
    kv_iter *it = fr->it;
    kv_matcher *m = &fr->matcher;
    kv_buf *colkey = &sc->colkey;
    if (!resume) sc->col_prefix_len = colkey->len = 0;   /* else: the column it stopped in */
    size_t col_prefix_len = sc->col_prefix_len;
    bool other_column = false;   /* skip_prefix left colkey's column */
    kv_key_parts kp;
    bool have_kp = false;        /* kp: the last entry decoded, of colkey's column */
    size_t qoff = SIZE_MAX;      /* kp.qualifier's offset in that key (else in scratch) */
    /* prefix is a get's whole column prefix (scan_open's coltg): an entry
       with it is of that column, and its parts but the suffix are known */
    bool col_known = sc->have_coltg && prefix == sc->coltg.data && prefix_len == sc->col_parts.column_prefix_len;
    /* every prefix read starts with the row's esc(row), sc->row_key */
    bool row_plain = sc->row_plain;
    size_t row_len = sc->row_key.len;
    /* the iterator's key, when next_row_key or skip_prefix gave it */
    const uint8_t *key = sc->peek;
    size_t klen = sc->peek_len;
    sc->peek = NULL;
    for (;;) {
        if (!key) {
            /* a valid iterator has met no error */
            if (!it->valid(it)) return iter_failed(sc, fi, it->status(it));
            key = it->key(it, &klen);
        }
        /* a full part: stop here, after the entry of its last cell */
        if (sc->paused) {
            sc->col_prefix_len = col_prefix_len;
            return KV_OK;
        }
        size_t vlen;
        if (!has_prefix(key, klen, prefix, prefix_len)) {
            /* the next row's first entry, most often: for next_row_key */
            if (sc->nfams == 1) {
                sc->peek = key;
                sc->peek_len = klen;
            }
            return KV_OK;
        }
        bool same_column = have_kp && !other_column && klen == col_prefix_len + KV_KEY_SUFFIX_LEN &&
                           has_prefix(key, klen, colkey->data, col_prefix_len);
        if (same_column) {
            /* another version of the column at hand: only the suffix is new */
            if (!same_column_entry(&kp, key, klen, qoff))
                return kv_fail(sc->store, KV_CORRUPT, "undecodable key in family %s", fr->desc.name);
        } else if (col_known && klen == prefix_len + KV_KEY_SUFFIX_LEN) {
            kp = sc->col_parts;
            if (!same_column_entry(&kp, key, klen, SIZE_MAX))
                return kv_fail(sc->store, KV_CORRUPT, "undecodable key in family %s", fr->desc.name);
            have_kp = true;
            qoff = SIZE_MAX;
        } else if (row_plain && decode_in_row(&kp, key, klen, row_len)) {
            /* the row is known (key has prefix, which starts with it) */
            have_kp = true;
            qoff = (size_t)(kp.qualifier - key);
        } else if (kv_key_decode(&kp, key, klen, &sc->scratch) != KV_OK) {
            return kv_fail(sc->store, KV_CORRUPT, "undecodable key in family %s", fr->desc.name);
        } else {
            have_kp = kp.column_prefix_len + KV_KEY_SUFFIX_LEN == klen;
            /* decoded in place (the row at the key's start) or in scratch */
            qoff = kp.row == key ? (size_t)(kp.qualifier - key) : SIZE_MAX;
        }
        if (kp.row_prefix_len != sc->row_key.len) return KV_OK;
        if (!same_column && (other_column || kp.column_prefix_len != col_prefix_len ||
                             !has_prefix(key, klen, colkey->data, col_prefix_len))) {
            other_column = false;
            colkey->len = 0;
            if (buf_add(colkey, key, kp.column_prefix_len)) return KV_NO_MEMORY;
            col_prefix_len = kp.column_prefix_len;
            if (kp.kind == KV_KIND_COLUMN) kv_matcher_start_column(m);
        }
        bool family_marker = kp.kind == KV_KIND_FAMILY_MARKER;
        bool shown = column_selected(fr, &kp);
        if ((shown || family_marker) && kv_matcher_match(m, kp.ts, kp.type, kp.seq, family_marker) &&
            shown) {
            const uint8_t *v = it->value(it, &vlen);
            /* the filter empties every value anyway: copy none */
            if (sc->hints.keys_only) vlen = 0;
            bool pinned = vlen && it->value_pinned && it->value_pinned(it);
            if (add_cell(sc, fi, &kp, v, vlen, pinned)) return KV_NO_MEMORY;
            if (sc->hints.first_cell_only) {
                *row_done = true;
                return KV_OK;
            }
            if (sc->batch && sc->ncells >= sc->batch) sc->paused = true;
        }
        if (!family_marker && shown && column_done(m, kp.ts)) {
            /* prefix is this column's: the caller seeks on from here */
            if (one_column) {
                sc->col_prefix_len = col_prefix_len;
                sc->col_finished = true;
                return KV_OK;
            }
            key = skip_prefix(sc, fi, colkey->data, col_prefix_len, &klen);
            other_column = true;
            continue;
        }
        it->next(it);
        key = NULL;
    }
}

/* Whether the iterator is at an entry starting with prefix. */
static bool at_prefix(const kv_iter *it, const uint8_t *prefix, size_t len) {
    if (!it->valid(it)) return false;
    size_t klen;
    const uint8_t *key = it->key(it, &klen);
    return has_prefix(key, klen, prefix, len);
}

/* Puts family fr's iterator at the first entry of the column whose prefix
   is tg (it is at or before that column's entries, past every earlier
   one), or with fr->range_seek at the column's first entry below the time
   range's end. tg is left as it was. */
static void seek_column(fam_reader *fr, kv_buf *tg) {
    kv_iter *it = fr->it;
    size_t len = tg->len;
    bool at = at_prefix(it, tg->data, len);
    if (!fr->range_seek) {
        if (!at) it->seek(it, tg->data, len);
        return;
    }
    int64_t end = fr->matcher.time_max;
    /* At the column already: step over a few versions above the range
       (a seek searches the whole memstore or block again), checking only
       their timestamps, then seek. */
    for (int i = 0; at && i < SKIP_NEXTS; i++) {
        size_t klen;
        const uint8_t *key = it->key(it, &klen);
        if (klen != len + KV_KEY_SUFFIX_LEN || kv_key_timestamp(key, klen) < end) return;
        it->next(it);
        at = at_prefix(it, tg->data, len);
        if (!at) return;   /* the column ends above the range: read on from here */
    }
    if (kv_key_append_ts(tg, end - 1)) {
        if (!at) it->seek(it, tg->data, len);   /* out of memory: read them */
        return;
    }
    it->seek(it, tg->data, tg->len);
    tg->len = len;
}

/* Reads family fi's part of the row sc->row_key (the iterator is at the
   row's first entry or past it) and leaves the iterator after the row.
   With selected columns it seeks to each of them rather than reading the
   whole row, so a read of one cell costs the same in a row of a million. */
static kv_status read_family_row(kv_engine_scan *sc, size_t fi) {
    fam_reader *fr = &sc->fams[fi];
    bool done = false, resume = fr->resume;
    fr->resume = false;
    if (!resume) kv_matcher_start_row(&fr->matcher);
    if (fr->ncols == 0) {
        kv_status st = read_entries(sc, fi, sc->row_key.data, sc->row_key.len, false, resume, &done);
        if (st == KV_OK && sc->paused) fr->resume = true;
        else if (st == KV_OK && done && sc->point.len == 0) {
            size_t at_len;
            skip_prefix(sc, fi, sc->row_key.data, sc->row_key.len, &at_len);
        }
        return st;
    }
    kv_buf *tg = &sc->target;
    kv_status st = KV_OK;
    if (!resume) {
        fr->col = 0;
        fr->mid = false;
    }
    bool mid = fr->mid;
    fr->mid = false;
    if (fr->col == 0 && fr->no_family_markers) {
        fr->col = 1;   /* no source holds one */
        mid = false;
    } else if (fr->col == 0) {
        /* Family-level markers lead the row and apply to every column. */
        tg->len = 0;
        uint8_t kind = KV_KIND_FAMILY_MARKER;
        if (buf_add(tg, sc->row_key.data, sc->row_key.len) || buf_add(tg, &kind, 1))
            return KV_NO_MEMORY;
        st = read_entries(sc, fi, tg->data, tg->len, false, mid, &done);
        if (st == KV_OK && sc->paused) {
            fr->resume = fr->mid = true;
            return st;
        }
        fr->col = 1;
        mid = false;
    }
    for (; st == KV_OK && !done && fr->col <= fr->ncols; fr->col++, mid = false) {
        size_t c = fr->col - 1;
        /* a get of one column: its prefix is built already */
        tg = sc->have_coltg ? &sc->coltg : &sc->target;
        if (!sc->have_coltg) {
            tg->len = 0;
            uint8_t col = KV_KIND_COLUMN;
            if (buf_add(tg, sc->row_key.data, sc->row_key.len) || buf_add(tg, &col, 1) ||
                kv_key_encode_row(tg, fr->cols[c].qualifier, fr->cols[c].qualifier_len))
                return KV_NO_MEMORY;
        }
        /* Every entry before the iterator's has been read or skipped, so
           when it is at one of the column's entries that is the column's
           first: no seek (a get of the row's first column seeks once).
           With range_seek, to the first entry below the range's end. */
        /* a row in parts reads every file from the start */
        if (fr->ndeferred && sc->batch && (st = merge_deferred(sc, fr, true)) != KV_OK) return st;
        size_t ncells = sc->ncells, nbytes = sc->bytes.len;
        if (!mid) {
            sc->peek = NULL;
            seek_column(fr, tg);
        }
        sc->col_finished = false;
        st = read_entries(sc, fi, tg->data, tg->len, true, mid, &done);
        if (st == KV_OK && fr->ndeferred) {
            /* Its versions all above every file left out: those can add
               nothing (strictly above: a put at the same timestamp in one
               of them may replace one found). Else the column is read
               again with them. */
            const kv_matcher *m = &fr->matcher;
            bool enough = m->versions >= m->max_versions && sc->ncells > ncells &&
                          sc->refs[sc->ncells - 1].ts > fr->deferred_max_ts;
            if (enough) {
                fr->ndeferred = 0;
            } else {
                sc->ncells = ncells;
                sc->bytes.len = nbytes;
                kv_matcher_start_row(&fr->matcher);
                if ((st = merge_deferred(sc, fr, true)) != KV_OK) return st;
                sc->col_finished = false;
                st = read_entries(sc, fi, tg->data, tg->len, true, false, &done);
            }
        }
        if (st == KV_OK && sc->paused) {
            /* the next part starts in this column, or at the next one
               when the column ended with the part (the iterator is still
               at its last entry) */
            fr->resume = true;
            if (sc->col_finished) fr->col++;
            else fr->mid = true;
            return st;
        }
    }
    /* a get reads no further row: nothing to skip */
    if (st == KV_OK && sc->point.len == 0) skip_family_row(sc, fi);
    return st;
}

/* Skips the rest of row sc->row_key in family fi. */
static void skip_family_row(kv_engine_scan *sc, size_t fi) {
    kv_iter *it = sc->fams[fi].it;
    sc->peek = NULL;
    kv_buf *tg = &sc->target;
    tg->len = 0;
    if (buf_add(tg, sc->row_key.data, sc->row_key.len)) return;
    tg->data[tg->len - 1] = 0x02;
    it->seek(it, tg->data, tg->len);
}

static bool row_at(const kv_iter *it, const uint8_t *row_key, size_t len) {
    if (!it->valid(it)) return false;
    size_t klen;
    const uint8_t *key = it->key(it, &klen);
    return klen > len && has_prefix(key, klen, row_key, len) && kv_row_prefix_len(key, klen) == len;
}

/* Picks the next row into sc->row_key: KV_OK, KV_END when no family has
   another row, KV_CORRUPT for an undecodable key, KV_NO_MEMORY. */
static kv_status next_row_key(kv_engine_scan *sc) {
    const uint8_t *best = NULL;
    size_t best_len = 0, best_klen = 0;
    bool best_plain = false;
    /* read_entries left the one family's iterator at this key */
    const uint8_t *peek = sc->nfams == 1 && !sc->opts.reversed ? sc->peek : NULL;
    sc->peek = NULL;
    for (size_t i = 0; i < sc->nfams; i++) {
        kv_iter *it = sc->fams[i].it;
        if (sc->opts.reversed) it->seek_before(it, sc->have_upper ? sc->upper.data : NULL,
                                               sc->have_upper ? sc->upper.len : 0);
        if (!peek && !it->valid(it)) {
            /* A family that failed must end the scan now: rows without its
               cells would be returned as if it had none. */
            kv_status st = it->status(it);
            if (st != KV_OK) return iter_failed(sc, i, st);
            continue;
        }
        size_t klen = sc->peek_len;
        const uint8_t *key = peek ? peek : it->key(it, &klen);
        bool plain;
        size_t rl = kv_row_prefix_len_plain(key, klen, &plain);
        if (rl == 0)
            return kv_fail(sc->store, KV_CORRUPT, "undecodable key in family %s",
                           sc->fams[i].desc.name);
        int c = best ? kv_key_compare(key, rl, best, best_len) : 0;
        if (!best || (sc->opts.reversed ? c > 0 : c < 0)) {
            best = key;
            best_len = rl;
            best_klen = klen;
            best_plain = plain;
        }
    }
    if (!best) return KV_END;
    sc->row_plain = best_plain;
    if (sc->nfams == 1 && !sc->opts.reversed) {
        /* the iterator is at the row's first entry: for read_entries */
        sc->peek = best;
        sc->peek_len = best_klen;
    }
    sc->row_key.len = 0;
    if (buf_add(&sc->row_key, best, best_len)) return KV_NO_MEMORY;
    if (sc->opts.reversed) {
        sc->upper.len = 0;
        if (buf_add(&sc->upper, best, best_len)) return KV_NO_MEMORY;
        sc->have_upper = true;
        for (size_t i = 0; i < sc->nfams; i++)
            sc->fams[i].it->seek(sc->fams[i].it, sc->row_key.data, sc->row_key.len);
    }
    return KV_OK;
}

/* Whether the current row is past the scan's bounds (ends the scan). */
static bool past_bounds(kv_engine_scan *sc, const uint8_t *row, size_t len) {
    const kv_read_options *o = &sc->opts;
    if (o->row_prefix) {
        bool has = len >= o->row_prefix_len && memcmp(row, o->row_prefix, o->row_prefix_len) == 0;
        if (!has) return true;
    }
    if (o->stop_row && o->stop_row_len > 0) {
        int c = kv_key_compare(row, len, o->stop_row, o->stop_row_len);
        if (o->reversed ? c <= 0 : c >= 0) return true;
    }
    return false;
}

static void fix_pointers(kv_engine_scan *sc, const uint8_t *row, size_t row_len) {
    for (size_t i = 0; i < sc->ncells; i++) {
        const cell_ref *r = &sc->refs[i];
        kv_cell *c = &sc->cells[i];
        c->row = row;
        c->row_len = row_len;
        c->family = sc->fams[r->fam].desc.name;
        c->qualifier = sc->bytes.data + r->qoff;
        c->qualifier_len = r->qlen;
        c->timestamp = r->ts;
        c->type = r->type;
        c->value = r->vptr ? r->vptr : sc->bytes.data + r->voff;
        c->value_len = r->vlen;
    }
}

/* Ends a scan with a failure that every later kv_engine_scan_next returns. */
static kv_status scan_failed(kv_engine_scan *sc, kv_status st) {
    sc->finished = true;
    sc->error = st;
    return st;
}

/* Starts the next row: picks it, puts its bytes at the head of sc->bytes
   and judges its key. KV_OK with *row_len, *want (the filter keeps the
   row key) and *stop (the filter ends the scan after this row); KV_END
   when the scan has no more rows; a failure. */
/* Whether sc is a get of one family whose iterator is at the get's row:
   esc() is prefix-free, so a key that starts with esc(row) is of that row
   and needs no decoding to tell. */
static inline bool get_at_point(kv_engine_scan *sc) {
    if (!sc->point.len || sc->nfams != 1 || sc->opts.reversed) return false;
    kv_iter *it = sc->fams[0].it;
    if (!it->valid(it)) return false;
    size_t klen;
    const uint8_t *key = it->key(it, &klen);
    return klen > sc->point.len && has_prefix(key, klen, sc->point.data, sc->point.len);
}

static kv_status start_row(kv_engine_scan *sc, size_t *row_len, bool *want, bool *stop) {
    if (sc->opts.limit && sc->rows_returned >= sc->opts.limit) return KV_END;
    bool at = get_at_point(sc);
    if (!at && sc->nfams == 1 && sc->fams[0].ndeferred) {
        /* the files a get read first hold nothing of its row: the others may */
        if (merge_deferred(sc, &sc->fams[0], true) != KV_OK) return KV_NO_MEMORY;
        at = get_at_point(sc);
    }
    if (at) {
        /* the row is the get's: its key and bytes are at hand */
        sc->row_key.len = 0;
        sc->bytes.len = 0;
        sc->ncells = 0;
        if (buf_add(&sc->row_key, sc->point.data, sc->point.len) ||
            buf_add(&sc->bytes, sc->opts.start_row, sc->opts.start_row_len))
            return KV_NO_MEMORY;
        sc->row_plain = false;   /* not looked at: its entries decode in full */
        *row_len = sc->opts.start_row_len;
    } else {
        kv_status nst = next_row_key(sc);
        if (nst != KV_OK && nst != KV_END) return nst;
        if (nst == KV_END) {
            for (size_t i = 0; i < sc->nfams; i++) {
                kv_status st = sc->fams[i].it->status(sc->fams[i].it);
                if (st != KV_OK) return iter_failed(sc, i, st);
            }
            return KV_END;
        }
        /* Decode the row bytes; they lead the result's byte buffer. */
        sc->bytes.len = 0;
        sc->ncells = 0;
        if (buf_room(&sc->bytes, sc->row_key.len)) return KV_NO_MEMORY;
        /* esc(row) without its terminator: runs without 0x00 are copied
           whole, 0x00 0xFF becomes 0x00 (locals: no reloads through sc);
           a row without zero bytes is one run, known to next_row_key */
        const uint8_t *src = sc->row_key.data, *end = src + sc->row_key.len - 2;
        uint8_t *dst = sc->bytes.data;
        if (sc->row_plain) {
            memcpy(dst, src, (size_t)(end - src));
            dst += end - src;
            src = end;
        }
        while (src < end) {
            const uint8_t *z = memchr(src, 0, (size_t)(end - src));
            size_t run = z ? (size_t)(z - src) + 1 : (size_t)(end - src);
            memcpy(dst, src, run);
            dst += run;
            src += run + (z != NULL);
        }
        sc->bytes.len = *row_len = (size_t)(dst - sc->bytes.data);
        if (sc->point.len && (sc->point.len != sc->row_key.len ||
                              memcmp(sc->point.data, sc->row_key.data, sc->point.len) != 0))
            return KV_END;   /* a get of an absent row */
    }
    if (past_bounds(sc, sc->bytes.data, *row_len)) return KV_END;
    *stop = false;
    *want = !sc->filter ||
            kv_filter_run_row_key(sc->filter, sc->bytes.data, *row_len, sc->opts.reversed, stop);
    if (*stop && !*want) return KV_END;
    sc->row_started = false;
    return KV_OK;
}

/* ---- whole rows of one family (sc->whole_rows) ---- */

/* Whether key, of the row whose esc(row) is the r bytes before it and
   holds no zero byte, is a put of a column whose qualifier holds none:
   kp then has its parts. */
static inline bool plain_put(kv_key_parts *kp, const uint8_t *key, size_t klen, size_t r) {
    return decode_in_row(kp, key, klen, r) && kp->kind == KV_KIND_COLUMN && kp->type == KV_TYPE_PUT;
}

/* Takes the next row of a whole_rows scan when its first entry is a put
   the matcher keeps, in a row and column without zero bytes: with one
   version wanted a column whose first entry is kept gives that cell and
   nothing more (column_done), and a row whose first entry is a column's
   has no family marker (they lead the row), so such a row needs none of
   the general loop's bookkeeping. A later column whose first entry is
   anything else is handed, from that entry on, to read_entries, whose
   result for it is the same as for a row read by it from the start (the
   matcher saw no family marker and starts each column afresh).
   *taken false: the row is left as it was (the iterator unmoved, sc->peek
   at its first entry) for start_row, which also ends the scan at a bound,
   the limit or the last row. Else KV_OK with the row's cells in sc and
   *row_len its length, or a failure. */
static kv_status whole_row(kv_engine_scan *sc, size_t *row_len, bool *taken) {
    *taken = false;
    if (sc->opts.limit && sc->rows_returned >= sc->opts.limit) return KV_OK;
    fam_reader *fr = &sc->fams[0];
    kv_iter *it = fr->it;
    const uint8_t *key = sc->peek;
    size_t klen = sc->peek_len;
    if (!key) {
        if (!it->valid(it)) return KV_OK;
        key = it->key(it, &klen);
        sc->peek = key;
        sc->peek_len = klen;
    }
    const uint8_t *z = memchr(key, 0x00, klen);
    if (!z || (size_t)(z - key) + 1 >= klen || z[1] != 0x01) return KV_OK;
    size_t rl = (size_t)(z - key) + 2;
    kv_key_parts kp;
    if (!plain_put(&kp, key, klen, rl)) return KV_OK;
    if ((sc->opts.row_prefix || sc->opts.stop_row) && past_bounds(sc, key, rl - 2)) return KV_OK;
    kv_matcher *m = &fr->matcher;
    kv_matcher_start_row(m);
    if (!kv_matcher_match(m, kp.ts, kp.type, kp.seq, false)) return KV_OK;
    *taken = true;
    sc->peek = NULL;
    sc->row_plain = true;
    sc->ncells = 0;
    sc->bytes.len = 0;
    if (buf_add(&sc->bytes, key, rl - 2)) return KV_NO_MEMORY;
    *row_len = rl - 2;
    /* the column's prefix, esc(row) first: the row's key while the
       iterator moves (sc->row_key only for read_entries) */
    kv_buf *colkey = &sc->colkey;
    for (;;) {
        size_t vlen;
        const uint8_t *v = it->value(it, &vlen);
        bool pinned = vlen && it->value_pinned && it->value_pinned(it);
        colkey->len = 0;
        if (add_cell(sc, 0, &kp, v, vlen, pinned) || buf_add(colkey, key, kp.column_prefix_len))
            return KV_NO_MEMORY;
        key = skip_prefix(sc, 0, colkey->data, colkey->len, &klen);
        if (!key && !it->valid(it)) {
            kv_status st = it->status(it);
            return st == KV_OK ? KV_OK : iter_failed(sc, 0, st);
        }
        if (!key) key = it->key(it, &klen);
        if (!has_prefix(key, klen, colkey->data, rl)) break;
        kv_matcher_start_column(m);
        if (!plain_put(&kp, key, klen, rl) || !kv_matcher_match(m, kp.ts, kp.type, kp.seq, false)) {
            /* the rest of the row, from this column on */
            sc->peek = key;
            sc->peek_len = klen;
            sc->row_key.len = 0;
            if (buf_add(&sc->row_key, colkey->data, rl)) return KV_NO_MEMORY;
            bool done = false;
            return read_entries(sc, 0, sc->row_key.data, rl, false, false, &done);
        }
    }
    /* the next row's first entry */
    sc->peek = key;
    sc->peek_len = klen;
    return KV_OK;
}

/* Hands out the row assembled in sc (its n cells judged already). */
static void give_row(kv_engine_scan *sc, size_t row_len, size_t n, const kv_result **row) {
    sc->result.row = sc->bytes.data;
    sc->result.row_len = row_len;
    sc->result.cells = sc->cells;
    sc->result.ncells = n;
    if (!sc->row_started) sc->rows_returned++;   /* limit counts rows, not parts */
    sc->row_started = true;
    *row = &sc->result;
}

kv_status kv_engine_scan_next(kv_engine_scan *sc, const kv_result **row) {
    *row = NULL;
    if (sc->error != KV_OK) return sc->error;
    while (sc->in_row || !sc->finished) {
        size_t row_len = 0, fam0 = 0;
        bool want = true, stop = false;
        if (sc->in_row) {
            /* the next part of a row returned in parts (no filter) */
            row_len = sc->row_len;
            sc->bytes.len = row_len;
            sc->ncells = 0;
            fam0 = sc->row_fam;
        } else {
            bool taken = false;
            if (sc->whole_rows && !sc->batch) {
                kv_status st = whole_row(sc, &row_len, &taken);
                if (st != KV_OK) return scan_failed(sc, st);
            }
            if (taken) {
                fix_pointers(sc, sc->bytes.data, row_len);
                sc->row_started = false;
                give_row(sc, row_len, sc->ncells, row);
                return KV_OK;
            }
            kv_status st = start_row(sc, &row_len, &want, &stop);
            if (st == KV_END) break;
            if (st != KV_OK) return scan_failed(sc, st);
        }
        sc->in_row = false;
        for (size_t i = fam0; i < sc->nfams; i++) {
            /* one family: next_row_key took the row from its iterator */
            if (!sc->fams[i].resume && sc->nfams > 1 &&
                !row_at(sc->fams[i].it, sc->row_key.data, sc->row_key.len))
                continue;
            if (!want) {
                skip_family_row(sc, i);
                continue;
            }
            size_t first = sc->ncells;
            kv_status st = read_family_row(sc, i);
            if (st != KV_OK) return scan_failed(sc, st);
            if (sc->opts.raw) order_family_markers(sc, first);
            if (sc->paused) {
                /* a full part: the rest of the row comes next time */
                sc->paused = false;
                sc->in_row = true;
                sc->row_fam = i;
                sc->row_len = row_len;
                break;
            }
        }
        /* a get's iterators are left inside its row: it has no next row */
        if (!sc->in_row && (stop || sc->point.len)) sc->finished = true;
        if (!want || sc->ncells == 0) continue;
        fix_pointers(sc, sc->bytes.data, row_len);
        size_t n = sc->ncells;
        if (sc->filter) {
            bool fstop = false;
            bool keep = kv_filter_run_row(sc->filter, sc->cells, &n, &fstop);
            if (fstop) sc->finished = true;
            if (!keep || n == 0) continue;
        }
        give_row(sc, row_len, n, row);
        return KV_OK;
    }
    sc->finished = true;
    return KV_END;
}

kv_status kv_engine_scan_set_batch(kv_engine_scan *sc, size_t max_cells) {
    /* A filter judges whole rows and a raw read reorders a family's
       markers after reading it: the caller splits those rows instead. */
    if (max_cells && (sc->filter || sc->opts.raw)) return KV_NOT_SUPPORTED;
    sc->batch = max_cells;
    return KV_OK;
}

/* ---- entry points ---- */

/* sc's table: the one it cached when the name and the catalog are the
   same (catalog_lock held shared), else looked up and cached. */
static kv_status resolve_for_read(kv_engine *s, kv_engine_scan *sc, const char *table, kv_table **out) {
    kv_table *t = sc->ctx_table;
    if (!t || sc->ctx_gen != s->catalog_gen || !table || strcmp(table, (const char *)sc->ctx_name.data) != 0) {
        t = kv_catalog_find(s, table);
        sc->ctx_table = NULL;
        sc->ctx_name.len = 0;
        if (t && buf_add(&sc->ctx_name, table, strlen(table) + 1) == 0) {
            sc->ctx_table = t;
            sc->ctx_gen = s->catalog_gen;
        }
    }
    if (!t) return kv_fail(s, KV_NOT_FOUND, "table '%s' does not exist", table ? table : "(null)");
    if (!t->enabled) return kv_fail(s, KV_DISABLED, "table '%s' is disabled", table);
    *out = t;
    return KV_OK;
}

/* A scan from the pool (or new) with its store set, or NULL. */
static kv_engine_scan *scan_start(kv_engine *s) {
    kv_engine_scan *sc = scan_get(s);
    if (sc) sc->store = s;
    return sc;
}

/* Opens a scan of t (catalog_lock held); single_row: a get of start_row,
   which lets the bloom filters skip files. */
static kv_status scan_open_table(kv_engine_scan **out, kv_engine *s, kv_table *t,
                                 const kv_read_options *o, bool single_row) {
    *out = NULL;
    kv_engine_scan *sc = scan_start(s);
    if (!sc) return KV_NO_MEMORY;
    kv_status st = scan_open(sc, t, o, single_row);
    if (st != KV_OK) {
        kv_engine_scan_close(sc);
        return st;
    }
    *out = sc;
    return KV_OK;
}

kv_status kv_engine_scan_open(kv_engine *s, const char *table, const kv_read_options *ro,
                              bool single_row, kv_engine_scan **out) {
    *out = NULL;
    kv_engine_scan *sc = scan_start(s);
    if (!sc) return KV_NO_MEMORY;
    pthread_rwlock_rdlock(&s->catalog_lock);
    kv_table *t = NULL;
    kv_status st = resolve_for_read(s, sc, table, &t);
    if (st == KV_OK) st = scan_open(sc, t, ro, single_row);
    pthread_rwlock_unlock(&s->catalog_lock);
    if (st != KV_OK) {
        kv_engine_scan_close(sc);
        return st;
    }
    *out = sc;
    return KV_OK;
}

kv_status kv_read_newest(kv_engine *s, kv_table *t, const void *row, size_t row_len,
                         const char *family, const void *q, size_t qlen, bool *found, int64_t *ts,
                         kv_buf *value) {
    kv_column col = {family, q, qlen};
    kv_read_options o = KV_READ_OPTIONS_INIT;
    o.columns = &col;
    o.ncolumns = 1;
    o.start_row = row;
    o.start_row_len = row_len;
    o.limit = 1;
    *found = false;
    kv_engine_scan *sc;
    kv_status st = scan_open_table(&sc, s, t, &o, true);
    if (st != KV_OK) return st;
    const kv_result *r;
    st = kv_engine_scan_next(sc, &r);
    if (st == KV_OK && r->row_len == row_len && memcmp(r->row, row, row_len) == 0 && r->ncells > 0) {
        *found = true;
        *ts = r->cells[0].timestamp;
        if (value) {
            value->len = 0;
            if (buf_add(value, r->cells[0].value, r->cells[0].value_len)) st = KV_NO_MEMORY;
        }
    } else if (st == KV_OK || st == KV_END) {
        st = KV_OK;
    }
    kv_engine_scan_close(sc);
    return st;
}
