#!/usr/bin/env bats
# cellbench: every workload on every engine prints one line with a positive
# rate, and --fs mounts cellfs and passthrough_ll, measures every file
# workload on them and a native directory, and unmounts. No timing
# assertions (SPEC section 5: performance is measured, never tested).

BUILD="${CELLFS_BUILD:-$BATS_TEST_DIRNAME/../../build}"
CELLBENCH="$BUILD/tools/cellbench"

setup() {
    [ -x "$CELLBENCH" ] || { echo "cellbench not built at $CELLBENCH (set CELLFS_BUILD)" >&2; return 1; }
    # cellbench's temp dirs go here, so that the test can see they are gone.
    TEST_DIR="$(mktemp -d "${BATS_TMPDIR:-/tmp}/cellbench-test.XXXXXX")"
    export TMPDIR="$TEST_DIR"
}

teardown() {
    # Never leave a mount behind, even when a test failed half-way.
    local m
    for m in $(awk -v d="$TEST_DIR" 'index($2, d) == 1 { print $2 }' /proc/mounts); do
        fusermount3 -u -z "$m" 2>/dev/null || true
    done
    [ -n "${TEST_DIR:-}" ] && rm -rf "$TEST_DIR"
}

# count_rate_lines WORKLOAD NAME: lines "WORKLOAD NAME RATE ops/s" with RATE > 0.
count_rate_lines() {
    printf '%s\n' "$output" | awk -v w="$1" -v n="$2" \
        '$1 == w && $2 == n && $4 == "ops/s" && $3 + 0 > 0 { c++ } END { print c + 0 }'
}

mounts_under_test_dir() {
    awk -v d="$TEST_DIR" 'index($2, d) == 1' /proc/mounts | wc -l
}

@test "all workloads on all engines: one line each with a positive rate, and peak-rss" {
    run "$CELLBENCH" --num 2000
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    for w in fillseq fillrandom overwrite readrandom readseq seekrandom; do
        for e in kvcore leveldb rocksdb; do
            [ "$(count_rate_lines "$w" "$e")" -eq 1 ] || { echo "no single line for $w $e:"; echo "$output"; false; }
        done
    done
    for e in kvcore leveldb rocksdb; do
        printf '%s\n' "$output" | grep -Eq "^peak-rss +$e +[0-9]+\.[0-9] MiB"
    done
    # Ratios name the other engines.
    printf '%s\n' "$output" | grep -Eq '^fillseq +kvcore .* x[0-9]+\.[0-9]{2} vs leveldb +x[0-9]+\.[0-9]{2} vs rocksdb'
    if printf '%s\n' "$output" | grep -q -e FAILED -e WARNING; then false; fi
    # Every engine read the same data.
    [ "$(printf '%s\n' "$output" | awk '$1 == "readrandom" { print $(NF-3) }' | sort -u | wc -l)" -eq 1 ]
    # The temporary databases are gone.
    [ -z "$(ls -A "$TEST_DIR")" ]
}

@test "deleterandom, readwrite90, the HBase-shaped workloads and --compression: every engine, with MB/s, percentiles and disk bytes" {
    run "$CELLBENCH" --num 2000 --compression lz4 \
        --benchmarks fillseq,deleterandom,readwrite90,widerow,versions,timerange,smallcell,checkandmutate
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    for w in deleterandom readwrite90 widerow versions timerange smallcell checkandmutate; do
        for e in kvcore leveldb rocksdb; do
            [ "$(count_rate_lines "$w" "$e")" -eq 1 ] || { echo "no single line for $w $e:"; echo "$output"; false; }
        done
    done
    printf '%s\n' "$output" | grep -q 'compression LZ4'
    printf '%s\n' "$output" | grep -Eq '^versions +kvcore .* MB/s +p50 +[0-9.]+ p99 +[0-9.]+ p99.9 +[0-9.]+ us +disk +[0-9.]+ MiB'
    # every engine found the newest version in range, and applied every check-and-put
    [ "$(printf '%s\n' "$output" | grep -Ec '^(versions|timerange) .*\(2000 of 2000 found')" -eq 6 ]
    [ "$(printf '%s\n' "$output" | grep -Ec '^checkandmutate .*\(2000 of 2000 applied')" -eq 3 ]
    # every engine found the small cell of each row read, beside its 64 KiB one
    [ "$(printf '%s\n' "$output" | grep -Ec '^smallcell .*\(2000 of 2000 found; beside a 64 KiB cell')" -eq 3 ]
}

