/*
 * The shell's state and the services every command uses: error reporting
 * (`ERROR: ...` lines), mapping kvcore statuses to HBase-style messages,
 * stepping a scan (the one place that interprets kvcore's end-of-scan
 * status), the `N row(s)` footer, and statement execution with the HBase 2
 * timing line ("Took 0.0123 seconds"). Implemented in shell.c; used by
 * every cmd_*.c, repl.c and main.c.
 */
#ifndef CELLSH_SHELL_H
#define CELLSH_SHELL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "kvcore.h"
#include "parser.h"

typedef struct cellsh {
    kv_store *store;
    const char *store_path;
    FILE *out;                 /* command output (stdout) */
    FILE *err;                 /* ERROR: lines, progress (stderr) */
    FILE *in;                  /* answers to questions (disable_all's y/n):
                                  stdin, as HBase's gets reads it */
    bool interactive;          /* reading a terminal with readline */
    bool timing;               /* print "Took X.XXXX seconds" after commands */
    bool progress;             /* import/export progress bars on err */
    bool exit_requested;       /* `exit` was run */
    unsigned long errors;      /* commands that failed so far */
    kv_write_options wopts;
    double started;            /* when the current command began (s) */
    int64_t opened_ms;         /* when the store was opened (epoch ms): the
                                  "start code" that status shows */
    sh_arena *arena;           /* the current statement's arena */
} cellsh;

/* Seconds on a monotonic clock. */
double sh_now(void);

/* Prints "ERROR: <message>" on sh->err and counts the failure. Returns -1
 * so that handlers can `return sh_error(...)`. */
int sh_error(cellsh *sh, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Prints the ERROR: line for a failed kvcore call, in the HBase shell's
 * words where it has some ("Unknown table t!", "Table already exists: t!",
 * "Table t is disabled!"); @p table names the table the call was about, or
 * NULL. Returns -1.
 */
int sh_kv_error(cellsh *sh, kv_status st, const char *table);

/* Like sh_kv_error for namespace calls: "Unknown namespace ns!". */
int sh_ns_error(cellsh *sh, kv_status st, const char *ns);

/* What sh_scan_next found. */
enum sh_scan_step {
    SH_SCAN_ROW = 1,           /* *row holds the next row */
    SH_SCAN_END = 0,           /* no more rows */
    SH_SCAN_FAILED = -1,       /* the ERROR: line has been printed */
    SH_SCAN_INTERRUPTED = -2,  /* Ctrl-C; nothing printed, the caller says
                                  how far it got */
};
/* Moves @p scan (of @p table, for messages) to its next row. */
enum sh_scan_step sh_scan_next(cellsh *sh, kv_scan *scan, const kv_result **row,
                               const char *table);
/* Prints "ERROR: interrupted (Ctrl-C) after N row(s)" plus @p what (may be
 * "") and returns -1: the end of a read that Ctrl-C stopped. */
int sh_interrupted_after(cellsh *sh, uint64_t rows, const char *what);

/* Ends a read or a listing: "N row(s)". */
void sh_footer_rows(cellsh *sh, uint64_t rows);

/* Runs one parsed statement (finds the command, checks arguments, calls it)
 * and, when timing, prints HBase 2's "Took X.XXXX seconds" after it,
 * whether it failed or not. Returns 0 or -1 (the ERROR: line has been
 * printed). */
int sh_execute(cellsh *sh, const sh_command *cmd);

#endif
