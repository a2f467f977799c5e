#include "graphgen/analysis/merge.h"

#include "graphgen/flat_index.h"

#include <atomic>
#include <fmt/format.h>
#include <optional>
#include <thread>

namespace graphgen {

namespace {

std::int64_t add_count(std::int64_t a, std::int64_t b) {
  if (b == kUnknownCount) return a;
  return saturating_add(a == kUnknownCount ? 0 : a, b);
}

}  // namespace

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
    merged.calls = add_count(merged.calls, fn.calls);
    merged.primitive_calls = add_count(merged.primitive_calls, fn.primitive_calls);
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
    out.calls[to].count = add_count(out.calls[to].count, p.calls[c].count);
    out.calls[to].primitive_count = add_count(out.calls[to].primitive_count, p.calls[c].primitive_count);
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

std::uint64_t ProfileMerger::function_hash(std::string_view label, std::string_view name, std::string_view object,
                                           std::string_view file) {
  return FlatIndex::mix(FlatIndex::hash_bytes(label), FlatIndex::hash_bytes(name),
                        FlatIndex::hash_bytes(object) ^ (FlatIndex::hash_bytes(file) << 1));
}

ProfileMerger::ProfileMerger(Profile& into) : into_(into) {
  // Index what `into` already holds, once; add() keeps the indexes current.
  for (FuncId f = 0; f < into.functions.size(); ++f) {
    const Function& fn = into.functions[f];
    functions_.find_or_add(function_hash(into.str(fn.label), into.str(fn.name), into.str(fn.object), into.str(fn.file)),
                           [](std::uint32_t) { return false; }, [&] { return f; });
  }
  for (CallId c = 0; c < into.calls.size(); ++c)
    calls_.find_or_add(FlatIndex::mix(into.calls[c].caller, into.calls[c].callee), [](std::uint32_t) { return false; },
                       [&] { return c; });
  for (std::uint32_t r = 0; r < into.line_costs.size(); ++r) {
    const LineCost& lc = into.line_costs[r];
    lines_.find_or_add(FlatIndex::mix(lc.function, lc.file, lc.line), [](std::uint32_t) { return false; },
                       [&] { return r; });
  }
  for (std::uint32_t n = 1; n < into.stack_nodes.size(); ++n)
    children_.find_or_add(FlatIndex::mix(into.stack_nodes[n].parent, into.stack_nodes[n].function),
                          [](std::uint32_t) { return false; }, [&] { return n; });
}

Expected<bool> ProfileMerger::add(const Profile& other, std::string_view other_path) {
  Profile& into = into_;
  if (into.events.empty() && into.functions.empty()) {
    for (const Event& e : other.events)
      into.events.push_back({into.strings.intern(other.str(e.name)), into.strings.intern(other.str(e.unit)),
                             e.seconds_per_unit});
    into.reports_totals = other.reports_totals;
    into.keeps_stack_totals = other.keeps_stack_totals;
    if (into.stack_nodes.empty() && !other.stack_nodes.empty()) {
      into.stack_nodes.push_back({0, 0});
      into.stack_node_cost.push_back(0);
    }
  }
  const std::size_t ne = into.events.size();
  std::vector<std::size_t> event_map(other.events.size());
  for (std::size_t e = 0; e < other.events.size(); ++e) {
    std::string_view name = other.str(other.events[e].name);
    std::size_t found = ne;
    for (std::size_t k = 0; k < ne; ++k)
      if (into.str(into.events[k].name) == name) found = k;
    if (found == ne || other.events.size() != ne)
      return bad_input(fmt::format("{}: expected the events of the first input, found a different set (cannot sum "
                                   "them)",
                                   other_path));
    event_map[e] = found;
  }

  std::vector<FuncId> map(other.functions.size());
  for (FuncId f = 0; f < other.functions.size(); ++f) {
    const Function& fn = other.functions[f];
    std::string_view label = other.str(fn.label), name = other.str(fn.name), object = other.str(fn.object),
                     file = other.str(fn.file);
    FuncId to = functions_.find_or_add(
        function_hash(label, name, object, file),
        [&](std::uint32_t g) {
          const Function& x = into.functions[g];
          return into.str(x.label) == label && into.str(x.name) == name && into.str(x.object) == object &&
                 into.str(x.file) == file;
        },
        [&] {
          Function copy = fn;
          copy.label = into.strings.intern(label);
          copy.name = into.strings.intern(name);
          copy.object = into.strings.intern(object);
          copy.file = into.strings.intern(file);
          copy.module = into.strings.intern(other.str(fn.module));
          copy.process = into.strings.intern(other.str(fn.process));
          copy.calls = copy.primitive_calls = kUnknownCount;
          return into.add_function(copy);
        });
    map[f] = to;
    Function& merged = into.functions[to];
    merged.calls = add_count(merged.calls, fn.calls);
    merged.primitive_calls = add_count(merged.primitive_calls, fn.primitive_calls);
    if (merged.line == 0) merged.line = fn.line;
    for (std::size_t e = 0; e < other.events.size(); ++e) {
      std::size_t k = event_map[e];
      into.self(to, k) = saturating_add(into.self(to, k), other.self(f, e));
      if (into.has_total_cost() && other.has_total_cost()) into.total(to, k) = saturating_add(into.total(to, k), other.total(f, e));
      if (into.keeps_stack_totals && other.keeps_stack_totals)
        into.stack_inclusive(to, k) = saturating_add(into.stack_inclusive(to, k), other.stack_inclusive(f, e));
    }
  }

  for (CallId c = 0; c < other.calls.size(); ++c) {
    FuncId caller = map[other.calls[c].caller], callee = map[other.calls[c].callee];
    CallId to = calls_.find_or_add(
        FlatIndex::mix(caller, callee),
        [&](std::uint32_t d) { return into.calls[d].caller == caller && into.calls[d].callee == callee; },
        [&] { return into.add_call({caller, callee, kUnknownCount, kUnknownCount}); });
    into.calls[to].count = add_count(into.calls[to].count, other.calls[c].count);
    into.calls[to].primitive_count = add_count(into.calls[to].primitive_count, other.calls[c].primitive_count);
    for (std::size_t e = 0; e < other.events.size(); ++e)
      into.inclusive(to, event_map[e]) = saturating_add(into.inclusive(to, event_map[e]), other.inclusive(c, e));
  }

  for (std::size_t r = 0; r < other.line_costs.size(); ++r) {
    const LineCost& lc = other.line_costs[r];
    LineCost key{map[lc.function], into.strings.intern(other.str(lc.file)), lc.line};
    std::uint32_t to = lines_.find_or_add(
        FlatIndex::mix(key.function, key.file, key.line),
        [&](std::uint32_t x) {
          const LineCost& y = into.line_costs[x];
          return y.function == key.function && y.file == key.file && y.line == key.line;
        },
        [&] {
          into.line_costs.push_back(key);
          into.line_cost_values.resize(into.line_cost_values.size() + ne, 0);
          return static_cast<std::uint32_t>(into.line_costs.size() - 1);
        });
    for (std::size_t e = 0; e < other.events.size(); ++e) {
      Cost& v = into.line_cost_values[static_cast<std::size_t>(to) * ne + event_map[e]];
      v = saturating_add(v, other.line_cost_values[r * other.events.size() + e]);
    }
  }

  if (!other.stack_nodes.empty()) {
    if (into.stack_nodes.empty()) {
      into.stack_nodes.push_back({0, 0});
      into.stack_node_cost.push_back(0);
    }
    std::vector<std::uint32_t> node_map(other.stack_nodes.size(), 0);
    for (std::uint32_t n = 1; n < other.stack_nodes.size(); ++n) {
      std::uint32_t parent = node_map[other.stack_nodes[n].parent];
      FuncId f = map[other.stack_nodes[n].function];
      node_map[n] = children_.find_or_add(
          FlatIndex::mix(parent, f),
          [&](std::uint32_t m) { return into.stack_nodes[m].parent == parent && into.stack_nodes[m].function == f; },
          [&] {
            into.stack_nodes.push_back({parent, f});
            into.stack_node_cost.push_back(0);
            return static_cast<std::uint32_t>(into.stack_nodes.size() - 1);
          });
      into.stack_node_cost[node_map[n]] = saturating_add(into.stack_node_cost[node_map[n]], other.stack_node_cost[n]);
    }
  }
  return true;
}

Expected<bool> add_profile(Profile& into, const Profile& other, std::string_view other_path) {
  return ProfileMerger(into).add(other, other_path);
}

Expected<Profile> read_in_parallel(const std::vector<InputFile>& inputs,
                                   Expected<Profile> (*read_one)(const InputFile&, const void*, Diagnostics&),
                                   const void* context, Diagnostics& diag) {
  std::vector<std::optional<Expected<Profile>>> results(inputs.size());
  std::vector<Diagnostics> warnings(inputs.size());
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < inputs.size();) results[i] = read_one(inputs[i], context, warnings[i]);
  };
  std::thread helper;
  if (inputs.size() > 1) helper = std::thread(work);
  work();
  if (helper.joinable()) helper.join();
  for (const Diagnostics& d : warnings)
    for (const std::string& w : d.warnings()) diag.warn(w);
  for (auto& r : results)
    if (!*r) return r->error();
  Profile merged = std::move(**results[0]);
  ProfileMerger merger(merged);
  for (std::size_t i = 1; i < results.size(); ++i) {
    if (auto ok = merger.add(**results[i], inputs[i].path()); !ok) return ok.error();
    results[i].reset();
  }
  return merged;
}

}  // namespace graphgen
