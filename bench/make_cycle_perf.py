#!/usr/bin/env python3
"""Write a perf script file whose stacks form one big recursive cycle.

  make_cycle_perf.py OUT.perf [SAMPLES] [FUNCTIONS] [SEED]

SAMPLES (default 20000) samples, each a stack of 5-30 frames drawn at random
from FUNCTIONS (default 500) functions in one DSO under a common `main`, so
nearly every function calls nearly every other: one strongly connected
component that main enters at every member. This is the
input on which gprof2dot's cycle integration takes about two minutes
(../shared/bench/README.md). Deterministic for a given seed.
"""
import random
import sys


def main(argv):
    out = argv[1]
    samples = int(argv[2]) if len(argv) > 2 else 20000
    functions = int(argv[3]) if len(argv) > 3 else 500
    rng = random.Random(int(argv[4]) if len(argv) > 4 else 7)
    names = ["func_%03d" % i for i in range(functions)]
    with open(out, "w") as f:
        t = 1000.0
        for _ in range(samples):
            t += 0.000250
            f.write("bench 4242 %12.6f:     250000 cpu-clock: \n" % t)
            for _ in range(rng.randint(5, 30)):
                i = rng.randrange(functions)
                f.write("\t%16x %s+0x%x (/opt/bench/libcycle.so)\n" % (0x1000 + 0x40 * i, names[i], rng.randrange(64)))
            f.write("\t%16x main+0x%x (/opt/bench/cycle)\n" % (0x400, rng.randrange(64)))
            f.write("\n")


if __name__ == "__main__":
    main(sys.argv)
