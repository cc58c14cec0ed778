/**
 * @file test_wal.c
 * Unit tests of wal.c: round trips (empty and 1 MiB records), torn tails at
 * every cut point, corruption in the middle, bad headers, and writes through
 * the fault env (full disk, injected errors, power loss).
 */
#include "util/coding.h"
#include "testutil.h"
#include "engine/wal.h"

#include <unistd.h>

#define HDR 16   /* file header, doc/log_format.md */
#define RHDR 8   /* record header */

static char *join(const char *dir, const char *name) {
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    REQUIRE(p != NULL);
    snprintf(p, n, "%s/%s", dir, name);
    return p;
}

/* Deterministic payload of record i. */
static size_t rec_len(int i) {
    if (i == 0)
        return 0;
    if (i == 7)
        return 1u << 20;
    return (size_t)((i * 37) % 300);
}

static void fill(uint8_t *p, size_t n, int i) {
    for (size_t k = 0; k < n; k++)
        p[k] = (uint8_t)(k * 31 + (size_t)i * 7 + 1);
}

static bool rec_ok(int i, const uint8_t *data, size_t len) {
    if (len != rec_len(i))
        return false;
    for (size_t k = 0; k < len; k++)
        if (data[k] != (uint8_t)(k * 31 + (size_t)i * 7 + 1))
            return false;
    return true;
}

static kv_status write_log(kv_env *env, const char *path, int n, uint64_t *offsets) {
    char err[512];
    kv_wal_writer *w = NULL;
    kv_status st = kv_wal_writer_open(&w, env, path, err, sizeof err);
    if (st != KV_OK)
        return st;
    uint8_t *buf = malloc(1u << 20);
    REQUIRE(buf != NULL);
    for (int i = 0; i < n && st == KV_OK; i++) {
        if (offsets)
            offsets[i] = kv_wal_size(w);
        fill(buf, rec_len(i), i);
        st = kv_wal_append(w, buf, rec_len(i), err, sizeof err);
    }
    if (offsets && st == KV_OK)
        offsets[n] = kv_wal_size(w);
    if (st == KV_OK)
        st = kv_wal_sync(w, err, sizeof err);
    kv_status cst = kv_wal_writer_close(w, err, sizeof err);
    free(buf);
    return st != KV_OK ? st : cst;
}

/* Reads the log; returns the number of good records in order, and the
   final status in *end (KV_END for a clean end). */
static int read_log(kv_env *env, const char *path, kv_status *end, uint64_t *offset, char *err,
                    size_t errlen) {
    kv_wal_reader *r = NULL;
    kv_status st = kv_wal_reader_open(&r, env, path, err, errlen);
    if (st != KV_OK) {
        *end = st;
        return -1;
    }
    int n = 0;
    for (;;) {
        const uint8_t *data;
        size_t len;
        st = kv_wal_read(r, &data, &len, err, errlen);
        if (st != KV_OK)
            break;
        if (!rec_ok(n, data, len)) {
            fprintf(stderr, "record %d has wrong content (len %zu)\n", n, len);
            st = KV_INVALID;
            break;
        }
        n++;
    }
    /* Reading past the end stays at the end. */
    if (st == KV_END) {
        const uint8_t *data;
        size_t len;
        CHECK_EQ(kv_wal_read(r, &data, &len, err, errlen), KV_END);
    }
    if (offset)
        *offset = kv_wal_reader_offset(r);
    kv_wal_reader_close(r);
    *end = st;
    return n;
}

