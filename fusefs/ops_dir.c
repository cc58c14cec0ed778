/**
 * @file ops_dir.c
 * FUSE directory operations. readdir streams: a table listing keeps one
 * open kv_scan and the next unsent row in its directory handle and resumes
 * from there (offsets are entry positions), so listing a million rows holds
 * one row key in memory; the small listings (namespaces, tables, families,
 * one row's qualifiers) are loaded once per handle. mkdir/rmdir create and
 * drop namespaces and tables, keep mkdir'ed rows pending and young
 * (pending.c), and fs_family_listed says which families a row lists.
 * Called by libfuse; calls path.c, names.c, cells.c, pending.c, kvcore.h.
 */
#include "ops.h"
#include "open_file.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* What a listing learnt of an entry's attributes (known: the entry can
   be handed to the kernel with them, READDIRPLUS, without a getattr). */
typedef struct dir_attr {
    bool known;
    size_t size;                 /* files */
    int64_t ts;                  /* mtime in ms; INT64_MIN: the mount's time */
} dir_attr;

typedef struct fs_dirh {
    struct fs_dirh *next, *prev; /* fs->dirs, under fs->mu */
    pthread_mutex_t mu;
    char *path;                  /* p points into it */
    fs_cache_rule rule;          /* of every entry (fs_cache_rule_children) */
    off_t next_off;              /* position of the next entry to send */
    /* Table listings: */
    kv_scan *scan;
    bool scan_attrs;             /* the scan reads every key (READDIRPLUS) */
    bool scan_done;
    uint8_t *pend;               /* row fetched from the scan, not yet sent */
    size_t pend_len;
    bool has_pend;
    dir_attr pend_attr;          /* its mtime, when the scan read its keys */
    off_t scan_end;              /* position after the last row */
    /* Small listings, and the pending rows after a table's scan. */
    char **names;
    bool *is_dir;
    dir_attr *attrs;
    size_t nnames;
    bool loaded;
    bool want_attrs;             /* READDIRPLUS: learn attributes while listing */
    int err;
    fs_path p;                   /* last: fs_path_parse sets all of it */
} fs_dirh;

static void names_free(fs_dirh *d)
{
    for (size_t i = 0; i < d->nnames; i++) free(d->names[i]);
    free(d->names);
    free(d->is_dir);
    free(d->attrs);
    d->names = NULL;
    d->is_dir = NULL;
    d->attrs = NULL;
    d->nnames = 0;
    d->loaded = false;
}

static int names_add_attr(fs_dirh *d, const char *name, bool dir, const dir_attr *a,
                          size_t *cap)
{
    if (d->nnames == *cap) {
        size_t nc = *cap ? 2 * *cap : 16;
        char **nn = realloc(d->names, nc * sizeof *nn);
        if (!nn) return -ENOMEM;
        d->names = nn;
        bool *nd = realloc(d->is_dir, nc * sizeof *nd);
        if (!nd) return -ENOMEM;
        d->is_dir = nd;
        dir_attr *na = realloc(d->attrs, nc * sizeof *na);
        if (!na) return -ENOMEM;
        d->attrs = na;
        *cap = nc;
    }
    char *s = strdup(name);
    if (!s) return -ENOMEM;
    d->names[d->nnames] = s;
    d->is_dir[d->nnames] = dir;
    d->attrs[d->nnames] = a ? *a : (dir_attr){ .known = false };
    d->nnames++;
    return 0;
}

static int names_add(fs_dirh *d, const char *name, bool dir, size_t *cap)
{
    return names_add_attr(d, name, dir, NULL, cap);
}

/* Whether a row lists a family: one with cells always; else, while the
   row exists, a young row (fs_young_add) the families made in it with
   mkdir (@p young 1, 0 for the others), every other row (-1) all. */
static bool family_shown(int young, bool family_has_cells, bool row_exists)
{
    return family_has_cells || (row_exists && young != 0);
}

int fs_family_listed(cellfs *fs, const fs_path *p, const char *family, int64_t *ts)
{
    int64_t newest = 0;
    int has = fs_row_newest(fs, p, family, &newest);
    if (has < 0) return has;
    if (ts) *ts = has ? newest : 0;
    if (has) return 1;
    int young = fs_young_family(fs, p, family);
    if (young == 0) return 0;
    int exists = fs_pending_has(fs, p) ? 1 : fs_row_has_cells(fs, p, NULL);
    if (exists < 0) return exists;
    return family_shown(young, false, exists > 0);
}

