/**
 * @file errno_map.c
 * The one place where a kv_status becomes an errno (table in
 * man/cellfs.1, ERRORS). Called by every operation that talks to kvcore.
 */
#include "fs.h"

#include <errno.h>

int fs_errno(kv_status st)
{
    switch (st) {
    case KV_OK: return 0;
    case KV_NOT_FOUND: return -ENOENT;
    case KV_INVALID: return -EINVAL;
    case KV_EXISTS: return -EEXIST;
    case KV_CORRUPT: return -EIO;
    case KV_IO: return -EIO;
    case KV_NO_SPACE: return -ENOSPC;
    case KV_LOCKED: return -EBUSY;
    case KV_DISABLED: return -EPERM;     /* the table is disabled */
    case KV_ENABLED: return -EBUSY;
    case KV_NOT_EMPTY: return -ENOTEMPTY;
    case KV_NO_FAMILY: return -ENOENT;
    case KV_TOO_LARGE: return -EFBIG;
    case KV_NOT_COUNTER: return -EINVAL;
    case KV_READ_ONLY: return -EROFS;
    case KV_NO_MEMORY: return -ENOMEM;
    case KV_END: return -ENOENT;          /* end of a scan: nothing there */
    case KV_NOT_SUPPORTED: return -EOPNOTSUPP;
    case KV_UNAVAILABLE: return -EIO;
    case KV_TIMEOUT: return -ETIMEDOUT;
    }
    return -EIO;
}

int fs_fail(cellfs *fs, kv_status st, const char *op, const char *path)
{
    if (st != KV_OK && st != KV_NOT_FOUND) {
        const char *detail = fs && fs->store ? kv_store_errmsg(fs->store) : "";
        fs_log(fs, "%s %s: %s%s%s", op, path ? path : "", kv_strerror(st),
               detail && *detail ? ": " : "", detail ? detail : "");
    }
    return fs_errno(st);
}
