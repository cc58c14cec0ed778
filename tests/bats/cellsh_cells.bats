#!/usr/bin/env bats
# cellsh: reads and writes of cells — counters, versions, TIMESTAMP and
# TIMERANGE reads, the BigTable paper's webtable, delete markers and what
# major compaction changes, KEEP_DELETED_CELLS, filters, binary bytes.

load helpers/cellsh

setup() { cellsh_setup; }
teardown() { cellsh_teardown; }

@test "incr and get_counter" {
    cellsh_script <<'EOF'
create 't', 'f'
incr 't', 'r', 'f:q', 1
incr 't', 'r', 'f:q'
incr 't', 'r', 'f:q', 40
incr 't', 'r', 'f:q', -50
get_counter 't', 'r', 'f:q'
get_counter 't', 'r', 'f:none'
get 't', 'r'
EOF
    expect_status 0
    expect_output <<'EOF'
Created table t
COUNTER VALUE = 1
COUNTER VALUE = 2
COUNTER VALUE = 42
COUNTER VALUE = -8
COUNTER VALUE = -8
No counter found at specified coordinates
COLUMN                                CELL
 f:q                                  timestamp=TS, value=\xFF\xFF\xFF\xFF\xFF\xFF\xFF\xF8
1 row(s)
EOF
}

@test "incr of a value that is not 8 bytes is an error and changes nothing" {
    cellsh_script --continue <<'EOF'
create 't', 'f'
put 't', 'r', 'f:q', 'abc', 5
incr 't', 'r', 'f:q', 1
get_counter 't', 'r', 'f:q'
get 't', 'r'
EOF
    expect_status 1
    expect_output <<'EOF'
Created table t
ERROR: field is not a long, it's 3 bytes wide
ERROR: Field is not a long, it's 3 bytes wide
COLUMN                                CELL
 f:q                                  timestamp=5, value=abc
1 row(s)
EOF
}

@test "append and a counter put as 8 raw bytes" {
    cellsh_script <<'EOF'
create 't', 'f'
append 't', 'r', 'f:s', 'ab'
append 't', 'r', 'f:s', "c\x00"
put 't', 'r', 'f:n', "\x00\x00\x00\x00\x00\x00\x01\x00"
incr 't', 'r', 'f:n', 1
EOF
    expect_status 0
    expect_output <<'EOF'
Created table t
CURRENT VALUE = ab
CURRENT VALUE = abc\x00
COUNTER VALUE = 257
EOF
}

@test "versions: VERSIONS, TIMESTAMP and TIMERANGE reads" {
    cellsh_script <<'EOF'
create 't', {NAME => 'f', VERSIONS => 3}
put 't', 'r', 'f:q', 'v10', 10
put 't', 'r', 'f:q', 'v20', 20
put 't', 'r', 'f:q', 'v30', 30
put 't', 'r', 'f:q', 'v40', 40
get 't', 'r'
get 't', 'r', {COLUMN => 'f:q', VERSIONS => 5}
get 't', 'r', {COLUMN => 'f:q', TIMESTAMP => 30}
get 't', 'r', {COLUMN => 'f:q', TIMESTAMP => 25}
get 't', 'r', {COLUMN => 'f:q', TIMERANGE => [20, 40], VERSIONS => 3}
scan 't', {VERSIONS => 2}
scan 't', {TIMERANGE => [0, 35]}
EOF
    expect_status 0
    expect_output <<'EOF'
Created table t
COLUMN                                CELL
 f:q                                  timestamp=40, value=v40
1 row(s)
COLUMN                                CELL
 f:q                                  timestamp=40, value=v40
 f:q                                  timestamp=30, value=v30
 f:q                                  timestamp=20, value=v20
1 row(s)
COLUMN                                CELL
 f:q                                  timestamp=30, value=v30
1 row(s)
COLUMN                                CELL
0 row(s)
COLUMN                                CELL
 f:q                                  timestamp=30, value=v30
 f:q                                  timestamp=20, value=v20
1 row(s)
ROW                                   COLUMN+CELL
 r                                    column=f:q, timestamp=40, value=v40
 r                                    column=f:q, timestamp=30, value=v30
1 row(s)
ROW                                   COLUMN+CELL
 r                                    column=f:q, timestamp=30, value=v30
1 row(s)
EOF
}

