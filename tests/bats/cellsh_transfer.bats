#!/usr/bin/env bats
# cellsh: import and export of tables as TSV and JSON.

load helpers/cellsh

setup() { cellsh_setup; }
teardown() { cellsh_teardown; }

@test "a 100,000-row TSV import, then count" {
    seq 1 100000 | awk '{ printf "row%06d\tv%d\tw%d\n", $1, $1, $1 }' > "$TEST_DIR/big.tsv"
    cellsh_script <<EOF
create 't', 'cf'
import 't', '$TEST_DIR/big.tsv', {COLUMNS => 'HBASE_ROW_KEY,cf:a,cf:b'}
count 't', INTERVAL => 100000
get 't', 'row054321'
EOF
    expect_status 0
    expect_output <<'EOF'
Created table t
Imported 100000 row(s), 200000 cell(s)
Current count: 100000, row: row100000
100000 row(s)
COLUMN                                CELL
 cf:a                                 timestamp=TS, value=v54321
 cf:b                                 timestamp=TS, value=w54321
1 row(s)
EOF
}

@test "JSON export, import into a new table, export again: identical files" {
    cellsh_script <<EOF
create 't', {NAME => 'f', VERSIONS => 3}, 'g'
put 't', 'r1', 'f:a', 'a1', 100
put 't', 'r1', 'f:a', 'a2', 200
put 't', 'r1', 'g:', 'empty qualifier', 300
put 't', "bin\x00\xFF\\\\", "f:q\x01\"", "v\x00\x7F\x80\\\\\"\n", 400
put 't', 'r2', 'f:empty', '', 500
export 't', '$TEST_DIR/one.json'
create 'u', {NAME => 'f', VERSIONS => 3}, 'g'
import 'u', '$TEST_DIR/one.json'
export 'u', '$TEST_DIR/two.json'
scan 'u', {VERSIONS => 3}
EOF
    expect_status 0
    cmp "$TEST_DIR/one.json" "$TEST_DIR/two.json"
    expect_output <<'EOF'
Created table t
Exported 3 row(s), 5 cell(s)
Created table u
Imported 3 row(s), 5 cell(s)
Exported 3 row(s), 5 cell(s)
ROW                                   COLUMN+CELL
 bin\x00\xFF\x5C                      column=f:q\x01", timestamp=400, value=v\x00\x7F\x80\x5C"\x0A
 r1                                   column=f:a, timestamp=200, value=a2
 r1                                   column=f:a, timestamp=100, value=a1
 r1                                   column=g:, timestamp=300, value=empty qualifier
 r2                                   column=f:empty, timestamp=500, value=
3 row(s)
EOF
    # the documented shape: row -> family -> qualifier -> timestamp -> value
    cat > "$TEST_DIR/want.json" <<'EOF'
{
"bin\\x00\\xFF\\x5C": {"f": {"q\\x01\"": {"400": "v\\x00\\x7F\\x80\\x5C\"\\x0A"}}},
"r1": {"f": {"a": {"200": "a2", "100": "a1"}}, "g": {"": {"300": "empty qualifier"}}},
"r2": {"f": {"empty": {"500": ""}}}
}
EOF
    diff "$TEST_DIR/want.json" "$TEST_DIR/one.json"
}

@test "JSON import of a hand-written file; malformed JSON gives an ERROR with its line" {
    cat > "$TEST_DIR/in.json" <<'EOF'
{ "row1": { "f": { "a": { "10": "x" }, "b": { "20": "caf\u00e9" } } },
  "row2": { "f": { "a": { "30": "\\x00y" } } } }
EOF
    cat > "$TEST_DIR/bad.json" <<'EOF'
{ "r3": { "f": { "a": { "10": "ok" } } },
  "r4": { "f": { "a": { "notatime": "x" } } } }
EOF
    cellsh_script --continue <<EOF
create 't', 'f'
import 't', '$TEST_DIR/in.json'
import 't', '$TEST_DIR/bad.json'
scan 't'
EOF
    expect_status 1
    expect_output <<EOF
Created table t
Imported 2 row(s), 3 cell(s)
ERROR: $TEST_DIR/bad.json line 2: "notatime" is not a timestamp in milliseconds (rows before it were imported)
ROW                                   COLUMN+CELL
 r3                                   column=f:a, timestamp=10, value=ok
 row1                                 column=f:a, timestamp=10, value=x
 row1                                 column=f:b, timestamp=20, value=caf\xC3\xA9
 row2                                 column=f:a, timestamp=30, value=\x00y
3 row(s)
EOF
}

