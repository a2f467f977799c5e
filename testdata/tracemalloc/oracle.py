"""Prints what tracemalloc itself says of snapshots (testdata/tracemalloc/make.sh):
  oracle.py stats KEY SNAPSHOT       Snapshot.statistics(KEY), one str(stat) per line
  oracle.py total SNAPSHOT           sum(stat.size for stat in statistics('lineno')), and the count
  oracle.py compare KEY OLD NEW      NEW.compare_to(OLD, KEY), one str(stat) per line
Run by the Python that wrote the snapshot."""
import sys
import tracemalloc

what = sys.argv[1]
if what == "stats":
    for stat in tracemalloc.Snapshot.load(sys.argv[3]).statistics(sys.argv[2]):
        print(stat)
elif what == "total":
    stats = tracemalloc.Snapshot.load(sys.argv[2]).statistics("lineno")
    print(sum(s.size for s in stats), sum(s.count for s in stats))
elif what == "compare":
    old = tracemalloc.Snapshot.load(sys.argv[3])
    for stat in tracemalloc.Snapshot.load(sys.argv[4]).compare_to(old, sys.argv[2]):
        print(stat)
