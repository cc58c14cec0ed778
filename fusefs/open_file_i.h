/**
 * @file open_file_i.h
 * What the open-file modules share among themselves, beyond open_file.h:
 * open_file.c (opening, buffers, reads and writes), commit.c (buffers
 * become mutations), handles.c (the registry) and leases.c (page cache
 * leases). Nothing outside them includes it.
 */
#ifndef CELLFS_OPEN_FILE_I_H
#define CELLFS_OPEN_FILE_I_H

#include "open_file.h"

/* ---- handles.c ---- */
/** Frees a handle no one refers to (not registered). */
void fs_handle_free(fs_handle *h);
/** A copy of @p h's path (fs->mu guards it: a rename may change it), for
 *  log lines; NULL when out of memory. Takes fs->mu. */
char *fs_handle_path(cellfs *fs, const fs_handle *h);
/** Drops one reference; the last frees the handle (and puts its scratch
 *  file). fs->mu held. */
void fs_handle_unref(cellfs *fs, fs_handle *h);
/** Removes @p h from the registry. fs->mu held. */
void fs_handle_unregister(cellfs *fs, fs_handle *h);
/** The handles registered under @p path (not orphaned, not opening), each
 *  with a reference taken: *out (malloc'd), how many. Takes fs->mu. */
size_t fs_handles_collect(cellfs *fs, const char *path, fs_handle ***out);
/** Gives back what fs_handles_collect took, and frees the list. */
void fs_handles_drop(cellfs *fs, fs_handle **v, size_t n);

/* ---- open_file.c ---- */
/** Points h->ref at its own copies of @p p's row and qualifier. 0 or
 *  -ENOMEM (h->ref unchanged). */
int fs_handle_set_ref(fs_handle *h, const fs_path *p);

/* ---- groups.c: open files shared by a thread group (open_file.h) ---- */
/** The process (thread group) of thread @p tid, from /proc/<tid>/status;
 *  @p tid itself when that cannot be read (the thread has exited). */
pid_t fs_group_tgid(pid_t tid);
/** The open writer of the cell @p path that an open by thread @p pid with
 *  @p flags joins: one opened by the same process (not orphaned, not being
 *  released, not closed by every descriptor, not failed; an O_APPEND one
 *  only for readers and appenders), with its
 *  members counted up; NULL when there is none. *tgid: @p pid's process
 *  when it had to be looked up (the cell had open writers), else 0. Takes
 *  fs->mu; reads /proc only when the cell has an open writer. */
fs_handle *fs_group_join(cellfs *fs, pid_t pid, const char *path, int flags, pid_t *tgid);
/** One descriptor of @p h is released: true when it was the last (@p h is
 *  then leaving: no open joins it any more). fs->mu held. */
bool fs_group_leave(fs_handle *h);
/** Whether more than one descriptor shares @p h. Takes fs->mu. */
bool fs_group_shared(cellfs *fs, const fs_handle *h);
/** Whether @p h was opened by the process of thread @p pid. Takes fs->mu
 *  (not held on entry). */
bool fs_group_same(cellfs *fs, fs_handle *h, pid_t pid);

/* ---- leases.c ---- */
/** Whether a new reader of @p path may use the page cache. fs->mu held. */
bool fs_lease_may_cache(cellfs *fs, const char *path);
/** Whether writer @p w (registered, opening) may be a paged writer: an
 *  O_RDWR open of a cell, not O_APPEND nor a version, that no other file
 *  writes but closed writers of its cell (their releases are waited for
 *  at most FS_PAGED_WAIT_MS; one still unreleased then is held by a
 *  mapping). fs->mu held on entry and return. */
bool fs_lease_page(cellfs *fs, fs_handle *w, int flags, const fs_path *p);
/** Whether @p h still names @p path, is not an orphan, and is the only
 *  open file of that cell (of its q or q@<ts> names). fs->mu held. */
bool fs_lease_alone(cellfs *fs, const fs_handle *h, const char *path);
/** Registers writer @p w (opening, one reference) and waits for the cached
 *  readers it would disturb, at most FS_LEASE_WAIT_MS (then logged). */
void fs_lease_write(cellfs *fs, fs_handle *w);

#endif
