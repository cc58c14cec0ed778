/*
 * Region and cluster commands of the HBase 2 shell for a store that is one
 * server holding one region per table: alter_status, get_splits,
 * list_regions, locate_region, processlist, balancer, compaction_state,
 * split. The region
 * of a table has empty start and end keys and lives on this host; nothing
 * runs in the background, so there are no tasks, and nothing can move.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "commands.h"
#include "output.h"

/* The region id HBase gives the first region of a table is its creation
 * time; a local table is never split, so its one region is number 1, as
 * hbase:meta's is ("hbase:meta,,1"). */
#define LOCAL_REGION_ID 1

static void host_name(char *host, size_t len) {
    if (gethostname(host, len) != 0) snprintf(host, len, "localhost");
    host[len - 1] = '\0';
}

/* A table that exists, else the ERROR: line. */
static int need_table(cellsh *sh, const sh_command *cmd, const char **table) {
    if (sh_arg_name(sh, &cmd->args[0], "table name", table) < 0) return -1;
    kv_status st = kv_table_exists(sh->store, *table);
    return st == KV_OK ? 0 : sh_kv_error(sh, st, *table);
}

/* HBase's encoded name of an old-style region name ("t,,1") is a hash of
 * it; this is FNV-1a, stable across runs, printed as HBase prints it. */
static uint32_t encoded_name(const char *region) {
    uint32_t h = 2166136261u;
    for (const unsigned char *p = (const unsigned char *)region; *p; p++) h = (h ^ *p) * 16777619u;
    return h;
}

int cmd_alter_status(cellsh *sh, const sh_command *cmd) {
    const char *table;
    if (need_table(sh, cmd, &table) < 0) return -1;
    /* a schema change is in place when alter returns */
    fprintf(sh->out, "1/1 regions updated.\nDone.\n");
    return 0;
}

int cmd_get_splits(cellsh *sh, const sh_command *cmd) {
    const char *table;
    if (need_table(sh, cmd, &table) < 0) return -1;
    /* one region: no split keys; HBase's `puts []` prints an empty line */
    fprintf(sh->out, "Total number of splits = 1\n\n");
    return 0;
}

int cmd_locate_region(cellsh *sh, const sh_command *cmd) {
    const char *table, *row;
    size_t row_len;
    if (need_table(sh, cmd, &table) < 0 ||
        sh_arg_bytes(sh, &cmd->args[1], "row", &row, &row_len) < 0)
        return -1;
    char host[256], region[2 * KV_NAME_MAX + 32], hostport[300], info[1024];
    host_name(host, sizeof host);
    snprintf(region, sizeof region, "%s,,%d", table, LOCAL_REGION_ID);
    snprintf(hostport, sizeof hostport, "%s:0", host);
    snprintf(info, sizeof info,
             "{ENCODED => %" PRIu32 ", NAME => '%s', STARTKEY => '', ENDKEY => ''}",
             encoded_name(region), region);
    sh_print_header(sh->out, "HOST", "REGION");
    sh_print_pair(sh->out, hostport, strlen(hostport), info, strlen(info));
    sh_footer_rows(sh, 1);
    return 0;
}

/* list_regions' columns in HBase's order, with their least widths. */
static const struct region_column {
    const char *name;
    int width;
} region_columns[] = {
    { "SERVER_NAME", 12 }, { "REGION_NAME", 12 }, { "START_KEY", 10 }, { "END_KEY", 10 },
    { "SIZE", 5 }, { "REQ", 5 }, { "LOCALITY", 10 },
};
#define NREGION_COLUMNS (sizeof region_columns / sizeof region_columns[0])

static const char region_columns_list[] =
    "Possible values are SERVER_NAME, REGION_NAME, START_KEY, END_KEY, SIZE, REQ, LOCALITY.";

/* The columns list_regions shows: all, or those of the array argument in
 * its order. Returns the count, or -1 after an ERROR: line. */
static int pick_region_columns(cellsh *sh, const sh_command *cmd, size_t *picked) {
    if (cmd->nargs < 3) {
        for (size_t i = 0; i < NREGION_COLUMNS; i++) picked[i] = i;
        return (int)NREGION_COLUMNS;
    }
    const sh_value *cols = &cmd->args[2];
    if (cols->kind != SH_ARRAY)
        return sh_error(sh, "%s must be an array of strings. %s", sh_kind_name(cols->kind),
                        region_columns_list);
    size_t n = 0;
    for (size_t i = 0; i < cols->n; i++) {
        char name[64];
        if (sh_value_text(sh, &cols->items[i], "column", name, sizeof name) < 0) return -1;
        size_t c = 0;
        while (c < NREGION_COLUMNS && strcasecmp(region_columns[c].name, name) != 0) c++;
        if (c == NREGION_COLUMNS)
            return sh_error(sh, "%s is not a valid column. %s", name, region_columns_list);
        bool seen = false;   /* HBase keeps them in a hash: a repeat shows once */
        for (size_t j = 0; j < n; j++) seen = seen || picked[j] == c;
        if (!seen) picked[n++] = c;
    }
    return (int)n;
}

/* The server filter of list_regions: a string, or {SERVER_NAME => ...,
 * LOCALITY_THRESHOLD => x}. Sets *shown false when the one region is
 * filtered out. */
