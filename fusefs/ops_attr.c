/**
 * @file ops_attr.c
 * FUSE attribute operations: getattr (st_size = value length, st_mtime =
 * cell timestamp), utimens (re-stamps the newest version: one mutation
 * putting the value at the new time and deleting the old version), path
 * truncate, chmod/chown (accepted and ignored), statfs (the store's
 * figures). Called by libfuse; calls path.c, cells.c, open_file.c.
 */
#include "ops.h"
#include "open_file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

void fs_stat_dir(const cellfs *fs, struct stat *st)
{
    memset(st, 0, sizeof *st);
    st->st_mode = S_IFDIR | 0755;
    st->st_nlink = 2;
    st->st_uid = fs->uid;
    st->st_gid = fs->gid;
    st->st_size = 4096;
    st->st_blksize = 4096;
    st->st_mtim = st->st_ctim = st->st_atim = fs->mount_time;
}

void fs_stat_dir_at(const cellfs *fs, struct stat *st, int64_t ts_ms)
{
    fs_stat_dir(fs, st);
    fs_ms_to_ts(ts_ms, &st->st_mtim);
    st->st_ctim = st->st_atim = st->st_mtim;
}

void fs_stat_file(const cellfs *fs, struct stat *st, size_t size, int64_t ts_ms, bool writable)
{
    memset(st, 0, sizeof *st);
    st->st_mode = S_IFREG | (writable && !fs->read_only ? 0644 : 0444);
    st->st_nlink = 1;
    st->st_uid = fs->uid;
    st->st_gid = fs->gid;
    st->st_size = (off_t)size;
    st->st_blksize = 4096;
    st->st_blocks = (blkcnt_t)((size + 511) / 512);
    fs_ms_to_ts(ts_ms, &st->st_mtim);
    st->st_ctim = st->st_atim = st->st_mtim;
}

static int ns_check(cellfs *fs, const char *ns)
{
    char **names = NULL;
    kv_status st = kv_namespace_list(&names, fs->store);
    if (st != KV_OK) return fs_fail(fs, st, "list namespaces", ns);
    int rc = -ENOENT;
    for (char **n = names; *n; n++)
        if (strcmp(*n, ns) == 0) rc = 0;
    kv_free_names(names);
    return rc;
}

static int stat_handle(cellfs *fs, fs_handle *h, struct stat *st)
{
    if (h->kind == FS_H_SCRATCH) {
        pthread_mutex_lock(&fs->mu);
        fs_stat_file(fs, st, h->scratch->len, fs_ts_to_ms(&h->scratch->mtime), true);
        pthread_mutex_unlock(&fs->mu);
        return 0;
    }
    /* The kernel keeps one size per file: a paged writer's (open_file.h). */
    size_t paged_len;
    int64_t paged_ts;
    if (h->kind == FS_H_CELL && fs_handles_paged_stat(fs, h, &paged_len, &paged_ts)) {
        fs_stat_file(fs, st, paged_len, paged_ts, true);
        return 0;
    }
    pthread_mutex_lock(&h->mu);
    fs_handle_follow(fs, h);
    int64_t ts = h->has_set_ts ? h->set_ts : h->ts;
    if (h->kind == FS_H_SCHEMA) ts = fs_ts_to_ms(&fs->mount_time);
    fs_stat_file(fs, st, h->len, ts, !h->ref.asof);
    pthread_mutex_unlock(&h->mu);
    return 0;
}

/* getattr of a path; @p p is parsed, not yet resolved. *held (when not
   NULL) as fs_cache_rule's held says. */
