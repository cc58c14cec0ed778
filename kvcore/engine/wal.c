/**
 * @file wal.c
 * The write-ahead log: frames each batch payload as one checksummed record
 * (doc/log_format.md) and reads them back in recovery, telling a torn tail
 * (end of log) from damage in the middle (KV_CORRUPT). Called by the store's
 * write path and recovery; calls the env and coding.c.
 */
#include "wal.h"

#include "util/coding.h"
#include "util/copy.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- on-disk format: do not change (doc/log_format.md) ---- */
#define WAL_MAGIC "CELLFSWL"          /* 8 bytes at offset 0 */
#define WAL_MAGIC_LEN 8
#define WAL_VERSION 1u                /* be32 at offset 8 */
#define WAL_FILE_HEADER_LEN 16        /* magic, version, 4 reserved zero bytes */
#define WAL_RECORD_HEADER_LEN 8       /* be32 checksum, be32 payload length */
/* ---- end of on-disk format ---- */

/* Reads ahead this much so that small records cost no syscall each. */
#define WAL_READ_CHUNK (256u * 1024u)

struct kv_wal_writer {
    kv_env *env;
    kv_file *file;
    char *path;
    /* Bytes of whole records (and the header) written: the appender (one
       at a time) adds, kv_engine_stat reads it under other locks. */
    _Atomic uint64_t size;
    kv_buf rec;         /* reused framing buffer: one append per record */
    kv_status failed;   /* a failed append may have left a torn record */
};

struct kv_wal_reader {
    kv_env *env;
    kv_file *file;
    char *path;
    uint64_t file_size; /* at open: recovery reads a log nobody appends to */
    uint64_t offset;    /* just after the last good record */
    bool done;          /* reached the end (or the torn tail) */
    kv_status failed;   /* KV_CORRUPT once met: returned again, never KV_END */
    uint8_t *win;       /* read-ahead window holding file bytes [win_off, +win_len) */
    size_t win_cap, win_len;
    uint64_t win_off;
};


static void file_header(uint8_t h[WAL_FILE_HEADER_LEN]) {
    memcpy(h, WAL_MAGIC, WAL_MAGIC_LEN);
    kv_put_be32(h + 8, WAL_VERSION);
    kv_put_be32(h + 12, 0);
}

kv_status kv_wal_writer_open(kv_wal_writer **out, kv_env *env, const char *path, char *err,
                             size_t errlen) {
    if (!out || !env || !path) {
        kv_env_errf(err, errlen, "wal: invalid argument");
        return KV_INVALID;
    }
    *out = NULL;
    kv_wal_writer *w = calloc(1, sizeof *w);
    if (!w || !(w->path = strdup(path))) {
        free(w);
        kv_env_errf(err, errlen, "wal %s: out of memory", path);
        return KV_NO_MEMORY;
    }
    w->env = env;
    kv_status st = env->open_append(env, path, true, &w->file, err, errlen);
    if (st == KV_OK) {
        uint8_t h[WAL_FILE_HEADER_LEN];
        file_header(h);
        st = env->append(w->file, h, sizeof h, err, errlen);
    }
    if (st != KV_OK) {
        if (w->file)
            env->close(w->file, NULL, 0);
        free(w->path);
        free(w);
        return st;
    }
    atomic_store_explicit(&w->size, WAL_FILE_HEADER_LEN, memory_order_relaxed);
    *out = w;
    return KV_OK;
}

kv_status kv_wal_append(kv_wal_writer *w, const void *data, size_t len, char *err,
                        size_t errlen) {
    if (!w || (!data && len)) {
        kv_env_errf(err, errlen, "wal append: invalid argument");
        return KV_INVALID;
    }
    if (w->failed != KV_OK) {
        kv_env_errf(err, errlen, "wal %s: an earlier append failed; the log takes no more records",
                w->path);
        return w->failed;
    }
    if (len > UINT32_MAX) {
        kv_env_errf(err, errlen, "wal %s: record of %zu bytes is above the 4 GiB limit", w->path, len);
        return KV_TOO_LARGE;
    }
    w->rec.len = 0;
    if (kv_buf_reserve(&w->rec, WAL_RECORD_HEADER_LEN + len) != 0) {
        kv_env_errf(err, errlen, "wal %s: out of memory for a %zu-byte record", w->path, len);
        return KV_NO_MEMORY;
    }
    uint8_t *p = w->rec.data;
    kv_put_be32(p + 4, (uint32_t)len);
    if (len)
        kv_copy(p + WAL_RECORD_HEADER_LEN, data, len);
    /* The checksum covers the length field too, so a damaged length is seen. */
    kv_put_be32(p, kv_checksum(p + 4, 4 + len));
    w->rec.len = WAL_RECORD_HEADER_LEN + len;
    kv_status st = w->env->append(w->file, p, w->rec.len, err, errlen);
    if (st != KV_OK) {
        /* Part of the record may be in the file: anything appended after it
           would look like corruption in the middle, so refuse more. */
        w->failed = st;
        return st;
    }
    atomic_fetch_add_explicit(&w->size, w->rec.len, memory_order_relaxed);
    /* Do not keep a huge buffer around after one big record. */
    if (w->rec.cap > (4u << 20))
        kv_buf_free(&w->rec);
    return KV_OK;
}

