/**
 * @file batch.c
 * Encoding and decoding of the write group's log record (layout in
 * batch.h and doc/log_format.md). Resolves family names to the family ids
 * that records carry, so that a record stays valid after a rename of
 * nothing: ids never change while a family exists.
 */
#include "batch.h"
#include "errors.h"
#include "hbase/mutation.h"
#include "util/copy.h"

#include <string.h>

/* LEB128 varints as util/coding.h writes and reads them, with the one-byte
   case inline (a record is encoded and decoded once a write). */
static inline size_t varint_length(uint64_t v) { return v < 0x80 ? 1 : kv_varint_length(v); }

static inline size_t put_varint(uint8_t *p, uint64_t v) {
    if (v < 0x80) {
        *p = (uint8_t)v;
        return 1;
    }
    return kv_put_varint64(p, v);
}

static inline const uint8_t *get_varint(const uint8_t *p, const uint8_t *end, uint64_t *v) {
    if (p && p < end && *p < 0x80) {
        *v = *p;
        return p + 1;
    }
    return p ? kv_get_varint64(p, end, v) : NULL;
}

/* Bytes of the record framing of one op with qlen and vlen bytes. */
static size_t op_len(size_t qlen, size_t vlen) {
    return 4 + 1 + 8 + varint_length(qlen) + qlen + varint_length(vlen) + vlen;
}

/* Writes one op at p (op_len bytes reserved); returns the end. */
static uint8_t *put_op(uint8_t *p, uint32_t family_id, kv_cell_type type, int64_t ts,
                       const void *q, size_t qlen, const void *v, size_t vlen) {
    kv_put_le32(p, family_id);
    p[4] = (uint8_t)type;
    kv_put_le64(p + 5, (uint64_t)ts);
    p += 13;
    p += put_varint(p, qlen);
    kv_copy(p, q, qlen);
    p += qlen;
    p += put_varint(p, vlen);
    kv_copy(p, v, vlen);
    return p + vlen;
}

int kv_batch_begin(kv_buf *rec, uint64_t first_seq) {
    rec->len = 0;
    if (kv_buf_reserve(rec, KV_BATCH_HEADER_LEN)) return -1;
    kv_put_le64(rec->data, first_seq);
    kv_put_le32(rec->data + 8, 0);
    rec->len = KV_BATCH_HEADER_LEN;
    return 0;
}

void kv_batch_set_count(kv_buf *rec, uint32_t nmut) {
    if (rec->len >= KV_BATCH_HEADER_LEN) kv_put_le32(rec->data + 8, nmut);
}

