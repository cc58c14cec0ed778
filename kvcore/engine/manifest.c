/**
 * @file manifest.c
 * The manifest: the whole catalog (namespaces, tables, families and their
 * attributes), every family's sorted files, the next file number, the first
 * log to replay and the clock floor, in one text file that is rewritten
 * atomically (write MANIFEST.tmp, fsync, rename, fsync the directory) on
 * every change, so a crash leaves the old or the new manifest, never a
 * mixture. Format: doc/manifest_format.md.
 */
#include "manifest.h"
#include "errors.h"
#include "fileset.h"
#include "tables.h"
#include "util/filename.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* on-disk format: do not change */
#define MANIFEST_MAGIC "cellfs-manifest 1"

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

kv_status kv_manifest_write(kv_engine *s) {
    kv_buf b = {0};
    int bad = appendf(&b, "%s\n", MANIFEST_MAGIC);
    bad |= appendf(&b, "next_file %" PRIu64 "\nnext_id %u\nlast_seq %" PRIu64 "\nlog_number %" PRIu64
                   "\nclock_floor %" PRId64 "\n", s->next_file, s->next_id, s->last_seq,
                   s->log_number, s->clock_floor);
    for (size_t i = 0; i < s->nnamespaces; i++) {
        const kv_namespace *ns = &s->namespaces[i];
        bad |= appendf(&b, "namespace %s\n", ns->name);
        for (size_t p = 0; p < ns->nprops; p++) {
            bad |= appendf(&b, "property %s ", ns->name);
            bad |= append_hex(&b, ns->props[p].key, strlen(ns->props[p].key));
            bad |= kv_buf_append(&b, " ", 1);
            bad |= append_hex(&b, ns->props[p].value, strlen(ns->props[p].value));
            bad |= kv_buf_append(&b, "\n", 1);
        }
    }
    for (size_t i = 0; i < s->ntables; i++) {
        const kv_table *t = s->tables[i];
        bad |= appendf(&b, "table %u %s %s %d\n", t->id, t->ns, t->name, t->enabled);
        for (size_t f = 0; f < t->nfamilies; f++) {
            const kv_family *fam = t->families[f];
            bad |= family_line(&b, t->id, fam);
            for (size_t k = 0; fam->files && k < fam->files->n; k++)
                bad |= file_line(&b, fam->id, fam->files->files[k]);
        }
    }
    bad |= appendf(&b, "checksum %08x\n", kv_checksum(b.data, b.len));
    if (bad) {
        kv_buf_free(&b);
        return KV_NO_MEMORY;
    }
    char *path = kv_filename_manifest(s->dir);
    char err[512] = "";
    kv_status st = path ? kv_env_write_file_atomic(s->env, s->dir, path, b.data, b.len, err, sizeof err)
                        : KV_NO_MEMORY;
    free(path);
    kv_buf_free(&b);
    if (st != KV_OK) return kv_fail(s, st, "writing the manifest: %s", err);
    return KV_OK;
}

/* ---- loading ---- */

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

/* Appends sorted file @p number to fam's file set (at open). */
static kv_status load_file(kv_engine *s, kv_family *fam, uint64_t number, kv_sst_meta *meta) {
    kv_sstfile **files = realloc(fam->files->files, (fam->files->n + 1) * sizeof *files);
    if (!files) return KV_NO_MEMORY;
    fam->files->files = files;
    kv_sstfile *f;
    kv_status st = kv_sstfile_open(s, number, meta, &f);
    if (st != KV_OK) return st;
    fam->files->files[fam->files->n++] = f;
    return KV_OK;
}

