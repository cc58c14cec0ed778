/*
 * Randomized differential test of the local engine against the reference
 * model (kvcore/model/, "model:"), as LevelDB's db_test does with its
 * ModelDB: the same random operations go to both stores through kvcore.h —
 * puts with implicit and explicit timestamps, deletes of all four kinds,
 * row deletes, increments, appends, check-and-mutates, batches, flushes,
 * minor and major compactions, reopening the engine, alters of VERSIONS,
 * MIN_VERSIONS, TTL, KEEP_DELETED_CELLS and NEW_VERSION_BEHAVIOR — and
 * every status and every
 * read is compared: gets and scans with random VERSIONS, TIMESTAMP,
 * TIMERANGE, column selections, raw, start and stop rows, prefixes,
 * limits, reversed order and filters (one of every kind the filter
 * language has, and combinations), which both sides run through
 * kvcore/hbase after their own version counting.
 *
 * Determinism: both stores read one controlled clock (kv_store_options
 * clock_ms), which the test moves on, so implicit timestamps and TTL are
 * the same on both sides; the engine runs with KV_COMPACTION_MANUAL, so
 * that no background compaction runs and a minor compaction merges every
 * file of a family, as the model's does (its files are then a function of
 * the calls made). Reopening the engine flushes it (close writes every
 * memstore), so the model flushes at that point.
 *
 * Usage: test_model_diff [--seed N] [--ops N] [--quiet]. CI runs a fixed
 * seed and the default number of operations; a long run by hand:
 *   build/tests/unit/test_model_diff --seed $RANDOM --ops 2000000
 * On the first difference the test prints the seed, the operation number,
 * the last operations and both answers, and exits 1; rerunning with the
 * printed --seed and --ops reproduces it.
 */
#include "kvcore.h"
#include "testutil.h"

#include <inttypes.h>
#include <stdarg.h>

#define DEFAULT_SEED 20261123u
#define DEFAULT_OPS 25000
#define HISTORY 40

typedef struct world {
    uint64_t rng;
    int64_t clock;
    kv_store *eng, *mod;
    char *dir;
    long op;
    char history[HISTORY][400];
    long nhistory;
    char last[320];               /* the operation being described */
    bool quiet;
} world;

/* ---- randomness ---- */

static uint64_t next_u64(world *w) {   /* xorshift64* */
    w->rng ^= w->rng >> 12;
    w->rng ^= w->rng << 25;
    w->rng ^= w->rng >> 27;
    return w->rng * 0x2545F4914F6CDD1DULL;
}

static int pick(world *w, int n) { return (int)(next_u64(w) % (uint64_t)n); }
static bool chance(world *w, int percent) { return pick(w, 100) < percent; }

static int64_t clock_ms(void *ctx) { return ((world *)ctx)->clock; }

/* ---- the keyspace ---- */

static const char *const rows[] = {"r0", "r1", "r2", "r3", "r4", "r5"};
static const char *const quals[] = {"", "q1", "q2", "q3"};
#define NROWS 6
#define NQUALS 4

typedef struct table_def {
    const char *name;
    int nfams;
    const char *fams[3];
} table_def;

static const table_def tables[] = {
    {"t1", 3, {"a", "b", "c"}},
    {"ns1:t2", 2, {"x", "y"}},
};
#define NTABLES 2

static const table_def *pick_table(world *w) { return &tables[pick(w, NTABLES)]; }
static const char *pick_fam(world *w, const table_def *t) { return t->fams[pick(w, t->nfams)]; }
static const char *pick_row(world *w) { return rows[pick(w, NROWS)]; }
static const char *pick_qual(world *w) { return quals[pick(w, NQUALS)]; }

/* Explicit timestamps: a few fixed old ones, recent ones on a 100 ms grid
   (so that versions collide), and a little in the future. */
static int64_t pick_ts(world *w) {
    switch (pick(w, 6)) {
    case 0: return 1 + pick(w, 3);
    case 1: return w->clock + 1 + pick(w, 3);
    default: return (w->clock / 100 - pick(w, 30)) * 100;
    }
}

