/**
 * @file groups.c
 * Open files shared by a thread group (open_file.h, "Shared open files"):
 * an open of a cell by a process that already has a writer of that cell
 * open joins the writer's open file, so that every descriptor of one
 * process reads and writes one value. FUSE gives the calling thread's id;
 * it is mapped to its process (thread group) through /proc/<tid>/status
 * only when the cell already has an open writer. Called by open_file.c,
 * handles.c and commit.c; fs->mu and /proc only.
 */
#include "open_file_i.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#define FS_GROUP_CANDIDATES 8    /* open writers of one cell looked at */

pid_t fs_group_tgid(pid_t tid)
{
    if (tid <= 0) return tid;
    char name[64];
    snprintf(name, sizeof name, "/proc/%ld/status", (long)tid);
    FILE *f = fopen(name, "re");
    if (!f) return tid;
    char line[256];
    pid_t tgid = tid;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "Tgid:", 5) == 0) {
            long v = strtol(line + 5, NULL, 10);
            if (v > 0) tgid = (pid_t)v;
            break;
        }
    }
    fclose(f);
    return tgid;
}

/* Whether a new open of @p path (writing: for writing; append: O_APPEND)
   may join @p o. An O_APPEND writer is joined only by readers and other
   appenders: its writes all go to the end. One whose descriptors were all
   closed (its release is on its way: a reopen) is not joined; the new
   open starts from what it committed, as before. fs->mu held. */
static bool joinable(fs_handle *o, const char *path, bool writing, bool append)
{
    if (o->opening || o->orphan || o->released || o->leaving || o->members <= 0) return false;
    if (atomic_load(&o->closed)) return false;
    if (!o->writable || o->kind != FS_H_CELL || strcmp(o->path, path) != 0) return false;
    return !(o->append && writing && !append);
}

/* The process of @p o (fs->mu not held): its remembered tgid, else mapped
   from the thread that opened it (which may have exited: then its id). */
static pid_t tgid_of_handle(cellfs *fs, fs_handle *o)
{
    pthread_mutex_lock(&fs->mu);
    pid_t t = o->tgid;
    pthread_mutex_unlock(&fs->mu);
    if (t) return t;
    t = fs_group_tgid(o->pid);
    pthread_mutex_lock(&fs->mu);
    o->tgid = t;
    pthread_mutex_unlock(&fs->mu);
    return t;
}

fs_handle *fs_group_join(cellfs *fs, pid_t pid, const char *path, int flags, pid_t *tgid)
{
    *tgid = 0;
    if (pid <= 0) return NULL;
    bool writing = (flags & O_ACCMODE) != O_RDONLY;
    bool append = (flags & O_APPEND) != 0;
    fs_handle *cand[FS_GROUP_CANDIDATES];
    size_t n = 0;
    pthread_mutex_lock(&fs->mu);
    for (fs_handle *o = fs->handles; o && n < FS_GROUP_CANDIDATES; o = o->next) {
        if (!joinable(o, path, writing, append)) continue;
        o->refs++;
        cand[n++] = o;
    }
    pthread_mutex_unlock(&fs->mu);
    if (n == 0) return NULL;
    fs_handle *g = NULL;
    for (size_t i = 0; i < n && !g; i++) {
        fs_handle *o = cand[i];
        bool same = o->pid == pid;      /* the same thread: no need to ask /proc */
        if (!same) {
            if (!*tgid) *tgid = fs_group_tgid(pid);
            same = tgid_of_handle(fs, o) == *tgid;
        }
        if (!same) continue;
        /* A failed write commits nothing more of an open file: a new
           descriptor does not join that. */
        pthread_mutex_lock(&o->mu);
        bool failed = o->failed;
        pthread_mutex_unlock(&o->mu);
        if (failed) continue;
        pthread_mutex_lock(&fs->mu);
        if (joinable(o, path, writing, append)) {
            o->members++;
            g = o;
        }
        pthread_mutex_unlock(&fs->mu);
    }
    pthread_mutex_lock(&fs->mu);
    for (size_t i = 0; i < n; i++) fs_handle_unref(fs, cand[i]);
    pthread_mutex_unlock(&fs->mu);
    return g;
}

bool fs_group_leave(fs_handle *h)
{
    if (--h->members > 0) return false;
    h->leaving = true;
    return true;
}

bool fs_group_shared(cellfs *fs, const fs_handle *h)
{
    pthread_mutex_lock(&fs->mu);
    bool shared = h->members > 1;
    pthread_mutex_unlock(&fs->mu);
    return shared;
}

bool fs_group_same(cellfs *fs, fs_handle *h, pid_t pid)
{
    if (pid <= 0) return false;
    if (h->pid == pid) return true;
    return tgid_of_handle(fs, h) == fs_group_tgid(pid);
}
