#!/usr/bin/env bats
# cellfs: what is written survives unmount/remount and the SIGKILL of the
# daemon (every closed file is in the write-ahead log).

load helpers/mount

setup() {
    fs_setup
    T="$MNT/default/t"
    mkdir "$T"
}

teardown() {
    fs_teardown
}

@test "unmount and remount: everything is still there" {
    for i in $(seq 1 50); do
        mkdir -p "$T/r$i/cf"
        echo "value $i" > "$T/r$i/cf/q"
    done
    printf "{NAME => 'cf', VERSIONS => '2'}\n{NAME => 'x'}\n" > "$T/.schema"
    touch -d '2015-06-07 08:09:10' "$T/r7/cf/q"
    fs_unmount "$MNT"
    if fs_is_mounted "$MNT"; then false; fi
    fs_mount "$STORE" "$MNT"
    [ "$(ls "$T" | wc -l)" -eq 50 ]
    [ "$(cat "$T/r42/cf/q")" = "value 42" ]
    [ "$(stat -c %Y "$T/r7/cf/q")" -eq "$(date -d '2015-06-07 08:09:10' +%s)" ]
    grep -q "NAME => 'x'" "$T/.schema"
}

@test "SIGKILL of the daemon, then remount: closed files are present" {
    for i in $(seq 1 20); do
        mkdir -p "$T/r$i/cf"
        echo "value $i" > "$T/r$i/cf/q"
    done
    sync
    kill -KILL "$FS_PID"
    wait "$FS_PID" 2>/dev/null || true
    fusermount3 -u "$MNT" 2>/dev/null || fusermount3 -u -z "$MNT"
    fs_mount "$STORE" "$MNT"
    [ "$(ls "$T" | wc -l)" -eq 20 ]
    for i in $(seq 1 20); do
        [ "$(cat "$T/r$i/cf/q")" = "value $i" ]
    done
}

@test "a second mount of the same store is refused, naming the holder" {
    mkdir -p "$FS_TMP/mnt2"
    run "$CELLFS" "$STORE" "$FS_TMP/mnt2" -f
    [ "$status" -ne 0 ]
    [[ "$output" == *"$FS_PID"* ]] || [[ "$output" == *"lock"* ]] || [[ "$output" == *"held"* ]]
    if fs_is_mounted "$FS_TMP/mnt2"; then false; fi
}

@test "cellfs --help and --version" {
    run "$CELLFS" --help
    [ "$status" -eq 0 ]
    [[ "$output" == *"-o versions"* ]]
    run "$CELLFS" --version
    [ "$status" -eq 0 ]
    [[ "$output" == cellfs* ]]
}

@test "-o ro: reads work, writes are EROFS" {
    mkdir -p "$T/r/cf"
    echo v > "$T/r/cf/q"
    fs_unmount "$MNT"
    fs_mount "$STORE" "$MNT" -o ro
    [ "$(cat "$T/r/cf/q")" = "v" ]
    run bash -c "echo w > '$T/r/cf/q'"
    [ "$status" -ne 0 ]
    [[ "$output" == *"Read-only file system"* ]]
}
