/*
 * Parsing of cellbench's options (options.h) with getopt_long; the
 * defaults follow db_bench where it has the option. Called by main.c.
 */
#include "options.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs_work.h"
#include "kvcore.h"
#include "util.h"

static void usage(FILE *out) {
    fprintf(out,
            "Usage: cellbench [OPTIONS]          key-value workloads on kvcore, LevelDB, RocksDB\n"
            "       cellbench --fs [OPTIONS]     files: native dir, cellfs, passthrough_ll\n\n"
            "Key-value mode:\n"
            "  --benchmarks=LIST     comma-separated workloads, in order (default all:\n"
            "                        fillseq,fillrandom,overwrite,readrandom,readseq,seekrandom,\n"
            "                        deleterandom,widerow,versions,timerange,smallcell,checkandmutate,\n"
            "                        readwrite90)\n"
            "  --engines=LIST        kvcore,leveldb,rocksdb (default all three); bigtable:\n"
            "                        Google's emulator at $BIGTABLE_EMULATOR_HOST\n"
            "  --num=N               keys, and puts per fill workload (default 1000000)\n"
            "  --reads=N             operations of the read workloads (default --num)\n"
            "  --key-size=BYTES      key length, 8..64 (default 16)\n"
            "  --value-size=BYTES    value length (default 100)\n"
            "  --seek-nexts=N        entries read per seekrandom seek (default 10)\n"
            "  --write-buffer-size=SIZE  memtable/memstore of every engine (default 64M)\n"
            "  --cache-size=SIZE     block cache of every engine (default 8M)\n"
            "  --bloom-bits=N        bloom filter bits per key, 0 = none (default 10)\n"
            "  --block-size=SIZE     data block size, 0 = each engine's default (default 0)\n"
            "  --compression=NAME    none, lz4 or snappy in every engine, values half\n"
            "                        compressible (default none)\n"
            "  --encoding=NAME       kvcore's DATA_BLOCK_ENCODING: none (HBase's default,\n"
            "                        whole keys), prefix or diff; LevelDB and RocksDB\n"
            "                        always share key prefixes (default none)\n"
            "  --seed=N              random seed (default 301)\n"
            "File mode (--fs):\n"
            "  --benchmarks=LIST     of create,stat,restat,read,reread,overwrite,unlink,\n"
            "                        ls-l,find,rsync-out,rsync-in,postmark (default all,\n"
            "                        this order)\n"
            "  --files=N             small files created, stat'ed, read, ... (default 10000)\n"
            "  --file-size=SIZE      bytes per file and per cell of the table (default 1K)\n"
            "  --rows=N              rows of the table of ls-l, find, rsync (default 100000)\n"
            "  --pm-files=N          PostMark: files in the pool (default 5000)\n"
            "  --pm-transactions=N   PostMark: transactions (default 10000)\n"
            "  --pm-dirs=N           PostMark: directories (default 10)\n"
            "  --cellfs=PATH         the cellfs binary (default: beside cellbench)\n"
            "  --passthrough=PATH    libfuse's passthrough_ll (default: beside cellbench)\n"
            "Both:\n"
            "  --db=DIR              work in DIR and keep it (default: a temp dir, removed)\n"
            "  --use-existing-db     (key-value mode, with --db) open the databases left in\n"
            "                        DIR by an earlier run instead of emptying them\n"
            "  -h, --help, -V, --version\n\n"
            "SIZE takes K, M, G suffixes (binary). See cellbench(1).\n");
}

enum {
    OPT_BENCH = 256, OPT_ENGINES, OPT_NUM, OPT_READS, OPT_KEY, OPT_VALUE, OPT_SEEK, OPT_WB,
    OPT_CACHE, OPT_BLOOM, OPT_BLOCK, OPT_SEED, OPT_FS, OPT_FILES, OPT_FILE_SIZE, OPT_CELLFS,
    OPT_PASSTHROUGH, OPT_DB, OPT_ROWS, OPT_PM_FILES, OPT_PM_TX, OPT_PM_DIRS, OPT_COMPRESSION, OPT_ENCODING,
    OPT_USE_EXISTING,
};

