/**
 * @file bt_read.c
 * The ReadRows pull iterator (see bt_read.h): one response message at a
 * time is fed chunk by chunk to the assembler until a row commits. On a
 * retryable failure the call is replaced by one for the rows after the
 * last committed key (before it, for a reversed read), with the row limit
 * reduced by the rows delivered.
 */
#include "bt_read.h"

#include <stdlib.h>
#include <string.h>

#include "bt_chunks.h"

#define READ_ROWS "/google.bigtable.v2.Bigtable/ReadRows"

struct bt_reader {
    bt_client *client;
    char table_name[512];
    Btpb__ReadRowsRequest *req;       /* owned copy of the first request */
    bt_stream *stream;
    Btpb__ReadRowsResponse *msg;      /* the response being consumed */
    size_t next_chunk;
    bt_asm assembler;
    int attempt;                      /* failed tries since the last row */
    unsigned resumes;
    bool done;
    bt_code failed;                   /* sticky failure */
    bt_status failure;
};

static bt_code start_stream(bt_reader *r, const Btpb__ReadRowsRequest *req, bt_status *st) {
    const bt_client_options *o = bt_client_opts(r->client);
    bt_call spec = { READ_ROWS, "table_name", r->table_name, o->stream_timeout_ms };
    return bt_stream_open(&r->stream, bt_client_data(r->client), &spec, &req->base,
                          &btpb__read_rows_response__descriptor, st);
}

bt_code bt_reader_open(bt_reader **out, bt_client *c, const char *table_id,
                       const bt_read_spec *spec, int64_t now_ms, bt_status *st) {
    *out = NULL;
    bt_reader *r = calloc(1, sizeof *r);
    if (!r) return bt_fail(st, BT_ERROR, "out of memory");
    r->client = c;
    bt_asm_init(&r->assembler, 0);
    r->assembler.reversed = spec->reversed;
    bt_arena a = BT_ARENA_INIT;
    Btpb__ReadRowsRequest *req = NULL;
    bt_code rc = bt_client_table_name(c, table_id, r->table_name, sizeof r->table_name, st);
    if (rc == BT_OK) rc = bt_map_read(&req, &a, r->table_name, spec, now_ms, st);
    if (rc == BT_OK && !req) r->done = true; /* the read can match nothing */
    if (rc == BT_OK && req) {
        /* Own the request: pack it and unpack a private copy, so that the
         * spec's buffers and the arena can go now. */
        size_t len = protobuf_c_message_get_packed_size(&req->base);
        uint8_t *buf = malloc(len ? len : 1);
        if (buf) {
            protobuf_c_message_pack(&req->base, buf);
            r->req = btpb__read_rows_request__unpack(NULL, len, buf);
            free(buf);
        }
        if (!r->req) rc = bt_fail(st, BT_ERROR, "out of memory");
        else rc = start_stream(r, r->req, st);
    }
    bt_arena_free(&a);
    if (rc != BT_OK) {
        bt_reader_close(r);
        return rc;
    }
    *out = r;
    return BT_OK;
}

/* Replaces the failed stream with one for what is left to read; sets done
 * when nothing is left. */
static bt_code resume(bt_reader *r, bt_status *st) {
    bt_stream_close(r->stream);
    r->stream = NULL;
    bt_asm_restart(&r->assembler);
    int64_t limit = r->req->rows_limit;
    if (limit > 0) {
        limit -= (int64_t)r->assembler.rows_committed;
        if (limit <= 0) {
            r->done = true;
            return BT_OK;
        }
    }
    bt_arena a = BT_ARENA_INIT;
    Btpb__ReadRowsRequest req = *r->req;
    req.rows_limit = limit;
    bool empty = false;
    bt_code rc = BT_OK;
    if (r->assembler.has_last)
        rc = (r->req->reversed ? bt_map_rows_before : bt_map_rows_after)(
            &req.rows, &empty, &a, r->req->rows, r->assembler.last_key,
            r->assembler.last_key_len, st);
    if (rc == BT_OK && empty) r->done = true;
    else if (rc == BT_OK) {
        bt_client_backoff(r->client, r->attempt);
        rc = start_stream(r, &req, st);
        r->resumes++;
    }
    bt_arena_free(&a);
    return rc;
}

static bt_code fail(bt_reader *r, bt_code rc, const bt_status *why, bt_status *st) {
    r->failed = rc;
    r->failure = *why;
    if (st) *st = *why;
    return rc;
}

bt_code bt_reader_next(bt_reader *r, bt_row *row, bool *got, bt_status *st) {
    *got = false;
    bt_row_clear(row);
    if (r->failed != BT_OK) {
        if (st) *st = r->failure;
        return r->failed;
    }
    bt_status local;
    for (;;) {
        if (r->done) {
            bt_status_ok(st);
            return BT_OK;
        }
        if (r->msg && r->next_chunk < r->msg->n_chunks) {
            int fed = bt_asm_feed(&r->assembler, r->msg->chunks[r->next_chunk++], row, &local);
            if (fed < 0) return fail(r, BT_ERROR, &local, st);
            if (fed == 1) {
                r->attempt = 0;
                *got = true;
                bt_status_ok(st);
                return BT_OK;
            }
            continue;
        }
        if (r->msg) protobuf_c_message_free_unpacked(&r->msg->base, NULL);
        r->msg = NULL;
        r->next_chunk = 0;
        ProtobufCMessage *m;
        bt_code rc = bt_stream_next(r->stream, &m, &local);
        if (rc == BT_OK && m) {
            r->msg = (Btpb__ReadRowsResponse *)m;
            continue;
        }
        if (rc == BT_OK) {
            if (bt_asm_end(&r->assembler, &local) != BT_OK) return fail(r, BT_ERROR, &local, st);
            r->done = true;
            continue;
        }
        /* Protocol errors and non-transient statuses end the read; a
         * transient one resumes it unless this row was tried too often. */
        if (!bt_grpc_retryable(local.grpc_code) ||
            ++r->attempt >= bt_client_opts(r->client)->max_attempts)
            return fail(r, rc, &local, st);
        if ((rc = resume(r, &local)) != BT_OK) return fail(r, rc, &local, st);
    }
}

unsigned bt_reader_resumes(const bt_reader *r) {
    return r->resumes;
}

void bt_reader_close(bt_reader *r) {
    if (!r) return;
    if (r->msg) protobuf_c_message_free_unpacked(&r->msg->base, NULL);
    bt_stream_close(r->stream);
    if (r->req) btpb__read_rows_request__free_unpacked(r->req, NULL);
    bt_asm_destroy(&r->assembler);
    free(r);
}
