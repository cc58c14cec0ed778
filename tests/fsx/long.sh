#!/usr/bin/env bash
# fsx's long mode, run by hand (tests/fsx/README.md): every seed given runs
# OPS operations in file mode and in table mode, first on a native
# directory (the self-check), then on a cellfs mount of a new store (the
# table mode remounting it every REMOUNT operations). Prints one line per
# run, "passed" or fsx's FAIL line, keeps each run's output in the work
# directory, and exits 1 if any run failed.
#
#   tests/fsx/long.sh [-b BUILD] [-n OPS] [-F] [-f "FSX FLAGS"] [-t "TABLE FLAGS"] SEED...
#
# -F runs the file mode only (native and cellfs).
# -f adds flags to the file-mode runs on cellfs (e.g. "-R -W -T -D" for
# the classes today's driver passes), -t to the table-mode runs on cellfs
# (e.g. "-P 2 -U -x empty,rename,xrename,rmrow,vput,vrm,utimens"). Defaults: the
# build in ./build, 100000 operations, every operation class.
set -u
cd "$(dirname "$0")/../.."
BUILD="$(pwd)/build" OPS=100000 FILE_FLAGS="" TABLE_FLAGS="" REMOUNT=5000 FILE_ONLY=0
while getopts "b:n:f:t:F" opt; do
    case $opt in
    b) BUILD=$(realpath "$OPTARG") ;;
    n) OPS=$OPTARG ;;
    f) FILE_FLAGS=$OPTARG ;;
    t) TABLE_FLAGS=$OPTARG ;;
    F) FILE_ONLY=1 ;;
    *) exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { echo "usage: $0 [-b BUILD] [-n OPS] [-F] [-f FLAGS] [-t FLAGS] SEED..." >&2; exit 2; }
export CELLFS_BUILD="$BUILD"
FSX="$BUILD/tests/fsx/fsx"
HELPERS="$(pwd)/tests/bats/helpers"
# shellcheck source=../bats/helpers/mount.bash
source "$HELPERS/mount.bash"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/fsx-long.XXXXXX")
FS_TMP="$WORK/cellfs" STORE="$WORK/cellfs/store" MNT="$WORK/cellfs/mnt" FS_PIDS=""
mkdir -p "$MNT"
cleanup() {
    if [ -f "$FS_TMP/daemon.pids" ]; then FS_PIDS="$FS_PIDS $(tr '\n' ' ' <"$FS_TMP/daemon.pids")"; fi
    fs_unmount "$MNT"
    local p
    for p in $FS_PIDS; do kill "$p" 2>/dev/null || true; done
}
trap cleanup EXIT

fs_mount "$STORE" "$MNT" -o create >/dev/null || exit 1
echo "$FS_PID" >"$FS_TMP/daemon.pid"
: >"$FS_TMP/daemon.pids"
mkdir -p "$MNT/default/t/r/cf"
REMOUNT_CMD="bash '$HELPERS/fsx_remount.sh' '$FS_TMP' '$STORE' '$MNT'"

failed=0
one() {   # one NAME COMMAND...: runs an fsx command, prints its outcome
    local name=$1 out="$WORK/$1.txt" t0=$SECONDS
    shift
    if "$@" >"$out" 2>&1; then
        printf '%-28s passed (%d s): %s\n' "$name" $((SECONDS - t0)) "$(grep -o '(.*)' "$out" | tail -1 | cut -c1-150)"
    else
        failed=1
        printf '%-28s %s\n' "$name" "$(grep -m1 'FAIL at' "$out" || tail -1 "$out")"
    fi
}

echo "fsx long mode: $OPS operations per run; outputs in $WORK"
for seed in "$@"; do
    one "native file seed $seed" "$FSX" -S "$seed" -N "$OPS" "$WORK/native-file-$seed"
    [ "$FILE_ONLY" = 1 ] ||
        one "native table seed $seed" "$FSX" -M -n -S "$seed" -N "$OPS" -r true -m "$REMOUNT" \
            "$WORK/native-table-$seed"
    # shellcheck disable=SC2086
    one "cellfs file seed $seed" "$FSX" -S "$seed" -N "$OPS" $FILE_FLAGS "$MNT/default/t/r/cf/q$seed"
    [ "$FILE_ONLY" = 1 ] && continue
    # shellcheck disable=SC2086
    one "cellfs table seed $seed" "$FSX" -M -S "$seed" -N "$OPS" -C 500 $TABLE_FLAGS \
        -r "$REMOUNT_CMD" -m "$REMOUNT" "$MNT/default/fsx$seed"
done
exit $failed
