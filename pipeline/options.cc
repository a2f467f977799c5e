#include "options.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <type_traits>

#include "dot/dot_writer.h"
#include "graphgen/analysis/theme.h"
#include "inputs.h"
#include "registry.h"
#include "stats/writer.h"

namespace graphgen::pipeline {

using namespace formats;

namespace {

std::vector<std::string> strings(const std::vector<std::string_view>& items) { return {items.begin(), items.end()}; }

std::string braces(const std::vector<std::string>& choices) {
  std::string out = ":{";
  for (std::size_t i = 0; i < choices.size(); ++i) out += (i ? "," : "") + choices[i];
  return out + "}";
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// A default as --help shows it: the field's own initial value.
std::string shown(double v) { return fmt::format("{}", v); }

const char* total_name(TotalMethod m) { return m == TotalMethod::kCallStacks ? "callstacks" : "callratios"; }

OptionSpec flag(std::string names, std::string help, unsigned front_ends = kEvery) {
  OptionSpec s;
  s.names = std::move(names);
  s.kind = OptionKind::kFlag;
  s.help = std::move(help);
  s.front_ends = front_ends;
  return s;
}

OptionSpec value(std::string names, std::string value_name, std::string help, std::string default_value = {},
                 unsigned front_ends = kEvery) {
  OptionSpec s;
  s.names = std::move(names);
  s.value_name = std::move(value_name);
  s.help = std::move(help);
  s.default_value = std::move(default_value);
  s.front_ends = front_ends;
  return s;
}

OptionSpec list(std::string names, std::string value_name, std::string help, unsigned front_ends = kEvery) {
  OptionSpec s = value(std::move(names), std::move(value_name), std::move(help), {}, front_ends);
  s.kind = OptionKind::kList;
  return s;
}

OptionSpec choice(OptionSpec s, std::vector<std::string> choices, bool (*also_accepts)(std::string_view) = nullptr) {
  s.value_name += braces(choices);
  s.choices = std::move(choices);
  s.also_accepts = also_accepts;
  return s;
}

// The spec with other names in graphgen run.
OptionSpec in_run(std::string run_names, OptionSpec s) {
  s.run_names = std::move(run_names);
  return s;
}

// The key of "-n,--node-thres" is "node-thres"; of "input", "input".
std::string key_of(const std::string& names) {
  std::size_t at = names.find("--");
  if (at == std::string::npos) return names;
  std::size_t end = names.find(',', at);
  return names.substr(at + 2, end == std::string::npos ? std::string::npos : end - at - 2);
}

std::vector<OptionSpec> inputs_and_outputs() {
  constexpr unsigned kNotPython = kEvery & ~kPython;
  return {
      list("input", "FILE",
           "profile file(s), or - for standard input; several files of one format are merged; gzip, bzip2, xz and "
           "zstd files are read as they are. A folder stands for its files (not its hidden ones), a quoted glob "
           "('ranks/cpu_*.prof') for "
           "its matches and @LIST for the paths listed in LIST, one per line (for more files than a command line "
           "holds). With none, standard input is read when it is not a terminal (`perf script | graphgen | dot "
           "-Tpng`, as gprof2dot reads it)",
           kGraphgen | kMpi),
      value("-o,--output", "FILE",
            "write here instead of standard output; the name picks the output format unless -T is given (see Output "
            "formats below); devices, FIFOs and /dev/stdout are written through, links followed",
            {}, kNotPython),
      choice(
          value("-f,--format", "FORMAT",
                "input format: " + joined(strings(input_format_names())) + " [default: detected from the file's bytes]",
                {}, kEvery & ~kRun),
          strings(input_format_names())),
      choice(
          value("-T,--to", "FORMAT",
                "output format: " + joined(strings(output_format_names())) + " [default: from the -o name, else dot]",
                {}, kNotPython),
          strings(output_format_names())),
  };
}

std::vector<OptionSpec> graph_options() {
  const PruneOptions prune;
  const GraphOptions graph;
  const dot::Options dot;
  return {
      value("-n,--node-thres", "PERCENTAGE:FLOAT in [0 - 100]",
            "drop functions whose total is below this % of the profile", shown(prune.node_threshold_percent)),
      value("-e,--edge-thres", "PERCENTAGE:FLOAT in [0 - 100]", "drop calls whose total is below this % of the profile",
            shown(prune.edge_threshold_percent)),
      choice(
          value("-c,--colormap", "THEME", "colour map: " + joined(strings(theme_names())), std::string(kDefaultTheme)),
          strings(theme_names())),
      value("--skew", "FLOAT", "skew the colour curve: < 1 spreads out low percentages, > 1 compresses them",
            shown(find_theme(kDefaultTheme)->skew)),
      in_run("--strip", flag("-s,--strip", "strip parameters, template arguments and const from C++ names in labels")),
      flag("-w,--wrap", "wrap function names longer than 32 characters"),
      flag("--color-nodes-by-selftime,--colour-nodes-by-selftime",
           "colour nodes by self time instead of total time (pruning still uses total)"),
      flag("--show-samples", "show sample counts in node labels (sampling formats)", kEvery & ~kRun),
      choice(list("--node-label", "MEASURE",
                  "measure shown in nodes, repeatable, in order: " + joined(strings(dot::measure_names())) +
                      " [default: total-time-percentage, self-time-percentage]"),
             strings(dot::measure_names())),
      value("--time-format", "FMT", "printf-style format of times in labels", dot.time_format),
      value("-z,--root", "GLOB",
            "keep only what this function (glob on labels, e.g. 'app:12:main') calls, directly or not"),
      value("-l,--leaf", "GLOB", "keep only the callers (direct or not) of this function (glob)"),
      value("--depth", "N", "with -z/-l: how many calls away to keep; -1 for no limit", std::to_string(graph.depth)),
      list("-p,--path", "PATH",
           "keep only functions whose file starts with PATH (repeatable; absolute paths), or whose module contains "
           "it"),
  };
}

std::vector<OptionSpec> filter_options() {
  return {
      list("--focus", "REGEX",
           "pprof's filters, before everything else, for every format and output: keep only the samples whose stack "
           "holds a function matching REGEX (repeatable; POSIX extended, searched in the name, label, file and "
           "object); call-graph formats keep the matches' callers and callees"),
      list("--ignore", "REGEX",
           "drop the samples whose stack holds a match (call-graph formats: the matches and what only they call)"),
      list("--hide", "REGEX",
           "drop matching frames from the stacks, their cost going to their callers (call-graph formats: folded into "
           "their callers by call ratios)"),
      list("--show", "REGEX", "keep only matching frames: hide every other function"),
      value("--node-count", "N", "after pruning, keep only the N nodes of highest total share (0: all); for big graphs",
            std::to_string(GraphOptions{}.node_count)),
      flag("--no-collapse-chains",
           "pictures and the report of graphs over 500 nodes: draw every function of a long chain of single calls "
           "(by default each chain is one node, so a deep recursion lays out in seconds)"),
      value("--list-functions", "SELECTOR",
            "print the functions left after pruning and -z to standard output and stop: '+' or '*' lists all with "
            "their ids, any other value is a glob on labels",
            {}, kGraphgen | kRun),
  };
}

std::vector<OptionSpec> reader_options() {
  const ReadOptions read;
  OptionSpec python = flag("--python",
                           "perf: in samples with Python frames (py::, python -X perf), hide the interpreter's own "
                           "frames so Python functions call Python and C functions directly [default: on when there "
                           "are py:: frames, with a note]");
  python.excludes = {"no-python"};
  OptionSpec no_python = flag("--no-python", "perf: keep the interpreter's frames between Python frames");
  no_python.excludes = {"python"};
  // (Of the formats graphgen run never reads: perf's, callgrind's, the
  // other events'; its --help leaves them out.)
  std::vector<OptionSpec> out = {
      value("--event", "NAME",
            "the event (cost column) to graph: callgrind's, pprof's sample types, TAU's and CUBE4's metrics, "
            ".cpuprofile's time or samples [default: the first; pprof: the default sample type]; perf: keep only "
            "samples of this event [default: the first sample's, as stackcollapse-perf.pl]; an event the profile lacks "
            "is an error"),
      choice(value("--total", "METHOD",
                   "how totals of sampled stacks are computed: callratios (gprof2dot's call-ratio integration, "
                   "slow on a cycle of thousands of functions) or callstacks (share of samples whose stack holds "
                   "the function; immediate)",
                   total_name(GraphOptions{}.total)),
             {"callratios", "callstacks"}),
      choice(value("--weight", "WEIGHT",
                   "perf: count each sample once (samples, as gprof2dot) or weigh it by its period (period, as "
                   "FlameGraph)",
                   read.weight_by_period ? "period" : "samples"),
             {"samples", "period"}),
      list("--pid", "ID",
           "perf: keep only samples of this process or thread id (repeatable); the id perf prints, pid of 'pid/tid' "
           "headers"),
      list("--comm", "NAME", "perf: keep only samples of this command name (repeatable), e.g. under mpirun"),
      flag("--fold-unknown",
           "perf: one [unknown] function per DSO, a run of unresolved frames one frame, instead of a node per "
           "address [default: apart by address, as gprof2dot names them]"),
      python,
      no_python,
      flag("--merge-by-name",
           "callgrind: identify functions by name alone, as gprof2dot does, merging same-named functions of "
           "different objects (e.g. malloc in ld.so and libc)"),
  };
  for (OptionSpec& o : out) o.front_ends &= ~kRun;
  return out;
}

std::vector<OptionSpec> writer_options() {
  OptionSpec callers = flag("--callers", "stats output: each function's callers (print_callers)");
  callers.excludes = {"callees"};
  OptionSpec callees = flag("--callees", "stats output: each function's callees (print_callees)");
  callees.excludes = {"callers"};
  return {
      value("--unit", "SECONDS:POSITIVE", "text output: seconds per unit of the Time columns (line_profiler's -u)",
            shown(lprof::TextOptions{}.output_unit), kEvery & ~kRun),
      flag("--skip-zero", "text output: leave out functions that never ran (line_profiler's -z)", kEvery & ~kRun),
      value("--source-root", "DIR",
            "text output: read the source files a profile names only under this folder (always only regular text "
            "files; as root, without it, only files everyone may read) [default: where the profile says]",
            {}, kEvery & ~kRun),
      flag("--no-source", "text output: read no source file the profile names; show the timed lines only",
           kEvery & ~kRun),
      flag("--keep-going",
           "when merging, skip inputs that cannot be read (empty or broken files), listed in one warning",
           kGraphgen | kMpi),
      value("--top", "N",
            "ranks, ranks.csv, ranks.json and heatmap outputs: show the N functions of highest imbalance; stats: the "
            "first N lines; html: rows of its ranks table [default: 25 in the table, 30 in the heatmap, all in CSV "
            "and JSON, 200 in html]"),
      in_run(
          "-s,--sort",
          choice(
              list("--sort", "KEY",
                   "stats output: sort by this pstats key, repeatable (calls, cumulative, file, line, name, nfl, "
                   "pcalls, stdname, time ..., or a prefix pstats takes for one: tot, cu) [default: cumulative]; of a "
                   "tracemalloc snapshot, group by lineno, "
                   "traceback or filename, as Snapshot.statistics does [default: lineno]. In graphgen run also -s, as "
                   "python -m cProfile -s KEY: without -o, this table is printed when the program ends"),
              [] {
                std::vector<std::string> keys = stats::sort_keys();
                for (const char* k : {"lineno", "traceback"})
                  if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
                return keys;
              }(),
              stats::names_sort_key)),
      list("--restrict", "R",
           "stats output: a pstats restriction, repeatable, in order: N lines, a fraction in [0, 1), or a regular "
           "expression the file:line(function) must contain, in Python's re syntax (searched with the embedded "
           "CPython's re, as pstats does; a build without Python refuses Python-only syntax)"),
      flag("--strip-dirs", "stats output: file names without their folders (pstats' strip_dirs)"),
      callers,
      callees,
      flag("--imbalance",
           "graph outputs of several inputs (one per MPI rank): colour each function by how unevenly the ranks spend "
           "its time (Imb%) and add a line 'imb 23% (max r5, min r61)'",
           kEvery & ~kRun),
      flag("--flame-reverse",
           "flame output: the root at the top and callees below it (an icicle), instead of a flame that grows up "
           "from the bottom"),
  };
}

std::vector<OptionSpec> run_options() {
  OptionSpec slower =
      flag("--compare-only-slower",
           "with --compare: mark only the functions that got slower (whose total share grew, with --compare-by share)",
           kGraphgen);
  slower.excludes = {"compare-only-faster"};
  OptionSpec faster = flag(
      "--compare-only-faster",
      "with --compare: mark only the functions that got faster (whose total share shrank, with --compare-by share)",
      kGraphgen);
  faster.excludes = {"compare-only-slower"};
  constexpr unsigned kNotPython = kEvery & ~kPython;
  return {
      flag("--each",
           "convert every input on its own to its own output, in parallel, instead of merging them; -o is a "
           "template: {stem} (cpu_3.prof -> cpu_3), {name}, {dir}, {rank} (the last number in the name), {index}; "
           "folders are made as needed. One failure does not stop the others; the exit status says whether any "
           "failed",
           kGraphgen),
      value("--jobs", "N:POSITIVE", "with --each: how many inputs to convert at once [default: one per core]", {},
            kGraphgen),
      flag("--compare",
           "compare two profiles of (almost) the same program, the two inputs (before, after; each a file, a folder "
           "or a quoted pattern): a graph of both with each function's cost before and after (--compare-by), "
           "-T compare or compare.csv or html for tables, -T flame for a differential flame graph, -T folded for "
           "difffolded.pl's columns; functions pair by identity, then by name and file, name and object, name",
           kGraphgen),
      choice(value("--compare-by", "HOW",
                   "with --compare, a graph: absolute (each function's cost before and after in the event's unit, "
                   "coloured by its relative change: blue faster, red slower) or share (gprof2dot's: each "
                   "function's share of the total and how far it moved)",
                   "absolute", kGraphgen),
             {"absolute", "share"}),
      value("--compare-tolerance", "PCT:POSITIVE",
            "with --compare: differences below this many percentage points (--compare-by share) or percent of the "
            "cost before (absolute) count as none",
            shown(dot::CompareOptions{}.tolerance), kGraphgen),
      slower,
      faster,
      flag("--compare-color-by-difference",
           "with --compare: colour functions by how much their cost (--compare-by share: total share) changed, "
           "against the largest change, instead of by their relative change (share: by time)",
           kGraphgen),
      flag("--normalize",
           "with --compare -T folded or -T flame: scale the first profile's counts so its total is the second's, as "
           "difffolded.pl -n does (recordings of different lengths)",
           kGraphgen),
      value("--max-memory", "SIZE",
            "the most memory a profile read and an output written may take, e.g. 512M or 8G [default: 64 MiB plus 32 "
            "times the input's size]; past it graphgen stops with one line instead of exhausting the machine"),
      flag("-k,--kcachegrind",
           "open the output in KCacheGrind (kcachegrind or qcachegrind, whichever is on PATH) when it is written; "
           "the output is callgrind, in a temporary file unless -o names one (pyprof2calltree's -k)",
           kGraphgen | kRun),
      flag("--timings", "print the time each phase took (read, analyse, write) and the peak memory so far, on stderr",
           kGraphgen | kRun),
      flag("-q,--quiet", "do not print warnings, nor progress lines (a terminal gets them after two seconds)",
           kNotPython),
  };
}

// The options --help shows (the most used); --help-all shows every group.
constexpr const char* kCommon[] = {"input",      "output",   "to",          "format", "node-thres",
                                   "edge-thres", "colormap", "root",        "leaf",   "focus",
                                   "each",       "compare",  "kcachegrind", "quiet",  "sort"};

std::vector<OptionSpec> build_specs() {
  std::vector<OptionSpec> all;
  const std::pair<std::vector<OptionSpec> (*)(), const char*> parts[] = {
      {inputs_and_outputs, "Input and output"},
      {graph_options, "The call graph"},
      {filter_options, "Selecting functions and stacks"},
      {reader_options, "Reading (perf, callgrind, pprof, TAU, CUBE, .cpuprofile)"},
      {writer_options, "Tables and reports (stats, text, ranks, flame)"},
      {run_options, "Several inputs, comparing, and the rest"}};
  for (auto [part, group] : parts)
    for (OptionSpec& s : part()) {
      s.group = group;
      all.push_back(std::move(s));
    }
  for (OptionSpec& s : all) {
    s.key = key_of(s.names);
    s.common = std::find(std::begin(kCommon), std::end(kCommon), s.key) != std::end(kCommon);
  }
  return all;
}

}  // namespace

const std::vector<OptionSpec>& option_specs() {
  static const std::vector<OptionSpec> specs = build_specs();
  return specs;
}

const OptionSpec* find_option(std::string_view key) {
  for (const OptionSpec& s : option_specs())
    if (s.key == key) return &s;
  return nullptr;
}

namespace {

// What was given, by key, in order.
class Given {
 public:
  explicit Given(const Settings& settings) : settings_(settings) {}

