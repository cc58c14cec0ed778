/**
 * @file test_filter.c
 * Unit tests of the HBase filter language: kv_filter_parse (filter_parse.c)
 * errors and messages, and evaluation (filter_eval.c, filter.h) of every
 * filter and combinator on hand-built kv_cell rows. No store is involved.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "hbase/filter.h"
#include "hbase/filter_regex.h"
#include "kvcore.h"
#include "testutil.h"

#define CELL(r, f, q, ts, v) \
    { (const uint8_t *)(r), sizeof(r) - 1, (f), (const uint8_t *)(q), sizeof(q) - 1, (ts), \
      KV_TYPE_PUT, (const uint8_t *)(v), sizeof(v) - 1 }

/* One row with two families, several columns and two versions of cf:a. */
static const kv_cell row_r1[] = {
    CELL("r1", "cf", "a", 3, "v3a"),
    CELL("r1", "cf", "a", 2, "v2a"),
    CELL("r1", "cf", "b", 5, "hello"),
    CELL("r1", "cf", "c", 1, "zeta"),
    CELL("r1", "g", "a", 4, "Other"),
};
#define NR1 (sizeof row_r1 / sizeof row_r1[0])

#define CHECK_STR(got, want) do { \
    const char *cs_g_ = (got), *cs_w_ = (want); \
    test_checks_run++; \
    if (strcmp(cs_g_, cs_w_) != 0) { test_checks_failed++; \
        fprintf(stderr, "%s:%d: CHECK_STR failed: got '%s', expected '%s'\n", __FILE__, __LINE__, \
                cs_g_, cs_w_); } \
} while (0)

/* "cf:a@3=v3a ..." for the cells a row kept; "-" if the row was refused;
   " STOP" appended when the scan must end. */
static void render(char *buf, size_t size, bool kept, const kv_cell *c, size_t n, bool stop) {
    size_t o = 0;
    buf[0] = 0;
    if (!kept) o += (size_t)snprintf(buf + o, size - o, "-");
    for (size_t i = 0; kept && i < n && o < size; i++) {
        o += (size_t)snprintf(buf + o, size - o, "%s%s:%.*s@%lld=", i ? " " : "", c[i].family,
                              (int)c[i].qualifier_len, (const char *)c[i].qualifier,
                              (long long)c[i].timestamp);
        for (size_t k = 0; k < c[i].value_len && o < size; k++) {
            uint8_t b = c[i].value[k];
            o += (size_t)snprintf(buf + o, size - o, b >= 32 && b < 127 ? "%c" : "\\x%02x", b);
        }
    }
    if (stop && o < size) snprintf(buf + o, size - o, " STOP");
}

static kv_filter *parse_ok(const char *text) {
    char err[256] = "";
    kv_filter *f = NULL;
    kv_status st = kv_filter_parse(&f, text, err, sizeof err);
    if (st != KV_OK) fprintf(stderr, "parse of \"%s\" failed: %s\n", text, err);
    CHECK_EQ(st, KV_OK);
    CHECK(st != KV_OK || f != NULL);
    return f;
}

/* Applies filter text to one row with a fresh run, the read's VERSIONS
   being versions (0: no cap); returns the rendering. */
static const char *apply_v(char *buf, size_t size, const char *text, const kv_cell *row, size_t n,
                           int32_t versions) {
    kv_filter *f = parse_ok(text);
    if (!f) { snprintf(buf, size, "<parse failed>"); return buf; }
    kv_filter_run *r = kv_filter_run_new(f);
    REQUIRE(r != NULL);
    kv_filter_run_set_versions(r, versions);
    kv_cell cells[64];
    REQUIRE(n <= 64);
    memcpy(cells, row, n * sizeof *cells);
    size_t nc = n;
    bool stop = true;
    bool kept = kv_filter_run_row(r, cells, &nc, &stop);
    CHECK(kept == (nc > 0));
    render(buf, size, kept, cells, nc, stop);
    kv_filter_run_free(r);
    kv_filter_free(f);
    return buf;
}

static const char *apply(char *buf, size_t size, const char *text, const kv_cell *row, size_t n) {
    return apply_v(buf, size, text, row, n, 0);
}

#define CHECK_FILTER(text, want) do { \
    char cf_buf_[1024]; \
    const char *cf_got_ = apply(cf_buf_, sizeof cf_buf_, (text), row_r1, NR1); \
    test_checks_run++; \
    if (strcmp(cf_got_, (want)) != 0) { test_checks_failed++; \
        fprintf(stderr, "%s:%d: filter %s: got '%s', expected '%s'\n", __FILE__, __LINE__, \
                (text), cf_got_, (want)); } \
} while (0)

static void check_parse_error(int line, const char *text, const char *needle) {
    char err[512] = "";
    kv_filter *f = (kv_filter *)&err; /* must be reset to NULL */
    kv_status st = kv_filter_parse(&f, text, err, sizeof err);
    test_checks_run++;
    if (st != KV_INVALID || f != NULL || !strstr(err, needle)) {
        test_checks_failed++;
        fprintf(stderr, "test_filter.c:%d: parse of \"%s\": status %d, message '%s', expected '%s'\n",
                line, text, st, err, needle);
    }
    if (st == KV_OK) kv_filter_free(f);
}
#define CHECK_PARSE_ERROR(text, needle) check_parse_error(__LINE__, (text), (needle))

static void test_parse_ok(void) {
    static const char *const ok[] = {
        "PrefixFilter('row')",
        "ColumnPrefixFilter('q')",
        "MultipleColumnPrefixFilter('a', 'b', 'c')",
        "QualifierFilter(=, 'binary:a')",
        "ValueFilter(!=, 'binaryprefix:v')",
        "RowFilter(<=, 'binary:r')",
        "FamilyFilter(=, 'substring:cf')",
        "ValueFilter(LESS, 'binary:x')",
        "ValueFilter(LESS_OR_EQUAL, 'binary:x')",
        "ValueFilter(EQUAL, 'regexstring:^a.*b$')",
        "ValueFilter(NOT_EQUAL, 'substring:x')",
        "ValueFilter(GREATER_OR_EQUAL, 'binary:x')",
        "ValueFilter(GREATER, 'binary:x')",
        "ValueFilter(<, 'binary:x') OR ValueFilter(>, 'binary:y')",
        "SingleColumnValueFilter('cf', 'q', =, 'binary:v')",
        "SingleColumnValueFilter('cf', 'q', =, 'binary:v', true, false)",
        "SingleColumnValueExcludeFilter('cf', 'q', =, 'binary:v')",
        "SingleColumnValueExcludeFilter('cf', 'q', =, 'binary:v', FALSE, TRUE)",
        "KeyOnlyFilter()",
        "KeyOnlyFilter(true)",
        "FirstKeyOnlyFilter()",
        "TimestampsFilter(5, 1, 3)",
        "TimestampsFilter()",
        "PageFilter(10)",
        "ColumnCountGetFilter(2)",
        "InclusiveStopFilter('row5')",
        "ColumnRangeFilter('a', true, 'c', false)",
        "  SKIP ValueFilter(=, 'binary:x')  ",
        "WHILE RowFilter(<, 'binary:r5')",
        "SKIP WHILE PrefixFilter('a')",
        "(PrefixFilter('a') OR PrefixFilter('b')) AND (KeyOnlyFilter() AND PageFilter(3))",
        "PrefixFilter('a')AND PrefixFilter('b')",
        "PrefixFilter('')",
        "ValueFilter(=,'binary:it''s')",
        "ValueFilter(=,'binary:a:b')",
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        kv_filter *f = parse_ok(ok[i]);
        kv_filter_free(f);
    }
    kv_filter_free(NULL);
}