@test "webtable: the BigTable paper's example row" {
    cellsh_script <<'EOF'
create 'webtable', {NAME => 'contents', VERSIONS => 3}, {NAME => 'anchor', VERSIONS => 3}, 'people'
put 'webtable', 'com.cnn.www', 'contents:html', '<html>t3', 3
put 'webtable', 'com.cnn.www', 'contents:html', '<html>t5', 5
put 'webtable', 'com.cnn.www', 'contents:html', '<html>t6', 6
put 'webtable', 'com.cnn.www', 'anchor:my.look.ca', 'CNN.com', 8
put 'webtable', 'com.cnn.www', 'anchor:cnnsi.com', 'CNN', 9
get 'webtable', 'com.cnn.www', {COLUMN => 'contents:html', TIMESTAMP => 8}
get 'webtable', 'com.cnn.www'
get 'webtable', 'com.cnn.www', {COLUMN => 'contents:html', VERSIONS => 3}
get 'webtable', 'com.cnn.www', 'anchor'
get 'webtable', 'com.cnn.www', ['anchor:cnnsi.com', 'contents']
scan 'webtable', {COLUMNS => 'people'}
EOF
    expect_status 0
    expect_output <<'EOF'
Created table webtable
COLUMN                                CELL
0 row(s)
COLUMN                                CELL
 anchor:cnnsi.com                     timestamp=9, value=CNN
 anchor:my.look.ca                    timestamp=8, value=CNN.com
 contents:html                        timestamp=6, value=<html>t6
1 row(s)
COLUMN                                CELL
 contents:html                        timestamp=6, value=<html>t6
 contents:html                        timestamp=5, value=<html>t5
 contents:html                        timestamp=3, value=<html>t3
1 row(s)
COLUMN                                CELL
 anchor:cnnsi.com                     timestamp=9, value=CNN
 anchor:my.look.ca                    timestamp=8, value=CNN.com
1 row(s)
COLUMN                                CELL
 anchor:cnnsi.com                     timestamp=9, value=CNN
 contents:html                        timestamp=6, value=<html>t6
1 row(s)
ROW                                   COLUMN+CELL
0 row(s)
EOF
}

@test "deletes mask later puts with older timestamps until a major compaction" {
    backend_needs delete_markers raw_scans compact
    cellsh_script <<'EOF'
create 't', {NAME => 'f', VERSIONS => 3}
put 't', 'r', 'f:q', 'v10', 10
put 't', 'r', 'f:q', 'v20', 20
deleteall 't', 'r', 'f:q', 20
put 't', 'r', 'f:q', 'v15', 15
get 't', 'r', {COLUMN => 'f', VERSIONS => 3}
scan 't', {RAW => true, VERSIONS => 3}
flush 't'
major_compact 't'
scan 't', {RAW => true, VERSIONS => 3}
put 't', 'r', 'f:q', 'v15', 15
get 't', 'r', {COLUMN => 'f', VERSIONS => 3}
EOF
    expect_status 0
    expect_output <<'EOF'
Created table t
COLUMN                                CELL
0 row(s)
ROW                                   COLUMN+CELL
 r                                    column=f:q, timestamp=20, type=DeleteColumn
 r                                    column=f:q, timestamp=20, value=v20
 r                                    column=f:q, timestamp=15, value=v15
 r                                    column=f:q, timestamp=10, value=v10
1 row(s)
ROW                                   COLUMN+CELL
0 row(s)
COLUMN                                CELL
 f:q                                  timestamp=15, value=v15
1 row(s)
EOF
}

