/**
 * @file filter_eval.c
 * Runs a compiled filter (filter_ast.h) over the cells of one row as HBase's
 * region server does; implements filter.h for the read paths (engine,
 * model, Cloud Bigtable). Uses libc only (filter_regex.c for regexstring:).
 *
 * The flow, per row (HBase 2's RegionScannerImpl, UserScanQueryMatcher and
 * FilterList, whose behaviour is copied, not their code):
 *  - filterRowKey first (kv_filter_run_row_key): row-key filters decide,
 *    an AND list filters the row when any member does, an OR list when all
 *    do; PageFilter, WHILE and InclusiveStopFilter can end the scan;
 *  - then each cell in cell order, unless an earlier answer skipped it:
 *    if the filter says filterAllRemaining, no further cell is offered and
 *    the scan ends after this row; else filterCell answers INCLUDE,
 *    INCLUDE_AND_NEXT_COL, INCLUDE_AND_SEEK_NEXT_ROW, SKIP, NEXT_COL,
 *    NEXT_ROW or SEEK_NEXT_USING_HINT. NEXT_ROW skips the rest of the
 *    family's cells in the row (HBase's store scanner of that family seeks
 *    to the next row); a hint skips the family's columns before it. An
 *    included cell counts against the read's VERSIONS per column
 *    (versionsAfterFilter): past it, the cell is dropped and the column's
 *    older versions are not offered. KeyOnlyFilter transforms included
 *    cells;
 *  - AND offers a cell to its right side only while the answer so far is
 *    an INCLUDE kind, and merges answers to the most restrictive; OR offers
 *    it to both sides (except a side whose last NEXT_COL, NEXT_ROW or hint
 *    still covers it, which keeps that answer without being asked) and
 *    merges to the least restrictive;
 *  - filterRowCells (DependentColumnFilter, SingleColumnValueExcludeFilter)
 *    on the row's included cells, then, when cells remain, filterRow
 *    (SingleColumnValueFilter, PageFilter, SKIP, WHILE) may drop the row;
 *  - state is reset between rows except PageFilter's row count and WHILE's
 *    latch, which last the whole scan.
 * The readers offer the filter up to the family's VERSIONS versions of each
 * column (maxVersionToCheck) and set the read's VERSIONS with
 * kv_filter_run_set_versions.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"
#include "filter_ast.h"

typedef enum rc {
    RC_INCLUDE,
    RC_INCLUDE_NEXT_COL,          /* INCLUDE_AND_NEXT_COL */
    RC_INCLUDE_NEXT_ROW,          /* INCLUDE_AND_SEEK_NEXT_ROW */
    RC_SKIP,
    RC_NEXT_COL,
    RC_NEXT_ROW,
    RC_HINT,                      /* SEEK_NEXT_USING_HINT */
} rc;

/* KeyOnlyFilter's transformation of an included cell. */
enum { XF_NONE, XF_EMPTY, XF_LENGTH, XF_ZERO_LENGTH };

typedef struct node_state {
    bool key_out;                 /* row-key filters: filterRowKey refused the row */
    bool done;                    /* filterAllRemaining latch (WHILE, InclusiveStop) */
    bool a, b;                    /* FirstKeyOnly: found; SCV: found, matched;
                                     ColumnValue: found; SKIP: filter the row */
    int64_t count;                /* ColumnCountGet / ColumnPagination per row;
                                     PageFilter: rows accepted in the scan */
    int64_t *stamps;              /* DependentColumnFilter's timestamps */
    size_t nstamps, capstamps;
    const uint8_t *hint;          /* qualifier hinted by the last HINT answer */
    size_t hint_len;
    bool hint_set;
    rc prev[2];                   /* OR: each side's last answer ... */
    size_t prev_cell[2];          /* ... and the cell it was for (SIZE_MAX: none) */
    bool included[2];             /* OR: which side included the current cell */
    uint8_t xf[2];                /* OR: each side's transformation */
} node_state;

struct kv_filter_run {
    const kv_filter *filter;
    bool reversed;                /* of the last kv_filter_run_row_key call */
    bool nomem;                   /* a DependentColumnFilter set could not grow */
    int32_t versions;             /* cap per column after the filter; 0 none */
    node_state *st;               /* per node, by kv_fnode.id */
    const kv_cell *cells;         /* the row being filtered */
    uint8_t *lenval;              /* 4 * cap: KeyOnlyFilter(true) values */
    uint8_t *keep;                /* cap: included cells, and their transformation */
    size_t cap;
};

static const uint8_t empty_value[1];

