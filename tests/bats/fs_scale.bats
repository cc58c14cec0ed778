#!/usr/bin/env bats
# cellfs: a table of 1,000,000 rows lists with `ls -f` while the daemon's
# memory stays bounded: VmRSS after the listing is at most 64 MiB above
# VmRSS before it (the store runs with an 8 MiB block cache; the listing
# itself keeps one open scan and one row key).

load helpers/mount

setup() {
    fs_require_fuse
    FS_TMP=$(mktemp -d "${BATS_TMPDIR:-/tmp}/cellfs-bats.XXXXXX")
    STORE="$FS_TMP/store"
    MNT="$FS_TMP/mnt"
    mkdir -p "$MNT"
    FS_PIDS=""
}

teardown() {
    fs_teardown
}

@test "ls -f of a 1,000,000-row table, with bounded daemon memory" {
    [ -x "$FILL" ]
    "$FILL" "$STORE" big 1000000
    fs_mount "$STORE" "$MNT" -o cache_size=8388608,write_buffer=8388608
    ls "$MNT/default" > /dev/null
    before=$(fs_daemon_rss "$FS_PID")
    n=$(ls -f "$MNT/default/big" | wc -l)
    after=$(fs_daemon_rss "$FS_PID")
    echo "rows listed: $n; VmRSS before ${before} KiB, after ${after} KiB" >&3
    # . and .. and .schema besides the rows
    [ "$n" -eq 1000003 ]
    [ "$after" -le $((before + 65536)) ]
    [ "$(cat "$MNT/default/big/r000999999/cf/q")" = "v" ]
}
