/**
 * @file open_file.h
 * Open files: the per-open write buffer of a cell, .schema or scratch
 * file, and the one place where buffered writes become store mutations.
 * Four modules, one job each: open_file.c (opening, the buffer, reads,
 * writes, truncates), commit.c (buffers become mutations), handles.c (the
 * registry of open files) and leases.c (page cache leases); what they
 * share among themselves is in open_file_i.h. Called by ops_file.c
 * (open/read/write/flush/fsync/release), ops_attr.c (getattr, truncate,
 * utimens of open files), lowlevel.c and rename/unlink; calls kvcore
 * through cells.c helpers.
 *
 * Semantics (man/cellfs.1, WRITES): each open file has a private buffer,
 * loaded at open. At flush/fsync/release a dirty buffer becomes ONE
 * mutation: a whole-value put when the file was created or truncated to 0
 * (O_TRUNC, `>`), kv_append of the new bytes when it was only appended
 * (O_APPEND, `>>`: concurrent appenders lose nothing), else a merge of the
 * written ranges into the current value applied with check-and-mutate (so
 * writers of disjoint ranges lose nothing and no reader sees a torn value).
 *
 * Shared open files (groups.c): an open of a cell by a process (thread
 * group) that has a writer of that cell open joins that writer's open file
 * instead of loading its own: the kernel's file handles of both are the
 * same fs_handle (members counts them), so every descriptor of the
 * process reads the bytes and size the others wrote at once, writes into
 * the same value, and goes through the page cache when the writer does
 * (paged writers below). A close(2) of any of them commits the shared
 * value as before (so close(2) still returns once what was written is
 * stored, and readers elsewhere see it); the handle is released with its
 * last descriptor. An open file whose descriptors were all closed (a
 * reopen: its release is on its way) or whose write failed is not joined.
 * Other processes are unaffected: their readers see the committed value,
 * their writers their own open file.
 *
 * Thread safety: the registry fields (next, path, orphan, released, refs,
 * opening, cached, lease_broken, paged, open_commits, members, leaving,
 * tgid) are guarded by fs->mu;
 * everything else by the handle's own mu. Lock order (fs.h): a handle's
 * mu, then fs->stamp_mu, then fs->mu (held briefly, nothing called under
 * it). Registry helpers take references under fs->mu, drop it, and only
 * then lock each handle.
 */
#ifndef CELLFS_OPEN_FILE_H
#define CELLFS_OPEN_FILE_H

#include "fs.h"

typedef enum fs_hkind { FS_H_CELL, FS_H_SCHEMA, FS_H_SCRATCH } fs_hkind;

typedef struct fs_extent { size_t start, end; } fs_extent;

typedef struct fs_handle {
    struct fs_handle *next;      /* registry (fs->mu) */
    char *path;                  /* registry key: the FUSE path (fs->mu) */
    bool orphan;                 /* unlinked or replaced: never written (fs->mu) */
    bool released;               /* FUSE released it; freed when refs = 0 (fs->mu) */
    bool opening;                /* a writer waiting for cached readers (fs->mu):
                                    registered, but skipped by every lookup */
    bool cached;                 /* a reader served through the kernel's page
                                    cache, not by direct I/O (fs->mu) */
    bool lease_broken;           /* a write went ahead while this cached
                                    reader stayed open too long (fs->mu) */
    bool paged;                  /* a writer served through the page cache
                                    (see "Paged writers" below); set once,
                                    as it leaves `opening` (fs->mu) */
    _Atomic bool closed;         /* a close(2) flushed it and nothing wrote it
                                    since: its release is likely on its way */
    int refs;                    /* registry + helpers holding it (fs->mu) */
    pthread_mutex_t mu;          /* guards all below */
    fs_hkind kind;
    fs_path ref;                 /* what it names; row/qual point at own copies */
    uint8_t *ref_row, *ref_qual;
    bool writable;
    bool append;                 /* O_APPEND: writes go to the end */
    bool append_pure;            /* only appends since the last commit */
    size_t append_base;          /* buffer length at the last commit */
    bool whole;                  /* buffer is the entire new value */
    bool dirty;
    bool written;                /* write/truncate since the last commit */
    bool in_store;               /* the cell existed at open or was committed */
    uint8_t *buf;
    size_t len, cap;
    fs_extent *ext;              /* written ranges since the last commit */
    size_t next_ext, ext_cap;
    bool trunc_set;              /* truncated since the last commit */
    size_t trunc_len;            /* the size the last truncate set */
    size_t trunc_min;            /* the smallest size truncated to: bytes of the
                                    committed value at or past it are gone */
    bool placeholder;            /* the empty value of a create or O_TRUNC was
                                    committed at a close (flush) before any
                                    write: the next commit replaces that
                                    version (placeholder_ts) rather than
                                    adding one */
    int64_t placeholder_ts;
    bool failed;                 /* a write or truncate failed (EFBIG): nothing
                                    more of this open file is committed */
    bool has_set_ts;             /* utimens on the open file: put at set_ts */
    int64_t set_ts;
    int64_t ts;                  /* timestamp of the loaded/committed value */
    pid_t pid;                   /* the thread that opened it (getattr) */
    pid_t tgid;                  /* its process, 0 until looked up (fs->mu) */
    int members;                 /* descriptors sharing it: 1 + those that
                                    joined it (groups.c; fs->mu) */
    bool leaving;                /* its last descriptor is being released:
                                    no open joins it any more (fs->mu) */
    uint64_t open_commits;       /* fs->commits when opened, last followed or
                                    last committed by itself
                                    (fs->mu once registered) */
    fs_scratch *scratch;
    uint64_t ino;                /* the kernel's inode number of the file
                                    (lowlevel.c, at open; registry, fs->mu) */
    uint8_t *moved_row;          /* a row move took the file to this row (its
                                    path already names it); the ref follows
                                    at the next commit or fs_handles_settle_below
                                    (fs->mu) */
    size_t moved_row_len;
    fs_name_key moved_row_name;
    uint8_t *fill;               /* the committed value, as the kernel's pages
                                    of a direct open file get it (fs_handle_read) */
    size_t fill_len;
    uint64_t fill_commits;       /* fs->commits when fill was read */
    bool fill_valid;
} fs_handle;

