// Chrome's and node's .cpuprofile: real `node --cpu-prof` recordings read
// with the times speedscope and the DevTools flame chart give them
// (testdata/chrome/*.functions.tsv, computed independently: a sample lasts
// until the next one).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "chrome/cpuprofile.h"
#include "chrome/trace.h"
#include "fuzz/fuzz.h"
#include "util/both_ways.h"
#include "util/test_util.h"

namespace fs = std::filesystem;

namespace graphgen::chrome_test {
namespace {

fs::path chrome_dir() { return test::testdata_dir() / "chrome"; }

struct Times {
  double self = 0, total = 0;
  int functions = 0;  // of this name
};

// An oracle's functions.tsv, per function name (several anonymous
// functions share one): self and total microseconds summed over its rows,
// its rows, its (url, line)s; and the (root)'s total. Its functionName is
// column `first` (1 where a profile column comes first).
struct Oracle {
  std::map<std::string, Times> times;
  std::map<std::string, std::set<std::string>> keys;
  double whole = 0;
  std::size_t functions() const {
    std::size_t n = 0;
    for (const auto& [name, k] : keys) n += k.size();
    return n;
  }
};

Oracle read_oracle(const fs::path& tsv_path, std::size_t first) {
  Oracle o;
  std::istringstream tsv(test::read_file(tsv_path));
  std::string line;
  std::getline(tsv, line);
  while (std::getline(tsv, line)) {
    const std::vector<std::string> f = test::tsv_fields(line);
    EXPECT_GE(f.size(), first + 7) << line;
    if (f.size() < first + 7) continue;
    if (f[first] == "(root)") {
      o.whole += std::stod(f[first + 6]);
      continue;
    }
    const std::string name = f[first].empty() ? "(anonymous)" : f[first];
    Times& t = o.times[name];
    t.self += std::stod(f[first + 5]);
    t.total += std::stod(f[first + 6]);
    ++t.functions;
    o.keys[name].insert(f[first + 1] + "\t" + f[first + 2]);
  }
  return o;
}

// graphgen's times of `file` per function name (compare.csv of the file
// against itself), microseconds; `rows` its functions, `sum` their self
// times; `err` what it printed on stderr.
std::map<std::string, Times> graphgen_times(const std::string& file, std::size_t& rows, double& sum,
                                            std::string* err = nullptr) {
  auto r = test::graphgen({"--compare", file, file, "-T", "compare.csv"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  if (err) *err = r.err;
  std::map<std::string, Times> have;
  std::istringstream csv(r.out);
  std::string line;
  std::getline(csv, line);
  rows = 0;
  sum = 0;
  while (std::getline(csv, line)) {
    auto f = test::csv_fields(line);
    Times& t = have[f[0]];
    t.self += std::stod(f[7]) * 1e6;
    t.total += std::stod(f[4]) * 1e6;
    sum += std::stod(f[7]) * 1e6;
    ++rows;
  }
  return have;
}

TEST(Cpuprofile, NodeProfilesReadWithSpeedscopesTimes) {
  for (const char* name : {"node-single", "node-worker.main", "node-worker.worker"}) {
    SCOPED_TRACE(name);
    const Oracle want = read_oracle(chrome_dir() / (std::string(name) + ".functions.tsv"), 0);
    std::size_t rows = 0;
    double sum = 0;
    auto have = graphgen_times((chrome_dir() / (std::string(name) + ".cpuprofile")).string(), rows, sum);
    EXPECT_NEAR(sum, want.whole, 0.5);
    for (const auto& [fn, t] : want.times) {
      EXPECT_NEAR(have[fn].self, t.self, 0.5) << fn;
      if (t.functions == 1) {
        EXPECT_NEAR(have[fn].total, t.total, 0.5) << fn;
      }
    }
    EXPECT_EQ(have.size(), want.times.size());
    EXPECT_EQ(rows, want.functions());  // a function per name, url and line
  }
}

TEST(Cpuprofile, SamplesAreASecondEventAndStacksAreExact) {
  const std::string file = (chrome_dir() / "node-single.cpuprofile").string();
  auto stats = test::graphgen({file, "--event", "samples", "-T", "stats"});
  ASSERT_EQ(stats.exit_code, 0) << stats.err;
  EXPECT_NE(stats.out.find("0 function calls in 1170 samples"), std::string::npos) << stats.out.substr(0, 300);
  auto folded = test::graphgen({file, "-T", "folded"});
  ASSERT_EQ(folded.exit_code, 0) << folded.err;
  EXPECT_EQ(folded.err, "");  // recorded stacks: nothing rebuilt
  EXPECT_NE(folded.out.find(";processChunkSync "), std::string::npos);
}

}  // namespace
}  // namespace graphgen::chrome_test

namespace graphgen::chrome_test {
namespace {

// A JSON profile cut short is an error at its end, where what it opened
// was to be closed: a .cpuprofile, a speedscope file, gprof2dot's JSON (each
// said +0x0, the file's start, wherever it was cut).
TEST(Trace, AJsonProfileCutShortIsAnErrorAtItsEnd) {
  fs::path dir = test::temp_dir();
  for (const fs::path& whole :
       {chrome_dir() / "node-single.cpuprofile", test::testdata_dir() / "speedscope" / "evented.speedscope.json",
        test::testdata_dir() / "json" / "procmod.json"}) {
    SCOPED_TRACE(whole.string());
    const std::string bytes = test::read_file(whole);
    const std::string name = "cut-" + whole.filename().string();
    for (std::size_t cut : {bytes.size() / 3, bytes.size() / 2}) {
      SCOPED_TRACE(cut);
      std::ofstream(dir / name, std::ios::binary) << bytes.substr(0, cut);
      auto r = test::graphgen({name, "-o", "x.dot"}, dir);
      EXPECT_EQ(r.exit_code, 1);
      const std::string at = name + ":+0x" + [&] {
        std::ostringstream hex;
        hex << std::hex << cut;
        return hex.str();
      }() + ": expected ";
      EXPECT_EQ(r.err.rfind(at, 0), 0u) << r.err;
      EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;  // (one line)
    }
  }
}

// By hand, cut short as a trace of a killed program is: slices nest
// (X inside B/E), a second thread's last slice is never closed.
TEST(Trace, SlicesNestIntoStacksPerThread) {
  auto r = test::graphgen({(chrome_dir() / "cut.trace.json").string(), "-T", "folded"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "tid_1_(pid_1);main 70\ntid_1_(pid_1);main;parse 25\ntid_1_(pid_1);main;parse;lex 5\n"
            "tid_2_(pid_1);idle 30\ntid_2_(pid_1);late 10\ntid_2_(pid_1);late;tick 5\n");
  EXPECT_NE(r.err.find("1 slices are never closed (they end at their thread's last event)"), std::string::npos)
      << r.err;
}

// node --trace-event-categories v8,node,...: each name's inclusive time is
// the duration of its slices (node-trace-events.names.tsv, an independent
// script), where a slice of one name nests in another of that name once
// (RunCleanup: 67 + 14 and 21 + 11 us; inclusive counts the outer ones).
TEST(Trace, NodeTraceEventsReadWithTheirDurations) {
  const std::string file = (chrome_dir() / "node-trace-events.json").string();
  auto r = test::graphgen({"--compare", file, file, "-T", "compare.csv", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, double> inclusive;
  std::istringstream csv(r.out);
  std::string line;
  std::getline(csv, line);
  while (std::getline(csv, line)) {
    auto f = test::csv_fields(line);
    inclusive[f[0]] += std::stod(f[4]) * 1e6;
  }
  for (auto [name, us] : {std::pair{"V8.GCScavenger", 34221.0}, std::pair{"MinorGC", 36432.0},
                          std::pair{"V8.DeserializeIsolate", 11640.0}, std::pair{"V8.DeserializeContext", 3239.0},
                          std::pair{"RunAndClearNativeImmediates", 1276.0}, std::pair{"fs.sync.lstat", 34.0},
                          std::pair{"RunCleanup", 88.0}, std::pair{"V8.DeoptimizeCode", 35.0}})
    EXPECT_NEAR(inclusive[name], us, 0.01) << name;
  auto folded = test::graphgen({file, "-T", "folded", "-q"});
  EXPECT_NE(folded.out.find("JavaScriptMainThread_(node_27697);MinorGC;V8.GCScavenger "), std::string::npos);
  EXPECT_NE(folded.out.find("[worker_1]_(node_27697);"), std::string::npos) << folded.out.substr(0, 400);
}

// The streaming path (chrome/cpuprofile.cc) against the whole document
// through simdjson: where it takes a profile, the same tables, timeline,
// warnings and errors.
fuzz::TwoPaths read_cpuprofile_both(const fs::path& path) {
  return test::both_ways(path, chrome::read_cpuprofile_streaming, chrome::read_cpuprofile_general,
                         chrome::read_cpuprofile, true);
}

TEST(Cpuprofile, StreamingPathReadsEveryProfileAsTheGeneralPathDoes) {
  const auto files = test::files_named({chrome_dir(), test::testdata_dir() / "bad" / "cpuprofile"}, ".cpuprofile");
  ASSERT_GE(files.size(), 10u);
  const std::set<std::string> streamed = test::streamed_files(files, read_cpuprofile_both);
  for (const char* usual : {"node-single.cpuprofile", "node-worker.main.cpuprofile", "node-worker.worker.cpuprofile"})
    EXPECT_TRUE(streamed.count(usual)) << usual;
}

TEST(Cpuprofile, StreamingPathTakesTheUsualShapesAndLeavesTheRest) {
  const std::string nodes =
      R"J("nodes":[{"id":1,"callFrame":{"functionName":"(root)","url":"","lineNumber":-1},"children":[2,3]},
{"id":2,"callFrame":{"functionName":"main","url":"file:///a.js","lineNumber":3},"children":[4]},
{"id":3,"callFrame":{"functionName":"(garbage collector)","url":"","lineNumber":-1}},
{"id":4,"callFrame":{"functionName":"f\u00e9","url":"file:///a.js","lineNumber":9}}])J";
  auto doc = [&](const std::string& samples, const std::string& deltas, const std::string& extra = "") {
    return "{" + nodes + R"J(,"startTime":1000,"endTime":9000)J" + extra + R"J(,"samples":)J" + samples +
           R"J(,"timeDeltas":)J" + deltas + "}";
  };
  std::string many = "[", many_deltas = "[";
  for (int i = 0; i < 20000; ++i) {
    many += std::to_string(2 + i % 3) + (i + 1 < 20000 ? "," : "]");
    many_deltas += std::to_string(100 + i % 7) + (i + 1 < 20000 ? ",\n" : "]");
  }
  const std::vector<test::MadeCase> cases = {
      {"as node writes it", doc("[2,4,4,3,2]", "[12,125,130,126,90]"), true},
      {"spaces and new lines", doc("[ 2 ,\n4 , 3 ]", "[\r\n1 ,\t2, 3 ]"), true},
      {"many samples", doc(many, many_deltas), true},
      {"samples before nodes", R"J({"samples":[2,4],"timeDeltas":[1,2],"startTime":5,)J" + nodes + "}", true},
      {"out of time order", doc("[2,4,3,2]", "[100,-50,80,-10]"), true},
      {"fractions and exponents", doc("[2,4,3]", "[1.5,2e2,-0.25]"), true},
      {"a delta past 2^31", doc("[2,4,3]", "[1,3000000000,2]"), true},
      {"no samples", doc("[]", "[]"), true},
      {"another member with arrays", doc("[2,4]", "[1,2]", R"J(,"meta":{"a":[1,"]"],"b":null})J"), true},
      {"a delta of -0", doc("[2,4]", "[1,-0]"), false},
      {"a sample 2.0", doc("[2.0,4]", "[1,2]"), false},
      {"a negative sample", doc("[-2,4]", "[1,2]"), false},
      {"a sample of no node", doc("[2,7]", "[1,2]"), false},
      {"one delta too few", doc("[2,4,3]", "[1,2]"), false},
      {"samples twice", doc("[2]", "[1]", R"J(,"samples":[4])J"), false},
      {"an escaped key", "{" + nodes + R"J(,"sampl\u0065s":[2],"timeDeltas":[1]})J", false},
      {"a string among the deltas", doc("[2,4]", R"J([1,"2"])J"), false},
      {"19 digits", doc("[2]", "[1234567890123456789]"), false},
      {"bytes after the document", doc("[2]", "[1]") + " x", false},
      {"invalid UTF-8 in a name", doc("[2]", "[1]", R"J(,"x":")J" + std::string("\xff") + "\""), false},
      {"the old format", R"J({"head":{},"samples":[1],"timeDeltas":[1]})J", false},
      {"cut in the samples", doc("[2,4,3]", "[1,2,3]").substr(0, nodes.size() + 50), false},
  };
  test::expect_cases(cases, "s.cpuprofile", read_cpuprofile_both);
}

// A long profile's pages are given back as its samples are read, and it
// keeps 8 bytes a sample where simdjson's index of the whole document took
// more than the file.
TEST(Cpuprofile, StreamingPathGivesBackThePagesItRead) {
  std::string text =
      R"J({"nodes":[{"id":1,"callFrame":{"functionName":"(root)","url":"","lineNumber":-1},"children":[2]},
{"id":2,"callFrame":{"functionName":"main","url":"a.js","lineNumber":0}}],"startTime":0,"samples":[)J";
  std::string deltas;
  for (int i = 0; i < 500000; ++i) {  // about 6 MB
    text += i % 2 ? "1," : "2,";
    deltas += std::to_string(1000 + i % 9) + ",";
  }
  text += R"J(2],"timeDeltas":[)J" + deltas + "7]}";
  auto r = test::read_mapped("pages.cpuprofile", text, chrome::read_cpuprofile_streaming);
  ASSERT_TRUE(r.read.has_value());
  ASSERT_TRUE(r.read->has_value()) << r.read->error().message;
  EXPECT_LT(r.resident_kib, 2048u) << "of " << r.file_kib << " KiB";
  EXPECT_EQ((*r.read)->functions.size(), 1u);
  EXPECT_EQ((*r.read)->self(0, 1), 250001);  // samples of main
}

// V8's nested "head" formats are not read, but named: a heap profile
// (`node --heap-prof`, testdata/chrome/node.heapprofile) and a CPU profile
// of before Chrome 58 were "cannot tell the profile format".
TEST(Cpuprofile, NestedHeadFormatsAreNamed) {
  auto heap = test::graphgen({"-T", "stats", (chrome_dir() / "node.heapprofile").string()});
  EXPECT_EQ(heap.exit_code, 1);
  EXPECT_NE(heap.err.find("node.heapprofile:+0x8: expected a CPU profile, found a V8 heap profile (\"head\" nodes "
                          "with a \"selfSize\": node --heap-prof, DevTools' allocation sampling), which graphgen "
                          "does not read"),
            std::string::npos)
      << heap.err;
  auto old =
      test::graphgen({"-T", "stats",
                      test::write_temp("old.json", R"J({"head": {"callFrame": {"functionName": "(root)"}, "hitCount": 0,
"children": []}, "startTime": 1, "endTime": 2, "samples": [], "timestamps": []})J")
                          .string()});
  EXPECT_EQ(old.exit_code, 1);
  EXPECT_NE(old.err.find("found the older nested \"head\" format, which graphgen does not read"), std::string::npos)
      << old.err;
}

