/*
 * A progress line for import and export on stderr — only when stderr is a
 * terminal, so that scripts and pipes see clean output: a bar when the
 * total is known (import: the file size), rows, bytes and throughput,
 * redrawn at most ten times a second. Implemented in progress.c.
 */
#ifndef CELLSH_PROGRESS_H
#define CELLSH_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct sh_progress {
    FILE *out;           /* NULL: disabled */
    const char *label;
    uint64_t total;      /* bytes expected; 0 = unknown */
    double start;
    double last;         /* time of the last redraw */
} sh_progress;

void sh_progress_start(sh_progress *p, FILE *out, bool enabled, const char *label,
                       uint64_t total_bytes);
void sh_progress_update(sh_progress *p, uint64_t rows, uint64_t bytes);
/* Erases the progress line and prints a summary line ("import: 1000 rows,
 * 2.1 MB in 0.5 s, 2000 rows/s") when enabled. */
void sh_progress_end(sh_progress *p, uint64_t rows, uint64_t bytes);

#endif
