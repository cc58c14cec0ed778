/*
 * The tokenizer of the shell language, a small subset of Ruby as the HBase
 * shell uses it: '...' strings (literal but for \\ and \'), "..." strings
 * with Ruby's escapes (\xNN, \n, \t, \r, \e, \s, \0, octal, \uNNNN), integers
 * (42, -7, 1_000, 0x1F), bare words, => { } [ ] ( ) , ; newlines and #
 * comments. Called by parser.c; decoded strings go into the arena.
 */
#ifndef CELLSH_LEXER_H
#define CELLSH_LEXER_H

#include <stddef.h>
#include <stdint.h>

#include "value.h"

typedef enum sh_token_kind {
    TK_EOF,
    TK_NEWLINE,
    TK_SEMI,
    TK_COMMA,
    TK_ARROW,       /* => */
    TK_LBRACE, TK_RBRACE,
    TK_LBRACKET, TK_RBRACKET,
    TK_LPAREN, TK_RPAREN,
    TK_STRING,      /* str/len hold the decoded bytes */
    TK_INT,         /* num */
    TK_WORD,        /* str/len: a bare word */
    TK_INCOMPLETE,  /* the text ends inside a string: read another line */
    TK_ERROR,       /* message in the lexer's err */
} sh_token_kind;

typedef struct sh_token {
    sh_token_kind kind;
    size_t pos;      /* offset of the token's first byte */
    char *str;
    size_t len;
    int64_t num;
} sh_token;

typedef struct sh_lexer {
    const char *text;
    size_t len;
    size_t pos;
    sh_arena *arena;
    char err[256];
} sh_lexer;

void sh_lexer_init(sh_lexer *lx, const char *text, size_t len, sh_arena *arena);
/* Reads the next token into *tok and returns its kind. */
sh_token_kind sh_lex(sh_lexer *lx, sh_token *tok);
/* A printable description of a token for messages ("','", "end of line"). */
const char *sh_token_describe(const sh_token *tok, char *buf, size_t len);

#endif
