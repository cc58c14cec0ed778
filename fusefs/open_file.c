/**
 * @file open_file.c
 * Opening a file and its buffer: what an open file starts from (the
 * committed value, .schema text or scratch bytes), and its reads, writes
 * and truncates (contract and semantics in open_file.h). Commits are
 * commit.c's, the registry handles.c's, page cache leases leases.c's.
 * Called by ops_file.c and ops_attr.c; calls cells.c, ops_schema.c.
 */
#include "open_file_i.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

#define FS_EXT_MAX 1024          /* written ranges kept before collapsing */

static int buf_reserve(fs_handle *h, size_t need)
{
    if (need <= h->cap) return 0;
    size_t nc = h->cap ? h->cap : 4096;
    while (nc < need) nc = nc > SIZE_MAX / 2 ? need : nc * 2;
    uint8_t *nb = realloc(h->buf, nc);
    if (!nb) return -ENOMEM;
    h->buf = nb;
    h->cap = nc;
    return 0;
}

static int buf_resize(fs_handle *h, size_t n)
{
    int rc = buf_reserve(h, n);
    if (rc) return rc;
    if (n > h->len) memset(h->buf + h->len, 0, n - h->len);
    h->len = n;
    return 0;
}

static void ext_add(fs_handle *h, size_t s, size_t e)
{
    if (s >= e) return;
    if (h->next_ext > 0) {
        fs_extent *last = &h->ext[h->next_ext - 1];
        if (s <= last->end && e >= last->start) {
            if (s < last->start) last->start = s;
            if (e > last->end) last->end = e;
            return;
        }
    }
    if (h->next_ext == FS_EXT_MAX) {
        /* Collapse into one range: bytes between are the handle's view. */
        size_t lo = s, hi = e;
        for (size_t i = 0; i < h->next_ext; i++) {
            if (h->ext[i].start < lo) lo = h->ext[i].start;
            if (h->ext[i].end > hi) hi = h->ext[i].end;
        }
        h->ext[0].start = lo;
        h->ext[0].end = hi;
        h->next_ext = 1;
        return;
    }
    if (h->next_ext == h->ext_cap) {
        size_t nc = h->ext_cap ? 2 * h->ext_cap : 8;
        fs_extent *ne = realloc(h->ext, nc * sizeof *ne);
        if (!ne) { /* fall back to the whole buffer as one range */
            h->whole = true;
            return;
        }
        h->ext = ne;
        h->ext_cap = nc;
    }
    h->ext[h->next_ext].start = s;
    h->ext[h->next_ext].end = e;
    h->next_ext++;
}

int fs_handle_set_ref(fs_handle *h, const fs_path *p)
{
    uint8_t *row = malloc(p->row_len ? p->row_len : 1);
    uint8_t *qual = malloc(p->qual_len ? p->qual_len : 1);
    if (!row || !qual) {
        free(row);
        free(qual);
        return -ENOMEM;
    }
    if (p->row_len) memcpy(row, p->row, p->row_len);
    if (p->qual_len) memcpy(qual, p->qual, p->qual_len);
    free(h->ref_row);
    free(h->ref_qual);
    h->ref = *p;
    h->ref.row_buf = h->ref.qual_buf = NULL;
    h->ref.row_text = h->ref.qual_text = h->ref.last = NULL;
    h->ref_row = row;
    h->ref_qual = qual;
    h->ref.row = row;
    h->ref.qual = qual;
    return 0;
}

/* Loads the value a new open file starts from: the committed value
   (readers never see another open file's uncommitted buffer, truncated or
   half-written), or empty when the cell is not in the store but another
   open file has created it and not committed yet. */
static int load_cell(cellfs *fs, fs_handle *h, const char *path)
{
    uint8_t *v = NULL;
    size_t len = 0;
    int64_t ts = 0;
    int rc = fs_cell_get(fs, &h->ref, &v, &len, &ts);
    if (rc == 0) {
        h->buf = v;
        h->len = h->cap = len;
        h->ts = ts;
        h->in_store = true;
        return 0;
    }
    if (rc != -ENOENT) return rc;
    fs_handle **others;
    size_t n = fs_handles_collect(fs, path, &others);
    for (size_t i = 0; i < n && rc == -ENOENT; i++) {
        fs_handle *o = others[i];
        pthread_mutex_lock(&o->mu);
        if (o->kind == FS_H_CELL && !o->in_store) {
            h->ts = o->has_set_ts ? o->set_ts : o->ts;
            rc = 0;
        }
        pthread_mutex_unlock(&o->mu);
    }
    fs_handles_drop(fs, others, n);
    return rc;
}

