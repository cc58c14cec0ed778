/**
 * @file test_fs_nodes.c
 * Unit test of fusefs/nodes.c, the low-level mount's node table: random
 * lookups, forgets, removals and renames checked after every step against
 * a model (every node's path, the node count, path lookups, the version
 * names of a stem, the nodes below a directory, the leaves that a cap
 * would have the kernel forget), then a large table grown and forgotten
 * back to the root alone, and the cap's least-recently-used order.
 * Links nodes.c alone.
 */
#include "../../fusefs/nodes.h"
#include "testutil.h"

#include <errno.h>
#include <stdio.h>

#define MODEL_MAX 4096

typedef struct model_node {
    fs_ino ino, parent;          /* parent 0: detached */
    char name[8];
    uint64_t lookups;
    bool live;
    bool asked;                  /* fs_nodes_victims gave it, not used since */
} model_node;

typedef struct model {
    model_node n[MODEL_MAX];
    size_t count;                /* slots used (live or not) */
    fs_ino next_ino;
} model;

/* Inode numbers are handed out in order from the root's, as the model's
   slots are: slot i holds inode FS_ROOT_INO + i. */
static model_node *model_ino(model *m, fs_ino ino)
{
    if (ino < FS_ROOT_INO || ino - FS_ROOT_INO >= m->count) return NULL;
    model_node *x = &m->n[ino - FS_ROOT_INO];
    return x->live ? x : NULL;
}

static model_node *model_child(model *m, fs_ino parent, const char *name)
{
    for (size_t i = 0; i < m->count; i++)
        if (m->n[i].live && parent != 0 && m->n[i].parent == parent &&
            strcmp(m->n[i].name, name) == 0)
            return &m->n[i];
    return NULL;
}

static bool model_attached(const model_node *x)
{
    return x->ino == FS_ROOT_INO || x->parent != 0;
}

/* The model's path of @p ino, or false when it has none. */
static bool model_path(model *m, fs_ino ino, char *out, size_t cap)
{
    char parts[64][8];
    int depth = 0;
    model_node *x = model_ino(m, ino);
    while (x && x->ino != FS_ROOT_INO) {
        if (!x->parent || depth == 64) return false;
        strcpy(parts[depth++], x->name);
        x = model_ino(m, x->parent);
    }
    if (!x) return false;
    size_t at = 0;
    out[0] = '\0';
    for (int i = depth - 1; i >= 0; i--) at += (size_t)snprintf(out + at, cap - at, "/%s", parts[i]);
    if (depth == 0) snprintf(out, cap, "/");
    return true;
}

static size_t model_live(model *m)
{
    size_t n = 0;
    for (size_t i = 0; i < m->count; i++) n += m->n[i].live;
    return n;
}

static void check_all(fs_nodes *t, model *m)
{
    CHECK_EQ(fs_nodes_count(t), model_live(m));
    for (size_t i = 0; i < m->count; i++) {
        if (!m->n[i].live) continue;
        char want[1024];
        bool has = model_path(m, m->n[i].ino, want, sizeof want);
        if (has) m->n[i].asked = false;   /* used: fs_nodes_path */
        int err = 0;
        char *got = fs_nodes_path(t, m->n[i].ino, NULL, &err);
        CHECK(has == (got != NULL));
        if (has && got) {
            CHECK(strcmp(want, got) == 0);
            fs_ino ino, parent;
            size_t off;
            fs_nodes_find(t, got, &ino, &parent, &off);
            CHECK_EQ(ino, m->n[i].ino);
            if (m->n[i].ino != FS_ROOT_INO) {
                CHECK_EQ(parent, m->n[i].parent);
                CHECK(strcmp(got + off, m->n[i].name) == 0);
            }
            /* One walk finds the same node, and its parent one step up. */
            fs_ino inos[64];
            size_t offs[64];
            size_t n = fs_nodes_walk(t, got, inos, offs, 64);
            if (m->n[i].ino == FS_ROOT_INO) {
                CHECK_EQ(n, (size_t)0);
            } else if (n <= 64) {
                CHECK_EQ(inos[n - 1], m->n[i].ino);
                CHECK_EQ(n >= 2 ? inos[n - 2] : FS_ROOT_INO, m->n[i].parent);
                CHECK_EQ(offs[n - 1], off);
                CHECK_EQ(fs_nodes_walk(t, got, inos, offs, n - 1), n);
            }
        }
        if (!has) CHECK_EQ(err, -ENOENT);
        free(got);
    }
}

static int cmp_ino(const void *a, const void *b)
{
    fs_ino x = *(const fs_ino *)a, y = *(const fs_ino *)b;
    return x < y ? -1 : x > y;
}

