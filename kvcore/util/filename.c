/**
 * @file filename.c
 * The one owner of the names of a store's files: numbered sorted files
 * (000012.sst) and logs (000013.log), MANIFEST and LOCK. No file name is
 * ever derived from a user's table or family name, so no name can escape
 * the store directory.
 */
#include "filename.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *join(const char *dir, const char *name) {
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p) snprintf(p, n, "%s/%s", dir, name);
    return p;
}

static char *numbered(const char *dir, uint64_t number, const char *ext) {
    char name[64];
    snprintf(name, sizeof name, "%06llu.%s", (unsigned long long)number, ext);
    return join(dir, name);
}

char *kv_filename_sst(const char *dir, uint64_t number) { return numbered(dir, number, "sst"); }
char *kv_filename_log(const char *dir, uint64_t number) { return numbered(dir, number, "log"); }
char *kv_filename_manifest(const char *dir) { return join(dir, "MANIFEST"); }
char *kv_filename_lock(const char *dir) { return join(dir, "LOCK"); }

char kv_filename_parse(const char *name, uint64_t *number) {
    char *end;
    if (name[0] < '0' || name[0] > '9') return 0;
    unsigned long long n = strtoull(name, &end, 10);
    if (strcmp(end, ".sst") == 0) { *number = n; return 's'; }
    if (strcmp(end, ".log") == 0) { *number = n; return 'l'; }
    return 0;
}
