/*
 * What the kvcore engine shares with the engines that run its calls on
 * another location (engine_bigtable.c): e->db is the kvcore engine's own
 * handle (the store and the mutation check-and-put reuses), so a store
 * opened elsewhere is handed to it here before the kvcore engine's calls
 * run, and taken back before it is closed.
 */
#ifndef CELLBENCH_ENGINE_KVCORE_H
#define CELLBENCH_ENGINE_KVCORE_H

#include "engine.h"
#include "kvcore.h"

/** Makes the open store @p s e's database (e->db). Returns 0, or -1 with
    e->err set when out of memory (@p s is then still the caller's). */
int engine_kvcore_adopt(engine *e, kv_store *s);

/** The store of e's database, or NULL when none is open. */
kv_store *engine_kvcore_store(const engine *e);

/** Frees e's database handle and returns its store (the caller closes
    it); e->db is NULL afterwards. NULL when none is open. */
kv_store *engine_kvcore_disown(engine *e);

#endif
