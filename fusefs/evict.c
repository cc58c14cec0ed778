/**
 * @file evict.c
 * The node table's cap (-o max_nodes, nodes.h): a thread of the mount's
 * own that, while the table holds more nodes than the cap, asks the kernel
 * to forget the least recently used names
 * (fuse_lowlevel_notify_inval_entry); the kernel drops each name it does
 * not use, then its inode, and sends FORGET, which frees the node. Names
 * of files open through this mount are left alone. Never notified from a
 * request handler: the kernel may hold the directory's lock while it
 * waits for that handler's reply, and the notification waits for the same
 * lock. Calls nodes.h, handles.c and libfuse.
 */
#include "ops.h"
#include "open_file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* How often the thread looks at the count: every 20 ms from half the cap
   on (a walk makes some 30,000 names a second at most here, so the count
   stays near the cap), twice a second below (an idle mount wakes the
   thread little); and how many names it asks for at once before looking
   again. */
#define EVICT_PERIOD_MS 20
#define EVICT_IDLE_PERIOD_MS 500
#define EVICT_BATCH 512

struct fs_evictor {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t wake;         /* CLOCK_MONOTONIC */
    bool stop;
};

/* Whether a file open through the mount is node @p ino. */
static bool open_here(cellfs *fs, fs_ino ino)
{
    fs_handle *h = fs_handles_ref_ino(fs, ino);
    if (h) fs_handles_unref(fs, h);
    return h != NULL;
}

/* One batch: whether it was full (more may be beyond the cap). A name of
   an open file is skipped, and counts as asked for until used again:
   fs_nodes_victims comes back to it only after every other. */
static bool evict_batch(cellfs *fs, fs_nodes_victim *v)
{
    size_t n = fs_nodes_victims(&fs->nodes, v, EVICT_BATCH);
    for (size_t i = 0; i < n; i++) {
        if (open_here(fs, v[i].ino)) continue;
        /* ENOENT: the kernel dropped the name already (its FORGET is on
           the way); other errors: the mount is going. */
        (void)fuse_lowlevel_notify_inval_entry(fs->se, v[i].parent, v[i].name,
                                               strlen(v[i].name));
    }
    fs_nodes_victims_free(v, n);
    return n == EVICT_BATCH;
}

static void *evict_main(void *arg)
{
    cellfs *fs = arg;
    fs_evictor *e = fs->evictor;
    fs_nodes_victim *v = malloc(EVICT_BATCH * sizeof *v);
    if (!v) {
        fs_log(fs, "max_nodes: no memory for the evicting thread; the node table is not capped");
        return NULL;
    }
    pthread_mutex_lock(&e->mu);
    while (!e->stop) {
        pthread_mutex_unlock(&e->mu);
        bool full = evict_batch(fs, v);
        long ms = fs_nodes_count(&fs->nodes) >= fs->max_nodes / 2 ? EVICT_PERIOD_MS
                                                                   : EVICT_IDLE_PERIOD_MS;
        pthread_mutex_lock(&e->mu);
        if (full) continue;      /* more beyond the cap: at once */
        struct timespec at = fs_deadline_in(ms);
        if (!e->stop) (void)pthread_cond_timedwait(&e->wake, &e->mu, &at);
    }
    pthread_mutex_unlock(&e->mu);
    free(v);
    return NULL;
}

int fs_evict_start(cellfs *fs)
{
    if (!fs->max_nodes || fs->evictor) return 0;
    fs_evictor *e = calloc(1, sizeof *e);
    if (!e) return -ENOMEM;
    pthread_mutex_init(&e->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&e->wake, &ca);
    pthread_condattr_destroy(&ca);
    fs->evictor = e;
    fs_nodes_set_max(&fs->nodes, fs->max_nodes);
    int rc = pthread_create(&e->thread, NULL, evict_main, fs);
    if (rc != 0) {
        fs_nodes_set_max(&fs->nodes, 0);
        fs->evictor = NULL;
        pthread_cond_destroy(&e->wake);
        pthread_mutex_destroy(&e->mu);
        free(e);
        return -rc;
    }
    return 0;
}

void fs_evict_stop(cellfs *fs)
{
    fs_evictor *e = fs->evictor;
    if (!e) return;
    pthread_mutex_lock(&e->mu);
    e->stop = true;
    pthread_cond_signal(&e->wake);
    pthread_mutex_unlock(&e->mu);
    pthread_join(e->thread, NULL);
    fs->evictor = NULL;
    pthread_cond_destroy(&e->wake);
    pthread_mutex_destroy(&e->mu);
    free(e);
}
