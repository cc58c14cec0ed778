/*
 * JSON import and export (see transfer.h): one object mapping row ->
 * family -> qualifier -> timestamp -> value, one row per line, with rows,
 * qualifiers and values in the \xNN text form of codec.h. Export builds one
 * row at a time with jansson; import reads the file into memory and decodes
 * one row at a time (json_loadb with JSON_DISABLE_EOF_CHECK), so only the
 * file and one row's tree are held.
 */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "codec.h"
#include "transfer.h"

/* ------------------------------------------------------------------------ */
/* Export                                                                    */
/* ------------------------------------------------------------------------ */

/* Sets obj[key] (key in text form) to a new object unless present. */
static json_t *child(json_t *obj, const char *key) {
    json_t *c = json_object_get(obj, key);
    if (c) return c;
    c = json_object();
    if (!c || json_object_set_new(obj, key, c) != 0) return NULL;
    return c;
}

static json_t *row_to_json(const kv_result *r, uint64_t *cells) {
    json_t *row = json_object();
    if (!row) return NULL;
    for (size_t i = 0; i < r->ncells; i++) {
        const kv_cell *c = &r->cells[i];
        if (c->type != KV_TYPE_PUT) continue;
        char *q = sh_bin_to_text(c->qualifier, c->qualifier_len, NULL);
        size_t vlen = 0;
        char *v = sh_bin_to_text(c->value, c->value_len, &vlen);
        json_t *fam = child(row, c->family);
        json_t *qual = fam && q ? child(fam, q) : NULL;
        char ts[32];
        snprintf(ts, sizeof ts, "%" PRId64, c->timestamp);
        int bad = !qual || !v || json_object_set_new(qual, ts, json_stringn(v, vlen)) != 0;
        free(q);
        free(v);
        if (bad) {
            json_decref(row);
            return NULL;
        }
        (*cells)++;
    }
    return row;
}

int sh_json_export(sh_transfer *t, FILE *out) {
    cellsh *sh = t->sh;
    kv_scan *scan = NULL;
    kv_status st = kv_scan_open(&scan, sh->store, t->table, &t->spec->ropts);
    if (st != KV_OK) return sh_kv_error(sh, st, t->table);
    sh_progress prog;
    sh_progress_start(&prog, sh->err, sh->progress, "export", 0);
    const kv_result *r;
    int rc = 0;
    uint64_t bytes = 0;
    fputc('{', out);
    while (rc == 0 && (st = kv_scan_next(&r, scan)) == KV_OK) {
        json_t *obj = row_to_json(r, &t->cells);
        size_t klen = 0;
        char *key = sh_bin_to_text(r->row, r->row_len, &klen);
        json_t *jkey = key ? json_stringn(key, klen) : NULL;
        char *keytext = jkey ? json_dumps(jkey, JSON_ENCODE_ANY) : NULL;
        if (!obj || !keytext) {
            rc = sh_error(sh, "out of memory");
        } else {
            fputs(t->rows ? ",\n" : "\n", out);
            fputs(keytext, out);
            fputs(": ", out);
            if (json_dumpf(obj, out, 0) != 0) rc = sh_error(sh, "cannot write %s", t->path);
            t->rows++;
            bytes += klen;
        }
        free(keytext);
        json_decref(jkey);
        free(key);
        json_decref(obj);
        sh_progress_update(&prog, t->rows, bytes);
    }
    fputs(t->rows ? "\n}\n" : "}\n", out);
    if (rc == 0 && st != KV_END) rc = sh_kv_error(sh, st, t->table);
    kv_scan_close(scan);
    sh_progress_end(&prog, t->rows, bytes);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Import                                                                    */
/* ------------------------------------------------------------------------ */

static size_t skip_ws(const char *s, size_t n, size_t i) {
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) i++;
    return i;
}

/* The line number of byte offset @p at, for messages. */
static unsigned long line_of(const char *s, size_t at) {
    unsigned long line = 1;
    for (size_t i = 0; i < at; i++) line += s[i] == '\n';
    return line;
}

/* A JSON string holding the \xNN text form, decoded to bytes (malloc'd). */
static char *decode_text(const char *text, size_t n, size_t *len) {
    char *b = malloc(n + 1);
    if (!b) return NULL;
    memcpy(b, text, n);
    b[n] = '\0';
    if (!sh_text_to_bin(b, n, len)) {
        free(b);
        return NULL;
    }
    return b;
}

/* Builds the mutation of one row object; on a format error returns 1 with
 * the reason in why. */