/* ---- history and failure ---- */

static void note(world *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(world *w, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->last, sizeof w->last, fmt, ap);
    va_end(ap);
    snprintf(w->history[w->nhistory % HISTORY], sizeof w->history[0], "#%ld clock=%" PRId64 " %s",
             w->op, w->clock, w->last);
    w->nhistory++;
}

/* Prints a rendered answer one row per line. */
static void print_rows(const char *label, const char *s) {
    fprintf(stderr, "  %s:\n    ", label);
    for (; *s; s++) {
        fputc(*s, stderr);
        if (*s == '}' && s[1] == ' ') {
            fputs("\n   ", stderr);
            s++;
        }
    }
    fputc('\n', stderr);
}

static void fail(world *w, uint64_t seed, long ops, const char *what, const char *model,
                 const char *engine) {
    fprintf(stderr, "\nDIFFERENCE at operation %ld: %s\n", w->op, what);
    print_rows("model", model);
    print_rows("engine", engine);
    fprintf(stderr, "  engine message: %s\n", kv_store_errmsg(w->eng));
    fprintf(stderr, "last operations:\n");
    long from = w->nhistory > HISTORY ? w->nhistory - HISTORY : 0;
    for (long i = from; i < w->nhistory; i++) fprintf(stderr, "  %s\n", w->history[i % HISTORY]);
    fprintf(stderr, "reproduce: test_model_diff --seed %" PRIu64 " --ops %ld\n", seed, ops);
    test_checks_run++;
    test_checks_failed++;
    exit(test_finish("test_model_diff"));
}

/* Compares two statuses of the same call. */
#define SAME_STATUS(w, a, b)                                                       \
    do {                                                                           \
        kv_status sa_ = (a), sb_ = (b);                                            \
        test_checks_run++;                                                         \
        if (sa_ != sb_) fail(w, seed, ops, w->last, kv_strerror(sa_), kv_strerror(sb_)); \
    } while (0)

/* ---- rendering results ---- */

typedef struct text { char *p; size_t n, cap; } text;

