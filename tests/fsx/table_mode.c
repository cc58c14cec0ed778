/*
 * table_mode.c: fsx -M, random operations on a table of a cellfs mount
 * (or, with -n, on a plain directory laid out the same way) checked
 * against the model of table_model.c: writes of whole cells, writes at
 * offsets and appends, renames within a row, of a cell across rows and of
 * rows (on cellfs every version moves with its time; refused with EPERM
 * where a delete in the target may hide one), unlinks, mkdir and rm -r of
 * rows, rmdir of a row with cells, q@ts writes and removals, utimens, and
 * remounts through a command given on the command line. After each operation the cells it touched are checked;
 * every -C operations, after a remount and at the end the whole table is.
 *
 * What a call may do is the SPEC's rule: a call that returns success
 * leaves the file as the user asked; only where HBase's timestamp rules
 * make that impossible (a delete marker masks the put, an older time than
 * another retained version) may it fail instead, and the model then stays
 * as it was. Called by main.c; calls table_model.c, table_check.c, util.c.
 */
#include "table.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum {
    T_PUT, T_EMPTY, T_PATCH, T_APPEND, T_READ, T_RENAME, T_XRENAME, T_UNLINK, T_MKROW,
    T_RMROW, T_RMDIR_FULL, T_VPUT, T_VRM, T_UTIMENS, T_ROWMV, T_KINDS,
    T_REMOUNT = T_KINDS, T_COUNTED
};

static const char *const kNames[T_COUNTED] = {
    "put", "empty", "patch", "append", "read", "rename", "xrename", "unlink", "mkrow",
    "rmrow", "rmdir-full", "vput", "vrm", "utimens", "rowmv", "remount",
};

static const unsigned kWeights[T_KINDS] = {14, 2, 5, 4, 6, 6, 5, 6, 3, 1, 1, 6, 3, 5, 2};

/* Slack around the wall clock for the time of a delete marker. */
#define DEL_SLACK_MS 2000
#define HOUR_MS 3600000LL
#define YEAR_MS (365LL * 24 * HOUR_MS)

typedef struct tm_state {
    tm_ctx c;
    bool off[T_KINDS];       /* left out with -x (or not for this target) */
    bool corrupted;          /* -Z done */
    uint64_t counts[T_COUNTED];
} tm_state;

/* "none" or the timestamp, for the log. */
static const char *ts_text(int64_t ts, char buf[24]) {
    if (ts == TM_NO_TS)
        return "none";
    snprintf(buf, 24, "%" PRId64, ts);
    return buf;
}

static tm_col *col_at(tm_ctx *c, int r, int f, int q) { return &c->model.rows[r].col[f][q]; }

static int64_t stat_mtime_ms(tm_ctx *c, const char *path) {
    struct stat st;
    if (stat(path, &st) != 0)
        fsx_fail_errno(&c->run, "stat %s", path);
    return (int64_t)st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000;
}

/* Opens, writes @p len bytes at @p off (or appends) and closes; returns 0
 * or the errno of the first call that failed, with *step naming it. */
static int write_file(const char *path, int flags, const uint8_t *data, size_t len,
                      uint64_t off, const char **step) {
    *step = "open";
    int fd = open(path, flags | O_CLOEXEC, 0644);
    if (fd < 0)
        return errno;
    int err = 0;
    if (flags & O_APPEND) {
        size_t done = 0;
        while (done < len && err == 0) {
            ssize_t n = write(fd, data + done, len - done);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                err = n < 0 ? errno : EIO;
            else
                done += (size_t)n;
        }
    } else if (len > 0 && fsx_pwrite_all(fd, data, len, off) < 0) {
        err = errno;
    }
    if (err != 0) {
        *step = "write";
        close(fd);
        return err;
    }
    *step = "close";
    return close(fd) != 0 ? errno : 0;
}

static int pick_row(tm_ctx *c, bool exists) {
    int cand[TM_ROWS], n = 0;
    for (int r = 0; r < TM_ROWS; r++)
        if (c->model.rows[r].exists == exists)
            cand[n++] = r;
    return n == 0 ? -1 : cand[fsx_below(&c->rng, (uint64_t)n)];
}

/* A random existing cell; false when there is none. */
static bool pick_cell(tm_ctx *c, int *r, int *f, int *q) {
    int n = 0;
    for (int i = 0; i < TM_ROWS; i++)
        n += (int)tm_row_cells(&c->model.rows[i]);
    if (n == 0)
        return false;
    int k = (int)fsx_below(&c->rng, (uint64_t)n);
    for (int i = 0; i < TM_ROWS; i++)
        for (int j = 0; j < TM_FAMS; j++)
            for (int l = 0; l < TM_QUALS; l++)
                if (col_at(c, i, j, l)->nv > 0 && k-- == 0) {
                    *r = i, *f = j, *q = l;
                    return true;
                }
    return false;
}

/* After a write with an implicit timestamp: the file shows what was
 * written, and on cellfs its timestamp is newer than every version the
 * column kept (successive writes give distinct, increasing versions). */
