#!/bin/bash
# The third set of recordings in this folder (as root, perf 6.1.187, Debian 12's g++ 12.2.0): a C++
# program whose symbols hold what C++ names hold (cpp-names.cc: an anonymous namespace, lambdas
# through std::function, function types in template arguments, a functor's operator(), a
# user-defined literal, a function-local class), in an empty folder given as $1, as make.sh made
# the first. Its oracle is named .stackcollapse-pl.folded, not .stackcollapse.folded: graphgen
# keeps the names stackcollapse-perf.pl (FlameGraph 41fee1f, SC below) cuts or drops, and the
# test that reads it says how (docs/differences.md).
set -e
HERE=$(cd "$(dirname "$0")" && pwd)
cd "${1:-.}"
SC=${SC:-stackcollapse-perf.pl}
g++ -O1 -fno-inline -fno-omit-frame-pointer -o names "$HERE/cpp-names.cc"
perf record -q -o cpp-names.data -g -F 499 -- ./names >/dev/null 2>&1
perf script -i cpp-names.data > cpp-names.perf
perl $SC cpp-names.perf > cpp-names.stackcollapse-pl.folded
xz -9 cpp-names.perf
