#include "command_line.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <memory>
#include <set>
#include <string_view>
#include <utility>
#include <vector>

#include "cli.h"
#include "options.h"
#include "registry.h"

namespace graphgen::cli {
namespace {

constexpr std::size_t kHelpWidth = 100;

// `text` in lines of at most `width` columns (UTF-8 characters counted
// once), each after `indent` spaces but the first, which follows `first`.
std::string wrap(std::string first, std::string_view text, std::size_t indent, std::size_t width) {
  auto columns = [](std::string_view s) {
    std::size_t n = 0;
    for (unsigned char c : s) n += (c & 0xC0) != 0x80;
    return n;
  };
  std::string out = first;
  std::size_t used = columns(first);
  if (used + 1 > indent) {  // the names fill the column: the text starts below
    out += '\n';
    used = 0;
  }
  bool line_empty = true;
  for (std::size_t at = 0; at < text.size();) {
    while (at < text.size() && text[at] == ' ') ++at;
    const std::size_t end = std::min(text.find(' ', at), text.size());
    if (end == at) break;
    const std::string_view word = text.substr(at, end - at);
    at = end;
    if (used < indent) {
      out.append(indent - used, ' ');
      used = indent;
      line_empty = true;
    }
    if (!line_empty && used + 1 + columns(word) > width) {
      out += '\n';
      out.append(indent, ' ');
      used = indent;
      line_empty = true;
    }
    if (!line_empty) {
      out += ' ';
      ++used;
    }
    out += word;
    used += columns(word);
    line_empty = false;
  }
  return out + '\n';
}

// The options of one front end as added to its parser, each with its
// spec (pipeline/options.h, where options are written once).
struct Parser {
  std::vector<std::pair<const pipeline::OptionSpec*, CLI::Option*>> options;
  // The options --help shows (OptionSpec::common); the others are hidden
  // there and listed by --help-all.
  std::set<const CLI::Option*> common;
};

// --help at 100 columns: each option's text wrapped under its names, the
// choices said once (in the text, not after the value's name).
class HelpFormatter : public CLI::Formatter {
 public:
  std::string make_option(const CLI::Option* opt, bool positional) const override {
    std::string opts = make_option_opts(opt);
    for (std::size_t open = opts.find(":{"); open != std::string::npos; open = opts.find(":{", open)) {
      const std::size_t close = opts.find('}', open);
      if (close == std::string::npos) break;
      opts.erase(open, close + 1 - open);
    }
    return wrap("  " + make_option_name(opt, positional) + opts, make_option_desc(opt), get_column_width(), kHelpWidth);
  }
};

// Help text at 100 columns: a longer line is wrapped, under its table's
// last column where it is a row of one (the output formats).
std::string wrap_help(std::string_view text) {
  std::string out;
  for (std::size_t at = 0; at < text.size();) {
    std::size_t nl = std::min(text.find('\n', at), text.size());
    std::string_view line = text.substr(at, nl - at);
    at = nl + 1;
    if (line.size() <= kHelpWidth) {
      out.append(line);
      out += '\n';
      continue;
    }
    // A long line: wrapped under its own indentation.
    const std::size_t indent = std::min(line.find_first_not_of(' '), line.size());
    out += wrap(std::string(line.substr(0, indent)), line.substr(indent), indent, kHelpWidth);
  }
  return out;
}

// Every option `front_end` offers into `app`, in --help's order and
// groups, with --help (the most used options) and --help-all (every
// group). Values stay text here: make_options() parses and checks them, the same
// for every front end. A repeatable option takes exactly one value each
// time, as argparse's `append` does, so `-p DIR prof.pstats` keeps
// prof.pstats an input.
Parser add_options(CLI::App& app, pipeline::FrontEnd front_end) {
  using pipeline::OptionKind;
  Parser parser;
  for (const pipeline::OptionSpec& spec : pipeline::option_specs()) {
    if (!(spec.front_ends & front_end)) continue;
    CLI::Option* o = nullptr;
    if (spec.kind == OptionKind::kFlag) {
      o = app.add_flag(spec.names_for(front_end), spec.help);
    } else {
      o = app.add_option(spec.names_for(front_end), spec.help)->type_name(spec.value_name);
      if (!spec.default_value.empty()) o->default_str(spec.default_value);
      if (spec.key == "input")
        o->expected(0, CLI::detail::expected_max_vector_size)->allow_extra_args();
      else if (spec.kind == OptionKind::kList)
        o->expected(1)->allow_extra_args(false)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
      else  // given twice, the last one, as gprof2dot's argparse takes it (an alias's -n 1, then -n 2)
        o->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    }
    o->group(spec.group);
    if (spec.common) parser.common.insert(o);
    parser.options.emplace_back(&spec, o);
  }
  app.formatter(std::make_shared<HelpFormatter>());
  app.get_formatter()->column_width(34);
  app.set_help_all_flag("--help-all", "every option, by group (--help shows the most used)");
  for (auto [spec, option] : parser.options)
    for (const std::string& other : spec->excludes)
      for (auto [other_spec, other_option] : parser.options)
        if (other_spec->key == other) option->excludes(other_option);
  return parser;
}

// What the parsed command line gave, as settings for make_options().
pipeline::Settings settings_of(const Parser& parser) {
  pipeline::Settings settings;
  for (auto [spec, option] : parser.options) {
    if (option->count() == 0) continue;
    if (spec->kind == pipeline::OptionKind::kFlag) {
      // Once, however often given; a value given to it (--timings=false,
      // which CLI11 takes) goes on for make_options() to refuse as the
      // Python module's timings="no" is: a flag takes none.
      std::string value = "true";
      for (const std::string& given : option->results())
        if (given != "true") value = given;
      settings.emplace_back(spec->key, value);
    } else {
      // As each option's policy leaves them: the last of a single value, every one of a list.
      for (const std::string& value : option->reduced_results()) settings.emplace_back(spec->key, value);
    }
  }
  return settings;
}

// The output formats table for --help's footer.
std::string output_formats_help() {
  std::string outputs;
  for (const formats::OutputFormat& f : formats::output_formats()) {
    std::string exts;
    for (std::string_view e : f.extensions) exts += (exts.empty() ? "" : " ") + std::string(e);
    outputs += wrap(fmt::format("  {:<10} {:<12} ", f.name, exts), f.description, 26, kHelpWidth);
  }
  return outputs;
}

// Parses the command line; -1 to go on, else the exit status (help,
// version, a usage error, all printed).
int parse(CLI::App& app, const Parser& parser, int argc, char** argv, std::string_view tool) {
  name_usage_errors(tool);  // the options' checks and the tool's own, as CLI11's below
  // An empty argument where a file or an option belongs (`graphgen "$IN" -T
  // stats` with IN unset) is a usage error, not a file that cannot be
  // opened (": cannot open"). An option's empty value is left to its check;
  // so is everything after `--`, and after graphgen run's script (its
  // arguments are the program's, an empty one among them).
  for (int i = 1; i < argc && !app.get_prefix_command(); ++i) {
    if (std::string_view(argv[i]) == "--") break;
    if (argv[i][0] != '\0') continue;
    const std::string_view before = i > 1 ? argv[i - 1] : "";
    const CLI::Option* option = before.size() > 1 && before[0] == '-' && before.find('=') == std::string_view::npos
                                    ? app.get_option_no_throw(std::string(before))
                                    : nullptr;
    if (option && option->get_items_expected_min() > 0) continue;
    std::fprintf(stderr,
                 "%.*s: error: argument %d: expected a file name or an option, found '' (an unset variable?) "
                 "(see %.*s --help)\n",
                 static_cast<int>(tool.size()), tool.data(), i, static_cast<int>(tool.size()), tool.data());
    return kExitBadUsage;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    // The most used options; the others are one --help-all away.
    std::size_t hidden = 0;
    for (CLI::Option* o : app.get_options())
      if (!parser.common.count(o) && !o->get_group().empty() && o->get_group() != "Options" &&
          o->get_name() != "--help" && o->get_name() != "--help-all") {
        o->group("");
        ++hidden;
      }
    std::string help = app.help();
    if (hidden) help += fmt::format("{} more options: {} --help-all lists every option, by group.\n", hidden, tool);
    return print_or_fail(wrap_help(help));
  } catch (const CLI::CallForAllHelp&) {
    return print_or_fail(wrap_help(app.help()));
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

// graphgen run's usage line says where the script goes (CLI11's says only
// [OPTIONS]), first, where --help is read.
class RunFormatter : public HelpFormatter {
 public:
  std::string make_description(const CLI::App*) const override { return {}; }
  std::string make_usage(const CLI::App* app, std::string) const override {
    return "Usage: graphgen run [OPTIONS] script.py [ARGS...]\n"
           "   or: graphgen run [OPTIONS] -m MODULE [ARGS...]\n\n" +
           app->get_description() + "\n";
  }
};

}  // namespace

int parse_graphgen(int argc, char** argv, GraphgenCommandLine& out) {
  CLI::App app{
      "Reads profiles (Python pstats, valgrind callgrind, perf script, collapsed stacks, line_profiler,\n"
      "gprof2dot's other formats: gprof, VTune, HPROF, JSON, Very Sleepy, sysprof, xperf, DTrace; TAU,\n"
      "Score-P's CUBE4, pprof, speedscope, node's .cpuprofile; several files of one format merge),\n"
      "builds one call graph and writes it as Graphviz dot (the default, equal by meaning to\n"
      "gprof2dot's), as an image rendered in-process, or converts the whole profile to callgrind\n"
      "(KCacheGrind), pstats, pprof, speedscope, flame graphs, an HTML report, line_profiler's text\n"
      "report, or per-rank statistics of MPI ranks.\n"
      "Options follow gprof2dot's names and defaults; thresholds and selections apply to graph\n"
      "outputs only.",
      "graphgen"};
  app.set_version_flag("--version", std::string("graphgen ") + GRAPHGEN_VERSION);
  app.footer(
      "Output formats (-T NAME, or the -o extension; callgrind.out.* is callgrind; any other name,\n"
      "and standard output, get dot):\n" +
      output_formats_help() +
      "Examples:\n"
      "  graphgen out.pstats -o out.png              render a cProfile dump\n"
      "  graphgen -f pstats out.pstats | dot -Tsvg   gprof2dot-compatible dot on stdout\n"
      "  graphgen cpu_*.prof -o merged.pstats        merge per-rank profiles (as pstats.Stats)\n"
      "  graphgen cpu_*.prof -T ranks                per-function load imbalance across the ranks\n"
      "  graphgen --each cpu_*.prof -o 'png/{stem}.png'  one picture per rank, on every core\n"
      "  graphgen --compare before.prof after.prof   what changed between two runs\n"
      "  graphgen run -o out.png app.py [args]       profile a Python program (graphgen run --help)\n"
      "  graphgen out.pstats -o out.callgrind        open a Python profile in KCacheGrind\n"
      "  perf script | graphgen - -o perf.flame.svg  an interactive flame graph of perf samples\n"
      "  graphgen out.pstats -o report.html          one self-contained HTML report to browse or share\n"
      "  graphgen -T text app.py.lprof               line_profiler's report, without Python\n"
      "  graphgen -n 0 -e 0 -z 'app:*:main' x.pstats everything below main\n"
      "pyprof2calltree's command lines work as they are: -i, --infile IN; -o, --outfile OUT; -k;\n"
      "-r, --run-script script.py [ARGS...] (callgrind, to IN.log or script.py.log without -o).\n"
      "Exit status: 0 ok, 1 bad or unreadable input, 2 bad usage.");
  const Parser parser = add_options(app, pipeline::kGraphgen);
  app.add_option("--completion", out.completion_shell,
                 "print graphgen's completion script for bash or zsh (installed where the shells look for "
                 "them)")
      ->type_name("SHELL")
      ->group("Several inputs, comparing, and the rest");
  if (int status = parse(app, parser, argc, argv, "graphgen"); status >= 0) return status;
  out.settings = settings_of(parser);
  return -1;
}

int parse_run(int argc, char** argv, RunCommandLine& out) {
  CLI::App app{
      "Runs a Python program under cProfile, as python3 -m cProfile does, on the active\n"
      "venv's or PATH's python3 when it is the version graphgen embeds (else on that one),\n"
      "then writes what the options ask for (-o out.png, -o out.callgrind, -k for\n"
      "KCacheGrind, ...) without a file in between. The program's exit status is kept, and\n"
      "an uncaught exception is printed as Python prints it; the profile is written either\n"
      "way. Without -o the output is a file named after the script (app.pstats); -s KEY\n"
      "prints pstats' table instead, as cProfile's -s does.",
      "graphgen run"};
  const Parser parser = add_options(app, pipeline::kRun);
  app.formatter(std::make_shared<RunFormatter>());
  app.get_formatter()->column_width(34);
  RunTarget& target = out.target;
  app.add_option("-m,--module", target.module, "run this module as a script, as python3 -m does")->type_name("MODULE");
  std::string memory;
  CLI::Option* memory_option =
      app.add_flag(
             "--memory{25}", memory,
             "profile memory instead of time: tracemalloc.start(FRAMES) before the program, its snapshot (what is "
             "still allocated, by traceback) taken as it ends, read as a snapshot file is (-T stats prints "
             "Snapshot.statistics); --memory=FRAMES for other than 25 frames a traceback")
          ->type_name("[=FRAMES]")
          ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.prefix_command();
  app.footer(
      "Examples:\n"
      "  graphgen run app.py                              app.pstats, as cProfile -o would write it\n"
      "  graphgen run -s tottime app.py                   pstats' table, sorted, after the program's output\n"
      "  graphgen run -o prof.png app.py --app-option     the call graph of app.py\n"
      "  graphgen run -k -m pytest tests/                 pytest's profile in KCacheGrind\n"
      "  graphgen run --memory -o mem.flame.svg app.py    what app.py still holds at its end, by traceback\n"
      "  mpirun -np 4 graphgen run -o 'prof_{rank}.pstats' app.py   one profile per MPI rank\n"
      "-o may hold {rank} and {size}: the MPI rank and the number of ranks, as mpirun, srun or\n"
      "another launcher gives them (OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK, SLURM_PROCID).\n");
  if (int status = parse(app, parser, argc, argv, "graphgen run"); status >= 0) return status;
  target.argv = app.remaining();
  // As cProfile's optparse: `--` ends the options (a script may then start
  // with '-'), and an option unknown before the script is a usage error,
  // not a script named "--nosuch" that cannot be opened. After -m MODULE
  // everything is the module's.
  if (target.module.empty() && !target.argv.empty()) {
    const std::string& first = target.argv.front();
    if (first == "--")
      target.argv.erase(target.argv.begin());
    else if (first.size() > 1 && first[0] == '-')
      return fail(
          bad_usage(fmt::format("no such option: {} (graphgen run's options come before the script; -- "
                                "before a script whose name starts with -; see graphgen run --help)",
                                first)));
  }
  if (memory_option->count() > 0) {
    // Read as text: CLI11's integer flags took --memory=0 and =no for -1
    // frames, =yes for 1 and =25x for 25.
    int frames = 0;
    const char* end = memory.data() + memory.size();
    auto [at, failed] = std::from_chars(memory.data(), end, frames);
    if (failed != std::errc() || at != end || frames < 1 || frames > 65535)
      return fail(bad_usage(
          fmt::format("--memory={}: expected 1 to 65535 frames a traceback, as tracemalloc.start takes", memory)));
    target.memory_frames = frames;
  }
  out.settings = settings_of(parser);
  return -1;
}

int parse_mpi(int argc, char** argv, pipeline::Settings& out) {
  CLI::App app{
      "graphgen's merge on MPI: under mpirun -np K, each process reads and merges a share of the inputs\n"
      "(one format, one file per rank), the shares are reduced to process 0 in a binomial tree, and\n"
      "process 0 writes what graphgen would write from all the inputs, byte for byte: a merged\n"
      "profile (pstats, callgrind), a graph (dot, images), or per-rank statistics (-T ranks, ranks.csv,\n"
      "ranks.json). The options are graphgen's.",
      "graphgen-mpi"};
  app.set_version_flag("--version", std::string("graphgen-mpi ") + GRAPHGEN_VERSION);
  app.footer("Output formats (-T NAME, or the -o extension):\n" + output_formats_help() +
             "Example:\n"
             "  mpirun -np 16 graphgen-mpi ranks/cpu_*.prof -o merged.pstats\n"
             "  srun graphgen-mpi ranks/cpu_*.prof -T ranks -o imbalance.txt    (in a Slurm job)\n"
             "Exit status: 0 ok, 1 bad or unreadable input, 2 bad usage.");
  // What only makes sense in one process (--each, --compare,
  // --list-functions, --timings, -k) is graphgen's alone.
  const Parser parser = add_options(app, pipeline::kMpi);
  // Under mpirun, standard input is not the profile's: inputs are named.
  app.get_option("input")->required();
  if (int status = parse(app, parser, argc, argv, "graphgen-mpi"); status >= 0) return status;
  out = settings_of(parser);
  return -1;
}

}  // namespace graphgen::cli
