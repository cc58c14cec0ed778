/**
 * @file cells.c
 * Store reads behind the filesystem view: cells, versions, row and family
 * existence, long-name resolution, and the delete-marker check that keeps
 * explicit-timestamp puts from vanishing. Called by the ops_* files and
 * open_file.c; calls kvcore.h only.
 */
#include "fs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void fs_ropts(const fs_path *p, kv_read_options *o)
{
    kv_read_options init = KV_READ_OPTIONS_INIT;
    *o = init;
    if (p->asof && p->asof_ts < INT64_MAX) o->time_max = p->asof_ts + 1;
}

void fs_wopts(const cellfs *fs, bool fsync, kv_write_options *w)
{
    kv_write_options init = KV_WRITE_OPTIONS_INIT;
    *w = init;
    w->durability = fsync || fs->sync ? KV_FSYNC_WAL : KV_SYNC_WAL;
}

void fs_ms_to_ts(int64_t ms, struct timespec *ts)
{
    int64_t s = ms / 1000, r = ms % 1000;
    if (r < 0) { r += 1000; s -= 1; }
    ts->tv_sec = (time_t)s;
    ts->tv_nsec = (long)(r * 1000000);
}

int64_t fs_ts_to_ms(const struct timespec *ts)
{
    return (int64_t)ts->tv_sec * 1000 + ts->tv_nsec / 1000000;
}

int fs_table_check(cellfs *fs, const fs_path *p)
{
    kv_status st = kv_table_exists(fs->store, p->table);
    if (st == KV_INVALID) return -ENOENT;
    return fs_fail(fs, st, "lookup", p->table);
}

int fs_family_check(cellfs *fs, const fs_path *p)
{
    fs_family_info fi;
    int rc = fs_family_lookup(fs, p->table, p->family, &fi);
    return rc ? rc : fi.found ? 0 : -ENOENT;
}

/* The visible cells of the row (of @p family when non-NULL) through
   @p filter: 1 with *r set (free it), 0 when none, -errno. */
static int row_get(cellfs *fs, const fs_path *p, const char *family, const kv_filter *filter,
                   kv_result **r)
{
    kv_read_options o;
    fs_ropts(p, &o);
    kv_column col = { family, NULL, 0 };
    if (family) { o.columns = &col; o.ncolumns = 1; }
    o.filter = filter;
    o.fill_cache = false;
    *r = NULL;
    kv_status st = kv_get(r, fs->store, p->table, p->row, p->row_len, &o);
    if (st == KV_NO_FAMILY || st == KV_INVALID) return 0;
    if (st != KV_OK) return fs_fail(fs, st, "get", p->table);
    if ((*r)->ncells > 0) return 1;
    kv_result_free(*r);
    *r = NULL;
    return 0;
}

/* The row's keys as rowmemo.c keeps them, locked (fs_rowmemo_done); when
   they are not kept and @p fill, read now and kept, or in *own (free it,
   nothing locked) when too many to keep. NULL where nothing may be kept,
   and on a failed read (the caller's own read then reports it). */
static const kv_result *memo_row(cellfs *fs, const fs_path *p, bool fill, kv_result **own)
{
    *own = NULL;
    const kv_result *r = fs_rowmemo_get(fs, p);
    if (r || !fill || !fs_rowmemo_usable(fs, p)) return r;
    kv_read_options o;
    fs_rowmemo_read_options(fs, p, &o);
    o.fill_cache = false;
    fs_rowmemo_mark mark = fs_rowmemo_now(fs);
    kv_result *k = NULL;
    if (kv_get(&k, fs->store, p->table, p->row, p->row_len, &o) != KV_OK) return NULL;
    *own = fs_rowmemo_put(fs, p, mark, k);
    return *own ? *own : fs_rowmemo_get(fs, p);
}

/* Done with what memo_row gave. */
static void memo_row_done(cellfs *fs, kv_result *own)
{
    if (own) kv_result_free(own);
    else fs_rowmemo_done(fs);
}

/* Of the cells of @p r (of @p family when not NULL): whether there is one,
   and in *ts the newest time. */
