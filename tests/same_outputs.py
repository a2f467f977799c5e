#!/usr/bin/env python3
"""Every output of every input, as digests: proof that a change of structure
changed no output.

Runs the binary over every profile of testdata/ and ../shared/corpus (the
invariant suite's list), the groups of rank files, the malformed inputs of
testdata/bad/, hostile names and --help, through every output and a few
option sets, and records for each run its exit status and the SHA-256 of its
standard output and standard error. Run it on the commit before a change and
on the commit after, then compare:

  git stash; ninja -C build; tests/same_outputs.py --graphgen build/graphgen --write /tmp/before.txt
  git stash pop; ninja -C build; tests/same_outputs.py --graphgen build/graphgen --check /tmp/before.txt

--check prints every run whose exit status, output or messages differ, and
exits 1 if any does. -T stats prints each input's modification time, as
pstats does: its digests are of the output with those times replaced, so
manifests made in other checkouts (or with the corpus laid out again)
compare.
"""
import argparse
import concurrent.futures
import hashlib
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "invariants"))
import invariants  # noqa: E402  (the list of inputs and the hostile names)

HERE = os.path.dirname(os.path.abspath(__file__))
PROJECT = os.path.dirname(HERE)

# Each input goes through each of these (argument lists before the input).
VARIANTS = [
    ["-T", "dot"],
    ["-T", "dot", "-n", "0", "-e", "0"],
    ["-T", "dot", "-n", "0", "-e", "0", "--color-nodes-by-selftime", "-s", "-w", "--show-samples"],
    ["-T", "callgrind"],
    ["-T", "pstats"],
    ["-T", "stats"],
    ["-T", "stats", "--callers", "--sort", "tottime"],
    ["-T", "folded"],
    ["-T", "folded", "--total", "callstacks"],
    ["-T", "flame"],
    ["-T", "flame", "--flame-reverse"],
    ["-T", "html"],
]
SVG_UNDER = 2_000_000  # bytes of input; Graphviz's layout of larger ones takes long
GROUP_VARIANTS = [
    ["-T", "ranks"],
    ["-T", "ranks.csv"],
    ["-T", "ranks.json"],
    ["-T", "heatmap"],
    ["-T", "dot", "--imbalance"],
    ["-T", "html"],
    ["-T", "stats"],
]


def digest(data):
    return hashlib.sha256(data).hexdigest()[:32]


# -T stats starts each file's line with its modification time, as pstats
# does: a checkout, or a corpus laid out again, changes it and nothing else.
MTIME = re.compile(rb"^[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4}    ", re.M)


def run_one(graphgen, key, args, cwd):
    try:
        p = subprocess.run([graphgen, *args], capture_output=True, timeout=600, cwd=cwd,
                           stdin=subprocess.DEVNULL)
        out = MTIME.sub(b"(mtime)    ", p.stdout) if "stats" in args else p.stdout
        return key, f"{p.returncode}\t{digest(out)}\t{digest(p.stderr)}"
    except subprocess.TimeoutExpired:
        return key, "timeout"


def relative(path):
    """Keys name files relative to the project (or the corpus) so that two
    checkouts in different places compare."""
    for root, name in ((os.path.join(PROJECT, "..", "shared", "corpus"), "corpus"), (PROJECT, "project")):
        r = os.path.relpath(path, os.path.abspath(root))
        if not r.startswith(".."):
            return f"{name}/{r}"
    return os.path.basename(path)


