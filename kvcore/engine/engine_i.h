/**
 * @file engine_i.h
 * The handle of the local LSM engine (struct kv_engine) and its locking:
 * the data every engine module works on. It declares no functions; each
 * module has its own header (tables.h, fileset.h, write.h, flush.h,
 * compact.h, read.h, ...), and the engine's types appear here only as
 * pointers, so that this header includes nothing of the engine and every
 * engine module may include it without a cycle.
 *
 * Locking (outermost first):
 *   catalog_lock (rwlock)  shared by every read and write call while it
 *                          resolves names and applies; exclusive for catalog
 *                          changes (create, alter, drop, truncate).
 *   manifest_mu            held around a catalog or file-set change and the
 *                          manifest write that makes it durable (manifest.h);
 *                          the I/O runs under it, never under mu.
 *   rmw_mu                 serialises read-modify-write calls (increment,
 *                          append, check-and-mutate, delete of the newest
 *                          version) so that each sees the previous one.
 *   mu                     guards the writer queue, family memstore and
 *                          file-set pointers, background state, counters.
 *                          Holds are kept short (the memstore switch
 *                          releases it to create the new log), and it is
 *                          an adaptive mutex (store.c).
 *   report->mu             guards the failure messages only (a leaf lock).
 * Memstores are written only by the current write leader (one at a time);
 * readers take references to memstores and file sets under mu and then read
 * without locks.
 */
#ifndef KV_ENGINE_I_H
#define KV_ENGINE_I_H

#include "kvcore.h"
#include "util/clock.h"
#include "util/coding.h"
#include "util/env.h"
#include "util/report.h"

#include <pthread.h>
#include <stdatomic.h>

struct kv_table;
struct kv_namespace;
struct kv_family;
struct kv_wal_writer;
struct kv_cache;
struct kv_writer;

typedef struct kv_engine kv_engine;

/* Closed scans an engine keeps for reuse: one per reader thread is enough. */
#define KV_SCAN_POOL 4

struct kv_engine {
    char *dir;
    kv_store_options opts;      /* as given to open, defaults applied */
    kv_local_options local;     /* a copy of *opts.local, or the defaults */
    kv_env *env;
    kv_file *lock;
    struct kv_cache *cache;
    kv_clock clock;
    kv_report *report;          /* failure messages and the log sink; the
                                   api's store owns it */

    pthread_rwlock_t catalog_lock;
    pthread_mutex_t rmw_mu;
    pthread_mutex_t mu;
    pthread_cond_t bg_cv;       /* background work finished a step */
    pthread_cond_t work_cv;     /* the flush thread has work */
    pthread_cond_t compact_cv;  /* the compaction thread has work */

    /* catalog (catalog_lock) */
    size_t nnamespaces;
    struct kv_namespace *namespaces;
    size_t ntables;
    struct kv_table **tables;
    uint32_t next_id;
    struct kv_family *graveyard; /* dropped families, freed at close */
    uint64_t catalog_gen;       /* bumped by every catalog change (catalog
                                   lock exclusive): a pooled scan's cached
                                   table (read.c) holds while it is equal */
    /* The table last resolved for writing (mutate.c writable_table): set
       at most once a catalog generation, by the writer whose compare-and-
       swap of write_table_state from another generation's value to
       2 * catalog_gen + 3 won; ready (2 * catalog_gen + 2, release) once
       name and table are written, never written again in that generation */
    _Atomic uint64_t write_table_state;
    struct kv_table *write_table;
    char write_table_name[2 * KV_NAME_MAX + 2];   /* "ns:name" as asked */

    /* log and sequence (mu, and the write leader) */
    struct kv_wal_writer *wal;
    uint64_t wal_number;
    uint64_t log_number;        /* logs below this are flushed */
    uint64_t next_file;
    uint64_t last_seq;          /* last assigned (leader) */
    atomic_uint_fast64_t visible_seq; /* last published to readers */
    int64_t clock_floor;        /* next implicit timestamp is >= this */
    size_t mem_bytes;           /* bytes added to memstores since the
                                   last switch (mu) */
    size_t imm_bytes;           /* mem_bytes at the switch whose memstores
                                   are being flushed, 0 when none (mu) */
    uint64_t write_stalls;      /* times a write waited for a flush (mu) */
    kv_buf leader_record;       /* the write leader's record buffer */
    kv_buf insert_key;          /* the internal key being inserted (the
                                   leader's, or recovery's) */
    kv_buf rmw_value;           /* the value a read-modify-write or
                                   check-and-mutate read (rmw_mu) */

    /* writer queue (mu) */
    struct kv_writer *queue_head, *queue_tail;

    /* background (mu) */
    pthread_t bg_thread;
    bool bg_started;
    bool shutting_down;
    bool flush_pending;         /* imm memstores wait to be written */
    uint64_t pending_log_number;/* first log not covered by the imms */
    kv_status bg_error;         /* a failed background step; writes refuse */
    pthread_t compact_thread;
    bool compact_started;
    bool compaction_wanted;     /* a flush added files since the last pass */
    uint64_t flushes, compactions;

    /* manifest (manifest_mu; see manifest.h) */
    pthread_mutex_t manifest_mu;
    bool manifest_snapshot_needed; /* the next save rewrites the whole file */
    uint64_t manifest_size;     /* bytes in MANIFEST */
    uint64_t manifest_base;     /* bytes of its snapshot part */
    uint64_t manifest_edits;    /* edits appended after the snapshot */

    bool read_only;
    bool salvage;               /* read-only open for kv_store_salvage: log
                                   damage ends that log's replay instead of
                                   failing the open; a missing or
                                   damaged manifest is read as far as it
                                   can be (manifest.c) */
    bool manifest_damaged;      /* salvage: the manifest was missing or
                                   damaged, so sorted files it does not
                                   name and log cells of ids it does not
                                   know are the store's data (check.c) */

    /* closed scans kept with their buffers for the next get (read.c);
       a slot is taken and given back with atomic exchanges */
    _Atomic(struct kv_engine_scan *) scan_pool[KV_SCAN_POOL];
};

#endif