static void after_implicit_put(tm_ctx *c, int r, int f, int q, const uint8_t *val, size_t len) {
    char path[PATH_MAX];
    tm_path(c, path, sizeof path, r, f, q, TM_NO_TS);
    ssize_t n = tm_read_file(c, path);
    if (n < 0)
        fsx_fail_errno(&c->run, "read %s after writing it", path);
    fsx_compare(&c->run, "content after a write and close", 0, val, len, c->got, (size_t)n, NULL);
    int64_t ts = stat_mtime_ms(c, path);
    tm_col *col = col_at(c, r, f, q);
    if (!c->opt->native && col->nv > 0 && ts <= tm_newest(col))
        fsx_fail(&c->run, "%s: the write got timestamp %" PRId64 ", not newer than the version "
                 "at %" PRId64 " (op %" PRIu64 "); successive writes must give distinct, "
                 "increasing versions", path, ts, tm_newest(col), col->v[0].op);
    if (c->opt->native)
        tm_delete_column(col, TM_NO_TS);   /* a file has one content, whatever its mtime */
    if (tm_put(c, col, f, ts, val, len, c->run.op) != 0)
        fsx_fail(&c->run, "out of memory");
    tm_check_cell(c, r, f, q);
}

/* The value of the newest version, copied into c->buf; its length. */
static size_t current_value(tm_ctx *c, const tm_col *col) {
    if (col->nv == 0)
        return 0;
    if (col->v[0].len > 0)
        memcpy(c->buf, col->v[0].val, col->v[0].len);
    return col->v[0].len;
}

/* Before a cell is made in r/f: the family directory, made with mkdir
 * when the row does not list it, as cp -r and mv do; mkdir of a listed one
 * fails with EEXIST (tried now and then). */
static void ensure_family(tm_ctx *c, int r, int f) {
    tm_row *row = &c->model.rows[r];
    char path[PATH_MAX];
    tm_path(c, path, sizeof path, r, f, -1, TM_NO_TS);
    if (tm_fam_listed(c, row, f)) {
        if (fsx_below(&c->rng, 8) != 0)
            return;
        fsx_log_add(&c->run.log, c->run.op, "mkdir    %s (listed: expect EEXIST)", path);
        if (mkdir(path, 0755) == 0)
            fsx_fail(&c->run, "mkdir %s succeeded; the row lists the family already", path);
        if (errno != EEXIST)
            fsx_fail_errno(&c->run, "mkdir %s: expected EEXIST", path);
        return;
    }
    fsx_log_add(&c->run.log, c->run.op, "mkdir    %s (not listed)", path);
    if (mkdir(path, 0755) != 0)
        fsx_fail_errno(&c->run, "mkdir %s", path);
    row->made[f] = true;
}

/* A whole new value; @p empty: none at all (`: > q`, an open with O_TRUNC
 * and a close without a write). */
static void op_put(tm_ctx *c, int r, int f, int q, bool empty) {
    ensure_family(c, r, f);
    size_t len = empty ? 0 : (size_t)fsx_range(&c->rng, 1, c->opt->maxlen);
    fsx_fill(c->buf, len, c->run.op, 0);
    char path[PATH_MAX];
    tm_path(c, path, sizeof path, r, f, q, TM_NO_TS);
    fsx_log_add(&c->run.log, c->run.op, "%s %s len %zu (O_CREAT|O_TRUNC)",
                empty ? "empty   " : "put     ", path, len);
    const char *step;
    int err = write_file(path, O_WRONLY | O_CREAT | O_TRUNC, c->buf, len, 0, &step);
    if (err != 0) {
        errno = err;
        fsx_fail_errno(&c->run, "%s %s", step, path);
    }
    after_implicit_put(c, r, f, q, c->buf, len);
}

/* A write at an offset (or an append) into the cell's current value. */
static void op_patch(tm_ctx *c, int r, int f, int q, bool append) {
    ensure_family(c, r, f);
    tm_col *col = col_at(c, r, f, q);
    size_t base = current_value(c, col);
    size_t room = c->opt->maxlen - (append ? base : 0);
    if (room == 0) {
        op_put(c, r, f, q, false);
        return;
    }
    size_t len = (size_t)fsx_range(&c->rng, 1, c->opt->maxoplen < room ? c->opt->maxoplen : room);
    uint64_t off = append ? base : fsx_below(&c->rng, c->opt->maxlen - len + 1);
    if (off > base)
        memset(c->buf + base, 0, off - base);
    fsx_fill(c->buf + off, len, c->run.op, off);
    size_t newlen = off + len > base ? off + len : base;
    char path[PATH_MAX];
    tm_path(c, path, sizeof path, r, f, q, TM_NO_TS);
    fsx_log_add(&c->run.log, c->run.op, "%s %s at %" PRIu64 " len %zu (value %zu bytes)",
                append ? "append  " : "patch   ", path, off, len, base);
    const char *step;
    int err = write_file(path, append ? O_WRONLY | O_APPEND | O_CREAT : O_RDWR | O_CREAT,
                         c->buf + off, len, off, &step);
    if (err != 0) {
        errno = err;
        fsx_fail_errno(&c->run, "%s %s", step, path);
    }
    after_implicit_put(c, r, f, q, c->buf, newlen);
}

static void op_read(tm_ctx *c, int r, int f, int q) {
    fsx_log_add(&c->run.log, c->run.op, "read     %s/%s/%s", tm_row_names[r], tm_fam_names[f],
                tm_qual_names[q]);
    tm_check_cell(c, r, f, q);
}

