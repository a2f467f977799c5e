// graphgen: read profiles, build one call graph, write what the user wants.
// Option names and defaults follow gprof2dot so its users need not relearn;
// no format logic lives here.
#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "callgrind/writer.h"
#include "dot/dot_writer.h"
#include "pstats/writer.h"
#include "graphgen/analysis/graph.h"
#include "graphgen/analysis/integrate.h"
#include "graphgen/analysis/merge.h"
#include "graphgen/analysis/prune.h"
#include "graphgen/analysis/select.h"
#include "graphgen/analysis/theme.h"
#include "graphgen/io.h"
#include "registry.h"
#ifdef GRAPHGEN_HAVE_RENDER
#include "render/render.h"
#endif

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

std::vector<std::string> to_strings(const std::vector<std::string_view>& items) {
  return {items.begin(), items.end()};
}

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
  bool merge_by_name = false;
  double unit = 1e-6;
  bool skip_zero = false;
  bool timings = false;
  bool quiet = false;
};

// Wall-clock phases for --timings.
class Phases {
 public:
  explicit Phases(bool on) : on_(on), last_(std::chrono::steady_clock::now()) {}
  void mark(const char* name) {
    if (!on_) return;
    auto now = std::chrono::steady_clock::now();
    std::fprintf(stderr, "graphgen: timing: %-8s %8.3f s\n", name, std::chrono::duration<double>(now - last_).count());
    last_ = now;
  }

 private:
  bool on_;
  std::chrono::steady_clock::time_point last_;
};

int fail(const Error& e) {
  std::fflush(stdout);
  if (e.kind == Error::Kind::kBadUsage)
    std::fprintf(stderr, "graphgen: error: %s\n", e.message.c_str());
  else
    std::fprintf(stderr, "%s\n", e.message.c_str());
  return e.kind == Error::Kind::kBadUsage ? kExitBadUsage : kExitBadInput;
}

void report(const Diagnostics& diag, bool quiet) {
  if (quiet) return;
  for (const std::string& w : diag.warnings()) spdlog::warn("{}", w);
}

// --event picks the cost column (callgrind); for perf it filtered samples.
Expected<std::size_t> pick_event(const Profile& p, const Args& a, std::string_view format) {
  if (a.event.empty() || format == "perf") return std::size_t{0};
  std::vector<std::string_view> names;
  for (std::size_t e = 0; e < p.events.size(); ++e) {
    names.push_back(p.str(p.events[e].name));
    if (names.back() == a.event) return e;
  }
  return bad_usage(fmt::format("--event {}: the profile has no such event; it has {}", a.event, join(names)));
}

