/*
 * table.h: fsx's table mode (-M), shared by its three files:
 * table_model.c keeps the model (rows, families, columns, each column's
 * retained versions and what deletes may still mask), table_check.c
 * compares the mounted table with it (readdir, stat, reads of q and q@ts),
 * table_mode.c runs the random operations and the remounts. Only fsx's
 * table mode includes this header.
 *
 * The universe of names is fixed and small (TM_ROWS rows, TM_FAMS
 * families, TM_QUALS qualifiers), so that operations often meet: the same
 * column is rewritten, renamed over and removed again. Timestamps are
 * milliseconds since the epoch, as cellfs shows them as mtimes.
 */
#ifndef FSX_TABLE_H
#define FSX_TABLE_H

#include <limits.h>

#include "fsx.h"

#define TM_ROWS 12
#define TM_FAMS 2
#define TM_QUALS 8
#define TM_VMAX 3            /* the largest VERSIONS of a family */
#define TM_NO_TS INT64_MIN

typedef struct tm_version {
    int64_t ts;              /* ms */
    uint8_t *val;            /* malloc'd; may be NULL when len is 0 */
    size_t len;
    uint64_t op;             /* the operation that wrote it */
} tm_version;

typedef struct tm_col {
    tm_version v[TM_VMAX];   /* retained versions, newest first */
    size_t nv;               /* 0: the cell does not exist */
    /* Distinct versions in the store, retained or not: HBase keeps the
       versions beyond VERSIONS until a compaction, and removing a newer
       one can bring them back. While written == nv there are none. */
    unsigned written;
    bool history_unknown;    /* only v[0] is known (after a rename over it) */
    /* What deletes may mask (HBase: deletes mask puts at or before their
       time): a put at a timestamp <= del_max, or at one of exact[], may
       be refused; if it succeeds it must show. */
    int64_t del_max;
    int64_t *exact;
    size_t nexact, capexact;
} tm_col;

typedef struct tm_row {
    bool exists;             /* the row directory is there */
    /* cellfs: made with mkdir during this mount (a young row lists only
       the families made in it and those with cells; every other row
       lists every family). */
    bool young;
    bool made[TM_FAMS];      /* family directories made with mkdir */
    tm_col col[TM_FAMS][TM_QUALS];
} tm_row;

typedef struct tm_model {
    tm_row rows[TM_ROWS];
} tm_model;

extern const char *const tm_row_names[TM_ROWS];
extern const char *const tm_fam_names[TM_FAMS];
extern const unsigned tm_fam_versions[TM_FAMS];   /* VERSIONS on cellfs */
extern const char *const tm_qual_names[TM_QUALS];

typedef struct tm_ctx {
    fsx_run run;
    const fsx_options *opt;
    fsx_rng rng;
    tm_model model;
    uint8_t *buf;            /* data to write: maxlen + 1 */
    uint8_t *got;            /* data read: maxlen + 2 */
} tm_ctx;

/* ---- table_model.c ---- */
void tm_model_free(tm_model *m);
/* The VERSIONS the model keeps for family @p f: 1 on a native directory
 * (a file has one content), the family's VERSIONS on cellfs. */
unsigned tm_versions(const tm_ctx *c, int f);
/* Adds a version (a copy of val) at ts, replacing one at the same ts and
 * keeping the newest tm_versions(). Returns 0, or -1 when out of memory. */
int tm_put(tm_ctx *c, tm_col *col, int f, int64_t ts, const uint8_t *val, size_t len,
           uint64_t op);
/* The column is deleted: no versions; puts at or before @p del_max may
 * be masked from now on. */
void tm_delete_column(tm_col *col, int64_t del_max);
/* Removes the version at @p ts (and remembers the exact mask). */
void tm_delete_version(tm_col *col, int64_t ts);
/* True when deletes in the store might hide a put at @p ts. */
bool tm_maybe_masked(const tm_col *col, int64_t ts);
/* The newest retained timestamp, or TM_NO_TS. */
int64_t tm_newest(const tm_col *col);
/* Cells in row r (columns with a version). */
size_t tm_row_cells(const tm_row *row);
/* Cells in family f of a row. */
size_t tm_fam_cells(const tm_row *row, int f);
/* Whether an existing row lists family f: on a native directory when it
 * was made; on cellfs a young row the families made in it and those with
 * cells, any other row every family (cellfs(1), rows). */
bool tm_fam_listed(const tm_ctx *c, const tm_row *row, int f);

/* ---- table_check.c ---- */
/* Paths: TABLEDIR/row, TABLEDIR/row/fam, TABLEDIR/row/fam/qual[@ts]. */
void tm_path(const tm_ctx *c, char *out, size_t len, int r, int f, int q, int64_t ts);
/* One cell: stat (size, mtime) and content of q, and of q@ts for each
 * retained version on cellfs; a cell absent from the model must be
 * absent (ENOENT). */
void tm_check_cell(tm_ctx *c, int r, int f, int q);
/* One row: its listing of families, theirs of cells, and every cell. */
void tm_check_row(tm_ctx *c, int r);
/* Everything: the table's rows, each row's families, each family's
 * files, every cell. */
void tm_check_all(tm_ctx *c, const char *when);
/* Reads the whole of @p path into c->got; returns the length, or -1 with
 * errno set. */
ssize_t tm_read_file(tm_ctx *c, const char *path);
/* Current wall-clock time in ms. */
int64_t tm_now_ms(void);

#endif