@test "--encoding: kvcore's DATA_BLOCK_ENCODING, named in the header; DIFF files are smaller and read the same; a bad name is refused" {
    local none diff
    run "$CELLBENCH" --num 20000 --write-buffer-size 256K --engines kvcore --benchmarks fillrandom,readrandom
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    printf '%s\n' "$output" | grep -q 'DATA_BLOCK_ENCODING NONE'
    none="$(printf '%s\n' "$output" | awk '$1 == "readrandom" { print $(NF-3), $(NF-5) }')"
    run "$CELLBENCH" --num 20000 --write-buffer-size 256K --engines kvcore --benchmarks fillrandom,readrandom --encoding diff
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    printf '%s\n' "$output" | grep -q 'DATA_BLOCK_ENCODING DIFF'
    diff="$(printf '%s\n' "$output" | awk '$1 == "readrandom" { print $(NF-3), $(NF-5) }')"
    # the same rows found; fewer bytes on disk
    [ "${none%% *}" = "${diff%% *}" ] || { echo "found: $none / $diff"; false; }
    awk -v a="${none#* }" -v b="${diff#* }" 'BEGIN { exit !(b + 0 < a + 0) }' || { echo "disk MiB: $none / $diff"; false; }
    run "$CELLBENCH" --num 10 --encoding fast
    [ "$status" -ne 0 ]
    printf '%s\n' "$output" | grep -q -- "--encoding must be none, prefix or diff"
}

@test "--benchmarks and --engines choose and order; a read first loads the database" {
    run "$CELLBENCH" --num 500 --benchmarks readrandom,fillseq --engines rocksdb,kvcore
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [ "$(count_rate_lines readrandom kvcore)" -eq 1 ]
    [ "$(count_rate_lines fillseq rocksdb)" -eq 1 ]
    [ "$(printf '%s\n' "$output" | grep -c leveldb)" -eq 0 ]
    printf '%s\n' "$output" | grep -Eq '^readrandom +kvcore .*\(500 of 500 found\) \(after an untimed fillseq'
    # Lines come grouped by workload, engines in the order given.
    [ "$(printf '%s\n' "$output" | awk '$4 == "ops/s" { printf "%s/%s ", $1, $2 }')" = \
      "readrandom/rocksdb readrandom/kvcore fillseq/rocksdb fillseq/kvcore " ]
}

@test "--db keeps the databases in the directory given" {
    run "$CELLBENCH" --num 300 --benchmarks fillseq --db "$TEST_DIR/db"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [ -d "$TEST_DIR/db/kvcore" ] && [ -d "$TEST_DIR/db/leveldb" ] && [ -d "$TEST_DIR/db/rocksdb" ]
}

@test "--use-existing-db reads what an earlier run left in --db" {
    run "$CELLBENCH" --num 300 --benchmarks fillseq --db "$TEST_DIR/db"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    # 600 entries asked for, the 300 stored read: no fresh load
    run "$CELLBENCH" --num 600 --benchmarks readseq --db "$TEST_DIR/db" --use-existing-db
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    for e in kvcore leveldb rocksdb; do
        printf '%s\n' "$output" | grep -Eq "^readseq +$e .*\(300 entries\)\$"
    done
    run "$CELLBENCH" --num 300 --use-existing-db
    [ "$status" -eq 2 ]
    [[ "$output" == *"--use-existing-db needs --db"* ]]
}

@test "bad options: exit status 2 and a message" {
    run "$CELLBENCH" --engines kvcore,nosuch
    [ "$status" -eq 2 ]
    [[ "$output" == *"unknown engine 'nosuch'"* ]]
    run "$CELLBENCH" --benchmarks fillseq,fillfast
    [ "$status" -eq 2 ]
    [[ "$output" == *"unknown benchmark 'fillfast'"* ]]
    run "$CELLBENCH" --num 10x
    [ "$status" -eq 2 ]
    run "$CELLBENCH" --key-size 4
    [ "$status" -eq 2 ]
}