/* ------------------------------------------------------------------------ */
/* Comparisons                                                               */
/* ------------------------------------------------------------------------ */

static int bytes_cmp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen) {
    size_t n = alen < blen ? alen : blen;
    int c = n ? memcmp(a, b, n) : 0;
    if (c) return c;
    return (alen > blen) - (alen < blen);
}

static bool contains_nocase(const uint8_t *hay, size_t hlen, const uint8_t *needle, size_t nlen) {
    if (nlen == 0) return true;
    for (size_t i = 0; i + nlen <= hlen; i++) {
        size_t k = 0;
        while (k < nlen && tolower(hay[i + k]) == needle[k]) k++;
        if (k == nlen) return true;
    }
    return false;
}

/* "value OP comparator", HBase's order for CompareFilter: true if the
   value passes (HBase's compare* returning false). */
static bool cmp_pass(const kv_fnode *n, const uint8_t *v, size_t len) {
    const kv_fcomparator *c = &n->cmp;
    int r;
    switch (c->kind) {
    case KV_FCMP_BINARY:
        r = bytes_cmp(v, len, c->arg.data, c->arg.len);
        break;
    case KV_FCMP_BINARY_PREFIX:
        r = bytes_cmp(v, len < c->arg.len ? len : c->arg.len, c->arg.data, c->arg.len);
        break;
    case KV_FCMP_SUBSTRING:
        r = contains_nocase(v, len, c->arg.data, c->arg.len) ? 0 : 1;
        break;
    case KV_FCMP_REGEX:
        /* out of memory (-1) counts as no match: the cell is not let
           through unchecked */
        r = kv_regex_find(c->re, v, len) == 1 ? 0 : 1;
        break;
    default:
        return false;
    }
    switch (n->op) {
    case KV_CMP_LESS: return r < 0;
    case KV_CMP_LESS_OR_EQUAL: return r <= 0;
    case KV_CMP_EQUAL: return r == 0;
    case KV_CMP_NOT_EQUAL: return r != 0;
    case KV_CMP_GREATER_OR_EQUAL: return r >= 0;
    case KV_CMP_GREATER: return r > 0;
    default: return false;
    }
}

static bool has_prefix(const uint8_t *v, size_t len, const kv_fbytes *p) {
    return len >= p->len && (p->len == 0 || memcmp(v, p->data, p->len) == 0);
}

static bool same_family(const kv_cell *a, const kv_cell *b) { return strcmp(a->family, b->family) == 0; }

static bool same_column(const kv_cell *a, const kv_cell *b) {
    return same_family(a, b) &&
           bytes_cmp(a->qualifier, a->qualifier_len, b->qualifier, b->qualifier_len) == 0;
}

static bool is_column(const kv_cell *c, const kv_fbytes *family, const kv_fbytes *qualifier) {
    size_t flen = strlen(c->family);
    return flen == family->len && (flen == 0 || memcmp(c->family, family->data, flen) == 0) &&
           bytes_cmp(c->qualifier, c->qualifier_len, qualifier->data, qualifier->len) == 0;
}

/* ------------------------------------------------------------------------ */
/* Row keys                                                                  */
/* ------------------------------------------------------------------------ */

static bool after_start(const kv_frange *g, const uint8_t *row, size_t len) {
    if (g->start.len == 0) return true;
    int c = bytes_cmp(row, len, g->start.data, g->start.len);
    return c > 0 || (c == 0 && g->start_inclusive);
}

static bool before_stop(const kv_frange *g, const uint8_t *row, size_t len) {
    if (g->stop.len == 0) return true;
    int c = bytes_cmp(row, len, g->stop.data, g->stop.len);
    return c < 0 || (c == 0 && g->stop_inclusive);
}

/* MultiRowRangeFilter: whether row is in a range; *stop when every range
   lies behind it in scan order. */
static bool in_ranges(const kv_fnode *n, const uint8_t *row, size_t len, bool reversed, bool *stop) {
    bool behind_all = true;
    for (size_t i = 0; i < n->nranges; i++) {
        const kv_frange *g = &n->ranges[i];
        bool after = after_start(g, row, len), before = before_stop(g, row, len);
        if (after && before) return true;
        if (reversed ? after : before) behind_all = false;
    }
    *stop = behind_all;
    return false;
}

