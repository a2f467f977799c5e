// What readers are asked for, beyond the bytes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace graphgen::formats {

struct ReadOptions {
  /// perf: keep only samples of this event (empty: the first sample's, as
  /// stackcollapse-perf.pl keeps it).
  std::string event;
  /// perf: weigh each sample by its period instead of counting it once.
  bool weight_by_period = false;
  /// perf: keep only samples of these processes (pid) or commands (comm);
  /// empty: all.
  std::vector<std::int64_t> pids;
  std::vector<std::string> comms;
  /// perf: one `[unknown]` function per DSO, and a run of unresolved frames
  /// one frame (default: apart by address, as gprof2dot names them).
  bool fold_unknown = false;
  /// perf: in samples holding Python frames (`py::NAME:FILE`, python -X
  /// perf), hide the interpreter's own frames (formats/perf/python.h).
  /// kAuto does it with a note, kOn without, kOff keeps every frame.
  enum class PythonView : std::uint8_t { kAuto, kOn, kOff };
  PythonView python = PythonView::kAuto;
  /// callgrind: scope cob= as gprof2dot does (until the next self cost
  /// line), for its name-only identity.
  bool merge_by_name = false;
  /// Keep per-position detail (callgrind per-line/instruction costs, call
  /// sites, jumps; line_profiler's lines): the writers that show it ask for
  /// it (OutputFormat::positions), no other output reads it.
  bool keep_positions = true;
  /// The output is the pruned call graph (or --list-functions): readers may
  /// leave out what only the writers of whole profiles show (tracemalloc's
  /// callsite tree, which -T stats groups by; pstats calls' own times).
  bool graph_only = false;
  /// Keep the callsite tree of sampled stacks (flame graphs, filters).
  bool keep_stacks = true;
  /// Keep when each sample ran (Profile::timeline), for timelines; only
  /// with keep_stacks.
  bool keep_timeline = false;
  /// The most bytes a reader's profile may hold (0: no limit); the pipeline
  /// sets it in proportion to the file's size, or from --max-memory.
  std::size_t memory_budget = 0;
};

/// The one-line error of a reader whose profile outgrew its budget.
std::string over_budget_message(std::string_view where, std::size_t budget, std::size_t functions, std::size_t events);

/// The memory a file of `bytes` may need: generous for real profiles,
/// small enough that a hostile file is refused long before the machine
/// runs out.
inline std::size_t default_budget(std::size_t bytes) {
  constexpr std::size_t kBase = std::size_t{64} << 20, kFactor = 32;
  return bytes > (SIZE_MAX - kBase) / kFactor ? SIZE_MAX : kBase + kFactor * bytes;
}

}  // namespace graphgen::formats
