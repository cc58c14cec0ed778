/**
 * @file pending.c
 * What the mount keeps only in memory, bounded: rows made with mkdir that
 * have no cell yet (so `mkdir -p t/row/family` works before the first
 * write), the young rows (the last FS_YOUNG_MAX rows made with mkdir, and
 * the families made in each: such a row lists only those and the families
 * that hold cells, so cp -r and rsync can mkdir each family after the
 * first cell landed), and table-level scratch files (the temporary files
 * of rsync, sed -i and editors writing .schema). All under fs->mu. Called
 * by ops_dir.c, ops_file.c and open_file.c.
 */
#include "fs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct fs_gone {
    struct fs_gone *next;
    char table[2 * KV_NAME_MAX + 2];
} fs_gone;

/* One row of a row set: the table, the key, and for a young row the
   families made in it with mkdir. */
typedef struct fs_rowent {
    struct fs_rowent *next, *prev; /* the set's list, newest first */
    struct fs_rowent *hnext;       /* the chain of its bucket in the set's index */
    size_t bucket;
    const char *table;           /* after the key, in the same allocation */
    char *fams;                  /* young rows: mkdir'ed families, each NUL-terminated */
    size_t fams_len;
    size_t len;
    uint8_t key[];               /* len bytes, then the table's name */
} fs_rowent;

/* Every lookup of a path below a table asks whether its row is pending
   (and young), and rsync's generator makes thousands of rows before their
   first cells land: rows are found through a hash index, not by walking
   them all (which made an rsync of 100,000 rows into a table quadratic). */
static size_t row_bucket(const char *table, const uint8_t *row, size_t len)
{
    uint64_t h = 1469598103934665603ull;   /* FNV-1a */
    for (const char *c = table; *c; c++) h = (h ^ (uint8_t)*c) * 1099511628211ull;
    h = (h ^ 0xffu) * 1099511628211ull;
    for (size_t i = 0; i < len; i++) h = (h ^ row[i]) * 1099511628211ull;
    return (size_t)(h % FS_ROWSET_BUCKETS);
}

static fs_rowent *rowset_find(const fs_rowset *s, const char *table, const uint8_t *row,
                              size_t len)
{
    if (!s->index) return NULL;
    fs_rowent *e = s->index[row_bucket(table, row, len)];
    while (e && !(e->len == len && memcmp(e->key, row, len) == 0 && strcmp(e->table, table) == 0))
        e = e->hnext;
    return e;
}

/* Takes @p e out of the list (keeps it in the index). */
static void rowset_unlink(fs_rowset *s, fs_rowent *e)
{
    if (e->prev) e->prev->next = e->next;
    else s->newest = e->next;
    if (e->next) e->next->prev = e->prev;
    else s->oldest = e->prev;
    e->next = e->prev = NULL;
}

static void rowset_push(fs_rowset *s, fs_rowent *e)
{
    e->prev = NULL;
    e->next = s->newest;
    if (e->next) e->next->prev = e;
    else s->oldest = e;
    s->newest = e;
}

/* Takes @p e out of the set (the caller frees it: rowent_free). */
static void rowset_remove(fs_rowset *s, fs_rowent *e)
{
    rowset_unlink(s, e);
    fs_rowent **pp = &s->index[e->bucket];
    while (*pp != e) pp = &(*pp)->hnext;
    *pp = e->hnext;
    s->n--;
}

static void rowent_free(fs_rowent *e)
{
    free(e->fams);
    free(e);
}

/* Takes @p e out of the set and frees it. */
static void rowset_drop(fs_rowset *s, fs_rowent *e)
{
    rowset_remove(s, e);
    rowent_free(e);
}

