#!/usr/bin/env bats
# cellsh: the HBase 2 shell commands about regions, whole sets of tables
# and snapshots, as a store of one server with one region per table
# answers them: alter_async, alter_status, clone_table_schema, disable_all,
# enable_all, drop_all (with HBase's y/n question, answered on standard
# input), get_splits, list_regions, locate_region, processlist, balancer,
# compaction_state, split, get_table and the snapshot commands (errors that say why).

load helpers/cellsh

setup() { cellsh_setup; }
teardown() { cellsh_teardown; }

@test "alter_async changes the schema silently; alter_status says every region has it" {
    cellsh_e "create 't', 'f'" "alter_async 't', {NAME => 'f', VERSIONS => 4}, 'g'" \
        "alter_status 't'" "describe 't'"
    expect_status 0
    expect_output <<'EOF'
Created table t
1/1 regions updated.
Done.
Table t is ENABLED
t
COLUMN FAMILIES DESCRIPTION
{NAME => 'f', BLOOMFILTER => 'ROW', IN_MEMORY => 'false', VERSIONS => '4', KEEP_DELETED_CELLS => 'FALSE', DATA_BLOCK_ENCODING => 'NONE', COMPRESSION => 'NONE', TTL => 'FOREVER', MIN_VERSIONS => '0', BLOCKCACHE => 'true', BLOCKSIZE => '65536', REPLICATION_SCOPE => '0'}
{NAME => 'g', BLOOMFILTER => 'ROW', IN_MEMORY => 'false', VERSIONS => '1', KEEP_DELETED_CELLS => 'FALSE', DATA_BLOCK_ENCODING => 'NONE', COMPRESSION => 'NONE', TTL => 'FOREVER', MIN_VERSIONS => '0', BLOCKCACHE => 'true', BLOCKSIZE => '65536', REPLICATION_SCOPE => '0'}
2 row(s)
EOF
}

@test "alter_status, get_splits, list_regions, locate_region: usage lines and unknown tables" {
    expect_each_fails "alter_status" "alter_status 'nope'" "get_splits" "get_splits 'nope'" \
        "get_splits 't', 'x'" "list_regions" "list_regions 'nope'" "locate_region 'nope', 'r'" \
        "locate_region 't'" "alter_async 'nope', 'f'" "clone_table_schema 't'" \
        "clone_table_schema 'nope', 't2'" "processlist {}" "balancer 'x'" "split" \
        "compaction_state" "compaction_state 'nope'"
    run "$CELLSH" "$STORE" -e "get_splits"
    expect_output <<'EOF'
ERROR: wrong number of arguments (given 0, expected 1)
Usage: get_splits 'table'
EOF
    run "$CELLSH" "$STORE" -e "locate_region 't'"
    expect_output <<'EOF'
ERROR: wrong number of arguments (given 1, expected 2)
Usage: locate_region 'table', 'row'
EOF
    run "$CELLSH" "$STORE" -e "alter_status 'nope'"
    expect_output <<'EOF'
ERROR: Unknown table nope!
EOF
}

@test "clone_table_schema copies the families and their attributes, no cells" {
    cellsh_e "create 't', {NAME => 'f', VERSIONS => 3}, 'g'" "put 't', 'r', 'f:q', 'v'" \
        "clone_table_schema 't', 'c'" "describe 'c'" "scan 'c'" "count 't'"
    expect_status 0
    expect_output <<'EOF'
Created table t
Table c is ENABLED
c
COLUMN FAMILIES DESCRIPTION
{NAME => 'f', BLOOMFILTER => 'ROW', IN_MEMORY => 'false', VERSIONS => '3', KEEP_DELETED_CELLS => 'FALSE', DATA_BLOCK_ENCODING => 'NONE', COMPRESSION => 'NONE', TTL => 'FOREVER', MIN_VERSIONS => '0', BLOCKCACHE => 'true', BLOCKSIZE => '65536', REPLICATION_SCOPE => '0'}
{NAME => 'g', BLOOMFILTER => 'ROW', IN_MEMORY => 'false', VERSIONS => '1', KEEP_DELETED_CELLS => 'FALSE', DATA_BLOCK_ENCODING => 'NONE', COMPRESSION => 'NONE', TTL => 'FOREVER', MIN_VERSIONS => '0', BLOCKCACHE => 'true', BLOCKSIZE => '65536', REPLICATION_SCOPE => '0'}
2 row(s)
ROW                                   COLUMN+CELL
0 row(s)
1 row(s)
EOF
}

