/* Unit tests of sorted files (kvcore/sst_write.c, sst_read.c, block.c,
   bloom.c): every compression x encoding x bloom combination with real
   internal keys, ordered reads, seeks and seek_before, bloom false
   positives, a huge value, the block cache, concurrent readers,
   corruption and truncation reported as KV_CORRUPT, and the read units of
   large blocks (format version 2). */
#include "table/block.h"
#include "table/bloom.h"
#include "table/sst.h"
#include "hbase/keys.h"
#include "testutil.h"

#include <pthread.h>

static kv_env *env;
static char *dir;

/* ------------------------------------------------------------- data sets */

typedef struct dataset {
    kv_buf keys;                 /* all keys, concatenated */
    size_t *off, *len;
    size_t n, cap;
    uint32_t nrows;              /* rows 0..nrows-1 exist (as row_name(2*i)) */
    int64_t min_ts, max_ts;
    uint64_t max_seq;
    uint64_t column_deletes;     /* DeleteColumn markers, */
    int64_t max_column_delete_ts;    /* ... the newest's timestamp */
    uint64_t family_markers;     /* DeleteFamily markers */
} dataset;

static uint64_t rnd(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Binary row names with zero bytes, so that escaping is exercised. */
static void row_name(uint8_t out[5], uint32_t id) {
    out[0] = 'r';
    kv_put_be32(out + 1, id);
}

static const uint8_t *key_at(const dataset *d, size_t i, size_t *len) {
    *len = d->len[i];
    return d->keys.data + d->off[i];
}

static void push_key(dataset *d, size_t start) {
    if (d->n == d->cap) {
        d->cap = d->cap ? d->cap * 2 : 1024;
        d->off = realloc(d->off, d->cap * sizeof *d->off);
        d->len = realloc(d->len, d->cap * sizeof *d->len);
        REQUIRE(d->off && d->len);
    }
    d->off[d->n] = start;
    d->len[d->n] = d->keys.len - start;
    d->n++;
}

/* About n entries: rows with 1-3 columns of 1-3 versions, some rows with a
   family delete marker first. */
static void make_dataset(dataset *d, size_t n, uint64_t seed) {
    memset(d, 0, sizeof *d);
    uint64_t s = seed;
    d->min_ts = INT64_MAX;
    d->max_ts = INT64_MIN;
    for (uint32_t r = 0; d->n < n; r++) {
        uint8_t row[5];
        row_name(row, 2 * r);
        d->nrows = r + 1;
        int64_t base = 1700000000000LL + (int64_t)(rnd(&s) % 100000);
        if (rnd(&s) % 8 == 0) {
            size_t st = d->keys.len;
            uint64_t seq = rnd(&s) % 1000000;
            REQUIRE(kv_key_encode(&d->keys, row, 5, KV_KIND_FAMILY_MARKER, "", 0, base + 5000,
                                  KV_TYPE_DELETE_FAMILY, seq) == 0);
            push_key(d, st);
            d->family_markers++;
            if (base + 5000 > d->max_ts) d->max_ts = base + 5000;
            if (base + 5000 < d->min_ts) d->min_ts = base + 5000;
            if (seq > d->max_seq) d->max_seq = seq;
        }
        int ncols = 1 + (int)(rnd(&s) % 3);
        for (int c = 0; c < ncols; c++) {
            char q[16];
            snprintf(q, sizeof q, "q%d", c);
            int nver = 1 + (int)(rnd(&s) % 3);
            for (int v = 0; v < nver; v++) {
                int64_t ts = base - v * 1000;
                uint64_t seq = rnd(&s) % 1000000;
                size_t st = d->keys.len;
                /* a DeleteColumn in about one row in 16: the meta block counts them */
                bool dc = v == 0 && c == 2 && r % 2 == 0;
                REQUIRE(kv_key_encode(&d->keys, row, 5, KV_KIND_COLUMN, q, strlen(q), ts,
                                      dc ? KV_TYPE_DELETE_COLUMN
                                      : v == 1 && c == 1 ? KV_TYPE_DELETE : KV_TYPE_PUT, seq) == 0);
                push_key(d, st);
                if (dc && (d->column_deletes++ == 0 || ts > d->max_column_delete_ts))
                    d->max_column_delete_ts = ts;
                if (ts > d->max_ts) d->max_ts = ts;
                if (ts < d->min_ts) d->min_ts = ts;
                if (seq > d->max_seq) d->max_seq = seq;
            }
        }
    }
    for (size_t i = 1; i < d->n; i++) {
        size_t al, bl;
        const uint8_t *a = key_at(d, i - 1, &al), *b = key_at(d, i, &bl);
        size_t m = al < bl ? al : bl;
        int c = memcmp(a, b, m);
        REQUIRE(c < 0 || (c == 0 && al < bl));
    }
}

/* Short keys that are not internal keys (the DIFF no-suffix path). */
static void make_raw_dataset(dataset *d, size_t n) {
    memset(d, 0, sizeof *d);
    for (size_t i = 0; i < n; i++) {
        char k[32];
        int len = snprintf(k, sizeof k, "k%06zu%s", i, i % 3 ? "" : "-long-enough-suffix!");
        size_t st = d->keys.len;
        REQUIRE(kv_buf_append(&d->keys, k, (size_t)len) == 0);
        push_key(d, st);
    }
}

static void free_dataset(dataset *d) {
    kv_buf_free(&d->keys);
    free(d->off);
    free(d->len);
}

/* Deterministic, partly compressible values; every 97th is empty. */
static size_t value_of(size_t i, uint8_t *buf) {
    size_t len = i % 97 == 0 ? 0 : 8 + (i * 7919) % 150;
    uint64_t s = i;
    for (size_t j = 0; j < len; j++)
        buf[j] = j % 16 < 10 ? (uint8_t)('a' + (i + j / 16) % 26) : (uint8_t)rnd(&s);
    return len;
}

/* -------------------------------------------------------------- helpers */

/* Writes d; @p expect, when not 0, is passed to
   kv_sst_writer_expect_bloom_keys. */
static kv_status write_dataset_expecting(const char *path, const dataset *d, const kv_sst_options *o,
                                         uint64_t expect, kv_sst_meta *meta) {
    kv_sst_writer *w;
    char err[256];
    kv_status st = kv_sst_writer_open(&w, env, path, o, err, sizeof err);
    if (st != KV_OK)
        return st;
    if (expect)
        kv_sst_writer_expect_bloom_keys(w, expect);
    uint8_t val[256];
    for (size_t i = 0; i < d->n; i++) {
        size_t kl, vl = value_of(i, val);
        const uint8_t *k = key_at(d, i, &kl);
        st = kv_sst_add(w, k, kl, val, vl);
        if (st != KV_OK) {
            kv_sst_abandon(w);
            return st;
        }
    }
    CHECK(kv_sst_writer_size(w) > 0);
    st = kv_sst_finish(w, meta, err, sizeof err);
    if (st != KV_OK)
        fprintf(stderr, "finish: %s\n", err);
    return st;
}

static kv_status write_dataset(const char *path, const dataset *d, const kv_sst_options *o,
                               kv_sst_meta *meta) {
    return write_dataset_expecting(path, d, o, 0, meta);
}

static bool key_is(kv_iter *it, const dataset *d, size_t i) {
    if (!it->valid(it))
        return false;
    size_t kl, el;
    const uint8_t *k = it->key(it, &kl), *e = key_at(d, i, &el);
    return kl == el && memcmp(k, e, kl) == 0;
}

static bool value_is(kv_iter *it, size_t i) {
    uint8_t val[256];
    size_t vl = value_of(i, val), gl;
    const uint8_t *g = it->value(it, &gl);
    return gl == vl && (vl == 0 || memcmp(g, val, vl) == 0);
}

/* Full scan, random seeks and seek_before against the data set. */
static void verify_reads(kv_iter *it, const dataset *d, uint64_t seed) {
    size_t i = 0, bad = 0;
    for (it->seek(it, NULL, 0); it->valid(it); it->next(it), i++) {
        if (i >= d->n || !key_is(it, d, i) || !value_is(it, i))
            bad++;
    }
    CHECK_EQ(bad, 0);
    CHECK_EQ(i, d->n);
    CHECK_EQ(it->status(it), KV_OK);

    uint64_t s = seed;
    kv_buf t = { 0 };
    size_t seek_bad = 0, before_bad = 0;
    for (int k = 0; k < 1500; k++) {
        size_t j = rnd(&s) % d->n, kl;
        const uint8_t *key = key_at(d, j, &kl);
        it->seek(it, key, kl);
        if (!key_is(it, d, j) || !value_is(it, j))
            seek_bad++;
        /* A few steps forward from there. */
        for (size_t step = 1; step <= 3 && j + step < d->n; step++) {
            it->next(it);
            if (!key_is(it, d, j + step))
                seek_bad++;
        }
        /* Just after key j: lands on j+1. */
        t.len = 0;
        kv_buf_append(&t, key, kl);
        kv_buf_append(&t, "", 1);
        it->seek(it, t.data, t.len);
        if (j + 1 < d->n ? !key_is(it, d, j + 1) : it->valid(it))
            seek_bad++;
        it->seek_before(it, t.data, t.len);
        if (!key_is(it, d, j) || !value_is(it, j))
            before_bad++;
        it->seek_before(it, key, kl);
        if (j > 0 ? !key_is(it, d, j - 1) || !value_is(it, j - 1) : it->valid(it))
            before_bad++;
    }
    CHECK_EQ(seek_bad, 0);
    CHECK_EQ(before_bad, 0);
    /* Past the end and before the start. */
    uint8_t ff[8];
    memset(ff, 0xff, sizeof ff);
    it->seek(it, ff, sizeof ff);
    CHECK(!it->valid(it));
    it->seek_before(it, ff, sizeof ff);
    CHECK(key_is(it, d, d->n - 1));
    it->seek_before(it, NULL, 0);
    CHECK(key_is(it, d, d->n - 1));
    CHECK(value_is(it, d->n - 1));
    size_t l0;
    const uint8_t *k0 = key_at(d, 0, &l0);
    it->seek_before(it, k0, l0);
    CHECK(!it->valid(it));
    it->seek(it, (const uint8_t *)"", 1);   /* "\0" sorts before every key here */
    CHECK(key_is(it, d, 0));
    CHECK_EQ(it->status(it), KV_OK);
    kv_buf_free(&t);
}

static void verify_bloom(kv_sst_reader *r, const dataset *d, kv_bloom kind) {
    kv_buf b = { 0 };
    size_t false_neg = 0, fp = 0, probes = 0;
    for (size_t i = 0; i < d->n; i++) {
        size_t kl;
        const uint8_t *k = key_at(d, i, &kl);
        size_t rl = kv_key_row_prefix_len(k, kl), cl = kv_key_column_prefix_len(k, kl);
        if (!kv_sst_may_contain_row(r, k, rl) || !kv_sst_may_contain_column(r, k, cl))
            false_neg++;
        /* a get hashes its row once for every file's filter: the probe
           from that hash must find what the builder added */
        if (!kv_sst_may_contain_row_hash(r, k, rl, kv_sst_bloom_hash(k, rl)))
            false_neg++;
    }
    CHECK_EQ(false_neg, 0);
    for (uint32_t i = 0; i < 20000; i++) {
        uint8_t row[5];
        bool hit;
        b.len = 0;
        if (kind == KV_BLOOM_ROWCOL) {
            row_name(row, 2 * (i % d->nrows));
            kv_key_encode_column(&b, row, 5, KV_KIND_COLUMN, "absent", 6);
            hit = kv_sst_may_contain_column(r, b.data, b.len);
            CHECK(kv_sst_may_contain_row(r, row, 5));   /* no row filter: true */
        } else {
            row_name(row, 2 * i + 1);
            kv_key_encode_row(&b, row, 5);
            hit = kv_sst_may_contain_row(r, b.data, b.len);
            /* the same answer from the row's hash as from the row */
            CHECK_EQ(kv_sst_may_contain_row_hash(r, b.data, b.len, kv_sst_bloom_hash(b.data, b.len)), hit);
        }
        probes++;
        fp += hit;
    }
    double rate = (double)fp / (double)probes;
    if (kind == KV_BLOOM_NONE) {
        CHECK_EQ(fp, probes);
    } else {
        if (rate > 0.02 || rate < 0.002)
            fprintf(stderr, "bloom kind %d: false-positive rate %.4f\n", kind, rate);
        CHECK(rate < 0.02);
        CHECK(rate > 0.002);
    }
    kv_buf_free(&b);
}

static char *path_of(const char *name) {
    char *p = malloc(strlen(dir) + strlen(name) + 2);
    sprintf(p, "%s/%s", dir, name);
    return p;
}

/* ---------------------------------------------------------------- tests */

static void test_all_combinations(void) {
    dataset d;
    make_dataset(&d, 12000, 42);
    kv_cache *cache = kv_cache_new((size_t)64 << 20);
    REQUIRE(cache);
    uint64_t fileno = 100;
    uint64_t sizes[3][3] = { { 0 } };
    for (int c = 0; c <= KV_COMPRESSION_SNAPPY; c++) {
        for (int e = 0; e <= KV_ENCODING_DIFF; e++) {
            for (int b = 0; b <= KV_BLOOM_ROWCOL; b++) {
                kv_sst_options o = { 4096, (kv_compression)c, (kv_encoding)e, (kv_bloom)b, 10 };
                char name[64];
                snprintf(name, sizeof name, "%06" PRIu64 ".sst", fileno);
                char *path = path_of(name);
                kv_sst_meta meta;
                REQUIRE(write_dataset(path, &d, &o, &meta) == KV_OK);
                CHECK_EQ(meta.entries, d.n);
                CHECK_EQ(meta.min_ts, d.min_ts);
                CHECK_EQ(meta.max_ts, d.max_ts);
                CHECK_EQ(meta.max_seq, d.max_seq);
                size_t l0, ln;
                const uint8_t *k0 = key_at(&d, 0, &l0), *kn = key_at(&d, d.n - 1, &ln);
                CHECK(meta.smallest_len == l0 && memcmp(meta.smallest, k0, l0) == 0);
                CHECK(meta.largest_len == ln && memcmp(meta.largest, kn, ln) == 0);
                sizes[c][e] = meta.file_size;

                kv_sst_reader *r;
                char err[256];
                REQUIRE(kv_sst_open(&r, env, path, fileno, cache, err, sizeof err) == KV_OK);
                CHECK_EQ(kv_sst_file_size(r), meta.file_size);
                /* the meta block's DeleteColumn count and newest timestamp */
                uint64_t ndc = 0, nfm = 0;
                int64_t dc_max = 0;
                CHECK(kv_sst_marker_counts(r, &ndc, &dc_max, &nfm));
                REQUIRE(d.column_deletes > 0 && d.family_markers > 0);
                CHECK(ndc == d.column_deletes && dc_max == d.max_column_delete_ts &&
                      nfm == d.family_markers);
                CHECK(!kv_sst_no_family_markers(r));
                CHECK(kv_sst_column_deletes_below(r, d.max_column_delete_ts + 1));
                CHECK(!kv_sst_column_deletes_below(r, d.max_column_delete_ts));
                /* Alternate cached and uncached reads. */
                kv_iter *it = kv_sst_iter(r, (c + e + b) % 2 == 0, b == 1);
                REQUIRE(it);
                verify_reads(it, &d, (uint64_t)fileno);
                it->destroy(it);
                verify_bloom(r, &d, (kv_bloom)b);
                kv_sst_close(r);
                kv_cache_erase_file(cache, fileno);
                kv_sst_meta_clear(&meta);
                free(path);
                fileno++;
            }
        }
    }
    /* Prefix and diff encoding shrink the file; so does compression. */
    for (int c = 0; c < 3; c++) {
        CHECK(sizes[c][KV_ENCODING_PREFIX] < sizes[c][KV_ENCODING_NONE]);
        CHECK(sizes[c][KV_ENCODING_DIFF] < sizes[c][KV_ENCODING_PREFIX]);
    }
    CHECK(sizes[KV_COMPRESSION_LZ4][0] < sizes[0][0]);
    CHECK(sizes[KV_COMPRESSION_SNAPPY][0] < sizes[0][0]);
    printf("file bytes (none/prefix/diff): raw %" PRIu64 "/%" PRIu64 "/%" PRIu64
           ", lz4 %" PRIu64 "/%" PRIu64 "/%" PRIu64 ", snappy %" PRIu64 "/%" PRIu64 "/%" PRIu64 "\n",
           sizes[0][0], sizes[0][1], sizes[0][2], sizes[1][0], sizes[1][1], sizes[1][2],
           sizes[2][0], sizes[2][1], sizes[2][2]);
    kv_cache_free(cache);
    free_dataset(&d);
}

static void test_large_file(void) {
    dataset d;
    make_dataset(&d, 200000, 7);
    char *path = path_of("big.sst");
    kv_sst_options o = { 65536, KV_COMPRESSION_LZ4, KV_ENCODING_DIFF, KV_BLOOM_ROW, 10 };
    kv_sst_meta meta;
    REQUIRE(write_dataset(path, &d, &o, &meta) == KV_OK);
    CHECK_EQ(meta.entries, d.n);
    kv_sst_reader *r;
    char err[256];
    REQUIRE(kv_sst_open(&r, env, path, 1, NULL, err, sizeof err) == KV_OK);
    kv_iter *it = kv_sst_iter(r, true, false);
    verify_reads(it, &d, 99);
    it->destroy(it);
    verify_bloom(r, &d, KV_BLOOM_ROW);
    kv_sst_close(r);
    kv_sst_meta_clear(&meta);
    free(path);
    free_dataset(&d);
}

/* The bloom block's framed size, from the footer of the file at path. */
static uint64_t bloom_block_size(const char *path) {
    FILE *f = fopen(path, "rb");
    REQUIRE(f);
    uint8_t foot[KV_SST_FOOTER_LEN];
    REQUIRE(fseek(f, -(long)sizeof foot, SEEK_END) == 0 && fread(foot, 1, sizeof foot, f) == sizeof foot);
    fclose(f);
    return kv_get_le64(foot + 24);
}

/* A writer told how many bloom keys to expect (a compaction) sizes the
   filter from that count once it has more than KV_BLOOM_BUFFER_KEYS keys,
   and sets each key's bits as it comes: every key is still found, the
   false-positive rate is the rate of that size, and a file with fewer keys
   gets the exact filter, as without the count. A count below the truth
   (no input may cause it, but) loses no key either. */
static void test_expected_bloom_keys(void) {
    dataset d;
    make_dataset(&d, 400000, 11);
    REQUIRE(d.nrows > KV_BLOOM_BUFFER_KEYS);
    kv_sst_options o = { 65536, KV_COMPRESSION_NONE, KV_ENCODING_NONE, KV_BLOOM_ROW, 10 };
    uint64_t expect[] = { 0, (uint64_t)d.nrows + d.nrows / 10, 10 };
    for (size_t e = 0; e < sizeof expect / sizeof expect[0]; e++) {
        char *path = path_of("expect.sst");
        char err[256];
        kv_sst_meta meta;
        REQUIRE(write_dataset_expecting(path, &d, &o, expect[e], &meta) == KV_OK);
        /* framed: type byte, array, k, checksum */
        uint64_t sized_for = expect[e] == 0 ? d.nrows : expect[e] > d.nrows ? expect[e] : KV_BLOOM_BUFFER_KEYS;
        CHECK_EQ(bloom_block_size(path), 1 + (sized_for * 10 + 7) / 8 + 1 + KV_BLOCK_CHECKSUM_LEN);
        kv_sst_reader *r;
        REQUIRE(kv_sst_open(&r, env, path, 1, NULL, err, sizeof err) == KV_OK);
        CHECK_EQ(kv_sst_bloom_keys(r, KV_BLOOM_ROW), d.nrows);
        CHECK_EQ(kv_sst_bloom_keys(r, KV_BLOOM_ROWCOL), d.n);   /* no such filter: entries */
        if (expect[e] == 10) {
            /* too small a count: no key lost, however many false positives */
            size_t false_neg = 0;
            for (size_t i = 0; i < d.n; i++) {
                size_t kl;
                const uint8_t *k = key_at(&d, i, &kl);
                false_neg += !kv_sst_may_contain_row(r, k, kv_key_row_prefix_len(k, kl));
            }
            CHECK_EQ(false_neg, 0);
        } else {
            verify_bloom(r, &d, KV_BLOOM_ROW);
        }
        kv_sst_close(r);
        kv_sst_meta_clear(&meta);
        remove(path);
        free(path);
    }
    /* A small file told to expect many keys gets the exact filter. */
    dataset small;
    make_dataset(&small, 3000, 12);
    char *path = path_of("expect-small.sst");
    kv_sst_meta meta;
    REQUIRE(write_dataset_expecting(path, &small, &o, 1000000, &meta) == KV_OK);
    CHECK_EQ(bloom_block_size(path), 1 + ((uint64_t)small.nrows * 10 + 7) / 8 + 1 + KV_BLOCK_CHECKSUM_LEN);
    kv_sst_meta_clear(&meta);
    free(path);
    free_dataset(&small);
    free_dataset(&d);
}

static void test_raw_keys(void) {
    dataset d;
    make_raw_dataset(&d, 5000);
    for (int e = 0; e <= KV_ENCODING_DIFF; e++) {
        char *path = path_of("raw.sst");
        kv_sst_options o = { 1024, KV_COMPRESSION_NONE, (kv_encoding)e, KV_BLOOM_NONE, 10 };
        REQUIRE(write_dataset(path, &d, &o, NULL) == KV_OK);
        kv_sst_reader *r;
        char err[256];
        REQUIRE(kv_sst_open(&r, env, path, 2, NULL, err, sizeof err) == KV_OK);
        kv_iter *it = kv_sst_iter(r, false, false);
        verify_reads(it, &d, 5);
        it->destroy(it);
        kv_sst_close(r);
        free(path);
    }
    free_dataset(&d);
}

/* Keys that all start with the same 24 bytes and then differ only in
   ways the first 8 bytes after those do not show: a key, the key with a
   zero byte, the key with nine more zero bytes and a letter (find_block
   compares those 8 bytes as a number and must fall back to the bytes). */
static void test_common_prefix_seeks(void) {
    static const char prefix[] = "a-prefix-of-24-bytes/000";
    dataset d;
    memset(&d, 0, sizeof d);
    for (size_t i = 0; i < 6000; i++) {
        char k[64];
        int len = snprintf(k, sizeof k, "%s%06zu", prefix, i / 3);
        size_t extra = i % 3 == 0 ? 0 : i % 3 == 1 ? 1 : 10;
        memset(k + len, 0, extra);
        if (extra == 10)
            k[len + 9] = 'z';
        size_t st = d.keys.len;
        REQUIRE(kv_buf_append(&d.keys, k, (size_t)len + extra) == 0);
        push_key(&d, st);
    }
    for (int v = 0; v < 2; v++) {
        char *path = path_of("prefix.sst");
        kv_sst_options o = { v ? 65536 : 1024, KV_COMPRESSION_NONE, KV_ENCODING_NONE, KV_BLOOM_NONE, 10 };
        REQUIRE(write_dataset(path, &d, &o, NULL) == KV_OK);
        kv_sst_reader *r;
        char err[256];
        REQUIRE(kv_sst_open(&r, env, path, 3, NULL, err, sizeof err) == KV_OK);
        kv_iter *it = kv_sst_iter(r, false, false);
        verify_reads(it, &d, 11);
        /* a proper prefix of the common prefix: before every key */
        it->seek(it, (const uint8_t *)prefix, 9);
        CHECK(key_is(it, &d, 0));
        it->seek_before(it, (const uint8_t *)prefix, 9);
        CHECK(!it->valid(it));
        /* the common prefix with a byte above any that follows it: past
           every key */
        it->seek(it, (const uint8_t *)"a-prefix-of-24-bytes/001", 24);
        CHECK(!it->valid(it));
        it->seek_before(it, (const uint8_t *)"a-prefix-of-24-bytes/001", 24);
        CHECK(key_is(it, &d, d.n - 1));
        it->destroy(it);
        kv_sst_close(r);
        free(path);
    }
    free_dataset(&d);
}

static void test_order_and_empty(void) {
    char *path = path_of("order.sst");
    kv_sst_writer *w;
    char err[256];
    REQUIRE(kv_sst_writer_open(&w, env, path, NULL, err, sizeof err) == KV_OK);
    CHECK_EQ(kv_sst_add(w, (const uint8_t *)"b", 1, NULL, 0), KV_OK);
    CHECK_EQ(kv_sst_add(w, (const uint8_t *)"b", 1, NULL, 0), KV_INVALID);
    CHECK_EQ(kv_sst_add(w, (const uint8_t *)"a", 1, NULL, 0), KV_INVALID);
    CHECK_EQ(kv_sst_add(w, (const uint8_t *)"c", 1, (const uint8_t *)"v", 1), KV_OK);
    kv_sst_meta meta;
    REQUIRE(kv_sst_finish(w, &meta, err, sizeof err) == KV_OK);
    CHECK_EQ(meta.entries, 2);
    kv_sst_meta_clear(&meta);

    kv_sst_options bad = { 4096, (kv_compression)9, KV_ENCODING_NONE, KV_BLOOM_NONE, 10 };
    CHECK_EQ(kv_sst_writer_open(&w, env, path, &bad, err, sizeof err), KV_INVALID);

    /* A file without entries. */
    REQUIRE(kv_sst_writer_open(&w, env, path, NULL, err, sizeof err) == KV_OK);
    REQUIRE(kv_sst_finish(w, &meta, err, sizeof err) == KV_OK);
    CHECK_EQ(meta.entries, 0);
    kv_sst_meta_clear(&meta);
    kv_sst_reader *r;
    REQUIRE(kv_sst_open(&r, env, path, 3, NULL, err, sizeof err) == KV_OK);
    kv_iter *it = kv_sst_iter(r, true, false);
    it->seek(it, NULL, 0);
    CHECK(!it->valid(it));
    it->seek_before(it, NULL, 0);
    CHECK(!it->valid(it));
    CHECK_EQ(it->status(it), KV_OK);
    it->destroy(it);
    kv_sst_close(r);

    /* Abandon leaves the file for the caller to remove. */
    REQUIRE(kv_sst_writer_open(&w, env, path, NULL, err, sizeof err) == KV_OK);
    CHECK_EQ(kv_sst_add(w, (const uint8_t *)"x", 1, NULL, 0), KV_OK);
    kv_sst_abandon(w);
    free(path);
}

static void test_huge_value(void) {
    size_t big = (size_t)5 << 20;
    uint8_t *v = malloc(big);
    REQUIRE(v);
    uint64_t s = 3;
    for (size_t i = 0; i < big; i++)
        v[i] = (i / 4096) % 2 ? (uint8_t)rnd(&s) : (uint8_t)(i % 251);
    kv_cache *cache = kv_cache_new((size_t)64 << 20);
    for (int c = 0; c <= KV_COMPRESSION_SNAPPY; c++) {
        char *path = path_of("huge.sst");
        kv_sst_options o = { 4096, (kv_compression)c, KV_ENCODING_DIFF, KV_BLOOM_ROW, 10 };
        kv_sst_writer *w;
        char err[256];
        REQUIRE(kv_sst_writer_open(&w, env, path, &o, err, sizeof err) == KV_OK);
        kv_buf k[3] = { { 0 } };
        for (int i = 0; i < 3; i++)
            kv_key_encode(&k[i], "row", 3, KV_KIND_COLUMN, i == 0 ? "a" : i == 1 ? "b" : "c", 1, 5, KV_TYPE_PUT, 1);
        CHECK_EQ(kv_sst_add(w, k[0].data, k[0].len, (const uint8_t *)"small", 5), KV_OK);
        CHECK_EQ(kv_sst_add(w, k[1].data, k[1].len, v, big), KV_OK);
        CHECK_EQ(kv_sst_add(w, k[2].data, k[2].len, (const uint8_t *)"after", 5), KV_OK);
        kv_sst_meta meta;
        REQUIRE(kv_sst_finish(w, &meta, err, sizeof err) == KV_OK);
        if (c != KV_COMPRESSION_NONE)
            CHECK(meta.file_size < big);   /* half the value compresses well */
        kv_sst_meta_clear(&meta);
        kv_sst_reader *r;
        REQUIRE(kv_sst_open(&r, env, path, 50 + (uint64_t)c, cache, err, sizeof err) == KV_OK);
        for (int pass = 0; pass < 2; pass++) {
            kv_iter *it = kv_sst_iter(r, pass == 0, false);
            it->seek(it, k[1].data, k[1].len);
            REQUIRE(it->valid(it));
            size_t vl;
            const uint8_t *got = it->value(it, &vl);
            CHECK(vl == big && memcmp(got, v, big) == 0);
            it->next(it);
            CHECK(it->valid(it));
            CHECK_BYTES(it->value(it, &vl), vl, "after");
            it->seek_before(it, k[2].data, k[2].len);
            CHECK(it->valid(it) && (it->value(it, &vl), vl == big));
            it->seek_before(it, k[1].data, k[1].len);
            CHECK(it->valid(it));
            CHECK_BYTES(it->value(it, &vl), vl, "small");
            it->destroy(it);
        }
        kv_sst_close(r);
        for (int i = 0; i < 3; i++)
            kv_buf_free(&k[i]);
        free(path);
    }
    kv_cache_free(cache);
    free(v);
}

static void test_cache_use(void) {
    dataset d;
    make_dataset(&d, 10000, 11);
    char *path = path_of("000012.sst");
    kv_sst_options o = { 4096, KV_COMPRESSION_SNAPPY, KV_ENCODING_PREFIX, KV_BLOOM_ROW, 10 };
    REQUIRE(write_dataset(path, &d, &o, NULL) == KV_OK);
    kv_cache *cache = kv_cache_new((size_t)64 << 20);
    kv_sst_reader *r;
    char err[256];
    REQUIRE(kv_sst_open(&r, env, path, 12, cache, err, sizeof err) == KV_OK);
    kv_iter *it = kv_sst_iter(r, false, false);
    size_t n = 0;
    for (it->seek(it, NULL, 0); it->valid(it); it->next(it))
        n++;
    CHECK_EQ(n, d.n);
    CHECK_EQ(kv_cache_usage(cache), 0);
    it->destroy(it);
    it = kv_sst_iter(r, true, false);
    n = 0;
    for (it->seek(it, NULL, 0); it->valid(it); it->next(it))
        n++;
    CHECK_EQ(n, d.n);
    size_t used = kv_cache_usage(cache);
    CHECK(used > 40000);   /* roughly the uncompressed data */
    /* Blocks now come from the cache: a second scan adds nothing. */
    verify_reads(it, &d, 12);
    CHECK_EQ(kv_cache_usage(cache), used);
    it->destroy(it);
    kv_cache_erase_file(cache, 12);
    CHECK_EQ(kv_cache_usage(cache), 0);
    kv_sst_close(r);

    /* A disabled cache still serves reads. */
    kv_cache *off = kv_cache_new(0);
    REQUIRE(kv_sst_open(&r, env, path, 12, off, err, sizeof err) == KV_OK);
    it = kv_sst_iter(r, true, true);
    verify_reads(it, &d, 13);
    it->destroy(it);
    kv_sst_close(r);
    kv_cache_free(off);
    kv_cache_free(cache);
    free(path);
    free_dataset(&d);
}

typedef struct reader_job { kv_sst_reader *r; const dataset *d; int id; size_t bad; } reader_job;

static void *reader_thread(void *arg) {
    reader_job *j = arg;
    kv_iter *it = kv_sst_iter(j->r, j->id % 2 == 0, false);
    uint64_t s = (uint64_t)j->id;
    for (int k = 0; k < 3000; k++) {
        size_t i = rnd(&s) % j->d->n, kl;
        const uint8_t *key = key_at(j->d, i, &kl);
        it->seek(it, key, kl);
        if (!key_is(it, j->d, i) || !value_is(it, i))
            j->bad++;
    }
    it->destroy(it);
    return NULL;
}

static void test_threads(void) {
    dataset d;
    make_dataset(&d, 30000, 5);
    char *path = path_of("mt.sst");
    kv_sst_options o = { 4096, KV_COMPRESSION_LZ4, KV_ENCODING_DIFF, KV_BLOOM_ROWCOL, 10 };
    REQUIRE(write_dataset(path, &d, &o, NULL) == KV_OK);
    kv_cache *cache = kv_cache_new((size_t)256 << 10);   /* small: lots of eviction */
    kv_sst_reader *r;
    char err[256];
    REQUIRE(kv_sst_open(&r, env, path, 77, cache, err, sizeof err) == KV_OK);
    enum { N = 6 };
    pthread_t t[N];
    reader_job j[N];
    for (int i = 0; i < N; i++) {
        j[i] = (reader_job){ r, &d, i, 0 };
        REQUIRE(pthread_create(&t[i], NULL, reader_thread, &j[i]) == 0);
    }
    for (int i = 0; i < N; i++) {
        pthread_join(t[i], NULL);
        CHECK_EQ(j[i].bad, 0);
    }
    CHECK(kv_cache_usage(cache) <= (size_t)256 << 10);
    kv_sst_close(r);
    kv_cache_free(cache);
    free(path);
    free_dataset(&d);
}

/* ------------------------------------------------------------ corruption */

static uint8_t *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    REQUIRE(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *p = malloc((size_t)n + 1);
    REQUIRE(p && fread(p, 1, (size_t)n, f) == (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return p;
}

static void spit(const char *path, const uint8_t *p, size_t len) {
    FILE *f = fopen(path, "wb");
    REQUIRE(f);
    REQUIRE(fwrite(p, 1, len, f) == len);
    fclose(f);
}

static kv_status try_open(const char *path, char *err, size_t errlen) {
    kv_sst_reader *r = NULL;
    kv_status st = kv_sst_open(&r, env, path, 9, NULL, err, errlen);
    kv_sst_close(r);
    return st;
}

static void test_corruption(void) {
    dataset d;
    make_dataset(&d, 10000, 21);
    char *good = path_of("good.sst");
    char *bad = path_of("000012.sst");
    kv_cache *cache = kv_cache_new((size_t)8 << 20);
    for (int c = 0; c <= KV_COMPRESSION_SNAPPY; c++) {
        kv_sst_options o = { 4096, (kv_compression)c, KV_ENCODING_DIFF, KV_BLOOM_ROW, 10 };
        REQUIRE(write_dataset(good, &d, &o, NULL) == KV_OK);
        size_t len;
        uint8_t *img = slurp(good, &len);
        /* One flipped byte in a data block a third of the way in. */
        size_t pos = len / 3;
        img[pos] ^= 0x40;
        spit(bad, img, len);
        img[pos] ^= 0x40;
        kv_sst_reader *r;
        char err[256];
        REQUIRE(kv_sst_open(&r, env, bad, 12, cache, err, sizeof err) == KV_OK);
        for (int fill = 0; fill < 2; fill++) {
            kv_iter *it = kv_sst_iter(r, fill, false);
            size_t n = 0, wrong = 0;
            for (it->seek(it, NULL, 0); it->valid(it); it->next(it), n++) {
                if (n >= d.n || !key_is(it, &d, n) || !value_is(it, n))
                    wrong++;
            }
            CHECK_EQ(wrong, 0);
            CHECK(n > 0 && n < d.n);
            CHECK_EQ(it->status(it), KV_CORRUPT);
            char msg[512];
            kv_sst_last_error(r, msg, sizeof msg);
            CHECK(strstr(msg, "corrupt block in ") != NULL);
            CHECK(strstr(msg, bad) != NULL);
            CHECK(strstr(msg, " at offset ") != NULL);
            /* Seeking into the bad block fails the same way. */
            kv_iter *it2 = kv_sst_iter(r, fill, false);
            it2->seek_before(it2, NULL, 0);
            CHECK(it2->valid(it2));
            size_t kl;
            const uint8_t *k = key_at(&d, n + 1 < d.n ? n + 1 : n, &kl);
            it2->seek(it2, k, kl);
            CHECK(!it2->valid(it2));
            CHECK_EQ(it2->status(it2), KV_CORRUPT);
            it2->destroy(it2);
            it->destroy(it);
        }
        kv_sst_close(r);
        kv_cache_erase_file(cache, 12);

        /* Footer, index and truncation: open fails with KV_CORRUPT. */
        for (size_t back = 1; back <= 64; back += 9) {
            img[len - back] ^= 0x01;
            spit(bad, img, len);
            img[len - back] ^= 0x01;
            err[0] = 0;
            CHECK_EQ(try_open(bad, err, sizeof err), KV_CORRUPT);
            CHECK(strstr(err, bad) != NULL);
        }
        uint64_t index_off = kv_get_le64(img + len - 64);
        img[index_off + 3] ^= 0x10;
        spit(bad, img, len);
        img[index_off + 3] ^= 0x10;
        CHECK_EQ(try_open(bad, err, sizeof err), KV_CORRUPT);
        CHECK(strstr(err, "offset") != NULL);
        size_t cuts[] = { len - 1, len - 64, len / 2, 10, 0 };
        for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
            spit(bad, img, cuts[i]);
            CHECK_EQ(try_open(bad, err, sizeof err), KV_CORRUPT);
        }
        /* The untouched image still opens. */
        spit(bad, img, len);
        CHECK_EQ(try_open(bad, err, sizeof err), KV_OK);
        free(img);
    }
    kv_cache_free(cache);
    free(good);
    free(bad);
    free_dataset(&d);
}

/* ------------------------------------------------------------ read units */

/* With a 64 KiB BLOCKSIZE a point read fetches, checks, decompresses and
   caches about 4 KiB (one read unit), not the whole block; everything
   still reads back, in every encoding and compression, cached or not. */
static void test_read_units(void) {
    dataset d;
    make_dataset(&d, 12000, 17);
    char *path = path_of("units.sst");
    for (int c = 0; c <= KV_COMPRESSION_SNAPPY; c++) {
        for (int e = 0; e <= KV_ENCODING_DIFF; e++) {
            kv_sst_options o = { 65536, (kv_compression)c, (kv_encoding)e, KV_BLOOM_ROW, 10 };
            kv_sst_meta meta;
            REQUIRE(write_dataset(path, &d, &o, &meta) == KV_OK);
            CHECK(meta.file_size > 3 * 65536);   /* several blocks */
            kv_cache *cache = kv_cache_new((size_t)64 << 20);
            REQUIRE(cache);
            kv_sst_reader *r;
            char err[256];
            REQUIRE(kv_sst_open(&r, env, path, 200, cache, err, sizeof err) == KV_OK);
            kv_iter *it = kv_sst_iter(r, true, false);
            REQUIRE(it);
            size_t kl;
            const uint8_t *k = key_at(&d, d.n / 2, &kl);
            it->seek(it, k, kl);
            CHECK(key_is(it, &d, d.n / 2) && value_is(it, d.n / 2));
            size_t used = kv_cache_usage(cache);
            CHECK(used > 0 && used <= 2 * 4096);
            /* A neighbouring key is in the same or the next unit. */
            k = key_at(&d, d.n / 2 + 1, &kl);
            it->seek(it, k, kl);
            CHECK(key_is(it, &d, d.n / 2 + 1));
            CHECK(kv_cache_usage(cache) <= 4 * 4096);
            verify_reads(it, &d, 31 + (uint64_t)e);
            it->destroy(it);
            it = kv_sst_iter(r, false, false);
            verify_reads(it, &d, 41 + (uint64_t)e);
            it->destroy(it);
            kv_sst_close(r);
            kv_cache_free(cache);
            kv_sst_meta_clear(&meta);
        }
    }
    free(path);
    free_dataset(&d);
}

/* Every byte of the data blocks of a file with read units is covered by a
   checksum: a flipped byte anywhere before the bloom/index blocks makes a
   full scan stop with KV_CORRUPT naming the file and an offset, after
   returning only correct entries, and the other units still read. */
static void test_units_every_byte_checked(void) {
    dataset d;
    make_dataset(&d, 1500, 23);
    char *good = path_of("units-good.sst");
    char *bad = path_of("units-bad.sst");
    kv_sst_options o = { 65536, KV_COMPRESSION_NONE, KV_ENCODING_DIFF, KV_BLOOM_ROW, 10 };
    REQUIRE(write_dataset(good, &d, &o, NULL) == KV_OK);
    size_t len;
    uint8_t *img = slurp(good, &len);
    uint64_t bloom_off = kv_get_le64(img + len - 64 + 16);
    uint64_t data_end = bloom_off ? bloom_off : kv_get_le64(img + len - 64);
    REQUIRE(data_end > 65536 && data_end < len);
    size_t flips = 0, undetected = 0, wrong = 0, unnamed = 0, whole = 0;
    for (size_t pos = 0; pos < data_end; pos += 127, flips++) {
        img[pos] ^= 0x08;
        spit(bad, img, len);
        img[pos] ^= 0x08;
        kv_sst_reader *r;
        char err[256];
        REQUIRE(kv_sst_open(&r, env, bad, 300, NULL, err, sizeof err) == KV_OK);
        kv_iter *it = kv_sst_iter(r, false, false);
        size_t n = 0;
        for (it->seek(it, NULL, 0); it->valid(it); it->next(it), n++) {
            if (n >= d.n || !key_is(it, &d, n) || !value_is(it, n))
                wrong++;
        }
        if (it->status(it) != KV_CORRUPT) {
            undetected++;
        } else {
            char msg[512];
            kv_sst_last_error(r, msg, sizeof msg);
            if (!strstr(msg, bad) || !strstr(msg, " at offset "))
                unnamed++;
        }
        /* The last entry lies in another unit than an early flip. */
        if (pos < 4096) {
            kv_iter *it2 = kv_sst_iter(r, false, false);
            size_t kl;
            const uint8_t *k = key_at(&d, d.n - 1, &kl);
            it2->seek(it2, k, kl);
            whole += key_is(it2, &d, d.n - 1) && value_is(it2, d.n - 1);
            it2->destroy(it2);
        }
        it->destroy(it);
        kv_sst_close(r);
    }
    CHECK(flips > 1000);
    CHECK_EQ(undetected, 0);
    CHECK_EQ(wrong, 0);
    CHECK_EQ(unnamed, 0);
    CHECK_EQ(whole, (4096 + 126) / 127);
    free(img);
    free(good);
    free(bad);
    free_dataset(&d);
}

/* Rewrites one byte of the first index entry's value of a file image (the
   index must be stored raw) and fixes the index block's checksum, as a
   hostile or buggy writer would. at: byte of the value. */
static void forge_index(uint8_t *img, size_t len, size_t at, uint8_t byte) {
    uint64_t off = kv_get_le64(img + len - 64), size = kv_get_le64(img + len - 56);
    REQUIRE(img[off] == 0 && size > 5);   /* raw */
    const uint8_t *p = img + off + 1, *end = img + off + size - 4;
    uint32_t klen, vlen;
    REQUIRE((p = kv_get_varint32(p, end, &klen)) && (p = kv_get_varint32(p, end, &vlen)));
    REQUIRE(at < vlen);
    img[(size_t)(p - img) + klen + at] = byte;
    kv_put_le32(img + off + size - 4, kv_checksum(img + off, (size_t)size - 4));
}

/* An index whose units leave a byte of data outside every unit, or whose
   unit list does not add up, is refused at open, naming the index. */
static void test_units_forged_index(void) {
    dataset d;
    make_dataset(&d, 3000, 29);
    char *good = path_of("forge-good.sst"), *bad = path_of("forge-bad.sst");
    kv_sst_options o = { 65536, KV_COMPRESSION_NONE, KV_ENCODING_PREFIX, KV_BLOOM_NONE, 10 };
    REQUIRE(write_dataset(good, &d, &o, NULL) == KV_OK);
    size_t len;
    uint8_t *img = slurp(good, &len);
    uint8_t *copy = malloc(len);
    REQUIRE(copy);
    /* value: varint offset (0: one byte), varint size (3 bytes), varint N */
    struct { size_t at; uint8_t byte; } forgeries[] = {
        { 0, 1 },      /* block 0 starts at 1: byte 0 is in no unit */
        { 4, 1 },      /* one unit instead of several: the list is left over */
        { 4, 0x7f },   /* more units than listed */
        { 4, 0 },      /* no unit */
    };
    for (size_t i = 0; i < sizeof forgeries / sizeof forgeries[0]; i++) {
        memcpy(copy, img, len);
        forge_index(copy, len, forgeries[i].at, forgeries[i].byte);
        spit(bad, copy, len);
        char err[256] = "";
        CHECK_EQ(try_open(bad, err, sizeof err), KV_CORRUPT);
        CHECK(strstr(err, bad) != NULL && strstr(err, "bad index") != NULL);
    }
    /* The same edit of nothing (byte rewritten to itself) still opens. */
    memcpy(copy, img, len);
    forge_index(copy, len, 0, 0);
    spit(bad, copy, len);
    char err[256];
    CHECK_EQ(try_open(bad, err, sizeof err), KV_OK);
    free(copy);
    free(img);
    free(good);
    free(bad);
    free_dataset(&d);
}

/* Writes d (12,000 entries from seed) to a file of blocks of blocksize
   bytes (64 KiB: several read units each), uncompressed; returns its path. */
static char *write_units_file(dataset *d, uint64_t seed, uint32_t blocksize, const char *name,
                              kv_sst_meta *meta) {
    make_dataset(d, 12000, seed);
    char *path = path_of(name);
    kv_sst_options o = { blocksize, KV_COMPRESSION_NONE, KV_ENCODING_PREFIX, KV_BLOOM_ROW, 10 };
    REQUIRE(write_dataset(path, d, &o, meta) == KV_OK);
    return path;
}

/* Scans it from the first entry, checking every entry against d; CHECKs
   that the scan ends cleanly after all of them. */
static void scan_all_checked(kv_iter *it, const dataset *d) {
    size_t n = 0, wrong = 0;
    for (it->seek(it, NULL, 0); it->valid(it); it->next(it), n++)
        wrong += !key_is(it, d, n) || !value_is(it, n);
    CHECK_EQ(n, d->n);
    CHECK_EQ(wrong, 0);
    CHECK_EQ(it->status(it), KV_OK);
}

/* Seeks it to entry i of d, CHECKing that this reads one unit (one
   read_at of fe), then scans the whole file; returns the scan's reads. */
static uint64_t seek_then_scan_reads(kv_iter *it, kv_fault_env *fe, const dataset *d, size_t i) {
    uint64_t before = kv_fault_env_calls(fe, "read_at");
    size_t kl;
    const uint8_t *k = key_at(d, i, &kl);
    it->seek(it, k, kl);
    CHECK(key_is(it, d, i) && value_is(it, i));
    CHECK_EQ(kv_fault_env_calls(fe, "read_at") - before, 1);
    before = kv_fault_env_calls(fe, "read_at");
    scan_all_checked(it, d);
    return kv_fault_env_calls(fe, "read_at") - before;
}

/* Reads of a file with read units, counted at the env: a seek reads one
   unit; a scan reads each block at once after its first two units; a
   failed read ahead costs nothing but a retry, and a unit whose own read
   fails ends the scan with KV_IO. */
static void test_units_reads(void) {
    dataset d;
    kv_sst_meta meta;
    char *path = write_units_file(&d, 37, 65536, "units-reads.sst", &meta);
    kv_fault_env *fe = kv_fault_env_new(kv_env_posix());
    REQUIRE(fe);
    kv_env *fenv = kv_fault_env_env(fe);
    uint64_t blocks = meta.file_size / 65536 + 1;
    kv_sst_reader *r;
    char err[256];
    REQUIRE(kv_sst_open(&r, fenv, path, 400, NULL, err, sizeof err) == KV_OK);
    kv_iter *it = kv_sst_iter(r, false, false);
    uint64_t reads = seek_then_scan_reads(it, fe, &d, d.n / 3);
    CHECK(reads >= blocks - 1 && reads <= blocks + 3);
    /* A failed read ahead is retried by the unit's own read, whose failure ends the scan. */
    kv_fault_env_fail_nth(fe, "read_at", 5);
    size_t n = 0;
    for (it->seek(it, NULL, 0); it->valid(it); it->next(it))
        n++;
    CHECK_EQ(n, d.n);
    CHECK_EQ(it->status(it), KV_OK);
    it->destroy(it);
    it = kv_sst_iter(r, false, false);
    kv_fault_env_fail_nth(fe, "read_at", 2);   /* the second unit's own read */
    n = 0;
    for (it->seek(it, NULL, 0); it->valid(it); it->next(it))
        n++;
    CHECK(n > 0 && n < d.n);
    CHECK_EQ(it->status(it), KV_IO);
    it->destroy(it);
    kv_sst_close(r);
    kv_sst_meta_clear(&meta);
    kv_fault_env_free(fe);
    free(path);
    free_dataset(&d);
}

/* A unit that ends a row has the next row's start bound (esc(next row)
   0x00) for separator, and an iterator given an upper bound (iter.h
   set_upper) stops before a unit wholly at or above it, unread
   (kvnextrow): iterating a row bounded by its end E (esc(row) with 0x02
   for its terminator's 0x01; a get) or by the next row's start bound (a
   scan's stop row) reads nothing once the row's last entry is current,
   and a seek past the row's last key reads at most the row's own last
   unit and finds nothing. Without the
   bound the iterator goes on into the next row. Counted at the env, no
   cache; units (64 KiB blocks) and one unit a block (4 KiB). */
static void test_upper_bound(void) {
    for (int pass = 0; pass < 2; pass++) {
        dataset d;
        kv_sst_meta meta;
        char *path = write_units_file(&d, 59 + pass, pass ? 4096 : 65536, "upper.sst", &meta);
        kv_fault_env *fe = kv_fault_env_new(kv_env_posix());
        REQUIRE(fe);
        kv_sst_reader *r;
        char err[256];
        REQUIRE(kv_sst_open(&r, kv_fault_env_env(fe), path, 600, NULL, err, sizeof err) == KV_OK);
        kv_iter *it = kv_sst_iter(r, false, false);
        REQUIRE(it->set_upper != NULL);
        size_t rows = 0, late_reads = 0, seek_reads = 0, found_past = 0, wrong = 0;
        kv_buf bound = {0}, past = {0};
        for (size_t lo = 0; lo < d.n;) {
            size_t kl, rl;
            const uint8_t *k = key_at(&d, lo, &kl);
            rl = kv_key_row_prefix_len(k, kl);
            REQUIRE(rl >= 2);
            size_t hi = lo + 1;
            for (size_t l2; hi < d.n && d.len[hi] >= rl && memcmp(key_at(&d, hi, &l2), k, rl) == 0;) hi++;
            bound.len = 0;
            if (rows % 2 && hi < d.n) {
                /* a scan's stop at the next row: esc(next row) 0x00 */
                size_t nl;
                const uint8_t *nk = key_at(&d, hi, &nl);
                REQUIRE(kv_buf_append(&bound, nk, kv_key_row_prefix_len(nk, nl) - 1) == 0);
            } else {
                REQUIRE(kv_buf_append(&bound, k, rl) == 0);
                bound.data[rl - 1] = 0x02;
            }
            it->set_upper(it, bound.data, bound.len);
            /* the row, bounded: every entry, then nothing read */
            it->seek(it, k, kl);
            for (size_t i = lo; i < hi; i++) {
                wrong += !key_is(it, &d, i) || !value_is(it, i);
                if (i + 1 < hi) it->next(it);
            }
            uint64_t before = kv_fault_env_calls(fe, "read_at");
            for (it->next(it); it->valid(it); it->next(it)) {
                size_t l;
                const uint8_t *key = it->key(it, &l);
                wrong += kv_bytes_compare(key, l, bound.data, bound.len) < 0;
            }
            late_reads += kv_fault_env_calls(fe, "read_at") - before;
            wrong += it->status(it) != KV_OK;
            /* a seek past the row's last key, from elsewhere: at most one
               read (the row's last unit), nothing found */
            size_t ll;
            const uint8_t *last = key_at(&d, hi - 1, &ll);
            past.len = 0;
            REQUIRE(kv_buf_append(&past, last, ll) == 0 && kv_buf_append(&past, "\xff", 1) == 0);
            it->seek(it, NULL, 0);
            before = kv_fault_env_calls(fe, "read_at");
            it->seek(it, past.data, past.len);
            if (kv_fault_env_calls(fe, "read_at") - before > 1) seek_reads++;
            while (it->valid(it)) {
                size_t l;
                const uint8_t *key = it->key(it, &l);
                found_past += kv_bytes_compare(key, l, bound.data, bound.len) < 0;
                it->next(it);
            }
            /* unbounded, the same seek finds the next row */
            it->set_upper(it, NULL, 0);
            it->seek(it, past.data, past.len);
            if (hi < d.n)
                wrong += !key_is(it, &d, hi);
            else
                wrong += it->valid(it);

            rows++;
            lo = hi;
        }
        CHECK(rows > 1000);
        CHECK_EQ(wrong, 0);
        CHECK_EQ(found_past, 0);
        if (late_reads || seek_reads)
            fprintf(stderr, "pass %d: %zu reads after a row's last entry, %zu seeks past a row read twice\n",
                    pass, late_reads, seek_reads);
        CHECK_EQ(late_reads, 0);
        CHECK_EQ(seek_reads, 0);
        it->destroy(it);
        kv_buf_free(&bound);
        kv_buf_free(&past);
        kv_sst_close(r);
        kv_sst_meta_clear(&meta);
        kv_fault_env_free(fe);
        remove(path);
        free(path);
        free_dataset(&d);
    }
}

/* The reads a recording env saw through read_at_around. */
static struct {
    size_t n;
    uint64_t off, len, around_off, around_len;
    bool bad;                    /* a window that does not hold its read */
} around_log;

static kv_status recording_read_at_around(kv_file *f, uint64_t offset, void *buf, size_t n,
                                          uint64_t around_off, size_t around_len, size_t *got,
                                          char *err, size_t errlen) {
    around_log.n++;
    around_log.off = offset;
    around_log.len = n;
    around_log.around_off = around_off;
    around_log.around_len = around_len;
    if (offset < around_off || offset + n > around_off + around_len)
        around_log.bad = true;
    return kv_env_posix()->read_at_around(f, offset, buf, n, around_off, around_len, got, err, errlen);
}

/* A unit read from the file (not from the block cache, not read ahead)
   goes through read_at_around with the aligned 256 KiB window holding it,
   so that a store opened cold is read in by windows; a reader on an env
   without it reads as before. */
static void test_units_read_around(void) {
    dataset d;
    kv_sst_meta meta;
    char *path = write_units_file(&d, 41, 65536, "units-around.sst", &meta);
    REQUIRE(meta.file_size > 600 * 1024);
    kv_env rec = *kv_env_posix();
    REQUIRE(rec.read_at_around != NULL);
    rec.read_at_around = recording_read_at_around;
    kv_sst_reader *r;
    char err[256];
    REQUIRE(kv_sst_open(&r, &rec, path, 401, NULL, err, sizeof err) == KV_OK);
    const uint64_t window = 256 * 1024;
    size_t picks[] = { d.n / 2, d.n - 1, 0, d.n / 3 };
    for (size_t p = 0; p < sizeof picks / sizeof picks[0]; p++) {
        memset(&around_log, 0, sizeof around_log);
        kv_iter *it = kv_sst_iter(r, false, false);
        size_t kl;
        const uint8_t *k = key_at(&d, picks[p], &kl);
        it->seek(it, k, kl);
        CHECK(key_is(it, &d, picks[p]));
        it->destroy(it);
        CHECK_EQ(around_log.n, 1);
        CHECK(!around_log.bad);
        CHECK_EQ(around_log.around_off % window, 0);
        CHECK_EQ(around_log.around_len % window, 0);
        CHECK(around_log.around_len >= window && around_log.around_len <= 2 * window);
        CHECK(around_log.len < 16 * 1024);   /* the unit, not its 64 KiB block */
    }
    kv_sst_close(r);
    /* a unit as large as the window is read alone (it is its own read-around) */
    char *bigpath = path_of("units-around-big.sst");
    size_t big = (size_t)300 << 10;
    uint8_t *v = calloc(1, big);
    REQUIRE(v);
    kv_sst_options o = { 4096, KV_COMPRESSION_NONE, KV_ENCODING_NONE, KV_BLOOM_NONE, 10 };
    kv_sst_writer *w;
    REQUIRE(kv_sst_writer_open(&w, env, bigpath, &o, err, sizeof err) == KV_OK);
    kv_buf bk = { 0 };
    kv_key_encode(&bk, "row", 3, KV_KIND_COLUMN, "b", 1, 5, KV_TYPE_PUT, 1);
    CHECK_EQ(kv_sst_add(w, bk.data, bk.len, v, big), KV_OK);
    kv_sst_meta bmeta;
    REQUIRE(kv_sst_finish(w, &bmeta, err, sizeof err) == KV_OK);
    kv_sst_meta_clear(&bmeta);
    REQUIRE(kv_sst_open(&r, &rec, bigpath, 403, NULL, err, sizeof err) == KV_OK);
    memset(&around_log, 0, sizeof around_log);
    kv_iter *bit = kv_sst_iter(r, false, false);
    bit->seek(bit, bk.data, bk.len);
    size_t vl = 0;
    CHECK(bit->valid(bit) && (bit->value(bit, &vl), vl == big));
    CHECK_EQ(around_log.n, 0);
    bit->destroy(bit);
    kv_sst_close(r);
    kv_buf_free(&bk);
    free(v);
    free(bigpath);
    /* an env without it: read_at, the same entries */
    rec.read_at_around = NULL;
    memset(&around_log, 0, sizeof around_log);
    REQUIRE(kv_sst_open(&r, &rec, path, 402, NULL, err, sizeof err) == KV_OK);
    kv_iter *it = kv_sst_iter(r, false, false);
    scan_all_checked(it, &d);
    it->destroy(it);
    CHECK_EQ(around_log.n, 0);
    kv_sst_close(r);
    kv_sst_meta_clear(&meta);
    free(path);
    free_dataset(&d);
}

/* I/O failures from the env surface as errors, never as bad data. */
static void test_io_errors(void) {
    dataset d;
    make_dataset(&d, 5000, 8);
    kv_fault_env *fe = kv_fault_env_new(kv_env_posix());
    REQUIRE(fe);
    kv_env *saved = env;
    env = kv_fault_env_env(fe);
    char *path = path_of("io.sst");
    kv_sst_options o = { 4096, KV_COMPRESSION_LZ4, KV_ENCODING_PREFIX, KV_BLOOM_ROW, 10 };
    kv_fault_env_fail_nth(fe, "sync", 1);
    CHECK_EQ(write_dataset(path, &d, &o, NULL), KV_IO);
    kv_fault_env_set_space(fe, 10000);
    CHECK_EQ(write_dataset(path, &d, &o, NULL), KV_NO_SPACE);
    kv_fault_env_set_space(fe, -1);
    uint64_t syncs = kv_fault_env_calls(fe, "sync");
    REQUIRE(write_dataset(path, &d, &o, NULL) == KV_OK);
    CHECK(kv_fault_env_calls(fe, "sync") > syncs);

    kv_sst_reader *r;
    char err[256];
    kv_fault_env_fail_nth(fe, "read_at", 2);
    CHECK_EQ(kv_sst_open(&r, env, path, 4, NULL, err, sizeof err), KV_IO);
    REQUIRE(kv_sst_open(&r, env, path, 4, NULL, err, sizeof err) == KV_OK);
    kv_iter *it = kv_sst_iter(r, false, false);
    /* the second unit's own read (a third read would be a read ahead,
       which a failure only makes the unit's own read retry) */
    kv_fault_env_fail_nth(fe, "read_at", 2);
    size_t n = 0;
    for (it->seek(it, NULL, 0); it->valid(it); it->next(it)) {
        CHECK(key_is(it, &d, n) && value_is(it, n));
        n++;
    }
    CHECK(n > 0 && n < d.n);
    CHECK_EQ(it->status(it), KV_IO);
    char msg[512];
    kv_sst_last_error(r, msg, sizeof msg);
    CHECK(strstr(msg, path) != NULL);
    it->destroy(it);
    kv_sst_close(r);
    env = saved;
    kv_fault_env_free(fe);
    free(path);
    free_dataset(&d);
}


/* Sets the format version in the footer of the file at path (and the
   footer's checksum). */
static void set_format_version(const char *path, uint32_t version) {
    FILE *f = fopen(path, "r+b");
    REQUIRE(f);
    uint8_t foot[KV_SST_FOOTER_LEN];
    REQUIRE(fseek(f, -(long)sizeof foot, SEEK_END) == 0 && fread(foot, 1, sizeof foot, f) == sizeof foot);
    kv_put_le32(foot + 48, version);
    kv_put_le32(foot + 52, kv_checksum(foot, 52));
    REQUIRE(fseek(f, -(long)sizeof foot, SEEK_END) == 0 && fwrite(foot, 1, sizeof foot, f) == sizeof foot);
    REQUIRE(fclose(f) == 0);
}

/* An uncompressed unit of a page or less is read as one page of the file
   (format version 3 pads it to its page's end), whatever the BLOCKSIZE and
   encoding; every entry still reads. A version 2 file (no padding) still
   reads; padding in a file that says version 2 is corrupt. */
static void test_units_within_pages(void) {
    const uint32_t sizes[] = { 65536, 4096, 1024 };
    const kv_encoding encs[] = { KV_ENCODING_NONE, KV_ENCODING_PREFIX, KV_ENCODING_DIFF };
    dataset d;
    make_dataset(&d, 12000, 43);
    kv_env rec = *kv_env_posix();
    REQUIRE(rec.read_at_around != NULL);
    rec.read_at_around = recording_read_at_around;
    char *path = path_of("units-pages.sst");
    for (size_t b = 0; b < 3; b++) {
        for (size_t e = 0; e < 3; e++) {
            kv_sst_options o = { sizes[b], KV_COMPRESSION_NONE, encs[e], KV_BLOOM_ROW, 10 };
            kv_sst_meta meta;
            REQUIRE(write_dataset(path, &d, &o, &meta) == KV_OK);
            kv_sst_reader *r;
            char err[256];
            REQUIRE(kv_sst_open(&r, &rec, path, 402, NULL, err, sizeof err) == KV_OK);
            size_t reads = 0, straddling = 0, wrong = 0;
            for (size_t i = 0; i < d.n; i += 7) {
                memset(&around_log, 0, sizeof around_log);
                kv_iter *it = kv_sst_iter(r, false, false);
                size_t kl;
                const uint8_t *k = key_at(&d, i, &kl);
                it->seek(it, k, kl);
                wrong += !key_is(it, &d, i) || !value_is(it, i);
                it->destroy(it);
                reads += around_log.n;
                straddling += around_log.n == 1 && around_log.len <= KV_SST_PAGE_BYTES &&
                              around_log.off / KV_SST_PAGE_BYTES !=
                                  (around_log.off + around_log.len - 1) / KV_SST_PAGE_BYTES;
            }
            CHECK_EQ(wrong, 0);
            CHECK_EQ(reads, (d.n + 6) / 7);
            CHECK_EQ(straddling, 0);
            kv_iter *it = kv_sst_iter(r, false, false);
            verify_reads(it, &d, 5);
            it->destroy(it);
            kv_sst_close(r);
            kv_sst_meta_clear(&meta);
        }
    }
    /* padded units in a file that says version 2: a scan stops at the
       first, corrupt */
    kv_sst_options none = { 65536, KV_COMPRESSION_NONE, KV_ENCODING_NONE, KV_BLOOM_ROW, 10 };
    kv_sst_meta meta;
    REQUIRE(write_dataset(path, &d, &none, &meta) == KV_OK);
    kv_sst_meta_clear(&meta);
    set_format_version(path, KV_SST_FORMAT_VERSION_2);
    kv_sst_reader *r;
    char err[256];
    REQUIRE(kv_sst_open(&r, env, path, 403, NULL, err, sizeof err) == KV_OK);
    kv_iter *it = kv_sst_iter(r, false, false);
    size_t n = 0;
    for (it->seek(it, NULL, 0); it->valid(it); it->next(it))
        n++;
    CHECK(n < d.n);
    CHECK_EQ(it->status(it), KV_CORRUPT);
    kv_sst_last_error(r, err, sizeof err);
    CHECK(strstr(err, "bad padding") && strstr(err, path));
    it->destroy(it);
    kv_sst_close(r);
    /* a file without padding (compressed) read as version 2 */
    kv_sst_options lz = { 65536, KV_COMPRESSION_LZ4, KV_ENCODING_PREFIX, KV_BLOOM_ROW, 10 };
    REQUIRE(write_dataset(path, &d, &lz, &meta) == KV_OK);
    set_format_version(path, KV_SST_FORMAT_VERSION_2);
    REQUIRE(kv_sst_open(&r, env, path, 404, NULL, err, sizeof err) == KV_OK);
    it = kv_sst_iter(r, false, false);
    verify_reads(it, &d, 6);
    it->destroy(it);
    kv_sst_close(r);
    kv_sst_meta_clear(&meta);
    free(path);
    free_dataset(&d);
}

/* A long scan fills the cache only where it has room: the units it reads
   ahead (after its first two) evict nothing, so a scan of a large file
   keeps the blocks others use; a file that fits is cached whole, and a
   second scan of it reads nothing. */
static void test_scan_keeps_cache(void) {
    dataset d;
    kv_sst_meta meta;
    char *path = write_units_file(&d, 53, 65536, "scan-cache.sst", &meta);
    kv_fault_env *fe = kv_fault_env_new(kv_env_posix());
    REQUIRE(fe);
    REQUIRE(meta.file_size > ((size_t)1 << 20));
    /* one shard of 1 MiB, 800 KiB of it another file's blocks */
    kv_cache *cache = kv_cache_new((size_t)1 << 20);
    REQUIRE(cache);
    enum { OTHER = 200 };
    for (uint64_t i = 0; i < OTHER; i++) {
        void *blk = calloc(1, 4096);
        REQUIRE(blk);
        kv_cache_handle *h = kv_cache_insert(cache, 999, i * 4096, blk, 4096, 4096, false);
        REQUIRE(h);
        kv_cache_release(cache, h);
    }
    kv_sst_reader *r;
    char err[256];
    REQUIRE(kv_sst_open(&r, kv_fault_env_env(fe), path, 401, cache, err, sizeof err) == KV_OK);
    kv_iter *it = kv_sst_iter(r, true, false);
    scan_all_checked(it, &d);
    size_t kept = 0;
    for (uint64_t i = 0; i < OTHER; i++) {
        kv_cache_handle *h = kv_cache_lookup(cache, 999, i * 4096);
        if (h) {
            kept++;
            kv_cache_release(cache, h);
        }
    }
    CHECK(kept >= OTHER - 4);   /* the scan's first two units may evict */
    CHECK(kv_cache_usage(cache) <= (size_t)1 << 20);
    it->destroy(it);
    kv_sst_close(r);
    kv_cache_free(cache);

    /* A cache with room for the whole file: the scan caches every unit. */
    cache = kv_cache_new((size_t)64 << 20);
    REQUIRE(cache);
    REQUIRE(kv_sst_open(&r, kv_fault_env_env(fe), path, 402, cache, err, sizeof err) == KV_OK);
    it = kv_sst_iter(r, true, false);
    scan_all_checked(it, &d);
    CHECK(kv_cache_usage(cache) >= meta.file_size / 2);
    uint64_t before = kv_fault_env_calls(fe, "read_at");
    scan_all_checked(it, &d);
    CHECK_EQ(kv_fault_env_calls(fe, "read_at") - before, 0);
    it->destroy(it);
    kv_sst_close(r);
    kv_cache_free(cache);
    kv_sst_meta_clear(&meta);
    kv_fault_env_free(fe);
    free(path);
    free_dataset(&d);
}

/* A long scan reads about 64 KiB at a time whatever the BLOCKSIZE: with
   4 KiB blocks (one unit each) it reads ahead across blocks; a seek still
   reads one unit. */
static void test_small_blocks_read_ahead(void) {
    dataset d;
    kv_sst_meta meta;
    char *path = write_units_file(&d, 61, 4096, "small-blocks.sst", &meta);
    kv_fault_env *fe = kv_fault_env_new(kv_env_posix());
    REQUIRE(fe);
    kv_sst_reader *r;
    char err[256];
    REQUIRE(kv_sst_open(&r, kv_fault_env_env(fe), path, 403, NULL, err, sizeof err) == KV_OK);
    kv_iter *it = kv_sst_iter(r, false, false);
    CHECK(seek_then_scan_reads(it, fe, &d, d.n / 2) <= meta.file_size / 65536 + 4);
    it->destroy(it);
    kv_sst_close(r);
    kv_sst_meta_clear(&meta);
    kv_fault_env_free(fe);
    free(path);
    free_dataset(&d);
}

int main(void) {
    env = kv_env_posix();
    dir = test_tmpdir("sst");
    test_order_and_empty();
    test_raw_keys();
    test_common_prefix_seeks();
    test_all_combinations();
    test_large_file();
    test_expected_bloom_keys();
    test_huge_value();
    test_cache_use();
    test_threads();
    test_corruption();
    test_io_errors();
    test_read_units();
    test_units_every_byte_checked();
    test_units_forged_index();
    test_units_reads();
    test_upper_bound();
    test_units_read_around();
    test_units_within_pages();
    test_scan_keeps_cache();
    test_small_blocks_read_ahead();
    test_rmtree(dir);
    free(dir);
    return test_finish("test_sst");
}
