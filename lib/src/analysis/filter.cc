#include "graphgen/analysis/filter.h"

#include <fmt/format.h>
#include <regex.h>

#include <cmath>
#include <memory>
#include <tuple>

#include "graphgen/analysis/stacks.h"
#include "graphgen/analysis/timeline.h"
#include "graphgen/flat_index.h"
#include "graphgen/labels.h"

namespace graphgen {

namespace {

struct RegexFree {
  void operator()(regex_t* re) const {
    regfree(re);
    delete re;
  }
};
using Regex = std::unique_ptr<regex_t, RegexFree>;

// The expressions of one option: any of them matching is a match.
struct Matcher {
  std::string option;
  std::vector<Regex> expressions;
  std::size_t matched = 0;  // functions that matched

  bool empty() const { return expressions.empty(); }
  bool search(const std::string& text) const {
    for (const Regex& re : expressions)
      if (regexec(re.get(), text.c_str(), 0, nullptr, 0) == 0) return true;
    return false;
  }
};

Expected<Matcher> compile(std::string option, const std::vector<std::string>& patterns) {
  Matcher m;
  m.option = std::move(option);
  for (const std::string& pattern : patterns) {
    Regex re(new regex_t);
    int rc = regcomp(re.get(), pattern.c_str(), REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
      char why[256];
      regerror(rc, re.get(), why, sizeof why);
      delete re.release();  // regcomp failed: nothing to regfree
      return bad_usage(fmt::format("{} {}: expected a POSIX extended regular expression (as grep -E takes), {}",
                                   m.option, quote_input(pattern), why));
    }
    if (pattern.find('\0') != std::string::npos)
      return bad_usage(
          fmt::format("{} {}: a regular expression cannot hold a NUL byte", m.option, quote_input(pattern)));
    m.expressions.push_back(std::move(re));
  }
  return m;
}

struct Compiled {
  Matcher focus, ignore, hide, show;
};

Expected<Compiled> compile_all(const Filters& f) {
  Compiled c;
  for (auto [into, option, patterns] :
       {std::tuple{&c.focus, "--focus", &f.focus}, std::tuple{&c.ignore, "--ignore", &f.ignore},
        std::tuple{&c.hide, "--hide", &f.hide}, std::tuple{&c.show, "--show", &f.show}}) {
    auto matcher = compile(option, *patterns);
    if (!matcher) return matcher.error();
    *into = std::move(matcher).value();
  }
  return c;
}

// What each option says of each function.
struct Marks {
  std::vector<bool> focus, ignore, hidden;
};

Marks mark(const Profile& p, Compiled& c) {
  const std::size_t n = p.functions.size();
  Marks m{std::vector<bool>(n), std::vector<bool>(n), std::vector<bool>(n)};
  std::vector<std::string> texts;
  for (FuncId f = 0; f < n; ++f) {
    const Function& fn = p.functions[f];
    texts.clear();
    texts.emplace_back(p.str(fn.name));
    texts.push_back(function_label(p, f));
    if (fn.file != kNoString) texts.emplace_back(p.str(fn.file));
    if (fn.object != kNoString) texts.emplace_back(p.str(fn.object));
    auto matches = [&](Matcher& matcher) {
      if (matcher.empty()) return false;
      for (const std::string& t : texts)
        if (matcher.search(t)) {
          ++matcher.matched;
          return true;
        }
      return false;
    };
    m.focus[f] = matches(c.focus);
    m.ignore[f] = matches(c.ignore);
    bool hide = matches(c.hide);
    bool show = matches(c.show);
    m.hidden[f] = hide || (!c.show.empty() && !show);
  }
  return m;
}

double percent(const Profile& p, Cost part, Cost whole) {
  double w = p.value(0, whole);
  return w == 0 ? 0 : 100.0 * p.value(0, part) / w;
}

// Stack formats: every distinct stack of the sample tree, filtered, is
// added again as a sample of its weight; the profile is rebuilt from them.
void filter_stacks(Profile& p, const Compiled& c, const Marks& m, Diagnostics& diag) {
  const std::size_t n = p.functions.size();
  Profile q;
  q.strings = std::move(p.strings);
  detail::StackBuilder builder(q, "", "", true, p.events[0].floating);
  q.events[0] = p.events[0];
  q.label_style = p.label_style;
  q.line_in_identity = p.line_in_identity;
  q.metadata = std::move(p.metadata);
  q.memory = std::move(p.memory);  // (names, not function ids: no filter changes it)
  for (const Function& fn : p.functions) q.add_function(fn);
  std::vector<bool> used(n, false);
  std::vector<FuncId> path;
  Cost whole = 0, dropped = 0;
  std::size_t dropped_stacks = 0;
  const std::size_t nodes = p.stack_nodes.size();
  // Where each node's samples went (0: dropped), for the timeline; the
  // samples that stay keep the lengths they had among all of them.
  fix_durations(p);
  std::vector<std::uint32_t> moved(p.timeline.empty() ? 0 : nodes, 0);
  for (std::uint32_t node = 1; node < nodes; ++node) {
    const Cost weight = p.stack_node_cost[node];
    if (weight == 0) continue;
    whole = p.add(0, whole, weight);
    if (p.stack_nodes[node].process != kNoString) {
      // A sample with no frame (perf's, under its command): no filter
      // removed its frames, and only --focus asks for a frame it lacks.
      if (c.focus.empty()) builder.add_frameless_sample(weight, q.str(p.stack_nodes[node].process));
      if (!moved.empty() && c.focus.empty()) moved[node] = builder.last_node();
      continue;
    }
    path.clear();
    StringId process = kNoString;
    bool focused = c.focus.empty(), ignored = false;
    // Leaf to root; the steps are bounded in case the tree is not one.
    std::size_t steps = 0;
    for (std::uint32_t at = node; at != 0 && at < nodes && steps < nodes; at = p.stack_nodes[at].parent, ++steps) {
      const StackNode& s = p.stack_nodes[at];
      if (s.process != kNoString) {
        process = s.process;
        continue;
      }
      if (s.function >= n) continue;
      focused = focused || m.focus[s.function];
      ignored = ignored || m.ignore[s.function];
      if (!m.hidden[s.function]) path.push_back(s.function);
    }
    if (ignored || !focused) continue;
    if (path.empty()) {
      dropped = p.add(0, dropped, weight);
      ++dropped_stacks;
      continue;
    }
    for (FuncId f : path) used[f] = true;
    builder.add_sample(path, weight, weight, process == kNoString ? std::string_view() : q.str(process));
    if (!moved.empty()) moved[node] = builder.last_node();
  }
  // The timeline keeps the samples that stayed, on their new nodes.
  q.tracks = std::move(p.tracks);
  for (const TimedSample& s : p.timeline)
    if (s.node < moved.size() && moved[s.node] != 0)
      q.timeline.push_back({s.start, s.duration, moved[s.node], s.track});
  if (dropped_stacks > 0)
    diag.warn(
        fmt::format("--hide/--show left {} sample stack(s) with no frame: their cost ({:.2f}% of the profile) "
                    "is dropped, as pprof drops them",
                    dropped_stacks, percent(p, dropped, whole)));
  p = std::move(q);
  remove_functions(p, used);
}

// A cost split in parts proportional to `shares` (which sum to 1): integer
// parts round so that they add up to the whole exactly.
template <class Sink>
void split(const Profile& p, std::size_t e, Cost whole, const std::vector<double>& shares, Sink&& sink) {
  if (p.events[e].floating) {
    double v = p.value(e, whole);
    for (std::size_t i = 0; i < shares.size(); ++i) sink(i, p.cost_of(e, v * shares[i]));
    return;
  }
  double acc = 0;
  Cost given = 0;
  for (std::size_t i = 0; i < shares.size(); ++i) {
    acc += shares[i];
    Cost upto = i + 1 == shares.size() ? whole : static_cast<Cost>(std::llround(acc * static_cast<double>(whole)));
    sink(i, upto - given);
    given = upto;
  }
}

// The shares of the calls `in` into one function: by the cost each carries
// in event `e`, else by call counts, else equal.
void shares_of(const Profile& p, const std::vector<CallId>& in, std::size_t e, std::vector<double>& out) {
  out.assign(in.size(), 0);
  double sum = 0;
  for (std::size_t i = 0; i < in.size(); ++i) sum += out[i] = std::max(0.0, p.call_value(in[i], e));
  if (sum > 0 && std::isfinite(sum)) {
    for (double& s : out) s /= sum;
    return;
  }
  sum = 0;
  for (std::size_t i = 0; i < in.size(); ++i)
    sum += out[i] = p.calls[in[i]].count > 0 ? static_cast<double>(p.calls[in[i]].count) : 0.0;
  if (sum > 0) {
    for (double& s : out) s /= sum;
    return;
  }
  for (double& s : out) s = 1.0 / static_cast<double>(in.size());
}

// Call-graph formats: --focus and --ignore select functions by the call
// paths through them, --hide and --show fold functions into their callers.
class GraphFilter {
 public:
  explicit GraphFilter(Profile& p) : keep(p.functions.size(), true), p_(p), n_(p.functions.size()), in_(n_), out_(n_) {
    for (CallId k = 0; k < p.calls.size(); ++k) {
      const Call& call = p.calls[k];
      if (call.caller == call.callee || call.caller >= n_ || call.callee >= n_) continue;
      out_[call.caller].push_back(k);
      in_[call.callee].push_back(k);
    }
  }

