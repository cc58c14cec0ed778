/**
 * @file bt_client.c
 * The Bigtable client handle, admin calls and single-row data calls (see
 * bt_client.h). Each call builds its request with bt_map.c in an arena,
 * sends it with bt_transport.c (retrying idempotent calls), and turns the
 * response into the caller's terms. Callers: the backend's modules, bt_write.c,
 * bt_read.c and the tests.
 */
#include "bt_client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DATA_SERVICE "/google.bigtable.v2.Bigtable/"
#define ADMIN_SERVICE "/google.bigtable.admin.v2.BigtableTableAdmin/"

struct bt_client {
    bt_client_options opts;       /* defaults filled in; strings below */
    char *project, *instance;
    char *instance_name;          /* projects/P/instances/I */
    bt_channel *data, *admin;     /* the same channel when the endpoints are */
    bool emulator;
};

static bool id_ok(const char *s) {
    if (!s || !*s || strlen(s) > 64) return false;
    for (; *s; s++)
        if (*s == '/' || *s <= ' ' || *s == 0x7f) return false;
    return true;
}

bt_client *bt_client_open(const bt_client_options *opts, bt_status *st) {
    if (!id_ok(opts->project) || !id_ok(opts->instance)) {
        bt_fail(st, BT_INVALID, "bigtable://PROJECT/INSTANCE needs a project and an instance id "
                                "(no '/', no spaces)");
        return NULL;
    }
    bt_client *c = calloc(1, sizeof *c);
    if (!c) {
        bt_fail(st, BT_ERROR, "out of memory");
        return NULL;
    }
    c->opts = *opts;
    if (!c->opts.timeout_ms) c->opts.timeout_ms = 30000;
    if (!c->opts.stream_timeout_ms) c->opts.stream_timeout_ms = 300000;
    if (!c->opts.max_attempts) c->opts.max_attempts = 5;
    if (!c->opts.backoff_ms) c->opts.backoff_ms = 20;
    const char *emu = opts->emulator_host ? opts->emulator_host : getenv("BIGTABLE_EMULATOR_HOST");
    c->emulator = emu && *emu;
    const char *data_ep = c->emulator ? emu : opts->data_endpoint ? opts->data_endpoint
                                                                   : BT_DATA_ENDPOINT;
    const char *admin_ep = c->emulator ? emu : opts->admin_endpoint ? opts->admin_endpoint
                                                                    : BT_ADMIN_ENDPOINT;
    c->project = strdup(opts->project);
    c->instance = strdup(opts->instance);
    size_t n = strlen(opts->project) + strlen(opts->instance) + 32;
    c->instance_name = malloc(n);
    if (!c->project || !c->instance || !c->instance_name) {
        bt_fail(st, BT_ERROR, "out of memory");
        bt_client_close(c);
        return NULL;
    }
    snprintf(c->instance_name, n, "projects/%s/instances/%s", opts->project, opts->instance);
    c->opts.project = c->project;
    c->opts.instance = c->instance;
    c->opts.emulator_host = NULL;
    c->opts.data_endpoint = c->opts.admin_endpoint = NULL;
    /* One channel per endpoint: the emulator serves both APIs at one
     * address, and then both kinds of call share its connection. */
    if (!(c->data = bt_channel_open(data_ep, c->emulator, st))) {
        bt_client_close(c);
        return NULL;
    }
    c->admin = strcmp(data_ep, admin_ep) == 0 ? c->data : bt_channel_open(admin_ep, c->emulator, st);
    if (!c->admin) {
        bt_client_close(c);
        return NULL;
    }
    bt_status_ok(st);
    return c;
}

void bt_client_close(bt_client *c) {
    if (!c) return;
    if (c->admin != c->data) bt_channel_close(c->admin);
    bt_channel_close(c->data);
    free(c->project);
    free(c->instance);
    free(c->instance_name);
    free(c);
}

const char *bt_client_instance(const bt_client *c) { return c->instance_name; }
bool bt_client_is_emulator(const bt_client *c) { return c->emulator; }
bt_channel *bt_client_data(const bt_client *c) { return c->data; }
const bt_client_options *bt_client_opts(const bt_client *c) { return &c->opts; }

