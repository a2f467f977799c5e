#!/usr/bin/env python3
"""Write a large synthetic profile of a format the memory table measures on a large input.

  make_memory_inputs.py FORMAT OUT_PATH SIZE_MB

FORMAT is tau (one profile.0.0.0 of TAU: flat timers and 'caller => callee'
call-path timers, metadata, user events), cube (a CUBE4 .cubex tar: a call
tree of C++-like regions on 16 locations, visits, time, min_time and
max_time, the inclusive rows in Score-P's order), lprof (a pickled
line_profiler LineStats, 5 to 60 lines a function) or importtime (a
`python -X importtime` log of a random import tree, children before their
parent, as CPython prints it). The file is within some percent of SIZE_MB
megabytes and the same for the same arguments. Meant for measuring peak
memory against the input: it is not a test and asserts nothing.
"""
import array
import io
import os
import pickle
import random
import struct
import sys
import tarfile
import types
from xml.sax.saxutils import escape

WORDS = ("solver matrix vector grid mesh particle halo exchange compute update apply reduce scatter gather "
         "boundary flux kernel stencil assemble factor precond residual norm dot axpy copy init finalize "
         "read write buffer pack unpack sort merge partition balance neighbor cell face edge node").split()
NS = "core util linalg io comm physics fem amr sched mem".split()
TYPES = ["int", "double", "float", "std::size_t", "const double*", "double*", "std::vector<double>&",
         "const Grid&", "Mesh*", "long", "bool", "MPI_Comm"]


def cxx_name(rng, i):
    ns = rng.choice(NS)
    cls = rng.choice(WORDS).capitalize() + rng.choice(WORDS).capitalize()
    meth = "%s_%s_%d" % (rng.choice(WORDS), rng.choice(WORDS), i)
    args = ", ".join(rng.choice(TYPES) for _ in range(rng.randint(0, 4)))
    ret = rng.choice(["void", "int", "double", "bool"])
    return "%s %s::%s::%s(%s)" % (ret, ns, cls, meth, args)


def src_file(rng, i):
    return "src/%s/%s_%s_%d.cpp" % (rng.choice(NS), rng.choice(WORDS), rng.choice(WORDS), i % 997)


def dag(rng, n, max_callers=3):
    """callers[i] = list of j < i that call i (function 0 is the root)."""
    callers = [[]]
    for i in range(1, n):
        k = rng.randint(1, max_callers)
        lo = max(0, i - 2000)
        callers.append(sorted(set(rng.randrange(lo, i) for _ in range(k))))
    return callers


# --- TAU ---

META = ("<metadata>" + "".join("<attribute><name>%s</name><value>%s</value></attribute>" % kv for kv in [
    ("Metric Name", "TIME"), ("CPU Cores", "64"), ("CPU MHz", "2400.000"),
    ("CPU Type", "AMD EPYC 7763 64-Core Processor"), ("CWD", "/scratch/user/run42"),
    ("Command Line", "./app -n 4096 --steps 100"), ("Executable", "/scratch/user/run42/app"),
    ("Hostname", "nid001234"), ("Local Time", "2024-05-01T10:00:00+00:00"), ("Memory Size", "263000000 kB"),
    ("OS Name", "Linux"), ("OS Release", "5.14.21"), ("TAU Architecture", "default"),
    ("TAU Config", " -mpi -pdt=/opt/pdt -bfd=download -unwind=download"), ("TAU Version", "2.33"),
    ("TAU_CALLPATH", "on"), ("TAU_CALLPATH_DEPTH", "2"), ("TAU_PROFILE", "on"), ("TAU_PROFILE_FORMAT", "profile")]) +
    "</metadata>")


def tau_timers(nfuncs, seed=1):
    rng = random.Random(seed)
    names = [".TAU application"]
    for i in range(1, nfuncs):
        if rng.random() < 0.05:
            names.append("MPI_%s_%d()  " % (rng.choice(["Send", "Recv", "Allreduce", "Waitall", "Bcast"]), i))
        else:
            n = cxx_name(rng, i)
            names.append("%s C [{%s} {%d,1}-{%d,1}]  " % (n, src_file(rng, i), i % 5000, i % 5000 + 40))
    callers = dag(rng, nfuncs)
    return names, callers


