// The passes between a profile and what is written: the event, each
// function's totals by the format's rules, pruning and selections.
#include <fmt/format.h>

#include "graphgen/analysis/graph.h"
#include "graphgen/analysis/integrate.h"
#include "graphgen/analysis/merge.h"
#include "graphgen/analysis/prune.h"
#include "graphgen/analysis/select.h"
#include "phases.h"

namespace graphgen::pipeline {

using namespace formats;

namespace {

// `release_calls`: nothing reads the profile's calls after the graph.
Expected<CallGraph> build_graph(Profile& p, const InputFormat& format, std::size_t event, const GraphOptions& o,
                                bool release_calls, Diagnostics& diag) {
  CallGraph graph = graph_totals(p, format, event, o, diag, release_calls ? &p : nullptr);
  prune(p, graph, o.prune);
  if (!o.root.empty()) {
    auto roots = match_functions(p, graph, o.root);
    if (roots.empty())
      return bad_input(fmt::format("root node {} not found (might already be pruned : try -e0 -n0 flags)", o.root));
    keep_descendants(graph, roots, o.depth);
  }
  return graph;
}

}  // namespace

// --event: the cost column to use (formats whose readers filter samples by
// event have one column).
Expected<std::size_t> pick_event(const Profile& p, const InputFormat& format, const std::string& event) {
  if (event.empty() || format.event_option == EventOption::kSampleFilter) return std::size_t{0};
  std::vector<std::string_view> names;
  for (std::size_t e = 0; e < p.events.size(); ++e) {
    names.push_back(p.str(p.events[e].name));
    if (names.back() == event) return e;
  }
  return bad_usage(
      fmt::format("--event {}: the profile has no such event; it has {}", quote_input(event), join(names)));
}

// Each function's totals, as the format's rules give them (no pruning).
CallGraph graph_totals(const Profile& p, const InputFormat& format, std::size_t event, const GraphOptions& o,
                       Diagnostics& diag, Profile* releasable) {
  CallGraph graph;
  std::optional<CallGraph> own = format.graph ? format.graph(p, event, diag, releasable) : std::nullopt;
  if (own) {
    graph = std::move(*own);
  } else if (p.has_total_cost()) {
    graph = releasable ? graph_releasing_calls(*releasable, event, diag) : graph_from_reported_totals(p, event, diag);
  } else if (o.total == TotalMethod::kCallStacks && p.keeps_stack_totals) {
    graph = graph_from_call_stacks(p, event, diag, releasable);
  } else {
    if (o.total == TotalMethod::kCallStacks)
      diag.warn(fmt::format("--total callstacks needs sample stacks, which {} profiles do not have; using callratios",
                            format.name));
    graph = graph_from_call_ratios(p, event, diag);
  }
  // --show-samples: the count of samples where a profile keeps one beside
  // the event graphed (a .cpuprofile's, a Go CPU profile's), else the
  // event's own costs where the format counts samples with them.
  const std::optional<std::size_t> samples = sample_count_event(p);
  if (samples && *samples != event) {
    for (FuncId f = 0; f < graph.nodes.size() && f < p.functions.size(); ++f) {
      graph.nodes[f].samples = p.self(f, *samples);
      graph.nodes[f].has_samples = true;
    }
  } else if (!format.counts_samples && !samples) {
    for (GraphNode& node : graph.nodes) node.has_samples = false;
  }
  return graph;
}

// A rank's self and inclusive value per function, in the event's shown
// unit: reported totals as they are, else the totals the graph would show.
Expected<bool> rank_values(const Profile& file, const InputFormat& format, const Request& r, std::vector<double>& self,
                           std::vector<double>& inclusive) {
  auto event = pick_event(file, format, r.event);
  if (!event) return event.error();
  const Event& ev = file.events[*event];
  const std::size_t n = file.functions.size();
  self.resize(n);
  inclusive.resize(n);
  for (FuncId f = 0; f < n; ++f) self[f] = event_value(ev, file.self(f, *event));
  if (file.has_total_cost()) {
    for (FuncId f = 0; f < n; ++f) inclusive[f] = event_value(ev, file.total(f, *event));
    return true;
  }
  Diagnostics quiet;
  CallGraph g = r.graph.total == TotalMethod::kCallStacks && file.keeps_stack_totals
                    ? graph_from_call_stacks(file, *event, quiet)
                    : graph_from_call_ratios(file, *event, quiet);
  for (FuncId f = 0; f < n; ++f) inclusive[f] = node_total(g, f);
  return true;
}

// The graph a graph output draws: function identity for graphs, totals,
// pruning, -z, -l, --node-count, and the warnings about what is left.
// With --list-functions, `listing` gets the list instead.
Expected<CallGraph> graph_of(Profile& profile, const InputFormat& format, std::size_t event, const Request& r,
                             bool merge_identity, Diagnostics& diag, std::string* listing, bool release_calls) {
  // Readers that keep functions per file (callgrind) show one node per
  // function of a binary, or per name as gprof2dot does.
  if (format.graph_merges_functions && merge_identity)
    profile =
        merge_functions(std::move(profile), r.read.merge_by_name ? FunctionKey::kName : FunctionKey::kNameAndObject);
  auto built = build_graph(profile, format, event, r.graph, release_calls && !listing, diag);
  if (!built) return built.error();
  CallGraph graph = std::move(built).value();
  if (listing) {
    *listing = list_functions(profile, graph, r.list_functions);
    return graph;
  }
  if (!r.graph.leaf.empty()) {
    auto leaves = match_functions(profile, graph, r.graph.leaf);
    if (leaves.empty())
      return bad_input(fmt::format("leaf node {} not found (maybe already pruned : try -e0 -n0 flags)", r.graph.leaf));
    keep_ancestors(graph, leaves, r.graph.depth);
  }
  if (r.graph.node_count > 0) keep_heaviest(graph, r.graph.node_count);
  return graph;
}

}  // namespace graphgen::pipeline
