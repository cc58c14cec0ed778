/*
 * libFuzzer target: the HBase filter language (kv_filter_parse,
 * kvcore/hbase/filter_parse.c) and its evaluation (filter_eval.c) on a few
 * rows of an in-memory "model:" store, read with scans forwards and
 * backwards and with a get. The input is the filter string.
 */
#include "fuzz_util.h"

#include "kvcore.h"

static kv_store *store(void) {
    static kv_store *s;
    if (s)
        return s;
    kv_store_options o = KV_STORE_OPTIONS_INIT;
    char err[256];
    if (kv_store_open(&s, "model:fuzz", &o, err, sizeof err) != KV_OK)
        abort();
    kv_family_desc f[2] = {KV_FAMILY_DESC_INIT, KV_FAMILY_DESC_INIT};
    snprintf(f[0].name, sizeof f[0].name, "f");
    snprintf(f[1].name, sizeof f[1].name, "g");
    f[1].versions = 3;
    if (kv_table_create(s, "t", f, 2) != KV_OK)
        abort();
    static const char *const rows[] = {"a", "abc", "b\x01", "row1", "row2", "zz"};
    static const char *const quals[] = {"q", "qa", "x", ""};
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++)
        for (size_t q = 0; q < sizeof quals / sizeof quals[0]; q++)
            for (int64_t ts = 1; ts <= 2; ts++) {
                char v[32];
                int n = snprintf(v, sizeof v, "v%zu%zu%lld", r, q, (long long)ts);
                if (kv_put(s, "t", rows[r], strlen(rows[r]), q % 2 ? "g" : "f", quals[q],
                           strlen(quals[q]), ts, v, (size_t)n, NULL) != KV_OK)
                    abort();
            }
    return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > 4096)
        return 0;
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    kv_filter *f = NULL;
    char err[256];
    if (kv_filter_parse(&f, text, err, sizeof err) == KV_OK) {
        kv_store *s = store();
        kv_read_options ro = KV_READ_OPTIONS_INIT;
        ro.filter = f;
        ro.max_versions = 2;
        for (int rev = 0; rev < 2; rev++) {
            ro.reversed = rev;
            kv_scan *sc = NULL;
            if (kv_scan_open(&sc, s, "t", &ro) == KV_OK) {
                const kv_result *row;
                while (kv_scan_next(&row, sc) == KV_OK)
                    ;
                kv_scan_close(sc);
            }
        }
        kv_result *res = NULL;
        if (kv_get(&res, s, "t", "row1", 4, &ro) == KV_OK)
            kv_result_free(res);
        kv_filter_free(f);
    }
    free(text);
    return 0;
}