static int region_filter(cellsh *sh, const sh_command *cmd, const char *server, bool *shown) {
    *shown = true;
    if (cmd->nargs < 2) return 0;
    const sh_value *o = &cmd->args[1];
    const sh_value *name = o, *threshold = NULL;
    if (o->kind == SH_HASH) {
        static const char *const allowed[] = { "SERVER_NAME", "LOCALITY_THRESHOLD", NULL };
        if (sh_hash_check(sh, o, allowed, "list_regions") < 0) return -1;
        name = sh_hash_get(o, "SERVER_NAME");
        threshold = sh_hash_get(o, "LOCALITY_THRESHOLD");
    }
    if (name) {
        char want[300];
        if (sh_value_text(sh, name, "SERVER_NAME", want, sizeof want) < 0) return -1;
        *shown = strncmp(server, want, strlen(want)) == 0;
    }
    if (threshold) {
        char text[64], *end;
        if (sh_value_text(sh, threshold, "LOCALITY_THRESHOLD", text, sizeof text) < 0) return -1;
        double t = strtod(text, &end);
        if (end == text || *end || !strchr(text, '.'))
            return sh_error(sh, "LOCALITY_THRESHOLD must be a float value");
        if (t < 0 || t > 1.0)
            return sh_error(sh, "LOCALITY_THRESHOLD must be between 0 and 1.0, inclusive");
        *shown = *shown && 1.0 <= t;   /* every cell is local: locality 1.0 */
    }
    return 0;
}

int cmd_list_regions(cellsh *sh, const sh_command *cmd) {
    const char *table;
    if (sh_arg_name(sh, &cmd->args[0], "table name", &table) < 0) return -1;
    bool enabled = false;
    kv_status st = kv_table_is_enabled(&enabled, sh->store, table);
    if (st != KV_OK) return sh_kv_error(sh, st, table);
    if (!enabled) return sh_error(sh, "Table %s must be enabled.", table);
    size_t picked[NREGION_COLUMNS];
    int ncols = pick_region_columns(sh, cmd, picked);
    if (ncols < 0) return -1;
    char host[256], server[300], region[2 * KV_NAME_MAX + 32];
    host_name(host, sizeof host);
    snprintf(server, sizeof server, "%s,0,%" PRId64, host, sh->opened_ms);
    bool shown;
    if (region_filter(sh, cmd, server, &shown) < 0) return -1;
    snprintf(region, sizeof region, "%s,,%d", table, LOCAL_REGION_ID);
    /* SIZE (MB of store files) and REQ (requests) are not counted per
     * table by kvcore; every cell is on this host: LOCALITY 1.0 */
    const char *values[NREGION_COLUMNS] = { server, region, "", "", "0", "0", "1.0" };
    int width[NREGION_COLUMNS];
    for (int i = 0; i < ncols; i++) {
        size_t c = picked[i], len = shown ? strlen(values[c]) : 0;
        width[i] = (size_t)region_columns[c].width > len ? region_columns[c].width : (int)len;
        fprintf(sh->out, " %*s |", width[i], region_columns[c].name);
    }
    fputc('\n', sh->out);
    for (int i = 0; i < ncols; i++) {
        fputc(' ', sh->out);
        for (int k = 0; k < width[i]; k++) fputc('-', sh->out);
        fputs(" |", sh->out);
    }
    fputc('\n', sh->out);
    if (shown) {
        for (int i = 0; i < ncols; i++) fprintf(sh->out, " %*s |", width[i], values[picked[i]]);
        fputc('\n', sh->out);
    }
    fprintf(sh->out, " %d rows\n", shown ? 1 : 0);
    return 0;
}

int cmd_processlist(cellsh *sh, const sh_command *cmd) {
    static const char *const filters[] = { "all", "general", "handler", "rpc", "operation", NULL };
    const char *filter = "general";
    for (size_t i = 0; i < cmd->nargs; i++) {
        char text[300];
        if (sh_value_text(sh, &cmd->args[i], "filter or server", text, sizeof text) < 0) return -1;
        for (const char *const *f = filters; i == 0 && *f; f++)
            if (strcmp(text, *f) == 0) filter = *f;
    }
    /* the store runs no tasks of its own: flushes and compactions run
     * inside the command that asks for them */
    time_t now = time(NULL);
    struct tm tm;
    char when[32] = "";
    if (localtime_r(&now, &tm)) strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
    fprintf(sh->out, "0 tasks as of: %s\nNo %s tasks currently running.\n", when, filter);
    return 0;
}

int cmd_balancer(cellsh *sh, const sh_command *cmd) {
    if (cmd->nargs > 0 && !sh_value_is(&cmd->args[0], "force"))
        return sh_error(sh, "balancer takes no argument or 'force'");
    /* HBase answers whether the balancer ran; with one server it runs and
     * finds nothing to move */
    fprintf(sh->out, "true\n");
    return 0;
}

int cmd_compaction_state(cellsh *sh, const sh_command *cmd) {
    const char *table;
    if (need_table(sh, cmd, &table) < 0) return -1;
    /* compact and major_compact return when the compaction is done, so no
     * other command ever sees one running */
    fprintf(sh->out, "NONE\n");
    return 0;
}

int cmd_split(cellsh *sh, const sh_command *cmd) {
    const char *table;
    if (sh_arg_name(sh, &cmd->args[0], "table or region name", &table) < 0) return -1;
    return sh_error(sh, "cannot split %s: a local table is one region, held by this process, "
                    "and is never split (see cellsh(1))", table);
}
