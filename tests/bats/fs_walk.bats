#!/usr/bin/env bats
# cellfs: the FUSE requests that walking a whole table costs (ls -l, find,
# rsync -a out of it and into a new table), per row, counted from the
# daemon's log (-d) as fs_roundtrips.bats counts them (BENCHMARKS.md,
# "Walking a 100,000-row table"). A count going up fails; so does a walk
# that shows or copies anything else than the table holds.

load helpers/mount
load helpers/requests

setup() {
    fs_setup -d
}

teardown() {
    fs_teardown
}

# walk_table N: a table t2 of N rows r00..., each with cf/a, and cf/b
# written after it in every third row.
walk_table() {
    mkdir "$MNT/default/t2"
    local i
    for i in $(seq -w 1 "$1"); do
        mkdir -p "$MNT/default/t2/r$i/cf"
        echo a > "$MNT/default/t2/r$i/cf/a"
    done
    sleep 0.01
    for i in $(seq -w 1 3 "$1"); do echo b > "$MNT/default/t2/r$i/cf/b"; done
}

@test "ls -l of a table asks nothing per row, and shows each row's newest cell's time" {
    walk_table 30
    mark
    out=$(ls -l --time-style=+%s.%N "$MNT/default/t2")
    r=$(requests)
    echo "$r"
    [ "$(count LOOKUP)" -le 2 ]
    [ "$(count GETATTR)" -le 2 ]
    for i in 01 02 04 30; do
        newest=$(stat -c %.3Y "$MNT/default/t2/r$i/cf/a")
        [ -e "$MNT/default/t2/r$i/cf/b" ] && newest=$(stat -c %.3Y "$MNT/default/t2/r$i/cf/b")
        shown=$(echo "$out" | awk -v r="r$i" '$NF == r { print substr($(NF-1), 1, 14) }')
        echo "r$i: $shown $newest"
        [ "$shown" = "$newest" ]
    done
}

# walk_counts CMD...: the requests CMD sends, per row of walk_table's t2
# (30 rows), "NAME=N" with N rounded up to a tenth.
walk_counts() {
    mark
    "$@" > /dev/null
    sleep 0.3
    tail -n +"$((MARK + 1))" "$FS_TMP/cellfs.log" |
        sed -n 's/.*opcode: \([A-Z_?]*\) .*/\1/p' | sort | uniq -c |
        awk '{ printf "%s=%.1f ", $2, $1 / 30 }'
}

# per OP MAX: fails when walk_counts's last output has more than MAX of OP per row.
per() {
    local n
    n=$(echo "$W" | tr ' ' '\n' | sed -n "s/^$1=//p")
    echo "$1: ${n:-0} per row (at most $2)"
    awk -v n="${n:-0}" -v m="$2" 'BEGIN { exit !(n <= m) }'
}

@test "find and rsync -a of a table: the requests per row do not grow" {
    walk_table 30
    W=$(walk_counts find "$MNT/default/t2" -type f)
    echo "find: $W"
    per OPENDIR 2.1; per RELEASEDIR 2.1; per READDIRPLUS 2.1; per READDIR 2.1
    per LOOKUP 0; per GETATTR 0.1
    mkdir "$FS_TMP/out"
    W=$(walk_counts rsync -a "$MNT/default/t2/" "$FS_TMP/out/")
    echo "rsync out: $W"
    per OPENDIR 2.1; per READDIRPLUS 0; per READDIR 0; per GETATTR 2.0
    per OPEN 1.4; per READ 1.4; per LOOKUP 0
    mkdir "$MNT/default/t3"
    W=$(walk_counts rsync -a "$FS_TMP/out/" "$MNT/default/t3/")
    echo "rsync in: $W"
    per LOOKUP 9.4; per GETATTR 3.4; per SETATTR 4.7; per MKDIR 2.0; per CREATE 1.4
    per RENAME 1.4
    diff -r "$FS_TMP/out" "$MNT/default/t3"
}

@test "a row's and a family's times follow each write, however often they were asked before" {
    R="$MNT/default/t/r"
    mkdir -p "$MNT/default/t" "$R/cf"
    echo a > "$R/cf/a"
    stat "$R" > /dev/null; stat "$R/cf" > /dev/null   # asked before the write
    sleep 0.05
    echo b > "$R/cf/b"
    want=$(stat -c %.3Y "$R/cf/b")
    echo "row $(stat -c %.3Y "$R"), family $(stat -c %.3Y "$R/cf"), b $want"
    [ "$(stat -c %.3Y "$R")" = "$want" ]
    [ "$(stat -c %.3Y "$R/cf")" = "$want" ]
    rm "$R/cf/a" "$R/cf/b"
    ls -la "$R" "$R/cf" || true
    [ -z "$(ls "$R/cf" 2>/dev/null)" ]
}

@test "a row's listing the kernel keeps shows a family a .schema write adds, and its cells' removal" {
    fs_unmount "$MNT"
    "$FILL" "$STORE" default:w 3       # rows with cells, not made by mkdir
    fs_mount "$STORE" "$MNT" -d
    R="$MNT/default/w/r000000001"
    [ "$(ls "$R")" = cf ]
    mark
    [ "$(ls "$R")" = cf ]              # kept: no READDIR(PLUS) the second time
    r=$(requests)
    echo "$r"
    [ "$(count READDIRPLUS)" -eq 0 ]
    [ "$(count READDIR)" -eq 0 ]
    printf "{NAME => 'cf2'}\n" > "$MNT/default/w/.schema"
    [ "$(ls "$R" | tr '\n' ' ')" = "cf cf2 " ]
    [ "$(ls "$R" | tr '\n' ' ')" = "cf cf2 " ]
    echo v > "$R/cf2/x"
    [ "$(ls "$R/cf2")" = x ]
    rm "$R/cf/q" "$R/cf2/x"          # the row stays, empty, as a directory does
    [ "$(ls "$R" | tr '\n' ' ')" = "cf cf2 " ]
    [ -z "$(ls "$R/cf")" ] && [ -z "$(ls "$R/cf2")" ]
}

@test "a young row's listing is kept, and read again once it stops being young" {
    fs_unmount "$MNT"
    "$FILL" "$STORE" default:w 1
    fs_mount "$STORE" "$MNT" -d
    printf "{NAME => 'cf2'}\n" > "$MNT/default/w/.schema"
    N="$MNT/default/w/n"
    mkdir -p "$N/cf"                   # young: lists only the families made in it
    [ "$(ls "$N")" = cf ]
    mark
    [ "$(ls "$N")" = cf ]              # kept: no READDIR(PLUS) the second time (was read again)
    r=$(requests)
    echo "$r"
    [ "$(count READDIRPLUS)" -eq 0 ]
    [ "$(count READDIR)" -eq 0 ]
    mkdir "$N/cf2"
    [ "$(ls "$N" | tr '\n' ' ')" = "cf cf2 " ]
    rmdir "$N/cf2"
    [ "$(ls "$N")" = cf ]
    echo v > "$N/cf/x"
    [ "$(ls "$N")" = cf ]
    # 4,096 rows made after it: it is young no more and lists every family
    for i in $(seq 1 4096); do echo "$MNT/default/w/m$i"; done | xargs mkdir
    [ "$(ls "$N" | tr '\n' ' ')" = "cf cf2 " ]
}
