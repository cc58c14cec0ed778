#!/usr/bin/env bats
# cellfs: many processes writing different cells and the same cell at once
# lose nothing and tear nothing.

load helpers/mount

setup() {
    fs_setup
    T="$MNT/default/t"
    mkdir "$T"
}

teardown() {
    fs_teardown
}

@test "8 concurrent writer processes x 1000 cells are all read back" {
    pids=""
    for w in $(seq 1 8); do
        (
            mkdir -p "$T/w$w/cf"
            for i in $(seq 1 1000); do
                echo "w$w-$i" > "$T/w$w/cf/c$i" || exit 1
            done
        ) &
        pids="$pids $!"
    done
    for p in $pids; do wait "$p"; done
    n=$(find "$T" -type f ! -name .schema | wc -l)
    [ "$n" -eq 8000 ]
    for w in $(seq 1 8); do
        for i in 1 17 500 999 1000; do
            [ "$(cat "$T/w$w/cf/c$i")" = "w$w-$i" ]
        done
        [ "$(cat "$T"/w$w/cf/* | sort -u | wc -l)" -eq 1000 ]
    done
}

@test "concurrent whole writes of one cell never tear; appends lose nothing" {
    mkdir -p "$T/r/cf"
    a=$(head -c 200000 /dev/zero | tr '\0' a)
    b=$(head -c 200000 /dev/zero | tr '\0' b)
    printf '%s' "$a" > "$T/r/cf/same"
    for k in $(seq 1 20); do
        printf '%s' "$a" > "$T/r/cf/same" & p1=$!
        printf '%s' "$b" > "$T/r/cf/same" & p2=$!
        v=$(fold -w 1000 < "$T/r/cf/same" | sort -u | cut -c1-3 | tr "\n" " ")
        wait "$p1" "$p2"
        echo "round $k: lines read during the writes: $v"
        [ "$(echo "$v" | wc -w)" -le 1 ]
        final=$(fold -w 1000 < "$T/r/cf/same" | sort -u | cut -c1-3 | tr "\n" " ")
        echo "round $k: final lines: $final, size $(stat -c %s "$T/r/cf/same")"
        [ "$(fold -w 1000 < "$T/r/cf/same" | sort -u | wc -l)" -eq 1 ]
    done
    pids=""
    for w in $(seq 1 8); do
        ( for i in $(seq 1 50); do echo "$w-$i" >> "$T/r/cf/log"; done ) &
        pids="$pids $!"
    done
    for p in $pids; do wait "$p"; done
    echo "appended lines: $(wc -l < "$T/r/cf/log")"
    [ "$(wc -l < "$T/r/cf/log")" -eq 400 ]
    [ "$(sort -u "$T/r/cf/log" | wc -l)" -eq 400 ]
}

@test "rewrites of 5 B to 300 KB never tear a reader, cached, direct or mmap'ed" {
    mkdir -p "$T/r/cf"
    for writers in 1 3; do
        run python3 "$BATS_TEST_DIRNAME/helpers/torn_check.py" "$T/r/cf/x" 4 "$writers"
        echo "$writers writers: $output"
        [ "$status" -eq 0 ]
        # the mmap reader could map the file: its opens used the page cache
        [[ "$output" =~ \(([0-9]+)\ through\ the\ page\ cache\) ]]
        [ "${BASH_REMATCH[1]}" -gt 0 ]
    done
}

@test "a writer waits for a reader that keeps the cell open through the page cache" {
    mkdir -p "$T/r/cf"
    printf 'old value' > "$T/r/cf/q"
    exec 7< "$T/r/cf/q"
    [ "$(cat <&7)" = "old value" ]
    printf 'new' > "$T/r/cf/q"
    # the lease ran out after a second, and that was logged
    grep -q "kept the file open for over 1000 ms" "$FS_TMP/cellfs.log"
    [ "$(cat "$T/r/cf/q")" = "new" ]
    # the reader that stayed now follows the file, as on a disk: whole values
    [ "$(python3 -c 'import os; os.lseek(7, 0, 0); print(os.read(7, 100).decode())')" = "new" ]
    exec 7<&-
    # with no reader left, writers do not wait and nothing more is logged
    printf 'newer' > "$T/r/cf/q"
    [ "$(cat "$T/r/cf/q")" = "newer" ]
    [ "$(grep -c "kept the file open" "$FS_TMP/cellfs.log")" -eq 1 ]
}
