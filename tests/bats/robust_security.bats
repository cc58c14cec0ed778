#!/usr/bin/env bats
# Security (issue 11, "What to build" 7): a mount is private to its owner
# unless -o allow_other (another uid, here nobody, cannot even look);
# store files are created 0600 and directories 0700; names of tables,
# rows and files never reach outside the store directory; a second opener
# is refused, naming the holder. Needs root (to become nobody).

load helpers/mount

CELLSH="$BUILD/tools/cellsh"

as_nobody() {
    setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"
}

setup() {
    [ "$(id -u)" -eq 0 ] || skip "needs root to run commands as nobody"
    command -v setpriv >/dev/null || skip "setpriv is absent"
    FS_TMP=$(mktemp -d "${BATS_TMPDIR:-/tmp}/cellfs-sec.XXXXXX")
    # Open to everyone, so that a refusal comes from the mount itself.
    chmod 755 "$FS_TMP"
    STORE="$FS_TMP/store"
    MNT="$FS_TMP/mnt"
    mkdir -p "$MNT"
    chmod 755 "$MNT"
    FS_PID=""
}

teardown() {
    if [ -n "${FS_PID:-}" ]; then
        fs_unmount "$MNT"
        kill "$FS_PID" 2>/dev/null || true
        wait "$FS_PID" 2>/dev/null || true
    fi
    if [ -n "${FS_TMP:-}" ]; then
        if fs_is_mounted "$MNT"; then fusermount3 -u -z "$MNT" 2>/dev/null || true; fi
        rm -rf "$FS_TMP"
    fi
}

write_secret() {
    mkdir "$MNT/default/t"
    echo "{NAME => 'f'}" > "$MNT/default/t/.schema"
    mkdir -p "$MNT/default/t/r/f"
    echo secret > "$MNT/default/t/r/f/q"
}

@test "security: a mount is private: another uid can neither list nor read it" {
    fs_require_fuse
    fs_mount "$STORE" "$MNT" -o create
    write_secret
    run as_nobody cat "$MNT/default/t/r/f/q"
    echo "$output"
    [ "$status" -ne 0 ]
    [[ "$output" == *"Permission denied"* ]]
    [[ "$output" != *secret* ]]
    run as_nobody ls "$MNT"
    [ "$status" -ne 0 ]
    [[ "$output" == *"Permission denied"* ]]
    run as_nobody stat "$MNT/default"
    [ "$status" -ne 0 ]
}

@test "security: -o allow_other opens the mount to other uids" {
    fs_require_fuse
    fs_mount "$STORE" "$MNT" -o create
    write_secret
    fs_unmount "$MNT"
    wait "$FS_PID" 2>/dev/null || true
    fs_mount "$STORE" "$MNT" -o allow_other
    run as_nobody cat "$MNT/default/t/r/f/q"
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = secret ]
}

@test "security: store files are created 0600 and directories 0700" {
    (umask 022 && printf "create 't', 'f'\nput 't', 'r', 'f:q', 'v'\nflush 't'\n" | "$CELLSH" -n "$STORE" >/dev/null)
    local bad
    bad=$(find "$STORE" \( -type f ! -perm 600 \) -o \( -type d ! -perm 700 \) | sort)
    if [ -n "$bad" ]; then
        find "$STORE" -printf '%m %p\n'
        false
    fi
    run as_nobody cat "$STORE/MANIFEST"
    [ "$status" -ne 0 ]
}

@test "security: hostile table, namespace and row names never reach outside the store" {
    touch "$FS_TMP/marker"
    sleep 1
    run "$CELLSH" -c "$STORE" -e "create '../../evil', 'f'" -e "create_namespace '..'" \
        -e "create 'a/b', 'f'" -e "create '..:x', 'f'" -e "create 't', 'f'" \
        -e "put 't', '../../../evil-row', 'f:../../q', 'v'" -e "put 't', '/etc/passwd', 'f:q', 'v'"
    echo "$output"
    # Every bad name refused, the good table and its rows accepted.
    [[ "$output" == *"Created table t"* ]]
    [ "$(grep -c ERROR <<<"$output")" -ge 4 ]
    run "$CELLSH" "$STORE" -e "scan 't'"
    [[ "$output" == *"../../../evil-row"* ]]
    # Nothing new outside the store directory.
    run find "$FS_TMP" -mindepth 1 -newer "$FS_TMP/marker" ! -path "$STORE" ! -path "$STORE/*"
    echo "$output"
    [ -z "$output" ]
    [ ! -e "$FS_TMP/evil" ] && [ ! -e /evil ]
}

@test "security: names through the mount never reach outside the store" {
    fs_require_fuse
    fs_mount "$STORE" "$MNT" -o create
    touch "$FS_TMP/marker"
    sleep 1
    mkdir "$MNT/default/t"
    echo "{NAME => 'f'}" > "$MNT/default/t/.schema"
    # An escaped '/' is part of a row key, not a path.
    mkdir -p "$MNT/default/t/..%2F..%2Fevil/f"
    echo v > "$MNT/default/t/..%2F..%2Fevil/f/q"
    run mkdir "$MNT/default/..%2Fx"
    [ "$status" -ne 0 ]
    [ "$(cat "$MNT/default/t/..%2F..%2Fevil/f/q")" = v ]
    run find "$FS_TMP" -mindepth 1 -newer "$FS_TMP/marker" ! -path "$STORE" ! -path "$STORE/*" ! -path "$MNT" ! -path "$MNT/*" ! -name cellfs.log
    echo "$output"
    [ -z "$output" ]
}

@test "security: a second opener is refused, naming the holder" {
    fs_require_fuse
    fs_mount "$STORE" "$MNT" -o create
    run "$CELLSH" "$STORE" -e "list"
    echo "$output"
    [ "$status" -eq 3 ]
    [[ "$output" == *"$FS_PID"* ]]
}
