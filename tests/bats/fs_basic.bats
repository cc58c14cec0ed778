#!/usr/bin/env bats
# cellfs: everyday file tools on a mounted store (SPEC section 3).

load helpers/mount

setup() {
    fs_setup
    T="$MNT/default/t"
    mkdir "$T"
    mkdir -p "$T/row1/cf"
}

teardown() {
    fs_teardown
}

@test "namespaces and a new table are listed; .schema shows the default family" {
    run ls "$MNT"
    [ "$status" -eq 0 ]
    [[ "$output" == *default* ]]
    [[ "$output" == *hbase* ]]
    run ls "$MNT/default"
    [ "$output" = "t" ]
    run cat "$T/.schema"
    [[ "$output" == "{NAME => 'cf', "* ]]
    [ "$(wc -l < "$T/.schema")" -eq 1 ]
}

@test "echo > creates a cell, cat reads it, stat shows size and timestamp" {
    before=$(date +%s)
    echo hello > "$T/row1/cf/q"
    [ "$(cat "$T/row1/cf/q")" = "hello" ]
    [ "$(stat -c %s "$T/row1/cf/q")" -eq 6 ]
    mtime=$(stat -c %Y "$T/row1/cf/q")
    [ "$mtime" -ge $((before - 1)) ]
    [ "$mtime" -le $(($(date +%s) + 1)) ]
    run ls "$T"
    [ "$output" = "row1" ]
    run ls "$T/row1"
    [ "$output" = "cf" ]
}

@test "printf >> appends; dd writes at an offset; truncate shortens and extends" {
    printf 'abc' > "$T/row1/cf/q"
    printf 'def' >> "$T/row1/cf/q"
    [ "$(cat "$T/row1/cf/q")" = "abcdef" ]
    printf 'XY' | dd of="$T/row1/cf/q" bs=1 seek=2 conv=notrunc status=none
    [ "$(cat "$T/row1/cf/q")" = "abXYef" ]
    truncate -s 4 "$T/row1/cf/q"
    [ "$(cat "$T/row1/cf/q")" = "abXY" ]
    truncate -s 6 "$T/row1/cf/q"
    [ "$(stat -c %s "$T/row1/cf/q")" -eq 6 ]
    [ "$(od -An -tx1 "$T/row1/cf/q" | tr -d ' \n')" = "6162585900""00" ]
    dd if="$T/row1/cf/q" bs=1 skip=2 count=2 status=none > "$FS_TMP/part"
    [ "$(cat "$FS_TMP/part")" = "XY" ]
}

@test "sed -i and an editor-style temp file renamed over the target" {
    printf 'one\ntwo\n' > "$T/row1/cf/q"
    sed -i 's/two/2/' "$T/row1/cf/q"
    [ "$(cat "$T/row1/cf/q")" = "$(printf 'one\n2')" ]
    printf 'new\n' > "$T/row1/cf/.q.swp"
    mv "$T/row1/cf/.q.swp" "$T/row1/cf/q"
    [ "$(cat "$T/row1/cf/q")" = "new" ]
    run ls -A "$T/row1/cf"
    [ "$output" = "q" ]
}

@test "mv within a row keeps the value; across rows it moves (fs_rowmv.bats), across tables EXDEV" {
    echo v1 > "$T/row1/cf/a"
    touch -d '2021-05-06 07:08:09' "$T/row1/cf/a"
    mv "$T/row1/cf/a" "$T/row1/cf/b"
    [ "$(cat "$T/row1/cf/b")" = "v1" ]
    [ ! -e "$T/row1/cf/a" ]
    [ "$(stat -c %Y "$T/row1/cf/b")" -eq "$(date -d '2021-05-06 07:08:09' +%s)" ]
    mkdir -p "$T/row2/cf"
    mv "$T/row1/cf/b" "$T/row2/cf/c"
    [ "$(cat "$T/row2/cf/c")" = "v1" ]
    [ ! -e "$T/row1/cf/b" ]
    [ "$(stat -c %Y "$T/row2/cf/c")" -eq "$(date -d '2021-05-06 07:08:09' +%s)" ]
    python3 -c "import os,sys; os.rename(sys.argv[1], sys.argv[2])" "$T/row2/cf/c" "$T/row1/cf/c"
    [ "$(cat "$T/row1/cf/c")" = "v1" ]
    mkdir -p "$MNT/default/u/row1/cf"
    run python3 -c "import os,sys; os.rename(sys.argv[1], sys.argv[2])" "$T/row1/cf/c" "$MNT/default/u/row1/cf/c"
    [ "$status" -ne 0 ]
    [[ "$output" == *"Invalid cross-device link"* ]]
}