@test "a row delete masks every family; a put after it with the clock is visible" {
    backend_needs delete_markers raw_scans
    cellsh_script <<'EOF'
create 't', 'a', 'b'
put 't', 'r', 'a:x', '1'
put 't', 'r', 'b:y', '2'
deleteall 't', 'r'
get 't', 'r'
put 't', 'r', 'a:x', '3'
get 't', 'r'
scan 't', {RAW => true}
EOF
    expect_status 0
    expect_output <<'EOF'
Created table t
COLUMN                                CELL
0 row(s)
COLUMN                                CELL
 a:x                                  timestamp=TS, value=3
1 row(s)
ROW                                   COLUMN+CELL
 r                                    column=a:, timestamp=TS, type=DeleteFamily
 r                                    column=a:x, timestamp=TS, value=3
 r                                    column=b:, timestamp=TS, type=DeleteFamily
 r                                    column=b:y, timestamp=TS, value=2
1 row(s)
EOF
}

@test "versions beyond VERSIONS reappear after a delete, until a major compaction" {
    backend_needs compact
    cellsh_script <<'EOF'
create 't', {NAME => 'f', VERSIONS => 2}
put 't', 'r', 'f:q', 'v1', 1
put 't', 'r', 'f:q', 'v2', 2
put 't', 'r', 'f:q', 'v3', 3
get 't', 'r', {COLUMN => 'f', VERSIONS => 2}
delete 't', 'r', 'f:q'
get 't', 'r', {COLUMN => 'f', VERSIONS => 2}
scan 't', {RAW => true, VERSIONS => 3}
delete 't', 'r', 'f:q', 1
get 't', 'r', {COLUMN => 'f', VERSIONS => 2}
EOF
    expect_status 0
    expect_output <<'EOF'
Created table t
COLUMN                                CELL
 f:q                                  timestamp=3, value=v3
 f:q                                  timestamp=2, value=v2
1 row(s)
COLUMN                                CELL
 f:q                                  timestamp=2, value=v2
 f:q                                  timestamp=1, value=v1
1 row(s)
ROW                                   COLUMN+CELL
 r                                    column=f:q, timestamp=3, type=Delete
 r                                    column=f:q, timestamp=3, value=v3
 r                                    column=f:q, timestamp=2, value=v2
 r                                    column=f:q, timestamp=1, value=v1
1 row(s)
COLUMN                                CELL
 f:q                                  timestamp=2, value=v2
1 row(s)
EOF
}

@test "delete of a family version and the four marker types in a raw scan" {
    backend_needs delete_family_version raw_scans
    cellsh_script <<'EOF'
create 't', {NAME => 'f', VERSIONS => 5}
put 't', 'r', 'f:a', 'a5', 5
put 't', 'r', 'f:b', 'b5', 5
put 't', 'r', 'f:b', 'b7', 7
delete 't', 'r', 'f', 5
get 't', 'r', {COLUMN => 'f', VERSIONS => 5}
delete 't', 'r', 'f:b', 7
deleteall 't', 'r', 'f:a', 4
deleteall 't', 'r2', 'f', 3
scan 't', {RAW => true, VERSIONS => 5}
EOF
    expect_status 0
    expect_output <<'EOF'
Created table t
COLUMN                                CELL
 f:b                                  timestamp=7, value=b7
1 row(s)
ROW                                   COLUMN+CELL
 r                                    column=f:, timestamp=5, type=DeleteFamilyVersion
 r                                    column=f:a, timestamp=5, value=a5
 r                                    column=f:a, timestamp=4, type=DeleteColumn
 r                                    column=f:b, timestamp=7, type=Delete
 r                                    column=f:b, timestamp=7, value=b7
 r                                    column=f:b, timestamp=5, value=b5
 r2                                   column=f:, timestamp=3, type=DeleteFamily
2 row(s)
EOF
}

