// The command lines of graphgen, graphgen run and graphgen-mpi: the options
// of pipeline/options.h, and each front end's own, on CLI11, in one file
// (command_line.cc). CLI11 is header-only: its header is 7 s of compiling
// a file (Release, one core), a parser 6 s more, and three files built one;
// CI builds twice.
#pragma once

#include <string>

#include "pipeline.h"
#include "run.h"

namespace graphgen::cli {

/// graphgen's own command line (not `graphgen run`'s).
struct GraphgenCommandLine {
  pipeline::Settings settings;   // for make_options()
  std::string completion_shell;  // --completion SHELL, else empty
};

/// `graphgen run [OPTIONS] script.py [ARGS...]`, `graphgen run [OPTIONS]
/// -m MODULE [ARGS...]`: graphgen's options up to the script, the rest is
/// the script's (target.argv).
struct RunCommandLine {
  pipeline::Settings settings;
  RunTarget target;
};

/// Each parses its front end's command line: -1 to go on, with `out` filled,
/// else the exit status (--help, --version, a usage error, all printed).
/// parse_run() takes the arguments after graphgen's own name (argv[0] is
/// "run"); graphgen-mpi's inputs are required (its standard input is not
/// the profile's under mpirun).
int parse_graphgen(int argc, char** argv, GraphgenCommandLine& out);
int parse_run(int argc, char** argv, RunCommandLine& out);
int parse_mpi(int argc, char** argv, pipeline::Settings& out);

}  // namespace graphgen::cli