// Every anonymous function of a script is `(anonymous)`: two of one file
// at different lines are two functions. The merge that every profile goes
// through kept functions apart by name and file alone (their line only for
// Python's), so the top-level code of a page and a comparator it passes to
// sort were one function, calling itself (a cycle with sortMany in the
// picture of chromium-v8-samples). The same for speedscope's frames, as
// speedscope keys them, but py-spy's.
TEST(Cpuprofile, AnonymousFunctionsAtDifferentLinesStayApart) {
  const fs::path cpuprofile = test::write_temp("anon.cpuprofile", R"J({"nodes":[
{"id":1,"callFrame":{"functionName":"(root)","url":"","lineNumber":-1}},
{"id":2,"parent":1,"callFrame":{"functionName":"","url":"app.js","lineNumber":0}},
{"id":3,"parent":2,"callFrame":{"functionName":"","url":"app.js","lineNumber":4}}],
"samples":[2,3,3],"timeDeltas":[1000,2000,3000],"startTime":0,"endTime":9000})J");
  const fs::path speedscope = test::write_temp("anon.speedscope.json", R"J({
"$schema": "https://www.speedscope.app/file-format-schema.json",
"shared": {"frames": [{"name": "(anonymous)", "file": "app.js", "line": 1},
                      {"name": "(anonymous)", "file": "app.js", "line": 5}]},
"profiles": [{"type": "sampled", "name": "p", "unit": "milliseconds", "startValue": 0, "endValue": 5,
              "samples": [[0], [0, 1]], "weights": [2, 3]}]})J");
  for (const fs::path& file : {cpuprofile, speedscope}) {
    SCOPED_TRACE(file.filename().string());
    auto r = test::graphgen({"-T", "stats", file.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("0.002             0.005          app.js:1((anonymous))"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("0.003             0.003          app.js:5((anonymous))"), std::string::npos) << r.out;
    // No call of a function to itself.
    auto cg = test::graphgen({"-T", "callgrind", file.string()});
    ASSERT_EQ(cg.exit_code, 0) << cg.err;
    EXPECT_NE(cg.out.find("fn=(2)"), std::string::npos) << cg.out;
    EXPECT_EQ(cg.out.find("cfn=(1)"), std::string::npos) << cg.out;
  }
  // py-spy's frames carry the line being run: one function.
  std::string pyspy = test::read_file(speedscope);
  pyspy.replace(pyspy.rfind('}'), 1, ", \"exporter\": \"py-spy@0.4.2\"}");
  auto one = test::graphgen({"-T", "stats", test::write_temp("lines.speedscope.json", pyspy).string()});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_NE(one.out.find("0.005             0.005          app.js:1((anonymous))"), std::string::npos) << one.out;
  EXPECT_EQ(one.out.find("app.js:5"), std::string::npos) << one.out;
  // graphgen's own speedscope file read back: the same two functions (they
  // were one when only frames with a column kept lines apart).
  const fs::path back = test::write_temp("back.speedscope.json", "");
  ASSERT_EQ(test::graphgen({cpuprofile.string(), "-T", "speedscope", "-o", back.string()}).exit_code, 0);
  auto again = test::graphgen({"-T", "stats", back.string()});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("0.002             0.005          app.js:1((anonymous))"), std::string::npos) << again.out;
  EXPECT_NE(again.out.find("0.003             0.003          app.js:5((anonymous))"), std::string::npos) << again.out;
}

