#!/usr/bin/env bats
# `meson install` as a Debian user runs it: a fresh build of this tree
# installed into a prefix under a temp dir (the mount helper into that
# prefix's sbin instead of /sbin) must hold the programs, libkvcore shared
# (soname libkvcore.so.0, exporting exactly the functions kvcore.h declares)
# and static, kvcore.h, kvcore.pc, the man pages and mount(8)'s helper; a
# tiny program built with `pkg-config --cflags --libs kvcore` runs against
# it, shared and static; and the installed helper mounts a store as
# mount(8) calls it. The build is made once for the file (about a minute).

SRC="$BATS_TEST_DIRNAME/../.."

setup_file() {
    export PKG_TMP
    PKG_TMP="$(mktemp -d "${BATS_TMPDIR:-/tmp}/cellfs-package.XXXXXX")"
    export PREFIX="$PKG_TMP/prefix"
    meson setup "$PKG_TMP/build" "$SRC" --prefix="$PREFIX" -Dtests=false \
        -Dmount_helper_dir="$PREFIX/sbin" >"$PKG_TMP/setup.log" 2>&1 ||
        { cat "$PKG_TMP/setup.log" >&2; return 1; }
    meson install -C "$PKG_TMP/build" >"$PKG_TMP/install.log" 2>&1 ||
        { tail -40 "$PKG_TMP/install.log" >&2; return 1; }
}

teardown_file() {
    [ -n "${PKG_TMP:-}" ] && rm -rf "$PKG_TMP"
}

setup() {
    T="$(mktemp -d "$PKG_TMP/t.XXXXXX")"
    MNT=""
    LIBDIR="$(dirname "$(find "$PREFIX" -name kvcore.pc)")/.."
    export PKG_CONFIG_PATH="$LIBDIR/pkgconfig"
}

teardown() {
    if [ -n "$MNT" ] && awk -v d="$(realpath -m "$MNT")" '$2 == d { f = 1 } END { exit !f }' /proc/mounts; then
        fusermount3 -u "$MNT" 2>/dev/null || fusermount3 -uz "$MNT" 2>/dev/null || true
    fi
}

@test "meson install puts the programs, the library, the header, kvcore.pc, the man pages and the mount helper in place" {
    local f
    for f in bin/cellfs bin/cellsh bin/cellbench bin/cellck include/kvcore.h sbin/mount.fuse.cellfs \
             share/man/man1/cellfs.1 share/man/man1/cellsh.1 share/man/man1/cellbench.1 \
             share/man/man1/cellck.1 share/man/man3/kvcore.3; do
        [ -e "$PREFIX/$f" ] || { echo "missing $f" >&2; return 1; }
    done
    [ -x "$PREFIX/sbin/mount.fuse.cellfs" ]
    [ "$(readlink "$PREFIX/sbin/mount.cellfs")" = mount.fuse.cellfs ]
    [ -f "$LIBDIR/libkvcore.a" ]
    [ -L "$LIBDIR/libkvcore.so" ]
    [ "$(readlink "$LIBDIR/libkvcore.so.0")" = libkvcore.so.0.1.0 ]
    objdump -p "$LIBDIR/libkvcore.so.0" | grep -q 'SONAME *libkvcore.so.0$'
    "$PREFIX/bin/cellsh" --version | grep -q "0.1.0"
    MANPATH="$PREFIX/share/man" man -w kvcore | grep -q "man3/kvcore.3"
}

@test "libkvcore.so exports exactly the functions kvcore.h declares, nothing internal" {
    local declared exported
    declared="$(grep -E '^[a-z].*\bkv_[a-z0-9_]+ *\(' "$PREFIX/include/kvcore.h" |
        grep -oE '\bkv_[a-z0-9_]+ *\(' | tr -d ' (' | sort -u)"
    exported="$(nm -D --defined-only "$LIBDIR/libkvcore.so.0" | awk '$2 == "T" { print $3 }' |
        sed 's/@.*//' | sort -u)"
    [ "$(printf '%s\n' "$declared" | wc -l)" -gt 50 ]
    if [ "$declared" != "$exported" ]; then
        diff <(printf '%s\n' "$declared") <(printf '%s\n' "$exported") >&2
        return 1
    fi
}

