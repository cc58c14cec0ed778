# Which backend a bats test runs against, so that one test file serves the
# local engine and Cloud Bigtable alike (kvcore(3), "Locations and
# backends"). Set CELLFS_BACKEND:
#   local     (default) a store directory in the test's temp dir
#   bigtable  a fresh instance on Google's emulator at
#             $BIGTABLE_EMULATOR_HOST (scripts/bt_emulator.sh starts one)
# Helpers (cellsh.bash, and mount.bash's users) take the store location
# from backend_store; a test that needs what a backend lacks starts with
# backend_needs, which skips it there, naming the capability and why.

CELLFS_BACKEND="${CELLFS_BACKEND:-local}"

# backend_store DIR: the location of a new, empty store for one test: DIR
# itself for the local engine, or an instance of its own on the emulator
# (instances cost nothing there, so tests share nothing).
backend_store() {
    case "$CELLFS_BACKEND" in
        local) echo "$1" ;;
        bigtable) echo "bigtable://cellfs-test/t$$-${BATS_TEST_NUMBER:-0}-$RANDOM" ;;
        *) echo "unknown CELLFS_BACKEND '$CELLFS_BACKEND' (local or bigtable)" >&2; return 1 ;;
    esac
}

# What each backend lacks: the KV_CAP_* names of kvcore.h (lower case),
# plus what the tests need beyond them:
#   local_store       the store is a directory (its files, its lock, cellsh -r)
#   storage_settings  COMPRESSION, BLOOMFILTER, BLOCKSIZE, ... are kept
#   reversed_scans    REVERSED => true (Cloud Bigtable has it, the emulator not)
#   timestamp_rules   HBase's timestamps of increments and appends
#                     (max(previous + 1, now) by the client's clock)
#   store_stats       kv_store_stat's figures (cellsh status, df on a mount)
#   negative_timestamps  timestamps before 1970
#   expired_cells_kept  a cell past its TTL stays in the store until a
#                     compaction, so removing the TTL shows it again
#                     (Bigtable's garbage collection deletes it on a timer
#                     of its own, the emulator's within seconds)
backend_lacks() {
    case "$CELLFS_BACKEND" in
        bigtable)
            echo "delete_markers delete_family_version raw_scans namespaces flush compact" \
                 "snapshot_scans keep_deleted_cells min_versions new_version_behavior" \
                 "disable_tables exclusive local_store storage_settings timestamp_rules" \
                 "store_stats negative_timestamps table_attributes expired_cells_kept" \
                 "$([ -n "${BIGTABLE_EMULATOR_HOST:-}" ] && echo reversed_scans)" ;;
        *) echo "" ;;
    esac
}

# backend_has CAP: true when the backend has CAP.
backend_has() {
    case " $(backend_lacks) " in *" $1 "*) return 1 ;; esac
    return 0
}

# backend_needs CAP...: skips the test unless the backend has every CAP.
backend_needs() {
    local c
    for c in "$@"; do
        backend_has "$c" || skip "the $CELLFS_BACKEND backend lacks $c (see kvcore(3), \"Cloud Bigtable\")"
    done
}

# backend_require: fails the test when the chosen backend cannot be used.
backend_require() {
    if [ "$CELLFS_BACKEND" = bigtable ] && [ -z "${BIGTABLE_EMULATOR_HOST:-}" ]; then
        echo "CELLFS_BACKEND=bigtable needs BIGTABLE_EMULATOR_HOST (scripts/bt_emulator.sh)" >&2
        return 1
    fi
}

# The emulator's start/stop script.
BT_EMULATOR_SH="${BATS_TEST_DIRNAME:-.}/../../scripts/bt_emulator.sh"

# backend_start_emulator: for setup_file. With CELLFS_BACKEND=bigtable and
# no BIGTABLE_EMULATOR_HOST, starts Google's emulator for this file on a
# free loopback port (backend_stop_emulator stops it, by its pid), or
# skips the file, saying why, where the emulator is not installed.
backend_start_emulator() {
    [ "$CELLFS_BACKEND" = bigtable ] && [ -z "${BIGTABLE_EMULATOR_HOST:-}" ] || return 0
    export BT_EMU_DIR="$BATS_FILE_TMPDIR/emulator"
    local addr rc
    # (fd 3 closed: bats waits for whoever holds it, and the emulator lives on)
    addr=$("$BT_EMULATOR_SH" start "$BT_EMU_DIR" 2>"$BATS_FILE_TMPDIR/emulator.err" 3>&-)
    rc=$?
    if [ "$rc" -eq 77 ]; then
        skip "$(sed 's/^SKIP: //' "$BATS_FILE_TMPDIR/emulator.err")"
    fi
    if [ "$rc" -ne 0 ]; then
        cat "$BATS_FILE_TMPDIR/emulator.err" >&2
        return 1
    fi
    export BIGTABLE_EMULATOR_HOST="$addr"
}

# backend_stop_emulator: for teardown_file; stops what backend_start_emulator
# started (nothing when the emulator came from outside).
backend_stop_emulator() {
    if [ -n "${BT_EMU_DIR:-}" ]; then "$BT_EMULATOR_SH" stop "$BT_EMU_DIR"; fi
}
