#!/usr/bin/env bats
# cellfs: a row's and a family's mtime is the newest timestamp of the
# cells below it (cellfs(1), FILES), kept by the mount between changes
# (fusefs/dirtime.c) rather than found by reading the row again: each
# test asks first (so that the mount keeps an answer), changes, and checks
# that the answer followed the change. The last test checks that a create,
# and a removal of a cell older than the newest, beside big cells read
# none of their bytes (the daemon's read bytes, /proc/PID/io).

load helpers/mount

setup() {
    fs_setup
    T="$MNT/default/t"
    mkdir "$T"
    printf "{NAME => 'cf'}\n{NAME => 'g'}\n" > "$T/.schema"
    R="$T/r"
    mkdir -p "$R/cf" "$R/g"
}

teardown() {
    fs_teardown
}

mt() { stat -c %Y "$1"; }

# times DIR... : the mtimes of each, space-separated
times() {
    local d out=""
    for d in "$@"; do out="$out$(mt "$d") "; done
    echo "$out"
}

@test "a family's and a row's mtime follow writes, touch -d newer and older, and rm of the newest cell" {
    echo a > "$R/cf/a"
    touch -d @1000000000 "$R/cf/a"
    [ "$(times "$R/cf" "$R")" = "1000000000 1000000000 " ]
    echo b > "$R/g/b"
    touch -d @1100000000 "$R/g/b"
    [ "$(times "$R/cf" "$R/g" "$R")" = "1000000000 1100000000 1100000000 " ]
    touch -d @1200000000 "$R/cf/a"
    [ "$(times "$R/cf" "$R/g" "$R")" = "1200000000 1100000000 1200000000 " ]
    touch -d @900000000 "$R/cf/a"
    [ "$(times "$R/cf" "$R/g" "$R")" = "900000000 1100000000 1100000000 " ]
    now=$(date +%s)
    echo c > "$R/cf/c"
    [ "$(mt "$R/cf")" -ge "$now" ]
    [ "$(mt "$R")" -ge "$now" ]
    [ "$(mt "$R/g")" = 1100000000 ]
    rm "$R/cf/c"
    [ "$(times "$R/cf" "$R/g" "$R")" = "900000000 1100000000 1100000000 " ]
    # a removal of a cell older than the newest leaves the times
    echo d > "$R/cf/d"
    touch -d @800000000 "$R/cf/d"
    [ "$(times "$R/cf" "$R/g" "$R")" = "900000000 1100000000 1100000000 " ]
    rm "$R/cf/d"
    [ "$(times "$R/cf" "$R/g" "$R")" = "900000000 1100000000 1100000000 " ]
    [ ! -e "$R/cf/d" ]
    rm "$R/g/b"
    [ "$(times "$R/cf" "$R/g" "$R")" = "900000000 0 900000000 " ]
}

@test "a family's and a row's mtime follow q@ts writes and their removal" {
    echo a > "$R/cf/a"
    touch -d @1000000000 "$R/cf/a"
    [ "$(times "$R/cf" "$R")" = "1000000000 1000000000 " ]
    echo v > "$R/cf/a@1300000000000"
    [ "$(times "$R/cf" "$R/g" "$R")" = "1300000000 0 1300000000 " ]
    echo w > "$R/g/b@1250000000000"
    [ "$(times "$R/cf" "$R/g" "$R")" = "1300000000 1250000000 1300000000 " ]
    echo u > "$R/cf/a@1100000000000"
    [ "$(times "$R/cf" "$R/g" "$R")" = "1300000000 1250000000 1300000000 " ]
    rm "$R/cf/a@1100000000000"
    [ "$(times "$R/cf" "$R/g" "$R")" = "1300000000 1250000000 1300000000 " ]
    rm "$R/cf/a@1300000000000"
    [ "$(times "$R/cf" "$R/g" "$R")" = "1000000000 1250000000 1250000000 " ]
}

