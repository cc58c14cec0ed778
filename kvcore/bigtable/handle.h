/**
 * @file handle.h
 * The Bigtable backend's handle (store_i.h) opened from a location, its
 * clock, and the one place where the client's bt_status becomes a
 * kv_status with a message. Used by every other module of the backend's
 * kvcore side; calls bt_client.c and util/.
 */
#ifndef KV_BIGTABLE_HANDLE_H
#define KV_BIGTABLE_HANDLE_H

#include "store_i.h"

/* Opens the handle for "bigtable://PROJECT/INSTANCE" and checks, with one
   ListTables call, that the instance answers. Errors: KV_INVALID (a
   malformed location, an unknown kv_bigtable_options version),
   KV_NOT_FOUND (no such instance), KV_EXISTS (error_if_exists: an
   instance is always there), KV_UNAVAILABLE / KV_TIMEOUT (the server
   cannot be reached), KV_IO (no credentials, refused). Messages go to
   @p report. *out is NULL on failure. */
kv_status btb_handle_open(btb_store **out, const char *location, const kv_store_options *opts,
                          kv_report *report);
/* Frees the handle (the schema cache must be emptied first). */
void btb_handle_close(btb_store *s);

/* The clock for implicit timestamps and TTL: never below a value it
   returned before, so that implicit timestamps never go backwards. */
int64_t btb_now(btb_store *s);

/* The kv_status of a client code: NOT_FOUND, EXISTS, INVALID,
   NOT_SUPPORTED, UNAVAILABLE, TIMEOUT, and KV_IO for every other failure
   (permission, protocol, the server's UNKNOWN). */
kv_status btb_status(bt_code code);
/* Records "<what>: <the client's or server's message>" for the calling
   thread and returns btb_status(st->code). */
kv_status btb_fail(btb_store *s, const bt_status *st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Records a message and returns @p status (a refusal of our own). */
kv_status btb_refuse(btb_store *s, kv_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
