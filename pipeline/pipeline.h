// The conversion pipeline, one path for every front end (the CLI, the Python
// module, --each, graphgen-mpi):
//
//   bytes --sniff--> InputFormat --read (one file)--> Profile
//         --merge (one step, all files, in the format's order)--> Profile
//         --passes (function identity, totals, pruning, selection)--> graph
//         --OutputFormat.write (or .stream, to -o as made)--> bytes
//
// Front ends build a Request and print what comes back; nothing here prints.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "graphgen/analysis/filter.h"
#include "graphgen/analysis/merge.h"
#include "graphgen/analysis/prune.h"
#include "graphgen/analysis/ranks.h"
#include "graphgen/error.h"
#include "graphgen/profile.h"
#include "registry.h"

namespace graphgen::pipeline {

// The formats' rows and options the pipeline's requests name.
using formats::InputFormat;
using formats::Needs;
using formats::OutputFormat;
using formats::ReadOptions;
using formats::WriteOptions;

/// How a graph's totals are computed when the profile does not report them.
enum class TotalMethod {
  kCallRatios,  // gprof2dot's call-ratio integration (its default)
  kCallStacks,  // share of samples whose stack holds the function
};

/// The passes between the profile and a graph output.
struct GraphOptions {
  TotalMethod total = TotalMethod::kCallRatios;
  PruneOptions prune;      // -n, -e, -p, --color-nodes-by-selftime
  std::string root, leaf;  // -z, -l globs
  int depth = -1;
  std::size_t node_count = 0;  // 0: all
  /// Warn before laying out more nodes than this (rendered outputs).
  std::size_t large_graph = 500;
};

struct Request {
  std::vector<std::string> inputs;  // paths, "-" for standard input
  std::string input_format;         // a registry name; empty: detected from the bytes
  ReadOptions read;
  /// --event: the cost column (callgrind) or the samples kept (perf).
  std::string event;
  GraphOptions graph;
  /// pprof's --focus/--ignore/--hide/--show, before every other pass.
  Filters filters;
  const OutputFormat* output = nullptr;
  WriteOptions write;
  /// Non-empty: instead of the output, the functions left after pruning
  /// and -z that match this selector (gprof2dot's --list-functions).
  std::string list_functions;
  /// --compare: the two inputs are read apart and drawn as one graph of
  /// their differences (gprof2dot's --compare), with these options.
  bool compare = false;
  dot::CompareOptions compare_options;
  /// --compare: how many of the inputs are the first profile's (the rest
  /// are the second's); several files per side merge first. 1 when each
  /// side is one file.
  std::size_t compare_split = 1;
  /// --compare: the two sides as given (a file, a folder, a quoted
  /// pattern), for messages and headers; empty: the two inputs' names.
  std::vector<std::string> compare_sides;
  /// Skip inputs that cannot be read (listed in one warning) instead of failing.
  bool keep_going = false;
  /// The most memory a reader's profile, and an output, may take (0: in
  /// proportion to the inputs' size, default_budget()).
  std::size_t max_memory = 0;
  /// Called with each input's own profile before it is merged, in merge
  /// order (per-rank statistics, compare); an error stops the conversion.
  std::function<Expected<bool>(std::size_t input, const Profile&)> on_input;
  /// Called after each input is read and merged: how many of how many
  /// (a front end shows progress on long merges).
  std::function<void(std::size_t done, std::size_t total)> on_progress;
  /// Set: an output whose writer can give its bytes as it makes them
  /// (OutputFormat::stream) is handed to this, written where the front
  /// end's -o says (write_output), instead of being returned whole in
  /// Output::bytes; Output::streamed then says so.
  std::function<Expected<bool>(const std::function<Expected<bool>(OutputSink&)>& produce)> stream_to;
  /// Output::Phase::peak_bytes measured at each phase's end (--timings);
  /// 0 otherwise.
  bool measure_peaks = false;
};

struct Output {
  std::string bytes;
  /// The bytes went to Request::stream_to (`bytes` is empty).
  bool streamed = false;
  /// Per-rank statistics, when the output or --imbalance asked for them.
  std::optional<RankTable> ranks;
  /// Bytes of input read (decompressed), for the output's budget.
  std::size_t input_bytes = 0;
  /// Per phase (read, analyse, write), for --timings: its wall-clock
  /// seconds, and with Request::measure_peaks the run's peak resident
  /// memory when it ended.
  struct Phase {
    std::string name;
    double seconds = 0;
    std::size_t peak_bytes = 0;
  };
  std::vector<Phase> phases;
};

/// The output format for -T `to` (may be empty) and the output path: -T,
/// else the path's extension (valgrind's callgrind.out.* included), else dot
/// as gprof2dot writes (unknown extensions, /dev/null, standard output).
/// Warns when -T and the path's extension disagree.
Expected<const OutputFormat*> resolve_output_format(std::string_view to, std::string_view path, Diagnostics& diag);

/// Reads, merges, analyses and writes.
Expected<Output> convert(const Request& request, Diagnostics& diag);

/// The passes and the writer alone, on a profile already read (a live
/// cProfile profile, a fuzzer's input): `request` gives the output and its
/// options (its inputs are not read). Appends the phases to `out`.
Expected<bool> convert_profile(Profile profile, const InputFormat& format, const Request& request, Diagnostics& diag,
                               Output& out);

/// The most columns of a heatmap (ranks are binned beyond).
inline constexpr std::size_t kHeatmapColumns = 128;

/// A share of the inputs read and merged, not finished: graphgen-mpi's
/// processes each read one, then combine them in order.
struct MergedShare {
  Profile profile;
  ProfileMerger::ExactTables exact;      // the floating cells' partials
  std::size_t files = 0;                 // profiles merged into it
  std::string first_input;               // the first of them, for messages
  std::optional<RankAccumulator> ranks;  // per-rank statistics, when asked
  std::vector<std::string> skipped;      // inputs --keep-going skipped, each with why
  std::vector<std::size_t> skipped_at;   // their positions in the request's inputs
  std::size_t input_bytes = 0;
};

/// The input input_format_of() opened to decide, handed on to be read
/// (standard input cannot be opened twice).
struct FirstInput {
  std::size_t index = 0;
  std::optional<InputFile> file;
};

/// The request's input format: -f, else the first input's (with
/// --keep-going, the first readable input's); `first`, if given, gets
/// that input, open.
Expected<const InputFormat*> input_format_of(const Request& request, FirstInput* first = nullptr);

/// Reads and merges the inputs at positions [begin, end) of the order
/// `format` merges in (pstats: the first, then the last to the second);
/// `first`, if given, is used instead of opening its input again.
Expected<MergedShare> read_share(const Request& request, const InputFormat& format, std::size_t begin, std::size_t end,
                                 bool ranks, Diagnostics& diag, FirstInput* first = nullptr);

/// Appends `next`, the share that follows `into`'s, to `into`; the result
/// is the share a single read of both ranges gives, bit for bit.
Expected<bool> combine_shares(MergedShare& into, MergedShare next);

/// The merged profile of a share holding every input: functions in
/// gprof2dot's order, the per-rank table if `ranks` is given, skipped
/// inputs in one warning.
Expected<Profile> finish_share(MergedShare share, const Request& request, Diagnostics& diag, RankTable* ranks);

/// The first two steps alone: every input read and merged into one profile
/// (for front ends that need the profile itself). `format` gets the input format.
/// `input_bytes`, if given, gets the bytes read; `ranks`, if given, the
/// per-rank statistics of the inputs (each input one rank); `located_ranks`,
/// if given and `ranks` is not, gets them when the format's files hold
/// several ranks each (TAU's .ppk, CUBE4), even from one file.
Expected<Profile> read_and_merge(const Request& request, const InputFormat*& format, Diagnostics& diag,
                                 std::size_t* input_bytes = nullptr, RankTable* ranks = nullptr,
                                 RankTable* located_ranks = nullptr, std::vector<std::size_t>* skipped = nullptr);

/// pstats' report names the files it read first (-T stats): the request
/// with those of its inputs not in `skipped`, in the order
/// pstats.Stats(*files) lists them; none for other outputs, or when they
/// are named already (the request is used as it is).
std::optional<Request> name_merged_files(const Request& request, const InputFormat& format,
                                         const std::vector<std::size_t>& skipped);

}  // namespace graphgen::pipeline
