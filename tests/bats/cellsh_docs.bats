#!/usr/bin/env bats
# The man pages and the README against the code: every command the shell
# has is in cellsh(1) with its syntax, every "see SECTION" of every man page
# names a section that exists, all pages carry one date and the project's
# version, kvcore(3)'s synopsis lists every call its example uses, kvcore(3)
# names every function the built libkvcore.so exports (and calls none it
# lacks), and the README's short session shows how to find a version's
# timestamp.

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

@test "every 'see SECTION' in the man pages names a section of that page, every page it names exists" {
    local man refs ref bad="" n=0
    for man in "$(dirname "$MAN")"/*.[0-9]; do
        # a line ending in "see" followed by ".B SECTION" or ".BR "SECTION" ..."
        refs="$(awk 'seen { print; seen = 0 } /see$/ { seen = 1 }' "$man" |
            sed -nE 's/^\.BR? +("([^"]+)"|([^ ]+)).*/\2\3/p')"
        while IFS= read -r ref; do
            [ -n "$ref" ] || continue
            n=$((n + 1))
            if [[ "$ref" =~ ^[a-z0-9_.-]+$ ]]; then   # a page: ours must be in man/
                case "$ref" in
                cellfs|cellsh|cellbench|cellck|kvcore)
                    ls "$(dirname "$MAN")/$ref".[0-9] >/dev/null 2>&1 || bad="$bad ${man##*/}:page:$ref";;
                esac
            else
                grep -qE "^\.S[HS] +\"?$ref\"?$" "$man" || bad="$bad ${man##*/}:section:$ref"
            fi
        done <<< "$refs"
    done
    [ "$n" -gt 5 ]
    if [ -n "$bad" ]; then
        echo "broken references:$bad" >&2
        return 1
    fi
}

@test "every man page carries one date and one version, the project's" {
    local version dates
    version="$(sed -nE "s/^ *version : '([^']+)'.*/\1/p" "$(dirname "$MAN")/../meson.build")"
    [ -n "$version" ]
    dates="$(sed -nE 's/^\.TH [A-Z]+ [0-9] "([^"]*)" "cellfs ([^"]*)".*/\1 \2/p' "$(dirname "$MAN")"/*.[0-9] | sort -u)"
    [ "$(ls "$(dirname "$MAN")"/*.[0-9] | wc -l)" -eq "$(grep -l '^\.TH [A-Z]* [0-9] "[^"]*" "cellfs ' "$(dirname "$MAN")"/*.[0-9] | wc -l)" ]
    [ "$(printf '%s\n' "$dates" | wc -l)" -eq 1 ]
    [ "${dates#* }" = "$version" ]
}

@test "kvcore(3)'s synopsis lists every call its example uses" {
    local k3="$(dirname "$MAN")/kvcore.3" used missing="" c
    used="$(sed -n '/^\.SH EXAMPLE/,/^\.SH /p' "$k3" | grep -oE '\bkv_[a-z_]+\(' | tr -d '(' | sort -u)"
    [ -n "$used" ]
    for c in $used; do
        sed -n '/^\.SH SYNOPSIS/,/^\.SH /p' "$k3" | grep -q "[ *]$c(" || missing="$missing $c"
    done
    if [ -n "$missing" ]; then
        echo "used in EXAMPLE, not in SYNOPSIS:$missing" >&2
        return 1
    fi
}

@test "the README's short session shows how to find a version's timestamp" {
    grep -q -- "-o versions" "$README"
    grep -qE "ls .*@\*|ls .*q@" "$README"
}

@test "kvcore(3) names every function the built libkvcore.so exports, and no kv_ call it lacks" {
    command -v nm >/dev/null || skip "nm (binutils) not installed"
    local k3="$(dirname "$MAN")/kvcore.3"
    local so="${CELLFS_BUILD:-$BATS_TEST_DIRNAME/../../build}/kvcore/libkvcore.so.0"
    [ -f "$so" ]
    local exported named missing="" extra="" f
    exported="$(nm -D --defined-only "$so" | awk '$2 == "T" { sub(/@.*/, "", $3); print $3 }' |
        grep '^kv_' | sort -u)"
    [ "$(printf '%s\n' "$exported" | wc -l)" -gt 40 ]
    # every kv_name( written as a call or in a .BR kv_name () reference
    named="$(sed -E 's/\\f[BIRP]//g; s/^\.B[IR]? //; s/" //g' "$k3" |
        grep -oE '\bkv_[a-z0-9_]+ ?\(' | tr -d ' (' | sort -u)"
    for f in $exported; do
        grep -qw -- "$f" "$k3" || missing="$missing $f"
    done
    for f in $named; do
        printf '%s\n' "$exported" | grep -qx -- "$f" || extra="$extra $f"
    done
    if [ -n "$missing$extra" ]; then
        echo "exported, not in kvcore(3):$missing" >&2
        echo "called in kvcore(3), not exported:$extra" >&2
        return 1
    fi
}
