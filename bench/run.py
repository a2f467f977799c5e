#!/usr/bin/env python3
"""Measure graphgen on the inputs of ../shared/bench and print the table of docs/speed.md.

  bench/run.py [--graphgen build/graphgen] [--baseline OLD_BINARY] [--runs 5] [--work build/bench]
               [--sections core,formats,ranks,each] [--gprof2dot PATH/gprof2dot.py] [--format-scale 1]

Inputs: pydoc-sep3.callgrind and scatter-long.perf (decompressed from
../shared/bench), a perf file whose stacks form one big cycle
(make_cycle_perf.py), a 100k-function pstats file (make_big_pstats.py), and
1024 rank files (../shared/bench/make_ranks.py) merged into one pstats, for
which Python's own merge is timed in the same run.
Each case runs --runs times; the table shows medians of wall time, of the
read phase (graphgen --timings) as MB/s, and of peak resident memory (the
kernel's account of each process as it is reaped, wait4's ru_maxrss: what
/usr/bin/time prints, without starting it too). Reference times are those measured for
today's tools in ../shared/bench/README.md on this machine kind.
The formats table generates an input per gprof2dot format (make_format_inputs.py,
sized so that gprof2dot needs 15-20 s) and, with --gprof2dot, times gprof2dot
on it in the same run. The ranks table merges 1024, 10 000 and 100 000 rank
files made from testdata/mpi/cpu_0.prof (and with graphgen-mpi on two
processes when it is built); the each table times --each over 64 rank files
with one worker and with one per core. The picture table draws a cProfile of sympy (made here when python3-sympy
is installed) against gprof2dot | dot. The views table writes the HTML report
of a Sphinx profile (made here when python3-sphinx is installed) and of the
100k-function pstats, and the flame graph of scatter-long.perf, and opens each
in headless Chromium (the page's own clock, #selftest). The python table times
`graphgen run` against `python3 -m cProfile -o` on bench/workload.py.
With --baseline, every case of the core table also runs an earlier graphgen binary (built from
an older commit), alternating with the new one (after a run not counted, the two take turns
at going first), and the table shows both medians and the median of the pairs' ratios:
changes are judged side by side in one run, never against figures from another day.
The peers table runs each output against the tool people use for it, in
turn in one run (FlameGraph's scripts from --flamegraph, go tool pprof,
Python's pstats and tracemalloc, mprof plot), on scatter-long.perf, the
100k-function pstats, a pprof file converted from scatter-long, a
tracemalloc snapshot of sympy and an mprof file of bench/workload.py.
The memory table gives the peak against the input of the readers no other
table measures on a large input (a node --cpu-prof recording of
bench/workload.js made long, the same as a sampled and an evented
speedscope file, the tracemalloc snapshot, a pprof file converted from
the formats table's dtrace input, generated TAU, CUBE4, line_profiler and
importtime files (make_memory_inputs.py), scatter-long's trace events).
With --gprof2dot, the core table's reference is gprof2dot run on the same
input in turn with graphgen (once on the cycle file: minutes a run).
Not a test: nothing here asserts a time.
"""
import argparse
import contextlib
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
# The Python that runs the reference tools (gprof2dot, pstats): the system's, as
# their users have it. A pyenv build without PGO runs gprof2dot 1.17x slower
# here, which made every ratio against it look 17 % better than it is.
SYSTEM_PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
ROOT = os.path.dirname(HERE)
SHARED_BENCH = os.path.join(os.path.dirname(ROOT), "shared", "bench")

# (name, input, graphgen args, reference tool, reference seconds, reference MB, target, floor)
# A target is ("seconds", s): at most s; ("ratio", r): at least r times faster
# than the reference tool; ("memory", m): peak at most m times the input.
# `floor`: the read phase is also compared with one pass over the bytes
# (`wc -l` on the same file, warm cache), whose target is at most 4×.
CASES = [
    ("pydoc-sep3.callgrind -> dot", "pydoc-sep3.callgrind", [], "gprof2dot", 7.5, 64, [("ratio", 150)], True),
    ("scatter-long.perf -> dot", "scatter-long.perf", [], "gprof2dot", 5.9, 52, [("ratio", 40)], True),
    ("one-big-cycle perf (20k samples, 500 fns) -> dot", "cycle.perf", [], "gprof2dot", 119.0, 105,
     [("seconds", 0.25)], False),
    ("100k-function pstats -> dot", "big.pstats", [], "gprof2dot", 7.4, 438, [("ratio", 50), ("memory", 2)], False),
]
# gprof2dot's format name for each case's input; its runs on the cycle file
# take minutes each, so that one runs once.
GPROF2DOT_FORMAT = {"pydoc-sep3.callgrind": "callgrind", "scatter-long.perf": "perf", "cycle.perf": "perf",
                    "big.pstats": "pstats"}
GPROF2DOT_ONCE = {"cycle.perf"}
FLOOR_TARGET = 4.0


def floor_seconds(path, runs):
    """One pass over the bytes: `wc -l`, warm cache (the first run warms it)."""
    subprocess.run(["wc", "-l", path], stdout=subprocess.DEVNULL, check=True)
    walls = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(["wc", "-l", path], stdout=subprocess.DEVNULL, check=True)
        walls.append(time.perf_counter() - start)
    return statistics.median(walls)