static void delete_column(tm_ctx *c, tm_col *col) {
    tm_delete_column(col, tm_now_ms() + DEL_SLACK_MS);
    (void)c;
}

static void op_unlink(tm_ctx *c, int r, int f, int q) {
    char path[PATH_MAX];
    tm_path(c, path, sizeof path, r, f, q, TM_NO_TS);
    tm_col *col = col_at(c, r, f, q);
    fsx_log_add(&c->run.log, c->run.op, "unlink   %s%s", path, col->nv ? "" : " (expect ENOENT)");
    if (unlink(path) != 0) {
        if (col->nv == 0 && errno == ENOENT)
            return;
        fsx_fail_errno(&c->run, "unlink %s", path);
    }
    if (col->nv == 0)
        fsx_fail(&c->run, "unlink %s succeeded; the model has no such cell", path);
    delete_column(c, col);
    tm_check_cell(c, r, f, q);
}

/* Whether a delete may mask a put at @p ts into @p col: never in a family
 * with NEW_VERSION_BEHAVIOR (-B), where a delete masks only earlier puts. */
static bool maybe_masked(const tm_ctx *c, const tm_col *col, int64_t ts) {
    return !c->opt->new_version_behavior && tm_maybe_masked(col, ts);
}

/* utimens of q to @p t (ms), or to now when t is TM_NO_TS. The newest
 * version is re-stamped; a time that a delete may mask, or one older than
 * another retained version, may be refused. */
static void utimens_cell(tm_ctx *c, int r, int f, int q, int64_t t) {
    char path[PATH_MAX];
    tm_path(c, path, sizeof path, r, f, q, TM_NO_TS);
    tm_col *col = col_at(c, r, f, q);
    /* Older than another version the store holds: retained (v[1]) or kept
       beyond VERSIONS until a compaction (written > nv). */
    bool older = t != TM_NO_TS && ((col->nv > 1 && t <= col->v[1].ts) ||
                                   (col->written != col->nv && t < col->v[0].ts));
    bool may_fail = !c->opt->native && t != TM_NO_TS && (maybe_masked(c, col, t) || older);
    char tsbuf[24];
    fsx_log_add(&c->run.log, c->run.op, "utimens  %s to %s%" PRId64 " (newest %s)%s",
                path, t == TM_NO_TS ? "now " : "", t == TM_NO_TS ? tm_now_ms() : t,
                ts_text(tm_newest(col), tsbuf), may_fail ? " (may be refused)" : "");
    struct timespec times[2];
    if (t == TM_NO_TS) {
        times[0].tv_nsec = times[1].tv_nsec = UTIME_NOW;
        times[0].tv_sec = times[1].tv_sec = 0;
    } else {
        int64_t s = t >= 0 ? t / 1000 : -((-t + 999) / 1000);
        times[0].tv_sec = times[1].tv_sec = (time_t)s;
        times[0].tv_nsec = times[1].tv_nsec = (long)(t - s * 1000) * 1000000L;
    }
    int64_t before = tm_now_ms();
    if (utimensat(AT_FDCWD, path, times, 0) != 0) {
        if (!may_fail)
            fsx_fail_errno(&c->run, "utimensat %s", path);
        fsx_log_add(&c->run.log, c->run.op, "         refused: %s", strerror(errno));
        tm_check_cell(c, r, f, q);
        return;
    }
    int64_t got = stat_mtime_ms(c, path);
    if (t == TM_NO_TS) {
        if (got < before - DEL_SLACK_MS || got > tm_now_ms() + DEL_SLACK_MS)
            fsx_fail(&c->run, "utimens %s to now: mtime %" PRId64 ", now is %" PRId64, path, got,
                     before);
        t = got;
    }
    tm_version v0 = col->v[0];
    uint8_t *val = NULL;
    if (v0.len > 0 && (val = malloc(v0.len)) == NULL)
        fsx_fail(&c->run, "out of memory");
    if (v0.len > 0)
        memcpy(val, v0.val, v0.len);
    if (t == v0.ts) {
        free(val);
        tm_check_cell(c, r, f, q);
        return;
    }
    if (older && !c->opt->native) {
        /* Accepted although older than another version: then q must still
           show its value, with the time set; what became of the other
           versions is the driver's choice. */
        tm_delete_column(col, TM_NO_TS);
        col->history_unknown = true;
        col->written = UINT32_MAX / 2;
    } else {
        tm_delete_version(col, v0.ts);
    }
    if (tm_put(c, col, f, t, val, v0.len, v0.op) != 0)
        fsx_fail(&c->run, "out of memory");
    free(val);
    tm_check_cell(c, r, f, q);
}

static int64_t random_time(tm_ctx *c, const tm_col *col, bool allow_older) {
    int64_t now = tm_now_ms();
    int64_t newest = tm_newest(col);
    unsigned kind = (unsigned)fsx_below(&c->rng, 4);
    if (kind == 0 && !c->opt->no_future)
        return now + (int64_t)fsx_range(&c->rng, HOUR_MS, YEAR_MS);
    if (kind == 1 && allow_older && col->nv > 0)
        return col->v[col->nv - 1].ts - (int64_t)fsx_range(&c->rng, 1, YEAR_MS);
    int64_t lo = newest != TM_NO_TS && newest < now - 10000 ? newest + 1 : now - 10 * YEAR_MS;
    if (lo >= now - 10000)
        return now + (c->opt->no_future ? -(int64_t)fsx_range(&c->rng, YEAR_MS, 10 * YEAR_MS)
                                        : (int64_t)fsx_range(&c->rng, HOUR_MS, YEAR_MS));
    return (int64_t)fsx_range(&c->rng, (uint64_t)lo, (uint64_t)(now - 10000));
}

