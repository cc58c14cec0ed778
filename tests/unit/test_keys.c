/*
 * Internal keys (keys.h): memcmp order of encoded keys must be HBase's cell
 * order (row, kind, qualifier, timestamp descending, markers before puts,
 * newer sequence first) for arbitrary bytes, and decoding must give back
 * what was encoded.
 */
#include "hbase/keys.h"
#include "testutil.h"

typedef struct cellkey {
    uint8_t row[4]; size_t row_len;
    uint8_t kind;
    uint8_t q[3]; size_t q_len;
    int64_t ts;
    kv_cell_type type;
    uint64_t seq;
} cellkey;

static int cmp_bytes(const uint8_t *a, size_t al, const uint8_t *b, size_t bl) {
    size_t n = al < bl ? al : bl;
    int c = n ? memcmp(a, b, n) : 0;
    return c ? c : (al < bl ? -1 : al > bl);
}

/* The reference order, written out field by field. */
static int reference_cmp(const cellkey *a, const cellkey *b) {
    int c = cmp_bytes(a->row, a->row_len, b->row, b->row_len);
    if (c) return c;
    if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
    if ((c = cmp_bytes(a->q, a->q_len, b->q, b->q_len))) return c;
    if (a->ts != b->ts) return a->ts > b->ts ? -1 : 1;
    if (a->type != b->type) return a->type > b->type ? -1 : 1;
    if (a->seq != b->seq) return a->seq > b->seq ? -1 : 1;
    return 0;
}

static const kv_cell_type types[] = {KV_TYPE_PUT, KV_TYPE_DELETE, KV_TYPE_DELETE_FAMILY_VERSION,
                                     KV_TYPE_DELETE_COLUMN, KV_TYPE_DELETE_FAMILY};
static const int64_t stamps[] = {INT64_MIN, -1, 0, 1, 1700000000000, INT64_MAX};

static void random_key(cellkey *k, unsigned *seed) {
    static const uint8_t alphabet[] = {0x00, 0x01, 'a', 0xfe, 0xff};
    k->row_len = (size_t)rand_r(seed) % 4;
    for (size_t i = 0; i < k->row_len; i++) k->row[i] = alphabet[rand_r(seed) % 5];
    k->kind = (uint8_t)(rand_r(seed) % 2);
    k->q_len = (size_t)rand_r(seed) % 3;
    for (size_t i = 0; i < k->q_len; i++) k->q[i] = alphabet[rand_r(seed) % 5];
    k->ts = stamps[rand_r(seed) % 6];
    k->type = types[rand_r(seed) % 5];
    k->seq = (uint64_t)(rand_r(seed) % 3) * 0x7fffffffffffffffULL;
}

