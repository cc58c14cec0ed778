/**
 * @file filter_eval.c
 * Evaluates a compiled filter (filter_ast.h) on the assembled cells of one
 * row, with HBase's semantics; implements filter.h for the read path
 * (kv_get / kv_scan). Uses libc only (filter_regex.c for regexstring:).
 *
 * Each node maps the set of cells presented to it (a byte mask) to the set
 * it lets through. AND presents to its right side only what its left side
 * let through, as HBase's FilterList(MUST_PASS_ALL) stops at the first
 * filter that skips a cell; OR presents every cell to both sides, as
 * MUST_PASS_ONE does. Row-shaped filters (row key, SingleColumnValue, SKIP)
 * let all or nothing through. KeyOnlyFilter only marks cells: values are
 * replaced after the tree has run, so value comparisons elsewhere in the
 * tree see the real value, as in HBase (transformCell runs after
 * filterCell). PageFilter and WHILE are scan-wide: PageFilter counts the
 * rows finally returned, and a failed WHILE ends the whole scan.
 */
#include <stdlib.h>
#include <string.h>
#include <ctype.h>

#include "filter.h"
#include "filter_ast.h"

struct kv_filter_run {
    const kv_filter *filter;
    bool reversed;                /* of the last kv_filter_run_row_key call */
    bool while_failed;            /* latched: every later row is refused */
    const kv_fnode **pages;       /* the PageFilter nodes of the tree */
    uint64_t *page_rows;          /* rows returned so far, per pages[i] */
    size_t npages;
    int32_t versions;             /* cap per column after the filter; 0 none */
    size_t nslots;                /* masks per row: 2 per node + in, out, mark */
    size_t cap;                   /* cells the buffers below can hold */
    uint8_t *masks;               /* nslots * cap */
    uint8_t *lenval;              /* 4 * cap: KeyOnlyFilter(true) values */
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

/* "value OP comparator", HBase's order for CompareFilter. */
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

static bool same_column(const kv_cell *a, const kv_cell *b) {
    return strcmp(a->family, b->family) == 0 &&
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

static size_t page_index(const kv_filter_run *r, const kv_fnode *n) {
    for (size_t i = 0; i < r->npages; i++)
        if (r->pages[i] == n) return i;
    return 0;
}

static bool row_key(kv_filter_run *r, const kv_fnode *n, const uint8_t *row, size_t len,
                    bool reversed, bool *stop) {
    bool sa = false, sb = false, a, b;
    *stop = false;
    switch (n->kind) {
    case KV_FN_AND:
        a = row_key(r, n->left, row, len, reversed, &sa);
        b = row_key(r, n->right, row, len, reversed, &sb);
        *stop = sa || sb;
        return a && b;
    case KV_FN_OR:
        a = row_key(r, n->left, row, len, reversed, &sa);
        b = row_key(r, n->right, row, len, reversed, &sb);
        *stop = sa && sb;
        return a || b;
    case KV_FN_SKIP:
        return row_key(r, n->left, row, len, reversed, stop);
    case KV_FN_WHILE:
        if (row_key(r, n->left, row, len, reversed, &sa)) return true;
        r->while_failed = true;
        *stop = true;
        return false;
    case KV_FN_PAGE:
        if (r->page_rows[page_index(r, n)] < (uint64_t)n->count) return true;
        *stop = true;
        return false;
    default:
        return row_leaf(n, row, len, reversed, stop);
    }
}

bool kv_filter_run_row_key(kv_filter_run *r, const uint8_t *row, size_t row_len, bool reversed,
                           bool *stop) {
    *stop = false;
    r->reversed = reversed;
    if (r->while_failed) {
        *stop = true;
        return false;
    }
    bool pass = row_key(r, r->filter->root, row, row_len, reversed, stop);
    if (r->while_failed) *stop = true;
    if (pass) *stop = false;
    return pass;
}

/* ------------------------------------------------------------------------ */
/* Cells                                                                     */
/* ------------------------------------------------------------------------ */

typedef struct row_ctx {
    kv_filter_run *r;
    const kv_cell *cells;
    size_t n;
    uint8_t *mark;                /* KeyOnly: 0 keep, 1 empty value, 2 length */
} row_ctx;

static uint8_t *slot(const row_ctx *x, size_t i) { return x->r->masks + i * x->r->cap; }

static bool cell_pass(const kv_fnode *n, const kv_cell *c) {
    switch (n->kind) {
    case KV_FN_COLUMN_PREFIX:
        return has_prefix(c->qualifier, c->qualifier_len, &n->bytes[0]);
    case KV_FN_MULTI_COLUMN_PREFIX:
        for (size_t i = 0; i < n->nbytes; i++)
            if (has_prefix(c->qualifier, c->qualifier_len, &n->bytes[i])) return true;
        return false;
    case KV_FN_QUALIFIER:
        return cmp_pass(n, c->qualifier, c->qualifier_len);
    case KV_FN_VALUE:
        return cmp_pass(n, c->value, c->value_len);
    case KV_FN_FAMILY:
        return cmp_pass(n, (const uint8_t *)c->family, strlen(c->family));
    case KV_FN_TIMESTAMPS: {
        size_t lo = 0, hi = n->nts;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (n->ts[mid] == c->timestamp) return true;
            if (n->ts[mid] < c->timestamp) lo = mid + 1; else hi = mid;
        }
        return false;
    }
    case KV_FN_COLUMN_RANGE: {
        const kv_fbytes *min = &n->bytes[0], *max = &n->bytes[1];
        if (min->len) {
            int cmin = bytes_cmp(c->qualifier, c->qualifier_len, min->data, min->len);
            if (cmin < 0 || (cmin == 0 && !n->flag_a)) return false;
        }
        if (max->len) {
            int cmax = bytes_cmp(c->qualifier, c->qualifier_len, max->data, max->len);
            if (cmax > 0 || (cmax == 0 && !n->flag_b)) return false;
        }
        return true;
    }
    default:
        return true;
    }
}

/* SingleColumnValue(Exclude)Filter: does the row pass? */
static bool scv_pass(const row_ctx *x, const kv_fnode *n, const uint8_t *in) {
    bool found = false;
    for (size_t i = 0; i < x->n; i++) {
        if (!in[i] || !is_column(&x->cells[i], &n->bytes[0], &n->bytes[1])) continue;
        if (cmp_pass(n, x->cells[i].value, x->cells[i].value_len)) return true;
        found = true;
        if (n->flag_b) return false; /* latestVersionOnly: the newest decides */
    }
    return found ? false : !n->flag_a;
}

/* DependentColumnFilter: the timestamps of the dependent column's cells
   that pass the comparator (all, without one) select the row's cells with
   those timestamps (filterRowCells); the dependent column's failing cells,
   and with dropDependentColumn all of its cells, are left out. */
/* Whether the dependent column (cells [lo, hi), timestamps descending) has
   a presented cell at ts that passes the comparator. */
static bool stamp_set_has(const row_ctx *x, const kv_fnode *n, const uint8_t *in, size_t lo, size_t hi,
                          int64_t ts) {
    size_t a = lo, b = hi;
    while (a < b) {   /* first cell with timestamp <= ts */
        size_t mid = a + (b - a) / 2;
        if (x->cells[mid].timestamp > ts) a = mid + 1; else b = mid;
    }
    for (size_t j = a; j < hi && x->cells[j].timestamp == ts; j++) {
        const kv_cell *d = &x->cells[j];
        if (in[j] && (!n->flag_b || cmp_pass(n, d->value, d->value_len))) return true;
    }
    return false;
}

static void dependent_column(const row_ctx *x, const kv_fnode *n, const uint8_t *in, uint8_t *out) {
    size_t nc = x->n, lo = nc, hi = nc;
    for (size_t i = 0; i < nc; i++) {
        if (!is_column(&x->cells[i], &n->bytes[0], &n->bytes[1])) continue;
        if (lo == nc) lo = i;
        hi = i + 1;
    }
    for (size_t i = 0; i < nc; i++) {
        out[i] = 0;
        if (!in[i]) continue;
        const kv_cell *c = &x->cells[i];
        bool dep = i >= lo && i < hi;
        if (dep && (n->flag_a || (n->flag_b && !cmp_pass(n, c->value, c->value_len)))) continue;
        out[i] = lo < nc && stamp_set_has(x, n, in, lo, hi, c->timestamp);
    }
}

static void eval(const row_ctx *x, const kv_fnode *n, const uint8_t *in, uint8_t *out) {
    size_t nc = x->n;
    bool any_failed = false, stop;
    switch (n->kind) {
    case KV_FN_AND: {
        uint8_t *t = slot(x, 2 * n->id);
        eval(x, n->left, in, t);
        eval(x, n->right, t, out);
        return;
    }
    case KV_FN_OR: {
        uint8_t *t1 = slot(x, 2 * n->id), *t2 = slot(x, 2 * n->id + 1);
        eval(x, n->left, in, t1);
        eval(x, n->right, in, t2);
        for (size_t i = 0; i < nc; i++) out[i] = t1[i] | t2[i];
        return;
    }
    case KV_FN_SKIP:
    case KV_FN_WHILE:
        eval(x, n->left, in, out);
        for (size_t i = 0; i < nc; i++)
            if (in[i] && !out[i]) any_failed = true;
        if (any_failed) {
            memset(out, 0, nc);
            if (n->kind == KV_FN_WHILE) x->r->while_failed = true;
        }
        return;
    case KV_FN_PREFIX:
    case KV_FN_ROW:
    case KV_FN_INCLUSIVE_STOP:
    case KV_FN_MULTI_ROW_RANGE:
        if (row_leaf(n, x->cells[0].row, x->cells[0].row_len, x->r->reversed, &stop))
            memcpy(out, in, nc);
        else
            memset(out, 0, nc);
        return;
    case KV_FN_SINGLE_COLUMN_VALUE:
    case KV_FN_SINGLE_COLUMN_VALUE_EXCLUDE:
        if (!scv_pass(x, n, in)) {
            memset(out, 0, nc);
            return;
        }
        for (size_t i = 0; i < nc; i++)
            out[i] = in[i] && !(n->kind == KV_FN_SINGLE_COLUMN_VALUE_EXCLUDE &&
                                is_column(&x->cells[i], &n->bytes[0], &n->bytes[1]));
        return;
    case KV_FN_FIRST_KEY_ONLY: {
        bool seen = false;
        for (size_t i = 0; i < nc; i++) {
            out[i] = in[i] && !seen;
            if (in[i]) seen = true;
        }
        return;
    }
    case KV_FN_COLUMN_COUNT_GET:
    case KV_FN_COLUMN_PAGINATION: {
        /* The newest version of each of the first count columns (after
           offset columns), as HBase's INCLUDE_AND_NEXT_COL gives; every
           column presented counts, across families. */
        int64_t columns = 0, offset = n->kind == KV_FN_COLUMN_PAGINATION ? n->offset : 0;
        const kv_cell *prev = NULL;
        for (size_t i = 0; i < nc; i++) {
            out[i] = 0;
            if (!in[i]) continue;
            if (prev && same_column(prev, &x->cells[i])) continue;
            prev = &x->cells[i];
            columns++;
            out[i] = columns > offset && columns - offset <= n->count;
        }
        return;
    }
    case KV_FN_COLUMN_VALUE:
        /* only the named column's cells whose value passes */
        for (size_t i = 0; i < nc; i++)
            out[i] = in[i] && is_column(&x->cells[i], &n->bytes[0], &n->bytes[1]) &&
                     cmp_pass(n, x->cells[i].value, x->cells[i].value_len);
        return;
    case KV_FN_DEPENDENT_COLUMN:
        dependent_column(x, n, in, out);
        return;
    case KV_FN_KEY_ONLY:
        for (size_t i = 0; i < nc; i++) {
            out[i] = in[i];
            if (in[i] && !x->mark[i]) x->mark[i] = n->flag_a ? 2 : 1;
        }
        return;
    case KV_FN_PAGE:
        memcpy(out, in, nc);
        return;
    default:
        for (size_t i = 0; i < nc; i++) out[i] = in[i] && cell_pass(n, &x->cells[i]);
        return;
    }
}

static bool reserve(kv_filter_run *r, size_t ncells) {
    if (ncells <= r->cap) return true;
    size_t cap = r->cap ? r->cap : 16;
    while (cap < ncells) {
        if (cap > SIZE_MAX / 2) return false;
        cap *= 2;
    }
    if (cap > SIZE_MAX / r->nslots || cap > SIZE_MAX / 4) return false;
    uint8_t *m = malloc(cap * r->nslots);
    uint8_t *l = malloc(cap * 4);
    if (!m || !l) {
        free(m);
        free(l);
        return false;
    }
    free(r->masks);
    free(r->lenval);
    r->masks = m;
    r->lenval = l;
    r->cap = cap;
    return true;
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
    size_t base = r->nslots - 3;
    row_ctx x = { r, cells, nc, r->masks + (base + 2) * r->cap };
    uint8_t *in = slot(&x, base), *out = slot(&x, base + 1);
    memset(in, 1, nc);
    memset(x.mark, 0, nc);
    eval(&x, r->filter->root, in, out);
    if (r->while_failed) {
        *ncells = 0;
        *stop = true;
        return false;
    }
    size_t k = 0;
    int32_t in_column = 0;
    kv_cell column = {0};
    for (size_t i = 0; i < nc; i++) {
        if (!out[i]) continue;
        if (!column.family || !same_column(&column, &cells[i])) in_column = 0;
        column = cells[i];
        if (r->versions > 0 && ++in_column > r->versions) continue;
        kv_cell c = cells[i];
        if (x.mark[i] == 1) {
            c.value = empty_value;
            c.value_len = 0;
        } else if (x.mark[i] == 2) {
            uint8_t *b = r->lenval + 4 * k;
            uint64_t len = c.value_len;
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
    if (k == 0) return false;
    for (size_t i = 0; i < r->npages; i++)
        if (++r->page_rows[i] >= (uint64_t)r->pages[i]->count) *stop = true;
    return true;
}

/* ------------------------------------------------------------------------ */
/* Run state                                                                 */
/* ------------------------------------------------------------------------ */

static void collect_pages(kv_filter_run *r, const kv_fnode *n) {
    if (!n) return;
    if (n->kind == KV_FN_PAGE) r->pages[r->npages++] = n;
    collect_pages(r, n->left);
    collect_pages(r, n->right);
}

kv_filter_run *kv_filter_run_new(const kv_filter *f) {
    if (!f) return NULL;
    kv_filter_run *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->filter = f;
    r->nslots = 2 * f->nnodes + 3;
    r->pages = calloc(f->nnodes ? f->nnodes : 1, sizeof *r->pages);
    r->page_rows = calloc(f->nnodes ? f->nnodes : 1, sizeof *r->page_rows);
    if (!r->pages || !r->page_rows) {
        kv_filter_run_free(r);
        return NULL;
    }
    collect_pages(r, f->root);
    return r;
}

void kv_filter_run_set_versions(kv_filter_run *r, int32_t versions) {
    if (r) r->versions = versions > 0 ? versions : 0;
}

void kv_filter_run_free(kv_filter_run *r) {
    if (!r) return;
    free(r->pages);
    free(r->page_rows);
    free(r->masks);
    free(r->lenval);
    free(r);
}
