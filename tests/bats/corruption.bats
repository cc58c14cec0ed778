#!/usr/bin/env bats
# Corruption through cellsh and the mount (the API: tests/unit/
# test_corruption.c, which flips and truncates every file kind): a damaged
# block of a sorted file, a damaged manifest and a damaged log must give an
# error naming the file, never data, never a crash or a hang. Each test
# prints a line of the results table (kind, interface, outcome).

load helpers/mount

CELLSH="$BUILD/tools/cellsh"

setup() {
    FS_TMP=$(mktemp -d "${BATS_TMPDIR:-/tmp}/cellfs-corrupt.XXXXXX")
    STORE="$FS_TMP/store"
    MNT="$FS_TMP/mnt"
    mkdir -p "$MNT"
    FS_PID=""
    {
        echo "create 't', 'f'"
        for i in $(seq -w 1 60); do echo "put 't', 'r$i', 'f:q', 'value-$i'"; done
        echo "flush 't'"
    } | "$CELLSH" -n "$STORE" >/dev/null
    SST=$(ls "$STORE"/*.sst | head -1)
    [ -f "$SST" ]
}

teardown() {
    if [ -n "${FS_PID:-}" ]; then
        fs_unmount "$MNT"
        kill "$FS_PID" 2>/dev/null || true
        wait "$FS_PID" 2>/dev/null || true
    fi
    if fs_is_mounted "$MNT"; then fusermount3 -u -z "$MNT" 2>/dev/null || true; fi
    rm -rf "$FS_TMP"
}

# flip FILE OFFSET: xors one byte.
flip() {
    python3 - "$1" "$2" <<'PY'
import sys
p, off = sys.argv[1], int(sys.argv[2])
with open(p, 'r+b') as f:
    f.seek(off); b = f.read(1); f.seek(off); f.write(bytes([b[0] ^ 0x5a]))
PY
}

# result KIND INTERFACE OUTCOME: one line of the table, shown by bats (fd 3).
result() {
    printf '# corruption  %-16s %-8s %s\n' "$1" "$2" "$3" >&3
}

@test "corruption: a damaged data block, through cellsh: scan and get fail naming the file" {
    flip "$SST" 20
    run timeout 60 "$CELLSH" "$STORE" -e "scan 't'"
    echo "$output"
    [ "$status" -eq 1 ]
    [[ "$output" == *"$(basename "$SST")"* ]]
    [[ "$output" != *"value-"* ]]
    run timeout 60 "$CELLSH" "$STORE" -e "get 't', 'r30'"
    echo "$output"
    [ "$status" -eq 1 ]
    [[ "$output" == *"$(basename "$SST")"* ]]
    [[ "$output" != *"value-"* ]]
    result "sst data block" cellsh "detected, file named"
}

@test "corruption: a damaged data block, through the mount: reads fail with EIO, the log names the file" {
    fs_require_fuse
    flip "$SST" 20
    fs_mount "$STORE" "$MNT"
    run timeout 60 cat "$MNT/default/t/r30/f/q"
    echo "$output"
    [ "$status" -ne 0 ]
    [[ "$output" == *"Input/output error"* ]]
    [[ "$output" != *"value-"* ]]
    grep -q "$(basename "$SST")" "$FS_TMP/cellfs.log"
    result "sst data block" mount "detected (EIO), file named in the log"
}

@test "corruption: a damaged data block, through the mount: a listing fails, never a shorter one" {
    fs_require_fuse
    flip "$SST" 20
    fs_mount "$STORE" "$MNT"
    run timeout 60 ls "$MNT/default/t"
    echo "$output"
    if [ "$status" -eq 0 ]; then
        result "sst data block" "mount ls" "KNOWN FAILURE: listing hides the error"
        skip "known failure, issue 11 defect 1: ls of a table with a damaged block exits 0 with a short listing"
    fi
    [[ "$output" == *"Input/output error"* ]]
    result "sst data block" "mount ls" "detected (EIO)"
}

@test "corruption: a damaged manifest: cellsh and cellfs refuse to open, naming it" {
    flip "$STORE/MANIFEST" 30
    run timeout 60 "$CELLSH" "$STORE" -e "list"
    echo "$output"
    [ "$status" -eq 3 ]
    [[ "$output" == *"MANIFEST"* ]]
    result manifest cellsh "refused, file named"
    if [ -c /dev/fuse ]; then
        run timeout 60 "$CELLFS" "$STORE" "$MNT" -f
        echo "$output"
        [ "$status" -ne 0 ]
        [[ "$output" == *"MANIFEST"* ]]
        if fs_is_mounted "$MNT"; then false; fi
        result manifest mount "refused, file named"
    fi
}

@test "corruption: a damaged log record followed by others: cellsh refuses to open, naming the log" {
    # A log that is not replayed yet: cellsh killed before it closes.
    mkfifo "$FS_TMP/in"
    "$CELLSH" -n "$STORE" <"$FS_TMP/in" >"$FS_TMP/out" 2>&1 &
    local pid=$!
    exec 4>"$FS_TMP/in"
    for i in $(seq -w 1 30); do echo "put 't', 'l$i', 'f:q', 'logged-$i'" >&4; done
    echo "incr 't', 'done', 'f:n', 1" >&4
    for _ in $(seq 1 100); do grep -q "COUNTER VALUE" "$FS_TMP/out" && break; sleep 0.1; done
    kill -KILL "$pid"
    wait "$pid" 2>/dev/null || true
    exec 4>&-
    local log
    log=$(ls -S "$STORE"/*.log | head -1)
    [ "$(stat -c %s "$log")" -gt 400 ]
    flip "$log" 100
    run timeout 60 "$CELLSH" "$STORE" -e "scan 't'"
    echo "$output"
    [ "$status" -ne 0 ]
    [[ "$output" == *"$(basename "$log")"* ]]
    result "log record" cellsh "refused, file named"
}

@test "corruption: a sorted file copied over another: reads fail naming it, never its cells as the other's" {
    # A second table whose sorted file has the same size as t's (same row
    # and value lengths, other names): copied over t's file, its checksums
    # are valid, and only the manifest's record can tell it is not t's.
    {
        echo "create 'u', 'f'"
        for i in $(seq -w 1 60); do echo "put 'u', 'x$i', 'f:q', 'other-$i'"; done
        echo "flush 'u'"
    } | "$CELLSH" -n "$STORE" >/dev/null
    local other
    other=$(ls "$STORE"/*.sst | grep -v "$(basename "$SST")" | head -1)
    [ "$(stat -c %s "$other")" -eq "$(stat -c %s "$SST")" ]
    cp "$other" "$SST"
    run timeout 60 "$CELLSH" "$STORE" -e "scan 't'"
    echo "$output"
    [ "$status" -ne 0 ]
    [[ "$output" == *"$(basename "$SST")"* ]]
    [[ "$output" != *"other-"* ]]
    run timeout 60 "$CELLSH" "$STORE" -e "get 't', 'x30'"
    echo "$output"
    [[ "$output" != *"other-"* ]]
    run "$BUILD/tools/cellck" "$STORE"
    echo "$output"
    [ "$status" -eq 1 ]
    result "sst swapped" cellsh "detected, file named"
}
