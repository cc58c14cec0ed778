/*
 * The libkvcore engine of cellbench: one table "bench" with one family
 * "cf"; a key is a row, the qualifier is empty, the value is the cell.
 * Writes use kv_put with the default durability (the log is written with
 * one write(2) per put, not fsync'd); reads use kv_get, scans kv_scan with
 * start_row and limit; deletes a column delete. The HBase-shaped workloads
 * use table "hbase" (VERSIONS 10) with real qualifiers, timestamps, time
 * ranges and kv_check_and_mutate; widerow's scan returns its row in parts
 * of 1,000 cells (kv_scan_set_batch, HBase's Scan.setBatch);
 * check-and-put reuses one kv_mutation (kv_mutation_reset) as a client
 * reuses its buffers, so that the loop allocates nothing per call. Calls
 * only kvcore.h.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "engine_kvcore.h"
#include "kvcore.h"

static const char kTable[] = "bench";
static const char kFamily[] = "cf";
/* The table of the HBase-shaped workloads: VERSIONS 10. */
static const char kCellTable[] = "hbase";
/* widerow reads its row in parts of this many cells (kv_scan_set_batch). */
#define SCAN_BATCH 1000

/* e->db: the store and check-and-put's mutation kept between calls (taken
   and given back atomically: calls from several threads each get one). */
typedef struct kvc {
    kv_store *s;
    _Atomic(kv_mutation *) spare;
} kvc;

static kv_store *store_of(const engine *e) { return e->db ? ((kvc *)e->db)->s : NULL; }

kv_store *engine_kvcore_store(const engine *e) { return store_of(e); }

int engine_kvcore_adopt(engine *e, kv_store *s) {
    kvc *k = calloc(1, sizeof *k);
    if (!k) {
        snprintf(e->err, sizeof e->err, "out of memory");
        return -1;
    }
    k->s = s;
    e->db = k;
    return 0;
}

kv_store *engine_kvcore_disown(engine *e) {
    kvc *k = e->db;
    if (!k) return NULL;
    kv_store *s = k->s;
    kv_mutation_free(atomic_load(&k->spare));
    free(k);
    e->db = NULL;
    return s;
}

static void kvc_version(char *buf, size_t len) { snprintf(buf, len, "%s", KVCORE_VERSION); }

static int fail(engine *e, const char *what, int st) {
    const char *detail = e->db != NULL ? kv_store_errmsg(store_of(e)) : "";
    snprintf(e->err, sizeof e->err, "%s: %s%s%s", what, kv_strerror(st), *detail ? ": " : "",
             detail);
    return -1;
}

static int kvc_open(engine *e, const char *dir, const engine_config *cfg) {
    kv_store_options o = KV_STORE_OPTIONS_INIT;
    kv_local_options local = KV_LOCAL_OPTIONS_INIT;
    o.create_if_missing = true;
    local.write_buffer_size = cfg->write_buffer_size;
    local.block_cache_size = cfg->cache_size;
    o.local = &local;
    o.owner = "cellbench";
    char msg[400] = "";
    kv_store *s = NULL;
    kv_status st = kv_store_open(&s, dir, &o, msg, sizeof msg);
    if (st != KV_OK) {
        snprintf(e->err, sizeof e->err, "kv_store_open %s: %s: %s", dir, kv_strerror(st), msg);
        return -1;
    }
    if (engine_kvcore_adopt(e, s) != 0) {
        kv_store_close(s);
        return -1;
    }
    kv_family_desc fam = KV_FAMILY_DESC_INIT;
    snprintf(fam.name, sizeof fam.name, "%s", kFamily);
    fam.bloom = cfg->bloom_bits > 0 ? KV_BLOOM_ROW : KV_BLOOM_NONE;
    if (cfg->block_size > 0)
        fam.blocksize = (int32_t)cfg->block_size;
    fam.compression = cfg->compression == ENGINE_COMPRESSION_LZ4      ? KV_COMPRESSION_LZ4
                      : cfg->compression == ENGINE_COMPRESSION_SNAPPY ? KV_COMPRESSION_SNAPPY
                                                                      : KV_COMPRESSION_NONE;
    fam.encoding = cfg->encoding == ENGINE_ENCODING_PREFIX ? KV_ENCODING_PREFIX
                   : cfg->encoding == ENGINE_ENCODING_DIFF ? KV_ENCODING_DIFF
                                                           : KV_ENCODING_NONE;
    st = kv_table_create(s, kTable, &fam, 1);
    if (st == KV_OK || st == KV_EXISTS) {
        fam.versions = CELL_VERSIONS;
        st = kv_table_create(s, kCellTable, &fam, 1);
    }
    if (st != KV_OK && st != KV_EXISTS) {
        fail(e, "kv_table_create", st);
        kv_store_close(engine_kvcore_disown(e));
        return -1;
    }
    return 0;
}

static int kvc_close(engine *e) {
    kv_status st = kv_store_close(engine_kvcore_disown(e));
    if (st != KV_OK) {
        snprintf(e->err, sizeof e->err, "kv_store_close: %s", kv_strerror(st));
        return -1;
    }
    return 0;
}

static int kvc_put(engine *e, const char *key, size_t key_len, const char *value,
                   size_t value_len) {
    kv_status st = kv_put(store_of(e), kTable, key, key_len, kFamily, "", 0, KV_LATEST_TIMESTAMP, value,
                          value_len, NULL);
    return st == KV_OK ? 0 : fail(e, "kv_put", st);
}