/** Opens a handle for @p path (already parsed and resolved into @p p) for
 *  thread @p pid (whose process's stat then sees its own writes): 0, or 1
 *  when it joined the open writer of that process (*out is then that
 *  handle: shared open files above), or -errno. */
int fs_handle_open(cellfs *fs, pid_t pid, const char *path, const fs_path *p, int flags,
                   bool create, fs_handle **out);
/**
 * Page cache leases. The kernel keeps one size and one set of cached pages
 * per inode, shared by every open file, and a writer's truncate and writes
 * change them at once. So a read-only open of a cell of at most
 * FS_CACHE_MAX_VALUE bytes uses the page cache (h->cached) only while
 * nothing writes that cell, and everything that changes a cell in place
 * waits (at most FS_LEASE_WAIT_MS) until the cached readers of it have
 * closed; meanwhile new readers read their own snapshot by direct I/O.
 * With this, pages in the kernel hold the committed value, and a reader
 * sees one whole value. Larger values are always read directly, so a slow
 * reader of one (rsync to a network) never holds up a writer.
 *
 * fs_write_begin registers @p path as being written (until fs_write_end)
 * and waits for its cached readers; a write to q@<ts> also waits for those
 * of q, whose value it may change. A reader still open at the deadline is
 * marked lease_broken: from then on it follows the committed value, as the
 * kernel's size and pages do (fs_handle_follow), like a reader of a file
 * rewritten on a disk; its pages and size are dropped when it closes.
 * Returns the token for fs_write_end, or NULL when out of memory.
 */
#define FS_LEASE_WAIT_MS 1000
/*
 * Paged writers. mmap(MAP_SHARED) needs the page cache (libfuse 3.14 cannot
 * ask the kernel to map direct-I/O files), so the one writer of a cell that
 * opened it O_RDWR (not O_APPEND, not a q@<ts> version) while no other file
 * writes it uses the page cache (h->paged): its reads, writes and mapped
 * pages go through the kernel's pages, which it alone fills. Readers that
 * open meanwhile read their own snapshot by direct I/O as before, but the
 * kernel keeps one size per file, and a getattr that told it another size
 * would cut the writer's pages: so while a paged writer is open, every
 * getattr of the cell (by path or by any open file) shows the writer's
 * size and time, until a close commits it (`closed`: the kernel's RELEASE
 * may come much later, or never while another process holds the file)
 * and unless it writes again. O_WRONLY writers (cp, shells, editors) stay direct, and
 * others keep seeing the committed size while they write. The kernel sends
 * a file's RELEASE after its last close without waiting for it, so a
 * reopen (close then open at once) waits up to FS_PAGED_WAIT_MS for the
 * releases of writers that were closed and not written since.
 */
#define FS_PAGED_WAIT_MS 200
#define FS_CACHE_MAX_VALUE (1u << 20)
/** The largest value a close hands the kernel as its file's pages, so that
 *  a first read needs no READ (commit.c, store_pages): small files. */
#define FS_STORE_MAX_VALUE (128u << 10)
fs_handle *fs_write_begin(cellfs *fs, const char *path);
void fs_write_end(cellfs *fs, fs_handle *token);

/** Commits pending writes (see above). @p fsync: durability FSYNC_WAL, and
 *  make an already-committed value durable too. @p flush: called for a
 *  close(2) that may not be the last (shells dup2 and close before they
 *  write). A file created or opened with O_TRUNC and not yet written is
 *  committed empty then (so it exists, truncated, and survives the daemon
 *  once close(2) returns), and a later commit of the same open file
 *  replaces that empty version, so `echo x > f` adds one version; a write
 *  of it that fails (EFBIG) takes that empty version back, so a failed
 *  write changes nothing. 0 or -errno. */
