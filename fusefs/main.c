/**
 * @file main.c
 * The cellfs program: parses `cellfs STORE MOUNTPOINT [options]`, opens
 * (or with -o create creates) the store, mounts it with libfuse's
 * low-level API (lowlevel.c), runs the multi-threaded loop and, in the
 * destroy callback, commits open files and closes the store
 * (kv_store_close flushes everything). Calls lowlevel.c and kvcore.h.
 */
#include "open_file.h"

#include <ctype.h>
#include <errno.h>
#include <fuse_lowlevel.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct fs_args {
    char *store;
    int create, versions, sync, ro, allow_other, show_help, show_version;
    char *max_value, *cache_size, *write_buffer, *max_nodes, *timeout;
} fs_args;

enum { KEY_HELP, KEY_VERSION, KEY_RO, KEY_ALLOW_OTHER };

#define OPT(t, f) { t, offsetof(fs_args, f), 1 }
static const struct fuse_opt cellfs_opts[] = {
    OPT("create", create),
    OPT("versions", versions),
    OPT("sync", sync),
    /* Numbers are taken as text and checked below: fuse_opt's "%lu" would
       read max_value=64M as 64 and max_nodes=-5 as a huge cap, silently. */
    { "max_value=%s", offsetof(fs_args, max_value), 0 },
    { "cache_size=%s", offsetof(fs_args, cache_size), 0 },
    { "write_buffer=%s", offsetof(fs_args, write_buffer), 0 },
    { "max_nodes=%s", offsetof(fs_args, max_nodes), 0 },
    { "timeout=%s", offsetof(fs_args, timeout), 0 },
    FUSE_OPT_KEY("ro", KEY_RO),
    FUSE_OPT_KEY("allow_other", KEY_ALLOW_OTHER),
    FUSE_OPT_KEY("-h", KEY_HELP),
    FUSE_OPT_KEY("--help", KEY_HELP),
    FUSE_OPT_KEY("-V", KEY_VERSION),
    FUSE_OPT_KEY("--version", KEY_VERSION),
    FUSE_OPT_END
};

static int opt_proc(void *data, const char *arg, int key, struct fuse_args *outargs)
{
    (void)outargs;
    fs_args *a = data;
    switch (key) {
    case FUSE_OPT_KEY_NONOPT:
        if (!a->store) {
            a->store = strdup(arg);
            return 0;
        }
        return 1;
    case KEY_HELP:
        a->show_help = 1;
        return 0;
    case KEY_VERSION:
        a->show_version = 1;
        return 0;
    case KEY_RO:
        a->ro = 1;
        return 1;
    case KEY_ALLOW_OTHER:
        a->allow_other = 1;
        return 1;
    }
    return 1;
}

static void usage(const char *prog)
{
    printf("usage: %s STORE MOUNTPOINT [options]\n"
           "\n"
           "Mounts the cellfs table store in directory STORE at MOUNTPOINT:\n"
           "MOUNTPOINT/<namespace>/<table>/<row>/<family>/<qualifier> (see cellfs(1)).\n"
           "\n"
           "cellfs options:\n"
           "    -o create              create STORE when it does not exist\n"
           "    -o versions            list every retained version as q@<ts>\n"
           "    -o sync                fsync the log on every write (power-loss safe)\n"
           "    -o ro                  read-only mount (store opened read-only)\n"
           "    -o max_value=BYTES     largest cell value (default 64 MiB; EFBIG above;\n"
           "                           sizes may end in K, M or G: 64M)\n"
           "    -o cache_size=BYTES    block cache of the store (default 64 MiB)\n"
           "    -o write_buffer=BYTES  memory buffers before a flush (default 64 MiB)\n"
           "    -o max_nodes=N         names the daemon keeps for the kernel (default 400000;\n"
           "                           0: as many as the kernel holds)\n"
           "    -o timeout=SECONDS     kernel entry/attribute cache time for everything,\n"
           "                           absent names too\n"
           "                           (default: until changed, for a local store; 1 s else)\n"
           "    -h, --help             this help\n"
           "    -V, --version          versions\n"
           "\n", prog);
}

