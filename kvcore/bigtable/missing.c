/**
 * @file missing.c
 * The Cloud Bigtable backend of a libkvcore built without its
 * dependencies (backend.h): every open fails with KV_NOT_SUPPORTED and a
 * message naming what the build lacked (BT_MISSING, set by meson.build).
 * No other method can be reached, as no store is ever opened.
 */
#include "backend.h"

#ifndef BT_MISSING
#error "meson.build defines BT_MISSING: the packages this build lacked"
#endif

static kv_status x_open(kv_backend **out, const char *location, const kv_store_options *opts,
                        kv_report *report) {
    (void)opts;
    *out = NULL;
    return kv_backend_fail(report, KV_NOT_SUPPORTED, "cannot open %s: the Cloud Bigtable backend "
                           "(kvcore/bigtable/) is not built into this libkvcore: the build did "
                           "not find %s", location, BT_MISSING);
}

const kv_backend_ops kv_bigtable_backend = {
    .version = KV_BACKEND_OPS_VERSION,
    .name = "bigtable",
    .capabilities = 0,
    .xOpen = x_open,
};
