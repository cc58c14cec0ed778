/**
 * @file ops_schema.c
 * The .schema file of a table: reading shows each family in HBase's
 * describe syntax, one per line (kv_family_desc_format); writing parses each
 * line (kv_family_desc_parse): families changed or added with
 * kv_table_alter_family; families the text leaves out stay; a line
 * {NAME => 'f', METHOD => 'delete'} (HBase's alter syntax) deletes one. Empty lines and lines starting with '#' are skipped. A malformed
 * text changes nothing (EINVAL, the offending line in the log). Called by
 * open_file.c and ops_file.c.
 */
#include "fs.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int fs_schema_text(cellfs *fs, const char *table, char **text, size_t *len)
{
    *text = NULL;
    *len = 0;
    kv_table_desc *d = NULL;
    kv_status st = kv_table_describe(&d, fs->store, table);
    if (st != KV_OK) return st == KV_INVALID ? -ENOENT : fs_fail(fs, st, "describe", table);
    size_t cap = 1, used = 0;
    for (size_t i = 0; i < d->nfamilies; i++)
        cap += (size_t)kv_family_desc_format(NULL, 0, &d->families[i]) + 1;
    char *t = malloc(cap);
    if (!t) {
        kv_table_desc_free(d);
        return -ENOMEM;
    }
    for (size_t i = 0; i < d->nfamilies; i++) {
        int n = kv_family_desc_format(t + used, cap - used, &d->families[i]);
        if (n < 0 || (size_t)n >= cap - used) break;
        used += (size_t)n;
        t[used++] = '\n';
    }
    t[used] = '\0';
    kv_table_desc_free(d);
    *text = t;
    *len = used;
    return 0;
}

/* Calls fn on each meaningful line of text[0..len); stops at its first
   non-zero result. A last line without '\n' counts when with_partial. */
typedef int (*line_fn)(void *arg, const char *line, size_t n);

static int each_line(const char *text, size_t len, size_t from, size_t to, bool with_partial,
                     line_fn fn, void *arg)
{
    while (from > 0 && text[from - 1] != '\n') from--;
    size_t i = from;
    while (i < len && i <= to) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t end = nl ? (size_t)(nl - text) : len;
        if (!nl && !with_partial) break;
        size_t a = i, b = end;
        while (a < b && isspace((unsigned char)text[a])) a++;
        while (b > a && isspace((unsigned char)text[b - 1])) b--;
        if (b > a && text[a] != '#') {
            int rc = fn(arg, text + a, b - a);
            if (rc) return rc;
        }
        i = end + 1;
    }
    return 0;
}

typedef struct parse_ctx {
    cellfs *fs;
    const char *table;
    kv_family_desc *fams;
    size_t n, cap;
    bool collect;
    char (*drops)[KV_NAME_MAX + 1];  /* METHOD => 'delete' lines */
    size_t ndrops;
} parse_ctx;

/* The quoted value after "KEY =>" in @p s ('...' or "..."), copied into
   @p out; false when absent or too long. */
static bool attr_value(const char *s, const char *key, char *out, size_t cap)
{
    const char *k = strstr(s, key);
    if (!k) return false;
    const char *p = k + strlen(key);
    while (isspace((unsigned char)*p)) p++;
    if (p[0] != '=' || p[1] != '>') return false;
    p += 2;
    while (isspace((unsigned char)*p)) p++;
    char q = *p;
    if (q != '\'' && q != '"') return false;
    const char *e = strchr(p + 1, q);
    if (!e || (size_t)(e - p - 1) >= cap) return false;
    memcpy(out, p + 1, (size_t)(e - p - 1));
    out[e - p - 1] = '\0';
    return true;
}

/* A line {NAME => 'f', METHOD => 'delete'} (HBase's alter syntax): 1 with
   the family added to c->drops, 0 when the line is not one, -errno. */
static int parse_drop(parse_ctx *c, const char *s)
{
    char method[16], name[KV_NAME_MAX + 1];
    if (!attr_value(s, "METHOD", method, sizeof method)) return 0;
    if (strcasecmp(method, "delete") != 0 || !attr_value(s, "NAME", name, sizeof name)) {
        fs_log(c->fs, "%s/.schema: METHOD takes 'delete' and a NAME: in line: %s", c->table, s);
        return -EINVAL;
    }
    fs_path fp;
    memset(&fp, 0, sizeof fp);
    snprintf(fp.table, sizeof fp.table, "%s", c->table);
    snprintf(fp.family, sizeof fp.family, "%s", name);
    if (fs_family_check(c->fs, &fp) != 0) {
        fs_log(c->fs, "%s/.schema: family '%s' does not exist (METHOD => 'delete'): in line: %s",
               c->table, name, s);
        return -EINVAL;
    }
    if (!c->collect) return 1;
    void *nd = realloc(c->drops, (c->ndrops + 1) * sizeof *c->drops);
    if (!nd) return -ENOMEM;
    c->drops = nd;
    memcpy(c->drops[c->ndrops++], name, sizeof name);
    return 1;
}

