#!/usr/bin/env bats
# cellck(1): a clean store checks clean (exit 0); a flipped byte in a sorted
# file, in the manifest and in the middle of a log is found, named with file
# and offset (exit 1); a torn log tail is a warning; --salvage copies what
# is readable into a new store and says what was lost; a store held by a
# writer is refused (exit 2); usage errors exit 2. Stores are built with
# cellsh; everything is local (no mount).

BUILD="${CELLFS_BUILD:-$BATS_TEST_DIRNAME/../../build}"
CELLCK="$BUILD/tools/cellck"
CELLSH="$BUILD/tools/cellsh"

setup() {
    [ -x "$CELLCK" ] || { echo "cellck not built: $CELLCK" >&2; return 1; }
    TEST_DIR="$(mktemp -d "${BATS_TMPDIR:-/tmp}/cellck-test.XXXXXX")"
    STORE="$TEST_DIR/store"
    HOLDER_PID=
}

teardown() {
    if [ -n "${HOLDER_PID:-}" ]; then
        kill "$HOLDER_PID" 2>/dev/null || true
        wait "$HOLDER_PID" 2>/dev/null || true
    fi
    [ -n "${TEST_DIR:-}" ] && rm -rf "$TEST_DIR"
}

# Two tables: t's rows r0..r9 in one sorted file, u's rows x0..x2 in
# another.
make_store() {
    local cmds=() i
    "$CELLSH" "$STORE" -e "create 't', 'f'" -e "create 'u', 'f'" >/dev/null
    for i in 0 1 2 3 4 5 6 7 8 9; do cmds+=(-e "put 't', 'r$i', 'f:q', 'value$i'"); done
    "$CELLSH" "$STORE" "${cmds[@]}" -e "flush 't'" >/dev/null
    cmds=()
    for i in 0 1 2; do cmds+=(-e "put 'u', 'x$i', 'f:q', 'other$i'"); done
    "$CELLSH" "$STORE" "${cmds[@]}" -e "flush 'u'" >/dev/null
}

# flip FILE OFFSET: xors one byte.
flip() {
    python3 - "$1" "$2" <<'PY'
import sys
p, off = sys.argv[1], int(sys.argv[2])
d = bytearray(open(p, 'rb').read())
d[off] ^= 0x5a
open(p, 'wb').write(d)
PY
}

