/**
 * @file write.c
 * The write calls of kvcore.h: kv_mutate, kv_mutate_batch, kv_put,
 * kv_delete, kv_increment, kv_append and kv_check_and_mutate. The mutation builder is
 * shared above the seam (hbase/mutation.c); these calls check arguments,
 * options, read-only stores and the capabilities a mutation needs, then
 * hand the mutations to the store's backend.
 */
#include "api_i.h"
#include "hbase/mutation.h"

#include <stdlib.h>
#include <string.h>

/* The capabilities mutation m needs. */
static kv_status check_mutation(kv_store *s, const kv_mutation *m, const char *what) {
    for (size_t i = 0; i < m->nops; i++)
        if (m->ops[i].type == KV_TYPE_DELETE_FAMILY_VERSION)
            return kv_api_need(s, KV_CAP_DELETE_FAMILY_VERSION, what);
    return KV_OK;
}

kv_status kv_mutate_batch(kv_store *s, const char *table, kv_mutation *const *ms, size_t count,
                          kv_status *statuses, const kv_write_options *wopts) {
    kv_api_begin(s);
    if (!s) return KV_INVALID;
    if (!ms && count) return kv_api_fail(s, KV_INVALID, "put: no mutations given");
    for (size_t i = 0; i < count; i++)
        if (!ms[i]) return kv_api_fail(s, KV_INVALID, "put: mutation %zu of %zu is NULL", i + 1, count);
    kv_durability d;
    kv_status st = kv_api_durability(s, wopts, &d);
    if (st == KV_OK) st = kv_api_writable(s, "put");
    for (size_t i = 0; st == KV_OK && i < count; i++) st = check_mutation(s, ms[i], "delete");
    if (st == KV_OK) return s->ops->xMutate(s->b, table, ms, count, statuses, d);
    for (size_t i = 0; statuses && i < count; i++) statuses[i] = st;
    return st;
}

kv_status kv_mutate(kv_store *s, const char *table, const kv_mutation *m,
                    const kv_write_options *wopts) {
    if (!m) return KV_INVALID;
    kv_mutation *one = (kv_mutation *)m;
    return kv_mutate_batch(s, table, &one, 1, NULL, wopts);
}

kv_status kv_put(kv_store *s, const char *table, const void *row, size_t row_len, const char *family,
                 const void *qualifier, size_t qualifier_len, int64_t ts, const void *value,
                 size_t value_len, const kv_write_options *wopts) {
    kv_api_begin(s);
    /* on the stack: no allocation for a small cell */
    kv_mutation_one m;
    kv_status st = kv_mutation_one_row(&m, row, row_len);
    if (st != KV_OK) return kv_api_fail(s, st, "bad row key (%zu bytes)", row_len);
    st = kv_mutation_one_put(&m, family, qualifier, qualifier_len, ts, value, value_len);
    if (st != KV_OK)
        kv_api_fail(s, st, "put: %s (family '%s', a %zu-byte qualifier, a %zu-byte value)",
                    kv_strerror(st), family ? family : "(null)", qualifier_len, value_len);
    if (st == KV_OK) st = kv_mutate(s, table, &m.m, wopts);
    kv_mutation_one_done(&m);
    return st;
}

kv_status kv_delete(kv_store *s, const char *table, const void *row, size_t row_len,
                    const char *family, const void *qualifier, size_t qualifier_len, int64_t ts,
                    const kv_write_options *wopts) {
    kv_api_begin(s);
    /* on the stack, as kv_put's */
    kv_mutation_one m;
    kv_status st = kv_mutation_one_row(&m, row, row_len);
    if (st != KV_OK) return kv_api_fail(s, st, "bad row key (%zu bytes)", row_len);
    st = kv_mutation_one_delete_column(&m, family, qualifier, qualifier_len, ts);
    if (st != KV_OK)
        kv_api_fail(s, st, "delete: %s (family '%s', a %zu-byte qualifier)", kv_strerror(st),
                    family ? family : "(null)", qualifier_len);
    if (st == KV_OK) st = kv_mutate(s, table, &m.m, wopts);
    kv_mutation_one_done(&m);
    return st;
}

