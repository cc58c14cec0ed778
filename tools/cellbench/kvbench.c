/*
 * kvbench.h: one child per engine (so that VmHWM is per engine), the
 * workloads in the order given, then the report. The children run at the
 * same time but take turns, workload by workload (a token passed round a
 * ring of pipes: kvcore's fillseq, LevelDB's, RocksDB's, then kvcore's
 * next workload), so that a shared machine's load falls on every engine
 * alike. Calls workload.c, child.c, report.c and the engines through
 * engine.h.
 */
#include "kvbench.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "child.h"
#include "kvcore.h"
#include "report.h"
#include "util.h"
#include "workload.h"

/* What an engine's child sends back. */
typedef struct engine_report {
    int setup_failed;
    char err[512];
    size_t nresults;
    workload_result results[BENCH_MAX_WORKLOADS];
    unsigned char preloaded[BENCH_MAX_WORKLOADS];
    uint64_t peak_rss_kib;
} engine_report;

typedef struct engine_job {
    const bench_options *o;
    const engine_ops *ops;
    char dir[PATH_MAX];
    bool progress;
    /* The turn ring: ring[2k] / ring[2k+1] are engine k's pipe (read,
       write). An engine waits on its own pipe, passes the turn to the next
       engine's, and closes every other end. */
    int *ring;
    size_t nring;                 /* engines in the ring */
    size_t self;
    int turn_in, turn_out;        /* -1: no more turns to wait for / pass */
} engine_job;

/* Waits for this engine's turn. End of file (the engine before it ended)
   means no more waiting: the run goes on untimed by turns. */
static void wait_turn(engine_job *job) {
    char c;
    while (job->turn_in >= 0) {
        ssize_t n = read(job->turn_in, &c, 1);
        if (n == 1)
            return;
        if (n < 0 && errno == EINTR)
            continue;
        close(job->turn_in);
        job->turn_in = -1;
    }
}

/* CPU seconds of this process, every thread's. */
static double cpu_seconds(void) {
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0;
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
           ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) / 1e6;
}

/* Before it gives up its turn, an engine waits (untimed) until its
   background flushes and compactions have settled: under 5 ms of CPU in
   100 ms, for at most 30 s. Else they would run in the next engine's
   timed turn. */
static void settle(void) {
    double before = cpu_seconds();
    for (int i = 0; i < 300; i++) {
        struct timespec ts = {0, 100 * 1000 * 1000};
        nanosleep(&ts, NULL);
        double now = cpu_seconds();
        if (now - before < 0.005)
            return;
        before = now;
    }
}

/* Gives the turn to the next engine once this one has settled (the next
   may have ended: EPIPE, with SIGPIPE ignored in the child, is no error
   here). */
static void pass_turn(engine_job *job) {
    if (job->nring > 1)
        settle();
    if (job->turn_out >= 0 && child_write_all(job->turn_out, "t", 1) != 0) {
        close(job->turn_out);
        job->turn_out = -1;
    }
}

static int reopen_empty(engine *e, const engine_job *job, bool *open) {
    if (*open && e->ops->close(e) != 0)
        return -1;
    *open = false;
    if (bench_rmtree(job->dir) != 0) {
        bench_fmt(e->err, sizeof e->err, "cannot empty %s: %s", job->dir, strerror(errno));
        return -1;
    }
    if (e->ops->open(e, job->dir, &job->o->engine) != 0)
        return -1;
    *open = true;
    return 0;
}

/* Runs the workloads, each in this engine's turn; the first turn also
   opens the database, the last closes it. */
