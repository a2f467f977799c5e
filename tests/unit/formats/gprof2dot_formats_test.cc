// gprof2dot's other input formats (prof, axe, hprof, json, sleepy, sysprof,
// xperf, dtrace) and --compare, on files made here with the real tools or
// by each format's rules (testdata/README.md): equal by meaning to
// gprof2dot's own output where graphgen means the same, and each reader's
// one-line messages on malformed input.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <set>

#include "fuzz/fuzz.h"
#include "json/reader.h"
#include "sysprof/reader.h"
#include "util/both_ways.h"
#include "util/test_util.h"

namespace graphgen::gprof2dot_formats_test {
namespace {

namespace fs = std::filesystem;
using test::graphgen;

fs::path td() { return test::testdata_dir(); }

// An offset as error messages write it after "+0x".
std::string hex(std::uintmax_t n) {
  char buffer[24];
  std::snprintf(buffer, sizeof buffer, "%jx", n);
  return buffer;
}

// graphgen's dot for `args` (plus -T dot), failing the test on an error.
std::string dot_of(std::vector<std::string> args, const fs::path& cwd = {}) {
  args.insert(args.end(), {"-T", "dot"});
  auto r = graphgen(args, cwd);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

struct OracleCase {
  std::string format, input, oracle;
  std::vector<std::string> options;
};

// The oracle: gprof2dot.py at git d1ba70a on the same file (testdata/README.md).
TEST(OtherFormats, EqualGprof2dotOnFilesMadeHere) {
  const std::vector<OracleCase> cases = {
      {"prof", "prof/prog.prof", "prof/prog.dot", {}},
      {"prof", "prof/prog-q.prof", "prof/prog-q.dot", {}},
      {"prof", "prof/prog-q-utf16.prof", "prof/prog-q-utf16.dot", {}},
      {"prof", "compare/prof/prog-a.prof", "compare/prof/prog-a.dot", {}},
      {"axe", "axe/small.axe", "axe/small.dot", {}},
      // gprof and VTune report seconds, not samples: gprof2dot's
      // --show-samples adds nothing to their nodes (graphgen added "0×").
      {"prof", "prof/prog.prof", "prof/prog.dot", {"--show-samples"}},
      {"axe", "axe/small.axe", "axe/small.dot", {"--show-samples"}},
      {"hprof", "hprof/demo.hprof", "hprof/demo.dot", {}},
      {"json", "json/procmod.json", "json/procmod.dot", {}},
      {"json", "compare/json/a.json", "compare/json/a.dot", {}},
      {"sleepy", "sleepy/demo.sleepy", "sleepy/demo.dot", {}},
      {"sleepy", "sleepy/lowercase.sleepy", "sleepy/lowercase.dot", {}},
      {"sysprof", "sysprof/demo.sysprof", "sysprof/demo.dot", {}},
      {"dtrace", "dtrace/headers.dtrace", "dtrace/headers.dot", {}},
      {"dtrace", "dtrace/plain.dtrace", "dtrace/plain.dot", {}},
      {"dtrace", "dtrace/plain.dtrace", "dtrace/plain.callstacks.dot", {"--total", "callstacks"}},
  };
  for (const OracleCase& c : cases) {
    SCOPED_TRACE(c.input);
    std::string want = test::read_file(td() / c.oracle);
    std::vector<std::string> detected = c.options, forced = c.options;
    detected.push_back(c.input);
    forced.insert(forced.end(), {"-f", c.format, c.input});
    EXPECT_EQ(test::dot_difference(want, dot_of(detected, td())), "") << "detected";
    EXPECT_EQ(test::dot_difference(want, dot_of(forced, td())), "") << "-f " << c.format;
  }
}

// --- prof ---------------------------------------------------------------------

TEST(Prof, FullAndCallGraphOnlyOutputsOfOneRunGiveOneGraph) {
  // prog.prof has the flat profile, explanations and the index; prog-q.prof
  // only the call graph; prog-q-utf16.prof is prog-q.prof saved by PowerShell.
  std::string full = dot_of({"prof/prog.prof"}, td());
  EXPECT_EQ(dot_of({"prof/prog-q.prof"}, td()), full);
  EXPECT_EQ(dot_of({"prof/prog-q-utf16.prof"}, td()), full);
  // gprof's recursion (fact: 10000+70000 calls) and its <cycle 1>: is_even
  // -> is_odd is integrated, the way back shows its count only.
  EXPECT_NE(full.find("label=\"fact\\n"), std::string::npos);
  EXPECT_NE(full.find("\\n80000×\""), std::string::npos) << full;
  auto piped =
      test::run({"sh", "-c", "\"$0\" -T dot - < \"$1\"", GRAPHGEN_BINARY, (td() / "prof/prog-q-utf16.prof").string()});
  EXPECT_EQ(piped.out, full);  // standard input too (gprof2dot: "unexpected end of file")
}

// gprof's "10000+70000" is calls from elsewhere and from the function
// itself: pstats' primitive and recursive calls. -T stats printed 80000
// alone (pstats would print 80000/10000 for a cProfile of it) and -T
// pstats wrote cc = nc.
TEST(Prof, RecursiveCallsAreToldFromPrimitiveOnesAsPstatsDoes) {
  auto r = test::graphgen({"-T", "stats", (td() / "prof/prog.prof").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("80000/10000    0.000    0.000    0.100    0.000 fact\n"), std::string::npos) << r.out;
  // leaf has no '+': one count.
  EXPECT_NE(r.out.find("   200000    0.250    0.000    0.250    0.000 leaf\n"), std::string::npos) << r.out;
}

TEST(Prof, IndicesOfFiveAndMoreDigitsAreReadFromTheLineEnd) {
  // GNU gprof prints an entry's index in front with %-6.6s: [10000] loses
  // its ']' and [100000] its last digit, so both entries begin "[10000".
  // Read by that index, g's entry was taken for a repeat of f's and f and
  // g became one node (main -> g 100%, 8 calls; gprof2dot asserts). Found
  // on a real profile of 100 100 functions: 1 146 entries were lost.
  const std::string text =
      "index % time    self  children    called     name\n"
      "                                                 <spontaneous>\n"
      "[1]    100.0    0.00    1.00                 main [1]\n"
      "                0.75    0.00       5/5           g [100000]\n"
      "                0.25    0.00       3/3           f [10000]\n"
      "-----------------------------------------------\n"
      "                0.75    0.00       5/5           main [1]\n"
      "[10000  75.0    0.75    0.00       5         g [100000]\n"
      "-----------------------------------------------\n"
      "                0.25    0.00       3/3           main [1]\n"
      "[10000  25.0    0.25    0.00       3         f [10000]\n"
      "-----------------------------------------------\n"
      "\f\n";
  auto r = graphgen({"-n", "0", "-e", "0", "-T", "dot", test::write_temp("index6.prof", text).string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find("label=\"g\\n75.00%\\n(75.00%)\\n5×\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("label=\"f\\n25.00%\\n(25.00%)\\n3×\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("label=\"75.00%\\n5×\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("label=\"25.00%\\n3×\""), std::string::npos) << r.out;
}

TEST(Prof, TraditionalLayoutIsTheSameGraph) {
  // gprof -T prints BSD's three header lines, "descendents" spelled
  // "descendants": its header was taken for two call graph lines gprof
  // does not write, with a warning.
  auto traditional = graphgen({"-n", "0", "-e", "0", "-T", "dot", (td() / "prof/prog-T.prof").string()});
  ASSERT_EQ(traditional.exit_code, 0) << traditional.err;
  EXPECT_EQ(traditional.err, "");
  EXPECT_EQ(test::dot_difference(dot_of({"-n", "0", "-e", "0", (td() / "prof/prog-b.prof").string()}), traditional.out),
            "");
}

TEST(Prof, SeveralEntriesOfOneNameStayApart) {
  // Two static functions named init in different files: gprof numbers them
  // [2] and [3]; they must not become one node.
  const std::string text =
      "index % time    self  children    called     name\n"
      "                                                 <spontaneous>\n"
      "[1]    100.0    0.00    1.00                 main [1]\n"
      "                0.75    0.00       1/1           init [2]\n"
      "                0.25    0.00       1/1           init [3]\n"
      "-----------------------------------------------\n"
      "                0.75    0.00       1/1           main [1]\n"
      "[2]     75.0    0.75    0.00       1         init [2]\n"
      "-----------------------------------------------\n"
      "                0.25    0.00       1/1           main [1]\n"
      "[3]     25.0    0.25    0.00       1         init [3]\n"
      "-----------------------------------------------\n"
      "\f\n";
  std::string dot = dot_of({test::write_temp("two-inits.prof", text).string()});
  EXPECT_NE(dot.find("label=\"init\\n75.00%\\n(75.00%)\\n1×\""), std::string::npos) << dot;
  EXPECT_NE(dot.find("label=\"init\\n25.00%\\n(25.00%)\\n1×\""), std::string::npos) << dot;
}

TEST(Prof, ChildrenWithoutEntriesAndUntaggedRecursionAreDrawn) {
  // gprof2dot crashes on both: a child gprof found only statically (no
  // entry of its own), and a<->b recursion without <cycle N> tags.
  const std::string text =
      "index % time    self  children    called     name\n"
      "                                                 <spontaneous>\n"
      "[1]    100.0    1.00    3.00                 main [1]\n"
      "                2.00    1.00       1/1           a [2]\n"
      "                0.00    0.00       1/1           never_sampled [9]\n"
      "-----------------------------------------------\n"
      "                2.00    1.00       1/1           main [1]\n"
      "[2]     75.0    2.00    1.00       1         a [2]\n"
      "                1.00    0.00       1/1           b [3]\n"
      "-----------------------------------------------\n"
      "                1.00    0.00       1/1           a [2]\n"
      "[3]     25.0    1.00    0.00       1         b [3]\n"
      "                                   1             a [2]\n"
      "-----------------------------------------------\n"
      "\f\n";
  auto r = graphgen({"-T", "dot", "-n0", "-e0", test::write_temp("static.prof", text).string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("label=\"never_sampled\\n0.00%\\n(0.00%)\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("label=\"main\\n100.00%\\n(25.00%)\""), std::string::npos) << r.out;
}

TEST(Prof, MalformedInputSaysWhatIsWrong) {
  auto none =
      graphgen({test::write_temp("flat.prof", "Flat profile:\n\nEach sample counts as 0.01 seconds.\n").string()});
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_TRUE(
      none.err.ends_with("flat.prof:3:1: expected gprof's call graph, with its header 'index % time self "
                         "children called name' (gprof without -p), found none before the end of the file\n"))
      << none.err;
  // A file cut inside the call graph: the entries before are read.
  std::string cut = test::read_file(td() / "prof/prog-q.prof");
  cut = cut.substr(0, cut.find("\n[5]"));
  auto r = graphgen({"-T", "dot", test::write_temp("cut.prof", cut).string()});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.err.find("expected a form feed line after the call graph, found the end of the file (a cut file?); "
                       "read the 3 functions before it"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
}

// --- axe ----------------------------------------------------------------------

TEST(Axe, SharesAreVtunesAndRecursionShowsTheOwnShare) {
  std::string dot = dot_of({"axe/small.axe"}, td());
  // compute calls itself: gprof2dot labels the edge with compute's own total.
  EXPECT_NE(dot.find("label=\"75.00%\", labeldistance"), std::string::npos) << dot;
  auto bad = graphgen(
      {"-f", "axe",
       test::write_temp("x.axe", "Index  % CPU Time:Total  CPU Time:Self\n-----  -----\nnonsense\n").string()});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_TRUE(
      bad.err.ends_with("x.axe:3:1: expected VTune's call graph entries ('[I] % self children name [I]', then "
                        "blank lines) and its 'Index Function' table, found neither\n"))
      << bad.err;
}

// --- hprof --------------------------------------------------------------------

TEST(Hprof, ThreadTracesAndMalformedInput) {
  // hprof's thread=y option prints `TRACE 300101: (thread=200001)`, on which
  // gprof2dot crashes; the graph is the same as without it.
  std::string text = test::read_file(td() / "hprof/demo.hprof");
  std::string threads = text;
  for (std::size_t at = 0; (at = threads.find("TRACE ", at)) != std::string::npos;) {
    std::size_t colon = threads.find(':', at);
    threads.insert(colon + 1, " (thread=200001)");
    at = colon;
  }
  EXPECT_EQ(dot_of({test::write_temp("t.hprof", threads).string()}), dot_of({"hprof/demo.hprof"}, td()));
  // A heap-only dump has no CPU table: one line, not an endless loop.
  std::string heap = text.substr(0, text.find("CPU SAMPLES BEGIN"));
  auto r = graphgen({test::write_temp("heap.hprof", heap).string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("expected a 'CPU SAMPLES BEGIN' (or 'CPU TIME (ms) BEGIN') table, found none: this HPROF file "
                       "holds no CPU profile (java -agentlib:hprof=cpu=samples writes one)"),
            std::string::npos)
      << r.err;
  auto bad = graphgen({test::write_temp("bad.hprof", "JAVA PROFILE 1.0.1\n--------\nTRACE x:\n").string()});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_TRUE(bad.err.ends_with("bad.hprof:3:1: expected 'TRACE <number>:', found 'TRACE x:'\n")) << bad.err;
}

// --- json ---------------------------------------------------------------------

TEST(Json, NonFiniteCostsAndBadPositionsAreRefused) {
  // gprof2dot refuses NaN (nonfinite.oracle.txt) and crashes on 1e999.
  auto nan = graphgen({"json/nonfinite.json"}, td());
  EXPECT_EQ(nan.exit_code, 1);
  EXPECT_EQ(nan.err,
            "json/nonfinite.json:+0xc6: expected a cost (a number), found 'NaN', which is not JSON (costs must "
            "be finite numbers)\n");
  auto inf = graphgen({"json/overflow.json"}, td());
  EXPECT_EQ(inf.exit_code, 1);
  EXPECT_EQ(inf.err,
            "json/overflow.json:+0xc6: expected a cost (a number), found '1e999', a number beyond a double "
            "(costs must be finite numbers)\n");
  // Each message says where: the position that is out of range (its
  // offset, found again after the read: 0x6f is the '3'), the version.
  const std::string ranged = R"({"version": 0, "costs": [{"description": "x"}],
    "functions": [{"name": "a"}], "events": [{"callchain": [0, 3], "cost": [1]}]})";
  ASSERT_EQ(ranged.find("3]"), 0x6fu);
  auto range = graphgen({test::write_temp("r.json", ranged).string()});
  EXPECT_EQ(range.exit_code, 1);
  EXPECT_TRUE(range.err.ends_with(
      "r.json:+0x6f: expected positions of \"functions\" (0 to 0) in event 0's callchain, found 3\n"))
      << range.err;
  auto version = graphgen({test::write_temp("v.json", R"({"version": 1, "functions": [], "events": []})").string()});
  EXPECT_EQ(version.exit_code, 1);
  EXPECT_TRUE(version.err.ends_with("v.json:+0xc: expected \"version\": 0, found version 1\n")) << version.err;
}

TEST(Json, MembersInAnyOrderAndTheEventFromCosts) {
  // memtrail writes "events" before "functions"; the event's name and unit
  // come from the first cost.
  auto p = test::read_ok({test::write_temp("m.json", R"({"events": [{"callchain": [1, 0], "cost": [3]},
    {"callchain": [1], "cost": [2]}], "functions": [{"name": "main"}, {"name": "leaf", "module": "/lib/libx.so"}],
    "costs": [{"description": "Allocated", "unit": "bytes"}], "version": 0})")});
  ASSERT_EQ(p.functions.size(), 2u);
  EXPECT_EQ(p.str(p.events[0].name), "Allocated");
  EXPECT_EQ(p.str(p.events[0].unit), "bytes");
  EXPECT_FALSE(p.events[0].floating);  // integer costs stay integers
  EXPECT_EQ(p.self(1, 0), 5);
  EXPECT_EQ(p.functions[1].calls, 2);  // leaf of two events
  EXPECT_EQ(p.str(p.functions[1].object), "/lib/libx.so");
}

// The streaming path (json/reader.cc) against the whole document through
// simdjson: where it takes a file, the same strings, functions, calls,
// costs, warnings and errors; it takes the files gprof2dot's and
// graphgen's writers make, and leaves every unusual one to the general path.
fuzz::TwoPaths read_json_both(const fs::path& path) {
  return test::both_ways(path, json::read_streaming, json::read_general, json::read);
}

TEST(Json, StreamingPathReadsEveryFileAsTheWholeDocumentDoes) {
  std::vector<fs::path> dirs = {td() / "json", td() / "compare/json", td() / "bad/json"};
  if (!test::corpus_dir().empty()) dirs.push_back(test::corpus_dir() / "json");
  const std::set<std::string> streamed = test::streamed_files(test::files_named(dirs, ".json"), read_json_both);
  for (const char* usual : {"procmod.json", "a.json", "b.json"}) {
    EXPECT_TRUE(streamed.count(usual)) << usual;
  }
  if (!test::corpus_dir().empty()) {
    for (const char* usual : {"memtrail.maximum.json", "memtrail.leaked.json", "diamond.json"})
      EXPECT_TRUE(streamed.count(usual)) << usual;
  }
}

TEST(Json, StreamingPathTakesTheUsualShapesAndLeavesTheRest) {
  const std::string functions = R"("functions": [{"name": "main", "module": "a\"pp"}, {"name": "f\u00e9"}])";
  auto doc = [&](const std::string& events, const std::string& extra = "") {
    return R"({"version": 0, "costs": [{"description": "CPU", "unit": "ns"}], )" + functions + extra +
           R"(, "events": [)" + events + "]}";
  };
  const std::vector<test::MadeCase> cases = {
      {"plain", doc(R"({"callchain": [1, 0], "cost": [3]}, {"callchain": [0], "cost": [2]})"), true},
      {"events first, CRLF and tabs",
       "{\"events\":\t[{\"cost\": [7], \"callchain\": [0, 1]}\r\n],\r\n" + functions + ", \"version\": 0}", true},
      {"fractions and exponents", doc(R"({"callchain": [0], "cost": [1.5e3]}, {"callchain": [1], "cost": [-2E-1]})"),
       true},
      {"minus zero and 18 digits",
       doc(R"({"callchain": [0], "cost": [-0]}, {"callchain": [1], "cost": [123456789012345678]})"), true},
      {"an empty callchain", doc(R"({"callchain": [], "cost": [1]}, {"callchain": [0], "cost": [1]})"), true},
      {"a position past the functions", doc(R"({"callchain": [4294967294], "cost": [1]})"), true},
      {"functions last, near the end",
       R"({"version": 0, "events": [{"callchain": [0], "cost": [1]}], )" + functions + "}", true},
      {"no events", doc(""), true},
      {"an escape in a key",
       R"({"version": 0, )" + functions + R"(, "\u0065vents": [{"callchain": [0], "cost": [1]}]})", false},
      {"two costs", doc(R"({"callchain": [0], "cost": [1, 2.5e1]})"), true},
      {"a second cost of 19 digits", doc(R"({"callchain": [0], "cost": [1, 1234567890123456789]})"), true},
      {"a second cost that is not a number", doc(R"({"callchain": [0], "cost": [1, tru]})"), false},
      {"a leading zero", doc(R"({"callchain": [0], "cost": [01]})"), false},
      {"a position 1.0", doc(R"({"callchain": [1.0], "cost": [1]})"), false},
      {"a position 2^32 - 1", doc(R"({"callchain": [4294967295], "cost": [1]})"), false},
      {"19 digits", doc(R"({"callchain": [0], "cost": [1234567890123456789]})"), false},
      {"NaN", doc(R"({"callchain": [0], "cost": [NaN]})"), false},
      {"1e999", doc(R"({"callchain": [0], "cost": [1e999]})"), false},
      {"another member", doc(R"({"callchain": [0], "cost": [1]})", R"(, "meta": {"x": [1, "]"]})"), false},
      {"another key in an event", doc(R"({"callchain": [0], "cost": [1], "thread": 1})"), false},
      {"events twice", doc(R"({"callchain": [0], "cost": [1]})", R"(, "events": [])"), false},
      {"version 0.0", R"({"version": 0.0, "events": [], )" + functions + "}", false},
      {"no version", R"({"events": [], )" + functions + "}", false},
      {"bytes after the document", doc(R"({"callchain": [0], "cost": [1]})") + " x", false},
      {"invalid UTF-8 in a name",
       R"({"version": 0, "functions": [{"name": "a)" + std::string("\xff") + R"("}], "events": []})", false},
      {"invalid UTF-8 between events", doc("{\"callchain\": [0], \"cost\": [1]}\xff"), false},
      {"a cut document", doc(R"({"callchain": [0], "cost": [1]})").substr(0, 150), false},
  };
  test::expect_cases(cases, "stream.json", read_json_both);
}

// A big file's pages are given back as its events are read: the peak was
// simdjson's index of every token (2x the input) beside the file.
TEST(Json, StreamingPathGivesBackThePagesItRead) {
  std::string text = R"({"version": 0, "functions": [{"name": "a"}, {"name": "b"}], "events": [)";
  for (int i = 0; i < 120000; ++i) text += R"({"callchain": [1, 0, 1, 0, 1, 0], "cost": [1000]}, )";
  text += R"({"callchain": [0], "cost": [1]}]})";
  auto r = test::read_mapped("pages.json", text, json::read_streaming);
  ASSERT_TRUE(r.read.has_value());
  ASSERT_TRUE(r.read->has_value());
  EXPECT_EQ((*r.read)->self(0, 0), 1);  // innermost first
  EXPECT_EQ((*r.read)->self(1, 0), 120000 * 1000);
  EXPECT_LT(r.resident_kib, 2048u) << "of " << r.file_kib << " KiB";
  // A second read finds every byte again.
  Diagnostics d2;
  EXPECT_EQ(fuzz::tables(json::read_general(*r.in, {}, d2), d2), fuzz::tables(*r.read, r.diag));
}

// --- sleepy -------------------------------------------------------------------

TEST(Sleepy, ArchivesThatAreNotVerySleepysSaySo) {
  // A zip without Symbols.txt (made with Python's zipfile).
  auto made = test::run({"python3", "-c",
                         "import sys, zipfile\n"
                         "with zipfile.ZipFile(sys.argv[1], 'w') as z: z.writestr('Callstacks.txt', '1.0 sym1\\n')\n",
                         (test::temp_dir() / "x.sleepy").string()});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  fs::path dir = test::temp_dir();
  test::run({"python3", "-c",
             "import sys, zipfile\n"
             "with zipfile.ZipFile(sys.argv[1], 'w') as z:\n"
             "  z.writestr('Symbols.txt', 'sym1 \"m\" \"f\" \"x.c\" 1\\n')\n"
             "  z.writestr('Callstacks.txt', '1.0 sym1 sym7\\n')\n"
             "with zipfile.ZipFile(sys.argv[2], 'w') as z: z.writestr('Callstacks.txt', '1.0 sym1\\n')\n",
             (dir / "unknown.sleepy").string(), (dir / "nosymbols.sleepy").string()});
  auto missing = graphgen({"nosymbols.sleepy"}, dir);
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_EQ(missing.err, "nosymbols.sleepy:+0x" + hex(fs::file_size(dir / "nosymbols.sleepy")) +
                             ": expected the member Symbols.txt in this Very Sleepy archive, found none\n");
  auto unknown = graphgen({"unknown.sleepy"}, dir);
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_EQ(unknown.err, "unknown.sleepy (Callstacks.txt):1:10: expected a symbol id of Symbols.txt, found 'sym7'\n");
  std::string zip = test::read_file(td() / "sleepy/demo.sleepy");
  std::ofstream(dir / "cut.sleepy", std::ios::binary) << zip.substr(0, zip.size() / 2);
  auto cut = graphgen({"-f", "sleepy", "cut.sleepy"}, dir);
  EXPECT_EQ(cut.exit_code, 1);
  EXPECT_TRUE(
      cut.err.starts_with("cut.sleepy:+0x" + hex(zip.size() / 2) +
                          ": expected a Very Sleepy profile (a zip archive), found bytes libarchive cannot open: "))
      << cut.err;
  EXPECT_EQ(std::count(cut.err.begin(), cut.err.end(), '\n'), 1);
}

// Symbol ids of every form name their own symbols: Very Sleepy's "symN"
// (found by number), "sym01" (not sym1's), another form, a number too big
// for the table, an id defined twice (the last wins, as gprof2dot's dict),
// and sym0.
TEST(Sleepy, SymbolIdsOfEveryFormAreTheirOwn) {
  fs::path dir = test::temp_dir();
  auto made = test::run(
      {"python3", "-c",
       "import sys, zipfile\n"
       "with zipfile.ZipFile(sys.argv[1], 'w') as z:\n"
       "  z.writestr('Symbols.txt', 'sym1 \"m\" \"one\" \"x.c\" 1\\nsym01 \"m\" \"zero_one\" \"x.c\" 2\\n'\n"
       "    'sym2 \"m\" \"two_old\" \"x.c\" 3\\nsym2 \"m\" \"two\" \"x.c\" 4\\n0x10 \"m\" \"hex\" \"x.c\" 5\\n'\n"
       "    'sym99999999999 \"m\" \"big\" \"x.c\" 6\\nsym0 \"n\" \"zero\" \"y.c\" 7\\n')\n"
       "  z.writestr('Callstacks.txt', '1.0 sym1 sym01\\n2.0 sym2 0x10 sym99999999999\\n3.0 sym01 sym0\\n0.5 sym0\\n'\n"
       "    '1.5 sym3\\n')\n",
       (dir / "ids.sleepy").string()});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  // (The last sample names sym3, which Symbols.txt does not define.)
  auto unknown = graphgen({"ids.sleepy", "-T", "folded"}, dir);
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_EQ(unknown.err, "ids.sleepy (Callstacks.txt):5:5: expected a symbol id of Symbols.txt, found 'sym3'\n");
  test::run({"python3", "-c",
             "import sys, zipfile\n"
             "a = zipfile.ZipFile(sys.argv[1])\n"
             "with zipfile.ZipFile(sys.argv[2], 'w') as z:\n"
             "  z.writestr('Symbols.txt', a.read('Symbols.txt'))\n"
             "  z.writestr('Callstacks.txt', a.read('Callstacks.txt').replace(b'1.5 sym3\\n', b''))\n",
             (dir / "ids.sleepy").string(), (dir / "known.sleepy").string()});
  auto folded = graphgen({"known.sleepy", "-T", "folded"}, dir);
  EXPECT_EQ(folded.exit_code, 0) << folded.err;
  EXPECT_EQ(folded.out, "big;hex;two 2000000\nzero 500000\nzero;zero_one 3000000\nzero_one;one 1000000\n");
}

// libarchive is loaded when an archive is read, not at every start (it
// and what it brings were 0.8 ms of a 5 ms run): the dynamic loader's own
// account of what it loaded, for a folded file and for a .sleepy one.
TEST(Sleepy, LibarchiveIsLoadedOnlyToReadAnArchive) {
  const fs::path dir = test::temp_dir();
  std::ofstream(dir / "a.folded") << "main;f 3\n";
  auto plain = graphgen({"a.folded", "-T", "folded"}, dir, {"LD_DEBUG=files"});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_NE(plain.err.find("file=libc.so"), std::string::npos) << "no account from the loader";
  EXPECT_EQ(plain.err.find("libarchive"), std::string::npos);
  EXPECT_EQ(plain.out, "main;f 3\n");
  auto archive = graphgen({(td() / "sleepy/demo.sleepy").string(), "-T", "folded"}, dir, {"LD_DEBUG=files"});
  ASSERT_EQ(archive.exit_code, 0) << archive.err;
  EXPECT_NE(archive.err.find("libarchive"), std::string::npos);
  EXPECT_FALSE(archive.out.empty());
  fs::remove_all(dir);
}

// --- sysprof ------------------------------------------------------------------

TEST(Sysprof, LoopsAndBrokenXmlAreOneLine) {
  const std::string loop =
      "<profile><objects><object id=\"1\"><name>\"a\"</name><self>1</self></object>"
      "<object id=\"2\"><name>\"b\"</name><self>0</self></object></objects>"
      "<nodes><node id=\"1\"><object>1</object><parent>2</parent><self>1</self></node>"
      "<node id=\"2\"><object>2</object><parent>3</parent><self>0</self></node>"
      "<node id=\"3\"><object>2</object><parent>2</parent><self>0</self></node></nodes></profile>\n";
  auto r = graphgen({test::write_temp("loop.sysprof", loop).string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(r.err.ends_with("loop.sysprof:1:284: expected parent links that end, found node 3 its own ancestor\n"))
      << r.err;
  auto broken = graphgen({test::write_temp("b.sysprof", "<profile><objects><object id=\"1\">\n</profile>\n").string()});
  EXPECT_EQ(broken.exit_code, 1);
  EXPECT_TRUE(broken.err.ends_with("b.sysprof:2:3: expected well-formed XML, found mismatched tag\n")) << broken.err;
  auto other = graphgen({"-f", "sysprof", test::write_temp("o.xml", "<svg></svg>\n").string()});
  EXPECT_EQ(other.exit_code, 1);
  EXPECT_TRUE(other.err.ends_with("o.xml:1:1: expected <profile> (a sysprof file), found <'svg'>\n")) << other.err;
}

// A big file's pages are given back as expat parses them (a megabyte at a
// time): a 20 MB file took 50 MiB, the file resident and expat's copy of a
// 16 MB chunk beside it. Chunks cut names and numbers anywhere.
TEST(Sysprof, GivesBackThePagesItParsed) {
  const int n = 40000;
  std::string text = "<profile>\n<objects>\n";
  std::int64_t total = 0;
  for (int i = 1; i <= n; ++i) {
    const int self = i % 7 + 1;
    total += self;
    text += "  <object id=\"" + std::to_string(i) + "\">\n    <name>\"function number " + std::to_string(i) +
            "\"</name>\n    <total>" + std::to_string(self) + "</total>\n    <self>" + std::to_string(self) +
            "</self>\n  </object>\n";
  }
  text += "</objects>\n<nodes>\n";
  for (int i = 1; i <= n; ++i)
    text += "  <node id=\"" + std::to_string(i) + "\">\n    <object>" + std::to_string(i) + "</object>\n    <parent>" +
            std::to_string(i == 1 ? 0 : 1) + "</parent>\n    <self>" + std::to_string(i % 7 + 1) +
            "</self>\n  </node>\n";
  text += "</nodes>\n</profile>\n";
  auto r =
      test::read_mapped("pages.sysprof", text,
                        [](const InputFile& in, const formats::ReadOptions& o,
                           Diagnostics& d) -> std::optional<Expected<Profile>> { return sysprof::read(in, o, d); });
  ASSERT_TRUE(r.read.has_value());
  ASSERT_TRUE(r.read->has_value()) << r.read->error().message;
  const Profile& p = **r.read;
  ASSERT_EQ(p.functions.size(), static_cast<std::size_t>(n));
  std::int64_t sum = 0;
  for (FuncId f = 0; f < p.functions.size(); ++f) sum += p.self(f, 0);
  EXPECT_EQ(sum, total);
  EXPECT_EQ(p.str(p.functions[n - 1].name), "function number " + std::to_string(n));
  ASSERT_EQ(p.calls.size(), static_cast<std::size_t>(n - 1));  // main calls each of the others
  EXPECT_EQ(p.inclusive(n - 2, 0), n % 7 + 1);
  EXPECT_GT(r.file_kib, 8192u);
  EXPECT_LT(r.resident_kib, 2048u) << "of " << r.file_kib << " KiB";
}

// --- xperf --------------------------------------------------------------------

TEST(Xperf, FieldsAreCsvWithQuotes) {
  // csv.xperf: a quoted Display Name holding a comma, a quoted Function, a
  // doubled quote, a blank line. gprof2dot splits at every comma and fails.
  std::string dot = dot_of({"xperf/csv.xperf"}, td());
  EXPECT_NE(dot.find("label=\"app.exe\\napp.exe\\noperator()\\n50.00%\\n(50.00%)\""), std::string::npos) << dot;
  EXPECT_NE(dot.find("label=\"app.exe\\napp.exe\\ncompute\\n50.00%\\n(50.00%)\""), std::string::npos) << dot;
  EXPECT_NE(dot.find("label=\"app.exe\\nntdll.dll\\nRtlUserThreadStart\\n100.00%\\n(0.00%)\""), std::string::npos);
  // quoted.xperf (gprof2dot's reading in quoted.dot): the same graph but
  // for the quoted Function, which is `quoted` here and `"quoted"` there.
  std::string ours = dot_of({"xperf/quoted.xperf"}, td());
  std::string diff = test::dot_difference(test::read_file(td() / "xperf/quoted.dot"), ours);
  EXPECT_NE(diff.find("\"quoted\""), std::string::npos) << diff;
  for (std::size_t at = 0; (at = diff.find('\n', at)) != std::string::npos; ++at) {
    std::size_t start = diff.rfind('\n', at - 1);
    std::string line = diff.substr(start == std::string::npos ? 0 : start + 1, at - start);
    EXPECT_NE(line.find("quoted"), std::string::npos) << "an unexpected difference: " << line;
  }
  auto missing = graphgen({"-f", "xperf", test::write_temp("m.csv", "Process Name, Module, Function\n").string()});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_TRUE(
      missing.err.ends_with("m.csv:1:1: expected a column named 'Weight' in the CSV header (an xperf stack "
                            "export), found 'Process Name, Module, Function'\n"))
      << missing.err;
  std::string header = "Process Name, Module, Function, Weight, Count, Stack\n";
  auto open = graphgen({test::write_temp("q.xperf", header + "a, m, \"f, 1, 1, ?\n").string()});
  EXPECT_EQ(open.exit_code, 1);
  EXPECT_TRUE(
      open.err.ends_with("q.xperf:2:7: expected a closing '\"' before the end of the line, found '\"f, 1, 1, "
                         "?'\n"))
      << open.err;
  auto weight = graphgen({test::write_temp("w.xperf", header + "a, m, f, heavy, 1, ?\n").string()});
  EXPECT_EQ(weight.exit_code, 1);
  EXPECT_TRUE(
      weight.err.ends_with("w.xperf:2:1: expected numbers in the Weight and Count columns, found 'heavy' and "
                           "'1'\n"))
      << weight.err;
}

// --- dtrace -------------------------------------------------------------------

TEST(Dtrace, UnnamedFramesCutStacksAndBadLines) {
  const std::string text =
      "              libc.so.1`memcpy+0x1f\n"
      "              0x7fff2d3c\n"
      "              prog`main+0x21\n"
      "                3\n"
      "\n"
      "              prog`main+0x10\n";
  auto r = graphgen({"-T", "dot", "-n0", "-e0", test::write_temp("u.dtrace", text).string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("label=\"0x7fff2d3c\\n100.00%\\n(0.00%)\""), std::string::npos) << r.out;
  EXPECT_TRUE(
      r.err.ends_with("u.dtrace:6:1: expected a sample count after the last stack's 1 frames, found the end "
                      "of the file (a cut file?); that stack was left out\n"))
      << r.err;
  auto bad = graphgen({"-f", "dtrace", test::write_temp("b.dtrace", "              prog`main\nhello\n").string()});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_TRUE(
      bad.err.ends_with("b.dtrace:2:1: expected an indented frame 'module`symbol' or a sample count, found "
                        "'hello'\n"))
      << bad.err;
  // Several aggregations merge by summing.
  std::string one = dot_of({"dtrace/plain.dtrace"}, td());
  auto twice = graphgen({"-T", "dot", "dtrace/plain.dtrace", "dtrace/headers.dtrace"}, td());
  ASSERT_EQ(twice.exit_code, 0) << twice.err;
  EXPECT_EQ(test::dot_difference(one, twice.out), "");  // the same stacks twice: the same shares
}

// --- detection ----------------------------------------------------------------

TEST(Detection, AmbiguousBytesNeedTheExtension) {
  // One-frame collapsed stacks look like many a text: only a collapse
  // extension makes them collapse.
  auto plain = graphgen({test::write_temp("stacks.txt", "main 12\nidle 3\n").string()});
  EXPECT_EQ(plain.exit_code, 1);
  EXPECT_NE(plain.err.find("cannot tell the profile format"), std::string::npos) << plain.err;
  auto folded = graphgen({"-T", "dot", test::write_temp("stacks.folded", "main 12\nidle 3\n").string()});
  EXPECT_EQ(folded.exit_code, 0) << folded.err;
  // JSON whose first member is not the schema's: .json decides.
  std::string json = R"({"comment": "x", "version": 0, "functions": [{"name": "a"}], "events": []})";
  EXPECT_EQ(graphgen({"-T", "dot", test::write_temp("p.json", json).string()}).exit_code, 0);
  EXPECT_EQ(graphgen({test::write_temp("p.data", json).string()}).exit_code, 1);
}

// --- --compare ----------------------------------------------------------------

struct CompareCase {
  std::string oracle;
  std::vector<std::string> options;
};

TEST(Compare, EqualsGprof2dotWhereItMatchesFunctionsRight) {
  // prog-a/prog-b: ./prog 2000 and ./prog 4000 under gprof, which numbered
  // the functions differently in the two; matching by name is right here.
  for (const CompareCase& c :
       std::vector<CompareCase>{{"compare/prof/prog.compare.dot", {}},
                                {"compare/prof/prog.compare-only-slower.dot", {"--compare-only-slower"}},
                                {"compare/prof/prog.compare-tolerance-5.dot", {"--compare-tolerance", "5"}}}) {
    SCOPED_TRACE(c.oracle);
    std::vector<std::string> args = c.options;
    args.insert(args.end(),
                {"--compare-by", "share", "--compare", "compare/prof/prog-a.prof", "compare/prof/prog-b.prof"});
    EXPECT_EQ(test::dot_difference(test::read_file(td() / c.oracle), dot_of(args, td())), "");
  }
}

TEST(Compare, EdgesOfUnmatchedFunctionsShowTheirOwnValuesOnly) {
  // only_in_a -> tokenize: gprof2dot shows `15.00% / 65.00%`, the 65% being
  // the previous node's (parse's) call; graphgen shows 15.00%. Nothing else
  // differs.
  for (const CompareCase& c :
       std::vector<CompareCase>{{"compare/json/ab.compare.dot", {}},
                                {"compare/json/ab.compare-only-slower.dot", {"--compare-only-slower"}},
                                {"compare/json/ab.compare-tolerance-5.dot", {"--compare-tolerance", "5"}}}) {
    SCOPED_TRACE(c.oracle);
    std::vector<std::string> args = c.options;
    args.insert(args.end(), {"--compare-by", "share", "--compare", "compare/json/a.json", "compare/json/b.json"});
    std::string diff = test::dot_difference(test::read_file(td() / c.oracle), dot_of(args, td()));
    EXPECT_NE(diff.find("- edge app\\nonly_in_a"), std::string::npos) << diff;
    EXPECT_NE(diff.find("| 15.00% / 65.00% |"), std::string::npos) << diff;
    EXPECT_NE(diff.find("+ edge app\\nonly_in_a"), std::string::npos) << diff;
    EXPECT_NE(diff.find("| 15.00% |"), std::string::npos) << diff;
    EXPECT_EQ(std::count(diff.begin(), diff.end(), '\n'), 2) << diff;
  }
}

TEST(Compare, ColourByDifferenceMakesTheLargestChangeHottest) {
  auto r = graphgen({"-T", "dot", "--compare-by", "share", "--compare-color-by-difference", "--compare",
                     "compare/json/a.json", "compare/json/b.json"},
                    td());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // tokenize's total share moved most (85% -> 65%): the hot end, red.
  EXPECT_NE(r.out.find("[color=\"#ff0000\", fontcolor=\"#ffffff\", fontsize=\"10.000000\", "
                       "label=\"tokenize\\n85.00% - 20.0%"),
            std::string::npos)
      << r.out;
  // Unchanged and unmatched functions, and every edge, are cold.
  EXPECT_NE(r.out.find("label=\"app\\nonly_in_a\\n15.00%\\n(0.00%)\\n0×\", orientation=0, shape=box"),
            std::string::npos)
      << r.out;
}

TEST(Compare, MatchesByIdentityNotByLabel) {
  // Two functions named parse in different modules: gprof2dot pairs each
  // with whichever B function has the name; graphgen pairs by module too.
  const std::string a = R"({"version": 0, "costs": [{"description": "x"}],
    "functions": [{"name": "main", "module": "app"}, {"name": "parse", "module": "liba"}, {"name": "parse", "module": "libb"}],
    "events": [{"callchain": [1, 0], "cost": [30]}, {"callchain": [2, 0], "cost": [70]}]})";
  const std::string b = R"({"version": 0, "costs": [{"description": "x"}],
    "functions": [{"name": "main", "module": "app"}, {"name": "parse", "module": "libb"}, {"name": "parse", "module": "liba"}],
    "events": [{"callchain": [2, 0], "cost": [30]}, {"callchain": [1, 0], "cost": [70]}]})";
  fs::path dir = test::temp_dir();
  std::ofstream(dir / "a.json") << a;
  std::ofstream(dir / "b.json") << b;
  auto r = graphgen({"-T", "dot", "--compare-by", "share", "--compare", "a.json", "b.json"}, dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The same shares in both: no difference anywhere.
  EXPECT_EQ(r.out.find(" + "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(" - "), std::string::npos) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 5u + 3u + 2u + 1u);  // header, nodes, edges, }
  EXPECT_NE(r.out.find("label=\"30.00% / 30.00%\""), std::string::npos) << r.out;
}

TEST(Compare, UsageErrors) {
  auto one = graphgen({"--compare", "compare/json/a.json"}, td());
  EXPECT_EQ(one.exit_code, 2);
  EXPECT_EQ(one.err,
            "graphgen: error: --compare takes two inputs, the profile before and the one after (several files a "
            "side: a folder or a quoted pattern each, --compare 'before/*.prof' after/); found 1\n");
  auto mixed = graphgen({"--compare", "compare/json/a.json", "compare/prof/prog-a.prof"}, td());
  EXPECT_EQ(mixed.exit_code, 2);
  EXPECT_EQ(mixed.err,
            "graphgen: error: --compare needs two profiles of one format: compare/json/a.json is json, "
            "compare/prof/prog-a.prof is prof\n");
  auto pstats = graphgen({"--compare", "-T", "pstats", "compare/json/a.json", "compare/json/b.json"}, td());
  EXPECT_EQ(pstats.exit_code, 2);
  EXPECT_EQ(pstats.err,
            "graphgen: error: --compare writes a graph (dot or an image), a table (compare, compare.csv, html), a "
            "differential flame graph (flame) or difffolded.pl's columns (folded), not pstats\n");
  auto tolerance =
      graphgen({"--compare-tolerance", "0", "--compare", "compare/json/a.json", "compare/json/b.json"}, td());
  EXPECT_EQ(tolerance.exit_code, 2);
  auto alone = graphgen({"--compare-only-slower", "compare/json/a.json"}, td());
  EXPECT_EQ(alone.exit_code, 2);
  EXPECT_NE(alone.err.find("go with --compare A B"), std::string::npos) << alone.err;
  auto both = graphgen(
      {"--compare-only-slower", "--compare-only-faster", "--compare", "compare/json/a.json", "compare/json/b.json"},
      td());
  EXPECT_EQ(both.exit_code, 2);
}

TEST(Compare, RendersToImages) {
#ifndef GRAPHGEN_HAVE_RENDER
  GTEST_SKIP() << "built without Graphviz";
#endif
  fs::path out = test::temp_dir() / "diff.svg";
  auto r = graphgen({"--compare", "compare/prof/prog-a.prof", "compare/prof/prog-b.prof", "-o", out.string()}, td());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string svg = test::read_file(out);
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(svg.find("fact"), std::string::npos);
}

}  // namespace
}  // namespace graphgen::gprof2dot_formats_test
