/**
 * @file rowops.c
 * kv_mutation to bt_hop parts, with the checks that give each refusal its
 * HBase name (rowops.h). Calls schema_cache.c and handle.c; reads
 * mutations through hbase/mutation.h.
 */
#include "rowops.h"
#include "handle.h"
#include "hbase/mutation.h"

#include <stdlib.h>

/* The most families one mutation may touch, as the other backends. */
#define MAX_FAMILIES 64
/* The largest millisecond timestamp whose microseconds Bigtable can hold. */
#define MAX_TS_MS (INT64_MAX / 1000 - 1)

static const char *op_name(const kv_op *op) {
    switch (op->type) {
    case KV_TYPE_PUT: return "put";
    case KV_TYPE_DELETE: return "delete of a version";
    case KV_TYPE_DELETE_COLUMN: return "delete of a column";
    case KV_TYPE_DELETE_FAMILY: return op->whole_row ? "delete of a row" : "delete of a family";
    case KV_TYPE_DELETE_FAMILY_VERSION: return "DeleteFamilyVersion";
    }
    return "mutation";
}

/* The hop of @p op, or a refusal. */
static kv_status hop_of(btb_store *s, const kv_mutation *m, const kv_op *op, bt_hop *h,
                        btb_rowops *r) {
    const char *family = op->whole_row ? NULL : m->families[op->family_index];
    *h = (bt_hop){ .family = family, .qualifier = m->bytes.data + op->qoff,
                   .qualifier_len = op->qlen, .ts = op->ts, .value = m->bytes.data + op->voff,
                   .value_len = op->vlen };
    if (op->ts != KV_LATEST_TIMESTAMP && (op->ts < 0 || op->ts > MAX_TS_MS))
        return btb_refuse(s, KV_NOT_SUPPORTED, "%s at timestamp %lld: Cloud Bigtable stores "
                          "timestamps from 0 to %lld ms only", op_name(op), (long long)op->ts,
                          (long long)MAX_TS_MS);
    if (op->qlen > BT_MAX_QUALIFIER)
        return btb_refuse(s, KV_TOO_LARGE, "qualifier of %u bytes: Cloud Bigtable allows at most "
                          "%d", op->qlen, BT_MAX_QUALIFIER);
    switch (op->type) {
    case KV_TYPE_PUT:
        h->kind = BT_HOP_PUT;
        if (op->vlen > s->max_value_size || op->vlen > BT_MAX_VALUE)
            return btb_refuse(s, KV_TOO_LARGE, "value of %u bytes is above the limit of %zu bytes",
                              op->vlen, s->max_value_size < BT_MAX_VALUE ? s->max_value_size
                                                                         : (size_t)BT_MAX_VALUE);
        return KV_OK;
    case KV_TYPE_DELETE:
        h->kind = BT_HOP_DELETE_VERSION;
        if (op->ts == KV_LATEST_TIMESTAMP) r->newest = true;
        return KV_OK;
    case KV_TYPE_DELETE_COLUMN:
        h->kind = BT_HOP_DELETE_COLUMN;
        return KV_OK;
    case KV_TYPE_DELETE_FAMILY:
        h->kind = op->whole_row ? BT_HOP_DELETE_ROW : BT_HOP_DELETE_FAMILY;
        if (op->ts != KV_LATEST_TIMESTAMP)
            return btb_refuse(s, KV_NOT_SUPPORTED, "%s up to timestamp %lld is not supported on "
                              "Cloud Bigtable: it deletes whole families and rows only and keeps "
                              "no delete markers to bound them (delete the columns instead)",
                              op_name(op), (long long)op->ts);
        r->guard = true;
        return KV_OK;
    case KV_TYPE_DELETE_FAMILY_VERSION:
        break;
    }
    return btb_refuse(s, KV_NOT_SUPPORTED, "DeleteFamilyVersion is not supported on Cloud "
                      "Bigtable: it cannot delete every column of a family at one timestamp "
                      "without reading the columns first");
}

kv_status btb_rowops_build(btb_store *s, const btb_table *t, const kv_mutation *m,
                           btb_rowops *out) {
    *out = (btb_rowops){ .row = m->bytes.data, .row_len = m->row_len };
    if (m->nops == 0) return btb_refuse(s, KV_INVALID, "empty mutation");
    if (m->row_len > BT_MAX_ROW_KEY)
        return btb_refuse(s, KV_TOO_LARGE, "row key of %zu bytes: Cloud Bigtable allows at most "
                          "%d", m->row_len, BT_MAX_ROW_KEY);
    if (m->nfamilies > MAX_FAMILIES)
        return btb_refuse(s, KV_INVALID, "a mutation may touch at most %d families, not %zu",
                          MAX_FAMILIES, m->nfamilies);
    for (size_t i = 0; i < m->nfamilies; i++)
        if (!btb_table_family(t, m->families[i]))
            return btb_refuse(s, KV_NO_FAMILY, "table %s has no column family '%s'", t->name,
                              m->families[i]);
    if (!(out->hops = calloc(m->nops, sizeof *out->hops))) return KV_NO_MEMORY;
    out->n = m->nops;
    for (size_t i = 0; i < m->nops; i++) {
        kv_status rc = hop_of(s, m, &m->ops[i], &out->hops[i], out);
        if (rc != KV_OK) {
            btb_rowops_free(out);
            return rc;
        }
    }
    return KV_OK;
}

void btb_rowops_free(btb_rowops *r) {
    free(r->hops);
    r->hops = NULL;
    r->n = 0;
}
