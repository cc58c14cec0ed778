/**
 * @file env_fault.c
 * A kv_env that wraps another env for tests: it counts calls by operation,
 * fails the n-th next call of a chosen operation with KV_IO, runs out of
 * space after a byte budget (cutting the crossing write, as a real full
 * disk does), and simulates power loss by truncating every file it wrote
 * back to its size at the last sync. Called by unit tests and by the store
 * when a test hands it this env; calls the wrapped env only, so the
 * truncation of drop_unsynced is a rewrite of the synced prefix.
 */
#include "env.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Operation names, as used by fail_nth and kv_fault_env_calls. */
enum {
    OP_OPEN_READ, OP_OPEN_APPEND, OP_READ_AT, OP_APPEND, OP_SYNC, OP_SIZE, OP_CLOSE,
    OP_RENAME, OP_REMOVE, OP_SYNC_DIR, OP_MKDIR, OP_LIST, OP_LOCK, OP_UNLOCK, OP_FS_SPACE,
    OP_COUNT
};
static const char *const op_names[OP_COUNT] = {
    "open_read", "open_append", "read_at", "append", "sync", "size", "close",
    "rename", "remove", "sync_dir", "mkdir", "list", "lock", "unlock", "fs_space",
};

/* What power loss keeps of one file written through this env. */
typedef struct tracked {
    struct tracked *next;
    char *path;          /* follows renames; guarded by mu */
    uint64_t synced;     /* bytes durable at the last sync; guarded by mu */
    int open_handles;    /* guarded by mu; the entry outlives removal while open */
    bool removed;        /* guarded by mu */
} tracked;

struct kv_fault_env {
    kv_env env;          /* first member: kv_env * and kv_fault_env * convert */
    kv_env *base;
    pthread_mutex_t mu;  /* guards every field below */
    int64_t space;       /* bytes that may still be appended; < 0 unlimited */
    char fail_op[32];    /* substring of the operation to fail */
    int fail_n;          /* fail the fail_n-th matching call; 0 = off */
    uint64_t calls[OP_COUNT];
    tracked *files;
};

/* A file opened through this env (kv_file is opaque; pointers are cast). */
typedef struct fault_file {
    kv_fault_env *fe;
    kv_file *base;
    tracked *track;      /* NULL for files opened for reading and locks */
    char *path;          /* for messages */
} fault_file;

static fault_file *ff(kv_file *f) { return (fault_file *)(void *)f; }
static kv_fault_env *fenv(kv_env *e) { return (kv_fault_env *)(void *)e; }


/* Counts a call of op and tells whether the armed fault fires on it. */
static bool enter(kv_fault_env *fe, int op) {
    bool fail = false;
    pthread_mutex_lock(&fe->mu);
    fe->calls[op]++;
    if (fe->fail_n > 0 && strstr(op_names[op], fe->fail_op)) {
        if (--fe->fail_n == 0)
            fail = true;
    }
    pthread_mutex_unlock(&fe->mu);
    return fail;
}

static kv_status injected(int op, const char *path, char *err, size_t errlen) {
    kv_env_errf(err, errlen, "%s %s: injected I/O error", op_names[op], path ? path : "(null)");
    return KV_IO;
}

/* Finds the live entry of path, or NULL. Caller holds mu. */
static tracked *find_track(kv_fault_env *fe, const char *path) {
    for (tracked *t = fe->files; t; t = t->next)
        if (!t->removed && strcmp(t->path, path) == 0)
            return t;
    return NULL;
}

/* Frees removed entries that no handle uses any more. Caller holds mu. */
static void prune_tracks(kv_fault_env *fe) {
    tracked **pp = &fe->files;
    while (*pp) {
        tracked *t = *pp;
        if (t->removed && t->open_handles == 0) {
            *pp = t->next;
            free(t->path);
            free(t);
        } else {
            pp = &t->next;
        }
    }
}