static void op_utimens(tm_ctx *c, int r, int f, int q) {
    tm_col *col = col_at(c, r, f, q);
    bool now_ok = col->del_max == TM_NO_TS || col->del_max < tm_now_ms() - DEL_SLACK_MS;
    if (now_ok && tm_newest(col) < tm_now_ms() - DEL_SLACK_MS && fsx_below(&c->rng, 6) == 0) {
        utimens_cell(c, r, f, q, TM_NO_TS);
        return;
    }
    /* On a native directory any time works; on cellfs older than the
       oldest version is refused or re-stamps. */
    utimens_cell(c, r, f, q, random_time(c, col, !c->opt->native));
}

/* rename(2) within a row: one atomic row mutation on cellfs. */
static void op_rename(tm_ctx *c, int r, int f, int q) {
    int f2 = (int)fsx_below(&c->rng, TM_FAMS), q2 = (int)fsx_below(&c->rng, TM_QUALS);
    if (f2 == f && q2 == q)
        q2 = (q2 + 1) % TM_QUALS;
    ensure_family(c, r, f2);
    tm_col *src = col_at(c, r, f, q), *dst = col_at(c, r, f2, q2);
    char from[PATH_MAX], to[PATH_MAX];
    tm_path(c, from, sizeof from, r, f, q, TM_NO_TS);
    tm_path(c, to, sizeof to, r, f2, q2, TM_NO_TS);
    int64_t ts = src->v[0].ts;
    bool may_fail = !c->opt->native &&
                    (maybe_masked(c, dst, ts) || (dst->nv > 0 && tm_newest(dst) >= ts));
    fsx_log_add(&c->run.log, c->run.op, "rename   %s -> %s/%s (ts %" PRId64 "%s)%s", from,
                tm_fam_names[f2], tm_qual_names[q2], ts, dst->nv ? ", over a cell" : "",
                may_fail ? " (may be refused)" : "");
    if (rename(from, to) != 0) {
        if (!may_fail)
            fsx_fail_errno(&c->run, "rename %s %s", from, to);
        fsx_log_add(&c->run.log, c->run.op, "         refused: %s", strerror(errno));
    } else {
        bool over = dst->nv > 0;
        if (over)
            delete_column(c, dst);
        if (tm_put(c, dst, f2, ts, src->v[0].val, src->v[0].len, src->v[0].op) != 0)
            fsx_fail(&c->run, "out of memory");
        /* Whether the target keeps its older versions is being changed
           (issue 8: keep what VERSIONS allows); only its newest is checked. */
        dst->history_unknown = over;
        if (over)
            dst->written = UINT32_MAX / 2;
        delete_column(c, src);
    }
    tm_check_cell(c, r, f, q);
    tm_check_cell(c, r, f2, q2);
}

/* Whether a delete in @p dst may mask one of the versions a rename
   across rows moves from @p src (then cellfs refuses it: EPERM). */
static bool move_maybe_masked(const tm_ctx *c, const tm_col *src, const tm_col *dst) {
    if (c->opt->new_version_behavior)
        return false;
    for (size_t i = 0; i < src->nv; i++)
        if (tm_maybe_masked(dst, src->v[i].ts))
            return true;
    /* versions of src the model does not know are older than v[0] */
    return src->history_unknown && (dst->del_max != TM_NO_TS || dst->nexact > 0);
}

/* rename(2) across rows of the table: on cellfs every version moves with
   its timestamp; the target's versions at or after the source's newest
   go, its older ones stay (cellfs(1), WRITING: renames). */