/* Row-key filters: pass, and *stop when no later row can pass. */
static bool row_leaf(const kv_fnode *n, const uint8_t *row, size_t len, bool reversed, bool *stop) {
    *stop = false;
    switch (n->kind) {
    case KV_FN_PREFIX: {
        const kv_fbytes *p = &n->bytes[0];
        if (has_prefix(row, len, p)) return true;
        int c = bytes_cmp(row, len < p->len ? len : p->len, p->data, p->len);
        *stop = reversed ? c < 0 : c > 0;
        return false;
    }
    case KV_FN_ROW:
        return cmp_pass(n, row, len);
    case KV_FN_INCLUSIVE_STOP: {
        int c = bytes_cmp(row, len, n->bytes[0].data, n->bytes[0].len);
        bool past = reversed ? c < 0 : c > 0;
        *stop = past;
        return !past;
    }
    case KV_FN_MULTI_ROW_RANGE:
        return in_ranges(n, row, len, reversed, stop);
    default:
        return true;
    }
}

/* filterAllRemaining of node n. */
static bool all_remaining(const kv_filter_run *r, const kv_fnode *n) {
    const node_state *s = &r->st[n->id];
    switch (n->kind) {
    case KV_FN_AND: return all_remaining(r, n->left) || all_remaining(r, n->right);
    case KV_FN_OR: return all_remaining(r, n->left) && all_remaining(r, n->right);
    case KV_FN_WHILE: return s->done || all_remaining(r, n->left);
    case KV_FN_SKIP: return all_remaining(r, n->left);
    case KV_FN_PAGE: return s->count >= n->count;
    case KV_FN_INCLUSIVE_STOP: return s->done;
    case KV_FN_COLUMN_COUNT_GET: return s->count > n->count;
    default: return false;
    }
}

static bool row_key(kv_filter_run *r, const kv_fnode *n, const uint8_t *row, size_t len,
                    bool reversed, bool *stop);

/* filterRowKey of a member of a list: every member sees the row (as in
   HBase's FilterList), and a member that already filters every remaining
   row, judged before it sees this one, filters it too. */
static bool member_row_key(kv_filter_run *r, const kv_fnode *n, const uint8_t *row, size_t len,
                           bool reversed, bool *stop) {
    bool done_before = all_remaining(r, n);
    bool filtered = row_key(r, n, row, len, reversed, stop);
    return done_before || filtered;
}

/* filterRowKey of node n (true: the row is filtered); *stop when no later
   row can pass this node. */
static bool row_key(kv_filter_run *r, const kv_fnode *n, const uint8_t *row, size_t len,
                    bool reversed, bool *stop) {
    node_state *s = &r->st[n->id];
    bool sa = false, sb = false, a, b;
    *stop = false;
    switch (n->kind) {
    case KV_FN_AND:   /* every member sees the row, as HBase's list does */
        a = member_row_key(r, n->left, row, len, reversed, &sa);
        b = member_row_key(r, n->right, row, len, reversed, &sb);
        *stop = sa || sb;
        return a || b;
    case KV_FN_OR:
        a = member_row_key(r, n->left, row, len, reversed, &sa);
        b = member_row_key(r, n->right, row, len, reversed, &sb);
        *stop = sa && sb;
        return a && b;
    case KV_FN_SKIP:
        return row_key(r, n->left, row, len, reversed, stop);
    case KV_FN_WHILE:
        if (s->done) { *stop = true; return true; }
        if (!row_key(r, n->left, row, len, reversed, &sa)) return false;
        s->done = true;
        *stop = true;
        return true;
    case KV_FN_PAGE:
        *stop = s->count >= n->count;
        return *stop;
    case KV_FN_PREFIX:
    case KV_FN_ROW:
    case KV_FN_INCLUSIVE_STOP:
    case KV_FN_MULTI_ROW_RANGE:
        s->key_out = !row_leaf(n, row, len, reversed, stop);
        if (n->kind == KV_FN_INCLUSIVE_STOP) s->done = *stop;
        return s->key_out;
    default:
        return false;
    }
}

/* Per-row state back to the start of a row (HBase's reset()). */
static void reset_row(kv_filter_run *r, const kv_fnode *n) {
    if (!n) return;
    node_state *s = &r->st[n->id];
    s->a = s->b = false;
    if (n->kind != KV_FN_PAGE) s->count = 0;
    s->nstamps = 0;
    s->hint_set = false;
    s->prev_cell[0] = s->prev_cell[1] = SIZE_MAX;
    reset_row(r, n->left);
    reset_row(r, n->right);
}

