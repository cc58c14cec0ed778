/*
 * table_model.c: the model of fsx's table mode (table.h): which versions
 * of each column a reader must see, and which puts deletes may mask.
 * No I/O; called by table_mode.c and table_check.c.
 *
 * The rules are HBase's as SPEC.md states them: a column keeps its newest
 * VERSIONS versions; a put at an existing timestamp replaces that
 * version's value; a delete of a column masks every put at or before its
 * time, a delete of one version masks puts at exactly that time.
 */
#include "table.h"

#include <stdlib.h>
#include <string.h>

const char *const tm_row_names[TM_ROWS] = {
    "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "row 10", "\303\27411" /* u-umlaut, 11 */,
};
/* cellfs gets these with a .schema; a native directory gets plain dirs. */
const char *const tm_fam_names[TM_FAMS] = {"cf", "b"};
const unsigned tm_fam_versions[TM_FAMS] = {3, 1};
const char *const tm_qual_names[TM_QUALS] = {"q0", "q1", "q2", "q3", "q4", "q5", ".q6", "q 7"};

static void free_version(tm_version *v) {
    free(v->val);
    memset(v, 0, sizeof *v);
}

void tm_model_free(tm_model *m) {
    for (int r = 0; r < TM_ROWS; r++)
        for (int f = 0; f < TM_FAMS; f++)
            for (int q = 0; q < TM_QUALS; q++) {
                tm_col *col = &m->rows[r].col[f][q];
                for (size_t i = 0; i < col->nv; i++)
                    free_version(&col->v[i]);
                free(col->exact);
                memset(col, 0, sizeof *col);
            }
}

unsigned tm_versions(const tm_ctx *c, int f) {
    return c->opt->native ? 1 : tm_fam_versions[f];
}

int tm_put(tm_ctx *c, tm_col *col, int f, int64_t ts, const uint8_t *val, size_t len,
           uint64_t op) {
    uint8_t *copy = NULL;
    if (len > 0) {
        copy = malloc(len);
        if (copy == NULL)
            return -1;
        memcpy(copy, val, len);
    }
    for (size_t i = 0; i < col->nv; i++) {
        if (col->v[i].ts == ts) {          /* same timestamp: the value is replaced */
            free(col->v[i].val);
            col->v[i].val = copy;
            col->v[i].len = len;
            col->v[i].op = op;
            return 0;
        }
    }
    size_t at = 0;
    while (at < col->nv && col->v[at].ts > ts)
        at++;
    unsigned keep = tm_versions(c, f);
    if (at >= keep) {                      /* older than every retained version */
        free(copy);
        col->written++;
        return 0;
    }
    if (col->nv == keep)
        free_version(&col->v[--col->nv]);
    memmove(&col->v[at + 1], &col->v[at], (col->nv - at) * sizeof col->v[0]);
    col->v[at] = (tm_version){ts, copy, len, op};
    col->nv++;
    col->written++;
    return 0;
}

void tm_delete_column(tm_col *col, int64_t del_max) {
    for (size_t i = 0; i < col->nv; i++) {
        if (col->v[i].ts > del_max)
            del_max = col->v[i].ts;
        free_version(&col->v[i]);
    }
    col->nv = 0;
    col->written = 0;
    col->history_unknown = false;
    if (col->del_max == TM_NO_TS || del_max > col->del_max)
        col->del_max = del_max;
}

void tm_delete_version(tm_col *col, int64_t ts) {
    for (size_t i = 0; i < col->nv; i++) {
        if (col->v[i].ts != ts)
            continue;
        free_version(&col->v[i]);
        memmove(&col->v[i], &col->v[i + 1], (col->nv - i - 1) * sizeof col->v[0]);
        col->nv--;
        memset(&col->v[col->nv], 0, sizeof col->v[0]);
        col->written--;
        break;
    }
    if (col->nexact == col->capexact) {
        size_t cap = col->capexact ? 2 * col->capexact : 8;
        int64_t *p = realloc(col->exact, cap * sizeof *p);
        if (p == NULL)
            abort();   /* a test tool: no way to go on with a wrong model */
        col->exact = p;
        col->capexact = cap;
    }
    col->exact[col->nexact++] = ts;
}

bool tm_maybe_masked(const tm_col *col, int64_t ts) {
    if (col->del_max != TM_NO_TS && ts <= col->del_max)
        return true;
    for (size_t i = 0; i < col->nexact; i++)
        if (col->exact[i] == ts)
            return true;
    return false;
}

int64_t tm_newest(const tm_col *col) { return col->nv > 0 ? col->v[0].ts : TM_NO_TS; }

size_t tm_fam_cells(const tm_row *row, int f) {
    size_t n = 0;
    for (int q = 0; q < TM_QUALS; q++)
        n += row->col[f][q].nv > 0;
    return n;
}

size_t tm_row_cells(const tm_row *row) {
    size_t n = 0;
    for (int f = 0; f < TM_FAMS; f++)
        n += tm_fam_cells(row, f);
    return n;
}

bool tm_fam_listed(const tm_ctx *c, const tm_row *row, int f) {
    if (c->opt->native)
        return row->made[f];
    return !row->young || row->made[f] || tm_fam_cells(row, f) > 0;
}
