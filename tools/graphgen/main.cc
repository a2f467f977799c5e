// graphgen: read profiles, build one call graph, write what the user wants.
// Option names and defaults follow gprof2dot so its users need not relearn.
// This file only maps the command line to a pipeline request and prints what
// comes back: formats and passes live in the library (pipeline/pipeline.h),
// the options in pipeline/options.cc (shared with graphgen-mpi and Python).
#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <string>
#include <string_view>

#include "command_line.h"
#include "completion.h"
#include "each.h"
#include "graphgen/analysis/integrate.h"
#include "graphgen/io.h"
#include "pipeline.h"
#include "pyprof2calltree.h"
#include "registry.h"
#ifdef GRAPHGEN_HAVE_RENDER
#include "render/render.h"
#endif
#include "run.h"

namespace {

using namespace graphgen;
namespace fs = std::filesystem;
using cli::fail;
using cli::kExitOk;

// The output a pyprof2calltree command line left graphgen to name (its
// IN.log), said once written; empty otherwise.
std::string g_chosen_output;

// --each: every input to its own output, on all cores; one line per failure,
// progress on a terminal, and the worst failure's exit status.
int run_each(const pipeline::Options& a) {
  const pipeline::Request& request = a.request;
  const bool progress = ::isatty(STDERR_FILENO) && !a.quiet;
  std::size_t failed = 0;
  int status = kExitOk;
  auto results = pipeline::run_each(request, a.output, a.jobs, [&](const pipeline::EachResult& r, std::size_t done) {
    if (progress) std::fprintf(stderr, "\r\033[K");
    if (!a.quiet)
      for (const std::string& w : r.warnings) cli::report_one(w);
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
    cli::report_one(fmt::format("--each: {} of {} inputs failed; the other {} outputs are written", failed,
                                results->size(), results->size() - failed));
  return status;
}

// A PNG, PDF, pstats or pprof written to a terminal is noise that can
// leave it in a strange state: refused before any work, with the way out.
Expected<bool> check_not_binary_to_terminal(const pipeline::Options& a, const pipeline::Request& r) {
  if (a.output != "-" || a.kcachegrind || !r.list_functions.empty() || !r.output || formats::is_text(*r.output) ||
      !::isatty(STDOUT_FILENO))
    return true;
  const std::string name(r.output->name);
  const std::string ending = r.output->extensions.empty() ? "." + name : std::string(r.output->extensions[0]);
  return bad_usage(
      fmt::format("{} output is binary and standard output is a terminal: write it to a file (-o out{}) "
                  "or pipe it",
                  name, ending));
}

// The one progress line a terminal shows at a time (a read, a merge, a
// cycle's walks, the layout): written whole under a lock, since readers'
// threads report, and cleared before a warning is printed under it.
std::mutex g_status_mutex;
bool g_status_shown = false;

void show_status(const std::string& line) {
  std::lock_guard lock(g_status_mutex);
  std::fprintf(stderr, "\r\033[K%s", line.c_str());
  g_status_shown = true;
}

void clear_status_locked() {
  if (g_status_shown) std::fprintf(stderr, "\r\033[K");
  g_status_shown = false;
}

void clear_status() {
  std::lock_guard lock(g_status_mutex);
  clear_status_locked();
}

// Graphviz's layout of a big graph takes seconds (13 s for sympy's) and
// says nothing: on a terminal, a line says what is being laid out and for
// how long, from two seconds on, and goes when it is done.
void show_layout_progress(std::chrono::milliseconds after) {
#ifdef GRAPHGEN_HAVE_RENDER
  render::set_layout_progress(
      [](double seconds, std::size_t nodes, std::size_t edges) {
        if (seconds < 0)
          clear_status();
        else
          show_status(
              fmt::format("graphgen: laying out the call graph: {} nodes, {} edges ({:.0f} s)", nodes, edges, seconds));
      },
      after);
#else
  (void)after;
#endif
}

// A call graph that is one huge cycle (an interpreter's functions calling
// each other) integrates for minutes after its warning: on a terminal, a
// line counts the walks from two seconds on, and goes when they are done.
void show_cycle_progress(std::chrono::milliseconds after) {
  set_cycle_progress(
      [](double seconds, std::size_t walked, std::size_t entries, std::size_t members) {
        if (seconds < 0)
          clear_status();
        else
          show_status(
              fmt::format("graphgen: integrating a cycle of {} functions: {} of {} entry points walked "
                          "({:.0f} s)",
                          members, walked, entries, seconds));
      },
      after);
}

// The read's line: the file's name without its folder (one input is read),
// shortened in its middle when the terminal is narrower than the line, so
// that the line stays one row that \r can clear; a pipe's size is not known
// until it ends.
std::string read_line(std::string_view doing, std::string_view path, std::size_t passed, std::size_t size,
                      double seconds) {
  // (/dev/fd/63 of a shell's <(perf script) says more than "63".)
  std::string name = path == "-"                 ? std::string("standard input")
                     : path.starts_with("/dev/") ? one_line(path)
                                                 : one_line(fs::path(std::string(path)).filename().string());
  const std::string head = fmt::format("graphgen: {} ", doing);
  const std::string tail = size ? fmt::format(": {} of {}, {:.0f} % ({:.0f} s)", format_size(passed), format_size(size),
                                              100.0 * static_cast<double>(passed) / static_cast<double>(size), seconds)
                                : fmt::format(": {} so far ({:.0f} s)", format_size(passed), seconds);
  winsize w{};
  const std::size_t columns = ::ioctl(STDERR_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_col > 0 ? w.ws_col : 80;
  const std::size_t used = head.size() + tail.size() + 1;  // (the last column left free)
  const std::size_t room = columns > used + 8 ? columns - used : 8;
  if (name.size() > room) {
    // Both ends kept, cut where a UTF-8 character starts.
    auto starts = [&](std::size_t i) {
      return i >= name.size() || (static_cast<unsigned char>(name[i]) & 0xC0) != 0x80;
    };
    std::size_t left = (room - 3) / 2, right = name.size() - (room - 3 - left);
    while (left > 0 && !starts(left)) --left;
    while (!starts(right)) ++right;
    name = name.substr(0, left) + "..." + name.substr(right);
  }
  return head + name + tail;
}

// A big input reads for seconds with nothing said (8 GB of perf script, a
// gigabyte of Very Sleepy capture, or of gzip to inflate first): on a
// terminal, a line says how much of it has been read (or decompressed),
// from two seconds on, and goes when it is done.
void show_read_progress(std::chrono::milliseconds after) {
  set_read_progress(
      [](double seconds, std::string_view doing, std::string_view path, std::size_t passed, std::size_t size) {
        if (seconds < 0)
          clear_status();
        else
          show_status(read_line(doing, path, passed, size, seconds));
      },
      after);
}

// A warning, in place of the progress line if one is shown.
void report_as_it_comes(const std::string& warning) {
  std::lock_guard lock(g_status_mutex);
  clear_status_locked();
  cli::report_one(warning);
}

int run(pipeline::Settings settings) {
  // No input named: standard input, as gprof2dot reads it, unless a person
  // is typing there (then the usage error says what is missing).
  if (std::none_of(settings.begin(), settings.end(), [](const auto& s) { return s.first == "input"; })) {
    if (::isatty(STDIN_FILENO))
      return fail(
          bad_usage("expected a profile to read (a file, or - for standard input), found none; standard input is a "
                    "terminal (see graphgen --help)"));
    settings.emplace_back("input", "-");
  }
  Diagnostics diag;
  auto options = pipeline::make_options(settings, diag);
  cli::report(diag, cli::quiet(settings));
  diag.clear();
  if (!options) return fail(options.error());
  const pipeline::Options& a = *options;
  pipeline::Request* request = &options->request;
  if (a.each) return run_each(a);
  const std::string& list_functions = request->list_functions;
  if (list_functions.empty())
    if (auto ok = check_output_is_not_an_input(a.output, request->inputs); !ok) return fail(ok.error());
  if (auto ok = check_not_binary_to_terminal(a, *request); !ok) return fail(ok.error());
  // A merge of many inputs says how far it is on a terminal, once it has
  // run for two seconds (a quick one prints nothing; the tests set the
  // delay with GRAPHGEN_TEST_PROGRESS_AFTER_MS).
  const bool show_progress = ::isatty(STDERR_FILENO) && !a.quiet && request->inputs.size() > 1;
  const char* after_ms = std::getenv("GRAPHGEN_TEST_PROGRESS_AFTER_MS");
  const auto delay = std::chrono::milliseconds(after_ms ? std::atol(after_ms) : 2000);
  const auto started = std::chrono::steady_clock::now();
  auto last = started;
  bool shown = false;
  if (show_progress)
    request->on_progress = [&](std::size_t done, std::size_t total) {
      auto now = std::chrono::steady_clock::now();
      if (now - started < delay || (shown && now - last < std::chrono::milliseconds(200) && done < total)) return;
      last = now;
      shown = true;
      show_status(fmt::format("graphgen: reading: {} of {} inputs", done, total));
    };
  if (::isatty(STDERR_FILENO) && !a.quiet) {
    if (request->inputs.size() == 1) show_read_progress(delay);
    show_layout_progress(delay);
    show_cycle_progress(delay);
  }
  if (!a.quiet) diag.print_as_they_come(report_as_it_comes);
  // An output larger than its profile (a trace) is written as it is made,
  // by write_output()'s rules, never held whole.
  request->measure_peaks = a.timings;
  if (list_functions.empty() && !a.kcachegrind)
    request->stream_to = [&a](const std::function<Expected<bool>(OutputSink&)>& produce) {
      return write_output(a.output, produce);
    };
  auto output = pipeline::convert(*request, diag);
  clear_status();  // (a merge's count, if shown)
  cli::report(diag, a.quiet);
  if (!output) return fail(output.error());
  // --list-functions prints to standard output whatever -o says.
  std::string path = list_functions.empty() ? a.output : "-";
  if (a.kcachegrind && list_functions.empty()) {
    auto temporary = cli::kcachegrind_path(a);
    if (!temporary) return fail(temporary.error());
    path = *temporary;
  }
  if (!output->streamed)
    if (auto written = write_output(path, output->bytes); !written) return fail(written.error());
  if (a.timings)
    for (const auto& phase : output->phases)
      std::fprintf(stderr, "graphgen: timing: %-8s %8.3f s, peak memory %s\n", phase.name.c_str(), phase.seconds,
                   format_size(phase.peak_bytes).c_str());
  if (a.kcachegrind && list_functions.empty()) return cli::open_in_kcachegrind(path, a.output == "-");
  if (!g_chosen_output.empty() && !a.quiet)
    std::fprintf(stderr, "graphgen: wrote %s, as pyprof2calltree names it (-o FILE for another name)\n",
                 g_chosen_output.c_str());
  return kExitOk;
}

// graphgen run without -o: cProfile's -s KEY prints the stats table when
// the program ends, as python -m cProfile -s does; otherwise the output is
// a file named after the script (app.py: app.pstats, or app.png with -T
// png; under mpirun app_RANK.pstats), never mixed into the program's own
// standard output.
void default_run_output(pipeline::Settings& settings, cli::RunTarget& target) {
  auto given = [&](std::string_view key) -> const std::string* {
    for (const auto& [k, v] : settings)
      if (k == key) return &v;
    return nullptr;
  };
  if (given("output") || given("kcachegrind")) return;
  const std::string* to = given("to");
  const std::string_view report = formats::stats_report_format().name;
  if (given("sort") && (!to || *to == report)) {
    if (!to) {
      settings.emplace_back("to", std::string(report));
      // cProfile's print_stats strips the folders off file names first
      // (pstats' strip_dirs), so its table says encoder.py:205(iterencode).
      if (!given("strip-dirs")) settings.emplace_back("strip-dirs", "true");
    }
    return;
  }
  const formats::OutputFormat* format = to ? formats::find_output_format(*to) : &formats::run_profile_format();
  if (!format || format->extensions.empty()) return;  // (-T was checked: every format has a name ending)
  std::string stem = target.module.empty() ? std::filesystem::path(target.argv.at(0)).stem().string() : target.module;
  if (stem.empty() || stem == "." || stem == "..") stem = "profile";
  // (Under mpirun, one file a rank: app_3.pstats.)
  const std::string ending(format->extensions[0]);
  auto ranked = cli::mpi_output_path(stem + "_{rank}" + ending);
  target.chosen_output = ranked ? *ranked : stem + ending;
  settings.emplace_back("output", target.chosen_output);
}

// `graphgen run [OPTIONS] script.py [ARGS...]` / `graphgen run -m MODULE
// [ARGS...]`: graphgen's options up to the script, the rest is the script's.
int run_command(int argc, char** argv) {
  cli::RunCommandLine line;
  if (int status = cli::parse_run(argc - 1, argv + 1, line); status >= 0) return status;
  cli::RunTarget& target = line.target;
  if (target.module.empty() && target.argv.empty())
    return fail(bad_usage("expected a script (or -m MODULE) to profile, found none"));
  if (!cli::can_run_python())
    return fail(
        bad_usage("this graphgen was built without Python (python3-dev); profile with python3 -m cProfile -o "
                  "out.pstats script.py, then run graphgen out.pstats"));
  try {
    pipeline::Settings& settings = line.settings;
    default_run_output(settings, target);
    if (!g_chosen_output.empty()) target.chosen_output = g_chosen_output;
    for (auto& [key, value] : settings)
      if (key == "output") {
        auto path = cli::mpi_output_path(value);
        if (!path) return fail(path.error());
        value = *path;
      }
    return cli::run_python(settings, target);
  } catch (const std::bad_alloc&) {
    return fail(bad_input("graphgen run: out of memory"));
  }
}

}  // namespace

int main(int argc, char** argv) {
  cli::use_logger("graphgen");

  cli::use_python_regex();
  // pyprof2calltree's -i/--infile, --outfile, -r/--run-script: its command
  // lines work unchanged (pyprof2calltree.h).
  std::vector<std::string> theirs_storage;
  std::vector<char*> theirs_argv;
  if (auto theirs = cli::from_pyprof2calltree(std::vector<std::string>(argv + 1, argv + argc))) {
    theirs_storage.push_back(argv[0]);
    theirs_storage.insert(theirs_storage.end(), theirs->args.begin(), theirs->args.end());
    for (std::string& s : theirs_storage) theirs_argv.push_back(s.data());
    theirs_argv.push_back(nullptr);
    argc = static_cast<int>(theirs_storage.size());
    argv = theirs_argv.data();
    g_chosen_output = theirs->chosen_output;
  }
  const bool runs_a_program = argc >= 2 && std::string_view(argv[1]) == "run";
  tune_malloc_for_this_run(runs_a_program);  // (before any thread starts)
  if (runs_a_program) return run_command(argc, argv);
  cli::GraphgenCommandLine line;
  if (int status = cli::parse_graphgen(argc, argv, line); status >= 0) return status;
  const std::string& shell = line.completion_shell;
  if (!shell.empty()) {
    auto script = cli::completion_script(shell);
    if (!script) return fail(bad_usage(fmt::format("--completion {}: expected bash or zsh", quote_input(shell))));
    return cli::print_or_fail(*script);
  }
  try {
    return run(line.settings);
  } catch (const std::bad_alloc&) {
    return fail(
        bad_input("graphgen: out of memory: this machine has less than these inputs need; --max-memory "
                  "sets a limit that fails earlier, with the step that needed it"));
  }
}
