/**
 * @file env.h
 * The I/O layer: every file operation of kvcore goes through a kv_env, a
 * table of functions. env_posix.c implements it on POSIX; env_fault.c wraps
 * another env to inject I/O errors, a full disk after a byte budget, and
 * crashes that drop unsynced data, so that those tests are deterministic.
 * Called by the log, sorted-file, manifest and store modules.
 */
#ifndef KV_ENV_H
#define KV_ENV_H

#include "kvcore.h"
#include <stdint.h>
#include <stddef.h>

typedef struct kv_file kv_file;   /* an open file of some env */

/* Operations. Each returns KV_OK or KV_IO / KV_NO_SPACE / KV_NOT_FOUND
 * (ENOENT) / KV_EXISTS (EEXIST) / KV_LOCKED; never crashes on bad input.
 * When @p err is non-NULL a failing call writes a message naming the path
 * and the OS error there (at most errlen bytes). */
struct kv_env {
    /* Opens an existing file for reading (pread-style random access). */
    kv_status (*open_read)(kv_env *env, const char *path, kv_file **out, char *err, size_t errlen);
    /* Creates or truncates a file for appending. */
    kv_status (*open_append)(kv_env *env, const char *path, bool truncate, kv_file **out, char *err, size_t errlen);
    /* Reads up to n bytes at offset; *got < n only at end of file. */
    kv_status (*read_at)(kv_file *f, uint64_t offset, void *buf, size_t n, size_t *got, char *err, size_t errlen);
    /* Appends all n bytes (retries short writes); KV_NO_SPACE on ENOSPC. */
    kv_status (*append)(kv_file *f, const void *buf, size_t n, char *err, size_t errlen);
    /* Makes appended data durable (fdatasync). */
    kv_status (*sync)(kv_file *f, char *err, size_t errlen);
    /* Size in bytes. */
    kv_status (*size)(kv_file *f, uint64_t *out, char *err, size_t errlen);
    /* Closes (does not sync); NULL is a no-op. */
    kv_status (*close)(kv_file *f, char *err, size_t errlen);
    /* Atomically renames a file (rename(2)). */
    kv_status (*rename)(kv_env *env, const char *from, const char *to, char *err, size_t errlen);
    /* Removes a file. KV_NOT_FOUND if it is not there. */
    kv_status (*remove)(kv_env *env, const char *path, char *err, size_t errlen);
    /* Makes directory entries (creates, renames, removes) in dir durable. */
    kv_status (*sync_dir)(kv_env *env, const char *dir, char *err, size_t errlen);
    /* Creates a directory (KV_EXISTS if there). */
    kv_status (*mkdir)(kv_env *env, const char *path, char *err, size_t errlen);
    /* Lists the names in a directory (no "." / ".."): NULL-terminated array
       freed with kv_free_names. */
    kv_status (*list)(kv_env *env, const char *dir, char ***names, char *err, size_t errlen);
    /* Takes the lock on path (created if absent), exclusive or @p shared,
       and records the holder in the file: an exclusive holder replaces the
       file's contents with its record "pid\nowner\n", a shared one adds
       "pid r\nowner\n" (the first shared holder starts the file afresh).
       Shared holders coexist; an exclusive holder excludes everyone,
       including other opens in the same process. On a conflict:
       KV_LOCKED, and err names every live holder ("locked by pid N
       (owner)"; shared holders: "open read-only by pid N (owner), ...").
       A shared lock on a file that cannot be written (a read-only
       filesystem) is taken without a record. Records are not removed at
       unlock (other shared holders may be appending): a message skips the
       records of processes that have ended, but may name a live process
       that has closed its handle while others kept the lock.
       *out is released by unlock. */
    kv_status (*lock)(kv_env *env, const char *path, const char *owner, bool shared, kv_file **out,
                      char *err, size_t errlen);
    kv_status (*unlock)(kv_file *lock, char *err, size_t errlen);
    /* Bytes free / total on the filesystem holding path (statvfs). */
    kv_status (*fs_space)(kv_env *env, const char *path, uint64_t *free_bytes, uint64_t *total_bytes);
    /* Optional (NULL where an env does not offer it; callers then use
       read_at). Reads like read_at, with the same results and errors; when
       some of the n bytes were not in the OS's page cache, it then asks the
       OS to read [around_off, around_off + around_len) into the page cache
       in the background (a hint: it may do nothing), so that later reads
       near offset find their bytes there. A read whose bytes are all cached
       costs what read_at costs. around_len 0 is plain read_at. */
    kv_status (*read_at_around)(kv_file *f, uint64_t offset, void *buf, size_t n, uint64_t around_off,
                                size_t around_len, size_t *got, char *err, size_t errlen);
};

/* Writes a failure message into err (at most errlen bytes) when err is
   non-NULL: the convention of every call above, shared by the modules that
   pass such messages on. */
void kv_env_errf(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Convenience: reads a whole small file into a malloc'd buffer. */
kv_status kv_env_read_file(kv_env *env, const char *path, uint8_t **data, size_t *len, char *err, size_t errlen);
/* Writes a whole file durably and atomically: path.tmp, sync, rename,
   sync_dir(dir). */
kv_status kv_env_write_file_atomic(kv_env *env, const char *dir, const char *path,
                                   const void *data, size_t len, char *err, size_t errlen);

/* ---- fault injection (env_fault.c), for tests ---- */
typedef struct kv_fault_env kv_fault_env;
/* Wraps @p base. Until told otherwise it passes every call through. */
kv_fault_env *kv_fault_env_new(kv_env *base);
void kv_fault_env_free(kv_fault_env *fe);
kv_env *kv_fault_env_env(kv_fault_env *fe);
/* After @p nbytes more appended bytes, appends fail with KV_NO_SPACE
   (a write that crosses the budget is cut: partial data reaches the file,
   as on a real full disk). Negative = unlimited. */
void kv_fault_env_set_space(kv_fault_env *fe, int64_t nbytes);
/* The @p n-th next call of any operation whose name contains @p op_substr
   ("append", "sync", "rename", "read_at", ...) fails with KV_IO; n = 1 is
   the next one. n = 0 clears. */
void kv_fault_env_fail_nth(kv_fault_env *fe, const char *op_substr, int n);
/* Simulates power loss: every file that was written through this env is
   truncated to its size at its last sync; renames and removes since the
   last sync_dir are not undone (documented simplification). */
kv_status kv_fault_env_drop_unsynced(kv_fault_env *fe);
/* Counts of calls seen, by operation name. */
uint64_t kv_fault_env_calls(kv_fault_env *fe, const char *op);

#endif
