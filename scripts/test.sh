#!/usr/bin/env bash
# Sets everything up, then runs every test suite: the include-graph check of
# libkvcore's layers, the C unit tests, the same unit tests under
# AddressSanitizer and UndefinedBehaviorSanitizer, the threaded ones under
# ThreadSanitizer, the bats tests of the shell and the mounted filesystem,
# the shell's and the mount's (fs_basic, fs_tools) bats tests again on
# Cloud Bigtable's emulator, then the bats
# tests again against the ASan+UBSan build (all) and the TSan build (the
# filesystem and the shell; scripts/sanitize_bats.sh). Ends with one line
# "N passed, M failed, K skipped" summing all suites; exits non-zero if any
# test failed.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh || { echo "0 passed, 1 failed"; exit 1; }

passed=0 failed=0 skipped=0
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

# Every test file must be registered with a suite.
for f in tests/unit/test_*.c tests/bigtable/test_*.c; do
  [ -e "$f" ] || continue
  name=$(basename "$f" .c)
  if ! grep -q "'$name'" "$(dirname "$f")/meson.build"; then
    echo "UNREGISTERED: $f is not listed in $(dirname "$f")/meson.build"
    failed=$((failed + 1))
  fi
done

echo "== include graph (scripts/check_includes.py)"
if python3 scripts/check_includes.py; then
  passed=$((passed + 1))
else
  failed=$((failed + 1))
fi

count_meson() {   # $1 = build dir, $2 = label, then the tests to run (default all)
  local out="$log/$2.txt" dir="$1" label="$2"
  shift 2
  meson test -C "$dir" --print-errorlogs "$@" >"$out" 2>&1
  local ok fail skip
  ok=$(awk '/^Ok:/ {print $2}' "$out"); fail=$(awk '/^Fail:/ {print $2}' "$out")
  skip=$(awk '/^Skipped:/ {print $2}' "$out")
  local timeout; timeout=$(awk '/^Timeout:/ {print $2}' "$out")
  fail=$(( ${fail:-0} + ${timeout:-0} ))
  if [ -z "$ok" ]; then fail=$((fail + 1)); ok=0; fi
  grep -E '^ *[0-9]+/[0-9]+ ' "$out"
  [ "$fail" -gt 0 ] && sed -n '/^--- command ---/,$p' "$out" | tail -80
  echo "$label: ${ok} passed, ${fail} failed, ${skip:-0} skipped"
  passed=$((passed + ok)); failed=$((failed + fail)); skipped=$((skipped + ${skip:-0}))
}

echo "== unit tests"
count_meson build unit

echo "== unit tests under ASan+UBSan"
if [ ! -d build-asan ]; then
  meson setup build-asan -Db_sanitize=address,undefined -Db_lundef=false >/dev/null
fi
asan_built=0
if ninja -C build-asan >"$log/asan-build.txt" 2>&1; then
  asan_built=1
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1 count_meson build-asan unit-asan
else
  tail -30 "$log/asan-build.txt"; failed=$((failed + 1))
fi

echo "== threaded unit tests under ThreadSanitizer"
if [ ! -d build-tsan ]; then
  meson setup build-tsan -Db_sanitize=thread -Db_lundef=false >/dev/null
else
  meson configure build-tsan -Dfuse=true -Dtools=true >/dev/null   # older trees lacked them
fi
tsan_built=0
if ninja -C build-tsan >"$log/tsan-build.txt" 2>&1; then
  tsan_built=1
  TSAN_OPTIONS=halt_on_error=1 count_meson build-tsan unit-tsan test_concurrency test_durability test_memstore test_env
else
  tail -30 "$log/tsan-build.txt"; failed=$((failed + 1))
fi

count_bats() {   # $1 = TAP output of bats, $2 = label
  local ok skip notok
  cat "$1"
  ok=$(grep -cE '^ok [0-9]+' "$1" | tr -d ' ')
  skip=$(grep -cE '^ok [0-9]+ .*# skip' "$1" | tr -d ' ')
  notok=$(grep -cE '^not ok [0-9]+' "$1" | tr -d ' ')
  ok=$((ok - skip))
  echo "$2: ${ok} passed, ${notok} failed, ${skip} skipped"
  passed=$((passed + ok)); failed=$((failed + notok)); skipped=$((skipped + skip))
}

echo "== bats tests"
if ls tests/bats/*.bats >/dev/null 2>&1; then
  CELLFS_BUILD="$(pwd)/build" bats --tap tests/bats >"$log/bats.txt" 2>&1
  count_bats "$log/bats.txt" bats
fi

# The shell's tests and the mount's everyday-tool tests again on a Cloud
# Bigtable location (one emulator for the run, an instance per test;
# tests/bats/helpers/backend.bash), skipping each test that needs what
# Bigtable lacks, naming it.
echo "== cellsh and cellfs bats tests on Cloud Bigtable (the emulator)"
CELLFS_BACKEND=bigtable CELLFS_BUILD="$(pwd)/build" scripts/bt_emulator.sh run \
  bats --tap tests/bats/cellsh_*.bats tests/bats/fs_basic.bats tests/bats/fs_tools.bats \
    tests/bats/fs_cache.bats \
  >"$log/bats-bigtable.txt" 2>&1
case $? in
  77) cat "$log/bats-bigtable.txt"; echo "bats-bigtable: skipped"; skipped=$((skipped + 1)) ;;
  *) count_bats "$log/bats-bigtable.txt" bats-bigtable ;;
esac

# Sanitizer reports of cellfs, cellsh and the tools fail these runs.
run_sanitized() {   # $1 = build dir, $2 = label, then the bats files
  local out="$log/$2.txt" t0=$SECONDS
  bash scripts/sanitize_bats.sh "$@" >"$out" 2>&1
  cat "$out"
  echo "($2 took $((SECONDS - t0)) s)"
  if [[ "$(tail -1 "$out")" =~ ([0-9]+)\ passed,\ ([0-9]+)\ failed,\ ([0-9]+)\ skipped ]]; then
    passed=$((passed + BASH_REMATCH[1])); failed=$((failed + BASH_REMATCH[2]))
    skipped=$((skipped + BASH_REMATCH[3]))
  else
    failed=$((failed + 1))
  fi
}
echo "== bats tests under ASan+UBSan"
[ "$asan_built" -eq 1 ] && run_sanitized build-asan bats-asan tests/bats/*.bats
echo "== filesystem and shell bats tests under ThreadSanitizer"
[ "$tsan_built" -eq 1 ] && run_sanitized build-tsan bats-tsan tests/bats/fs_*.bats tests/bats/cellsh_*.bats

echo "${passed} passed, ${failed} failed, ${skipped} skipped"
[ "$failed" -eq 0 ]
