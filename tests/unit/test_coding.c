/**
 * @file test_coding.c
 * Unit tests of coding.c: fixed-width integers, varints (round trips,
 * truncation, overlong encodings), the checksum, kv_buf, and copy.h's
 * kv_copy.
 */
#include "util/coding.h"
#include "util/copy.h"
#include "testutil.h"

static void test_fixed(void) {
    uint8_t b[8];
    kv_put_be32(b, 0x01020304u);
    CHECK(b[0] == 1 && b[1] == 2 && b[2] == 3 && b[3] == 4);
    CHECK_EQ(kv_get_be32(b), 0x01020304u);
    kv_put_le32(b, 0x01020304u);
    CHECK(b[0] == 4 && b[1] == 3 && b[2] == 2 && b[3] == 1);
    CHECK_EQ(kv_get_le32(b), 0x01020304u);
    kv_put_be64(b, 0x0102030405060708ull);
    CHECK(b[0] == 1 && b[7] == 8);
    CHECK(kv_get_be64(b) == 0x0102030405060708ull);
    kv_put_le64(b, 0x0102030405060708ull);
    CHECK(b[0] == 8 && b[7] == 1);
    CHECK(kv_get_le64(b) == 0x0102030405060708ull);
    kv_put_be64(b, UINT64_MAX);
    CHECK(kv_get_be64(b) == UINT64_MAX);
    kv_put_le32(b, 0xffffffffu);
    CHECK(kv_get_le32(b) == 0xffffffffu);
}

static void test_varint(void) {
    static const uint64_t vals[] = {0, 1, 127, 128, 255, 300, 16383, 16384, 0xffffffffull,
                                    0x100000000ull, (1ull << 63) - 1, 1ull << 63, UINT64_MAX};
    uint8_t b[10];
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        size_t n = kv_put_varint64(b, vals[i]);
        CHECK_EQ(n, kv_varint_length(vals[i]));
        uint64_t v = 0;
        const uint8_t *e = kv_get_varint64(b, b + n, &v);
        CHECK(e == b + n);
        CHECK(v == vals[i]);
        /* Every truncation is refused. */
        for (size_t cut = 0; cut < n; cut++)
            CHECK(kv_get_varint64(b, b + cut, &v) == NULL);
        if (vals[i] <= 0xffffffffull) {
            uint32_t v32 = 0;
            size_t n32 = kv_put_varint32(b, (uint32_t)vals[i]);
            CHECK_EQ(n32, n);
            CHECK(kv_get_varint32(b, b + n32, &v32) == b + n32);
            CHECK_EQ(v32, vals[i]);
        }
    }
    CHECK_EQ(kv_varint_length(0), 1);
    CHECK_EQ(kv_varint_length(UINT64_MAX), 10);
    CHECK_EQ(kv_put_varint32(b, 0xffffffffu), 5);
    /* 300 encodes as ac 02. */
    CHECK_EQ(kv_put_varint32(b, 300), 2);
    CHECK(b[0] == 0xac && b[1] == 0x02);

    /* Too long: six continuation bytes for a 32-bit varint. */
    uint8_t lng[11];
    memset(lng, 0x80, sizeof lng);
    lng[10] = 0;
    uint32_t v32;
    uint64_t v64;
    CHECK(kv_get_varint32(lng, lng + 6, &v32) == NULL);
    CHECK(kv_get_varint64(lng, lng + 11, &v64) == NULL);
    /* A fifth byte above 0x0f overflows 32 bits. */
    uint8_t over[5] = {0xff, 0xff, 0xff, 0xff, 0x1f};
    CHECK(kv_get_varint32(over, over + 5, &v32) == NULL);
    over[4] = 0x0f;
    CHECK(kv_get_varint32(over, over + 5, &v32) == over + 5);
    CHECK(v32 == 0xffffffffu);
    /* A tenth byte above 1 overflows 64 bits. */
    uint8_t over64[10];
    memset(over64, 0xff, 9);
    over64[9] = 0x02;
    CHECK(kv_get_varint64(over64, over64 + 10, &v64) == NULL);
    over64[9] = 0x01;
    CHECK(kv_get_varint64(over64, over64 + 10, &v64) == over64 + 10);
    CHECK(v64 == UINT64_MAX);
}

