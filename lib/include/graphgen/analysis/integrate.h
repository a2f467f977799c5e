// Totals for profiles that do not report inclusive costs (callgrind, perf,
// collapsed stacks): gprof2dot's call-ratio integration with its cycle
// handling, or the call-stack totals of sampling profiles.
//
// Same arithmetic as gprof2dot (docs/gprof2dot.md §3-§4), but iterative
// everywhere: Tarjan with an explicit stack, strongly connected components
// integrated in reverse topological order, cycle partials computed by
// decreasing rank instead of recursive memoisation. Deep stacks and huge
// cycles cannot overflow, and no assertion can abort a run.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

#include "graphgen/analysis/graph.h"

namespace graphgen {

/// Strongly connected components with at least two members (a function
/// calling only itself is not a cycle).
struct Cycles {
  static constexpr std::uint32_t kNone = UINT32_MAX;
  std::vector<std::uint32_t> cycle_of;       // per function: cycle index or kNone
  std::vector<std::vector<FuncId>> members;  // per cycle, in id order
  // Every SCC, callees before callers, by its lowest id: a function alone,
  // or a cycle whose members are members[cycle_of[f]] (no list per SCC:
  // most are one function, tens of thousands of them).
  std::vector<FuncId> scc_order;
};

/// Tarjan's algorithm over the profile's calls, without recursion.
Cycles find_cycles(const Profile& p, const Adjacency& adj);

/// gprof2dot's call ratios: each non-self call's weight over the weights of
/// all calls into the callee (into the cycle, for calls entering a cycle).
/// `weight` is indexed by CallId. The result is too; negative for self calls
/// (no ratio). The ratios are made where `weight` was (one vector, not two).
std::vector<double> call_ratios(const Profile& p, const Cycles& cycles, std::vector<double> weight);
/// The same with each call's cost in `event` as its weight.
std::vector<double> call_ratios(const Profile& p, const Cycles& cycles, std::size_t event);

/// How a format's totals follow from its call graph, where gprof2dot's
/// readers differ.
struct RatioRule {
  /// What shares a callee's total out among its callers: the cost along each
  /// call (sampling formats, callgrind) or its call count (gprof text).
  enum class Split { kCallCost, kCallCount } split = Split::kCallCost;
  /// Integrate the event's own values (gprof: seconds, which the labels can
  /// show as self-time and total-time) rather than shares of the whole.
  bool in_values = false;
  /// A cycle's entry-point walks are summed by this thread while a second
  /// ranks the next ones ahead, once the walks visit more than this many
  /// calls in all; the sums are the same either way (tests set 0 and the
  /// maximum to compare the two).
  std::size_t two_cores_above = std::size_t{1} << 21;
  /// The graph's nodes and edges are set up by a second thread while this
  /// one finds the cycles and call ratios, above this many functions and
  /// calls in all (the same graph either way).
  std::size_t graph_two_cores_above = 16384;
  /// A cycle whose walks take more steps than this (its entry points times
  /// its calls and members) is announced with a warning before they start:
  /// at 0.6-2.6 ns a step, 2e9 is one to five seconds (tests set it low).
  double long_cycle_above = 2e9;
};

/// A cycle's walks say nothing while they run (a 20 000-function cycle took
/// 88 s): with a function set, graph_from_call_ratios() calls it from
/// `after` on, every half second, with the seconds its walks have taken,
/// the walks done, the cycle's entry points and members, and once more with
/// seconds < 0 when they are done (only if it was called before). `after`
/// of 0 calls it after the first walk (tests). Process-wide, as the layout's
/// (render::set_layout_progress): a front end sets it once, before any work.
using CycleProgress = std::function<void(double seconds, std::size_t walked, std::size_t entries, std::size_t members)>;
void set_cycle_progress(CycleProgress f, std::chrono::milliseconds after);

/// gprof2dot's default for sampling and call-graph formats (--total
/// callratios): self ratio = self / sum of self; totals integrated along the
/// call ratios, cycles shared out per entry point. Sums run in the
/// profile's listed order when it has one (the file's order), else by id.
CallGraph graph_from_call_ratios(const Profile& p, std::size_t event, Diagnostics& diag, const RatioRule& rule = {});

/// Formats whose profiler printed each function's share of the whole
/// (Profile::reported_share, VTune's axe export), as gprof2dot reads them:
/// node totals are those shares; each call gets the callee's share in
/// proportion to its caller's share among the callee's callers; a
/// recursive call shows the function's own share.
CallGraph graph_from_reported_shares(const Profile& p, std::size_t event, Diagnostics& diag);

/// --total callstacks: a function's total is the weight of the samples whose
/// stack holds it (Profile::stack_total); a call's total is its ratio times
/// the callee's total. `releasable`, when given, is `p` itself, whose calls
/// nothing reads after the graph: they are given back once the edges hold
/// what they had, before the nodes are made.
CallGraph graph_from_call_stacks(const Profile& p, std::size_t event, Diagnostics& diag, Profile* releasable = nullptr);

}  // namespace graphgen
