/* Unit tests of the block cache (kvcore/cache.c): byte budget, LRU order,
   the high-priority pool, handles that outlive eviction, erase_file, a
   disabled cache, and concurrent inserts and lookups. */
#include "table/cache.h"
#include "testutil.h"

#include <pthread.h>

static void *blob(size_t n, int fill) {
    void *p = malloc(n ? n : 1);
    memset(p, fill, n);
    return p;
}

static bool present(kv_cache *c, uint64_t file, uint64_t off) {
    kv_cache_handle *h = kv_cache_lookup(c, file, off);
    if (h)
        kv_cache_release(c, h);
    return h != NULL;
}

static void put(kv_cache *c, uint64_t file, uint64_t off, size_t charge, bool high) {
    kv_cache_handle *h = kv_cache_insert(c, file, off, blob(charge, (int)off), charge, charge, high);
    CHECK(h != NULL);
    kv_cache_release(c, h);
}

static void test_basic(void) {
    kv_cache *c = kv_cache_new(1000);
    REQUIRE(c);
    kv_cache_handle *h = kv_cache_insert(c, 1, 0, blob(10, 'a'), 10, 10, false);
    REQUIRE(h);
    size_t size;
    const char *d = kv_cache_data(h, &size);
    CHECK_EQ(size, 10);
    CHECK(d[0] == 'a' && d[9] == 'a');
    kv_cache_release(c, h);
    CHECK_EQ(kv_cache_usage(c), 10);
    h = kv_cache_lookup(c, 1, 0);
    REQUIRE(h);
    CHECK(((const char *)kv_cache_data(h, NULL))[5] == 'a');
    kv_cache_release(c, h);
    CHECK(kv_cache_lookup(c, 1, 1) == NULL);
    CHECK(kv_cache_lookup(c, 2, 0) == NULL);
    /* Replacing an entry with the same key. */
    h = kv_cache_insert(c, 1, 0, blob(20, 'b'), 20, 20, false);
    kv_cache_release(c, h);
    CHECK_EQ(kv_cache_usage(c), 20);
    h = kv_cache_lookup(c, 1, 0);
    REQUIRE(h);
    CHECK(((const char *)kv_cache_data(h, &size))[0] == 'b');
    CHECK_EQ(size, 20);
    kv_cache_release(c, h);
    kv_cache_free(c);
}

static void test_budget_and_lru(void) {
    kv_cache *c = kv_cache_new(1000);
    REQUIRE(c);
    for (uint64_t i = 0; i < 100; i++) {
        put(c, 7, i, 100, false);
        CHECK(kv_cache_usage(c) <= 1000);
    }
    CHECK_EQ(kv_cache_usage(c), 1000);
    /* The ten most recent survive, the others went in LRU order. */
    for (uint64_t i = 0; i < 90; i++)
        CHECK(!present(c, 7, i));
    for (uint64_t i = 90; i < 100; i++)
        CHECK(present(c, 7, i));
    /* A lookup refreshes: 90 becomes most recent, so 91 goes first. */
    CHECK(present(c, 7, 90));
    put(c, 7, 200, 100, false);
    CHECK(present(c, 7, 90));
    CHECK(!present(c, 7, 91));
    CHECK(present(c, 7, 92));
    /* An entry larger than the budget is not kept, but its handle works. */
    kv_cache_handle *h = kv_cache_insert(c, 8, 0, blob(5000, 'z'), 5000, 5000, false);
    REQUIRE(h);
    CHECK(((const char *)kv_cache_data(h, NULL))[4999] == 'z');
    CHECK(kv_cache_usage(c) <= 1000);
    kv_cache_release(c, h);
    CHECK(!present(c, 8, 0));
    kv_cache_free(c);
}

static void test_high_priority(void) {
    kv_cache *c = kv_cache_new(1000);
    REQUIRE(c);
    for (uint64_t i = 0; i < 5; i++)
        put(c, 1, i, 100, true);
    /* Many normal entries stream through; the high ones stay. */
    for (uint64_t i = 0; i < 50; i++)
        put(c, 2, i, 100, false);
    for (uint64_t i = 0; i < 5; i++)
        CHECK(present(c, 1, i));
    CHECK(present(c, 2, 49));
    CHECK(!present(c, 2, 40));
    CHECK(kv_cache_usage(c) <= 1000);
    /* With no normal entry left, high ones are evicted oldest first. */
    for (uint64_t i = 5; i < 12; i++)
        put(c, 1, i, 100, true);
    CHECK_EQ(kv_cache_usage(c), 1000);
    for (uint64_t i = 0; i < 50; i++)
        CHECK(!present(c, 2, i));
    CHECK(!present(c, 1, 0));
    CHECK(!present(c, 1, 1));
    CHECK(present(c, 1, 11));
    kv_cache_free(c);
}

static void test_handles_survive(void) {
    kv_cache *c = kv_cache_new(300);
    REQUIRE(c);
    kv_cache_handle *pinned = kv_cache_insert(c, 3, 0, blob(100, 'p'), 100, 100, false);
    REQUIRE(pinned);
    for (uint64_t i = 1; i < 20; i++)
        put(c, 3, i, 100, false);
    CHECK(!present(c, 3, 0));
    CHECK(kv_cache_usage(c) <= 300);
    const char *d = kv_cache_data(pinned, NULL);
    for (int i = 0; i < 100; i++)
        CHECK(d[i] == 'p');
    kv_cache_release(c, pinned);

    /* erase_file drops unreferenced entries of that file only. */
    put(c, 4, 0, 100, false);
    put(c, 5, 0, 100, false);
    kv_cache_handle *h = kv_cache_insert(c, 4, 1, blob(100, 'q'), 100, 100, false);
    kv_cache_erase_file(c, 4);
    CHECK(!present(c, 4, 0));
    CHECK(present(c, 5, 0));
    CHECK(((const char *)kv_cache_data(h, NULL))[0] == 'q');
    kv_cache_release(c, h);
    kv_cache_erase_file(c, 4);
    CHECK(!present(c, 4, 1));
    CHECK_EQ(kv_cache_usage(c), 100);
    kv_cache_free(c);
}

