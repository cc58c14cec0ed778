#!/usr/bin/env bats
# Third-party filesystem testers on the mount (issue 8, fs3p): short fixed
# runs of fio, stress-ng, dbench, fs_mark and bonnie++ inside a family
# directory. Each test asserts the tool's exit status and then checks the
# data itself: checksums of what the tool left, compared before and after a
# remount (and fio's own verification re-run on the remounted store). The
# store has a small write buffer (64 KiB) so that flushes and compactions
# happen during the runs. A tool that is not installed skips its test
# (scripts/setup.sh installs them all). THIRDPARTY_MOUNT_OPTS adds mount
# options (e.g. "-o versions", as fs3p ran it by hand).

load helpers/mount

setup() {
    # shellcheck disable=SC2086
    fs_setup -o write_buffer=65536 ${THIRDPARTY_MOUNT_OPTS:-}
    F="$MNT/default/t/r/cf"
    mkdir -p "$F"
}

teardown() {
    cd /      # a tool run from inside the mount must not keep it busy
    fs_teardown
}

# need TOOL: skip the test when TOOL is not installed.
need() {
    command -v "$1" >/dev/null || skip "$1 is not installed (scripts/setup.sh installs it)"
}

# sums DIR: "name md5" of every file in DIR, sorted.
sums() {
    (cd "$1" && find . -maxdepth 1 -type f -printf '%P\n' | LC_ALL=C sort | xargs -r -d '\n' md5sum)
}

# ncells DIR: the number of cells in DIR (q@ts names of -o versions left out).
ncells() {
    find "$1" -mindepth 1 -maxdepth 1 -printf '%f\n' | grep -cv '@-\{0,1\}[0-9][0-9]*$'
}

# remount [options]: unmount MNT and mount the same store again.
remount() {
    fs_unmount "$MNT"
    # shellcheck disable=SC2086
    fs_mount "$STORE" "$MNT" -o write_buffer=65536 ${THIRDPARTY_MOUNT_OPTS:-} "$@"
}

# remount_same: remount and check that every file in F has the bytes it had.
remount_same() {
    sums "$F" > "$FS_TMP/before"
    [ -s "$FS_TMP/before" ]
    remount "$@"
    sums "$F" > "$FS_TMP/after"
    diff "$FS_TMP/before" "$FS_TMP/after"
}

# stress_ok SECONDS ARGS...: stress-ng with ARGS in the namespace
# "default" of the mount, its output shown without the metrics lines,
# and exit status 0 asked for.
stress_ok() {
    local limit=$1; shift
    run timeout "$limit" stress-ng "$@" --temp-path "$MNT/default"
    echo "$output" | grep -vE 'metrc|info:' || true
    [ "$status" -eq 0 ]
}

# fio_run NAME ARGS...: one fio job in F that verifies what it wrote (the
# --verify method in ARGS; fatal); then, after a remount that checks every
# file's bytes, fio's verification alone.
fio_run() {
    local n=$1
    shift
    run timeout 60 fio --name="$n" --directory="$F" --verify_fatal=1 --verify_state_save=0 --do_verify=1 "$@"
    echo "$output" | grep -iE 'err=|verify|error' || true
    [ "$status" -eq 0 ]
    remount_same
    run timeout 60 fio --name="$n" --directory="$F" --verify_fatal=1 --verify_state_save=0 --do_verify=1 --verify_only "$@"
    echo "$output" | grep -iE 'err=|verify|error' || true
    [ "$status" -eq 0 ]
}

@test "fio: psync random writes, then random read-write, crc32c verified before and after a remount" {
    need fio
    fio_run psync --ioengine=psync --rw=randwrite --bs=4k --size=4m --verify=crc32c
    fio_run randrw --ioengine=psync --rw=randrw --bs=4k --size=2m --verify=crc32c
}

