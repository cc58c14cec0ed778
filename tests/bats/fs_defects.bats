#!/usr/bin/env bats
# cellfs: the defects of issue 8 (and issue 11's daemon defects), one test
# each, through the mount with ordinary tools. Each test failed on the
# driver before its fix.

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

# ms FILE: the mtime in milliseconds.
ms() {
    python3 -c 'import os,sys; print(os.stat(sys.argv[1]).st_mtime_ns // 10**6)' "$1"
}

@test "shrink then grow within one open reads zeros where the old bytes were (fsx F1)" {
    printf AAAAAAAAAA > "$C/q"
    python3 -c 'import os,sys; fd=os.open(sys.argv[1], os.O_RDWR); os.ftruncate(fd, 2); os.ftruncate(fd, 10); os.close(fd)' "$C/q"
    [ "$(od -An -c "$C/q" | tr -s ' ')" = " A A \0 \0 \0 \0 \0 \0 \0 \0" ]
    printf AAAAAAAAAA > "$C/p"
    run python3 -c 'import os,sys; fd=os.open(sys.argv[1], os.O_RDWR); os.ftruncate(fd, 2); os.pwrite(fd, b"B", 8); os.ftruncate(fd, 6); os.fsync(fd); print(os.pread(fd, 10, 0)); os.close(fd)' "$C/p"
    [ "$output" = "b'AA\\x00\\x00\\x00\\x00'" ]
    [ "$(od -An -c "$C/p" | tr -s ' ')" = " A A \0 \0 \0 \0" ]
}

@test "rm, overwrite and mv of a cell whose newest version lies in the future do what they say (T2)" {
    echo v > "$C/a"; touch -d 2030-01-01 "$C/a"
    rm "$C/a"
    [ ! -e "$C/a" ]
    run ls "$C"
    [ "$output" = "" ]
    echo v > "$C/b"; touch -d 2030-01-01 "$C/b"
    echo new > "$C/b"
    [ "$(cat "$C/b")" = new ]
    echo v > "$C/c"; touch -d 2030-01-01 "$C/c"
    mv "$C/c" "$C/d"
    [ ! -e "$C/c" ]
    [ "$(cat "$C/d")" = v ]
    [ "$(stat -c %Y "$C/d")" -eq "$(date -d 2030-01-01 +%s)" ]
    echo w > "$C/e@2000000000000"
    [ "$(cat "$C/e")" = w ]
    echo x > "$C/e"
    [ "$(cat "$C/e")" = x ]
    rm "$C/e"
    [ ! -e "$C/e" ]
    # a new value after such a removal is not hidden by it
    echo again > "$C/a"
    [ "$(cat "$C/a")" = again ]
    (cd "$T" && rm -r r)
    [ "$(ls "$T")" = "" ]
}

@test "an rsync restore of cells with future times leaves no temporary file (T2)" {
    src="$FS_TMP/src"
    mkdir -p "$src/r/cf"
    echo one > "$src/r/cf/q1"; touch -d 2031-02-03 "$src/r/cf/q1"
    echo two > "$src/r/cf/q2"
    mkdir -p "$T/r/cf"
    echo old > "$C/q1"; touch -d 2032-01-01 "$C/q1"
    rsync -a "$src/" "$T/"
    [ "$(ls -A "$C" | tr '\n' ' ')" = "q1 q2 " ]
    [ "$(cat "$C/q1")" = one ]
    [ "$(stat -c %Y "$C/q1")" -eq "$(date -d 2031-02-03 +%s)" ]
}

@test "successive writes to one cell give distinct, increasing versions (T1)" {
    printf "{NAME => 'cf', VERSIONS => '5'}\n" > "$T/.schema"
    for i in 1 2 3 4 5 6; do echo "v$i" > "$C/q"; done
    [ "$(cat "$C/q")" = v6 ]
    fs_unmount "$MNT"
    fs_mount "$STORE" "$MNT" -o versions
    run ls "$C"
    [ "$(printf '%s\n' "$output" | grep -c '^q@')" -eq 5 ]
    newest=$(printf '%s\n' "$output" | grep '^q@' | sort -t@ -k2 -n | tail -1)
    [ "$(cat "$C/$newest")" = v6 ]
    oldest=$(printf '%s\n' "$output" | grep '^q@' | sort -t@ -k2 -n | head -1)
    [ "$(cat "$C/$oldest")" = v2 ]
}