kv_status kv_batch_add(kv_engine *s, kv_buf *b, const kv_table *t, const kv_mutation *m,
                       int64_t now, bool *deleted_implicitly, uint64_t *nops, kv_family **fams) {
    if (m->nops == 0) return KV_INVALID;
    kv_family *fam_here[KV_BATCH_MAX_FAMILIES], **fam = fams ? fams : fam_here;
    if (m->nfamilies > KV_BATCH_MAX_FAMILIES)
        return kv_fail(s, KV_INVALID, "a mutation may touch at most %d families, not %zu",
                       KV_BATCH_MAX_FAMILIES, m->nfamilies);
    for (size_t i = 0; i < m->nfamilies; i++) {
        fam[i] = kv_table_family(t, m->families[i]);
        if (!fam[i])
            return kv_fail(s, KV_NO_FAMILY, "table %s:%s has no column family '%s'", t->ns, t->name,
                           m->families[i]);
    }
    uint64_t count = 0;
    /* The exact size first, so that the record grows once. */
    size_t need = 4 + varint_length(m->row_len) + m->row_len;
    for (size_t i = 0; i < m->nops; i++) {
        const kv_op *op = &m->ops[i];
        if (op->vlen > s->opts.max_value_size)
            return kv_fail(s, KV_TOO_LARGE, "value of %u bytes is above the limit of %zu bytes",
                           op->vlen, s->opts.max_value_size);
        count += op->whole_row ? t->nfamilies : 1;
        need += op->whole_row ? t->nfamilies * op_len(0, 0) : op_len(op->qlen, op->vlen);
    }
    need += varint_length(count);
    if (kv_buf_reserve(b, need)) return KV_NO_MEMORY;
    uint8_t *p = b->data + b->len;
    kv_put_le32(p, t->id);
    p += 4;
    p += put_varint(p, m->row_len);
    kv_copy(p, m->bytes.data, m->row_len);
    p += m->row_len;
    p += put_varint(p, count);
    for (size_t i = 0; i < m->nops; i++) {
        const kv_op *op = &m->ops[i];
        int64_t ts = op->ts;
        if (ts == KV_LATEST_TIMESTAMP) {
            ts = now;
            if (op->type != KV_TYPE_PUT) *deleted_implicitly = true;
        }
        const uint8_t *q = m->bytes.data + op->qoff, *v = m->bytes.data + op->voff;
        if (op->whole_row) {
            for (size_t f = 0; f < t->nfamilies; f++)
                p = put_op(p, t->families[f]->id, op->type, ts, NULL, 0, NULL, 0);
        } else {
            p = put_op(p, fam[op->family_index]->id, op->type, ts, q, op->qlen, v, op->vlen);
        }
    }
    b->len += need;
    *nops += count;
    return KV_OK;
}

static const uint8_t *get_u32(const uint8_t *p, const uint8_t *end, uint32_t *v) {
    if (!p || end - p < 4) return NULL;
    *v = kv_get_le32(p);
    return p + 4;
}

static const uint8_t *get_u64(const uint8_t *p, const uint8_t *end, uint64_t *v) {
    if (!p || end - p < 8) return NULL;
    *v = kv_get_le64(p);
    return p + 8;
}

static inline const uint8_t *get_bytes(const uint8_t *p, const uint8_t *end, const uint8_t **out,
                                       size_t *len) {
    uint64_t n;
    if (!(p = get_varint(p, end, &n)) || (uint64_t)(end - p) < n) return NULL;
    *out = p;
    *len = (size_t)n;
    return p + n;
}

static bool valid_type(uint8_t t) {
    return t == KV_TYPE_PUT || t == KV_TYPE_DELETE || t == KV_TYPE_DELETE_COLUMN ||
           t == KV_TYPE_DELETE_FAMILY || t == KV_TYPE_DELETE_FAMILY_VERSION;
}

kv_status kv_batch_decode(const uint8_t *rec, size_t len, kv_batch_visit visit, void *ctx,
                          uint64_t *last_seq) {
    const uint8_t *p = rec, *end = rec + len;
    uint64_t seq;
    uint32_t nmut;
    p = get_u32(get_u64(p, end, &seq), end, &nmut);
    if (!p) return KV_CORRUPT;
    kv_batch_op op;
    for (uint32_t i = 0; i < nmut; i++) {
        uint64_t nops;
        p = get_u32(p, end, &op.table_id);
        p = get_bytes(p, end, &op.row, &op.row_len);
        if (!(p = get_varint(p, end, &nops))) return KV_CORRUPT;
        for (uint64_t k = 0; k < nops; k++) {
            uint64_t ts = 0;   /* set when p is not NULL below */
            p = get_u32(p, end, &op.family_id);
            if (!p || p >= end || !valid_type(*p)) return KV_CORRUPT;
            op.type = (kv_cell_type)*p++;
            p = get_bytes(get_bytes(get_u64(p, end, &ts), end, &op.qualifier, &op.qualifier_len),
                          end, &op.value, &op.value_len);
            if (!p) return KV_CORRUPT;
            op.ts = (int64_t)ts;
            op.seq = seq++;
            kv_status st = visit(ctx, &op);
            if (st != KV_OK) return st;
        }
    }
    *last_seq = seq - 1;
    return KV_OK;
}