  const std::string* value(std::string_view key) const {
    const std::string* last = nullptr;
    for (const auto& [k, v] : settings_)
      if (k == key) last = &v;
    return last;
  }
  bool flag(std::string_view key) const { return value(key) != nullptr; }
  std::vector<std::string> list(std::string_view key) const {
    std::vector<std::string> out;
    for (const auto& [k, v] : settings_)
      if (k == key) out.push_back(v);
    return out;
  }
  std::string text(std::string_view key) const {
    const std::string* v = value(key);
    return v ? *v : std::string();
  }

 private:
  const Settings& settings_;
};

Error expected_found(const OptionSpec& spec, std::string_view expected, std::string_view found) {
  return bad_usage(fmt::format("--{}: expected {}, found {}", spec.key, expected, quote_input(found)));
}

// A number of type T from the whole of `text`, or the usage error.
template <class T>
Expected<T> number(const OptionSpec& spec, const std::string& text, std::string_view expected) {
  T v{};
  const char* end = text.data() + text.size();
  auto [at, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || at != end || text.empty()) return expected_found(spec, expected, text);
  if constexpr (std::is_floating_point_v<T>)
    if (!std::isfinite(v)) return expected_found(spec, expected, text);
  return v;
}

// Each key known, each single option given once, each value one of its
// choices, no two options that exclude each other.
Expected<bool> check_settings(const Settings& settings) {
  for (std::size_t i = 0; i < settings.size(); ++i) {
    const auto& [key, value] = settings[i];
    const OptionSpec* spec = find_option(key);
    if (!spec) return bad_usage(fmt::format("unknown option {}", quote_input("--" + key)));
    if (spec->kind == OptionKind::kFlag && value != "true") return expected_found(*spec, "no value (a flag)", value);
    // (Lists repeat their key: 100 000 inputs are not compared pairwise.)
    if (spec->kind != OptionKind::kList)
      for (std::size_t j = 0; j < i; ++j)
        if (settings[j].first == key) return bad_usage(fmt::format("--{} is given twice; give it once", key));
    if (!spec->choices.empty() && std::find(spec->choices.begin(), spec->choices.end(), value) == spec->choices.end() &&
        !(spec->also_accepts && spec->also_accepts(value))) {
      std::string all;
      for (const std::string& c : spec->choices) all += (all.empty() ? "" : ", ") + c;
      return expected_found(*spec, "one of " + all, value);
    }
    for (const std::string& other : spec->excludes)
      for (const auto& s : settings)
        if (s.first == other) return bad_usage(fmt::format("--{} and --{} exclude each other", key, other));
  }
  return true;
}

// "512M", "2G", "1500000": bytes, binary suffixes.
Expected<std::size_t> parse_size(const OptionSpec& spec, const std::string& text) {
  std::size_t end = 0;
  double v = 0;
  try {
    v = std::stod(text, &end);
  } catch (...) {
    end = 0;
  }
  std::string unit = text.substr(end);
  double scale = unit.empty() || unit == "B"    ? 1
                 : unit == "K" || unit == "KiB" ? 1024.0
                 : unit == "M" || unit == "MiB" ? 1048576.0
                 : unit == "G" || unit == "GiB" ? 1073741824.0
                 : unit == "T" || unit == "TiB" ? 1099511627776.0
                                                : -1;
  if (end == 0 || scale < 0 || !(v > 0) || v * scale > 1.8e19)
    return expected_found(spec, "a size such as 512M or 4G", text);
  return static_cast<std::size_t>(v * scale);
}

// The reading, filtering and graph settings.
Expected<bool> read_and_graph(const Given& g, Request& r) {
  r.input_format = g.text("format");
  r.read.event = r.event = g.text("event");
  if (const std::string* w = g.value("weight")) r.read.weight_by_period = *w == "period";
  r.read.merge_by_name = g.flag("merge-by-name");
  for (const std::string& pid : g.list("pid")) {
    auto id = number<std::int64_t>(*find_option("pid"), pid, "a process or thread id");
    if (!id) return id.error();
    r.read.pids.push_back(*id);
  }
  r.read.comms = g.list("comm");
  r.read.fold_unknown = g.flag("fold-unknown");
  using PythonView = ReadOptions::PythonView;
  r.read.python = g.flag("python") ? PythonView::kOn : g.flag("no-python") ? PythonView::kOff : PythonView::kAuto;
  r.filters = {g.list("focus"), g.list("ignore"), g.list("hide"), g.list("show")};
  if (auto ok = check_filters(r.filters); !ok) return ok.error();
  r.list_functions = g.text("list-functions");
  // Readers keep the detail only the writers that show it need: per-line
  // and per-address costs held 190 MB and took 0.7 s of pydoc-sep3's read
  // for -T pstats, which writes none of them (a graph: 23 MB, 0.03 s).
  r.read.graph_only = r.output->needs == Needs::kGraph || !r.list_functions.empty();
  r.read.keep_positions = r.output->positions && !r.read.graph_only;
  // Sample stacks are kept only for the outputs that draw them, and for
  // the filters, which are exact on them.
  r.read.keep_stacks = r.output->needs == Needs::kStacks || r.output->needs == Needs::kReport ||
                       r.output->needs == Needs::kTimeline || !r.filters.empty();
  r.read.keep_timeline = r.output->needs == Needs::kTimeline;

  GraphOptions& graph = r.graph;
  if (const std::string* t = g.value("total"))
    graph.total = *t == "callstacks" ? TotalMethod::kCallStacks : TotalMethod::kCallRatios;
  for (auto [key, field] : {std::pair{"node-thres", &graph.prune.node_threshold_percent},
                            std::pair{"edge-thres", &graph.prune.edge_threshold_percent}})
    if (const std::string* v = g.value(key)) {
      auto pct = number<double>(*find_option(key), *v, "a percentage in [0, 100]");
      if (!pct) return pct.error();
      if (*pct < 0 || *pct > 100) return expected_found(*find_option(key), "a percentage in [0, 100]", *v);
      *field = *pct;
    }
  graph.prune.paths = g.list("path");
  graph.prune.color_nodes_by_selftime = g.flag("color-nodes-by-selftime");
  graph.root = g.text("root");
  graph.leaf = g.text("leaf");
  if (const std::string* v = g.value("depth")) {
    auto depth = number<int>(*find_option("depth"), *v, "a whole number, -1 for no limit");
    if (!depth) return depth.error();
    if (*depth < -1) return expected_found(*find_option("depth"), "a whole number, -1 for no limit", *v);
    graph.depth = *depth;
  }
  if (const std::string* v = g.value("node-count")) {
    auto count = number<std::size_t>(*find_option("node-count"), *v, "a count of nodes, 0 for all");
    if (!count) return count.error();
    graph.node_count = *count;
  }
  return true;
}

// What the writers are told.
Expected<bool> write_settings(const Given& g, const std::vector<std::string>& inputs, Request& r) {
  WriteOptions& w = r.write;
  w.dot.strip = g.flag("strip");
  w.dot.wrap = g.flag("wrap");
  w.dot.show_samples = g.flag("show-samples");
  w.dot.collapse_chains_over = g.flag("no-collapse-chains") ? 0 : GraphOptions{}.large_graph;
  if (const std::string* f = g.value("time-format")) {
    if (auto ok = dot::check_time_format(*f); !ok) return ok.error();
    w.dot.time_format = *f;
  }
  if (std::vector<std::string> labels = g.list("node-label"); !labels.empty()) {
    w.dot.node_labels.clear();
    for (const std::string& name : labels) {
      dot::Measure m;
      dot::parse_measure(name, m);  // a choice, checked
      w.dot.node_labels.push_back(m);
    }
  }
  if (const std::string* c = g.value("colormap")) w.theme = *find_theme(*c);
  if (const std::string* v = g.value("skew")) {
    auto skew = number<double>(*find_option("skew"), *v, "a number not below 0");
    if (!skew) return skew.error();
    if (*skew < 0) return expected_found(*find_option("skew"), "a number not below 0", *v);
    if (*skew != 0) w.theme.skew = *skew;  // gprof2dot ignores a zero skew
  }
  w.title = w.cmd = joined_inputs(inputs);
  w.creator = std::string("graphgen ") + GRAPHGEN_VERSION;
  if (const std::string* v = g.value("unit")) {
    auto unit = number<double>(*find_option("unit"), *v, "a positive number of seconds");
    if (!unit) return unit.error();
    if (!(*unit > 0)) return expected_found(*find_option("unit"), "a positive number of seconds", *v);
    w.text.output_unit = *unit;
  }
  w.text.skip_zero = g.flag("skip-zero");
  w.text.source_root = g.text("source-root");
  w.text.no_source = g.flag("no-source");
  if (const std::string* v = g.value("top")) {
    auto top = number<std::size_t>(*find_option("top"), *v, "a count of functions");
    if (!top) return top.error();
    // (0 meant every line of the stats and the default count of the ranks
    // table, silently: a count is at least 1.)
    if (*top == 0) return expected_found(*find_option("top"), "a count of functions of at least 1", *v);
    w.top = *top;
  }
  w.stats.sort = g.list("sort");
  w.stats.restrictions = g.list("restrict");
  if (w.top) w.stats.restrictions.push_back(std::to_string(w.top));
  w.stats.strip_dirs = g.flag("strip-dirs");
  w.stats.report = g.flag("callers")   ? stats::Report::kCallers
                   : g.flag("callees") ? stats::Report::kCallees
                                       : stats::Report::kStats;
  if (r.output->name != "stats" &&
      (g.value("sort") || g.value("restrict") || g.flag("strip-dirs") || g.flag("callers") || g.flag("callees")))
    return bad_usage("--sort, --restrict, --strip-dirs, --callers and --callees shape -T stats, pstats' report");
  w.imbalance = g.flag("imbalance");
  w.flame_reverse = g.flag("flame-reverse");
  return true;
}

// --each, --jobs and --compare.
Expected<bool> run_settings(const Given& g, Options& o) {
  o.each = g.flag("each");
  if (const std::string* v = g.value("jobs")) {
    auto jobs = number<unsigned>(*find_option("jobs"), *v, "a positive number of jobs");
    if (!jobs) return jobs.error();
    if (*jobs == 0) return expected_found(*find_option("jobs"), "a positive number of jobs", *v);
    if (!o.each) return bad_usage("--jobs goes with --each");
    o.jobs = *jobs;
  }
  Request& r = o.request;
  r.compare = g.flag("compare");
  if (const std::string* v = g.value("compare-tolerance")) {
    auto tolerance = number<double>(*find_option("compare-tolerance"), *v, "a positive number of percentage points");
    if (!tolerance) return tolerance.error();
    if (!(*tolerance > 0))
      return expected_found(*find_option("compare-tolerance"), "a positive number of percentage points", *v);
    r.compare_options.tolerance = *tolerance;
  }
  r.compare_options.only_slower = g.flag("compare-only-slower");
  r.compare_options.only_faster = g.flag("compare-only-faster");
  r.compare_options.color_by_difference = g.flag("compare-color-by-difference");
  r.compare_options.normalize = g.flag("normalize");
  if (const std::string* v = g.value("compare-by"))
    r.compare_options.by = *v == "share" ? dot::CompareBy::kShare : dot::CompareBy::kAbsolute;
  if (!r.compare && (g.value("compare-tolerance") || g.value("compare-by") || g.flag("compare-only-slower") ||
                     g.flag("compare-only-faster") || g.flag("compare-color-by-difference") || g.flag("normalize")))
    return bad_usage(
        "--compare-by, --compare-tolerance, --compare-only-slower, --compare-only-faster, "
        "--compare-color-by-difference and --normalize go with --compare A B");
  if (const std::string* v = g.value("max-memory")) {
    auto size = parse_size(*find_option("max-memory"), *v);
    if (!size) return size.error();
    r.max_memory = *size;
  }
  r.keep_going = g.flag("keep-going");
  return true;
}

}  // namespace

std::string joined_inputs(const std::vector<std::string>& inputs) {
  std::string s;
  if (inputs.size() <= 8) {
    for (const std::string& in : inputs) s += (s.empty() ? "" : " ") + in;
    return s;
  }
  for (std::size_t i = 0; i < 3; ++i) s += (s.empty() ? "" : " ") + inputs[i];
  return fmt::format("{} ... {} ({} inputs)", s, inputs.back(), inputs.size());
}

Expected<Options> make_options(const Settings& settings, Diagnostics& diag) {
  if (auto ok = check_settings(settings); !ok) return ok.error();
  const Given g(settings);
  Options o;
  // (An empty name: a variable unset in a script, `-o "$OUT"`; as a path it
  // said only ": cannot write: No such file or directory".)
  if (const std::string* out = g.value("output"); out && out->empty())
    return expected_found(*find_option("output"), "a file name (or - for standard output)", *out);
  o.output = g.value("output") ? g.text("output") : std::string("-");
  o.kcachegrind = g.flag("kcachegrind");
  o.timings = g.flag("timings");
  o.quiet = g.flag("quiet");
  Request& r = o.request;
  const std::vector<std::string> given_inputs = g.list("input");
  if (g.flag("compare") && given_inputs.size() == 2) {
    // Each side expands on its own (a folder, a quoted pattern): several
    // files a side merge before they compare.
    for (const std::string& side : given_inputs) {
      auto files = expand_inputs({side});
      if (!files) return files.error();
      callgrind_parts(*files, diag);
      if (r.inputs.empty()) r.compare_split = files->size();
      r.inputs.insert(r.inputs.end(), files->begin(), files->end());
    }
    r.compare_sides = given_inputs;
  } else {
    auto inputs = expand_inputs(given_inputs);
    if (!inputs) return inputs.error();
    r.inputs = std::move(inputs).value();
    callgrind_parts(r.inputs, diag);
  }
  const std::string to = g.text("to");
  auto output = o.kcachegrind && to.empty() && o.output == "-" ? Expected<const OutputFormat*>(&kcachegrind_format())
                                                               : resolve_output_format(to, o.output, diag);
  if (!output) return output.error();
  r.output = *output;
  if (o.kcachegrind && r.output != &kcachegrind_format())
    return bad_usage(
        fmt::format("-k opens KCacheGrind on callgrind output, and -o {} asks for {}; leave out -o or "
                    "give a .callgrind name",
                    quote_input(o.output), r.output->name));
  if (auto ok = read_and_graph(g, r); !ok) return ok.error();
  if (auto ok = write_settings(g, given_inputs, r); !ok) return ok.error();
  if (auto ok = run_settings(g, o); !ok) return ok.error();
  return o;
}

}  // namespace graphgen::pipeline