static int newest_of(const kv_result *r, const char *family, int64_t *ts)
{
    int has = 0;
    for (size_t i = 0; i < r->ncells; i++) {
        const kv_cell *c = &r->cells[i];
        if (c->type != KV_TYPE_PUT || (family && strcmp(c->family, family) != 0)) continue;
        if (!has || c->timestamp > *ts) *ts = c->timestamp;
        has = 1;
    }
    return has;
}

int fs_row_has_cells(cellfs *fs, const fs_path *p, const char *family)
{
    int64_t kept_ts;
    int kept = fs_dirtime_get(fs, p, family, &kept_ts);
    if (kept >= 0) return kept;
    kv_result *own;
    const kv_result *m = memo_row(fs, p, false, &own);
    if (m) {
        int64_t ts;
        int has = newest_of(m, family, &ts);
        memo_row_done(fs, own);
        return has;
    }
    kv_result *r;
    int has = row_get(fs, p, family, fs->f_firstkey, &r);
    if (has > 0) kv_result_free(r);
    return has;
}

/* fs_row_newest from the store: the row's kept keys (rowmemo.c), or a
   read of the row's or the family's keys. */
static int newest_read(cellfs *fs, const fs_path *p, const char *family, int64_t *ts)
{
    kv_result *own;
    const kv_result *m = memo_row(fs, p, true, &own);
    if (m) {
        int has = newest_of(m, family, ts);
        memo_row_done(fs, own);
        return has;
    }
    kv_result *r;
    int rc = row_get(fs, p, family, fs->f_keyonly, &r);
    if (rc <= 0) return rc;
    int has = newest_of(r, NULL, ts);
    kv_result_free(r);
    return has;
}

int fs_row_newest(cellfs *fs, const fs_path *p, const char *family, int64_t *ts)
{
    int kept = fs_dirtime_get(fs, p, family, ts);
    if (kept >= 0) return kept;
    fs_rowmemo_mark mark = fs_rowmemo_now(fs);
    int has = newest_read(fs, p, family, ts);
    fs_dirtime_put(fs, p, family, mark, has, has > 0 ? *ts : 0);
    return has;
}

static bool same_qual(const kv_cell *c, const uint8_t *q, size_t qlen)
{
    return c->qualifier_len == qlen && (qlen == 0 || memcmp(c->qualifier, q, qlen) == 0);
}

size_t fs_keylen_value(const kv_cell *c)
{
    if (c->value_len != 4) return c->value_len;
    const uint8_t *v = c->value;
    return (size_t)v[0] << 24 | (size_t)v[1] << 16 | (size_t)v[2] << 8 | v[3];
}

int fs_cell_get(cellfs *fs, const fs_path *p, uint8_t **value, size_t *len, int64_t *ts)
{
    if (value) *value = NULL;
    if (p->asof && p->has_version && p->version > p->asof_ts) return -ENOENT;
    kv_read_options o;
    fs_ropts(p, &o);
    kv_column col = { p->family, p->qual, p->qual_len };
    o.columns = &col;
    o.ncolumns = 1;
    if (p->has_version) {
        o.has_timestamp = true;
        o.timestamp = p->version;
    }
    /* Attributes only: the value's length, not its bytes. */
    bool length_only = !value && fs->f_keylen;
    if (length_only) o.filter = fs->f_keylen;
    kv_result *r = NULL;
    kv_status st = kv_get(&r, fs->store, p->table, p->row, p->row_len, &o);
    if (st == KV_NO_FAMILY || st == KV_INVALID) return -ENOENT;
    if (st != KV_OK) return fs_fail(fs, st, "get", p->table);
    int rc = -ENOENT;
    for (size_t i = 0; i < r->ncells; i++) {
        const kv_cell *c = &r->cells[i];
        if (c->type != KV_TYPE_PUT || strcmp(c->family, p->family) != 0 ||
            !same_qual(c, p->qual, p->qual_len))
            continue;
        if (p->has_version && c->timestamp != p->version) continue;
        *len = length_only ? fs_keylen_value(c) : c->value_len;
        *ts = c->timestamp;
        rc = 0;
        if (value) {
            *value = malloc(c->value_len ? c->value_len : 1);
            if (!*value) rc = -ENOMEM;
            else if (c->value_len) memcpy(*value, c->value, c->value_len);
        }
        break;
    }
    kv_result_free(r);
    return rc;
}