static int open_store(cellfs *fs, char *err, size_t errlen)
{
    kv_store_options o = KV_STORE_OPTIONS_INIT;
    kv_local_options local = KV_LOCAL_OPTIONS_INIT;
    o.create_if_missing = fs->create;
    local.lock_wait_ms = 2000; /* the previous mount may still be closing */
    o.read_only = fs->read_only;
    if (fs->max_value) o.max_value_size = fs->max_value;
    if (fs->cache_size) local.block_cache_size = fs->cache_size;
    if (fs->write_buffer) local.write_buffer_size = fs->write_buffer;
    o.local = &local;
    char owner[PATH_MAX + 64];
    snprintf(owner, sizeof owner, "cellfs mounted at %s", fs->mountpoint);
    o.owner = owner;
    o.log = fs_log_kv;
    o.log_ctx = fs;
    fs->max_value = o.max_value_size;
    kv_status st = kv_store_open(&fs->store, fs->store_path, &o, err, errlen);
    if (st != KV_OK && !err[0]) snprintf(err, errlen, "%s", kv_strerror(st));
    return st == KV_OK ? 0 : -1;
}

static char *absolute(const char *path)
{
    if (path[0] == '/') return strdup(path);
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd)) return NULL;
    size_t n = strlen(cwd) + strlen(path) + 2;
    char *s = malloc(n);
    if (s) snprintf(s, n, "%s/%s", cwd, path);
    return s;
}

static void add_fsname(struct fuse_args *args, const char *store)
{
    size_t n = strlen(store);
    char *opt = malloc(2 * n + 16);
    if (!opt) return;
    char *o = opt + sprintf(opt, "-ofsname=");
    for (const char *s = store; *s; s++) {
        if (*s == ',' || *s == '\\') *o++ = '\\';
        *o++ = *s;
    }
    *o = '\0';
    fuse_opt_add_arg(args, opt);
    free(opt);
}

static void args_free(struct fuse_args *args, fs_args *a)
{
    fuse_opt_free_args(args);
    free(a->store);
    free(a->max_value);
    free(a->cache_size);
    free(a->write_buffer);
    free(a->max_nodes);
    free(a->timeout);
}

/* A count, or with sizes a byte count that may end in K, M or G (KiB, MiB,
   GiB; an optional B or iB after it). NULL text keeps *out. */
static int parse_count(const char *name, const char *text, bool size_suffix, size_t *out)
{
    if (!text) return 0;
    static const struct { char letter; unsigned shift; } units[] = {
        { 'K', 10 }, { 'M', 20 }, { 'G', 30 },
    };
    char *end = NULL;
    errno = 0;
    unsigned long long v = isdigit((unsigned char)text[0]) ? strtoull(text, &end, 10) : 0;
    bool ok = end != NULL && errno == 0;
    unsigned shift = 0;
    for (size_t i = 0; ok && size_suffix && i < sizeof units / sizeof units[0]; i++)
        if (toupper((unsigned char)*end) == units[i].letter) {
            shift = units[i].shift;
            end++;
            if (strcmp(end, "iB") == 0) end += 2;
        }
    if (ok && size_suffix && *end == 'B') end++;
    ok = ok && *end == '\0' && v <= (SIZE_MAX >> shift);
    if (!ok) {
        fprintf(stderr, "cellfs: -o %s=%s: expected %s\n", name, text,
                size_suffix ? "a number of bytes (digits, optionally followed by K, M or G)"
                            : "a whole number (digits only)");
        return -1;
    }
    *out = (size_t)v << shift;
    return 0;
}

static int parse_seconds(const char *text, double *out)
{
    if (!text) return 0;
    char *end = NULL;
    errno = 0;
    double v = isdigit((unsigned char)text[0]) || text[0] == '.' ? strtod(text, &end) : -1;
    if (!end || *end || errno || !(v >= 0 && v <= 1e9)) {
        fprintf(stderr, "cellfs: -o timeout=%s: expected a number of seconds from 0 to 1e9\n", text);
        return -1;
    }
    *out = v;
    return 0;
}

