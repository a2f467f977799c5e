// --each: one output per input, the inputs converted in parallel by worker
// processes (forked: Graphviz's renderer keeps global state and is not
// thread-safe), replacing a shell loop of `graphgen cpu_N.prof -o ...`.
//
// The output path is a template: {stem} (the file name without its
// extension and compression suffix: cpu_12.prof.gz -> cpu_12), {name} (the
// file name), {dir} (its folder), {rank} (the last number in the file
// name, else the index), {index} (the input's position, from 0); {{ and }}
// stand for braces. Folders the paths need are made.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "graphgen/error.h"
#include "pipeline.h"

namespace graphgen::pipeline {

/// The output path for input `index`, or a usage error naming the
/// unknown placeholder.
Expected<std::string> each_output_path(std::string_view output_template, const std::string& input, std::size_t index);

/// What one input came to.
struct EachResult {
  std::string input, output;
  bool ok = false;
  Error::Kind kind = Error::Kind::kBadInput;  // when !ok
  std::string error;                          // when !ok
  std::vector<std::string> warnings;
};

/// Converts every input of `base` on its own (`base.inputs` each alone,
/// the rest of `base` as it is) to the path the template gives it, on
/// `jobs` worker processes (0: one per core). `on_result` is called in the
/// parent as each input finishes, in finishing order. A failure does not
/// stop the others. Usage errors that concern all inputs (an output that
/// is standard output, two inputs given one path, a template without a
/// placeholder for several inputs) come back before anything runs.
Expected<std::vector<EachResult>> run_each(const Request& base, std::string_view output_template, unsigned jobs,
                                           const std::function<void(const EachResult&, std::size_t done)>& on_result);

}  // namespace graphgen::pipeline
