/**
 * @file negative.c
 * Negative entries: a LOOKUP that finds nothing tells the kernel how long
 * it may keep the name's absence (ino 0, an entry timeout), so rsync's
 * lstat, mkdir and rename of one absent name cost one LOOKUP, not three.
 *
 * The kernel drops a negative entry when a call on that very name makes
 * it (CREATE, MKDIR, RENAME onto it). A name can also appear with no call
 * on it: `q` when `q@<ts>` is written, re-stamped or renamed onto, the
 * families of rows when a .schema write adds one, anything below a row a
 * rename moved. fuse_lowlevel_notify_inval_entry cannot drop those: the
 * RENAME and CREATE that make `q` appear hold q's directory's lock, which
 * that notification takes (deadlock). The kernel's entry epoch can
 * (FUSE_NOTIFY_INC_EPOCH, kernel 6.16): raising it takes no lock and makes
 * every entry the kernel holds, negative or not, be looked up again, and
 * a LOOKUP the kernel sent before the raise yields an entry that is
 * already stale. So the epoch is raised, before the call that made a name
 * appear returns, exactly when a negative entry of that name may be out:
 *
 *  - a lookup counts its name in a small table (by a hash of its path; a
 *    family's by its row's) BEFORE it reads the store, and takes the count back unless it
 *    replied with a negative entry;
 *  - a change that can make a name appear with no call on it checks that
 *    count (or, for .schema changes and row moves, whether any is out)
 *    AFTER the store has the change, and raises the epoch when it is not
 *    zero, which also zeroes the table.
 * A lookup that read the store before the change and replies after it
 * was counted before the check: the raise makes its reply stale. A hash
 * collision costs one needless raise, never a wrong answer.
 *
 * A young row's families (pending.c) appear when it stops being young,
 * inside a MKDIR of another row: none of them gets a negative entry while
 * the row is young, and the aging checks the row's count
 * (fs_negative_row_aged) for a lookup that read before it and checked
 * the row's youth after. Which names get negative entries at all
 * (cache_time.c, fs_cache_negative_seconds) leaves out the rest: q@<ts> names (every write of q makes
 * one), as-of views, table-level names, -s, and stores others write
 * unless -o timeout asks for it (a name made elsewhere then shows once
 * that timeout has passed).
 * libfuse 3.14 has no call for the epoch: the 16-byte notification is
 * written to the session's device. A kernel whose protocol (its INIT) is
 * older than 7.44 lacks it: then no negative entry is ever handed out.
 * All under neg.mu; called by lowlevel.c (lookup, INIT) and cells.c
 * (notifications).
 */
#include "fs.h"
#include "names.h"

#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

/* The FUSE protocol's notification header (linux/fuse.h,
   fuse_out_header with unique 0 and the code in error). */
#define FS_NOTIFY_INC_EPOCH 8
#define FS_EPOCH_MAJOR 7              /* the protocol version that has it */
#define FS_EPOCH_MINOR 44
typedef struct fs_notify_header {
    uint32_t len;
    int32_t error;
    uint64_t unique;
} fs_notify_header;

/* The slot of @p path: of its own, or for a family ("/ns/table/row/family")
   its row's, which is what a young row's aging names (fs_negative_row_aged). */
static size_t slot_of(const char *path)
{
    size_t len = strlen(path), slashes = 0;
    const char *last = NULL;
    for (const char *c = path; *c; c++)
        if (*c == '/') {
            slashes++;
            last = c;
        }
    if (slashes == 4) len = (size_t)(last - path);
    return (size_t)(fs_name_hash((const uint8_t *)path, len) % FS_NEG_SLOTS);
}

/* Raises the kernel's entry epoch; false when the kernel refused it. */
static bool raise_epoch(cellfs *fs)
{
    fs_notify_header h = { sizeof h, FS_NOTIFY_INC_EPOCH, 0 };
    ssize_t n = write(fuse_session_fd(fs->se), &h, sizeof h);
    return n == (ssize_t)sizeof h;
}

/* With neg.mu held: raises the epoch, and every negative entry is gone. */
static void drop_all(cellfs *fs)
{
    if (!raise_epoch(fs)) {
        /* Cannot happen once a raise worked; stop handing any out. */
        fs_log(fs, "cannot raise the kernel's entry epoch: %s", strerror(errno));
        fs->neg.on = false;
    }
    memset(fs->neg.count, 0, sizeof fs->neg.count);
    fs->neg.total = 0;
    fs->neg.gen++;
}

void fs_negative_init(cellfs *fs, unsigned proto_major, unsigned proto_minor)
{
    pthread_mutex_lock(&fs->neg.mu);
    fs->neg.on = proto_major == FS_EPOCH_MAJOR && proto_minor >= FS_EPOCH_MINOR;
    pthread_mutex_unlock(&fs->neg.mu);
}

bool fs_negative_begin(cellfs *fs, const char *path, fs_negative_ticket *t)
{
    if ((!fs->cache_long && !fs->timeout_given) || !fs->se || fs->single_thread) return false;
    t->slot = slot_of(path);
    pthread_mutex_lock(&fs->neg.mu);
    bool on = fs->neg.on;
    if (on) {
        fs->neg.count[t->slot]++;
        fs->neg.total++;
    }
    t->gen = fs->neg.gen;
    pthread_mutex_unlock(&fs->neg.mu);
    return on;
}

void fs_negative_end(cellfs *fs, const fs_negative_ticket *t, bool handed_out)
{
    if (handed_out) return;                        /* counted until the next raise */
    pthread_mutex_lock(&fs->neg.mu);
    if (t->gen == fs->neg.gen) {                   /* a raise meanwhile zeroed it */
        fs->neg.count[t->slot]--;
        fs->neg.total--;
    }
    pthread_mutex_unlock(&fs->neg.mu);
}

void fs_negative_appeared(cellfs *fs, const char *path)
{
    if (!fs->se || fs->single_thread || !path) return;
    pthread_mutex_lock(&fs->neg.mu);
    if (fs->neg.on && fs->neg.count[slot_of(path)] > 0) drop_all(fs);
    pthread_mutex_unlock(&fs->neg.mu);
}

void fs_negative_appeared_any(cellfs *fs)
{
    if (!fs->se || fs->single_thread) return;
    pthread_mutex_lock(&fs->neg.mu);
    if (fs->neg.on && fs->neg.total > 0) drop_all(fs);
    pthread_mutex_unlock(&fs->neg.mu);
}

void fs_negative_row_aged(cellfs *fs, const char *table, const uint8_t *row, size_t len)
{
    if (!fs->se || fs->single_thread || !fs->neg.on) return;
    char name[FS_NAME_MAX + 1];
    if (fs_name_encode(name, row, len) == 0) {
        fs_negative_appeared_any(fs);            /* out of memory: whatever it was */
        return;
    }
    const char *colon = strchr(table, ':');
    char path[2 * KV_NAME_MAX + FS_NAME_MAX + 16];
    if (colon)
        snprintf(path, sizeof path, "/%.*s/%s/%s", (int)(colon - table), table, colon + 1, name);
    else
        snprintf(path, sizeof path, "/default/%s/%s", table, name);
    fs_negative_appeared(fs, path);
}
