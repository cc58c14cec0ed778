/*
 * Tests of kvcore/schema_text.c: family attributes set from shell text,
 * describe-syntax parsing, formatting, and format -> parse round trips.
 */
#include <string.h>

#include "kvcore.h"
#include "testutil.h"

static const char *const default_text =
    "{NAME => 'cf', BLOOMFILTER => 'ROW', IN_MEMORY => 'false', VERSIONS => '1', "
    "KEEP_DELETED_CELLS => 'FALSE', DATA_BLOCK_ENCODING => 'NONE', COMPRESSION => 'NONE', "
    "TTL => 'FOREVER', MIN_VERSIONS => '0', BLOCKCACHE => 'true', BLOCKSIZE => '65536', "
    "REPLICATION_SCOPE => '0'}";

static bool desc_equal(const kv_family_desc *a, const kv_family_desc *b) {
    return strcmp(a->name, b->name) == 0 && a->versions == b->versions &&
           a->min_versions == b->min_versions && a->ttl_seconds == b->ttl_seconds &&
           a->keep_deleted == b->keep_deleted && a->compression == b->compression &&
           a->bloom == b->bloom && a->blocksize == b->blocksize && a->encoding == b->encoding &&
           a->in_memory == b->in_memory && a->blockcache == b->blockcache &&
           a->new_version_behavior == b->new_version_behavior;
}

static void test_format_default(void) {
    kv_family_desc d = KV_FAMILY_DESC_INIT;
    strcpy(d.name, "cf");
    char buf[1024];
    int n = kv_family_desc_format(buf, sizeof buf, &d);
    CHECK_EQ(n, strlen(default_text));
    CHECK(strcmp(buf, default_text) == 0);

    /* snprintf semantics: truncated but terminated, same length reported. */
    char small[10];
    CHECK_EQ(kv_family_desc_format(small, sizeof small, &d), n);
    CHECK_EQ(strlen(small), 9);
    CHECK(strncmp(small, default_text, 9) == 0);
    CHECK_EQ(kv_family_desc_format(NULL, 0, &d), n);
}

static void test_set(void) {
    kv_family_desc d = KV_FAMILY_DESC_INIT;
    char err[256] = "";
    CHECK_EQ(kv_family_desc_set(&d, "name", "f1", err, sizeof err), KV_OK);
    CHECK(strcmp(d.name, "f1") == 0);
    CHECK_EQ(kv_family_desc_set(&d, "VERSIONS", "3", err, sizeof err), KV_OK);
    CHECK_EQ(d.versions, 3);
    CHECK_EQ(kv_family_desc_set(&d, "min_versions", "2", err, sizeof err), KV_OK);
    CHECK_EQ(d.min_versions, 2);
    CHECK_EQ(kv_family_desc_set(&d, "TTL", "86400", err, sizeof err), KV_OK);
    CHECK_EQ(d.ttl_seconds, 86400);
    CHECK_EQ(kv_family_desc_set(&d, "TTL", "forever", err, sizeof err), KV_OK);
    CHECK(d.ttl_seconds == KV_FOREVER);
    CHECK_EQ(kv_family_desc_set(&d, "KEEP_DELETED_CELLS", "true", err, sizeof err), KV_OK);
    CHECK_EQ(d.keep_deleted, KV_KEEP_DELETED_TRUE);
    CHECK_EQ(kv_family_desc_set(&d, "KEEP_DELETED_CELLS", "TTL", err, sizeof err), KV_OK);
    CHECK_EQ(d.keep_deleted, KV_KEEP_DELETED_TTL);
    CHECK_EQ(kv_family_desc_set(&d, "COMPRESSION", "lz4", err, sizeof err), KV_OK);
    CHECK_EQ(d.compression, KV_COMPRESSION_LZ4);
    CHECK_EQ(kv_family_desc_set(&d, "COMPRESSION", "SNAPPY", err, sizeof err), KV_OK);
    CHECK_EQ(d.compression, KV_COMPRESSION_SNAPPY);
    CHECK_EQ(kv_family_desc_set(&d, "BLOOMFILTER", "ROWCOL", err, sizeof err), KV_OK);
    CHECK_EQ(d.bloom, KV_BLOOM_ROWCOL);
    CHECK_EQ(kv_family_desc_set(&d, "BLOOMFILTER", "none", err, sizeof err), KV_OK);
    CHECK_EQ(d.bloom, KV_BLOOM_NONE);
    CHECK_EQ(kv_family_desc_set(&d, "BLOCKSIZE", "4096", err, sizeof err), KV_OK);
    CHECK_EQ(d.blocksize, 4096);
    CHECK_EQ(kv_family_desc_set(&d, "DATA_BLOCK_ENCODING", "DIFF", err, sizeof err), KV_OK);
    CHECK_EQ(d.encoding, KV_ENCODING_DIFF);
    CHECK_EQ(kv_family_desc_set(&d, "IN_MEMORY", "TRUE", err, sizeof err), KV_OK);
    CHECK(d.in_memory);
    CHECK_EQ(kv_family_desc_set(&d, "BLOCKCACHE", "false", err, sizeof err), KV_OK);
    CHECK(!d.blockcache);
    CHECK_EQ(kv_family_desc_set(&d, "NEW_VERSION_BEHAVIOR", "true", err, sizeof err), KV_OK);
    CHECK(d.new_version_behavior);
    /* Accepted and ignored. */
    kv_family_desc before = d;
    CHECK_EQ(kv_family_desc_set(&d, "REPLICATION_SCOPE", "1", err, sizeof err), KV_OK);
    CHECK_EQ(kv_family_desc_set(&d, "METHOD", "add", err, sizeof err), KV_OK);
    CHECK(desc_equal(&before, &d));
}

