// The report graph: what a gprof2dot-style picture shows of a profile.
// Each node and edge carries the measures gprof2dot computes (self/total
// time and their ratios of the whole profile, call counts) and a weight for
// colouring; passes mark nodes and edges as dropped instead of erasing them,
// so indices stay stable (node index == FuncId).
#pragma once

#include <bit>
#include <cstdint>
#include <optional>
#include <vector>

#include "graphgen/error.h"
#include "graphgen/profile.h"

namespace graphgen {

/// std::optional<double> in 8 bytes instead of 16: absent is one
/// signalling-NaN bit pattern, and a double with exactly that pattern is
/// stored as the same NaN made quiet (no output tells NaN payloads apart).
/// A graph of 100 000 functions and 250 000 calls holds 1.7 million of them.
class MaybeDouble {
 public:
  constexpr MaybeDouble() = default;
  constexpr MaybeDouble(std::nullopt_t) {}
  constexpr MaybeDouble(double v) : bits_(store(v)) {}
  constexpr MaybeDouble(const std::optional<double>& v) : bits_(v ? store(*v) : kAbsent) {}
  constexpr bool has_value() const { return bits_ != kAbsent; }
  constexpr explicit operator bool() const { return has_value(); }
  constexpr double operator*() const { return std::bit_cast<double>(bits_); }
  double value() const {
    if (!has_value()) throw std::bad_optional_access();
    return **this;
  }
  constexpr double value_or(double other) const { return has_value() ? **this : other; }
  constexpr operator std::optional<double>() const {
    return has_value() ? std::optional<double>(**this) : std::nullopt;
  }
  constexpr void reset() { bits_ = kAbsent; }
  /// As std::optional's: both absent, or both present and equal.
  friend constexpr bool operator==(const MaybeDouble& a, const MaybeDouble& b) {
    return a.has_value() == b.has_value() && (!a.has_value() || *a == *b);
  }
  friend constexpr bool operator==(const MaybeDouble& a, std::nullopt_t) { return !a.has_value(); }

 private:
  static constexpr std::uint64_t kAbsent = 0x7FF4'0000'0000'0001ull;
  static constexpr std::uint64_t kQuietBit = 0x0008'0000'0000'0000ull;
  static constexpr std::uint64_t store(double v) {
    const auto bits = std::bit_cast<std::uint64_t>(v);
    return bits == kAbsent ? bits | kQuietBit : bits;
  }
  std::uint64_t bits_ = kAbsent;
};

struct GraphNode {
  MaybeDouble self_time;   // in seconds for time events, else event units
  MaybeDouble self_ratio;  // self / sum of all self
  MaybeDouble total_time;
  MaybeDouble total_ratio;   // inclusive / profile total
  std::int64_t samples = 0;  // self samples, where has_samples
  std::int64_t called = kUnknownCount;
  MaybeDouble weight;  // colour and prune weight, set by prune()
  bool kept = true;
  /// (Beside `kept`, not a std::optional: 64 bytes a node instead of 72.)
  bool has_samples = false;
};
static_assert(sizeof(GraphNode) == 64, "a node of a 200 000-function graph: keep it small");

struct GraphEdge {
  FuncId caller = 0;
  FuncId callee = 0;
  MaybeDouble total_ratio;
  std::int64_t calls = kUnknownCount;
};
/// (Its colour and prune weight is edge_weight(), from the ratios, and
/// whether pruning kept it is CallGraph::edge_kept(): 24 bytes an edge
/// instead of 40, a 249 000-call profile's graph 4 MB smaller.)
static_assert(sizeof(GraphEdge) == 24, "an edge of a 400 000-call graph: keep it small");

struct CallGraph {
  std::vector<GraphNode> nodes;
  /// Sorted by (caller, callee); at most one edge per pair.
  std::vector<GraphEdge> edges;
  /// edges of caller f are edges[edge_begin[f] .. edge_begin[f+1]).
  std::vector<std::uint32_t> edge_begin;
  /// Whether edges[i] is drawn: false once prune() or a selection drops it.
  bool edge_kept(std::size_t i) const { return i >= dropped_edges_.size() || !dropped_edges_[i]; }
  void drop_edge(std::size_t i) {
    if (dropped_edges_.size() != edges.size()) dropped_edges_.resize(edges.size(), false);
    dropped_edges_[i] = true;
  }
  /// What the total ratios are relative to, in the shown unit (seconds for
  /// time events, else the event's unit): the sum of self costs, or with
  /// reported totals the larger of that and the largest inclusive cost.
  double whole = 0;

 private:
  // One bit an edge, beside the edges (empty until one is dropped).
  std::vector<bool> dropped_edges_;
};

/// What the graph's ratios are relative to, in its shown unit.
inline double shown_whole(const CallGraph& g) { return g.whole; }

/// A node's self cost in the shown unit: its time where the graph has one,
/// else its share of the sum of self costs.
double node_self(const CallGraph& g, FuncId f);
/// An edge's colour and prune weight: its total ratio, or where it has none
/// the smaller of its two ends' (empty when either has none).
MaybeDouble edge_weight(const CallGraph& g, const GraphEdge& e);
/// A node's inclusive cost in the shown unit: its time where the graph has
/// one, else its ratio of the whole; its self cost when it has neither.
double node_total(const CallGraph& g, FuncId f);

/// Sorts edges by (caller, callee), in place, and fills edge_begin: while
/// the graph is made, before any edge is dropped (drop_edge() is by position).
void sort_edges(CallGraph& g);

/// gprof2dot's ratio(): 0/0 is 1, results clamped to [0, 1]; values outside
/// by more than 2^-23 are counted in `clamped` (reported once by the caller).
/// Inline: the cycle integration calls it per call and entry point.
inline double ratio(double numerator, double denominator, std::uint64_t* clamped = nullptr) {
  constexpr double kTolerance = 1.0 / (1 << 23);
  // Python raises ZeroDivisionError for any x/0.0, which gprof2dot maps to
  // 1.0 (0/0 is undefined; 1 is the useful answer).
  if (denominator == 0) return 1.0;
  double r = numerator / denominator;
  if (r < 0.0) {
    if (r < -kTolerance && clamped) ++*clamped;
    return 0.0;
  }
  if (r > 1.0) {
    if (r > 1.0 + kTolerance && clamped) ++*clamped;
    return 1.0;
  }
  return r;
}

/// Builds the graph of a profile that reports its own inclusive costs
/// (Profile::total_cost, e.g. pstats): total = max(sum of self, largest
/// inclusive); node and edge ratios are relative to that total. This is
/// gprof2dot's pstats rule, with no cycle integration.
CallGraph graph_from_reported_totals(const Profile& p, std::size_t event, Diagnostics& diag);
/// The same graph, for a profile of which nothing but its functions,
/// events and strings is read after it (a picture's writer): the
/// profile's calls are released (left empty) as soon as the edges hold
/// what they had, before the nodes are made, so the profile's calls and
/// the whole graph are never held at once.
CallGraph graph_releasing_calls(Profile& p, std::size_t event, Diagnostics& diag);

/// Gives back `p`'s calls, their costs and own times, its strings' lookup
/// by text (StringTable::release_lookup()), and the memory they held: what
/// a graph does once its edges hold what the calls had and nothing reads
/// them after (graph_releasing_calls(), graph_from_call_stacks()).
void release_calls(Profile& p);

}  // namespace graphgen
