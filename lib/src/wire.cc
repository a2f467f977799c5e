#include "graphgen/wire.h"

#include <fmt/format.h>

#include <algorithm>

namespace graphgen::wire {

namespace {

constexpr std::uint32_t kMagic = 0x67677732;  // "ggw2"

// Each record's fields are listed once, for writing and reading alike:
// field() puts from a const record and gets into a mutable one.
template <class T>
void field(Writer& w, const T& v) {
  w.put(v);
}
template <class T>
void field(Reader& r, T& v) {
  v = r.get<T>();
}
void flag(Writer& w, bool v) { w.put<std::uint8_t>(v); }
void flag(Reader& r, bool& v) { v = r.get<std::uint8_t>() != 0; }

constexpr auto event_fields = [](auto& io, auto& e) {
  field(io, e.name);
  field(io, e.unit);
  field(io, e.seconds_per_unit);
  flag(io, e.floating);
  field(io, e.long_name);
};

// A function's three flags travel as the bits of one byte.
void function_flags(Writer& w, const Function& f) {
  w.put<std::uint8_t>(static_cast<std::uint8_t>(f.has_object | (f.unresolved << 1) | (f.python << 2)));
}
void function_flags(Reader& r, Function& f) {
  auto bits = r.get<std::uint8_t>();
  f.has_object = (bits & 1) != 0;
  f.unresolved = (bits & 2) != 0;
  f.python = (bits & 4) != 0;
}
// The instance is a bit field of 29 bits: travels as 32, read back within them.
void function_instance(Writer& w, const Function& f) { w.put<std::uint32_t>(f.instance); }
void function_instance(Reader& r, Function& f) { f.instance = std::min(r.get<std::uint32_t>(), kMaxInstance); }

constexpr auto function_fields = [](auto& io, auto& f) {
  field(io, f.name);
  field(io, f.object);
  field(io, f.file);
  field(io, f.process);
  field(io, f.code);
  field(io, f.line);
  field(io, f.calls);
  field(io, f.primitive_calls);
  function_flags(io, f);
  function_instance(io, f);
};

constexpr auto call_fields = [](auto& io, auto& c) {
  field(io, c.caller);
  field(io, c.callee);
  field(io, c.count);
  field(io, c.primitive_count);
};

constexpr auto line_fields = [](auto& io, auto& l) {
  field(io, l.function);
  field(io, l.file);
  field(io, l.line);
  field(io, l.columns);
  field(io, l.address);
};

constexpr auto site_fields = [](auto& io, auto& s) {
  field(io, s.call);
  field(io, s.file);
  field(io, s.line);
  field(io, s.columns);
  field(io, s.address);
  field(io, s.target_line);
  field(io, s.target_address);
  field(io, s.count);
  flag(io, s.callee_file_implicit);
};

constexpr auto jump_fields = [](auto& io, auto& j) {
  field(io, j.function);
  field(io, j.file);
  field(io, j.line);
  field(io, j.address);
  field(io, j.target);
  field(io, j.target_file);
  field(io, j.target_line);
  field(io, j.target_address);
  field(io, j.count);
  field(io, j.executed);
};

constexpr auto metadata_fields = [](auto& io, auto& m) {
  field(io, m.first);
  field(io, m.second);
};

constexpr auto node_fields = [](auto& io, auto& n) {
  field(io, n.parent);
  field(io, n.function);
  field(io, n.process);
};

// A count, then each record.
template <class T, class Fields>
void put_records(Writer& w, const std::vector<T>& records, Fields fields) {
  w.put<std::uint64_t>(records.size());
  for (const T& x : records) fields(w, x);
}

// A count below `limit`, then each record, kept when `valid` says so;
// false at the first that is not (or when the message ends).
template <class T, class Fields, class Valid>
bool get_records(Reader& r, std::vector<T>& out, std::uint64_t limit, Fields fields, Valid valid) {
  auto n = r.get<std::uint64_t>();
  if (!r.ok() || n >= limit) return false;
  for (std::uint64_t i = 0; i < n && r.ok(); ++i) {
    T x{};
    fields(r, x);
    if (!r.ok() || !valid(x, i, n)) return false;
    out.push_back(x);
  }
  return r.ok();
}

}  // namespace

void put_profile(Writer& w, const Profile& p) {
  w.put(kMagic);
  w.put<std::uint64_t>(p.strings.size());
  for (std::size_t i = 0; i < p.strings.size(); ++i) w.bytes(p.strings.view(static_cast<StringId>(i)));
  put_records(w, p.events, event_fields);
  w.put(p.label_style);
  w.put<std::uint8_t>(p.line_in_identity);
  put_records(w, p.functions, function_fields);
  w.vec(p.self_cost);
  w.put<std::uint8_t>(p.reports_totals);
  w.vec(p.total_cost);
  w.put<std::uint8_t>(p.keeps_stack_totals);
  w.vec(p.stack_total);
  w.vec(p.reported_share);
  w.vec(p.listed);
  put_records(w, p.calls, call_fields);
  w.vec(p.call_cost);
  w.put<std::uint8_t>(p.keeps_call_self);
  w.vec(p.call_self);
  w.put<std::uint8_t>(p.call_costs_from_counts);
  w.put(p.positions);
  put_records(w, p.line_costs, line_fields);
  w.vec(p.line_cost_values);
  put_records(w, p.call_sites, site_fields);
  w.vec(p.call_site_cost);
  put_records(w, p.jumps, jump_fields);
  put_records(w, p.metadata, metadata_fields);
  w.vec(p.reported.summary);
  w.vec(p.reported.totals);
  w.vec(p.reported.self_sums);
  put_records(w, p.stack_nodes, node_fields);
  w.vec(p.stack_node_cost);
}

namespace {

// The costs of functions and calls, checked against their counts.
bool get_costs(Reader& r, Profile& p) {
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
    return false;
  for (FuncId f : p.listed)
    if (f >= nf) return false;
  return true;
}

}  // namespace

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
  auto str = [&](StringId s) { return s < ns; };
  constexpr std::uint64_t kAny = UINT64_MAX;
  if (!get_records(r, p.events, 1'000'001, event_fields,
                   [&](const Event& e, auto, auto) { return str(e.name) && str(e.unit) && str(e.long_name); }))
    return broken("events");
  p.label_style = r.get<LabelStyle>();
  p.line_in_identity = r.get<std::uint8_t>() != 0;
  if (!get_records(r, p.functions, UINT32_MAX, function_fields, [&](const Function& f, auto, auto) {
        return str(f.name) && str(f.object) && str(f.file) && str(f.process) && str(f.code);
      }))
    return broken("functions");
  if (!get_costs(r, p)) return broken("costs");
  const std::size_t nf = p.functions.size(), ne = p.events.size();
  if (!get_records(r, p.calls, UINT32_MAX, call_fields,
                   [&](const Call& c, auto, auto) { return c.caller < nf && c.callee < nf; }))
    return broken("calls");
  const std::size_t nc = p.calls.size();
  p.call_cost = r.vec<Cost>();
  p.keeps_call_self = r.get<std::uint8_t>() != 0;
  p.call_self = r.vec<Cost>();
  p.call_costs_from_counts = r.get<std::uint8_t>() != 0;
  p.positions = r.get<std::uint8_t>();
  if (!r.ok() || p.call_cost.size() != nc * ne || p.call_self.size() != (p.keeps_call_self ? nc * ne : 0))
    return broken("call costs");
  if (!get_records(r, p.line_costs, kAny, line_fields,
                   [&](const LineCost& l, auto, auto) { return l.function < nf && str(l.file); }))
    return broken("line costs");
  p.line_cost_values = r.vec<Cost>();
  if (!r.ok() || p.line_cost_values.size() != p.line_costs.size() * ne) return broken("line costs");
  if (!get_records(r, p.call_sites, kAny, site_fields,
                   [&](const CallSite& s, auto, auto) { return s.call < nc && str(s.file); }))
    return broken("call sites");
  p.call_site_cost = r.vec<Cost>();
  if (!r.ok() || p.call_site_cost.size() != p.call_sites.size() * ne) return broken("call sites");
  if (!get_records(r, p.jumps, kAny, jump_fields, [&](const Jump& j, auto, auto) {
        return j.function < nf && j.target < nf && str(j.file) && str(j.target_file);
      }))
    return broken("jumps");
  if (!get_records(r, p.metadata, kAny, metadata_fields,
                   [&](const auto& m, auto, auto) { return str(m.first) && str(m.second); }))
    return broken("metadata");
  p.reported.summary = r.vec<Cost>();
  p.reported.totals = r.vec<Cost>();
  p.reported.self_sums = r.vec<Cost>();
  if (!get_records(r, p.stack_nodes, kAny, node_fields, [&](const StackNode& n, std::uint64_t i, std::uint64_t count) {
        return n.parent < count && str(n.process) && !(i > 0 && n.process == kNoString && n.function >= nf);
      }))
    return broken("stack nodes");
  p.stack_node_cost = r.vec<Cost>();
  if (!r.ok() || p.stack_node_cost.size() != p.stack_nodes.size() * ne) return broken("stack nodes");
  return p;
}

}  // namespace graphgen::wire