static kv_status wrap(kv_fault_env *fe, kv_file *base, tracked *t, const char *path,
                      kv_file **out, char *err, size_t errlen) {
    fault_file *f = malloc(sizeof *f);
    char *p = strdup(path);
    if (!f || !p) {
        free(f);
        free(p);
        fe->base->close(base, NULL, 0);
        kv_env_errf(err, errlen, "open %s: out of memory", path);
        return KV_NO_MEMORY;
    }
    f->fe = fe;
    f->base = base;
    f->track = t;
    f->path = p;
    *out = (kv_file *)(void *)f;
    return KV_OK;
}

static kv_status ft_open_read(kv_env *env, const char *path, kv_file **out, char *err,
                              size_t errlen) {
    kv_fault_env *fe = fenv(env);
    if (!out || !path) {
        kv_env_errf(err, errlen, "open_read: invalid argument");
        return KV_INVALID;
    }
    *out = NULL;
    if (enter(fe, OP_OPEN_READ))
        return injected(OP_OPEN_READ, path, err, errlen);
    kv_file *b = NULL;
    kv_status st = fe->base->open_read(fe->base, path, &b, err, errlen);
    if (st != KV_OK)
        return st;
    return wrap(fe, b, NULL, path, out, err, errlen);
}

static kv_status ft_open_append(kv_env *env, const char *path, bool truncate, kv_file **out,
                                char *err, size_t errlen) {
    kv_fault_env *fe = fenv(env);
    if (!out || !path) {
        kv_env_errf(err, errlen, "open_append: invalid argument");
        return KV_INVALID;
    }
    *out = NULL;
    if (enter(fe, OP_OPEN_APPEND))
        return injected(OP_OPEN_APPEND, path, err, errlen);
    kv_file *b = NULL;
    kv_status st = fe->base->open_append(fe->base, path, truncate, &b, err, errlen);
    if (st != KV_OK)
        return st;
    /* A file first seen here is durable up to its current size (it existed
       before we watched it); a truncated one up to nothing. */
    uint64_t size = 0;
    if (!truncate && fe->base->size(b, &size, err, errlen) != KV_OK) {
        fe->base->close(b, NULL, 0);
        return KV_IO;
    }
    pthread_mutex_lock(&fe->mu);
    tracked *t = find_track(fe, path);
    if (!t) {
        t = calloc(1, sizeof *t);
        char *p = strdup(path);
        if (!t || !p) {
            free(t);
            free(p);
            pthread_mutex_unlock(&fe->mu);
            fe->base->close(b, NULL, 0);
            kv_env_errf(err, errlen, "open %s: out of memory", path);
            return KV_NO_MEMORY;
        }
        t->path = p;
        t->synced = size;
        t->next = fe->files;
        fe->files = t;
    } else if (truncate) {
        t->synced = 0;
    }
    t->open_handles++;
    pthread_mutex_unlock(&fe->mu);
    st = wrap(fe, b, t, path, out, err, errlen);
    if (st != KV_OK) {
        pthread_mutex_lock(&fe->mu);
        t->open_handles--;
        pthread_mutex_unlock(&fe->mu);
    }
    return st;
}

static kv_status ft_read_at(kv_file *file, uint64_t offset, void *buf, size_t n, size_t *got,
                            char *err, size_t errlen) {
    fault_file *f = ff(file);
    if (!f || !got) {
        kv_env_errf(err, errlen, "read_at: invalid argument");
        return KV_INVALID;
    }
    *got = 0;
    if (enter(f->fe, OP_READ_AT))
        return injected(OP_READ_AT, f->path, err, errlen);
    return f->fe->base->read_at(f->base, offset, buf, n, got, err, errlen);
}

static kv_status ft_append(kv_file *file, const void *buf, size_t n, char *err, size_t errlen) {
    fault_file *f = ff(file);
    if (!f || (!buf && n)) {
        kv_env_errf(err, errlen, "append: invalid argument");
        return KV_INVALID;
    }
    kv_fault_env *fe = f->fe;
    if (enter(fe, OP_APPEND))
        return injected(OP_APPEND, f->path, err, errlen);
    /* Take the bytes from the budget before writing, so that concurrent
       appends never together exceed it. */
    size_t allowed = n;
    pthread_mutex_lock(&fe->mu);
    if (fe->space >= 0) {
        if ((uint64_t)fe->space < n)
            allowed = (size_t)fe->space;
        fe->space -= (int64_t)allowed;
    }
    pthread_mutex_unlock(&fe->mu);
    if (allowed > 0) {
        kv_status st = fe->base->append(f->base, buf, allowed, err, errlen);
        if (st != KV_OK)
            return st;
    }
    if (allowed < n) {
        kv_env_errf(err, errlen, "write %s: No space left on device (injected after %zu of %zu bytes)",
                f->path, allowed, n);
        return KV_NO_SPACE;
    }
    return KV_OK;
}

