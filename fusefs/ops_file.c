/**
 * @file ops_file.c
 * FUSE file operations: open/create/read/write/flush/fsync/release over
 * open_file.c buffers, unlink (rm q deletes the column, rm q@<ts> one
 * version), rename (one atomic row mutation within a row; across rows of
 * a table, rename_row.c; EXDEV across tables), and the refusal of links, symlinks and device nodes. Called by
 * libfuse; calls path.c, cells.c, open_file.c, ops_schema.c, kvcore.h, and
 * rename_row.c for renames across rows.
 */
#include "ops.h"
#include "open_file.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <string.h>

static fs_handle *handle_of(struct fuse_file_info *fi)
{
    return (fs_handle *)(uintptr_t)fi->fh;
}

static bool scratch_exists(cellfs *fs, const fs_path *p)
{
    pthread_mutex_lock(&fs->mu);
    bool found = fs_scratch_find(fs, p->table, p->last, p->last_len) != NULL;
    pthread_mutex_unlock(&fs->mu);
    return found;
}

static int open_common(cellfs *fs, pid_t pid, const char *path, struct fuse_file_info *fi,
                       bool create)
{
    fs_path p;
    int rc = fs_path_parse(&p, path);
    int sc = fs_path_scratch(&p, path, rc);
    if (sc) rc = sc > 0 ? 0 : sc;
    if (rc == -EINVAL && create)
        fs_log(fs, "create %s: the name is not a canonical escaped key (see cellfs(1), NAMES)",
               path);
    if (rc) goto out;
    bool writing = create || (fi->flags & O_ACCMODE) != O_RDONLY || (fi->flags & O_TRUNC);
    if (p.asof && writing) {
        fs_log(fs, "write %s: a table@<ts> view is read-only", path);
        rc = -EROFS;
        goto out;
    }
    switch (p.kind) {
    case FS_SCHEMA:
        if (fs_schema_gone(fs, p.table)) {
            if (!create) {
                rc = -ENOENT;
                break;
            }
            fs_schema_back(fs, p.table);
            fi->flags |= O_TRUNC;  /* the new file's text replaces the schema */
        }
        create = false;
        break;
    case FS_ROW:
        if (scratch_exists(fs, &p)) {
            create = false;
            break;
        }
        if (!create) {
            rc = p.in_family ? -ENOENT : -EISDIR;
            break;
        }
        if (p.in_family) {
            fs_log(fs, "create %s: not the name of a key: a temporary file, kept in memory "
                   "until renamed to a cell's name, removed, or the unmount", path);
            break;
        }
        if (p.row_err == 0 && fs_resolve(fs, &p) == 0 && fs_row_has_cells(fs, &p, NULL) > 0) {
            rc = -EISDIR;
            break;
        }
        rc = fs_table_check(fs, &p);
        if (rc == 0)
            fs_log(fs, "create %s: a file beside the rows is kept in memory only (until it "
                   "is renamed to .schema, removed, or the unmount)", path);
        break;
    case FS_CELL:
        if (create && p.qual_name.hashed && fs_resolve(fs, &p) != 0) {
            fs_log(fs, "create %s: a hashed long name (%%#) can only name an existing cell",
                   path);
            rc = -ENAMETOOLONG;
            break;
        }
        /* A name the kernel still holds after its cell went (rm q@ts of
           the last version) gets ENOENT here, ESTALE to the kernel
           (lowlevel.c), which looks it up again: open(O_CREAT) then
           creates it. */
        rc = fs_resolve(fs, &p);
        if (rc == 0 && create) {
            rc = fs_family_check(fs, &p);
            if (rc == -ENOENT)
                fs_log(fs, "create %s: table %s has no family '%s'", path, p.table, p.family);
        }
        break;
    default:
        rc = create ? -EPERM : -EISDIR;
        if (create) fs_log(fs, "create %s: only cells (row/family/qualifier) are files", path);
    }
    if (rc) goto out;
    fs_handle *h;
    rc = fs_handle_open(fs, pid, path, &p, fi->flags, create, &h);
    bool joined = rc == 1;
    if (joined) rc = 0;
    if (rc == 0) {
        fi->fh = (uintptr_t)h;
        /* Pages in the kernel hold the committed value of a cell (open_file.h,
           page cache leases), so a cached reader keeps them; a paged writer
           starts from fresh pages that it alone fills, and a descriptor that
           joins it (open_file.h, shared open files) keeps and shares them;
           other cell files read and write their own snapshot directly. A
           table@<ts> view's value changes without a change of its name
           (a put at an older time), and the kernel does not drop pages
           at an mtime change (lowlevel.c, ll_init): each open of a view
           starts from fresh pages. */
        fi->keep_cache = (h->cached && !h->ref.asof) || (joined && h->paged);
        fi->direct_io = h->kind == FS_H_CELL && !h->cached && !h->paged;
        /* A reader's close has nothing to commit: no FLUSH round trip. */
        fi->noflush = !h->writable || (fi->flags & O_ACCMODE) == O_RDONLY;
    }
out:
    fs_path_free(&p);
    return rc;
}