void fs_cellmemo_put(cellfs *fs, const char *path, const char *table, fs_rowmemo_mark before,
                     size_t len, int64_t ts, uint8_t *value)
{
    size_t plen = strlen(path);
    fs_family_info fi;
    if (!fs->cache_long || plen >= sizeof fs->cellmemo.path ||
        atomic_load(&fs->commits) != before.commits + 1 ||   /* another change came too */
        fs_family_lookup(fs, table, NULL, &fi) != 0 || fi.table_has_ttl) {
        free(value);
        return;
    }
    if (len > FS_CELLMEMO_MAX_VALUE) {
        free(value);
        value = NULL;
    }
    /* A change counted after the check makes the mark stale at once. */
    pthread_mutex_lock(&fs->mu);
    uint8_t *old = fs->cellmemo.value;
    memcpy(fs->cellmemo.path, path, plen + 1);
    fs->cellmemo.len = len;
    fs->cellmemo.ts = ts;
    fs->cellmemo.value = value;
    fs->cellmemo.commits = before.commits + 1;
    fs->cellmemo.fams_gen = before.fams_gen;
    pthread_mutex_unlock(&fs->mu);
    free(old);
}

bool fs_cellmemo_get(cellfs *fs, const char *path, size_t *len, int64_t *ts, uint8_t **value)
{
    uint64_t now = atomic_load(&fs->commits);
    uint64_t gen = fs_families_gen(fs);
    pthread_mutex_lock(&fs->mu);
    bool hit = fs->cellmemo.path[0] && fs->cellmemo.commits == now &&
               fs->cellmemo.fams_gen == gen && strcmp(fs->cellmemo.path, path) == 0 &&
               (!value || fs->cellmemo.value);
    if (hit) {
        *len = fs->cellmemo.len;
        *ts = fs->cellmemo.ts;
    }
    if (hit && value) {
        *value = malloc(*len ? *len : 1);
        if (!*value) hit = false;
        else if (*len) memcpy(*value, fs->cellmemo.value, *len);
    }
    pthread_mutex_unlock(&fs->mu);
    return hit;
}

void fs_cellmemo_free(cellfs *fs)
{
    free(fs->cellmemo.value);
    fs->cellmemo.value = NULL;
    fs->cellmemo.path[0] = '\0';
}

int fs_cell_versions(cellfs *fs, const fs_path *p, int64_t **ts, size_t *n)
{
    *ts = NULL;
    *n = 0;
    kv_read_options o;
    fs_ropts(p, &o);
    kv_column col = { p->family, p->qual, p->qual_len };
    o.columns = &col;
    o.ncolumns = 1;
    o.max_versions = INT32_MAX;
    o.filter = fs->f_keyonly;
    kv_result *r = NULL;
    kv_status st = kv_get(&r, fs->store, p->table, p->row, p->row_len, &o);
    if (st != KV_OK) return fs_fail(fs, st, "get", p->table);
    int rc = 0;
    if (r->ncells) {
        *ts = malloc(r->ncells * sizeof **ts);
        if (!*ts) rc = -ENOMEM;
    }
    for (size_t i = 0; rc == 0 && i < r->ncells; i++) {
        const kv_cell *c = &r->cells[i];
        if (c->type == KV_TYPE_PUT && strcmp(c->family, p->family) == 0 &&
            same_qual(c, p->qual, p->qual_len))
            (*ts)[(*n)++] = c->timestamp;
    }
    kv_result_free(r);
    return rc;
}

/* Raw read of the column @p p names (keys only, delete markers of the
   column and of its family included) at times at or after @p from: a
   cell's older history is not read. A backend without raw scans keeps no
   delete markers either (its deletes are immediate), so every version it
   shows is all there is. */
