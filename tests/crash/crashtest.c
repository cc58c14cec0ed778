/*
 * crashtest: kills writers at random moments, cycle after cycle, and checks
 * what the store kept (issue 11, "What to build" 2; README.md here).
 *
 *   crashtest --mode=api|power|cellsh|mount --dir=DIR [--cycles=N] [--seed=S]
 *             [--cellsh=PATH] [--cellfs=PATH] [--cellck=PATH [--cellck-raw]]
 *             [--verbose] [--claim-unsynced]
 *
 * Each cycle starts a writer on the store in DIR/store, lets it run for a
 * random time and kills it (SIGKILL), then opens the store through
 * kvcore.h and checks: it opens; every acknowledged write is there; what
 * each writer wrote is a prefix of its sequence (rows w<W>-<SEQ>, no gap);
 * no row is torn (each has all its cells, with the row's own value);
 * counters never go back (at least the last acknowledged value, at least
 * what the previous cycle found); with --cellck, `cellck STORE` exits 0
 * after that open has recovered the store (and with --cellck-raw also
 * before it, on the store as the crash left it). The next cycle goes on from there; every
 * 50 cycles the store starts afresh (so that the check stays short).
 *
 * Modes (the writer, and what "acknowledged" means):
 *   api     two threads of a child process, kv_mutate of three cells in two
 *           families and kv_increment, SYNC_WAL; a small write buffer so
 *           that flushes and compactions run in the background.
 *   power   one thread through the fault env (kvcore/util/env_fault.c):
 *           writes with SYNC_WAL, every few with FSYNC_WAL, explicit flushes
 *           and compactions; at a random point it drops everything not
 *           synced (power loss) and dies. Acknowledged = FSYNC_WAL or a
 *           completed flush.
 *   cellsh  cellsh reading statements from a pipe: put of one cell, then
 *           incr; the COUNTER VALUE line acknowledges the statements before.
 *   mount   a cellfs daemon; the writer creates files row/f/q and rewrites
 *           the counter file; a closed file is acknowledged. The daemon is
 *           killed, the dead mount unmounted (fusermount3 -u -z).
 * --claim-unsynced (power mode) counts writes that were not synced as
 * acknowledged: power loss then loses some of them and the check must say
 * so (the self-test that shows the check can fail).
 * Exit status 0 when every cycle checked out; 1 at the first failure
 * (printed with the cycle); 2 bad usage.
 */

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kvcore.h"
#include "util/env.h"

#define MAX_WRITERS 2
#define FRESH_EVERY 50     /* cycles on one store before a new one */
#define TABLE "t"

typedef enum { MODE_API, MODE_POWER, MODE_CELLSH, MODE_MOUNT } mode_t_;

/* What the writers acknowledged, in memory shared with the parent (so it
   survives the writer's SIGKILL). */
typedef struct shared {
    _Atomic int64_t acked_seq[MAX_WRITERS];   /* last acknowledged row seq, -1 none */
    _Atomic int64_t acked_ctr[MAX_WRITERS];   /* last acknowledged counter value */
    _Atomic int started;                      /* the writer has opened the store */
} shared;

typedef struct config {
    mode_t_ mode;
    const char *dir;
    char store[PATH_MAX];
    char mnt[PATH_MAX];
    const char *cellsh;
    const char *cellfs;
    const char *cellck;    /* when set: `cellck STORE` must exit 0 each cycle */
    bool cellck_raw;       /* --cellck-raw: also on the store as the crash left it */
    unsigned cycles;
    uint64_t seed;
    bool verbose;
    bool claim_all;        /* --claim-unsynced: a self-test of the check */
    int writers;
} config;

/* Per writer: where the next cycle starts, and the counter last seen. */
typedef struct progress {
    int64_t next_seq[MAX_WRITERS];
    int64_t ctr_seen[MAX_WRITERS];
} progress;

static uint64_t rng_state;
static uint64_t rnd(void) {   /* xorshift64*; the parent's only */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ULL;
}

static void sleep_ms(unsigned ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "crashtest: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static int row_name(char *buf, size_t len, int w, int64_t seq) {
    return snprintf(buf, len, "w%d-%010" PRId64, w, seq);
}
static int row_value(char *buf, size_t len, int w, int64_t seq) {
    return snprintf(buf, len, "%d:%" PRId64, w, seq);
}

