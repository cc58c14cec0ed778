/*
 * The statement parser: turns shell text into commands, a command word and
 * its arguments, as in `put 't', 'r', 'f:q', 'v'`, `scan 't', {LIMIT => 2}`,
 * `get('t', 'r')` or Ruby's brace-less trailing hash `create 't', NAME =>
 * 'f'`. Statements end at a newline or ';' unless a bracket, a trailing ','
 * or '=>' or a string is still open, in which case the text is incomplete
 * and the caller reads another line. Called by repl.c; uses lexer.c.
 */
#ifndef CELLSH_PARSER_H
#define CELLSH_PARSER_H

#include <stddef.h>

#include "value.h"

typedef struct sh_command {
    const char *name;    /* the command word */
    sh_value *args;
    size_t nargs;
} sh_command;

typedef enum sh_parse_result {
    SH_PARSE_OK,          /* *out holds one statement */
    SH_PARSE_EMPTY,       /* only blanks, comments and separators were left */
    SH_PARSE_INCOMPLETE,  /* the text ends inside a statement */
    SH_PARSE_ERROR,       /* message in err */
} sh_parse_result;

/*
 * Parses the next statement of text[0..len) starting at *pos. On OK and
 * EMPTY, *pos moves past the statement and its terminator. On ERROR, *pos
 * moves past the end of the offending line so that the caller can go on.
 * Values are allocated in @p arena.
 */
sh_parse_result sh_parse(sh_command *out, const char *text, size_t len, size_t *pos,
                         sh_arena *arena, char *err, size_t errlen);

#endif
