/*
 * Ctrl-C for the shell: a SIGINT handler that only records that the key was
 * pressed, so that the shell is never ended by it. The interactive loop
 * (repl.c) uses the record to drop the line being typed; long commands
 * (scan, count, import, export, deleteall with a prefix) poll it between
 * rows and stop cleanly, saying how far they got; a script stops before its
 * next statement. Implemented in interrupt.c; repl.c clears the record
 * before each interactive statement.
 */
#ifndef CELLSH_INTERRUPT_H
#define CELLSH_INTERRUPT_H

#include <stdbool.h>

/* Installs the SIGINT handler, with SA_RESTART so that no read or write of
 * the shell or of kvcore fails because of the signal (select(2), which the
 * interactive loop waits in, returns EINTR all the same). Returns 0, or -1
 * with errno set. */
int sh_interrupt_install(void);
/* True when Ctrl-C was pressed since the last sh_interrupt_clear. */
bool sh_interrupted(void);
void sh_interrupt_clear(void);

#endif