@test "a family's and a row's mtime follow a rename across families and rows" {
    echo a > "$R/cf/a"
    touch -d @1000000000 "$R/cf/a"
    echo b > "$R/g/b"
    touch -d @1100000000 "$R/g/b"
    mkdir -p "$T/s/cf"
    echo s > "$T/s/cf/s"
    touch -d @800000000 "$T/s/cf/s"
    [ "$(times "$R/cf" "$R/g" "$R" "$T/s")" = "1000000000 1100000000 1100000000 800000000 " ]
    mv "$R/g/b" "$R/cf/b"
    [ "$(times "$R/cf" "$R/g" "$R")" = "1100000000 0 1100000000 " ]
    mv "$R/cf/b" "$T/s/cf/b"
    [ "$(times "$R/cf" "$R" "$T/s/cf" "$T/s")" = "1000000000 1000000000 1100000000 1100000000 " ]
    mv "$T/s" "$T/u"
    [ "$(times "$T/u/cf" "$T/u")" = "1100000000 1100000000 " ]
}

@test "a family's and a row's mtime follow rsync's restore: a temporary file renamed over the cell" {
    echo a > "$R/cf/a"
    touch -d @1000000000 "$R/cf/a"
    [ "$(times "$R/cf" "$R")" = "1000000000 1000000000 " ]
    echo o > "$R/cf/.a.Xq1"
    touch -d @900000000 "$R/cf/.a.Xq1"
    mv "$R/cf/.a.Xq1" "$R/cf/a"
    [ "$(times "$R/cf" "$R")" = "900000000 900000000 " ]
    # the empty qualifier's name: the temporary name is a scratch file
    echo e > "$R/cf/.%.Xq2"
    touch -d @1400000000 "$R/cf/.%.Xq2"
    mv "$R/cf/.%.Xq2" "$R/cf/%"
    [ "$(times "$R/cf" "$R/g" "$R")" = "1400000000 0 1400000000 " ]
    echo f > "$R/cf/.%.Xq3"
    touch -d @950000000 "$R/cf/.%.Xq3"
    mv "$R/cf/.%.Xq3" "$R/cf/%"
    [ "$(times "$R/cf" "$R")" = "950000000 950000000 " ]
    [ "$(cat "$R/cf/%")" = f ]
}

@test "a row's mtime follows a .schema edit that deletes a family" {
    echo a > "$R/cf/a"
    touch -d @1000000000 "$R/cf/a"
    echo b > "$R/g/b"
    touch -d @900000000 "$R/g/b"
    [ "$(times "$R/cf" "$R/g" "$R")" = "1000000000 900000000 1000000000 " ]
    printf "{NAME => 'cf', METHOD => 'delete'}\n" > "$T/.schema"
    [ "$(mt "$R")" = 900000000 ]
    [ ! -e "$R/cf" ]
    printf "{NAME => 'cf'}\n" > "$T/.schema"
    [ "$(times "$R/cf" "$R/g" "$R")" = "0 900000000 900000000 " ]
}

# bytes the daemon $FS_PID has read (read(2), pread(2)) so far
rchar() { awk '$1 == "rchar:" { print $2 }' "/proc/$FS_PID/io"; }

@test "a create or a removal beside big cells, and the stats of its family and row after it, read none of their bytes" {
    for i in 1 2 3; do head -c $((4 << 20)) /dev/urandom > "$R/cf/big$i"; done
    fs_unmount "$MNT"
    fs_mount "$STORE" "$MNT"
    stat "$R/cf" "$R" > /dev/null
    before=$(rchar)
    now=$(date +%s)
    for i in 1 2 3 4 5; do
        echo x > "$R/cf/n$i"
        stat "$R/cf" "$R" > /dev/null
    done
    # and the removals of cells older than the newest (n5), the same
    for i in 1 2 3 4; do
        rm "$R/cf/n$i"
        stat "$R/cf" "$R" > /dev/null
    done
    after=$(rchar)
    echo "read $(( after - before )) bytes"
    [ $(( after - before )) -lt $((1 << 20)) ]
    [ "$(mt "$R/cf")" = "$(mt "$R/cf/n5")" ]
    [ "$(mt "$R")" -ge "$now" ]
}