kv_status kv_wal_sync(kv_wal_writer *w, char *err, size_t errlen) {
    if (!w) {
        kv_env_errf(err, errlen, "wal sync: invalid argument");
        return KV_INVALID;
    }
    return w->env->sync(w->file, err, errlen);
}

uint64_t kv_wal_size(const kv_wal_writer *w) {
    return w ? atomic_load_explicit(&w->size, memory_order_relaxed) : 0;
}

bool kv_wal_failed(const kv_wal_writer *w) {
    return w && w->failed != KV_OK;
}

kv_status kv_wal_writer_close(kv_wal_writer *w, char *err, size_t errlen) {
    if (!w)
        return KV_OK;
    kv_status st = w->env->close(w->file, err, errlen);
    kv_buf_free(&w->rec);
    free(w->path);
    free(w);
    return st;
}

/* Makes file bytes [off, off + n) available in the window; returns how many
   of them exist (fewer than n only at end of file) or -1 on error. */
static long long window(kv_wal_reader *r, uint64_t off, size_t n, const uint8_t **p, char *err,
                        size_t errlen, kv_status *st) {
    if (off >= r->win_off && off - r->win_off <= r->win_len &&
        r->win_len - (off - r->win_off) >= n) {
        *p = r->win + (off - r->win_off);
        return (long long)n;
    }
    size_t want = n > WAL_READ_CHUNK ? n : WAL_READ_CHUNK;
    if (want > r->win_cap) {
        uint8_t *nw = realloc(r->win, want);
        if (!nw) {
            kv_env_errf(err, errlen, "wal %s: out of memory for a %zu-byte record", r->path, n);
            *st = KV_NO_MEMORY;
            return -1;
        }
        r->win = nw;
        r->win_cap = want;
    }
    size_t got = 0;
    r->win_off = off;
    r->win_len = 0;
    *st = r->env->read_at(r->file, off, r->win, want, &got, err, errlen);
    if (*st != KV_OK)
        return -1;
    r->win_len = got;
    *p = r->win;
    return (long long)(got < n ? got : n);
}

kv_status kv_wal_reader_open(kv_wal_reader **out, kv_env *env, const char *path, char *err,
                             size_t errlen) {
    if (!out || !env || !path) {
        kv_env_errf(err, errlen, "wal: invalid argument");
        return KV_INVALID;
    }
    *out = NULL;
    kv_wal_reader *r = calloc(1, sizeof *r);
    if (!r || !(r->path = strdup(path))) {
        free(r);
        kv_env_errf(err, errlen, "wal %s: out of memory", path);
        return KV_NO_MEMORY;
    }
    r->env = env;
    kv_status st = env->open_read(env, path, &r->file, err, errlen);
    if (st == KV_OK)
        st = env->size(r->file, &r->file_size, err, errlen);
    const uint8_t *h = NULL;
    long long got = 0;
    if (st == KV_OK)
        got = window(r, 0, WAL_FILE_HEADER_LEN, &h, err, errlen, &st);
    if (st == KV_OK) {
        uint8_t want[WAL_FILE_HEADER_LEN];
        file_header(want);
        if (got < WAL_FILE_HEADER_LEN) {
            /* Died while writing the header: an empty log, if what is there
               is a prefix of a header. */
            if (memcmp(h, want, (size_t)got) != 0) {
                kv_env_errf(err, errlen, "corrupt log %s: not a log file (bad header at offset 0)",
                        path);
                st = KV_CORRUPT;
            }
            r->done = true;
            r->offset = 0;
        } else if (memcmp(h, WAL_MAGIC, WAL_MAGIC_LEN) != 0) {
            kv_env_errf(err, errlen, "corrupt log %s: not a log file (bad magic at offset 0)", path);
            st = KV_CORRUPT;
        } else if (kv_get_be32(h + 8) != WAL_VERSION) {
            kv_env_errf(err, errlen, "corrupt log %s: unsupported log format version %u at offset 8",
                    path, kv_get_be32(h + 8));
            st = KV_CORRUPT;
        } else {
            r->offset = WAL_FILE_HEADER_LEN;
        }
    }
    if (st != KV_OK) {
        kv_wal_reader_close(r);
        return st;
    }
    *out = r;
    return KV_OK;
}

/* Bytes of candidate records damaged_length may hash per call. */
#define WAL_LENGTH_PROBE_BUDGET (256u << 20)

/* Whether the record at @p off, whose length @p plen promises more than the
   file holds, checks out (@p sum) under a length that differs from @p plen
   in one byte and fits in the file: then the length field was damaged (an
   append cut short by a crash keeps the length it wrote), and the records
   after it would be lost as a "torn tail". 1 with *true_len set, 0 (a torn
   tail, or not found within WAL_LENGTH_PROBE_BUDGET bytes), -1 on a read
   error (*st set). */
