#!/usr/bin/env bats
# cellsh: every form of HBase 2's delete and deleteall — the whole row with
# an empty column, the hash forms (ROWPREFIXFILTER, CACHE, VISIBILITY), the
# forms HBase rejects — checked in memory and again after a flush.

load helpers/cellsh

setup() { cellsh_setup; }
teardown() { cellsh_teardown; }

@test "deleteall 't', 'r', '', ts deletes every family of the row up to ts" {
    backend_needs delete_markers
    cellsh_script <<'EOF'
create 't', {NAME => 'a', VERSIONS => 3}, 'b'
put 't', 'r', 'a:x', 'old', 10
put 't', 'r', 'a:x', 'new', 30
put 't', 'r', 'b:y', 'y20', 20
put 't', 'r2', 'a:x', 'other row', 10
deleteall 't', 'r', '', 20
scan 't', {VERSIONS => 3}
scan 't', {RAW => true, VERSIONS => 3, ROWPREFIXFILTER => 'r'}
flush 't'
scan 't', {VERSIONS => 3}
EOF
    expect_status 0
    expect_output <<'EOF'
Created table t
ROW                                   COLUMN+CELL
 r                                    column=a:x, timestamp=30, value=new
 r2                                   column=a:x, timestamp=10, value=other row
2 row(s)
ROW                                   COLUMN+CELL
 r                                    column=a:, timestamp=20, type=DeleteFamily
 r                                    column=a:x, timestamp=30, value=new
 r                                    column=a:x, timestamp=10, value=old
 r                                    column=b:, timestamp=20, type=DeleteFamily
 r                                    column=b:y, timestamp=20, value=y20
 r2                                   column=a:x, timestamp=10, value=other row
2 row(s)
ROW                                   COLUMN+CELL
 r                                    column=a:x, timestamp=30, value=new
 r2                                   column=a:x, timestamp=10, value=other row
2 row(s)
EOF
}

@test "deleteall 't', 'r', '' and delete 't', 'r', '', ts also mean the whole row" {
    backend_needs delete_markers
    cellsh_script <<'EOF'
create 't', 'a', 'b'
put 't', 'r1', 'a:x', '1', 10
put 't', 'r1', 'b:y', '2', 10
put 't', 'r2', 'a:x', '3', 10
put 't', 'r2', 'b:y', '4', 30
deleteall 't', 'r1', ''
delete 't', 'r2', '', 20
flush 't'
scan 't'
EOF
    expect_status 0
    expect_output <<'EOF'
Created table t
ROW                                   COLUMN+CELL
 r2                                   column=b:y, timestamp=30, value=4
1 row(s)
EOF
}

@test "deleteall with a trailing {VISIBILITY => ...} hash, with or without a timestamp" {
    cellsh_script <<'EOF'
create 't', {NAME => 'f', VERSIONS => 3}
put 't', 'r', 'f:a', 'a10', 10
put 't', 'r', 'f:a', 'a20', 20
put 't', 'r', 'f:b', 'b10', 10
deleteall 't', 'r', 'f:a', 15, {VISIBILITY => 'PRIVATE|SECRET'}
scan 't', {VERSIONS => 3}
deleteall 't', 'r', 'f:b', {VISIBILITY => 'PRIVATE'}
delete 't', 'r', 'f:a', 20, {VISIBILITY => 'PRIVATE'}
scan 't', {VERSIONS => 3}
EOF
    expect_status 0
    expect_output <<'EOF'
Created table t
ROW                                   COLUMN+CELL
 r                                    column=f:a, timestamp=20, value=a20
 r                                    column=f:b, timestamp=10, value=b10
1 row(s)
ROW                                   COLUMN+CELL
0 row(s)
EOF
}

@test "deleteall {ROWPREFIXFILTER => ...} with a family, a timestamp, '' and CACHE batches" {
    backend_needs delete_markers
    cellsh_script <<'EOF'
create 't', 'a', 'b'
put 't', 'p1', 'a:x', 'p1a', 10
put 't', 'p1', 'b:y', 'p1b', 10
put 't', 'p2', 'a:x', 'p2a', 30
put 't', 'q1', 'a:x', 'q1a', 10
put 't', 'q2', 'a:x', 'q2a', 10
put 't', 'q3', 'a:x', 'q3a', 10
put 't', 'q4', 'a:x', 'q4a', 10
put 't', 'q5', 'a:x', 'q5a', 10
put 't', 'r1', 'a:x', 'r1a', 10
deleteall 't', {ROWPREFIXFILTER => 'p'}, 'a', 20
scan 't', {ROWPREFIXFILTER => 'p'}
deleteall 't', {ROWPREFIXFILTER => 'q', CACHE => 2}
deleteall 't', {ROWPREFIXFILTER => 'p'}, '', 20, {VISIBILITY => 'SECRET'}
flush 't'
scan 't'
EOF
    expect_status 0
    expect_output <<'EOF'
Created table t
ROW                                   COLUMN+CELL
 p1                                   column=b:y, timestamp=10, value=p1b
 p2                                   column=a:x, timestamp=30, value=p2a
2 row(s)
ROW                                   COLUMN+CELL
 p2                                   column=a:x, timestamp=30, value=p2a
 r1                                   column=a:x, timestamp=10, value=r1a
2 row(s)
EOF
}

@test "delete {ROWPREFIXFILTER => ...}, 'f:q' deletes the newest version in each row" {
    cellsh_script <<'EOF'
create 't', {NAME => 'f', VERSIONS => 3}
put 't', 'p1', 'f:q', 'old', 10
put 't', 'p1', 'f:q', 'new', 20
put 't', 'p2', 'f:q', 'only', 10
delete 't', {ROWPREFIXFILTER => 'p'}, 'f:q'
scan 't', {VERSIONS => 3}
EOF
    expect_status 0
    expect_output <<'EOF'
Created table t
ROW                                   COLUMN+CELL
 p1                                   column=f:q, timestamp=10, value=old
1 row(s)
EOF
}

@test "the forms HBase rejects are errors and delete nothing" {
    cellsh_e "create 't', 'f'" "put 't', 'r', 'f:q', 'v', 5" "put 't', 'p', 'f:q', 'v', 5"
    expect_status 0
    local cmds=(
        "deleteall 't', {CACHE => 10}"
        "deleteall 't', {ROWPREFIXFILTER => 'p', CACHE => 'many'}"
        "deleteall 't', 'r', {VISIBILITY => 'X'}"
        "deleteall 't', 'r', 'f:q', 10, 20"
        "deleteall 't', 'r', 'f:q', 'soon'"
        "deleteall 't', 'r', 'f:q', 10, {NOPE => 1}"
        "deleteall 't', 'r', 'f:q', 10, {VISIBILITY => 'X'}, {VISIBILITY => 'Y'}"
        "deleteall 't', 'r', 'nofamily:q'"
        "deleteall 't', 'r', ':q'"
        "deleteall 't', ['r']"
        "delete 't', 'r'"
        "delete 't', 'r', 'f'"
        "delete 't', 'r', {VISIBILITY => 'X'}"
    )
    expect_each_fails "${cmds[@]}"
    cellsh_e "count 't'"
    expect_output <<'EOF'
2 row(s)
EOF
}
