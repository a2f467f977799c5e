// graphgen: read profiles, build one call graph, write what the user wants.
// Option names and defaults follow gprof2dot so its users need not relearn.
// This file only maps the command line to a pipeline request and prints what
// comes back: formats and passes live in the library (formats/pipeline.h).
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "dot/dot_writer.h"
#include "each.h"
#include "graphgen/analysis/theme.h"
#include "graphgen/io.h"
#include "pipeline.h"
#include "registry.h"

namespace {

using namespace graphgen;

constexpr int kExitOk = 0;
constexpr int kExitBadInput = 1;
constexpr int kExitBadUsage = 2;

std::string join(const std::vector<std::string_view>& items, std::string_view sep = ", ") {
  std::string out;
  for (std::string_view s : items) {
    if (!out.empty()) out += sep;
    out += s;
  }
  return out;
}

std::vector<std::string> to_strings(const std::vector<std::string_view>& items) { return {items.begin(), items.end()}; }

struct Args {
  std::vector<std::string> inputs;
  std::string output = "-";
  std::string format;
  std::string to;
  double node_thres = 0.5;
  double edge_thres = 0.1;
  std::string colormap = "color";
  bool strip = false;
  bool wrap = false;
  bool color_by_self = false;
  bool show_samples = false;
  std::vector<std::string> node_labels;
  std::string time_format = "%.7g";
  std::string root;
  std::string leaf;
  int depth = -1;
  double skew = 1.0;
  std::vector<std::string> paths;
  std::string list_functions;
  std::size_t node_count = 0;
  std::string event;
  std::string total = "callratios";
  std::string weight = "samples";
  std::vector<std::int64_t> pids;
  std::vector<std::string> comms;
  bool merge_by_name = false;
  double unit = 1e-6;
  bool skip_zero = false;
  std::string source_root;
  bool keep_going = false;
  std::string max_memory;
  std::size_t top = 0;
  bool imbalance = false;
  bool compare = false;
  bool each = false;
  unsigned jobs = 0;
  double tolerance = 0.001;
  bool only_slower = false, only_faster = false, color_by_difference = false;
  bool timings = false;
  bool quiet = false;
};

// Every message is one line, whatever a file name or an input held.
int fail(const Error& e) {
  std::fflush(stdout);
  std::string message = one_line(e.message);
  if (e.kind == Error::Kind::kBadUsage)
    std::fprintf(stderr, "graphgen: error: %s\n", message.c_str());
  else
    std::fprintf(stderr, "%s\n", message.c_str());
  return e.kind == Error::Kind::kBadUsage ? kExitBadUsage : kExitBadInput;
}

void report(const Diagnostics& diag, bool quiet) {
  if (quiet) return;
  for (const std::string& w : diag.warnings()) spdlog::warn("{}", one_line(w));
}

// "512M", "2G", "1500000": bytes, binary suffixes.
Expected<std::size_t> parse_size(const std::string& text) {
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
    return bad_usage(fmt::format("--max-memory {}: expected a size such as 512M or 4G, found {}", quote_input(text),
                                 quote_input(text)));
  return static_cast<std::size_t>(v * scale);
}

std::string joined_inputs(const std::vector<std::string>& inputs) {
  std::string s;
  for (const std::string& in : inputs) s += (s.empty() ? "" : " ") + in;
  return s;
}

// The request the command line asks for, or the usage error.
Expected<formats::Request> make_request(const Args& a, Diagnostics& diag) {
  formats::Request r;
  r.inputs = a.inputs;
  r.input_format = a.format;
  auto output = formats::resolve_output_format(a.to, a.output, diag);
  if (!output) return output.error();
  r.output = *output;
  if (a.skew < 0) return bad_usage(fmt::format("--skew must not be negative, found {}", a.skew));
  if (auto ok = dot::check_time_format(a.time_format); !ok) return ok.error();

  r.read.event = a.event;
  r.read.weight_by_period = a.weight == "period";
  r.read.merge_by_name = a.merge_by_name;
  r.read.pids = a.pids;
  r.read.comms = a.comms;
  // Readers keep the detail only writers of the whole profile show.
  r.read.keep_positions = r.output->needs != formats::Needs::kGraph && a.list_functions.empty();
  r.read.keep_stacks = false;
  r.event = a.event;

  r.graph.total = a.total == "callstacks" ? formats::TotalMethod::kCallStacks : formats::TotalMethod::kCallRatios;
  r.graph.node_threshold_percent = a.node_thres;
  r.graph.edge_threshold_percent = a.edge_thres;
  r.graph.paths = a.paths;
  r.graph.color_nodes_by_selftime = a.color_by_self;
  r.graph.root = a.root;
  r.graph.leaf = a.leaf;
  r.graph.depth = a.depth;
  r.graph.node_count = a.node_count;
  r.list_functions = a.list_functions;
  r.keep_going = a.keep_going;
  if (!a.max_memory.empty()) {
    auto size = parse_size(a.max_memory);
    if (!size) return size.error();
    r.max_memory = *size;
  }

  formats::WriteOptions& w = r.write;
  w.dot.strip = a.strip;
  w.dot.wrap = a.wrap;
  w.dot.show_samples = a.show_samples;
  w.dot.time_format = a.time_format;
  if (!a.node_labels.empty()) {
    w.dot.node_labels.clear();
    for (const std::string& name : a.node_labels) {
      dot::Measure m;
      dot::parse_measure(name, m);  // CLI11 already checked membership
      w.dot.node_labels.push_back(m);
    }
  }
  w.theme = *find_theme(a.colormap);
  if (a.skew != 0) w.theme.skew = a.skew;  // gprof2dot ignores a zero skew
  w.title = joined_inputs(a.inputs);
  w.creator = std::string("graphgen ") + GRAPHGEN_VERSION;
  w.cmd = joined_inputs(a.inputs);
  w.text_unit = a.unit;
  w.skip_zero = a.skip_zero;
  w.source_root = a.source_root;
  w.top = a.top;
  w.imbalance = a.imbalance;
  r.compare = a.compare;
  r.compare_options = {a.tolerance, a.only_slower, a.only_faster, a.color_by_difference};
  if (a.jobs && !a.each) return bad_usage("--jobs goes with --each");
  if (!a.compare && (a.only_slower || a.only_faster || a.color_by_difference || a.tolerance != 0.001))
    return bad_usage(
        "--compare-tolerance, --compare-only-slower, --compare-only-faster and "
        "--compare-color-by-difference go with --compare A B");
  return r;
}

// --each: every input to its own output, on all cores; one line per failure,
// progress on a terminal, and the worst failure's exit status.
int run_each(const Args& a, const formats::Request& request) {
  const bool progress = ::isatty(STDERR_FILENO) && !a.quiet;
  std::size_t failed = 0;
  int status = kExitOk;
  auto results = formats::run_each(request, a.output, a.jobs, [&](const formats::EachResult& r, std::size_t done) {
    if (progress) std::fprintf(stderr, "\r\033[K");
    if (!a.quiet)
      for (const std::string& w : r.warnings) spdlog::warn("{}", one_line(w));
    if (!r.ok) {
      ++failed;
      int code = fail(Error{r.kind, r.error});
      status = std::max(status, code);
    }
    if (progress)
      std::fprintf(stderr, "graphgen: --each: %zu of %zu done%s", done, request.inputs.size(),
                   failed ? fmt::format(", {} failed", failed).c_str() : "");
  });
  if (progress) std::fprintf(stderr, "\r\033[K");
  if (!results) return fail(results.error());
  if (failed && !a.quiet)
    spdlog::warn("--each: {} of {} inputs failed; the other {} outputs are written", failed, results->size(),
                 results->size() - failed);
  return status;
}

int run(const Args& a) {
  Diagnostics diag;
  auto request = make_request(a, diag);
  report(diag, a.quiet);
  diag.clear();
  if (!request) return fail(request.error());
  if (a.each) return run_each(a, *request);
  if (a.list_functions.empty())
    if (auto ok = check_output_is_not_an_input(a.output, a.inputs); !ok) return fail(ok.error());
  auto output = formats::convert(*request, diag);
  report(diag, a.quiet);
  if (!output) return fail(output.error());
  // --list-functions prints to standard output whatever -o says.
  auto written = write_output(a.list_functions.empty() ? a.output : "-", output->bytes);
  if (!written) return fail(written.error());
  if (a.timings)
    for (const auto& [phase, seconds] : output->phases)
      std::fprintf(stderr, "graphgen: timing: %-8s %8.3f s\n", phase.c_str(), seconds);
  return kExitOk;
}

// Help and version text, checked like every other output (`> /dev/full`).
int print_or_fail(const std::string& text) {
  auto written = write_output("-", text);
  return written ? kExitOk : fail(written.error());
}

// A repeatable option takes exactly one value each time, as argparse's
// `append` does, so `-p DIR prof.pstats` keeps prof.pstats an input.
template <class T>
CLI::Option* repeatable(CLI::App& app, const std::string& names, std::vector<T>& into, const std::string& help) {
  return app.add_option(names, into, help)
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

}  // namespace

int main(int argc, char** argv) {
  auto logger = spdlog::stderr_logger_st("graphgen");
  logger->set_pattern("graphgen: %l: %v");
  spdlog::set_default_logger(logger);

  Args a;
  CLI::App app{
      "Reads profiles (Python pstats, valgrind callgrind, perf script, collapsed stacks, line_profiler,\n"
      "and gprof2dot's other formats: gprof, VTune, HPROF, JSON, Very Sleepy, sysprof, xperf, DTrace;\n"
      "several files of one format merge), builds one call graph and writes it as Graphviz dot (the\n"
      "default, equal by meaning to gprof2dot's), as an image rendered in-process, or converts the\n"
      "whole profile to callgrind (KCacheGrind), pstats, line_profiler's text report, or per-rank\n"
      "statistics of MPI ranks.\n"
      "Options follow gprof2dot's names and defaults; thresholds and selections apply to graph\n"
      "outputs only.",
      "graphgen"};
  app.set_version_flag("--version", std::string("graphgen ") + GRAPHGEN_VERSION);
  app.get_formatter()->column_width(34);
  std::string outputs;
  for (const formats::OutputFormat& f : formats::output_formats()) {
    std::string exts;
    for (std::string_view e : f.extensions) exts += (exts.empty() ? "" : " ") + std::string(e);
    outputs += fmt::format("  {:<10} {:<12} {}\n", f.name, exts, f.description);
  }
  app.footer(
      "Output formats (-T NAME, or the -o extension; callgrind.out.* is callgrind; any other name,\n"
      "and standard output, get dot):\n" +
      outputs +
      "Examples:\n"
      "  graphgen out.pstats -o out.png              render a cProfile dump\n"
      "  graphgen -f pstats out.pstats | dot -Tsvg   gprof2dot-compatible dot on stdout\n"
      "  graphgen cpu_*.prof -o merged.pstats        merge per-rank profiles (as pstats.Stats)\n"
      "  graphgen cpu_*.prof -T ranks                per-function load imbalance across the ranks\n"
      "  graphgen --each cpu_*.prof -o 'png/{stem}.png'  one picture per rank, on every core\n"
      "  graphgen --compare before.prof after.prof   what changed between two runs\n"
      "  graphgen out.pstats -o out.callgrind        open a Python profile in KCacheGrind\n"
      "  graphgen -T text app.py.lprof               line_profiler's report, without Python\n"
      "  graphgen -n 0 -e 0 -z 'app:*:main' x.pstats everything below main\n"
      "Exit status: 0 ok, 1 bad or unreadable input, 2 bad usage.");

  app.add_option("input", a.inputs,
                 "profile file(s), or - for standard input; several files of one format are merged; gzip, "
                 "bzip2, xz and zstd files are read as they are")
      ->required()
      ->type_name("FILE");
  app.add_option("-o,--output", a.output,
                 "write here instead of standard output; the name picks the output format unless -T is given "
                 "(see Output formats below); devices, FIFOs and /dev/stdout are written through, links followed")
      ->type_name("FILE");
  app.add_option("-f,--format", a.format,
                 "input format: " + join(formats::input_format_names()) + " [default: detected from the file's bytes]")
      ->check(CLI::IsMember(to_strings(formats::input_format_names())))
      ->type_name("FORMAT");
  app.add_option("-T,--to", a.to,
                 "output format: " + join(formats::output_format_names()) + " [default: from the -o name, else dot]")
      ->check(CLI::IsMember(to_strings(formats::output_format_names())))
      ->type_name("FORMAT");
  app.add_option("-n,--node-thres", a.node_thres, "drop functions whose total is below this % of the profile")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 100.0))
      ->type_name("PERCENTAGE");
  app.add_option("-e,--edge-thres", a.edge_thres, "drop calls whose total is below this % of the profile")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 100.0))
      ->type_name("PERCENTAGE");
  app.add_option("-c,--colormap", a.colormap, "colour map: " + join(theme_names()))
      ->capture_default_str()
      ->check(CLI::IsMember(to_strings(theme_names())))
      ->type_name("THEME");
  app.add_option("--skew", a.skew, "skew the colour curve: < 1 spreads out low percentages, > 1 compresses them")
      ->capture_default_str()
      ->type_name("FLOAT");
  app.add_flag("-s,--strip", a.strip, "strip parameters, template arguments and const from C++ names in labels");
  app.add_flag("-w,--wrap", a.wrap, "wrap function names longer than 32 characters");
  app.add_flag("--color-nodes-by-selftime,--colour-nodes-by-selftime", a.color_by_self,
               "colour nodes by self time instead of total time (pruning still uses total)");
  app.add_flag("--show-samples", a.show_samples, "show sample counts in node labels (sampling formats)");
  repeatable(app, "--node-label", a.node_labels,
             "measure shown in nodes, repeatable, in order: " + join(dot::measure_names()) +
                 " [default: total-time-percentage, self-time-percentage]")
      ->check(CLI::IsMember(to_strings(dot::measure_names())))
      ->type_name("MEASURE");
  app.add_option("--time-format", a.time_format, "printf-style format of times in labels")
      ->capture_default_str()
      ->type_name("FMT");
  app.add_option("-z,--root", a.root,
                 "keep only what this function (glob on labels, e.g. 'app:12:main') calls, directly or not")
      ->type_name("GLOB");
  app.add_option("-l,--leaf", a.leaf, "keep only the callers (direct or not) of this function (glob)")
      ->type_name("GLOB");
  app.add_option("--depth", a.depth, "with -z/-l: how many calls away to keep; -1 for no limit")
      ->capture_default_str()
      ->type_name("N");
  repeatable(app, "-p,--path", a.paths,
             "keep only functions whose file starts with PATH (repeatable; absolute paths), or whose module "
             "contains it")
      ->type_name("PATH");
  app.add_option("--node-count", a.node_count,
                 "after pruning, keep only the N nodes of highest total share (0: all); for big graphs")
      ->capture_default_str()
      ->type_name("N");
  app.add_option("--list-functions", a.list_functions,
                 "print the functions left after pruning and -z to standard output and stop: '+' or '*' lists "
                 "all with their ids, any other value is a glob on labels")
      ->type_name("SELECTOR");
  app.add_option("--event", a.event,
                 "callgrind: the event (cost column) to graph [default: the first]; perf: keep only samples of "
                 "this event [default: all]; an event the profile lacks is an error")
      ->type_name("NAME");
  app.add_option("--total", a.total,
                 "how totals of sampled stacks are computed: callratios (gprof2dot's call-ratio integration) or "
                 "callstacks (share of samples whose stack holds the function)")
      ->capture_default_str()
      ->check(CLI::IsMember({"callratios", "callstacks"}))
      ->type_name("METHOD");
  app.add_option("--weight", a.weight,
                 "perf: count each sample once (samples, as gprof2dot) or weigh it by its period (period, as "
                 "FlameGraph)")
      ->capture_default_str()
      ->check(CLI::IsMember({"samples", "period"}))
      ->type_name("WEIGHT");
  repeatable(app, "--pid", a.pids,
             "perf: keep only samples of this process or thread id (repeatable); the id perf prints, pid of "
             "'pid/tid' headers")
      ->type_name("ID");
  repeatable(app, "--comm", a.comms, "perf: keep only samples of this command name (repeatable), e.g. under mpirun")
      ->type_name("NAME");
  app.add_flag("--merge-by-name", a.merge_by_name,
               "callgrind: identify functions by name alone, as gprof2dot does, merging same-named functions of "
               "different objects (e.g. malloc in ld.so and libc)");
  app.add_option("--unit", a.unit, "text output: seconds per unit of the Time columns (line_profiler's -u)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber)
      ->type_name("SECONDS");
  app.add_flag("--skip-zero", a.skip_zero, "text output: leave out functions that never ran (line_profiler's -z)");
  app.add_option("--source-root", a.source_root,
                 "text output: read the source files a profile names only under this folder (always only "
                 "regular files) [default: where the profile says]")
      ->type_name("DIR");
  app.add_flag("--keep-going", a.keep_going,
               "when merging, skip inputs that cannot be read (empty or broken files), listed in one warning");
  app.add_option("--top", a.top,
                 "ranks, ranks.csv, ranks.json and heatmap outputs: show the N functions of highest imbalance "
                 "[default: 25 in the table, 30 in the heatmap, all in CSV and JSON]")
      ->type_name("N");
  app.add_flag("--imbalance", a.imbalance,
               "graph outputs of several inputs (one per MPI rank): colour each function by how unevenly the ranks "
               "spend its time (Imb%) and add a line 'imb 23% (max r5, min r61)'");
  app.add_flag("--each", a.each,
               "convert every input on its own to its own output, in parallel, instead of merging them; -o is a "
               "template: {stem} (cpu_3.prof -> cpu_3), {name}, {dir}, {rank} (the last number in the name), "
               "{index}; folders are made as needed. One failure does not stop the others; the exit status says "
               "whether any failed");
  app.add_option("--jobs", a.jobs, "with --each: how many inputs to convert at once [default: one per core]")
      ->type_name("N")
      ->check(CLI::PositiveNumber);
  app.add_flag("--compare", a.compare,
               "draw the differences between two profiles of (almost) the same program, the two inputs (before, "
               "after): each function found in both shows its shares and by how much the second differs, as "
               "gprof2dot's --compare; functions are matched by identity (name, module, file), not by label");
  app.add_option("--compare-tolerance", a.tolerance,
                 "with --compare: differences below this many percentage points count as none")
      ->check(CLI::PositiveNumber)
      ->default_val(0.001)
      ->type_name("PCT");
  auto* slower = app.add_flag("--compare-only-slower", a.only_slower,
                              "with --compare: mark only the functions whose total share grew in the second profile");
  auto* faster = app.add_flag("--compare-only-faster", a.only_faster,
                              "with --compare: mark only the functions whose total share shrank in the second profile");
  slower->excludes(faster);
  app.add_flag("--compare-color-by-difference", a.color_by_difference,
               "with --compare: colour functions by how much their total share changed (the largest change hottest) "
               "instead of by time");
  app.add_option("--max-memory", a.max_memory,
                 "the most memory a profile read and an output written may take, e.g. 512M or 8G [default: 64 MiB "
                 "plus 32 times the input's size]; past it graphgen stops with one line instead of exhausting the "
                 "machine")
      ->type_name("SIZE");
  app.add_flag("--timings", a.timings, "print the time each phase took (read, analyse, write) on stderr");
  app.add_flag("-q,--quiet", a.quiet, "do not print warnings");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    return print_or_fail(app.help());
  } catch (const CLI::CallForAllHelp&) {
    return print_or_fail(app.help());
  } catch (const CLI::CallForVersion& e) {
    return print_or_fail(std::string(e.what()) + "\n");
  } catch (const CLI::ParseError& e) {
    std::string what = e.what();
    for (char& c : what)
      if (c == '\n') c = ' ';
    std::fprintf(stderr, "graphgen: error: %s (see graphgen --help)\n", what.c_str());
    return kExitBadUsage;
  }
  try {
    return run(a);
  } catch (const std::bad_alloc&) {
    return fail(
        bad_input("graphgen: out of memory: this machine has less than these inputs need; --max-memory "
                  "sets a limit that fails earlier, with the step that needed it"));
  }
}
