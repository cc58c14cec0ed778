/**
 * @file env_posix.c
 * The POSIX kv_env: files by file descriptor (pread, write, fdatasync),
 * directories, rename, statvfs, and the store lock by flock(2) on a lock
 * file. Also the whole-file helpers kv_env_read_file and
 * kv_env_write_file_atomic, which work over any env. Called by every module
 * that touches the disk (through the env table); calls only libc.
 */
#include "env.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* A store's data is its owner's alone: files are created 0600 and
   directories 0700 (the umask may only narrow this). */
#define STORE_FILE_MODE 0600
#define STORE_DIR_MODE 0700

/* A file of this env. kv_file stays opaque: pointers are cast to and from
   this type, so each env keeps its own file record. */
typedef struct posix_file {
    int fd;
    char *path;   /* for error messages */
    atomic_bool no_nowait;   /* RWF_NOWAIT refused here: read_at_around
                                is read_at (set once, by any reader) */
} posix_file;

static posix_file *pf(kv_file *f) { return (posix_file *)(void *)f; }

void kv_env_errf(char *err, size_t errlen, const char *fmt, ...) {
    if (!err || errlen == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

static kv_status errno_status(int e) {
    switch (e) {
    case ENOENT: return KV_NOT_FOUND;
    case EEXIST: return KV_EXISTS;
    case ENOSPC:
#ifdef EDQUOT
    case EDQUOT:
#endif
        return KV_NO_SPACE;
    default: return KV_IO;
    }
}

/* Records errno e for operation op on path and returns its status. */
static kv_status os_fail(int e, const char *op, const char *path, char *err, size_t errlen) {
    char buf[128];
    const char *msg = strerror_r(e, buf, sizeof buf);
    kv_env_errf(err, errlen, "%s %s: %s", op, path ? path : "(null)", msg);
    return errno_status(e);
}

static kv_status bad_arg(const char *op, char *err, size_t errlen) {
    kv_env_errf(err, errlen, "%s: invalid argument", op);
    return KV_INVALID;
}

static kv_status new_file(int fd, const char *path, kv_file **out, char *err, size_t errlen) {
    posix_file *f = malloc(sizeof *f);
    char *p = strdup(path);
    if (!f || !p) {
        free(f);
        free(p);
        close(fd);
        kv_env_errf(err, errlen, "open %s: out of memory", path);
        return KV_NO_MEMORY;
    }
    f->fd = fd;
    f->path = p;
    atomic_init(&f->no_nowait, false);
    *out = (kv_file *)(void *)f;
    return KV_OK;
}

static kv_status px_open_read(kv_env *env, const char *path, kv_file **out, char *err,
                              size_t errlen) {
    (void)env;
    if (!path || !out)
        return bad_arg("open_read", err, errlen);
    *out = NULL;
    int fd;
    do {
        fd = open(path, O_RDONLY | O_CLOEXEC);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0)
        return os_fail(errno, "open", path, err, errlen);
    return new_file(fd, path, out, err, errlen);
}

static kv_status px_open_append(kv_env *env, const char *path, bool truncate, kv_file **out,
                                char *err, size_t errlen) {
    (void)env;
    if (!path || !out)
        return bad_arg("open_append", err, errlen);
    *out = NULL;
    int flags = O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | (truncate ? O_TRUNC : 0);
    int fd;
    do {
        fd = open(path, flags, STORE_FILE_MODE);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0)
        return os_fail(errno, "create", path, err, errlen);
    return new_file(fd, path, out, err, errlen);
}

static kv_status px_read_at(kv_file *file, uint64_t offset, void *buf, size_t n, size_t *got,
                            char *err, size_t errlen) {
    posix_file *f = pf(file);
    if (!f || !got || (!buf && n))
        return bad_arg("read_at", err, errlen);
    *got = 0;
    if (offset > (uint64_t)INT64_MAX)
        return bad_arg("read_at", err, errlen);
    size_t done = 0;
    while (done < n) {
        ssize_t r = pread(f->fd, (char *)buf + done, n - done, (off_t)(offset + done));
        if (r < 0) {
            if (errno == EINTR)
                continue;
            *got = done;
            return os_fail(errno, "read", f->path, err, errlen);
        }
        if (r == 0)
            break;
        done += (size_t)r;
    }
    *got = done;
    return KV_OK;
}

/*
 * A read that finds its bytes in the page cache costs what pread costs: it
 * is tried first with RWF_NOWAIT, which fails (EAGAIN) or comes back short
 * when a byte would have to come from the device. Then the rest is read as
 * read_at reads it, and the around range is handed to the kernel
 * (POSIX_FADV_WILLNEED starts its reads in the background and returns).
 * Without that, a random pread of a few KiB is read from the device alone
 * (the kernel reads ahead for sequential reads only), so a store opened
 * cold takes one device trip per unit it touches, where a mapped file is
 * read around each page fault (by the device's read_ahead_kb). Kernels
 * and filesystems without RWF_NOWAIT for buffered reads (EOPNOTSUPP,
 * ENOSYS, EINVAL) get plain reads, the file remembering it after the first
 * refusal.
 */
static kv_status px_read_at_around(kv_file *file, uint64_t offset, void *buf, size_t n,
                                   uint64_t around_off, size_t around_len, size_t *got, char *err,
                                   size_t errlen) {
    posix_file *f = pf(file);
    if (!f || !got || (!buf && n) || offset > (uint64_t)INT64_MAX || around_off > (uint64_t)INT64_MAX)
        return bad_arg("read_at_around", err, errlen);
    *got = 0;
    size_t done = 0;
    if (around_len > 0 && n > 0 && !atomic_load_explicit(&f->no_nowait, memory_order_relaxed)) {
        struct iovec iov = { buf, n };
        ssize_t r;
        do {
            r = preadv2(f->fd, &iov, 1, (off_t)offset, RWF_NOWAIT);
        } while (r < 0 && errno == EINTR);
        if (r >= 0 && (size_t)r == n) {
            *got = n;
            return KV_OK;
        }
        if (r > 0)
            done = (size_t)r;
        bool miss = r >= 0 || errno == EAGAIN;
        if (r < 0 && (errno == EOPNOTSUPP || errno == ENOSYS || errno == EINVAL))
            atomic_store_explicit(&f->no_nowait, true, memory_order_relaxed);
        /* any other error: the plain read below reports it or succeeds */
        kv_status st = px_read_at(file, offset + done, (char *)buf + done, n - done, got, err, errlen);
        *got += done;
        /* after this read's own bytes, so that it waits for them alone;
           only a hint, whose failure loses nothing */
        if (miss && st == KV_OK)
            (void)posix_fadvise(f->fd, (off_t)around_off, (off_t)around_len, POSIX_FADV_WILLNEED);
        return st;
    }
    return px_read_at(file, offset, buf, n, got, err, errlen);
}

static kv_status px_append(kv_file *file, const void *buf, size_t n, char *err, size_t errlen) {
    posix_file *f = pf(file);
    if (!f || (!buf && n))
        return bad_arg("append", err, errlen);
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(f->fd, (const char *)buf + done, n - done);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return os_fail(errno, "write", f->path, err, errlen);
        }
        if (w == 0)   /* should not happen for regular files; avoid spinning */
            return os_fail(ENOSPC, "write", f->path, err, errlen);
        done += (size_t)w;
    }
    return KV_OK;
}