@test "clone_table_schema copies table attributes; an existing target is refused, untouched" {
    backend_needs table_attributes
    cellsh_e "create 't', 'f', {MAX_FILESIZE => '1000', METADATA => {'k' => 'v'}}" \
        "clone_table_schema 't', 'c', false" "describe 'c'"
    expect_status 0
    expect_line "^c, \{TABLE_ATTRIBUTES => \{MAX_FILESIZE => '1000', METADATA => \{'k' => 'v'\}\}\}$"
    cellsh_e "create 'other', 'x'" "clone_table_schema 't', 'other'"
    expect_status 1
    expect_line "^ERROR: Table already exists: other!$"
    cellsh_e "describe 'other'"
    expect_line "^\{NAME => 'x'"
    if printf '%s\n' "$output" | grep -q "NAME => 'f'"; then false; fi
    expect_each_fails "clone_table_schema 't', 'c2', 'maybe'"
}

@test "get_splits: one region, no split keys" {
    cellsh_e "create 't', 'f'" "get_splits 't'"
    expect_status 0
    expect_output <<'EOF'
Created table t
Total number of splits = 1

EOF
}

@test "list_regions shows the one region on this host, in HBase's table" {
    cellsh_e "create 't', 'f'" "list_regions 't'"
    expect_status 0
    local host
    host="$(hostname)"
    expect_line "^ +SERVER_NAME \|  REGION_NAME \|  START_KEY \|    END_KEY \|  SIZE \|   REQ \|   LOCALITY \|$"
    expect_line "^ -+ \| ------------ \| ---------- \| ---------- \| ----- \| ----- \| ---------- \|$"
    expect_line "^ +$host,0,[0-9]+ \|         t,,1 \|            \|            \|     0 \|     0 \|        1.0 \|$"
    expect_line "^ 1 rows$"
    cellsh_e "list_regions 't', '$host', ['REGION_NAME', 'start_key']" \
        "list_regions 't', {SERVER_NAME => 'no-such-host'}, ['REQ']" \
        "list_regions 't', {LOCALITY_THRESHOLD => '0.5'}, ['REQ']"
    expect_status 0
    expect_output <<'EOF'
  REGION_NAME |  START_KEY |
 ------------ | ---------- |
         t,,1 |            |
 1 rows
   REQ |
 ----- |
 0 rows
   REQ |
 ----- |
 0 rows
EOF
    run "$CELLSH" "$STORE" -e "list_regions 't', '', ['HOST']"
    expect_status 1
    expect_output <<'EOF'
ERROR: HOST is not a valid column. Possible values are SERVER_NAME, REGION_NAME, START_KEY, END_KEY, SIZE, REQ, LOCALITY.
EOF
    expect_each_fails "list_regions 't', '', 'SIZE'" "list_regions 't', {LOCALITY_THRESHOLD => '2.0'}" \
        "list_regions 't', {LOCALITY_THRESHOLD => 'x'}" "list_regions 't', {PORT => 1}"
}

@test "list_regions refuses a disabled table, as HBase does" {
    backend_needs disable_tables
    cellsh_e "create 't', 'f'" "disable 't'" "list_regions 't'"
    expect_status 1
    expect_line "^ERROR: Table t must be enabled.$"
}

@test "locate_region names this host and the table's one region, whatever the row" {
    cellsh_e "create 't', 'f'" "locate_region 't', 'a'" "locate_region 't', 'zzz'"
    expect_status 0
    local host
    host="$(hostname)"
    expect_line "^HOST {34}REGION$"
    [ "$(printf '%s\n' "$output" | grep -cE "^ $host:0 +\{ENCODED => [0-9]+, NAME => 't,,1', STARTKEY => '', ENDKEY => ''\}$")" -eq 2 ]
    [ "$(printf '%s\n' "$output" | grep -c "^1 row(s)$")" -eq 2 ]
}

@test "processlist: no tasks, in HBase's words; balancer ran; split is refused, saying why" {
    cellsh_e "create 't', 'f'" "processlist" "processlist 'rpc', 'somehost'" "balancer" \
        "balancer 'force'" "compaction_state 't'"
    expect_status 0
    printf '%s\n' "$output" | sed -E 's/as of: [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}$/as of: DATE/' > "$TEST_DIR/got"
    diff - "$TEST_DIR/got" <<'EOF'
Created table t
0 tasks as of: DATE
No general tasks currently running.
0 tasks as of: DATE
No rpc tasks currently running.
true
true
NONE
EOF
    run "$CELLSH" "$STORE" -e "split 't'"
    expect_status 1
    expect_output <<'EOF'
ERROR: cannot split t: a local table is one region, held by this process, and is never split (see cellsh(1))
EOF
    expect_each_fails "split 't', 'm'"
}