/* Whether @p name is "<stem>@<digits>". */
static bool model_is_version(const char *name, const char *stem)
{
    size_t l = strlen(stem);
    if (strncmp(name, stem, l) != 0 || name[l] != '@' || !name[l + 1]) return false;
    for (const char *c = name + l + 1; *c; c++)
        if (*c < '0' || *c > '9') return false;
    return true;
}

/* Whether the attached node @p x lies below @p dir. */
static bool model_below(model *m, const model_node *x, fs_ino dir)
{
    for (int depth = 0; x && x->parent && depth < 64; depth++) {
        if (x->parent == dir) return true;
        x = model_ino(m, x->parent);
    }
    return false;
}

/* The table's list @p got (ng, freed here) holds the nodes of @p want (nw). */
static void check_same_set(fs_ino *got, size_t ng, fs_ino *want, size_t nw)
{
    CHECK_EQ(ng, nw);
    if (ng == nw && ng) {
        qsort(got, ng, sizeof *got, cmp_ino);
        qsort(want, nw, sizeof *want, cmp_ino);
        CHECK(memcmp(got, want, ng * sizeof *got) == 0);
    }
    free(got);
}

/* The version names of @p stem in @p parent, and every node below @p dir,
   as the model has them. */
static void check_groups(fs_nodes *t, model *m, fs_ino parent, const char *stem, fs_ino dir)
{
    fs_ino want[MODEL_MAX], *got;
    size_t nw = 0, ng = fs_nodes_versions(t, parent, stem, &got);
    for (size_t i = 0; i < m->count; i++)
        if (m->n[i].live && parent && m->n[i].parent == parent &&
            model_is_version(m->n[i].name, stem))
            want[nw++] = m->n[i].ino;
    check_same_set(got, ng, want, nw);
    nw = 0;
    ng = fs_nodes_below(t, dir, &got);
    for (size_t i = 0; i < m->count; i++)
        if (m->n[i].live && model_below(m, &m->n[i], dir)) want[nw++] = m->n[i].ino;
    check_same_set(got, ng, want, nw);
}

/* The leaves fs_nodes_victims picks from (attached nodes but the root with
   no attached node below them) are the model's: with a cap of 1 every one
   of them comes out, but for the nodes asked for before and not used
   (check_all used every node with a path) or forgotten since: the count
   less those, less 1. */
static void check_leaves(fs_nodes *t, model *m)
{
    static fs_nodes_victim v[MODEL_MAX];
    fs_ino want[MODEL_MAX];
    size_t nw = 0, asked = 0;
    for (size_t i = 1; i < m->count; i++) asked += m->n[i].live && m->n[i].asked;
    for (size_t i = 1; i < m->count; i++) {
        model_node *x = &m->n[i];
        if (!x->live || !x->parent) continue;
        bool leaf = true;
        for (size_t j = 1; j < m->count && leaf; j++)
            if (m->n[j].live && m->n[j].parent == x->ino) leaf = false;
        if (leaf) want[nw++] = x->ino;
    }
    fs_nodes_set_max(t, 1);
    size_t ng = fs_nodes_victims(t, v, MODEL_MAX);
    fs_nodes_set_max(t, 0);
    fs_ino *got = malloc((ng ? ng : 1) * sizeof *got);
    REQUIRE(got != NULL);
    size_t excess = model_live(m) - asked - 1;
    CHECK_EQ(ng, nw < excess ? nw : excess);
    for (size_t i = 0; i < ng; i++) {
        got[i] = v[i].ino;
        model_node *x = model_ino(m, v[i].ino);
        CHECK(x && x->parent == v[i].parent && strcmp(x->name, v[i].name) == 0);
        bool leaf = false;
        for (size_t j = 0; j < nw && !leaf; j++) leaf = want[j] == v[i].ino;
        CHECK(leaf);
        if (x) x->asked = true;
    }
    fs_nodes_victims_free(v, ng);
    if (ng == nw) check_same_set(got, ng, want, nw);
    else free(got);
}

/* A name of the random runs: n0..n5, some with a version suffix. */
static void random_name(char *out, size_t cap)
{
    static const char *const suffix[] = { "", "", "", "@1", "@22", "@x" };
    snprintf(out, cap, "n%u%s", (unsigned)rand() % 6, suffix[(unsigned)rand() % 6]);
}

static fs_ino pick_ino(model *m, unsigned r)
{
    if (m->count == 0) return FS_ROOT_INO;
    model_node *x = &m->n[r % m->count];
    return x->live ? x->ino : (fs_ino)(r % (m->next_ino + 2));
}

