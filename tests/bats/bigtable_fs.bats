#!/usr/bin/env bats
# cellfs on a Cloud Bigtable location (issue 13): the same directory view
# and the same tools (ls, cat, echo, rm, mv within a row, rsync -a of a
# table out and back in), against Google's emulator, which this file starts
# on a free loopback port and stops by pid (skipped, saying so, where it is
# not installed). The tests are written for any backend: CELLFS_BACKEND
# (helpers/backend.bash) picks it, bigtable unless set, so that
# `CELLFS_BACKEND=local bats tests/bats/bigtable_fs.bats` runs the same
# checks on a local store.

CELLFS_BACKEND="${CELLFS_BACKEND:-bigtable}"
load helpers/mount
load helpers/backend

CELLSH="$BUILD/tools/cellsh"

setup_file() {
    backend_start_emulator
}

teardown_file() {
    backend_stop_emulator
}

setup() {
    backend_require
    fs_setup_dirs
    STORE="$(backend_store "$FS_TMP/store")"
    fs_mount "$STORE" "$MNT" -o create
    T="$MNT/default/t"
}

teardown() {
    fs_teardown
}

# listing DIR: "path mtime size" and a checksum of every cell file under DIR
listing() {
    (cd "$1" && find . -type f ! -name .schema -printf '%P %T@ %s\n' | sort)
    (cd "$1" && find . -type f ! -name .schema -print0 | sort -z | xargs -0 sha1sum)
}

@test "ls, cat, echo and rm work on the mount" {
    mkdir -p "$T/r1/cf" "$T/r2/cf"
    echo hello > "$T/r1/cf/greeting"
    printf 'x' > "$T/r2/cf/q"
    [ "$(cat "$T/r1/cf/greeting")" = "hello" ]
    [ "$(ls "$T")" = "$(printf 'r1\nr2')" ]
    [ "$(ls "$T/r1/cf")" = "greeting" ]
    [ "$(stat -c %s "$T/r1/cf/greeting")" = "6" ]
    touch -d '2021-05-06 07:08:09' "$T/r1/cf/greeting"
    [ "$(stat -c %Y "$T/r1/cf/greeting")" = "$(date -d '2021-05-06 07:08:09' +%s)" ]
    echo again >> "$T/r1/cf/greeting"
    [ "$(cat "$T/r1/cf/greeting")" = "$(printf 'hello\nagain')" ]
    rm "$T/r1/cf/greeting"
    [ ! -e "$T/r1/cf/greeting" ]
    run cat "$T/r1/cf/greeting"
    [ "$status" -ne 0 ]
    [ -z "$(ls "$T/r1/cf")" ]
    # Others may write a shared store while it is mounted (no
    # KV_CAP_EXCLUSIVE): the shell reads what the mount wrote, at once.
    backend_has exclusive && return 0
    run "$CELLSH" "$STORE" -e "scan 't'"
    [ "$status" -eq 0 ]
    [[ "$output" == *"r2"*"column=cf:q"*"value=x"* ]]
    [[ "$output" != *"greeting"* ]]
}

@test "mv within a row renames a cell; mv across rows copies" {
    mkdir -p "$T/r1/cf" "$T/r2/cf"
    echo one > "$T/r1/cf/a"
    touch -d '2020-01-02 03:04:05' "$T/r1/cf/a"
    mv "$T/r1/cf/a" "$T/r1/cf/b"
    [ ! -e "$T/r1/cf/a" ]
    [ "$(cat "$T/r1/cf/b")" = "one" ]
    [ "$(stat -c %Y "$T/r1/cf/b")" = "$(date -d '2020-01-02 03:04:05' +%s)" ]
    mv "$T/r1/cf/b" "$T/r2/cf/c"
    [ ! -e "$T/r1/cf/b" ]
    [ "$(cat "$T/r2/cf/c")" = "one" ]
    # sed -i writes a temporary file and renames it over the cell
    sed -i 's/one/two/' "$T/r2/cf/c"
    [ "$(cat "$T/r2/cf/c")" = "two" ]
}

@test "rsync -a of a table out and back in keeps values and timestamps" {
    for r in alpha beta gamma; do
        mkdir -p "$T/$r/cf"
        for q in a b c; do printf '%s-%s\n' "$r" "$q" > "$T/$r/cf/$q"; done
    done
    touch -d '2019-03-04 05:06:07' "$T/alpha/cf/a"
    head -c 70000 /dev/urandom > "$T/gamma/cf/blob"
    rsync -a "$T/" "$FS_TMP/backup/"
    [ -f "$FS_TMP/backup/.schema" ]
    [ "$(listing "$T")" = "$(listing "$FS_TMP/backup")" ]
    rsync -a "$FS_TMP/backup/" "$MNT/default/t2/"
    [ "$(listing "$T")" = "$(listing "$MNT/default/t2")" ]
    [ "$(cat "$MNT/default/t2/.schema")" = "$(cat "$T/.schema")" ]
    # a second run finds nothing to do
    run rsync -ai "$FS_TMP/backup/" "$MNT/default/t2/" --exclude=.schema
    [ "$status" -eq 0 ]
    [ -z "$(echo "$output" | grep -v '^\.d')" ]
}

# run_refused CMD...: CMD fails with EOPNOTSUPP's text.
run_refused() {
    run "$@"
    [ "$status" -ne 0 ] || { echo "succeeded: $*" >&2; return 1; }
    [[ "$output" == *"Operation not supported"* ]] || { echo "$*: $output" >&2; return 1; }
}

@test "what Bigtable cannot express fails with EOPNOTSUPP and a log line saying why" {
    [ "$CELLFS_BACKEND" = bigtable ] || skip "Cloud Bigtable's refusals"
    run_refused mkdir "$MNT/newns"
    [ ! -e "$MNT/newns" ]
    grep -q "does not support namespaces" "$FS_TMP/cellfs.log"
    mkdir -p "$T/r/cf"
    echo v > "$T/r/cf/q"
    run_refused touch -d '1960-01-01' "$T/r/cf/q"
    grep -q "timestamps from 0" "$FS_TMP/cellfs.log"
    [ "$(cat "$T/r/cf/q")" = "v" ]
    printf "{NAME => 'cf', COMPRESSION => 'LZ4'}\n" > "$FS_TMP/schema"
    run_refused cp "$FS_TMP/schema" "$T/.schema"
    grep -q "COMPRESSION is not supported" "$FS_TMP/cellfs.log"
    [[ "$(cat "$T/.schema")" == *"COMPRESSION => 'NONE'"* ]]
    # df works, with no figures of the store's own (it keeps none)
    df "$MNT" > /dev/null
    # an empty table is dropped at once (Bigtable has no disabled tables)
    mkdir "$MNT/default/empty"
    rmdir "$MNT/default/empty"
    [ ! -e "$MNT/default/empty" ]
}
