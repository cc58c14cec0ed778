/**
 * @file rowcas.c
 * Read, then write unless the row changed (rowcas.h): the reads go
 * through bt_read.c, the guarded write is bt_mutate_row_unless_newer
 * (one CheckAndMutateRow).
 */
#include "rowcas.h"
#include "bt_read.h"
#include "handle.h"

#include <stdlib.h>
#include <string.h>

/* Tries before a row that keeps changing under us is given up. */
#define TRIES 5

/* Reads one row of @p t, only columns @p cols, newest version of each, at
   or after @p min_ms; *got says whether the row has any such cell. */
static kv_status read_row(btb_store *s, const btb_table *t, const btb_rowops *r,
                          const bt_column *cols, size_t ncols, int64_t min_ms, int64_t now_ms,
                          bt_row *row, bool *got) {
    bt_read_spec spec = BT_READ_SPEC_INIT;
    spec.row = r->row;
    spec.row_len = r->row_len;
    spec.families = t->fams;
    spec.nfamilies = t->nfams;
    spec.columns = cols;
    spec.ncolumns = ncols;
    spec.min_ts = min_ms;
    bt_reader *rd;
    bt_status st;
    *got = false;
    bt_code code = bt_reader_open(&rd, s->client, t->id, &spec, now_ms, &st);
    if (code == BT_OK) {
        code = bt_reader_next(rd, row, got, &st);
        bt_reader_close(rd);
    }
    return code == BT_OK ? KV_OK : btb_fail(s, &st, "read of the row before a delete");
}

/* Whether the families (or the row) that @p r deletes whole hold a cell
   stamped after @p now_ms. */
static kv_status future_cells(btb_store *s, const btb_table *t, const btb_rowops *r,
                              int64_t now_ms, bool *found) {
    bt_column *cols = calloc(r->n, sizeof *cols);
    if (!cols) return KV_NO_MEMORY;
    size_t nc = 0;
    bool row = false;
    for (size_t i = 0; i < r->n; i++) {
        if (r->hops[i].kind == BT_HOP_DELETE_ROW) row = true;
        if (r->hops[i].kind == BT_HOP_DELETE_FAMILY) cols[nc++] = (bt_column){ r->hops[i].family, NULL, 0 };
    }
    bt_row got_row = BT_ROW_INIT;
    kv_status rc = read_row(s, t, r, cols, row ? 0 : nc, now_ms + 1, now_ms, &got_row, found);
    bt_row_clear(&got_row);
    free(cols);
    return rc;
}

/* The newest timestamp (ms) of column (family, q) in @p row, or -1. */
static int64_t newest_of(const bt_row *row, const char *family, const void *q, size_t qlen) {
    for (size_t i = 0; i < row->ncells; i++) {
        const bt_cell *c = &row->cells[i];
        if (strcmp(c->family, family) == 0 && c->qualifier_len == qlen &&
            (qlen == 0 || memcmp(c->qualifier, q, qlen) == 0))
            return bt_ms_from_micros(c->ts_micros);   /* the first is the newest */
    }
    return -1;
}

/* One try: resolves the hops against a fresh read into @p hops/@p places
   and sends the guarded write. */
static kv_status try_once(btb_store *s, const btb_table *t, const btb_rowops *r, int64_t now_ms,
                          bt_hop *hops, bt_newer *places, bt_column *cols, bool *applied) {
    bt_row row = BT_ROW_INIT;
    size_t nc = 0, nh = 0, np = 0;
    kv_status rc = KV_OK;
    if (r->newest) {
        for (size_t i = 0; i < r->n; i++)
            if (r->hops[i].kind == BT_HOP_DELETE_VERSION && r->hops[i].ts == BT_TS_NONE)
                cols[nc++] = (bt_column){ r->hops[i].family, r->hops[i].qualifier,
                                          r->hops[i].qualifier_len };
        bool got;
        rc = read_row(s, t, r, cols, nc, 0, now_ms, &row, &got);
    }
    for (size_t i = 0; rc == KV_OK && i < r->n; i++) {
        bt_hop h = r->hops[i];
        if (h.kind == BT_HOP_DELETE_VERSION && h.ts == BT_TS_NONE) {
            int64_t ts = newest_of(&row, h.family, h.qualifier, h.qualifier_len);
            /* Unless a newer version (any, when there was none) appears. */
            places[np++] = (bt_newer){ h.family, h.qualifier, h.qualifier_len, ts };
            if (ts < 0) continue;   /* no version: the delete deletes nothing */
            h.ts = ts;
        } else if (h.kind == BT_HOP_DELETE_FAMILY) {
            places[np++] = (bt_newer){ h.family, NULL, BT_WHOLE_FAMILY, now_ms };
        } else if (h.kind == BT_HOP_DELETE_ROW) {
            places[np++] = (bt_newer){ NULL, NULL, 0, now_ms };
        }
        hops[nh++] = h;
    }
    bt_row_clear(&row);
    *applied = true;
    if (rc != KV_OK || nh == 0) return rc;   /* nothing left to write */
    bt_status st;
    if (bt_mutate_row_unless_newer(s->client, t->id, r->row, r->row_len, places, np, hops, nh,
                                   now_ms, applied, &st) != BT_OK)
        return btb_fail(s, &st, "delete in table %s", t->name);
    return KV_OK;
}

kv_status btb_rowcas_apply(btb_store *s, const btb_table *t, const btb_rowops *r, int64_t now_ms) {
    bt_hop *hops = calloc(r->n, sizeof *hops);
    bt_newer *places = calloc(r->n, sizeof *places);
    bt_column *cols = calloc(r->n, sizeof *cols);
    kv_status rc = hops && places && cols ? KV_OK : KV_NO_MEMORY;
    bool applied = false;
    for (int attempt = 1; rc == KV_OK && !applied && attempt <= TRIES; attempt++) {
        rc = try_once(s, t, r, now_ms, hops, places, cols, &applied);
        bool future = false;
        if (rc == KV_OK && !applied && r->guard) rc = future_cells(s, t, r, now_ms, &future);
        if (rc == KV_OK && future)
            rc = btb_refuse(s, KV_NOT_SUPPORTED, "delete of a whole family or row at now "
                            "(%lld) in table %s is not supported here: the row holds cells "
                            "stamped after now, which Cloud Bigtable's DeleteFromFamily and "
                            "DeleteFromRow would delete too, where HBase's delete marker at now "
                            "spares them; delete those columns by timestamp instead",
                            (long long)now_ms, t->name);
        if (rc == KV_OK && !applied && attempt < TRIES) bt_client_backoff(s->client, attempt);
    }
    if (rc == KV_OK && !applied)
        rc = btb_refuse(s, KV_UNAVAILABLE, "delete in table %s: other writers kept changing the "
                        "row between the read of its newest version and the delete (%d tries)",
                        t->name, TRIES);
    free(hops);
    free(places);
    free(cols);
    return rc;
}
