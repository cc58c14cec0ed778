#!/usr/bin/env python3
"""Byte flips of every store file, checked through the public tools.

    byteflip.py --build=DIR [--work=DIR] [--per-file=N|all] [--seed=S]
                [--mount-every=K] [--files=GLOB,...] [--rich] [--sector=N] [--swap] [--verbose]

Makes a small store with cellsh (two tables, three families, several
flushed sorted files, a live log left by a SIGKILL of cellsh, a counter),
then for each file of the store (sorted files, logs, MANIFEST) flips one
bit at N offsets (a fixed-seed sample, always the first and last bytes; or
every offset with --per-file=all) and, on a fresh copy of the store each
time, checks:

  (a) cellsh (read-only and writable opens) and cellck never crash or hang
      (run them from an ASan build: a sanitizer report is a failure); an
      open either works or fails with a message naming the damaged file;
  (b) every cell that a scan or a get prints is one that was written, at
      its row and column; a command that succeeds shows every cell (an
      error naming the file is the only way to show less);
  (c) cellck exits 1 and names the file (0 is a failure: damage missed);
  (d) every K-th flip (--mount-every), a mount (read-only and read-write
      in turn): a walk of the
      tables reads every cell exactly, or some read or listing fails with
      EIO: a listing that silently leaves a row or cell out is a failure.

Prints one line per failure and a summary per file; exits 1 when any flip
failed. CI runs a short fixed-seed sample (tests/bats/byteflip.bats);
`--per-file=all` is the long mode, run by hand (README.md).
"""
import argparse
import fnmatch
import hashlib
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

COUNTER = "\\x00" * 7 + "\\x01"
TIMEOUT = 60


def value(table, row, col):
    # Long enough that t1's 1 KiB blocks hold a few rows each (--rich).
    # Hex of a hash: compression cannot shrink it much.
    return "v-%s-%s-%s-%s" % (table, row, col,
                              hashlib.sha256(("%s/%s/%s" % (table, row, col)).encode()).hexdigest())


def make_store(cellsh, store, rich, per_batch=10):
    """Writes the store; returns {(table, row, col): printed value}. rich:
    t1's families compressed (LZ4, Snappy), encoded (DIFF, PREFIX), with
    small blocks and a ROWCOL bloom filter, and cells put then deleted in
    earlier sorted files than their delete markers (a flip must not bring
    them back)."""
    exp = {}
    if rich:
        lines = ["create 't1', {NAME => 'f', COMPRESSION => 'LZ4', BLOCKSIZE => '1024', "
                 "DATA_BLOCK_ENCODING => 'DIFF', BLOOMFILTER => 'ROWCOL'}, "
                 "{NAME => 'g', COMPRESSION => 'SNAPPY', BLOCKSIZE => '1024', "
                 "DATA_BLOCK_ENCODING => 'PREFIX'}", "create 't2', 'f'"]
        for i in range(0, 3 * per_batch, 3):
            lines.append("put 't1', 'r%03d', 'f:x', 'deleted-%d'" % (i, i))
        lines.append("flush 't1'")
        for i in range(0, 3 * per_batch, 3):
            lines.append("delete 't1', 'r%03d', 'f:x'" % i)
    else:
        lines = ["create 't1', 'f', 'g'", "create 't2', 'f'"]

    def put(t, r, c):
        exp[(t, r, c)] = value(t, r, c)
        lines.append("put '%s', '%s', '%s', '%s'" % (t, r, c, value(t, r, c)))

    for batch in range(3):
        for i in range(batch * per_batch, batch * per_batch + per_batch):
            r = "r%03d" % i
            put("t1", r, "f:a")
            put("t1", r, "g:b")
            if i % 2 == 0:
                put("t2", r, "f:c")
        lines.append("flush 't1'")
        lines.append("flush 't2'")
    subprocess.run([cellsh, "-n", store], input="\n".join(lines) + "\n", text=True,
                   stdout=subprocess.DEVNULL, check=True, timeout=TIMEOUT)
    # The live log: puts acknowledged (the incr's answer comes after them),
    # then SIGKILL so that nothing flushes them.
    p = subprocess.Popen([cellsh, "-n", store], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         text=True)
    log = []
    for i in range(12):
        r = "l%03d" % i
        exp[("t2", r, "f:c")] = value("t2", r, "f:c")
        log.append("put 't2', '%s', 'f:c', '%s'" % (r, value("t2", r, "f:c")))
    log.append("incr 't2', 'ctr', 'f:n', 1")
    exp[("t2", "ctr", "f:n")] = COUNTER
    p.stdin.write("\n".join(log) + "\n")
    p.stdin.flush()
    deadline = time.time() + TIMEOUT
    while time.time() < deadline:
        line = p.stdout.readline()
        if "COUNTER VALUE" in line or not line:
            break
    p.send_signal(signal.SIGKILL)
    p.wait()
    return exp


