#include "graphgen/profile.h"

#include <cmath>

namespace graphgen {

FuncId Profile::add_function(const Function& f) {
  auto id = static_cast<FuncId>(functions.size());
  functions.push_back(f);
  self_cost.resize(self_cost.size() + events.size(), 0);
  if (has_total_cost()) total_cost.resize(total_cost.size() + events.size(), 0);
  if (keeps_stack_totals) stack_total.resize(functions.size() * events.size(), 0);
  return id;
}

CallId Profile::add_call(const Call& c) {
  auto id = static_cast<CallId>(calls.size());
  calls.push_back(c);
  call_cost.resize(call_cost.size() + events.size(), 0);
  return id;
}

Cost seconds_to_ns(double seconds) {
  double ns = seconds * 1e9;
  if (std::isnan(ns)) return 0;
  if (ns >= 9.2e18) return INT64_MAX;
  if (ns <= -9.2e18) return INT64_MIN;
  return std::llround(ns);
}

double event_value(const Event& event, Cost cost) {
  if (event.seconds_per_unit == 1e-9) return static_cast<double>(cost) / 1e9;
  if (event.seconds_per_unit > 0) return static_cast<double>(cost) * event.seconds_per_unit;
  return static_cast<double>(cost);
}

Adjacency Adjacency::build(const Profile& p) {
  Adjacency a;
  std::size_t n = p.functions.size();
  a.out_begin.assign(n + 1, 0);
  a.in_begin.assign(n + 1, 0);
  for (const Call& c : p.calls) {
    ++a.out_begin[c.caller + 1];
    ++a.in_begin[c.callee + 1];
  }
  for (std::size_t i = 0; i < n; ++i) {
    a.out_begin[i + 1] += a.out_begin[i];
    a.in_begin[i + 1] += a.in_begin[i];
  }
  a.out_calls.resize(p.calls.size());
  a.in_calls.resize(p.calls.size());
  std::vector<std::uint32_t> out_fill(a.out_begin.begin(), a.out_begin.end() - 1);
  std::vector<std::uint32_t> in_fill(a.in_begin.begin(), a.in_begin.end() - 1);
  for (std::uint32_t i = 0; i < p.calls.size(); ++i) {
    a.out_calls[out_fill[p.calls[i].caller]++] = i;
    a.in_calls[in_fill[p.calls[i].callee]++] = i;
  }
  return a;
}

}  // namespace graphgen
