/*
 * Read option hashes to kv_read_options (see read_opts.h). Used by
 * cmd_read.c and cmd_transfer.c; compiles FILTER strings with
 * kv_filter_parse.
 */
#include "read_opts.h"

#include <stdlib.h>
#include <string.h>

#include "args.h"

void sh_read_spec_init(sh_read_spec *spec) {
    kv_read_options init = KV_READ_OPTIONS_INIT;
    memset(spec, 0, sizeof *spec);
    spec->ropts = init;
    spec->maxlength = -1;
}

static int add_column(cellsh *sh, sh_read_spec *spec, const sh_value *v) {
    sh_column c;
    if (sh_arg_column(sh, v, &c) < 0) return -1;
    if (spec->ncolumns == spec->column_cap) {
        size_t cap = spec->column_cap ? spec->column_cap * 2 : 8;
        kv_column *cols = sh_arena_alloc(sh->arena, cap * sizeof *cols);
        if (!cols) return sh_error(sh, "out of memory");
        if (spec->ncolumns) memcpy(cols, spec->columns, spec->ncolumns * sizeof *cols);
        spec->columns = cols;
        spec->column_cap = cap;
    }
    kv_column *k = &spec->columns[spec->ncolumns++];
    k->family = c.family;
    k->qualifier = c.qualifier;
    k->qualifier_len = c.qualifier_len;
    return 0;
}

int sh_read_spec_add_columns(cellsh *sh, sh_read_spec *spec, const sh_value *v) {
    if (v->kind == SH_ARRAY) {
        for (size_t i = 0; i < v->n; i++)
            if (add_column(sh, spec, &v->items[i]) < 0) return -1;
        return 0;
    }
    return add_column(sh, spec, v);
}

static const char *const get_options[] = {
    "COLUMN", "COLUMNS", "VERSIONS", "TIMESTAMP", "TIMERANGE", "FILTER", "MAXLENGTH",
    /* accepted and ignored: they have no meaning in a local store */
    "ATTRIBUTES", "AUTHORIZATIONS", "CONSISTENCY", "REGION_REPLICA_ID", "ISOLATION_LEVEL",
    NULL,
};
static const char *const scan_options[] = {
    "COLUMN", "COLUMNS", "VERSIONS", "TIMESTAMP", "TIMERANGE", "FILTER", "MAXLENGTH",
    "STARTROW", "STOPROW", "ENDROW", "ROWPREFIXFILTER", "LIMIT", "REVERSED", "RAW",
    "CACHE_BLOCKS",
    "CACHE", "BATCH", "ATTRIBUTES", "AUTHORIZATIONS", "CONSISTENCY", "REGION_REPLICA_ID",
    "ISOLATION_LEVEL", "ALL_METRICS", "METRICS", "MAX_RESULT_SIZE",
    NULL,
};
static const char *const count_options[] = {
    "INTERVAL", "CACHE", "FILTER", "COLUMN", "COLUMNS", "STARTROW", "STOPROW", "ENDROW",
    "ROWPREFIXFILTER", "TIMERANGE", "TIMESTAMP", "CACHE_BLOCKS",
    NULL,
};
static const char *const export_options[] = {
    "COLUMN", "COLUMNS", "VERSIONS", "TIMESTAMP", "TIMERANGE", "FILTER", "STARTROW",
    "STOPROW", "ENDROW", "ROWPREFIXFILTER", "LIMIT",
    /* the file-format options; cmd_transfer.c reads them */
    "FORMAT", "SEPARATOR", "HEADER", "ESCAPED",
    NULL,
};

static int get_bytes(cellsh *sh, const sh_value *hash, const char *key, const void **p,
                     size_t *len) {
    const sh_value *v = sh_hash_get(hash, key);
    if (!v) return 0;
    const char *s;
    if (sh_arg_bytes(sh, v, key, &s, len) < 0) return -1;
    *p = s;
    return 0;
}

static int get_bool(cellsh *sh, const sh_value *hash, const char *key, bool *out) {
    const sh_value *v = sh_hash_get(hash, key);
    return v ? sh_arg_bool(sh, v, key, out) : 0;
}