int fs_op_open(cellfs *fs, pid_t pid, const char *path, struct fuse_file_info *fi)
{
    return open_common(fs, pid, path, fi, false);
}

int fs_op_create(cellfs *fs, pid_t pid, const char *path, struct fuse_file_info *fi)
{
    return open_common(fs, pid, path, fi, true);
}

int fs_op_read(cellfs *fs, char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
    /* The kernel names a lock owner with a direct read(2), none when it
       fills its pages (fs_handle_read). */
    return fs_handle_read(fs, handle_of(fi), buf, size, off, fi->lock_owner == 0);
}

int fs_op_write(cellfs *fs, const char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
    /* O_APPEND of this descriptor (its open or fcntl): the kernel's offset
       may predate what another descriptor sharing the open file wrote. */
    bool append = !fi->writepage && (fi->flags & O_APPEND);
    return fs_handle_write(fs, handle_of(fi), buf, size, off, append);
}

int fs_op_flush(cellfs *fs, struct fuse_file_info *fi)
{
    return fs_handle_commit(fs, handle_of(fi), false, true);
}

int fs_op_fsync(cellfs *fs, struct fuse_file_info *fi)
{
    return fs_handle_commit(fs, handle_of(fi), true, false);
}

int fs_op_release(cellfs *fs, struct fuse_file_info *fi)
{
    int rc = fs_handle_release(fs, handle_of(fi));
    if (rc) fs_log(fs, "release: the last write of a file was lost: %s", strerror(-rc));
    return rc;
}

/* rm of a name created but not yet committed: forgetting the open file is
   all. 0 when there was one, else -ENOENT. */
static int unlink_uncommitted(cellfs *fs, const char *path)
{
    size_t hl;
    int64_t hts;
    bool mine;
    if (!fs_handles_stat(fs, path, 0, &hl, &hts, &mine)) return -ENOENT;
    fs_handles_orphan(fs, path);
    return 0;
}

static int unlink_cell(cellfs *fs, const char *path, fs_path *p)
{
    int rc = fs_resolve(fs, p);
    if (rc == 0 && p->has_version) {
        size_t len;
        int64_t ts;
        rc = fs_cell_get(fs, p, NULL, &len, &ts);
    }
    if (rc == -ENOENT) return unlink_uncommitted(fs, path);
    if (rc) return rc;
    kv_mutation *m = NULL;
    kv_write_options w;
    fs_wopts(fs, false, &w);
    /* Removing a version may change q's value in place. */
    fs_handle *lease = p->has_version ? fs_write_begin(fs, path) : NULL;
    pthread_mutex_lock(&fs->stamp_mu);
    kv_status st = kv_mutation_new(&m, p->row, p->row_len);
    int shows = 1;
    int64_t removed = p->has_version ? p->version : INT64_MAX;    /* the newest version gone */
    if (st == KV_OK) {
        if (p->has_version)
            st = kv_mutation_delete_version(m, p->family, p->qual, p->qual_len, p->version);
        else
            rc = fs_delete_column_all(fs, p, m, &shows, &removed);
    }
    if (rc == 0 && shows < 0) {
        /* The raw read could not tell whether the cell shows: ask. */
        size_t len;
        int64_t ts;
        rc = fs_cell_get(fs, p, NULL, &len, &ts);
        if (rc == 0) shows = 1;
    }
    if (rc == 0 && shows == 0) rc = -ENOENT;      /* nothing shows: nothing to remove */
    if (st == KV_OK && rc == 0) st = kv_mutate(fs->store, p->table, m, &w);
    pthread_mutex_unlock(&fs->stamp_mu);
    kv_mutation_free(m);
    if (rc == -ENOENT) {
        fs_write_end(fs, lease);
        return unlink_uncommitted(fs, path);
    }
    if (rc == 0) rc = fs_fail(fs, st, "unlink", path);
    if (rc == 0) fs_notify_removed(fs, path, removed);
    fs_write_end(fs, lease);
    /* The row directory stays (in memory) until rmdir, as on a disk. It is
       kept whether or not cells are left (a row with cells shows anyway),
       so an unlink costs the same in a row of any size; a write into the
       row or its rmdir forgets it. */
    if (rc == 0) (void)fs_pending_add(fs, p);
    if (rc == 0) fs_handles_orphan(fs, path);
    return rc;
}

