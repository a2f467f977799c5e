// Writes any profile as a callgrind file for KCacheGrind and
// callgrind_annotate (docs/formats.md §4.7): magic line, version, creator,
// cmd, positions, event: lines with long names, events, summary; fl= before
// fn=, cfi= before cfn=, compressed names, absolute positions, totals:.
//
// What each input becomes:
// - callgrind: lossless for callgrind_annotate and KCacheGrind: every event
//   (with its long name), the header lines (creator, pid, cmd, part, thread,
//   desc), every self cost at its position (instruction address and line, fi=
//   for inlined files), every call site (`calls=` per caller position, with
//   its target), every jump (`jump=`/`jcnd=`), objects as ob=/cob=.
// - pstats (pyprof2calltree's reading, with its users' fixes): events `ns`;
//   fl= the file, fn= the name, or `name:line` when one file holds several
//   functions of that name; self cost on the function's first line;
//   calls=<nc> and the call's cumulative time per caller.
// - perf and collapsed stacks: event `samples` (or `period`), DSO as ob=;
//   sampled profiles have no call counts, so calls= gives the samples
//   through the call.
// Negative costs (pstats after bias calibration) are written as 0.
#pragma once

#include <string>
#include <string_view>

#include "graphgen/error.h"
#include "graphgen/profile.h"

namespace graphgen::callgrind {

struct WriteOptions {
  std::string creator;        // e.g. "graphgen 0.1.0"
  std::string cmd;            // what was profiled, or the inputs
  std::size_t max_bytes = 0;  // the most bytes to write (0: no limit)
};

Expected<std::string> write(const Profile& p, const WriteOptions& options);

/// KCacheGrind's long name for an event (`Ir` -> `Instruction Fetch`), or
/// the name itself.
std::string_view event_long_name(std::string_view name);

}  // namespace graphgen::callgrind