/* ---- the api and power writers (in a child process) ---- */

typedef struct writer_arg {
    kv_store *store;
    shared *sh;
    int w;
    int64_t start;
    int64_t stop;          /* power: ops to do, then return; api: INT64_MAX */
    bool power;
    bool claim_all;
    uint64_t seed;
} writer_arg;

static void *writer_main(void *p) {
    writer_arg *a = p;
    kv_write_options sync_wal = KV_WRITE_OPTIONS_INIT, fsync_wal = KV_WRITE_OPTIONS_INIT;
    sync_wal.durability = KV_SYNC_WAL;
    fsync_wal.durability = KV_FSYNC_WAL;
    uint64_t r = a->seed | 1;
    int64_t ctr = 0;
    for (int64_t seq = a->start; seq < a->start + a->stop; seq++) {
        char row[64], val[64];
        int rl = row_name(row, sizeof row, a->w, seq);
        int vl = row_value(val, sizeof val, a->w, seq);
        kv_mutation *m = NULL;
        if (kv_mutation_new(&m, row, (size_t)rl) != KV_OK ||
            kv_mutation_put(m, "f", "a", 1, KV_LATEST_TIMESTAMP, val, (size_t)vl) != KV_OK ||
            kv_mutation_put(m, "f", "b", 1, KV_LATEST_TIMESTAMP, val, (size_t)vl) != KV_OK ||
            kv_mutation_put(m, "g", "c", 1, KV_LATEST_TIMESTAMP, val, (size_t)vl) != KV_OK)
            _exit(3);
        r ^= r << 13, r ^= r >> 7, r ^= r << 17;
        bool durable = !a->power || r % 8 == 0;
        kv_status st = kv_mutate(a->store, TABLE, m, durable && a->power ? &fsync_wal : &sync_wal);
        kv_mutation_free(m);
        if (st != KV_OK) {
            fprintf(stderr, "writer %d: put %s: %s: %s\n", a->w, row, kv_strerror(st),
                    kv_store_errmsg(a->store));
            _exit(4);
        }
        if (durable || a->claim_all)
            atomic_store(&a->sh->acked_seq[a->w], seq);
        if (seq % 3 == 0) {
            char crow[16];
            int cl = snprintf(crow, sizeof crow, "ctr%d", a->w);
            st = kv_increment(&ctr, a->store, TABLE, crow, (size_t)cl, "f", "n", 1, 1,
                              durable && a->power ? &fsync_wal : &sync_wal);
            if (st != KV_OK) {
                fprintf(stderr, "writer %d: increment: %s\n", a->w, kv_strerror(st));
                _exit(4);
            }
            if (durable)
                atomic_store(&a->sh->acked_ctr[a->w], ctr);
        }
        if (a->power && r % 97 == 1) {
            /* A completed flush makes everything before it durable. */
            if (kv_flush(a->store, NULL) != KV_OK)
                _exit(5);
            atomic_store(&a->sh->acked_seq[a->w], seq);
            if (ctr)
                atomic_store(&a->sh->acked_ctr[a->w], ctr);
        }
        if (a->power && r % 211 == 2 && kv_compact(a->store, NULL, r % 2) != KV_OK)
            _exit(5);
    }
    return NULL;
}

static kv_store *child_open(const config *c, kv_env *env, bool small_buffer) {
    kv_local_options lo = KV_LOCAL_OPTIONS_INIT;
    lo.env = env;
    lo.lock_wait_ms = 5000;
    if (small_buffer)
        lo.write_buffer_size = 64u << 10;
    else
        lo.compaction = KV_COMPACTION_MANUAL;
    kv_store_options o = KV_STORE_OPTIONS_INIT;
    o.create_if_missing = true;
    o.owner = "crashtest writer";
    o.local = &lo;
    kv_store *s = NULL;
    char err[512];
    kv_status st = kv_store_open(&s, c->store, &o, err, sizeof err);
    if (st != KV_OK) {
        fprintf(stderr, "writer: open %s: %s: %s\n", c->store, kv_strerror(st), err);
        _exit(2);
    }
    if (kv_table_exists(s, TABLE) != KV_OK) {
        kv_family_desc f[2] = {KV_FAMILY_DESC_INIT, KV_FAMILY_DESC_INIT};
        snprintf(f[0].name, sizeof f[0].name, "f");
        snprintf(f[1].name, sizeof f[1].name, "g");
        if (kv_table_create(s, TABLE, f, 2) != KV_OK)
            _exit(2);
    }
    return s;
}

