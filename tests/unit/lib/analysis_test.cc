// The passes: gprof2dot's ratio rule, colour themes, globbing, pruning and
// subgraph selection, on small profiles built in the test.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <map>
#include <random>

#include "graphgen/analysis/glob.h"
#include "graphgen/analysis/graph.h"
#include "graphgen/analysis/merge.h"
#include "graphgen/analysis/prune.h"
#include "graphgen/analysis/select.h"
#include "graphgen/analysis/stacks.h"
#include "graphgen/analysis/theme.h"
#include "graphgen/wire.h"

namespace graphgen::analysis_test {
namespace {

TEST(Ratio, ZeroOverZeroIsOneAndResultsAreClamped) {
  std::uint64_t clamped = 0;
  EXPECT_EQ(ratio(0, 0, &clamped), 1.0);
  EXPECT_EQ(ratio(5, 0, &clamped), 1.0);
  EXPECT_EQ(ratio(1, 4, &clamped), 0.25);
  EXPECT_EQ(ratio(-1, 4, &clamped), 0.0);
  EXPECT_EQ(ratio(5, 4, &clamped), 1.0);
  EXPECT_EQ(clamped, 2u);
  // Within 2^-23 of the bounds: clamped silently.
  EXPECT_EQ(ratio(1.0 + 1e-9, 1.0, &clamped), 1.0);
  EXPECT_EQ(clamped, 2u);
}

// The graph's 8-byte optional behaves as std::optional<double> for every
// double, including every NaN and the bit pattern it uses for "absent".
TEST(MaybeDouble, HoldsEveryDoubleAsStdOptionalDoes) {
  MaybeDouble none;
  EXPECT_FALSE(none);
  EXPECT_EQ(none, std::nullopt);
  EXPECT_EQ(none.value_or(2.5), 2.5);
  EXPECT_THROW((void)none.value(), std::bad_optional_access);
  EXPECT_EQ(std::optional<double>(none), std::nullopt);
  const double absent_bits = std::bit_cast<double>(std::uint64_t{0x7FF4'0000'0000'0001});
  for (double v :
       {0.0, -0.0, 1.5, -1e300, std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN(),
        std::numeric_limits<double>::signaling_NaN(), absent_bits}) {
    MaybeDouble m = v;
    ASSERT_TRUE(m) << v;
    EXPECT_EQ(std::signbit(*m), std::signbit(v));
    if (std::isnan(v)) {
      EXPECT_TRUE(std::isnan(*m));
      EXPECT_FALSE(m == MaybeDouble(v));  // NaN != NaN, as for std::optional
    } else {
      EXPECT_EQ(std::bit_cast<std::uint64_t>(*m), std::bit_cast<std::uint64_t>(v));
      EXPECT_EQ(m, MaybeDouble(std::optional<double>(v)));
      EXPECT_EQ(std::optional<double>(m), std::optional<double>(v));
    }
    m.reset();
    EXPECT_FALSE(m);
  }
  EXPECT_EQ(MaybeDouble(std::optional<double>()), std::nullopt);
  EXPECT_EQ(sizeof(MaybeDouble), 8u);
}

TEST(Theme, ColorMapEndsMatchGprof2dot) {
  const Theme* t = find_theme("color");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(to_hex(t->color(0.0)), "#0d0d73");
  EXPECT_EQ(to_hex(t->color(1.0)), "#ff0000");
  EXPECT_EQ(to_hex(t->node_font(0.3)), "#ffffff");
  EXPECT_EQ(to_hex(t->color(-3)), "#0d0d73");  // weights are clamped first
}

TEST(Theme, BwSizesMatchRealRuns) {
  const Theme* t = find_theme("bw");
  ASSERT_NE(t, nullptr);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f %.2f %.2f", t->font_size(0.9), t->pen_width(0.9), t->arrow_size(0.9));
  EXPECT_STREQ(buf, "19.44 7.20 1.34");
}

TEST(Theme, PrintThemeColoursTextAndIsNotFilled) {
  const Theme* t = find_theme("print");
  ASSERT_NE(t, nullptr);
  EXPECT_FALSE(t->filled);
  EXPECT_EQ(t->font_color, "black");
  EXPECT_EQ(to_hex(t->node_font(0.5)), to_hex(t->color(0.5)));
}

TEST(Theme, SkewBendsTheCurveButKeepsItsEnds) {
  Theme t = *find_theme("gray");
  std::string linear = to_hex(t.color(0.3));
  t.skew = 0.5;
  EXPECT_NE(to_hex(t.color(0.3)), linear);
  EXPECT_EQ(to_hex(t.color(0.0)), to_hex(find_theme("gray")->color(0.0)));
  EXPECT_EQ(to_hex(t.color(1.0)), "#000000");
}

TEST(Theme, NamesAreSorted) {
  auto names = theme_names();
  EXPECT_EQ(names, (std::vector<std::string_view>{"bw", "color", "gray", "pink", "print"}));
  EXPECT_EQ(find_theme("rainbow"), nullptr);
}

TEST(Glob, FollowsFnmatch) {
  EXPECT_TRUE(glob_match("memtrail:382:tree", "memtrail:382:tree"));
  EXPECT_TRUE(glob_match("*parse", "memtrail:597:parse"));
  EXPECT_FALSE(glob_match("*parse", "memtrail:624:parse_frames"));
  EXPECT_TRUE(glob_match("*parse_*", "memtrail:624:parse_frames"));
  EXPECT_TRUE(glob_match("*", ""));
  EXPECT_TRUE(glob_match("a?c", "abc"));
  EXPECT_FALSE(glob_match("a?c", "ac"));
  EXPECT_TRUE(glob_match("[ab]x", "bx"));
  EXPECT_FALSE(glob_match("[!ab]x", "bx"));
  EXPECT_TRUE(glob_match("[a-c]*", "car"));
  EXPECT_TRUE(glob_match("x[", "x["));             // an unclosed bracket is literal
  EXPECT_TRUE(glob_match("*/*", "a/b"));           // '*' crosses '/'
  EXPECT_TRUE(glob_match("caf?", "caf\xc3\xa9"));  // one code point
  EXPECT_FALSE(glob_match("Tree", "tree"));
}

// main -> a -> b, main -> c, b -> a (a cycle), c has 0.2 % of the time.
Profile small_profile() {
  Profile p;
  p.events.push_back({p.strings.intern("time"), p.strings.intern("ns"), 1e-9});
  p.reports_totals = true;
  auto add = [&](const char* label, const char* file, Cost self, Cost total, std::int64_t calls) {
    Function f;
    f.name = p.strings.intern(label);
    f.file = p.strings.intern(file);
    f.calls = calls;
    FuncId id = p.add_function(f);
    p.self(id, 0) = self;
    p.total(id, 0) = total;
    return id;
  };
  FuncId main = add("m:1:main", "/src/m.py", 100, 1000, 1);
  FuncId a = add("m:2:a", "/src/m.py", 300, 700, 3);
  FuncId b = add("lib:3:b", "/usr/lib/lib.py", 398, 500, 2);
  FuncId c = add("m:4:c", "/src/m.py", 2, 2, 1);
  auto call = [&](FuncId from, FuncId to, std::int64_t n, Cost inc) {
    CallId id = p.add_call({from, to, n});
    p.inclusive(id, 0) = inc;
  };
  call(main, a, 1, 700);
  call(a, b, 2, 500);
  call(b, a, 2, 200);
  call(main, c, 1, 2);
  return p;
}

// gprof2dot numbers pstats functions as it meets them: each entry, then
// its callers. Calls one run per callee in the entries' order (a file as
// read) are walked as they are; any other order (merged files, an entry
// listed twice) finds the callers of each entry by an index, and both give
// that numbering. `calls`: (caller, callee) in the profile's order.
std::vector<std::string> gprof2dot_order(const std::vector<FuncId>& listed,
                                         const std::vector<std::pair<FuncId, FuncId>>& calls) {
  Profile p;
  p.events.push_back({p.strings.intern("time"), p.strings.intern("s"), 1.0, true});
  for (const char* name : {"f0", "f1", "f2", "f3", "f4", "f5", "f6"}) {
    Function f;
    f.name = p.strings.intern(name);
    p.add_function(f);
  }
  for (auto [from, to] : calls) p.add_call({from, to, 1});
  p.listed = listed;
  order_as_gprof2dot(p);
  std::vector<std::string> names;
  for (const Function& f : p.functions) names.emplace_back(p.str(f.name));
  return names;
}

TEST(Gprof2dotOrder, EntriesThenTheirCallersWhateverTheCallsOrder) {
  const std::vector<std::string> expected = {"f2", "f3", "f1", "f0", "f5", "f4", "f6"};
  // As a file lists them: 2 <- 3, 1; 0 <- 5; 4 <- 1, 2.
  EXPECT_EQ(gprof2dot_order({2, 0, 4}, {{3, 2}, {1, 2}, {5, 0}, {1, 4}, {2, 4}}), expected);
  // The same calls in another order.
  EXPECT_EQ(gprof2dot_order({2, 0, 4}, {{1, 4}, {3, 2}, {5, 0}, {1, 2}, {2, 4}}), expected);
  // An entry listed twice, its callers in two runs: all of them at its
  // first place (not 1 after 0 and 5, where its second run is).
  EXPECT_EQ(gprof2dot_order({2, 0, 2}, {{3, 2}, {5, 0}, {1, 2}}),
            (std::vector<std::string>{"f2", "f3", "f1", "f0", "f5", "f4", "f6"}));
  // Callers of a function that is not listed come at the end.
  EXPECT_EQ(gprof2dot_order({2}, {{3, 2}, {1, 6}}),
            (std::vector<std::string>{"f2", "f3", "f0", "f1", "f4", "f5", "f6"}));
}

TEST(ReportedTotals, RatiosAreOfTheProfileTotal) {
  Profile p = small_profile();
  Diagnostics diag;
  CallGraph g = graph_from_reported_totals(p, 0, diag);
  EXPECT_DOUBLE_EQ(*g.nodes[0].total_ratio, 1.0);
  EXPECT_DOUBLE_EQ(*g.nodes[1].total_ratio, 0.7);
  EXPECT_DOUBLE_EQ(*g.nodes[1].self_ratio, 300.0 / 800.0);
  EXPECT_DOUBLE_EQ(*g.nodes[1].self_time, 300e-9);
  EXPECT_EQ(g.nodes[2].called, 2);
  ASSERT_EQ(g.edges.size(), 4u);
  EXPECT_EQ(g.edges[0].caller, 0u);  // sorted by caller, then callee
  EXPECT_EQ(g.edges[1].callee, 3u);
  EXPECT_TRUE(diag.warnings().empty());
}

// A picture's graph of a profile nothing else reads: the same graph, bit
// for bit, with the profile's calls given back before the nodes are made
// (the 100k-function pstats' analysis held 10 MB of calls beside 17 MB of
// graph). Also when calls carry only counts (the pure-Python profiler's).
TEST(ReportedTotals, ReleasingTheCallsGivesTheSameGraph) {
  for (bool from_counts : {false, true}) {
    SCOPED_TRACE(from_counts);
    Profile p = small_profile();
    p.keeps_call_self = true;
    p.call_self.assign(p.calls.size(), 5);
    p.call_costs_from_counts = from_counts;
    Diagnostics kept_diag, released_diag;
    const CallGraph kept = graph_from_reported_totals(p, 0, kept_diag);
    const CallGraph released = graph_releasing_calls(p, 0, released_diag);
    auto bits = [](MaybeDouble d) { return d ? std::bit_cast<std::uint64_t>(*d) : std::uint64_t{1}; };
    ASSERT_EQ(released.nodes.size(), kept.nodes.size());
    for (std::size_t f = 0; f < kept.nodes.size(); ++f) {
      const GraphNode &a = kept.nodes[f], &b = released.nodes[f];
      EXPECT_EQ(bits(a.self_time), bits(b.self_time));
      EXPECT_EQ(bits(a.self_ratio), bits(b.self_ratio));
      EXPECT_EQ(bits(a.total_time), bits(b.total_time));
      EXPECT_EQ(bits(a.total_ratio), bits(b.total_ratio));
      EXPECT_EQ(a.called, b.called);
    }
    ASSERT_EQ(released.edges.size(), 4u);
    ASSERT_EQ(released.edges.size(), kept.edges.size());
    for (std::size_t i = 0; i < kept.edges.size(); ++i) {
      const GraphEdge &a = kept.edges[i], &b = released.edges[i];
      EXPECT_EQ(a.caller, b.caller);
      EXPECT_EQ(a.callee, b.callee);
      EXPECT_EQ(a.calls, b.calls);
      EXPECT_EQ(bits(a.total_ratio), bits(b.total_ratio));
    }
    EXPECT_EQ(released.edge_begin, kept.edge_begin);
    EXPECT_EQ(std::bit_cast<std::uint64_t>(released.whole), std::bit_cast<std::uint64_t>(kept.whole));
    // Given back, not only emptied.
    EXPECT_EQ(p.calls.capacity(), 0u);
    EXPECT_EQ(p.call_cost.capacity(), 0u);
    EXPECT_EQ(p.call_self.capacity(), 0u);
    EXPECT_FALSE(p.keeps_call_self);
    // What the picture reads is all there.
    EXPECT_EQ(p.functions.size(), 4u);
    EXPECT_EQ(p.self_cost.size(), 4u);
  }
}

// Edges in any order come out by (caller, callee), each with its own
// values (sorted in place by following the permutation's cycles: a second
// copy of a 100 000-function profile's edges was a fifth of its peak).
TEST(SortEdges, EveryOrderGivesCallerThenCalleeWithTheValuesMoved) {
  const FuncId n = 40;
  std::vector<GraphEdge> edges;
  for (FuncId a = 0; a < n; ++a)
    for (FuncId b = 0; b < n; ++b)
      if ((a * 7 + b * 3) % 5 == 0) edges.push_back({a, b, a + b / 100.0, std::int64_t{a} * 1000 + b});
  ASSERT_GT(edges.size(), 300u);
  std::uint32_t seed = 7;
  for (int round = 0; round < 4; ++round) {
    SCOPED_TRACE(round);
    CallGraph g;
    g.nodes.resize(n);
    g.edges = edges;
    if (round == 1) std::reverse(g.edges.begin(), g.edges.end());
    if (round >= 2)  // shuffled (a fixed sequence: the same test every run)
      for (std::size_t i = g.edges.size(); i > 1; --i) {
        seed = seed * 1664525u + 1013904223u;
        std::swap(g.edges[i - 1], g.edges[seed % i]);
      }
    sort_edges(g);
    ASSERT_EQ(g.edges.size(), edges.size());
    for (std::size_t i = 0; i < edges.size(); ++i) {
      const GraphEdge& e = g.edges[i];
      EXPECT_EQ(e.caller, edges[i].caller) << i;
      EXPECT_EQ(e.callee, edges[i].callee) << i;
      EXPECT_EQ(e.calls, std::int64_t{e.caller} * 1000 + e.callee) << i;
      EXPECT_EQ(e.total_ratio, e.caller + e.callee / 100.0) << i;
    }
    ASSERT_EQ(g.edge_begin.size(), n + 1u);
    for (FuncId f = 0; f < n; ++f)
      for (std::uint32_t i = g.edge_begin[f]; i < g.edge_begin[f + 1]; ++i) EXPECT_EQ(g.edges[i].caller, f);
  }
}

TEST(Prune, DropsNodesBelowTheThresholdAndTheirEdges) {
  Profile p = small_profile();
  Diagnostics diag;
  CallGraph g = graph_from_reported_totals(p, 0, diag);
  prune(p, g, PruneOptions{});
  EXPECT_FALSE(g.nodes[3].kept);  // 0.2 % < 0.5 %
  EXPECT_FALSE(g.edge_kept(1));   // main -> c
  EXPECT_TRUE(g.nodes[2].kept);
  EXPECT_DOUBLE_EQ(*g.nodes[1].weight, 0.7);
}

TEST(Prune, ExactlyTheThresholdIsKept) {
  Profile p = small_profile();
  Diagnostics diag;
  CallGraph g = graph_from_reported_totals(p, 0, diag);
  PruneOptions o;
  o.node_threshold_percent = 0.2;
  prune(p, g, o);
  EXPECT_TRUE(g.nodes[3].kept);
}

TEST(Prune, PathsKeepOnlyFilesUnderThem) {
  Profile p = small_profile();
  Diagnostics diag;
  CallGraph g = graph_from_reported_totals(p, 0, diag);
  PruneOptions o;
  o.node_threshold_percent = 0;
  o.paths = {"/src/"};
  prune(p, g, o);
  EXPECT_FALSE(g.nodes[2].kept);
  EXPECT_TRUE(g.nodes[3].kept);
}

TEST(Prune, SelfTimeColouringRescalesToTheLargestKeptSelfRatio) {
  Profile p = small_profile();
  Diagnostics diag;
  CallGraph g = graph_from_reported_totals(p, 0, diag);
  PruneOptions o;
  o.color_nodes_by_selftime = true;
  prune(p, g, o);
  EXPECT_DOUBLE_EQ(*g.nodes[2].weight, 1.0);  // b has the most self time
  EXPECT_DOUBLE_EQ(*g.nodes[1].weight, 300.0 / 398.0);
}

TEST(Select, RootKeepsDescendantsWithinDepth) {
  Profile p = small_profile();
  Diagnostics diag;
  CallGraph g = graph_from_reported_totals(p, 0, diag);
  prune(p, g, PruneOptions{.node_threshold_percent = 0, .edge_threshold_percent = 0, .paths = {}});
  auto roots = match_functions(p, g, "*:a");
  ASSERT_EQ(roots, std::vector<FuncId>{1});
  CallGraph limited = g;
  keep_descendants(limited, roots, 0);
  EXPECT_TRUE(limited.nodes[1].kept);
  EXPECT_FALSE(limited.nodes[2].kept);
  keep_descendants(g, roots, -1);
  EXPECT_FALSE(g.nodes[0].kept);
  EXPECT_TRUE(g.nodes[2].kept);
  EXPECT_FALSE(g.nodes[3].kept);
}

TEST(Select, LeafKeepsAncestors) {
  Profile p = small_profile();
  Diagnostics diag;
  CallGraph g = graph_from_reported_totals(p, 0, diag);
  prune(p, g, PruneOptions{.node_threshold_percent = 0, .edge_threshold_percent = 0, .paths = {}});
  keep_ancestors(g, match_functions(p, g, "m:4:c"), -1);
  EXPECT_TRUE(g.nodes[0].kept);
  EXPECT_TRUE(g.nodes[3].kept);
  EXPECT_FALSE(g.nodes[1].kept);
}

TEST(Select, ListsFunctionsLikeGprof2dot) {
  Profile p = small_profile();
  Diagnostics diag;
  CallGraph g = graph_from_reported_totals(p, 0, diag);
  prune(p, g, PruneOptions{});
  EXPECT_EQ(list_functions(p, g, "+"), "0:\tm:1:main,\n1:\tm:2:a,\n2:\tlib:3:b\n");
  EXPECT_EQ(list_functions(p, g, "m:*"), "m:1:main,\nm:2:a\n");
  EXPECT_EQ(list_functions(p, g, "nothing"), "");
}

TEST(Select, DeepChainsNeedNoRecursion) {
  // 100 000 calls deep: breadth-first with a queue, no stack growth.
  Profile p;
  p.events.push_back({p.strings.intern("time"), p.strings.intern("ns"), 1e-9});
  p.reports_totals = true;
  const FuncId n = 100000;
  for (FuncId i = 0; i < n; ++i) {
    Function f;
    f.name = p.strings.intern("f" + std::to_string(i));
    FuncId id = p.add_function(f);
    p.self(id, 0) = 1;
    p.total(id, 0) = n - i;
    if (i) p.inclusive(p.add_call({i - 1, i, 1}), 0) = n - i;
  }
  Diagnostics diag;
  CallGraph g = graph_from_reported_totals(p, 0, diag);
  keep_ancestors(g, {n - 1}, -1);
  EXPECT_TRUE(g.nodes[0].kept);
  keep_descendants(g, {n / 2}, -1);
  EXPECT_FALSE(g.nodes[0].kept);
  EXPECT_TRUE(g.nodes[n - 1].kept);
}

// What an -O2 build calls the functions it split or specialised: the name
// an -O0 build gives them, with callgrind's recursion depth kept.
// The callsite tree holds each path once, numbered as first met, whatever
// the samples share with the one before (the builder follows the last
// sample's path without lookups as far as they agree): against a map of
// every path, on random samples of few functions and processes, with
// recursion, prefixes of the last sample, repeats and empty stacks.
TEST(StackBuilder, EachPathIsOneNodeNumberedAsFirstMet) {
  std::mt19937 rng(11);
  Profile p;
  detail::StackBuilder builder(p, "samples", "");
  std::vector<FuncId> f;
  for (const char* name : {"a", "b", "c", "d"}) f.push_back(builder.function(name, "", false));
  const std::vector<std::string> processes = {"", "one", "two"};
  std::map<std::pair<std::string, std::vector<FuncId>>, std::uint32_t> node_of;  // (process, root first)
  std::vector<std::uint32_t> parent_of = {0};
  std::vector<Cost> cost_of = {0};
  std::vector<FuncId> last;
  for (int i = 0; i < 4000; ++i) {
    std::vector<FuncId> root_first;
    const int kind = static_cast<int>(rng() % 4);
    if (kind == 0 && !last.empty()) {
      root_first.assign(last.begin(), last.begin() + static_cast<long>(rng() % last.size()));  // a prefix
    } else {
      const std::size_t depth = rng() % 7;
      for (std::size_t d = 0; d < depth; ++d) root_first.push_back(f[rng() % f.size()]);
    }
    last = root_first;
    const std::string& process = processes[rng() % processes.size()];
    const Cost weight = 1 + static_cast<Cost>(rng() % 5);
    builder.add_sample(std::vector<FuncId>(root_first.rbegin(), root_first.rend()), weight, weight, process);
    if (root_first.empty()) continue;  // (no stack: nothing added)
    std::uint32_t node = 0;
    auto step = [&](const std::vector<FuncId>& prefix) {
      auto [at, fresh] = node_of.try_emplace({process, prefix}, static_cast<std::uint32_t>(parent_of.size()));
      if (fresh) {
        parent_of.push_back(node);
        cost_of.push_back(0);
      }
      node = at->second;
    };
    if (!process.empty()) step({});
    for (std::size_t d = 1; d <= root_first.size(); ++d)
      step({root_first.begin(), root_first.begin() + static_cast<long>(d)});
    cost_of[node] += weight;
  }
  ASSERT_EQ(p.stack_nodes.size(), parent_of.size());
  for (std::uint32_t n = 1; n < parent_of.size(); ++n) {
    EXPECT_EQ(p.stack_nodes[n].parent, parent_of[n]) << n;
    EXPECT_EQ(p.stack_node_cost[n], cost_of[n]) << n;
  }
  for (const auto& [key, n] : node_of) {
    const StackNode& node = p.stack_nodes[n];
    if (key.second.empty()) {
      EXPECT_EQ(p.str(node.process), key.first);
    } else {
      EXPECT_EQ(node.function, key.second.back());
      EXPECT_EQ(node.process, kNoString);
    }
  }
}

TEST(Pairing, CloneSuffixesAreCut) {
  std::string scratch;
  EXPECT_EQ(clone_base_name("singlematch.part.0.isra.0", scratch), "singlematch");
  EXPECT_EQ(clone_base_name("sweepstep.constprop.0", scratch), "sweepstep");
  EXPECT_EQ(clone_base_name("str_to_mpn.part.0.constprop.0", scratch), "str_to_mpn");
  EXPECT_EQ(clone_base_name("main.cold", scratch), "main");
  EXPECT_EQ(clone_base_name("f.cold.3", scratch), "f");
  EXPECT_EQ(clone_base_name("g.lto_priv.0", scratch), "g");
  EXPECT_EQ(clone_base_name("h.llvm.1234567", scratch), "h");
  EXPECT_EQ(clone_base_name("singlevaraux.part.0'2", scratch), "singlevaraux'2");
  // Nothing to cut: empty, so the caller keeps the name.
  EXPECT_EQ(clone_base_name("luaV_execute", scratch), "");
  EXPECT_EQ(clone_base_name("is_even'2", scratch), "");
  EXPECT_EQ(clone_base_name("a.part.x", scratch), "");  // not a number
  EXPECT_EQ(clone_base_name(".cold", scratch), "");     // nothing before it
  EXPECT_EQ(clone_base_name("x.part.", scratch), "");   // no number
}

// Floating costs merge exactly rounded, in any grouping: a cell's first
// addend is written as it is and its partials are made when a second one
// comes; a merger handing over (graphgen-mpi's shares) gives every cell
// as a partial, a +0.0 included. Python adds 0.0 + -0.0 = 0.0.
TEST(ProfileMerger, FloatingCellsAreExactWhetherOneOrManyAddendsCame) {
  auto profile = [](std::vector<std::pair<const char*, double>> rows) {
    Profile p;
    p.events.push_back({p.strings.intern("time"), p.strings.intern("s"), 1.0, true});
    for (const auto& [name, v] : rows) {
      Function f;
      f.name = p.strings.intern(name);
      FuncId id = p.add_function(f);
      p.self(id, 0) = float_cost(v);
    }
    return p;
  };
  std::vector<Profile> files;
  files.push_back(profile({{"big", 1e16}, {"alone", 0.1}, {"zeros", 0.0}, {"negzero", -0.0}}));
  files.push_back(profile({{"big", 1.0}, {"zeros", -0.0}}));
  files.push_back(profile({{"big", -1e16}, {"late", 0.3}}));
  auto value = [](const Profile& p, const char* name) {
    for (FuncId f = 0; f < p.functions.size(); ++f)
      if (p.str(p.functions[f].name) == name) return cost_float(p.self(f, 0));
    return std::nan("");
  };
  auto expect = [&](const Profile& p) {
    EXPECT_EQ(value(p, "big"), 1.0);  // (1e16 + 1) - 1e16 would be 0
    EXPECT_EQ(value(p, "alone"), 0.1);
    EXPECT_EQ(value(p, "late"), 0.3);
    EXPECT_EQ(value(p, "zeros"), 0.0);
    EXPECT_FALSE(std::signbit(value(p, "zeros")));
    EXPECT_TRUE(std::signbit(value(p, "negzero")));
  };
  Profile one;
  {
    ProfileMerger m(one);
    for (const Profile& f : files) ASSERT_TRUE(m.add(f, "f").has_value());
    m.finish();
  }
  expect(one);
  // The first file through one merger, the rest through another taking its partials.
  Profile shared;
  ProfileMerger::ExactTables partials;
  {
    ProfileMerger first(shared);
    ASSERT_TRUE(first.add(files[0], "f").has_value());
    partials = first.take_exact();
  }
  ProfileMerger rest(shared, std::move(partials), 1, "f");
  for (std::size_t i = 1; i < files.size(); ++i) ASSERT_TRUE(rest.add(files[i], "f").has_value());
  rest.finish();
  expect(shared);
}

// A function's instance shares four bytes with its three flags (a 48-byte
// function): each keeps its value when the others change, a reader's count
// stops at the last number the field holds, and the wire carries them all.
TEST(FunctionRecord, InstanceAndFlagsKeepTheirValuesSideBySide) {
  Profile p;
  Function& f = p.functions.emplace_back();
  f.name = p.strings.intern("init");
  f.instance = kMaxInstance;
  f.has_object = f.python = true;
  EXPECT_EQ(f.instance, kMaxInstance);
  EXPECT_TRUE(f.has_object && f.python && !f.unresolved);
  f.instance = 0;
  f.unresolved = true;
  EXPECT_TRUE(f.has_object && f.python && f.unresolved);
  EXPECT_EQ(f.instance, 0u);

  std::uint32_t count = 0;
  EXPECT_EQ(next_instance(count), 0u);
  EXPECT_EQ(next_instance(count), 1u);
  count = kMaxInstance - 1;
  EXPECT_EQ(next_instance(count), kMaxInstance - 1);
  EXPECT_EQ(next_instance(count), kMaxInstance);
  EXPECT_EQ(next_instance(count), kMaxInstance);  // (not 0: no wrap into another's identity)

  f.instance = kMaxInstance;
  f.unresolved = false;
  wire::Writer w;
  wire::put_profile(w, p);
  const std::string bytes = w.take();
  wire::Reader r(bytes);
  Expected<Profile> back = wire::get_profile(r, "test");
  ASSERT_TRUE(back.has_value());
  ASSERT_EQ(back->functions.size(), 1u);
  const Function& g = back->functions[0];
  EXPECT_EQ(g.instance, kMaxInstance);
  EXPECT_TRUE(g.has_object && g.python && !g.unresolved);
  EXPECT_EQ(back->str(g.name), "init");
}

}  // namespace
}  // namespace graphgen::analysis_test
