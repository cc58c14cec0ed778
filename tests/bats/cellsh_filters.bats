#!/usr/bin/env bats
# cellsh: HBase's filter language as an HBase user writes it — version
# counting with filters (the family's VERSIONS offered, the read's VERSIONS
# capping afterwards), every filter ParseFilter registers, the comparators
# and their refusals, and show_filters.

load helpers/cellsh

setup() { cellsh_setup; }
teardown() { cellsh_teardown; }

versions_script() {
    cat <<EOF
create 't', {NAME => 'f', VERSIONS => 3}
put 't', 'r1', 'f:a', 'v1', 1
put 't', 'r1', 'f:a', 'v2', 2
put 't', 'r1', 'f:a', 'v3', 3
put 't', 'r1', 'f:a', 'v4', 4
$1
scan 't', {FILTER => "TimestampsFilter(2, 3)"}
get 't', 'r1', {COLUMN => 'f:a', VERSIONS => 5, FILTER => "TimestampsFilter(1, 2, 3)"}
scan 't', {FILTER => "SingleColumnValueFilter('f', 'a', =, 'binary:v2', true, false)"}
scan 't', {FILTER => "SingleColumnValueFilter('f', 'a', =, 'binary:v2')"}
EOF
}

versions_expected() {
    cat <<'EOF'
Created table t
ROW                                   COLUMN+CELL
 r1                                   column=f:a, timestamp=3, value=v3
1 row(s)
COLUMN                                CELL
 f:a                                  timestamp=3, value=v3
 f:a                                  timestamp=2, value=v2
1 row(s)
ROW                                   COLUMN+CELL
 r1                                   column=f:a, timestamp=4, value=v4
1 row(s)
ROW                                   COLUMN+CELL
0 row(s)
EOF
}

@test "a filter sees the family's VERSIONS versions; the read's VERSIONS caps afterwards (in memory)" {
    versions_script "" > "$TEST_DIR/in.hb"
    cellsh_script < "$TEST_DIR/in.hb"
    expect_status 0
    versions_expected | expect_output
}

@test "a filter sees the family's VERSIONS versions; the read's VERSIONS caps afterwards (after flush)" {
    versions_script "flush 't'" > "$TEST_DIR/in.hb"
    cellsh_script < "$TEST_DIR/in.hb"
    expect_status 0
    versions_expected | expect_output
}
