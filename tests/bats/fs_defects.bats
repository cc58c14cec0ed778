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