static int stat_path(cellfs *fs, pid_t pid, const char *path, fs_path *p, struct stat *st,
                     int *held)
{
    if (held) *held = 0;     /* only a cell's open file holds attributes */
    int rc;
    switch (p->kind) {
    case FS_ROOT:
        fs_stat_dir(fs, st);
        return 0;
    case FS_NS:
        rc = ns_check(fs, p->ns);
        if (rc == 0) fs_stat_dir(fs, st);
        return rc;
    case FS_TABLE:
        rc = fs_table_check(fs, p);
        if (rc == 0) fs_stat_dir(fs, st);
        return rc;
    case FS_SCHEMA: {
        char *text;
        size_t len;
        if (fs_schema_gone(fs, p->table)) return -ENOENT;
        rc = fs_schema_text(fs, p->table, &text, &len);
        if (rc) return rc;
        free(text);
        fs_stat_file(fs, st, len, fs_ts_to_ms(&fs->mount_time), !p->asof);
        return 0;
    }
    case FS_ROW: {
        pthread_mutex_lock(&fs->mu);
        fs_scratch *s = fs_scratch_find(fs, p->table, p->last, p->last_len);
        if (s) fs_stat_file(fs, st, s->len, fs_ts_to_ms(&s->mtime), true);
        pthread_mutex_unlock(&fs->mu);
        if (s) return 0;
        if (p->row_err || p->in_family) return -ENOENT;
        rc = fs_resolve(fs, p);
        if (rc) return rc;
        /* mtime: the newest cell below (rsync restores then match). */
        int64_t ts = 0;
        rc = fs_row_newest(fs, p, NULL, &ts);
        if (rc < 0) return rc;
        if (rc == 0 && !fs_pending_has(fs, p)) return -ENOENT;
        fs_stat_dir_at(fs, st, rc > 0 ? ts : 0);    /* no cells: the epoch */
        return 0;
    }
    case FS_FAMILY:
        rc = fs_resolve(fs, p);
        if (rc == 0) rc = fs_family_check(fs, p);
        if (rc) return rc;
        int64_t ts;
        rc = fs_family_listed(fs, p, p->family, &ts);
        if (rc <= 0) return rc < 0 ? rc : -ENOENT;
        fs_stat_dir_at(fs, st, ts);
        return 0;
    case FS_CELL: {
        rc = fs_resolve(fs, p);
        size_t len = 0, hlen;
        int64_t ts = 0, hts;
        bool mine;
        /* The committed value's attributes, as a reader sees it (kept from
           the change that made it, or read); a writer's process (fstat
           comes here too) sees its open file's buffer; a new cell not yet
           committed shows empty to others, as it reads. */
        int found = fs_handles_stat(fs, path, pid, &hlen, &hts, &mine);
        if (held) *held = found;
        if (rc == 0 && !(found && mine) && (p->has_version || p->asof ||
                                            !fs_cellmemo_get(fs, path, &len, &ts, NULL)))
            rc = fs_cell_get(fs, p, NULL, &len, &ts);
        if (rc != 0 && rc != -ENOENT) return rc;
        if (found && (mine || rc == -ENOENT)) {
            len = mine ? hlen : 0;
            ts = hts;
            rc = 0;
        }
        if (rc == 0) fs_stat_file(fs, st, len, ts, !p->asof);
        return rc;
    }
    }
    return -ENOENT;
}

int fs_op_getattr(cellfs *fs, pid_t pid, const char *path, struct stat *st,
                  struct fuse_file_info *fi, fs_cache_rule *rule)
{
    if (rule) fs_cache_rule_default(fs, rule);
    if (fi && fi->fh) {
        fs_handle *h = (fs_handle *)(uintptr_t)fi->fh;
        if (rule && path && h->kind == FS_H_CELL) {
            /* A cell's open file holds its path parsed (renamed with it). */
            pthread_mutex_lock(&h->mu);
            fs_cache_rule_parsed(fs, &h->ref, 0, rule);
            pthread_mutex_unlock(&h->mu);
        } else if (rule && path) {
            fs_cache_rule_of(fs, path, rule);
        }
        return stat_handle(fs, h, st);
    }
    if (!path) return -ENOENT;
    fs_path p;
    int rc = fs_path_parse(&p, path);
    int sc = fs_path_scratch(&p, path, rc);
    if (sc) rc = sc > 0 ? 0 : sc;
    if (rc == 0 && rule) fs_cache_rule_parsed(fs, &p, rc, rule);
    if (rc == 0) rc = stat_path(fs, pid, path, &p, st, rule ? &rule->held : NULL);
    fs_path_free(&p);
    return rc == -EINVAL ? -ENOENT : rc;
}

