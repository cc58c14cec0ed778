#!/usr/bin/env bats
# cellsh: the HBase shell reference session, catalog commands, the ways of
# running commands (script file, stdin, -e), help and timing lines.

load helpers/cellsh

setup() { cellsh_setup; }
teardown() { cellsh_teardown; }

@test "reference session: create, list, put, scan, get, disable, enable, drop" {
    backend_needs disable_tables
    cellsh_script <<'EOF'
create 'test', 'cf'
list 'test'
put 'test', 'row1', 'cf:a', 'value1'
put 'test', 'row2', 'cf:b', 'value2'
put 'test', 'row3', 'cf:c', 'value3'
scan 'test'
get 'test', 'row1'
disable 'test'
enable 'test'
disable 'test'
drop 'test'
list
EOF
    expect_status 0
    expect_output <<'EOF'
Created table test
TABLE
test
1 row(s)
ROW                                   COLUMN+CELL
 row1                                 column=cf:a, timestamp=TS, value=value1
 row2                                 column=cf:b, timestamp=TS, value=value2
 row3                                 column=cf:c, timestamp=TS, value=value3
3 row(s)
COLUMN                                CELL
 cf:a                                 timestamp=TS, value=value1
1 row(s)
TABLE
0 row(s)
EOF
}

@test "a new store path is created, and data persists across runs" {
    backend_needs local_store
    [ ! -e "$STORE" ]
    cellsh_e "create 't', 'f'" "put 't', 'r', 'f:q', 'v', 42"
    expect_status 0
    [ -d "$STORE" ]
    cellsh_e "get 't', 'r'"
    expect_status 0
    expect_output <<'EOF'
COLUMN                                CELL
 f:q                                  timestamp=42, value=v
1 row(s)
EOF
}

@test "commands from standard input, several per line, with comments and continuation lines" {
    run "$CELLSH" "$STORE" <<'EOF'
# a comment line
create 't', 'f'; put 't', 'r1', 'f:a', 'x', 1  # trailing comment
put 't',
    'r2', 'f:a', 'y', 2
scan 't', {
  LIMIT => 1
}
EOF
    expect_status 0
    expect_output <<'EOF'
Created table t
ROW                                   COLUMN+CELL
 r1                                   column=f:a, timestamp=1, value=x
1 row(s)
EOF
}

@test "describe prints HBase's format, alter changes and deletes families" {
    backend_needs storage_settings
    cellsh_script <<'EOF'
create 't', {NAME => 'f1', VERSIONS => 3, TTL => 86400, COMPRESSION => 'LZ4'}, 'f2'
describe 't'
alter 't', {NAME => 'f1', VERSIONS => 5}, {NAME => 'f3', BLOOMFILTER => 'ROWCOL'}
alter 't', 'delete' => 'f2'
disable 't'
describe 't'
EOF
    expect_status 0
    expect_output <<'EOF'
Created table t
Table t is ENABLED
t
COLUMN FAMILIES DESCRIPTION
{NAME => 'f1', BLOOMFILTER => 'ROW', IN_MEMORY => 'false', VERSIONS => '3', KEEP_DELETED_CELLS => 'FALSE', DATA_BLOCK_ENCODING => 'NONE', COMPRESSION => 'LZ4', TTL => '86400 SECONDS (1 DAY)', MIN_VERSIONS => '0', BLOCKCACHE => 'true', BLOCKSIZE => '65536', REPLICATION_SCOPE => '0'}
{NAME => 'f2', BLOOMFILTER => 'ROW', IN_MEMORY => 'false', VERSIONS => '1', KEEP_DELETED_CELLS => 'FALSE', DATA_BLOCK_ENCODING => 'NONE', COMPRESSION => 'NONE', TTL => 'FOREVER', MIN_VERSIONS => '0', BLOCKCACHE => 'true', BLOCKSIZE => '65536', REPLICATION_SCOPE => '0'}
2 row(s)
Updating all regions with the new schema...
1/1 regions updated.
Done.
Updating all regions with the new schema...
1/1 regions updated.
Done.
Table t is DISABLED
t
COLUMN FAMILIES DESCRIPTION
{NAME => 'f1', BLOOMFILTER => 'ROW', IN_MEMORY => 'false', VERSIONS => '5', KEEP_DELETED_CELLS => 'FALSE', DATA_BLOCK_ENCODING => 'NONE', COMPRESSION => 'LZ4', TTL => '86400 SECONDS (1 DAY)', MIN_VERSIONS => '0', BLOCKCACHE => 'true', BLOCKSIZE => '65536', REPLICATION_SCOPE => '0'}
{NAME => 'f3', BLOOMFILTER => 'ROWCOL', IN_MEMORY => 'false', VERSIONS => '1', KEEP_DELETED_CELLS => 'FALSE', DATA_BLOCK_ENCODING => 'NONE', COMPRESSION => 'NONE', TTL => 'FOREVER', MIN_VERSIONS => '0', BLOCKCACHE => 'true', BLOCKSIZE => '65536', REPLICATION_SCOPE => '0'}
2 row(s)
EOF
}

@test "exists, is_enabled, is_disabled, truncate" {
    cellsh_script <<'EOF'
create 't', 'f'
exists 't'
exists 'nope'
is_enabled 't'
is_disabled 't'
put 't', 'r', 'f:a', 'v'
truncate 't'
count 't'
is_enabled 't'
EOF
    expect_status 0
    expect_output <<'EOF'
Created table t
Table t does exist
Table nope does not exist
true
false
Truncating 't' table (it may take a while):
Disabling table...
Truncating table...
0 row(s)
true
EOF
}

