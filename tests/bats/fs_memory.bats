#!/usr/bin/env bats
# cellfs: the daemon's node table stays near -o max_nodes whatever the walk
# (BENCHMARKS.md, "The daemon's memory (fsmem)"): past the cap the daemon
# asks the kernel to forget the least recently used names (evict.c), and
# the names come back by LOOKUP with the same answers. Walks of a table of
# 2,000 rows (6,000 names) with a cap of 200, read from df -i's used
# inodes (the nodes held). FSMEM_CAP=0 runs the same tests uncapped: the
# node counts then fail.

load helpers/mount

ROWS=2000
CAP=${FSMEM_CAP:-200}

setup() {
    fs_setup_dirs
    [ -x "$FILL" ]
    "$FILL" "$STORE" big "$ROWS" > /dev/null
    fs_mount "$STORE" "$MNT" -o max_nodes="$CAP"
    T="$MNT/default/big"
}

teardown() {
    fs_teardown
}

# nodes: the nodes the daemon holds (df -i's used inodes).
nodes() {
    stat -f -c '%c %d' "$MNT" | awk '{ print $1 - $2 }'
}

# settled_nodes: the count once the kernel's FORGETs are in (it stops
# falling, or 3 s).
settled_nodes() {
    local n last=-1 i
    for i in $(seq 1 30); do
        n=$(nodes)
        [ "$n" -le "$CAP" ] && [ "$n" = "$last" ] && break
        last=$n
        sleep 0.1
    done
    echo "$n"
}

# near_cap WHAT: fails when the settled count is above the cap by more
# than an eighth.
near_cap() {
    local n
    n=$(settled_nodes)
    echo "after $1: $n nodes held (cap $CAP)"
    [ "$n" -le $((CAP + CAP / 8)) ]
}

# The table's files as find lists them, and rsync's copy, made natively.
expected_files() {
    local i
    for i in $(seq 0 $((ROWS - 1))); do printf '%s/r%09d/cf/q\n' "$1" "$i"; done
    printf '%s/.schema\n' "$1"
}

@test "find, ls -lR and rsync -a out of 2,000 rows, three times: exact each time, nodes near the cap" {
    expected_files "$T" | sort > "$FS_TMP/want"
    first_ls=
    for round in 1 2 3; do
        find "$T" -type f | sort > "$FS_TMP/got"
        cmp "$FS_TMP/want" "$FS_TMP/got"
        near_cap "find, round $round"
        ls -lR --time-style=+%s "$T" > "$FS_TMP/ls"
        [ "$(grep -c ' q$' "$FS_TMP/ls")" -eq "$ROWS" ]
        [ -z "$first_ls" ] && first_ls=$(md5sum < "$FS_TMP/ls")
        [ "$(md5sum < "$FS_TMP/ls")" = "$first_ls" ]
        near_cap "ls -lR, round $round"
        rm -rf "$FS_TMP/out"
        mkdir "$FS_TMP/out"
        rsync -a "$T/" "$FS_TMP/out/"
        [ "$(find "$FS_TMP/out" -type f -name q | wc -l)" -eq "$ROWS" ]
        [ "$(cat "$FS_TMP"/out/r*/cf/q | tr -d '\n' | tr -d v | wc -c)" -eq 0 ]
        [ "$(cat "$FS_TMP"/out/r*/cf/q | tr -d '\n' | wc -c)" -eq "$ROWS" ]
        near_cap "rsync -a out, round $round"
    done
}

@test "rsync -a into a new table of the mount and back: exact, nodes near the cap" {
    mkdir "$FS_TMP/out" "$FS_TMP/back"
    rsync -a "$T/" "$FS_TMP/out/"
    mkdir "$MNT/default/copy"
    rsync -a "$FS_TMP/out/" "$MNT/default/copy/"
    near_cap "rsync -a in"
    rsync -a "$MNT/default/copy/" "$FS_TMP/back/"
    diff -r "$FS_TMP/out" "$FS_TMP/back"
    [ "$(find "$FS_TMP/back" -type f -name q | wc -l)" -eq "$ROWS" ]
    # Every cell's time came back (a second rsync finds no file to copy).
    [ -z "$(rsync -ani "$FS_TMP/out/" "$MNT/default/copy/" | grep '^>f')" ]
    near_cap "rsync -a back"
}

@test "an open file keeps reading and writing while the names around it are evicted" {
    f="$T/r000000007/cf/q"
    exec 7<>"$f"
    find "$T" -type f > /dev/null
    ls -lR "$T" > /dev/null
    near_cap "find and ls -lR with the file open"
    [ "$(head -c 1 <&7)" = v ]
    printf 'new' >&7          # at offset 1, after the read
    exec 7>&-
    [ "$(cat "$f")" = vnew ]
    find "$T" -type f > /dev/null
    [ "$(cat "$f")" = vnew ]
    # A name looked up before the walk and opened after it (found again).
    g="$T/r000000009/cf/q"
    [ -f "$g" ]
    find "$T" -type f > /dev/null
    echo again > "$g"
    [ "$(cat "$g")" = again ]
    near_cap "the writes"
}

@test "a cwd inside an evicted directory keeps working" {
    d="$T/r000000011/cf"
    (
        cd "$d"
        find "$T" -type f > /dev/null
        ls -lR "$T" > /dev/null
        near_cap "find and ls -lR from inside a row" >&2
        [ "$(cat q)" = v ]
        echo w > q2
        [ "$(cat q2)" = w ]
        [ "$(ls | tr '\n' ' ')" = "q q2 " ]
        [ "$(stat -c %s q2)" -eq 2 ]
    )
    [ "$(cat "$d/q2")" = w ]
    [ "$(ls "$T/r000000011/cf" | tr '\n' ' ')" = "q q2 " ]
    near_cap "the cwd's writes"
}
