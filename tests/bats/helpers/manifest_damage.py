#!/usr/bin/env python3
"""Random damage to a store's MANIFEST, then cellck and cellck --salvage.

usage: manifest_damage.py BUILD_DIR ITERATIONS SEED

Builds one store with cellsh (two namespaces' tables, families with
settings, a table attribute, four flushes and so several manifest edits,
and six rows only in the log of a cellsh killed with SIGKILL), then per
iteration damages a copy of its MANIFEST (1-3 flipped bytes, a truncation
or a deletion) and requires: cellck exits 1 (0 allowed after a truncation
at an edit boundary or inside the last edit, which is a torn append), with
no sanitizer report; cellck --salvage exits 0 or 1; the new store checks
clean; and every value written is in a scan of some table of the new store
(tables are enabled first: a flip may have disabled one). Prints one line
per failure and a summary; exit 1 on any failure.
"""
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

build, iterations, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
CELLSH, CELLCK = build + '/tools/cellsh', build + '/tools/cellck'
# A sanitizer build reports with its own exit codes.
env = dict(os.environ, ASAN_OPTIONS='exitcode=99:detect_leaks=1',
           UBSAN_OPTIONS='halt_on_error=1:exitcode=98:print_stacktrace=1')


def run(args):
    return subprocess.run(args, capture_output=True, text=True, errors='replace', env=env)


def sh(store, *cmds, ro=False):
    args = [CELLSH] + (['-r'] if ro else []) + [store]
    for c in cmds:
        args += ['-e', c]
    return run(args)


tmp = tempfile.mkdtemp(prefix='manifest-damage.')
base = tmp + '/base'
values = []
cmds = ["create_namespace 'ns'", "create 'ns:a', {NAME => 'f', VERSIONS => 3}, {NAME => 'g'}",
        "create 't', 'f'", "alter 't', METHOD => 'table_att', 'colour' => 'blue'"]
for k in range(4):
    for i in range(5):
        v = 'v%d_%d' % (k, i)
        values.append(v)
        table = 'ns:a' if i % 2 == 0 else 't'
        family = ('f', 'g')[k % 2] if table == 'ns:a' else 'f'
        cmds.append("put '%s', 'r%d_%d', '%s:q', '%s'" % (table, k, i, family, v))
    cmds.append("flush 'ns:a'" if k % 2 else "flush 't'")
r = sh(base, *cmds)
if r.returncode != 0:
    sys.exit('building the store failed: ' + r.stdout + r.stderr)
# Rows only in the log: each put synced, the shell killed.
p = subprocess.Popen([CELLSH, '-s', '-n', base], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL, env=env)
for i in range(6):
    v = 'L%d' % i
    values.append(v)
    p.stdin.write(("put '%s', 'L%d', 'f:q', '%s'\n" % (('ns:a', 't')[i % 2], i, v)).encode())
p.stdin.flush()
time.sleep(2)
p.send_signal(signal.SIGKILL)
p.wait()
manifest = open(base + '/MANIFEST', 'rb').read()

rnd = random.Random(seed)
failures = 0
kinds = {}
for it in range(iterations):
    store, new = tmp + '/s%d' % it, tmp + '/n%d' % it
    shutil.copytree(base, store)
    kind = rnd.choice(['flip', 'flip', 'flip', 'truncate', 'delete'])
    kinds[kind] = kinds.get(kind, 0) + 1
    data = bytearray(manifest)
    if kind == 'flip':
        for _ in range(rnd.randint(1, 3)):
            data[rnd.randrange(len(data))] ^= rnd.randint(1, 255)
    elif kind == 'truncate':
        data = data[:rnd.randrange(len(data))]
    if kind == 'delete':
        os.unlink(store + '/MANIFEST')
    else:
        open(store + '/MANIFEST', 'wb').write(data)
    check = run([CELLCK, store])
    salvage = run([CELLCK, '--salvage', store, new])
    why = None
    if check.returncode not in (0, 1) or salvage.returncode not in (0, 1):
        why = 'exit status %d (check), %d (salvage)' % (check.returncode, salvage.returncode)
    elif check.returncode == 0 and kind != 'truncate':
        why = 'the damaged store checks clean'
    elif 'MANIFEST' not in check.stdout and check.returncode:
        why = 'the check does not name MANIFEST'
    else:
        again = run([CELLCK, new])
        if again.returncode != 0:
            why = 'the new store does not check clean: ' + again.stdout[-400:]
        else:
            lines = sh(new, 'list', ro=True).stdout.split('\n')
            tables = [l.strip() for l in lines
                      if l.strip() and l != 'TABLE' and 'row(s)' not in l and not l.startswith('=>')]
            sh(new, *["enable '%s'" % t for t in tables])
            out = ''.join(sh(new, "scan '%s', {VERSIONS => 10}" % t, ro=True).stdout for t in tables)
            missing = [v for v in values if 'value=%s\n' % v not in out]
            if missing:
                why = 'values missing in the new store: %s' % missing[:6]
    if why:
        failures += 1
        print('iteration %d (%s, %d bytes left): %s\n  check: %s\n  salvage: %s%s'
              % (it, kind, len(data), why, check.stdout[-600:], salvage.stdout[-1500:], salvage.stderr[-800:]))
    shutil.rmtree(store, ignore_errors=True)
    shutil.rmtree(new, ignore_errors=True)
shutil.rmtree(tmp, ignore_errors=True)
print('manifest damage: %d iterations (%s), %d failures'
      % (iterations, ', '.join('%d %s' % (n, k) for k, n in sorted(kinds.items())), failures))
sys.exit(1 if failures else 0)