static kv_status raw_column_get(cellfs *fs, const fs_path *p, int64_t from, kv_result **r)
{
    kv_read_options o = KV_READ_OPTIONS_INIT;
    kv_column col = { p->family, p->qual, p->qual_len };   /* family markers come too */
    o.columns = &col;
    o.ncolumns = 1;
    o.max_versions = INT32_MAX;
    o.raw = (kv_store_capabilities(fs->store) & KV_CAP_RAW_SCANS) != 0;
    o.time_min = from;
    o.filter = fs->f_keyonly;
    return kv_get(r, fs->store, p->table, p->row, p->row_len, &o);
}

/* Whether the family of @p p has NEW_VERSION_BEHAVIOR: a delete marker
   masks only the puts made before it. */
static bool family_nvb(cellfs *fs, const fs_path *p)
{
    fs_family_info fi;
    return fs_family_lookup(fs, p->table, p->family, &fi) == 0 && fi.nvb;
}

static int64_t ts_after(int64_t t)
{
    return t < INT64_MAX - 1 ? t + 1 : t;
}

bool fs_raw_hides(const kv_result *r, const char *family, const uint8_t *q, size_t qlen,
                  int64_t ts)
{
    for (size_t i = 0; i < r->ncells; i++) {
        const kv_cell *c = &r->cells[i];
        if (strcmp(c->family, family) != 0) continue;
        bool col = same_qual(c, q, qlen);
        switch (c->type) {
        case KV_TYPE_DELETE_FAMILY:
            if (c->timestamp >= ts) return true;
            break;
        case KV_TYPE_DELETE_FAMILY_VERSION:
            if (c->timestamp == ts) return true;
            break;
        case KV_TYPE_DELETE_COLUMN:
            if (col && c->timestamp >= ts) return true;
            break;
        case KV_TYPE_DELETE:
            if (col && c->timestamp == ts) return true;
            break;
        case KV_TYPE_PUT: break;
        }
    }
    return false;
}

/* fs_raw_hides for @p p's column. */
static bool raw_hides(const kv_result *r, const fs_path *p, int64_t ts)
{
    return fs_raw_hides(r, p->family, p->qual, p->qual_len, ts);
}

bool fs_put_masked(cellfs *fs, const fs_path *p, int64_t ts)
{
    if (family_nvb(fs, p)) return false;
    kv_result *r = NULL;   /* only markers at or after ts can mask it */
    if (raw_column_get(fs, p, ts, &r) != KV_OK) return false;
    bool masked = raw_hides(r, p, ts);
    kv_result_free(r);
    return masked;
}

/* fs_column_raw's answer from its raw read @p r: *newest of the cells at
   or after @p from, the puts at or after @p puts_from (when @p puts), and
   in *shown (when not NULL) how many of those no marker of @p r hides. */
static int column_of(const kv_result *r, const fs_path *p, int64_t from, int64_t puts_from,
                     int64_t *newest, int64_t **puts, size_t *nputs, size_t *shown)
{
    int rc = 0;
    for (size_t i = 0; i < r->ncells && rc == 0; i++) {
        const kv_cell *c = &r->cells[i];
        if (strcmp(c->family, p->family) != 0) continue;
        bool family_marker = c->type == KV_TYPE_DELETE_FAMILY ||
                             c->type == KV_TYPE_DELETE_FAMILY_VERSION;
        if (!family_marker && !same_qual(c, p->qual, p->qual_len)) continue;
        if (c->timestamp < from) continue;
        if (c->timestamp > *newest) *newest = c->timestamp;
        if (!puts || c->type != KV_TYPE_PUT || c->timestamp < puts_from) continue;
        if (*nputs > 0 && (*puts)[*nputs - 1] == c->timestamp) continue;
        int64_t *nv = realloc(*puts, (*nputs + 1) * sizeof *nv);
        if (!nv) {
            rc = -ENOMEM;
            break;
        }
        *puts = nv;
        (*puts)[(*nputs)++] = c->timestamp;
        if (shown && !raw_hides(r, p, c->timestamp)) (*shown)++;
    }
    if (rc && puts) {
        free(*puts);
        *puts = NULL;
        *nputs = 0;
    }
    return rc;
}