static void test_disabled(void) {
    kv_cache *c = kv_cache_new(0);
    REQUIRE(c);
    kv_cache_handle *h = kv_cache_insert(c, 1, 0, blob(10, 'x'), 10, 10, false);
    REQUIRE(h);
    CHECK(((const char *)kv_cache_data(h, NULL))[3] == 'x');
    CHECK_EQ(kv_cache_usage(c), 0);
    CHECK(kv_cache_lookup(c, 1, 0) == NULL);
    kv_cache_release(c, h);
    kv_cache_free(c);
}

typedef struct worker { kv_cache *c; int id; int errors; } worker;

static void *work(void *arg) {
    worker *w = arg;
    uint64_t x = (uint64_t)w->id * 7919 + 1;
    for (int i = 0; i < 50000; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t file = (x >> 40) % 8, off = ((x >> 20) % 512) * 4096;
        kv_cache_handle *h = kv_cache_lookup(w->c, file, off);
        if (!h) {
            uint64_t *d = malloc(64);
            for (int j = 0; j < 8; j++)
                d[j] = file ^ off;
            h = kv_cache_insert(w->c, file, off, d, 64, 4096, (x & 15) == 0);
        }
        if (!h) {
            w->errors++;
            continue;
        }
        size_t size;
        const uint64_t *d = kv_cache_data(h, &size);
        if (size != 64 || d[0] != (file ^ off) || d[7] != (file ^ off))
            w->errors++;
        kv_cache_release(w->c, h);
        if (i % 10000 == 0)
            kv_cache_erase_file(w->c, file);
    }
    return NULL;
}

static void test_threads(void) {
    size_t cap = (size_t)16 << 20;   /* enough for 16 shards */
    kv_cache *c = kv_cache_new(cap / 16);
    REQUIRE(c);
    enum { N = 8 };
    pthread_t t[N];
    worker w[N];
    for (int i = 0; i < N; i++) {
        w[i] = (worker){ c, i, 0 };
        REQUIRE(pthread_create(&t[i], NULL, work, &w[i]) == 0);
    }
    for (int i = 0; i < N; i++) {
        pthread_join(t[i], NULL);
        CHECK_EQ(w[i].errors, 0);
    }
    CHECK(kv_cache_usage(c) <= cap / 16);
    CHECK(kv_cache_usage(c) > 0);
    kv_cache_free(c);

    kv_cache *big = kv_cache_new((size_t)64 << 20);
    REQUIRE(big);
    for (int i = 0; i < N; i++) {
        w[i] = (worker){ big, i, 0 };
        REQUIRE(pthread_create(&t[i], NULL, work, &w[i]) == 0);
    }
    for (int i = 0; i < N; i++) {
        pthread_join(t[i], NULL);
        CHECK_EQ(w[i].errors, 0);
    }
    CHECK(kv_cache_usage(big) <= (size_t)64 << 20);
    kv_cache_free(big);
}

/* kv_cache_insert_reuse hands back the buffer of an entry it evicts when
   nothing else holds it, and frees nothing that a handle still uses;
   kv_cache_has_room answers whether an insert would evict. */
static void test_reuse_and_room(void) {
    kv_cache *c = kv_cache_new(1000);
    REQUIRE(c);
    CHECK(kv_cache_has_room(c, 1, 0, 1000));
    CHECK(!kv_cache_has_room(c, 1, 0, 1001));
    void *first = blob(250, 'f');
    kv_cache_handle *h = kv_cache_insert(c, 1, 0, first, 250, 250, false);
    REQUIRE(h);
    kv_cache_release(c, h);
    for (uint64_t i = 1; i < 4; i++)
        put(c, 1, i, 250, false);
    CHECK(!kv_cache_has_room(c, 1, 9, 1));
    void *spare = (void *)1;
    size_t spare_charge = 0;
    h = kv_cache_insert_reuse(c, 1, 4, blob(250, 'n'), 250, 250, false, &spare, &spare_charge);
    REQUIRE(h);
    CHECK(spare == first);   /* the oldest, its only user the table */
    CHECK_EQ(spare_charge, 250);
    CHECK(kv_cache_lookup(c, 1, 0) == NULL);
    free(spare);
    kv_cache_release(c, h);
    /* the oldest held by a handle: evicted, not handed back, still readable */
    kv_cache_handle *held = kv_cache_lookup(c, 1, 1);
    REQUIRE(held);
    for (uint64_t i = 2; i <= 4; i++)
        kv_cache_release(c, kv_cache_lookup(c, 1, i));   /* 1 is now the oldest */
    h = kv_cache_insert_reuse(c, 1, 5, blob(250, 'm'), 250, 250, false, &spare, &spare_charge);
    REQUIRE(h);
    CHECK(spare == NULL);
    CHECK(kv_cache_lookup(c, 1, 1) == NULL);
    size_t size;
    const unsigned char *d = kv_cache_data(held, &size);
    CHECK(size == 250 && d[0] == 1 && d[249] == 1);
    kv_cache_release(c, held);
    kv_cache_release(c, h);
    kv_cache_free(c);
}

int main(void) {
    test_basic();
    test_budget_and_lru();
    test_high_priority();
    test_handles_survive();
    test_disabled();
    test_threads();
    test_reuse_and_room();
    return test_finish("test_cache");
}
