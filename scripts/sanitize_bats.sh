#!/usr/bin/env bash
# Runs bats files against a sanitizer build (CELLFS_BUILD=BUILD): cellfs,
# cellsh and every tool the tests start are that build's. Each sanitized
# process writes its reports (AddressSanitizer with LeakSanitizer,
# UndefinedBehaviorSanitizer, ThreadSanitizer) to a file of its own
# (log_path=DIR/<tool>.<pid>); after each bats file, every new report is
# shown and counts as one failed test, named after the file and the
# process. Reports listed in tests/sanitizers/*.supp (known ones, each
# with its entry in tests/fsx/KNOWN_FAILURES.md) are suppressed.
#
#   scripts/sanitize_bats.sh BUILD LABEL BATSFILE...
#
# Ends with "LABEL: N passed, M failed, K skipped (R sanitizer reports)"
# and exits 1 when anything failed. Used by scripts/test.sh.
set -uo pipefail
cd "$(dirname "$0")/.."
build=$(realpath "$1") label=$2
shift 2
supp="$(pwd)/tests/sanitizers"
logs=$(mktemp -d "${TMPDIR:-/tmp}/sanitize-$label.XXXXXX")
trap 'rm -rf "$logs"' EXIT
mkdir -p "$logs/reports" "$logs/seen"

export CELLFS_BUILD="$build"
# halt_on_error=0 where the tool allows it: the run goes on and every report
# is counted; ASan stops at its first memory error (it cannot go on). ASan
# keeps freed memory in a quarantine (256 MiB by default) that would count
# as the daemon's memory in fs_scale.bats's bound; 16 MiB still catches
# the use of memory freed shortly before.
export ASAN_OPTIONS="log_path=$logs/reports/asan:log_exe_name=1:detect_leaks=1:halt_on_error=1:quarantine_size_mb=16"
export LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="log_path=$logs/reports/ubsan:log_exe_name=1:print_stacktrace=1:halt_on_error=0:suppressions=$supp/ubsan.supp"
export TSAN_OPTIONS="log_path=$logs/reports/tsan:log_exe_name=1:halt_on_error=0:second_deadlock_stack=1:suppressions=$supp/tsan.supp:report_signal_unsafe=0"

passed=0 failed=0 skipped=0 reports=0

# new_reports WHERE: shows and counts the report files not seen yet.
new_reports() {
    local f
    for f in "$logs"/reports/*; do
        [ -e "$f" ] || continue
        [ -e "$logs/seen/$(basename "$f")" ] && continue
        # A file is complete when its process has exited.
        local pid=${f##*.} i
        for i in $(seq 1 100); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        : >"$logs/seen/$(basename "$f")"
        [ -s "$f" ] || continue
        # log_exe_name=1 names the files <tool>.<program>.<pid>.
        local name exe
        name=$(basename "$f")
        exe=${name#*.}
        exe=${exe%.*}
        echo "not ok - sanitizer report in $1 from $exe (pid $pid): $name"
        sed 's/^/# /' "$f" | head -60
        reports=$((reports + 1))
        failed=$((failed + 1))
    done
}

# known_failure FILE NAME: the entry of tests/sanitizers/known_failures.txt
# for this label, or nothing.
known_failure() {
    awk -F' [|] ' -v l="$label" -v f="$1" -v n="$2" \
        '$0 !~ /^#/ && $1 == l && $2 == f && $3 == n { print $4; exit }' \
        "$supp/known_failures.txt"
}

for file in "$@"; do
    out="$logs/$(basename "$file").tap"
    bats --tap "$file" >"$out.raw" 2>&1
    # A test known to fail under this build becomes a skip naming its entry.
    while IFS= read -r line; do
        if [[ "$line" =~ ^not\ ok\ ([0-9]+)\ (.*)$ ]]; then
            entry=$(known_failure "$(basename "$file")" "${BASH_REMATCH[2]}")
            if [ -n "$entry" ]; then
                line="ok ${BASH_REMATCH[1]} ${BASH_REMATCH[2]} # skip known failure under $label: $entry (tests/fsx/KNOWN_FAILURES.md)"
            fi
        fi
        printf '%s\n' "$line"
    done <"$out.raw" >"$out"
    cat "$out"
    ok=$(grep -cE '^ok [0-9]+' "$out")
    skip=$(grep -cE '^ok [0-9]+ .*# skip' "$out")
    notok=$(grep -cE '^not ok [0-9]+' "$out")
    # A file that did not run at all is one failure.
    if [ "$ok" -eq 0 ] && [ "$notok" -eq 0 ]; then notok=1; fi
    passed=$((passed + ok - skip)) skipped=$((skipped + skip)) failed=$((failed + notok))
    new_reports "$(basename "$file")"
done
new_reports "the run (late)"
echo "$label: ${passed} passed, ${failed} failed, ${skipped} skipped (${reports} sanitizer reports)"
[ "$failed" -eq 0 ]
