#!/usr/bin/env bats
# cellsh: HBase's filter language as an HBase user writes it — version
# counting with filters (the family's VERSIONS offered, the read's VERSIONS
# counting what the filter includes), every filter ParseFilter registers, the comparators
# and their refusals, and show_filters.

load helpers/cellsh

setup() { cellsh_setup; }
teardown() { cellsh_teardown; }

# expect_text STRING: some line of $output contains STRING.
expect_text() {
    if ! printf '%s\n' "$output" | grep -qF -- "$1"; then
        echo "no line contains '$1' in:" >&2
        printf '%s\n' "$output" >&2
        return 1
    fi
}

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
scan 't', {FILTER => "SingleColumnValueFilter('f', 'a', =, 'binary:v3', true, false)"}
scan 't', {FILTER => "SingleColumnValueFilter('f', 'a', =, 'binary:v2', true, false)"}
scan 't', {VERSIONS => 3, FILTER => "SingleColumnValueFilter('f', 'a', =, 'binary:v2', true, false)"}
scan 't', {FILTER => "SingleColumnValueFilter('f', 'a', =, 'binary:v3')"}
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
ROW                                   COLUMN+CELL
 r1                                   column=f:a, timestamp=4, value=v4
 r1                                   column=f:a, timestamp=3, value=v3
 r1                                   column=f:a, timestamp=2, value=v2
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
    backend_needs flush
    versions_script "flush 't'" > "$TEST_DIR/in.hb"
    cellsh_script < "$TEST_DIR/in.hb"
    expect_status 0
    versions_expected | expect_output
}

@test "ColumnPaginationFilter, ColumnValueFilter, DependentColumnFilter and MultiRowRangeFilter, in memory and after flush" {
    backend_needs flush
    cat > "$TEST_DIR/in.hb" <<'EOF'
create 't', {NAME => 'f', VERSIONS => 3}, 'g'
put 't', 'a', 'f:c1', 'x', 1
put 't', 'r1', 'f:c1', 'a1', 1
put 't', 'r1', 'f:c2', 'b2', 2
put 't', 'r1', 'f:c3', 'c1', 1
put 't', 'r1', 'f:ts', 'one', 1
put 't', 'r1', 'g:z', 'z2', 2
put 't', 'r2', 'f:c1', 'q', 5
put 't', 'z', 'f:c1', 'y', 1
get 't', 'r1', {FILTER => "ColumnPaginationFilter(2, 1)"}
scan 't', {FILTER => "ColumnValueFilter('f', 'c1', =, 'binary:a1')"}
get 't', 'r1', {FILTER => "DependentColumnFilter('f', 'ts', true)"}
scan 't', {FILTER => "MultiRowRangeFilter('a', true, 'r1', false, 'r2', true, '', false)"}
EOF
    { cat "$TEST_DIR/in.hb"; echo "flush 't'"; tail -n 4 "$TEST_DIR/in.hb"; } > "$TEST_DIR/both.hb"
    cellsh_script < "$TEST_DIR/both.hb"
    expect_status 0
    local once
    once="$(cat <<'EOF'
COLUMN                                CELL
 f:c2                                 timestamp=2, value=b2
 f:c3                                 timestamp=1, value=c1
1 row(s)
ROW                                   COLUMN+CELL
 r1                                   column=f:c1, timestamp=1, value=a1
1 row(s)
COLUMN                                CELL
 f:c1                                 timestamp=1, value=a1
 f:c3                                 timestamp=1, value=c1
1 row(s)
ROW                                   COLUMN+CELL
 a                                    column=f:c1, timestamp=1, value=x
 r2                                   column=f:c1, timestamp=5, value=q
 z                                    column=f:c1, timestamp=1, value=y
3 row(s)
EOF
)"
    printf 'Created table t\n%s\n%s\n' "$once" "$once" | expect_output
}

@test "filter argument checks and regexstring refusals give HBase-style errors, and nothing is read" {
    cellsh_e "create 't', 'f'" "put 't', 'r', 'f:q', 'v'" \
        "scan 't', {FILTER => \"ColumnPaginationFilter(1)\"}"
    expect_status 1
    expect_text "ERROR: ColumnPaginationFilter takes 2 arguments, got 1 at offset 0 in \"ColumnPaginationFilter(1)\""
    cellsh_e "scan 't', {FILTER => \"MultiRowRangeFilter('b', true, 'a', false)\"}"
    expect_status 1
    expect_text "invalid range: start row => 'b', stop row => 'a'"
    cellsh_e "scan 't', {FILTER => \"ValueFilter(=, 'regexstring:(?<=a)b')\"}"
    expect_status 1
    expect_text "lookahead and lookbehind are not supported"
    # the 59-byte kind of pattern that drove regcomp to gigabytes: refused at once
    cellsh_e "scan 't', {FILTER => \"ValueFilter(=, 'regexstring:((((a{1000}){1000}){1000}){1000})')\"}"
    expect_status 1
    expect_text "regular expression too large"
    cellsh_e "scan 't', {FILTER => \"ValueFilter(=, 'regexstring:^(v|w)+\$') AND ColumnPrefixFilter('q')\"}"
    expect_status 0
    expect_text "column=f:q"
}

@test "show_filters lists every filter the FILTER option takes, and each compiles" {
    cellsh_e "show_filters"
    expect_status 0
    [ "$(printf '%s\n' "$output" | wc -l)" -eq 20 ]
    local name
    for name in ColumnPaginationFilter DependentColumnFilter MultiRowRangeFilter ColumnValueFilter \
                SingleColumnValueFilter TimestampsFilter PageFilter; do
        printf '%s\n' "$output" | grep -qx "$name"
    done
    # every listed name is known to the parser (an argument error, not "unknown filter")
    cellsh_e "create 't', 'f'"
    for name in $("$CELLSH" "$STORE" -e show_filters); do
        run "$CELLSH" "$STORE" -e "scan 't', {FILTER => \"$name('x', 'y', 'z')\"}"
        if printf '%s\n' "$output" | grep -q "unknown filter"; then
            echo "$name: $output" >&2
            return 1
        fi
    done
}