# The sorted file holding table t (the first one written).
t_file() { ls "$STORE"/*.sst | sort | head -1; }

@test "cellck: a clean store is clean" {
    make_store
    run "$CELLCK" "$STORE"
    [ "$status" -eq 0 ]
    [[ "$output" == *"0 damaged"*"clean"* ]]
    [[ "$output" != *"damage:"* ]]
}

@test "cellck: a flipped byte in a sorted file is damage naming file and offset" {
    make_store
    f="$(t_file)"
    flip "$f" 3
    run "$CELLCK" "$STORE"
    [ "$status" -eq 1 ]
    name="$(basename "$f")"
    [[ "$output" == *"damage: $name @0: "*"$name"*"offset 0"* ]]
    [[ "$output" == *"DAMAGED"* ]]
}

@test "cellck: a truncated sorted file (footer gone) is damage" {
    make_store
    f="$(t_file)"
    truncate -s 40 "$f"
    run "$CELLCK" "$STORE"
    [ "$status" -eq 1 ]
    [[ "$output" == *"damage: $(basename "$f")"* ]]
}

@test "cellck: a damaged manifest is damage, and every sorted file is still checked" {
    make_store
    flip "$STORE/MANIFEST" 30
    run "$CELLCK" "$STORE"
    [ "$status" -eq 1 ]
    [[ "$output" == *"damage: MANIFEST"*"does not open"* ]]
    [[ "$output" == *"2 sorted files"* ]]
}

@test "cellck: a torn log tail is a warning, damage in the middle of a log is damage" {
    make_store
    # A log with records: the writer (each put synced) is killed before it
    # closes.
    python3 - "$CELLSH" "$STORE" <<'PY'
import signal, subprocess, sys, time
p = subprocess.Popen([sys.argv[1], '-s', '-n', sys.argv[2]], stdin=subprocess.PIPE,
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
for i in range(8):
    p.stdin.write(("put 't', 'L%d', 'f:q', 'logged-value-%d'\n" % (i, i)).encode())
p.stdin.flush()
time.sleep(2)
p.send_signal(signal.SIGKILL)
p.wait()
PY
    log="$(ls -S "$STORE"/*.log | head -1)"
    size=$(stat -c %s "$log")
    [ "$size" -gt 100 ]
    cp "$log" "$TEST_DIR/log.saved"
    truncate -s $((size - 3)) "$log"
    run "$CELLCK" "$STORE"
    [ "$status" -eq 0 ]
    [[ "$output" == *"warning: $(basename "$log") @"*"torn"* ]]
    cp "$TEST_DIR/log.saved" "$log"
    flip "$log" $((size / 2))
    run "$CELLCK" "$STORE"
    [ "$status" -eq 1 ]
    [[ "$output" == *"damage: $(basename "$log") @"*"offset"* ]]
    # Such a store does not open, but a salvage keeps what is before the
    # damage and says what is lost.
    run "$CELLCK" --salvage "$STORE" "$TEST_DIR/new"
    [ "$status" -eq 1 ]
    [[ "$output" == *"lost: $(basename "$log") @"*"the rest of"* ]]
    run "$CELLSH" -r "$TEST_DIR/new" -e "count 't'"
    [ "$status" -eq 0 ]
    # r0..r9 from the sorted file and the logged rows before the damage
    # (about half of the 8), not the ones after it.
    [[ "$output" =~ (1[1-7])\ row ]]
}

@test "cellck --salvage: copies what is readable and says what was lost" {
    make_store
    f="$(t_file)"
    truncate -s 40 "$f"
    run "$CELLCK" --salvage "$STORE" "$TEST_DIR/new"
    [ "$status" -eq 1 ]
    [[ "$output" == *"lost: $(basename "$f") @-: "*"lost the whole file (10 entries"* ]]
    [[ "$output" == *"salvaged"*"lost: 1 (at least 10 entries)"* ]]
    run "$CELLCK" "$TEST_DIR/new"
    [ "$status" -eq 0 ]
    run "$CELLSH" -r "$TEST_DIR/new" -e "scan 'u'" -e "list"
    [ "$status" -eq 0 ]
    [[ "$output" == *"x0"*"other0"* ]]
    [[ "$output" == *"3 row(s)"* ]]
    [[ "$output" == *"t"*"u"* ]]
    # A clean store salvages with nothing lost.
    run "$CELLCK" --salvage "$TEST_DIR/new" "$TEST_DIR/new2"
    [ "$status" -eq 0 ]
    [[ "$output" == *"nothing"* ]]
    # The target must be new.
    run "$CELLCK" --salvage "$TEST_DIR/new" "$TEST_DIR/new2"
    [ "$status" -eq 2 ]
}

@test "cellck: a store held by a writer is refused; usage errors exit 2" {
    make_store
    mkfifo "$TEST_DIR/fifo"
    "$CELLSH" -n "$STORE" < "$TEST_DIR/fifo" >/dev/null 2>&1 &
    HOLDER_PID=$!
    exec 5>"$TEST_DIR/fifo"
    sleep 1
    run "$CELLCK" "$STORE"
    exec 5>&-
    [ "$status" -eq 2 ]
    [[ "$output" == *"writer"* ]]
    run "$CELLCK"
    [ "$status" -eq 2 ]
    run "$CELLCK" --bogus "$STORE"
    [ "$status" -eq 2 ]
    run "$CELLCK" "$TEST_DIR/nothing-here"
    [ "$status" -eq 2 ]
    run "$CELLCK" --help
    [ "$status" -eq 0 ]
    [[ "$output" == *"usage: cellck"* ]]
    run "$CELLCK" --version
    [ "$status" -eq 0 ]
}

# every_value_in STORE: every value make_store wrote (value0..9 of t,
# other0..2 of u) is in a scan of some table of STORE, read with cellsh.
every_value_in() {
    local tables t out="" i
    tables="$("$CELLSH" -r "$1" -e "list" | grep -v -e '^TABLE' -e 'row(s)' -e '^=>' | tr -d ' ')"
    for t in $tables; do out+="$("$CELLSH" -r "$1" -e "scan '$t'")"$'\n'; done
    for i in 0 1 2 3 4 5 6 7 8 9; do
        [[ "$out" == *"value=value$i"* ]] || { echo "value$i missing in $1: $out" >&2; return 1; }
    done
    for i in 0 1 2; do
        [[ "$out" == *"value=other$i"* ]] || { echo "other$i missing in $1: $out" >&2; return 1; }
    done
}

@test "cellck: a missing manifest is damage; --salvage puts every cell in lost_found" {
    make_store
    rm "$STORE/MANIFEST"
    run "$CELLCK" "$STORE"
    [ "$status" -eq 1 ]
    [[ "$output" == *"damage: MANIFEST @-: "*"missing"* ]]
    [[ "$output" == *"2 sorted files"* ]]
    run "$CELLCK" --salvage "$STORE" "$TEST_DIR/new"
    [ "$status" -eq 1 ]
    [[ "$output" == *"lost: MANIFEST"*"missing"* ]]
    [[ "$output" == *"lost_found"* ]]
    run "$CELLCK" "$TEST_DIR/new"
    [ "$status" -eq 0 ]
    run "$CELLSH" -r "$TEST_DIR/new" -e "list" -e "scan 'lost_found'"
    [ "$status" -eq 0 ]
    [[ "$output" == *"13 row(s)"* ]]
    every_value_in "$TEST_DIR/new"
}

@test "cellck --salvage: a flipped byte in the manifest keeps every catalog line that parses" {
    make_store
    cp "$STORE/MANIFEST" "$TEST_DIR/MANIFEST.saved"
    # In the snapshot's scalars: the catalog itself is whole.
    flip "$STORE/MANIFEST" 30
    run "$CELLCK" "$STORE"
    [ "$status" -eq 1 ]
    [[ "$output" == *"damage: MANIFEST @"*"line "* ]]
    run "$CELLCK" --salvage "$STORE" "$TEST_DIR/new"
    [ "$status" -eq 1 ]
    [[ "$output" == *"lost: MANIFEST @"*"line "* ]]
    run "$CELLSH" -r "$TEST_DIR/new" -e "count 't'" -e "count 'u'"
    [ "$status" -eq 0 ]
    [[ "$output" == *"10 row(s)"*"3 row(s)"* ]]
    every_value_in "$TEST_DIR/new"
    # In the record of table u: u is gone, its cells land in lost_found.
    cp "$TEST_DIR/MANIFEST.saved" "$STORE/MANIFEST"
    off=$(grep -bo 'table [0-9]* default u ' "$STORE/MANIFEST" | cut -d: -f1)
    flip "$STORE/MANIFEST" "$off"
    run "$CELLCK" "$STORE"
    [ "$status" -eq 1 ]
    [[ "$output" == *"damage: MANIFEST @"* ]]
    run "$CELLCK" --salvage "$STORE" "$TEST_DIR/new2"
    [ "$status" -eq 1 ]
    [[ "$output" == *"lost_found"* ]]
    run "$CELLSH" -r "$TEST_DIR/new2" -e "count 't'" -e "count 'lost_found'"
    [ "$status" -eq 0 ]
    [[ "$output" == *"10 row(s)"*"3 row(s)"* ]]
    every_value_in "$TEST_DIR/new2"
}

@test "cellck --salvage: a truncated manifest keeps its whole lines; unnamed files land in lost_found" {
    make_store
    size=$(stat -c %s "$STORE/MANIFEST")
    # Longest first: each cut shortens the file further.
    for cut in $( (grep -bo '^checksum' "$STORE/MANIFEST" | cut -d: -f1; echo $((size / 2)); echo 20) | sort -rn); do
        truncate -s "$cut" "$STORE/MANIFEST"
        run "$CELLCK" "$STORE"
        [ "$status" -eq 1 ]
        [[ "$output" == *"damage: MANIFEST @"* ]]
        rm -rf "$TEST_DIR/new"
        run "$CELLCK" --salvage "$STORE" "$TEST_DIR/new"
        [ "$status" -eq 1 ]
        [[ "$output" == *"lost: MANIFEST @"* ]]
        run "$CELLCK" "$TEST_DIR/new"
        [ "$status" -eq 0 ]
        every_value_in "$TEST_DIR/new"
    done
}

@test "cellck --salvage: a damaged edit of the manifest is left out, the edits after it are used" {
    # One session: the snapshot, then an edit per flush.
    local cmds=() i
    for i in 0 1 2 3 4; do cmds+=(-e "put 't', 'r$i', 'f:q', 'value$i'"); done
    cmds+=(-e "flush 't'")
    for i in 0 1 2; do cmds+=(-e "put 'u', 'x$i', 'f:q', 'other$i'"); done
    cmds+=(-e "flush 'u'")
    for i in 5 6 7 8 9; do cmds+=(-e "put 't', 'r$i', 'f:q', 'value$i'"); done
    cmds+=(-e "flush 't'")
    "$CELLSH" "$STORE" -e "create 't', 'f'" -e "create 'u', 'f'" "${cmds[@]}" >/dev/null
    [ "$(grep -c '^edit ' "$STORE/MANIFEST")" -ge 3 ]
    # A byte of the first edit's scalars.
    off=$(grep -bo '^edit 1$' "$STORE/MANIFEST" | cut -d: -f1)
    line=$(grep -n '^edit 1$' "$STORE/MANIFEST" | cut -d: -f1)
    flip "$STORE/MANIFEST" $((off + 10))
    run "$CELLCK" "$STORE"
    [ "$status" -eq 1 ]
    [[ "$output" == *"damage: MANIFEST @$off: "*"line $line (offset $off): edit checksum mismatch"* ]]
    run "$CELLCK" --salvage "$STORE" "$TEST_DIR/new"
    [ "$status" -eq 1 ]
    [[ "$output" == *"lost: MANIFEST @$off: "*"line $line (offset $off): edit checksum mismatch"* ]]
    run "$CELLSH" -r "$TEST_DIR/new" -e "count 't'" -e "count 'u'"
    [ "$status" -eq 0 ]
    [[ "$output" == *"10 row(s)"*"3 row(s)"* ]]
    every_value_in "$TEST_DIR/new"
}

# Long mode: CELLCK_DAMAGE_ITERATIONS=1000 bats tests/bats/cellck.bats
@test "cellck --salvage: random damage to the manifest loses no cell (fixed seed)" {
    run python3 "$BATS_TEST_DIRNAME/helpers/manifest_damage.py" "$BUILD" \
        "${CELLCK_DAMAGE_ITERATIONS:-12}" "${CELLCK_DAMAGE_SEED:-11}"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *"0 failures"* ]]
}