static void op_xrename(tm_ctx *c, int r, int f, int q) {
    int cand[TM_ROWS], n = 0;
    for (int i = 0; i < TM_ROWS; i++)
        if (i != r && c->model.rows[i].exists)
            cand[n++] = i;
    if (n == 0)
        return;           /* no other row (-x rename leaves renames within a row out) */
    int r2 = cand[fsx_below(&c->rng, (uint64_t)n)];
    int f2 = (int)fsx_below(&c->rng, TM_FAMS), q2 = (int)fsx_below(&c->rng, TM_QUALS);
    ensure_family(c, r2, f2);
    tm_col *src = col_at(c, r, f, q), *dst = col_at(c, r2, f2, q2);
    char from[PATH_MAX], to[PATH_MAX];
    tm_path(c, from, sizeof from, r, f, q, TM_NO_TS);
    tm_path(c, to, sizeof to, r2, f2, q2, TM_NO_TS);
    bool may_fail = !c->opt->native && move_maybe_masked(c, src, dst);
    fsx_log_add(&c->run.log, c->run.op, "xrename  %s -> %s (%zu versions)%s", from, to, src->nv,
                may_fail ? " (may be refused)" : "");
    if (rename(from, to) != 0) {
        if (!may_fail || errno != EPERM)
            fsx_fail_errno(&c->run, "rename %s %s", from, to);
        fsx_log_add(&c->run.log, c->run.op, "         refused: %s", strerror(errno));
        tm_check_cell(c, r, f, q);
        tm_check_cell(c, r2, f2, q2);
        return;
    }
    if (c->opt->native) {
        delete_column(c, dst);
        if (tm_put(c, dst, f2, src->v[0].ts, src->v[0].val, src->v[0].len, src->v[0].op) != 0)
            fsx_fail(&c->run, "out of memory");
    } else {
        bool over = dst->nv > 0 || dst->written > 0;
        int64_t newest = src->v[0].ts;
        for (size_t i = 0; i < dst->nv;) {
            bool moved = false;
            for (size_t k = 0; k < src->nv; k++)
                moved = moved || src->v[k].ts == dst->v[i].ts;
            if (dst->v[i].ts >= newest && !moved)
                tm_delete_version(dst, dst->v[i].ts);
            else
                i++;
        }
        for (size_t k = src->nv; k-- > 0;)
            if (tm_put(c, dst, f2, src->v[k].ts, src->v[k].val, src->v[k].len, src->v[k].op) != 0)
                fsx_fail(&c->run, "out of memory");
        /* Beside the versions the model knows, the store may hold others
           (older than VERSIONS, not yet compacted) that now show. */
        dst->history_unknown = over || src->history_unknown;
        if (dst->history_unknown)
            dst->written = UINT32_MAX / 2;
    }
    delete_column(c, src);
    tm_check_cell(c, r, f, q);
    tm_check_cell(c, r2, f2, q2);
}

/* A row that a directory rename may replace: absent, or without cells
   and family directories (on cellfs: no cells, and none made with mkdir). */
static bool row_replaceable(const tm_row *row) {
    if (!row->exists)
        return true;
    if (tm_row_cells(row) > 0)
        return false;
    for (int f = 0; f < TM_FAMS; f++)
        if (row->made[f])
            return false;
    return true;
}

/* rename(2) of a row directory (mv -T r r2) within the table: every
   version moves with its time; onto a row with cells ENOTEMPTY; on cellfs
   EPERM is accepted where a delete in r2 may hide a moved version. */
static void op_rowmv(tm_ctx *c, int r) {
    int cand[TM_ROWS], n = 0;
    bool full = fsx_below(&c->rng, 6) == 0;       /* now and then onto a row with cells */
    for (int i = 0; i < TM_ROWS; i++) {
        const tm_row *row = &c->model.rows[i];
        if (i != r && (full ? row->exists && tm_row_cells(row) > 0 : row_replaceable(row)))
            cand[n++] = i;
    }
    if (n == 0)
        return;
    int r2 = cand[fsx_below(&c->rng, (uint64_t)n)];
    tm_row *src = &c->model.rows[r], *dst = &c->model.rows[r2];
    char from[PATH_MAX], to[PATH_MAX];
    tm_path(c, from, sizeof from, r, -1, -1, TM_NO_TS);
    tm_path(c, to, sizeof to, r2, -1, -1, TM_NO_TS);
    bool may_fail = false;
    for (int f = 0; f < TM_FAMS && !c->opt->native; f++)
        for (int q = 0; q < TM_QUALS; q++)
            if (src->col[f][q].nv > 0 && move_maybe_masked(c, &src->col[f][q], &dst->col[f][q]))
                may_fail = true;
    fsx_log_add(&c->run.log, c->run.op, "rowmv    %s -> %s (%zu cells%s)%s", from, to,
                tm_row_cells(src), full ? "; onto a row with cells: expect ENOTEMPTY" : "",
                may_fail && !full ? " (may be refused)" : "");
    if (rename(from, to) != 0) {
        if (full ? errno != ENOTEMPTY && errno != EEXIST : !may_fail || errno != EPERM)
            fsx_fail_errno(&c->run, "rename %s %s", from, to);
        fsx_log_add(&c->run.log, c->run.op, "         refused: %s", strerror(errno));
    } else if (full) {
        fsx_fail(&c->run, "rename %s %s succeeded over a row with cells", from, to);
    } else {
        for (int f = 0; f < TM_FAMS; f++) {
            for (int q = 0; q < TM_QUALS; q++) {
                tm_col *a = &src->col[f][q], *b = &dst->col[f][q];
                for (size_t k = a->nv; k-- > 0;)
                    if (tm_put(c, b, f, a->v[k].ts, a->v[k].val, a->v[k].len, a->v[k].op) != 0)
                        fsx_fail(&c->run, "out of memory");
                if (a->nv > 0 && a->history_unknown) {
                    b->history_unknown = true;
                    b->written = UINT32_MAX / 2;
                }
                delete_column(c, a);
            }
            dst->made[f] = src->made[f];
            src->made[f] = false;
        }
        dst->exists = true;
        dst->young = src->young;
        src->exists = false;
        src->young = false;
    }
    tm_check_row(c, r);
    tm_check_row(c, r2);
}

