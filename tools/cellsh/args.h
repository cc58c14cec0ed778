/*
 * Reading command arguments: names, byte strings, integers, booleans,
 * attribute text, option hashes (with a check against the options a command
 * knows) and "family:qualifier" columns. Each reader prints the ERROR: line
 * itself and returns -1 on a bad argument. Implemented in args.c; used by
 * the cmd_*.c files.
 */
#ifndef CELLSH_ARGS_H
#define CELLSH_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "convert.h"
#include "shell.h"
#include "value.h"

/* A table, namespace or family name: a non-empty string without NUL bytes. */
int sh_arg_name(cellsh *sh, const sh_value *v, const char *what, const char **out);
/* Any string (a row, a value). Integers are accepted as their decimal text,
 * as the HBase shell's to_s does. */
int sh_arg_bytes(cellsh *sh, const sh_value *v, const char *what, const char **p, size_t *len);
/* An integer; digit strings are accepted too. */
int sh_arg_int(cellsh *sh, const sh_value *v, const char *what, int64_t *out);
/* true/false as bare words or strings. */
int sh_arg_bool(cellsh *sh, const sh_value *v, const char *what, bool *out);
/* The text of a scalar (string, integer or bare word) for attribute values;
 * returns -1 for hashes, arrays and strings holding NUL bytes. */
int sh_value_text(cellsh *sh, const sh_value *v, const char *what, char *buf, size_t len);

/* Appends v as Ruby's inspect shows it, for messages that quote HBase's:
 * {"VERSIONS"=>3}, "text", [1, 2], true. Bare words other than true,
 * false and nil are HBase constants, whose values are their names. */
void sh_value_inspect(sh_buf *b, const sh_value *v);

/* True when v is a string or bare word equal to s (case-insensitive). */
bool sh_value_is(const sh_value *v, const char *s);
/* The value stored under key in a hash (keys compare case-insensitively),
 * or NULL. */
const sh_value *sh_hash_get(const sh_value *hash, const char *key);
/* Fails with "Unknown option KEY for CMD" for a key not in @p allowed
 * (a NULL-terminated list). */
int sh_hash_check(cellsh *sh, const sh_value *hash, const char *const *allowed, const char *cmd);

/* A column "family:qualifier" or "family"; the family is copied into the
 * statement arena, the qualifier points into the string. */
typedef struct sh_column {
    const char *family;
    const char *qualifier;    /* NULL: the whole family */
    size_t qualifier_len;
} sh_column;
int sh_arg_column(cellsh *sh, const sh_value *v, sh_column *out);
/* A column of one cell: like sh_arg_column, but "f" means the empty
 * qualifier, as in HBase's put 't', 'r', 'f', 'v'. */
int sh_arg_cell_column(cellsh *sh, const sh_value *v, sh_column *out);

#endif
