/*
 * Column family descriptors as text, in the HBase shell's syntax: sets one
 * attribute from its shell name and value (cellsh's create/alter), parses
 * one family in describe syntax (cellfs writes to .schema) and formats a
 * family as describe prints it (cellsh describe, cellfs .schema reads).
 * Calls only kv_check_name; the contracts are in include/kvcore.h.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kvcore.h"

/* Largest BLOCKSIZE accepted: HBase's own upper bound is 16 MiB. */
#define SCHEMA_MAX_BLOCKSIZE (16 << 20)

static kv_status fail(char *errmsg, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static kv_status fail(char *errmsg, size_t errlen, const char *fmt, ...) {
    if (errmsg && errlen > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(errmsg, errlen, fmt, ap);
        va_end(ap);
    }
    return KV_INVALID;
}

/* A decimal integer in [min, max], nothing else (no sign unless negative). */
static bool parse_int(int64_t *out, const char *text, int64_t min, int64_t max) {
    if (!text || !*text || isspace((unsigned char)*text)) return false;
    char *end = NULL;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0') return false;
    if (v < min || v > max) return false;
    *out = v;
    return true;
}

static bool parse_bool(bool *out, const char *text) {
    if (strcasecmp(text, "true") == 0) { *out = true; return true; }
    if (strcasecmp(text, "false") == 0) { *out = false; return true; }
    return false;
}

/* TTL: FOREVER, N, or describe's "N SECONDS (1 DAY ...)" read back. */
static bool parse_ttl(int64_t *out, const char *text) {
    if (strcasecmp(text, "FOREVER") == 0) { *out = KV_FOREVER; return true; }
    const char *p = text;
    if (!isdigit((unsigned char)*p)) return false;
    int64_t v = 0;
    while (isdigit((unsigned char)*p)) {
        int d = *p++ - '0';
        if (v > (INT64_MAX - d) / 10) return false;
        v = v * 10 + d;
    }
    if (*p != '\0') {
        if (*p != ' ') return false;
        while (*p == ' ') p++;
        if (strncasecmp(p, "SECOND", 6) != 0) return false;
        p += 6;
        if (*p == 'S' || *p == 's') p++;
        while (*p == ' ') p++;
        if (*p == '(') {   /* the human-readable part is redundant */
            const char *close = strchr(p, ')');
            if (!close) return false;
            p = close + 1;
            while (*p == ' ') p++;
        }
        if (*p != '\0') return false;
    }
    if (v <= 0) return false;
    *out = v;
    return true;
}

kv_status kv_family_desc_set(kv_family_desc *family, const char *attribute, const char *value,
                             char *errmsg, size_t errlen) {
    if (!family || !attribute || !value)
        return fail(errmsg, errlen, "missing family attribute or value");
    int64_t n = 0;
    bool b = false;
    const char *a = attribute;
    if (strcasecmp(a, "NAME") == 0) {
        if (value[0] == '.' || kv_check_name(value) != KV_OK)
            return fail(errmsg, errlen, "illegal family name '%s'", value);
        snprintf(family->name, sizeof family->name, "%s", value);
    } else if (strcasecmp(a, "VERSIONS") == 0) {
        if (!parse_int(&n, value, 1, INT32_MAX))
            return fail(errmsg, errlen, "VERSIONS must be an integer >= 1, not '%s'", value);
        family->versions = (int32_t)n;
    } else if (strcasecmp(a, "MIN_VERSIONS") == 0) {
        if (!parse_int(&n, value, 0, INT32_MAX))
            return fail(errmsg, errlen, "MIN_VERSIONS must be an integer >= 0, not '%s'", value);
        family->min_versions = (int32_t)n;
    } else if (strcasecmp(a, "TTL") == 0) {
        if (!parse_ttl(&family->ttl_seconds, value))
            return fail(errmsg, errlen, "TTL must be FOREVER or seconds > 0, not '%s'", value);
    } else if (strcasecmp(a, "KEEP_DELETED_CELLS") == 0) {
        if (strcasecmp(value, "FALSE") == 0) family->keep_deleted = KV_KEEP_DELETED_FALSE;
        else if (strcasecmp(value, "TRUE") == 0) family->keep_deleted = KV_KEEP_DELETED_TRUE;
        else if (strcasecmp(value, "TTL") == 0) family->keep_deleted = KV_KEEP_DELETED_TTL;
        else return fail(errmsg, errlen, "KEEP_DELETED_CELLS must be FALSE, TRUE or TTL, not '%s'",
                         value);
    } else if (strcasecmp(a, "COMPRESSION") == 0) {
        if (strcasecmp(value, "NONE") == 0) family->compression = KV_COMPRESSION_NONE;
        else if (strcasecmp(value, "LZ4") == 0) family->compression = KV_COMPRESSION_LZ4;
        else if (strcasecmp(value, "SNAPPY") == 0) family->compression = KV_COMPRESSION_SNAPPY;
        else return fail(errmsg, errlen, "COMPRESSION must be NONE, LZ4 or SNAPPY, not '%s'",
                         value);
    } else if (strcasecmp(a, "BLOOMFILTER") == 0) {
        if (strcasecmp(value, "NONE") == 0) family->bloom = KV_BLOOM_NONE;
        else if (strcasecmp(value, "ROW") == 0) family->bloom = KV_BLOOM_ROW;
        else if (strcasecmp(value, "ROWCOL") == 0) family->bloom = KV_BLOOM_ROWCOL;
        else return fail(errmsg, errlen, "BLOOMFILTER must be NONE, ROW or ROWCOL, not '%s'",
                         value);
    } else if (strcasecmp(a, "BLOCKSIZE") == 0) {
        if (!parse_int(&n, value, 1, SCHEMA_MAX_BLOCKSIZE))
            return fail(errmsg, errlen, "BLOCKSIZE must be an integer in 1..%d, not '%s'",
                        SCHEMA_MAX_BLOCKSIZE, value);
        family->blocksize = (int32_t)n;
    } else if (strcasecmp(a, "DATA_BLOCK_ENCODING") == 0) {
        if (strcasecmp(value, "NONE") == 0) family->encoding = KV_ENCODING_NONE;
        else if (strcasecmp(value, "PREFIX") == 0) family->encoding = KV_ENCODING_PREFIX;
        else if (strcasecmp(value, "DIFF") == 0) family->encoding = KV_ENCODING_DIFF;
        else return fail(errmsg, errlen,
                         "DATA_BLOCK_ENCODING must be NONE, PREFIX or DIFF, not '%s'", value);
    } else if (strcasecmp(a, "IN_MEMORY") == 0 || strcasecmp(a, "BLOCKCACHE") == 0 ||
               strcasecmp(a, "NEW_VERSION_BEHAVIOR") == 0) {
        if (!parse_bool(&b, value))
            return fail(errmsg, errlen, "%s must be true or false, not '%s'", attribute, value);
        if (strcasecmp(a, "IN_MEMORY") == 0) family->in_memory = b;
        else if (strcasecmp(a, "BLOCKCACHE") == 0) family->blockcache = b;
        else family->new_version_behavior = b;
    } else if (strcasecmp(a, "REPLICATION_SCOPE") == 0 || strcasecmp(a, "METHOD") == 0) {
        /* accepted for compatibility with HBase scripts; no meaning here */
    } else {
        return fail(errmsg, errlen, "unknown family attribute '%s'", attribute);
    }
    return KV_OK;
}

/* ------------------------------------------------------------------------ */
/* Parsing "{NAME => 'f', VERSIONS => '3'}"                                  */
/* ------------------------------------------------------------------------ */

typedef struct text_cursor {
    const char *p;
    char *errmsg;
    size_t errlen;
} text_cursor;

static void skip_space(text_cursor *c) {
    while (isspace((unsigned char)*c->p)) c->p++;
}

/* A key or value: '...' or "..." (no escapes: names and values are plain),
 * or a bare word of letters, digits and _ . - . Copies into buf. */
static kv_status read_token(text_cursor *c, char *buf, size_t len, const char *what) {
    skip_space(c);
    size_t n = 0;
    char q = *c->p;
    if (q == '\'' || q == '"') {
        const char *start = ++c->p;
        while (*c->p && *c->p != q) c->p++;
        if (*c->p != q) return fail(c->errmsg, c->errlen, "unterminated quote in %s", what);
        n = (size_t)(c->p - start);
        if (n >= len) return fail(c->errmsg, c->errlen, "%s too long", what);
        memcpy(buf, start, n);
        c->p++;
    } else {
        const char *start = c->p;
        while (isalnum((unsigned char)*c->p) || *c->p == '_' || *c->p == '.' || *c->p == '-')
            c->p++;
        n = (size_t)(c->p - start);
        if (n == 0) {
            if (*c->p == '\0') return fail(c->errmsg, c->errlen, "expected %s at end of text", what);
            return fail(c->errmsg, c->errlen, "expected %s at '%.20s'", what, c->p);
        }
        if (n >= len) return fail(c->errmsg, c->errlen, "%s too long", what);
        memcpy(buf, start, n);
    }
    buf[n] = '\0';
    return KV_OK;
}

kv_status kv_family_desc_parse(kv_family_desc *family, const char *text, char *errmsg,
                               size_t errlen) {
    if (!family || !text) return fail(errmsg, errlen, "missing family text");
    kv_family_desc d = KV_FAMILY_DESC_INIT;
    text_cursor c = { text, errmsg, errlen };
    skip_space(&c);
    if (*c.p != '{') return fail(errmsg, errlen, "a family description starts with '{'");
    c.p++;
    bool have_name = false;
    skip_space(&c);
    if (*c.p == '}') return fail(errmsg, errlen, "family description has no NAME");
    for (;;) {
        char key[64], value[KV_NAME_MAX + 64];
        kv_status st = read_token(&c, key, sizeof key, "an attribute name");
        if (st != KV_OK) return st;
        skip_space(&c);
        if (c.p[0] != '=' || c.p[1] != '>')
            return fail(errmsg, errlen, "expected '=>' after %s", key);
        c.p += 2;
        st = read_token(&c, value, sizeof value, "a value");
        if (st != KV_OK) return st;
        st = kv_family_desc_set(&d, key, value, errmsg, errlen);
        if (st != KV_OK) return st;
        if (strcasecmp(key, "NAME") == 0) have_name = true;
        skip_space(&c);
        if (*c.p == ',') { c.p++; continue; }
        if (*c.p == '}') { c.p++; break; }
        if (*c.p == '\0') return fail(errmsg, errlen, "missing '}' at end of family description");
        return fail(errmsg, errlen, "expected ',' or '}' at '%.20s'", c.p);
    }
    skip_space(&c);
    if (*c.p != '\0') return fail(errmsg, errlen, "unexpected text after '}': '%.20s'", c.p);
    if (!have_name) return fail(errmsg, errlen, "family description has no NAME");
    if (d.min_versions > d.versions)
        return fail(errmsg, errlen, "MIN_VERSIONS (%" PRId32 ") is larger than VERSIONS (%" PRId32
                    ")", d.min_versions, d.versions);
    *family = d;
    return KV_OK;
}

/* ------------------------------------------------------------------------ */
/* Formatting                                                                */
/* ------------------------------------------------------------------------ */

/* snprintf into a buffer that may already be full: keeps counting. */
typedef struct text_out {
    char *buf;
    size_t len;
    size_t used;   /* bytes the full text needs so far */
} text_out;

static void out_printf(text_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void out_printf(text_out *o, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *dst = o->used < o->len ? o->buf + o->used : NULL;
    size_t room = o->used < o->len ? o->len - o->used : 0;
    int n = vsnprintf(dst, room, fmt, ap);
    va_end(ap);
    if (n > 0) o->used += (size_t)n;
}

/* HBase's describe shows a TTL as "90061 SECONDS (1 DAY 1 HOUR 1 MINUTE
 * 1 SECOND)", or "N SECONDS" under a minute, or FOREVER. */
static void format_ttl(text_out *o, int64_t ttl) {
    if (ttl == KV_FOREVER) { out_printf(o, "FOREVER"); return; }
    if (ttl < 60) {
        out_printf(o, "%" PRId64 " SECOND%s", ttl, ttl == 1 ? "" : "S");
        return;
    }
    static const struct { int64_t secs; const char *name; } units[] = {
        { 86400, "DAY" }, { 3600, "HOUR" }, { 60, "MINUTE" }, { 1, "SECOND" },
    };
    out_printf(o, "%" PRId64 " SECONDS (", ttl);
    int64_t rest = ttl;
    bool first = true;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        int64_t k = rest / units[i].secs;
        rest -= k * units[i].secs;
        if (k == 0) continue;
        out_printf(o, "%s%" PRId64 " %s%s", first ? "" : " ", k, units[i].name, k == 1 ? "" : "S");
        first = false;
    }
    out_printf(o, ")");
}

static const char *bool_text(bool b) { return b ? "true" : "false"; }

int kv_family_desc_format(char *buf, size_t len, const kv_family_desc *f) {
    static const char *const keep[] = { "FALSE", "TRUE", "TTL" };
    static const char *const comp[] = { "NONE", "LZ4", "SNAPPY" };
    static const char *const bloom[] = { "NONE", "ROW", "ROWCOL" };
    static const char *const enc[] = { "NONE", "PREFIX", "DIFF" };
    text_out o = { buf, len, 0 };
    if (len > 0) buf[0] = '\0';
    if (!f) return 0;
    unsigned k = (unsigned)f->keep_deleted, c = (unsigned)f->compression;
    unsigned b = (unsigned)f->bloom, e = (unsigned)f->encoding;
    out_printf(&o, "{NAME => '%s', BLOOMFILTER => '%s', IN_MEMORY => '%s', VERSIONS => '%" PRId32
               "', KEEP_DELETED_CELLS => '%s', DATA_BLOCK_ENCODING => '%s', COMPRESSION => '%s', "
               "TTL => '",
               f->name, b < 3 ? bloom[b] : "?", bool_text(f->in_memory), f->versions,
               k < 3 ? keep[k] : "?", e < 3 ? enc[e] : "?", c < 3 ? comp[c] : "?");
    format_ttl(&o, f->ttl_seconds);
    out_printf(&o, "', MIN_VERSIONS => '%" PRId32 "', BLOCKCACHE => '%s', BLOCKSIZE => '%" PRId32
               "', REPLICATION_SCOPE => '0'%s}",
               f->min_versions, bool_text(f->blockcache), f->blocksize,
               f->new_version_behavior ? ", NEW_VERSION_BEHAVIOR => 'true'" : "");
    return o.used > INT32_MAX ? INT32_MAX : (int)o.used;
}