static kv_status ft_sync(kv_file *file, char *err, size_t errlen) {
    fault_file *f = ff(file);
    if (!f) {
        kv_env_errf(err, errlen, "sync: invalid argument");
        return KV_INVALID;
    }
    kv_fault_env *fe = f->fe;
    if (enter(fe, OP_SYNC))
        return injected(OP_SYNC, f->path, err, errlen);
    /* The size read before the sync is all covered by it. */
    uint64_t size = 0;
    kv_status st = fe->base->size(f->base, &size, err, errlen);
    if (st == KV_OK)
        st = fe->base->sync(f->base, err, errlen);
    if (st == KV_OK && f->track) {
        pthread_mutex_lock(&fe->mu);
        if (size > f->track->synced)
            f->track->synced = size;
        pthread_mutex_unlock(&fe->mu);
    }
    return st;
}

static kv_status ft_size(kv_file *file, uint64_t *out, char *err, size_t errlen) {
    fault_file *f = ff(file);
    if (!f || !out) {
        kv_env_errf(err, errlen, "size: invalid argument");
        return KV_INVALID;
    }
    if (enter(f->fe, OP_SIZE))
        return injected(OP_SIZE, f->path, err, errlen);
    return f->fe->base->size(f->base, out, err, errlen);
}

static void release(fault_file *f) {
    kv_fault_env *fe = f->fe;
    if (f->track) {
        pthread_mutex_lock(&fe->mu);
        f->track->open_handles--;
        prune_tracks(fe);
        pthread_mutex_unlock(&fe->mu);
    }
    free(f->path);
    free(f);
}

static kv_status ft_close(kv_file *file, char *err, size_t errlen) {
    fault_file *f = ff(file);
    if (!f)
        return KV_OK;
    kv_fault_env *fe = f->fe;
    /* An injected close failure still closes, as close(2) does. */
    bool fail = enter(fe, OP_CLOSE);
    kv_status st = fe->base->close(f->base, err, errlen);
    if (fail && st == KV_OK)
        st = injected(OP_CLOSE, f->path, err, errlen);
    release(f);
    return st;
}

static kv_status ft_rename(kv_env *env, const char *from, const char *to, char *err,
                           size_t errlen) {
    kv_fault_env *fe = fenv(env);
    if (!from || !to) {
        kv_env_errf(err, errlen, "rename: invalid argument");
        return KV_INVALID;
    }
    if (enter(fe, OP_RENAME))
        return injected(OP_RENAME, from, err, errlen);
    kv_status st = fe->base->rename(fe->base, from, to, err, errlen);
    if (st != KV_OK)
        return st;
    pthread_mutex_lock(&fe->mu);
    tracked *src = find_track(fe, from);
    if (strcmp(from, to) != 0) {
        tracked *dst = find_track(fe, to);
        if (dst)
            dst->removed = true;   /* replaced by the rename */
        if (src) {
            char *p = strdup(to);
            if (p) {
                free(src->path);
                src->path = p;
            } else {
                src->removed = true;   /* lose track rather than mislabel */
            }
        }
        prune_tracks(fe);
    }
    pthread_mutex_unlock(&fe->mu);
    return KV_OK;
}

static kv_status ft_remove(kv_env *env, const char *path, char *err, size_t errlen) {
    kv_fault_env *fe = fenv(env);
    if (!path) {
        kv_env_errf(err, errlen, "remove: invalid argument");
        return KV_INVALID;
    }
    if (enter(fe, OP_REMOVE))
        return injected(OP_REMOVE, path, err, errlen);
    kv_status st = fe->base->remove(fe->base, path, err, errlen);
    if (st != KV_OK)
        return st;
    pthread_mutex_lock(&fe->mu);
    tracked *t = find_track(fe, path);
    if (t)
        t->removed = true;
    prune_tracks(fe);
    pthread_mutex_unlock(&fe->mu);
    return KV_OK;
}