/* Bytes a commit needs beyond its value: the key and the log record. */
#define FS_COMMIT_SLACK 4096

/* How long, and with how much room to spare, the last statvfs answers
   for the next checks: a disk with this much free cannot fill up in
   this time from what this mount writes (each check takes its bytes off),
   and hardly from what others write. */
#define FS_ROOM_FRESH_NS 100000000LL          /* 100 ms */
#define FS_ROOM_MARGIN (256ull << 20)         /* 256 MiB */

/* Whether a commit of @p bytes cannot fit on the local disk that holds the
   store. A cell is committed at close, but the shell's redirections
   (echo v > q, : > q, >>) never check close(2): a disk that is already
   full must fail the open or the write, where every tool sees it, as a
   local file system does. False when unknown (not a local store, statvfs
   fails); the commit at close still reports what happens then. A disk
   with ample room (FS_ROOM_MARGIN) is not asked again for FS_ROOM_FRESH_NS:
   a create and its write cost no statfs each. */
static bool no_room(cellfs *fs, size_t bytes)
{
    if (!kv_location_is_local(fs->store_path)) return false;
    unsigned long long need = (unsigned long long)bytes + FS_COMMIT_SLACK;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    pthread_mutex_lock(&fs->room_mu);
    long long age = (long long)(now.tv_sec - fs->room_at.tv_sec) * 1000000000LL +
                    (now.tv_nsec - fs->room_at.tv_nsec);
    bool ample = fs->room_known && age >= 0 && age < FS_ROOM_FRESH_NS &&
                 fs->room_avail >= need + FS_ROOM_MARGIN;
    if (ample) fs->room_avail -= need;
    pthread_mutex_unlock(&fs->room_mu);
    if (ample) return false;
    struct statvfs sv;
    if (statvfs(fs->store_path, &sv) != 0) return false;
    unsigned long long avail = (unsigned long long)sv.f_bavail * sv.f_frsize;
    pthread_mutex_lock(&fs->room_mu);
    fs->room_known = true;
    fs->room_at = now;
    fs->room_avail = avail >= need ? avail - need : 0;
    pthread_mutex_unlock(&fs->room_mu);
    return avail < need;
}

