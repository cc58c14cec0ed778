/**
 * @file families.c
 * What the mount keeps of each table's families (contract in fs.h, "---
 * families.c"): their names, TTLs and NEW_VERSION_BEHAVIOR, which the
 * cache rule of every reply (cache_time.c) and the checks of a cell's
 * family (cells.c) would otherwise read with a kv_table_describe per
 * request. Kept only on a mount that is the store's one writer
 * (fs->cache_long): there only this mount changes a schema, and each change
 * (ops_schema.c, the table mkdir and rmdir of ops_dir.c) drops all that is
 * kept, by fs_families_changed. Elsewhere every question describes the
 * table, as the store may change under the mount. Called by cache_time.c,
 * cells.c, ops_dir.c, ops_schema.c; calls kvcore.h.
 */
#include "fs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct fs_fam {
    char *name;
    int64_t ttl_ms;                  /* 0: no TTL */
    bool nvb;
} fs_fam;

/* One table's families. */
typedef struct fs_famtab {
    char *table;
    fs_fam *fams;
    size_t n;
    bool any_ttl;
} fs_famtab;

struct fs_families {
    pthread_mutex_t mu;              /* innermost: nothing is called under it */
    uint64_t gen;                    /* counts fs_families_changed */
    fs_famtab tabs[FS_FAMILIES_TABLES];
    size_t next;                     /* the slot the next new table takes */
};

static void famtab_free(fs_famtab *t)
{
    for (size_t i = 0; i < t->n; i++) free(t->fams[i].name);
    free(t->fams);
    free(t->table);
    memset(t, 0, sizeof *t);
}

int fs_families_init(cellfs *fs)
{
    fs->families = calloc(1, sizeof *fs->families);
    if (!fs->families) return -ENOMEM;
    pthread_mutex_init(&fs->families->mu, NULL);
    return 0;
}

void fs_families_free(cellfs *fs)
{
    if (!fs->families) return;
    for (size_t i = 0; i < FS_FAMILIES_TABLES; i++) famtab_free(&fs->families->tabs[i]);
    pthread_mutex_destroy(&fs->families->mu);
    free(fs->families);
    fs->families = NULL;
}

void fs_families_changed(cellfs *fs)
{
    if (!fs->families) return;
    fs_families *c = fs->families;
    pthread_mutex_lock(&c->mu);
    c->gen++;
    for (size_t i = 0; i < FS_FAMILIES_TABLES; i++) famtab_free(&c->tabs[i]);
    c->next = 0;
    pthread_mutex_unlock(&c->mu);
}

uint64_t fs_families_gen(cellfs *fs)
{
    if (!fs->families) return 0;
    pthread_mutex_lock(&fs->families->mu);
    uint64_t gen = fs->families->gen;
    pthread_mutex_unlock(&fs->families->mu);
    return gen;
}

/* The families of @p table as the store describes them now. */
static int describe(cellfs *fs, const char *table, fs_famtab *t)
{
    memset(t, 0, sizeof *t);
    kv_table_desc *d = NULL;
    kv_status st = kv_table_describe(&d, fs->store, table);
    if (st != KV_OK) return st == KV_INVALID ? -ENOENT : fs_fail(fs, st, "describe", table);
    int rc = 0;
    t->table = strdup(table);
    t->fams = calloc(d->nfamilies ? d->nfamilies : 1, sizeof *t->fams);
    if (!t->table || !t->fams) rc = -ENOMEM;
    for (size_t i = 0; rc == 0 && i < d->nfamilies; i++) {
        const kv_family_desc *f = &d->families[i];
        fs_fam *m = &t->fams[t->n];
        m->name = strdup(f->name);
        if (!m->name) {
            rc = -ENOMEM;
            break;
        }
        t->n++;
        m->nvb = f->new_version_behavior;
        if (f->ttl_seconds != KV_FOREVER) {
            t->any_ttl = true;
            m->ttl_ms = f->ttl_seconds > INT64_MAX / 1000 ? INT64_MAX : f->ttl_seconds * 1000;
        }
    }
    kv_table_desc_free(d);
    if (rc) famtab_free(t);
    return rc;
}