/* Re-stamps the cell @p p names from its timestamp to @p new_ms; *len,
   its value's length, and on success *value its bytes (malloc'd). 1 when it
   already had that time (nothing changed), 0, -errno. */
static int restamp(cellfs *fs, const char *path, fs_path *p, int64_t new_ms, size_t *len,
                   uint8_t **value)
{
    uint8_t *v = NULL;
    size_t n;
    int64_t old;
    int rc = 0;
    if (p->has_version || !fs_cellmemo_get(fs, path, &n, &old, &v))
        rc = fs_cell_get(fs, p, &v, &n, &old);
    if (rc) return rc;
    *len = n;
    if (old == new_ms) {
        free(v);
        return 1;
    }
    if (p->has_version) {
        free(v);
        fs_log(fs, "utimens %s: the timestamp of a version is its name; rename it instead",
               path);
        return -EINVAL;
    }
    /* The value must show with the new time: the versions the store holds
       after it (older than the value, but newer than the time set; surplus
       ones beyond VERSIONS included) are deleted with the old version. One
       raw read from the new time tells them, and whether a marker would
       hide the value there. */
    pthread_mutex_lock(&fs->stamp_mu);
    int64_t *after = NULL;
    size_t nafter = 0, lost = 0;    /* of them, those no marker hides: said in the log */
    bool masked = false;
    rc = fs_column_from(fs, p, new_ms, new_ms < INT64_MAX ? new_ms + 1 : INT64_MAX, &masked,
                        &after, &nafter, &lost);
    if (rc == 0 && new_ms == INT64_MAX) nafter = lost = 0;
    if (rc == 0 && masked) {
        pthread_mutex_unlock(&fs->stamp_mu);
        free(v);
        free(after);
        fs_log(fs, "utimens %s: time %lld is older than a delete marker of this cell, which "
               "would hide the value", path, (long long)new_ms);
        return -EPERM;
    }
    kv_mutation *m = NULL;
    kv_status st = rc ? KV_OK : kv_mutation_new(&m, p->row, p->row_len);
    if (rc == 0 && st == KV_OK)
        st = kv_mutation_put(m, p->family, p->qual, p->qual_len, new_ms, v, n);
    if (rc == 0 && st == KV_OK) st = kv_mutation_delete_version(m, p->family, p->qual, p->qual_len, old);
    for (size_t i = 0; rc == 0 && st == KV_OK && i < nafter; i++)
        if (after[i] != old)
            st = kv_mutation_delete_version(m, p->family, p->qual, p->qual_len, after[i]);
    kv_write_options w;
    fs_wopts(fs, false, &w);
    if (rc == 0 && st == KV_OK) st = kv_mutate(fs->store, p->table, m, &w);
    pthread_mutex_unlock(&fs->stamp_mu);
    kv_mutation_free(m);
    if (rc == 0 && st == KV_OK) *value = v;       /* the value, now at new_ms */
    else free(v);
    if (rc == 0 && st == KV_OK && lost > 1)
        fs_log(fs, "utimens %s: versions older than the value but newer than the time set "
               "were deleted, so that the value shows with that time", path);
    free(after);
    return rc ? rc : fs_fail(fs, st, "utimens", path);
}

int fs_op_utimens_detached(cellfs *fs, const struct timespec tv[2], struct fuse_file_info *fi)
{
    fs_handle *h = (fs_handle *)(uintptr_t)fi->fh;
    if (tv[1].tv_nsec == UTIME_OMIT || h->kind != FS_H_CELL || h->ref.has_version)
        return 0;
    int64_t ms = tv[1].tv_nsec == UTIME_NOW ? kv_store_now(fs->store) : fs_ts_to_ms(&tv[1]);
    pthread_mutex_lock(&h->mu);
    h->has_set_ts = true;
    h->set_ts = ms;
    pthread_mutex_unlock(&h->mu);
    return 0;
}

