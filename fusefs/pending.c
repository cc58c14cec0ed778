/**
 * @file pending.c
 * What the mount keeps only in memory, bounded: rows made with mkdir that
 * have no cell yet (so `mkdir -p t/row/family` works before the first
 * write), and table-level scratch files (the temporary files of rsync, sed
 * -i and editors writing .schema). All under fs->mu. Called by ops_dir.c,
 * ops_file.c and open_file.c.
 */
#include "fs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct fs_gone {
    struct fs_gone *next;
    char table[2 * KV_NAME_MAX + 2];
} fs_gone;

typedef struct fs_pending {
    struct fs_pending *next, *prev; /* fs->pending, newest first */
    struct fs_pending *hnext;       /* the chain of its bucket in fs->pending_index */
    size_t bucket;
    char table[2 * KV_NAME_MAX + 2];
    bool all_families;           /* emptied by rm: shows every family */
    char *fams;                  /* mkdir'ed families, each NUL-terminated */
    size_t fams_len;
    size_t len;
    uint8_t key[];
} fs_pending;

static void pending_free(fs_pending *e)
{
    free(e->fams);
    free(e);
}

static bool has_family(const fs_pending *e, const char *family)
{
    if (e->all_families) return true;
    for (size_t i = 0; i < e->fams_len; i += strlen(e->fams + i) + 1)
        if (strcmp(e->fams + i, family) == 0) return true;
    return false;
}

static bool pending_is(const fs_pending *e, const char *table, const uint8_t *row, size_t len)
{
    return e->len == len && memcmp(e->key, row, len) == 0 && strcmp(e->table, table) == 0;
}

/* Every lookup of a path below a table asks whether its row is pending,
   and rsync's generator makes thousands of rows before their first cells
   land: the rows are found through a hash index, not by walking them all
   (which made an rsync of 100,000 rows into a table quadratic). */
static size_t pending_bucket(const char *table, const uint8_t *row, size_t len)
{
    uint64_t h = 1469598103934665603ull;   /* FNV-1a */
    for (const char *c = table; *c; c++) h = (h ^ (uint8_t)*c) * 1099511628211ull;
    h = (h ^ 0xffu) * 1099511628211ull;
    for (size_t i = 0; i < len; i++) h = (h ^ row[i]) * 1099511628211ull;
    return (size_t)(h % FS_PENDING_BUCKETS);
}

static fs_pending *pending_find(cellfs *fs, const char *table, const uint8_t *row, size_t len)
{
    if (!fs->pending_index) return NULL;
    fs_pending *e = fs->pending_index[pending_bucket(table, row, len)];
    while (e && !pending_is(e, table, row, len)) e = e->hnext;
    return e;
}

/* Takes @p e out of the list and the index and frees it. */
static void pending_drop(cellfs *fs, fs_pending *e)
{
    if (e->prev) e->prev->next = e->next;
    else fs->pending = e->next;
    if (e->next) e->next->prev = e->prev;
    fs_pending **pp = &fs->pending_index[e->bucket];
    while (*pp != e) pp = &(*pp)->hnext;
    *pp = e->hnext;
    fs->npending--;
    pending_free(e);
}

int fs_pending_add(cellfs *fs, const fs_path *p, const char *family, bool all_families)
{
    int rc = 0;
    pthread_mutex_lock(&fs->mu);
    if (!fs->pending_index) fs->pending_index = calloc(FS_PENDING_BUCKETS, sizeof *fs->pending_index);
    fs_pending *e = pending_find(fs, p->table, p->row, p->row_len);
    if (!fs->pending_index) {
        rc = -ENOMEM;
    } else if (!e && fs->npending >= FS_PENDING_MAX) {
        rc = -ENOSPC;            /* never forget one silently */
    } else if (!e) {
        e = calloc(1, sizeof *e + p->row_len);
        if (!e) {
            rc = -ENOMEM;
        } else {
            snprintf(e->table, sizeof e->table, "%s", p->table);
            e->len = p->row_len;
            memcpy(e->key, p->row, p->row_len);
            e->next = fs->pending;
            if (e->next) e->next->prev = e;
            fs->pending = e;
            e->bucket = pending_bucket(p->table, p->row, p->row_len);
            e->hnext = fs->pending_index[e->bucket];
            fs->pending_index[e->bucket] = e;
            fs->npending++;
        }
    }
    if (e && all_families) e->all_families = true;
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
    if (rc == -ENOSPC)
        fs_log(fs, "mkdir in %s: %d rows without cells are kept already; write cells into "
               "them (or rmdir them) first", p->table, FS_PENDING_MAX);
    return rc;
}

void fs_pending_unlist(cellfs *fs, const fs_path *p, const char *family)
{
    pthread_mutex_lock(&fs->mu);
    fs_pending *e = pending_find(fs, p->table, p->row, p->row_len);
    if (e && !e->all_families) {
        for (size_t i = 0; i < e->fams_len; i += strlen(e->fams + i) + 1) {
            if (strcmp(e->fams + i, family) != 0) continue;
            size_t n = strlen(family) + 1;
            memmove(e->fams + i, e->fams + i + n, e->fams_len - i - n);
            e->fams_len -= n;
            break;
        }
    }
    pthread_mutex_unlock(&fs->mu);
}

bool fs_pending_table(cellfs *fs, const char *table)
{
    pthread_mutex_lock(&fs->mu);
    bool any = false;
    for (fs_pending *e = fs->pending; e && !any; e = e->next) any = strcmp(e->table, table) == 0;
    for (fs_scratch *sc = fs->scratch; sc && !any; sc = sc->next)
        any = strcmp(sc->table, table) == 0;
    pthread_mutex_unlock(&fs->mu);
    return any;
}

void fs_pending_drop_table(cellfs *fs, const char *table)
{
    fs_schema_back(fs, table);
    pthread_mutex_lock(&fs->mu);
    for (fs_pending *e = fs->pending, *next; e; e = next) {
        next = e->next;
        if (strcmp(e->table, table) == 0) pending_drop(fs, e);
    }
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
    while (fs->pending) {
        fs_pending *e = fs->pending;
        fs->pending = e->next;
        pending_free(e);
    }
    free(fs->pending_index);
    fs->pending_index = NULL;
    fs->npending = 0;
    while (fs->scratch) fs_scratch_unlink(fs, fs->scratch);
    pthread_mutex_unlock(&fs->mu);
}

bool fs_pending_has(cellfs *fs, const fs_path *p, const char *family)
{
    bool found = false;
    pthread_mutex_lock(&fs->mu);
    fs_pending *e = pending_find(fs, p->table, p->row, p->row_len);
    found = e && (!family || has_family(e, family));
    pthread_mutex_unlock(&fs->mu);
    return found;
}

void fs_pending_remove(cellfs *fs, const char *table, const uint8_t *row, size_t len)
{
    pthread_mutex_lock(&fs->mu);
    fs_pending *e = pending_find(fs, table, row, len);   /* one per row (fs_pending_add) */
    if (e) pending_drop(fs, e);
    pthread_mutex_unlock(&fs->mu);
}

size_t fs_pending_list(cellfs *fs, const char *table, fs_rowkey **out)
{
    size_t n = 0;
    *out = NULL;
    pthread_mutex_lock(&fs->mu);
    fs_rowkey *v = calloc(fs->npending + 1, sizeof *v);
    for (fs_pending *e = fs->pending; v && e; e = e->next) {
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
