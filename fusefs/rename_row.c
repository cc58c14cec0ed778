/**
 * @file rename_row.c
 * rename(2) across rows of one table (man/cellfs.1, WRITING: renames): a row
 * directory (mv t/r1 t/r2) or one column (mv t/r1/cf/q t/r2/cf/q) moves
 * with every version the source shows, each at its own timestamp. Two row
 * mutations: the puts into the target row, then the deletes of the
 * source; a failure before the first changes nothing, a failure of the
 * second leaves both rows (EIO and a log line naming both). Called by
 * ops_file.c; calls cells.c, handles.c, pending.c and kvcore.h.
 */
#include "ops.h"
#include "open_file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* What one move reads and decides. */
typedef struct move {
    cellfs *fs;
    const char *from, *to;
    const fs_path *pf, *pt;
    bool cell;                   /* one column, else the whole row */
    bool noreplace;              /* RENAME_NOREPLACE: a full target is EEXIST */
    bool raw;                    /* the backend reads delete markers */
    kv_result *vis;              /* the versions the source shows, with values */
    kv_result *keys;             /* what the source holds (raw where it can) */
    kv_result *dst;              /* what the target holds (raw where it can) */
    kv_table_desc *desc;
    size_t nputs;                /* puts in vis */
    int64_t newest;              /* the source's newest version */
} move;

static bool same_qual(const kv_cell *c, const uint8_t *q, size_t qlen)
{
    return c->qualifier_len == qlen && (qlen == 0 || memcmp(c->qualifier, q, qlen) == 0);
}

/* Whether @p c is a put of the column being moved (every put for a row). */
static bool src_put(const move *m, const kv_cell *c)
{
    if (c->type != KV_TYPE_PUT) return false;
    return !m->cell || (strcmp(c->family, m->pf->family) == 0 &&
                        same_qual(c, m->pf->qual, m->pf->qual_len));
}

/* The target column of the moved version @p c. */
static void target_of(const move *m, const kv_cell *c, const char **fam, const uint8_t **q,
                      size_t *qlen)
{
    *fam = m->cell ? m->pt->family : c->family;
    *q = m->cell ? m->pt->qual : c->qualifier;
    *qlen = m->cell ? m->pt->qual_len : c->qualifier_len;
}

static bool nvb(const move *m, const char *family)
{
    for (size_t i = 0; m->desc && i < m->desc->nfamilies; i++)
        if (strcmp(m->desc->families[i].name, family) == 0)
            return m->desc->families[i].new_version_behavior;
    return false;
}

/* Whether a delete marker in the target hides a put at @p ts to the
   column (HBase: deletes mask puts; not with NEW_VERSION_BEHAVIOR). */
static bool masked(const move *m, const char *fam, const uint8_t *q, size_t qlen, int64_t ts)
{
    return m->raw && m->dst && !nvb(m, fam) && fs_raw_hides(m->dst, fam, q, qlen, ts);
}

/* Whether one of the moved versions lands at @p ts (cell moves). */
static bool moved_at(const move *m, int64_t ts)
{
    for (size_t i = 0; i < m->vis->ncells; i++)
        if (src_put(m, &m->vis->cells[i]) && m->vis->cells[i].timestamp == ts) return true;
    return false;
}

static kv_status get(move *m, const fs_path *p, const kv_column *col, bool raw,
                     const kv_filter *filter, kv_result **r)
{
    kv_read_options o = KV_READ_OPTIONS_INIT;
    if (col) {
        o.columns = col;
        o.ncolumns = 1;
    }
    o.max_versions = INT32_MAX;
    o.raw = raw;
    o.filter = filter;
    o.fill_cache = false;
    kv_status st = kv_get(r, m->fs->store, p->table, p->row, p->row_len, &o);
    if (st == KV_NO_FAMILY) st = KV_NOT_FOUND;
    return st;
}

/* Reads the source and the target: 0, -EXDEV when the source is too large
   for one mutation (logged), -errno. */
