/**
 * @file mutation.h
 * The inside of a kv_mutation (built by the public kv_mutation_* calls in
 * mutation.c): the operations of one row with their bytes in one buffer,
 * so that applying and logging them needs no further allocation. Every
 * backend reads mutations through this header; the builder is shared above
 * the backend seam. Also the comparison rule of check-and-mutate.
 */
#ifndef KV_HBASE_MUTATION_H
#define KV_HBASE_MUTATION_H

#include "kvcore.h"
#include "util/coding.h"

typedef struct kv_op {
    uint32_t family_index;      /* position in the mutation's family names */
    kv_cell_type type;
    int64_t ts;                 /* KV_LATEST_TIMESTAMP: the store clock */
    uint32_t qoff, qlen;        /* qualifier bytes in m->bytes */
    uint32_t voff, vlen;        /* value bytes in m->bytes */
    bool whole_row;             /* delete_row: expands to every family */
} kv_op;

struct kv_mutation {
    kv_buf bytes;               /* row, qualifiers and values */
    size_t row_len;             /* row is bytes.data[0..row_len) */
    size_t nops, capops;
    kv_op *ops;
    size_t nfamilies;
    char **families;            /* distinct family names used */
};

/* A mutation of one put in the caller's storage (kv_put's): no allocation
   when row, qualifier and value fit in inline_bytes, one otherwise. Built
   with kv_mutation_one_row (the checks and codes of kv_mutation_new) then
   kv_mutation_one_put (those of kv_mutation_put; family is not copied and
   must outlive the mutation); o->m is then an ordinary mutation that must
   not be changed. Ended with kv_mutation_one_done, also after a failed
   kv_mutation_one_put. kv_mutation_one_delete_column instead of
   kv_mutation_one_put makes it one column marker (kv_delete's; the checks
   and codes of kv_mutation_delete_column). */
typedef struct kv_mutation_one {
    kv_mutation m;
    kv_op op;
    char *family;
    const void *row;
    uint8_t inline_bytes[512];
} kv_mutation_one;
kv_status kv_mutation_one_row(kv_mutation_one *o, const void *row, size_t row_len);
kv_status kv_mutation_one_put(kv_mutation_one *o, const char *family, const void *qualifier,
                              size_t qualifier_len, int64_t ts, const void *value,
                              size_t value_len);
kv_status kv_mutation_one_delete_column(kv_mutation_one *o, const char *family,
                                        const void *qualifier, size_t qualifier_len, int64_t ts);
void kv_mutation_one_done(kv_mutation_one *o);

/* A deep copy (NULL when memory runs out). */
kv_mutation *kv_mutation_copy(const kv_mutation *m);
/* Whether m deletes "the newest version" of a column (a Delete with
   KV_LATEST_TIMESTAMP), which a backend must resolve by reading. */
bool kv_mutation_deletes_newest(const kv_mutation *m);
/* Whether a check-and-mutate passes, given c = compare(current, expected)
   (memcmp order): HBase's "value OP expected". */
bool kv_compare_passes(kv_compare_op op, int c);

#endif
