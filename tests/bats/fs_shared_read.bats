#!/usr/bin/env bats
# Read-only openers share a store (kv_store_open, read_only): cellsh -r reads
# beside a cellfs -o ro mount, while a writer on either side is refused with
# a message naming the holder.

load helpers/mount

CELLSH="$BUILD/tools/cellsh"

setup() {
    fs_setup
    mkdir -p "$MNT/default/t/r/cf"
    echo v > "$MNT/default/t/r/cf/q"
    fs_unmount "$MNT"
}

teardown() {
    fs_teardown
}

@test "cellsh -r reads beside a cellfs -o ro mount; writers on either side are refused" {
    fs_mount "$STORE" "$MNT" -o ro
    [ "$(cat "$MNT/default/t/r/cf/q")" = "v" ]
    run "$CELLSH" -r "$STORE" -e "get 't', 'r'"
    [ "$status" -eq 0 ]
    [[ "$output" == *"cf:q"*"value=v"* ]]
    # A writing cellsh is refused and told which process reads the store.
    run "$CELLSH" "$STORE" -e "put 't', 'r', 'cf:q', 'w'"
    [ "$status" -ne 0 ]
    [[ "$output" == *"pid $FS_PID"* ]]
    [[ "$output" == *"read-only"* ]]
    [ "$(cat "$MNT/default/t/r/cf/q")" = "v" ]
    fs_unmount "$MNT"
    # Beside a writing mount, cellsh -r is refused, naming the mount.
    fs_mount "$STORE" "$MNT"
    run "$CELLSH" -r "$STORE" -e "get 't', 'r'"
    [ "$status" -ne 0 ]
    [[ "$output" == *"pid $FS_PID"* ]]
    [[ "$output" == *"cellfs mounted at"* ]]
}
