/**
 * @file report.h
 * Failure messages and the log sink of one store: the text that
 * kv_store_errmsg gives each calling thread (one slot per thread, so that
 * one thread's failure never rewrites the text another is reading), the
 * last failure of a background thread (which writes refused because of it
 * are told), and the user's log callback. A leaf module: it calls only libc
 * and pthreads. Used by the store handle of every backend.
 *
 * Thread safety: every function may be called from any thread; the slots
 * are guarded by the report's own mutex, a leaf lock.
 */
#ifndef KV_UTIL_REPORT_H
#define KV_UTIL_REPORT_H

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#define KV_REPORT_SLOTS 32
#define KV_REPORT_TEXT 512

typedef void (*kv_log_sink)(void *ctx, int level, const char *message);

typedef struct kv_report {
    pthread_mutex_t mu;
    struct kv_report_slot {
        bool used;
        pthread_t thread;
        char text[KV_REPORT_TEXT];
    } slots[KV_REPORT_SLOTS];             /* (mu) */
    size_t next;                          /* the slot a new thread takes (mu) */
    atomic_size_t pending;                /* slots whose text is not "" */
    char background[KV_REPORT_TEXT];      /* last background failure (mu) */
    kv_log_sink sink;                     /* may be NULL; set once */
    void *sink_ctx;
} kv_report;

void kv_report_init(kv_report *r, kv_log_sink sink, void *sink_ctx);
void kv_report_destroy(kv_report *r);

/* Records a message at @p level. An error becomes the calling thread's
   failure text (and with @p background also the background text); with
   @p to_sink the message also goes to the log sink. */
void kv_report_vrecord(kv_report *r, int level, bool to_sink, bool background, const char *fmt,
                       va_list ap) __attribute__((format(printf, 5, 0)));
/* Called as each public call on the store begins: forgets the calling
   thread's failure text, so that after the call the text is about that
   call ("" when it recorded none), never an earlier call's. One atomic load
   while no thread holds a text. */
void kv_report_begin(kv_report *r);
/* The calling thread's last failure text ("" if none). The pointer stays
   valid (its text may become "") until the thread's next failure (or until KV_REPORT_SLOTS other
   threads have failed since) and at most until kv_report_destroy. */
const char *kv_report_last(kv_report *r);
/* Copies the last background failure text (may be "") into buf. */
void kv_report_background(kv_report *r, char *buf, size_t len);

#endif