static uint8_t *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    REQUIRE(f != NULL);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *p = malloc((size_t)n + 1);
    REQUIRE(p != NULL);
    size_t got = fread(p, 1, (size_t)n, f);
    REQUIRE(got == (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return p;
}

static void spill(const char *path, const uint8_t *p, size_t len) {
    FILE *f = fopen(path, "wb");
    REQUIRE(f != NULL);
    size_t put = fwrite(p, 1, len, f);
    REQUIRE(put == len);
    int rc = fclose(f);
    REQUIRE(rc == 0);
}

#define NREC 20

static void test_round_trip(const char *dir) {
    kv_env *env = kv_env_posix();
    char *p = join(dir, "rt.log");
    uint64_t off[NREC + 1];
    {
        kv_status wst = write_log(env, p, NREC, off);
        REQUIRE(wst == KV_OK);
    }
    CHECK_EQ(off[0], HDR);
    CHECK_EQ(off[1], HDR + RHDR);   /* the empty record */
    char err[512];
    kv_status end;
    uint64_t roff = 0;
    CHECK_EQ(read_log(env, p, &end, &roff, err, sizeof err), NREC);
    CHECK_EQ(end, KV_END);
    CHECK_EQ(roff, off[NREC]);

    /* The header bytes are as documented. */
    size_t len;
    uint8_t *bytes = slurp(p, &len);
    CHECK_EQ(len, off[NREC]);
    CHECK(memcmp(bytes, "CELLFSWL", 8) == 0);
    CHECK_EQ(kv_get_be32(bytes + 8), 1);
    CHECK_EQ(kv_get_be32(bytes + HDR + 4), 0);
    CHECK_EQ(kv_get_be32(bytes + HDR), kv_checksum(bytes + HDR + 4, 4));
    free(bytes);

    /* A log with no records. */
    {
        kv_status wst = write_log(env, p, 0, NULL);
        REQUIRE(wst == KV_OK);
    }
    CHECK_EQ(read_log(env, p, &end, &roff, err, sizeof err), 0);
    CHECK_EQ(end, KV_END);
    CHECK_EQ(roff, HDR);
    unlink(p);
    free(p);
}

static void test_torn_tail(const char *dir) {
    kv_env *env = kv_env_posix();
    char *p = join(dir, "torn.log");
    char *q = join(dir, "torn-cut.log");
    const int n = 9;   /* the last record (8) is small; record 7 is 1 MiB */
    uint64_t off[10];
    {
        kv_status wst = write_log(env, p, n, off);
        REQUIRE(wst == KV_OK);
    }
    size_t len;
    uint8_t *bytes = slurp(p, &len);
    char err[512];
    kv_status end;
    uint64_t roff;
    int bad = 0;
    for (size_t cut = (size_t)off[n - 1]; cut < len; cut++) {
        spill(q, bytes, cut);
        int got = read_log(env, q, &end, &roff, err, sizeof err);
        if (got != n - 1 || end != KV_END || roff != off[n - 1])
            bad++;
    }
    CHECK_EQ(bad, 0);
    /* Cuts inside the 1 MiB record (every 4 KiB and around its edges). */
    bad = 0;
    for (size_t cut = (size_t)off[7]; cut < off[8]; cut += (cut < off[7] + 64 || cut + 64 > off[8]) ? 1 : 4096) {
        spill(q, bytes, cut);
        int got = read_log(env, q, &end, &roff, err, sizeof err);
        if (got != 7 || end != KV_END || roff != off[7])
            bad++;
    }
    CHECK_EQ(bad, 0);
    /* Cuts inside the file header: an empty log. */
    for (size_t cut = 0; cut < HDR; cut++) {
        spill(q, bytes, cut);
        CHECK_EQ(read_log(env, q, &end, &roff, err, sizeof err), 0);
        CHECK_EQ(end, KV_END);
        CHECK_EQ(roff, 0);
    }
    /* The last record whole in size but with damaged content: torn too. */
    uint8_t *copy = malloc(len);
    REQUIRE(copy != NULL);
    memcpy(copy, bytes, len);
    copy[len - 1] ^= 0x40;
    spill(q, copy, len);
    CHECK_EQ(read_log(env, q, &end, &roff, err, sizeof err), n - 1);
    CHECK_EQ(end, KV_END);
    free(copy);
    free(bytes);
    unlink(p);
    unlink(q);
    free(p);
    free(q);
}

static void test_corrupt_middle(const char *dir) {
    kv_env *env = kv_env_posix();
    char *p = join(dir, "mid.log");
    char *q = join(dir, "mid-bad.log");
    uint64_t off[NREC + 1];
    {
        kv_status wst = write_log(env, p, NREC, off);
        REQUIRE(wst == KV_OK);
    }
    size_t len;
    uint8_t *bytes = slurp(p, &len);
    char err[512];
    kv_status end;
    uint64_t roff;
    const int victim = 5;   /* rec_len(5) = 185 */
    REQUIRE(rec_len(victim) > 10);
    /* Flip one payload byte, a checksum byte, and the low length byte. */
    const size_t spots[] = {off[victim] + RHDR + 3, off[victim] + 1, off[victim] + 7,
                            off[victim + 1] - 1};
    for (size_t s = 0; s < sizeof spots / sizeof spots[0]; s++) {
        bytes[spots[s]] ^= 0x01;
        spill(q, bytes, len);
        bytes[spots[s]] ^= 0x01;
        err[0] = '\0';
        CHECK_EQ(read_log(env, q, &end, &roff, err, sizeof err), victim);
        CHECK_EQ(end, KV_CORRUPT);
        CHECK_EQ(roff, off[victim]);
        CHECK(strstr(err, q) != NULL);
        char at[64];
        snprintf(at, sizeof at, "offset %llu", (unsigned long long)off[victim]);
        CHECK(strstr(err, at) != NULL);
        if (!strstr(err, at))
            fprintf(stderr, "message: %s\n", err);
    }

    /* Every bit of the victim's length flipped. A flip that makes the
       length promise more than the file holds used to read as a torn tail:
       the victim and every record after it dropped without an error. */
    int missed = 0;
    for (int bit = 0; bit < 32; bit++) {
        size_t at = off[victim] + 4 + (size_t)(3 - bit / 8);
        uint8_t mask = (uint8_t)(1u << (bit % 8));
        bytes[at] ^= mask;
        spill(q, bytes, len);
        bytes[at] ^= mask;
        err[0] = '\0';
        int got = read_log(env, q, &end, &roff, err, sizeof err);
        if (got != victim || end != KV_CORRUPT || !strstr(err, q)) {
            fprintf(stderr, "length bit %d: %d records, end %d: %s\n", bit, got, (int)end, err);
            missed++;
        }
    }
    CHECK_EQ(missed, 0);
    /* The same in the last record: whole under its true length, so damage
       rather than a torn append. */
    {
        size_t at = off[NREC - 1] + 4;
        bytes[at] ^= 0x10;
        spill(q, bytes, len);
        bytes[at] ^= 0x10;
        CHECK_EQ(read_log(env, q, &end, &roff, err, sizeof err), NREC - 1);
        CHECK_EQ(end, KV_CORRUPT);
        CHECK(strstr(err, "length") != NULL);
    }

    /* Not a log: bad magic, or an unknown version. */
    bytes[0] = 'X';
    spill(q, bytes, len);
    CHECK_EQ(read_log(env, q, &end, &roff, err, sizeof err), -1);
    CHECK_EQ(end, KV_CORRUPT);
    CHECK(strstr(err, q) != NULL);
    bytes[0] = 'C';
    kv_put_be32(bytes + 8, 2);
    spill(q, bytes, len);
    CHECK_EQ(read_log(env, q, &end, &roff, err, sizeof err), -1);
    CHECK_EQ(end, KV_CORRUPT);
    CHECK(strstr(err, "version") != NULL);
    /* A short file that is not a header prefix. */
    spill(q, (const uint8_t *)"garbage", 7);
    CHECK_EQ(read_log(env, q, &end, &roff, err, sizeof err), -1);
    CHECK_EQ(end, KV_CORRUPT);
    /* Missing file. */
    unlink(q);
    CHECK_EQ(read_log(env, q, &end, &roff, err, sizeof err), -1);
    CHECK_EQ(end, KV_NOT_FOUND);

    free(bytes);
    unlink(p);
    free(p);
    free(q);
}

static void test_fault_env(const char *dir) {
    kv_fault_env *fe = kv_fault_env_new(kv_env_posix());
    REQUIRE(fe != NULL);
    kv_env *env = kv_fault_env_env(fe);
    char *p = join(dir, "fault.log");
    char err[512];
    kv_status end;
    uint64_t roff;

    /* Full disk in the middle of record 4. */
    uint64_t off[NREC + 1];
    {
        kv_status wst = write_log(env, p, 6, off);
        REQUIRE(wst == KV_OK);
    }
    kv_fault_env_set_space(fe, (int64_t)(off[4] + 5));
    kv_wal_writer *w = NULL;
    kv_status st = kv_wal_writer_open(&w, env, p, err, sizeof err);
    REQUIRE(st == KV_OK);
    uint8_t buf[512];
    for (int i = 0; i < 4; i++) {
        fill(buf, rec_len(i), i);
        CHECK_EQ(kv_wal_append(w, buf, rec_len(i), err, sizeof err), KV_OK);
    }
    fill(buf, rec_len(4), 4);
    err[0] = '\0';
    CHECK_EQ(kv_wal_append(w, buf, rec_len(4), err, sizeof err), KV_NO_SPACE);
    CHECK(strstr(err, p) != NULL);
    CHECK_EQ(kv_wal_size(w), off[4]);
    /* Refuses more, even with space again, to keep the torn record last. */
    kv_fault_env_set_space(fe, -1);
    CHECK_EQ(kv_wal_append(w, buf, 1, err, sizeof err), KV_NO_SPACE);
    CHECK_EQ(kv_wal_writer_close(w, err, sizeof err), KV_OK);
    CHECK_EQ(read_log(env, p, &end, &roff, err, sizeof err), 4);
    CHECK_EQ(end, KV_END);
    CHECK_EQ(roff, off[4]);

    /* No space even for the file header. */
    kv_fault_env_set_space(fe, 3);
    w = NULL;
    CHECK_EQ(kv_wal_writer_open(&w, env, p, err, sizeof err), KV_NO_SPACE);
    CHECK(w == NULL);
    kv_fault_env_set_space(fe, -1);
    CHECK_EQ(read_log(env, p, &end, &roff, err, sizeof err), 0);
    CHECK_EQ(end, KV_END);

    /* An injected I/O error on an append. */
    st = kv_wal_writer_open(&w, env, p, err, sizeof err);
    REQUIRE(st == KV_OK);
    kv_fault_env_fail_nth(fe, "append", 3);
    int ok = 0;
    for (int i = 0; i < 5; i++) {
        fill(buf, rec_len(i), i);
        if (kv_wal_append(w, buf, rec_len(i), err, sizeof err) == KV_OK)
            ok++;
    }
    CHECK_EQ(ok, 2);
    kv_fault_env_fail_nth(fe, "sync", 1);
    CHECK_EQ(kv_wal_sync(w, err, sizeof err), KV_IO);
    CHECK_EQ(kv_wal_writer_close(w, err, sizeof err), KV_OK);
    CHECK_EQ(read_log(env, p, &end, &roff, err, sizeof err), 2);
    CHECK_EQ(end, KV_END);

    /* Power loss keeps the synced records only. */
    st = kv_wal_writer_open(&w, env, p, err, sizeof err);
    REQUIRE(st == KV_OK);
    for (int i = 0; i < 6; i++) {
        fill(buf, rec_len(i), i);
        CHECK_EQ(kv_wal_append(w, buf, rec_len(i), err, sizeof err), KV_OK);
        if (i == 2)
            CHECK_EQ(kv_wal_sync(w, err, sizeof err), KV_OK);
    }
    CHECK_EQ(kv_fault_env_drop_unsynced(fe), KV_OK);
    CHECK_EQ(kv_wal_writer_close(w, err, sizeof err), KV_OK);
    CHECK_EQ(read_log(env, p, &end, &roff, err, sizeof err), 3);
    CHECK_EQ(end, KV_END);

    /* A failing read is an error, not the end. */
    {
        kv_status wst = write_log(env, p, 9, NULL);
        REQUIRE(wst == KV_OK);
    }
    /* The first read_at fills the read-ahead window; the 1 MiB record 7
       needs the second. */
    kv_fault_env_fail_nth(fe, "read_at", 2);
    CHECK_EQ(read_log(env, p, &end, &roff, err, sizeof err), 7);
    CHECK_EQ(end, KV_IO);
    kv_fault_env_fail_nth(fe, "read_at", 1);
    CHECK_EQ(read_log(env, p, &end, &roff, err, sizeof err), -1);
    CHECK_EQ(end, KV_IO);
    kv_fault_env_fail_nth(fe, NULL, 0);

    unlink(p);
    free(p);
    kv_fault_env_free(fe);
}

static void test_bad_args(void) {
    char err[128];
    kv_wal_writer *w = NULL;
    CHECK_EQ(kv_wal_writer_open(&w, NULL, "x", err, sizeof err), KV_INVALID);
    CHECK_EQ(kv_wal_append(NULL, "x", 1, err, sizeof err), KV_INVALID);
    CHECK_EQ(kv_wal_writer_close(NULL, err, sizeof err), KV_OK);
    kv_wal_reader_close(NULL);
    CHECK_EQ(kv_wal_size(NULL), 0);
}

int main(void) {
    char *dir = test_tmpdir("wal");
    test_round_trip(dir);
    test_torn_tail(dir);
    test_corrupt_middle(dir);
    test_fault_env(dir);
    test_bad_args();
    test_rmtree(dir);
    free(dir);
    return test_finish("test_wal");
}