def write_tau(path, names, callers, rank):
    rng = random.Random(1000 + rank)
    n = len(names)
    excl = [rng.uniform(1, 1e5) for _ in range(n)]
    calls = [rng.randint(1, 100000) for _ in range(n)]
    lines = []
    edges = []
    for i in range(n):
        for c in callers[i]:
            edges.append((c, i))
    for i in range(n):
        grp = "MPI" if names[i].startswith("MPI_") else "TAU_USER"
        lines.append('"%s" %d %d %.16G %.16G 0 GROUP="%s" \n' %
                     (names[i], calls[i], len(callers[i]), excl[i], excl[i] * 3, grp))
    for c, i in edges:
        e = excl[i] / max(1, len(callers[i]))
        lines.append('"%s => %s" %d %d %.16G %.16G 0 GROUP="TAU_CALLPATH|TAU_USER" \n' %
                     (names[c], names[i], calls[i] // len(callers[i]) + 1, 1, e, e * 3))
    with open(path, "w") as f:
        f.write("%d templated_functions_MULTI_TIME\n" % len(lines))
        f.write("# Name Calls Subrs Excl Incl ProfileCalls # " + META + "\n")
        f.writelines(lines)
        f.write("0 aggregates\n")
        f.write("2 userevents\n# eventname numevents max min mean sumsqr\n")
        f.write('"Message size for all-reduce" 1016 48 4 16.2244094488189 469616\n')
        f.write('"Heap Memory Used (KB) : %s" 10 4096 8 1424 16805504\n' % names[1])


# --- line_profiler ---

# line_profiler's class, pickled by its module path without line_profiler
# (as tests/unit/hostile_test.cc's kLineStats does).
_lprof_module = types.ModuleType("line_profiler.line_profiler")
sys.modules["line_profiler"] = types.ModuleType("line_profiler")
sys.modules["line_profiler.line_profiler"] = _lprof_module


class LineStats:
    def __init__(self, timings, unit):
        self.timings, self.unit = timings, unit


LineStats.__module__ = "line_profiler.line_profiler"
_lprof_module.LineStats = LineStats
LPROF_WORDS = ("solver matrix vector grid mesh particle halo exchange compute update apply reduce scatter "
               "gather boundary flux kernel stencil assemble factor residual norm").split()


def write_lprof(out, nf, seed=3):
    rng = random.Random(seed)
    nfiles = max(1, nf // 20)
    files = ["/home/user/project/src/%s/%s_%s_%d.py" %
             (rng.choice(LPROF_WORDS), rng.choice(LPROF_WORDS), rng.choice(LPROF_WORDS), i) for i in range(nfiles)]
    nextline = [1] * nfiles
    timings = {}
    for i in range(nf):
        fi = rng.randrange(nfiles)
        first = nextline[fi]
        n = rng.randint(5, 60)
        nextline[fi] += n + 3
        name = "%s_%s_%d" % (rng.choice(LPROF_WORDS), rng.choice(LPROF_WORDS), i)
        hits = rng.randint(1, 100000)
        lines = []
        for k in range(n):
            if rng.random() < 0.8:
                h = hits * rng.randint(1, 20) if rng.random() < 0.3 else hits
                lines.append((first + 1 + k, h, h * rng.randint(50, 5000)))
        timings[(files[fi], first, name)] = lines
    open(out, 'wb').write(pickle.dumps(LineStats(timings, 1e-6), protocol=4))


# --- importtime ---

IMPORT_WORDS = ("core util io net http json parser ast compat typing abc base config plugins backends ext models "
                "views schema codec").split()


def write_importtime(out, n, seed=4):
    rng = random.Random(seed)
    out_f = open(out, "w")
    out_f.write("import time: self [us] | cumulative | imported package\n")
    count = 0
    top = 0
    while count < n:
        # one top-level package with a random subtree
        top += 1
        root = "%s%d" % (rng.choice(IMPORT_WORDS), top)
        # iterative post-order: stack of [name, depth, remaining_children, cumulative]
        stack = [[root, 0, rng.randint(1, 30), 0, 0]]
        count += 1
        while stack:
            fr = stack[-1]
            if fr[2] > 0 and count < n:
                fr[2] -= 1
                d = fr[1] + 1
                kids = rng.randint(0, 6) if d < 12 else 0
                if rng.random() < 0.6: kids = 0
                name = "%s.%s_%d" % (fr[0] if rng.random() < 0.7 else root, rng.choice(IMPORT_WORDS), count)
                stack.append([name, d, kids, 0, 0])
                count += 1
                continue
            stack.pop()
            self_us = rng.randint(5, 3000)
            cum = self_us + fr[3]
            out_f.write("import time: %9d | %10d | %s%s\n" % (self_us, cum, "  " * fr[1], fr[0]))
            if stack:
                stack[-1][3] += cum
    out_f.close()


# --- CUBE4 ---


def write_cube(out, ncn, nloc, seed=2):
    rng = random.Random(seed)
    nreg = max(8, ncn // 4)
    regions = [("main", "app.cpp")] + [(cxx_name(rng, i), src_file(rng, i)) for i in range(1, nreg)]
    # call tree: parent chosen among recent nodes
    parent = [-1]
    depth = [0]
    for i in range(1, ncn):
        lo = max(0, i - 50)
        p = rng.randrange(lo, i)
        while depth[p] > 40:
            p = parent[p]
        parent.append(p); depth.append(depth[p] + 1)
    callee = [0] + [rng.randrange(1, nreg) for _ in range(1, ncn)]
    children = [[] for _ in range(ncn)]
    for i in range(1, ncn):
        children[parent[i]].append(i)
    x = io.StringIO()
    w = x.write
    w('<?xml version="1.0" encoding="UTF-8"?>\n\n<cube version="4.4">\n<attr key="CubePL Version" value="1.1"/>\n'
      '<attr key="Cube Version" value="4.8.2"/>\n<attr key="Cube anchor.xml syntax version" value="4.4"/>\n'
      '<attr key="Creator" value="Score-P 8.4"/>\n<attr key="CUBE_CT_AGGR" value="SUM"/>\n'
      '<doc>\n<mirrors>\n</mirrors>\n</doc>\n<metrics>\n')
    mets = [("Visits", "visits", "UINT64", "EXCLUSIVE", "occ"), ("Time", "time", "DOUBLE", "INCLUSIVE", "sec"),
            ("Minimum Inclusive Time", "min_time", "MINDOUBLE", "EXCLUSIVE", "sec"),
            ("Maximum Inclusive Time", "max_time", "MAXDOUBLE", "EXCLUSIVE", "sec")]
    for k, (d, u, t, ty, uom) in enumerate(mets):
        w('<metric id="%d" type="%s">\n<disp_name>%s</disp_name>\n<uniq_name>%s</uniq_name>\n<dtype>%s</dtype>\n'
          '<uom>%s</uom>\n<url></url>\n<descr>%s</descr>\n</metric>\n' % (k, ty, d, u, t, uom, d))
    w('</metrics>\n<program>\n')
    for k, (n, f) in enumerate(regions):
        mangled = "_Z%d%s" % (len(n), n.split("(")[0].split()[-1].replace("::", ""))
        w('<region id="%d" mod="%s" begin="%d" end="%d">\n<name>%s</name>\n<mangled_name>%s</mangled_name>\n'
          '<paradigm>compiler</paradigm>\n<role>function</role>\n<url></url>\n<descr></descr>\n</region>\n'
          % (k, f, 10 + k % 3000, 50 + k % 3000, escape(n), mangled))
    # nested cnodes, iterative DFS; ids renumbered to document (pre)order
    pre = []
    st = [0]
    while st:
        i = st.pop(); pre.append(i)
        st.extend(reversed(children[i]))
    newid = [0] * ncn
    for k, i in enumerate(pre):
        newid[i] = k
    parent = [-1 if p < 0 else newid[p] for p in (parent[i] for i in pre)]
    callee = [callee[i] for i in pre]
    children = [[newid[c] for c in children[i]] for i in pre]
    stack = [(0, False)]
    while stack:
        i, closing = stack.pop()
        if closing:
            w('</cnode>\n'); continue
        w('<cnode id="%d" calleeId="%d">\n' % (i, callee[i]))
        stack.append((i, True))
        for c in reversed(children[i]):
            stack.append((c, False))
    # Score-P stores inclusive metrics' rows in this order (see graphgen's wide_order / pycubexr)
    wide = [0]
    st = [0]
    while st:
        c = st.pop(); wide.extend(children[c]); st.extend(reversed(children[c]))
    w('</program>\n<system>\n<systemtreenode Id="0">\n<name>machine Linux</name>\n<class>machine</class>\n')
    nthreads = 4 if nloc % 4 == 0 else 1
    nranks = nloc // nthreads
    loc = 0
    for r in range(nranks):
        w('<systemtreenode Id="%d">\n<name>node nid%05d</name>\n<class>node</class>\n<locationgroup Id="%d">\n'
          '<name>MPI Rank %d</name>\n<rank>%d</rank>\n<type>process</type>\n' % (r + 1, r, r, r, r))
        for t in range(nthreads):
            w('<location Id="%d">\n<name>%s</name>\n<rank>%d</rank>\n<type>thread</type>\n</location>\n'
              % (loc, "Master thread" if t == 0 else "OMP thread %d" % t, t))
            loc += 1
        w('</locationgroup>\n</systemtreenode>\n')
    w('</systemtreenode>\n</system>\n</cube>\n')
    anchor = x.getvalue().encode()
    # values: exclusive time per cnode x location, inclusive bottom-up
    n = ncn * nloc
    excl = array.array("d", (rng.random() * 0.01 for _ in range(n)))
    incl = array.array("d", excl)
    for i in range(ncn - 1, 0, -1):  # parent index < child index
        p = parent[i]
        bi, bp = i * nloc, p * nloc
        for l in range(nloc):
            incl[bp + l] += incl[bi + l]
    visits = array.array("Q", (rng.randint(1, 1000) for _ in range(n)))
    # data rows in index order = order of ids listed (0..ncn-1)
    def index_bytes():
        return b"CUBEX.INDEX" + struct.pack("<iHBI", 1, 0, 1, ncn) + array.array("I", range(ncn)).tobytes()
    files = [("anchor.xml", anchor)]
    incl_wide = array.array("d", bytes(8 * n))
    for r, c in enumerate(wide):
        incl_wide[r * nloc:(r + 1) * nloc] = incl[c * nloc:(c + 1) * nloc]
    for k, arr in enumerate([visits, incl_wide, excl, incl]):
        files.append(("%d.index" % k, index_bytes()))
        files.append(("%d.data" % k, b"CUBEX.DATA" + arr.tobytes()))
    with tarfile.open(out, "w", format=tarfile.USTAR_FORMAT) as tf:
        for name, data in files:
            ti = tarfile.TarInfo(name); ti.size = len(data); ti.mtime = 1700000000
            tf.addfile(ti, io.BytesIO(data))


# Units per MB of each format (measured on its own output: functions for
# tau and lprof, modules for importtime, call-tree nodes at 16 locations for
# cube).
PER_MB = {"tau": 1300, "lprof": 2640, "importtime": 10400, "cube": 1600}


def main(argv):
    if len(argv) != 4 or argv[1] not in PER_MB:
        sys.exit(__doc__)
    fmt, out, mb = argv[1], argv[2], float(argv[3])
    n = max(16, int(PER_MB[fmt] * mb))
    if fmt == "tau":
        names, callers = tau_timers(n)
        write_tau(out, names, callers, 0)
    elif fmt == "lprof":
        write_lprof(out, n)
    elif fmt == "importtime":
        write_importtime(out, n)
    else:
        write_cube(out, n, 16)
    print("%s: %.2f MB (asked %.2f MB)" % (out, os.path.getsize(out) / 1e6, mb))


if __name__ == "__main__":
    main(sys.argv)
