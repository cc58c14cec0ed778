/**
 * @file filter_parse.c
 * kv_filter_parse / kv_filter_free: compiles HBase's filter language (the
 * ParseFilter grammar of the HBase shell and Thrift server) into the tree
 * of filter_ast.h. Called by cellsh and by anyone building kv_read_options;
 * the tree is walked by filter_eval.c. Uses only libc; 'regexstring:'
 * patterns are compiled by filter_regex.c.
 *
 * Grammar (precedence: SKIP/WHILE > AND > OR):
 *   expr    := and ('OR' and)*
 *   and     := unary ('AND' unary)*
 *   unary   := ('SKIP' | 'WHILE') unary | '(' expr ')' | filter
 *   filter  := Name '(' [arg (',' arg)*] ')'
 *   arg     := 'quoted '' string' | < <= = != >= > | LESS ... | true | false
 *            | integer
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "filter_ast.h"

/* Nesting beyond this is refused so that hostile input cannot exhaust the
   stack of the recursive descent. */
#define KV_FILTER_MAX_DEPTH 100
/* Filters and operators in one filter: the evaluation walks the tree per
   cell (and AND/OR chains nest), so its cost and stack grow with it. */
#define KV_FILTER_MAX_NODES 256

typedef struct parser {
    const char *text;
    size_t len;
    size_t pos;
    char *errmsg;
    size_t errlen;
    kv_status status;             /* first failure; KV_OK while parsing */
    size_t nnodes;
    int depth;
} parser;

typedef enum arg_kind { ARG_STRING, ARG_OP, ARG_BOOL, ARG_INT } arg_kind;

typedef struct arg {
    arg_kind kind;
    size_t at;                    /* offset in the text, for messages */
    kv_fbytes str;                /* ARG_STRING: NUL-terminated copy */
    kv_compare_op op;
    bool bval;
    int64_t ival;
} arg;

