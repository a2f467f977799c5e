#!/usr/bin/env python3
"""Measure graphgen on the inputs of ../shared/bench and print the README table.

  bench/run.py [--graphgen build/graphgen] [--baseline OLD_BINARY] [--runs 5] [--work build/bench]

Inputs: pydoc-sep3.callgrind and scatter-long.perf (decompressed from
../shared/bench), a perf file whose stacks form one big cycle
(make_cycle_perf.py), a 100k-function pstats file (make_big_pstats.py), and
1024 rank files (../shared/bench/make_ranks.py) merged into one pstats, for
which Python's own merge is timed in the same run.
Each case runs --runs times; the table shows medians of wall time, of the
read phase (graphgen --timings) as MB/s, and of peak resident memory (from
/usr/bin/time, else from getrusage). Reference times are those measured for
today's tools in ../shared/bench/README.md on this machine kind.
With --baseline, every case also runs an earlier graphgen binary (built from
an older commit), alternating with the new one, and the table shows both and
their ratio: changes are judged side by side in one run, never against
figures from another day.
Not a test: nothing here asserts a time.
"""
import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SHARED_BENCH = os.path.join(os.path.dirname(ROOT), "shared", "bench")

# (name, input, graphgen args, reference tool, reference seconds, reference MB, target seconds)
CASES = [
    ("pydoc-sep3.callgrind -> dot", "pydoc-sep3.callgrind", [], "gprof2dot", 7.5, 64, 0.1),
    ("scatter-long.perf -> dot", "scatter-long.perf", [], "gprof2dot", 5.9, 52, 0.5),
    ("one-big-cycle perf (20k samples, 500 fns) -> dot", "cycle.perf", [], "gprof2dot", 119.0, 105, 1.0),
    ("100k-function pstats -> dot", "big.pstats", [], "gprof2dot", 7.4, 438, None),
]


def prepare(work):
    os.makedirs(work, exist_ok=True)
    for name in ("pydoc-sep3.callgrind", "scatter-long.perf"):
        out = os.path.join(work, name)
        if not os.path.exists(out):
            src = os.path.join(SHARED_BENCH, name + ".xz")
            if not os.path.exists(src):
                sys.exit("bench: %s not found (../shared/bench beside the project)" % src)
            with open(out + ".tmp", "wb") as f:
                subprocess.run(["xz", "-dc", src], stdout=f, check=True)
            os.rename(out + ".tmp", out)
    cycle = os.path.join(work, "cycle.perf")
    if not os.path.exists(cycle):
        subprocess.run([sys.executable, os.path.join(HERE, "make_cycle_perf.py"), cycle], check=True)
    big = os.path.join(work, "big.pstats")
    if not os.path.exists(big):
        subprocess.run([sys.executable, os.path.join(HERE, "make_big_pstats.py"), big], check=True)
    ranks = os.path.join(work, "ranks")
    if not os.path.exists(os.path.join(ranks, "cpu_1023.prof")):
        os.makedirs(ranks, exist_ok=True)
        source = os.path.join(os.path.dirname(ROOT), "shared", "corpus", "real", "pstats", "scatter.pstats")
        subprocess.run([sys.executable, os.path.join(SHARED_BENCH, "make_ranks.py"), source, "1024", ranks],
                       check=True, stdout=subprocess.DEVNULL)


def run_once(graphgen, args, path, out, extra=()):
    timer = shutil.which("time") or "/usr/bin/time"
    cmd = [graphgen, "--timings", "-q"] + args + [path] + list(extra) + ["-o", out]
    use_time = os.path.exists(timer)
    if use_time:
        cmd = [timer, "-f", "peak-kb %M"] + cmd
    start = time.perf_counter()
    res = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=True)
    wall = time.perf_counter() - start
    err = res.stderr.decode()
    read = float(re.search(r"timing: read\s+([0-9.]+)", err).group(1))
    if use_time:
        peak_mb = int(re.search(r"peak-kb (\d+)", err).group(1)) / 1024
    else:
        peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return wall, read, peak_mb


def alternate(a, args, path, out, extra=()):
    """Runs the new binary (and the baseline, alternating) --runs times: medians of (wall, read, peak)."""
    new, old = [], []
    for _ in range(a.runs):
        new.append(run_once(a.graphgen, args, path, out, extra))
        if a.baseline:
            base_out = os.path.join(os.path.dirname(out), "baseline-" + os.path.basename(out))
            old.append(run_once(a.baseline, args, path, base_out, extra))
    med = lambda rs: tuple(statistics.median(r[i] for r in rs) for i in range(3))
    return med(new), (med(old) if old else None)


def baseline_note(new, old):
    if old is None:
        return ""
    return " (baseline %.3f s, %.0f MB: %.2f× the time)" % (old[0], old[2], new[0] / old[0])


def merge_case(a):
    """1024 rank files -> one pstats: graphgen against Python's pstats, same run."""
    ranks = sorted(os.path.join(a.work, "ranks", f) for f in os.listdir(os.path.join(a.work, "ranks")))
    size_mb = sum(os.path.getsize(f) for f in ranks) / 1e6
    out = os.path.join(a.work, "merged.pstats")
    new, old = alternate(a, [], ranks[0], out, extra=ranks[1:])
    py_out = os.path.join(a.work, "python-merged.pstats")
    code = "import pstats,sys; pstats.Stats(*sys.argv[2:]).dump_stats(sys.argv[1])"
    python = []
    for _ in range(max(1, a.runs // 2)):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code, py_out] + ranks, check=True)
        python.append(time.perf_counter() - start)
    wall, read, peak = new
    ref = statistics.median(python)
    print("| 1024 rank pstats -> one merged pstats | %.1f MB | %.3f s%s | %.0f MB/s | %.0f MB | Python pstats %.1f s "
          "(this run) | %.0f× | %s |" % (size_mb, wall, baseline_note(new, old), size_mb / read, peak, ref, ref / wall,
                                         "met (≥ 40×)" if ref / wall >= 40 else "missed (≥ 40×)"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--graphgen", default=os.path.join(ROOT, "build", "graphgen"))
    ap.add_argument("--baseline", help="an earlier graphgen binary to run alternately, for side-by-side ratios")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--work", default=os.path.join(ROOT, "build", "bench"))
    a = ap.parse_args()
    prepare(a.work)
    out = os.path.join(a.work, "out.dot")
    print("| work | input | graphgen | read | peak memory | today's tool | ratio | target |")
    print("|---|---|---|---|---|---|---|---|")
    for name, inp, args, tool, ref_s, ref_mb, target in CASES:
        path = os.path.join(a.work, inp)
        size_mb = os.path.getsize(path) / 1e6
        new, old = alternate(a, args, path, out)
        wall, read, peak = new
        verdict = "-" if target is None else ("met (≤ %g s)" % target if wall <= target else "missed (≤ %g s)" % target)
        print("| %s | %.1f MB | %.3f s%s | %.0f MB/s | %.0f MB | %s %.1f s, %d MB | %.0f× | %s |" %
              (name, size_mb, wall, baseline_note(new, old), size_mb / read if read > 0 else float("inf"), peak, tool,
               ref_s, ref_mb, ref_s / wall, verdict))
    merge_case(a)


if __name__ == "__main__":
    main()
