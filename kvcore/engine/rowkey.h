/**
 * @file rowkey.h
 * The length of the row part of an internal key (keys.h), found with
 * memchr for the common row without zero bytes: the read path and the
 * memstore's row filter ask it for every entry. Calls keys.c for rows with
 * zero bytes and malformed keys.
 */
#ifndef KV_ROWKEY_H
#define KV_ROWKEY_H

#include "hbase/keys.h"

#include <string.h>

/* kv_key_row_prefix_len(key, len): the first zero byte of esc(row) either
   ends it (0x00 0x01) or escapes a zero (0x00 0xFF, left to keys.c).
   *plain: the row holds no zero byte, so esc(row) is the row's bytes and
   its terminator (a scan copies them without decoding). */
static inline size_t kv_row_prefix_len_plain(const uint8_t *key, size_t len, bool *plain) {
    const uint8_t *z = len ? memchr(key, 0x00, len) : NULL;
    *plain = z && (size_t)(z - key) + 1 < len && z[1] == 0x01;
    if (*plain)
        return (size_t)(z - key) + 2;
    return kv_key_row_prefix_len(key, len);
}

static inline size_t kv_row_prefix_len(const uint8_t *key, size_t len) {
    bool plain;
    return kv_row_prefix_len_plain(key, len, &plain);
}

#endif
