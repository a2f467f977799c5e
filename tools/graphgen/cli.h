// The command line shared by graphgen and graphgen-mpi: the options
// (gprof2dot's names and defaults), the request they make, and how errors,
// warnings and help are printed.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "graphgen/error.h"
#include "pipeline.h"

namespace graphgen::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitBadInput = 1;
inline constexpr int kExitBadUsage = 2;

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
  std::vector<std::string> focus, ignore, hide, show;
  bool fold_unknown = false;
  bool python = false, no_python = false;  // neither: automatic
  bool merge_by_name = false;
  double unit = 1e-6;
  bool skip_zero = false;
  std::string source_root;
  bool keep_going = false;
  std::string max_memory;
  std::size_t top = 0;
  bool imbalance = false;
  bool flame_reverse = false;
  bool compare = false;
  bool each = false;
  unsigned jobs = 0;
  double tolerance = 0.001;
  bool only_slower = false, only_faster = false, color_by_difference = false;
  bool kcachegrind = false;
  std::vector<std::string> sort;
  std::vector<std::string> restrictions;
  bool strip_dirs = false, callers = false, callees = false;
  bool timings = false;
  bool quiet = false;
};

/// Every option into `app`, bound to `a` (graphgen-mpi then removes those
/// it has no use for).
void add_options(CLI::App& app, Args& a);

/// The output formats table for --help's footer.
std::string output_formats_help();

/// Parses the command line; -1 to go on, else the exit status (help,
/// version, a usage error, all printed).
int parse(CLI::App& app, int argc, char** argv, std::string_view tool);

/// The request the options ask for, or the usage error.
Expected<pipeline::Request> make_request(const Args& a, Diagnostics& diag);

/// -k: the path the callgrind output goes to (-o, else a new temporary
/// file, which is kept for the viewer).
Expected<std::string> kcachegrind_path(const Args& a);
/// Opens `path` in kcachegrind or qcachegrind, whichever is on PATH, and
/// waits for it; its exit status, or 1 with a message when neither is there.
int open_in_kcachegrind(const std::string& path);

/// Prints an error (one line) and returns its exit status.
int fail(const Error& e);
/// Prints the warnings, unless quiet.
void report(const Diagnostics& diag, bool quiet);
/// Writes help or version text to standard output, checked like any output.
int print_or_fail(const std::string& text);

}  // namespace graphgen::cli
