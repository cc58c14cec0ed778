#!/usr/bin/env bats
# Third-party filesystem testers on the mount (issue 8, fs3p): short fixed
# runs of fio, stress-ng, dbench, fs_mark and bonnie++ inside a family
# directory. Each test asserts the tool's exit status and then checks the
# data itself: checksums of what the tool left, compared before and after a
# remount (and fio's own verification re-run on the remounted store). The
# store has a small write buffer (64 KiB) so that flushes and compactions
# happen during the runs. A tool that is not installed skips its test
# (scripts/setup.sh installs them all).

load helpers/mount

setup() {
    fs_setup -o write_buffer=65536
    F="$MNT/default/t/r/cf"
    mkdir -p "$F"
}

teardown() {
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

# remount [options]: unmount MNT and mount the same store again.
remount() {
    fs_unmount "$MNT"
    fs_mount "$STORE" "$MNT" -o write_buffer=65536 "$@"
}

# remount_same: remount and check that every file in F has the bytes it had.
remount_same() {
    sums "$F" > "$FS_TMP/before"
    [ -s "$FS_TMP/before" ]
    remount "$@"
    sums "$F" > "$FS_TMP/after"
    diff "$FS_TMP/before" "$FS_TMP/after"
}

# fio_run NAME ARGS...: one fio job in F with crc32c verification of what it
# wrote (fatal); then, after a remount, fio's verification alone.
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