static void test_parse_errors(void) {
    CHECK_PARSE_ERROR("", "empty filter");
    CHECK_PARSE_ERROR("   ", "empty filter");
    CHECK_PARSE_ERROR("FooFilter()", "unknown filter FooFilter at offset 0");
    CHECK_PARSE_ERROR("PrefixFilter('a') AND BarFilter('b')", "unknown filter BarFilter at offset 22");
    CHECK_PARSE_ERROR("ValueFilter(= 'binary:x')", "expected ',' or ')' in the arguments of "
                      "ValueFilter at offset 14 in \"ValueFilter(= 'binary:x')\"");
    CHECK_PARSE_ERROR("PrefixFilter('abc", "unterminated string at offset 13");
    CHECK_PARSE_ERROR("PrefixFilter", "expected '(' after PrefixFilter at offset 12");
    CHECK_PARSE_ERROR("PrefixFilter('a', 'b')", "PrefixFilter takes 1 argument, got 2");
    CHECK_PARSE_ERROR("PrefixFilter()", "PrefixFilter takes 1 argument, got 0");
    CHECK_PARSE_ERROR("PrefixFilter(5)", "PrefixFilter argument 1 must be a quoted string, not an integer");
    CHECK_PARSE_ERROR("ValueFilter('binary:x', =)", "ValueFilter argument 1 must be a comparison operator");
    CHECK_PARSE_ERROR("QualifierFilter(=)", "QualifierFilter takes 2 arguments, got 1");
    CHECK_PARSE_ERROR("ValueFilter(=, 'foo:x')", "unknown comparator type 'foo'");
    CHECK_PARSE_ERROR("ValueFilter(=, 'nocolon')", "comparator must be 'type:value'");
    CHECK_PARSE_ERROR("ValueFilter(<, 'substring:x')", "only = and != (EQUAL, NOT_EQUAL)");
    CHECK_PARSE_ERROR("RowFilter(>=, 'regexstring:x')", "only = and !=");
    CHECK_PARSE_ERROR("ValueFilter(=, 'regexstring:a(')", "bad regular expression 'a('");
    CHECK_PARSE_ERROR("ValueFilter(!, 'binary:x')", "unknown comparison operator at offset 12");
    /* HBase spells its operators in upper case and comparator types in lower */
    CHECK_PARSE_ERROR("PrefixFilter('a') and PrefixFilter('b')", "expected AND, OR or the end");
    CHECK_PARSE_ERROR("PrefixFilter('a') Or PrefixFilter('b')", "expected AND, OR or the end");
    CHECK_PARSE_ERROR("skip PrefixFilter('a')", "unknown filter skip");
    CHECK_PARSE_ERROR("ValueFilter(=, 'Binary:x')", "unknown comparator type 'Binary'");
    CHECK_PARSE_ERROR("ValueFilter(=>, 'binary:x')", "expected ',' or ')'");
    CHECK_PARSE_ERROR("ValueFilter(LESSER, 'binary:x')", "unexpected 'LESSER'");
    CHECK_PARSE_ERROR("KeyOnlyFilter(maybe)", "unexpected 'maybe'");
    CHECK_PARSE_ERROR("KeyOnlyFilter(1)", "KeyOnlyFilter argument 1 must be true or false");
    CHECK_PARSE_ERROR("FirstKeyOnlyFilter(true)", "FirstKeyOnlyFilter takes 0 arguments, got 1");
    CHECK_PARSE_ERROR("SingleColumnValueFilter('f','q',=,'binary:x',true)",
                      "takes 4 or 6 arguments, got 5");
    CHECK_PARSE_ERROR("SingleColumnValueFilter('f','q',=)", "takes 4 to 6 arguments, got 3");
    CHECK_PARSE_ERROR("SingleColumnValueFilter('f','q',=,'binary:x',1,true)",
                      "argument 5 must be true or false");
    CHECK_PARSE_ERROR("MultipleColumnPrefixFilter()", "takes at least 1 argument, got 0");
    CHECK_PARSE_ERROR("PageFilter(-1)", "PageFilter argument 1 must not be negative");
    CHECK_PARSE_ERROR("PageFilter('x')", "PageFilter argument 1 must be an integer");
    CHECK_PARSE_ERROR("PageFilter(99999999999999999999)", "integer out of range");
    CHECK_PARSE_ERROR("PageFilter(-)", "expected digits");
    CHECK_PARSE_ERROR("TimestampsFilter(1, -5)", "argument 2 must not be negative");
    CHECK_PARSE_ERROR("ColumnRangeFilter('a', true, 'b')", "takes 4 arguments, got 3");
    CHECK_PARSE_ERROR("ColumnRangeFilter('a', 'b', 'c', true)", "argument 2 must be true or false");
    CHECK_PARSE_ERROR("PrefixFilter('a') AND", "expected a filter name, found the end");
    CHECK_PARSE_ERROR("PrefixFilter('a') XOR PrefixFilter('b')",
                      "expected AND, OR or the end of the filter at offset 18");
    CHECK_PARSE_ERROR("(PrefixFilter('a')", "expected ')' to close the '(' at offset 0");
    CHECK_PARSE_ERROR("PrefixFilter('a'))", "expected AND, OR or the end");
    CHECK_PARSE_ERROR("SKIP", "expected a filter name");
    CHECK_PARSE_ERROR("AND PrefixFilter('a')", "unknown filter AND");
    CHECK_PARSE_ERROR("PrefixFilter('a',)", "expected an argument, found ')'");
    CHECK_PARSE_ERROR("prefixfilter('a')", "unknown filter prefixfilter");

    /* Hostile nesting is refused, not a stack overflow. */
    char deep[2000];
    size_t k = 0;
    for (int i = 0; i < 500; i++) deep[k++] = '(';
    snprintf(deep + k, sizeof deep - k, "PrefixFilter('a')");
    CHECK_PARSE_ERROR(deep, "nested too deeply");
    k = 0;
    for (int i = 0; i < 300; i++) { memcpy(deep + k, "SKIP ", 5); k += 5; }
    snprintf(deep + k, sizeof deep - k, "PrefixFilter('a')");
    CHECK_PARSE_ERROR(deep, "nested too deeply");

    /* No message buffer, and a tiny one, are both fine. */
    kv_filter *f = NULL;
    CHECK_EQ(kv_filter_parse(&f, "Nope()", NULL, 0), KV_INVALID);
    CHECK(f == NULL);
    char tiny[8];
    CHECK_EQ(kv_filter_parse(&f, "Nope()", tiny, sizeof tiny), KV_INVALID);
    CHECK_EQ(strlen(tiny), 7);
    CHECK_EQ(kv_filter_parse(&f, NULL, tiny, sizeof tiny), KV_INVALID);
    CHECK_EQ(kv_filter_parse(NULL, "PageFilter(1)", NULL, 0), KV_INVALID);
}

