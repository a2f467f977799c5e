// The dot writer: label rules (strip, wrap, time formats) and goldens of the
// bundled profiles, named after input and options. Set
// GRAPHGEN_UPDATE_GOLDENS=1 to rewrite the goldens after a deliberate change
// (and check the diff and ../shared conformance before committing them).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "dot/dot_writer.h"
#include "graphgen/error.h"
#include "util/test_util.h"

namespace graphgen::dot::dot_test {
namespace {

namespace fs = std::filesystem;

TEST(Strip, RemovesParametersConstAndTemplates) {
  EXPECT_EQ(strip_function_name("std::vector<int>::push_back(int const&) const"), "std::vector::push_back");
  EXPECT_EQ(strip_function_name("f(g(int), h<a<b>>)"), "f");
  EXPECT_EQ(strip_function_name("operator()(int)"), "operator");
  EXPECT_EQ(strip_function_name("plain"), "plain");
  EXPECT_EQ(strip_function_name("unbalanced(x"), "unbalanced(x");
}

TEST(Wrap, FillsAt32ColumnsLikeTextwrap) {
  EXPECT_EQ(wrap_function_name("~:0:<method 'read' of '_io.BufferedReader' objects>"),
            "~:0:<method 'read' of\n'_io.BufferedReader' objects>");
  EXPECT_EQ(wrap_function_name("~:0:<built-in method builtins.exec>"), "~:0:<built-in method\nbuiltins.exec>");
  EXPECT_EQ(wrap_function_name("~:0:<method 'split' of 'str' objects>"), "~:0:<method 'split' of 'str'\nobjects>");
  // Short names are not filled, but the comma and '> >' squeezing applies.
  EXPECT_EQ(wrap_function_name("map<a, b<c> >"), "map<a,b<c>>");
  // A word longer than the width is not broken.
  std::string longword(40, 'x');
  EXPECT_EQ(wrap_function_name("ab " + longword + " cd"), "ab\n" + longword + "\ncd");
  // Hyphens between letters are break points.
  EXPECT_EQ(wrap_function_name("aaaaaaaaaaaaaaaaaaaa-bbbbbbbbbbbbbbbbbbbb"),
            "aaaaaaaaaaaaaaaaaaaa-\nbbbbbbbbbbbbbbbbbbbb");
}

TEST(PythonRepr, MatchesPythonFloatRepr) {
  EXPECT_EQ(python_float_repr(0.125), "0.125");
  EXPECT_EQ(python_float_repr(1.0), "1.0");
  EXPECT_EQ(python_float_repr(1e16), "1e+16");
  EXPECT_EQ(python_float_repr(1e15), "1000000000000000.0");
  EXPECT_EQ(python_float_repr(0.0001), "0.0001");
  EXPECT_EQ(python_float_repr(0.00001), "1e-05");
  EXPECT_EQ(python_float_repr(-2.5e-07), "-2.5e-07");
  EXPECT_EQ(python_float_repr(3.3712000000000005e-05), "3.3712000000000005e-05");
}

TEST(TimeFormat, AppliesPythonPercentFormats) {
  EXPECT_EQ(format_time("%.7g", 1.177e-06), "1.177e-06");
  EXPECT_EQ(format_time("%.3f", 0.12345), "0.123");
  EXPECT_EQ(format_time("%d ms", 12.9), "12 ms");
  EXPECT_EQ(format_time("%s", 0.5), "0.5");
  EXPECT_EQ(format_time("%8.2e%%", 1234.5), "1.23e+03%");
}

TEST(TimeFormat, RejectsWhatIsNotOneNumberConversion) {
  EXPECT_TRUE(check_time_format("%.3f").has_value());
  EXPECT_EQ(check_time_format("seconds").error().message,
            "--time-format 'seconds': expected a conversion such as %.3f for the time");
  EXPECT_EQ(check_time_format("%f %f").error().message,
            "--time-format '%f %f': expected one conversion for the time, found several");
  EXPECT_EQ(check_time_format("%.3q").error().message,
            "--time-format '%.3q': expected a number conversion (%f, %e, %g, %d, ...), found '%.3q'");
  EXPECT_EQ(check_time_format("100%%").error().kind, Error::Kind::kBadUsage);
  // A width or precision of billions formatted every label to gigabytes
  // (8.4 GB for '%.2147483647f' of a 50 kB profile, still growing).
  EXPECT_TRUE(check_time_format("%40.40f").has_value());
  for (const char* huge : {"%.2147483647f", "%2147483647f", "%.41f", "%041.3e"}) {
    auto refused = check_time_format(huge);
    ASSERT_FALSE(refused.has_value()) << huge;
    EXPECT_EQ(refused.error().kind, Error::Kind::kBadUsage);
    EXPECT_EQ(refused.error().message, fmt::format("--time-format '{}': expected a width and a precision of at "
                                                   "most 40 each",
                                                   huge));
  }
}

struct Golden {
  const char* name;   // testdata/golden/<name>.dot
  const char* input;  // under testdata/
  std::vector<std::string> args;
};

void PrintTo(const Golden& c, std::ostream* os) { *os << c.name; }

class DotGolden : public testing::TestWithParam<Golden> {};

TEST_P(DotGolden, OutputEqualsGoldenByteForByte) {
  const Golden& g = GetParam();
  std::vector<std::string> args = g.args;
  args.push_back(g.input);
  auto r = test::graphgen(args, test::testdata_dir());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  fs::path golden = test::testdata_dir() / "golden" / (std::string(g.name) + ".dot");
  if (const char* u = std::getenv("GRAPHGEN_UPDATE_GOLDENS"); u && std::string(u) == "1") {
    fs::create_directories(golden.parent_path());
    std::ofstream(golden, std::ios::binary) << r.out;
  }
  ASSERT_TRUE(fs::exists(golden)) << golden << " missing; run with GRAPHGEN_UPDATE_GOLDENS=1";
  EXPECT_EQ(r.out, test::read_file(golden));
}

INSTANTIATE_TEST_SUITE_P(
    Bundled, DotGolden,
    testing::Values(
        Golden{"demo", "demo.pstats", {}}, Golden{"demo.n0-e0", "demo.pstats", {"-n", "0", "-e", "0"}},
        Golden{"demo.print-labels",
               "demo.pstats",
               {"-c", "print", "--node-label", "self-time", "--node-label", "total-time", "--time-format", "%.4f"}},
        Golden{"demo.root-depth1", "demo.pstats", {"-z", "wordfreq:*:main", "--depth", "1"}},
        Golden{"demo-profile", "demo-profile.pstats", {}}, Golden{"demo-py27.wrap", "demo-py27.pstats", {"-w"}},
        Golden{"ranks.merged", "ranks/rank0.pstats", {"ranks/rank1.pstats", "ranks/rank2.pstats"}}),
    [](const testing::TestParamInfo<Golden>& info) { return test::identifier(info.param.name); });

}  // namespace
}  // namespace graphgen::dot::dot_test