kv_status kv_manifest_load(kv_engine *s, const uint8_t *data, size_t len) {
    /* The last line is "checksum X" over everything before it. */
    if (len < 20 || data[len - 1] != '\n') return kv_fail(s, KV_CORRUPT, "MANIFEST is truncated");
    size_t last = len - 1;
    while (last > 0 && data[last - 1] != '\n') last--;
    unsigned sum;
    if (sscanf((const char *)data + last, "checksum %8x", &sum) != 1 || sum != kv_checksum(data, last))
        return kv_fail(s, KV_CORRUPT, "MANIFEST checksum mismatch");
    char *text = malloc(last + 1);
    if (!text) return KV_NO_MEMORY;
    memcpy(text, data, last);
    text[last] = 0;
    kv_status st = KV_OK;
    int lineno = 0;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line && st == KV_OK;
         line = strtok_r(NULL, "\n", &save)) {
        lineno++;
        char w1[KV_NAME_MAX + 1], w2[KV_NAME_MAX + 1], w3[KV_NAME_MAX + 1];
        if (lineno == 1) {
            if (strcmp(line, MANIFEST_MAGIC) != 0) st = KV_CORRUPT;
            continue;
        }
        unsigned long long u;
        long long ll;
        unsigned a, b;
        int en;
        if (sscanf(line, "next_file %llu", &u) == 1) s->next_file = u;
        else if (sscanf(line, "next_id %u", &a) == 1) s->next_id = a;
        else if (sscanf(line, "last_seq %llu", &u) == 1) s->last_seq = u;
        else if (sscanf(line, "log_number %llu", &u) == 1) s->log_number = u;
        else if (sscanf(line, "clock_floor %lld", &ll) == 1) s->clock_floor = ll;
        else if (sscanf(line, "namespace %255s", w1) == 1) {
            if ((st = kv_catalog_add_namespace(s, w1)) != KV_OK) break;
        } else if (strncmp(line, "property ", 9) == 0) {
            char *k = malloc(strlen(line)), *v = malloc(strlen(line));
            uint8_t *kb = NULL, *vb = NULL;
            size_t kl, vl;
            kv_namespace *ns = NULL;
            if (k && v && sscanf(line, "property %255s %s %s", w1, k, v) == 3 &&
                unhex(k, &kb, &kl) == 0 && unhex(v, &vb, &vl) == 0) {
                for (size_t i = 0; i < s->nnamespaces; i++)
                    if (strcmp(s->namespaces[i].name, w1) == 0) ns = &s->namespaces[i];
            }
            kv_property *pp = ns ? realloc(ns->props, (ns->nprops + 1) * sizeof *pp) : NULL;
            if (pp) {
                ns->props = pp;
                pp[ns->nprops].key = (char *)kb;
                pp[ns->nprops].value = (char *)vb;
                ns->nprops++;
            } else {
                free(kb);
                free(vb);
                st = KV_CORRUPT;
            }
            free(k);
            free(v);
        } else if (sscanf(line, "table %u %255s %255s %d", &a, w1, w2, &en) == 4) {
            kv_table *t = calloc(1, sizeof *t);
            kv_table **tt = realloc(s->tables, (s->ntables + 1) * sizeof *tt);
            if (tt) s->tables = tt;
            if (!t || !tt) { free(t); st = KV_NO_MEMORY; break; }
            t->id = a;
            snprintf(t->ns, sizeof t->ns, "%s", w1);
            snprintf(t->name, sizeof t->name, "%s", w2);
            t->enabled = en != 0;
            s->tables[s->ntables++] = t;
        } else if (strncmp(line, "family ", 7) == 0) {
            kv_family_desc d = KV_FAMILY_DESC_INIT;
            int kdc, comp, bloom, enc, inmem, bc, nvb;
            long long ttl;
            if (sscanf(line, "family %u %u %255s %d %d %lld %d %d %d %d %d %d %d %d", &a, &b, w3,
                       &d.versions, &d.min_versions, &ttl, &kdc, &comp, &bloom, &d.blocksize, &enc,
                       &inmem, &bc, &nvb) != 14) { st = KV_CORRUPT; break; }
            snprintf(d.name, sizeof d.name, "%s", w3);
            d.ttl_seconds = ttl;
            d.keep_deleted = (kv_keep_deleted)kdc;
            d.compression = (kv_compression)comp;
            d.bloom = (kv_bloom)bloom;
            d.encoding = (kv_encoding)enc;
            d.in_memory = inmem;
            d.blockcache = bc;
            d.new_version_behavior = nvb;
            kv_table *t = kv_catalog_table_by_id(s, a);
            if (!t) { st = KV_CORRUPT; break; }
            kv_family **ff = realloc(t->families, (t->nfamilies + 1) * sizeof *ff);
            if (!ff) { st = KV_NO_MEMORY; break; }
            t->families = ff;
            if (!(ff[t->nfamilies] = kv_family_new(&d, b))) { st = KV_NO_MEMORY; break; }
            t->nfamilies++;
        } else if (strncmp(line, "file ", 5) == 0) {
            kv_sst_meta m = {0};
            unsigned long long num, size, entries, maxseq;
            long long mints, maxts;
            char *lo = malloc(strlen(line)), *hi = malloc(strlen(line));
            if (!lo || !hi ||
                sscanf(line, "file %u %llu %llu %llu %lld %lld %llu %s %s", &a, &num, &size, &entries,
                       &mints, &maxts, &maxseq, lo, hi) != 9 ||
                unhex(lo, &m.smallest, &m.smallest_len) || unhex(hi, &m.largest, &m.largest_len)) {
                free(lo);
                free(hi);
                kv_sst_meta_clear(&m);
                st = KV_CORRUPT;
                break;
            }
            free(lo);
            free(hi);
            m.file_size = size;
            m.entries = entries;
            m.min_ts = mints;
            m.max_ts = maxts;
            m.max_seq = maxseq;
            kv_family *fam = kv_catalog_family_by_id(s, 0, a);
            if (!fam) { kv_sst_meta_clear(&m); st = KV_CORRUPT; break; }
            st = load_file(s, fam, num, &m);
            if (st != KV_OK) kv_sst_meta_clear(&m);
        } else {
            st = KV_CORRUPT;
        }
        if (st == KV_CORRUPT) kv_fail(s, st, "MANIFEST line %d is malformed: %.80s", lineno, line);
    }
    free(text);
    return st;
}