bt_code bt_client_table_name(const bt_client *c, const char *table_id, char *out, size_t cap,
                             bt_status *st) {
    if (!table_id || !*table_id || strlen(table_id) > BT_MAX_TABLE_ID || strchr(table_id, '/'))
        return bt_fail(st, BT_INVALID, "'%s' is not a Bigtable table id", table_id ? table_id : "");
    int n = snprintf(out, cap, "%s/tables/%s", c->instance_name, table_id);
    if (n < 0 || (size_t)n >= cap) return bt_fail(st, BT_INVALID, "table name too long");
    bt_status_ok(st);
    return BT_OK;
}

void bt_client_backoff(const bt_client *c, int attempt) {
    int64_t ms = c->opts.backoff_ms;
    for (int i = 1; i < attempt && ms < 2000; i++) ms *= 2;
    if (ms > 2000) ms = 2000;
    struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) != 0) {
    }
}

/* One unary call, tried again on transient failures when @p idempotent. */
static bt_code call(bt_client *c, bt_channel *ch, const char *method, const char *key,
                    const char *value, const ProtobufCMessage *req,
                    const ProtobufCMessageDescriptor *desc, ProtobufCMessage **resp,
                    bool idempotent, bt_status *st) {
    bt_call spec = { method, key, value, c->opts.timeout_ms };
    for (int attempt = 1;; attempt++) {
        bt_code rc = bt_unary(ch, &spec, req, desc, resp, st);
        if (rc == BT_OK || !idempotent || attempt >= c->opts.max_attempts || !st ||
            !bt_grpc_retryable(st->grpc_code))
            return rc;
        bt_client_backoff(c, attempt);
    }
}

/* ---- admin ---- */

bt_code bt_create_table(bt_client *c, const char *table_id, const bt_family_rules *families,
                        size_t n, bt_status *st) {
    bt_arena a = BT_ARENA_INIT;
    Btpb__CreateTableRequest *req;
    ProtobufCMessage *resp = NULL;
    bt_code rc = bt_map_create_table(&req, &a, c->instance_name, table_id, families, n, st);
    /* Not retried: a lost reply to a create that worked would turn into
     * ALREADY_EXISTS on the second try, which is worse than UNAVAILABLE. */
    if (rc == BT_OK)
        rc = call(c, c->admin, ADMIN_SERVICE "CreateTable", "parent", c->instance_name,
                  &req->base, &btpb__table__descriptor, &resp, false, st);
    if (resp) protobuf_c_message_free_unpacked(resp, NULL);
    bt_arena_free(&a);
    return rc;
}

void bt_schema_clear(bt_schema *s) {
    for (size_t i = 0; i < s->nfamilies; i++) free((char *)s->families[i].name);
    free(s->families);
    s->families = NULL;
    s->nfamilies = 0;
}

static int family_order(const void *a, const void *b) {
    return strcmp(((const bt_family_rules *)a)->name, ((const bt_family_rules *)b)->name);
}

bt_code bt_get_table(bt_client *c, const char *table_id, bt_schema *out, bt_status *st) {
    memset(out, 0, sizeof *out);
    char name[512];
    bt_code rc = bt_client_table_name(c, table_id, name, sizeof name, st);
    if (rc != BT_OK) return rc;
    Btpb__GetTableRequest req = BTPB__GET_TABLE_REQUEST__INIT;
    req.name = name;
    req.view = BTPB__TABLE__VIEW__SCHEMA_VIEW;
    Btpb__Table *t = NULL;
    rc = call(c, c->admin, ADMIN_SERVICE "GetTable", "name", name, &req.base,
              &btpb__table__descriptor, (ProtobufCMessage **)&t, true, st);
    if (rc != BT_OK) return rc;
    out->families = calloc(t->n_column_families ? t->n_column_families : 1, sizeof *out->families);
    bt_code parse = BT_OK;
    bt_status pst;
    bt_status_ok(&pst);
    for (size_t i = 0; out->families && i < t->n_column_families; i++) {
        bt_family_rules *f = &out->families[out->nfamilies];
        if (!(f->name = strdup(t->column_families[i]->key))) break;
        out->nfamilies++;
        const Btpb__ColumnFamily *cf = t->column_families[i]->value;
        if (bt_parse_gc_rule(f, cf ? cf->gc_rule : NULL, &pst) != BT_OK) parse = BT_UNSUPPORTED;
    }
    bool complete = out->families && out->nfamilies == t->n_column_families;
    protobuf_c_message_free_unpacked(&t->base, NULL);
    if (!complete) {
        bt_schema_clear(out);
        return bt_fail(st, BT_ERROR, "out of memory");
    }
    qsort(out->families, out->nfamilies, sizeof *out->families, family_order);
    if (parse != BT_OK) {
        if (st) *st = pst;
        return parse;
    }
    bt_status_ok(st);
    return BT_OK;
}

