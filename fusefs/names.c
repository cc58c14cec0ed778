/**
 * @file names.c
 * Name escaping for the filesystem view (contract and scheme in names.h).
 * Called by path.c, the directory listings and the long-name resolver;
 * calls only libc.
 */
#include "names.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char hex_digits[] = "0123456789ABCDEF";

uint64_t fs_name_hash(const uint8_t *key, size_t len)
{
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; i < len; i++) {
        h ^= key[i];
        h *= 1099511628211ull;
    }
    return h;
}

/* Length of a valid, shown-as-is UTF-8 sequence at p (2..4), or 0. */
static size_t utf8_shown_len(const uint8_t *p, size_t avail)
{
    uint8_t b = p[0];
    size_t n;
    uint32_t cp;
    if (b >= 0xC2 && b <= 0xDF) { n = 2; cp = b & 0x1Fu; }
    else if (b >= 0xE0 && b <= 0xEF) { n = 3; cp = b & 0x0Fu; }
    else if (b >= 0xF0 && b <= 0xF4) { n = 4; cp = b & 0x07u; }
    else return 0;
    if (avail < n) return 0;
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (p[i] & 0x3Fu);
    }
    if (n == 3 && cp < 0x800) return 0;                  /* overlong */
    if (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) return 0;
    if (cp >= 0xD800 && cp <= 0xDFFF) return 0;           /* surrogate */
    if (cp >= 0x80 && cp <= 0x9F) return 0;               /* C1 control */
    return n;
}

static bool is_reserved_key(const uint8_t *key, size_t len)
{
    return (len == 1 && key[0] == '.') || (len == 2 && memcmp(key, "..", 2) == 0) ||
           (len == 7 && memcmp(key, ".schema", 7) == 0);
}

/* True when the text after the last '@' of s[0..len) is -?[0-9]+; sets *at. */
static bool has_version_suffix(const char *s, size_t len, size_t *at)
{
    const char *p = memrchr(s, '@', len);
    if (!p) return false;
    size_t i = (size_t)(p - s) + 1;
    if (i < len && s[i] == '-') i++;
    if (i == len) return false;
    for (; i < len; i++)
        if (s[i] < '0' || s[i] > '9') return false;
    *at = (size_t)(p - s);
    return true;
}

/* Writes the full escaped form of key into a malloc'd string (*outlen). */
static char *encode_full(const uint8_t *key, size_t len, size_t *outlen)
{
    char *e = malloc(3 * len + 4);
    if (!e) return NULL;
    size_t o = 0, i = 0;
    if (is_reserved_key(key, len)) {
        memcpy(e, "%2E", 3);
        o = 3;
        i = 1;
    }
    while (i < len) {
        uint8_t b = key[i];
        if (b < 0x20 || b == 0x7F || b == '/' || b == '%') {
            e[o++] = '%'; e[o++] = hex_digits[b >> 4]; e[o++] = hex_digits[b & 15];
            i++;
        } else if (b < 0x80) {
            e[o++] = (char)b;
            i++;
        } else {
            size_t n = utf8_shown_len(key + i, len - i);
            if (n) {
                memcpy(e + o, key + i, n);
                o += n;
                i += n;
            } else {
                e[o++] = '%'; e[o++] = hex_digits[b >> 4]; e[o++] = hex_digits[b & 15];
                i++;
            }
        }
    }
    size_t at;
    if (has_version_suffix(e, o, &at)) {
        memmove(e + at + 3, e + at + 1, o - at - 1);
        memcpy(e + at, "%40", 3);
        o += 2;
    }
    e[o] = '\0';
    *outlen = o;
    return e;
}

/* Length of the escape unit starting at e[i]: "%XX", a UTF-8 sequence or 1. */
static size_t unit_len(const char *e, size_t i, size_t len)
{
    uint8_t b = (uint8_t)e[i];
    size_t n = 1;
    if (b == '%') n = 3;
    else if (b >= 0xF0) n = 4;
    else if (b >= 0xE0) n = 3;
    else if (b >= 0xC0) n = 2;
    return i + n <= len ? n : len - i;
}

