/**
 * @file matcher.c
 * The one owner of HBase's visibility and retention rules: which entries of
 * a family row a read returns, and which a flush or compaction keeps.
 * Callers (read.c, builder.c) feed the entries of one row in key order:
 * family-level markers first, then each column's entries, timestamps
 * descending, markers before puts at one timestamp, newer sequence first.
 *
 * Rules (HBase reference guide, "Versions" and "Delete"):
 *  - a Delete marker masks the put at exactly its timestamp; DeleteColumn
 *    masks a column's puts at or below its timestamp; DeleteFamily masks
 *    every column's puts at or below; DeleteFamilyVersion at exactly;
 *    masking ignores write order ("deletes mask puts") unless
 *    NEW_VERSION_BEHAVIOR, where a marker masks only earlier writes;
 *  - a second put of the same cell and timestamp replaces the first;
 *  - reads count versions after masking, so older versions reappear when
 *    newer ones are deleted, until a compaction has dropped them;
 *  - TTL expires puts, but the newest MIN_VERSIONS stay;
 *  - with KEEP_DELETED_CELLS a marker only applies to reads whose time
 *    range contains it, and compactions keep deleted cells and markers
 *    (TTL: until they expire); without it a marker applies to reads whose
 *    range ends after it;
 *  - a raw read shows a column's markers up to its first put past the
 *    read's VERSIONS, not below it (HBase's column tracker seeks to the
 *    next column there);
 *  - flushes and minor compactions keep markers; major ones, and minor
 *    ones that take every file of the family (HBase: isAllFiles), drop them,
 *    except that with KEEP_DELETED_CELLS (TTL: an unexpired marker) a
 *    major compaction keeps a marker unless no put of the inputs is as old
 *    as it, or (a column marker) a newer put of its column was already
 *    dropped by VERSIONS or TTL: HBase's DropDeletesCompactionScanQueryMatcher,
 *    which counts such markers with the puts and drops them at earliestPutTs.
 */
#include "matcher.h"

#include <stdlib.h>
#include <string.h>

void kv_matcher_init(kv_matcher *m, kv_match_mode mode, const kv_family_desc *family,
                     uint64_t snapshot, int64_t now_ms) {
    memset(m, 0, sizeof *m);
    m->mode = mode;
    m->family = family;
    m->snapshot = snapshot;
    m->now_ms = now_ms;
    m->max_versions = family->versions;
    m->time_min = KV_TIME_MIN;
    m->time_max = KV_TIME_MAX;
    m->earliest_put_ts = KV_TIME_MIN;
}

void kv_matcher_free(kv_matcher *m) {
    free(m->fam_markers);
    free(m->deletes);
    m->fam_markers = NULL;
    m->deletes = NULL;
}

void kv_matcher_start_row(kv_matcher *m) {
    m->nfam_markers = 0;
    kv_matcher_start_column(m);
}

void kv_matcher_start_column(kv_matcher *m) {
    m->ndeletes = 0;
    m->has_col_delete = false;
    m->versions = 0;
    m->have_last_put_ts = false;
    m->col_full = false;
    m->versions_full = false;
}

static bool in_range(const kv_matcher *m, int64_t ts) {
    return ts >= m->time_min && ts < m->time_max;
}

static bool expired(const kv_matcher *m, int64_t ts) {
    int64_t ttl = m->family->ttl_seconds;
    if (ttl == KV_FOREVER || ttl <= 0) return false;
    if (ttl > INT64_MAX / 1000) return false;
    return ts < m->now_ms - ttl * 1000;
}

/* Whether a marker takes part in masking (see the file comment). */
static bool marker_applies(const kv_matcher *m, int64_t ts) {
    if (m->mode != KV_MATCH_READ) return true;
    if (m->family->keep_deleted != KV_KEEP_DELETED_FALSE) return in_range(m, ts);
    return ts >= m->time_min;
}

static bool keep_marker(const kv_matcher *m, int64_t ts, bool family_kind) {
    switch (m->mode) {
    case KV_MATCH_READ:   /* a raw read stops at the put past its VERSIONS, as HBase's */
        return m->raw && in_range(m, ts) && (family_kind || !m->versions_full);
    case KV_MATCH_MINOR: return true;
    case KV_MATCH_MAJOR: {
        kv_keep_deleted kdc = m->family->keep_deleted;
        bool kept = kdc == KV_KEEP_DELETED_TRUE || (kdc == KV_KEEP_DELETED_TTL && !expired(m, ts));
        if (!kept || ts < m->earliest_put_ts) return false;
        return family_kind || !m->col_full;
    }
    }
    return false;
}

