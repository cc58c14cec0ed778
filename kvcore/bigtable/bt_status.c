/**
 * @file bt_status.c
 * Status codes of the Bigtable backend and their mapping from gRPC's. Used
 * by every bt_*.c file; calls nothing but libc.
 */
#include "bt_status.h"

#include <stdarg.h>
#include <stdio.h>

/* gRPC status codes (grpc/status.h); spelled out here so that this module
 * and its tests need no gRPC headers. The numbers are gRPC's wire values. */
enum {
    G_OK = 0, G_CANCELLED = 1, G_UNKNOWN = 2, G_INVALID_ARGUMENT = 3, G_DEADLINE_EXCEEDED = 4,
    G_NOT_FOUND = 5, G_ALREADY_EXISTS = 6, G_PERMISSION_DENIED = 7, G_RESOURCE_EXHAUSTED = 8,
    G_FAILED_PRECONDITION = 9, G_ABORTED = 10, G_OUT_OF_RANGE = 11, G_UNIMPLEMENTED = 12,
    G_INTERNAL = 13, G_UNAVAILABLE = 14, G_DATA_LOSS = 15, G_UNAUTHENTICATED = 16,
};

void bt_status_ok(bt_status *st) {
    if (!st) return;
    st->code = BT_OK;
    st->grpc_code = -1;
    st->msg[0] = '\0';
}

bt_code bt_fail(bt_status *st, bt_code code, const char *fmt, ...) {
    if (!st) return code;
    st->code = code;
    st->grpc_code = -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(st->msg, sizeof st->msg, fmt, ap);
    va_end(ap);
    return code;
}

const char *bt_code_name(bt_code code) {
    switch (code) {
    case BT_OK: return "OK";
    case BT_NOT_FOUND: return "NOT_FOUND";
    case BT_ALREADY_EXISTS: return "ALREADY_EXISTS";
    case BT_INVALID: return "INVALID";
    case BT_UNSUPPORTED: return "UNSUPPORTED";
    case BT_UNAVAILABLE: return "UNAVAILABLE";
    case BT_DEADLINE: return "DEADLINE";
    case BT_ERROR: return "ERROR";
    }
    return "?";
}

bt_code bt_code_from_grpc(int grpc_code) {
    switch (grpc_code) {
    case G_OK: return BT_OK;
    case G_NOT_FOUND: return BT_NOT_FOUND;
    case G_ALREADY_EXISTS: return BT_ALREADY_EXISTS;
    case G_INVALID_ARGUMENT:
    case G_FAILED_PRECONDITION:
    case G_OUT_OF_RANGE: return BT_INVALID;
    case G_UNAVAILABLE:
    case G_ABORTED: return BT_UNAVAILABLE;
    case G_DEADLINE_EXCEEDED: return BT_DEADLINE;
    /* A feature this server lacks (the emulator's "Client doesn't support
       reverse scans yet"): the operation cannot be done here. */
    case G_UNIMPLEMENTED: return BT_UNSUPPORTED;
    default: return BT_ERROR;
    }
}

bool bt_grpc_retryable(int grpc_code) {
    return grpc_code == G_UNAVAILABLE || grpc_code == G_DEADLINE_EXCEEDED || grpc_code == G_ABORTED;
}