static int kvc_get(engine *e, const char *key, size_t key_len, bool *found) {
    kv_result *r = NULL;
    kv_status st = kv_get(&r, store_of(e), kTable, key, key_len, NULL);
    if (st != KV_OK)
        return fail(e, "kv_get", st);
    *found = r->ncells > 0;
    kv_result_free(r);
    return 0;
}

static int kvc_scan(engine *e, const char *start, size_t start_len, uint64_t limit,
                    uint64_t *entries, uint64_t *bytes) {
    kv_read_options ro = KV_READ_OPTIONS_INIT;
    ro.start_row = start;
    ro.start_row_len = start_len;
    ro.limit = limit;
    kv_scan *sc = NULL;
    kv_status st = kv_scan_open(&sc, store_of(e), kTable, &ro);
    if (st != KV_OK)
        return fail(e, "kv_scan_open", st);
    uint64_t n = 0, b = 0;
    const kv_result *row;
    while ((st = kv_scan_next(&row, sc)) == KV_OK) {
        n++;
        b += row->row_len;
        for (size_t i = 0; i < row->ncells; i++)
            b += row->cells[i].value_len;
    }
    kv_scan_close(sc);
    if (st != KV_END)
        return fail(e, "kv_scan_next", st);
    *entries = n;
    *bytes = b;
    return 0;
}

static int kvc_del(engine *e, const char *key, size_t key_len) {
    kv_status st = kv_delete(store_of(e), kTable, key, key_len, kFamily, "", 0, KV_LATEST_TIMESTAMP, NULL);
    return st == KV_OK ? 0 : fail(e, "kv_delete", st);
}

static int kvc_put_cell(engine *e, const char *row, size_t row_len, const char *qual,
                        size_t qual_len, int64_t ts, const char *value, size_t value_len) {
    kv_status st = kv_put(store_of(e), kCellTable, row, row_len, kFamily, qual, qual_len, ts, value,
                          value_len, NULL);
    return st == KV_OK ? 0 : fail(e, "kv_put", st);
}

static int kvc_get_cell(engine *e, const char *row, size_t row_len, const char *qual,
                        size_t qual_len, int64_t tmin, int64_t tmax, bool *found,
                        uint64_t *bytes, char *value, size_t *value_len) {
    kv_column col = {kFamily, qual, qual_len};
    kv_read_options ro = KV_READ_OPTIONS_INIT;
    ro.columns = &col;
    ro.ncolumns = 1;
    ro.time_min = tmin;
    ro.time_max = tmax;
    kv_result *r = NULL;
    kv_status st = kv_get(&r, store_of(e), kCellTable, row, row_len, &ro);
    if (st != KV_OK)
        return fail(e, "kv_get", st);
    *found = r->ncells > 0;
    for (size_t i = 0; i < r->ncells; i++)
        *bytes += row_len + r->cells[i].qualifier_len + r->cells[i].value_len;
    if (value != NULL) {
        size_t n = *found ? r->cells[0].value_len : 0;
        if (n > *value_len)
            n = *value_len;
        if (n)
            memcpy(value, r->cells[0].value, n);
        *value_len = n;
    }
    kv_result_free(r);
    return 0;
}

static int kvc_scan_row(engine *e, const char *row, size_t row_len, uint64_t *cells,
                        uint64_t *bytes) {
    kv_read_options ro = KV_READ_OPTIONS_INIT;
    ro.start_row = row;
    ro.start_row_len = row_len;
    ro.limit = 1;
    kv_scan *sc = NULL;
    kv_status st = kv_scan_open(&sc, store_of(e), kCellTable, &ro);
    if (st != KV_OK)
        return fail(e, "kv_scan_open", st);
    /* in parts, as an HBase client reads a wide row (Scan.setBatch) */
    st = kv_scan_set_batch(sc, SCAN_BATCH);
    const kv_result *r;
    uint64_t n = 0, b = 0;
    while (st == KV_OK && (st = kv_scan_next(&r, sc)) == KV_OK && r->row_len == row_len &&
           memcmp(r->row, row, row_len) == 0) {
        n += r->ncells;
        for (size_t i = 0; i < r->ncells; i++)
            b += row_len + r->cells[i].qualifier_len + r->cells[i].value_len;
    }
    kv_scan_close(sc);
    if (st != KV_OK && st != KV_END)
        return fail(e, "kv_scan_next", st);
    *cells = n;
    *bytes = b;
    return 0;
}

static int kvc_check_and_put(engine *e, const char *row, size_t row_len, const char *qual,
                             size_t qual_len, const char *expected, size_t expected_len,
                             int64_t ts, const char *value, size_t value_len, bool *applied) {
    kvc *k = e->db;
    kv_mutation *m = atomic_exchange(&k->spare, NULL);
    kv_status st = m ? kv_mutation_reset(m, row, row_len) : kv_mutation_new(&m, row, row_len);
    if (st == KV_OK)
        st = kv_mutation_put(m, kFamily, qual, qual_len, ts, value, value_len);
    if (st == KV_OK)
        st = kv_check_and_mutate(applied, k->s, kCellTable, row, row_len, kFamily, qual, qual_len,
                                 KV_CMP_EQUAL, expected, expected ? expected_len : 0, m, NULL);
    kv_mutation *none = NULL;
    if (!m || !atomic_compare_exchange_strong(&k->spare, &none, m))
        kv_mutation_free(m);
    return st == KV_OK ? 0 : fail(e, "kv_check_and_mutate", st);
}

const engine_ops engine_kvcore_ops = {
    "kvcore", kvc_version, kvc_open, kvc_close, kvc_put, kvc_get, kvc_scan,
    kvc_del, NULL, kvc_put_cell, kvc_get_cell, kvc_scan_row, kvc_check_and_put,
};
