/*
 * TSV import and export (see transfer.h): HBase ImportTsv's column mapping
 * (HBASE_ROW_KEY, HBASE_TS_KEY, family:qualifier), an optional header line
 * naming the columns, fields escaped as in codec.h. Reads with getline and
 * writes with stdio; mutations go through batch.c, reads through kv_scan.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "codec.h"
#include "transfer.h"

/* Adds one mapping entry; @p where prefixes error messages ("" or "FILE
 * line 1: the header must name the columns: "). */
static int add_map_entry(sh_transfer *t, const char *name, size_t len, const char *where) {
    cellsh *sh = t->sh;
    sh_map_column c = { SH_MAP_CELL, NULL, NULL, 0 };
    if (len == 13 && memcmp(name, "HBASE_ROW_KEY", 13) == 0) {
        c.kind = SH_MAP_ROW_KEY;
    } else if (len == 12 && memcmp(name, "HBASE_TS_KEY", 12) == 0) {
        c.kind = SH_MAP_TS_KEY;
    } else {
        const char *colon = memchr(name, ':', len);
        if (!colon || colon == name)
            return sh_error(sh, "%scolumn '%.*s' is not HBASE_ROW_KEY, HBASE_TS_KEY or "
                            "'family:qualifier'", where, (int)len, name);
        size_t flen = (size_t)(colon - name);
        if (memchr(name, '\0', flen))
            return sh_error(sh, "%sa family name must not hold NUL bytes", where);
        c.family = strndup(name, flen);
        c.qualifier_len = len - flen - 1;
        c.qualifier = malloc(c.qualifier_len + 1);
        if (!c.family || !c.qualifier) {
            free(c.family);
            free(c.qualifier);
            return sh_error(sh, "out of memory");
        }
        memcpy(c.qualifier, colon + 1, c.qualifier_len);
    }
    for (size_t i = 0; i < t->nmap && c.kind != SH_MAP_CELL; i++)
        if (t->map[i].kind == c.kind)
            return sh_error(sh, "%s%.*s appears twice in the column mapping", where, (int)len,
                            name);
    sh_map_column *m = realloc(t->map, (t->nmap + 1) * sizeof *m);
    if (!m) {
        free(c.family);
        free(c.qualifier);
        return sh_error(sh, "out of memory");
    }
    t->map = m;
    t->map[t->nmap++] = c;
    return 0;
}

static bool has_row_key(const sh_transfer *t) {
    for (size_t i = 0; i < t->nmap; i++)
        if (t->map[i].kind == SH_MAP_ROW_KEY) return true;
    return false;
}

int sh_transfer_parse_map(sh_transfer *t, const char *spec, size_t len, bool is_import) {
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && spec[i] != ',') continue;
        size_t a = start, b = i;
        while (a < b && spec[a] == ' ') a++;
        while (b > a && spec[b - 1] == ' ') b--;
        if (a == b) return sh_error(t->sh, "empty entry in the column mapping");
        if (add_map_entry(t, spec + a, b - a, "") < 0) return -1;
        start = i + 1;
    }
    if (!has_row_key(t)) {
        if (is_import) return sh_error(t->sh, "the column mapping needs HBASE_ROW_KEY");
        /* export: the row key goes first */
        if (add_map_entry(t, "HBASE_ROW_KEY", 13, "") < 0) return -1;
        sh_map_column rk = t->map[t->nmap - 1];
        memmove(t->map + 1, t->map, (t->nmap - 1) * sizeof *t->map);
        t->map[0] = rk;
    }
    return 0;
}

void sh_transfer_free(sh_transfer *t) {
    for (size_t i = 0; i < t->nmap; i++) {
        free(t->map[i].family);
        free(t->map[i].qualifier);
    }
    free(t->map);
    t->map = NULL;
    t->nmap = 0;
}

/* ------------------------------------------------------------------------ */
/* Import                                                                    */
/* ------------------------------------------------------------------------ */

/* Reads the header line's fields as the column mapping. */
static int map_from_header(sh_transfer *t, char *line, size_t len) {
    char where[600];
    snprintf(where, sizeof where, "%s line 1: the header must name the columns: ", t->path);
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && line[i] != t->separator) continue;
        size_t n = i - start;
        if (t->escaped) n = sh_tsv_unescape(line + start, n);
        if (n == 0) return sh_error(t->sh, "%sa column name is empty", where);
        if (add_map_entry(t, line + start, n, where) < 0) return -1;
        start = i + 1;
    }
    if (!has_row_key(t)) return sh_error(t->sh, "%sHBASE_ROW_KEY is missing", where);
    return 0;
}

/* Turns one data line into a mutation; returns 1 on a bad line (reason in
 * why), 0 when added, -1 on a failure that stops the import. */
