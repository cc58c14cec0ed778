/**
 * @file test_bt_chunks.c
 * Wire-level tests of the ReadRows chunk assembler. Each case is a list of
 * hand-built CellChunks, packed into ReadRowsResponse messages as the
 * server would send them, unpacked again and fed to the assembler; the
 * committed rows are printed one cell a line and compared with what the
 * protocol says they must be. Google's emulator never splits cells nor
 * resets rows, so these cases are the only tests of those paths.
 */
#include <stdbool.h>

#include "bt_chunks.h"
#include "testutil.h"

/* One chunk as a test writes it. NULL key/family/qualifier: absent. */
typedef struct ch {
    const char *key, *family, *qual;
    int64_t ts;
    const char *value;
    int value_size;
    int status;             /* 0: none, 1: reset_row, 2: commit_row */
    bool label;             /* carries a label (must be ignored) */
    bool msg_end;           /* the response message ends after this chunk */
} ch;

enum { NONE = 0, RESET = 1, COMMIT = 2 };

/* Packs @p n chunks into responses, splitting after chunks marked msg_end,
 * feeds them, and prints the rows into @p out ("key fam:qual@ts=value" per
 * cell, a line each). Returns the chunk index of a protocol error, -2 when
 * the stream ended inside a row, or -1 when all went well. */
static int run(const ch *chunks, size_t n, char *out, size_t cap, size_t max_row,
               bool reversed, bt_status *st) {
    bt_asm a;
    bt_asm_init(&a, max_row);
    a.reversed = reversed;
    bt_row row = BT_ROW_INIT;
    size_t len = 0;
    out[0] = '\0';
    int err = -1;
    size_t i = 0;
    while (i < n && err == -1) {
        /* Build one response message. */
        size_t first = i;
        while (i < n && !chunks[i++].msg_end) {
        }
        size_t k = i - first;
        Btpb__ReadRowsResponse resp = BTPB__READ_ROWS_RESPONSE__INIT;
        Btpb__ReadRowsResponse__CellChunk cc[32];
        Btpb__ReadRowsResponse__CellChunk *ptrs[32];
        Btpb__StringValue fam[32];
        Btpb__BytesValue qual[32];
        char *label = (char *)"lbl";
        REQUIRE(k <= 32);
        for (size_t j = 0; j < k; j++) {
            const ch *c = &chunks[first + j];
            btpb__read_rows_response__cell_chunk__init(&cc[j]);
            btpb__string_value__init(&fam[j]);
            btpb__bytes_value__init(&qual[j]);
            if (c->key) cc[j].row_key = (ProtobufCBinaryData){ strlen(c->key), (uint8_t *)c->key };
            if (c->family) {
                fam[j].value = (char *)c->family;
                cc[j].family_name = &fam[j];
            }
            if (c->qual) {
                qual[j].value = (ProtobufCBinaryData){ strlen(c->qual), (uint8_t *)c->qual };
                cc[j].qualifier = &qual[j];
            }
            cc[j].timestamp_micros = c->ts;
            if (c->value) cc[j].value = (ProtobufCBinaryData){ strlen(c->value), (uint8_t *)c->value };
            cc[j].value_size = c->value_size;
            if (c->label) {
                cc[j].n_labels = 1;
                cc[j].labels = &label;
            }
            if (c->status == RESET) {
                cc[j].row_status_case = BTPB__READ_ROWS_RESPONSE__CELL_CHUNK__ROW_STATUS_RESET_ROW;
                cc[j].reset_row = true;
            } else if (c->status == COMMIT) {
                cc[j].row_status_case = BTPB__READ_ROWS_RESPONSE__CELL_CHUNK__ROW_STATUS_COMMIT_ROW;
                cc[j].commit_row = true;
            }
            ptrs[j] = &cc[j];
        }
        resp.n_chunks = k;
        resp.chunks = ptrs;
        uint8_t wire[8192];
        size_t wlen = btpb__read_rows_response__get_packed_size(&resp);
        REQUIRE(wlen <= sizeof wire);
        btpb__read_rows_response__pack(&resp, wire);
        Btpb__ReadRowsResponse *got = btpb__read_rows_response__unpack(NULL, wlen, wire);
        REQUIRE(got != NULL);
        REQUIRE(got->n_chunks == k);
        for (size_t j = 0; j < k && err == -1; j++) {
            int r = bt_asm_feed(&a, got->chunks[j], &row, st);
            if (r < 0) err = (int)(first + j);
            if (r == 1) {
                for (size_t c = 0; c < row.ncells; c++) {
                    const bt_cell *cell = &row.cells[c];
                    len += (size_t)snprintf(out + len, cap - len, "%.*s %s:%.*s@%lld=%.*s\n",
                                            (int)row.key_len, row.key, cell->family,
                                            (int)cell->qualifier_len, cell->qualifier,
                                            (long long)cell->ts_micros, (int)cell->value_len,
                                            cell->value ? (const char *)cell->value : "");
                }
            }
        }
        btpb__read_rows_response__free_unpacked(got, NULL);
    }
    if (err == -1 && bt_asm_end(&a, st) != BT_OK) err = -2;
    bt_row_clear(&row);
    bt_asm_destroy(&a);
    return err;
}

