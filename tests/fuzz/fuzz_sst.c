/*
 * libFuzzer target: the sorted-file reader (kvcore/table/sst_read.c) on an
 * arbitrary file. The input is the file; it is opened (footer, index,
 * bloom), iterated forwards through a small block cache, sought to keys
 * taken from the input and backwards from the end, and the bloom filter
 * asked. Fuzz builds accept every checksum (KV_CHECKSUM_OK) so that the
 * block and index structure is reached; the replay build checks them.
 */
#include "fuzz_util.h"

#include "table/sst.h"

/* Walks at most limit entries of it, touching every key and value byte. */
static unsigned walk(kv_iter *it, unsigned limit) {
    unsigned acc = 0;
    for (unsigned n = 0; n < limit && it->valid(it); n++) {
        size_t kl = 0, vl = 0;
        const uint8_t *k = it->key(it, &kl);
        const uint8_t *v = it->value(it, &vl);
        if (kl)
            acc += k[0] + k[kl - 1];
        if (vl)
            acc += v[0] + v[vl - 1];
        it->next(it);
    }
    (void)it->status(it);
    return acc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *dir = fuzz_scratch_dir();
    if (!dir)
        return 0;
    char path[600];
    snprintf(path, sizeof path, "%s/000001.sst", dir);
    if (fuzz_write_file(path, data, size) != 0)
        return 0;
    kv_cache *cache = kv_cache_new(1u << 20);
    kv_sst_reader *r = NULL;
    char err[512];
    if (kv_sst_open(&r, kv_env_posix(), path, 1, cache, err, sizeof err) == KV_OK) {
        kv_iter *it = kv_sst_iter(r, true, false);
        if (it) {
            it->seek(it, NULL, 0);
            walk(it, 100000);
            size_t klen = size < 24 ? size : 24;
            it->seek(it, data, klen);
            walk(it, 16);
            it->seek_before(it, NULL, 0);
            walk(it, 4);
            it->seek_before(it, data + size - klen, klen);
            walk(it, 4);
            it->destroy(it);
        }
        (void)kv_sst_may_contain_row(r, data, size < 16 ? size : 16);
        (void)kv_sst_may_contain_column(r, data, size < 20 ? size : 20);
        kv_sst_last_error(r, err, sizeof err);
        kv_sst_close(r);
    }
    kv_cache_free(cache);
    return 0;
}