@test "disable_all, enable_all: list the matches, ask, act on y; n changes nothing" {
    backend_needs disable_tables
    cellsh_e "create 't1', 'f'" "create 't2', 'f'" "create 'u', 'f'"
    expect_status 0
    run "$CELLSH" "$STORE" - <<'EOF'
disable_all 't.*'
n
is_disabled 't1'
disable_all 't.*'
y
is_disabled 't1'
is_disabled 't2'
is_disabled 'u'
enable_all 't\d'
Yes
is_enabled 't2'
EOF
    expect_status 0
    expect_output <<'EOF'
t1
t2

Disable the above 2 tables (y/n)?
false
t1
t2

Disable the above 2 tables (y/n)?
2 tables successfully disabled
true
true
false
t1
t2

Enable the above 2 tables (y/n)?
2 tables successfully enabled
true
EOF
}

@test "drop_all drops the disabled matches and names the enabled ones it could not drop" {
    backend_needs disable_tables
    cellsh_e "create 'a1', 'f'" "create 'a2', 'f'" "create 'b', 'f'" "disable 'a1'"
    expect_status 0
    run "$CELLSH" "$STORE" - <<'EOF'
drop_all 'a.*'
y
list
drop_all 'zz.*'
EOF
    expect_status 0
    expect_output <<'EOF'
a1
a2

Drop the above 2 tables (y/n)?
1 tables successfully dropped
1 tables not dropped due to an exception: a2
TABLE
a2
b
2 row(s)
No tables matched the regex (?-mix:^zz.*$)
EOF
}

@test "disable_all without an answer (end of input) changes nothing and fails" {
    cellsh_e "create 't1', 'f'"
    run "$CELLSH" "$STORE" -e "disable_all 't.*'" < /dev/null
    expect_status 1
    expect_output <<'EOF'
t1

Disable the above 1 tables (y/n)?
ERROR: no answer to the question (end of input): no table disabled
EOF
    cellsh_e "is_enabled 't1'"
    expect_output <<'EOF'
true
EOF
    expect_each_fails "disable_all" "drop_all 'a', 'b'" "enable_all '('"
}

@test "snapshots: snapshot is refused saying why, none is listed, a named one does not exist" {
    cellsh_e "create 't', 'f'"
    run "$CELLSH" "$STORE" -c -e "list_snapshots" -e "list_snapshots 's.*'" \
        -e "list_table_snapshots 't', 's.*'" -e "snapshot 't', 's1'" -e "restore_snapshot 's1'" \
        -e "clone_snapshot 's1', 'c'" -e "delete_snapshot 's1'" -e "exists 'c'"
    expect_status 1
    expect_output <<'EOF'
SNAPSHOT                              TABLE + CREATION TIME
0 row(s)
SNAPSHOT                              TABLE + CREATION TIME
0 row(s)
SNAPSHOT                              TABLE + CREATION TIME
0 row(s)
ERROR: cannot snapshot t: the store has no point-in-time copy of a table (see SNAPSHOTS in cellsh(1)); export 'table', 'FILE' copies its cells
ERROR: Snapshot 's1' doesn't exist (cellsh takes no snapshots: see SNAPSHOTS in cellsh(1))
ERROR: Snapshot 's1' doesn't exist (cellsh takes no snapshots: see SNAPSHOTS in cellsh(1))
ERROR: Snapshot 's1' doesn't exist (cellsh takes no snapshots: see SNAPSHOTS in cellsh(1))
Table c does not exist
EOF
    expect_each_fails "snapshot 'nope', 's'" "snapshot 't'" "list_table_snapshots" \
        "delete_snapshot" "clone_snapshot 's1'"
}

@test "get_table explains that cellsh has no table references" {
    cellsh_e "create 't', 'f'" "get_table 't'"
    expect_status 1
    expect_output <<'EOF'
Created table t
ERROR: get_table: cellsh has no table references (no Ruby variables); give the table name first instead: put 't', 'row', 'f:q', 'v'; scan 't' (see table_help)
EOF
    expect_each_fails "get_table 'nope'" "get_table"
}

@test "help lists the new commands in HBase's groups" {
    run "$CELLSH" "$STORE" -e help
    expect_status 0
    expect_line "^  Commands: help, exit, quit, status, table_help, processlist, version, whoami$"
    expect_line "^  Group name: snapshots$"
    expect_line "^  Commands: snapshot, list_snapshots, list_table_snapshots, restore_snapshot, clone_snapshot, delete_snapshot$"
    expect_line "^  Commands: .*alter_async, alter_status, clone_table_schema, disable_all, enable_all, drop_all, get_table, list_regions, locate_region"
    expect_line "^  Commands: .*get_splits"
    expect_line "^  Commands: flush, compact, major_compact, balancer, compaction_state, split$"
    run "$CELLSH" "$STORE" -e "help 'get_splits'"
    expect_status 0
    expect_line "^Usage: get_splits 'table'$"
}
