/**
 * @file bt_arena.h
 * An allocation pool for building one request: the protobuf-c messages a
 * request is made of are allocated here and freed together once it is
 * sent. Used by bt_map.c and bt_client.c; calls libc.
 */
#ifndef CELLFS_BT_ARENA_H
#define CELLFS_BT_ARENA_H

#include <stddef.h>

typedef struct bt_arena {
    struct bt_arena_block *head;
} bt_arena;

#define BT_ARENA_INIT { NULL }

/** Zeroed memory of @p n bytes that lives until bt_arena_free; NULL when
 *  out of memory. */
void *bt_arena_alloc(bt_arena *a, size_t n);

/** A copy of @p n bytes (NULL when out of memory). */
void *bt_arena_dup(bt_arena *a, const void *p, size_t n);

/** A copy of a NUL-terminated string. */
char *bt_arena_strdup(bt_arena *a, const char *s);

/** Frees everything allocated from @p a; it can be used again after. */
void bt_arena_free(bt_arena *a);

#endif
