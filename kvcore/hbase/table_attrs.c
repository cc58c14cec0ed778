/**
 * @file table_attrs.c
 * Table attributes: HBase's known keys and their value rules, the sorted
 * attribute set every backend keeps, and the description block. Contracts
 * in kvcore.h and table_attrs.h; calls only libc.
 */
#include "table_attrs.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef enum { T_SIZE, T_INT, T_POSINT, T_BOOL, T_DURABILITY, T_TEXT } attr_kind;

static const struct {
    const char *key;
    attr_kind kind;
} KNOWN[] = {
    {"MAX_FILESIZE", T_SIZE},         {"MEMSTORE_FLUSHSIZE", T_SIZE},
    {"DURABILITY", T_DURABILITY},     {"READONLY", T_BOOL},
    {"COMPACTION_ENABLED", T_BOOL},   {"NORMALIZATION_ENABLED", T_BOOL},
    {"SPLIT_ENABLED", T_BOOL},        {"MERGE_ENABLED", T_BOOL},
    {"REGION_REPLICATION", T_POSINT}, {"PRIORITY", T_INT},
    {"SPLIT_POLICY", T_TEXT},         {"OWNER", T_TEXT},
    {"FLUSH_POLICY", T_TEXT},
};

static const char *const DURABILITIES[] = {"USE_DEFAULT", "SKIP_WAL", "ASYNC_WAL", "SYNC_WAL",
                                           "FSYNC_WAL"};

static int known_index(const char *key) {
    for (size_t i = 0; i < sizeof KNOWN / sizeof KNOWN[0]; i++)
        if (strcasecmp(key, KNOWN[i].key) == 0) return (int)i;
    return -1;
}

bool kv_table_attribute_known(const char *key) { return key && known_index(key) >= 0; }

static kv_status bad(char *err, size_t errlen, const char *fmt, const char *a, const char *b) {
    if (err && errlen) snprintf(err, errlen, fmt, a, b);
    return KV_INVALID;
}

/* Parses a decimal integer in [min, INT64_MAX]; 0 on success. */
static int parse_num(const char *v, int64_t min, int64_t *out) {
    if (!*v || isspace((unsigned char)*v)) return -1;
    errno = 0;
    char *end;
    long long n = strtoll(v, &end, 10);
    if (errno || *end || n < min) return -1;
    *out = n;
    return 0;
}

kv_status kv_table_attribute_check(const char *key, const char *value, char *key_out,
                                   char *value_out, char *err, size_t errlen) {
    if (!key || !*key) return bad(err, errlen, "a table attribute needs a name%s%s", "", "");
    if (strlen(key) > KV_NAME_MAX)
        return bad(err, errlen, "table attribute name '%.40s...' is longer than 255 bytes%s", key, "");
    int k = known_index(key);
    if (k >= 0) {
        strcpy(key_out, KNOWN[k].key);
    } else {
        if (strchr(key, '\n') || strchr(key, '\r'))
            return bad(err, errlen, "table attribute name '%s' holds a line break%s", key, "");
        strcpy(key_out, key);
    }
    if (!value) return KV_OK;
    if (strlen(value) > KV_TABLE_ATTR_VALUE_MAX)
        return bad(err, errlen, "the value of table attribute %s is longer than 4096 bytes%s", key_out, "");
    if (!*value && (k < 0 || KNOWN[k].kind != T_TEXT))
        return bad(err, errlen, "table attribute %s needs a value%s", key_out, "");
    attr_kind kind = k < 0 ? T_TEXT : KNOWN[k].kind;
    int64_t n;
    switch (kind) {
    case T_TEXT:
        snprintf(value_out, KV_TABLE_ATTR_VALUE_MAX + 1, "%s", value);
        return KV_OK;
    case T_SIZE:
    case T_INT:
    case T_POSINT:
        if (parse_num(value, kind == T_INT ? INT64_MIN : 1, &n))
            return bad(err, errlen, "table attribute %s takes %s", key_out,
                       kind == T_INT ? "an integer" : "a positive integer");
        snprintf(value_out, KV_TABLE_ATTR_VALUE_MAX + 1, "%" PRId64, n);
        return KV_OK;
    case T_BOOL:
        if (strcasecmp(value, "true") != 0 && strcasecmp(value, "false") != 0)
            return bad(err, errlen, "table attribute %s takes true or false, not '%s'", key_out, value);
        strcpy(value_out, strcasecmp(value, "true") == 0 ? "true" : "false");
        return KV_OK;
    case T_DURABILITY:
        for (size_t i = 0; i < sizeof DURABILITIES / sizeof DURABILITIES[0]; i++)
            if (strcasecmp(value, DURABILITIES[i]) == 0) {
                strcpy(value_out, DURABILITIES[i]);
                return KV_OK;
            }
        return bad(err, errlen, "table attribute %s takes USE_DEFAULT, SKIP_WAL, ASYNC_WAL, "
                   "SYNC_WAL or FSYNC_WAL, not '%s'", key_out, value);
    }
    return KV_INVALID;
}