@test "--fs: every workload on native, cellfs and passthrough_ll, with ratios and peak memory; unmounted at the end" {
    [ -c /dev/fuse ] || skip "/dev/fuse is absent"
    run "$CELLBENCH" --fs --files 200 --rows 300 --pm-files 100 --pm-transactions 200
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    if printf '%s\n' "$output" | grep -q FAILED; then echo "$output"; false; fi
    # passthrough_ll is built from libfuse3-dev's examples when they are there.
    local pt=0
    [ -x "$BUILD/tools/passthrough_ll" ] && pt=1
    for w in create stat restat read reread overwrite unlink ls-l find rsync-out rsync-in postmark; do
        [ "$(count_rate_lines "$w" native)" -eq 1 ] || { echo "no native line for $w"; echo "$output"; false; }
        [ "$(count_rate_lines "$w" cellfs)" -eq 1 ] || { echo "no cellfs line for $w"; echo "$output"; false; }
        printf '%s\n' "$output" | grep -Eq "^$w +cellfs .* x[0-9]+\.[0-9]{2} vs native"
        if [ "$pt" -eq 1 ]; then
            [ "$(count_rate_lines "$w" passthrough_ll)" -eq 1 ]
            printf '%s\n' "$output" | grep -Eq "^$w +cellfs .* vs native +x[0-9]+\.[0-9]{2} vs passthrough_ll"
        fi
    done
    # The table workloads say how many entries they went through.
    printf '%s\n' "$output" | grep -Eq '^ls-l +cellfs .*\(300 rows in [0-9.]+ s\)'
    printf '%s\n' "$output" | grep -Eq '^rsync-in +cellfs .*\(300 cells in [0-9.]+ s\)'
    printf '%s\n' "$output" | grep -Eq '^postmark +cellfs .*\([0-9]+ created, [0-9]+ deleted, [0-9]+ read, [0-9]+ appended; pool of 100 in'
    printf '%s\n' "$output" | grep -Eq '^peak-rss +cellfs +[0-9]+\.[0-9] MiB'
    if [ "$pt" -eq 1 ]; then
        printf '%s\n' "$output" | grep -Eq '^peak-rss +cellfs +[0-9.]+ MiB +x[0-9]+\.[0-9]{2} vs passthrough_ll'
    else
        printf '%s\n' "$output" | grep -Eq '^passthrough_ll: not available'
    fi
    [ "$(mounts_under_test_dir)" -eq 0 ]
    [ -z "$(ls -A "$TEST_DIR")" ]
}

@test "--fs --benchmarks chooses workloads; one that needs files gets an untimed create first" {
    [ -c /dev/fuse ] || skip "/dev/fuse is absent"
    run "$CELLBENCH" --fs --files 50 --benchmarks read,unlink
    [ "$status" -eq 0 ] || { echo "$output"; false; }
    [ "$(printf '%s\n' "$output" | awk '$4 == "ops/s" { print $1 }' | sort -u | tr '\n' ' ')" = "read unlink " ]
    printf '%s\n' "$output" | grep -Eq '^read +cellfs .*\(after an untimed create\)'
    run "$CELLBENCH" --fs --benchmarks read,fsck
    [ "$status" -eq 2 ]
    [[ "$output" == *"unknown --fs benchmark 'fsck'"* ]]
    [ "$(mounts_under_test_dir)" -eq 0 ]
}

@test "--fs with a cellfs that cannot mount: native still measured, status 1, nothing left" {
    [ -c /dev/fuse ] || skip "/dev/fuse is absent"
    run "$CELLBENCH" --fs --files 50 --benchmarks create,read --cellfs /bin/false
    [ "$status" -eq 1 ]
    [[ "$output" == *"cellfs:         FAILED:"* ]]
    [ "$(count_rate_lines read native)" -eq 1 ]
    [ "$(mounts_under_test_dir)" -eq 0 ]
    [ -z "$(ls -A "$TEST_DIR")" ]
}

@test "--fs interrupted: the mount is removed" {
    [ -c /dev/fuse ] || skip "/dev/fuse is absent"
    "$CELLBENCH" --fs --files 1000000 --benchmarks create >"$BATS_TMPDIR/cellbench-int.$$" 2>&1 &
    local pid=$! i
    # Wait until the mount is there, then interrupt.
    for i in $(seq 1 100); do
        [ "$(mounts_under_test_dir)" -gt 0 ] && break
        sleep 0.1
    done
    [ "$(mounts_under_test_dir)" -gt 0 ]
    kill -INT "$pid"
    local st=0
    wait "$pid" || st=$?
    rm -f "$BATS_TMPDIR/cellbench-int.$$"
    [ "$st" -eq 130 ]
    [ "$(mounts_under_test_dir)" -eq 0 ]
    [ -z "$(ls -A "$TEST_DIR")" ]
}
