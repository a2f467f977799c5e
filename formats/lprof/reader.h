// line_profiler's .lprof files (docs/formats.md §3): a pickled LineStats
// whose state is {'timings': {(file, first line, name): [(line, hits, time),
// ...]}, 'unit': seconds per time tick}. Functions that never ran have an
// empty list and are kept; duplicate line entries are summed; a key repeated
// in the dict keeps its first place and its last value.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graphgen/error.h"
#include "graphgen/io.h"
#include "graphgen/profile.h"

namespace graphgen::lprof {

/// True for a pickle header (0x80 then protocol 2..5).
bool sniff(std::string_view head);

/// Reads one .lprof file into the model: one function per key (Python
/// labels), events `time` (in the file's timer ticks: seconds_per_unit is
/// its unit, so files of different units merge in the coarser one, as
/// LineStats addition does) and `hits`, a per-line cost row per profiled
/// line (duplicate line entries summed). Functions that never ran are kept.
/// A function at a time as the pickle is read (stream.cc) when it is as
/// line_profiler writes it, else read_general(). Without `keep_lines` (only
/// line_profiler's report shows them: ReadOptions::keep_positions) the
/// profile has the same functions and costs and no line rows.
Expected<Profile> read(const InputFile& input, Diagnostics& diag, bool keep_lines = true);
/// The streaming path alone: nothing when it leaves the file to the general
/// path (it never warns, nor refuses: the general path says what is wrong).
std::optional<Expected<Profile>> read_streaming(const InputFile& input, Diagnostics& diag, bool keep_lines = true);
/// The general path alone: the whole pickle decoded, then read (tests and
/// the fuzz target compare it with read()).
Expected<Profile> read_general(const InputFile& input, Diagnostics& diag, bool keep_lines = true);

namespace detail {
/// The classes a .lprof may name: line_profiler's LineStats, as each
/// version's module names it.
bool is_line_stats(std::string_view module, std::string_view name);
/// One entry of a function's list: (line number, hits, time in ticks).
using LineRow = std::array<std::int64_t, 3>;
/// [first, last) by line number, a line's repeats summed (saturating) in
/// their order into its first: the new end.
LineRow* merge_lines(LineRow* first, LineRow* last);
/// The profile's two events, time in ticks of `unit` seconds and hits,
/// named after everything else the file names (both paths intern so).
void name_events(Profile& p, double unit);
/// A function and its merged lines' costs, the lines as rows of the
/// profile when `keep_lines`.
void add_timed_function(Profile& p, StringId name, StringId file, std::int64_t line, const LineRow* first,
                        const LineRow* last, bool keep_lines);
}  // namespace detail

struct TextOptions {
  double output_unit = 1e-6;  // line_profiler's -u
  bool skip_zero = false;     // line_profiler's -z
  /// Source files are read only when they are regular files under this
  /// folder (empty: the paths as the profile names them, regular files only).
  std::string source_root;
  /// Read no source file (--no-source): the report shows the timed lines.
  bool no_source = false;
  std::size_t max_bytes = 0;  // the most bytes to write (0: no limit)
};

/// True when `p` has what the report needs: a time event in ticks and `hits`.
bool has_line_report(const Profile& p);

/// The report `python -m line_profiler` prints (line_profiler 4): timer unit,
/// then per function its total time, file, first line and a table of
/// Line #, Hits, Time, Per Hit, % Time and the source line (read from the
/// file when it is a regular file, as the report does). Needs
/// has_line_report(p).
Expected<std::string> write_text(const Profile& p, const TextOptions& options, Diagnostics& diag);

}  // namespace graphgen::lprof
