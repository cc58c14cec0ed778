/**
 * @file fs.h
 * The cellfs daemon's shared state and the small contracts between its
 * modules: the mount context (one per mount, the session's user data:
 * lowlevel.c passes it to every operation), logging, status -> errno, store helpers (cells.c),
 * pending directories and scratch files (pending.c), schema text
 * (ops_schema.c) and the operation tables (ops_*.c) that main.c assembles.
 *
 * Locking: fs->mu guards the handle registry, the pending and young rows, the
 * scratch files and the unlinked .schema names; each open handle has its
 * own mutex (open_file.h); fs->stamp_mu is held from choosing a cell
 * mutation's timestamp until the store has the mutation. Lock order: a
 * handle's mu, then fs->stamp_mu, then fs->mu; fs->mu is innermost and
 * held briefly (no kvcore call and no other lock is taken under it), and
 * the fs_handles_* helpers take references under fs->mu, drop it, and only
 * then lock each handle. The node table (nodes.h) has its own mutex,
 * innermost of all, as have the families kept (families.c), the row read
 * last (rowmemo.c), the rows' and families' times (dirtime.c, which also
 * counts fs->commits under it), the full-disk check's last look (room_mu)
 * and the evicting thread's wait (evict.c): no lock is taken under them.
 */
#ifndef CELLFS_FS_H
#define CELLFS_FS_H

#define FUSE_USE_VERSION 312
#include <fuse_lowlevel.h>
#include <kvcore.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>

#include "nodes.h"
#include "path.h"

/** The time @p ms from now on CLOCK_MONOTONIC, for pthread_cond_timedwait
    on a condition variable made with that clock (leases.c, evict.c). */
static inline struct timespec fs_deadline_in(long ms)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    t.tv_sec += ms / 1000;
    t.tv_nsec += (ms % 1000) * 1000000L;
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
    }
    return t;
}

struct fs_handle;
struct fs_scratch;
struct fs_rowent;
struct fs_dirh;
typedef struct fs_rowmemo fs_rowmemo;
typedef struct fs_dirtime fs_dirtime;
typedef struct fs_evictor fs_evictor;

/* -o max_nodes's default: some 60 MiB of the node table (about 150 bytes
   a name), near the store's write buffer; the names of a walk out of and
   back into a 100,000-row table (3 a row each way) before any is dropped. */
#define FS_MAX_NODES_DEFAULT 400000
typedef struct fs_families fs_families;

/* Bounds on what the daemon keeps in memory besides the store. */
#define FS_PENDING_MAX 262144        /* mkdir'ed rows without cells (rsync's
                                        generator makes them ahead of cells) */
#define FS_YOUNG_MAX 4096            /* young rows remembered (pending.c) */
#define FS_ROWSET_BUCKETS 65536      /* buckets of a row set's index */
#define FS_SCRATCH_MAX 32            /* table-level temporary files */
#define FS_SCRATCH_BYTES (4u << 20)  /* largest scratch file */

/** A set of rows by table and key (pending.c): a list, newest first, and
 *  a hash index of FS_ROWSET_BUCKETS buckets made at the first add. */
typedef struct fs_rowset {
    struct fs_rowent *newest, *oldest;
    struct fs_rowent **index;
    size_t n;
} fs_rowset;

/** Negative entries the kernel may hold (negative.c): per slot (a hash of
 *  the name's path), lookups counted that may have replied with one. */
#define FS_NEG_SLOTS 4096
typedef struct fs_negatives {
    pthread_mutex_t mu;
    bool on;                         /* the kernel takes an epoch raise (INIT) */
    size_t total;                    /* sum of count */
    uint64_t gen;                    /* epoch raises so far */
    uint32_t count[FS_NEG_SLOTS];
} fs_negatives;

