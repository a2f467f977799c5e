// Per-rank statistics: how each function's time spreads over N inputs of
// one program (MPI ranks, threads), the question merges cannot answer.
//
// For every function of the merged profile, over the N ranks, for self and
// inclusive time both: total, mean, minimum and maximum with the rank where
// each occurs (the lowest rank number on ties, whatever the input order),
// population standard
// deviation, and CrayPat's imbalance measures
//   Imb  = max - mean
//   Imb% = (max - mean) / max * N / (N - 1)      (0 when max is 0 or N is 1)
// A function missing in a rank counts as 0 there. Everything is computed
// as the inputs stream through the merge, in O(functions) memory whatever N
// is; the heatmap keeps per function at most `bins` columns (ranks grouped
// in order when there are more ranks than columns).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "graphgen/exact_sum.h"
#include "graphgen/profile.h"
#include "graphgen/wire.h"

namespace graphgen {

/// The rank number of an input: the last integer in its file name
/// (cpu_12.prof), else in its folders (rank-3/out.pstats), else -1; for
/// TAU's profile.N.C.T, N (and -1 for threads other than C.T = 0.0).
std::int64_t rank_from_path(std::string_view path);

struct RankMeasure {
  double total = 0, mean = 0, stddev = 0;
  double min = 0, max = 0;
  std::int64_t min_rank = -1, max_rank = -1;
  double imbalance = 0;          // max - mean
  double imbalance_percent = 0;  // CrayPat's Imb%, in percent
};

struct FunctionRanks {
  FuncId function = 0;             // in the merged profile
  std::uint32_t present = 0;       // ranks where it appears
  std::int64_t missing_rank = -1;  // the lowest rank where it does not, if any
  RankMeasure self, inclusive;
};

/// What the heatmap shows: per function, the largest inclusive value of
/// each column's ranks (a binned column keeps its outliers visible: one slow
/// rank among 10 000 is its column's value, where a mean would hide it).
struct RankHeatmap {
  std::size_t columns = 0;
  std::vector<std::int64_t> first_rank, last_rank;  // the ranks of each column
  std::vector<double> cells;                        // functions.size() x columns, self+inclusive mode chosen at build
};

/// Every rank's own values (kept only when an output shows them: the
/// matrix CSV, the report's per-rank views): per counted rank, in
/// rank_numbers' order, the functions it ran.
struct RankMatrix {
  bool kept = false;
  std::vector<std::uint32_t> begin;  // ranks + 1 offsets into the rows below
  std::vector<FuncId> function;
  std::vector<double> self, inclusive;
};

struct RankTable {
  std::size_t ranks = 0;
  std::vector<std::int64_t> rank_numbers;  // of the ranks counted, in input order
  bool numbered_by_position = false;       // no usable numbers in the file names
  /// Where the numbers come from, for a reader ("the last number in each
  /// file name"); meaningless when numbered_by_position.
  std::string numbered_by;
  /// The ranks whose inputs could not be read (--keep-going): not counted
  /// in `ranks` nor in any statistic; in increasing order.
  std::vector<std::int64_t> skipped_ranks;
  std::vector<FunctionRanks> functions;  // per merged function, by id
  RankHeatmap heatmap;                   // of inclusive time
  RankMatrix matrix;                     // when asked for (RankAccumulator::keep_values)
};

/// Folds per-input profiles into per-function rank statistics.
class RankAccumulator {
 public:
  /// `inputs` paths, in input order (their names give the rank numbers);
  /// `reversed_tail`: inputs arrive as pstats.Stats merges them (the first,
  /// then the last to the second), else in input order; `heatmap_columns`
  /// bounds the heatmap's width (0: no heatmap).
  RankAccumulator(const std::vector<std::string>& inputs, bool reversed_tail, std::size_t heatmap_columns);
  /// The same with the ranks' numbers given, one per input (-1: none; any
  /// missing or repeated number numbers every rank by its position).
  RankAccumulator(std::vector<std::int64_t> numbers, bool reversed_tail, std::size_t heatmap_columns);
  /// The same for a share of the inputs: the arrival positions from
  /// `first_position` on (graphgen-mpi gives each process one).
  RankAccumulator(const std::vector<std::string>& inputs, bool reversed_tail, std::size_t heatmap_columns,
                  std::size_t first_position);

