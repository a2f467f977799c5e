#include "graphgen/analysis/integrate.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <deque>

namespace graphgen {

Cycles find_cycles(const Profile& p, const Adjacency& adj) {
  const std::size_t n = p.functions.size();
  constexpr std::uint32_t kUnvisited = UINT32_MAX;
  std::vector<std::uint32_t> order(n, kUnvisited), low(n, 0);
  std::vector<bool> on_stack(n, false);
  std::vector<FuncId> stack;
  struct Frame {
    FuncId f;
    std::uint32_t next;  // position in f's out-calls
  };
  std::vector<Frame> frames;
  std::uint32_t counter = 0;
  Cycles result;
  result.cycle_of.assign(n, Cycles::kNone);

  for (FuncId start = 0; start < n; ++start) {
    if (order[start] != kUnvisited) continue;
    frames.push_back({start, adj.out_begin[start]});
    order[start] = low[start] = counter++;
    stack.push_back(start);
    on_stack[start] = true;
    while (!frames.empty()) {
      Frame& fr = frames.back();
      FuncId f = fr.f;
      if (fr.next < adj.out_begin[f + 1]) {
        FuncId callee = p.calls[adj.out_calls[fr.next++]].callee;
        if (order[callee] == kUnvisited) {
          order[callee] = low[callee] = counter++;
          stack.push_back(callee);
          on_stack[callee] = true;
          frames.push_back({callee, adj.out_begin[callee]});
        } else if (on_stack[callee]) {
          low[f] = std::min(low[f], order[callee]);
        }
        continue;
      }
      frames.pop_back();
      if (!frames.empty()) {
        FuncId parent = frames.back().f;
        low[parent] = std::min(low[parent], low[f]);
      }
      if (low[f] != order[f]) continue;
      std::vector<FuncId> scc;
      FuncId m;
      do {
        m = stack.back();
        stack.pop_back();
        on_stack[m] = false;
        scc.push_back(m);
      } while (m != f);
      std::sort(scc.begin(), scc.end());
      if (scc.size() > 1) {
        auto index = static_cast<std::uint32_t>(result.members.size());
        for (FuncId member : scc) result.cycle_of[member] = index;
        result.members.push_back(scc);
      }
      result.scc_order.push_back(std::move(scc));
    }
  }
  return result;
}

std::vector<double> call_ratios(const Profile& p, const Cycles& cycles, const std::vector<double>& weight) {
  std::vector<double> function_in(p.functions.size(), 0.0);
  std::vector<double> cycle_in(cycles.members.size(), 0.0);
  for (CallId c = 0; c < p.calls.size(); ++c) {
    const Call& call = p.calls[c];
    if (call.caller == call.callee) continue;
    function_in[call.callee] += weight[c];
    std::uint32_t cc = cycles.cycle_of[call.callee];
    if (cc != Cycles::kNone && cc != cycles.cycle_of[call.caller]) cycle_in[cc] += weight[c];
  }
  std::vector<double> ratios(p.calls.size(), -1.0);
  for (CallId c = 0; c < p.calls.size(); ++c) {
    const Call& call = p.calls[c];
    if (call.caller == call.callee) continue;
    std::uint32_t cc = cycles.cycle_of[call.callee];
    double total =
        (cc != Cycles::kNone && cc != cycles.cycle_of[call.caller]) ? cycle_in[cc] : function_in[call.callee];
    ratios[c] = ratio(weight[c], total);
  }
  return ratios;
}

std::vector<double> call_ratios(const Profile& p, const Cycles& cycles, std::size_t event) {
  std::vector<double> weight(p.calls.size());
  for (CallId c = 0; c < p.calls.size(); ++c) weight[c] = p.value(event, p.inclusive(c, event));
  return call_ratios(p, cycles, weight);
}

namespace {

// Nodes and edges of a graph with the measures every derived-total graph
// shares: self ratio, self samples, call counts.
CallGraph base_graph(const Profile& p, std::size_t event, double& self_sum) {
  CallGraph g;
  const std::size_t n = p.functions.size();
  g.nodes.resize(n);
  Cost sum = p.cost_of(event, 0.0);
  if (p.listed.empty()) {
    for (FuncId f = 0; f < n; ++f) sum = p.add(event, sum, p.self(f, event));
  } else {
    for (FuncId f : p.listed) sum = p.add(event, sum, p.self(f, event));
  }
  self_sum = p.value(event, sum);
  g.whole = shown_value(p.events[event], self_sum);
  for (FuncId f = 0; f < n; ++f) {
    GraphNode& node = g.nodes[f];
    double self = p.value(event, p.self(f, event));
    node.self_ratio = ratio(self, self_sum);
    // gprof2dot prints samples with %u, which truncates fractional ones.
    node.samples = p.events[event].floating
                       ? (std::isfinite(self) && std::fabs(self) < 9e18 ? static_cast<std::int64_t>(self) : 0)
                       : p.self(f, event);
    node.called = p.functions[f].calls;
  }
  g.edges.reserve(p.calls.size());
  for (const Call& call : p.calls) {
    GraphEdge e;
    e.caller = call.caller;
    e.callee = call.callee;
    e.calls = call.count;
    g.edges.push_back(e);
  }
  return g;
}

}  // namespace

// Call ratios of non-negative costs stay within [0, 1]: nothing to warn about,
// but the builders share one signature.
CallGraph graph_from_call_ratios(const Profile& p, std::size_t event, Diagnostics& /*diag*/, const RatioRule& rule) {
  double self_sum = 0;
  CallGraph g = base_graph(p, event, self_sum);
  const std::size_t n = p.functions.size();
  Adjacency adj = Adjacency::build(p);
  Cycles cycles = find_cycles(p, adj);
  std::vector<double> ratios;
  if (rule.split == RatioRule::Split::kCallCount) {
    std::vector<double> counts(p.calls.size(), 0.0);
    for (CallId c = 0; c < p.calls.size(); ++c)
      if (p.calls[c].count != kUnknownCount) counts[c] = static_cast<double>(p.calls[c].count);
    ratios = call_ratios(p, cycles, counts);
  } else {
    ratios = call_ratios(p, cycles, event);
  }

  // What is integrated: shares of the whole, or the event's values.
  std::vector<double> self(n);
  for (FuncId f = 0; f < n; ++f) self[f] = rule.in_values ? p.value(event, p.self(f, event)) : *g.nodes[f].self_ratio;
  std::vector<double> total(n, 0.0);
  std::vector<double> cycle_total(cycles.members.size(), 0.0);
  // What a call into `f` integrates: a cycle member stands for its whole
  // cycle, as gprof2dot's _integrate_function returns the cycle's total
  // (and the ratios of calls entering a cycle are relative to the cycle).
  auto integrated = [&](FuncId f) {
    std::uint32_t c = cycles.cycle_of[f];
    return c == Cycles::kNone ? total[f] : cycle_total[c];
  };
  std::vector<double> call_total(p.calls.size(), 0.0);
  std::vector<bool> has_call_total(p.calls.size(), false);

  std::vector<std::uint32_t> local(n, 0);  // a cycle member's index in its cycle

  for (const std::vector<FuncId>& scc : cycles.scc_order) {
    const std::uint32_t cycle = cycles.cycle_of[scc.front()];
    if (cycle == Cycles::kNone) {
      FuncId f = scc.front();
      double t = self[f];
      for (std::uint32_t i = adj.out_begin[f]; i < adj.out_begin[f + 1]; ++i) {
        CallId c = adj.out_calls[i];
        FuncId callee = p.calls[c].callee;
        if (callee == f) continue;
        call_total[c] = ratios[c] * integrated(callee);
        has_call_total[c] = true;
        t += call_total[c];
      }
      total[f] = t;
      continue;
    }
    auto in_cycle = [&](FuncId f) { return cycles.cycle_of[f] == cycle; };
    // The cycle's total: its members' self plus the calls leaving it, whose
    // callees are done (reverse topological order).
    double whole = 0.0;
    for (FuncId m : scc) {
      double sub = self[m];
      for (std::uint32_t i = adj.out_begin[m]; i < adj.out_begin[m + 1]; ++i) {
        CallId c = adj.out_calls[i];
        FuncId callee = p.calls[c].callee;
        if (in_cycle(callee)) continue;
        call_total[c] = ratios[c] * integrated(callee);
        has_call_total[c] = true;
        sub += call_total[c];
      }
      whole += sub;
    }
    cycle_total[cycle] = whole;
    // Entry points: members called from outside, with the summed ratio of
    // those calls, in gprof2dot's order (by caller id, then call order).
    std::vector<std::pair<FuncId, CallId>> entries_in;
    for (FuncId m : scc)
      for (std::uint32_t i = adj.in_begin[m]; i < adj.in_begin[m + 1]; ++i) {
        CallId c = adj.in_calls[i];
        if (!in_cycle(p.calls[c].caller)) entries_in.emplace_back(p.calls[c].caller, c);
      }
    std::sort(entries_in.begin(), entries_in.end());
    const std::size_t m = scc.size();
    for (std::uint32_t k = 0; k < m; ++k) local[scc[k]] = k;
    // One entry per member, found by its place in the cycle (no search).
    std::vector<std::pair<FuncId, double>> entries;
    std::vector<std::uint32_t> entry_of(m, UINT32_MAX);
    for (const auto& [caller, c] : entries_in) {
      FuncId callee = p.calls[c].callee;
      std::uint32_t& e = entry_of[local[callee]];
      if (e == UINT32_MAX) {
        e = static_cast<std::uint32_t>(entries.size());
        entries.emplace_back(callee, ratios[c]);
      } else {
        entries[e].second += ratios[c];
      }
    }
    for (FuncId member : scc) total[member] = 0.0;
    if (entries.empty()) continue;  // no outside caller: every member stays at 0

    // A compact copy of the cycle: members numbered 0..m-1, their intra-cycle
    // calls (callee, ratio, call) in call order, and the summed totals of the
    // calls that leave the cycle. Each entry point walks only this.
    std::vector<std::uint32_t> edge_begin(m + 1, 0);
    std::vector<std::uint32_t> edge_callee;
    std::vector<double> edge_ratio;
    std::vector<CallId> edge_call;
    std::vector<double> leaving(m, 0.0);
    for (std::uint32_t k = 0; k < m; ++k) {
      FuncId f = scc[k];
      for (std::uint32_t i = adj.out_begin[f]; i < adj.out_begin[f + 1]; ++i) {
        CallId c = adj.out_calls[i];
        FuncId callee = p.calls[c].callee;
        if (callee == f) continue;
        if (!in_cycle(callee)) {
          leaving[k] += call_total[c];
          continue;
        }
        edge_callee.push_back(local[callee]);
        edge_ratio.push_back(ratios[c]);
        edge_call.push_back(c);
      }
      edge_begin[k + 1] = static_cast<std::uint32_t>(edge_callee.size());
    }
    std::vector<std::uint32_t> rank(m);
    std::vector<double> forward_in(m), partial(m), member_total(m, 0.0);
    std::vector<double> edge_total(edge_callee.size(), 0.0);
    std::vector<bool> edge_has_total(edge_callee.size(), false);
    std::vector<std::uint32_t> by_rank;
    by_rank.reserve(m);

    for (const auto& [entry, entry_ratio] : entries) {
      // Breadth-first ranks from the entry; the ratios of forward calls (rank
      // k -> k+1) into each member are summed on the way: when f is taken
      // from the queue every callee already has its final rank.
      std::fill(rank.begin(), rank.end(), UINT32_MAX);
      std::fill(forward_in.begin(), forward_in.end(), 0.0);
      by_rank.clear();
      std::uint32_t start = local[entry];
      rank[start] = 0;
      by_rank.push_back(start);
      for (std::size_t head = 0; head < by_rank.size(); ++head) {
        std::uint32_t f = by_rank[head];
        for (std::uint32_t e = edge_begin[f]; e < edge_begin[f + 1]; ++e) {
          std::uint32_t callee = edge_callee[e];
          if (rank[callee] == UINT32_MAX) {
            rank[callee] = rank[f] + 1;
            by_rank.push_back(callee);
          }
          if (rank[callee] == rank[f] + 1) forward_in[callee] += edge_ratio[e];
        }
      }
      // Partials from the deepest rank up: a member's partial needs those of
      // its forward callees.
      for (auto it = by_rank.rbegin(); it != by_rank.rend(); ++it) {
        std::uint32_t f = *it;
        double part = entry_ratio * self[scc[f]] + entry_ratio * leaving[f];
        for (std::uint32_t e = edge_begin[f]; e < edge_begin[f + 1]; ++e) {
          std::uint32_t callee = edge_callee[e];
          if (rank[callee] != rank[f] + 1) continue;
          double share = ratio(edge_ratio[e], forward_in[callee]) * partial[callee];
          edge_total[e] += share;
          edge_has_total[e] = true;
          part += share;
        }
        partial[f] = part;
        member_total[f] += part;
      }
    }
    for (std::uint32_t k = 0; k < m; ++k) total[scc[k]] = member_total[k];
    for (std::size_t e = 0; e < edge_callee.size(); ++e) {
      if (!edge_has_total[e]) continue;
      call_total[edge_call[e]] = edge_total[e];
      has_call_total[edge_call[e]] = true;
    }
  }

  if (rule.in_values) {
    // gprof2dot: TOTAL_TIME integrated, then divided by the sum of self
    // times (summed again in the same order).
    const Event& ev = p.events[event];
    for (FuncId f = 0; f < n; ++f) {
      g.nodes[f].self_time = shown_value(ev, self[f]);
      g.nodes[f].total_time = shown_value(ev, total[f]);
      g.nodes[f].total_ratio = ratio(total[f], self_sum);
    }
    for (CallId c = 0; c < p.calls.size(); ++c)
      if (has_call_total[c]) g.edges[c].total_ratio = ratio(call_total[c], self_sum);
  } else {
    for (FuncId f = 0; f < n; ++f) g.nodes[f].total_ratio = total[f];
    for (CallId c = 0; c < p.calls.size(); ++c)
      if (has_call_total[c]) g.edges[c].total_ratio = call_total[c];
  }
  sort_edges(g);
  return g;
}

CallGraph graph_from_reported_shares(const Profile& p, std::size_t event, Diagnostics& diag) {
  if (p.reported_share.size() != p.functions.size()) return graph_from_call_ratios(p, event, diag);
  double self_sum = 0;
  CallGraph g = base_graph(p, event, self_sum);
  Adjacency adj = Adjacency::build(p);
  Cycles cycles = find_cycles(p, adj);
  std::vector<double> weight(p.calls.size());
  for (CallId c = 0; c < p.calls.size(); ++c) weight[c] = p.reported_share[p.calls[c].caller];
  std::vector<double> ratios = call_ratios(p, cycles, weight);
  const Event& ev = p.events[event];
  for (FuncId f = 0; f < p.functions.size(); ++f) {
    g.nodes[f].self_time = event_value(ev, p.self(f, event));
    g.nodes[f].total_ratio = p.reported_share[f];
  }
  for (CallId c = 0; c < p.calls.size(); ++c) {
    const Call& call = p.calls[c];
    g.edges[c].total_ratio =
        call.caller == call.callee ? p.reported_share[call.caller] : ratios[c] * p.reported_share[call.callee];
  }
  sort_edges(g);
  return g;
}

CallGraph graph_from_call_stacks(const Profile& p, std::size_t event, Diagnostics& /*diag*/) {
  double self_sum = 0;
  CallGraph g = base_graph(p, event, self_sum);
  Adjacency adj = Adjacency::build(p);
  Cycles cycles = find_cycles(p, adj);
  std::vector<double> ratios = call_ratios(p, cycles, event);
  for (FuncId f = 0; f < p.functions.size(); ++f) {
    double stacks = p.stack_total.empty() ? 0.0 : p.value(event, p.stack_inclusive(f, event));
    g.nodes[f].total_ratio = ratio(stacks, self_sum);
  }
  for (CallId c = 0; c < p.calls.size(); ++c)
    if (ratios[c] >= 0) g.edges[c].total_ratio = ratios[c] * *g.nodes[p.calls[c].callee].total_ratio;
  sort_edges(g);
  return g;
}

}  // namespace graphgen
