#!/usr/bin/env bash
# The remount command of fsx's table mode in tests/bats/fs_random.bats:
#   fsx_remount.sh FS_TMP STORE MNT [cellfs options...]
# unmounts MNT, waits until the daemon recorded in FS_TMP/daemon.pid has
# exited (so the store is closed), mounts STORE at MNT again with the
# options given (tests/bats/helpers/mount.bash's fs_mount) and records the
# new daemon's pid in FS_TMP/daemon.pid and FS_TMP/daemon.pids, where the
# test's teardown finds it. Exit 0 when mounted again.
set -u
FS_TMP=$1 STORE=$2 MNT=$3
shift 3
# shellcheck source=mount.bash
source "$(dirname "$0")/mount.bash"
FS_PID=$(cat "$FS_TMP/daemon.pid")
FS_PIDS=""
fs_unmount "$MNT"
if fs_is_mounted "$MNT" || kill -0 "$FS_PID" 2>/dev/null; then
    echo "fsx_remount: $MNT still mounted or daemon $FS_PID still running" >&2
    exit 1
fi
# The daemon must not hold the tester's output open: bats waits for it.
fs_mount "$STORE" "$MNT" "$@" >/dev/null || exit 1
echo "$FS_PID" >"$FS_TMP/daemon.pid"
echo "$FS_PID" >>"$FS_TMP/daemon.pids"
