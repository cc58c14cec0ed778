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

@test "df -i never shows negative used inodes" {
    echo v > "$C/q"
    run df --output=iused "$MNT"
    [ "$status" -eq 0 ]
    used=$(printf '%s\n' "$output" | tail -1 | tr -d ' ')
    [[ "$used" =~ ^[0-9]+$ ]]
}

@test "-o allow_other turns on default_permissions: other users cannot change the owner's cells" {
    echo v > "$C/q"
    fs_unmount "$MNT"
    fs_mount "$STORE" "$MNT" -o allow_other
    awk -v d="$(realpath "$MNT")" '$2 == d { print $4 }' /proc/mounts | grep -q default_permissions
    id nobody >/dev/null 2>&1 || skip "no user nobody"
    chmod 755 "$FS_TMP"
    [ "$(setpriv --reuid=nobody --regid=nogroup --clear-groups cat "$C/q")" = v ]
    run setpriv --reuid=nobody --regid=nogroup --clear-groups rm -f "$C/q"
    [ "$status" -ne 0 ]
    run setpriv --reuid=nobody --regid=nogroup --clear-groups sh -c "echo x > '$C/q'"
    [ "$status" -ne 0 ]
    [ "$(cat "$C/q")" = v ]
}

@test "a damaged sorted file makes ls and find fail with EIO, never a shorter listing (issue 11 defect 1)" {
    fs_unmount "$MNT"
    rm -rf "$STORE"
    "$FILL" "$STORE" default:big 20000
    sst=$(ls "$STORE"/*.sst | head -1)
    size=$(stat -c %s "$sst")
    printf '\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377\377' |
        dd of="$sst" bs=1 seek=$((size / 2)) conv=notrunc status=none
    fs_mount "$STORE" "$MNT"
    B="$MNT/default/big"
    run ls "$B"
    [ "$status" -ne 0 ]
    [[ "$output" == *"Input/output error"* ]]
    run find "$B" -name q
    [ "$status" -ne 0 ]
    # Each row's listing fails or is whole: none lists an empty family.
    n=$(ls "$B" 2>/dev/null | wc -l)
    failed=0
    for i in $(seq $((n - 5)) $((n + 40))); do
        row=$(printf 'r%09d' "$i")
        if out=$(ls "$B/$row/cf" 2>/dev/null); then
            [ "$out" = q ] || { echo "$row/cf lists '$out'"; false; }
        else
            failed=$((failed + 1))
        fi
    done
    [ "$failed" -gt 0 ]
}

@test "directories: rmdir of a table with mkdir'ed rows fails; rmdir of a family of a mkdir'ed row removes it" {
    printf "{NAME => 'cf'}\n{NAME => 'g'}\n" > "$T/.schema"
    mkdir -p "$T/new/g" "$T/new/cf"
    [ "$(ls "$T/new" | tr '\n' ' ')" = "cf g " ]
    rmdir "$T/new/g"
    [ ! -e "$T/new/g" ]
    [ "$(ls "$T/new")" = cf ]
    mkdir "$T/new/g"
    [ -d "$T/new/g" ]
    mkdir "$MNT/default/t2"
    mkdir -p "$MNT/default/t2/row/cf"
    run rmdir "$MNT/default/t2"
    [ "$status" -ne 0 ]
    [[ "$output" == *"not empty"* ]]
    rmdir "$MNT/default/t2/row/cf" "$MNT/default/t2/row"
    rmdir "$MNT/default/t2"
    [ ! -e "$MNT/default/t2" ]
    mkdir "$MNT/default/t2"
    [ "$(ls -A "$MNT/default/t2")" = .schema ]
}

@test "renaming a family gives EXDEV, so mv copies it" {
    printf "{NAME => 'cf'}\n{NAME => 'g'}\n" > "$T/.schema"
    echo 1 > "$C/a"
    run python3 -c 'import os,sys; os.rename(sys.argv[1], sys.argv[2])' "$C" "$T/r/g"
    [[ "$output" == *"Invalid cross-device link"* ]]
}

@test "mkdir'ed empty rows are not forgotten after 1,024" {
    for i in $(seq 1 1500); do echo "$T/e$i/cf"; done | xargs mkdir -p
    [ "$(ls "$T" | grep -c '^e')" -eq 1500 ]
    echo v > "$T/e1/cf/q"
    [ "$(cat "$T/e1/cf/q")" = v ]
    [ -d "$T/e2/cf" ]
}

@test "tar x into a table ends: .schema opened with O_CREAT|O_EXCL after tar removes it" {
    src="$FS_TMP/src"
    mkdir -p "$src/t/r/cf" "$src/t/r/g"
    printf "{NAME => 'cf', VERSIONS => '3'}\n{NAME => 'g'}\n" > "$src/t/.schema"
    echo one > "$src/t/r/cf/q"
    echo two > "$src/t/r/g/x"
    tar -C "$src" -cf "$FS_TMP/t.tar" t
    run timeout 30 tar -C "$MNT/default" -xf "$FS_TMP/t.tar"
    echo "$output"
    [ "$status" -eq 0 ]
    grep -q "VERSIONS => '3'" "$T/.schema"
    grep -q "NAME => 'g'" "$T/.schema"
    [ "$(cat "$T/r/cf/q")" = one ]
    [ "$(cat "$T/r/g/x")" = two ]
    [ -e "$T/.schema" ]
    rm "$T/.schema"
    [ ! -e "$T/.schema" ]
    [ "$(ls -A "$T")" = r ]
    [ "$(cat "$T/r/g/x")" = two ]      # the families stay
    printf "{NAME => 'cf'}\n{NAME => 'g'}\n" > "$T/.schema"
    [ "$(grep -c NAME "$T/.schema")" -eq 2 ]
}

@test "names: NAME_MAX is what holds (234); longer names fail with ENAMETOOLONG" {
    [ "$(getconf NAME_MAX "$C")" -eq 234 ]
    n234=$(printf 'a%.0s' $(seq 1 234))
    echo v > "$C/$n234"
    [ "$(cat "$C/$n234")" = v ]
    run python3 -c '
import os, sys
for n in (235, 240, 255):
    try:
        os.close(os.open(os.path.join(sys.argv[1], "b" * n), os.O_WRONLY | os.O_CREAT))
        print(n, "created")
    except OSError as e:
        print(n, e.strerror)' "$C"
    echo "$output"
    [ "$output" = "$(printf '235 File name too long\n240 File name too long\n255 File name too long')" ]
}

@test ".schema that leaves a family out keeps it; METHOD => 'delete' drops it" {
    printf "{NAME => 'cf'}\n{NAME => 'h'}\n" > "$T/.schema"
    mkdir -p "$T/r/h"
    echo keep > "$T/r/h/x"
    printf "{NAME => 'cf', VERSIONS => '4'}\n" > "$T/.schema"
    grep -q "NAME => 'h'" "$T/.schema"
    grep -q "VERSIONS => '4'" "$T/.schema"
    [ "$(cat "$T/r/h/x")" = keep ]
    sed -i "/NAME => 'h'/d" "$T/.schema"
    grep -q "NAME => 'h'" "$T/.schema"
    echo "{NAME => 'h', METHOD => 'delete'}" > "$T/.schema"
    ! grep -q "NAME => 'h'" "$T/.schema"
    [ "$(wc -l < "$T/.schema")" -eq 1 ]
    [ ! -e "$T/r/h/x" ]
    run bash -c "echo \"{NAME => 'nosuch', METHOD => 'delete'}\" > '$T/.schema'"
    [ "$status" -ne 0 ]
}

@test "touch -d / cp -a to a time older than another version: the file shows the value, with that time (T4)" {
    echo 1 > "$C/q"
    sleep 0.05
    echo 2 > "$C/q"                    # VERSIONS 1: version 1 may still be held
    touch -d 2020-01-01 "$C/q"
    [ "$(cat "$C/q")" = 2 ]
    [ "$(stat -c %Y "$C/q")" -eq "$(date -d 2020-01-01 +%s)" ]
    printf "{NAME => 'cf', VERSIONS => '5'}\n" > "$T/.schema"
    echo a > "$C/p"; sleep 0.05; echo b > "$C/p"
    echo src > "$FS_TMP/src"; touch -d 2019-05-05 "$FS_TMP/src"
    cp -a "$FS_TMP/src" "$C/p"
    [ "$(cat "$C/p")" = src ]
    [ "$(stat -c %Y "$C/p")" -eq "$(date -d 2019-05-05 +%s)" ]
}

@test "rename over a cell (sed -i, editors) adds the value as newest version and keeps history; mv keeps mtime (T5)" {
    printf "{NAME => 'cf', VERSIONS => '5'}\n" > "$T/.schema"
    echo a > "$C/q"
    sleep 0.05
    sed -i s/a/b/ "$C/q"
    sleep 0.05
    sed -i s/b/c/ "$C/q"
    [ "$(cat "$C/q")" = c ]
    echo a > "$C/s"; sleep 0.05; echo b > "$C/t"; sleep 0.05; echo c > "$C/t"
    ms_s=$(ms "$C/s")
    mv "$C/s" "$C/t"
    [ "$(cat "$C/t")" = a ]
    [ "$(ms "$C/t")" -eq "$ms_s" ]
    fs_unmount "$MNT"
    fs_mount "$STORE" "$MNT" -o versions
    [ "$(ls "$C" | grep -c '^q@')" -eq 3 ]
    [ "$(ls "$C" | grep -c '^t@')" -eq 1 ]
}

@test "rename onto a removed name keeps the file's mtime; rsync's restore over a name deleted in the same run (T3)" {
    echo a > "$C/s"; sleep 0.05; echo b > "$C/t"; rm "$C/t"
    m=$(ms "$C/s")
    mv "$C/s" "$C/t"
    [ "$(ms "$C/t")" -eq "$m" ]
    [ "$(cat "$C/t")" = a ]
    # and a put at an older time after rm (tar/rsync restore) is not hidden
    rm "$C/t"
    echo old > "$C/u"; touch -d 2015-01-01 "$C/u"
    [ "$(cat "$C/u")" = old ]
    [ "$(stat -c %Y "$C/u")" -eq "$(date -d 2015-01-01 +%s)" ]
}

@test "tar of an -o versions table restores exactly with --format=posix, .schema first, --skip-old-files; --overwrite -x works" {
    fs_unmount "$MNT"
    fs_mount "$STORE" "$MNT" -o versions
    printf "{NAME => 'cf', VERSIONS => '3'}\n" > "$T/.schema"
    mkdir -p "$C"
    echo a > "$C/q"; sleep 0.05; echo b > "$C/q"; echo x > "$C/p"
    tar -C "$MNT/default" --format=posix -cf "$FS_TMP/t.tar" t
    run tar -C "$MNT/default" --format=posix --overwrite -xf "$FS_TMP/t.tar"
    echo "$output"
    [ "$status" -eq 0 ]
    mkdir "$MNT/default/u"
    tar -C "$MNT/default/u" --strip-components=1 -xf "$FS_TMP/t.tar" t/.schema
    run tar -C "$MNT/default/u" --strip-components=1 --skip-old-files -xf "$FS_TMP/t.tar"
    echo "$output"
    [ "$status" -eq 0 ]
    list() { (cd "$1" && find . -type f ! -name .schema -printf '%P %T@ %s\n' | sort); }
    [ "$(list "$T")" = "$(list "$MNT/default/u")" ]
    [ "$(cat "$MNT/default/u/r/cf/q")" = b ]
}

@test "row and family mtimes are the newest cell time below them: a second rsync after a restore has nothing to do" {
    printf "{NAME => 'cf'}\n{NAME => 'g'}\n" > "$T/.schema"
    mkdir -p "$T/r/g" "$T/s/cf"
    echo 1 > "$C/a"; touch -d 2021-01-01 "$C/a"
    echo 2 > "$T/r/g/b"; touch -d 2022-02-02 "$T/r/g/b"
    echo 3 > "$T/s/cf/c"; touch -d 2020-03-03 "$T/s/cf/c"
    [ "$(stat -c %Y "$T/r")" -eq "$(date -d 2022-02-02 +%s)" ]
    [ "$(stat -c %Y "$C")" -eq "$(date -d 2021-01-01 +%s)" ]
    rsync -a "$T/" "$FS_TMP/backup/"
    mkdir "$MNT/default/u"
    cp "$FS_TMP/backup/.schema" "$MNT/default/u/.schema"
    rsync -a "$FS_TMP/backup/" "$MNT/default/u/"
    run rsync -anc --itemize-changes --exclude=.schema "$FS_TMP/backup/" "$MNT/default/u/"
    echo "$output"
    [ "$(printf '%s\n' "$output" | grep -v ' \./$' | grep -c .)" -eq 0 ]
}

@test "rsync restores escaped names (empty qualifier %, q%405, %2Eschema): its temporary names are creatable" {
    src="$FS_TMP/src"
    mkdir -p "$src/r/cf"
    echo empty > "$src/r/cf/%"; touch -d 2021-04-04 "$src/r/cf/%"
    echo at > "$src/r/cf/q%405"
    echo dot > "$src/r/cf/%2Eschema"
    run rsync -a "$src/" "$T/"
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$(ls -A "$C" | tr '\n' ' ')" = "% %2Eschema q%405 " ]
    [ "$(cat "$C/%")" = empty ]
    [ "$(cat "$C/q%405")" = at ]
    [ "$(stat -c %Y "$C/%")" -eq "$(date -d 2021-04-04 +%s)" ]
    # such a name by hand: a temporary file until renamed into place
    echo t > "$C/.%.tmp"
    [ "$(cat "$C/.%.tmp")" = t ]
    ls -A "$C" | grep -qx '.%.tmp'
    mv "$C/.%.tmp" "$C/%"
    [ "$(cat "$C/%")" = t ]
    [ ! -e "$C/.%.tmp" ]
    echo u > "$C/.%.tmp2"; rm "$C/.%.tmp2"
    [ ! -e "$C/.%.tmp2" ]
}

@test "a truncating open of a cell with a value shows empty once close returns (T7)" {
    run python3 -c '
import os, sys
q = sys.argv[1]
bad = 0
for i in range(50):
    with open(q, "wb") as f:
        f.write(b"x" * (100 + i))
    os.close(os.open(q, os.O_WRONLY | os.O_TRUNC))
    with open(q, "rb") as f:
        data = f.read()
    if data or os.stat(q).st_size:
        bad += 1
        print(i, len(data), os.stat(q).st_size)
sys.exit(1 if bad else 0)' "$C/q"
    echo "$output" | head
    [ "$status" -eq 0 ]
}

@test "a regular file beside the rows is listed, takes a time, and keeps rmdir of the table from succeeding" {
    echo tmp > "$T/notes"
    ls "$T" | grep -qx notes
    touch -d 2020-02-02 "$T/notes"
    [ "$(stat -c %Y "$T/notes")" -eq "$(date -d 2020-02-02 +%s)" ]
    mkdir "$MNT/default/t2"
    echo x > "$MNT/default/t2/f"
    run rmdir "$MNT/default/t2"
    [ "$status" -ne 0 ]
    rm "$MNT/default/t2/f"
    rmdir "$MNT/default/t2"
    mkdir "$MNT/default/t2"
    [ "$(ls -A "$MNT/default/t2")" = .schema ]
}

@test "after rm q@ts of the last version, creating q again works at once (T6)" {
    for i in 1 2 3 4 5; do
        echo a > "$C/q"
        ls "$C/q" >/dev/null
        rm "$C/q@$(ms "$C/q")"
        echo "b$i" > "$C/q"
        [ "$(cat "$C/q")" = "b$i" ]
    done
}

# three_family_row: tables t and u with families cf, g and h (U is u), and
# the row t/r holding a, b and c, one in each.
three_family_row() {
    U="$MNT/default/u"
    mkdir "$U"
    local d
    for d in "$T" "$U"; do
        printf "{NAME => 'cf'}\n{NAME => 'g'}\n{NAME => 'h'}\n" > "$d/.schema"
    done
    echo a > "$C/a"
    mkdir -p "$T/r/g" "$T/r/h"
    echo b > "$T/r/g/b"
    echo c > "$T/r/h/c"
}

# row_has_all DIR: the row DIR lists cf, g and h with their cells a, b, c.
row_has_all() {
    [ "$(ls "$1" | tr '\n' ' ')" = "cf g h " ]
    [ "$(cat "$1/cf/a")" = a ]
    [ "$(cat "$1/g/b")" = b ]
    [ "$(cat "$1/h/c")" = c ]
}

@test "cp -r, cp -a and mv of a row carry every family, within a table and into another" {
    # GNU cp 9.1 mkdirs each family of a new row without a stat first; the
    # kernel's LOOKUP before each MKDIR must not find the family once the
    # first cell landed (EEXIST without asking the daemon): a row made with
    # mkdir lists only the families made in it and those with cells.
    three_family_row
    row_has_all "$T/r"
    cp -r "$T/r" "$T/r2"
    row_has_all "$T/r2"
    cp -a "$T/r" "$T/r3"
    row_has_all "$T/r3"
    [ "$(stat -c %Y "$T/r3/g/b")" -eq "$(stat -c %Y "$T/r/g/b")" ]
    cp -r "$T/r" "$U/r"
    row_has_all "$U/r"
    cp -a "$T/r" "$U/r4"
    row_has_all "$U/r4"
    mv "$T/r" "$U/r5"
    row_has_all "$U/r5"
    [ ! -e "$T/r" ]
    [ "$(ls "$T" | tr '\n' ' ')" = "r2 r3 " ]
}

@test "a row made with mkdir lists the families made in it and those with cells; after a remount, every family" {
    three_family_row
    mkdir "$T/r2"
    mkdir "$T/r2/cf"
    echo x > "$T/r2/cf/x"
    [ "$(ls "$T/r2" | tr '\n' ' ')" = "cf " ]
    [ ! -e "$T/r2/g" ]
    run stat "$T/r2/h"
    [ "$status" -ne 0 ]
    mkdir -p "$T/r2/g"
    [ "$(ls "$T/r2" | tr '\n' ' ')" = "cf g " ]
    [ -d "$T/r2/g" ]
    run mkdir "$T/r2/g"
    [ "$status" -ne 0 ]
    [[ "$output" == *"File exists"* ]]
    # readdir and lookup agree, also with ls -l (READDIRPLUS) and find
    [ "$(find "$T/r2" -mindepth 1 | sort | tr '\n' ' ')" = "$T/r2/cf $T/r2/cf/x $T/r2/g " ]
    [ "$(ls -l "$T/r2" | grep -c '^d')" -eq 2 ]
    # rmdir of an empty family made with mkdir unlists it; rm -r forgets
    rmdir "$T/r2/g"
    [ "$(ls "$T/r2" | tr '\n' ' ')" = "cf " ]
    # a row from the store lists every family
    [ "$(ls "$T/r" | tr '\n' ' ')" = "cf g h " ]
    run mkdir "$T/r/g"
    [ "$status" -ne 0 ]
    # after a remount r2 comes from the store: every family
    fs_unmount "$MNT"
    fs_mount "$STORE" "$MNT"
    [ "$(ls "$T/r2" | tr '\n' ' ')" = "cf g h " ]
    [ -d "$T/r2/h" ]
}

@test "rm -r of a young row forgets it: made again, it lists only what is made in it" {
    three_family_row
    mkdir -p "$T/r2/g"
    echo y > "$T/r2/g/y"
    [ "$(ls "$T/r2" | tr '\n' ' ')" = "g " ]
    rm -r "$T/r2"
    [ ! -e "$T/r2" ]
    mkdir -p "$T/r2/h"
    [ "$(ls "$T/r2" | tr '\n' ' ')" = "h " ]
    rmdir "$T/r2/h" "$T/r2"
    [ "$(ls "$T" | tr '\n' ' ')" = "r " ]
}

@test "the young-row memory is bounded: a row made 4,096 mkdirs ago lists every family again" {
    three_family_row
    mkdir -p "$T/old/cf"
    echo x > "$T/old/cf/x"
    [ "$(ls "$T/old" | tr '\n' ' ')" = "cf " ]
    for i in $(seq 1 4096); do echo "$T/n$i"; done | xargs mkdir
    [ "$(ls "$T/old" | tr '\n' ' ')" = "cf g h " ]
    [ "$(ls "$T/n4096" | wc -l)" -eq 0 ]
    [ "$(ls "$T/n1" | wc -l)" -eq 0 ]
}

@test "copying into a row made first: mkdir the new row, cp -a row/. into it, rm -r the old one" {
    three_family_row
    mkdir "$T/r2"
    cp -r "$T/r/." "$T/r2/"
    row_has_all "$T/r2"
    mkdir "$U/r3"
    cp -a "$T/r/." "$U/r3/"
    row_has_all "$U/r3"
    [ "$(stat -c %Y "$U/r3/g/b")" -eq "$(stat -c %Y "$T/r/g/b")" ]
    rm -r "$T/r"
    [ "$(ls "$T" | tr '\n' ' ')" = "r2 " ]
}

@test "fstat of a descriptor whose file was unlinked shows the open file (was ESTALE)" {
    run python3 - "$C" <<'PY'
import os, sys
d = sys.argv[1]
fd = os.open(d + "/gone", os.O_CREAT | os.O_RDWR, 0o644)
os.write(fd, b"12345")
os.unlink(d + "/gone")
print(os.fstat(fd).st_size, os.pread(fd, 10, 0))
os.write(fd, b"678")
print(os.fstat(fd).st_size)
# A time set through its /proc name reaches the inode without the open
# file: it goes to the open file, as on a local file system (was ENOENT),
# never a stale handle.
try:
    os.utime("/proc/self/fd/%d" % fd, (1000, 1000))
    print("utime ok", os.fstat(fd).st_mtime)
except OSError as e:
    print("utime", e.strerror)
os.close(fd)
PY
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "5 b'12345'" ]
    [ "${lines[1]}" = "8" ]
    [ "${lines[2]}" = "utime ok 1000.0" ]
    [ ! -e "$C/gone" ]
    [ "$(ls "$C")" = "" ]
}

@test "mmap(MAP_SHARED) of a cell opened O_RDWR reads and writes it; a reader meanwhile sees the old value whole (fsx F2)" {
    printf 'hello world' > "$C/q"
    # The writer runs in the background: a process it started would close
    # its descriptor at exec, and every close(2) commits.
    local ready="$BATS_TEST_TMPDIR/ready" go="$BATS_TEST_TMPDIR/go"
    python3 - "$C/q" "$ready" "$go" > "$BATS_TEST_TMPDIR/writer.out" 2>&1 <<'PY' &
import mmap, os, sys, time
q, ready, go = sys.argv[1:4]
fd = os.open(q, os.O_RDWR)
m = mmap.mmap(fd, 11)                       # MAP_SHARED, PROT_READ|PROT_WRITE
assert m[:] == b"hello world", m[:]
m[0:5] = b"HELLO"
m.flush()                                   # msync(MS_SYNC) is an fsync: committed
m.close()
os.ftruncate(fd, 16)                        # grown: the new bytes read as zeros
assert os.pread(fd, 16, 0) == b"HELLO world" + bytes(5)
os.pwrite(fd, b"!!!!!", 11)
open(ready, "w").close()
while not os.path.exists(go):
    time.sleep(0.02)
m = mmap.mmap(fd, 16)
assert m[11:16] == b"!!!!!", m[:]
m[0:1] = b"J"                               # no msync: the close sends it
m.close()
os.close(fd)
PY
    local writer=$!
    for _ in $(seq 500); do [ -e "$ready" ] && break; sleep 0.02; done
    # others read the committed value, whole; the kernel keeps one size
    # per file, so their stat shows the writer's
    local during size
    during=$(cat "$C/q")
    size=$(stat -c %s "$C/q")
    touch "$go"
    wait "$writer" || { cat "$BATS_TEST_TMPDIR/writer.out"; false; }
    [ "$during" = 'HELLO world' ]
    [ "$size" -eq 16 ]
    [ "$(cat "$C/q")" = 'JELLO world!!!!!' ]
    [ "$(stat -c %s "$C/q")" -eq 16 ]
}

@test "a closed O_RDWR writer whose release has not come does not hide a later write from stat" {
    # The child holds the O_RDWR file open after the parent's close, so the
    # kernel sends no RELEASE for it (as when a RELEASE is merely late).
    printf 'old value, long' > "$C/q"
    python3 - "$C/q" "$BATS_TEST_TMPDIR/go" <<'PY' &
import os, sys, time
q, go = sys.argv[1:3]
fd = os.open(q, os.O_RDWR)
os.pwrite(fd, b"OLD", 0)
os.set_inheritable(fd, True)
if os.fork() == 0:                  # holds fd, without exec (exec would close it)
    while not os.path.exists(go):
        time.sleep(0.02)
    os._exit(0)
os.close(fd)                        # the parent's close commits "OLD value, long"
PY
    local holder=$!
    wait "$holder"
    [ "$(cat "$C/q")" = 'OLD value, long' ]
    echo new > "$C/q"
    local size
    size=$(stat -c %s "$C/q")
    touch "$BATS_TEST_TMPDIR/go"
    [ "$(cat "$C/q")" = new ]
    [ "$size" -eq 4 ]
}

@test "descriptors of one process see one file: writes through one are read through another, and all are kept (fsx F3)" {
    printf old > "$C/q"
    run python3 - "$C/q" <<'PY'
import os, sys
q = sys.argv[1]
a = os.open(q, os.O_RDWR); os.pwrite(a, b"NEWNEW", 0)
b = os.open(q, os.O_RDONLY)
print(os.fstat(b).st_size, os.pread(b, 100, 0))
c = os.open(q, os.O_RDWR); os.pwrite(c, b"XX", 0); os.close(c)
print(os.pread(a, 100, 0), os.pread(b, 100, 0))
os.ftruncate(a, 4)
print(os.fstat(b).st_size, os.pread(b, 100, 0))
d = os.open(q, os.O_WRONLY | os.O_APPEND); os.write(d, b"++"); os.close(d)
print(os.fstat(a).st_size, os.pread(a, 100, 0))
os.close(b); os.close(a)
PY
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "6 b'NEWNEW'" ]
    [ "${lines[1]}" = "b'XXWNEW' b'XXWNEW'" ]
    [ "${lines[2]}" = "4 b'XXWN'" ]
    [ "${lines[3]}" = "6 b'XXWN++'" ]
    [ "$(cat "$C/q")" = 'XXWN++' ]
    # an O_TRUNC open truncates the shared value
    run python3 - "$C/q" <<'PY'
import os, sys
q = sys.argv[1]
a = os.open(q, os.O_RDWR); os.pwrite(a, b"abc", 0)
e = os.open(q, os.O_WRONLY | os.O_TRUNC)
print(os.fstat(a).st_size, os.pread(a, 100, 0))
os.write(e, b"z"); os.close(e)
print(os.pread(a, 100, 0))
os.close(a)
PY
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "0 b''" ]
    [ "${lines[1]}" = "b'z'" ]
    [ "$(cat "$C/q")" = z ]
}

@test "descriptors opened by two threads of one process see one file (fsx F3)" {
    printf old > "$C/q"
    run python3 - "$C/q" <<'PY'
import os, sys, threading
q = sys.argv[1]
opened, done, fds = threading.Event(), threading.Event(), []
def opener():                                     # a thread opens and writes,
    fds.append(os.open(q, os.O_RDWR))             # and lives on (a pool's thread)
    os.pwrite(fds[0], b"NEWNEW", 0)
    opened.set(); done.wait()
t = threading.Thread(target=opener); t.start(); opened.wait()
a = fds[0]
b = os.open(q, os.O_RDONLY)                       # the main thread
print(os.fstat(b).st_size, os.pread(b, 100, 0))
def third():
    c = os.open(q, os.O_RDWR); os.pwrite(c, b"XX", 0); os.close(c)
u = threading.Thread(target=third); u.start(); u.join()
print(os.pread(a, 100, 0))
done.set(); t.join()
os.close(b); os.close(a)
PY
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "6 b'NEWNEW'" ]
    [ "${lines[1]}" = "b'XXWNEW'" ]
    [ "$(cat "$C/q")" = 'XXWNEW' ]
}

@test "while one process writes a cell, other processes read the committed value whole, and their writes stay their own (F3)" {
    printf 'old value' > "$C/q"
    # The writer runs in the background: a process it started would close
    # its descriptor at exec, and every close(2) commits.
    local ready="$BATS_TEST_TMPDIR/ready" go="$BATS_TEST_TMPDIR/go"
    python3 - "$C/q" "$ready" "$go" > "$BATS_TEST_TMPDIR/writer.out" 2>&1 <<'PY' &
import os, sys, time
q, ready, go = sys.argv[1:4]
a = os.open(q, os.O_RDWR)
os.pwrite(a, b"NEW", 0)
os.ftruncate(a, 5)
b = os.open(q, os.O_RDONLY)
assert os.pread(b, 100, 0) == b"NEW v", os.pread(b, 100, 0)
open(ready, "w").close()
while not os.path.exists(go):
    time.sleep(0.02)
assert os.pread(a, 100, 0) == b"NEW v", os.pread(a, 100, 0)   # its own value
assert os.pread(b, 100, 0) == b"NEW v", os.pread(b, 100, 0)
os.close(b)
os.close(a)
PY
    local writer=$!
    for _ in $(seq 500); do [ -e "$ready" ] && break; sleep 0.02; done
    [ -e "$ready" ] || { kill "$writer"; cat "$BATS_TEST_TMPDIR/writer.out"; false; }
    local during other
    during=$(cat "$C/q")
    # another process's writer starts from the committed value, and its
    # close commits its own
    other=$(python3 -c 'import os,sys; f=os.open(sys.argv[1], os.O_RDWR); print(os.pread(f, 100, 0)); os.pwrite(f, b"CHILD", 4); os.close(f)' "$C/q")
    local after_other
    after_other=$(cat "$C/q")
    touch "$go"
    wait "$writer" || { cat "$BATS_TEST_TMPDIR/writer.out"; false; }
    [ "$during" = 'old value' ]
    [ "$other" = "b'old value'" ]
    [ "$after_other" = 'old CHILD' ]
    # the last close wins: what the writer wrote and truncated, merged into
    # the other's value (cellfs(1), WRITING)
    [ "$(cat "$C/q")" = 'NEW C' ]
}
