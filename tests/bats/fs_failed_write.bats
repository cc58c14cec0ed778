#!/usr/bin/env bats
# A write that fails (EFBIG above -o max_value) changes nothing (cellfs(1),
# WRITING) - also not the row directory the cell was written in: a row
# made with mkdir stays, as it does when its last cell is removed.

load helpers/mount

setup() {
    fs_setup -o max_value=1000
}

teardown() {
    fs_teardown
}

@test "a failed write into a row made with mkdir leaves the row and family directories" {
    T="$MNT/default/t"
    mkdir "$T"
    mkdir -p "$T/r/cf"
    head -c 2000 /dev/urandom > "$FS_TMP/big"
    run dd if="$FS_TMP/big" of="$T/r/cf/q" bs=4k status=none
    echo "$output"
    [ "$status" -ne 0 ]
    [[ "$output" == *"File too large"* ]]
    [ -d "$T/r/cf" ]
    [ ! -e "$T/r/cf/q" ] || [ ! -s "$T/r/cf/q" ]
    # The same name takes a value that fits.
    echo small > "$T/r/cf/q"
    [ "$(cat "$T/r/cf/q")" = small ]
}