@test "KEEP_DELETED_CELLS keeps deleted cells for raw scans and time-range reads" {
    backend_needs keep_deleted_cells
    cellsh_script <<'EOF'
create 't', {NAME => 'f', VERSIONS => 5, KEEP_DELETED_CELLS => true}
put 't', 'r', 'f:q', 'old', 10
deleteall 't', 'r', 'f:q', 20
get 't', 'r'
flush 't'
major_compact 't'
scan 't', {RAW => true, VERSIONS => 5}
get 't', 'r', {TIMERANGE => [0, 15]}
EOF
    expect_status 0
    expect_output <<'EOF'
Created table t
COLUMN                                CELL
0 row(s)
ROW                                   COLUMN+CELL
 r                                    column=f:q, timestamp=20, type=DeleteColumn
 r                                    column=f:q, timestamp=10, value=old
1 row(s)
COLUMN                                CELL
 f:q                                  timestamp=10, value=old
1 row(s)
EOF
}

@test "scan options: STARTROW, STOPROW, ROWPREFIXFILTER, LIMIT, REVERSED, COLUMNS, MAXLENGTH" {
    backend_needs reversed_scans
    cellsh_script <<'EOF'
create 't', 'f', 'g'
put 't', 'a1', 'f:x', 'va1', 1
put 't', 'a2', 'f:x', 'va2', 1
put 't', 'b1', 'f:x', 'vb1', 1
put 't', 'b1', 'g:y', 'long value here', 1
put 't', 'c1', 'f:x', 'vc1', 1
scan 't', {STARTROW => 'a2', STOPROW => 'c1'}
scan 't', {ROWPREFIXFILTER => 'a'}
scan 't', {LIMIT => 1, REVERSED => true}
scan 't', {COLUMNS => ['g'], MAXLENGTH => 23}
count 't', {INTERVAL => 2}
EOF
    expect_status 0
    expect_output <<'EOF'
Created table t
ROW                                   COLUMN+CELL
 a2                                   column=f:x, timestamp=1, value=va2
 b1                                   column=f:x, timestamp=1, value=vb1
 b1                                   column=g:y, timestamp=1, value=long value here
2 row(s)
ROW                                   COLUMN+CELL
 a1                                   column=f:x, timestamp=1, value=va1
 a2                                   column=f:x, timestamp=1, value=va2
2 row(s)
ROW                                   COLUMN+CELL
 c1                                   column=f:x, timestamp=1, value=vc1
1 row(s)
ROW                                   COLUMN+CELL
 b1                                   column=g:y, timestamp=1, value=long
1 row(s)
Current count: 2, row: a2
Current count: 4, row: c1
4 row(s)
EOF
}

@test "FILTER strings go to kvcore's filter language" {
    cellsh_script <<'EOF'
create 't', 'f'
put 't', 'row1', 'f:a', 'apple', 1
put 't', 'row2', 'f:b', 'banana', 1
put 't', 'other', 'f:a', 'apple', 1
scan 't', {FILTER => "PrefixFilter('row') AND ValueFilter(=, 'binary:apple')"}
get 't', 'row2', {FILTER => "QualifierFilter(=, 'binary:b')"}
count 't', {FILTER => "PrefixFilter('row')"}
EOF
    expect_status 0
    expect_output <<'EOF'
Created table t
ROW                                   COLUMN+CELL
 row1                                 column=f:a, timestamp=1, value=apple
1 row(s)
COLUMN                                CELL
 f:b                                  timestamp=1, value=banana
1 row(s)
2 row(s)
EOF
}

@test "binary rows, qualifiers and values print as \\xNN and round-trip through escapes" {
    cellsh_script <<'EOF'
create 't', 'f'
put 't', "r\x00\xFF", "f:q\t", "v\\1\x7F\n", 1
put 't', 'caf\xC3\xA9', 'f:a', "caf\u00e9", 1
scan 't'
get 't', "r\x00\xFF", "f:q\x09"
EOF
    expect_status 0
    expect_output <<'EOF'
Created table t
ROW                                   COLUMN+CELL
 caf\x5CxC3\x5CxA9                    column=f:a, timestamp=1, value=caf\xC3\xA9
 r\x00\xFF                            column=f:q\x09, timestamp=1, value=v\x5C1\x7F\x0A
2 row(s)
COLUMN                                CELL
 f:q\x09                              timestamp=1, value=v\x5C1\x7F\x0A
1 row(s)
EOF
}
