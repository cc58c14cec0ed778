/**
 * @file lowlevel.c
 * The mount's side of libfuse's low-level API: each request on inode
 * numbers becomes a path through the node table (nodes.h), the operation
 * by path (ops.h) does the work, and the reply hands the kernel entries
 * with the mount's timeouts, a reference in the node table for each. The
 * kernel's caches are dropped where the store changes (cells.c,
 * fs_notify_changed). Called by libfuse's session loop (main.c).
 */
#include "ops.h"
#include "open_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* d_ino of a plain READDIR entry: the listing hands out no node (a lookup
   does), and 0 would hide the entry from some readdir(3) callers. */
#define DIRENT_NO_INO 0xffffffffu

static cellfs *fs_of(fuse_req_t req)
{
    return fuse_req_userdata(req);
}

static pid_t pid_of(fuse_req_t req)
{
    const struct fuse_ctx *c = fuse_req_ctx(req);
    return c ? c->pid : 0;
}

static void reply_status(fuse_req_t req, int rc)
{
    fuse_reply_err(req, rc < 0 ? -rc : 0);
}

/* How long the kernel may keep the attributes @p st of @p path (NULL: an
   open file's). None while a file that is written and not yet committed
   holds them: its writer's process and others see different sizes (known
   from the getattr that read them, rule->held, or looked up here). */
static double attr_seconds(cellfs *fs, const fs_cache_rule *rule, const char *path,
                           const struct stat *st)
{
    size_t size;
    int64_t ts;
    bool mine;
    if (S_ISREG(st->st_mode) && path &&
        (rule->held >= 0 ? rule->held > 0 : fs_handles_stat(fs, path, 0, &size, &ts, &mine)))
        return 0;
    return fs_cache_seconds(fs, rule, st);
}

/* The entry of node @p ino, which @p path names, with attributes @p st,
   which the kernel may keep as long as @p rule allows. */
static void entry_of(cellfs *fs, fuse_ino_t ino, const char *path, const struct stat *st,
                     const fs_cache_rule *rule, struct fuse_entry_param *e)
{
    memset(e, 0, sizeof *e);
    e->ino = ino;
    e->attr = *st;
    e->attr.st_ino = ino;
    e->entry_timeout = fs_cache_seconds(fs, rule, st);
    e->attr_timeout = attr_seconds(fs, rule, path, st);
}

/* A node the kernel holds whose path no longer names anything: something
   else than a call on this name took it away (the row's last cell went, a
   version fell out of VERSIONS, a family was dropped). ESTALE makes the
   kernel look the path up again (the system call is retried with
   LOOKUP_REVAL), where the name is then gone, or made anew by O_CREAT. */
static int gone_is_stale(fuse_ino_t ino, int rc)
{
    return rc == -ENOENT && ino != FUSE_ROOT_ID ? -ESTALE : rc;
}

/* What a stat or an opendir of a node the kernel holds answers when its
   name names nothing: ENOENT, as a local file system answers when the name
   was removed (the kernel retries an ESTALE only once, so under churn, a
   name removed, made and removed again, ls, find and du would see it),
   except for a node detached by a rename over its name (sed -i, editors,
   rsync), whose name lives on with another node: ESTALE, on which the
   kernel looks the name up again and finds that one. (An open keeps
   gone_is_stale: open(O_CREAT) reaches the daemon as OPEN when the kernel
   still holds the name, and only a lookup again makes it a CREATE.) */
static int gone_unless_replaced(cellfs *fs, fuse_ino_t ino, int rc)
{
    return rc == -ENOENT && fs_nodes_replaced(&fs->nodes, ino) ? -ESTALE : rc;
}

static void set_handle_ino(cellfs *fs, struct fuse_file_info *fi, fuse_ino_t ino)
{
    fs_handle *h = (fs_handle *)(uintptr_t)fi->fh;
    pthread_mutex_lock(&fs->mu);
    h->ino = ino;
    pthread_mutex_unlock(&fs->mu);
}

/* Attributes of @p path (or of the open file in @p fi), and in @p rule
   (when not NULL) the cache rule of @p path. */
static int stat_of(fuse_req_t req, const char *path, struct stat *st, struct fuse_file_info *fi,
                   fs_cache_rule *rule)
{
    return fs_op_getattr(fs_of(req), pid_of(req), path, st, fi, rule);
}