static void op_mkrow(tm_ctx *c, int r) {
    char path[PATH_MAX];
    tm_path(c, path, sizeof path, r, -1, -1, TM_NO_TS);
    tm_row *row = &c->model.rows[r];
    fsx_log_add(&c->run.log, c->run.op, "mkrow    %s and some of its families (cp -r)", path);
    if (mkdir(path, 0755) != 0)
        fsx_fail_errno(&c->run, "mkdir %s", path);
    row->exists = true;
    row->young = !c->opt->native;
    for (int f = 0; f < TM_FAMS; f++) {
        row->made[f] = fsx_below(&c->rng, 2) == 0;
        tm_path(c, path, sizeof path, r, f, -1, TM_NO_TS);
        /* A new row lists no family yet: each mkdir reaches the daemon. */
        if (row->made[f] && mkdir(path, 0755) != 0)
            fsx_fail_errno(&c->run, "mkdir %s", path);
    }
    tm_check_row(c, r);
}

/* rm -r of a row: unlink what each family lists, rmdir each family, rmdir
 * the row. */
static void op_rmrow(tm_ctx *c, int r) {
    char path[PATH_MAX];
    tm_path(c, path, sizeof path, r, -1, -1, TM_NO_TS);
    fsx_log_add(&c->run.log, c->run.op, "rmrow    %s (rm -r, %zu cells)", path,
                tm_row_cells(&c->model.rows[r]));
    tm_row *row = &c->model.rows[r];
    tm_check_row(c, r);   /* so that the listings below are the model's */
    for (int f = 0; f < TM_FAMS; f++) {
        bool listed = tm_fam_listed(c, row, f);
        row->made[f] = false;
        if (!listed)
            continue;     /* not listed, so no cells (tm_check_row) */
        for (int q = 0; q < TM_QUALS; q++) {
            tm_col *col = col_at(c, r, f, q);
            if (col->nv > 0) {
                tm_path(c, path, sizeof path, r, f, q, TM_NO_TS);
                if (unlink(path) != 0)
                    fsx_fail_errno(&c->run, "rm -r: unlink %s", path);
            }
            delete_column(c, col);
        }
        tm_path(c, path, sizeof path, r, f, -1, TM_NO_TS);
        if (rmdir(path) != 0)
            fsx_fail_errno(&c->run, "rm -r: rmdir %s", path);
    }
    tm_path(c, path, sizeof path, r, -1, -1, TM_NO_TS);
    if (rmdir(path) != 0)
        fsx_fail_errno(&c->run, "rm -r: rmdir %s", path);
    row->exists = false;
    row->young = false;
    tm_check_row(c, r);
}

static void op_rmdir_full(tm_ctx *c, int r) {
    char path[PATH_MAX];
    tm_path(c, path, sizeof path, r, -1, -1, TM_NO_TS);
    fsx_log_add(&c->run.log, c->run.op, "rmdir    %s (has cells: expect ENOTEMPTY)", path);
    if (rmdir(path) == 0)
        fsx_fail(&c->run, "rmdir %s succeeded on a row with %zu cells", path,
                 tm_row_cells(&c->model.rows[r]));
    if (errno != ENOTEMPTY && errno != EEXIST)
        fsx_fail_errno(&c->run, "rmdir %s: expected ENOTEMPTY", path);
    tm_check_row(c, r);
}

/* A write of q@ts: puts exactly that version. */
static void op_vput(tm_ctx *c, int r, int f, int q) {
    ensure_family(c, r, f);
    tm_col *col = col_at(c, r, f, q);
    bool room = col->nv < tm_versions(c, f) && !col->history_unknown;
    int64_t ts;
    if (col->nv > 0 && fsx_below(&c->rng, 4) == 0)
        ts = col->v[fsx_below(&c->rng, col->history_unknown ? 1 : col->nv)].ts;  /* replace */
    else
        ts = random_time(c, col, room);
    size_t len = (size_t)fsx_below(&c->rng, c->opt->maxlen + 1);
    fsx_fill(c->buf, len, c->run.op, 0);
    char path[PATH_MAX];
    tm_path(c, path, sizeof path, r, f, q, ts);
    bool may_fail = maybe_masked(c, col, ts);
    char tsbuf[24];
    fsx_log_add(&c->run.log, c->run.op, "vput     %s len %zu (newest %s)%s", path, len,
                ts_text(tm_newest(col), tsbuf), may_fail ? " (may be refused: a delete masks it)" : "");
    const char *step;
    int err = write_file(path, O_WRONLY | O_CREAT | O_TRUNC, c->buf, len, 0, &step);
    if (err != 0) {
        if (!may_fail) {
            errno = err;
            fsx_fail_errno(&c->run, "%s %s", step, path);
        }
        fsx_log_add(&c->run.log, c->run.op, "         refused at %s: %s", step, strerror(err));
    } else if (tm_put(c, col, f, ts, c->buf, len, c->run.op) != 0) {
        fsx_fail(&c->run, "out of memory");
    }
    tm_check_cell(c, r, f, q);
}

