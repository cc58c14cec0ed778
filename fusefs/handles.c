/**
 * @file handles.c
 * The registry of open files (fs->handles, guarded by fs->mu): references,
 * release, and what other operations ask of the files open on a path
 * (commit them, orphan them, follow a rename, their attributes). Called by
 * ops_*.c, lowlevel.c and the other open-file modules.
 */
#include "open_file_i.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void fs_handle_free(fs_handle *h)
{
    free(h->buf);
    free(h->ext);
    free(h->path);
    free(h->ref_row);
    free(h->ref_qual);
    free(h->moved_row);
    free(h->fill);
    pthread_mutex_destroy(&h->mu);
    free(h);
}

char *fs_handle_path(cellfs *fs, const fs_handle *h)
{
    pthread_mutex_lock(&fs->mu);
    char *p = strdup(h->path);
    pthread_mutex_unlock(&fs->mu);
    return p;
}

/* fs->mu held. */
void fs_handle_unref(cellfs *fs, fs_handle *h)
{
    if (--h->refs > 0) return;
    if (h->scratch) fs_scratch_put(fs, h->scratch);
    fs_handle_free(h);
}

/* Whether @p h is open on @p path, or with @p below on a name below the
   directory @p path. */
static bool handle_at(const fs_handle *h, const char *path, bool below)
{
    if (!below) return strcmp(h->path, path) == 0;
    size_t n = strlen(path);
    return strncmp(h->path, path, n) == 0 && h->path[n] == '/';
}

/* Handles registered under @p path (or below it), each with a reference
   taken. */
static size_t collect(cellfs *fs, const char *path, bool below, fs_handle ***out)
{
    size_t n = 0, cap = 0;
    fs_handle **v = NULL;
    pthread_mutex_lock(&fs->mu);
    for (fs_handle *h = fs->handles; h; h = h->next) {
        if (h->orphan || h->opening || !handle_at(h, path, below)) continue;
        if (n == cap) {
            size_t nc = cap ? 2 * cap : 4;
            fs_handle **nv = realloc(v, nc * sizeof *nv);
            if (!nv) break;
            v = nv;
            cap = nc;
        }
        h->refs++;
        v[n++] = h;
    }
    pthread_mutex_unlock(&fs->mu);
    *out = v;
    return n;
}

size_t fs_handles_collect(cellfs *fs, const char *path, fs_handle ***out)
{
    return collect(fs, path, false, out);
}

void fs_handles_drop(cellfs *fs, fs_handle **v, size_t n)
{
    pthread_mutex_lock(&fs->mu);
    for (size_t i = 0; i < n; i++) fs_handle_unref(fs, v[i]);
    pthread_mutex_unlock(&fs->mu);
    free(v);
}

/* Removes @p h from the registry (fs->mu held). */
void fs_handle_unregister(cellfs *fs, fs_handle *h)
{
    for (fs_handle **pp = &fs->handles; *pp; pp = &(*pp)->next) {
        if (*pp == h) {
            *pp = h->next;
            break;
        }
    }
}

int fs_handle_release(cellfs *fs, fs_handle *h)
{
    /* A descriptor that shared the open file with others: their close
       commits (each close(2) of a writer flushed it already). */
    pthread_mutex_lock(&fs->mu);
    bool last = fs_group_leave(h);
    pthread_mutex_unlock(&fs->mu);
    if (!last) return 0;
    int rc = fs_handle_commit(fs, h, false, false);
    /* A direct open file's value may predate a commit that happened while
       it was open (a reader's snapshot; a writer's buffer, which readers
       of its process share): its short reads have then told the kernel an
       old size, and a private mapping of it (MAP_PRIVATE maps a direct-I/O
       file through the kernel's one set of pages) filled pages with that
       old value; a cached reader whose lease a writer broke may have done
       the same. Neither may outlive the file, and both go before it leaves
       the registry: until then no new reader uses the page cache
       (fs_lease_may_cache). A writer's own last commit does not count
       (fs_handle_commit moves its open_commits on). */
    pthread_mutex_lock(&fs->mu);
    bool stale = h->kind == FS_H_CELL && !h->paged &&
                 (h->cached ? h->lease_broken
                            : atomic_load(&fs->commits) != h->open_commits);
    char *path = stale ? strdup(h->path) : NULL;
    pthread_mutex_unlock(&fs->mu);
    if (path) fs_kernel_forget(fs, path);
    free(path);
    pthread_mutex_lock(&fs->mu);
    fs_handle_unregister(fs, h);
    if (h->cached || h->writable) pthread_cond_broadcast(&fs->readers_gone);
    h->released = true;
    fs_handle_unref(fs, h);
    pthread_mutex_unlock(&fs->mu);
    return rc;
}

