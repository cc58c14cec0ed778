/*
 * Golden stores, written by this program (`test_golden --write DIR`) and
 * kept: tests/golden/store-v1 with format version 1 of the manifest, sorted
 * files (LZ4, PREFIX and DIFF encodings, ROW and ROWCOL blooms) and the
 * write-ahead log (a process that died without closing left cells only in
 * the log); tests/golden/store-v3 the same with the formats of sorted-file
 * version 3, plus a family "c" without compression whose 1,500-byte values
 * make the writer pad units to stay within 4 KiB pages. Every later version
 * must still read both: the test copies each to a temporary directory,
 * opens it and checks every cell.
 */
#include "kvcore.h"
#include "testutil.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

static int64_t fixed_clock(void *ctx) {
    (void)ctx;
    return 1700000000000;
}

static kv_store *open_store(const char *dir, bool create) {
    kv_store_options o = KV_STORE_OPTIONS_INIT;
    o.create_if_missing = create;
    o.clock_ms = fixed_clock;
    kv_store *s;
    char err[512];
    if (kv_store_open(&s, dir, &o, err, sizeof err) != KV_OK) {
        fprintf(stderr, "open %s: %s\n", dir, err);
        exit(1);
    }
    return s;
}

static void put(kv_store *s, const char *t, const char *row, const char *fam, const char *q,
                int64_t ts, const char *v) {
    if (kv_put(s, t, row, strlen(row), fam, q, strlen(q), ts, v, strlen(v), NULL) != KV_OK) {
        fprintf(stderr, "put: %s\n", kv_store_errmsg(s));
        exit(1);
    }
}

enum { GOLDEN_BIG_LEN = 1500 };

/* Row i's value of c:big in the stores that have family c. */
static void golden_big_value(char *out, int i) {
    for (int k = 0; k < GOLDEN_BIG_LEN; k++) out[k] = (char)('a' + (i * 7 + k) % 26);
    out[GOLDEN_BIG_LEN] = '\0';
}

static int write_golden(const char *dir) {
    kv_store *s = open_store(dir, true);
    kv_family_desc f[3] = {KV_FAMILY_DESC_INIT, KV_FAMILY_DESC_INIT, KV_FAMILY_DESC_INIT};
    strcpy(f[0].name, "a");
    f[0].versions = 3;
    f[0].compression = KV_COMPRESSION_LZ4;
    f[0].encoding = KV_ENCODING_PREFIX;
    strcpy(f[1].name, "b");
    f[1].bloom = KV_BLOOM_ROWCOL;
    f[1].encoding = KV_ENCODING_DIFF;
    f[1].compression = KV_COMPRESSION_SNAPPY;
    strcpy(f[2].name, "c");
    if (kv_namespace_create(s, "ns") != KV_OK || kv_table_create(s, "ns:t", f, 3) != KV_OK ||
        kv_namespace_set_property(s, "ns", "owner", "golden") != KV_OK)
        return 1;
    for (int i = 0; i < 50; i++) {
        char row[16], v[32];
        snprintf(row, sizeof row, "row%03d", i);
        snprintf(v, sizeof v, "value-%d", i);
        put(s, "ns:t", row, "a", "q", 10, v);
        put(s, "ns:t", row, "a", "q", 20, "newer");
        put(s, "ns:t", row, "b", "x", 10, v);
        char big[GOLDEN_BIG_LEN + 1];
        golden_big_value(big, i);
        put(s, "ns:t", row, "c", "big", 10, big);
    }
    kv_mutation *m;
    kv_mutation_new(&m, "row007", 6);
    kv_mutation_delete_column(m, "a", "q", 1, 20);
    kv_mutate(s, "ns:t", m, NULL);
    kv_mutation_free(m);
    if (kv_flush(s, NULL) != KV_OK) return 1;
    /* These stay only in the log: the child dies without closing. */
    pid_t pid = fork();
    if (pid == 0) {
        put(s, "ns:t", "logged", "a", "q", 30, "from-the-log");
        kill(getpid(), SIGKILL);
    }
    int status;
    waitpid(pid, &status, 0);
    _exit(0); /* like the child: the parent must not close (it would flush) */
}

