/*
 * Bulk import and export of a table as TSV or JSON (formats in codec.h and
 * the import/export help in commands.c). cmd_transfer.c reads the command's
 * options into an sh_transfer and calls one of the four functions below;
 * imports write through batch.h, exports read through a scan. Each function prints its ERROR: line and returns -1
 * on failure.
 */
#ifndef CELLSH_TRANSFER_H
#define CELLSH_TRANSFER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "kvcore.h"
#include "batch.h"
#include "progress.h"
#include "read_opts.h"
#include "shell.h"

typedef enum sh_map_kind { SH_MAP_ROW_KEY, SH_MAP_TS_KEY, SH_MAP_CELL } sh_map_kind;

/* One TSV field's meaning: HBASE_ROW_KEY, HBASE_TS_KEY or family:qualifier. */
typedef struct sh_map_column {
    sh_map_kind kind;
    char *family;            /* SH_MAP_CELL; malloc'd */
    char *qualifier;         /* malloc'd bytes */
    size_t qualifier_len;
} sh_map_column;

typedef struct sh_transfer {
    cellsh *sh;
    const char *table;
    const char *path;
    /* TSV */
    char separator;
    bool header;             /* import: skip/read a header; export: write one */
    bool escaped;            /* fields use the TSV escapes */
    bool skip_bad_lines;
    sh_map_column *map;      /* the column mapping, malloc'd */
    size_t nmap;
    /* import */
    int64_t timestamp;       /* KV_LATEST_TIMESTAMP: HBASE_TS_KEY or the clock */
    /* export */
    sh_read_spec *spec;
    /* results */
    uint64_t rows, cells, bad_lines;
} sh_transfer;

/* Parses "HBASE_ROW_KEY,f:a,f:b" (or an array of such names) into t->map;
 * HBASE_ROW_KEY is required for import, added first for export. */
int sh_transfer_parse_map(sh_transfer *t, const char *spec, size_t len, bool is_import);
void sh_transfer_free(sh_transfer *t);
/* Reports an import that Ctrl-C stopped before @p line of the file, with
 * the rows and cells imported before it; returns -1. */
int sh_import_interrupted(sh_transfer *t, uint64_t line);
/* The end of an export's scan: 0 at its end, -1 after a failure (already
 * reported) or Ctrl-C (reported here, with how far the export got). */
int sh_transfer_scan_end(sh_transfer *t, enum sh_scan_step step);

int sh_tsv_import(sh_transfer *t);
int sh_tsv_export(sh_transfer *t, FILE *out);
int sh_json_import(sh_transfer *t);
int sh_json_export(sh_transfer *t, FILE *out);

#endif
