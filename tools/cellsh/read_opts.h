/*
 * Turns the option hash of get, scan, count and export (COLUMNS, VERSIONS,
 * TIMESTAMP, TIMERANGE, FILTER, STARTROW, STOPROW, ROWPREFIXFILTER, LIMIT,
 * REVERSED, RAW, MAXLENGTH, ...) into kv_read_options. Implemented in
 * read_opts.c; used by cmd_read.c and cmd_transfer.c.
 */
#ifndef CELLSH_READ_OPTS_H
#define CELLSH_READ_OPTS_H

#include <stdbool.h>
#include <stdint.h>

#include "kvcore.h"
#include "shell.h"

typedef struct sh_read_spec {
    kv_read_options ropts;
    kv_column *columns;      /* in the statement arena */
    size_t ncolumns;
    size_t column_cap;
    kv_filter *filter;       /* owned: freed by sh_read_spec_free */
    int64_t maxlength;       /* MAXLENGTH; -1 = whole values */
    int64_t interval;        /* count's INTERVAL; 0 = no progress lines */
} sh_read_spec;

enum sh_read_kind { SH_READ_GET, SH_READ_SCAN, SH_READ_COUNT, SH_READ_EXPORT };

void sh_read_spec_init(sh_read_spec *spec);
/* Adds one column ("f" or "f:q") or an array of them. */
int sh_read_spec_add_columns(cellsh *sh, sh_read_spec *spec, const sh_value *v);
/* Applies the options of @p hash (a SH_HASH) for a command of @p kind;
 * unknown options are errors. */
int sh_read_spec_apply(cellsh *sh, sh_read_spec *spec, const sh_value *hash,
                       enum sh_read_kind kind, const char *cmdname);
/* Points ropts at the columns gathered so far (call before reading). */
void sh_read_spec_finish(sh_read_spec *spec);
void sh_read_spec_free(sh_read_spec *spec);

#endif
