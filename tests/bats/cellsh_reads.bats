#!/usr/bin/env bats
# cellsh: read options as the HBase 2 shell has them — ROWPREFIXFILTER over
# STARTROW/STOPROW, get's argument rules, bare families, negative
# timestamps, FORMATTER and column converters, MAXLENGTH, scan metrics and
# count's INTERVAL and CACHE, and versions trimmed at a flush, not at a put.

load helpers/cellsh

setup() { cellsh_setup; }
teardown() { cellsh_teardown; }

@test "ROWPREFIXFILTER replaces STARTROW and STOPROW, as setRowPrefixFilter does" {
    cellsh_script <<'EOF'
create 't', 'f'
put 't', 'aa', 'f:q', '1', 1
put 't', 'ab1', 'f:q', '2', 1
put 't', 'ab2', 'f:q', '3', 1
put 't', 'ac', 'f:q', '4', 1
scan 't', {ROWPREFIXFILTER => 'ab', STARTROW => 'ac'}
scan 't', {STOPROW => 'ab1', ROWPREFIXFILTER => 'ab'}
count 't', {ROWPREFIXFILTER => 'ab', STARTROW => 'zz'}
export 't', '-', {ROWPREFIXFILTER => 'ab', STOPROW => 'aa', HEADER => false}
EOF
    expect_status 0
    expect_output <<'EOF'
Created table t
ROW                                   COLUMN+CELL
 ab1                                  column=f:q, timestamp=1, value=2
 ab2                                  column=f:q, timestamp=1, value=3
2 row(s)
ROW                                   COLUMN+CELL
 ab1                                  column=f:q, timestamp=1, value=2
 ab2                                  column=f:q, timestamp=1, value=3
2 row(s)
2 row(s)
ab1	2
ab2	3
Exported 2 row(s), 2 cell(s)
EOF
}

@test "get's options hash must name a column, TIMESTAMP, TIMERANGE or FILTER; scan takes VERSIONS alone" {
    cellsh_script --continue <<'EOF'
create 't', {NAME => 'f', VERSIONS => 3}
put 't', 'r', 'f:q', 'v1', 1
put 't', 'r', 'f:q', 'v2', 2
get 't', 'r', {VERSIONS => 3}
get 't', 'r', {FILTER => "ValueFilter(=, 'binary:v1')", VERSIONS => 3}
get 't', 'r', {COLUMN => 'f:q', VERSIONS => 3}
get 't', 'r', {TIMERANGE => [0, 10], VERSIONS => 3}
get 't', 'r', {TIMESTAMP => 1}
get 't', 'r', {FILTER => "ValueFilter(=, 'binary:v2')"}
get 't', 'r', {MAXLENGTH => 15}
get 't', 'r', 'f:q', {VERSIONS => 3}
scan 't', {VERSIONS => 3}
EOF
    expect_status 1
    expect_output <<'EOF'
Created table t
ERROR: Failed parse of {"VERSIONS"=>3}, Hash
ERROR: Failed parse of {"VERSIONS"=>3}, Hash
COLUMN                                CELL
 f:q                                  timestamp=2, value=v2
 f:q                                  timestamp=1, value=v1
1 row(s)
COLUMN                                CELL
 f:q                                  timestamp=2, value=v2
 f:q                                  timestamp=1, value=v1
1 row(s)
COLUMN                                CELL
 f:q                                  timestamp=1, value=v1
1 row(s)
COLUMN                                CELL
 f:q                                  timestamp=2, value=v2
1 row(s)
COLUMN                                CELL
 f:q                                  timestamp=2, va
1 row(s)
ERROR: get takes column names ('f:q', 'f' or an array of them) or one hash of options, not both
ROW                                   COLUMN+CELL
 r                                    column=f:q, timestamp=2, value=v2
 r                                    column=f:q, timestamp=1, value=v1
1 row(s)
EOF
}

