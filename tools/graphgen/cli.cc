#include "cli.h"

#include <spdlog/spdlog.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "dot/dot_writer.h"
#include "graphgen/analysis/theme.h"
#include "graphgen/io.h"
#include "inputs.h"
#include "registry.h"

namespace graphgen::cli {

namespace {

std::string join(const std::vector<std::string_view>& items, std::string_view sep = ", ") {
  std::string out;
  for (std::string_view s : items) {
    if (!out.empty()) out += sep;
    out += s;
  }
  return out;
}

std::vector<std::string> to_strings(const std::vector<std::string_view>& items) { return {items.begin(), items.end()}; }

// A repeatable option takes exactly one value each time, as argparse's
// `append` does, so `-p DIR prof.pstats` keeps prof.pstats an input.
template <class T>
CLI::Option* repeatable(CLI::App& app, const std::string& names, std::vector<T>& into, const std::string& help) {
  return app.add_option(names, into, help)
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
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

// What a picture is of: the input arguments as given (a glob stays a
// glob), the first few and the last of a long list.
std::string joined_inputs(const std::vector<std::string>& inputs) {
  std::string s;
  if (inputs.size() <= 8) {
    for (const std::string& in : inputs) s += (s.empty() ? "" : " ") + in;
    return s;
  }
  for (std::size_t i = 0; i < 3; ++i) s += (s.empty() ? "" : " ") + inputs[i];
  return fmt::format("{} ... {} ({} inputs)", s, inputs.back(), inputs.size());
}

}  // namespace

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

// The request the command line asks for, or the usage error.
Expected<pipeline::Request> make_request(const Args& a, Diagnostics& diag) {
  pipeline::Request r;
  auto inputs = pipeline::expand_inputs(a.inputs);
  if (!inputs) return inputs.error();
  r.inputs = std::move(inputs).value();
  r.input_format = a.format;
  auto output = a.kcachegrind && a.to.empty() && a.output == "-"
                    ? Expected<const formats::OutputFormat*>(&formats::kcachegrind_format())
                    : pipeline::resolve_output_format(a.to, a.output, diag);
  if (!output) return output.error();
  r.output = *output;
  if (a.kcachegrind && r.output != &formats::kcachegrind_format())
    return bad_usage(
        fmt::format("-k opens KCacheGrind on callgrind output, and -o {} asks for {}; leave out -o or "
                    "give a .callgrind name",
                    quote_input(a.output), r.output->name));
  if (a.skew < 0) return bad_usage(fmt::format("--skew must not be negative, found {}", a.skew));
  if (auto ok = dot::check_time_format(a.time_format); !ok) return ok.error();

  r.read.event = a.event;
  r.read.weight_by_period = a.weight == "period";
  r.read.merge_by_name = a.merge_by_name;
  r.read.pids = a.pids;
  r.read.comms = a.comms;
  r.read.fold_unknown = a.fold_unknown;
  using PythonView = formats::ReadOptions::PythonView;
  r.read.python = a.python ? PythonView::kOn : a.no_python ? PythonView::kOff : PythonView::kAuto;
  r.filters = {a.focus, a.ignore, a.hide, a.show};
  if (auto ok = check_filters(r.filters); !ok) return ok.error();
  // Readers keep the detail only writers of the whole profile show.
  r.read.keep_positions = r.output->needs != formats::Needs::kGraph && a.list_functions.empty();
  // Sample stacks are kept only for the outputs that draw them.
  // (And for the filters, which are exact on them.)
  r.read.keep_stacks =
      r.output->needs == formats::Needs::kStacks || r.output->needs == formats::Needs::kReport || !r.filters.empty();
  r.event = a.event;

  r.graph.total = a.total == "callstacks" ? pipeline::TotalMethod::kCallStacks : pipeline::TotalMethod::kCallRatios;
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
  w.stats.sort = a.sort;
  w.stats.restrictions = a.restrictions;
  if (a.top) w.stats.restrictions.push_back(std::to_string(a.top));
  w.stats.strip_dirs = a.strip_dirs;
  w.stats.report = a.callers ? stats::Report::kCallers : a.callees ? stats::Report::kCallees : stats::Report::kStats;
  if (r.output->name != "stats" &&
      (!a.sort.empty() || !a.restrictions.empty() || a.strip_dirs || a.callers || a.callees))
    return bad_usage("--sort, --restrict, --strip-dirs, --callers and --callees shape -T stats, pstats' report");
  w.imbalance = a.imbalance;
  w.flame_reverse = a.flame_reverse;
  r.compare = a.compare;
  r.compare_options = {a.tolerance, a.only_slower, a.only_faster, a.color_by_difference};
  if (a.jobs && !a.each) return bad_usage("--jobs goes with --each");
  if (!a.compare && (a.only_slower || a.only_faster || a.color_by_difference || a.tolerance != 0.001))
    return bad_usage(
        "--compare-tolerance, --compare-only-slower, --compare-only-faster and "
        "--compare-color-by-difference go with --compare A B");
  return r;
}

// Help and version text, checked like every other output (`> /dev/full`).
Expected<std::string> kcachegrind_path(const Args& a) {
  if (a.output != "-") return a.output;
  const char* dir = std::getenv("TMPDIR");
  std::string path = std::string(dir && *dir ? dir : "/tmp") + "/graphgen-XXXXXX.callgrind";
  int fd = ::mkstemps(path.data(), 10);
  if (fd < 0)
    return io_error(fmt::format("-k: cannot make a temporary file for the profile: {}", std::strerror(errno)));
  ::close(fd);
  return path;
}

int open_in_kcachegrind(const std::string& path) {
  for (const char* viewer : {"kcachegrind", "qcachegrind"}) {
    std::string found;
    const char* env = std::getenv("PATH");
    std::string dirs = env ? env : "/usr/bin:/bin";
    for (std::size_t at = 0; at <= dirs.size();) {
      std::size_t colon = dirs.find(':', at);
      std::string dir = dirs.substr(at, colon == std::string::npos ? std::string::npos : colon - at);
      std::string candidate = (dir.empty() ? "." : dir) + "/" + viewer;
      if (::access(candidate.c_str(), X_OK) == 0) {
        found = candidate;
        break;
      }
      if (colon == std::string::npos) break;
      at = colon + 1;
    }
    if (found.empty()) continue;
    pid_t pid = ::fork();
    if (pid == 0) {
      ::execl(found.c_str(), viewer, path.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    int status = 0;
    if (pid < 0 || ::waitpid(pid, &status, 0) < 0) return fail(io_error(fmt::format("-k: cannot start {}", found)));
    return WIFEXITED(status) ? WEXITSTATUS(status) : kExitBadInput;
  }
  return fail(
      bad_input(fmt::format("-k: neither kcachegrind nor qcachegrind is on PATH (apt-get install "
                            "kcachegrind); the profile is in {}",
                            path)));
}

int print_or_fail(const std::string& text) {
  auto written = write_output("-", text);
  return written ? kExitOk : fail(written.error());
}

void add_options(CLI::App& app, Args& a) {
  app.add_option("input", a.inputs,
                 "profile file(s), or - for standard input; several files of one format are merged; gzip, "
                 "bzip2, xz and zstd files are read as they are. A folder stands for its files, a quoted glob "
                 "('ranks/cpu_*.prof') for its matches and @LIST for the paths listed in LIST, one per line (for "
                 "more files than a command line holds). With none, standard input is read when it is not a "
                 "terminal (`perf script | graphgen | dot -Tpng`, as gprof2dot reads it)")
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
  repeatable(app, "--focus", a.focus,
             "pprof's filters, before everything else, for every format and output: keep only the samples whose "
             "stack holds a function matching REGEX (repeatable; POSIX extended, searched in the name, label, file "
             "and object); call-graph formats keep the matches' callers and callees")
      ->type_name("REGEX");
  repeatable(app, "--ignore", a.ignore,
             "drop the samples whose stack holds a match (call-graph formats: the matches and what only they call)")
      ->type_name("REGEX");
  repeatable(app, "--hide", a.hide,
             "drop matching frames from the stacks, their cost going to their callers (call-graph formats: "
             "folded into their callers by call ratios)")
      ->type_name("REGEX");
  repeatable(app, "--show", a.show, "keep only matching frames: hide every other function")->type_name("REGEX");
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
                 "this event [default: the first sample's, as stackcollapse-perf.pl]; an event the profile lacks is "
                 "an error")
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
  app.add_flag("--fold-unknown", a.fold_unknown,
               "perf: one [unknown] function per DSO, a run of unresolved frames one frame, instead of a node per "
               "address [default: apart by address, as gprof2dot names them]");
  app.add_flag("--python", a.python,
               "perf: in samples with Python frames (py::, python -X perf), hide the interpreter's own frames so "
               "Python functions call Python and C functions directly [default: on when there are py:: frames, "
               "with a note]");
  app.add_flag("--no-python", a.no_python, "perf: keep the interpreter's frames between Python frames")
      ->excludes("--python");
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
                 "ranks, ranks.csv, ranks.json and heatmap outputs: show the N functions of highest imbalance; "
                 "stats: the first N lines; html: rows of its ranks table "
                 "[default: 25 in the table, 30 in the heatmap, all in CSV and JSON, 200 in html]")
      ->type_name("N");
  repeatable(app, "--sort", a.sort,
             "stats output: sort by this pstats key, repeatable (calls, cumulative, file, line, name, nfl, pcalls, "
             "stdname, time ...) [default: cumulative]")
      ->type_name("KEY")
      ->check(CLI::IsMember(stats::sort_keys()));
  repeatable(app, "--restrict", a.restrictions,
             "stats output: a pstats restriction, repeatable, in order: N lines, a fraction in [0, 1), or a regular "
             "expression the file:line(function) must contain, in Python's re syntax (searched with the embedded "
             "CPython's re, as pstats does; a build without Python refuses Python-only syntax)")
      ->type_name("R");
  app.add_flag("--strip-dirs", a.strip_dirs, "stats output: file names without their folders (pstats' strip_dirs)");
  auto* callers = app.add_flag("--callers", a.callers, "stats output: each function's callers (print_callers)");
  auto* callees = app.add_flag("--callees", a.callees, "stats output: each function's callees (print_callees)");
  callers->excludes(callees);
  app.add_flag("--imbalance", a.imbalance,
               "graph outputs of several inputs (one per MPI rank): colour each function by how unevenly the ranks "
               "spend its time (Imb%) and add a line 'imb 23% (max r5, min r61)'");
  app.add_flag("--flame-reverse", a.flame_reverse,
               "flame output: the root at the top and callees below it (an icicle), instead of a flame that "
               "grows up from the bottom");
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
  app.add_flag("-k,--kcachegrind", a.kcachegrind,
               "open the output in KCacheGrind (kcachegrind or qcachegrind, whichever is on PATH) when it is "
               "written; the output is callgrind, in a temporary file unless -o names one (pyprof2calltree's -k)");
  app.add_flag("--timings", a.timings, "print the time each phase took (read, analyse, write) on stderr");
  app.add_flag("-q,--quiet", a.quiet, "do not print warnings");
}

std::string output_formats_help() {
  std::string outputs;
  for (const formats::OutputFormat& f : formats::output_formats()) {
    std::string exts;
    for (std::string_view e : f.extensions) exts += (exts.empty() ? "" : " ") + std::string(e);
    outputs += fmt::format("  {:<10} {:<12} {}\n", f.name, exts, f.description);
  }
  return outputs;
}

int parse(CLI::App& app, int argc, char** argv, std::string_view tool) {
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
    std::fprintf(stderr, "%.*s: error: %s (see %.*s --help)\n", static_cast<int>(tool.size()), tool.data(),
                 what.c_str(), static_cast<int>(tool.size()), tool.data());
    return kExitBadUsage;
  }
  return -1;
}

}  // namespace graphgen::cli
