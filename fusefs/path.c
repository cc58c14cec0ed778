/**
 * @file path.c
 * Path grammar (contract in path.h). Splits a FUSE path into components and
 * decodes each with names.c; knows which names are reserved.
 */
#include "path.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int copy_name(char *dst, const char *s, size_t n)
{
    if (n == 0) return -ENOENT;
    if (n > KV_NAME_MAX) return -ENAMETOOLONG;
    memcpy(dst, s, n);
    dst[n] = '\0';
    return 0;
}

static int parse_table(fs_path *p, const char *s, size_t n)
{
    const char *at = memchr(s, '@', n);
    size_t tn = at ? (size_t)(at - s) : n;
    int rc = copy_name(p->tname, s, tn);
    if (rc) return rc;
    if (at) {
        if (fs_ts_parse(at + 1, n - tn - 1, &p->asof_ts) != 0) return -ENOENT;
        p->asof = true;
    }
    /* "ns:table" ("table" in the default namespace); both fit. */
    char *t = p->table;
    if (strcmp(p->ns, "default") != 0) {
        size_t nl = strlen(p->ns);
        memcpy(t, p->ns, nl);
        t[nl] = ':';
        t += nl + 1;
    }
    memcpy(t, p->tname, tn + 1);
    return 0;
}

int fs_path_parse(fs_path *p, const char *path)
{
    memset(p, 0, sizeof *p);
    p->kind = FS_ROOT;
    const char *comp[6];
    size_t clen[6];
    int n = 0;
    const char *s = path;
    while (*s) {
        while (*s == '/') s++;
        if (!*s) break;
        const char *e = strchr(s, '/');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        if (n == 6) return -ENOENT;
        comp[n] = s;
        clen[n] = len;
        n++;
        s += len;
    }
    if (n == 0) return 0;
    p->last = comp[n - 1];
    p->last_len = clen[n - 1];
    for (int i = 0; i < n; i++)
        if (clen[i] > FS_NAME_MAX) return -ENAMETOOLONG;
    int rc = copy_name(p->ns, comp[0], clen[0]);
    if (rc) return rc;
    p->kind = FS_NS;
    if (memchr(p->ns, '@', clen[0])) return -ENOENT;
    if (n == 1) return 0;
    rc = parse_table(p, comp[1], clen[1]);
    if (rc) return rc;
    p->kind = FS_TABLE;
    if (n == 2) return 0;
    if (clen[2] == 7 && memcmp(comp[2], ".schema", 7) == 0) {
        p->kind = FS_SCHEMA;
        return n == 3 ? 0 : -ENOTDIR;
    }
    p->kind = FS_ROW;
    p->row_text = comp[2];
    p->row_text_len = clen[2];
    p->row_err = fs_name_decode(&p->row_name, comp[2], clen[2]);
    p->row = p->row_name.bytes;
    p->row_len = p->row_name.len;
    if (n == 3) return 0;
    if (p->row_err) return p->row_err;
    rc = copy_name(p->family, comp[3], clen[3]);
    if (rc) return rc;
    p->kind = FS_FAMILY;
    if (n == 4) return 0;
    p->kind = FS_CELL;
    if (n > 5) return -ENOTDIR;
    size_t base = clen[4];
    int v = fs_name_split_version(comp[4], clen[4], &base, &p->version);
    if (v < 0) return v;
    p->has_version = v == 1;
    p->qual_text = comp[4];
    p->qual_text_len = base;
    rc = fs_name_decode(&p->qual_name, comp[4], base);
    if (rc) return rc;
    p->qual = p->qual_name.bytes;
    p->qual_len = p->qual_name.len;
    return 0;
}

void fs_path_free(fs_path *p)
{
    free(p->row_buf);
    free(p->qual_buf);
    p->row_buf = p->qual_buf = NULL;
}

char *fs_path_child(const char *dir, const char *name)
{
    size_t dlen = strlen(dir), nlen = strlen(name);
    if (dlen == 1 && dir[0] == '/') dlen = 0;
    char *path = malloc(dlen + nlen + 2);
    if (!path) return NULL;
    memcpy(path, dir, dlen);
    path[dlen] = '/';
    memcpy(path + dlen + 1, name, nlen + 1);
    return path;
}

bool fs_path_hashed(const fs_path *p)
{
    if (p->kind >= FS_ROW && p->row_err == 0 && p->row_name.hashed && !p->row_buf) return true;
    if (p->kind == FS_CELL && p->qual_name.hashed && !p->qual_buf) return true;
    return false;
}

int fs_path_scratch(fs_path *p, const char *path, int parse_rc)
{
    /* -ENAMETOOLONG: a dot name of 235..FS_NAME_MAX bytes, as rsync's
       ".NAME.XXXXXX" for a NAME of the longest length a key's name has. */
    if ((parse_rc != -EINVAL && parse_rc != -ENAMETOOLONG) || p->kind != FS_CELL ||
        p->has_version || p->last_len == 0 || p->last_len > FS_NAME_MAX ||
        p->last[0] != '.' || p->row_err)
        return 0;
    size_t dir_len = (size_t)(p->last - path);
    while (dir_len > 0 && path[dir_len - 1] == '/') dir_len--;
    if (dir_len >= sizeof p->table) return -ENAMETOOLONG;
    memcpy(p->table, path, dir_len);
    p->table[dir_len] = '\0';
    p->kind = FS_ROW;
    p->in_family = true;
    return 1;
}