#define RUN_OK(chunks, expected) RUN_OK_DIR(chunks, false, expected)
#define RUN_OK_DIR(chunks, reversed, expected) do { \
    char out_[4096]; bt_status st_; \
    int e_ = run(chunks, sizeof chunks / sizeof chunks[0], out_, sizeof out_, 0, reversed, &st_); \
    CHECK_EQ(e_, -1); \
    if (e_ != -1) fprintf(stderr, "  error: %s\n", st_.msg); \
    CHECK_BYTES(out_, strlen(out_), expected); \
} while (0)

/* Expects a protocol error at chunk @p at (-2: at the end of the stream)
 * whose message contains @p words. */
#define RUN_ERR(chunks, at, words) RUN_ERR_DIR(chunks, false, at, words)
#define RUN_ERR_DIR(chunks, reversed, at, words) do { \
    char out_[4096]; bt_status st_; \
    int e_ = run(chunks, sizeof chunks / sizeof chunks[0], out_, sizeof out_, 0, reversed, &st_); \
    CHECK_EQ(e_, at); \
    CHECK(st_.code == BT_ERROR); \
    CHECK(strstr(st_.msg, words) != NULL); \
    if (!strstr(st_.msg, words)) fprintf(stderr, "  message: %s\n", st_.msg); \
} while (0)

static void test_rows_and_carry_over(void) {
    /* Family and qualifier carry over; labels are ignored. */
    const ch c[] = {
        { "r1", "f", "a", 3000, "v3", 0, NONE, true, false },
        { NULL, NULL, NULL, 2000, "v2", 0, NONE, false, false },
        { NULL, NULL, "b", 1000, "w", 0, NONE, false, false },
        { NULL, "g", "", 5000, "", 0, COMMIT, false, true },
        { "r2", "f", "a", 7000, "x", 0, COMMIT, true, true },
    };
    RUN_OK(c, "r1 f:a@3000=v3\nr1 f:a@2000=v2\nr1 f:b@1000=w\nr1 g:@5000=\nr2 f:a@7000=x\n");
}

static void test_family_order(void) {
    /* Bigtable does not promise an order of families within a row (the
     * emulator's varies from read to read): rows come out in HBase's order
     * of families, each family's cells in the order they were sent. */
    const ch c[] = {
        { "r", "g", "b", 2000, "g2", 0, NONE, false, false },
        { NULL, NULL, NULL, 1000, "g1", 0, NONE, false, false },
        { NULL, "f", "z", 5, "fz", 0, NONE, false, false },
        { NULL, "h", "a", 7, "ha", 0, NONE, false, false },
        { NULL, "f", "zz", 6, "fzz", 0, COMMIT, false, true },
    };
    RUN_OK(c, "r f:z@5=fz\nr f:zz@6=fzz\nr g:b@2000=g2\nr g:b@1000=g1\nr h:a@7=ha\n");
}

static void test_split_cells(void) {
    /* One cell split in three chunks across two responses, then a plain cell. */
    const ch c[] = {
        { "row", "f", "q", 1000, "abcd", 10, NONE, false, true },
        { NULL, NULL, NULL, 0, "efgh", 10, NONE, false, false },
        { NULL, NULL, NULL, 0, "ij", 0, NONE, false, true },
        { NULL, NULL, "r", 2000, "z", 0, COMMIT, false, true },
    };
    RUN_OK(c, "row f:q@1000=abcdefghij\nrow f:r@2000=z\n");
    /* A split cell whose continuation repeats the row key is accepted. */
    const ch d[] = {
        { "k", "f", "q", 1, "ab", 4, NONE, false, false },
        { "k", NULL, NULL, 0, "cd", 0, COMMIT, false, true },
    };
    RUN_OK(d, "k f:q@1=abcd\n");
}

static void test_reset_row(void) {
    /* A reset drops the row in progress; the row is then sent again. */
    const ch c[] = {
        { "a", "f", "q", 1, "old", 0, COMMIT, false, false },
        { "b", "f", "q", 1, "partial", 0, NONE, false, false },
        { NULL, NULL, "r", 1, "more", 0, NONE, false, true },
        { NULL, NULL, NULL, 0, NULL, 0, RESET, false, true },
        { "b", "f", "q", 2, "new", 0, COMMIT, false, true },
    };
    RUN_OK(c, "a f:q@1=old\nb f:q@2=new\n");
    /* A reset inside a split cell. */
    const ch d[] = {
        { "b", "f", "q", 1, "ab", 6, NONE, false, false },
        { NULL, NULL, NULL, 0, NULL, 0, RESET, false, false },
        { "b", "f", "q", 1, "xy", 0, COMMIT, false, true },
    };
    RUN_OK(d, "b f:q@1=xy\n");
}

