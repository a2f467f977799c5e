// What the input arguments name, beyond plain paths, for jobs with more rank
// files than a command line holds (100 000 names pass Linux's ARG_MAX):
//   - a folder: every regular file in it;
//   - a quoted glob ('ranks/cpu_*.prof') that names no file itself: its matches;
//   - @LIST: the paths in LIST, one per line (@- reads them from standard input).
// Folders and globs are sorted in natural order (cpu_2 before cpu_10), so
// ranks come in their numbers' order.
#pragma once

#include <string>
#include <vector>

#include "graphgen/error.h"

namespace graphgen::pipeline {

/// The paths the arguments name, in order; an error names the argument
/// that names nothing.
Expected<std::vector<std::string>> expand_inputs(const std::vector<std::string>& arguments);

/// valgrind --tool=callgrind --separate-threads=yes writes each thread to
/// NAME-01, NAME-02... and leaves NAME itself empty; KCacheGrind opens
/// NAME's parts. An empty input with such parts beside it, whose name
/// holds "callgrind" or whose first part is a callgrind file, is left out where some of them are inputs too
/// (`callgrind.out.*`), else read as its parts, with a warning saying so.
void callgrind_parts(std::vector<std::string>& inputs, Diagnostics& diag);

/// Natural order: digit runs compare as numbers.
bool natural_less(const std::string& a, const std::string& b);

}  // namespace graphgen::pipeline
