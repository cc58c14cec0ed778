#!/usr/bin/env bats
# cellsh: the general and administrative commands of the HBase 2 shell —
# status in its three forms, version, whoami, table_help, list and
# list_namespace with Java-style regular expressions, alter's family
# deletion, truncate and truncate_preserve.

load helpers/cellsh

setup() { cellsh_setup; }
teardown() { cellsh_teardown; }

@test "status 'summary' (the default): one local server, one region per table" {
    backend_needs store_stats
    cellsh_e "create 't1', 'f'" "create 't2', 'f', 'g'" "status" "status 'summary'"
    expect_status 0
    expect_output <<'EOF'
Created table t1
Created table t2
1 active master, 0 backup masters, 1 servers, 0 dead, 2.0000 average load
1 active master, 0 backup masters, 1 servers, 0 dead, 2.0000 average load
EOF
}

@test "status 'simple' and 'detailed' show the store's figures" {
    backend_needs namespaces store_stats
    cellsh_e "create_namespace 'ns'" "create 't1', 'f'" "create 'ns:t2', 'f', 'g'"
    expect_status 0
    cellsh_e "put 't1', 'r', 'f:q', 'v'" "status 'simple'"
    expect_status 0
    expect_line "^active master:  .+:0 [0-9]+$"
    expect_line "^0 backup masters$"
    expect_line "^1 live servers$"
    expect_line "^    .+:0 [0-9]+$"
    expect_line "^        numberOfOnlineRegions=2, numberOfStores=3, numberOfStorefiles=[0-9]+, diskBytes=[0-9]+, memstoreBytes=[1-9][0-9]*, blockCacheBytes=[0-9]+, flushes=[0-9]+, compactions=[0-9]+, lastSequenceId=[1-9][0-9]*$"
    expect_line "^0 dead servers$"
    expect_line "^Aggregate load: 0, regions: 2$"
    cellsh_e "put 't1', 'r2', 'f:q', 'v'" "flush 't1'" "status 'simple'"
    expect_status 0
    expect_line "numberOfStorefiles=[1-9][0-9]*, .*flushes=[1-9]"
    cellsh_e "disable 't1'" "status 'detailed'"
    expect_status 0
    expect_line "^version [0-9]+\.[0-9]+\.[0-9]+$"
    expect_line "^0 regionsInTransition$"
    expect_line "^master coprocessors: \[\]$"
    expect_line '^        "ns:t2,,"$'
    expect_line "^            numberOfStores=2, families=f,g, state=ENABLED$"
    expect_line '^        "t1,,"$'
    expect_line "^            numberOfStores=1, families=f, state=DISABLED$"
}

@test "status 'replication' and unknown forms are errors" {
    cellsh_e "status 'replication'"
    expect_status 1
    expect_line "^ERROR: .*replication"
    cellsh_e "status 'verbose'"
    expect_status 1
    expect_line "^ERROR: .*'summary', 'simple' or 'detailed'"
}

@test "version and whoami" {
    cellsh_e "version" "whoami"
    expect_status 0
    expect_line "^[0-9]+\.[0-9]+\.[0-9]+, cellsh, libkvcore [0-9]+\.[0-9]+\.[0-9]+$"
    expect_line "^$(id -un) \(auth:SIMPLE\)$"
    expect_line "^    groups: $(id -gn)(, |$)"
}

@test "table_help explains table references and the commands that stand for them" {
    cellsh_e "table_help"
    expect_status 0
    expect_line "^Help for table-reference commands"
    expect_line "t = get_table 't'"
    expect_line "put 't', 'r', 'cf:q', 'v'"
}

