/*
 * table_check.c: compares the table on disk with fsx's table model
 * (table.h) the way a user's tools look at it: readdir of the table, of
 * each row and each family (ls), stat of each cell (size and mtime, which
 * is the cell's timestamp on cellfs) and its content (cat), and on cellfs
 * the content and mtime of q@ts for every retained version. Called by
 * table_mode.c; calls util.c and libc.
 */
#include "table.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int64_t tm_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void tm_path(const tm_ctx *c, char *out, size_t len, int r, int f, int q, int64_t ts) {
    int n = snprintf(out, len, "%s", c->opt->path);
    if (r >= 0)
        n += snprintf(out + n, len - (size_t)n, "/%s", tm_row_names[r]);
    if (r >= 0 && f >= 0)
        n += snprintf(out + n, len - (size_t)n, "/%s", tm_fam_names[f]);
    if (r >= 0 && f >= 0 && q >= 0)
        n += snprintf(out + n, len - (size_t)n, "/%s", tm_qual_names[q]);
    if (ts != TM_NO_TS)
        snprintf(out + n, len - (size_t)n, "@%" PRId64, ts);
}

ssize_t tm_read_file(tm_ctx *c, const char *path) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    /* One byte more than the largest value notices a file too long. */
    ssize_t n = fsx_pread_all(fd, c->got, c->opt->maxlen + 1, 0);
    int err = errno;
    close(fd);
    errno = err;
    return n;
}

static int64_t mtime_ms(const struct stat *st) {
    return (int64_t)st->st_mtim.tv_sec * 1000 + st->st_mtim.tv_nsec / 1000000;
}

static void check_version(tm_ctx *c, const char *path, const tm_version *v) {
    struct stat st;
    if (stat(path, &st) != 0)
        fsx_fail_errno(&c->run, "stat %s (written by op %" PRIu64 " at ts %" PRId64 ")", path,
                       v->op, v->ts);
    if (!S_ISREG(st.st_mode))
        fsx_fail(&c->run, "%s is not a regular file (mode %o)", path, (unsigned)st.st_mode);
    if ((size_t)st.st_size != v->len)
        fsx_fail(&c->run, "stat %s: size %lld, the model says %zu (written by op %" PRIu64 ")",
                 path, (long long)st.st_size, v->len, v->op);
    if (mtime_ms(&st) != v->ts)
        fsx_fail(&c->run, "stat %s: mtime %" PRId64 " ms, the model says %" PRId64
                 " (the timestamp of the version written by op %" PRIu64 ")",
                 path, mtime_ms(&st), v->ts, v->op);
    ssize_t n = tm_read_file(c, path);
    if (n < 0)
        fsx_fail_errno(&c->run, "read %s", path);
    char what[PATH_MAX + 64];
    snprintf(what, sizeof what, "content of %s (op %" PRIu64 ")", path, v->op);
    fsx_compare(&c->run, what, 0, v->val, v->len, c->got, (size_t)n, NULL);
}

void tm_check_cell(tm_ctx *c, int r, int f, int q) {
    const tm_col *col = &c->model.rows[r].col[f][q];
    char path[PATH_MAX];
    tm_path(c, path, sizeof path, r, f, q, TM_NO_TS);
    struct stat st;
    if (col->nv == 0) {
        if (stat(path, &st) == 0)
            fsx_fail(&c->run, "%s exists (size %lld, mtime %" PRId64 "), the model says it does not",
                     path, (long long)st.st_size, mtime_ms(&st));
        if (errno != ENOENT)
            fsx_fail_errno(&c->run, "stat %s: expected ENOENT", path);
        return;
    }
    check_version(c, path, &col->v[0]);
    if (c->opt->native)
        return;
    size_t n = col->history_unknown ? 1 : col->nv;
    for (size_t i = 0; i < n; i++) {
        tm_path(c, path, sizeof path, r, f, q, col->v[i].ts);
        check_version(c, path, &col->v[i]);
    }
}

/* The names in @p dir, without . and .. (malloc'd, NULL-terminated). */
static char **list_dir(tm_ctx *c, const char *dir, size_t *count) {
    DIR *d = opendir(dir);
    if (d == NULL)
        fsx_fail_errno(&c->run, "opendir %s", dir);
    size_t n = 0, cap = 16;
    char **names = malloc(cap * sizeof *names);
    if (names == NULL)
        fsx_fail(&c->run, "out of memory");
    for (;;) {
        errno = 0;
        struct dirent *e = readdir(d);
        if (e == NULL) {
            if (errno != 0)
                fsx_fail_errno(&c->run, "readdir %s", dir);
            break;
        }
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (n + 1 == cap) {
            cap *= 2;
            char **p = realloc(names, cap * sizeof *names);
            if (p == NULL)
                fsx_fail(&c->run, "out of memory");
            names = p;
        }
        names[n] = strdup(e->d_name);
        if (names[n] == NULL)
            fsx_fail(&c->run, "out of memory");
        n++;
    }
    closedir(d);
    names[n] = NULL;
    *count = n;
    return names;
}

static void free_list(char **names) {
    for (size_t i = 0; names[i] != NULL; i++)
        free(names[i]);
    free(names);
}

/* Compares a listing with the names expected (want[i] true: name i must
 * be listed) from @p universe. A table's .schema on cellfs, and names
 * with an @ when @p skip_versions (check_version_names looks at those),
 * are left to other checks. */
