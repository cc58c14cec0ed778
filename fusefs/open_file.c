/**
 * @file open_file.c
 * Open files and their write buffers; the one place where buffered writes
 * become store mutations (contract and semantics in open_file.h). Called
 * by ops_file.c and ops_attr.c; calls cells.c, ops_schema.c and kvcore.h.
 */
#include "open_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#define FS_EXT_MAX 1024          /* written ranges kept before collapsing */
#define FS_MERGE_TRIES 64        /* check-and-mutate retries of a merge */

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

static void handle_free(fs_handle *h)
{
    free(h->buf);
    free(h->ext);
    free(h->path);
    free(h->ref_row);
    free(h->ref_qual);
    pthread_mutex_destroy(&h->mu);
    free(h);
}

/* fs->mu held. */
static void handle_unref(cellfs *fs, fs_handle *h)
{
    if (--h->refs > 0) return;
    if (h->scratch) fs_scratch_put(fs, h->scratch);
    handle_free(h);
}

static int set_ref(fs_handle *h, const fs_path *p)
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

/* Handles registered under @p path, each with a reference taken. */
static size_t collect(cellfs *fs, const char *path, fs_handle ***out)
{
    size_t n = 0, cap = 0;
    fs_handle **v = NULL;
    pthread_mutex_lock(&fs->mu);
    for (fs_handle *h = fs->handles; h; h = h->next) {
        if (h->orphan || h->opening || strcmp(h->path, path) != 0) continue;
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

static void drop(cellfs *fs, fs_handle **v, size_t n)
{
    pthread_mutex_lock(&fs->mu);
    for (size_t i = 0; i < n; i++) handle_unref(fs, v[i]);
    pthread_mutex_unlock(&fs->mu);
    free(v);
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
    size_t n = collect(fs, path, &others);
    for (size_t i = 0; i < n && rc == -ENOENT; i++) {
        fs_handle *o = others[i];
        pthread_mutex_lock(&o->mu);
        if (o->kind == FS_H_CELL && !o->in_store) {
            h->ts = o->has_set_ts ? o->set_ts : o->ts;
            rc = 0;
        }
        pthread_mutex_unlock(&o->mu);
    }
    drop(fs, others, n);
    return rc;
}

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
static bool may_cache(cellfs *fs, const char *path)
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

/* Registers writer @p w (opening) and waits for the cached readers it
   would disturb. fs->mu held on entry and return. */
static void lease_take(cellfs *fs, fs_handle *w, bool *broken)
{
    w->opening = true;
    w->refs = 1;
    w->next = fs->handles;
    fs->handles = w;
    *broken = false;
    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += FS_LEASE_WAIT_MS / 1000;
    deadline.tv_nsec += (long)(FS_LEASE_WAIT_MS % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    while (cached_readers(fs, w->path, false)) {
        if (pthread_cond_timedwait(&fs->readers_gone, &fs->mu, &deadline) == ETIMEDOUT) {
            *broken = cached_readers(fs, w->path, true);
            break;
        }
    }
}

/* lease_take with its own locking, and the log line when it ran out. */
static void write_lease(cellfs *fs, fs_handle *w)
{
    bool broken;
    pthread_mutex_lock(&fs->mu);
    lease_take(fs, w, &broken);
    pthread_mutex_unlock(&fs->mu);
    if (broken)
        fs_log(fs, "write %s: a reader kept the file open for over %d ms; it now follows the "
               "new value", w->path, FS_LEASE_WAIT_MS);
}

/* Removes @p h from the registry (fs->mu held). */
static void unregister(cellfs *fs, fs_handle *h)
{
    for (fs_handle **pp = &fs->handles; *pp; pp = &(*pp)->next) {
        if (*pp == h) {
            *pp = h->next;
            break;
        }
    }
}

fs_handle *fs_write_begin(cellfs *fs, const char *path)
{
    fs_handle *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    pthread_mutex_init(&w->mu, NULL);
    w->path = strdup(path);
    if (!w->path) {
        handle_free(w);
        return NULL;
    }
    w->writable = true;
    write_lease(fs, w);
    return w;
}

void fs_write_end(cellfs *fs, fs_handle *w)
{
    if (!w) return;
    pthread_mutex_lock(&fs->mu);
    unregister(fs, w);
    handle_unref(fs, w);
    pthread_mutex_unlock(&fs->mu);
}

int fs_handle_open(cellfs *fs, pid_t pid, const char *path, const fs_path *p, int flags,
                   bool create, fs_handle **out)
{
    *out = NULL;
    fs_handle *h = calloc(1, sizeof *h);
    if (!h) return -ENOMEM;
    pthread_mutex_init(&h->mu, NULL);
    h->path = strdup(path);
    int rc = h->path ? set_ref(h, p) : -ENOMEM;
    h->writable = (flags & O_ACCMODE) != O_RDONLY;
    h->open_commits = atomic_load(&fs->commits);
    h->pid = pid;
    h->append = (flags & O_APPEND) != 0;
    h->append_pure = h->append;
    bool trunc = h->writable && (flags & O_TRUNC);
    if (rc == 0 && h->writable && p->asof) rc = -EROFS;
    bool registered = false;
    if (rc == 0 && h->writable && p->kind == FS_CELL) {
        write_lease(fs, h);
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
        if (create) {
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
        if (registered) unregister(fs, h);
        if (h->scratch) fs_scratch_put(fs, h->scratch);
        pthread_mutex_unlock(&fs->mu);
        handle_free(h);
        return rc;
    }
    pthread_mutex_lock(&fs->mu);
    if (registered) {
        h->opening = false;
    } else {
        h->cached = h->kind == FS_H_CELL && !h->writable && h->len <= FS_CACHE_MAX_VALUE &&
                    atomic_load(&fs->commits) == h->open_commits && may_cache(fs, path);
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

int fs_handle_read(cellfs *fs, fs_handle *h, char *buf, size_t size, off_t off)
{
    pthread_mutex_t *mu = h->kind == FS_H_SCRATCH ? &fs->mu : &h->mu;
    pthread_mutex_lock(mu);
    fs_handle_follow(fs, h);
    const uint8_t *data = h->buf;
    size_t len = h->len;
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
    if (rc == -EFBIG) fs_log(fs, "write %s: a temporary file above %u bytes", h->path,
                             FS_SCRATCH_BYTES);
    return rc ? rc : (int)size;
}

int fs_handle_write(cellfs *fs, fs_handle *h, const char *buf, size_t size, off_t off)
{
    if (!h->writable) return -EBADF;
    if (off < 0) return -EINVAL;
    if (h->kind == FS_H_SCRATCH) return scratch_write(fs, h, buf, size, off);
    pthread_mutex_lock(&h->mu);
    int rc = 0;
    if (h->append) off = (off_t)h->len;
    size_t end = (size_t)off + size;
    if (h->kind == FS_H_CELL && end > fs->max_value) {
        h->failed = true;
        pthread_mutex_unlock(&h->mu);
        fs_log(fs, "write %s: value of %zu bytes is above the limit of %zu bytes (EFBIG)",
               h->path, end, fs->max_value);
        return -EFBIG;
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
    pthread_mutex_lock(&h->mu);
    if (h->kind == FS_H_CELL && (size_t)size > fs->max_value) {
        h->failed = true;
        pthread_mutex_unlock(&h->mu);
        fs_log(fs, "truncate %s: %lld bytes is above the value limit of %zu bytes (EFBIG)",
               h->path, (long long)size, fs->max_value);
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

/* Builds the merged value: current store value @p v, truncated as the
   handle did, with the handle's written ranges on top. After truncates the
   size is the one the last truncate set (or a later write's end), and
   nothing of @p v at or past the smallest truncated size comes back: a
   file shrunk and grown again reads zeros there (fsx F1). */
static uint8_t *merge_value(const fs_handle *h, const uint8_t *v, size_t vlen, size_t *out_len)
{
    size_t len = h->trunc_set ? h->trunc_len : vlen;
    for (size_t i = 0; i < h->next_ext; i++)
        if (h->ext[i].end > len) len = h->ext[i].end;
    uint8_t *r = calloc(1, len ? len : 1);
    if (!r) return NULL;
    size_t keep = vlen < len ? vlen : len;
    if (h->trunc_set && keep > h->trunc_min) keep = h->trunc_min;
    if (keep) memcpy(r, v, keep);
    for (size_t i = 0; i < h->next_ext; i++) {
        size_t s = h->ext[i].start, e = h->ext[i].end;
        if (e > h->len) e = h->len;
        if (s < e) memcpy(r + s, h->buf + s, e - s);
    }
    *out_len = len;
    return r;
}

static kv_status put_one(cellfs *fs, const fs_path *p, int64_t ts, const void *v, size_t n,
                         const kv_write_options *w)
{
    kv_mutation *m = NULL;
    kv_status st = kv_mutation_new(&m, p->row, p->row_len);
    if (st == KV_OK) st = kv_mutation_put(m, p->family, p->qual, p->qual_len, ts, v, n);
    if (st == KV_OK) st = kv_mutate(fs->store, p->table, m, w);
    kv_mutation_free(m);
    return st;
}

/* fsync of a clean file: rewrite the newest value at its own timestamp
   with FSYNC_WAL, which changes nothing and syncs the log up to here. */
static int make_durable(cellfs *fs, fs_handle *h)
{
    if (h->ref.asof) return 0;
    uint8_t *v = NULL;
    size_t n = 0;
    int64_t ts;
    int rc = fs_cell_get(fs, &h->ref, &v, &n, &ts);
    if (rc == -ENOENT) return 0;
    if (rc) return rc;
    kv_write_options w;
    fs_wopts(fs, true, &w);
    kv_status st = put_one(fs, &h->ref, ts, v, n, &w);
    free(v);
    return fs_fail(fs, st, "fsync", h->path);
}

/* The value an append-only handle commits: the current value @p v with
   the bytes appended since the last commit after it. */
static uint8_t *append_value(const fs_handle *h, const uint8_t *v, size_t vlen, size_t *out_len)
{
    size_t add = h->len - h->append_base;
    uint8_t *r = malloc(vlen + add ? vlen + add : 1);
    if (!r) return NULL;
    if (vlen) memcpy(r, v, vlen);
    if (add) memcpy(r + vlen, h->buf + h->append_base, add);
    *out_len = vlen + add;
    return r;
}

/* The timestamp of a commit: q@<ts>'s own, a time set with utimens on the
   open file, else a new newest version (fs_next_ts). fs->stamp_mu held. */
static int commit_ts(cellfs *fs, fs_handle *h, int64_t *ts)
{
    const fs_path *p = &h->ref;
    if (p->has_version) {
        if (fs_put_masked(fs, p, p->version)) {
            fs_log(fs, "write %s: a delete marker at or after %lld hides a put at that time",
                   h->path, (long long)p->version);
            return -EPERM;
        }
        *ts = p->version;
        return 0;
    }
    if (h->has_set_ts) {
        if (!fs_put_masked(fs, p, h->set_ts)) {
            *ts = h->set_ts;
            return 0;
        }
        fs_log(fs, "write %s: timestamp %lld is hidden by a delete marker; writing as the "
               "newest version", h->path, (long long)h->set_ts);
    }
    return fs_next_ts(fs, p, ts);
}

/* Adds to @p m the deletes of the versions @p gone[0..n). */
static kv_status add_deletes(kv_mutation *m, const fs_path *p, const int64_t *gone, size_t n)
{
    kv_status st = KV_OK;
    for (size_t i = 0; i < n && st == KV_OK; i++)
        st = kv_mutation_delete_version(m, p->family, p->qual, p->qual_len, gone[i]);
    return st;
}

/* The versions a commit at @p ts deletes in the same mutation: the empty
   version of a placeholder commit, and with a time set by utimens every
   version after it (so that the value shows with the time set). */
static int commit_gone(cellfs *fs, fs_handle *h, int64_t ts, int64_t **gone, size_t *n)
{
    const fs_path *p = &h->ref;
    *gone = NULL;
    *n = 0;
    int rc = 0;
    if (h->has_set_ts && ts == h->set_ts && !p->has_version && ts < INT64_MAX) {
        int64_t newest;
        rc = fs_column_raw(fs, p, ts + 1, &newest, gone, n);
        if (rc) return rc;
    }
    if (h->whole && h->placeholder && !p->has_version && h->placeholder_ts != ts) {
        int64_t *ng = realloc(*gone, (*n + 1) * sizeof *ng);
        if (!ng) return -ENOMEM;
        *gone = ng;
        ng[(*n)++] = h->placeholder_ts;
    }
    return 0;
}

/* fs->stamp_mu held. */
static int commit_cell_locked(cellfs *fs, fs_handle *h, const kv_write_options *w)
{
    const fs_path *p = &h->ref;
    int64_t ts;
    int rc = commit_ts(fs, h, &ts);
    int64_t *gone = NULL;
    size_t ngone = 0;
    if (rc == 0) rc = commit_gone(fs, h, ts, &gone, &ngone);
    if (rc) {
        free(gone);
        return rc;
    }
    kv_status st = KV_OK;
    if (h->whole) {
        kv_mutation *m = NULL;
        st = kv_mutation_new(&m, p->row, p->row_len);
        if (st == KV_OK) st = kv_mutation_put(m, p->family, p->qual, p->qual_len, ts, h->buf, h->len);
        if (st == KV_OK) st = add_deletes(m, p, gone, ngone);
        if (st == KV_OK) st = kv_mutate(fs->store, p->table, m, w);
        kv_mutation_free(m);
    } else {
        /* Merge into the current value with check-and-mutate: a writer
           outside the mount (a shared backend) between the read and the
           put makes it try again. */
        bool append = h->append_pure;
        bool applied = false;
        uint8_t *r = NULL;
        size_t rlen = 0;
        for (int tries = 0; !applied && st == KV_OK && tries < FS_MERGE_TRIES; tries++) {
            uint8_t *v = NULL;
            size_t vlen = 0;
            int64_t vts;
            rc = fs_cell_get(fs, p, &v, &vlen, &vts);
            if (rc && rc != -ENOENT) {
                free(r);
                free(gone);
                return rc;
            }
            free(r);
            r = append ? append_value(h, v, vlen, &rlen) : merge_value(h, v, vlen, &rlen);
            if (!r) {
                free(v);
                free(gone);
                return -ENOMEM;
            }
            kv_mutation *m = NULL;
            st = kv_mutation_new(&m, p->row, p->row_len);
            if (st == KV_OK) st = kv_mutation_put(m, p->family, p->qual, p->qual_len, ts, r, rlen);
            if (st == KV_OK) st = add_deletes(m, p, gone, ngone);
            if (st == KV_OK)
                st = kv_check_and_mutate(&applied, fs->store, p->table, p->row, p->row_len,
                                         p->family, p->qual, p->qual_len, KV_CMP_EQUAL,
                                         rc == 0 ? (v ? v : (const uint8_t *)"") : NULL, vlen, m,
                                         w);
            kv_mutation_free(m);
            free(v);
        }
        if (st == KV_OK && !applied) st = put_one(fs, p, ts, r, rlen, w);
        if (st == KV_OK) { /* the handle now sees what it wrote */
            free(h->buf);
            h->buf = r;
            h->len = h->cap = rlen;
            r = NULL;
        }
        free(r);
    }
    free(gone);
    if (st != KV_OK) return fs_fail(fs, st, "write", h->path);
    h->ts = ts;
    return 0;
}

static int commit_cell(cellfs *fs, fs_handle *h, bool fsync)
{
    const fs_path *p = &h->ref;
    kv_write_options w;
    fs_wopts(fs, fsync, &w);
    /* An empty value committed before the first write: the open file's
       buffer stays its whole value, and it replaces this version later. */
    bool placeholder = h->whole && !h->written && h->len == 0 && !p->has_version;
    pthread_mutex_lock(&fs->stamp_mu);
    int rc = commit_cell_locked(fs, h, &w);
    pthread_mutex_unlock(&fs->stamp_mu);
    if (rc) return rc;
    h->placeholder = placeholder;
    h->placeholder_ts = h->ts;
    if (!placeholder) h->whole = false;
    h->append_pure = h->append;
    h->append_base = h->len;
    h->next_ext = 0;
    h->trunc_set = false;
    h->has_set_ts = false;
    h->in_store = true;
    fs_pending_remove(fs, p->table, p->row, p->row_len);
    return 0;
}

int fs_handle_commit(cellfs *fs, fs_handle *h, bool fsync, bool flush)
{
    if (h->kind == FS_H_SCRATCH) return 0;
    pthread_mutex_lock(&h->mu);
    if (flush && h->dirty && !h->written && h->kind != FS_H_CELL) {
        pthread_mutex_unlock(&h->mu);
        return 0;
    }
    if (h->failed) {
        /* A failed write changes nothing: the writes of this open file
           since its last commit are dropped (once, with a log line), and
           the empty version a close committed before them is taken back. */
        bool had = h->dirty || h->placeholder;
        h->dirty = h->written = false;
        if (h->placeholder && h->kind == FS_H_CELL) {
            kv_write_options w;
            fs_wopts(fs, false, &w);
            kv_mutation *m = NULL;
            pthread_mutex_lock(&fs->stamp_mu);
            kv_status st = kv_mutation_new(&m, h->ref.row, h->ref.row_len);
            if (st == KV_OK)
                st = kv_mutation_delete_version(m, h->ref.family, h->ref.qual, h->ref.qual_len,
                                                h->placeholder_ts);
            if (st == KV_OK) st = kv_mutate(fs->store, h->ref.table, m, &w);
            pthread_mutex_unlock(&fs->stamp_mu);
            kv_mutation_free(m);
            if (st == KV_OK) h->placeholder = false;
            else (void)fs_fail(fs, st, "close", h->ref.table);
        }
        pthread_mutex_unlock(&h->mu);
        if (!had) return 0;
        pthread_mutex_lock(&fs->mu);
        char *p = strdup(h->path);
        pthread_mutex_unlock(&fs->mu);
        if (p) {
            fs_log(fs, "close %s: a write of this open file failed; nothing of it since its "
                   "last commit is saved", p);
            fs_kernel_forget(fs, p);     /* the kernel may hold its size */
        }
        free(p);
        return 0;
    }
    pthread_mutex_lock(&fs->mu);
    bool orphan = h->orphan;
    char *path = strdup(h->path);
    pthread_mutex_unlock(&fs->mu);
    int rc = 0;
    bool changed = false;
    if (orphan) {
        h->dirty = false;
    } else if (!h->dirty) {
        if (fsync && h->kind == FS_H_CELL && h->in_store) rc = make_durable(fs, h);
    } else if (h->kind == FS_H_SCHEMA) {
        rc = fs_schema_apply(fs, h->ref.table, (const char *)h->buf, h->len);
        if (rc == 0) {
            h->dirty = h->written = false;
            changed = true;      /* the kernel may hold its old size */
        }
    } else {
        rc = commit_cell(fs, h, fsync);
        if (rc == 0) {
            h->dirty = false;
            h->written = false;
            changed = true;
        }
    }
    pthread_mutex_unlock(&h->mu);
    if (changed && path) fs_notify_changed(fs, path);
    free(path);
    return rc;
}

int fs_handle_release(cellfs *fs, fs_handle *h)
{
    int rc = fs_handle_commit(fs, h, false, false);
    pthread_mutex_lock(&fs->mu);
    unregister(fs, h);
    /* A direct reader's snapshot may predate a commit that happened while
       it read, and its short reads have then told the kernel an old size;
       a cached reader whose lease a writer broke may have filled pages with
       its old value. Neither may outlive the reader. */
    bool stale = h->kind == FS_H_CELL && !h->writable &&
                 (h->cached ? h->lease_broken
                            : atomic_load(&fs->commits) != h->open_commits);
    char *path = stale ? strdup(h->path) : NULL;
    if (h->cached) pthread_cond_broadcast(&fs->readers_gone);
    h->released = true;
    handle_unref(fs, h);
    pthread_mutex_unlock(&fs->mu);
    if (path) fs_kernel_forget(fs, path);
    free(path);
    return rc;
}

int fs_handles_commit_path(cellfs *fs, const char *path)
{
    fs_handle **v;
    size_t n = collect(fs, path, &v);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        int r = fs_handle_commit(fs, v[i], false, false);
        if (r && !rc) rc = r;
    }
    drop(fs, v, n);
    return rc;
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
    size_t n = collect(fs, from, &v);
    for (size_t i = 0; i < n; i++) {
        fs_handle *h = v[i];
        char *np = strdup(to);
        pthread_mutex_lock(&h->mu);
        if (h->kind == FS_H_CELL && pto->kind == FS_CELL && np) (void)set_ref(h, pto);
        pthread_mutex_unlock(&h->mu);
        pthread_mutex_lock(&fs->mu);
        if (np) {
            free(h->path);
            h->path = np;
        } else {
            h->orphan = true;
        }
        pthread_mutex_unlock(&fs->mu);
    }
    drop(fs, v, n);
}

int fs_handles_stat(cellfs *fs, const char *path, pid_t pid, size_t *size, int64_t *ts_ms,
                    bool *mine)
{
    fs_handle **v;
    size_t n = collect(fs, path, &v);
    int found = 0;
    *mine = false;
    for (size_t i = 0; i < n && !*mine; i++) {
        fs_handle *h = v[i];
        pthread_mutex_lock(&h->mu);
        if (h->kind == FS_H_CELL && (h->dirty || !h->in_store)) {
            found = 1;
            *size = h->len;
            *ts_ms = h->has_set_ts ? h->set_ts : h->ts;
            *mine = pid != 0 && h->pid == pid;
        }
        pthread_mutex_unlock(&h->mu);
    }
    drop(fs, v, n);
    return found;
}

int fs_handles_stat_ino(cellfs *fs, uint64_t ino, struct stat *st)
{
    pthread_mutex_lock(&fs->mu);
    fs_handle *h = fs->handles;
    while (h && !(h->ino == ino && h->kind == FS_H_CELL)) h = h->next;
    if (h) h->refs++;
    pthread_mutex_unlock(&fs->mu);
    if (!h) return 0;
    pthread_mutex_lock(&h->mu);
    fs_stat_file(fs, st, h->len, h->has_set_ts ? h->set_ts : h->ts, !h->ref.asof);
    pthread_mutex_unlock(&h->mu);
    pthread_mutex_lock(&fs->mu);
    handle_unref(fs, h);
    pthread_mutex_unlock(&fs->mu);
    return 1;
}

int fs_handles_set_ts(cellfs *fs, const char *path, int64_t ts_ms)
{
    fs_handle **v;
    size_t n = collect(fs, path, &v);
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
    drop(fs, v, n);
    return any;
}
