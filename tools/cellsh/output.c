/*
 * HBase-shell output layout (see output.h). Used by the read and catalog
 * commands; calls only stdio.
 */
#include "output.h"

#include <inttypes.h>
#include <string.h>

static int printable(unsigned char c) {
    return c >= 0x20 && c <= 0x7E && c != '\\';
}

size_t sh_escaped_len(const void *p, size_t n) {
    const unsigned char *b = p;
    size_t len = 0;
    for (size_t i = 0; i < n; i++) len += printable(b[i]) ? 1 : 4;
    return len;
}

size_t sh_print_escaped(FILE *out, const void *p, size_t n) {
    const unsigned char *b = p;
    size_t len = 0;
    size_t run = 0;   /* printable bytes not yet written */
    for (size_t i = 0; i < n; i++) {
        if (printable(b[i])) {
            run++;
            continue;
        }
        if (run) fwrite(b + i - run, 1, run, out);
        len += run;
        run = 0;
        fprintf(out, "\\x%02X", b[i]);
        len += 4;
    }
    if (run) fwrite(b + n - run, 1, run, out);
    return len + run;
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

void sh_print_left(FILE *out, const void *left, size_t len) {
    fputc(' ', out);
    size_t n = sh_print_escaped(out, left, len);
    pad(out, n + 1, SH_COL1_WIDTH + 2);
}

void sh_print_left_column(FILE *out, const kv_cell *cell) {
    fputc(' ', out);
    size_t n = strlen(cell->family);
    fputs(cell->family, out);
    fputc(':', out);
    n += 1 + sh_print_escaped(out, cell->qualifier, cell->qualifier_len);
    pad(out, n + 1, SH_COL1_WIDTH + 2);
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

void sh_print_cell(FILE *out, const kv_cell *cell, int with_column, int64_t maxlength) {
    if (with_column) {
        fprintf(out, "column=%s:", cell->family);
        sh_print_escaped(out, cell->qualifier, cell->qualifier_len);
        fputs(", ", out);
    }
    fprintf(out, "timestamp=%" PRId64 ", ", cell->timestamp);
    if (cell->type != KV_TYPE_PUT) {
        fprintf(out, "type=%s", sh_cell_type_name(cell->type));
        return;
    }
    fputs("value=", out);
    size_t n = cell->value_len;
    if (maxlength >= 0) {
        /* cut on whole escaped characters */
        size_t used = 0, i = 0;
        const unsigned char *b = cell->value;
        for (; i < n; i++) {
            size_t w = printable(b[i]) ? 1 : 4;
            if (used + w > (uint64_t)maxlength) break;
            used += w;
        }
        n = i;
    }
    sh_print_escaped(out, cell->value, n);
}
