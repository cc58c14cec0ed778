/**
 * @file bt_transport.c
 * gRPC core calls for the Bigtable backend. A unary call is one batch of
 * every operation on a private completion queue; a streaming call sends
 * its request and then receives one message per bt_stream_next, with the
 * status operation outstanding from the start so that the server's final
 * status is collected however the stream ends. Callers: bt_client.c,
 * bt_write.c, bt_read.c. Calls: gRPC core (grpc.h, grpc_security.h,
 * byte_buffer_reader.h) and protobuf-c.
 */
#include "bt_transport.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/support/alloc.h>
#include <grpc/support/time.h>

struct bt_channel {
    grpc_channel *channel;
    char *target;
};

/* Tags of the operations a call has outstanding on its queue. */
enum { TAG_START = 1, TAG_STATUS = 2, TAG_RECV = 3, TAG_UNARY = 4 };

bt_channel *bt_channel_open(const char *target, bool plaintext, bt_status *st) {
    bt_channel *ch = calloc(1, sizeof *ch);
    if (!ch || !(ch->target = strdup(target))) {
        free(ch);
        bt_fail(st, BT_ERROR, "out of memory");
        return NULL;
    }
    /* grpc_init counts its callers; the matching grpc_shutdown is in
     * bt_channel_close, so gRPC lives exactly as long as some channel. */
    grpc_init();
    grpc_channel_credentials *creds = plaintext ? grpc_insecure_credentials_create()
                                                : grpc_google_default_credentials_create(NULL);
    if (!creds) {
        grpc_shutdown();
        free(ch->target);
        free(ch);
        bt_fail(st, BT_ERROR,
                "%s: no Google credentials found (set GOOGLE_APPLICATION_CREDENTIALS, run "
                "'gcloud auth application-default login', or set BIGTABLE_EMULATOR_HOST)",
                target);
        return NULL;
    }
    grpc_arg args[2];
    args[0].type = GRPC_ARG_INTEGER;
    args[0].key = (char *)GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH;
    args[0].value.integer = BT_MAX_RECV_MESSAGE;
    args[1].type = GRPC_ARG_STRING;
    args[1].key = (char *)GRPC_ARG_PRIMARY_USER_AGENT_STRING;
    args[1].value.string = (char *)"cellfs-bigtable";
    grpc_channel_args chargs = { 2, args };
    ch->channel = grpc_channel_create(target, creds, &chargs);
    grpc_channel_credentials_release(creds);
    bt_status_ok(st);
    return ch;
}

void bt_channel_close(bt_channel *ch) {
    if (!ch) return;
    grpc_channel_destroy(ch->channel);
    free(ch->target);
    free(ch);
    grpc_shutdown();
}

const char *bt_channel_target(const bt_channel *ch) {
    return ch->target;
}

/* ---- helpers shared by unary and streaming calls ---- */

static gpr_timespec deadline_after(int64_t ms) {
    return gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC), gpr_time_from_millis(ms, GPR_TIMESPAN));
}

/* Packs @p req into a byte buffer that gRPC owns; NULL when out of memory. */
static grpc_byte_buffer *pack_request(const ProtobufCMessage *req) {
    size_t len = protobuf_c_message_get_packed_size(req);
    uint8_t *buf = malloc(len ? len : 1);
    if (!buf) return NULL;
    protobuf_c_message_pack(req, buf);
    grpc_slice slice = grpc_slice_new(buf, len, free);
    grpc_byte_buffer *bb = grpc_raw_byte_buffer_create(&slice, 1);
    grpc_slice_unref(slice);
    return bb;
}

