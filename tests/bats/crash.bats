#!/usr/bin/env bats
# The crash tester (tests/crash): writers through the API, through
# cellsh and through a cellfs mount are killed with SIGKILL at random
# moments, and a power-loss mode drops everything not synced; after every
# cycle the store must open with every acknowledged write present, each
# writer's rows a prefix, no torn row and counters never going back.
# CI: 20 cycles per mode with a fixed seed. Long mode:
#   CRASHTEST_CYCLES=1000 bats tests/bats/crash.bats

load helpers/mount

CRASHTEST="$BUILD/tests/crash/crashtest"
CELLSH="$BUILD/tools/cellsh"
CYCLES="${CRASHTEST_CYCLES:-20}"
SEED="${CRASHTEST_SEED:-11}"
# cellck (the reliability branch's store checker) runs after every cycle
# once it is built.
CELLCK_ARG=()
[ -x "$BUILD/tools/cellck" ] && CELLCK_ARG=(--cellck="$BUILD/tools/cellck")

setup() {
    FS_TMP=$(mktemp -d "${BATS_TMPDIR:-/tmp}/cellfs-crash.XXXXXX")
}

teardown() {
    # The tool unmounts its dead mounts itself; this is for a failure
    # between its mount and its unmount (the daemon is its child: gone).
    if fs_is_mounted "$FS_TMP/mnt"; then fusermount3 -u -z "$FS_TMP/mnt" 2>/dev/null || true; fi
    rm -rf "$FS_TMP"
}

@test "crash: SIGKILL of two API writer threads, $CYCLES cycles" {
    run "$CRASHTEST" --mode=api --dir="$FS_TMP" --cycles="$CYCLES" --seed="$SEED" "${CELLCK_ARG[@]}"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *"crashtest api: $CYCLES cycles"* ]]
}

@test "crash: power loss drops everything not synced, $CYCLES cycles" {
    run "$CRASHTEST" --mode=power --dir="$FS_TMP" --cycles="$CYCLES" --seed="$SEED" "${CELLCK_ARG[@]}"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *"crashtest power: $CYCLES cycles"* ]]
}

@test "crash: the check fails when unsynced writes are counted as acknowledged" {
    run "$CRASHTEST" --mode=power --dir="$FS_TMP" --cycles="$CYCLES" --seed="$SEED" --claim-unsynced
    echo "$output"
    [ "$status" -eq 1 ]
    [[ "$output" == *"FAILED: writer 0: acknowledged up to seq"* ]]
}

@test "crash: SIGKILL of cellsh, $CYCLES cycles" {
    run "$CRASHTEST" --mode=cellsh --cellsh="$CELLSH" --dir="$FS_TMP" --cycles="$CYCLES" --seed="$SEED" "${CELLCK_ARG[@]}"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *"crashtest cellsh: $CYCLES cycles"* ]]
}

@test "crash: SIGKILL of the cellfs daemon under a writer, $CYCLES cycles" {
    fs_require_fuse
    run "$CRASHTEST" --mode=mount --cellfs="$CELLFS" --dir="$FS_TMP" --cycles="$CYCLES" --seed="$SEED" "${CELLCK_ARG[@]}"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *"crashtest mount: $CYCLES cycles"* ]]
}

@test "crash: cellck is clean on the store as a SIGKILL left it, before any open" {
    [ ${#CELLCK_ARG[@]} -gt 0 ] || skip "cellck is not built"
    run "$CRASHTEST" --mode=api --dir="$FS_TMP" --cycles="$CYCLES" --seed="$SEED" "${CELLCK_ARG[@]}" --cellck-raw
    echo "$output"
    [ "$status" -eq 0 ]
}