typedef struct cellfs {
    kv_store *store;
    struct fuse_session *se;         /* for cache invalidation */
    fs_nodes nodes;                  /* inode numbers the kernel holds */
    char *store_path;
    char *mountpoint;
    /* Mount options. */
    bool versions;                   /* -o versions: list q@<ts> */
    bool read_only;                  /* -o ro */
    bool create;                     /* -o create */
    bool sync;                       /* -o sync: every put fsync'd */
    bool foreground;
    bool single_thread;              /* -s: no inline invalidation */
    size_t max_value;                /* EFBIG above this */
    size_t cache_size, write_buffer;
    double timeout;                  /* -o timeout: entry/attr timeout, seconds */
    bool timeout_given;              /* -o timeout was given: negative entries
                                        kept for it on any store (cache_time.c) */
    bool cache_long;                 /* the kernel keeps what it is told until
                                        this mount changes it (cache_time.c) */
    /* Fixed at mount. */
    kv_filter *f_keyonly;            /* KeyOnlyFilter(), or NULL */
    kv_filter *f_firstkey;           /* FirstKeyOnly + KeyOnly, or NULL */
    kv_filter *f_keylen;             /* KeyOnlyFilter(true): each value is its
                                        length (4 bytes, big-endian), or NULL */
    struct timespec mount_time;
    uid_t uid;
    gid_t gid;
    /* Counts commits of cell values; a reader whose open saw an older count
       invalidates the kernel's view of the file at release (see
       fs_handle_release). */
    atomic_uint_fast64_t commits;
    fs_negatives neg;                /* negative entries out (negative.c) */
    /* Held from choosing a cell mutation's timestamp (fs_next_ts,
       fs_delete_column_all) until the store has the mutation, so that two
       commits never pick the same one. Taken after a handle's mu, never
       with fs->mu held, and held across no FUSE reply. */
    pthread_mutex_t stamp_mu;
    /* Guarded by mu. */
    pthread_mutex_t mu;
    pthread_cond_t readers_gone;     /* a cached reader or a writer was released (open_file.h) */
    struct fs_handle *handles;       /* every open file */
    fs_rowset pending;               /* mkdir'ed rows without cells */
    fs_rowset young;                 /* rows mkdir'ed lately, their families */
    struct fs_scratch *scratch;
    size_t nscratch;
    struct fs_gone *schema_gone;     /* tables whose .schema was unlinked */
    struct fs_dirh *dirs;            /* open directory handles (ops_dir.c) */
    struct fs_rowmemo *rowmemo;      /* the keys of the row read last (rowmemo.c) */
    struct fs_dirtime *dirtime;      /* rows' and families' newest times (dirtime.c) */
    struct {                         /* the cell a commit or a re-stamp changed
                                        last (cells.c, fs_cellmemo_put) */
        char path[1024];             /* "": none */
        size_t len;
        int64_t ts;
        uint8_t *value;              /* its bytes (len), or NULL: not kept */
        uint64_t commits, fams_gen;  /* valid while these hold */
    } cellmemo;
    size_t max_nodes;                /* -o max_nodes: the node table's cap, 0 none */
    struct fs_evictor *evictor;      /* the thread that keeps to it (evict.c) */
    fs_families *families;           /* each table's families (families.c);
                                        has its own mutex, innermost */
    /* The full-disk check's last look at the store's file system
       (open_file.c, no_room); room_mu is innermost and held briefly. */
    pthread_mutex_t room_mu;
    bool room_known;
    struct timespec room_at;         /* CLOCK_MONOTONIC */
    unsigned long long room_avail;   /* free bytes then, less what checks took since */
} cellfs;