int fs_column_raw(cellfs *fs, const fs_path *p, int64_t from, int64_t *newest, int64_t **puts,
                  size_t *nputs)
{
    *newest = INT64_MIN;
    if (puts) {
        *puts = NULL;
        *nputs = 0;
    }
    kv_result *r = NULL;
    kv_status st = raw_column_get(fs, p, from, &r);
    if (st == KV_NO_FAMILY || st == KV_INVALID) return 0;
    if (st != KV_OK) return fs_fail(fs, st, "get", p->table);
    int rc = column_of(r, p, from, from, newest, puts, nputs, NULL);
    kv_result_free(r);
    return rc;
}

int fs_column_from(cellfs *fs, const fs_path *p, int64_t from, int64_t puts_from, bool *masked,
                   int64_t **puts, size_t *nputs, size_t *shown)
{
    *masked = false;
    *puts = NULL;
    *nputs = 0;
    if (shown) *shown = 0;
    kv_result *r = NULL;
    kv_status st = raw_column_get(fs, p, from, &r);
    if (st == KV_NO_FAMILY || st == KV_INVALID) return 0;
    if (st != KV_OK) return fs_fail(fs, st, "get", p->table);
    bool nvb = family_nvb(fs, p);       /* its markers hide only older puts */
    *masked = !nvb && raw_hides(r, p, from);
    int64_t newest = INT64_MIN;
    int rc = column_of(r, p, from, puts_from < from ? from : puts_from, &newest, puts, nputs,
                       nvb ? NULL : shown);
    if (rc == 0 && nvb && shown) *shown = *nputs;
    kv_result_free(r);
    return rc;
}

int fs_column_pair(cellfs *fs, const fs_path *p, int64_t from, bool *masked, int64_t **puts,
                   size_t *nputs, const fs_path *q, int64_t **qvers, size_t *nq)
{
    *masked = false;
    *puts = *qvers = NULL;
    *nputs = *nq = 0;
    if (!(kv_store_capabilities(fs->store) & KV_CAP_RAW_SCANS)) return 1;
    kv_read_options o = KV_READ_OPTIONS_INIT;
    kv_column cols[2] = { { p->family, p->qual, p->qual_len },
                          { q->family, q->qual, q->qual_len } };
    o.columns = cols;
    o.ncolumns = 2;
    o.max_versions = INT32_MAX;
    o.raw = true;
    o.time_min = KV_TIME_MIN;
    o.filter = fs->f_keyonly;
    kv_result *r = NULL;
    kv_status st = kv_get(&r, fs->store, p->table, p->row, p->row_len, &o);
    if (st == KV_NO_FAMILY || st == KV_INVALID) return 0;
    if (st != KV_OK) return fs_fail(fs, st, "get", p->table);
    *masked = !family_nvb(fs, p) && raw_hides(r, p, from);
    int64_t newest = INT64_MIN;
    int rc = column_of(r, p, from, from, &newest, puts, nputs, NULL);
    newest = INT64_MIN;
    if (rc == 0) rc = column_of(r, q, KV_TIME_MIN, KV_TIME_MIN, &newest, qvers, nq, NULL);
    kv_result_free(r);
    if (rc) {
        free(*puts);
        *puts = NULL;
        *nputs = 0;
    }
    return rc;
}

int fs_delete_versions(cellfs *fs, const fs_path *p, kv_mutation *m, const int64_t *vers,
                       size_t n)
{
    kv_status st = KV_OK;
    for (size_t i = 0; i < n && st == KV_OK; i++)
        st = kv_mutation_delete_version(m, p->family, p->qual, p->qual_len, vers[i]);
    return fs_fail(fs, st, "delete", p->table);
}

