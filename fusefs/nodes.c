/**
 * @file nodes.c
 * The node table (nodes.h): two chained hash tables over the same nodes,
 * by inode number and by (parent, name), doubled when they fill up, and
 * a list of the leaves (attached nodes with no attached node below them)
 * from the most to the least recently used, from which fs_nodes_victims
 * picks the names the kernel is asked to forget.
 */
#include "nodes.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct fs_node {
    fs_ino ino;
    fs_ino parent;           /* 0 when detached */
    char *name;                  /* NULL when detached */
    uint64_t lookups;            /* kernel references */
    uint32_t children;           /* attached nodes whose parent this is */
    bool replaced;               /* detached by a rename over its name */
    bool asked;                  /* handed out by fs_nodes_victims, not
                                    used or forgotten since (t->asked) */
    bool in_lru;                 /* on the leaves' list */
    fs_node *ino_next, *name_next;
    fs_node *lru_prev, *lru_next;  /* the leaves' list, most recent first */
};

#define NODES_INITIAL_BUCKETS 1024
/* Deeper than any path of the grammar (path.h): a longer chain of parents
   is a cycle, which the kernel never makes (a rename into itself fails). */
#define NODES_MAX_DEPTH 64

static size_t ino_hash(fs_ino ino, size_t nbuckets)
{
    uint64_t h = (uint64_t)ino * 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 17) & (nbuckets - 1);
}

/* The length of @p name without a version suffix "@<digits>". Names that
   differ only there share a hash chain, so that fs_nodes_versions finds
   them at once. */
static size_t stem_len(const char *name, size_t len)
{
    size_t i = len;
    while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9') i--;
    return i > 0 && i < len && name[i - 1] == '@' ? i - 1 : len;
}

static size_t name_hash(fs_ino parent, const char *name, size_t len, size_t nbuckets)
{
    len = stem_len(name, len);
    uint64_t h = 0xcbf29ce484222325ull ^ ((uint64_t)parent * 0x9e3779b97f4a7c15ull);
    for (size_t i = 0; i < len; i++) h = (h ^ (uint8_t)name[i]) * 0x100000001b3ull;
    return (size_t)(h ^ (h >> 29)) & (nbuckets - 1);
}

static fs_node *by_ino(fs_nodes *t, fs_ino ino)
{
    for (fs_node *n = t->by_ino[ino_hash(ino, t->nbuckets)]; n; n = n->ino_next)
        if (n->ino == ino) return n;
    return NULL;
}

static fs_node *by_name(fs_nodes *t, fs_ino parent, const char *name, size_t len)
{
    for (fs_node *n = t->by_name[name_hash(parent, name, len, t->nbuckets)]; n; n = n->name_next)
        if (n->parent == parent && strncmp(n->name, name, len) == 0 && n->name[len] == '\0')
            return n;
    return NULL;
}

static void lru_remove(fs_nodes *t, fs_node *n)
{
    if (!n->in_lru) return;
    if (n->lru_prev) n->lru_prev->lru_next = n->lru_next;
    else t->lru_head = n->lru_next;
    if (n->lru_next) n->lru_next->lru_prev = n->lru_prev;
    else t->lru_tail = n->lru_prev;
    n->lru_prev = n->lru_next = NULL;
    n->in_lru = false;
}

/* Puts @p n on the leaves' list, at its head (most recent) or its tail. */
static void lru_insert(fs_nodes *t, fs_node *n, bool head)
{
    n->in_lru = true;
    if (head) {
        n->lru_prev = NULL;
        n->lru_next = t->lru_head;
        if (t->lru_head) t->lru_head->lru_prev = n;
        else t->lru_tail = n;
        t->lru_head = n;
    } else {
        n->lru_next = NULL;
        n->lru_prev = t->lru_tail;
        if (t->lru_tail) t->lru_tail->lru_next = n;
        else t->lru_head = n;
        t->lru_tail = n;
    }
}

/* @p n was used: it goes to the head of the leaves' list (when a leaf),
   and is no longer one the kernel was asked to forget. */
static void touch(fs_nodes *t, fs_node *n)
{
    if (n->asked) {
        n->asked = false;
        t->asked--;
    }
    if (n->in_lru && t->lru_head != n) {
        lru_remove(t, n);
        lru_insert(t, n, true);
    }
}

/* @p n was attached below @p parent (by_ino of its parent, or NULL). */
static void child_added(fs_nodes *t, fs_node *parent)
{
    if (!parent) return;
    if (parent->children++ == 0) lru_remove(t, parent);
}

/* An attached node below @p parent went: a parent left without one is a
   leaf again, least recently used (what was below it was used after it). */
static void child_gone(fs_nodes *t, fs_node *parent)
{
    if (!parent || parent->children == 0) return;
    if (--parent->children == 0 && parent->name) lru_insert(t, parent, false);
}

