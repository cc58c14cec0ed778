# Shared helpers of the cellsh bats tests: each test gets its own store in
# a fresh temp dir (or, with CELLFS_BACKEND=bigtable, an instance of its
# own on the emulator: helpers/backend.bash); scripts run through the built
# binary; outputs are compared with clock timestamps masked.
#
# The binary: $CELLFS_BUILD/tools/cellsh, default build/ in the source tree.
CELLSH="${CELLFS_BUILD:-$BATS_TEST_DIRNAME/../../build}/tools/cellsh"
source "${BASH_SOURCE[0]%/*}/backend.bash"

cellsh_setup() {
    if [ ! -x "$CELLSH" ]; then
        echo "cellsh not built: $CELLSH (set CELLFS_BUILD to the build dir)" >&2
        return 1
    fi
    backend_require || return 1
    TEST_DIR="$(mktemp -d "${BATS_TMPDIR:-/tmp}/cellsh-test.XXXXXX")"
    STORE="$(backend_store "$TEST_DIR/store")"
    HOLDER_PID=
}

cellsh_teardown() {
    if [ -n "${HOLDER_PID:-}" ]; then
        kill "$HOLDER_PID" 2>/dev/null || true
        wait "$HOLDER_PID" 2>/dev/null || true
    fi
    [ -n "${TEST_DIR:-}" ] && rm -rf "$TEST_DIR"
}

# cellsh_script [cellsh options...] <<'EOF' ... EOF
# Writes stdin to a script file and runs it (bats `run`: sets $status and
# $output, stderr merged into output).
cellsh_script() {
    cat > "$TEST_DIR/script.hb"
    run "$CELLSH" "$@" "$STORE" "$TEST_DIR/script.hb"
}

# cellsh_e 'command' ...: runs each argument with -e.
cellsh_e() {
    local args=()
    local c
    for c in "$@"; do args+=(-e "$c"); done
    run "$CELLSH" "$STORE" "${args[@]}"
}

# Replaces the store clock's timestamps (13+ digits) with TS; explicit small
# timestamps stay as they are.
mask_ts() {
    sed -E 's/timestamp=[0-9]{12,}/timestamp=TS/g'
}

# expect_output <<'EOF' ... EOF: $output, masked, must equal stdin.
expect_output() {
    local want got
    want="$(cat)"
    got="$(printf '%s\n' "$output" | mask_ts)"
    if [ "$got" != "$want" ]; then
        echo "---- expected" >&2
        printf '%s\n' "$want" >&2
        echo "---- got" >&2
        printf '%s\n' "$got" >&2
        echo "---- diff (expected -> got)" >&2
        diff <(printf '%s\n' "$want") <(printf '%s\n' "$got") >&2 || true
        return 1
    fi
}

# expect_status N
expect_status() {
    if [ "$status" -ne "$1" ]; then
        echo "exit status $status, expected $1; output:" >&2
        printf '%s\n' "$output" >&2
        return 1
    fi
}

# expect_line REGEX: some line of $output matches the extended regex.
expect_line() {
    if ! printf '%s\n' "$output" | grep -Eq -- "$1"; then
        echo "no line matches /$1/ in:" >&2
        printf '%s\n' "$output" >&2
        return 1
    fi
}

# expect_each_fails 'command' ...: each command, run alone with -e, must
# exit 1 with an ERROR: line.
expect_each_fails() {
    local c
    for c in "$@"; do
        run "$CELLSH" "$STORE" -e "$c"
        if [ "$status" -ne 1 ] || ! printf '%s\n' "$output" | grep -q '^ERROR: '; then
            echo "command: $c" >&2
            echo "status $status, output: $output" >&2
            return 1
        fi
    done
}
