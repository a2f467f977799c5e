#!/usr/bin/env python3
"""Write a large synthetic pstats file for reader benchmarks.

  make_big_pstats.py OUT.pstats [FUNCTIONS] [SEED]

FUNCTIONS (default 100000) functions in 200 files, each called by 1-4 others
drawn at random, cProfile-shaped values (cc, nc, tt, ct, {caller: (nc, cc,
tt, ct)}), written by this Python's marshal (version 4, with references),
as cProfile's dump_stats does. Deterministic for a given seed.
"""
import marshal
import random
import sys


def main(argv):
    out = argv[1]
    n = int(argv[2]) if len(argv) > 2 else 100000
    rng = random.Random(int(argv[3]) if len(argv) > 3 else 1)
    keys = [("/src/pkg/module%03d.py" % (i % 200), 10 + i // 200, "func_%d" % i) for i in range(n)]
    stats = {}
    for i, key in enumerate(keys):
        callers = {}
        for _ in range(rng.randint(1, 4)) if i else ():
            caller = keys[rng.randrange(i)]
            calls = rng.randint(1, 1000)
            tt = rng.random() * 1e-3
            callers[caller] = (calls, calls, tt, tt * (1 + rng.random()))
        nc = sum(v[0] for v in callers.values()) or 1
        tt = sum(v[2] for v in callers.values()) or 1e-6
        ct = sum(v[3] for v in callers.values()) or 1.0
        stats[key] = (nc, nc, tt, ct, callers)
    with open(out, "wb") as f:
        marshal.dump(stats, f)


if __name__ == "__main__":
    main(sys.argv)
