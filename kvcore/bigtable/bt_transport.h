/**
 * @file bt_transport.h
 * gRPC transport of the Bigtable backend: one channel per endpoint, unary
 * calls, and server-streaming calls read as a pull iterator. Requests and
 * responses are protobuf-c messages of bigtable.proto; this module packs
 * and unpacks them, sets deadlines and routing headers, and turns gRPC's
 * status into a bt_status. Called by bt_client.c, bt_write.c and
 * bt_read.c; calls gRPC core's C API and protobuf-c.
 *
 * Thread safety: a bt_channel may be used by any number of threads at once
 * (each call has its own completion queue; gRPC channels are thread-safe).
 * A bt_stream belongs to one thread at a time.
 */
#ifndef CELLFS_BT_TRANSPORT_H
#define CELLFS_BT_TRANSPORT_H

#include <stdbool.h>
#include <stdint.h>

#include <protobuf-c/protobuf-c.h>

#include "bt_status.h"

/** Largest message a channel accepts: a ReadModifyWrite response or a
 *  ReadRows chunk may carry a whole cell of up to 100 MiB, far above
 *  gRPC's default 4 MiB receive limit. */
#define BT_MAX_RECV_MESSAGE (256 * 1024 * 1024)

typedef struct bt_channel bt_channel;

/**
 * Opens a channel to @p target ("host:port"). @p plaintext: no TLS and no
 * credentials (the emulator); otherwise TLS with Google's Application
 * Default Credentials (GOOGLE_APPLICATION_CREDENTIALS, gcloud's
 * application-default login, or the metadata server). No connection is
 * made here: the first call connects, and a failure to connect shows as
 * BT_UNAVAILABLE or BT_DEADLINE there.
 * Returns NULL with @p st set (BT_ERROR) if no credentials could be found.
 * Close with bt_channel_close.
 */
bt_channel *bt_channel_open(const char *target, bool plaintext, bt_status *st);

/** Closes @p ch (NULL is a no-op). Every stream on it must be closed. */
void bt_channel_close(bt_channel *ch);

/** The target the channel was opened with. */
const char *bt_channel_target(const bt_channel *ch);

/** What a call needs besides its request. */
typedef struct bt_call {
    const char *method;        /* "/google.bigtable.v2.Bigtable/MutateRow" */
    const char *param_key;     /* routing header key, e.g. "table_name"; NULL: none */
    const char *param_value;   /* its value (URL-encoded here) */
    int64_t timeout_ms;        /* deadline from the start of the call; > 0 */
} bt_call;

/**
 * Sends @p req and waits for one response, which is unpacked with
 * @p resp_desc into *@p resp (free it with protobuf_c_message_free_unpacked).
 * Returns BT_OK, or the call's failure with *@p resp NULL and @p st holding
 * the server's message and gRPC code.
 */
bt_code bt_unary(bt_channel *ch, const bt_call *call, const ProtobufCMessage *req,
                 const ProtobufCMessageDescriptor *resp_desc, ProtobufCMessage **resp,
                 bt_status *st);

/** A server-streaming call in progress. */
typedef struct bt_stream bt_stream;

/**
 * Starts a server-streaming call. Nothing is received until
 * bt_stream_next asks, so at most one response message is buffered here
 * beyond what HTTP/2 flow control lets the server send ahead.
 * Returns BT_OK with *@p out set, or a failure with *@p out NULL.
 */
bt_code bt_stream_open(bt_stream **out, bt_channel *ch, const bt_call *call,
                       const ProtobufCMessage *req, const ProtobufCMessageDescriptor *resp_desc,
                       bt_status *st);

/**
 * Receives the next response message into *@p msg (free it with
 * protobuf_c_message_free_unpacked). At the end of the stream returns
 * BT_OK with *@p msg NULL; a failure of the call returns its code, also
 * after some messages were received. After the end or a failure, further
 * calls return the same result.
 */
bt_code bt_stream_next(bt_stream *s, ProtobufCMessage **msg, bt_status *st);

/** Ends the call, cancelling it if the server has not finished, and frees
 *  @p s (NULL is a no-op). */
void bt_stream_close(bt_stream *s);

#endif
