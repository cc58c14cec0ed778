/*
 * kv_mutation_reset empties a mutation for another row as kv_mutation_free
 * then kv_mutation_new would: the operations and families added before are
 * gone, the new row is the one written, and a bad row fails with
 * kv_mutation_new's codes. Through kvcore.h only.
 */
#include "kvcore.h"
#include "testutil.h"

#define MAX_ROW 32767   /* kv_mutation_new's longest row */
#define CHECK_TEXT(got, want) CHECK_BYTES(got, strlen(got), want)

static kv_store *open_store(const char *dir) {
    kv_store_options o = KV_STORE_OPTIONS_INIT;
    o.create_if_missing = true;
    char msg[300];
    kv_store *s = NULL;
    if (kv_store_open(&s, dir, &o, msg, sizeof msg) != KV_OK) {
        fprintf(stderr, "open %s: %s\n", dir, msg);
        exit(1);
    }
    kv_family_desc f[2] = {KV_FAMILY_DESC_INIT, KV_FAMILY_DESC_INIT};
    snprintf(f[0].name, sizeof f[0].name, "cf");
    snprintf(f[1].name, sizeof f[1].name, "cg");
    REQUIRE(kv_table_create(s, "t", f, 2) == KV_OK);
    REQUIRE(kv_table_create(s, "one", f, 1) == KV_OK);   /* cf only */
    return s;
}

/* The cells of row in table (all families), as "fam:q=v@ts;" text. */
static void row_text(kv_store *s, const char *table, const char *row, char *out, size_t len) {
    kv_result *r = NULL;
    REQUIRE(kv_get(&r, s, table, row, strlen(row), NULL) == KV_OK);
    out[0] = '\0';
    size_t at = 0;
    for (size_t i = 0; i < r->ncells && at < len; i++) {
        const kv_cell *c = &r->cells[i];
        at += (size_t)snprintf(out + at, len - at, "%s:%.*s=%.*s@%lld;", c->family,
                               (int)c->qualifier_len, (const char *)c->qualifier,
                               (int)c->value_len, (const char *)c->value, (long long)c->timestamp);
    }
    kv_result_free(r);
}

int main(void) {
    char *dir = test_tmpdir("mutation-reset");
    kv_store *s = open_store(dir);
    char text[512];
    kv_mutation *m = NULL;
    REQUIRE(kv_mutation_new(&m, "r1", 2) == KV_OK);
    CHECK_EQ(kv_mutation_put(m, "cf", "a", 1, 5, "v1", 2), KV_OK);
    CHECK_EQ(kv_mutation_put(m, "cg", "b", 1, 5, "w1", 2), KV_OK);
    CHECK_EQ(kv_mutate(s, "t", m, NULL), KV_OK);
    CHECK_EQ(kv_mutation_count(m), 2u);

    /* another row, one family: nothing of r1's operations comes along */
    CHECK_EQ(kv_mutation_reset(m, "r2", 2), KV_OK);
    CHECK_EQ(kv_mutation_count(m), 0u);
    CHECK_EQ(kv_mutation_put(m, "cf", "c", 1, 6, "v2", 2), KV_OK);
    CHECK_EQ(kv_mutation_count(m), 1u);
    CHECK_EQ(kv_mutate(s, "t", m, NULL), KV_OK);
    row_text(s, "t", "r2", text, sizeof text);
    CHECK_TEXT(text, "cf:c=v2@6;");
    row_text(s, "t", "r1", text, sizeof text);
    CHECK_TEXT(text, "cf:a=v1@5;cg:b=w1@5;");
    /* family cg is gone with its operation: a table without it takes m */
    CHECK_EQ(kv_mutate(s, "one", m, NULL), KV_OK);
    row_text(s, "one", "r2", text, sizeof text);
    CHECK_TEXT(text, "cf:c=v2@6;");

    /* a longer row, then a delete, applied as built */
    CHECK_EQ(kv_mutation_reset(m, "row-number-three", 16), KV_OK);
    CHECK_EQ(kv_mutation_put(m, "cg", "d", 1, 7, "x", 1), KV_OK);
    CHECK_EQ(kv_mutate(s, "t", m, NULL), KV_OK);
    CHECK_EQ(kv_mutation_reset(m, "r1", 2), KV_OK);
    CHECK_EQ(kv_mutation_delete_column(m, "cf", "a", 1, KV_LATEST_TIMESTAMP), KV_OK);
    CHECK_EQ(kv_mutate(s, "t", m, NULL), KV_OK);
    row_text(s, "t", "r1", text, sizeof text);
    CHECK_TEXT(text, "cg:b=w1@5;");
    row_text(s, "t", "row-number-three", text, sizeof text);
    CHECK_TEXT(text, "cg:d=x@7;");

    /* bad rows: kv_mutation_new's codes */
    CHECK_EQ(kv_mutation_reset(m, NULL, 0), KV_INVALID);
    CHECK_EQ(kv_mutation_reset(m, "", 0), KV_INVALID);
    char *big = calloc(MAX_ROW + 1, 1);
    REQUIRE(big);
    CHECK_EQ(kv_mutation_reset(m, big, MAX_ROW + 1), KV_TOO_LARGE);
    free(big);
    CHECK_EQ(kv_mutation_reset(NULL, "r", 1), KV_INVALID);
    kv_mutation_free(m);

    CHECK_EQ(kv_store_close(s), KV_OK);
    test_rmtree(dir);
    free(dir);
    return test_finish("test_mutation_reset");
}