static void test_checksum(void) {
    const char *s = "hello world";
    uint32_t a = kv_checksum(s, strlen(s));
    CHECK(a == kv_checksum("hello world", 11));
    CHECK(a != kv_checksum("hello worle", 11));
    CHECK(a != kv_checksum(s, 10));
    /* Empty input is allowed and stable. */
    CHECK(kv_checksum(NULL, 0) == kv_checksum("", 0));
}

static void test_buf(void) {
    kv_buf b = {0};
    CHECK_EQ(kv_buf_append(&b, "abc", 3), 0);
    CHECK_EQ(kv_buf_append_be32(&b, 0x01020304u), 0);
    CHECK_EQ(kv_buf_append_be64(&b, 5), 0);
    CHECK_EQ(kv_buf_append_varint32(&b, 300), 0);
    CHECK_EQ(kv_buf_append_varint64(&b, UINT64_MAX), 0);
    CHECK_EQ(b.len, 3 + 4 + 8 + 2 + 10);
    CHECK_BYTES(b.data, 3, "abc");
    CHECK_EQ(kv_get_be32(b.data + 3), 0x01020304u);
    CHECK_EQ(kv_get_be64(b.data + 7), 5);
    uint32_t v;
    CHECK(kv_get_varint32(b.data + 15, b.data + b.len, &v) == b.data + 17);
    CHECK_EQ(v, 300);
    /* Grow across many reallocations and keep the content. */
    for (int i = 0; i < 100000; i++) {
        uint8_t c = (uint8_t)i;
        int rc = kv_buf_append(&b, &c, 1);
        REQUIRE(rc == 0);
    }
    CHECK_EQ(b.len, 27 + 100000);
    CHECK(b.cap >= b.len);
    CHECK_EQ(b.data[27 + 99999], (uint8_t)99999);
    CHECK_EQ(kv_buf_append(&b, NULL, 0), 0);
    /* An impossible reservation fails and leaves the buffer unchanged. */
    size_t len = b.len;
    CHECK_EQ(kv_buf_reserve(&b, SIZE_MAX), -1);
    CHECK_EQ(b.len, len);
    kv_buf_free(&b);
    CHECK(b.data == NULL && b.len == 0 && b.cap == 0);
}

/* kv_copy of every length through the inline paths and past them, at
   every alignment of source and destination mod 16: the n bytes arrive,
   and not one byte before or after the destination changes. */
static void test_copy(void) {
    enum { GUARD = 40, MAXN = KV_COPY_INLINE_MAX + 40 };
    uint8_t src[MAXN + 16], dst[GUARD + MAXN + 16 + GUARD], want[sizeof dst];
    for (size_t i = 0; i < sizeof src; i++) src[i] = (uint8_t)(i * 7 + 1);
    int bad = 0;
    for (size_t n = 0; n <= MAXN; n++)
        for (size_t sa = 0; sa < 16; sa += 3)
            for (size_t da = 0; da < 16; da += 5) {
                memset(dst, 0xAA, sizeof dst);
                memcpy(want, dst, sizeof dst);
                memcpy(want + GUARD + da, src + sa, n);
                kv_copy(dst + GUARD + da, src + sa, n);
                if (memcmp(dst, want, sizeof dst) != 0 && bad++ < 5)
                    fprintf(stderr, "kv_copy n=%zu src+%zu dst+%zu wrong\n", n, sa, da);
            }
    CHECK_EQ(bad, 0);
}

int main(void) {
    test_fixed();
    test_varint();
    test_checksum();
    test_buf();
    test_copy();
    return test_finish("test_coding");
}
