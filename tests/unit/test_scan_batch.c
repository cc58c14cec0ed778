/**
 * @file test_scan_batch.c
 * kv_scan_set_batch (HBase's Scan.setBatch): a scan returns each row in
 * parts of at most N cells, consecutive, none empty, and together exactly
 * the cells of the row read whole; the limit counts rows. Checked on the
 * local store (which streams the parts from its iterators, with cells in
 * the memstore and in a sorted file, delete markers, selected columns,
 * versions, time ranges, reversed scans) and on the model (whose whole
 * rows the api splits), and with a filter and raw reads (split too).
 */
#include "teststore.h"

#include <stdint.h>

/* A scan's cells as text, one line each: "row fam:q ts type value" with a
   '|' line where a new result starts and '+' where a part continues the
   row of the one before. */
typedef struct dump {
    char *text;
    size_t len, cap;
    size_t results, rows, max_cells;
    int empty_parts;
} dump;

static void put_text(dump *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put_text(dump *d, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (d->len + (size_t)n + 1 > d->cap) {
        d->cap = (d->len + (size_t)n + 1) * 2;
        d->text = realloc(d->text, d->cap);
        REQUIRE(d->text != NULL);
    }
    va_start(ap, fmt);
    vsnprintf(d->text + d->len, d->cap - d->len, fmt, ap);
    va_end(ap);
    d->len += (size_t)n;
}

/* Reads the whole scan of table t with options o in parts of batch cells
   (0: whole rows) into d; cell lines only, so that two dumps of one scan
   compare equal whatever their parts. */
static kv_status scan_dump(kv_store *s, const char *t, const kv_read_options *o, size_t batch,
                           dump *d) {
    memset(d, 0, sizeof *d);
    put_text(d, "%s", "");
    kv_scan *sc = NULL;
    kv_status st = kv_scan_open(&sc, s, t, o);
    if (st != KV_OK) return st;
    if (batch) CHECK_EQ(kv_scan_set_batch(sc, batch), KV_OK);
    const kv_result *r;
    char prev[64] = "";
    size_t prev_len = 0;
    bool have_prev = false;
    while ((st = kv_scan_next(&r, sc)) == KV_OK) {
        d->results++;
        if (r->ncells == 0) d->empty_parts++;
        if (r->ncells > d->max_cells) d->max_cells = r->ncells;
        bool same = have_prev && r->row_len == prev_len && memcmp(r->row, prev, prev_len) == 0;
        if (!same) d->rows++;
        prev_len = r->row_len < sizeof prev ? r->row_len : sizeof prev;
        memcpy(prev, r->row, prev_len);
        have_prev = true;
        for (size_t i = 0; i < r->ncells; i++) {
            const kv_cell *c = &r->cells[i];
            CHECK(c->row_len == r->row_len && memcmp(c->row, r->row, r->row_len) == 0);
            put_text(d, "%.*s %s:%.*s %lld %d %.*s\n", (int)r->row_len, (const char *)r->row,
                     c->family, (int)c->qualifier_len, (const char *)c->qualifier,
                     (long long)c->timestamp, (int)c->type, (int)c->value_len,
                     (const char *)c->value);
        }
    }
    kv_scan_close(sc);
    return st == KV_END ? KV_OK : st;
}

static void put(kv_store *s, const char *row, const char *fam, const char *q, int64_t ts,
                const char *v) {
    REQUIRE(kv_put(s, "t", row, strlen(row), fam, q, strlen(q), ts, v, strlen(v), NULL) == KV_OK);
}

static void del_column(kv_store *s, const char *row, const char *fam, const char *q, int64_t ts) {
    kv_mutation *m = NULL;
    REQUIRE(kv_mutation_new(&m, row, strlen(row)) == KV_OK);
    REQUIRE(kv_mutation_delete_column(m, fam, q, strlen(q), ts) == KV_OK);
    REQUIRE(kv_mutate(s, "t", m, NULL) == KV_OK);
    kv_mutation_free(m);
}

/* Table t: families a (VERSIONS 3) and b; rows "a0" (two cells), "wide"
   (300 columns of a with 1-4 versions, 20 of b, a family delete in b
   and column deletes in a) and "z" (b only). Half of it in a sorted file,
   the rest, newer versions among it, in the memstore (flush: the local
   store only). */
static void load(kv_store *s, bool flush) {
    kv_family_desc f[2] = {KV_FAMILY_DESC_INIT, KV_FAMILY_DESC_INIT};
    snprintf(f[0].name, sizeof f[0].name, "a");
    f[0].versions = 3;
    snprintf(f[1].name, sizeof f[1].name, "b");
    REQUIRE(kv_table_create(s, "t", f, 2) == KV_OK);
    char q[32], v[32];
    put(s, "a0", "a", "x", 5, "a0x");
    put(s, "a0", "b", "y", 5, "a0y");
    for (int i = 0; i < 300; i++) {
        snprintf(q, sizeof q, "q%04d", i);
        for (int ts = 1; ts <= 1 + i % 4; ts++) {
            snprintf(v, sizeof v, "v%d.%d", i, ts);
            put(s, "wide", "a", q, ts, v);
        }
    }
    for (int i = 0; i < 20; i++) {
        snprintf(q, sizeof q, "p%02d", i);
        put(s, "wide", "b", q, 3, "old");
    }
    if (flush) REQUIRE(kv_flush(s, "t") == KV_OK);
    for (int i = 0; i < 300; i += 7) {
        snprintf(q, sizeof q, "q%04d", i);
        put(s, "wide", "a", q, 10, "new");
    }
    for (int i = 5; i < 300; i += 50) {
        snprintf(q, sizeof q, "q%04d", i);
        del_column(s, "wide", "a", q, 100);
    }
    kv_mutation *m = NULL;
    REQUIRE(kv_mutation_new(&m, "wide", 4) == KV_OK);
    REQUIRE(kv_mutation_delete_family(m, "b", 2) == KV_OK);
    REQUIRE(kv_mutate(s, "t", m, NULL) == KV_OK);
    kv_mutation_free(m);
    for (int i = 0; i < 20; i += 3) {
        snprintf(q, sizeof q, "p%02d", i);
        put(s, "wide", "b", q, 4, "newer");
    }
    put(s, "z", "b", "only", 1, "z1");
}

/* One option set: every batch size gives the cells of the whole rows, in
   parts no larger than the batch. */
static void check_options(kv_store *s, const char *what, const kv_read_options *o) {
    dump whole, part;
    REQUIRE(scan_dump(s, "t", o, 0, &whole) == KV_OK);
    CHECK(whole.results > 0);
    static const size_t batches[] = {1, 2, 7, 64, 100000};
    for (size_t b = 0; b < sizeof batches / sizeof batches[0]; b++) {
        REQUIRE(scan_dump(s, "t", o, batches[b], &part) == KV_OK);
        if (part.len != whole.len || memcmp(part.text, whole.text, whole.len) != 0)
            fprintf(stderr, "%s, batch %zu: parts differ from whole rows\n--- whole\n%s--- parts\n%s",
                    what, batches[b], whole.text, part.text);
        CHECK(part.len == whole.len && memcmp(part.text, whole.text, whole.len) == 0);
        CHECK_EQ(part.rows, whole.rows);
        CHECK_EQ(part.empty_parts, 0);
        CHECK(part.max_cells <= batches[b]);
        if (batches[b] == 1) CHECK(part.results > whole.results);
        free(part.text);
    }
    free(whole.text);
}

static void check_store(kv_store *s) {
    kv_read_options o = KV_READ_OPTIONS_INIT;
    check_options(s, "defaults", &o);
    o.max_versions = 2;
    check_options(s, "2 versions", &o);
    o.max_versions = INT32_MAX;
    check_options(s, "all versions", &o);
    o.max_versions = 0;
    o.time_min = 2;
    o.time_max = 4;
    check_options(s, "time range", &o);
    o = (kv_read_options)KV_READ_OPTIONS_INIT;
    o.reversed = true;
    check_options(s, "reversed", &o);
    o = (kv_read_options)KV_READ_OPTIONS_INIT;
    kv_column cols[] = {{"a", "q0007", 5}, {"a", "q0005", 5}, {"b", "p03", 3},
                        {"a", "q0299", 5}, {"b", NULL, 0}};
    o.columns = cols;
    o.ncolumns = 4;
    o.max_versions = 3;
    check_options(s, "columns", &o);
    o.ncolumns = 5;
    check_options(s, "columns and family b", &o);
    o = (kv_read_options)KV_READ_OPTIONS_INIT;
    o.start_row = "b";
    o.start_row_len = 1;
    o.limit = 1;
    check_options(s, "limit 1", &o);
    dump d;
    REQUIRE(scan_dump(s, "t", &o, 3, &d) == KV_OK);
    CHECK_EQ(d.rows, 1);   /* the limit counts rows, not parts */
    CHECK(d.results > 50);
    free(d.text);
    /* split by the api: a filter judges the row whole; raw */
    o = (kv_read_options)KV_READ_OPTIONS_INIT;
    kv_filter *f = NULL;
    char err[200];
    REQUIRE(kv_filter_parse(&f, "ColumnPrefixFilter('q00')", err, sizeof err) == KV_OK);
    o.filter = f;
    check_options(s, "filter", &o);
    kv_filter_free(f);
    o = (kv_read_options)KV_READ_OPTIONS_INIT;
    if (kv_store_capabilities(s) & KV_CAP_RAW_SCANS) {
        o.raw = true;
        check_options(s, "raw", &o);
    }
    /* only before the first kv_scan_next */
    kv_scan *sc = NULL;
    REQUIRE(kv_scan_open(&sc, s, "t", NULL) == KV_OK);
    const kv_result *r;
    CHECK_EQ(kv_scan_next(&r, sc), KV_OK);
    CHECK_EQ(kv_scan_set_batch(sc, 5), KV_INVALID);
    kv_scan_close(sc);
    CHECK_EQ(kv_scan_set_batch(NULL, 5), KV_INVALID);
}

int main(void) {
    char *dir = test_tmpdir("scan-batch");
    kv_store *s = test_open_store(dir, NULL);
    load(s, true);
    check_store(s);
    REQUIRE(kv_store_close(s) == KV_OK);
    /* reopened: everything in sorted files */
    s = test_open_store(dir, NULL);
    check_store(s);
    REQUIRE(kv_store_close(s) == KV_OK);
    test_rmtree(dir);
    free(dir);

    kv_store_options mo = KV_STORE_OPTIONS_INIT;
    mo.create_if_missing = true;
    char err[256];
    REQUIRE(kv_store_open(&s, "model:", &mo, err, sizeof err) == KV_OK);
    load(s, false);
    check_store(s);
    REQUIRE(kv_store_close(s) == KV_OK);
    return test_finish("test_scan_batch");
}