/* A new row in @p s, newest; NULL when out of memory. */
static fs_rowent *rowset_add(fs_rowset *s, const char *table, const uint8_t *row, size_t len)
{
    if (!s->index) s->index = calloc(FS_ROWSET_BUCKETS, sizeof *s->index);
    size_t tlen = strlen(table) + 1;
    fs_rowent *e = s->index ? calloc(1, sizeof *e + len + tlen) : NULL;
    if (!e) return NULL;
    e->len = len;
    memcpy(e->key, row, len);
    e->table = memcpy(e->key + len, table, tlen);
    rowset_push(s, e);
    e->bucket = row_bucket(table, row, len);
    e->hnext = s->index[e->bucket];
    s->index[e->bucket] = e;
    s->n++;
    return e;
}

static void rowset_drop_table(fs_rowset *s, const char *table)
{
    for (fs_rowent *e = s->newest, *next; e; e = next) {
        next = e->next;
        if (strcmp(e->table, table) == 0) rowset_drop(s, e);
    }
}

static void rowset_clear(fs_rowset *s)
{
    while (s->newest) rowset_drop(s, s->newest);
    free(s->index);
    s->index = NULL;
}

int fs_pending_add(cellfs *fs, const fs_path *p)
{
    int rc = 0;
    pthread_mutex_lock(&fs->mu);
    if (!rowset_find(&fs->pending, p->table, p->row, p->row_len)) {
        if (fs->pending.n >= FS_PENDING_MAX) rc = -ENOSPC;   /* never forget one silently */
        else if (!rowset_add(&fs->pending, p->table, p->row, p->row_len)) rc = -ENOMEM;
    }
    pthread_mutex_unlock(&fs->mu);
    if (rc == -ENOSPC)
        fs_log(fs, "mkdir in %s: %d rows without cells are kept already; write cells into "
               "them (or rmdir them) first", p->table, FS_PENDING_MAX);
    return rc;
}

static bool has_family(const fs_rowent *e, const char *family)
{
    for (size_t i = 0; i < e->fams_len; i += strlen(e->fams + i) + 1)
        if (strcmp(e->fams + i, family) == 0) return true;
    return false;
}

/* The mount's path of the row of @p e (malloc'd; NULL when out of memory). */
static char *row_path(const fs_rowent *e)
{
    char name[FS_NAME_MAX + 1];
    if (fs_name_encode(name, e->key, e->len) == 0) return NULL;
    const char *colon = strchr(e->table, ':');
    int ns_len = colon ? (int)(colon - e->table) : (int)strlen("default");
    const char *ns = colon ? e->table : "default";
    const char *tname = colon ? colon + 1 : e->table;
    size_t n = (size_t)ns_len + strlen(tname) + strlen(name) + 4;
    char *s = malloc(n);
    if (s) snprintf(s, n, "/%.*s/%s/%s", ns_len, ns, tname, name);
    return s;
}

int fs_young_add(cellfs *fs, const fs_path *p, const char *family)
{
    int rc = 0;
    fs_rowent *aged = NULL;   /* the row that stops being young, with no call on it */
    char *aged_path = NULL;
    pthread_mutex_lock(&fs->mu);
    fs_rowent *e = rowset_find(&fs->young, p->table, p->row, p->row_len);
    if (e) {
        rowset_unlink(&fs->young, e);           /* the most recently made again */
        rowset_push(&fs->young, e);
    } else {
        if (fs->young.n >= FS_YOUNG_MAX) {
            aged_path = row_path(fs->young.oldest);
            if (aged_path) {
                aged = fs->young.oldest;            /* freed below, once told */
                rowset_remove(&fs->young, aged);
            }
        }
        e = fs->young.n < FS_YOUNG_MAX ? rowset_add(&fs->young, p->table, p->row, p->row_len)
                                       : NULL;
        if (!e) rc = -ENOMEM;
    }
    if (e && family && !has_family(e, family)) {
        size_t n = strlen(family) + 1;
        char *nf = realloc(e->fams, e->fams_len + n);
        if (!nf) {
            rc = -ENOMEM;
        } else {
            memcpy(nf + e->fams_len, family, n);
            e->fams = nf;
            e->fams_len += n;
        }
    }
    pthread_mutex_unlock(&fs->mu);
    if (aged) {
        /* It lists every family of its table now: the kernel may keep its
           listing (ll_opendir) and must read it again, and none of its
           families may stay absent. */
        fs_kernel_forget_listing(fs, aged_path);
        fs_negative_row_aged(fs, aged->table, aged->key, aged->len);
        rowent_free(aged);
    }
    free(aged_path);
    return rc;
}