static void run_engine(engine_job *job, engine_report *rep, value_pool *pool) {
    const bench_options *o = job->o;
    engine e = {job->ops, NULL, ""};
    bool open = false, loaded = false;
    wait_turn(job);
    int setup;
    if (o->use_existing_db) {
        /* --use-existing-db: the reads run on what an earlier run left */
        setup = e.ops->open(&e, job->dir, &o->engine);
        open = loaded = setup == 0;
    } else {
        setup = reopen_empty(&e, job, &open);
    }
    if (setup != 0) {
        rep->setup_failed = 1;
        bench_fmt(rep->err, sizeof rep->err, "%s", e.err);
        pass_turn(job);
        return;
    }
    for (size_t i = 0; i < o->nworkloads; i++) {
        if (i > 0) {
            pass_turn(job);
            wait_turn(job);
        }
        workload_id w = o->workloads[i];
        workload_result *r = &rep->results[i];
        rep->nresults = i + 1;
        if (job->progress)
            fprintf(stderr, "cellbench: %-8s %-11s ...\r", job->ops->name, workload_name(w));
        int rc = 0;
        bool empty_first = !workload_needs_data(w);
        if (empty_first && reopen_empty(&e, job, &open) != 0)
            rc = -1;
        if (empty_first)
            loaded = false;
        if (rc == 0 && workload_needs_data(w) && !loaded) {
            /* db_bench would read an empty database here; load one with
               fillseq, untimed, so that the figure means something. */
            workload_result pre;
            rc = workload_run(&e, WL_FILLSEQ, &o->wl, pool, &pre);
            rep->preloaded[i] = 1;
            loaded = true;
        }
        if (rc == 0) {
            rc = workload_run(&e, w, &o->wl, pool, r);
        } else {
            r->failed = 1;
            bench_fmt(r->err, sizeof r->err, "%s", e.err);
        }
        /* Bytes on disk once the workload's flushes and compactions have
           settled, as pass_turn would wait anyway: measured at once, they
           would catch a compaction's inputs and output both on disk, and
           vary with its timing. */
        if (rc == 0)
            settle();
        r->disk_bytes = bench_dir_bytes(job->dir);
        if (rc != 0)
            break;
        /* the HBase-shaped workloads leave only their cells */
        if (workload_writes(w) && !empty_first)
            loaded = true;
        else if (workload_is_fresh_fill(w))
            loaded = true;
    }
    if (open && e.ops->close(&e) != 0 && rep->nresults > 0) {
        workload_result *last = &rep->results[rep->nresults - 1];
        if (!last->failed) {
            last->failed = 1;
            bench_fmt(last->err, sizeof last->err, "at close: %s", e.err);
        }
    }
    if (job->progress)
        fprintf(stderr, "%60s\r", "");
    pass_turn(job);
}

static int engine_child(void *ctx, int fd) {
    engine_job *job = ctx;
    /* keep only this engine's ends of the ring */
    signal(SIGPIPE, SIG_IGN);
    size_t next = (job->self + 1) % job->nring;
    job->turn_in = job->ring[2 * job->self];
    job->turn_out = job->ring[2 * next + 1];
    for (size_t i = 0; i < 2 * job->nring; i++)
        if (job->ring[i] != job->turn_in && job->ring[i] != job->turn_out)
            close(job->ring[i]);
    engine_report *rep = calloc(1, sizeof *rep);
    if (rep == NULL)
        return 1;
    value_pool pool;
    if (value_pool_init(&pool, job->o->wl.value_size, job->o->wl.seed, job->o->wl.compressible) !=
        0) {
        rep->setup_failed = 1;
        bench_fmt(rep->err, sizeof rep->err, "out of memory");
    } else {
        run_engine(job, rep, &pool);
        value_pool_free(&pool);
    }
    rep->peak_rss_kib = bench_peak_rss_kib();
    int rc = child_write_all(fd, rep, sizeof *rep);
    free(rep);
    return rc == 0 ? 0 : 1;
}

static void print_header(const bench_options *o, const char *base, bool temp) {
    char wb[32], cache[32], block[64];
    bench_format_size(wb, sizeof wb, o->engine.write_buffer_size);
    bench_format_size(cache, sizeof cache, o->engine.cache_size);
    if (o->engine.block_size == 0)
        bench_fmt(block, sizeof block, "each engine's default (kvcore 64 KiB, others 4 KiB)");
    else
        bench_format_size(block, sizeof block, o->engine.block_size);
    printf("cellbench %s:", KVCORE_VERSION);
    for (size_t i = 0; i < o->nengines; i++) {
        char v[64];
        o->engines[i]->version(v, sizeof v);
        printf("%s %s %s", i ? "," : "", o->engines[i]->name, v);
    }
    printf("\n");
    printf("Keys:         %zu bytes each\n", o->wl.key_size);
    static const char *const comp[] = {"off in every engine",
                                       "LZ4 (LevelDB: Snappy, it has no LZ4)", "Snappy"};
    printf("Values:       %zu bytes each (%s; compression %s)\n", o->wl.value_size,
           o->wl.compressible ? "half compressible, as db_bench's" : "random printable bytes",
           comp[o->engine.compression]);
    printf("Entries:      %" PRIu64 "; reads: %" PRIu64 "; seekrandom reads %" PRIu64
           " entries per seek\n",
           o->wl.num, o->wl.reads, o->wl.seek_nexts);
    printf("Write buffer: %s   Block cache: %s   Bloom filter: ", wb, cache);
    if (o->engine.bloom_bits > 0)
        printf("%" PRIu32 " bits/key (kvcore: ROW)\n", o->engine.bloom_bits);
    else
        printf("none\n");
    printf("Block size:   %s\n", block);
    static const char *const enc[] = {"NONE (HBase's default: whole keys)", "PREFIX", "DIFF"};
    printf("Key encoding: kvcore DATA_BLOCK_ENCODING %s; LevelDB, RocksDB: shared prefixes\n",
           enc[o->engine.encoding]);
    printf("WAL:          on, not synced (kvcore: default durability; LevelDB, RocksDB: default "
           "write options, sync=false)\n");
    printf("Database:     %s%s\n", base, temp ? " (temporary, removed at exit)" : "");
    printf("Each engine runs in a process of its own; peak-rss is that process's VmHWM.\n");
    printf("Columns: rate, mean, MB/s of key+value bytes, latency percentiles (us) of one\n"
           "operation, bytes of the database's files after the workload, ratios of rates.\n");
    printf("------------------------------------------------------------------------------\n");
    fflush(stdout);
}