static void check_golden(const char *src) {
    char *dir = test_tmpdir("golden");
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cp -a '%s'/. '%s'/ && rm -f '%s'/LOCK", src, dir, dir);
    REQUIRE(system(cmd) == 0);
    kv_store *s = open_store(dir, false);
    kv_property *props;
    size_t np;
    REQUIRE(kv_namespace_describe(&props, &np, s, "ns") == KV_OK);
    CHECK(np == 1 && strcmp(props[0].value, "golden") == 0);
    kv_free_properties(props, np);
    kv_table_desc *d;
    REQUIRE(kv_table_describe(&d, s, "ns:t") == KV_OK);
    bool has_c = d->nfamilies == 3;   /* store-v3 on */
    CHECK(d->nfamilies == 2 || has_c);
    CHECK_EQ(d->families[0].compression, KV_COMPRESSION_LZ4);
    CHECK_EQ(d->families[1].bloom, KV_BLOOM_ROWCOL);
    if (has_c) CHECK_EQ(d->families[2].compression, KV_COMPRESSION_NONE);
    kv_table_desc_free(d);
    size_t cells_per_row = has_c ? 4 : 3;
    kv_read_options all = KV_READ_OPTIONS_INIT;
    all.max_versions = 3;
    kv_scan *sc;
    REQUIRE(kv_scan_open(&sc, s, "ns:t", &all) == KV_OK);
    const kv_result *r;
    int rows = 0;
    while (kv_scan_next(&r, sc) == KV_OK) {
        if (r->row_len == 6 && memcmp(r->row, "logged", 6) == 0) {
            CHECK_EQ(r->ncells, 1);
            CHECK_BYTES(r->cells[0].value, r->cells[0].value_len, "from-the-log");
            continue;
        }
        int i = atoi((const char *)r->row + 3);
        char v[32];
        snprintf(v, sizeof v, "value-%d", i);
        if (has_c) {
            REQUIRE(r->ncells >= 2);
            const kv_cell *c = &r->cells[r->ncells - 1];
            char big[GOLDEN_BIG_LEN + 1];
            golden_big_value(big, i);
            CHECK(strcmp(c->family, "c") == 0);
            CHECK_BYTES(c->value, c->value_len, big);
        }
        if (i == 7) {
            CHECK_EQ(r->ncells, cells_per_row - 2);   /* a:q deleted up to 20 */
            CHECK_BYTES(r->cells[0].value, r->cells[0].value_len, v);
        } else {
            REQUIRE(r->ncells == cells_per_row);
            CHECK_BYTES(r->cells[0].value, r->cells[0].value_len, "newer");
            CHECK_EQ(r->cells[0].timestamp, 20);
            CHECK_BYTES(r->cells[1].value, r->cells[1].value_len, v);
            CHECK_BYTES(r->cells[2].value, r->cells[2].value_len, v);
            CHECK(strcmp(r->cells[2].family, "b") == 0);
        }
        rows++;
    }
    kv_scan_close(sc);
    CHECK_EQ(rows, 50);
    /* Files written before the meta block counted DeleteColumn markers may
       hold them: row007's marker at 20 (in a golden file) still masks a
       put at 5 in the memstore for a time-range get of [1, 10), which must
       not seek past the versions above the range. */
    put(s, "ns:t", "row007", "a", "q", 5, "masked");
    kv_column col = {"a", "q", 1};
    kv_read_options ro = KV_READ_OPTIONS_INIT;
    ro.columns = &col;
    ro.ncolumns = 1;
    ro.time_min = 1;
    ro.time_max = 10;
    kv_result *g = NULL;
    REQUIRE(kv_get(&g, s, "ns:t", "row007", 6, &ro) == KV_OK);
    CHECK_EQ(g->ncells, 0);
    kv_result_free(g);
    CHECK_EQ(kv_store_close(s), KV_OK);
    test_rmtree(dir);
    free(dir);
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "--write") == 0) return write_golden(argv[2]);
    if (argc > 1) {
        check_golden(argv[1]);
    } else {
        check_golden(GOLDEN_DIR "/store-v1");
        check_golden(GOLDEN_DIR "/store-v3");
    }
    return test_finish("test_golden");
}