int fs_young_family(cellfs *fs, const fs_path *p, const char *family)
{
    if (p->asof) return -1;
    pthread_mutex_lock(&fs->mu);
    const fs_rowent *e = rowset_find(&fs->young, p->table, p->row, p->row_len);
    int rc = !e ? -1 : has_family(e, family) ? 1 : 0;
    pthread_mutex_unlock(&fs->mu);
    return rc;
}

void fs_young_unlist(cellfs *fs, const fs_path *p, const char *family)
{
    pthread_mutex_lock(&fs->mu);
    fs_rowent *e = rowset_find(&fs->young, p->table, p->row, p->row_len);
    for (size_t i = 0; e && i < e->fams_len; i += strlen(e->fams + i) + 1) {
        if (strcmp(e->fams + i, family) != 0) continue;
        size_t n = strlen(family) + 1;
        memmove(e->fams + i, e->fams + i + n, e->fams_len - i - n);
        e->fams_len -= n;
        break;
    }
    pthread_mutex_unlock(&fs->mu);
}

void fs_young_forget(cellfs *fs, const char *table, const uint8_t *row, size_t len)
{
    pthread_mutex_lock(&fs->mu);
    fs_rowent *e = rowset_find(&fs->young, table, row, len);
    if (e) rowset_drop(&fs->young, e);
    pthread_mutex_unlock(&fs->mu);
}

bool fs_pending_table(cellfs *fs, const char *table)
{
    pthread_mutex_lock(&fs->mu);
    bool any = false;
    for (fs_rowent *e = fs->pending.newest; e && !any; e = e->next)
        any = strcmp(e->table, table) == 0;
    for (fs_scratch *sc = fs->scratch; sc && !any; sc = sc->next)
        any = strcmp(sc->table, table) == 0;
    pthread_mutex_unlock(&fs->mu);
    return any;
}

void fs_pending_drop_table(cellfs *fs, const char *table)
{
    fs_schema_back(fs, table);
    pthread_mutex_lock(&fs->mu);
    rowset_drop_table(&fs->pending, table);
    rowset_drop_table(&fs->young, table);
    for (fs_scratch *s = fs->scratch, *next; s; s = next) {
        next = s->next;
        if (strcmp(s->table, table) == 0) fs_scratch_unlink(fs, s);
    }
    pthread_mutex_unlock(&fs->mu);
}

int fs_schema_unlink(cellfs *fs, const char *table)
{
    if (fs_schema_gone(fs, table)) return -ENOENT;
    fs_gone *g = calloc(1, sizeof *g);
    if (!g) return -ENOMEM;
    snprintf(g->table, sizeof g->table, "%s", table);
    pthread_mutex_lock(&fs->mu);
    g->next = fs->schema_gone;
    fs->schema_gone = g;
    pthread_mutex_unlock(&fs->mu);
    return 0;
}

bool fs_schema_gone(cellfs *fs, const char *table)
{
    pthread_mutex_lock(&fs->mu);
    bool gone = false;
    for (fs_gone *g = fs->schema_gone; g && !gone; g = g->next) gone = strcmp(g->table, table) == 0;
    pthread_mutex_unlock(&fs->mu);
    return gone;
}

void fs_schema_back(cellfs *fs, const char *table)
{
    pthread_mutex_lock(&fs->mu);
    for (fs_gone **pp = &fs->schema_gone; *pp;) {
        if (strcmp((*pp)->table, table) == 0) {
            fs_gone *g = *pp;
            *pp = g->next;
            free(g);
        } else {
            pp = &(*pp)->next;
        }
    }
    pthread_mutex_unlock(&fs->mu);
}