static size_t find(const kv_tattrs *a, const char *key, bool *found) {
    size_t lo = 0, hi = a->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(a->p[mid].key, key);
        if (c == 0) {
            *found = true;
            return mid;
        }
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    *found = false;
    return lo;
}

kv_status kv_tattrs_put(kv_tattrs *a, const char *key, const char *value) {
    bool found;
    size_t i = find(a, key, &found);
    if (!value) {
        if (!found) return KV_OK;
        free((char *)a->p[i].key);
        free((char *)a->p[i].value);
        memmove(&a->p[i], &a->p[i + 1], (a->n - i - 1) * sizeof *a->p);
        a->n--;
        return KV_OK;
    }
    char *v = strdup(value);
    if (!v) return KV_NO_MEMORY;
    if (found) {
        free((char *)a->p[i].value);
        a->p[i].value = v;
        return KV_OK;
    }
    char *k = strdup(key);
    kv_property *p = k ? realloc(a->p, (a->n + 1) * sizeof *p) : NULL;
    if (!p) {
        free(k);
        free(v);
        return KV_NO_MEMORY;
    }
    a->p = p;
    memmove(&p[i + 1], &p[i], (a->n - i) * sizeof *p);
    p[i].key = k;
    p[i].value = v;
    a->n++;
    return KV_OK;
}

void kv_tattrs_clear(kv_tattrs *a) {
    kv_free_properties(a->p, a->n);
    a->p = NULL;
    a->n = 0;
}

kv_status kv_tattrs_apply(kv_tattrs *out, const kv_tattrs *a, const kv_property *changes,
                          size_t count, char *err, size_t errlen) {
    *out = (kv_tattrs){0};
    char key[KV_NAME_MAX + 1];
    char *value = malloc(KV_TABLE_ATTR_VALUE_MAX + 1);
    if (!value) return KV_NO_MEMORY;
    kv_status st = KV_OK;
    for (size_t i = 0; st == KV_OK && a && i < a->n; i++)
        st = kv_tattrs_put(out, a->p[i].key, a->p[i].value);
    for (size_t i = 0; st == KV_OK && i < count; i++) {
        st = kv_table_attribute_check(changes[i].key, changes[i].value, key, value, err, errlen);
        if (st == KV_OK) st = kv_tattrs_put(out, key, changes[i].value ? value : NULL);
    }
    free(value);
    if (st != KV_OK) kv_tattrs_clear(out);
    return st;
}

const char *kv_tattrs_get(const kv_tattrs *a, const char *key) {
    bool found;
    size_t i = find(a, key, &found);
    return found ? a->p[i].value : NULL;
}

bool kv_tattrs_readonly(const kv_tattrs *a) {
    const char *v = kv_tattrs_get(a, "READONLY");
    return v && strcmp(v, "true") == 0;
}

kv_durability kv_tattrs_durability(const kv_tattrs *a, kv_durability d) {
    if (d != KV_DURABILITY_DEFAULT) return d;
    const char *v = kv_tattrs_get(a, "DURABILITY");
    if (!v) return d;
    if (strcmp(v, "SKIP_WAL") == 0) return KV_SKIP_WAL;
    if (strcmp(v, "ASYNC_WAL") == 0) return KV_ASYNC_WAL;
    if (strcmp(v, "SYNC_WAL") == 0) return KV_SYNC_WAL;
    if (strcmp(v, "FSYNC_WAL") == 0) return KV_FSYNC_WAL;
    return d;
}

kv_table_desc *kv_table_desc_alloc(size_t nfamilies, const kv_tattrs *a) {
    size_t n = a ? a->n : 0, bytes = sizeof(kv_table_desc) + nfamilies * sizeof(kv_family_desc) +
                                     n * sizeof(kv_property);
    for (size_t i = 0; i < n; i++) bytes += strlen(a->p[i].key) + strlen(a->p[i].value) + 2;
    kv_table_desc *d = calloc(1, bytes);
    if (!d) return NULL;
    d->nfamilies = nfamilies;
    d->families = (kv_family_desc *)(d + 1);
    if (!n) return d;
    d->nattributes = n;
    d->attributes = (kv_property *)(d->families + nfamilies);
    char *text = (char *)(d->attributes + n);
    for (size_t i = 0; i < n; i++) {
        size_t kl = strlen(a->p[i].key) + 1, vl = strlen(a->p[i].value) + 1;
        d->attributes[i].key = memcpy(text, a->p[i].key, kl);
        d->attributes[i].value = memcpy(text + kl, a->p[i].value, vl);
        text += kl + vl;
    }
    return d;
}
