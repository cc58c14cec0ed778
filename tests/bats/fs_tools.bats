#!/usr/bin/env bats
# cellfs: whole-tree tools (cp -a, tar, rsync) out of and back into a mount,
# with values and timestamps preserved (SPEC section 3, backup and restore).

load helpers/mount

setup() {
    fs_setup
    T="$MNT/default/t"
    mkdir "$T"
    for r in alpha beta gamma; do
        mkdir -p "$T/$r/cf"
        for q in a b c; do
            printf '%s-%s\n' "$r" "$q" > "$T/$r/cf/$q"
        done
    done
    touch -d '2019-03-04 05:06:07.250' "$T/alpha/cf/a"
    touch -d '2018-01-01 00:00:00' "$T/beta/cf/b"
    head -c 70000 /dev/urandom > "$T/gamma/cf/blob"
}

teardown() {
    fs_teardown
}

# listing DIR: "path mtime(ns) size sha" for every cell file under DIR
listing() {
    (cd "$1" && find . -type f ! -name .schema -printf '%P %T@ %s\n' | sort)
    (cd "$1" && find . -type f ! -name .schema -print0 | sort -z | xargs -0 sha1sum)
}

mount2() {
    MNT2="$FS_TMP/mnt2"
    mkdir -p "$MNT2"
    fs_mount "$FS_TMP/store2" "$MNT2" -o create "$@"
}

@test "cp -a out and back in keeps values and timestamps" {
    cp -a "$T" "$FS_TMP/copy"
    [ "$(cat "$FS_TMP/copy/alpha/cf/a")" = "alpha-a" ]
    [ "$(listing "$T")" = "$(listing "$FS_TMP/copy")" ]
    mkdir "$MNT/default/t2"
    cp -a "$FS_TMP/copy/." "$MNT/default/t2/"
    [ "$(listing "$T")" = "$(listing "$MNT/default/t2")" ]
}

@test "tar c and tar x" {
    tar --format=posix -C "$T" -cf "$FS_TMP/t.tar" .
    tar -tf "$FS_TMP/t.tar" | grep -q 'alpha/cf/a'
    mkdir "$FS_TMP/x"
    tar -C "$FS_TMP/x" -xf "$FS_TMP/t.tar"
    [ "$(listing "$T")" = "$(listing "$FS_TMP/x")" ]
    mkdir "$MNT/default/t3"
    tar -C "$MNT/default/t3" -xf "$FS_TMP/t.tar" --exclude=./.schema
    [ "$(listing "$T")" = "$(listing "$MNT/default/t3")" ]
}

@test "rsync -a out and back in to a new store (latest values)" {
    rsync -a "$T/" "$FS_TMP/backup/"
    [ -f "$FS_TMP/backup/.schema" ]
    [ "$(listing "$T")" = "$(listing "$FS_TMP/backup")" ]
    mount2
    rsync -a "$FS_TMP/backup/" "$MNT2/default/t/"
    [ "$(listing "$T")" = "$(listing "$MNT2/default/t")" ]
    [ "$(cat "$MNT2/default/t/.schema")" = "$(cat "$T/.schema")" ]
    # a second run finds nothing to do
    run rsync -ai "$FS_TMP/backup/" "$MNT2/default/t/" --exclude=.schema
    [ "$status" -eq 0 ]
    [ -z "$(echo "$output" | grep -v ' \./$')" ]   # the table's own time aside
}

@test "rsync -a with -o versions copies every version and timestamp" {
    fs_unmount "$MNT"
    fs_mount "$STORE" "$MNT" -o versions
    printf "{NAME => 'cf', VERSIONS => '3'}\n" > "$T/.schema"
    printf 'v1' > "$T/alpha/cf/h@1000000"
    printf 'v2' > "$T/alpha/cf/h@2000000"
    printf 'v3' > "$T/alpha/cf/h@3000000"
    run ls "$T/alpha/cf"
    [[ "$output" == *"h@2000000"* ]]
    rsync -a "$T/" "$FS_TMP/backup/"
    [ "$(cat "$FS_TMP/backup/alpha/cf/h@1000000")" = "v1" ]
    [ "$(cat "$FS_TMP/backup/alpha/cf/h")" = "v3" ]
    mount2 -o versions
    mkdir "$MNT2/default/t"
    cp "$FS_TMP/backup/.schema" "$MNT2/default/t/.schema"
    rsync -a "$FS_TMP/backup/" "$MNT2/default/t/"
    [ "$(listing "$T")" = "$(listing "$MNT2/default/t")" ]
    [ "$(cat "$MNT2/default/t/alpha/cf/h@2000000")" = "v2" ]
}

# restored_same BACKUP DIR: a second rsync -anc from BACKUP to DIR lists
# nothing, directories included (the table's own time aside).
restored_same() {
    run rsync -anc --itemize-changes --exclude=.schema "$1/" "$2/"
    echo "$output"
    [ "$status" -eq 0 ]
    [ -z "$(printf '%s\n' "$output" | grep -v ' \./$' | grep .)" ]
}

@test "rsync -a out and back into another mount: a second rsync lists nothing, rows, empty families and rows without cells included" {
    printf "{NAME => 'cf', VERSIONS => '3'}\n{NAME => 'g'}\n" > "$T/.schema"
    mkdir "$T/alpha/g"
    echo z > "$T/alpha/g/z"
    touch -d '2031-01-01 01:02:03.456' "$T/alpha/g/z"
    for f in "$T"/beta/cf/* "$T"/gamma/cf/*; do touch -d '2018-05-05 05:05:05.5' "$f"; done
    printf 'old' > "$T/beta/cf/v@1000000"
    fs_unmount "$MNT"
    fs_mount "$STORE" "$MNT"
    # rows from the store list every family: beta/g and gamma/g are empty,
    # and with a row without cells they show the epoch, whatever the mount
    [ -d "$T/beta/g" ]
    [ "$(stat -c %Y "$T/beta/g")" -eq 0 ]
    mkdir -p "$T/empty/cf"
    [ "$(stat -c %Y "$T/empty")" -eq 0 ]
    rsync -a "$T/" "$FS_TMP/backup/"
    mount2
    mkdir "$MNT2/default/t"
    cp "$FS_TMP/backup/.schema" "$MNT2/default/t/.schema"
    rsync -a "$FS_TMP/backup/" "$MNT2/default/t/"
    restored_same "$FS_TMP/backup" "$MNT2/default/t"
    # and with -o versions, into a third mount
    fs_unmount "$MNT"
    fs_mount "$STORE" "$MNT" -o versions
    [ -f "$T/beta/cf/v@1000000" ]
    rsync -a "$T/" "$FS_TMP/backup2/"
    fs_unmount "$MNT2"
    fs_mount "$FS_TMP/store2" "$MNT2" -o versions
    mkdir "$MNT2/default/t2"
    cp "$FS_TMP/backup2/.schema" "$MNT2/default/t2/.schema"
    rsync -a "$FS_TMP/backup2/" "$MNT2/default/t2/"
    restored_same "$FS_TMP/backup2" "$MNT2/default/t2"
}
