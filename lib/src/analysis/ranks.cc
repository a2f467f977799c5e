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

// TAU's `profile.N.C.T` (and `snapshot.N.C.T`): N is the rank; files of
// other threads than 0,0 are no rank of their own (-1).
bool tau_rank(std::string_view name, std::int64_t& rank) {
  std::size_t dot = name.find('.');
  if (dot == std::string_view::npos || (name.substr(0, dot) != "profile" && name.substr(0, dot) != "snapshot"))
    return false;
  std::int64_t ids[3];
  std::string_view rest = name.substr(dot + 1);
  for (int i = 0; i < 3; ++i) {
    std::size_t end = i < 2 ? rest.find('.') : rest.size();
    if (end == 0 || end == std::string_view::npos || end > 12) return false;
    ids[i] = 0;
    for (char c : rest.substr(0, end)) {
      if (c < '0' || c > '9') return false;
      ids[i] = ids[i] * 10 + (c - '0');
    }
    rest = i < 2 ? rest.substr(end + 1) : std::string_view();
  }
  rank = ids[1] == 0 && ids[2] == 0 ? ids[0] : -1;
  return true;
}
}  // namespace

std::int64_t rank_from_path(std::string_view path) {
  // The file name's last number (cpu_12.prof), else its folders' (rank-3/out.pstats).
  std::size_t slash = path.rfind('/');
  std::int64_t tau = -1;
  if (tau_rank(slash == std::string_view::npos ? path : path.substr(slash + 1), tau)) return tau;
  if (slash == std::string_view::npos) return last_integer(path);
  std::int64_t in_name = last_integer(path.substr(slash + 1));
  return in_name >= 0 ? in_name : last_integer(path.substr(0, slash));
}

namespace {
std::vector<std::int64_t> ranks_from_paths(const std::vector<std::string>& inputs) {
  std::vector<std::int64_t> out(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) out[i] = rank_from_path(inputs[i]);
  return out;
}
}  // namespace

RankAccumulator::RankAccumulator(const std::vector<std::string>& inputs, bool reversed_tail,
                                 std::size_t heatmap_columns)
    : RankAccumulator(ranks_from_paths(inputs), reversed_tail, heatmap_columns) {
  std::int64_t ignored;
  bool tau = !inputs.empty();
  for (const std::string& in : inputs) {
    std::size_t slash = in.rfind('/');
    tau = tau && tau_rank(slash == std::string::npos ? in : in.substr(slash + 1), ignored);
  }
  numbered_by_ = tau ? "by N in TAU's profile.N.C.T" : "by the last number in each file name";
}