/* Replies with the entry @p name of @p parent, which @p path names; its
   attributes from the open file @p fi (CREATE) when non-NULL. Returns 0
   once a reply went out (the request is then answered and gone: when the
   kernel refused it, interrupted, the node's reference and the open file
   are taken back here), or -errno when nothing was sent and the caller
   must answer with that error. *rule: the path's cache rule, also when
   nothing was found. */
static int reply_ruled_entry(fuse_req_t req, fuse_ino_t parent, const char *name,
                             const char *path, struct fuse_file_info *fi, fs_cache_rule *rule)
{
    cellfs *fs = fs_of(req);
    struct stat st;
    int rc = stat_of(req, path, &st, fi, rule);
    fuse_ino_t ino = 0;
    if (rc == 0) rc = fs_nodes_ref(&fs->nodes, parent, name, &ino);
    if (rc) return rc;
    struct fuse_entry_param e;
    entry_of(fs, ino, path, &st, rule, &e);
    if (fi) set_handle_ino(fs, fi, ino);
    int sent = fi ? fuse_reply_create(req, &e, fi) : fuse_reply_entry(req, &e);
    if (sent != 0) {
        fs_nodes_unref(&fs->nodes, ino);
        if (fi) (void)fs_op_release(fs, fi);
    }
    return 0;
}

/* reply_ruled_entry for a caller that needs no rule. */
static int reply_new_entry(fuse_req_t req, fuse_ino_t parent, const char *name, const char *path,
                           struct fuse_file_info *fi)
{
    fs_cache_rule rule;
    return reply_ruled_entry(req, parent, name, path, fi, &rule);
}

/* Replies to a lookup of @p path that found nothing: a negative entry
   (ino 0) the kernel may keep as long as fs_cache_negative_seconds allows
   given the path's @p rule, when @p counted (fs_negative_begin, before the
   store read); else ENOENT. Returns whether one was handed out. */
static bool reply_absent(fuse_req_t req, const char *path, const fs_cache_rule *rule,
                         bool counted)
{
    cellfs *fs = fs_of(req);
    double seconds = counted ? fs_cache_negative_seconds(fs, path, rule) : 0;
    if (seconds <= 0) {
        fuse_reply_err(req, ENOENT);
        return false;
    }
    struct fuse_entry_param e;
    memset(&e, 0, sizeof e);
    e.entry_timeout = seconds;
    return fuse_reply_entry(req, &e) == 0;
}

static void ll_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
    cellfs *fs = fs_of(req);
    int rc;
    char *path = fs_nodes_path(&fs->nodes, parent, name, &rc);
    fs_negative_ticket ticket;
    bool counted = path && fs_negative_begin(fs, path, &ticket);
    fs_cache_rule rule;
    fs_cache_rule_default(fs, &rule);
    if (path) rc = reply_ruled_entry(req, parent, name, path, NULL, &rule);
    bool handed_out = false;
    if (rc == -ENOENT && path) handed_out = reply_absent(req, path, &rule, counted);
    else if (rc) fuse_reply_err(req, -rc);
    if (counted) fs_negative_end(fs, &ticket, handed_out);
    free(path);
}

static void ll_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
    fs_nodes_forget(&fs_of(req)->nodes, ino, nlookup);
    fuse_reply_none(req);
}

static void ll_forget_multi(fuse_req_t req, size_t count, struct fuse_forget_data *forgets)
{
    cellfs *fs = fs_of(req);
    for (size_t i = 0; i < count; i++)
        fs_nodes_forget(&fs->nodes, forgets[i].ino, forgets[i].nlookup);
    fuse_reply_none(req);
}

/* Replies with the attributes @p st of node @p ino, which @p path names
   (NULL: an open file), kept as @p rule (the path's) allows. */
static void reply_attr(fuse_req_t req, fuse_ino_t ino, const char *path, struct stat *st,
                       const fs_cache_rule *rule)
{
    cellfs *fs = fs_of(req);
    st->st_ino = ino;
    fuse_reply_attr(req, st, attr_seconds(fs, rule, path, st));
}

/* @p fi when it holds an open file's handle. The kernel also passes the
   handle of an open directory (futimens of a directory's descriptor): that
   is no fs_handle, and the request goes by path. */
static struct fuse_file_info *file_handle(cellfs *fs, struct fuse_file_info *fi)
{
    return fi && fi->fh && !fs_op_is_dir_handle(fs, fi) ? fi : NULL;
}

