/**
 * @file bt_map.c
 * HBase operations to Bigtable requests (rules in bt_map.h). Pure: builds
 * protobuf-c messages in a bt_arena and sends nothing. Called by
 * bt_client.c and the unit tests; calls bt_arena.c and protobuf-c.
 */
#include "bt_map.h"

#include <stdio.h>
#include <string.h>

#define ALLOC_OR_FAIL(p) do { if (!(p)) return bt_fail(st, BT_ERROR, "out of memory"); } while (0)

static void *new_msg(bt_arena *a, const ProtobufCMessageDescriptor *d) {
    void *m = bt_arena_alloc(a, d->sizeof_message);
    if (m) protobuf_c_message_init(d, m);
    return m;
}

/* Protobuf-c's bytes field for a caller's buffer (never written through). */
static ProtobufCBinaryData bin(const void *p, size_t n) {
    ProtobufCBinaryData b = { n, (uint8_t *)(uintptr_t)p };
    return b;
}

static int bytes_cmp(const void *a, size_t alen, const void *b, size_t blen) {
    int c = memcmp(a, b, alen < blen ? alen : blen);
    if (c) return c;
    return alen < blen ? -1 : alen > blen;
}

int64_t bt_micros_from_ms(int64_t ms) {
    if (ms < 0 || ms > INT64_MAX / 1000) return -1;
    return ms * 1000;
}

int64_t bt_ms_from_micros(int64_t micros) {
    return micros >= 0 ? micros / 1000 : -((-micros + 999) / 1000);
}

/* ---- names ---- */

static bool name_char(char c, bool first) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')
        return true;
    return !first && (c == '.' || c == '-');
}

static bool hbase_name_ok(const char *s, size_t n) {
    if (n == 0) return false;
    for (size_t i = 0; i < n; i++)
        if (!name_char(s[i], i == 0)) return false;
    return true;
}

/* Appends @p n bytes of a name part with '-' written as "-_". */
static bool put_part(char *out, size_t cap, size_t *len, const char *s, size_t n) {
    for (size_t i = 0; i < n; i++) {
        size_t need = s[i] == '-' ? 2 : 1;
        if (*len + need >= cap) return false;
        out[(*len)++] = s[i];
        if (s[i] == '-') out[(*len)++] = '_';
    }
    out[*len] = '\0';
    return true;
}

bt_code bt_table_id(char *out, size_t cap, const char *name, bt_status *st) {
    const char *colon = strchr(name, ':');
    const char *table = colon ? colon + 1 : name;
    size_t nslen = colon ? (size_t)(colon - name) : 0;
    if (colon && !hbase_name_ok(name, nslen))
        return bt_fail(st, BT_INVALID, "'%s': bad namespace name", name);
    if (!hbase_name_ok(table, strlen(table)))
        return bt_fail(st, BT_INVALID, "'%s': bad table name", name);
    bool default_ns = !colon || (nslen == 7 && memcmp(name, "default", 7) == 0);
    size_t len = 0;
    char buf[BT_MAX_TABLE_ID + 1];
    buf[0] = '\0';
    bool ok = true;
    if (!default_ns) {
        ok = put_part(buf, sizeof buf, &len, name, nslen) && len + 2 < sizeof buf;
        if (ok) {
            buf[len++] = '-';
            buf[len++] = '-';
            buf[len] = '\0';
        }
    }
    ok = ok && put_part(buf, sizeof buf, &len, table, strlen(table));
    if (!ok)
        return bt_fail(st, BT_INVALID,
                       "'%s': too long for a Bigtable table id (at most %d bytes, "
                       "with '-' counted twice and 2 for ':')", name, BT_MAX_TABLE_ID);
    if (len + 1 > cap) return bt_fail(st, BT_INVALID, "'%s': table id buffer too small", name);
    memcpy(out, buf, len + 1);
    bt_status_ok(st);
    return BT_OK;
}

bt_code bt_table_name(char *out, size_t cap, const char *id, bt_status *st) {
    char ns[BT_MAX_TABLE_ID + 1], table[BT_MAX_TABLE_ID + 1];
    size_t nslen = 0, tlen = 0;
    bool has_ns = false;
    size_t idlen = strlen(id);
    if (idlen == 0 || idlen > BT_MAX_TABLE_ID)
        return bt_fail(st, BT_INVALID, "'%s': not a table id of ours", id);
    for (size_t i = 0; i < idlen; i++) {
        char c = id[i];
        if (c == '-') {
            char next = id[i + 1];
            i++;
            if (next == '_') c = '-';
            else if (next == '-' && !has_ns) {
                memcpy(ns, table, tlen);
                nslen = tlen;
                tlen = 0;
                has_ns = true;
                continue;
            } else return bt_fail(st, BT_INVALID, "'%s': not a table id of ours", id);
        }
        table[tlen++] = c;
    }
    if ((has_ns && !hbase_name_ok(ns, nslen)) || !hbase_name_ok(table, tlen) ||
        (has_ns && nslen == 7 && memcmp(ns, "default", 7) == 0))
        return bt_fail(st, BT_INVALID, "'%s': not a table id of ours", id);
    size_t need = (has_ns ? nslen + 1 : 0) + tlen + 1;
    if (need > cap) return bt_fail(st, BT_INVALID, "'%s': name buffer too small", id);
    snprintf(out, cap, "%.*s%s%.*s", has_ns ? (int)nslen : 0, ns, has_ns ? ":" : "", (int)tlen,
             table);
    bt_status_ok(st);
    return BT_OK;
}

bt_code bt_check_family(const char *family, bt_status *st) {
    size_t n = family ? strlen(family) : 0;
    if (n == 0 || n > BT_MAX_FAMILY_NAME)
        return bt_fail(st, BT_INVALID, "family '%s': Bigtable family names are 1 to %d bytes",
                       family ? family : "", BT_MAX_FAMILY_NAME);
    for (size_t i = 0; i < n; i++)
        if (!name_char(family[i], false))
            return bt_fail(st, BT_INVALID,
                           "family '%s': Bigtable family names allow only [-_.a-zA-Z0-9]", family);
    bt_status_ok(st);
    return BT_OK;
}

