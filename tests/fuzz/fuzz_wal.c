/*
 * libFuzzer target: the log reader (kvcore/engine/wal.c) and the decoder
 * of its records (kvcore/engine/batch.c), on an arbitrary log file: every
 * record is read and decoded, as recovery does. Fuzz builds accept every
 * record checksum (KV_CHECKSUM_OK); the replay build checks them.
 */
#include "fuzz_util.h"

#include "engine/batch.h"
#include "engine/wal.h"

static kv_status visit(void *ctx, const kv_batch_op *op) {
    unsigned *acc = ctx;
    if (op->row_len)
        *acc += op->row[op->row_len - 1];
    if (op->qualifier_len)
        *acc += op->qualifier[op->qualifier_len - 1];
    if (op->value_len)
        *acc += op->value[op->value_len - 1];
    return KV_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *dir = fuzz_scratch_dir();
    if (!dir)
        return 0;
    char path[600];
    snprintf(path, sizeof path, "%s/000002.log", dir);
    if (fuzz_write_file(path, data, size) != 0)
        return 0;
    kv_wal_reader *r = NULL;
    char err[512];
    if (kv_wal_reader_open(&r, kv_env_posix(), path, err, sizeof err) != KV_OK)
        return 0;
    unsigned acc = 0;
    for (int n = 0; n < 100000; n++) {
        const uint8_t *rec = NULL;
        size_t len = 0;
        kv_status st = kv_wal_read(r, &rec, &len, err, sizeof err);
        if (st != KV_OK) {
            /* A failure is sticky: the next call says the same. */
            if (kv_wal_read(r, &rec, &len, err, sizeof err) != st)
                abort();
            break;
        }
        uint64_t last = 0;
        (void)kv_batch_decode(rec, len, visit, &acc, &last);
    }
    (void)kv_wal_reader_offset(r);
    kv_wal_reader_close(r);
    return (int)(acc & 0);
}