static void ll_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
    cellfs *fs = fs_of(req);
    struct stat st;
    int rc;
    fs_cache_rule rule;
    fs_cache_rule_default(fs, &rule);
    fi = file_handle(fs, fi);
    char *path = fs_nodes_path(&fs->nodes, ino, NULL, &rc);
    if (path || fi) {
        rc = stat_of(req, path, &st, fi, fi ? NULL : &rule);
    } else if (rc == -ENOENT && fs_handles_stat_ino(fs, ino, &st)) {
        rc = 0;                  /* fstat of an open file whose name went */
    } else {
        rc = gone_unless_replaced(fs, ino, rc);
    }
    if (rc) fuse_reply_err(req, -rc);
    else reply_attr(req, ino, fi ? NULL : path, &st, &rule);
    free(path);
}

static void ll_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int to_set,
                       struct fuse_file_info *fi)
{
    cellfs *fs = fs_of(req);
    int rc;
    char *path = fs_nodes_path(&fs->nodes, ino, NULL, &rc);
    fi = file_handle(fs, fi);
    /* futimens(2) comes without the open file: when the name went (a
       rename replaced it, unlink), the times go to a file open on the
       node, as to an unlinked inode on a local file system. */
    struct fuse_file_info held_fi;
    fs_handle *held = !path && !fi ? fs_handles_ref_ino(fs, ino) : NULL;
    if (held) {
        memset(&held_fi, 0, sizeof held_fi);
        held_fi.fh = (uint64_t)(uintptr_t)held;
        fi = &held_fi;
    }
    if (path || fi) rc = 0;
    /* Modes and owners are accepted and not kept (every cell shows the
       mount's owner and mode); sizes and modification times are. */
    if (rc == 0 && (to_set & FUSE_SET_ATTR_SIZE))
        rc = fs_op_truncate(fs, path, attr->st_size, fi);
    if (rc == 0 && (to_set & (FUSE_SET_ATTR_MTIME | FUSE_SET_ATTR_MTIME_NOW))) {
        struct timespec tv[2];
        tv[0].tv_sec = 0;
        tv[0].tv_nsec = UTIME_OMIT;
        tv[1] = attr->st_mtim;
        if (to_set & FUSE_SET_ATTR_MTIME_NOW) tv[1].tv_nsec = UTIME_NOW;
        rc = held ? fs_op_utimens_detached(fs, tv, fi) : fs_op_utimens(fs, path, tv, fi);
    }
    struct stat st;
    fs_cache_rule rule;
    fs_cache_rule_default(fs, &rule);
    if (rc == 0) rc = stat_of(req, path, &st, fi, fi ? NULL : &rule);
    if (path && !fi) rc = gone_is_stale(ino, rc);   /* a detached node stays ENOENT */
    if (rc) fuse_reply_err(req, -rc);
    else reply_attr(req, ino, fi ? NULL : path, &st, &rule);
    if (held) fs_handles_unref(fs, held);
    free(path);
}

static void ll_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
    cellfs *fs = fs_of(req);
    int rc;
    char *path = fs_nodes_path(&fs->nodes, ino, NULL, &rc);
    /* A node detached since the kernel looked its name up (a rename over
       it, as sed -i, editors and rsync do) is stale too: the retried lookup
       finds what the name holds now, so a reader sees the old or the new
       file, never ENOENT. */
    rc = gone_is_stale(ino, path ? fs_op_open(fs, pid_of(req), path, fi) : rc);
    free(path);
    if (rc) {
        fuse_reply_err(req, -rc);
        return;
    }
    set_handle_ino(fs, fi, ino);
    if (fuse_reply_open(req, fi) != 0) (void)fs_op_release(fs, fi);   /* interrupted */
}

static void ll_create(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
                      struct fuse_file_info *fi)
{
    (void)mode;
    cellfs *fs = fs_of(req);
    int rc;
    char *path = fs_nodes_path(&fs->nodes, parent, name, &rc);
    if (path) rc = fs_op_create(fs, pid_of(req), path, fi);
    if (rc == 0) {
        rc = reply_new_entry(req, parent, name, path, fi);
        if (rc) (void)fs_op_release(fs, fi);   /* nothing was sent */
    }
    if (rc) fuse_reply_err(req, -rc);
    free(path);
}

