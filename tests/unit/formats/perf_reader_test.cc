// The perf script reader: every variant of one recording gives one profile, the
// two-core read equals the whole read, headers read from the right, events and
// periods.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "fuzz/fuzz.h"
#include "graphgen/analysis/merge.h"
#include "graphgen/labels.h"
#include "perf/reader.h"
#include "util/test_util.h"

namespace graphgen::perf_reader_test {
namespace {

namespace fs = std::filesystem;

InputFile open_file(const fs::path& p) {
  auto in = InputFile::open(p.string());
  EXPECT_TRUE(in.has_value()) << p;
  return std::move(in).value();
}

// A temporary file holding `text`.
fs::path from_text(const std::string& name, const std::string& text) { return test::write_temp(name, text); }

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

// The columns `-F +misc,+tod` add and the side-band records
// `--show-task-events --show-mmap-events` add (testdata/perf/real/make4.sh)
// change nothing, on one core or two, and the time of day does not hide
// the time a timeline takes.
TEST(PerfReader, ExtraColumnsAndSideBandRecordsGiveThePlainProfile) {
  fs::path real = test::testdata_dir() / "perf" / "real";
  formats::ReadOptions timed;
  timed.keep_timeline = true;
  auto read_xz = [&](const char* name, std::size_t split_above) {
    InputFile in = InputFile::from_bytes(name, test::unxz(real / name));
    Diagnostics d;
    auto prof = perf::read(in, timed, d, split_above);
    EXPECT_TRUE(prof.has_value()) << (prof ? "" : prof.error().message);
    EXPECT_TRUE(d.warnings().empty()) << d.warnings()[0];
    return prof ? std::move(prof).value() : Profile();
  };
  Profile plain = read_xz("columns.perf.xz", perf::kSplitAbove);
  ASSERT_GT(plain.functions.size(), 20u);
  for (const char* v : {"columns-misc-tod.perf.xz", "columns-side-band.perf.xz"})
    for (std::size_t split_above : {perf::kSplitAbove, std::size_t{4096}}) {
      SCOPED_TRACE(std::string(v) + " split above " + std::to_string(split_above));
      Profile p = read_xz(v, split_above);
      EXPECT_EQ(shape(p), shape(plain));
      EXPECT_EQ(p.calls.size(), plain.calls.size());
      EXPECT_EQ(p.timeline.size(), plain.timeline.size());
      if (!p.timeline.empty() && !plain.timeline.empty()) {
        EXPECT_EQ(p.timeline.front().start, plain.timeline.front().start);
        EXPECT_EQ(p.timeline.back().start, plain.timeline.back().start);
      }
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

// Self and stack totals by function name.
std::map<std::string, std::pair<Cost, Cost>> by_name(const Profile& p) {
  std::map<std::string, std::pair<Cost, Cost>> m;
  for (FuncId f = 0; f < p.functions.size(); ++f) {
    auto& v = m[std::string(p.str(p.functions[f].name))];
    v.first += p.self(f, 0);
    v.second += p.stack_inclusive(f, 0);
  }
  return m;
}

// perf script ends every line with a newline: a file cut inside a line (perf
// script killed, a full disk, `head -c`) is read up to its last whole sample,
// with a warning naming the line, where the header cut in two failed the read
// and a frame cut in two (`7f12 main+0x1 (/usr/bi`) was taken for a symbol.
TEST(PerfReader, AFileCutInsideALineLeavesOutTheSampleCut) {
  auto lines_before = [](const std::string& t, std::size_t at) {
    return std::to_string(std::count(t.begin(), t.begin() + static_cast<std::ptrdiff_t>(at), '\n') + 1);
  };
  struct Case {
    const char* file;
    std::size_t cut, kept;  // where the file is cut; how much of it the reader should read
    std::string says;
  };
  std::vector<Case> cases;
  {
    // With call chains: inside the last sample's second frame (its DSO's
    // parenthesis open), and inside its header.
    const std::string t = test::read_file(test::testdata_dir() / "perf" / "q-g.perf");
    const std::size_t last = t.rfind("\n\n", t.size() - 3) + 2;
    const std::size_t frame = t.find("\n\t", t.find('\n', last) + 1) + 1;
    const std::size_t cut = t.find(" (", frame) + 5;
    ASSERT_LT(cut, t.find('\n', frame));
    cases.push_back({"q-g.perf", cut, last,
                     ":" + lines_before(t, frame) + ":" + std::to_string(cut - frame + 1) +
                         ": the file ends inside this line (no newline at its end: perf script's output cut "
                         "short); its sample, from line " +
                         lines_before(t, last) + ", was left out"});
    cases.push_back({"q-g.perf", last + 8, last, ":" + lines_before(t, last) + ":9: the file ends inside this line"});
  }
  {
    // Without: a sample is one line, its header padded with spaces.
    const std::string t = test::read_file(test::testdata_dir() / "perf" / "q-nog.perf");
    const std::size_t last = t.rfind('\n', t.size() - 2) + 1;
    ASSERT_EQ(t[last], ' ');
    cases.push_back({"q-nog.perf", t.size() - 20, last,
                     ":" + lines_before(t, last) + ":" + std::to_string(t.size() - 20 - last + 1) +
                         ": the file ends inside this line (no newline at its end: perf script's output cut "
                         "short); the line was left out"});
  }
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.file) + " cut at " + std::to_string(c.cut));
    const std::string t = test::read_file(test::testdata_dir() / "perf" / c.file);
    InputFile cut = open_file(from_text("cut.perf", t.substr(0, c.cut)));
    Diagnostics d;
    auto p = perf::read(cut, {}, d);
    ASSERT_TRUE(p.has_value()) << p.error().message;
    ASSERT_EQ(d.warnings().size(), 1u);
    EXPECT_NE(d.warnings()[0].find("cut.perf" + c.says), std::string::npos) << d.warnings()[0];
    Profile whole = read_perf(from_text("whole.perf", t.substr(0, c.kept)));
    EXPECT_EQ(by_name(*p), by_name(whole));
    EXPECT_EQ(p->calls.size(), whole.calls.size());
    EXPECT_EQ(p->stack_nodes.size(), whole.stack_nodes.size());
  }
}

TEST(PerfReader, RepeatedStacksAreLookedUpWholeAndCountAsParsed) {
  // Stacks seen before are found by their bytes, not parsed again: the same
  // totals as the same samples collapsed, whether a stack's first sample
  // ended with an empty line or ran into the next header, with source
  // lines between frames, and errors after them still name their line.
  const std::string a = "\t1 leaf_a+0x1 (/bin/p)\n\t2 mid+0x2 (/bin/p)\n\t3 main+0x3 (/bin/p)\n";
  const std::string b = "\t4 leaf_b+0x4 (/bin/p)\n\t3 main+0x3 (/bin/p)\n";
  const std::string src = "\t1 leaf_a+0x1 (/bin/p)\n  p.c:10\n\t2 mid+0x2 (/bin/p)\n\t3 main+0x3 (/bin/p)\n";
  auto header = [](int i) { return "p 7 " + std::to_string(100 + i) + ".5: 1 cycles: \n"; };
  std::string text, folded;
  int i = 0;
  text += header(i++) + a;  // into the next header, no empty line
  for (int k = 0; k < 30; ++k) {
    text += header(i++) + (k % 3 == 1 ? b : k % 3 == 2 ? src : a) + "\n";
    text += header(i++) + a + "\n";
  }
  std::map<std::string, std::pair<Cost, Cost>> expected;
  auto count = [&](const std::vector<std::string>& stack) {
    expected[stack.front()].first += 1;
    for (const std::string& f : std::set<std::string>(stack.begin(), stack.end())) expected[f].second += 1;
  };
  count({"leaf_a", "mid", "main"});
  for (int k = 0; k < 30; ++k) {
    if (k % 3 == 1)
      count({"leaf_b", "main"});
    else
      count({"leaf_a", "mid", "main"});
    count({"leaf_a", "mid", "main"});
  }
  Profile p = read_perf(from_text("repeat.perf", text), {}, SIZE_MAX);
  EXPECT_EQ(by_name(p), expected);
  // Calls and the callsite tree (a replayed sample adds to the cells its
  // stack's first sample added to): as many samples as lines of the stack.
  std::map<std::pair<std::string, std::string>, Cost> calls;
  for (CallId c = 0; c < p.calls.size(); ++c)
    calls[{std::string(p.str(p.functions[p.calls[c].caller].name)),
           std::string(p.str(p.functions[p.calls[c].callee].name))}] += p.inclusive(c, 0);
  const Cost a_samples = expected["leaf_a"].first, b_samples = expected["leaf_b"].first;
  EXPECT_EQ(calls, (std::map<std::pair<std::string, std::string>, Cost>{
                       {{"main", "mid"}, a_samples}, {{"mid", "leaf_a"}, a_samples}, {{"main", "leaf_b"}, b_samples}}));
  Cost tree = 0;
  for (Cost c : p.stack_node_cost) tree += c;
  EXPECT_EQ(tree, a_samples + b_samples);
  // A bad frame after the repeated samples: its own line number.
  std::size_t lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
  InputFile in = open_file(from_text("repeat-bad.perf", text + header(i) + a + "\tnot a frame\n\n"));
  Diagnostics d;
  auto bad = perf::read(in, {}, d, SIZE_MAX);
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message.find("repeat-bad.perf:" + std::to_string(lines + 5) + ":2: expected a frame"),
            std::string::npos)
      << bad.error().message;
}

