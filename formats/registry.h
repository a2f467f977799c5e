// The one explicit table of formats: names, extensions, sniffers, readers
// and writers. No self-registration: adding a format means adding a row.
//
// Adding an input format:
//   1. formats/<name>/: reader.{h,cc} with the grammar at the top of the
//      header, a sniff(head) and a read(const InputFile&, const ReadOptions&,
//      Diagnostics&) -> Expected<Profile> for one file (the pipeline reads
//      several files and merges them, once, with ProfileMerger); format.cc
//      with <name>::input_format(), its row: name, description, extensions,
//      the sniffer's confidence, the read function, what it provides, how
//      it merges and, where gprof2dot's reader differs, its graph rule.
//   2. One line X(<name>) in GRAPHGEN_INPUT_FORMATS (registry.cc).
//   3. One line in formats/CMakeLists.txt: <name>/reader.cc <name>/format.cc.
// Adding an output format: its writer in formats/<name>/ and its row in
// the folder's format.cc, <name>::output_formats(), with the write function
// and what it needs (a pruned call graph, the whole profile, per-line
// hits...); a new folder adds one X(<name>) line to GRAPHGEN_OUTPUT_FORMATS
// (registry.cc) and one CMake line. The CLI and the Python module pick both
// up from the table (--help, -f, -T, -o).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/read_options.h"
#include "dot/dot_writer.h"
#include "graphgen/analysis/graph.h"
#include "graphgen/analysis/ranks.h"
#include "graphgen/analysis/theme.h"
#include "graphgen/error.h"
#include "graphgen/io.h"
#include "graphgen/profile.h"
#include "lprof/reader.h"
#include "stats/writer.h"

