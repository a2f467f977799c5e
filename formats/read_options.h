// What readers are asked for, beyond the bytes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace graphgen::formats {

struct ReadOptions {
  /// perf: keep only samples of this event (empty: all, as gprof2dot).
  std::string event;
  /// perf: weigh each sample by its period instead of counting it once.
  bool weight_by_period = false;
  /// perf: keep only samples of these processes (pid) or commands (comm);
  /// empty: all.
  std::vector<std::int64_t> pids;
  std::vector<std::string> comms;
  /// callgrind: scope cob= as gprof2dot does (until the next self cost
  /// line), for its name-only identity.
  bool merge_by_name = false;
  /// Keep per-position detail (callgrind per-line/instruction costs, call
  /// sites, jumps): writers that show it ask for it, graphs do not need it.
  bool keep_positions = true;
  /// Keep the callsite tree of sampled stacks (flame graphs, filters).
  bool keep_stacks = true;
};

}  // namespace graphgen::formats