/* Unpacks a received message; NULL with @p st set when it does not parse. */
static ProtobufCMessage *unpack_response(grpc_byte_buffer *bb,
                                         const ProtobufCMessageDescriptor *desc, bt_status *st) {
    grpc_byte_buffer_reader reader;
    if (!grpc_byte_buffer_reader_init(&reader, bb)) {
        bt_fail(st, BT_ERROR, "cannot read a %s from the server", desc->short_name);
        return NULL;
    }
    grpc_slice all = grpc_byte_buffer_reader_readall(&reader);
    grpc_byte_buffer_reader_destroy(&reader);
    ProtobufCMessage *m = protobuf_c_message_unpack(desc, NULL, GRPC_SLICE_LENGTH(all),
                                                    GRPC_SLICE_START_PTR(all));
    grpc_slice_unref(all);
    if (!m) bt_fail(st, BT_ERROR, "malformed %s from the server", desc->short_name);
    return m;
}

/* The routing header Google's front ends use to find the table's cluster:
 * "x-goog-request-params: table_name=projects%2Fp%2F...". */
static char *routing_header(const bt_call *call) {
    if (!call->param_key) return NULL;
    size_t vlen = strlen(call->param_value);
    char *out = malloc(strlen(call->param_key) + 2 + 3 * vlen);
    if (!out) return NULL;
    char *p = out + sprintf(out, "%s=", call->param_key);
    for (size_t i = 0; i < vlen; i++) {
        unsigned char c = (unsigned char)call->param_value[i];
        bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                     c == '-' || c == '_' || c == '.' || c == '~';
        if (plain) *p++ = (char)c;
        else p += sprintf(p, "%%%02X", c);
    }
    *p = '\0';
    return out;
}

/* The status operation's results, filled in by gRPC. */
typedef struct call_status {
    grpc_metadata_array trailing;
    grpc_status_code code;
    grpc_slice details;
} call_status;

static void status_op(grpc_op *op, call_status *cs) {
    memset(op, 0, sizeof *op);
    op->op = GRPC_OP_RECV_STATUS_ON_CLIENT;
    op->data.recv_status_on_client.trailing_metadata = &cs->trailing;
    op->data.recv_status_on_client.status = &cs->code;
    op->data.recv_status_on_client.status_details = &cs->details;
}

/* Turns a finished call's status into @p st and returns its code. */
static bt_code status_result(const call_status *cs, const bt_call *call, bt_status *st) {
    bt_code code = bt_code_from_grpc((int)cs->code);
    if (code == BT_OK) {
        bt_status_ok(st);
        return BT_OK;
    }
    const char *method = strrchr(call->method, '/');
    bt_fail(st, code, "%s: %.*s", method ? method + 1 : call->method,
            (int)GRPC_SLICE_LENGTH(cs->details), (const char *)GRPC_SLICE_START_PTR(cs->details));
    if (st) st->grpc_code = (int)cs->code;
    return code;
}

/* The parts every call starts with. */
typedef struct call_setup {
    grpc_completion_queue *cq;
    grpc_call *call;
    grpc_metadata md;
    char *header;
    grpc_byte_buffer *request;
    call_status cs;
} call_setup;

static bt_code setup_call(call_setup *c, bt_channel *ch, const bt_call *call,
                          const ProtobufCMessage *req, bt_status *st) {
    memset(c, 0, sizeof *c);
    grpc_metadata_array_init(&c->cs.trailing);
    c->cs.details = grpc_empty_slice();
    c->header = routing_header(call);
    c->request = pack_request(req);
    if ((call->param_key && !c->header) || !c->request)
        return bt_fail(st, BT_ERROR, "out of memory");
    if (c->header) {
        c->md.key = grpc_slice_from_static_string("x-goog-request-params");
        c->md.value = grpc_slice_from_static_string(c->header);
    }
    c->cq = grpc_completion_queue_create_for_next(NULL);
    grpc_slice method = grpc_slice_from_static_string(call->method);
    c->call = grpc_channel_create_call(ch->channel, NULL, GRPC_PROPAGATE_DEFAULTS, c->cq, method,
                                       NULL, deadline_after(call->timeout_ms), NULL);
    if (!c->call) return bt_fail(st, BT_ERROR, "%s: cannot create the call", call->method);
    return BT_OK;
}

/* Waits for the event of @p tag; other tags that finish meanwhile are
 * recorded in @p done (bit per tag). The call's deadline bounds the wait. */