/* A row listing for READDIRPLUS: the families the row shows, each with the
   newest time of its cells (one read of the row's keys), as getattr gives
   them. */
static int load_row_attrs(cellfs *fs, fs_dirh *d, char **fams, size_t *cap)
{
    fs_path *p = &d->p;
    /* What the mount knows of the row besides the store, asked first:
       nothing is called while the kept keys are held (rowmemo.c). */
    bool pending = fs_pending_has(fs, p);
    size_t nfams = 0;
    while (fams[nfams]) nfams++;
    int *young = malloc((nfams ? nfams : 1) * sizeof *young);
    if (!young) return -ENOMEM;
    for (size_t i = 0; i < nfams; i++) young[i] = fs_young_family(fs, p, fams[i]);
    /* Where the kernel keeps the families, the keys are kept for the
       family listing that follows (rowmemo.c), or taken from there. */
    const kv_result *r = fs_rowmemo_get(fs, p);
    bool memo = r != NULL, keep = !memo && fs_rowmemo_usable(fs, p);
    kv_result *own = NULL;
    for (int tries = 0; !r && tries < 2; tries++, keep = false) {
        kv_read_options o;
        fs_ropts(p, &o);
        o.filter = fs->f_keyonly;
        if (keep) fs_rowmemo_read_options(fs, p, &o);
        fs_rowmemo_mark mark = fs_rowmemo_now(fs);
        kv_status st = kv_get(&own, fs->store, p->table, p->row, p->row_len, &o);
        if (st != KV_OK) {
            free(young);
            return fs_fail(fs, st, "readdir", d->path);
        }
        if (keep) own = fs_rowmemo_put(fs, p, mark, own);
        r = own ? own : fs_rowmemo_get(fs, p);   /* NULL: changed meanwhile */
        memo = !own && r != NULL;
    }
    bool exists = pending;
    for (size_t c = 0; c < r->ncells; c++) exists = exists || r->cells[c].type == KV_TYPE_PUT;
    int rc = 0;
    for (size_t i = 0; i < nfams && rc == 0; i++) {
        const char *fam = fams[i];
        dir_attr a = { .known = true, .ts = INT64_MIN };
        for (size_t c = 0; c < r->ncells; c++)
            if (r->cells[c].type == KV_TYPE_PUT && strcmp(r->cells[c].family, fam) == 0 &&
                r->cells[c].timestamp > a.ts)
                a.ts = r->cells[c].timestamp;
        bool has = a.ts != INT64_MIN;
        if (!has) a.ts = 0;      /* without cells: the epoch (fs_family_listed) */
        if (family_shown(young[i], has, exists)) rc = names_add_attr(d, fam, true, &a, cap);
    }
    if (memo) fs_rowmemo_done(fs);
    kv_result_free(own);
    free(young);
    return rc;
}

static void dir_reset(fs_dirh *d)
{
    if (d->scan) kv_scan_close(d->scan);
    d->scan = NULL;
    d->scan_done = false;
    d->has_pend = false;
    d->scan_end = 0;
    names_free(d);
    d->next_off = 0;
    d->err = 0;
}

/* The cells of the family d->p names in @p r (of its row; other families'
   cells skipped), with their lengths when @p r has them. */
