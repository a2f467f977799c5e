// memory_profiler's mprof files (testdata/mprof, made by Debian's
// python3-memory-profiler 0.61 from grow.py): -T stats begins with what
// `mprof peak` prints and gives each function what `mprof peak --func`
// gives; the plot holds every run, child and @profile'd call, and the
// peak mprof names.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>

#include "util/test_util.h"

namespace graphgen::mprof_test {
namespace {

namespace fs = std::filesystem;

fs::path dir() { return test::testdata_dir() / "mprof"; }

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

TEST(Mprof, StatsAreMprofPeakAndItsPeakPerFunction) {
  for (const char* name : {"funcs", "children", "both"}) {
    SCOPED_TRACE(name);
    const std::string dat = std::string(name) + ".dat";
    // (Run from the folder: mprof names the file as given.)
    auto r = test::graphgen({dat, "-T", "stats"}, dir());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string peak = test::read_file(dir() / (std::string(name) + ".peak.txt"));
    ASSERT_FALSE(peak.empty());
    EXPECT_EQ(r.out.substr(0, peak.size()), peak);
    // mprof peak --func F: "FILE\tPEAK MiB", per function of the table.
    const std::vector<std::string> want = lines_of(test::read_file(dir() / (std::string(name) + ".func.txt")));
    const char* functions[] = {"__main__.load", "__main__.transform", "__main__.main"};
    const std::regex row(R"re(^(\S+)\s+(\d+)\s+(\S+)\s+[-+][\d.]+\s+[\d.]+$)re");
    std::map<std::string, std::string> have;
    for (const std::string& line : lines_of(r.out)) {
      std::smatch m;
      if (std::regex_match(line, m, row)) have[m[1]] = m[3];
    }
    for (std::size_t i = 0; i < 3; ++i) {
      if (want[i].find("NaN") != std::string::npos) {
        EXPECT_EQ(have.count(functions[i]), 0u) << functions[i];  // (never called: no row)
        continue;
      }
      EXPECT_EQ(dat + "\t" + have[functions[i]] + " MiB", want[i]) << functions[i];
    }
  }
}

TEST(Mprof, PlotHoldsEveryRunChildCallAndThePeak) {
  auto both = test::graphgen({"both.dat", "-T", "memplot"}, dir());
  ASSERT_EQ(both.exit_code, 0) << both.err;
  EXPECT_NE(both.out.find(">peak 199.555 MiB</text>"), std::string::npos);
  EXPECT_NE(both.out.find(">both.dat (run 1): /usr/bin/python3 grow.py</text>"), std::string::npos);
  EXPECT_NE(both.out.find(">both.dat (run 2): /usr/bin/python3 grow.py</text>"), std::string::npos);
  // Six FUNC lines: six bracket pairs, each bracket saying its call.
  std::size_t brackets = 0;
  for (std::size_t at = 0; (at = both.out.find("<title>__main__.", at)) != std::string::npos; ++at) ++brackets;
  EXPECT_EQ(brackets, 12u);
  EXPECT_NE(both.out.find("<title>__main__.load: 0.323 s, 21.840 → 52.246 MiB (+30.406)</title>"), std::string::npos);
  const fs::path out = test::temp_dir() / "c.mem.svg";  // (the name picks the plot)
  auto children = test::graphgen({"children.dat", "-o", out.string()}, dir());
  ASSERT_EQ(children.exit_code, 0) << children.err;
  const std::string svg = test::read_file(out);
  EXPECT_NE(svg.find("stroke-dasharray=\"5 3\""), std::string::npos);
  EXPECT_NE(svg.find("<title>child 29442 of children.dat: /usr/bin/python3 grow.py</title>"), std::string::npos);
  EXPECT_NE(svg.find(">peak 72.008 MiB</text>"), std::string::npos);
  // Several files: overlaid, each in the legend.
  auto two = test::graphgen({"funcs.dat", "children.dat", "-T", "memplot"}, dir());
  ASSERT_EQ(two.exit_code, 0) << two.err;
  EXPECT_NE(two.out.find(">funcs.dat: /usr/bin/python3 grow.py</text>"), std::string::npos);
  EXPECT_NE(two.out.find(">children.dat: /usr/bin/python3 grow.py</text>"), std::string::npos);
  // The functions' legend says each one's time in all calls, as -T stats.
  EXPECT_NE(both.out.find(">__main__.main  2.675 s in 2 calls</text>"), std::string::npos);
  auto stats = test::graphgen({"both.dat", "-T", "stats"}, dir());
  EXPECT_NE(stats.out.find("__main__.main            2       199.555       +120.961       2.675\n"), std::string::npos)
      << stats.out;
}

}  // namespace
}  // namespace graphgen::mprof_test