static void test_single_filters(void) {
    const char *all = "cf:a@3=v3a cf:a@2=v2a cf:b@5=hello cf:c@1=zeta g:a@4=Other";
    CHECK_FILTER("PrefixFilter('r')", all);
    CHECK_FILTER("PrefixFilter('r1')", all);
    CHECK_FILTER("PrefixFilter('r12')", "-");
    CHECK_FILTER("PrefixFilter('s')", "-");
    CHECK_FILTER("PrefixFilter('a')", "- STOP");
    CHECK_FILTER("ColumnPrefixFilter('b')", "cf:b@5=hello");
    CHECK_FILTER("ColumnPrefixFilter('x')", "-");
    CHECK_FILTER("MultipleColumnPrefixFilter('c', 'b')", "cf:b@5=hello cf:c@1=zeta");
    CHECK_FILTER("QualifierFilter(=, 'binary:a')", "cf:a@3=v3a cf:a@2=v2a g:a@4=Other");
    CHECK_FILTER("QualifierFilter(>, 'binary:a')", "cf:b@5=hello cf:c@1=zeta");
    CHECK_FILTER("QualifierFilter(GREATER_OR_EQUAL, 'binary:b')", "cf:b@5=hello cf:c@1=zeta");
    CHECK_FILTER("QualifierFilter(<, 'binary:b')", "cf:a@3=v3a cf:a@2=v2a g:a@4=Other");
    CHECK_FILTER("QualifierFilter(NOT_EQUAL, 'binary:a')", "cf:b@5=hello cf:c@1=zeta");
    CHECK_FILTER("ValueFilter(=, 'binary:hello')", "cf:b@5=hello");
    CHECK_FILTER("ValueFilter(=, 'binary:hell')", "-");
    CHECK_FILTER("ValueFilter(=, 'binaryprefix:hell')", "cf:b@5=hello");
    CHECK_FILTER("ValueFilter(<, 'binaryprefix:v3')", "cf:a@2=v2a cf:b@5=hello g:a@4=Other");
    CHECK_FILTER("ValueFilter(=, 'substring:ELL')", "cf:b@5=hello");
    CHECK_FILTER("ValueFilter(=, 'substring:other')", "g:a@4=Other");
    CHECK_FILTER("ValueFilter(!=, 'substring:a')", "cf:b@5=hello g:a@4=Other");
    CHECK_FILTER("ValueFilter(=, 'regexstring:^v[0-9]a$')", "cf:a@3=v3a cf:a@2=v2a");
    CHECK_FILTER("ValueFilter(=, 'regexstring:l+o')", "cf:b@5=hello");
    CHECK_FILTER("ValueFilter(!=, 'regexstring:^v')", "cf:b@5=hello cf:c@1=zeta g:a@4=Other");
    CHECK_FILTER("RowFilter(=, 'binary:r1')", all);
    CHECK_FILTER("RowFilter(!=, 'binary:r1')", "-");
    CHECK_FILTER("RowFilter(>, 'binary:r')", all);
    CHECK_FILTER("RowFilter(=, 'regexstring:^r[0-9]$')", all);
    CHECK_FILTER("FamilyFilter(=, 'binary:g')", "g:a@4=Other");
    CHECK_FILTER("FamilyFilter(<, 'binary:d')", "cf:a@3=v3a cf:a@2=v2a cf:b@5=hello cf:c@1=zeta");
    CHECK_FILTER("SingleColumnValueFilter('cf', 'a', =, 'binary:v3a')", all);
    /* Only the newest version counts by default... */
    CHECK_FILTER("SingleColumnValueFilter('cf', 'a', =, 'binary:v2a')", "-");
    /* ...unless latestVersionOnly is false. */
    CHECK_FILTER("SingleColumnValueFilter('cf', 'a', =, 'binary:v2a', false, false)", all);
    CHECK_FILTER("SingleColumnValueFilter('cf', 'b', >, 'binary:hello')", "-");
    CHECK_FILTER("SingleColumnValueFilter('cf', 'zz', =, 'binary:x')", all);
    CHECK_FILTER("SingleColumnValueFilter('cf', 'zz', =, 'binary:x', true, true)", "-");
    CHECK_FILTER("SingleColumnValueFilter('nofam', 'a', =, 'binary:v3a', true, true)", "-");
    CHECK_FILTER("SingleColumnValueExcludeFilter('cf', 'a', =, 'binary:v3a')",
                 "cf:b@5=hello cf:c@1=zeta g:a@4=Other");
    CHECK_FILTER("SingleColumnValueExcludeFilter('cf', 'a', =, 'binary:x')", "-");
    CHECK_FILTER("KeyOnlyFilter()", "cf:a@3= cf:a@2= cf:b@5= cf:c@1= g:a@4=");
    CHECK_FILTER("KeyOnlyFilter(false)", "cf:a@3= cf:a@2= cf:b@5= cf:c@1= g:a@4=");
    CHECK_FILTER("KeyOnlyFilter(true)",
                 "cf:a@3=\\x00\\x00\\x00\\x03 cf:a@2=\\x00\\x00\\x00\\x03 "
                 "cf:b@5=\\x00\\x00\\x00\\x05 cf:c@1=\\x00\\x00\\x00\\x04 g:a@4=\\x00\\x00\\x00\\x05");
    CHECK_FILTER("FirstKeyOnlyFilter()", "cf:a@3=v3a");
    CHECK_FILTER("TimestampsFilter(5, 2)", "cf:a@2=v2a cf:b@5=hello");
    CHECK_FILTER("TimestampsFilter(4, 9, 1, 3)", "cf:a@3=v3a cf:c@1=zeta g:a@4=Other");
    CHECK_FILTER("TimestampsFilter(7)", "-");
    CHECK_FILTER("TimestampsFilter()", "-");
    CHECK_FILTER("PageFilter(1)", "cf:a@3=v3a cf:a@2=v2a cf:b@5=hello cf:c@1=zeta g:a@4=Other STOP");
    CHECK_FILTER("PageFilter(2)", all);
    CHECK_FILTER("PageFilter(0)", "- STOP");
    /* Newest version of each of the first n columns; once a row has more,
       filterAllRemaining ends the scan at the next cell (DONE_SCAN), which
       is why HBase calls it unsuitable for scans. */
    CHECK_FILTER("ColumnCountGetFilter(2)", "cf:a@3=v3a cf:b@5=hello STOP");
    CHECK_FILTER("ColumnCountGetFilter(4)", "cf:a@3=v3a cf:b@5=hello cf:c@1=zeta g:a@4=Other");
    CHECK_FILTER("ColumnCountGetFilter(0)", "- STOP");
    CHECK_FILTER("InclusiveStopFilter('r1')", all);
    CHECK_FILTER("InclusiveStopFilter('r2')", all);
    CHECK_FILTER("InclusiveStopFilter('r0')", "- STOP");
    CHECK_FILTER("InclusiveStopFilter('r')", "- STOP");
    CHECK_FILTER("ColumnRangeFilter('a', false, 'c', true)", "cf:b@5=hello cf:c@1=zeta");
    CHECK_FILTER("ColumnRangeFilter('a', true, 'b', false)", "cf:a@3=v3a cf:a@2=v2a g:a@4=Other");
    CHECK_FILTER("ColumnRangeFilter('', true, 'b', true)",
                 "cf:a@3=v3a cf:a@2=v2a cf:b@5=hello g:a@4=Other");
    CHECK_FILTER("ColumnRangeFilter('b', true, '', false)", "cf:b@5=hello cf:c@1=zeta");
    CHECK_FILTER("ColumnRangeFilter('b', false, 'b', true)", "-");
}

