/*
 * file_mode.c: fsx's classic mode. A model of one file's bytes (and of the
 * operation that wrote each byte) is checked against the file after random
 * reads, writes (also far past the end), truncates up and down, appends
 * (O_APPEND), fsyncs, mmap reads and writes (MAP_SHARED + msync), work
 * through a second descriptor, close and reopen, and xfstests' shrink,
 * grow, close, reread case. Every read is compared with the model and the
 * size is checked with fstat after every operation. Called by main.c;
 * calls util.c and libc. The semantics checked are POSIX's, as a local
 * file system gives them: a tester bug shows on a native directory too.
 */
#include "fsx.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

enum {
    OP_READ, OP_WRITE, OP_MAPREAD, OP_MAPWRITE, OP_TRUNCATE, OP_APPEND, OP_FSYNC, OP_SECOND,
    OP_SHRINKGROW, OP_KINDS,
    OP_REOPEN = OP_KINDS, OP_COUNTED
};

static const char *const kOpNames[OP_COUNTED] = {
    "read", "write", "mapread", "mapwrite", "truncate", "append", "fsync", "second",
    "shrinkgrow", "reopen",
};

/* Relative frequencies of the operation kinds when enabled. */
static const unsigned kWeights[OP_KINDS] = {10, 10, 4, 4, 4, 3, 2, 4, 1};

typedef struct fm {
    fsx_run run;
    const fsx_options *opt;
    fsx_rng rng;
    int fd;                  /* the main descriptor, O_RDWR */
    uint8_t *good;           /* the model: opt->maxlen bytes, zero past size */
    uint64_t *writer;        /* the op that wrote each model byte; 0 = none */
    size_t size;             /* the model's file size */
    uint8_t *buf;            /* data to write, maxlen + 1 */
    uint8_t *got;            /* data read, maxlen + page + 1 */
    size_t pagesize;
    uint64_t counts[OP_COUNTED];
} fm;

static void model_write(fm *m, uint64_t off, const uint8_t *data, size_t len) {
    memcpy(m->good + off, data, len);
    for (size_t i = 0; i < len; i++)
        m->writer[off + i] = m->run.op;
    if (off + len > m->size)
        m->size = off + len;
}

static void model_truncate(fm *m, size_t size) {
    if (size < m->size) {
        memset(m->good + size, 0, m->size - size);
        memset(m->writer + size, 0, (m->size - size) * sizeof m->writer[0]);
    }
    m->size = size;
}

static void check_size(fm *m, int fd, const char *when) {
    struct stat st;
    if (fstat(fd, &st) != 0)
        fsx_fail_errno(&m->run, "fstat %s", when);
    if ((uint64_t)st.st_size != m->size)
        fsx_fail(&m->run, "fstat %s: size %lld, the model says %zu", when, (long long)st.st_size,
                 m->size);
}

/* Reads the whole file through @p fd and compares it with the model. */
static void check_all(fm *m, int fd, const char *what) {
    ssize_t n = fsx_pread_all(fd, m->got, m->size + 1, 0);
    if (n < 0)
        fsx_fail_errno(&m->run, "%s: pread of the whole file", what);
    fsx_compare(&m->run, what, 0, m->good, m->size, m->got, (size_t)n, m->writer);
}

static int open_main(fm *m, int flags) {
    int fd = open(m->opt->path, O_RDWR | O_CLOEXEC | flags, 0644);
    if (fd < 0)
        fsx_fail_errno(&m->run, "open %s", m->opt->path);
    return fd;
}

static void close_checked(fm *m, int fd, const char *what) {
    /* On cellfs the close commits the cell: its result is the write's. */
    if (close(fd) != 0)
        fsx_fail_errno(&m->run, "close (%s)", what);
}

static size_t random_len(fm *m, size_t room) {
    size_t cap = m->opt->maxoplen < room ? m->opt->maxoplen : room;
    return cap == 0 ? 0 : (size_t)fsx_range(&m->rng, 1, cap);
}

static void op_read(fm *m) {
    uint64_t off;
    if (m->size > 0 && fsx_below(&m->rng, 8) != 0)
        off = fsx_below(&m->rng, m->size);
    else
        off = fsx_range(&m->rng, m->size, m->opt->maxlen);  /* at or past the end */
    size_t len = random_len(m, m->opt->maxlen);
    fsx_log_add(&m->run.log, m->run.op, "read     %#8" PRIx64 " len %#7zx  (size %#zx)", off, len,
                m->size);
    ssize_t n = fsx_pread_all(m->fd, m->got, len, off);
    if (n < 0)
        fsx_fail_errno(&m->run, "pread");
    size_t want = off >= m->size ? 0 : (m->size - off < len ? m->size - off : len);
    fsx_compare(&m->run, "read", off, m->good + (off < m->size ? off : 0), want, m->got,
                (size_t)n, m->writer + (off < m->size ? off : 0));
}

