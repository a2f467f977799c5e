#include "graphgen/analysis/prune.h"

#include <algorithm>

#include "graphgen/labels.h"

namespace graphgen {

namespace {

bool path_filter_drops(const Profile& p, FuncId f, const std::vector<std::string>& paths) {
  if (paths.empty()) return false;
  const Function& fn = p.functions[f];
  if (fn.file != kNoString) {
    std::string_view file = p.str(fn.file);
    return std::none_of(paths.begin(), paths.end(), [&](const std::string& path) { return file.starts_with(path); });
  }
  std::string module;
  if (module_line(p, f, module) && !module.empty()) {
    return std::none_of(paths.begin(), paths.end(),
                        [&](const std::string& path) { return module.find(path) != std::string::npos; });
  }
  return false;
}

}  // namespace

void prune(const Profile& p, CallGraph& g, const PruneOptions& options) {
  double node_thres = options.node_threshold_percent / 100.0;
  double edge_thres = options.edge_threshold_percent / 100.0;

  // The nodes' weights first, from the unpruned graph (an edge's,
  // edge_weight(), is of its ratios, which pruning leaves as they are).
  for (GraphNode& n : g.nodes) n.weight = n.total_ratio;

  for (GraphNode& n : g.nodes)
    if (n.kept && n.weight && *n.weight < node_thres) n.kept = false;

  for (FuncId f = 0; f < g.nodes.size(); ++f)
    if (g.nodes[f].kept && path_filter_drops(p, f, options.paths)) g.nodes[f].kept = false;

  for (std::size_t i = 0; i < g.edges.size(); ++i) {
    const GraphEdge& e = g.edges[i];
    if (!g.nodes[e.caller].kept || !g.nodes[e.callee].kept) {
      g.drop_edge(i);
      continue;
    }
    const MaybeDouble w = edge_weight(g, e);  // (of kept ends only: most edges of a big graph have none)
    if (w && *w < edge_thres) g.drop_edge(i);
  }

  if (options.color_nodes_by_selftime) {
    double max_ratio = 0;
    bool any = false;
    for (const GraphNode& n : g.nodes) {
      if (n.kept && n.self_ratio) {
        max_ratio = any ? std::max(max_ratio, *n.self_ratio) : *n.self_ratio;
        any = true;
      }
    }
    if (!any) max_ratio = 1;
    for (GraphNode& n : g.nodes) {
      if (n.kept && n.self_ratio && max_ratio != 0) n.weight = *n.self_ratio / max_ratio;
    }
  }
}

}  // namespace graphgen