static void put_text(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put_text(text *t, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int need = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (t->n + (size_t)need + 1 > t->cap) {
        t->cap = 2 * (t->n + (size_t)need + 1);
        t->p = realloc(t->p, t->cap);
        REQUIRE(t->p != NULL);
    }
    va_start(ap, fmt);
    vsnprintf(t->p + t->n, t->cap - t->n, fmt, ap);
    va_end(ap);
    t->n += (size_t)need;
}

static void render_row(text *t, const kv_result *r) {
    put_text(t, "%.*s{", (int)r->row_len, (const char *)r->row);
    for (size_t i = 0; i < r->ncells; i++) {
        const kv_cell *c = &r->cells[i];
        put_text(t, "%s:%.*s@%" PRId64, c->family, (int)c->qualifier_len, (const char *)c->qualifier,
                 c->timestamp);
        if (c->type != KV_TYPE_PUT) {
            put_text(t, "#%d", (int)c->type);
        } else {
            put_text(t, "=");
            for (size_t k = 0; k < c->value_len; k++) {
                uint8_t b = c->value[k];
                if (b >= 0x20 && b < 0x7f) put_text(t, "%c", b);
                else put_text(t, "\\x%02X", b);
            }
        }
        put_text(t, i + 1 < r->ncells ? " " : "");
    }
    put_text(t, "} ");
}

/* Runs a scan to its end; the rows (or the failure) as text. */
static kv_status scan_text(kv_store *s, const char *table, const kv_read_options *o, text *t) {
    kv_scan *sc;
    kv_status st = kv_scan_open(&sc, s, table, o);
    if (st != KV_OK) return st;
    const kv_result *r;
    while ((st = kv_scan_next(&r, sc)) == KV_OK) render_row(t, r);
    kv_scan_close(sc);
    return st == KV_END ? KV_OK : st;
}

static kv_status get_text(kv_store *s, const char *table, const char *row, const kv_read_options *o,
                          text *t) {
    kv_result *r;
    kv_status st = kv_get(&r, s, table, row, strlen(row), o);
    if (st != KV_OK) return st;
    render_row(t, r);
    kv_result_free(r);
    return KV_OK;
}

/* ---- random read options ---- */

typedef struct read_spec {
    kv_read_options o;
    kv_column cols[4];
    char desc[512];
} read_spec;

/* Filters for random reads: every kind, on the keyspace above. */
static const char *const filters[] = {
    "TimestampsFilter(1, 2, 3)",
    "ValueFilter(=, 'regexstring:[0-4]$')",
    "ValueFilter(<, 'binaryprefix:5')",
    "QualifierFilter(>=, 'binary:q2')",
    "FamilyFilter(!=, 'binary:b') OR ColumnPrefixFilter('q3')",
    "ColumnPaginationFilter(2, 1)",
    "ColumnCountGetFilter(2)",
    "ColumnRangeFilter('q1', false, 'q3', true)",
    "MultipleColumnPrefixFilter('q1', 'q3')",
    "SingleColumnValueFilter('a', 'q1', =, 'regexstring:[5-9]', false, false)",
    "SingleColumnValueExcludeFilter('x', 'q2', !=, 'substring:1', true, true)",
    "DependentColumnFilter('a', 'q1')",
    "DependentColumnFilter('x', 'q2', true, >, 'binary:3')",
    "ColumnValueFilter('b', 'q1', >, 'binary:5')",
    "MultiRowRangeFilter('r1', true, 'r2', false, 'r4', true, '', false)",
    "FirstKeyOnlyFilter() AND KeyOnlyFilter()",
    "KeyOnlyFilter(true) AND PageFilter(2)",
    "PrefixFilter('r2') OR InclusiveStopFilter('r1')",
    "SKIP ValueFilter(!=, 'binary:')",
    "WHILE RowFilter(<, 'binary:r3')",
};
#define NFILTERS (sizeof filters / sizeof filters[0])

static void random_read(world *w, const table_def *t, bool scan, read_spec *rs) {
    kv_read_options *o = &rs->o;
    *o = (kv_read_options)KV_READ_OPTIONS_INIT;
    int n = 0;
    n += snprintf(rs->desc + n, sizeof rs->desc - n, "%s", t->name);
    static const int32_t versions[] = {0, 1, 2, 3, 5, INT32_MAX};
    o->max_versions = versions[pick(w, 6)];
    n += snprintf(rs->desc + n, sizeof rs->desc - n, " VERSIONS=%d", o->max_versions);
    int r = pick(w, 10);
    if (r == 0) {
        o->has_timestamp = true;
        o->timestamp = pick_ts(w);
        n += snprintf(rs->desc + n, sizeof rs->desc - n, " TIMESTAMP=%" PRId64, o->timestamp);
    } else if (r <= 2) {
        int64_t a = pick_ts(w), b = pick_ts(w);
        o->time_min = a < b ? a : b;
        o->time_max = a < b ? b : a;
        if (chance(w, 30)) o->time_min = KV_TIME_MIN;
        n += snprintf(rs->desc + n, sizeof rs->desc - n, " TIMERANGE=[%" PRId64 ",%" PRId64 ")",
                      o->time_min, o->time_max);
    }
    if (chance(w, 30)) {
        int k = 1 + pick(w, 3);
        for (int i = 0; i < k; i++) {
            rs->cols[i].family = pick_fam(w, t);
            if (chance(w, 70)) {
                const char *q = pick_qual(w);
                rs->cols[i].qualifier = q;
                rs->cols[i].qualifier_len = strlen(q);
                n += snprintf(rs->desc + n, sizeof rs->desc - n, " COL=%s:%s", rs->cols[i].family, q);
            } else {
                rs->cols[i].qualifier = NULL;
                n += snprintf(rs->desc + n, sizeof rs->desc - n, " COL=%s", rs->cols[i].family);
            }
        }
        o->columns = rs->cols;
        o->ncolumns = (size_t)k;
    }
    if (chance(w, 20)) {
        o->raw = true;
        n += snprintf(rs->desc + n, sizeof rs->desc - n, " RAW");
    }
    if (chance(w, 20)) {
        const char *text = filters[pick(w, (int)NFILTERS)];
        kv_filter *f = NULL;
        char err[256];
        REQUIRE(kv_filter_parse(&f, text, err, sizeof err) == KV_OK);
        o->filter = f;
        n += snprintf(rs->desc + n, sizeof rs->desc - n, " FILTER=\"%s\"", text);
    }
    if (!scan) return;
    if (chance(w, 30)) {
        o->reversed = true;
        n += snprintf(rs->desc + n, sizeof rs->desc - n, " REVERSED");
    }
    if (chance(w, 30)) {
        o->start_row = pick_row(w);
        o->start_row_len = 2;
        n += snprintf(rs->desc + n, sizeof rs->desc - n, " START=%s", (const char *)o->start_row);
    }
    if (chance(w, 20)) {
        o->stop_row = pick_row(w);
        o->stop_row_len = 2;
        n += snprintf(rs->desc + n, sizeof rs->desc - n, " STOP=%s", (const char *)o->stop_row);
    }
    if (chance(w, 10)) {
        o->row_prefix = chance(w, 50) ? "r" : pick_row(w);
        o->row_prefix_len = strlen(o->row_prefix);
        n += snprintf(rs->desc + n, sizeof rs->desc - n, " PREFIX=%s", (const char *)o->row_prefix);
    }
    if (chance(w, 20)) {
        o->limit = 1 + (uint64_t)pick(w, 4);
        n += snprintf(rs->desc + n, sizeof rs->desc - n, " LIMIT=%" PRIu64, o->limit);
    }
}

/* Reads the same thing from both stores and compares. */
static void compare_read(world *w, uint64_t seed, long ops, bool scan, const table_def *t,
                         read_spec *rs) {
    text a = {0}, b = {0};
    kv_status sa, sb;
    const char *row = pick_row(w);
    char what[700];
    if (scan) {
        snprintf(what, sizeof what, "scan %s", rs->desc);
        sa = scan_text(w->mod, t->name, &rs->o, &a);
        sb = scan_text(w->eng, t->name, &rs->o, &b);
    } else {
        snprintf(what, sizeof what, "get %s row=%s", rs->desc, row);
        sa = get_text(w->mod, t->name, row, &rs->o, &a);
        sb = get_text(w->eng, t->name, row, &rs->o, &b);
    }
    put_text(&a, "%s", "");
    put_text(&b, "%s", "");
    test_checks_run++;
    if (sa != sb || strcmp(a.p, b.p) != 0) {
        char ma[16384], mb[16384];
        snprintf(ma, sizeof ma, "%s %s", kv_strerror(sa), a.p);
        snprintf(mb, sizeof mb, "%s %s", kv_strerror(sb), b.p);
        fail(w, seed, ops, what, ma, mb);
    }
    free(a.p);
    free(b.p);
}

/* ---- operations ---- */

static void open_engine(world *w) {
    kv_store_options o = KV_STORE_OPTIONS_INIT;
    kv_local_options lo = KV_LOCAL_OPTIONS_INIT;
    lo.compaction = KV_COMPACTION_MANUAL;
    o.local = &lo;
    o.create_if_missing = true;
    o.clock_ms = clock_ms;
    o.clock_ctx = w;
    char err[512];
    kv_status st = kv_store_open(&w->eng, w->dir, &o, err, sizeof err);
    if (st != KV_OK) fprintf(stderr, "engine open: %s\n", err);
    REQUIRE(st == KV_OK);
}

static void open_model(world *w) {
    kv_store_options o = KV_STORE_OPTIONS_INIT;
    o.create_if_missing = true;
    o.clock_ms = clock_ms;
    o.clock_ctx = w;
    char err[512];
    REQUIRE(kv_store_open(&w->mod, "model:", &o, err, sizeof err) == KV_OK);
    REQUIRE(strcmp(kv_store_backend(w->mod), "model") == 0);
}

static kv_family_desc family(const char *name, int versions, int min_versions, int64_t ttl,
                             kv_keep_deleted kdc) {
    kv_family_desc f = KV_FAMILY_DESC_INIT;
    snprintf(f.name, sizeof f.name, "%s", name);
    f.versions = versions;
    f.min_versions = min_versions;
    f.ttl_seconds = ttl;
    f.keep_deleted = kdc;
    return f;
}

static void create_tables(world *w, uint64_t seed, long ops) {
    kv_family_desc t1[3] = {family("a", 3, 0, KV_FOREVER, KV_KEEP_DELETED_FALSE),
                            family("b", 1, 0, 4, KV_KEEP_DELETED_FALSE),
                            family("c", 4, 2, 3, KV_KEEP_DELETED_TRUE)};
    kv_family_desc t2[2] = {family("x", 2, 0, KV_FOREVER, KV_KEEP_DELETED_TRUE),
                            family("y", 5, 1, 5, KV_KEEP_DELETED_TTL)};
    kv_store *both[2] = {w->mod, w->eng};
    kv_status st[2];
    note(w, "create t1, ns1:t2");
    for (int i = 0; i < 2; i++) {
        st[i] = kv_namespace_create(both[i], "ns1");
        if (st[i] == KV_OK) st[i] = kv_table_create(both[i], "t1", t1, 3);
        if (st[i] == KV_OK) st[i] = kv_table_create(both[i], "ns1:t2", t2, 2);
    }
    SAME_STATUS(w, st[0], st[1]);
    REQUIRE(st[0] == KV_OK);
}

/* Adds one random operation to a mutation; describes it into d. */
static void random_op(world *w, const table_def *t, kv_mutation *m, char *d, size_t dlen) {
    const char *f = pick_fam(w, t), *q = pick_qual(w);
    bool implicit = chance(w, 50);
    int64_t ts = implicit ? KV_LATEST_TIMESTAMP : pick_ts(w);
    char tsd[32];
    if (implicit) snprintf(tsd, sizeof tsd, "now");
    else snprintf(tsd, sizeof tsd, "%" PRId64, ts);
    int kind = pick(w, 20);
    if (kind < 11) {
        char v[32];
        snprintf(v, sizeof v, "v%ld", w->op);
        CHECK_EQ(kv_mutation_put(m, f, q, strlen(q), ts, v, strlen(v)), KV_OK);
        snprintf(d, dlen, "put %s:%s@%s=%s", f, q, tsd, v);
    } else if (kind < 14) {
        CHECK_EQ(kv_mutation_delete_version(m, f, q, strlen(q), ts), KV_OK);
        snprintf(d, dlen, "delete %s:%s@%s", f, q, tsd);
    } else if (kind < 16) {
        CHECK_EQ(kv_mutation_delete_column(m, f, q, strlen(q), ts), KV_OK);
        snprintf(d, dlen, "deletecolumn %s:%s@%s", f, q, tsd);
    } else if (kind < 18) {
        CHECK_EQ(kv_mutation_delete_family(m, f, ts), KV_OK);
        snprintf(d, dlen, "deletefamily %s@%s", f, tsd);
    } else if (kind < 19) {
        ts = pick_ts(w);
        CHECK_EQ(kv_mutation_delete_family_version(m, f, ts), KV_OK);
        snprintf(d, dlen, "deletefamilyversion %s@%" PRId64, f, ts);
    } else {
        CHECK_EQ(kv_mutation_delete_row(m, ts), KV_OK);
        snprintf(d, dlen, "deleterow @%s", tsd);
    }
}

/* A mutation of 1..n random operations of one row. */
static kv_mutation *random_mutation(world *w, const table_def *t, const char *row, int maxops,
                                    char *d, size_t dlen) {
    kv_mutation *m;
    REQUIRE(kv_mutation_new(&m, row, strlen(row)) == KV_OK);
    int n = 1 + pick(w, maxops);
    size_t used = (size_t)snprintf(d, dlen, "%s %s [", t->name, row);
    for (int i = 0; i < n && used < dlen; i++) {
        char one[96];
        random_op(w, t, m, one, sizeof one);
        used += (size_t)snprintf(d + used, dlen - used, "%s%s", i ? "; " : "", one);
    }
    if (used < dlen) snprintf(d + used, dlen - used, "]");
    return m;
}

static void op_mutate(world *w, uint64_t seed, long ops) {
    const table_def *t = pick_table(w);
    char d[256];
    kv_mutation *m = random_mutation(w, t, pick_row(w), chance(w, 70) ? 1 : 4, d, sizeof d);
    note(w, "mutate %s", d);
    SAME_STATUS(w, kv_mutate(w->mod, t->name, m, NULL), kv_mutate(w->eng, t->name, m, NULL));
    kv_mutation_free(m);
}

static void op_batch(world *w, uint64_t seed, long ops) {
    const table_def *t = pick_table(w);
    kv_mutation *ms[3];
    char d[3][256];
    for (int i = 0; i < 3; i++) ms[i] = random_mutation(w, t, pick_row(w), 2, d[i], sizeof d[i]);
    note(w, "batch %s | %s | %s", d[0], d[1], d[2]);
    kv_status sa[3], sb[3];
    SAME_STATUS(w, kv_mutate_batch(w->mod, t->name, ms, 3, sa, NULL),
                kv_mutate_batch(w->eng, t->name, ms, 3, sb, NULL));
    for (int i = 0; i < 3; i++) {
        SAME_STATUS(w, sa[i], sb[i]);
        kv_mutation_free(ms[i]);
    }
}

static void op_increment(world *w, uint64_t seed, long ops) {
    const table_def *t = pick_table(w);
    const char *row = pick_row(w), *f = pick_fam(w, t);
    const char *q = chance(w, 80) ? "n" : pick_qual(w);
    int64_t delta = pick(w, 7) - 3, ra = 0, rb = 0;
    note(w, "incr %s %s %s:%s %" PRId64, t->name, row, f, q, delta);
    kv_status a = kv_increment(&ra, w->mod, t->name, row, 2, f, q, strlen(q), delta, NULL);
    kv_status b = kv_increment(&rb, w->eng, t->name, row, 2, f, q, strlen(q), delta, NULL);
    SAME_STATUS(w, a, b);
    if (a == KV_OK) CHECK_EQ(ra, rb);
}

static void op_append(world *w, uint64_t seed, long ops) {
    const table_def *t = pick_table(w);
    const char *row = pick_row(w), *f = pick_fam(w, t), *q = pick_qual(w);
    note(w, "append %s %s %s:%s +x", t->name, row, f, q);
    void *va = NULL, *vb = NULL;
    size_t la = 0, lb = 0;
    kv_status a = kv_append(&va, &la, w->mod, t->name, row, 2, f, q, strlen(q), "x", 1, NULL);
    kv_status b = kv_append(&vb, &lb, w->eng, t->name, row, 2, f, q, strlen(q), "x", 1, NULL);
    SAME_STATUS(w, a, b);
    if (a == KV_OK) CHECK(la == lb && memcmp(va, vb, la) == 0);
    free(va);
    free(vb);
}

static void op_check_and_mutate(world *w, uint64_t seed, long ops) {
    const table_def *t = pick_table(w);
    const char *row = pick_row(w), *f = pick_fam(w, t), *q = pick_qual(w);
    char d[256], expected[32];
    snprintf(expected, sizeof expected, "v%d", pick(w, (int)w->op + 1));
    bool absent = chance(w, 30);
    kv_compare_op op = (kv_compare_op)pick(w, 7);
    kv_mutation *m = random_mutation(w, t, row, 2, d, sizeof d);
    note(w, "checkAndMutate %s:%s %s op=%d then %s", f, q, absent ? "absent" : expected, (int)op, d);
    bool aa = false, ab = false;
    kv_status a = kv_check_and_mutate(&aa, w->mod, t->name, row, 2, f, q, strlen(q), op,
                                      absent ? NULL : expected, strlen(expected), m, NULL);
    kv_status b = kv_check_and_mutate(&ab, w->eng, t->name, row, 2, f, q, strlen(q), op,
                                      absent ? NULL : expected, strlen(expected), m, NULL);
    SAME_STATUS(w, a, b);
    CHECK_EQ(aa, ab);
    kv_mutation_free(m);
}

/* The attributes of table @p name in both stores agree. */
static void same_attributes(world *w, const char *name) {
    kv_table_desc *a = NULL, *b = NULL;
    REQUIRE(kv_table_describe(&a, w->mod, name) == KV_OK);
    REQUIRE(kv_table_describe(&b, w->eng, name) == KV_OK);
    CHECK_EQ(a->nattributes, b->nattributes);
    for (size_t i = 0; i < a->nattributes && i < b->nattributes; i++) {
        CHECK(strcmp(a->attributes[i].key, b->attributes[i].key) == 0);
        CHECK(strcmp(a->attributes[i].value, b->attributes[i].value) == 0);
    }
    kv_table_desc_free(a);
    kv_table_desc_free(b);
}

static void op_maintenance(world *w, uint64_t seed, long ops) {
    int k = pick(w, 10);
    const table_def *t = pick_table(w);
    if (k < 5) {
        note(w, "flush");
        SAME_STATUS(w, kv_flush(w->mod, NULL), kv_flush(w->eng, NULL));
    } else if (k < 8) {
        note(w, "compact %s (minor)", t->name);
        SAME_STATUS(w, kv_compact(w->mod, t->name, false), kv_compact(w->eng, t->name, false));
    } else if (k < 9) {
        note(w, "major_compact %s", t->name);
        SAME_STATUS(w, kv_compact(w->mod, t->name, true), kv_compact(w->eng, t->name, true));
    } else {
        /* Closing the engine flushes it; the model flushes instead. */
        note(w, "reopen the engine");
        CHECK_EQ(kv_store_close(w->eng), KV_OK);
        open_engine(w);
        CHECK_EQ(kv_flush(w->mod, NULL), KV_OK);
        for (int i = 0; i < NTABLES; i++) same_attributes(w, tables[i].name);
    }
}

static void op_alter(world *w, uint64_t seed, long ops) {
    const table_def *t = pick_table(w);
    const char *f = pick_fam(w, t);
    kv_table_desc *d;
    REQUIRE(kv_table_describe(&d, w->mod, t->name) == KV_OK);
    kv_family_desc fd = KV_FAMILY_DESC_INIT;
    for (size_t i = 0; i < d->nfamilies; i++)
        if (strcmp(d->families[i].name, f) == 0) fd = d->families[i];
    kv_table_desc_free(d);
    fd.versions = 1 + pick(w, 5);
    fd.min_versions = pick(w, 3) <= 1 ? 0 : pick(w, fd.versions + 1);
    static const int64_t ttls[] = {KV_FOREVER, 2, 3, 6};
    fd.ttl_seconds = ttls[pick(w, 4)];
    fd.keep_deleted = (kv_keep_deleted)pick(w, 3);
    fd.new_version_behavior = chance(w, 25);
    note(w, "alter %s %s VERSIONS=%d MIN_VERSIONS=%d TTL=%" PRId64 " KEEP_DELETED_CELLS=%d "
         "NEW_VERSION_BEHAVIOR=%d", t->name, f, fd.versions, fd.min_versions, fd.ttl_seconds,
         (int)fd.keep_deleted, (int)fd.new_version_behavior);
    SAME_STATUS(w, kv_table_alter_family(w->mod, t->name, &fd),
                kv_table_alter_family(w->eng, t->name, &fd));
}

/* alter 't', METHOD => 'table_att': a read-only table is made writable
   again; otherwise READONLY, DURABILITY or MAX_FILESIZE is set. Writes to
   a read-only table must fail alike in both. */
static void op_table_att(world *w, uint64_t seed, long ops) {
    (void)seed;
    (void)ops;
    const table_def *t = pick_table(w);
    kv_table_desc *d;
    REQUIRE(kv_table_describe(&d, w->mod, t->name) == KV_OK);
    bool readonly = false;
    for (size_t i = 0; i < d->nattributes; i++)
        readonly |= strcmp(d->attributes[i].key, "READONLY") == 0 &&
                    strcmp(d->attributes[i].value, "true") == 0;
    kv_table_desc_free(d);
    static const char *const durabilities[] = {"USE_DEFAULT", "SKIP_WAL", "SYNC_WAL", "FSYNC_WAL"};
    char size[32];
    snprintf(size, sizeof size, "%d", 1 + pick(w, 1 << 20));
    kv_property p = {"READONLY", readonly ? NULL : "true"};
    int k = readonly ? 0 : pick(w, 3);
    if (k == 1) p = (kv_property){"DURABILITY", durabilities[pick(w, 4)]};
    else if (k == 2) p = (kv_property){"max_filesize", size};
    note(w, "alter %s METHOD => 'table_att%s', %s => %s", t->name, p.value ? "" : "_unset", p.key,
         p.value ? p.value : "");
    SAME_STATUS(w, kv_table_set_attributes(w->mod, t->name, &p, 1),
                kv_table_set_attributes(w->eng, t->name, &p, 1));
    same_attributes(w, t->name);
}

static void random_operation(world *w, uint64_t seed, long ops) {
    static const int64_t steps[] = {0, 0, 0, 1, 2, 5, 100, 700};
    w->clock += steps[pick(w, 8)];
    int r = pick(w, 100);
    if (r < 60) op_mutate(w, seed, ops);
    else if (r < 66) op_batch(w, seed, ops);
    else if (r < 73) op_increment(w, seed, ops);
    else if (r < 78) op_append(w, seed, ops);
    else if (r < 85) op_check_and_mutate(w, seed, ops);
    else if (r < 97) op_maintenance(w, seed, ops);
    else if (r < 98) op_table_att(w, seed, ops);
    else op_alter(w, seed, ops);
}

/* Every row of every table, raw with every version and as a plain read. */
static void compare_everything(world *w, uint64_t seed, long ops) {
    for (int t = 0; t < NTABLES; t++) {
        read_spec rs;
        rs.o = (kv_read_options)KV_READ_OPTIONS_INIT;
        rs.o.max_versions = INT32_MAX;
        snprintf(rs.desc, sizeof rs.desc, "%s VERSIONS=all (full comparison)", tables[t].name);
        compare_read(w, seed, ops, true, &tables[t], &rs);
        rs.o.raw = true;
        snprintf(rs.desc, sizeof rs.desc, "%s RAW VERSIONS=all (full comparison)", tables[t].name);
        compare_read(w, seed, ops, true, &tables[t], &rs);
    }
}

int main(int argc, char **argv) {
    uint64_t seed = DEFAULT_SEED;
    long ops = DEFAULT_OPS;
    world w;
    memset(&w, 0, sizeof w);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) seed = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--ops") == 0 && i + 1 < argc) ops = strtol(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--quiet") == 0) w.quiet = true;
        else {
            fprintf(stderr, "usage: %s [--seed N] [--ops N] [--quiet]\n", argv[0]);
            return 2;
        }
    }
    w.rng = seed * 2654435761u + 1;
    w.clock = 1700000000000;
    w.dir = test_tmpdir("model-diff");
    open_engine(&w);
    open_model(&w);
    create_tables(&w, seed, ops);
    for (w.op = 1; w.op <= ops; w.op++) {
        random_operation(&w, seed, ops);
        read_spec rs;
        const table_def *t = pick_table(&w);
        bool scan = chance(&w, 40);
        random_read(&w, t, scan, &rs);
        compare_read(&w, seed, ops, scan, t, &rs);
        kv_filter_free((kv_filter *)rs.o.filter);
        if (w.op % 100 == 0) compare_everything(&w, seed, ops);
        if (!w.quiet && w.op % 5000 == 0) printf("%ld operations\n", w.op);
    }
    compare_everything(&w, seed, ops);
    printf("seed %" PRIu64 ", %ld operations: engine and model agree\n", seed, ops);
    CHECK_EQ(kv_store_close(w.eng), KV_OK);
    CHECK_EQ(kv_store_close(w.mod), KV_OK);
    test_rmtree(w.dir);
    free(w.dir);
    return test_finish("test_model_diff");
}