// The picture told them apart by nothing: every node of an anonymous
// function was labelled `(anonymous)` (the file in the tooltip only), as
// were node's 4 anonymous functions of cjs/loader. The line above the name
// is the file's last part and the line, as DevTools links them; a function
// with no file (V8's own) has none.
TEST(Cpuprofile, GraphLabelsNameEachFunctionsFileAndLine) {
  const fs::path cpuprofile = test::write_temp("anon.cpuprofile", R"J({"nodes":[
{"id":1,"callFrame":{"functionName":"(root)","url":"","lineNumber":-1}},
{"id":2,"parent":1,"callFrame":{"functionName":"","url":"file:///srv/www/app.js","lineNumber":0}},
{"id":3,"parent":2,"callFrame":{"functionName":"","url":"file:///srv/www/app.js","lineNumber":4}},
{"id":4,"parent":3,"callFrame":{"functionName":"(garbage collector)","url":"","lineNumber":-1}}],
"samples":[2,3,4],"timeDeltas":[1000,2000,3000],"startTime":0,"endTime":9000})J");
  auto r = test::graphgen({"-T", "dot", "-n", "0", "-e", "0", cpuprofile.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("label=\"app.js:1\\n(anonymous)\\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("label=\"app.js:5\\n(anonymous)\\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("label=\"(garbage collector)\\n"), std::string::npos) << r.out;
  // The stats table's file column and the names -z matches are as before.
  auto stats = test::graphgen({"-T", "stats", cpuprofile.string()});
  EXPECT_NE(stats.out.find("file:///srv/www/app.js:5((anonymous))"), std::string::npos) << stats.out;
  auto list = test::graphgen({"--list-functions", "+", cpuprofile.string()});
  EXPECT_NE(list.out.find("\t(anonymous)\n"), std::string::npos) << list.out;
  // The comparison's table names them so too (three rows named
  // `(anonymous)` and nothing else); its CSV keeps the label alone.
  auto table = test::graphgen({"--compare", cpuprofile.string(), cpuprofile.string(), "-T", "compare"});
  EXPECT_NE(table.out.find("  identity        (anonymous) (app.js:5)\n"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("  identity        (anonymous) (app.js:1)\n"), std::string::npos) << table.out;
}

// The windowed path (chrome/trace.cc) against the whole document through
// simdjson: where it takes a trace, the same tables, warnings and errors.
fuzz::TwoPaths read_trace_both(const fs::path& path) {
  return test::both_ways(path, chrome::read_trace_windows, chrome::read_trace_whole, chrome::read_trace, true);
}

TEST(Trace, WindowsReadEveryTraceAsTheWholeDocumentDoes) {
  const std::set<std::string> windowed = test::streamed_files(
      {chrome_dir() / "cut.trace.json", chrome_dir() / "node-trace-events.json",
       test::testdata_dir() / "bad/trace/no-dur.trace.json", test::testdata_dir() / "bad/trace/no-ts.trace.json",
       test::testdata_dir() / "bad/trace/ts-type.trace.json"},
      read_trace_both);
  EXPECT_EQ(windowed, (std::set<std::string>{"cut.trace.json", "node-trace-events.json"}));
}

TEST(Trace, WindowsTakeTheUsualShapesAndLeaveTheRest) {
  const std::string events =
      R"([{"name":"main","ph":"B","pid":1,"tid":1,"ts":0},
{"name":"f\u00e9","ph":"X","pid":1,"tid":"t","ts":10,"dur":30,"args":{"file":"a.py","line":3}},
{"ph":"M","name":"thread_name","pid":1,"tid":"t","args":{"name":"worker"}},
{"name":"main","ph":"E","pid":1,"tid":1,"ts":100}])";
  std::string big = "[";
  for (int i = 0; i < 40000; ++i)  // about 3 MB: three windows
    big += R"({"name":"f)" + std::to_string(i % 500) + R"(","ph":"X","pid":1,"tid":)" + std::to_string(i % 3) +
           R"(,"ts":)" + std::to_string(i * 10) + R"(,"dur":5},)" + "\n";
  big += R"({"name":"last","ph":"X","pid":1,"tid":1,"ts":1,"dur":1}])";
  const std::vector<test::MadeCase> cases = {
      {"an array", events, true},
      {"an object with other members",
       R"({"displayTimeUnit": "ns", "traceEvents": )" + events + R"(, "metadata": {"a": [1, "]}"], "b": null}})", true},
      {"three windows", big, true},
      {"cut after an element", events.substr(0, events.size() - 1) + ",\n", true},
      {"cut after an element, no comma", events.substr(0, events.size() - 1), true},
      {"an empty array", "[]", true},
      {"no traceEvents", R"({"metadata": {}})", false},
      {"traceEvents twice", R"({"traceEvents": [], "traceEvents": )" + events + "}", false},
      {"an escaped key", R"({"trace\u0045vents": )" + events + "}", false},
      {"a key that is not ASCII (its UTF-8 never given to simdjson)",
       "{\"m\xc3\xa9ta\": 1, \"traceEvents\": " + events + "}", false},
      {"bytes after the document", events + " x", false},
      {"another member's value starting with a colon (the fuzz target's)",
       R"({"traceEvents": [], "timeDeltas"::100, "dur": 500})", false},
      {"a trailing comma", "[" + events.substr(1, events.size() - 2) + ",]", false},
      {"invalid UTF-8 in another member", R"({"metadata": ")" + std::string("\xff") + R"(", "traceEvents": []})",
       false},
      {"a control character in another member",
       R"({"metadata": "a)" + std::string("\x01") + R"(b", "traceEvents": []})", false},
      {"an event without ts", R"([{"name":"main","ph":"B","pid":1,"tid":1}])", false},
      {"an element that is not an object", R"([{"name":"main","ph":"B","pid":1,"tid":1,"ts":0}, 5])", false},
      {"cut inside an element", events.substr(0, 60), false},
  };
  test::expect_cases(cases, "w.trace.json", read_trace_both);
}

