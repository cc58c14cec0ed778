/**
 * @file manifest.c
 * The manifest: the whole catalog (namespaces, tables, families and their
 * attributes), every family's sorted files, the next file number, the first
 * log to replay and the clock floor, in one text file: a snapshot rewritten
 * atomically (write MANIFEST.tmp, fsync, rename, fsync the directory) on a
 * catalog change, then edits appended by flushes and compactions (one
 * append and one fsync each) until they outgrow the snapshot. A crash
 * leaves the old or the new state, never a mixture. Format:
 * doc/manifest_format.md.
 */
#include "manifest.h"
#include "errors.h"
#include "fileset.h"
#include "tables.h"
#include "hbase/schema.h"
#include "util/filename.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* on-disk format: do not change */
#define MANIFEST_MAGIC_PREFIX "cellfs-manifest "
#define MANIFEST_MAGIC MANIFEST_MAGIC_PREFIX "3"
/* version 2: no attribute lines (read, never written) */
#define MANIFEST_MAGIC_V2 MANIFEST_MAGIC_PREFIX "2"
/* version 1: a snapshot only (read, never written) */
#define MANIFEST_MAGIC_V1 MANIFEST_MAGIC_PREFIX "1"

/* Edits are appended until they outgrow the snapshot and this many bytes;
   then the next change rewrites the whole manifest. */
#define MANIFEST_EDIT_BYTES (64u << 10)

static int appendf(kv_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int appendf(kv_buf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || kv_buf_reserve(b, (size_t)n + 1) != 0) return -1;
    va_start(ap, fmt);
    vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return 0;
}

static int append_hex(kv_buf *b, const void *p, size_t n) {
    static const char digits[] = "0123456789abcdef";
    if (n == 0) return kv_buf_append(b, "-", 1);
    if (kv_buf_reserve(b, 2 * n) != 0) return -1;
    const uint8_t *s = p;
    for (size_t i = 0; i < n; i++) {
        b->data[b->len++] = (uint8_t)digits[s[i] >> 4];
        b->data[b->len++] = (uint8_t)digits[s[i] & 15];
    }
    return 0;
}

static int family_line(kv_buf *b, uint32_t table_id, const kv_family *f) {
    const kv_family_desc *d = &f->desc;
    return appendf(b, "family %u %u %s %d %d %" PRId64 " %d %d %d %d %d %d %d %d\n", table_id, f->id,
                   d->name, d->versions, d->min_versions, d->ttl_seconds, (int)d->keep_deleted,
                   (int)d->compression, (int)d->bloom, d->blocksize, (int)d->encoding,
                   d->in_memory, d->blockcache, d->new_version_behavior);
}

static int file_line(kv_buf *b, uint32_t family_id, const kv_sstfile *f) {
    const kv_sst_meta *m = &f->meta;
    if (appendf(b, "file %u %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRId64 " %" PRId64 " %" PRIu64 " ",
                family_id, f->number, m->file_size, m->entries, m->min_ts, m->max_ts, m->max_seq) ||
        append_hex(b, m->smallest, m->smallest_len) || kv_buf_append(b, " ", 1) ||
        append_hex(b, m->largest, m->largest_len) || kv_buf_append(b, "\n", 1))
        return -1;
    return 0;
}

/* The scalars every snapshot and every edit carries. */
static int scalar_lines(kv_buf *b, const kv_engine *s) {
    return appendf(b, "next_file %" PRIu64 "\nnext_id %u\nlast_seq %" PRIu64 "\nlog_number %" PRIu64
                   "\nclock_floor %" PRId64 "\n", s->next_file, s->next_id, s->last_seq,
                   s->log_number, s->clock_floor);
}