def jobs(corpus, hostile_dir):
    """(key, args, cwd): run in cwd so that file names in messages are
    relative and the same from any checkout."""
    out = []
    roots = [os.path.join(PROJECT, "testdata")]
    if corpus and os.path.isdir(corpus):
        roots.append(corpus)
    for root in roots:
        files = invariants.inputs_under(root)
        for path in files:
            cwd, name = os.path.dirname(path), os.path.basename(path)
            for v in VARIANTS:
                out.append((f"{relative(path)} {' '.join(v)}", [*v, name], cwd))
            if os.path.getsize(path) < SVG_UNDER:
                out.append((f"{relative(path)} -T svg", ["-T", "svg", name], cwd))
        for d in sorted({os.path.dirname(p) for p in files}):
            ranks = sorted(os.path.basename(p) for p in files if os.path.dirname(p) == d and
                           re.search(r"(rank|cpu_)\d+\.(pstats|prof)$", os.path.basename(p)))
            if len(ranks) >= 2:
                for v in GROUP_VARIANTS:
                    out.append((f"{relative(d)}/[ranks] {' '.join(v)}", [*v, *ranks], d))
    # line_profiler's reports, which the invariant suite leaves out.
    lprof = os.path.join(PROJECT, "testdata", "lprof")
    for dirpath, _, names in os.walk(lprof):
        for name in sorted(names):
            if name.endswith(".lprof"):
                for v in (["-T", "text"], ["-T", "text", "--skip-zero", "--unit", "1e-3"], ["-T", "dot"]):
                    out.append((f"{relative(os.path.join(dirpath, name))} {' '.join(v)}", [*v, name], dirpath))
    # Malformed inputs: the exact message and status.
    bad = os.path.join(PROJECT, "testdata", "bad")
    for dirpath, _, names in os.walk(os.path.join(PROJECT, "testdata", "notprofiles")):
        for name in sorted(names):
            out.append((f"{relative(os.path.join(dirpath, name))} -T dot", ["-T", "dot", name], dirpath))
    for dirpath, _, names in os.walk(bad):
        for name in sorted(names):
            if not name.endswith((".expected", ".md", ".args")):
                out.append((f"{relative(os.path.join(dirpath, name))} -T dot", ["-T", "dot", name], dirpath))
    # Two-input comparisons of the same format.
    pairs = [("testdata/demo.pstats", "testdata/selfcall/sympy-py3117.pstats.xz"),
             ("testdata/perf/real/xz-t2.perf.xz", "testdata/perf/real/xz9-fp.perf.xz")]
    for d in ("testdata/compare/json", "testdata/compare/prof"):
        names = sorted(os.listdir(os.path.join(PROJECT, d))) if os.path.isdir(os.path.join(PROJECT, d)) else []
        names = [n for n in names if n.endswith((".json", ".prof"))]
        pairs += [(f"{d}/{x}", f"{d}/{y}") for x, y in zip(names, names[1:])]
    for a, b in pairs:
        if os.path.exists(os.path.join(PROJECT, a)) and os.path.exists(os.path.join(PROJECT, b)):
            for extra in ([], ["--compare-color-by-difference", "--compare-only-slower"]):
                out.append((f"compare {a} {b} {' '.join(extra)}", ["--compare", *extra, a, b], PROJECT))
    paths, ranks = invariants.hostile_inputs(hostile_dir)
    for p in paths + ranks:  # -T stats prints each file's time, as pstats does
        os.utime(p, (1_000_000_000, 1_000_000_000))
    for p in paths:
        for v in VARIANTS:
            out.append((f"hostile/{os.path.basename(p)} {' '.join(v)}", [*v, os.path.basename(p)], hostile_dir))
        out.append((f"hostile/{os.path.basename(p)} -T svg", ["-T", "svg", os.path.basename(p)], hostile_dir))
    for v in GROUP_VARIANTS:
        out.append((f"hostile/[ranks] {' '.join(v)}", [*v, *(os.path.basename(r) for r in ranks)], hostile_dir))
    out.append(("--help", ["--help"], PROJECT))
    out.append(("run --help", ["run", "--help"], PROJECT))
    out.append(("no such option", ["--no-such-option"], PROJECT))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--graphgen", required=True)
    ap.add_argument("--corpus", default=os.path.join(PROJECT, "..", "shared", "corpus"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--write", metavar="MANIFEST")
    g.add_argument("--check", metavar="MANIFEST")
    a = ap.parse_args()
    graphgen = os.path.abspath(a.graphgen)
    with tempfile.TemporaryDirectory() as tmp:
        hostile = os.path.join(tmp, "hostile")
        os.mkdir(hostile)
        todo = jobs(a.corpus, hostile)
        results = {}
        with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
            for i, (key, line) in enumerate(pool.map(lambda j: run_one(graphgen, *j), todo)):
                results[key] = line
                if (i + 1) % 500 == 0:
                    print(f"same_outputs: {i + 1} of {len(todo)} runs", file=sys.stderr)
    if a.write:
        with open(a.write, "w") as f:
            for key in sorted(results):
                f.write(f"{key}\t{results[key]}\n")
        print(f"same_outputs: {len(results)} runs written to {a.write}")
        return 0
    before = {}
    with open(a.check) as f:
        for line in f:
            key, _, rest = line.rstrip("\n").partition("\t")
            before[key] = rest
    differ = [k for k in sorted(set(before) | set(results)) if before.get(k) != results.get(k)]
    for k in differ:
        print(f"DIFFERS {k}: before {before.get(k, 'not run')!r}, now {results.get(k, 'not run')!r}")
    print(f"same_outputs: {len(results)} runs, {len(differ)} differ from {a.check}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