bt_code bt_check_row(const void *row, size_t len, bt_status *st) {
    (void)row;
    if (len == 0) return bt_fail(st, BT_INVALID, "empty row key");
    if (len > BT_MAX_ROW_KEY)
        return bt_fail(st, BT_INVALID, "row key of %zu bytes: Bigtable allows at most %d", len,
                       BT_MAX_ROW_KEY);
    bt_status_ok(st);
    return BT_OK;
}

static bt_code check_cell(const char *family, size_t qlen, size_t vlen, bt_status *st) {
    if (bt_check_family(family, st) != BT_OK) return st ? st->code : BT_INVALID;
    if (qlen > BT_MAX_QUALIFIER)
        return bt_fail(st, BT_INVALID, "qualifier of %zu bytes: Bigtable allows at most %d", qlen,
                       BT_MAX_QUALIFIER);
    if (vlen > BT_MAX_VALUE)
        return bt_fail(st, BT_INVALID, "value of %zu bytes: Bigtable allows at most %d", vlen,
                       BT_MAX_VALUE);
    return BT_OK;
}

/* ---- families ---- */

bt_code bt_map_gc_rule(Btpb__GcRule **out, bt_arena *a, const bt_family_rules *f,
                       bt_status *st) {
    *out = NULL;
    if (bt_check_family(f->name, st) != BT_OK) return BT_INVALID;
    if (f->max_versions < 0)
        return bt_fail(st, BT_INVALID, "family '%s': VERSIONS must be positive", f->name);
    if (f->keep_deleted)
        return bt_fail(st, BT_UNSUPPORTED,
                       "family '%s': KEEP_DELETED_CELLS cannot be expressed: Bigtable deletes "
                       "cells at once and keeps no delete markers", f->name);
    bool ttl = f->ttl_seconds > 0;
    if (f->min_versions > 0 && ttl)
        return bt_fail(st, BT_UNSUPPORTED,
                       "family '%s': MIN_VERSIONS with a TTL cannot be expressed: reads could "
                       "not keep the newest versions past the TTL", f->name);
    Btpb__GcRule *versions = NULL, *age = NULL;
    if (f->max_versions > 0) {
        ALLOC_OR_FAIL(versions = new_msg(a, &btpb__gc_rule__descriptor));
        versions->rule_case = BTPB__GC_RULE__RULE_MAX_NUM_VERSIONS;
        versions->max_num_versions = f->max_versions;
    }
    if (ttl) {
        ALLOC_OR_FAIL(age = new_msg(a, &btpb__gc_rule__descriptor));
        Btpb__Duration *d;
        ALLOC_OR_FAIL(d = new_msg(a, &btpb__duration__descriptor));
        d->seconds = f->ttl_seconds;
        age->rule_case = BTPB__GC_RULE__RULE_MAX_AGE;
        age->max_age = d;
    }
    bt_status_ok(st);
    if (!versions || !age) {
        *out = versions ? versions : age;
        return BT_OK;
    }
    Btpb__GcRule *u;
    Btpb__GcRule__Union *un;
    Btpb__GcRule **rules;
    ALLOC_OR_FAIL(u = new_msg(a, &btpb__gc_rule__descriptor));
    ALLOC_OR_FAIL(un = new_msg(a, &btpb__gc_rule__union__descriptor));
    ALLOC_OR_FAIL(rules = bt_arena_alloc(a, 2 * sizeof *rules));
    rules[0] = versions;
    rules[1] = age;
    un->n_rules = 2;
    un->rules = rules;
    u->rule_case = BTPB__GC_RULE__RULE_UNION;
    u->union_ = un;
    *out = u;
    return BT_OK;
}

static bt_code parse_simple_rule(bt_family_rules *f, const Btpb__GcRule *r, bt_status *st) {
    switch (r->rule_case) {
    case BTPB__GC_RULE__RULE_MAX_NUM_VERSIONS:
        f->max_versions = r->max_num_versions;
        return BT_OK;
    case BTPB__GC_RULE__RULE_MAX_AGE:
        /* Bigtable keeps microseconds; HBase's TTL is whole seconds. */
        f->ttl_seconds = r->max_age ? r->max_age->seconds + (r->max_age->nanos > 0) : 0;
        return BT_OK;
    default:
        return bt_fail(st, BT_UNSUPPORTED,
                       "family '%s': its GC rule has no HBase equivalent (only VERSIONS, TTL "
                       "and their union map)", f->name ? f->name : "");
    }
}

bt_code bt_parse_gc_rule(bt_family_rules *f, const Btpb__GcRule *rule, bt_status *st) {
    f->max_versions = 0;
    f->ttl_seconds = 0;
    bt_status_ok(st);
    if (!rule || rule->rule_case == BTPB__GC_RULE__RULE__NOT_SET) return BT_OK;
    if (rule->rule_case != BTPB__GC_RULE__RULE_UNION) return parse_simple_rule(f, rule, st);
    const Btpb__GcRule__Union *u = rule->union_;
    for (size_t i = 0; u && i < u->n_rules; i++)
        if (parse_simple_rule(f, u->rules[i], st) != BT_OK) return BT_UNSUPPORTED;
    return BT_OK;
}

bt_code bt_map_create_table(Btpb__CreateTableRequest **out, bt_arena *a, const char *parent,
                            const char *table_id, const bt_family_rules *families, size_t n,
                            bt_status *st) {
    *out = NULL;
    Btpb__CreateTableRequest *r;
    Btpb__Table *t;
    Btpb__Table__ColumnFamiliesEntry **entries = NULL;
    ALLOC_OR_FAIL(r = new_msg(a, &btpb__create_table_request__descriptor));
    ALLOC_OR_FAIL(t = new_msg(a, &btpb__table__descriptor));
    if (n) ALLOC_OR_FAIL(entries = bt_arena_alloc(a, n * sizeof *entries));
    for (size_t i = 0; i < n; i++) {
        Btpb__ColumnFamily *cf;
        ALLOC_OR_FAIL(entries[i] = new_msg(a, &btpb__table__column_families_entry__descriptor));
        ALLOC_OR_FAIL(cf = new_msg(a, &btpb__column_family__descriptor));
        bt_code rc = bt_map_gc_rule(&cf->gc_rule, a, &families[i], st);
        if (rc != BT_OK) return rc;
        entries[i]->key = (char *)families[i].name;
        entries[i]->value = cf;
    }
    t->n_column_families = n;
    t->column_families = entries;
    r->parent = (char *)parent;
    r->table_id = (char *)table_id;
    r->table = t;
    *out = r;
    bt_status_ok(st);
    return BT_OK;
}

