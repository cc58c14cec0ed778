/**
 * @file filter_ast.h
 * Private: the compiled form of an HBase filter string. filter_parse.c
 * builds this tree (kv_filter_parse) and frees it; filter_eval.c walks it
 * once per row. Nothing outside those two files looks inside a kv_filter,
 * but filter_hints.c, which reads the top-level shape for backends that
 * prune on a server.
 *
 * A compiled filter is immutable and may be shared by concurrent scans; all
 * per-scan state lives in kv_filter_run, indexed by kv_fnode.id.
 */
#ifndef KV_FILTER_AST_H
#define KV_FILTER_AST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kvcore.h"
#include "filter_regex.h"

typedef enum kv_fnode_kind {
    /* combinators */
    KV_FN_AND,                    /* left then right: a cell passes both */
    KV_FN_OR,                     /* a cell passes either */
    KV_FN_SKIP,                   /* row dropped if any cell fails child */
    KV_FN_WHILE,                  /* scan ends at the first failing row */
    /* row-key filters */
    KV_FN_PREFIX,                 /* bytes[0] = prefix */
    KV_FN_ROW,                    /* op + cmp on the row key */
    KV_FN_INCLUSIVE_STOP,         /* bytes[0] = last row returned */
    /* per-cell filters */
    KV_FN_COLUMN_PREFIX,          /* bytes[0] = qualifier prefix */
    KV_FN_MULTI_COLUMN_PREFIX,    /* bytes[0..nbytes) = qualifier prefixes */
    KV_FN_QUALIFIER,              /* op + cmp on the qualifier */
    KV_FN_VALUE,                  /* op + cmp on the value */
    KV_FN_FAMILY,                 /* op + cmp on the family name */
    KV_FN_TIMESTAMPS,             /* ts[0..nts) */
    KV_FN_COLUMN_RANGE,           /* bytes[0] min, bytes[1] max (empty = open),
                                     flag_a minInclusive, flag_b maxInclusive */
    KV_FN_KEY_ONLY,               /* flag_a = lenAsVal */
    /* row-shaped filters */
    KV_FN_SINGLE_COLUMN_VALUE,    /* bytes[0] family, bytes[1] qualifier, op +
                                     cmp, flag_a filterIfMissing, flag_b
                                     latestVersionOnly */
    KV_FN_SINGLE_COLUMN_VALUE_EXCLUDE, /* same, and the column is removed */
    KV_FN_FIRST_KEY_ONLY,         /* first cell of the row */
    KV_FN_COLUMN_COUNT_GET,       /* count = columns kept */
    KV_FN_PAGE,                   /* count = rows per scan */
    KV_FN_COLUMN_PAGINATION,      /* count = limit, offset = columns skipped */
    KV_FN_DEPENDENT_COLUMN,       /* bytes[0] family, bytes[1] qualifier,
                                     flag_a dropDependentColumn, flag_b a
                                     comparator (op + cmp) is given */
    KV_FN_COLUMN_VALUE,           /* bytes[0] family, bytes[1] qualifier, op + cmp */
    /* row-key filter */
    KV_FN_MULTI_ROW_RANGE,        /* ranges[0..nranges), sorted and merged */
} kv_fnode_kind;

typedef enum kv_fcmp_kind {
    KV_FCMP_BINARY,               /* unsigned lexicographic bytes */
    KV_FCMP_BINARY_PREFIX,        /* same, on the first len(arg) bytes */
    KV_FCMP_SUBSTRING,            /* ASCII case-insensitive containment */
    KV_FCMP_REGEX,                /* Java regex subset (filter_regex.h), found anywhere */
} kv_fcmp_kind;

typedef struct kv_fbytes {
    uint8_t *data;                /* malloc'd; may be NULL when len == 0 */
    size_t len;
} kv_fbytes;

typedef struct kv_fcomparator {
    kv_fcmp_kind kind;
    kv_fbytes arg;                /* substring: already lower-cased */
    kv_regex *re;                 /* KV_FCMP_REGEX: compiled pattern */
} kv_fcomparator;

typedef struct kv_frange {     /* MultiRowRangeFilter: one row range */
    kv_fbytes start, stop;        /* empty start: from the first row; empty
                                     stop: to the last */
    bool start_inclusive, stop_inclusive;
} kv_frange;

typedef struct kv_fnode {
    kv_fnode_kind kind;
    size_t id;                    /* 0..kv_filter.nnodes-1, per-run state slot */
    struct kv_fnode *left;        /* AND/OR left, SKIP/WHILE child */
    struct kv_fnode *right;       /* AND/OR right */
    kv_compare_op op;
    kv_fcomparator cmp;
    kv_fbytes *bytes;             /* string arguments, see kinds above */
    size_t nbytes;
    int64_t *ts;                  /* TimestampsFilter, ascending */
    size_t nts;
    int64_t count;                /* PageFilter, ColumnCountGetFilter,
                                     ColumnPaginationFilter's limit */
    int64_t offset;               /* ColumnPaginationFilter */
    kv_frange *ranges;            /* MultiRowRangeFilter */
    size_t nranges;
    bool flag_a, flag_b;
} kv_fnode;

struct kv_filter {
    kv_fnode *root;
    size_t nnodes;
};

#endif
