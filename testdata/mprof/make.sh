#!/bin/sh
# Makes the mprof files here with Debian's python3-memory-profiler (0.61)
# and what `mprof peak` says of them:
#   funcs.dat     mprof run --python grow.py            (FUNC lines of @profile'd calls)
#   children.dat  mprof run -M grow.py                  (CHLD lines of its child process)
#   both.dat      mprof run -C --python, then --python  (two runs appended in one file)
#   NAME.peak.txt        mprof peak NAME.dat
#   NAME.func.txt        mprof peak --func F NAME.dat, for each function F
set -e
cd "$(dirname "$0")"
rm -f funcs.dat children.dat both.dat
python3-mprof run --python -o funcs.dat grow.py > /dev/null
python3-mprof run -M -o children.dat grow.py > /dev/null
python3-mprof run -C --python -o both.dat grow.py > /dev/null
python3-mprof run --python -o both.dat grow.py > /dev/null
for n in funcs children both; do
  python3-mprof peak $n.dat > $n.peak.txt
  : > $n.func.txt
  for f in __main__.load __main__.transform __main__.main; do
    python3-mprof peak --func $f $n.dat >> $n.func.txt 2>/dev/null || echo "$n.dat	(no $f)" >> $n.func.txt
  done
done