/* The filters HBase 2's ParseFilter registers besides the classic ones. */
static const kv_cell row_dep[] = {
    CELL("r1", "f", "a", 2, "A2"),
    CELL("r1", "f", "a", 1, "A1"),
    CELL("r1", "f", "b", 2, "B2"),
    CELL("r1", "f", "c", 1, "C1"),
    CELL("r1", "g", "z", 2, "Z2"),
};

#define CHECK_FILTER_ON(row, text, want) do { \
    char cf_buf_[1024]; \
    const char *cf_got_ = apply(cf_buf_, sizeof cf_buf_, (text), (row), sizeof(row) / sizeof(row)[0]); \
    test_checks_run++; \
    if (strcmp(cf_got_, (want)) != 0) { test_checks_failed++; \
        fprintf(stderr, "%s:%d: filter %s: got '%s', expected '%s'\n", __FILE__, __LINE__, \
                (text), cf_got_, (want)); } \
} while (0)

static void test_hbase2_filters(void) {
    const char *all = "cf:a@3=v3a cf:a@2=v2a cf:b@5=hello cf:c@1=zeta g:a@4=Other";
    /* ColumnPaginationFilter(limit, offset): newest version of columns
       offset+1 .. offset+limit, counted across families */
    CHECK_FILTER("ColumnPaginationFilter(2, 1)", "cf:b@5=hello cf:c@1=zeta");
    CHECK_FILTER("ColumnPaginationFilter(2, 3)", "g:a@4=Other");
    CHECK_FILTER("ColumnPaginationFilter(10, 0)", "cf:a@3=v3a cf:b@5=hello cf:c@1=zeta g:a@4=Other");
    CHECK_FILTER("ColumnPaginationFilter(0, 0)", "-");
    CHECK_FILTER("ColumnPaginationFilter(1, 4)", "-");
    /* ColumnValueFilter: only the named column's matching cells */
    CHECK_FILTER("ColumnValueFilter('cf', 'a', =, 'binary:v2a')", "cf:a@2=v2a");
    CHECK_FILTER("ColumnValueFilter('cf', 'a', >, 'binary:v0')", "cf:a@3=v3a cf:a@2=v2a");
    CHECK_FILTER("ColumnValueFilter('cf', 'b', =, 'substring:ELL')", "cf:b@5=hello");
    CHECK_FILTER("ColumnValueFilter('cf', 'zz', =, 'binary:x')", "-");
    /* DependentColumnFilter: cells at the timestamps of the dependent column */
    CHECK_FILTER_ON(row_dep, "DependentColumnFilter('f', 'a')",
                    "f:a@2=A2 f:a@1=A1 f:b@2=B2 f:c@1=C1 g:z@2=Z2");
    CHECK_FILTER_ON(row_dep, "DependentColumnFilter('f', 'a', true)", "f:b@2=B2 f:c@1=C1 g:z@2=Z2");
    CHECK_FILTER_ON(row_dep, "DependentColumnFilter('f', 'a', true, =, 'binary:A2')", "f:b@2=B2 g:z@2=Z2");
    CHECK_FILTER_ON(row_dep, "DependentColumnFilter('f', 'a', false, !=, 'binary:A2')", "f:a@1=A1 f:c@1=C1");
    CHECK_FILTER_ON(row_dep, "DependentColumnFilter('f', 'b', false)", "f:a@2=A2 f:b@2=B2 g:z@2=Z2");
    CHECK_FILTER_ON(row_dep, "DependentColumnFilter('f', 'nope')", "-");
    /* MultiRowRangeFilter: row ranges, inclusive or not, open at an empty bound */
    CHECK_FILTER("MultiRowRangeFilter('a', true, 'r1', true)", all);
    CHECK_FILTER("MultiRowRangeFilter('a', true, 'r1', false)", "- STOP");
    CHECK_FILTER("MultiRowRangeFilter('r1', false, 'z', true)", "-");
    CHECK_FILTER("MultiRowRangeFilter('r2', true, 's', false)", "-");
    CHECK_FILTER("MultiRowRangeFilter('a', true, 'b', false, 'r2', true, '', false)", "-");
    CHECK_FILTER("MultiRowRangeFilter('a', true, 'b', false, 'r', true, 'r2', false)", all);
    CHECK_FILTER("MultiRowRangeFilter('', true, 'r0', true, 'r1', true, '', false)", all);
    /* HBase's argument checks */
    CHECK_PARSE_ERROR("ColumnPaginationFilter(1)", "ColumnPaginationFilter takes 2 arguments, got 1");
    CHECK_PARSE_ERROR("ColumnPaginationFilter(-1, 0)", "argument 1 must not be negative");
    CHECK_PARSE_ERROR("ColumnPaginationFilter(1, 3000000000)", "argument 2 is larger than an int");
    CHECK_PARSE_ERROR("ColumnPaginationFilter('1', 0)", "argument 1 must be an integer");
    CHECK_PARSE_ERROR("ColumnCountGetFilter(3000000000)", "larger than an int");
    CHECK_PARSE_ERROR("ColumnValueFilter('f', 'q', =)", "ColumnValueFilter takes 4 arguments, got 3");
    CHECK_PARSE_ERROR("ColumnValueFilter('f', 'q', =, 'nocolon')", "comparator must be 'type:value'");
    CHECK_PARSE_ERROR("DependentColumnFilter('f')", "takes 2, 3 or 5 arguments, got 1");
    CHECK_PARSE_ERROR("DependentColumnFilter('f', 'q', true, =)", "takes 2, 3 or 5 arguments, got 4");
    CHECK_PARSE_ERROR("DependentColumnFilter('f', 'q', 1)", "argument 3 must be true or false");
    CHECK_PARSE_ERROR("DependentColumnFilter('f', 'q', true, 'binary:x', =)",
                      "argument 4 must be a comparison operator");
    CHECK_PARSE_ERROR("MultiRowRangeFilter()", "a multiple of 4 arguments");
    CHECK_PARSE_ERROR("MultiRowRangeFilter('a', true, 'b')", "got 3");
    CHECK_PARSE_ERROR("MultiRowRangeFilter('a', 'b', 'c', true)", "argument 2 must be true or false");
    CHECK_PARSE_ERROR("MultiRowRangeFilter('b', true, 'a', true)",
                      "invalid range: start row => 'b', stop row => 'a'");
}

/* The return codes as HBase's matcher and FilterList apply them. */
#define CHECK_FILTER_V(row, versions, text, want) do { \
    char cf_buf_[1024]; \
    const char *cf_got_ = apply_v(cf_buf_, sizeof cf_buf_, (text), (row), sizeof(row) / sizeof(row)[0], \
                                  (versions)); \
    test_checks_run++; \
    if (strcmp(cf_got_, (want)) != 0) { test_checks_failed++; \
        fprintf(stderr, "%s:%d: filter %s (VERSIONS %d): got '%s', expected '%s'\n", __FILE__, \
                __LINE__, (text), (versions), cf_got_, (want)); } \
} while (0)

