/**
 * @file schema.c
 * HBase's naming rules (kv_check_name, table names as "ns:t") and the
 * checks of a family descriptor's attributes, shared by every backend's
 * catalog. Contracts in kvcore.h and schema.h; calls only libc.
 */
#include "schema.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

kv_status kv_check_name(const char *name) {
    if (!name || !*name) return KV_INVALID;
    size_t n = strlen(name);
    if (n > KV_NAME_MAX) return KV_INVALID;
    if (!(isalnum((unsigned char)name[0]) || name[0] == '_')) return KV_INVALID;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)name[i];
        if (!(isalnum(c) || c == '_' || c == '-' || c == '.')) return KV_INVALID;
    }
    if (strstr(name, "..")) return KV_INVALID;
    return KV_OK;
}

kv_status kv_split_table_name(const char *full, char *ns, char *name) {
    if (!full) return KV_INVALID;
    const char *colon = strchr(full, ':');
    if (colon) {
        size_t nl = (size_t)(colon - full);
        if (nl == 0 || nl > KV_NAME_MAX || strchr(colon + 1, ':')) return KV_INVALID;
        memcpy(ns, full, nl);
        ns[nl] = 0;
        full = colon + 1;
    } else {
        strcpy(ns, "default");
    }
    if (strlen(full) > KV_NAME_MAX) return KV_INVALID;
    strcpy(name, full);
    if (kv_check_name(ns) != KV_OK || kv_check_name(name) != KV_OK) return KV_INVALID;
    return KV_OK;
}

kv_status kv_family_desc_check(const kv_family_desc *f, char *err, size_t errlen) {
#define BAD(...) do { if (err) snprintf(err, errlen, __VA_ARGS__); return KV_INVALID; } while (0)
    if (f->version != KV_FAMILY_DESC_VERSION)
        BAD("kv_family_desc has version %d; this library knows version %d (start from "
            "KV_FAMILY_DESC_INIT)", f->version, KV_FAMILY_DESC_VERSION);
    if (kv_check_name(f->name) != KV_OK) BAD("illegal family name '%s'", f->name);
    if (f->versions < 1) BAD("VERSIONS of '%s' must be at least 1", f->name);
    if (f->min_versions < 0 || f->min_versions > f->versions)
        BAD("MIN_VERSIONS of '%s' must be between 0 and VERSIONS", f->name);
    if (f->ttl_seconds <= 0) BAD("TTL of '%s' must be positive", f->name);
    if ((unsigned)f->keep_deleted > KV_KEEP_DELETED_TTL) BAD("bad KEEP_DELETED_CELLS");
    if ((unsigned)f->compression > KV_COMPRESSION_SNAPPY) BAD("bad COMPRESSION");
    if ((unsigned)f->bloom > KV_BLOOM_ROWCOL) BAD("bad BLOOMFILTER");
    if ((unsigned)f->encoding > KV_ENCODING_DIFF) BAD("bad DATA_BLOCK_ENCODING");
    if (f->blocksize < 1024 || f->blocksize > 16 * 1024 * 1024)
        BAD("BLOCKSIZE of '%s' must be between 1024 and 16777216", f->name);
    return KV_OK;
#undef BAD
}

