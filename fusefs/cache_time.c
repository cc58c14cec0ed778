/**
 * @file cache_time.c
 * How long the kernel may keep an entry and its attributes (the entry and
 * attribute timeouts of LOOKUP, GETATTR, CREATE and READDIRPLUS replies).
 *
 * A local store has one writer, this mount, which tells the kernel what
 * each of its commits changes (fs_notify_changed) and answers ESTALE for a
 * name the kernel still holds after a change elsewhere in the table took it
 * away (lowlevel.c), so the kernel's view needs no expiry of its own:
 * FS_CACHE_LONG. What can change without a call through the mount gets
 * less: a cell whose family has a TTL is kept until it expires, and rows,
 * families and files of a table with a TTL family, and the table@<ts>
 * views (a put at an older time through the mount changes what a view
 * shows), FS_CACHE_SHORT. A store others write too (a remote backend), a
 * single-threaded mount and -o timeout=S use one timeout for everything.
 * Called by lowlevel.c; calls path.c and kvcore.h.
 */
#include "fs.h"

#include <string.h>

/* Whether table @p table has a family with a TTL, and *ttl_ms the TTL of
   @p family (0 when it has none, or when family is NULL). The families
   are the mount's (families.c): no describe per request. */
static bool table_ttl(cellfs *fs, const char *table, const char *family, int64_t *ttl_ms)
{
    *ttl_ms = 0;
    fs_family_info fi;
    if (fs_family_lookup(fs, table, family, &fi) != 0) return true;   /* unsure: short */
    *ttl_ms = fi.found ? fi.ttl_ms : 0;
    return fi.table_has_ttl;
}

void fs_cache_rule_default(cellfs *fs, fs_cache_rule *rule)
{
    rule->seconds = fs->timeout;
    rule->ttl_ms = 0;
    rule->held = -1;
    rule->absent = FS_ABSENT_NO;
}

/* What negative.c can drop when it appears with no call on it: rows,
   families (of a row that is not young), cells and the scratch files
   beside them, each made only by a call on its name; no q@<ts> (every
   write of q makes one), no as-of view, no hashed long name. */
static fs_absent absent_of(const fs_path *p)
{
    if (p->asof || p->has_version || fs_path_hashed(p)) return FS_ABSENT_NO;
    return p->kind == FS_ROW || p->kind == FS_CELL ? FS_ABSENT_KEPT
           : p->kind == FS_FAMILY                  ? FS_ABSENT_FAMILY
                                                   : FS_ABSENT_NO;
}

/* The rule of a name of @p kind in @p table (@p family: its cell's). */
static void rule_of_kind(cellfs *fs, fs_kind kind, const char *table, const char *family,
                         fs_cache_rule *rule)
{
    switch (kind) {
    case FS_ROOT:
    case FS_NS:
    case FS_TABLE:
    case FS_SCHEMA:
        rule->seconds = FS_CACHE_LONG;
        break;
    case FS_ROW:
    case FS_FAMILY:
        if (!table_ttl(fs, table, NULL, &rule->ttl_ms)) rule->seconds = FS_CACHE_LONG;
        break;
    case FS_CELL:
        (void)table_ttl(fs, table, family, &rule->ttl_ms);
        rule->seconds = FS_CACHE_LONG;
        break;
    }
}

void fs_cache_rule_parsed(cellfs *fs, const fs_path *p, int parse_rc, fs_cache_rule *rule)
{
    fs_cache_rule_default(fs, rule);
    if (parse_rc == 0) rule->absent = absent_of(p);
    if (!fs->cache_long) return;
    rule->seconds = FS_CACHE_SHORT;
    if (parse_rc != 0 || p->asof) return;
    rule_of_kind(fs, p->kind, p->table, p->family, rule);
}

void fs_cache_rule_children(cellfs *fs, const fs_path *dir, fs_cache_rule *rule)
{
    fs_cache_rule_default(fs, rule);
    if (!fs->cache_long) return;
    rule->seconds = FS_CACHE_SHORT;
    if (dir->asof || dir->kind == FS_CELL || dir->kind == FS_SCHEMA) return;
    fs_kind kind = dir->kind == FS_ROOT     ? FS_NS
                   : dir->kind == FS_NS     ? FS_TABLE
                   : dir->kind == FS_TABLE  ? FS_ROW
                   : dir->kind == FS_ROW    ? FS_FAMILY
                                            : FS_CELL;
    rule_of_kind(fs, kind, dir->table, dir->family, rule);
}

void fs_cache_rule_of(cellfs *fs, const char *path, fs_cache_rule *rule)
{
    fs_cache_rule_default(fs, rule);
    if (!fs->cache_long || !path) return;
    fs_path p;
    int rc = fs_path_parse(&p, path);
    int sc = fs_path_scratch(&p, path, rc);
    if (sc > 0) rc = 0;
    fs_cache_rule_parsed(fs, &p, rc, rule);
    fs_path_free(&p);
}

double fs_cache_negative_seconds(cellfs *fs, const char *path, const fs_cache_rule *rule)
{
    if (rule->absent == FS_ABSENT_NO || (!fs->cache_long && !fs->timeout_given)) return 0;
    if (rule->absent == FS_ABSENT_FAMILY) {
        /* The families of a young row appear when it stops being young,
           inside a MKDIR of another row, with no way to name them. */
        fs_path p;
        int rc = fs_path_parse(&p, path);
        bool young = rc == 0 && fs_young_family(fs, &p, p.family) >= 0;
        fs_path_free(&p);
        if (rc != 0 || young) return 0;
    }
    return fs->cache_long ? rule->seconds : fs->timeout;
}

double fs_cache_seconds(cellfs *fs, const fs_cache_rule *rule, const struct stat *st)
{
    if (rule->ttl_ms <= 0 || !S_ISREG(st->st_mode)) return rule->seconds;
    int64_t ts = fs_ts_to_ms(&st->st_mtim);
    int64_t left = ts > INT64_MAX - rule->ttl_ms ? INT64_MAX
                                                   : ts + rule->ttl_ms - kv_store_now(fs->store);
    if (left <= 0) return 0;
    double s = (double)left / 1000.0;
    return s < rule->seconds ? s : rule->seconds;
}
