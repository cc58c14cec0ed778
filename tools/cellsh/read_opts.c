/*
 * Read option hashes to kv_read_options and cell formats (see
 * read_opts.h). Used by cmd_read.c and cmd_transfer.c; compiles FILTER
 * strings with kv_filter_parse and converter names with convert.c.
 */
#include "read_opts.h"

#include <stdlib.h>
#include <string.h>

#include "args.h"

void sh_read_spec_init(sh_read_spec *spec, enum sh_read_kind kind) {
    kv_read_options init = KV_READ_OPTIONS_INIT;
    sh_cell_format format = SH_CELL_FORMAT_INIT;
    memset(spec, 0, sizeof *spec);
    spec->ropts = init;
    spec->format = format;
    spec->interval = kind == SH_READ_COUNT ? 1000 : 0;
}

/* Grows an arena array of @p size-byte items to hold one more. */
static void *grow(cellsh *sh, void *items, size_t n, size_t *cap, size_t size) {
    if (n < *cap) return items;
    size_t c = *cap ? *cap * 2 : 8;
    void *more = sh_arena_alloc(sh->arena, c * size);
    if (!more) return NULL;
    if (n) memcpy(more, items, n * size);
    *cap = c;
    return more;
}

/* "f:q:CONVERTER": splits the converter off the qualifier, as HBase's
 * set_converter does at the qualifier's first ':', when what follows names
 * one; otherwise the ':' belongs to the qualifier. */
static int split_converter(cellsh *sh, sh_read_spec *spec, sh_column *c) {
    if (!c->qualifier) return 0;
    const char *colon = memchr(c->qualifier, ':', c->qualifier_len);
    if (!colon) return 0;
    size_t qlen = (size_t)(colon - c->qualifier);
    sh_conv conv;
    char err[256];
    int r = sh_conv_parse_spec(colon + 1, c->qualifier_len - qlen - 1, &conv, err, sizeof err);
    if (r < 0) return sh_error(sh, "%s", err);
    if (r == 0) return 0;
    c->qualifier_len = qlen;
    sh_column_conv *convs = grow(sh, spec->convs, spec->nconvs, &spec->conv_cap, sizeof *convs);
    if (!convs) return sh_error(sh, "out of memory");
    spec->convs = convs;
    convs[spec->nconvs++] = (sh_column_conv){ c->family, c->qualifier, qlen, conv };
    return 0;
}