/* ---- mutations ---- */

static Btpb__TimestampRange *ts_range(bt_arena *a, int64_t start_us, int64_t end_us) {
    Btpb__TimestampRange *r = new_msg(a, &btpb__timestamp_range__descriptor);
    if (r) {
        r->start_timestamp_micros = start_us;
        r->end_timestamp_micros = end_us;
    }
    return r;
}

/* Microseconds of a mutation's timestamp, with a clear refusal. */
static bt_code op_micros(int64_t *us, int64_t ts, int64_t now_ms, const char *what,
                         bt_status *st) {
    int64_t ms = ts == BT_TS_NONE ? now_ms : ts;
    if (ms < 0) return bt_fail(st, BT_UNSUPPORTED, "%s: negative timestamps cannot be stored "
                                                   "in Bigtable", what);
    if ((*us = bt_micros_from_ms(ms)) < 0 || *us > INT64_MAX - 1000)
        return bt_fail(st, BT_INVALID, "%s: timestamp %lld out of range", what, (long long)ms);
    return BT_OK;
}

static bt_code map_one(Btpb__Mutation *m, bt_arena *a, const bt_hop *op, int64_t now_ms,
                       bt_status *st) {
    int64_t us = 0;   /* set by op_micros whenever it returns BT_OK */
    bt_code rc;
    if (op->kind != BT_HOP_DELETE_ROW &&
        (rc = check_cell(op->family, op->qualifier_len, op->value_len, st)) != BT_OK)
        return rc;
    switch (op->kind) {
    case BT_HOP_PUT: {
        if ((rc = op_micros(&us, op->ts, now_ms, "put", st)) != BT_OK) return rc;
        Btpb__Mutation__SetCell *s;
        ALLOC_OR_FAIL(s = new_msg(a, &btpb__mutation__set_cell__descriptor));
        s->family_name = (char *)op->family;
        s->column_qualifier = bin(op->qualifier, op->qualifier_len);
        s->timestamp_micros = us;
        s->value = bin(op->value, op->value_len);
        m->mutation_case = BTPB__MUTATION__MUTATION_SET_CELL;
        m->set_cell = s;
        return BT_OK;
    }
    case BT_HOP_DELETE_VERSION:
    case BT_HOP_DELETE_COLUMN: {
        if (op->kind == BT_HOP_DELETE_VERSION && op->ts == BT_TS_NONE)
            return bt_fail(st, BT_UNSUPPORTED,
                           "delete of the newest version of a column: Bigtable can only "
                           "delete given timestamps, and reading the newest first is not atomic");
        if ((rc = op_micros(&us, op->ts, now_ms, "delete", st)) != BT_OK) return rc;
        Btpb__Mutation__DeleteFromColumn *d;
        ALLOC_OR_FAIL(d = new_msg(a, &btpb__mutation__delete_from_column__descriptor));
        d->family_name = (char *)op->family;
        d->column_qualifier = bin(op->qualifier, op->qualifier_len);
        /* One version: [ts, ts + 1 ms). Up to ts: [0, ts + 1 ms). */
        ALLOC_OR_FAIL(d->time_range =
                          ts_range(a, op->kind == BT_HOP_DELETE_VERSION ? us : 0, us + 1000));
        m->mutation_case = BTPB__MUTATION__MUTATION_DELETE_FROM_COLUMN;
        m->delete_from_column = d;
        return BT_OK;
    }
    case BT_HOP_DELETE_FAMILY: {
        if (op->ts != BT_TS_NONE)
            return bt_fail(st, BT_UNSUPPORTED,
                           "delete of family '%s' up to a timestamp: Bigtable deletes a whole "
                           "family only, and has no markers to bound it", op->family);
        Btpb__Mutation__DeleteFromFamily *d;
        ALLOC_OR_FAIL(d = new_msg(a, &btpb__mutation__delete_from_family__descriptor));
        d->family_name = (char *)op->family;
        m->mutation_case = BTPB__MUTATION__MUTATION_DELETE_FROM_FAMILY;
        m->delete_from_family = d;
        return BT_OK;
    }
    case BT_HOP_DELETE_FAMILY_VERSION:
        return bt_fail(st, BT_UNSUPPORTED,
                       "DeleteFamilyVersion of family '%s': Bigtable cannot delete every column "
                       "at one timestamp without reading the columns first", op->family);
    case BT_HOP_DELETE_ROW: {
        if (op->ts != BT_TS_NONE)
            return bt_fail(st, BT_UNSUPPORTED,
                           "delete of a row up to a timestamp: Bigtable deletes whole rows only, "
                           "and has no markers to bound it");
        Btpb__Mutation__DeleteFromRow *d;
        ALLOC_OR_FAIL(d = new_msg(a, &btpb__mutation__delete_from_row__descriptor));
        m->mutation_case = BTPB__MUTATION__MUTATION_DELETE_FROM_ROW;
        m->delete_from_row = d;
        return BT_OK;
    }
    }
    return bt_fail(st, BT_INVALID, "unknown mutation kind %d", (int)op->kind);
}

bt_code bt_map_mutations(Btpb__Mutation ***out, size_t *nout, bt_arena *a, const bt_hop *ops,
                         size_t n, int64_t now_ms, bt_status *st) {
    *out = NULL;
    *nout = 0;
    if (n == 0) return bt_fail(st, BT_INVALID, "empty mutation");
    Btpb__Mutation **ms;
    ALLOC_OR_FAIL(ms = bt_arena_alloc(a, n * sizeof *ms));
    for (size_t i = 0; i < n; i++) {
        ALLOC_OR_FAIL(ms[i] = new_msg(a, &btpb__mutation__descriptor));
        bt_code rc = map_one(ms[i], a, &ops[i], now_ms, st);
        if (rc != BT_OK) return rc;
    }
    *out = ms;
    *nout = n;
    bt_status_ok(st);
    return BT_OK;
}