@test "TSV export with a header, import without COLUMNS reads it back" {
    cellsh_script <<EOF
create 't', 'f', 'g'
put 't', 'r1', 'f:a', 'x', 1
put 't', 'r1', 'g:b', "tab\there\\\\", 2
put 't', "r\n2", 'f:a', 'y', 3
export 't', '$TEST_DIR/t.tsv'
create 'u', 'f', 'g'
import 'u', '$TEST_DIR/t.tsv', {TIMESTAMP => 7}
scan 'u'
EOF
    expect_status 0
    printf 'HBASE_ROW_KEY\tf:a\tg:b\nr\\n2\ty\t\nr1\tx\ttab\\there\\\\\n' > "$TEST_DIR/want.tsv"
    cmp "$TEST_DIR/want.tsv" "$TEST_DIR/t.tsv"
    expect_output <<'EOF'
Created table t
Exported 2 row(s), 3 cell(s)
Created table u
Imported 2 row(s), 3 cell(s)
ROW                                   COLUMN+CELL
 r\x0A2                               column=f:a, timestamp=7, value=y
 r1                                   column=f:a, timestamp=7, value=x
 r1                                   column=g:b, timestamp=7, value=tab\x09here\x5C
2 row(s)
EOF
}

@test "TSV options: SEPARATOR, HBASE_TS_KEY, HEADER, SKIP_BAD_LINES, bad lines" {
    printf 'key,ts,a\nk1,100,x\nk2,200\nk3,300,z\n' > "$TEST_DIR/in.csv"
    cellsh_script --continue <<EOF
create 't', 'f'
import 't', '$TEST_DIR/in.csv', {COLUMNS => 'HBASE_ROW_KEY,HBASE_TS_KEY,f:a', SEPARATOR => ',', HEADER => true}
import 't', '$TEST_DIR/in.csv', {COLUMNS => 'HBASE_ROW_KEY,HBASE_TS_KEY,f:a', SEPARATOR => ',', HEADER => true, SKIP_BAD_LINES => true}
scan 't'
export 't', '-', {COLUMNS => ['f:a'], HEADER => false, SEPARATOR => ','}
EOF
    expect_status 1
    expect_output <<EOF
Created table t
ERROR: $TEST_DIR/in.csv line 3: expected 3 fields, found 2 (rows before it were imported)
Imported 2 row(s), 2 cell(s); skipped 1 bad line(s)
ROW                                   COLUMN+CELL
 k1                                   column=f:a, timestamp=100, value=x
 k3                                   column=f:a, timestamp=300, value=z
2 row(s)
k1,x
k3,z
Exported 2 row(s), 2 cell(s)
EOF
}

@test "import checks the table and its families before writing" {
    printf 'r1\tv\n' > "$TEST_DIR/in.tsv"
    cellsh_script --continue <<EOF
create 't', 'f'
import 'nope', '$TEST_DIR/in.tsv', {COLUMNS => 'HBASE_ROW_KEY,f:a'}
import 't', '$TEST_DIR/in.tsv', {COLUMNS => 'HBASE_ROW_KEY,x:a'}
import 't', '$TEST_DIR/in.tsv', {COLUMNS => 'f:a,f:b'}
import 't', '$TEST_DIR/in.tsv', {COLUMNS => 'HBASE_ROW_KEY,f:a', FORMAT => 'xml'}
import 't', '$TEST_DIR/in.tsv'
count 't'
EOF
    expect_status 1
    expect_output <<EOF
Created table t
ERROR: Unknown table nope!
ERROR: Unknown column family! Valid column names: f:*
ERROR: the column mapping needs HBASE_ROW_KEY
ERROR: FORMAT must be 'tsv' or 'json'
ERROR: $TEST_DIR/in.tsv line 1: the header must name the columns: column 'r1' is not HBASE_ROW_KEY, HBASE_TS_KEY or 'family:qualifier'
0 row(s)
EOF
}

@test "no progress output when stderr is not a terminal" {
    seq 1 2000 | awk '{ printf "r%d\tv\n", $1 }' > "$TEST_DIR/in.tsv"
    cellsh_e "create 't', 'f'" "import 't', '$TEST_DIR/in.tsv', {COLUMNS => 'HBASE_ROW_KEY,f:a'}"
    expect_status 0
    if printf '%s' "$output" | grep -q $'\r'; then false; fi
    if printf '%s' "$output" | grep -q 'rows/s'; then false; fi
}
