// The module graphgen loads for what needs CPython (embed.h).
#include "embed.h"

#include "cli.h"
#include "regex.h"

extern "C" {

[[gnu::visibility("default")]] int graphgen_embed_run(const graphgen::pipeline::Settings* settings,
                                                      const graphgen::cli::RunTarget* target) {
  graphgen::python::install_python_regex();  // (for this module's copy of the report)
  graphgen::cli::use_logger("graphgen");     // (and of spdlog's default logger)
  return graphgen::cli::run_python(*settings, *target);
}

[[gnu::visibility("default")]] void graphgen_embed_compile(const std::string* pattern,
                                                           std::optional<graphgen::stats::Search>* out) {
  *out = graphgen::python::compile_python_regex(*pattern);
}
}