@test "put to a bare family writes the empty qualifier, as HBase's Put does" {
    cellsh_script --continue <<'EOF'
create 't', 'f'
put 't', 'r', 'f', 'bare', 1
put 't', 'r', 'f:q', 'named', 1
get 't', 'r'
get 't', 'r', 'f:'
get_counter 't', 'r', 'f'
scan 't', {COLUMNS => ['f:']}
EOF
    expect_status 1
    expect_output <<'EOF'
Created table t
COLUMN                                CELL
 f:                                   timestamp=1, value=bare
 f:q                                  timestamp=1, value=named
1 row(s)
COLUMN                                CELL
 f:                                   timestamp=1, value=bare
1 row(s)
ERROR: Field is not a long, it's 4 bytes wide
ROW                                   COLUMN+CELL
 r                                    column=f:, timestamp=1, value=bare
1 row(s)
EOF
}

@test "incr and append need a qualifier, with HBase's message" {
    cellsh_script --continue <<'EOF'
create 't', 'f'
incr 't', 'r', 'f'
append 't', 'r', 'f', 'x'
incr 't', 'r', 'f:n', {ATTRIBUTES => {'k' => 'v'}}
incr 't', 'r', 'f:n', 10, {VISIBILITY => 'X'}
EOF
    expect_status 1
    expect_output <<'EOF'
Created table t
ERROR: Failed to provide both column family and column qualifier for incr
ERROR: Failed to provide both column family and column qualifier for append
COUNTER VALUE = 1
COUNTER VALUE = 11
EOF
}

@test "negative timestamps round-trip through put, get, scan, delete, a flush, JSON and TSV" {
    backend_needs negative_timestamps flush
    cellsh_script <<EOF
create 't', {NAME => 'f', VERSIONS => 5}
put 't', 'r', 'f:q', 'minus five', -5
put 't', 'r', 'f:q', 'minus one', -1
put 't', 'r', 'f:q', 'plus two', 2
get 't', 'r', {COLUMN => 'f:q', TIMESTAMP => -5}
get 't', 'r', {COLUMN => 'f:q', TIMERANGE => [-10, 0], VERSIONS => 5}
export 't', '$TEST_DIR/t.json'
export 't', '$TEST_DIR/t.tsv', {COLUMNS => 'HBASE_ROW_KEY,HBASE_TS_KEY,f:q'}
delete 't', 'r', 'f:q', -1
scan 't', {VERSIONS => 5}
flush 't'
scan 't', {VERSIONS => 5, TIMERANGE => [-100, 0]}
create 'u', {NAME => 'f', VERSIONS => 5}
import 'u', '$TEST_DIR/t.json'
export 'u', '$TEST_DIR/u.json'
create 'v', {NAME => 'f', VERSIONS => 5}
import 'v', '$TEST_DIR/t.tsv'
import 'v', '$TEST_DIR/t.tsv', {TIMESTAMP => -7}
scan 'v', {VERSIONS => 5}
EOF
    expect_status 0
    cmp "$TEST_DIR/t.json" "$TEST_DIR/u.json"
    grep -q '"-5": "minus five"' "$TEST_DIR/t.json"
    expect_output <<'EOF'
Created table t
COLUMN                                CELL
 f:q                                  timestamp=-5, value=minus five
1 row(s)
COLUMN                                CELL
 f:q                                  timestamp=-1, value=minus one
 f:q                                  timestamp=-5, value=minus five
1 row(s)
Exported 1 row(s), 3 cell(s)
Exported 1 row(s), 1 cell(s)
ROW                                   COLUMN+CELL
 r                                    column=f:q, timestamp=2, value=plus two
 r                                    column=f:q, timestamp=-5, value=minus five
1 row(s)
ROW                                   COLUMN+CELL
 r                                    column=f:q, timestamp=-5, value=minus five
1 row(s)
Created table u
Imported 1 row(s), 3 cell(s)
Exported 1 row(s), 3 cell(s)
Created table v
Imported 1 row(s), 1 cell(s)
Imported 1 row(s), 1 cell(s)
ROW                                   COLUMN+CELL
 r                                    column=f:q, timestamp=2, value=plus two
 r                                    column=f:q, timestamp=-7, value=plus two
1 row(s)
EOF
    # the TSV holds the newest timestamp; a TSV with a negative one reads back
    printf 'HBASE_ROW_KEY\tHBASE_TS_KEY\tf:q\nneg\t-3\tx\n' > "$TEST_DIR/neg.tsv"
    cellsh_e "import 'v', '$TEST_DIR/neg.tsv'" "get 'v', 'neg'"
    expect_status 0
    expect_output <<'EOF'
Imported 1 row(s), 1 cell(s)
COLUMN                                CELL
 f:q                                  timestamp=-3, value=x
1 row(s)
EOF
}

