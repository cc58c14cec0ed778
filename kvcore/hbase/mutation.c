/**
 * @file mutation.c
 * The kv_mutation builder of the public header: the operations of one row,
 * with their bytes in one buffer so that applying and logging them needs no
 * further allocation (layout in mutation.h). Validation of family names
 * against a table happens when a backend applies the mutation. Calls
 * kv_check_name (after a short pass of its own for the usual family names)
 * and the byte buffers of util/coding.h.
 */
#include "mutation.h"
#include "util/copy.h"

#include <stdlib.h>
#include <string.h>

#define KV_MAX_ROW_LEN 32767   /* HBase's Short.MAX_VALUE row limit */

static kv_status check_row(const void *row, size_t row_len) {
    if (!row || row_len == 0 || row_len > KV_MAX_ROW_LEN) return row_len ? KV_TOO_LARGE : KV_INVALID;
    return KV_OK;
}

/* kv_check_name(family) == KV_OK, with a short pass for the usual names:
   ASCII letters, digits, '_' and '-' only (a letter, digit or '_' first;
   no '.', so no ".."), which kv_check_name accepts in every locale. Any
   other name, and one longer than KV_NAME_MAX, is left to kv_check_name. */
static bool family_name_ok(const char *family) {
    unsigned char c = (unsigned char)family[0];
    if (!(((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || (c >= '0' && c <= '9') || c == '_'))
        return kv_check_name(family) == KV_OK;
    size_t i = 1;
    for (; (c = (unsigned char)family[i]) != 0; i++)
        if (!(((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
              c == '-'))
            return kv_check_name(family) == KV_OK;
    return i <= KV_NAME_MAX || kv_check_name(family) == KV_OK;
}

/* The checks of one operation's arguments, added to a mutation holding
   bytes_len bytes. */
static kv_status check_op(const char *family, const void *q, size_t qlen, const void *v,
                          size_t vlen, bool whole_row, size_t bytes_len) {
    if (!whole_row && (!family || !family_name_ok(family))) return KV_INVALID;
    if ((qlen && !q) || (vlen && !v)) return KV_INVALID;
    if (qlen > UINT32_MAX / 2 || vlen > UINT32_MAX / 2 || bytes_len > UINT32_MAX / 2)
        return KV_TOO_LARGE;
    return KV_OK;
}

kv_status kv_mutation_new(kv_mutation **out, const void *row, size_t row_len) {
    *out = NULL;
    kv_status st = check_row(row, row_len);
    if (st != KV_OK) return st;
    kv_mutation *m = calloc(1, sizeof *m);
    if (!m) return KV_NO_MEMORY;
    if (kv_buf_append(&m->bytes, row, row_len) != 0) {
        free(m);
        return KV_NO_MEMORY;
    }
    m->row_len = row_len;
    *out = m;
    return KV_OK;
}

void kv_mutation_free(kv_mutation *m) {
    if (!m) return;
    kv_buf_free(&m->bytes);
    free(m->ops);
    for (size_t i = 0; i < m->nfamilies; i++) free(m->families[i]);
    free(m->families);
    free(m);
}

size_t kv_mutation_count(const kv_mutation *m) { return m ? m->nops : 0; }

kv_status kv_mutation_reset(kv_mutation *m, const void *row, size_t row_len) {
    if (!m) return KV_INVALID;
    for (size_t i = 0; i < m->nfamilies; i++) free(m->families[i]);
    m->nfamilies = 0;
    m->nops = 0;
    m->bytes.len = 0;
    m->row_len = 0;
    kv_status st = check_row(row, row_len);
    if (st != KV_OK) return st;
    if (kv_buf_append(&m->bytes, row, row_len) != 0) return KV_NO_MEMORY;
    m->row_len = row_len;
    return KV_OK;
}

static int family_index(kv_mutation *m, const char *family, uint32_t *out) {
    for (size_t i = 0; i < m->nfamilies; i++)
        if (strcmp(m->families[i], family) == 0) {
            *out = (uint32_t)i;
            return 0;
        }
    char **p = realloc(m->families, (m->nfamilies + 1) * sizeof *p);
    if (!p) return -1;
    m->families = p;
    if (!(p[m->nfamilies] = strdup(family))) return -1;
    *out = (uint32_t)m->nfamilies++;
    return 0;
}

static kv_status add_op(kv_mutation *m, const char *family, kv_cell_type type, int64_t ts,
                        const void *q, size_t qlen, const void *v, size_t vlen, bool whole_row) {
    if (!m) return KV_INVALID;
    kv_status st = check_op(family, q, qlen, v, vlen, whole_row, m->bytes.len);
    if (st != KV_OK) return st;
    if (m->nops == m->capops) {
        size_t cap = m->capops ? 2 * m->capops : 4;
        kv_op *p = realloc(m->ops, cap * sizeof *p);
        if (!p) return KV_NO_MEMORY;
        m->ops = p;
        m->capops = cap;
    }
    kv_op op = {0};
    if (!whole_row && family_index(m, family, &op.family_index) != 0) return KV_NO_MEMORY;
    size_t mark = m->bytes.len;
    op.qoff = (uint32_t)m->bytes.len;
    op.qlen = (uint32_t)qlen;
    if (kv_buf_append(&m->bytes, q, qlen) != 0) return KV_NO_MEMORY;
    op.voff = (uint32_t)m->bytes.len;
    op.vlen = (uint32_t)vlen;
    if (kv_buf_append(&m->bytes, v, vlen) != 0) {
        m->bytes.len = mark;
        return KV_NO_MEMORY;
    }
    op.type = type;
    op.ts = ts;
    op.whole_row = whole_row;
    m->ops[m->nops++] = op;
    return KV_OK;
}

kv_status kv_mutation_put(kv_mutation *m, const char *family, const void *qualifier,
                          size_t qualifier_len, int64_t ts, const void *value, size_t value_len) {
    return add_op(m, family, KV_TYPE_PUT, ts, qualifier, qualifier_len, value, value_len, false);
}

kv_status kv_mutation_delete_version(kv_mutation *m, const char *family, const void *qualifier,
                                     size_t qualifier_len, int64_t ts) {
    return add_op(m, family, KV_TYPE_DELETE, ts, qualifier, qualifier_len, NULL, 0, false);
}

kv_status kv_mutation_delete_column(kv_mutation *m, const char *family, const void *qualifier,
                                    size_t qualifier_len, int64_t ts) {
    return add_op(m, family, KV_TYPE_DELETE_COLUMN, ts, qualifier, qualifier_len, NULL, 0, false);
}

kv_status kv_mutation_delete_family(kv_mutation *m, const char *family, int64_t ts) {
    return add_op(m, family, KV_TYPE_DELETE_FAMILY, ts, NULL, 0, NULL, 0, false);
}

kv_status kv_mutation_delete_family_version(kv_mutation *m, const char *family, int64_t ts) {
    if (ts == KV_LATEST_TIMESTAMP) return KV_INVALID;
    return add_op(m, family, KV_TYPE_DELETE_FAMILY_VERSION, ts, NULL, 0, NULL, 0, false);
}

kv_status kv_mutation_delete_row(kv_mutation *m, int64_t ts) {
    return add_op(m, NULL, KV_TYPE_DELETE_FAMILY, ts, NULL, 0, NULL, 0, true);
}

kv_status kv_mutation_one_row(kv_mutation_one *o, const void *row, size_t row_len) {
    memset(&o->m, 0, sizeof o->m);
    kv_status st = check_row(row, row_len);
    if (st != KV_OK) return st;
    o->m.row_len = row_len;
    o->row = row;
    return KV_OK;
}

/* The one cell of o: a put (value) or a column marker (no value). */
static kv_status one_cell(kv_mutation_one *o, kv_cell_type type, const char *family,
                          const void *qualifier, size_t qualifier_len, int64_t ts,
                          const void *value, size_t value_len) {
    kv_status st = check_op(family, qualifier, qualifier_len, value, value_len, false, o->m.row_len);
    if (st != KV_OK) return st;
    size_t n = o->m.row_len + qualifier_len + value_len;
    uint8_t *b = n <= sizeof o->inline_bytes ? o->inline_bytes : malloc(n);
    if (!b) return KV_NO_MEMORY;
    kv_copy(b, o->row, o->m.row_len);
    kv_copy(b + o->m.row_len, qualifier, qualifier_len);
    kv_copy(b + o->m.row_len + qualifier_len, value, value_len);
    o->m.bytes = (kv_buf){b, n, n};
    o->op = (kv_op){.family_index = 0, .type = type, .ts = ts,
                    .qoff = (uint32_t)o->m.row_len, .qlen = (uint32_t)qualifier_len,
                    .voff = (uint32_t)(o->m.row_len + qualifier_len), .vlen = (uint32_t)value_len};
    o->family = (char *)family;
    o->m.ops = &o->op;
    o->m.nops = o->m.capops = 1;
    o->m.families = &o->family;
    o->m.nfamilies = 1;
    return KV_OK;
}

kv_status kv_mutation_one_put(kv_mutation_one *o, const char *family, const void *qualifier,
                              size_t qualifier_len, int64_t ts, const void *value,
                              size_t value_len) {
    return one_cell(o, KV_TYPE_PUT, family, qualifier, qualifier_len, ts, value, value_len);
}

kv_status kv_mutation_one_delete_column(kv_mutation_one *o, const char *family,
                                        const void *qualifier, size_t qualifier_len, int64_t ts) {
    return one_cell(o, KV_TYPE_DELETE_COLUMN, family, qualifier, qualifier_len, ts, NULL, 0);
}

void kv_mutation_one_done(kv_mutation_one *o) {
    if (o->m.bytes.data != o->inline_bytes) free(o->m.bytes.data);
    o->m.bytes = (kv_buf){0};
}

kv_mutation *kv_mutation_copy(const kv_mutation *m) {
    kv_mutation *c;
    if (kv_mutation_new(&c, m->bytes.data, m->row_len) != KV_OK) return NULL;
    c->bytes.len = 0;
    if (kv_buf_append(&c->bytes, m->bytes.data, m->bytes.len) ||
        !(c->ops = malloc((m->nops ? m->nops : 1) * sizeof *c->ops)) ||
        !(c->families = calloc(m->nfamilies + 1, sizeof *c->families))) {
        kv_mutation_free(c);
        return NULL;
    }
    memcpy(c->ops, m->ops, m->nops * sizeof *c->ops);
    c->nops = c->capops = m->nops;
    for (size_t i = 0; i < m->nfamilies; i++) {
        if (!(c->families[i] = strdup(m->families[i]))) {
            kv_mutation_free(c);
            return NULL;
        }
        c->nfamilies++;
    }
    return c;
}

bool kv_mutation_deletes_newest(const kv_mutation *m) {
    for (size_t i = 0; i < m->nops; i++)
        if (m->ops[i].type == KV_TYPE_DELETE && m->ops[i].ts == KV_LATEST_TIMESTAMP) return true;
    return false;
}

bool kv_compare_passes(kv_compare_op op, int c) {
    switch (op) {
    case KV_CMP_LESS: return c < 0;
    case KV_CMP_LESS_OR_EQUAL: return c <= 0;
    case KV_CMP_EQUAL: return c == 0;
    case KV_CMP_NOT_EQUAL: return c != 0;
    case KV_CMP_GREATER_OR_EQUAL: return c >= 0;
    case KV_CMP_GREATER: return c > 0;
    case KV_CMP_NO_OP: return true;
    }
    return false;
}
