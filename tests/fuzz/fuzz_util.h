/*
 * Helpers shared by the libFuzzer targets of tests/fuzz/: a scratch
 * directory per process (under $TMPDIR) and writing the fuzzed bytes into
 * a file there, for the readers that take a path. Each target defines
 * LLVMFuzzerTestOneInput; replay.c or libFuzzer calls it.
 */
#ifndef CELLFS_FUZZ_UTIL_H
#define CELLFS_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The process's scratch directory, made at the first call; NULL (and a
   message) if it cannot be made. Removed by nobody: it lives in $TMPDIR
   and holds one input's files at a time. */
static inline const char *fuzz_scratch_dir(void) {
    static char dir[512];
    if (dir[0])
        return dir;
    const char *base = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/cellfs-fuzz-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(dir)) {
        perror("fuzz: mkdtemp");
        dir[0] = '\0';
        return NULL;
    }
    return dir;
}

/* Writes data[0..n) to path (replacing it); 0 or -1. */
static inline int fuzz_write_file(const char *path, const uint8_t *data, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t put = n ? fwrite(data, 1, n, f) : 0;
    int rc = fclose(f);
    return put == n && rc == 0 ? 0 : -1;
}

#endif
