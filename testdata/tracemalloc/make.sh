#!/bin/sh
# Makes the tracemalloc snapshots here and what tracemalloc says of them.
# Needs pyenv's CPythons and Debian's python3-docutils (pure Python, put on
# their path). Each snapshot is written by one CPython and its oracle files
# by the same one:
#   app-PY.early.snapshot.xz, app-PY.late.snapshot.xz   (app.py, run from here)
#   app-PY.late.{lineno,traceback,filename}.txt.xz       Snapshot.statistics(KEY)
#   app-PY.total.txt                                     the size and count sums
#   app-PY.compare.{lineno,traceback,filename}.txt.xz    late.compare_to(early, KEY)
set -e
cd "$(dirname "$0")"
for v in 3.8.18 3.13.0; do
  py=$HOME/.pyenv/versions/$v/bin/python3
  n=app-${v%.*}
  # (run_path: frames name app.py as given, relative, as the reader finds it beside the snapshot)
  PYTHONPATH=/usr/lib/python3/dist-packages $py -c \
    "import runpy, sys; sys.argv = ['app.py', '$n.early.snapshot', '$n.late.snapshot']; runpy.run_path('app.py', run_name='__main__')"
  for key in lineno traceback filename; do
    $py oracle.py stats $key $n.late.snapshot > $n.late.$key.txt
    $py oracle.py compare $key $n.early.snapshot $n.late.snapshot > $n.compare.$key.txt
  done
  $py oracle.py total $n.late.snapshot > $n.total.txt
  xz -9 -f $n.early.snapshot $n.late.snapshot $n.late.*.txt $n.compare.*.txt
done
