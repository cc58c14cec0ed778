#!/usr/bin/env bats
# A full disk: the store lives on a small tmpfs; writes through cellfs and
# cellsh fill it. The failing write must fail with ENOSPC / an ERROR line
# naming it (never hang or crash), everything acknowledged before must read
# back byte-identical, and after the disk is enlarged and the store reopened
# everything is still there and new writes work. Needs root (for the tmpfs).

load helpers/mount

CELLSH="$BUILD/tools/cellsh"

setup() {
    [ "$(id -u)" -eq 0 ] || skip "needs root to mount a tmpfs"
    FS_TMP=$(mktemp -d "${BATS_TMPDIR:-/tmp}/cellfs-full.XXXXXX")
    FS_PIDS=""
    DISK="$FS_TMP/disk"
    STORE="$DISK/store"
    MNT="$FS_TMP/mnt"
    REF="$FS_TMP/ref"          # reference copies, off the small disk
    mkdir -p "$DISK" "$MNT" "$REF"
    mount -t tmpfs -o size=6m tmpfs "$DISK"
}

teardown() {
    [ -n "${FS_TMP:-}" ] || return 0
    fs_unmount "$MNT"
    local p i
    for p in $FS_PIDS; do
        for i in $(seq 1 100); do
            kill -0 "$p" 2>/dev/null || break
            sleep 0.1
        done
        kill "$p" 2>/dev/null || true
    done
    if fs_is_mounted "$DISK"; then
        umount "$DISK" 2>/dev/null || { sleep 0.5; umount "$DISK" 2>/dev/null; } ||
            umount -l "$DISK"
    fi
    fs_teardown
}

# same FILE1 FILE2: byte-identical, or a message saying which cell differs.
same() {
    cmp -s "$1" "$2" || { echo "differs: $2 (size $(stat -c %s "$2" 2>&1))" >&2; return 1; }
}

@test "cellfs: a full disk gives ENOSPC; nothing acknowledged is lost" {
    fs_require_fuse
    fs_mount "$STORE" "$MNT" -o create
    T="$MNT/default/t"
    mkdir "$T"

    # Fill the disk with 64 KiB cells until one write (its close) fails.
    local acked=() failed="" i
    for i in $(seq 1 400); do
        mkdir -p "$T/r$i/cf"
        head -c 65536 /dev/urandom > "$REF/v$i"
        run timeout 60 dd if="$REF/v$i" of="$T/r$i/cf/q" bs=64k status=none
        if [ "$status" -ne 0 ]; then failed=$i; break; fi
        acked+=("$i")
    done
    [ -n "$failed" ]                       # the 6 MiB disk did fill
    [ "$status" -ne 124 ]                  # dd did not hang
    [[ "$output" == *"No space left on device"* ]]
    [ "${#acked[@]}" -ge 20 ]
    grep -q "no space left on device" "$FS_TMP/cellfs.log"

    # The daemon is alive and serves every acknowledged cell.
    kill -0 "$FS_PID"
    for i in "${acked[@]}"; do same "$REF/v$i" "$T/r$i/cf/q"; done
    # The failed put applied nothing of its value: dd's create and the
    # close of its first descriptor succeeded, so the new cell is empty,
    # or absent when that empty commit failed too.
    [ ! -e "$T/r$failed/cf/q" ] || [ "$(stat -c %s "$T/r$failed/cf/q")" -eq 0 ]
    # Another write fails the same way, at once, to a new name and to the
    # same name (which the kernel may still hold from the failed create:
    # ENOSPC again, never ENOENT).
    mkdir -p "$T/r$((failed + 1))/cf"
    for target in "$T/r$((failed + 1))/cf/q" "$T/r$failed/cf/q"; do
        run timeout 60 dd if="$REF/v1" of="$target" bs=64k status=none
        [ "$status" -ne 0 ]
        [ "$status" -ne 124 ]
        [[ "$output" == *"No space left on device"* ]]
    done

    # rm writes delete markers: it either works or fails with ENOSPC; the
    # other cells are untouched either way.
    local removed=() kept=()
    for i in 1 2 3; do
        run timeout 60 rm "$T/r$i/cf/q"
        if [ "$status" -eq 0 ]; then
            [ ! -e "$T/r$i/cf/q" ]
            removed+=("$i")
        else
            [ "$status" -ne 124 ]
            [[ "$output" == *"No space left on device"* ]]
            same "$REF/v$i" "$T/r$i/cf/q"
        fi
    done
    for i in "${acked[@]}"; do
        [[ " ${removed[*]} " == *" $i "* ]] || kept+=("$i")
    done
    for i in "${kept[@]}"; do same "$REF/v$i" "$T/r$i/cf/q"; done
    kill -0 "$FS_PID"

    # Unmount, enlarge the disk, remount: everything acknowledged is there.
    fs_unmount "$MNT"
    if fs_is_mounted "$MNT"; then false; fi
    if kill -0 "$FS_PID" 2>/dev/null; then false; fi
    mount -o remount,size=64m "$DISK"
    fs_mount "$STORE" "$MNT"
    for i in "${kept[@]}"; do same "$REF/v$i" "$T/r$i/cf/q"; done
    for i in "${removed[@]}"; do [ ! -e "$T/r$i/cf/q" ]; done
    for i in "$failed" "$((failed + 1))"; do
        [ ! -e "$T/r$i/cf/q" ] || [ "$(stat -c %s "$T/r$i/cf/q")" -eq 0 ]
    done
    [ "$(ls "$T" | grep -vx -e "r$failed" -e "r$((failed + 1))" | wc -l)" -eq "${#kept[@]}" ]

    # New writes work, and survive another remount.
    for i in $(seq 1001 1020); do
        mkdir -p "$T/r$i/cf"
        head -c 65536 /dev/urandom > "$REF/v$i"
        dd if="$REF/v$i" of="$T/r$i/cf/q" bs=64k status=none
        kept+=("$i")
    done
    fs_unmount "$MNT"
    fs_mount "$STORE" "$MNT"
    for i in "${kept[@]}"; do same "$REF/v$i" "$T/r$i/cf/q"; done
}

