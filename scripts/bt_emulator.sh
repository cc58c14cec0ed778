#!/usr/bin/env bash
# Starts and stops Google's Cloud Bigtable emulator for tests, on a free
# loopback port, and stops it by the pid it started.
#
#   bt_emulator.sh start DIR     start; DIR/addr holds host:port, DIR/pid the pid
#   bt_emulator.sh stop DIR      stop the emulator started into DIR
#   bt_emulator.sh run CMD ARGS  start, run CMD with BIGTABLE_EMULATOR_HOST set,
#                                stop; exits with CMD's status
#
# The emulator comes with the Google Cloud CLI (package
# google-cloud-cli-bigtable-emulator, not in Debian). Where it is absent,
# start and run print why and exit 77, the code meson and our suites count as
# "skipped". $CBTEMULATOR overrides where the binary is looked for.
set -uo pipefail

find_emulator() {
  local c
  for c in "${CBTEMULATOR:-}" /usr/lib/google-cloud-sdk/platform/bigtable-emulator/cbtemulator \
           /usr/share/google-cloud-sdk/platform/bigtable-emulator/cbtemulator; do
    [ -n "$c" ] && [ -x "$c" ] && { echo "$c"; return 0; }
  done
  if command -v gcloud >/dev/null 2>&1; then
    c="$(dirname "$(readlink -f "$(command -v gcloud)")")/../platform/bigtable-emulator/cbtemulator"
    [ -x "$c" ] && { readlink -f "$c"; return 0; }
  fi
  return 1
}

start() {   # $1 = state dir
  local dir="$1" emu
  if ! emu=$(find_emulator); then
    echo "SKIP: the Cloud Bigtable emulator (cbtemulator, package google-cloud-cli-bigtable-emulator) is not installed" >&2
    return 77
  fi
  mkdir -p "$dir"
  # Port 0: the emulator picks a free port and prints it.
  "$emu" -host 127.0.0.1 -port 0 >"$dir/log" 2>&1 &
  echo $! >"$dir/pid"
  local i addr=""
  for i in $(seq 1 200); do
    addr=$(sed -n 's/.*running on \([0-9.]*:[0-9]*\).*/\1/p' "$dir/log" | head -1)
    if [ -n "$addr" ] && (exec 3<>"/dev/tcp/${addr%:*}/${addr#*:}") 2>/dev/null; then
      echo "$addr" >"$dir/addr"
      echo "$addr"
      return 0
    fi
    kill -0 "$(cat "$dir/pid")" 2>/dev/null || break
    sleep 0.1
  done
  echo "bt_emulator: the emulator did not start:" >&2
  cat "$dir/log" >&2
  stop "$dir"
  return 1
}

stop() {   # $1 = state dir
  local dir="$1" pid
  [ -f "$dir/pid" ] || return 0
  pid=$(cat "$dir/pid")
  if kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null
  fi
  wait "$pid" 2>/dev/null
  rm -f "$dir/pid" "$dir/addr"
}

case "${1:-}" in
  start) [ $# -eq 2 ] || { echo "usage: $0 start DIR" >&2; exit 2; }; start "$2" ;;
  stop) [ $# -eq 2 ] || { echo "usage: $0 stop DIR" >&2; exit 2; }; stop "$2" ;;
  run)
    shift
    [ $# -ge 1 ] || { echo "usage: $0 run CMD [ARGS...]" >&2; exit 2; }
    dir=$(mktemp -d "${TMPDIR:-/tmp}/btemu-XXXXXX")
    addr=$(start "$dir"); rc=$?
    if [ $rc -ne 0 ]; then rm -rf "$dir"; exit $rc; fi
    trap 'stop "$dir"; rm -rf "$dir"' EXIT
    BIGTABLE_EMULATOR_HOST="$addr" "$@"
    ;;
  *) echo "usage: $0 start DIR | stop DIR | run CMD [ARGS...]" >&2; exit 2 ;;
esac
