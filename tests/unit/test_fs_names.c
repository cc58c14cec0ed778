/**
 * @file test_fs_names.c
 * Unit test of fusefs/names.c, the filesystem view's name escaping: exact
 * encodings, canonical-only decoding, round trips of every kind of key
 * (random bytes included), version suffixes and hashed long names.
 * Links names.c alone (no libkvcore).
 */
#include "../../fusefs/names.h"
#include "testutil.h"

#include <errno.h>

static void check_enc(const char *key, size_t len, const char *want)
{
    char out[FS_NAME_MAX + 1];
    size_t n = fs_name_encode(out, (const uint8_t *)key, len);
    CHECK_BYTES(out, n, want);
    fs_name_key k;
    int rc = fs_name_decode(&k, out, n);
    CHECK_EQ(rc, 0);
    CHECK(!k.hashed);
    CHECK(k.len == len && memcmp(k.bytes, key, len) == 0);
}

static void check_rejected(const char *name)
{
    fs_name_key k;
    CHECK_EQ(fs_name_decode(&k, name, strlen(name)), -EINVAL);
}

static void roundtrip(const uint8_t *key, size_t len)
{
    char out[FS_NAME_MAX + 1];
    size_t n = fs_name_encode(out, key, len);
    CHECK(n > 0 && n <= FS_NAME_SHORT_MAX);
    CHECK(strlen(out) == n);
    CHECK(memchr(out, '/', n) == NULL);
    CHECK(strcmp(out, ".") != 0 && strcmp(out, "..") != 0 && strcmp(out, ".schema") != 0);
    size_t bl;
    int64_t ts;
    CHECK_EQ(fs_name_split_version(out, n, &bl, &ts), 0);
    fs_name_key k;
    REQUIRE(fs_name_decode(&k, out, n) == 0);
    if (k.hashed) {
        CHECK(k.hash == fs_name_hash(key, len));
        CHECK(k.len <= len && memcmp(k.bytes, key, k.len) == 0);
    } else {
        CHECK(k.len == len && memcmp(k.bytes, key, len) == 0);
    }
    CHECK(fs_name_matches(out, n, key, len));
}

