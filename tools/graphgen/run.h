// `graphgen run [OPTIONS] script.py [ARGS...]` and `graphgen run -m MODULE
// [ARGS...]`: profile a Python program with cProfile in the Python embedded
// in graphgen (the Debian CPython it was built with), then write what the
// options ask for, as `python3 -m cProfile -o p.pstats script.py && graphgen
// p.pstats ...` would, without the file in between.
#pragma once

#include <string>
#include <vector>

#include "cli.h"

namespace graphgen::cli {

struct RunTarget {
  std::string module;             // -m MODULE, else empty
  std::vector<std::string> argv;  // script and its arguments, or the module's arguments
  /// --memory[=FRAMES]: trace allocations with tracemalloc (this many
  /// frames a traceback) instead of profiling time; 0: cProfile.
  int memory_frames = 0;
  /// The output file graphgen chose (no -o: named after the script), said
  /// on stderr once written; empty when the user named it.
  std::string chosen_output;
};

/// Whether this graphgen embeds Python (built with python3-dev).
bool can_run_python();

/// With Python, --restrict patterns are Python's `re` (python/regex.h);
/// without, nothing changes (they are ECMAScript, Python-only syntax refused).
void use_python_regex();

/// Runs the target under cProfile (or tracemalloc, its snapshot taken as
/// the program ends) and writes the output `settings` ask for.
/// Returns the program's exit status (its SystemExit code, 1 for an
/// uncaught exception, whose traceback is printed as Python prints it), or
/// graphgen's own when the program succeeded and the output could not be
/// written.
int run_python(const pipeline::Settings& settings, const RunTarget& target);

}  // namespace graphgen::cli
