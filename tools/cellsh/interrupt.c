/*
 * The SIGINT record of interrupt.h. A signal handler can reach nothing but
 * static storage, so the record is the one piece of process-wide mutable
 * state of cellsh: a sig_atomic_t written by the handler and read and
 * cleared by the main thread (cellsh runs its commands on one thread).
 */
#include "interrupt.h"

#include <signal.h>
#include <string.h>

static volatile sig_atomic_t pressed;

static void on_sigint(int sig) {
    (void)sig;
    pressed = 1;
}

int sh_interrupt_install(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    return sigaction(SIGINT, &sa, NULL);
}

bool sh_interrupted(void) { return pressed != 0; }

void sh_interrupt_clear(void) { pressed = 0; }