static kv_status ft_sync_dir(kv_env *env, const char *dir, char *err, size_t errlen) {
    kv_fault_env *fe = fenv(env);
    if (enter(fe, OP_SYNC_DIR))
        return injected(OP_SYNC_DIR, dir, err, errlen);
    return fe->base->sync_dir(fe->base, dir, err, errlen);
}

static kv_status ft_mkdir(kv_env *env, const char *path, char *err, size_t errlen) {
    kv_fault_env *fe = fenv(env);
    if (enter(fe, OP_MKDIR))
        return injected(OP_MKDIR, path, err, errlen);
    return fe->base->mkdir(fe->base, path, err, errlen);
}

static kv_status ft_list(kv_env *env, const char *dir, char ***names, char *err, size_t errlen) {
    kv_fault_env *fe = fenv(env);
    if (enter(fe, OP_LIST))
        return injected(OP_LIST, dir, err, errlen);
    return fe->base->list(fe->base, dir, names, err, errlen);
}

static kv_status ft_lock(kv_env *env, const char *path, const char *owner, bool shared, kv_file **out,
                         char *err, size_t errlen) {
    kv_fault_env *fe = fenv(env);
    if (!out || !path) {
        kv_env_errf(err, errlen, "lock: invalid argument");
        return KV_INVALID;
    }
    *out = NULL;
    if (enter(fe, OP_LOCK))
        return injected(OP_LOCK, path, err, errlen);
    kv_file *b = NULL;
    kv_status st = fe->base->lock(fe->base, path, owner, shared, &b, err, errlen);
    if (st != KV_OK)
        return st;
    fault_file *f = malloc(sizeof *f);
    char *p = strdup(path);
    if (!f || !p) {
        free(f);
        free(p);
        fe->base->unlock(b, NULL, 0);
        kv_env_errf(err, errlen, "lock %s: out of memory", path);
        return KV_NO_MEMORY;
    }
    f->fe = fe;
    f->base = b;
    f->track = NULL;
    f->path = p;
    *out = (kv_file *)(void *)f;
    return KV_OK;
}

static kv_status ft_unlock(kv_file *lock, char *err, size_t errlen) {
    fault_file *f = ff(lock);
    if (!f)
        return KV_OK;
    kv_fault_env *fe = f->fe;
    bool fail = enter(fe, OP_UNLOCK);
    kv_status st = fe->base->unlock(f->base, err, errlen);
    if (fail && st == KV_OK)
        st = injected(OP_UNLOCK, f->path, err, errlen);
    release(f);
    return st;
}

static kv_status ft_fs_space(kv_env *env, const char *path, uint64_t *free_bytes,
                             uint64_t *total_bytes) {
    kv_fault_env *fe = fenv(env);
    if (enter(fe, OP_FS_SPACE))
        return KV_IO;
    kv_status st = fe->base->fs_space(fe->base, path, free_bytes, total_bytes);
    if (st != KV_OK || !free_bytes)
        return st;
    /* A budget is what this env reports as free. */
    pthread_mutex_lock(&fe->mu);
    if (fe->space >= 0 && (uint64_t)fe->space < *free_bytes)
        *free_bytes = (uint64_t)fe->space;
    pthread_mutex_unlock(&fe->mu);
    return KV_OK;
}

kv_fault_env *kv_fault_env_new(kv_env *base) {
    if (!base)
        return NULL;
    kv_fault_env *fe = calloc(1, sizeof *fe);
    if (!fe)
        return NULL;
    if (pthread_mutex_init(&fe->mu, NULL) != 0) {
        free(fe);
        return NULL;
    }
    fe->env = (kv_env){
        .open_read = ft_open_read,
        .open_append = ft_open_append,
        .read_at = ft_read_at,
        .append = ft_append,
        .sync = ft_sync,
        .size = ft_size,
        .close = ft_close,
        .rename = ft_rename,
        .remove = ft_remove,
        .sync_dir = ft_sync_dir,
        .mkdir = ft_mkdir,
        .list = ft_list,
        .lock = ft_lock,
        .unlock = ft_unlock,
        .fs_space = ft_fs_space,
    };
    fe->base = base;
    fe->space = -1;
    return fe;
}

