#include "graphgen/analysis/graph.h"

#include <fmt/format.h>

#include <algorithm>

namespace graphgen {

double node_self(const CallGraph& g, FuncId f) {
  const GraphNode& n = g.nodes[f];
  if (n.self_time) return *n.self_time;
  // Ratio graphs: self ratios are of the sum of self costs, which is the
  // whole when totals are integrated (no reported totals).
  return n.self_ratio.value_or(0) * g.whole;
}

double node_total(const CallGraph& g, FuncId f) {
  const GraphNode& n = g.nodes[f];
  if (n.total_time) return *n.total_time;
  if (n.total_ratio) return *n.total_ratio * g.whole;
  return node_self(g, f);
}

MaybeDouble edge_weight(const CallGraph& g, const GraphEdge& e) {
  if (e.total_ratio) return e.total_ratio;
  const MaybeDouble from = g.nodes[e.caller].total_ratio, to = g.nodes[e.callee].total_ratio;
  if (from && to) return std::min(*from, *to);
  return std::nullopt;
}

namespace {

// sort_edges() for a graph of `n` nodes, which may not be made yet.
void sort_edges_of(CallGraph& g, std::size_t n) {
  // By caller with one counting pass (each edge moved once), then each
  // caller's few edges by callee: (caller, callee) pairs are unique, so
  // this is the one sorted order, without sorting 400 000 edges of a big
  // profile by comparison.
  g.edge_begin.assign(n + 1, 0);
  bool sorted = true;
  for (std::size_t i = 0; i < g.edges.size(); ++i) {
    ++g.edge_begin[g.edges[i].caller + 1];
    if (i > 0) {
      const GraphEdge &x = g.edges[i - 1], &y = g.edges[i];
      sorted = sorted && (x.caller != y.caller ? x.caller < y.caller : x.callee < y.callee);
    }
  }
  for (std::size_t i = 0; i < n; ++i) g.edge_begin[i + 1] += g.edge_begin[i];
  if (sorted) return;
  // Each edge's place, then the edges moved there in place by following
  // the permutation's cycles (each swap puts one edge where it belongs): a
  // 4-byte index per edge instead of a second copy of the edges, which was
  // a fifth of a 100 000-function profile's peak.
  std::vector<std::uint32_t> place(g.edges.size());
  {
    std::vector<std::uint32_t> next(g.edge_begin.begin(), g.edge_begin.end() - 1);
    for (std::size_t i = 0; i < g.edges.size(); ++i) place[i] = next[g.edges[i].caller]++;
  }
  for (std::size_t i = 0; i < g.edges.size(); ++i)
    while (place[i] != i) {
      const std::uint32_t to = place[i], next = place[to];
      __builtin_prefetch(&g.edges[next], 1);  // (the next swap's, while this one is made)
      __builtin_prefetch(&place[next], 1);
      std::swap(g.edges[i], g.edges[to]);
      std::swap(place[i], place[to]);
    }
  for (std::size_t f = 0; f < n; ++f)
    std::sort(g.edges.begin() + g.edge_begin[f], g.edges.begin() + g.edge_begin[f + 1],
              [](const GraphEdge& x, const GraphEdge& y) { return x.callee < y.callee; });
}

}  // namespace

void sort_edges(CallGraph& g) { sort_edges_of(g, g.nodes.size()); }

namespace {

// `owner`, when given, is `p` itself, whose calls nothing reads after the
// graph: they are released as soon as the edges hold what they had.
CallGraph reported_totals(const Profile& p, std::size_t event, Diagnostics& diag, Profile* owner) {
  CallGraph g;
  const Event& ev = p.events[event];
  std::size_t n = p.functions.size();

  // gprof2dot sums self times in the stats dict's order (floats: the order
  // decides the last bit), and the whole is max(that sum, largest total).
  Cost sum_self = p.cost_of(event, 0.0);
  auto add_self = [&](FuncId f) { sum_self = p.add(event, sum_self, p.self(f, event)); };
  if (p.listed.empty()) {
    for (FuncId f = 0; f < n; ++f) add_self(f);
  } else {
    for (FuncId f : p.listed) add_self(f);
  }
  double self_sum = event_value(ev, sum_self);
  double profile_total = self_sum;
  if (p.has_total_cost())
    for (FuncId f = 0; f < n; ++f) profile_total = std::max(profile_total, event_value(ev, p.total(f, event)));
  g.whole = profile_total;

  std::uint64_t clamped = 0;
  if (owner) {
    // The edges take none of the calls' own times.
    owner->call_self = std::vector<Cost>();  // (`= {}` would keep the room)
    owner->keeps_call_self = false;
  }
  // Each edge made in its call's order, in the place of the calls read
  // before it: with `owner`, the calls' pages (and their costs') go back to
  // the system every 32 768 calls, so the edges add little to the calls'
  // peak (100 000 functions: 249 000 calls, 8 MB of calls and costs, 8 MB
  // of edges, 7.7 MiB more at once before); then sorted by caller in place.
  g.edges.reserve(p.calls.size());
  prefer_huge_pages(g.edges, p.calls.size());
  constexpr CallId kBatch = 1 << 15;
  const char* calls_given_back = reinterpret_cast<const char*>(p.calls.data());
  const char* costs_given_back = reinterpret_cast<const char*>(p.call_cost.data());
  for (CallId c = 0; c < p.calls.size(); ++c) {
    const Call& call = p.calls[c];
    GraphEdge& e = g.edges.emplace_back();
    e.caller = call.caller;
    e.callee = call.callee;
    // gprof2dot labels pstats edges with the primitive count cc.
    e.calls = call.primitive_count != kUnknownCount ? call.primitive_count : call.count;
    e.total_ratio = ratio(shown_value(ev, p.call_value(c, event)), profile_total, &clamped);
    if (owner && (c + 1) % kBatch == 0) {
      calls_given_back = give_back_pages(calls_given_back, reinterpret_cast<const char*>(p.calls.data() + c + 1));
      if (p.call_cost.size() >= (c + 1) * p.events.size())
        costs_given_back = give_back_pages(
            costs_given_back, reinterpret_cast<const char*>(p.call_cost.data() + (c + 1) * p.events.size()));
    }
  }
  // Before the nodes: the two are not at their peak together (100 000
  // functions: 8 MB of edges, 6 MB of nodes).
  if (owner) release_calls(*owner);
  // And the edges sorted before the nodes are made, their places (4 bytes
  // an edge and a node) given back: freed into the heap, they stayed there
  // beside the nodes, which are mapped on their own (100 000 functions:
  // 1.4 MB of the peak, which was here; giving them back is five system
  // calls, 0.4 ms under strace).
  sort_edges_of(g, n);
  release_freed_memory(std::size_t{1} << 20);

  g.nodes.reserve(n);
  prefer_huge_pages(g.nodes, n);
  g.nodes.resize(n);
  for (FuncId f = 0; f < n; ++f) {
    GraphNode& node = g.nodes[f];
    double self_time = event_value(ev, p.self(f, event));
    node.self_time = self_time;
    node.self_ratio = ratio(self_time, self_sum, &clamped);
    if (p.has_total_cost()) {
      double total_time = event_value(ev, p.total(f, event));
      node.total_time = total_time;
      node.total_ratio = ratio(total_time, profile_total, &clamped);
    }
    node.called = p.functions[f].calls;
  }
  if (clamped)
    diag.warn(
        fmt::format("{} ratio(s) fell outside [0, 1] (negative or inconsistent times) and were "
                    "clamped",
                    clamped));
  return g;
}

}  // namespace

CallGraph graph_from_reported_totals(const Profile& p, std::size_t event, Diagnostics& diag) {
  return reported_totals(p, event, diag, nullptr);
}

void release_calls(Profile& p) {
  p.calls = std::vector<Call>();  // (`= {}` would keep the room)
  p.call_cost = std::vector<Cost>();
  p.call_self = std::vector<Cost>();
  p.keeps_call_self = false;
  p.strings.release_lookup();
  release_freed_memory();
}

CallGraph graph_releasing_calls(Profile& p, std::size_t event, Diagnostics& diag) {
  return reported_totals(p, event, diag, &p);
}

}  // namespace graphgen