static kv_status px_sync(kv_file *file, char *err, size_t errlen) {
    posix_file *f = pf(file);
    if (!f)
        return bad_arg("sync", err, errlen);
    int r;
    do {
        r = fdatasync(f->fd);
    } while (r < 0 && errno == EINTR);
    if (r < 0)
        return os_fail(errno, "fdatasync", f->path, err, errlen);
    return KV_OK;
}

static kv_status px_size(kv_file *file, uint64_t *out, char *err, size_t errlen) {
    posix_file *f = pf(file);
    if (!f || !out)
        return bad_arg("size", err, errlen);
    struct stat st;
    if (fstat(f->fd, &st) < 0)
        return os_fail(errno, "stat", f->path, err, errlen);
    *out = (uint64_t)st.st_size;
    return KV_OK;
}

static kv_status px_close(kv_file *file, char *err, size_t errlen) {
    posix_file *f = pf(file);
    if (!f)
        return KV_OK;
    kv_status st = KV_OK;
    /* No retry on EINTR: on Linux the descriptor is gone either way. */
    if (close(f->fd) < 0)
        st = os_fail(errno, "close", f->path, err, errlen);
    free(f->path);
    free(f);
    return st;
}

static kv_status px_rename(kv_env *env, const char *from, const char *to, char *err,
                           size_t errlen) {
    (void)env;
    if (!from || !to)
        return bad_arg("rename", err, errlen);
    if (rename(from, to) < 0) {
        int e = errno;
        char buf[128];
        kv_env_errf(err, errlen, "rename %s to %s: %s", from, to, strerror_r(e, buf, sizeof buf));
        return errno_status(e);
    }
    return KV_OK;
}

