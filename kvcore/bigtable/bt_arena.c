/**
 * @file bt_arena.c
 * The request allocation pool (see bt_arena.h): a list of malloc'd blocks,
 * one per allocation, since requests hold few and mostly small objects.
 */
#include "bt_arena.h"

#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

struct bt_arena_block {
    struct bt_arena_block *next;
    alignas(max_align_t) unsigned char data[];
};

void *bt_arena_alloc(bt_arena *a, size_t n) {
    struct bt_arena_block *b = calloc(1, sizeof *b + (n ? n : 1));
    if (!b) return NULL;
    b->next = a->head;
    a->head = b;
    return b->data;
}

void *bt_arena_dup(bt_arena *a, const void *p, size_t n) {
    void *d = bt_arena_alloc(a, n);
    if (d && n) memcpy(d, p, n);
    return d;
}

char *bt_arena_strdup(bt_arena *a, const char *s) {
    return bt_arena_dup(a, s, strlen(s) + 1);
}

void bt_arena_free(bt_arena *a) {
    while (a->head) {
        struct bt_arena_block *next = a->head->next;
        free(a->head);
        a->head = next;
    }
}
