/**
 * @file test_bt_map.c
 * Tests of the HBase-to-Bigtable mapping (bt_map.h) without a server: the
 * table id scheme, timestamps, each mutation kind and the ones that cannot
 * be expressed, GC rules, read filters with TTL and version limits, the
 * resume row sets (both directions), reversed scans, check-and-mutate
 * predicates and mutations guarded by "nothing newer". Requests are inspected
 * after a pack/unpack round trip, i.e. as the server would decode them.
 */
#include "bt_map.h"
#include "testutil.h"

#define NOW 1700000000000LL   /* ms */

/* Packs and unpacks @p m, so that checks see what goes on the wire. */
static ProtobufCMessage *wire(const ProtobufCMessage *m) {
    static uint8_t buf[65536];
    size_t n = protobuf_c_message_get_packed_size(m);
    REQUIRE(n <= sizeof buf);
    protobuf_c_message_pack(m, buf);
    ProtobufCMessage *u = protobuf_c_message_unpack(m->descriptor, NULL, n, buf);
    REQUIRE(u != NULL);
    return u;
}

static void test_table_ids(void) {
    static const char *const cases[][2] = {
        { "t", "t" }, { "default:t", "t" }, { "ns:t", "ns--t" }, { "a-b:c-d", "a-_b--c-_d" },
        { "a-:_b", "a-_--_b" }, { "x.y", "x.y" }, { "n_1:T.2-", "n_1--T.2-_" },
    };
    char id[64], name[128];
    bt_status st;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CHECK_EQ(bt_table_id(id, sizeof id, cases[i][0], &st), BT_OK);
        CHECK_BYTES(id, strlen(id), cases[i][1]);
        CHECK_EQ(bt_table_name(name, sizeof name, id, &st), BT_OK);
        const char *back = strncmp(cases[i][0], "default:", 8) == 0 ? cases[i][0] + 8 : cases[i][0];
        CHECK_BYTES(name, strlen(name), back);
    }
    CHECK_EQ(bt_table_id(id, sizeof id, "bad name", &st), BT_INVALID);
    CHECK_EQ(bt_table_id(id, sizeof id, "ns:", &st), BT_INVALID);
    CHECK_EQ(bt_table_id(id, sizeof id, ":t", &st), BT_INVALID);
    CHECK_EQ(bt_table_id(id, sizeof id, "-t", &st), BT_INVALID);
    /* 50 bytes fit, 51 do not; '-' counts twice. */
    char longname[64];
    memset(longname, 'x', 50);
    longname[50] = '\0';
    CHECK_EQ(bt_table_id(id, sizeof id, longname, &st), BT_OK);
    longname[0] = 'a';
    longname[1] = '-';
    CHECK_EQ(bt_table_id(id, sizeof id, longname, &st), BT_INVALID);
    CHECK(strstr(st.msg, "too long") != NULL);
    /* Ids that no name maps to are refused, so that listings skip them. */
    CHECK_EQ(bt_table_name(name, sizeof name, "x-y", &st), BT_INVALID);
    CHECK_EQ(bt_table_name(name, sizeof name, "default--t", &st), BT_INVALID);
    CHECK_EQ(bt_table_name(name, sizeof name, "a--b--c", &st), BT_INVALID);
    CHECK_EQ(bt_table_name(name, sizeof name, "t-", &st), BT_INVALID);
}

static void test_timestamps(void) {
    CHECK_EQ(bt_micros_from_ms(1234), 1234000);
    CHECK_EQ(bt_micros_from_ms(-1), -1);
    CHECK_EQ(bt_micros_from_ms(INT64_MAX / 1000 + 1), -1);
    CHECK_EQ(bt_ms_from_micros(1234999), 1234);
    CHECK_EQ(bt_ms_from_micros(0), 0);
}