static const kv_cell row_prefixes[] = {
    CELL("r1", "f", "a", 1, "1"),
    CELL("r1", "f", "ab", 1, "2"),
    CELL("r1", "f", "ac", 1, "3"),
    CELL("r1", "f", "b", 1, "4"),
};

static void test_return_codes(void) {
    const char *all = "cf:a@3=v3a cf:a@2=v2a cf:b@5=hello cf:c@1=zeta g:a@4=Other";
    /* The read's VERSIONS counts included cells: a filter that includes
       every version sees one more than the cap (the one that exceeds it,
       dropped after the filter saw it), then the column is left. */
    CHECK_FILTER_V(row_r1, 1, "SingleColumnValueFilter('cf', 'a', =, 'binary:v2a', true, false)",
                   "cf:a@3=v3a cf:b@5=hello cf:c@1=zeta g:a@4=Other");
    CHECK_FILTER_V(row_r1, 2, "SingleColumnValueFilter('cf', 'a', =, 'binary:v2a', true, false)", all);
    CHECK_FILTER_V(row_r1, 1, "SingleColumnValueFilter('cf', 'a', =, 'binary:v3a', true, false)",
                   "cf:a@3=v3a cf:b@5=hello cf:c@1=zeta g:a@4=Other");
    /* one that skips newer versions reaches older ones */
    CHECK_FILTER_V(row_r1, 1, "TimestampsFilter(2)", "cf:a@2=v2a");
    CHECK_FILTER_V(row_r1, 1, "ValueFilter(=, 'binary:v2a')", "cf:a@2=v2a");
    /* MultipleColumnPrefixFilter tries only the largest prefix <= the
       qualifier, as HBase does: 'ac' is not let through by 'a'. */
    CHECK_FILTER_ON(row_prefixes, "MultipleColumnPrefixFilter('a', 'ab')", "f:a@1=1 f:ab@1=2");
    CHECK_FILTER_ON(row_prefixes, "MultipleColumnPrefixFilter('b', 'a')", "f:a@1=1 f:ab@1=2 f:ac@1=3 f:b@1=4");
    CHECK_FILTER_ON(row_prefixes, "ColumnPrefixFilter('a')", "f:a@1=1 f:ab@1=2 f:ac@1=3");
    CHECK_FILTER_ON(row_prefixes, "ColumnRangeFilter('ab', false, 'b', false)", "f:ac@1=3");
    /* OR: a side whose NEXT_COL covers a cell is not asked again, and the
       row stays when a side keeps it */
    CHECK_FILTER("ColumnCountGetFilter(1) OR ValueFilter(=, 'binary:v2a')", "cf:a@3=v3a cf:a@2=v2a");
    CHECK_FILTER("FirstKeyOnlyFilter() OR ValueFilter(=, 'binary:Other')", "cf:a@3=v3a g:a@4=Other");
    /* KeyOnlyFilter transforms only the cells its side of an OR included */
    CHECK_FILTER("KeyOnlyFilter() AND QualifierFilter(=, 'binary:b') OR ValueFilter(=, 'binary:zeta')",
                 "cf:b@5= cf:c@1=zeta");
    /* ColumnPaginationFilter counts columns across families */
    CHECK_FILTER("FamilyFilter(=, 'binary:g') AND ColumnPaginationFilter(1, 0)", "g:a@4=Other");
    CHECK_FILTER("ColumnPaginationFilter(1, 0) AND FamilyFilter(=, 'binary:g')", "-");
    /* SKIP filters the row on any answer but INCLUDE */
    CHECK_FILTER("SKIP ColumnPrefixFilter('a')", "-");
    CHECK_FILTER("SKIP FamilyFilter(=, 'binary:cf')", "-");
}

static void test_bytes_and_quotes(void) {
    /* Binary comparisons are unsigned: 0x80 sorts after 0x7f. */
    static const kv_cell hi[] = { CELL("k", "f", "q", 1, "\x80"), CELL("k", "f", "r", 1, "\x01") };
    char buf[256];
    CHECK_STR(apply(buf, sizeof buf, "ValueFilter(>, 'binary:\x7f')", hi, 2), "f:q@1=\\x80");
    CHECK_STR(apply(buf, sizeof buf, "ValueFilter(<, 'binary:\x7f')", hi, 2), "f:r@1=\\x01");
    /* A shorter value that is a prefix sorts first. */
    static const kv_cell ab[] = { CELL("k", "f", "q", 1, "ab"), CELL("k", "f", "r", 1, "abc") };
    CHECK_STR(apply(buf, sizeof buf, "ValueFilter(<, 'binary:abc')", ab, 2), "f:q@1=ab");
    CHECK_STR(apply(buf, sizeof buf, "ValueFilter(<, 'binaryprefix:abc')", ab, 2), "f:q@1=ab");
    CHECK_STR(apply(buf, sizeof buf, "ValueFilter(=, 'binaryprefix:abc')", ab, 2), "f:r@1=abc");
    /* Regexes and substrings look past NUL bytes in values. */
    static const kv_cell nul[] = { CELL("k", "f", "q", 1, "a\0b"), CELL("k", "f", "r", 1, "ab") };
    CHECK_STR(apply(buf, sizeof buf, "ValueFilter(=, 'regexstring:^a[^x]b$')", nul, 2), "f:q@1=a\\x00b");
    CHECK_STR(apply(buf, sizeof buf, "ValueFilter(=, 'substring:B')", nul, 2), "f:q@1=a\\x00b f:r@1=ab");
    /* kv_filter_parse_len: a filter holding NUL bytes compares with them
       (kv_filter_parse stops at the first one). */
    static const char zf[] = "ValueFilter(=, 'binary:a\0b')";
    kv_filter *zfl = NULL;
    CHECK_EQ(kv_filter_parse_len(&zfl, zf, sizeof zf - 1, NULL, 0), KV_OK);
    if (zfl) {
        kv_filter_run *r = kv_filter_run_new(zfl);
        REQUIRE(r != NULL);
        kv_cell cells[2];
        memcpy(cells, nul, sizeof cells);
        size_t nc = 2;
        bool stop = false;
        CHECK(kv_filter_run_row(r, cells, &nc, &stop));
        render(buf, sizeof buf, true, cells, nc, stop);
        CHECK_STR(buf, "f:q@1=a\\x00b");
        kv_filter_run_free(r);
        kv_filter_free(zfl);
    }
    CHECK_EQ(kv_filter_parse(&zfl, zf, NULL, 0), KV_INVALID);
    /* '' is a quote inside a string. */
    static const kv_cell q1[] = { CELL("it's", "f", "q", 1, "v") };
    static const kv_cell q2[] = { CELL("its", "f", "q", 1, "v") };
    CHECK_STR(apply(buf, sizeof buf, "PrefixFilter('it''s')", q1, 1), "f:q@1=v");
    /* "its" sorts after "it's", so a forward scan can stop. */
    CHECK_STR(apply(buf, sizeof buf, "PrefixFilter('it''s')", q2, 1), "- STOP");
    CHECK_STR(apply(buf, sizeof buf, "ValueFilter(=, 'binary:a:b')", ab, 2), "-");
    /* Delete markers (raw scans) are filtered like any cell. */
    kv_cell del[] = { CELL("k", "f", "", 9, ""), CELL("k", "f", "q", 1, "v") };
    del[0].type = KV_TYPE_DELETE_FAMILY;
    CHECK_STR(apply(buf, sizeof buf, "TimestampsFilter(9)", del, 2), "f:@9=");
}