# rows_and_values: "row value" for each f:q cell of a scan in $output.
rows_and_values() {
    printf '%s\n' "$output" | sed -n -E 's/^ (r[0-9]+) +column=f:q, timestamp=[0-9]+, value=(.*)$/\1 \2/p'
}

@test "cellsh: the put that meets a full disk prints ERROR naming it; earlier puts stay" {
    [ -x "$CELLSH" ] || { echo "cellsh not built at $CELLSH (set CELLFS_BUILD)" >&2; return 1; }
    # One script: a 64 KiB put per row, each followed by a count, so that
    # the output says how many puts were acknowledged before the failure.
    local i v
    {
        echo "create 't', 'f'"
        for i in $(seq -w 101 400); do
            v=$(head -c 49152 /dev/urandom | base64 -w0)
            echo "r$i $v" >> "$REF/expected"
            echo "put 't', 'r$i', 'f:q', '$v'"
            echo "count 't'"
        done
    } > "$FS_TMP/fill.hb"
    run timeout 120 "$CELLSH" "$STORE" "$FS_TMP/fill.hb"
    [ "$status" -eq 1 ]
    local errs
    errs=$(printf '%s\n' "$output" | grep '^ERROR:')
    [ -n "$errs" ]
    [[ "$(printf '%s\n' "$errs" | head -1)" == *"No space left on device"* ]]
    local n
    n=$(printf '%s\n' "$output" | grep -E '^[0-9]+ row\(s\)$' | tail -1 | cut -d' ' -f1)
    [ -n "$n" ]
    [ "$n" -ge 20 ]
    [ "$n" -lt 300 ]
    head -n "$n" "$REF/expected" > "$REF/acked"

    # Read-only, on the full disk: the acknowledged puts are all there.
    run "$CELLSH" -r "$STORE" -e "scan 't'"
    [ "$status" -eq 0 ]
    diff "$REF/acked" <(rows_and_values)

    # Enlarge the disk: the same, read-write; the failed put applied
    # nothing; new puts work and stay.
    mount -o remount,size=64m "$DISK"
    run "$CELLSH" "$STORE" -e "scan 't'"
    [ "$status" -eq 0 ]
    diff "$REF/acked" <(rows_and_values)
    v=$(head -c 49152 /dev/urandom | base64 -w0)
    run "$CELLSH" "$STORE" -e "put 't', 'r999', 'f:q', '$v'"
    [ "$status" -eq 0 ]
    echo "r999 $v" >> "$REF/acked"
    run "$CELLSH" "$STORE" -e "scan 't'"
    [ "$status" -eq 0 ]
    diff "$REF/acked" <(rows_and_values)
}