static bool wait_tag(grpc_completion_queue *cq, intptr_t tag, unsigned *done) {
    while (!(*done & (1u << tag))) {
        grpc_event ev = grpc_completion_queue_next(cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
        if (ev.type != GRPC_OP_COMPLETE) return false;
        *done |= 1u << (intptr_t)ev.tag;
        if ((intptr_t)ev.tag == tag && !ev.success) return false;
    }
    return true;
}

static void teardown_call(call_setup *c) {
    if (c->call) grpc_call_unref(c->call);
    if (c->cq) {
        grpc_completion_queue_shutdown(c->cq);
        while (grpc_completion_queue_next(c->cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL).type !=
               GRPC_QUEUE_SHUTDOWN) {
        }
        grpc_completion_queue_destroy(c->cq);
    }
    if (c->request) grpc_byte_buffer_destroy(c->request);
    grpc_metadata_array_destroy(&c->cs.trailing);
    grpc_slice_unref(c->cs.details);
    free(c->header);
}

/* Fills the operations that start a call: metadata, request, half-close. */
static size_t start_ops(grpc_op *ops, call_setup *c) {
    memset(ops, 0, 3 * sizeof *ops);
    ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
    ops[0].data.send_initial_metadata.count = c->header ? 1 : 0;
    ops[0].data.send_initial_metadata.metadata = c->header ? &c->md : NULL;
    ops[1].op = GRPC_OP_SEND_MESSAGE;
    ops[1].data.send_message.send_message = c->request;
    ops[2].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
    return 3;
}

/* ---- unary ---- */

bt_code bt_unary(bt_channel *ch, const bt_call *call, const ProtobufCMessage *req,
                 const ProtobufCMessageDescriptor *resp_desc, ProtobufCMessage **resp,
                 bt_status *st) {
    *resp = NULL;
    call_setup c;
    bt_code rc = setup_call(&c, ch, call, req, st);
    if (rc != BT_OK) {
        teardown_call(&c);
        return rc;
    }
    grpc_metadata_array initial;
    grpc_metadata_array_init(&initial);
    grpc_byte_buffer *reply = NULL;
    grpc_op ops[6];
    size_t n = start_ops(ops, &c);
    memset(ops + n, 0, 3 * sizeof *ops);
    ops[n].op = GRPC_OP_RECV_INITIAL_METADATA;
    ops[n++].data.recv_initial_metadata.recv_initial_metadata = &initial;
    ops[n].op = GRPC_OP_RECV_MESSAGE;
    ops[n++].data.recv_message.recv_message = &reply;
    status_op(&ops[n++], &c.cs);
    unsigned done = 0;
    if (grpc_call_start_batch(c.call, ops, n, (void *)(intptr_t)TAG_UNARY, NULL) != GRPC_CALL_OK)
        rc = bt_fail(st, BT_ERROR, "%s: cannot start the call", call->method);
    else if (!wait_tag(c.cq, TAG_UNARY, &done))
        rc = bt_fail(st, BT_ERROR, "%s: the call did not complete", call->method);
    else if ((rc = status_result(&c.cs, call, st)) == BT_OK) {
        if (!reply) rc = bt_fail(st, BT_ERROR, "%s: no response message", call->method);
        else if (!(*resp = unpack_response(reply, resp_desc, st))) rc = BT_ERROR;
    }
    if (reply) grpc_byte_buffer_destroy(reply);
    grpc_metadata_array_destroy(&initial);
    teardown_call(&c);
    return rc;
}

/* ---- server streaming ---- */

struct bt_stream {
    call_setup c;
    bt_call call;                 /* method string is the caller's (static) */
    const ProtobufCMessageDescriptor *desc;
    grpc_metadata_array initial;
    unsigned done;                /* bit per tag whose event has arrived */
    bool finished;                /* the status is in c.cs */
    bt_code result;               /* final result once finished */
    bt_status final;              /* ... and its message */
};

bt_code bt_stream_open(bt_stream **out, bt_channel *ch, const bt_call *call,
                       const ProtobufCMessage *req, const ProtobufCMessageDescriptor *resp_desc,
                       bt_status *st) {
    *out = NULL;
    bt_stream *s = calloc(1, sizeof *s);
    if (!s) return bt_fail(st, BT_ERROR, "out of memory");
    s->call = *call;
    s->desc = resp_desc;
    grpc_metadata_array_init(&s->initial);
    bt_code rc = setup_call(&s->c, ch, call, req, st);
    if (rc == BT_OK) {
        grpc_op ops[4];
        size_t n = start_ops(ops, &s->c);
        memset(&ops[n], 0, sizeof ops[n]);
        ops[n].op = GRPC_OP_RECV_INITIAL_METADATA;
        ops[n++].data.recv_initial_metadata.recv_initial_metadata = &s->initial;
        grpc_op sop;
        status_op(&sop, &s->c.cs);
        if (grpc_call_start_batch(s->c.call, ops, n, (void *)(intptr_t)TAG_START, NULL) !=
                GRPC_CALL_OK ||
            grpc_call_start_batch(s->c.call, &sop, 1, (void *)(intptr_t)TAG_STATUS, NULL) !=
                GRPC_CALL_OK)
            rc = bt_fail(st, BT_ERROR, "%s: cannot start the call", call->method);
    }
    if (rc != BT_OK) {
        /* A started status batch must complete before teardown: cancel. */
        if (s->c.call) grpc_call_cancel(s->c.call, NULL);
        teardown_call(&s->c);
        grpc_metadata_array_destroy(&s->initial);
        free(s);
        return rc;
    }
    bt_status_ok(st);
    *out = s;
    return BT_OK;
}

/* Waits for the status and records it as the stream's final result. */
static void finish_stream(bt_stream *s) {
    if (!wait_tag(s->c.cq, TAG_STATUS, &s->done))
        s->result = bt_fail(&s->final, BT_ERROR, "%s: the call did not complete", s->call.method);
    else s->result = status_result(&s->c.cs, &s->call, &s->final);
    s->finished = true;
}

bt_code bt_stream_next(bt_stream *s, ProtobufCMessage **msg, bt_status *st) {
    *msg = NULL;
    if (!s->finished) {
        grpc_byte_buffer *bb = NULL;
        grpc_op op;
        memset(&op, 0, sizeof op);
        op.op = GRPC_OP_RECV_MESSAGE;
        op.data.recv_message.recv_message = &bb;
        s->done &= ~(1u << TAG_RECV);
        bool ok = grpc_call_start_batch(s->c.call, &op, 1, (void *)(intptr_t)TAG_RECV, NULL) ==
                      GRPC_CALL_OK &&
                  wait_tag(s->c.cq, TAG_RECV, &s->done);
        if (ok && bb) {
            *msg = unpack_response(bb, s->desc, st);
            grpc_byte_buffer_destroy(bb);
            if (*msg) return BT_OK;
            /* A message we cannot parse ends the stream: nothing after it
             * can be trusted to line up. */
            grpc_call_cancel(s->c.call, NULL);
            finish_stream(s);
            s->result = BT_ERROR;
            s->final = *st;
            return BT_ERROR;
        }
        if (bb) grpc_byte_buffer_destroy(bb);
        /* No message: the server ended the stream (or the call failed). */
        finish_stream(s);
    }
    if (st) *st = s->final;
    return s->result;
}

void bt_stream_close(bt_stream *s) {
    if (!s) return;
    if (!s->finished) {
        /* Closed early: cancel so that the server stops sending, then
         * collect the status event the queue still owes us. */
        grpc_call_cancel(s->c.call, NULL);
        wait_tag(s->c.cq, TAG_STATUS, &s->done);
    }
    /* The start batch may still be pending if the stream never got a
     * message; the cancel above completes it, and shutdown drains it. */
    teardown_call(&s->c);
    grpc_metadata_array_destroy(&s->initial);
    free(s);
}