int run(const Args& a) {
  // Output format: -T, else the -o extension, else dot.
  const formats::OutputFormat* out_format = nullptr;
  if (!a.to.empty()) {
    out_format = formats::find_output_format(a.to);
  } else if (a.output != "-") {
    out_format = formats::output_format_for_path(a.output);
    if (!out_format)
      return fail(bad_usage(fmt::format("cannot tell the output format from '{}'; name it with -T ({})",
                                        a.output, join(formats::output_format_names()))));
  } else {
    out_format = formats::find_output_format("dot");
  }
#ifndef GRAPHGEN_HAVE_RENDER
  if (out_format->rendered())
    return fail(bad_usage(fmt::format("this graphgen was built without Graphviz, so it cannot write {}; "
                                      "write .dot, or install libgraphviz-dev and rebuild",
                                      out_format->name)));
#endif
  if (a.skew < 0) return fail(bad_usage(fmt::format("--skew must not be negative, found {}", a.skew)));
  if (auto ok = dot::check_time_format(a.time_format); !ok) return fail(ok.error());
  dot::Options dot_options;
  dot_options.strip = a.strip;
  dot_options.wrap = a.wrap;
  dot_options.show_samples = a.show_samples;
  dot_options.time_format = a.time_format;
  if (!a.node_labels.empty()) {
    dot_options.node_labels.clear();
    for (const std::string& name : a.node_labels) {
      dot::Measure m;
      dot::parse_measure(name, m);  // CLI11 already checked membership
      dot_options.node_labels.push_back(m);
    }
  }
  Theme theme = *find_theme(a.colormap);
  if (a.skew != 0) theme.skew = a.skew;  // gprof2dot ignores a zero skew

  Phases phases(a.timings);
  // Inputs: all of one format; the bytes decide unless -f is given.
  std::vector<InputFile> inputs;
  const formats::InputFormat* in_format = a.format.empty() ? nullptr : formats::find_input_format(a.format);
  std::string first_path;
  for (const std::string& path : a.inputs) {
    auto file = InputFile::open(path);
    if (!file) return fail(file.error());
    if (a.format.empty()) {
      auto detected = formats::detect_input_format(*file);
      if (!detected) return fail(detected.error());
      if (in_format && in_format != *detected)
        return fail(bad_usage(fmt::format("inputs mix formats: {} is {} but {} is {}; give one format at a time",
                                          first_path, in_format->name, path, (*detected)->name)));
      in_format = *detected;
      if (first_path.empty()) first_path = path;
    }
    inputs.push_back(std::move(file).value());
  }

  Diagnostics diag;
  if (out_format->kind == formats::OutputFormat::Kind::kText) {
    if (!in_format->to_text)
      return fail(bad_usage(fmt::format("text output is line_profiler's report; {} input has no per-line report "
                                        "(write dot, an image, callgrind or pstats)",
                                        in_format->name)));
    auto text = in_format->to_text(inputs, a.unit, a.skip_zero);
    if (!text) return fail(text.error());
    auto written = write_file_atomically(a.output, *text);
    if (!written) return fail(written.error());
    return kExitOk;
  }
  if (out_format->kind == formats::OutputFormat::Kind::kPstats && in_format->to_pstats) {
    // pstats to pstats: the merged table itself, every number as Python has it.
    auto bytes = in_format->to_pstats(inputs, diag);
    report(diag, a.quiet);
    if (!bytes) return fail(bytes.error());
    phases.mark("read");
    auto written = write_file_atomically(a.output, *bytes);
    if (!written) return fail(written.error());
    phases.mark("write");
    return kExitOk;
  }
  formats::ReadOptions read_options;
  read_options.weight_by_period = a.weight == "period";
  read_options.merge_by_name = a.merge_by_name;
  if (in_format->name == std::string_view("perf")) read_options.event = a.event;
  auto profile = in_format->read(inputs, read_options, diag);
  if (!profile) {
    report(diag, a.quiet);
    return fail(profile.error());
  }
  inputs.clear();
  phases.mark("read");

  if (!out_format->graph()) {
    // Profile outputs carry the whole profile: no pruning or selection.
    std::string bytes;
    if (out_format->kind == formats::OutputFormat::Kind::kCallgrind) {
      callgrind::WriteOptions wo;
      wo.creator = std::string("graphgen ") + GRAPHGEN_VERSION;
      for (const std::string& in : a.inputs) wo.cmd += (wo.cmd.empty() ? "" : " ") + in;
      bytes = callgrind::write(*profile, wo);
    } else {
      std::size_t event = 0;
      if (auto e = pick_event(*profile, a, in_format->name); !e) return fail(e.error()); else event = *e;
      bytes = pstats::write_table(pstats::from_profile(*profile, event));
    }
    report(diag, a.quiet);
    auto written = write_file_atomically(a.output, bytes);
    if (!written) return fail(written.error());
    phases.mark("write");
    return kExitOk;
  }

  // callgrind keeps functions per file as the format names them; the graph
  // shows one node per function of a binary (or per name, as gprof2dot).
  if (in_format->name == std::string_view("callgrind"))
    profile = merge_functions(std::move(*profile), a.merge_by_name ? FunctionKey::kName : FunctionKey::kNameAndObject);

  std::size_t event = 0;
  if (auto e = pick_event(*profile, a, in_format->name); !e) return fail(e.error()); else event = *e;
  CallGraph graph;
  if (profile->has_total_cost()) {
    graph = graph_from_reported_totals(*profile, event, diag);
  } else if (a.total == "callstacks" && profile->keeps_stack_totals) {
    graph = graph_from_call_stacks(*profile, event, diag);
  } else {
    if (a.total == "callstacks")
      diag.warn(fmt::format("--total callstacks needs sample stacks, which {} profiles do not have; "
                            "using callratios",
                            in_format->name));
    graph = graph_from_call_ratios(*profile, event, diag);
  }
  PruneOptions prune_options;
  prune_options.node_threshold_percent = a.node_thres;
  prune_options.edge_threshold_percent = a.edge_thres;
  prune_options.paths = a.paths;
  prune_options.color_nodes_by_selftime = a.color_by_self;
  prune(*profile, graph, prune_options);

  if (!a.root.empty()) {
    auto roots = match_functions(*profile, graph, a.root);
    if (roots.empty()) {
      report(diag, a.quiet);
      return fail(bad_input(fmt::format("root node {} not found (might already be pruned : try -e0 -n0 flags)", a.root)));
    }
    keep_descendants(graph, roots, a.depth);
  }
  if (!a.list_functions.empty()) {
    report(diag, a.quiet);
    std::string list = list_functions(*profile, graph, a.list_functions);
    std::fwrite(list.data(), 1, list.size(), stdout);
    return kExitOk;
  }
  if (!a.leaf.empty()) {
    auto leaves = match_functions(*profile, graph, a.leaf);
    if (leaves.empty()) {
      report(diag, a.quiet);
      return fail(bad_input(fmt::format("leaf node {} not found (maybe already pruned : try -e0 -n0 flags)", a.leaf)));
    }
    keep_ancestors(graph, leaves, a.depth);
  }

  if (a.node_count > 0) keep_heaviest(graph, a.node_count);
  constexpr std::size_t kLargeGraph = 500;
  if (out_format->rendered() && kept_nodes(graph) > kLargeGraph)
    diag.warn(fmt::format("the graph has {} nodes after pruning; laying it out can take minutes: raise -n or "
                          "keep the heaviest with --node-count N",
                          kept_nodes(graph)));
  phases.mark("analyse");
  std::string text = dot::write(*profile, graph, theme, dot_options, diag);
  report(diag, a.quiet);
  if (out_format->rendered()) {
#ifdef GRAPHGEN_HAVE_RENDER
    auto image = render::render(text, out_format->name);
    if (!image) return fail(image.error());
    text = std::move(image).value();
#endif
  }
  auto written = write_file_atomically(a.output, text);
  if (!written) return fail(written.error());
  phases.mark("write");
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  auto logger = spdlog::stderr_logger_st("graphgen");
  logger->set_pattern("graphgen: %l: %v");
  spdlog::set_default_logger(logger);

  Args a;
  CLI::App app{
      "Reads profiles (Python pstats, valgrind callgrind, perf script, collapsed stacks, line_profiler;\n"
      "several files of one format merge), builds one call graph and writes it as Graphviz dot (the\n"
      "default, equal by meaning to gprof2dot's), as a PNG/SVG/PDF image rendered in-process, or\n"
      "converts the whole profile to callgrind (KCacheGrind), pstats, or line_profiler's text report.\n"
      "Options follow gprof2dot's names and defaults; thresholds and selections apply to graph\n"
      "outputs only.",
      "graphgen"};
  app.set_version_flag("--version", std::string("graphgen ") + GRAPHGEN_VERSION);
  app.get_formatter()->column_width(34);
  app.footer(
      "Examples:\n"
      "  graphgen out.pstats -o out.png              render a cProfile dump\n"
      "  graphgen -f pstats out.pstats | dot -Tsvg   gprof2dot-compatible dot on stdout\n"
      "  graphgen cpu_*.prof -o merged.pstats        merge per-rank profiles (as pstats.Stats)\n"
      "  graphgen out.pstats -o out.callgrind        open a Python profile in KCacheGrind\n"
      "  graphgen -T text app.py.lprof               line_profiler's report, without Python\n"
      "  graphgen -n 0 -e 0 -z 'app:*:main' x.pstats everything below main\n"
      "Exit status: 0 ok, 1 bad or unreadable input, 2 bad usage.");

  app.add_option("input", a.inputs,
                 "profile file(s), or - for standard input; several files of one format are merged")
      ->required()
      ->type_name("FILE");
  app.add_option("-o,--output", a.output,
                 "write here instead of standard output; the extension picks the output format "
                 "(.dot .gv .png .svg .pdf) unless -T is given")
      ->type_name("FILE");
  app.add_option("-f,--format", a.format,
                 "input format: " + join(formats::input_format_names()) +
                     " [default: detected from the file's bytes]")
      ->check(CLI::IsMember(to_strings(formats::input_format_names())))
      ->type_name("FORMAT");
  app.add_option("-T,--to", a.to,
                 "output format: " + join(formats::output_format_names()) +
                     " [default: from the -o extension, else dot]")
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
  app.add_option("--skew", a.skew,
                 "skew the colour curve: < 1 spreads out low percentages, > 1 compresses them")
      ->capture_default_str()
      ->type_name("FLOAT");
  app.add_flag("-s,--strip", a.strip,
               "strip parameters, template arguments and const from C++ names in labels");
  app.add_flag("-w,--wrap", a.wrap, "wrap function names longer than 32 characters");
  app.add_flag("--color-nodes-by-selftime,--colour-nodes-by-selftime", a.color_by_self,
               "colour nodes by self time instead of total time (pruning still uses total)");
  app.add_flag("--show-samples", a.show_samples, "show sample counts in node labels (sampling formats)");
  app.add_option("--node-label", a.node_labels,
                 "measure shown in nodes, repeatable, in order: " + join(dot::measure_names()) +
                     " [default: total-time-percentage, self-time-percentage]")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
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
  app.add_option("-p,--path", a.paths,
                 "keep only functions whose file starts with PATH (repeatable; absolute paths), "
                 "or whose module contains it")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->type_name("PATH");
  app.add_option("--node-count", a.node_count,
                 "after pruning, keep only the N nodes of highest total share (0: all); for big graphs")
      ->capture_default_str()
      ->type_name("N");
  app.add_option("--list-functions", a.list_functions,
                 "print the functions left after pruning and -z to standard output and stop: '+' or '*' "
                 "lists all with their ids, any other value is a glob on labels")
      ->type_name("SELECTOR");
  app.add_option("--event", a.event,
                 "callgrind: the event (cost column) to graph [default: the first]; perf: keep only "
                 "samples of this event [default: all]")
      ->type_name("NAME");
  app.add_option("--total", a.total,
                 "how totals of sampled stacks are computed: callratios (gprof2dot's call-ratio "
                 "integration) or callstacks (share of samples whose stack holds the function)")
      ->capture_default_str()
      ->check(CLI::IsMember({"callratios", "callstacks"}))
      ->type_name("METHOD");
  app.add_option("--weight", a.weight,
                 "perf: count each sample once (samples, as gprof2dot) or weigh it by its period "
                 "(period, as FlameGraph)")
      ->capture_default_str()
      ->check(CLI::IsMember({"samples", "period"}))
      ->type_name("WEIGHT");
  app.add_flag("--merge-by-name", a.merge_by_name,
               "callgrind: identify functions by name alone, as gprof2dot does, merging same-named "
               "functions of different objects (e.g. malloc in ld.so and libc)");
  app.add_option("--unit", a.unit, "text output: seconds per unit of the Time columns (line_profiler's -u)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber)
      ->type_name("SECONDS");
  app.add_flag("--skip-zero", a.skip_zero, "text output: leave out functions that never ran (line_profiler's -z)");
  app.add_flag("--timings", a.timings, "print the time each phase took (read, analyse, write) on stderr");
  app.add_flag("-q,--quiet", a.quiet, "do not print warnings");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return kExitOk;
  } catch (const CLI::CallForAllHelp&) {
    std::cout << app.help();
    return kExitOk;
  } catch (const CLI::CallForVersion& e) {
    std::cout << e.what() << "\n";
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    std::string what = e.what();
    for (char& c : what)
      if (c == '\n') c = ' ';
    std::fprintf(stderr, "graphgen: error: %s (see graphgen --help)\n", what.c_str());
    return kExitBadUsage;
  }
  return run(a);
}