size_t fs_name_encode(char *out, const uint8_t *key, size_t len)
{
    if (len == 0) {
        memcpy(out, "%", 2);
        return 1;
    }
    size_t elen;
    char *e = encode_full(key, len, &elen);
    if (!e) return 0;
    if (elen <= FS_NAME_SHORT_MAX) {
        memcpy(out, e, elen + 1);
        free(e);
        return elen;
    }
    size_t cut = 0;
    for (;;) {
        size_t n = unit_len(e, cut, elen);
        if (cut + n > FS_NAME_PREFIX_MAX) break;
        cut += n;
    }
    memcpy(out, e, cut);
    free(e);
    uint64_t h = fs_name_hash(key, len);
    out[cut++] = '%';
    out[cut++] = '#';
    for (int s = 60; s >= 0; s -= 4) out[cut++] = hex_digits[(h >> s) & 15];
    out[cut] = '\0';
    return cut;
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

bool fs_name_matches(const char *name, size_t len, const uint8_t *key, size_t key_len)
{
    char buf[FS_NAME_MAX + 1];
    size_t n = fs_name_encode(buf, key, key_len);
    return n == len && memcmp(buf, name, len) == 0;
}

int fs_name_decode(fs_name_key *out, const char *name, size_t len)
{
    out->len = 0;
    out->hashed = false;
    out->hash = 0;
    if (len == 0) return -EINVAL;
    if (len > FS_NAME_MAX) return -ENAMETOOLONG;
    if (len == 1 && name[0] == '%') return 0;
    size_t body = len;
    if (len > FS_NAME_SHORT_MAX) return -ENAMETOOLONG;   /* encode never makes one */
    /* The common name, printable ASCII without '%': canonical, and its own
       key, unless it is one that encode writes otherwise (a reserved key,
       a name ending in "@<digits>"). No encode to compare with. */
    bool plain = true;
    for (size_t i = 0; plain && i < len; i++)
        plain = name[i] >= 0x20 && name[i] < 0x7F && name[i] != '%' && name[i] != '/';
    size_t at;
    if (plain && !is_reserved_key((const uint8_t *)name, len) &&
        !has_version_suffix(name, len, &at)) {
        memcpy(out->bytes, name, len);
        out->len = len;
        return 0;
    }
    if (len >= 18 && name[len - 18] == '%' && name[len - 17] == '#') {
        uint64_t h = 0;
        for (size_t i = len - 16; i < len; i++) {
            int v = hex_value(name[i]);
            if (v < 0) return -EINVAL;
            h = (h << 4) | (uint64_t)v;
        }
        out->hashed = true;
        out->hash = h;
        body = len - 18;
        if (body == 0) return -EINVAL;
    }
    for (size_t i = 0; i < body;) {
        char c = name[i];
        if (c == '/' || c == '\0') return -EINVAL;
        if (c == '%') {
            if (i + 2 >= body) return -EINVAL;
            int hi = hex_value(name[i + 1]), lo = hex_value(name[i + 2]);
            if (hi < 0 || lo < 0) return -EINVAL;
            out->bytes[out->len++] = (uint8_t)(hi << 4 | lo);
            i += 3;
        } else {
            out->bytes[out->len++] = (uint8_t)c;
            i++;
        }
    }
    if (!out->hashed && !fs_name_matches(name, len, out->bytes, out->len)) return -EINVAL;
    return 0;
}

int fs_ts_parse(const char *text, size_t len, int64_t *out)
{
    size_t i = 0;
    bool neg = false;
    if (len > 0 && text[0] == '-') { neg = true; i = 1; }
    if (i == len) return -EINVAL;
    if (text[i] == '0' && (len - i > 1 || neg)) return -EINVAL;
    uint64_t v = 0;
    for (; i < len; i++) {
        if (text[i] < '0' || text[i] > '9') return -EINVAL;
        uint64_t d = (uint64_t)(text[i] - '0');
        if (v > (UINT64_MAX - d) / 10) return -EINVAL;
        v = v * 10 + d;
    }
    if (neg) {
        if (v > (uint64_t)INT64_MAX + 1) return -EINVAL;
        *out = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
    } else {
        if (v > (uint64_t)INT64_MAX) return -EINVAL;
        *out = (int64_t)v;
    }
    return 0;
}

int fs_name_split_version(const char *name, size_t len, size_t *base_len, int64_t *ts)
{
    size_t at;
    if (!has_version_suffix(name, len, &at)) return 0;
    if (fs_ts_parse(name + at + 1, len - at - 1, ts) != 0) return -EINVAL;
    *base_len = at;
    return 1;
}

size_t fs_ts_suffix(char *out, int64_t ts)
{
    int n = snprintf(out, FS_TS_TEXT_MAX + 1, "@%" PRId64, ts);
    return n > 0 ? (size_t)n : 0;
}
