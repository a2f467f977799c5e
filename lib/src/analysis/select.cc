#include "graphgen/analysis/select.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <unordered_map>

#include "graphgen/analysis/glob.h"
#include "graphgen/labels.h"
#include "graphgen/utf8.h"

namespace graphgen {

std::vector<FuncId> match_functions(const Profile& p, const CallGraph& g, std::string_view glob) {
  // Last id per label wins, but the label keeps its first position.
  std::unordered_map<std::string, FuncId> last;
  std::vector<std::string> order;
  for (FuncId f = 0; f < g.nodes.size(); ++f) {
    if (!g.nodes[f].kept) continue;
    std::string label = function_label(p, f);
    auto [it, inserted] = last.try_emplace(label, f);
    if (inserted)
      order.push_back(std::move(label));
    else
      it->second = f;
  }
  std::vector<FuncId> out;
  for (const std::string& label : order)
    if (glob_match(glob, label)) out.push_back(last[label]);
  return out;
}

namespace {

// An edge is shown only between two shown nodes.
void drop_edges_of_dropped_nodes(CallGraph& g) {
  for (std::size_t i = 0; i < g.edges.size(); ++i)
    if (!g.nodes[g.edges[i].caller].kept || !g.nodes[g.edges[i].callee].kept) g.drop_edge(i);
}

// Breadth-first over kept edges, forwards or backwards; drops everything not
// reached and every edge leaving the reached set.
void keep_reachable(CallGraph& g, const std::vector<FuncId>& starts, int depth, bool forward) {
  std::size_t n = g.nodes.size();
  std::vector<std::vector<FuncId>> reverse;
  if (!forward) {
    reverse.resize(n);
    for (std::size_t i = 0; i < g.edges.size(); ++i)
      if (g.edge_kept(i)) reverse[g.edges[i].callee].push_back(g.edges[i].caller);
  }
  std::vector<int> dist(n, -1);
  std::deque<FuncId> queue;
  for (FuncId s : starts) {
    if (dist[s] < 0) {
      dist[s] = 0;
      queue.push_back(s);
    }
  }
  while (!queue.empty()) {
    FuncId f = queue.front();
    queue.pop_front();
    if (depth >= 0 && dist[f] >= depth) continue;
    auto visit = [&](FuncId next) {
      if (g.nodes[next].kept && dist[next] < 0) {
        dist[next] = dist[f] + 1;
        queue.push_back(next);
      }
    };
    if (forward) {
      for (std::uint32_t i = g.edge_begin[f]; i < g.edge_begin[f + 1]; ++i)
        if (g.edge_kept(i)) visit(g.edges[i].callee);
    } else {
      for (FuncId caller : reverse[f]) visit(caller);
    }
  }
  for (FuncId f = 0; f < n; ++f)
    if (dist[f] < 0) g.nodes[f].kept = false;
  drop_edges_of_dropped_nodes(g);
}

}  // namespace

void keep_descendants(CallGraph& g, const std::vector<FuncId>& roots, int depth) {
  keep_reachable(g, roots, depth, true);
}

void keep_ancestors(CallGraph& g, const std::vector<FuncId>& leaves, int depth) {
  keep_reachable(g, leaves, depth, false);
}

void keep_heaviest(CallGraph& g, std::size_t count) {
  std::vector<FuncId> kept;
  for (FuncId f = 0; f < g.nodes.size(); ++f)
    if (g.nodes[f].kept) kept.push_back(f);
  if (kept.size() <= count) return;
  auto share = [&](FuncId f) { return g.nodes[f].total_ratio.value_or(g.nodes[f].weight.value_or(0.0)); };
  std::stable_sort(kept.begin(), kept.end(), [&](FuncId a, FuncId b) { return share(a) > share(b); });
  for (std::size_t i = count; i < kept.size(); ++i) g.nodes[kept[i]].kept = false;
  drop_edges_of_dropped_nodes(g);
}

std::size_t kept_nodes(const CallGraph& g) {
  std::size_t n = 0;
  for (const GraphNode& node : g.nodes) n += node.kept;
  return n;
}

std::string list_functions(const Profile& p, const CallGraph& g, std::string_view selector) {
  std::string out;
  auto add = [&](std::string entry) {
    if (!out.empty()) out += ",\n";
    out += entry;
  };
  if (selector == "+" || selector == "*") {
    for (FuncId f = 0; f < g.nodes.size(); ++f)
      if (g.nodes[f].kept) add(fmt::format("{}:\t{}", f, visible_text(function_label(p, f))));
  } else if (selector.starts_with("%")) {
    // gprof2dot's dump of everything known about each match: attributes
    // sorted by name, `name:=value`, one per line.
    for (FuncId f : match_functions(p, g, selector.substr(1))) {
      const Function& fn = p.functions[f];
      std::string module;
      module_line(p, f, module);
      std::string called = fn.calls == kUnknownCount ? "None" : std::to_string(fn.calls);
      add(fmt::format("{}\t({})\t(function)::\n\tcalled:={},\n\tfilename:={},\n\tid:={},\n\tmodule:={},\n\tname:={}\n",
                      visible_text(function_label(p, f)), f, called, visible_text(p.str(fn.file)), f,
                      visible_text(module), visible_text(function_label(p, f))));
    }
  } else {
    for (FuncId f : match_functions(p, g, selector)) add(visible_text(function_label(p, f)));
  }
  if (!out.empty()) out += '\n';
  return out;
}

}  // namespace graphgen
