#!/usr/bin/env bats
# cellsh: table attributes as an HBase 2 user sets them — alter with
# METHOD => 'table_att' and 'table_att_unset', the same keys at the end of
# create and of alter without METHOD, METADATA, describe's TABLE_ATTRIBUTES
# line, READONLY refusing writes, and all of it kept across runs
# (issue 10 rule 7).

load helpers/cellsh

setup() { cellsh_setup; }
teardown() { cellsh_teardown; }

FAMILY="{NAME => 'f', BLOOMFILTER => 'ROW', IN_MEMORY => 'false', VERSIONS => '1', KEEP_DELETED_CELLS => 'FALSE', DATA_BLOCK_ENCODING => 'NONE', COMPRESSION => 'NONE', TTL => 'FOREVER', MIN_VERSIONS => '0', BLOCKCACHE => 'true', BLOCKSIZE => '4096', REPLICATION_SCOPE => '0'}"

@test "alter table_att sets MAX_FILESIZE and READONLY; describe shows them; a new run keeps them" {
    backend_needs table_attributes
    cellsh_e "create 't', 'f'" "alter 't', METHOD => 'table_att', MAX_FILESIZE => '134217728', READONLY => 'true'"
    expect_status 0
    cellsh_e "describe 't'"
    expect_status 0
    expect_output <<EOF
Table t is ENABLED
t, {TABLE_ATTRIBUTES => {MAX_FILESIZE => '134217728', READONLY => 'true'}}
COLUMN FAMILIES DESCRIPTION
$FAMILY
1 row(s)
EOF
    # a new run of cellsh reads them from the store
    backend_needs durable
    cellsh_e "put 't', 'r', 'f:q', 'v'"
    expect_status 1
    expect_line "^ERROR: .*table 't' is read-only"
}

@test "a table without attributes is described by its name alone" {
    cellsh_e "create 't', 'f'" "describe 't'"
    expect_status 0
    expect_line "^t$"
    run grep -c TABLE_ATTRIBUTES <<< "$output"
    [ "$output" = 0 ]
}

@test "READONLY => 'true' refuses put, delete, incr and append naming the table; reads work" {
    backend_needs table_attributes
    cellsh_e "create 't', 'f'" "put 't', 'r', 'f:q', 'v'" "alter 't', METHOD => 'table_att', READONLY => true"
    expect_status 0
    local c
    for c in "put 't', 'r2', 'f:q', 'v'" "delete 't', 'r', 'f:q'" "deleteall 't', 'r'" \
             "incr 't', 'r', 'f:n', 1" "append 't', 'r', 'f:q', 'x'"; do
        run "$CELLSH" "$STORE" -e "$c"
        [ "$status" -eq 1 ] || { echo "$c: status $status: $output" >&2; return 1; }
        expect_line "^ERROR: .*table 't' is read-only"
    done
    cellsh_e "scan 't'"
    expect_status 0
    expect_line "^ r +column=f:q, timestamp=.*, value=v$"
    expect_line "^1 row\(s\)"
    cellsh_e "alter 't', METHOD => 'table_att', READONLY => 'false'" "put 't', 'r2', 'f:q', 'w'" "count 't'"
    expect_status 0
    expect_line "^2 row\(s\)"
}

@test "table_att_unset removes one or several attributes; an absent one is an error" {
    backend_needs table_attributes
    cellsh_e "create 't', 'f'" \
        "alter 't', METHOD => 'table_att', MAX_FILESIZE => '134217728', READONLY => 'true', DURABILITY => 'ASYNC_WAL'" \
        "alter 't', METHOD => 'table_att_unset', NAME => 'MAX_FILESIZE'" "describe 't'"
    expect_status 0
    expect_line "^t, \{TABLE_ATTRIBUTES => \{DURABILITY => 'ASYNC_WAL', READONLY => 'true'\}\}$"
    cellsh_e "alter 't', METHOD => 'table_att_unset', NAME => ['READONLY', 'DURABILITY']" "put 't', 'r', 'f:q', 'v'" "describe 't'"
    expect_status 0
    expect_line "^t$"
    cellsh_e "alter 't', METHOD => 'table_att_unset', NAME => 'MAX_FILESIZE'"
    expect_status 1
    expect_line "^ERROR: Could not find attribute: MAX_FILESIZE$"
    cellsh_e "alter 't', METHOD => 'table_att_unset'"
    expect_status 1
    expect_line "^ERROR: NAME parameter missing for table_att_unset method$"
    cellsh_e "alter 't', METHOD => 'delete'"
    expect_status 1
    expect_line "^ERROR: NAME parameter missing for delete method$"
    cellsh_e "alter 't', METHOD => 'table_attr', MAX_FILESIZE => '1'"
    expect_status 1
    expect_line "^ERROR: unknown METHOD for alter"
}