static int read_both(move *m)
{
    cellfs *fs = m->fs;
    kv_column src = { m->pf->family, m->pf->qual, m->pf->qual_len };
    kv_column dst = { m->pt->family, m->pt->qual, m->pt->qual_len };
    /* Keys and value lengths first: a row too large is not read. */
    kv_status st = get(m, m->pf, m->cell ? &src : NULL, m->raw, fs->f_keylen, &m->keys);
    if (st != KV_OK) return st == KV_NOT_FOUND ? -ENOENT : fs_fail(fs, st, "get", m->from);
    size_t n = 0, bytes = 0;
    for (size_t i = 0; i < m->keys->ncells; i++) {
        const kv_cell *c = &m->keys->cells[i];
        if (!src_put(m, c)) continue;
        n++;
        bytes += c->qualifier_len + (fs->f_keylen ? fs_keylen_value(c) : c->value_len);
    }
    if (n > FS_MOVE_MAX_CELLS || bytes > fs->max_value) {
        fs_log(fs, "rename %s -> %s: %zu versions of %zu bytes are more than one move carries "
               "(%d versions, max_value bytes): EXDEV, so mv copies", m->from, m->to, n, bytes,
               FS_MOVE_MAX_CELLS);
        return -EXDEV;
    }
    st = get(m, m->pf, m->cell ? &src : NULL, false, NULL, &m->vis);
    if (st == KV_OK)
        st = get(m, m->pt, m->cell ? &dst : NULL, m->raw, fs->f_keyonly, &m->dst);
    if (st == KV_OK) st = kv_table_describe(&m->desc, fs->store, m->pt->table);
    if (st != KV_OK) return st == KV_NOT_FOUND ? -ENOENT : fs_fail(fs, st, "get", m->from);
    m->newest = INT64_MIN;
    for (size_t i = 0; i < m->vis->ncells; i++) {
        const kv_cell *c = &m->vis->cells[i];
        if (!src_put(m, c)) continue;
        m->nputs++;
        if (c->timestamp > m->newest) m->newest = c->timestamp;
    }
    return 0;
}

/* The puts into the target row (and for a cell, the deletes of the
   target's versions at or after the source's newest time, as rename_cell
   does within a row). 0, -EPERM when a delete marker would hide a moved
   version (logged), -errno. */
static int build_put(move *m, kv_mutation *mu)
{
    kv_status st = KV_OK;
    for (size_t i = 0; m->cell && st == KV_OK && i < m->dst->ncells; i++) {
        const kv_cell *c = &m->dst->cells[i];
        if (c->type != KV_TYPE_PUT || strcmp(c->family, m->pt->family) != 0 ||
            !same_qual(c, m->pt->qual, m->pt->qual_len) || c->timestamp < m->newest ||
            moved_at(m, c->timestamp))
            continue;
        st = kv_mutation_delete_version(mu, c->family, c->qualifier, c->qualifier_len,
                                        c->timestamp);
    }
    for (size_t i = 0; st == KV_OK && i < m->vis->ncells; i++) {
        const kv_cell *c = &m->vis->cells[i];
        if (!src_put(m, c)) continue;
        const char *fam;
        const uint8_t *q;
        size_t qlen;
        target_of(m, c, &fam, &q, &qlen);
        if (masked(m, fam, q, qlen, c->timestamp)) {
            fs_log(m->fs, "rename %s -> %s: a delete marker in the target hides the version "
                   "at %lld of family %s (HBase: deletes mask puts until a major compaction; "
                   "NEW_VERSION_BEHAVIOR avoids it): nothing was moved", m->from, m->to,
                   (long long)c->timestamp, fam);
            return -EPERM;
        }
        st = kv_mutation_put(mu, fam, q, qlen, c->timestamp, c->value, c->value_len);
    }
    return fs_fail(m->fs, st, "rename", m->to);
}

/* The deletes of the source: every version it holds exactly where the
   backend reads them raw (no column marker is left to hide a later put),
   else each column up to the clock and its future versions exactly. */