/* rm q@ts: exactly that version goes. */
static void op_vrm(tm_ctx *c, int r, int f, int q) {
    tm_col *col = col_at(c, r, f, q);
    if (col->history_unknown || col->written != col->nv) {
        op_unlink(c, r, f, q);   /* older versions might come back: not deterministic */
        return;
    }
    bool absent = fsx_below(&c->rng, 5) == 0;
    int64_t ts = absent ? col->v[0].ts + 1 + (int64_t)fsx_below(&c->rng, 1000)
                        : col->v[fsx_below(&c->rng, col->nv)].ts;
    for (size_t i = 0; absent && i < col->nv; i++)
        if (col->v[i].ts == ts)
            absent = false;
    char path[PATH_MAX];
    tm_path(c, path, sizeof path, r, f, q, ts);
    fsx_log_add(&c->run.log, c->run.op, "vrm      %s%s", path, absent ? " (expect ENOENT)" : "");
    if (unlink(path) != 0) {
        if (absent && errno == ENOENT)
            return;
        fsx_fail_errno(&c->run, "unlink %s", path);
    }
    if (absent)
        fsx_fail(&c->run, "unlink %s succeeded; the model has no such version", path);
    tm_delete_version(col, ts);
    tm_check_cell(c, r, f, q);
}

static void remount(tm_state *s) {
    tm_ctx *c = &s->c;
    fsx_log_add(&c->run.log, c->run.op, "remount  %s", c->opt->remount_cmd);
    fflush(stdout);
    int rc = system(c->opt->remount_cmd);
    if (rc != 0)
        fsx_fail(&c->run, "the remount command failed (status %d): %s", rc, c->opt->remount_cmd);
    /* A cellfs row is its cells: one without cells is gone after a
       remount (a directory made with mkdir lives only in the daemon). */
    if (!c->opt->native)
        for (int r = 0; r < TM_ROWS; r++) {
            tm_row *row = &c->model.rows[r];
            if (tm_row_cells(row) == 0)
                row->exists = false;
            /* and no row is young any more: each lists every family */
            row->young = false;
            memset(row->made, 0, sizeof row->made);
        }
    s->counts[T_REMOUNT]++;
    tm_check_all(c, "after the remount");
}

/* Fills s->off from -x and the target; returns -1 on an unknown name. */
static int parse_skip(tm_state *s) {
    s->off[T_VPUT] = s->off[T_VRM] = s->c.opt->native;   /* q@ts is cellfs's */
    const char *p = s->c.opt->skip_ops;
    while (p != NULL && *p != '\0') {
        size_t n = strcspn(p, ",");
        int k = 0;
        while (k < T_KINDS && (strlen(kNames[k]) != n || strncmp(kNames[k], p, n) != 0))
            k++;
        if (k == T_KINDS) {
            fprintf(stderr, "fsx: -x: unknown operation '%.*s'\n", (int)n, p);
            return -1;
        }
        s->off[k] = true;
        p += n + (p[n] == ',');
    }
    return 0;
}

static int pick_kind(tm_state *s) {
    unsigned total = 0;
    for (int k = 0; k < T_KINDS; k++)
        total += s->off[k] ? 0 : kWeights[k];
    unsigned x = (unsigned)fsx_below(&s->c.rng, total);
    for (int k = 0; k < T_KINDS; k++) {
        if (s->off[k])
            continue;
        if (x < kWeights[k])
            return k;
        x -= kWeights[k];
    }
    return T_PUT;
}

/* -Z: one byte of a cell's value in the model changes, as if the file
 * system had returned a wrong byte; the checks must notice. */
static void corrupt_model(tm_state *s) {
    int r, f, q;
    if (!pick_cell(&s->c, &r, &f, &q) || col_at(&s->c, r, f, q)->v[0].len == 0)
        return;   /* try again after the next operation */
    tm_version *v = &col_at(&s->c, r, f, q)->v[0];
    v->val[fsx_below(&s->c.rng, v->len)] ^= 0x5a;
    fsx_log_add(&s->c.run.log, s->c.run.op, "corrupt  the model of %s/%s/%s (-Z)",
                tm_row_names[r], tm_fam_names[f], tm_qual_names[q]);
    s->corrupted = true;
    tm_check_cell(&s->c, r, f, q);
}

/* Runs one operation of @p kind, or the nearest one the state allows;
 * returns the kind that ran. */
static int run_op(tm_ctx *c, int kind) {
    int r, f, q;
    bool need_cell = kind == T_READ || kind == T_RENAME || kind == T_XRENAME ||
                     kind == T_UNLINK || kind == T_VRM || kind == T_UTIMENS;
    if (need_cell && !pick_cell(c, &r, &f, &q))
        kind = T_PUT;
    if (kind == T_MKROW && (r = pick_row(c, false)) < 0)
        kind = T_PUT;
    if (kind == T_RMDIR_FULL && pick_cell(c, &r, &f, &q) == false)
        kind = T_PUT;
    bool need_row = kind == T_PUT || kind == T_EMPTY || kind == T_PATCH || kind == T_APPEND ||
                    kind == T_RMROW || kind == T_VPUT || kind == T_ROWMV;
    if (need_row) {
        if ((r = pick_row(c, true)) < 0) {
            r = pick_row(c, false);
            kind = T_MKROW;
        } else {
            f = (int)fsx_below(&c->rng, TM_FAMS);
            q = (int)fsx_below(&c->rng, TM_QUALS);
        }
    }
    switch (kind) {
    case T_PUT: op_put(c, r, f, q, false); break;
    case T_EMPTY: op_put(c, r, f, q, true); break;
    case T_PATCH: op_patch(c, r, f, q, false); break;
    case T_APPEND: op_patch(c, r, f, q, true); break;
    case T_READ: op_read(c, r, f, q); break;
    case T_RENAME: op_rename(c, r, f, q); break;
    case T_XRENAME: op_xrename(c, r, f, q); break;
    case T_UNLINK:
        if (fsx_below(&c->rng, 6) == 0)
            q = (q + 1 + (int)fsx_below(&c->rng, TM_QUALS - 1)) % TM_QUALS;
        op_unlink(c, r, f, q);
        break;
    case T_MKROW: op_mkrow(c, r); break;
    case T_RMROW: op_rmrow(c, r); break;
    case T_RMDIR_FULL: op_rmdir_full(c, r); break;
    case T_VPUT: op_vput(c, r, f, q); break;
    case T_VRM: op_vrm(c, r, f, q); break;
    case T_UTIMENS: op_utimens(c, r, f, q); break;
    case T_ROWMV: op_rowmv(c, r); break;
    default: break;
    }
    return kind;
}

