#!/usr/bin/env bats
# cellfs: mv of a row, and of a cell across rows of one table (issue 8: "a
# row mv must move everything or nothing"), versions and times included
# (cellfs(1), WRITING: renames). Each test failed on the driver that returned EXDEV
# for renames across rows (mv then copied the newest values only).
# CELLFS_BACKEND=bigtable runs the file on Google's emulator (started here
# when BIGTABLE_EMULATOR_HOST is unset); what needs delete markers is
# skipped there, saying so.

load helpers/mount

setup_file() {
    backend_start_emulator
}

teardown_file() {
    backend_stop_emulator
}

# setup_table [cellfs options]: a mount, table t with families cf
# (VERSIONS 3) and g, row r1 with three versions of cf/q, cf/p and g/x.
setup_table() {
    fs_setup "$@"
    T="$MNT/default/t"
    mkdir "$T"
    printf "{NAME => 'cf', VERSIONS => '5'}\n{NAME => 'g'}\n" > "$T/.schema"
    mkdir -p "$T/r1/cf" "$T/r1/g"
    for v in 1 2 3; do echo "q$v" > "$T/r1/cf/q"; done
    echo p > "$T/r1/cf/p"
    touch -d 2001-02-03 "$T/r1/cf/p"
    echo x > "$T/r1/g/x"
}

teardown() {
    if [ -n "${DISK:-}" ]; then          # the full-disk test's tmpfs
        fs_unmount "$MNT"
        if fs_is_mounted "$DISK"; then umount "$DISK" 2>/dev/null || umount -l "$DISK"; fi
    fi
    fs_teardown
}

# listing DIR: every name below DIR (q@<ts> files too on -o versions) with
# its mtime, size and contents.
listing() {
    (cd "$1" && find . -type f -printf '%P %T@ %s ' -exec cat {} \; | sort)
}

@test "mv of a row keeps every version and its time (-o versions listing before and after)" {
    setup_table -o versions
    before=$(listing "$T/r1")
    [ "$(ls "$T/r1/cf" | grep -c '^q@')" -eq 3 ]
    mv "$T/r1" "$T/r2"
    [ ! -e "$T/r1" ]
    [ "$(ls "$T")" = r2 ]
    [ "$(listing "$T/r2")" = "$before" ]
    [ "$(cat "$T/r2/cf/q")" = q3 ]
}

# row_mv_shows_truth: mv r1 r2 after the kernel cached r1's names and
# attributes; ls -R, find and stat right after it show the moved row.
row_mv_shows_truth() {
    before=$(listing "$T/r1")
    ls -R "$T" >/dev/null
    find "$T" >/dev/null
    stat "$T/r1/g/x" "$T/r1" >/dev/null
    mv "$T/r1" "$T/r2"
    [ "$(listing "$T/r2")" = "$before" ]
    [ "$(ls "$T/r2")" = "$(printf 'cf\ng')" ]
    [ "$(cat "$T/r2/g/x")" = x ]
    [ "$(stat -c %Y "$T/r2/cf/p")" -eq "$(date -d 2001-02-03 +%s)" ]
    run stat "$T/r1"
    [ "$status" -ne 0 ]
    [ "$(find "$T" -type f ! -name .schema ! -name '*@*' | sort)" = "$(printf '%s\n' "$T/r2/cf/p" "$T/r2/cf/q" "$T/r2/g/x")" ]
    run ls -R "$T"
    [[ "$output" != *r1* ]]
}

@test "mv of a row moves every family; ls -R, find and stat show the truth at once (-o versions)" {
    setup_table -o versions
    row_mv_shows_truth
    [ "$(ls "$T/r2/cf" | grep -c '^q@')" -eq 3 ]
}

@test "mv of a row: ls -R, find and stat show the truth at once (plain mount)" {
    setup_table
    row_mv_shows_truth
}

