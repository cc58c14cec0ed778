#!/usr/bin/env python3
"""Two or three writers of one cell (cp, dd conv=notrunc, an O_TRUNC
python writer) with values of 256 KiB to 2 MiB, below and above the page
cache limit, while readers (cat, dd, mmap) read it; checks that every read
is a value some commit left.

Value i is the byte chr(ord('A') + i) repeated LENS[i] times, every length
off a page boundary. A dd conv=notrunc of a shorter value over a longer
one legitimately leaves runs (its bytes, then the older value's tail), so
a read is whole when every maximal run of one byte b ends exactly at the
length of b's value, and the read is not empty. A torn read (a prefix of
the pages of one value, the rest of another) ends a run at a page
boundary instead.
Usage: torn_big.py CELL SECONDS SEED [WRITERS] -- prints counts, exits 1
on a torn read (the first one described)."""
import mmap
import multiprocessing as mp
import os
import random
import subprocess
import sys
import time

KI = 1024
LENS = [256 * KI + 3, 700 * KI + 11, 1024 * KI - 5, 1024 * KI + 7, 1536 * KI + 1, 2048 * KI - 9]


def value(i):
    return bytes([ord("A") + i]) * LENS[i]


def whole(data):
    if not data:
        return "empty"
    pos = 0
    n = len(data)
    while pos < n:
        b = data[pos]
        i = b - ord("A")
        if not 0 <= i < len(LENS):
            return "byte %r at %d" % (b, pos)
        # the run of b goes on to LENS[i]: find where it stops
        end = pos
        step = 4096
        while end < n and data[end] == b:
            nxt = min(n, end + step)
            if data[end:nxt] == bytes([b]) * (nxt - end):
                end = nxt
            else:
                while data[end] == b:
                    end += 1
        if end != LENS[i]:
            return "%d bytes of %s from %d to %d (its value has %d), then %s" % (
                end - pos, chr(b), pos, end, LENS[i],
                repr(chr(data[end])) if end < n else "the end")
        pos = end
    return None


def writer(path, tmp, seconds, k, seed):
    rnd = random.Random(seed * 100 + k)
    end = time.time() + seconds
    kinds = os.environ.get("TORN_WRITERS", "cp,dd,py").split(",")
    kind = kinds[k % len(kinds)]
    while time.time() < end:
        i = rnd.randrange(len(LENS))
        src = os.path.join(tmp, "v%d" % i)
        if kind == "cp":
            subprocess.run(["cp", src, path], check=True)
        elif kind == "dd":
            subprocess.run(["dd", "if=" + src, "of=" + path, "bs=64k", "conv=notrunc",
                            "status=none"], check=True)
        else:
            rw = os.O_RDWR if kind == "rw" else os.O_WRONLY
            fd = os.open(path, rw | os.O_TRUNC)
            v = value(i)
            off = 0
            while off < len(v):
                off += os.write(fd, v[off:off + 128 * KI])
                if rnd.random() < 0.2:
                    time.sleep(rnd.random() * 0.003)
            os.close(fd)
        time.sleep(rnd.random() * 0.01)


def read_once(path, mode, rnd):
    if mode == "cat":
        return subprocess.run(["cat", path], check=True, stdout=subprocess.PIPE).stdout
    if mode == "dd":
        return subprocess.run(["dd", "if=" + path, "bs=%d" % rnd.choice((4096, 65536, 1 << 20)),
                               "status=none"], check=True, stdout=subprocess.PIPE).stdout
    with open(path, "rb") as f:
        if rnd.random() < 0.3:
            time.sleep(rnd.random() * 0.005)   # jitter between open and read
        size = os.fstat(f.fileno()).st_size
        flags = mmap.MAP_PRIVATE if mode == "mmapp" else mmap.MAP_SHARED
        try:
            with mmap.mmap(f.fileno(), 0, flags=flags, prot=mmap.PROT_READ) as m:
                return bytes(m[:size])
        except (OSError, ValueError):          # direct I/O without mmap
            return f.read()


def reader(path, seconds, mode, seed, out):
    rnd = random.Random(seed * 1000 + hash(mode) % 1000)
    end = time.time() + seconds
    reads = bad = 0
    first = ""
    bus = 0
    while time.time() < end:
        reads += 1
        if mode.startswith("mmap"):
            # a mapping read past a size that shrank meanwhile gets SIGBUS,
            # as on a local disk: each mapped read runs in a child
            r, w = os.pipe()
            pid = os.fork()
            if pid == 0:
                os.close(r)
                why = whole(read_once(path, mode, rnd)) or ""
                os.write(w, why.encode())
                os._exit(0)
            os.close(w)
            with os.fdopen(r, "rb") as f:
                why = f.read().decode()
            _, st = os.waitpid(pid, 0)
            if os.WIFSIGNALED(st):
                bus += 1
                continue
        else:
            why = whole(read_once(path, mode, rnd))
        if why:
            bad += 1
            if len(first) < 2000 and os.environ.get("TORN_ALL"):
                first += "\n  " + why
            if not first:
                first = "%s read: %s" % (mode, why)
    out.put((mode + (" (%d SIGBUS)" % bus if bus else ""), reads, bad, first))


def main():
    path, seconds, seed = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
    writers = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    tmp = os.environ.get("TORN_TMP", "/tmp")
    for i in range(len(LENS)):
        with open(os.path.join(tmp, "v%d" % i), "wb") as f:
            f.write(value(i))
    with open(path, "wb") as f:
        f.write(value(len(LENS) - 1))
    out = mp.Queue()
    procs = [mp.Process(target=writer, args=(path, tmp, seconds, k, seed))
             for k in range(writers)]
    modes = os.environ.get("TORN_READERS", "cat,dd,mmap,mmapp").split(",")
    procs += [mp.Process(target=reader, args=(path, seconds, m, seed + j, out))
              for j, m in enumerate(modes)]
    for p in procs:
        p.start()
    results = [out.get(timeout=seconds + 120) for _ in modes]
    for p in procs:
        p.join()
    torn = 0
    for mode, reads, bad, first in results:
        print("%s: %d reads, %d torn%s" % (mode, reads, bad, (", first: " + first) if bad else ""))
        torn += bad
    final = whole(open(path, "rb").read())
    if final:
        print("final value torn: " + final)
        torn += 1
    if any(p.exitcode != 0 for p in procs):
        print("a worker failed")
        return 1
    return 1 if torn else 0


if __name__ == "__main__":
    sys.exit(main())
