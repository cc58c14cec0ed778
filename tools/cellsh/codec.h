/*
 * Byte-string codecs of the import/export files. TSV fields: backslash,
 * tab, newline and carriage return are written \\ \t \n \r, the separator
 * and other control bytes \xNN; everything else as is. JSON strings: the
 * shell's own notation, printable ASCII as is and every other byte and the
 * backslash as \xNN, so that any bytes survive a JSON round trip and the
 * file reads like the scan output. Implemented in codec.c; used by
 * transfer_tsv.c and transfer_json.c.
 */
#ifndef CELLSH_CODEC_H
#define CELLSH_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Writes one TSV field. */
void sh_tsv_write_field(FILE *out, const void *p, size_t n, char separator);
/* Decodes a TSV field in place; returns the new length. Unknown escapes
 * are kept as they are. */
size_t sh_tsv_unescape(char *s, size_t n);

/* The \xNN text form of bytes, malloc'd and NUL-terminated; NULL when out
 * of memory. */
char *sh_bin_to_text(const void *p, size_t n, size_t *out_len);
/* Decodes the \xNN text form in place; false on a backslash that does not
 * start \xNN (the text is then undefined). */
bool sh_text_to_bin(char *s, size_t n, size_t *out_len);

#endif
