/*
 * Tab completion for the interactive shell: command names at the start of
 * a statement (and after help), table names where a command takes a table,
 * namespace names where it takes a namespace, and "family:" where it takes
 * a column (the third argument of put, get, delete, ..., the second of
 * flush and compact, COLUMN/COLUMNS in an options hash). Hooks into GNU
 * readline, whose completion callbacks carry no context: the store they
 * list comes from sh_complete_install. Implemented in complete.c; used by
 * repl.c.
 */
#ifndef CELLSH_COMPLETE_H
#define CELLSH_COMPLETE_H

#include "shell.h"

/* Makes readline complete from @p sh's store until the shell ends. */
void sh_complete_install(cellsh *sh);

#endif