/* The whole state (mu held). */
static int build_snapshot(kv_buf *b, const kv_engine *s) {
    int bad = appendf(b, "%s\n", MANIFEST_MAGIC);
    bad |= scalar_lines(b, s);
    for (size_t i = 0; i < s->nnamespaces; i++) {
        const kv_namespace *ns = &s->namespaces[i];
        bad |= appendf(b, "namespace %s\n", ns->name);
        for (size_t p = 0; p < ns->nprops; p++) {
            bad |= appendf(b, "property %s ", ns->name);
            bad |= append_hex(b, ns->props[p].key, strlen(ns->props[p].key));
            bad |= kv_buf_append(b, " ", 1);
            bad |= append_hex(b, ns->props[p].value, strlen(ns->props[p].value));
            bad |= kv_buf_append(b, "\n", 1);
        }
    }
    for (size_t i = 0; i < s->ntables; i++) {
        const kv_table *t = s->tables[i];
        bad |= appendf(b, "table %u %s %s %d\n", t->id, t->ns, t->name, t->enabled);
        for (size_t a = 0; a < t->attrs.n; a++) {
            const kv_property *p = &t->attrs.p[a];
            bad |= appendf(b, "attribute %u ", t->id);
            bad |= append_hex(b, p->key, strlen(p->key));
            bad |= kv_buf_append(b, " ", 1);
            bad |= append_hex(b, p->value, strlen(p->value));
            bad |= kv_buf_append(b, "\n", 1);
        }
        for (size_t f = 0; f < t->nfamilies; f++) {
            const kv_family *fam = t->families[f];
            bad |= family_line(b, t->id, fam);
            for (size_t k = 0; fam->files && k < fam->files->n; k++)
                bad |= file_line(b, fam->id, fam->files->files[k]);
        }
    }
    bad |= appendf(b, "checksum %08x\n", kv_checksum(b->data, b->len));
    return bad;
}

/* One edit: the scalars and the whole file list of each family given
   (mu held). */
static int build_edit(kv_buf *b, const kv_engine *s, kv_family *const *fams, size_t nfams) {
    int bad = appendf(b, "edit %" PRIu64 "\n", s->manifest_edits + 1);
    bad |= scalar_lines(b, s);
    for (size_t i = 0; i < nfams; i++) {
        const kv_family *fam = fams[i];
        bad |= appendf(b, "files %u\n", fam->id);
        for (size_t k = 0; fam->files && k < fam->files->n; k++)
            bad |= file_line(b, fam->id, fam->files->files[k]);
    }
    bad |= appendf(b, "end %08x\n", kv_checksum(b->data, b->len));
    return bad;
}

void kv_manifest_lock(kv_engine *s) { pthread_mutex_lock(&s->manifest_mu); }
void kv_manifest_unlock(kv_engine *s) { pthread_mutex_unlock(&s->manifest_mu); }

/* Appends an edit to MANIFEST and syncs it. */
static kv_status append_edit(kv_engine *s, const char *path, const kv_buf *b, char *err, size_t errlen) {
    kv_file *f = NULL;
    kv_status st = s->env->open_append(s->env, path, false, &f, err, errlen);
    if (st != KV_OK) return st;
    st = s->env->append(f, b->data, b->len, err, errlen);
    if (st == KV_OK) st = s->env->sync(f, err, errlen);
    char cerr[256];
    kv_status cs = s->env->close(f, cerr, sizeof cerr);
    if (st == KV_OK && cs != KV_OK) {
        snprintf(err, errlen, "%s", cerr);
        st = cs;
    }
    return st;
}

kv_status kv_manifest_save(kv_engine *s, bool whole, kv_family *const *fams, size_t nfams) {
    kv_buf b = {0};
    pthread_mutex_lock(&s->mu);
    uint64_t edit_bytes = s->manifest_size - s->manifest_base;
    uint64_t limit = s->manifest_base > MANIFEST_EDIT_BYTES ? s->manifest_base : MANIFEST_EDIT_BYTES;
    bool snapshot = whole || s->manifest_snapshot_needed || edit_bytes > limit;
    int bad = snapshot ? build_snapshot(&b, s) : build_edit(&b, s, fams, nfams);
    pthread_mutex_unlock(&s->mu);
    if (bad) {
        kv_buf_free(&b);
        return kv_fail(s, KV_NO_MEMORY, "writing the manifest: out of memory");
    }
    char *path = kv_filename_manifest(s->dir);
    char err[512] = "";
    kv_status st;
    if (!path) st = KV_NO_MEMORY;
    else if (snapshot) st = kv_env_write_file_atomic(s->env, s->dir, path, b.data, b.len, err, sizeof err);
    else st = append_edit(s, path, &b, err, sizeof err);
    free(path);
    if (st == KV_OK && snapshot) {
        s->manifest_size = s->manifest_base = b.len;
        s->manifest_edits = 0;
        s->manifest_snapshot_needed = false;
    } else if (st == KV_OK) {
        s->manifest_size += b.len;
        s->manifest_edits++;
    } else {
        /* Part of an edit may be on disk: the next write replaces the file. */
        s->manifest_snapshot_needed = true;
    }
    kv_buf_free(&b);
    if (st != KV_OK) return kv_fail(s, st, "writing the manifest: %s", err[0] ? err : kv_strerror(st));
    return KV_OK;
}