void fs_pending_clear(cellfs *fs)
{
    pthread_mutex_lock(&fs->mu);
    while (fs->schema_gone) {
        fs_gone *g = fs->schema_gone;
        fs->schema_gone = g->next;
        free(g);
    }
    rowset_clear(&fs->pending);
    rowset_clear(&fs->young);
    while (fs->scratch) fs_scratch_unlink(fs, fs->scratch);
    pthread_mutex_unlock(&fs->mu);
}

bool fs_pending_has(cellfs *fs, const fs_path *p)
{
    pthread_mutex_lock(&fs->mu);
    bool found = rowset_find(&fs->pending, p->table, p->row, p->row_len) != NULL;
    pthread_mutex_unlock(&fs->mu);
    return found;
}

void fs_pending_remove(cellfs *fs, const char *table, const uint8_t *row, size_t len)
{
    pthread_mutex_lock(&fs->mu);
    fs_rowent *e = rowset_find(&fs->pending, table, row, len);
    if (e) rowset_drop(&fs->pending, e);
    pthread_mutex_unlock(&fs->mu);
}

size_t fs_pending_list(cellfs *fs, const char *table, fs_rowkey **out)
{
    size_t n = 0;
    *out = NULL;
    pthread_mutex_lock(&fs->mu);
    fs_rowkey *v = calloc(fs->pending.n + 1, sizeof *v);
    for (const fs_rowent *e = fs->pending.newest; v && e; e = e->next) {
        if (strcmp(e->table, table) != 0) continue;
        v[n].key = malloc(e->len ? e->len : 1);
        if (!v[n].key) break;
        memcpy(v[n].key, e->key, e->len);
        v[n].len = e->len;
        n++;
    }
    pthread_mutex_unlock(&fs->mu);
    *out = v;
    return n;
}

size_t fs_scratch_names(cellfs *fs, const char *table, char ***out)
{
    size_t n = 0;
    *out = NULL;
    pthread_mutex_lock(&fs->mu);
    char **v = calloc(fs->nscratch + 1, sizeof *v);
    for (fs_scratch *s = fs->scratch; v && s; s = s->next) {
        if (strcmp(s->table, table) != 0) continue;
        v[n] = strdup(s->name);
        if (!v[n]) break;
        n++;
    }
    pthread_mutex_unlock(&fs->mu);
    *out = v;
    return n;
}

fs_scratch *fs_scratch_find(cellfs *fs, const char *table, const char *name, size_t len)
{
    for (fs_scratch *s = fs->scratch; s; s = s->next)
        if (strlen(s->name) == len && memcmp(s->name, name, len) == 0 &&
            strcmp(s->table, table) == 0)
            return s;
    return NULL;
}

fs_scratch *fs_scratch_new(cellfs *fs, const char *table, const char *name, size_t len, int *err)
{
    if (fs->nscratch >= FS_SCRATCH_MAX || len > FS_NAME_MAX) {
        *err = -ENOSPC;
        return NULL;
    }
    fs_scratch *s = calloc(1, sizeof *s);
    if (!s) {
        *err = -ENOMEM;
        return NULL;
    }
    snprintf(s->table, sizeof s->table, "%s", table);
    memcpy(s->name, name, len);
    s->name[len] = '\0';
    clock_gettime(CLOCK_REALTIME, &s->mtime);
    s->refs = 1;
    s->next = fs->scratch;
    fs->scratch = s;
    fs->nscratch++;
    return s;
}

void fs_scratch_unlink(cellfs *fs, fs_scratch *s)
{
    if (s->unlinked) return;
    for (fs_scratch **pp = &fs->scratch; *pp; pp = &(*pp)->next) {
        if (*pp == s) {
            *pp = s->next;
            break;
        }
    }
    s->unlinked = true;
    fs->nscratch--;
    fs_scratch_put(fs, s);
}

void fs_scratch_put(cellfs *fs, fs_scratch *s)
{
    (void)fs;
    if (--s->refs == 0) {
        free(s->buf);
        free(s);
    }
}
