/**
 * @file rowmemo.c
 * The keys of the row read last (contract in fs.h, "--- rowmemo.c"): the
 * steps of a walk ask about one row many times in a row between changes
 * (find and rsync list a row, then each of its families; rsync's restore
 * looks a row up, makes it, makes its family, sets their times), and each
 * question would read the row again. What is kept is valid while no
 * change counted itself (fs->commits, which every change of a cell counts
 * before it tells the kernel) and no schema changed (fs_families_gen)
 * since the read began; it is kept only where the kernel may keep the
 * row's names too (a local store, no TTL in the table, not a view). One
 * row's keys, with their values' lengths: what a listing of the row reads
 * anyway; those of a row of more than FS_ROWMEMO_MAX_CELLS cells are not
 * held after their read. Called by cells.c and ops_dir.c; calls kvcore.h.
 */
#include "fs.h"

#include <stdlib.h>
#include <string.h>

struct fs_rowmemo {
    pthread_mutex_t mu;              /* innermost: nothing is called under it */
    char table[sizeof ((fs_path *)0)->table];
    uint8_t *row;
    size_t row_len;
    fs_rowmemo_mark mark;            /* when the read began */
    kv_result *r;                    /* NULL: nothing kept */
};

static void clear(fs_rowmemo *m)
{
    kv_result_free(m->r);
    free(m->row);
    m->r = NULL;
    m->row = NULL;
}

void fs_rowmemo_init(cellfs *fs)
{
    fs_rowmemo *m = calloc(1, sizeof *m);
    if (m) pthread_mutex_init(&m->mu, NULL);
    fs->rowmemo = m;
}

void fs_rowmemo_free(cellfs *fs)
{
    fs_rowmemo *m = fs->rowmemo;
    fs->rowmemo = NULL;
    if (!m) return;
    clear(m);
    pthread_mutex_destroy(&m->mu);
    free(m);
}

bool fs_rowmemo_usable(cellfs *fs, const fs_path *p)
{
    if (!fs->rowmemo || !fs->cache_long || p->asof || !fs->f_keylen) return false;
    fs_family_info fi;
    return fs_family_lookup(fs, p->table, NULL, &fi) == 0 && !fi.table_has_ttl;
}

fs_rowmemo_mark fs_rowmemo_now(cellfs *fs)
{
    fs_rowmemo_mark k = { atomic_load(&fs->commits), fs_families_gen(fs) };
    return k;
}

void fs_rowmemo_read_options(cellfs *fs, const fs_path *p, kv_read_options *o)
{
    fs_ropts(p, o);
    o->filter = fs->f_keylen;
    o->max_versions = fs->versions ? INT32_MAX : 1;
}

kv_result *fs_rowmemo_put(cellfs *fs, const fs_path *p, fs_rowmemo_mark mark, kv_result *r)
{
    fs_rowmemo *m = fs->rowmemo;
    if (!m || r->ncells > FS_ROWMEMO_MAX_CELLS) return r;
    uint8_t *row = malloc(p->row_len ? p->row_len : 1);
    if (!row) return r;
    memcpy(row, p->row, p->row_len);
    pthread_mutex_lock(&m->mu);
    clear(m);
    strcpy(m->table, p->table);
    m->row = row;
    m->row_len = p->row_len;
    m->mark = mark;
    m->r = r;
    pthread_mutex_unlock(&m->mu);
    return NULL;
}

const kv_result *fs_rowmemo_get(cellfs *fs, const fs_path *p)
{
    fs_rowmemo *m = fs->rowmemo;
    if (!m || p->asof) return NULL;
    fs_rowmemo_mark now = fs_rowmemo_now(fs);
    pthread_mutex_lock(&m->mu);
    if (m->r && m->row_len == p->row_len && memcmp(m->row, p->row, p->row_len) == 0 &&
        strcmp(m->table, p->table) == 0 && m->mark.commits == now.commits &&
        m->mark.fams_gen == now.fams_gen)
        return m->r;
    pthread_mutex_unlock(&m->mu);
    return NULL;
}

void fs_rowmemo_done(cellfs *fs)
{
    pthread_mutex_unlock(&fs->rowmemo->mu);
}
