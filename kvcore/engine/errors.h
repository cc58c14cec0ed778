/**
 * @file errors.h
 * How engine modules report (errors.c): a call's failure message for the
 * calling thread, background events for the log sink, and the engine's
 * clock. Thin wrappers over util/report.h that know which threads are the
 * engine's background threads.
 */
#ifndef KV_ENGINE_ERRORS_H
#define KV_ENGINE_ERRORS_H

#include "engine_i.h"

/* Records a call's failure message on the store; returns status. A
   failure on a background thread also becomes the background message. */
kv_status kv_fail(kv_engine *s, kv_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Fails a call because background work failed: the caller's message
   says what it was doing and why the background work failed. */
kv_status kv_fail_background(kv_engine *s, kv_status status, const char *what);
/* Reports a background event to the log sink (errors also become the
   store's last failure message). */
void kv_log(kv_engine *s, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The store's clock (the user's or the real-time clock), in ms. */
int64_t kv_clock_now(kv_engine *s);

#endif
