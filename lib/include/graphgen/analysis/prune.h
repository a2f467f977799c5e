// Threshold and path pruning, as gprof2dot's Profile.prune().
#pragma once

#include <string>
#include <vector>

#include "graphgen/analysis/graph.h"

namespace graphgen {

struct PruneOptions {
  double node_threshold_percent = 0.5;  // -n
  double edge_threshold_percent = 0.1;  // -e
  std::vector<std::string> paths;       // -p, repeatable
  bool color_nodes_by_selftime = false;
};

/// Sets weights, then drops nodes below the node threshold, nodes outside
/// the paths, and edges to dropped nodes or below the edge threshold.
/// Thresholds are relative to the whole profile.
void prune(const Profile& p, CallGraph& g, const PruneOptions& options);

}  // namespace graphgen
