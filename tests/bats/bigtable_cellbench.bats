#!/usr/bin/env bats
# cellbench --engines=bigtable: the kv workloads through a bigtable://
# location on Google's emulator, which this file starts on a free loopback
# port and stops by pid (skipped, saying so, where it is not installed).
# The figures are labelled the emulator's. No timing assertions.

CELLFS_BACKEND=bigtable
load helpers/backend

BUILD="${CELLFS_BUILD:-$BATS_TEST_DIRNAME/../../build}"
CELLBENCH="$BUILD/tools/cellbench"

setup_file() {
    backend_start_emulator
}

teardown_file() {
    backend_stop_emulator
}

setup() {
    [ -x "$CELLBENCH" ] || { echo "cellbench not built at $CELLBENCH" >&2; return 1; }
    TEST_DIR="$(mktemp -d "${BATS_TMPDIR:-/tmp}/cellbench-bt.XXXXXX")"
    export TMPDIR="$TEST_DIR"
}

teardown() {
    [ -n "${TEST_DIR:-}" ] && rm -rf "$TEST_DIR"
}

@test "every kv workload runs on the emulator beside kvcore, labelled as emulator figures" {
    run "$CELLBENCH" --engines=kvcore,bigtable --num 300
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [[ "${lines[0]}" == *"bigtable (EMULATOR at $BIGTABLE_EMULATOR_HOST, not the service)"* ]]
    for w in fillseq fillrandom overwrite readrandom readseq seekrandom; do
        n=$(printf '%s\n' "$output" | awk -v w="$w" '$1 == w && $2 == "bigtable" && $4 == "ops/s" && $3 + 0 > 0' | wc -l)
        [ "$n" -eq 1 ] || { echo "no single line for $w:"; echo "$output"; false; }
    done
    # both engines found the same keys
    [ "$(printf '%s\n' "$output" | awk '$1 == "readrandom" { print $NF, $(NF-3) }' | sort -u | wc -l)" -eq 1 ]
    [ -z "$(ls -A "$TEST_DIR")" ]
}

@test "without an emulator the engine refuses, saying how to start one" {
    BIGTABLE_EMULATOR_HOST= run "$CELLBENCH" --engines=bigtable --num 10
    [ "$status" -ne 0 ]
    [[ "$output" == *"Google's emulator only"*"bt_emulator.sh"* ]]
}
