"""Write NAME.expected.json for pstats files: the stats dict as the Python
that reads it sees it (dict order kept), in the layout of
../shared/corpus/edge/pstats/*.expected.json:

  [[key, cc, nc, tt, ct, [[caller_key, value], ...]], ...]

where a code-object function name becomes
'<code object NAME, file "FILE", line N>'.  Runs under Python 2.7 and 3.

  python3 make_expected.py FILE.pstats ...         one JSON per file
  python3 make_expected.py --merge OUT.json F1 F2  pstats.Stats(F1, F2, ...)
  python3 make_expected.py --fsum OUT.json F1 F2   the same, each time the
                                                   math.fsum of the files' times
"""
import json
import marshal
import math
import pstats
import sys
import types


def key(k):
    filename, line, name = k
    if isinstance(name, types.CodeType):
        name = '<code object %s, file "%s", line %d>' % (name.co_name, name.co_filename, name.co_firstlineno)
    return [filename, line, name]


def value(v):
    return list(v) if isinstance(v, tuple) else v


def dump(stats, out):
    rows = []
    for k, (cc, nc, tt, ct, callers) in stats.items():
        rows.append([key(k), cc, nc, tt, ct, [[key(ck), value(cv)] for ck, cv in callers.items()]])
    with open(out, "w") as f:
        json.dump(rows, f, indent=0)


def fsum_stats(paths):
    """pstats.Stats(*paths).stats with every time replaced by the exactly
    rounded sum of the files' own values (graphgen's merge)."""
    merged = pstats.Stats(*paths).stats
    raw = []
    for path in paths:
        with open(path, "rb") as f:
            raw.append(marshal.load(f))
    out = {}
    for k, (cc, nc, tt, ct, callers) in merged.items():
        parts = [d[k] for d in raw if k in d]
        tt = math.fsum(p[2] for p in parts)
        ct = math.fsum(p[3] for p in parts)
        new_callers = {}
        for ck, cv in callers.items():
            if isinstance(cv, tuple):
                vals = [p[4][ck] for p in parts if ck in p[4]]
                cv = (cv[0], cv[1], math.fsum(v[2] for v in vals), math.fsum(v[3] for v in vals))
            new_callers[ck] = cv
        out[k] = (cc, nc, tt, ct, new_callers)
    return out


def main(argv):
    if argv[:1] == ["--merge"]:
        dump(pstats.Stats(*argv[2:]).stats, argv[1])
        return
    if argv[:1] == ["--fsum"]:
        dump(fsum_stats(argv[2:]), argv[1])
        return
    for path in argv:
        with open(path, "rb") as f:
            dump(marshal.load(f), path.rsplit(".", 1)[0] + ".expected.json")


if __name__ == "__main__":
    main(sys.argv[1:])
