/**
 * @file path.h
 * The path grammar of the filesystem view (SPEC section 3): turns a FUSE
 * path into what it names. Pure parsing: no store access (hashed long names
 * are resolved afterwards by fs_resolve in cells.c). Called by every ops_*
 * file; calls names.c.
 *
 *   /                                  FS_ROOT
 *   /<ns>                              FS_NS
 *   /<ns>/<table>[@<ts>]               FS_TABLE (with @<ts>: as-of view)
 *   /<ns>/<table>[@<ts>]/.schema       FS_SCHEMA
 *   /<ns>/<table>[@<ts>]/<row>         FS_ROW (or a scratch file, see ops)
 *   /<ns>/<table>[@<ts>]/<row>/<fam>   FS_FAMILY
 *   /<ns>/<table>[@<ts>]/<row>/<fam>/<q>[@<ts>]   FS_CELL
 */
#ifndef CELLFS_PATH_H
#define CELLFS_PATH_H

#include "names.h"

#include <kvcore.h>

typedef enum fs_kind {
    FS_ROOT, FS_NS, FS_TABLE, FS_SCHEMA, FS_ROW, FS_FAMILY, FS_CELL
} fs_kind;

typedef struct fs_path {
    fs_kind kind;
    char ns[KV_NAME_MAX + 1];
    char tname[KV_NAME_MAX + 1];          /* table qualifier, without ns */
    char table[2 * KV_NAME_MAX + 2];      /* "ns:table", as kvcore names it */
    bool asof;                            /* table@<ts> view: read-only */
    int64_t asof_ts;
    /* FS_ROW and below. row_err: the row component did not decode (only
       FS_ROW: the component may still name a scratch file). */
    int row_err;
    fs_name_key row_name;
    uint8_t *row;                         /* resolved key (row_name.bytes or
                                             row_buf after fs_resolve) */
    size_t row_len;
    uint8_t *row_buf;                     /* malloc'd by fs_resolve */
    char family[KV_NAME_MAX + 1];
    /* FS_CELL */
    fs_name_key qual_name;
    uint8_t *qual;
    size_t qual_len;
    uint8_t *qual_buf;
    bool has_version;                     /* q@<ts> */
    int64_t version;
    /* Raw components (point into the parsed path). */
    const char *row_text;
    size_t row_text_len;
    const char *qual_text;                /* without "@<ts>" */
    size_t qual_text_len;
    const char *last;
    size_t last_len;
    bool in_family;                       /* a scratch file in a family dir
                                             (fs_path_scratch) */
} fs_path;

/**
 * Parses @p path (absolute, as FUSE passes it). 0 on success; -ENOENT when
 * it cannot name anything (too deep, bad table suffix); -EINVAL for a row or
 * qualifier component that does not decode (FS_ROW: returned in row_err
 * instead); -ENAMETOOLONG for an over-long component. The result points
 * into @p path: keep path alive while using it; release with fs_path_free.
 */
int fs_path_parse(fs_path *out, const char *path);
void fs_path_free(fs_path *p);

/**
 * The temporary names tools derive from escaped names (rsync's
 * ".%.XXXXXX" and ".q%405.XXXXXX", editors' ".%2Eschema.swp") are not the
 * canonical name of any key, and rsync's name for a key's name of the
 * longest length (FS_NAME_SHORT_MAX) is longer than a key's name can be.
 * When @p parse_rc is -EINVAL or -ENAMETOOLONG for such a name in a family
 * directory (a qualifier starting with '.', without @<ts>, at most
 * FS_NAME_MAX bytes), this
 * turns @p p into a scratch-file path, as for files beside the rows: kind
 * FS_ROW, in_family set, and table the family directory's path (the
 * scratch registry keys files by table and name). Returns 1 when it did,
 * -ENAMETOOLONG when the directory's path is too long, else 0.
 */
int fs_path_scratch(fs_path *p, const char *path, int parse_rc);

/** The path of @p name in the directory @p dir ("/" included), malloc'd;
 *  NULL when out of memory. */
char *fs_path_child(const char *dir, const char *name);

/** True when the row or qualifier still needs a prefix-scan resolve. */
bool fs_path_hashed(const fs_path *p);

#endif