int fs_handle_open(cellfs *fs, pid_t pid, const char *path, const fs_path *p, int flags,
                   bool create, fs_handle **out)
{
    *out = NULL;
    pid_t tgid = 0;
    if (p->kind == FS_CELL && !create && !p->asof) {
        fs_handle *g = fs_group_join(fs, pid, path, flags, &tgid);
        if (g) {  /* the process's writer of the cell: one open file for both */
            if ((flags & O_ACCMODE) != O_RDONLY && (flags & O_TRUNC)) {
                int rc = fs_handle_truncate(fs, g, 0);
                if (rc) {
                    (void)fs_handle_release(fs, g);
                    return rc;
                }
                /* As a new O_TRUNC open: a close before any write commits
                   the empty value, which the next write then replaces. */
                pthread_mutex_lock(&g->mu);
                g->written = false;
                pthread_mutex_unlock(&g->mu);
            }
            *out = g;
            return 1;
        }
    }
    fs_handle *h = calloc(1, sizeof *h);
    if (!h) return -ENOMEM;
    pthread_mutex_init(&h->mu, NULL);
    h->path = strdup(path);
    int rc = h->path ? fs_handle_set_ref(h, p) : -ENOMEM;
    h->writable = (flags & O_ACCMODE) != O_RDONLY;
    h->open_commits = atomic_load(&fs->commits);
    h->pid = pid;
    h->tgid = tgid;
    h->members = 1;
    h->append = (flags & O_APPEND) != 0;
    h->append_pure = h->append;
    bool trunc = h->writable && (flags & O_TRUNC);
    if (rc == 0 && h->writable && p->asof) rc = -EROFS;
    bool registered = false;
    if (rc == 0 && h->writable && p->kind == FS_CELL) {
        fs_lease_write(fs, h);
        registered = true;
    }
    if (rc == 0 && p->kind == FS_SCHEMA) {
        h->kind = FS_H_SCHEMA;
        char *text;
        size_t len;
        rc = fs_schema_text(fs, p->table, &text, &len);
        if (rc == 0) {
            h->buf = (uint8_t *)text;
            h->len = len;
            h->cap = len + 1;
            if (trunc) {
                h->len = 0;
                h->dirty = true;
            }
        }
    } else if (rc == 0 && p->kind == FS_ROW) {
        h->kind = FS_H_SCRATCH;
        pthread_mutex_lock(&fs->mu);
        fs_scratch *s = fs_scratch_find(fs, p->table, p->last, p->last_len);
        if (!s && create) s = fs_scratch_new(fs, p->table, p->last, p->last_len, &rc);
        else if (!s) rc = -ENOENT;
        if (s) {
            s->refs++;
            h->scratch = s;
            if (trunc || create) s->len = 0;
        }
        pthread_mutex_unlock(&fs->mu);
    } else if (rc == 0) {
        h->kind = FS_H_CELL;
        if ((create || trunc) && no_room(fs, 0)) {
            fs_log(fs, "%s %s: the disk of the store is full (no space left on device)",
                   create ? "create" : "truncate", path);
            rc = -ENOSPC;
        } else if (create) {
            /* O_APPEND: appended to whatever a concurrent creator committed
               first (`echo x >> log` from many shells loses nothing). */
            h->whole = !h->append;
            h->dirty = true;
            h->ts = kv_store_now(fs->store);
        } else if (trunc) {
            size_t len;
            rc = fs_cell_get(fs, p, NULL, &len, &h->ts);
            if (rc == 0) h->in_store = true;
            if (rc == -ENOENT) rc = load_cell(fs, h, path);
            h->len = 0;
            h->whole = h->dirty = true;
        } else {
            rc = load_cell(fs, h, path);
        }
        h->append_base = h->len;
    }
    if (rc != 0) {
        pthread_mutex_lock(&fs->mu);
        if (registered) fs_handle_unregister(fs, h);
        if (h->scratch) fs_scratch_put(fs, h->scratch);
        pthread_mutex_unlock(&fs->mu);
        fs_handle_free(h);
        return rc;
    }
    pthread_mutex_lock(&fs->mu);
    if (registered) {
        h->paged = fs_lease_page(fs, h, flags, p);
        h->opening = false;
    } else {
        h->cached = h->kind == FS_H_CELL && !h->writable && h->len <= FS_CACHE_MAX_VALUE &&
                    atomic_load(&fs->commits) == h->open_commits && fs_lease_may_cache(fs, path);
        h->refs = 1;
        h->next = fs->handles;
        fs->handles = h;
    }
    pthread_mutex_unlock(&fs->mu);
    *out = h;
    return 0;
}

void fs_handle_follow(cellfs *fs, fs_handle *h)
{
    if (h->kind != FS_H_CELL || h->writable) return;
    uint64_t now = atomic_load(&fs->commits);
    pthread_mutex_lock(&fs->mu);
    bool broken = h->cached && h->lease_broken && now != h->open_commits;
    pthread_mutex_unlock(&fs->mu);
    if (!broken) return;
    uint8_t *v = NULL;
    size_t len = 0;
    int64_t ts = 0;
    int rc = fs_cell_get(fs, &h->ref, &v, &len, &ts);
    if (rc == 0) {
        free(h->buf);
        h->buf = v;
        h->len = h->cap = len;
        h->ts = ts;
    } else if (rc == -ENOENT) {
        h->len = 0;                /* removed meanwhile: reads as empty */
    } else {
        return;                    /* keep the snapshot; try again next read */
    }
    pthread_mutex_lock(&fs->mu);
    h->open_commits = now;
    pthread_mutex_unlock(&fs->mu);
}

/* The committed value of @p h's cell, read again after any change since
   @p h opened (h->mu held): what the kernel's pages of the file hold.
   NULL with *len 0 when the cell is gone; false on a store error. */
