// Flame graphs of a FlameTree (graphgen/analysis/flame.h):
//
//   folded   FlameGraph's collapsed stacks, one line per distinct stack,
//            root first, sorted as stackcollapse-perf.pl sorts them:
//              <process>;<outermost>;...;<leaf> <count>\n
//            `;` inside a name becomes `:`, a process name's spaces `_`;
//            counts are whole numbers of the event's unit (whole
//            microseconds for seconds), lines that round to 0 are left out.
//   svg      an interactive flame graph in one SVG file: each frame a
//            <g class="f"> with a <title>, a <rect> and a <text>; hover shows
//            the frame, click zooms, Search (or Ctrl-F) highlights a regular
//            expression, Reset Zoom goes back. Frames narrower than 0.1 px
//            are left out, as FlameGraph does. Colours: one hue per module.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "graphgen/analysis/flame.h"
#include "graphgen/error.h"
#include "graphgen/io.h"
#include "graphgen/profile.h"

namespace graphgen::flame {

/// The count a folded line shows for a cost of the event (see above).
double folded_scale(const Event& e);

/// The stacks of event `event` (flame_tree(); `totals` for profiles that
/// keep none), with a warning naming `what` when they are rebuilt from call
/// ratios.
FlameTree output_stacks(const Profile& p, std::size_t event, const CallGraph* totals, Diagnostics& diag,
                        std::string_view what);

/// The folded lines, given to `sink` a megabyte at a time (a file of many
/// deep stacks makes more lines than it has bytes); every error comes
/// before the first byte.
Expected<bool> write_folded(const Profile& p, const FlameTree& tree, std::size_t event, std::size_t max_bytes,
                            OutputSink& sink);
/// The same, whole.
Expected<std::string> write_folded(const Profile& p, const FlameTree& tree, std::size_t event, std::size_t max_bytes);

struct SvgOptions {
  std::string title = "Flame Graph";
  /// Root at the top, callees below (an icicle), instead of at the bottom.
  bool reverse = false;
  int width = 1200;
  std::size_t max_bytes = 0;
  /// A differential flame graph (difffolded.pl | flamegraph.pl): per frame
  /// (by index in the tree) the change of its own count, after - before;
  /// frames are coloured by it against `max_delta` (red grew, blue shrank,
  /// white unchanged) instead of by module, and titles say it in percent.
  const std::vector<double>* delta = nullptr;
  double max_delta = 1;
  /// A line under the title (empty: none, or the approximation note).
  std::string subtitle;
};

Expected<std::string> write_svg(const Profile& p, const FlameTree& tree, std::size_t event, const SvgOptions& o);

/// What a flame graph's frames are measured in, for labels: "samples",
/// "s", "Ir"...
std::string unit_name(const Profile& p, std::size_t event);

/// A value of the event as people read it (seconds with a unit, counts
/// with thousands separators).
std::string format_value(const Profile& p, std::size_t event, double v);

/// Frames as drawn: children of each frame sorted by name (FlameGraph's
/// order), with each frame's depth and its start in the event's unit.
struct Layout {
  std::vector<std::uint32_t> order;  // frames in drawing order, parents first
  std::vector<double> start;         // by frame
  std::vector<std::uint32_t> depth;  // by frame
  /// A frame's name (empty: a frame left out).
  std::string_view name(std::uint32_t k) const { return std::string_view(text).substr(name_begin[k], name_size[k]); }
  std::string text;                                  // each function's and process's name once
  std::vector<std::uint32_t> name_begin, name_size;  // by frame, in `text`
  std::uint32_t max_depth = 0;
};
/// Frames under `min_value` (and everything below them) are left out.
Layout lay_out(const Profile& p, const FlameTree& tree, double min_value);

}  // namespace graphgen::flame