int sh_read_spec_apply(cellsh *sh, sh_read_spec *spec, const sh_value *hash,
                       enum sh_read_kind kind, const char *cmdname) {
    const char *const *allowed = kind == SH_READ_GET ? get_options
                               : kind == SH_READ_SCAN ? scan_options
                               : kind == SH_READ_COUNT ? count_options : export_options;
    if (sh_hash_check(sh, hash, allowed, cmdname) < 0) return -1;
    kv_read_options *o = &spec->ropts;
    const sh_value *v;
    int64_t n;
    /* COLUMN and COLUMNS are synonyms in get and scan; export reads its
     * COLUMNS mapping itself. */
    if (kind != SH_READ_EXPORT) {
        if ((v = sh_hash_get(hash, "COLUMN")) && sh_read_spec_add_columns(sh, spec, v) < 0)
            return -1;
        if ((v = sh_hash_get(hash, "COLUMNS")) && sh_read_spec_add_columns(sh, spec, v) < 0)
            return -1;
    }
    if ((v = sh_hash_get(hash, "VERSIONS"))) {
        if (sh_arg_int(sh, v, "VERSIONS", &n) < 0) return -1;
        if (n < 1) return sh_error(sh, "VERSIONS must be at least 1");
        o->max_versions = n > INT32_MAX ? INT32_MAX : (int32_t)n;
    }
    if ((v = sh_hash_get(hash, "TIMESTAMP"))) {
        if (sh_arg_int(sh, v, "TIMESTAMP", &n) < 0) return -1;
        o->has_timestamp = true;
        o->timestamp = n;
    }
    if ((v = sh_hash_get(hash, "TIMERANGE"))) {
        int64_t lo, hi;
        if (v->kind != SH_ARRAY || v->n != 2)
            return sh_error(sh, "TIMERANGE must be an array [min, max]");
        if (sh_arg_int(sh, &v->items[0], "TIMERANGE min", &lo) < 0 ||
            sh_arg_int(sh, &v->items[1], "TIMERANGE max", &hi) < 0)
            return -1;
        if (lo < 0 || hi < lo)
            return sh_error(sh, "TIMERANGE [%lld, %lld] is not a valid range [min, max)",
                            (long long)lo, (long long)hi);
        o->time_min = lo;
        o->time_max = hi;
    }
    if ((v = sh_hash_get(hash, "FILTER"))) {
        if (v->kind != SH_STR) return sh_error(sh, "FILTER must be a filter string");
        if (memchr(v->str, '\0', v->len)) return sh_error(sh, "FILTER must not contain NUL bytes");
        char err[512] = "";
        kv_filter *f = NULL;
        kv_status st = kv_filter_parse(&f, v->str, err, sizeof err);
        if (st != KV_OK)
            return sh_error(sh, "%s", err[0] ? err : kv_strerror(st));
        kv_filter_free(spec->filter);
        spec->filter = f;
        o->filter = f;
    }
    if ((v = sh_hash_get(hash, "MAXLENGTH"))) {
        if (sh_arg_int(sh, v, "MAXLENGTH", &n) < 0) return -1;
        spec->maxlength = n < 0 ? -1 : n;
    }
    if (get_bytes(sh, hash, "STARTROW", &o->start_row, &o->start_row_len) < 0) return -1;
    if (get_bytes(sh, hash, "STOPROW", &o->stop_row, &o->stop_row_len) < 0) return -1;
    if (get_bytes(sh, hash, "ENDROW", &o->stop_row, &o->stop_row_len) < 0) return -1;
    if (get_bytes(sh, hash, "ROWPREFIXFILTER", &o->row_prefix, &o->row_prefix_len) < 0)
        return -1;
    if ((v = sh_hash_get(hash, "LIMIT"))) {
        if (sh_arg_int(sh, v, "LIMIT", &n) < 0) return -1;
        if (n < 0) return sh_error(sh, "LIMIT must not be negative");
        o->limit = (uint64_t)n;
    }
    if (get_bool(sh, hash, "REVERSED", &o->reversed) < 0) return -1;
    if (get_bool(sh, hash, "RAW", &o->raw) < 0) return -1;
    if (get_bool(sh, hash, "CACHE_BLOCKS", &o->fill_cache) < 0) return -1;
    if ((v = sh_hash_get(hash, "INTERVAL"))) {
        if (sh_arg_int(sh, v, "INTERVAL", &n) < 0) return -1;
        if (n < 1) return sh_error(sh, "INTERVAL must be at least 1");
        spec->interval = n;
    }
    return 0;
}

void sh_read_spec_finish(sh_read_spec *spec) {
    spec->ropts.columns = spec->ncolumns ? spec->columns : NULL;
    spec->ropts.ncolumns = spec->ncolumns;
}

void sh_read_spec_free(sh_read_spec *spec) {
    kv_filter_free(spec->filter);
    spec->filter = NULL;
    spec->ropts.filter = NULL;
}