static int import_line(sh_transfer *t, sh_batch *b, char *line, size_t len, char *why,
                       size_t whylen) {
    char **field = malloc(t->nmap * sizeof *field);
    size_t *flen = malloc(t->nmap * sizeof *flen);
    if (!field || !flen) {
        free(field);
        free(flen);
        return sh_error(t->sh, "out of memory");
    }
    size_t nf = 0, start = 0;
    int rc = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && line[i] != t->separator) continue;
        if (nf < t->nmap) {
            field[nf] = line + start;
            flen[nf] = t->escaped ? sh_tsv_unescape(line + start, i - start) : i - start;
        }
        nf++;
        start = i + 1;
    }
    kv_mutation *m = NULL;
    if (nf != t->nmap) {
        snprintf(why, whylen, "expected %zu fields, found %zu", t->nmap, nf);
        rc = 1;
        goto out;
    }
    const char *row = NULL;
    size_t row_len = 0;
    int64_t ts = t->timestamp;
    for (size_t i = 0; i < t->nmap; i++) {
        if (t->map[i].kind == SH_MAP_ROW_KEY) {
            row = field[i];
            row_len = flen[i];
        } else if (t->map[i].kind == SH_MAP_TS_KEY && t->timestamp == KV_LATEST_TIMESTAMP) {
            char buf[32];
            char *end = NULL;
            if (flen[i] == 0 || flen[i] >= sizeof buf) goto bad_ts;
            memcpy(buf, field[i], flen[i]);
            buf[flen[i]] = '\0';
            errno = 0;
            long long v = strtoll(buf, &end, 10);
            if (errno || *end || v < 0) goto bad_ts;
            ts = v;
        }
    }
    if (row_len == 0) {
        snprintf(why, whylen, "empty row key");
        rc = 1;
        goto out;
    }
    kv_status st = kv_mutation_new(&m, row, row_len);
    size_t bytes = row_len, cells = 0;
    for (size_t i = 0; st == KV_OK && i < t->nmap; i++) {
        if (t->map[i].kind != SH_MAP_CELL || flen[i] == 0) continue;
        st = kv_mutation_put(m, t->map[i].family, t->map[i].qualifier, t->map[i].qualifier_len,
                             ts, field[i], flen[i]);
        bytes += flen[i] + t->map[i].qualifier_len + 16;
        cells++;
    }
    if (st != KV_OK) {
        snprintf(why, whylen, "%s", kv_strerror(st));
        rc = 1;
        goto out;
    }
    if (cells == 0) goto out;   /* a row with only empty fields makes no cells */
    t->rows++;
    t->cells += cells;
    rc = sh_batch_add(b, m, bytes);
    m = NULL;
    goto out;
bad_ts:
    snprintf(why, whylen, "HBASE_TS_KEY is not a timestamp in milliseconds");
    rc = 1;
out:
    kv_mutation_free(m);
    free(field);
    free(flen);
    return rc;
}

int sh_tsv_import(sh_transfer *t) {
    cellsh *sh = t->sh;
    FILE *f = fopen(t->path, "r");
    if (!f) return sh_error(sh, "cannot open %s: %s", t->path, strerror(errno));
    struct stat stbuf;
    uint64_t total = fstat(fileno(f), &stbuf) == 0 && S_ISREG(stbuf.st_mode) ? (uint64_t)stbuf.st_size : 0;
    sh_progress prog;
    sh_progress_start(&prog, sh->err, sh->progress, "import", total);
    sh_batch b;
    sh_batch_init(&b, sh, t->table);
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    uint64_t lineno = 0, bytes = 0;
    int rc = 0;
    bool need_header = t->nmap == 0;
    bool skip_header = t->header && !need_header;
    while (rc == 0 && (n = getline(&line, &cap, f)) >= 0) {
        lineno++;
        bytes += (uint64_t)n;
        size_t len = (size_t)n;
        if (len && line[len - 1] == '\n') len--;
        if (len && line[len - 1] == '\r') len--;
        if (lineno == 1 && need_header) {
            rc = map_from_header(t, line, len);
            continue;
        }
        if (lineno == 1 && skip_header) continue;
        if (len == 0) continue;
        char why[128] = "";
        int r = import_line(t, &b, line, len, why, sizeof why);
        if (r == 1) {
            t->bad_lines++;
            if (!t->skip_bad_lines)
                rc = sh_error(sh, "%s line %" PRIu64 ": %s (rows before it were imported)",
                              t->path, lineno, why);
        } else if (r < 0) {
            rc = -1;
        }
        sh_progress_update(&prog, t->rows, bytes);
    }
    if (rc == 0 && ferror(f)) rc = sh_error(sh, "cannot read %s: %s", t->path, strerror(errno));
    if (rc == 0 && lineno == 0 && need_header)
        rc = sh_error(sh, "%s is empty: no header line naming the columns", t->path);
    /* After a bad line the rows before it are applied, as the message says. */
    int frc = sh_batch_flush(&b);
    if (rc == 0) rc = frc;
    sh_progress_end(&prog, t->rows, bytes);
    free(line);
    fclose(f);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Export                                                                    */
/* ------------------------------------------------------------------------ */

static int col_cmp(const char *fa, const void *qa, size_t la, const char *fb, const void *qb,
                   size_t lb) {
    int c = strcmp(fa, fb);
    if (c) return c;
    size_t n = la < lb ? la : lb;
    c = n ? memcmp(qa, qb, n) : 0;
    if (c) return c;
    return la < lb ? -1 : la > lb;
}

/* The first pass of an export without COLUMNS: every column present, in
 * cell order, after the row key. */
static int collect_columns(sh_transfer *t) {
    cellsh *sh = t->sh;
    if (add_map_entry(t, "HBASE_ROW_KEY", 13, "") < 0) return -1;
    kv_read_options ro = t->spec->ropts;
    ro.max_versions = 1;
    ro.fill_cache = false;
    kv_scan *scan = NULL;
    kv_status st = kv_scan_open(&scan, sh->store, t->table, &ro);
    if (st != KV_OK) return sh_kv_error(sh, st, t->table);
    const kv_result *r;
    int rc = 0;
    while (rc == 0 && (st = kv_scan_next(&r, scan)) == KV_OK) {
        for (size_t i = 0; i < r->ncells && rc == 0; i++) {
            const kv_cell *c = &r->cells[i];
            /* binary search among map[1..nmap) */
            size_t lo = 1, hi = t->nmap;
            int found = 0;
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                int cmp = col_cmp(t->map[mid].family, t->map[mid].qualifier,
                                  t->map[mid].qualifier_len, c->family, c->qualifier,
                                  c->qualifier_len);
                if (cmp == 0) { found = 1; break; }
                if (cmp < 0) lo = mid + 1;
                else hi = mid;
            }
            if (found) continue;
            size_t flen = strlen(c->family);
            char *name = malloc(flen + 1 + c->qualifier_len);
            if (!name) { rc = sh_error(sh, "out of memory"); break; }
            memcpy(name, c->family, flen);
            name[flen] = ':';
            if (c->qualifier_len) memcpy(name + flen + 1, c->qualifier, c->qualifier_len);
            rc = add_map_entry(t, name, flen + 1 + c->qualifier_len, "");
            free(name);
            if (rc == 0) {   /* move the new entry to its sorted place */
                sh_map_column e = t->map[t->nmap - 1];
                memmove(t->map + lo + 1, t->map + lo, (t->nmap - 1 - lo) * sizeof *t->map);
                t->map[lo] = e;
            }
        }
    }
    if (rc == 0 && st != KV_END) rc = sh_kv_error(sh, st, t->table);
    kv_scan_close(scan);
    return rc;
}

