/**
 * @file bt_status.h
 * The Bigtable backend's small status: a code that callers branch on and a
 * message a user can read. The transport (bt_transport.c) turns gRPC status
 * codes into these; the mapping and client modules add their own. The
 * backend turns them into kv_status codes in one place (handle.c).
 */
#ifndef CELLFS_BT_STATUS_H
#define CELLFS_BT_STATUS_H

#include <stdbool.h>

typedef enum bt_code {
    BT_OK = 0,
    BT_NOT_FOUND,       /* table, family or row absent (gRPC NOT_FOUND) */
    BT_ALREADY_EXISTS,  /* gRPC ALREADY_EXISTS */
    BT_INVALID,         /* bad argument, ours or the server's verdict */
    BT_UNSUPPORTED,     /* an HBase operation Bigtable cannot express, or
                           one the server does not implement (gRPC
                           UNIMPLEMENTED) */
    BT_UNAVAILABLE,     /* transient: UNAVAILABLE or ABORTED; safe to retry
                           only idempotent calls */
    BT_DEADLINE,        /* the call's deadline passed; outcome unknown */
    BT_ERROR,           /* anything else (permission, protocol, UNKNOWN) */
} bt_code;

typedef struct bt_status {
    bt_code code;
    int grpc_code;      /* the gRPC status code, or -1 when not from gRPC */
    char msg[512];      /* what failed and why; "" when code is BT_OK */
} bt_status;

/** Sets @p st (may be NULL) to OK. */
void bt_status_ok(bt_status *st);

/** Sets @p st (may be NULL) to @p code with a printf-style message and
 *  returns @p code, so that failures read `return bt_fail(st, ...)`. */
bt_code bt_fail(bt_status *st, bt_code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/** A fixed name for @p code ("OK", "NOT_FOUND", ...). */
const char *bt_code_name(bt_code code);

/** The code for a gRPC status code (grpc_status_code's numbers). */
bt_code bt_code_from_grpc(int grpc_code);

/** True for failures after which an idempotent request may be sent again:
 *  gRPC UNAVAILABLE, DEADLINE_EXCEEDED and ABORTED (what Google's clients
 *  retry for reads and idempotent writes). */
bool bt_grpc_retryable(int grpc_code);

#endif
