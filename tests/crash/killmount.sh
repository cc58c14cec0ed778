#!/usr/bin/env bash
# kill -9 of the cellfs daemon under real tools (cp, tee, touch, rsync -a),
# cycle after cycle, checked against what each tool was told:
#
#   tests/crash/killmount.sh BUILD_DIR WORK_DIR [CYCLES] [SEED]
#
# KILLMOUNT_OPTS adds cellfs options (e.g. "-o write_buffer=262144", so that
# flushes and compactions run while the daemon is killed).
# Each cycle mounts the store (cellfs STORE MNT -f -o create), runs a writer
# in the background that, for n = 1, 2, ..., copies a fresh file with cp,
# writes a line with `echo | tee q`, copies a directory of files into a new
# row with rsync -a, creates an empty file with touch, or appends a line
# with `tee -a` to a cell of a row stored before the loop, and records n in
# an ack list when the tool exited 0 (each of them reports a failed
# close(2); the shell's own > and >> do not, see cellfs(1), WRITING);
# the daemon gets SIGKILL after a random 20-600 ms, the mount is detached
# (fusermount3 -u -z), and the writer ends on its first failure.
# Then, with the store remounted, every acknowledged write of every cycle
# so far must read back byte for byte (cellfs(1), WRITING: "Every closed
# file survives the death of the daemon (SIGKILL included)"), and a write
# that was not acknowledged must be absent or whole (never a mix). At the
# end cellck must be clean. Exit status 0 when every check held.
set -uo pipefail
build=$1
work=$2
cycles=${3:-10}
seed=${4:-11}
CELLFS="$build/fusefs/cellfs"
CELLCK="$build/tools/cellck"
store="$work/store"
mnt="$work/mnt"
src="$work/src"
acks="$work/acks"
mkdir -p "$mnt" "$src"
: >"$acks"
RANDOM=$seed
fail=0

is_mounted() { awk -v d="$(realpath -m "$1")" '$2 == d { f = 1 } END { exit !f }' /proc/mounts; }

mount_store() {
    # shellcheck disable=SC2086
    "$CELLFS" "$store" "$mnt" -f -o create ${KILLMOUNT_OPTS:-} 2>>"$work/cellfs.log" &
    FS_PID=$!
    for _ in $(seq 1 200); do
        is_mounted "$mnt" && return 0
        kill -0 "$FS_PID" 2>/dev/null || { echo "killmount: cellfs exited before mounting" >&2; tail "$work/cellfs.log" >&2; return 1; }
        sleep 0.05
    done
    return 1
}

unmount_store() {
    for _ in $(seq 1 50); do
        is_mounted "$mnt" || break
        fusermount3 -u "$mnt" 2>/dev/null && break
        sleep 0.1
    done
    is_mounted "$mnt" && fusermount3 -u -z "$mnt" 2>/dev/null
    wait "$FS_PID" 2>/dev/null
    return 0
}

# content N: what write N puts (deterministic, so the check can remake it).
content() {
    local n=$1
    case $((n % 5)) in
        0) head -c $(( (n * 7919) % 200000 + 1 )) <(yes "cp-$n-$seed" | tr -d '\n') ;;
        1) echo "echo-$n-$seed" ;;
        2) printf 'rsync-%s-%s-a\n' "$n" "$seed" ;;
    esac
}

# writer FIRST: runs writes FIRST, FIRST+1, ... until one fails; appends
# each acknowledged number to $acks.
writer() {
    # Relative paths from inside the mount: once the daemon is dead and the
    # mount detached, they fail (ENOTCONN) instead of landing in $mnt.
    local n=$1 t=.
    cd "$mnt/default/t" || { echo "$n" >"$work/next"; return; }
    while :; do
        local ok=1
        case $((n % 5)) in
            0) content "$n" >"$src/f$n"
               mkdir -p "$t/c$n/f" 2>/dev/null && cp "$src/f$n" "$t/c$n/f/q" 2>/dev/null || ok=0 ;;
            # The shell's own redirections (echo > q, : > q, >>) do not check
            # close(2), where a cell is stored: a kill between the write and
            # the close would be acknowledged without being stored. tee and
            # touch report a failed close.
            1) mkdir -p "$t/e$n/f" 2>/dev/null && echo "echo-$n-$seed" | tee "$t/e$n/f/q" >/dev/null 2>&1 || ok=0 ;;
            2) rm -rf "$src/d$n"; mkdir -p "$src/d$n/f"
               printf 'rsync-%s-%s-a\n' "$n" "$seed" >"$src/d$n/f/a"
               printf 'rsync-%s-%s-b\n' "$n" "$seed" >"$src/d$n/f/b"
               rsync -a "$src/d$n/" "$t/s$n/" 2>/dev/null || ok=0 ;;
            3) mkdir -p "$t/z$n/f" 2>/dev/null && touch "$t/z$n/f/q" 2>/dev/null || ok=0 ;;
            4) echo "app-$n-$seed" | tee -a "$t/pre$(( n / 5 % 60 + 1 ))/f/log" >/dev/null 2>&1 || ok=0 ;;
        esac
        [ $ok = 1 ] || break
        echo "$n" >>"$acks"
        n=$((n + 1))
    done
    echo "$n" >"$work/next"
}