int main(void)
{
    /* Exact encodings. */
    check_enc("row1", 4, "row1");
    check_enc("", 0, "%");
    check_enc("a/b", 3, "a%2Fb");
    check_enc("100%", 4, "100%25");
    check_enc("a\0b", 3, "a%00b");
    check_enc("\x01\x1f\x7f", 3, "%01%1F%7F");
    check_enc(".", 1, "%2E");
    check_enc("..", 2, "%2E.");
    check_enc(".schema", 7, "%2Eschema");
    check_enc(".hidden", 7, ".hidden");         /* rsync temp files stay as they are */
    check_enc("...", 3, "...");
    check_enc(".schema2", 8, ".schema2");
    check_enc("q@5", 3, "q%405");
    check_enc("q@-5", 4, "q%40-5");
    check_enc("q@5x", 4, "q@5x");
    check_enc("user@host", 9, "user@host");
    check_enc(".q@123.AbCdEf", 13, ".q@123.AbCdEf");
    check_enc("a@1@2", 5, "a@1%402");
    check_enc("@", 1, "@");
    check_enc("a@", 2, "a@");
    check_enc("caf\xc3\xa9", 5, "caf\xc3\xa9");          /* valid UTF-8 */
    check_enc("\xe2\x82\xac", 3, "\xe2\x82\xac");         /* euro sign */
    check_enc("\xf0\x9f\x98\x80", 4, "\xf0\x9f\x98\x80"); /* emoji */
    check_enc("\xff", 1, "%FF");                          /* invalid */
    check_enc("\xc3", 1, "%C3");                          /* truncated */
    check_enc("\xc0\xaf", 2, "%C0%AF");                   /* overlong '/' */
    check_enc("\xed\xa0\x80", 3, "%ED%A0%80");            /* surrogate */
    check_enc("\xc2\x85", 2, "%C2%85");                   /* C1 control NEL */
    check_enc("a b", 3, "a b");

    /* Non-canonical names are refused. */
    check_rejected("%41");          /* 'A' needs no escape */
    check_rejected("%2e");          /* lowercase hex */
    check_rejected("%2");
    check_rejected("a%");
    check_rejected("%zz");
    check_rejected(".");
    check_rejected("..");
    check_rejected(".schema");
    check_rejected("q@5");          /* a version suffix, not a key */
    check_rejected("a\x01");        /* raw control byte */
    check_rejected("\xff");         /* raw invalid UTF-8 */
    check_rejected("%2E%2E");       /* ".." is "%2E." */
    check_rejected("x%#0123");
    {
        fs_name_key k;
        CHECK_EQ(fs_name_decode(&k, "%", 1), 0);   /* the empty key */
        CHECK_EQ(k.len, 0);
        char big[300];
        memset(big, 'a', sizeof big);
        CHECK_EQ(fs_name_decode(&k, big, 256), -ENAMETOOLONG);
        CHECK_EQ(fs_name_decode(&k, big, 240), -ENAMETOOLONG);  /* over SHORT_MAX unhashed */
        CHECK_EQ(fs_name_decode(&k, "", 0), -EINVAL);
    }

    /* Version suffixes. */
    {
        size_t bl;
        int64_t ts;
        CHECK_EQ(fs_name_split_version("q@123", 5, &bl, &ts), 1);
        CHECK_EQ(bl, 1);
        CHECK_EQ(ts, 123);
        CHECK_EQ(fs_name_split_version("q%40x@-7", 8, &bl, &ts), 1);
        CHECK_EQ(bl, 5);
        CHECK_EQ(ts, -7);
        CHECK_EQ(fs_name_split_version("q@0", 3, &bl, &ts), 1);
        CHECK_EQ(ts, 0);
        CHECK_EQ(fs_name_split_version("q@012", 5, &bl, &ts), -EINVAL);
        CHECK_EQ(fs_name_split_version("q@-0", 4, &bl, &ts), -EINVAL);
        CHECK_EQ(fs_name_split_version("q@99999999999999999999", 22, &bl, &ts), -EINVAL);
        CHECK_EQ(fs_name_split_version("q@9223372036854775807", 21, &bl, &ts), 1);
        CHECK(ts == INT64_MAX);
        CHECK_EQ(fs_name_split_version("q@-9223372036854775808", 22, &bl, &ts), 1);
        CHECK(ts == INT64_MIN);
        CHECK_EQ(fs_name_split_version("q@12a", 5, &bl, &ts), 0);
        CHECK_EQ(fs_name_split_version("q", 1, &bl, &ts), 0);
        CHECK_EQ(fs_name_split_version("q@", 2, &bl, &ts), 0);
        char sfx[FS_TS_TEXT_MAX + 1];
        CHECK_EQ(fs_ts_suffix(sfx, INT64_MIN), FS_TS_TEXT_MAX);
        CHECK(strcmp(sfx, "@-9223372036854775808") == 0);
    }

    /* Long keys: hashed names, distinct for keys sharing a long prefix. */
    {
        uint8_t key[1000];
        memset(key, 'k', sizeof key);
        char n1[FS_NAME_MAX + 1], n2[FS_NAME_MAX + 1];
        size_t l1 = fs_name_encode(n1, key, 600);
        key[599] = 'z';
        size_t l2 = fs_name_encode(n2, key, 600);
        CHECK_EQ(l1, FS_NAME_PREFIX_MAX + 18);
        CHECK(l1 == l2 && memcmp(n1, n2, l1) != 0);
        CHECK(memcmp(n1, n2, FS_NAME_PREFIX_MAX) == 0);
        roundtrip(key, 600);
        CHECK(!fs_name_matches(n1, l1, key, 600));      /* n1 was the 'k' key */
        /* A key exactly at the limit stays plain, one more byte is hashed. */
        memset(key, 'x', sizeof key);
        CHECK_EQ(fs_name_encode(n1, key, FS_NAME_SHORT_MAX), FS_NAME_SHORT_MAX);
        CHECK_EQ(fs_name_encode(n1, key, FS_NAME_SHORT_MAX + 1), FS_NAME_PREFIX_MAX + 18);
        /* Escapes are never cut in half by the prefix. */
        memset(key, 0x01, sizeof key);
        size_t l = fs_name_encode(n1, key, 200);
        CHECK(n1[l - 18] == '%' && n1[l - 17] == '#');
        CHECK((l - 18) % 3 == 0);
        roundtrip(key, 200);
        /* Multi-byte UTF-8 is not split either. */
        for (int i = 0; i < 300; i += 3) memcpy(key + i, "\xe2\x82\xac", 3);
        l = fs_name_encode(n1, key, 300);
        CHECK((l - 18) % 3 == 0);
        roundtrip(key, 300);
        /* "@<digits>" at the end of a long key. */
        memset(key, 'a', 300);
        memcpy(key + 290, "@123456789", 10);
        roundtrip(key, 300);
        /* A hashed name whose prefix is not the escape of anything. */
        fs_name_key k;
        CHECK_EQ(fs_name_decode(&k, "%ZZ%#0123456789ABCDEF", 21), -EINVAL);
        CHECK_EQ(fs_name_decode(&k, "ab%#0123456789ABCDEF", 20), 0);
        CHECK(k.hashed && k.hash == 0x0123456789ABCDEFull && k.len == 2);
    }

    /* Every short key of 0..3 bytes over an interesting alphabet, and
       random keys: encode is injective and decode inverts it. */
    {
        static const uint8_t alpha[] = { 0, 1, '.', '/', '%', '@', '0', '9', '-', 'a', 0x7f,
                                         0x80, 0xc3, 0xa9, 0xe2, 0xff, 's' };
        size_t na = sizeof alpha;
        for (size_t len = 0; len <= 3; len++) {
            size_t total = 1;
            for (size_t i = 0; i < len; i++) total *= na;
            for (size_t x = 0; x < total; x++) {
                uint8_t key[3];
                size_t y = x;
                for (size_t i = 0; i < len; i++) { key[i] = alpha[y % na]; y /= na; }
                roundtrip(key, len);
            }
        }
        uint64_t seed = 88172645463325252ull;
        for (int iter = 0; iter < 20000; iter++) {
            uint8_t key[400];
            seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17;
            size_t len = (size_t)(seed % (iter % 10 == 0 ? 400 : 40));
            for (size_t i = 0; i < len; i++) {
                seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17;
                key[i] = (uint8_t)(seed >> 24);
                if (iter % 3 == 0) key[i] = alpha[key[i] % na];
            }
            roundtrip(key, len);
        }
    }
    /* Every name of 1..4 characters over an alphabet that makes escapes,
       reserved keys and version suffixes, and a few longer ones: decode
       accepts exactly the names encode makes (decode(n) = k iff
       encode(k) = n). */
    {
        static const char alpha[] = ".@0%2E4sa-";
        size_t na = sizeof alpha - 1;
        const char *more[] = { ".schema", "%2Eschema", ".schem", "q@12", "q%4012", "q@-1",
                               "q@x", "r@", "@", "%", "%%", "ab", "%61b" };
        size_t total = 0;
        for (size_t len = 1; len <= 4; len++) {
            size_t count = 1;
            for (size_t i = 0; i < len; i++) count *= na;
            total += count;
        }
        for (size_t x = 0; x < total + sizeof more / sizeof *more; x++) {
            char name[16];
            size_t len;
            if (x < total) {
                size_t y = x, base = 0, count = na;
                for (len = 1; y >= base + count; len++) {
                    base += count;
                    count *= na;
                }
                y -= base;
                for (size_t i = 0; i < len; i++) { name[i] = alpha[y % na]; y /= na; }
                name[len] = '\0';
            } else {
                len = strlen(more[x - total]);
                memcpy(name, more[x - total], len + 1);
            }
            fs_name_key k;
            int rc = fs_name_decode(&k, name, len);
            char back[FS_NAME_MAX + 1];
            bool canonical = rc == 0 && fs_name_encode(back, k.bytes, k.len) == len &&
                             memcmp(back, name, len) == 0;
            CHECK(rc == 0 ? canonical : rc == -EINVAL);
            if (rc == 0 && !canonical) fprintf(stderr, "accepted non-canonical '%s'\n", name);
        }
    }
    return test_finish("test_fs_names");
}
