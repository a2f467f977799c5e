#include "graphgen/wire.h"

#include <fmt/format.h>

namespace graphgen::wire {

namespace {

constexpr std::uint32_t kMagic = 0x67677731;  // "ggw1"

}  // namespace

void put_profile(Writer& w, const Profile& p) {
  w.put(kMagic);
  w.put<std::uint64_t>(p.strings.size());
  for (std::size_t i = 0; i < p.strings.size(); ++i) w.bytes(p.strings.view(static_cast<StringId>(i)));
  w.put<std::uint64_t>(p.events.size());
  for (const Event& e : p.events) {
    w.put(e.name);
    w.put(e.unit);
    w.put(e.seconds_per_unit);
    w.put<std::uint8_t>(e.floating);
    w.put(e.long_name);
  }
  w.put(p.label_style);
  w.put<std::uint64_t>(p.functions.size());
  for (const Function& f : p.functions) {
    w.put(f.name);
    w.put(f.object);
    w.put(f.file);
    w.put(f.process);
    w.put(f.code);
    w.put(f.line);
    w.put(f.calls);
    w.put(f.primitive_calls);
    w.put<std::uint8_t>(static_cast<std::uint8_t>(f.has_object | (f.unresolved << 1) | (f.python << 2)));
    w.put(f.instance);
  }
  w.vec(p.self_cost);
  w.put<std::uint8_t>(p.reports_totals);
  w.vec(p.total_cost);
  w.put<std::uint8_t>(p.keeps_stack_totals);
  w.vec(p.stack_total);
  w.vec(p.reported_share);
  w.vec(p.listed);
  w.put<std::uint64_t>(p.calls.size());
  for (const Call& c : p.calls) {
    w.put(c.caller);
    w.put(c.callee);
    w.put(c.count);
    w.put(c.primitive_count);
  }
  w.vec(p.call_cost);
  w.put<std::uint8_t>(p.keeps_call_self);
  w.vec(p.call_self);
  w.put<std::uint8_t>(p.call_costs_from_counts);
  w.put(p.positions);
  w.put<std::uint64_t>(p.line_costs.size());
  for (const LineCost& l : p.line_costs) {
    w.put(l.function);
    w.put(l.file);
    w.put(l.line);
    w.put(l.columns);
    w.put(l.address);
  }
  w.vec(p.line_cost_values);
  w.put<std::uint64_t>(p.call_sites.size());
  for (const CallSite& s : p.call_sites) {
    w.put(s.call);
    w.put(s.file);
    w.put(s.line);
    w.put(s.columns);
    w.put(s.address);
    w.put(s.target_line);
    w.put(s.target_address);
    w.put(s.count);
    w.put<std::uint8_t>(s.callee_file_implicit);
  }
  w.vec(p.call_site_cost);
  w.put<std::uint64_t>(p.jumps.size());
  for (const Jump& j : p.jumps) {
    w.put(j.function);
    w.put(j.file);
    w.put(j.line);
    w.put(j.address);
    w.put(j.target);
    w.put(j.target_file);
    w.put(j.target_line);
    w.put(j.target_address);
    w.put(j.count);
    w.put(j.executed);
  }
  w.put<std::uint64_t>(p.metadata.size());
  for (const auto& [k, v] : p.metadata) {
    w.put(k);
    w.put(v);
  }
  w.vec(p.reported.summary);
  w.vec(p.reported.totals);
  w.vec(p.reported.self_sums);
  w.put<std::uint64_t>(p.stack_nodes.size());
  for (const StackNode& n : p.stack_nodes) {
    w.put(n.parent);
    w.put(n.function);
    w.put(n.process);
  }
  w.vec(p.stack_node_cost);
}

Expected<Profile> get_profile(Reader& r, std::string_view what) {
  auto broken = [&](std::string_view part) {
    return bad_input(fmt::format("{}: a damaged profile message (at its {})", what, part));
  };
  if (r.get<std::uint32_t>() != kMagic) return broken("start");
  Profile p;
  auto strings = r.get<std::uint64_t>();
  for (std::uint64_t i = 0; i < strings && r.ok(); ++i) {
    std::string_view s = r.bytes();
    if (p.strings.intern(s) != i) return broken("strings");
  }
  if (!r.ok()) return broken("strings");
  const std::size_t ns = p.strings.size();
  auto string_ok = [&](StringId s) { return s < ns; };
  auto events = r.get<std::uint64_t>();
  if (!r.ok() || events > 1'000'000) return broken("events");
  for (std::uint64_t i = 0; i < events; ++i) {
    Event e;
    e.name = r.get<StringId>();
    e.unit = r.get<StringId>();
    e.seconds_per_unit = r.get<double>();
    e.floating = r.get<std::uint8_t>() != 0;
    e.long_name = r.get<StringId>();
    if (!r.ok() || !string_ok(e.name) || !string_ok(e.unit) || !string_ok(e.long_name)) return broken("events");
    p.events.push_back(e);
  }
  p.label_style = r.get<LabelStyle>();
  auto functions = r.get<std::uint64_t>();
  if (!r.ok() || functions >= UINT32_MAX) return broken("functions");
  for (std::uint64_t i = 0; i < functions && r.ok(); ++i) {
    Function f;
    f.name = r.get<StringId>();
    f.object = r.get<StringId>();
    f.file = r.get<StringId>();
    f.process = r.get<StringId>();
    f.code = r.get<StringId>();
    f.line = r.get<std::int64_t>();
    f.calls = r.get<std::int64_t>();
    f.primitive_calls = r.get<std::int64_t>();
    auto bits = r.get<std::uint8_t>();
    f.has_object = (bits & 1) != 0;
    f.unresolved = (bits & 2) != 0;
    f.python = (bits & 4) != 0;
    f.instance = r.get<std::uint32_t>();
    if (!string_ok(f.name) || !string_ok(f.object) || !string_ok(f.file) || !string_ok(f.process) || !string_ok(f.code))
      return broken("functions");
    p.functions.push_back(f);
  }
  const std::size_t nf = p.functions.size(), ne = p.events.size();
  p.self_cost = r.vec<Cost>();
  p.reports_totals = r.get<std::uint8_t>() != 0;
  p.total_cost = r.vec<Cost>();
  p.keeps_stack_totals = r.get<std::uint8_t>() != 0;
  p.stack_total = r.vec<Cost>();
  p.reported_share = r.vec<double>();
  p.listed = r.vec<FuncId>();
  if (!r.ok() || p.self_cost.size() != nf * ne || p.total_cost.size() != (p.reports_totals ? nf * ne : 0) ||
      p.stack_total.size() != (p.keeps_stack_totals ? nf * ne : 0) ||
      (!p.reported_share.empty() && p.reported_share.size() != nf))
    return broken("costs");
  for (FuncId f : p.listed)
    if (f >= nf) return broken("listed functions");
  auto calls = r.get<std::uint64_t>();
  if (!r.ok() || calls >= UINT32_MAX) return broken("calls");
  for (std::uint64_t i = 0; i < calls && r.ok(); ++i) {
    Call c;
    c.caller = r.get<FuncId>();
    c.callee = r.get<FuncId>();
    c.count = r.get<std::int64_t>();
    c.primitive_count = r.get<std::int64_t>();
    if (c.caller >= nf || c.callee >= nf) return broken("calls");
    p.calls.push_back(c);
  }
  const std::size_t nc = p.calls.size();
  p.call_cost = r.vec<Cost>();
  p.keeps_call_self = r.get<std::uint8_t>() != 0;
  p.call_self = r.vec<Cost>();
  p.call_costs_from_counts = r.get<std::uint8_t>() != 0;
  p.positions = r.get<std::uint8_t>();
  if (!r.ok() || p.call_cost.size() != nc * ne || p.call_self.size() != (p.keeps_call_self ? nc * ne : 0))
    return broken("call costs");
  auto lines = r.get<std::uint64_t>();
  for (std::uint64_t i = 0; i < lines && r.ok(); ++i) {
    LineCost l;
    l.function = r.get<FuncId>();
    l.file = r.get<StringId>();
    l.line = r.get<std::uint32_t>();
    l.columns = r.get<std::uint32_t>();
    l.address = r.get<std::uint64_t>();
    if (l.function >= nf || !string_ok(l.file)) return broken("line costs");
    p.line_costs.push_back(l);
  }
  p.line_cost_values = r.vec<Cost>();
  if (!r.ok() || p.line_cost_values.size() != p.line_costs.size() * ne) return broken("line costs");
  auto sites = r.get<std::uint64_t>();
  for (std::uint64_t i = 0; i < sites && r.ok(); ++i) {
    CallSite s;
    s.call = r.get<CallId>();
    s.file = r.get<StringId>();
    s.line = r.get<std::uint32_t>();
    s.columns = r.get<std::uint32_t>();
    s.address = r.get<std::uint64_t>();
    s.target_line = r.get<std::uint32_t>();
    s.target_address = r.get<std::uint64_t>();
    s.count = r.get<std::int64_t>();
    s.callee_file_implicit = r.get<std::uint8_t>() != 0;
    if (s.call >= nc || !string_ok(s.file)) return broken("call sites");
    p.call_sites.push_back(s);
  }
  p.call_site_cost = r.vec<Cost>();
  if (!r.ok() || p.call_site_cost.size() != p.call_sites.size() * ne) return broken("call sites");
  auto jumps = r.get<std::uint64_t>();
  for (std::uint64_t i = 0; i < jumps && r.ok(); ++i) {
    Jump j;
    j.function = r.get<FuncId>();
    j.file = r.get<StringId>();
    j.line = r.get<std::uint32_t>();
    j.address = r.get<std::uint64_t>();
    j.target = r.get<FuncId>();
    j.target_file = r.get<StringId>();
    j.target_line = r.get<std::uint32_t>();
    j.target_address = r.get<std::uint64_t>();
    j.count = r.get<std::int64_t>();
    j.executed = r.get<std::int64_t>();
    if (j.function >= nf || j.target >= nf || !string_ok(j.file) || !string_ok(j.target_file)) return broken("jumps");
    p.jumps.push_back(j);
  }
  auto metadata = r.get<std::uint64_t>();
  for (std::uint64_t i = 0; i < metadata && r.ok(); ++i) {
    auto k = r.get<StringId>();
    auto v = r.get<StringId>();
    if (!string_ok(k) || !string_ok(v)) return broken("metadata");
    p.metadata.emplace_back(k, v);
  }
  p.reported.summary = r.vec<Cost>();
  p.reported.totals = r.vec<Cost>();
  p.reported.self_sums = r.vec<Cost>();
  auto nodes = r.get<std::uint64_t>();
  for (std::uint64_t i = 0; i < nodes && r.ok(); ++i) {
    StackNode n;
    n.parent = r.get<std::uint32_t>();
    n.function = r.get<FuncId>();
    n.process = r.get<StringId>();
    if (n.parent >= nodes || !string_ok(n.process) || (i > 0 && n.process == kNoString && n.function >= nf))
      return broken("stack nodes");
    p.stack_nodes.push_back(n);
  }
  p.stack_node_cost = r.vec<Cost>();
  if (!r.ok() || p.stack_node_cost.size() != p.stack_nodes.size() * ne) return broken("stack nodes");
  return p;
}

}  // namespace graphgen::wire