static void test_set_errors(void) {
    kv_family_desc d = KV_FAMILY_DESC_INIT;
    kv_family_desc before = d;
    char err[256];
    static const char *const bad[][2] = {
        { "VERSIONS", "0" }, { "VERSIONS", "-1" }, { "VERSIONS", "three" }, { "VERSIONS", "3x" },
        { "VERSIONS", "" }, { "VERSIONS", "99999999999" }, { "MIN_VERSIONS", "-1" },
        { "TTL", "0" }, { "TTL", "-5" }, { "TTL", "soon" }, { "TTL", "10 MINUTES" },
        { "KEEP_DELETED_CELLS", "maybe" }, { "COMPRESSION", "GZ" }, { "BLOOMFILTER", "COL" },
        { "BLOCKSIZE", "0" }, { "BLOCKSIZE", "999999999" }, { "DATA_BLOCK_ENCODING", "FAST_DIFF" },
        { "IN_MEMORY", "yes" }, { "BLOCKCACHE", "1" }, { "NAME", "" }, { "NAME", ".f" },
        { "NAME", "a:b" }, { "NAME", "a b" }, { "COLOR", "red" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        kv_status st = kv_family_desc_set(&d, bad[i][0], bad[i][1], err, sizeof err);
        CHECK_EQ(st, KV_INVALID);
        CHECK(err[0] != '\0');
        if (st == KV_OK) fprintf(stderr, "  accepted %s => '%s'\n", bad[i][0], bad[i][1]);
    }
    CHECK(desc_equal(&before, &d));
    /* An unknown attribute is named in the message. */
    kv_family_desc_set(&d, "COLOR", "red", err, sizeof err);
    CHECK(strstr(err, "COLOR") != NULL);
    /* NULL errmsg is allowed. */
    CHECK_EQ(kv_family_desc_set(&d, "VERSIONS", "x", NULL, 0), KV_INVALID);
}

static void test_ttl_text(void) {
    kv_family_desc d = KV_FAMILY_DESC_INIT;
    strcpy(d.name, "f");
    char buf[1024];
    d.ttl_seconds = 90061;
    kv_family_desc_format(buf, sizeof buf, &d);
    CHECK(strstr(buf, "TTL => '90061 SECONDS (1 DAY 1 HOUR 1 MINUTE 1 SECOND)'") != NULL);
    d.ttl_seconds = 172800;
    kv_family_desc_format(buf, sizeof buf, &d);
    CHECK(strstr(buf, "TTL => '172800 SECONDS (2 DAYS)'") != NULL);
    d.ttl_seconds = 30;
    kv_family_desc_format(buf, sizeof buf, &d);
    CHECK(strstr(buf, "TTL => '30 SECONDS'") != NULL);
    d.ttl_seconds = 1;
    kv_family_desc_format(buf, sizeof buf, &d);
    CHECK(strstr(buf, "TTL => '1 SECOND'") != NULL);

    kv_family_desc e = KV_FAMILY_DESC_INIT;
    char err[256];
    CHECK_EQ(kv_family_desc_set(&e, "TTL", "90061 SECONDS (1 DAY 1 HOUR 1 MINUTE 1 SECOND)", err,
                                sizeof err), KV_OK);
    CHECK_EQ(e.ttl_seconds, 90061);
    CHECK_EQ(kv_family_desc_set(&e, "TTL", "1 SECOND", err, sizeof err), KV_OK);
    CHECK_EQ(e.ttl_seconds, 1);
}

static void test_parse(void) {
    kv_family_desc d;
    char err[256] = "";
    CHECK_EQ(kv_family_desc_parse(&d, default_text, err, sizeof err), KV_OK);
    kv_family_desc want = KV_FAMILY_DESC_INIT;
    strcpy(want.name, "cf");
    CHECK(desc_equal(&d, &want));

    /* Bare values, double quotes, any case, loose spacing, defaults fill in. */
    CHECK_EQ(kv_family_desc_parse(&d, "  {name=>\"f2\",VERSIONS=>5 , ttl => 3600,"
                                  " compression=>lz4}\n", err, sizeof err), KV_OK);
    CHECK(strcmp(d.name, "f2") == 0);
    CHECK_EQ(d.versions, 5);
    CHECK_EQ(d.ttl_seconds, 3600);
    CHECK_EQ(d.compression, KV_COMPRESSION_LZ4);
    CHECK_EQ(d.bloom, KV_BLOOM_ROW);
    CHECK_EQ(d.blocksize, 65536);

    static const char *const bad[] = {
        "", "NAME => 'f'", "{}", "{VERSIONS => '3'}", "{NAME => 'f'", "{NAME => 'f',}",
        "{NAME => 'f'} x", "{NAME 'f'}", "{NAME => 'f}", "{NAME => 'f' VERSIONS => '2'}",
        "{NAME => 'f', VERSIONS => '0'}", "{NAME => 'f', BOGUS => '1'}",
        "{NAME => 'f', VERSIONS => '2', MIN_VERSIONS => '3'}", "{NAME => '..'}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        kv_family_desc out = want;
        err[0] = '\0';
        kv_status st = kv_family_desc_parse(&out, bad[i], err, sizeof err);
        CHECK_EQ(st, KV_INVALID);
        CHECK(err[0] != '\0');
        CHECK(desc_equal(&out, &want));   /* untouched on failure */
        if (st == KV_OK) fprintf(stderr, "  accepted \"%s\"\n", bad[i]);
    }
}

static void test_round_trip(void) {
    kv_family_desc d = KV_FAMILY_DESC_INIT;
    strcpy(d.name, "my_family-1.x");
    d.versions = 7;
    d.min_versions = 2;
    d.ttl_seconds = 604800;
    d.keep_deleted = KV_KEEP_DELETED_TTL;
    d.compression = KV_COMPRESSION_SNAPPY;
    d.bloom = KV_BLOOM_ROWCOL;
    d.blocksize = 8192;
    d.encoding = KV_ENCODING_PREFIX;
    d.in_memory = true;
    d.blockcache = false;
    d.new_version_behavior = true;
    char buf[1024], err[256];
    int n = kv_family_desc_format(buf, sizeof buf, &d);
    CHECK(n > 0 && (size_t)n < sizeof buf);
    CHECK(strstr(buf, "NEW_VERSION_BEHAVIOR => 'true'") != NULL);
    kv_family_desc back;
    CHECK_EQ(kv_family_desc_parse(&back, buf, err, sizeof err), KV_OK);
    CHECK(desc_equal(&d, &back));

    d.new_version_behavior = false;
    kv_family_desc_format(buf, sizeof buf, &d);
    CHECK(strstr(buf, "NEW_VERSION_BEHAVIOR") == NULL);
    CHECK_EQ(kv_family_desc_parse(&back, buf, err, sizeof err), KV_OK);
    CHECK(desc_equal(&d, &back));
}

int main(void) {
    test_format_default();
    test_set();
    test_set_errors();
    test_ttl_text();
    test_parse();
    test_round_trip();
    return test_finish("test_schema_text");
}
