/*
 * The command table: every shell command with its group, argument counts,
 * usage line, help text and handler. The table is in commands.c; handlers
 * live in cmd_general.c, cmd_status.c, cmd_table.c, cmd_all.c,
 * cmd_regions.c, cmd_snapshot.c, cmd_namespace.c, cmd_write.c, cmd_read.c
 * and cmd_transfer.c. shell.c dispatches through it,
 * `help` prints from it and the interactive shell completes its names.
 */
#ifndef CELLSH_COMMANDS_H
#define CELLSH_COMMANDS_H

#include <stdbool.h>
#include <stddef.h>

#include "shell.h"

typedef int (*sh_handler)(cellsh *sh, const sh_command *cmd);

typedef struct sh_command_def {
    const char *name;
    const char *group;     /* general, ddl, namespace, dml, tools, snapshots, transfer */
    sh_handler run;        /* returns 0, or -1 after printing ERROR: */
    int min_args;
    int max_args;          /* -1: no limit */
    const char *usage;     /* one line */
    const char *help;      /* the text of `help 'name'` */
} sh_command_def;

/* The command called @p name, or NULL. */
const sh_command_def *sh_command_find(const char *name);
/* The whole table, in group order. */
const sh_command_def *sh_command_table(size_t *count);

/* The command groups in display order, NULL-terminated. */
extern const char *const sh_command_groups[];

/* cmd_general.c */
int cmd_help(cellsh *sh, const sh_command *cmd);
int cmd_exit(cellsh *sh, const sh_command *cmd);
int cmd_version(cellsh *sh, const sh_command *cmd);
int cmd_whoami(cellsh *sh, const sh_command *cmd);
int cmd_show_filters(cellsh *sh, const sh_command *cmd);
int cmd_table_help(cellsh *sh, const sh_command *cmd);
/* cmd_status.c */
int cmd_status(cellsh *sh, const sh_command *cmd);
/* cmd_table.c */
int cmd_create(cellsh *sh, const sh_command *cmd);
int cmd_alter(cellsh *sh, const sh_command *cmd);
int cmd_describe(cellsh *sh, const sh_command *cmd);
int cmd_list(cellsh *sh, const sh_command *cmd);
int cmd_exists(cellsh *sh, const sh_command *cmd);
int cmd_enable(cellsh *sh, const sh_command *cmd);
int cmd_disable(cellsh *sh, const sh_command *cmd);
int cmd_is_enabled(cellsh *sh, const sh_command *cmd);
int cmd_is_disabled(cellsh *sh, const sh_command *cmd);
int cmd_drop(cellsh *sh, const sh_command *cmd);
int cmd_truncate(cellsh *sh, const sh_command *cmd);
int cmd_truncate_preserve(cellsh *sh, const sh_command *cmd);
int cmd_flush(cellsh *sh, const sh_command *cmd);
int cmd_compact(cellsh *sh, const sh_command *cmd);
int cmd_major_compact(cellsh *sh, const sh_command *cmd);
int cmd_alter_async(cellsh *sh, const sh_command *cmd);
int cmd_clone_table_schema(cellsh *sh, const sh_command *cmd);
/* cmd_all.c */
int cmd_disable_all(cellsh *sh, const sh_command *cmd);
int cmd_enable_all(cellsh *sh, const sh_command *cmd);
int cmd_drop_all(cellsh *sh, const sh_command *cmd);
/* cmd_regions.c */
int cmd_alter_status(cellsh *sh, const sh_command *cmd);
int cmd_get_splits(cellsh *sh, const sh_command *cmd);
int cmd_list_regions(cellsh *sh, const sh_command *cmd);
int cmd_locate_region(cellsh *sh, const sh_command *cmd);
int cmd_processlist(cellsh *sh, const sh_command *cmd);
int cmd_balancer(cellsh *sh, const sh_command *cmd);
int cmd_split(cellsh *sh, const sh_command *cmd);
int cmd_compaction_state(cellsh *sh, const sh_command *cmd);
/* cmd_snapshot.c */
int cmd_snapshot(cellsh *sh, const sh_command *cmd);
int cmd_list_snapshots(cellsh *sh, const sh_command *cmd);
int cmd_named_snapshot(cellsh *sh, const sh_command *cmd);
int cmd_get_table(cellsh *sh, const sh_command *cmd);
/* cmd_namespace.c */
int cmd_create_namespace(cellsh *sh, const sh_command *cmd);
int cmd_drop_namespace(cellsh *sh, const sh_command *cmd);
int cmd_alter_namespace(cellsh *sh, const sh_command *cmd);
int cmd_describe_namespace(cellsh *sh, const sh_command *cmd);
int cmd_list_namespace(cellsh *sh, const sh_command *cmd);
int cmd_list_namespace_tables(cellsh *sh, const sh_command *cmd);
/* cmd_write.c */
int cmd_put(cellsh *sh, const sh_command *cmd);
int cmd_delete(cellsh *sh, const sh_command *cmd);
int cmd_deleteall(cellsh *sh, const sh_command *cmd);
int cmd_incr(cellsh *sh, const sh_command *cmd);
int cmd_append(cellsh *sh, const sh_command *cmd);
/* cmd_read.c */
int cmd_get(cellsh *sh, const sh_command *cmd);
int cmd_scan(cellsh *sh, const sh_command *cmd);
int cmd_count(cellsh *sh, const sh_command *cmd);
int cmd_get_counter(cellsh *sh, const sh_command *cmd);
/* cmd_transfer.c */
int cmd_import(cellsh *sh, const sh_command *cmd);
int cmd_export(cellsh *sh, const sh_command *cmd);

#endif