static void test_combinations(void) {
    CHECK_FILTER("ColumnPrefixFilter('a') AND ValueFilter(=, 'regexstring:^v')",
                 "cf:a@3=v3a cf:a@2=v2a");
    CHECK_FILTER("QualifierFilter(=, 'binary:b') OR TimestampsFilter(1)", "cf:b@5=hello cf:c@1=zeta");
    /* AND binds tighter than OR. */
    CHECK_FILTER("QualifierFilter(=, 'binary:c') OR QualifierFilter(=, 'binary:a') AND "
                 "FamilyFilter(=, 'binary:g')", "cf:c@1=zeta g:a@4=Other");
    CHECK_FILTER("(QualifierFilter(=, 'binary:c') OR QualifierFilter(=, 'binary:a')) AND "
                 "FamilyFilter(=, 'binary:g')", "g:a@4=Other");
    CHECK_FILTER("FamilyFilter(=, 'binary:g') AND QualifierFilter(=, 'binary:a') OR "
                 "QualifierFilter(=, 'binary:c')", "cf:c@1=zeta g:a@4=Other");
    /* Row-level parts: AND needs both, OR either. */
    CHECK_FILTER("PrefixFilter('x') OR QualifierFilter(=, 'binary:b')", "cf:b@5=hello");
    CHECK_FILTER("PrefixFilter('r') OR QualifierFilter(=, 'binary:b')",
                 "cf:a@3=v3a cf:a@2=v2a cf:b@5=hello cf:c@1=zeta g:a@4=Other");
    CHECK_FILTER("PrefixFilter('x') AND QualifierFilter(=, 'binary:b')", "-");
    CHECK_FILTER("PrefixFilter('r') AND QualifierFilter(=, 'binary:b')", "cf:b@5=hello");
    CHECK_FILTER("PrefixFilter('a') OR PrefixFilter('b')", "- STOP");
    CHECK_FILTER("PrefixFilter('a') OR PrefixFilter('s')", "-");
    CHECK_FILTER("SingleColumnValueFilter('cf', 'b', =, 'binary:hello') AND ColumnPrefixFilter('c')",
                 "cf:c@1=zeta");
    /* OR: the row stays (ColumnPrefixFilter does not filter it), and a cell
       is included when either side includes it: SingleColumnValueFilter
       includes the cells before its column, then answers NEXT_ROW. */
    CHECK_FILTER("SingleColumnValueFilter('cf', 'b', =, 'binary:nope') OR ColumnPrefixFilter('c')",
                 "cf:a@3=v3a cf:a@2=v2a cf:c@1=zeta");
    /* AND presents to its right side only what its left side passed. */
    CHECK_FILTER("QualifierFilter(=, 'binary:b') AND FirstKeyOnlyFilter()", "cf:b@5=hello");
    CHECK_FILTER("FirstKeyOnlyFilter() AND QualifierFilter(=, 'binary:b')", "-");
    CHECK_FILTER("FamilyFilter(=, 'binary:cf') AND ColumnCountGetFilter(1)", "cf:a@3=v3a STOP");
    /* KeyOnlyFilter does not hide values from the other filters. */
    CHECK_FILTER("KeyOnlyFilter() AND ValueFilter(=, 'binary:hello')", "cf:b@5=");
    CHECK_FILTER("ValueFilter(=, 'binary:zeta') AND KeyOnlyFilter(true)", "cf:c@1=\\x00\\x00\\x00\\x04");
    /* SKIP: the whole row goes if one cell fails. */
    CHECK_FILTER("SKIP ValueFilter(!=, 'binary:zeta')", "-");
    CHECK_FILTER("SKIP ValueFilter(!=, 'binary:nothing')",
                 "cf:a@3=v3a cf:a@2=v2a cf:b@5=hello cf:c@1=zeta g:a@4=Other");
    /* ...but in an OR the other side keeps the row: OR filters a row only
       when both sides do */
    CHECK_FILTER("SKIP ValueFilter(!=, 'binary:zeta') OR QualifierFilter(=, 'binary:c')",
                 "cf:a@3=v3a cf:a@2=v2a cf:b@5=hello cf:c@1=zeta g:a@4=Other");
    CHECK_FILTER("SKIP ValueFilter(!=, 'binary:zeta') OR PrefixFilter('x')", "-");
    CHECK_FILTER("FamilyFilter(=, 'binary:cf') AND SKIP ValueFilter(!=, 'binary:Other')",
                 "cf:a@3=v3a cf:a@2=v2a cf:b@5=hello cf:c@1=zeta");
    /* WHILE: a failing cell ends the scan; the cells of this row before it
       are returned (filterAllRemaining stops the row there, filterRow of
       the inner filter keeps it). */
    CHECK_FILTER("WHILE ValueFilter(!=, 'binary:zeta')", "cf:a@3=v3a cf:a@2=v2a cf:b@5=hello STOP");
    CHECK_FILTER("WHILE ValueFilter(!=, 'binary:v3a')", "- STOP");
    CHECK_FILTER("WHILE ValueFilter(!=, 'binary:nothing')",
                 "cf:a@3=v3a cf:a@2=v2a cf:b@5=hello cf:c@1=zeta g:a@4=Other");
    CHECK_FILTER("WHILE PrefixFilter('x')", "- STOP");
}

typedef struct scan_row {
    const kv_cell *cells;
    size_t n;
} scan_row;

/* Runs a filter over rows as a scan would (row key first, then the row),
   stopping where the filter says; renders one "row:cells|" per row seen. */
static const char *scan(char *buf, size_t size, const char *text, const scan_row *rows, size_t nrows,
                        bool reversed) {
    kv_filter *f = parse_ok(text);
    if (!f) { snprintf(buf, size, "<parse failed>"); return buf; }
    kv_filter_run *r = kv_filter_run_new(f);
    REQUIRE(r != NULL);
    size_t o = 0;
    buf[0] = 0;
    for (size_t i = 0; i < nrows && o < size; i++) {
        const kv_cell *c0 = &rows[i].cells[0];
        o += (size_t)snprintf(buf + o, size - o, "%s%.*s:", i ? "|" : "", (int)c0->row_len,
                              (const char *)c0->row);
        bool stop = false;
        if (!kv_filter_run_row_key(r, c0->row, c0->row_len, reversed, &stop)) {
            o += (size_t)snprintf(buf + o, size - o, "key-");
            if (stop) { o += (size_t)snprintf(buf + o, size - o, " STOP"); break; }
            continue;
        }
        CHECK(!stop);
        kv_cell cells[16];
        REQUIRE(rows[i].n <= 16);
        memcpy(cells, rows[i].cells, rows[i].n * sizeof *cells);
        size_t nc = rows[i].n;
        bool kept = kv_filter_run_row(r, cells, &nc, &stop);
        render(buf + o, size - o, kept, cells, nc, stop);
        o += strlen(buf + o);
        if (stop) break;
    }
    kv_filter_run_free(r);
    kv_filter_free(f);
    return buf;
}

