/*
 * Statement loops: run the statements of a text (-e), of a stream (a script
 * file or standard input), or interactively with GNU readline (line
 * editing, tab completion, history in ~/.cellsh_history written as it
 * grows, continuation lines while a statement is open, Ctrl-C dropping the
 * line or stopping the command). Implemented in repl.c; called by main.c.
 */
#ifndef CELLSH_REPL_H
#define CELLSH_REPL_H

#include <stdbool.h>
#include <stdio.h>

#include "shell.h"

/* Each returns 0 when every statement succeeded, 1 otherwise. With
 * @p stop_on_error the first failure ends the run. */
int sh_run_text(cellsh *sh, const char *text, bool stop_on_error);
int sh_run_stream(cellsh *sh, FILE *in, const char *name, bool stop_on_error);
int sh_run_interactive(cellsh *sh);

#endif
