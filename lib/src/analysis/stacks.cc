#include "graphgen/analysis/stacks.h"

#include "graphgen/text.h"

namespace graphgen::detail {

StackBuilder::StackBuilder(Profile& p, std::string_view event_name, std::string_view unit, bool keep_tree,
                           bool floating)
    : p_(p), keep_tree_(keep_tree) {
  p_.events.push_back({p_.strings.intern(event_name), p_.strings.intern(unit), 0, floating, kNoString});
  p_.keeps_stack_totals = true;
  if (keep_tree_) {
    p_.stack_nodes.push_back({0, 0});  // the root
    p_.stack_node_cost.push_back(0);
  }
}

StackBuilder::StackBuilder(Profile& p, const std::vector<Event>& events, bool keep_tree)
    : p_(p), keep_tree_(keep_tree) {
  for (const Event& e : events) p_.events.push_back(e);
  p_.keeps_stack_totals = true;
  if (keep_tree_) {
    p_.stack_nodes.push_back({0, 0});  // the root
    p_.stack_node_cost.resize(p_.events.size(), 0);
  }
}

FuncId StackBuilder::function(std::string_view name, std::string_view object, bool has_object, std::string_view process,
                              bool unresolved) {
  std::uint64_t h = FlatIndex::hash_bytes(process, FlatIndex::hash_bytes(object, FlatIndex::hash_bytes(name)));
  return functions_.find_or_add(
      h,
      [&](std::uint32_t f) {
        const Function& fn = p_.functions[f];
        return p_.str(fn.name) == name && p_.str(fn.object) == object && p_.str(fn.process) == process;
      },
      [&] {
        Function f;
        f.name = p_.strings.intern(name);
        f.object = p_.strings.intern(object);
        f.process = process.empty() ? kNoString : p_.strings.intern(process);
        f.has_object = has_object;
        f.unresolved = unresolved;
        return p_.add_function(f);
      });
}

FuncId StackBuilder::python_function(std::string_view name, std::string_view file) {
  return python_.find_or_add(
      FlatIndex::hash_bytes(file, FlatIndex::hash_bytes(name)),
      [&](std::uint32_t f) {
        const Function& fn = p_.functions[f];
        return p_.str(fn.name) == name && p_.str(fn.file) == file;
      },
      [&] {
        Function f;
        f.name = p_.strings.intern(name);
        f.file = p_.strings.intern(file);
        f.python = true;
        return p_.add_function(f);
      });
}

void StackBuilder::add_sample(const std::vector<FuncId>& leaf_first, Cost weight, Cost call_weight,
                              std::string_view process) {
  add_sample(leaf_first, &weight, &call_weight, process);
}

void StackBuilder::add_sample(const std::vector<FuncId>& leaf_first, Cost weight, Cost call_weight,
                              std::string_view process, Replay& record) {
  add_sample(leaf_first, &weight, &call_weight, process, &record);
}

void StackBuilder::replay(const ReplayView& record, const Cost* weights, const Cost* call_weights) {
  ++samples_;
  const std::size_t n = p_.events.size();
  for (std::size_t e = 0; e < n; ++e) p_.self(record.leaf, e) = p_.add(e, p_.self(record.leaf, e), weights[e]);
  for (CallId c : record.calls)
    for (std::size_t e = 0; e < n; ++e) p_.inclusive(c, e) = p_.add(e, p_.inclusive(c, e), call_weights[e]);
  for (FuncId f : record.distinct)
    for (std::size_t e = 0; e < n; ++e) p_.stack_inclusive(f, e) = p_.add(e, p_.stack_inclusive(f, e), weights[e]);
  last_node_ = 0;
  if (!keep_tree_) return;
  for (std::size_t e = 0; e < n; ++e)
    p_.stack_node_cost[record.node * n + e] = p_.add(e, p_.stack_node_cost[record.node * n + e], weights[e]);
  last_node_ = record.node;
}

void StackBuilder::add_sample(const std::vector<FuncId>& leaf_first, const Cost* weights, const Cost* call_weights,
                              std::string_view process, Replay* record) {
  last_node_ = 0;
  if (record) {
    record->calls.clear();
    record->distinct.clear();
    record->valid = !leaf_first.empty();  // (what follows always fills it)
  }
  if (leaf_first.empty()) return;
  ++samples_;
  const std::size_t n = p_.events.size();
  if (seen_in_sample_.size() < p_.functions.size()) seen_in_sample_.resize(p_.functions.size(), 0);
  FuncId leaf = leaf_first.front();
  for (std::size_t e = 0; e < n; ++e) p_.self(leaf, e) = p_.add(e, p_.self(leaf, e), weights[e]);
  const bool ahead = leaf_first.size() > 2 && calls_.size() >= kCallsAheadAbove;
  if (ahead) ask_for_calls(leaf_first);
  for (std::size_t i = 1; i < leaf_first.size(); ++i) {
    FuncId callee = leaf_first[i - 1];
    FuncId caller = leaf_first[i];
    CallId c = calls_.find_or_add(
        ahead ? call_hashes_[i - 1] : FlatIndex::mix(caller, callee),
        [&](std::uint32_t id) { return p_.calls[id].caller == caller && p_.calls[id].callee == callee; },
        [&] {
          return p_.add_call({caller, callee, kUnknownCount});
        });
    for (std::size_t e = 0; e < n; ++e) p_.inclusive(c, e) = p_.add(e, p_.inclusive(c, e), call_weights[e]);
    if (record) record->calls.push_back(c);
  }
  if (record) record->leaf = leaf;
  // Each distinct function of the stack once (recursion counts once).
  for (FuncId f : leaf_first) {
    if (seen_in_sample_[f] == samples_) continue;
    seen_in_sample_[f] = samples_;
    for (std::size_t e = 0; e < n; ++e) p_.stack_inclusive(f, e) = p_.add(e, p_.stack_inclusive(f, e), weights[e]);
    if (record) record->distinct.push_back(f);
  }
  if (!keep_tree_) return;
  // Callsite tree, root first: the process, then the outermost frame; the
  // frames shared with the last sample's path from its root are its nodes.
  const StringId process_node_id = process.empty() ? kNoString : process_id(process);
  const std::size_t depth = leaf_first.size();
  std::size_t same = 0;
  if (path_valid_ && process_node_id == path_process_) {
    const std::size_t most = std::min(depth, path_functions_.size());
    while (same < most && path_functions_[same] == leaf_first[depth - 1 - same]) ++same;
  } else {
    path_process_node_ = process.empty() ? 0 : child(0, 0, process_node_id);
    path_process_ = process_node_id;
    path_valid_ = true;
  }
  std::uint32_t node = same > 0 ? path_nodes_[same - 1] : path_process_node_;
  path_functions_.resize(depth);
  path_nodes_.resize(depth);
  for (std::size_t d = same; d < depth; ++d) {
    const FuncId f = leaf_first[depth - 1 - d];
    node = child(node, f, kNoString);
    path_functions_[d] = f;
    path_nodes_[d] = node;
  }
  for (std::size_t e = 0; e < n; ++e)
    p_.stack_node_cost[node * n + e] = p_.add(e, p_.stack_node_cost[node * n + e], weights[e]);
  last_node_ = node;
  if (record) record->node = node;
}

void StackBuilder::ask_for_calls(const std::vector<FuncId>& leaf_first) {
  const std::size_t pairs = leaf_first.size() - 1;
  call_hashes_.resize(pairs);
  for (std::size_t i = 0; i < pairs; ++i) {
    call_hashes_[i] = FlatIndex::mix(leaf_first[i + 1], leaf_first[i]);
    calls_.prefetch(call_hashes_[i]);
  }
  const std::size_t n = p_.events.size();
  for (std::size_t i = 0; i < pairs; ++i) {
    const std::int64_t row = calls_.likely_row(call_hashes_[i]);
    if (row < 0) continue;  // (a new call: added in place)
    __builtin_prefetch(&p_.calls[static_cast<std::size_t>(row)]);
    __builtin_prefetch(p_.call_cost.data() + static_cast<std::size_t>(row) * n);
  }
}

StringId StackBuilder::process_id(std::string_view process) {
  if (last_process_ == kNoString || process != last_process_name_) {
    last_process_ = p_.strings.intern(process);
    last_process_name_ = std::string(process);
  }
  return last_process_;
}

std::uint32_t StackBuilder::child(std::uint32_t parent, FuncId f, StringId process) {
  return children_.find_or_add(
      FlatIndex::mix(parent, f, process),
      [&](std::uint32_t n) {
        const StackNode& s = p_.stack_nodes[n];
        return s.parent == parent && s.function == f && s.process == process;
      },
      [&] {
        p_.stack_nodes.push_back({parent, f, process});
        p_.stack_node_cost.resize(p_.stack_node_cost.size() + p_.events.size(), 0);
        return static_cast<std::uint32_t>(p_.stack_nodes.size() - 1);
      });
}

void StackBuilder::add_frameless_sample(Cost weight, std::string_view process) {
  last_node_ = 0;
  if (!keep_tree_ || process.empty()) return;
  std::uint32_t node = child(0, 0, process_id(process));
  last_node_ = node;
  const std::size_t n = p_.events.size();
  p_.stack_node_cost[node * n] = p_.add(0, p_.stack_node_cost[node * n], weight);
}

std::uint32_t StackBuilder::track(std::int64_t pid, std::int64_t tid, std::string_view name, std::string_view process) {
  return tracks_.find_or_add(
      FlatIndex::mix(static_cast<std::uint64_t>(pid), static_cast<std::uint64_t>(tid)),
      [&](std::uint32_t t) { return p_.tracks[t].pid == pid && p_.tracks[t].tid == tid; },
      [&] {
        Track t{pid, tid, p_.strings.intern(name), process.empty() ? kNoString : p_.strings.intern(process)};
        p_.tracks.push_back(t);
        return static_cast<std::uint32_t>(p_.tracks.size() - 1);
      });
}

}  // namespace graphgen::detail