static bool committed_value(cellfs *fs, fs_handle *h, const uint8_t **data, size_t *len)
{
    uint64_t now = atomic_load(&fs->commits);
    pthread_mutex_lock(&fs->mu);
    bool current = h->open_commits == now;
    pthread_mutex_unlock(&fs->mu);
    if (current) {               /* its snapshot is the committed value */
        *data = h->buf;
        *len = h->len;
        return true;
    }
    if (!h->fill_valid || h->fill_commits != now) {
        uint8_t *v = NULL;
        size_t n = 0;
        int64_t ts;
        int rc = fs_cell_get(fs, &h->ref, &v, &n, &ts);
        if (rc && rc != -ENOENT) return false;
        free(h->fill);
        h->fill = v;
        h->fill_len = rc ? 0 : n;
        h->fill_commits = now;
        h->fill_valid = true;
    }
    *data = h->fill;
    *len = h->fill_len;
    return true;
}

int fs_handle_read(cellfs *fs, fs_handle *h, char *buf, size_t size, off_t off, bool to_pages)
{
    bool shared = to_pages && h->kind == FS_H_CELL && !h->writable;
    if (shared) {
        pthread_mutex_lock(&fs->mu);
        shared = !h->cached && !h->paged;
        pthread_mutex_unlock(&fs->mu);
    }
    if (shared) {
        int n = fs_handles_paged_read(fs, h, buf, size, off);
        if (n >= 0) return n;
    }
    pthread_mutex_t *mu = h->kind == FS_H_SCRATCH ? &fs->mu : &h->mu;
    pthread_mutex_lock(mu);
    fs_handle_follow(fs, h);
    const uint8_t *data = h->buf;
    size_t len = h->len;
    if (shared && !committed_value(fs, h, &data, &len)) {
        pthread_mutex_unlock(mu);
        return -EIO;
    }
    if (h->kind == FS_H_SCRATCH) {
        data = h->scratch->buf;
        len = h->scratch->len;
    }
    size_t n = 0;
    if (off >= 0 && (size_t)off < len) {
        n = len - (size_t)off;
        if (n > size) n = size;
        memcpy(buf, data + off, n);
    }
    pthread_mutex_unlock(mu);
    return (int)n;
}

static int scratch_write(cellfs *fs, fs_handle *h, const char *buf, size_t size, off_t off)
{
    int rc = 0;
    pthread_mutex_lock(&fs->mu);
    fs_scratch *s = h->scratch;
    if (h->append) off = (off_t)s->len;
    size_t end = (size_t)off + size;
    if (end > FS_SCRATCH_BYTES) {
        rc = -EFBIG;
    } else {
        if (end > s->len) {
            uint8_t *nb = realloc(s->buf, end);
            if (!nb) rc = -ENOMEM;
            else {
                memset(nb + s->len, 0, end - s->len);
                s->buf = nb;
                s->len = end;
            }
        }
        if (rc == 0) {
            memcpy(s->buf + off, buf, size);
            clock_gettime(CLOCK_REALTIME, &s->mtime);
        }
    }
    pthread_mutex_unlock(&fs->mu);
    if (rc == -EFBIG) {
        char *hp = fs_handle_path(fs, h);
        fs_log(fs, "write %s: a temporary file above %u bytes", hp ? hp : "?", FS_SCRATCH_BYTES);
        free(hp);
    }
    return rc ? rc : (int)size;
}

