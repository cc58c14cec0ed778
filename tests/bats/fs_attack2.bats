#!/usr/bin/env bats
# cellfs under concurrency and from outside (issue 8, second attack): each
# test failed on the driver before its fix, or covers a sequence no other
# test runs.

load helpers/mount

setup() {
    fs_setup
    T="$MNT/default/t"
    mkdir "$T"
}

teardown() {
    fs_teardown
}

@test "mv of a row while a process writes and fsyncs a cell in it: the file follows the row, the old row does not come back" {
    run timeout 60 python3 - "$T" <<'PY'
import os, subprocess, sys, threading, time
os.chdir(sys.argv[1])
bad = 0
for k in range(40):
    src, dst = "src%d" % k, "dst%d" % k
    os.makedirs(src + "/cf")
    with open(src + "/cf/a", "w") as f:
        f.write("s\n")
    fd = os.open(src + "/cf/q", os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    stop = False
    n = 0
    def write():
        global n
        while not stop:
            os.write(fd, b"%d\n" % n)
            n += 1
            if n % 2:
                os.fsync(fd)          # a commit while the row moves
    t = threading.Thread(target=write)
    t.start()
    time.sleep(0.005)
    r = subprocess.run(["mv", "-T", src, dst], capture_output=True, text=True)
    time.sleep(0.005)
    stop = True
    t.join()
    os.close(fd)
    want = "".join("%d\n" % i for i in range(n))
    got = open(dst + "/cf/q").read() if os.path.exists(dst + "/cf/q") else None
    if r.returncode or os.path.exists(src) or got != want:
        bad += 1
        print(k, "mv:", r.returncode, r.stderr.strip(),
              "; old row:", sorted(os.listdir(src + "/cf")) if os.path.exists(src) else "gone",
              "; new q:", None if got is None else len(got), "bytes of", len(want))
print("bad", bad)
PY
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *"bad 0"* ]]
}

@test "pages a private mapping filled from an open file's older value are dropped when it closes: later readers read the new value" {
    mkdir -p "$T/r/cf"
    head -c 300000 /dev/zero | tr '\0' A > "$FS_TMP/A"
    head -c 200000 /dev/zero | tr '\0' B > "$FS_TMP/B"
    cp "$FS_TMP/A" "$T/r/cf/q"
    run python3 - "$FS_TMP/B" "$T/r/cf" <<'PY'
import mmap, os, subprocess, sys
os.chdir(sys.argv[2])
w = os.open("q", os.O_WRONLY)        # a writer, never written
r = os.open("q", os.O_RDONLY)        # joins it: one open file, direct I/O
subprocess.run(["cp", sys.argv[1], "q"], check=True)   # another process commits
os.close(w)
size = os.fstat(r).st_size
m = mmap.mmap(r, size, flags=mmap.MAP_PRIVATE, prot=mmap.PROT_READ)
print("mapped", size, sorted(set(bytes(m))))
m.close()
os.close(r)
for i in range(3):
    with open("q", "rb") as f:
        d = f.read()
    print("read", len(d), sorted(set(d)))
PY
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$(grep -c '^read 200000 \[66\]$' <<< "$output")" -eq 3 ]
    cmp "$FS_TMP/B" "$T/r/cf/q"
}

@test "values of 256 KiB to 2 MiB rewritten by cp, dd conv=notrunc, O_TRUNC and O_RDWR writers: cat, dd and mmap readers see whole values" {
    mkdir -p "$T/r/cf" "$FS_TMP/vals"
    export TORN_TMP="$FS_TMP/vals" TORN_WRITERS=cp,dd,py,rw TORN_READERS=cat,dd,mmap,cat
    run timeout 120 python3 "$BATS_TEST_DIRNAME/helpers/torn_big.py" "$T/r/cf/x" 6 1 4
    echo "$output"
    [ "$status" -eq 0 ]
}