static void run_api_child(const config *c, shared *sh, const progress *pg, uint64_t seed) {
    kv_store *s = child_open(c, NULL, true);
    atomic_store(&sh->started, 1);
    pthread_t th[MAX_WRITERS];
    writer_arg a[MAX_WRITERS];
    for (int w = 0; w < c->writers; w++) {
        a[w] = (writer_arg){s, sh, w, pg->next_seq[w], INT64_MAX / 4, false, false,
                            seed + (uint64_t)w};
        if (pthread_create(&th[w], NULL, writer_main, &a[w]) != 0)
            _exit(2);
    }
    for (int w = 0; w < c->writers; w++)
        pthread_join(th[w], NULL);
    _exit(0);
}

static void run_power_child(const config *c, shared *sh, const progress *pg, uint64_t seed,
                            int64_t ops) {
    kv_fault_env *fe = kv_fault_env_new(kv_env_posix());
    if (!fe)
        _exit(2);
    kv_store *s = child_open(c, kv_fault_env_env(fe), false);
    atomic_store(&sh->started, 1);
    writer_arg a = {s, sh, 0, pg->next_seq[0], ops, true, c->claim_all, seed};
    writer_main(&a);
    /* Power loss: no close, nothing synced survives. No background work
       runs here (manual compaction, a write buffer that never fills), so
       this is one instant. */
    if (kv_fault_env_drop_unsynced(fe) != KV_OK)
        _exit(6);
    _exit(0);
}

/* ---- the cellsh writer ---- */