  // --focus: the matches, what they call and what calls them.
  void focus(const std::vector<bool>& matches) {
    std::vector<bool> below = reach(matches, true, nullptr), above = reach(matches, false, nullptr);
    for (FuncId f = 0; f < n_; ++f) keep[f] = below[f] || above[f];
  }

  // --ignore: the matches, and what only they lead to.
  void ignore(const std::vector<bool>& matches) {
    std::vector<bool> roots(n_), live_roots(n_);
    for (FuncId f = 0; f < n_; ++f) {
      roots[f] = in_[f].empty();
      live_roots[f] = roots[f] && !matches[f];
    }
    std::vector<bool> before = reach(roots, true, nullptr), after = reach(live_roots, true, &matches);
    for (FuncId f = 0; f < n_; ++f)
      if (matches[f] || (before[f] && !after[f])) keep[f] = false;
  }

  // --hide/--show: each hidden function folded into its callers; true when
  // any was.
  bool fold(const std::vector<bool>& hidden, Diagnostics& diag) {
    for (CallId k = 0; k < p_.calls.size(); ++k) find_call(p_.calls[k].caller, p_.calls[k].callee, [k] { return k; });
    bool folded = false;
    Cost lost = 0, whole = 0;
    for (FuncId f = 0; f < n_; ++f) whole = p_.add(0, whole, p_.self(f, 0));
    for (FuncId h = 0; h < n_; ++h) {
      if (!hidden[h] || !keep[h]) continue;
      folded = true;
      keep[h] = false;
      if (!fold_one(h)) lost = p_.add(0, lost, p_.self(h, 0));
    }
    if (lost != 0)
      diag.warn(
          fmt::format("--hide/--show: hidden functions that nothing calls keep their own cost ({:.2f}% of the "
                      "profile's self cost) out of the graph",
                      percent(p_, lost, whole)));
    return folded;
  }