static void write_header(sh_transfer *t, FILE *out) {
    for (size_t i = 0; i < t->nmap; i++) {
        if (i) fputc(t->separator, out);
        const sh_map_column *m = &t->map[i];
        if (m->kind == SH_MAP_ROW_KEY) fputs("HBASE_ROW_KEY", out);
        else if (m->kind == SH_MAP_TS_KEY) fputs("HBASE_TS_KEY", out);
        else {
            sh_tsv_write_field(out, m->family, strlen(m->family), t->separator);
            fputc(':', out);
            sh_tsv_write_field(out, m->qualifier, m->qualifier_len, t->separator);
        }
    }
    fputc('\n', out);
}

int sh_tsv_export(sh_transfer *t, FILE *out) {
    cellsh *sh = t->sh;
    if (t->nmap == 0 && collect_columns(t) < 0) return -1;
    if (t->header) write_header(t, out);
    kv_read_options ro = t->spec->ropts;
    ro.max_versions = 1;
    kv_scan *scan = NULL;
    kv_status st = kv_scan_open(&scan, sh->store, t->table, &ro);
    if (st != KV_OK) return sh_kv_error(sh, st, t->table);
    sh_progress prog;
    sh_progress_start(&prog, sh->err, sh->progress, "export", 0);
    const kv_result *r;
    uint64_t bytes = 0;
    while ((st = kv_scan_next(&r, scan)) == KV_OK) {
        int64_t newest = INT64_MIN;
        for (size_t i = 0; i < r->ncells; i++)
            if (r->cells[i].timestamp > newest) newest = r->cells[i].timestamp;
        for (size_t i = 0; i < t->nmap; i++) {
            const sh_map_column *m = &t->map[i];
            if (i) fputc(t->separator, out);
            if (m->kind == SH_MAP_ROW_KEY) {
                sh_tsv_write_field(out, r->row, r->row_len, t->separator);
                continue;
            }
            if (m->kind == SH_MAP_TS_KEY) {
                fprintf(out, "%" PRId64, newest);
                continue;
            }
            for (size_t j = 0; j < r->ncells; j++) {
                const kv_cell *c = &r->cells[j];
                if (c->type != KV_TYPE_PUT ||
                    col_cmp(m->family, m->qualifier, m->qualifier_len, c->family, c->qualifier,
                            c->qualifier_len) != 0)
                    continue;
                sh_tsv_write_field(out, c->value, c->value_len, t->separator);
                bytes += c->value_len;
                t->cells++;
                break;
            }
        }
        fputc('\n', out);
        t->rows++;
        bytes += r->row_len;
        sh_progress_update(&prog, t->rows, bytes);
    }
    int rc = 0;
    if (st != KV_END) rc = sh_kv_error(sh, st, t->table);
    kv_scan_close(scan);
    sh_progress_end(&prog, t->rows, bytes);
    return rc;
}
