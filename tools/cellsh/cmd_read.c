/*
 * The read commands: get, scan, count, get_counter. They build read options
 * with read_opts.c, read through kv_get / kv_scan_*, and print with
 * output.c in the HBase shell's layout.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "output.h"
#include "read_opts.h"

int cmd_get(cellsh *sh, const sh_command *cmd) {
    const char *table, *row;
    size_t row_len;
    if (sh_arg_name(sh, &cmd->args[0], "table name", &table) < 0) return -1;
    if (sh_arg_bytes(sh, &cmd->args[1], "row", &row, &row_len) < 0) return -1;
    sh_read_spec spec;
    sh_read_spec_init(&spec);
    int rc = 0;
    for (size_t i = 2; i < cmd->nargs && rc == 0; i++) {
        const sh_value *v = &cmd->args[i];
        if (v->kind == SH_HASH) rc = sh_read_spec_apply(sh, &spec, v, SH_READ_GET, "get");
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
    for (size_t i = 0; i < res->ncells; i++) {
        sh_print_left_column(sh->out, &res->cells[i]);
        sh_print_cell(sh->out, &res->cells[i], 0, spec.maxlength);
        fputc('\n', sh->out);
    }
    sh_footer_rows(sh, res->ncells);
    kv_result_free(res);
    sh_read_spec_free(&spec);
    return 0;
}

/* Opens a scan of args[0] with the options hash args[1] (if any). */
static int open_scan(cellsh *sh, const sh_command *cmd, enum sh_read_kind kind,
                     sh_read_spec *spec, kv_scan **scan, const char **table) {
    sh_read_spec_init(spec);
    if (sh_arg_name(sh, &cmd->args[0], "table name", table) < 0) return -1;
    if (cmd->nargs > 1) {
        if (cmd->args[1].kind != SH_HASH)
            return sh_error(sh, "%s options must be a hash {KEY => value, ...}", cmd->name);
        if (sh_read_spec_apply(sh, spec, &cmd->args[1], kind, cmd->name) < 0) return -1;
    }
    sh_read_spec_finish(spec);
    kv_status st = kv_scan_open(scan, sh->store, *table, &spec->ropts);
    if (st != KV_OK) return sh_kv_error(sh, st, *table);
    return 0;
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
    const kv_result *r;
    kv_status st;
    while ((st = kv_scan_next(&r, scan)) == KV_OK) {
        rows++;
        for (size_t i = 0; i < r->ncells; i++) {
            sh_print_left(sh->out, r->row, r->row_len);
            sh_print_cell(sh->out, &r->cells[i], 1, spec.maxlength);
            fputc('\n', sh->out);
        }
    }
    int rc = 0;
    if (st != KV_END) rc = sh_kv_error(sh, st, table);
    else sh_footer_rows(sh, rows);
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
    kv_status st;
    while ((st = kv_scan_next(&r, scan)) == KV_OK) {
        rows++;
        if (spec.interval > 0 && rows % (uint64_t)spec.interval == 0) {
            fprintf(sh->out, "Current count: %" PRIu64 ", row: ", rows);
            sh_print_escaped(sh->out, r->row, r->row_len);
            fputc('\n', sh->out);
        }
    }
    int rc = 0;
    if (st != KV_END) rc = sh_kv_error(sh, st, table);
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
    if (rc == 0) sh_footer_took(sh);
    return rc;
}