@test "mv onto a row that has cells is ENOTEMPTY and changes nothing" {
    setup_table
    mkdir -p "$T/r2/cf"
    echo other > "$T/r2/cf/o"
    before1=$(listing "$T/r1")
    before2=$(listing "$T/r2")
    run python3 -c 'import os,sys; os.rename(sys.argv[1], sys.argv[2])' "$T/r1" "$T/r2"
    [ "$status" -ne 0 ]
    [[ "$output" == *"Directory not empty"* ]]
    [ "$(listing "$T/r1")" = "$before1" ]
    [ "$(listing "$T/r2")" = "$before2" ]
}

@test "mv onto an empty row made with mkdir works, and an empty row moves too" {
    setup_table -o versions
    before=$(listing "$T/r1")
    mkdir "$T/r2"
    mv -T "$T/r1" "$T/r2"
    [ "$(listing "$T/r2")" = "$before" ]
    [ "$(ls "$T")" = r2 ]
    mkdir "$T/e1"
    mv "$T/e1" "$T/e2"
    [ -d "$T/e2" ]
    [ ! -e "$T/e1" ]
    [ "$(ls "$T/e2")" = "" ]
}

@test "mv of a cell across rows keeps its versions and times; the target's older history stays" {
    setup_table -o versions
    mkdir -p "$T/r2/cf"
    echo old > "$T/r2/cf/t@946684800000"
    (cd "$T/r1/cf" && ls | grep '^q@' | sed 's/^q@//'; echo 946684800000) | sort -n \
        > "$BATS_TEST_TMPDIR/src"
    stat "$T/r2/cf/t" "$T/r1/cf/q" >/dev/null
    ls "$T/r1/cf" "$T/r2/cf" >/dev/null
    mv "$T/r1/cf/q" "$T/r2/cf/t"
    [ ! -e "$T/r1/cf/q" ]
    [ "$(cat "$T/r2/cf/t")" = q3 ]
    [ "$(stat -c %s "$T/r2/cf/t")" -eq 3 ]
    [ "$(ls "$T/r1/cf" | grep -v @)" = p ]
    (cd "$T/r2/cf" && ls | grep '^t@' | sed 's/^t@//' | sort -n) > "$BATS_TEST_TMPDIR/dst"
    # the three moved versions, and the target's older value kept
    [ "$(cat "$BATS_TEST_TMPDIR/dst")" = "$(cat "$BATS_TEST_TMPDIR/src")" ]
    [ "$(cat "$T/r2/cf/t@946684800000")" = old ]
    first=$(sed -n 2p "$BATS_TEST_TMPDIR/src")
    [ "$(cat "$T/r2/cf/t@$first")" = q1 ]
    # the rest of r1 is untouched
    [ "$(cat "$T/r1/cf/p")" = p ]
    [ "$(cat "$T/r1/g/x")" = x ]
}

@test "a remount after the mv shows the same, and rm -r of the moved row leaves nothing" {
    setup_table -o versions
    mv "$T/r1" "$T/r2"
    mkdir -p "$T/r3/g"
    mv "$T/r2/g/x" "$T/r3/g/x"
    moved=$(listing "$T/r2"; listing "$T/r3")
    fs_unmount "$MNT"
    fs_mount "$STORE" "$MNT" -o versions
    [ "$(listing "$T/r2"; listing "$T/r3")" = "$moved" ]
    [ "$(ls "$T")" = "$(printf 'r2\nr3')" ]
    rm -rf "$T/r2" "$T/r3"
    [ "$(ls "$T")" = "" ]
    fs_unmount "$MNT"
    fs_mount "$STORE" "$MNT"
    [ "$(ls "$T")" = "" ]
}

