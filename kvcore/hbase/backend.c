/**
 * @file backend.c
 * kv_backend_fail (backend.h): how a backend records a failure message.
 */
#include "backend.h"

kv_status kv_backend_fail(kv_report *report, kv_status status, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    kv_report_vrecord(report, KV_LOG_ERROR, false, false, fmt, ap);
    va_end(ap);
    return status;
}