static void name_unlink(fs_nodes *t, fs_node *n)
{
    if (!n->name) return;
    fs_node **pp = &t->by_name[name_hash(n->parent, n->name, strlen(n->name), t->nbuckets)];
    while (*pp && *pp != n) pp = &(*pp)->name_next;
    if (*pp) *pp = n->name_next;
    n->name_next = NULL;
}

static void name_link(fs_nodes *t, fs_node *n)
{
    size_t b = name_hash(n->parent, n->name, strlen(n->name), t->nbuckets);
    n->name_next = t->by_name[b];
    t->by_name[b] = n;
}

/* @p replaced: the name lives on with another node (a rename over it),
   not removed; fs_nodes_path tells the two apart. */
static void detach(fs_nodes *t, fs_node *n, bool replaced)
{
    if (n->name) child_gone(t, by_ino(t, n->parent));
    lru_remove(t, n);
    name_unlink(t, n);
    free(n->name);
    n->name = NULL;
    n->parent = 0;
    n->replaced = replaced;
}

/* Doubles both tables; on allocation failure they stay as they are
   (longer chains, nothing lost). */
static void grow(fs_nodes *t)
{
    size_t nb = t->nbuckets * 2;
    fs_node **bi = calloc(nb, sizeof *bi), **bn = calloc(nb, sizeof *bn);
    if (!bi || !bn) {
        free(bi);
        free(bn);
        return;
    }
    for (size_t i = 0; i < t->nbuckets; i++) {
        for (fs_node *n = t->by_ino[i], *next; n; n = next) {
            next = n->ino_next;
            size_t b = ino_hash(n->ino, nb);
            n->ino_next = bi[b];
            bi[b] = n;
        }
        for (fs_node *n = t->by_name[i], *next; n; n = next) {
            next = n->name_next;
            size_t b = name_hash(n->parent, n->name, strlen(n->name), nb);
            n->name_next = bn[b];
            bn[b] = n;
        }
    }
    free(t->by_ino);
    free(t->by_name);
    t->by_ino = bi;
    t->by_name = bn;
    t->nbuckets = nb;
}

int fs_nodes_init(fs_nodes *t)
{
    memset(t, 0, sizeof *t);
    t->nbuckets = NODES_INITIAL_BUCKETS;
    t->by_ino = calloc(t->nbuckets, sizeof *t->by_ino);
    t->by_name = calloc(t->nbuckets, sizeof *t->by_name);
    fs_node *root = calloc(1, sizeof *root);
    if (!t->by_ino || !t->by_name || !root) {
        free(t->by_ino);
        free(t->by_name);
        free(root);
        return -ENOMEM;
    }
    root->ino = FS_ROOT_INO;
    root->lookups = 1;
    t->by_ino[ino_hash(root->ino, t->nbuckets)] = root;
    t->count = 1;
    t->next_ino = FS_ROOT_INO + 1;
    pthread_mutex_init(&t->mu, NULL);
    return 0;
}

void fs_nodes_free(fs_nodes *t)
{
    if (!t->by_ino) return;
    for (size_t i = 0; i < t->nbuckets; i++)
        for (fs_node *n = t->by_ino[i], *next; n; n = next) {
            next = n->ino_next;
            free(n->name);
            free(n);
        }
    free(t->by_ino);
    free(t->by_name);
    t->by_ino = t->by_name = NULL;
    pthread_mutex_destroy(&t->mu);
}

size_t fs_nodes_count(fs_nodes *t)
{
    pthread_mutex_lock(&t->mu);
    size_t n = t->count;
    pthread_mutex_unlock(&t->mu);
    return n;
}

int fs_nodes_ref(fs_nodes *t, fs_ino parent, const char *name, fs_ino *ino)
{
    pthread_mutex_lock(&t->mu);
    int rc = 0;
    fs_node *p = by_ino(t, parent);
    fs_node *n = p && (p->name || p->ino == FS_ROOT_INO) ? by_name(t, parent, name, strlen(name))
                                                          : NULL;
    if (!p || (!p->name && p->ino != FS_ROOT_INO)) {
        rc = -ENOENT;
    } else if (!n) {
        n = calloc(1, sizeof *n);
        char *copy = strdup(name);
        if (!n || !copy) {
            free(n);
            free(copy);
            rc = -ENOMEM;
        } else {
            if (t->count >= t->nbuckets) grow(t);
            n->ino = t->next_ino++;
            n->parent = parent;
            n->name = copy;
            size_t b = ino_hash(n->ino, t->nbuckets);
            n->ino_next = t->by_ino[b];
            t->by_ino[b] = n;
            name_link(t, n);
            child_added(t, p);
            lru_insert(t, n, true);
            if (++t->count > t->peak) t->peak = t->count;
        }
    }
    if (rc == 0) {
        touch(t, n);
        n->lookups++;
        *ino = n->ino;
    }
    pthread_mutex_unlock(&t->mu);
    return rc;
}

