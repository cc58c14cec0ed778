/**
 * @file errors.c
 * The engine's failure messages and log events (errors.h) over
 * util/report.c: failures of the flush and compaction threads also become
 * the background message that later writes are refused with.
 */
#include "errors.h"

#include <stdio.h>

static bool on_background_thread(const kv_engine *s) {
    pthread_t self = pthread_self();
    return (s->bg_started && pthread_equal(self, s->bg_thread)) ||
           (s->compact_started && pthread_equal(self, s->compact_thread));
}

/* Failures of a call are returned to its caller and not logged, so that
   nothing is reported twice; kv_log's messages go to the sink. */
kv_status kv_fail(kv_engine *s, kv_status status, const char *fmt, ...) {
    if (!s) return status;
    va_list ap;
    va_start(ap, fmt);
    kv_report_vrecord(s->report, KV_LOG_ERROR, false, on_background_thread(s), fmt, ap);
    va_end(ap);
    return status;
}

kv_status kv_fail_background(kv_engine *s, kv_status status, const char *what) {
    char bg[KV_REPORT_TEXT];
    kv_report_background(s->report, bg, sizeof bg);
    return kv_fail(s, status, "%s: %s", what, bg[0] ? bg : kv_strerror(status));
}

void kv_log(kv_engine *s, int level, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    kv_report_vrecord(s->report, level, true, on_background_thread(s), fmt, ap);
    va_end(ap);
}

int64_t kv_clock_now(kv_engine *s) { return kv_clock_read(&s->clock); }
