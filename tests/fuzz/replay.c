/*
 * Replays fuzz inputs through a target's LLVMFuzzerTestOneInput without
 * libFuzzer, so that the normal build (any compiler) runs every seed and
 * every kept crash input in CI: `fuzz_replay_X DIR...` feeds each regular
 * file of each DIR (sorted by name) to the target. A file whose name starts
 * with "xfail-" is a crash not fixed yet: it is skipped with its reason
 * (tests/fuzz/FINDINGS.md). A crash of the target is the test's failure;
 * the last "replay:" line names the input.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int by_name(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_file(const char *path, size_t *replayed) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return 1;
    }
    size_t cap = 4096, len = 0;
    uint8_t *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap) {
            uint8_t *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    fclose(f);
    if (!buf) {
        fprintf(stderr, "%s: out of memory\n", path);
        return 1;
    }
    printf("replay: %s (%zu bytes)\n", path, len);
    fflush(stdout);
    /* An exact-size copy, so that reads past the input are seen by ASan. */
    uint8_t *exact = malloc(len ? len : 1);
    if (!exact) {
        free(buf);
        return 1;
    }
    memcpy(exact, buf, len);
    free(buf);
    LLVMFuzzerTestOneInput(exact, len);
    free(exact);
    (*replayed)++;
    return 0;
}

int main(int argc, char **argv) {
    size_t replayed = 0, skipped = 0;
    int failed = 0;
    for (int i = 1; i < argc; i++) {
        DIR *d = opendir(argv[i]);
        if (!d) {
            printf("replay: no directory %s (nothing to replay)\n", argv[i]);
            continue;
        }
        char **names = NULL;
        size_t n = 0, cap = 0;
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.' || strcmp(e->d_name, "README") == 0)
                continue;
            if (n == cap) {
                cap = cap ? cap * 2 : 64;
                char **nn = realloc(names, cap * sizeof *nn);
                if (!nn)
                    return 1;
                names = nn;
            }
            names[n++] = strdup(e->d_name);
        }
        closedir(d);
        if (n)
            qsort(names, n, sizeof *names, by_name);
        for (size_t j = 0; j < n; j++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[i], names[j]);
            if (strncmp(names[j], "xfail-", 6) == 0) {
                printf("replay: SKIP %s: known failure, not fixed yet (tests/fuzz/FINDINGS.md)\n",
                       path);
                skipped++;
            } else {
                failed |= replay_file(path, &replayed);
            }
            free(names[j]);
        }
        free(names);
    }
    printf("replay: %zu inputs replayed, %zu known failures skipped\n", replayed, skipped);
    return failed;
}