static void random_ops(unsigned seed, int steps)
{
    fs_nodes t;
    REQUIRE(fs_nodes_init(&t) == 0);
    static model m;
    memset(&m, 0, sizeof m);
    m.n[0] = (model_node){ .ino = FS_ROOT_INO, .lookups = 1, .live = true };
    m.count = 1;
    m.next_ino = FS_ROOT_INO + 1;
    srand(seed);
    for (int step = 0; step < steps && m.count < MODEL_MAX - 1; step++) {
        unsigned r = (unsigned)rand();
        char name[8], name2[8];
        random_name(name, sizeof name);
        random_name(name2, sizeof name2);
        fs_ino a = pick_ino(&m, (unsigned)rand()), b = pick_ino(&m, (unsigned)rand());
        switch (r % 8) {
        case 0: case 1: case 2: {     /* LOOKUP */
            fs_ino got = 0;
            int rc = fs_nodes_ref(&t, a, name, &got);
            model_node *p = model_ino(&m, a);
            if (!p || !model_attached(p)) {
                CHECK_EQ(rc, -ENOENT);
                break;
            }
            CHECK_EQ(rc, 0);
            model_node *c = model_child(&m, a, name);
            if (!c) {
                c = &m.n[m.count++];
                *c = (model_node){ .ino = m.next_ino++, .parent = a, .live = true };
                strcpy(c->name, name);
            }
            c->lookups++;
            c->asked = false;
            CHECK_EQ(got, c->ino);
            break;
        }
        case 3: case 4: {             /* FORGET */
            uint64_t n = 1 + (unsigned)rand() % 2;
            fs_nodes_forget(&t, a, n);
            model_node *x = model_ino(&m, a);
            if (x && x->ino != FS_ROOT_INO) {
                x->lookups = n >= x->lookups ? 0 : x->lookups - n;
                if (!x->lookups) x->live = false;
            }
            break;
        }
        case 5: {                     /* unlink / rmdir */
            fs_nodes_detach(&t, a, name);
            model_node *x = model_child(&m, a, name);
            if (x) x->parent = 0;
            break;
        }
        default: {                    /* rename (never into itself: the kernel forbids it) */
            model_node *x = model_child(&m, a, name), *old = model_child(&m, b, name2);
            bool into_itself = false;
            for (model_node *up = model_ino(&m, b); x && up; up = model_ino(&m, up->parent))
                if (up == x) into_itself = true;
            if (into_itself) break;
            fs_nodes_rename(&t, a, name, b, name2);
            if (old && old != x) old->parent = 0;
            model_node *to = model_ino(&m, b);
            if (x && to && model_attached(to)) {
                x->asked = false;
                x->parent = b;
                strcpy(x->name, name2);
            } else if (x) {
                x->parent = 0;           /* the directory is gone: detached */
            }
            break;
        }
        }
        check_all(&t, &m);
        check_leaves(&t, &m);
        char stem[8];
        snprintf(stem, sizeof stem, "n%u", (unsigned)rand() % 6);
        check_groups(&t, &m, pick_ino(&m, (unsigned)rand()), stem, pick_ino(&m, (unsigned)rand()));
    }
    fs_nodes_free(&t);
}

/* Many nodes: the tables grow, and forgetting everything leaves the root. */
static void grow_and_forget(void)
{
    fs_nodes t;
    REQUIRE(fs_nodes_init(&t) == 0);
    enum { DIRS = 100, FILES = 1000 };
    static fs_ino files[DIRS * FILES];
    fs_ino dirs[DIRS];
    char name[32];
    for (int d = 0; d < DIRS; d++) {
        snprintf(name, sizeof name, "row%d", d);
        REQUIRE(fs_nodes_ref(&t, FS_ROOT_INO, name, &dirs[d]) == 0);
        for (int f = 0; f < FILES; f++) {
            snprintf(name, sizeof name, "q%d", f);
            REQUIRE(fs_nodes_ref(&t, dirs[d], name, &files[d * FILES + f]) == 0);
        }
    }
    CHECK_EQ(fs_nodes_count(&t), (size_t)(1 + DIRS + DIRS * FILES));
    int err;
    char *p = fs_nodes_path(&t, files[57 * FILES + 999], NULL, &err);
    CHECK(p && strcmp(p, "/row57/q999") == 0);
    free(p);
    p = fs_nodes_path(&t, dirs[3], "child", &err);
    CHECK(p && strcmp(p, "/row3/child") == 0);
    free(p);
    p = fs_nodes_path(&t, FS_ROOT_INO, NULL, &err);
    CHECK(p && strcmp(p, "/") == 0);
    free(p);
    for (int i = 0; i < DIRS * FILES; i++) fs_nodes_forget(&t, files[i], 1);
    for (int d = 0; d < DIRS; d++) fs_nodes_forget(&t, dirs[d], 1);
    CHECK_EQ(fs_nodes_count(&t), (size_t)1);
    p = fs_nodes_path(&t, files[0], NULL, &err);
    CHECK(p == NULL && err == -ENOENT);
    fs_nodes_free(&t);
}