bool kv_filter_run_row_key(kv_filter_run *r, const uint8_t *row, size_t row_len, bool reversed,
                           bool *stop) {
    r->reversed = reversed;
    reset_row(r, r->filter->root);
    bool filtered = all_remaining(r, r->filter->root);
    bool key_stop = false;
    /* each member sees the row even when the scan has ended, as HBase's
       list calls every filterRowKey */
    filtered |= row_key(r, r->filter->root, row, row_len, reversed, &key_stop);
    *stop = key_stop || all_remaining(r, r->filter->root);
    if (!filtered) *stop = false;
    return !filtered;
}

/* ------------------------------------------------------------------------ */
/* Cells                                                                     */
/* ------------------------------------------------------------------------ */

static bool is_include(rc c) { return c == RC_INCLUDE || c == RC_INCLUDE_NEXT_COL || c == RC_INCLUDE_NEXT_ROW; }

/* How far an answer skips: 0 this cell, 1 the column, 2 the family's row. */
static int extent(rc c) {
    switch (c) {
    case RC_INCLUDE_NEXT_COL: case RC_NEXT_COL: return 1;
    case RC_INCLUDE_NEXT_ROW: case RC_NEXT_ROW: return 2;
    default: return 0;
    }
}

static rc make_rc(bool include, int ext) {
    static const rc inc[3] = { RC_INCLUDE, RC_INCLUDE_NEXT_COL, RC_INCLUDE_NEXT_ROW };
    static const rc exc[3] = { RC_SKIP, RC_NEXT_COL, RC_NEXT_ROW };
    return include ? inc[ext] : exc[ext];
}

/* FilterListWithAND's merge: the most restrictive; a hint wins. */
static rc merge_and(rc a, rc b) {
    if (a == RC_HINT || b == RC_HINT) return RC_HINT;
    int ea = extent(a), eb = extent(b);
    return make_rc(is_include(a) && is_include(b), ea > eb ? ea : eb);
}

/* FilterListWithOR's merge: the least restrictive; two hints stay a hint,
   a hint and anything else skip only this cell. */
static rc merge_or(rc a, rc b) {
    if (a == RC_HINT && b == RC_HINT) return RC_HINT;
    bool inc = is_include(a) || is_include(b);
    int ea = a == RC_HINT ? 0 : extent(a), eb = b == RC_HINT ? 0 : extent(b);
    if (a == RC_HINT || b == RC_HINT) return make_rc(inc, 0);
    return make_rc(inc, ea < eb ? ea : eb);
}

static uint8_t xf_then(uint8_t first, uint8_t then) {
    if (!then) return first;
    if (then == XF_LENGTH && (first == XF_EMPTY || first == XF_ZERO_LENGTH)) return XF_ZERO_LENGTH;
    return then;
}

/* The qualifier a hinting filter asks to seek to (NULL: none). */
static const uint8_t *node_hint(const kv_filter_run *r, const kv_fnode *n, size_t *len);

static rc filter_cell(kv_filter_run *r, const kv_fnode *n, size_t i, uint8_t *xf);

/* DependentColumnFilter's timestamp set. */
static void add_stamp(kv_filter_run *r, node_state *s, int64_t ts) {
    for (size_t k = 0; k < s->nstamps; k++)
        if (s->stamps[k] == ts) return;
    if (s->nstamps == s->capstamps) {
        size_t cap = s->capstamps ? 2 * s->capstamps : 8;
        int64_t *ns = realloc(s->stamps, cap * sizeof *ns);
        if (!ns) { r->nomem = true; return; }
        s->stamps = ns;
        s->capstamps = cap;
    }
    s->stamps[s->nstamps++] = ts;
}

/* Whether the OR side k's last answer still covers cell i (HBase's
   calculateReturnCodeByPrevCellAndRC); *out is that answer. */
static bool covered(const kv_filter_run *r, const kv_fnode *side, const node_state *s, int k, size_t i,
                    rc *out) {
    if (s->prev_cell[k] == SIZE_MAX) return false;
    const kv_cell *prev = &r->cells[s->prev_cell[k]], *c = &r->cells[i];
    switch (s->prev[k]) {
    case RC_NEXT_COL:
    case RC_INCLUDE_NEXT_COL:
        if (!same_column(prev, c)) return false;
        *out = RC_NEXT_COL;
        return true;
    case RC_NEXT_ROW:
    case RC_INCLUDE_NEXT_ROW:
        if (!same_family(prev, c)) return false;
        *out = RC_NEXT_ROW;
        return true;
    case RC_HINT: {
        size_t hl;
        const uint8_t *h = node_hint(r, side, &hl);
        if (!h || !same_family(prev, c) || bytes_cmp(c->qualifier, c->qualifier_len, h, hl) >= 0)
            return false;
        *out = RC_HINT;
        return true;
    }
    default:
        return false;
    }
}