static int damaged_length(kv_wal_reader *r, uint64_t off, uint32_t sum, uint32_t plen,
                          uint32_t *true_len, char *err, size_t errlen, kv_status *st) {
    uint64_t avail = r->file_size - off - WAL_RECORD_HEADER_LEN;
    uint64_t budget = WAL_LENGTH_PROBE_BUDGET;
    for (int b = 0; b < 4; b++) {
        uint32_t mask = 0xffu << (8 * b);
        for (uint32_t v = 0; v < 256; v++) {
            uint32_t cand = (plen & ~mask) | (v << (8 * b));
            if (cand == plen || cand > avail)
                continue;
            if ((uint64_t)cand + 4 > budget)
                return 0;
            budget -= (uint64_t)cand + 4;
            const uint8_t *p = NULL;
            long long got = window(r, off + 4, 4 + (size_t)cand, &p, err, errlen, st);
            if (got < 0)
                return -1;
            if ((uint64_t)got < 4 + (uint64_t)cand)
                continue;
            /* The checksum covers the length field: check the candidate in
               its place in the window, then put the file's bytes back. */
            uint8_t *lenp = r->win + (p - r->win);
            uint8_t saved[4];
            memcpy(saved, lenp, 4);
            kv_put_be32(lenp, cand);
            bool ok = KV_CHECKSUM_OK(sum, lenp, 4 + (size_t)cand);
            memcpy(lenp, saved, 4);
            if (ok) {
                *true_len = cand;
                return 1;
            }
        }
    }
    return 0;
}

kv_status kv_wal_read(kv_wal_reader *r, const uint8_t **data, size_t *len, char *err,
                      size_t errlen) {
    if (!r || !data || !len) {
        kv_env_errf(err, errlen, "wal read: invalid argument");
        return KV_INVALID;
    }
    if (r->done)
        return r->failed != KV_OK ? r->failed : KV_END;
    uint64_t off = r->offset;
    const uint8_t *p = NULL;
    kv_status st = KV_OK;
    long long got = window(r, off, WAL_RECORD_HEADER_LEN, &p, err, errlen, &st);
    if (got < 0)
        return st;
    if (got < WAL_RECORD_HEADER_LEN) {
        /* Clean end (got == 0) or a torn header. */
        r->done = true;
        return KV_END;
    }
    uint32_t sum = kv_get_be32(p);
    uint32_t plen = kv_get_be32(p + 4);
    uint64_t end = off + WAL_RECORD_HEADER_LEN + plen;
    if (end > r->file_size) {
        /* The header promises more than the file holds: the append was cut
           short by a crash, or the length is damaged. (Checked before
           reading, so that a damaged length never makes us allocate
           gigabytes.) */
        uint32_t true_len = 0;
        int d = damaged_length(r, off, sum, plen, &true_len, err, errlen, &st);
        if (d < 0)
            return st;
        r->done = true;
        if (d == 0)
            return KV_END;
        kv_env_errf(err, errlen,
                "corrupt log %s: damaged length in record at offset %llu (says %u bytes, past "
                "the end of the file; the record checks out as %u bytes, %llu bytes follow)",
                r->path, (unsigned long long)off, plen, true_len,
                (unsigned long long)(r->file_size - off - WAL_RECORD_HEADER_LEN - true_len));
        r->failed = KV_CORRUPT;
        return KV_CORRUPT;
    }
    got = window(r, off, WAL_RECORD_HEADER_LEN + (size_t)plen, &p, err, errlen, &st);
    if (got < 0)
        return st;
    if ((uint64_t)got < WAL_RECORD_HEADER_LEN + (uint64_t)plen) {
        /* The file shrank under us: treat like a torn tail. */
        r->done = true;
        return KV_END;
    }
    if (!KV_CHECKSUM_OK(sum, p + 4, 4 + (size_t)plen)) {
        if (end >= r->file_size) {
            /* The last record, whole in size but not in content: torn. */
            r->done = true;
            return KV_END;
        }
        kv_env_errf(err, errlen,
                "corrupt log %s: bad checksum in record at offset %llu (length %u, %llu bytes "
                "follow)",
                r->path, (unsigned long long)off, plen, (unsigned long long)(r->file_size - end));
        r->done = true;
        r->failed = KV_CORRUPT;
        return KV_CORRUPT;
    }
    r->offset = end;
    *data = p + WAL_RECORD_HEADER_LEN;
    *len = plen;
    return KV_OK;
}

uint64_t kv_wal_reader_offset(const kv_wal_reader *r) {
    return r ? r->offset : 0;
}

uint64_t kv_wal_reader_dropped(const kv_wal_reader *r) {
    if (!r || !r->done || r->failed != KV_OK || r->offset < WAL_FILE_HEADER_LEN) return 0;
    return r->file_size > r->offset ? r->file_size - r->offset : 0;
}

void kv_wal_reader_close(kv_wal_reader *r) {
    if (!r)
        return;
    if (r->file)
        r->env->close(r->file, NULL, 0);
    free(r->win);
    free(r->path);
    free(r);
}