  /// Ends the share at arrival position `end_position` (the next share's
  /// first): functions not seen since their last input are missing up to
  /// there.
  void close(std::size_t end_position);
  /// Appends the closed share that follows this closed one; `map` says
  /// where each of its functions went when its profile was merged into this
  /// one's (ProfileMerger::last_map()). Sums add exactly, so the table is
  /// the one a single accumulator over both shares would give.
  void combine(const RankAccumulator& next, const std::vector<FuncId>& map);
  /// The share's state, for a message to another process, and back (the
  /// receiver constructs with the same inputs, then decodes).
  void encode(wire::Writer& w) const;
  bool decode(wire::Reader& r);

  /// Adds the next input's values (the inputs come in the order the
  /// constructor says): self and inclusive per function of that input's
  /// profile, in the event's shown unit, and where each function went in
  /// the merged profile.
  void add(const std::vector<double>& self, const std::vector<double>& inclusive, const std::vector<FuncId>& to_merged);
  /// The next input could not be read (--keep-going): it is no rank, not
  /// one that ran nothing.
  void skip();
  /// Keeps every rank's values for RankTable::matrix (memory in proportion
  /// to the inputs, where the statistics alone need O(functions)).
  void keep_values() { keep_values_ = true; }
  /// How many ranks the accumulator was made for.
  std::size_t size() const { return ranks_.size(); }

  /// The table for a merged profile of `functions` functions; `order` maps
  /// merged function ids as they were while adding to the final ids (the
  /// merge may renumber at its end), empty when unchanged.
  RankTable finish(std::size_t functions, const std::vector<FuncId>& renumbered = {}) const;

 private:
  struct Sums {
    ExactSum sum, sum_sq;  // exact: the same bits however the inputs are split
    double min = 0, max = 0;
    std::uint32_t min_input = 0, max_input = 0;  // input indexes
  };
  struct State {
    Sums self, inclusive;
    std::uint32_t present = 0;
    std::int64_t last_position = -1;               // the last arrival position that had it
    std::int64_t lowest_missing_rank = INT64_MAX;  // the lowest rank seen without it
  };
  std::uint32_t input_at(std::size_t position) const;
  void missing_between(State& st, std::int64_t from, std::int64_t to) const;
  void see(Sums& s, double v, std::uint32_t input, bool first) const;
  std::int64_t lowest_rank(std::size_t first, std::size_t last) const;
  // The lowest rank of the inputs at arrival positions [begin, end).
  std::int64_t lowest_rank_arriving(std::size_t begin, std::size_t end) const;
  State& state(FuncId g);
  RankMeasure measure(const Sums& s, const State& st) const;
  void mark_skipped(std::uint32_t input);
  std::size_t readable() const { return ranks_.size() - skipped_count_; }

  std::vector<std::int64_t> ranks_;
  std::string numbered_by_;
  std::vector<std::int64_t> tree_;  // lowest_rank()'s segment tree
  bool by_position_ = false;
  bool reversed_tail_ = false;
  std::size_t position_ = 0;
  std::size_t first_ = 0;  // the share's first arrival position
  std::size_t columns_ = 0;
  std::vector<std::uint32_t> column_of_;  // per input position
  std::vector<State> states_;
  std::vector<double> heat_;   // per function x column: summed inclusive
  std::vector<bool> skipped_;  // per input: could not be read
  struct Kept {
    std::uint32_t input = 0;
    FuncId function = 0;
    double self = 0, inclusive = 0;
  };
  bool keep_values_ = false;
  std::vector<Kept> kept_;
  std::size_t skipped_count_ = 0;
};

}  // namespace graphgen