int fs_next_ts(cellfs *fs, const fs_path *p, int64_t *ts)
{
    int64_t now = kv_store_now(fs->store);
    *ts = now;
    kv_result *r = NULL;   /* only what lies at or after the clock matters */
    kv_status st = raw_column_get(fs, p, now, &r);
    if (st == KV_NO_FAMILY || st == KV_INVALID) return 0;
    if (st != KV_OK) return fs_fail(fs, st, "get", p->table);
    /* Past every version that shows, and every marker that hides all
       below it (a raw read shows the puts markers hide too; with
       NEW_VERSION_BEHAVIOR a put made after a marker shows). */
    bool nvb = family_nvb(fs, p);
    for (size_t i = 0; i < r->ncells; i++) {
        const kv_cell *c = &r->cells[i];
        if (strcmp(c->family, p->family) != 0 || c->timestamp < *ts) continue;
        bool col = same_qual(c, p->qual, p->qual_len);
        if (c->type == KV_TYPE_DELETE_FAMILY || (col && c->type == KV_TYPE_DELETE_COLUMN) ||
            (col && c->type == KV_TYPE_PUT && (nvb || !raw_hides(r, p, c->timestamp))))
            *ts = ts_after(c->timestamp);
    }
    /* Off the times of removed versions (a marker of one version hides a
       put at exactly its time), not past them: a cell removed while its
       newest version lay in the future is written again at the clock. */
    while (raw_hides(r, p, *ts) && *ts != ts_after(*ts)) *ts = ts_after(*ts);
    kv_result_free(r);
    return 0;
}

int fs_delete_column_all(cellfs *fs, const fs_path *p, kv_mutation *m, int *shows,
                         int64_t *removed_max)
{
    /* Where the store keeps markers, every version is deleted exactly and
       no column marker is left: a value put later at an older time (rsync
       and tar set times, mv keeps them) is not hidden by the removal.
       Otherwise the whole column up to the clock, and the future
       versions exactly. */
    bool exact = (kv_store_capabilities(fs->store) & KV_CAP_RAW_SCANS) != 0;
    int64_t now = kv_store_now(fs->store);
    int64_t from = exact ? KV_TIME_MIN : now;
    if (shows) {
        /* The raw read tells what a get would show where no marker's rule
           of NEW_VERSION_BEHAVIOR and no TTL's expiry changes it. */
        fs_family_info fi;
        bool plain = exact && fs_family_lookup(fs, p->table, p->family, &fi) == 0 && fi.found &&
                     !fi.nvb && fi.ttl_ms == 0;
        *shows = plain ? 0 : -1;
        if (!plain) shows = NULL;
    }
    int64_t newest = INT64_MIN, *vers = NULL;
    size_t n = 0, shown = 0;
    kv_result *r = NULL;
    kv_status st = raw_column_get(fs, p, from, &r);
    if (st == KV_NO_FAMILY || st == KV_INVALID) return 0;
    if (st != KV_OK) return fs_fail(fs, st, "get", p->table);
    int rc = column_of(r, p, from, from, &newest, &vers, &n, shows ? &shown : NULL);
    kv_result_free(r);
    if (rc) return rc;
    if (shows) *shows = shown > 0;
    if (!exact)
        st = kv_mutation_delete_column(m, p->family, p->qual, p->qual_len, KV_LATEST_TIMESTAMP);
    if (removed_max) *removed_max = exact ? INT64_MIN : INT64_MAX;
    for (size_t i = 0; i < n && st == KV_OK; i++) {
        if (removed_max && exact && vers[i] > *removed_max) *removed_max = vers[i];
        st = kv_mutation_delete_version(m, p->family, p->qual, p->qual_len, vers[i]);
    }
    free(vers);
    return fs_fail(fs, st, "delete", p->table);
}

static int resolve_row(cellfs *fs, fs_path *p)
{
    kv_read_options o;
    fs_ropts(p, &o);
    o.row_prefix = p->row_name.bytes;
    o.row_prefix_len = p->row_name.len;
    o.filter = fs->f_firstkey;
    o.fill_cache = false;
    kv_scan *sc = NULL;
    kv_status st = kv_scan_open(&sc, fs->store, p->table, &o);
    if (st != KV_OK) return fs_fail(fs, st, "scan", p->table);
    int rc = -ENOENT;
    const kv_result *r;
    while ((st = kv_scan_next(&r, sc)) == KV_OK) {
        if (fs_name_matches(p->row_text, p->row_text_len, r->row, r->row_len)) {
            p->row_buf = malloc(r->row_len);
            if (!p->row_buf) { rc = -ENOMEM; break; }
            memcpy(p->row_buf, r->row, r->row_len);
            p->row = p->row_buf;
            p->row_len = r->row_len;
            rc = 0;
            break;
        }
    }
    if (st != KV_OK && st != KV_END) rc = fs_fail(fs, st, "scan", p->table);
    kv_scan_close(sc);
    return rc;
}