/* ---- log.c ---- */
/** One line to stderr (and syslog when daemonized): "cellfs: <text>". */
void fs_log(cellfs *fs, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** kvcore's log sink. */
void fs_log_kv(void *ctx, int level, const char *message);

/* ---- errno_map.c: the one place kv_status becomes an errno ---- */
/** Returns -errno for @p st (0 for KV_OK). */
int fs_errno(kv_status st);
/** fs_errno, and for anything but KV_OK / KV_NOT_FOUND one log line naming
 *  @p op, @p path and the store's detail message. */
int fs_fail(cellfs *fs, kv_status st, const char *op, const char *path);

/* ---- cells.c: reads and checks against the store ---- */
/** Read options for @p p: as-of views read up to and including asof_ts. */
void fs_ropts(const fs_path *p, kv_read_options *o);
/** Resolves hashed long row/qualifier names by prefix scan. 0, -ENOENT. */
int fs_resolve(cellfs *fs, fs_path *p);
/** Whether the table exists (as a directory). 0 / -ENOENT / -errno. */
int fs_table_check(cellfs *fs, const fs_path *p);
/** Whether the family exists in the table. 0 / -ENOENT. */
int fs_family_check(cellfs *fs, const fs_path *p);
/** 1 when the row has a visible cell (in @p family when non-NULL), 0 when
 *  not, -errno on failure. */
int fs_row_has_cells(cellfs *fs, const fs_path *p, const char *family);
/** The length a KeyOnlyFilter(true) read gives as the value of @p c. */
size_t fs_keylen_value(const kv_cell *c);
/** Like fs_row_has_cells, and *ts (when 1) the newest timestamp of the
 *  visible cells of the row (of @p family when non-NULL): a row's and a
 *  family directory's mtime. */
int fs_row_newest(cellfs *fs, const fs_path *p, const char *family, int64_t *ts);
/**
 * Reads the cell @p p names: the newest visible value, or exactly
 * p->version. *value (malloc'd, may be NULL when not wanted), *len, *ts.
 * 0, -ENOENT, -errno.
 */
int fs_cell_get(cellfs *fs, const fs_path *p, uint8_t **value, size_t *len, int64_t *ts);
/** All retained version timestamps of the column, newest first (malloc'd). */
int fs_cell_versions(cellfs *fs, const fs_path *p, int64_t **ts, size_t *n);
/** True when a put at exactly @p ts to the column would be hidden by a
 *  delete marker already in the store (HBase: deletes mask puts; never in
 *  a family with NEW_VERSION_BEHAVIOR, where they mask only earlier ones). */
bool fs_put_masked(cellfs *fs, const fs_path *p, int64_t ts);
/** Whether a delete marker among the cells of the raw read @p r hides a
    put at @p ts of column @p family : @p q (HBase's rule without
    NEW_VERSION_BEHAVIOR: a family or column marker at or after ts, a
    version marker at exactly ts). */
bool fs_raw_hides(const kv_result *r, const char *family, const uint8_t *q, size_t qlen,
                  int64_t ts);
/**
 * One raw read of the column @p p names at times at or after @p from
 * (every version the store holds there, delete markers of the column and
 * its family included; the older history is not read): *newest, the
 * newest timestamp among them (INT64_MIN when none); with @p puts
 * non-NULL, the malloc'd list of their put timestamps (*nputs of them).
 * 0 or -errno.
 */
int fs_column_raw(cellfs *fs, const fs_path *p, int64_t from, int64_t *newest, int64_t **puts,
                  size_t *nputs);
/**
 * fs_column_raw and fs_put_masked of one column in one raw read at times at
 * or after @p from: *masked, whether a put at exactly @p from would be
 * hidden by a marker (fs_put_masked(fs, p, from)); *puts (malloc'd, *nputs
 * of them), the put timestamps at or after @p puts_from (>= @p from) as
 * fs_column_raw lists them; *shown (when not NULL), how many of those no
 * marker hides. Nothing listed and not masked when the table or family is
 * gone. 0 or -errno (then nothing allocated).
 */
int fs_column_from(cellfs *fs, const fs_path *p, int64_t from, int64_t puts_from, bool *masked,
                   int64_t **puts, size_t *nputs, size_t *shown);
/**
 * fs_column_from(fs, p, from, from, masked, puts, nputs, NULL) and the
 * versions that fs_delete_column_all would delete of the column @p q of
 * the same row (*qvers, malloc'd, *nq of them), in one raw read of both
 * columns (a rename within a row: the target's check and later versions,
 * the source's versions). 1, nothing read, on a backend without raw reads
 * (use those two calls); 0 or -errno (nothing allocated).
 */
int fs_column_pair(cellfs *fs, const fs_path *p, int64_t from, bool *masked, int64_t **puts,
                   size_t *nputs, const fs_path *q, int64_t **qvers, size_t *nq);
/** Adds to @p m the deletes of the versions @p vers[0..n) of the column
 *  @p p names (what fs_column_pair listed). 0 or -errno. */
int fs_delete_versions(cellfs *fs, const fs_path *p, kv_mutation *m, const int64_t *vers,
                       size_t n);
/**
 * The timestamp for a new newest value of the column: the store clock, or
 * one past the newest version that shows, or marker of the whole column or
 * family, when that is not older than the clock, and then off the time of
 * any removed single version (whose marker would hide a put at that time).
 * So successive writes give distinct, increasing versions, a value is never
 * hidden by a version or a removal whose time lies in the future, and a
 * cell removed version by version (rm) is written again at the clock.
 * Call with fs->stamp_mu held
 * until the mutation is applied. 0 or -errno.
 */
int fs_next_ts(cellfs *fs, const fs_path *p, int64_t *ts);
/**
 * Adds to @p m the deletes that remove every version of the column @p p
 * names: each version the store holds exactly (no column marker is left
 * to hide a value put later at an older time); on a backend without raw
 * reads, the whole column at the store clock and each future version.
 * *shows (when @p shows is not NULL): 1 when the read found a version that
 * a get shows (fs_cell_get would find the column), 0 when none, -1 when
 * the raw read cannot tell (no raw reads, a family with
 * NEW_VERSION_BEHAVIOR or a TTL). *removed_max (when not NULL, and on
 * success): the newest version deleted (INT64_MIN: none), INT64_MAX where
 * the whole column is deleted (no raw reads); left alone when the table
 * has no such family. fs->stamp_mu held. 0 or -errno.
 */
int fs_delete_column_all(cellfs *fs, const fs_path *p, kv_mutation *m, int *shows,
                         int64_t *removed_max);
/** Write options with the mount's durability (or @p fsync). */
void fs_wopts(const cellfs *fs, bool fsync, kv_write_options *w);
/** Milliseconds -> timespec and back. */
void fs_ms_to_ts(int64_t ms, struct timespec *ts);
int64_t fs_ts_to_ms(const struct timespec *ts);
/** Tells the kernel that what @p path shows changed (attributes, data),
 *  and for a q@<ts> path also what q shows; counts the change in
 *  fs->commits. Call it after every change of a cell, once the store has
 *  it. Returns the node the kernel holds for @p path when it found it on
 *  the way (0: none, or not looked up). */
fs_ino fs_notify_changed(cellfs *fs, const char *path);
/** fs_notify_changed of a change of the cell @p path that only put a
 *  version at @p ts (deleting none newer): the kept times of its row and
 *  family (dirtime.c) rise to @p ts instead of being dropped. */
fs_ino fs_notify_put(cellfs *fs, const char *path, int64_t ts);
/** fs_notify_changed of a removal of versions of the cell @p path, none
 *  newer than @p removed_max (INT64_MAX: not known): the kept times of
 *  its row and family (dirtime.c) stay where their newest cell is newer. */
fs_ino fs_notify_removed(cellfs *fs, const char *path, int64_t removed_max);
/** The kernel part of fs_notify_changed alone: drops what the kernel holds
 *  of @p path, of q for q@<ts>, and of every q@<ts> it holds (the change
 *  may have taken versions away). */
void fs_kernel_forget(cellfs *fs, const char *path);
/** Drops what the kernel holds of every name below the directory @p path
 *  (a change of the table's schema may take families, rows and versions
 *  away). Walks the node table: for rare changes. */
void fs_kernel_forget_below(cellfs *fs, const char *path);
/** Drops the kernel's attributes and kept listing of the directory
 *  @p path alone, when it holds it (a row that stopped being young). */
void fs_kernel_forget_listing(cellfs *fs, const char *path);
/** The path of the latest-value name of a q@<ts> path (malloc'd). */
char *fs_latest_path(const char *path);

/** At INIT: negative entries only from a kernel whose FUSE protocol
 *  (@p proto_major.@p proto_minor) has the entry epoch (7.44). */
void fs_negative_init(cellfs *fs, unsigned proto_major, unsigned proto_minor);
/** A lookup's count (fs_negative_begin), for fs_negative_end. */
typedef struct fs_negative_ticket {
    size_t slot;
    uint64_t gen;
} fs_negative_ticket;
/** Before a lookup of @p path reads the store: counts it as a name that
 *  may get a negative entry. False when the mount hands out none (then
 *  nothing was counted and fs_negative_end must not be called); *t is
 *  for fs_negative_end. */
bool fs_negative_begin(cellfs *fs, const char *path, fs_negative_ticket *t);
/** After that lookup replied: @p handed_out, it replied with a negative
 *  entry (the count stays until the epoch is raised); else it is taken
 *  back. */
void fs_negative_end(cellfs *fs, const fs_negative_ticket *t, bool handed_out);
/** After the store has a change that may have made @p path (a name without
 *  "@<ts>") appear with no call on it: raises the kernel's entry epoch when
 *  a negative entry of it may be out. Takes no kernel lock: callable from
 *  any handler. */
void fs_negative_appeared(cellfs *fs, const char *path);
/** The same for a change that may make any name appear (.schema, a row
 *  moved): raises the epoch when any negative entry may be out. */
void fs_negative_appeared_any(cellfs *fs);
/** The young row @p row (@p len bytes) of @p table stopped being young
 *  (pending.c): every family of the table shows in it now. Call without
 *  fs->mu held. */
void fs_negative_row_aged(cellfs *fs, const char *table, const uint8_t *row, size_t len);

/* ---- pending.c: mkdir'ed rows and table-level scratch files ---- */
/** Adds the row of @p p to the pending set (a row without cells that
 *  exists: made with mkdir, or emptied by rm). 0, -ENOSPC when
 *  FS_PENDING_MAX rows are kept already (logged; none is forgotten) or
 *  -ENOMEM. */
int fs_pending_add(cellfs *fs, const fs_path *p);
/**
 * Young rows: a row made with mkdir during this mount lists the families
 * made in it with mkdir and those that hold cells in it, also after its
 * first cell (so cp -r, cp -a and rsync can mkdir each family: a listed
 * family would be EEXIST in the kernel); every other row lists every
 * family (SPEC 3). The last FS_YOUNG_MAX rows made are remembered, the
 * oldest falls out (and lists every family again), apart from the pending
 * set. fs_young_add: the row of @p p is young (made again: the newest),
 * with @p family, when non-NULL, made in it; 0 or -ENOMEM.
 */
int fs_young_add(cellfs *fs, const fs_path *p, const char *family);
/** -1 when the row of @p p is not young (or @p p is an as-of view), 1 when
 *  @p family was made in it with mkdir, 0 when not. */
int fs_young_family(cellfs *fs, const fs_path *p, const char *family);
/** rmdir of the empty family dir @p family of a young row: no longer listed. */
void fs_young_unlist(cellfs *fs, const fs_path *p, const char *family);
/** rmdir of the row: it is young no more. */
void fs_young_forget(cellfs *fs, const char *table, const uint8_t *row, size_t len);
/** Whether @p table has pending rows or files beside them (rmdir of the
 *  table: ENOTEMPTY). */
bool fs_pending_table(cellfs *fs, const char *table);
/** Forgets the pending and young rows and scratch files of a dropped table. */
void fs_pending_drop_table(cellfs *fs, const char *table);
/** Forgets every pending and young row and scratch file (at unmount, once
 *  no file is open). */
void fs_pending_clear(cellfs *fs);
/** Whether the row of @p p is pending. */
bool fs_pending_has(cellfs *fs, const fs_path *p);
void fs_pending_remove(cellfs *fs, const char *table, const uint8_t *row, size_t len);
/** Copies up to @p max pending row keys of @p table into a malloc'd list
 *  (for readdir). */
typedef struct fs_rowkey { uint8_t *key; size_t len; } fs_rowkey;
size_t fs_pending_list(cellfs *fs, const char *table, fs_rowkey **out);

typedef struct fs_scratch {
    struct fs_scratch *next;
    char table[2 * KV_NAME_MAX + 2];
    char name[FS_NAME_MAX + 1];
    uint8_t *buf;
    size_t len;
    struct timespec mtime;
    int refs;                        /* open handles + 1 while linked */
    bool unlinked;
} fs_scratch;
/** The names of the scratch files of @p table (a table, or a family
 *  directory's path: fs_path_scratch), malloc'd each and the list. */
size_t fs_scratch_names(cellfs *fs, const char *table, char ***out);
/** Finds (refs++ when @p ref) the scratch file @p name of @p table. fs->mu held. */
fs_scratch *fs_scratch_find(cellfs *fs, const char *table, const char *name, size_t len);
/** Creates one; NULL with *err = -ENOSPC / -ENOMEM. fs->mu held. */
fs_scratch *fs_scratch_new(cellfs *fs, const char *table, const char *name, size_t len, int *err);
void fs_scratch_unlink(cellfs *fs, fs_scratch *s);   /* fs->mu held */
void fs_scratch_put(cellfs *fs, fs_scratch *s);      /* fs->mu held: refs-- */

/** unlink of a table's .schema: the name is gone (lookups ENOENT, not
 *  listed) until a create or rename makes it again, which then replaces
 *  the schema (tar x removes a file and creates it with O_EXCL). The
 *  families stay meanwhile. fs_schema_gone: whether it is gone;
 *  fs_schema_back: it is made again. */
int fs_schema_unlink(cellfs *fs, const char *table);
bool fs_schema_gone(cellfs *fs, const char *table);
void fs_schema_back(cellfs *fs, const char *table);

/* ---- ops_schema.c ---- */
/** The table's families, one per line in describe syntax (malloc'd). */
int fs_schema_text(cellfs *fs, const char *table, char **text, size_t *len);
/** Checks every complete line of text[from..to) (extended to line ends). */
int fs_schema_check(cellfs *fs, const char *table, const char *text, size_t len, size_t from,
                    size_t to, bool partial_last_ok);
/** Applies a schema text: alters, adds and deletes families. */
int fs_schema_apply(cellfs *fs, const char *table, const char *text, size_t len);

/* ---- ops_dir.c ---- */
/** Frees the directory handles still open at unmount (the kernel sends no
 *  RELEASEDIR for them). */
void fs_dirs_free(cellfs *fs);
/** Whether the row of @p p exists and lists its family @p family (SPEC 3,
 *  young rows: fs_young_add): 1 / 0 / -errno; with @p ts non-NULL, *ts is
 *  the family directory's mtime: the newest timestamp of its cells, 0 (the
 *  epoch) when it has none. The one rule of lookup, getattr, mkdir and
 *  readdir. */
int fs_family_listed(cellfs *fs, const fs_path *p, const char *family, int64_t *ts);

/* ---- families.c: each table's families, kept on a one-writer mount ---- */
#define FS_FAMILIES_TABLES 64        /* tables whose families are kept */
/** What a table says of one of its families. */
typedef struct fs_family_info {
    bool table_has_ttl;              /* some family of the table has a TTL */
    bool found;                      /* the family exists */
    int64_t ttl_ms;                  /* its TTL in ms; 0: none */
    bool nvb;                        /* its NEW_VERSION_BEHAVIOR */
} fs_family_info;
/** Sets up / frees fs->families. init: 0 or -ENOMEM. */
int fs_families_init(cellfs *fs);
void fs_families_free(cellfs *fs);
/**
 * Fills @p out for @p family of @p table (NULL: only table_has_ttl). On a
 * mount with cache_long, from what the mount keeps (described once per
 * table, until fs_families_changed); elsewhere from a describe. 0,
 * -ENOENT when the table does not exist, -errno.
 */
int fs_family_lookup(cellfs *fs, const char *table, const char *family, fs_family_info *out);
/** The names of @p table's families, in the schema's order, as
 *  fs_family_lookup knows them: *names a NULL-terminated array (free each
 *  name and the array). 0, -ENOENT, -errno. */
int fs_family_names(cellfs *fs, const char *table, char ***names);
/** Drops everything kept: called after every change of any table's
 *  families (create, drop, alter, delete of a family, of a table). */
void fs_families_changed(cellfs *fs);
/** How many times fs_families_changed ran (0 where nothing is kept). */
uint64_t fs_families_gen(cellfs *fs);

/* ---- evict.c: the node table's cap ---- */
/** Caps the node table at fs->max_nodes (nothing when 0) and starts the
 *  thread that asks the kernel to forget names past it: at the mount's
 *  init, once the session can send notifications. 0 or -errno (then the
 *  table is not capped). */
int fs_evict_start(cellfs *fs);
/** Stops that thread (at unmount, before the store closes); nothing when
 *  none runs. */
void fs_evict_stop(cellfs *fs);

/* ---- rowmemo.c: the keys of the row read last ---- */
#define FS_ROWMEMO_MAX_CELLS 4096    /* a wider row's keys are not kept */
/** The counts a kept read is valid under. */
typedef struct fs_rowmemo_mark {
    uint64_t commits;                /* fs->commits */
    uint64_t fams_gen;               /* fs_families_gen */
} fs_rowmemo_mark;
/** Sets up / frees fs->rowmemo: at the mount's init, before any request,
 *  and at its end. Out of memory: nothing is kept, every question reads. */
void fs_rowmemo_init(cellfs *fs);
void fs_rowmemo_free(cellfs *fs);
/** Whether a read of the row of @p p may be kept: a local store
 *  (cache_long), no TTL in its table, not a view. */
bool fs_rowmemo_usable(cellfs *fs, const fs_path *p);
/** The counts now: take them before the read that is to be kept. */
fs_rowmemo_mark fs_rowmemo_now(cellfs *fs);
/** The options of a read to keep: every key of the row (every version with
 *  -o versions), each value replaced by its length (fs_keylen_value). */
void fs_rowmemo_read_options(cellfs *fs, const fs_path *p, kv_read_options *o);
/** Keeps @p r (taken over, freed when replaced), the row of @p p read
 *  with fs_rowmemo_read_options from @p mark on, and returns NULL; or,
 *  when @p r holds more than FS_ROWMEMO_MAX_CELLS cells (or nothing is
 *  kept), keeps nothing and hands @p r back. */
kv_result *fs_rowmemo_put(cellfs *fs, const fs_path *p, fs_rowmemo_mark mark, kv_result *r);
/** The kept keys of the row of @p p when they still are what the store
 *  holds (no change counted, no schema changed since their read began),
 *  with the memo locked until fs_rowmemo_done; else NULL. */
const kv_result *fs_rowmemo_get(cellfs *fs, const fs_path *p);
void fs_rowmemo_done(cellfs *fs);

/* ---- dirtime.c: rows' and families' newest times ---- */
#define FS_DIRTIME_SLOTS 4096        /* entries kept, one per hash */
/** Sets up / frees fs->dirtime: at the mount's init, before any request,
 *  and at its end. Out of memory: nothing is kept, every question reads. */
void fs_dirtime_init(cellfs *fs);
void fs_dirtime_free(cellfs *fs);
/** The kept answer for the row of @p p (resolved), or its family
 *  @p family when not NULL: 1 with *ts its newest cell's timestamp, 0 when
 *  it holds no cell, -1 when nothing valid is kept (read the store). */
int fs_dirtime_get(cellfs *fs, const fs_path *p, const char *family, int64_t *ts);
/** Keeps what a read begun at @p mark (fs_rowmemo_now before it) found for
 *  the row of @p p or its @p family: @p has (1: cells, newest @p ts; 0:
 *  none; < 0: nothing kept). Kept only where fs_rowmemo_usable and when no
 *  change was counted and no schema changed since @p mark. */
void fs_dirtime_put(cellfs *fs, const fs_path *p, const char *family, fs_rowmemo_mark mark,
                    int has, int64_t ts);
/** What a change of one cell did, as far as its row's and family's times
 *  go: removed versions of the column, none newer than @p removed_max
 *  (INT64_MIN: none removed), and, when @p put, a version put at
 *  @p put_ts, the removals counted first. */
typedef struct fs_change {
    int64_t removed_max;
    bool put;
    int64_t put_ts;
} fs_change;
/** Counts a change in fs->commits (fs_notify_changed), and under the same
 *  lock updates what is kept: for a cell @p path, its row's and family's
 *  entries after @p c (NULL: a change not described, which drops them):
 *  a removal that reached their newest time drops them, else a put raises
 *  them; for any other path (or NULL, or a row known only by a hashed
 *  name), every entry of its table (or all) goes. */
void fs_dirtime_count(cellfs *fs, const char *path, const fs_change *c);

/* ---- cells.c: the cell changed last ---- */
/**
 * Keeps what a change of the cell @p path of @p table left it showing,
 * @p len bytes at @p ts, and the bytes themselves when @p value is not NULL
 * (malloc'd, taken over: freed here when not kept), so that the stat, the
 * utimens and the rename that tools send right after it (rsync's restore,
 * editors' saves) need no read;
 * @p path names the cell's latest value (no "@<ts>", not in a view: the
 * caller's to see to). Kept only when the change was the only one counted
 * since @p before (fs_rowmemo_now before it; fs_notify_changed counted
 * it), on a local store (cache_long), in a table without TTL. Valid until
 * any change is counted or a schema changes. Takes fs->mu.
 */
void fs_cellmemo_put(cellfs *fs, const char *path, const char *table, fs_rowmemo_mark before,
                     size_t len, int64_t ts, uint8_t *value);
/** Values above this many bytes are not kept. */
#define FS_CELLMEMO_MAX_VALUE (64u << 10)
/** What fs_cellmemo_put kept for @p path, when still valid: true with *len
 *  and *ts set, and with @p value not NULL, only when the bytes were kept
 *  too: *value, a malloc'd copy (NULL when out of memory: false). Takes
 *  fs->mu. */
bool fs_cellmemo_get(cellfs *fs, const char *path, size_t *len, int64_t *ts, uint8_t **value);
/** Frees what the memo holds (at the unmount). */
void fs_cellmemo_free(cellfs *fs);

/* ---- cache_time.c: how long the kernel may keep entries and attributes ---- */
#define FS_CACHE_LONG 3600.0         /* nothing changes it but this mount */
#define FS_CACHE_SHORT 1.0           /* it may change without a call here */
/** Whether a lookup that finds nothing at a path may reply with a negative
 *  entry (negative.c): never; yes (a row, a cell); a family, which may
 *  unless its row is young (fs_cache_negative_seconds decides). */
typedef enum { FS_ABSENT_NO, FS_ABSENT_KEPT, FS_ABSENT_FAMILY } fs_absent;
/** What applies to the entries at one path (and to every child of one
 *  directory listing, which share table, family and kind). */
typedef struct fs_cache_rule {
    double seconds;                  /* at most this long */
    int64_t ttl_ms;                  /* > 0: a file expires ttl_ms after its mtime */
    int held;                        /* 1: an open file of the path held attributes
                                        not yet committed when fs_op_getattr read
                                        them; 0: none did; -1: not known */
    fs_absent absent;                /* whether the path's absence may be kept */
} fs_cache_rule;
/** The rule for @p path (NULL: the mount's timeout). Reads the table's
 *  description when a TTL could apply. */
void fs_cache_rule_of(cellfs *fs, const char *path, fs_cache_rule *rule);
/** The rule of an open file whose name went (what the mount's timeout
 *  says). */
void fs_cache_rule_default(cellfs *fs, fs_cache_rule *rule);
/** fs_cache_rule_of for a path already parsed into @p p (with
 *  fs_path_scratch applied) whose parse returned @p parse_rc. */
void fs_cache_rule_parsed(cellfs *fs, const fs_path *p, int parse_rc, fs_cache_rule *rule);
/** The rule of every entry of the directory @p dir (parsed, not a cell):
 *  what fs_cache_rule_of gives a child of it. */
void fs_cache_rule_children(cellfs *fs, const fs_path *dir, fs_cache_rule *rule);
/** Seconds the kernel may keep the entry and attributes @p st under
 *  @p rule: never past a cell's expiry by TTL. */
double fs_cache_seconds(cellfs *fs, const fs_cache_rule *rule, const struct stat *st);
/** How long the kernel may keep the absence of @p path (a negative entry),
 *  in seconds, given @p rule, the path's (fs_op_getattr's, which found
 *  nothing): 0 for every name negative.c could not drop when it appears
 *  with no call on it, and on a store others write without -o timeout. */
double fs_cache_negative_seconds(cellfs *fs, const char *path, const fs_cache_rule *rule);

/* ---- lowlevel.c ---- */
/** The low-level FUSE operations of a mount whose session user data is its
 *  cellfs context. */
void fs_lowlevel_ops(struct fuse_lowlevel_ops *ops);

/** Fills @p st for a directory / a regular file. */
void fs_stat_dir(const cellfs *fs, struct stat *st);
/** A directory whose mtime is @p ts_ms (rows and families). */
void fs_stat_dir_at(const cellfs *fs, struct stat *st, int64_t ts_ms);
void fs_stat_file(const cellfs *fs, struct stat *st, size_t size, int64_t ts_ms, bool writable);

#endif
