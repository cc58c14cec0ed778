/*
 * HBase-shell output layout (see output.h). Used by the read and catalog
 * commands; builds lines with convert.c's buffer and converters.
 */
#include "output.h"

#include <inttypes.h>
#include <string.h>

size_t sh_print_escaped(FILE *out, const void *p, size_t n) {
    sh_buf b = { NULL, 0, 0, false };
    char err[8];
    sh_conv_append(&b, SH_CONV_BINARY, p, n, err, sizeof err);   /* cannot fail */
    if (b.len) fwrite(b.p, 1, b.len, out);
    size_t len = b.len;
    sh_buf_free(&b);
    return len;
}

static void pad(FILE *out, size_t used, size_t width) {
    if (used >= width) {
        fputc(' ', out);
        return;
    }
    for (size_t i = used; i < width; i++) fputc(' ', out);
}

void sh_print_header(FILE *out, const char *left, const char *right) {
    fputs(left, out);
    pad(out, strlen(left), SH_COL1_WIDTH + 2);
    fputs(right, out);
    fputc('\n', out);
}

void sh_print_pair(FILE *out, const char *left, size_t left_len, const char *right,
                   size_t right_len) {
    fputc(' ', out);
    fwrite(left, 1, left_len, out);
    pad(out, sh_text_width(left, left_len) + 1, SH_COL1_WIDTH + 2);
    fwrite(right, 1, right_len, out);
    fputc('\n', out);
}

const char *sh_cell_type_name(kv_cell_type type) {
    switch (type) {
    case KV_TYPE_PUT: return "Put";
    case KV_TYPE_DELETE: return "Delete";
    case KV_TYPE_DELETE_COLUMN: return "DeleteColumn";
    case KV_TYPE_DELETE_FAMILY: return "DeleteFamily";
    case KV_TYPE_DELETE_FAMILY_VERSION: return "DeleteFamilyVersion";
    }
    return "Unknown";
}

/* The converter of a cell's value: its column's, else FORMATTER's. */
static sh_conv value_conv(const sh_cell_format *fmt, const kv_cell *cell) {
    for (size_t i = 0; i < fmt->ncolumns; i++) {
        const sh_column_conv *c = &fmt->columns[i];
        if (c->qualifier_len == cell->qualifier_len && strcmp(c->family, cell->family) == 0 &&
            (cell->qualifier_len == 0 || memcmp(c->qualifier, cell->qualifier,
                                                cell->qualifier_len) == 0))
            return c->conv;
    }
    return fmt->all;
}

/* "family:qualifier" through FORMATTER. */
static int column_text(sh_buf *b, const sh_cell_format *fmt, const kv_cell *cell, char *err,
                       size_t errlen) {
    if (sh_conv_append(b, fmt->all, cell->family, strlen(cell->family), err, errlen) < 0)
        return -1;
    sh_buf_puts(b, ":");
    return sh_conv_append(b, fmt->all, cell->qualifier, cell->qualifier_len, err, errlen);
}

int sh_print_cell_line(FILE *out, const kv_result *row, const kv_cell *cell,
                       const sh_cell_format *fmt, char *err, size_t errlen) {
    sh_buf left = { NULL, 0, 0, false }, right = { NULL, 0, 0, false },
           text = { NULL, 0, 0, false };
    int rc = 0;
    if (row) {
        rc = sh_conv_append(&left, fmt->all, row->row, row->row_len, err, errlen);
        if (rc == 0) {
            sh_buf_puts(&right, "column=");
            rc = column_text(&right, fmt, cell, err, errlen);
            sh_buf_puts(&right, ", ");
        }
    } else {
        rc = column_text(&left, fmt, cell, err, errlen);
    }
    /* the cell text, which MAXLENGTH cuts as a whole */
    if (rc == 0) {
        sh_buf_printf(&text, "timestamp=%" PRId64 ", ", cell->timestamp);
        if (cell->type != KV_TYPE_PUT) {
            sh_buf_printf(&text, "type=%s", sh_cell_type_name(cell->type));
        } else {
            sh_buf_puts(&text, "value=");
            rc = sh_conv_append(&text, value_conv(fmt, cell), cell->value, cell->value_len, err,
                                errlen);
        }
    }
    if (rc == 0 && (left.failed || right.failed || text.failed)) {
        snprintf(err, errlen, "out of memory");
        rc = -1;
    }
    if (rc == 0) {
        size_t n = text.len;
        if (fmt->maxlength >= 0) n = sh_text_prefix(text.p, text.len, (size_t)fmt->maxlength);
        sh_buf_put(&right, text.p, n);
        if (right.failed) {
            snprintf(err, errlen, "out of memory");
            rc = -1;
        } else {
            sh_print_pair(out, left.p ? left.p : "", left.len, right.p, right.len);
        }
    }
    sh_buf_free(&left);
    sh_buf_free(&right);
    sh_buf_free(&text);
    return rc;
}
