/*
 * Row mutations collected and applied in batches with kv_mutate_batch: each
 * row is atomic, a batch is not. Used by import (transfer_*.c) and by
 * deleteall with a row prefix (cmd_write.c); implemented in batch.c.
 */
#ifndef CELLSH_BATCH_H
#define CELLSH_BATCH_H

#include <stddef.h>

#include "kvcore.h"
#include "shell.h"

#define SH_BATCH_MAX 256

typedef struct sh_batch {
    cellsh *sh;
    const char *table;
    size_t max;                        /* mutations per batch, 1..SH_BATCH_MAX */
    kv_mutation *ms[SH_BATCH_MAX];
    kv_status statuses[SH_BATCH_MAX];
    size_t n;
    size_t bytes;
} sh_batch;

/* An empty batch of up to SH_BATCH_MAX mutations (or 4 MiB) for @p table. */
void sh_batch_init(sh_batch *b, cellsh *sh, const char *table);
/* Takes ownership of m; applies the batch when it is full. Returns 0, or
 * -1 after printing the ERROR: line of a failed write. */
int sh_batch_add(sh_batch *b, kv_mutation *m, size_t bytes);
/* Applies what the batch holds; 0 or -1 as sh_batch_add. */
int sh_batch_flush(sh_batch *b);
/* Frees what the batch holds without applying it. */
void sh_batch_discard(sh_batch *b);

#endif