@test "fio: sync engine with fsync and fdatasync, md5 verified before and after a remount" {
    need fio
    fio_run fsync --ioengine=sync --rw=randwrite --bs=4k --size=2m --fsync=7 --verify=md5
    fio_run fdatasync --ioengine=sync --rw=write --bs=16k --size=2m --fdatasync=3 --verify=md5
}

@test "fio: posixaio and direct=1 random writes, verified before and after a remount" {
    need fio
    fio_run aio --ioengine=posixaio --iodepth=8 --rw=randwrite --bs=8k --size=4m --verify=crc32c
    fio_run direct --ioengine=psync --direct=1 --rw=randwrite --bs=4k --size=2m --verify=crc32c
}

@test "fio: io_uring, libaio and pvsync2 engines, verified before and after a remount" {
    need fio
    local e
    for e in io_uring libaio pvsync2; do
        fio --enghelp 2>/dev/null | grep -qx "[[:space:]]*$e" || continue
        fio_run "$e" --ioengine="$e" --iodepth=4 --rw=randwrite --bs=4k --size=1m --verify=crc32c
    done
}

@test "fio: the mmap engine with two jobs (processes) on one file: the second mapping gets ENODEV (documented), the first job's bytes stay" {
    need fio
    run timeout 60 fio --name=mm2 --directory="$F" --ioengine=mmap --rw=randwrite --bs=4k \
        --size=512k --numjobs=2 --filename=shared --offset_increment=512k \
        --verify=crc32c --verify_fatal=1 --verify_state_save=0 --do_verify=1
    echo "$output" | grep -E 'err=' || true
    [ "$status" -ne 0 ]
    [[ "$output" == *"error=No such device"* ]]
    remount_same
}

@test "fio: the mmap engine (maps, closes the descriptor, reopens to verify) writes and verifies" {
    need fio
    fio_run mmap --ioengine=mmap --rw=randwrite --bs=4k --size=2m --verify=crc32c
}

@test "fio: four jobs on one file and three jobs on eight files each, verified before and after a remount" {
    need fio
    fio_run shared --ioengine=psync --rw=randwrite --bs=4k --numjobs=4 --filename=shared \
        --offset_increment=512k --size=512k --verify=crc32c
    fio_run many --ioengine=psync --rw=write --bs=4k --size=1m --nrfiles=8 --numjobs=3 --verify=md5
}

@test "fio: appends (file_append) are all there after a remount" {
    need fio
    run timeout 60 fio --name=app --directory="$F" --ioengine=psync --rw=write --bs=4k \
        --size=1m --file_append=1 --verify=crc32c --verify_fatal=1 --verify_state_save=0 --do_verify=1
    [ "$status" -eq 0 ]
    [ "$(stat -c %s "$F/app.0.0")" -eq 1048576 ]
    remount_same
}

# seed_cells: a few cells in F with known bytes, for the checks after a tool.
seed_cells() {
    local i
    for i in 1 2 3 4 5; do
        head -c $((i * 7919)) /dev/urandom > "$F/seed$i"
    done
}

@test "stress-ng in a family directory: its stressors' mkdir gets EPERM, reported as such, and the cells stay" {
    need stress-ng
    seed_cells
    run timeout 30 stress-ng --hdd 1 --dir 1 --rename 1 --timeout 2 --verify --temp-path "$F"
    echo "$output"
    [ "$status" -ne 0 ]
    [[ "$output" == *"mkdir"*"errno=1 (Operation not permitted)"* ]]
    [ "$(ncells "$F")" -eq 5 ]
    remount_same
}

