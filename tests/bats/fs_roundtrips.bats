#!/usr/bin/env bats
# cellfs: the FUSE requests that a stat after a write, a second stat, a
# first read and a second read of a small cell cost (BENCHMARKS.md, "Round
# trips of a stat and a first read"). The mount runs with -d, whose log
# names each request's opcode; each test counts the requests one step
# sends. A count going up is a slower mount; one going down below what the
# semantics need (cellfs(1) CACHING, READING) is a promise broken.

load helpers/mount
load helpers/requests

setup() {
    fs_setup -d -o versions
    C="$MNT/default/t/r/cf"
    mkdir "$MNT/default/t"
    mkdir -p "$C"
}

teardown() {
    fs_teardown
}

write_cell() {    # write_cell NAME BYTES: open(O_CREAT|O_TRUNC), one write, close
    python3 -c 'import os,sys; fd=os.open(sys.argv[1], os.O_WRONLY|os.O_CREAT|os.O_TRUNC, 0o644); os.write(fd, b"x"*int(sys.argv[2])); os.close(fd)' "$C/$1" "$2"
}

read_cell() {     # read_cell NAME: open, one read, close
    python3 -c 'import os,sys; fd=os.open(sys.argv[1], os.O_RDONLY); os.read(fd, 65536); os.close(fd)' "$C/$1"
}

@test "a create, write and close is LOOKUP, CREATE, WRITE, FLUSH, RELEASE" {
    mark
    write_cell q 1024
    r=$(requests)
    echo "$r"
    [ "$r" = "CREATE=1 FLUSH=1 LOOKUP=1 RELEASE=1 WRITE=1 " ]
}

@test "a stat after a write is at most one GETATTR, and shows the written size and the cell's time" {
    write_cell q 1024
    mark
    stat "$C/q" > /dev/null
    [ "$(count GETATTR)" -le 1 ]
    [ "$(stat -c %s "$C/q")" = 1024 ]
    ts=$(ls "$MNT/default/t/r/cf" > /dev/null; stat -c %Y "$C/q")
    [ "$ts" -ge "$(( $(date +%s) - 5 ))" ]
    # the second stat: the kernel keeps what the first one learned
    mark
    stat "$C/q" > /dev/null
    stat "$C/q" > /dev/null
    r=$(requests)
    echo "$r"
    [ -z "$r" ]
}

@test "a first read of a value a close committed is OPEN and RELEASE: the close handed the kernel its pages" {
    write_cell q 1024
    stat "$C/q" > /dev/null
    mark
    read_cell q
    r=$(requests)
    echo "first: $r"
    [ "$r" = "OPEN=1 RELEASE=1 " ]
    mark
    read_cell q
    r=$(requests)
    echo "second: $r"
    [ "$r" = "OPEN=1 RELEASE=1 " ]
    [ "$(cat "$C/q" | wc -c)" = 1024 ]
}

@test "a reader after an overwrite reads the new value, whatever the kernel held" {
    write_cell q 1024
    read_cell q
    python3 -c 'import os,sys; fd=os.open(sys.argv[1], os.O_WRONLY|os.O_TRUNC); os.write(fd, b"yz"); os.close(fd)' "$C/q"
    [ "$(cat "$C/q")" = yz ]
    [ "$(stat -c %s "$C/q")" = 2 ]
}

@test "a first read without a stat before it reads the committed bytes, through every size change" {
    for v in abc abcdefgh xy xz "" 0123456789; do
        printf '%s' "$v" > "$C/q"
        [ "$(cat "$C/q")" = "$v" ]
        [ "$(stat -c %s "$C/q")" = "${#v}" ]
    done
    # the same size, another value, right after a read
    printf 'aaaa' > "$C/s"
    [ "$(cat "$C/s")" = aaaa ]
    printf 'bbbb' > "$C/s"
    [ "$(cat "$C/s")" = bbbb ]
    # an append and an O_RDWR rewrite of part of it
    printf 'tail' >> "$C/s"
    [ "$(cat "$C/s")" = bbbbtail ]
    printf 'XY' | dd of="$C/s" bs=1 seek=2 conv=notrunc status=none
    [ "$(cat "$C/s")" = bbXYtail ]
}

