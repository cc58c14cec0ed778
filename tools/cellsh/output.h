/*
 * Output in the HBase shell's layout: bytes as Bytes.toStringBinary shows
 * them (printable ASCII as is, every other byte and the backslash as \xNN)
 * or through a FORMATTER / column converter (convert.h), two-column tables
 * ("ROW" / "COLUMN+CELL", "COLUMN" / "CELL", "METRIC" / "VALUE") whose
 * second column starts at offset 38, and the cell text "timestamp=N,
 * value=V" or "timestamp=N, type=DeleteColumn", cut at MAXLENGTH
 * characters as HBase's to_string cuts it. Implemented in output.c; used
 * by the read and catalog commands.
 */
#ifndef CELLSH_OUTPUT_H
#define CELLSH_OUTPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "convert.h"
#include "kvcore.h"

/* Width of the first column: the second starts at SH_COL1_WIDTH + 2. */
#define SH_COL1_WIDTH 36

/* Writes bytes escaped as toStringBinary does; returns the characters
 * written. */
size_t sh_print_escaped(FILE *out, const void *p, size_t n);

/* "ROW" padded to the second column, then "COLUMN+CELL", newline. */
void sh_print_header(FILE *out, const char *left, const char *right);
/* " left" padded to the second column (a longer first column pushes the
 * second one right by one space), "right", newline. */
void sh_print_pair(FILE *out, const char *left, size_t left_len, const char *right,
                   size_t right_len);

/* A value converter for one column ('f:q:toLong'). */
typedef struct sh_column_conv {
    const char *family;
    const void *qualifier;
    size_t qualifier_len;
    sh_conv conv;
} sh_column_conv;

/* How get and scan print cells. */
typedef struct sh_cell_format {
    sh_conv all;                     /* FORMATTER: rows, families, qualifiers, values */
    const sh_column_conv *columns;   /* value converters by column, over `all` */
    size_t ncolumns;
    int64_t maxlength;               /* MAXLENGTH: characters of the cell text; -1 all */
} sh_cell_format;

#define SH_CELL_FORMAT_INIT { SH_CONV_BINARY, NULL, 0, -1 }

/* The name of a cell type: Put, Delete, DeleteColumn, DeleteFamily,
 * DeleteFamilyVersion. */
const char *sh_cell_type_name(kv_cell_type type);

/* One line of a scan, " row   column=f:q, timestamp=N, value=V", or of a
 * get (@p row NULL), " f:q   timestamp=N, value=V". Returns 0, or -1 with
 * the converter's (Java) message in @p err, or "out of memory"; nothing is
 * printed then. */
int sh_print_cell_line(FILE *out, const kv_result *row, const kv_cell *cell,
                       const sh_cell_format *fmt, char *err, size_t errlen);

#endif
