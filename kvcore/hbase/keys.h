/**
 * @file keys.h
 * The one owner of cell order. Inside a family, every entry of a memstore
 * or sorted file is keyed by an "internal key", a byte string whose memcmp
 * order is the cell order:
 *
 *   esc(row) | kind | esc(qualifier) | ts' (8) | type' (1) | seq' (8)
 *
 * esc(x): x with each 0x00 written as 0x00 0xFF, then the terminator
 *         0x00 0x01 (order-preserving and prefix-free).
 * kind:   0x00 for family-level markers (DeleteFamily, DeleteFamilyVersion,
 *         stored with an empty qualifier) so that they precede the row's
 *         columns; 0x01 for everything else.
 * ts':    big-endian ~(ts ^ 2^63): timestamps descending.
 * type':  255 - HBase type code: delete markers before puts at one ts.
 * seq':   big-endian ~seq: newer mutations first.
 *
 * The bloom key of a ROW filter is esc(row); of a ROWCOL filter
 * esc(row)|kind|esc(qualifier). Format: doc/sorted_file_format.md.
 */
#ifndef KV_KEYS_H
#define KV_KEYS_H

#include "kvcore.h"
#include "util/coding.h"

#define KV_KIND_FAMILY_MARKER 0x00
#define KV_KIND_COLUMN 0x01
#define KV_KEY_SUFFIX_LEN 17   /* ts' + type' + seq' */

/* A decoded internal key; row and qualifier point into @c buf when they had
   to be unescaped, else into the key itself. */
typedef struct kv_key_parts {
    const uint8_t *row; size_t row_len;
    const uint8_t *qualifier; size_t qualifier_len;
    uint8_t kind;
    int64_t ts;
    kv_cell_type type;
    uint64_t seq;
    size_t row_prefix_len;     /* bytes of esc(row) in the key */
    size_t column_prefix_len;  /* bytes of esc(row)|kind|esc(qualifier) */
} kv_key_parts;

/* Upper bound of the encoded size. */
size_t kv_key_max_len(size_t row_len, size_t qualifier_len);
/* Appends the encoded key to b. Returns 0 or -1 (no memory). */
int kv_key_encode(kv_buf *b, const void *row, size_t row_len, uint8_t kind,
                  const void *qualifier, size_t qualifier_len, int64_t ts,
                  kv_cell_type type, uint64_t seq);
/* Appends esc(row) only: the smallest key of the row and its bloom key. */
int kv_key_encode_row(kv_buf *b, const void *row, size_t row_len);
/* Appends esc(row)|kind|esc(qualifier): a column's first key. */
int kv_key_encode_column(kv_buf *b, const void *row, size_t row_len, uint8_t kind,
                         const void *qualifier, size_t qualifier_len);
/* Appends ts' (8 bytes) of timestamp ts: after a column's prefix
   (kv_key_encode_column) it is a key just before the column's entries at
   or below ts, and after its entries above ts (a seek past newer versions).
   Returns 0 or -1 (no memory). */
int kv_key_append_ts(kv_buf *b, int64_t ts);
/* Decodes; unescaped row/qualifier bytes go into *scratch (reused).
   Returns KV_OK or KV_CORRUPT. */
kv_status kv_key_decode(kv_key_parts *out, const uint8_t *key, size_t len, kv_buf *scratch);
/* Length of esc(row) at the start of key; 0 if malformed. */
size_t kv_key_row_prefix_len(const uint8_t *key, size_t len);
/* Length of esc(row)|kind|esc(qualifier); 0 if malformed. */
size_t kv_key_column_prefix_len(const uint8_t *key, size_t len);
/* Timestamp and sequence of a well-formed key (from its fixed suffix). */
int64_t kv_key_timestamp(const uint8_t *key, size_t len);
uint64_t kv_key_sequence(const uint8_t *key, size_t len);
kv_cell_type kv_key_type(const uint8_t *key, size_t len);
int kv_key_compare(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen);

#endif
