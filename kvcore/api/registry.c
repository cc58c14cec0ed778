/**
 * @file registry.c
 * The backends this libkvcore is built with, by the location scheme they
 * serve. A backend plugs in here with one line: its scheme and its table
 * of methods (hbase/backend.h). A scheme listed without a table names a
 * backend that this build lacks, so that its stores are refused with a
 * message that says so.
 */
#include "registry.h"
#include "bigtable/backend.h"
#include "engine/backend.h"
#include "model/model.h"

#include <stdio.h>
#include <string.h>

static const struct scheme {
    const char *prefix;            /* matched at the start of a location */
    const kv_backend_ops *ops;     /* NULL: not in this build */
    const char *missing;           /* why, when ops is NULL */
} schemes[] = {
    {"model:", &kv_model_backend, NULL},
    {"bigtable://", &kv_bigtable_backend, NULL},
};

/* The scheme entry location starts with, or NULL. */
static const struct scheme *scheme_of(const char *location) {
    for (size_t i = 0; i < sizeof schemes / sizeof schemes[0]; i++)
        if (strncmp(location, schemes[i].prefix, strlen(schemes[i].prefix)) == 0) return &schemes[i];
    return NULL;
}

/* Where a "scheme://" location's "://" is, or NULL for anything else (a
   path; "./a:b" for a directory whose name looks like a scheme). */
static const char *scheme_separator(const char *location) {
    const char *sep = strstr(location, "://");
    if (!sep || sep == location || memchr(location, '/', (size_t)(sep - location))) return NULL;
    return sep;
}

bool kv_location_is_local(const char *location) {
    return location && !scheme_of(location) && !scheme_separator(location);
}

const kv_backend_ops *kv_backend_for(const char *location, char *err, size_t errlen) {
    const struct scheme *sc = scheme_of(location);
    if (sc) {
        if (!sc->ops) snprintf(err, errlen, "cannot open %s: %s", location, sc->missing);
        return sc->ops;
    }
    const char *sep = scheme_separator(location);
    if (sep) {
        snprintf(err, errlen, "cannot open %s: no backend serves \"%.*s://\" locations", location,
                 (int)(sep - location), location);
        return NULL;
    }
    return &kv_engine_backend;
}
