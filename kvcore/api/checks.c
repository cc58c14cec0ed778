/**
 * @file checks.c
 * The checks every public call makes before it dispatches to the store's
 * backend (api_i.h): messages for read-only stores, missing capabilities
 * and options structs of an unknown version.
 */
#include "api_i.h"
#include "util/vecstate.h"

#include <ctype.h>
#include <stdio.h>

void kv_api_begin(kv_store *s) {
    kv_vector_state_clean();
    if (s) kv_report_begin(&s->report);
}

kv_status kv_api_fail(kv_store *s, kv_status status, const char *fmt, ...) {
    if (!s) return status;
    va_list ap;
    va_start(ap, fmt);
    kv_report_vrecord(&s->report, KV_LOG_ERROR, false, false, fmt, ap);
    va_end(ap);
    return status;
}

kv_status kv_api_writable(kv_store *s, const char *what) {
    if (!s->read_only) return KV_OK;
    return kv_api_fail(s, KV_READ_ONLY, "%s: the store is open read-only", what);
}

/* What each capability allows, for messages. */
static const char *capability_name(uint64_t cap) {
    switch (cap) {
    case KV_CAP_DELETE_MARKERS: return "delete markers with timestamps";
    case KV_CAP_DELETE_FAMILY_VERSION: return "deletes of a family's cells at one timestamp";
    case KV_CAP_RAW_SCANS: return "raw reads (delete markers and masked cells)";
    case KV_CAP_NAMESPACES: return "namespaces";
    case KV_CAP_FLUSH: return "flushes";
    case KV_CAP_COMPACT: return "compactions";
    case KV_CAP_SNAPSHOT_SCANS: return "whole-table snapshot scans";
    case KV_CAP_KEEP_DELETED_CELLS: return "KEEP_DELETED_CELLS";
    case KV_CAP_MIN_VERSIONS: return "MIN_VERSIONS";
    case KV_CAP_NEW_VERSION_BEHAVIOR: return "NEW_VERSION_BEHAVIOR";
    case KV_CAP_DISABLE_TABLES: return "disabled tables";
    case KV_CAP_DURABLE: return "durable stores";
    case KV_CAP_EXCLUSIVE: return "stores that no one else writes";
    case KV_CAP_TABLE_ATTRIBUTES: return "table attributes";
    }
    return "this operation";
}

kv_status kv_api_need(kv_store *s, uint64_t cap, const char *what) {
    if (s->ops->capabilities & cap) return KV_OK;
    const char *why = s->ops->xWhyNot ? s->ops->xWhyNot(cap) : NULL;
    return kv_api_fail(s, KV_NOT_SUPPORTED, "%s: the %s backend does not support %s%s%s", what,
                       s->ops->name, capability_name(cap), why ? ": " : "", why ? why : "");
}

kv_status kv_api_version(kv_store *s, const char *what, int got, int want) {
    if (got == want) return KV_OK;
    char macro[64];   /* "kv_read_options" -> "KV_READ_OPTIONS_INIT" */
    size_t i = 0;
    for (; what[i] && i + 6 < sizeof macro; i++) macro[i] = (char)toupper((unsigned char)what[i]);
    snprintf(macro + i, sizeof macro - i, "_INIT");
    return kv_api_fail(s, KV_INVALID, "%s has version %d; this library knows version %d (start "
                       "from %s)", what, got, want, macro);
}

kv_status kv_api_durability(kv_store *s, const kv_write_options *w, kv_durability *d) {
    *d = KV_DURABILITY_DEFAULT;
    if (!w) return KV_OK;
    kv_status st = kv_api_version(s, "kv_write_options", w->version, KV_WRITE_OPTIONS_VERSION);
    if (st == KV_OK) *d = w->durability;
    return st;
}