@test "rm deletes a cell; rm -r deletes a row; rmdir of a table drops it" {
    echo a > "$T/row1/cf/a"
    echo b > "$T/row1/cf/b"
    rm "$T/row1/cf/a"
    [ ! -e "$T/row1/cf/a" ]
    [ "$(ls "$T/row1/cf")" = "b" ]
    mkdir -p "$T/row2/cf"
    echo c > "$T/row2/cf/c"
    rm -r "$T/row1"
    [ ! -e "$T/row1" ]
    [ "$(ls "$T")" = "row2" ]
    run rmdir "$T"
    [ "$status" -ne 0 ]
    rm -r "$T/row2"
    rmdir "$T"
    [ ! -e "$T" ]
    [ -z "$(ls "$MNT/default")" ]
}

@test "rm f; echo x > f; cat f prints x" {
    for i in 1 2 3 4 5 6 7 8 9 10; do
        echo old > "$T/row1/cf/f"
        rm "$T/row1/cf/f"
        echo x > "$T/row1/cf/f"
        [ "$(cat "$T/row1/cf/f")" = "x" ]
    done
}

@test "mkdir -p row/family before the first write; unknown family is ENOENT" {
    mkdir -p "$T/newrow/cf"
    [ -d "$T/newrow/cf" ]
    run ls "$T"
    [[ "$output" == *newrow* ]]
    echo v > "$T/newrow/cf/q"
    [ "$(cat "$T/newrow/cf/q")" = "v" ]
    run mkdir "$T/newrow/nofamily"
    [ "$status" -ne 0 ]
    run bash -c "echo v > '$T/newrow/cf/../nofamily/q'"
    [ "$status" -ne 0 ]
    [[ "$output" == *"No such file or directory"* ]]
    grep -q "no family 'nofamily'" "$FS_TMP/cellfs.log"
}

@test "touch -d re-stamps the cell; stat and find see it" {
    echo v > "$T/row1/cf/q"
    touch -d '2001-02-03 04:05:06.789' "$T/row1/cf/q"
    [ "$(stat -c %y "$T/row1/cf/q")" = "2001-02-03 04:05:06.789000000 +0000" ] ||
        [ "$(stat -c %Y "$T/row1/cf/q")" -eq "$(date -d '2001-02-03 04:05:06' +%s)" ]
    [ "$(cat "$T/row1/cf/q")" = "v" ]
    touch "$T/row1/cf/new"
    [ -f "$T/row1/cf/new" ]
    [ "$(stat -c %s "$T/row1/cf/new")" -eq 0 ]
    run find "$T" -type f -name q
    [ "$output" = "$T/row1/cf/q" ]
    run find "$T" -type f -newermt '2010-01-01' -not -name .schema
    [ "$output" = "$T/row1/cf/new" ]
}

@test "du and df see the data; chmod and chown are accepted" {
    head -c 100000 /dev/urandom > "$FS_TMP/blob"
    cp "$FS_TMP/blob" "$T/row1/cf/blob"
    cmp "$FS_TMP/blob" "$T/row1/cf/blob"
    kb=$(du -sk "$T" | cut -f1)
    [ "$kb" -ge 97 ]
    df "$MNT" > /dev/null
    chmod 600 "$T/row1/cf/blob"
    chown 0:0 "$T/row1/cf/blob"
    cmp "$FS_TMP/blob" "$T/row1/cf/blob"
}