@test "a table@<ts> view read twice shows a same-size version put at an older time in between" {
    printf "{NAME => 'cf', VERSIONS => '5'}\n" > "$MNT/default/t/.schema"
    echo new > "$C/q"
    ts=$(ls "$C" | grep '^q@' | sed 's/^q@//')
    [ -n "$ts" ]
    echo v1 > "$C/q@$((ts - 5000))"
    view="$MNT/default/t@$((ts - 1000))/r/cf/q"
    [ "$(cat "$view")" = v1 ]
    echo v2 > "$C/q@$((ts - 2000))"
    sleep 1.2
    [ "$(cat "$view")" = v2 ]
}

@test "a family listed right after its row shows the cells a write in between made" {
    echo a > "$C/a"
    ls "$MNT/default/t/r" > /dev/null      # the row's listing reads the row
    echo bbb > "$C/b"
    out=$(ls -l "$C")
    echo "$out"
    echo "$out" | awk '$NF == "b" { found = 1; if ($5 != 4) exit 1 } END { exit !found }'
    # and a version put at an older time, through its own name
    printf "{NAME => 'cf', VERSIONS => '5'}\n" > "$MNT/default/t/.schema"
    ls "$MNT/default/t/r" > /dev/null
    ts=$(ls "$C" | sed -n 's/^a@//p' | head -1)
    echo older > "$C/a@$((ts - 1000))"
    ls "$C" | grep -qx "a@$((ts - 1000))"
}

# unlink_errno NAME: unlink(2) of $C/NAME; prints 0 or the errno's name.
unlink_errno() {
    python3 -c 'import os,sys,errno
try:
    os.unlink(sys.argv[1]); print(0)
except OSError as e:
    print(errno.errorcode[e.errno])' "$1"
}

@test "an unlink removes what shows and only that: ENOENT where every version went, a future version removed, a TTL's expiry respected; a rename in a row takes every version" {
    printf "{NAME => 'cf', VERSIONS => '5'}\n{NAME => 'g', TTL => '1'}\n" > "$MNT/default/t/.schema"
    # its only version removed while the kernel holds q: the UNLINK comes
    # to the mount, where the put is still in the store, hidden
    echo v > "$C/q@1000"
    [ "$(cat "$C/q")" = v ]
    rm "$C/q@1000"
    mark
    [ "$(unlink_errno "$C/q")" = ENOENT ]
    [ "$(count UNLINK)" = 1 ]
    echo back > "$C/q"
    [ "$(cat "$C/q")" = back ]
    [ "$(unlink_errno "$C/q")" = 0 ]
    [ "$(unlink_errno "$C/q")" = ENOENT ]
    [ ! -e "$C/q" ]
    # a value from the future, with an older one below it
    echo old > "$C/f@2000"
    echo future > "$C/f@99999999999999"
    [ "$(cat "$C/f")" = future ]
    [ "$(unlink_errno "$C/f")" = 0 ]
    [ ! -e "$C/f" ]
    [ -z "$(ls "$C" | grep '^f')" ]
    echo again > "$C/f"
    [ "$(cat "$C/f")" = again ]
    # a cell gone by its family's TTL is not there to remove
    mkdir -p "$MNT/default/t/r/g"
    echo short > "$MNT/default/t/r/g/e"
    [ "$(cat "$MNT/default/t/r/g/e")" = short ]
    sleep 1.5
    [ "$(unlink_errno "$MNT/default/t/r/g/e")" = ENOENT ]
    # a rename within the row takes every version of the source, and the
    # target keeps its older history
    echo b1 > "$C/mv2"
    sleep 0.01
    echo a1 > "$C/mv1"
    echo a2 > "$C/mv1"
    [ "$(ls "$C" | grep -c '^mv1@')" = 2 ]
    mv "$C/mv1" "$C/mv2"
    [ -z "$(ls "$C" | grep '^mv1')" ]
    [ "$(cat "$C/mv2")" = a2 ]
    [ "$(ls "$C" | grep -c '^mv2@')" = 2 ]
    # an unlink is one UNLINK request
    echo x > "$C/u"
    mark
    rm "$C/u"
    [ "$(count UNLINK)" = 1 ]
    [ "$(count LOOKUP)" = 0 ]
    [ ! -e "$C/u" ]
}

