/*
 * Turns the option hash of get, scan, count and export (COLUMNS, VERSIONS,
 * TIMESTAMP, TIMERANGE, FILTER, STARTROW, STOPROW, ROWPREFIXFILTER, LIMIT,
 * REVERSED, RAW, MAXLENGTH, FORMATTER, METRICS, INTERVAL, ...) into
 * kv_read_options and a cell format, with the HBase 2 shell's rules: get's
 * hash must name a column, TIMESTAMP or TIMERANGE unless it holds only
 * FILTER/MAXLENGTH/FORMATTER-like options; ROWPREFIXFILTER replaces
 * STARTROW and STOPROW; 'f:q:toLong' columns carry a converter.
 * Implemented in read_opts.c; used by cmd_read.c and cmd_transfer.c.
 */
#ifndef CELLSH_READ_OPTS_H
#define CELLSH_READ_OPTS_H

#include <stdbool.h>
#include <stdint.h>

#include "kvcore.h"
#include "output.h"
#include "shell.h"

typedef struct sh_read_spec {
    kv_read_options ropts;
    kv_column *columns;      /* in the statement arena */
    size_t ncolumns;
    size_t column_cap;
    sh_column_conv *convs;   /* 'f:q:CONVERTER' columns, in the arena */
    size_t nconvs;
    size_t conv_cap;
    sh_cell_format format;   /* FORMATTER, converters, MAXLENGTH */
    kv_filter *filter;       /* owned: freed by sh_read_spec_free */
    int64_t interval;        /* count's INTERVAL; 0 = no progress lines */
    bool metrics;            /* scan's ALL_METRICS or METRICS */
    const sh_value *metric_names;   /* METRICS' array, or NULL for all */
} sh_read_spec;

enum sh_read_kind { SH_READ_GET, SH_READ_SCAN, SH_READ_COUNT, SH_READ_EXPORT };

/* An empty spec for a command of @p kind (count shows progress every 1000
 * rows unless told otherwise, as HBase's does). */
void sh_read_spec_init(sh_read_spec *spec, enum sh_read_kind kind);
/* Adds one column ("f", "f:q" or "f:q:CONVERTER") or an array of them. */
int sh_read_spec_add_columns(cellsh *sh, sh_read_spec *spec, const sh_value *v);
/* Applies the options of @p hash (a SH_HASH) for a command of @p kind;
 * unknown options are errors. */
int sh_read_spec_apply(cellsh *sh, sh_read_spec *spec, const sh_value *hash,
                       enum sh_read_kind kind, const char *cmdname);
/* Points ropts and the format at what was gathered (call before reading). */
void sh_read_spec_finish(sh_read_spec *spec);
void sh_read_spec_free(sh_read_spec *spec);

#endif