int fs_op_unlink(cellfs *fs, const char *path)
{
    fs_path p;
    int rc = fs_path_parse(&p, path);
    int sc = fs_path_scratch(&p, path, rc);
    if (sc) rc = sc > 0 ? 0 : sc;
    if (rc == 0 && p.asof) rc = -EROFS;
    if (rc) goto out;
    switch (p.kind) {
    case FS_SCHEMA:
        /* The families stay; the name is gone until made again. */
        rc = fs_table_check(fs, &p);
        if (rc == 0) rc = fs_schema_unlink(fs, p.table);
        break;
    case FS_ROW: {
        pthread_mutex_lock(&fs->mu);
        fs_scratch *s = fs_scratch_find(fs, p.table, p.last, p.last_len);
        if (s) fs_scratch_unlink(fs, s);
        pthread_mutex_unlock(&fs->mu);
        if (!s) rc = p.in_family ? -ENOENT : -EISDIR;
        break;
    }
    case FS_CELL:
        rc = unlink_cell(fs, path, &p);
        break;
    default:
        rc = -EISDIR;
    }
out:
    fs_path_free(&p);
    return rc;
}

static int scratch_to_cell(cellfs *fs, const fs_path *pf, fs_path *pt, const char *to);

static int rename_scratch(cellfs *fs, const fs_path *pf, fs_path *pt, const char *to)
{
    int rc = 0;
    if (pf->in_family && pt->kind == FS_CELL) return scratch_to_cell(fs, pf, pt, to);
    if (pt->kind == FS_SCHEMA && strcmp(pt->table, pf->table) == 0) {
        pthread_mutex_lock(&fs->mu);
        fs_scratch *s = fs_scratch_find(fs, pf->table, pf->last, pf->last_len);
        uint8_t *copy = NULL;
        size_t len = 0;
        if (s) {
            len = s->len;
            copy = malloc(len ? len : 1);
            if (copy && len) memcpy(copy, s->buf, len);
        }
        pthread_mutex_unlock(&fs->mu);
        if (!s) return -ENOENT;
        if (!copy) return -ENOMEM;
        rc = fs_schema_apply(fs, pf->table, (const char *)copy, len);
        free(copy);
        if (rc == 0) fs_schema_back(fs, pf->table);
        if (rc == 0) {
            pthread_mutex_lock(&fs->mu);
            s = fs_scratch_find(fs, pf->table, pf->last, pf->last_len);
            if (s) fs_scratch_unlink(fs, s);
            pthread_mutex_unlock(&fs->mu);
            fs_notify_changed(fs, to);
        }
        return rc;
    }
    if (pt->kind == FS_ROW && strcmp(pt->table, pf->table) == 0 && pt->last_len <= FS_NAME_MAX) {
        pthread_mutex_lock(&fs->mu);
        fs_scratch *s = fs_scratch_find(fs, pf->table, pf->last, pf->last_len);
        fs_scratch *old = fs_scratch_find(fs, pt->table, pt->last, pt->last_len);
        if (!s) rc = -ENOENT;
        else if (s != old) {
            if (old) fs_scratch_unlink(fs, old);
            memcpy(s->name, pt->last, pt->last_len);
            s->name[pt->last_len] = '\0';
        }
        pthread_mutex_unlock(&fs->mu);
        return rc;
    }
    return -EXDEV;
}

/* A temporary file of a family dir renamed to a cell's name (rsync's
   restore of an escaped name): its bytes become the cell's newest value at
   the time set on it (or the newest version when a removal hides that),
   with the target's history kept as by rename_cell. */