bt_code bt_map_mutate_row(Btpb__MutateRowRequest **out, bt_arena *a, const char *table_name,
                          const void *row, size_t row_len, const bt_hop *ops, size_t n,
                          int64_t now_ms, bt_status *st) {
    *out = NULL;
    if (bt_check_row(row, row_len, st) != BT_OK) return BT_INVALID;
    Btpb__MutateRowRequest *r;
    ALLOC_OR_FAIL(r = new_msg(a, &btpb__mutate_row_request__descriptor));
    bt_code rc = bt_map_mutations(&r->mutations, &r->n_mutations, a, ops, n, now_ms, st);
    if (rc != BT_OK) return rc;
    r->table_name = (char *)table_name;
    r->row_key = bin(row, row_len);
    *out = r;
    return BT_OK;
}

/* ---- read-modify-write ---- */

static bt_code map_rmw(Btpb__ReadModifyWriteRowRequest **out, Btpb__ReadModifyWriteRule **rule,
                       bt_arena *a, const char *table_name, const void *row, size_t row_len,
                       const char *family, const void *qualifier, size_t qualifier_len,
                       bt_status *st) {
    *out = NULL;
    if (bt_check_row(row, row_len, st) != BT_OK) return BT_INVALID;
    bt_code rc = check_cell(family, qualifier_len, 0, st);
    if (rc != BT_OK) return rc;
    Btpb__ReadModifyWriteRowRequest *r;
    Btpb__ReadModifyWriteRule **rules;
    ALLOC_OR_FAIL(r = new_msg(a, &btpb__read_modify_write_row_request__descriptor));
    ALLOC_OR_FAIL(rules = bt_arena_alloc(a, sizeof *rules));
    ALLOC_OR_FAIL(rules[0] = new_msg(a, &btpb__read_modify_write_rule__descriptor));
    rules[0]->family_name = (char *)family;
    rules[0]->column_qualifier = bin(qualifier, qualifier_len);
    r->table_name = (char *)table_name;
    r->row_key = bin(row, row_len);
    r->n_rules = 1;
    r->rules = rules;
    *rule = rules[0];
    *out = r;
    bt_status_ok(st);
    return BT_OK;
}

bt_code bt_map_increment(Btpb__ReadModifyWriteRowRequest **out, bt_arena *a,
                         const char *table_name, const void *row, size_t row_len,
                         const char *family, const void *qualifier, size_t qualifier_len,
                         int64_t delta, bt_status *st) {
    Btpb__ReadModifyWriteRule *rule;
    bt_code rc = map_rmw(out, &rule, a, table_name, row, row_len, family, qualifier,
                         qualifier_len, st);
    if (rc != BT_OK) return rc;
    rule->rule_case = BTPB__READ_MODIFY_WRITE_RULE__RULE_INCREMENT_AMOUNT;
    rule->increment_amount = delta;
    return BT_OK;
}

bt_code bt_map_append(Btpb__ReadModifyWriteRowRequest **out, bt_arena *a,
                      const char *table_name, const void *row, size_t row_len,
                      const char *family, const void *qualifier, size_t qualifier_len,
                      const void *data, size_t data_len, bt_status *st) {
    Btpb__ReadModifyWriteRule *rule;
    bt_code rc = map_rmw(out, &rule, a, table_name, row, row_len, family, qualifier,
                         qualifier_len, st);
    if (rc != BT_OK) return rc;
    rule->rule_case = BTPB__READ_MODIFY_WRITE_RULE__RULE_APPEND_VALUE;
    rule->append_value = bin(data, data_len);
    return BT_OK;
}

/* ---- filters ---- */

static Btpb__RowFilter *filter_new(bt_arena *a, Btpb__RowFilter__FilterCase c) {
    Btpb__RowFilter *f = new_msg(a, &btpb__row_filter__descriptor);
    if (f) f->filter_case = c;
    return f;
}

/* A chain or interleave of @p n filters; the filter itself when n == 1. */
static Btpb__RowFilter *filter_combine(bt_arena *a, Btpb__RowFilter__FilterCase c,
                                       Btpb__RowFilter **fs, size_t n) {
    if (n == 1) return fs[0];
    Btpb__RowFilter *f = filter_new(a, c);
    Btpb__RowFilter **copy = bt_arena_dup(a, fs, n * sizeof *fs);
    if (!f || !copy) return NULL;
    if (c == BTPB__ROW_FILTER__FILTER_CHAIN) {
        Btpb__RowFilter__Chain *ch = new_msg(a, &btpb__row_filter__chain__descriptor);
        if (!ch) return NULL;
        ch->n_filters = n;
        ch->filters = copy;
        f->chain = ch;
    } else {
        Btpb__RowFilter__Interleave *il = new_msg(a, &btpb__row_filter__interleave__descriptor);
        if (!il) return NULL;
        il->n_filters = n;
        il->filters = copy;
        f->interleave = il;
    }
    return f;
}

/* RE2 full-match pattern for a literal family name: every character that
 * is not a letter, digit or '_' is escaped. */
static char *family_regex(bt_arena *a, const char *family) {
    size_t n = strlen(family);
    char *re = bt_arena_alloc(a, 2 * n + 1);
    if (!re) return NULL;
    char *p = re;
    for (size_t i = 0; i < n; i++) {
        if (!name_char(family[i], true)) *p++ = '\\';
        *p++ = family[i];
    }
    *p = '\0';
    return re;
}

/* Exactly one column: ColumnRange [q, q] in the family. */
static Btpb__RowFilter *column_filter(bt_arena *a, const char *family, const void *q,
                                      size_t qlen) {
    Btpb__RowFilter *f = filter_new(a, BTPB__ROW_FILTER__FILTER_COLUMN_RANGE_FILTER);
    Btpb__ColumnRange *r = new_msg(a, &btpb__column_range__descriptor);
    if (!f || !r) return NULL;
    r->family_name = (char *)family;
    r->start_qualifier_case = BTPB__COLUMN_RANGE__START_QUALIFIER_START_QUALIFIER_CLOSED;
    r->start_qualifier_closed = bin(q, qlen);
    r->end_qualifier_case = BTPB__COLUMN_RANGE__END_QUALIFIER_END_QUALIFIER_CLOSED;
    r->end_qualifier_closed = bin(q, qlen);
    f->column_range_filter = r;
    return f;
}

