#include "graphgen/analysis/merge.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>

#include "graphgen/flat_index.h"

namespace graphgen {

namespace {

// Whether a function's line is part of its identity in `p`.
bool lines_identify(const Profile& p) { return p.label_style == LabelStyle::kPython || p.line_in_identity; }

std::int64_t add_count(std::int64_t a, std::int64_t b) {
  if (b == kUnknownCount) return a;
  return saturating_add(a == kUnknownCount ? 0 : a, b);
}

// Where one of the added profile's events goes: prepared once per add().
struct Lane {
  std::size_t k = 0;      // the event in `into`
  bool floating = false;  // summed exactly
  double scale = 1.0;     // an integer cost of another unit: its factor
};

// Adds row `from` of `src` (one cell per lane) to row `to` of `dst` (ne
// cells). Floating costs add exactly: `exact` holds each cell's partials
// (parallel to `dst`, whose floating cells keep their first value until
// write_exact()), and `src_exact`, when given, the source's own partials
// (a profile merged elsewhere, graphgen-mpi), so the sum never depends on
// grouping.
//
// A cell's first addend is written as it is, and `written` says so: its
// partials are made when a second one comes (a lone file, or each cell
// that only one of the files has, held a table of partials for nothing:
// a third of a big TAU file's peak).
void add_row(const Profile& p, std::vector<Cost>& dst, std::size_t ne, std::size_t to, const std::vector<Cost>& src,
             std::size_t from, const std::vector<Lane>& lanes, std::vector<ExactSum>& exact, std::vector<bool>& written,
             const std::vector<ExactSum>* src_exact) {
  const std::size_t width = lanes.size();
  for (std::size_t e = 0; e < width; ++e) {
    const Lane& lane = lanes[e];
    const std::size_t cell = to * ne + lane.k, source = from * width + e;
    Cost v = src[source];
    Cost& d = dst[cell];
    if (!lane.floating) {
      if (lane.scale != 1.0) v = static_cast<Cost>(std::llround(static_cast<double>(v) * lane.scale));
      d = p.add(lane.k, d, v);
      continue;
    }
    const bool theirs = src_exact && source < src_exact->size() && !(*src_exact)[source].empty();
    if (!theirs && cell < exact.size() && !exact[cell].empty()) {  // a third addend or later
      exact[cell].add(cost_float(v));
      continue;
    }
    // (Here, unless `theirs`, the cell has no partials yet.)
    if (written.size() < dst.size()) written.resize(dst.size());
    if (!theirs && !written[cell] && d == 0) {
      d = v;  // the first addend (what was there before this merger, when not 0, is one)
      written[cell] = true;
      continue;
    }
    if (exact.size() < dst.size()) exact.resize(dst.size());
    ExactSum& sum = exact[cell];
    if (sum.empty() && (d != 0 || written[cell])) sum.add(cost_float(d));  // the first addend
    written[cell] = true;
    if (theirs)
      sum.add((*src_exact)[source]);
    else
      sum.add(cost_float(v));
    // (the cell gets its rounded value when the merger is done: write_exact)
  }
}

std::string event_list(const Profile& p) {
  std::string s;
  for (const Event& e : p.events) {
    if (!s.empty()) s += ' ';
    s += p.str(e.name);
  }
  return s;
}

}  // namespace

void renumber_functions(Profile& p, const std::vector<FuncId>& order) {
  const std::size_t n = p.functions.size();
  const std::size_t ne = p.events.size();
  std::vector<FuncId> new_id(n);
  for (FuncId k = 0; k < n; ++k) new_id[order[k]] = k;
  auto permute_rows = [&](std::vector<Cost>& table) {
    if (table.empty()) return;
    std::vector<Cost> out(table.size());
    for (FuncId k = 0; k < n; ++k)
      for (std::size_t e = 0; e < ne; ++e) out[k * ne + e] = table[order[k] * ne + e];
    table = std::move(out);
  };
  std::vector<Function> functions(n);
  for (FuncId k = 0; k < n; ++k) functions[k] = p.functions[order[k]];
  p.functions = std::move(functions);
  permute_rows(p.self_cost);
  permute_rows(p.total_cost);
  permute_rows(p.stack_total);
  for (Call& c : p.calls) {
    c.caller = new_id[c.caller];
    c.callee = new_id[c.callee];
  }
  for (LineCost& lc : p.line_costs) lc.function = new_id[lc.function];
  for (Jump& j : p.jumps) {
    j.function = new_id[j.function];
    j.target = new_id[j.target];
  }
  for (std::size_t s = 1; s < p.stack_nodes.size(); ++s)
    if (p.stack_nodes[s].process == kNoString) p.stack_nodes[s].function = new_id[p.stack_nodes[s].function];
  for (FuncId& f : p.listed) f = new_id[f];
  if (!p.reported_share.empty()) {
    std::vector<double> share(n);
    for (FuncId k = 0; k < n; ++k) share[k] = p.reported_share[order[k]];
    p.reported_share = std::move(share);
  }
}

namespace {

// merge_functions()'s calls: those of merged pairs summed, the first in
// its place. Returns where each call went.
std::vector<CallId> merge_calls(Profile& p, const std::vector<FuncId>& map) {
  const std::size_t ne = p.events.size();
  std::vector<Call> calls;
  std::vector<Cost> call_cost, call_self;
  std::vector<CallId> call_map(p.calls.size());
  FlatIndex call_index;
  call_index.reserve(p.calls.size());
  calls.reserve(p.calls.size());
  call_cost.reserve(p.calls.size() * ne);
  if (p.keeps_call_self) call_self.reserve(p.calls.size() * ne);
  for (CallId c = 0; c < p.calls.size(); ++c) {
    FuncId caller = map[p.calls[c].caller];
    FuncId callee = map[p.calls[c].callee];
    CallId to = call_index.find_or_add(
        FlatIndex::mix(caller, callee),
        [&](std::uint32_t d) { return calls[d].caller == caller && calls[d].callee == callee; },
        [&] {
          calls.push_back({caller, callee, kUnknownCount, kUnknownCount});
          call_cost.resize(call_cost.size() + ne, 0);
          if (p.keeps_call_self) call_self.resize(call_cost.size(), 0);
          return static_cast<CallId>(calls.size() - 1);
        });
    call_map[c] = to;
    calls[to].count = add_count(calls[to].count, p.calls[c].count);
    calls[to].primitive_count = add_count(calls[to].primitive_count, p.calls[c].primitive_count);
    for (std::size_t e = 0; e < ne; ++e) {
      call_cost[to * ne + e] = p.add(e, call_cost[to * ne + e], p.inclusive(c, e));
      if (p.keeps_call_self) call_self[to * ne + e] = p.add(e, call_self[to * ne + e], p.along(c, e));
    }
  }
  p.calls = std::move(calls);
  p.call_cost = std::move(call_cost);
  p.call_self = std::move(call_self);
  return call_map;
}

// What merge_functions() merges by: the name, and the object unless by
// name alone.
std::uint64_t merge_key(const Function& fn, bool by_object) {
  return FlatIndex::mix(fn.name, by_object ? fn.object : 0);
}
bool same_merge_key(const Function& a, const Function& b, bool by_object) {
  return a.name == b.name && (!by_object || a.object == b.object);
}

// True when no two functions of `p` have the same key: merging would
// copy every table unchanged (calls are one per caller and callee already).
bool all_keys_distinct(const Profile& p, bool by_object) {
  FlatIndex index;
  index.reserve(p.functions.size());
  for (FuncId f = 0; f < p.functions.size(); ++f) {
    const Function& fn = p.functions[f];
    if (index.find_or_add(
            merge_key(fn, by_object), [&](std::uint32_t g) { return same_merge_key(p.functions[g], fn, by_object); },
            [&] { return f; }) != f)
      return false;
  }
  return true;
}

}  // namespace

Profile merge_functions(Profile p, FunctionKey key) {
  // Most profiles have nothing to merge (none of pydoc-sep3's 22 343
  // functions): one pass over the keys tells, and the profile stays as it is.
  if (all_keys_distinct(p, key == FunctionKey::kNameAndObject)) return p;
  const std::size_t ne = p.events.size();
  const std::size_t n = p.functions.size();
  std::vector<FuncId> map(n);
  std::vector<Function> functions;
  std::vector<Cost> self, total, stack;
  FlatIndex index;
  // Sized for no merging at all (each table at most its input's size):
  // no rehash or regrowth on the way.
  index.reserve(n);
  functions.reserve(n);
  self.reserve(n * ne);
  if (p.has_total_cost()) total.reserve(n * ne);
  if (p.keeps_stack_totals) stack.reserve(n * ne);
  const bool by_object = key == FunctionKey::kNameAndObject;
  for (FuncId f = 0; f < n; ++f) {
    const Function& fn = p.functions[f];
    FuncId to = index.find_or_add(
        merge_key(fn, by_object), [&](std::uint32_t g) { return same_merge_key(functions[g], fn, by_object); },
        [&] {
          Function copy = fn;
          copy.calls = copy.primitive_calls = kUnknownCount;
          functions.push_back(copy);
          self.resize(self.size() + ne, 0);
          if (p.has_total_cost()) total.resize(total.size() + ne, 0);
          if (p.keeps_stack_totals) stack.resize(stack.size() + ne, 0);
          return static_cast<FuncId>(functions.size() - 1);
        });
    map[f] = to;
    Function& merged = functions[to];
    merged.calls = add_count(merged.calls, fn.calls);
    merged.primitive_calls = add_count(merged.primitive_calls, fn.primitive_calls);
    merged.has_object = merged.has_object || fn.has_object;
    for (std::size_t e = 0; e < ne; ++e) {
      self[to * ne + e] = p.add(e, self[to * ne + e], p.self(f, e));
      if (p.has_total_cost()) total[to * ne + e] = p.add(e, total[to * ne + e], p.total(f, e));
      if (p.keeps_stack_totals) stack[to * ne + e] = p.add(e, stack[to * ne + e], p.stack_inclusive(f, e));
    }
  }
  if (!p.reported_share.empty()) {
    // Shares of functions that became one do not add up (their inclusive
    // costs overlap); kept only when nothing merged.
    if (functions.size() == n) {
      std::vector<double> share(n);
      for (FuncId f = 0; f < n; ++f) share[map[f]] = p.reported_share[f];
      p.reported_share = std::move(share);
    } else {
      p.reported_share.clear();
    }
  }
  p.functions = std::move(functions);
  p.self_cost = std::move(self);
  p.total_cost = std::move(total);
  p.stack_total = std::move(stack);

  const std::vector<CallId> call_map = merge_calls(p, map);
  for (LineCost& lc : p.line_costs) lc.function = map[lc.function];
  for (CallSite& s : p.call_sites) s.call = call_map[s.call];
  for (Jump& j : p.jumps) {
    j.function = map[j.function];
    j.target = map[j.target];
  }
  for (std::size_t s = 1; s < p.stack_nodes.size(); ++s)
    if (p.stack_nodes[s].process == kNoString) p.stack_nodes[s].function = map[p.stack_nodes[s].function];
  std::vector<bool> seen(p.functions.size(), false);
  std::vector<FuncId> listed;
  for (FuncId f : p.listed)
    if (!seen[map[f]]) {
      seen[map[f]] = true;
      listed.push_back(map[f]);
    }
  p.listed = std::move(listed);
  return p;
}

namespace {

// The keys of the merged tables, as the indexes hash them.
std::uint64_t call_key(FuncId caller, FuncId callee) { return FlatIndex::mix(caller, callee); }
std::uint64_t line_key(const LineCost& lc) {  // (within its function's rows)
  return FlatIndex::mix(lc.file, lc.line, lc.address);
}
std::uint64_t site_key(const CallSite& cs) {
  return FlatIndex::mix(cs.call, FlatIndex::mix(cs.file, cs.line, cs.address),
                        FlatIndex::mix(cs.target_line, cs.target_address));
}
std::uint64_t jump_key(const Jump& x) {
  return FlatIndex::mix(FlatIndex::mix(x.function, x.file, FlatIndex::mix(x.line, x.address)),
                        FlatIndex::mix(x.target, x.target_file, FlatIndex::mix(x.target_line, x.target_address)),
                        x.executed == kUnknownCount);
}
std::uint64_t node_key(std::uint32_t parent, FuncId f, StringId process) { return FlatIndex::mix(parent, f, process); }

// The lookups of a batch land on random slots of a large table, each
// waiting on memory: with the batch's hashes known first, each lookup asks
// for the slot of the one kAhead places on while it is made.
constexpr std::size_t kAhead = 8;

// Rows first..first + hashes.size() - 1 of one of `into`'s tables (distinct
// by construction), indexed by their hashes.
void index_rows(FlatIndex& index, const std::vector<std::uint64_t>& hashes, std::uint32_t first = 0,
                std::size_t more = 0) {
  index.reserve(hashes.size() + more);
  for (std::size_t i = 0; i < hashes.size(); ++i) {
    if (i + kAhead < hashes.size()) index.prefetch(hashes[i + kAhead]);
    index.find_or_add(
        hashes[i], [](std::uint32_t) { return false; }, [&] { return first + static_cast<std::uint32_t>(i); });
  }
}

// hash(row) for each row of `rows` from `first` on.
template <class Rows, class Hash>
std::vector<std::uint64_t> hashes_of(const Rows& rows, Hash&& hash, std::size_t first = 0) {
  std::vector<std::uint64_t> out;
  out.reserve(rows.size() > first ? rows.size() - first : 0);
  for (std::size_t r = first; r < rows.size(); ++r) out.push_back(hash(rows[r]));
  return out;
}

}  // namespace

ProfileMerger::ProfileMerger(Profile& into) : ProfileMerger(into, nullptr) {}

ProfileMerger::ProfileMerger(Profile& into, const Profile* next) : into_(into) {
  // Index what `into` already holds, once; add() keeps the indexes current.
  if (into.functions.empty() && into.events.empty()) return;
  started_ = true;
  index_rows(functions_, function_hashes(into), 0, next ? next->functions.size() : 0);
  index_rows(calls_, hashes_of(into.calls, [](const Call& c) { return call_key(c.caller, c.callee); }), 0,
             next ? next->calls.size() : 0);
  for (std::uint32_t r = 0; r < into.line_costs.size(); ++r)
    lines_.find_or_add(
        into.line_costs[r].function, line_key(into.line_costs[r]), [](std::uint32_t) { return false; },
        [&] { return r; }, [&](std::uint32_t row) { return line_key(into.line_costs[row]); });
  index_rows(sites_, hashes_of(into.call_sites, site_key));
  index_rows(jumps_, hashes_of(into.jumps, jump_key));
  index_rows(children_,
             hashes_of(
                 into.stack_nodes, [](const StackNode& n) { return node_key(n.parent, n.function, n.process); }, 1),
             1, next ? next->stack_nodes.size() : 0);
  is_listed_.assign(into.functions.size(), false);
  for (FuncId f : into.listed) is_listed_[f] = true;
}

ProfileMerger::ProfileMerger(Profile& into, ExactTables exact, std::size_t files, std::string_view first_path)
    : ProfileMerger(into) {
  exact_ = std::move(exact);
  files_ = files;
  first_path_ = std::string(first_path);
}

std::vector<std::uint64_t> ProfileMerger::function_hashes(const Profile& p) const {
  // (Each string's hash is the one interning it made.)
  auto hash = [&](StringId s) -> std::uint64_t { return s == kNoString ? 0 : p.strings.hash(s) | 1; };
  const bool by_line = lines_identify(into_);
  return hashes_of(p.functions, [&](const Function& fn) {
    std::uint64_t line = by_line ? static_cast<std::uint64_t>(fn.line) : 0;
    return FlatIndex::mix(FlatIndex::mix(hash(fn.name), hash(fn.file), line + (std::uint64_t{fn.instance} << 32)),
                          FlatIndex::mix(hash(fn.object), hash(fn.process), hash(fn.code)));
  });
}

bool same_identity(const Profile& pa, const Function& a, const Profile& pb, const Function& b) {
  return (!lines_identify(pa) || a.line == b.line) && a.instance == b.instance && a.python == b.python &&
         pa.str(a.name) == pb.str(b.name) && pa.str(a.file) == pb.str(b.file) && pa.str(a.object) == pb.str(b.object) &&
         pa.str(a.process) == pb.str(b.process) && pa.str(a.code) == pb.str(b.code);
}

std::vector<FuncId> match_functions_by_identity(const Profile& a, const Profile& b, bool name_only) {
  auto hash = [&](const Profile& p, const Function& f) {
    auto h = [&](StringId s) { return s == kNoString ? 0 : FlatIndex::hash_bytes(p.str(s)) | 1; };
    if (name_only) return h(f.name);
    return FlatIndex::mix(FlatIndex::mix(h(f.name), h(f.object), f.instance), FlatIndex::mix(h(f.file), h(f.process)));
  };
  auto same = [&](const Profile& pa, const Function& x, const Profile& pb, const Function& y) {
    return name_only ? pa.str(x.name) == pb.str(y.name) : same_identity(pa, x, pb, y);
  };
  FlatIndex index;
  for (FuncId g = 0; g < b.functions.size(); ++g)
    index.find_or_add(
        hash(b, b.functions[g]), [&](std::uint32_t x) { return same(b, b.functions[x], b, b.functions[g]); },
        [&] { return g; });
  std::vector<FuncId> match(a.functions.size(), kNoMatch);
  for (FuncId f = 0; f < a.functions.size(); ++f) {
    std::int64_t found = index.find(hash(a, a.functions[f]),
                                    [&](std::uint32_t x) { return same(a, a.functions[f], b, b.functions[x]); });
    if (found >= 0) match[f] = static_cast<FuncId>(found);
  }
  return match;
}

std::string_view pair_rule_name(PairRule rule) {
  switch (rule) {
    case PairRule::kIdentity:
      return "identity";
    case PairRule::kNameAndFile:
      return "name and file";
    case PairRule::kNameAndObject:
      return "name and object";
    case PairRule::kName:
      return "name";
    case PairRule::kCloneName:
      return "name without clone suffix";
    case PairRule::kNone:
      break;
  }
  return "none";
}

std::string_view clone_base_name(std::string_view name, std::string& scratch) {
  // callgrind's recursion depth stays on: foo.part.0'2 -> foo'2.
  std::string_view depth;
  if (std::size_t q = name.rfind('\''); q != std::string_view::npos && q + 1 < name.size() &&
                                        name.find_first_not_of("0123456789", q + 1) == std::string_view::npos) {
    depth = name.substr(q);
    name = name.substr(0, q);
  }
  auto digits = [](std::string_view s) {
    return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
  };
  static constexpr std::string_view kNumbered[] = {".part.", ".isra.", ".constprop.", ".cold.", ".lto_priv.", ".llvm."};
  static constexpr std::string_view kPlain[] = {".cold", ".localalias"};
  bool cut = true, any = false;
  while (cut) {
    cut = false;
    for (std::string_view suffix : kNumbered)
      if (std::size_t at = name.rfind(suffix);
          at != std::string_view::npos && at > 0 && digits(name.substr(at + suffix.size()))) {
        name = name.substr(0, at);
        cut = any = true;
      }
    for (std::string_view suffix : kPlain)
      if (name.size() > suffix.size() && name.ends_with(suffix)) {
        name.remove_suffix(suffix.size());
        cut = any = true;
      }
  }
  if (!any || depth.empty()) return any ? name : std::string_view();
  scratch.assign(name).append(depth);
  return scratch;
}

std::array<std::size_t, kPairRules> Pairing::count() const {
  std::array<std::size_t, kPairRules> n{};
  for (FuncId f = 0; f < match.size(); ++f)
    if (match[f] != kNoMatch) ++n[f < rule.size() ? static_cast<std::size_t>(rule[f]) : 1];
  return n;
}

std::size_t Pairing::paired() const {
  auto n = count();
  std::size_t sum = 0;
  for (std::size_t r = 1; r < kPairRules; ++r) sum += n[r];
  return sum;
}

std::string Pairing::summary() const {
  auto n = count();
  std::string out;
  for (std::size_t r = 1; r < kPairRules; ++r)
    if (n[r]) out += fmt::format("{}{} by {}", out.empty() ? "" : ", ", n[r], pair_rule_name(static_cast<PairRule>(r)));
  return out;
}

Pairing pair_functions(const Profile& a, const Profile& b) {
  Pairing out;
  out.match = match_functions_by_identity(a, b);
  out.rule.assign(a.functions.size(), PairRule::kNone);
  std::vector<bool> taken(b.functions.size(), false);
  for (FuncId f = 0; f < out.match.size(); ++f)
    if (out.match[f] != kNoMatch) {
      out.rule[f] = PairRule::kIdentity;
      taken[out.match[f]] = true;
    }
  // A key naming exactly one lone function on each side pairs them.
  auto by_key = [&](PairRule rule, auto key) {
    std::unordered_map<std::string, std::pair<std::int64_t, std::int64_t>> found;  // key -> (a, b); -2: several
    auto note = [](std::int64_t& slot, FuncId f) { slot = slot == -1 ? static_cast<std::int64_t>(f) : -2; };
    std::string k;
    for (FuncId f = 0; f < a.functions.size(); ++f)
      if (out.match[f] == kNoMatch && key(a, a.functions[f], k))
        note(found.try_emplace(k, -1, -1).first->second.first, f);
    for (FuncId g = 0; g < b.functions.size(); ++g)
      if (!taken[g] && key(b, b.functions[g], k)) note(found.try_emplace(k, -1, -1).first->second.second, g);
    for (const auto& [unused, pair] : found)
      if (pair.first >= 0 && pair.second >= 0) {
        out.match[static_cast<FuncId>(pair.first)] = static_cast<FuncId>(pair.second);
        out.rule[static_cast<FuncId>(pair.first)] = rule;
        taken[static_cast<FuncId>(pair.second)] = true;
      }
  };
  auto object_name = [](std::string_view o) {
    std::size_t slash = o.rfind('/');
    return slash == std::string_view::npos ? o : o.substr(slash + 1);
  };
  by_key(PairRule::kNameAndFile, [](const Profile& p, const Function& f, std::string& k) {
    if (f.file == kNoString || p.str(f.file).empty()) return false;
    k.assign(p.str(f.name)).append(1, '\0').append(p.str(f.file));
    return true;
  });
  by_key(PairRule::kNameAndObject, [&](const Profile& p, const Function& f, std::string& k) {
    if (f.object == kNoString || p.str(f.object).empty()) return false;
    k.assign(p.str(f.name)).append(1, '\0').append(object_name(p.str(f.object)));
    return true;
  });
  by_key(PairRule::kName, [](const Profile& p, const Function& f, std::string& k) {
    k.assign(p.str(f.name));
    return true;
  });
  // An -O2 build's foo.part.0 is what is left of the -O0 build's foo.
  std::string scratch;
  by_key(PairRule::kCloneName, [&](const Profile& p, const Function& f, std::string& k) {
    std::string_view name = p.str(f.name), base = clone_base_name(name, scratch);
    k.assign(base.empty() ? name : base).append(1, '\0');
    if (f.object != kNoString) k.append(object_name(p.str(f.object)));
    return true;
  });
  return out;
}

bool ProfileMerger::same_function(const Function& a, const Profile& other, const Function& b) const {
  return same_identity(into_, a, other, b);
}

Expected<bool> ProfileMerger::adopt_events(const Profile& other, std::string_view other_path,
                                           std::vector<std::size_t>& map) {
  Profile& into = into_;
  map.assign(other.events.size(), 0);
  bool same = other.events.size() == into.events.size();
  for (std::size_t e = 0; same && e < other.events.size(); ++e) {
    std::string_view name = other.str(other.events[e].name);
    std::size_t found = into.events.size();
    for (std::size_t k = 0; k < into.events.size(); ++k)
      if (into.str(into.events[k].name) == name) found = k;
    if (found == into.events.size() || into.events[found].floating != other.events[e].floating) same = false;
    map[e] = found;
  }
  if (!same)
    return bad_input(
        fmt::format("{}: expected the events of {} ({}), found {} (profiles with different events "
                    "cannot be summed)",
                    other_path, first_path_, event_list(into), quote_input(event_list(other))));
  // One event in two units: both in the coarser one (line_profiler files of
  // different timer units, as LineStats addition does).
  for (std::size_t e = 0; e < other.events.size(); ++e) {
    Event& mine = into.events[map[e]];
    double theirs = other.events[e].seconds_per_unit;
    if (mine.floating || theirs <= mine.seconds_per_unit || mine.seconds_per_unit <= 0) continue;
    double factor = mine.seconds_per_unit / theirs;
    const std::size_t ne = into.events.size(), k = map[e];
    auto rescale = [&](std::vector<Cost>& table) {
      for (std::size_t i = k; i < table.size(); i += ne)
        table[i] = static_cast<Cost>(std::llround(static_cast<double>(table[i]) * factor));
    };
    rescale(into.self_cost);
    rescale(into.total_cost);
    rescale(into.stack_total);
    rescale(into.call_cost);
    rescale(into.call_self);
    rescale(into.line_cost_values);
    rescale(into.call_site_cost);
    rescale(into.stack_node_cost);
    mine.seconds_per_unit = theirs;
  }
  return true;
}

// What one add() works with: the profile added, where its events and
// strings go in `into`, and its rows added to `into`'s.
struct ProfileMerger::Adding {
  ProfileMerger& m;
  const Profile& other;
  const ExactTables* other_exact;
  std::vector<Lane> lanes;  // per event of `other`: where it goes, and how
  std::vector<CallId> call_map;

