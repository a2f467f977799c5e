// Shared by the sampling readers (perf script, collapsed stacks): turns
// stacks of frames into the model's functions, calls, self and stack totals,
// and the callsite tree, with gprof2dot's counting rules.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "graphgen/flat_index.h"
#include "graphgen/profile.h"

namespace graphgen::detail {

class StackBuilder {
 public:
  /// `event_name`/`unit` name the single cost column (e.g. "samples").
  StackBuilder(Profile& p, std::string_view event_name, std::string_view unit);

  /// The function for (symbol, module): interned once per distinct pair.
  /// `label` is the node name, `module` the full module (DSO path or file),
  /// `module_shown` what the label prints above the name when `show_module`.
  FuncId function(std::string_view label, std::string_view module, std::string_view module_shown,
                  bool show_module);

  /// Adds one sample: `leaf_first` frames, innermost first, weighing `weight`.
  /// Self cost goes to the leaf, each adjacent pair adds to its call, every
  /// distinct function of the stack adds to its stack total, and the stack
  /// is added to the callsite tree.
  void add_sample(const std::vector<FuncId>& leaf_first, Cost weight);

  std::size_t samples() const { return samples_; }

 private:
  Profile& p_;
  FlatIndex functions_;  // (label, object) -> FuncId
  FlatIndex calls_;      // (caller, callee) -> CallId
  FlatIndex children_;   // (parent node, function) -> stack node
  std::vector<std::size_t> seen_in_sample_;
  std::size_t samples_ = 0;
};

}  // namespace graphgen::detail