@test "a new empty file exists and can be removed right after close (T8)" {
    run python3 -c '
import os, sys
bad = 0
for i in range(500):
    e = "%s/e%d" % (sys.argv[1], i)
    os.close(os.open(e, os.O_WRONLY | os.O_CREAT | os.O_TRUNC))
    try:
        os.unlink(e)
    except OSError as x:
        bad += 1; print("unlink", e, x)
    if os.path.exists(e):
        bad += 1; print("still there:", e)
    f = "%s/f%d" % (sys.argv[1], i)
    os.close(os.open(f, os.O_WRONLY | os.O_CREAT | os.O_TRUNC))
    if not os.path.exists(f):
        bad += 1; print("missing after close:", f)
sys.exit(1 if bad else 0)' "$C"
    echo "$output" | head
    [ "$status" -eq 0 ]
    [ "$(ls "$C" | wc -l)" -eq 500 ]
}

@test "a new empty file closed just before the daemon dies survives (issue 11 defect 2)" {
    for i in $(seq 1 10); do
        python3 -c 'import os,sys,signal; os.close(os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)); os.kill(int(sys.argv[2]), signal.SIGKILL)' "$C/n$i" "$FS_PID"
        wait "$FS_PID" 2>/dev/null || true
        fusermount3 -u "$MNT" 2>/dev/null || fusermount3 -u -z "$MNT"
        fs_mount "$STORE" "$MNT"
        [ -e "$C/n$i" ]
        [ "$(stat -c %s "$C/n$i")" -eq 0 ]
    done
}

@test "echo > f (shells close a duplicate first) is one version; : > f of a cell with a value commits the empty value at close" {
    printf "{NAME => 'cf', VERSIONS => '5'}\n" > "$T/.schema"
    echo one > "$C/q"
    echo two > "$C/q"
    echo three > "$C/p"
    : > "$C/p"
    [ "$(stat -c %s "$C/p")" -eq 0 ]
    fs_unmount "$MNT"
    fs_mount "$STORE" "$MNT" -o versions
    [ "$(ls "$C" | grep -c '^q@')" -eq 2 ]
    [ "$(ls "$C" | grep -c '^p@')" -eq 2 ]
}

@test "a write that fails with EFBIG changes nothing: cp and dd keep the old value, a new cell is not made" {
    fs_unmount "$MNT"
    fs_mount "$STORE" "$MNT" -o max_value=100000
    mkdir -p "$C"
    head -c 200000 /dev/urandom > "$FS_TMP/big"
    echo old > "$C/q"
    run cp "$FS_TMP/big" "$C/q"
    [ "$status" -ne 0 ]
    [[ "$output" == *"too large"* ]]
    [ "$(cat "$C/q")" = old ]
    run dd if="$FS_TMP/big" of="$C/q" bs=64k status=none
    [ "$status" -ne 0 ]
    [ "$(cat "$C/q")" = old ]
    run python3 -c '
import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_TRUNC)
try:
    os.pwrite(fd, b"x" * 10, 99995)
except OSError as e:
    print(e.strerror)
os.close(fd)' "$C/q"
    [[ "$output" == *"too large"* ]]
    [ "$(cat "$C/q")" = old ]
    run cp "$FS_TMP/big" "$C/new"
    [ "$status" -ne 0 ]
    [ ! -e "$C/new" ] || [ "$(stat -c %s "$C/new")" -eq 0 ]
}

@test "readers see the old value and size while a writer holds the cell open after O_TRUNC" {
    printf 'old value' > "$C/q"
    # The writer must not fork: a child's close of the inherited descriptor
    # is a close(2) of the file, which commits it.
    python3 -c '
import os, sys, time
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_TRUNC)
open(sys.argv[2], "w").close()
for i in range(15):
    time.sleep(0.1)
    os.write(fd, b"new bytes ")
os.close(fd)' "$C/q" "$FS_TMP/started" &
    w=$!
    while [ ! -e "$FS_TMP/started" ]; do sleep 0.02; done
    bad=0
    for i in $(seq 1 10); do
        v=$(cat "$C/q")
        s=$(stat -c %s "$C/q")
        if [ "$v" != "old value" ] || [ "$s" -ne 9 ]; then
            echo "read $i: cat '$v', stat $s"
            bad=$((bad + 1))
        fi
        sleep 0.05
    done
    wait "$w"
    [ "$bad" -eq 0 ]
    [ "$(cat "$C/q")" = "$(printf 'new bytes %.0s' $(seq 1 15))" ]
}
