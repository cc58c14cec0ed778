/*
 * Statement loops (see repl.h): collect lines until a statement is
 * complete, parse it with parser.c, run it with shell.c's sh_execute.
 * Interactive mode uses GNU readline's callback interface, so that the
 * loop waits in select(2) and a Ctrl-C (interrupt.c) can drop the line
 * being typed; history goes to its file line by line; complete.c
 * completes names.
 */
#include "repl.h"

#include <errno.h>
#include <pthread.h>
#include <readline/history.h>
#include <readline/readline.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>

#include "complete.h"
#include "interrupt.h"
#include "parser.h"

/* Text collected until its statements are complete. */
typedef struct pending {
    char *buf;
    size_t len, cap;
    unsigned long line;        /* line number of buf[0] in the input */
} pending;

static int pending_append(pending *p, const char *s, size_t n) {
    if (p->len + n + 1 > p->cap) {
        size_t cap = p->cap ? p->cap : 256;
        while (cap < p->len + n + 1) cap *= 2;
        char *b = realloc(p->buf, cap);
        if (!b) return -1;
        p->buf = b;
        p->cap = cap;
    }
    memcpy(p->buf + p->len, s, n);
    p->len += n;
    p->buf[p->len] = '\0';
    return 0;
}

static unsigned long count_lines(const char *s, size_t n) {
    unsigned long k = 0;
    for (size_t i = 0; i < n; i++) k += s[i] == '\n';
    return k;
}

/*
 * Runs every complete statement at the start of p and drops it. Leaves an
 * incomplete statement in p. Returns 1 when a statement failed, else 0;
 * *stop is set after `exit`, or after a failure when stop_on_error.
 */
static int run_pending(cellsh *sh, pending *p, const char *name, bool stop_on_error, bool *stop) {
    size_t pos = 0;
    int failed = 0;
    while (!*stop) {
        size_t start = pos;
        sh_arena arena = SH_ARENA_INIT;
        sh_command cmd;
        char err[512];
        sh_parse_result r = sh_parse(&cmd, p->buf, p->len, &pos, &arena, err, sizeof err);
        if (r == SH_PARSE_INCOMPLETE) {
            sh_arena_free(&arena);
            pos = start;
            break;
        }
        if (r == SH_PARSE_EMPTY) {
            sh_arena_free(&arena);
            break;
        }
        if (r == SH_PARSE_ERROR) {
            /* the line of the error: after the blank lines the statement skipped */
            size_t at = start;
            while (at < p->len && (p->buf[at] == '\n' || p->buf[at] == ' ' || p->buf[at] == '\t'))
                at++;
            unsigned long line = p->line + count_lines(p->buf, at);
            if (name) sh_error(sh, "%s:%lu: %s", name, line, err);
            else sh_error(sh, "%s", err);
            failed = 1;
        } else if (!sh->interactive && sh_interrupted()) {
            /* Ctrl-C in a script: the statements after it do not run */
            sh_error(sh, "interrupted (Ctrl-C)");
            failed = 1;
            *stop = true;
        } else {
            if (sh->interactive) sh_interrupt_clear();
            sh->arena = &arena;
            if (sh_execute(sh, &cmd) < 0) failed = 1;
            sh->arena = NULL;
            if (sh->exit_requested) *stop = true;
        }
        sh_arena_free(&arena);
        if (failed && stop_on_error) *stop = true;
    }
    p->line += count_lines(p->buf, pos);
    memmove(p->buf, p->buf + pos, p->len - pos);
    p->len -= pos;
    if (p->buf) p->buf[p->len] = '\0';
    return failed;
}

int sh_run_text(cellsh *sh, const char *text, bool stop_on_error) {
    pending p = { NULL, 0, 0, 1 };
    bool stop = false;
    int failed = 0;
    if (pending_append(&p, text, strlen(text)) < 0 || pending_append(&p, "\n", 1) < 0) {
        free(p.buf);
        sh_error(sh, "out of memory");
        return 1;
    }
    failed = run_pending(sh, &p, NULL, stop_on_error, &stop);
    if (!stop && p.len > 0) {
        sh_error(sh, "syntax error: unexpected end of input (an unclosed quote or bracket?)");
        failed = 1;
    }
    free(p.buf);
    return failed;
}

int sh_run_stream(cellsh *sh, FILE *in, const char *name, bool stop_on_error) {
    pending p = { NULL, 0, 0, 1 };
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    bool stop = false;
    int failed = 0;
    while (!stop && (n = getline(&line, &cap, in)) >= 0) {
        if (pending_append(&p, line, (size_t)n) < 0) {
            sh_error(sh, "out of memory");
            failed = 1;
            break;
        }
        if (n > 0 && line[n - 1] != '\n') continue;   /* last line without newline */
        failed |= run_pending(sh, &p, name, stop_on_error, &stop);
    }
    if (!stop && !failed && ferror(in)) {
        sh_error(sh, "cannot read %s", name ? name : "standard input");
        failed = 1;
    }
    if (!stop && p.len > 0) {
        if (pending_append(&p, "\n", 1) == 0) failed |= run_pending(sh, &p, name, stop_on_error, &stop);
        if (!stop && p.len > 0) {
            sh_error(sh, "%s:%lu: syntax error: unexpected end of input (an unclosed quote or "
                     "bracket?)", name ? name : "stdin", p.line);
            failed = 1;
        }
    }
    free(line);
    free(p.buf);
    return failed;
}

