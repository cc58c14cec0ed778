/*
 * The value converters of get and scan, named as the HBase shell names them
 * after methods of org.apache.hadoop.hbase.util.Bytes: FORMATTER =>
 * 'toString' for every part of a cell, and column specs 'f:q:toLong' or
 * 'f:q:c(org.apache.hadoop.hbase.util.Bytes).toLong' for one column's
 * values. Each turns bytes into the text that Bytes' method gives
 * (toStringBinary's \xNN escapes, toString's UTF-8, toLong's decimal
 * number, ...), failing with the message of its Java exception when the
 * bytes do not fit. Also the growable text buffer the printers build their
 * lines in. Implemented in convert.c; used by read_opts.c and output.c.
 */
#ifndef CELLSH_CONVERT_H
#define CELLSH_CONVERT_H

#include <stdbool.h>
#include <stddef.h>

typedef enum sh_conv {
    SH_CONV_BINARY,    /* toStringBinary, the default */
    SH_CONV_STRING,    /* toString: the bytes as UTF-8 text */
    SH_CONV_LONG,      /* toLong: the first 8 bytes, big-endian, signed */
    SH_CONV_INT,       /* toInt: the first 4 */
    SH_CONV_SHORT,     /* toShort: the first 2 */
    SH_CONV_DOUBLE,    /* toDouble: the first 8 as an IEEE double */
    SH_CONV_FLOAT,     /* toFloat: the first 4 as an IEEE float */
    SH_CONV_BOOLEAN,   /* toBoolean: exactly one byte, true unless 0 */
    SH_CONV_HEX,       /* toHex: lower-case hex digits */
} sh_conv;

/* The one Java class whose converters cellsh has. */
#define SH_CONV_CLASS "org.apache.hadoop.hbase.util.Bytes"

/* A line being built; on allocation failure `failed` is set and further
 * appends do nothing. */
typedef struct sh_buf {
    char *p;
    size_t len, cap;
    bool failed;
} sh_buf;

void sh_buf_put(sh_buf *b, const void *p, size_t n);
void sh_buf_puts(sh_buf *b, const char *s);
void sh_buf_printf(sh_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sh_buf_free(sh_buf *b);

/* The number of characters (UTF-8 code points) of text, for padding and
 * MAXLENGTH, which HBase counts in Java characters. */
size_t sh_text_width(const char *s, size_t n);
/* The byte length of the first @p chars characters of s[0..n). */
size_t sh_text_prefix(const char *s, size_t n, size_t chars);

/* The converter of the Bytes method @p name ("toLong"); -1 if unknown. */
int sh_conv_by_name(const char *name, size_t len, sh_conv *out);
/* The names sh_conv_by_name knows, for messages. */
const char *sh_conv_names(void);

/*
 * Reads what follows a column's qualifier in 'f:q:SPEC': a Bytes method
 * name or "c(CLASS).method". Returns 1 with *out set; 0 when SPEC does not
 * look like a converter at all (neither "to..." nor "c(...)", so that it is
 * part of a qualifier holding ':'); -1 with the reason in @p err for a
 * converter cellsh does not have.
 */
int sh_conv_parse_spec(const char *spec, size_t len, sh_conv *out, char *err, size_t errlen);

/* Appends the text of bytes p[0..n) converted by @p c. Returns 0, or -1
 * with Java's message in @p err ("offset (0) + length (8) exceed the
 * capacity of the array: 3"). */
int sh_conv_append(sh_buf *b, sh_conv c, const void *p, size_t n, char *err, size_t errlen);

#endif
