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
  /// `event_name`/`unit` name the single cost column (e.g. "samples");
  /// `keep_tree` keeps the callsite tree (flame graphs, stack filters).
  StackBuilder(Profile& p, std::string_view event_name, std::string_view unit, bool keep_tree = true);

  /// The function for (name, object): interned once per distinct pair.
  /// `has_object` says the input named an object (possibly empty).
  FuncId function(std::string_view name, std::string_view object, bool has_object);

  /// Adds one sample: `leaf_first` frames, innermost first, weighing `weight`.
  /// Self cost goes to the leaf, each adjacent pair adds to its call, every
  /// distinct function of the stack adds to its stack total, and the stack
  /// is added to the callsite tree.
  void add_sample(const std::vector<FuncId>& leaf_first, Cost weight);

  std::size_t samples() const { return samples_; }

 private:
  Profile& p_;
  bool keep_tree_;
  FlatIndex functions_;  // (name, object) -> FuncId
  FlatIndex calls_;      // (caller, callee) -> CallId
  FlatIndex children_;   // (parent node, function) -> stack node
  std::vector<std::size_t> seen_in_sample_;
  std::size_t samples_ = 0;
};

}  // namespace graphgen::detail
