/*
 * Shell services declared in shell.h: ERROR: lines, kvcore status to HBase
 * message mapping, scan stepping, the row footer, and statement execution
 * through the command table with HBase 2's timing line. Called by repl.c
 * and the cmd_*.c files; polls interrupt.c.
 */
#include "shell.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commands.h"
#include "interrupt.h"

double sh_now(void) {
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) return 0;
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int sh_error(cellsh *sh, const char *fmt, ...) {
    fflush(sh->out);   /* keep ERROR: lines in order with the output */
    fputs("ERROR: ", sh->err);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(sh->err, fmt, ap);
    va_end(ap);
    fputc('\n', sh->err);
    fflush(sh->err);
    sh->errors++;
    return -1;
}

/* The store's detail message, or the status name when there is none. */
static const char *detail(cellsh *sh, kv_status st) {
    const char *m = sh->store ? kv_store_errmsg(sh->store) : NULL;
    return m && *m ? m : kv_strerror(st);
}

/* "f1:*, f2:*" for the unknown-family message. */
static int valid_columns(cellsh *sh, const char *table) {
    kv_table_desc *d = NULL;
    if (kv_table_describe(&d, sh->store, table) != KV_OK)
        return sh_error(sh, "Unknown column family!");
    size_t need = 1;
    for (size_t i = 0; i < d->nfamilies; i++) need += strlen(d->families[i].name) + 4;
    char *list = malloc(need);
    if (!list) {
        kv_table_desc_free(d);
        return sh_error(sh, "Unknown column family!");
    }
    size_t at = 0;
    for (size_t i = 0; i < d->nfamilies; i++)
        at += (size_t)snprintf(list + at, need - at, "%s%s:*", i ? ", " : "", d->families[i].name);
    list[at] = '\0';
    sh_error(sh, "Unknown column family! Valid column names: %s", list);
    free(list);
    kv_table_desc_free(d);
    return -1;
}

int sh_kv_error(cellsh *sh, kv_status st, const char *table) {
    if (table) {
        switch (st) {
        case KV_NOT_FOUND: return sh_error(sh, "Unknown table %s!", table);
        case KV_EXISTS: return sh_error(sh, "Table already exists: %s!", table);
        case KV_DISABLED: return sh_error(sh, "Table %s is disabled!", table);
        case KV_ENABLED: return sh_error(sh, "Table %s is enabled. Disable it first.", table);
        case KV_NO_FAMILY: return valid_columns(sh, table);
        default: break;
        }
    }
    if (st == KV_NOT_COUNTER) {
        const char *m = detail(sh, st);
        return sh_error(sh, "%s", m == kv_strerror(st) ? "Field is not a long (8 bytes wide)" : m);
    }
    return sh_error(sh, "%s", detail(sh, st));
}

int sh_ns_error(cellsh *sh, kv_status st, const char *ns) {
    switch (st) {
    case KV_NOT_FOUND: return sh_error(sh, "Unknown namespace %s!", ns);
    case KV_EXISTS: return sh_error(sh, "Namespace already exists: %s!", ns);
    case KV_NOT_EMPTY: {
        char **names = NULL;
        size_t n = 0;
        if (kv_table_list(&names, sh->store, ns) == KV_OK)
            while (names[n]) n++;
        kv_free_names(names);
        return sh_error(sh, "Only empty namespaces can be removed. Namespace %s has %zu tables",
                        ns, n);
    }
    default: return sh_error(sh, "%s", detail(sh, st));
    }
}

enum sh_scan_step sh_scan_next(cellsh *sh, kv_scan *scan, const kv_result **row,
                               const char *table) {
    if (sh_interrupted()) return SH_SCAN_INTERRUPTED;
    kv_status st = kv_scan_next(row, scan);
    if (st == KV_OK) return SH_SCAN_ROW;
    if (st == KV_END) return SH_SCAN_END;
    sh_kv_error(sh, st, table);
    return SH_SCAN_FAILED;
}

int sh_interrupted_after(cellsh *sh, uint64_t rows, const char *what) {
    return sh_error(sh, "interrupted (Ctrl-C) after %" PRIu64 " row(s)%s", rows, what);
}

void sh_footer_rows(cellsh *sh, uint64_t rows) {
    fprintf(sh->out, "%" PRIu64 " row(s)\n", rows);
}

int sh_execute(cellsh *sh, const sh_command *cmd) {
    sh->started = sh_now();
    int rc;
    const sh_command_def *def = sh_command_find(cmd->name);
    if (!def) {
        rc = sh_error(sh, "Unknown command '%s'. Type 'help' for the list of commands.",
                      cmd->name);
    } else if ((int)cmd->nargs < def->min_args ||
               (def->max_args >= 0 && (int)cmd->nargs > def->max_args)) {
        char want[32];
        if (def->max_args < 0) snprintf(want, sizeof want, "%d+", def->min_args);
        else if (def->max_args == def->min_args) snprintf(want, sizeof want, "%d", def->min_args);
        else snprintf(want, sizeof want, "%d..%d", def->min_args, def->max_args);
        rc = sh_error(sh, "wrong number of arguments (given %zu, expected %s)", cmd->nargs, want);
        fprintf(sh->err, "Usage: %s\n", def->usage);
    } else {
        rc = def->run(sh, cmd);
    }
    /* HBase 2 prints the time of every command, failed ones too. */
    if (sh->timing && !sh->exit_requested)
        fprintf(sh->out, "Took %.4f seconds\n", sh_now() - sh->started);
    fflush(sh->out);
    return rc;
}
