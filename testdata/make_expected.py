"""Write NAME.expected.json for pstats files: the stats dict as the Python
that reads it sees it (dict order kept), in the layout of
../shared/corpus/edge/pstats/*.expected.json:

  [[key, cc, nc, tt, ct, [[caller_key, value], ...]], ...]

where a code-object function name becomes
'<code object NAME, file "FILE", line N>'.  Runs under Python 2.7 and 3.

  python3 make_expected.py FILE.pstats ...         one JSON per file
  python3 make_expected.py --merge OUT.json F1 F2  pstats.Stats(F1, F2, ...)
"""
import json
import marshal
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


def main(argv):
    if argv[:1] == ["--merge"]:
        dump(pstats.Stats(*argv[2:]).stats, argv[1])
        return
    for path in argv:
        with open(path, "rb") as f:
            dump(marshal.load(f), path.rsplit(".", 1)[0] + ".expected.json")


if __name__ == "__main__":
    main(sys.argv[1:])
