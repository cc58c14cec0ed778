/*
 * TSV field and \xNN text codecs (see codec.h). Used by the transfer code.
 */
#include "codec.h"

#include <stdlib.h>

static const char hexdigits[] = "0123456789ABCDEF";

static int hexval(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

void sh_tsv_write_field(FILE *out, const void *p, size_t n, char separator) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = b[i];
        switch (c) {
        case '\\': fputs("\\\\", out); continue;
        case '\t': fputs("\\t", out); continue;
        case '\n': fputs("\\n", out); continue;
        case '\r': fputs("\\r", out); continue;
        default: break;
        }
        if (c < 0x20 || c == 0x7F || c == (unsigned char)separator)
            fprintf(out, "\\x%c%c", hexdigits[c >> 4], hexdigits[c & 15]);
        else
            fputc(c, out);
    }
}

size_t sh_tsv_unescape(char *s, size_t n) {
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '\\' || i + 1 >= n) {
            s[o++] = s[i];
            continue;
        }
        char e = s[i + 1];
        if (e == '\\') { s[o++] = '\\'; i++; }
        else if (e == 't') { s[o++] = '\t'; i++; }
        else if (e == 'n') { s[o++] = '\n'; i++; }
        else if (e == 'r') { s[o++] = '\r'; i++; }
        else if (e == 'x' && i + 3 < n + 0 && hexval((unsigned char)s[i + 2]) >= 0 &&
                 hexval((unsigned char)s[i + 3]) >= 0) {
            s[o++] = (char)(hexval((unsigned char)s[i + 2]) * 16 + hexval((unsigned char)s[i + 3]));
            i += 3;
        } else {
            s[o++] = s[i];
        }
    }
    return o;
}

char *sh_bin_to_text(const void *p, size_t n, size_t *out_len) {
    const unsigned char *b = p;
    size_t len = 0;
    for (size_t i = 0; i < n; i++) len += (b[i] >= 0x20 && b[i] <= 0x7E && b[i] != '\\') ? 1 : 4;
    char *s = malloc(len + 1);
    if (!s) return NULL;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = b[i];
        if (c >= 0x20 && c <= 0x7E && c != '\\') {
            s[o++] = (char)c;
        } else {
            s[o++] = '\\';
            s[o++] = 'x';
            s[o++] = hexdigits[c >> 4];
            s[o++] = hexdigits[c & 15];
        }
    }
    s[o] = '\0';
    if (out_len) *out_len = o;
    return s;
}

bool sh_text_to_bin(char *s, size_t n, size_t *out_len) {
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '\\') {
            s[o++] = s[i];
            continue;
        }
        if (i + 3 >= n + 0 || s[i + 1] != 'x') return false;
        int hi = hexval((unsigned char)s[i + 2]), lo = hexval((unsigned char)s[i + 3]);
        if (hi < 0 || lo < 0) return false;
        s[o++] = (char)(hi * 16 + lo);
        i += 3;
    }
    *out_len = o;
    return true;
}
