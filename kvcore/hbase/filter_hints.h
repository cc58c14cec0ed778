/**
 * @file filter_hints.h
 * What a compiled filter will drop anyway, for backends that read from a
 * server (Cloud Bigtable) and can ask it not to send those bytes: the
 * values, when every cell passes with an empty value, and all but each
 * family's first cell of a row, when at most the row's first cell can
 * pass. The backend still runs the filter on what arrives (hbase/filter.h),
 * so a hint only saves transfer, never changes a result; hints are given
 * only for filters whose result provably does not depend on what they
 * prune (an AND of KeyOnlyFilter, FirstKeyOnlyFilter and row-key filters,
 * as cellfs's listings and cellsh's count use). Needs no store.
 */
#ifndef KV_HBASE_FILTER_HINTS_H
#define KV_HBASE_FILTER_HINTS_H

#include "kvcore.h"

typedef struct kv_filter_hints {
    bool keys_only;          /* values may come back empty */
    bool first_cell_only;    /* a family's cells after its first in a row
                                may be left out */
} kv_filter_hints;

/* The hints of @p f (none for NULL). */
kv_filter_hints kv_filter_hints_of(const kv_filter *f);

#endif