static Btpb__RowFilter *limit_filter(bt_arena *a, int n) {
    Btpb__RowFilter *f = filter_new(a, BTPB__ROW_FILTER__FILTER_CELLS_PER_COLUMN_LIMIT_FILTER);
    if (f) f->cells_per_column_limit_filter = n;
    return f;
}

/* The first live timestamp of a family at @p now_ms (HBase: a cell is
 * expired when ts < now - TTL), or 0 when it has no TTL. */
static int64_t ttl_floor_ms(const bt_family_rules *f, int64_t now_ms) {
    if (f->ttl_seconds <= 0 || f->ttl_seconds > INT64_MAX / 1000) return 0;
    int64_t floor = now_ms - f->ttl_seconds * 1000;
    return floor > 0 ? floor : 0;
}

/* A timestamp filter for [lo_ms, hi_ms) (hi BT_TS_NONE: no end). Sets
 * *empty when the range holds nothing; returns NULL with *empty false when
 * no filter is needed, or when out of memory (*oom). */
static Btpb__RowFilter *time_filter(bt_arena *a, int64_t lo_ms, int64_t hi_ms, bool *empty,
                                    bool *oom) {
    *empty = *oom = false;
    if (lo_ms < 0) lo_ms = 0;
    if (hi_ms != BT_TS_NONE && hi_ms <= lo_ms) {
        *empty = true;
        return NULL;
    }
    /* An end beyond what microseconds can say is no end. */
    int64_t hi_us = hi_ms == BT_TS_NONE ? 0 : bt_micros_from_ms(hi_ms);
    if (hi_us < 0) hi_us = 0;
    if (lo_ms == 0 && hi_us == 0) return NULL;
    int64_t lo_us = bt_micros_from_ms(lo_ms);
    if (lo_us < 0) {
        *empty = true;
        return NULL;
    }
    Btpb__RowFilter *f = filter_new(a, BTPB__ROW_FILTER__FILTER_TIMESTAMP_RANGE_FILTER);
    if (!f || !(f->timestamp_range_filter = ts_range(a, lo_us, hi_us))) *oom = true;
    return *oom ? NULL : f;
}

/* The filter for one family of a read; NULL with *skip when the family
 * can return nothing. */
static bt_code family_branch(Btpb__RowFilter **out, bool *skip, bt_arena *a,
                             const bt_family_rules *f, const bt_read_spec *spec, int64_t now_ms,
                             bt_status *st) {
    *out = NULL;
    *skip = false;
    Btpb__RowFilter *parts[6];
    size_t np = 0;
    /* Columns: the whole family, or the selected qualifiers. */
    bool whole = spec->ncolumns == 0;
    size_t nq = 0;
    for (size_t i = 0; i < spec->ncolumns; i++) {
        if (strcmp(spec->columns[i].family, f->name) != 0) continue;
        if (!spec->columns[i].qualifier) whole = true;
        else nq++;
    }
    if (!whole && nq == 0) {
        *skip = true;
        return BT_OK;
    }
    if (whole) {
        ALLOC_OR_FAIL(parts[np] = filter_new(a, BTPB__ROW_FILTER__FILTER_FAMILY_NAME_REGEX_FILTER));
        ALLOC_OR_FAIL(parts[np]->family_name_regex_filter = family_regex(a, f->name));
        np++;
    } else {
        Btpb__RowFilter **cols;
        ALLOC_OR_FAIL(cols = bt_arena_alloc(a, nq * sizeof *cols));
        size_t k = 0;
        for (size_t i = 0; i < spec->ncolumns; i++) {
            const bt_column *c = &spec->columns[i];
            if (strcmp(c->family, f->name) != 0) continue;
            if (c->qualifier_len > BT_MAX_QUALIFIER)
                return bt_fail(st, BT_INVALID, "qualifier of %zu bytes: Bigtable allows at most "
                                               "%d", c->qualifier_len, BT_MAX_QUALIFIER);
            ALLOC_OR_FAIL(cols[k++] = column_filter(a, f->name, c->qualifier, c->qualifier_len));
        }
        ALLOC_OR_FAIL(parts[np++] = filter_combine(a, BTPB__ROW_FILTER__FILTER_INTERLEAVE, cols, nq));
    }
    /* Time: the read's range cut by the TTL, which GC applies lazily. */
    int64_t lo = spec->min_ts, floor = ttl_floor_ms(f, now_ms);
    if (floor > lo) lo = floor;
    bool empty, oom;
    Btpb__RowFilter *tf = time_filter(a, lo, spec->max_ts, &empty, &oom);
    if (oom) return bt_fail(st, BT_ERROR, "out of memory");
    if (empty) {
        *skip = true;
        return BT_OK;
    }
    if (tf) parts[np++] = tf;
    /* Versions: counted after the time filter, as HBase counts them. */
    int v = spec->max_versions;
    if (f->max_versions > 0 && f->max_versions < v) v = f->max_versions;
    ALLOC_OR_FAIL(parts[np++] = limit_filter(a, v));
    if (spec->first_cell_per_family) {
        /* Within one family the server's order is the cell order (qualifier,
           newest first), so its first cell is the family's first. */
        ALLOC_OR_FAIL(parts[np] = filter_new(a, BTPB__ROW_FILTER__FILTER_CELLS_PER_ROW_LIMIT_FILTER));
        parts[np++]->cells_per_row_limit_filter = 1;
    }
    if (spec->keys_only) {
        ALLOC_OR_FAIL(parts[np] = filter_new(a, BTPB__ROW_FILTER__FILTER_STRIP_VALUE_TRANSFORMER));
        parts[np++]->strip_value_transformer = true;
    }
    ALLOC_OR_FAIL(*out = filter_combine(a, BTPB__ROW_FILTER__FILTER_CHAIN, parts, np));
    return BT_OK;
}

/* The first key after every key starting with @p p (NULL when none: the
 * prefix is all 0xff bytes). */