// V8's sampled CPU profile in a trace (Profile and ProfileChunk events):
// a real node trace (`--trace-event-categories
// disabled-by-default-v8.cpu_profiler,v8`) and a real Chromium one (a page
// sorting and building DOM, three renderer threads profiled). They were
// read as their slices alone (`v8.run` 1.4 s of self time, no JS function);
// now every function's self time, and the total of those of one name, equal
// an independent computation (testdata/chrome/v8_samples_oracle.py: a
// sample lasts until the next, as speedscope counts it), and the warning
// says the slices are left out.

TEST(Trace, V8SamplesReadWithSpeedscopesTimes) {
  for (const char* name : {"node-v8-samples", "chromium-v8-samples"}) {
    SCOPED_TRACE(name);
    const Oracle want = read_oracle(chrome_dir() / (std::string(name) + ".functions.tsv"), 1);
    std::size_t rows = 0;
    double sum = 0;
    std::string err;
    auto have = graphgen_times((chrome_dir() / (std::string(name) + ".trace.json.xz")).string(), rows, sum, &err);
    EXPECT_NE(err.find("the trace holds V8's sampled CPU profile (Profile and ProfileChunk events)"), std::string::npos)
        << err;
    EXPECT_NE(err.find("trace slices left out"), std::string::npos) << err;
    EXPECT_EQ(rows, want.functions());  // a function per name, url and line
    EXPECT_GT(want.whole, 1e5);
    EXPECT_NEAR(sum, want.whole, 0.5 * static_cast<double>(want.times.size()));  // (microseconds, rounded per node)
    for (const auto& [fn, t] : want.times) {
      EXPECT_NEAR(have[fn].self, t.self, 0.5 * t.functions) << fn;
      if (t.functions == 1) {
        EXPECT_NEAR(have[fn].total, t.total, 0.5) << fn;
      }
    }
    EXPECT_EQ(have.size(), want.times.size());
  }
  // The JS functions of the page, which the slices never named.
  auto page = test::graphgen({"-T", "stats", (chrome_dir() / "chromium-v8-samples.trace.json.xz").string()});
  EXPECT_NE(page.out.find("page2.html:3(sortMany)"), std::string::npos) << page.out.substr(0, 2000);
}