static void note_for(char *buf, size_t len, workload_id w, const workload_result *r,
                     const bench_options *o, bool preloaded) {
    buf[0] = '\0';
    if (w == WL_READRANDOM)
        bench_fmt(buf, len, "(%" PRIu64 " of %" PRIu64 " found)", r->found, r->ops);
    else if (w == WL_READSEQ || w == WL_SEEKRANDOM)
        bench_fmt(buf, len, "(%" PRIu64 " entries)", r->found);
    else if (w == WL_VERSIONS || w == WL_TIMERANGE)
        bench_fmt(buf, len, "(%" PRIu64 " of %" PRIu64 " found; 10 versions a column)", r->found,
                  r->ops);
    else if (w == WL_SMALLCELL)
        bench_fmt(buf, len, "(%" PRIu64 " of %" PRIu64 " found; beside a 64 KiB cell)", r->found,
                  r->ops);
    else if (w == WL_WIDEROW)
        bench_fmt(buf, len, "(ops are cells of one row)");
    else if (w == WL_CHECKANDMUTATE)
        bench_fmt(buf, len, "(%" PRIu64 " of %" PRIu64 " applied)", r->found, r->ops);
    else if (w == WL_READWRITE90)
        bench_fmt(buf, len, "(2 threads; %" PRIu64 " gets found)", r->found);
    if (preloaded) {
        size_t n = strlen(buf);
        bench_fmt(buf + n, len - n, "%s(after an untimed fillseq of %" PRIu64 ")", n ? " " : "",
                 o->wl.num);
    }
}

static void print_results(const bench_options *o, engine_report *const *reps,
                          const child_outcome *outs) {
    bool disagree = false;
    for (size_t i = 0; i < o->nworkloads; i++) {
        workload_id w = o->workloads[i];
        uint64_t found0 = 0;
        bool have_found = false;
        for (size_t k = 0; k < o->nengines; k++) {
            const engine_report *rep = reps[k];
            const char *name = o->engines[k]->name;
            if (outs[k].received != sizeof *rep) {
                char msg[64];
                bench_fmt(msg, sizeof msg, "the engine's process ended with status %d",
                         outs[k].exit_status);
                report_failed(stdout, workload_name(w), name, msg);
                continue;
            }
            if (rep->setup_failed) {
                report_failed(stdout, workload_name(w), name, rep->err);
                continue;
            }
            if (i >= rep->nresults) {
                report_failed(stdout, workload_name(w), name, "not run after an earlier failure");
                continue;
            }
            const workload_result *r = &rep->results[i];
            if (r->failed) {
                report_failed(stdout, workload_name(w), name, r->err);
                continue;
            }
            report_peer peers[BENCH_MAX_ENGINES];
            size_t np = 0;
            for (size_t j = 0; j < o->nengines; j++) {
                if (j == k)
                    continue;
                const engine_report *other = reps[j];
                bool ok = outs[j].received == sizeof *other && !other->setup_failed &&
                          i < other->nresults && !other->results[i].failed;
                double rate = 0;
                if (ok) {
                    double s = other->results[i].seconds > 1e-9 ? other->results[i].seconds : 1e-9;
                    rate = (double)other->results[i].ops / s;
                }
                peers[np++] = (report_peer){o->engines[j]->name, rate};
            }
            char note[160], detail[160];
            note_for(note, sizeof note, w, r, o, rep->preloaded[i] != 0);
            double secs = r->seconds > 1e-9 ? r->seconds : 1e-9;
            double disk = (double)r->disk_bytes / 1048576.0;
            if (r->timed_ops)
                bench_fmt(detail, sizeof detail,
                          "%8.1f MB/s  p50 %7.1f p99 %7.1f p99.9 %8.1f us  disk %7.1f MiB",
                          (double)r->bytes / secs / 1e6, r->p50_us, r->p99_us, r->p999_us, disk);
            else
                bench_fmt(detail, sizeof detail, "%8.1f MB/s  (one scan: no percentiles)  disk %7.1f MiB",
                          (double)r->bytes / secs / 1e6, disk);
            report_rate_detail(stdout, workload_name(w), name, (double)r->ops, r->seconds, detail,
                               peers, np, note);
            if (w == WL_READRANDOM || w == WL_READSEQ || w == WL_SEEKRANDOM) {
                if (have_found && r->found != found0)
                    disagree = true;
                found0 = r->found;
                have_found = true;
            }
        }
    }
    for (size_t k = 0; k < o->nengines; k++) {
        if (outs[k].received != sizeof *reps[k])
            continue;
        report_peer peers[BENCH_MAX_ENGINES];
        size_t np = 0;
        for (size_t j = 0; j < o->nengines; j++)
            if (j != k)
                peers[np++] = (report_peer){
                    o->engines[j]->name,
                    outs[j].received == sizeof *reps[j] ? (double)reps[j]->peak_rss_kib : 0};
        report_rss(stdout, o->engines[k]->name, reps[k]->peak_rss_kib, peers, np);
    }
    if (disagree)
        printf("WARNING: the engines read different numbers of entries (see the notes): "
               "one of them lost or invented data\n");
}

