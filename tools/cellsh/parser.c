/*
 * Recursive-descent parser of shell statements (see parser.h). Called by
 * repl.c and the tests; uses lexer.c for tokens.
 */
#include "parser.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "lexer.h"

typedef struct parser {
    sh_lexer lx;
    sh_token tok;        /* the current token */
    sh_arena *arena;
    int depth;           /* open brackets: newlines inside them are blanks */
    char *err;
    size_t errlen;
    sh_parse_result failure;
    jmp_buf fail;        /* unwinds to sh_parse on the first error */
} parser;

static void fail(parser *ps, sh_parse_result why, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));

static void fail(parser *ps, sh_parse_result why, const char *fmt, ...) {
    if (fmt && ps->err && ps->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(ps->err, ps->errlen, fmt, ap);
        va_end(ap);
    }
    ps->failure = why;
    longjmp(ps->fail, 1);
}

/* Advances to the next token; inside brackets, newlines are skipped. */
static void next(parser *ps) {
    for (;;) {
        sh_token_kind k = sh_lex(&ps->lx, &ps->tok);
        if (k == TK_INCOMPLETE) fail(ps, SH_PARSE_INCOMPLETE, NULL);
        if (k == TK_ERROR) fail(ps, SH_PARSE_ERROR, "syntax error: %s", ps->lx.err);
        if (k == TK_NEWLINE && ps->depth > 0) continue;
        return;
    }
}

/* After ',' or '=>' a statement goes on over newlines, as in Ruby. */
static void next_continuing(parser *ps) {
    do {
        next(ps);
    } while (ps->tok.kind == TK_NEWLINE);
    if (ps->tok.kind == TK_EOF) fail(ps, SH_PARSE_INCOMPLETE, NULL);
}

static void unexpected(parser *ps, const char *wanted) __attribute__((noreturn));

static void unexpected(parser *ps, const char *wanted) {
    if (ps->tok.kind == TK_EOF && ps->depth > 0) fail(ps, SH_PARSE_INCOMPLETE, NULL);
    char buf[64];
    fail(ps, SH_PARSE_ERROR, "syntax error: expected %s, found %s", wanted,
         sh_token_describe(&ps->tok, buf, sizeof buf));
}

/* A growable list of values in the arena. */
typedef struct value_list {
    sh_value *items;
    size_t n, cap;
} value_list;

static sh_value *list_push(parser *ps, value_list *l) {
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 8;
        sh_value *items = sh_arena_alloc(ps->arena, cap * sizeof *items);
        if (!items) fail(ps, SH_PARSE_ERROR, "out of memory");
        if (l->n) memcpy(items, l->items, l->n * sizeof *items);
        l->items = items;
        l->cap = cap;
    }
    return &l->items[l->n++];
}

static void parse_value(parser *ps, sh_value *out);

/* Parses `key => value` pairs up to (not including) a token of kind @p end
 * (TK_RBRACE, or for a brace-less hash the end of the statement). The first
 * key has been parsed already when @p first_key is non-NULL. */
static void parse_pairs(parser *ps, sh_value *out, const sh_value *first_key, bool braced) {
    value_list l = { NULL, 0, 0 };
    if (first_key) {
        *list_push(ps, &l) = *first_key;
        /* the current token is '=>' */
        next_continuing(ps);
        parse_value(ps, list_push(ps, &l));
        if (ps->tok.kind == TK_COMMA) next_continuing(ps);
        else goto done;
    }
    while (!(braced && ps->tok.kind == TK_RBRACE)) {
        sh_value key;
        parse_value(ps, &key);
        if (key.kind == SH_HASH || key.kind == SH_ARRAY)
            fail(ps, SH_PARSE_ERROR, "syntax error: a hash key must be a string or a name");
        if (ps->tok.kind != TK_ARROW) unexpected(ps, "'=>'");
        *list_push(ps, &l) = key;
        next_continuing(ps);
        parse_value(ps, list_push(ps, &l));
        if (ps->tok.kind != TK_COMMA) break;
        next_continuing(ps);
    }
done:
    out->kind = SH_HASH;
    out->items = l.items;
    out->n = l.n / 2;
}