static bool written_before(const kv_matcher *m, uint64_t put_seq, uint64_t marker_seq) {
    return !m->family->new_version_behavior || put_seq < marker_seq;
}

static bool masked(const kv_matcher *m, int64_t ts, uint64_t seq) {
    for (size_t i = 0; i < m->nfam_markers; i++) {
        const struct kv_fam_marker *fm = &m->fam_markers[i];
        bool hit = fm->type == KV_TYPE_DELETE_FAMILY ? ts <= fm->ts : ts == fm->ts;
        if (hit && written_before(m, seq, fm->seq)) return true;
    }
    if (m->has_col_delete && ts <= m->col_delete_ts && written_before(m, seq, m->col_delete_seq))
        return true;
    for (size_t i = 0; i < m->ndeletes; i++)
        if (m->deletes[i].ts == ts && written_before(m, seq, m->deletes[i].seq)) return true;
    return false;
}

static void note_family_marker(kv_matcher *m, int64_t ts, kv_cell_type type, uint64_t seq) {
    if (m->nfam_markers == m->cap_fam_markers) {
        size_t cap = m->cap_fam_markers ? 2 * m->cap_fam_markers : 8;
        void *p = realloc(m->fam_markers, cap * sizeof *m->fam_markers);
        if (!p) return; /* out of memory: the marker is kept on disk and read next time */
        m->fam_markers = p;
        m->cap_fam_markers = cap;
    }
    m->fam_markers[m->nfam_markers++] = (struct kv_fam_marker){ts, seq, type};
}

static void note_column_marker(kv_matcher *m, int64_t ts, kv_cell_type type, uint64_t seq) {
    if (type == KV_TYPE_DELETE_COLUMN) {
        /* Markers arrive newest first; under NEW_VERSION_BEHAVIOR the one
           written last matters, so keep the highest sequence. */
        if (!m->has_col_delete) {
            m->has_col_delete = true;
            m->col_delete_ts = ts;
            m->col_delete_seq = seq;
        } else if (seq > m->col_delete_seq && m->family->new_version_behavior) {
            m->col_delete_seq = seq;
        }
        return;
    }
    if (m->ndeletes == m->cap_deletes) {
        size_t cap = m->cap_deletes ? 2 * m->cap_deletes : 8;
        void *p = realloc(m->deletes, cap * sizeof *m->deletes);
        if (!p) return;
        m->deletes = p;
        m->cap_deletes = cap;
    }
    m->deletes[m->ndeletes++] = (struct kv_ver_delete){ts, seq};
}

bool kv_matcher_match(kv_matcher *m, int64_t ts, kv_cell_type type, uint64_t seq,
                      bool family_kind) {
    if (seq > m->snapshot) return false;
    if (type != KV_TYPE_PUT) {
        if (marker_applies(m, ts)) {
            if (family_kind) note_family_marker(m, ts, type, seq);
            else note_column_marker(m, ts, type, seq);
        }
        return keep_marker(m, ts, family_kind);
    }
    if (m->have_last_put_ts && m->last_put_ts == ts) return false; /* replaced */
    m->have_last_put_ts = true;
    m->last_put_ts = ts;
    if (m->mode == KV_MATCH_READ && !in_range(m, ts)) return false;
    if (masked(m, ts, seq)) {
        if (m->mode == KV_MATCH_READ && !m->raw) return false;
        if (m->mode != KV_MATCH_READ) {
            kv_keep_deleted kdc = m->family->keep_deleted;
            if (kdc == KV_KEEP_DELETED_FALSE) return false;
            if (kdc == KV_KEEP_DELETED_TTL && expired(m, ts)) return false;
        }
    }
    bool over = m->versions >= m->max_versions;
    if ((expired(m, ts) && m->versions >= m->family->min_versions) || over) {
        m->col_full = true;
        m->versions_full |= over;
        return false;
    }
    m->versions++;
    return true;
}
