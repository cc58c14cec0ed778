/**
 * @file store_i.h
 * The Cloud Bigtable backend's handle (a kv_backend of hbase/backend.h,
 * reached by "bigtable://PROJECT/INSTANCE"): the client of stage 1
 * (bt_client.h) that owns the gRPC channels, the store's clock, the limits,
 * and the cache of table schemas. Declares no functions; each module of the
 * backend (backend.c, errors.c, schema_cache.c, catalog.c, mutate.c,
 * rowcas.c, scan.c) declares its own in its own header, so that every one
 * can include this file without a cycle.
 *
 * Thread safety: the handle is shared by every thread of the store (FUSE's
 * workers all use one). The client and its channels are immutable after
 * open and thread-safe (gRPC channels are); last_ts is atomic; the schema
 * cache is guarded by cache_mu, a leaf lock held for no call to the server.
 */
#ifndef KV_BIGTABLE_STORE_I_H
#define KV_BIGTABLE_STORE_I_H

#include "bt_client.h"
#include "hbase/backend.h"
#include "util/clock.h"

#include <pthread.h>
#include <stdatomic.h>

/* A table's schema as Bigtable keeps it, cached by table id. */
typedef struct btb_cached {
    char id[BT_MAX_TABLE_ID + 1];
    bt_schema schema;           /* families sorted by name */
    int64_t fetched_ms;         /* monotonic clock of the GetTable */
} btb_cached;

typedef struct btb_store {
    bt_client *client;          /* data and admin channels; immutable */
    kv_report *report;          /* failure messages (the api's, outlives us) */
    kv_clock clock;             /* implicit timestamps and TTL */
    _Atomic int64_t last_ts;    /* the largest clock value handed out */
    size_t max_value_size;      /* kv_store_options.max_value_size */
    int64_t cache_ms;           /* how long a cached schema is used; < 0: never */

    pthread_mutex_t cache_mu;   /* guards the fields below */
    btb_cached *cache;          /* (cache_mu) */
    size_t ncache, capcache;    /* (cache_mu) */
} btb_store;

#endif
