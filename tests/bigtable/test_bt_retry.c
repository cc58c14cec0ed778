/**
 * @file test_bt_retry.c
 * The client's failure handling against a scripted Bigtable server: an
 * in-process gRPC server on a free loopback port that answers each call
 * as the test says, and records what it was asked. This reaches what the
 * emulator never does: per-entry MutateRows failures, a ReadRows stream
 * that fails with UNAVAILABLE in the middle of a row, split cells and
 * reset_row over real gRPC, and transient failures of calls that must or
 * must not be retried, a reversed read resumed below its last row. Also
 * checks the routing header every call carries.
 */
#include <pthread.h>
#include <stdbool.h>

#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>

#include "bt_client.h"
#include "bt_read.h"
#include "bt_write.h"
#include "testutil.h"

enum { G_OK = 0, G_NOT_FOUND = 5, G_UNAVAILABLE = 14 };

/* ---- the scripted server ---- */

typedef struct server {
    grpc_server *srv;
    grpc_completion_queue *cq;
    pthread_t thread;
    int port;
    pthread_mutex_t lock;        /* guards what follows */
    int calls[8];                /* per method, see method_index */
    char last_params[256];       /* x-goog-request-params of the last call */
    uint8_t last_req[8192];      /* the last request, packed */
    size_t last_req_len;
} server;

static const char *const methods[] = { "MutateRows", "ReadRows", "MutateRow",
                                       "CheckAndMutateRow", "ReadModifyWriteRow" };
enum { M_MUTATE_ROWS, M_READ_ROWS, M_MUTATE_ROW, M_CHECK, M_RMW, M_COUNT };

static int method_index(grpc_slice method) {
    for (int i = 0; i < M_COUNT; i++) {
        size_t n = strlen(methods[i]), len = GRPC_SLICE_LENGTH(method);
        const char *p = (const char *)GRPC_SLICE_START_PTR(method);
        if (len > n && p[len - n - 1] == '/' && memcmp(p + len - n, methods[i], n) == 0) return i;
    }
    return -1;
}