/* The index of arg among the n names, or -1. */
static int choice(const char *arg, const char *const *names, int n) {
    for (int i = 0; i < n; i++)
        if (strcmp(arg, names[i]) == 0)
            return i;
    return -1;
}

static int bad(const char *fmt, const char *arg) {
    fprintf(stderr, "cellbench: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry 'cellbench --help'.\n");
    return OPTIONS_BAD;
}

static int parse_number(uint64_t *out, const char *arg, const char *name, bool allow_suffix) {
    uint64_t v;
    bool digits = arg[0] != '\0' && strspn(arg, "0123456789") == strlen(arg);
    if ((!allow_suffix && !digits) || bench_parse_size(&v, arg) != 0) {
        fprintf(stderr, "cellbench: bad value for --%s: '%s'\nTry 'cellbench --help'.\n", name,
                arg);
        return -1;
    }
    *out = v;
    return 0;
}

/* --benchmarks in --fs mode: names of fs_workload_names. */
static int parse_fs_list(bench_options *o, char *list) {
    o->fs_mask = 0;
    char *save = NULL;
    for (char *tok = strtok_r(list, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
        int w = fs_workload_parse(tok);
        if (w < 0)
            return bad("unknown --fs benchmark '%s' (create, stat, restat, read, reread, "
                       "overwrite, unlink, ls-l, find, rsync-out, rsync-in, postmark)", tok);
        o->fs_mask |= 1u << w;
    }
    if (o->fs_mask == 0)
        return bad("empty list for --benchmarks%s", "");
    return OPTIONS_OK;
}

static int parse_list(bench_options *o, char *list, bool engines) {
    size_t *count = engines ? &o->nengines : &o->nworkloads;
    *count = 0;
    char *save = NULL;
    for (char *tok = strtok_r(list, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
        if (engines) {
            const engine_ops *e = engine_find(tok);
            if (e == NULL)
                return bad("unknown engine '%s' (kvcore, leveldb, rocksdb, bigtable)", tok);
            for (size_t i = 0; i < o->nengines; i++)
                if (o->engines[i] == e)
                    return bad("engine '%s' given twice", tok);
            if (o->nengines == BENCH_MAX_ENGINES)
                return bad("too many engines%s", "");
            o->engines[o->nengines++] = e;
        } else {
            int w = workload_parse(tok);
            if (w < 0)
                return bad("unknown benchmark '%s' (fillseq, fillrandom, overwrite, readrandom, "
                           "readseq, seekrandom)",
                           tok);
            if (o->nworkloads == BENCH_MAX_WORKLOADS)
                return bad("too many benchmarks%s", "");
            o->workloads[o->nworkloads++] = (workload_id)w;
        }
    }
    if (*count == 0)
        return bad("empty list for --%s", engines ? "engines" : "benchmarks");
    return OPTIONS_OK;
}

int options_parse(bench_options *o, int argc, char **argv) {
    memset(o, 0, sizeof *o);
    o->wl.num = 1000000;
    o->wl.key_size = 16;
    o->wl.value_size = 100;
    o->wl.seek_nexts = 10;
    o->wl.seed = 301;
    o->engine.write_buffer_size = 64u << 20;
    o->engine.cache_size = 8u << 20;
    o->engine.bloom_bits = 10;
    o->files = 10000;
    o->file_size = 1024;
    o->rows = 100000;
    o->pm_files = 5000;
    o->pm_transactions = 10000;
    o->pm_dirs = 10;
    o->fs_mask = (1u << FW_COUNT) - 1;
    const char *benchmarks = NULL;
    for (int i = 0; i < WL_COUNT; i++)
        o->workloads[o->nworkloads++] = (workload_id)i;
    o->engines[o->nengines++] = &engine_kvcore_ops;
    o->engines[o->nengines++] = &engine_leveldb_ops;
    o->engines[o->nengines++] = &engine_rocksdb_ops;
    bool reads_set = false;

    static const struct option longopts[] = {
        {"benchmarks", required_argument, NULL, OPT_BENCH},
        {"engines", required_argument, NULL, OPT_ENGINES},
        {"num", required_argument, NULL, OPT_NUM},
        {"reads", required_argument, NULL, OPT_READS},
        {"key-size", required_argument, NULL, OPT_KEY},
        {"value-size", required_argument, NULL, OPT_VALUE},
        {"seek-nexts", required_argument, NULL, OPT_SEEK},
        {"write-buffer-size", required_argument, NULL, OPT_WB},
        {"cache-size", required_argument, NULL, OPT_CACHE},
        {"bloom-bits", required_argument, NULL, OPT_BLOOM},
        {"block-size", required_argument, NULL, OPT_BLOCK},
        {"seed", required_argument, NULL, OPT_SEED},
        {"compression", required_argument, NULL, OPT_COMPRESSION},
        {"encoding", required_argument, NULL, OPT_ENCODING},
        {"fs", no_argument, NULL, OPT_FS},
        {"files", required_argument, NULL, OPT_FILES},
        {"file-size", required_argument, NULL, OPT_FILE_SIZE},
        {"cellfs", required_argument, NULL, OPT_CELLFS},
        {"passthrough", required_argument, NULL, OPT_PASSTHROUGH},
        {"rows", required_argument, NULL, OPT_ROWS},
        {"pm-files", required_argument, NULL, OPT_PM_FILES},
        {"pm-transactions", required_argument, NULL, OPT_PM_TX},
        {"pm-dirs", required_argument, NULL, OPT_PM_DIRS},
        {"db", required_argument, NULL, OPT_DB},
        {"use-existing-db", no_argument, NULL, OPT_USE_EXISTING},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    int c;
    uint64_t v;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "hV", longopts, NULL)) != -1) {
        const char *shortname = "";
        for (const struct option *lo = longopts; lo->name != NULL; lo++)
            if (lo->val == c)
                shortname = lo->name;
        switch (c) {
        case 'h':
            usage(stdout);
            return OPTIONS_EXIT;
        case 'V':
            printf("cellbench %s (libkvcore %s)\n", KVCORE_VERSION, KVCORE_VERSION);
            return OPTIONS_EXIT;
        case OPT_BENCH:
            benchmarks = optarg;   /* parsed below, once --fs is known */
            break;
        case OPT_ENGINES: {
            char *copy = strdup(optarg);
            if (copy == NULL)
                return bad("out of memory%s", "");
            int rc = parse_list(o, copy, c == OPT_ENGINES);
            free(copy);
            if (rc != OPTIONS_OK)
                return rc;
            break;
        }
        case OPT_NUM:
        case OPT_READS:
        case OPT_KEY:
        case OPT_VALUE:
        case OPT_SEEK:
        case OPT_BLOOM:
        case OPT_SEED:
        case OPT_FILES:
        case OPT_ROWS:
        case OPT_PM_FILES:
        case OPT_PM_TX:
        case OPT_PM_DIRS:
            if (parse_number(&v, optarg, shortname, false) != 0)
                return OPTIONS_BAD;
            if (c == OPT_NUM) o->wl.num = v;
            if (c == OPT_READS) { o->wl.reads = v; reads_set = true; }
            if (c == OPT_KEY) o->wl.key_size = (size_t)v;
            if (c == OPT_VALUE) o->wl.value_size = (size_t)v;
            if (c == OPT_SEEK) o->wl.seek_nexts = v;
            if (c == OPT_BLOOM) o->engine.bloom_bits = (uint32_t)(v > 64 ? 65 : v);
            if (c == OPT_SEED) o->wl.seed = v;
            if (c == OPT_FILES) o->files = v;
            if (c == OPT_ROWS) o->rows = v;
            if (c == OPT_PM_FILES) o->pm_files = v;
            if (c == OPT_PM_TX) o->pm_transactions = v;
            if (c == OPT_PM_DIRS) o->pm_dirs = v;
            break;
        case OPT_WB:
        case OPT_CACHE:
        case OPT_BLOCK:
        case OPT_FILE_SIZE:
            if (parse_number(&v, optarg, shortname, true) != 0)
                return OPTIONS_BAD;
            if (c == OPT_WB) o->engine.write_buffer_size = v;
            if (c == OPT_CACHE) o->engine.cache_size = v;
            if (c == OPT_BLOCK) o->engine.block_size = (uint32_t)(v > (1u << 30) ? 0xFFFFFFFFu : v);
            if (c == OPT_FILE_SIZE) o->file_size = v;
            break;
        case OPT_FS: o->fs_mode = true; break;
        case OPT_CELLFS: o->cellfs_path = optarg; break;
        case OPT_PASSTHROUGH: o->passthrough_path = optarg; break;
        case OPT_DB: o->db_dir = optarg; break;
        case OPT_USE_EXISTING: o->use_existing_db = true; break;
        case OPT_COMPRESSION: {
            static const char *const names[] = {"none", "lz4", "snappy"};   /* ENGINE_COMPRESSION_* */
            if ((o->engine.compression = choice(optarg, names, 3)) < 0)
                return bad("--compression must be none, lz4 or snappy, not '%s'", optarg);
            o->wl.compressible = o->engine.compression != ENGINE_COMPRESSION_NONE;
            break;
        }
        case OPT_ENCODING: {
            static const char *const names[] = {"none", "prefix", "diff"};  /* ENGINE_ENCODING_* */
            if ((o->engine.encoding = choice(optarg, names, 3)) < 0)
                return bad("--encoding must be none, prefix or diff, not '%s'", optarg);
            break;
        }
        default:
            return bad("unknown option or missing value: '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return bad("unexpected argument '%s'", argv[optind]);
    if (benchmarks != NULL) {
        char *copy = strdup(benchmarks);
        if (copy == NULL)
            return bad("out of memory%s", "");
        int rc = o->fs_mode ? parse_fs_list(o, copy) : parse_list(o, copy, false);
        free(copy);
        if (rc != OPTIONS_OK)
            return rc;
    }
    if (!reads_set)
        o->wl.reads = o->wl.num;
    if (o->use_existing_db && (o->fs_mode || o->db_dir == NULL))
        return bad("--use-existing-db needs --db and key-value mode%s", "");
    if (o->wl.num == 0 || o->wl.num > 100000000000ull)
        return bad("--num must be 1..100000000000%s", "");
    /* The key holds the decimal key number zero-padded; 8 bytes already
       fit 10^8 distinct keys, and kvcore rows may be long. */
    if (o->wl.key_size < 8 || o->wl.key_size > 64)
        return bad("--key-size must be 8..64%s", "");
    if (o->wl.key_size < 20) {
        uint64_t cap = 1;
        for (size_t i = 0; i < o->wl.key_size; i++)
            cap *= 10;
        if (o->wl.num > cap)
            return bad("--num does not fit in --key-size digits%s", "");
    }
    if (o->wl.value_size > (64u << 20))
        return bad("--value-size must be at most 64M%s", "");
    if (o->wl.seek_nexts == 0)
        return bad("--seek-nexts must be at least 1%s", "");
    if (o->engine.bloom_bits > 64)
        return bad("--bloom-bits must be 0..64%s", "");
    if (o->engine.write_buffer_size < (64u << 10) || o->engine.cache_size < (64u << 10))
        return bad("--write-buffer-size and --cache-size must be at least 64K%s", "");
    if (o->engine.block_size != 0 && (o->engine.block_size < 512 || o->engine.block_size > (64u << 20)))
        return bad("--block-size must be 0 or 512..64M%s", "");
    if (o->files == 0 || o->files > 10000000)
        return bad("--files must be 1..10000000%s", "");
    if (o->file_size > (64u << 20))
        return bad("--file-size must be at most 64M%s", "");
    if (o->rows == 0 || o->rows > 100000000)
        return bad("--rows must be 1..100000000%s", "");
    if (o->pm_files == 0 || o->pm_files > 10000000 || o->pm_transactions > 100000000)
        return bad("--pm-files must be 1..10000000 and --pm-transactions at most 100000000%s", "");
    if (o->pm_dirs == 0 || o->pm_dirs > 10000)
        return bad("--pm-dirs must be 1..10000%s", "");
    return OPTIONS_OK;
}
