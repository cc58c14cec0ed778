/*
 * disable_all, enable_all and drop_all: the tables whose whole name matches
 * a pattern, listed, then changed once the user answers y to HBase's
 * question. The answer is the next line of standard input, as HBase's
 * `gets` reads it: typed at a terminal, or the line after the command when
 * the statements themselves come from standard input. No answer (end of
 * input) changes nothing and is an error, as in HBase, whose gets then
 * returns nil.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "listing.h"

typedef enum bulk_action { BULK_DISABLE, BULK_ENABLE, BULK_DROP } bulk_action;

static const struct bulk_words {
    const char *verb;      /* in the question: "Disable the above 2 tables" */
    const char *done;      /* "2 tables successfully disabled" */
    const char *not_done;  /* "1 tables not disabled due to an exception" */
} bulk_words[] = {
    [BULK_DISABLE] = { "Disable", "disabled", "not disabled" },
    [BULK_ENABLE] = { "Enable", "enabled", "not enabled" },
    [BULK_DROP] = { "Drop", "dropped", "not dropped" },
};

static kv_status bulk_apply(cellsh *sh, bulk_action what, const char *table) {
    kv_status st;
    switch (what) {
    case BULK_DISABLE:
        st = kv_table_disable(sh->store, table);
        return st == KV_DISABLED ? KV_OK : st;
    case BULK_ENABLE:
        st = kv_table_enable(sh->store, table);
        return st == KV_ENABLED ? KV_OK : st;
    case BULK_DROP: return kv_table_drop(sh->store, table);
    }
    return KV_INVALID;
}

/* Reads the answer: true for a line that starts with y or Y. *eof is set
 * when there is no line. */
static bool read_yes(cellsh *sh, bool *eof) {
    char *line = NULL;
    size_t cap = 0;
    ssize_t n = getline(&line, &cap, sh->in);
    *eof = n < 0;
    const char *p = line;
    while (p && isspace((unsigned char)*p)) p++;
    bool yes = n >= 0 && (*p == 'y' || *p == 'Y');
    free(line);
    return yes;
}

static int bulk(cellsh *sh, const sh_command *cmd, bulk_action what) {
    const char *pat = cmd->args[0].kind == SH_STR ? cmd->args[0].str : "";
    regex_t re;
    bool have_re;
    if (sh_name_filter(sh, cmd, 0, &re, &have_re) < 0) return -1;
    char **names = NULL;
    kv_status st = kv_table_list(&names, sh->store, NULL);
    if (st != KV_OK) {
        if (have_re) regfree(&re);
        return sh_kv_error(sh, st, NULL);
    }
    size_t count = 0;
    for (size_t i = 0; names && names[i]; i++) {
        if (regexec(&re, names[i], 0, NULL, 0) != 0) {
            names[i][0] = '\0';   /* not ours: skipped below */
            continue;
        }
        fprintf(sh->out, "%s\n", names[i]);
        count++;
    }
    regfree(&re);
    int rc = 0;
    if (count == 0) {
        /* HBase prints its Regexp as Ruby's to_s shows /^pattern$/ */
        fprintf(sh->out, "No tables matched the regex (?-mix:^%s$)\n", pat);
        kv_free_names(names);
        return 0;
    }
    fprintf(sh->out, "\n%s the above %zu tables (y/n)?\n", bulk_words[what].verb, count);
    fflush(sh->out);
    bool eof;
    if (!read_yes(sh, &eof)) {
        kv_free_names(names);
        return eof ? sh_error(sh, "no answer to the question (end of input): no table %s",
                              bulk_words[what].done)
                   : 0;
    }
    size_t failed = 0;
    char *failed_list = NULL;
    size_t list_len = 0;
    for (size_t i = 0; names[i]; i++) {
        if (!names[i][0] || bulk_apply(sh, what, names[i]) == KV_OK) continue;
        size_t n = strlen(names[i]);
        char *grown = realloc(failed_list, list_len + n + 2);
        if (!grown) {
            rc = sh_error(sh, "out of memory");
            break;
        }
        failed_list = grown;
        if (failed++) failed_list[list_len++] = ',';
        memcpy(failed_list + list_len, names[i], n + 1);
        list_len += n;
    }
    if (rc == 0) {
        fprintf(sh->out, "%zu tables successfully %s\n", count - failed, bulk_words[what].done);
        if (failed)
            fprintf(sh->out, "%zu tables %s due to an exception: %s\n", failed,
                    bulk_words[what].not_done, failed_list);
    }
    free(failed_list);
    kv_free_names(names);
    return rc;
}

int cmd_disable_all(cellsh *sh, const sh_command *cmd) { return bulk(sh, cmd, BULK_DISABLE); }
int cmd_enable_all(cellsh *sh, const sh_command *cmd) { return bulk(sh, cmd, BULK_ENABLE); }
int cmd_drop_all(cellsh *sh, const sh_command *cmd) { return bulk(sh, cmd, BULK_DROP); }