@test "column converters 'f:q:toLong', ':toInt' and ':c(org.apache.hadoop.hbase.util.Bytes).toLong'" {
    cellsh_script <<'EOF'
create 't', 'f'
incr 't', 'r', 'f:hits', 42
incr 't', 'r2', 'f:hits', -7
put 't', 'r', 'f:n', "\x00\x00\x01\x00", 1
put 't', 'r', 'f:s', 'text', 1
get 't', 'r', {COLUMN => ['f:hits:toLong', 'f:n:toInt', 'f:s']}
get 't', 'r', 'f:hits:c(org.apache.hadoop.hbase.util.Bytes).toLong'
scan 't', {COLUMNS => ['f:hits:toLong']}
scan 't', {COLUMNS => ['f:hits:toInt', 'f:n:toShort']}
get 't', 'r', {COLUMN => ['f:hits:toHex', 'f:n:toStringBinary']}
EOF
    expect_status 0
    expect_output <<'EOF'
Created table t
COUNTER VALUE = 42
COUNTER VALUE = -7
COLUMN                                CELL
 f:hits                               timestamp=TS, value=42
 f:n                                  timestamp=1, value=256
 f:s                                  timestamp=1, value=text
1 row(s)
COLUMN                                CELL
 f:hits                               timestamp=TS, value=42
1 row(s)
ROW                                   COLUMN+CELL
 r                                    column=f:hits, timestamp=TS, value=42
 r2                                   column=f:hits, timestamp=TS, value=-7
2 row(s)
ROW                                   COLUMN+CELL
 r                                    column=f:hits, timestamp=TS, value=0
 r                                    column=f:n, timestamp=1, value=0
 r2                                   column=f:hits, timestamp=TS, value=-1
2 row(s)
COLUMN                                CELL
 f:hits                               timestamp=TS, value=000000000000002a
 f:n                                  timestamp=1, value=\x00\x00\x01\x00
1 row(s)
EOF
}

@test "FORMATTER and FORMATTER_CLASS apply to rows, columns and values" {
    cellsh_script <<'EOF'
create 't', 'f'
put 't', "caf\xC3\xA9", "f:\xC3\xA9", "na\xC3\xAFve \x01", 1
scan 't'
scan 't', {FORMATTER => 'toString'}
get 't', "caf\xC3\xA9", {FORMATTER_CLASS => 'org.apache.hadoop.hbase.util.Bytes', FORMATTER => 'toString'}
scan 't', {FORMATTER => 'toHex', COLUMNS => ["f:\xC3\xA9:toString"]}
EOF
    expect_status 0
    expect_output <<EOF
Created table t
ROW                                   COLUMN+CELL
 caf\\xC3\\xA9                          column=f:\\xC3\\xA9, timestamp=1, value=na\\xC3\\xAFve \\x01
1 row(s)
ROW                                   COLUMN+CELL
 café                                 column=f:é, timestamp=1, value=naïve $(printf '\001')
1 row(s)
COLUMN                                CELL
 f:é                                  timestamp=1, value=naïve $(printf '\001')
1 row(s)
ROW                                   COLUMN+CELL
 636166c3a9                           column=66:c3a9, timestamp=1, value=naïve $(printf '\001')
1 row(s)
EOF
}

@test "converter errors: HBase's message for a short value, unknown converters and classes" {
    cellsh_script --continue <<'EOF'
create 't', 'f'
put 't', 'r', 'f:s', 'abc', 1
get 't', 'r', {COLUMN => 'f:s:toLong'}
get 't', 'r', {COLUMN => 'f:s:toBoolean'}
scan 't', {FORMATTER => 'toInt'}
scan 't', {FORMATTER => 'toFrobnicate'}
scan 't', {FORMATTER_CLASS => 'com.example.MyFormatter', FORMATTER => 'format'}
scan 't', {COLUMNS => ['f:s:c(com.example.My).format']}
get 't', 'r', {COLUMN => 'f:s:toString'}
EOF
    expect_status 1
    expect_output <<'EOF'
Created table t
COLUMN                                CELL
ERROR: offset (0) + length (8) exceed the capacity of the array: 3
COLUMN                                CELL
ERROR: Array has wrong size: 3
ROW                                   COLUMN+CELL
ERROR: offset (0) + length (4) exceed the capacity of the array: 1
ERROR: FORMATTER 'toFrobnicate' is not a converter cellsh knows (toStringBinary, toString, toLong, toInt, toShort, toDouble, toFloat, toBoolean, toHex)
ERROR: FORMATTER_CLASS 'com.example.MyFormatter' is not available: cellsh runs no Java; only org.apache.hadoop.hbase.util.Bytes
ERROR: converter 'c(com.example.My).format' is not available: cellsh runs no Java; only org.apache.hadoop.hbase.util.Bytes
COLUMN                                CELL
 f:s                                  timestamp=1, value=abc
1 row(s)
EOF
}