static int resolve_qual(cellfs *fs, fs_path *p)
{
    kv_read_options o;
    fs_ropts(p, &o);
    kv_column col = { p->family, NULL, 0 };
    o.columns = &col;
    o.ncolumns = 1;
    o.filter = fs->f_keyonly;
    kv_result *r = NULL;
    kv_status st = kv_get(&r, fs->store, p->table, p->row, p->row_len, &o);
    if (st != KV_OK) return fs_fail(fs, st, "get", p->table);
    int rc = -ENOENT;
    for (size_t i = 0; i < r->ncells; i++) {
        const kv_cell *c = &r->cells[i];
        if (c->type != KV_TYPE_PUT || c->qualifier_len < p->qual_name.len ||
            memcmp(c->qualifier, p->qual_name.bytes, p->qual_name.len) != 0)
            continue;
        if (fs_name_matches(p->qual_text, p->qual_text_len, c->qualifier, c->qualifier_len)) {
            p->qual_buf = malloc(c->qualifier_len);
            if (!p->qual_buf) { rc = -ENOMEM; break; }
            memcpy(p->qual_buf, c->qualifier, c->qualifier_len);
            p->qual = p->qual_buf;
            p->qual_len = c->qualifier_len;
            rc = 0;
            break;
        }
    }
    kv_result_free(r);
    return rc;
}

int fs_resolve(cellfs *fs, fs_path *p)
{
    int rc = 0;
    if (p->kind >= FS_ROW && p->row_err == 0 && p->row_name.hashed && !p->row_buf)
        rc = resolve_row(fs, p);
    if (rc == 0 && p->kind == FS_CELL && p->qual_name.hashed && !p->qual_buf)
        rc = resolve_qual(fs, p);
    return rc;
}

/* Drops the kernel's attributes and pages of @p path, when it holds them.
   (-s: a notification sent from the one thread that would have to answer
   the kernel's own requests meanwhile could deadlock.) */
static void forget_inode(cellfs *fs, const char *path)
{
    fuse_ino_t ino, parent;
    size_t name_off;
    fs_nodes_find(&fs->nodes, path, &ino, &parent, &name_off);
    if (ino) (void)fuse_lowlevel_notify_inval_inode(fs->se, ino, 0, 0);
}

/* Deeper than any path of the grammar (path.h). */
#define WALK_MAX 8

static void forget_inodes(cellfs *fs, fs_ino *inos, size_t n);

/* fs_notify_changed of a name without "@<ts>", whose nodes @p inos (of
   the @p n components of @p path at offsets @p offs) are known: the name
   itself, each of its versions the kernel holds, its family's and its
   row's directories. No path is looked up twice. */
static void notify_walked(cellfs *fs, const char *path, const fs_ino *inos, const size_t *offs,
                          size_t n)
{
    if (inos[n - 1]) (void)fuse_lowlevel_notify_inval_inode(fs->se, inos[n - 1], 0, 0);
    fs_ino parent = n >= 2 ? inos[n - 2] : FS_ROOT_INO;
    if (parent) {
        fs_ino *v;
        size_t nv = fs_nodes_versions(&fs->nodes, parent, path + offs[n - 1], &v);
        forget_inodes(fs, v, nv);
    }
    for (size_t up = 2; up <= 3 && up <= n; up++)      /* its family, its row */
        if (inos[n - up]) (void)fuse_lowlevel_notify_inval_inode(fs->se, inos[n - up], 0, 0);
}

static fs_ino notify(cellfs *fs, const char *path, const fs_change *c);

fs_ino fs_notify_changed(cellfs *fs, const char *path)
{
    return notify(fs, path, NULL);
}

fs_ino fs_notify_put(cellfs *fs, const char *path, int64_t ts)
{
    fs_change c = { INT64_MIN, true, ts };
    return notify(fs, path, &c);
}

fs_ino fs_notify_removed(cellfs *fs, const char *path, int64_t removed_max)
{
    fs_change c = { removed_max, false, 0 };
    return notify(fs, path, &c);
}