static uint8_t *prefix_end(bt_arena *a, const uint8_t *p, size_t n, size_t *len) {
    while (n > 0 && p[n - 1] == 0xff) n--;
    if (n == 0) return NULL;
    uint8_t *e = bt_arena_dup(a, p, n);
    if (e) e[n - 1]++;
    *len = n;
    return e;
}

/* One end of a row range: a key (NULL: unbounded) and whether the key
 * itself is in the range. */
typedef struct bound {
    const uint8_t *key;
    size_t len;
    bool closed;
} bound;

/* The tighter of two lower (@p lower) or upper bounds; on equal keys the
 * open one, which excludes the key. */
static bound tighter(bound x, bound y, bool lower) {
    if (!x.key) return y;
    if (!y.key) return x;
    int c = bytes_cmp(x.key, x.len, y.key, y.len);
    if (c == 0) return x.closed ? y : x;
    return (lower ? c > 0 : c < 0) ? x : y;
}

/* The row set of a scan: the range between its start and stop rows (for a
 * reversed scan, HBase's start is the inclusive top and stop the exclusive
 * bottom), intersected with [prefix, prefix end). */
static bt_code scan_rows(Btpb__RowSet **out, bool *empty, bt_arena *a, const bt_read_spec *spec,
                         bt_status *st) {
    *out = NULL;
    *empty = false;
    /* An empty start or stop row means no bound, as in HBase. */
    bound start = { spec->start_len ? spec->start : NULL, spec->start_len, true };
    bound stop = { spec->stop_len ? spec->stop : NULL, spec->stop_len, false };
    bound lo = spec->reversed ? stop : start, hi = spec->reversed ? start : stop;
    if (spec->prefix && spec->prefix_len) {
        bound plo = { spec->prefix, spec->prefix_len, true }, phi = { NULL, 0, false };
        phi.key = prefix_end(a, spec->prefix, spec->prefix_len, &phi.len);
        lo = tighter(lo, plo, true);
        hi = tighter(hi, phi, false);
    }
    if (lo.key && hi.key) {
        int c = bytes_cmp(lo.key, lo.len, hi.key, hi.len);
        if (c > 0 || (c == 0 && !(lo.closed && hi.closed))) {
            *empty = true;
            return BT_OK;
        }
    }
    if (!lo.key && !hi.key) return BT_OK; /* every row: leave rows unset */
    Btpb__RowSet *rs;
    Btpb__RowRange *r;
    ALLOC_OR_FAIL(rs = new_msg(a, &btpb__row_set__descriptor));
    ALLOC_OR_FAIL(r = new_msg(a, &btpb__row_range__descriptor));
    ALLOC_OR_FAIL(rs->row_ranges = bt_arena_alloc(a, sizeof *rs->row_ranges));
    if (lo.key) {
        r->start_key_case = lo.closed ? BTPB__ROW_RANGE__START_KEY_START_KEY_CLOSED
                                      : BTPB__ROW_RANGE__START_KEY_START_KEY_OPEN;
        r->start_key_closed = bin(lo.key, lo.len); /* same storage as the open key */
    }
    if (hi.key) {
        r->end_key_case = hi.closed ? BTPB__ROW_RANGE__END_KEY_END_KEY_CLOSED
                                    : BTPB__ROW_RANGE__END_KEY_END_KEY_OPEN;
        r->end_key_open = bin(hi.key, hi.len);
    }
    rs->row_ranges[0] = r;
    rs->n_row_ranges = 1;
    *out = rs;
    return BT_OK;
}

bt_code bt_map_read(Btpb__ReadRowsRequest **out, bt_arena *a, const char *table_name,
                    const bt_read_spec *spec, int64_t now_ms, bt_status *st) {
    *out = NULL;
    if (spec->max_versions < 1) return bt_fail(st, BT_INVALID, "VERSIONS must be at least 1");
    if (spec->limit < 0) return bt_fail(st, BT_INVALID, "negative row limit");
    for (size_t i = 0; i < spec->ncolumns; i++) {
        bool known = false;
        for (size_t j = 0; j < spec->nfamilies && !known; j++)
            known = strcmp(spec->columns[i].family, spec->families[j].name) == 0;
        if (!known)
            return bt_fail(st, BT_INVALID, "unknown column family '%s'", spec->columns[i].family);
    }
    Btpb__ReadRowsRequest *r;
    ALLOC_OR_FAIL(r = new_msg(a, &btpb__read_rows_request__descriptor));
    r->table_name = (char *)table_name;
    r->rows_limit = spec->limit;
    r->reversed = spec->reversed;
    bool empty = false;
    if (spec->row) {
        if (bt_check_row(spec->row, spec->row_len, st) != BT_OK) return BT_INVALID;
        ALLOC_OR_FAIL(r->rows = new_msg(a, &btpb__row_set__descriptor));
        ALLOC_OR_FAIL(r->rows->row_keys = bt_arena_alloc(a, sizeof *r->rows->row_keys));
        r->rows->row_keys[0] = bin(spec->row, spec->row_len);
        r->rows->n_row_keys = 1;
    } else {
        bt_code rc = scan_rows(&r->rows, &empty, a, spec, st);
        if (rc != BT_OK) return rc;
    }
    if (empty) goto nothing;
    Btpb__RowFilter **branches = NULL;
    if (spec->nfamilies) ALLOC_OR_FAIL(branches = bt_arena_alloc(a, spec->nfamilies * sizeof *branches));
    size_t nb = 0;
    for (size_t i = 0; i < spec->nfamilies; i++) {
        bool skip;
        bt_code rc = family_branch(&branches[nb], &skip, a, &spec->families[i], spec, now_ms, st);
        if (rc != BT_OK) return rc;
        if (!skip) nb++;
    }
    if (nb == 0) goto nothing;
    ALLOC_OR_FAIL(r->filter = filter_combine(a, BTPB__ROW_FILTER__FILTER_INTERLEAVE, branches, nb));
    size_t fsize = protobuf_c_message_get_packed_size(&r->filter->base);
    if (fsize > BT_MAX_FILTER_BYTES)
        return bt_fail(st, BT_INVALID, "the read's filter takes %zu bytes; Bigtable allows %d "
                                       "(select fewer columns)", fsize, BT_MAX_FILTER_BYTES);
    *out = r;
    bt_status_ok(st);
    return BT_OK;
nothing:
    bt_status_ok(st);
    return BT_OK;
}