TEST(Trace, V8SamplesWindowsReadAsTheWholeDocumentDoes) {
  for (const char* name : {"node-v8-samples", "chromium-v8-samples"}) {
    SCOPED_TRACE(name);
    const InputFile in = InputFile::from_bytes(name, test::unxz(chrome_dir() / (std::string(name) + ".trace.json.xz")));
    const fuzz::TwoPaths r =
        test::both_ways(in, chrome::read_trace_windows, chrome::read_trace_whole, chrome::read_trace, true);
    ASSERT_TRUE(r.fast.has_value());
    EXPECT_EQ(*r.fast, r.general);
    EXPECT_NE(r.general.find("V8's sampled CPU profile"), std::string::npos);
  }
}

TEST(Trace, V8SamplesMadeCases) {
  const std::string chunk =
      R"J({"name":"Profile","ph":"P","pid":7,"tid":7,"ts":100,"id":"0x1","args":{"data":{"startTime":100}}},
{"name":"ProfileChunk","ph":"P","pid":7,"tid":9,"ts":200,"id":"0x1","args":{"data":{"cpuProfile":{"nodes":[
{"id":1,"callFrame":{"functionName":"(root)","url":"","lineNumber":-1}},
{"id":2,"parent":1,"callFrame":{"functionName":"main","url":"app.js","lineNumber":0}},
{"id":3,"parent":2,"callFrame":{"functionName":"","url":"app.js","lineNumber":4}}],
"samples":[2,3,3]},"timeDeltas":[10,20,30]}}},
{"name":"ProfileChunk","ph":"P","pid":7,"tid":9,"ts":300,"id":"0x1","args":{"data":{"cpuProfile":{"nodes":[
{"id":4,"parent":2,"callFrame":{"functionName":"work","url":"app.js","lineNumber":9}}],
"samples":[4,2]},"timeDeltas":[40,50]}}},
{"name":"thread_name","ph":"M","pid":7,"tid":7,"args":{"name":"main thread"}},
{"name":"run","ph":"X","pid":7,"tid":7,"ts":100,"dur":500})J";
  auto read = [](const std::string& text) {
    Diagnostics d;
    const InputFile in = InputFile::from_bytes("made.trace.json", text);
    formats::ReadOptions o;
    auto p = chrome::read_trace(in, o, d);
    return std::make_pair(std::move(p), d.warnings());
  };
  // Samples at 110 (main), 130, 160 (the anonymous function), 200 (work)
  // and 250 (main), each lasting until the next, the last 0: main 20, the
  // anonymous function 70, work 50; the slice left out.
  {
    auto [p, warnings] = read("[" + chunk + "]");
    ASSERT_TRUE(p.has_value()) << p.error().message;
    std::map<std::string, std::pair<Cost, Cost>> self;  // name: time, samples
    for (FuncId f = 0; f < p->functions.size(); ++f)
      self[std::string(p->str(p->functions[f].name))] = {p->self(f, 0), p->self(f, 1)};
    EXPECT_EQ(self, (std::map<std::string, std::pair<Cost, Cost>>{
                        {"main", {20, 2}}, {"(anonymous)", {70, 2}}, {"work", {50, 1}}}));
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_EQ(warnings[0],
              "made.trace.json: the trace holds V8's sampled CPU profile (Profile and ProfileChunk events): its 5 "
              "samples of 1 thread(s) are read, as speedscope reads such a trace, and its 1 trace slices left out");
  }
  // Detected as a trace with its profile first (it was taken for a
  // .cpuprofile: "expected the member \"nodes\"").
  {
    auto r =
        test::graphgen({"-T", "folded", test::write_temp("first.json", "{\"traceEvents\": [" + chunk + "]}").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "main 20\nmain;(anonymous) 70\nmain;work 50\n");
  }
  // The old single CpuProfile event: the same profile whole.
  {
    auto [p, warnings] = read(
        R"J([{"name":"CpuProfile","ph":"I","pid":7,"tid":7,"ts":100,"args":{"data":{"cpuProfile":{"startTime":100,"nodes":[
{"id":1,"callFrame":{"functionName":"(root)"}},{"id":2,"parent":1,"callFrame":{"functionName":"main","url":"app.js"}}],
"samples":[2,2],"timeDeltas":[5,7]}}}}])J");
    ASSERT_TRUE(p.has_value()) << p.error().message;
    ASSERT_EQ(p->functions.size(), 1u);
    EXPECT_EQ(p->self(0, 0), 7);
    EXPECT_EQ(p->self(0, 1), 2);
  }
  // Profile events with no samples (no "cpuProfile"): the slices are read,
  // with no word of V8's profile, by the windowed read and the whole
  // document alike (the whole one said "its 0 samples of 0 thread(s) are
  // read": the fuzz target found it).
  {
    std::string none = chunk;
    for (std::size_t at; (at = none.find("\"cpuProfile\"")) != std::string::npos;)
      none.replace(at, 12, "\"cpuProfilX\"");
    const InputFile in = InputFile::from_bytes("none.trace.json", "{\"traceEvents\": [" + none + "]}");
    const fuzz::TwoPaths r =
        test::both_ways(in, chrome::read_trace_windows, chrome::read_trace_whole, chrome::read_trace, true);
    ASSERT_TRUE(r.fast.has_value());
    EXPECT_EQ(*r.fast, r.general);
    EXPECT_EQ(r.general.find("warning"), std::string::npos) << r.general;
    EXPECT_NE(r.general.find("run"), std::string::npos) << r.general;
  }
  // The names in a string only: the slices are read.
  {
    auto [p, warnings] = read(R"J([{"name":"ProfileChunk","ph":"X","pid":1,"tid":1,"ts":0,"dur":5,
"args":{"note":"\"ProfileChunk\""}}])J");
    ASSERT_TRUE(p.has_value()) << p.error().message;
    ASSERT_EQ(p->functions.size(), 1u);
    EXPECT_EQ(p->str(p->functions[0].name), "ProfileChunk");
    EXPECT_TRUE(warnings.empty());
  }
  // A sample of no node, and deltas that do not match the samples.
  {
    std::string bad = chunk;
    bad.replace(bad.find("\"samples\":[4,2]"), 15, "\"samples\":[4,8]");
    auto [p, warnings] = read("[" + bad + "]");
    ASSERT_FALSE(p.has_value());
    EXPECT_NE(p.error().message.find("sample 4 is of node 8, which is no node"), std::string::npos)
        << p.error().message;
    std::string short_deltas = chunk;
    short_deltas.replace(short_deltas.find("[40,50]"), 7, "[40]");
    auto [q, w2] = read("[" + short_deltas + "]");
    ASSERT_FALSE(q.has_value());
    EXPECT_NE(q.error().message.find("expected one time delta per sample, found 4 deltas for 5 samples"),
              std::string::npos)
        << q.error().message;
  }
}

// A big trace's pages are given back as its windows are read.
TEST(Trace, WindowsGiveBackThePagesTheyRead) {
  std::string text = R"({"traceEvents": [)";
  for (int i = 0; i < 80000; ++i)  // about 6 MB
    text += R"({"name":"f)" + std::to_string(i % 50) + R"(","ph":"X","pid":1,"tid":1,"ts":)" + std::to_string(i * 10) +
            R"(,"dur":5},)" + "\n";
  text += R"({"name":"g","ph":"X","pid":1,"tid":1,"ts":1,"dur":1}]})";
  auto r = test::read_mapped("pages.trace.json", text, chrome::read_trace_windows);
  ASSERT_TRUE(r.read.has_value());
  ASSERT_TRUE(r.read->has_value()) << r.read->error().message;
  EXPECT_LT(r.resident_kib, 2048u) << "of " << r.file_kib << " KiB";
  EXPECT_EQ((*r.read)->functions.size(), 51u);
}

}  // namespace
}  // namespace graphgen::chrome_test