static void ll_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
                    struct fuse_file_info *fi)
{
    (void)ino;
    char *buf = malloc(size ? size : 1);
    if (!buf) {
        fuse_reply_err(req, ENOMEM);
        return;
    }
    int n = fs_op_read(fs_of(req), buf, size, off, fi);
    if (n < 0) fuse_reply_err(req, -n);
    else fuse_reply_buf(req, buf, (size_t)n);
    free(buf);
}

static void ll_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off,
                     struct fuse_file_info *fi)
{
    (void)ino;
    int n = fs_op_write(fs_of(req), buf, size, off, fi);
    if (n < 0) fuse_reply_err(req, -n);
    else fuse_reply_write(req, (size_t)n);
}

static void ll_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
    (void)ino;
    reply_status(req, fs_op_flush(fs_of(req), fi));
}

static void ll_fsync(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi)
{
    (void)ino, (void)datasync;
    reply_status(req, fs_op_fsync(fs_of(req), fi));
}

/* fallocate(2): there is no space to reserve in a store, so mode 0 is
   truncate(2) up to @p off + @p len when that is past the open file's size
   (limits and errors as truncate's), and FALLOC_FL_KEEP_SIZE alone does
   nothing; the other modes (punching holes, zeroing or moving ranges) are
   not supported (EOPNOTSUPP). */
static void ll_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t off, off_t len,
                         struct fuse_file_info *fi)
{
    (void)ino;
    cellfs *fs = fs_of(req);
    fi = file_handle(fs, fi);
    int rc = 0;
    if (mode & ~FALLOC_FL_KEEP_SIZE) rc = -EOPNOTSUPP;
    else if (!fi) rc = -EBADF;
    else if (off < 0 || len <= 0) rc = -EINVAL;
    else if (off > INT64_MAX - len) rc = -EFBIG;
    struct stat st;
    if (rc == 0 && !(mode & FALLOC_FL_KEEP_SIZE)) rc = stat_of(req, NULL, &st, fi, NULL);
    if (rc == 0 && !(mode & FALLOC_FL_KEEP_SIZE) && off + len > st.st_size)
        rc = fs_op_truncate(fs, NULL, off + len, fi);
    reply_status(req, rc);
}

static void ll_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
    (void)ino;
    reply_status(req, fs_op_release(fs_of(req), fi));
}

static void ll_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
    cellfs *fs = fs_of(req);
    int rc;
    char *path = fs_nodes_path(&fs->nodes, ino, NULL, &rc);
    if (path) rc = fs_op_opendir(fs, path, fi);
    else rc = gone_unless_replaced(fs, ino, rc);
    free(path);
    if (rc) fuse_reply_err(req, -rc);
    else if (fuse_reply_open(req, fi) != 0) (void)fs_op_releasedir(fs, fi);
}

/* One READDIR(PLUS) reply being filled. */
typedef struct dir_reply {
    fuse_req_t req;
    fuse_ino_t dir;
    bool plus;
    char *buf;
    size_t size, used;
    fuse_ino_t *refs;            /* nodes referenced for this reply */
    size_t nrefs;
} dir_reply;

static int dir_fill(void *ctx, const char *dir_path, const char *name, bool dir,
                    const struct stat *known, const fs_cache_rule *rule, off_t next_off)
{
    dir_reply *r = ctx;
    cellfs *fs = fs_of(r->req);
    struct stat st;
    memset(&st, 0, sizeof st);
    st.st_ino = DIRENT_NO_INO;
    st.st_mode = dir ? S_IFDIR : S_IFREG;
    if (!r->plus) {
        size_t need = fuse_add_direntry(r->req, NULL, 0, name, NULL, 0);
        if (r->used + need > r->size) return 1;
        r->used += fuse_add_direntry(r->req, r->buf + r->used, r->size - r->used, name, &st,
                                     next_off);
        return 0;
    }
    struct fuse_entry_param e;
    memset(&e, 0, sizeof e);
    e.attr = st;
    size_t need = fuse_add_direntry_plus(r->req, NULL, 0, name, NULL, 0);
    if (r->used + need > r->size) return 1;
    /* . and .. and names that do not stat (a row gone meanwhile) are
       listed without an entry (inode 0): the kernel looks them up. */
    bool dots = strcmp(name, ".") == 0 || strcmp(name, "..") == 0;
    if (!dots) {
        fs_cache_rule er = *rule;
        char *path = NULL;
        bool have = known != NULL;
        if (have) {
            st = *known;
            er.held = 0;         /* the listing found no open file holding it */
        } else {
            path = fs_path_child(dir_path, name);
            have = path && stat_of(r->req, path, &st, NULL, NULL) == 0;
        }
        fuse_ino_t ino;
        fuse_ino_t *nr = have ? realloc(r->refs, (r->nrefs + 1) * sizeof *nr) : NULL;
        if (nr) r->refs = nr;
        if (nr && fs_nodes_ref(&fs->nodes, r->dir, name, &ino) == 0) {
            entry_of(fs, ino, path, &st, &er, &e);
            r->refs[r->nrefs++] = ino;
        }
        free(path);
    }
    r->used += fuse_add_direntry_plus(r->req, r->buf + r->used, r->size - r->used, name, &e,
                                      next_off);
    return 0;
}