int kvbench_run(const bench_options *o, const sigset_t *saved) {
    char base[PATH_MAX];
    bool temp = o->db_dir == NULL;
    if (bench_workdir(base, sizeof base, o->db_dir, "cellbench") != 0)
        return 1;
    print_header(o, base, temp);

    engine_report *reps[BENCH_MAX_ENGINES] = {NULL};
    child_outcome outs[BENCH_MAX_ENGINES];
    child_proc procs[BENCH_MAX_ENGINES];
    memset(outs, 0, sizeof outs);
    int status = 0;
    /* the turn ring (see the top of the file) */
    int ring[2 * BENCH_MAX_ENGINES];
    size_t nring = 0, started = 0;
    for (; nring < o->nengines; nring++) {
        if (pipe(&ring[2 * nring]) != 0) {
            fprintf(stderr, "cellbench: pipe: %s\n", strerror(errno));
            status = 1;
            break;
        }
    }
    for (size_t k = 0; k < o->nengines && status == 0; k++) {
        reps[k] = calloc(1, sizeof *reps[k]);
        if (reps[k] == NULL) {
            fprintf(stderr, "cellbench: out of memory\n");
            status = 1;
            break;
        }
        engine_job job = {o, o->engines[k], "", isatty(STDERR_FILENO) != 0, ring, nring, k, -1, -1};
        bench_fmt(job.dir, sizeof job.dir, "%s/%s", base, o->engines[k]->name);
        if (child_start(&procs[k], saved, engine_child, &job) != 0)
            status = 1;
        else
            started++;
    }
    /* the first turn is the first engine's; then only the children hold
       ends of the ring, so an engine that ends frees the next one */
    if (status == 0 && child_write_all(ring[1], "t", 1) != 0)
        status = 1;
    for (size_t i = 0; i < 2 * nring; i++)
        close(ring[i]);
    for (size_t k = 0; k < started; k++) {
        if (status != 0)
            child_kill(&procs[k]);
        child_finish(&procs[k], &outs[k], reps[k], sizeof *reps[k]);
        if (outs[k].interrupted)
            status = 130;
    }
    if (status == 0) {
        print_results(o, reps, outs);
        for (size_t k = 0; k < o->nengines; k++) {
            const engine_report *rep = reps[k];
            bool ok = outs[k].received == sizeof *rep && !rep->setup_failed &&
                      rep->nresults == o->nworkloads &&
                      !rep->results[rep->nresults - 1].failed;
            if (!ok)
                status = 1;
        }
    } else if (status == 130) {
        fprintf(stderr, "cellbench: interrupted\n");
    }
    for (size_t k = 0; k < o->nengines; k++)
        free(reps[k]);
    if (temp && bench_rmtree(base) != 0) {
        fprintf(stderr, "cellbench: could not remove %s\n", base);
        if (status == 0)
            status = 1;
    }
    return status;
}
