/**
 * @file handle.c
 * Opening and closing the Bigtable backend's handle, its clock, and the
 * mapping of the client's failures to kvcore's (handle.h). Called by
 * backend.c and every module of the backend; calls bt_client.c.
 */
#include "handle.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SCHEME "bigtable://"

/* Defaults of kv_bigtable_options' zero fields. */
#define DEFAULT_CACHE_MS 2000

kv_status btb_status(bt_code code) {
    switch (code) {
    case BT_OK: return KV_OK;
    case BT_NOT_FOUND: return KV_NOT_FOUND;
    case BT_ALREADY_EXISTS: return KV_EXISTS;
    case BT_INVALID: return KV_INVALID;
    case BT_UNSUPPORTED: return KV_NOT_SUPPORTED;
    case BT_UNAVAILABLE: return KV_UNAVAILABLE;
    case BT_DEADLINE: return KV_TIMEOUT;
    case BT_ERROR: break;
    }
    return KV_IO;
}

kv_status btb_fail(btb_store *s, const bt_status *st, const char *fmt, ...) {
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    kv_status code = btb_status(st->code);
    /* Transient failures say so, and whether the call may have taken
       effect. */
    const char *kind = code == KV_UNAVAILABLE ? "unavailable: "
                       : code == KV_TIMEOUT   ? "timed out (the call may or may not have taken "
                                                "effect): "
                                              : "";
    return kv_backend_fail(s->report, code, "%s: %s%s", what, kind,
                           st->msg[0] ? st->msg : bt_code_name(st->code));
}

kv_status btb_refuse(btb_store *s, kv_status status, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    kv_report_vrecord(s->report, KV_LOG_ERROR, false, false, fmt, ap);
    va_end(ap);
    return status;
}

int64_t btb_now(btb_store *s) {
    int64_t now = kv_clock_read(&s->clock);
    int64_t last = atomic_load(&s->last_ts);
    while (now > last && !atomic_compare_exchange_weak(&s->last_ts, &last, now)) {
    }
    return now > last ? now : last;
}

/* Splits "bigtable://PROJECT/INSTANCE" into its two ids (each at most 64
   bytes, as Bigtable's project and instance ids are shorter still). */
static bool parse_location(const char *location, char *project, char *instance) {
    const char *p = location + strlen(SCHEME);
    const char *slash = strchr(p, '/');
    if (!slash || slash == p || !slash[1] || strchr(slash + 1, '/')) return false;
    size_t plen = (size_t)(slash - p), ilen = strlen(slash + 1);
    if (plen > 64 || ilen > 64) return false;
    memcpy(project, p, plen);
    project[plen] = '\0';
    memcpy(instance, slash + 1, ilen + 1);
    return true;
}

kv_status btb_handle_open(btb_store **out, const char *location, const kv_store_options *opts,
                          kv_report *report) {
    *out = NULL;
    char project[65], instance[65];
    if (strncmp(location, SCHEME, strlen(SCHEME)) != 0 ||
        !parse_location(location, project, instance))
        return kv_backend_fail(report, KV_INVALID, "%s: a Cloud Bigtable location is "
                               "bigtable://PROJECT/INSTANCE", location);
    kv_bigtable_options bo = KV_BIGTABLE_OPTIONS_INIT;
    if (opts->bigtable) {
        if (opts->bigtable->version != KV_BIGTABLE_OPTIONS_VERSION)
            return kv_backend_fail(report, KV_INVALID, "kv_bigtable_options has version %d; "
                                   "this library knows version %d (start from "
                                   "KV_BIGTABLE_OPTIONS_INIT)", opts->bigtable->version,
                                   KV_BIGTABLE_OPTIONS_VERSION);
        bo = *opts->bigtable;
    }
    btb_store *s = calloc(1, sizeof *s);
    if (!s) return KV_NO_MEMORY;
    s->report = report;
    s->clock = (kv_clock){opts->clock_ms, opts->clock_ctx};
    atomic_init(&s->last_ts, INT64_MIN);
    s->max_value_size = opts->max_value_size;
    s->cache_ms = bo.schema_cache_ms == KV_BIGTABLE_NO_CACHE ? -1
                  : bo.schema_cache_ms ? (int64_t)bo.schema_cache_ms : DEFAULT_CACHE_MS;
    pthread_mutex_init(&s->cache_mu, NULL);
    bt_client_options co = BT_CLIENT_OPTIONS_INIT;
    co.project = project;
    co.instance = instance;
    co.emulator_host = bo.emulator_host;
    co.data_endpoint = bo.data_endpoint;
    co.admin_endpoint = bo.admin_endpoint;
    co.timeout_ms = bo.timeout_ms;
    co.stream_timeout_ms = bo.stream_timeout_ms;
    co.max_attempts = (int)bo.max_attempts;
    bt_status st;
    kv_status rc = KV_OK;
    if (!(s->client = bt_client_open(&co, &st))) rc = btb_fail(s, &st, "%s", location);
    /* One cheap call, so that a wrong address or instance shows now and
       not at the first command. */
    char **ids = NULL;
    size_t n = 0;
    if (rc == KV_OK && bt_list_tables(s->client, &ids, &n, &st) != BT_OK)
        rc = btb_fail(s, &st, "%s (%s %s)", location,
                      bt_client_is_emulator(s->client) ? "the emulator at" : "Cloud Bigtable at",
                      bt_channel_target(bt_client_data(s->client)));
    for (size_t i = 0; i < n; i++) free(ids[i]);
    free(ids);
    if (rc == KV_OK && opts->error_if_exists)
        rc = btb_refuse(s, KV_EXISTS, "%s: a Cloud Bigtable instance always exists (instances "
                        "are created with gcloud, not by this library)", location);
    if (rc != KV_OK) {
        btb_handle_close(s);
        return rc;
    }
    *out = s;
    return KV_OK;
}

void btb_handle_close(btb_store *s) {
    if (!s) return;
    bt_client_close(s->client);
    free(s->cache);
    pthread_mutex_destroy(&s->cache_mu);
    free(s);
}
