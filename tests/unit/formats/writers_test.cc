// The writers against the tools that read their output: callgrind_annotate
// reads every callgrind file graphgen writes, callgrind round trips are
// equal by callgrindcmp, merged pstats load in Python 3 (and 2.7 where it
// exists) with the numbers of pstats.Stats(*ranks).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <sstream>

#include "graphgen/io.h"
#include "pstats/reader.h"
#include "pstats/writer.h"
#include "util/test_util.h"

namespace graphgen::writers_test {
namespace {

namespace fs = std::filesystem;

bool have(const char* program) { return test::run({"sh", "-c", std::string("command -v ") + program}).exit_code == 0; }

// Every input graphgen reads from the corpus and testdata, with the format.
std::vector<fs::path> inputs_to_convert() {
  std::vector<fs::path> out;
  fs::path td = test::testdata_dir();
  for (const char* f : {"demo.pstats", "demo-profile.pstats", "demo-py27.pstats", "callgrind/parity.callgrind",
                        "perf/q-g.perf", "perf/q-nog.perf"})
    out.push_back(td / f);
  fs::path corpus = test::corpus_dir();
  if (!corpus.empty())
    for (const char* dir : {"pstats", "real/pstats", "real/pyversions", "callgrind", "real/callgrind", "perf",
                            "real/perf", "collapse", "edge/pstats", "edge/callgrind", "edge/perf"})
      for (const auto& e : fs::directory_iterator(corpus / dir)) {
        std::string ext = e.path().extension().string();
        if (ext == ".pstats" || ext == ".callgrind" || ext == ".perf" || ext == ".collapse") out.push_back(e.path());
      }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(CallgrindWriter, CallgrindAnnotateReadsEveryFileWrittenWithoutAWarning) {
  if (!have("callgrind_annotate")) GTEST_SKIP() << "callgrind_annotate (valgrind) is not installed";
  fs::path dir = test::temp_dir();
  int n = 0;
  for (const fs::path& in : inputs_to_convert()) {
    SCOPED_TRACE(in.string());
    fs::path out = dir / "out.callgrind";
    auto r = test::graphgen({in.string(), "-o", out.string(), "-q"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto ann = test::run({"callgrind_annotate", out.string()});
    EXPECT_EQ(ann.exit_code, 0);
    EXPECT_EQ(ann.err, "");
    EXPECT_NE(ann.out.find("PROGRAM TOTALS"), std::string::npos);
    ++n;
  }
  EXPECT_GE(n, 6);
  fs::remove_all(dir);
}

TEST(CallgrindWriter, AnnotateShowsPerLineCostsWithTheSource) {
  if (!have("callgrind_annotate")) GTEST_SKIP() << "callgrind_annotate (valgrind) is not installed";
  fs::path dir = test::temp_dir();
  fs::path out = dir / "parity.callgrind";
  ASSERT_EQ(test::graphgen({(test::testdata_dir() / "callgrind" / "parity.callgrind").string(), "-o", out.string()})
                .exit_code,
            0);
  // The profile names its source /tmp/small.c, which no other machine has:
  // the test puts the source in its own folder and points the file there.
  std::ofstream(dir / "small.c") << test::read_file(test::testdata_dir() / "callgrind" / "parity.c");
  std::string text = test::read_file(out);
  std::size_t renamed = 0;
  for (std::size_t at; (at = text.find("/tmp/small.c")) != std::string::npos; ++renamed)
    text.replace(at, 12, (dir / "small.c").string());
  ASSERT_GT(renamed, 0u);
  std::ofstream(out, std::ios::binary | std::ios::trunc) << text;
  auto ann = test::run({"callgrind_annotate", "--auto=yes", out.string()});
  EXPECT_EQ(ann.exit_code, 0) << ann.err;
  EXPECT_NE(ann.out.find("is_even(unsigned n) { return n == 0"), std::string::npos) << ann.out.substr(0, 2000);
  fs::remove_all(dir);
}

TEST(CallgrindWriter, RoundTripKeepsEveryEventAndCostByCallgrindcmp) {
  fs::path corpus = test::corpus_dir();
  if (corpus.empty() || test::conformance_dir().empty()) GTEST_SKIP() << test::no_corpus_message();
  fs::path dir = test::temp_dir();
  std::vector<fs::path> files{test::testdata_dir() / "callgrind" / "parity.callgrind"};
  for (const char* d : {"callgrind", "real/callgrind", "edge/callgrind"})
    for (const auto& e : fs::directory_iterator(corpus / d))
      // bzr.callgrind names its functions' files with fi= before fn=, which
      // graphgen reads as their files and callgrindcmp does not (README).
      if (e.path().extension() == ".callgrind" && e.path().filename() != "bzr.callgrind") files.push_back(e.path());
  for (const fs::path& in : files) {
    SCOPED_TRACE(in.string());
    fs::path out = dir / "rt.callgrind";
    ASSERT_EQ(test::graphgen({in.string(), "-o", out.string(), "-q"}).exit_code, 0);
    auto cmp =
        test::run({"python3", (test::conformance_dir() / "callgrindcmp.py").string(), in.string(), out.string()});
    EXPECT_EQ(cmp.exit_code, 0) << cmp.out;
  }
  fs::remove_all(dir);
}

// A sampled profile has no call counts: calls= stands for the samples
// through the call. Where the samples are counted beside a time (a Go CPU
// profile, a .cpuprofile) that is the samples event's cost on the call's
// line, not its time: calls=10000000 for one sample of 10 ms.
TEST(CallgrindWriter, SampledCallsCountTheSamplesNotTheTime) {
  for (const char* input : {"pprof/go-cpu.pb.gz", "chrome/node-single.cpuprofile"}) {
    SCOPED_TRACE(input);
    auto r = test::graphgen({(test::testdata_dir() / input).string(), "-T", "callgrind"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // "events: ns samples" (or "samples ns"): which column counts samples.
    const std::size_t at = r.out.find("\nevents: ");
    ASSERT_NE(at, std::string::npos);
    std::istringstream names(r.out.substr(at + 9, r.out.find('\n', at + 1) - at - 9));
    std::vector<std::string> events(std::istream_iterator<std::string>(names), {});
    const auto column = std::find(events.begin(), events.end(), "samples") - events.begin();
    ASSERT_LT(static_cast<std::size_t>(column), events.size());
    std::istringstream lines(r.out);
    std::size_t calls = 0;
    for (std::string line, costs; std::getline(lines, line);) {
      if (!line.starts_with("calls=")) continue;
      std::getline(lines, costs);
      std::istringstream cells(costs);
      std::vector<std::string> f(std::istream_iterator<std::string>(cells), {});
      ASSERT_GT(f.size(), static_cast<std::size_t>(column) + 1) << costs;
      EXPECT_EQ(line.substr(6, line.find(' ') - 6), f[1 + column]) << line << " / " << costs;
      ++calls;
    }
    EXPECT_GT(calls, 50u);
  }
}

TEST(PstatsWriter, EncodesWhatTheDecoderReadsBack) {
  for (const char* name : {"demo.pstats", "demo-profile.pstats", "demo-py27.pstats"}) {
    SCOPED_TRACE(name);
    auto in = InputFile::open((test::testdata_dir() / name).string());
    Diagnostics d;
    auto table = pstats::read(in->bytes(), name, d);
    ASSERT_TRUE(table.has_value());
    std::string bytes = pstats::write(*table, 0).value();
    auto again = pstats::read(bytes, "again", d);
    ASSERT_TRUE(again.has_value()) << again.error().message;
    ASSERT_EQ(again->listed.size(), table->listed.size());
    ASSERT_EQ(again->functions.size(), table->functions.size());
    for (FuncId f = 0; f < table->functions.size(); ++f) {
      const Function& a = table->functions[f];
      const Function& b = again->functions[f];
      EXPECT_EQ(table->str(a.name), again->str(b.name));
      EXPECT_EQ(table->str(a.code), again->str(b.code));  // code objects come back as code objects
      EXPECT_EQ(table->self(f, 0), again->self(f, 0));
      EXPECT_EQ(table->total(f, 0), again->total(f, 0));
      EXPECT_EQ(a.calls, b.calls);
      EXPECT_EQ(a.primitive_calls, b.primitive_calls);
    }
    ASSERT_EQ(again->calls.size(), table->calls.size());
    for (CallId c = 0; c < table->calls.size(); ++c) {
      EXPECT_EQ(table->calls[c].count, again->calls[c].count);
      EXPECT_EQ(table->inclusive(c, 0), again->inclusive(c, 0));
      EXPECT_EQ(table->along(c, 0), again->along(c, 0));
    }
  }
}

// Two functions on one pstats key (the same file, line and name in two
// objects) are one entry: their counts and times added, and their callers'
// entries, one per caller. Every other profile's entries are written
// straight from the profile (each function its own key): both ways read
// back as written.
TEST(PstatsWriter, FunctionsOnOneKeyAreOneEntry) {
  Profile p;
  p.events.push_back({p.strings.intern("Ir"), p.strings.intern(""), 0, false, kNoString});
  auto function = [&](const char* name, const char* object, const char* file, std::int64_t line, Cost self,
                      std::int64_t calls) {
    Function f;
    f.name = p.strings.intern(name);
    f.object = p.strings.intern(object);
    f.file = p.strings.intern(file);
    f.line = line;
    f.calls = calls;
    const FuncId id = p.add_function(f);
    p.self(id, 0) = self;
    return id;
  };
  const FuncId main = function("main", "prog", "main.c", 1, 1, 1);
  const FuncId a = function("f", "liba.so", "f.c", 5, 4, 2);
  const FuncId b = function("f", "libb.so", "f.c", 5, 6, 3);
  const CallId to_a = p.add_call({main, a, 2});
  const CallId to_b = p.add_call({main, b, 3});
  p.inclusive(to_a, 0) = 10;
  p.inclusive(to_b, 0) = 20;
  for (bool merged : {true, false}) {
    SCOPED_TRACE(merged ? "one key" : "a key each");
    if (!merged) p.functions[b].file = p.strings.intern("g.c");
    auto bytes = pstats::write(p, 0);
    ASSERT_TRUE(bytes.has_value());
    Diagnostics d;
    auto again = pstats::read(*bytes, "again", d);
    ASSERT_TRUE(again.has_value()) << again.error().message;
    ASSERT_EQ(again->functions.size(), merged ? 2u : 3u);
    auto at = [&](const char* file) {
      for (FuncId f = 0; f < again->functions.size(); ++f)
        if (again->str(again->functions[f].file) == file) return f;
      return FuncId{UINT32_MAX};
    };
    const FuncId f = at("f.c");
    ASSERT_NE(f, UINT32_MAX);
    EXPECT_EQ(again->value(0, again->self(f, 0)), merged ? 10.0 : 4.0);
    EXPECT_EQ(again->functions[f].calls, merged ? 5 : 2);
    std::size_t into_f = 0;
    for (CallId c = 0; c < again->calls.size(); ++c) {
      if (again->calls[c].callee != f) continue;
      ++into_f;
      EXPECT_EQ(again->str(again->functions[again->calls[c].caller].name), "main");
      EXPECT_EQ(again->calls[c].count, merged ? 5 : 2);
      EXPECT_EQ(again->value(0, again->inclusive(c, 0)), merged ? 30.0 : 10.0);
    }
    EXPECT_EQ(into_f, 1u);
    EXPECT_EQ(again->value(0, again->total(at("main.c"), 0)), 31.0);
  }
}

TEST(PstatsWriter, MergedRanksEqualPstatsStatsInPython) {
  fs::path dir = test::temp_dir();
  fs::path ranks = test::testdata_dir() / "ranks";
  std::vector<std::string> files{(ranks / "rank0.pstats").string(), (ranks / "rank1.pstats").string(),
                                 (ranks / "rank2.pstats").string()};
  fs::path ours = dir / "merged.pstats";
  std::vector<std::string> args = files;
  args.push_back("-o");
  args.push_back(ours.string());
  auto r = test::graphgen(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Python's own merge of the same files, in the same order.
  fs::path theirs = dir / "python.pstats";
  auto py = test::run({"python3", "-c", "import pstats, sys; pstats.Stats(*sys.argv[2:]).dump_stats(sys.argv[1])",
                       theirs.string(), files[0], files[1], files[2]});
  ASSERT_EQ(py.exit_code, 0) << py.err;
  if (test::conformance_dir().empty()) GTEST_SKIP() << test::no_corpus_message();
  auto cmp =
      test::run({"python3", (test::conformance_dir() / "pstatscmp.py").string(), theirs.string(), ours.string()});
  EXPECT_EQ(cmp.exit_code, 0) << cmp.out;
  fs::remove_all(dir);
}

TEST(PstatsWriter, Python27LoadsTheMergedFileWithTheSameNumbers) {
  if (!have("python2.7")) GTEST_SKIP() << "no python2.7 on this machine";
  fs::path dir = test::temp_dir();
  fs::path ranks = test::testdata_dir() / "ranks";
  fs::path ours = dir / "merged.pstats";
  ASSERT_EQ(test::graphgen({(ranks / "rank0.pstats").string(), (ranks / "rank1.pstats").string(), "-o", ours.string()})
                .exit_code,
            0);
  const char* script =
      "import pstats, sys\n"
      "s = pstats.Stats(sys.argv[1])\n"
      "print('%d %d %.9f %d' % (s.total_calls, s.prim_calls, s.total_tt, len(s.stats)))\n";
  auto py2 = test::run({"python2.7", "-c", script, ours.string()}, {}, {"PYENV_VERSION=2.7.18"});
  auto py3 = test::run({"python3", "-c", script, ours.string()});
  ASSERT_EQ(py2.exit_code, 0) << py2.err;
  ASSERT_EQ(py3.exit_code, 0) << py3.err;
  EXPECT_EQ(py2.out, py3.out);
  fs::remove_all(dir);
}

TEST(PstatsWriter, OtherFormatsBecomeLoadablePstats) {
  fs::path dir = test::temp_dir();
  for (const char* in : {"callgrind/parity.callgrind", "perf/q-g.perf"}) {
    SCOPED_TRACE(in);
    fs::path out = dir / "x.pstats";
    ASSERT_EQ(test::graphgen({(test::testdata_dir() / in).string(), "-o", out.string()}).exit_code, 0);
    auto py = test::run({"python3", "-c",
                         "import pstats, sys\ns = pstats.Stats(sys.argv[1])\n"
                         "assert len(s.stats) > 5 and s.total_tt > 0\n"
                         "s.sort_stats('cumulative').print_stats(3)",
                         out.string()});
    EXPECT_EQ(py.exit_code, 0) << py.err;
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace graphgen::writers_test