@test "names: bytes that cannot be shown are %XX-escaped, and round-trip" {
    echo a > "$T/row1/cf/a%2Fb"
    echo b > "$T/row1/cf/q%405"
    echo c > "$T/row1/cf/caf$(printf '\xc3\xa9')"
    run ls "$T/row1/cf"
    [[ "$output" == *"a%2Fb"* ]]
    [[ "$output" == *"q%405"* ]]
    run bash -c "echo x > '$T/row1/cf/%41'"
    [ "$status" -ne 0 ]
    run bash -c "echo x > '$T/row1/cf/bad%zz'"
    [ "$status" -ne 0 ]
    # a long key gets a hashed name and can be read back by it
    long=$(printf 'k%.0s' $(seq 1 300))
    run bash -c "echo x > '$T/row1/cf/$long'"
    [ "$status" -ne 0 ]
}

@test "q@<ts> reads and writes exact versions; table@<ts> is read-only" {
    printf 'v0' > "$T/row1/cf/q@1000"
    printf 'v1' > "$T/row1/cf/q@2000"
    [ "$(cat "$T/row1/cf/q@1000")" = "v0" ]
    [ "$(cat "$T/row1/cf/q")" = "v1" ]
    [ "$(stat -c %Y "$T/row1/cf/q")" -eq 2 ]
    [ "$(cat "$MNT/default/t@1500/row1/cf/q")" = "v0" ]
    run bash -c "echo x > '$MNT/default/t@1500/row1/cf/q'"
    [ "$status" -ne 0 ]
    [[ "$output" == *"Read-only file system"* ]]
    rm "$T/row1/cf/q@2000"
    [ "$(cat "$T/row1/cf/q")" = "v0" ]
    run ls "$T/row1/cf"
    [ "$output" = "q" ]
}

@test ".schema: write alters the table; a malformed line is EINVAL and logged" {
    echo v > "$T/row1/cf/q"
    printf "{NAME => 'cf', VERSIONS => '3'}\n{NAME => 'g'}\n" > "$T/.schema"
    run cat "$T/.schema"
    [[ "$output" == *"NAME => 'g'"* ]]
    [[ "${lines[0]}" == *"VERSIONS => '3'"* ]]
    mkdir "$T/row1/g"         # row1 was made with mkdir: it lists the families made in it
    run ls "$T/row1"
    [ "$output" = "$(printf 'cf\ng')" ]
    run bash -c "echo 'this is not a family' > '$T/.schema'"
    [ "$status" -ne 0 ]
    grep -q "this is not a family" "$FS_TMP/cellfs.log"
    [[ "$(cat "$T/.schema")" == *"NAME => 'g'"* ]]
    sed -i '/NAME => .g./d' "$T/.schema"       # leaving a family out keeps it
    [ "$(wc -l < "$T/.schema")" -eq 2 ]
    echo "{NAME => 'g', METHOD => 'delete'}" > "$T/.schema"
    [ "$(wc -l < "$T/.schema")" -eq 1 ]
}

@test "a value above the size limit is EFBIG" {
    fs_unmount "$MNT"
    fs_mount "$STORE" "$MNT" -o max_value=1000
    head -c 1000 /dev/zero > "$T/row1/cf/ok" 2>/dev/null || true
    mkdir -p "$T/row1/cf"
    head -c 1000 /dev/zero > "$T/row1/cf/ok"
    run bash -c "head -c 1001 /dev/zero > '$T/row1/cf/big'"
    [ "$status" -ne 0 ]
    [[ "$output" == *"File too large"* ]]
    grep -q "EFBIG" "$FS_TMP/cellfs.log"
}

@test "size options take K, M and G: -o max_value=1K is 1024 bytes" {
    fs_unmount "$MNT"
    fs_mount "$STORE" "$MNT" -o max_value=1K
    mkdir -p "$T/row1/cf"
    head -c 1024 /dev/zero > "$T/row1/cf/ok"
    [ "$(stat -c %s "$T/row1/cf/ok")" -eq 1024 ]
    run bash -c "head -c 1025 /dev/zero > '$T/row1/cf/big'"
    [ "$status" -ne 0 ]
    [[ "$output" == *"File too large"* ]]
}

