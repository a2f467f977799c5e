// Per-rank statistics as people read them (a table, sorted by imbalance),
// as spreadsheets and scripts read them (CSV, JSON), and as a picture (a
// heatmap: functions by ranks). The statistics are analysis/ranks.h's.
#pragma once

#include <string>
#include <string_view>

#include "graphgen/analysis/ranks.h"
#include "graphgen/error.h"
#include "graphgen/profile.h"

namespace graphgen::ranks {

struct Options {
  std::size_t event = 0;
  std::size_t top = 0;        // rows of the table and heatmap (0: the writer's default)
  std::size_t max_bytes = 0;  // the matrix stops (empty) beyond this (0: no limit)
};

/// The table: inclusive, then self time; sorted by Imb, highest first.
std::string write_text(const Profile& p, const RankTable& t, const Options& o);
/// One row per function, every measure of both times; a header row.
std::string write_csv(const Profile& p, const RankTable& t, const Options& o);
/// Every rank's own values: two rows per function (inclusive, self), one
/// column per rank (r<N>), 0 where the rank did not run it; full precision.
/// Needs RankTable::matrix. Empty when larger than max_bytes.
std::string write_matrix_csv(const Profile& p, const RankTable& t, const Options& o);
/// {"ranks": N, "rank_numbers": [...], "unit": ..., "functions": [...]}.
std::string write_json(const Profile& p, const RankTable& t, const Options& o);
/// The heatmap as Graphviz source (an HTML-like table: one row per function
/// of the top by Imb, one column per rank or group of ranks, each cell's
/// colour its time against the row's mean), for the renderer.
std::string heatmap_dot(const Profile& p, const RankTable& t, const Options& o);

/// Functions in table order: by inclusive Imb, highest first (ties: higher
/// total first, then id).
std::vector<FuncId> by_imbalance(const RankTable& t);

}  // namespace graphgen::ranks