static const kv_cell ra[] = { CELL("a", "f", "q", 1, "x") };
static const kv_cell rb[] = { CELL("b", "f", "q", 1, "y") };
static const kv_cell rba[] = { CELL("ba", "f", "q", 1, "x") };
static const kv_cell rbz[] = { CELL("bz", "f", "q", 1, "bad") };
static const kv_cell rc[] = { CELL("c", "f", "q", 1, "x"), CELL("c", "f", "r", 1, "x") };
static const kv_cell rd[] = { CELL("d", "f", "q", 1, "x") };

#define ROW(c) { c, sizeof c / sizeof c[0] }

static void test_scans(void) {
    char buf[1024];
    const scan_row fwd[] = { ROW(ra), ROW(rb), ROW(rba), ROW(rbz), ROW(rc), ROW(rd) };
    const scan_row rev[] = { ROW(rd), ROW(rc), ROW(rbz), ROW(rba), ROW(rb), ROW(ra) };

    CHECK_STR(scan(buf, sizeof buf, "PrefixFilter('b')", fwd, 6, false),
              "a:key-|b:f:q@1=y|ba:f:q@1=x|bz:f:q@1=bad|c:key- STOP");
    CHECK_STR(scan(buf, sizeof buf, "PrefixFilter('b')", rev, 6, true),
              "d:key-|c:key-|bz:f:q@1=bad|ba:f:q@1=x|b:f:q@1=y|a:key- STOP");
    CHECK_STR(scan(buf, sizeof buf, "PrefixFilter('bb')", rev, 6, true),
              "d:key-|c:key-|bz:key-|ba:key- STOP");
    CHECK_STR(scan(buf, sizeof buf, "InclusiveStopFilter('ba')", fwd, 6, false),
              "a:f:q@1=x|b:f:q@1=y|ba:f:q@1=x|bz:key- STOP");
    CHECK_STR(scan(buf, sizeof buf, "InclusiveStopFilter('bz')", rev, 6, true),
              "d:f:q@1=x|c:f:q@1=x f:r@1=x|bz:f:q@1=bad|ba:key- STOP");

    /* PageFilter counts only rows returned. */
    CHECK_STR(scan(buf, sizeof buf, "PageFilter(2)", fwd, 6, false), "a:f:q@1=x|b:f:q@1=y STOP");
    CHECK_STR(scan(buf, sizeof buf, "ValueFilter(=, 'binary:x') AND PageFilter(3)", fwd, 6, false),
              "a:f:q@1=x|b:-|ba:f:q@1=x|bz:-|c:f:q@1=x f:r@1=x STOP");
    CHECK_STR(scan(buf, sizeof buf, "PageFilter(3) AND PrefixFilter('b')", fwd, 6, false),
              "a:key-|b:f:q@1=y|ba:f:q@1=x|bz:f:q@1=bad STOP");
    CHECK_STR(scan(buf, sizeof buf, "PageFilter(10)", fwd, 6, false),
              "a:f:q@1=x|b:f:q@1=y|ba:f:q@1=x|bz:f:q@1=bad|c:f:q@1=x f:r@1=x|d:f:q@1=x");
    CHECK_STR(scan(buf, sizeof buf, "PageFilter(0)", fwd, 6, false), "a:key- STOP");

    /* WHILE ends the scan at the first failing row; SKIP only skips it. */
    CHECK_STR(scan(buf, sizeof buf, "WHILE ValueFilter(!=, 'binary:bad')", fwd, 6, false),
              "a:f:q@1=x|b:f:q@1=y|ba:f:q@1=x|bz:- STOP");
    CHECK_STR(scan(buf, sizeof buf, "SKIP ValueFilter(!=, 'binary:bad')", fwd, 6, false),
              "a:f:q@1=x|b:f:q@1=y|ba:f:q@1=x|bz:-|c:f:q@1=x f:r@1=x|d:f:q@1=x");
    CHECK_STR(scan(buf, sizeof buf, "WHILE RowFilter(<, 'binary:c')", fwd, 6, false),
              "a:f:q@1=x|b:f:q@1=y|ba:f:q@1=x|bz:f:q@1=bad|c:key- STOP");
    CHECK_STR(scan(buf, sizeof buf, "WHILE RowFilter(<, 'binary:c') AND PageFilter(2)", fwd, 6, false),
              "a:f:q@1=x|b:f:q@1=y STOP");

    /* A run is per scan: a fresh one starts counting again, and a row
       refused on its key keeps later rows possible without a stop. */
    kv_filter *f = parse_ok("PageFilter(1)");
    REQUIRE(f != NULL);
    for (int k = 0; k < 2; k++) {
        kv_filter_run *r = kv_filter_run_new(f);
        REQUIRE(r != NULL);
        kv_cell cells[1] = { ra[0] };
        size_t nc = 1;
        bool stop = false;
        CHECK(kv_filter_run_row(r, cells, &nc, &stop));
        CHECK(stop);
        nc = 1;
        CHECK(!kv_filter_run_row(r, cells, &nc, &stop));
        CHECK(stop);
        CHECK_EQ(nc, 0);
        kv_filter_run_free(r);
    }
    kv_filter_free(f);

    /* An empty row is never returned. */
    f = parse_ok("KeyOnlyFilter()");
    REQUIRE(f != NULL);
    kv_filter_run *r = kv_filter_run_new(f);
    REQUIRE(r != NULL);
    size_t zero = 0;
    bool stop = true;
    CHECK(!kv_filter_run_row(r, NULL, &zero, &stop));
    CHECK(!stop);
    kv_filter_run_free(r);
    kv_filter_free(f);
    CHECK(kv_filter_run_new(NULL) == NULL);
}

/* Many cells force the run's scratch buffers to grow. */
static void test_large_row(void) {
    enum { N = 1000 };
    static kv_cell cells[N];
    static char quals[N][8];
    for (int i = 0; i < N; i++) {
        snprintf(quals[i], sizeof quals[i], "q%04d", i);
        cells[i] = (kv_cell){ (const uint8_t *)"row", 3, "f", (const uint8_t *)quals[i], 5, 1,
                              KV_TYPE_PUT, (const uint8_t *)"value", 5 };
    }
    kv_filter *f = parse_ok("(ColumnPrefixFilter('q09') OR ColumnPrefixFilter('q00')) AND KeyOnlyFilter(true)");
    REQUIRE(f != NULL);
    kv_filter_run *r = kv_filter_run_new(f);
    REQUIRE(r != NULL);
    kv_cell small[2] = { cells[0], cells[1] };
    size_t nc = 2;
    bool stop;
    CHECK(kv_filter_run_row(r, small, &nc, &stop));
    CHECK_EQ(nc, 2);
    nc = N;
    CHECK(kv_filter_run_row(r, cells, &nc, &stop));
    CHECK(!stop);
    CHECK_EQ(nc, 200);
    CHECK_BYTES(cells[0].qualifier, cells[0].qualifier_len, "q0000");
    CHECK_BYTES(cells[199].qualifier, cells[199].qualifier_len, "q0999");
    CHECK_EQ(cells[199].value_len, 4);
    CHECK(memcmp(cells[199].value, "\0\0\0\5", 4) == 0);
    kv_filter_run_free(r);
    kv_filter_free(f);
}

/* The 'regexstring:' matcher: Java's find() on a subset of its syntax,
   refusing the rest, with a cost bounded by value length x program size
   (issue 11 defect 8: libc's regcomp took gigabytes on a 59-byte pattern). */
