#!/usr/bin/env bats
# cellfs under attack from real tools on odd inputs (issue 8 review): each
# test failed on the driver before its fix, or covers a sequence no other
# test runs.

load helpers/mount

setup() {
    fs_setup
    T="$MNT/default/t"
    mkdir "$T"
    mkdir -p "$T/r/cf"
    C="$T/r/cf"
}

teardown() {
    fs_teardown
}

@test "rsync restores a name of the longest length (234 bytes): its temporary name .NAME.XXXXXX is creatable" {
    long=$(printf 'n%.0s' $(seq 1 234))
    mkdir -p "$FS_TMP/src"
    printf 'long\n' > "$FS_TMP/src/$long"
    printf 'short\n' > "$FS_TMP/src/s"
    rsync -a "$FS_TMP/src/" "$C/"
    cmp "$FS_TMP/src/$long" "$C/$long"
    cmp "$FS_TMP/src/s" "$C/s"
    [ "$(ls -A "$C" | wc -l)" -eq 2 ]
    # the temporary name directly: created, written, listed, renamed away
    tmp=".$long.AbCdEf"
    printf 'v2\n' > "$C/$tmp"
    ls -A "$C" | grep -qxF "$tmp"
    mv "$C/$tmp" "$C/$long"
    [ "$(cat "$C/$long")" = "v2" ]
    [ "$(ls -A "$C" | wc -l)" -eq 2 ]
    # a name above 255 bytes still fails, a long name not starting with a dot too
    run bash -c "printf x > '$C/.$long.AbCdEfGhIjKlMnOpQrStUv'"
    [ "$status" -ne 0 ]
    run bash -c "printf x > '$C/${long}xx'"
    [ "$status" -ne 0 ]
}

@test "a sorted file cut short under a running mount: ls, cat and ls of a row fail with EIO, the log names it, the daemon stays" {
    fs_unmount "$MNT"
    rm -rf "$STORE"
    "$FILL" "$STORE" default:big 20000
    fs_mount "$STORE" "$MNT"
    B="$MNT/default/big"
    [ "$(cat "$B/r000000005/cf/q")" = v ]       # the store is open and read
    sst=$(ls "$STORE"/*.sst | head -1)
    truncate -s $(($(stat -c %s "$sst") / 2)) "$sst"
    run ls "$B"
    [ "$status" -ne 0 ]
    [[ "$output" == *"Input/output error"* ]]
    run cat "$B/r000015000/cf/q"
    [ "$status" -ne 0 ]
    [[ "$output" == *"Input/output error"* ]]
    run ls "$B/r000015000/cf"
    [ "$status" -ne 0 ]
    [[ "$output" == *"Input/output error"* ]]
    grep -q "$(basename "$sst")" "$FS_TMP/cellfs.log"
    kill -0 "$FS_PID"
    [ "$(cat "$B/r000000006/cf/q")" = v ]       # before the cut: still read
}

@test "fallocate extends a cell as truncate does; --keep-size changes nothing; punching a hole is refused and changes nothing" {
    printf hello > "$C/f"
    fallocate -l 10 "$C/f"
    [ "$(stat -c %s "$C/f")" -eq 10 ]
    printf 'hello\0\0\0\0\0' | cmp - "$C/f"
    fallocate -l 4 "$C/f"                  # inside the file: nothing to do
    fallocate -n -l 100 "$C/f"
    [ "$(stat -c %s "$C/f")" -eq 10 ]
    run fallocate -p -o 0 -l 2 "$C/f"
    [ "$status" -ne 0 ]
    run fallocate -l 67108865 "$C/f"       # above max_value
    [ "$status" -ne 0 ]
    [[ "$output" == *"too large"* ]]
    printf 'hello\0\0\0\0\0' | cmp - "$C/f"
    # a new file made by fallocate alone
    fallocate -l 3 "$C/g"
    printf '\0\0\0' | cmp - "$C/g"
}

@test "a rename over a cell (sed -i, editors, rsync) never makes its name vanish for readers: cat and stat in a loop see old or new" {
    head -c 30000 /dev/urandom > "$FS_TMP/A"
    head -c 20000 /dev/urandom > "$FS_TMP/B"
    cp "$FS_TMP/A" "$C/c"
    (for i in $(seq 1 80); do
        cp "$FS_TMP/B" "$C/tmp" && mv "$C/tmp" "$C/c"
        cp "$FS_TMP/A" "$C/tmp" && mv "$C/tmp" "$C/c"
    done) &
    w=$!
    bad=0 reads=0
    while kill -0 "$w" 2>/dev/null; do
        reads=$((reads + 1))
        stat -c %s "$C/c" > /dev/null || bad=$((bad + 1))
        cat "$C/c" > "$FS_TMP/got" || bad=$((bad + 1))
        cmp -s "$FS_TMP/got" "$FS_TMP/A" || cmp -s "$FS_TMP/got" "$FS_TMP/B" || bad=$((bad + 1))
    done
    wait "$w"
    echo "reads $reads, failed or mixed $bad"
    [ "$reads" -gt 20 ]
    [ "$bad" -eq 0 ]
    cmp "$FS_TMP/A" "$C/c"
}

@test "a cell removed while its newest version lay in the future is written again at the clock, as on a native directory" {
    printf abc > "$C/f"
    touch -d '2031-01-01' "$C/f"
    rm "$C/f"
    [ ! -e "$C/f" ]
    printf new > "$C/f"
    [ "$(cat "$C/f")" = new ]
    now=$(date +%s)
    m=$(stat -c %Y "$C/f")
    echo "mtime $m, clock $now"
    [ "$m" -le $((now + 1)) ]
    [ "$m" -ge $((now - 60)) ]
    # and removed again at once and rewritten: each write is seen
    for i in 1 2 3 4 5; do rm "$C/f"; printf "v$i" > "$C/f"; [ "$(cat "$C/f")" = "v$i" ]; done
    [ "$(stat -c %Y "$C/f")" -le $(($(date +%s) + 1)) ]
}

@test "touch of a cell while renames replace it succeeds (futimens on a descriptor whose name was replaced)" {
    head -c 20000 /dev/urandom > "$FS_TMP/B"
    cp "$FS_TMP/B" "$C/c"
    (for i in $(seq 1 80); do cp "$FS_TMP/B" "$C/tmp" && mv "$C/tmp" "$C/c"; done) &
    w=$!
    bad=0 n=0
    while kill -0 "$w" 2>/dev/null; do
        n=$((n + 1))
        touch "$C/c" || bad=$((bad + 1))
    done
    wait "$w"
    echo "touches $n, failed $bad"
    [ "$n" -gt 20 ]
    [ "$bad" -eq 0 ]
    cmp "$FS_TMP/B" "$C/c"
    # futimens on a descriptor whose file was removed: no error, as on a
    # local file system, and no file comes back
    python3 -c '
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
os.unlink(sys.argv[1])
os.utime(fd, (1, 1))
assert os.fstat(fd).st_mtime == 1, os.fstat(fd)
os.close(fd)' "$C/c"
    [ ! -e "$C/c" ]
}
