#!/usr/bin/env bats
# cellsh(1) and the README against the shell: every command the shell has
# is documented with its syntax, every "see SECTION" of the man page names a
# section that exists, and the README's short session shows how to find a
# version's timestamp.

load helpers/cellsh

MAN="$BATS_TEST_DIRNAME/../../man/cellsh.1"
README="$BATS_TEST_DIRNAME/../../README.md"

setup() { cellsh_setup; }
teardown() { cellsh_teardown; }

# The words of the tags of the man page's .TP entries: "enable", "disable"
# from ".BR enable ", " disable " \fI'table'\fP"".
tag_words() {
    awk 'prev == ".TP" && /^\.B/ { print } { prev = $0 }' "$MAN" |
        sed -E 's/^\.BR? //; s/\\f[IPRB]//g; s/"//g' | tr ' ,|[' '\n\n\n\n' | grep -E '^[a-z_]+$'
}

@test "cellsh(1) documents every command of the shell, each with its arguments" {
    local commands c missing=""
    commands="$("$CELLSH" "$STORE" -e help | sed -n 's/^  Commands: //p' | tr -d ',')"
    [ -n "$commands" ]
    local words
    words="$(tag_words | sort -u)"
    for c in $commands; do
        printf '%s\n' "$words" | grep -qx "$c" || missing="$missing $c"
    done
    if [ -n "$missing" ]; then
        echo "not in cellsh(1):$missing" >&2
        return 1
    fi
}

@test "every 'see SECTION' in cellsh(1) names a section, every page it names exists" {
    local refs ref bad=""
    # a line ending in "see" followed by ".B SECTION" or ".BR "SECTION" ..."
    refs="$(awk 'seen { print; seen = 0 } /see$/ { seen = 1 }' "$MAN" |
        sed -nE 's/^\.BR? +("([^"]+)"|([^ ]+)).*/\2\3/p')"
    [ -n "$refs" ]
    while IFS= read -r ref; do
        case "$ref" in
        *[a-z]*) # a page: ours must be in man/
            case "$ref" in
            cellfs|cellsh|cellbench|kvcore)
                ls "$(dirname "$MAN")/$ref".[0-9] >/dev/null 2>&1 || bad="$bad page:$ref";;
            esac;;
        *) grep -qE "^\.S[HS] +\"?$ref\"?$" "$MAN" || bad="$bad section:$ref";;
        esac
    done <<< "$refs"
    if [ -n "$bad" ]; then
        echo "broken references:$bad" >&2
        return 1
    fi
}

@test "the README's short session shows how to find a version's timestamp" {
    grep -q -- "-o versions" "$README"
    grep -qE "ls .*@\*|ls .*q@" "$README"
}
