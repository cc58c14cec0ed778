#!/usr/bin/env bash
# Runs the libFuzzer targets of tests/fuzz for N seconds each (default 60):
#   scripts/fuzz.sh [SECONDS] [TARGET...]
# Builds ./build-fuzz with clang (-Dfuzzing=true, ASan + UBSan) if needed.
# Each target starts from its seed corpus (tests/fuzz/corpus/T, read only)
# and keeps what it finds new in build-fuzz/corpus/T; crashing inputs are
# written to build-fuzz/crashes/T/. Copy one into tests/fuzz/regressions/T/
# (prefix "xfail-" while it is not fixed) and record it in
# tests/fuzz/FINDINGS.md. Exits non-zero if any target crashed.
# FUZZ_KEEP_GOING=1 runs each target in libFuzzer's fork mode and carries on
# past crashes, out-of-memory and timeouts (every one is still kept).
set -uo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(sst wal store filter schema cellsh names)

if [ ! -f build-fuzz/build.ninja ]; then
  CC=clang meson setup build-fuzz -Dfuzzing=true -Db_sanitize=address,undefined \
    -Db_lundef=false >/dev/null || exit 1
fi
ninja -C build-fuzz $(printf 'tests/fuzz/fuzz_%s ' "${targets[@]}") >/dev/null || exit 1

# Scratch directories of crashed inputs stay in the build tree.
mkdir -p build-fuzz/tmp
export TMPDIR="$PWD/build-fuzz/tmp"
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
status=0
for t in "${targets[@]}"; do
  mkdir -p "build-fuzz/corpus/$t" "build-fuzz/crashes/$t"
  log="build-fuzz/fuzz-$t.log"
  echo "fuzz: $t for ${secs}s (log $log)"
  # -rss_limit_mb / -malloc_limit_mb: an input that makes the reader
  # allocate gigabytes is a finding (issue 11 defect 8), not a hang.
  extra=()
  [ "${FUZZ_KEEP_GOING:-0}" = 1 ] && extra=(-fork=1 -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1)
  build-fuzz/tests/fuzz/fuzz_"$t" "${extra[@]}" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
    -malloc_limit_mb=1024 -max_len=65536 -artifact_prefix="build-fuzz/crashes/$t/" \
    "build-fuzz/corpus/$t" "tests/fuzz/corpus/$t" >"$log" 2>&1
  rc=$?
  grep -E '^(#[0-9]+: |#[0-9]+ +DONE|Done [0-9]+ runs)' "$log" | tail -1
  if [ $rc -ne 0 ] || [ -n "$(ls "build-fuzz/crashes/$t/")" ]; then
    echo "fuzz: $t FAILED (exit $rc); inputs in build-fuzz/crashes/$t/:"
    ls "build-fuzz/crashes/$t/"
    status=1
  fi
done
exit $status