int fs_op_utimens(cellfs *fs, const char *path, const struct timespec tv[2],
                  struct fuse_file_info *fi)
{
    if (tv && tv[1].tv_nsec == UTIME_OMIT) return 0;
    int64_t ms;
    if (!tv || tv[1].tv_nsec == UTIME_NOW) ms = kv_store_now(fs->store);
    else ms = fs_ts_to_ms(&tv[1]);
    char *owned = NULL;
    if (fi && fi->fh) {
        fs_handle *h = (fs_handle *)(uintptr_t)fi->fh;
        if (h->kind == FS_H_SCRATCH) {
            pthread_mutex_lock(&fs->mu);
            fs_ms_to_ts(ms, &h->scratch->mtime);
            pthread_mutex_unlock(&fs->mu);
        }
        if (h->kind != FS_H_CELL) return 0;
        bool done = false;
        pthread_mutex_lock(&h->mu);
        if (h->dirty && !h->ref.has_version) {
            h->has_set_ts = true;
            h->set_ts = ms;
            done = true;
        }
        pthread_mutex_unlock(&h->mu);
        if (done) return 0;
        pthread_mutex_lock(&fs->mu);
        owned = strdup(h->path);
        pthread_mutex_unlock(&fs->mu);
        if (!owned) return -ENOMEM;
        path = owned;
    }
    if (!path) return -ENOENT;
    fs_path p;
    int rc = fs_path_parse(&p, path);
    int sc = fs_path_scratch(&p, path, rc);
    if (sc) rc = sc > 0 ? 0 : sc;
    if (rc == 0 && p.kind == FS_ROW) {       /* a temporary file's time */
        pthread_mutex_lock(&fs->mu);
        fs_scratch *s = fs_scratch_find(fs, p.table, p.last, p.last_len);
        if (s) fs_ms_to_ts(ms, &s->mtime);
        pthread_mutex_unlock(&fs->mu);
    }
    if (rc == 0 && p.kind == FS_CELL) {
        if (p.asof) rc = -EROFS;
        else if (p.has_version && ms == p.version) rc = 0;   /* its own time (tar x) */
        else if (fs_handles_set_ts(fs, path, ms)) rc = 0;
        else {
            fs_rowmemo_mark before = fs_rowmemo_now(fs);
            size_t len = 0;
            uint8_t *v = NULL;
            rc = fs_resolve(fs, &p);
            if (rc == 0) rc = restamp(fs, path, &p, ms, &len, &v);
            if (rc == 0) {
                fs_notify_changed(fs, path);
                /* the reply's stat and rsync's rename read nothing again */
                if (!p.has_version) fs_cellmemo_put(fs, path, p.table, before, len, ms, v);
                else free(v);
            }
            if (rc == 1) rc = 0;
        }
    }
    fs_path_free(&p);
    free(owned);
    return rc;
}

static int truncate_cell(cellfs *fs, const char *path, fs_path *p, off_t size)
{
    if ((size_t)size > fs->max_value) {
        fs_log(fs, "truncate %s: %lld bytes is above the value limit of %zu bytes (EFBIG)", path,
               (long long)size, fs->max_value);
        return -EFBIG;
    }
    int rc = fs_handles_commit_path(fs, path);
    if (rc == 0) rc = fs_resolve(fs, p);
    uint8_t *v = NULL;
    size_t n = 0;
    int64_t ts;
    if (rc == 0) rc = fs_cell_get(fs, p, &v, &n, &ts);
    if (rc) return rc;
    if ((size_t)size != n) {
        uint8_t *nv = realloc(v, size ? (size_t)size : 1);
        if (!nv) {
            free(v);
            return -ENOMEM;
        }
        v = nv;
        if ((size_t)size > n) memset(v + n, 0, (size_t)size - n);
        kv_write_options w;
        fs_wopts(fs, false, &w);
        fs_handle *lease = fs_write_begin(fs, path);
        pthread_mutex_lock(&fs->stamp_mu);
        int64_t put_ts = p->version;
        if (!p->has_version) rc = fs_next_ts(fs, p, &put_ts);
        if (rc == 0) {
            kv_status st = kv_put(fs->store, p->table, p->row, p->row_len, p->family, p->qual,
                                  p->qual_len, put_ts, v, (size_t)size, &w);
            rc = fs_fail(fs, st, "truncate", path);
        }
        pthread_mutex_unlock(&fs->stamp_mu);
        if (rc == 0) fs_notify_changed(fs, path);
        fs_write_end(fs, lease);
    }
    free(v);
    return rc;
}

