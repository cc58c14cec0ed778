/*
 * Helpers shared by the libFuzzer targets of tests/fuzz/: a scratch
 * directory per process (under $TMPDIR) and writing the fuzzed bytes into
 * a file there, for the readers that take a path. Each target defines
 * LLVMFuzzerTestOneInput; replay.c or libFuzzer calls it.
 */
#ifndef CELLFS_FUZZ_UTIL_H
#define CELLFS_FUZZ_UTIL_H

#include <dirent.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char fuzz_dir_[512];

/* Removes the scratch directory and its files (at exit). */
static inline void fuzz_scratch_remove(void) {
    DIR *d = opendir(fuzz_dir_);
    if (d) {
        struct dirent *e;
        char path[1100];
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            snprintf(path, sizeof path, "%s/%s", fuzz_dir_, e->d_name);
            unlink(path);
        }
        closedir(d);
    }
    rmdir(fuzz_dir_);
}

/* The process's scratch directory, made at the first call (under $TMPDIR)
   and removed at exit; NULL (and a message) if it cannot be made. It holds
   one input's files at a time. A process that crashes leaves it behind:
   scripts/fuzz.sh points $TMPDIR into build-fuzz/. */
static inline const char *fuzz_scratch_dir(void) {
    char *dir = fuzz_dir_;
    if (dir[0])
        return dir;
    const char *base = getenv("TMPDIR");
    snprintf(dir, sizeof fuzz_dir_, "%s/cellfs-fuzz-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(dir)) {
        perror("fuzz: mkdtemp");
        dir[0] = '\0';
        return NULL;
    }
    atexit(fuzz_scratch_remove);
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
