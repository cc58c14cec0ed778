#!/usr/bin/env bats
# cellfs: negative entries (cellfs(1) CACHING). A lookup that finds
# nothing lets the kernel keep the name's absence, so a second stat of an
# absent name costs no request; every way a name appears with no call on
# that name (q@<ts> written or renamed onto, a family added by .schema, a
# row moved) drops it before the call that made it returns. Each test
# first shows the absence is kept (no LOOKUP for the second stat), then
# that the name is there right after the other call.

load helpers/mount
load helpers/requests

setup() {
    fs_setup -d "${EXTRA_OPTS[@]}"
    T="$MNT/default/t"
    mkdir "$T"
    mkdir -p "$T/r/cf"
    echo x > "$T/r/cf/x"
}

teardown() {
    fs_teardown
}

# epoch_or_skip: skips on a kernel whose FUSE protocol (the INIT line of
# the daemon's log) is older than 7.44: it has no entry epoch, and the
# mount then hands out no negative entry.
epoch_or_skip() {
    local minor
    minor=$(sed -n 's/^INIT: 7\.\([0-9]*\)$/\1/p' "$FS_TMP/cellfs.log" | head -1)
    [ "${minor:-0}" -ge 44 ] || skip "kernel FUSE protocol 7.${minor:-?}: no entry epoch"
}

# absent_kept PATH: PATH is absent, and a second stat of it sends no LOOKUP.
absent_kept() {
    epoch_or_skip
    run stat "$1"
    [ "$status" -ne 0 ]
    mark
    run stat "$1"
    [ "$status" -ne 0 ]
    [ "$(count LOOKUP)" = 0 ]
}

# remount: the rows made with mkdir above stop being young (their
# listings show every family of the table).
remount() {
    fs_unmount "$MNT"
    fs_mount "$STORE" "$MNT" -d
}

@test "an absent q is kept, and a write of q@<ts> makes q appear" {
    absent_kept "$T/r/cf/q"
    echo v > "$T/r/cf/q@123"
    [ "$(cat "$T/r/cf/q")" = v ]
    [ "$(ls "$T/r/cf")" = "$(printf 'q\nx')" ]
}

@test "an absent q, then a rename onto q@<ts> makes q appear" {
    absent_kept "$T/r/cf/q"
    echo w > "$T/r/cf/tmp"
    mv "$T/r/cf/tmp" "$T/r/cf/q@123"
    [ "$(cat "$T/r/cf/q")" = w ]
}

@test "an absent family of a row, then a .schema write adding it: the family appears" {
    remount
    absent_kept "$T/r/g"
    printf "{NAME => 'cf'}\n{NAME => 'g'}\n" > "$T/.schema"
    [ -d "$T/r/g" ]
    ls "$T/r" | grep -qx g
}

@test "an absent row, then mkdir of it and of its family: both there" {
    absent_kept "$T/s"
    mkdir "$T/s"
    [ -d "$T/s" ]
    mkdir "$T/s/cf"
    absent_kept "$T/s/cf/q"
    echo v > "$T/s/cf/q"
    [ "$(cat "$T/s/cf/q")" = v ]
}

@test "an absent row, then a row mv onto it: the row and its cells are there" {
    remount
    absent_kept "$T/s"
    absent_kept "$T/r/cf/q"
    mv "$T/r" "$T/s"
    [ "$(cat "$T/s/cf/x")" = x ]
    run stat "$T/s/cf/q"
    [ "$status" -ne 0 ]
    run stat "$T/r"
    [ "$status" -ne 0 ]
}

@test "a row mv brings its cells under names the kernel had found absent" {
    remount
    mkdir -p "$T/s/cf"
    echo y > "$T/s/cf/y"
    remount
    absent_kept "$T/r/cf/y"
    rm -r "$T/r"
    mv "$T/s" "$T/r"
    [ "$(cat "$T/r/cf/y")" = y ]
}

@test "-o versions: q@<ts> names are never kept absent; a re-stamp of q shows the new one" {
    remount
    fs_unmount "$MNT"
    fs_mount "$STORE" "$MNT" -d -o versions
    run stat "$T/r/cf/x@123"
    [ "$status" -ne 0 ]
    touch -d @0.123 "$T/r/cf/x"
    [ "$(cat "$T/r/cf/x@123")" = x ]
}

@test "an absent family of a young row is not kept: it appears when the row ages" {
    absent_kept "$T/r/cf/nothere"
    run stat "$T/r/g"
    [ "$status" -ne 0 ]
    mark
    run stat "$T/r/g"
    [ "$(count LOOKUP)" = 1 ]
}

@test "rsync -a of 10 rows in sends at most 7 LOOKUPs a row (8 without negative entries)" {
    epoch_or_skip
    command -v rsync > /dev/null || skip "rsync is absent"
    src="$FS_TMP/src"
    for i in $(seq 1 10); do
        mkdir -p "$src/row$i/cf"
        printf '%0100d' "$i" > "$src/row$i/cf/q"
    done
    mkdir "$MNT/default/u"
    mark
    rsync -a "$src/" "$MNT/default/u/"
    n=$(count LOOKUP)
    echo "LOOKUPs: $n"
    [ "$n" -le 70 ]
    [ "$(cat "$MNT/default/u/row7/cf/q")" = "$(cat "$src/row7/cf/q")" ]
}

@test "-o timeout=0 keeps no absence: a second stat of an absent name is looked up again" {
    epoch_or_skip
    fs_unmount "$MNT"
    fs_mount "$STORE" "$MNT" -d -o timeout=0
    run stat "$T/r/cf/q"
    [ "$status" -ne 0 ]
    mark
    run stat "$T/r/cf/q"
    [ "$status" -ne 0 ]
    [ "$(count LOOKUP)" -ge 1 ]
}