static int list_cells(cellfs *fs, fs_dirh *d, const kv_result *r, size_t *cap)
{
    const fs_path *p = &d->p;
    int rc = 0;
    /* With -o versions each q follows all of its versions, newest first;
       the newest is then listed twice, as q@<ts> and as q. */
    const kv_cell *prev = NULL;
    char qname[FS_NAME_MAX + 1];
    dir_attr qattr = { .known = false }, vattr = { .known = false };
    for (size_t i = 0; i < r->ncells && rc == 0; i++) {
        const kv_cell *c = &r->cells[i];
        if (c->type != KV_TYPE_PUT || strcmp(c->family, p->family) != 0) continue;
        bool first = !prev || prev->qualifier_len != c->qualifier_len ||
                     memcmp(prev->qualifier, c->qualifier, c->qualifier_len) != 0;
        if (first && prev) rc = names_add_attr(d, qname, false, &qattr, cap);
        char name[FS_NAME_MAX + 1];
        size_t n = fs_name_encode(name, c->qualifier, c->qualifier_len);
        if (n == 0) { rc = -ENOMEM; break; }
        vattr.known = fs->f_keylen != NULL;
        vattr.size = fs_keylen_value(c);
        vattr.ts = c->timestamp;
        if (first) {
            memcpy(qname, name, n + 1);
            qattr = vattr;       /* the newest version comes first */
        }
        if (rc == 0 && fs->versions) {
            fs_ts_suffix(name + n, c->timestamp);
            rc = names_add_attr(d, name, false, &vattr, cap);
        }
        prev = c;
    }
    if (rc == 0 && prev) rc = names_add_attr(d, qname, false, &qattr, cap);
    return rc;
}

static int load_small(cellfs *fs, fs_dirh *d)
{
    size_t cap = 0;
    int rc = 0;
    fs_path *p = &d->p;
    d->loaded = true;
    if (p->kind == FS_ROOT) {
        char **names = NULL;
        kv_status st = kv_namespace_list(&names, fs->store);
        if (st != KV_OK) return fs_fail(fs, st, "readdir", d->path);
        for (char **n = names; *n && rc == 0; n++) rc = names_add(d, *n, true, &cap);
        kv_free_names(names);
    } else if (p->kind == FS_NS) {
        char **names = NULL;
        kv_status st = kv_table_list(&names, fs->store, p->ns);
        if (st != KV_OK) return fs_fail(fs, st, "readdir", d->path);
        for (char **n = names; *n && rc == 0; n++) {
            const char *colon = strchr(*n, ':');
            rc = names_add(d, colon ? colon + 1 : *n, true, &cap);
        }
        kv_free_names(names);
    } else if (p->kind == FS_ROW) {
        char **fams = NULL;      /* the mount keeps them: no describe per row */
        rc = fs_family_names(fs, p->table, &fams);
        if (rc) return rc;
        if (d->want_attrs && fs->f_keyonly) {
            rc = load_row_attrs(fs, d, fams, &cap);
        } else {
            for (size_t i = 0; fams[i] && rc == 0; i++) {
                int shown = fs_family_listed(fs, p, fams[i], NULL);
                if (shown < 0) rc = shown;
                else if (shown) rc = names_add(d, fams[i], true, &cap);
            }
        }
        for (size_t i = 0; fams[i]; i++) free(fams[i]);
        free(fams);
    } else if (p->kind == FS_FAMILY) {
        kv_read_options o;
        fs_ropts(p, &o);
        kv_column col = { p->family, NULL, 0 };
        o.columns = &col;
        o.ncolumns = 1;
        o.max_versions = fs->versions ? INT32_MAX : 1;
        /* Each value's length comes with its key: the sizes READDIRPLUS
           hands the kernel (without it, KeyOnlyFilter()). */
        o.filter = fs->f_keylen ? fs->f_keylen : fs->f_keyonly;
        kv_result *own = NULL;
        const kv_result *r = fs_rowmemo_get(fs, p);   /* the row listing read it */
        bool memo = r != NULL;
        if (!memo) {
            kv_status st = kv_get(&own, fs->store, p->table, p->row, p->row_len, &o);
            if (st == KV_NO_FAMILY) return 0;
            if (st != KV_OK) return fs_fail(fs, st, "readdir", d->path);
            r = own;
        }
        rc = list_cells(fs, d, r, &cap);
        if (memo) fs_rowmemo_done(fs);
        kv_result_free(own);
        /* Temporary files under names that are no key's (fs_path_scratch):
           listed, as they exist. */
        char **tmp;
        size_t ntmp = fs_scratch_names(fs, d->path, &tmp);
        for (size_t i = 0; i < ntmp; i++) {
            if (rc == 0) rc = names_add(d, tmp[i], false, &cap);
            free(tmp[i]);
        }
        free(tmp);
    }
    return rc;
}