def store_files(store, globs):
    out = []
    for name in sorted(os.listdir(store)):
        if name.endswith(".sst") or name.endswith(".log") or name == "MANIFEST":
            if not globs or any(fnmatch.fnmatch(name, g) for g in globs):
                out.append(name)
    return out


def flip(path, off, bit, sector=0):
    """Flips one bit at off; with sector > 0, zeroes the sector-sized
    aligned block holding off instead (a lost disk sector)."""
    if sector:
        with open(path, "r+b") as f:
            start = off - off % sector
            f.seek(0, 2)
            n = min(sector, f.tell() - start)
            f.seek(start)
            f.write(bytes(n))
        return
    with open(path, "r+b") as f:
        f.seek(off)
        b = f.read(1)
        f.seek(off)
        f.write(bytes([b[0] ^ (1 << bit)]))


def run(cmd, **kw):
    env = dict(os.environ)
    env["ASAN_OPTIONS"] = "exitcode=86:detect_leaks=1:abort_on_error=0"
    env["UBSAN_OPTIONS"] = "halt_on_error=1:exitcode=87:print_stacktrace=1"
    try:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           errors="replace", timeout=TIMEOUT, env=env, **kw)
        return r.returncode, r.stdout
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        return "timeout", out


def crashed(rc, out):
    if rc == "timeout":
        return "hang (%ds)" % TIMEOUT
    if rc < 0:
        return "killed by signal %d" % -rc
    if rc in (86, 87) or "AddressSanitizer" in out or "runtime error:" in out \
            or "LeakSanitizer" in out:
        return "sanitizer report (exit %d)" % rc
    return None


CELL_SCAN = re.compile(r"^ (\S+)\s+column=([^,]+), timestamp=\d+, value=(.*)$")
CELL_GET = re.compile(r"^ (\S+)\s+timestamp=\d+, value=(.*)$")
MARK = re.compile(r"^Table (\S+) does (not )?exist")