static int build_delete(move *m, kv_mutation *mu)
{
    kv_status st = KV_OK;
    int64_t now = kv_store_now(m->fs->store);
    const kv_cell *prev = NULL;
    for (size_t i = 0; st == KV_OK && i < m->keys->ncells; i++) {
        const kv_cell *c = &m->keys->cells[i];
        if (!src_put(m, c)) continue;
        bool new_col = !prev || strcmp(prev->family, c->family) != 0 ||
                       !same_qual(prev, c->qualifier, c->qualifier_len);
        bool dup = !new_col && prev->timestamp == c->timestamp;
        prev = c;
        if (!m->raw && new_col)
            st = kv_mutation_delete_column(mu, c->family, c->qualifier, c->qualifier_len,
                                           KV_LATEST_TIMESTAMP);
        if (st == KV_OK && !dup && (m->raw || c->timestamp > now))
            st = kv_mutation_delete_version(mu, c->family, c->qualifier, c->qualifier_len,
                                            c->timestamp);
    }
    return fs_fail(m->fs, st, "rename", m->from);
}

/* Applies the two mutations (fs->stamp_mu held). */
static int apply(move *m)
{
    kv_write_options w;
    fs_wopts(m->fs, false, &w);
    kv_mutation *put = NULL, *del = NULL;
    kv_status st = kv_mutation_new(&put, m->pt->row, m->pt->row_len);
    if (st == KV_OK) st = kv_mutation_new(&del, m->pf->row, m->pf->row_len);
    int rc = fs_fail(m->fs, st, "rename", m->from);
    if (rc == 0) rc = build_put(m, put);
    if (rc == 0) rc = build_delete(m, del);
    if (rc == 0 && kv_mutation_count(put) > 0)
        rc = fs_fail(m->fs, kv_mutate(m->fs->store, m->pt->table, put, &w), "rename", m->to);
    if (rc == 0 && kv_mutation_count(del) > 0) {
        st = kv_mutate(m->fs->store, m->pf->table, del, &w);
        if (st != KV_OK) {
            (void)fs_fail(m->fs, st, "rename", m->from);
            fs_log(m->fs, "rename %s -> %s: the target holds the moved versions, but they "
                   "could not be removed from the source: both now show them", m->from, m->to);
            rc = -EIO;
        }
    }
    kv_mutation_free(put);
    kv_mutation_free(del);
    return rc;
}

/* Reads and moves, under fs->stamp_mu (no commit picks a timestamp
   meanwhile). A source without versions is ENOENT unless @p empty_ok. A
   row's target is checked for cells again here: a commit into it after
   fs_rename_row's first look and before this lock would otherwise be
   merged with the moved row (and, when a moved version lies in the future,
   hidden by it), though it came first: ENOTEMPTY then, as a commit that
   came before the first look. */
static int move_run(move *m, bool empty_ok)
{
    m->raw = (kv_store_capabilities(m->fs->store) & KV_CAP_RAW_SCANS) != 0;
    pthread_mutex_lock(&m->fs->stamp_mu);
    int rc = 0;
    if (!m->cell) {
        rc = fs_row_has_cells(m->fs, m->pt, NULL);
        if (rc > 0) rc = m->noreplace ? -EEXIST : -ENOTEMPTY;
    }
    if (rc == 0) rc = read_both(m);
    if (rc == 0 && m->nputs == 0 && !empty_ok) rc = -ENOENT;
    if (rc == 0) rc = apply(m);
    /* Before any commit can go to the old row: the files open below a
       moved row follow it now. */
    if (rc == 0 && !m->cell) fs_handles_move_below(m->fs, m->from, m->to, m->pt);
    pthread_mutex_unlock(&m->fs->stamp_mu);
    return rc;
}

static void move_free(move *m)
{
    kv_result_free(m->vis);
    kv_result_free(m->keys);
    kv_result_free(m->dst);
    kv_table_desc_free(m->desc);
}

/* A row made with mkdir lists the families made in it (fs_young_add):
   the moved row lists the same ones. */
static void young_follow(cellfs *fs, const fs_path *pf, const fs_path *pt,
                         const kv_table_desc *d)
{
    fs_young_forget(fs, pt->table, pt->row, pt->row_len);
    bool young = fs_young_family(fs, pf, "") >= 0;
    if (young && d && fs_young_add(fs, pt, NULL) == 0)
        for (size_t i = 0; i < d->nfamilies; i++)
            if (fs_young_family(fs, pf, d->families[i].name) == 1)
                (void)fs_young_add(fs, pt, d->families[i].name);
    fs_young_forget(fs, pf->table, pf->row, pf->row_len);
}