/* After a table's scan: mkdir'ed rows that have no cell yet. */
static int load_pending(cellfs *fs, fs_dirh *d)
{
    fs_rowkey *rows;
    size_t n = fs_pending_list(fs, d->p.table, &rows);
    size_t cap = 0;
    int rc = 0;
    d->loaded = true;
    for (size_t i = 0; i < n; i++) {
        fs_path q = d->p;
        q.row = rows[i].key;
        q.row_len = rows[i].len;
        if (rc == 0 && fs_row_has_cells(fs, &q, NULL) == 0) {
            char name[FS_NAME_MAX + 1];
            if (fs_name_encode(name, rows[i].key, rows[i].len)) rc = names_add(d, name, true, &cap);
        }
        free(rows[i].key);
    }
    free(rows);
    /* Files beside the rows (kept in memory): listed, as they exist. */
    char **tmp;
    size_t ntmp = fs_scratch_names(fs, d->p.table, &tmp);
    for (size_t i = 0; i < ntmp; i++) {
        if (rc == 0) rc = names_add(d, tmp[i], false, &cap);
        free(tmp[i]);
    }
    free(tmp);
    return rc;
}

/* The entry at position d->next_off: 1 with name and dir set, 0 at the
   end, or -errno. */
static int peek(cellfs *fs, fs_dirh *d, char *name, bool *dir, dir_attr *attr)
{
    off_t pos = d->next_off;
    attr->known = false;
    if (pos == 0 || pos == 1) {
        strcpy(name, pos == 0 ? "." : "..");
        *dir = true;
        return 1;
    }
    if (d->p.kind != FS_TABLE) {
        if (!d->loaded) {
            int rc = load_small(fs, d);
            if (rc) return rc;
        }
        size_t i = (size_t)(pos - 2);
        if (i >= d->nnames) return 0;
        strcpy(name, d->names[i]);
        *dir = d->is_dir[i];
        *attr = d->attrs[i];
        return 1;
    }
    if (pos == 2) {
        /* A .schema unlinked and not made again is not listed: its
           position is skipped (the positions after it stay as they are). */
        if (!fs_schema_gone(fs, d->p.table)) {
            strcpy(name, ".schema");
            *dir = false;
            return 1;
        }
        d->next_off++;
        pos++;
    }
    if (!d->scan_done && !d->has_pend) {
        if (!d->scan) {
            /* READDIRPLUS hands each row with its mtime, the newest of its
               cells: the scan then reads every key of each row (no value),
               one read of the table instead of a getattr's get per row. */
            d->scan_attrs = d->want_attrs && fs->f_keyonly;
            kv_read_options o;
            fs_ropts(&d->p, &o);
            o.filter = d->scan_attrs ? fs->f_keyonly : fs->f_firstkey;
            o.fill_cache = false;
            kv_status st = kv_scan_open(&d->scan, fs->store, d->p.table, &o);
            if (st != KV_OK) return fs_fail(fs, st, "readdir", d->path);
        }
        const kv_result *r;
        kv_status st = kv_scan_next(&r, d->scan);
        if (st == KV_OK) {
            uint8_t *k = realloc(d->pend, r->row_len ? r->row_len : 1);
            if (!k) return -ENOMEM;
            memcpy(k, r->row, r->row_len);
            d->pend = k;
            d->pend_len = r->row_len;
            d->has_pend = true;
            d->pend_attr = (dir_attr){ .known = false };
            for (size_t c = 0; d->scan_attrs && c < r->ncells; c++) {
                const kv_cell *cell = &r->cells[c];
                if (cell->type != KV_TYPE_PUT) continue;
                if (!d->pend_attr.known || cell->timestamp > d->pend_attr.ts)
                    d->pend_attr.ts = cell->timestamp;
                d->pend_attr.known = true;
            }
        } else if (st == KV_END) {
            d->scan_done = true;
            d->scan_end = pos;
            kv_scan_close(d->scan);
            d->scan = NULL;
            int rc = load_pending(fs, d);
            if (rc) return rc;
        } else {
            return fs_fail(fs, st, "readdir", d->path);
        }
    }
    if (d->has_pend) {
        if (fs_name_encode(name, d->pend, d->pend_len) == 0) return -ENOMEM;
        *dir = true;
        *attr = d->pend_attr;
        return 1;
    }
    size_t i = (size_t)(pos - d->scan_end);
    if (i >= d->nnames) return 0;
    strcpy(name, d->names[i]);
    *dir = d->is_dir[i];
    return 1;
}

