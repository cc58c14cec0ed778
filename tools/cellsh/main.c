/*
 * cellsh: an HBase-shell compatible command line for cellfs stores.
 * Parses the command line, opens (or creates) the store with kvcore, and
 * runs -e commands, a script, standard input or the interactive loop of
 * repl.c. Exit status: 0 success, 1 a command failed, 2 bad usage, 3 the
 * store could not be opened (e.g. a cellfs mount holds it), 130 a script
 * or -e run stopped by Ctrl-C.
 */
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "interrupt.h"
#include "kvcore.h"
#include "repl.h"
#include "shell.h"

enum { EXIT_CMD_FAILED = 1, EXIT_USAGE = 2, EXIT_OPEN = 3, EXIT_INTERRUPTED = 130 };

static void usage(FILE *out) {
    fprintf(out,
            "Usage: cellsh [OPTIONS] STORE [SCRIPT]\n"
            "Runs HBase shell commands on the cellfs store in directory STORE (created if it\n"
            "does not exist): interactively, from SCRIPT, from standard input, or with -e.\n\n"
            "  -e, --execute=CMD   run CMD (repeatable; several commands may be separated by ';')\n"
            "  -c, --continue      in a script or -e, go on after an error (the exit status\n"
            "                      is still 1)\n"
            "  -n, --non-interactive  read commands from standard input even on a terminal\n"
            "  -r, --read-only     open the store read-only\n"
            "  -s, --sync          fsync every write before it returns\n"
            "      --timing        print 'N row(s) in X seconds' / 'Took X seconds' lines\n"
            "      --no-timing     do not (the default outside interactive mode)\n"
            "  -h, --help          show this help\n"
            "  -V, --version       show the version\n\n"
            "Exit status: 0 success, 1 a command failed, 2 bad usage, 3 the store could not be\n"
            "opened (for example while a cellfs mount holds it), 130 stopped by Ctrl-C.\n"
            "See cellsh(1).\n");
}

/* Warnings of the store, printed as they come. kvcore also passes every
 * failed call here at KV_LOG_ERROR; those already give an ERROR: line
 * through the call's status, so they are not repeated. */
static void log_sink(void *ctx, int level, const char *message) {
    FILE *err = ctx;
    if (level == KV_LOG_WARN) fprintf(err, "cellsh: warning: %s\n", message);
}

