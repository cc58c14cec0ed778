/**
 * @file ops.h
 * The filesystem's operations by path: what each FUSE request means for
 * the store, once the node table (nodes.h) has turned its inode numbers
 * into paths. lowlevel.c calls them and replies to the kernel; they call
 * path.c, cells.c, open_file.c, pending.c and kvcore.h, and know nothing of
 * inode numbers or of the kernel's caches beyond fs_notify_changed.
 *
 * Every function returns 0 or -errno. @p fi is the request's file info: its
 * fh holds the open file (fs_handle) or directory (fs_dirh) handle, and
 * open/create set fh, keep_cache and direct_io in it. @p pid is the calling
 * process (an opener sees its own unsaved writes in getattr).
 */
#ifndef CELLFS_OPS_H
#define CELLFS_OPS_H

#include "fs.h"

#include <sys/statvfs.h>

/* ---- ops_attr.c ---- */
/** Attributes of @p path, or of the open file in @p fi when it has one;
 *  and, when @p rule is not NULL, how long the kernel may keep them
 *  (fs_cache_rule_of of @p path: parsed once for both). */
int fs_op_getattr(cellfs *fs, pid_t pid, const char *path, struct stat *st,
                  struct fuse_file_info *fi, fs_cache_rule *rule);
/** Sets the modification time (tv[1]; UTIME_NOW, UTIME_OMIT) of a cell:
 *  its newest version is re-stamped (man/cellfs.1, TIMESTAMPS). */
int fs_op_utimens(cellfs *fs, const char *path, const struct timespec tv[2],
                  struct fuse_file_info *fi);
/** utimens of the open file @p fi whose name went (unlinked, or replaced
 *  by a rename): the time is the open file's own, as an unlinked inode's
 *  on a local file system (its fstat and, when it is written, its commit
 *  use it); the store is not touched. 0. */
int fs_op_utimens_detached(cellfs *fs, const struct timespec tv[2], struct fuse_file_info *fi);
/** truncate(2) by path, or ftruncate(2) of the open file in @p fi. */
int fs_op_truncate(cellfs *fs, const char *path, off_t size, struct fuse_file_info *fi);
/** The store's figures, with the disk under it. */
int fs_op_statfs(cellfs *fs, struct statvfs *sv);

/* ---- ops_dir.c ---- */
/**
 * One directory entry for fs_op_readdir: @p dir_path the listed directory,
 * @p name the entry, @p st its attributes when the listing learnt them
 * (what getattr would give, and no open file of the name holds others;
 * NULL when not), @p rule how long the kernel may keep it (the same for
 * every entry of a listing), @p next_off the offset that resumes after it.
 * Returns nonzero when the reply is full (the entry was not taken; it is
 * offered again by the next call at that offset).
 */
typedef int (*fs_dir_fill)(void *ctx, const char *dir_path, const char *name, bool dir,
                           const struct stat *st, const fs_cache_rule *rule, off_t next_off);
/** Opens the directory @p path into @p fi, and sets fi->cache_readdir and
 *  keep_cache where the kernel may keep its listing: only this mount
 *  changes it and tells the kernel when (fs_notify_changed,
 *  fs_kernel_forget_below; the kernel drops it itself at its own create,
 *  unlink, mkdir, rmdir and rename in it). */
int fs_op_opendir(cellfs *fs, const char *path, struct fuse_file_info *fi);
/** Streams the entries of the directory opened in @p fi from offset @p off
 *  (0: from the start, with . and ..). A read failure after some entries
 *  were sent is the answer to the next call, never a shorter listing.
 *  @p plus: the caller wants attributes (READDIRPLUS); the listing then
 *  learns those of a row's families and a family's cells as it reads. */
int fs_op_readdir(cellfs *fs, struct fuse_file_info *fi, off_t off, bool plus, fs_dir_fill fill,
                  void *ctx);
int fs_op_releasedir(cellfs *fs, struct fuse_file_info *fi);
/** Whether @p fi holds an open directory's handle (not an open file's). */
bool fs_op_is_dir_handle(cellfs *fs, const struct fuse_file_info *fi);
int fs_op_mkdir(cellfs *fs, const char *path);
int fs_op_rmdir(cellfs *fs, const char *path);

/* ---- ops_file.c ---- */
int fs_op_open(cellfs *fs, pid_t pid, const char *path, struct fuse_file_info *fi);
/** open(O_CREAT): the name may not exist yet. */
int fs_op_create(cellfs *fs, pid_t pid, const char *path, struct fuse_file_info *fi);
/** Bytes read (fewer at the end of the value) or -errno. */
int fs_op_read(cellfs *fs, char *buf, size_t size, off_t off, struct fuse_file_info *fi);
/** Bytes written or -errno (EFBIG above max_value: nothing of the open
 *  file is committed any more). */
int fs_op_write(cellfs *fs, const char *buf, size_t size, off_t off, struct fuse_file_info *fi);
/** close(2) of one descriptor: commits what the open file holds. */
int fs_op_flush(cellfs *fs, struct fuse_file_info *fi);
/** fsync(2): commits durably. */
int fs_op_fsync(cellfs *fs, struct fuse_file_info *fi);
/** The last close: commits, then frees the handle. */
int fs_op_release(cellfs *fs, struct fuse_file_info *fi);
int fs_op_unlink(cellfs *fs, const char *path);
/** @p flags: RENAME_NOREPLACE is honoured, RENAME_EXCHANGE refused. */
int fs_op_rename(cellfs *fs, const char *from, const char *to, unsigned int flags);

/* ---- rename_row.c: renames across rows of one table ---- */
/** Most versions one move across rows carries; a larger row or column (or
 *  one of more than max_value bytes) keeps EXDEV, so mv copies it. */
#define FS_MOVE_MAX_CELLS 10000
/**
 * mv t/r1 t/r2 (@p pf, @p pt: rows): every version r1 shows moves to r2
 * with its timestamp, in one mutation of r2, then r1's are deleted in
 * one mutation of r1. r2 absent or without cells (made with mkdir);
 * ENOTEMPTY when it has cells, EEXIST with RENAME_NOREPLACE when it
 * exists. EXDEV across tables and above FS_MOVE_MAX_CELLS; EPERM (logged,
 * nothing changed) when a delete marker of r2 would hide a moved version;
 * EIO (logged) when the delete of r1 failed after r2 got the versions.
 * Open files under r1 follow the row.
 */
int fs_rename_row(cellfs *fs, const char *from, const char *to, fs_path *pf, fs_path *pt,
                  unsigned int flags);
/** mv t/r1/f/q t/r2/g/p (columns of two rows of one table): as
 *  fs_rename_row for one column; the target keeps its versions older than
 *  the source's newest (as a rename within a row). EXDEV across tables and
 *  for q@<ts> names. */
int fs_rename_column_rows(cellfs *fs, const char *from, const char *to, fs_path *pf,
                          fs_path *pt, unsigned int flags);
/** Refused with EPERM and a log line naming the path. */
int fs_op_link(cellfs *fs, const char *from, const char *to);
int fs_op_symlink(cellfs *fs, const char *path);
int fs_op_mknod(cellfs *fs, const char *path);

#endif
