/*
 * The Cloud Bigtable engine of cellbench, for Google's emulator only: the
 * same table "bench" with one family "cf" as the kvcore engine, and its
 * puts, gets and scans (engine_kvcore.c), through kvcore.h on a
 * bigtable:// location, so that the figures are those of the
 * whole path (the backend's mapping, gRPC, the emulator). Each open takes
 * a new instance on the emulator at $BIGTABLE_EMULATOR_HOST, which starts
 * empty, and each close drops the table again, so that the emulator's
 * memory does not grow from run to run. The directory cellbench gives is
 * not used. Without BIGTABLE_EMULATOR_HOST the open fails, saying how to
 * start the emulator: a benchmark against the real service would measure
 * the network and cost money, and is not what this engine is for. The
 * figures are the emulator's (an in-memory Go program), not Cloud
 * Bigtable's; the version text says so.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "engine_kvcore.h"
#include "kvcore.h"

static const char kTable[] = "bench";   /* as engine_kvcore.c */
static const char kFamily[] = "cf";
static const char kCellTable[] = "hbase";   /* as engine_kvcore.c */

static void bt_version(char *buf, size_t len) {
    const char *host = getenv("BIGTABLE_EMULATOR_HOST");
    /* (cellbench gives 64 bytes: short, but it must say "emulator") */
    snprintf(buf, len, "(EMULATOR at %s, not the service)", host && *host ? host : "?");
}

static int fail(engine *e, const char *what, int st) {
    kv_store *s = engine_kvcore_store(e);
    const char *detail = s != NULL ? kv_store_errmsg(s) : "";
    snprintf(e->err, sizeof e->err, "%s: %s%s%s", what, kv_strerror(st), *detail ? ": " : "",
             detail);
    return -1;
}

static int bt_open(engine *e, const char *dir, const engine_config *cfg) {
    (void)dir;
    (void)cfg;   /* buffers, caches, blooms and blocks are the server's */
    static unsigned serial;
    const char *host = getenv("BIGTABLE_EMULATOR_HOST");
    if (!host || !*host) {
        snprintf(e->err, sizeof e->err, "the bigtable engine runs on Google's emulator only: "
                 "set BIGTABLE_EMULATOR_HOST, e.g. scripts/bt_emulator.sh run cellbench ...");
        return -1;
    }
    char loc[128];
    snprintf(loc, sizeof loc, "bigtable://cellbench/run-%d-%u", (int)getpid(), serial++);
    kv_store_options o = KV_STORE_OPTIONS_INIT;
    char msg[400] = "";
    kv_store *s = NULL;
    kv_status st = kv_store_open(&s, loc, &o, msg, sizeof msg);
    if (st != KV_OK) {
        snprintf(e->err, sizeof e->err, "kv_store_open %s: %s: %s", loc, kv_strerror(st), msg);
        return -1;
    }
    if (engine_kvcore_adopt(e, s) != 0) {
        kv_store_close(s);
        return -1;
    }
    kv_family_desc fam = KV_FAMILY_DESC_INIT;
    snprintf(fam.name, sizeof fam.name, "%s", kFamily);
    st = kv_table_create(s, kTable, &fam, 1);
    if (st == KV_OK) {   /* the HBase-shaped workloads' table, as engine_kvcore.c's */
        fam.versions = CELL_VERSIONS;
        st = kv_table_create(s, kCellTable, &fam, 1);
    }
    if (st != KV_OK) {
        fail(e, "kv_table_create", st);
        kv_store_close(engine_kvcore_disown(e));
        return -1;
    }
    return 0;
}

static int bt_close(engine *e) {
    kv_store *s = engine_kvcore_store(e);
    kv_status st = kv_table_drop(s, kTable);
    kv_status cst_cells = kv_table_drop(s, kCellTable);
    if (st == KV_OK && cst_cells != KV_OK) st = cst_cells;
    if (st != KV_OK) fail(e, "kv_table_drop", st);
    kv_status cst = kv_store_close(engine_kvcore_disown(e));
    if (st == KV_OK && cst != KV_OK)
        snprintf(e->err, sizeof e->err, "kv_store_close: %s", kv_strerror(cst));
    return st == KV_OK && cst == KV_OK ? 0 : -1;
}

/* Reads and writes are the kvcore engine's: the same kvcore.h calls on the
   store it adopted (engine_kvcore_adopt); only the location differs. */
static int bt_put(engine *e, const char *key, size_t key_len, const char *value,
                  size_t value_len) {
    return engine_kvcore_ops.put(e, key, key_len, value, value_len);
}

static int bt_get(engine *e, const char *key, size_t key_len, bool *found) {
    return engine_kvcore_ops.get(e, key, key_len, found);
}

static int bt_scan(engine *e, const char *start, size_t start_len, uint64_t limit,
                   uint64_t *entries, uint64_t *bytes) {
    return engine_kvcore_ops.scan(e, start, start_len, limit, entries, bytes);
}

static int bt_del(engine *e, const char *key, size_t key_len) {
    return engine_kvcore_ops.del(e, key, key_len);
}

static int bt_put_cell(engine *e, const char *row, size_t row_len, const char *qual,
                       size_t qual_len, int64_t ts, const char *value, size_t value_len) {
    return engine_kvcore_ops.put_cell(e, row, row_len, qual, qual_len, ts, value, value_len);
}

static int bt_get_cell(engine *e, const char *row, size_t row_len, const char *qual,
                       size_t qual_len, int64_t tmin, int64_t tmax, bool *found, uint64_t *bytes,
                       char *value, size_t *value_len) {
    return engine_kvcore_ops.get_cell(e, row, row_len, qual, qual_len, tmin, tmax, found, bytes,
                                      value, value_len);
}

static int bt_scan_row(engine *e, const char *row, size_t row_len, uint64_t *cells,
                       uint64_t *bytes) {
    return engine_kvcore_ops.scan_row(e, row, row_len, cells, bytes);
}

static int bt_check_and_put(engine *e, const char *row, size_t row_len, const char *qual,
                            size_t qual_len, const char *expected, size_t expected_len, int64_t ts,
                            const char *value, size_t value_len, bool *applied) {
    return engine_kvcore_ops.check_and_put(e, row, row_len, qual, qual_len, expected,
                                           expected_len, ts, value, value_len, applied);
}

const engine_ops engine_bigtable_ops = {
    "bigtable", bt_version, bt_open, bt_close, bt_put, bt_get, bt_scan,
    bt_del, NULL, bt_put_cell, bt_get_cell, bt_scan_row, bt_check_and_put,
};
