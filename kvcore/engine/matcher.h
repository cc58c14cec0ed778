/**
 * @file matcher.h
 * The one owner of HBase's visibility and retention rules in the engine
 * (matcher.c): which entries of a family row a read returns, and which a
 * flush or compaction keeps: VERSIONS, MIN_VERSIONS, TTL,
 * KEEP_DELETED_CELLS, delete-marker masking and NEW_VERSION_BEHAVIOR.
 * Callers (read.c, builder.c) feed the entries of one row in key order.
 */
#ifndef KV_ENGINE_MATCHER_H
#define KV_ENGINE_MATCHER_H

#include "kvcore.h"

typedef enum kv_match_mode {
    KV_MATCH_READ,              /* user get/scan */
    KV_MATCH_MINOR,             /* flush / minor compaction: keep markers */
    KV_MATCH_MAJOR,             /* major or all-files compaction: drop markers */
} kv_match_mode;

typedef struct kv_matcher {
    kv_match_mode mode;
    const kv_family_desc *family;
    uint64_t snapshot;          /* entries with larger seq are invisible */
    int64_t now_ms;
    int32_t max_versions;       /* READ: from options; else family VERSIONS */
    /* MAJOR with KEEP_DELETED_CELLS: the oldest put timestamp of the
       inputs (KV_TIME_MAX: none); markers older than it mask nothing left
       and are dropped. KV_TIME_MIN (the default) drops none this way. */
    int64_t earliest_put_ts;
    int64_t time_min, time_max; /* [min, max) READ only */
    bool raw;
    /* per-row state */
    size_t nfam_markers, cap_fam_markers;
    struct kv_fam_marker { int64_t ts; uint64_t seq; kv_cell_type type; } *fam_markers;
    /* per-column state */
    size_t ndeletes, cap_deletes;
    struct kv_ver_delete { int64_t ts; uint64_t seq; } *deletes;
    int64_t col_delete_ts; uint64_t col_delete_seq; bool has_col_delete;
    int32_t versions;           /* versions counted in this column */
    bool have_last_put_ts; int64_t last_put_ts;
    bool col_full;              /* a put of this column was dropped by VERSIONS or TTL */
    bool versions_full;         /* ... by VERSIONS: a raw read shows no more of the column */
} kv_matcher;

void kv_matcher_init(kv_matcher *m, kv_match_mode mode, const kv_family_desc *family,
                     uint64_t snapshot, int64_t now_ms);
void kv_matcher_free(kv_matcher *m);
void kv_matcher_start_row(kv_matcher *m);
void kv_matcher_start_column(kv_matcher *m);
/* Decides one entry of the current row/column (entries arrive in key
   order). Returns true if it is returned (READ) or kept (compactions). */
bool kv_matcher_match(kv_matcher *m, int64_t ts, kv_cell_type type, uint64_t seq, bool family_kind);

#endif
