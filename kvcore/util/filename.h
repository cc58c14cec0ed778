/**
 * @file filename.h
 * The one owner of the names of a store's files (filename.c): numbered
 * sorted files (000012.sst) and logs (000013.log), MANIFEST and LOCK. The
 * returned paths are malloc'd (NULL when memory runs out).
 */
#ifndef KV_UTIL_FILENAME_H
#define KV_UTIL_FILENAME_H

#include <stdint.h>

char *kv_filename_sst(const char *dir, uint64_t number);
char *kv_filename_log(const char *dir, uint64_t number);
char *kv_filename_manifest(const char *dir);
char *kv_filename_lock(const char *dir);
/* Parses "000012.sst" / "000012.log"; returns 's', 'l' or 0. */
char kv_filename_parse(const char *name, uint64_t *number);

#endif
