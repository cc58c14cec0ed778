/**
 * @file bt_map.h
 * The mapping of HBase operations onto Bigtable requests. Callers describe
 * what they want in storage-neutral terms (bt_hop for the parts of a row
 * mutation, bt_read_spec for a get or scan, bt_family_rules for a family's
 * retention) and get protobuf-c requests of bigtable.proto back, built in
 * a bt_arena. Every rule of the mapping lives here, so that README.md's
 * table and this file say the same thing:
 *
 *  - Timestamps: HBase milliseconds become Bigtable microseconds (ms x
 *    1000; tables use Bigtable's default millisecond granularity). Reads
 *    turn microseconds back with bt_ms_from_micros. Negative timestamps
 *    cannot be stored (BT_UNSUPPORTED).
 *  - A put without a timestamp gets the caller's clock (now_ms), so that
 *    every write sent is idempotent and can be retried.
 *  - VERSIONS and TTL become the family's GC rule, which Bigtable applies
 *    lazily: every read therefore also carries the version limit and a
 *    "now - TTL" time filter per family.
 *  - Deletes remove cells at once; there are no delete markers. So a later
 *    put with an older timestamp is visible (HBase would hide it), and
 *    what needs a marker cannot be expressed: family or row deletes bounded
 *    by a timestamp, DeleteFamilyVersion, deleting "the newest version"
 *    without a read first, raw scans and KEEP_DELETED_CELLS. These return
 *    BT_UNSUPPORTED with a message naming the operation and the reason.
 *  - Names: `ns:table` maps to a table id (bt_table_id); families must
 *    match [-_.a-zA-Z0-9]{1,64}; row keys are 1..4096 bytes, qualifiers
 *    at most 16 KiB, values at most 100 MiB (BT_INVALID beyond).
 *
 * Requests point into the caller's buffers (row keys, qualifiers, values)
 * as well as into the arena: both must outlive the request. Called by
 * bt_client.c and the unit tests; calls bt_arena.c and protobuf-c.
 */
#ifndef CELLFS_BT_MAP_H
#define CELLFS_BT_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bigtable.pb-c.h"
#include "bt_arena.h"
#include "bt_status.h"

/** "No timestamp given" (HBase's LATEST_TIMESTAMP, = KV_LATEST_TIMESTAMP). */
#define BT_TS_NONE INT64_MAX

/** Bigtable's limits (its documented quotas). */
#define BT_MAX_ROW_KEY 4096
#define BT_MAX_QUALIFIER (16 * 1024)
#define BT_MAX_VALUE (100 * 1024 * 1024)
#define BT_MAX_FAMILY_NAME 64
#define BT_MAX_TABLE_ID 50
/** A RowFilter must serialize to at most this many bytes. */
#define BT_MAX_FILTER_BYTES 4096

/** Microseconds for @p ms, or -1 when out of range (negative, or too large
 *  to multiply). */
int64_t bt_micros_from_ms(int64_t ms);
/** Milliseconds for a Bigtable timestamp (rounds down). */
int64_t bt_ms_from_micros(int64_t micros);

/* ---- names ---- */

/**
 * The Bigtable table id of HBase table @p name ("t" or "ns:t"; "default:t"
 * is "t"). Scheme: each name part has '-' written as "-_"; a namespace
 * other than "default" is written before the table with "--" between.
 * Examples: "t" -> "t", "ns:t" -> "ns--t", "a-b:c-d" -> "a-_b--c-_d".
 * Every id built so decodes to exactly one name. Limits: ids are at most
 * 50 bytes, so a long name fails with BT_INVALID; the name parts must
 * follow HBase's rules ([A-Za-z0-9_][A-Za-z0-9_.-]*).
 */
bt_code bt_table_id(char *out, size_t cap, const char *name, bt_status *st);

/** The HBase name ("ns:t", or "t" for the default namespace) of a table
 *  id; BT_INVALID for ids that bt_table_id cannot have built (tables
 *  created by other tools), which callers skip. */
bt_code bt_table_name(char *out, size_t cap, const char *id, bt_status *st);

/** BT_OK when @p family can name a Bigtable column family. */
bt_code bt_check_family(const char *family, bt_status *st);

/* ---- families and their retention ---- */

/** What of a family's HBase attributes Bigtable can keep. */
typedef struct bt_family_rules {
    const char *name;
    int max_versions;       /* VERSIONS; 0 = no limit */
    int64_t ttl_seconds;    /* TTL; <= 0 = FOREVER */
    int min_versions;       /* MIN_VERSIONS: only 0 can be expressed */
    bool keep_deleted;      /* KEEP_DELETED_CELLS: only false can be expressed */
} bt_family_rules;

/** The GC rule for @p f: max_num_versions, max_age, or their union (a cell
 *  goes when either says so); NULL for no rule (keep everything).
 *  BT_UNSUPPORTED for MIN_VERSIONS with a TTL and for KEEP_DELETED_CELLS;
 *  BT_INVALID for a bad family name or negative VERSIONS. */