@test "an append follows the value the cell holds at its close, though another process replaced it after the open" {
    printf 'first' > "$C/a"
    python3 -c 'import os,sys,subprocess
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND)
os.write(fd, b"+1")
os.close(fd)                       # a commit: the open file knows what it wrote
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND)
subprocess.run(["sh", "-c", "printf second > \"$0\"", sys.argv[1]], check=True)
os.write(fd, b"+2")
os.close(fd)
fd = os.open(sys.argv[2], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
subprocess.run(["sh", "-c", "printf made > \"$0\"", sys.argv[2]], check=True)
os.write(fd, b"+3")
os.close(fd)' "$C/a" "$C/n"
    [ "$(cat "$C/a")" = "second+2" ]
    [ "$(cat "$C/n")" = "made+3" ]
    # and one open file's successive appends, each committed by fsync
    python3 -c 'import os,sys
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND)
for i in range(3):
    os.write(fd, b"-%d" % i); os.fsync(fd)
os.close(fd)' "$C/a"
    [ "$(cat "$C/a")" = "second+2-0-1-2" ]
}

@test "a stat right after a change shows what the change left, and what any later change leaves" {
    # rsync's restore: write a temporary file, stat it, set its time, stat, rename
    printf 12345 > "$C/.q.tmp"
    [ "$(stat -c %s "$C/.q.tmp")" = 5 ]
    touch -d @1500000000 "$C/.q.tmp"
    [ "$(stat -c %s:%Y "$C/.q.tmp")" = 5:1500000000 ]
    mv "$C/.q.tmp" "$C/q"
    [ "$(stat -c %s:%Y "$C/q")" = 5:1500000000 ]
    [ "$(cat "$C/q")" = 12345 ]
    # a rename right after a truncate by name, or a version put by its name,
    # moves the value the cell holds then
    printf 123456 > "$C/.t.tmp"
    python3 -c 'import os,sys; os.truncate(sys.argv[1], 3)' "$C/.t.tmp"
    mv "$C/.t.tmp" "$C/t"
    [ "$(cat "$C/t")" = 123 ]
    printf old > "$C/u"
    printf newer > "$C/u@99999999999999"
    mv "$C/u" "$C/w"
    [ "$(cat "$C/w")" = newer ]
    # a truncate by name right after a close, a re-stamp, a removal of the
    # newest version: each stat shows the cell as it is now
    printf 1234 > "$C/s"
    python3 -c 'import os,sys; os.truncate(sys.argv[1], 2)' "$C/s"
    [ "$(stat -c %s "$C/s")" = 2 ]
    [ "$(cat "$C/s")" = 12 ]
    touch -d @1600000000 "$C/s"
    printf 'v2' > "$C/s@1700000000000"
    [ "$(stat -c %s:%Y "$C/s")" = 2:1700000000 ]
    rm "$C/s@1700000000000"
    [ "$(stat -c %Y "$C/s")" = 1600000000 ]
    # a row moved away right after a write
    mkdir -p "$MNT/default/t/r2/cf"
    printf abc > "$C/m"
    mv "$MNT/default/t/r2" "$MNT/default/t/r3"
    mv "$MNT/default/t/r" "$MNT/default/t/r2"
    run stat "$C/m"
    [ "$status" -ne 0 ]
    [ "$(stat -c %s "$MNT/default/t/r2/cf/m")" = 3 ]
}