void kv_fault_env_free(kv_fault_env *fe) {
    if (!fe)
        return;
    /* Files still open keep pointers to their entries: close them first. */
    tracked *t = fe->files;
    while (t) {
        tracked *n = t->next;
        free(t->path);
        free(t);
        t = n;
    }
    pthread_mutex_destroy(&fe->mu);
    free(fe);
}

kv_env *kv_fault_env_env(kv_fault_env *fe) {
    return fe ? &fe->env : NULL;
}

void kv_fault_env_set_space(kv_fault_env *fe, int64_t nbytes) {
    pthread_mutex_lock(&fe->mu);
    fe->space = nbytes < 0 ? -1 : nbytes;
    pthread_mutex_unlock(&fe->mu);
}

void kv_fault_env_fail_nth(kv_fault_env *fe, const char *op_substr, int n) {
    pthread_mutex_lock(&fe->mu);
    if (n <= 0 || !op_substr) {
        fe->fail_n = 0;
        fe->fail_op[0] = '\0';
    } else {
        snprintf(fe->fail_op, sizeof fe->fail_op, "%s", op_substr);
        fe->fail_n = n;
    }
    pthread_mutex_unlock(&fe->mu);
}

uint64_t kv_fault_env_calls(kv_fault_env *fe, const char *op) {
    uint64_t n = 0;
    if (!fe || !op)
        return 0;
    pthread_mutex_lock(&fe->mu);
    for (int i = 0; i < OP_COUNT; i++)
        if (strcmp(op_names[i], op) == 0)
            n = fe->calls[i];
    pthread_mutex_unlock(&fe->mu);
    return n;
}

/* Cuts path back to its first keep bytes through the base env: read the
   prefix, rewrite the file, sync. */
static kv_status cut_file(kv_env *base, const char *path, uint64_t keep) {
    kv_file *f = NULL;
    kv_status st = base->open_read(base, path, &f, NULL, 0);
    if (st == KV_NOT_FOUND)
        return KV_OK;   /* gone (removed behind our back): nothing to cut */
    if (st != KV_OK)
        return st;
    uint64_t size = 0;
    st = base->size(f, &size, NULL, 0);
    if (st != KV_OK || size <= keep) {
        base->close(f, NULL, 0);
        return st;
    }
    if (keep > SIZE_MAX) {
        base->close(f, NULL, 0);
        return KV_NO_MEMORY;
    }
    uint8_t *buf = malloc(keep ? (size_t)keep : 1);
    if (!buf) {
        base->close(f, NULL, 0);
        return KV_NO_MEMORY;
    }
    size_t got = 0;
    st = base->read_at(f, 0, buf, (size_t)keep, &got, NULL, 0);
    base->close(f, NULL, 0);
    if (st == KV_OK && got != keep)
        st = KV_IO;
    kv_file *w = NULL;
    if (st == KV_OK)
        st = base->open_append(base, path, true, &w, NULL, 0);
    if (st == KV_OK) {
        st = base->append(w, buf, (size_t)keep, NULL, 0);
        if (st == KV_OK)
            st = base->sync(w, NULL, 0);
        kv_status cst = base->close(w, NULL, 0);
        if (st == KV_OK)
            st = cst;
    }
    free(buf);
    return st;
}

kv_status kv_fault_env_drop_unsynced(kv_fault_env *fe) {
    if (!fe)
        return KV_INVALID;
    /* Hold the lock throughout: a power loss is one instant. */
    pthread_mutex_lock(&fe->mu);
    kv_status first = KV_OK;
    for (tracked *t = fe->files; t; t = t->next) {
        if (t->removed)
            continue;
        kv_status st = cut_file(fe->base, t->path, t->synced);
        if (st != KV_OK && first == KV_OK)
            first = st;
    }
    pthread_mutex_unlock(&fe->mu);
    return first;
}
