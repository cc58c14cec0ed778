/**
 * @file nodes.h
 * The node table of the low-level FUSE API: the inode numbers the kernel
 * holds, each with its parent and name, so that a request on an inode
 * becomes a path for the path grammar (path.h). LOOKUP (and every reply
 * that hands the kernel an entry: create, mkdir, READDIRPLUS) adds a
 * reference, FORGET drops them; a node the kernel forgot is freed, so the
 * table is as large as the kernel's cache of this mount, whatever the
 * size of the store. Inode numbers are never reused within a mount.
 *
 * The kernel forgets a name when it wants (under memory pressure), so
 * the table may be capped (fs_nodes_set_max): past the cap,
 * fs_nodes_victims picks the least recently used names for the caller to
 * ask the kernel to forget (evict.c), and each is freed when its FORGET
 * comes. A name asked for is found again by LOOKUP, with a new inode
 * number once its node was freed.
 *
 * A name that is removed (unlink, rmdir, or replaced by a rename) detaches
 * its node: the node lives on while the kernel holds it (open files), but
 * has no path any more.
 *
 * Knows nothing of libfuse (unit-tested alone: tests/unit/test_fs_nodes.c).
 *
 * Thread safety: every function takes the table's own mutex, which is
 * innermost (nothing else is called under it).
 */
#ifndef CELLFS_NODES_H
#define CELLFS_NODES_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** An inode number, as the kernel's FUSE protocol has them. */
typedef uint64_t fs_ino;
/** The root's, which the protocol fixes (FUSE_ROOT_ID). */
#define FS_ROOT_INO 1

typedef struct fs_node fs_node;

typedef struct fs_nodes {
    pthread_mutex_t mu;
    fs_node **by_ino;            /* hash of inode numbers */
    fs_node **by_name;           /* hash of (parent, name) of attached nodes */
    size_t nbuckets;             /* of each; grows with count */
    size_t count;
    size_t peak;                 /* the largest count so far */
    size_t max;                  /* the cap (fs_nodes_set_max); 0: none */
    size_t asked;                /* nodes fs_nodes_victims handed out, not
                                    used or forgotten since */
    fs_node *lru_head, *lru_tail;  /* the leaves, most recently used first */
    fs_ino next_ino;
} fs_nodes;

/** An empty table with its root (FS_ROOT_INO, path "/"). 0 or -ENOMEM. */
int fs_nodes_init(fs_nodes *t);
/** Frees every node (at unmount). */
void fs_nodes_free(fs_nodes *t);

/** The number of nodes held (the root included). */
size_t fs_nodes_count(fs_nodes *t);
/** The largest number of nodes held at once so far. */
size_t fs_nodes_peak(fs_nodes *t);

/** Caps the nodes held at @p max (0: no cap, the default): see
 *  fs_nodes_victims. */
void fs_nodes_set_max(fs_nodes *t, size_t max);

/** A name for the kernel to forget: @p name in directory @p parent, which
 *  names node @p ino. */
typedef struct fs_nodes_victim {
    fs_ino parent, ino;
    char *name;                  /* malloc'd */
} fs_nodes_victim;

/**
 * When the table holds more nodes than its cap, the least recently used
 * of its leaves (attached nodes other than the root with no attached node
 * below them; a directory becomes one when what was below it is
 * forgotten), at most @p max of them, in *out: enough that the nodes held,
 * less those asked for before and neither used (a reference, a path) nor
 * forgotten since, come down to seven eighths of the cap. "Used" is what
 * reaches the daemon: fs_nodes_ref and fs_nodes_path. Each returned node
 * counts as asked for and goes to the most recently used end, so that a
 * name the kernel keeps (an open file, a cwd) comes back only after every
 * other. Returns how many; free the names with fs_nodes_victims_free.
 * The table is not changed otherwise: the node goes at its FORGET.
 */
size_t fs_nodes_victims(fs_nodes *t, fs_nodes_victim *out, size_t max);
/** Frees the names of @p n victims. */
void fs_nodes_victims_free(fs_nodes_victim *v, size_t n);

/**
 * The node of @p name in the directory @p parent, made when the table has
 * none, with one more kernel reference: call it when a reply hands the
 * entry to the kernel. 0 with *ino set, -ENOENT when @p parent is unknown
 * or detached, -ENOMEM.
 */
int fs_nodes_ref(fs_nodes *t, fs_ino parent, const char *name, fs_ino *ino);
/** Takes back a reference fs_nodes_ref gave when the reply then failed. */
void fs_nodes_unref(fs_nodes *t, fs_ino ino);
/** FORGET: drops @p n kernel references; a node left with none is freed
 *  (the root never is). */
void fs_nodes_forget(fs_nodes *t, fs_ino ino, uint64_t n);

/**
 * The path of @p ino ("/" for the root), with "/" @p child appended when
 * @p child is non-NULL (malloc'd). NULL with *err -ENOENT when the node is
 * unknown or detached (its name was removed), -ENOMEM.
 */
char *fs_nodes_path(fs_nodes *t, fs_ino ino, const char *child, int *err);

/**
 * Whether @p ino, or a directory above it, was detached by a rename over
 * its name (fs_nodes_rename): the name holds another node now, which a new
 * lookup finds. False when it is attached, unknown, or its name was
 * removed (fs_nodes_detach).
 */
bool fs_nodes_replaced(fs_nodes *t, fs_ino ino);

/** A name was removed: its node (if any) is detached. */
void fs_nodes_detach(fs_nodes *t, fs_ino parent, const char *name);
/** A rename succeeded: the node of @p name moves to @p newname in
 *  @p newparent, and the node that name held before is detached (when
 *  @p newparent is unknown or detached itself, the moved node is too). */
void fs_nodes_rename(fs_nodes *t, fs_ino parent, const char *name, fs_ino newparent,
                     const char *newname);

/**
 * Finds what the kernel may hold of @p path: *ino its node (0 when the
 * table has none) and, for a path other than "/", *parent the node of its
 * directory (0 when none) and *name_off the offset of its last component
 * in @p path. For cache invalidation.
 */
void fs_nodes_find(fs_nodes *t, const char *path, fs_ino *ino, fs_ino *parent,
                   size_t *name_off);

/**
 * The nodes of the version names of @p stem in directory @p parent: the
 * attached names "<stem>@<digits>" (q@<ts> beside q). Returns how many,
 * with their inode numbers in *out (malloc'd; NULL when none or out of
 * memory, then fewer are returned). Costs what those names cost, not the
 * size of the directory. For cache invalidation.
 */
size_t fs_nodes_versions(fs_nodes *t, fs_ino parent, const char *stem, fs_ino **out);
/**
 * Every attached node below the directory @p dir, at any depth: how many,
 * inode numbers in *out as for fs_nodes_versions. Walks the whole table:
 * for rare changes that reach a whole subtree (a table's schema).
 */
size_t fs_nodes_below(fs_nodes *t, fs_ino dir, fs_ino **out);
/**
 * fs_nodes_find for every component of @p path at once (one walk, one
 * lock): inos[i] is the node of the i-th component ("/a/b": a, then b), 0
 * when the table has none (then every later one is 0 too), and offs[i] its
 * offset in @p path. Returns the number of components, or max + 1 (with
 * nothing filled in) when there are more than @p max. For cache
 * invalidation.
 */
size_t fs_nodes_walk(fs_nodes *t, const char *path, fs_ino *inos, size_t *offs, size_t max);

#endif