/* What @p t says of @p family (NULL: of the table only). */
static void answer(const fs_famtab *t, const char *family, fs_family_info *out)
{
    memset(out, 0, sizeof *out);
    out->table_has_ttl = t->any_ttl;
    if (!family) return;
    for (size_t i = 0; i < t->n; i++) {
        if (strcmp(t->fams[i].name, family) != 0) continue;
        out->found = true;
        out->ttl_ms = t->fams[i].ttl_ms;
        out->nvb = t->fams[i].nvb;
        return;
    }
}

/* Calls @p fn with the families of @p table (kept, or described now and
   kept on a cache_long mount). */
static int with_table(cellfs *fs, const char *table, void (*fn)(const fs_famtab *, void *),
                      void *arg)
{
    fs_families *c = fs->cache_long ? fs->families : NULL;
    if (c) {
        pthread_mutex_lock(&c->mu);
        for (size_t i = 0; i < FS_FAMILIES_TABLES; i++) {
            if (c->tabs[i].table && strcmp(c->tabs[i].table, table) == 0) {
                fn(&c->tabs[i], arg);
                pthread_mutex_unlock(&c->mu);
                return 0;
            }
        }
        pthread_mutex_unlock(&c->mu);
    }
    uint64_t gen = 0;
    if (c) {
        pthread_mutex_lock(&c->mu);
        gen = c->gen;
        pthread_mutex_unlock(&c->mu);
    }
    fs_famtab t;
    int rc = describe(fs, table, &t);
    if (rc) return rc;
    fn(&t, arg);
    if (c) {
        /* Kept unless a schema changed since the describe began (what it
           read may be the old one), or another thread kept it meanwhile. */
        pthread_mutex_lock(&c->mu);
        bool kept = c->gen != gen;
        for (size_t i = 0; !kept && i < FS_FAMILIES_TABLES; i++)
            kept = c->tabs[i].table && strcmp(c->tabs[i].table, table) == 0;
        if (!kept) {
            famtab_free(&c->tabs[c->next]);
            c->tabs[c->next] = t;
            c->next = (c->next + 1) % FS_FAMILIES_TABLES;
            memset(&t, 0, sizeof t);
        }
        pthread_mutex_unlock(&c->mu);
    }
    famtab_free(&t);
    return 0;
}

typedef struct lookup_arg {
    const char *family;
    fs_family_info *out;
} lookup_arg;

static void lookup_fn(const fs_famtab *t, void *arg)
{
    lookup_arg *a = arg;
    answer(t, a->family, a->out);
}

int fs_family_lookup(cellfs *fs, const char *table, const char *family, fs_family_info *out)
{
    lookup_arg a = { family, out };
    return with_table(fs, table, lookup_fn, &a);
}

typedef struct names_arg {
    char **names;
    int rc;
} names_arg;

static void names_fn(const fs_famtab *t, void *arg)
{
    names_arg *a = arg;
    a->names = calloc(t->n + 1, sizeof *a->names);
    a->rc = a->names ? 0 : -ENOMEM;
    for (size_t i = 0; a->rc == 0 && i < t->n; i++) {
        a->names[i] = strdup(t->fams[i].name);
        if (!a->names[i]) a->rc = -ENOMEM;
    }
}

int fs_family_names(cellfs *fs, const char *table, char ***names)
{
    names_arg a = { NULL, 0 };
    int rc = with_table(fs, table, names_fn, &a);
    if (rc == 0) rc = a.rc;
    if (rc && a.names) {
        for (char **n = a.names; *n; n++) free(*n);
        free(a.names);
        a.names = NULL;
    }
    *names = a.names;
    return rc;
}