static int scratch_to_cell(cellfs *fs, const fs_path *pf, fs_path *pt, const char *to)
{
    char dir[sizeof pt->table];
    size_t dlen = (size_t)(strrchr(to, '/') - to);
    if (dlen >= sizeof dir) return -EXDEV;
    memcpy(dir, to, dlen);
    dir[dlen] = '\0';
    if (strcmp(dir, pf->table) != 0) return -EXDEV;    /* another family or row: mv copies */
    int rc = fs_resolve(fs, pt);
    if (rc) return rc;
    pthread_mutex_lock(&fs->mu);
    fs_scratch *s = fs_scratch_find(fs, pf->table, pf->last, pf->last_len);
    uint8_t *copy = NULL;
    size_t len = 0;
    int64_t ts = 0;
    if (s) {
        len = s->len;
        ts = fs_ts_to_ms(&s->mtime);
        copy = malloc(len ? len : 1);
        if (copy && len) memcpy(copy, s->buf, len);
    }
    pthread_mutex_unlock(&fs->mu);
    if (!s) return -ENOENT;
    if (!copy) return -ENOMEM;
    kv_write_options w;
    fs_wopts(fs, false, &w);
    fs_handle *lease = fs_write_begin(fs, to);
    pthread_mutex_lock(&fs->stamp_mu);
    bool masked;
    int64_t newest, *gone = NULL;
    size_t ngone = 0;
    rc = fs_column_from(fs, pt, ts, ts, &masked, &gone, &ngone, NULL);
    if (rc == 0 && masked) {
        free(gone);
        gone = NULL;
        ngone = 0;
        rc = fs_next_ts(fs, pt, &ts);
        if (rc == 0) rc = fs_column_raw(fs, pt, ts, &newest, &gone, &ngone);
    }
    kv_mutation *m = NULL;
    kv_status st = KV_OK;
    bool rose = true;                /* no version newer than the put deleted */
    if (rc == 0) st = kv_mutation_new(&m, pt->row, pt->row_len);
    for (size_t i = 0; rc == 0 && st == KV_OK && i < ngone; i++)
        if (gone[i] != ts) {
            rose = rose && gone[i] < ts;
            st = kv_mutation_delete_version(m, pt->family, pt->qual, pt->qual_len, gone[i]);
        }
    if (rc == 0 && st == KV_OK)
        st = kv_mutation_put(m, pt->family, pt->qual, pt->qual_len, ts, copy, len);
    if (rc == 0 && st == KV_OK) st = kv_mutate(fs->store, pt->table, m, &w);
    pthread_mutex_unlock(&fs->stamp_mu);
    kv_mutation_free(m);
    free(gone);
    free(copy);
    if (rc == 0) rc = fs_fail(fs, st, "rename", to);
    if (rc == 0) {
        if (rose) fs_notify_put(fs, to, ts);
        else fs_notify_changed(fs, to);
        fs_handles_orphan(fs, to);
        fs_pending_remove(fs, pt->table, pt->row, pt->row_len);
        pthread_mutex_lock(&fs->mu);
        s = fs_scratch_find(fs, pf->table, pf->last, pf->last_len);
        if (s) fs_scratch_unlink(fs, s);
        pthread_mutex_unlock(&fs->mu);
    }
    fs_write_end(fs, lease);
    return rc;
}

static bool same_column(const fs_path *a, const fs_path *b)
{
    return strcmp(a->family, b->family) == 0 && a->qual_len == b->qual_len &&
           memcmp(a->qual, b->qual, a->qual_len) == 0;
}

/* The timestamp that makes a version the newest value of its column (mv
   q@T q): the store clock once it has passed @p newest, so that the put
   cannot meet the delete of version T in the same mutation and later
   implicit writes still win; newest + 1 when the column holds versions
   from the future. */
static int64_t restore_ts(cellfs *fs, int64_t newest)
{
    for (int i = 0; i < 20; i++) {
        int64_t now = kv_store_now(fs->store);
        if (now > newest) return now;
        nanosleep(&(struct timespec){ 0, 500000 }, NULL);
    }
    return newest < INT64_MAX - 1 ? newest + 1 : newest;
}

