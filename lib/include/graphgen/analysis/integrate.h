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

#include <cstdint>
#include <vector>

#include "graphgen/analysis/graph.h"

namespace graphgen {

/// Strongly connected components with at least two members (a function
/// calling only itself is not a cycle).
struct Cycles {
  static constexpr std::uint32_t kNone = UINT32_MAX;
  std::vector<std::uint32_t> cycle_of;         // per function: cycle index or kNone
  std::vector<std::vector<FuncId>> members;    // per cycle, in id order
  std::vector<std::vector<FuncId>> scc_order;  // every SCC, callees before callers
};

/// Tarjan's algorithm over the profile's calls, without recursion.
Cycles find_cycles(const Profile& p, const Adjacency& adj);

/// gprof2dot's call ratios: each non-self call's cost over the callee's
/// incoming cost (over the cycle's incoming cost for calls entering a
/// cycle). Indexed by CallId; negative for self calls (no ratio).
std::vector<double> call_ratios(const Profile& p, const Cycles& cycles, std::size_t event);

/// gprof2dot's default for sampling and call-graph formats (--total
/// callratios): self ratio = self / sum of self; totals integrated along the
/// call ratios, cycles shared out per entry point.
CallGraph graph_from_call_ratios(const Profile& p, std::size_t event, Diagnostics& diag);

/// --total callstacks: a function's total is the weight of the samples whose
/// stack holds it (Profile::stack_total); a call's total is its ratio times
/// the callee's total.
CallGraph graph_from_call_stacks(const Profile& p, std::size_t event, Diagnostics& diag);

}  // namespace graphgen
