/*
 * The statement arena and value helpers declared in value.h. Used by the
 * parser and the commands; calls only libc.
 */
#include "value.h"

#include <stdlib.h>
#include <string.h>

struct sh_arena_block {
    sh_arena_block *next;
    size_t used, size;
    max_align_t data[];
};

#define SH_ARENA_BLOCK (16u << 10)

void *sh_arena_alloc(sh_arena *a, size_t n) {
    size_t align = sizeof(max_align_t);
    n = (n + align - 1) / align * align;
    if (n == 0) n = align;
    sh_arena_block *b = a->head;
    if (!b || b->size - b->used < n) {
        size_t size = n > SH_ARENA_BLOCK ? n : SH_ARENA_BLOCK;
        b = malloc(sizeof *b + size);
        if (!b) return NULL;
        b->next = a->head;
        b->used = 0;
        b->size = size;
        a->head = b;
    }
    void *p = (char *)b->data + b->used;
    b->used += n;
    memset(p, 0, n);
    return p;
}

char *sh_arena_strndup(sh_arena *a, const char *s, size_t n) {
    char *p = sh_arena_alloc(a, n + 1);
    if (!p) return NULL;
    if (n) memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

void sh_arena_free(sh_arena *a) {
    sh_arena_block *b = a->head;
    while (b) {
        sh_arena_block *next = b->next;
        free(b);
        b = next;
    }
    a->head = NULL;
}

const char *sh_kind_name(sh_kind kind) {
    switch (kind) {
    case SH_STR: return "a string";
    case SH_INT: return "an integer";
    case SH_CONST: return "a constant";
    case SH_HASH: return "a hash";
    case SH_ARRAY: return "an array";
    }
    return "a value";
}
