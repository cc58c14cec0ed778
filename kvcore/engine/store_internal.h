/**
 * @file store_internal.h
 * The store handle and the catalog structures shared by the store modules:
 * store.c (open/close/recovery), catalog.c (namespaces, tables), write.c
 * (write queue, group commit), read.c (get/scan), matcher.c (visibility and
 * retention rules), flush.c (memstore switch, flush, compaction, background
 * thread), manifest.c (persisted catalog and file sets).
 *
 * Locking (outermost first):
 *   catalog_lock (rwlock)  shared by every read and write call while it
 *                          resolves names and applies; exclusive for catalog
 *                          changes (create, alter, drop, truncate).
 *   rmw_mu                 serialises read-modify-write calls (increment,
 *                          append, check-and-mutate, delete of the newest
 *                          version) so that each sees the previous one.
 *   mu                     guards the writer queue, family memstore and
 *                          file-set pointers, background state, counters.
 *   errmsg_mu              guards the message slots only (a leaf lock).
 * Memstores are written only by the current write leader (one at a time);
 * readers take references to memstores and file sets under mu and then read
 * without locks.
 */
#ifndef KV_STORE_INTERNAL_H
#define KV_STORE_INTERNAL_H

#include "kvcore.h"
#include "cache.h"
#include "coding.h"
#include "env.h"
#include "memstore.h"
#include "sst.h"
#include "wal.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

/* One sorted file of a family, shared by file sets; refcounted. */
typedef struct kv_sstfile {
    atomic_int refs;
    uint64_t number;
    kv_sst_meta meta;
    kv_sst_reader *reader;
    bool obsolete;              /* remove from disk at the last unref (mu) */
    struct kv_store *store;
} kv_sstfile;

/* An immutable set of files, newest first; refcounted. */
typedef struct kv_fileset {
    atomic_int refs;
    size_t n;
    kv_sstfile **files;
} kv_fileset;

typedef struct kv_family {
    kv_family_desc desc;        /* changed only under catalog_lock (excl) */
    uint32_t id;                /* store-unique; names WAL records and files */
    kv_memstore *mem;           /* active buffer or NULL (mu) */
    kv_memstore *imm;           /* being flushed or NULL (mu) */
    kv_fileset *files;          /* current file set (mu) */
    bool dropped;               /* removed from its table (mu) */
    bool compacting;            /* a compaction of it runs (mu) */
    struct kv_family *graveyard_next; /* dropped families, freed at close */
} kv_family;

typedef struct kv_table {
    char ns[KV_NAME_MAX + 1];
    char name[KV_NAME_MAX + 1];
    uint32_t id;
    bool enabled;
    size_t nfamilies;
    kv_family **families;       /* sorted by name */
} kv_table;

typedef struct kv_namespace {
    char name[KV_NAME_MAX + 1];
    size_t nprops;
    kv_property *props;         /* malloc'd keys and values */
} kv_namespace;

#define KV_ERRMSG_SLOTS 32

/* A writer waiting in the queue (write.c). */
typedef struct kv_writer kv_writer;

struct kv_store {
    char *dir;
    kv_store_options opts;
    kv_env *env;
    kv_file *lock;
    kv_cache *cache;

    pthread_rwlock_t catalog_lock;
    pthread_mutex_t rmw_mu;
    pthread_mutex_t mu;
    pthread_cond_t bg_cv;       /* background work finished a step */
    pthread_cond_t work_cv;     /* the flush thread has work */
    pthread_cond_t compact_cv;  /* the compaction thread has work */

    /* catalog (catalog_lock) */
    size_t nnamespaces;
    kv_namespace *namespaces;
    size_t ntables;
    kv_table **tables;
    uint32_t next_id;
    kv_family *graveyard;

    /* log and sequence (mu, and the write leader) */
    kv_wal_writer *wal;
    uint64_t wal_number;
    uint64_t log_number;        /* logs below this are flushed */
    uint64_t next_file;
    uint64_t last_seq;          /* last assigned (leader) */
    atomic_uint_fast64_t visible_seq; /* last published to readers */
    int64_t clock_floor;        /* next implicit timestamp is >= this */
    size_t mem_bytes;           /* bytes added to memstores since the
                                   last switch (mu) */
    kv_buf leader_record;       /* the write leader's record buffer */

    /* writer queue (mu) */
    kv_writer *queue_head, *queue_tail;

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

    bool read_only;

    /* Failure messages, one per calling thread, so that one thread's
       failure never rewrites the text another is reading (errmsg_mu). */
    pthread_mutex_t errmsg_mu;
    struct kv_errslot {
        bool used;
        pthread_t thread;
        char text[512];
    } errslots[KV_ERRMSG_SLOTS];
    size_t errslot_next;
    char bg_errmsg[512];        /* the last background failure */
};

