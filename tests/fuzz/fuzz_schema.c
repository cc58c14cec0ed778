/*
 * libFuzzer target: the family descriptor text parser
 * (kv_family_desc_parse, kvcore/hbase/schema_text.c). Whatever parses must
 * format and parse back to the same text (the contract of
 * kv_family_desc_format); a difference aborts.
 */
#include "fuzz_util.h"

#include "kvcore.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > 4096)
        return 0;
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    kv_family_desc d = KV_FAMILY_DESC_INIT;
    char err[256];
    if (kv_family_desc_parse(&d, text, err, sizeof err) == KV_OK) {
        char a[1024], b[1024];
        int n = kv_family_desc_format(a, sizeof a, &d);
        if (n < 0 || (size_t)n >= sizeof a)
            abort();
        kv_family_desc e = KV_FAMILY_DESC_INIT;
        if (kv_family_desc_parse(&e, a, err, sizeof err) != KV_OK) {
            fprintf(stderr, "formatted descriptor does not parse: %s: %s\n", a, err);
            abort();
        }
        kv_family_desc_format(b, sizeof b, &e);
        if (strcmp(a, b) != 0) {
            fprintf(stderr, "round trip differs:\n%s\n%s\n", a, b);
            abort();
        }
    }
    free(text);
    return 0;
}
