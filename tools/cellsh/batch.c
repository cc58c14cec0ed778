/*
 * Batches of row mutations (see batch.h): collected, applied with
 * kv_mutate_batch, freed.
 */
#include "batch.h"

#define SH_BATCH_BYTES (4u << 20)

void sh_batch_init(sh_batch *b, cellsh *sh, const char *table) {
    b->sh = sh;
    b->table = table;
    b->max = SH_BATCH_MAX;
    b->n = 0;
    b->bytes = 0;
}

int sh_batch_flush(sh_batch *b) {
    if (b->n == 0) return 0;
    kv_status st = kv_mutate_batch(b->sh->store, b->table, b->ms, b->n, b->statuses,
                                   &b->sh->wopts);
    sh_batch_discard(b);
    if (st != KV_OK) return sh_kv_error(b->sh, st, b->table);
    return 0;
}

int sh_batch_add(sh_batch *b, kv_mutation *m, size_t bytes) {
    b->ms[b->n++] = m;
    b->bytes += bytes;
    if (b->n >= b->max || b->bytes >= SH_BATCH_BYTES) return sh_batch_flush(b);
    return 0;
}

void sh_batch_discard(sh_batch *b) {
    for (size_t i = 0; i < b->n; i++) kv_mutation_free(b->ms[i]);
    b->n = 0;
    b->bytes = 0;
}
