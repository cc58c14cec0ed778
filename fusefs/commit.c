/**
 * @file commit.c
 * The one place where an open file's buffered writes become store
 * mutations (open_file.h: a whole-value put, an append, or a merge of the
 * written ranges by check-and-mutate), with the timestamps, the versions
 * a new value replaces, and the take-back of a failed write. Called by
 * ops_file.c (flush, fsync) and handles.c (release); calls cells.c,
 * ops_schema.c and kvcore.h.
 */
#include "open_file_i.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define FS_MERGE_TRIES 64        /* check-and-mutate retries of a merge */

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
    char *hp = fs_handle_path(fs, h);
    rc = fs_fail(fs, st, "fsync", hp ? hp : "?");
    free(hp);
    return rc;
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
   open file, else a new newest version (fs_next_ts). With a time set, the
   read that checks it also lists in *gone (malloc'd, *n) every version
   after it, which the commit deletes so that the value shows with the time
   set. fs->stamp_mu held. */
static int commit_ts(cellfs *fs, fs_handle *h, int64_t *ts, int64_t **gone, size_t *n)
{
    *gone = NULL;
    *n = 0;
    const fs_path *p = &h->ref;
    if (p->has_version) {
        if (fs_put_masked(fs, p, p->version)) {
            char *hp = fs_handle_path(fs, h);
            fs_log(fs, "write %s: a delete marker at or after %lld hides a put at that time",
                   hp ? hp : "?", (long long)p->version);
            free(hp);
            return -EPERM;
        }
        *ts = p->version;
        return 0;
    }
    if (h->has_set_ts) {
        bool masked;
        int64_t t = h->set_ts;
        int rc = fs_column_from(fs, p, t, t < INT64_MAX ? t + 1 : t, &masked, gone, n, NULL);
        if (rc) return rc;
        if (t == INT64_MAX) *n = 0;
        if (!masked) {
            *ts = t;
            return 0;
        }
        free(*gone);
        *gone = NULL;
        *n = 0;
        char *hp = fs_handle_path(fs, h);
        fs_log(fs, "write %s: timestamp %lld is hidden by a delete marker; writing as the "
               "newest version", hp ? hp : "?", (long long)h->set_ts);
        free(hp);
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

/* The versions a commit at @p ts deletes in the same mutation: beside
   those commit_ts listed (*gone, *n), the empty version of a placeholder
   commit. */
static int commit_gone(fs_handle *h, int64_t ts, int64_t **gone, size_t *n)
{
    const fs_path *p = &h->ref;
    if (h->whole && h->placeholder && !p->has_version && h->placeholder_ts != ts) {
        int64_t *ng = realloc(*gone, (*n + 1) * sizeof *ng);
        if (!ng) return -ENOMEM;
        *gone = ng;
        ng[(*n)++] = h->placeholder_ts;
    }
    return 0;
}

/* fs->stamp_mu held. *rose: the commit deleted no version newer than the
   one it put (a row's and a family's newest time can only rise). */
static int commit_cell_locked(cellfs *fs, fs_handle *h, const kv_write_options *w, bool *rose)
{
    const fs_path *p = &h->ref;
    int64_t ts;
    int64_t *gone = NULL;
    size_t ngone = 0;
    int rc = commit_ts(fs, h, &ts, &gone, &ngone);
    if (rc == 0) rc = commit_gone(h, ts, &gone, &ngone);
    if (rc) {
        free(gone);
        return rc;
    }
    *rose = true;
    for (size_t i = 0; i < ngone; i++) *rose = *rose && gone[i] <= ts;
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
           put makes it try again. Appends first try the value they follow
           as the open read it or the last commit wrote it (the buffer up to
           append_base): no read, unless another writer came between. */
        bool append = h->append_pure;
        bool applied = false;
        uint8_t *r = NULL;
        size_t rlen = 0;
        for (int tries = 0; !applied && st == KV_OK && tries < FS_MERGE_TRIES; tries++) {
            uint8_t *v = NULL;
            const uint8_t *cur;
            size_t vlen = 0;
            int64_t vts;
            if (tries == 0 && append) {
                rc = h->in_store ? 0 : -ENOENT;
                cur = rc == 0 ? h->buf : NULL;
                vlen = rc == 0 ? h->append_base : 0;
            } else {
                rc = fs_cell_get(fs, p, &v, &vlen, &vts);
                cur = v;
            }
            if (rc && rc != -ENOENT) {
                free(r);
                free(gone);
                return rc;
            }
            free(r);
            r = append ? append_value(h, cur, vlen, &rlen) : merge_value(h, cur, vlen, &rlen);
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
                                         rc == 0 ? (cur ? cur : (const uint8_t *)"") : NULL, vlen, m,
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
    if (st != KV_OK) {
        char *hp = fs_handle_path(fs, h);
        rc = fs_fail(fs, st, "write", hp ? hp : "?");
        free(hp);
        return rc;
    }
    h->ts = ts;
    return 0;
}

static int commit_cell(cellfs *fs, fs_handle *h, bool fsync, bool *rose)
{
    const fs_path *p = &h->ref;
    kv_write_options w;
    fs_wopts(fs, fsync, &w);
    /* An empty value committed before the first write: the open file's
       buffer stays its whole value, and it replaces this version later. */
    bool placeholder = h->whole && !h->written && h->len == 0 && !p->has_version;
    pthread_mutex_lock(&fs->stamp_mu);
    fs_handle_settle(fs, h);     /* a row move since its last commit */
    int rc = commit_cell_locked(fs, h, &w, rose);
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

/* Whether the value that the close (flush) of @p h is about to commit
   will be handed to the kernel as its file's pages (store_pages): a whole
   small value of a cell's latest name, on a mount whose kernel keeps what
   it is told (cache_time.c; lowlevel.c turns the kernel's own dropping of
   pages at an mtime change off there). h->mu held. */
static bool may_store(const cellfs *fs, const fs_handle *h, bool flush)
{
    return flush && fs->cache_long && fs->se && h->kind == FS_H_CELL && h->whole && !h->paged &&
           !h->failed && h->len > 0 && h->len <= FS_STORE_MAX_VALUE && !h->ref.asof &&
           !h->ref.has_version;
}

/* Hands the kernel the value @p v (@p len bytes) that the close of @p h
   committed to @p path, as the pages of its file, so that the first read
   of the new value needs no READ (BENCHMARKS.md, "Round trips of a stat and
   a first read"), @p ino being its file's node (0: the kernel holds
   none). @p before is fs->commits before the commit: the commit
   and its fs_notify_changed counted one. Nothing is stored when another
   change was counted meanwhile (its invalidation may have gone out
   already), when another file of the cell is open (its reads or pages are
   its own), or when @p h was renamed or replaced; when either happens while
   the pages go out, they are dropped again: a change after the check
   counts itself before it invalidates, so its invalidation or this one
   comes after the pages. */
static void store_pages(cellfs *fs, fs_handle *h, const char *path, fs_ino ino, uint64_t before,
                        const uint8_t *v, size_t len)
{
    if (!ino) return;
    pthread_mutex_lock(&fs->mu);
    bool alone = fs_lease_alone(fs, h, path) && atomic_load(&fs->commits) == before + 1;
    pthread_mutex_unlock(&fs->mu);
    if (!alone) return;
    struct fuse_bufvec bv = FUSE_BUFVEC_INIT(len);
    bv.buf[0].mem = (void *)v;
    int st = fuse_lowlevel_notify_store(fs->se, ino, 0, &bv, 0);
    pthread_mutex_lock(&fs->mu);
    alone = fs_lease_alone(fs, h, path) && atomic_load(&fs->commits) == before + 1;
    pthread_mutex_unlock(&fs->mu);
    if (st != 0 || !alone) (void)fuse_lowlevel_notify_inval_inode(fs->se, ino, 0, 0);
}

int fs_handle_commit(cellfs *fs, fs_handle *h, bool fsync, bool flush)
{
    if (h->kind == FS_H_SCRATCH) return 0;
    /* Another descriptor still shares it: not closed (groups.c). */
    if (flush && !fs_group_shared(fs, h)) atomic_store(&h->closed, true);
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
            fs_handle_settle(fs, h);
            kv_status st = kv_mutation_new(&m, h->ref.row, h->ref.row_len);
            if (st == KV_OK)
                st = kv_mutation_delete_version(m, h->ref.family, h->ref.qual, h->ref.qual_len,
                                                h->placeholder_ts);
            if (st == KV_OK) st = kv_mutate(fs->store, h->ref.table, m, &w);
            pthread_mutex_unlock(&fs->stamp_mu);
            kv_mutation_free(m);
            if (st == KV_OK) {
                h->placeholder = false;
                /* The row stays, as after an unlink of its last cell (its
                   directory may have been made with mkdir before). */
                (void)fs_pending_add(fs, &h->ref);
            } else {
                (void)fs_fail(fs, st, "close", h->ref.table);
            }
        }
        pthread_mutex_unlock(&h->mu);
        if (!had) return 0;
        pthread_mutex_lock(&fs->mu);
        char *p = strdup(h->path);
        pthread_mutex_unlock(&fs->mu);
        if (p) {
            fs_log(fs, "close %s: a write of this open file failed; nothing of it since its "
                   "last commit is saved", p);
            fs_notify_changed(fs, p);    /* its size, or the empty cell taken back */
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
    bool rose = false;               /* a put that only raised the newest time */
    uint8_t *stored = NULL;          /* the committed value, for store_pages */
    size_t stored_len = 0;
    uint64_t before = atomic_load(&fs->commits);
    fs_rowmemo_mark mark = fs_rowmemo_now(fs);
    bool memo = false;               /* the committed value's attributes, for fs_cellmemo_put */
    size_t memo_len = 0;
    int64_t memo_ts = 0;
    char memo_table[sizeof h->ref.table];
    uint8_t *memo_value = NULL;
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
        bool store = may_store(fs, h, flush);
        rc = commit_cell(fs, h, fsync, &rose);
        if (rc == 0 && store && (stored = malloc(h->len)) != NULL) {
            memcpy(stored, h->buf, h->len);
            stored_len = h->len;
        }
        if (rc == 0) {
            h->dirty = false;
            h->written = false;
            changed = true;
            memo = !h->ref.has_version && !h->ref.asof;
            memo_len = h->len;
            memo_ts = h->ts;
            memcpy(memo_table, h->ref.table, sizeof memo_table);
            if (memo && h->len <= FS_CELLMEMO_MAX_VALUE && (memo_value = malloc(h->len + 1)) &&
                h->len)
                memcpy(memo_value, h->buf, h->len);
        }
    }
    pthread_mutex_unlock(&h->mu);
    if (changed && path) {      /* a row move meanwhile took it elsewhere */
        pthread_mutex_lock(&fs->mu);
        if (strcmp(path, h->path) != 0) {
            char *np = strdup(h->path);
            if (np) {
                free(path);
                path = np;
            }
        }
        pthread_mutex_unlock(&fs->mu);
    }
    /* A paged writer's bytes are in the kernel's pages: when its commit
       failed they were never stored, and readers must not be served them. */
    fs_ino ino = 0;                  /* the file's node, found by the notification */
    if (changed && rose && path) ino = fs_notify_put(fs, path, memo_ts);
    else if ((changed || (rc != 0 && h->paged)) && path) ino = fs_notify_changed(fs, path);
    if (changed) {
        /* Its buffer is the committed value now, unless another change
           came since it opened or meanwhile (fs_handle_release). */
        pthread_mutex_lock(&fs->mu);
        if (h->open_commits == before && atomic_load(&fs->commits) == before + 1)
            h->open_commits = before + 1;
        pthread_mutex_unlock(&fs->mu);
    }
    if (memo && path) fs_cellmemo_put(fs, path, memo_table, mark, memo_len, memo_ts, memo_value);
    else free(memo_value);
    if (stored && path) store_pages(fs, h, path, ino, before, stored, stored_len);
    free(stored);
    free(path);
    return rc;
}