@test "stress-ng file stressors with --verify where the grammar allows a directory (a table's scratch files), then the cells survive a remount" {
    need stress-ng
    seed_cells
    # Each stressor makes its directory in the namespace (a table) and its
    # files beside that table's rows: scratch files, at most 32 at a time.
    stress_ok 40 --hdd 1 --hdd-bytes 1m --hdd-write-size 4k \
        --fallocate 1 --fallocate-bytes 1m --readahead 1 --readahead-bytes 1m \
        --seek 1 --seek-size 1m --sync-file 1 --sync-file-bytes 1m \
        --mmap 1 --mmap-file --mmap-bytes 1m --file-ioctl 1 --lockf 1 --flock 1 \
        --utime 1 --chmod 1 --timeout 3 --verify
    [ "$(ls "$MNT/default")" = t ]
    remount_same
}

@test "stress-ng directory stressors (dir, rename, then dentry) in a namespace, then nothing is left" {
    need stress-ng
    seed_cells
    # dentry fills the 32 scratch files a mount keeps (ENOSPC beyond, which
    # it tolerates): run alone, as another stressor would meet that limit.
    stress_ok 40 --dir 1 --rename 1 --timeout 3 --verify
    stress_ok 40 --dentry 1 --timeout 2 --verify
    [ "$(ls "$MNT/default")" = t ]
    remount_same
}

@test "stress-ng --link and --symlink: refused with EPERM (documented), the stressors skip, the mount stays right" {
    need stress-ng
    seed_cells
    run timeout 30 stress-ng --link 1 --symlink 1 --timeout 2 --temp-path "$MNT/default"
    echo "$output"
    [[ "$output" == *"link calls not allowed"* ]]
    [ "$(ls "$MNT/default")" = t ]
    run ln "$F/seed1" "$F/hard"
    [ "$status" -ne 0 ]
    [[ "$output" == *"Operation not permitted"* ]]
    run ln -s seed1 "$F/soft"
    [ "$status" -ne 0 ]
    [[ "$output" == *"Operation not permitted"* ]]
    remount_same
}

# dbench_tables N: tables client0..N-1 of namespace clients with the
# families of dbench's client.txt, whose paths \clients\clientK\~dmtmp\APP\f
# are namespace, table, row, family and cell.
dbench_tables() {
    local k
    mkdir -p "$MNT/clients"
    for k in $(seq 0 $(($1 - 1))); do
        mkdir "$MNT/clients/client$k"
        printf "{NAME => '%s'}\n" cf PARADOX PM WORDPRO EXCEL WORD COREL PWRPNT ACCESS SEED \
            > "$MNT/clients/client$k/.schema"
    done
}

@test "dbench: two clients of client.txt for 5 s (tables made beforehand, without its Deltree), the cells it leaves survive a remount" {
    need dbench
    local load=/usr/share/dbench/client.txt
    [ -f "$load" ] || skip "dbench's client.txt is not installed"
    dbench_tables 2
    # Deltree would drop the tables with their families (rmdir of a table).
    grep -v '^Deltree' "$load" > "$FS_TMP/client.txt"
    run timeout 60 dbench -c "$FS_TMP/client.txt" -D "$MNT" -t 5 --skip-cleanup 2
    echo "$output" | grep -vE 'MB/sec +(warmup|execute)' | tail -25
    [ "$status" -eq 0 ]
    [[ "$output" == *"Throughput"*"2 clients"* ]]
    [[ "$output" != *"ERROR"* ]]
    # The cells (files in the rows); files beside the rows (filler.*) are
    # scratch files kept until the unmount (cellfs(1)).
    (cd "$MNT" && find clients -path '*~dmtmp/*' -type f | LC_ALL=C sort | xargs -r -d '\n' md5sum) \
        > "$FS_TMP/before"
    [ "$(wc -l < "$FS_TMP/before")" -gt 20 ]
    remount
    (cd "$MNT" && find clients -path '*~dmtmp/*' -type f | LC_ALL=C sort | xargs -r -d '\n' md5sum) \
        > "$FS_TMP/after"
    diff "$FS_TMP/before" "$FS_TMP/after"
}

