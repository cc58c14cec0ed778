/*
 * Statement loops (see repl.h): collect lines until a statement is
 * complete, parse it with parser.c, run it with shell.c's sh_execute.
 * Uses GNU readline and its history library in interactive mode.
 */
#include "repl.h"

#include <readline/history.h>
#include <readline/readline.h>
#include <stdlib.h>
#include <string.h>

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
        } else {
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

int sh_run_interactive(cellsh *sh) {
    rl_readline_name = "cellsh";
    using_history();
    stifle_history(1000);
    char *hist = history_path();
    if (hist) read_history(hist);   /* a missing file is fine */
    fprintf(sh->out, "cellsh %s; enter 'help' for the list of commands, 'exit' or Ctrl-D to "
            "leave.\nStore: %s\n", KVCORE_VERSION, sh->store_path);
    pending p = { NULL, 0, 0, 1 };
    bool stop = false;
    unsigned long stmt = 1;
    int failed = 0;
    while (!stop) {
        char prompt[64];
        snprintf(prompt, sizeof prompt, "cellsh(main):%03lu:%d%s ", stmt, p.len ? 1 : 0,
                 p.len ? "*" : ">");
        char *line = readline(prompt);
        if (!line) {
            fputc('\n', sh->out);
            break;
        }
        if (line[0] && (history_length == 0 || strcmp(history_get(history_base +
                                                                   history_length - 1)->line,
                                                       line) != 0))
            add_history(line);
        int bad = pending_append(&p, line, strlen(line)) < 0 || pending_append(&p, "\n", 1) < 0;
        free(line);
        if (bad) {
            sh_error(sh, "out of memory");
            break;
        }
        bool had_text = p.len > 1;
        failed |= run_pending(sh, &p, NULL, false, &stop);
        if (had_text && p.len == 0) stmt++;
    }
    if (hist) {
        write_history(hist);
        free(hist);
    }
    free(p.buf);
    (void)failed;   /* errors in interactive mode do not change the exit status */
    return 0;
}