bt_code bt_map_gc_rule(Btpb__GcRule **out, bt_arena *a, const bt_family_rules *f,
                       bt_status *st);

/** Reads a GC rule back into @p f's max_versions and ttl_seconds (other
 *  fields untouched). BT_UNSUPPORTED for rule shapes bt_map_gc_rule never
 *  builds (intersections, nested unions), e.g. from other tools. */
bt_code bt_parse_gc_rule(bt_family_rules *f, const Btpb__GcRule *rule, bt_status *st);

/** A CreateTable request for table @p table_id in @p parent
 *  ("projects/P/instances/I") with @p n families. */
bt_code bt_map_create_table(Btpb__CreateTableRequest **out, bt_arena *a, const char *parent,
                            const char *table_id, const bt_family_rules *families, size_t n,
                            bt_status *st);

/* ---- row mutations ---- */

typedef enum bt_hop_kind {
    BT_HOP_PUT,                   /* value at ts (BT_TS_NONE: now_ms) */
    BT_HOP_DELETE_VERSION,        /* the version at exactly ts; BT_TS_NONE
                                     (the newest) is unsupported */
    BT_HOP_DELETE_COLUMN,         /* versions with timestamp <= ts (NONE: now) */
    BT_HOP_DELETE_FAMILY,         /* the whole family; ts must be NONE */
    BT_HOP_DELETE_FAMILY_VERSION, /* unsupported */
    BT_HOP_DELETE_ROW,            /* the whole row; ts must be NONE */
} bt_hop_kind;

/** One part of an HBase row mutation. */
typedef struct bt_hop {
    bt_hop_kind kind;
    const char *family;           /* NULL for BT_HOP_DELETE_ROW */
    const void *qualifier;
    size_t qualifier_len;
    int64_t ts;                   /* milliseconds, or BT_TS_NONE */
    const void *value;            /* puts only */
    size_t value_len;
} bt_hop;

/**
 * Bigtable mutations for @p n parts of one row's mutation, in order.
 * @p now_ms stamps puts without a timestamp and bounds "<= now" deletes.
 * Whole-family and whole-row deletes also remove cells stamped later than
 * now (Bigtable's DeleteFromFamily/DeleteFromRow have no bound); HBase's
 * marker at "now" would spare them.
 */
bt_code bt_map_mutations(Btpb__Mutation ***out, size_t *nout, bt_arena *a, const bt_hop *ops,
                         size_t n, int64_t now_ms, bt_status *st);

/** BT_OK when @p row can be a Bigtable row key (1..4096 bytes). */
bt_code bt_check_row(const void *row, size_t len, bt_status *st);

/** A MutateRow request: one atomic row mutation. */
bt_code bt_map_mutate_row(Btpb__MutateRowRequest **out, bt_arena *a, const char *table_name,
                          const void *row, size_t row_len, const bt_hop *ops, size_t n,
                          int64_t now_ms, bt_status *st);

/* ---- read-modify-write and check-and-mutate ---- */

/** An increment of the 8-byte big-endian counter by @p delta (absent = 0).
 *  The server picks the new cell's timestamp (max of the old one and its
 *  clock), and reads the newest cell even if its TTL has passed but GC has
 *  not yet removed it. */
bt_code bt_map_increment(Btpb__ReadModifyWriteRowRequest **out, bt_arena *a,
                         const char *table_name, const void *row, size_t row_len,
                         const char *family, const void *qualifier, size_t qualifier_len,
                         int64_t delta, bt_status *st);

/** An append of @p data to the newest value (absent = empty); timestamps
 *  as for bt_map_increment. */
bt_code bt_map_append(Btpb__ReadModifyWriteRowRequest **out, bt_arena *a,
                      const char *table_name, const void *row, size_t row_len,
                      const char *family, const void *qualifier, size_t qualifier_len,
                      const void *data, size_t data_len, bt_status *st);

/** HBase's compare operators, "cell value OP expected" (= kv_compare_op). */
typedef enum bt_cmp {
    BT_CMP_LESS, BT_CMP_LESS_OR_EQUAL, BT_CMP_EQUAL, BT_CMP_NOT_EQUAL,
    BT_CMP_GREATER_OR_EQUAL, BT_CMP_GREATER, BT_CMP_NO_OP
} bt_cmp;

/** The checked cell of a check-and-mutate. */
typedef struct bt_check {
    const bt_family_rules *family;   /* its family (name and TTL) */
    const void *qualifier;
    size_t qualifier_len;
    bt_cmp op;
    const void *expected;            /* NULL: "the cell does not exist" */
    size_t expected_len;
} bt_check;