def cellsh_reads(cellsh, store, exp, readonly, fname, torn=False, subset=False):
    """One cellsh run: scans of both tables, then a get of every row, each
    command followed by `exists` as a separator. Returns failure strings."""
    rows = sorted({(t, r) for (t, r, _c) in exp})
    cmds = []
    for t in ("t1", "t2"):
        cmds += ["scan '%s'" % t, "exists 't1'"]
    for t, r in rows:
        cmds += ["get '%s', '%s'" % (t, r), "exists 't1'"]
    cmd = [cellsh, "-c"] + (["-r"] if readonly else []) + [store]
    for c in cmds:
        cmd += ["-e", c]
    rc, out = run(cmd)
    mode = "cellsh -r" if readonly else "cellsh"
    fails = []
    c = crashed(rc, out)
    if c:
        return ["%s: %s: %s" % (mode, c, out[-2000:])]
    errors = [l for l in out.splitlines() if "ERROR" in l or "rror" in l.split(":")[0]]
    if rc == 3:
        # The open failed: it must name the file.
        if subset:
            return ["%s: the store does not open: %s" % (mode, out.strip()[:300])]
        if fname not in out:
            fails.append("%s: the open failed without naming %s: %s" % (mode, fname, out.strip()[:300]))
        return fails
    if rc not in (0, 1):
        return ["%s: exit %s: %s" % (mode, rc, out[-500:])]
    # Split the output into blocks, one per command.
    blocks, cur = [], []
    for l in out.splitlines():
        if MARK.match(l):
            blocks.append(cur)
            cur = []
        else:
            cur.append(l)
    if len(blocks) != len(cmds) // 2:
        fails.append("%s: %d command outputs for %d commands (exit %s): %s"
                     % (mode, len(blocks), len(cmds) // 2, rc, out[-600:]))
        return fails
    for i, blk in enumerate(blocks):
        what = cmds[2 * i]
        failed = any("ERROR" in l for l in blk)
        if failed and not subset and not any(fname in l for l in blk if "ERROR" in l):
            named = [l for l in blk if "ERROR" in l]
            fails.append("%s: %s failed without naming %s: %s" % (mode, what, fname, named[:2]))
        seen = {}
        if what.startswith("scan"):
            t = what.split("'")[1]
            for l in blk:
                m = CELL_SCAN.match(l)
                if m:
                    seen[(t, m.group(1), m.group(2))] = m.group(3)
            want = {k: v for k, v in exp.items() if k[0] == t}
        else:
            t, r = what.split("'")[1], what.split("'")[3]
            for l in blk:
                m = CELL_GET.match(l)
                if m:
                    seen[(t, r, m.group(1))] = m.group(2)
            want = {k: v for k, v in exp.items() if k[0] == t and k[1] == r}
        for k, v in seen.items():
            if exp.get(k) != v:
                fails.append("%s: %s returned a cell never written: %s = %r (written: %r)"
                             % (mode, what, "/".join(k), v, exp.get(k)))
        if not failed and not subset:
            missing = sorted(set(want) - set(seen) - (LAST_RECORD if torn else set()))
            if missing:
                fails.append("%s: %s succeeded without %d written cell(s): %s"
                             % (mode, what, len(missing), ", ".join("/".join(m) for m in missing[:4])))
    return fails


# The cells of the last record of the live log (the incr). A flip there is
# read as a torn tail (kvcore/doc/log_format.md: a record whole in size but
# not in content at the end of the log is what a crash while appending
# leaves, never acknowledged): recovery drops it with a warning naming the
# log, and cellck, which must be clean on a store a crash left, warns.
LAST_RECORD = {("t2", "ctr", "f:n")}


def torn_tail(out, fname):
    return fname.endswith(".log") and any(
        l.startswith("warning: " + fname) and "torn" in l for l in out.splitlines())


def salvage(cellck, cellsh, store, exp, fname):
    """cellck --salvage into a new store: it may lose cells, never hold one
    that was not written (checked like a read)."""
    out_dir = store + ".salvaged"
    shutil.rmtree(out_dir, ignore_errors=True)
    rc, out = run([cellck, "--salvage", store, out_dir])
    c = crashed(rc, out)
    if c:
        return ["cellck --salvage: %s: %s" % (c, out[-2000:])]
    if rc not in (0, 1, 2):
        return ["cellck --salvage: exit %s: %s" % (rc, out[-300:])]
    if not os.path.isdir(out_dir):
        return []
    fails = cellsh_reads(cellsh, out_dir, exp, True, fname, subset=True)
    shutil.rmtree(out_dir, ignore_errors=True)
    return ["salvaged store: " + f for f in fails]


def compact(cellsh, store, fname):
    rc, out = run([cellsh, "-c", store, "-e", "major_compact 't1'", "-e", "major_compact 't2'"])
    c = crashed(rc, out)
    if c:
        return ["major_compact: %s: %s" % (c, out[-2000:])]
    if rc not in (0, 1, 3):
        return ["major_compact: exit %s: %s" % (rc, out[-300:])]
    if rc != 0 and fname not in out:
        return ["major_compact: failed without naming %s: %s" % (fname, out.strip()[-300:])]
    return []


def reserved(fname, off):
    """Bytes the format says are ignored on read: a log header's reserved
    field (kvcore/doc/log_format.md). A flip there changes nothing."""
    return fname.endswith(".log") and isinstance(off, int) and 12 <= off < 16


def damage(d, fname, off, bit, sector):
    """off an int: flip (or zero a sector); a file name: copy that file of
    the store over fname (--swap)."""
    if isinstance(off, str):
        shutil.copyfile(os.path.join(d, off), os.path.join(d, fname))
    else:
        flip(os.path.join(d, fname), off, bit, sector)


def cellck_run(cellck, store, fname, off):
    """Returns (failures, exit status, whether a torn tail was reported)."""
    rc, out = run([cellck, store])
    c = crashed(rc, out)
    if c:
        return ["cellck: %s: %s" % (c, out[-2000:])], None, False
    if rc == 0 and torn_tail(out, fname):
        return [], rc, True
    if rc == 0 and reserved(fname, off):
        return [], "0 (reserved byte)", False
    if rc == 0:
        return ["cellck: exit 0 (damage missed): %s" % out.strip()[-300:]], rc, False
    if rc == 1 and fname not in out:
        return ["cellck: exit 1 without naming %s: %s" % (fname, out.strip()[-300:])], rc, False
    if rc not in (1, 2):
        return ["cellck: exit %s: %s" % (rc, out[-300:])], rc, False
    if rc == 2 and fname not in out:
        return ["cellck: could not run, without naming %s: %s" % (fname, out.strip()[-300:])], rc, False
    return [], rc, False


def is_mounted(mnt):
    real = os.path.realpath(mnt)
    with open("/proc/mounts") as f:
        return any(l.split()[1] == real for l in f)


def mount_walk(cellfs, store, mnt, exp, fname, logpath, torn=False, rw=False):
    """Mount (read-only, or read-write: its open replays the log), walk,
    read every cell."""
    fails = []
    log = open(logpath, "w")
    p = subprocess.Popen([cellfs, store, mnt, "-f"] + ([] if rw else ["-o", "ro"]),
                         stdout=log, stderr=log)
    for _ in range(200):
        if is_mounted(mnt) or p.poll() is not None:
            break
        time.sleep(0.05)
    if not is_mounted(mnt):
        p.wait(timeout=TIMEOUT) if p.poll() is None else None
        log.close()
        text = open(logpath, errors="replace").read()
        c = crashed(p.returncode if p.returncode is not None else -9, text)
        if c and p.returncode not in (1,):
            return ["mount: %s: %s" % (c, text[-1500:])]
        if fname not in text:
            fails.append("mount: refused without naming %s: %s" % (fname, text.strip()[-300:]))
        return fails
    errors = []
    seen = {}
    try:
        for t in ("t1", "t2"):
            tdir = os.path.join(mnt, "default", t)
            try:
                rows = os.listdir(tdir)
            except OSError as e:
                errors.append("ls %s: %s" % (t, e))
                continue
            for r in rows:
                if r.startswith("."):
                    continue
                try:
                    fams = os.listdir(os.path.join(tdir, r))
                except OSError as e:
                    errors.append("ls %s/%s: %s" % (t, r, e))
                    continue
                for fam in fams:
                    if fam.startswith("."):
                        continue
                    try:
                        quals = os.listdir(os.path.join(tdir, r, fam))
                    except OSError as e:
                        errors.append("ls %s/%s/%s: %s" % (t, r, fam, e))
                        continue
                    for q in quals:
                        if q.startswith(".") or "@" in q:
                            continue
                        try:
                            with open(os.path.join(tdir, r, fam, q), "rb") as f:
                                data = f.read()
                        except OSError as e:
                            errors.append("cat %s/%s/%s/%s: %s" % (t, r, fam, q, e))
                            continue
                        shown = "".join(chr(b) if 32 <= b < 127 and b != 92 else "\\x%02X" % b
                                        for b in data)
                        seen[(t, r, fam + ":" + q)] = shown
    finally:
        for _ in range(50):
            if subprocess.run(["fusermount3", "-u", mnt], stderr=subprocess.DEVNULL).returncode == 0:
                break
            time.sleep(0.1)
        if is_mounted(mnt):
            subprocess.run(["fusermount3", "-u", "-z", mnt], stderr=subprocess.DEVNULL)
        try:
            p.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            fails.append("mount: the daemon did not exit after the unmount")
        log.close()
    text = open(logpath, errors="replace").read()
    c = crashed(p.returncode, text)
    if c:
        fails.append("mount: the daemon: %s: %s" % (c, text[-1500:]))
    for k, v in seen.items():
        if exp.get(k) != v:
            fails.append("mount: read a cell never written: %s = %r (written: %r)"
                         % ("/".join(k), v, exp.get(k)))
    bad = [e for e in errors if "Input/output error" not in e]
    if bad:
        fails.append("mount: errors other than EIO: %s" % bad[:3])
    if not errors:
        missing = sorted(set(exp) - set(seen) - (LAST_RECORD if torn else set()))
        if missing:
            fails.append("mount: the walk succeeded without %d written cell(s): %s"
                         % (len(missing), ", ".join("/".join(m) for m in missing[:4])))
    elif fname not in text:
        fails.append("mount: EIO without the log naming %s: %s" % (fname, errors[:2]))
    return fails


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True, help="build dir with tools/cellsh, tools/cellck, fusefs/cellfs")
    ap.add_argument("--work", help="scratch dir (default: a new temp dir, removed at the end)")
    ap.add_argument("--per-file", default="24", help="flips per file, or 'all'")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--mount-every", type=int, default=0, help="mount check every K-th flip (0: never)")
    ap.add_argument("--files", default="", help="comma-separated globs of the files to flip")
    ap.add_argument("--rich", action="store_true",
                    help="compressed, encoded, small-block families and deleted cells")
    ap.add_argument("--rows", type=int, default=10,
                    help="rows per flushed batch (3 batches): larger files, more blocks")
    ap.add_argument("--self-test", action="store_true",
                    help="expect one cell with a value never written: the check must fail (exit 2)")
    ap.add_argument("--sector", type=int, default=0,
                    help="zero the aligned block of this many bytes at each offset instead of a bit flip")
    ap.add_argument("--swap", action="store_true",
                    help="copy other sorted files of the store over each one instead of flipping bits")
    ap.add_argument("--salvage", action="store_true",
                    help="also salvage each damaged store with cellck --salvage and read the result")
    ap.add_argument("--verbose", action="store_true")
    a = ap.parse_args()
    cellsh = os.path.join(a.build, "tools/cellsh")
    cellck = os.path.join(a.build, "tools/cellck")
    cellfs = os.path.join(a.build, "fusefs/cellfs")
    use_mount = a.mount_every > 0 and os.path.exists("/dev/fuse") and os.path.exists(cellfs)
    work = a.work or tempfile.mkdtemp(prefix="byteflip.")
    os.makedirs(work, exist_ok=True)
    base = os.path.join(work, "base")
    shutil.rmtree(base, ignore_errors=True)
    exp = make_store(cellsh, base, a.rich, a.rows)
    if a.self_test:
        exp[("t1", "r005", "f:a")] = "not-written"
    # The pristine store must read back exactly, and cellck must be clean
    # on it after a writable open; the check of the checker itself.
    files = store_files(base, [g for g in a.files.split(",") if g])
    print("byteflip: store %s: %d cells; files: %s" % (base, len(exp), ", ".join(
        "%s (%d B)" % (f, os.path.getsize(os.path.join(base, f))) for f in files)))
    pristine = os.path.join(work, "pristine")
    shutil.rmtree(pristine, ignore_errors=True)
    shutil.copytree(base, pristine)
    f0 = cellsh_reads(cellsh, pristine, exp, True, "-") + cellsh_reads(cellsh, pristine, exp, False, "-")
    if f0:
        print("byteflip: the undamaged store does not read back:\n  " + "\n  ".join(f0))
        return 2
    rng = random.Random(a.seed)
    total_fail = 0
    trial = 0
    mnt = os.path.join(work, "mnt")
    os.makedirs(mnt, exist_ok=True)
    t0 = time.time()
    for fname in files:
        size = os.path.getsize(os.path.join(base, fname))
        if a.per_file == "all" or int(a.per_file) >= size:
            offs = list(range(size))
        else:
            n = int(a.per_file)
            offs = sorted({0, size - 1} | set(rng.sample(range(size), max(0, n - 2))))
        if a.sector:
            offs = sorted({o - o % a.sector for o in offs})
        if a.swap:
            if not fname.endswith(".sst"):
                continue
            others = [f for f in files if f.endswith(".sst") and f != fname]
            offs = others if a.per_file == "all" else sorted(
                rng.sample(others, min(len(others), int(a.per_file))))
        nfail = 0
        outcomes = {}
        for off in offs:
            trial += 1
            bit = rng.randrange(8)
            d = os.path.join(work, "t")
            shutil.rmtree(d, ignore_errors=True)
            shutil.copytree(base, d)
            damage(d, fname, off, bit, a.sector)
            fails, ckrc, torn = cellck_run(cellck, d, fname, off)
            fails += cellsh_reads(cellsh, d, exp, True, fname, torn)
            if a.salvage:
                fails += salvage(cellck, cellsh, d, exp, fname)
            if use_mount and trial % a.mount_every == 0:
                fails += mount_walk(cellfs, d, mnt, exp, fname, os.path.join(work, "cellfs.log"), torn,
                                    rw=(trial // a.mount_every) % 2 == 1)
            # The writable open last: it may replay and rewrite the store.
            fails += cellsh_reads(cellsh, d, exp, False, fname, torn)
            # A major compaction must not turn the damage into a silent loss:
            # it fails naming the file, or every read still holds.
            fails += compact(cellsh, d, fname)
            fails += cellsh_reads(cellsh, d, exp, True, fname, torn)
            key = "torn tail" if torn else "cellck %s" % ckrc
            outcomes[key] = outcomes.get(key, 0) + 1
            if fails:
                nfail += 1
                for fl in fails:
                    print("FAIL %s @%s bit %d: %s" % (fname, off, bit, fl.replace("\n", "\n    ")))
                keep = os.path.join(work, "failed", "%s@%s.%d" % (fname, off, bit))
                if not os.path.exists(keep):
                    shutil.copytree(base, keep)
                    damage(keep, fname, off, bit, a.sector)
            elif a.verbose:
                print("ok %s @%s bit %d" % (fname, off, bit))
        total_fail += nfail
        print("byteflip: %-12s %6d B: %5d flips, %4d failed (%s)" % (
            fname, size, len(offs), nfail, ", ".join("%s: %d" % kv for kv in sorted(outcomes.items()))))
        sys.stdout.flush()
    print("byteflip: %d flips in %.0f s, %d failed%s" % (
        trial, time.time() - t0, total_fail, "" if not total_fail else
        " (stores kept in %s)" % os.path.join(work, "failed")))
    if not a.work and not total_fail:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if total_fail else 0


if __name__ == "__main__":
    sys.exit(main())