/* ---- store.c ---- */
/* Records a call's failure message on the store; returns status. */
kv_status kv_fail(kv_store *s, kv_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Fails a call because background work failed: the caller's message
   says what it was doing and why the background work failed. */
kv_status kv_fail_background(kv_store *s, kv_status status, const char *what);
/* Reports a background event to the log sink (errors also become the
   store's last failure message). */
void kv_log(kv_store *s, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int64_t kv_clock_now(kv_store *s);
/* KV_OK if an options struct's version field is one this library knows;
   else records a message naming the struct and returns KV_INVALID. */
kv_status kv_check_version(kv_store *s, const char *what, int got, int want);

/* ---- filename.c: the one owner of file names ---- */
char *kv_filename_sst(const char *dir, uint64_t number);
char *kv_filename_log(const char *dir, uint64_t number);
char *kv_filename_manifest(const char *dir);
char *kv_filename_lock(const char *dir);
/* Parses "000012.sst" / "000012.log"; returns 's', 'l' or 0. */
char kv_filename_parse(const char *name, uint64_t *number);

/* ---- catalog.c ---- */
/* Resolves "ns:t" or "t" (catalog_lock held). NULL if absent or invalid. */
kv_table *kv_catalog_find(kv_store *s, const char *table);
kv_family *kv_table_family(const kv_table *t, const char *name);
kv_family *kv_family_new(const kv_family_desc *desc, uint32_t id);
void kv_family_free(kv_family *f);
void kv_table_free(kv_table *t);
kv_status kv_split_table_name(const char *full, char *ns, char *name);
/* Validates a family descriptor's attributes. */
kv_status kv_family_desc_check(const kv_family_desc *f, char *err, size_t errlen);

/* ---- fileset ---- */
void kv_sstfile_unref(kv_sstfile *f);
kv_fileset *kv_fileset_new(size_t n);
void kv_fileset_ref(kv_fileset *fs);
void kv_fileset_unref(kv_fileset *fs);

/* ---- manifest.c ---- */
/* Writes the whole catalog and file sets atomically (mu held). */
kv_status kv_manifest_write(kv_store *s);
/* Loads the manifest into an empty store handle (at open). */
kv_status kv_manifest_load(kv_store *s, const uint8_t *data, size_t len);

/* ---- write.c ---- */
/* Applies mutations through the writer queue. tables[i] resolved under the
   caller's shared catalog_lock. */
kv_status kv_write_apply(kv_store *s, kv_table *t, kv_mutation *const *ms, size_t n,
                         kv_status *statuses, kv_durability d);
/* Forces a memstore switch and waits until it is flushed. */
kv_status kv_write_flush(kv_store *s);
/* Replays one WAL record at open. */
kv_status kv_write_replay(kv_store *s, const uint8_t *rec, size_t len);

/* ---- read.c ---- */
/* The newest visible value of one cell (catalog_lock held). */
kv_status kv_read_newest(kv_store *s, kv_table *t, const void *row, size_t row_len,
                         const char *family, const void *q, size_t qlen, bool *found, int64_t *ts,
                         kv_buf *value);

/* ---- flush.c ---- */
kv_status kv_bg_start(kv_store *s);
void kv_bg_stop(kv_store *s);
/* Creates log file @p number, durably named in the directory. */
kv_status kv_open_new_log(kv_store *s, uint64_t number, kv_wal_writer **out);
/* Opens a new log and moves every mem to imm (mu held, leader). */
kv_status kv_switch_memstores(kv_store *s);
/* Runs a compaction of every family of t (NULL: all) and waits. */
kv_status kv_compact_now(kv_store *s, kv_table *t, bool major);
/* Writes the set-aside (imm) memstores to sorted files and records them in
   the manifest; the flush thread's work. */
kv_status kv_flush_imm(kv_store *s);

/* ---- mutation.c ---- */
typedef struct kv_op {
    uint32_t family_index;      /* position in the mutation's family names */
    kv_cell_type type;
    int64_t ts;
    uint32_t qoff, qlen;        /* qualifier bytes in m->bytes */
    uint32_t voff, vlen;        /* value bytes in m->bytes */
    bool whole_row;             /* delete_row: expands to every family */
} kv_op;

struct kv_mutation {
    kv_buf bytes;               /* row, qualifiers and values */
    size_t row_len;             /* row is bytes.data[0..row_len) */
    size_t nops, capops;
    kv_op *ops;
    size_t nfamilies;
    char **families;            /* distinct family names used */
};

/* ---- matcher.c: which cells a read returns, which a flush or compaction
   keeps. One owner of VERSIONS, MIN_VERSIONS, TTL, KEEP_DELETED_CELLS,
   delete-marker masking and NEW_VERSION_BEHAVIOR. ---- */
typedef enum kv_match_mode {
    KV_MATCH_READ,              /* user get/scan */
    KV_MATCH_MINOR,             /* flush / minor compaction: keep markers */
    KV_MATCH_MAJOR,             /* major compaction: drop markers */
} kv_match_mode;

typedef struct kv_matcher {
    kv_match_mode mode;
    const kv_family_desc *family;
    uint64_t snapshot;          /* entries with larger seq are invisible */
    int64_t now_ms;
    int32_t max_versions;       /* READ: from options; else family VERSIONS */
    int64_t time_min, time_max; /* [min, max) READ only */
    bool raw;
    /* per-row state */
    size_t nfam_markers, cap_fam_markers;
    struct kv_fam_marker { int64_t ts; uint64_t seq; kv_cell_type type; } *fam_markers;
    /* per-column state */
    size_t ndeletes, cap_deletes;
    struct kv_ver_delete { int64_t ts; uint64_t seq; } *deletes;
    int64_t col_delete_ts; uint64_t col_delete_seq; bool has_col_delete;
    int32_t versions;           /* versions counted in this column */
    bool have_last_put_ts; int64_t last_put_ts;
} kv_matcher;

void kv_matcher_init(kv_matcher *m, kv_match_mode mode, const kv_family_desc *family,
                     uint64_t snapshot, int64_t now_ms);
void kv_matcher_free(kv_matcher *m);
void kv_matcher_start_row(kv_matcher *m);
void kv_matcher_start_column(kv_matcher *m);
/* Decides one entry of the current row/column (entries arrive in key
   order). Returns true if it is returned (READ) or kept (compactions). */
bool kv_matcher_match(kv_matcher *m, int64_t ts, kv_cell_type type, uint64_t seq, bool family_kind);

#endif
