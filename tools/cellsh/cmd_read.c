/*
 * The read commands: get, scan, count, get_counter. They build read options
 * with read_opts.c, read through kv_get and shell.c's scan stepping (which
 * stops on Ctrl-C), and print with output.c in the HBase shell's layout,
 * scan's metrics table included.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "output.h"
#include "read_opts.h"

/* Prints one cell line; a converter that does not fit the bytes fails the
 * command with Java's message, after the lines before it, as in HBase. */
static int print_cell(cellsh *sh, const kv_result *row, const kv_cell *cell,
                      const sh_cell_format *fmt) {
    char err[256];
    if (sh_print_cell_line(sh->out, row, cell, fmt, err, sizeof err) < 0)
        return sh_error(sh, "%s", err);
    return 0;
}

int cmd_get(cellsh *sh, const sh_command *cmd) {
    const char *table, *row;
    size_t row_len;
    if (sh_arg_name(sh, &cmd->args[0], "table name", &table) < 0) return -1;
    if (sh_arg_bytes(sh, &cmd->args[1], "row", &row, &row_len) < 0) return -1;
    sh_read_spec spec;
    sh_read_spec_init(&spec, SH_READ_GET);
    int rc = 0;
    bool hash = cmd->nargs > 2 && cmd->args[2].kind == SH_HASH;
    if (hash && cmd->nargs > 3)
        rc = sh_error(sh, "get takes one hash of options after the row");
    for (size_t i = 2; i < cmd->nargs && rc == 0; i++) {
        const sh_value *v = &cmd->args[i];
        if (hash) rc = sh_read_spec_apply(sh, &spec, v, SH_READ_GET, "get");
        else if (v->kind == SH_HASH)
            rc = sh_error(sh, "get takes column names ('f:q', 'f' or an array of them) or one "
                          "hash of options, not both");
        else rc = sh_read_spec_add_columns(sh, &spec, v);
    }
    if (rc < 0) {
        sh_read_spec_free(&spec);
        return -1;
    }
    sh_read_spec_finish(&spec);
    kv_result *res = NULL;
    kv_status st = kv_get(&res, sh->store, table, row, row_len, &spec.ropts);
    if (st != KV_OK) {
        sh_read_spec_free(&spec);
        return sh_kv_error(sh, st, table);
    }
    sh_print_header(sh->out, "COLUMN", "CELL");
    for (size_t i = 0; i < res->ncells && rc == 0; i++)
        rc = print_cell(sh, NULL, &res->cells[i], &spec.format);
    /* HBase counts the row, not its cells */
    if (rc == 0) sh_footer_rows(sh, res->ncells > 0);
    kv_result_free(res);
    sh_read_spec_free(&spec);
    return rc;
}

/* Opens a scan of args[0] with the options hash args[1] (if any). */
static int open_scan(cellsh *sh, const sh_command *cmd, enum sh_read_kind kind,
                     sh_read_spec *spec, kv_scan **scan, const char **table) {
    sh_read_spec_init(spec, kind);
    if (sh_arg_name(sh, &cmd->args[0], "table name", table) < 0) return -1;
    if (cmd->nargs > 1) {
        const sh_value *v = &cmd->args[1];
        if (kind == SH_READ_COUNT && v->kind == SH_INT) {
            /* count 't', 1000: the old syntax, an INTERVAL */
            if (v->num < 1) return sh_error(sh, "INTERVAL must be at least 1");
            spec->interval = v->num;
        } else if (kind == SH_READ_COUNT && v->kind != SH_HASH) {
            return sh_error(sh, "count takes an options hash or an INTERVAL number, not %s",
                            sh_kind_name(v->kind));
        } else if (v->kind != SH_HASH) {
            return sh_error(sh, "%s options must be a hash {KEY => value, ...}", cmd->name);
        } else if (sh_read_spec_apply(sh, spec, v, kind, cmd->name) < 0) {
            return -1;
        }
    }
    sh_read_spec_finish(spec);
    kv_status st = kv_scan_open(scan, sh->store, *table, &spec->ropts);
    if (st != KV_OK) return sh_kv_error(sh, st, *table);
    return 0;
}

/* What a scan measured for its metrics table. */
typedef struct scan_metrics {
    uint64_t bytes;          /* the cells' serialized sizes, as HBase counts them */
    double seconds;          /* spent inside kv_scan_next */
} scan_metrics;

/* HBase's ScanMetrics, in its alphabetical order, with the figures a local
 * scan has: no RPCs and one region per table. ROWS_SCANNED and
 * ROWS_FILTERED need counts from inside kvcore and are left out. */