/**
 * A CheckAndMutateRow request that applies @p ops when the newest live
 * version of the checked cell compares as asked (byte order, unsigned),
 * or, with expected NULL, when the cell has no live version; NO_OP passes
 * when the cell exists. *@p on_match says how to read the reply: the
 * mutation was applied iff predicate_matched == *on_match.
 */
bt_code bt_map_check_and_mutate(Btpb__CheckAndMutateRowRequest **out, bool *on_match,
                                bt_arena *a, const char *table_name, const void *row,
                                size_t row_len, const bt_check *check, const bt_hop *ops,
                                size_t n, int64_t now_ms, bt_status *st);

/* ---- a row mutation guarded by "nothing newer" ---- */

/** bt_newer.qualifier_len for "the whole family". */
#define BT_WHOLE_FAMILY ((size_t)-1)

/** A place of a row and a timestamp bound: the guard passes while the
 *  place holds no cell stamped after @p after_ms. */
typedef struct bt_newer {
    const char *family;          /* NULL: the whole row */
    const void *qualifier;       /* with qualifier_len BT_WHOLE_FAMILY: the
                                    whole family */
    size_t qualifier_len;
    int64_t after_ms;            /* < 0: any cell at all */
} bt_newer;

/**
 * A CheckAndMutateRow request that applies @p ops (as false_mutations)
 * unless the row holds, in any of the @p np places, a cell newer than the
 * place's bound: predicate_matched false means applied. It lets a write
 * that depends on what was read (the newest version of a column, "no cell
 * after now") be applied atomically with that condition.
 */
bt_code bt_map_mutate_unless_newer(Btpb__CheckAndMutateRowRequest **out, bt_arena *a,
                                   const char *table_name, const void *row, size_t row_len,
                                   const bt_newer *places, size_t np, const bt_hop *ops,
                                   size_t n, int64_t now_ms, bt_status *st);

/* ---- reads ---- */

/** A column selection: a whole family (qualifier NULL) or one column. */
typedef struct bt_column {
    const char *family;
    const void *qualifier;
    size_t qualifier_len;
} bt_column;

/** A get (row set) or a scan (range and/or prefix). */
typedef struct bt_read_spec {
    const void *row;                   /* one row; NULL for a scan */
    size_t row_len;
    const void *start;                 /* scan start, inclusive; NULL: first row */
    size_t start_len;
    const void *stop;                  /* scan stop, exclusive; NULL: no end */
    size_t stop_len;
    const void *prefix;                /* rows starting so; NULL: any */
    size_t prefix_len;
    const bt_family_rules *families;   /* every family of the table */
    size_t nfamilies;
    const bt_column *columns;          /* selection; none = every family */
    size_t ncolumns;
    int max_versions;                  /* the read's VERSIONS; >= 1 */
    int64_t min_ts, max_ts;            /* [min, max) in ms; BT_TS_NONE: no max */
    bool keys_only;                    /* values replaced by empty ones */
    bool first_cell_per_family;        /* only each family's first cell of
                                          a row (qualifier order, newest) */
    int64_t limit;                     /* rows; 0 = all */
    bool reversed;                     /* descending rows; then start is the
                                          first (largest) row, inclusive, and
                                          stop the exclusive lower bound, as
                                          in HBase */
} bt_read_spec;

/** A read spec with every field unset: one version, no time bounds. */
#define BT_READ_SPEC_INIT { .max_versions = 1, .min_ts = 0, .max_ts = BT_TS_NONE }

/**
 * The ReadRows request for @p spec at @p now_ms. Per selected family the
 * filter is chain(family or columns, timestamps in [max(min_ts, now - TTL),
 * max_ts), newest min(read VERSIONS, family VERSIONS) per column), the
 * families interleaved. A read that can return nothing (empty range, time
 * range past the TTL) gets a block-all filter. BT_INVALID for unknown
 * families, max_versions < 1 or a filter above 4096 bytes.
 */
bt_code bt_map_read(Btpb__ReadRowsRequest **out, bt_arena *a, const char *table_name,
                    const bt_read_spec *spec, int64_t now_ms, bt_status *st);

/** The RowSet that continues @p rows after row @p last (exclusive), for a
 *  resumed read: single keys <= last are dropped, ranges start after last
 *  or are dropped when they end before it. Sets *@p empty when nothing
 *  remains to read. A NULL @p rows means "every row". */
bt_code bt_map_rows_after(Btpb__RowSet **out, bool *empty, bt_arena *a, const Btpb__RowSet *rows,
                          const void *last, size_t last_len, bt_status *st);

/** The same for a reversed read, which has delivered every row from the
 *  top down to @p last: what remains is below it (keys >= last dropped,
 *  ranges end before last or are dropped when they start at or after
 *  it). */
bt_code bt_map_rows_before(Btpb__RowSet **out, bool *empty, bt_arena *a, const Btpb__RowSet *rows,
                           const void *last, size_t last_len, bt_status *st);

#endif