static void op_write(fm *m) {
    size_t len = random_len(m, m->opt->maxlen);
    uint64_t off = fsx_below(&m->rng, m->opt->maxlen - len + 1);
    fsx_fill(m->buf, len, m->run.op, off);
    fsx_log_add(&m->run.log, m->run.op, "write    %#8" PRIx64 " len %#7zx  (size %#zx%s)", off,
                len, m->size, off > m->size ? ", past EOF" : "");
    if (fsx_pwrite_all(m->fd, m->buf, len, off) < 0)
        fsx_fail_errno(&m->run, "pwrite");
    model_write(m, off, m->buf, len);
}

static void op_mapread(fm *m) {
    if (m->size == 0) {
        op_read(m);
        return;
    }
    uint64_t off = fsx_below(&m->rng, m->size);
    size_t len = random_len(m, m->size - off);
    uint64_t pg = off - off % m->pagesize;
    size_t maplen = (size_t)(off - pg) + len;
    /* When the range ends at EOF, the rest of that page must read as zeros
       (fsx's check_eofpage). */
    bool eof_page = off + len == m->size && m->size % m->pagesize != 0;
    size_t tail = eof_page ? m->pagesize - m->size % m->pagesize : 0;
    fsx_log_add(&m->run.log, m->run.op, "mapread  %#8" PRIx64 " len %#7zx  (size %#zx)", off, len,
                m->size);
    uint8_t *p = mmap(NULL, maplen + tail, PROT_READ, MAP_SHARED, m->fd, (off_t)pg);
    if (p == MAP_FAILED)
        fsx_fail_errno(&m->run, "mmap PROT_READ MAP_SHARED");
    memcpy(m->got, p + (off - pg), len + tail);
    if (munmap(p, maplen + tail) != 0)
        fsx_fail_errno(&m->run, "munmap");
    fsx_compare(&m->run, "mapread", off, m->good + off, len, m->got, len, m->writer + off);
    for (size_t i = 0; i < tail; i++)
        if (m->got[len + i] != 0)
            fsx_fail(&m->run, "mapread: byte %#zx past EOF %#zx in the last page is %#x, not 0",
                     m->size + i, m->size, m->got[len + i]);
}

static void op_mapwrite(fm *m) {
    size_t len = random_len(m, m->opt->maxlen);
    uint64_t off = fsx_below(&m->rng, m->opt->maxlen - len + 1);
    uint64_t pg = off - off % m->pagesize;
    size_t maplen = (size_t)(off - pg) + len;
    fsx_log_add(&m->run.log, m->run.op, "mapwrite %#8" PRIx64 " len %#7zx  (size %#zx%s)", off,
                len, m->size, off + len > m->size ? ", extended first with ftruncate" : "");
    if (off + len > m->size) {
        if (ftruncate(m->fd, (off_t)(off + len)) != 0)
            fsx_fail_errno(&m->run, "ftruncate before mapwrite");
        model_truncate(m, off + len);
    }
    fsx_fill(m->buf, len, m->run.op, off);
    uint8_t *p = mmap(NULL, maplen, PROT_READ | PROT_WRITE, MAP_SHARED, m->fd, (off_t)pg);
    if (p == MAP_FAILED)
        fsx_fail_errno(&m->run, "mmap PROT_WRITE MAP_SHARED");
    memcpy(p + (off - pg), m->buf, len);
    if (msync(p, maplen, MS_SYNC) != 0)
        fsx_fail_errno(&m->run, "msync");
    if (munmap(p, maplen) != 0)
        fsx_fail_errno(&m->run, "munmap");
    model_write(m, off, m->buf, len);
}

static void op_truncate(fm *m) {
    size_t size = fsx_below(&m->rng, 2) == 0 && m->size > 0
                      ? (size_t)fsx_below(&m->rng, m->size)
                      : (size_t)fsx_range(&m->rng, m->size, m->opt->maxlen);
    fsx_log_add(&m->run.log, m->run.op, "truncate %#8zx -> %#zx", m->size, size);
    if (ftruncate(m->fd, (off_t)size) != 0)
        fsx_fail_errno(&m->run, "ftruncate");
    model_truncate(m, size);
}

