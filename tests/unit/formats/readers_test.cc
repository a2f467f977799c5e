// The text readers against real files: callgrind per-function totals equal
// what ../shared/conformance/callgrindcmp.py reads, perf variants of one
// recording give one profile, and the integration survives deep stacks and
// huge cycles.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "callgrind/reader.h"
#include "collapse/reader.h"
#include "graphgen/analysis/integrate.h"
#include "graphgen/analysis/merge.h"
#include "graphgen/labels.h"
#include "perf/reader.h"
#include "util/test_util.h"

namespace graphgen {
namespace {

namespace fs = std::filesystem;

InputFile open_file(const fs::path& p) {
  auto in = InputFile::open(p.string());
  EXPECT_TRUE(in.has_value()) << p;
  return std::move(in).value();
}

// A temporary file holding `text`.
fs::path from_text(const std::string& name, const std::string& text) { return test::write_temp(name, text); }

Profile read_callgrind(const fs::path& p) { return test::read_ok({p}, "callgrind"); }

Expected<Profile> callgrind_text(const std::string& name, const std::string& text) {
  return test::read_profiles({from_text(name, text)}, "callgrind");
}

TEST(CallgrindReader, ReadsEveryEdgeFile) {
  fs::path corpus = test::corpus_dir();
  if (corpus.empty()) GTEST_SKIP() << test::no_corpus_message();
  int n = 0;
  for (const auto& e : fs::directory_iterator(corpus / "edge" / "callgrind")) {
    Profile p = read_callgrind(e.path());
    EXPECT_FALSE(p.events.empty()) << e.path();
    ++n;
  }
  EXPECT_GE(n, 10);
}

// Self cost per function name and event, and call counts per caller/callee
// name, as callgrindcmp.py --dump prints them (it keys functions by file and
// name; graphgen by name and object, so both sides are summed by name).
struct Totals {
  std::map<std::string, std::map<std::string, long long>> self;
  std::map<std::pair<std::string, std::string>, long long> calls;
};

// Reads a Python string literal ('...' or "...", backslash escapes) at i.
std::string py_string(const std::string& s, std::size_t& i) {
  char quote = s[i++];
  std::string out;
  while (i < s.size() && s[i] != quote) {
    if (s[i] == '\\' && i + 1 < s.size()) ++i;
    out += s[i++];
  }
  ++i;
  return out;
}

// "('file', 'name')" at i -> name; i moves past the tuple.
std::string py_name(const std::string& s, std::size_t& i) {
  i = s.find('(', i) + 1;
  py_string(s, i);
  i = s.find_first_of("'\"", i);
  std::string name = py_string(s, i);
  i = s.find(')', i) + 1;
  return name;
}

// {'Ir': 74, 'Dr': 3} at i.
std::map<std::string, long long> py_costs(const std::string& s, std::size_t i) {
  std::map<std::string, long long> m;
  while ((i = s.find_first_of("'\"", i)) != std::string::npos) {
    std::string key = py_string(s, i);
    std::size_t colon = s.find(':', i);
    m[key] = std::stoll(s.substr(colon + 1));
    i = s.find_first_of(",}", colon);
  }
  return m;
}

Totals from_dump(const std::string& dump) {
  Totals t;
  std::istringstream in(dump);
  std::string line;
  while (std::getline(in, line)) {
    std::size_t i = 0;
    if (line.starts_with("fn (")) {
      std::string fn = py_name(line, i);
      for (const auto& [event, cost] : py_costs(line, i)) t.self[fn][event] += cost;
    } else if (line.starts_with("call (")) {
      std::string caller = py_name(line, i);
      std::string callee = py_name(line, i);
      t.calls[{caller, callee}] += std::stoll(line.substr(i + 1));
    }
  }
  return t;
}

Totals from_profile(const Profile& p) {
  Totals t;
  for (FuncId f = 0; f < p.functions.size(); ++f)
    for (std::size_t e = 0; e < p.events.size(); ++e)
      if (p.self(f, e) != 0)
        t.self[std::string(p.str(p.functions[f].name))][std::string(p.str(p.events[e].name))] += p.self(f, e);
  for (const Call& c : p.calls)
    t.calls[{std::string(p.str(p.functions[c.caller].name)), std::string(p.str(p.functions[c.callee].name))}] +=
        c.count;
  return t;
}

TEST(CallgrindReader, PerFunctionTotalsEqualCallgrindcmp) {
  fs::path corpus = test::corpus_dir();
  if (corpus.empty() || test::conformance_dir().empty()) GTEST_SKIP() << test::no_corpus_message();
  for (const char* name :
       {"cg-default", "cg-instr", "cg-nocomp", "cg-cache", "cg-parts", "cg-sepc", "example-callgrind"}) {
    SCOPED_TRACE(name);
    fs::path file = corpus / "edge" / "callgrind" / (std::string(name) + ".callgrind");
    auto dump = test::run({"python3", (test::conformance_dir() / "callgrindcmp.py").string(), "--dump", file.string()});
    ASSERT_EQ(dump.exit_code, 0) << dump.err;
    Totals expected = from_dump(dump.out);
    Totals actual = from_profile(read_callgrind(file));
    // callgrindcmp lists functions with a cost line even when it is 0.
    for (auto it = expected.self.begin(); it != expected.self.end();) {
      for (auto e = it->second.begin(); e != it->second.end();) e = e->second == 0 ? it->second.erase(e) : std::next(e);
      it = it->second.empty() ? expected.self.erase(it) : std::next(it);
    }
    EXPECT_EQ(actual.self, expected.self);
    EXPECT_EQ(actual.calls, expected.calls);
  }
}

TEST(CallgrindReader, DecodesRelativeAndHexSubpositionsIntoLineCosts) {
  auto files = from_text("sub.callgrind",
                         "# callgrind format\nversion: 1\npositions: instr line\nevents: Ir Dr\n"
                         "ob=(1) /bin/prog\nfl=(1) a.c\nfn=(1) f\n0x10 7 3 1\n+2 * 4\n-1 +3 5 2\n"
                         "cfn=(2) g\ncalls=2 0x40 20\n* * 9 9\n* * 1\nfn=(2)\n0x40 20 9 9\n");
  auto p = test::read_profiles({files}, "callgrind");
  ASSERT_TRUE(p.has_value()) << p.error().message;
  ASSERT_EQ(p->functions.size(), 2u);
  EXPECT_EQ(p->self(0, 0), 3 + 4 + 5 + 1);
  EXPECT_EQ(p->self(0, 1), 1 + 0 + 2);
  ASSERT_EQ(p->calls.size(), 1u);
  EXPECT_EQ(p->calls[0].count, 2);
  EXPECT_EQ(p->inclusive(0, 0), 9);
  EXPECT_EQ(p->functions[1].calls, 2);
  std::string module;
  EXPECT_TRUE(module_line(*p, 0, module));
  EXPECT_EQ(module, "prog");
  // Lines: 7 (3+4), 10 (5, relative +3), and the cost line after the call
  // ("* *" keeps line 10) adds 1 to line 10.
  std::map<std::uint32_t, Cost> by_line;
  for (std::size_t i = 0; i < p->line_costs.size(); ++i)
    if (p->line_costs[i].function == 0) by_line[p->line_costs[i].line] += p->line_cost_values[i * 2];
  EXPECT_EQ(by_line, (std::map<std::uint32_t, Cost>{{7, 7}, {10, 6}}));
}

TEST(CallgrindReader, KeepsFunctionsAsTheFileNamesThemAndViewsMergeThem) {
  // malloc of ld.so and of libc; check_match, static in two sources of ld.so.
  std::string text =
      "events: Ir\nob=/lib/ld.so\nfl=a.c\nfn=malloc\n1 10\nfn=check_match\n1 4\nfl=b.c\nfn=check_match\n1 5\n"
      "ob=/lib/libc.so\nfl=m.c\nfn=malloc\n1 20\nfn=main\n1 1\ncob=/lib/ld.so\ncfi=a.c\ncfn=malloc\ncalls=1 1\n1 10\n";
  auto read = [&] {
    auto p = callgrind_text("a.callgrind", text);
    EXPECT_TRUE(p.has_value()) << p.error().message;
    return std::move(p).value();
  };
  EXPECT_EQ(read().functions.size(), 5u);  // as callgrind_annotate and KCacheGrind see them
  Profile twice = merge_functions(merge_functions(read(), FunctionKey::kNameAndObject), FunctionKey::kNameAndObject);
  EXPECT_EQ(twice.functions.size(), 4u);  // merging twice changes nothing
  Profile by_object = merge_functions(read(), FunctionKey::kNameAndObject);
  EXPECT_EQ(by_object.functions.size(), 4u);  // check_match is one function of ld.so
  EXPECT_EQ(by_object.self(1, 0), 9);
  Profile by_name = merge_functions(read(), FunctionKey::kName);
  ASSERT_EQ(by_name.functions.size(), 3u);  // gprof2dot's identity also merges the two mallocs
  EXPECT_EQ(by_name.self(0, 0), 30);
  EXPECT_EQ(by_name.functions[0].calls, 1);
  ASSERT_EQ(by_name.calls.size(), 1u);
  EXPECT_EQ(by_name.inclusive(0, 0), 10);
}

TEST(CallgrindReader, SeveralFilesReadInParallelSumLikeOneFileOfSeveralParts) {
  fs::path parity = test::testdata_dir() / "callgrind" / "parity.callgrind";
  std::string text = test::read_file(parity);
  auto parallel = test::read_profiles({parity, parity}, "callgrind");
  auto one = callgrind_text("both.callgrind", text + text);  // two parts, one file
  ASSERT_TRUE(parallel.has_value() && one.has_value());
  ASSERT_EQ(parallel->functions.size(), one->functions.size());
  for (FuncId f = 0; f < one->functions.size(); ++f) {
    EXPECT_EQ(parallel->str(parallel->functions[f].name), one->str(one->functions[f].name));
    EXPECT_EQ(parallel->self(f, 0), one->self(f, 0));
    EXPECT_EQ(parallel->functions[f].calls, one->functions[f].calls);
  }
  ASSERT_EQ(parallel->calls.size(), one->calls.size());
  for (CallId c = 0; c < one->calls.size(); ++c) EXPECT_EQ(parallel->inclusive(c, 0), one->inclusive(c, 0));
  ASSERT_EQ(parallel->line_costs.size(), one->line_costs.size());
  EXPECT_EQ(parallel->line_cost_values, one->line_cost_values);
  Profile single = read_callgrind(parity);
  EXPECT_EQ(parallel->self(0, 0), 2 * single.self(0, 0));
}

TEST(CallgrindReader, RefusesToSumFilesWithDifferentEvents) {
  fs::path ir = from_text("ir.callgrind", "events: Ir\nfn=f\n1 1\n");
  fs::path dr = from_text("dr.callgrind", "events: Ir Dr\nfn=f\n1 1\n");
  auto p = test::read_profiles({ir, dr}, "callgrind");
  ASSERT_FALSE(p.has_value());
  // Both lists are named.
  EXPECT_EQ(p.error().message, dr.string() + ": expected the events of " + ir.string() +
                                   " (Ir), found 'Ir Dr' (profiles with different events cannot be summed)");
}

TEST(CallgrindReader, RejectsMalformedLinesWithPositions) {
  struct Bad {
    const char* text;
    const char* message;
  };
  for (const Bad& b : std::vector<Bad>{
           {"events: Ir\nfn=f\n1 x\n", "3:3: expected an unsigned integer cost, found 'x'"},
           {"events: Ir\nfn=f\n1 2 3\n", "3:5: expected at most 1 cost(s), one per event, found more: '3'"},
           {"events: Ir\nfn=f\n?? 2\n",
            "3:1: expected a cost line, a name spec such as 'fn=...', 'calls=' or 'key: value', found '?? 2'"},
           {"events: Ir\n1 2\n", "2:1: expected 'fn=' before the first cost line, found none"},
           {"fn=f\n1 2\n", "2:1: expected an 'events:' line before the first cost line, found none"},
           {"events: Ir\nfn=f\ncfn=g\ncalls=x 1\n", "4:7: expected 'calls=<count> <target position>', found 'x 1'"},
           {"events: Ir\nfn=f\ncfn=g\ncalls=1 1\n",
            "5:1: expected the cost line of the call after 'calls=', found the end of the file"},
           {"events: Ir\npositions: line\nfn=f\n+x 1\n", "4:1: expected a position (N, 0xN, +N, -N or *), found '+x'"},
           {"version: 2\n", "1:10: expected format version 1, found '2'"},
       }) {
    auto p = callgrind_text("bad.callgrind", b.text);
    ASSERT_FALSE(p.has_value()) << b.text;
    std::string msg = p.error().message;
    EXPECT_EQ(msg.substr(msg.find("bad.callgrind:") + 14), b.message);
  }
}

Profile read_perf(const fs::path& p, const formats::ReadOptions& o = {}, std::size_t split_above = perf::kSplitAbove) {
  Diagnostics d;
  InputFile in = open_file(p);
  auto prof = perf::read(in, o, d, split_above);
  EXPECT_TRUE(prof.has_value()) << (prof ? "" : prof.error().message);
  return prof ? std::move(prof).value() : Profile();
}

// Functions (name, object) with self and stack totals.
std::map<std::string, std::pair<Cost, Cost>> shape(const Profile& p) {
  std::map<std::string, std::pair<Cost, Cost>> m;
  for (FuncId f = 0; f < p.functions.size(); ++f)
    m[std::string(p.str(p.functions[f].name)) + "|" + std::string(p.str(p.functions[f].object))] = {
        p.self(f, 0), p.stack_inclusive(f, 0)};
  return m;
}

TEST(PerfReader, EveryScriptVariantOfOneRecordingGivesOneProfile) {
  // One recording printed with -F +pid, --header, -F without period and
  // symoff, and -F +srcline: the same samples, so the same profile.
  fs::path dir = test::testdata_dir() / "perf";
  Profile reference = read_perf(dir / "q-g.perf");
  EXPECT_GT(reference.functions.size(), 5u);
  for (const char* v : {"q-pid.perf", "q-header.perf", "q-noperiod.perf", "q-srcline.perf"}) {
    SCOPED_TRACE(v);
    Profile p = read_perf(dir / v);
    EXPECT_EQ(shape(p), shape(reference));
    EXPECT_EQ(p.calls.size(), reference.calls.size());
  }
}

TEST(PerfReader, SplitReadOnTwoCoresEqualsTheWholeRead) {
  fs::path file = test::testdata_dir() / "perf" / "q-g.perf";
  Profile a = read_perf(file, {}, SIZE_MAX);
  Profile b = read_perf(file, {}, 1024);
  ASSERT_EQ(a.functions.size(), b.functions.size());
  for (FuncId f = 0; f < a.functions.size(); ++f) {  // same order, not just the same set
    EXPECT_EQ(a.str(a.functions[f].name), b.str(b.functions[f].name));
    EXPECT_EQ(a.self(f, 0), b.self(f, 0));
    EXPECT_EQ(a.stack_inclusive(f, 0), b.stack_inclusive(f, 0));
  }
  ASSERT_EQ(a.calls.size(), b.calls.size());
  for (CallId c = 0; c < a.calls.size(); ++c) {
    EXPECT_EQ(a.calls[c].caller, b.calls[c].caller);
    EXPECT_EQ(a.calls[c].callee, b.calls[c].callee);
    EXPECT_EQ(a.inclusive(c, 0), b.inclusive(c, 0));
  }
  ASSERT_EQ(a.stack_nodes.size(), b.stack_nodes.size());
  for (std::size_t n = 0; n < a.stack_nodes.size(); ++n) {
    EXPECT_EQ(a.stack_nodes[n].parent, b.stack_nodes[n].parent);
    EXPECT_EQ(a.stack_node_cost[n], b.stack_node_cost[n]);
  }
}

TEST(PerfReader, ErrorsInALaterPartCountLinesFromTheFileStart) {
  std::string text = test::read_file(test::testdata_dir() / "perf" / "q-g.perf");
  std::size_t lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
  InputFile in = open_file(from_text("late.perf", text + "garbage line\n"));
  Diagnostics d;
  auto p = perf::read(in, {}, d, 1024);
  ASSERT_FALSE(p.has_value());
  EXPECT_NE(p.error().message.find("late.perf:" + std::to_string(lines + 1) + ":1: expected a sample header"),
            std::string::npos)
      << p.error().message;
}

TEST(PerfReader, ReadsHeadersFromTheRight) {
  fs::path dir = test::testdata_dir() / "perf";
  Profile p = read_perf(dir / "q-g.perf");
  // "my worker" (a comm with a space) ran spin; "q" (one character) ran is_even/is_odd.
  std::set<std::string> labels;
  for (const Function& f : p.functions) labels.insert(std::string(p.str(f.name)));
  EXPECT_TRUE(labels.count("worker"));   // sampled in the thread "my worker"
  EXPECT_TRUE(labels.count("is_even"));  // sampled in "q"
  EXPECT_TRUE(labels.count("start_thread"));
}

TEST(PerfReader, WithoutCallchainsEachSampleIsOneFrame) {
  Profile p = read_perf(test::testdata_dir() / "perf" / "q-nog.perf");
  EXPECT_TRUE(p.calls.empty());
  Cost samples = 0;
  for (FuncId f = 0; f < p.functions.size(); ++f) samples += p.self(f, 0);
  std::string text = test::read_file(test::testdata_dir() / "perf" / "q-nog.perf");
  EXPECT_EQ(samples, static_cast<Cost>(std::count(text.begin(), text.end(), '\n')));
}

TEST(PerfReader, WeighsByPeriodAndFiltersEvents) {
  fs::path file = test::testdata_dir() / "perf" / "q-events.perf";
  formats::ReadOptions all;
  Profile mixed = read_perf(file, all);
  formats::ReadOptions cpu;
  cpu.event = "cpu-clock/period=5000000/";
  Profile only_cpu = read_perf(file, cpu);
  formats::ReadOptions faults;
  faults.event = "page-faults/period=50/";
  Profile only_faults = read_perf(file, faults);
  auto total = [](const Profile& p) {
    Cost t = 0;
    for (FuncId f = 0; f < p.functions.size(); ++f) t += p.self(f, 0);
    return t;
  };
  // Without --event, the first sample's event (page faults here), as
  // stackcollapse-perf.pl keeps it; never cycles and faults summed.
  EXPECT_EQ(total(mixed), total(only_faults));
  EXPECT_EQ(total(only_faults), 2);
  EXPECT_EQ(total(only_cpu), 57);
  Diagnostics warned;
  InputFile events = open_file(file);
  ASSERT_TRUE(perf::read(events, all, warned).has_value());
  ASSERT_EQ(warned.warnings().size(), 1u);
  EXPECT_EQ(warned.warnings()[0],
            file.string() +
                ": samples of 2 events (cpu-clock/period=5000000/, page-faults/period=50/): only the first event's "
                "are kept, page-faults/period=50/ (57 other samples left out, as stackcollapse-perf.pl does); pick "
                "another with --event");
  cpu.weight_by_period = true;
  EXPECT_EQ(total(read_perf(file, cpu)), total(only_cpu) * 5000000);
  formats::ReadOptions none;
  none.event = "cycles";
  Diagnostics d;
  InputFile in = open_file(file);
  auto missing = perf::read(in, none, d);
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().kind, Error::Kind::kBadUsage);
  EXPECT_NE(missing.error().message.find("no samples of event 'cycles'; the file has cpu-clock/period=5000000/, "
                                         "page-faults/period=50/"),  // sorted
            std::string::npos)
      << missing.error().message;
}

TEST(PerfReader, ReadsEveryEdgeFile) {
  fs::path corpus = test::corpus_dir();
  if (corpus.empty()) GTEST_SKIP() << test::no_corpus_message();
  Profile reference = read_perf(corpus / "edge" / "perf" / "q-default.perf");
  for (const auto& e : fs::directory_iterator(corpus / "edge" / "perf")) {
    Profile p = read_perf(e.path());
    EXPECT_GT(p.functions.size(), 0u) << e.path();
  }
  // q-pid is q-default printed with -F +pid: the same samples.
  EXPECT_EQ(shape(read_perf(corpus / "edge" / "perf" / "q-pid.perf")), shape(reference));
}

TEST(PerfReader, RejectsWhatIsNotPerfScript) {
  auto p =
      test::read_profiles({from_text("x.perf", "q 1 2.5: 1 cpu-clock: \n\t 12 f (/bin/x)\nnot a header\n")}, "perf");
  ASSERT_FALSE(p.has_value());
  EXPECT_NE(p.error().message.find("x.perf:3:1: expected a sample header 'comm pid [time:] [period] event:', found "
                                   "'not a header'"),
            std::string::npos)
      << p.error().message;
}

TEST(CollapseReader, ReadsLocatedFramesAsFileAndName) {
  auto p = test::read_profiles({from_text("s.collapse",
                                          "main (app.py:3);work (lib/w.py:10) 5\nmain (app.py:3) 2\n"
                                          "main (app.py:9);a;b 1\n")},
                               "collapse");
  ASSERT_TRUE(p.has_value()) << p.error().message;
  ASSERT_EQ(p->functions.size(), 4u);  // main is one function whatever its line
  EXPECT_EQ(function_label(*p, 0), "main");
  std::string module;
  EXPECT_TRUE(module_line(*p, 0, module));
  EXPECT_EQ(module, "app.py");
  EXPECT_EQ(p->self(0, 0), 2);
  EXPECT_EQ(p->stack_inclusive(0, 0), 8);
  EXPECT_TRUE(module_line(*p, 1, module));
  EXPECT_EQ(module, "lib/w.py");
  EXPECT_FALSE(module_line(*p, 2, module));
}

TEST(CollapseReader, SeveralFilesSum) {
  auto p = test::read_profiles(
      {from_text("a.collapse", "main;f 2\nmain;g 1\n"), from_text("b.collapse", "main;g 4\nmain;h 8\n")}, "collapse");
  ASSERT_TRUE(p.has_value()) << p.error().message;
  ASSERT_EQ(p->functions.size(), 4u);  // main f g h, in order of first appearance
  EXPECT_EQ(function_label(*p, 3), "h");
  EXPECT_EQ(p->self(2, 0), 5);
  EXPECT_EQ(p->stack_inclusive(0, 0), 15);
}

TEST(CollapseReader, RejectsNonIntegerCounts) {
  Diagnostics d;
  auto p = test::read_profiles({from_text("c.collapse", "a;b 1\na;c 2.5\n")}, "collapse");
  ASSERT_FALSE(p.has_value());
  EXPECT_NE(p.error().message.find("c.collapse:2:5: expected an integer sample count, found '2.5'"), std::string::npos)
      << p.error().message;
}

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

TEST(Integration, HugeRecursiveCycleIsSharedOutPerEntry) {
  // 300 functions that all call each other under main: one cycle entered
  // at every member. Member totals sum to the cycle's share of the profile.
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
  Diagnostics d;
  auto p = test::read_profiles({from_text("cycle.collapse", text)}, "collapse");
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

}  // namespace
}  // namespace graphgen