@contextlib.contextmanager
def busy_core(on):
    """With `on`, one core kept busy elsewhere (a `yes > /dev/null`, as #30's
    busy row asks) until the block ends."""
    if not on:
        yield
        return
    spinner = subprocess.Popen(["yes"], stdout=subprocess.DEVNULL)
    try:
        yield
    finally:
        spinner.terminate()
        spinner.wait()


def verdicts(targets, wall, peak_mib, size_mb, ref_s):
    out = []
    for kind, value in targets:
        if kind == "seconds":
            out.append(("met" if wall <= value else "missed") + " (≤ %g s)" % value)
        elif kind == "ratio":
            out.append(("met" if ref_s / wall >= value else "missed") + " (≥ %g×)" % value)
        elif kind == "memory":
            # (the peak in MiB, the input in MB, as the memory table)
            out.append(("met" if peak_mib * 1.048576 <= value * size_mb else "missed") + " (peak ≤ %g× input)" % value)
    return "; ".join(out)


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


def timed(cmd, stdout=subprocess.DEVNULL):
    """Wall seconds, peak MB and stderr of one command, its exit checked. The peak is the
    kernel's account of the process as wait4() reaps it (what /usr/bin/time -f %M prints,
    without starting /usr/bin/time too: that added 0.7 ms to every run, 2 % of pydoc-sep3's)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=stdout, stderr=subprocess.PIPE)
    err = proc.stderr.read()
    proc.stderr.close()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise subprocess.CalledProcessError(proc.returncode, cmd, stderr=err)
    return wall, usage.ru_maxrss / 1024, err.decode(errors="replace")


def run_once(graphgen, args, path, out, extra=()):
    cmd = [graphgen, "--timings", "-q"] + args + [path] + list(extra) + ["-o", out]
    wall, peak_mb, err = timed(cmd)
    read = float(re.search(r"timing: read\s+([0-9.]+)", err).group(1))
    return wall, read, peak_mb


def alternate(a, args, path, out, extra=(), reference=None, reference_runs=None):
    """Runs the new binary (and the baseline, and the reference command, in turn) --runs times:
    medians of (wall, read, peak) for graphgen and the baseline, and of (wall, peak) for the reference."""
    new, old, ref = [], [], []
    base_out = os.path.join(os.path.dirname(out), "baseline-" + os.path.basename(out))
    warm_out = os.path.join(os.path.dirname(out), "warm-" + os.path.basename(out))
    for i in range(a.runs):
        # A run right after the reference tool (seconds of Python) is slower:
        # with the new binary always first, the same binary as both measured
        # itself at 1.06-1.07x on three rows. So a run not counted first, and
        # the two binaries take turns at going first.
        if a.baseline:
            run_once(a.graphgen, args, path, warm_out, extra)
        if a.baseline and i % 2 == 1:
            old.append(run_once(a.baseline, args, path, base_out, extra))
        new.append(run_once(a.graphgen, args, path, out, extra))
        if a.baseline and i % 2 == 0:
            old.append(run_once(a.baseline, args, path, base_out, extra))
        if reference and i < (a.runs if reference_runs is None else reference_runs):
            ref.append(timed(reference)[:2])
    med = lambda rs, n: tuple(statistics.median(r[i] for r in rs) for i in range(n))
    # The baseline's medians, and the median of each pair's ratio (new / baseline, the runs of
    # one turn): a machine whose speed drifts during the runs moves both of a pair alike.
    base = med(old, 3) + (statistics.median(n[0] / o[0] for n, o in zip(new, old)),) if old else None
    return med(new, 3), base, (med(ref, 2) if ref else None)


def baseline_note(new, old):
    if old is None:
        return ""
    return " (baseline %.3f s, %.1f MiB: %.2f× the time)" % (old[0], old[2], old[3])


def merge_case(a):
    """1024 rank files -> one pstats: graphgen against Python's pstats, same run."""
    ranks = sorted(os.path.join(a.work, "ranks", f) for f in os.listdir(os.path.join(a.work, "ranks")))
    size_mb = sum(os.path.getsize(f) for f in ranks) / 1e6
    out = os.path.join(a.work, "merged.pstats")
    py_out = os.path.join(a.work, "python-merged.pstats")
    code = "import pstats,sys; pstats.Stats(*sys.argv[2:]).dump_stats(sys.argv[1])"
    # Python's merge in turn with graphgen's runs (the machine's speed drifts
    # by a third over minutes here: measured after them, the ratio took
    # whatever the hour gave each).
    new, old, python = alternate(a, [], ranks[0], out, extra=ranks[1:],
                                 reference=[SYSTEM_PYTHON, "-c", code, py_out] + ranks,
                                 reference_runs=max(1, a.runs // 2))
    wall, read, peak = new
    ref = python[0]
    print("| 1024 rank pstats -> one merged pstats | %.1f MB | %.3f s%s | %.0f MB/s | - | %.1f MiB | Python pstats %.1f s "
          "(this run) | %.0f× | %s |" % (size_mb, wall, baseline_note(new, old), size_mb / read, peak, ref, ref / wall,
                                         "met (≥ 40×)" if ref / wall >= 40 else "missed (≥ 40×)"))


# gprof2dot's other formats: the size at which gprof2dot needs 15-20 s here.
FORMAT_SIZES = [("prof", 80), ("axe", 120), ("hprof", 200), ("json", 100), ("sleepy", 20), ("sysprof", 100),
                ("xperf", 200), ("dtrace", 250)]


def formats_section(a):
    """Each reader of gprof2dot's other formats on a generated input, against gprof2dot in the same run."""
    work = os.path.join(a.work, "formats")
    os.makedirs(work, exist_ok=True)
    print()
    print("| format | input | graphgen | read | peak memory | gprof2dot (this run) | ratio |")
    print("|---|---|---|---|---|---|---|")
    for fmt, size in FORMAT_SIZES:
        size = max(1, int(size * a.format_scale))
        path = os.path.join(work, "big-%d.%s" % (size, fmt))
        if not os.path.exists(path):
            subprocess.run([sys.executable, os.path.join(HERE, "make_format_inputs.py"), fmt, path + ".tmp", str(size)],
                           check=True, stdout=subprocess.DEVNULL)
            os.rename(path + ".tmp", path)
        size_mb = os.path.getsize(path) / 1e6
        out = os.path.join(work, "out.dot")
        runs = [run_once(a.graphgen, ["-f", fmt], path, out) for _ in range(a.runs)]
        wall, read, peak = (statistics.median(r[i] for r in runs) for i in range(3))
        ref = "-"
        ratio = "-"
        if a.gprof2dot:
            ref_wall, ref_peak, _ = timed([SYSTEM_PYTHON, a.gprof2dot, "-f", fmt, path, "-o",
                                           os.path.join(work, "gprof2dot.dot")])
            ref = "%.1f s, %.0f MB" % (ref_wall, ref_peak)
            ratio = "%.0f×" % (ref_wall / wall)
        print("| %s | %.0f MB | %.2f s | %.0f MB/s | %.0f MB | %s | %s |" %
              (fmt, size_mb, wall, size_mb / read if read > 0 else float("inf"), peak, ref, ratio))




def peer_inputs(a):
    """Inputs for the peers table, made once: a pprof file (scatter-long.perf converted by graphgen),
    a tracemalloc snapshot of sympy at work (25 frames), and an mprof file of bench/workload.py."""
    work = os.path.join(a.work, "peers")
    os.makedirs(work, exist_ok=True)
    made = {}
    pprof = os.path.join(work, "scatter.pb.gz")
    if not os.path.exists(pprof):
        subprocess.run([a.graphgen, "-q", "-T", "pprof", os.path.join(a.work, "scatter-long.perf"), "-o", pprof],
                       check=True)
    made["pprof"] = pprof
    snap = os.path.join(work, "sympy.tracemalloc")
    if not os.path.exists(snap):
        code = ("import tracemalloc, sys\ntracemalloc.start(25)\nimport sympy\nx, y = sympy.symbols('x y')\n"
                "sympy.integrate(sympy.sin(x) ** 3 * sympy.exp(x), x)\nsympy.factor(x ** 20 - y ** 20)\n"
                "tracemalloc.take_snapshot().dump(sys.argv[1])\n")
        if subprocess.run([SYSTEM_PYTHON, "-c", code, snap + ".tmp"], stderr=subprocess.DEVNULL).returncode == 0:
            os.rename(snap + ".tmp", snap)
    if os.path.exists(snap):
        made["tracemalloc"] = snap
    mprof = shutil.which("mprof") or shutil.which("python3-mprof")
    dat = os.path.join(work, "workload.dat")
    if mprof and not os.path.exists(dat):
        subprocess.run([mprof, "run", "-o", dat + ".tmp", SYSTEM_PYTHON, os.path.join(HERE, "workload.py")],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if os.path.exists(dat + ".tmp"):
            os.rename(dat + ".tmp", dat)
    if mprof and os.path.exists(dat):
        made["mprof"] = (mprof, dat)
    return made


def peers_section(a):
    """Each output against the tool people use for it, in turn in one run: FlameGraph's
    stackcollapse-perf.pl and flamegraph.pl, go tool pprof -top, Python's pstats print_stats and
    tracemalloc statistics, mprof plot."""
    made = peer_inputs(a)
    work = os.path.join(a.work, "peers")
    perf = os.path.join(a.work, "scatter-long.perf")
    big = os.path.join(a.work, "big.pstats")
    cases = []  # (what, input, graphgen command, peer name, peer command, target ratio)
    fg = a.flamegraph
    if fg and os.path.exists(os.path.join(fg, "stackcollapse-perf.pl")):
        collapse = os.path.join(fg, "stackcollapse-perf.pl")
        cases.append(("-T folded", perf, [a.graphgen, "-q", "-T", "folded", perf, "-o", os.path.join(work, "g.folded")],
                      "stackcollapse-perf.pl", ["sh", "-c", 'perl "$0" "$1" > "$2"', collapse, perf,
                                                os.path.join(work, "p.folded")], 40))
        cases.append(("-T flame", perf, [a.graphgen, "-q", "-T", "flame", perf, "-o", os.path.join(work, "g.svg")],
                      "stackcollapse-perf.pl \\| flamegraph.pl",
                      ["sh", "-c", 'perl "$0" "$2" | perl "$1" > "$3"', collapse, os.path.join(fg, "flamegraph.pl"),
                       perf, os.path.join(work, "p.svg")], None))
    cases.append(("-T stats", big, [a.graphgen, "-q", "-T", "stats", big, "-o", os.path.join(work, "g.stats")],
                  "pstats print_stats", [SYSTEM_PYTHON, "-c", "import pstats, sys\n"
                                         "pstats.Stats(sys.argv[1], stream=open(sys.argv[2], 'w'))"
                                         ".sort_stats('cumulative').print_stats()", big, os.path.join(work, "p.stats")],
                  None))
    if shutil.which("go"):
        pprof = made["pprof"]
        cases.append(("-T stats", pprof, [a.graphgen, "-q", "-T", "stats", pprof, "-o", os.path.join(work, "g.top")],
                      "go tool pprof -top", ["sh", "-c", 'go tool pprof -top "$0" > "$1" 2>/dev/null', pprof,
                                             os.path.join(work, "p.top")], None))
    if "tracemalloc" in made:
        snap = made["tracemalloc"]
        cases.append(("-T stats", snap, [a.graphgen, "-q", "-T", "stats", snap, "-o", os.path.join(work, "g.tm")],
                      "tracemalloc statistics", [SYSTEM_PYTHON, "-c", "import tracemalloc, sys\n"
                                                 "s = tracemalloc.Snapshot.load(sys.argv[1])\n"
                                                 "open(sys.argv[2], 'w').write('\\n'.join(map(str, "
                                                 "s.statistics('lineno'))))", snap, os.path.join(work, "p.tm")],
                      None))
    if "mprof" in made:
        mprof, dat = made["mprof"]
        cases.append(("-T memplot.png", dat, [a.graphgen, "-q", dat, "-o", os.path.join(work, "g.mem.png")],
                      "mprof plot", [mprof, "plot", "-o", os.path.join(work, "p.png"), dat], None))
    print()
    print("| output | input | graphgen | peak | tool people use | its time, peak | ratio | target |")
    print("|---|---|---|---|---|---|---|---|")
    for what, path, cmd, peer, peer_cmd, target in cases:
        mine, theirs = [], []
        for i in range(a.runs):  # in turn, so drift hits both alike
            mine.append(timed(cmd)[:2])
            if i < max(1, min(a.runs, 3)):
                theirs.append(timed(peer_cmd)[:2])
        w, p = (statistics.median(r[k] for r in mine) for k in range(2))
        tw, tp = (statistics.median(r[k] for r in theirs) for k in range(2))
        verdict = "-" if target is None else ("met" if tw / w >= target else "missed") + " (≥ %g×)" % target
        print("| %s | %s (%.1f MB) | %.3f s | %.0f MB | %s | %.2f s, %.0f MB | %.2g× | %s |" %
              (what, os.path.basename(path), os.path.getsize(path) / 1e6, w, p, peer, tw, tp, tw / w, verdict))


def memory_section(a):
    """Peak memory against the input for the readers no other table measures on a large input:
    a node --cpu-prof recording of bench/workload.js with its samples repeated (cpuprofile), the
    same samples as a sampled and as an evented speedscope file (make_json_profiles.py), the
    tracemalloc snapshot of the peers table, and scatter-long.perf's trace events (-T trace)."""
    work = os.path.join(a.work, "memory")
    os.makedirs(work, exist_ok=True)
    inputs = []
    if shutil.which("node") or shutil.which("nodejs"):
        for kind, name, mb in (("cpuprofile", "big.cpuprofile", 60), ("speedscope", "big.speedscope.json", 40),
                               ("evented", "evented.speedscope.json", 50)):
            path = os.path.join(work, name)
            if not os.path.exists(path):
                subprocess.run([sys.executable, os.path.join(HERE, "make_json_profiles.py"), kind, path + ".tmp",
                                str(mb)], check=True)
                os.rename(path + ".tmp", path)
            inputs.append(("speedscope" if kind == "evented" else kind, path))
    snap = peer_inputs(a).get("tracemalloc")
    if snap:
        inputs.append(("tracemalloc", snap))
    # pprof: graphgen's -T pprof of the formats table's 250 MB dtrace file (made here when that table
    # was not), 3.7 MB of gzip holding 11 MB of protobuf: 103 000 samples, 50 000 functions.
    pprof = os.path.join(work, "big.pb.gz")
    if not os.path.exists(pprof):
        source = os.path.join(a.work, "formats", "big-250.dtrace")
        made = not os.path.exists(source)
        if made:
            source = os.path.join(work, "pprof-source.dtrace")
            subprocess.run([sys.executable, os.path.join(HERE, "make_format_inputs.py"), "dtrace", source, "250"],
                           check=True, stdout=subprocess.DEVNULL)
        subprocess.run([a.graphgen, "-q", "-T", "pprof", source, "-o", pprof + ".tmp"], check=True)
        os.rename(pprof + ".tmp", pprof)
        if made:
            os.remove(source)
    inputs.append(("pprof", pprof))
    # One big TAU file, a CUBE4 archive, a line_profiler file and an importtime log, 20 MB each
    # (make_memory_inputs.py).
    for fmt, name in (("tau", "profile.0.0.0"), ("cube", "big.cubex"), ("lprof", "big.lprof"),
                      ("importtime", "big.importtime")):
        path = os.path.join(work, name)
        if not os.path.exists(path):
            subprocess.run([sys.executable, os.path.join(HERE, "make_memory_inputs.py"), fmt, path + ".tmp", "20"],
                           check=True, stdout=subprocess.DEVNULL)
            os.rename(path + ".tmp", path)
        inputs.append((fmt, path))
    trace = os.path.join(work, "scatter-long.trace.json")
    if not os.path.exists(trace):
        subprocess.run([a.graphgen, "-q", "-T", "trace", os.path.join(a.work, "scatter-long.perf"), "-o", trace],
                       check=True)
    inputs.append(("trace", trace))
    print()
    print("| format | input | graphgen | read | peak memory | peak / input | target |")
    print("|---|---|---|---|---|---|---|")
    for fmt, path in inputs:
        size_mb = os.path.getsize(path) / 1e6
        runs = [run_once(a.graphgen, ["-f", fmt], path, os.path.join(work, "out.dot")) for _ in range(a.runs)]
        wall, read, peak = (statistics.median(r[i] for r in runs) for i in range(3))
        ratio = peak * 1.048576 / size_mb  # (peak in MiB, the input in MB)
        print("| %s | %s (%.1f MB) | %.2f s | %.0f MB/s | %.0f MiB | %.1f× | %s (≤ 2×) |" %
              (fmt, os.path.basename(path), size_mb, wall, size_mb / read if read > 0 else float("inf"), peak,
               ratio, "met" if ratio <= 2 else "missed"))


def make_ranks(work, name, count):
    """`count` rank files from testdata/mpi/cpu_0.prof (a small source: 100 000 files stay 400 MB)."""
    folder = os.path.join(work, name)
    if not os.path.exists(os.path.join(folder, "cpu_%d.prof" % (count - 1))):
        os.makedirs(folder, exist_ok=True)
        subprocess.run([sys.executable, os.path.join(SHARED_BENCH, "make_ranks.py"),
                        os.path.join(ROOT, "testdata", "mpi", "cpu_0.prof"), str(count), folder],
                       check=True, stdout=subprocess.DEVNULL)
    return folder


def ranks_section(a):
    """1024, 10 000 and 100 000 rank files merged and summarised; graphgen-mpi on two processes."""
    print()
    print("| rank files | size | -> merged pstats | -> -T ranks | graphgen-mpi -np 2 -> pstats |")
    print("|---|---|---|---|---|")
    mpi = os.path.join(os.path.dirname(a.graphgen), "graphgen-mpi")
    for name, count in (("ranks1k", 1024), ("ranks10k", 10000), ("ranks100k", 100000)):
        folder = make_ranks(a.work, name, count)
        size_mb = sum(e.stat().st_size for e in os.scandir(folder)) / 1e6
        glob = os.path.join(folder, "cpu_*.prof")
        cells = []
        for args in (["-o", os.path.join(a.work, "m.pstats")], ["-T", "ranks", "-o", os.path.join(a.work, "m.txt")]):
            rs = [timed([a.graphgen, glob] + args) for _ in range(a.runs)]
            cells.append("%.2f s, %.0f MB" % (statistics.median(r[0] for r in rs), statistics.median(r[1] for r in rs)))
        if os.path.exists(mpi) and shutil.which("mpirun"):
            rs = [timed(["mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "2", mpi, glob, "-o",
                         os.path.join(a.work, "mpi.pstats")]) for _ in range(a.runs)]
            cells.append("%.2f s (per process %.0f MB)" % (statistics.median(r[0] for r in rs),
                                                           statistics.median(r[1] for r in rs)))
        else:
            cells.append("-")
        print("| %d | %.0f MB | %s | %s | %s |" % (count, size_mb, cells[0], cells[1], cells[2]))


def each_section(a):
    """--each over 64 rank files to PNG: one worker against one per core."""
    ranks = sorted((os.path.join(a.work, "ranks", f) for f in os.listdir(os.path.join(a.work, "ranks"))),
                   key=lambda p: int(re.findall(r"\d+", os.path.basename(p))[-1]))[:64]
    print()
    print("| --each, 64 rank files -> 64 PNG | --jobs 1 | one per core (%d) | speed-up |" % os.cpu_count())
    print("|---|---|---|---|")
    out = os.path.join(a.work, "each", "{stem}.png")
    one = statistics.median(timed([a.graphgen, "--each", "--jobs", "1", "-o", out] + ranks)[0] for _ in range(a.runs))
    all_ = statistics.median(timed([a.graphgen, "--each", "-o", out] + ranks)[0] for _ in range(a.runs))
    print("| scatter.pstats ranks (%.0f MB) | %.2f s | %.2f s | %.2f× |" %
          (sum(os.path.getsize(r) for r in ranks) / 1e6, one, all_, one / all_))


SPHINX_MODULES = ["argparse", "json", "email.message", "email.parser", "collections", "configparser", "csv",
                  "difflib", "http.client", "logging", "pathlib", "shutil", "string", "textwrap", "urllib.parse",
                  "zipfile", "tarfile", "xml.dom.minidom", "unittest.case", "pprint", "datetime", "decimal",
                  "fractions", "statistics", "calendar"]


def sphinx_profile(work):
    """A cProfile of Sphinx 5 (python3-sphinx) building autodoc pages of 25 stdlib modules: ~6 500 functions."""
    path = os.path.join(work, "sphinx.pstats")
    if os.path.exists(path):
        return path
    python = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
    if subprocess.run([python, "-c", "import sphinx"], stderr=subprocess.DEVNULL).returncode != 0:
        return None
    src = os.path.join(work, "sphinx-src")
    os.makedirs(src, exist_ok=True)
    with open(os.path.join(src, "conf.py"), "w") as f:
        f.write('project = "bench"\nextensions = ["sphinx.ext.autodoc", "sphinx.ext.viewcode", "sphinx.ext.napoleon"]\n')
    with open(os.path.join(src, "index.rst"), "w") as f:
        f.write("Bench\n=====\n\n.. toctree::\n\n" + "".join("   %s\n" % m for m in SPHINX_MODULES))
    for m in SPHINX_MODULES:
        with open(os.path.join(src, m + ".rst"), "w") as f:
            f.write("%s\n%s\n\n.. automodule:: %s\n   :members:\n   :undoc-members:\n" % (m, "=" * len(m), m))
    subprocess.run([python, "-m", "cProfile", "-o", path + ".tmp", "-m", "sphinx", "-q", "-b", "html", src,
                    os.path.join(work, "sphinx-out")], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.rename(path + ".tmp", path)
    return path


def views_section(a):
    """The HTML report and the flame graph: size, time to write, and time to open in headless Chromium."""
    print()
    print("| view | input | graphgen | output size | ready in Chromium (page's own clock) |")
    print("|---|---|---|---|---|")
    chromium = shutil.which("chromium")
    cases = []
    sphinx = sphinx_profile(a.work)
    if sphinx:
        cases.append(("html report", sphinx, "sphinx.html", "Sphinx build, %d functions"))
    cases.append(("flame graph", os.path.join(a.work, "scatter-long.perf"), "scatter.flame.svg", "scatter-long.perf"))
    cases.append(("html report", os.path.join(a.work, "big.pstats"), "big.html", "100k-function pstats"))
    for view, path, out_name, what in cases:
        out = os.path.join(a.work, out_name)
        wall = statistics.median(timed([a.graphgen, "-q", path, "-o", out])[0] for _ in range(a.runs))
        if "%d" in what:
            n = re.search(r"from (\d+) to", subprocess.run([a.graphgen, "-T", "stats", "--top", "1", path],
                                                           capture_output=True, text=True).stdout)
            what = what % int(n.group(1)) if n else what.replace(", %d functions", "")
        ready = "-"
        if chromium:
            ms = []
            for _ in range(a.runs):
                dom = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=20000",
                                      "--dump-dom", "file://" + out + "#selftest"], capture_output=True, text=True).stdout
                m = re.search(r"ready_ms&quot;:(\d+)", dom)
                if m:
                    ms.append(int(m.group(1)))
            ready = "%.2f s" % (statistics.median(ms) / 1000) if ms else "did not report"
        print("| %s | %s (%.1f MB) | %.2f s | %.1f MB | %s |" %
              (view, what, os.path.getsize(path) / 1e6, wall, os.path.getsize(out) / 1e6, ready))


def crossings(dot_file):
    """The edge crossings dot's mincross leaves (`dot -v` prints them), or None without dot."""
    dot = shutil.which("dot")
    if not dot:
        return None
    err = subprocess.run([dot, "-v", "-Txdot", dot_file, "-o", os.devnull], capture_output=True, text=True).stderr
    found = re.findall(r"(\d+) crossings", err)
    return int(found[-1]) if found else None


SYMPY_WORK = """import sympy
x, y = sympy.symbols('x y')
sympy.integrate(sympy.sin(x) ** 3 * sympy.exp(x), x)
sympy.factor(x ** 20 - y ** 20)
sympy.simplify(sympy.cos(x) ** 2 + sympy.sin(x) ** 2 + sympy.log(x * y))
"""


def sympy_profile(work):
    """A cProfile of sympy (python3-sympy) integrating, factoring and simplifying: ~320 nodes at
    graphgen's and gprof2dot's default thresholds."""
    path = os.path.join(work, "sympy.pstats")
    if os.path.exists(path):
        return path
    if subprocess.run([SYSTEM_PYTHON, "-c", "import sympy"], stderr=subprocess.DEVNULL).returncode != 0:
        return None
    script = os.path.join(work, "sympy_work.py")
    with open(script, "w") as f:
        f.write(SYMPY_WORK)
    subprocess.run([SYSTEM_PYTHON, "-m", "cProfile", "-o", path + ".tmp", script], check=True,
                   stdout=subprocess.DEVNULL)
    os.rename(path + ".tmp", path)
    return path


def picture_section(a):
    """A sympy call graph (default thresholds: ~320 nodes; else the Sphinx profile at -n 0.2) to PNG
    and SVG: graphgen (and the baseline) against gprof2dot | dot in the same run, with dot's
    crossing count for each side's dot."""
    profile, threshold = sympy_profile(a.work), []
    if not profile:
        profile, threshold = sphinx_profile(a.work), ["-n", "0.2"]
    if not profile:
        print("\n(picture table skipped: neither python3-sympy nor python3-sphinx is installed)")
        return
    sphinx = profile
    work = os.path.join(a.work, "picture")
    os.makedirs(work, exist_ok=True)
    graph = os.path.join(work, "graph.dot")
    subprocess.run([a.graphgen, "-q", sphinx] + threshold + ["-o", graph], check=True)
    nodes = len(re.findall(r"^\t\d+ \[", open(graph).read(), re.M))
    print()
    print("| %d-node graph -> | graphgen | peak | baseline graphgen | gprof2dot \\| dot | ratio | crossings |" % nodes)
    print("|---|---|---|---|---|---|---|")
    dot = shutil.which("dot")
    cross = crossings(graph)
    if a.gprof2dot and dot:
        theirs = os.path.join(work, "gprof2dot.dot")
        subprocess.run([SYSTEM_PYTHON, a.gprof2dot, "-f", "pstats", sphinx] + threshold + ["-o", theirs], check=True)
        their_cross = crossings(theirs)
        if cross is not None and their_cross is not None:
            cross = "%d (gprof2dot's dot: %d, %+.1f%%)" % (cross, their_cross,
                                                          100.0 * (cross - their_cross) / max(1, their_cross))
    for fmt in ("png", "svg"):
        out = os.path.join(work, "out." + fmt)
        walls, peaks, base_walls, ref_walls = [], [], [], []
        for _ in range(a.runs):  # in turn, so drift hits all alike
            w, p, _ = timed([a.graphgen, "-q", sphinx] + threshold + ["-o", out])
            walls.append(w)
            peaks.append(p)
            if a.baseline:
                base_out = os.path.join(work, "baseline." + fmt)
                base_walls.append(timed([a.baseline, "-q", sphinx] + threshold + ["-o", base_out])[0])
            if a.gprof2dot and dot:
                start = time.perf_counter()
                g2d = subprocess.run([SYSTEM_PYTHON, a.gprof2dot, "-f", "pstats", sphinx] + threshold,
                                     capture_output=True, check=True).stdout
                subprocess.run([dot, "-T" + fmt, "-o", os.path.join(work, "gprof2dot." + fmt)], input=g2d, check=True)
                ref_walls.append(time.perf_counter() - start)
        wall, peak = statistics.median(walls), statistics.median(peaks)
        base = "%.2f s" % statistics.median(base_walls) if base_walls else "-"
        ref, ratio = "-", "-"
        if ref_walls:
            rw = statistics.median(ref_walls)
            ref, ratio = "%.2f s" % rw, "%.1f×" % (rw / wall)
        print("| %s | %.2f s | %.0f MB | %s | %s | %s | %s |" % (fmt, wall, peak, base, ref, ratio,
                                                               "-" if cross is None else cross))


def python_section(a):
    """graphgen run against python3 -m cProfile -o on the same script and interpreter."""
    python = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
    script = os.path.join(HERE, "workload.py")
    out = os.path.join(a.work, "run.pstats")
    print()
    print("| profiling bench/workload.py | median of %d | overhead |" % a.runs)
    print("|---|---|---|")
    plain = statistics.median(timed([python, script])[0] for _ in range(a.runs))
    base, run = [], []
    for _ in range(a.runs):  # alternating, so drift hits both alike
        base.append(timed([python, "-m", "cProfile", "-o", out, script])[0])
        run.append(timed([a.graphgen, "run", "-q", "-o", out, script])[0])
    b, r = statistics.median(base), statistics.median(run)
    print("| python3 (no profiler) | %.2f s | - |" % plain)
    print("| python3 -m cProfile -o out.pstats | %.2f s | - |" % b)
    print("| graphgen run -o out.pstats | %.2f s | %+.1f%% against cProfile |" % (r, 100 * (r - b) / b))


def scaled_inputs(a):
    """(reader, [(factor, path)]) at 1x, 4x and 16x: perf cut from scatter-long.perf at sample
    boundaries, callgrind as several parts of pydoc-sep3 in one file, pstats of 6 250 to 100 000
    functions, and gprof2dot's other formats generated at 1/16, 1/4 and 1 of --format-scale."""
    work = os.path.join(a.work, "scaling")
    os.makedirs(work, exist_ok=True)
    out = []
    perf = os.path.join(a.work, "scatter-long.perf")
    with open(perf, "rb") as f:
        text = f.read()
    paths = []
    for factor in (1, 4, 16):
        path = os.path.join(work, "perf-%d.perf" % factor)
        if not os.path.exists(path):
            cut = text.find(b"\n\n", len(text) * factor // 16) if factor < 16 else len(text)
            with open(path, "wb") as f:
                f.write(text[:cut + 2] if factor < 16 else text)
        paths.append((factor, path))
    out.append(("perf", paths))
    paths = []
    with open(os.path.join(a.work, "pydoc-sep3.callgrind"), "rb") as f:
        cg = f.read()
    for factor in (1, 4, 16):
        path = os.path.join(work, "callgrind-%d.callgrind" % factor)
        if not os.path.exists(path):
            with open(path, "wb") as f:
                for _ in range(factor):
                    f.write(cg)
        paths.append((factor, path))
    out.append(("callgrind", paths))
    paths = []
    for factor in (1, 4, 16):
        path = os.path.join(work, "pstats-%d.pstats" % factor)
        if not os.path.exists(path):
            subprocess.run([sys.executable, os.path.join(HERE, "make_big_pstats.py"), path, str(6250 * factor)],
                           check=True, stdout=subprocess.DEVNULL)
        paths.append((factor, path))
    out.append(("pstats", paths))
    for fmt, size in FORMAT_SIZES:
        paths = []
        for factor in (1, 4, 16):
            mb = max(1, int(round(size * a.format_scale * factor / 16)))
            path = os.path.join(work, "%s-%d.%s" % (fmt, factor, fmt))
            if not os.path.exists(path):
                subprocess.run([sys.executable, os.path.join(HERE, "make_format_inputs.py"), fmt, path + ".tmp",
                                str(mb)], check=True, stdout=subprocess.DEVNULL)
                os.rename(path + ".tmp", path)
            paths.append((factor, path))
        out.append((fmt, paths))
    return out


def scaling_section(a):
    """Time and peak memory of each reader at 1x, 4x and 16x its input: cost must grow linearly."""
    print()
    print("| reader | 1× input | 1× | 4× | 16× | time 16× / 1× | peak 16× / 1× |")
    print("|---|---|---|---|---|---|---|")
    for fmt, paths in scaled_inputs(a):
        cells = []
        for factor, path in paths:
            runs = [run_once(a.graphgen, ["-f", fmt], path, os.path.join(a.work, "scaling", "out.dot"))
                    for _ in range(a.runs)]
            wall, read, peak = (statistics.median(r[i] for r in runs) for i in range(3))
            cells.append((os.path.getsize(path) / 1e6, wall, peak))
        print("| %s | %.1f MB | %s | %.1f× | %.1f× |" % (
            fmt, cells[0][0], " | ".join("%.3f s, %.0f MB" % (w, p) for _, w, p in cells),
            cells[2][1] / cells[0][1], cells[2][2] / cells[0][2]))


def core_section(a):
    """The core table: each of CASES in turn with gprof2dot, its read against one pass."""
    if a.busy:
        print("One core kept busy through this table by `yes > /dev/null` (--busy).\n")
    print("| work | input | graphgen | read | read / one pass (`wc -l`) | peak memory | today's tool | ratio | target |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, inp, args, tool, ref_s, ref_mb, targets, floor in CASES:
        path = os.path.join(a.work, inp)
        size_mb = os.path.getsize(path) / 1e6
        reference = None
        if a.gprof2dot:
            reference = [SYSTEM_PYTHON, a.gprof2dot, "-f", GPROF2DOT_FORMAT[inp], path, "-o",
                         os.path.join(a.work, "gprof2dot.dot")]
        new, old, ref = alternate(a, args, path, os.path.join(a.work, "out.dot"), reference=reference,
                                  reference_runs=1 if inp in GPROF2DOT_ONCE else None)
        if ref:  # measured in this run, in turn with graphgen: that, not the table of another day
            ref_s, ref_mb = ref
            tool += " (this run)"
        wall, read, peak = new
        verdict = verdicts(targets, wall, peak, size_mb, ref_s)
        floor_text = "-"
        if floor:
            f = floor_seconds(path, a.runs)
            floor_text = "%.1f× (%.3f s)" % (read / f, f)
            verdict += "; " + ("met" if read / f <= FLOOR_TARGET else "missed") + " (read ≤ %g× one pass)" % FLOOR_TARGET
        print("| %s | %.1f MB | %.3f s%s | %.0f MB/s | %s | %.1f MiB | %s %.1f s, %d MiB | %.0f× | %s |" %
              (name, size_mb, wall, baseline_note(new, old), size_mb / read, floor_text, peak, tool, ref_s,
               ref_mb, ref_s / wall, verdict))
    merge_case(a)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--graphgen", default=os.path.join(ROOT, "build", "graphgen"))
    ap.add_argument("--baseline", help="an earlier graphgen binary to run alternately, for side-by-side ratios")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--work", default=os.path.join(ROOT, "build", "bench"))
    ap.add_argument("--sections", default="core,peers,formats,memory,scaling,picture,ranks,each,views,python",
                    help="which tables: core (the inputs of ../shared/bench), peers (each output against "
                         "the tool people use for it: FlameGraph, go tool pprof, Python's pstats and "
                         "tracemalloc, mprof plot), formats (gprof2dot's other "
                         "formats), memory (peak against the input of cpuprofile, speedscope, tracemalloc, "
                         "trace), scaling (each reader at 1x, 4x, 16x), picture (PNG/SVG against gprof2dot | dot), ranks (1024 to 100 000 rank files), each (--each's speed-up), views (HTML "
                         "report, flame graph), python (graphgen run against python3 -m cProfile)")
    ap.add_argument("--gprof2dot", help="gprof2dot.py, run on the same inputs, in turn with graphgen, for the core, "
                                        "formats and picture tables")
    ap.add_argument("--flamegraph", help="a folder with FlameGraph's stackcollapse-perf.pl and flamegraph.pl, "
                                         "for the peers table")
    ap.add_argument("--busy", action="store_true",
                    help="keep one core busy elsewhere (`yes > /dev/null`) through the core table: graphgen, "
                         "`wc -l` and gprof2dot all share the machine with it, as on a loaded workstation")
    ap.add_argument("--format-scale", type=float, default=1.0,
                    help="scale the generated format inputs (1: the sizes gprof2dot needs 15-20 s for)")
    a = ap.parse_args()
    sections = a.sections.split(",")
    prepare(a.work)
    if "core" in sections:
        with busy_core(a.busy):
            core_section(a)
    for name, section in (("peers", peers_section), ("formats", formats_section), ("memory", memory_section),
                          ("scaling", scaling_section), ("picture", picture_section),
                          ("ranks", ranks_section), ("each", each_section), ("views", views_section),
                          ("python", python_section)):
        if name in sections:
            section(a)


if __name__ == "__main__":
    main()