/* Runs one increment or append; the new value is left in *result. */
static kv_status read_modify_write(kv_store *s, const char *table, kv_rmw *op,
                                   const kv_write_options *wopts, kv_buf *result) {
    kv_api_begin(s);
    if (!s) return KV_INVALID;
    if (!op->row || !op->family)
        return kv_api_fail(s, KV_INVALID, "%s: no %s given", op->kind == KV_RMW_INCREMENT ? "incr" : "append",
                           op->row ? "family" : "row");
    kv_status st = kv_api_durability(s, wopts, &op->durability);
    if (st == KV_OK) st = kv_api_writable(s, op->kind == KV_RMW_INCREMENT ? "incr" : "append");
    if (st == KV_OK) st = s->ops->xReadModifyWrite(s->b, table, op, result);
    return st;
}

kv_status kv_increment(int64_t *result, kv_store *s, const char *table, const void *row,
                       size_t row_len, const char *family, const void *qualifier,
                       size_t qualifier_len, int64_t delta, const kv_write_options *wopts) {
    kv_rmw op = {.kind = KV_RMW_INCREMENT, .row = row, .row_len = row_len, .family = family,
                 .qualifier = qualifier, .qualifier_len = qualifier_len, .delta = delta};
    kv_buf value = {0};
    kv_status st = read_modify_write(s, table, &op, wopts, &value);
    if (st == KV_OK && value.len != 8)
        st = kv_api_fail(s, KV_CORRUPT, "the %s backend returned a counter of %zu bytes",
                         s->ops->name, value.len);
    if (st == KV_OK && result) *result = (int64_t)kv_get_be64(value.data);
    kv_buf_free(&value);
    return st;
}

kv_status kv_append(void **result, size_t *result_len, kv_store *s, const char *table,
                    const void *row, size_t row_len, const char *family, const void *qualifier,
                    size_t qualifier_len, const void *data, size_t data_len,
                    const kv_write_options *wopts) {
    if (result) *result = NULL;
    if (result_len) *result_len = 0;
    if (data_len && !data) {
        kv_api_begin(s);
        return kv_api_fail(s, KV_INVALID, "append: %zu bytes of data at NULL", data_len);
    }
    kv_rmw op = {.kind = KV_RMW_APPEND, .row = row, .row_len = row_len, .family = family,
                 .qualifier = qualifier, .qualifier_len = qualifier_len, .data = data,
                 .data_len = data_len};
    kv_buf value = {0};
    kv_status st = read_modify_write(s, table, &op, wopts, &value);
    /* An empty value still gets a buffer, so that success is non-NULL. */
    if (st == KV_OK && result && !value.data && kv_buf_reserve(&value, 1)) st = KV_NO_MEMORY;
    if (st == KV_OK && result) {
        *result = value.data;
        if (result_len) *result_len = value.len;
        value = (kv_buf){0};
    }
    kv_buf_free(&value);
    return st;
}

kv_status kv_check_and_mutate(bool *applied, kv_store *s, const char *table, const void *row,
                              size_t row_len, const char *family, const void *qualifier,
                              size_t qualifier_len, kv_compare_op op, const void *expected,
                              size_t expected_len, const kv_mutation *m,
                              const kv_write_options *wopts) {
    *applied = false;
    kv_api_begin(s);
    if (!s) return KV_INVALID;
    if (!row || !family || !m)
        return kv_api_fail(s, KV_INVALID, "check-and-mutate: no %s given",
                           !row ? "row" : !family ? "family" : "mutation");
    if (m->row_len != row_len || memcmp(m->bytes.data, row, row_len) != 0)
        return kv_api_fail(s, KV_INVALID, "check-and-mutate: the mutation is for another row");
    kv_durability d;
    kv_status st = kv_api_durability(s, wopts, &d);
    if (st == KV_OK) st = kv_api_writable(s, "check-and-mutate");
    if (st == KV_OK) st = check_mutation(s, m, "check-and-mutate");
    if (st != KV_OK) return st;
    kv_check check = {.row = row, .row_len = row_len, .family = family, .qualifier = qualifier,
                      .qualifier_len = qualifier_len, .op = op, .expected = expected,
                      .expected_len = expected_len};
    return s->ops->xCheckAndMutate(s->b, table, &check, m, d, applied);
}