int fs_op_truncate(cellfs *fs, const char *path, off_t size, struct fuse_file_info *fi)
{
    if (size < 0) return -EINVAL;
    if (fi && fi->fh) return fs_handle_truncate(fs, (fs_handle *)(uintptr_t)fi->fh, size);
    if (!path) return -ENOENT;
    fs_path p;
    int rc = fs_path_parse(&p, path);
    int sc = fs_path_scratch(&p, path, rc);
    if (sc) rc = sc > 0 ? 0 : sc;
    if (rc == 0 && p.asof) rc = -EROFS;
    if (rc == 0) {
        switch (p.kind) {
        case FS_CELL:
            rc = truncate_cell(fs, path, &p, size);
            break;
        case FS_SCHEMA: {
            char *text;
            size_t len;
            rc = fs_schema_text(fs, p.table, &text, &len);
            if (rc == 0) {
                if ((size_t)size < len) len = (size_t)size;
                rc = fs_schema_apply(fs, p.table, text, len);
                free(text);
            }
            break;
        }
        case FS_ROW: {
            pthread_mutex_lock(&fs->mu);
            fs_scratch *s = fs_scratch_find(fs, p.table, p.last, p.last_len);
            if (!s) rc = -EISDIR;
            else if ((size_t)size > FS_SCRATCH_BYTES) rc = -EFBIG;
            else if ((size_t)size <= s->len) s->len = (size_t)size;
            else {
                uint8_t *nb = realloc(s->buf, (size_t)size);
                if (!nb) rc = -ENOMEM;
                else {
                    memset(nb + s->len, 0, (size_t)size - s->len);
                    s->buf = nb;
                    s->len = (size_t)size;
                }
            }
            pthread_mutex_unlock(&fs->mu);
            break;
        }
        default:
            rc = -EISDIR;
        }
    }
    fs_path_free(&p);
    return rc;
}

int fs_op_statfs(cellfs *fs, struct statvfs *sv)
{
    struct statvfs under;
    if (statvfs(fs->store_path, &under) != 0) memset(&under, 0, sizeof under);
    kv_store_stats s;
    kv_status st = kv_store_stat(&s, fs->store);
    if (st == KV_NOT_SUPPORTED) {
        /* a remote store (Cloud Bigtable) has no local files: df shows
           the disk under the mount's directory with nothing used */
        memset(&s, 0, sizeof s);
    } else if (st != KV_OK) {
        return fs_fail(fs, st, "statfs", fs->store_path);
    }
    memset(sv, 0, sizeof *sv);
    sv->f_bsize = sv->f_frsize = 4096;
    uint64_t used = (s.disk_bytes + 4095) / 4096;
    uint64_t avail = under.f_frsize ? under.f_bavail * under.f_frsize / 4096 : 0;
    uint64_t freeb = under.f_frsize ? under.f_bfree * under.f_frsize / 4096 : 0;
    sv->f_blocks = used + freeb;
    sv->f_bfree = freeb;
    sv->f_bavail = avail;
    /* Inodes: used (files - ffree) is the names the mount holds for the
       kernel (its node table: -o max_nodes caps it), beside what the
       disk has free. */
    sv->f_files = fs_nodes_count(&fs->nodes) + under.f_ffree;
    sv->f_ffree = under.f_ffree;
    sv->f_favail = under.f_favail;
    sv->f_namemax = FS_NAME_SHORT_MAX;   /* longer names: ENAMETOOLONG */
    return 0;
}