static void test_protocol_errors(void) {
    const ch not_after[] = {
        { "b", "f", "q", 1, "v", 0, COMMIT, false, false },
        { "b", "f", "q", 1, "v", 0, COMMIT, false, false },
    };
    RUN_ERR(not_after, 1, "not after the last committed row");
    const ch before[] = {
        { "b", "f", "q", 1, "v", 0, COMMIT, false, false },
        { "a", "f", "q", 1, "v", 0, COMMIT, false, false },
    };
    RUN_ERR(before, 1, "not after the last committed row");
    const ch reset_no_row[] = { { NULL, NULL, NULL, 0, NULL, 0, RESET, false, false } };
    RUN_ERR(reset_no_row, 0, "reset_row with no row in progress");
    const ch reset_data[] = {
        { "a", "f", "q", 1, "v", 0, NONE, false, false },
        { NULL, NULL, NULL, 0, "x", 0, RESET, false, false },
    };
    RUN_ERR(reset_data, 1, "reset_row chunk carries data");
    const ch commit_in_cell[] = { { "a", "f", "q", 1, "ab", 4, COMMIT, false, false } };
    RUN_ERR(commit_in_cell, 0, "commit_row inside a split cell");
    const ch short_cell[] = {
        { "a", "f", "q", 1, "ab", 5, NONE, false, false },
        { NULL, NULL, NULL, 0, "cd", 0, COMMIT, false, false },
    };
    RUN_ERR(short_cell, 1, "shorter than its value_size");
    const ch long_cell[] = {
        { "a", "f", "q", 1, "ab", 3, NONE, false, false },
        { NULL, NULL, NULL, 0, "cd", 0, COMMIT, false, false },
    };
    RUN_ERR(long_cell, 1, "longer than its value_size");
    const ch first_too_long[] = { { "a", "f", "q", 1, "abcd", 3, NONE, false, false } };
    RUN_ERR(first_too_long, 0, "longer than value_size");
    const ch size_changed[] = {
        { "a", "f", "q", 1, "ab", 8, NONE, false, false },
        { NULL, NULL, NULL, 0, "cd", 9, NONE, false, false },
    };
    RUN_ERR(size_changed, 1, "value_size changed");
    const ch negative[] = { { "a", "f", "q", 1, "ab", -1, NONE, false, false } };
    RUN_ERR(negative, 0, "negative value_size");
    const ch cont_with_qual[] = {
        { "a", "f", "q", 1, "ab", 4, NONE, false, false },
        { NULL, NULL, "q2", 0, "cd", 0, COMMIT, false, false },
    };
    RUN_ERR(cont_with_qual, 1, "continuation carries more than value bytes");
    const ch cont_with_ts[] = {
        { "a", "f", "q", 1, "ab", 4, NONE, false, false },
        { NULL, NULL, NULL, 7, "cd", 0, COMMIT, false, false },
    };
    RUN_ERR(cont_with_ts, 1, "continuation carries more than value bytes");
    const ch no_family[] = { { "a", NULL, "q", 1, "v", 0, COMMIT, false, false } };
    RUN_ERR(no_family, 0, "lacks its family or qualifier");
    const ch no_qualifier[] = { { "a", "f", NULL, 1, "v", 0, COMMIT, false, false } };
    RUN_ERR(no_qualifier, 0, "new family without a qualifier");
    const ch family_alone[] = {
        { "a", "f", "q", 1, "v", 0, NONE, false, false },
        { NULL, "g", NULL, 1, "v", 0, COMMIT, false, false },
    };
    RUN_ERR(family_alone, 1, "new family without a qualifier");
    const ch key_changed[] = {
        { "a", "f", "q", 1, "v", 0, NONE, false, false },
        { "b", NULL, "r", 1, "v", 0, COMMIT, false, false },
    };
    RUN_ERR(key_changed, 1, "row key changed inside a row");
    const ch no_key[] = { { NULL, "f", "q", 1, "v", 0, COMMIT, false, false } };
    RUN_ERR(no_key, 0, "has no row key");
    const ch ends_in_row[] = { { "a", "f", "q", 1, "v", 0, NONE, false, true } };
    RUN_ERR(ends_in_row, -2, "stream ended inside a row");
    const ch ends_in_cell[] = { { "a", "f", "q", 1, "v", 9, NONE, false, true } };
    RUN_ERR(ends_in_cell, -2, "stream ended inside a row");
}

