/*
 * The snapshot commands and get_table, which cellsh cannot carry out:
 * kvcore.h has no point-in-time copy of a table (a copy made by scanning
 * and putting would not be one: writes during the copy, delete markers and
 * versions beyond VERSIONS would be lost or mixed in), and the shell runs
 * no Ruby, so there are no table references. Each says so in an ERROR:
 * line; list_snapshots shows the empty list that is the truth, and the
 * commands that name a snapshot fail as HBase does for a missing one.
 */
#include <stdio.h>

#include "args.h"
#include "commands.h"
#include "listing.h"
#include "output.h"

int cmd_snapshot(cellsh *sh, const sh_command *cmd) {
    const char *table, *name;
    if (sh_arg_name(sh, &cmd->args[0], "table name", &table) < 0 ||
        sh_arg_name(sh, &cmd->args[1], "snapshot name", &name) < 0)
        return -1;
    kv_status st = kv_table_exists(sh->store, table);
    if (st != KV_OK) return sh_kv_error(sh, st, table);
    return sh_error(sh, "cannot snapshot %s: the store has no point-in-time copy of a table "
                    "(see SNAPSHOTS in cellsh(1)); export 'table', 'FILE' copies its cells",
                    table);
}

int cmd_list_snapshots(cellsh *sh, const sh_command *cmd) {
    /* list_table_snapshots 'table_regex' [, 'snapshot_regex'] too: the
     * patterns are checked, and match nothing */
    for (size_t i = 0; i < cmd->nargs; i++) {
        regex_t re;
        bool have_re;
        if (sh_name_filter(sh, cmd, i, &re, &have_re) < 0) return -1;
        if (have_re) regfree(&re);
    }
    sh_print_header(sh->out, "SNAPSHOT", "TABLE + CREATION TIME");
    sh_footer_rows(sh, 0);
    return 0;
}

/* restore_snapshot, clone_snapshot, delete_snapshot 'name': no snapshot
 * is ever taken, so none exists. */
int cmd_named_snapshot(cellsh *sh, const sh_command *cmd) {
    const char *name;
    if (sh_arg_name(sh, &cmd->args[0], "snapshot name", &name) < 0) return -1;
    if (cmd->nargs > 1 && cmd->args[1].kind == SH_STR) {   /* clone_snapshot's table */
        const char *table;
        if (sh_arg_name(sh, &cmd->args[1], "table name", &table) < 0) return -1;
    }
    return sh_error(sh, "Snapshot '%s' doesn't exist (cellsh takes no snapshots: see SNAPSHOTS "
                    "in cellsh(1))", name);
}

int cmd_get_table(cellsh *sh, const sh_command *cmd) {
    const char *table;
    if (sh_arg_name(sh, &cmd->args[0], "table name", &table) < 0) return -1;
    kv_status st = kv_table_exists(sh->store, table);
    if (st != KV_OK) return sh_kv_error(sh, st, table);
    return sh_error(sh, "get_table: cellsh has no table references (no Ruby variables); give "
                    "the table name first instead: put '%s', 'row', 'f:q', 'v'; scan '%s' "
                    "(see table_help)", table, table);
}
