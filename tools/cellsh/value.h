/*
 * Values of the shell language (strings, integers, constants, hashes,
 * arrays) and the arena they live in. The parser builds them; the commands
 * read them through args.h. Everything a statement allocates is freed at
 * once with its arena when the statement is done.
 */
#ifndef CELLSH_VALUE_H
#define CELLSH_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum sh_kind {
    SH_STR,     /* '...' or "...": bytes in str/len (also NUL-terminated) */
    SH_INT,     /* 42, -1: num */
    SH_CONST,   /* a bare word: FOREVER, LZ4, true, nil, NAME: str/len */
    SH_HASH,    /* {K => V, ...}: items holds n (key, value) pairs, 2n values */
    SH_ARRAY,   /* [a, b]: items holds n values */
} sh_kind;

typedef struct sh_value sh_value;
struct sh_value {
    sh_kind kind;
    char *str;
    size_t len;
    int64_t num;
    sh_value *items;
    size_t n;
};

/* A bump allocator; sh_arena_free releases every block at once. */
typedef struct sh_arena_block sh_arena_block;
typedef struct sh_arena {
    sh_arena_block *head;
} sh_arena;

#define SH_ARENA_INIT { NULL }

/* Zeroed memory, or NULL when out of memory. */
void *sh_arena_alloc(sh_arena *a, size_t n);
/* A NUL-terminated copy of n bytes. */
char *sh_arena_strndup(sh_arena *a, const char *s, size_t n);
void sh_arena_free(sh_arena *a);

/* The name of a kind for error messages ("a string", "a hash"). */
const char *sh_kind_name(sh_kind kind);

#endif