namespace graphgen::formats {

/// How sure a sniffer is that the bytes are its format. kMaybe: the bytes
/// fit, but so would other text (one-frame collapsed stacks, JSON whose
/// first member is not the schema's); taken only when the file's extension
/// is the format's.
enum class Confidence { kNo = 0, kMaybe = 1, kWeak = 2, kStrong = 3 };

/// A row's sniffer from a reader's yes-or-no one: sure, or not at all.
template <bool (*kSniff)(std::string_view)>
Confidence strong_or_no(std::string_view head) {
  return kSniff(head) ? Confidence::kStrong : Confidence::kNo;
}

/// What a profile of a format holds beyond its call graph.
enum Provides : unsigned {
  kCallGraph = 1,  // functions, calls, costs (every format)
  kLineHits = 2,   // per-line time and hit counts (line_profiler)
  kLocations = 4,  // one file may hold several ranks or threads (Profile::locations)
  kTimeline = 8,   // when each sample ran (Profile::timeline)
  kMemory = 16,    // memory over time (Profile::memory)
};

/// The order in which several files of a format merge.
enum class MergeOrder {
  kInputOrder,  // as given
  kPstats,      // as pstats.Stats(a, b, c, ...): a, then the others last to first
};

/// What --event means for a format.
enum class EventOption {
  kColumn,        // picks the cost column to graph (callgrind)
  kSampleFilter,  // keeps only samples of that event (perf)
};

struct InputFormat {
  std::string_view name;
  std::string_view description;
  std::vector<std::string_view> extensions;  // with the dot, e.g. ".pstats"
  Confidence (*sniff)(std::string_view head);
  /// Reads one file into one profile.
  Expected<Profile> (*read)(const InputFile& input, const ReadOptions& options, Diagnostics& diag);
  unsigned provides = kCallGraph;
  MergeOrder merge_order = MergeOrder::kInputOrder;
  EventOption event_option = EventOption::kColumn;
  /// Graphs show one node per (name, object), or per name with
  /// --merge-by-name, where the reader keeps functions per file (callgrind).
  bool graph_merges_functions = false;
  /// Whether one file read with these options is its own merged profile:
  /// its reader keys functions, calls and stacks as the merge does, so the
  /// merge's copy of a lone input would change nothing but the order of
  /// the string ids, and is skipped. Null: the copy is made.
  bool (*lone_file_is_merged)(const ReadOptions& options) = nullptr;
  /// How graphs of the format get their totals where gprof2dot's readers
  /// differ (gprof's call-count integration, VTune's printed shares;
  /// docs/gprof2dot.md); null, or no graph returned: the profile's own
  /// layers decide (reported totals, else call stacks or call ratios).
  /// `releasable`, when given, is `p` itself, whose calls nothing reads
  /// after the graph (graph_from_call_stacks()).
  std::optional<CallGraph> (*graph)(const Profile& p, std::size_t event, Diagnostics& diag,
                                    Profile* releasable) = nullptr;
  /// Whether the costs count samples, which --show-samples adds to a node's
  /// label: false where they are what a tool measured or a program
  /// allocated (gprof's and VTune's seconds, as gprof2dot's readers of
  /// them keep no samples; import times, bytes, durations).
  bool counts_samples = true;
};

/// An InputFormat::lone_file_is_merged for readers whose keys are the
/// merge's whatever they keep.
inline bool always_merged(const ReadOptions&) { return true; }

/// An InputFormat::graph for formats whose viewers take a function's
/// inclusive cost from the samples whose stack holds it (pprof's cum,
/// speedscope's total): the call stacks' totals, not gprof2dot's call-ratio
/// integration (which finds no root in a stack that is one cycle).
std::optional<CallGraph> graph_from_stacks(const Profile& p, std::size_t event, Diagnostics& diag, Profile* releasable);

const std::vector<InputFormat>& input_formats();
const InputFormat* find_input_format(std::string_view name);
/// The format of the profiles cProfile takes in-process (`graphgen run`,
/// the Python module's live profiles): pstats.
const InputFormat& cprofile_format();
std::vector<std::string_view> input_format_names();

/// The bytes the formats' sniffers are shown: the first 4 KiB, or the
/// first line when it is longer (up to 1 MiB).
std::string_view sniffed_head(const InputFile& input);
/// Picks the format from the bytes (strongest sniffer wins; the extension
/// only breaks ties). Error when nothing recognises the file.
Expected<const InputFormat*> detect_input_format(const InputFile& input);

/// Everything writers are told (each reads what concerns it).
struct WriteOptions {
  dot::Options dot;
  Theme theme = *find_theme(kDefaultTheme);
  std::string title;    // what the picture is of (the inputs)
  std::string creator;  // e.g. "graphgen 0.2.0"
  std::string cmd;      // what was profiled, or the inputs
  /// line_profiler's report (-T text): --unit, --skip-zero, --source-root.
  lprof::TextOptions text;
  /// The most bytes a writer may produce (0: no limit); the pipeline sets
  /// it in proportion to the inputs' size, or from --max-memory.
  std::size_t max_output = 0;
  /// Rows of tables and heatmaps (0: the output's default).
  std::size_t top = 0;
  /// Graphs: colour nodes by per-rank imbalance and say it in their labels.
  bool imbalance = false;
  /// The pstats report (-T stats): sort keys, restrictions, --strip-dirs,
  /// --callers/--callees, and its header's file lines (set by the pipeline).
  stats::Options stats;
  /// Flame graphs: the root at the top (an icicle).
  bool flame_reverse = false;
  /// The HTML report lays out its call graph with Graphviz (the fuzz
  /// targets leave it out: layout time is Graphviz's, not graphgen's).
  bool report_graph = true;
};

/// What an output format writes from.
enum class Needs {
  kGraph,     // the pruned call graph (dot, images)
  kProfile,   // the whole profile (callgrind, pstats)
  kLineHits,  // per-line time and hits (line_profiler's report)
  kRanks,     // per-rank statistics over the inputs (each input one rank)
  kTotals,    // the whole profile and each function's inclusive cost (pstats' report)
  kStacks,    // the sample stacks, or the call graph's totals to rebuild them from (flame graphs)
  kReport,    // everything: stacks or totals, the pruned graph, per-rank statistics (the HTML report)
  kTimeline,  // the sample stacks and when each ran (trace events)
  kMemory,    // memory over time (the mprof plot)
};

/// What a writer gets: the whole profile, the graph when it needs one, the
/// event to write and the options.
struct WriteInput {
  const Profile& profile;
  const CallGraph* graph = nullptr;
  std::size_t event = 0;
  const WriteOptions& options;
  /// Per-rank statistics, for outputs that need them and --imbalance.
  const RankTable* ranks = nullptr;
  /// Every function's inclusive cost, unpruned (Needs::kStacks without
  /// sample stacks, Needs::kReport).
  const CallGraph* totals = nullptr;
};

struct OutputFormat {
  std::string_view name;
  std::string_view description;
  std::vector<std::string_view> extensions;
  Needs needs;
  /// Laid out and drawn by Graphviz (needs a build with it, and a plugin).
  bool rendered = false;
  /// The bytes; null for a format that has `stream` instead.
  Expected<std::string> (*write)(const WriteInput& input, Diagnostics& diag);
  /// Shows every rank's own values, not only their statistics
  /// (RankTable::matrix: memory in proportion to ranks x functions).
  bool per_rank_values = false;
  /// Writes per-position detail (callgrind's lines, addresses, call sites
  /// and jumps; line_profiler's lines): readers keep it for these only
  /// (ReadOptions::keep_positions).
  bool positions = false;
  /// The bytes handed to a sink as they are made, instead of `write`, for
  /// outputs larger than the profile they come from (the pipeline keeps
  /// them whole for a front end that wants a string). Every error comes
  /// before the first byte.
  Expected<bool> (*stream)(const WriteInput& input, OutputSink& sink, Diagnostics& diag) = nullptr;
};

const std::vector<OutputFormat>& output_formats();
const OutputFormat* find_output_format(std::string_view name);
/// The output KCacheGrind opens (`-k`): callgrind.
const OutputFormat& kcachegrind_format();
/// What `graphgen run` writes without -o or -T: the profile itself (pstats).
const OutputFormat& run_profile_format();
/// Whether the format's bytes are text (UTF-8 where names are): not the
/// images Graphviz draws (but SVG), pstats' marshal or pprof's protobuf.
bool is_text(const OutputFormat& f);
/// pstats' printed report (-T stats): what `graphgen run -s KEY` prints.
const OutputFormat& stats_report_format();
/// The output format an output path's name implies (its extension, or
/// valgrind's `callgrind.out.*` naming), or null.
const OutputFormat* output_format_for_path(std::string_view path);
std::vector<std::string_view> output_format_names();
/// Every extension -o recognises, for --help.
std::vector<std::string_view> output_extensions();

/// Whether an input format can feed an output format; the one-line reason
/// when it cannot.
Expected<bool> check_pair(const InputFormat& in, const OutputFormat& out);

}  // namespace graphgen::formats
