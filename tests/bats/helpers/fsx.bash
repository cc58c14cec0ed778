# Helpers for tests/bats/fs_random.bats, which runs the random operation
# tester tests/fsx/ (see its README.md) on native directories and on cellfs
# mounts made with mount.bash.

FSX="$BUILD/tests/fsx/fsx"

fsx_require() {
    [ -x "$FSX" ] || { echo "fsx not built at $FSX (set CELLFS_BUILD)" >&2; return 1; }
}

# fsx_mount_table [cellfs options...]: fs_setup with the options, and
# FSX_REMOUNT set to a command that remounts the same store with them,
# for fsx -r. Sets TABLE to a table path that does not exist yet.
fsx_mount_table() {
    fs_setup "$@"
    echo "$FS_PID" >"$FS_TMP/daemon.pid"
    : >"$FS_TMP/daemon.pids"
    FSX_REMOUNT="CELLFS_BUILD='$BUILD' bash '$BATS_TEST_DIRNAME/helpers/fsx_remount.sh' '$FS_TMP' '$STORE' '$MNT' $*"
    TABLE="$MNT/default/fsx"
}

# fsx_teardown: the daemons the remounts started are ended like the first.
fsx_teardown() {
    if [ -n "${FS_TMP:-}" ] && [ -f "$FS_TMP/daemon.pids" ]; then
        FS_PIDS="$FS_PIDS $(tr '\n' ' ' <"$FS_TMP/daemon.pids")"
        FS_PID=$(cat "$FS_TMP/daemon.pid")
    fi
    fs_teardown
}

# fsx_expect_pass COMMAND...: runs an fsx command that must pass.
fsx_expect_pass() {
    run "$@"
    if [ "$status" -ne 0 ]; then
        printf '%s\n' "$output" | tail -80
        return 1
    fi
    printf '%s\n' "$output" | grep -q 'all checks passed'
}

# fsx_known_failure ID COMMAND...: runs an fsx command that today's cellfs
# driver is known to fail (tests/fsx/KNOWN_FAILURES.md, entry ID). Passes
# when the command passes. When fsx reports a failed check (exit 1), the
# test is skipped naming ID and fsx's first FAIL line, or, with
# FSX_STRICT=1 in the environment, fails. Any other exit status (a crash,
# bad usage) fails.
fsx_known_failure() {
    local id=$1
    shift
    run "$@"
    [ "$status" -eq 0 ] && return 0
    printf '%s\n' "$output" | tail -80
    [ "$status" -eq 1 ] || return 1
    printf '%s\n' "$output" | grep -q 'FAIL at op' || return 1
    [ "${FSX_STRICT:-0}" = 1 ] && return 1
    skip "known failure $id (tests/fsx/KNOWN_FAILURES.md): $(printf '%s\n' "$output" | grep -m1 'FAIL at op' | cut -c1-200)"
}