/* ---- loading ---- */

/* The words of one line, split in place at single spaces. */
#define MAX_WORDS 16
typedef struct words {
    int n;
    char *w[MAX_WORDS];
} words;

static int split_words(char *line, words *out) {
    out->n = 0;
    for (char *p = line;;) {
        if (out->n == MAX_WORDS || *p == 0 || *p == ' ') return -1; /* too many, or an empty word */
        out->w[out->n++] = p;
        char *sp = strchr(p, ' ');
        if (!sp) return 0;
        *sp = 0;
        p = sp + 1;
    }
}

static int parse_u64(const char *w, uint64_t *v) {
    if (*w < '0' || *w > '9') return -1;
    errno = 0;
    char *end;
    unsigned long long x = strtoull(w, &end, 10);
    if (errno || *end) return -1;
    *v = x;
    return 0;
}

static int parse_i64(const char *w, int64_t *v) {
    if (!(*w == '-' || (*w >= '0' && *w <= '9'))) return -1;
    errno = 0;
    char *end;
    long long x = strtoll(w, &end, 10);
    if (errno || *end) return -1;
    *v = x;
    return 0;
}

static int parse_u32(const char *w, uint32_t *v) {
    uint64_t x;
    if (parse_u64(w, &x) || x > UINT32_MAX) return -1;
    *v = (uint32_t)x;
    return 0;
}

static int parse_int(const char *w, int *v) {
    int64_t x;
    if (parse_i64(w, &x) || x < INT_MIN || x > INT_MAX) return -1;
    *v = (int)x;
    return 0;
}

static int parse_name(const char *w, char *out) {
    if (strlen(w) > KV_NAME_MAX) return -1;
    strcpy(out, w);
    return 0;
}

