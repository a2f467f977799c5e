#!/usr/bin/env python3
"""The layout's rules, checked on the sources (docs/developing.md, "Layout"):

- formats/ includes nothing from pipeline/ or tools/, python/ nothing from
  tools/, lib/ nothing but itself: each floor uses only the ones below it;
- no product function is longer than 100 lines.

Usage: check_layout.py SOURCE_DIR. Prints each breach and exits 1, or
prints what it checked and exits 0. check_layout.py --self-test checks
that it finds each kind of breach in a made-up tree.
"""
import os
import re
import sys

MAX_LINES = 100
PRODUCT = ["lib", "formats", "pipeline", "tools", "python"]

# Headers of each floor, by the names they are included as.
FLOOR_OF_DIR = {"pipeline": "pipeline", "tools": "tools", "python": "python", "formats": "formats", "lib": "lib"}
# What each floor may not include.
FORBIDDEN = {
    "lib": {"formats", "pipeline", "tools", "python"},
    "formats": {"pipeline", "tools", "python"},
    "pipeline": {"tools", "python"},
    "python": {"tools"},
}


def sources(root):
    for top in PRODUCT:
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if f.endswith((".cc", ".h")):
                    yield top, os.path.join(dirpath, f)


def header_floors(root):
    """Which floor each included name belongs to ("pipeline.h" -> pipeline)."""
    floors = {}
    for top, path in sources(root):
        rel = os.path.relpath(path, os.path.join(root, top))
        name = os.path.basename(path)
        if not name.endswith(".h"):
            continue
        floors.setdefault(rel, set()).add(top)
        # included by folder-relative name within a floor's include dirs
        parts = rel.split(os.sep)
        for k in range(len(parts)):
            floors.setdefault("/".join(parts[k:]), set()).add(top)
    return floors


SIGNATURE = re.compile(r"^( {0,2})[A-Za-z_~][^;]*\)\s*(const)?\s*(noexcept)?\s*(override)?\s*(->\s*[\w:<>]+\s*)?\{\s*$")
NOT_A_FUNCTION = re.compile(r"^\s*(if|for|while|switch|else|do|namespace|struct|class|enum|union|return|catch|try)\b")


def long_functions(path):
    """(line, length, text) of each function definition longer than MAX_LINES:
    a signature at namespace or class level ending in '{', to the brace that
    closes it at the same indentation."""
    lines = open(path, encoding="utf-8", errors="replace").read().split("\n")
    out = []
    i = 0
    while i < len(lines):
        line = lines[i]
        m = SIGNATURE.match(line)
        start = i
        if m is None and line.rstrip().endswith("{") and not NOT_A_FUNCTION.match(line):
            # A signature over several lines: back to its first line.
            j = i
            while j > 0 and not re.match(r"^ {0,2}[A-Za-z_~]", lines[j]):
                j -= 1
            if re.match(r"^ {0,2}[A-Za-z_~]", lines[j]) and not NOT_A_FUNCTION.match(lines[j]) \
                    and "(" in "".join(lines[j:i + 1]) and ")" in line and not lines[j].rstrip().endswith(";"):
                start = j
                m = re.match(r"^( {0,2})", lines[j])
        if m is None or NOT_A_FUNCTION.match(lines[start]):
            i += 1
            continue
        indent = len(m.group(1))
        close = " " * indent + "}"
        k = i + 1
        while k < len(lines) and not (lines[k].startswith(close) and lines[k][indent + 1:indent + 2] in ("", ";", " ", ")")):
            k += 1
        length = k - start + 1
        if length > MAX_LINES:
            out.append((start + 1, length, lines[start].strip()))
        i = k + 1
    return out


def breaches_of(root):
    floors = header_floors(root)
    include = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
    breaches = []
    files = 0
    for top, path in sources(root):
        files += 1
        here = os.path.dirname(path)
        for n, line in enumerate(open(path, encoding="utf-8", errors="replace"), 1):
            m = include.match(line)
            if not m:
                continue
            name = m.group(1)
            if os.path.exists(os.path.join(here, name)):
                continue  # beside the file: its own floor
            owners = floors.get(name, set())
            bad = owners & FORBIDDEN.get(top, set())
            if bad and top not in owners:
                breaches.append(f"{os.path.relpath(path, root)}:{n}: {top}/ includes {name} of {', '.join(sorted(bad))}/")
        for start, length, text in long_functions(path):
            breaches.append(f"{os.path.relpath(path, root)}:{start}: a function of {length} lines (at most {MAX_LINES}): {text}")
    return breaches, files


def self_test():
    import tempfile
    with tempfile.TemporaryDirectory() as root:
        def write(path, text):
            os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
            with open(os.path.join(root, path), "w") as f:
                f.write(text)
        write("pipeline/pipeline.h", "#pragma once\n")
        write("tools/graphgen/cli.h", "#pragma once\n")
        write("formats/x/reader.cc", '#include "pipeline.h"\n')
        write("python/module.cc", '#include "cli.h"\n')
        body = "".join(f"  int x{i} = {i};\n" for i in range(MAX_LINES))
        write("lib/src/long.cc", "int long_one(int a,\n             int b) {\n" + body + "}\n"
              "int short_one() {\n  return 1;\n}\n")
        breaches, _ = breaches_of(root)
    expected = ["formats/x/reader.cc:1: formats/ includes pipeline.h of pipeline/",
                "python/module.cc:1: python/ includes cli.h of tools/",
                f"lib/src/long.cc:1: a function of {MAX_LINES + 3} lines"]
    missing = [e for e in expected if not any(b.startswith(e) for b in breaches)]
    if missing or len(breaches) != len(expected):
        print("check_layout --self-test: expected", expected, "found", breaches)
        return 1
    print("check_layout --self-test: each kind of breach is found")
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    breaches, files = breaches_of(os.path.abspath(root))
    for b in breaches:
        print(b)
    if breaches:
        return 1
    print(f"check_layout: {files} files: each floor includes only those below it, no function over {MAX_LINES} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