static void readdir_common(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
                           struct fuse_file_info *fi, bool plus)
{
    cellfs *fs = fs_of(req);
    dir_reply r = { .req = req, .dir = ino, .plus = plus, .size = size };
    r.buf = malloc(size ? size : 1);
    if (!r.buf) {
        fuse_reply_err(req, ENOMEM);
        return;
    }
    int rc = fs_op_readdir(fs, fi, off, plus, dir_fill, &r);
    if (rc) {
        for (size_t i = 0; i < r.nrefs; i++) fs_nodes_unref(&fs->nodes, r.refs[i]);
        fuse_reply_err(req, -rc);
    } else if (fuse_reply_buf(req, r.buf, r.used) != 0) {
        for (size_t i = 0; i < r.nrefs; i++) fs_nodes_unref(&fs->nodes, r.refs[i]);
    }
    free(r.refs);
    free(r.buf);
}

static void ll_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
                       struct fuse_file_info *fi)
{
    readdir_common(req, ino, size, off, fi, false);
}

static void ll_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
                           struct fuse_file_info *fi)
{
    readdir_common(req, ino, size, off, fi, true);
}

static void ll_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
    (void)ino;
    reply_status(req, fs_op_releasedir(fs_of(req), fi));
}

static void ll_fsyncdir(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi)
{
    (void)ino, (void)datasync, (void)fi;
    fuse_reply_err(req, 0);
}

static void ll_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode)
{
    (void)mode;
    cellfs *fs = fs_of(req);
    int rc;
    char *path = fs_nodes_path(&fs->nodes, parent, name, &rc);
    if (path) rc = fs_op_mkdir(fs, path);
    if (rc == 0) rc = reply_new_entry(req, parent, name, path, NULL);
    if (rc) fuse_reply_err(req, -rc);
    free(path);
}

/* unlink and rmdir: the name goes from the node table as from the kernel. */
static void remove_common(fuse_req_t req, fuse_ino_t parent, const char *name, bool dir)
{
    cellfs *fs = fs_of(req);
    int rc;
    char *path = fs_nodes_path(&fs->nodes, parent, name, &rc);
    if (path) rc = dir ? fs_op_rmdir(fs, path) : fs_op_unlink(fs, path);
    if (rc == 0) fs_nodes_detach(&fs->nodes, parent, name);
    free(path);
    reply_status(req, rc);
}

static void ll_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
    remove_common(req, parent, name, false);
}

static void ll_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name)
{
    remove_common(req, parent, name, true);
}

static void ll_rename(fuse_req_t req, fuse_ino_t parent, const char *name, fuse_ino_t newparent,
                      const char *newname, unsigned int flags)
{
    cellfs *fs = fs_of(req);
    int rc;
    char *from = fs_nodes_path(&fs->nodes, parent, name, &rc);
    char *to = from ? fs_nodes_path(&fs->nodes, newparent, newname, &rc) : NULL;
    if (from && to) rc = fs_op_rename(fs, from, to, flags);
    if (rc == 0) fs_nodes_rename(&fs->nodes, parent, name, newparent, newname);
    free(from);
    free(to);
    reply_status(req, rc);
}

static void ll_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent, const char *newname)
{
    cellfs *fs = fs_of(req);
    int rc;
    char *from = fs_nodes_path(&fs->nodes, ino, NULL, &rc);
    char *to = fs_nodes_path(&fs->nodes, newparent, newname, &rc);
    rc = fs_op_link(fs, from ? from : "(removed file)", to ? to : newname);
    free(from);
    free(to);
    reply_status(req, rc);
}

