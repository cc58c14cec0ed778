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
    fs_ino next_ino;
} fs_nodes;

/** An empty table with its root (FS_ROOT_INO, path "/"). 0 or -ENOMEM. */
int fs_nodes_init(fs_nodes *t);
/** Frees every node (at unmount). */
void fs_nodes_free(fs_nodes *t);

/** The number of nodes held (the root included). */
size_t fs_nodes_count(fs_nodes *t);

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
