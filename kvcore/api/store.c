/**
 * @file store.c
 * The store calls of kvcore.h: open (the location picks the backend,
 * registry.c), close, the failure message, figures, the clock, the
 * capabilities, flush and compact. Each checks what every backend would
 * and dispatches to the store's backend.
 */
#include "api_i.h"
#include "registry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static kv_status open_failed(char *errmsg, size_t errlen, kv_status st, const char *why) {
    if (errmsg && errlen) snprintf(errmsg, errlen, "%s", why && *why ? why : kv_strerror(st));
    return st;
}

kv_status kv_store_open(kv_store **out, const char *location, const kv_store_options *opts,
                        char *errmsg, size_t errlen) {
    *out = NULL;
    if (errmsg && errlen) errmsg[0] = 0;
    char why[512] = "";
    if (!location || !*location) return open_failed(errmsg, errlen, KV_INVALID, "empty store location");
    if (opts && opts->version != KV_STORE_OPTIONS_VERSION) {
        snprintf(why, sizeof why, "kv_store_options has version %d; this library knows version %d "
                 "(start from KV_STORE_OPTIONS_INIT)", opts->version, KV_STORE_OPTIONS_VERSION);
        return open_failed(errmsg, errlen, KV_INVALID, why);
    }
    kv_store_options o = KV_STORE_OPTIONS_INIT;
    if (opts) o = *opts;
    if (!o.max_value_size) {
        kv_store_options defaults = KV_STORE_OPTIONS_INIT;
        o.max_value_size = defaults.max_value_size;
    }
    const kv_backend_ops *ops = kv_backend_for(location, why, sizeof why);
    if (!ops) return open_failed(errmsg, errlen, KV_NOT_SUPPORTED, why);
    kv_store *s = calloc(1, sizeof *s);
    if (!s) return open_failed(errmsg, errlen, KV_NO_MEMORY, NULL);
    s->ops = ops;
    s->read_only = o.read_only;
    kv_report_init(&s->report, o.log, o.log_ctx);
    kv_status st = ops->xOpen(&s->b, location, &o, &s->report);
    if (st != KV_OK) {
        open_failed(errmsg, errlen, st, kv_report_last(&s->report));
        kv_report_destroy(&s->report);
        free(s);
        return st;
    }
    *out = s;
    return KV_OK;
}

kv_status kv_store_close(kv_store *s) {
    if (!s) return KV_OK;
    kv_status st = s->ops->xClose(s->b);
    kv_report_destroy(&s->report);
    free(s);
    return st;
}

const char *kv_store_errmsg(kv_store *s) { return s ? kv_report_last(&s->report) : ""; }

kv_status kv_store_stat(kv_store_stats *out, kv_store *s) {
    memset(out, 0, sizeof *out);
    kv_api_begin(s);
    if (!s) return KV_INVALID;
    if (!s->ops->xStat)
        return kv_api_fail(s, KV_NOT_SUPPORTED, "the %s backend keeps no figures", s->ops->name);
    return s->ops->xStat(s->b, out);
}

int64_t kv_store_now(kv_store *s) { return s->ops->xNow(s->b); }

uint64_t kv_store_capabilities(kv_store *s) { return s ? s->ops->capabilities : 0; }

const char *kv_store_backend(kv_store *s) { return s ? s->ops->name : ""; }

kv_status kv_flush(kv_store *s, const char *table) {
    kv_api_begin(s);
    if (!s) return KV_INVALID;
    kv_status st = kv_api_writable(s, "flush");
    if (st == KV_OK) st = kv_api_need(s, KV_CAP_FLUSH, "flush");
    return st == KV_OK ? s->ops->xFlush(s->b, table) : st;
}

kv_status kv_compact(kv_store *s, const char *table, bool major) {
    kv_api_begin(s);
    if (!s) return KV_INVALID;
    const char *what = major ? "major compaction" : "compaction";
    kv_status st = kv_api_writable(s, what);
    if (st == KV_OK) st = kv_api_need(s, KV_CAP_COMPACT, what);
    return st == KV_OK ? s->ops->xCompact(s->b, table, major) : st;
}
