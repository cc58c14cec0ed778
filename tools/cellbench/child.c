/*
 * child.h: fork, a result pipe read with ppoll so that termination signals
 * interrupt the wait, and waitpid. Used by kvbench.c and fsbench.c.
 */
#include "child.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void on_signal(int sig) { (void)sig; }

static const int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

void child_signals_init(sigset_t *saved) {
    sigset_t block;
    sigemptyset(&block);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof kSignals / sizeof kSignals[0]; i++) {
        sigaddset(&block, kSignals[i]);
        sigaction(kSignals[i], &sa, NULL);
    }
    sigprocmask(SIG_BLOCK, &block, saved);
}

void child_signals_reset(const sigset_t *saved) {
    for (size_t i = 0; i < sizeof kSignals / sizeof kSignals[0]; i++)
        signal(kSignals[i], SIG_DFL);
    sigprocmask(SIG_SETMASK, saved, NULL);
}

int child_write_all(int fd, const void *buf, size_t len) {
    const char *p = buf;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

int child_start(child_proc *p, const sigset_t *saved, child_fn fn, void *ctx) {
    p->pid = -1;
    p->fd = -1;
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        fprintf(stderr, "cellbench: pipe: %s\n", strerror(errno));
        return -1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "cellbench: fork: %s\n", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        close(fds[0]);
        child_signals_reset(saved);
        int rc = fn(ctx, fds[1]);
        close(fds[1]);
        fflush(NULL);
        _exit(rc);
    }
    close(fds[1]);
    p->pid = pid;
    p->fd = fds[0];
    return 0;
}

void child_kill(const child_proc *p) {
    if (p->pid > 0)
        kill(p->pid, SIGKILL);
}

void child_finish(child_proc *p, child_outcome *res, void *out, size_t len) {
    memset(res, 0, sizeof *res);
    sigset_t wait_mask;
    sigprocmask(SIG_SETMASK, NULL, &wait_mask);
    for (size_t i = 0; i < sizeof kSignals / sizeof kSignals[0]; i++)
        sigdelset(&wait_mask, kSignals[i]);
    char *dst = out;
    for (;;) {
        struct pollfd pfd = {p->fd, POLLIN, 0};
        int pr = ppoll(&pfd, 1, NULL, &wait_mask);
        if (pr < 0 && errno == EINTR) {
            res->interrupted = true;
            kill(p->pid, SIGKILL);
            break;
        }
        if (pr < 0)
            break;
        char sink[4096];
        char *to = res->received < len ? dst + res->received : sink;
        size_t room = res->received < len ? len - res->received : sizeof sink;
        ssize_t n = read(p->fd, to, room);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        if (to != sink)
            res->received += (size_t)n;
    }
    close(p->fd);
    p->fd = -1;
    int status = 0;
    while (waitpid(p->pid, &status, 0) < 0) {
        if (errno != EINTR) {
            status = 0;
            break;
        }
    }
    p->pid = -1;
    if (WIFEXITED(status))
        res->exit_status = WEXITSTATUS(status);
    else if (WIFSIGNALED(status))
        res->exit_status = 128 + WTERMSIG(status);
}

int child_run(child_outcome *res, const sigset_t *saved, child_fn fn, void *ctx, void *out,
              size_t len) {
    memset(res, 0, sizeof *res);
    child_proc p;
    if (child_start(&p, saved, fn, ctx) != 0)
        return -1;
    child_finish(&p, res, out, len);
    return 0;
}