  // Strings are mapped once each, on first use.
  StringId str(StringId s) {
    if (s == kNoString) return kNoString;
    StringId& mapped = m.string_map_[s];
    if (mapped == UINT32_MAX) mapped = m.into_.strings.intern(other.str(s));
    return mapped;
  }

  // Row `from` of `other`'s table added to row `to` of `into`'s.
  void row(Table t, std::vector<Cost>& dst, std::size_t to, const std::vector<Cost>& src, std::size_t from) {
    add_row(m.into_, dst, m.into_.events.size(), to, src, from, lanes, m.exact_[t], m.written_[t],
            other_exact ? &(*other_exact)[t] : nullptr);
  }
};

// The first profile gives the merged one its events and its kind.
void ProfileMerger::start(const Profile& other, std::string_view other_path) {
  Profile& into = into_;
  started_ = true;
  first_path_ = std::string(other_path);
  for (const Event& e : other.events)
    into.events.push_back({into.strings.intern(other.str(e.name)), into.strings.intern(other.str(e.unit)),
                           e.seconds_per_unit, e.floating, into.strings.intern(other.str(e.long_name))});
  into.label_style = other.label_style;
  into.line_in_identity = other.line_in_identity;
  into.reports_totals = other.reports_totals;
  into.keeps_stack_totals = other.keeps_stack_totals;
  into.keeps_call_self = other.keeps_call_self;
  into.call_costs_from_counts = other.call_costs_from_counts;
  into.positions = other.positions;
  for (const auto& [k, v] : other.metadata)
    into.metadata.emplace_back(into.strings.intern(other.str(k)), into.strings.intern(other.str(v)));
  into.reported = other.reported;  // one file: its own totals
}

Expected<bool> ProfileMerger::add(const Profile& other, std::string_view other_path, const ExactTables* other_exact) {
  Profile& into = into_;
  if (!started_)
    start(other, other_path);
  else
    into.reported = {};  // several: their sum is recomputed
  if (other.call_costs_from_counts != into.call_costs_from_counts && !other.calls.empty() && !into.calls.empty())
    return bad_input(
        fmt::format("{}: cannot merge it with {}: one records a call count per caller (python -m profile), the other "
                    "(nc, cc, tt, ct) tuples (cProfile); profile and cProfile output do not mix",
                    other_path, first_path_));
  into.call_costs_from_counts = into.call_costs_from_counts || other.call_costs_from_counts;
  Adding a{*this, other, other_exact, {}, {}};
  std::vector<std::size_t> event_map;
  if (auto ok = adopt_events(other, other_path, event_map); !ok) return ok;
  a.lanes.assign(other.events.size(), Lane());
  for (std::size_t e = 0; e < other.events.size(); ++e) {
    const Event& mine = into.events[event_map[e]];
    double theirs = other.events[e].seconds_per_unit;
    a.lanes[e].k = event_map[e];
    a.lanes[e].floating = mine.floating;
    if (!mine.floating && theirs > 0 && mine.seconds_per_unit > 0 && theirs != mine.seconds_per_unit)
      a.lanes[e].scale = theirs / mine.seconds_per_unit;
  }
  into.positions |= other.positions;
  string_map_.assign(other.strings.size(), UINT32_MAX);
  // Room for all of `other` in the indexes (they double on the way).
  functions_.reserve(into.functions.size() + other.functions.size());
  calls_.reserve(into.calls.size() + other.calls.size());
  children_.reserve(into.stack_nodes.size() + other.stack_nodes.size());

  add_functions(a);
  add_calls(a);
  add_lines(a);
  add_sites(a);
  add_jumps(a);
  add_stacks(a);
  // Memory traces: each file's stays its own (several files overlaid).
  for (const MemoryTrace& theirs : other.memory) {
    MemoryTrace t = theirs;
    t.path = a.str(theirs.path);
    for (StringId& c : t.commands) c = a.str(c);
    for (MemoryTrace::Child& c : t.children) c.id = a.str(c.id);
    for (MemoryTrace::Call& c : t.calls) c.function = a.str(c.function);
    into.memory.push_back(std::move(t));
  }
  return true;
}

void ProfileMerger::add_functions(Adding& a) {
  Profile& into = into_;
  const Profile& other = a.other;
  std::vector<FuncId>& map = map_;
  map.resize(other.functions.size());
  const std::vector<std::uint64_t> keys = function_hashes(other);
  for (FuncId f = 0; f < other.functions.size(); ++f) {
    if (f + kAhead < keys.size()) functions_.prefetch(keys[f + kAhead]);
    const Function& fn = other.functions[f];
    FuncId to = functions_.find_or_add(
        keys[f], [&](std::uint32_t g) { return same_function(into.functions[g], other, fn); },
        [&] {
          Function copy = fn;
          copy.name = a.str(fn.name);
          copy.object = a.str(fn.object);
          copy.file = a.str(fn.file);
          copy.process = a.str(fn.process);
          copy.code = a.str(fn.code);
          copy.calls = copy.primitive_calls = kUnknownCount;
          is_listed_.push_back(false);
          return into.add_function(copy);
        });
    map[f] = to;
    Function& merged = into.functions[to];
    merged.calls = add_count(merged.calls, fn.calls);
    merged.primitive_calls = add_count(merged.primitive_calls, fn.primitive_calls);
    merged.has_object = merged.has_object || fn.has_object;
    if (merged.line == 0) merged.line = fn.line;
    a.row(kSelf, into.self_cost, to, other.self_cost, f);
    if (into.has_total_cost() && other.has_total_cost()) a.row(kTotal, into.total_cost, to, other.total_cost, f);
    if (into.keeps_stack_totals && other.keeps_stack_totals) a.row(kStack, into.stack_total, to, other.stack_total, f);
  }
  // The profiler's shares hold for one run alone.
  if (files_ == 0 && !other.reported_share.empty()) {
    into.reported_share.assign(into.functions.size(), 0.0);
    for (FuncId f = 0; f < other.functions.size(); ++f) into.reported_share[map[f]] = other.reported_share[f];
  } else {
    into.reported_share.clear();
  }
  ++files_;
  for (FuncId f : other.listed) {
    if (is_listed_[map[f]]) continue;
    is_listed_[map[f]] = true;
    into.listed.push_back(map[f]);
  }
}

void ProfileMerger::add_calls(Adding& a) {
  Profile& into = into_;
  const Profile& other = a.other;
  a.call_map.resize(other.calls.size());
  const std::vector<std::uint64_t> keys =
      hashes_of(other.calls, [&](const Call& c) { return call_key(map_[c.caller], map_[c.callee]); });
  for (CallId c = 0; c < other.calls.size(); ++c) {
    if (c + kAhead < keys.size()) calls_.prefetch(keys[c + kAhead]);
    FuncId caller = map_[other.calls[c].caller], callee = map_[other.calls[c].callee];
    CallId to = calls_.find_or_add(
        keys[c], [&](std::uint32_t d) { return into.calls[d].caller == caller && into.calls[d].callee == callee; },
        [&] {
          return into.add_call({caller, callee, kUnknownCount, kUnknownCount});
        });
    a.call_map[c] = to;
    into.calls[to].count = add_count(into.calls[to].count, other.calls[c].count);
    into.calls[to].primitive_count = add_count(into.calls[to].primitive_count, other.calls[c].primitive_count);
    a.row(kCall, into.call_cost, to, other.call_cost, c);
    if (into.keeps_call_self && other.keeps_call_self) a.row(kCallSelf, into.call_self, to, other.call_self, c);
  }
}

void ProfileMerger::add_lines(Adding& a) {
  Profile& into = into_;
  const Profile& other = a.other;
  const std::size_t ne = into.events.size();
  for (std::size_t r = 0; r < other.line_costs.size(); ++r) {
    const LineCost& lc = other.line_costs[r];
    LineCost key{
        .function = map_[lc.function], .file = a.str(lc.file), .line = lc.line, .columns = 0, .address = lc.address};
    std::uint32_t to = lines_.find_or_add(
        key.function, line_key(key),
        [&](std::uint32_t x) {
          const LineCost& y = into.line_costs[x];
          return y.function == key.function && y.file == key.file && y.line == key.line && y.address == key.address;
        },
        [&] {
          into.line_costs.push_back(key);
          into.line_cost_values.resize(into.line_cost_values.size() + ne, 0);
          return static_cast<std::uint32_t>(into.line_costs.size() - 1);
        },
        [&](std::uint32_t row) { return line_key(into.line_costs[row]); });
    into.line_costs[to].columns = std::max(into.line_costs[to].columns, lc.columns);
    a.row(kLine, into.line_cost_values, to, other.line_cost_values, r);
  }
}

void ProfileMerger::add_sites(Adding& a) {
  Profile& into = into_;
  const Profile& other = a.other;
  const std::size_t ne = into.events.size();
  for (std::size_t s = 0; s < other.call_sites.size(); ++s) {
    CallSite key = other.call_sites[s];
    key.call = a.call_map[key.call];
    key.file = a.str(key.file);
    std::uint32_t to = sites_.find_or_add(
        site_key(key),
        [&](std::uint32_t x) {
          const CallSite& y = into.call_sites[x];
          return y.call == key.call && y.file == key.file && y.line == key.line && y.address == key.address &&
                 y.target_line == key.target_line && y.target_address == key.target_address;
        },
        [&] {
          CallSite fresh = key;
          fresh.count = 0;
          fresh.columns = 0;
          into.call_sites.push_back(fresh);
          into.call_site_cost.resize(into.call_site_cost.size() + ne, 0);
          return static_cast<std::uint32_t>(into.call_sites.size() - 1);
        });
    into.call_sites[to].count = saturating_add(into.call_sites[to].count, key.count);
    into.call_sites[to].columns = std::max(into.call_sites[to].columns, key.columns);
    a.row(kSite, into.call_site_cost, to, other.call_site_cost, s);
  }
}

void ProfileMerger::add_jumps(Adding& a) {
  Profile& into = into_;
  for (const Jump& j : a.other.jumps) {
    Jump key = j;
    key.function = map_[j.function];
    key.target = map_[j.target];
    key.file = a.str(j.file);
    key.target_file = a.str(j.target_file);
    std::uint32_t to = jumps_.find_or_add(
        jump_key(key), [&](std::uint32_t x) { return into.jumps[x].same_row(key); },
        [&] {
          into.jumps.push_back(key.empty_row());
          return static_cast<std::uint32_t>(into.jumps.size() - 1);
        });
    into.jumps[to].add(key);
  }
}

void ProfileMerger::add_stacks(Adding& a) {
  Profile& into = into_;
  const Profile& other = a.other;
  if (other.stack_nodes.empty()) return;
  const std::size_t ne = into.events.size();
  if (into.stack_nodes.empty()) {
    into.stack_nodes.push_back({0, 0});
    into.stack_node_cost.resize(ne, 0);
  }
  std::vector<std::uint32_t> node_map(other.stack_nodes.size(), 0);
  for (std::uint32_t n = 1; n < other.stack_nodes.size(); ++n) {
    // The node kAhead on, when its parent is mapped already (a tree's
    // nodes come after their parents, most far after) and it names no
    // process (whose string may not be mapped yet).
    if (n + kAhead < other.stack_nodes.size()) {
      const StackNode& next = other.stack_nodes[n + kAhead];
      if (next.parent < n && next.process == kNoString)
        children_.prefetch(node_key(node_map[next.parent], map_[next.function], kNoString));
    }
    const StackNode& theirs = other.stack_nodes[n];
    std::uint32_t parent = node_map[theirs.parent];
    StringId process = a.str(theirs.process);
    FuncId f = process == kNoString ? map_[theirs.function] : 0;
    node_map[n] = children_.find_or_add(
        node_key(parent, f, process),
        [&](std::uint32_t m) {
          const StackNode& mine = into.stack_nodes[m];
          return mine.parent == parent && mine.function == f && mine.process == process;
        },
        [&] {
          into.stack_nodes.push_back({parent, f, process});
          into.stack_node_cost.resize(into.stack_node_cost.size() + ne, 0);
          return static_cast<std::uint32_t>(into.stack_nodes.size() - 1);
        });
  }
  for (std::uint32_t n = 0; n < other.stack_nodes.size(); ++n)
    a.row(kNode, into.stack_node_cost, node_map[n], other.stack_node_cost, n);
  add_timeline(other, node_map, a);
}

// The other profile's timeline, on its nodes here; a track of the same
// thread, names and process as one here is that one (perf's two halves
// of one file), others are added.
void ProfileMerger::add_timeline(const Profile& other, const std::vector<std::uint32_t>& node_map, Adding& a) {
  if (other.timeline.empty()) return;
  Profile& into = into_;
  std::map<std::tuple<std::int64_t, std::int64_t, StringId, StringId>, std::uint32_t> mine;
  for (std::uint32_t t = 0; t < into.tracks.size(); ++t)
    mine.emplace(std::tuple{into.tracks[t].pid, into.tracks[t].tid, into.tracks[t].name, into.tracks[t].process}, t);
  std::vector<std::uint32_t> track_map(other.tracks.size(), 0);
  for (std::uint32_t t = 0; t < other.tracks.size(); ++t) {
    const Track& theirs = other.tracks[t];
    Track ours{theirs.pid, theirs.tid, a.str(theirs.name), a.str(theirs.process)};
    auto [it, fresh] = mine.emplace(std::tuple{ours.pid, ours.tid, ours.name, ours.process},
                                    static_cast<std::uint32_t>(into.tracks.size()));
    if (fresh) into.tracks.push_back(ours);
    track_map[t] = it->second;
  }
  into.timeline.reserve(into.timeline.size() + other.timeline.size());
  for (const TimedSample& s : other.timeline)
    if (s.node < node_map.size() && s.track < track_map.size())
      into.timeline.push_back({s.start, s.duration, node_map[s.node], track_map[s.track]});
}

std::vector<FuncId> order_as_gprof2dot(Profile& p) {
  if (p.listed.empty()) return {};
  // gprof2dot numbers pstats functions as it meets them: each entry of the
  // stats dict in order, then that entry's callers in their dict order.
  const std::size_t n = p.functions.size();
  std::vector<FuncId> order;
  order.reserve(n);
  std::vector<bool> placed(n, false);
  auto place = [&](FuncId f) {
    if (placed[f]) return;
    placed[f] = true;
    order.push_back(f);
  };
  // A file read as it is written lists each entry's callers right after
  // the callers before it: its calls are one run per callee, in the
  // entries' order, walked as they are. Else (merged files) the calls into
  // each function are found by an index (2.8 MB for 249 000 calls, which
  // stayed in the heap's free memory through the graph's peak).
  std::size_t c = 0;
  std::vector<bool> walked(n, false);
  for (FuncId f : p.listed) {
    place(f);
    if (c < p.calls.size() && p.calls[c].callee == f && walked[f]) break;  // a second run of f
    walked[f] = true;
    for (; c < p.calls.size() && p.calls[c].callee == f; ++c) place(p.calls[c].caller);
  }
  if (c != p.calls.size()) {
    order.clear();
    placed.assign(n, false);
    const Adjacency adj = Adjacency::build(p);
    for (FuncId f : p.listed) {
      place(f);
      for (std::uint32_t i = adj.in_begin[f]; i < adj.in_begin[f + 1]; ++i) place(p.calls[adj.in_calls[i]].caller);
    }
  }
  walked = std::vector<bool>();
  for (FuncId f = 0; f < n; ++f) place(f);
  bool identity = true;
  for (FuncId k = 0; k < n && identity; ++k) identity = order[k] == k;
  if (identity) return {};
  renumber_functions(p, order);
  std::vector<FuncId> renumbered(n, 0);
  for (FuncId k = 0; k < n; ++k) renumbered[order[k]] = k;
  return renumbered;
}

namespace {
// The profile's cost tables, in ProfileMerger::Table's order.
std::array<std::vector<Cost>*, ProfileMerger::kTables> cost_tables(Profile& p) {
  return {&p.self_cost, &p.total_cost,       &p.stack_total,    &p.call_cost,
          &p.call_self, &p.line_cost_values, &p.call_site_cost, &p.stack_node_cost};
}
}  // namespace

void ProfileMerger::write_exact() {
  const auto tables = cost_tables(into_);
  for (int t = 0; t < kTables; ++t)
    for (std::size_t cell = 0; cell < exact_[t].size() && cell < tables[t]->size(); ++cell)
      if (!exact_[t][cell].empty()) (*tables[t])[cell] = float_cost(exact_[t][cell].value());
}

ProfileMerger::ExactTables ProfileMerger::take_exact() {
  write_exact();
  // A cell of one addend has it as its value: the merger taking over gets
  // it as a partial, as every other (a +0.0 included, which its own rule
  // for values it finds would leave out).
  const auto tables = cost_tables(into_);
  for (int t = 0; t < kTables; ++t)
    for (std::size_t cell = 0; cell < written_[t].size() && cell < tables[t]->size(); ++cell)
      if (written_[t][cell] && (cell >= exact_[t].size() || exact_[t][cell].empty())) {
        if (exact_[t].size() < tables[t]->size()) exact_[t].resize(tables[t]->size());
        exact_[t][cell].add(cost_float((*tables[t])[cell]));
      }
  return std::move(exact_);
}

void ProfileMerger::finish() {
  write_exact();
  for (std::vector<ExactSum>& t : exact_) std::vector<ExactSum>().swap(t);  // the values are final
  renumbered_ = order_as_gprof2dot(into_);
  // The indexes hold old ids; a finished merger takes no more profiles.
  if (!renumbered_.empty()) functions_ = FlatIndex();
}

Expected<bool> add_profile(Profile& into, const Profile& other, std::string_view other_path) {
  ProfileMerger merger(into, &other);
  auto ok = merger.add(other, other_path);
  if (ok) merger.finish();
  return ok;
}

}  // namespace graphgen
