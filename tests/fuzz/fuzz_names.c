/*
 * libFuzzer target: the FUSE driver's file-name decoder (fusefs/names.c,
 * compiled in unchanged). A component that decodes to a key (not a hashed
 * long name) must be the canonical encoding of that key; version suffixes
 * and timestamps must round-trip.
 */
#include "fuzz_util.h"

#include "names.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *name = (const char *)data;
    if (size > 4 * FS_NAME_MAX || memchr(data, '/', size) || memchr(data, 0, size))
        return 0;
    static fs_name_key k;
    int rc = fs_name_decode(&k, name, size);
    if (rc == 0 && !k.hashed) {
        if (!fs_name_matches(name, size, k.bytes, k.len)) {
            fprintf(stderr, "decoded name does not encode back\n");
            abort();
        }
        char out[FS_NAME_MAX + 1];
        size_t n = fs_name_encode(out, k.bytes, k.len);
        if (n != size || memcmp(out, name, size) != 0)
            abort();
    }
    size_t base = 0;
    int64_t ts = 0;
    if (fs_name_split_version(name, size, &base, &ts) == 1) {
        char sfx[FS_TS_TEXT_MAX + 1];
        size_t n = fs_ts_suffix(sfx, ts);
        if (base + n != size || memcmp(sfx, name + base, n) != 0) {
            fprintf(stderr, "version suffix does not round-trip\n");
            abort();
        }
    }
    int64_t v = 0;
    if (fs_ts_parse(name, size, &v) == 0) {
        char sfx[FS_TS_TEXT_MAX + 1];
        size_t n = fs_ts_suffix(sfx, v);
        if (n != size + 1 || memcmp(sfx + 1, name, size) != 0)
            abort();
    }
    return 0;
}