/* ~/.cellsh_history, or NULL without $HOME. malloc'd. */
static char *history_path(void) {
    const char *home = getenv("HOME");
    if (!home || !*home) return NULL;
    size_t n = strlen(home) + sizeof "/.cellsh_history";
    char *p = malloc(n);
    if (p) snprintf(p, n, "%s/.cellsh_history", home);
    return p;
}

/* The interactive session. readline's line callback takes no context, so
 * the line it hands over goes through `delivered` below. */
typedef struct session {
    cellsh *sh;
    pending p;
    unsigned long stmt;        /* the prompt's statement number */
    char *hist;                /* history file, or NULL */
    bool hist_failed;          /* a warning about it was printed */
    bool stop;
} session;

static char *delivered;        /* the line readline just read */
static bool delivered_eof;     /* Ctrl-D on an empty line */

static void on_line(char *line) {
    delivered = line;
    delivered_eof = line == NULL;
    /* no prompt until the statement has run and printed its output */
    rl_callback_handler_remove();
}

static void prompt(session *s) {
    char text[64];
    snprintf(text, sizeof text, "cellsh(main):%03lu:%d%s ", s->stmt, s->p.len ? 1 : 0,
             s->p.len ? "*" : ">");
    rl_callback_handler_install(text, on_line);
}

/* Adds a line to the history and to the history file at once, so that a
 * shell that dies keeps what was typed. */
static void remember(session *s, const char *line) {
    if (!line[0]) return;
    if (history_length > 0 && strcmp(history_get(history_base + history_length - 1)->line,
                                     line) == 0)
        return;
    add_history(line);
    if (!s->hist || s->hist_failed) return;
    int e = append_history(1, s->hist);
    if (e != 0) {
        s->hist_failed = true;
        fprintf(s->sh->err, "cellsh: warning: cannot write %s: %s\n", s->hist, strerror(e));
    }
}

/* Ctrl-C at the prompt: the line being typed, and a statement left open
 * on earlier lines, are dropped. */
static void cancel_line(session *s) {
    sh_interrupt_clear();
    rl_free_line_state();
    rl_callback_sigcleanup();
    rl_replace_line("", 0);
    rl_callback_handler_remove();
    fputs("^C\n", s->sh->out);
    fflush(s->sh->out);
    rl_on_new_line();   /* readline's display starts over on the new line */
    s->p.len = 0;
    prompt(s);
}

/* One line from readline: run the statements it completes. */
static void take_line(session *s, char *line) {
    remember(s, line);
    int bad = pending_append(&s->p, line, strlen(line)) < 0 || pending_append(&s->p, "\n", 1) < 0;
    free(line);
    if (bad) {
        sh_error(s->sh, "out of memory");
        s->stop = true;
        return;
    }
    bool had_text = s->p.len > 1;
    run_pending(s->sh, &s->p, NULL, false, &s->stop);
    if (had_text && s->p.len == 0) s->stmt++;
    sh_interrupt_clear();   /* a Ctrl-C that stopped the command is spent */
}

int sh_run_interactive(cellsh *sh) {
    session s = { sh, { NULL, 0, 0, 1 }, 1, history_path(), false, false };
    rl_readline_name = "cellsh";
    rl_catch_signals = 0;   /* Ctrl-C is ours: interrupt.c records it */
    using_history();
    stifle_history(1000);
    if (s.hist) {
        /* create the file now: append_history does not */
        if (read_history(s.hist) != 0) {
            int e = write_history(s.hist);
            if (e != 0) {
                fprintf(sh->err, "cellsh: warning: cannot write %s: %s\n", s.hist, strerror(e));
                s.hist_failed = true;
            }
        }
        history_truncate_file(s.hist, 1000);
    }
    sh_complete_install(sh);
    fprintf(sh->out, "cellsh %s; enter 'help' for the list of commands, 'exit' or Ctrl-D to "
            "leave.\nStore: %s\n", KVCORE_VERSION, sh->store_path);
    fflush(sh->out);
    sh_interrupt_clear();
    prompt(&s);
    int in = fileno(rl_instream ? rl_instream : stdin);
    /* Ctrl-C is let in only while the loop waits for a key (pselect swaps
     * the mask atomically) and while a command runs: a signal arriving
     * while readline handles a key waits for the next pselect, which then
     * sees it, instead of being lost before a select that would sleep. */
    sigset_t sigint, waiting;
    sigemptyset(&sigint);
    sigaddset(&sigint, SIGINT);
    pthread_sigmask(SIG_BLOCK, &sigint, &waiting);
    sigdelset(&waiting, SIGINT);
    while (!s.stop) {
        if (sh_interrupted()) {
            cancel_line(&s);
            continue;
        }
        fd_set fds;
        FD_ZERO(&fds);
        FD_SET(in, &fds);
        if (pselect(in + 1, &fds, NULL, NULL, NULL, &waiting) < 0) {
            if (errno != EINTR) break;
            continue;
        }
        rl_callback_read_char();
        if (delivered_eof) {
            fputc('\n', sh->out);
            break;
        }
        if (delivered) {
            char *line = delivered;
            delivered = NULL;
            pthread_sigmask(SIG_UNBLOCK, &sigint, NULL);
            take_line(&s, line);
            pthread_sigmask(SIG_BLOCK, &sigint, NULL);
            if (!s.stop) prompt(&s);
        }
    }
    pthread_sigmask(SIG_UNBLOCK, &sigint, NULL);
    rl_callback_handler_remove();
    if (s.hist) history_truncate_file(s.hist, 1000);
    free(s.hist);
    free(s.p.buf);
    return 0;   /* errors in interactive mode do not change the exit status */
}