static kv_status px_remove(kv_env *env, const char *path, char *err, size_t errlen) {
    (void)env;
    if (!path)
        return bad_arg("remove", err, errlen);
    if (unlink(path) < 0)
        return os_fail(errno, "remove", path, err, errlen);
    return KV_OK;
}

static kv_status px_sync_dir(kv_env *env, const char *dir, char *err, size_t errlen) {
    (void)env;
    if (!dir)
        return bad_arg("sync_dir", err, errlen);
    int fd;
    do {
        fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0)
        return os_fail(errno, "open directory", dir, err, errlen);
    kv_status st = KV_OK;
    int r;
    do {
        r = fsync(fd);
    } while (r < 0 && errno == EINTR);
    /* Some filesystems cannot fsync a directory; that is not a failure. */
    if (r < 0 && errno != EINVAL && errno != ENOTSUP)
        st = os_fail(errno, "fsync directory", dir, err, errlen);
    close(fd);
    return st;
}

static kv_status px_mkdir(kv_env *env, const char *path, char *err, size_t errlen) {
    (void)env;
    if (!path)
        return bad_arg("mkdir", err, errlen);
    if (mkdir(path, STORE_DIR_MODE) < 0)
        return os_fail(errno, "mkdir", path, err, errlen);
    return KV_OK;
}

