// -T html: one self-contained report file (no server, no network: it works
// from file:// and as an e-mail attachment). The profile's data sits in the
// page as JSON; report.js and report.css, embedded at build time, draw:
//   - a sortable, searchable, paged table of every function: self and
//     inclusive cost, their shares, calls, cost per call, file:line;
//   - an icicle of the stacks (exact for sampled stacks, rebuilt from call
//     ratios for call graphs, and then labelled approximate), drawn on a
//     canvas: click zooms, frames under a pixel are skipped;
//   - the call graph as the SVG graphgen draws, when built with Graphviz;
//   - with several rank files, the per-rank imbalance table;
//   - with memory traces (mprof files), the memory plot (mprof/writer.h).
// No library is inlined: the drawing is rectangles and a table, a few
// hundred lines of plain JavaScript (d3 would add 150 KB for less).
#pragma once

#include <cstddef>
#include <string>

#include "graphgen/analysis/flame.h"
#include "graphgen/analysis/graph.h"
#include "graphgen/analysis/ranks.h"
#include "graphgen/error.h"
#include "graphgen/profile.h"

namespace graphgen::html {

struct Options {
  std::string title;
  std::string creator;
  /// The call graph as SVG (Graphviz's output), or empty; `graph_note`
  /// says why when it is empty.
  std::string graph_svg;
  std::string graph_note;
  /// Said above the call graph when there is one (chains drawn as one node).
  std::string graph_caption;
  /// The memory plot as SVG, or empty (no tab then).
  std::string memory_svg;
  /// Rows of the ranks table (0: 200).
  std::size_t rank_rows = 0;
  std::size_t max_bytes = 0;
};

/// `totals`: every function's inclusive cost (unpruned); `tree`: the
/// stacks; `ranks`: per-rank statistics, or null.
Expected<std::string> write(const Profile& p, std::size_t event, const CallGraph& totals, const FlameTree& tree,
                            const RankTable* ranks, const Options& o);

}  // namespace graphgen::html