/* A new table: on cellfs mkdir makes it, and its .schema gets the two
 * families of the model; on a native directory it is a plain one. */
static void make_table(tm_ctx *c) {
    if (mkdir(c->opt->path, 0755) != 0)
        fsx_fail_errno(&c->run, "mkdir %s (the table must not exist yet)", c->opt->path);
    if (c->opt->native)
        return;
    char path[PATH_MAX], text[256];
    snprintf(path, sizeof path, "%s/.schema", c->opt->path);
    int n = 0;
    for (int f = 0; f < TM_FAMS; f++)
        n += snprintf(text + n, sizeof text - (size_t)n, "{NAME => '%s', VERSIONS => '%u'%s}\n",
                      tm_fam_names[f], tm_fam_versions[f],
                      c->opt->new_version_behavior ? ", NEW_VERSION_BEHAVIOR => 'true'" : "");
    const char *step;
    int err = write_file(path, O_WRONLY | O_TRUNC, (const uint8_t *)text, (size_t)n, 0, &step);
    if (err != 0) {
        errno = err;
        fsx_fail_errno(&c->run, "%s %s", step, path);
    }
    ssize_t got = tm_read_file(c, path);
    if (got < 0)
        fsx_fail_errno(&c->run, "read %s", path);
    c->got[got] = '\0';
    for (int f = 0; f < TM_FAMS; f++) {
        char want[64];
        snprintf(want, sizeof want, "NAME => '%s'", tm_fam_names[f]);
        if (strstr((char *)c->got, want) == NULL)
            fsx_fail(&c->run, "%s lacks %s after writing it:\n%s", path, want, (char *)c->got);
    }
    if (c->opt->new_version_behavior &&
        strstr((char *)c->got, "NEW_VERSION_BEHAVIOR => 'true'") == NULL)
        fsx_fail(&c->run, "%s lacks NEW_VERSION_BEHAVIOR after writing it:\n%s", path,
                 (char *)c->got);
}

int fsx_table_mode(const fsx_options *opt) {
    tm_state *s = calloc(1, sizeof *s);
    if (s == NULL)
        return 1;
    tm_ctx *c = &s->c;
    c->opt = opt;
    c->run.opt = opt;
    fsx_rng_seed(&c->rng, opt->seed);
    if (parse_skip(s) != 0) {
        free(s);
        return 2;
    }
    c->buf = malloc(opt->maxlen + 1);
    c->got = malloc(opt->maxlen + 2);
    if (c->buf == NULL || c->got == NULL || fsx_log_init(&c->run.log, opt->logsize, opt->verbose)) {
        fprintf(stderr, "fsx: out of memory\n");
        return 1;
    }
    for (int r = 0; r < TM_ROWS; r++)
        for (int f = 0; f < TM_FAMS; f++)
            for (int q = 0; q < TM_QUALS; q++)
                col_at(c, r, f, q)->del_max = TM_NO_TS;
    fsx_log_add(&c->run.log, 0, "mktable  %s", opt->path);
    make_table(c);
    for (c->run.op = 1; c->run.op <= opt->ops; c->run.op++) {
        fsx_pause(opt);
        s->counts[run_op(c, pick_kind(s))]++;
        if (opt->corrupt_at > 0 && c->run.op >= opt->corrupt_at && !s->corrupted)
            corrupt_model(s);
        if (opt->remount_every > 0 && fsx_below(&c->rng, opt->remount_every) == 0)
            remount(s);
        else if (fsx_below(&c->rng, opt->check_every) == 0)
            tm_check_all(c, "periodic");
    }
    c->run.op = opt->ops;
    tm_check_all(c, "at the end");
    if (opt->remount_cmd != NULL)
        remount(s);
    printf("fsx: %" PRIu64 " operations on table %s, seed %" PRIu64 ": all checks passed (",
           opt->ops, opt->path, opt->seed);
    for (int k = 0; k < T_COUNTED; k++)
        printf("%s%s %" PRIu64, k ? ", " : "", kNames[k], s->counts[k]);
    size_t rows = 0, cells = 0;
    for (int r = 0; r < TM_ROWS; r++) {
        rows += c->model.rows[r].exists;
        cells += tm_row_cells(&c->model.rows[r]);
    }
    printf("; %zu rows, %zu cells at the end)\n", rows, cells);
    tm_model_free(&c->model);
    fsx_log_free(&c->run.log);
    free(c->buf);
    free(c->got);
    free(s);
    return 0;
}