@test "fs_mark: create, write and fsync 150 files of 4 KiB with every -S sync mode, kept; each file whole after a remount" {
    need fs_mark
    local s
    cd "$F/.."     # fs_mark takes directory names of under 40 bytes
    for s in 0 1 2 3 4 5 6; do
        run timeout 60 fs_mark -d cf -n 150 -s 4096 -S "$s" -L 1 -k -l "$FS_TMP/fsmark.log"
        echo "$output" | grep -v '^#' || true
        [ "$status" -eq 0 ]
        [[ "$output" == *"150         4096"* ]]
    done
    cd "$FS_TMP"
    [ "$(ncells "$F")" -eq 1050 ]
    # fs_mark writes zeros: every file is 4096 of them.
    head -c 4096 /dev/zero | md5sum | cut -d' ' -f1 > "$FS_TMP/zero"
    remount_same
    [ "$(cut -d' ' -f1 "$FS_TMP/after" | sort -u)" = "$(cat "$FS_TMP/zero")" ]
    [ "$(grep -cv '@-\{0,1\}[0-9][0-9]*$' "$FS_TMP/after")" -eq 1050 ]
}

@test "fs_mark -D (subdirectories): mkdir in a family gets EPERM, fs_mark says so and fails, nothing is left" {
    need fs_mark
    cd "$F/.."
    run timeout 30 fs_mark -d cf -D 2 -n 10 -s 100 -S 0 -L 1 -l "$FS_TMP/fsmark.log"
    cd "$FS_TMP"
    echo "$output"
    [ "$status" -ne 0 ]
    [[ "$output" == *"mkdir"*"Operation not permitted"* ]]
    [ -z "$(ls -A "$F")" ]
}

@test "bonnie++: 16 MiB block write, rewrite, read and seeks (-f), the cells beside it intact after a remount" {
    need bonnie++
    seed_cells
    run timeout 60 bonnie++ -d "$F" -r 8 -s 16 -f -n 0 -u root
    echo "$output" | tail -5
    [ "$status" -eq 0 ]
    [[ "$output" == *",16M,"* ]]
    [[ "$output" != *"Can't"* ]]
    [ "$(ncells "$F")" -eq 5 ]    # its file removed
    remount_same
}

@test "bonnie++ -n (small files): its directory is refused with EPERM in a family, bonnie++ says so, nothing is left" {
    need bonnie++
    seed_cells
    run timeout 60 bonnie++ -d "$F" -s 0 -n 1 -u root
    echo "$output" | tail -5
    [ "$status" -ne 0 ]
    [[ "$output" == *"Can't make directory"* ]]
    grep -q "mkdir .*Bonnie.*: a family directory holds only cells" "$FS_TMP/cellfs.log"
    [ "$(ncells "$F")" -eq 5 ]
    remount_same
}

@test "stress-ng --filename (names of every byte, newlines included): it passes, and each log line stays one line" {
    need stress-ng
    seed_cells
    stress_ok 30 --filename 1 --timeout 2 --verify
    [ "$(ls "$MNT/default")" = t ]
    [ -s "$FS_TMP/cellfs.log" ]
    run grep -cav '^cellfs: ' "$FS_TMP/cellfs.log"
    echo "lines not starting with 'cellfs: ': $output"
    [ "$output" -eq 0 ]
    remount_same
}

@test "stress-ng --fstat on a family directory (--fstat-dir), and --fiemap skipped (not supported by FUSE): status 0, the cells unchanged" {
    need stress-ng
    seed_cells
    run timeout 30 stress-ng --fstat 1 --fstat-dir "$F" --timeout 2 --verify --metrics-brief
    echo "$output" | grep -vE 'info:' || true
    [ "$status" -eq 0 ]
    [[ "$output" == *"fstat "* ]]
    run timeout 30 stress-ng --fiemap 1 --fiemap-bytes 1m --timeout 2 --temp-path "$MNT/default"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *"FIEMAP not supported"* ]]
    [ "$(ls "$MNT/default")" = t ]
    remount_same
}
