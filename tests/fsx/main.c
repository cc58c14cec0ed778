/*
 * main.c: fsx's command line. Parses the options into fsx_options (fsx.h)
 * and runs file_mode.c or, with -M, table_mode.c. See README.md beside
 * this file for what each mode checks and how the bats tests use it.
 */
#include "fsx.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *out) {
    fprintf(out,
        "usage: fsx [options] FILE            random operations on one file\n"
        "       fsx -M [options] TABLEDIR     random operations on a table of a cellfs mount\n"
        "Both modes:\n"
        "  -S seed     random seed (default 1)\n"
        "  -N ops      number of operations (default 10000)\n"
        "  -l bytes    largest file or cell value; at most the mount's max_value\n"
        "              (default 262144 in file mode, 4096 in table mode)\n"
        "  -o bytes    largest single read or write (default 65536)\n"
        "  -c N        close and reopen after 1 operation in N, 0 = never (default 100)\n"
        "  -L N        operations shown after a failure (default 50)\n"
        "  -v          print every operation\n"
        "  -P ms       sleep this long before each operation (default 0)\n"
        "File mode, operation classes off:\n"
        "  -R mmap reads   -W mmap writes   -T truncates (and -K)   -A appends\n"
        "  -F fsync        -D second descriptors   -K shrink-grow-reopen\n"
        "Table mode:\n"
        "  -n          TABLEDIR is a plain directory (the self-check): no versions,\n"
        "              renames across rows work, no cellfs-only checks\n"
        "  -r CMD      remount command, run with /bin/sh -c (must unmount and mount\n"
        "              the same store at the same place)\n"
        "  -m N        remount after 1 operation in N (default 0 = never; needs -r)\n"
        "  -C N        compare the whole table after 1 operation in N (default 50)\n"
        "  -x LIST     leave out these operations (comma-separated: put, empty, patch,\n"
        "              append, read, rename, xrename, unlink, mkrow, rmrow, rmdir-full,\n"
        "              vput, vrm, utimens, rowmv)\n"
        "  -U          no timestamps in the future\n"
        "  -V          the mount lists every retained version as q@ts (-o versions)\n"
        "  -B          the table's families have NEW_VERSION_BEHAVIOR => 'true': a\n"
        "              delete masks only the puts made before it\n"
        "Self-test:\n"
        "  -Z N        change one byte of the model after operation N: the run must\n"
        "              then fail (shows that the checks can fail)\n"
        "Exit status: 0 all checks passed, 1 a check failed, 2 bad usage.\n");
}

static int parse_u64(const char *arg, uint64_t *out, char opt) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(arg, &end, 10);
    if (errno != 0 || end == arg || *end != '\0' || arg[0] == '-') {
        fprintf(stderr, "fsx: bad number for -%c: '%s'\n", opt, arg);
        return -1;
    }
    *out = v;
    return 0;
}

int main(int argc, char **argv) {
    fsx_options o;
    memset(&o, 0, sizeof o);
    o.seed = 1;
    o.ops = 10000;
    o.maxoplen = 65536;
    o.closeprob = 100;
    o.logsize = 50;
    o.check_every = 50;
    bool maxlen_set = false;
    int c;
    uint64_t v;
    while ((c = getopt(argc, argv, "MS:N:l:o:c:L:P:Z:vRWTAFDKnr:m:C:x:UVBh")) != -1) {
        switch (c) {
        case 'M': o.table_mode = true; break;
        case 'R': o.no_mapread = true; break;
        case 'W': o.no_mapwrite = true; break;
        case 'T': o.no_truncate = true; break;
        case 'A': o.no_append = true; break;
        case 'F': o.no_fsync = true; break;
        case 'D': o.no_second = true; break;
        case 'K': o.no_shrinkgrow = true; break;
        case 'n': o.native = true; break;
        case 'x': o.skip_ops = optarg; break;
        case 'U': o.no_future = true; break;
        case 'V': o.versions_listed = true; break;
        case 'B': o.new_version_behavior = true; break;
        case 'v': o.verbose = true; break;
        case 'r': o.remount_cmd = optarg; break;
        case 'h': usage(stdout); return 0;
        case 'S': case 'N': case 'l': case 'o': case 'c': case 'L': case 'm': case 'C': case 'P': case 'Z':
            if (parse_u64(optarg, &v, (char)c) != 0)
                return 2;
            if (c == 'S') o.seed = v;
            if (c == 'N') o.ops = v;
            if (c == 'l') { o.maxlen = (size_t)v; maxlen_set = true; }
            if (c == 'o') o.maxoplen = (size_t)v;
            if (c == 'c') o.closeprob = (unsigned)v;
            if (c == 'L') o.logsize = (size_t)v;
            if (c == 'm') o.remount_every = (unsigned)v;
            if (c == 'C') o.check_every = (unsigned)v;
            if (c == 'P') o.pause_ms = (unsigned)v;
            if (c == 'Z') o.corrupt_at = v;
            break;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (optind + 1 != argc) {
        usage(stderr);
        return 2;
    }
    o.path = argv[optind];
    if (!maxlen_set)
        o.maxlen = o.table_mode ? 4096 : 262144;
    if (o.maxlen == 0 || o.maxlen > (256u << 20) || o.maxoplen == 0) {
        fprintf(stderr, "fsx: -l must be 1..268435456 and -o at least 1\n");
        return 2;
    }
    if (o.remount_every > 0 && o.remount_cmd == NULL) {
        fprintf(stderr, "fsx: -m needs a remount command (-r)\n");
        return 2;
    }
    if (o.check_every == 0)
        o.check_every = 1;
    printf("fsx: %s mode on %s, seed %" PRIu64 ", %" PRIu64 " operations\n",
           o.table_mode ? "table" : "file", o.path, o.seed, o.ops);
    fflush(stdout);
    return o.table_mode ? fsx_table_mode(&o) : fsx_file_mode(&o);
}