static rc or_cell(kv_filter_run *r, const kv_fnode *n, size_t i, uint8_t *xf) {
    node_state *s = &r->st[n->id];
    const kv_fnode *side[2] = { n->left, n->right };
    bool have = false, every_hint = true;
    rc merged = RC_SKIP;
    for (int k = 0; k < 2; k++) {
        s->included[k] = false;
        s->xf[k] = XF_NONE;
        if (all_remaining(r, side[k])) continue;
        rc local;
        if (!covered(r, side[k], s, k, i, &local)) local = filter_cell(r, side[k], i, &s->xf[k]);
        s->prev[k] = local;
        s->prev_cell[k] = i;
        if (local != RC_HINT) every_hint = false;
        merged = have ? merge_or(merged, local) : local;
        have = true;
        s->included[k] = is_include(local);
    }
    if (!have) return RC_SKIP;
    if (every_hint) return RC_HINT;
    for (int k = 0; k < 2; k++)
        if (s->included[k]) *xf = xf_then(*xf, s->xf[k]);
    return merged;
}

/* filterCell of node n for cell i; *xf collects KeyOnlyFilter's
   transformation of the cell. */
static rc filter_cell(kv_filter_run *r, const kv_fnode *n, size_t i, uint8_t *xf) {
    node_state *s = &r->st[n->id];
    const kv_cell *c = &r->cells[i];
    switch (n->kind) {
    case KV_FN_AND: {
        if (all_remaining(r, n->left)) return RC_NEXT_ROW;
        uint8_t xl = XF_NONE, xr = XF_NONE;
        rc a = filter_cell(r, n->left, i, &xl);
        s->prev[0] = a;
        s->prev[1] = RC_INCLUDE;
        if (!is_include(a)) return a;
        if (all_remaining(r, n->right)) return RC_NEXT_ROW;
        rc b = filter_cell(r, n->right, i, &xr);
        s->prev[1] = b;
        rc m = merge_and(a, b);
        if (is_include(m)) *xf = xf_then(xf_then(*xf, xl), xr);
        return m;
    }
    case KV_FN_OR:
        return or_cell(r, n, i, xf);
    case KV_FN_SKIP: {
        rc a = filter_cell(r, n->left, i, xf);
        if (a != RC_INCLUDE) s->a = true;
        return a;
    }
    case KV_FN_WHILE: {
        rc a = filter_cell(r, n->left, i, xf);
        if (a != RC_INCLUDE) s->done = true;
        return a;
    }
    case KV_FN_PREFIX:
    case KV_FN_ROW:
    case KV_FN_INCLUSIVE_STOP:
    case KV_FN_MULTI_ROW_RANGE:
        return s->key_out ? RC_NEXT_ROW : RC_INCLUDE;
    case KV_FN_PAGE:
        return RC_INCLUDE;
    case KV_FN_KEY_ONLY:
        *xf = xf_then(*xf, n->flag_a ? XF_LENGTH : XF_EMPTY);
        return RC_INCLUDE;
    case KV_FN_FIRST_KEY_ONLY:
        if (s->a) return RC_NEXT_ROW;
        s->a = true;
        return RC_INCLUDE;
    case KV_FN_COLUMN_PREFIX: {
        const kv_fbytes *p = &n->bytes[0];
        size_t ql = c->qualifier_len;
        if (ql < p->len) {
            int cmp = bytes_cmp(c->qualifier, ql, p->data, ql);
            return cmp <= 0 ? RC_HINT : RC_NEXT_ROW;
        }
        int cmp = bytes_cmp(c->qualifier, p->len, p->data, p->len);
        return cmp < 0 ? RC_HINT : cmp > 0 ? RC_NEXT_ROW : RC_INCLUDE;
    }
    case KV_FN_MULTI_COLUMN_PREFIX: {
        /* sorted prefixes; only the largest one <= the qualifier is tried,
           as HBase does */
        const kv_fbytes *best = NULL;
        size_t nle = 0;
        for (size_t k = 0; k < n->nbytes; k++) {
            const kv_fbytes *p = &n->bytes[k];
            if (bytes_cmp(p->data, p->len, c->qualifier, c->qualifier_len) <= 0) {
                nle++;
                if (!best || bytes_cmp(p->data, p->len, best->data, best->len) > 0) best = p;
            }
        }
        if (best && has_prefix(c->qualifier, c->qualifier_len, best)) return RC_INCLUDE;
        if (best && nle == n->nbytes) return RC_NEXT_ROW;
        const kv_fbytes *next = NULL;   /* the smallest prefix above best (or the first) */
        for (size_t k = 0; k < n->nbytes; k++) {
            const kv_fbytes *p = &n->bytes[k];
            if (best && bytes_cmp(p->data, p->len, best->data, best->len) <= 0) continue;
            if (!next || bytes_cmp(p->data, p->len, next->data, next->len) < 0) next = p;
        }
        s->hint = next ? next->data : NULL;
        s->hint_len = next ? next->len : 0;
        s->hint_set = next != NULL;
        return RC_HINT;
    }
    case KV_FN_COLUMN_RANGE: {
        const kv_fbytes *min = &n->bytes[0], *max = &n->bytes[1];
        if (min->len) {
            int cmin = bytes_cmp(c->qualifier, c->qualifier_len, min->data, min->len);
            if (cmin < 0) return RC_HINT;
            if (cmin == 0 && !n->flag_a) return RC_NEXT_COL;
        }
        if (!max->len) return RC_INCLUDE;
        int cmax = bytes_cmp(c->qualifier, c->qualifier_len, max->data, max->len);
        return (n->flag_b ? cmax <= 0 : cmax < 0) ? RC_INCLUDE : RC_NEXT_ROW;
    }
    case KV_FN_QUALIFIER:
        return cmp_pass(n, c->qualifier, c->qualifier_len) ? RC_INCLUDE : RC_SKIP;
    case KV_FN_VALUE:
        return cmp_pass(n, c->value, c->value_len) ? RC_INCLUDE : RC_SKIP;
    case KV_FN_FAMILY:
        return cmp_pass(n, (const uint8_t *)c->family, strlen(c->family)) ? RC_INCLUDE : RC_NEXT_ROW;
    case KV_FN_TIMESTAMPS: {
        size_t lo = 0, hi = n->nts;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (n->ts[mid] == c->timestamp) return RC_INCLUDE;
            if (n->ts[mid] < c->timestamp) lo = mid + 1; else hi = mid;
        }
        return n->nts && c->timestamp < n->ts[0] ? RC_NEXT_COL : RC_SKIP;
    }
    case KV_FN_SINGLE_COLUMN_VALUE:
    case KV_FN_SINGLE_COLUMN_VALUE_EXCLUDE:
        /* a: the column was found, b: it matched */
        if (s->b) return RC_INCLUDE;
        if (n->flag_b && s->a) return RC_NEXT_ROW;
        if (!is_column(c, &n->bytes[0], &n->bytes[1])) return RC_INCLUDE;
        s->a = true;
        if (!cmp_pass(n, c->value, c->value_len)) return n->flag_b ? RC_NEXT_ROW : RC_INCLUDE;
        s->b = true;
        return RC_INCLUDE;
    case KV_FN_COLUMN_COUNT_GET:
        s->count++;
        return s->count > n->count ? RC_NEXT_COL : RC_INCLUDE_NEXT_COL;
    case KV_FN_COLUMN_PAGINATION: {
        if (s->count >= n->offset + n->count) return RC_NEXT_ROW;
        rc a = s->count < n->offset ? RC_NEXT_COL : RC_INCLUDE_NEXT_COL;
        s->count++;
        return a;
    }
    case KV_FN_COLUMN_VALUE:
        if (!is_column(c, &n->bytes[0], &n->bytes[1])) return s->a ? RC_NEXT_ROW : RC_NEXT_COL;
        s->a = true;
        return cmp_pass(n, c->value, c->value_len) ? RC_INCLUDE : RC_SKIP;
    case KV_FN_DEPENDENT_COLUMN:
        if (!is_column(c, &n->bytes[0], &n->bytes[1])) return RC_INCLUDE;
        if (n->flag_b && !cmp_pass(n, c->value, c->value_len)) return RC_SKIP;
        add_stamp(r, s, c->timestamp);
        return n->flag_a ? RC_SKIP : RC_INCLUDE;
    }
    return RC_INCLUDE;
}

