"""Per-function statistics across MPI ranks from per-rank cProfile files.

Usage: python3 rank_stats.py cpu_*.prof

Each file is loaded on its own with pstats.Stats; its rank is the last
integer in its file name.  For every function (file, line, name) and for
both inclusive (cumtime) and self (tottime) time, a rank where the function
is missing counts as 0.  Printed as JSON on stdout:
  total, mean = total / N, stddev = sqrt(sum(x^2) / N - mean^2) (population),
  min / min_rank, max / max_rank (ties: the lowest rank number),
  imbalance = max - mean,
  imbalance_percent = (max - mean) / max * N / (N - 1) * 100 (0 when max is 0).
Standard library only.
"""
import json
import math
import os
import pstats
import re
import sys


def rank_of(path):
    numbers = re.findall(r"\d+", os.path.basename(path))
    if not numbers:
        sys.exit(f"rank_stats.py: no rank number in file name: {path}")
    return int(numbers[-1])


def summary(values):
    """values: list of (rank, seconds), sorted by rank."""
    n = len(values)
    xs = [v for _, v in values]
    total = sum(xs)
    mean = total / n
    var = sum(x * x for x in xs) / n - mean * mean
    stddev = math.sqrt(var) if var > 0 else 0.0
    min_rank, min_v = min(values, key=lambda rv: (rv[1], rv[0]))
    max_rank, max_v = max(values, key=lambda rv: (rv[1], -rv[0]))
    imbalance = max_v - mean
    if max_v == 0 or n < 2:
        percent = 0.0
    else:
        percent = imbalance / max_v * n / (n - 1) * 100
    return {
        "total": total,
        "mean": mean,
        "stddev": stddev,
        "min": min_v,
        "min_rank": min_rank,
        "max": max_v,
        "max_rank": max_rank,
        "imbalance": imbalance,
        "imbalance_percent": percent,
    }


def main(paths):
    if not paths:
        sys.exit("usage: python3 rank_stats.py cpu_*.prof")
    per_rank = {}
    for path in paths:
        rank = rank_of(path)
        if rank in per_rank:
            sys.exit(f"rank_stats.py: two files for rank {rank}")
        # stats: key -> (cc, nc, tottime, cumtime, callers)
        per_rank[rank] = pstats.Stats(path).stats
    ranks = sorted(per_rank)
    keys = sorted({key for stats in per_rank.values() for key in stats},
                  key=lambda k: (k[0], k[1], k[2]))
    functions = []
    for key in keys:
        incl, self_ = [], []
        present = 0
        for rank in ranks:
            entry = per_rank[rank].get(key)
            if entry is None:
                incl.append((rank, 0.0))
                self_.append((rank, 0.0))
            else:
                present += 1
                incl.append((rank, entry[3]))
                self_.append((rank, entry[2]))
        functions.append({
            "file": key[0],
            "line": key[1],
            "name": key[2],
            "present": present,
            "inclusive": summary(incl),
            "self": summary(self_),
        })
    json.dump({"ranks": len(ranks), "functions": functions}, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1:])
