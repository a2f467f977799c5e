#include "graphgen/analysis/ranks.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

namespace graphgen {

namespace {
// The last integer of `name`, else -1.
std::int64_t last_integer(std::string_view name) {
  std::size_t end = name.size();
  while (end > 0 && !(name[end - 1] >= '0' && name[end - 1] <= '9')) --end;
  if (end == 0) return -1;
  std::size_t begin = end;
  while (begin > 0 && name[begin - 1] >= '0' && name[begin - 1] <= '9') --begin;
  if (end - begin > 12) return -1;
  std::int64_t v = 0;
  for (std::size_t i = begin; i < end; ++i) v = v * 10 + (name[i] - '0');
  return v;
}
}  // namespace

std::int64_t rank_from_path(std::string_view path) {
  // The file name's last number (cpu_12.prof), else its folders' (rank-3/out.pstats).
  std::size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return last_integer(path);
  std::int64_t in_name = last_integer(path.substr(slash + 1));
  return in_name >= 0 ? in_name : last_integer(path.substr(0, slash));
}

RankAccumulator::RankAccumulator(const std::vector<std::string>& inputs, bool reversed_tail,
                                 std::size_t heatmap_columns)
    : reversed_tail_(reversed_tail) {
  const std::size_t n = inputs.size();
  ranks_.resize(n);
  std::set<std::int64_t> seen;
  for (std::size_t i = 0; i < n; ++i) {
    ranks_[i] = rank_from_path(inputs[i]);
    if (ranks_[i] < 0 || !seen.insert(ranks_[i]).second) by_position_ = true;
  }
  if (by_position_) std::iota(ranks_.begin(), ranks_.end(), 0);
  tree_.assign(2 * n, INT64_MAX);
  std::copy(ranks_.begin(), ranks_.end(), tree_.begin() + static_cast<std::ptrdiff_t>(n));
  for (std::size_t i = n; i-- > 1;) tree_[i] = std::min(tree_[2 * i], tree_[2 * i + 1]);
  // Heatmap columns follow rank numbers; more ranks than columns share them.
  if (heatmap_columns > 0 && n > 0) {
    std::vector<std::size_t> by_rank(n);
    std::iota(by_rank.begin(), by_rank.end(), 0);
    std::stable_sort(by_rank.begin(), by_rank.end(),
                     [&](std::size_t a, std::size_t b) { return ranks_[a] < ranks_[b]; });
    columns_ = std::min(heatmap_columns, n);
    column_of_.resize(n);
    column_size_.assign(columns_, 0);
    for (std::size_t k = 0; k < n; ++k) {
      auto c = static_cast<std::uint32_t>(k * columns_ / n);
      column_of_[by_rank[k]] = c;
      ++column_size_[c];
    }
  }
}

// A segment tree over input order of rank numbers: the lowest rank of a
// contiguous range of inputs in O(log n), 2n numbers of memory.
std::int64_t RankAccumulator::lowest_rank(std::size_t first, std::size_t last) const {
  const std::size_t n = ranks_.size();
  std::int64_t best = INT64_MAX;
  for (std::size_t l = first + n, r = last + n + 1; l < r; l >>= 1, r >>= 1) {
    if (l & 1) best = std::min(best, tree_[l++]);
    if (r & 1) best = std::min(best, tree_[--r]);
  }
  return best;
}

std::uint32_t RankAccumulator::input_at(std::size_t position) const {
  if (!reversed_tail_ || position == 0) return static_cast<std::uint32_t>(position);
  return static_cast<std::uint32_t>(ranks_.size() - position);
}

// Arrival positions from+1 .. to-1 lack the function: keep the lowest rank
// among them. Arrival is input order, or 0 then the last to the second, so
// the positions of a range are a contiguous range of inputs.
void RankAccumulator::missing_between(State& st, std::int64_t from, std::int64_t to) const {
  if (to - from < 2) return;
  std::uint32_t a = input_at(static_cast<std::size_t>(from + 1)), b = input_at(static_cast<std::size_t>(to - 1));
  st.lowest_missing_rank = std::min(st.lowest_missing_rank, lowest_rank(std::min(a, b), std::max(a, b)));
}

void RankAccumulator::see(Sums& s, double v, std::uint32_t input, bool first) const {
  s.sum.add(v);
  s.sum_sq.add(v * v);
  if (first || v < s.min || (v == s.min && ranks_[input] < ranks_[s.min_input])) {
    s.min = v;
    s.min_input = input;
  }
  if (first || v > s.max || (v == s.max && ranks_[input] < ranks_[s.max_input])) {
    s.max = v;
    s.max_input = input;
  }
}

void RankAccumulator::add(const std::vector<double>& self, const std::vector<double>& inclusive,
                          const std::vector<FuncId>& to_merged) {
  const std::size_t position = position_++;
  const std::uint32_t input = input_at(position);
  for (std::size_t f = 0; f < to_merged.size(); ++f) {
    FuncId g = to_merged[f];
    if (g >= states_.size()) {
      states_.resize(g + 1);
      heat_.resize(states_.size() * columns_, 0.0);
    }
    State& st = states_[g];
    bool first = st.present == 0;
    missing_between(st, st.last_position, static_cast<std::int64_t>(position));
    st.last_position = static_cast<std::int64_t>(position);
    ++st.present;
    see(st.self, self[f], input, first);
    see(st.inclusive, inclusive[f], input, first);
    if (columns_) heat_[static_cast<std::size_t>(g) * columns_ + column_of_[input]] += inclusive[f];
  }
}

RankMeasure RankAccumulator::measure(const Sums& s, const State& st) const {
  const double n = static_cast<double>(ranks_.size());
  RankMeasure m;
  m.total = s.sum.value();
  m.mean = n > 0 ? m.total / n : 0;
  double variance = n > 0 ? s.sum_sq.value() / n - m.mean * m.mean : 0;
  m.stddev = variance > 0 ? std::sqrt(variance) : 0;
  m.min = s.min;
  m.max = s.max;
  m.min_rank = ranks_.empty() ? -1 : ranks_[s.min_input];
  m.max_rank = ranks_.empty() ? -1 : ranks_[s.max_input];
  // A rank without the function counts as 0 there.
  if (const std::int64_t missing = st.lowest_missing_rank; missing != INT64_MAX) {
    if (0 < m.min || (m.min == 0 && missing < m.min_rank)) {
      m.min = 0;
      m.min_rank = missing;
    }
    if (0 > m.max || (m.max == 0 && missing < m.max_rank)) {
      m.max = 0;
      m.max_rank = missing;
    }
  }
  m.imbalance = m.max - m.mean;
  m.imbalance_percent = m.max > 0 && n > 1 ? (m.max - m.mean) / m.max * n / (n - 1) * 100 : 0;
  return m;
}

RankTable RankAccumulator::finish(std::size_t functions, const std::vector<FuncId>& renumbered) const {
  RankTable t;
  t.ranks = ranks_.size();
  t.rank_numbers = ranks_;
  t.numbered_by_position = by_position_;
  t.functions.resize(functions);
  std::vector<FuncId> final_id(states_.size());
  for (FuncId g = 0; g < states_.size(); ++g) final_id[g] = renumbered.empty() ? g : renumbered[g];
  for (FuncId g = 0; g < states_.size() && g < functions; ++g) {
    State st = states_[g];
    missing_between(st, st.last_position, static_cast<std::int64_t>(ranks_.size()));
    if (st.present == 0) st.lowest_missing_rank = ranks_.empty() ? -1 : lowest_rank(0, ranks_.size() - 1);
    FunctionRanks& fr = t.functions[final_id[g]];
    fr.function = final_id[g];
    fr.present = st.present;
    fr.missing_rank = st.lowest_missing_rank == INT64_MAX ? -1 : st.lowest_missing_rank;
    fr.self = measure(st.self, st);
    fr.inclusive = measure(st.inclusive, st);
  }
  for (FuncId f = 0; f < functions; ++f) t.functions[f].function = f;
  if (columns_) {
    t.heatmap.columns = columns_;
    t.heatmap.first_rank.assign(columns_, INT64_MAX);
    t.heatmap.last_rank.assign(columns_, INT64_MIN);
    for (std::size_t i = 0; i < ranks_.size(); ++i) {
      std::uint32_t c = column_of_[i];
      t.heatmap.first_rank[c] = std::min(t.heatmap.first_rank[c], ranks_[i]);
      t.heatmap.last_rank[c] = std::max(t.heatmap.last_rank[c], ranks_[i]);
    }
    t.heatmap.cells.assign(functions * columns_, 0.0);
    for (FuncId g = 0; g < states_.size() && g < functions; ++g)
      for (std::size_t c = 0; c < columns_; ++c)
        t.heatmap.cells[static_cast<std::size_t>(final_id[g]) * columns_ + c] =
            heat_[static_cast<std::size_t>(g) * columns_ + c] / column_size_[c];
  }
  return t;
}

}  // namespace graphgen