/* One end of a row range: its key (NULL: unbounded) and *closed. */
static const ProtobufCBinaryData *range_key(const Btpb__RowRange *r, bool start, bool *closed) {
    if (start) {
        *closed = r->start_key_case == BTPB__ROW_RANGE__START_KEY_START_KEY_CLOSED;
        return *closed || r->start_key_case == BTPB__ROW_RANGE__START_KEY_START_KEY_OPEN
                   ? &r->start_key_closed : NULL;   /* one storage for both cases */
    }
    *closed = r->end_key_case == BTPB__ROW_RANGE__END_KEY_END_KEY_CLOSED;
    return *closed || r->end_key_case == BTPB__ROW_RANGE__END_KEY_END_KEY_OPEN ? &r->end_key_open
                                                                               : NULL;
}

/* What of @p rows remains after a read delivered every row up to @p last
 * in its direction: ascending (reversed false) or descending. Compared in
 * the read's direction (sign), "done" and "remaining" are the same rules
 * both ways: a single key is remaining when it lies beyond last; a range
 * whose far end is not beyond last is done; one whose near end is not
 * beyond last starts (open) at last. */
static bt_code rows_past(Btpb__RowSet **out, bool *empty, bt_arena *a, const Btpb__RowSet *rows,
                         const void *last, size_t last_len, bool reversed, bt_status *st) {
    *out = NULL;
    *empty = false;
    int sign = reversed ? -1 : 1;
    Btpb__RowSet *rs;
    ALLOC_OR_FAIL(rs = new_msg(a, &btpb__row_set__descriptor));
    size_t nk = rows ? rows->n_row_keys : 0, nr = rows ? rows->n_row_ranges : 1;
    if (nk) ALLOC_OR_FAIL(rs->row_keys = bt_arena_alloc(a, nk * sizeof *rs->row_keys));
    if (nr) ALLOC_OR_FAIL(rs->row_ranges = bt_arena_alloc(a, nr * sizeof *rs->row_ranges));
    for (size_t i = 0; i < nk; i++)
        if (sign * bytes_cmp(rows->row_keys[i].data, rows->row_keys[i].len, last, last_len) > 0)
            rs->row_keys[rs->n_row_keys++] = rows->row_keys[i];
    for (size_t i = 0; i < nr; i++) {
        Btpb__RowRange *r;
        ALLOC_OR_FAIL(r = new_msg(a, &btpb__row_range__descriptor));
        if (rows) *r = *rows->row_ranges[i];
        bool closed;
        const ProtobufCBinaryData *far = range_key(r, reversed, &closed);
        if (far && sign * bytes_cmp(far->data, far->len, last, last_len) <= 0) continue; /* done */
        const ProtobufCBinaryData *near = range_key(r, !reversed, &closed);
        int c = near ? sign * bytes_cmp(near->data, near->len, last, last_len) : -1;
        if (closed ? c <= 0 : c < 0) {
            if (reversed) {
                r->end_key_case = BTPB__ROW_RANGE__END_KEY_END_KEY_OPEN;
                r->end_key_open = bin(last, last_len);
            } else {
                r->start_key_case = BTPB__ROW_RANGE__START_KEY_START_KEY_OPEN;
                r->start_key_open = bin(last, last_len);
            }
        }
        rs->row_ranges[rs->n_row_ranges++] = r;
    }
    *empty = rs->n_row_keys == 0 && rs->n_row_ranges == 0;
    *out = rs;
    bt_status_ok(st);
    return BT_OK;
}

bt_code bt_map_rows_after(Btpb__RowSet **out, bool *empty, bt_arena *a, const Btpb__RowSet *rows,
                          const void *last, size_t last_len, bt_status *st) {
    return rows_past(out, empty, a, rows, last, last_len, false, st);
}

bt_code bt_map_rows_before(Btpb__RowSet **out, bool *empty, bt_arena *a, const Btpb__RowSet *rows,
                           const void *last, size_t last_len, bt_status *st) {
    return rows_past(out, empty, a, rows, last, last_len, true, st);
}

/* ---- check-and-mutate ---- */

static Btpb__RowFilter *value_filter(bt_arena *a, bool has_start, bool start_closed,
                                     bool has_end, bool end_closed, const void *v, size_t n) {
    Btpb__RowFilter *f = filter_new(a, BTPB__ROW_FILTER__FILTER_VALUE_RANGE_FILTER);
    Btpb__ValueRange *r = new_msg(a, &btpb__value_range__descriptor);
    if (!f || !r) return NULL;
    if (has_start) {
        r->start_value_case = start_closed ? BTPB__VALUE_RANGE__START_VALUE_START_VALUE_CLOSED
                                           : BTPB__VALUE_RANGE__START_VALUE_START_VALUE_OPEN;
        r->start_value_closed = bin(v, n); /* same storage as start_value_open */
    }
    if (has_end) {
        r->end_value_case = end_closed ? BTPB__VALUE_RANGE__END_VALUE_END_VALUE_CLOSED
                                       : BTPB__VALUE_RANGE__END_VALUE_END_VALUE_OPEN;
        r->end_value_closed = bin(v, n);
    }
    f->value_range_filter = r;
    return f;
}

/* The value test of @p op against @p v; NULL when out of memory. */
static Btpb__RowFilter *compare_filter(bt_arena *a, bt_cmp op, const void *v, size_t n) {
    switch (op) {
    case BT_CMP_LESS: return value_filter(a, false, false, true, false, v, n);
    case BT_CMP_LESS_OR_EQUAL: return value_filter(a, false, false, true, true, v, n);
    case BT_CMP_EQUAL: return value_filter(a, true, true, true, true, v, n);
    case BT_CMP_GREATER_OR_EQUAL: return value_filter(a, true, true, false, false, v, n);
    case BT_CMP_GREATER: return value_filter(a, true, false, false, false, v, n);
    case BT_CMP_NOT_EQUAL: {
        Btpb__RowFilter *two[2] = { value_filter(a, false, false, true, false, v, n),
                                    value_filter(a, true, false, false, false, v, n) };
        if (!two[0] || !two[1]) return NULL;
        return filter_combine(a, BTPB__ROW_FILTER__FILTER_INTERLEAVE, two, 2);
    }
    case BT_CMP_NO_OP: break;
    }
    return NULL;
}