@test "list and list_namespace take Java-style regular expressions" {
    backend_needs namespaces
    cellsh_script <<'EOF'
create_namespace 'ns1'
create_namespace 'other'
create 't1', 'f'
create 't22', 'f'
create 'tx', 'f'
create 'ns1:t3', 'f'
list 't\d+'
list 'ns1:.*'
list '(?i)T\w'
list_namespace 'ns\d'
list_namespace_tables 'ns1'
list_namespace_tables 'default'
EOF
    expect_status 0
    expect_output <<'EOF'
Created table t1
Created table t22
Created table tx
Created table ns1:t3
TABLE
t1
t22
2 row(s)
TABLE
ns1:t3
1 row(s)
TABLE
t1
tx
2 row(s)
NAMESPACE
ns1
1 row(s)
TABLE
t3
1 row(s)
TABLE
t1
t22
tx
3 row(s)
EOF
    cellsh_e "list_namespace_tables 'nope'"
    expect_status 1
    expect_line "^ERROR: Unknown namespace nope!"
}

@test "alter deletes a family with 'delete' => 'f' or METHOD => 'delete', and says it updated the region" {
    cellsh_script --continue <<'EOF'
create 't', 'a', 'b', 'c'
put 't', 'r', 'a:x', '1', 1
put 't', 'r', 'b:x', '2', 1
alter 't', 'delete' => 'a'
alter 't', NAME => 'b', METHOD => 'delete'
scan 't'
describe 't'
alter 't', 'delete' => 'c'
alter 't', 'delete' => 'nope'
alter 'nope', 'delete' => 'c'
EOF
    expect_status 1
    expect_output <<'EOF'
Created table t
Updating all regions with the new schema...
1/1 regions updated.
Done.
Updating all regions with the new schema...
1/1 regions updated.
Done.
ROW                                   COLUMN+CELL
0 row(s)
Table t is ENABLED
t
COLUMN FAMILIES DESCRIPTION
{NAME => 'c', BLOOMFILTER => 'ROW', IN_MEMORY => 'false', VERSIONS => '1', KEEP_DELETED_CELLS => 'FALSE', DATA_BLOCK_ENCODING => 'NONE', COMPRESSION => 'NONE', TTL => 'FOREVER', MIN_VERSIONS => '0', BLOCKCACHE => 'true', BLOCKSIZE => '65536', REPLICATION_SCOPE => '0'}
1 row(s)
ERROR: Table t should have at least one column family.
ERROR: Can't find family nope in table t
ERROR: Can't find a table: nope
EOF
}

@test "truncate and truncate_preserve print HBase 2's steps and keep the families" {
    backend_needs disable_tables
    cellsh_script <<'EOF'
create 't', {NAME => 'f', VERSIONS => 3}
put 't', 'r', 'f:q', 'v', 1
truncate_preserve 't'
count 't'
put 't', 'r', 'f:q', 'v', 1
disable 't'
truncate 't'
is_enabled 't'
count 't'
describe 't'
EOF
    expect_status 0
    expect_output <<'EOF'
Created table t
Truncating 't' table (it may take a while):
Disabling table...
Truncating table...
0 row(s)
Truncating 't' table (it may take a while):
Truncating table...
true
0 row(s)
Table t is ENABLED
t
COLUMN FAMILIES DESCRIPTION
{NAME => 'f', BLOOMFILTER => 'ROW', IN_MEMORY => 'false', VERSIONS => '3', KEEP_DELETED_CELLS => 'FALSE', DATA_BLOCK_ENCODING => 'NONE', COMPRESSION => 'NONE', TTL => 'FOREVER', MIN_VERSIONS => '0', BLOCKCACHE => 'true', BLOCKSIZE => '65536', REPLICATION_SCOPE => '0'}
1 row(s)
EOF
}

@test "help lists the general commands of HBase 2 and every command has usage and help" {
    cellsh_e "help 'general'"
    expect_status 0
    for c in status table_help version whoami processlist; do expect_line "^Command: $c$"; done
    local c
    for c in $("$CELLSH" "$STORE" -e help | sed -n 's/^  Commands: //p' | tr -d ','); do
        run "$CELLSH" "$STORE" -e "help '$c'"
        expect_status 0
        expect_line "^Usage: $c"
    done
}