int main(int argc, char **argv) {
    static const struct option longopts[] = {
        { "execute", required_argument, NULL, 'e' },
        { "continue", no_argument, NULL, 'c' },
        { "non-interactive", no_argument, NULL, 'n' },
        { "read-only", no_argument, NULL, 'r' },
        { "sync", no_argument, NULL, 's' },
        { "timing", no_argument, NULL, 'T' },
        { "no-timing", no_argument, NULL, 'N' },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'V' },
        { NULL, 0, NULL, 0 },
    };
    const char **execs = calloc((size_t)argc, sizeof *execs);
    size_t nexec = 0;
    bool keep_going = false, non_interactive = false, read_only = false, sync = false;
    int timing = -1;
    if (!execs) {
        fprintf(stderr, "ERROR: out of memory\n");
        return EXIT_CMD_FAILED;
    }
    int c;
    while ((c = getopt_long(argc, argv, "e:cnrshV", longopts, NULL)) != -1) {
        switch (c) {
        case 'e': execs[nexec++] = optarg; break;
        case 'c': keep_going = true; break;
        case 'n': non_interactive = true; break;
        case 'r': read_only = true; break;
        case 's': sync = true; break;
        case 'T': timing = 1; break;
        case 'N': timing = 0; break;
        case 'h': usage(stdout); free(execs); return 0;
        case 'V': printf("cellsh %s\n", KVCORE_VERSION); free(execs); return 0;
        default: usage(stderr); free(execs); return EXIT_USAGE;
        }
    }
    int nargs = argc - optind;
    if (nargs < 1 || nargs > 2 || (nargs == 2 && nexec > 0)) {
        if (nargs == 2 && nexec > 0) fprintf(stderr, "cellsh: give either -e or a SCRIPT\n");
        usage(stderr);
        free(execs);
        return EXIT_USAGE;
    }
    const char *store_path = argv[optind];
    const char *script = nargs == 2 ? argv[optind + 1] : NULL;
    FILE *script_file = NULL;
    if (script && strcmp(script, "-") != 0) {
        script_file = fopen(script, "r");
        if (!script_file) {
            fprintf(stderr, "ERROR: cannot open script %s: ", script);
            perror(NULL);
            free(execs);
            return EXIT_USAGE;
        }
    }

    cellsh sh;
    memset(&sh, 0, sizeof sh);
    sh.out = stdout;
    sh.err = stderr;
    sh.in = stdin;
    sh.store_path = store_path;
    sh.interactive = nexec == 0 && !script && !non_interactive && isatty(STDIN_FILENO);
    sh.timing = timing < 0 ? sh.interactive : timing == 1;
    sh.progress = isatty(STDERR_FILENO);
    kv_write_options wo = KV_WRITE_OPTIONS_INIT;
    if (sync) wo.durability = KV_FSYNC_WAL;
    sh.wopts = wo;

    kv_store_options opts = KV_STORE_OPTIONS_INIT;
    kv_local_options local = KV_LOCAL_OPTIONS_INIT;
    opts.create_if_missing = !read_only;
    /* a mount that was just unmounted may still be closing the store */
    local.lock_wait_ms = 2000;
    opts.local = &local;
    opts.read_only = read_only;
    opts.owner = "cellsh";
    opts.log = log_sink;
    opts.log_ctx = stderr;
    char errmsg[1024] = "";
    /* before the open: a Ctrl-C while it waits for the lock is recorded */
    if (sh_interrupt_install() != 0) perror("cellsh: warning: cannot catch Ctrl-C");
    /* kvcore's threads, started by the open, inherit a mask that blocks
     * SIGINT, so that Ctrl-C always reaches this thread's handler */
    sigset_t sigint, old;
    sigemptyset(&sigint);
    sigaddset(&sigint, SIGINT);
    pthread_sigmask(SIG_BLOCK, &sigint, &old);
    kv_status st = kv_store_open(&sh.store, store_path, &opts, errmsg, sizeof errmsg);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    struct timespec now;
    if (clock_gettime(CLOCK_REALTIME, &now) == 0)
        sh.opened_ms = (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
    if (st != KV_OK) {
        if (errmsg[0]) fprintf(stderr, "ERROR: %s\n", errmsg);
        else fprintf(stderr, "ERROR: cannot open store %s: %s\n", store_path, kv_strerror(st));
        if (script_file) fclose(script_file);
        free(execs);
        return EXIT_OPEN;
    }

    int failed = 0;
    bool stop_on_error = !keep_going;
    if (nexec > 0) {
        for (size_t i = 0; i < nexec && !sh.exit_requested; i++) {
            failed |= sh_run_text(&sh, execs[i], stop_on_error);
            if (failed && stop_on_error) break;
        }
    } else if (script) {
        failed = sh_run_stream(&sh, script_file ? script_file : stdin,
                               script_file ? script : "stdin", stop_on_error);
    } else if (sh.interactive) {
        failed = sh_run_interactive(&sh);
    } else {
        failed = sh_run_stream(&sh, stdin, "stdin", stop_on_error);
    }
    if (script_file) fclose(script_file);
    free(execs);

    if (fflush(stdout) != 0) {
        fprintf(stderr, "ERROR: cannot write standard output\n");
        failed = 1;
    }
    st = kv_store_close(sh.store);
    if (st != KV_OK) {
        fprintf(stderr, "ERROR: closing the store: %s\n", kv_strerror(st));
        failed = 1;
    }
    if (!sh.interactive && sh_interrupted()) return EXIT_INTERRUPTED;
    return failed ? EXIT_CMD_FAILED : 0;
}