@test "namespaces: create, describe, list, alter, drop" {
    backend_needs namespaces
    cellsh_script <<'EOF'
create_namespace 'ns1', {'owner' => 'alice'}
describe_namespace 'ns1'
alter_namespace 'ns1', {METHOD => 'set', 'team' => 'db'}
alter_namespace 'ns1', {METHOD => 'unset', NAME => 'owner'}
describe_namespace 'ns1'
create 'ns1:t', 'f'
create 't0', 'f'
list
list 'ns1:.*'
list_namespace
list_namespace_tables 'ns1'
disable 'ns1:t'
drop 'ns1:t'
drop_namespace 'ns1'
list_namespace 'ns.*'
EOF
    expect_status 0
    expect_output <<'EOF'
DESCRIPTION
{NAME => 'ns1', owner => 'alice'}
1 row(s)
DESCRIPTION
{NAME => 'ns1', team => 'db'}
1 row(s)
Created table ns1:t
Created table t0
TABLE
ns1:t
t0
2 row(s)
TABLE
ns1:t
1 row(s)
NAMESPACE
default
hbase
ns1
3 row(s)
TABLE
t
1 row(s)
NAMESPACE
0 row(s)
EOF
}

@test "a brace-less trailing hash and parenthesised calls work as in Ruby" {
    cellsh_script <<'EOF'
create 't', NAME => 'f', VERSIONS => 2
put('t', 'r', 'f:q', 'v', 7)
get('t', 'r')
EOF
    expect_status 0
    expect_output <<'EOF'
Created table t
COLUMN                                CELL
 f:q                                  timestamp=7, value=v
1 row(s)
EOF
}

@test "help lists every command group and explains single commands" {
    cellsh_e "help"
    expect_status 0
    for g in general ddl namespace dml tools transfer; do expect_line "Group name: $g"; done
    expect_line "Commands: .*create_namespace"
    cellsh_e "help 'scan'"
    expect_status 0
    expect_line "ROWPREFIXFILTER"
    cellsh_e "help 'dml'"
    expect_status 0
    expect_line "^Command: get_counter"
    cellsh_e "help 'nosuch'"
    expect_status 1
    expect_line "^ERROR: "
}

@test "timing lines in HBase 2's style, only with --timing (the default of interactive mode)" {
    cellsh_e "create 't', 'f'" "scan 't'"
    expect_status 0
    if printf '%s\n' "$output" | grep -q seconds; then false; fi
    run "$CELLSH" --timing "$STORE" -e "put 't', 'r', 'f:a', 'v'" -e "scan 't'" -e "get 't', 'nope'"
    expect_status 0
    # HBase 2: "N row(s)" alone, then "Took X.XXXX seconds" after every command
    output="$(printf '%s\n' "$output" | sed -E 's/[0-9]+\.[0-9]{4} seconds/X seconds/')"
    expect_output <<'EOF'
Took X seconds
ROW                                   COLUMN+CELL
 r                                    column=f:a, timestamp=TS, value=v
1 row(s)
Took X seconds
COLUMN                                CELL
0 row(s)
Took X seconds
EOF
    # a failed command is timed too
    run "$CELLSH" --timing "$STORE" -e "get 'nope', 'r'"
    expect_status 1
    expect_line "^ERROR: Unknown table nope!"
    expect_line "^Took [0-9]+\.[0-9]{4} seconds$"
}

@test "exit stops a script" {
    cellsh_script <<'EOF'
create 't', 'f'
exit
put 't', 'r', 'f:a', 'v'
EOF
    expect_status 0
    cellsh_e "count 't'"
    expect_output <<'EOF'
0 row(s)
EOF
}

@test "command-line usage errors exit 2" {
    run "$CELLSH"
    expect_status 2
    run "$CELLSH" "$STORE" "$TEST_DIR/no-such-script"
    expect_status 2
    run "$CELLSH" --bogus "$STORE"
    expect_status 2
    run "$CELLSH" --help
    expect_status 0
    expect_line "Usage: cellsh"
}

@test "interactive mode: prompts, continuation lines, timing, history file" {
    command -v script >/dev/null || skip "script(1) is needed to run cellsh on a terminal"
    printf "create 't', 'f'\nscan 't', {\nLIMIT => 1}\nbogus\nexit\n" > "$TEST_DIR/input"
    HOME="$TEST_DIR" TERM=dumb run script -qec "$CELLSH $STORE" /dev/null < "$TEST_DIR/input"
    expect_status 0
    # drop the terminal's carriage returns and any escape sequences
    output="$(printf '%s\n' "$output" | tr -d '\r' | sed 's/\x1b\[[?0-9;]*[a-zA-Z]//g')"
    expect_line "cellsh\(main\):001:0> create 't', 'f'"
    expect_line "^Created table t"
    expect_line "cellsh\(main\):002:1\* LIMIT => 1\}"
    expect_line "^0 row\(s\)"
    expect_line "^Took [0-9]+\.[0-9]{4} seconds"
    expect_line "^ERROR: Unknown command 'bogus'"
    grep -qx "LIMIT => 1}" "$TEST_DIR/.cellsh_history"
}
