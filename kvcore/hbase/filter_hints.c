/**
 * @file filter_hints.c
 * kv_filter_hints_of (filter_hints.h): walks the top-level AND of a
 * compiled filter (filter_ast.h) and gives hints only when every term is
 * one whose result is the same on a pruned row: KeyOnlyFilter (without
 * lenAsVal, which needs the value's length), FirstKeyOnlyFilter, and the
 * row-key filters, which look at no cell.
 */
#include "filter_hints.h"
#include "filter_ast.h"

/* Adds the terms of the AND tree @p n to *h; false when a term is not one
   of the safe kinds. */
static bool walk(const kv_fnode *n, kv_filter_hints *h) {
    switch (n->kind) {
    case KV_FN_AND: return walk(n->left, h) && walk(n->right, h);
    case KV_FN_KEY_ONLY:
        if (n->flag_a) return false;
        h->keys_only = true;
        return true;
    case KV_FN_FIRST_KEY_ONLY:
        h->first_cell_only = true;
        return true;
    case KV_FN_PREFIX:
    case KV_FN_ROW:
    case KV_FN_INCLUSIVE_STOP:
    case KV_FN_MULTI_ROW_RANGE:
        return true;
    default:
        return false;
    }
}

kv_filter_hints kv_filter_hints_of(const kv_filter *f) {
    kv_filter_hints h = { false, false };
    if (!f || !f->root || !walk(f->root, &h)) h = (kv_filter_hints){ false, false };
    return h;
}