@test "files open under the row follow it: a reader reads on, a writer's close lands in the new row" {
    setup_table
    run python3 - "$T" <<'EOF'
import os, sys
t = sys.argv[1]
r = os.open(t + "/r1/cf/p", os.O_RDONLY)
w = os.open(t + "/r1/cf/w", os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
os.write(w, b"a")
os.rename(t + "/r1", t + "/r2")
os.write(w, b"b")
os.close(w)
print(os.read(r, 10))
os.close(r)
EOF
    [ "$status" -eq 0 ]
    [ "$output" = "b'p\\n'" ]
    [ "$(cat "$T/r2/cf/w")" = ab ]
    [ ! -e "$T/r1" ]
}

@test "a row above max_value bytes keeps EXDEV, so mv copies it (logged)" {
    setup_table -o max_value=1000
    head -c 600 /dev/zero | tr '\0' a > "$T/r1/cf/big1"
    head -c 600 /dev/zero | tr '\0' b > "$T/r1/cf/big2"
    mv "$T/r1" "$T/r2"
    [ "$(head -c 3 "$T/r2/cf/big2")" = bbb ]
    [ "$(cat "$T/r2/g/x")" = x ]
    [ ! -e "$T/r1" ]
    grep -q "more than one move carries" "$FS_TMP/cellfs.log"
}

@test "mv across tables keeps EXDEV (mv copies)" {
    setup_table
    mkdir "$MNT/default/u"
    mkdir -p "$MNT/default/u/r/cf"
    run python3 -c 'import os,sys; os.rename(sys.argv[1], sys.argv[2])' "$T/r1" "$MNT/default/u/r9"
    [[ "$output" == *"Invalid cross-device link"* ]]
    run python3 -c 'import os,sys; os.rename(sys.argv[1], sys.argv[2])' "$T/r1/cf/p" "$MNT/default/u/r/cf/p"
    [[ "$output" == *"Invalid cross-device link"* ]]
    [ "$(cat "$T/r1/cf/p")" = p ]
}

@test "moving back onto the removed versions: EPERM and nothing moved; NEW_VERSION_BEHAVIOR moves" {
    setup_table
    before=$(listing "$T/r1")
    mv "$T/r1" "$T/r2"
    if backend_has delete_markers; then
        run python3 -c 'import os,sys; os.rename(sys.argv[1], sys.argv[2])' "$T/r2" "$T/r1"
        [[ "$output" == *"Operation not permitted"* ]]
        [ "$(listing "$T/r2")" = "$before" ]
        [ ! -e "$T/r1" ]
        grep -q "a delete marker in the target hides" "$FS_TMP/cellfs.log"
        printf "{NAME => 'cf', VERSIONS => '5', NEW_VERSION_BEHAVIOR => 'true'}\n{NAME => 'g', NEW_VERSION_BEHAVIOR => 'true'}\n" > "$T/.schema"
    fi
    # (a backend without delete markers deletes at once: nothing to hide)
    mv "$T/r2" "$T/r1"
    [ "$(listing "$T/r1")" = "$before" ]
    [ "$(ls "$T")" = r1 ]
}

@test "a full disk: the row mv fails with ENOSPC before its put and changes nothing" {
    [ "$(id -u)" -eq 0 ] || skip "needs root to mount a tmpfs"
    [ "$CELLFS_BACKEND" = local ] || skip "a full disk needs a local store"
    fs_setup_dirs
    DISK="$FS_TMP/disk"
    mkdir -p "$DISK"
    mount -t tmpfs -o size=6m tmpfs "$DISK"
    STORE="$DISK/store"
    fs_mount "$STORE" "$MNT" -o create
    T="$MNT/default/t"
    mkdir "$T"
    mkdir -p "$T/r1/cf"
    head -c 200000 /dev/urandom > "$FS_TMP/v"
    cp "$FS_TMP/v" "$T/r1/cf/q"
    echo small > "$T/r1/cf/s"
    local i
    for i in $(seq 1 400); do
        mkdir -p "$T/f$i/cf"
        timeout 60 dd if=/dev/zero of="$T/f$i/cf/q" bs=64k count=1 status=none 2>/dev/null || break
    done
    [ "$i" -lt 400 ]
    run python3 -c 'import os,sys; os.rename(sys.argv[1], sys.argv[2])' "$T/r1" "$T/r2"
    [ "$status" -ne 0 ]
    [[ "$output" == *"No space left on device"* ]]
    cmp "$FS_TMP/v" "$T/r1/cf/q"
    [ "$(cat "$T/r1/cf/s")" = small ]
    [ ! -e "$T/r2" ]
}