  std::vector<bool> keep;

 private:
  // Functions reachable from `from` (those with from[f]), through calls
  // (callers to callees, or back), never entering a function with `wall`.
  std::vector<bool> reach(std::vector<bool> from, bool down, const std::vector<bool>* wall) const {
    std::vector<FuncId> work;
    for (FuncId f = 0; f < n_; ++f)
      if (from[f]) work.push_back(f);
    while (!work.empty()) {
      FuncId f = work.back();
      work.pop_back();
      for (CallId k : down ? out_[f] : in_[f]) {
        FuncId g = down ? p_.calls[k].callee : p_.calls[k].caller;
        if (from[g] || (wall && (*wall)[g])) continue;
        from[g] = true;
        work.push_back(g);
      }
    }
    return from;
  }

  // (caller, callee) -> the call; `add` makes it when there is none.
  template <class Add>
  CallId find_call(FuncId caller, FuncId callee, Add&& add) {
    return index_.find_or_add(
        FlatIndex::mix(caller, callee),
        [&](std::uint32_t j) { return p_.calls[j].caller == caller && p_.calls[j].callee == callee; }, add);
  }
  CallId call_to(FuncId caller, FuncId callee) {
    return find_call(caller, callee, [&] {
      CallId k = p_.add_call({caller, callee, 0, 0});
      out_[caller].push_back(k);
      in_[callee].push_back(k);
      return k;
    });
  }