static int rx(const char *pattern, const char *subject) {
    kv_regex *re = NULL;
    char err[256];
    if (kv_regex_compile(&re, pattern, strlen(pattern), err, sizeof err) != 0) {
        fprintf(stderr, "compile of /%s/ failed: %s\n", pattern, err);
        return -9;
    }
    int m = kv_regex_find(re, (const uint8_t *)subject, strlen(subject));
    kv_regex_free(re);
    return m;
}

static void check_rx_refused(int line, const char *pattern, const char *needle) {
    kv_regex *re = (kv_regex *)&line;
    char err[256] = "";
    int rc = kv_regex_compile(&re, pattern, strlen(pattern), err, sizeof err);
    test_checks_run++;
    if (rc != -1 || re != NULL || !strstr(err, needle)) {
        test_checks_failed++;
        fprintf(stderr, "test_filter.c:%d: /%s/: rc %d, '%s', expected '%s'\n", line, pattern, rc,
                err, needle);
    }
    if (rc == 0) kv_regex_free(re);
}
#define CHECK_RX_REFUSED(p, needle) check_rx_refused(__LINE__, (p), (needle))

static void test_regex(void) {
    /* found anywhere, as Matcher.find() */
    CHECK_EQ(rx("ell", "hello"), 1);
    CHECK_EQ(rx("^ell", "hello"), 0);
    CHECK_EQ(rx("^h.*o$", "hello"), 1);
    CHECK_EQ(rx("", ""), 1);
    CHECK_EQ(rx("a|b|c", "xxc"), 1);
    CHECK_EQ(rx("(ab)+c", "ababc"), 1);
    CHECK_EQ(rx("^(ab)+c$", "abac"), 0);
    CHECK_EQ(rx("^a{2,3}$", "aaa"), 1);
    CHECK_EQ(rx("^a{2,3}$", "aaaa"), 0);
    CHECK_EQ(rx("^a{2}$", "aa"), 1);
    CHECK_EQ(rx("^a{2,}$", "aaaaa"), 1);
    CHECK_EQ(rx("^a{2,}?$", "a"), 0);
    CHECK_EQ(rx("^a*?b$", "aab"), 1);
    CHECK_EQ(rx("colou?r", "color"), 1);
    CHECK_EQ(rx("^[a-c]+$", "abcab"), 1);
    CHECK_EQ(rx("^[^a-c]+$", "abd"), 0);
    CHECK_EQ(rx("[]]", "]"), 1);
    CHECK_EQ(rx("^\\d+\\.\\d+$", "12.5"), 1);
    CHECK_EQ(rx("^\\d+\\.\\d+$", "12x5"), 0);
    CHECK_EQ(rx("^\\w+\\s\\W$", "ab_9 !"), 1);
    CHECK_EQ(rx("^[\\d\\s]+$", "1 2"), 1);
    CHECK_EQ(rx("\\bcat\\b", "a cat sat"), 1);
    CHECK_EQ(rx("\\bcat\\b", "concatenate"), 0);
    CHECK_EQ(rx("\\Bcat\\B", "concatenate"), 1);
    CHECK_EQ(rx("^a.b$", "a\nb"), 1);      /* DOTALL, as RegexStringComparator */
    CHECK_EQ(rx("x$", "x\n"), 1);          /* Java's $ before a final line end */
    CHECK_EQ(rx("x\\z", "x\n"), 0);
    CHECK_EQ(rx("\\Ax", "yx"), 0);
    CHECK_EQ(rx("(?i)HeLLo", "hello"), 1);
    CHECK_EQ(rx("(?i:A)b", "aB"), 0);
    CHECK_EQ(rx("(?i:A)b", "Ab"), 1);
    CHECK_EQ(rx("(?i)[a-c]+", "ABC"), 1);
    CHECK_EQ(rx("(?<year>\\d{4})-(?:\\d\\d)", "on 2024-05"), 1);
    CHECK_EQ(rx("\\x41\\t", "A\t"), 1);
    CHECK_EQ(rx("\\Qa.b\\E", "axb"), 0);
    CHECK_EQ(rx("\\Qa.b\\E", "a.b"), 1);
    CHECK_EQ(rx("(a*)*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaac"), 0);
    /* refused, with the reason */
    CHECK_RX_REFUSED("a(", "unclosed group");
    CHECK_RX_REFUSED("a)", "unmatched closing ')'");
    CHECK_RX_REFUSED("(a)\\1", "backreferences are not supported");
    CHECK_RX_REFUSED("a(?=b)", "lookahead and lookbehind are not supported");
    CHECK_RX_REFUSED("(?<!a)b", "lookahead and lookbehind are not supported");
    CHECK_RX_REFUSED("a*+", "possessive quantifiers are not supported");
    CHECK_RX_REFUSED("\\p{Alpha}", "character properties are not supported");
    CHECK_RX_REFUSED("[a-z&&[^c]]", "unions and intersections are not supported");
    CHECK_RX_REFUSED("(?s)a", "only the flag i");
    CHECK_RX_REFUSED("*a", "dangling meta character '*'");
    CHECK_RX_REFUSED("a{2", "illegal repetition");
    CHECK_RX_REFUSED("a{3,2}", "illegal repetition range");
    CHECK_RX_REFUSED("[z-a]", "illegal character range");
    CHECK_RX_REFUSED("[abc", "unclosed character class");
    CHECK_RX_REFUSED("a{1001}", "repetition count above 1000");
    /* hostile: bounded program, refused quickly with a clear message */
    CHECK_RX_REFUSED("((a{1000}){1000}){1000}", "regular expression too large");
    CHECK_RX_REFUSED("(((((((((((((((((((((x{999}){999}){999}){999}){999})))))))))))))))))",
                     "too large");
    char deep[1024];
    memset(deep, '(', 600);
    deep[600] = 0;
    CHECK_RX_REFUSED(deep, "nested too deeply");
    static char longest[5000];
    memset(longest, 'a', sizeof longest - 1);
    CHECK_RX_REFUSED(longest, "longer than 4096 bytes");
    longest[4096] = 0;
    CHECK_EQ(rx(longest, longest), 1);
    /* a filter with too many terms is refused before it can cost much */
    static char many[8192];
    size_t o = 0;
    for (int i = 0; i < 300; i++)
        o += (size_t)snprintf(many + o, sizeof many - o, "%sKeyOnlyFilter()", i ? " AND " : "");
    CHECK_PARSE_ERROR(many, "more than 256 filters and operators");
    /* and the filter language reports the matcher's reason */
    CHECK_PARSE_ERROR("ValueFilter(=, 'regexstring:(?=x)')", "lookahead and lookbehind are not supported");
    CHECK_PARSE_ERROR("RowFilter(=, 'regexstring:(x{900}){900}')", "regular expression too large");
    /* a big but allowed program on a long value stays linear */
    char big[20001];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = 0;
    CHECK_EQ(rx("(a|aa)*b", big), 0);
    CHECK_EQ(rx("(a?){30}a{30}", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"), 1);
}

int main(void) {
    test_parse_ok();
    test_parse_errors();
    test_single_filters();
    test_bytes_and_quotes();
    test_combinations();
    test_scans();
    test_large_row();
    test_regex();
    test_hbase2_filters();
    test_return_codes();
    return test_finish("test_filter");
}
