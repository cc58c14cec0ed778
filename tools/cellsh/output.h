/*
 * Output in the HBase shell's layout: bytes as Bytes.toStringBinary shows
 * them (printable ASCII as is, every other byte and the backslash as \xNN),
 * two-column tables ("ROW" / "COLUMN+CELL", "COLUMN" / "CELL") whose second
 * column starts at offset 38, and the cell text "column=cf:a,
 * timestamp=N, value=V" or "type=DeleteColumn" for delete markers.
 * Implemented in output.c; used by the read and catalog commands.
 */
#ifndef CELLSH_OUTPUT_H
#define CELLSH_OUTPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "kvcore.h"

/* Width of the first column: the second starts at SH_COL1_WIDTH + 2. */
#define SH_COL1_WIDTH 36

/* Writes bytes escaped; returns the number of characters written. */
size_t sh_print_escaped(FILE *out, const void *p, size_t n);
/* The escaped form's length without writing it. */
size_t sh_escaped_len(const void *p, size_t n);

/* "ROW" padded to the second column, then "COLUMN+CELL", newline. */
void sh_print_header(FILE *out, const char *left, const char *right);
/* " " + escaped left column padded to the second column (a longer first
 * column pushes the second one right by one space). The caller prints the
 * second column and the newline. */
void sh_print_left(FILE *out, const void *left, size_t len);
/* Like sh_print_left for family:qualifier. */
void sh_print_left_column(FILE *out, const kv_cell *cell);

/* The name of a cell type: Put, Delete, DeleteColumn, DeleteFamily,
 * DeleteFamilyVersion. */
const char *sh_cell_type_name(kv_cell_type type);

/* The second column of a scan or get line: "[column=f:q, ]timestamp=N,
 * value=V" (type=... for markers). @p maxlength >= 0 cuts the value's
 * escaped text after that many characters, as HBase's MAXLENGTH. */
void sh_print_cell(FILE *out, const kv_cell *cell, int with_column, int64_t maxlength);

#endif
