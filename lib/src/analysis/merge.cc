#include "graphgen/analysis/merge.h"

#include "graphgen/flat_index.h"

namespace graphgen {

Profile merge_functions(Profile p, FunctionKey key) {
  Profile out;
  const std::size_t ne = p.events.size();
  out.strings = std::move(p.strings);  // ids stay valid
  out.events = p.events;
  out.reports_totals = p.reports_totals;
  out.keeps_stack_totals = p.keeps_stack_totals;

  std::vector<FuncId> map(p.functions.size());
  FlatIndex functions;
  for (FuncId f = 0; f < p.functions.size(); ++f) {
    const Function& fn = p.functions[f];
    bool by_object = key == FunctionKey::kNameAndObject;
    FuncId to = functions.find_or_add(
        FlatIndex::mix(fn.name, by_object ? fn.object : 0),
        [&](std::uint32_t g) {
          return out.functions[g].name == fn.name && (!by_object || out.functions[g].object == fn.object);
        },
        [&] {
          Function copy = fn;
          copy.calls = copy.primitive_calls = kUnknownCount;
          return out.add_function(copy);
        });
    map[f] = to;
    Function& merged = out.functions[to];
    if (fn.calls != kUnknownCount) merged.calls = saturating_add(merged.calls == kUnknownCount ? 0 : merged.calls, fn.calls);
    if (fn.primitive_calls != kUnknownCount)
      merged.primitive_calls =
          saturating_add(merged.primitive_calls == kUnknownCount ? 0 : merged.primitive_calls, fn.primitive_calls);
    for (std::size_t e = 0; e < ne; ++e) {
      out.self(to, e) = saturating_add(out.self(to, e), p.self(f, e));
      if (p.has_total_cost()) out.total(to, e) = saturating_add(out.total(to, e), p.total(f, e));
      if (p.keeps_stack_totals) out.stack_inclusive(to, e) = saturating_add(out.stack_inclusive(to, e), p.stack_inclusive(f, e));
    }
  }

  FlatIndex calls;
  for (CallId c = 0; c < p.calls.size(); ++c) {
    FuncId caller = map[p.calls[c].caller];
    FuncId callee = map[p.calls[c].callee];
    CallId to = calls.find_or_add(
        FlatIndex::mix(caller, callee),
        [&](std::uint32_t d) { return out.calls[d].caller == caller && out.calls[d].callee == callee; },
        [&] { return out.add_call({caller, callee, kUnknownCount}); });
    if (p.calls[c].count != kUnknownCount)
      out.calls[to].count = saturating_add(out.calls[to].count == kUnknownCount ? 0 : out.calls[to].count, p.calls[c].count);
    if (p.calls[c].primitive_count != kUnknownCount)
      out.calls[to].primitive_count = saturating_add(
          out.calls[to].primitive_count == kUnknownCount ? 0 : out.calls[to].primitive_count, p.calls[c].primitive_count);
    for (std::size_t e = 0; e < ne; ++e) out.inclusive(to, e) = saturating_add(out.inclusive(to, e), p.inclusive(c, e));
  }

  out.line_costs = std::move(p.line_costs);
  for (LineCost& lc : out.line_costs) lc.function = map[lc.function];
  out.line_cost_values = std::move(p.line_cost_values);
  out.stack_nodes = std::move(p.stack_nodes);
  for (std::size_t n = 1; n < out.stack_nodes.size(); ++n) out.stack_nodes[n].function = map[out.stack_nodes[n].function];
  out.stack_node_cost = std::move(p.stack_node_cost);
  return out;
}

}  // namespace graphgen
