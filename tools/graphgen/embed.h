// graphgen's embedded CPython lives in a module of its own,
// graphgen-python.so (embed.cc: `graphgen run` and Python's `re` for
// --restrict), loaded on first use (embed_loader.cc): a run that does
// neither never loads libpython, which costs every start 0.7 ms and 350
// page faults and holds 2 MB. These are the module's entry points, looked
// up by name; both sides are built together from one source tree.
#pragma once

#include <optional>
#include <string>

#include "run.h"
#include "stats/writer.h"

extern "C" {
/// run_python() in the module (its own copy of the pipeline, with
/// Python's `re` installed for its restrictions).
using GraphgenEmbedRun = int(const graphgen::pipeline::Settings* settings, const graphgen::cli::RunTarget* target);
/// compile_python_regex() in the module, its result in `out`.
using GraphgenEmbedCompile = void(const std::string* pattern, std::optional<graphgen::stats::Search>* out);
}

namespace graphgen::cli {
/// The module's file name, beside the graphgen binary in the build tree.
inline constexpr const char* kEmbedModule = "graphgen-python.so";
}  // namespace graphgen::cli
