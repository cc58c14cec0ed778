#!/usr/bin/env bats
# cellsh on a terminal, driven through a pseudo-terminal as a user types:
# Ctrl-C drops the line being typed or stops the command running and never
# ends the shell; the history file grows line by line; Tab completes
# commands, tables and families.

load helpers/cellsh

PTY="$BATS_TEST_DIRNAME/helpers/pty_session.py"

setup() {
    cellsh_setup
    command -v python3 >/dev/null || skip "python3 is needed to drive a terminal"
}
teardown() { cellsh_teardown; }

# on_terminal STEP...: runs cellsh on STORE in a pseudo-terminal, one
# pty_session.py step per argument; the transcript lands in $output.
on_terminal() {
    printf '%s\n' "$@" > "$TEST_DIR/steps"
    HOME="$TEST_DIR" TERM=dumb run python3 "$PTY" "$TEST_DIR/steps" -- "$CELLSH" "$STORE"
}

@test "Ctrl-C drops the line being typed and an open statement, and the shell goes on" {
    on_terminal \
        'expect cellsh\(main\):001:0> $' \
        "send create 't', 'f'\\r" \
        'expect Took [0-9.]+ seconds\n.*cellsh\(main\):002:0> $' \
        "send put 't', 'r', 'f:q', 'typed'" \
        "expect 'typed'\$" \
        'send \x03' \
        'expect \^C\ncellsh\(main\):002:0> $' \
        "send scan 't', {\\r" \
        'expect cellsh\(main\):002:1\* $' \
        'send \x03' \
        'expect \^C\ncellsh\(main\):002:0> $' \
        "send scan 't'\\r" \
        'expect 0 row\(s\)\nTook' \
        'send exit\r' \
        'wait'
    expect_status 0
    expect_line "^exit status 0$"
    if printf '%s\n' "$output" | grep -q "value=typed\|^ERROR"; then false; fi
}

@test "Ctrl-C stops a running import, which says how far it got; what it said is in the table" {
    # The import reads a FIFO that this test holds open: after 1000 rows it
    # waits for more. Once the terminal has echoed ^C (so the signal is
    # sent), one more line lets the import see the Ctrl-C and stop.
    mkfifo "$TEST_DIR/rows.tsv"
    exec 7<>"$TEST_DIR/rows.tsv"
    seq 1 1000 | awk '{ printf "r%04d\tv\n", $1 }' >&7
    on_terminal \
        'expect 001:0> $' \
        "send create 't', 'f'\\r" \
        'expect 002:0> $' \
        "send import 't', '$TEST_DIR/rows.tsv', {COLUMNS => 'HBASE_ROW_KEY,f:a'}\\r" \
        'expect rows/s' \
        'send \x03' \
        'expect \^C' \
        "sh printf 'late\\tv\\n' > '$TEST_DIR/rows.tsv'" \
        'expect ERROR: import interrupted \(Ctrl-C\) at .*rows.tsv line [0-9]+: [0-9]+ row\(s\), [0-9]+ cell\(s\) before it were imported' \
        'expect 003:0> $' \
        "send count 't', INTERVAL => 100000000\\r" \
        'expect \n[0-9]+ row\(s\)\n' \
        'send exit\r' \
        'wait'
    exec 7>&-
    expect_status 0
    expect_line "^exit status 0$"
    local said counted
    said="$(printf '%s\n' "$output" | sed -nE 's/.*ERROR: import interrupted .* line [0-9]+: ([0-9]+) row\(s\).*/\1/p')"
    counted="$(printf '%s\n' "$output" | sed -nE 's/^([0-9]+) row\(s\)$/\1/p' | tail -1)"
    [ -n "$said" ] && [ "$said" = "$counted" ]
    [ "$said" -ge 1 ] && [ "$said" -le 1000 ]
}

@test "the history file grows with each line, so a shell that dies keeps it" {
    on_terminal \
        'expect 001:0> $' \
        'send list\r' \
        'expect 002:0> $' \
        "send create 'h', 'f'\\r" \
        'expect 003:0> $' \
        'kill' \
        'wait'
    expect_line "^killed by signal 9$"
    grep -qx "list" "$TEST_DIR/.cellsh_history"
    grep -qx "create 'h', 'f'" "$TEST_DIR/.cellsh_history"
}

@test "Tab completes command names, table names and column families" {
    on_terminal \
        'expect 001:0> $' \
        "send create 'mytable', 'cf', 'other'\\r" \
        'expect 002:0> $' \
        'send who\t' \
        'expect whoami $' \
        'send \r' \
        'expect \(auth:SIMPLE\)' \
        'expect 003:0> $' \
        "send describe 'myt\\t" \
        "expect describe 'mytable'\$" \
        'send \r' \
        'expect COLUMN FAMILIES DESCRIPTION' \
        'expect 004:0> $' \
        "send put 'mytable', 'r', 'c\\t" \
        "expect put 'mytable', 'r', 'cf:\$" \
        "send q', 'v'\\r" \
        'expect 005:0> $' \
        "send scan 'mytable', {COLUMNS => ['o\\t" \
        "expect \\['other:\$" \
        "send ']}\\r" \
        'expect 0 row\(s\)' \
        "send scan 'mytable'\\r" \
        'expect column=cf:q, timestamp=[0-9]+, value=v' \
        'send exit\r' \
        'wait'
    expect_status 0
    expect_line "^exit status 0$"
}

@test "disable_all asks at the terminal and takes the typed answer; Tab knows the new commands" {
    backend_needs disable_tables
    on_terminal \
        'expect 001:0> $' \
        "send create 'mytable', 'cf'\\r" \
        'expect 002:0> $' \
        'send disable_a\t' \
        'expect disable_all $' \
        "send 'my.*'\\r" \
        'expect Disable the above 1 tables \(y/n\)\?' \
        'send y\r' \
        'expect 1 tables successfully disabled' \
        'expect 003:0> $' \
        "send locate_region 'myt\\t" \
        "expect locate_region 'mytable'\$" \
        "send , 'r'\\r" \
        "expect NAME => 'mytable,,1'" \
        'expect 004:0> $' \
        "send is_disabled 'mytable'\\r" \
        'expect true' \
        'send exit\r' \
        'wait'
    expect_status 0
    expect_line "^exit status 0$"
}