/* Runs one batch and waits for it (the server handles one call at a time). */
static bool batch(server *s, grpc_call *call, grpc_op *ops, size_t n) {
    if (grpc_call_start_batch(call, ops, n, (void *)1, NULL) != GRPC_CALL_OK) return false;
    grpc_event ev = grpc_completion_queue_next(s->cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
    return ev.type == GRPC_OP_COMPLETE && ev.success;
}

static void send_msg(server *s, grpc_call *call, const ProtobufCMessage *m) {
    uint8_t buf[8192];
    size_t n = protobuf_c_message_get_packed_size(m);
    REQUIRE(n <= sizeof buf);
    protobuf_c_message_pack(m, buf);
    grpc_slice slice = grpc_slice_from_copied_buffer((const char *)buf, n);
    grpc_byte_buffer *bb = grpc_raw_byte_buffer_create(&slice, 1);
    grpc_slice_unref(slice);
    grpc_op op;
    memset(&op, 0, sizeof op);
    op.op = GRPC_OP_SEND_MESSAGE;
    op.data.send_message.send_message = bb;
    batch(s, call, &op, 1);
    grpc_byte_buffer_destroy(bb);
}

static void finish(server *s, grpc_call *call, int code, const char *msg) {
    grpc_slice details = grpc_slice_from_static_string(msg);
    int cancelled = 0;
    grpc_op ops[2];
    memset(ops, 0, sizeof ops);
    ops[0].op = GRPC_OP_SEND_STATUS_FROM_SERVER;
    ops[0].data.send_status_from_server.status = (grpc_status_code)code;
    ops[0].data.send_status_from_server.status_details = &details;
    ops[1].op = GRPC_OP_RECV_CLOSE_ON_SERVER;
    ops[1].data.recv_close_on_server.cancelled = &cancelled;
    batch(s, call, ops, 2);
}

/* A ReadRows chunk: key/family/qualifier NULL when absent. */
static Btpb__ReadRowsResponse__CellChunk chunk(const char *key, const char *fam,
                                               const char *qual, const char *value, int value_size,
                                               int status, Btpb__StringValue *f,
                                               Btpb__BytesValue *q) {
    Btpb__ReadRowsResponse__CellChunk c;
    btpb__read_rows_response__cell_chunk__init(&c);
    if (key) c.row_key = (ProtobufCBinaryData){ strlen(key), (uint8_t *)key };
    if (fam) {
        btpb__string_value__init(f);
        f->value = (char *)fam;
        c.family_name = f;
    }
    if (qual) {
        btpb__bytes_value__init(q);
        q->value = (ProtobufCBinaryData){ strlen(qual), (uint8_t *)qual };
        c.qualifier = q;
    }
    c.timestamp_micros = fam ? 1000 : 0;
    c.value = (ProtobufCBinaryData){ strlen(value), (uint8_t *)value };
    c.value_size = value_size;
    if (status == 1) {
        c.row_status_case = BTPB__READ_ROWS_RESPONSE__CELL_CHUNK__ROW_STATUS_RESET_ROW;
        c.reset_row = true;
    } else if (status == 2) {
        c.row_status_case = BTPB__READ_ROWS_RESPONSE__CELL_CHUNK__ROW_STATUS_COMMIT_ROW;
        c.commit_row = true;
    }
    return c;
}

/* Sends the chunks as one ReadRowsResponse. */
static void send_chunks(server *s, grpc_call *call, Btpb__ReadRowsResponse__CellChunk *cs,
                        size_t n) {
    Btpb__ReadRowsResponse__CellChunk *ptrs[8];
    for (size_t i = 0; i < n; i++) ptrs[i] = &cs[i];
    Btpb__ReadRowsResponse r = BTPB__READ_ROWS_RESPONSE__INIT;
    r.chunks = ptrs;
    r.n_chunks = n;
    send_msg(s, call, &r.base);
}

/* The script: what each call of each method answers. */
static void answer(server *s, grpc_call *call, int m, int nth) {
    Btpb__StringValue f[4];
    Btpb__BytesValue q[4];
    switch (m) {
    case M_MUTATE_ROWS: {
        /* First call: entry 0 OK, 1 UNAVAILABLE, 2 NOT_FOUND, 3 unreported,
         * then OK. Later calls: every entry OK. */
        Btpb__MutateRowsRequest *req =
            btpb__mutate_rows_request__unpack(NULL, s->last_req_len, s->last_req);
        REQUIRE(req != NULL);
        Btpb__MutateRowsResponse__Entry e[8], *ep[8];
        Btpb__RpcStatus rs[8];
        size_t n = 0;
        for (size_t i = 0; i < req->n_entries && i < 8; i++) {
            int code = nth > 1 ? G_OK : i == 1 ? G_UNAVAILABLE : i == 2 ? G_NOT_FOUND : G_OK;
            if (nth == 1 && i == 3) continue;
            btpb__mutate_rows_response__entry__init(&e[n]);
            btpb__rpc_status__init(&rs[n]);
            rs[n].code = code;
            rs[n].message = (char *)(code ? "scripted failure" : "");
            e[n].index = (int64_t)i;
            e[n].status = &rs[n];
            ep[n] = &e[n];
            n++;
        }
        btpb__mutate_rows_request__free_unpacked(req, NULL);
        Btpb__MutateRowsResponse r = BTPB__MUTATE_ROWS_RESPONSE__INIT;
        r.entries = ep;
        r.n_entries = n;
        send_msg(s, call, &r.base);
        finish(s, call, G_OK, "");
        return;
    }
    case M_READ_ROWS:
        if (nth == 1) {
            /* Row "a" committed, then "b" half sent, then the stream dies. */
            Btpb__ReadRowsResponse__CellChunk c1[2] = {
                chunk("a", "f", "q", "va", 0, 2, &f[0], &q[0]),
                chunk("b", "f", "q", "vb-par", 10, 0, &f[1], &q[1]),
            };
            send_chunks(s, call, c1, 2);
            finish(s, call, G_UNAVAILABLE, "scripted: server going away");
        } else if (nth == 3) {
            /* A reversed read: "c" committed, "b" half sent, then it dies. */
            Btpb__ReadRowsResponse__CellChunk c1[2] = {
                chunk("c", "f", "q", "vc", 0, 2, &f[0], &q[0]),
                chunk("b", "f", "q", "vb", 0, 0, &f[1], &q[1]),
            };
            send_chunks(s, call, c1, 2);
            finish(s, call, G_UNAVAILABLE, "scripted: server going away");
        } else if (nth == 4) {
            /* Its resumed stream: "b" and "a", below "c". */
            Btpb__ReadRowsResponse__CellChunk c2[2] = {
                chunk("b", "f", "q", "vb", 0, 2, &f[0], &q[0]),
                chunk("a", "f", "q", "va", 0, 2, &f[1], &q[1]),
            };
            send_chunks(s, call, c2, 2);
            finish(s, call, G_OK, "");
        } else {
            /* The resumed stream: "b" with a reset first, then "b" split
             * over two messages, then "c". */
            Btpb__ReadRowsResponse__CellChunk c2[2] = {
                chunk("b", "f", "q", "junk", 0, 0, &f[0], &q[0]),
                chunk(NULL, NULL, NULL, "", 0, 1, NULL, NULL),
            };
            send_chunks(s, call, c2, 2);
            Btpb__ReadRowsResponse__CellChunk c3[1] = {
                chunk("b", "f", "q", "vb-", 6, 0, &f[1], &q[1]) };
            send_chunks(s, call, c3, 1);
            Btpb__ReadRowsResponse__CellChunk c4[2] = {
                chunk(NULL, NULL, NULL, "end", 0, 2, NULL, NULL),
                chunk("c", "f", "q", "vc", 0, 2, &f[2], &q[2]),
            };
            send_chunks(s, call, c4, 2);
            finish(s, call, G_OK, "");
        }
        return;
    case M_MUTATE_ROW:
        /* Two transient failures, then success. */
        if (nth <= 2) {
            finish(s, call, G_UNAVAILABLE, "scripted: try again");
        } else {
            Btpb__MutateRowResponse r = BTPB__MUTATE_ROW_RESPONSE__INIT;
            send_msg(s, call, &r.base);
            finish(s, call, G_OK, "");
        }
        return;
    default:
        /* CheckAndMutate and ReadModifyWrite: always a transient failure. */
        finish(s, call, G_UNAVAILABLE, "scripted: outcome unknown");
        return;
    }
}

static void *serve(void *arg) {
    server *s = arg;
    for (;;) {
        grpc_call *call = NULL;
        grpc_call_details details;
        grpc_metadata_array md;
        grpc_call_details_init(&details);
        grpc_metadata_array_init(&md);
        bool ok = grpc_server_request_call(s->srv, &call, &details, &md, s->cq, s->cq,
                                           (void *)1) == GRPC_CALL_OK;
        if (ok) {
            grpc_event ev =
                grpc_completion_queue_next(s->cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
            ok = ev.type == GRPC_OP_COMPLETE && ev.success;
        }
        if (!ok) {   /* the server is shutting down */
            grpc_call_details_destroy(&details);
            grpc_metadata_array_destroy(&md);
            return NULL;
        }
        grpc_byte_buffer *req = NULL;
        grpc_op ops[2];
        memset(ops, 0, sizeof ops);
        ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
        ops[1].op = GRPC_OP_RECV_MESSAGE;
        ops[1].data.recv_message.recv_message = &req;
        batch(s, call, ops, 2);
        int m = method_index(details.method);
        pthread_mutex_lock(&s->lock);
        s->last_params[0] = '\0';
        for (size_t i = 0; i < md.count; i++)
            if (grpc_slice_str_cmp(md.metadata[i].key, "x-goog-request-params") == 0)
                snprintf(s->last_params, sizeof s->last_params, "%.*s",
                         (int)GRPC_SLICE_LENGTH(md.metadata[i].value),
                         (const char *)GRPC_SLICE_START_PTR(md.metadata[i].value));
        s->last_req_len = 0;
        if (req) {
            grpc_byte_buffer_reader rd;
            grpc_byte_buffer_reader_init(&rd, req);
            grpc_slice all = grpc_byte_buffer_reader_readall(&rd);
            s->last_req_len = GRPC_SLICE_LENGTH(all) < sizeof s->last_req ? GRPC_SLICE_LENGTH(all) : 0;
            memcpy(s->last_req, GRPC_SLICE_START_PTR(all), s->last_req_len);
            grpc_slice_unref(all);
            grpc_byte_buffer_reader_destroy(&rd);
            grpc_byte_buffer_destroy(req);
        }
        int nth = m >= 0 ? ++s->calls[m] : 0;
        pthread_mutex_unlock(&s->lock);
        if (m >= 0) answer(s, call, m, nth);
        else finish(s, call, 12, "not scripted");
        grpc_call_unref(call);
        grpc_call_details_destroy(&details);
        grpc_metadata_array_destroy(&md);
    }
}

static void server_start(server *s) {
    memset(s, 0, sizeof *s);
    pthread_mutex_init(&s->lock, NULL);
    s->srv = grpc_server_create(NULL, NULL);
    s->cq = grpc_completion_queue_create_for_next(NULL);
    grpc_server_register_completion_queue(s->srv, s->cq, NULL);
    grpc_server_credentials *creds = grpc_insecure_server_credentials_create();
    s->port = grpc_server_add_http2_port(s->srv, "127.0.0.1:0", creds);
    grpc_server_credentials_release(creds);
    REQUIRE(s->port > 0);
    grpc_server_start(s->srv);
    REQUIRE(pthread_create(&s->thread, NULL, serve, s) == 0);
}

static void server_stop(server *s) {
    grpc_completion_queue *done = grpc_completion_queue_create_for_pluck(NULL);
    grpc_server_shutdown_and_notify(s->srv, done, (void *)2);
    grpc_server_cancel_all_calls(s->srv);
    grpc_completion_queue_pluck(done, (void *)2, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
    pthread_join(s->thread, NULL);
    grpc_server_destroy(s->srv);
    grpc_completion_queue_shutdown(s->cq);
    while (grpc_completion_queue_next(s->cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL).type !=
           GRPC_QUEUE_SHUTDOWN) {
    }
    grpc_completion_queue_destroy(s->cq);
    grpc_completion_queue_shutdown(done);
    grpc_completion_queue_destroy(done);
    pthread_mutex_destroy(&s->lock);
}

static int calls(server *s, int m) {
    pthread_mutex_lock(&s->lock);
    int n = s->calls[m];
    pthread_mutex_unlock(&s->lock);
    return n;
}

/* ---- the tests ---- */

static void test_mutate_rows_retries_only_retryable(bt_client *c, server *s) {
    bt_hop h = { BT_HOP_PUT, "f", "q", 1, 5, "v", 1 };
    bt_row_mutation rows[4] = {
        { "r0", 2, &h, 1 }, { "r1", 2, &h, 1 }, { "r2", 2, &h, 1 }, { "r3", 2, &h, 1 },
    };
    bt_code codes[4];
    bt_status st;
    CHECK_EQ(bt_mutate_rows(c, "t", rows, 4, 1000, codes, &st), BT_NOT_FOUND);
    CHECK(strstr(st.msg, "scripted failure") != NULL);
    CHECK_EQ(codes[0], BT_OK);
    CHECK_EQ(codes[1], BT_OK);          /* UNAVAILABLE, then sent again */
    CHECK_EQ(codes[2], BT_NOT_FOUND);   /* not retryable: reported at once */
    CHECK_EQ(codes[3], BT_OK);          /* unreported, then sent again */
    CHECK_EQ(calls(s, M_MUTATE_ROWS), 2);
    /* The second request held exactly rows r1 and r3, with the same
     * explicit timestamp as the first. */
    pthread_mutex_lock(&s->lock);
    Btpb__MutateRowsRequest *req =
        btpb__mutate_rows_request__unpack(NULL, s->last_req_len, s->last_req);
    CHECK_BYTES(s->last_params, strlen(s->last_params),
                "table_name=projects%2Fp%2Finstances%2Fi%2Ftables%2Ft");
    pthread_mutex_unlock(&s->lock);
    REQUIRE(req && req->n_entries == 2);
    CHECK_BYTES(req->entries[0]->row_key.data, req->entries[0]->row_key.len, "r1");
    CHECK_BYTES(req->entries[1]->row_key.data, req->entries[1]->row_key.len, "r3");
    CHECK_EQ(req->entries[1]->mutations[0]->set_cell->timestamp_micros, 5000);
    btpb__mutate_rows_request__free_unpacked(req, NULL);
}

static void test_read_resumes_after_last_row(bt_client *c, server *s) {
    bt_family_rules fam = { "f", 1, 0, 0, false };
    bt_read_spec spec = BT_READ_SPEC_INIT;
    spec.families = &fam;
    spec.nfamilies = 1;
    spec.limit = 10;
    bt_reader *r;
    bt_status st;
    REQUIRE(bt_reader_open(&r, c, "t", &spec, 1000, &st) == BT_OK);
    bt_row row = BT_ROW_INIT;
    bool got;
    char seen[128] = "";
    size_t len = 0;
    bt_code rc;
    while ((rc = bt_reader_next(r, &row, &got, &st)) == BT_OK && got)
        len += (size_t)snprintf(seen + len, sizeof seen - len, "%.*s=%.*s;", (int)row.key_len,
                                row.key, (int)row.cells[0].value_len, row.cells[0].value);
    CHECK_EQ(rc, BT_OK);
    CHECK_BYTES(seen, len, "a=va;b=vb-end;c=vc;");
    CHECK_EQ(bt_reader_resumes(r), 1);
    bt_row_clear(&row);
    bt_reader_close(r);
    CHECK_EQ(calls(s, M_READ_ROWS), 2);
    /* The resumed request starts after "a" and asks for 9 rows. */
    pthread_mutex_lock(&s->lock);
    Btpb__ReadRowsRequest *req = btpb__read_rows_request__unpack(NULL, s->last_req_len, s->last_req);
    pthread_mutex_unlock(&s->lock);
    REQUIRE(req && req->rows && req->rows->n_row_ranges == 1);
    CHECK_EQ(req->rows_limit, 9);
    const Btpb__RowRange *rr = req->rows->row_ranges[0];
    CHECK(rr->start_key_case == BTPB__ROW_RANGE__START_KEY_START_KEY_OPEN);
    CHECK_BYTES(rr->start_key_open.data, rr->start_key_open.len, "a");
    btpb__read_rows_request__free_unpacked(req, NULL);
}

/* A reversed read resumes below the last row it delivered. */
static void test_reversed_read_resumes_below(bt_client *c, server *s) {
    bt_family_rules fam = { "f", 1, 0, 0, false };
    bt_read_spec spec = BT_READ_SPEC_INIT;
    spec.families = &fam;
    spec.nfamilies = 1;
    spec.reversed = true;
    bt_reader *r;
    bt_status st;
    REQUIRE(bt_reader_open(&r, c, "t", &spec, 1000, &st) == BT_OK);
    bt_row row = BT_ROW_INIT;
    bool got;
    char seen[128] = "";
    size_t len = 0;
    bt_code rc;
    while ((rc = bt_reader_next(r, &row, &got, &st)) == BT_OK && got)
        len += (size_t)snprintf(seen + len, sizeof seen - len, "%.*s;", (int)row.key_len, row.key);
    CHECK_EQ(rc, BT_OK);
    CHECK_BYTES(seen, len, "c;b;a;");
    CHECK_EQ(bt_reader_resumes(r), 1);
    bt_row_clear(&row);
    bt_reader_close(r);
    CHECK_EQ(calls(s, M_READ_ROWS), 4);
    pthread_mutex_lock(&s->lock);
    Btpb__ReadRowsRequest *req = btpb__read_rows_request__unpack(NULL, s->last_req_len, s->last_req);
    pthread_mutex_unlock(&s->lock);
    REQUIRE(req && req->rows && req->rows->n_row_ranges == 1);
    CHECK(req->reversed);
    const Btpb__RowRange *rr = req->rows->row_ranges[0];
    CHECK(rr->start_key_case == BTPB__ROW_RANGE__START_KEY__NOT_SET);
    CHECK(rr->end_key_case == BTPB__ROW_RANGE__END_KEY_END_KEY_OPEN);
    CHECK_BYTES(rr->end_key_open.data, rr->end_key_open.len, "c");
    btpb__read_rows_request__free_unpacked(req, NULL);
}

static void test_which_calls_retry(bt_client *c, server *s) {
    bt_status st;
    bt_hop h = { BT_HOP_PUT, "f", "q", 1, 5, "v", 1 };
    /* MutateRow (explicit timestamps): retried through two failures. */
    CHECK_EQ(bt_mutate_row(c, "t", "r", 1, &h, 1, 1000, &st), BT_OK);
    CHECK_EQ(calls(s, M_MUTATE_ROW), 3);
    /* Check-and-mutate and increments: sent once, the caller told. */
    bt_family_rules fam = { "f", 1, 0, 0, false };
    bt_check chk = { &fam, "q", 1, BT_CMP_EQUAL, "v", 1 };
    bool applied = true;
    CHECK_EQ(bt_check_and_mutate(c, "t", "r", 1, &chk, &h, 1, 1000, &applied, &st), BT_UNAVAILABLE);
    CHECK(!applied);
    CHECK(strstr(st.msg, "outcome unknown") != NULL);
    CHECK_EQ(calls(s, M_CHECK), 1);
    /* A mutation guarded by "nothing newer" is a CheckAndMutateRow too. */
    bt_newer none = { "f", "q", 1, -1 };
    CHECK_EQ(bt_mutate_row_unless_newer(c, "t", "r", 1, &none, 1, &h, 1, 1000, &applied, &st),
             BT_UNAVAILABLE);
    CHECK_EQ(calls(s, M_CHECK), 2);
    int64_t v;
    CHECK_EQ(bt_increment(c, "t", "r", 1, "f", "n", 1, 1, &v, &st), BT_UNAVAILABLE);
    CHECK_EQ(calls(s, M_RMW), 1);
}

int main(void) {
    grpc_init();
    server s;
    server_start(&s);
    char addr[64];
    snprintf(addr, sizeof addr, "127.0.0.1:%d", s.port);
    bt_client_options o = BT_CLIENT_OPTIONS_INIT;
    o.project = "p";
    o.instance = "i";
    o.emulator_host = addr;
    o.backoff_ms = 1;
    bt_status st;
    bt_client *c = bt_client_open(&o, &st);
    REQUIRE(c != NULL);
    test_mutate_rows_retries_only_retryable(c, &s);
    test_read_resumes_after_last_row(c, &s);
    test_reversed_read_resumes_below(c, &s);
    test_which_calls_retry(c, &s);
    bt_client_close(c);
    server_stop(&s);
    grpc_shutdown();
    return test_finish("test_bt_retry");
}