int main(void) {
    unsigned seed = 42;
    kv_buf a = {0}, b = {0}, scratch = {0};
    for (int i = 0; i < 200000; i++) {
        cellkey x, y;
        random_key(&x, &seed);
        random_key(&y, &seed);
        a.len = b.len = 0;
        REQUIRE(kv_key_encode(&a, x.row, x.row_len, x.kind, x.q, x.q_len, x.ts, x.type, x.seq) == 0);
        REQUIRE(kv_key_encode(&b, y.row, y.row_len, y.kind, y.q, y.q_len, y.ts, y.type, y.seq) == 0);
        int want = reference_cmp(&x, &y), got = kv_key_compare(a.data, a.len, b.data, b.len);
        want = (want > 0) - (want < 0);
        got = (got > 0) - (got < 0);
        if (want != got) {
            CHECK_EQ(got, want);
            break;
        }
        kv_key_parts p;
        REQUIRE(kv_key_decode(&p, a.data, a.len, &scratch) == KV_OK);
        if (p.row_len != x.row_len || memcmp(p.row, x.row, x.row_len) || p.qualifier_len != x.q_len ||
            memcmp(p.qualifier, x.q, x.q_len) || p.ts != x.ts || p.type != x.type || p.seq != x.seq ||
            p.kind != x.kind) {
            CHECK(!"decode round trip");
            break;
        }
        CHECK_EQ(kv_key_row_prefix_len(a.data, a.len), p.row_prefix_len);
        CHECK_EQ(kv_key_column_prefix_len(a.data, a.len), p.column_prefix_len);
        CHECK(a.len <= kv_key_max_len(x.row_len, x.q_len));
    }
    /* A row's encoded prefix is exactly the bloom key kv_key_encode_row gives. */
    a.len = b.len = 0;
    kv_key_encode(&a, "r\0w", 3, KV_KIND_COLUMN, "q", 1, 5, KV_TYPE_PUT, 1);
    kv_key_encode_row(&b, "r\0w", 3);
    CHECK_EQ(kv_key_row_prefix_len(a.data, a.len), b.len);
    CHECK(memcmp(a.data, b.data, b.len) == 0);
    /* Rows of 0..40 bytes with zero bytes anywhere (none, one at each
       place, every third): kv_key_encode_row gives the prefix of
       kv_key_encode's key into an empty buffer and into one with room
       (short rows are escaped by another path there). */
    for (size_t n = 0; n <= 40; n++)
        for (size_t z = 0; z <= n + 1; z++) {
            uint8_t row[40];
            for (size_t i = 0; i < n; i++)
                row[i] = z == n + 1 ? (i % 3 ? (uint8_t)('a' + i) : 0) : i == z ? 0 : (uint8_t)(i + 1);
            kv_buf fresh = {0};
            a.len = 0;
            REQUIRE(kv_key_encode(&a, row, n, KV_KIND_COLUMN, "q", 1, 5, KV_TYPE_PUT, 1) == 0);
            REQUIRE(kv_key_encode_row(&fresh, row, n) == 0);
            b.len = 0;
            REQUIRE(kv_buf_reserve(&b, 256) == 0);
            REQUIRE(kv_key_encode_row(&b, row, n) == 0);
            CHECK_EQ(kv_key_row_prefix_len(a.data, a.len), fresh.len);
            CHECK(fresh.len == b.len && memcmp(fresh.data, b.data, b.len) == 0 &&
                  memcmp(a.data, b.data, b.len) == 0);
            /* and the escape is the format's (a zero byte as 00 FF, the
               end as 00 01), whichever path wrote it */
            uint8_t want[2 * 40 + 2];
            size_t wl = 0;
            for (size_t i = 0; i < n; i++) {
                want[wl++] = row[i];
                if (row[i] == 0) want[wl++] = 0xff;
            }
            want[wl++] = 0x00;
            want[wl++] = 0x01;
            CHECK(fresh.len == wl && memcmp(fresh.data, want, wl) == 0);
            kv_buf_free(&fresh);
        }
    /* Malformed keys are reported, not misread. */
    kv_key_parts p;
    CHECK_EQ(kv_key_decode(&p, (const uint8_t *)"abc", 3, &scratch), KV_CORRUPT);
    CHECK_EQ(kv_key_decode(&p, a.data, a.len - 1, &scratch), KV_CORRUPT);
    CHECK_EQ(kv_key_row_prefix_len((const uint8_t *)"", 0), 0);
    CHECK_EQ(kv_key_row_prefix_len((const uint8_t *)"ab\0", 3), 0);         /* cut escape */
    CHECK_EQ(kv_key_row_prefix_len((const uint8_t *)"ab\0\5x", 5), 0);     /* bad escape */
    CHECK_EQ(kv_key_row_prefix_len((const uint8_t *)"ab", 2), 0);            /* no end */
    CHECK_EQ(kv_key_row_prefix_len((const uint8_t *)"\0\xff\0\1q", 5), 4);
    CHECK_EQ(kv_key_row_prefix_len((const uint8_t *)"a\0\xff\0\xff\0\1", 7), 7);
    kv_buf_free(&a);
    kv_buf_free(&b);
    kv_buf_free(&scratch);
    return test_finish("test_keys");
}
