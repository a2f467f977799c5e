// The node tree of V8's CPU profiles, which a .cpuprofile's "nodes"
// (cpuprofile.cc) and a trace's ProfileChunk events (v8_samples.cc) both
// hold: each node a call frame (functionName, url, lineNumber) under its
// parent, named by children ids or a parent id.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <numeric>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/read_options.h"
#include "graphgen/analysis/stacks.h"
#include "graphgen/error.h"
#include "graphgen/profile.h"

namespace graphgen::chrome {

constexpr std::uint32_t kNoNode = UINT32_MAX;

struct V8Node {
  std::int64_t id = 0;
  std::string name, url;
  std::int64_t line = -1;  // 0-based, -1: none
  std::vector<std::int64_t> children;
  std::int64_t parent_id = -1;
  std::size_t offset = 0;  // where the input holds it, for messages
  std::uint32_t parent = kNoNode;
};

/// Each node's parent from its children ids or its parent id, checked,
/// and its depth (the root's 1), without recursion: a parent link that
/// comes back is a loop. `where` names a node in the messages.
Expected<bool> link_nodes(std::vector<V8Node>& nodes, const std::unordered_map<std::int64_t, std::uint32_t>& index,
                          std::vector<std::int64_t>& depth, const std::function<std::string(const V8Node&)>& where);

/// The events of a V8 CPU profile: time in microseconds, and samples.
std::vector<Event> v8_events(Profile& p);

/// A function per name (an empty one `(anonymous)`), url and line, as
/// Profile::line_in_identity keeps them.
class V8Functions {
 public:
  FuncId of(Profile& p, const V8Node& n);
  std::size_t size() const { return functions_.size(); }

 private:
  std::unordered_map<std::string, FuncId> functions_;
  std::string key_;
};

// The samples in time order: sample i was taken at start + delta(0) + ...
// + delta(i) and lasts until the next one in time. In the order given (the
// usual case) the times are summed again as they are walked, without
// arrays of them; else they are kept and sorted (stably) first.
template <class Delta>
class TimeOrder {
 public:
  TimeOrder(double start, std::size_t n, const Delta& delta) : start_(start), n_(n), delta_(delta) {
    bool in_order = true;
    double t = start, last = 0;
    for (std::size_t i = 0; i < n; ++i) {
      t += delta(i);
      if (i > 0 && t < last) in_order = false;
      last = t;
    }
    if (in_order) return;
    at_.resize(n);
    t = start;
    for (std::size_t i = 0; i < n; ++i) at_[i] = t += delta(i);
    order_.resize(n);
    std::iota(order_.begin(), order_.end(), 0);
    std::stable_sort(order_.begin(), order_.end(), [&](std::size_t a, std::size_t b) { return at_[a] < at_[b]; });
  }
  /// The index of the k-th sample in time.
  std::size_t index(std::size_t k) const { return order_.empty() ? k : order_[k]; }
  /// To the k-th sample (k from 0 up): `now` its time, `next` the next one's.
  void step(std::size_t k) {
    if (order_.empty()) {
      now = k == 0 ? start_ + delta_(0) : next;
      if (k + 1 < n_) next = now + delta_(k + 1);
    } else {
      now = at_[order_[k]];
      if (k + 1 < n_) next = at_[order_[k + 1]];
    }
  }

  double now = 0, next = 0;

