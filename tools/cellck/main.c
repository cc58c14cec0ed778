/**
 * @file main.c
 * cellck(1): verifies a cellfs store, or salvages what is readable of it
 * into a new store. A thin front end over kvcore.h's kv_store_check and
 * kv_store_salvage: it prints each finding and a summary, and its exit
 * status says whether anything was damaged (0 clean, 1 damage or loss,
 * 2 could not run).
 */
#include "kvcore.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const char usage_text[] =
    "usage: cellck [-q] STORE\n"
    "       cellck [-q] --salvage STORE NEW\n"
    "       cellck --help | --version\n"
    "Verifies a cellfs store (manifest, sorted files block by block, logs)\n"
    "and prints what it finds, naming file and offset; exit status 0 when\n"
    "nothing is damaged, 1 when something is, 2 when the check cannot run.\n"
    "--salvage copies everything readable of STORE into the new store NEW\n"
    "and says what was lost (exit status 1 when something was).\n"
    "-q prints damage, losses and the summary only (no warnings).\n";

typedef struct printer {
    bool quiet;
} printer;

static const char *kind_name(kv_finding_kind k) {
    switch (k) {
    case KV_FINDING_DAMAGE: return "damage";
    case KV_FINDING_WARNING: return "warning";
    case KV_FINDING_LOST: return "lost";
    case KV_FINDING_INFO: return "info";
    }
    return "?";
}

/* One line per finding: "KIND: FILE @OFFSET: MESSAGE" (FILE and OFFSET
   "-" when none applies). */
static void print_finding(void *ctx, const kv_finding *f) {
    const printer *p = ctx;
    if (p->quiet && (f->kind == KV_FINDING_WARNING || f->kind == KV_FINDING_INFO)) return;
    char off[32] = "-";
    if (f->offset >= 0) snprintf(off, sizeof off, "%" PRId64, f->offset);
    printf("%s: %s @%s: %s\n", kind_name(f->kind), f->file ? f->file : "-", off, f->message);
}

static int run_check(const char *store, printer *p) {
    kv_check_stats st;
    kv_status rc = kv_store_check(&st, store, print_finding, p);
    if (rc != KV_OK && rc != KV_CORRUPT) {
        fprintf(stderr, "cellck: %s: %s\n", store, rc == KV_LOCKED ? "the store is open by a writer "
                "(a check needs a read-only open)" : kv_strerror(rc));
        return 2;
    }
    printf("cellck: %s: %" PRIu64 " sorted files, %" PRIu64 " logs, %" PRIu64 " entries checked: %"
           PRIu64 " damaged, %" PRIu64 " warnings: %s\n", store, st.sorted_files, st.logs, st.cells,
           st.damage, st.warnings, rc == KV_OK ? "clean" : "DAMAGED");
    return rc == KV_OK ? 0 : 1;
}

static int run_salvage(const char *store, const char *dest, printer *p) {
    kv_check_stats st;
    kv_status rc = kv_store_salvage(&st, store, dest, print_finding, p);
    if (rc != KV_OK && rc != KV_CORRUPT) {
        fprintf(stderr, "cellck: salvaging %s into %s: %s\n", store, dest, kv_strerror(rc));
        return 2;
    }
    if (rc == KV_CORRUPT && st.lost == 0) {
        /* The source did not open: nothing was copied. */
        fprintf(stderr, "cellck: %s cannot be salvaged: it does not open (see above)\n", store);
        return 2;
    }
    printf("cellck: salvaged %s into %s: %" PRIu64 " entries copied, %" PRIu64 " sorted files read; "
           "lost: %" PRIu64 " (at least %" PRIu64 " entries)%s\n", store, dest, st.cells, st.sorted_files,
           st.lost, st.cells_lost, rc == KV_OK ? ", nothing" : "");
    return rc == KV_OK ? 0 : 1;
}

int main(int argc, char **argv) {
    printer p = {false};
    bool salvage = false;
    const char *args[2];
    int nargs = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(usage_text, stdout);
            return 0;
        } else if (strcmp(argv[i], "--version") == 0) {
            printf("cellck %s\n", KVCORE_VERSION);
            return 0;
        } else if (strcmp(argv[i], "-q") == 0) {
            p.quiet = true;
        } else if (strcmp(argv[i], "--salvage") == 0) {
            salvage = true;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "cellck: unknown option '%s'\n%s", argv[i], usage_text);
            return 2;
        } else if (nargs < 2) {
            args[nargs++] = argv[i];
        } else {
            fprintf(stderr, "cellck: too many arguments\n%s", usage_text);
            return 2;
        }
    }
    if (nargs != (salvage ? 2 : 1)) {
        fputs(usage_text, stderr);
        return 2;
    }
    return salvage ? run_salvage(args[0], args[1], &p) : run_check(args[0], &p);
}
