// Writes pstats files: the marshal of {key: (cc, nc, tt, ct, callers)} in
// version-2 style (docs/formats.md §1.10: '{', '(' with i32 sizes, 'u'
// strings, 'i'/'l' ints, 'g' floats, no references), which Python 2.5+ and
// every Python 3 load.
//
// From pstats inputs every number is the one pstats.Stats(*inputs) holds
// (times are written as floats: the pure-Python profiler's int 0 placeholder
// times come back as 0.0), entries in its dict order, and a code object in a
// key (python -m profile script.py) is written back as the code object.
// Names that are not valid UTF-8 are written with their undecodable bytes as
// lone surrogates U+DC80..U+DCFF, as Python's surrogateescape does, so Python
// loads them and os.fsencode() gives the original bytes back.
//
// Other formats map as follows:
//   key      (file, first line, name); no file: the object (DSO), else "~"
//   cc, nc   calls into the function (callgrind), else 0 (sampled data)
//   tt       self cost: seconds for time events, else the event's count
//   ct       inclusive: reported (pstats), stack totals (perf, collapsed),
//            else self + the calls it makes (callgrind, recursion ignored)
//   callers  per call: (count, count, the callee's tt shared by inclusive
//            cost, the call's inclusive cost)
// Functions that land on one key (same file, line and name in two objects)
// are summed into one entry.
#pragma once

#include <string>

#include "graphgen/error.h"
#include "graphgen/profile.h"

namespace graphgen::pstats {

/// The marshal bytes of `p`'s event `event` as a pstats dict.
/// `max_bytes` bounds the output (0: no limit).
Expected<std::string> write(const Profile& p, std::size_t event, std::size_t max_bytes = 0);

}  // namespace graphgen::pstats
