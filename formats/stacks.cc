#include "stacks.h"

#include "graphgen/text.h"

namespace graphgen::detail {

StackBuilder::StackBuilder(Profile& p, std::string_view event_name, std::string_view unit) : p_(p) {
  p_.events.push_back({p_.strings.intern(event_name), p_.strings.intern(unit), 0});
  p_.keeps_stack_totals = true;
  p_.stack_nodes.push_back({0, 0});  // the root
  p_.stack_node_cost.push_back(0);
}

FuncId StackBuilder::function(std::string_view label, std::string_view module, std::string_view module_shown,
                              bool show_module) {
  key_.assign(label);
  key_ += '\x1f';
  key_ += module;
  auto it = functions_.find(key_);
  if (it != functions_.end()) return it->second;
  Function f;
  f.label = f.name = p_.strings.intern(label);
  if (!module.empty()) f.object = p_.strings.intern(module);
  f.module = p_.strings.intern(module_shown);
  f.show_module = show_module;
  FuncId id = p_.add_function(f);
  functions_.emplace(key_, id);
  seen_in_sample_.push_back(0);
  return id;
}

void StackBuilder::add_sample(const std::vector<FuncId>& leaf_first, Cost weight) {
  if (leaf_first.empty()) return;
  ++samples_;
  FuncId leaf = leaf_first.front();
  p_.self(leaf, 0) = saturating_add(p_.self(leaf, 0), weight);
  for (std::size_t i = 1; i < leaf_first.size(); ++i) {
    FuncId callee = leaf_first[i - 1];
    FuncId caller = leaf_first[i];
    std::uint64_t key = (static_cast<std::uint64_t>(caller) << 32) | callee;
    auto [it, inserted] = calls_.try_emplace(key, 0);
    if (inserted) it->second = p_.add_call({caller, callee, kUnknownCount});
    p_.inclusive(it->second, 0) = saturating_add(p_.inclusive(it->second, 0), weight);
  }
  // Each distinct function of the stack once (recursion counts once).
  for (FuncId f : leaf_first) {
    if (seen_in_sample_[f] == samples_) continue;
    seen_in_sample_[f] = samples_;
    p_.stack_inclusive(f, 0) = saturating_add(p_.stack_inclusive(f, 0), weight);
  }
  // Callsite tree, root first.
  std::uint32_t node = 0;
  for (std::size_t i = leaf_first.size(); i-- > 0;) {
    std::uint64_t key = (static_cast<std::uint64_t>(node) << 32) | leaf_first[i];
    auto [it, inserted] = children_.try_emplace(key, 0);
    if (inserted) {
      it->second = static_cast<std::uint32_t>(p_.stack_nodes.size());
      p_.stack_nodes.push_back({node, leaf_first[i]});
      p_.stack_node_cost.push_back(0);
    }
    node = it->second;
  }
  p_.stack_node_cost[node] = saturating_add(p_.stack_node_cost[node], weight);
}

}  // namespace graphgen::detail