TEST(PerfReader, RepeatedStacksOfTwoProcessesStayApart) {
  // The same frame lines, byte for byte, in samples of two commands taking
  // turns unevenly: a stack looked up whole adds to its own command's
  // cells, not to those of the command its first sample had.
  const std::string frames = "\t1 leaf+0x1 (/bin/p)\n\t2 mid+0x2 (/bin/p)\n\t3 main+0x3 (/bin/p)\n\n";
  std::string text;
  int p_samples = 0, q_samples = 0;
  for (int i = 0; i < 60; ++i) {
    const bool q = i % 3 == 1 || i % 7 == 0;
    (q ? q_samples : p_samples) += 1;
    text += std::string(q ? "qq 8" : "p 7") + " " + std::to_string(100 + i) + ".5: 1 cycles: \n" + frames;
  }
  auto r = test::run({GRAPHGEN_BINARY, "-q", "-T", "folded", from_text("two.perf", text).string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "p;main;mid;leaf " + std::to_string(p_samples) + "\nqq;main;mid;leaf " + std::to_string(q_samples) + "\n");
}

TEST(PerfReader, KeptStacksStayWithinAnEighthOfTheInput) {
  // 300 000 samples whose one frame differs in its offset: every stack is
  // new, all of one function. What the reader keeps of them (bytes, entries,
  // frames) is bounded by an eighth of the file; it held about the file's
  // size in entries before.
  std::string text;
  text.reserve(15u << 20);
  char line[96];
  for (int i = 0; i < 300000; ++i) {
    std::snprintf(line, sizeof line, "p 7 100.%06d: 1 cycles: \n\t%x f+0x%x (/b)\n\n", i, 0x1000 + i, i);
    text += line;
  }
  fs::path big = from_text("distinct.perf", text), tiny = from_text("tiny.perf", text.substr(0, text.find("\n\n") + 2));
  test::as_if_on_disk(big);
  test::as_if_on_disk(tiny);
  auto base = test::run({GRAPHGEN_BINARY, "-q", "-T", "folded", tiny.string()});
  auto r = test::run({GRAPHGEN_BINARY, "-q", "-T", "folded", big.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "p;f 300000\n");
#ifndef GRAPHGEN_SANITIZE
  const long file_kb = static_cast<long>(text.size() / 1024);
  EXPECT_LT(r.peak_kb - base.peak_kb, file_kb / 2)
      << "above a one-sample run: " << (r.peak_kb - base.peak_kb) / 1024 << " MB for a " << file_kb / 1024
      << " MB file (" << r.peak_kb << " KiB against " << base.peak_kb << ")";
#endif
}

TEST(PerfReader, FrameLinesSeenBeforeNameTheirFunctionsAgain) {
  // New stacks made of frame lines seen before (each line's function is
  // remembered by its bytes, not parsed again), indented differently, with
  // runs of unresolved frames that --fold-unknown makes one: the folded
  // stacks of every sample, with and without folding.
  const std::vector<std::pair<std::string, std::string>> lines = {{"1 f+0x1 (/bin/p)", "f"},
                                                                  {"2 g+0x2 (/bin/p)", "g"},
                                                                  {"3 [unknown] (/lib/x.so)", "?"},
                                                                  {"4 [unknown] (/lib/x.so)", "?"},
                                                                  {"7 [unknown] (/lib/y.so)", "?y"}};
  std::mt19937 rng(11);
  std::string text;
  std::map<std::string, Cost> plain, folded;
  for (int i = 0; i < 400; ++i) {
    text += "p 7 " + std::to_string(100 + i) + ".5: 1 cycles: \n";
    std::vector<std::string> names;  // leaf first
    const int depth = 1 + static_cast<int>(rng() % 6);
    for (int d = 0; d < depth; ++d) {
      const auto& [line, name] = lines[rng() % lines.size()];
      text += (rng() % 2 ? "\t" : "\t      ") + line + "\n";
      names.push_back(name);
    }
    text += "\t5 main+0x5 (/bin/p)\n\n";
    names.push_back("main");
    std::string a = "p", b = "p";
    std::string last;
    for (auto it = names.rbegin(); it != names.rend(); ++it) {
      const std::string shown = *it == "?" ? "[x.so]" : *it == "?y" ? "[y.so]" : *it;
      a += ";" + shown;
      if (!(it->starts_with("?") && *it == last)) b += ";" + shown;
      last = *it;
    }
    plain[a] += 1;
    folded[b] += 1;
  }
  const fs::path file = from_text("memo.perf", text);
  auto counts = [](const std::string& out) {
    std::map<std::string, Cost> m;
    std::istringstream in(out);
    std::string line;
    while (std::getline(in, line)) m[line.substr(0, line.rfind(' '))] += std::stoll(line.substr(line.rfind(' ') + 1));
    return m;
  };
  auto r = test::run({GRAPHGEN_BINARY, "-q", "-T", "folded", file.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(counts(r.out), plain);
  r = test::run({GRAPHGEN_BINARY, "-q", "--fold-unknown", "-T", "folded", file.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(counts(r.out), folded);
  EXPECT_NE(plain, folded);  // (the runs were there to fold)
}

TEST(PerfReader, ManyDistinctFramesAndCallsAddUpAsParsed) {
  // Past a few thousand frame lines and calls, the reader asks for the
  // memory of a new stack's frames, and the builder for that of a
  // sample's calls, before looking them up: 6 000 frames of as many
  // functions in 5 000 samples of up to 24 frames (recursion and repeated
  // samples among them), against every function's self and stack totals
  // and every call's cost counted here, read whole and in two parts.
  std::mt19937 rng(5);
  std::string text;
  std::map<std::string, std::pair<Cost, Cost>> expected;
  std::map<std::pair<std::string, std::string>, Cost> expected_calls;
  std::vector<std::vector<int>> kept;
  for (int i = 0; i < 5000; ++i) {
    std::vector<int> stack;  // leaf first
    if (!kept.empty() && rng() % 8 == 0) {
      stack = kept[rng() % kept.size()];
    } else {
      const int depth = 2 + static_cast<int>(rng() % 23);
      for (int d = 0; d < depth; ++d) stack.push_back(static_cast<int>(rng() % 6000));
      if (rng() % 16 == 0) stack.push_back(stack.front());  // (recursion)
      kept.push_back(stack);
    }
    text += "p 7 " + std::to_string(100 + i) + ".5: 1 cycles: \n";
    auto name = [](int f) { return "fn_" + std::to_string(f); };
    for (int f : stack) text += fmt::format("\t{:x} {}+0x{:x} (/bin/p)\n", 4096 + f, name(f), f % 7);
    text += "\n";
    expected[name(stack.front())].first += 1;
    for (int f : std::set<int>(stack.begin(), stack.end())) expected[name(f)].second += 1;
    for (std::size_t d = 1; d < stack.size(); ++d) expected_calls[{name(stack[d]), name(stack[d - 1])}] += 1;
  }
  const fs::path file = from_text("distinct.perf", text);
  for (std::size_t split_above : {perf::kSplitAbove, text.size() / 3}) {
    SCOPED_TRACE(split_above);
    Profile p = read_perf(file, {}, split_above);
    EXPECT_EQ(by_name(p), expected);
    std::map<std::pair<std::string, std::string>, Cost> calls;
    for (CallId c = 0; c < p.calls.size(); ++c)
      calls[{std::string(p.str(p.functions[p.calls[c].caller].name)),
             std::string(p.str(p.functions[p.calls[c].callee].name))}] += p.inclusive(c, 0);
    EXPECT_EQ(calls.size(), p.calls.size());  // (one call a pair)
    EXPECT_EQ(calls, expected_calls);
  }
  EXPECT_GT(expected.size(), 5000u);         // (past the memo's 4 096 frames)
  EXPECT_GT(expected_calls.size(), 20000u);  // (past the builder's 8 192 calls)
}

TEST(PerfReader, TwoPartsKeepToTheMemoryBudgetTogether) {
  // Two parts' profiles are held together: a file of distinct functions
  // whose whole profile is past the budget fails as one pass fails (each
  // part within the whole budget, two halves under it read it all), and
  // one within the budget reads as the whole.
  std::string text;
  for (int i = 0; i < 3000; ++i) {
    text += "p 7 " + std::to_string(100 + i) + ".5: 1 cycles: \n";
    for (int d = 0; d < 8; ++d) text += fmt::format("\t{:x} fn_{}_{}+0x1 (/bin/p)\n", 4096 + i, i, d);
    text += "\n";
  }
  const fs::path file = from_text("budget.perf", text);
  const Profile whole = read_perf(file, {}, SIZE_MAX);
  const std::size_t need = whole.approximate_bytes();
  auto read_with = [&](std::size_t budget, std::size_t split_above) {
    formats::ReadOptions o;
    o.memory_budget = budget;
    Diagnostics d;
    InputFile in = open_file(file);
    return perf::read(in, o, d, split_above);
  };
  auto one_pass = read_with(need * 3 / 4, SIZE_MAX);
  auto two_parts = read_with(need * 3 / 4, 4096);
  ASSERT_FALSE(one_pass.has_value());
  ASSERT_FALSE(two_parts.has_value()) << "two parts read " << two_parts->functions.size() << " functions";
  EXPECT_EQ(two_parts.error().message, one_pass.error().message);
  EXPECT_NE(one_pass.error().message.find("needs more than"), std::string::npos) << one_pass.error().message;
  auto within = read_with(need * 5 / 4, 4096);
  ASSERT_TRUE(within.has_value()) << within.error().message;
  EXPECT_EQ(by_name(*within), by_name(whole));
}

// The profile's tables are reserved at what a part can add (a function or
// a call each frame line), so they never move while read, nor when a later
// part is folded in (each doubling touched new pages, each a page fault).
TEST(PerfReader, TablesReservedAtWhatThePartCanAdd) {
#ifdef GRAPHGEN_SANITIZE
  GTEST_SKIP() << "not reserved under AddressSanitizer, which writes the shadow of all the room";
#endif
  std::string text;
  for (int i = 0; i < 2000; ++i)
    text += fmt::format("p 7 {}.5: 1 cycles: \n\t1 leaf_{}+0x1 (/bin/p)\n\t2 main+0x2 (/bin/p)\n\n", 100 + i, i);
  const fs::path file = from_text("reserved.perf", text);
  for (std::size_t split_above : {SIZE_MAX, std::size_t{4096}}) {
    const Profile p = read_perf(file, {}, split_above);
    ASSERT_EQ(p.functions.size(), 2001u);
    // 62 bytes a sample here: room for 6 rows of each 54 bytes read.
    EXPECT_GE(p.functions.capacity(), 3 * p.functions.size()) << split_above;
    EXPECT_GE(p.calls.capacity(), 3 * p.calls.size()) << split_above;
  }
}

TEST(PerfReader, HeadersLikeTheLastOneAreReadAsInFull) {
  // A header with the same columns as the last one read in full is read
  // by its time, period and event alone: each change of shape falls back
  // to the full reading (comm with a space, pid/tid, cpu column, wider
  // times and periods, another event, no period, a period past 2^64).
  const std::string f = "\t1 leaf+0x1 (/bin/p)\n\t2 main+0x2 (/bin/p)\n\n";
  std::string text;
  for (const char* h :
       {"my worker 7/8 [001] 100.1: 5 cycles: \n", "my worker 7/8 [001] 100.25: 17 cycles: \n",
        "my worker 7/8 [001] 10000.125: 1000 cycles:u: \n", "my worker 7/8 [001] 10000.125: 1001 cycles:u: \n",
        "my worker 7/9 [001] 100.5: 20 cycles: \n", "my worker 7/9 [001] 100.5:   300   cycles: \n",
        "my worker 7/9 [001] 100.6: cycles: \n", "my worker 7/9 [001] 100.7: 99999999999999999999999 cycles: \n",
        "my worker 7/9 [002] 100.8: 4000 cycles: \n"})
    text += std::string(h) + f;
  fs::path file = from_text("shapes.perf", text);
  auto r = test::run({GRAPHGEN_BINARY, "-T", "folded", "--weight", "period", "--event", "cycles", "-q", file.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // cycles: 5 + 17 + 20 + 300 + 4000 (and 1 each for the one without a
  // period and the one past 2^64, which count 1); cycles:u is another event.
  EXPECT_EQ(r.out, "my_worker;main;leaf 4344\n") << r.out;
  auto u =
      test::run({GRAPHGEN_BINARY, "-T", "folded", "--weight", "period", "--event", "cycles:u", "-q", file.string()});
  ASSERT_EQ(u.exit_code, 0) << u.err;
  EXPECT_EQ(u.out, "my_worker;main;leaf 2001\n") << u.out;
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

// A thread named "x 42 9: y" (prctl): "9:" after the number 42 was taken
// for the event, so its 12 samples were "another event" and left out. The
// time after it says it is part of the command.
TEST(PerfReader, ACommandWithANumberAndAColonKeepsItsSamples) {
  fs::path dir = test::testdata_dir() / "perf";
  auto r = test::graphgen({"-T", "folded", (dir / "comm-number-colon.perf").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  // stackcollapse-perf.pl's stacks, in samples (it weighs them by period).
  EXPECT_EQ(r.out, "names;__libc_start_call_main;spin 6\nx_42_9:_y;start_thread;spin 12\n");
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
  Profile cpu_time = read_perf(file, cpu);
  EXPECT_EQ(total(cpu_time), total(only_cpu) * 5000000);
  // A clock event's periods are nanoseconds: weighed by them, the profile
  // is in time; page faults' periods are counts.
  EXPECT_EQ(cpu_time.str(cpu_time.events[0].unit), "ns");
  EXPECT_EQ(cpu_time.events[0].seconds_per_unit, 1e-9);
  faults.weight_by_period = true;
  Profile fault_count = read_perf(file, faults);
  EXPECT_EQ(total(fault_count), 2 * 50);
  EXPECT_NE(fault_count.str(fault_count.events[0].unit), "ns");
  EXPECT_NE(fault_count.events[0].seconds_per_unit, 1e-9);
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

// Without -g (or with perf script -G) perf pads each header's command with
// spaces; the first event was looked for on unpadded lines only, so every
// event was kept and summed (cpu-clock samples and page faults as one
// count) under a warning that named none of them.
TEST(PerfReader, WithoutCallchainsTheFirstEventIsKeptToo) {
  fs::path file = test::testdata_dir() / "perf" / "events-nog.perf";
  auto total = [](const Profile& p) {
    Cost t = 0;
    for (FuncId f = 0; f < p.functions.size(); ++f) t += p.self(f, 0);
    return t;
  };
  Diagnostics warned;
  InputFile in = open_file(file);
  auto first = perf::read(in, {}, warned);
  ASSERT_TRUE(first.has_value()) << first.error().message;
  // perf report: 27 samples of page-faults, 169 of cpu-clock.
  EXPECT_EQ(total(*first), 27);
  ASSERT_EQ(warned.warnings().size(), 1u);
  EXPECT_EQ(warned.warnings()[0], file.string() +
                                      ": samples of 2 events (cpu-clock, page-faults): only the first event's are "
                                      "kept, page-faults (169 other samples left out, as stackcollapse-perf.pl "
                                      "does); pick another with --event");
  formats::ReadOptions cpu;
  cpu.event = "cpu-clock";
  EXPECT_EQ(total(read_perf(file, cpu)), 169);
  const std::string text = test::read_file(file);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 27 + 169);
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

// Debian's CPython 3.11 (like pyenv's builds) has no frame pointers: with
// -g, perf's stacks stop one or two frames up, at an address it cannot
// name, and no Python function is connected. One warning says why and how
// to record instead; a recording with Python frames (3.13's perf_jit with
// DWARF) and one of a C program (Lua) get none.
TEST(PerfReader, PythonWithoutFramePointersIsExplained) {
  auto cut = test::graphgen({(test::testdata_dir() / "perf/real/docutils-g.perf.xz").string(), "-T", "folded"});
  ASSERT_EQ(cut.exit_code, 0) << cut.err;
  EXPECT_NE(cut.err.find("docutils-g.perf.xz: 240 of 269 samples of Python processes end in an unresolved frame and "
                         "hold no Python function: perf could not walk the stacks of a Python built without frame "
                         "pointers. Record with DWARF and 3.13's jitdump (perf record -k 1 --call-graph dwarf "
                         "python3.13 -X perf_jit app.py, then perf inject --jit)"),
            std::string::npos)
      << cut.err;
  for (const char* fine : {"pyperf/work.perf.xz", "perf/real/lua-freq.perf.xz"}) {
    auto r = test::graphgen({(test::testdata_dir() / fine).string(), "-T", "folded"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err.find("frame pointers"), std::string::npos) << fine << ": " << r.err;
  }
}

}  // namespace
}  // namespace graphgen::perf_reader_test

namespace graphgen::perf_reader_test {
namespace {

// The tail of the second part taken by the thread done first (a third
// part from a sample's start, its reader stopping there): every real
// recording gives one pass's profile, stack tree, timeline and warnings,
// wherever the parts are cut (strings by their text: a part interns a
// process name where its first sample is).
TEST(PerfReader, ATailTakenFromTheSecondPartReadsAsOnePass) {
  std::size_t compared = 0, cut_thrice = 0;
  for (const auto& e : fs::directory_iterator(test::testdata_dir() / "perf" / "real")) {
    if (e.path().extension() != ".xz") continue;
    const std::string text = test::unxz(e.path());
    const InputFile in = InputFile::from_bytes(e.path().filename().string(), text);
    auto dump = [&](std::size_t split_above, std::size_t tail_at) {
      Diagnostics d;
      formats::ReadOptions o = fuzz::timed(text.size());
      auto p = perf::read(in, o, d, split_above, tail_at);
      return fuzz::tables(p, d, true) + fuzz::stacks(p, true) + fuzz::trace(p);
    };
    const std::string whole = dump(SIZE_MAX, 0);
    for (std::size_t eighth : {5, 6, 7}) {
      SCOPED_TRACE(e.path().filename().string() + " tail from " + std::to_string(eighth) + "/8");
      const std::size_t at = text.size() * eighth / 8;
      EXPECT_EQ(dump(1024, at), whole);
      ++compared;
      // (The second part begins at the first sample past the middle.)
      cut_thrice += text.find("\n\n", text.size() / 2) + 2 < at && text.find("\n\n", at - 2) != std::string::npos;
    }
  }
  EXPECT_GE(compared, 90u);
  EXPECT_GE(cut_thrice, 60u);
}

}  // namespace
}  // namespace graphgen::perf_reader_test

namespace graphgen::perf_reader_test {
namespace {

// A header whose event name is empty (`: 1`, found by fuzz_perf) counts as
// an event of its own whether a named sample came before it in the same
// reader or it begins the second part: the same warning both ways.
TEST(PerfReader, AnUnnamedEventCountsTheSameInTheSecondPart) {
  const std::string text = "p 1 1.000: 1 c!cles:\n\t1 main (/x)\n\n: 1\n";
  const InputFile in = InputFile::from_bytes("unnamed.perf", text);
  Diagnostics whole, split;
  auto one = perf::read(in, {}, whole, SIZE_MAX);
  auto two = perf::read(in, {}, split, text.size() / 2);
  ASSERT_TRUE(one.has_value() && two.has_value());
  ASSERT_EQ(whole.warnings().size(), 1u);
  EXPECT_EQ(whole.warnings(), split.warnings());
  EXPECT_NE(whole.warnings()[0].find("samples of 2 events ((no name), c!cles)"), std::string::npos)
      << whole.warnings()[0];
}

}  // namespace
}  // namespace graphgen::perf_reader_test