# check: every acknowledged write reads back; the one in flight is absent
# or whole.
check() {
    local t="$mnt/default/t" n bad=0
    while read -r n; do
        case $((n % 5)) in
            0) cmp -s <(content "$n") "$t/c$n/f/q" || { echo "killmount: LOST cp $n: $(stat -c %s "$t/c$n/f/q" 2>&1)"; bad=1; } ;;
            1) [ "$(cat "$t/e$n/f/q" 2>&1)" = "echo-$n-$seed" ] || { echo "killmount: LOST echo $n: $(cat "$t/e$n/f/q" 2>&1)"; bad=1; } ;;
            2) [ "$(cat "$t/s$n/f/a" 2>&1)" = "rsync-$n-$seed-a" ] && [ "$(cat "$t/s$n/f/b" 2>&1)" = "rsync-$n-$seed-b" ] \
                   || { echo "killmount: LOST rsync $n: $(cat "$t/s$n/f/a" "$t/s$n/f/b" 2>&1 | tr '\n' ' ')"; bad=1; } ;;
            3) [ -f "$t/z$n/f/q" ] && [ ! -s "$t/z$n/f/q" ] || { echo "killmount: LOST empty file $n: $(stat -c %s "$t/z$n/f/q" 2>&1)"; bad=1; } ;;
            4) grep -qx "app-$n-$seed" "$t/pre$(( n / 5 % 60 + 1 ))/f/log" 2>/dev/null ||
                   { echo "killmount: LOST append $n: $(tail -c 200 "$t/pre$(( n / 5 % 60 + 1 ))/f/log" 2>&1)"; bad=1; } ;;
        esac
    done <"$acks"
    # Appends are atomic: every line of an append cell is whole.
    if cat "$t"/pre*/f/log 2>/dev/null | grep -vqx "app-[0-9]*-$seed"; then
        echo "killmount: TORN append: $(cat "$t"/pre*/f/log | grep -vx "app-[0-9]*-$seed" | head -3)"; bad=1
    fi
    # The write in flight when the daemon died.
    n=$(cat "$work/next")
    case $((n % 5)) in
        0) if [ -e "$t/c$n/f/q" ] && ! cmp -s <(content "$n") "$t/c$n/f/q"; then
               # cp may have been killed part way: cellfs puts a file whole at close, so
               # a partial value is a torn write.
               if [ -s "$t/c$n/f/q" ]; then echo "killmount: TORN cp $n: $(stat -c %s "$t/c$n/f/q") bytes"; bad=1; fi
           fi ;;
        1) if [ -s "$t/e$n/f/q" ] && [ "$(cat "$t/e$n/f/q")" != "echo-$n-$seed" ]; then echo "killmount: TORN echo $n"; bad=1; fi ;;
    esac
    return $bad
}

# What was stored before the loop: must stay.
CELLSH="$build/tools/cellsh"
if [ ! -d "$store" ]; then
    { echo "create 't', 'f'"
      for i in $(seq 1 40); do echo "put 't', 'pre$i', 'f:q', 'pre-$i'"; done
      echo "flush 't'"
      for i in $(seq 41 60); do echo "put 't', 'pre$i', 'f:q', 'pre-$i'"; done
    } | "$CELLSH" -n "$store" >/dev/null || { echo "killmount: cellsh could not make the store"; exit 1; }
fi
check_pre() {
    local i
    for i in $(seq 1 60); do
        [ "$(cat "$mnt/default/t/pre$i/f/q" 2>&1)" = "pre-$i" ] || { echo "killmount: LOST pre$i: $(cat "$mnt/default/t/pre$i/f/q" 2>&1)"; return 1; }
    done
}

total=0
next=1
for c in $(seq 1 "$cycles"); do
    mount_store || { fail=1; break; }
    mkdir -p "$mnt/default/t" 2>/dev/null
    writer "$next" &
    wpid=$!
    sleep "0.$(printf '%03d' $((RANDOM % 580 + 20)))"
    kill -KILL "$FS_PID"
    wait "$FS_PID" 2>/dev/null
    fusermount3 -u -z "$mnt" 2>/dev/null
    wait "$wpid"
    next=$(cat "$work/next")
    if [ -n "$(ls -A "$mnt")" ]; then echo "killmount: the writer wrote beside the mount"; fail=1; break; fi
    mount_store || { echo "killmount: cycle $c: the store does not mount after the kill"; fail=1; break; }
    check || fail=1
    check_pre || fail=1
    next=$((next + 1))
    unmount_store
    [ $fail = 0 ] || { echo "killmount: cycle $c failed"; break; }
done
total=$(wc -l <"$acks")
if [ -x "$CELLCK" ]; then
    out=$("$CELLCK" -q "$store") || { echo "killmount: cellck: $out"; fail=1; }
fi
[ "$total" -gt 0 ] || { echo "killmount: no write was acknowledged: the test tested nothing"; fail=1; }
echo "killmount: $c cycles, $total acknowledged writes checked, $([ $fail = 0 ] && echo ok || echo FAILED)"
exit $fail