/* symlink and mknod: refused by @p op, which logs the name. */
static void refuse_new_name(fuse_req_t req, fuse_ino_t parent, const char *name,
                            int (*op)(cellfs *, const char *))
{
    cellfs *fs = fs_of(req);
    int rc;
    char *path = fs_nodes_path(&fs->nodes, parent, name, &rc);
    rc = op(fs, path ? path : name);
    free(path);
    reply_status(req, rc);
}

static void ll_symlink(fuse_req_t req, const char *link, fuse_ino_t parent, const char *name)
{
    (void)link;
    refuse_new_name(req, parent, name, fs_op_symlink);
}

static void ll_mknod(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode, dev_t rdev)
{
    (void)mode, (void)rdev;
    refuse_new_name(req, parent, name, fs_op_mknod);
}

static void ll_statfs(fuse_req_t req, fuse_ino_t ino)
{
    (void)ino;
    struct statvfs sv;
    int rc = fs_op_statfs(fs_of(req), &sv);
    if (rc) fuse_reply_err(req, -rc);
    else fuse_reply_statfs(req, &sv);
}

static void ll_destroy(void *userdata)
{
    cellfs *fs = userdata;
    /* Files still open at unmount: commit what they hold. */
    for (;;) {
        pthread_mutex_lock(&fs->mu);
        fs_handle *h = fs->handles;
        pthread_mutex_unlock(&fs->mu);
        if (!h) break;
        int rc = fs_handle_release(fs, h);
        if (rc) fs_log(fs, "unmount: a file's last write failed: %s", strerror(-rc));
    }
    fs_evict_stop(fs);
    fs_pending_clear(fs);
    fs_dirs_free(fs);
    fs_rowmemo_free(fs);
    fs_dirtime_free(fs);
    fs_cellmemo_free(fs);
    if (fs->store) {
        kv_status st = kv_store_close(fs->store);
        if (st != KV_OK) fs_log(fs, "unmount: closing the store: %s", kv_strerror(st));
        fs->store = NULL;
    }
}

/* On a mount whose kernel keeps what it is told (cache_time.c), every
   change of a value is told (fs_notify_changed), and a close hands the
   kernel the value it committed as the file's pages (commit.c,
   store_pages): the kernel must not drop them itself when the next
   GETATTR shows the commit's time instead of the one it had (libfuse's
   default, FUSE_CAP_AUTO_INVAL_DATA). A change of size still drops them
   (the kernel does that regardless). Elsewhere the default stays: a store
   others write, and a timeout, need it. */
static void ll_init(void *userdata, struct fuse_conn_info *conn)
{
    cellfs *fs = userdata;
    if (fs->cache_long) conn->want &= ~FUSE_CAP_AUTO_INVAL_DATA;
    fs_negative_init(fs, conn->proto_major, conn->proto_minor);
    fs_rowmemo_init(fs);
    fs_dirtime_init(fs);
    int rc = fs_evict_start(fs);
    if (rc) fs_log(fs, "max_nodes: cannot start the evicting thread (%s): the node table is "
                   "not capped", strerror(-rc));
}

void fs_lowlevel_ops(struct fuse_lowlevel_ops *ops)
{
    memset(ops, 0, sizeof *ops);
    ops->init = ll_init;
    ops->destroy = ll_destroy;
    ops->lookup = ll_lookup;
    ops->forget = ll_forget;
    ops->forget_multi = ll_forget_multi;
    ops->getattr = ll_getattr;
    ops->setattr = ll_setattr;
    ops->open = ll_open;
    ops->create = ll_create;
    ops->read = ll_read;
    ops->write = ll_write;
    ops->flush = ll_flush;
    ops->fsync = ll_fsync;
    ops->release = ll_release;
    ops->fallocate = ll_fallocate;
    ops->opendir = ll_opendir;
    ops->readdir = ll_readdir;
    ops->readdirplus = ll_readdirplus;
    ops->releasedir = ll_releasedir;
    ops->fsyncdir = ll_fsyncdir;
    ops->mkdir = ll_mkdir;
    ops->unlink = ll_unlink;
    ops->rmdir = ll_rmdir;
    ops->rename = ll_rename;
    ops->link = ll_link;
    ops->symlink = ll_symlink;
    ops->mknod = ll_mknod;
    ops->statfs = ll_statfs;
}
