// Python's `re` for pstats restrictions (--restrict, restrict=): pstats
// users write Python regular expressions, so graphgen and the module search
// with CPython's own re.compile(pattern).search, as pstats does.
#pragma once

#include <optional>
#include <string>

#include "stats/writer.h"

namespace graphgen::python {

/// CPython's re.compile(pattern).search, or nothing when the pattern does
/// not compile (or no interpreter could start).
std::optional<stats::Search> compile_python_regex(const std::string& pattern);

/// Installs it for the stats report (stats::set_python_regex). In graphgen,
/// a bare interpreter is started the first time a pattern is compiled; in
/// the module, the running one is used. Each call takes the GIL.
void install_python_regex();

}  // namespace graphgen::python