int fs_op_opendir(cellfs *fs, const char *path, struct fuse_file_info *fi)
{
    fs_dirh *d = malloc(sizeof *d);
    if (!d) return -ENOMEM;
    memset(d, 0, offsetof(fs_dirh, p));   /* the path (2 KB) is parsed below */
    d->p.row_buf = d->p.qual_buf = NULL;
    d->path = strdup(path);
    int rc = d->path ? fs_path_parse(&d->p, d->path) : -ENOMEM;
    if (rc == 0 && d->p.kind >= FS_ROW) rc = d->p.row_err ? -ENOENT : fs_resolve(fs, &d->p);
    if (rc == 0 && (d->p.kind == FS_SCHEMA || d->p.kind == FS_CELL)) rc = -ENOTDIR;
    if (rc) {
        fs_path_free(&d->p);
        free(d->path);
        free(d);
        return rc;
    }
    /* The kernel may keep a listing that only this mount changes (see
       ops.h), not what changes with the clock (TTL) or a view. A row shows
       every family of the table while it exists, which only a schema
       change (fs_kernel_forget_below) and its last cell's removal
       (fs_notify_changed) change; a young row, the families made in it
       (mkdir, rmdir in it: the kernel's own calls) and those holding
       cells, until it stops being young with the rows made after it,
       which tells the kernel (fs_young_add). A row never becomes young
       again without going first (a mkdir of one of its families finds it
       listed). */
    fs_cache_rule_children(fs, &d->p, &d->rule);
    fi->cache_readdir = fi->keep_cache =
        fs->cache_long && d->rule.seconds >= FS_CACHE_LONG && d->rule.ttl_ms == 0;
    pthread_mutex_init(&d->mu, NULL);
    pthread_mutex_lock(&fs->mu);
    d->next = fs->dirs;
    if (d->next) d->next->prev = d;
    fs->dirs = d;
    pthread_mutex_unlock(&fs->mu);
    fi->fh = (uintptr_t)d;
    return 0;
}

static void dir_free(fs_dirh *d)
{
    dir_reset(d);
    free(d->pend);
    fs_path_free(&d->p);
    free(d->path);
    pthread_mutex_destroy(&d->mu);
    free(d);
}

bool fs_op_is_dir_handle(cellfs *fs, const struct fuse_file_info *fi)
{
    pthread_mutex_lock(&fs->mu);
    const fs_dirh *d = fs->dirs;
    while (d && (uintptr_t)d != fi->fh) d = d->next;
    pthread_mutex_unlock(&fs->mu);
    return d != NULL;
}

int fs_op_releasedir(cellfs *fs, struct fuse_file_info *fi)
{
    fs_dirh *d = (fs_dirh *)(uintptr_t)fi->fh;
    if (!d) return 0;
    pthread_mutex_lock(&fs->mu);
    if (d->prev) d->prev->next = d->next;
    else fs->dirs = d->next;
    if (d->next) d->next->prev = d->prev;
    pthread_mutex_unlock(&fs->mu);
    dir_free(d);
    return 0;
}

void fs_dirs_free(cellfs *fs)
{
    pthread_mutex_lock(&fs->mu);
    fs_dirh *d = fs->dirs;
    fs->dirs = NULL;
    pthread_mutex_unlock(&fs->mu);
    while (d) {
        fs_dirh *next = d->next;
        dir_free(d);
        d = next;
    }
}

/* The attributes getattr would give the entry @p name of @p d, from what
   the listing learnt; false when they are not known (or an open file of
   the name may show other ones to its writer). */
static bool entry_stat(cellfs *fs, fs_dirh *d, const char *name, bool dir, const dir_attr *a,
                       struct stat *st)
{
    if (!a->known) return false;
    if (dir) {
        if (a->ts == INT64_MIN) fs_stat_dir(fs, st);
        else fs_stat_dir_at(fs, st, a->ts);
        return true;
    }
    char *path = fs_path_child(d->path, name);
    if (!path) return false;
    size_t hl;
    int64_t hts;
    bool mine;
    bool open_writer = fs_handles_stat(fs, path, 0, &hl, &hts, &mine);
    free(path);
    if (open_writer) return false;
    fs_stat_file(fs, st, a->size, a->ts, !d->p.asof);
    return true;
}