static void test_row_bound(void) {
    /* A row over the bound fails instead of growing without limit; a split
     * cell's declared size is checked before anything is allocated. */
    const ch big[] = {
        { "a", "f", "q", 1, "0123456789", 0, NONE, false, false },
        { NULL, NULL, "r", 1, "0123456789", 0, COMMIT, false, false },
    };
    char out[256];
    bt_status st;
    CHECK_EQ(run(big, 2, out, sizeof out, 20, false, &st), 1);
    CHECK(strstr(st.msg, "row larger than 20 bytes") != NULL);
    const ch huge_cell[] = { { "a", "f", "q", 1, "01", 1000000000, NONE, false, false } };
    CHECK_EQ(run(huge_cell, 1, out, sizeof out, 1000, false, &st), 0);
    CHECK(strstr(st.msg, "row larger than") != NULL);
    CHECK_EQ(run(big, 2, out, sizeof out, 100, false, &st), -1);
}

static void test_restart_keeps_order(void) {
    /* After a resume the stream must continue after the last committed row. */
    bt_asm a;
    bt_asm_init(&a, 0);
    bt_row row = BT_ROW_INIT;
    bt_status st;
    Btpb__StringValue fam = BTPB__STRING_VALUE__INIT;
    Btpb__BytesValue qual = BTPB__BYTES_VALUE__INIT;
    fam.value = (char *)"f";
    qual.value = (ProtobufCBinaryData){ 1, (uint8_t *)"q" };
    Btpb__ReadRowsResponse__CellChunk c;
    btpb__read_rows_response__cell_chunk__init(&c);
    c.family_name = &fam;
    c.qualifier = &qual;
    c.row_key = (ProtobufCBinaryData){ 1, (uint8_t *)"c" };
    c.row_status_case = BTPB__READ_ROWS_RESPONSE__CELL_CHUNK__ROW_STATUS_COMMIT_ROW;
    c.commit_row = true;
    CHECK_EQ(bt_asm_feed(&a, &c, &row, &st), 1);
    CHECK_BYTES(row.key, row.key_len, "c");
    /* a partial row "d", then the stream fails and is restarted */
    c.row_key = (ProtobufCBinaryData){ 1, (uint8_t *)"d" };
    c.row_status_case = BTPB__READ_ROWS_RESPONSE__CELL_CHUNK__ROW_STATUS__NOT_SET;
    CHECK_EQ(bt_asm_feed(&a, &c, &row, &st), 0);
    bt_asm_restart(&a);
    CHECK_EQ(bt_asm_end(&a, &st), BT_OK);
    c.row_status_case = BTPB__READ_ROWS_RESPONSE__CELL_CHUNK__ROW_STATUS_COMMIT_ROW;
    c.row_key = (ProtobufCBinaryData){ 1, (uint8_t *)"b" };
    CHECK_EQ(bt_asm_feed(&a, &c, &row, &st), -1);
    bt_asm_restart(&a);
    c.row_key = (ProtobufCBinaryData){ 1, (uint8_t *)"d" };
    CHECK_EQ(bt_asm_feed(&a, &c, &row, &st), 1);
    CHECK_BYTES(row.key, row.key_len, "d");
    CHECK_EQ(row.ncells, 1);
    CHECK_EQ(a.rows_committed, 2);
    bt_row_clear(&row);
    bt_asm_destroy(&a);
}

/* A reversed read's rows come in descending order: each must sort before
   the last committed one. */
static void test_reversed_order(void) {
    const ch down[] = {
        { "c", "f", "q", 1, "v", 0, COMMIT, false, true },
        { "b", "f", "q", 1, "w", 0, NONE, false, false },
        { NULL, "g", "q", 1, "x", 0, COMMIT, false, true },
        { "a\xff", "f", "q", 1, "y", 0, COMMIT, false, true },
        { "a", "f", "q", 1, "z", 0, COMMIT, false, true },
    };
    RUN_OK_DIR(down, true, "c f:q@1=v\nb f:q@1=w\nb g:q@1=x\na\xff f:q@1=y\na f:q@1=z\n");
    RUN_ERR(down, 1, "not after the last committed row");
    const ch up[] = {
        { "a", "f", "q", 1, "v", 0, COMMIT, false, false },
        { "b", "f", "q", 1, "v", 0, COMMIT, false, false },
    };
    RUN_ERR_DIR(up, true, 1, "not before the last committed row");
    const ch same[] = {
        { "b", "f", "q", 1, "v", 0, COMMIT, false, false },
        { "b", "f", "q", 1, "v", 0, COMMIT, false, false },
    };
    RUN_ERR_DIR(same, true, 1, "not before the last committed row");
}

int main(void) {
    test_rows_and_carry_over();
    test_family_order();
    test_split_cells();
    test_reset_row();
    test_protocol_errors();
    test_row_bound();
    test_restart_keeps_order();
    test_reversed_order();
    return test_finish("test_bt_chunks");
}
