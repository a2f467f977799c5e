// DOT output with gprof2dot's exact layout (docs/gprof2dot.md §5-§8):
//   digraph {
//   \ttooltip=" "
//   \tgraph [fontname=Arial, nodesep=0.125, ranksep=0.25];
//   \tnode [fontcolor=..., fontname=Arial, height=0, shape=box, style=..., width=0];
//   \tedge [fontname=Arial];
//   \tID [color, fontcolor, fontsize, label, tooltip];      nodes in id order,
//   \tID -> ID [arrowsize, color, fontcolor, fontsize, label, labeldistance, penwidth];
//   }                                                       each followed by its out-edges
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "graphgen/analysis/graph.h"
#include "graphgen/analysis/merge.h"
#include "graphgen/analysis/ranks.h"
#include "graphgen/analysis/theme.h"
#include "graphgen/error.h"

namespace graphgen::formats {
struct WriteInput;
}

namespace graphgen::dot {

/// What a node label shows after the name (gprof2dot's --node-label).
enum class Measure { kSelfTime, kSelfTimePercentage, kTotalTime, kTotalTimePercentage };

/// Parses a --node-label value; false when unknown.
bool parse_measure(std::string_view name, Measure& out);
/// The --node-label choices, sorted.
std::vector<std::string_view> measure_names();

struct Options {
  bool strip = false;  // -s
  bool wrap = false;   // -w
  std::vector<Measure> node_labels{Measure::kTotalTimePercentage, Measure::kSelfTimePercentage};
  bool show_samples = false;
  std::string time_format = "%.7g";
  /// The most bytes to write (0: no limit): past it write() fails.
  std::size_t max_bytes = 0;
  /// Per-rank statistics: nodes are coloured by Imb% (inclusive time) and
  /// get a line `imb 23% (max r5, min r61)`.
  const RankTable* imbalance = nullptr;
  /// With more nodes kept than this (0: never), long chains of single
  /// calls are drawn as one node each (find_chains).
  std::size_t collapse_chains_over = 0;
};

/// Chains of at least kMinChain functions, each calling only the next,
/// each called only by the one before (a 10 000-frame recursion through
/// distinct functions): laid out, each is as long as Graphviz takes time
/// (quadratic), and says nothing a single node cannot. Only found when more
/// than `over` nodes are kept; rings have no first function and are kept.
inline constexpr std::size_t kMinChain = 3;
struct Chains {
  std::vector<FuncId> head;  // per function: the first of its chain (itself if none)
  std::vector<FuncId> tail;  // per first function: the chain's last
  std::vector<std::uint32_t> length;
  std::size_t collapsed = 0;  // chains drawn as one node
  std::size_t absorbed = 0;   // functions drawn in another's node
};
Chains find_chains(const CallGraph& graph, std::size_t over);

/// Renders the kept part of `graph`.
Expected<std::string> write(const Profile& p, const CallGraph& graph, const Theme& theme, const Options& options,
                            Diagnostics& diag);

/// --compare-by: what a compared graph shows.
enum class CompareBy {
  kAbsolute,  // each function's cost before and after, coloured by its relative change
  kShare,     // gprof2dot's: each function's share of the total and how it moved
};

/// --compare: how differences between the two profiles show.
struct CompareOptions {
  CompareBy by = CompareBy::kAbsolute;
  double tolerance = 0.001;          // percentage points below which values count as equal
  bool only_slower = false;          // mark only functions whose share grew in the second profile
  bool only_faster = false;          // ... only those whose share shrank
  bool color_by_difference = false;  // colour by the size of the difference, not by time
  /// -T folded: scale the first profile's counts to the second's total
  /// (difffolded.pl -n), for recordings of different lengths.
  bool normalize = false;
};

/// gprof2dot's --compare drawing: the kept part of graph `a`, each node
/// whose function has a match in `b` (`match`, by identity, kept in `gb`)
/// labelled with its measures and their difference to `b`
/// (`12.30% + 4.35%`: b's share is higher) and drawn as a `cds` arrow when
/// its total share moved by the tolerance or more (pointing down when it
/// shrank); edges show `a / b`. Node sizes are written as gprof2dot does
/// (`%f`), nodes have no default shape.
Expected<std::string> write_compare(const Profile& a, const CallGraph& ga, const Profile& b, const CallGraph& gb,
                                    const std::vector<FuncId>& match, const Theme& theme, const Options& options,
                                    const CompareOptions& compare, Diagnostics& diag);

/// One profile of an absolute comparison: its graph (kept nodes are drawn),
/// the event the graph measures and the name the legend gives it.
struct ChangeSide {
  const Profile* profile = nullptr;
  const CallGraph* graph = nullptr;
  std::size_t event = 0;
  std::string name;
};

/// --compare (--compare-by absolute): the kept nodes of both graphs as one
/// graph, functions paired by `pairing` (analysis/merge.h; a(f) and b's
/// partner are one node). Each node shows its inclusive cost before -> after
/// in the event's unit with the relative change, its self cost and calls
/// the same way, and how it was paired when not by identity (its tooltip:
/// the file and the rule); functions of one side say which. Nodes and edges
/// are coloured by the relative change of their inclusive cost, white
/// unchanged to blue at half or less and red at twice or more
/// (--compare-color-by-difference: by the change against the largest
/// one), sized by the larger weight of the two as `theme` sizes them; a
/// legend at the top says so, with both totals.
Expected<std::string> write_change(const ChangeSide& a, const ChangeSide& b, const Pairing& pairing, const Theme& theme,
                                   const Options& options, const CompareOptions& compare, Diagnostics& diag);

/// Python's round(difference, -floor(log10(tolerance))), printed as
/// Python prints a float (gprof2dot's round_difference).
std::string round_difference(double difference, double tolerance);

/// gprof2dot's --strip: drops (...) groups, a trailing const, <...> groups.
std::string strip_function_name(std::string_view name);
/// gprof2dot's --wrap: textwrap.fill at 32 columns, then ", " -> "," and "> >" -> ">>".
std::string wrap_function_name(std::string_view name);

/// Checks a Python %-format for one number (e.g. "%.3f", "%8.2e", "%d s");
/// the error says what is wrong.
Expected<bool> check_time_format(std::string_view format);
/// Applies a format accepted by check_time_format() to `value`.
std::string format_time(std::string_view format, double value);

/// Python's repr() of a float: shortest round-trip digits, fixed notation
/// for exponents in [-4, 16), else d.ddde+XX.
std::string python_float_repr(double value);

/// The options a graph is written with, from what the writers are told
/// (the HTML report draws the same graph).
Options write_options(const formats::WriteInput& in);

}  // namespace graphgen::dot
