#!/usr/bin/env bats
# cellsh: malformed commands give ERROR: lines and a non-zero exit status
# and leave the stored data as it was; --continue; the store lock.

load helpers/cellsh

setup() {
    cellsh_setup
    cellsh_e "create 't', {NAME => 'f', VERSIONS => 2}" "put 't', 'r', 'f:q', 'v', 5"
    expect_status 0
}
teardown() { cellsh_teardown; }

# The stored data, as a raw scan shows it (without raw reads, as every
# version shows it).
snapshot() {
    local raw="RAW => true, "
    backend_has raw_scans || raw=""
    "$CELLSH" "$STORE" -e "scan 't', {${raw}VERSIONS => 10}" -e "describe 't'" -e "list"
}

@test "each malformed command: ERROR line, exit 1, data untouched" {
    local before
    before="$(snapshot)"
    local cmds=(
        "put 't', 'r'"
        "put 't', 'r', 'f:q'"
        "put 't', 'r', 'nofamily:q', 'v'"
        "put 't', 'r', ':q', 'v'"
        "put 'nope', 'r', 'f:q', 'v'"
        "put 't', 'r', 'f:q', 'v', 'notanumber'"
        "put 't', 'r', 'f:q', 'v', 5, 6"
        "put 't', 'r', 'f:q', 'v', {TTL => 5}"
        "put 't' 'r', 'f:q', 'v'"
        "put 't', 'r', 'f:q', 'unterminated"
        "put t, 'r', 'f:q', 'v'"
        "scan 't', {FILTER => \"NoSuchFilter('x')\"}"
        "scan 't', {FILTER => \"PrefixFilter('x'\"}"
        "scan 't', {LIMT => 3}"
        "scan 't', {VERSIONS => 0}"
        "scan 't', {TIMERANGE => [5]}"
        "get 't', 'r', {TIMERANGE => [9, 2]}"
        "get 't', 'r', {COLUMN => 'nofamily'}"
        "create 't', 'f'"
        "create 'u'"
        "create 'u', {NAME => 'f', VERSIONS => 'many'}"
        "create 'u', {NAME => 'f', COMPRESSION => 'ZIP'}"
        "create 'u', {NAME => 'f', BOGUS => 1}"
        "create 'u', {NAME => 'f', VERSIONS => 1, MIN_VERSIONS => 2}"
        "create 'bad name', 'f'"
        "alter 't', {NAME => 'f', VERSIONS => 0}"
        "alter 't', 'delete' => 'nofamily'"
        "alter 't', {NAME => 'f', METHOD => 'frobnicate'}"
        "drop 'nope'"
        "drop_namespace 'default'"
        "drop_namespace 'nope'"
        "describe 'nope'"
        "incr 't', 'r', 'f:q'"
        "incr 't', 'r', 'f:q', 'one'"
        "delete 't', 'r', 'f'"
        "deleteall 't', {NOPE => 1}"
        "truncate 'nope'"
        "import 't', '$TEST_DIR/none.tsv', {COLUMNS => 'HBASE_ROW_KEY,f:a'}"
        "export 't', '$TEST_DIR/no/such/dir/x.json'"
        "nosuchcommand 't'"
        "list '('"
        "1234"
    )
    # Without namespaces of their own, a namespace comes with its first
    # table; tables that are never disabled can be dropped at once.
    backend_has namespaces && cmds+=("create 'nons:u', 'f'")
    backend_has disable_tables && cmds+=("drop 't'")
    expect_each_fails "${cmds[@]}"
    [ "$(snapshot)" = "$before" ]
}

@test "the filter parser's message appears in the ERROR line" {
    cellsh_e "scan 't', {FILTER => \"NoSuchFilter('x')\"}"
    expect_status 1
    expect_line "^ERROR: .*NoSuchFilter"
}

