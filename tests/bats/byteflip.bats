#!/usr/bin/env bats
# One-bit flips of every file of a small store (sorted files, the live log,
# the manifest), checked through cellsh, cellck and a read-only mount
# (tests/crash/byteflip.py): no crash or hang, no value that was not
# written, no command that succeeds with cells missing, cellck exits 1
# naming the file, the mount gives EIO rather than a short listing. CI runs
# a fixed-seed sample; the long mode flips every byte:
#   tests/crash/byteflip.py --build=build-asan --per-file=all --mount-every=20 [--rich]

load helpers/mount

BYTEFLIP="$BATS_TEST_DIRNAME/../crash/byteflip.py"

setup() {
    FS_TMP=$(mktemp -d "${BATS_TMPDIR:-/tmp}/cellfs-byteflip.XXXXXX")
    [ -x "$BUILD/tools/cellsh" ] && [ -x "$BUILD/tools/cellck" ] ||
        { echo "cellsh/cellck not built in $BUILD" >&2; return 1; }
}

teardown() {
    if fs_is_mounted "$FS_TMP/mnt"; then fusermount3 -u -z "$FS_TMP/mnt" 2>/dev/null || true; fi
    rm -rf "$FS_TMP"
}

@test "byteflip: 8 flips per file of a plain store, seed 11" {
    run timeout 600 python3 "$BYTEFLIP" --build="$BUILD" --work="$FS_TMP" --per-file=8 \
        --mount-every=6 --seed=11
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *" 0 failed"* ]]
}

@test "byteflip: 8 flips per file of compressed, encoded, small-block families with deletes, seed 12" {
    run timeout 600 python3 "$BYTEFLIP" --build="$BUILD" --work="$FS_TMP" --per-file=8 \
        --mount-every=6 --seed=12 --rich
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *" 0 failed"* ]]
}

@test "byteflip: sorted files copied over each other (3 per file), seed 13" {
    run timeout 600 python3 "$BYTEFLIP" --build="$BUILD" --work="$FS_TMP" --per-file=3 \
        --mount-every=5 --seed=13 --swap
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *" 0 failed"* ]]
}

@test "byteflip: the check fails when a cell is expected that was never written" {
    run timeout 600 python3 "$BYTEFLIP" --build="$BUILD" --work="$FS_TMP" --per-file=1 --self-test
    echo "$output"
    [ "$status" -eq 2 ]
    [[ "$output" == *"does not read back"* ]]
}
