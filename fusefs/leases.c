/**
 * @file leases.c
 * Page cache leases (open_file.h): which readers may use the kernel's
 * page cache, and writers waiting for the cached readers they would
 * disturb, and which writers may use the page cache (paged writers).
 * Called by open_file.c and the rename/unlink paths; fs->mu and
 * fs->readers_gone only.
 */
#include "open_file_i.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* True when a write to @p writer changes what @p reader shows: the same
   cell, or the q of a q@<ts> written. */
static bool write_reaches(const char *writer, const char *reader)
{
    if (strcmp(writer, reader) == 0) return true;
    const char *slash = strrchr(writer, '/');
    const char *last = slash ? slash + 1 : writer;
    size_t base;
    int64_t ts;
    if (fs_name_split_version(last, strlen(last), &base, &ts) != 1) return false;
    size_t n = (size_t)(last - writer) + base;
    return strlen(reader) == n && memcmp(writer, reader, n) == 0;
}

/* Cached readers a write to @p path would disturb; with @p mark, they are
   marked lease_broken. fs->mu held. */
static bool cached_readers(cellfs *fs, const char *path, bool mark)
{
    bool any = false;
    for (fs_handle *o = fs->handles; o; o = o->next) {
        if (!o->cached || o->orphan || !write_reaches(path, o->path)) continue;
        any = true;
        if (mark) o->lease_broken = true;
    }
    return any;
}

/* Whether a new reader of @p path may use the page cache: nothing writes
   the cell, and no reader of it reads a snapshot older than the last
   change directly (its reads may have left the kernel an older size).
   fs->mu held. */
bool fs_lease_may_cache(cellfs *fs, const char *path)
{
    if (!fs->se || fs->single_thread) return false;   /* no invalidation */
    uint64_t now = atomic_load(&fs->commits);
    for (fs_handle *o = fs->handles; o; o = o->next) {
        if (o->orphan) continue;
        if (o->writable && write_reaches(o->path, path)) return false;
        if (!o->writable && !o->cached && o->kind == FS_H_CELL && o->open_commits != now &&
            strcmp(o->path, path) == 0)
            return false;
    }
    return true;
}

bool fs_lease_alone(cellfs *fs, const fs_handle *h, const char *path)
{
    if (h->orphan || strcmp(h->path, path) != 0) return false;
    for (const fs_handle *o = fs->handles; o; o = o->next)
        if (o != h && !o->orphan && (write_reaches(path, o->path) || write_reaches(o->path, path)))
            return false;
    return true;
}

/* Other writers of @p w's cell: 0 none, 1 only closed ones (their release
   is on its way), 2 one still in use. fs->mu held. */
static int other_writers(cellfs *fs, const fs_handle *w)
{
    int worst = 0;
    for (const fs_handle *o = fs->handles; o && worst < 2; o = o->next) {
        if (o == w || !o->writable || o->orphan || strcmp(o->path, w->path) != 0) continue;
        worst = atomic_load(&o->closed) ? 1 : 2;
    }
    return worst;
}

bool fs_lease_page(cellfs *fs, fs_handle *w, int flags, const fs_path *p)
{
    if (!fs->se || fs->single_thread) return false;   /* no invalidation, one thread */
    if (w->kind != FS_H_CELL || (flags & O_ACCMODE) != O_RDWR || w->append || p->has_version)
        return false;
    struct timespec deadline = fs_deadline_in(FS_PAGED_WAIT_MS);
    int others;
    while ((others = other_writers(fs, w)) == 1)
        if (pthread_cond_timedwait(&fs->readers_gone, &fs->mu, &deadline) == ETIMEDOUT) break;
    /* A closed writer still unreleased after the wait is held by a mapping
       (fio's mmap engine maps, closes and reopens): it committed at its
       close and writes nothing more of its own, and its mapping's pages
       are the kernel's one set, so the new writer may page them too. */
    return other_writers(fs, w) < 2;
}

/* Registers writer @p w (opening) and waits for the cached readers it
   would disturb. fs->mu held on entry and return. */
static void lease_take(cellfs *fs, fs_handle *w, bool *broken)
{
    w->opening = true;
    w->refs = 1;
    w->next = fs->handles;
    fs->handles = w;
    *broken = false;
    struct timespec deadline = fs_deadline_in(FS_LEASE_WAIT_MS);
    while (cached_readers(fs, w->path, false)) {
        if (pthread_cond_timedwait(&fs->readers_gone, &fs->mu, &deadline) == ETIMEDOUT) {
            *broken = cached_readers(fs, w->path, true);
            break;
        }
    }
}

/* lease_take with its own locking, and the log line when it ran out. */
void fs_lease_write(cellfs *fs, fs_handle *w)
{
    bool broken;
    pthread_mutex_lock(&fs->mu);
    lease_take(fs, w, &broken);
    pthread_mutex_unlock(&fs->mu);
    if (broken)
        fs_log(fs, "write %s: a reader kept the file open for over %d ms; it now follows the "
               "new value", w->path, FS_LEASE_WAIT_MS);
}

fs_handle *fs_write_begin(cellfs *fs, const char *path)
{
    fs_handle *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    pthread_mutex_init(&w->mu, NULL);
    w->path = strdup(path);
    if (!w->path) {
        fs_handle_free(w);
        return NULL;
    }
    w->writable = true;
    fs_lease_write(fs, w);
    return w;
}

void fs_write_end(cellfs *fs, fs_handle *w)
{
    if (!w) return;
    pthread_mutex_lock(&fs->mu);
    fs_handle_unregister(fs, w);
    fs_handle_unref(fs, w);
    pthread_mutex_unlock(&fs->mu);
}
