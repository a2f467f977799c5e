// Writes pstats files: the marshal of {key: (cc, nc, tt, ct, callers)} in
// version-2 style (docs/formats.md §1.10: '{', '(' with i32 sizes, 'u'
// strings, 'i'/'l' ints, 'g' floats, no references), which Python 2.5+ and
// every Python 3 load.
//
// From pstats inputs the merged table is written as it is (ints stay ints,
// floats keep every bit), so the file equals pstats.Stats(*inputs).dump_stats()
// numerically. A code object in a key (python -m profile script.py) becomes
// its label string: marshal cannot rebuild the code object.
//
// Other formats map as follows (from_profile):
//   key      (file, first line, name); no file: the object (DSO), else "~"
//   cc, nc   calls into the function (callgrind), else 0 (sampled data)
//   tt       self cost: seconds for time events, else the event's count
//   ct       inclusive: reported (pstats), stack totals (perf, collapsed),
//            else self + the calls it makes (callgrind, recursion ignored)
//   callers  per call: (count, count, the callee's tt shared by inclusive
//            cost, the call's inclusive cost)
#pragma once

#include <string>

#include "graphgen/profile.h"
#include "pstats.h"

namespace graphgen::pstats {

/// The marshal bytes of a table.
std::string write_table(const Table& table);

/// A table for a profile of any format, event `event`.
Table from_profile(const Profile& p, std::size_t event);

}  // namespace graphgen::pstats