static const uint8_t *node_hint(const kv_filter_run *r, const kv_fnode *n, size_t *len) {
    const node_state *s = &r->st[n->id];
    *len = 0;
    switch (n->kind) {
    case KV_FN_COLUMN_PREFIX:
        *len = n->bytes[0].len;
        return n->bytes[0].data ? n->bytes[0].data : empty_value;
    case KV_FN_COLUMN_RANGE:
        *len = n->bytes[0].len;
        return n->bytes[0].len ? n->bytes[0].data : NULL;
    case KV_FN_MULTI_COLUMN_PREFIX:
        *len = s->hint_len;
        return s->hint_set ? (s->hint ? s->hint : empty_value) : NULL;
    case KV_FN_SKIP:
    case KV_FN_WHILE:
        return node_hint(r, n->left, len);
    case KV_FN_AND: {   /* the larger of the hints of the sides that answered one */
        size_t la = 0, lb = 0;
        const uint8_t *a = s->prev[0] == RC_HINT ? node_hint(r, n->left, &la) : NULL;
        const uint8_t *b = s->prev[1] == RC_HINT ? node_hint(r, n->right, &lb) : NULL;
        if (!a || (b && bytes_cmp(b, lb, a, la) > 0)) { *len = lb; return b; }
        *len = la;
        return a;
    }
    case KV_FN_OR: {    /* the smaller, and none unless both sides give one */
        size_t la, lb;
        const uint8_t *a = node_hint(r, n->left, &la), *b = node_hint(r, n->right, &lb);
        if (!a || !b) return NULL;
        if (bytes_cmp(b, lb, a, la) < 0) { *len = lb; return b; }
        *len = la;
        return a;
    }
    default:
        return NULL;
    }
}