int fs_handle_commit(cellfs *fs, fs_handle *h, bool fsync, bool flush);
/** Unregisters and frees (after a last commit attempt). */
int fs_handle_release(cellfs *fs, fs_handle *h);

/**
 * Reads @p size bytes at @p off of what @p h shows. @p to_pages: the
 * kernel is filling its pages of the file (a mapping, readahead), not
 * serving a read(2) by direct I/O (FUSE sends a lock owner with the
 * latter only). The kernel keeps one set of pages per file, shared by
 * every open file, and MAP_PRIVATE maps a direct-I/O file through them:
 * so a direct reader answers such a fill with the file's current bytes
 * (those of the paged writer open on it, else the committed value), never
 * with its own older snapshot, which would stand in others' pages (a
 * paged writer's, which it then reads and commits). A writer answers with
 * its own buffer, as its process sees it.
 */
int fs_handle_read(cellfs *fs, fs_handle *h, char *buf, size_t size, off_t off, bool to_pages);
/** A cached reader whose lease was broken reloads the committed value
 *  when the cell changed since it loaded. h->mu held. */
void fs_handle_follow(cellfs *fs, fs_handle *h);
/** Writes at @p off, or at the end with @p append (the descriptor was
 *  opened or set O_APPEND; ignored for a paged writer, whose pages the
 *  kernel wrote at @p off). Bytes written or -errno. */
int fs_handle_write(cellfs *fs, fs_handle *h, const char *buf, size_t size, off_t off,
                    bool append);
int fs_handle_truncate(cellfs *fs, fs_handle *h, off_t size);

/** Commits every dirty handle open on @p path. */
int fs_handles_commit_path(cellfs *fs, const char *path);
/** Commits every dirty handle open on a name below the directory @p dir. */
int fs_handles_commit_below(cellfs *fs, const char *dir);
/**
 * A row directory @p from became @p to (@p prow, its resolved row): the
 * handles open below it follow. Called by the move with fs->stamp_mu held,
 * right after the store has the move, so that no commit can go to the old
 * row in between: their paths change at once, and their rows (which a
 * handle's mu guards) at their next commit, which looks under
 * fs->stamp_mu (fs_handle_settle), or at fs_handles_settle_below. Takes
 * fs->mu only.
 */
void fs_handles_move_below(cellfs *fs, const char *from, const char *to, const fs_path *prow);
/** Applies the row move of every handle open below @p dir (after
 *  fs_handles_move_below, without fs->stamp_mu). */
void fs_handles_settle_below(cellfs *fs, const char *dir);
/** Applies a row move fs_handles_move_below recorded for @p h (h->mu held;
 *  takes fs->mu). */
void fs_handle_settle(cellfs *fs, fs_handle *h);
/** Marks handles open on @p path orphaned (after unlink / overwrite). */
void fs_handles_orphan(cellfs *fs, const char *path);
/** Moves handles open on @p from to @p to (after rename). */
void fs_handles_rename(cellfs *fs, const char *from, const char *to, const fs_path *pto);
/**
 * Attributes from open handles of @p path that are dirty or not yet in the
 * store: 1 when one is found (*size and *ts_ms from it; one opened by
 * process @p pid preferred, *mine then true), 0 when none. A paged writer
 * not closed since it last wrote is found whether or not it is dirty, and
 * is everyone's (*mine true). (The kernel's
 * fstat is a getattr by path: the opener's process sees its own writes,
 * others the committed value.)
 */
int fs_handles_stat(cellfs *fs, const char *path, pid_t pid, size_t *size, int64_t *ts_ms,
                    bool *mine);
/** The size and time of the paged writer open on the cell @p h names,
 *  other than @p h and not closed since it last wrote: 1 when there is
 *  one, else 0. */
int fs_handles_paged_stat(cellfs *fs, const fs_handle *h, size_t *size, int64_t *ts_ms);
/** Copies up to @p size bytes at @p off of the paged writer open on the
 *  cell @p h names, other than @p h and not closed since it last wrote:
 *  the bytes copied, or -1 when there is none. */
int fs_handles_paged_read(cellfs *fs, const fs_handle *h, char *buf, size_t size, off_t off);
/** Attributes of the open cell or scratch file the kernel knows as @p ino,
 *  whatever its name now (fstat of a descriptor whose file was unlinked or
 *  replaced): its buffer's size and time. 1 when one is open, else 0. */
int fs_handles_stat_ino(cellfs *fs, uint64_t ino, struct stat *st);
/** The open cell file the kernel knows as @p ino, whatever its name now,
 *  with a reference the caller gives back with fs_handles_unref; NULL when
 *  none is open. */
fs_handle *fs_handles_ref_ino(cellfs *fs, uint64_t ino);
/** Gives back a reference fs_handles_ref_ino took. */
void fs_handles_unref(cellfs *fs, fs_handle *h);
/** Sets the pending timestamp of dirty handles of @p path; 1 when one was
 *  dirty (then nothing else needs to be done), else 0. */
int fs_handles_set_ts(cellfs *fs, const char *path, int64_t ts_ms);

#endif