@test "toDouble, toFloat and toBoolean print as Java does" {
    cellsh_script <<'EOF'
create 't', 'f'
put 't', 'r', 'f:d', "\x3F\xF8\x00\x00\x00\x00\x00\x00", 1
put 't', 'r', 'f:e', "\x42\x02\xA0\x5F\x20\x00\x00\x00", 1
put 't', 'r', 'f:f', "\x3E\x80\x00\x00", 1
put 't', 'r', 'f:b', "\x01", 1
get 't', 'r', {COLUMN => ['f:d:toDouble', 'f:e:toDouble', 'f:f:toFloat', 'f:b:toBoolean']}
EOF
    expect_status 0
    expect_output <<'EOF'
Created table t
COLUMN                                CELL
 f:b                                  timestamp=1, value=true
 f:d                                  timestamp=1, value=1.5
 f:e                                  timestamp=1, value=1.0E10
 f:f                                  timestamp=1, value=0.25
1 row(s)
EOF
}

@test "MAXLENGTH cuts the cell text, as HBase's to_string does" {
    backend_needs raw_scans
    cellsh_script <<'EOF'
create 't', 'f'
put 't', 'r', 'f:q', 'a long value here', 1
put 't', 'r', 'f:b', "\x00\x01\x02", 1
scan 't', {MAXLENGTH => 22}
get 't', 'r', {COLUMN => 'f:q', MAXLENGTH => 5}
delete 't', 'r', 'f:q', 1
scan 't', {RAW => true, MAXLENGTH => 20, VERSIONS => 2, FILTER => "QualifierFilter(=, 'binary:q')"}
EOF
    expect_status 0
    expect_output <<'EOF'
Created table t
ROW                                   COLUMN+CELL
 r                                    column=f:b, timestamp=1, value=\x0
 r                                    column=f:q, timestamp=1, value=a l
1 row(s)
COLUMN                                CELL
 f:q                                  times
1 row(s)
ROW                                   COLUMN+CELL
 r                                    column=f:q, timestamp=1, type=De
 r                                    column=f:q, timestamp=1, value=a
1 row(s)
EOF
}

@test "scan with ALL_METRICS or METRICS prints the metrics that mean something here" {
    cellsh_script <<'EOF'
create 't', 'f'
put 't', 'r1', 'f:q', 'v', 1
put 't', 'r2', 'f:qq', 'vv', 1
scan 't', {ALL_METRICS => true}
scan 't', {METRICS => ['BYTES_IN_RESULTS', 'REGIONS_SCANNED']}
scan 't', {ALL_METRICS => false}
EOF
    expect_status 0
    output="$(printf '%s\n' "$output" | sed -E 's/(MILLIS_BETWEEN_NEXTS +)[0-9]+$/\1N/')"
    expect_output <<'EOF'
Created table t
ROW                                   COLUMN+CELL
 r1                                   column=f:q, timestamp=1, value=v
 r2                                   column=f:qq, timestamp=1, value=vv
2 row(s)

METRIC                                VALUE
 BYTES_IN_REMOTE_RESULTS              0
 BYTES_IN_RESULTS                     60
 MILLIS_BETWEEN_NEXTS                 N
 NOT_SERVING_REGION_EXCEPTION         0
 REGIONS_SCANNED                      1
 REMOTE_RPC_CALLS                     0
 REMOTE_RPC_RETRIES                   0
 RPC_CALLS                            0
 RPC_RETRIES                          0
ROW                                   COLUMN+CELL
 r1                                   column=f:q, timestamp=1, value=v
 r2                                   column=f:qq, timestamp=1, value=vv
2 row(s)

METRIC                                VALUE
 BYTES_IN_RESULTS                     60
 REGIONS_SCANNED                      1
ROW                                   COLUMN+CELL
 r1                                   column=f:q, timestamp=1, value=v
 r2                                   column=f:qq, timestamp=1, value=vv
2 row(s)
EOF
    cellsh_e "scan 't', {METRICS => 'RPC_CALLS'}"
    expect_status 1
    expect_line "^ERROR: METRICS must be an array"
}