namespace graphgen::dot::dot_test {
namespace {

TEST(Strip, EqualsGprof2dotsRegexLoopsOnRandomNames) {
  // gprof2dot's stripped_name(), run by Python on random names made of
  // brackets, letters and const: the one-pass removal must agree.
  const char* script =
      "import random, re, sys\n"
      "random.seed(7)\n"
      "p, a, c = re.compile(r'\\([^()]*\\)'), re.compile(r'<[^<>]*>'), re.compile(r'\\s+const$')\n"
      "def strip(n):\n"
      "    while True:\n"
      "        n, k = p.subn('', n)\n"
      "        if not k: break\n"
      "    n = c.sub('', n)\n"
      "    while True:\n"
      "        n, k = a.subn('', n)\n"
      "        if not k: break\n"
      "    return n\n"
      "for _ in range(3000):\n"
      "    n = ''.join(random.choice(['(', ')', '<', '>', 'a', 'b', ' ', ' const', ':']) for _ in "
      "range(random.randint(0, 14)))\n"
      "    sys.stdout.write(n + '\\t' + strip(n) + '\\n')\n";
  auto r = test::run({"python3", "-c", script});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream in(r.out);
  int n = 0;
  for (std::string line; std::getline(in, line); ++n) {
    std::size_t tab = line.find('\t');
    ASSERT_NE(tab, std::string::npos);
    EXPECT_EQ(strip_function_name(line.substr(0, tab)), line.substr(tab + 1))
        << "name: '" << line.substr(0, tab) << "'";
  }
  EXPECT_EQ(n, 3000);
}

TEST(Strip, DeeplyNestedTemplatesAreLinear) {
  std::string name = "f";
  for (int i = 0; i < 200000; ++i) name += "<a";
  for (int i = 0; i < 200000; ++i) name += ">";
  EXPECT_EQ(strip_function_name(name), "f");  // quadratic before: 200 000 passes
}

// --show-samples adds a node's sample count for sampling formats; where the
// costs are what a tool measured or a program allocated (import times,
// bytes, line timer ticks, memory, trace slices) there is none to show, and
// the node's truncated cost was shown as one ("461×" for 461 µs).
TEST(ShowSamples, OnlySamplingFormatsHaveSamplesToShow) {
  const fs::path td = test::testdata_dir();
  auto dot = [&](const fs::path& input, bool samples) {
    std::vector<std::string> args = {"-n", "0", "-e", "0", "-T", "dot", input.string()};
    if (samples) args.push_back("--show-samples");
    auto r = test::graphgen(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out;
  };
  for (const char* input : {"importtime/docutils-3.8.importtime", "tracemalloc/app-3.13.early.snapshot.xz",
                            "lprof/blocks.lprof", "mprof/both.dat", "chrome/cut.trace.json"}) {
    SCOPED_TRACE(input);
    EXPECT_EQ(dot(td / input, true), dot(td / input, false));
  }
  for (const char* input : {"perf/q-g.perf", "pprof/go-cpu.pb.gz"}) {
    SCOPED_TRACE(input);
    const std::string with = dot(td / input, true), without = dot(td / input, false);
    EXPECT_NE(with, without);
    auto times = [](const std::string& text) {  // "N×" lines ("×": U+00D7)
      std::size_t n = 0;
      for (std::size_t at = text.find("\xc3\x97"); at != std::string::npos; at = text.find("\xc3\x97", at + 1)) ++n;
      return n;
    };
    EXPECT_GT(times(with), times(without));
  }
}

// Where the event graphed is a time and the profile also counts samples
// (a Go CPU profile's samples/count, a .cpuprofile's and a V8 trace's
// samples), --show-samples shows that count: it showed the time ("20000000×"
// for two samples of 10 ms, "1079×" for one sample of 1079 µs). The
// oracles: `go tool pprof`'s flat samples (testdata/pprof/go-cpu.flat.tsv)
// and the independent script's self samples (testdata/chrome). A Go heap
// profile counts no samples: nothing is shown.
TEST(ShowSamples, CountsBesideATimeEventAreTheSamples) {
  const fs::path td = test::testdata_dir();
  // Each node's name and its "N×", from the labels (name, shares, count;
  // pprof's with the object above).
  auto counts = [&](const fs::path& input) {
    auto r = test::graphgen({"-n", "0", "-e", "0", "--show-samples", "-T", "dot", input.string()});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::map<std::string, std::vector<long long>> out;
    for (std::size_t at = r.out.find("label=\""); at != std::string::npos; at = r.out.find("label=\"", at + 1)) {
      const std::size_t end = r.out.find('"', at + 7);
      const std::string label = r.out.substr(at + 7, end - at - 7);
      std::vector<std::string> lines;
      for (std::size_t b = 0, e; b <= label.size(); b = e + 2) {
        e = label.find("\\n", b);
        if (e == std::string::npos) e = label.size();
        lines.push_back(label.substr(b, e - b));
      }
      if (lines.size() < 4 || !lines.back().ends_with("\xc3\x97")) continue;
      out[lines[lines.size() - 4]].push_back(std::stoll(lines.back()));
    }
    return out;
  };
  std::size_t compared = 0;
  {
    std::map<std::string, long long> flat;
    std::istringstream tsv(test::read_file(td / "pprof" / "go-cpu.flat.tsv"));
    for (std::string line; std::getline(tsv, line);) {
      const std::vector<std::string> f = test::tsv_fields(line);
      if (f.size() == 4 && f[0] == "samples") flat[f[1]] = std::stoll(f[2]);
    }
    auto have = counts(td / "pprof" / "go-cpu.pb.gz");
    ASSERT_GT(flat.size(), 20u);
    for (const auto& [fn, n] : flat) {
      if (have[fn].size() != 1) continue;  // (a name drawn twice, or pruned)
      EXPECT_EQ(have[fn][0], n) << fn;
      ++compared;
    }
  }
  {
    std::map<std::string, std::vector<long long>> self;  // per name, each function's
    std::istringstream tsv(test::read_file(td / "chrome" / "node-single.functions.tsv"));
    std::string line;
    std::getline(tsv, line);
    while (std::getline(tsv, line)) {
      const std::vector<std::string> f = test::tsv_fields(line);
      if (f.size() >= 8 && !f[0].empty() && f[0] != "(root)") self[f[0]].push_back(std::stoll(f[7]));
    }
    auto have = counts(td / "chrome" / "node-single.cpuprofile");
    for (const auto& [fn, n] : self) {
      if (n.size() != 1 || have[fn].size() != 1) continue;
      EXPECT_EQ(have[fn][0], n[0]) << fn;
      ++compared;
    }
  }
  EXPECT_GE(compared, 60u);
  EXPECT_TRUE(counts(td / "pprof" / "go-heap.pb.gz").empty());
}

}  // namespace
}  // namespace graphgen::dot::dot_test
