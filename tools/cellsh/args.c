/*
 * Argument readers declared in args.h. Used by the cmd_*.c files; reports
 * errors through shell.c.
 */
#include "args.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static bool has_nul(const char *p, size_t len) {
    return memchr(p, '\0', len) != NULL;
}

int sh_arg_name(cellsh *sh, const sh_value *v, const char *what, const char **out) {
    if (v->kind != SH_STR)
        return sh_error(sh, "%s must be a string in quotes, not %s", what, sh_kind_name(v->kind));
    if (v->len == 0) return sh_error(sh, "%s must not be empty", what);
    if (has_nul(v->str, v->len)) return sh_error(sh, "%s must not contain NUL bytes", what);
    *out = v->str;
    return 0;
}

int sh_arg_bytes(cellsh *sh, const sh_value *v, const char *what, const char **p, size_t *len) {
    if (v->kind == SH_STR) {
        *p = v->str;
        *len = v->len;
        return 0;
    }
    if (v->kind == SH_INT) {
        char buf[32];
        int n = snprintf(buf, sizeof buf, "%" PRId64, v->num);
        char *s = sh_arena_strndup(sh->arena, buf, (size_t)n);
        if (!s) return sh_error(sh, "out of memory");
        *p = s;
        *len = (size_t)n;
        return 0;
    }
    return sh_error(sh, "%s must be a string, not %s", what, sh_kind_name(v->kind));
}

int sh_arg_int(cellsh *sh, const sh_value *v, const char *what, int64_t *out) {
    if (v->kind == SH_INT) {
        *out = v->num;
        return 0;
    }
    if (v->kind == SH_STR && v->len > 0 && v->len < 24 && !has_nul(v->str, v->len)) {
        char *end = NULL;
        long long n = strtoll(v->str, &end, 10);
        if (end && *end == '\0') {
            *out = n;
            return 0;
        }
    }
    if (v->kind == SH_STR) return sh_error(sh, "%s must be an integer, not '%.*s'", what,
                                           (int)(v->len > 40 ? 40 : v->len), v->str);
    return sh_error(sh, "%s must be an integer, not %s", what, sh_kind_name(v->kind));
}

int sh_arg_bool(cellsh *sh, const sh_value *v, const char *what, bool *out) {
    if (sh_value_is(v, "true")) { *out = true; return 0; }
    if (sh_value_is(v, "false")) { *out = false; return 0; }
    return sh_error(sh, "%s must be true or false", what);
}

int sh_value_text(cellsh *sh, const sh_value *v, const char *what, char *buf, size_t len) {
    int n = 0;
    switch (v->kind) {
    case SH_INT: n = snprintf(buf, len, "%" PRId64, v->num); break;
    case SH_STR:
    case SH_CONST:
        if (has_nul(v->str, v->len)) return sh_error(sh, "%s must not contain NUL bytes", what);
        n = snprintf(buf, len, "%s", v->str);
        break;
    default:
        return sh_error(sh, "%s must be a string or a number, not %s", what,
                        sh_kind_name(v->kind));
    }
    if (n < 0 || (size_t)n >= len) return sh_error(sh, "%s is too long", what);
    return 0;
}

static void inspect_string(sh_buf *b, const char *s, size_t n) {
    sh_buf_puts(b, "\"");
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '"': sh_buf_puts(b, "\\\""); break;
        case '\\': sh_buf_puts(b, "\\\\"); break;
        case '\n': sh_buf_puts(b, "\\n"); break;
        case '\t': sh_buf_puts(b, "\\t"); break;
        case '\r': sh_buf_puts(b, "\\r"); break;
        case 0x1b: sh_buf_puts(b, "\\e"); break;
        default:
            if (c < 0x20 || c == 0x7f) sh_buf_printf(b, "\\x%02X", c);
            else sh_buf_put(b, &s[i], 1);
        }
    }
    sh_buf_puts(b, "\"");
}

void sh_value_inspect(sh_buf *b, const sh_value *v) {
    switch (v->kind) {
    case SH_INT: sh_buf_printf(b, "%" PRId64, v->num); return;
    case SH_STR: inspect_string(b, v->str, v->len); return;
    case SH_CONST:
        if (sh_value_is(v, "true") || sh_value_is(v, "false") || sh_value_is(v, "nil"))
            sh_buf_put(b, v->str, v->len);
        else
            inspect_string(b, v->str, v->len);
        return;
    case SH_ARRAY:
        sh_buf_puts(b, "[");
        for (size_t i = 0; i < v->n; i++) {
            if (i) sh_buf_puts(b, ", ");
            sh_value_inspect(b, &v->items[i]);
        }
        sh_buf_puts(b, "]");
        return;
    case SH_HASH:
        sh_buf_puts(b, "{");
        for (size_t i = 0; i < v->n; i++) {
            if (i) sh_buf_puts(b, ", ");
            sh_value_inspect(b, &v->items[2 * i]);
            sh_buf_puts(b, "=>");
            sh_value_inspect(b, &v->items[2 * i + 1]);
        }
        sh_buf_puts(b, "}");
        return;
    }
}

bool sh_value_is(const sh_value *v, const char *s) {
    if (v->kind != SH_STR && v->kind != SH_CONST) return false;
    return strlen(s) == v->len && strncasecmp(v->str, s, v->len) == 0;
}

const sh_value *sh_hash_get(const sh_value *hash, const char *key) {
    if (!hash || hash->kind != SH_HASH) return NULL;
    const sh_value *found = NULL;
    for (size_t i = 0; i < hash->n; i++)   /* the last one wins, as in Ruby */
        if (sh_value_is(&hash->items[2 * i], key)) found = &hash->items[2 * i + 1];
    return found;
}

int sh_hash_check(cellsh *sh, const sh_value *hash, const char *const *allowed, const char *cmd) {
    for (size_t i = 0; i < hash->n; i++) {
        const sh_value *k = &hash->items[2 * i];
        bool ok = false;
        for (const char *const *a = allowed; *a && !ok; a++) ok = sh_value_is(k, *a);
        if (!ok) {
            if (k->kind == SH_INT) return sh_error(sh, "Unknown option %" PRId64 " for %s", k->num,
                                                   cmd);
            return sh_error(sh, "Unknown option %.*s for %s", (int)(k->len > 60 ? 60 : k->len),
                            k->str, cmd);
        }
    }
    return 0;
}

int sh_arg_column(cellsh *sh, const sh_value *v, sh_column *out) {
    if (v->kind != SH_STR && v->kind != SH_CONST)
        return sh_error(sh, "a column must be a string 'family:qualifier', not %s",
                        sh_kind_name(v->kind));
    const char *colon = memchr(v->str, ':', v->len);
    size_t flen = colon ? (size_t)(colon - v->str) : v->len;
    if (flen == 0) return sh_error(sh, "column '%.*s' has no family", (int)v->len, v->str);
    if (has_nul(v->str, flen)) return sh_error(sh, "a family name must not contain NUL bytes");
    out->family = sh_arena_strndup(sh->arena, v->str, flen);
    if (!out->family) return sh_error(sh, "out of memory");
    if (colon) {
        out->qualifier = colon + 1;
        out->qualifier_len = v->len - flen - 1;
    } else {
        out->qualifier = NULL;
        out->qualifier_len = 0;
    }
    return 0;
}

int sh_arg_cell_column(cellsh *sh, const sh_value *v, sh_column *out) {
    if (sh_arg_column(sh, v, out) < 0) return -1;
    if (!out->qualifier) {   /* HBase's Put takes a missing qualifier as empty */
        out->qualifier = "";
        out->qualifier_len = 0;
    }
    return 0;
}