/* ------------------------------------------------------------------------ */
/* Rows                                                                      */
/* ------------------------------------------------------------------------ */

/* filterRowCells of node n on the included cells (keep[] != 0). */
static void row_cells(kv_filter_run *r, const kv_fnode *n, size_t nc) {
    node_state *s = &r->st[n->id];
    switch (n->kind) {
    case KV_FN_AND:
    case KV_FN_OR:
        row_cells(r, n->left, nc);
        row_cells(r, n->right, nc);
        return;
    case KV_FN_DEPENDENT_COLUMN:
        for (size_t i = 0; i < nc; i++) {
            if (!r->keep[i]) continue;
            bool in = false;
            for (size_t k = 0; k < s->nstamps && !in; k++) in = s->stamps[k] == r->cells[i].timestamp;
            if (!in) r->keep[i] = 0;
        }
        return;
    case KV_FN_SINGLE_COLUMN_VALUE_EXCLUDE:
        for (size_t i = 0; i < nc; i++)
            if (r->keep[i] && is_column(&r->cells[i], &n->bytes[0], &n->bytes[1])) r->keep[i] = 0;
        return;
    default:
        return;
    }
}

/* filterRow of node n (true: the row is dropped). */
static bool row_filtered(kv_filter_run *r, const kv_fnode *n) {
    node_state *s = &r->st[n->id];
    bool f;
    switch (n->kind) {
    case KV_FN_AND: return row_filtered(r, n->left) || row_filtered(r, n->right);
    case KV_FN_OR: return row_filtered(r, n->left) && row_filtered(r, n->right);
    case KV_FN_SKIP: return s->a;
    case KV_FN_WHILE:
        f = row_filtered(r, n->left);
        if (f) s->done = true;
        return f;
    case KV_FN_PAGE:
        s->count++;
        return s->count > n->count;
    case KV_FN_PREFIX:
    case KV_FN_ROW:   /* their filterRow repeats filterRowKey's answer */
        return s->key_out;
    case KV_FN_SINGLE_COLUMN_VALUE:
    case KV_FN_SINGLE_COLUMN_VALUE_EXCLUDE:
        return s->a ? !s->b : n->flag_a;
    default:
        return false;
    }
}

static bool reserve(kv_filter_run *r, size_t ncells) {
    if (ncells <= r->cap) return true;
    size_t cap = r->cap ? r->cap : 16;
    while (cap < ncells) {
        if (cap > SIZE_MAX / 8) return false;
        cap *= 2;
    }
    uint8_t *k = malloc(cap);
    uint8_t *l = malloc(cap * 4);
    if (!k || !l) {
        free(k);
        free(l);
        return false;
    }
    free(r->keep);
    free(r->lenval);
    r->keep = k;
    r->lenval = l;
    r->cap = cap;
    return true;
}

/* Runs filterCell over the row's cells with the matcher's skipping and the
   read's version cap; keep[i] = 1 + transformation for included cells.
   Returns true when filterAllRemaining stopped the row early. */