@test "a malformed or out-of-range numeric option is refused, and nothing is mounted" {
    fs_unmount "$MNT"
    local opt
    for opt in max_value=64X max_value=-1 max_value=99999999999999999999999 cache_size=abc \
               write_buffer=1.5M max_nodes=-5 max_nodes=10K timeout=-1 timeout=abc timeout=1s; do
        run "$CELLFS" "$STORE" "$MNT" -o "$opt"
        echo "-o $opt: status $status, $output"
        [ "$status" -eq 2 ]
        [[ "$output" == *"-o $opt: expected"* ]]
        ! mountpoint -q "$MNT"
    done
    # the store is untouched: it mounts with its rows
    fs_mount "$STORE" "$MNT"
    [ -d "$T" ]
}

@test "-o versions lists every retained version as q@<ts>" {
    printf "{NAME => 'cf', VERSIONS => '5'}\n" > "$T/.schema"
    printf 'a' > "$T/row1/cf/q@100"
    printf 'b' > "$T/row1/cf/q@200"
    fs_unmount "$MNT"
    fs_mount "$STORE" "$MNT" -o versions
    # every version as q@<ts>, newest first, then q (the newest again)
    run ls -f "$T/row1/cf"
    [ "$output" = "$(printf '.\n..\nq@200\nq@100\nq')" ]
    [ "$(stat -c %Y "$T/row1/cf/q@200")" -eq 0 ]
    cmp "$T/row1/cf/q@200" "$T/row1/cf/q"
    [ "$(cat "$T/row1/cf/q@100")" = "a" ]
    [ "$(cat "$T/row1/cf/q@200")" = "b" ]
    [ "$(stat -c %Y "$T/row1/cf/q@100")" -eq 0 ]
}

@test "-o versions: rm -rf of a row removes every version" {
    printf "{NAME => 'cf', VERSIONS => '5'}\n{NAME => 'g'}\n" > "$T/.schema"
    for q in a b c; do
        for ts in 100 200 300; do printf '%s' "$q$ts" > "$T/row1/cf/$q@$ts"; done
    done
    echo newest > "$T/row1/cf/b"
    mkdir "$T/row1/g"
    printf 'g' > "$T/row1/g/x@5"
    mkdir -p "$T/row2/cf"
    echo keep > "$T/row2/cf/a"
    fs_unmount "$MNT"
    fs_mount "$STORE" "$MNT" -o versions
    # a, c: three versions each, and the name of the newest; b: four and b
    [ "$(ls "$T/row1/cf" | wc -l)" -eq 13 ]
    rm -rf "$T/row1"
    [ ! -e "$T/row1" ]
    [ "$(ls "$T")" = "row2" ]
    run cat "$T/row1/cf/a@100"
    [ "$status" -ne 0 ]
    [ "$(cat "$T/row2/cf/a")" = "keep" ]
    # removing only the versions leaves nothing behind either
    for ts in 1 2 3; do printf 'v' > "$T/row2/cf/q@$ts"; done
    rm "$T/row2/cf"/q@*
    [ ! -e "$T/row2/cf/q" ]
    [ "$(ls "$T/row2/cf" | grep -c '^q')" -eq 0 ]
    [ "$(ls "$T/row2/cf" | wc -l)" -eq 2 ]
    [ "$(cat "$T/row2/cf/a")" = "keep" ]
}