static void forget_locked(fs_nodes *t, fs_ino ino, uint64_t count)
{
    if (ino == FS_ROOT_INO) return;
    fs_node *n = by_ino(t, ino);
    if (!n) return;
    n->lookups = count >= n->lookups ? 0 : n->lookups - count;
    if (n->lookups) return;
    if (n->asked) t->asked--;
    detach(t, n, false);
    fs_node **pp = &t->by_ino[ino_hash(ino, t->nbuckets)];
    while (*pp != n) pp = &(*pp)->ino_next;
    *pp = n->ino_next;
    free(n);
    t->count--;
}

void fs_nodes_unref(fs_nodes *t, fs_ino ino)
{
    fs_nodes_forget(t, ino, 1);
}

void fs_nodes_forget(fs_nodes *t, fs_ino ino, uint64_t n)
{
    pthread_mutex_lock(&t->mu);
    forget_locked(t, ino, n);
    pthread_mutex_unlock(&t->mu);
}

char *fs_nodes_path(fs_nodes *t, fs_ino ino, const char *child, int *err)
{
    pthread_mutex_lock(&t->mu);
    size_t len = child ? strlen(child) + 1 : 0;
    fs_node *n = by_ino(t, ino);
    size_t depth = 0;
    for (fs_node *m = n; m && m->ino != FS_ROOT_INO;) {
        if (!m->name || ++depth > NODES_MAX_DEPTH) {
            n = NULL;
            break;
        }
        len += strlen(m->name) + 1;
        m = by_ino(t, m->parent);
        if (!m) n = NULL;
    }
    if (n) touch(t, n);
    char *path = n ? malloc(len + 2) : NULL;
    if (path) {
        /* Built from the end: each component is preceded by a slash. */
        size_t at = len;
        path[at] = '\0';
        if (child) {
            at -= strlen(child);
            memcpy(path + at, child, strlen(child));
            path[--at] = '/';
        }
        for (fs_node *m = n; m->ino != FS_ROOT_INO; m = by_ino(t, m->parent)) {
            size_t l = strlen(m->name);
            at -= l;
            memcpy(path + at, m->name, l);
            path[--at] = '/';
        }
        if (len == 0) strcpy(path, "/");
    }
    pthread_mutex_unlock(&t->mu);
    if (!path) *err = n ? -ENOMEM : -ENOENT;
    return path;
}

bool fs_nodes_replaced(fs_nodes *t, fs_ino ino)
{
    pthread_mutex_lock(&t->mu);
    bool replaced = false;
    size_t depth = 0;
    for (fs_node *m = by_ino(t, ino); m && m->ino != FS_ROOT_INO && ++depth <= NODES_MAX_DEPTH;
         m = by_ino(t, m->parent)) {
        if (!m->name) {
            replaced = m->replaced;
            break;
        }
    }
    pthread_mutex_unlock(&t->mu);
    return replaced;
}

void fs_nodes_detach(fs_nodes *t, fs_ino parent, const char *name)
{
    pthread_mutex_lock(&t->mu);
    fs_node *n = by_name(t, parent, name, strlen(name));
    if (n) detach(t, n, false);
    pthread_mutex_unlock(&t->mu);
}

void fs_nodes_rename(fs_nodes *t, fs_ino parent, const char *name, fs_ino newparent,
                     const char *newname)
{
    pthread_mutex_lock(&t->mu);
    fs_node *n = by_name(t, parent, name, strlen(name));
    fs_node *old = by_name(t, newparent, newname, strlen(newname));
    fs_node *np = by_ino(t, newparent);
    bool np_attached = np && (np->name || np->ino == FS_ROOT_INO);
    char *copy = n && np_attached ? strdup(newname) : NULL;
    if (old && old != n) detach(t, old, true);
    if (n && copy) {
        child_gone(t, by_ino(t, n->parent));
        name_unlink(t, n);
        free(n->name);
        n->name = copy;
        n->parent = newparent;
        name_link(t, n);
        child_added(t, np);
        touch(t, n);
    } else if (n) {
        detach(t, n, true);      /* no memory, or no such directory: looked up anew */
    }
    pthread_mutex_unlock(&t->mu);
}

void fs_nodes_find(fs_nodes *t, const char *path, fs_ino *ino, fs_ino *parent,
                   size_t *name_off)
{
    *ino = 0;
    *parent = 0;
    *name_off = 0;
    pthread_mutex_lock(&t->mu);
    fs_ino at = FS_ROOT_INO;
    const char *s = path;
    while (*s == '/') s++;
    while (*s && at) {
        const char *e = strchr(s, '/');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        *parent = at;
        *name_off = (size_t)(s - path);
        fs_node *n = by_name(t, at, s, len);
        at = n ? n->ino : 0;
        s += len;
        while (*s == '/') s++;
    }
    *ino = at;
    if (*s) *parent = 0;         /* a directory on the way is unknown */
    pthread_mutex_unlock(&t->mu);
}

