// The one call-graph model that every reader fills and every writer reads.
//
// Shaped after pprof's profile.proto and LLVM ProfileData: strings interned
// once, objects referring to each other by 32-bit index (never by pointer),
// costs as integers in each event's unit, output order by index.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graphgen/strings.h"

namespace graphgen {

using FuncId = std::uint32_t;
using CallId = std::uint32_t;
using Cost = std::int64_t;

/// A count the format does not provide (perf has no call counts).
inline constexpr std::int64_t kUnknownCount = -1;

/// One cost column, e.g. ("time", "ns"), ("Ir", ""), ("samples", "").
struct Event {
  StringId name = kNoString;
  StringId unit = kNoString;
  /// Seconds per unit for time events (1e-9 for ns), 0 for counts.
  double seconds_per_unit = 0;
};

struct Function {
  /// What gprof2dot shows and what -z/-l match, e.g. `memtrail:382:tree`.
  StringId label = kNoString;
  /// The bare function name, e.g. `tree`.
  StringId name = kNoString;
  /// What the label shows above the name: the basename of the binary or
  /// DSO (perf, callgrind ob=), or the source file (collapsed stacks).
  StringId module = kNoString;
  /// Full path of the binary or shared object, if any.
  StringId object = kNoString;
  /// Whether labels show `module` (even when empty: perf's `()` frames).
  bool show_module = false;
  /// Source file, if known.
  StringId file = kNoString;
  /// Process name (json, xperf), if any.
  StringId process = kNoString;
  std::uint32_t line = 0;
  /// Total calls into the function (pstats nc), or kUnknownCount.
  std::int64_t calls = kUnknownCount;
  /// Calls not already active on the stack (pstats cc), or kUnknownCount.
  std::int64_t primitive_calls = kUnknownCount;
};

/// One caller -> callee edge; at most one per ordered pair.
struct Call {
  FuncId caller = 0;
  FuncId callee = 0;
  /// Calls along the edge, or kUnknownCount.
  std::int64_t count = kUnknownCount;
  /// Calls not made while the same caller->callee pair was active (pstats
  /// cc), or kUnknownCount.
  std::int64_t primitive_count = kUnknownCount;
};

/// Optional layer: cost per source line of a function (callgrind positions,
/// line_profiler timings).
struct LineCost {
  FuncId function = 0;
  StringId file = kNoString;
  std::uint32_t line = 0;
};

/// Optional layer: sample stacks as a callsite tree (perf, collapsed stacks).
/// Node 0 is the root; `parent` of the root is itself.
struct StackNode {
  std::uint32_t parent = 0;
  FuncId function = 0;
};

/// A whole profile. Plain data: analysis passes are free functions.
struct Profile {
  StringTable strings;
  std::vector<Event> events;
  std::vector<Function> functions;
  /// functions.size() x events.size(), row-major: cost of the function alone.
  std::vector<Cost> self_cost;
  /// Whether the profiler reported each function's inclusive cost itself
  /// (pstats `ct`); otherwise totals are derived from the call graph.
  bool reports_totals = false;
  /// functions.size() x events.size() when reports_totals, else empty.
  std::vector<Cost> total_cost;
  /// Sampling formats: per function, the weight of the samples whose stack
  /// holds it at least once (gprof2dot's TOTAL_SAMPLES, for --total
  /// callstacks); functions.size() x events.size() when keeps_stack_totals.
  bool keeps_stack_totals = false;
  std::vector<Cost> stack_total;
  std::vector<Call> calls;
  /// calls.size() x events.size(): inclusive cost of the callee along the edge.
  std::vector<Cost> call_cost;

  std::vector<LineCost> line_costs;
  std::vector<Cost> line_cost_values;  // line_costs.size() x events.size()
  std::vector<StackNode> stack_nodes;
  std::vector<Cost> stack_node_cost;  // stack_nodes.size() x events.size()

  std::size_t num_events() const { return events.size(); }
  bool has_total_cost() const { return reports_totals; }

  FuncId add_function(const Function& f);
  CallId add_call(const Call& c);

  Cost& self(FuncId f, std::size_t e) { return self_cost[f * events.size() + e]; }
  Cost self(FuncId f, std::size_t e) const { return self_cost[f * events.size() + e]; }
  Cost& total(FuncId f, std::size_t e) { return total_cost[f * events.size() + e]; }
  Cost total(FuncId f, std::size_t e) const { return total_cost[f * events.size() + e]; }
  Cost& stack_inclusive(FuncId f, std::size_t e) { return stack_total[f * events.size() + e]; }
  Cost stack_inclusive(FuncId f, std::size_t e) const { return stack_total[f * events.size() + e]; }
  Cost& inclusive(CallId c, std::size_t e) { return call_cost[c * events.size() + e]; }
  Cost inclusive(CallId c, std::size_t e) const { return call_cost[c * events.size() + e]; }

  std::string_view str(StringId id) const { return strings.view(id); }
};

/// Adds with saturation at the int64 limits instead of wrapping.
inline Cost saturating_add(Cost a, Cost b) {
  Cost r;
  if (__builtin_add_overflow(a, b, &r)) return b > 0 ? INT64_MAX : INT64_MIN;
  return r;
}

/// Rounds seconds to integer nanoseconds, saturating; see README "Rounding".
Cost seconds_to_ns(double seconds);

/// A cost as a number to show: seconds for time events (ns divided exactly,
/// so 1177 ns is the 1.177e-06 the profiler wrote), else the count itself.
double event_value(const Event& event, Cost cost);

/// CSR adjacency over Profile::calls: out-calls and in-calls per function,
/// each range in call-index order.
struct Adjacency {
  std::vector<std::uint32_t> out_begin, out_calls, in_begin, in_calls;

  static Adjacency build(const Profile& p);
  std::size_t out_size(FuncId f) const { return out_begin[f + 1] - out_begin[f]; }
};

}  // namespace graphgen
