/*
 * Tokenizer of the shell language (see lexer.h). Called by parser.c; uses
 * the statement arena for decoded strings.
 */
#include "lexer.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

void sh_lexer_init(sh_lexer *lx, const char *text, size_t len, sh_arena *arena) {
    lx->text = text;
    lx->len = len;
    lx->pos = 0;
    lx->arena = arena;
    lx->err[0] = '\0';
}

static sh_token_kind lex_error(sh_lexer *lx, sh_token *tok, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static sh_token_kind lex_error(sh_lexer *lx, sh_token *tok, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(lx->err, sizeof lx->err, fmt, ap);
    va_end(ap);
    tok->kind = TK_ERROR;
    return TK_ERROR;
}

static int hex_digit(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Appends the UTF-8 encoding of a code point. */
static size_t put_utf8(char *out, unsigned long cp) {
    if (cp < 0x80) { out[0] = (char)cp; return 1; }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* Decodes one escape after a backslash in a "..." string at *p (which points
 * past the backslash). Writes the bytes to out and returns their count, or
 * -1 on a malformed escape (message in lx->err). */
static int dq_escape(sh_lexer *lx, size_t *p, char *out) {
    const char *t = lx->text;
    size_t end = lx->len;
    char c = t[(*p)++];
    switch (c) {
    case 'n': out[0] = '\n'; return 1;
    case 't': out[0] = '\t'; return 1;
    case 'r': out[0] = '\r'; return 1;
    case 'a': out[0] = '\a'; return 1;
    case 'b': out[0] = '\b'; return 1;
    case 'e': out[0] = 0x1b; return 1;
    case 'f': out[0] = '\f'; return 1;
    case 'v': out[0] = '\v'; return 1;
    case 's': out[0] = ' '; return 1;
    case '\n': return 0;   /* line continuation inside the string */
    case 'x': {
        int v = 0, n = 0;
        while (n < 2 && *p < end && hex_digit((unsigned char)t[*p]) >= 0) {
            v = v * 16 + hex_digit((unsigned char)t[(*p)++]);
            n++;
        }
        if (n == 0) {
            snprintf(lx->err, sizeof lx->err, "invalid hex escape \\x");
            return -1;
        }
        out[0] = (char)v;
        return 1;
    }
    case 'u': {
        unsigned long cp = 0;
        if (*p < end && t[*p] == '{') {
            (*p)++;
            int n = 0;
            while (*p < end && hex_digit((unsigned char)t[*p]) >= 0 && n < 6) {
                cp = cp * 16 + (unsigned long)hex_digit((unsigned char)t[(*p)++]);
                n++;
            }
            if (n == 0 || *p >= end || t[*p] != '}') {
                snprintf(lx->err, sizeof lx->err, "invalid Unicode escape \\u{...}");
                return -1;
            }
            (*p)++;
        } else {
            for (int n = 0; n < 4; n++) {
                if (*p >= end || hex_digit((unsigned char)t[*p]) < 0) {
                    snprintf(lx->err, sizeof lx->err, "invalid Unicode escape: \\u needs 4 hex digits");
                    return -1;
                }
                cp = cp * 16 + (unsigned long)hex_digit((unsigned char)t[(*p)++]);
            }
        }
        if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
            snprintf(lx->err, sizeof lx->err, "invalid Unicode code point U+%lX", cp);
            return -1;
        }
        return (int)put_utf8(out, cp);
    }
    default:
        if (c >= '0' && c <= '7') {
            int v = c - '0', n = 1;
            while (n < 3 && *p < end && t[*p] >= '0' && t[*p] <= '7') {
                v = v * 8 + (t[(*p)++] - '0');
                n++;
            }
            out[0] = (char)(v & 0xFF);
            return 1;
        }
        out[0] = c;   /* Ruby: an unknown escape stands for the character */
        return 1;
    }
}

static sh_token_kind lex_string(sh_lexer *lx, sh_token *tok) {
    const char *t = lx->text;
    char quote = t[lx->pos];
    size_t p = lx->pos + 1;
    /* Find the closing quote first: the decoded string is never longer
     * than its source (a \u escape of 6 source bytes yields at most 4). */
    size_t close = p;
    while (close < lx->len && t[close] != quote) close += t[close] == '\\' ? 2 : 1;
    if (close >= lx->len) {
        tok->kind = TK_INCOMPLETE;
        return TK_INCOMPLETE;
    }
    char *buf = sh_arena_alloc(lx->arena, close - p + 1);
    if (!buf) return lex_error(lx, tok, "out of memory");
    size_t n = 0;
    for (;;) {
        if (p >= lx->len) {
            tok->kind = TK_INCOMPLETE;
            return TK_INCOMPLETE;
        }
        char c = t[p++];
        if (c == quote) break;
        if (c != '\\') { buf[n++] = c; continue; }
        if (p >= lx->len) {
            tok->kind = TK_INCOMPLETE;
            return TK_INCOMPLETE;
        }
        if (quote == '\'') {
            if (t[p] == '\\' || t[p] == '\'') buf[n++] = t[p++];
            else buf[n++] = '\\';
            continue;
        }
        int k = dq_escape(lx, &p, buf + n);
        if (k < 0) {
            tok->kind = TK_ERROR;
            return TK_ERROR;
        }
        n += (size_t)k;
    }
    buf[n] = '\0';
    tok->kind = TK_STRING;
    tok->str = buf;
    tok->len = n;
    lx->pos = p;
    return TK_STRING;
}

static sh_token_kind lex_number(sh_lexer *lx, sh_token *tok) {
    const char *t = lx->text;
    size_t p = lx->pos;
    bool neg = false;
    if (t[p] == '-' || t[p] == '+') neg = t[p++] == '-';
    int base = 10;
    if (p + 1 < lx->len && t[p] == '0' && (t[p + 1] == 'x' || t[p + 1] == 'X')) {
        base = 16;
        p += 2;
    }
    uint64_t v = 0;
    size_t digits = 0;
    const uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    while (p < lx->len) {
        int d = hex_digit((unsigned char)t[p]);
        if (t[p] == '_' && digits > 0) { p++; continue; }
        if (d < 0 || d >= base) break;
        if (v > (limit - (uint64_t)d) / (uint64_t)base)
            return lex_error(lx, tok, "integer out of range at '%.*s'", (int)(p - lx->pos + 1),
                             t + lx->pos);
        v = v * (uint64_t)base + (uint64_t)d;
        digits++;
        p++;
    }
    if (digits == 0) return lex_error(lx, tok, "malformed number");
    if (p < lx->len && (t[p] == '.' && p + 1 < lx->len && isdigit((unsigned char)t[p + 1])))
        return lex_error(lx, tok, "floating-point numbers are not supported");
    if (p < lx->len && (isalpha((unsigned char)t[p]) || t[p] == '_'))
        return lex_error(lx, tok, "malformed number '%.*s'", (int)(p - lx->pos + 1), t + lx->pos);
    tok->kind = TK_INT;
    tok->num = neg ? (int64_t)(0 - v) : (int64_t)v;
    lx->pos = p;
    return TK_INT;
}

sh_token_kind sh_lex(sh_lexer *lx, sh_token *tok) {
    const char *t = lx->text;
    memset(tok, 0, sizeof *tok);
    for (;;) {
        while (lx->pos < lx->len && (t[lx->pos] == ' ' || t[lx->pos] == '\t' ||
                                     t[lx->pos] == '\r' || t[lx->pos] == '\f'))
            lx->pos++;
        if (lx->pos < lx->len && t[lx->pos] == '#') {
            while (lx->pos < lx->len && t[lx->pos] != '\n') lx->pos++;
            continue;
        }
        /* A backslash before the end of a line joins the next line. */
        if (lx->pos + 1 < lx->len && t[lx->pos] == '\\' && t[lx->pos + 1] == '\n') {
            lx->pos += 2;
            continue;
        }
        if (lx->pos + 1 == lx->len && t[lx->pos] == '\\') {
            tok->pos = lx->pos;
            tok->kind = TK_INCOMPLETE;
            return TK_INCOMPLETE;
        }
        break;
    }
    tok->pos = lx->pos;
    if (lx->pos >= lx->len) return tok->kind = TK_EOF;
    char c = t[lx->pos];
    switch (c) {
    case '\n': lx->pos++; return tok->kind = TK_NEWLINE;
    case ';': lx->pos++; return tok->kind = TK_SEMI;
    case ',': lx->pos++; return tok->kind = TK_COMMA;
    case '{': lx->pos++; return tok->kind = TK_LBRACE;
    case '}': lx->pos++; return tok->kind = TK_RBRACE;
    case '[': lx->pos++; return tok->kind = TK_LBRACKET;
    case ']': lx->pos++; return tok->kind = TK_RBRACKET;
    case '(': lx->pos++; return tok->kind = TK_LPAREN;
    case ')': lx->pos++; return tok->kind = TK_RPAREN;
    case '\'':
    case '"':
        return lex_string(lx, tok);
    case '=':
        if (lx->pos + 1 < lx->len && t[lx->pos + 1] == '>') {
            lx->pos += 2;
            return tok->kind = TK_ARROW;
        }
        return lex_error(lx, tok, "unexpected '=' (did you mean '=>'?)");
    default:
        break;
    }
    if (isdigit((unsigned char)c) ||
        ((c == '-' || c == '+') && lx->pos + 1 < lx->len && isdigit((unsigned char)t[lx->pos + 1])))
        return lex_number(lx, tok);
    if (isalpha((unsigned char)c) || c == '_') {
        size_t start = lx->pos;
        while (lx->pos < lx->len &&
               (isalnum((unsigned char)t[lx->pos]) || t[lx->pos] == '_'))
            lx->pos++;
        /* Ruby method names may end in ? or ! */
        if (lx->pos < lx->len && (t[lx->pos] == '?' || t[lx->pos] == '!')) lx->pos++;
        tok->str = sh_arena_strndup(lx->arena, t + start, lx->pos - start);
        if (!tok->str) return lex_error(lx, tok, "out of memory");
        tok->len = lx->pos - start;
        return tok->kind = TK_WORD;
    }
    if (isprint((unsigned char)c)) return lex_error(lx, tok, "unexpected character '%c'", c);
    return lex_error(lx, tok, "unexpected byte \\x%02X", (unsigned char)c);
}

const char *sh_token_describe(const sh_token *tok, char *buf, size_t len) {
    switch (tok->kind) {
    case TK_EOF: return "end of input";
    case TK_NEWLINE: return "end of line";
    case TK_SEMI: return "';'";
    case TK_COMMA: return "','";
    case TK_ARROW: return "'=>'";
    case TK_LBRACE: return "'{'";
    case TK_RBRACE: return "'}'";
    case TK_LBRACKET: return "'['";
    case TK_RBRACKET: return "']'";
    case TK_LPAREN: return "'('";
    case TK_RPAREN: return "')'";
    case TK_STRING: return "a string";
    case TK_INT: snprintf(buf, len, "number %lld", (long long)tok->num); return buf;
    case TK_WORD: snprintf(buf, len, "'%.*s'", (int)(tok->len > 40 ? 40 : tok->len), tok->str);
        return buf;
    case TK_INCOMPLETE: return "unterminated string";
    case TK_ERROR: return "invalid token";
    }
    return "token";
}
