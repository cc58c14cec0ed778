/*
 * General commands: help (from the command table in commands.c), exit,
 * version, whoami, show_filters and table_help. status is in cmd_status.c.
 */
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "args.h"
#include "commands.h"

static void print_group(cellsh *sh, const char *group) {
    size_t n;
    const sh_command_def *t = sh_command_table(&n);
    fprintf(sh->out, "Command group: %s\n\n", group);
    for (size_t i = 0; i < n; i++) {
        if (strcmp(t[i].group, group) != 0) continue;
        fprintf(sh->out, "Command: %s\nUsage: %s\n%s\n\n", t[i].name, t[i].usage, t[i].help);
    }
}

static void print_overview(cellsh *sh) {
    size_t n;
    const sh_command_def *t = sh_command_table(&n);
    fprintf(sh->out,
            "cellsh %s, an HBase-shell compatible shell for cellfs stores.\n"
            "Type 'help \"COMMAND\"' (e.g. 'help \"get\"', the quotes are needed) for help on a\n"
            "command, and 'help \"COMMAND_GROUP\"' (e.g. 'help \"general\"') for a group.\n\n"
            "COMMAND GROUPS:\n",
            KVCORE_VERSION);
    for (const char *const *g = sh_command_groups; *g; g++) {
        fprintf(sh->out, "  Group name: %s\n  Commands: ", *g);
        bool first = true;
        for (size_t i = 0; i < n; i++) {
            if (strcmp(t[i].group, *g) != 0) continue;
            fprintf(sh->out, "%s%s", first ? "" : ", ", t[i].name);
            first = false;
        }
        fprintf(sh->out, "\n\n");
    }
    fprintf(sh->out,
            "SHELL USAGE:\n"
            "Quote all names: table, row and column names and values are strings in '' or \"\".\n"
            "Double-quoted strings take Ruby's escapes: \"\\x00\\x01\", \"\\n\", \"\\t\"; single-quoted\n"
            "strings are literal. Options are hashes: {NAME => 'f', VERSIONS => 3}; arrays are\n"
            "[a, b]. '#' starts a comment. Output shows bytes outside printable ASCII, and\n"
            "the backslash, as \\xNN. See cellsh(1).\n");
}

int cmd_help(cellsh *sh, const sh_command *cmd) {
    if (cmd->nargs == 0) {
        print_overview(sh);
        return 0;
    }
    char name[128];
    if (sh_value_text(sh, &cmd->args[0], "command name", name, sizeof name) < 0) return -1;
    for (const char *const *g = sh_command_groups; *g; g++)
        if (strcmp(*g, name) == 0) {
            print_group(sh, name);
            return 0;
        }
    const sh_command_def *def = sh_command_find(name);
    if (!def) return sh_error(sh, "no such command or group: '%s'", name);
    fprintf(sh->out, "Usage: %s\n\n%s\n", def->usage, def->help);
    return 0;
}

int cmd_exit(cellsh *sh, const sh_command *cmd) {
    (void)cmd;
    sh->exit_requested = true;
    return 0;
}

int cmd_version(cellsh *sh, const sh_command *cmd) {
    (void)cmd;
    /* HBase prints "VERSION, rREVISION, DATE"; the first field is what
     * scripts take */
    fprintf(sh->out, "%s, cellsh, libkvcore %s\n", KVCORE_VERSION, KVCORE_VERSION);
    return 0;
}

/* HBase's User.toString with simple authentication, then the groups, the
 * primary one first as Hadoop's Unix group mapping lists them. */
int cmd_whoami(cellsh *sh, const sh_command *cmd) {
    (void)cmd;
    struct passwd *pw = getpwuid(geteuid());
    if (!pw) return sh_error(sh, "cannot find the name of user %ld", (long)geteuid());
    fprintf(sh->out, "%s (auth:SIMPLE)\n", pw->pw_name);
    int n = 64;
    gid_t *groups = malloc((size_t)n * sizeof *groups);
    if (groups && getgrouplist(pw->pw_name, pw->pw_gid, groups, &n) < 0) {
        gid_t *more = realloc(groups, (size_t)n * sizeof *groups);
        if (more) groups = more;
        if (!more || getgrouplist(pw->pw_name, pw->pw_gid, groups, &n) < 0) n = 0;
    }
    if (!groups) n = 0;
    fputs("    groups: ", sh->out);
    struct group *g = getgrgid(pw->pw_gid);
    if (g) fputs(g->gr_name, sh->out);
    else fprintf(sh->out, "%ld", (long)pw->pw_gid);
    for (int i = 0; i < n; i++) {
        if (groups[i] == pw->pw_gid) continue;
        g = getgrgid(groups[i]);
        if (g) fprintf(sh->out, ", %s", g->gr_name);
        else fprintf(sh->out, ", %ld", (long)groups[i]);
    }
    fputc('\n', sh->out);
    free(groups);
    return 0;
}

/* HBase's show_filters: the names ParseFilter registers, one a line. */
int cmd_show_filters(cellsh *sh, const sh_command *cmd) {
    (void)cmd;
    for (size_t i = 0; kv_filter_name(i); i++) fprintf(sh->out, "%s\n", kv_filter_name(i));
    return 0;
}

int cmd_table_help(cellsh *sh, const sh_command *cmd) {
    (void)cmd;
    fputs("Help for table-reference commands.\n\n"
          "In the HBase shell a table reference is a Ruby object, made by create or get_table,\n"
          "on which the table commands can be called:\n\n"
          "  hbase> t = create 't', 'cf'\n"
          "  hbase> t = get_table 't'\n"
          "  hbase> t.put 'r', 'cf:q', 'v'\n"
          "  hbase> t.scan\n\n"
          "cellsh runs no Ruby, so it has no table references: each of these commands takes\n"
          "the table name first and the same arguments after it:\n\n"
          "  cellsh> put 't', 'r', 'cf:q', 'v'\n"
          "  cellsh> get 't', 'r'\n"
          "  cellsh> scan 't'\n"
          "  cellsh> delete 't', 'r', 'cf:q'\n"
          "  cellsh> deleteall 't', 'r'\n"
          "  cellsh> incr 't', 'r', 'cf:n'\n"
          "  cellsh> get_counter 't', 'r', 'cf:n'\n"
          "  cellsh> append 't', 'r', 'cf:q', 'v'\n"
          "  cellsh> count 't'\n"
          "and the table's administration: enable 't', disable 't', flush 't', describe 't',\n"
          "drop 't'. 'help \"COMMAND\"' shows each command's options.\n",
          sh->out);
    return 0;
}
