#!/usr/bin/env bats
# scripts/check_includes.py, the layer and cycle check of libkvcore's
# includes, passes on the tree and fails on a planted upward include, a
# planted module cycle, an include between peer backends and a user of the
# library that includes an internal header. Each test works on a copy.

CHECK="$BATS_TEST_DIRNAME/../../scripts/check_includes.py"
SRC="$BATS_TEST_DIRNAME/../.."

setup() {
    TREE="$(mktemp -d "${BATS_TMPDIR:-/tmp}/include-check.XXXXXX")"
    cp -r "$SRC/kvcore" "$SRC/fusefs" "$TREE/"
}

teardown() {
    [ -n "${TREE:-}" ] && rm -rf "$TREE"
}

@test "include check: the tree passes" {
    run python3 "$CHECK" --root "$TREE"
    [ "$status" -eq 0 ]
    [[ "$output" == *"no upward include, no cycle"* ]]
}

@test "include check: an include of a higher layer fails, naming file and layers" {
    printf '#include "engine/tables.h"\n' >> "$TREE/kvcore/table/block.c"
    run python3 "$CHECK" --root "$TREE"
    [ "$status" -eq 1 ]
    [[ "$output" == *"kvcore/table/block.c"*"goes up from table/ to engine/"* ]]
}

@test "include check: a cycle between modules fails, naming the cycle" {
    # write.c includes flush.h; flush.c including write.h closes a cycle.
    printf '#include "write.h"\n' >> "$TREE/kvcore/engine/flush.c"
    run python3 "$CHECK" --root "$TREE"
    [ "$status" -eq 1 ]
    [[ "$output" == *"module cycle:"*"kvcore/engine/flush"*"kvcore/engine/write"* ]]
}

@test "include check: peer folders of one rank share no code" {
    mkdir -p "$TREE/kvcore/model"
    printf '#include "engine/matcher.h"\n' > "$TREE/kvcore/model/x.c"
    run python3 "$CHECK" --root "$TREE"
    [ "$status" -eq 1 ]
    [[ "$output" == *"model/ and engine/ are peers"* ]]
}

@test "include check: fusefs may include only kvcore.h, and includes must resolve" {
    printf '#include "util/coding.h"\n' >> "$TREE/fusefs/path.c"
    printf '#include "no_such_header.h"\n' >> "$TREE/kvcore/util/coding.c"
    printf 'int x;\n' > "$TREE/kvcore/flat.c"
    run python3 "$CHECK" --root "$TREE"
    [ "$status" -eq 1 ]
    [[ "$output" == *"fusefs/path.c"*"may include only kvcore.h"* ]]
    [[ "$output" == *"no_such_header.h\" does not resolve"* ]]
    [[ "$output" == *"kvcore/flat.c: kvcore/ sources belong in a layer folder"* ]]
}