  // Folds `h` into its kept callers, in proportion to the cost each call
  // into it carries; false when nothing kept calls it (its cost is lost).
  bool fold_one(FuncId h) {
    // The calls still in the graph: between kept functions.
    ins_.clear();
    outs_.clear();
    for (CallId k : in_[h])
      if (keep[p_.calls[k].caller]) ins_.push_back(k);
    for (CallId k : out_[h])
      if (keep[p_.calls[k].callee]) outs_.push_back(k);
    if (ins_.empty()) return false;
    // Counts split by the calls' counts when all are known.
    std::int64_t count_sum = 0;
    bool counts_known = true;
    for (CallId k : ins_) {
      counts_known = counts_known && p_.calls[k].count >= 0;
      if (counts_known) count_sum += p_.calls[k].count;
    }
    for (std::size_t e = 0; e < p_.events.size(); ++e) {
      shares_of(p_, ins_, e, shares_);
      if (e == 0) {
        count_shares_ = shares_;
        if (counts_known && count_sum > 0)
          for (std::size_t i = 0; i < ins_.size(); ++i)
            count_shares_[i] = static_cast<double>(p_.calls[ins_[i]].count) / static_cast<double>(count_sum);
      }
      fold_costs(h, e);
    }
    fold_counts();
    return true;
  }

  // Event `e` of `h`: its self cost to its callers' self, the costs of its
  // calls to calls from its callers.
  void fold_costs(FuncId h, std::size_t e) {
    split(p_, e, p_.self(h, e), shares_, [&](std::size_t i, Cost part) {
      FuncId caller = p_.calls[ins_[i]].caller;
      p_.self(caller, e) = p_.add(e, p_.self(caller, e), part);
    });
    for (CallId o : outs_) {
      FuncId callee = p_.calls[o].callee;
      // The call's `cell` (inclusive or along) spread over the callers'
      // calls to the callee.
      auto spread = [&](auto&& cell) {
        split(p_, e, cell(o), shares_, [&](std::size_t i, Cost part) {
          FuncId caller = p_.calls[ins_[i]].caller;
          if (caller == callee) return;  // back into the caller: already its cost
          Cost& into = cell(call_to(caller, callee));
          into = p_.add(e, into, part);
        });
      };
      spread([&](CallId k) -> Cost& { return p_.inclusive(k, e); });
      if (p_.keeps_call_self) spread([&](CallId k) -> Cost& { return p_.along(k, e); });
    }
  }

  // Call counts along the new paths, in the same proportions.
  void fold_counts() {
    auto add_count = [](std::int64_t& into, std::int64_t part) {
      into = into == kUnknownCount || part == kUnknownCount ? kUnknownCount : into + part;
    };
    for (CallId o : outs_) {
      FuncId callee = p_.calls[o].callee;
      for (std::size_t i = 0; i < ins_.size(); ++i) {
        FuncId caller = p_.calls[ins_[i]].caller;
        if (caller == callee) continue;
        CallId k = call_to(caller, callee);
        auto part = [&](std::int64_t v) {
          return v < 0 ? kUnknownCount
                       : static_cast<std::int64_t>(std::llround(static_cast<double>(v) * count_shares_[i]));
        };
        add_count(p_.calls[k].count, part(p_.calls[o].count));
        add_count(p_.calls[k].primitive_count, part(p_.calls[o].primitive_count));
      }
    }
  }