RankAccumulator::RankAccumulator(std::vector<std::int64_t> numbers, bool reversed_tail, std::size_t heatmap_columns)
    : ranks_(std::move(numbers)),
      numbered_by_("as the files number their ranks or threads"),
      reversed_tail_(reversed_tail) {
  const std::size_t n = ranks_.size();
  skipped_.assign(n, false);
  std::set<std::int64_t> seen;
  for (std::size_t i = 0; i < n; ++i)
    if (ranks_[i] < 0 || !seen.insert(ranks_[i]).second) by_position_ = true;
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
    for (std::size_t k = 0; k < n; ++k) column_of_[by_rank[k]] = static_cast<std::uint32_t>(k * columns_ / n);
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

RankAccumulator::State& RankAccumulator::state(FuncId g) {
  if (g >= states_.size()) {
    State fresh;
    fresh.last_position = static_cast<std::int64_t>(first_) - 1;  // missing since the share began
    states_.resize(g + 1, fresh);
    heat_.resize(states_.size() * columns_, 0.0);
  }
  return states_[g];
}

void RankAccumulator::add(const std::vector<double>& self, const std::vector<double>& inclusive,
                          const std::vector<FuncId>& to_merged) {
  const std::size_t position = position_++;
  const std::uint32_t input = input_at(position);
  for (std::size_t f = 0; f < to_merged.size(); ++f) {
    FuncId g = to_merged[f];
    State& st = state(g);
    bool first = st.present == 0;
    missing_between(st, st.last_position, static_cast<std::int64_t>(position));
    st.last_position = static_cast<std::int64_t>(position);
    ++st.present;
    see(st.self, self[f], input, first);
    see(st.inclusive, inclusive[f], input, first);
    if (columns_) {
      double& cell = heat_[static_cast<std::size_t>(g) * columns_ + column_of_[input]];
      cell = std::max(cell, inclusive[f]);
    }
    if (keep_values_) kept_.push_back(Kept{input, g, self[f], inclusive[f]});
  }
}

void RankAccumulator::skip() { mark_skipped(input_at(position_++)); }

// An unreadable input leaves the statistics: it is not a rank without the
// functions (the segment tree forgets its number). (Its heatmap column
// shows its ranks' largest value, which a skipped rank never raises.)
void RankAccumulator::mark_skipped(std::uint32_t input) {
  if (input >= skipped_.size() || skipped_[input]) return;
  skipped_[input] = true;
  ++skipped_count_;
  const std::size_t n = ranks_.size();
  std::size_t i = n + input;
  tree_[i] = INT64_MAX;
  for (i >>= 1; i >= 1; i >>= 1) tree_[i] = std::min(tree_[2 * i], tree_[2 * i + 1]);
}

RankAccumulator::RankAccumulator(const std::vector<std::string>& inputs, bool reversed_tail,
                                 std::size_t heatmap_columns, std::size_t first_position)
    : RankAccumulator(inputs, reversed_tail, heatmap_columns) {
  first_ = position_ = first_position;
}

std::int64_t RankAccumulator::lowest_rank_arriving(std::size_t begin, std::size_t end) const {
  std::int64_t best = INT64_MAX;
  if (begin >= end) return best;
  if (!reversed_tail_) return lowest_rank(begin, end - 1);
  // Position 0 is input 0; positions p >= 1 are inputs n - p, a contiguous run.
  if (begin == 0) {
    best = ranks_.empty() ? best : ranks_[0];
    begin = 1;
  }
  if (begin < end) best = std::min(best, lowest_rank(input_at(end - 1), input_at(begin)));
  return best;
}

void RankAccumulator::close(std::size_t end_position) {
  for (State& st : states_) {
    missing_between(st, st.last_position, static_cast<std::int64_t>(end_position));
    st.last_position = static_cast<std::int64_t>(end_position) - 1;
  }
  position_ = end_position;
}

void RankAccumulator::combine(const RankAccumulator& next, const std::vector<FuncId>& map) {
  for (std::uint32_t input = 0; input < next.skipped_.size(); ++input)
    if (next.skipped_[input]) mark_skipped(input);
  const std::size_t mine_begin = first_, mine_end = position_, theirs_end = next.position_;
  const std::int64_t lowest_mine = lowest_rank_arriving(mine_begin, mine_end);
  const std::int64_t lowest_theirs = lowest_rank_arriving(next.first_, theirs_end);
  std::vector<bool> seen(states_.size(), false);
  auto merge = [&](Sums& into, const Sums& from) {
    into.sum.add(from.sum);
    into.sum_sq.add(from.sum_sq);
    if (from.min < into.min || (from.min == into.min && ranks_[from.min_input] < ranks_[into.min_input])) {
      into.min = from.min;
      into.min_input = from.min_input;
    }
    if (from.max > into.max || (from.max == into.max && ranks_[from.max_input] < ranks_[into.max_input])) {
      into.max = from.max;
      into.max_input = from.max_input;
    }
  };
  for (FuncId g = 0; g < next.states_.size() && g < map.size(); ++g) {
    const State& theirs = next.states_[g];
    FuncId t = map[g];
    bool fresh = t >= states_.size();
    State& mine = state(t);
    if (fresh || t >= seen.size() || states_[t].present == 0)
      mine.lowest_missing_rank = std::min(mine.lowest_missing_rank, lowest_mine);
    if (t < seen.size()) seen[t] = true;
    if (mine.present == 0) {
      mine.self = theirs.self;
      mine.inclusive = theirs.inclusive;
    } else if (theirs.present > 0) {
      merge(mine.self, theirs.self);
      merge(mine.inclusive, theirs.inclusive);
    }
    mine.present += theirs.present;
    mine.lowest_missing_rank = std::min(mine.lowest_missing_rank, theirs.lowest_missing_rank);
    for (std::size_t c = 0; c < columns_; ++c)
      heat_[static_cast<std::size_t>(t) * columns_ + c] = std::max(
          heat_[static_cast<std::size_t>(t) * columns_ + c], next.heat_[static_cast<std::size_t>(g) * columns_ + c]);
  }
  // What the next share never saw is missing in all of it.
  for (FuncId t = 0; t < seen.size(); ++t)
    if (!seen[t]) states_[t].lowest_missing_rank = std::min(states_[t].lowest_missing_rank, lowest_theirs);
  for (State& st : states_) st.last_position = static_cast<std::int64_t>(theirs_end) - 1;
  position_ = theirs_end;
  for (const Kept& k : next.kept_)
    if (k.function < map.size()) kept_.push_back(Kept{k.input, map[k.function], k.self, k.inclusive});
}

void RankAccumulator::encode(wire::Writer& w) const {
  w.put<std::uint64_t>(first_);
  w.put<std::uint64_t>(position_);
  w.put<std::uint64_t>(states_.size());
  for (const State& st : states_) {
    for (const Sums* s : {&st.self, &st.inclusive}) {
      w.exact(s->sum);
      w.exact(s->sum_sq);
      w.put(s->min);
      w.put(s->max);
      w.put(s->min_input);
      w.put(s->max_input);
    }
    w.put(st.present);
    w.put(st.last_position);
    w.put(st.lowest_missing_rank);
  }
  w.vec(heat_);
  std::vector<std::uint32_t> skipped;
  for (std::uint32_t input = 0; input < skipped_.size(); ++input)
    if (skipped_[input]) skipped.push_back(input);
  w.vec(skipped);
  w.put<std::uint8_t>(keep_values_);
  std::vector<std::uint32_t> inputs, functions;
  std::vector<double> selfs, inclusives;
  for (const Kept& k : kept_) {
    inputs.push_back(k.input);
    functions.push_back(k.function);
    selfs.push_back(k.self);
    inclusives.push_back(k.inclusive);
  }
  w.vec(inputs);
  w.vec(functions);
  w.vec(selfs);
  w.vec(inclusives);
}

bool RankAccumulator::decode(wire::Reader& r) {
  first_ = r.get<std::uint64_t>();
  position_ = r.get<std::uint64_t>();
  auto n = r.get<std::uint64_t>();
  if (!r.ok() || first_ > ranks_.size() || position_ > ranks_.size() || n >= UINT32_MAX) return false;
  states_.clear();
  for (std::uint64_t i = 0; i < n && r.ok(); ++i) {
    State st;
    for (Sums* s : {&st.self, &st.inclusive}) {
      s->sum = r.exact();
      s->sum_sq = r.exact();
      s->min = r.get<double>();
      s->max = r.get<double>();
      s->min_input = r.get<std::uint32_t>();
      s->max_input = r.get<std::uint32_t>();
      if (s->min_input >= ranks_.size() || s->max_input >= ranks_.size()) return false;
    }
    st.present = r.get<std::uint32_t>();
    st.last_position = r.get<std::int64_t>();
    st.lowest_missing_rank = r.get<std::int64_t>();
    states_.push_back(std::move(st));
  }
  heat_ = r.vec<double>();
  for (std::uint32_t input : r.vec<std::uint32_t>()) {
    if (input >= ranks_.size()) return false;
    mark_skipped(input);
  }
  keep_values_ = r.get<std::uint8_t>() != 0;
  auto inputs = r.vec<std::uint32_t>();
  auto functions = r.vec<std::uint32_t>();
  auto selfs = r.vec<double>();
  auto inclusives = r.vec<double>();
  if (!r.ok() || functions.size() != inputs.size() || selfs.size() != inputs.size() ||
      inclusives.size() != inputs.size())
    return false;
  kept_.clear();
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i] >= ranks_.size() || functions[i] >= states_.size()) return false;
    kept_.push_back(Kept{inputs[i], functions[i], selfs[i], inclusives[i]});
  }
  return r.ok() && heat_.size() == states_.size() * columns_;
}