static void print_metrics(cellsh *sh, const sh_read_spec *spec, const scan_metrics *m) {
    const struct {
        const char *name;
        uint64_t value;
    } rows[] = {
        { "BYTES_IN_REMOTE_RESULTS", 0 },
        { "BYTES_IN_RESULTS", m->bytes },
        { "MILLIS_BETWEEN_NEXTS", (uint64_t)(m->seconds * 1000) },
        { "NOT_SERVING_REGION_EXCEPTION", 0 },
        { "REGIONS_SCANNED", 1 },
        { "REMOTE_RPC_CALLS", 0 },
        { "REMOTE_RPC_RETRIES", 0 },
        { "RPC_CALLS", 0 },
        { "RPC_RETRIES", 0 },
    };
    fputc('\n', sh->out);
    sh_print_header(sh->out, "METRIC", "VALUE");
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        bool wanted = !spec->metric_names;
        for (size_t j = 0; !wanted && j < spec->metric_names->n; j++)
            wanted = sh_value_is(&spec->metric_names->items[j], rows[i].name);
        if (!wanted) continue;
        char value[32];
        int n = snprintf(value, sizeof value, "%" PRIu64, rows[i].value);
        sh_print_pair(sh->out, rows[i].name, strlen(rows[i].name), value, (size_t)n);
    }
}

int cmd_scan(cellsh *sh, const sh_command *cmd) {
    sh_read_spec spec;
    kv_scan *scan = NULL;
    const char *table = NULL;
    if (open_scan(sh, cmd, SH_READ_SCAN, &spec, &scan, &table) < 0) {
        sh_read_spec_free(&spec);
        return -1;
    }
    sh_print_header(sh->out, "ROW", "COLUMN+CELL");
    uint64_t rows = 0;
    scan_metrics m = { 0, 0 };
    const kv_result *r;
    enum sh_scan_step step;
    int rc = 0;
    for (;;) {
        double t0 = spec.metrics ? sh_now() : 0;
        step = sh_scan_next(sh, scan, &r, table);
        if (spec.metrics) m.seconds += sh_now() - t0;
        if (step != SH_SCAN_ROW) break;
        rows++;
        for (size_t i = 0; i < r->ncells && rc == 0; i++) {
            const kv_cell *c = &r->cells[i];
            /* KeyValue: lengths (4 + 4), row length (2), family length (1),
             * timestamp (8), type (1), plus the cell size int (4) */
            m.bytes += 24 + r->row_len + strlen(c->family) + c->qualifier_len + c->value_len;
            rc = print_cell(sh, r, c, &spec.format);
        }
        if (rc < 0) break;
    }
    if (rc == 0 && step == SH_SCAN_INTERRUPTED) rc = sh_interrupted_after(sh, rows, "");
    else if (rc == 0 && step == SH_SCAN_FAILED) rc = -1;
    if (rc == 0) {
        sh_footer_rows(sh, rows);
        if (spec.metrics) print_metrics(sh, &spec, &m);
    }
    kv_scan_close(scan);
    sh_read_spec_free(&spec);
    return rc;
}

int cmd_count(cellsh *sh, const sh_command *cmd) {
    sh_read_spec spec;
    kv_scan *scan = NULL;
    const char *table = NULL;
    if (open_scan(sh, cmd, SH_READ_COUNT, &spec, &scan, &table) < 0) {
        sh_read_spec_free(&spec);
        return -1;
    }
    uint64_t rows = 0;
    const kv_result *r;
    enum sh_scan_step step;
    while ((step = sh_scan_next(sh, scan, &r, table)) == SH_SCAN_ROW) {
        rows++;
        if (spec.interval > 0 && rows % (uint64_t)spec.interval == 0) {
            fprintf(sh->out, "Current count: %" PRIu64 ", row: ", rows);
            sh_print_escaped(sh->out, r->row, r->row_len);
            fputc('\n', sh->out);
        }
    }
    int rc = 0;
    if (step == SH_SCAN_INTERRUPTED) rc = sh_interrupted_after(sh, rows, " counted");
    else if (step == SH_SCAN_FAILED) rc = -1;
    else sh_footer_rows(sh, rows);
    kv_scan_close(scan);
    sh_read_spec_free(&spec);
    return rc;
}

int cmd_get_counter(cellsh *sh, const sh_command *cmd) {
    const char *table, *row;
    size_t row_len;
    sh_column col;
    if (sh_arg_name(sh, &cmd->args[0], "table name", &table) < 0) return -1;
    if (sh_arg_bytes(sh, &cmd->args[1], "row", &row, &row_len) < 0) return -1;
    if (sh_arg_cell_column(sh, &cmd->args[2], &col) < 0) return -1;
    kv_column kc = { col.family, col.qualifier, col.qualifier_len };
    kv_read_options ro = KV_READ_OPTIONS_INIT;
    ro.columns = &kc;
    ro.ncolumns = 1;
    kv_result *res = NULL;
    kv_status st = kv_get(&res, sh->store, table, row, row_len, &ro);
    if (st != KV_OK) return sh_kv_error(sh, st, table);
    int rc = 0;
    if (res->ncells == 0) {
        fprintf(sh->out, "No counter found at specified coordinates\n");
    } else if (res->cells[0].value_len != 8) {
        rc = sh_error(sh, "Field is not a long, it's %zu bytes wide", res->cells[0].value_len);
    } else {
        const uint8_t *b = res->cells[0].value;
        uint64_t u = 0;
        for (int i = 0; i < 8; i++) u = (u << 8) | b[i];
        fprintf(sh->out, "COUNTER VALUE = %" PRId64 "\n", (int64_t)u);
    }
    kv_result_free(res);
    return rc;
}