  Profile& p_;
  const std::size_t n_;
  std::vector<std::vector<CallId>> in_, out_;
  FlatIndex index_;
  std::vector<CallId> ins_, outs_;
  std::vector<double> shares_, count_shares_;
};

void filter_graph(Profile& p, const Compiled& c, const Marks& m, Diagnostics& diag) {
  GraphFilter filter(p);
  if (!c.focus.empty()) filter.focus(m.focus);
  if (!c.ignore.empty()) filter.ignore(m.ignore);
  if ((!c.hide.empty() || !c.show.empty()) && filter.fold(m.hidden, diag)) {
    // Per-position detail no longer adds up to the functions' costs.
    p.line_costs.clear();
    p.line_cost_values.clear();
    p.call_sites.clear();
    p.call_site_cost.clear();
    p.jumps.clear();
    p.stack_nodes.clear();
    p.stack_node_cost.clear();
    p.timeline.clear();
  }
  remove_functions(p, filter.keep);
}

}  // namespace

Expected<bool> check_filters(const Filters& filters) {
  auto compiled = compile_all(filters);
  if (!compiled) return compiled.error();
  return true;
}

Expected<bool> apply_filters(Profile& p, const Filters& filters, Diagnostics& diag) {
  if (filters.empty() || p.functions.empty() || p.events.empty()) return true;
  auto compiled = compile_all(filters);
  if (!compiled) return compiled.error();
  Compiled& c = *compiled;
  Marks m = mark(p, c);
  for (const Matcher* matcher : {&c.focus, &c.ignore, &c.hide, &c.show})
    if (!matcher->empty() && matcher->matched == 0)
      diag.warn(fmt::format("{}: no function matches {}", matcher->option,
                            matcher->expressions.size() == 1 ? "the expression" : "any of the expressions"));
  if (p.stack_nodes.size() > 1 && p.events.size() == 1)
    filter_stacks(p, c, m, diag);
  else
    filter_graph(p, c, m, diag);
  return true;
}

void remove_functions(Profile& p, const std::vector<bool>& keep) {
  const std::size_t n = p.functions.size(), ne = p.events.size();
  std::vector<FuncId> new_id(n, 0);
  std::size_t kept = 0;
  for (FuncId f = 0; f < n; ++f)
    if (keep[f]) new_id[f] = static_cast<FuncId>(kept++);
  if (kept == n) return;
  // Rows [i * width, (i + 1) * width) of `table` kept where keep_row(i).
  auto filter_rows = [](auto& table, std::size_t rows, std::size_t width, auto&& keep_row) {
    if (table.empty()) return;
    std::size_t to = 0;
    for (std::size_t i = 0; i < rows; ++i) {
      if (!keep_row(i)) continue;
      for (std::size_t e = 0; e < width; ++e) table[to * width + e] = table[i * width + e];
      ++to;
    }
    table.resize(to * width);
  };
  auto kept_function = [&](std::size_t f) { return static_cast<bool>(keep[f]); };
  filter_rows(p.self_cost, n, ne, kept_function);
  filter_rows(p.total_cost, n, ne, kept_function);
  filter_rows(p.stack_total, n, ne, kept_function);
  filter_rows(p.reported_share, n, 1, kept_function);
  filter_rows(p.functions, n, 1, kept_function);
  std::size_t listed = 0;
  for (FuncId f : p.listed)
    if (f < n && keep[f]) p.listed[listed++] = new_id[f];
  p.listed.resize(listed);

  const std::size_t nc = p.calls.size();
  std::vector<CallId> new_call(nc, 0);
  std::vector<bool> call_kept(nc);
  std::size_t calls = 0;
  for (CallId k = 0; k < nc; ++k) {
    const Call& c = p.calls[k];
    call_kept[k] = c.caller < n && c.callee < n && keep[c.caller] && keep[c.callee];
    if (call_kept[k]) new_call[k] = static_cast<CallId>(calls++);
  }
  auto kept_call = [&](std::size_t k) { return static_cast<bool>(call_kept[k]); };
  filter_rows(p.call_cost, nc, ne, kept_call);
  filter_rows(p.call_self, nc, ne, kept_call);
  filter_rows(p.calls, nc, 1, kept_call);
  for (Call& c : p.calls) {
    c.caller = new_id[c.caller];
    c.callee = new_id[c.callee];
  }
  const std::size_t ns = p.call_sites.size();
  auto kept_site = [&](std::size_t s) { return p.call_sites[s].call < nc && call_kept[p.call_sites[s].call]; };
  filter_rows(p.call_site_cost, ns, ne, kept_site);
  filter_rows(p.call_sites, ns, 1, kept_site);
  for (CallSite& s : p.call_sites) s.call = new_call[s.call];
  const std::size_t nl = p.line_costs.size();
  auto kept_line = [&](std::size_t l) { return p.line_costs[l].function < n && keep[p.line_costs[l].function]; };
  filter_rows(p.line_cost_values, nl, ne, kept_line);
  filter_rows(p.line_costs, nl, 1, kept_line);
  for (LineCost& l : p.line_costs) l.function = new_id[l.function];
  std::erase_if(
      p.jumps, [&](const Jump& j) { return j.function >= n || j.target >= n || !keep[j.function] || !keep[j.target]; });
  for (Jump& j : p.jumps) {
    j.function = new_id[j.function];
    j.target = new_id[j.target];
  }
  bool tree_ok = true;
  for (std::size_t s = 1; s < p.stack_nodes.size() && tree_ok; ++s)
    tree_ok =
        p.stack_nodes[s].process != kNoString || (p.stack_nodes[s].function < n && keep[p.stack_nodes[s].function]);
  if (!tree_ok) {
    p.stack_nodes.clear();
    p.stack_node_cost.clear();
    p.timeline.clear();
  } else {
    for (std::size_t s = 1; s < p.stack_nodes.size(); ++s)
      if (p.stack_nodes[s].process == kNoString) p.stack_nodes[s].function = new_id[p.stack_nodes[s].function];
  }
}

}  // namespace graphgen
