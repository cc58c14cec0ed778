/*
 * The status command: HBase 2's 'summary', 'simple' and 'detailed' forms
 * for a store that is one server holding one region per table, with the
 * figures of kv_store_stat and the catalog (kv_table_list,
 * kv_table_describe).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "commands.h"

/* "host:0 startcode", the server name status prints for masters and
 * servers; a local store listens on no port. */
static void print_server(cellsh *sh, const char *indent) {
    char host[256] = "localhost";
    if (gethostname(host, sizeof host) != 0) snprintf(host, sizeof host, "localhost");
    host[sizeof host - 1] = '\0';
    fprintf(sh->out, "%s%s:0 %" PRId64 "\n", indent, host, sh->opened_ms);
}

/* The load line of the one server, named as HBase's ServerLoad names its
 * figures where it has the same ones. */
static void print_load(cellsh *sh, size_t regions, size_t stores, const kv_store_stats *st) {
    fprintf(sh->out,
            "        numberOfOnlineRegions=%zu, numberOfStores=%zu, numberOfStorefiles=%" PRIu64
            ", diskBytes=%" PRIu64 ", memstoreBytes=%" PRIu64 ", blockCacheBytes=%" PRIu64
            ", flushes=%" PRIu64 ", compactions=%" PRIu64 ", lastSequenceId=%" PRIu64 "\n",
            regions, stores, st->sorted_files, st->disk_bytes, st->memstore_bytes,
            st->cache_bytes, st->flushes, st->compactions, st->last_sequence);
}

/* One table as a region: its name, families and state. */
static int print_region(cellsh *sh, const char *name) {
    kv_table_desc *d = NULL;
    kv_status st = kv_table_describe(&d, sh->store, name);
    if (st != KV_OK) return sh_kv_error(sh, st, name);
    fprintf(sh->out, "        \"%s,,\"\n            numberOfStores=%zu, families=", name,
            d->nfamilies);
    for (size_t i = 0; i < d->nfamilies; i++)
        fprintf(sh->out, "%s%s", i ? "," : "", d->families[i].name);
    fprintf(sh->out, ", state=%s\n", d->enabled ? "ENABLED" : "DISABLED");
    kv_table_desc_free(d);
    return 0;
}

int cmd_status(cellsh *sh, const sh_command *cmd) {
    char form[32] = "summary";
    if (cmd->nargs > 0 && sh_value_text(sh, &cmd->args[0], "status form", form, sizeof form) < 0)
        return -1;
    if (strcmp(form, "replication") == 0)
        return sh_error(sh, "status 'replication': a local store has no replication");
    bool summary = strcmp(form, "summary") == 0, simple = strcmp(form, "simple") == 0;
    bool detailed = strcmp(form, "detailed") == 0;
    if (!summary && !simple && !detailed)
        return sh_error(sh, "status takes 'summary', 'simple' or 'detailed', not '%s'", form);
    if (cmd->nargs > 1)
        return sh_error(sh, "status '%s' takes no second argument (that is for 'replication')",
                        form);
    char **names = NULL;
    kv_status st = kv_table_list(&names, sh->store, NULL);
    if (st != KV_OK) return sh_kv_error(sh, st, NULL);
    size_t regions = 0, stores = 0;
    int rc = 0;
    for (; names[regions] && rc == 0; regions++) {
        kv_table_desc *d = NULL;
        st = kv_table_describe(&d, sh->store, names[regions]);
        if (st != KV_OK) rc = sh_kv_error(sh, st, names[regions]);
        else stores += d->nfamilies;
        kv_table_desc_free(d);
    }
    kv_store_stats stats;
    if (rc == 0 && (st = kv_store_stat(&stats, sh->store)) != KV_OK) rc = sh_kv_error(sh, st, NULL);
    if (rc == 0 && summary)
        fprintf(sh->out, "1 active master, 0 backup masters, 1 servers, 0 dead, %.4f average "
                "load\n", (double)regions);
    if (rc == 0 && !summary) {
        if (detailed) fprintf(sh->out, "version %s\n0 regionsInTransition\n", KVCORE_VERSION);
        fputs("active master:  ", sh->out);
        print_server(sh, "");
        fprintf(sh->out, "0 backup masters\n");
        if (detailed) fprintf(sh->out, "master coprocessors: []\n");
        fprintf(sh->out, "1 live servers\n");
        print_server(sh, "    ");
        print_load(sh, regions, stores, &stats);
        for (size_t i = 0; detailed && rc == 0 && i < regions; i++) rc = print_region(sh, names[i]);
        fprintf(sh->out, "0 dead servers\n");
        if (simple) fprintf(sh->out, "Aggregate load: 0, regions: %zu\n", regions);
    }
    kv_free_names(names);
    return rc;
}
