# Shared setup for the cellfs FUSE tests (tests/bats/fs_*.bats).
# Each test gets its own store and mount point in a temp dir, mounted with
# `cellfs STORE MNT -o create -f` in the background; teardown unmounts
# (retrying, then lazily), ends only the daemon it started, by pid, and
# removes the temp dir. Skips only where /dev/fuse is absent.

source "${BASH_SOURCE[0]%/*}/backend.bash"

BUILD="${CELLFS_BUILD:-$BATS_TEST_DIRNAME/../../build}"
CELLFS="$BUILD/fusefs/cellfs"
FILL="$BUILD/fusefs/cellfs-test-fill"

# fs_require_fuse: skip the test when FUSE cannot work here.
fs_require_fuse() {
    [ -c /dev/fuse ] || skip "/dev/fuse is absent"
    [ -x "$CELLFS" ] || { echo "cellfs not built at $CELLFS (set CELLFS_BUILD)" >&2; return 1; }
}

# fs_is_mounted DIR
fs_is_mounted() {
    local d
    d=$(realpath -m "$1")
    awk -v d="$d" '$2 == d { found = 1 } END { exit !found }' /proc/mounts
}

# fs_mount STORE MNT [cellfs options...]: starts the daemon in the
# foreground in the background; sets FS_PID; waits until mounted (10 s).
fs_mount() {
    local store=$1 mnt=$2
    shift 2
    "$CELLFS" "$store" "$mnt" -f "$@" 2>>"$FS_TMP/cellfs.log" &
    FS_PID=$!
    FS_PIDS="$FS_PIDS $FS_PID"
    local i
    for i in $(seq 1 200); do
        if fs_is_mounted "$mnt"; then return 0; fi
        if ! kill -0 "$FS_PID" 2>/dev/null; then
            echo "cellfs exited before mounting; log:" >&2
            cat "$FS_TMP/cellfs.log" >&2
            return 1
        fi
        sleep 0.05
    done
    echo "timeout waiting for the mount of $mnt" >&2
    return 1
}

# fs_unmount MNT: fusermount3 -u with retries, then -z; waits for the
# daemon that served it (FS_PID) to exit.
fs_unmount() {
    local mnt=$1 i
    for i in $(seq 1 50); do
        fs_is_mounted "$mnt" || break
        fusermount3 -u "$mnt" 2>/dev/null && break
        sleep 0.1
    done
    if fs_is_mounted "$mnt"; then fusermount3 -u -z "$mnt" 2>/dev/null || true; fi
    if [ -n "${FS_PID:-}" ]; then
        for i in $(seq 1 100); do
            kill -0 "$FS_PID" 2>/dev/null || break
            sleep 0.1
        done
    fi
}

# fs_setup_dirs: temp dir with STORE (not yet created) and MNT, unmounted.
# STORE is the location backend_store gives (helpers/backend.bash): a
# directory in the temp dir, or with CELLFS_BACKEND=bigtable an instance of
# its own on the emulator.
fs_setup_dirs() {
    fs_require_fuse
    backend_require
    FS_TMP=$(mktemp -d "${BATS_TMPDIR:-/tmp}/cellfs-bats.XXXXXX")
    STORE=$(backend_store "$FS_TMP/store")
    MNT="$FS_TMP/mnt"
    mkdir -p "$MNT"
    FS_PIDS=""
}

# fs_setup: temp dir with STORE and MNT, mounted with -o create [options].
fs_setup() {
    fs_setup_dirs
    fs_mount "$STORE" "$MNT" -o create "$@"
}

# fs_daemon_pid MNT: the pid of the cellfs process whose arguments include
# MNT (a daemon started by mount(8) rather than by fs_mount); fails if none.
fs_daemon_pid() {
    local p exe
    exe=$(realpath "$CELLFS")
    for p in /proc/[0-9]*; do
        [ "$(readlink "$p/exe" 2>/dev/null)" = "$exe" ] || continue
        if tr '\0' '\n' < "$p/cmdline" 2>/dev/null | grep -qxF -- "$1"; then
            echo "${p#/proc/}"
            return 0
        fi
    done
    return 1
}

# fs_teardown: always unmount and clean up, even after a failure.
fs_teardown() {
    [ -n "${FS_TMP:-}" ] || return 0
    local m
    for m in "$FS_TMP"/mnt*; do
        [ -d "$m" ] && fs_unmount "$m"
    done
    local p
    for p in $FS_PIDS; do
        if kill -0 "$p" 2>/dev/null; then
            sleep 0.5
            kill "$p" 2>/dev/null || true
        fi
    done
    if [ -n "${BATS_TEST_COMPLETED:-}" ] || [ -z "${FS_KEEP_LOG:-}" ]; then :; fi
    if [ -s "$FS_TMP/cellfs.log" ] && [ -z "${BATS_TEST_COMPLETED:-}" ]; then
        echo "--- cellfs log ---" >&2
        cat "$FS_TMP/cellfs.log" >&2
    fi
    rm -rf "$FS_TMP"
}

# fs_daemon_rss PID: resident memory in KiB.
fs_daemon_rss() {
    awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"
}