/* Parses one value starting at the current token and advances past it. */
static void parse_value(parser *ps, sh_value *out) {
    memset(out, 0, sizeof *out);
    switch (ps->tok.kind) {
    case TK_STRING:
        out->kind = SH_STR;
        out->str = ps->tok.str;
        out->len = ps->tok.len;
        next(ps);
        return;
    case TK_INT:
        out->kind = SH_INT;
        out->num = ps->tok.num;
        next(ps);
        return;
    case TK_WORD:
        out->kind = SH_CONST;
        out->str = ps->tok.str;
        out->len = ps->tok.len;
        next(ps);
        return;
    case TK_LBRACE:
        ps->depth++;
        next(ps);
        parse_pairs(ps, out, NULL, true);
        if (ps->tok.kind != TK_RBRACE) unexpected(ps, "',' or '}'");
        ps->depth--;
        next(ps);
        return;
    case TK_LBRACKET: {
        ps->depth++;
        next(ps);
        value_list l = { NULL, 0, 0 };
        while (ps->tok.kind != TK_RBRACKET) {
            parse_value(ps, list_push(ps, &l));
            if (ps->tok.kind == TK_COMMA) { next(ps); continue; }
            if (ps->tok.kind != TK_RBRACKET) unexpected(ps, "',' or ']'");
        }
        ps->depth--;
        next(ps);
        out->kind = SH_ARRAY;
        out->items = l.items;
        out->n = l.n;
        return;
    }
    default:
        unexpected(ps, "a value");
    }
}

static bool at_statement_end(const parser *ps) {
    sh_token_kind k = ps->tok.kind;
    return k == TK_EOF || k == TK_NEWLINE || k == TK_SEMI;
}

/* Parses the arguments of a command up to the end of the statement (or ')'
 * when @p parens). A `key => value` argument starts the trailing hash. */
static void parse_args(parser *ps, sh_command *out, bool parens) {
    value_list l = { NULL, 0, 0 };
    if (parens ? ps->tok.kind == TK_RPAREN : at_statement_end(ps)) goto done;
    for (;;) {
        sh_value v;
        parse_value(ps, &v);
        if (ps->tok.kind == TK_ARROW) {
            if (v.kind == SH_HASH || v.kind == SH_ARRAY)
                fail(ps, SH_PARSE_ERROR, "syntax error: a hash key must be a string or a name");
            parse_pairs(ps, list_push(ps, &l), &v, false);
            break;
        }
        *list_push(ps, &l) = v;
        if (ps->tok.kind != TK_COMMA) break;
        next_continuing(ps);
    }
done:
    out->args = l.items;
    out->nargs = l.n;
}

/* Skips to just past the next newline (or the end) after an error. */
static size_t skip_line(const char *text, size_t len, size_t pos) {
    while (pos < len && text[pos] != '\n') pos++;
    return pos < len ? pos + 1 : len;
}

/* The statement grammar proper; errors unwind to sh_parse via ps->fail. */
static void parse_statement(parser *ps, sh_command *out) {
    do {
        next(ps);
    } while (ps->tok.kind == TK_NEWLINE || ps->tok.kind == TK_SEMI);
    if (ps->tok.kind == TK_EOF) {
        ps->failure = SH_PARSE_EMPTY;
        return;
    }
    if (ps->tok.kind != TK_WORD) unexpected(ps, "a command name");
    out->name = ps->tok.str;
    next(ps);
    if (ps->tok.kind == TK_LPAREN) {
        ps->depth++;
        next(ps);
        parse_args(ps, out, true);
        if (ps->tok.kind != TK_RPAREN) unexpected(ps, "',' or ')'");
        ps->depth--;
        next(ps);
    } else {
        parse_args(ps, out, false);
    }
    if (!at_statement_end(ps)) unexpected(ps, "',' or the end of the command");
    ps->failure = SH_PARSE_OK;
}

/* Runs parse_statement under setjmp; only *ps is touched after a longjmp. */
static void parse_guarded(parser *ps, sh_command *out) {
    if (setjmp(ps->fail) == 0) parse_statement(ps, out);
}

sh_parse_result sh_parse(sh_command *out, const char *text, size_t len, size_t *pos,
                         sh_arena *arena, char *err, size_t errlen) {
    parser ps;
    memset(&ps, 0, sizeof ps);
    memset(out, 0, sizeof *out);
    sh_lexer_init(&ps.lx, text, len, arena);
    ps.lx.pos = *pos;
    ps.arena = arena;
    ps.err = err;
    ps.errlen = errlen;
    if (err && errlen) err[0] = '\0';
    parse_guarded(&ps, out);
    switch (ps.failure) {
    case SH_PARSE_OK:
        *pos = ps.lx.pos;
        break;
    case SH_PARSE_EMPTY:
        *pos = len;
        break;
    case SH_PARSE_ERROR: {
        size_t at = ps.lx.pos > ps.tok.pos ? ps.lx.pos : ps.tok.pos;
        if (ps.tok.kind == TK_NEWLINE) at = ps.tok.pos;
        *pos = skip_line(text, len, at);
        break;
    }
    case SH_PARSE_INCOMPLETE:
        break;
    }
    return ps.failure;
}