/* Appends @p ino to the list *out of *n (grown by doubling). False when
   out of memory. */
static bool list_add(fs_ino **out, size_t *n, size_t *cap, fs_ino ino)
{
    if (*n == *cap) {
        size_t c = *cap ? 2 * *cap : 8;
        fs_ino *v = realloc(*out, c * sizeof *v);
        if (!v) return false;
        *out = v;
        *cap = c;
    }
    (*out)[(*n)++] = ino;
    return true;
}

size_t fs_nodes_versions(fs_nodes *t, fs_ino parent, const char *stem, fs_ino **out)
{
    *out = NULL;
    size_t n = 0, cap = 0, len = strlen(stem);
    pthread_mutex_lock(&t->mu);
    for (fs_node *m = t->by_name[name_hash(parent, stem, len, t->nbuckets)]; m;
         m = m->name_next) {
        size_t ml = strlen(m->name);
        if (m->parent == parent && ml > len && strncmp(m->name, stem, len) == 0 &&
            stem_len(m->name, ml) == len && !list_add(out, &n, &cap, m->ino))
            break;
    }
    pthread_mutex_unlock(&t->mu);
    return n;
}

size_t fs_nodes_below(fs_nodes *t, fs_ino dir, fs_ino **out)
{
    *out = NULL;
    size_t n = 0, cap = 0;
    pthread_mutex_lock(&t->mu);
    for (size_t b = 0; b < t->nbuckets; b++)
        for (fs_node *m = t->by_ino[b]; m; m = m->ino_next) {
            fs_node *up = m;
            for (int depth = 0; up && up->name && depth < NODES_MAX_DEPTH; depth++) {
                if (up->parent == dir) break;
                up = by_ino(t, up->parent);
            }
            if (up && up->name && up->parent == dir && !list_add(out, &n, &cap, m->ino))
                goto out;
        }
out:
    pthread_mutex_unlock(&t->mu);
    return n;
}

size_t fs_nodes_walk(fs_nodes *t, const char *path, fs_ino *inos, size_t *offs, size_t max)
{
    size_t n = 0;
    for (const char *s = path; *s;) {
        while (*s == '/') s++;
        if (!*s) break;
        if (n == max) return max + 1;
        offs[n++] = (size_t)(s - path);
        while (*s && *s != '/') s++;
    }
    pthread_mutex_lock(&t->mu);
    fs_ino at = FS_ROOT_INO;
    for (size_t i = 0; i < n; i++) {
        const char *s = path + offs[i];
        const char *e = strchr(s, '/');
        fs_node *m = at ? by_name(t, at, s, e ? (size_t)(e - s) : strlen(s)) : NULL;
        at = m ? m->ino : 0;
        inos[i] = at;
    }
    pthread_mutex_unlock(&t->mu);
    return n;
}

void fs_nodes_set_max(fs_nodes *t, size_t max)
{
    pthread_mutex_lock(&t->mu);
    t->max = max;
    pthread_mutex_unlock(&t->mu);
}

size_t fs_nodes_peak(fs_nodes *t)
{
    pthread_mutex_lock(&t->mu);
    size_t n = t->peak;
    pthread_mutex_unlock(&t->mu);
    return n;
}

size_t fs_nodes_victims(fs_nodes *t, fs_nodes_victim *out, size_t max)
{
    size_t n = 0;
    pthread_mutex_lock(&t->mu);
    /* Down to seven eighths of the cap, so that each round asks for a
       batch, counting those asked already whose FORGET has not come. */
    size_t low = t->max - t->max / 8;
    size_t excess = t->max && t->count > t->asked + low ? t->count - t->asked - low : 0;
    if (excess > max) excess = max;
    fs_node *m = t->lru_tail, *first = NULL;
    while (n < excess && m && m != first) {
        fs_node *prev = m->lru_prev;
        char *name = strdup(m->name);
        if (!name) break;
        out[n].parent = m->parent;
        out[n].ino = m->ino;
        out[n].name = name;
        n++;
        /* Asked once: to the head, so that a name the kernel keeps (an
           open file, a cwd) is asked again only after every other. */
        if (!m->asked) t->asked++;
        m->asked = true;
        if (!first) first = m;
        lru_remove(t, m);
        lru_insert(t, m, true);
        m = prev;
    }
    pthread_mutex_unlock(&t->mu);
    return n;
}

void fs_nodes_victims_free(fs_nodes_victim *v, size_t n)
{
    for (size_t i = 0; i < n; i++) free(v[i].name);
}
