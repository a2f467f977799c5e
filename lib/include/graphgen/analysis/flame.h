// The stacks a flame graph draws: a tree of frames, each a function (or the
// process the samples below it ran in) under its caller, with the cost of
// the samples whose stack is that path.
//
// Exact for profiles that keep their sample stacks (perf, collapsed stacks,
// dtrace...). Profiles that keep only a call graph (pstats, callgrind,
// gprof) have no stacks: they are reconstructed from call ratios, as
// speedscope's callgrind importer does. A function's frame of inclusive
// weight w gives each callee g the share w * cost(f->g) / total(f), and
// keeps w * self(f) / total(f) for itself; that assumes every call of f
// costs the same whatever path reached it, which a call graph cannot tell.
// Calls back into a function already on the path (recursion, cycles) are
// left out, and branches under `min_share` of the whole are pruned, so the
// tree stays small where the call graph is a DAG of many paths.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "graphgen/analysis/graph.h"
#include "graphgen/profile.h"

namespace graphgen {

struct FlameFrame {
  std::uint32_t parent = 0;
  FuncId function = 0;
  /// Not kNoString: a process frame (perf's comm), not a function.
  StringId process = kNoString;
  /// The cost of the samples whose stack ends here, and of those that pass
  /// through (in the event's unit: what Profile::value gives).
  double self = 0;
  double total = 0;
};

struct FlameTree {
  /// frames[0] is the root (every sample); a frame's parent comes before it.
  std::vector<FlameFrame> frames;
  /// Reconstructed from call ratios rather than recorded stacks.
  bool approximate = false;
  /// Branches were left out: below min_share, or past max_frames.
  std::size_t pruned = 0;
};

/// The tree of event `event`. `totals` is the call graph with each
/// function's inclusive cost, used only when the profile has no stacks.
FlameTree flame_tree(const Profile& p, std::size_t event, const CallGraph* totals, double min_share = 1e-5,
                     std::size_t max_frames = 2'000'000);

/// A frame's name on one line: the function's label (`module:line:name` for
/// Python functions), `[libc.so.6]` for an address no symbol was found for
/// (as FlameGraph's stackcollapse-perf.pl writes it), or the process name.
std::string frame_name(const Profile& p, const FlameFrame& f);

/// What frames are coloured by: the object's basename, the Python module,
/// or the source file's basename; empty when the profile names none.
std::string frame_module(const Profile& p, const FlameFrame& f);

}  // namespace graphgen