static int row_mutation(kv_mutation **out, const char *row, size_t row_len, json_t *obj,
                        uint64_t *cells, size_t *bytes, char *why, size_t whylen) {
    if (!json_is_object(obj)) {
        snprintf(why, whylen, "a row must map to an object of families");
        return 1;
    }
    kv_mutation *m = NULL;
    kv_status st = kv_mutation_new(&m, row, row_len);
    if (st != KV_OK) {
        snprintf(why, whylen, "bad row key: %s", kv_strerror(st));
        return 1;
    }
    const char *fam;
    json_t *fobj;
    json_object_foreach(obj, fam, fobj) {
        if (!json_is_object(fobj)) {
            snprintf(why, whylen, "family %s must map to an object of qualifiers", fam);
            goto bad;
        }
        const char *qtext;
        json_t *qobj;
        json_object_foreach(fobj, qtext, qobj) {
            size_t qlen;
            char *q = decode_text(qtext, strlen(qtext), &qlen);
            if (!q) {
                snprintf(why, whylen, "qualifier \"%.40s\": bad \\x escape", qtext);
                goto bad;
            }
            if (!json_is_object(qobj)) {
                free(q);
                snprintf(why, whylen, "column %s:%.40s must map to an object of timestamps", fam,
                         qtext);
                goto bad;
            }
            const char *tstext;
            json_t *val;
            json_object_foreach(qobj, tstext, val) {
                char *end = NULL;
                errno = 0;
                long long ts = strtoll(tstext, &end, 10);
                if (errno || !*tstext || *end || ts < 0) {
                    free(q);
                    snprintf(why, whylen, "\"%.40s\" is not a timestamp in milliseconds", tstext);
                    goto bad;
                }
                size_t vlen = 0;
                char *v = json_is_string(val)
                              ? decode_text(json_string_value(val), json_string_length(val), &vlen)
                              : NULL;
                if (!v) {
                    free(q);
                    snprintf(why, whylen, "the value of %s:%.40s@%lld must be a string (with "
                             "\\\\xNN escapes)", fam, qtext, ts);
                    goto bad;
                }
                st = kv_mutation_put(m, fam, q, qlen, ts, v, vlen);
                free(v);
                if (st != KV_OK) {
                    free(q);
                    snprintf(why, whylen, "cell %s:%.40s: %s", fam, qtext, kv_strerror(st));
                    goto bad;
                }
                (*cells)++;
                *bytes += vlen + qlen + 16;
            }
            free(q);
        }
    }
    *out = m;
    return 0;
bad:
    kv_mutation_free(m);
    return 1;
}

static char *read_file(cellsh *sh, const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        sh_error(sh, "cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode)) cap = (size_t)st.st_size + 1;
    char *buf = malloc(cap);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap) break;
        char *bigger = realloc(buf, cap * 2);
        if (!bigger) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = bigger;
        cap *= 2;
    }
    if (!buf) sh_error(sh, "out of memory reading %s", path);
    else if (ferror(f)) {
        sh_error(sh, "cannot read %s: %s", path, strerror(errno));
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *len = n;
    return buf;
}

int sh_json_import(sh_transfer *t) {
    cellsh *sh = t->sh;
    size_t n = 0;
    char *s = read_file(sh, t->path, &n);
    if (!s) return -1;
    sh_progress prog;
    sh_progress_start(&prog, sh->err, sh->progress, "import", n);
    sh_batch b;
    sh_batch_init(&b, sh, t->table);
    int rc = 0;
    char why[256] = "";
    size_t i = skip_ws(s, n, 0);
    if (i >= n || s[i] != '{') {
        snprintf(why, sizeof why, "the file must hold one JSON object {\"row\": {...}, ...}");
        goto bad;
    }
    i = skip_ws(s, n, i + 1);
    if (i < n && s[i] == '}') goto done;
    for (;;) {
        json_error_t je;
        if (i >= n || s[i] != '"') {
            snprintf(why, sizeof why, "expected a row key string");
            goto bad;
        }
        json_t *jkey = json_loadb(s + i, n - i, JSON_DISABLE_EOF_CHECK | JSON_DECODE_ANY, &je);
        if (!jkey) {
            snprintf(why, sizeof why, "%s", je.text);
            goto bad;
        }
        size_t krow_at = i;
        i += (size_t)je.position;
        size_t row_len = 0;
        char *row = decode_text(json_string_value(jkey), json_string_length(jkey), &row_len);
        json_decref(jkey);
        if (!row) {
            snprintf(why, sizeof why, "row key: bad \\x escape");
            i = krow_at;
            goto bad;
        }
        i = skip_ws(s, n, i);
        if (i >= n || s[i] != ':') {
            free(row);
            snprintf(why, sizeof why, "expected ':' after the row key");
            goto bad;
        }
        i = skip_ws(s, n, i + 1);
        json_t *obj = json_loadb(s + i, n - i, JSON_DISABLE_EOF_CHECK, &je);
        if (!obj) {
            free(row);
            snprintf(why, sizeof why, "%s", je.text);
            i += je.position > 0 ? (size_t)je.position - 1 : 0;
            goto bad;
        }
        kv_mutation *m = NULL;
        size_t bytes = row_len;
        uint64_t cells = 0;
        int r = row_mutation(&m, row, row_len, obj, &cells, &bytes, why, sizeof why);
        json_decref(obj);
        free(row);
        if (r != 0) goto bad;
        i += (size_t)je.position;
        if (cells > 0) {
            t->rows++;
            t->cells += cells;
            if (sh_batch_add(&b, m, bytes) < 0) {
                rc = -1;
                goto out;
            }
        } else {
            kv_mutation_free(m);
        }
        sh_progress_update(&prog, t->rows, i);
        i = skip_ws(s, n, i);
        if (i < n && s[i] == ',') {
            i = skip_ws(s, n, i + 1);
            continue;
        }
        if (i < n && s[i] == '}') break;
        snprintf(why, sizeof why, "expected ',' or '}' after a row");
        goto bad;
    }
done:
    i = skip_ws(s, n, i + 1);
    if (i < n) {
        snprintf(why, sizeof why, "unexpected text after the closing '}'");
        goto bad;
    }
    rc = sh_batch_flush(&b);
    goto out;
bad:
    rc = sh_error(sh, "%s line %lu: %s (rows before it were imported)", t->path, line_of(s, i),
                  why);
    if (sh_batch_flush(&b) < 0) rc = -1;
out:
    sh_batch_discard(&b);
    sh_progress_end(&prog, t->rows, n);
    free(s);
    return rc;
}