static void free_name_array(char **names, size_t n) {
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

static int cmp_names(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static kv_status px_list(kv_env *env, const char *dir, char ***names, char *err, size_t errlen) {
    (void)env;
    if (!dir || !names)
        return bad_arg("list", err, errlen);
    *names = NULL;
    DIR *d = opendir(dir);
    if (!d)
        return os_fail(errno, "list", dir, err, errlen);
    size_t n = 0, cap = 16;
    char **v = malloc(cap * sizeof *v);
    if (!v) {
        closedir(d);
        kv_env_errf(err, errlen, "list %s: out of memory", dir);
        return KV_NO_MEMORY;
    }
    for (;;) {
        errno = 0;
        struct dirent *e = readdir(d);
        if (!e) {
            if (errno != 0) {
                kv_status st = os_fail(errno, "list", dir, err, errlen);
                free_name_array(v, n);
                closedir(d);
                return st;
            }
            break;
        }
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (n + 1 >= cap) {
            char **nv = realloc(v, 2 * cap * sizeof *v);
            if (!nv)
                goto oom;
            v = nv;
            cap *= 2;
        }
        if (!(v[n] = strdup(e->d_name)))
            goto oom;
        n++;
    }
    closedir(d);
    /* Sorted, so that callers and tests see a stable order. */
    qsort(v, n, sizeof *v, cmp_names);
    v[n] = NULL;
    *names = v;
    return KV_OK;
oom:
    free_name_array(v, n);
    closedir(d);
    kv_env_errf(err, errlen, "list %s: out of memory", dir);
    return KV_NO_MEMORY;
}

/* The lock file holds one record per holder: "pid\nowner\n" for the
   exclusive holder, "pid r\nowner\n" for each shared one. */
#define LOCK_RECORD_MAX 1024
#define LOCK_FILE_READ_MAX (64 * 1024)
#define LOCK_HOLDERS_NAMED 8

/* Whether process pid still exists (a record may outlive its holder: a
   shared holder that ended while others kept the lock leaves its line). */
static bool pid_alive(long pid) {
    return pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}

/* Parses the record at *p (advancing it). false at the end or on a line
   that is not a record. */
static bool next_record(char **p, long *pid, bool *shared, const char **owner) {
    char *line = *p, *nl = strchr(line, '\n');
    if (!*line || !nl) return false;
    *nl = '\0';
    char *owner_line = nl + 1, *nl2 = strchr(owner_line, '\n');
    if (nl2) {
        *nl2 = '\0';
        *p = nl2 + 1;
    } else {
        *p = owner_line + strlen(owner_line);
    }
    char *end = NULL;
    *pid = strtol(line, &end, 10);
    if (end == line) return false;
    *shared = strcmp(end, " r") == 0;
    if (!*shared && *end) return false;
    *owner = owner_line;
    return true;
}

/* Appends ", pid N (owner)" style text for holders of one kind. Returns
   how many were named. */
static int name_holders(char *out, size_t outlen, const char *records, bool shared) {
    char *copy = strdup(records);
    if (!copy) return 0;
    int named = 0, more = 0;
    size_t n = strlen(out);
    char *p = copy;
    long pid;
    bool sh;
    const char *owner;
    while (next_record(&p, &pid, &sh, &owner)) {
        if (sh != shared || !pid_alive(pid)) continue;
        if (named == LOCK_HOLDERS_NAMED) {
            more++;
            continue;
        }
        int w = snprintf(out + n, n < outlen ? outlen - n : 0, "%spid %ld%s%s%s",
                         named ? (shared ? " and " : ", ") : "", pid, *owner ? " (" : "", owner,
                         *owner ? ")" : "");
        if (w > 0) n += (size_t)w;
        named++;
    }
    if (more && n < outlen) snprintf(out + n, outlen - n, " and %d more", more);
    free(copy);
    return named;
}

/* Builds the KV_LOCKED message from the records of the live holders. */
static kv_status locked_message(int fd, const char *path, char *err, size_t errlen) {
    char *buf = malloc(LOCK_FILE_READ_MAX + 1);
    if (!buf) {
        kv_env_errf(err, errlen, "store is locked by another process (lock file %s)", path);
        return KV_LOCKED;
    }
    ssize_t r;
    do {
        r = pread(fd, buf, LOCK_FILE_READ_MAX, 0);
    } while (r < 0 && errno == EINTR);
    buf[r > 0 ? r : 0] = '\0';
    char writers[1024] = "", readers[1024] = "";
    int nw = name_holders(writers, sizeof writers, buf, false);
    int nr = name_holders(readers, sizeof readers, buf, true);
    if (nw > 0)
        kv_env_errf(err, errlen, "store is locked by %s (lock file %s)", writers, path);
    else if (nr > 0)
        kv_env_errf(err, errlen, "store is locked by %s, which opened it read-only (lock file %s)",
                    readers, path);
    else /* the holder has not written its record yet, or the file is foreign */
        kv_env_errf(err, errlen, "store is locked by another process (lock file %s)", path);
    free(buf);
    return KV_LOCKED;
}

/* Formats this process's record into text (at most LOCK_RECORD_MAX bytes);
   the owner is one line of it, so newlines in it become spaces. */
static size_t format_record(char *text, const char *owner, bool shared) {
    int len = snprintf(text, LOCK_RECORD_MAX, "%ld%s\n%s", (long)getpid(), shared ? " r" : "",
                       owner ? owner : "");
    if (len < 0)
        len = 0;
    if (len > LOCK_RECORD_MAX - 2)
        len = LOCK_RECORD_MAX - 2;
    for (int i = (int)strcspn(text, "\n") + 1; i < len; i++)
        if (text[i] == '\n' || text[i] == '\r')
            text[i] = ' ';
    text[len++] = '\n';
    return (size_t)len;
}

static int flock_nb(int fd, int op) {
    int r;
    do {
        r = flock(fd, op | LOCK_NB);
    } while (r < 0 && errno == EINTR);
    return r;
}

static kv_status px_lock(kv_env *env, const char *path, const char *owner, bool shared,
                         kv_file **out, char *err, size_t errlen) {
    (void)env;
    if (!path || !out)
        return bad_arg("lock", err, errlen);
    *out = NULL;
    int fd;
    bool writable = true;
    /* Shared holders append their records (O_APPEND keeps concurrent
       appends whole); the exclusive holder rewrites the file. */
    do {
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | (shared ? O_APPEND : 0), STORE_FILE_MODE);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0 && shared && (errno == EROFS || errno == EACCES)) {
        /* A store on read-only media: share the lock without a record. */
        writable = false;
        do {
            fd = open(path, O_RDONLY | O_CLOEXEC);
        } while (fd < 0 && errno == EINTR);
    }
    if (fd < 0)
        return os_fail(errno, "open lock file", path, err, errlen);
    /* flock locks belong to the open file description, so a second open in
       this same process conflicts too (fcntl locks would not). */
    bool fresh = !shared;
    if (shared && writable && flock_nb(fd, LOCK_EX) == 0) {
        /* Nobody holds the store: drop the records of earlier holders, then
           turn the lock into a shared one. (Should another opener slip in
           while the kernel converts it, this open fails as locked, and a
           caller with a lock wait tries again.) */
        fresh = true;
    }
    if (flock_nb(fd, shared ? LOCK_SH : LOCK_EX) < 0) {
        int e = errno;
        kv_status st = (e == EWOULDBLOCK) ? locked_message(fd, path, err, errlen)
                                          : os_fail(e, "lock", path, err, errlen);
        close(fd);
        return st;
    }
    if (writable) {
        char text[LOCK_RECORD_MAX];
        size_t len = format_record(text, owner, shared);
        if (fresh && ftruncate(fd, 0) < 0) {
            kv_status st = os_fail(errno, "truncate lock file", path, err, errlen);
            close(fd);
            return st;
        }
        ssize_t w;
        do {
            w = shared ? write(fd, text, len) : pwrite(fd, text, len, 0);
        } while (w < 0 && errno == EINTR);
        if (w != (ssize_t)len) {
            kv_status st = os_fail(w < 0 ? errno : ENOSPC, "write lock file", path, err, errlen);
            close(fd);
            return st;
        }
    }
    return new_file(fd, path, out, err, errlen);
}

static kv_status px_unlock(kv_file *lock, char *err, size_t errlen) {
    posix_file *f = pf(lock);
    if (!f)
        return KV_OK;
    kv_status st = KV_OK;
    if (flock(f->fd, LOCK_UN) < 0)
        st = os_fail(errno, "unlock", f->path, err, errlen);
    kv_status cst = px_close(lock, st == KV_OK ? err : NULL, errlen);
    return st != KV_OK ? st : cst;
}

static kv_status px_fs_space(kv_env *env, const char *path, uint64_t *free_bytes,
                             uint64_t *total_bytes) {
    (void)env;
    if (!path)
        return KV_INVALID;
    struct statvfs sv;
    if (statvfs(path, &sv) < 0)
        return errno_status(errno);
    if (free_bytes)
        *free_bytes = (uint64_t)sv.f_bavail * sv.f_frsize;
    if (total_bytes)
        *total_bytes = (uint64_t)sv.f_blocks * sv.f_frsize;
    return KV_OK;
}

static const kv_env posix_env = {
    .open_read = px_open_read,
    .open_append = px_open_append,
    .read_at = px_read_at,
    .read_at_around = px_read_at_around,
    .append = px_append,
    .sync = px_sync,
    .size = px_size,
    .close = px_close,
    .rename = px_rename,
    .remove = px_remove,
    .sync_dir = px_sync_dir,
    .mkdir = px_mkdir,
    .list = px_list,
    .lock = px_lock,
    .unlock = px_unlock,
    .fs_space = px_fs_space,
};

kv_env *kv_env_posix(void) {
    /* Never written through: the table is constant and shared. */
    return (kv_env *)&posix_env;
}

/* ---- whole-file helpers, over any env ---- */

kv_status kv_env_read_file(kv_env *env, const char *path, uint8_t **data, size_t *len, char *err,
                           size_t errlen) {
    if (!env || !path || !data || !len)
        return bad_arg("read_file", err, errlen);
    *data = NULL;
    *len = 0;
    kv_file *f = NULL;
    kv_status st = env->open_read(env, path, &f, err, errlen);
    if (st != KV_OK)
        return st;
    uint64_t size = 0;
    st = env->size(f, &size, err, errlen);
    if (st != KV_OK) {
        env->close(f, NULL, 0);
        return st;
    }
    if (size > SIZE_MAX - 1) {
        env->close(f, NULL, 0);
        kv_env_errf(err, errlen, "read %s: file too large", path);
        return KV_NO_MEMORY;
    }
    uint8_t *buf = malloc((size_t)size + 1);   /* +1: never malloc(0) */
    if (!buf) {
        env->close(f, NULL, 0);
        kv_env_errf(err, errlen, "read %s: out of memory", path);
        return KV_NO_MEMORY;
    }
    size_t got = 0;
    st = env->read_at(f, 0, buf, (size_t)size, &got, err, errlen);
    kv_status cst = env->close(f, st == KV_OK ? err : NULL, errlen);
    if (st == KV_OK)
        st = cst;
    if (st != KV_OK) {
        free(buf);
        return st;
    }
    /* A file that shrank since size() simply gives fewer bytes. */
    *data = buf;
    *len = got;
    return KV_OK;
}

kv_status kv_env_write_file_atomic(kv_env *env, const char *dir, const char *path,
                                   const void *data, size_t len, char *err, size_t errlen) {
    if (!env || !dir || !path || (!data && len))
        return bad_arg("write_file_atomic", err, errlen);
    size_t plen = strlen(path);
    char *tmp = malloc(plen + 5);
    if (!tmp) {
        kv_env_errf(err, errlen, "write %s: out of memory", path);
        return KV_NO_MEMORY;
    }
    memcpy(tmp, path, plen);
    memcpy(tmp + plen, ".tmp", 5);
    kv_file *f = NULL;
    kv_status st = env->open_append(env, tmp, true, &f, err, errlen);
    if (st == KV_OK) {
        st = env->append(f, data, len, err, errlen);
        if (st == KV_OK)
            st = env->sync(f, err, errlen);
        kv_status cst = env->close(f, st == KV_OK ? err : NULL, errlen);
        if (st == KV_OK)
            st = cst;
        if (st == KV_OK)
            st = env->rename(env, tmp, path, err, errlen);
        if (st != KV_OK)
            env->remove(env, tmp, NULL, 0);   /* best effort; the error is st */
    }
    if (st == KV_OK)
        st = env->sync_dir(env, dir, err, errlen);
    free(tmp);
    return st;
}