static int commit_at(cellfs *fs, const char *path, bool below)
{
    fs_handle **v;
    size_t n = collect(fs, path, below, &v);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        int r = fs_handle_commit(fs, v[i], false, false);
        if (r && !rc) rc = r;
    }
    fs_handles_drop(fs, v, n);
    return rc;
}

int fs_handles_commit_path(cellfs *fs, const char *path)
{
    return commit_at(fs, path, false);
}

int fs_handles_commit_below(cellfs *fs, const char *dir)
{
    return commit_at(fs, dir, true);
}

/* @p h now names @p np (malloc'd), or is an orphan when NULL. */
static void handle_moved(cellfs *fs, fs_handle *h, char *np)
{
    pthread_mutex_lock(&fs->mu);
    if (np) {
        free(h->path);
        h->path = np;
    } else {
        h->orphan = true;
    }
    pthread_mutex_unlock(&fs->mu);
}

void fs_handles_move_below(cellfs *fs, const char *from, const char *to, const fs_path *prow)
{
    size_t flen = strlen(from), tlen = strlen(to);
    pthread_mutex_lock(&fs->mu);
    for (fs_handle *h = fs->handles; h; h = h->next) {
        if (h->orphan || !handle_at(h, from, true)) continue;
        const char *rest = h->path + flen;
        char *np = malloc(tlen + strlen(rest) + 1);
        uint8_t *row = NULL;
        if (np && h->kind == FS_H_CELL) {
            row = malloc(prow->row_len ? prow->row_len : 1);
            if (!row) {
                free(np);
                np = NULL;
            } else if (prow->row_len) {
                memcpy(row, prow->row, prow->row_len);
            }
        }
        if (!np) {             /* out of memory: it can no longer be written */
            h->orphan = true;
            continue;
        }
        memcpy(np, to, tlen);
        strcpy(np + tlen, rest);
        free(h->path);
        h->path = np;
        if (row) {
            free(h->moved_row);
            h->moved_row = row;
            h->moved_row_len = prow->row_len;
            h->moved_row_name = prow->row_name;
        }
    }
    pthread_mutex_unlock(&fs->mu);
}

void fs_handle_settle(cellfs *fs, fs_handle *h)
{
    pthread_mutex_lock(&fs->mu);
    uint8_t *row = h->moved_row;
    size_t len = h->moved_row_len;
    if (row) {
        h->moved_row = NULL;
        h->ref.row_name = h->moved_row_name;
    }
    pthread_mutex_unlock(&fs->mu);
    if (!row) return;
    free(h->ref_row);
    h->ref_row = row;
    h->ref.row = row;
    h->ref.row_len = len;
}

void fs_handles_settle_below(cellfs *fs, const char *dir)
{
    fs_handle **v;
    size_t n = collect(fs, dir, true, &v);
    for (size_t i = 0; i < n; i++) {
        pthread_mutex_lock(&v[i]->mu);
        fs_handle_settle(fs, v[i]);
        pthread_mutex_unlock(&v[i]->mu);
    }
    fs_handles_drop(fs, v, n);
}

void fs_handles_orphan(cellfs *fs, const char *path)
{
    pthread_mutex_lock(&fs->mu);
    for (fs_handle *h = fs->handles; h; h = h->next)
        if (strcmp(h->path, path) == 0) h->orphan = true;
    pthread_mutex_unlock(&fs->mu);
}

void fs_handles_rename(cellfs *fs, const char *from, const char *to, const fs_path *pto)
{
    fs_handles_orphan(fs, to);
    fs_handle **v;
    size_t n = fs_handles_collect(fs, from, &v);
    for (size_t i = 0; i < n; i++) {
        fs_handle *h = v[i];
        char *np = strdup(to);
        pthread_mutex_lock(&h->mu);
        if (h->kind == FS_H_CELL && pto->kind == FS_CELL && np) (void)fs_handle_set_ref(h, pto);
        pthread_mutex_unlock(&h->mu);
        handle_moved(fs, h, np);
    }
    fs_handles_drop(fs, v, n);
}