@test "cellfs: cp fills the disk; once space is freed, writes work again on the same mount; cellck clean" {
    fs_require_fuse
    # Ballast on the small disk: removing it is the freeing of space.
    head -c 4194304 /dev/zero > "$DISK/ballast"
    fs_mount "$STORE" "$MNT" -o create
    T="$MNT/default/t"
    mkdir "$T"
    local acked=() failed="" i
    for i in $(seq 1 200); do
        mkdir -p "$T/r$i/cf"
        head -c 100000 /dev/urandom > "$REF/v$i"
        run timeout 60 cp "$REF/v$i" "$T/r$i/cf/q"
        if [ "$status" -ne 0 ]; then failed=$i; break; fi
        acked+=("$i")
    done
    [ -n "$failed" ]
    [ "$status" -ne 124 ]
    [[ "$output" == *"No space left on device"* ]]
    [ "${#acked[@]}" -ge 10 ]
    kill -0 "$FS_PID"
    for i in "${acked[@]}"; do same "$REF/v$i" "$T/r$i/cf/q"; done
    # The failed cp left nothing half-written.
    [ ! -e "$T/r$failed/cf/q" ] || [ "$(stat -c %s "$T/r$failed/cf/q")" -eq 0 ]

    # Free space beside the store (4 MiB, twice what the log holds: a flush
    # needs room for the sorted file beside the log); the same mount writes again.
    rm "$DISK/ballast"
    for i in $(seq 1001 1005); do
        mkdir -p "$T/r$i/cf"
        head -c 100000 /dev/urandom > "$REF/v$i"
        cp "$REF/v$i" "$T/r$i/cf/q"
        acked+=("$i")
    done
    cp "$REF/v$failed" "$T/r$failed/cf/q"
    acked+=("$failed")
    for i in "${acked[@]}"; do same "$REF/v$i" "$T/r$i/cf/q"; done
    kill -0 "$FS_PID"

    # After an unmount: everything is there and cellck is clean.
    fs_unmount "$MNT"
    run "$BUILD/tools/cellck" "$STORE"
    echo "$output"
    [ "$status" -eq 0 ]
    fs_mount "$STORE" "$MNT"
    for i in "${acked[@]}"; do same "$REF/v$i" "$T/r$i/cf/q"; done
}

@test "cellfs: on a full disk the shell's echo > q, : > q and >> fail (they never check close)" {
    fs_require_fuse
    fs_mount "$STORE" "$MNT" -o create
    T="$MNT/default/t"
    mkdir "$T"
    mkdir -p "$T/r0/cf"
    echo before > "$T/r0/cf/a"
    local i
    for i in $(seq 1 200); do
        mkdir -p "$T/r$i/cf"
        head -c 100000 /dev/urandom > "$REF/v$i"
        cp "$REF/v$i" "$T/r$i/cf/q" 2>/dev/null || break
    done
    [ "$i" -lt 200 ]
    # What still fits is written (the check at write is not too eager)...
    echo fits > "$T/r0/cf/s"
    [ "$(cat "$T/r0/cf/s")" = fits ]
    # ...then the disk fills up completely, beside the store.
    head -c 16777216 /dev/zero > "$DISK/ballast" 2>/dev/null || true
    [ "$(df --output=avail -B1 "$DISK" | tail -1)" -lt 4096 ]
    # bash ignores the result of close(2) after a redirection: the store's
    # failure must come at write(2) or open(2), where the shell sees it.
    run bash -c "echo hello > '$T/r0/cf/e'"
    echo "$output"
    [ "$status" -ne 0 ]
    [[ "$output" == *"No space left on device"* ]]
    run bash -c ": > '$T/r0/cf/z'"
    echo "$output"
    [ "$status" -ne 0 ]
    [[ "$output" == *"No space left on device"* ]]
    run bash -c "echo more >> '$T/r0/cf/a'"
    echo "$output"
    [ "$status" -ne 0 ]
    [[ "$output" == *"No space left on device"* ]]
    [ "$(cat "$T/r0/cf/a")" = before ]
    [ ! -s "$T/r0/cf/e" ]
    kill -0 "$FS_PID"
}