write_program() {
    cat > "$T/tiny.c" <<'EOF'
#include <kvcore.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
    char err[256];
    kv_store *s;
    kv_store_options o = KV_STORE_OPTIONS_INIT;
    o.create_if_missing = true;
    if (argc != 2 || kv_store_open(&s, argv[1], &o, err, sizeof err) != KV_OK) {
        fprintf(stderr, "open: %s\n", argc == 2 ? err : "usage: tiny STORE");
        return 1;
    }
    kv_family_desc f = KV_FAMILY_DESC_INIT;
    snprintf(f.name, sizeof f.name, "f");
    kv_result *r = NULL;
    if (kv_table_create(s, "t", &f, 1) != KV_OK ||
        kv_put(s, "t", "row", 3, "f", "q", 1, KV_LATEST_TIMESTAMP, "hello", 5, NULL) != KV_OK ||
        kv_get(&r, s, "t", "row", 3, NULL) != KV_OK || !r || r->ncells != 1) {
        fprintf(stderr, "failed: %s\n", kv_store_errmsg(s));
        return 1;
    }
    printf("%.*s\n", (int)r->cells[0].value_len, (const char *)r->cells[0].value);
    kv_result_free(r);
    return kv_store_close(s) == KV_OK ? 0 : 1;
}
EOF
}

@test "a program built with pkg-config --cflags --libs kvcore runs against the installed shared library" {
    write_program
    # shellcheck disable=SC2046
    cc -std=c11 -Wall -Werror -o "$T/tiny" "$T/tiny.c" $(pkg-config --cflags --libs kvcore)
    run env LD_LIBRARY_PATH="$LIBDIR" "$T/tiny" "$T/store"
    [ "$status" -eq 0 ]
    [ "$output" = hello ]
    env LD_LIBRARY_PATH="$LIBDIR" ldd "$T/tiny" | grep -q "libkvcore.so.0 => $(realpath "$LIBDIR")"
    # and the store it wrote is one cellsh reads
    run "$PREFIX/bin/cellsh" "$T/store" -e "get 't', 'row'"
    [ "$status" -eq 0 ]
    [[ "$output" == *"value=hello"* ]]
}

@test "the same program links statically with pkg-config --static" {
    write_program
    local libs
    libs="$(pkg-config --static --libs kvcore | sed 's/-lkvcore//')"
    # shellcheck disable=SC2086
    cc -std=c11 -o "$T/tiny-static" "$T/tiny.c" $(pkg-config --cflags kvcore) "$LIBDIR/libkvcore.a" $libs
    ! ldd "$T/tiny-static" | grep -q libkvcore
    run "$T/tiny-static" "$T/store2"
    [ "$status" -eq 0 ]
    [ "$output" = hello ]
}

@test "the installed mount.fuse.cellfs mounts a store as mount(8) and fstab call it" {
    [ -c /dev/fuse ] || skip "/dev/fuse is absent"
    MNT="$T/mnt"
    mkdir "$MNT"
    "$PREFIX/bin/cellsh" "$T/store" -e "create 't', 'f'" -e "put 't', 'r1', 'f:q', 'v1'" >/dev/null
    # as mount(8) runs a helper for an fstab line "STORE MNT fuse.cellfs defaults,noauto,versions 0 0"
    "$PREFIX/sbin/mount.fuse.cellfs" "$T/store" "$MNT" -n -o defaults,noauto,_netdev,x-systemd.automount,versions
    awk -v d="$(realpath "$MNT")" '$2 == d && $3 == "fuse.cellfs" { f = 1 } END { exit !f }' /proc/mounts
    [ "$(cat "$MNT/default/t/r1/f/q")" = v1 ]
    ls "$MNT/default/t/r1/f" | grep -q '^q@'   # -o versions reached cellfs
    fusermount3 -u "$MNT"
    # -f (fake) does nothing; an unknown argument is refused
    "$PREFIX/sbin/mount.cellfs" "$T/store" "$MNT" -f -o ro
    ! awk -v d="$(realpath "$MNT")" '$2 == d { f = 1 } END { exit !f }' /proc/mounts
    run "$PREFIX/sbin/mount.fuse.cellfs" "$T/store" "$MNT" --bogus
    [ "$status" -eq 1 ]
    [[ "$output" == *"unexpected argument '--bogus'"* ]]
}