int main(int argc, char *argv[])
{
    struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
    fs_args a;
    memset(&a, 0, sizeof a);
    size_t max_value = 0, cache_size = 0, write_buffer = 0, max_nodes = FS_MAX_NODES_DEFAULT;
    double timeout = FS_CACHE_SHORT;
    if (fuse_opt_parse(&args, &a, cellfs_opts, opt_proc) != 0
        || parse_count("max_value", a.max_value, true, &max_value) != 0
        || parse_count("cache_size", a.cache_size, true, &cache_size) != 0
        || parse_count("write_buffer", a.write_buffer, true, &write_buffer) != 0
        || parse_count("max_nodes", a.max_nodes, false, &max_nodes) != 0
        || parse_seconds(a.timeout, &timeout) != 0) {
        args_free(&args, &a);
        return 2;
    }
    if (a.show_version || a.show_help) {
        if (a.show_version)
            printf("cellfs %s (libkvcore %s, libfuse %s)\n", KVCORE_VERSION, KVCORE_VERSION,
                   fuse_pkgversion());
        else {
            usage(argv[0]);
            printf("FUSE options:\n");
            fuse_cmdline_help();
            fuse_lowlevel_help();
        }
        args_free(&args, &a);
        return 0;
    }
    /* Other users may use the mount: the kernel checks the modes shown
       (0644 files, 0755 directories of the mounting user). */
    if (a.allow_other && fuse_opt_add_arg(&args, "-odefault_permissions") != 0) {
        args_free(&args, &a);
        return 1;
    }
    struct fuse_cmdline_opts co;
    memset(&co, 0, sizeof co);
    if (fuse_parse_cmdline(&args, &co) != 0 || !a.store || !co.mountpoint) {
        fprintf(stderr, "usage: %s STORE MOUNTPOINT [options]  (--help for more)\n", argv[0]);
        free(co.mountpoint);
        args_free(&args, &a);
        return 2;
    }
    cellfs *fs = calloc(1, sizeof *fs);
    if (!fs) {
        free(co.mountpoint);
        args_free(&args, &a);
        return 1;
    }
    pthread_mutex_init(&fs->mu, NULL);
    pthread_mutex_init(&fs->stamp_mu, NULL);
    pthread_mutex_init(&fs->room_mu, NULL);
    pthread_mutex_init(&fs->neg.mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);   /* lease deadlines */
    pthread_cond_init(&fs->readers_gone, &ca);
    pthread_condattr_destroy(&ca);
    fs->store_path = kv_location_is_local(a.store) ? absolute(a.store) : strdup(a.store);
    fs->mountpoint = co.mountpoint;
    fs->create = a.create;
    fs->versions = a.versions;
    fs->sync = a.sync;
    fs->read_only = a.ro;
    fs->max_value = max_value;
    fs->cache_size = cache_size;
    fs->write_buffer = write_buffer;
    fs->max_nodes = max_nodes;
    fs->timeout = timeout;
    fs->timeout_given = a.timeout != NULL;
    fs->foreground = co.foreground;
    fs->single_thread = co.singlethread;
    fs->uid = getuid();
    fs->gid = getgid();
    clock_gettime(CLOCK_REALTIME, &fs->mount_time);
    int rc = 1;
    struct fuse_session *se = NULL;
    bool nodes_ready = fs_nodes_init(&fs->nodes) == 0;
    if (!fs->store_path || !nodes_ready || fs_families_init(fs) != 0) goto out_free;
    if (!co.foreground) openlog("cellfs", LOG_PID, LOG_DAEMON);

    char err[512] = "";
    if (open_store(fs, err, sizeof err) != 0) {
        fprintf(stderr, "cellfs: cannot open store %s: %s\n", fs->store_path, err);
        goto out_free;
    }
    /* Threads do not survive the fork of daemonizing: reopen after it. */
    if (!co.foreground) {
        kv_store_close(fs->store);
        fs->store = NULL;
        fs->create = false;
    }
    add_fsname(&args, fs->store_path);
    struct fuse_lowlevel_ops ops;
    fs_lowlevel_ops(&ops);
    se = fuse_session_new(&args, &ops, sizeof ops, fs);
    if (!se) {
        rc = 2;
        goto out_free;
    }
    if (fuse_session_mount(se, co.mountpoint) != 0) {
        /* The mount of a daemon that died (kill -9) stays until detached:
           say how, beyond libfuse's "Transport endpoint is not connected". */
        struct stat mst;
        if (stat(co.mountpoint, &mst) != 0 && errno == ENOTCONN)
            fprintf(stderr, "cellfs: %s is still the mount of a cellfs that died; detach it with "
                    "`fusermount3 -u %s` and mount again (nothing closed is lost)\n",
                    co.mountpoint, co.mountpoint);
        goto out_destroy;
    }
    if (fuse_daemonize(co.foreground) != 0) goto out_unmount;
    if (!fs->store) {
        err[0] = '\0';
        if (open_store(fs, err, sizeof err) != 0) {
            fs_log(fs, "cannot open store %s: %s", fs->store_path, err);
            goto out_unmount;
        }
    }
    if (kv_filter_parse(&fs->f_keyonly, "KeyOnlyFilter()", NULL, 0) != KV_OK)
        fs->f_keyonly = NULL;
    if (kv_filter_parse(&fs->f_keylen, "KeyOnlyFilter(true)", NULL, 0) != KV_OK)
        fs->f_keylen = NULL;
    if (kv_filter_parse(&fs->f_firstkey, "FirstKeyOnlyFilter() AND KeyOnlyFilter()", NULL, 0) !=
        KV_OK)
        fs->f_firstkey = NULL;
    fs->se = se;
    /* A store only this mount writes (KV_CAP_EXCLUSIVE: one writer holds
       the lock) lets the kernel keep what it was told until the mount changes it;
       -s answers the kernel from the one thread that would have to send
       the invalidations. */
    fs->cache_long = !a.timeout && !co.singlethread &&
                     (kv_store_capabilities(fs->store) & KV_CAP_EXCLUSIVE);
    if (fuse_set_signal_handlers(se) != 0) goto out_unmount;
    if (co.singlethread) {
        rc = fuse_session_loop(se);
    } else {
        struct fuse_loop_config *lc = fuse_loop_cfg_create();
        fuse_loop_cfg_set_clone_fd(lc, (unsigned)co.clone_fd);
        if (co.max_idle_threads != UINT_MAX) fuse_loop_cfg_set_idle_threads(lc, co.max_idle_threads);
        fuse_loop_cfg_set_max_threads(lc, co.max_threads);
        rc = fuse_session_loop_mt(se, lc);
        fuse_loop_cfg_destroy(lc);
    }
    rc = rc ? 1 : 0;
    fuse_remove_signal_handlers(se);
out_unmount:
    fuse_session_unmount(se);
out_destroy:
    fuse_session_destroy(se);   /* runs ll_destroy: the store is closed there */
out_free:
    if (fs->store) {        /* never initialised (mount failed) */
        kv_store_close(fs->store);
        fs->store = NULL;
    }
    kv_filter_free(fs->f_keyonly);
    kv_filter_free(fs->f_firstkey);
    kv_filter_free(fs->f_keylen);
    if (nodes_ready) fs_nodes_free(&fs->nodes);
    fs_families_free(fs);
    free(fs->store_path);
    free(co.mountpoint);
    args_free(&args, &a);
    pthread_cond_destroy(&fs->readers_gone);
    pthread_mutex_destroy(&fs->mu);
    pthread_mutex_destroy(&fs->stamp_mu);
    pthread_mutex_destroy(&fs->room_mu);
    pthread_mutex_destroy(&fs->neg.mu);
    free(fs);
    return rc;
}
