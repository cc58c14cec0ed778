#!/usr/bin/env bats
# SIGKILL of the cellfs daemon under real tools (tests/crash/killmount.sh):
# cp, tee, tee -a, touch and rsync -a write, the daemon is killed at random moments,
# the store is remounted, and every write whose tool exited 0 (its close
# returned 0) reads back byte for byte; what was stored before stays; cellck
# is clean. CI: 6 cycles, seed 11; the long mode:
#   tests/crash/killmount.sh build WORKDIR 100 SEED

load helpers/mount

KILLMOUNT="$BATS_TEST_DIRNAME/../crash/killmount.sh"

setup() {
    fs_setup_dirs
}

teardown() {
    local m
    for m in "$FS_TMP/mnt" "$FS_TMP/km/mnt"; do
        if fs_is_mounted "$m"; then fusermount3 -u -z "$m" 2>/dev/null || true; fi
    done
    fs_teardown
}

@test "kill -9 of cellfs under cp, tee, touch and rsync -a: every acknowledged write survives, 6 cycles" {
    mkdir "$FS_TMP/km"
    run timeout 600 bash "$KILLMOUNT" "$BUILD" "$FS_TMP/km" 6 11
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *"6 cycles"*"ok"* ]]
}

@test "kill -9 of cellfs: mounting again over the dead mount says to detach it first" {
    fs_mount "$STORE" "$MNT" -o create
    mkdir -p "$MNT/default/t/r/cf"
    echo v > "$MNT/default/t/r/cf/q"
    kill -KILL "$FS_PID"
    wait "$FS_PID" 2>/dev/null || true
    run timeout 60 "$CELLFS" "$STORE" "$MNT" -f
    echo "$output"
    [ "$status" -ne 0 ]
    [[ "$output" == *"fusermount3 -u"* ]]
    fusermount3 -u -z "$MNT"
    fs_mount "$STORE" "$MNT"
    [ "$(cat "$MNT/default/t/r/cf/q")" = v ]
}