static fs_ino notify(cellfs *fs, const char *path, const fs_change *c)
{
    fs_dirtime_count(fs, path, c);
    const char *name = path ? strrchr(path, '/') : NULL;
    size_t base;
    int64_t vts;
    if (name && fs_name_split_version(name + 1, strlen(name + 1), &base, &vts) == 1) {
        /* A change of q@<ts> can make q appear, with no call on q. */
        char *latest = fs_latest_path(path);
        if (latest) fs_negative_appeared(fs, latest);
        free(latest);
    }
    if (fs->se && !fs->single_thread && path) {
        fs_ino inos[WALK_MAX];
        size_t offs[WALK_MAX];
        size_t n = fs_nodes_walk(&fs->nodes, path, inos, offs, WALK_MAX);
        const char *last = n >= 1 && n <= WALK_MAX ? path + offs[n - 1] : NULL;
        size_t base;
        int64_t vts;
        if (last && fs_name_split_version(last, strlen(last), &base, &vts) != 1) {
            notify_walked(fs, path, inos, offs, n);
            return inos[n - 1];
        }
    }
    fs_kernel_forget(fs, path);
    /* The family's and the row's mtimes are their newest cell's, and
       their listings may have changed (the kernel may keep them:
       ll_opendir). A table's rows come and go by calls in it (mkdir,
       rmdir), by schema changes (fs_kernel_forget_below) and by TTL (not
       kept), never by a cell's commit alone. */
    if (!fs->se || fs->single_thread || !path) return 0;
    char *dir = strdup(path);
    for (int up = 0; dir && up < 2; up++) {
        char *slash = strrchr(dir, '/');
        if (!slash || slash == dir) break;
        *slash = '\0';
        forget_inode(fs, dir);
    }
    free(dir);
    return 0;
}

/* Drops the kernel's attributes of every node in @p inos (n of them) and
   frees the list. */
static void forget_inodes(cellfs *fs, fs_ino *inos, size_t n)
{
    for (size_t i = 0; i < n; i++)
        (void)fuse_lowlevel_notify_inval_inode(fs->se, inos[i], 0, 0);
    free(inos);
}

void fs_kernel_forget(cellfs *fs, const char *path)
{
    if (!fs->se || fs->single_thread || !path) return;
    forget_inode(fs, path);
    char *latest = fs_latest_path(path);
    if (latest && strcmp(latest, path) != 0) forget_inode(fs, latest);
    /* A change of a cell may take versions away (beyond VERSIONS, rm q,
       a re-stamp): the kernel must ask again about each q@<ts> it holds. */
    fs_ino ino, parent;
    size_t name_off;
    if (latest) fs_nodes_find(&fs->nodes, latest, &ino, &parent, &name_off);
    if (latest && parent) {
        fs_ino *v;
        size_t n = fs_nodes_versions(&fs->nodes, parent, latest + name_off, &v);
        forget_inodes(fs, v, n);
    }
    free(latest);
}

void fs_kernel_forget_below(cellfs *fs, const char *path)
{
    fs_negative_appeared_any(fs);   /* families added, a row moved */
    if (!fs->se || fs->single_thread) return;
    fs_ino ino, parent;
    size_t name_off;
    fs_nodes_find(&fs->nodes, path, &ino, &parent, &name_off);
    if (!ino) return;
    (void)fuse_lowlevel_notify_inval_inode(fs->se, ino, 0, 0);   /* its listing */
    fs_ino *v;
    size_t n = fs_nodes_below(&fs->nodes, ino, &v);
    forget_inodes(fs, v, n);
}

void fs_kernel_forget_listing(cellfs *fs, const char *path)
{
    if (fs->se && !fs->single_thread) forget_inode(fs, path);
}

char *fs_latest_path(const char *path)
{
    char *s = strdup(path);
    if (!s) return NULL;
    char *slash = strrchr(s, '/');
    char *last = slash ? slash + 1 : s;
    size_t base;
    int64_t ts;
    if (fs_name_split_version(last, strlen(last), &base, &ts) == 1) last[base] = '\0';
    return s;
}