bt_code bt_map_check_and_mutate(Btpb__CheckAndMutateRowRequest **out, bool *on_match,
                                bt_arena *a, const char *table_name, const void *row,
                                size_t row_len, const bt_check *check, const bt_hop *ops,
                                size_t n, int64_t now_ms, bt_status *st) {
    *out = NULL;
    if (bt_check_row(row, row_len, st) != BT_OK) return BT_INVALID;
    bt_code rc = check_cell(check->family->name, check->qualifier_len, check->expected_len, st);
    if (rc != BT_OK) return rc;
    if ((int)check->op < BT_CMP_LESS || check->op > BT_CMP_NO_OP)
        return bt_fail(st, BT_INVALID, "unknown compare operator %d", (int)check->op);
    Btpb__CheckAndMutateRowRequest *r;
    ALLOC_OR_FAIL(r = new_msg(a, &btpb__check_and_mutate_row_request__descriptor));
    Btpb__Mutation **ms;
    size_t nms;
    if ((rc = bt_map_mutations(&ms, &nms, a, ops, n, now_ms, st)) != BT_OK) return rc;
    /* Predicate: the checked column's newest live version [, its value test]. */
    Btpb__RowFilter *parts[4];
    size_t np = 0;
    ALLOC_OR_FAIL(parts[np++] = column_filter(a, check->family->name, check->qualifier,
                                              check->qualifier_len));
    bool empty, oom;
    Btpb__RowFilter *tf = time_filter(a, ttl_floor_ms(check->family, now_ms), BT_TS_NONE, &empty,
                                      &oom);
    if (oom) return bt_fail(st, BT_ERROR, "out of memory");
    if (tf) parts[np++] = tf;
    ALLOC_OR_FAIL(parts[np++] = limit_filter(a, 1));
    bool exists_test = !check->expected || check->op == BT_CMP_NO_OP;
    if (!exists_test)
        ALLOC_OR_FAIL(parts[np++] = compare_filter(a, check->op, check->expected,
                                                   check->expected_len));
    ALLOC_OR_FAIL(r->predicate_filter = filter_combine(a, BTPB__ROW_FILTER__FILTER_CHAIN, parts, np));
    /* "Does not exist" applies the mutation when the predicate finds nothing. */
    *on_match = check->expected != NULL;
    if (*on_match) {
        r->true_mutations = ms;
        r->n_true_mutations = nms;
    } else {
        r->false_mutations = ms;
        r->n_false_mutations = nms;
    }
    r->table_name = (char *)table_name;
    r->row_key = bin(row, row_len);
    *out = r;
    bt_status_ok(st);
    return BT_OK;
}

/* ---- a row mutation guarded by "nothing newer" ---- */

/* The filter matching a cell of @p p newer than its bound; NULL with
 * *oom when out of memory. */
static Btpb__RowFilter *newer_filter(bt_arena *a, const bt_newer *p, bool *oom) {
    Btpb__RowFilter *parts[2];
    size_t np = 0;
    bool empty;
    *oom = false;
    if (p->family && p->qualifier_len != BT_WHOLE_FAMILY) {
        if (!(parts[np++] = column_filter(a, p->family, p->qualifier, p->qualifier_len))) goto oom;
    } else if (p->family) {
        if (!(parts[np] = filter_new(a, BTPB__ROW_FILTER__FILTER_FAMILY_NAME_REGEX_FILTER)) ||
            !(parts[np++]->family_name_regex_filter = family_regex(a, p->family)))
            goto oom;
    }
    int64_t lo = p->after_ms < 0 ? 0 : p->after_ms + 1;
    Btpb__RowFilter *tf = time_filter(a, lo, BT_TS_NONE, &empty, oom);
    if (*oom) return NULL;
    if (tf) parts[np++] = tf;
    if (np == 0) {   /* any cell of the row */
        Btpb__RowFilter *all = filter_new(a, BTPB__ROW_FILTER__FILTER_PASS_ALL_FILTER);
        if (!all) goto oom;
        all->pass_all_filter = true;
        return all;
    }
    Btpb__RowFilter *f = filter_combine(a, BTPB__ROW_FILTER__FILTER_CHAIN, parts, np);
    if (!f) goto oom;
    return f;
oom:
    *oom = true;
    return NULL;
}

bt_code bt_map_mutate_unless_newer(Btpb__CheckAndMutateRowRequest **out, bt_arena *a,
                                   const char *table_name, const void *row, size_t row_len,
                                   const bt_newer *places, size_t np, const bt_hop *ops,
                                   size_t n, int64_t now_ms, bt_status *st) {
    *out = NULL;
    if (bt_check_row(row, row_len, st) != BT_OK) return BT_INVALID;
    if (np == 0) return bt_fail(st, BT_INVALID, "a guarded mutation needs a guard");
    for (size_t i = 0; i < np; i++)
        if (places[i].family && bt_check_family(places[i].family, st) != BT_OK) return BT_INVALID;
    Btpb__CheckAndMutateRowRequest *r;
    ALLOC_OR_FAIL(r = new_msg(a, &btpb__check_and_mutate_row_request__descriptor));
    bt_code rc = bt_map_mutations(&r->false_mutations, &r->n_false_mutations, a, ops, n, now_ms, st);
    if (rc != BT_OK) return rc;
    Btpb__RowFilter **fs;
    ALLOC_OR_FAIL(fs = bt_arena_alloc(a, np * sizeof *fs));
    for (size_t i = 0; i < np; i++) {
        bool oom;
        fs[i] = newer_filter(a, &places[i], &oom);
        if (oom) return bt_fail(st, BT_ERROR, "out of memory");
    }
    ALLOC_OR_FAIL(r->predicate_filter = filter_combine(a, BTPB__ROW_FILTER__FILTER_INTERLEAVE, fs, np));
    r->table_name = (char *)table_name;
    r->row_key = bin(row, row_len);
    *out = r;
    bt_status_ok(st);
    return BT_OK;
}
