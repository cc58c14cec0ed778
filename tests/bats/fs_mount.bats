#!/usr/bin/env bats
# cellfs: mounting from an fstab line, as cellfs(1) FSTAB documents, with
# util-linux mount -T and a private fstab (the real /etc/fstab is not
# touched). mount(8) runs root-only here: -T is refused to other users.

load helpers/mount

setup() {
    fs_setup_dirs
    [ "$(id -u)" -eq 0 ] || skip "mount -T with a private fstab needs root"
    MNT_ABS=$(realpath "$MNT")
    STORE_ABS=$(realpath -m "$STORE")
}

teardown() {
    fs_teardown
}

# wait_daemon_gone: waits (10 s) until no cellfs serves MNT_ABS any more.
wait_daemon_gone() {
    local i
    for i in $(seq 1 100); do
        fs_daemon_pid "$MNT_ABS" > /dev/null || return 0
        sleep 0.1
    done
    echo "the cellfs daemon of $MNT_ABS did not exit" >&2
    return 1
}

@test "fstab: PROGRAM#STORE of type fuse mounts with mount -T, with cellfs options" {
    printf '%s#%s %s fuse defaults,allow_other,_netdev,create,versions 0 0\n' \
        "$(realpath "$CELLFS")" "$STORE_ABS" "$MNT_ABS" > "$FS_TMP/fstab"
    mount -T "$FS_TMP/fstab" "$MNT"
    FS_PID=$(fs_daemon_pid "$MNT_ABS")
    FS_PIDS="$FS_PIDS $FS_PID"
    [ "$(awk -v d="$MNT_ABS" '$2 == d { print $1, $3 }' /proc/mounts)" = \
        "$STORE_ABS fuse.cellfs" ]
    T="$MNT/default/t"
    mkdir "$T"
    mkdir -p "$T/r/cf"
    printf "{NAME => 'cf', VERSIONS => '3'}\n" > "$T/.schema"
    printf 'a' > "$T/r/cf/q@100"
    printf 'b' > "$T/r/cf/q@200"
    # versions, from the fstab line, reached the daemon
    [ "$(ls "$T/r/cf")" = "$(printf 'q\nq@100\nq@200')" ]
    fusermount3 -u "$MNT"
    if fs_is_mounted "$MNT"; then false; fi
    wait_daemon_gone
    # the unmount closed the store: a plain mount sees what was written
    fs_mount "$STORE" "$MNT"
    [ "$(cat "$T/r/cf/q")" = "b" ]
    [ "$(cat "$T/r/cf/q@100")" = "a" ]
}

@test "fstab: a fuse.cellfs line mounts when cellfs is in /bin/sh's default PATH" {
    # mount(8) runs mount.fuse3 without PATH, and mount.fuse3 starts the
    # program with /bin/sh: only the shell's default path is searched. Put
    # cellfs there in a private mount namespace, so nothing outside changes.
    mkdir "$FS_TMP/bin"
    ln -s "$(realpath "$CELLFS")" "$FS_TMP/bin/cellfs"
    printf '%s %s fuse.cellfs defaults,allow_other,_netdev,create 0 0\n' \
        "$STORE_ABS" "$MNT_ABS" > "$FS_TMP/fstab"
    run unshare -m --propagation private bash -ec '
        trap "fusermount3 -u -z \"\$3\" 2>/dev/null || true" EXIT
        mount --bind "$1" /usr/local/sbin
        mount -T "$2" "$3"
        awk -v d="$3" "\$2 == d { print \$3 }" /proc/mounts
        mkdir "$3/default/t"
        mkdir -p "$3/default/t/r/cf"
        echo from-fstab > "$3/default/t/r/cf/q"
        cat "$3/default/t/r/cf/q"
        fusermount3 -u "$3"
    ' _ "$FS_TMP/bin" "$FS_TMP/fstab" "$MNT_ABS"
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "$(printf 'fuse.cellfs\nfrom-fstab')" ]
    wait_daemon_gone
    fs_mount "$STORE" "$MNT"
    [ "$(cat "$MNT/default/t/r/cf/q")" = "from-fstab" ]
}
