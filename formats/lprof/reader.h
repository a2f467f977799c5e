// line_profiler's .lprof files (docs/formats.md §3): a pickled LineStats
// whose state is {'timings': {(file, first line, name): [(line, hits, time),
// ...]}, 'unit': seconds per time tick}. Functions that never ran have an
// empty list and are kept; duplicate line entries are summed.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "graphgen/error.h"
#include "graphgen/io.h"
#include "graphgen/profile.h"

namespace graphgen::lprof {

struct FunctionStats {
  std::string file;
  std::int64_t line = 0;
  std::string name;
  std::vector<std::array<std::int64_t, 3>> lines;  // (line number, hits, time in ticks), by line
};

/// What `python -m line_profiler` loads: timings in the pickle's order.
struct LineStats {
  double unit = 1e-9;  // seconds per tick
  std::vector<FunctionStats> functions;
};

/// True for a pickle header (0x80 then protocol 2..5).
bool sniff(std::string_view head);

/// Decodes and validates one .lprof file.
Expected<LineStats> read_stats(std::string_view bytes, std::string_view path);

/// Reads and merges files: equal keys are summed, at the coarsest unit
/// (times rescaled and rounded, as line_profiler 5 adds LineStats).
Expected<LineStats> read_all(const std::vector<InputFile>& inputs);

/// The model: one function per key (label `module:line:name`, as pstats),
/// events `ns` (time) and `hits`, a per-line cost row per profiled line.
Profile to_profile(const LineStats& stats);

struct TextOptions {
  double output_unit = 1e-6;  // line_profiler's -u
  bool skip_zero = false;     // line_profiler's -z
};

/// The report `python -m line_profiler` prints (line_profiler 4): timer unit,
/// then per function its total time, file, first line and a table of
/// Line #, Hits, Time, Per Hit, % Time and the source line (read from the
/// file when it exists, as the report does).
std::string write_text(const LineStats& stats, const TextOptions& options);

}  // namespace graphgen::lprof