static void fail(parser *p, kv_status st, size_t at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void fail(parser *p, kv_status st, size_t at, const char *fmt, ...) {
    if (p->status != KV_OK) return;
    p->status = st;
    if (!p->errmsg || p->errlen == 0) return;
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (st == KV_NO_MEMORY)
        snprintf(p->errmsg, p->errlen, "%s", what);
    else
        snprintf(p->errmsg, p->errlen, "%s at offset %zu in \"%.*s\"", what, at,
                 (int)(p->len > 512 ? 512 : p->len), p->text);
}

static void oom(parser *p) { fail(p, KV_NO_MEMORY, p->pos, "out of memory compiling filter"); }

/* ------------------------------------------------------------------------ */
/* Tree                                                                      */
/* ------------------------------------------------------------------------ */

static void node_free(kv_fnode *n) {
    if (!n) return;
    node_free(n->left);
    node_free(n->right);
    for (size_t i = 0; i < n->nbytes; i++) free(n->bytes[i].data);
    free(n->bytes);
    free(n->ts);
    for (size_t i = 0; i < n->nranges; i++) {
        free(n->ranges[i].start.data);
        free(n->ranges[i].stop.data);
    }
    free(n->ranges);
    free(n->cmp.arg.data);
    kv_regex_free(n->cmp.re);
    free(n);
}

static kv_fnode *node_new(parser *p, kv_fnode_kind kind) {
    if (p->nnodes >= KV_FILTER_MAX_NODES) {
        fail(p, KV_INVALID, p->pos, "filter has more than %d filters and operators",
             KV_FILTER_MAX_NODES);
        return NULL;
    }
    kv_fnode *n = calloc(1, sizeof *n);
    if (!n) { oom(p); return NULL; }
    n->kind = kind;
    n->id = p->nnodes++;
    n->op = KV_CMP_EQUAL;
    return n;
}

static kv_fnode *node_pair(parser *p, kv_fnode_kind kind, kv_fnode *l, kv_fnode *r) {
    kv_fnode *n = (l && (r || kind == KV_FN_SKIP || kind == KV_FN_WHILE)) ? node_new(p, kind) : NULL;
    if (!n) { node_free(l); node_free(r); return NULL; }
    n->left = l;
    n->right = r;
    return n;
}

/* ------------------------------------------------------------------------ */
/* Lexing                                                                    */
/* ------------------------------------------------------------------------ */

static void skip_space(parser *p) {
    while (p->pos < p->len && isspace((unsigned char)p->text[p->pos])) p->pos++;
}

static bool is_word_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* The identifier at the current position (after spaces), not consumed. */
static size_t peek_word(parser *p, const char **word) {
    skip_space(p);
    size_t e = p->pos;
    while (e < p->len && is_word_char(p->text[e])) e++;
    *word = p->text + p->pos;
    return e - p->pos;
}

/* Exact spelling: HBase's operators (AND, OR, SKIP, WHILE) are upper
   case and its comparator types lower case. */
static bool word_exact(const char *w, size_t n, const char *kw) {
    return n == strlen(kw) && memcmp(w, kw, n) == 0;
}

/* Any case: true and false, as HBase lower-cases them. */
static bool word_is(const char *w, size_t n, const char *kw) {
    return n == strlen(kw) && strncasecmp(w, kw, n) == 0;
}

/* A quoted string starting at p->pos ('...' with '' for a quote). */
static bool lex_string(parser *p, kv_fbytes *out) {
    size_t start = p->pos++;
    size_t n = 0;
    for (size_t i = p->pos;; i++) {
        if (i >= p->len) {
            fail(p, KV_INVALID, start, "unterminated string");
            return false;
        }
        if (p->text[i] == '\'') {
            if (i + 1 < p->len && p->text[i + 1] == '\'') { i++; n++; continue; }
            break;
        }
        n++;
    }
    uint8_t *buf = malloc(n + 1);
    if (!buf) { oom(p); return false; }
    size_t k = 0;
    while (k < n) {
        if (p->text[p->pos] == '\'') p->pos++;
        buf[k++] = (uint8_t)p->text[p->pos++];
    }
    buf[n] = 0;
    p->pos++; /* closing quote */
    out->data = buf;
    out->len = n;
    return true;
}

static const struct { const char *name; kv_compare_op op; } op_names[] = {
    { "<=", KV_CMP_LESS_OR_EQUAL }, { ">=", KV_CMP_GREATER_OR_EQUAL }, { "!=", KV_CMP_NOT_EQUAL },
    { "<", KV_CMP_LESS }, { ">", KV_CMP_GREATER }, { "=", KV_CMP_EQUAL },
    { "LESS", KV_CMP_LESS }, { "LESS_OR_EQUAL", KV_CMP_LESS_OR_EQUAL },
    { "EQUAL", KV_CMP_EQUAL }, { "NOT_EQUAL", KV_CMP_NOT_EQUAL },
    { "GREATER_OR_EQUAL", KV_CMP_GREATER_OR_EQUAL }, { "GREATER", KV_CMP_GREATER },
};

static bool lex_arg(parser *p, arg *a) {
    skip_space(p);
    memset(a, 0, sizeof *a);
    a->at = p->pos;
    if (p->pos >= p->len) {
        fail(p, KV_INVALID, p->pos, "expected an argument");
        return false;
    }
    char c = p->text[p->pos];
    if (c == '\'') {
        a->kind = ARG_STRING;
        return lex_string(p, &a->str);
    }
    if (c == '<' || c == '>' || c == '=' || c == '!') {
        for (size_t i = 0; i < 6; i++) {
            size_t n = strlen(op_names[i].name);
            if (p->len - p->pos >= n && memcmp(p->text + p->pos, op_names[i].name, n) == 0) {
                a->kind = ARG_OP;
                a->op = op_names[i].op;
                p->pos += n;
                return true;
            }
        }
        fail(p, KV_INVALID, p->pos, "unknown comparison operator");
        return false;
    }
    if (isdigit((unsigned char)c) || c == '-' || c == '+') {
        size_t e = p->pos + 1;
        while (e < p->len && isdigit((unsigned char)p->text[e])) e++;
        char num[32];
        size_t n = e - p->pos;
        if (n >= sizeof num || !isdigit((unsigned char)p->text[e - 1])) {
            fail(p, KV_INVALID, p->pos, n >= sizeof num ? "integer out of range" : "expected digits");
            return false;
        }
        memcpy(num, p->text + p->pos, n);
        num[n] = 0;
        errno = 0;
        long long v = strtoll(num, NULL, 10);
        if (errno == ERANGE) {
            fail(p, KV_INVALID, p->pos, "integer out of range");
            return false;
        }
        a->kind = ARG_INT;
        a->ival = v;
        p->pos = e;
        return true;
    }
    const char *w;
    size_t n = peek_word(p, &w);
    if (n == 0) {
        fail(p, KV_INVALID, p->pos, "expected an argument, found '%c'", c);
        return false;
    }
    if (word_is(w, n, "true") || word_is(w, n, "false")) {
        a->kind = ARG_BOOL;
        a->bval = (w[0] == 't' || w[0] == 'T');
        p->pos += n;
        return true;
    }
    for (size_t i = 6; i < sizeof op_names / sizeof op_names[0]; i++) {
        if (n == strlen(op_names[i].name) && memcmp(w, op_names[i].name, n) == 0) {
            a->kind = ARG_OP;
            a->op = op_names[i].op;
            p->pos += n;
            return true;
        }
    }
    fail(p, KV_INVALID, p->pos, "unexpected '%.*s' (arguments are quoted strings, operators, "
         "true/false or integers)", (int)(n > 64 ? 64 : n), w);
    return false;
}

/* ------------------------------------------------------------------------ */
/* Filter constructors                                                       */
/* ------------------------------------------------------------------------ */

typedef struct filter_call {
    const char *name;
    size_t at;                    /* offset of the name */
    arg *args;
    size_t nargs;
} filter_call;

static bool want_nargs(parser *p, const filter_call *fc, size_t min, size_t max) {
    if (fc->nargs >= min && fc->nargs <= max) return true;
    if (min == max)
        fail(p, KV_INVALID, fc->at, "%s takes %zu argument%s, got %zu", fc->name, min,
             min == 1 ? "" : "s", fc->nargs);
    else if (max == SIZE_MAX)
        fail(p, KV_INVALID, fc->at, "%s takes at least %zu argument%s, got %zu", fc->name, min,
             min == 1 ? "" : "s", fc->nargs);
    else
        fail(p, KV_INVALID, fc->at, "%s takes %zu to %zu arguments, got %zu", fc->name, min, max,
             fc->nargs);
    return false;
}

static const char *kind_name(arg_kind k) {
    switch (k) {
    case ARG_STRING: return "a quoted string";
    case ARG_OP: return "a comparison operator";
    case ARG_BOOL: return "true or false";
    case ARG_INT: return "an integer";
    }
    return "?";
}

static bool want_kind(parser *p, const filter_call *fc, size_t i, arg_kind k) {
    if (fc->args[i].kind == k) return true;
    fail(p, KV_INVALID, fc->args[i].at, "%s argument %zu must be %s, not %s", fc->name, i + 1,
         kind_name(k), kind_name(fc->args[i].kind));
    return false;
}

/* Moves string argument i into *out. */
static bool take_string(parser *p, const filter_call *fc, size_t i, kv_fbytes *out) {
    if (!want_kind(p, fc, i, ARG_STRING)) return false;
    *out = fc->args[i].str;
    fc->args[i].str.data = NULL;
    fc->args[i].str.len = 0;
    return true;
}

static bool take_strings(parser *p, const filter_call *fc, kv_fnode *n, size_t first, size_t count) {
    n->bytes = calloc(count ? count : 1, sizeof *n->bytes);
    if (!n->bytes) { oom(p); return false; }
    for (size_t i = 0; i < count; i++) {
        if (!take_string(p, fc, first + i, &n->bytes[i])) return false;
        n->nbytes = i + 1;
    }
    return true;
}

/* 'type:value' with type binary, binaryprefix, substring or regexstring. */
static bool take_comparator(parser *p, const filter_call *fc, size_t i, kv_compare_op op,
                            kv_fcomparator *out) {
    if (!want_kind(p, fc, i, ARG_STRING)) return false;
    arg *a = &fc->args[i];
    const uint8_t *colon = memchr(a->str.data, ':', a->str.len);
    if (!colon) {
        fail(p, KV_INVALID, a->at, "comparator must be 'type:value' (binary, binaryprefix, "
             "substring, regexstring)");
        return false;
    }
    size_t tlen = (size_t)(colon - a->str.data);
    const char *t = (const char *)a->str.data;
    if (word_exact(t, tlen, "binary")) out->kind = KV_FCMP_BINARY;
    else if (word_exact(t, tlen, "binaryprefix")) out->kind = KV_FCMP_BINARY_PREFIX;
    else if (word_exact(t, tlen, "substring")) out->kind = KV_FCMP_SUBSTRING;
    else if (word_exact(t, tlen, "regexstring")) out->kind = KV_FCMP_REGEX;
    else {
        fail(p, KV_INVALID, a->at, "unknown comparator type '%.*s'", (int)(tlen > 64 ? 64 : tlen), t);
        return false;
    }
    if ((out->kind == KV_FCMP_SUBSTRING || out->kind == KV_FCMP_REGEX) && op != KV_CMP_EQUAL &&
        op != KV_CMP_NOT_EQUAL) {
        fail(p, KV_INVALID, a->at, "only = and != (EQUAL, NOT_EQUAL) work with %.*s comparators",
             (int)tlen, t);
        return false;
    }
    /* Keep the value part, NUL-terminated, in place of the whole argument. */
    size_t vlen = a->str.len - tlen - 1;
    memmove(a->str.data, colon + 1, vlen + 1);
    out->arg.data = a->str.data;
    out->arg.len = vlen;
    a->str.data = NULL;
    a->str.len = 0;
    if (out->kind == KV_FCMP_SUBSTRING) {
        for (size_t k = 0; k < vlen; k++) out->arg.data[k] = (uint8_t)tolower(out->arg.data[k]);
    } else if (out->kind == KV_FCMP_REGEX) {
        char why[200];
        int rc = kv_regex_compile(&out->re, (const char *)out->arg.data, vlen, why, sizeof why);
        if (rc == -2) {
            oom(p);
            return false;
        }
        if (rc != 0) {
            fail(p, KV_INVALID, a->at, "bad regular expression '%.*s': %s",
                 (int)(vlen > 64 ? 64 : vlen), (const char *)out->arg.data, why);
            return false;
        }
    }
    return true;
}

static bool take_op_cmp(parser *p, const filter_call *fc, size_t i, kv_fnode *n) {
    if (!want_kind(p, fc, i, ARG_OP)) return false;
    n->op = fc->args[i].op;
    return take_comparator(p, fc, i + 1, n->op, &n->cmp);
}

static bool take_count(parser *p, const filter_call *fc, size_t i, int64_t *out) {
    if (!want_kind(p, fc, i, ARG_INT)) return false;
    if (fc->args[i].ival < 0) {
        fail(p, KV_INVALID, fc->args[i].at, "%s argument %zu must not be negative", fc->name, i + 1);
        return false;
    }
    *out = fc->args[i].ival;
    return true;
}

/* A count HBase reads as a Java int (ColumnPaginationFilter,
   ColumnCountGetFilter). */
static bool take_int(parser *p, const filter_call *fc, size_t i, int64_t *out) {
    if (!take_count(p, fc, i, out)) return false;
    if (*out <= INT32_MAX) return true;
    fail(p, KV_INVALID, fc->args[i].at, "%s argument %zu is larger than an int (%d)", fc->name, i + 1,
         INT32_MAX);
    return false;
}

static int fbytes_cmp(const kv_fbytes *a, const kv_fbytes *b) {
    size_t n = a->len < b->len ? a->len : b->len;
    int c = n ? memcmp(a->data, b->data, n) : 0;
    return c ? c : (a->len > b->len) - (a->len < b->len);
}

/* MultiRowRangeFilter('start', startInclusive, 'stop', stopInclusive, ...):
   HBase's checks (createFilterFromArguments, sortAndMerge). */
static bool build_ranges(parser *p, kv_fnode *n, const filter_call *fc) {
    if (fc->nargs == 0 || fc->nargs % 4 != 0) {
        fail(p, KV_INVALID, fc->at, "%s takes a multiple of 4 arguments ('start', true|false, "
             "'stop', true|false per range), got %zu", fc->name, fc->nargs);
        return false;
    }
    n->ranges = calloc(fc->nargs / 4, sizeof *n->ranges);
    if (!n->ranges) { oom(p); return false; }
    for (size_t i = 0; i < fc->nargs; i += 4) {
        kv_frange *r = &n->ranges[n->nranges];
        if (!want_kind(p, fc, i, ARG_STRING) || !want_kind(p, fc, i + 1, ARG_BOOL) ||
            !want_kind(p, fc, i + 2, ARG_STRING) || !want_kind(p, fc, i + 3, ARG_BOOL))
            return false;
        take_string(p, fc, i, &r->start);
        take_string(p, fc, i + 2, &r->stop);
        n->nranges++;
        r->start_inclusive = fc->args[i + 1].bval;
        r->stop_inclusive = fc->args[i + 3].bval;
        if (r->start.len && r->stop.len && fbytes_cmp(&r->start, &r->stop) > 0) {
            fail(p, KV_INVALID, fc->args[i].at, "%s: invalid range: start row => '%.*s', stop row "
                 "=> '%.*s' (the start is after the stop)", fc->name,
                 (int)(r->start.len > 64 ? 64 : r->start.len), (const char *)r->start.data,
                 (int)(r->stop.len > 64 ? 64 : r->stop.len), (const char *)r->stop.data);
            return false;
        }
    }
    return true;
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static bool build(parser *p, kv_fnode *n, const filter_call *fc) {
    switch (n->kind) {
    case KV_FN_PREFIX:
    case KV_FN_COLUMN_PREFIX:
    case KV_FN_INCLUSIVE_STOP:
        return want_nargs(p, fc, 1, 1) && take_strings(p, fc, n, 0, 1);
    case KV_FN_MULTI_COLUMN_PREFIX:
        return want_nargs(p, fc, 1, SIZE_MAX) && take_strings(p, fc, n, 0, fc->nargs);
    case KV_FN_QUALIFIER:
    case KV_FN_VALUE:
    case KV_FN_ROW:
    case KV_FN_FAMILY:
        return want_nargs(p, fc, 2, 2) && take_op_cmp(p, fc, 0, n);
    case KV_FN_SINGLE_COLUMN_VALUE:
    case KV_FN_SINGLE_COLUMN_VALUE_EXCLUDE:
        n->flag_a = false; /* filterIfMissing */
        n->flag_b = true;  /* latestVersionOnly */
        if (fc->nargs == 5) {
            fail(p, KV_INVALID, fc->at, "%s takes 4 or 6 arguments, got 5", fc->name);
            return false;
        }
        if (!want_nargs(p, fc, 4, 6) || !take_strings(p, fc, n, 0, 2) || !take_op_cmp(p, fc, 2, n))
            return false;
        if (fc->nargs == 6) {
            if (!want_kind(p, fc, 4, ARG_BOOL) || !want_kind(p, fc, 5, ARG_BOOL)) return false;
            n->flag_a = fc->args[4].bval;
            n->flag_b = fc->args[5].bval;
        }
        return true;
    case KV_FN_KEY_ONLY:
        if (!want_nargs(p, fc, 0, 1)) return false;
        if (fc->nargs == 1) {
            if (!want_kind(p, fc, 0, ARG_BOOL)) return false;
            n->flag_a = fc->args[0].bval;
        }
        return true;
    case KV_FN_FIRST_KEY_ONLY:
        return want_nargs(p, fc, 0, 0);
    case KV_FN_TIMESTAMPS:
        n->ts = malloc((fc->nargs ? fc->nargs : 1) * sizeof *n->ts);
        if (!n->ts) { oom(p); return false; }
        for (size_t i = 0; i < fc->nargs; i++) {
            if (!take_count(p, fc, i, &n->ts[i])) return false;
            n->nts = i + 1;
        }
        qsort(n->ts, n->nts, sizeof *n->ts, cmp_i64);
        return true;
    case KV_FN_PAGE:
        return want_nargs(p, fc, 1, 1) && take_count(p, fc, 0, &n->count);
    case KV_FN_COLUMN_COUNT_GET:
        return want_nargs(p, fc, 1, 1) && take_int(p, fc, 0, &n->count);
    case KV_FN_COLUMN_PAGINATION:
        return want_nargs(p, fc, 2, 2) && take_int(p, fc, 0, &n->count) &&
               take_int(p, fc, 1, &n->offset);
    case KV_FN_COLUMN_VALUE:
        return want_nargs(p, fc, 4, 4) && take_strings(p, fc, n, 0, 2) && take_op_cmp(p, fc, 2, n);
    case KV_FN_DEPENDENT_COLUMN:
        if (fc->nargs != 2 && fc->nargs != 3 && fc->nargs != 5) {
            fail(p, KV_INVALID, fc->at, "%s takes 2, 3 or 5 arguments, got %zu", fc->name, fc->nargs);
            return false;
        }
        if (!take_strings(p, fc, n, 0, 2)) return false;
        if (fc->nargs >= 3) {
            if (!want_kind(p, fc, 2, ARG_BOOL)) return false;
            n->flag_a = fc->args[2].bval;
        }
        if (fc->nargs == 5) {
            if (!take_op_cmp(p, fc, 3, n)) return false;
            n->flag_b = true;
        }
        return true;
    case KV_FN_MULTI_ROW_RANGE:
        return build_ranges(p, n, fc);
    case KV_FN_COLUMN_RANGE:
        if (!want_nargs(p, fc, 4, 4) || !want_kind(p, fc, 0, ARG_STRING) ||
            !want_kind(p, fc, 1, ARG_BOOL) || !want_kind(p, fc, 2, ARG_STRING) ||
            !want_kind(p, fc, 3, ARG_BOOL))
            return false;
        n->bytes = calloc(2, sizeof *n->bytes);
        if (!n->bytes) { oom(p); return false; }
        n->nbytes = 2;
        take_string(p, fc, 0, &n->bytes[0]);
        take_string(p, fc, 2, &n->bytes[1]);
        n->flag_a = fc->args[1].bval;
        n->flag_b = fc->args[3].bval;
        return true;
    default:
        break;
    }
    return false;
}

/* HBase 2's ParseFilter registry, alphabetical (kv_filter_name). */
static const struct { const char *name; kv_fnode_kind kind; } filter_names[] = {
    { "ColumnCountGetFilter", KV_FN_COLUMN_COUNT_GET },
    { "ColumnPaginationFilter", KV_FN_COLUMN_PAGINATION },
    { "ColumnPrefixFilter", KV_FN_COLUMN_PREFIX },
    { "ColumnRangeFilter", KV_FN_COLUMN_RANGE },
    { "ColumnValueFilter", KV_FN_COLUMN_VALUE },
    { "DependentColumnFilter", KV_FN_DEPENDENT_COLUMN },
    { "FamilyFilter", KV_FN_FAMILY },
    { "FirstKeyOnlyFilter", KV_FN_FIRST_KEY_ONLY },
    { "InclusiveStopFilter", KV_FN_INCLUSIVE_STOP },
    { "KeyOnlyFilter", KV_FN_KEY_ONLY },
    { "MultiRowRangeFilter", KV_FN_MULTI_ROW_RANGE },
    { "MultipleColumnPrefixFilter", KV_FN_MULTI_COLUMN_PREFIX },
    { "PageFilter", KV_FN_PAGE },
    { "PrefixFilter", KV_FN_PREFIX },
    { "QualifierFilter", KV_FN_QUALIFIER },
    { "RowFilter", KV_FN_ROW },
    { "SingleColumnValueExcludeFilter", KV_FN_SINGLE_COLUMN_VALUE_EXCLUDE },
    { "SingleColumnValueFilter", KV_FN_SINGLE_COLUMN_VALUE },
    { "TimestampsFilter", KV_FN_TIMESTAMPS },
    { "ValueFilter", KV_FN_VALUE },
};

const char *kv_filter_name(size_t i) {
    return i < sizeof filter_names / sizeof filter_names[0] ? filter_names[i].name : NULL;
}

/* ------------------------------------------------------------------------ */
/* Expressions                                                               */
/* ------------------------------------------------------------------------ */

static kv_fnode *parse_or(parser *p);

static kv_fnode *parse_filter(parser *p) {
    const char *w;
    size_t at = p->pos;
    size_t n = peek_word(p, &w);
    at = p->pos;
    if (n == 0) {
        if (p->pos >= p->len)
            fail(p, KV_INVALID, p->pos, "expected a filter name, found the end");
        else
            fail(p, KV_INVALID, p->pos, "expected a filter name, found '%c'", p->text[p->pos]);
        return NULL;
    }
    size_t which = SIZE_MAX;
    for (size_t i = 0; i < sizeof filter_names / sizeof filter_names[0]; i++)
        if (n == strlen(filter_names[i].name) && memcmp(w, filter_names[i].name, n) == 0) which = i;
    if (which == SIZE_MAX) {
        fail(p, KV_INVALID, at, "unknown filter %.*s", (int)(n > 64 ? 64 : n), w);
        return NULL;
    }
    p->pos += n;
    skip_space(p);
    if (p->pos >= p->len || p->text[p->pos] != '(') {
        fail(p, KV_INVALID, p->pos, "expected '(' after %s", filter_names[which].name);
        return NULL;
    }
    p->pos++;

    filter_call fc = { filter_names[which].name, at, NULL, 0 };
    size_t cap = 0;
    bool ok = true;
    skip_space(p);
    if (p->pos < p->len && p->text[p->pos] == ')') {
        p->pos++;
    } else {
        for (;;) {
            if (fc.nargs == cap) {
                size_t ncap = cap ? 2 * cap : 4;
                arg *na = realloc(fc.args, ncap * sizeof *na);
                if (!na) { oom(p); ok = false; break; }
                fc.args = na;
                cap = ncap;
            }
            if (!lex_arg(p, &fc.args[fc.nargs])) { ok = false; break; }
            fc.nargs++;
            skip_space(p);
            if (p->pos < p->len && p->text[p->pos] == ',') { p->pos++; continue; }
            if (p->pos < p->len && p->text[p->pos] == ')') { p->pos++; break; }
            fail(p, KV_INVALID, p->pos, "expected ',' or ')' in the arguments of %s", fc.name);
            ok = false;
            break;
        }
    }

    kv_fnode *node = NULL;
    if (ok) {
        node = node_new(p, filter_names[which].kind);
        if (node && !build(p, node, &fc)) {
            node_free(node);
            node = NULL;
        }
    }
    for (size_t i = 0; i < fc.nargs; i++) free(fc.args[i].str.data);
    free(fc.args);
    return node;
}

static kv_fnode *parse_unary(parser *p) {
    if (++p->depth > KV_FILTER_MAX_DEPTH) {
        fail(p, KV_INVALID, p->pos, "filter nested too deeply");
        return NULL;
    }
    kv_fnode *n = NULL;
    const char *w;
    size_t len = peek_word(p, &w);
    if (word_exact(w, len, "SKIP") || word_exact(w, len, "WHILE")) {
        kv_fnode_kind kind = (len == 4) ? KV_FN_SKIP : KV_FN_WHILE;
        p->pos += len;
        n = node_pair(p, kind, parse_unary(p), NULL);
    } else if (p->pos < p->len && p->text[p->pos] == '(') {
        size_t open = p->pos++;
        n = parse_or(p);
        skip_space(p);
        if (n && (p->pos >= p->len || p->text[p->pos] != ')')) {
            fail(p, KV_INVALID, p->pos, "expected ')' to close the '(' at offset %zu", open);
            node_free(n);
            n = NULL;
        } else if (n) {
            p->pos++;
        }
    } else {
        n = parse_filter(p);
    }
    p->depth--;
    return n;
}

static kv_fnode *parse_and(parser *p) {
    kv_fnode *n = parse_unary(p);
    while (n) {
        const char *w;
        size_t len = peek_word(p, &w);
        if (!word_exact(w, len, "AND")) break;
        p->pos += len;
        n = node_pair(p, KV_FN_AND, n, parse_unary(p));
    }
    return n;
}

static kv_fnode *parse_or(parser *p) {
    kv_fnode *n = parse_and(p);
    while (n) {
        const char *w;
        size_t len = peek_word(p, &w);
        if (!word_exact(w, len, "OR")) break;
        p->pos += len;
        n = node_pair(p, KV_FN_OR, n, parse_and(p));
    }
    return n;
}

kv_status kv_filter_parse(kv_filter **out, const char *text, char *errmsg, size_t errlen) {
    return kv_filter_parse_len(out, text, text ? strlen(text) : 0, errmsg, errlen);
}

kv_status kv_filter_parse_len(kv_filter **out, const char *text, size_t len, char *errmsg,
                              size_t errlen) {
    if (errmsg && errlen) errmsg[0] = 0;
    if (!out) return KV_INVALID;
    *out = NULL;
    parser p = { text ? text : "", text ? len : 0, 0, errmsg, errlen, KV_OK, 0, 0 };
    skip_space(&p);
    if (p.pos >= p.len) {
        fail(&p, KV_INVALID, p.pos, "empty filter");
        return p.status;
    }
    kv_fnode *root = parse_or(&p);
    if (root) {
        skip_space(&p);
        if (p.pos < p.len)
            fail(&p, KV_INVALID, p.pos, "expected AND, OR or the end of the filter");
    }
    if (p.status != KV_OK || !root) {
        node_free(root);
        if (p.status == KV_OK) fail(&p, KV_INVALID, p.pos, "invalid filter");
        return p.status;
    }
    kv_filter *f = malloc(sizeof *f);
    if (!f) {
        node_free(root);
        oom(&p);
        return p.status;
    }
    f->root = root;
    f->nnodes = p.nnodes;
    *out = f;
    return KV_OK;
}

void kv_filter_free(kv_filter *filter) {
    if (!filter) return;
    node_free(filter->root);
    free(filter);
}
