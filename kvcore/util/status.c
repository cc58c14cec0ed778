/**
 * @file status.c
 * Names of kv_status codes and the small allocation helpers of the public
 * header that every module shares.
 */
#include "kvcore.h"

#include <stdlib.h>

const char *kv_strerror(int status) {
    switch (status) {
    case KV_OK: return "success";
    case KV_NOT_FOUND: return "not found";
    case KV_INVALID: return "invalid argument";
    case KV_EXISTS: return "already exists";
    case KV_CORRUPT: return "data corruption detected";
    case KV_IO: return "I/O error";
    case KV_NO_SPACE: return "no space left on device";
    case KV_LOCKED: return "store is locked by another process";
    case KV_DISABLED: return "table is disabled";
    case KV_ENABLED: return "table is enabled";
    case KV_NOT_EMPTY: return "namespace is not empty";
    case KV_NO_FAMILY: return "no such column family";
    case KV_TOO_LARGE: return "key or value too large";
    case KV_NOT_COUNTER: return "value is not an 8-byte counter";
    case KV_READ_ONLY: return "store is read-only";
    case KV_NO_MEMORY: return "out of memory";
    case KV_END: return "end of scan";
    case KV_NOT_SUPPORTED: return "not supported by this store's backend";
    case KV_UNAVAILABLE: return "store unavailable";
    case KV_TIMEOUT: return "timed out";
    default: return "unknown status";
    }
}

void kv_free_names(char **names) {
    if (!names) return;
    for (char **p = names; *p; p++) free(*p);
    free(names);
}

void kv_free_properties(kv_property *props, size_t count) {
    if (!props) return;
    for (size_t i = 0; i < count; i++) {
        free((char *)props[i].key);
        free((char *)props[i].value);
    }
    free(props);
}
