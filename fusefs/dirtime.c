/**
 * @file dirtime.c
 * A row's and a family's time without reading their values (contract in
 * fs.h, "--- dirtime.c"): a directory's mtime is the newest timestamp of
 * the cells below it (cellfs(1), directory mtimes), and finding it reads
 * every key of the row or family, and with them (kvcore keeps values in
 * the same blocks) every value's bytes. On a local store the mount is the
 * only writer, so what such a read found is kept here, per (table, row)
 * and per (table, row, family), and every change the mount commits
 * updates it in place under the lock that counts the change (fs->commits):
 * a put at ts raises the time to it, a removal of versions all older than
 * the newest cell leaves it, any other change drops the entries it
 * touches (the next question reads again). A read whose count moved
 * before its answer was kept is not kept. TTL tables and views are never
 * kept (fs_rowmemo_usable: expiry changes the answer with no call); a
 * schema change (fs_families_gen) makes every entry stale. A small table
 * of FS_DIRTIME_SLOTS entries, one per hash, overwritten on collision.
 * Called by cells.c; calls path.c.
 */
#include "fs.h"

#include <stdlib.h>
#include <string.h>

typedef struct slot {
    uint8_t *key;                    /* table '\0' row family: NULL: empty */
    size_t key_len;
    size_t table_len;                /* strlen(table) + 1: the key's table part */
    uint64_t fams_gen;               /* fs_families_gen when read */
    bool has;                        /* a cell below */
    int64_t newest;                  /* its newest timestamp, when has */
} slot;

struct fs_dirtime {
    pthread_mutex_t mu;              /* innermost; counts fs->commits */
    slot slots[FS_DIRTIME_SLOTS];
};

/* The key of (table, row, family): family "" for the row itself. */
static uint8_t *make_key(const char *table, const uint8_t *row, size_t row_len,
                         const char *family, size_t *len, size_t *table_len)
{
    size_t tl = strlen(table) + 1, fl = strlen(family);
    *len = tl + sizeof row_len + row_len + fl;
    *table_len = tl;
    uint8_t *k = malloc(*len);
    if (!k) return NULL;
    memcpy(k, table, tl);
    memcpy(k + tl, &row_len, sizeof row_len);
    if (row_len) memcpy(k + tl + sizeof row_len, row, row_len);
    memcpy(k + tl + sizeof row_len + row_len, family, fl);
    return k;
}

static size_t slot_of(const uint8_t *k, size_t len)
{
    uint64_t h = 1469598103934665603ull;      /* FNV-1a */
    for (size_t i = 0; i < len; i++) h = (h ^ k[i]) * 1099511628211ull;
    return (size_t)(h % FS_DIRTIME_SLOTS);
}

static void clear_slot(slot *s)
{
    free(s->key);
    s->key = NULL;
}

/* The slot holding @p k, or NULL. mu held. */
static slot *find(fs_dirtime *d, const uint8_t *k, size_t len)
{
    slot *s = &d->slots[slot_of(k, len)];
    return s->key && s->key_len == len && memcmp(s->key, k, len) == 0 ? s : NULL;
}

void fs_dirtime_init(cellfs *fs)
{
    fs_dirtime *d = calloc(1, sizeof *d);
    if (d) pthread_mutex_init(&d->mu, NULL);
    fs->dirtime = d;
}

void fs_dirtime_free(cellfs *fs)
{
    fs_dirtime *d = fs->dirtime;
    fs->dirtime = NULL;
    if (!d) return;
    for (size_t i = 0; i < FS_DIRTIME_SLOTS; i++) clear_slot(&d->slots[i]);
    pthread_mutex_destroy(&d->mu);
    free(d);
}

int fs_dirtime_get(cellfs *fs, const fs_path *p, const char *family, int64_t *ts)
{
    fs_dirtime *d = fs->dirtime;
    if (!d || p->asof) return -1;
    size_t len, tl;
    uint8_t *k = make_key(p->table, p->row, p->row_len, family ? family : "", &len, &tl);
    if (!k) return -1;
    uint64_t gen = fs_families_gen(fs);
    int rc = -1;
    pthread_mutex_lock(&d->mu);
    slot *s = find(d, k, len);
    if (s && s->fams_gen == gen) {
        rc = s->has;
        if (s->has) *ts = s->newest;
    }
    pthread_mutex_unlock(&d->mu);
    free(k);
    return rc;
}

void fs_dirtime_put(cellfs *fs, const fs_path *p, const char *family, fs_rowmemo_mark mark,
                    int has, int64_t ts)
{
    fs_dirtime *d = fs->dirtime;
    if (!d || has < 0 || !fs_rowmemo_usable(fs, p) || fs_families_gen(fs) != mark.fams_gen)
        return;
    size_t len, tl;
    uint8_t *k = make_key(p->table, p->row, p->row_len, family ? family : "", &len, &tl);
    if (!k) return;
    pthread_mutex_lock(&d->mu);
    if (atomic_load(&fs->commits) == mark.commits) {    /* no change since the read began */
        slot *s = &d->slots[slot_of(k, len)];
        clear_slot(s);
        s->key = k;
        s->key_len = len;
        s->table_len = tl;
        s->fams_gen = mark.fams_gen;
        s->has = has > 0;
        s->newest = ts;
        k = NULL;
    }
    pthread_mutex_unlock(&d->mu);
    free(k);
}

/* Drops every entry of @p table (NULL: every entry). mu held. */
static void drop_table(fs_dirtime *d, const char *table)
{
    size_t tl = table ? strlen(table) + 1 : 0;
    for (size_t i = 0; i < FS_DIRTIME_SLOTS; i++) {
        slot *s = &d->slots[i];
        if (s->key && (!table || (s->table_len == tl && memcmp(s->key, table, tl) == 0)))
            clear_slot(s);
    }
}

/* The entry (table, row of @p p, @p family) after the change @p c. mu
   held. */
static void update(fs_dirtime *d, const fs_path *p, const char *family, const fs_change *c)
{
    size_t len, tl;
    uint8_t *k = make_key(p->table, p->row, p->row_len, family, &len, &tl);
    if (!k) {                        /* cannot find it: nothing of the table stays */
        drop_table(d, p->table);
        return;
    }
    slot *s = find(d, k, len);
    free(k);
    if (!s) return;
    /* Versions all older than the newest cell leave that cell: it may be
       another column's, or a newer version of the same column. */
    if (!c || (c->removed_max != INT64_MIN && (!s->has || c->removed_max >= s->newest))) {
        clear_slot(s);
    } else if (c->put && (!s->has || c->put_ts > s->newest)) {
        s->has = true;
        s->newest = c->put_ts;
    }
}

void fs_dirtime_count(cellfs *fs, const char *path, const fs_change *c)
{
    fs_dirtime *d = fs->dirtime;
    if (!d) {
        atomic_fetch_add(&fs->commits, 1);
        return;
    }
    /* The entries the change touches: the cell's family and row when the
       path names a cell whose row is known without the store; else every
       entry of its table (every entry when even that is unknown). */
    fs_path p;
    bool parsed = path && fs_path_parse(&p, path) == 0;
    bool cell = parsed && p.kind == FS_CELL && !p.row_name.hashed;
    pthread_mutex_lock(&d->mu);
    atomic_fetch_add(&fs->commits, 1);
    if (cell) {
        update(d, &p, p.family, c);
        update(d, &p, "", c);
    } else {
        drop_table(d, parsed && p.kind >= FS_TABLE ? p.table : NULL);
    }
    pthread_mutex_unlock(&d->mu);
    if (parsed) fs_path_free(&p);
}