static int str_order(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

bt_code bt_list_tables(bt_client *c, char ***ids, size_t *n, bt_status *st) {
    *ids = NULL;
    *n = 0;
    size_t cap = 0;
    char *token = NULL;
    bt_code rc = BT_OK;
    size_t prefix = strlen(c->instance_name) + strlen("/tables/");
    do {
        Btpb__ListTablesRequest req = BTPB__LIST_TABLES_REQUEST__INIT;
        req.parent = c->instance_name;
        req.view = BTPB__TABLE__VIEW__NAME_ONLY;
        if (token) req.page_token = token;
        Btpb__ListTablesResponse *resp = NULL;
        rc = call(c, c->admin, ADMIN_SERVICE "ListTables", "parent", c->instance_name, &req.base,
                  &btpb__list_tables_response__descriptor, (ProtobufCMessage **)&resp, true, st);
        free(token);
        token = NULL;
        if (rc != BT_OK) break;
        for (size_t i = 0; i < resp->n_tables && rc == BT_OK; i++) {
            const char *full = resp->tables[i]->name;
            const char *id = strlen(full) > prefix ? full + prefix : full;
            if (*n == cap) {
                cap = cap ? 2 * cap : 16;
                char **grown = realloc(*ids, cap * sizeof *grown);
                if (!grown) rc = bt_fail(st, BT_ERROR, "out of memory");
                else *ids = grown;
            }
            if (rc == BT_OK && !((*ids)[*n] = strdup(id))) rc = bt_fail(st, BT_ERROR, "out of memory");
            if (rc == BT_OK) (*n)++;
        }
        if (rc == BT_OK && resp->next_page_token && *resp->next_page_token &&
            !(token = strdup(resp->next_page_token)))
            rc = bt_fail(st, BT_ERROR, "out of memory");
        protobuf_c_message_free_unpacked(&resp->base, NULL);
    } while (rc == BT_OK && token);
    if (rc != BT_OK) {
        for (size_t i = 0; i < *n; i++) free((*ids)[i]);
        free(*ids);
        *ids = NULL;
        *n = 0;
        return rc;
    }
    if (*n) qsort(*ids, *n, sizeof **ids, str_order);
    return BT_OK;
}

bt_code bt_delete_table(bt_client *c, const char *table_id, bt_status *st) {
    char name[512];
    bt_code rc = bt_client_table_name(c, table_id, name, sizeof name, st);
    if (rc != BT_OK) return rc;
    Btpb__DeleteTableRequest req = BTPB__DELETE_TABLE_REQUEST__INIT;
    req.name = name;
    ProtobufCMessage *resp = NULL;
    rc = call(c, c->admin, ADMIN_SERVICE "DeleteTable", "name", name, &req.base,
              &btpb__empty__descriptor, &resp, true, st);
    if (resp) protobuf_c_message_free_unpacked(resp, NULL);
    return rc;
}

bt_code bt_modify_families(bt_client *c, const char *table_id, const bt_family_change *changes,
                           size_t n, bt_status *st) {
    char name[512];
    bt_code rc = bt_client_table_name(c, table_id, name, sizeof name, st);
    if (rc != BT_OK) return rc;
    if (n == 0) return bt_fail(st, BT_INVALID, "no family changes");
    bt_arena a = BT_ARENA_INIT;
    Btpb__ModifyColumnFamiliesRequest req = BTPB__MODIFY_COLUMN_FAMILIES_REQUEST__INIT;
    req.name = name;
    req.modifications = bt_arena_alloc(&a, n * sizeof *req.modifications);
    if (!req.modifications) rc = bt_fail(st, BT_ERROR, "out of memory");
    for (size_t i = 0; rc == BT_OK && i < n; i++) {
        Btpb__ModifyColumnFamiliesRequest__Modification *m =
            bt_arena_alloc(&a, sizeof *m);
        Btpb__ColumnFamily *cf = bt_arena_alloc(&a, sizeof *cf);
        if (!m || !cf) {
            rc = bt_fail(st, BT_ERROR, "out of memory");
            break;
        }
        btpb__modify_column_families_request__modification__init(m);
        btpb__column_family__init(cf);
        if ((rc = bt_check_family(changes[i].rules.name, st)) != BT_OK) break;
        m->id = (char *)changes[i].rules.name;
        if (changes[i].kind == BT_FAMILY_DROP) {
            m->mod_case = BTPB__MODIFY_COLUMN_FAMILIES_REQUEST__MODIFICATION__MOD_DROP;
            m->drop = true;
        } else {
            if ((rc = bt_map_gc_rule(&cf->gc_rule, &a, &changes[i].rules, st)) != BT_OK) break;
            if (changes[i].kind == BT_FAMILY_CREATE) {
                m->mod_case = BTPB__MODIFY_COLUMN_FAMILIES_REQUEST__MODIFICATION__MOD_CREATE;
                m->create = cf;
            } else {
                m->mod_case = BTPB__MODIFY_COLUMN_FAMILIES_REQUEST__MODIFICATION__MOD_UPDATE;
                m->update = cf;
            }
        }
        req.modifications[req.n_modifications++] = m;
    }
    ProtobufCMessage *resp = NULL;
    /* Not retried: a create or drop that worked would fail the second time. */
    if (rc == BT_OK)
        rc = call(c, c->admin, ADMIN_SERVICE "ModifyColumnFamilies", "name", name, &req.base,
                  &btpb__table__descriptor, &resp, false, st);
    if (resp) protobuf_c_message_free_unpacked(resp, NULL);
    bt_arena_free(&a);
    return rc;
}

bt_code bt_drop_rows(bt_client *c, const char *table_id, const void *prefix, size_t prefix_len,
                     bt_status *st) {
    char name[512];
    bt_code rc = bt_client_table_name(c, table_id, name, sizeof name, st);
    if (rc != BT_OK) return rc;
    Btpb__DropRowRangeRequest req;
    btpb__drop_row_range_request__init(&req);
    req.name = name;
    if (prefix) {
        if (prefix_len == 0) return bt_fail(st, BT_INVALID, "DropRowRange needs a non-empty prefix");
        req.target_case = BTPB__DROP_ROW_RANGE_REQUEST__TARGET_ROW_KEY_PREFIX;
        req.row_key_prefix.data = (uint8_t *)(uintptr_t)prefix;
        req.row_key_prefix.len = prefix_len;
    } else {
        req.target_case = BTPB__DROP_ROW_RANGE_REQUEST__TARGET_DELETE_ALL_DATA_FROM_TABLE;
        req.delete_all_data_from_table = true;
    }
    ProtobufCMessage *resp = NULL;
    rc = call(c, c->admin, ADMIN_SERVICE "DropRowRange", "name", name, &req.base,
              &btpb__empty__descriptor, &resp, true, st);
    if (resp) protobuf_c_message_free_unpacked(resp, NULL);
    return rc;
}

/* ---- single-row data calls ---- */

bt_code bt_mutate_row(bt_client *c, const char *table_id, const void *row, size_t row_len,
                      const bt_hop *ops, size_t n, int64_t now_ms, bt_status *st) {
    char name[512];
    bt_code rc = bt_client_table_name(c, table_id, name, sizeof name, st);
    if (rc != BT_OK) return rc;
    bt_arena a = BT_ARENA_INIT;
    Btpb__MutateRowRequest *req;
    ProtobufCMessage *resp = NULL;
    rc = bt_map_mutate_row(&req, &a, name, row, row_len, ops, n, now_ms, st);
    if (rc == BT_OK)
        rc = call(c, c->data, DATA_SERVICE "MutateRow", "table_name", name, &req->base,
                  &btpb__mutate_row_response__descriptor, &resp, true, st);
    if (resp) protobuf_c_message_free_unpacked(resp, NULL);
    bt_arena_free(&a);
    return rc;
}

/* The rule a ReadModifyWrite call applies. */
typedef struct rmw_rule {
    bool increment;
    int64_t delta;
    const void *data;
    size_t data_len;
} rmw_rule;

/* Sends one ReadModifyWrite (never retried) and gives the new value of its
 * cell to @p take, which copies what it needs. */
static bt_code rmw(bt_client *c, const char *table_id, const void *row, size_t row_len,
                   const char *family, const void *qualifier, size_t qualifier_len,
                   const rmw_rule *rule, bt_code (*take)(const ProtobufCBinaryData *, void *,
                                                         bt_status *),
                   void *arg, bt_status *st) {
    char name[512];
    bt_code rc = bt_client_table_name(c, table_id, name, sizeof name, st);
    if (rc != BT_OK) return rc;
    bt_arena a = BT_ARENA_INIT;
    Btpb__ReadModifyWriteRowRequest *req;
    Btpb__ReadModifyWriteRowResponse *resp = NULL;
    rc = rule->increment
             ? bt_map_increment(&req, &a, name, row, row_len, family, qualifier, qualifier_len,
                                rule->delta, st)
             : bt_map_append(&req, &a, name, row, row_len, family, qualifier, qualifier_len,
                             rule->data, rule->data_len, st);
    if (rc == BT_OK)
        rc = call(c, c->data, DATA_SERVICE "ReadModifyWriteRow", "table_name", name, &req->base,
                  &btpb__read_modify_write_row_response__descriptor, (ProtobufCMessage **)&resp,
                  false, st);
    if (rc == BT_OK) {
        const Btpb__Row *r = resp->row;
        if (!r || r->n_families < 1 || r->families[0]->n_columns < 1 ||
            r->families[0]->columns[0]->n_cells < 1)
            rc = bt_fail(st, BT_ERROR, "ReadModifyWriteRow: the reply holds no cell");
        else rc = take(&r->families[0]->columns[0]->cells[0]->value, arg, st);
    }
    if (resp) protobuf_c_message_free_unpacked(&resp->base, NULL);
    bt_arena_free(&a);
    return rc;
}

static bt_code take_counter(const ProtobufCBinaryData *v, void *arg, bt_status *st) {
    if (v->len != 8)
        return bt_fail(st, BT_ERROR, "increment: the new value has %zu bytes, not 8", v->len);
    uint64_t u = 0;
    for (int i = 0; i < 8; i++) u = u << 8 | v->data[i];
    *(int64_t *)arg = (int64_t)u;
    return BT_OK;
}

bt_code bt_increment(bt_client *c, const char *table_id, const void *row, size_t row_len,
                     const char *family, const void *qualifier, size_t qualifier_len,
                     int64_t delta, int64_t *result, bt_status *st) {
    rmw_rule rule = { true, delta, NULL, 0 };
    return rmw(c, table_id, row, row_len, family, qualifier, qualifier_len, &rule, take_counter,
               result, st);
}

/* Where bt_append puts the new value. */
typedef struct appended {
    void **result;
    size_t *result_len;
} appended;

static bt_code take_value(const ProtobufCBinaryData *v, void *arg, bt_status *st) {
    appended *out = arg;
    if (!out->result) return BT_OK;
    if (!(*out->result = malloc(v->len ? v->len : 1))) return bt_fail(st, BT_ERROR, "out of memory");
    if (v->len) memcpy(*out->result, v->data, v->len);
    if (out->result_len) *out->result_len = v->len;
    return BT_OK;
}

bt_code bt_append(bt_client *c, const char *table_id, const void *row, size_t row_len,
                  const char *family, const void *qualifier, size_t qualifier_len,
                  const void *data, size_t data_len, void **result, size_t *result_len,
                  bt_status *st) {
    if (result) *result = NULL;
    rmw_rule rule = { false, 0, data, data_len };
    appended out = { result, result_len };
    return rmw(c, table_id, row, row_len, family, qualifier, qualifier_len, &rule, take_value,
               &out, st);
}

/* Sends a CheckAndMutateRow built in @p a (never retried); *applied is
 * whether predicate_matched equals @p on_match. */
static bt_code send_check(bt_client *c, const char *name, const Btpb__CheckAndMutateRowRequest *req,
                          bool on_match, bool *applied, bt_status *st) {
    Btpb__CheckAndMutateRowResponse *resp = NULL;
    bt_code rc = call(c, c->data, DATA_SERVICE "CheckAndMutateRow", "table_name", name, &req->base,
                      &btpb__check_and_mutate_row_response__descriptor,
                      (ProtobufCMessage **)&resp, false, st);
    if (rc == BT_OK) *applied = (bool)resp->predicate_matched == on_match;
    if (resp) protobuf_c_message_free_unpacked(&resp->base, NULL);
    return rc;
}

bt_code bt_check_and_mutate(bt_client *c, const char *table_id, const void *row,
                            size_t row_len, const bt_check *check, const bt_hop *ops, size_t n,
                            int64_t now_ms, bool *applied, bt_status *st) {
    *applied = false;
    char name[512];
    bt_code rc = bt_client_table_name(c, table_id, name, sizeof name, st);
    if (rc != BT_OK) return rc;
    bt_arena a = BT_ARENA_INIT;
    Btpb__CheckAndMutateRowRequest *req;
    bool on_match;
    rc = bt_map_check_and_mutate(&req, &on_match, &a, name, row, row_len, check, ops, n, now_ms,
                                 st);
    if (rc == BT_OK) rc = send_check(c, name, req, on_match, applied, st);
    bt_arena_free(&a);
    return rc;
}

bt_code bt_mutate_row_unless_newer(bt_client *c, const char *table_id, const void *row,
                                   size_t row_len, const bt_newer *places, size_t np,
                                   const bt_hop *ops, size_t n, int64_t now_ms, bool *applied,
                                   bt_status *st) {
    *applied = false;
    char name[512];
    bt_code rc = bt_client_table_name(c, table_id, name, sizeof name, st);
    if (rc != BT_OK) return rc;
    bt_arena a = BT_ARENA_INIT;
    Btpb__CheckAndMutateRowRequest *req;
    rc = bt_map_mutate_unless_newer(&req, &a, name, row, row_len, places, np, ops, n, now_ms, st);
    if (rc == BT_OK) rc = send_check(c, name, req, false, applied, st);
    bt_arena_free(&a);
    return rc;
}

bt_code bt_sample_row_keys(bt_client *c, const char *table_id, uint8_t ***keys,
                           size_t **key_lens, int64_t **offsets, size_t *n, bt_status *st) {
    *keys = NULL;
    *key_lens = NULL;
    *offsets = NULL;
    *n = 0;
    char name[512];
    bt_code rc = bt_client_table_name(c, table_id, name, sizeof name, st);
    if (rc != BT_OK) return rc;
    Btpb__SampleRowKeysRequest req = BTPB__SAMPLE_ROW_KEYS_REQUEST__INIT;
    req.table_name = name;
    bt_call spec = { DATA_SERVICE "SampleRowKeys", "table_name", name, c->opts.timeout_ms };
    bt_stream *s;
    if ((rc = bt_stream_open(&s, c->data, &spec, &req.base,
                             &btpb__sample_row_keys_response__descriptor, st)) != BT_OK)
        return rc;
    size_t cap = 0;
    for (;;) {
        Btpb__SampleRowKeysResponse *m;
        if ((rc = bt_stream_next(s, (ProtobufCMessage **)&m, st)) != BT_OK || !m) break;
        if (*n == cap) {
            cap = cap ? cap * 2 : 16;
            uint8_t **k = realloc(*keys, cap * sizeof *k);
            if (k) *keys = k;
            size_t *l = realloc(*key_lens, cap * sizeof *l);
            if (l) *key_lens = l;
            int64_t *o = realloc(*offsets, cap * sizeof *o);
            if (o) *offsets = o;
            if (!k || !l || !o) rc = bt_fail(st, BT_ERROR, "out of memory");
        }
        uint8_t *key = rc == BT_OK ? malloc(m->row_key.len ? m->row_key.len : 1) : NULL;
        if (rc == BT_OK && !key) rc = bt_fail(st, BT_ERROR, "out of memory");
        if (rc == BT_OK) {
            if (m->row_key.len) memcpy(key, m->row_key.data, m->row_key.len);
            (*keys)[*n] = key;
            (*key_lens)[*n] = m->row_key.len;
            (*offsets)[*n] = m->offset_bytes;
            (*n)++;
        }
        protobuf_c_message_free_unpacked(&m->base, NULL);
        if (rc != BT_OK) break;
    }
    bt_stream_close(s);
    if (rc != BT_OK) {
        for (size_t i = 0; i < *n; i++) free((*keys)[i]);
        free(*keys);
        free(*key_lens);
        free(*offsets);
        *keys = NULL;
        *key_lens = NULL;
        *offsets = NULL;
        *n = 0;
    }
    return rc;
}
