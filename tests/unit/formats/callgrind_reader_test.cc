// The callgrind reader against real files: per-function totals equal what
// ../shared/conformance/callgrindcmp.py reads, subpositions, several files and parts, and
// malformed lines refused with their positions.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "callgrind/reader.h"
#include "callgrind/writer.h"
#include "common/decompress.h"
#include "graphgen/analysis/merge.h"
#include "graphgen/labels.h"
#include "util/test_util.h"

namespace graphgen::callgrind_reader_test {
namespace {

namespace fs = std::filesystem;

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

TEST(CallgrindReader, ReadForAGraphOrWithPositionsGivesTheSameFunctions) {
  // Read for a graph (positions not kept), a self cost line goes through a
  // shorter path than the one that also keeps it per line: the same
  // functions, first lines, self costs and calls, on every real file.
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(test::testdata_dir() / "callgrind"))
    if (e.path().extension() == ".callgrind") files.push_back(e.path());
  fs::path corpus = test::corpus_dir();
  if (!corpus.empty())
    for (const char* dir : {"edge", "real"})
      for (const auto& e : fs::directory_iterator(corpus / dir / "callgrind")) files.push_back(e.path());
  ASSERT_GE(files.size(), 5u);
  std::size_t lines = 0;
  for (const fs::path& f : files) {
    SCOPED_TRACE(f.string());
    formats::ReadOptions graph, positions;
    graph.keep_positions = false;
    positions.keep_positions = true;
    auto a = test::read_profiles({f}, "callgrind", graph);
    auto b = test::read_profiles({f}, "callgrind", positions);
    ASSERT_EQ(a.has_value(), b.has_value());
    if (!a) {
      EXPECT_EQ(a.error().message, b.error().message);
      continue;
    }
    ASSERT_EQ(a->functions.size(), b->functions.size());
    lines += b->line_costs.size();
    for (FuncId fn = 0; fn < a->functions.size(); ++fn) {
      EXPECT_EQ(a->str(a->functions[fn].name), b->str(b->functions[fn].name));
      EXPECT_EQ(a->functions[fn].line, b->functions[fn].line) << a->str(a->functions[fn].name);
      for (std::size_t e = 0; e < a->events.size(); ++e) EXPECT_EQ(a->self(fn, e), b->self(fn, e));
    }
    ASSERT_EQ(a->calls.size(), b->calls.size());
    for (CallId c = 0; c < a->calls.size(); ++c) {
      EXPECT_EQ(a->calls[c].count, b->calls[c].count);
      for (std::size_t e = 0; e < a->events.size(); ++e) EXPECT_EQ(a->inclusive(c, e), b->inclusive(c, e));
    }
  }
  EXPECT_GT(lines, 100u);  // the files had cost lines
}

TEST(CallgrindReader, AJumpsTargetIsTheSameFunctionInEitherRead) {
  // A jump's target (jfn=) is a function of the profile: read for a graph,
  // where the jump itself is not kept, it was not made, so a target seen
  // only there was missing, and one seen there before its own fn= block
  // came later in the list (the fuzzer's fuzz_callgrind found the first).
  const std::vector<std::string> texts = {
      "events: c\nfn=1\njfn=\njump=3\n2\n",
      "events: c\nfn=main\n1 5\njfn=only_jumped_to\njump=3 4\n2 1\n",
      "events: c\nfn=main\n1 5\njfn=later\njump=3 4\n2 1\nfn=other\n7 2\nfn=later\n4 9\n",
      // In a run of self cost lines (read straight from the bytes, holding
      // places in the profile's tables): the jump to a new function ends
      // the run (making the function there moved the tables under it; the
      // fuzzer's find, which a sanitizer build of this test reports).
      "jfn=\nevents:u\nfn=(\n7\n3\njump=1\n1\n",
      "events: c\nfn=main\n1 5\n2 1\n+1 3\njfn=new\njump=3\n+1 1\n3 2\n",
  };
  for (const std::string& text : texts) {
    SCOPED_TRACE(text);
    const fs::path f = test::write_temp("jump.callgrind", text);
    formats::ReadOptions graph, positions;
    graph.keep_positions = false;
    positions.keep_positions = true;
    auto a = test::read_profiles({f}, "callgrind", graph);
    auto b = test::read_profiles({f}, "callgrind", positions);
    ASSERT_TRUE(a.has_value()) << a.error().message;
    ASSERT_TRUE(b.has_value()) << b.error().message;
    ASSERT_EQ(a->functions.size(), b->functions.size());
    for (FuncId fn = 0; fn < a->functions.size(); ++fn) {
      EXPECT_EQ(a->str(a->functions[fn].name), b->str(b->functions[fn].name)) << fn;
      for (std::size_t e = 0; e < a->events.size(); ++e) EXPECT_EQ(a->self(fn, e), b->self(fn, e));
    }
  }
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

// A lone file read with positions is its own merged profile (the pipeline
// gives it to -T callgrind without the merge's copy): its position, call
// site and jump rows are keyed as the merge keys them, a repeated jump
// (same source, target and kind) one row with its counts summed.
TEST(CallgrindReader, ALoneFileWithPositionsIsItsOwnMerge) {
  const fs::path repeated = from_text("jumps.callgrind",
                                      "positions: line\nevents: Ir\nfl=a.c\nfn=main\n15 3\n"
                                      "jcnd=1/2 20\n15\njcnd=3/4 20\n15\njump=2 20\n15\njump=5 20\n15\n"
                                      "cfn=f\ncalls=1 30\n16 7\ncfn=f\ncalls=2 30\n16 1\n20 5\n15 1\n"
                                      "fn=f\n30 8\n");
  std::vector<fs::path> files = {repeated};
  for (const char* name : {"sites.callgrind", "cxx.callgrind", "threads-sep.callgrind-01", "parity.callgrind"})
    files.push_back(test::testdata_dir() / "callgrind" / name);
  for (const fs::path& file : files) {
    SCOPED_TRACE(file.string());
    // The reader's own profile, as the pipeline takes it.
    formats::ReadOptions o;
    Diagnostics diag;
    auto bytes = InputFile::from_bytes(file.string(), test::read_file(file));
    auto read = callgrind::read(bytes, o, diag);
    ASSERT_TRUE(read.has_value());
    Profile& lone = *read;
    Profile merged;
    ProfileMerger merger(merged);
    ASSERT_TRUE(merger.add(lone, file.string()).has_value());
    merger.finish();
    auto written = [](const Profile& p) {
      auto text = callgrind::write(p, callgrind::WriteOptions{});
      return text ? *text : text.error().message;
    };
    EXPECT_EQ(written(lone), written(merged));
    ASSERT_EQ(lone.jumps.size(), merged.jumps.size());
    ASSERT_EQ(lone.line_costs.size(), merged.line_costs.size());
    ASSERT_EQ(lone.call_sites.size(), merged.call_sites.size());
    EXPECT_EQ(lone.line_cost_values, merged.line_cost_values);
    EXPECT_EQ(lone.call_site_cost, merged.call_site_cost);
    for (std::size_t j = 0; j < lone.jumps.size(); ++j) {
      EXPECT_EQ(lone.jumps[j].count, merged.jumps[j].count);
      EXPECT_EQ(lone.jumps[j].executed, merged.jumps[j].executed);
      EXPECT_EQ(lone.jumps[j].line, merged.jumps[j].line);
      EXPECT_EQ(lone.jumps[j].target_line, merged.jumps[j].target_line);
    }
  }
  Profile p = read_callgrind(repeated);
  ASSERT_EQ(p.jumps.size(), 2u);  // jcnd 15 -> 20, jump 15 -> 20
  EXPECT_EQ(p.jumps[0].count, 4);
  EXPECT_EQ(p.jumps[0].executed, 6);
  EXPECT_EQ(p.jumps[1].count, 7);
  EXPECT_EQ(p.jumps[1].executed, kUnknownCount);
  ASSERT_EQ(p.call_sites.size(), 1u);  // one site: line 16 into f's line 30
  EXPECT_EQ(p.call_sites[0].count, 3);
  auto text = callgrind::write(p, callgrind::WriteOptions{});
  ASSERT_TRUE(text.has_value());
  EXPECT_NE(text->find("\njcnd=4/6 "), std::string::npos) << *text;
  EXPECT_NE(text->find("\njump=7 "), std::string::npos) << *text;
  EXPECT_EQ(text->find("\njcnd=1/2"), std::string::npos) << *text;
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

// callgrind text read for a graph (`keep` false: positions not kept, the
// reader's runs of lines) or keeping positions (each line alone), from
// `from` on in a second half.
Expected<Profile> read_runs(const std::string& text, bool keep, std::size_t from = std::string_view::npos) {
  formats::ReadOptions o;
  o.keep_positions = keep;
  Diagnostics diag;
  return callgrind::read_from(InputFile::from_bytes("runs.callgrind", text), o, diag, from);
}

// Runs of self cost lines are read straight from the bytes when positions
// are not kept: the same self costs, first lines and call costs as the
// reader that keeps positions (which reads each line alone), over runs that
// cross the every-4096-lines checks, with every kind of subposition, short
// and long cost columns, a line 0 before a function's first source line, a
// CRLF line, numbers too long for the quick path, jumps among them, and
// malformed lines reported at their own lines.
TEST(CallgrindReader, SelfLineRunsReadAsEachLineAlone) {
  std::string text = "events: Ir Dr\npositions: instr line\n";
  std::size_t line = 2;
  long long ir_a = 0;
  auto add = [&](const std::string& s) {
    text += s + "\n";
    ++line;
  };
  add("fn=(1) a");
  add("0x10 0 1 2");  // (line 0: the function's first line comes later)
  ir_a += 1;
  add("+1 * 3");
  ir_a += 3;
  const char* positions[] = {"+1 +1", "-2 *", "* +3", "0x20 17", "+1 -1", "7 9", "+0x1 +2"};
  for (int i = 0; i < 9000; ++i) {
    const std::string at = positions[i % 7];
    if (at == "+0x1 +2") {  // (not a subposition: read by cost_line, which refuses it)
      add("+1 +2 " + std::to_string(i % 5));
      ir_a += i % 5;
    } else if (i % 11 == 0) {
      add(at + " " + std::to_string(i));  // one column: Dr is 0
      ir_a += i;
    } else if (i % 13 == 0) {
      add(at + "\t" + std::to_string(i) + "  " + std::to_string(2 * i) + " ");
      ir_a += i;
    } else if (i == 4000) {
      add(at + " 5 6\r");
      ir_a += 5;
    } else if (i == 5000) {
      add(at + " 1234567890123456789 1");  // 19 digits
      ir_a += 1234567890123456789;
    } else {
      add(at + " " + std::to_string(i % 97) + " 1");
      ir_a += i % 97;
    }
    if (i % 17 == 0) {  // a jump: its position line moves the positions, its costs count nowhere
      // (the last four: forms only jump_line() reads)
      const char* jumps[] = {
          "jcnd=3/4 +2 *",     "jump=1 -1 +4",   "jcnd=0/0",   "jump=7\t0x10  -3 ", "jump=1234567890123456789 +1 +1",
          "jcnd=1/2 +1 +1 +1", "jump=2 +1 +1 x", "jcnd=5/6 \t"};
      add(jumps[(i / 17) % 8]);
      add(i % 3 ? "+1 +2" : "* -1 9");
    }
    if (i == 6000) {
      add("cfn=(2) b");
      add("calls=3 0x40 50");
      add("+1 +1 100 10");
    }
  }
  add("fn=(2)");
  add("0x40 50 7 7");
  for (int i = 0; i < 5000; ++i) add("+1 +1 1");
  // '*' takes the last line across functions: c's run leaves it at 65.
  add("fn=(3) c");
  add("0x60 10 1");
  for (int i = 0; i < 50; ++i) {
    add("+1 +1 1");
    if (i == 20) {
      add("jump=1 +1 +1");
      add("+1 +5");
    }
  }
  add("fn=(4) d");
  add("* * 1");
  const std::string good = text;
  const std::size_t bad_line = line + 1;
  add("+1 +1 5 x");

  for (bool split : {false, true}) {
    SCOPED_TRACE(split ? "two halves" : "one");
    auto quick = read_runs(good, false, split ? good.size() / 2 : std::string_view::npos);
    auto each = read_runs(good, true);
    ASSERT_TRUE(quick) << quick.error().message;
    ASSERT_TRUE(each) << each.error().message;
    ASSERT_EQ(quick->functions.size(), 4u);
    ASSERT_EQ(each->functions.size(), 4u);
    EXPECT_EQ(quick->self(0, 0), ir_a);
    for (FuncId f = 0; f < 4; ++f) {
      EXPECT_EQ(quick->functions[f].line, each->functions[f].line) << f;
      for (std::size_t e = 0; e < 2; ++e) EXPECT_EQ(quick->self(f, e), each->self(f, e)) << f << " " << e;
    }
    EXPECT_EQ(quick->functions[0].line, 1);  // ("+1 * 3" keeps line 0; the first "+1 +1" makes it 1)
    EXPECT_EQ(quick->functions[1].line, 50);
    EXPECT_EQ(quick->self(1, 0), 5007);
    EXPECT_EQ(quick->functions[3].line, 65);
    ASSERT_EQ(quick->calls.size(), 1u);
    EXPECT_EQ(quick->inclusive(0, 0), 100);
  }
  auto bad_quick = read_runs(text, false);
  auto bad_each = read_runs(text, true);
  ASSERT_FALSE(bad_quick);
  ASSERT_FALSE(bad_each);
  EXPECT_EQ(bad_quick.error().message, bad_each.error().message);
  EXPECT_NE(bad_quick.error().message.find("runs.callgrind:" + std::to_string(bad_line) + ":9:"), std::string::npos)
      << bad_quick.error().message;
  // A malformed jump, or a jump's position line, inside a run.
  const std::string head = "events: Ir\npositions: line\nfn=f\n1 1\n2 1\n3 1\n";  // (lines 1-6)
  for (const auto& [tail, where] :
       std::vector<std::pair<std::string, std::string>>{{"jcnd=3/x +1\n+1 1\n", ":7:6:"},
                                                        {"jump=2 +1\n+1 1\njump=1 *\n+1 z\n", ":10:4:"},
                                                        {"jump=2 +1\n4 1\ncalls=1 5\n", ":9:1:"}}) {
    auto q = read_runs(head + tail, false);
    auto e = read_runs(head + tail, true);
    ASSERT_FALSE(q) << tail;
    ASSERT_FALSE(e) << tail;
    EXPECT_EQ(q.error().message, e.error().message);
    EXPECT_NE(q.error().message.find("runs.callgrind" + where), std::string::npos) << q.error().message;
  }
}

// The run is compiled for one and two positions and one event: each shape
// (and three positions, two events) reads as each line alone.
TEST(CallgrindReader, SelfLineRunsOfEveryShape) {
  for (const char* positions : {"line", "instr line", "instr bb line"})
    for (const char* events : {"Ir", "Ir Dr"}) {
      SCOPED_TRACE(std::string(positions) + " / " + events);
      const int np = 1 + static_cast<int>(std::count(positions, positions + std::strlen(positions), ' '));
      const int ne = 1 + static_cast<int>(std::count(events, events + std::strlen(events), ' '));
      std::string text = std::string("positions: ") + positions + "\nevents: " + events + "\n";
      auto at = [&](int i) {  // np subpositions, relative, absolute and '*'
        std::string s;
        for (int k = 0; k < np; ++k) s += (k ? " " : "") + std::string(i % 5 == 0 ? "*" : i % 7 == 0 ? "9" : "+1");
        return s;
      };
      long long ir = 0;
      text += "fn=f\n" + at(0) + " 1\n";
      ir += 1;
      for (int i = 1; i < 6000; ++i) {
        std::string costs = std::to_string(i % 50);
        ir += i % 50;
        if (ne == 2 && i % 3 == 0) costs += " 1";
        text += at(i) + " " + costs + "\n";
        if (i % 19 == 0) text += "jump=1 " + at(i) + "\n" + at(i + 1) + "\n";
      }
      text += "fn=g\n";  // '*': g's first line is where f's run left it
      for (int k = 0; k < np; ++k) text += k ? " *" : "*";
      text += " 1\n";
      std::int64_t line_f = 0, line_g = 0;
      for (bool keep : {false, true}) {
        auto p = read_runs(text, keep);
        ASSERT_TRUE(p) << p.error().message;
        ASSERT_EQ(p->functions.size(), 2u);
        EXPECT_EQ(p->self(0, 0), ir) << keep;
        if (ne == 2) {
          EXPECT_EQ(p->self(0, 1), 1999) << keep;
        }
        if (!keep) {
          line_f = p->functions[0].line;
          line_g = p->functions[1].line;
        } else {
          EXPECT_EQ(p->functions[0].line, line_f);
          EXPECT_EQ(p->functions[1].line, line_g);
          EXPECT_NE(line_g, 0);
        }
      }
      // The file cut short in the run (no newline after its last line):
      // that line is read too, by the scanner.
      const std::string cut = text.substr(0, text.find("fn=g") - 1);
      for (bool keep : {false, true}) {
        auto p = read_runs(cut, keep);
        ASSERT_TRUE(p) << p.error().message;
        EXPECT_EQ(p->self(0, 0), ir) << keep;
      }
    }
}

// A file cut short in its header (valgrind killed while writing it) warns
// and is read as far as it goes, as one cut in its body: the header is read
// on its own first (the tables are reserved once the events are known),
// and its last line is the file's (a header line that is not whole made the
// read fail while the header was read alone, the end not known there).
TEST(CallgrindReader, AFileCutInItsHeaderWarnsAsOneCutInItsBody) {
  for (const std::string text : {"events: Ir\nsumm", "events: Ir\nfn=a\n1 2\nsumm"})
    for (bool keep : {false, true}) {
      formats::ReadOptions o;
      o.keep_positions = keep;
      Diagnostics diag;
      auto p = callgrind::read_from(InputFile::from_bytes("cut.callgrind", text), o, diag, std::string_view::npos);
      ASSERT_TRUE(p) << p.error().message;
      ASSERT_EQ(diag.warnings().size(), 1u) << text;
      EXPECT_NE(diag.warnings()[0].find("the last line is cut short"), std::string::npos) << diag.warnings()[0];
      EXPECT_EQ(p->functions.size(), text.find("fn=") == std::string::npos ? 0u : 1u) << text;
    }
}

// With positions kept, each function's rows have an index of their own:
// its bytes count in the memory budget as the rows' do. A file of 20 000
// functions of one row each, under a budget of exactly what its profile
// holds at the end: the indexes put it over (it was read whole when only
// the profile counted), and twice that budget reads it.
TEST(CallgrindReader, PositionIndexesCountInTheBudget) {
  std::string text = "positions: line\nevents: Ir\n";
  for (int i = 0; i < 20000; ++i) text += fmt::format("fn=({}) f{}\n{} 1\n", i, i, i + 1);
  InputFile in = InputFile::from_bytes("many.callgrind", text);
  formats::ReadOptions o;
  o.keep_positions = true;
  Diagnostics d;
  auto whole = callgrind::read(in, o, d);
  ASSERT_TRUE(whole) << whole.error().message;
  ASSERT_EQ(whole->line_costs.size(), 20000u);
  const std::size_t bytes = whole->approximate_bytes();
  o.memory_budget = bytes;
  Diagnostics d1;
  auto over = callgrind::read(in, o, d1);
  ASSERT_FALSE(over);
  EXPECT_NE(over.error().message.find("the profile needs more than"), std::string::npos) << over.error().message;
  o.memory_budget = 2 * bytes;
  Diagnostics d2;
  EXPECT_TRUE(callgrind::read(in, o, d2));
}

}  // namespace
}  // namespace graphgen::callgrind_reader_test
