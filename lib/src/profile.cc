#include "graphgen/profile.h"

#include <algorithm>
#include <cmath>

#include "graphgen/error.h"

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
  if (keeps_call_self) call_self.resize(call_cost.size(), 0);
  return id;
}

void Profile::reserve(std::size_t function_rows, std::size_t call_rows) {
  const std::size_t n = events.size();
  functions.reserve(function_rows);
  self_cost.reserve(function_rows * n);
  if (has_total_cost()) total_cost.reserve(function_rows * n);
  if (keeps_stack_totals) stack_total.reserve(function_rows * n);
  calls.reserve(call_rows);
  call_cost.reserve(call_rows * n);
  if (keeps_call_self) call_self.reserve(call_rows * n);
}

void Profile::reserve_bound(std::size_t functions, std::size_t calls) {
  const std::size_t n = std::max<std::size_t>(events.size(), 1);
  // (A function's widest row: its record and three tables of costs.)
  reserve(bounded_rows(functions, sizeof(Function) + 3 * n * sizeof(Cost)),
          bounded_rows(calls, sizeof(Call) + 2 * n * sizeof(Cost)));
}

std::uint32_t Profile::location_row(FuncId f, std::vector<std::uint32_t>& rows, bool add) {
  if (rows.size() <= f) rows.resize(static_cast<std::size_t>(f) + 1, UINT32_MAX);
  Location& l = locations.back();
  if (rows[f] != UINT32_MAX && rows[f] >= l.begin && rows[f] < l.end) return rows[f];
  if (!add) return UINT32_MAX;
  rows[f] = static_cast<std::uint32_t>(location_functions.size());
  location_functions.push_back(f);
  location_self.resize(location_self.size() + events.size(), 0);  // (0 is also +0.0 of floating events)
  location_total.resize(location_total.size() + events.size(), 0);
  l.end = rows[f] + 1;
  return rows[f];
}

namespace {

// Inserts a zero column at the end of every row of a row-major table.
void widen(std::vector<Cost>& table, std::size_t rows, std::size_t old_width, Cost zero) {
  if (table.empty()) return;
  std::vector<Cost> out;
  out.reserve(rows * (old_width + 1));
  for (std::size_t r = 0; r < rows; ++r) {
    out.insert(out.end(), table.begin() + static_cast<std::ptrdiff_t>(r * old_width),
               table.begin() + static_cast<std::ptrdiff_t>((r + 1) * old_width));
    out.push_back(zero);
  }
  table = std::move(out);
}

}  // namespace

std::size_t Profile::add_event(const Event& e) {
  const std::size_t old = events.size();
  const Cost zero = e.floating ? float_cost(0.0) : 0;
  widen(self_cost, functions.size(), old, zero);
  widen(total_cost, functions.size(), old, zero);
  widen(stack_total, functions.size(), old, zero);
  widen(call_cost, calls.size(), old, zero);
  widen(call_self, calls.size(), old, zero);
  widen(line_cost_values, line_costs.size(), old, zero);
  widen(call_site_cost, call_sites.size(), old, zero);
  widen(stack_node_cost, stack_nodes.size(), old, zero);
  events.push_back(e);
  return old;
}

void Jump::add(const Jump& o) {
  count = saturating_add(count, o.count);
  if (conditional()) executed = saturating_add(executed, o.executed);
}

std::size_t Profile::approximate_bytes() const {
  auto bytes = [](const auto& v) { return v.size() * sizeof(v[0]); };
  return strings.bytes() + bytes(functions) + bytes(self_cost) + bytes(total_cost) + bytes(stack_total) +
         bytes(listed) + bytes(calls) + bytes(call_cost) + bytes(call_self) + bytes(line_costs) +
         bytes(line_cost_values) + bytes(call_sites) + bytes(call_site_cost) + bytes(jumps) + bytes(stack_nodes) +
         bytes(stack_node_cost) + bytes(reported_share) + bytes(locations) + bytes(location_functions) +
         bytes(location_self) + bytes(location_total) + bytes(tracks) + bytes(timeline);
}

double Profile::value(std::size_t e, Cost c) const {
  return events[e].floating ? cost_float(c) : static_cast<double>(c);
}

Cost Profile::cost_of(std::size_t e, double v) const {
  if (events[e].floating) return float_cost(v);
  if (std::isnan(v)) return 0;
  if (v >= 9.2e18) return INT64_MAX;
  if (v <= -9.2e18) return INT64_MIN;
  return std::llround(v);
}

Cost Profile::add(std::size_t e, Cost a, Cost b) const {
  if (events[e].floating) return float_cost(cost_float(a) + cost_float(b));
  return saturating_add(a, b);
}

double Profile::call_value(CallId c, std::size_t e) const {
  if (!call_costs_from_counts) return value(e, inclusive(c, e));
  const Call& call = calls[c];
  const Function& callee = functions[call.callee];
  double total = has_total_cost() ? value(e, this->total(call.callee, e)) : 0.0;
  // gprof2dot: ratio(n, nc) * ct, where ratio(x, 0) is 1 and results clamp to [0, 1].
  double n = static_cast<double>(call.count == kUnknownCount ? 0 : call.count);
  double nc = static_cast<double>(callee.calls == kUnknownCount ? 0 : callee.calls);
  double share = nc == 0 ? 1.0 : n / nc;
  if (share < 0) share = 0;
  if (share > 1) share = 1;
  return share * total;
}

double shown_value(const Event& event, double value) {
  if (event.floating || event.seconds_per_unit == 1) return value;
  if (event.seconds_per_unit == 1e-9) return value / 1e9;
  if (event.seconds_per_unit > 0) return value * event.seconds_per_unit;
  return value;
}

double without_noise(const Event& event, double v) {
  if (!event.floating && std::fabs(v - std::round(v)) <= 1e-9 * std::max(1.0, std::fabs(v))) return std::round(v);
  return v;
}

double unit_value(const Event& event, double shown) {
  if (event.floating || event.seconds_per_unit == 1) return shown;
  if (event.seconds_per_unit == 1e-9) return shown * 1e9;
  if (event.seconds_per_unit > 0) return shown / event.seconds_per_unit;
  return shown;
}

double event_value(const Event& event, Cost cost) {
  return shown_value(event, event.floating ? cost_float(cost) : static_cast<double>(cost));
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

std::optional<std::size_t> sample_count_event(const Profile& p) {
  for (std::size_t e = 0; e < p.events.size(); ++e)
    if (!p.events[e].floating && p.str(p.events[e].name) == "samples") return e;
  return std::nullopt;
}

}  // namespace graphgen
