// Chrome's and node's .cpuprofile: real `node --cpu-prof` recordings read
// with the times speedscope and the DevTools flame chart give them
// (testdata/chrome/*.functions.tsv, computed independently: a sample lasts
// until the next one).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>

#include "util/test_util.h"

namespace fs = std::filesystem;

namespace graphgen {
namespace {

fs::path chrome_dir() { return test::testdata_dir() / "chrome"; }

struct Times {
  double self = 0, total = 0;
  int functions = 0;  // of this name
};

TEST(Cpuprofile, NodeProfilesReadWithSpeedscopesTimes) {
  for (const char* name : {"node-single", "node-worker.main", "node-worker.worker"}) {
    SCOPED_TRACE(name);
    // The oracle, per function name (several anonymous functions share one).
    std::map<std::string, Times> want;
    std::istringstream tsv(test::read_file(chrome_dir() / (std::string(name) + ".functions.tsv")));
    std::string line;
    std::getline(tsv, line);
    double whole = 0;
    while (std::getline(tsv, line)) {
      std::vector<std::string> f;
      std::istringstream cells(line);
      for (std::string cell; std::getline(cells, cell, '\t');) f.push_back(cell);
      ASSERT_GE(f.size(), 7u) << line;
      if (f[0] == "(root)") {
        whole = std::stod(f[6]);
        continue;
      }
      Times& t = want[f[0].empty() ? "(anonymous)" : f[0]];
      t.self += std::stod(f[5]);
      t.total += std::stod(f[6]);
      ++t.functions;
    }
    const std::string file = (chrome_dir() / (std::string(name) + ".cpuprofile")).string();
    auto r = test::graphgen({"--compare", file, file, "-T", "compare.csv", "-q"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::map<std::string, Times> have;
    std::istringstream csv(r.out);
    std::getline(csv, line);
    double sum = 0;
    while (std::getline(csv, line)) {
      auto f = test::csv_fields(line);
      Times& t = have[f[0]];
      t.self += std::stod(f[7]) * 1e6;
      t.total += std::stod(f[4]) * 1e6;
      sum += std::stod(f[7]) * 1e6;
    }
    EXPECT_NEAR(sum, whole, 0.5);
    for (const auto& [fn, t] : want) {
      EXPECT_NEAR(have[fn].self, t.self, 0.5) << fn;
      if (t.functions == 1) EXPECT_NEAR(have[fn].total, t.total, 0.5) << fn;
    }
    EXPECT_EQ(have.size(), want.size());
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
}  // namespace graphgen
