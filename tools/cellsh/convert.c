/*
 * Bytes converters and the text buffer (see convert.h). Called by
 * read_opts.c and output.c; uses libc and libm only.
 */
#include "convert.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sh_buf_put(sh_buf *b, const void *p, size_t n) {
    if (b->failed || n == 0) return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 128;
        while (cap < b->len + n + 1) cap *= 2;
        char *q = realloc(b->p, cap);
        if (!q) {
            b->failed = true;
            return;
        }
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->len, p, n);
    b->len += n;
    b->p[b->len] = '\0';
}

void sh_buf_puts(sh_buf *b, const char *s) { sh_buf_put(b, s, strlen(s)); }

void sh_buf_printf(sh_buf *b, const char *fmt, ...) {
    char tmp[128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->failed = true;
        return;
    }
    if ((size_t)n < sizeof tmp) {
        sh_buf_put(b, tmp, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (!big) {
        b->failed = true;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sh_buf_put(b, big, (size_t)n);
    free(big);
}

void sh_buf_free(sh_buf *b) {
    free(b->p);
    memset(b, 0, sizeof *b);
}

static bool continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

size_t sh_text_width(const char *s, size_t n) {
    size_t w = 0;
    for (size_t i = 0; i < n; i++) w += !continuation((unsigned char)s[i]);
    return w;
}

size_t sh_text_prefix(const char *s, size_t n, size_t chars) {
    size_t i = 0, seen = 0;
    while (i < n) {
        if (!continuation((unsigned char)s[i])) {
            if (seen == chars) break;
            seen++;
        }
        i++;
    }
    return i;
}

static const struct {
    const char *name;
    sh_conv conv;
} converters[] = {
    { "toStringBinary", SH_CONV_BINARY }, { "toString", SH_CONV_STRING },
    { "toLong", SH_CONV_LONG },           { "toInt", SH_CONV_INT },
    { "toShort", SH_CONV_SHORT },         { "toDouble", SH_CONV_DOUBLE },
    { "toFloat", SH_CONV_FLOAT },         { "toBoolean", SH_CONV_BOOLEAN },
    { "toHex", SH_CONV_HEX },
};

int sh_conv_by_name(const char *name, size_t len, sh_conv *out) {
    for (size_t i = 0; i < sizeof converters / sizeof converters[0]; i++)
        if (strlen(converters[i].name) == len && memcmp(converters[i].name, name, len) == 0) {
            *out = converters[i].conv;
            return 0;
        }
    return -1;
}

const char *sh_conv_names(void) {
    return "toStringBinary, toString, toLong, toInt, toShort, toDouble, toFloat, toBoolean, toHex";
}

int sh_conv_parse_spec(const char *spec, size_t len, sh_conv *out, char *err, size_t errlen) {
    const char *method = spec;
    size_t mlen = len;
    if (len >= 2 && spec[0] == 'c' && spec[1] == '(') {
        /* c(CLASS).method, as table.rb's /c\((.+)\)\.(.+)/ reads it */
        const char *close = NULL;
        for (size_t i = len; i-- > 2;)
            if (spec[i] == ')' && i + 1 < len && spec[i + 1] == '.') {
                close = spec + i;
                break;
            }
        if (!close || close == spec + 2) {
            snprintf(err, errlen, "converter '%.*s' must be 'c(CLASS).method'", (int)len, spec);
            return -1;
        }
        size_t clen = (size_t)(close - spec - 2);
        if (clen != strlen(SH_CONV_CLASS) || memcmp(spec + 2, SH_CONV_CLASS, clen) != 0) {
            snprintf(err, errlen, "converter '%.*s' is not available: cellsh runs no Java; only "
                     SH_CONV_CLASS, (int)len, spec);
            return -1;
        }
        method = close + 2;
        mlen = len - (size_t)(method - spec);
    } else if (len < 2 || spec[0] != 't' || spec[1] != 'o') {
        return 0;   /* part of a qualifier, not a converter */
    }
    if (sh_conv_by_name(method, mlen, out) < 0) {
        snprintf(err, errlen, "converter '%.*s' is not one cellsh knows (%s)", (int)len, spec,
                 sh_conv_names());
        return -1;
    }
    return 1;
}

/* Java's IllegalArgumentException text for bytes shorter than a number. */
static int too_short(size_t n, size_t need, char *err, size_t errlen) {
    snprintf(err, errlen, "offset (0) + length (%zu) exceed the capacity of the array: %zu", need,
             n);
    return -1;
}

static uint64_t big_endian(const unsigned char *b, size_t n) {
    uint64_t u = 0;
    for (size_t i = 0; i < n; i++) u = (u << 8) | b[i];
    return u;
}

/*
 * Appends a double as Java's Double.toString (or Float.toString with
 * @p is_float) prints it: the fewest digits that read back to the same
 * value, as plain decimals with at least one fractional digit between
 * 10^-3 and 10^7, else as d.dddE[-]n.
 */
static void java_float_text(sh_buf *b, double d, bool is_float) {
    if (isnan(d) || isinf(d) || d == 0) {
        sh_buf_puts(b, isnan(d) ? "NaN" : isinf(d) ? (d < 0 ? "-Infinity" : "Infinity")
                       : signbit(d) ? "-0.0" : "0.0");
        return;
    }
    char sci[64];
    int maxp = is_float ? 9 : 17;
    for (int p = 1; p <= maxp; p++) {
        snprintf(sci, sizeof sci, "%.*e", p - 1, d);
        double back = strtod(sci, NULL);
        if (is_float ? (float)back == (float)d : back == d) break;
    }
    /* sci is "-d.ddde+XX": split into sign, digits and exponent */
    const char *s = sci;
    bool neg = *s == '-';
    if (neg) s++;
    char digits[32];
    size_t nd = 0;
    for (; *s && *s != 'e'; s++)
        if (*s != '.' && nd < sizeof digits - 1) digits[nd++] = *s;
    int exp = *s == 'e' ? atoi(s + 1) : 0;
    while (nd > 1 && digits[nd - 1] == '0') nd--;
    digits[nd] = '\0';
    if (neg) sh_buf_puts(b, "-");
    double a = fabs(d);
    if (a >= 1e-3 && a < 1e7) {
        if (exp >= 0) {
            for (int i = 0; i <= exp; i++) sh_buf_put(b, i < (int)nd ? &digits[i] : "0", 1);
            sh_buf_puts(b, ".");
            if ((int)nd > exp + 1) sh_buf_put(b, digits + exp + 1, nd - (size_t)exp - 1);
            else sh_buf_puts(b, "0");
        } else {
            sh_buf_puts(b, "0.");
            for (int i = 0; i < -exp - 1; i++) sh_buf_puts(b, "0");
            sh_buf_put(b, digits, nd);
        }
        return;
    }
    sh_buf_put(b, digits, 1);
    sh_buf_puts(b, ".");
    if (nd > 1) sh_buf_put(b, digits + 1, nd - 1);
    else sh_buf_puts(b, "0");
    sh_buf_printf(b, "E%d", exp);
}

/* toString: UTF-8 text, each malformed byte as U+FFFD as Java's decoder
 * replaces it. */
static void utf8_text(sh_buf *b, const unsigned char *p, size_t n) {
    size_t i = 0;
    while (i < n) {
        unsigned char c = p[i];
        size_t k = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3
                 : (c >> 3) == 0x1E ? 4 : 0;
        bool ok = k > 0 && i + k <= n && !(k == 2 && c < 0xC2);
        for (size_t j = 1; ok && j < k; j++) ok = continuation(p[i + j]);
        if (ok && k == 3) {
            unsigned cp = ((c & 0x0Fu) << 12) | ((p[i + 1] & 0x3Fu) << 6) | (p[i + 2] & 0x3Fu);
            ok = cp >= 0x800 && (cp < 0xD800 || cp > 0xDFFF);
        }
        if (ok && k == 4) {
            unsigned cp = ((c & 0x07u) << 18) | ((p[i + 1] & 0x3Fu) << 12) |
                          ((p[i + 2] & 0x3Fu) << 6) | (p[i + 3] & 0x3Fu);
            ok = cp >= 0x10000 && cp <= 0x10FFFF;
        }
        if (ok) {
            sh_buf_put(b, p + i, k);
            i += k;
        } else {
            sh_buf_puts(b, "\xEF\xBF\xBD");
            i++;
        }
    }
}

int sh_conv_append(sh_buf *b, sh_conv c, const void *p, size_t n, char *err, size_t errlen) {
    const unsigned char *u = p;
    static const char hex[] = "0123456789abcdef";
    switch (c) {
    case SH_CONV_BINARY:
        for (size_t i = 0; i < n; i++) {
            if (u[i] >= 0x20 && u[i] <= 0x7E && u[i] != '\\') sh_buf_put(b, &u[i], 1);
            else sh_buf_printf(b, "\\x%02X", u[i]);
        }
        return 0;
    case SH_CONV_STRING:
        utf8_text(b, u, n);
        return 0;
    case SH_CONV_HEX:
        for (size_t i = 0; i < n; i++) {
            char two[2] = { hex[u[i] >> 4], hex[u[i] & 15] };
            sh_buf_put(b, two, 2);
        }
        return 0;
    case SH_CONV_BOOLEAN:
        if (n != 1) {
            snprintf(err, errlen, "Array has wrong size: %zu", n);
            return -1;
        }
        sh_buf_puts(b, u[0] ? "true" : "false");
        return 0;
    case SH_CONV_LONG:
        if (n < 8) return too_short(n, 8, err, errlen);
        sh_buf_printf(b, "%" PRId64, (int64_t)big_endian(u, 8));
        return 0;
    case SH_CONV_INT:
        if (n < 4) return too_short(n, 4, err, errlen);
        sh_buf_printf(b, "%" PRId32, (int32_t)(uint32_t)big_endian(u, 4));
        return 0;
    case SH_CONV_SHORT:
        if (n < 2) return too_short(n, 2, err, errlen);
        sh_buf_printf(b, "%d", (int)(int16_t)(uint16_t)big_endian(u, 2));
        return 0;
    case SH_CONV_DOUBLE: {
        if (n < 8) return too_short(n, 8, err, errlen);
        uint64_t bits = big_endian(u, 8);
        double d;
        memcpy(&d, &bits, sizeof d);
        java_float_text(b, d, false);
        return 0;
    }
    case SH_CONV_FLOAT: {
        if (n < 4) return too_short(n, 4, err, errlen);
        uint32_t bits = (uint32_t)big_endian(u, 4);
        float f;
        memcpy(&f, &bits, sizeof f);
        java_float_text(b, (double)f, true);
        return 0;
    }
    }
    snprintf(err, errlen, "unknown converter");
    return -1;
}