 private:
  double start_;
  std::size_t n_;
  const Delta& delta_;
  std::vector<double> at_;
  std::vector<std::size_t> order_;
};

/// A profile's node tree, linked (link_nodes()).
struct V8Tree {
  const std::vector<V8Node>& nodes;
  const std::unordered_map<std::int64_t, std::uint32_t>& index;
  const std::vector<std::int64_t>& depth;
};

/// What the messages of add_v8_stacks() name: the input, and where its
/// samples and its time deltas are.
struct V8Where {
  std::string_view path;
  std::size_t input_bytes;
  std::string samples, deltas;
};

/// The stacks of `n` samples into `builder` (events v8_events()): sample i,
/// of node `sample(i)`, taken at start + delta(0) + ... + delta(i), lasting
/// until the next in time (the last 0, as speedscope and the DevTools flame
/// chart count them); each node's stack one sample of its time and count,
/// under the process frame `process`. With a timeline, each sample on the
/// track `track()` makes (after the stacks).
template <class Sample, class Delta, class Track>
Expected<bool> add_v8_stacks(Profile& p, detail::StackBuilder& builder, V8Functions& functions, const V8Tree& tree,
                             double start, std::size_t n, Sample sample, Delta delta,
                             const formats::ReadOptions& options, const V8Where& where, std::string_view process,
                             Track track) {
  const std::vector<V8Node>& nodes = tree.nodes;
  TimeOrder<Delta> walk(start, n, delta);
  // Each node's time and samples.
  std::vector<double> time(nodes.size(), 0);
  std::vector<std::int64_t> count(nodes.size(), 0);
  const bool timeline = options.keep_timeline && options.keep_stacks;
  std::vector<std::uint32_t> node_of(timeline ? n : 0);  // the k-th sample in time's node
  for (std::size_t k = 0; k < n; ++k) {
    walk.step(k);
    const std::size_t i = walk.index(k);
    const double id = sample(i);
    // (Checked before the cast: a double beyond int64 does not convert.)
    auto it = std::fabs(id) < 9e18 && id == std::floor(id) ? tree.index.find(static_cast<std::int64_t>(id))
                                                           : tree.index.end();
    if (it == tree.index.end())
      return bad_input(fmt::format("{}: sample {} is of node {}, which is no node", where.samples, i, id));
    time[it->second] += k + 1 < n ? walk.next - walk.now : 0;
    ++count[it->second];
    if (timeline) node_of[k] = it->second;
  }
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (!(std::fabs(time[i]) < 9e18))
      return bad_input(
          fmt::format("{}: expected time deltas in microseconds, found deltas that add up to {} for node {}",
                      where.deltas, time[i], nodes[i].id));
  // The frames the stacks hold, before building them.
  std::size_t frames = 0;
  const std::size_t limit = std::size_t{10'000'000} + 64 * where.input_bytes;
  for (std::uint32_t i = 0; i < nodes.size(); ++i)
    if (count[i]) frames += static_cast<std::size_t>(tree.depth[i]);
  if (frames > limit)
    return bad_input(
        fmt::format("{}: the sampled stacks hold {} frames, more than {} for a file of {} bytes (nodes "
                    "are nested too deep)",
                    where.path, frames, limit, where.input_bytes));
  std::vector<FuncId> stack;
  std::vector<std::uint32_t> stack_node(timeline ? nodes.size() : 0, 0);
  for (std::uint32_t i = 0; i < nodes.size(); ++i) {
    if (!count[i]) continue;
    stack.clear();
    for (std::uint32_t m = i; m != kNoNode; m = nodes[m].parent)
      if (nodes[m].parent != kNoNode || nodes[m].name != "(root)") stack.push_back(functions.of(p, nodes[m]));
    if (stack.empty()) continue;
    const Cost w[2] = {static_cast<Cost>(std::llround(time[i])), count[i]};
    builder.add_sample(stack, w, process);
    if (timeline) stack_node[i] = builder.last_node();
    if (options.memory_budget && p.approximate_bytes() > options.memory_budget)
      return bad_input(formats::over_budget_message(where.path, options.memory_budget, p.functions.size(), 2));
  }
  if (timeline) {
    const std::uint32_t on = track();
    p.timeline.reserve(p.timeline.size() + n);
    for (std::size_t k = 0; k < n; ++k) {  // (walked again from the start)
      walk.step(k);
      const std::uint32_t node = stack_node[node_of[k]];
      if (node != 0) p.timeline.push_back({walk.now * 1e-6, k + 1 < n ? (walk.next - walk.now) * 1e-6 : 0.0, node, on});
    }
  }
  return true;
}

}  // namespace graphgen::chrome