static int add_column(cellsh *sh, sh_read_spec *spec, const sh_value *v) {
    sh_column c;
    if (sh_arg_column(sh, v, &c) < 0 || split_converter(sh, spec, &c) < 0) return -1;
    kv_column *cols = grow(sh, spec->columns, spec->ncolumns, &spec->column_cap, sizeof *cols);
    if (!cols) return sh_error(sh, "out of memory");
    spec->columns = cols;
    cols[spec->ncolumns++] = (kv_column){ c.family, c.qualifier, c.qualifier_len };
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
    "FORMATTER", "FORMATTER_CLASS",
    /* accepted and ignored: they have no meaning in a local store */
    "ATTRIBUTES", "AUTHORIZATIONS", "CONSISTENCY", "REGION_REPLICA_ID", "ISOLATION_LEVEL",
    NULL,
};
static const char *const scan_options[] = {
    "COLUMN", "COLUMNS", "VERSIONS", "TIMESTAMP", "TIMERANGE", "FILTER", "MAXLENGTH",
    "FORMATTER", "FORMATTER_CLASS",
    "STARTROW", "STOPROW", "ENDROW", "ROWPREFIXFILTER", "LIMIT", "REVERSED", "RAW",
    "CACHE_BLOCKS", "ALL_METRICS", "METRICS",
    "CACHE", "BATCH", "ATTRIBUTES", "AUTHORIZATIONS", "CONSISTENCY", "REGION_REPLICA_ID",
    "ISOLATION_LEVEL", "MAX_RESULT_SIZE",
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

static bool listed(const sh_value *key, const char *const *names) {
    for (; *names; names++)
        if (sh_value_is(key, *names)) return true;
    return false;
}

/*
 * HBase's get: once MAXLENGTH, FILTER, CONSISTENCY, REGION_REPLICA_ID,
 * FORMATTER and FORMATTER_CLASS are taken out of the hash, what is left
 * must name COLUMN(S), TIMESTAMP or TIMERANGE (or ATTRIBUTES /
 * AUTHORIZATIONS); `get 't', 'r', {VERSIONS => 3}` fails with table.rb's
 * "Failed parse of {...}, Hash".
 */
static int check_get_hash(cellsh *sh, const sh_value *hash) {
    static const char *const taken_out[] = { "MAXLENGTH", "FILTER", "CONSISTENCY",
                                             "REGION_REPLICA_ID", "FORMATTER",
                                             "FORMATTER_CLASS", NULL };
    static const char *const anchors[] = { "COLUMN", "COLUMNS", "TIMESTAMP", "TIMERANGE",
                                           "ATTRIBUTES", "AUTHORIZATIONS", NULL };
    bool rest = false;
    for (size_t i = 0; i < hash->n; i++) {
        const sh_value *k = &hash->items[2 * i];
        if (listed(k, anchors)) return 0;
        if (!listed(k, taken_out)) rest = true;
    }
    if (!rest) return 0;
    sh_buf b = { NULL, 0, 0, false };
    sh_buf_puts(&b, "{");
    bool first = true;
    for (size_t i = 0; i < hash->n; i++) {
        if (listed(&hash->items[2 * i], taken_out)) continue;
        sh_buf_puts(&b, first ? "" : ", ");
        sh_value_inspect(&b, &hash->items[2 * i]);
        sh_buf_puts(&b, "=>");
        sh_value_inspect(&b, &hash->items[2 * i + 1]);
        first = false;
    }
    sh_buf_puts(&b, "}");
    int rc = b.failed ? sh_error(sh, "out of memory")
                      : sh_error(sh, "Failed parse of %s, Hash", b.p);
    sh_buf_free(&b);
    return rc;
}

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

/* FORMATTER and FORMATTER_CLASS: a converter for every part of a cell. */
static int apply_formatter(cellsh *sh, sh_read_spec *spec, const sh_value *hash) {
    const sh_value *cls = sh_hash_get(hash, "FORMATTER_CLASS");
    const sh_value *fmt = sh_hash_get(hash, "FORMATTER");
    char name[256];
    if (cls) {
        if (sh_value_text(sh, cls, "FORMATTER_CLASS", name, sizeof name) < 0) return -1;
        if (strcmp(name, SH_CONV_CLASS) != 0)
            return sh_error(sh, "FORMATTER_CLASS '%s' is not available: cellsh runs no Java; "
                            "only " SH_CONV_CLASS, name);
    }
    if (!fmt) return 0;
    if (sh_value_text(sh, fmt, "FORMATTER", name, sizeof name) < 0) return -1;
    if (sh_conv_by_name(name, strlen(name), &spec->format.all) < 0)
        return sh_error(sh, "FORMATTER '%s' is not a converter cellsh knows (%s)", name,
                        sh_conv_names());
    return 0;
}

/* ALL_METRICS => true, or METRICS => ['NAME', ...]. */
static int apply_metrics(cellsh *sh, sh_read_spec *spec, const sh_value *hash) {
    const sh_value *names = sh_hash_get(hash, "METRICS");
    if (get_bool(sh, hash, "ALL_METRICS", &spec->metrics) < 0) return -1;
    if (!names) return 0;
    if (names->kind != SH_ARRAY)
        return sh_error(sh, "METRICS must be an array of metric names, e.g. "
                        "['BYTES_IN_RESULTS', 'RPC_CALLS']");
    for (size_t i = 0; i < names->n; i++)
        if (names->items[i].kind != SH_STR && names->items[i].kind != SH_CONST)
            return sh_error(sh, "METRICS must name metrics as strings");
    spec->metrics = true;
    spec->metric_names = spec->metrics && names->n ? names : NULL;
    return 0;
}

int sh_read_spec_apply(cellsh *sh, sh_read_spec *spec, const sh_value *hash,
                       enum sh_read_kind kind, const char *cmdname) {
    const char *const *allowed = kind == SH_READ_GET ? get_options
                               : kind == SH_READ_SCAN ? scan_options
                               : kind == SH_READ_COUNT ? count_options : export_options;
    if (sh_hash_check(sh, hash, allowed, cmdname) < 0) return -1;
    if (kind == SH_READ_GET && check_get_hash(sh, hash) < 0) return -1;
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
        if (hi < lo)
            return sh_error(sh, "TIMERANGE [%lld, %lld] is not a valid range [min, max)",
                            (long long)lo, (long long)hi);
        o->time_min = lo;
        o->time_max = hi;
    }
    if ((v = sh_hash_get(hash, "FILTER"))) {
        if (v->kind != SH_STR) return sh_error(sh, "FILTER must be a filter string");
        char err[512] = "";
        kv_filter *f = NULL;
        kv_status st = kv_filter_parse_len(&f, v->str, v->len, err, sizeof err);
        if (st != KV_OK)
            return sh_error(sh, "%s", err[0] ? err : kv_strerror(st));
        kv_filter_free(spec->filter);
        spec->filter = f;
        o->filter = f;
    }
    if ((v = sh_hash_get(hash, "MAXLENGTH"))) {
        if (sh_arg_int(sh, v, "MAXLENGTH", &n) < 0) return -1;
        spec->format.maxlength = n < 0 ? -1 : n;
    }
    if (apply_formatter(sh, spec, hash) < 0 || apply_metrics(sh, spec, hash) < 0) return -1;
    if (get_bytes(sh, hash, "STARTROW", &o->start_row, &o->start_row_len) < 0) return -1;
    if (get_bytes(sh, hash, "STOPROW", &o->stop_row, &o->stop_row_len) < 0) return -1;
    if (get_bytes(sh, hash, "ENDROW", &o->stop_row, &o->stop_row_len) < 0) return -1;
    if (get_bytes(sh, hash, "ROWPREFIXFILTER", &o->row_prefix, &o->row_prefix_len) < 0)
        return -1;
    if (o->row_prefix) {   /* setRowPrefixFilter overwrites both bounds */
        o->start_row = o->stop_row = NULL;
        o->start_row_len = o->stop_row_len = 0;
    }
    if ((v = sh_hash_get(hash, "LIMIT"))) {
        if (sh_arg_int(sh, v, "LIMIT", &n) < 0) return -1;
        if (n < 0) return sh_error(sh, "LIMIT must not be negative");
        o->limit = (uint64_t)n;
    }
    if ((v = sh_hash_get(hash, "CACHE")) && sh_arg_int(sh, v, "CACHE", &n) < 0) return -1;
    if (get_bool(sh, hash, "REVERSED", &o->reversed) < 0) return -1;
    if (get_bool(sh, hash, "RAW", &o->raw) < 0) return -1;
    /* HBase's StoreScanner refuses a raw scan of named columns (a family
       is fine), as the shell's help says: RAW "cannot be combined with
       requesting specific COLUMNS". */
    for (size_t i = 0; o->raw && i < spec->ncolumns; i++)
        if (spec->columns[i].qualifier) return sh_error(sh, "Cannot specify any column for a raw scan");
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
    spec->format.columns = spec->convs;
    spec->format.ncolumns = spec->nconvs;
}

void sh_read_spec_free(sh_read_spec *spec) {
    kv_filter_free(spec->filter);
    spec->filter = NULL;
    spec->ropts.filter = NULL;
}
