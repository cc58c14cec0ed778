#!/usr/bin/env bats
# Stores opened by location (kvcore(3), "Locations and backends"): cellsh
# and cellfs take "model:" (the in-memory reference model) as they take a
# directory, without new flags, and refuse a bigtable:// location they
# cannot serve (no backend in this build, no server), saying so.

load helpers/mount

CELLSH="$BUILD/tools/cellsh"

setup() {
    [ -x "$CELLSH" ] || { echo "cellsh not built at $CELLSH" >&2; return 1; }
    TMP_DIR="$(mktemp -d "${BATS_TMPDIR:-/tmp}/backends.XXXXXX")"
}

teardown() {
    fs_teardown
    [ -n "${TMP_DIR:-}" ] && rm -rf "$TMP_DIR"
}

@test "cellsh runs HBase commands on model:, an empty in-memory store each time" {
    run "$CELLSH" model: -e "create 't', {NAME => 'f', VERSIONS => 2}" \
        -e "put 't', 'r', 'f:q', 'v1', 1" -e "put 't', 'r', 'f:q', 'v2', 2" \
        -e "put 't', 'r', 'f:q', 'v3', 3" -e "scan 't', {VERSIONS => 5}" \
        -e "scan 't', {RAW => true, VERSIONS => 5}" -e "flush 't'" \
        -e "scan 't', {RAW => true, VERSIONS => 5}"
    [ "$status" -eq 0 ]
    # VERSIONS => 2 reads two; a raw scan shows the third until the flush.
    [ "$(grep -c 'column=f:q, timestamp=' <<<"$output")" -eq 7 ]
    [[ "$output" == *"timestamp=1, value=v1"* ]]
    run "$CELLSH" model: -e "exists 't'"
    [ "$status" -eq 0 ]
    [[ "$output" == *"Table t does not exist"* ]]
}

@test "cellsh and cellfs refuse a bigtable:// they cannot reach, or lack, saying why" {
    # Nothing listens on port 1: a build with the backend says the server
    # is unavailable, naming it; one without says the backend is not built.
    export BIGTABLE_EMULATOR_HOST=127.0.0.1:1
    run "$CELLSH" "bigtable://project/instance" -e "list"
    [ "$status" -ne 0 ]
    [[ "$output" == *"Cloud Bigtable backend"*"not built"* ||
       "$output" == *"unavailable"*"127.0.0.1:1"* ]]
    fs_require_fuse
    mkdir -p "$TMP_DIR/mnt"
    run "$CELLFS" "bigtable://project/instance" "$TMP_DIR/mnt" -f
    [ "$status" -ne 0 ]
    [[ "$output" == *"Cloud Bigtable backend"* || "$output" == *"127.0.0.1:1"* ]]
    if fs_is_mounted "$TMP_DIR/mnt"; then false; fi
}

@test "cellfs mounts model: and serves cells from memory" {
    fs_setup_dirs
    fs_mount model: "$MNT" -o create
    mkdir -p "$MNT/default/t/r/cf"
    echo hello > "$MNT/default/t/r/cf/q"
    [ "$(cat "$MNT/default/t/r/cf/q")" = "hello" ]
    [ "$(ls "$MNT/default/t")" = "r" ]
}
