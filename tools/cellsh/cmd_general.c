/*
 * General commands: help (from the command table in commands.c), exit and
 * version.
 */
#include <stdio.h>
#include <string.h>

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
    fprintf(sh->out, "cellsh %s (libkvcore %s)\n", KVCORE_VERSION, KVCORE_VERSION);
    return 0;
}
