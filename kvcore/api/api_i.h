/**
 * @file api_i.h
 * The handle behind kvcore.h's kv_store: which backend serves the store,
 * the backend's state, and the failure messages every call records; plus
 * the checks that every public call shares before it dispatches (NULL
 * handles, options versions, read-only stores, capabilities). Used by the
 * files of api/ only.
 */
#ifndef KV_API_I_H
#define KV_API_I_H

#include "hbase/backend.h"
#include "util/report.h"

struct kv_store {
    const kv_backend_ops *ops;  /* set at open, never changed */
    kv_backend *b;              /* the backend's state */
    kv_report report;           /* failure messages and the log sink */
    bool read_only;             /* kv_store_options.read_only */
};

/* Begins a public call on s (NULL: nothing): the calling thread's failure
   text is forgotten, so that kv_store_errmsg after the call is about this
   call. Every public call that takes a store or a scan calls it first. */
void kv_api_begin(kv_store *s);
/* Records a failure message on the store (when it is non-NULL) and
   returns status. */
kv_status kv_api_fail(kv_store *s, kv_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* KV_READ_ONLY (with a message naming @p what) on a read-only store. */
kv_status kv_api_writable(kv_store *s, const char *what);
/* KV_NOT_SUPPORTED with a message saying what needs which capability and
   why, unless the backend has @p cap. */
kv_status kv_api_need(kv_store *s, uint64_t cap, const char *what);
/* KV_INVALID with a message naming the struct, unless got == want. */
kv_status kv_api_version(kv_store *s, const char *what, int got, int want);
/* The durability of a write: the options' (after their version check) or
   the default. KV_OK or KV_INVALID. */
kv_status kv_api_durability(kv_store *s, const kv_write_options *w, kv_durability *d);

#endif