RankMeasure RankAccumulator::measure(const Sums& s, const State& st) const {
  const double n = static_cast<double>(readable());
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
  t.ranks = readable();
  for (std::size_t i = 0; i < ranks_.size(); ++i) (skipped_[i] ? t.skipped_ranks : t.rank_numbers).push_back(ranks_[i]);
  std::sort(t.skipped_ranks.begin(), t.skipped_ranks.end());
  t.numbered_by_position = by_position_;
  t.numbered_by = numbered_by_;
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
  if (keep_values_) {
    // Per counted rank in input order; each rank's functions by final id.
    std::vector<std::uint32_t> counted(ranks_.size(), UINT32_MAX);
    std::uint32_t next = 0;
    for (std::size_t i = 0; i < ranks_.size(); ++i)
      if (!skipped_[i]) counted[i] = next++;
    std::vector<Kept> rows;
    rows.reserve(kept_.size());
    for (const Kept& k : kept_)
      if (k.input < counted.size() && counted[k.input] != UINT32_MAX && k.function < final_id.size() &&
          final_id[k.function] < functions)
        rows.push_back(Kept{counted[k.input], final_id[k.function], k.self, k.inclusive});
    std::sort(rows.begin(), rows.end(), [](const Kept& a, const Kept& b) {
      return a.input != b.input ? a.input < b.input : a.function < b.function;
    });
    RankMatrix& m = t.matrix;
    m.kept = true;
    m.begin.assign(t.ranks + 1, 0);
    for (const Kept& k : rows) {
      ++m.begin[k.input + 1];
      m.function.push_back(k.function);
      m.self.push_back(k.self);
      m.inclusive.push_back(k.inclusive);
    }
    for (std::size_t i = 0; i < t.ranks; ++i) m.begin[i + 1] += m.begin[i];
  }
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
            heat_[static_cast<std::size_t>(g) * columns_ + c];
  }
  return t;
}

}  // namespace graphgen
