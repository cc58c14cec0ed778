#!/usr/bin/env python3
"""Rewrites one cell with values of very different lengths from several
processes while others read it (whole reads, chunked reads through a file
kept open, mmap) and checks that every read sees exactly one whole value
(or the empty value of a truncate not yet written).
Usage: torn_check.py CELL SECONDS [WRITERS]. Prints counts; exits 1 on a torn read."""
import mmap
import multiprocessing as mp
import os
import sys
import time

VALUES = [b"A" * 1000, b"B" * 300000, b"C" * 5, b"D" * 70000, b"E" * 4096]


def writer(path, seconds, k):
    end = time.time() + seconds
    i = k
    while time.time() < end:
        with open(path, "wb") as f:
            f.write(VALUES[i % len(VALUES)])
        i += 1
        time.sleep(0.005 * (i % 3))  # quiet moments: readers use the page cache


def check(data):
    # b"": a writer has truncated the cell and not yet written (cellfs(1):
    # a truncate shows at once, as on a disk); anything else must be whole.
    return data == b"" or any(data == v for v in VALUES)


def reader(path, seconds, mode, out):
    end = time.time() + seconds
    reads = bad = mapped = 0
    first_bad = b""
    while time.time() < end:
        if mode == "whole":
            with open(path, "rb") as f:
                data = f.read()
        elif mode == "chunks":
            with open(path, "rb") as f:
                parts = []
                while True:
                    b = f.read(4096)
                    if not b:
                        break
                    parts.append(b)
                    time.sleep(0)          # let writers run between chunks
                data = b"".join(parts)
        else:
            with open(path, "rb") as f:
                size = os.fstat(f.fileno()).st_size
                if size == 0:
                    data = b""
                else:
                    try:
                        with mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ) as m:
                            data = bytes(m)
                        mapped += 1
                    except (OSError, ValueError):  # direct I/O: no mmap
                        data = f.read()
        reads += 1
        if not check(data):
            bad += 1
            if not first_bad:
                first_bad = data[:20] + b"... len %d" % len(data)
    out.put((mode, reads, bad, first_bad, mapped))


def main():
    path, seconds = sys.argv[1], float(sys.argv[2])
    writers = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    with open(path, "wb") as f:
        f.write(VALUES[0])
    out = mp.Queue()
    procs = [mp.Process(target=writer, args=(path, seconds, k)) for k in range(writers)]
    procs += [mp.Process(target=reader, args=(path, seconds, m, out))
              for m in ("whole", "whole", "chunks", "mmap")]
    for p in procs:
        p.start()
    results = []
    for _ in range(4):
        results.append(out.get(timeout=seconds + 60))
    for p in procs:
        p.join()
    torn = 0
    for mode, reads, bad, first, mapped in results:
        extra = f" ({mapped} through the page cache)" if mode == "mmap" else ""
        print(f"{mode}: {reads} reads{extra}, {bad} torn" + (f", first {first!r}" if bad else ""))
        torn += bad
    if any(p.exitcode != 0 for p in procs):
        print("a worker failed")
        return 1
    return 1 if torn else 0


if __name__ == "__main__":
    sys.exit(main())
