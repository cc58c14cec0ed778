#!/usr/bin/env python3
"""Writes libkvcore's linker version script from kvcore.h, the one owner of
the public API: every function the header declares (a declaration line that
starts in column 0 and names kv_something( ) is exported under version
KVCORE_0; every other symbol of the library stays local.

Usage: gen_version_script.py KVCORE_H OUTPUT
"""
import re
import sys


def public_functions(header_text):
    names = set()
    for line in header_text.splitlines():
        if not line[:1].isalpha():
            continue          # comments, continuation lines, preprocessor
        for m in re.finditer(r"\b(kv_[a-z0-9_]+)\s*\(", line):
            names.add(m.group(1))
    return sorted(names)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: gen_version_script.py KVCORE_H OUTPUT")
    with open(sys.argv[1], encoding="utf-8") as f:
        names = public_functions(f.read())
    if not names:
        sys.exit("gen_version_script.py: no kv_ functions found in " + sys.argv[1])
    with open(sys.argv[2], "w", encoding="utf-8") as out:
        out.write("/* Generated from kvcore.h by packaging/gen_version_script.py. */\n")
        out.write("KVCORE_0 {\n  global:\n")
        for n in names:
            out.write("    %s;\n" % n)
        out.write("  local:\n    *;\n};\n")


if __name__ == "__main__":
    main()