static int hexval(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

/* Decodes a hex word ("-" = empty) into a malloc'd buffer (NUL-terminated). */
static int unhex(const char *w, uint8_t **out, size_t *len) {
    size_t n = strcmp(w, "-") == 0 ? 0 : strlen(w);
    if (n % 2) return -1;
    uint8_t *p = malloc(n / 2 + 1);
    if (!p) return -1;
    for (size_t i = 0; i < n / 2; i++) {
        int hi = hexval(w[2 * i]), lo = hexval(w[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            free(p);
            return -1;
        }
        p[i] = (uint8_t)(hi << 4 | lo);
    }
    p[n / 2] = 0;
    *out = p;
    *len = n / 2;
    return 0;
}

/* A sorted file named by the manifest, opened once the whole manifest is
   read (an edit may replace a family's files). */
typedef struct named_file {
    uint32_t family_id;
    uint64_t number;
    kv_sst_meta meta;
} named_file;

typedef struct loader {
    kv_engine *s;
    const char *path;           /* the manifest's path, for messages */
    named_file *files;
    size_t nfiles, cap;
    bool in_edit;               /* only scalars and file lists in edits */
    bool lenient;               /* salvage: a line or edit that does not
                                   apply is reported and skipped */
    const char *text;           /* the whole manifest, for offsets */
} loader;

/* Salvage: reports what of a damaged manifest is left out (a "lost: "
   message, which cellck shows as a loss) and marks the manifest damaged. */
static void lost(loader *ld, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void lost(loader *ld, const char *fmt, ...) {
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    ld->s->manifest_damaged = true;
    kv_log(ld->s, KV_LOG_WARN, "lost: %s", msg);
}

static bool named_twice(const loader *ld, uint64_t number) {
    for (size_t i = 0; i < ld->nfiles; i++)
        if (ld->files[i].number == number) return true;
    return false;
}

/* Applies one line (split into words); returns NULL or what is wrong. */
static const char *apply_line(loader *ld, words *wd, kv_status *st) {
    kv_engine *s = ld->s;
    char **w = wd->w;
    const char *k = w[0];
    int n = wd->n;
    uint64_t u;
    int64_t ll;
    if (strcmp(k, "next_file") == 0 || strcmp(k, "last_seq") == 0 || strcmp(k, "log_number") == 0) {
        if (n != 2 || parse_u64(w[1], &u)) return "expected one unsigned number";
        if (k[0] == 'n') s->next_file = u;
        else if (k[1] == 'a') s->last_seq = u;
        else s->log_number = u;
    } else if (strcmp(k, "next_id") == 0) {
        if (n != 2 || parse_u32(w[1], &s->next_id)) return "expected one unsigned 32-bit number";
    } else if (strcmp(k, "clock_floor") == 0) {
        if (n != 2 || parse_i64(w[1], &ll)) return "expected one signed number";
        s->clock_floor = ll;
    } else if (strcmp(k, "files") == 0) {
        uint32_t fid;
        if (!ld->in_edit) return "a file list outside an edit";
        if (n != 2 || parse_u32(w[1], &fid)) return "expected one family id";
        if (!kv_catalog_family_by_id(s, 0, fid)) return "file list of an unknown family";
        size_t keep = 0;
        for (size_t i = 0; i < ld->nfiles; i++) {
            if (ld->files[i].family_id == fid) kv_sst_meta_clear(&ld->files[i].meta);
            else ld->files[keep++] = ld->files[i];
        }
        ld->nfiles = keep;
    } else if (ld->in_edit && strcmp(k, "file") != 0) {
        return "a catalog record inside an edit";
    } else if (strcmp(k, "namespace") == 0) {
        char name[KV_NAME_MAX + 1];
        if (n != 2 || parse_name(w[1], name)) return "expected one namespace name";
        if (ld->lenient && kv_check_name(name) != KV_OK) return "not a valid namespace name";
        if (kv_catalog_find_ns(s, name)) return "namespace given twice";
        if ((*st = kv_catalog_add_namespace(s, name)) != KV_OK) return "cannot add the namespace";
    } else if (strcmp(k, "property") == 0) {
        uint8_t *kb = NULL, *vb = NULL;
        size_t kl, vl;
        if (n != 4) return "expected namespace, key and value";
        kv_namespace *ns = kv_catalog_find_ns(s, w[1]);
        if (!ns) return "property of an unknown namespace";
        if (unhex(w[2], &kb, &kl) || unhex(w[3], &vb, &vl) || strlen((char *)kb) != kl ||
            strlen((char *)vb) != vl) {
            free(kb);
            free(vb);
            return "bad hex in key or value";
        }
        kv_property *pp = realloc(ns->props, (ns->nprops + 1) * sizeof *pp);
        if (!pp) {
            free(kb);
            free(vb);
            *st = KV_NO_MEMORY;
            return "out of memory";
        }
        ns->props = pp;
        pp[ns->nprops].key = (char *)kb;
        pp[ns->nprops].value = (char *)vb;
        ns->nprops++;
    } else if (strcmp(k, "table") == 0) {
        uint32_t id;
        int en;
        char nsname[KV_NAME_MAX + 1], name[KV_NAME_MAX + 1];
        if (n != 5 || parse_u32(w[1], &id) || parse_name(w[2], nsname) || parse_name(w[3], name) ||
            parse_int(w[4], &en))
            return "expected id, namespace, name and enabled";
        if (kv_catalog_table_by_id(s, id)) return "table id given twice";
        if (ld->lenient) {
            /* A table's namespace is known from its record even when the
               namespace's own record was lost. */
            if (kv_check_name(nsname) != KV_OK || kv_check_name(name) != KV_OK) return "not a valid name";
            char full[2 * KV_NAME_MAX + 2];
            snprintf(full, sizeof full, "%s:%s", nsname, name);
            if (kv_catalog_find(s, full)) return "table given twice";
            if (!kv_catalog_find_ns(s, nsname) && (*st = kv_catalog_add_namespace(s, nsname)) != KV_OK)
                return "out of memory";
        }
        kv_table *t = calloc(1, sizeof *t);
        kv_table **tt = realloc(s->tables, (s->ntables + 1) * sizeof *tt);
        if (tt) s->tables = tt;
        if (!t || !tt) {
            free(t);
            *st = KV_NO_MEMORY;
            return "out of memory";
        }
        t->id = id;
        strcpy(t->ns, nsname);
        strcpy(t->name, name);
        t->enabled = en != 0;
        s->tables[s->ntables++] = t;
    } else if (strcmp(k, "attribute") == 0) {
        uint32_t tid;
        uint8_t *kb = NULL, *vb = NULL;
        size_t kl, vl;
        if (n != 4 || parse_u32(w[1], &tid)) return "expected table id, key and value";
        kv_table *t = kv_catalog_table_by_id(s, tid);
        if (!t) return "attribute of an unknown table";
        if (unhex(w[2], &kb, &kl) || unhex(w[3], &vb, &vl) || kl == 0 || strlen((char *)kb) != kl ||
            strlen((char *)vb) != vl) {
            free(kb);
            free(vb);
            return "bad hex in key or value";
        }
        bool twice = kv_tattrs_get(&t->attrs, (char *)kb) != NULL;
        kv_status put = twice ? KV_OK : kv_tattrs_put(&t->attrs, (char *)kb, (char *)vb);
        free(kb);
        free(vb);
        if (twice) return "attribute given twice";
        if ((*st = put) != KV_OK) return "out of memory";
    } else if (strcmp(k, "family") == 0) {
        kv_family_desc d = KV_FAMILY_DESC_INIT;
        uint32_t tid, fid;
        int kdc, comp, bloom, enc, vers, minv, bs, inmem, bc, nvb;
        if (n != 15 || parse_u32(w[1], &tid) || parse_u32(w[2], &fid) || parse_name(w[3], d.name) ||
            parse_int(w[4], &vers) || parse_int(w[5], &minv) ||
            parse_i64(w[6], &d.ttl_seconds) || parse_int(w[7], &kdc) || parse_int(w[8], &comp) ||
            parse_int(w[9], &bloom) || parse_int(w[10], &bs) || parse_int(w[11], &enc) ||
            parse_int(w[12], &inmem) || parse_int(w[13], &bc) || parse_int(w[14], &nvb))
            return "expected table id, family id, name and 11 attributes";
        d.versions = vers;
        d.min_versions = minv;
        d.blocksize = bs;
        d.in_memory = inmem != 0;
        d.blockcache = bc != 0;
        d.new_version_behavior = nvb != 0;
        d.keep_deleted = (kv_keep_deleted)kdc;
        d.compression = (kv_compression)comp;
        d.bloom = (kv_bloom)bloom;
        d.encoding = (kv_encoding)enc;
        kv_table *t = kv_catalog_table_by_id(s, tid);
        if (!t) return "family of an unknown table";
        if (ld->lenient && (kv_family_desc_check(&d, NULL, 0) != KV_OK || kv_table_family(t, d.name)))
            return "not a valid family";
        if (kv_catalog_family_by_id(s, 0, fid)) return "family id given twice";
        kv_family **ff = realloc(t->families, (t->nfamilies + 1) * sizeof *ff);
        if (!ff) {
            *st = KV_NO_MEMORY;
            return "out of memory";
        }
        t->families = ff;
        if (!(ff[t->nfamilies] = kv_family_new(&d, fid))) {
            *st = KV_NO_MEMORY;
            return "out of memory";
        }
        t->nfamilies++;
    } else if (strcmp(k, "file") == 0) {
        named_file nf = {0};
        kv_sst_meta *m = &nf.meta;
        if (n != 10 || parse_u32(w[1], &nf.family_id) || parse_u64(w[2], &nf.number) ||
            parse_u64(w[3], &m->file_size) || parse_u64(w[4], &m->entries) ||
            parse_i64(w[5], &m->min_ts) || parse_i64(w[6], &m->max_ts) || parse_u64(w[7], &m->max_seq))
            return "expected family id, number, size, entries, timestamps and sequence";
        if (unhex(w[8], &m->smallest, &m->smallest_len) || unhex(w[9], &m->largest, &m->largest_len)) {
            kv_sst_meta_clear(m);
            return "bad hex in the smallest or largest key";
        }
        if (!kv_catalog_family_by_id(s, 0, nf.family_id)) {
            kv_sst_meta_clear(m);
            return "file of an unknown family";
        }
        if (ld->lenient && named_twice(ld, nf.number)) {
            kv_sst_meta_clear(m);
            return "file named twice";
        }
        if (ld->nfiles == ld->cap) {
            size_t cap = ld->cap ? 2 * ld->cap : 16;
            named_file *p = realloc(ld->files, cap * sizeof *p);
            if (!p) {
                kv_sst_meta_clear(m);
                *st = KV_NO_MEMORY;
                return "out of memory";
            }
            ld->files = p;
            ld->cap = cap;
        }
        ld->files[ld->nfiles++] = nf;
    } else {
        return "unknown record";
    }
    return NULL;
}

/* Applies the lines of text (NUL-terminated, each ending in '\n'), the
   first being line first_line of the file; a line that does not apply is
   KV_CORRUPT naming file and line. The words of each line are split in
   place; its newline is kept. */
static kv_status apply_lines(loader *ld, char *text, int first_line) {
    kv_status st = KV_OK;
    int lineno = first_line;
    for (char *line = text; *line && st == KV_OK; lineno++) {
        char *nl = strchr(line, '\n');
        if (!nl) break; /* the callers end the text with a newline */
        *nl = 0;
        char copy[128];
        snprintf(copy, sizeof copy, "%s", line);
        words wd;
        const char *why = split_words(line, &wd) ? "not single-space separated words" : apply_line(ld, &wd, &st);
        if (why) {
            if (st == KV_OK) st = KV_CORRUPT;
            if (ld->lenient && st == KV_CORRUPT) {
                lost(ld, "%s line %d (offset %td): %s: '%.80s' (left out)", ld->path, lineno,
                     line - ld->text, why, copy);
                st = KV_OK;
            } else {
                kv_fail(ld->s, st, "%s line %d: %s: '%.80s'", ld->path, lineno, why, copy);
            }
        }
        *nl = '\n'; /* so that lines are counted again for later messages */
        line = nl + 1;
    }
    return st;
}

static int count_lines(const char *p, const char *end) {
    int n = 0;
    for (; p < end; p++) n += *p == '\n';
    return n;
}

/* Applies the edits that follow the snapshot, text[at, len). Each is
   "edit N", its lines, "end CHECKSUM" over the block before the end line.
   A damaged or incomplete last edit (a crash while appending it: it was
   never acknowledged) is dropped with a warning; a damaged edit with more
   after it is KV_CORRUPT naming the offset. */
static kv_status apply_edits(loader *ld, char *text, size_t at, size_t len, int lineno) {
    kv_engine *s = ld->s;
    ld->in_edit = true;
    while (at < len) {
        size_t start = at;
        /* An edit starts here, or the file ends. */
        char *end_line = NULL;
        /* Find the block's "end " line. */
        for (size_t p = at; p < len;) {
            char *nl = memchr(text + p, '\n', len - p);
            if (!nl) break;
            if (strncmp(text + p, "end ", 4) == 0) {
                end_line = text + p;
                break;
            }
            p = (size_t)(nl - text) + 1;
        }
        const char *why = NULL;
        size_t block_end = len;
        if (end_line) block_end = (size_t)((char *)memchr(end_line, '\n', len - (size_t)(end_line - text)) - text) + 1;
        if (!end_line) {
            why = "an edit without its end";
        } else if (strncmp(text + start, "edit ", 5) != 0) {
            why = "expected an edit";
        } else {
            size_t el = (size_t)(end_line - text);
            uint32_t sum = 0;
            bool ok = block_end - el == 13;
            for (size_t i = el + 4; ok && i < el + 12; i++) {
                int v = hexval(text[i]);
                ok = v >= 0;
                sum = sum << 4 | (uint32_t)(v < 0 ? 0 : v);
            }
            if (!ok || sum != kv_checksum(text + start, el - start)) why = "edit checksum mismatch";
        }
        /* Only an edit cut short (no end line) is a torn append; a whole
           edit with a bad checksum is damage, even at the end. */
        if (why && !end_line) {
            kv_log(s, KV_LOG_WARN, "%s: dropped an incomplete edit at offset %zu (%zu bytes: %s; written "
                   "by a process that died before the edit was acknowledged)", ld->path, start,
                   len - start, why);
            s->manifest_snapshot_needed = true;
            break;
        }
        if (why && ld->lenient) {
            /* Salvage: skip to the next edit; the files only this edit
               named are left to lost_found. */
            char *next = NULL;
            for (size_t p = start; p < len && !next;) {
                char *nl = memchr(text + p, '\n', len - p);
                if (!nl) break;
                p = (size_t)(nl - text) + 1;
                if (strncmp(text + p, "edit ", 5) == 0) next = text + p;
            }
            size_t skip_to = next ? (size_t)(next - text) : len;
            lost(ld, "%s line %d (offset %zu): %s (%zu bytes left out)", ld->path, lineno, start, why,
                 skip_to - start);
            lineno += count_lines(text + start, text + skip_to);
            at = skip_to;
            continue;
        }
        if (why) {
            ld->in_edit = false;
            return kv_fail(s, KV_CORRUPT, "%s line %d (offset %zu): %s, and more follows", ld->path,
                           lineno, start, why);
        }
        /* Apply the lines between "edit N" and "end". */
        char *first = memchr(text + start, '\n', len - start) + 1;
        int edit_line = lineno;
        char saved = *end_line;
        *end_line = 0;
        kv_status st = apply_lines(ld, first, edit_line + 1);
        *end_line = saved;
        if (st != KV_OK) {
            ld->in_edit = false;
            return st;
        }
        s->manifest_edits++;
        lineno += count_lines(text + start, text + block_end);
        at = block_end;
        s->manifest_size = at;
    }
    ld->in_edit = false;
    return KV_OK;
}

/* Opens every named file, in order, into its family's file set. */
static kv_status open_files(loader *ld) {
    kv_engine *s = ld->s;
    for (size_t i = 0; i < ld->nfiles; i++) {
        named_file *nf = &ld->files[i];
        kv_family *fam = kv_catalog_family_by_id(s, 0, nf->family_id);
        if (!fam) return kv_fail(s, KV_CORRUPT, "%s: file %" PRIu64 " of an unknown family", ld->path, nf->number);
        kv_sstfile **files = realloc(fam->files->files, (fam->files->n + 1) * sizeof *files);
        if (!files) return KV_NO_MEMORY;
        fam->files->files = files;
        kv_sstfile *f;
        kv_status st = kv_sstfile_open_or_broken(s, nf->number, &nf->meta, &f);
        if (st != KV_OK) return st;
        fam->files->files[fam->files->n++] = f;
    }
    return KV_OK;
}

/* Checks "checksum XXXXXXXX\n" at text + at over text[0, at). */
static bool checksum_line_ok(const char *text, size_t at, size_t end) {
    static const char prefix[] = "checksum ";
    size_t pl = sizeof prefix - 1;
    if (end - at != pl + 9 || memcmp(text + at, prefix, pl) != 0 || text[end - 1] != '\n') return false;
    uint32_t sum = 0;
    for (size_t i = at + pl; i < end - 1; i++) {
        int v = hexval(text[i]);
        if (v < 0) return false;
        sum = sum << 4 | (uint32_t)v;
    }
    return sum == kv_checksum(text, at);
}

/* The first line at or after @p from that starts with @p prefix, or len. */
static size_t find_line(const char *text, size_t from, size_t len, const char *prefix) {
    size_t pl = strlen(prefix);
    for (size_t p = from; p < len;) {
        if (len - p >= pl && memcmp(text + p, prefix, pl) == 0) return p;
        const char *nl = memchr(text + p, '\n', len - p);
        if (!nl) break;
        p = (size_t)(nl - text) + 1;
    }
    return len;
}

/* Salvage: reads what it can of a manifest that failed the checks (why
   says how). The snapshot's lines after the first (up to its checksum
   line, else up to the first edit, else up to the last whole line) are
   applied one by one, leaving out those that do not parse; then every
   edit whose checksum holds. What is left out is reported ("lost: "). */
static kv_status load_lenient(loader *ld, char *text, size_t len, size_t first_nl, size_t sum_at,
                              size_t sum_end, const char *why) {
    lost(ld, "%s; the catalog is read from the lines that parse, the rest is left out", why);
    for (size_t i = 0; i < len; i++)
        if (text[i] == 0) text[i] = '?'; /* a damaged byte; its line will not parse */
    if (first_nl >= len) return KV_OK;
    size_t start = first_nl + 1, end, edits;
    if (sum_at) {
        end = sum_at;
        edits = sum_end;
    } else {
        end = edits = find_line(text, start, len, "edit ");
        if (end == len) {
            /* Cut short: only whole lines count. */
            while (end > start && text[end - 1] != '\n') end--;
            if (end < len)
                lost(ld, "%s line %d (offset %zu): a line cut short, left out: '%.*s'", ld->path,
                     count_lines(text, text + end) + 1, end, (int)(len - end > 80 ? 80 : len - end),
                     text + end);
            edits = len;
        }
    }
    char saved = text[end];
    text[end] = 0;
    kv_status st = apply_lines(ld, text + start, 2);
    text[end] = saved;
    if (st == KV_OK && edits < len) st = apply_edits(ld, text, edits, len, count_lines(text, text + edits) + 1);
    return st;
}

/* Salvage, after a damaged manifest was read: every store has the default
   and hbase namespaces, and a table without a family is left out. */
static kv_status complete_catalog(loader *ld) {
    kv_status st;
    if (!kv_catalog_find_ns(ld->s, "default") && (st = kv_catalog_add_namespace(ld->s, "default")) != KV_OK)
        return st;
    if (!kv_catalog_find_ns(ld->s, "hbase") && (st = kv_catalog_add_namespace(ld->s, "hbase")) != KV_OK)
        return st;
    kv_engine *s = ld->s;
    size_t keep = 0;
    for (size_t i = 0; i < s->ntables; i++) {
        kv_table *t = s->tables[i];
        if (t->nfamilies) {
            s->tables[keep++] = t;
            continue;
        }
        lost(ld, "%s: no family of table %s:%s could be read: the table is left out (its cells go to "
             "lost_found)", ld->path, t->ns, t->name);
        kv_table_free(t);
    }
    s->ntables = keep;
    return KV_OK;
}

kv_status kv_manifest_load(kv_engine *s, const uint8_t *data, size_t len) {
    char *path = kv_filename_manifest(s->dir);
    if (!path) return KV_NO_MEMORY;
    loader ld = {.s = s, .path = path, .lenient = s->salvage};
    kv_status st = KV_OK;
    /* One NUL-terminated copy: nothing below reads past it. */
    char *text = malloc(len + 1);
    if (!text) {
        free(path);
        return KV_NO_MEMORY;
    }
    memcpy(text, data, len);
    text[len] = 0;
    ld.text = text;
    size_t magic_len = sizeof MANIFEST_MAGIC_PREFIX - 1;
    size_t first_nl = 0;
    while (first_nl < len && text[first_nl] != '\n') first_nl++;
    bool v1 = first_nl == strlen(MANIFEST_MAGIC_V1) && memcmp(text, MANIFEST_MAGIC_V1, first_nl) == 0;
    bool v2 = (first_nl == strlen(MANIFEST_MAGIC) && memcmp(text, MANIFEST_MAGIC, first_nl) == 0) ||
              (first_nl == strlen(MANIFEST_MAGIC_V2) && memcmp(text, MANIFEST_MAGIC_V2, first_nl) == 0);
    /* The snapshot ends with its first "checksum" line. */
    size_t sum_at = 0, sum_end = 0;
    for (size_t p = first_nl + 1; p < len;) {
        char *nl = memchr(text + p, '\n', len - p);
        size_t next = nl ? (size_t)(nl - text) + 1 : len;
        if (strncmp(text + p, "checksum ", 9) == 0) {
            sum_at = p;
            sum_end = next;
            break;
        }
        p = next;
    }
    /* What is wrong with the file as a whole, if anything. */
    char why[512] = "";
    if (len == 0) {
        snprintf(why, sizeof why, "%s is empty", path);
    } else if (memchr(text, 0, len)) {
        snprintf(why, sizeof why, "%s holds a zero byte: not a manifest", path);
    } else if (first_nl == len || first_nl < magic_len || memcmp(text, MANIFEST_MAGIC_PREFIX, magic_len) != 0) {
        snprintf(why, sizeof why, "%s line 1: not a cellfs manifest (expected '%s')", path, MANIFEST_MAGIC);
    } else if (!v1 && !v2) {
        snprintf(why, sizeof why, "%s line 1: unknown manifest version '%.*s' (this library reads versions "
                 "1 to 3)", path, (int)(first_nl < 40 ? first_nl : 40), text);
    } else if (!sum_at) {
        snprintf(why, sizeof why, "%s is truncated or damaged (no checksum line; it ends at offset %zu)",
                 path, len);
    } else if (!checksum_line_ok(text, sum_at, sum_end)) {
        snprintf(why, sizeof why, "%s checksum mismatch at line %d (offset %zu; damaged or truncated)", path,
                 count_lines(text, text + sum_at) + 1, sum_at);
    }
    if (why[0] && ld.lenient) {
        s->manifest_base = s->manifest_size = len;
        st = load_lenient(&ld, text, len, first_nl, sum_at, sum_end, why);
    } else if (why[0]) {
        st = kv_fail(s, KV_CORRUPT, "%s", why);
    } else {
        s->manifest_base = s->manifest_size = sum_end;
        s->manifest_edits = 0;
        char saved = text[sum_at];
        text[sum_at] = 0;
        st = apply_lines(&ld, text + first_nl + 1, 2);
        text[sum_at] = saved;
        if (st == KV_OK && sum_end < len)
            st = apply_edits(&ld, text, sum_end, len, count_lines(text, text + sum_end) + 1);
    }
    if (st == KV_OK && ld.lenient && s->manifest_damaged) st = complete_catalog(&ld);
    if (st == KV_OK) st = open_files(&ld);
    for (size_t i = 0; i < ld.nfiles; i++) kv_sst_meta_clear(&ld.files[i].meta);
    free(ld.files);
    free(text);
    free(path);
    return st;
}
