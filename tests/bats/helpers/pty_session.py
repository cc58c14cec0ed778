#!/usr/bin/env python3
"""Drives a program on a pseudo-terminal the way a user at a keyboard does.

Usage: pty_session.py STEPS -- PROGRAM [ARGS...]

STEPS is a file with one step per line:
  send TEXT      types TEXT; Python escapes work: \\r Enter, \\t Tab, \\x03 Ctrl-C,
                 \\x04 Ctrl-D
  expect REGEX   waits until the output read since the previous expect matches
                 REGEX (Python syntax, searched over the text with carriage
                 returns and terminal escape sequences removed)
  sh COMMAND     runs COMMAND with /bin/sh, e.g. to feed a FIFO the program reads
  kill           sends SIGKILL to the program
  wait           waits for the program to end

Prints the transcript (cleaned as above) and, last, "exit status N" (or
"killed by signal N"). Exits 1 when an expect is not met within 60 seconds
(a guard against hangs, not a timing requirement) or the program does not
end after a wait.
"""
import os
import pty
import re
import select
import signal
import subprocess
import sys
import time

GUARD = 60.0
ESCAPES = re.compile(r"\x1b\[[?0-9;]*[A-Za-z]|\x1b[()][A-Z0-9]|\x1b[=>]|\r|\x07")


def clean(raw):
    return ESCAPES.sub("", raw.decode("utf-8", "replace"))


def main():
    steps_path = sys.argv[1]
    argv = sys.argv[sys.argv.index("--") + 1:]
    with open(steps_path, encoding="utf-8") as f:
        steps = [line.rstrip("\n") for line in f if line.strip()]
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(argv[0], argv)
    raw = b""
    seen = 0          # how much of the cleaned output earlier expects consumed
    status = None
    ok = True

    def read_some(timeout):
        nonlocal raw
        r, _, _ = select.select([fd], [], [], timeout)
        if not r:
            return True
        try:
            data = os.read(fd, 65536)
        except OSError:
            return False
        if not data:
            return False
        raw += data
        return True

    for step in steps:
        verb, _, arg = step.partition(" ")
        if verb == "send":
            os.write(fd, arg.encode("utf-8").decode("unicode_escape").encode("latin-1"))
        elif verb == "expect":
            pattern = re.compile(arg)
            deadline = time.monotonic() + GUARD
            while True:
                text = clean(raw)
                m = pattern.search(text, seen)
                if m:
                    seen = m.end()
                    break
                if time.monotonic() > deadline or not read_some(0.2):
                    print("pty_session: no match for /%s/" % arg, file=sys.stderr)
                    ok = False
                    break
            if not ok:
                break
        elif verb == "sh":
            subprocess.run(arg, shell=True, check=False)
        elif verb == "kill":
            os.kill(pid, signal.SIGKILL)
        elif verb == "wait":
            deadline = time.monotonic() + GUARD
            while status is None and time.monotonic() < deadline:
                read_some(0.2)
                done, st = os.waitpid(pid, os.WNOHANG)
                if done:
                    status = st
            if status is None:
                print("pty_session: the program did not end", file=sys.stderr)
                ok = False
                break
        else:
            print("pty_session: unknown step: " + step, file=sys.stderr)
            ok = False
            break
    if status is None:
        os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
    while read_some(0.1):
        pass
    print(clean(raw))
    if os.WIFEXITED(status):
        print("exit status %d" % os.WEXITSTATUS(status))
    else:
        print("killed by signal %d" % os.WTERMSIG(status))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