static int rename_cell(cellfs *fs, const char *from, const char *to, fs_path *pf, fs_path *pt,
                       unsigned int flags)
{
    int rc = fs_resolve(fs, pf);
    if (rc) return rc;
    if (pt->qual_name.hashed && fs_resolve(fs, pt) != 0) return -ENAMETOOLONG;
    rc = fs_resolve(fs, pt);
    if (rc) return rc;
    if (strcmp(pf->table, pt->table) != 0 || pf->row_len != pt->row_len ||
        memcmp(pf->row, pt->row, pf->row_len) != 0)
        return fs_rename_column_rows(fs, from, to, pf, pt, flags);
    bool restore = false;          /* mv q@T q: that version becomes the newest value */
    if (same_column(pf, pt)) {
        if (pf->has_version == pt->has_version &&
            (!pf->has_version || pf->version == pt->version))
            return 0;
        if (!pf->has_version) {
            fs_log(fs, "rename %s -> %s: a column cannot become one of its own versions "
                   "(copy it: cp q q@ts)", from, to);
            return -EINVAL;
        }
        restore = !pt->has_version;
    }
    rc = fs_family_check(fs, pt);
    if (rc) {
        fs_log(fs, "rename %s -> %s: table %s has no family '%s'", from, to, pt->table,
               pt->family);
        return rc;
    }
    rc = fs_handles_commit_path(fs, from);
    if (rc) return rc;
    uint8_t *v = NULL;
    size_t n;
    int64_t src_ts;
    if (pf->has_version || !fs_cellmemo_get(fs, from, &n, &src_ts, &v))
        rc = fs_cell_get(fs, pf, &v, &n, &src_ts);
    if (rc) return rc;
    int64_t *dst_ts = NULL;
    size_t ndst = 0;
    if (!pt->has_version && (flags & RENAME_NOREPLACE)) rc = fs_cell_versions(fs, pt, &dst_ts, &ndst);
    if (rc == 0 && (flags & RENAME_NOREPLACE)) {
        size_t l;
        int64_t t;
        if (ndst > 0 || (pt->has_version && fs_cell_get(fs, pt, NULL, &l, &t) == 0))
            rc = -EEXIST;
    }
    kv_write_options w;
    fs_wopts(fs, false, &w);
    /* A new version may change q's value in place; a replaced q is a new
       file, but waiting for its readers costs nothing when there are none. */
    fs_handle *lease = rc == 0 ? fs_write_begin(fs, to) : NULL;
    pthread_mutex_lock(&fs->stamp_mu);
    int64_t put_ts = pt->has_version ? pt->version : src_ts;
    if (rc == 0 && restore) {
        int64_t newest;
        rc = fs_column_raw(fs, pt, INT64_MIN, &newest, NULL, NULL);
        put_ts = restore_ts(fs, newest > src_ts ? newest : src_ts);
    }
    /* The target keeps its history (as a Put over it would): only its
       versions at or after the source's time go, so that the value shows
       with the source's time (mv keeps the mtime). The raw read that lists
       them also tells whether a marker would hide the put. */
    free(dst_ts);
    dst_ts = NULL;
    ndst = 0;
    bool keep_history = !pt->has_version && !restore;
    bool masked = false;
    int64_t *src_vers = NULL;      /* the source's versions, when read with the target's */
    size_t nsrc = 0;
    int paired = 1;
    if (rc == 0 && keep_history && !pf->has_version) {
        paired = fs_column_pair(fs, pt, put_ts, &masked, &dst_ts, &ndst, pf, &src_vers, &nsrc);
        if (paired < 0) rc = paired;
    }
    if (rc == 0 && keep_history && paired == 1)
        rc = fs_column_from(fs, pt, put_ts, put_ts, &masked, &dst_ts, &ndst, NULL);
    else if (rc == 0 && !keep_history)
        masked = fs_put_masked(fs, pt, put_ts);
    if (rc == 0 && masked) {
        if (pt->has_version) {
            fs_log(fs, "rename %s -> %s: a delete marker hides a put at %lld", from, to,
                   (long long)put_ts);
            rc = -EPERM;
        } else {
            fs_log(fs, "rename %s -> %s: timestamp %lld is hidden by a delete marker; the "
                   "value becomes the newest version", from, to, (long long)put_ts);
            rc = fs_next_ts(fs, pt, &put_ts);
            free(dst_ts);
            dst_ts = NULL;
            ndst = 0;
            int64_t newest;
            if (rc == 0 && keep_history)
                rc = fs_column_raw(fs, pt, put_ts, &newest, &dst_ts, &ndst);
        }
    }
    kv_status st = KV_OK;
    kv_mutation *m = NULL;
    if (rc == 0) st = kv_mutation_new(&m, pt->row, pt->row_len);
    for (size_t i = 0; rc == 0 && st == KV_OK && i < ndst; i++)
        if (dst_ts[i] != put_ts)
            st = kv_mutation_delete_version(m, pt->family, pt->qual, pt->qual_len, dst_ts[i]);
    if (rc == 0 && st == KV_OK)
        st = kv_mutation_put(m, pt->family, pt->qual, pt->qual_len, put_ts, v, n);
    if (rc == 0 && st == KV_OK) {
        if (pf->has_version)
            st = kv_mutation_delete_version(m, pf->family, pf->qual, pf->qual_len, pf->version);
        else if (paired == 0)
            rc = fs_delete_versions(fs, pf, m, src_vers, nsrc);
        else
            rc = fs_delete_column_all(fs, pf, m, NULL, NULL);
    }
    if (rc == 0 && st == KV_OK) st = kv_mutate(fs->store, pt->table, m, &w);
    pthread_mutex_unlock(&fs->stamp_mu);
    kv_mutation_free(m);
    free(v);
    free(dst_ts);
    free(src_vers);
    if (rc == 0) {
        rc = fs_fail(fs, st, "rename", from);
        if (rc == 0) fs_notify_changed(fs, to);
        /* The source's versions went (mv q r), or q shows another value
           (mv q@ts r). */
        if (rc == 0) fs_notify_changed(fs, from);
    }
    fs_write_end(fs, lease);
    if (rc) return rc;
    fs_handles_rename(fs, from, to, pt);
    fs_pending_remove(fs, pt->table, pt->row, pt->row_len);
    return rc;
}