static void op_append(fm *m) {
    size_t len = random_len(m, m->opt->maxlen - m->size);
    if (len == 0) {   /* the file is at the largest size */
        if (m->opt->no_truncate)
            op_write(m);
        else
            op_truncate(m);
        return;
    }
    bool own_fd = !m->opt->no_second && fsx_below(&m->rng, 2) == 0;
    fsx_fill(m->buf, len, m->run.op, m->size);
    fsx_log_add(&m->run.log, m->run.op, "append   %#8zx len %#7zx  (%s)", m->size, len,
                own_fd ? "a new O_APPEND descriptor" : "O_APPEND set with fcntl");
    int fd = m->fd;
    if (own_fd) {
        fd = open(m->opt->path, O_WRONLY | O_APPEND | O_CLOEXEC);
        if (fd < 0)
            fsx_fail_errno(&m->run, "open O_APPEND");
    } else if (fcntl(fd, F_SETFL, O_APPEND) != 0) {
        fsx_fail_errno(&m->run, "fcntl F_SETFL O_APPEND");
    }
    size_t done = 0;
    while (done < len) {
        ssize_t n = write(fd, m->buf + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            fsx_fail_errno(&m->run, "write O_APPEND");
        done += (size_t)n;
    }
    if (own_fd)
        close_checked(m, fd, "the O_APPEND descriptor");
    else if (fcntl(fd, F_SETFL, 0) != 0)
        fsx_fail_errno(&m->run, "fcntl F_SETFL 0");
    model_write(m, m->size, m->buf, len);
}

static void op_fsync(fm *m) {
    bool data = fsx_below(&m->rng, 2) == 0;
    fsx_log_add(&m->run.log, m->run.op, "%s", data ? "fdatasync" : "fsync");
    if ((data ? fdatasync(m->fd) : fsync(m->fd)) != 0)
        fsx_fail_errno(&m->run, "%s", data ? "fdatasync" : "fsync");
}

/* A second descriptor on the same file, opened, used once and closed
 * while the main one stays open: both must see the same bytes. */
static void op_second(fm *m) {
    bool rdonly = fsx_below(&m->rng, 3) == 0;
    bool write_op = !rdonly && fsx_below(&m->rng, 2) == 0;
    int fd = open(m->opt->path, (rdonly ? O_RDONLY : O_RDWR) | O_CLOEXEC);
    if (fd < 0)
        fsx_fail_errno(&m->run, "open a second descriptor");
    if (write_op) {
        size_t len = random_len(m, m->opt->maxlen);
        uint64_t off = fsx_below(&m->rng, m->opt->maxlen - len + 1);
        fsx_fill(m->buf, len, m->run.op, off);
        fsx_log_add(&m->run.log, m->run.op, "second   write %#8" PRIx64 " len %#7zx  (size %#zx)",
                    off, len, m->size);
        if (fsx_pwrite_all(fd, m->buf, len, off) < 0)
            fsx_fail_errno(&m->run, "pwrite on the second descriptor");
        model_write(m, off, m->buf, len);
    } else {
        fsx_log_add(&m->run.log, m->run.op, "second   read whole file (%s, size %#zx)",
                    rdonly ? "O_RDONLY" : "O_RDWR", m->size);
        check_size(m, fd, "on the second descriptor");
        check_all(m, fd, "read on the second descriptor");
    }
    close_checked(m, fd, "the second descriptor");
}

static void reopen(fm *m, bool trunc) {
    close_checked(m, m->fd, "before reopen");
    m->fd = open_main(m, trunc ? O_TRUNC : 0);
    if (trunc)
        model_truncate(m, 0);
    check_size(m, m->fd, "after reopen");
    check_all(m, m->fd, "read of the whole file after reopen");
}

/* xfstests' known failing case: shrink and grow within one open, close,
 * and read again: the shrunk range must read as zeros. */
static void op_shrinkgrow(fm *m) {
    size_t small = m->size > 0 ? (size_t)fsx_below(&m->rng, m->size) : 0;
    size_t big = (size_t)fsx_range(&m->rng, small + 1, m->opt->maxlen);
    fsx_log_add(&m->run.log, m->run.op, "shrinkgrow %#zx -> %#zx -> %#zx, close, reopen", m->size,
                small, big);
    if (ftruncate(m->fd, (off_t)small) != 0)
        fsx_fail_errno(&m->run, "ftruncate (shrink)");
    model_truncate(m, small);
    if (ftruncate(m->fd, (off_t)big) != 0)
        fsx_fail_errno(&m->run, "ftruncate (grow)");
    model_truncate(m, big);
    reopen(m, false);
}

static int pick_op(fm *m) {
    const fsx_options *o = m->opt;
    bool off[OP_KINDS] = {
        [OP_MAPREAD] = o->no_mapread, [OP_MAPWRITE] = o->no_mapwrite,
        [OP_TRUNCATE] = o->no_truncate, [OP_APPEND] = o->no_append, [OP_FSYNC] = o->no_fsync,
        [OP_SECOND] = o->no_second, [OP_SHRINKGROW] = o->no_shrinkgrow || o->no_truncate,
    };
    unsigned total = 0;
    for (int k = 0; k < OP_KINDS; k++)
        total += off[k] ? 0 : kWeights[k];
    unsigned r = (unsigned)fsx_below(&m->rng, total);
    for (int k = 0; k < OP_KINDS; k++) {
        if (off[k])
            continue;
        if (r < kWeights[k])
            return k;
        r -= kWeights[k];
    }
    return OP_READ;
}

static void run_op(fm *m, int kind) {
    switch (kind) {
    case OP_READ: op_read(m); break;
    case OP_WRITE: op_write(m); break;
    case OP_MAPREAD: op_mapread(m); break;
    case OP_MAPWRITE: op_mapwrite(m); break;
    case OP_TRUNCATE: op_truncate(m); break;
    case OP_APPEND: op_append(m); break;
    case OP_FSYNC: op_fsync(m); break;
    case OP_SECOND: op_second(m); break;
    case OP_SHRINKGROW: op_shrinkgrow(m); break;
    default: break;
    }
}

static void print_summary(const fm *m) {
    printf("fsx: %" PRIu64 " operations on %s, seed %" PRIu64 ": all checks passed (",
           m->opt->ops, m->opt->path, m->opt->seed);
    for (int k = 0; k < OP_COUNTED; k++)
        printf("%s%s %" PRIu64, k ? ", " : "", kOpNames[k], m->counts[k]);
    printf("; final size %zu)\n", m->size);
}

int fsx_file_mode(const fsx_options *opt) {
    fm m;
    memset(&m, 0, sizeof m);
    m.opt = opt;
    m.run.opt = opt;
    m.pagesize = (size_t)sysconf(_SC_PAGESIZE);
    fsx_rng_seed(&m.rng, opt->seed);
    m.good = calloc(opt->maxlen + 1, 1);
    m.writer = calloc(opt->maxlen + 1, sizeof m.writer[0]);
    m.buf = malloc(opt->maxlen + 1);
    m.got = malloc(opt->maxlen + m.pagesize + 1);
    if (m.good == NULL || m.writer == NULL || m.buf == NULL || m.got == NULL ||
        fsx_log_init(&m.run.log, opt->logsize, opt->verbose) != 0) {
        fprintf(stderr, "fsx: out of memory\n");
        return 1;
    }
    fsx_log_add(&m.run.log, 0, "create   %s (O_CREAT|O_TRUNC)", opt->path);
    m.fd = open_main(&m, O_CREAT | O_TRUNC);
    check_size(&m, m.fd, "after create");
    for (m.run.op = 1; m.run.op <= opt->ops; m.run.op++) {
        fsx_pause(opt);
        int kind = pick_op(&m);
        m.counts[kind]++;
        run_op(&m, kind);
        check_size(&m, m.fd, kOpNames[kind]);
        if (opt->corrupt_at > 0 && m.run.op == opt->corrupt_at && m.size > 0) {
            /* -Z: as if the file had returned a wrong byte. */
            size_t at = (size_t)fsx_below(&m.rng, m.size);
            m.good[at] ^= 0x5a;
            fsx_log_add(&m.run.log, m.run.op, "corrupt  the model at %#zx (-Z)", at);
            check_all(&m, m.fd, "read of the whole file after -Z");
        }
        if (opt->closeprob > 0 && fsx_below(&m.rng, opt->closeprob) == 0) {
            bool trunc = fsx_below(&m.rng, 8) == 0;
            fsx_log_add(&m.run.log, m.run.op, "reopen%s", trunc ? " O_TRUNC" : "");
            m.counts[OP_REOPEN]++;
            reopen(&m, trunc);
        }
    }
    m.run.op = opt->ops;
    fsx_log_add(&m.run.log, m.run.op, "final    close, reopen O_RDONLY, read everything");
    close_checked(&m, m.fd, "at the end");
    int fd = open(opt->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        fsx_fail_errno(&m.run, "open O_RDONLY at the end");
    check_size(&m, fd, "at the end");
    check_all(&m, fd, "read of the whole file at the end");
    close(fd);
    print_summary(&m);
    fsx_log_free(&m.run.log);
    free(m.good);
    free(m.writer);
    free(m.buf);
    free(m.got);
    return 0;
}
