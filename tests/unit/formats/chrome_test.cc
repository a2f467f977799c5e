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
      if (t.functions == 1) {
        EXPECT_NEAR(have[fn].total, t.total, 0.5) << fn;
      }
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

namespace graphgen {
namespace {

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

}  // namespace
}  // namespace graphgen
