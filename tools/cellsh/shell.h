/*
 * The shell's state and the services every command uses: error reporting
 * (`ERROR: ...` lines), mapping kvcore statuses to HBase-style messages, and
 * the footer of a command (`N row(s)`, and timing in interactive mode).
 * Implemented in shell.c; used by every cmd_*.c, repl.c and main.c.
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
    bool interactive;          /* reading a terminal with readline */
    bool timing;               /* print "in X.XXXX seconds" / "Took ..." */
    bool progress;             /* import/export progress bars on err */
    bool exit_requested;       /* `exit` was run */
    unsigned long errors;      /* commands that failed so far */
    kv_write_options wopts;
    double started;            /* when the current command began (s) */
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

/* Ends a read: "N row(s)", plus " in X.XXXX seconds" when timing. */
void sh_footer_rows(cellsh *sh, uint64_t rows);
/* Ends any other command: "Took X.XXXX seconds" when timing, else nothing. */
void sh_footer_took(cellsh *sh);

/* Runs one parsed statement (finds the command, checks arguments, calls it).
 * Returns 0 or -1 (the ERROR: line has been printed). */
int sh_execute(cellsh *sh, const sh_command *cmd);

#endif
