#!/usr/bin/env python3
"""Checks the include graph of libkvcore and of its users.

kvcore/ is built in layers, lowest first (see LAYERS below): a file may
include headers of its own folder, of lower layers and the public header
kvcore/include/kvcore.h, never of a higher layer or of a peer folder of the
same rank (the engine and the model backend must not share code). Modules
(a .c file and its .h, named by path without the extension) must form a
directed graph without cycles: a cycle between modules is a helper living
in the wrong place. fusefs/ and tools/ may include no kvcore header but
kvcore.h. Every "..." include must resolve to a file.

Usage: check_includes.py [--root DIR]   (DIR: the source tree, default the
tree this script is in). Prints each violation and exits 1, or prints a
one-line summary and exits 0.
"""
import argparse
import os
import re
import sys

# Rank of each folder under kvcore/: lower ranks are lower layers. Folders of
# equal rank are peers and may not include each other.
LAYERS = {
    "include": 0,   # the public header: everyone may include it
    "util": 1,      # coding, env, status names, messages, clock, file names
    "hbase": 2,     # the data model without storage
    "table": 3,     # sorted files, blocks, bloom filters, cache, iterators
    "engine": 4,    # the local LSM engine (a backend)
    "model": 4,     # the in-memory reference model (a backend)
    "bigtable": 4,  # Cloud Bigtable (a backend)
    "api": 5,       # the public calls, dispatching to a backend
}
USERS = ("fusefs", "tools")
INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def sources(root, top):
    base = os.path.join(root, top)
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames.sort()
        for name in sorted(filenames):
            if name.endswith((".c", ".h")):
                yield os.path.relpath(os.path.join(dirpath, name), root)


def includes(root, path):
    with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
        for lineno, line in enumerate(f, 1):
            m = INCLUDE_RE.match(line)
            if m:
                yield lineno, m.group(1)


def resolve(root, path, name, search):
    """The included file's path relative to root, or None."""
    for d in [os.path.dirname(path)] + list(search):
        cand = os.path.normpath(os.path.join(d, name))
        if os.path.isfile(os.path.join(root, cand)):
            return cand
    return None


def generated_from(root, path, name):
    """True when @name is a header protoc-c generates at build time from a
    .proto beside @path (kvcore/bigtable/bigtable.pb-c.h from bigtable.proto)."""
    if not name.endswith(".pb-c.h"):
        return False
    proto = os.path.join(os.path.dirname(path), name[: -len(".pb-c.h")] + ".proto")
    return os.path.isfile(os.path.join(root, proto))


def folder(path):
    """The layer folder of a kvcore/ path ("engine"), or None."""
    parts = path.split(os.sep)
    return parts[1] if len(parts) > 2 and parts[0] == "kvcore" else None


def module(path):
    return os.path.splitext(path)[0]


def find_cycle(graph):
    """A list of modules forming a cycle, or None."""
    WHITE, GREY, BLACK = 0, 1, 2
    color = {n: WHITE for n in graph}
    stack = []

    def visit(n):
        color[n] = GREY
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if color.get(m, WHITE) == GREY:
                return stack[stack.index(m):] + [m]
            if color.get(m, WHITE) == WHITE:
                found = visit(m)
                if found:
                    return found
        stack.pop()
        color[n] = BLACK
        return None

    sys.setrecursionlimit(10000)
    for n in sorted(graph):
        if color[n] == WHITE:
            found = visit(n)
            if found:
                return found
    return None


def check(root):
    problems = []
    graph = {}
    nfiles = nincludes = 0
    kv_search = ["kvcore", os.path.join("kvcore", "include")]
    for path in sources(root, "kvcore"):
        nfiles += 1
        layer = folder(path)
        if layer is None:
            problems.append(f"{path}: kvcore/ sources belong in a layer folder ({', '.join(LAYERS)})")
            continue
        if layer not in LAYERS:
            problems.append(f"{path}: folder kvcore/{layer} has no rank in {sys.argv[0]}'s LAYERS")
            continue
        graph.setdefault(module(path), set())
        for lineno, name in includes(root, path):
            nincludes += 1
            target = resolve(root, path, name, kv_search)
            where = f"{path}:{lineno}"
            if target is None and generated_from(root, path, name):
                continue
            if target is None:
                problems.append(f'{where}: #include "{name}" does not resolve to a file')
                continue
            tlayer = folder(target)
            if tlayer is None or tlayer not in LAYERS:
                problems.append(f'{where}: #include "{name}" is outside the kvcore layers')
                continue
            if LAYERS[tlayer] > LAYERS[layer]:
                problems.append(f'{where}: #include "{name}" goes up from {layer}/ to {tlayer}/')
            elif LAYERS[tlayer] == LAYERS[layer] and tlayer != layer:
                problems.append(f'{where}: #include "{name}": {layer}/ and {tlayer}/ are peers and '
                                "share no code")
            if module(target) != module(path):
                graph[module(path)].add(module(target))
    cycle = find_cycle(graph)
    if cycle:
        problems.append("module cycle: " + " -> ".join(cycle))
    for top in USERS:
        for path in sources(root, top):
            nfiles += 1
            for lineno, name in includes(root, path):
                nincludes += 1
                if resolve(root, path, name, []) is not None:
                    continue   # the user's own header
                target = resolve(root, path, name, kv_search)
                if target is None:
                    # Only kvcore headers concern this check; the build finds the rest.
                    continue
                if target != os.path.join("kvcore", "include", "kvcore.h"):
                    problems.append(f'{path}:{lineno}: #include "{name}": {top}/ may include only '
                                    "kvcore.h of libkvcore")
    return problems, nfiles, nincludes, len(graph)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    problems, nfiles, nincludes, nmodules = check(root)
    for p in problems:
        print(p)
    if problems:
        print(f"include check: {len(problems)} problem(s)")
        return 1
    print(f"include check: {nfiles} files, {nincludes} includes, {nmodules} kvcore modules, "
          "no upward include, no cycle")
    return 0


if __name__ == "__main__":
    sys.exit(main())