static void compare_listing(tm_ctx *c, const char *dir, const char *const *universe,
                            const bool *want, size_t nuniverse, bool skip_versions) {
    size_t n;
    char **names = list_dir(c, dir, &n);
    char problem[1024] = "";
    size_t plen = 0;
    bool seen[TM_ROWS + TM_QUALS + TM_FAMS] = {false};
    for (size_t i = 0; i < n; i++) {
        if (universe == tm_row_names && !c->opt->native && strcmp(names[i], ".schema") == 0)
            continue;
        if (skip_versions && strchr(names[i], '@') != NULL)
            continue;
        size_t k = 0;
        while (k < nuniverse && strcmp(universe[k], names[i]) != 0)
            k++;
        if (k < nuniverse && want[k] && !seen[k]) {
            seen[k] = true;
            continue;
        }
        if (plen < sizeof problem)
            plen += (size_t)snprintf(problem + plen, sizeof problem - plen, " listed '%s'%s;",
                                     names[i], k < nuniverse && seen[k] ? " twice" : "");
    }
    for (size_t k = 0; k < nuniverse; k++)
        if (want[k] && !seen[k] && plen < sizeof problem)
            plen += (size_t)snprintf(problem + plen, sizeof problem - plen, " missing '%s';",
                                     universe[k]);
    free_list(names);
    if (plen > 0)
        fsx_fail(&c->run, "ls %s differs from the model:%s", dir, problem);
}

/* With -o versions a family lists q@ts for each retained version of q:
 * every one the model knows must be there; others only where the model
 * does not know all versions (history_unknown, or versions beyond
 * VERSIONS that the store still holds). */
static void check_version_names(tm_ctx *c, const char *dir, int r, int f) {
    size_t n;
    char **names = list_dir(c, dir, &n);
    for (int q = 0; q < TM_QUALS; q++) {
        const tm_col *col = &c->model.rows[r].col[f][q];
        size_t qlen = strlen(tm_qual_names[q]);
        bool found[TM_VMAX] = {false};
        bool unknown_ok = col->history_unknown || col->written != col->nv;
        for (size_t i = 0; i < n; i++) {
            const char *at = strrchr(names[i], '@');
            if (at == NULL || (size_t)(at - names[i]) != qlen ||
                strncmp(names[i], tm_qual_names[q], qlen) != 0)
                continue;
            int64_t ts = strtoll(at + 1, NULL, 10);
            size_t k = 0;
            while (k < col->nv && col->v[k].ts != ts)
                k++;
            if (k < col->nv)
                found[k] = true;
            else if (!unknown_ok || col->nv == 0)
                fsx_fail(&c->run, "ls %s lists %s, not a version the model has", dir, names[i]);
        }
        size_t must = col->history_unknown ? (col->nv > 0) : col->nv;
        for (size_t k = 0; k < must; k++)
            if (!found[k])
                fsx_fail(&c->run, "ls %s lacks %s@%" PRId64 " (-o versions lists every "
                         "retained version; written by op %" PRIu64 ")",
                         dir, tm_qual_names[q], col->v[k].ts, col->v[k].op);
    }
    free_list(names);
}

void tm_check_row(tm_ctx *c, int r) {
    char path[PATH_MAX];
    tm_path(c, path, sizeof path, r, -1, -1, TM_NO_TS);
    struct stat st;
    if (!c->model.rows[r].exists) {
        errno = 0;
        if (stat(path, &st) == 0 || errno != ENOENT)
            fsx_fail(&c->run, "stat %s: the row should not exist (%s)", path,
                     errno ? strerror(errno) : "it does");
        return;
    }
    /* A row lists every family of the table (SPEC section 3), a row made
       with mkdir during this mount (young) those made in it and those
       with cells (tm_fam_listed); a family it does not list is not found
       either (lookup agrees with readdir). */
    const tm_row *row = &c->model.rows[r];
    bool fams[TM_FAMS];
    for (int f = 0; f < TM_FAMS; f++)
        fams[f] = tm_fam_listed(c, row, f);
    compare_listing(c, path, tm_fam_names, fams, TM_FAMS, false);
    for (int f = 0; f < TM_FAMS; f++) {
        if (!fams[f]) {
            if (tm_fam_cells(row, f) > 0)
                fsx_fail(&c->run, "the model has cells in %s/%s, which it does not list",
                         tm_row_names[r], tm_fam_names[f]);
            tm_path(c, path, sizeof path, r, f, -1, TM_NO_TS);
            errno = 0;
            if (stat(path, &st) == 0 || errno != ENOENT)
                fsx_fail(&c->run, "stat %s: a family the row does not list should not be found "
                         "(%s)", path, errno ? strerror(errno) : "it is");
            continue;
        }
        bool quals[TM_QUALS];
        for (int q = 0; q < TM_QUALS; q++)
            quals[q] = c->model.rows[r].col[f][q].nv > 0;
        tm_path(c, path, sizeof path, r, f, -1, TM_NO_TS);
        compare_listing(c, path, tm_qual_names, quals, TM_QUALS, c->opt->versions_listed);
        if (c->opt->versions_listed)
            check_version_names(c, path, r, f);
        for (int q = 0; q < TM_QUALS; q++)
            tm_check_cell(c, r, f, q);
    }
}

void tm_check_all(tm_ctx *c, const char *when) {
    fsx_log_add(&c->run.log, c->run.op, "check    the whole table (%s)", when);
    bool rows[TM_ROWS];
    for (int r = 0; r < TM_ROWS; r++)
        rows[r] = c->model.rows[r].exists;
    compare_listing(c, c->opt->path, tm_row_names, rows, TM_ROWS, false);
    for (int r = 0; r < TM_ROWS; r++)
        tm_check_row(c, r);
}
