/**
 * @file schema_cache.c
 * Table ids and cached schemas (schema_cache.h). The cache is a small
 * array keyed by table id under cache_mu; lookups copy what they need into
 * a block of the caller's, so that no lock is held across a call to the
 * server and a schema may be replaced while others still read their copy.
 */
#include "schema_cache.h"
#include "handle.h"
#include "hbase/schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int64_t monotonic_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

kv_status btb_table_id(btb_store *s, const char *table, char id[BT_MAX_TABLE_ID + 1]) {
    char ns[KV_NAME_MAX + 1], name[KV_NAME_MAX + 1];
    if (kv_split_table_name(table, ns, name) != KV_OK)
        return btb_refuse(s, KV_INVALID, "illegal table name '%s'", table ? table : "(null)");
    bt_status st;
    if (bt_table_id(id, BT_MAX_TABLE_ID + 1, table, &st) != BT_OK)
        return btb_refuse(s, KV_NOT_SUPPORTED, "table '%s': %s", table, st.msg);
    return KV_OK;
}

/* A copy of @p sc for the caller, named @p table. */
static btb_table *copy_out(const char *table, const char *id, const bt_schema *sc) {
    size_t bytes = sizeof(btb_table) + sc->nfamilies * sizeof(bt_family_rules);
    for (size_t i = 0; i < sc->nfamilies; i++) bytes += strlen(sc->families[i].name) + 1;
    btb_table *t = calloc(1, bytes);
    if (!t) return NULL;
    snprintf(t->name, sizeof t->name, "%s", table);
    snprintf(t->id, sizeof t->id, "%s", id);
    t->fams = (bt_family_rules *)(t + 1);
    t->nfams = sc->nfamilies;
    char *p = (char *)(t->fams + t->nfams);
    for (size_t i = 0; i < sc->nfamilies; i++) {
        t->fams[i] = sc->families[i];
        size_t n = strlen(sc->families[i].name) + 1;
        memcpy(p, sc->families[i].name, n);
        t->fams[i].name = p;
        p += n;
    }
    return t;
}

/* The cache slot of @p id, or NULL (cache_mu held). */
static btb_cached *slot_of(btb_store *s, const char *id) {
    for (size_t i = 0; i < s->ncache; i++)
        if (strcmp(s->cache[i].id, id) == 0) return &s->cache[i];
    return NULL;
}

/* Drops slot @p c (cache_mu held). */
static void drop_slot(btb_store *s, btb_cached *c) {
    bt_schema_clear(&c->schema);
    *c = s->cache[--s->ncache];
}

/* Keeps @p sc (taken over) as the schema of @p id; on failure to grow the
   cache it is simply not cached. */
static void remember(btb_store *s, const char *id, bt_schema *sc) {
    if (s->cache_ms < 0) {
        bt_schema_clear(sc);
        return;
    }
    pthread_mutex_lock(&s->cache_mu);
    btb_cached *c = slot_of(s, id);
    if (c) drop_slot(s, c);
    if (s->ncache == s->capcache) {
        size_t cap = s->capcache ? 2 * s->capcache : 8;
        btb_cached *grown = realloc(s->cache, cap * sizeof *grown);
        if (grown) {
            s->cache = grown;
            s->capcache = cap;
        }
    }
    if (s->ncache < s->capcache) {
        c = &s->cache[s->ncache++];
        snprintf(c->id, sizeof c->id, "%s", id);
        c->schema = *sc;
        c->fetched_ms = monotonic_ms();
    } else {
        bt_schema_clear(sc);
    }
    pthread_mutex_unlock(&s->cache_mu);
}

kv_status btb_table_get(btb_store *s, const char *table, bool fresh, btb_table **out) {
    *out = NULL;
    char id[BT_MAX_TABLE_ID + 1];
    kv_status rc = btb_table_id(s, table, id);
    if (rc != KV_OK)   /* no Bigtable table can have this name */
        return btb_refuse(s, KV_NOT_FOUND, "table '%s' does not exist", table ? table : "(null)");
    if (!fresh && s->cache_ms >= 0) {
        pthread_mutex_lock(&s->cache_mu);
        btb_cached *c = slot_of(s, id);
        if (c && monotonic_ms() - c->fetched_ms <= s->cache_ms)
            *out = copy_out(table, id, &c->schema);
        bool hit = c && *out;
        pthread_mutex_unlock(&s->cache_mu);
        if (hit) return KV_OK;
    }
    bt_schema sc;
    bt_status st;
    bt_code code = bt_get_table(s->client, id, &sc, &st);
    /* BT_UNSUPPORTED: a family with a GC rule of another tool, kept with
       no limits of its own; the table is still usable. */
    if (code == BT_NOT_FOUND) {
        btb_cache_forget(s, id);
        return btb_refuse(s, KV_NOT_FOUND, "table '%s' does not exist", table);
    }
    if (code != BT_OK && code != BT_UNSUPPORTED) return btb_fail(s, &st, "table '%s'", table);
    *out = copy_out(table, id, &sc);
    if (!*out) {
        bt_schema_clear(&sc);
        return KV_NO_MEMORY;
    }
    remember(s, id, &sc);
    return KV_OK;
}

void btb_table_free(btb_table *t) { free(t); }

const bt_family_rules *btb_table_family(const btb_table *t, const char *name) {
    for (size_t i = 0; name && i < t->nfams; i++)
        if (strcmp(t->fams[i].name, name) == 0) return &t->fams[i];
    return NULL;
}

void btb_cache_forget(btb_store *s, const char *id) {
    pthread_mutex_lock(&s->cache_mu);
    btb_cached *c = slot_of(s, id);
    if (c) drop_slot(s, c);
    pthread_mutex_unlock(&s->cache_mu);
}

void btb_cache_clear(btb_store *s) {
    pthread_mutex_lock(&s->cache_mu);
    while (s->ncache) drop_slot(s, &s->cache[0]);
    free(s->cache);
    s->cache = NULL;
    s->capcache = 0;
    pthread_mutex_unlock(&s->cache_mu);
}