int fs_op_readdir(cellfs *fs, struct fuse_file_info *fi, off_t off, bool plus, fs_dir_fill fill,
                  void *ctx)
{
    fs_dirh *d = (fs_dirh *)(uintptr_t)fi->fh;
    if (!d) return -EBADF;
    pthread_mutex_lock(&d->mu);
    /* A rewind or a seek elsewhere starts over and skips to @p off. */
    if (off == 0 || off != d->next_off) dir_reset(d);
    if (!d->loaded) d->want_attrs = plus;
    if (d->err) {                /* a failure after entries were sent */
        int err = d->err;
        pthread_mutex_unlock(&d->mu);
        return err;
    }
    int rc = 0, sent = 0;
    char name[FS_NAME_MAX + FS_TS_TEXT_MAX + 2];
    for (;;) {
        bool dir = false;
        dir_attr attr = { .known = false };
        int have = peek(fs, d, name, &dir, &attr);
        if (have < 0) {
            /* Entries already sent go out; the failure is the answer to
               the next call (never a shorter listing). */
            if (!sent) rc = have;
            else d->err = have;
            break;
        }
        if (!have) break;
        if (d->next_off >= off) {
            struct stat st;
            bool known = plus && entry_stat(fs, d, name, dir, &attr, &st);
            if (fill(ctx, d->path, name, dir, known ? &st : NULL, &d->rule, d->next_off + 1))
                break;
            sent++;
        }
        d->next_off++;
        d->has_pend = false;
    }
    pthread_mutex_unlock(&d->mu);
    return rc;
}

/* mkdir of a row, or of @p family in it: the row exists (pending while
   it has no cells) and is young, @p family made in it. */
static int make_row(cellfs *fs, const fs_path *p, const char *family)
{
    bool had = fs_pending_has(fs, p);
    int rc = 0;
    if (!had) {
        rc = fs_row_has_cells(fs, p, NULL);
        if (rc == 0) rc = fs_pending_add(fs, p);
        else if (rc > 0) had = true;
    }
    if (rc == 0 || had) rc = fs_young_add(fs, p, family);
    if (rc && !had) fs_pending_remove(fs, p->table, p->row, p->row_len);
    return rc;
}

int fs_op_mkdir(cellfs *fs, const char *path)
{
    fs_path p;
    int rc = fs_path_parse(&p, path);
    if (rc == 0 && p.asof && p.kind >= FS_TABLE) rc = -EROFS;
    if (rc) goto out;
    switch (p.kind) {
    case FS_ROOT:
    case FS_SCHEMA:
        rc = -EEXIST;
        break;
    case FS_NS:
        if (kv_check_name(p.ns) != KV_OK) {
            fs_log(fs, "mkdir %s: '%s' is not a valid namespace name", path, p.ns);
            rc = -EINVAL;
            break;
        }
        rc = fs_fail(fs, kv_namespace_create(fs->store, p.ns), "mkdir", path);
        break;
    case FS_TABLE: {
        if (kv_check_name(p.tname) != KV_OK) {
            fs_log(fs, "mkdir %s: '%s' is not a valid table name", path, p.tname);
            rc = -EINVAL;
            break;
        }
        kv_family_desc f = KV_FAMILY_DESC_INIT;
        strcpy(f.name, "cf");
        kv_status st = kv_table_create(fs->store, p.table, &f, 1);
        fs_families_changed(fs);
        rc = st == KV_NOT_FOUND ? -ENOENT : fs_fail(fs, st, "mkdir", path);
        break;
    }
    case FS_ROW:
        if (p.row_err) {
            fs_log(fs, "mkdir %s: the row name is not a canonical escaped key (see cellfs(1), "
                   "NAMES)", path);
            rc = p.row_err;
            break;
        }
        if (p.row_name.hashed) {
            rc = fs_resolve(fs, &p) == 0 ? -EEXIST : -ENAMETOOLONG;
            if (rc == -ENAMETOOLONG)
                fs_log(fs, "mkdir %s: a hashed long name can only name an existing row", path);
            break;
        }
        if (p.row_len == 0) {
            fs_log(fs, "mkdir %s: a row key cannot be empty", path);
            rc = -EINVAL;
            break;
        }
        rc = fs_table_check(fs, &p);
        if (rc) break;
        rc = fs_row_has_cells(fs, &p, NULL);
        if (rc > 0 || (rc == 0 && fs_pending_has(fs, &p))) rc = -EEXIST;
        else if (rc == 0) rc = make_row(fs, &p, NULL);
        break;
    case FS_FAMILY:
        rc = fs_resolve(fs, &p);
        if (rc == 0) rc = fs_family_check(fs, &p);
        if (rc == 0) {
            rc = fs_family_listed(fs, &p, p.family, NULL);
            if (rc > 0) rc = -EEXIST;
            else if (rc == 0) rc = make_row(fs, &p, p.family);
        } else if (rc == -ENOENT)
            fs_log(fs, "mkdir %s: table %s has no family '%s' (add it in .schema)", path, p.table,
                   p.family);
        break;
    case FS_CELL:
        fs_log(fs, "mkdir %s: a family directory holds only cells", path);
        rc = -EPERM;
        break;
    }
out:
    fs_path_free(&p);
    return rc;
}

