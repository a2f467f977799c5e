// Call-ratio integration on stacks and cycles no test profile has: cycles
// without outside callers, 100 000-frame stacks without recursion, huge
// recursive cycles shared out per entry.
#include "graphgen/analysis/integrate.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "graphgen/analysis/merge.h"
#include "graphgen/labels.h"
#include "util/test_util.h"

namespace graphgen::integrate_test {
namespace {

namespace fs = std::filesystem;

// A temporary file holding `text`.
fs::path from_text(const std::string& name, const std::string& text) { return test::write_temp(name, text); }

TEST(Integration, CycleWithoutOutsideCallerStaysAtZero) {
  // gprof2dot's documented example: a;b;a;b 10 and a;c 5 give a = b = 0 %.
  Diagnostics d;
  auto p = test::read_profiles({from_text("cyc.collapse", "a;b;a;b 10\na;c 5\n")}, "collapse");
  ASSERT_TRUE(p.has_value());
  CallGraph g = graph_from_call_ratios(*p, 0, d);
  EXPECT_DOUBLE_EQ(*g.nodes[0].total_ratio, 0.0);
  EXPECT_DOUBLE_EQ(*g.nodes[1].total_ratio, 0.0);
}

TEST(Integration, HundredThousandFrameStacksNeedNoRecursion) {
  std::string line;
  for (int i = 0; i < 100000; ++i) line += (i ? ";f" : "f") + std::to_string(i);
  line += " 7\n";
  Diagnostics d;
  auto p = test::read_profiles({from_text("deep.collapse", line + "f0;f1;x 3\n")}, "collapse");
  ASSERT_TRUE(p.has_value());
  CallGraph g = graph_from_call_ratios(*p, 0, d);
  EXPECT_DOUBLE_EQ(*g.nodes[0].total_ratio, 1.0);
  EXPECT_NEAR(*g.nodes[99999].total_ratio, 0.7, 1e-12);
  CallGraph s = graph_from_call_stacks(*p, 0, d);
  EXPECT_NEAR(*s.nodes[50000].total_ratio, 0.7, 1e-12);
}

// Giving the calls back while the graph is made changes no bit of it, only
// when its memory is free: the edges are made before the calls go.
TEST(Integration, CallStackGraphReleasingTheCallsIsTheSameGraph) {
  Diagnostics d;
  auto p = test::read_profiles(
      {from_text("rel.collapse", "main;a;b 7\nmain;a;c;b 3\nmain;c 5\nmain;a;a;b 2\nmain;d;a;d 4\nmain 1\n")},
      "collapse");
  ASSERT_TRUE(p.has_value());
  ASSERT_TRUE(p->keeps_stack_totals);
  const CallGraph kept = graph_from_call_stacks(*p, 0, d);
  const std::size_t calls = p->calls.size();
  const CallGraph released = graph_from_call_stacks(*p, 0, d, &*p);
  EXPECT_TRUE(p->calls.empty());
  EXPECT_TRUE(p->call_cost.empty());
  EXPECT_EQ(p->calls.capacity(), 0u);
  auto bits = [](MaybeDouble v) { return v ? std::bit_cast<std::uint64_t>(*v) : std::uint64_t{1}; };
  ASSERT_EQ(released.nodes.size(), kept.nodes.size());
  for (std::size_t f = 0; f < kept.nodes.size(); ++f) {
    SCOPED_TRACE(f);
    EXPECT_EQ(bits(released.nodes[f].self_ratio), bits(kept.nodes[f].self_ratio));
    EXPECT_EQ(bits(released.nodes[f].total_ratio), bits(kept.nodes[f].total_ratio));
    EXPECT_EQ(released.nodes[f].samples, kept.nodes[f].samples);
    EXPECT_EQ(released.nodes[f].called, kept.nodes[f].called);
  }
  ASSERT_EQ(kept.edges.size(), calls);
  ASSERT_EQ(released.edges.size(), calls);
  for (std::size_t i = 0; i < calls; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(released.edges[i].caller, kept.edges[i].caller);
    EXPECT_EQ(released.edges[i].callee, kept.edges[i].callee);
    EXPECT_EQ(released.edges[i].calls, kept.edges[i].calls);
    EXPECT_EQ(bits(released.edges[i].total_ratio), bits(kept.edges[i].total_ratio));
  }
  EXPECT_EQ(released.edge_begin, kept.edge_begin);
  EXPECT_EQ(bits(released.whole), bits(kept.whole));
}

// 300 functions that all call each other under main, in random stacks:
// one cycle entered at every member.
std::string dense_cycle() {
  std::string text;
  std::uint64_t x = 12345;
  for (int s = 0; s < 3000; ++s) {
    text += "main";
    int depth = 5 + static_cast<int>(x % 20);
    for (int k = 0; k < depth; ++k) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      text += ";f" + std::to_string((x >> 33) % 300);
    }
    text += " 1\n";
  }
  return text;
}

TEST(Integration, HugeRecursiveCycleIsSharedOutPerEntry) {
  // Member totals sum to the cycle's share of the profile.
  Diagnostics d;
  auto p = test::read_profiles({from_text("cycle.collapse", dense_cycle())}, "collapse");
  ASSERT_TRUE(p.has_value());
  Adjacency adj = Adjacency::build(*p);
  Cycles cycles = find_cycles(*p, adj);
  ASSERT_EQ(cycles.members.size(), 1u);
  EXPECT_EQ(cycles.members[0].size(), 300u);
  CallGraph g = graph_from_call_ratios(*p, 0, d);
  EXPECT_DOUBLE_EQ(*g.nodes[0].total_ratio, 1.0);  // main (no self time) holds the whole cycle
  // Member totals are inclusive (they overlap, as gprof2dot's do): each lies
  // between its own self share and the whole profile, and every member is
  // entered from main, so none stays at zero.
  for (FuncId f : cycles.members[0]) {
    EXPECT_GE(*g.nodes[f].total_ratio, *g.nodes[f].self_ratio - 1e-12);
    EXPECT_LE(*g.nodes[f].total_ratio, 1.0 + 1e-12);
    EXPECT_GT(*g.nodes[f].total_ratio, 0.0);
  }
  // Calls from main carry the entry shares of the cycle's total: they sum to it.
  double from_main = 0;
  for (std::uint32_t e = g.edge_begin[0]; e < g.edge_begin[1]; ++e) from_main += *g.edges[e].total_ratio;
  EXPECT_NEAR(from_main, 1.0, 1e-9);
}

TEST(Integration, ACycleSummedWithTwoThreadsGivesTheSameBits) {
  // The entry walks ranked ahead by a second thread are summed in the same
  // order as on one: every total, of members and of calls, to the bit.
  Diagnostics d;
  auto p = test::read_profiles({from_text("cycle2.collapse", dense_cycle())}, "collapse");
  ASSERT_TRUE(p.has_value());
  RatioRule one, two;
  one.two_cores_above = SIZE_MAX;
  two.two_cores_above = 0;
  one.graph_two_cores_above = SIZE_MAX;  // (and the base graph set up on another thread)
  two.graph_two_cores_above = 0;
  CallGraph a = graph_from_call_ratios(*p, 0, d, one), b = graph_from_call_ratios(*p, 0, d, two);
  ASSERT_EQ(a.nodes.size(), b.nodes.size());
  ASSERT_EQ(a.edges.size(), b.edges.size());
  std::size_t differ = 0, calls_with_totals = 0;
  for (std::size_t f = 0; f < a.nodes.size(); ++f) {
    differ += *a.nodes[f].total_ratio != *b.nodes[f].total_ratio;
    differ += a.nodes[f].self_ratio != b.nodes[f].self_ratio || a.nodes[f].samples != b.nodes[f].samples ||
              a.nodes[f].has_samples != b.nodes[f].has_samples;
  }
  EXPECT_EQ(a.whole, b.whole);
  for (std::size_t e = 0; e < a.edges.size(); ++e) {
    ASSERT_EQ(a.edges[e].total_ratio.has_value(), b.edges[e].total_ratio.has_value()) << e;
    if (!a.edges[e].total_ratio) continue;
    ++calls_with_totals;
    differ += *a.edges[e].total_ratio != *b.edges[e].total_ratio;
  }
  EXPECT_EQ(differ, 0u);
  EXPECT_GT(calls_with_totals, 10000u);  // the cycle's calls were walked
}

// A cycle whose walks take long is announced before they start, with the
// way out for sampled stacks; the totals do not change.
TEST(Integration, ALongCycleIsAnnouncedBeforeItsWalks) {
  auto p = test::read_profiles({from_text("cycle3.collapse", dense_cycle())}, "collapse");
  ASSERT_TRUE(p.has_value());
  Adjacency adj = Adjacency::build(*p);
  Cycles cycles = find_cycles(*p, adj);
  ASSERT_EQ(cycles.members.size(), 1u);
  RatioRule quiet, told;
  told.long_cycle_above = 1000;
  Diagnostics d1, d2;
  CallGraph a = graph_from_call_ratios(*p, 0, d1, quiet), b = graph_from_call_ratios(*p, 0, d2, told);
  EXPECT_TRUE(d1.warnings().empty());
  ASSERT_EQ(d2.warnings().size(), 1u);
  EXPECT_NE(d2.warnings()[0].find("the call graph has a cycle of 300 functions and "), std::string::npos)
      << d2.warnings()[0];
  EXPECT_NE(d2.warnings()[0].find("; --total callstacks takes the totals from the sample stacks at once"),
            std::string::npos)
      << d2.warnings()[0];
  ASSERT_EQ(a.nodes.size(), b.nodes.size());
  for (std::size_t f = 0; f < a.nodes.size(); ++f) EXPECT_EQ(*a.nodes[f].total_ratio, *b.nodes[f].total_ratio);
}

// A cycle's walks tell the progress function how far they are, from its
// delay on (0: after the first walk), and that they are done; before the
// delay nothing; the totals do not change.
TEST(Integration, ACycleWalkTellsItsProgress) {
  auto p = test::read_profiles({from_text("cycle4.collapse", dense_cycle())}, "collapse");
  ASSERT_TRUE(p.has_value());
  Diagnostics d;
  const CallGraph plain = graph_from_call_ratios(*p, 0, d);
  struct Call {
    double seconds;
    std::size_t walked, entries, members;
  };
  std::vector<Call> calls;
  auto record = [&](double s, std::size_t w, std::size_t e, std::size_t m) { calls.push_back({s, w, e, m}); };
  struct Reset {
    ~Reset() { set_cycle_progress({}, std::chrono::milliseconds(2000)); }
  } reset;
  for (std::size_t two_cores_above : {std::size_t{0}, SIZE_MAX}) {
    SCOPED_TRACE(two_cores_above);
    RatioRule rule;
    rule.two_cores_above = two_cores_above;
    calls.clear();
    set_cycle_progress(record, std::chrono::milliseconds(0));
    const CallGraph told = graph_from_call_ratios(*p, 0, d, rule);
    ASSERT_GE(calls.size(), 2u);
    // Every member of the cycle is entered from main: 300 walks.
    EXPECT_EQ(calls.front().walked, 1u);
    EXPECT_EQ(calls.front().entries, 300u);
    EXPECT_EQ(calls.front().members, 300u);
    EXPECT_GE(calls.front().seconds, 0.0);
    EXPECT_LT(calls.back().seconds, 0.0);
    for (std::size_t i = 1; i + 1 < calls.size(); ++i) EXPECT_GT(calls[i].walked, calls[i - 1].walked);
    for (std::size_t f = 0; f < plain.nodes.size(); ++f)
      EXPECT_EQ(*told.nodes[f].total_ratio, *plain.nodes[f].total_ratio);
    calls.clear();
    set_cycle_progress(record, std::chrono::hours(1));
    graph_from_call_ratios(*p, 0, d, rule);
    EXPECT_TRUE(calls.empty());
  }
}

}  // namespace
}  // namespace graphgen::integrate_test
