#include "graphgen/analysis/flame.h"

#include <fmt/format.h>

#include <algorithm>

#include "graphgen/analysis/integrate.h"
#include "graphgen/flat_index.h"
#include "graphgen/labels.h"
#include "graphgen/utf8.h"

namespace graphgen {
namespace {

FlameTree from_stacks(const Profile& p, std::size_t event) {
  FlameTree tree;
  const std::size_t ne = p.events.size();
  tree.frames.resize(p.stack_nodes.size());
  for (std::size_t n = 0; n < p.stack_nodes.size(); ++n) {
    FlameFrame& f = tree.frames[n];
    f.parent = p.stack_nodes[n].parent;
    f.function = p.stack_nodes[n].function;
    f.process = p.stack_nodes[n].process;
    f.self = p.value(event, p.stack_node_cost[n * ne + event]);
    f.total = f.self;
  }
  // Children come after their parent: one backward pass sums the totals.
  for (std::size_t n = tree.frames.size(); n-- > 1;) tree.frames[tree.frames[n].parent].total += tree.frames[n].total;
  return tree;
}

namespace {

double total_of(const CallGraph& g, FuncId f) { return g.nodes[f].total_ratio.value_or(0); }

// What a function passes to its callees per unit of its total, scaled down
// where recursion makes the calls' shares add up to more than the function.
std::vector<double> pass_factors(const CallGraph& g) {
  const std::size_t n = g.nodes.size();
  std::vector<double> pass(n, 0);
  for (FuncId f = 0; f < n; ++f) {
    double out = 0;
    for (std::uint32_t i = g.edge_begin[f]; i < g.edge_begin[f + 1]; ++i)
      if (g.edges[i].callee != f) out += g.edges[i].total_ratio.value_or(0);
    double t = total_of(g, f);
    pass[f] = t <= 0 ? 0 : (out > t ? 1.0 / out : 1.0 / t);
  }
  return pass;
}

// The roots: the heaviest function of each group of mutually recursive
// functions (strongly connected component) that no other function calls.
// (Python's exec calls the module that calls runpy that calls exec: the
// program's entry is in a cycle, and only the profiler's own `disable` is
// called by nothing.) A function whose only caller is itself (Python
// 3.11's nested comprehensions on one line share one key) is a root only
// when nothing else is, and its calls do not hide the real entry. Without
// the profile's ids, or without any such root: the heaviest function.
std::vector<FuncId> flame_roots(const Profile& p, const CallGraph& g) {
  const std::size_t n = g.nodes.size();
  std::vector<FuncId> roots;
  if (n == p.functions.size()) {
    Cycles cycles = find_cycles(p, Adjacency::build(p));
    auto component = [&](FuncId f) -> std::size_t {
      return cycles.cycle_of[f] == Cycles::kNone ? cycles.members.size() + f : cycles.cycle_of[f];
    };
    const std::size_t nc = cycles.members.size() + n;
    std::vector<bool> entered(nc, false), calls_itself(n, false);
    for (const Call& c : p.calls) {
      if (c.caller >= n || c.callee >= n) continue;
      if (c.caller == c.callee) calls_itself[c.caller] = true;
      if (component(c.caller) != component(c.callee)) entered[component(c.callee)] = true;
    }
    std::vector<bool> self_only(n, false);
    for (FuncId f = 0; f < n; ++f)
      self_only[f] = calls_itself[f] && cycles.cycle_of[f] == Cycles::kNone && !entered[component(f)];
    std::fill(entered.begin(), entered.end(), false);
    for (const Call& c : p.calls)
      if (c.caller < n && c.callee < n && !self_only[c.caller] && component(c.caller) != component(c.callee))
        entered[component(c.callee)] = true;
    for (bool fallback : {false, true}) {
      std::vector<FuncId> best(nc, UINT32_MAX);
      for (FuncId f = 0; f < n; ++f) {
        std::size_t k = component(f);
        if (entered[k] || self_only[f] != fallback || total_of(g, f) <= 0) continue;
        if (best[k] == UINT32_MAX || total_of(g, f) > total_of(g, best[k])) best[k] = f;
      }
      for (FuncId f : best)
        if (f != UINT32_MAX) roots.push_back(f);
      if (!roots.empty()) break;
    }
    std::sort(roots.begin(), roots.end());
  }
  if (roots.empty()) {
    FuncId heaviest = 0;
    for (FuncId f = 1; f < n; ++f)
      if (total_of(g, f) > total_of(g, heaviest)) heaviest = f;
    if (total_of(g, heaviest) > 0) roots.push_back(heaviest);
  }
  return roots;
}

}  // namespace

FlameTree from_call_ratios(const Profile& p, std::size_t event, const CallGraph& g, double min_share,
                           std::size_t max_frames) {
  FlameTree tree;
  // Without calls or reported totals (line_profiler's functions) each
  // function is a stack of one frame, exactly: nothing is rebuilt or left
  // out. (A function's reported total without its calls, TAU's flat
  // profiles, is time in others that no stack can place.)
  const bool exact = p.calls.empty() && !p.reports_totals;
  tree.approximate = !exact;
  tree.frames.push_back({});
  const std::size_t n = g.nodes.size();
  if (n == 0 || g.edge_begin.size() != n + 1) return tree;
  // The whole, as the graph's ratios are relative to it, in the event's unit
  // (the graph shows seconds for time events).
  const double whole = unit_value(p.events[event], shown_whole(g));
  const std::vector<double> pass = pass_factors(g);
  const std::vector<FuncId> roots = flame_roots(p, g);
  struct Open {
    FuncId f;
    std::uint32_t frame;
    std::uint32_t next, end;
    double scale;  // the frame's weight per unit of the function's total
  };
  std::vector<Open> stack;
  std::vector<std::uint32_t> on_path(n, 0);
  auto open = [&](std::uint32_t parent, FuncId f, double weight) {
    if (tree.frames.size() >= max_frames) {
      ++tree.pruned;
      return;
    }
    tree.frames.push_back({parent, f, kNoString, 0, weight});
    ++on_path[f];
    stack.push_back({f, static_cast<std::uint32_t>(tree.frames.size() - 1), g.edge_begin[f], g.edge_begin[f + 1],
                     weight * pass[f]});
  };
  for (FuncId root : roots) {
    if (!exact && total_of(g, root) < min_share) {
      ++tree.pruned;
      continue;
    }
    open(0, root, total_of(g, root));
    while (!stack.empty()) {
      Open& top = stack.back();
      if (top.next == top.end) {
        --on_path[top.f];
        stack.pop_back();
        continue;
      }
      const GraphEdge& edge = g.edges[top.next++];
      if (on_path[edge.callee]) continue;  // recursion: stays in the caller
      double weight = top.scale * edge.total_ratio.value_or(0);
      if (weight <= 0) continue;
      if (weight < min_share) {
        ++tree.pruned;
        continue;
      }
      open(top.frame, edge.callee, weight);
    }
  }
  // Shares to the event's unit; what the children leave is the frame's self.
  for (FlameFrame& f : tree.frames) f.total *= whole;
  for (std::size_t i = 1; i < tree.frames.size(); ++i) tree.frames[i].self = tree.frames[i].total;
  for (std::size_t i = 1; i < tree.frames.size(); ++i) {
    FlameFrame& f = tree.frames[i];
    if (f.parent != 0) tree.frames[f.parent].self -= f.total;
    tree.frames[0].total += f.parent == 0 ? f.total : 0;
  }
  for (FlameFrame& f : tree.frames) f.self = std::max(0.0, f.self);
  return tree;
}

// Frames of one name under one parent become one frame, as in folded
// stacks (two unresolved addresses of one library are both `[libz.so.1]`).
// Parents come before their children, so one pass in order does it.
FlameTree merge_same_names(const Profile& p, FlameTree tree) {
  // (Flat tables, not node-based maps: tens of thousands of frames each
  // cost an allocation there.)
  FlatIndex name_index;
  std::vector<std::string> names;
  std::vector<std::uint32_t> function_name(p.functions.size(), UINT32_MAX);
  auto name_id = [&](const FlameFrame& f) -> std::uint64_t {
    if (f.process != kNoString) return (std::uint64_t{1} << 32) | f.process;
    std::uint32_t& id = function_name[f.function];
    if (id == UINT32_MAX) {
      std::string name = frame_name(p, f);
      id = name_index.find_or_add(
          FlatIndex::hash_bytes(name), [&](std::uint32_t i) { return names[i] == name; },
          [&] {
            names.push_back(std::move(name));
            return static_cast<std::uint32_t>(names.size() - 1);
          });
    }
    return id;
  };
  std::vector<std::uint32_t> map(tree.frames.size(), 0);
  FlatIndex merged{3};              // (new parent, name) -> new frame (filled as the callsite tree's)
  std::vector<std::uint64_t> keys;  // each new frame's
  keys.reserve(tree.frames.size());
  merged.reserve(tree.frames.size());
  // The merged frames are written over the first ones in place: the n-th
  // frame read leaves at most n merged before it (a copy of the whole
  // tree was a third of what `-T html` of a 3-million-frame tree held).
  std::vector<FlameFrame>& frames = tree.frames;
  std::size_t kept = 0;
  if (!frames.empty()) {
    kept = 1;                    // (the root, as it is)
    keys.push_back(UINT64_MAX);  // (no key: the root is not looked up)
  }
  for (std::size_t n = 1; n < frames.size(); ++n) {
    const FlameFrame f = frames[n];  // (a copy: its slot may be the next one written)
    std::uint32_t parent = map[f.parent];
    // Exact keys: names below 2^33, frames below 2^31.
    std::uint64_t key = (std::uint64_t{parent} << 33) | name_id(f);
    const auto next = static_cast<std::uint32_t>(kept);
    const std::uint32_t to = merged.find_or_add(
        FlatIndex::mix(key), [&](std::uint32_t i) { return keys[i] == key; },
        [&] {
          FlameFrame copy = f;
          copy.parent = parent;
          frames[kept++] = copy;
          keys.push_back(key);
          return next;
        });
    map[n] = to;
    if (to != next) {
      FlameFrame& into = frames[to];
      into.self += f.self;
      into.total += f.total;
    }
  }
  frames.resize(kept);
  return tree;
}

bool is_path_separator(char c) { return c == '/' || c == '\\'; }

std::string_view basename(std::string_view path) {
  std::size_t i = path.size();
  while (i > 0 && !is_path_separator(path[i - 1])) --i;
  return path.substr(i);
}

}  // namespace

FlameTree flame_tree(const Profile& p, std::size_t event, const CallGraph* totals, double min_share,
                     std::size_t max_frames) {
  if (p.stack_nodes.size() > 1) return merge_same_names(p, from_stacks(p, event));
  if (!totals) {
    FlameTree empty;
    empty.frames.push_back({});
    empty.approximate = true;
    return empty;
  }
  return merge_same_names(p, from_call_ratios(p, event, *totals, min_share, max_frames));
}

std::string frame_name(const Profile& p, const FlameFrame& f) {
  std::string name;
  if (f.process != kNoString) {
    name = p.str(f.process);
  } else if (p.functions[f.function].unresolved) {
    // stackcollapse-perf.pl's rule: the object's basename, unless perf did
    // not know the object either.
    std::string_view object = p.str(p.functions[f.function].object);
    name = object.empty() || object == "[unknown]" ? "[unknown]" : fmt::format("[{}]", basename(object));
  } else {
    name = function_label(p, f.function);
  }
  return visible_text(name);  // one line of text in every output
}

std::string frame_module(const Profile& p, const FlameFrame& f) {
  if (f.process != kNoString) return {};
  const Function& fn = p.functions[f.function];
  if (p.label_style == LabelStyle::kPython || fn.python) return python_module(p.str(fn.file));
  if (fn.object != kNoString && !p.str(fn.object).empty()) return std::string(basename(p.str(fn.object)));
  if (fn.file != kNoString) return std::string(basename(p.str(fn.file)));
  return {};
}

}  // namespace graphgen