int fs_handle_write(cellfs *fs, fs_handle *h, const char *buf, size_t size, off_t off,
                    bool append)
{
    if (!h->writable) return -EBADF;
    if (off < 0) return -EINVAL;
    if (h->kind == FS_H_SCRATCH) return scratch_write(fs, h, buf, size, off);
    if (append && !h->append) {   /* a paged writer's pages are at @p off */
        pthread_mutex_lock(&fs->mu);
        append = !h->paged;
        pthread_mutex_unlock(&fs->mu);
    }
    atomic_store(&h->closed, false);
    pthread_mutex_lock(&h->mu);
    int rc = 0;
    if (h->append || append) off = (off_t)h->len;
    size_t end = (size_t)off + size;
    if (h->kind == FS_H_CELL && end > fs->max_value) {
        h->failed = true;
        pthread_mutex_unlock(&h->mu);
        char *hp = fs_handle_path(fs, h);
        fs_log(fs, "write %s: value of %zu bytes is above the limit of %zu bytes (EFBIG)",
               hp ? hp : "?", end, fs->max_value);
        free(hp);
        return -EFBIG;
    }
    /* An append stores its new bytes; any other write the whole value. */
    size_t need = h->append_pure ? end - h->append_base : (end > h->len ? end : h->len);
    if (h->kind == FS_H_CELL && no_room(fs, need)) {
        h->failed = true;
        pthread_mutex_unlock(&h->mu);
        char *hp = fs_handle_path(fs, h);
        fs_log(fs, "write %s: %zu bytes do not fit on the disk of the store (no space left on "
               "device)", hp ? hp : "?", need);
        free(hp);
        return -ENOSPC;
    }
    size_t old_len = h->len;
    uint8_t *saved = NULL;
    size_t saved_n = 0;
    if (h->kind == FS_H_SCHEMA && (size_t)off < old_len) {
        saved_n = old_len - (size_t)off < size ? old_len - (size_t)off : size;
        saved = malloc(saved_n);
        if (!saved) rc = -ENOMEM;
        else memcpy(saved, h->buf + off, saved_n);
    }
    if (rc == 0 && end > h->len) rc = buf_resize(h, end);
    if (rc == 0) {
        memcpy(h->buf + off, buf, size);
        if (h->kind == FS_H_SCHEMA) {
            rc = fs_schema_check(fs, h->ref.table, (const char *)h->buf, h->len, (size_t)off,
                                 end, true);
            if (rc != 0) { /* refuse the write: the buffer stays as it was */
                if (saved_n) memcpy(h->buf + off, saved, saved_n);
                h->len = old_len;
            }
        }
    }
    free(saved);
    if (rc == 0) {
        if (!h->whole && !h->append_pure) ext_add(h, (size_t)off, end);
        h->dirty = h->written = true;
        h->has_set_ts = false;
    }
    pthread_mutex_unlock(&h->mu);
    return rc ? rc : (int)size;
}

int fs_handle_truncate(cellfs *fs, fs_handle *h, off_t size)
{
    if (size < 0) return -EINVAL;
    if (h->kind == FS_H_SCRATCH) {
        int rc = 0;
        pthread_mutex_lock(&fs->mu);
        fs_scratch *s = h->scratch;
        if ((size_t)size > FS_SCRATCH_BYTES) rc = -EFBIG;
        else if ((size_t)size > s->len) {
            uint8_t *nb = realloc(s->buf, (size_t)size);
            if (!nb) rc = -ENOMEM;
            else {
                memset(nb + s->len, 0, (size_t)size - s->len);
                s->buf = nb;
            }
        }
        if (rc == 0) s->len = (size_t)size;
        pthread_mutex_unlock(&fs->mu);
        return rc;
    }
    atomic_store(&h->closed, false);
    pthread_mutex_lock(&h->mu);
    if (h->kind == FS_H_CELL && (size_t)size > fs->max_value) {
        h->failed = true;
        pthread_mutex_unlock(&h->mu);
        char *hp = fs_handle_path(fs, h);
        fs_log(fs, "truncate %s: %lld bytes is above the value limit of %zu bytes (EFBIG)",
               hp ? hp : "?", (long long)size, fs->max_value);
        free(hp);
        return -EFBIG;
    }
    size_t n = (size_t)size;
    if (h->append_pure) {
        h->append_pure = false;
        ext_add(h, h->append_base, h->len);
    }
    int rc = buf_resize(h, n);
    if (rc == 0) {
        if (n == 0) {
            h->whole = true;
            h->next_ext = 0;
        } else if (!h->whole) {
            size_t k = 0;
            for (size_t i = 0; i < h->next_ext; i++) {
                fs_extent e = h->ext[i];
                if (e.start >= n) continue;
                if (e.end > n) e.end = n;
                h->ext[k++] = e;
            }
            h->next_ext = k;
            if (!h->trunc_set || n < h->trunc_min) h->trunc_min = n;
            h->trunc_set = true;
            h->trunc_len = n;
        }
        h->dirty = h->written = true;
        h->has_set_ts = false;
    }
    pthread_mutex_unlock(&h->mu);
    return rc;
}