static int parse_line(void *arg, const char *line, size_t n)
{
    parse_ctx *c = arg;
    char *s = strndup(line, n);
    if (!s) return -ENOMEM;
    int drop = parse_drop(c, s);
    if (drop != 0) {
        free(s);
        return drop < 0 ? drop : 0;
    }
    kv_family_desc f;
    char err[256] = "";
    kv_status st = kv_family_desc_parse(&f, s, err, sizeof err);
    if (st != KV_OK) {
        fs_log(c->fs, "%s/.schema: %s: in line: %s", c->table, err[0] ? err : kv_strerror(st), s);
        free(s);
        return -EINVAL;
    }
    for (size_t i = 0; i < c->n; i++) {
        if (strcmp(c->fams[i].name, f.name) == 0) {
            fs_log(c->fs, "%s/.schema: family '%s' given twice: in line: %s", c->table, f.name, s);
            free(s);
            return -EINVAL;
        }
    }
    free(s);
    if (c->n == c->cap) {
        size_t nc = c->cap ? 2 * c->cap : 8;
        kv_family_desc *nf = realloc(c->fams, nc * sizeof *nf);
        if (!nf) return -ENOMEM;
        c->fams = nf;
        c->cap = nc;
    }
    c->fams[c->n++] = f;
    return 0;
}

int fs_schema_check(cellfs *fs, const char *table, const char *text, size_t len, size_t from,
                    size_t to, bool partial_last_ok)
{
    parse_ctx c = { fs, table, NULL, 0, 0, false, NULL, 0 };
    int rc = each_line(text, len, from, to, !partial_last_ok, parse_line, &c);
    free(c.fams);
    /* Lines outside [from, to] were not checked against each other, so a
       duplicate across the whole text is found by fs_schema_apply. */
    return rc;
}

static bool desc_equal(const kv_family_desc *a, const kv_family_desc *b)
{
    return a->versions == b->versions && a->min_versions == b->min_versions &&
           a->ttl_seconds == b->ttl_seconds && a->keep_deleted == b->keep_deleted &&
           a->compression == b->compression && a->bloom == b->bloom &&
           a->blocksize == b->blocksize && a->encoding == b->encoding &&
           a->in_memory == b->in_memory && a->blockcache == b->blockcache &&
           a->new_version_behavior == b->new_version_behavior;
}

/* Drops what the kernel holds below the directory of @p table ("ns:t", or
   "t" in the default namespace). */
static void forget_table(cellfs *fs, const char *table)
{
    char path[2 * KV_NAME_MAX + 16];
    const char *colon = strchr(table, ':');
    if (colon)
        snprintf(path, sizeof path, "/%.*s/%s", (int)(colon - table), table, colon + 1);
    else
        snprintf(path, sizeof path, "/default/%s", table);
    fs_kernel_forget_below(fs, path);
}

int fs_schema_apply(cellfs *fs, const char *table, const char *text, size_t len)
{
    parse_ctx c = { fs, table, NULL, 0, 0, true, NULL, 0 };
    bool changed = false;
    int rc = each_line(text, len, 0, len, true, parse_line, &c);
    kv_table_desc *d = NULL;
    if (rc == 0) {
        kv_status st = kv_table_describe(&d, fs->store, table);
        if (st != KV_OK) rc = fs_fail(fs, st, "describe", table);
    }
    /* Every family dropped must exist and not be altered in the same text,
       and one must be left: checked before anything changes. */
    size_t left = d ? d->nfamilies : 0;
    for (size_t k = 0; rc == 0 && k < c.ndrops; k++) {
        bool known = false, both = false;
        for (size_t j = 0; j < d->nfamilies; j++) known |= strcmp(d->families[j].name, c.drops[k]) == 0;
        for (size_t i = 0; i < c.n; i++) both |= strcmp(c.fams[i].name, c.drops[k]) == 0;
        if (!known || both) {
            fs_log(fs, "%s/.schema: family '%s' %s", table, c.drops[k],
                   both ? "is given and deleted" : "does not exist (METHOD => 'delete')");
            rc = -EINVAL;
        }
        left--;
    }
    if (rc == 0 && left == 0) {
        bool added = false;
        for (size_t i = 0; i < c.n && !added; i++) {
            bool known = false;
            for (size_t j = 0; j < d->nfamilies; j++)
                known |= strcmp(d->families[j].name, c.fams[i].name) == 0;
            added = !known;
        }
        if (!added) {
            fs_log(fs, "%s/.schema: no family left (a table keeps at least one)", table);
            rc = -EINVAL;
        }
    }
    for (size_t i = 0; rc == 0 && i < c.n; i++) {
        const kv_family_desc *old = NULL;
        for (size_t j = 0; j < d->nfamilies; j++)
            if (strcmp(d->families[j].name, c.fams[i].name) == 0) old = &d->families[j];
        if (old && desc_equal(old, &c.fams[i])) continue;
        changed = true;
        kv_status st = kv_table_alter_family(fs->store, table, &c.fams[i]);
        if (st != KV_OK) {
            fs_log(fs, "%s/.schema: family '%s': %s %s", table, c.fams[i].name, kv_strerror(st),
                   kv_store_errmsg(fs->store));
            rc = fs_errno(st);
        }
    }
    /* Families the text leaves out stay (a .schema written without one
       must not drop its cells); only METHOD => 'delete' drops one. */
    for (size_t k = 0; rc == 0 && k < c.ndrops; k++) {
        changed = true;
        kv_status st = kv_table_delete_family(fs->store, table, c.drops[k]);
        if (st != KV_OK) rc = fs_fail(fs, st, "delete family", c.drops[k]);
    }
    /* Fewer VERSIONS, a shorter TTL or a dropped family take names away
       anywhere in the table. */
    if (changed) fs_families_changed(fs);
    if (changed) forget_table(fs, table);
    if (d) kv_table_desc_free(d);
    free(c.fams);
    free(c.drops);
    return rc;
}