@test "create and alter take table attributes at the end, METADATA included" {
    backend_needs table_attributes
    cellsh_e "create 't', 'f', {MAX_FILESIZE => '1073741824', OWNER => 'johndoe', METADATA => {'mykey' => 'myvalue'}}" \
        "alter 't', MEMSTORE_FLUSHSIZE => '268435456', DURABILITY => 'skip_wal'" \
        "alter 't', METHOD => 'table_att', NORMALIZATION_ENABLED => 'TRUE', COMPACTION_ENABLED => false, REGION_REPLICATION => 2, SPLIT_POLICY => 'org.apache.hadoop.hbase.regionserver.ConstantSizeRegionSplitPolicy'"
    expect_status 0
    cellsh_e "describe 't'"
    expect_status 0
    expect_line "^t, \{TABLE_ATTRIBUTES => \{COMPACTION_ENABLED => 'false', DURABILITY => 'SKIP_WAL', MAX_FILESIZE => '1073741824', MEMSTORE_FLUSHSIZE => '268435456', NORMALIZATION_ENABLED => 'true', OWNER => 'johndoe', REGION_REPLICATION => '2', SPLIT_POLICY => 'org.apache.hadoop.hbase.regionserver.ConstantSizeRegionSplitPolicy', METADATA => \{'mykey' => 'myvalue'\}\}\}$"
    cellsh_e "alter 't', METHOD => 'table_att_unset', NAME => 'mykey'" "describe 't'"
    expect_status 0
    expect_line "^t, \{TABLE_ATTRIBUTES => \{COMPACTION_ENABLED => 'false', .*, SPLIT_POLICY => '[^']*'\}\}$"
}

@test "bad values are refused and change nothing; unknown keys are ignored as HBase does" {
    backend_needs table_attributes
    cellsh_e "create 't', 'f'" "alter 't', METHOD => 'table_att', MAX_FILESIZE => '1024'"
    expect_status 0
    expect_each_fails \
        "alter 't', METHOD => 'table_att', READONLY => 'maybe'" \
        "alter 't', METHOD => 'table_att', MAX_FILESIZE => 'big'" \
        "alter 't', METHOD => 'table_att', MAX_FILESIZE => '2048', DURABILITY => 'SOMETIMES'" \
        "alter 't', METHOD => 'table_att', REGION_REPLICATION => 0" \
        "create 'u', 'f', {READONLY => 'perhaps'}"
    cellsh_e "describe 't'" "exists 'u'"
    expect_line "^t, \{TABLE_ATTRIBUTES => \{MAX_FILESIZE => '1024'\}\}$"
    expect_line "^Table u does not exist$"
    cellsh_e "alter 't', METHOD => 'table_att', READONLY => 'yes'"
    expect_line "^ERROR: table attribute READONLY takes true or false, not 'yes'$"
    cellsh_e "alter 't', METHOD => 'table_att', FOO => 'bar'" "describe 't'"
    expect_status 0
    expect_line "^Unknown argument ignored: FOO$"
    expect_line "^t, \{TABLE_ATTRIBUTES => \{MAX_FILESIZE => '1024'\}\}$"
}

@test "attributes survive flush, disable, enable and truncate" {
    backend_needs table_attributes flush disable_tables
    cellsh_e "create 't', 'f'" "put 't', 'r', 'f:q', 'v'" \
        "alter 't', METHOD => 'table_att', MAX_FILESIZE => '134217728'" "flush 't'" \
        "disable 't'" "alter 't', METHOD => 'table_att', READONLY => 'true'" "enable 't'" "truncate 't'"
    expect_status 0
    cellsh_e "describe 't'" "count 't'"
    expect_status 0
    expect_line "^t, \{TABLE_ATTRIBUTES => \{MAX_FILESIZE => '134217728', READONLY => 'true'\}\}$"
    expect_line "^0 row\(s\)"
}
