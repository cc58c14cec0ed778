/**
 * @file report.c
 * Per-thread failure messages, the background failure text and the log
 * sink of a store (contracts in report.h). Called by the engine's and the
 * backends' error helpers; calls libc and pthreads only.
 */
#include "report.h"
#include "kvcore.h"

#include <stdio.h>
#include <string.h>

void kv_report_init(kv_report *r, kv_log_sink sink, void *sink_ctx) {
    memset(r, 0, sizeof *r);
    atomic_init(&r->pending, 0);
    pthread_mutex_init(&r->mu, NULL);
    r->sink = sink;
    r->sink_ctx = sink_ctx;
}

void kv_report_destroy(kv_report *r) { pthread_mutex_destroy(&r->mu); }

/* The message slot of the calling thread, taking the oldest slot when the
   thread has none (mu held). */
static struct kv_report_slot *thread_slot(kv_report *r, bool create) {
    pthread_t self = pthread_self();
    for (size_t i = 0; i < KV_REPORT_SLOTS; i++)
        if (r->slots[i].used && pthread_equal(r->slots[i].thread, self)) return &r->slots[i];
    if (!create) return NULL;
    struct kv_report_slot *slot = &r->slots[r->next++ % KV_REPORT_SLOTS];
    slot->used = true;
    slot->thread = self;
    return slot;
}

void kv_report_vrecord(kv_report *r, int level, bool to_sink, bool background, const char *fmt,
                       va_list ap) {
    char msg[KV_REPORT_TEXT];
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (level == KV_LOG_ERROR) {
        pthread_mutex_lock(&r->mu);
        struct kv_report_slot *slot = thread_slot(r, true);
        if (!slot->text[0] && msg[0]) atomic_fetch_add(&r->pending, 1);
        if (slot->text[0] && !msg[0]) atomic_fetch_sub(&r->pending, 1);
        snprintf(slot->text, sizeof slot->text, "%s", msg);
        if (background) snprintf(r->background, sizeof r->background, "%s", msg);
        pthread_mutex_unlock(&r->mu);
    }
    if (to_sink && r->sink) r->sink(r->sink_ctx, level, msg);
}

void kv_report_begin(kv_report *r) {
    if (atomic_load_explicit(&r->pending, memory_order_relaxed) == 0) return;
    pthread_mutex_lock(&r->mu);
    struct kv_report_slot *slot = thread_slot(r, false);
    if (slot && slot->text[0]) {
        slot->text[0] = 0;
        atomic_fetch_sub(&r->pending, 1);
    }
    pthread_mutex_unlock(&r->mu);
}

const char *kv_report_last(kv_report *r) {
    pthread_mutex_lock(&r->mu);
    struct kv_report_slot *slot = thread_slot(r, false);
    pthread_mutex_unlock(&r->mu);
    return slot ? slot->text : "";
}

void kv_report_background(kv_report *r, char *buf, size_t len) {
    pthread_mutex_lock(&r->mu);
    snprintf(buf, len, "%s", r->background);
    pthread_mutex_unlock(&r->mu);
}
