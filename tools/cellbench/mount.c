/*
 * mount.h: fork/exec of FUSE daemons, /proc/mounts polling, their
 * /proc/PID/status and fusermount3. Called by fsbench.c; calls only libc and fusermount3.
 */
#include "mount.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

/* /proc/mounts writes space, tab, newline and backslash as \ooo. */
static void unescape_octal(char *s) {
    char *w = s;
    for (char *r = s; *r; r++) {
        if (r[0] == '\\' && r[1] >= '0' && r[1] <= '7' && r[2] >= '0' && r[2] <= '7' &&
            r[3] >= '0' && r[3] <= '7') {
            *w++ = (char)(((r[1] - '0') << 6) | ((r[2] - '0') << 3) | (r[3] - '0'));
            r += 3;
        } else {
            *w++ = *r;
        }
    }
    *w = '\0';
}

bool bench_is_mounted(const char *path) {
    FILE *f = fopen("/proc/mounts", "r");
    if (f == NULL)
        return false;
    char line[8192];
    bool found = false;
    while (!found && fgets(line, sizeof line, f) != NULL) {
        char *save = NULL;
        if (strtok_r(line, " ", &save) == NULL)
            continue;
        char *target = strtok_r(NULL, " ", &save);
        if (target == NULL)
            continue;
        unescape_octal(target);
        found = strcmp(target, path) == 0;
    }
    fclose(f);
    return found;
}

uint64_t bench_mount_peak_rss_kib(const bench_mount *m) {
    if (m->pid <= 0)
        return 0;
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)m->pid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 0;
    uint64_t kib = 0;
    while (fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "VmHWM: %" SCNu64, &kib) == 1)
            break;
    fclose(f);
    return kib;
}

bool bench_find_in_path(char *out, size_t len, const char *name) {
    const char *path = getenv("PATH");
    if (path == NULL)
        path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        size_t n = strcspn(path, ":");
        if (n > 0) {
            snprintf(out, len, "%.*s/%s", (int)n, path, name);
            struct stat st;
            if (stat(out, &st) == 0 && S_ISREG(st.st_mode) && access(out, X_OK) == 0)
                return true;
        }
        path += n + (path[n] == ':');
    }
    return false;
}

/* Runs fusermount3 with @p flag on @p mnt and waits; returns its status. */
static int fusermount(const char *flag, const char *mnt) {
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0) {
            dup2(null, STDOUT_FILENO);
            dup2(null, STDERR_FILENO);
        }
        execlp("fusermount3", "fusermount3", flag, mnt, (char *)NULL);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Waits up to @p timeout seconds for the daemon to exit; true if it did. */
static bool reap(pid_t pid, double timeout) {
    double end = bench_now() + timeout;
    for (;;) {
        int status;
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid || (r < 0 && errno == ECHILD))
            return true;
        if (bench_now() > end)
            return false;
        bench_sleep(0.02);
    }
}

/* passthrough_ll keeps a descriptor open for every file and directory the
 * kernel knows (libfuse's example says to raise the limit): a 100,000-row
 * tree needs over 200,000. The limit goes up to fs.nr_open where we may
 * (root), else to the hard limit. Runs in the daemon's child before exec. */
static void raise_fd_limit(void) {
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return;
    FILE *f = fopen("/proc/sys/fs/nr_open", "r");
    unsigned long long nr_open = 0;
    if (f != NULL) {
        if (fscanf(f, "%llu", &nr_open) != 1)
            nr_open = 0;
        fclose(f);
    }
    struct rlimit up = rl;
    if (nr_open > (unsigned long long)rl.rlim_max) {
        up.rlim_cur = up.rlim_max = (rlim_t)nr_open;
        if (setrlimit(RLIMIT_NOFILE, &up) == 0)
            return;
    }
    up = rl;
    up.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &up);
}

int bench_mount_start(bench_mount *m, char *const argv[], const char *mnt, const char *log,
                      double timeout, char *err, size_t errlen) {
    memset(m, 0, sizeof m[0]);
    snprintf(m->mnt, sizeof m->mnt, "%s", mnt);
    snprintf(m->log, sizeof m->log, "%s", log);
    int logfd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (logfd < 0) {
        snprintf(err, errlen, "cannot open %s: %s", log, strerror(errno));
        return -1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        close(logfd);
        return -1;
    }
    if (pid == 0) {
        setpgid(0, 0);
        raise_fd_limit();
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        dup2(logfd, STDOUT_FILENO);
        dup2(logfd, STDERR_FILENO);
        execv(argv[0], argv);
        fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(logfd);
    m->pid = pid;
    double end = bench_now() + timeout;
    for (;;) {
        if (bench_is_mounted(mnt))
            return 0;
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid) {
            m->pid = 0;
            snprintf(err, errlen, "%s exited before mounting (see its log %s)", argv[0], log);
            return -1;
        }
        if (bench_now() > end) {
            snprintf(err, errlen, "%s did not mount %s within %.0f s", argv[0], mnt, timeout);
            break;
        }
        if (!bench_sleep(0.02)) {
            snprintf(err, errlen, "interrupted");
            break;
        }
    }
    bench_mount_stop(m);
    return -1;
}

int bench_mount_stop(bench_mount *m) {
    if (m->mnt[0] == '\0')
        return 0;
    for (int i = 0; i < 50 && bench_is_mounted(m->mnt); i++) {
        if (fusermount("-u", m->mnt) == 0)
            break;
        bench_sleep(0.1);
    }
    if (bench_is_mounted(m->mnt))
        fusermount("-uz", m->mnt);
    if (m->pid > 0 && !reap(m->pid, 20)) {
        fprintf(stderr, "cellbench: the daemon %d did not exit; ending it\n", (int)m->pid);
        kill(m->pid, SIGTERM);
        if (!reap(m->pid, 5)) {
            kill(m->pid, SIGKILL);
            reap(m->pid, 5);
        }
    }
    m->pid = 0;
    bool gone = !bench_is_mounted(m->mnt);
    if (!gone)
        fprintf(stderr, "cellbench: %s is still mounted\n", m->mnt);
    m->mnt[0] = '\0';
    return gone ? 0 : -1;
}