@test "mv q@T q makes the version at T the newest value; mv q q@T is EINVAL" {
    # q@2000 must stay among the retained versions to the end: a surplus
    # version shows only until a flush, and on Bigtable until its garbage
    # collection, which runs when it likes.
    printf "{NAME => 'cf', VERSIONS => '12'}\n" > "$T/.schema"
    printf 'v1' > "$T/row1/cf/q@1000"
    printf 'v2' > "$T/row1/cf/q@2000"
    printf 'v3' > "$T/row1/cf/q"
    before=$(date +%s)
    mv "$T/row1/cf/q@1000" "$T/row1/cf/q"
    [ "$(cat "$T/row1/cf/q")" = "v1" ]
    [ "$(stat -c %Y "$T/row1/cf/q")" -ge "$before" ]
    [ ! -e "$T/row1/cf/q@1000" ]
    [ "$(cat "$T/row1/cf/q@2000")" = "v2" ]
    # the value it replaced is still a version, as after a write
    fs_unmount "$MNT"
    fs_mount "$STORE" "$MNT" -o versions
    # q, q@2000, the restored version under its new time, and v3
    [ "$(ls "$T/row1/cf" | wc -l)" -eq 4 ]
    [ "$(ls "$T/row1/cf" | grep -c '^q@')" -eq 3 ]
    newest=$(ls "$T/row1/cf" | grep '^q@' | sort -t@ -k2 -n | tail -1)
    cmp "$T/row1/cf/$newest" "$T/row1/cf/q"
    [ "$(cat "$T/row1/cf/$(ls "$T/row1/cf" | grep -v -e '^q$' -e '^q@2000$' -e "^$newest\$")")" = "v3" ]
    # later writes win over the restored value
    printf 'v4' > "$T/row1/cf/q"
    [ "$(cat "$T/row1/cf/q")" = "v4" ]
    # a version written this very millisecond
    for i in 1 2 3 4 5; do
        t=$(date +%s%3N)
        printf 'w%s' "$i" > "$T/row1/cf/q@$t"
        mv "$T/row1/cf/q@$t" "$T/row1/cf/q"
        [ "$(cat "$T/row1/cf/q")" = "w$i" ]
    done
    # a version moves to another time within its column
    mv "$T/row1/cf/q@2000" "$T/row1/cf/q@2500"
    [ "$(cat "$T/row1/cf/q@2500")" = "v2" ]
    [ ! -e "$T/row1/cf/q@2000" ]
    # the column cannot become one of its versions
    run python3 -c "import os,sys; os.rename(sys.argv[1], sys.argv[2])" "$T/row1/cf/q" "$T/row1/cf/q@5"
    [ "$status" -ne 0 ]
    [[ "$output" == *"Invalid argument"* ]]
    grep -q "cannot become one of its own versions" "$FS_TMP/cellfs.log"
    [ "$(cat "$T/row1/cf/q")" = "w5" ]
}

@test "cell contents come from the kernel's page cache and stay right after every write" {
    printf "{NAME => 'cf', VERSIONS => '5'}\n" > "$T/.schema"
    mkdir -p "$T/row1/cf"
    head -c 100000 /dev/urandom > "$FS_TMP/v"
    cp "$FS_TMP/v" "$T/row1/cf/q"
    cmp "$FS_TMP/v" "$T/row1/cf/q"
    # the pages stayed in the kernel after the read, and mmap works
    [ "$(fincore -n -o PAGES "$T/row1/cf/q")" -gt 0 ]
    python3 -c 'import mmap, sys
f = open(sys.argv[1], "rb"); m = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
sys.exit(bytes(m) != open(sys.argv[2], "rb").read())' "$T/row1/cf/q" "$FS_TMP/v"
    # every kind of write is seen by the next read, through the cache
    echo one > "$T/row1/cf/q";            [ "$(cat "$T/row1/cf/q")" = "one" ]
    printf 'two' >> "$T/row1/cf/q";       [ "$(cat "$T/row1/cf/q")" = "$(printf 'one\ntwo')" ]
    printf 'XY' | dd of="$T/row1/cf/q" bs=1 seek=1 conv=notrunc 2>/dev/null
    [ "$(cat "$T/row1/cf/q")" = "$(printf 'oXY\ntwo')" ]
    truncate -s 2 "$T/row1/cf/q";         [ "$(cat "$T/row1/cf/q")" = "oX" ]
    sed -i 's/X/Z/' "$T/row1/cf/q";       [ "$(cat "$T/row1/cf/q")" = "oZ" ]
    printf 'at 5' > "$T/row1/cf/q@5"
    newest=$(stat -c %Y "$T/row1/cf/q")
    printf 'future' > "$T/row1/cf/q@99999999999999"
    [ "$(cat "$T/row1/cf/q")" = "future" ]
    rm "$T/row1/cf/q@99999999999999";     [ "$(cat "$T/row1/cf/q")" = "oZ" ]
    [ "$(stat -c %Y "$T/row1/cf/q")" -eq "$newest" ]
    mv "$T/row1/cf/q@5" "$T/row1/cf/q";   [ "$(cat "$T/row1/cf/q")" = "at 5" ]
    echo other > "$T/row1/cf/p"
    mv "$T/row1/cf/p" "$T/row1/cf/q";     [ "$(cat "$T/row1/cf/q")" = "other" ]
    rm "$T/row1/cf/q"
    run cat "$T/row1/cf/q"
    [ "$status" -ne 0 ]
    echo back > "$T/row1/cf/q";           [ "$(cat "$T/row1/cf/q")" = "back" ]
    [ "$(stat -c %s "$T/row1/cf/q")" -eq 5 ]
}