static void run_cellsh_cycle(const config *c, shared *sh, const progress *pg, unsigned ms) {
    int in[2], out[2];
    if (pipe(in) != 0 || pipe(out) != 0)
        die("pipe: %s", strerror(errno));
    pid_t pid = fork();
    if (pid < 0)
        die("fork: %s", strerror(errno));
    if (pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2(null, 2);   /* "Table already exists" after the first cycle */
        close(in[0]), close(in[1]), close(out[0]), close(out[1]);
        execl(c->cellsh, c->cellsh, "-n", "-c", c->store, (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    FILE *to = fdopen(in[1], "w");
    FILE *from = fdopen(out[0], "r");
    if (!to || !from)
        die("fdopen");
    signal(SIGPIPE, SIG_IGN);
    fprintf(to, "create '%s', 'f', 'g'\n", TABLE);   /* fails harmlessly when there */
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int64_t seq = pg->next_seq[0];
    char line[512];
    for (;;) {
        struct timespec t1;
        clock_gettime(CLOCK_MONOTONIC, &t1);
        long el = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
        if (el >= (long)ms)
            break;
        char row[64], val[64];
        row_name(row, sizeof row, 0, seq);
        row_value(val, sizeof val, 0, seq);
        if (fprintf(to, "put '%s', '%s', 'f:a', '%s'\nincr '%s', 'ctr0', 'f:n', 1\n", TABLE, row,
                    val, TABLE) < 0 || fflush(to) != 0)
            break;
        /* Statements run in order: the counter's line acknowledges the put. */
        bool got = false;
        while (fgets(line, sizeof line, from)) {
            long long v;
            if (sscanf(line, "COUNTER VALUE = %lld", &v) == 1) {
                atomic_store(&sh->acked_seq[0], seq);
                atomic_store(&sh->acked_ctr[0], (int64_t)v);
                got = true;
                break;
            }
        }
        if (!got)
            break;
        seq++;
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    fclose(to);
    fclose(from);
}

/* ---- the mount writer ---- */

static bool is_mounted(const char *mnt) {
    FILE *f = fopen("/proc/self/mounts", "r");
    if (!f)
        return false;
    char line[4096];
    bool yes = false;
    while (fgets(line, sizeof line, f)) {
        char dev[1024], path[PATH_MAX];
        if (sscanf(line, "%1023s %4095s", dev, path) == 2 && strcmp(path, mnt) == 0)
            yes = true;
    }
    fclose(f);
    return yes;
}

static int write_file(const char *path, const char *text) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return -1;
    size_t n = strlen(text);
    ssize_t put = write(fd, text, n);
    if (close(fd) != 0 || put != (ssize_t)n)
        return -1;
    return 0;
}

static void mount_writer(const config *c, shared *sh, const progress *pg) {
    char path[PATH_MAX + 128];
    snprintf(path, sizeof path, "%s/default/%s", c->mnt, TABLE);
    if (mkdir(path, 0755) == 0) {
        snprintf(path, sizeof path, "%s/default/%s/.schema", c->mnt, TABLE);
        if (write_file(path, "{NAME => 'f'}\n") != 0)
            _exit(2);
    } else if (errno != EEXIST) {
        _exit(2);
    }
    snprintf(path, sizeof path, "%s/default/%s/ctr0", c->mnt, TABLE);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/default/%s/ctr0/f", c->mnt, TABLE);
    mkdir(path, 0755);
    atomic_store(&sh->started, 1);
    int64_t ctr = pg->ctr_seen[0];
    for (int64_t seq = pg->next_seq[0];; seq++) {
        char row[64], val[64];
        row_name(row, sizeof row, 0, seq);
        row_value(val, sizeof val, 0, seq);
        snprintf(path, sizeof path, "%s/default/%s/%s", c->mnt, TABLE, row);
        if (mkdir(path, 0755) != 0 && errno != EEXIST)
            _exit(0);
        snprintf(path, sizeof path, "%s/default/%s/%s/f", c->mnt, TABLE, row);
        if (mkdir(path, 0755) != 0 && errno != EEXIST)
            _exit(0);
        snprintf(path, sizeof path, "%s/default/%s/%s/f/a", c->mnt, TABLE, row);
        if (write_file(path, val) != 0)
            _exit(0);
        atomic_store(&sh->acked_seq[0], seq);
        if (seq % 3 == 0) {
            char num[32];
            snprintf(num, sizeof num, "%" PRId64, ++ctr);
            snprintf(path, sizeof path, "%s/default/%s/ctr0/f/n", c->mnt, TABLE);
            if (write_file(path, num) != 0)
                _exit(0);
            atomic_store(&sh->acked_ctr[0], ctr);
        }
    }
}

static void run_mount_cycle(const config *c, shared *sh, const progress *pg, unsigned ms) {
    pid_t d = fork();
    if (d < 0)
        die("fork: %s", strerror(errno));
    if (d == 0) {
        int fd = open("/dev/null", O_WRONLY);
        if (fd >= 0)
            dup2(fd, 2);
        execl(c->cellfs, c->cellfs, c->store, c->mnt, "-f", "-o", "create", (char *)NULL);
        _exit(127);
    }
    int i;
    for (i = 0; i < 500 && !is_mounted(c->mnt); i++)
        sleep_ms(10);
    if (!is_mounted(c->mnt)) {
        kill(d, SIGKILL);
        waitpid(d, NULL, 0);
        die("cellfs did not mount %s at %s", c->store, c->mnt);
    }
    pid_t w = fork();
    if (w < 0)
        die("fork: %s", strerror(errno));
    if (w == 0)
        mount_writer(c, sh, pg);
    sleep_ms(ms);
    kill(d, SIGKILL);
    waitpid(d, NULL, 0);
    kill(w, SIGKILL);
    waitpid(w, NULL, 0);
    pid_t u = fork();
    if (u == 0) {
        int fd = open("/dev/null", O_WRONLY);
        if (fd >= 0)
            dup2(fd, 2);
        execlp("fusermount3", "fusermount3", "-u", "-z", c->mnt, (char *)NULL);
        _exit(127);
    }
    waitpid(u, NULL, 0);
}

/* ---- the check ---- */

static int64_t be64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | p[i];
    return (int64_t)v;
}

/* Runs `cellck STORE`; 0 when it exits 0 (its output then discarded),
   else -1 with the start of its output in why. */
static int run_cellck(const config *c, char *why, size_t wlen) {
    int p[2];
    if (pipe(p) != 0)
        die("pipe: %s", strerror(errno));
    pid_t pid = fork();
    if (pid < 0)
        die("fork: %s", strerror(errno));
    if (pid == 0) {
        dup2(p[1], 1);
        dup2(p[1], 2);
        close(p[0]);
        close(p[1]);
        execl(c->cellck, c->cellck, c->store, (char *)NULL);
        _exit(127);
    }
    close(p[1]);
    char out[600];
    size_t got = 0;
    ssize_t n;
    char sink[4096];
    while ((n = read(p[0], got < sizeof out - 1 ? out + got : sink,
                     got < sizeof out - 1 ? sizeof out - 1 - got : sizeof sink)) > 0)
        if (got < sizeof out - 1)
            got += (size_t)n;
    out[got] = '\0';
    close(p[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    snprintf(why, wlen, "cellck %.300s failed (status %d): %.400s", c->store, status, out);
    return -1;
}

/* Checks the store after a cycle; updates pg. Returns NULL or a failure. */
static const char *check(const config *c, shared *sh, progress *pg, char *why, size_t wlen) {
    /* (a writer killed before it made the store leaves none to check) */
    char manifest[PATH_MAX + 16];
    snprintf(manifest, sizeof manifest, "%.*s/MANIFEST", PATH_MAX - 1, c->store);
    struct stat sb;
    if (c->cellck && c->cellck_raw && stat(manifest, &sb) == 0 && run_cellck(c, why, wlen) != 0)
        return why;
    kv_store_options o = KV_STORE_OPTIONS_INIT;
    kv_local_options lo = KV_LOCAL_OPTIONS_INIT;
    lo.lock_wait_ms = 5000;
    o.local = &lo;
    kv_store *s = NULL;
    char err[512];
    kv_status st = kv_store_open(&s, c->store, &o, err, sizeof err);
    if (st == KV_NOT_FOUND) {
        for (int w = 0; w < c->writers; w++)
            if (atomic_load(&sh->acked_seq[w]) >= 0) {
                snprintf(why, wlen, "the store is gone but writes were acknowledged");
                return why;
            }
        return NULL;
    }
    if (st != KV_OK) {
        snprintf(why, wlen, "the store does not open: %s: %s", kv_strerror(st), err);
        return why;
    }
    const char *fail = NULL;
    if (kv_table_exists(s, TABLE) != KV_OK) {
        for (int w = 0; w < c->writers; w++)
            if (atomic_load(&sh->acked_seq[w]) >= 0) {
                snprintf(why, wlen, "table %s is gone but writes were acknowledged", TABLE);
                fail = why;
            }
        kv_store_close(s);
        return fail;
    }
    int64_t seen[MAX_WRITERS], ctr[MAX_WRITERS];
    for (int w = 0; w < MAX_WRITERS; w++)
        seen[w] = -1, ctr[w] = 0;
    bool mount = c->mode == MODE_MOUNT;
    size_t want_cells = c->mode == MODE_API || c->mode == MODE_POWER ? 3 : 1;
    kv_read_options ro = KV_READ_OPTIONS_INIT;
    kv_scan *sc = NULL;
    st = kv_scan_open(&sc, s, TABLE, &ro);
    const kv_result *r;
    while (!fail && st == KV_OK && (st = kv_scan_next(&r, sc)) == KV_OK) {
        char row[64];
        int rl = r->row_len < sizeof row ? (int)r->row_len : (int)sizeof row - 1;
        memcpy(row, r->row, (size_t)rl);
        row[rl] = '\0';
        int w;
        int64_t seq;
        if (sscanf(row, "ctr%d", &w) == 1 && w >= 0 && w < MAX_WRITERS) {
            if (r->ncells != 1) {
                snprintf(why, wlen, "counter row %s has %zu cells", row, r->ncells);
                fail = why;
            } else if (mount) {
                char num[32] = "";
                size_t n = r->cells[0].value_len < 31 ? r->cells[0].value_len : 31;
                memcpy(num, r->cells[0].value, n);
                num[n] = '\0';
                ctr[w] = strtoll(num, NULL, 10);
            } else if (r->cells[0].value_len == 8) {
                ctr[w] = be64(r->cells[0].value);
            } else {
                snprintf(why, wlen, "counter row %s holds %zu bytes", row, r->cells[0].value_len);
                fail = why;
            }
            continue;
        }
        if (sscanf(row, "w%d-%" SCNd64, &w, &seq) != 2 || w < 0 || w >= MAX_WRITERS) {
            snprintf(why, wlen, "unexpected row '%s'", row);
            fail = why;
            break;
        }
        if (seq != seen[w] + 1 && seen[w] + 1 >= 0) {
            snprintf(why, wlen, "writer %d: row seq %" PRId64 " follows %" PRId64
                     " (not a prefix: a write is missing)", w, seq, seen[w]);
            fail = why;
            break;
        }
        seen[w] = seq;
        char val[64];
        int vl = row_value(val, sizeof val, w, seq);
        if (r->ncells != want_cells) {
            snprintf(why, wlen, "row %s is torn: %zu of %zu cells", row, r->ncells, want_cells);
            fail = why;
        }
        for (size_t i = 0; i < r->ncells && !fail; i++)
            if (r->cells[i].value_len != (size_t)vl || memcmp(r->cells[i].value, val, (size_t)vl)) {
                snprintf(why, wlen, "row %s is torn: cell %zu holds '%.*s'", row, i,
                         (int)r->cells[i].value_len, (const char *)r->cells[i].value);
                fail = why;
            }
    }
    if (!fail && st != KV_END) {
        snprintf(why, wlen, "reading the table failed: %s: %s", kv_strerror(st),
                 kv_store_errmsg(s));
        fail = why;
    }
    kv_scan_close(sc);
    for (int w = 0; w < c->writers && !fail; w++) {
        int64_t first = pg->next_seq[w];
        int64_t acked = atomic_load(&sh->acked_seq[w]);
        if (seen[w] < acked) {
            snprintf(why, wlen, "writer %d: acknowledged up to seq %" PRId64 " but only %" PRId64
                     " recovered", w, acked, seen[w]);
            fail = why;
        } else if (seen[w] < first - 1) {
            snprintf(why, wlen, "writer %d: rows went back from %" PRId64 " to %" PRId64, w,
                     first - 1, seen[w]);
            fail = why;
        } else if (ctr[w] < atomic_load(&sh->acked_ctr[w]) || ctr[w] < pg->ctr_seen[w]) {
            snprintf(why, wlen, "writer %d: counter went back: %" PRId64 " (acknowledged %" PRId64
                     ", seen before %" PRId64 ")", w, ctr[w], atomic_load(&sh->acked_ctr[w]),
                     pg->ctr_seen[w]);
            fail = why;
        }
        pg->next_seq[w] = seen[w] + 1;
        pg->ctr_seen[w] = ctr[w];
    }
    st = kv_store_close(s);
    if (!fail && st != KV_OK) {
        snprintf(why, wlen, "closing the store after the check failed: %s", kv_strerror(st));
        fail = why;
    }
    /* After a writer's open (recovery removed what the crash left) the
       checker must find nothing. */
    if (!fail && c->cellck && run_cellck(c, why, wlen) != 0)
        fail = why;
    return fail;
}

static void usage(void) {
    fprintf(stderr,
            "usage: crashtest --mode=api|power|cellsh|mount --dir=DIR [--cycles=N] [--seed=S]\n"
            "                 [--cellsh=PATH] [--cellfs=PATH] [--cellck=PATH [--cellck-raw]]\n"
            "                 [--verbose] [--claim-unsynced]\n");
    exit(2);
}

int main(int argc, char **argv) {
    config c = {.mode = MODE_API, .cycles = 20, .seed = 1, .writers = 1};
    const char *mode = "api";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strncmp(a, "--mode=", 7) == 0)
            mode = a + 7;
        else if (strncmp(a, "--dir=", 6) == 0)
            c.dir = a + 6;
        else if (strncmp(a, "--cycles=", 9) == 0)
            c.cycles = (unsigned)strtoul(a + 9, NULL, 10);
        else if (strncmp(a, "--seed=", 7) == 0)
            c.seed = strtoull(a + 7, NULL, 10);
        else if (strncmp(a, "--cellsh=", 9) == 0)
            c.cellsh = a + 9;
        else if (strncmp(a, "--cellfs=", 9) == 0)
            c.cellfs = a + 9;
        else if (strncmp(a, "--cellck=", 9) == 0)
            c.cellck = a + 9;
        else if (strcmp(a, "--cellck-raw") == 0)
            c.cellck_raw = true;
        else if (strcmp(a, "--verbose") == 0)
            c.verbose = true;
        else if (strcmp(a, "--claim-unsynced") == 0)
            c.claim_all = true;
        else
            usage();
    }
    if (!c.dir)
        usage();
    if (strcmp(mode, "api") == 0)
        c.mode = MODE_API, c.writers = 2;
    else if (strcmp(mode, "power") == 0)
        c.mode = MODE_POWER;
    else if (strcmp(mode, "cellsh") == 0 && c.cellsh)
        c.mode = MODE_CELLSH;
    else if (strcmp(mode, "mount") == 0 && c.cellfs)
        c.mode = MODE_MOUNT;
    else
        usage();
    snprintf(c.store, sizeof c.store, "%s/store", c.dir);
    snprintf(c.mnt, sizeof c.mnt, "%s/mnt", c.dir);
    if (c.mode == MODE_MOUNT && mkdir(c.mnt, 0755) != 0 && errno != EEXIST)
        die("mkdir %s: %s", c.mnt, strerror(errno));
    char *real = realpath(c.mnt, NULL);
    if (real) {
        snprintf(c.mnt, sizeof c.mnt, "%s", real);
        free(real);
    }
    rng_state = c.seed * 0x9E3779B97F4A7C15ULL + 1;
    shared *sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED)
        die("mmap: %s", strerror(errno));
    progress pg;
    memset(&pg, 0, sizeof pg);
    for (int w = 0; w < MAX_WRITERS; w++)
        atomic_store(&sh->acked_seq[w], -1);
    uint64_t total_rows = 0;
    for (unsigned cycle = 1; cycle <= c.cycles; cycle++) {
        /* A fresh store every FRESH_EVERY cycles, so that the check (a
           full scan) stays short in long runs. */
        if (cycle > 1 && (cycle - 1) % FRESH_EVERY == 0) {
            char cmd[PATH_MAX + 32];
            snprintf(cmd, sizeof cmd, "rm -rf '%s'", c.store);
            if (system(cmd) != 0)
                die("cannot remove %s", c.store);
            memset(&pg, 0, sizeof pg);
            for (int w = 0; w < MAX_WRITERS; w++) {
                atomic_store(&sh->acked_seq[w], -1);
                atomic_store(&sh->acked_ctr[w], 0);
            }
        }
        /* Acknowledgements carry over: what was acknowledged before must
           still be there. */
        atomic_store(&sh->started, 0);
        unsigned ms = 5 + (unsigned)(rnd() % 120);
        int64_t before[MAX_WRITERS];
        for (int w = 0; w < MAX_WRITERS; w++)
            before[w] = pg.next_seq[w];
        if (c.mode == MODE_API || c.mode == MODE_POWER) {
            uint64_t seed = rnd();
            int64_t ops = 1 + (int64_t)(rnd() % 300);
            pid_t pid = fork();
            if (pid < 0)
                die("fork: %s", strerror(errno));
            if (pid == 0) {
                if (c.mode == MODE_API)
                    run_api_child(&c, sh, &pg, seed);
                run_power_child(&c, sh, &pg, seed, ops);
            }
            int status = 0;
            if (c.mode == MODE_API) {
                /* Sometimes during the open itself. */
                if (rnd() % 4 != 0)
                    for (int i = 0; i < 2000 && !atomic_load(&sh->started); i++)
                        sleep_ms(1);
                sleep_ms(ms);
                kill(pid, SIGKILL);
                waitpid(pid, &status, 0);
                if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
                    die("cycle %u: the writer failed (exit %d)", cycle, WEXITSTATUS(status));
            } else {
                waitpid(pid, &status, 0);
                if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
                    die("cycle %u: the power-loss writer failed (status %d)", cycle, status);
            }
        } else if (c.mode == MODE_CELLSH) {
            run_cellsh_cycle(&c, sh, &pg, ms * 3);
        } else {
            run_mount_cycle(&c, sh, &pg, ms * 3);
        }
        char why[1024];
        const char *fail = check(&c, sh, &pg, why, sizeof why);
        if (fail) {
            printf("crashtest %s: cycle %u of %u FAILED: %s (store kept in %s)\n", mode, cycle,
                   c.cycles, fail, c.store);
            return 1;
        }
        for (int w = 0; w < c.writers; w++)
            total_rows += (uint64_t)(pg.next_seq[w] - before[w]);
        if (c.verbose)
            printf("cycle %u: rows %" PRId64 "/%" PRId64 ", counters %" PRId64 "/%" PRId64 "\n",
                   cycle, pg.next_seq[0], pg.next_seq[1], pg.ctr_seen[0], pg.ctr_seen[1]);
    }
    printf("crashtest %s: %u cycles, seed %" PRIu64 ", %" PRIu64
           " rows recovered, no acknowledged write lost, no torn row, counters never went back\n",
           mode, c.cycles, c.seed, total_rows);
    return 0;
}