int fs_op_rename(cellfs *fs, const char *from, const char *to, unsigned int flags)
{
    if (flags & RENAME_EXCHANGE) return -EINVAL;
    fs_path pf, pt;
    int rc = fs_path_parse(&pf, from);
    int rc2 = fs_path_parse(&pt, to);
    int sc = fs_path_scratch(&pf, from, rc);
    if (sc) rc = sc > 0 ? 0 : sc;
    sc = fs_path_scratch(&pt, to, rc2);
    if (sc) rc2 = sc > 0 ? 0 : sc;
    if (rc == 0 && rc2 != 0) {
        rc = rc2;
        if (rc == -EINVAL)
            fs_log(fs, "rename %s -> %s: the new name is not a canonical escaped key", from, to);
    }
    if (rc == 0 && (pf.asof || pt.asof)) rc = -EROFS;
    if (rc) goto out;
    if (pf.kind == FS_ROW && scratch_exists(fs, &pf)) {
        rc = rename_scratch(fs, &pf, &pt, to);
    } else if (pf.kind == FS_CELL && pt.kind == FS_CELL) {
        rc = rename_cell(fs, from, to, &pf, &pt, flags);
    } else if (pf.kind == FS_ROW && pt.kind == FS_ROW) {
        rc = scratch_exists(fs, &pt) ? -ENOTDIR : fs_rename_row(fs, from, to, &pf, &pt, flags);
    } else if (pf.kind == FS_CELL || pf.kind == FS_ROW || pf.kind == FS_FAMILY) {
        rc = -EXDEV;      /* mv copies */
    } else {
        fs_log(fs, "rename %s -> %s: namespaces, tables and .schema cannot be renamed", from,
               to);
        rc = -EPERM;
    }
out:
    fs_path_free(&pf);
    fs_path_free(&pt);
    return rc;
}

int fs_op_link(cellfs *fs, const char *from, const char *to)
{
    fs_log(fs, "link %s -> %s: hard links are not supported", from, to);
    return -EPERM;
}

int fs_op_symlink(cellfs *fs, const char *path)
{
    fs_log(fs, "symlink %s: symbolic links are not supported", path);
    return -EPERM;
}

int fs_op_mknod(cellfs *fs, const char *path)
{
    fs_log(fs, "mknod %s: device nodes and fifos are not supported", path);
    return -EPERM;
}