int fs_rename_row(cellfs *fs, const char *from, const char *to, fs_path *pf, fs_path *pt,
                  unsigned int flags)
{
    if (strcmp(pf->table, pt->table) != 0) return -EXDEV;   /* families differ: mv copies */
    if (pf->row_err) return pf->row_err;
    if (pt->row_err) {
        fs_log(fs, "rename %s -> %s: the new name is not a canonical escaped key", from, to);
        return pt->row_err;
    }
    int rc = fs_resolve(fs, pf);
    if (rc) return rc;
    if (pt->row_name.hashed && fs_resolve(fs, pt) != 0) return -ENAMETOOLONG;
    if (pf->row_len == pt->row_len && memcmp(pf->row, pt->row, pf->row_len) == 0) return 0;
    int has = fs_row_has_cells(fs, pt, NULL);
    if (has < 0) return has;
    if ((flags & RENAME_NOREPLACE) && (has > 0 || fs_pending_has(fs, pt))) return -EEXIST;
    if (has > 0) return -ENOTEMPTY;
    /* What open files under the row hold is in the store first; they
       follow the row afterwards. */
    rc = fs_handles_commit_below(fs, from);
    if (rc) return rc;
    move m = { .fs = fs, .from = from, .to = to, .pf = pf, .pt = pt, .cell = false,
               .noreplace = (flags & RENAME_NOREPLACE) != 0 };
    rc = move_run(&m, fs_pending_has(fs, pf));
    bool empty = m.nputs == 0;
    if (rc == 0) young_follow(fs, pf, pt, m.desc);
    move_free(&m);
    if (rc && rc != -EIO) return rc;
    /* The row's listings and attributes, and those of every name below
       both rows: the node of from becomes the node of to (ll_rename). */
    fs_kernel_forget_below(fs, from);
    fs_kernel_forget_below(fs, to);
    fs_notify_changed(fs, from);
    fs_notify_changed(fs, to);
    if (rc) return rc;
    fs_handles_settle_below(fs, to);
    fs_pending_remove(fs, pf->table, pf->row, pf->row_len);
    if (empty) (void)fs_pending_add(fs, pt);
    else fs_pending_remove(fs, pt->table, pt->row, pt->row_len);
    return 0;
}

int fs_rename_column_rows(cellfs *fs, const char *from, const char *to, fs_path *pf,
                          fs_path *pt, unsigned int flags)
{
    if (strcmp(pf->table, pt->table) != 0 || pf->has_version || pt->has_version)
        return -EXDEV;                                       /* mv copies */
    int rc = fs_family_check(fs, pt);
    if (rc) {
        fs_log(fs, "rename %s -> %s: table %s has no family '%s'", from, to, pt->table,
               pt->family);
        return rc;
    }
    if (flags & RENAME_NOREPLACE) {
        size_t l;
        int64_t t;
        rc = fs_cell_get(fs, pt, NULL, &l, &t);
        if (rc == 0) return -EEXIST;
        if (rc != -ENOENT) return rc;
    }
    rc = fs_handles_commit_path(fs, from);
    if (rc) return rc;
    move m = { .fs = fs, .from = from, .to = to, .pf = pf, .pt = pt, .cell = true };
    /* A new version may change the target's value in place. */
    fs_handle *lease = fs_write_begin(fs, to);
    rc = move_run(&m, false);
    move_free(&m);
    if (rc == 0 || rc == -EIO) {
        fs_notify_changed(fs, to);
        fs_notify_changed(fs, from);
    }
    fs_write_end(fs, lease);
    if (rc) return rc;
    fs_handles_rename(fs, from, to, pt);
    fs_pending_remove(fs, pt->table, pt->row, pt->row_len);
    /* The source row stays a directory (as after rm of its last cell). */
    (void)fs_pending_add(fs, pf);
    return 0;
}