@test "count: every 1000 rows by default, INTERVAL, CACHE and the old count 't', n" {
    seq 1 2500 | awk '{ printf "r%05d\tv\n", $1 }' > "$TEST_DIR/rows.tsv"
    cellsh_script --continue <<EOF
create 't', 'f'
import 't', '$TEST_DIR/rows.tsv', {COLUMNS => 'HBASE_ROW_KEY,f:a'}
count 't'
count 't', INTERVAL => 1200, CACHE => 1000
count 't', 2000
count 't', {CACHE => 'x'}
count 't', 'many'
EOF
    expect_status 1
    expect_output <<'EOF'
Created table t
Imported 2500 row(s), 2500 cell(s)
Current count: 1000, row: r01000
Current count: 2000, row: r02000
2500 row(s)
Current count: 1200, row: r01200
Current count: 2400, row: r02400
2500 row(s)
Current count: 2000, row: r02000
2500 row(s)
ERROR: CACHE must be an integer, not 'x'
ERROR: count takes an options hash or an INTERVAL number, not a string
EOF
}

@test "get ends with 1 row(s) for a row with cells, however many, and 0 row(s) without, as HBase does" {
    cellsh_script <<'EOF2'
create 't', {NAME => 'f', VERSIONS => 3}
put 't', 'r', 'f:a', 'a1', 1
put 't', 'r', 'f:a', 'a2', 2
put 't', 'r', 'f:b', 'b1', 1
get 't', 'r', {COLUMN => 'f', VERSIONS => 3}
get 't', 'nope'
EOF2
    expect_status 0
    expect_output <<'EOF2'
Created table t
COLUMN                                CELL
 f:a                                  timestamp=2, value=a2
 f:a                                  timestamp=1, value=a1
 f:b                                  timestamp=1, value=b1
1 row(s)
COLUMN                                CELL
0 row(s)
EOF2
}

@test "versions beyond VERSIONS stay in memory until a flush: TIMERANGE and raw scans find them, then not" {
    backend_needs flush raw_scans
    cellsh_script <<'EOF'
create 't', {NAME => 'f', VERSIONS => 2}
put 't', 'r', 'f:q', 'v1', 1
put 't', 'r', 'f:q', 'v2', 2
put 't', 'r', 'f:q', 'v3', 3
put 't', 'r', 'f:q', 'v4', 4
get 't', 'r', {COLUMN => 'f:q', TIMERANGE => [0, 3], VERSIONS => 2}
scan 't', {RAW => true, VERSIONS => 10}
get 't', 'r', {COLUMN => 'f:q', VERSIONS => 10}
flush 't'
get 't', 'r', {COLUMN => 'f:q', TIMERANGE => [0, 3], VERSIONS => 2}
scan 't', {RAW => true, VERSIONS => 10}
EOF
    expect_status 0
    expect_output <<'EOF'
Created table t
COLUMN                                CELL
 f:q                                  timestamp=2, value=v2
 f:q                                  timestamp=1, value=v1
1 row(s)
ROW                                   COLUMN+CELL
 r                                    column=f:q, timestamp=4, value=v4
 r                                    column=f:q, timestamp=3, value=v3
 r                                    column=f:q, timestamp=2, value=v2
 r                                    column=f:q, timestamp=1, value=v1
1 row(s)
COLUMN                                CELL
 f:q                                  timestamp=4, value=v4
 f:q                                  timestamp=3, value=v3
1 row(s)
COLUMN                                CELL
0 row(s)
ROW                                   COLUMN+CELL
 r                                    column=f:q, timestamp=4, value=v4
 r                                    column=f:q, timestamp=3, value=v3
1 row(s)
EOF
}
