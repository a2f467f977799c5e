// What graphgen, graphgen run and graphgen-mpi share besides their command
// lines (command_line.h): exit statuses, how errors, warnings and help are printed,
// kcachegrind, MPI output paths.
#pragma once

#include <string>
#include <string_view>

#include "graphgen/error.h"
#include "options.h"
#include "pipeline.h"

namespace graphgen::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitBadInput = 1;
inline constexpr int kExitBadUsage = 2;

/// Whether -q is among `settings` (warnings of make_options() itself are
/// printed before its Options exist).
bool quiet(const pipeline::Settings& settings);

/// -k: the path the callgrind output goes to (-o, else a new temporary
/// file, for the viewer).
Expected<std::string> kcachegrind_path(const pipeline::Options& o);
/// The first executable `program` in PATH's folders (/usr/bin:/bin without
/// PATH), or empty.
std::string find_on_path(std::string_view program);

/// Opens `path` in kcachegrind or qcachegrind, whichever is on PATH, and
/// waits for it: 0 when it ends well (a `temporary` file is then removed),
/// else 1 with a message saying what happened and where the profile is
/// (kept: the viewer could not start, has no display, or failed).
int open_in_kcachegrind(const std::string& path, bool temporary);

/// `graphgen run -o` under an MPI launcher: {rank} and {size} in `path`
/// become this process's rank and the number of ranks, from the
/// launcher's environment (Open MPI, MPICH/Hydra's PMI, PMIx, Slurm); a
/// usage error when the path asks for them and there is no launcher.
Expected<std::string> mpi_output_path(const std::string& path);

/// Prints warnings on stderr as "NAME: warning: ...". Each binary and module
/// that prints calls it once: spdlog is compiled into each (header-only), so
/// each has its own default logger (graphgen-python.so's as graphgen's).
void use_logger(const char* name);
/// Names the tool usage errors are said by: "graphgen run: error: ...", as
/// its command line's own errors are (graphgen until named).
void name_usage_errors(std::string_view tool);
/// Prints an error (one line) and returns its exit status.
int fail(const Error& e);
/// Prints the warnings, unless quiet.
void report(const Diagnostics& diag, bool quiet);
/// One warning, as report() prints each.
void report_one(const std::string& warning);
/// Writes help or version text to standard output, checked like any output.
int print_or_fail(const std::string& text);

}  // namespace graphgen::cli