static bool offer_cells(kv_filter_run *r, size_t nc) {
    const kv_fnode *root = r->filter->root;
    int32_t in_column = 0;
    size_t column = SIZE_MAX;     /* first included cell of the current column */
    size_t skip_col = SIZE_MAX, skip_fam = SIZE_MAX;   /* cells whose column / family is skipped */
    const uint8_t *hint = NULL;   /* skip the family's qualifiers below it */
    size_t hint_len = 0, hint_cell = SIZE_MAX;
    memset(r->keep, 0, nc);
    for (size_t i = 0; i < nc; i++) {
        const kv_cell *c = &r->cells[i];
        if (skip_fam != SIZE_MAX && same_family(&r->cells[skip_fam], c)) continue;
        if (skip_col != SIZE_MAX && same_column(&r->cells[skip_col], c)) continue;
        if (hint_cell != SIZE_MAX && same_family(&r->cells[hint_cell], c) &&
            bytes_cmp(c->qualifier, c->qualifier_len, hint, hint_len) < 0)
            continue;
        skip_fam = skip_col = hint_cell = SIZE_MAX;
        if (all_remaining(r, root)) return true;   /* DONE_SCAN */
        uint8_t xf = XF_NONE;
        rc a = filter_cell(r, root, i, &xf);
        if (is_include(a)) {
            if (column == SIZE_MAX || !same_column(&r->cells[column], c)) {
                column = i;
                in_column = 0;
            }
            if (r->versions > 0 && ++in_column > r->versions) {
                skip_col = i;   /* past the read's VERSIONS: the column's older versions are not offered */
                continue;
            }
            r->keep[i] = (uint8_t)(1 + xf);
        }
        switch (a) {
        case RC_INCLUDE_NEXT_COL: case RC_NEXT_COL: skip_col = i; break;
        case RC_INCLUDE_NEXT_ROW: case RC_NEXT_ROW: skip_fam = i; break;
        case RC_HINT:
            hint = node_hint(r, root, &hint_len);
            if (hint) hint_cell = i;
            break;
        default: break;
        }
    }
    return false;
}

bool kv_filter_run_row(kv_filter_run *r, kv_cell *cells, size_t *ncells, bool *stop) {
    *stop = false;
    size_t nc = *ncells;
    if (nc == 0) return false;
    if (!kv_filter_run_row_key(r, cells[0].row, cells[0].row_len, r->reversed, stop)) {
        *ncells = 0;
        return false;
    }
    if (!reserve(r, nc)) {
        /* No way to report out-of-memory here: end the scan rather than
           return rows the filter did not check. */
        *ncells = 0;
        *stop = true;
        return false;
    }
    r->cells = cells;
    r->nomem = false;
    bool done = offer_cells(r, nc);
    const kv_fnode *root = r->filter->root;
    row_cells(r, root, nc);
    size_t kept = 0;
    for (size_t i = 0; i < nc; i++) kept += r->keep[i] != 0;
    bool pass = kept > 0 && !row_filtered(r, root);
    /* between rows the state is reset, then filterAllRemaining asked */
    reset_row(r, root);
    if (done || all_remaining(r, root) || r->nomem) *stop = true;
    if (r->nomem) pass = false;
    r->cells = NULL;
    if (!pass) {
        *ncells = 0;
        return false;
    }
    size_t k = 0;
    for (size_t i = 0; i < nc; i++) {
        if (!r->keep[i]) continue;
        kv_cell c = cells[i];
        uint8_t xf = (uint8_t)(r->keep[i] - 1);
        if (xf == XF_EMPTY) {
            c.value = empty_value;
            c.value_len = 0;
        } else if (xf == XF_LENGTH || xf == XF_ZERO_LENGTH) {
            uint8_t *b = r->lenval + 4 * k;
            uint64_t len = xf == XF_LENGTH ? c.value_len : 0;
            b[0] = (uint8_t)(len >> 24);
            b[1] = (uint8_t)(len >> 16);
            b[2] = (uint8_t)(len >> 8);
            b[3] = (uint8_t)len;
            c.value = b;
            c.value_len = 4;
        }
        cells[k++] = c;
    }
    *ncells = k;
    return true;
}

/* ------------------------------------------------------------------------ */
/* Run state                                                                 */
/* ------------------------------------------------------------------------ */

kv_filter_run *kv_filter_run_new(const kv_filter *f) {
    if (!f) return NULL;
    kv_filter_run *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->filter = f;
    r->st = calloc(f->nnodes ? f->nnodes : 1, sizeof *r->st);
    if (!r->st) {
        free(r);
        return NULL;
    }
    return r;
}

void kv_filter_run_set_versions(kv_filter_run *r, int32_t versions) {
    if (r) r->versions = versions > 0 ? versions : 0;
}

void kv_filter_run_free(kv_filter_run *r) {
    if (!r) return;
    for (size_t i = 0; i < r->filter->nnodes; i++) free(r->st[i].stamps);
    free(r->st);
    free(r->keep);
    free(r->lenval);
    free(r);
}