static void test_mutations(void) {
    bt_arena a = BT_ARENA_INIT;
    bt_status st;
    const bt_hop ops[] = {
        { BT_HOP_PUT, "f", "q", 1, 42, "v", 1 },
        { BT_HOP_PUT, "f", "q", 1, BT_TS_NONE, "w", 1 },
        { BT_HOP_DELETE_VERSION, "f", "q", 1, 42, NULL, 0 },
        { BT_HOP_DELETE_COLUMN, "f", "q", 1, 42, NULL, 0 },
        { BT_HOP_DELETE_COLUMN, "f", "q", 1, BT_TS_NONE, NULL, 0 },
        { BT_HOP_DELETE_FAMILY, "f", NULL, 0, BT_TS_NONE, NULL, 0 },
        { BT_HOP_DELETE_ROW, NULL, NULL, 0, BT_TS_NONE, NULL, 0 },
    };
    Btpb__MutateRowRequest *req;
    REQUIRE(bt_map_mutate_row(&req, &a, "T", "row", 3, ops, 7, NOW, &st) == BT_OK);
    Btpb__MutateRowRequest *w = (Btpb__MutateRowRequest *)wire(&req->base);
    REQUIRE(w->n_mutations == 7);
    CHECK_BYTES(w->row_key.data, w->row_key.len, "row");
    Btpb__Mutation **m = w->mutations;
    CHECK(m[0]->mutation_case == BTPB__MUTATION__MUTATION_SET_CELL);
    CHECK_EQ(m[0]->set_cell->timestamp_micros, 42000);
    CHECK_BYTES(m[0]->set_cell->value.data, m[0]->set_cell->value.len, "v");
    CHECK_EQ(m[1]->set_cell->timestamp_micros, NOW * 1000);
    CHECK(m[2]->mutation_case == BTPB__MUTATION__MUTATION_DELETE_FROM_COLUMN);
    CHECK_EQ(m[2]->delete_from_column->time_range->start_timestamp_micros, 42000);
    CHECK_EQ(m[2]->delete_from_column->time_range->end_timestamp_micros, 43000);
    CHECK_EQ(m[3]->delete_from_column->time_range->start_timestamp_micros, 0);
    CHECK_EQ(m[3]->delete_from_column->time_range->end_timestamp_micros, 43000);
    CHECK_EQ(m[4]->delete_from_column->time_range->end_timestamp_micros, (NOW + 1) * 1000);
    CHECK(m[5]->mutation_case == BTPB__MUTATION__MUTATION_DELETE_FROM_FAMILY);
    CHECK_BYTES(m[5]->delete_from_family->family_name, 1, "f");
    CHECK(m[6]->mutation_case == BTPB__MUTATION__MUTATION_DELETE_FROM_ROW);
    btpb__mutate_row_request__free_unpacked(w, NULL);

    /* What Bigtable cannot express, each with a message saying why. */
    static const struct { bt_hop op; bt_code code; const char *words; } bad[] = {
        { { BT_HOP_DELETE_FAMILY, "f", NULL, 0, 42, NULL, 0 }, BT_UNSUPPORTED, "up to a timestamp" },
        { { BT_HOP_DELETE_ROW, NULL, NULL, 0, 42, NULL, 0 }, BT_UNSUPPORTED, "up to a timestamp" },
        { { BT_HOP_DELETE_FAMILY_VERSION, "f", NULL, 0, 42, NULL, 0 }, BT_UNSUPPORTED,
          "DeleteFamilyVersion" },
        { { BT_HOP_DELETE_VERSION, "f", "q", 1, BT_TS_NONE, NULL, 0 }, BT_UNSUPPORTED,
          "newest version" },
        { { BT_HOP_PUT, "f", "q", 1, -5, "v", 1 }, BT_UNSUPPORTED, "negative timestamps" },
        { { BT_HOP_PUT, "f:x", "q", 1, 5, "v", 1 }, BT_INVALID, "[-_.a-zA-Z0-9]" },
        { { BT_HOP_PUT, "", "q", 1, 5, "v", 1 }, BT_INVALID, "1 to 64 bytes" },
        { { BT_HOP_PUT, "f", "q", BT_MAX_QUALIFIER + 1, 5, "v", 1 }, BT_INVALID, "qualifier" },
        { { BT_HOP_PUT, "f", "q", 1, INT64_MAX / 1000 + 1, "v", 1 }, BT_INVALID, "out of range" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_EQ(bt_map_mutate_row(&req, &a, "T", "row", 3, &bad[i].op, 1, NOW, &st), bad[i].code);
        CHECK(strstr(st.msg, bad[i].words) != NULL);
        if (!strstr(st.msg, bad[i].words)) fprintf(stderr, "  case %zu: %s\n", i, st.msg);
    }
    static char bigrow[BT_MAX_ROW_KEY + 1];
    CHECK_EQ(bt_map_mutate_row(&req, &a, "T", bigrow, sizeof bigrow, ops, 1, NOW, &st), BT_INVALID);
    CHECK_EQ(bt_map_mutate_row(&req, &a, "T", "", 0, ops, 1, NOW, &st), BT_INVALID);
    CHECK_EQ(bt_map_mutate_row(&req, &a, "T", "r", 1, ops, 0, NOW, &st), BT_INVALID);
    bt_arena_free(&a);
}

static void test_gc_rules(void) {
    bt_arena a = BT_ARENA_INIT;
    bt_status st;
    Btpb__GcRule *r;
    bt_family_rules f = { "f", 3, 0, 0, false };
    CHECK_EQ(bt_map_gc_rule(&r, &a, &f, &st), BT_OK);
    CHECK(r->rule_case == BTPB__GC_RULE__RULE_MAX_NUM_VERSIONS && r->max_num_versions == 3);
    f.max_versions = 0;
    f.ttl_seconds = 60;
    CHECK_EQ(bt_map_gc_rule(&r, &a, &f, &st), BT_OK);
    CHECK(r->rule_case == BTPB__GC_RULE__RULE_MAX_AGE && r->max_age->seconds == 60);
    f.max_versions = 2;
    CHECK_EQ(bt_map_gc_rule(&r, &a, &f, &st), BT_OK);
    REQUIRE(r->rule_case == BTPB__GC_RULE__RULE_UNION && r->union_->n_rules == 2);
    Btpb__GcRule *w = (Btpb__GcRule *)wire(&r->base);
    bt_family_rules back = { "f", 0, 0, 0, false };
    CHECK_EQ(bt_parse_gc_rule(&back, w, &st), BT_OK);
    CHECK_EQ(back.max_versions, 2);
    CHECK_EQ(back.ttl_seconds, 60);
    btpb__gc_rule__free_unpacked(w, NULL);
    f.max_versions = f.ttl_seconds = 0;
    CHECK_EQ(bt_map_gc_rule(&r, &a, &f, &st), BT_OK);
    CHECK(r == NULL);
    CHECK_EQ(bt_parse_gc_rule(&back, NULL, &st), BT_OK);
    CHECK_EQ(back.max_versions, 0);
    /* KEEP_DELETED_CELLS and MIN_VERSIONS with a TTL cannot be kept. */
    bt_family_rules keep = { "f", 1, 0, 0, true };
    CHECK_EQ(bt_map_gc_rule(&r, &a, &keep, &st), BT_UNSUPPORTED);
    CHECK(strstr(st.msg, "KEEP_DELETED_CELLS") != NULL);
    bt_family_rules minv = { "f", 3, 100, 1, false };
    CHECK_EQ(bt_map_gc_rule(&r, &a, &minv, &st), BT_UNSUPPORTED);
    CHECK(strstr(st.msg, "MIN_VERSIONS") != NULL);
    minv.ttl_seconds = 0;
    CHECK_EQ(bt_map_gc_rule(&r, &a, &minv, &st), BT_OK);
    /* An intersection (made by other tools) has no HBase reading. */
    Btpb__GcRule inter = BTPB__GC_RULE__INIT;
    Btpb__GcRule__Intersection in = BTPB__GC_RULE__INTERSECTION__INIT;
    inter.rule_case = BTPB__GC_RULE__RULE_INTERSECTION;
    inter.intersection = &in;
    CHECK_EQ(bt_parse_gc_rule(&back, &inter, &st), BT_UNSUPPORTED);
    /* CreateTable carries one entry per family. */
    bt_family_rules fams[2] = { { "a", 1, 0, 0, false }, { "b", 5, 86400, 0, false } };
    Btpb__CreateTableRequest *ct;
    CHECK_EQ(bt_map_create_table(&ct, &a, "projects/p/instances/i", "tid", fams, 2, &st), BT_OK);
    Btpb__CreateTableRequest *cw = (Btpb__CreateTableRequest *)wire(&ct->base);
    CHECK_BYTES(cw->table_id, strlen(cw->table_id), "tid");
    REQUIRE(cw->table->n_column_families == 2);
    CHECK_BYTES(cw->table->column_families[1]->key, 1, "b");
    CHECK(cw->table->column_families[1]->value->gc_rule->rule_case == BTPB__GC_RULE__RULE_UNION);
    btpb__create_table_request__free_unpacked(cw, NULL);
    bt_family_rules badfam = { "a b", 1, 0, 0, false };
    CHECK_EQ(bt_map_create_table(&ct, &a, "p", "tid", &badfam, 1, &st), BT_INVALID);
    bt_arena_free(&a);
}

/* The chain of filters of a family branch, as an array. */
static Btpb__RowFilter **chain_of(const Btpb__RowFilter *f, size_t *n) {
    REQUIRE(f->filter_case == BTPB__ROW_FILTER__FILTER_CHAIN);
    *n = f->chain->n_filters;
    return f->chain->filters;
}

static void test_read_filters(void) {
    bt_arena a = BT_ARENA_INIT;
    bt_status st;
    bt_family_rules fams[2] = { { "cf1", 3, 0, 0, false }, { "c.f", 1, 60, 0, false } };
    bt_read_spec spec = BT_READ_SPEC_INIT;
    spec.families = fams;
    spec.nfamilies = 2;
    spec.max_versions = 5;
    spec.row = "r";
    spec.row_len = 1;
    Btpb__ReadRowsRequest *req;
    REQUIRE(bt_map_read(&req, &a, "T", &spec, NOW, &st) == BT_OK && req);
    Btpb__ReadRowsRequest *w = (Btpb__ReadRowsRequest *)wire(&req->base);
    REQUIRE(w->rows && w->rows->n_row_keys == 1);
    REQUIRE(w->filter->filter_case == BTPB__ROW_FILTER__FILTER_INTERLEAVE);
    REQUIRE(w->filter->interleave->n_filters == 2);
    size_t n;
    /* cf1: family, then VERSIONS = min(5, 3); no TTL, so no time filter. */
    Btpb__RowFilter **c = chain_of(w->filter->interleave->filters[0], &n);
    REQUIRE(n == 2);
    CHECK_BYTES(c[0]->family_name_regex_filter, strlen(c[0]->family_name_regex_filter), "cf1");
    CHECK_EQ(c[1]->cells_per_column_limit_filter, 3);
    /* c.f: escaped regex, the TTL floor (now - 60 s) and VERSIONS 1. */
    c = chain_of(w->filter->interleave->filters[1], &n);
    REQUIRE(n == 3);
    CHECK_BYTES(c[0]->family_name_regex_filter, strlen(c[0]->family_name_regex_filter), "c\\.f");
    CHECK(c[1]->filter_case == BTPB__ROW_FILTER__FILTER_TIMESTAMP_RANGE_FILTER);
    CHECK_EQ(c[1]->timestamp_range_filter->start_timestamp_micros, (NOW - 60000) * 1000);
    CHECK_EQ(c[1]->timestamp_range_filter->end_timestamp_micros, 0);
    CHECK_EQ(c[2]->cells_per_column_limit_filter, 1);
    btpb__read_rows_request__free_unpacked(w, NULL);

    /* A scan of one column in a time range, values stripped, with a limit;
     * start "ab" and prefix "a" give [ab, b). */
    bt_column col = { "cf1", "q", 1 };
    bt_read_spec scan = BT_READ_SPEC_INIT;
    scan.families = fams;
    scan.nfamilies = 2;
    scan.columns = &col;
    scan.ncolumns = 1;
    scan.start = "ab";
    scan.start_len = 2;
    scan.prefix = "a";
    scan.prefix_len = 1;
    scan.min_ts = 10;
    scan.max_ts = 20;
    scan.keys_only = true;
    scan.limit = 7;
    REQUIRE(bt_map_read(&req, &a, "T", &scan, NOW, &st) == BT_OK && req);
    w = (Btpb__ReadRowsRequest *)wire(&req->base);
    CHECK_EQ(w->rows_limit, 7);
    REQUIRE(w->rows->n_row_ranges == 1);
    const Btpb__RowRange *rr = w->rows->row_ranges[0];
    CHECK(rr->start_key_case == BTPB__ROW_RANGE__START_KEY_START_KEY_CLOSED);
    CHECK_BYTES(rr->start_key_closed.data, rr->start_key_closed.len, "ab");
    CHECK(rr->end_key_case == BTPB__ROW_RANGE__END_KEY_END_KEY_OPEN);
    CHECK_BYTES(rr->end_key_open.data, rr->end_key_open.len, "b");
    c = chain_of(w->filter, &n);   /* one family: no interleave */
    REQUIRE(n == 4);
    CHECK(c[0]->filter_case == BTPB__ROW_FILTER__FILTER_COLUMN_RANGE_FILTER);
    CHECK_BYTES(c[0]->column_range_filter->start_qualifier_closed.data, 1, "q");
    CHECK_BYTES(c[0]->column_range_filter->end_qualifier_closed.data, 1, "q");
    CHECK_EQ(c[1]->timestamp_range_filter->start_timestamp_micros, 10000);
    CHECK_EQ(c[1]->timestamp_range_filter->end_timestamp_micros, 20000);
    CHECK_EQ(c[2]->cells_per_column_limit_filter, 1);
    CHECK(c[3]->filter_case == BTPB__ROW_FILTER__FILTER_STRIP_VALUE_TRANSFORMER);
    btpb__read_rows_request__free_unpacked(w, NULL);
    /* A prefix ending in 0xff bytes ends where its last other byte grows:
     * "a\xff\xff" covers [a\xff\xff, b); all 0xff has no end. */
    bt_read_spec ff = scan;
    ff.start = NULL;
    ff.prefix = "a\xff\xff";
    ff.prefix_len = 3;
    REQUIRE(bt_map_read(&req, &a, "T", &ff, NOW, &st) == BT_OK && req);
    rr = req->rows->row_ranges[0];
    CHECK_BYTES(rr->start_key_closed.data, rr->start_key_closed.len, "a\xff\xff");
    CHECK_BYTES(rr->end_key_open.data, rr->end_key_open.len, "b");
    ff.prefix = "\xff";
    ff.prefix_len = 1;
    REQUIRE(bt_map_read(&req, &a, "T", &ff, NOW, &st) == BT_OK && req);
    CHECK(req->rows->row_ranges[0]->end_key_case == BTPB__ROW_RANGE__END_KEY__NOT_SET);

    /* Reads that can return nothing are not sent. */
    bt_read_spec empty = scan;
    empty.start = "b";
    empty.start_len = 1;
    empty.prefix = "a";
    empty.prefix_len = 1;
    CHECK_EQ(bt_map_read(&req, &a, "T", &empty, NOW, &st), BT_OK);
    CHECK(req == NULL);
    bt_column ttlcol = { "c.f", NULL, 0 };
    bt_read_spec old = BT_READ_SPEC_INIT;
    old.families = fams;
    old.nfamilies = 2;
    old.columns = &ttlcol;
    old.ncolumns = 1;
    old.max_ts = NOW - 120000;   /* everything asked for is past the TTL */
    CHECK_EQ(bt_map_read(&req, &a, "T", &old, NOW, &st), BT_OK);
    CHECK(req == NULL);

    /* Errors: unknown family, VERSIONS 0, a filter over 4096 bytes. */
    bt_column unknown = { "nope", NULL, 0 };
    bt_read_spec bad = BT_READ_SPEC_INIT;
    bad.families = fams;
    bad.nfamilies = 2;
    bad.columns = &unknown;
    bad.ncolumns = 1;
    CHECK_EQ(bt_map_read(&req, &a, "T", &bad, NOW, &st), BT_INVALID);
    CHECK(strstr(st.msg, "nope") != NULL);
    bad.ncolumns = 0;
    bad.max_versions = 0;
    CHECK_EQ(bt_map_read(&req, &a, "T", &bad, NOW, &st), BT_INVALID);
    static char q[100][64];
    bt_column many[100];
    for (int i = 0; i < 100; i++) {
        memset(q[i], 'a' + i % 26, sizeof q[i]);
        many[i] = (bt_column){ "cf1", q[i], sizeof q[i] };
    }
    bad.max_versions = 1;
    bad.columns = many;
    bad.ncolumns = 100;
    CHECK_EQ(bt_map_read(&req, &a, "T", &bad, NOW, &st), BT_INVALID);
    CHECK(strstr(st.msg, "4096") != NULL);
    bt_arena_free(&a);
}

static void test_rows_after(void) {
    bt_arena a = BT_ARENA_INIT;
    bt_status st;
    Btpb__RowSet *out;
    bool empty;
    /* Every row: continue after "c". */
    CHECK_EQ(bt_map_rows_after(&out, &empty, &a, NULL, "c", 1, &st), BT_OK);
    CHECK(!empty);
    REQUIRE(out->n_row_ranges == 1 && out->n_row_keys == 0);
    CHECK(out->row_ranges[0]->start_key_case == BTPB__ROW_RANGE__START_KEY_START_KEY_OPEN);
    CHECK_BYTES(out->row_ranges[0]->start_key_open.data, out->row_ranges[0]->start_key_open.len, "c");
    CHECK(out->row_ranges[0]->end_key_case == BTPB__ROW_RANGE__END_KEY__NOT_SET);
    /* Keys and ranges. */
    Btpb__RowSet in = BTPB__ROW_SET__INIT;
    ProtobufCBinaryData keys[3] = { { 1, (uint8_t *)"a" }, { 1, (uint8_t *)"c" }, { 1, (uint8_t *)"e" } };
    Btpb__RowRange r[4];
    Btpb__RowRange *rp[4];
    for (int i = 0; i < 4; i++) {
        btpb__row_range__init(&r[i]);
        rp[i] = &r[i];
    }
    r[0].start_key_case = BTPB__ROW_RANGE__START_KEY_START_KEY_CLOSED;   /* [a, z): cut */
    r[0].start_key_closed = (ProtobufCBinaryData){ 1, (uint8_t *)"a" };
    r[0].end_key_case = BTPB__ROW_RANGE__END_KEY_END_KEY_OPEN;
    r[0].end_key_open = (ProtobufCBinaryData){ 1, (uint8_t *)"z" };
    r[1].end_key_case = BTPB__ROW_RANGE__END_KEY_END_KEY_CLOSED;         /* [, c]: done */
    r[1].end_key_closed = (ProtobufCBinaryData){ 1, (uint8_t *)"c" };
    r[2].start_key_case = BTPB__ROW_RANGE__START_KEY_START_KEY_OPEN;     /* (d, ): kept */
    r[2].start_key_open = (ProtobufCBinaryData){ 1, (uint8_t *)"d" };
    r[3].start_key_case = BTPB__ROW_RANGE__START_KEY_START_KEY_CLOSED;   /* [c, ): cut */
    r[3].start_key_closed = (ProtobufCBinaryData){ 1, (uint8_t *)"c" };
    in.row_keys = keys;
    in.n_row_keys = 3;
    in.row_ranges = rp;
    in.n_row_ranges = 4;
    CHECK_EQ(bt_map_rows_after(&out, &empty, &a, &in, "c", 1, &st), BT_OK);
    REQUIRE(out->n_row_keys == 1);
    CHECK_BYTES(out->row_keys[0].data, out->row_keys[0].len, "e");
    REQUIRE(out->n_row_ranges == 3);
    CHECK(out->row_ranges[0]->start_key_case == BTPB__ROW_RANGE__START_KEY_START_KEY_OPEN);
    CHECK_BYTES(out->row_ranges[0]->start_key_open.data, 1, "c");
    CHECK_BYTES(out->row_ranges[0]->end_key_open.data, 1, "z");
    CHECK_BYTES(out->row_ranges[1]->start_key_open.data, 1, "d");
    CHECK(out->row_ranges[2]->start_key_case == BTPB__ROW_RANGE__START_KEY_START_KEY_OPEN);
    CHECK_BYTES(out->row_ranges[2]->start_key_open.data, 1, "c");
    /* Nothing left. */
    in.n_row_keys = 2;
    in.row_ranges = &rp[1];
    in.n_row_ranges = 1;
    CHECK_EQ(bt_map_rows_after(&out, &empty, &a, &in, "c", 1, &st), BT_OK);
    CHECK(empty);
    bt_arena_free(&a);
}

static void test_check_and_mutate(void) {
    bt_arena a = BT_ARENA_INIT;
    bt_status st;
    bt_family_rules fam = { "f", 1, 30, 0, false };
    const bt_hop put = { BT_HOP_PUT, "f", "q", 1, 5, "v", 1 };
    bt_check chk = { &fam, "q", 1, BT_CMP_EQUAL, "x", 1 };
    Btpb__CheckAndMutateRowRequest *req;
    bool on_match;
    CHECK_EQ(bt_map_check_and_mutate(&req, &on_match, &a, "T", "r", 1, &chk, &put, 1, NOW, &st),
             BT_OK);
    CHECK(on_match);
    Btpb__CheckAndMutateRowRequest *w = (Btpb__CheckAndMutateRowRequest *)wire(&req->base);
    CHECK_EQ(w->n_true_mutations, 1);
    CHECK_EQ(w->n_false_mutations, 0);
    size_t n;
    Btpb__RowFilter **c = chain_of(w->predicate_filter, &n);
    REQUIRE(n == 4);
    CHECK(c[0]->filter_case == BTPB__ROW_FILTER__FILTER_COLUMN_RANGE_FILTER);
    CHECK_EQ(c[1]->timestamp_range_filter->start_timestamp_micros, (NOW - 30000) * 1000);
    CHECK_EQ(c[2]->cells_per_column_limit_filter, 1);   /* only the newest counts */
    const Btpb__ValueRange *vr = c[3]->value_range_filter;
    CHECK(vr->start_value_case == BTPB__VALUE_RANGE__START_VALUE_START_VALUE_CLOSED);
    CHECK(vr->end_value_case == BTPB__VALUE_RANGE__END_VALUE_END_VALUE_CLOSED);
    CHECK_BYTES(vr->start_value_closed.data, vr->start_value_closed.len, "x");
    btpb__check_and_mutate_row_request__free_unpacked(w, NULL);
    /* LESS: value < expected: open end at expected, no start. */
    chk.op = BT_CMP_LESS;
    CHECK_EQ(bt_map_check_and_mutate(&req, &on_match, &a, "T", "r", 1, &chk, &put, 1, NOW, &st),
             BT_OK);
    c = chain_of(req->predicate_filter, &n);
    vr = c[n - 1]->value_range_filter;
    CHECK(vr->start_value_case == BTPB__VALUE_RANGE__START_VALUE__NOT_SET);
    CHECK(vr->end_value_case == BTPB__VALUE_RANGE__END_VALUE_END_VALUE_OPEN);
    /* NOT_EQUAL: (< x) interleaved with (> x). */
    chk.op = BT_CMP_NOT_EQUAL;
    CHECK_EQ(bt_map_check_and_mutate(&req, &on_match, &a, "T", "r", 1, &chk, &put, 1, NOW, &st),
             BT_OK);
    c = chain_of(req->predicate_filter, &n);
    CHECK(c[n - 1]->filter_case == BTPB__ROW_FILTER__FILTER_INTERLEAVE);
    /* Expected NULL: "does not exist" applies on no match. */
    chk.expected = NULL;
    chk.op = BT_CMP_EQUAL;
    CHECK_EQ(bt_map_check_and_mutate(&req, &on_match, &a, "T", "r", 1, &chk, &put, 1, NOW, &st),
             BT_OK);
    CHECK(!on_match);
    CHECK_EQ(req->n_false_mutations, 1);
    CHECK_EQ(req->n_true_mutations, 0);
    c = chain_of(req->predicate_filter, &n);
    CHECK_EQ(n, 3);   /* no value test */
    /* An unsupported mutation fails the whole check-and-mutate. */
    const bt_hop dfv = { BT_HOP_DELETE_FAMILY_VERSION, "f", NULL, 0, 5, NULL, 0 };
    CHECK_EQ(bt_map_check_and_mutate(&req, &on_match, &a, "T", "r", 1, &chk, &dfv, 1, NOW, &st),
             BT_UNSUPPORTED);
    bt_arena_free(&a);
}

static void test_read_modify_write(void) {
    bt_arena a = BT_ARENA_INIT;
    bt_status st;
    Btpb__ReadModifyWriteRowRequest *req;
    CHECK_EQ(bt_map_increment(&req, &a, "T", "r", 1, "f", "n", 1, -3, &st), BT_OK);
    Btpb__ReadModifyWriteRowRequest *w = (Btpb__ReadModifyWriteRowRequest *)wire(&req->base);
    REQUIRE(w->n_rules == 1);
    CHECK(w->rules[0]->rule_case == BTPB__READ_MODIFY_WRITE_RULE__RULE_INCREMENT_AMOUNT);
    CHECK_EQ(w->rules[0]->increment_amount, -3);
    btpb__read_modify_write_row_request__free_unpacked(w, NULL);
    CHECK_EQ(bt_map_append(&req, &a, "T", "r", 1, "f", "n", 1, "xy", 2, &st), BT_OK);
    CHECK(req->rules[0]->rule_case == BTPB__READ_MODIFY_WRITE_RULE__RULE_APPEND_VALUE);
    CHECK_BYTES(req->rules[0]->append_value.data, req->rules[0]->append_value.len, "xy");
    CHECK_EQ(bt_map_increment(&req, &a, "T", "r", 1, "bad family", "n", 1, 1, &st), BT_INVALID);
    bt_arena_free(&a);
}

/* Reversed scans: HBase's start is the inclusive top, stop the exclusive
   bottom; the prefix narrows both; the request says "reversed". */
static void test_reversed_reads(void) {
    bt_arena a = BT_ARENA_INIT;
    bt_status st;
    bt_family_rules fam = { "f", 1, 0, 0, false };
    bt_read_spec rs = BT_READ_SPEC_INIT;
    rs.families = &fam;
    rs.nfamilies = 1;
    rs.reversed = true;
    rs.start = "m";
    rs.start_len = 1;
    rs.stop = "c";
    rs.stop_len = 1;
    Btpb__ReadRowsRequest *req;
    REQUIRE(bt_map_read(&req, &a, "T", &rs, NOW, &st) == BT_OK && req);
    Btpb__ReadRowsRequest *w = (Btpb__ReadRowsRequest *)wire(&req->base);
    CHECK(w->reversed);
    REQUIRE(w->rows && w->rows->n_row_ranges == 1);
    const Btpb__RowRange *rr = w->rows->row_ranges[0];
    CHECK(rr->start_key_case == BTPB__ROW_RANGE__START_KEY_START_KEY_OPEN);
    CHECK_BYTES(rr->start_key_open.data, rr->start_key_open.len, "c");
    CHECK(rr->end_key_case == BTPB__ROW_RANGE__END_KEY_END_KEY_CLOSED);
    CHECK_BYTES(rr->end_key_closed.data, rr->end_key_closed.len, "m");
    btpb__read_rows_request__free_unpacked(w, NULL);
    /* A prefix inside: [d, e). */
    rs.prefix = "d";
    rs.prefix_len = 1;
    REQUIRE(bt_map_read(&req, &a, "T", &rs, NOW, &st) == BT_OK && req);
    rr = req->rows->row_ranges[0];
    CHECK(rr->start_key_case == BTPB__ROW_RANGE__START_KEY_START_KEY_CLOSED);
    CHECK_BYTES(rr->start_key_closed.data, rr->start_key_closed.len, "d");
    CHECK(rr->end_key_case == BTPB__ROW_RANGE__END_KEY_END_KEY_OPEN);
    CHECK_BYTES(rr->end_key_open.data, rr->end_key_open.len, "e");
    /* The prefix "m...": from the start row "m" (closed) down to "m". */
    rs.prefix = "m";
    REQUIRE(bt_map_read(&req, &a, "T", &rs, NOW, &st) == BT_OK && req);
    rr = req->rows->row_ranges[0];
    CHECK_BYTES(rr->start_key_closed.data, rr->start_key_closed.len, "m");
    CHECK(rr->end_key_case == BTPB__ROW_RANGE__END_KEY_END_KEY_CLOSED);
    /* Start at the stop row: (c, c] holds nothing, and is not sent. */
    rs.prefix = NULL;
    rs.prefix_len = 0;
    rs.start = "c";
    CHECK_EQ(bt_map_read(&req, &a, "T", &rs, NOW, &st), BT_OK);
    CHECK(req == NULL);
    /* Forward, the same bounds still mean [start, stop). */
    rs.reversed = false;
    rs.start = "c";
    rs.stop = "m";
    REQUIRE(bt_map_read(&req, &a, "T", &rs, NOW, &st) == BT_OK && req);
    CHECK(!req->reversed);
    rr = req->rows->row_ranges[0];
    CHECK(rr->start_key_case == BTPB__ROW_RANGE__START_KEY_START_KEY_CLOSED);
    CHECK(rr->end_key_case == BTPB__ROW_RANGE__END_KEY_END_KEY_OPEN);
    bt_arena_free(&a);
}

/* A reversed read resumed after row "m" continues below it. */
static void test_rows_before(void) {
    bt_arena a = BT_ARENA_INIT;
    bt_status st;
    Btpb__RowSet *out;
    bool empty;
    CHECK_EQ(bt_map_rows_before(&out, &empty, &a, NULL, "m", 1, &st), BT_OK);
    CHECK(!empty);
    REQUIRE(out->n_row_ranges == 1);
    CHECK(out->row_ranges[0]->start_key_case == BTPB__ROW_RANGE__START_KEY__NOT_SET);
    CHECK(out->row_ranges[0]->end_key_case == BTPB__ROW_RANGE__END_KEY_END_KEY_OPEN);
    CHECK_BYTES(out->row_ranges[0]->end_key_open.data, out->row_ranges[0]->end_key_open.len, "m");
    Btpb__RowSet in = BTPB__ROW_SET__INIT;
    ProtobufCBinaryData keys[3] = { { 1, (uint8_t *)"a" }, { 1, (uint8_t *)"m" }, { 1, (uint8_t *)"z" } };
    Btpb__RowRange r[4];
    Btpb__RowRange *rp[4];
    for (int i = 0; i < 4; i++) {
        btpb__row_range__init(&r[i]);
        rp[i] = &r[i];
    }
    r[0].start_key_case = BTPB__ROW_RANGE__START_KEY_START_KEY_CLOSED;   /* [a, z): cut at m */
    r[0].start_key_closed = (ProtobufCBinaryData){ 1, (uint8_t *)"a" };
    r[0].end_key_case = BTPB__ROW_RANGE__END_KEY_END_KEY_OPEN;
    r[0].end_key_open = (ProtobufCBinaryData){ 1, (uint8_t *)"z" };
    r[1].start_key_case = BTPB__ROW_RANGE__START_KEY_START_KEY_CLOSED;   /* [m, ): done */
    r[1].start_key_closed = (ProtobufCBinaryData){ 1, (uint8_t *)"m" };
    r[2].end_key_case = BTPB__ROW_RANGE__END_KEY_END_KEY_CLOSED;         /* (, b]: kept */
    r[2].end_key_closed = (ProtobufCBinaryData){ 1, (uint8_t *)"b" };
    r[3].end_key_case = BTPB__ROW_RANGE__END_KEY_END_KEY_CLOSED;         /* (, m]: cut */
    r[3].end_key_closed = (ProtobufCBinaryData){ 1, (uint8_t *)"m" };
    in.row_keys = keys;
    in.n_row_keys = 3;
    in.row_ranges = rp;
    in.n_row_ranges = 4;
    CHECK_EQ(bt_map_rows_before(&out, &empty, &a, &in, "m", 1, &st), BT_OK);
    REQUIRE(out->n_row_keys == 1);
    CHECK_BYTES(out->row_keys[0].data, out->row_keys[0].len, "a");
    REQUIRE(out->n_row_ranges == 3);
    CHECK_BYTES(out->row_ranges[0]->start_key_closed.data, 1, "a");
    CHECK(out->row_ranges[0]->end_key_case == BTPB__ROW_RANGE__END_KEY_END_KEY_OPEN);
    CHECK_BYTES(out->row_ranges[0]->end_key_open.data, 1, "m");
    CHECK(out->row_ranges[1]->end_key_case == BTPB__ROW_RANGE__END_KEY_END_KEY_CLOSED);
    CHECK_BYTES(out->row_ranges[1]->end_key_closed.data, 1, "b");
    CHECK(out->row_ranges[2]->end_key_case == BTPB__ROW_RANGE__END_KEY_END_KEY_OPEN);
    CHECK_BYTES(out->row_ranges[2]->end_key_open.data, 1, "m");
    in.n_row_keys = 0;
    in.row_ranges = &rp[1];
    in.n_row_ranges = 1;
    CHECK_EQ(bt_map_rows_before(&out, &empty, &a, &in, "m", 1, &st), BT_OK);
    CHECK(empty);
    bt_arena_free(&a);
}

/* Only each family's first cell: a per-row limit inside the family's chain. */
static void test_first_cell_per_family(void) {
    bt_arena a = BT_ARENA_INIT;
    bt_status st;
    bt_family_rules fam = { "f", 3, 0, 0, false };
    bt_read_spec rs = BT_READ_SPEC_INIT;
    rs.families = &fam;
    rs.nfamilies = 1;
    rs.first_cell_per_family = true;
    rs.keys_only = true;
    Btpb__ReadRowsRequest *req;
    REQUIRE(bt_map_read(&req, &a, "T", &rs, NOW, &st) == BT_OK && req);
    size_t n;
    Btpb__RowFilter **c = chain_of(req->filter, &n);
    REQUIRE(n == 4);
    CHECK(c[0]->filter_case == BTPB__ROW_FILTER__FILTER_FAMILY_NAME_REGEX_FILTER);
    CHECK_EQ(c[1]->cells_per_column_limit_filter, 1);
    CHECK(c[2]->filter_case == BTPB__ROW_FILTER__FILTER_CELLS_PER_ROW_LIMIT_FILTER);
    CHECK_EQ(c[2]->cells_per_row_limit_filter, 1);
    CHECK(c[3]->filter_case == BTPB__ROW_FILTER__FILTER_STRIP_VALUE_TRANSFORMER);
    bt_arena_free(&a);
}

/* A mutation guarded by "nothing newer": applied as false_mutations, the
   predicate an interleave of one chain per place. */
static void test_mutate_unless_newer(void) {
    bt_arena a = BT_ARENA_INIT;
    bt_status st;
    const bt_hop ops[2] = { { BT_HOP_DELETE_VERSION, "f", "q", 1, 5, NULL, 0 },
                            { BT_HOP_DELETE_ROW, NULL, NULL, 0, BT_TS_NONE, NULL, 0 } };
    const bt_newer places[3] = { { "f", "q", 1, 5 }, { "g", NULL, BT_WHOLE_FAMILY, NOW },
                                 { NULL, NULL, 0, NOW } };
    Btpb__CheckAndMutateRowRequest *req;
    CHECK_EQ(bt_map_mutate_unless_newer(&req, &a, "T", "r", 1, places, 3, ops, 2, NOW, &st), BT_OK);
    Btpb__CheckAndMutateRowRequest *w = (Btpb__CheckAndMutateRowRequest *)wire(&req->base);
    CHECK_EQ(w->n_true_mutations, 0);
    REQUIRE(w->n_false_mutations == 2);
    CHECK(w->false_mutations[0]->mutation_case == BTPB__MUTATION__MUTATION_DELETE_FROM_COLUMN);
    CHECK(w->false_mutations[1]->mutation_case == BTPB__MUTATION__MUTATION_DELETE_FROM_ROW);
    REQUIRE(w->predicate_filter->filter_case == BTPB__ROW_FILTER__FILTER_INTERLEAVE);
    REQUIRE(w->predicate_filter->interleave->n_filters == 3);
    size_t n;
    /* The column: cells of f:q from 6 ms on. */
    Btpb__RowFilter **c = chain_of(w->predicate_filter->interleave->filters[0], &n);
    REQUIRE(n == 2);
    CHECK(c[0]->filter_case == BTPB__ROW_FILTER__FILTER_COLUMN_RANGE_FILTER);
    CHECK_EQ(c[1]->timestamp_range_filter->start_timestamp_micros, 6000);
    CHECK_EQ(c[1]->timestamp_range_filter->end_timestamp_micros, 0);
    /* The family: cells of g after now. */
    c = chain_of(w->predicate_filter->interleave->filters[1], &n);
    REQUIRE(n == 2);
    CHECK(c[0]->filter_case == BTPB__ROW_FILTER__FILTER_FAMILY_NAME_REGEX_FILTER);
    CHECK_EQ(c[1]->timestamp_range_filter->start_timestamp_micros, (NOW + 1) * 1000);
    /* The row: any cell after now. */
    const Btpb__RowFilter *row = w->predicate_filter->interleave->filters[2];
    CHECK(row->filter_case == BTPB__ROW_FILTER__FILTER_TIMESTAMP_RANGE_FILTER);
    btpb__check_and_mutate_row_request__free_unpacked(w, NULL);
    /* A column that had no version: any version at all is newer. */
    const bt_newer none = { "f", "q", 1, -1 };
    CHECK_EQ(bt_map_mutate_unless_newer(&req, &a, "T", "r", 1, &none, 1, ops, 1, NOW, &st), BT_OK);
    CHECK(req->predicate_filter->filter_case == BTPB__ROW_FILTER__FILTER_COLUMN_RANGE_FILTER);
    CHECK_EQ(bt_map_mutate_unless_newer(&req, &a, "T", "r", 1, places, 0, ops, 1, NOW, &st),
             BT_INVALID);
    bt_arena_free(&a);
    /* A server without a feature (gRPC UNIMPLEMENTED) is a refusal. */
    CHECK_EQ(bt_code_from_grpc(12), BT_UNSUPPORTED);
}

int main(void) {
    test_table_ids();
    test_timestamps();
    test_mutations();
    test_gc_rules();
    test_read_filters();
    test_rows_after();
    test_check_and_mutate();
    test_read_modify_write();
    test_reversed_reads();
    test_rows_before();
    test_first_cell_per_family();
    test_mutate_unless_newer();
    return test_finish("test_bt_map");
}