int fs_handles_stat(cellfs *fs, const char *path, pid_t pid, size_t *size, int64_t *ts_ms,
                    bool *mine)
{
    fs_handle **v;
    size_t n = fs_handles_collect(fs, path, &v);
    int found = 0;
    *mine = false;
    for (size_t i = 0; i < n && !*mine; i++) {
        fs_handle *h = v[i];
        pthread_mutex_lock(&h->mu);
        bool paged = h->paged && !atomic_load(&h->closed);
        if (h->kind == FS_H_CELL && (h->dirty || !h->in_store || paged)) {
            found = 1;
            *size = h->len;
            *ts_ms = h->has_set_ts ? h->set_ts : h->ts;
            *mine = paged || fs_group_same(fs, h, pid);
        }
        pthread_mutex_unlock(&h->mu);
    }
    fs_handles_drop(fs, v, n);
    return found;
}

/* The paged writer open on the cell @p h names, other than @p h and not
   closed since it last wrote, with a reference (fs_handles_unref); NULL
   when there is none. */
static fs_handle *paged_other(cellfs *fs, const fs_handle *h)
{
    pthread_mutex_lock(&fs->mu);
    fs_handle *o = fs->handles;
    while (o && !(o != h && o->paged && !atomic_load(&o->closed) && !o->orphan &&
                  strcmp(o->path, h->path) == 0))
        o = o->next;
    if (o) o->refs++;
    pthread_mutex_unlock(&fs->mu);
    return o;
}

int fs_handles_paged_stat(cellfs *fs, const fs_handle *h, size_t *size, int64_t *ts_ms)
{
    fs_handle *o = paged_other(fs, h);
    if (!o) return 0;
    pthread_mutex_lock(&o->mu);
    *size = o->len;
    *ts_ms = o->has_set_ts ? o->set_ts : o->ts;
    pthread_mutex_unlock(&o->mu);
    pthread_mutex_lock(&fs->mu);
    fs_handle_unref(fs, o);
    pthread_mutex_unlock(&fs->mu);
    return 1;
}

int fs_handles_paged_read(cellfs *fs, const fs_handle *h, char *buf, size_t size, off_t off)
{
    fs_handle *o = paged_other(fs, h);
    if (!o) return -1;
    pthread_mutex_lock(&o->mu);
    size_t n = 0;
    if (off >= 0 && (size_t)off < o->len) {
        n = o->len - (size_t)off;
        if (n > size) n = size;
        memcpy(buf, o->buf + off, n);
    }
    pthread_mutex_unlock(&o->mu);
    pthread_mutex_lock(&fs->mu);
    fs_handle_unref(fs, o);
    pthread_mutex_unlock(&fs->mu);
    return (int)n;
}

int fs_handles_stat_ino(cellfs *fs, uint64_t ino, struct stat *st)
{
    /* A scratch file beside the rows (removed while open: stress-ng's
       files) shows its bytes, as a cell's open file does. */
    pthread_mutex_lock(&fs->mu);
    fs_handle *s = fs->handles;
    while (s && !(s->ino == ino && s->kind == FS_H_SCRATCH && s->scratch)) s = s->next;
    if (s) fs_stat_file(fs, st, s->scratch->len, fs_ts_to_ms(&s->scratch->mtime), true);
    pthread_mutex_unlock(&fs->mu);
    if (s) return 1;
    fs_handle *h = fs_handles_ref_ino(fs, ino);
    if (!h) return 0;
    pthread_mutex_lock(&h->mu);
    fs_stat_file(fs, st, h->len, h->has_set_ts ? h->set_ts : h->ts, !h->ref.asof);
    pthread_mutex_unlock(&h->mu);
    fs_handles_unref(fs, h);
    return 1;
}

fs_handle *fs_handles_ref_ino(cellfs *fs, uint64_t ino)
{
    pthread_mutex_lock(&fs->mu);
    fs_handle *h = fs->handles;
    while (h && !(h->ino == ino && h->kind == FS_H_CELL)) h = h->next;
    if (h) h->refs++;
    pthread_mutex_unlock(&fs->mu);
    return h;
}

void fs_handles_unref(cellfs *fs, fs_handle *h)
{
    pthread_mutex_lock(&fs->mu);
    fs_handle_unref(fs, h);
    pthread_mutex_unlock(&fs->mu);
}

int fs_handles_set_ts(cellfs *fs, const char *path, int64_t ts_ms)
{
    fs_handle **v;
    size_t n = fs_handles_collect(fs, path, &v);
    int any = 0;
    for (size_t i = 0; i < n; i++) {
        fs_handle *h = v[i];
        pthread_mutex_lock(&h->mu);
        if (h->kind == FS_H_CELL && h->dirty && !h->ref.has_version) {
            h->has_set_ts = true;
            h->set_ts = ts_ms;
            any = 1;
        }
        pthread_mutex_unlock(&h->mu);
    }
    fs_handles_drop(fs, v, n);
    return any;
}