int fs_op_rmdir(cellfs *fs, const char *path)
{
    fs_path p;
    int rc = fs_path_parse(&p, path);
    if (rc == 0 && p.asof && p.kind >= FS_TABLE) rc = -EROFS;
    if (rc == 0 && p.kind >= FS_ROW) rc = p.row_err ? -ENOENT : fs_resolve(fs, &p);
    if (rc) goto out;
    switch (p.kind) {
    case FS_ROOT:
        rc = -EBUSY;
        break;
    case FS_NS: {
        kv_status st = kv_namespace_drop(fs->store, p.ns);
        if (st == KV_INVALID) {
            fs_log(fs, "rmdir %s: namespace %s cannot be dropped", path, p.ns);
            rc = -EPERM;
        } else {
            rc = fs_fail(fs, st, "rmdir", path);
        }
        break;
    }
    case FS_TABLE: {
        kv_read_options o = KV_READ_OPTIONS_INIT;
        o.filter = fs->f_firstkey;
        o.limit = 1;
        kv_scan *sc = NULL;
        kv_status st = kv_scan_open(&sc, fs->store, p.table, &o);
        const kv_result *r;
        if (st == KV_OK) st = kv_scan_next(&r, sc);
        kv_scan_close(sc);
        if (st == KV_OK || (st == KV_END && fs_pending_table(fs, p.table))) {
            rc = -ENOTEMPTY;       /* rows with cells, or made with mkdir */
            break;
        }
        if (st != KV_END && st != KV_NOT_FOUND && st != KV_DISABLED) {
            rc = fs_fail(fs, st, "rmdir", path);
            break;
        }
        /* HBase drops only disabled tables; a backend without disabling
           (Cloud Bigtable) drops at once */
        st = kv_store_capabilities(fs->store) & KV_CAP_DISABLE_TABLES
                 ? kv_table_disable(fs->store, p.table)
                 : KV_OK;
        if (st == KV_DISABLED) st = KV_OK;
        if (st == KV_OK) st = kv_table_drop(fs->store, p.table);
        fs_families_changed(fs);
        rc = fs_fail(fs, st, "rmdir", path);
        if (rc == 0) fs_pending_drop_table(fs, p.table);
        break;
    }
    case FS_ROW:
        rc = fs_row_has_cells(fs, &p, NULL);
        if (rc > 0) {
            rc = -ENOTEMPTY;
        } else if (rc == 0) {
            fs_pending_remove(fs, p.table, p.row, p.row_len);
            fs_young_forget(fs, p.table, p.row, p.row_len);
        }
        break;
    case FS_FAMILY:
        rc = fs_row_has_cells(fs, &p, p.family);
        if (rc > 0) rc = -ENOTEMPTY;
        else if (rc == 0) fs_young_unlist(fs, &p, p.family);
        break;
    default:
        rc = -ENOTDIR;
    }
out:
    fs_path_free(&p);
    return rc;
}