@test "messages follow the HBase shell" {
    cellsh_e "put 'nope', 'r', 'f:q', 'v'"
    expect_output <<'EOF'
ERROR: Unknown table nope!
EOF
    cellsh_e "create 't', 'f'"
    expect_output <<'EOF'
ERROR: Table already exists: t!
EOF
    cellsh_e "put 't', 'r', 'x:q', 'v'"
    expect_output <<'EOF'
ERROR: Unknown column family! Valid column names: f:*
EOF
    backend_has disable_tables || return 0   # (tables that are never disabled)
    cellsh_e "drop 't'"
    expect_output <<'EOF'
ERROR: Table t is enabled. Disable it first.
EOF
    cellsh_e "disable 't'" "get 't', 'r'"
    expect_status 1
    expect_output <<'EOF'
ERROR: Table t is disabled!
EOF
}

@test "a script stops at the first error; --continue runs the rest and still fails" {
    cellsh_script <<'EOF'
put 't', 'r2', 'f:q', 'a', 1
put 't', 'r3'
put 't', 'r4', 'f:q', 'b', 1
EOF
    expect_status 1
    expect_line "^ERROR: wrong number of arguments"
    cellsh_e "count 't'"
    expect_output <<'EOF'
2 row(s)
EOF
    cellsh_script --continue <<'EOF'
put 't', 'r3'
put 't', 'r4', 'f:q', 'b', 1
EOF
    expect_status 1
    cellsh_e "count 't'"
    expect_output <<'EOF'
3 row(s)
EOF
}

@test "a syntax error names the script line" {
    cellsh_script <<'EOF'
list

put 't', 'r' 'f:q', 'v'
EOF
    expect_status 1
    expect_line "^ERROR: .*script.hb:3: syntax error"
}

@test "an unclosed statement at the end of a script is an error" {
    cellsh_script <<'EOF'
scan 't', {LIMIT => 1,
EOF
    expect_status 1
    expect_line "^ERROR: .*unexpected end of input"
}

@test "a second process is refused while one holds the store, naming its pid and owner" {
    backend_needs local_store
    mkfifo "$TEST_DIR/fifo"
    "$CELLSH" "$STORE" < "$TEST_DIR/fifo" > "$TEST_DIR/holder.out" 2>&1 &
    HOLDER_PID=$!
    exec 9> "$TEST_DIR/fifo"
    echo "list" >&9
    # wait until the holder has the store open
    for _ in $(seq 1 100); do
        grep -q "row(s)" "$TEST_DIR/holder.out" 2>/dev/null && break
        sleep 0.1
    done
    run "$CELLSH" "$STORE" -e "list"
    expect_status 3
    expect_line "^ERROR: .*$HOLDER_PID"
    expect_line "^ERROR: .*cellsh"
    echo "exit" >&9
    exec 9>&-
    wait "$HOLDER_PID"
    HOLDER_PID=
    run "$CELLSH" "$STORE" -e "count 't'"
    expect_status 0
}

@test "SIGINT (Ctrl-C) stops a script: the command running says how far it got, the rest does not run, status 130" {
    mkfifo "$TEST_DIR/rows.tsv"
    exec 7<>"$TEST_DIR/rows.tsv"
    "$CELLSH" "$STORE" -e "create 'u', 'f'" \
        -e "import 'u', '$TEST_DIR/rows.tsv', {COLUMNS => 'HBASE_ROW_KEY,f:a'}" \
        -e "put 'u', 'after', 'f:a', 'x'" > "$TEST_DIR/out" 2>&1 &
    HOLDER_PID=$!
    # the table exists once the handler is in place and the import has begun
    for _ in $(seq 1 100); do
        grep -q "Created table u" "$TEST_DIR/out" && break
        sleep 0.1
    done
    kill -INT "$HOLDER_PID"
    printf 'r1\tv\nr2\tv\n' >&7
    local rc=0
    wait "$HOLDER_PID" || rc=$?
    HOLDER_PID=
    exec 7>&-
    [ "$rc" -eq 130 ]
    grep -q "^ERROR: import interrupted (Ctrl-C) at $TEST_DIR/rows.tsv line 1: 0 row(s), 0 cell(s) before it were imported" "$TEST_DIR/out"
    cellsh_e "count 'u'"
    expect_output <<'EOF'
0 row(s)
EOF
}