# attrs_listed DIR / attrs_statted DIR: "name size mtime_ns type" of every
# entry below DIR, as a listing gives them (scandir: the attributes
# READDIRPLUS handed the kernel) and as a stat of each path gives them
# once what the kernel held has timed out (the mount's -o timeout=1: a
# lookup and a getattr of each, no listing in between; without it, the
# kernel would keep the listed attributes).
attrs_listed() {
    python3 - "$1" <<'PY'
import os, sys
def walk(d, rel):
    for e in sorted(os.scandir(d), key=lambda e: e.name):
        s = e.stat(follow_symlinks=False)
        print(os.path.join(rel, e.name), s.st_size, s.st_mtime_ns, "d" if e.is_dir() else "f")
        if e.is_dir():
            walk(e.path, os.path.join(rel, e.name))
walk(sys.argv[1], "")
PY
}
attrs_statted() {   # DIR, with the listing on stdin (its names; no listing here)
    sleep 1.5
    python3 -c '
import os, sys, stat
root = sys.argv[1]
for line in sys.stdin:
    n = line.split(" ")[0]
    s = os.lstat(os.path.join(root, n))
    print(n, s.st_size, s.st_mtime_ns, "d" if stat.S_ISDIR(s.st_mode) else "f")
' "$1"
}

@test "listings hand the kernel the attributes stat gives (READDIRPLUS): ls -l, find and rsync see the truth" {
    printf "{NAME => 'cf', VERSIONS => '3'}\n{NAME => 'g'}\n" > "$T/.schema"
    mkdir -p "$T/row2/g" "$T/empty/g"
    echo a > "$T/row1/cf/q1"
    echo bbb > "$T/row1/cf/q1"
    head -c 100000 /dev/urandom > "$T/row1/cf/big"
    touch -d 2020-01-02 "$T/row1/cf/big"
    printf x > "$T/row2/g/v"
    touch -d 2019-05-05 "$T/row2/g/v"
    printf '' > "$T/row1/cf/zero"
    for opts in "" "-o versions"; do
        fs_unmount "$MNT"
        # shellcheck disable=SC2086
        fs_mount "$STORE" "$MNT" -o timeout=1 $opts
        listed=$(attrs_listed "$T")
        statted=$(attrs_statted "$T" <<<"$listed")
        [ -n "$listed" ]
        [ "$listed" = "$statted" ]
    done
    # the listing above is the one with versions: both versions of q1
    [[ "$listed" == *"row1/cf/q1 4 "* ]]
    [[ "$listed" == *"row1/cf/big 100000 1577923200000000000 f"* ]]
    [[ "$listed" == *"row2/g 4096 1557014400000000000 d"* ]]
    [ "$(grep -c '^row1/cf/q1@' <<<"$listed")" -eq 2 ]
}

@test "links, symbolic links and fifos are refused with EPERM, naming the path in the log" {
    echo v > "$T/row1/cf/q"
    run ln -s q "$T/row1/cf/s"
    [ "$status" -ne 0 ]
    [[ "$output" == *"Operation not permitted"* ]]
    run ln "$T/row1/cf/q" "$T/row1/cf/h"
    [ "$status" -ne 0 ]
    [[ "$output" == *"Operation not permitted"* ]]
    run mkfifo "$T/row1/cf/f"
    [ "$status" -ne 0 ]
    [[ "$output" == *"Operation not permitted"* ]]
    [ "$(ls "$T/row1/cf")" = q ]
    grep -q "symlink /default/t/row1/cf/s: symbolic links are not supported" "$FS_TMP/cellfs.log"
    grep -q "link /default/t/row1/cf/q -> /default/t/row1/cf/h: hard links are not supported" "$FS_TMP/cellfs.log"
    grep -q "mknod /default/t/row1/cf/f: device nodes and fifos are not supported" "$FS_TMP/cellfs.log"
}