/* fs_nodes_victims' names of @p t, at most @p max, checked against the
   files f<first>... of directory @p dir in order (@p n of them), freed. */
static void check_victims(fs_nodes *t, size_t max, fs_ino dir, const int *want, size_t n)
{
    fs_nodes_victim v[64];
    size_t got = fs_nodes_victims(t, v, max);
    CHECK_EQ(got, n);
    for (size_t i = 0; i < got && i < n; i++) {
        char name[16];
        snprintf(name, sizeof name, want[i] < 0 ? "d" : "f%d", want[i]);
        CHECK_EQ(v[i].parent, want[i] < 0 ? FS_ROOT_INO : dir);
        CHECK(strcmp(v[i].name, name) == 0);
    }
    fs_nodes_victims_free(v, got);
}

/* The cap: the least recently used leaves go first, down to seven eighths
   of the cap, each asked for once; a use puts a name last in line; a
   directory is a leaf once what was below it is forgotten; a name the
   kernel keeps is asked for again only after every other. */
static void lru_order(void)
{
    fs_nodes t;
    REQUIRE(fs_nodes_init(&t) == 0);
    fs_ino d, f[40];
    char name[16];
    REQUIRE(fs_nodes_ref(&t, FS_ROOT_INO, "d", &d) == 0);
    for (int i = 0; i < 20; i++) {
        snprintf(name, sizeof name, "f%d", i);
        REQUIRE(fs_nodes_ref(&t, d, name, &f[i]) == 0);
    }
    check_victims(&t, 64, d, NULL, 0);           /* no cap */
    fs_nodes_set_max(&t, 16);                    /* 22 held, down to 14 */
    check_victims(&t, 3, d, (int[]){ 0, 1, 2 }, 3);
    check_victims(&t, 64, d, (int[]){ 3, 4, 5, 6, 7 }, 5);
    check_victims(&t, 64, d, NULL, 0);           /* asked for, FORGET to come */
    for (int i = 0; i < 8; i++) fs_nodes_forget(&t, f[i], 1);
    CHECK_EQ(fs_nodes_count(&t), (size_t)14);
    check_victims(&t, 64, d, NULL, 0);
    /* f8 used (a path), f9 looked up again: both go last in line. */
    int err;
    free(fs_nodes_path(&t, f[8], NULL, &err));
    fs_ino again;
    REQUIRE(fs_nodes_ref(&t, d, "f9", &again) == 0 && again == f[9]);
    for (int i = 20; i < 24; i++) {
        snprintf(name, sizeof name, "f%d", i);
        REQUIRE(fs_nodes_ref(&t, d, name, &f[i]) == 0);
    }
    check_victims(&t, 64, d, (int[]){ 10, 11, 12, 13 }, 4);
    /* f10 is kept by the kernel (no FORGET): it counts as on its way out,
       and is asked for again only after every other. */
    for (int i = 11; i < 14; i++) fs_nodes_forget(&t, f[i], 1);
    fs_nodes_set_max(&t, 2);                     /* 15 held, 1 asked for */
    check_victims(&t, 64, d, (int[]){ 14, 15, 16, 17, 18, 19, 8, 9, 20, 21, 22, 23 }, 12);
    fs_nodes_forget(&t, f[9], 2);
    for (int i = 14; i < 24; i++) fs_nodes_forget(&t, f[i], 1);
    fs_nodes_forget(&t, f[8], 1);
    CHECK_EQ(fs_nodes_count(&t), (size_t)3);     /* root, d, f10 */
    check_victims(&t, 64, d, NULL, 0);
    fs_nodes_set_max(&t, 1);
    check_victims(&t, 64, d, (int[]){ 10 }, 1);
    /* Once f10 goes, d is a leaf. */
    fs_nodes_forget(&t, f[10], 1);
    check_victims(&t, 64, d, (int[]){ -1 }, 1);
    fs_nodes_free(&t);
}

int main(void)
{
    for (unsigned seed = 1; seed <= 20; seed++) random_ops(seed, 600);
    grow_and_forget();
    lru_order();
    return test_finish("test_fs_nodes");
}
