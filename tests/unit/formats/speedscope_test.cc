// speedscope's JSON file format: evented and sampled profiles read into
// stacks (each profile a thread), graphgen's output read back with the same
// stacks, and checked against speedscope's published schema.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "util/test_util.h"

namespace fs = std::filesystem;

namespace graphgen {
namespace {

fs::path speedscope_dir() { return test::testdata_dir() / "speedscope"; }

// By hand: `main` (0-10 ms) calls parse (1-3) and render (3-4) on the main
// thread; a worker runs parse (0.5-5) with render inside (1-2.25).
TEST(Speedscope, EventedProfilesAreStacksPerThread) {
  auto r = test::graphgen({(speedscope_dir() / "evented.speedscope.json").string(), "-T", "folded"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "main_thread;main 7000\nmain_thread;main;parse 2000\nmain_thread;main;render 1000\n"
            "worker;parse 3250\nworker;parse;render 1250\n");
  // Each profile is a thread of the per-rank statistics.
  auto ranks = test::graphgen({(speedscope_dir() / "evented.speedscope.json").string(), "-T", "ranks.csv"});
  ASSERT_EQ(ranks.exit_code, 0) << ranks.err;
  EXPECT_NE(ranks.out.find("parse"), std::string::npos);
  auto stats = test::graphgen({(speedscope_dir() / "evented.speedscope.json").string(), "-T", "stats"});
  EXPECT_NE(stats.out.find("in 0.015 seconds"), std::string::npos) << stats.out;
}

// What graphgen writes reads back as the same stacks: exactly for recorded
// stacks, and for a call graph the same rebuilt stacks.
TEST(Speedscope, OwnOutputReadsBackWithTheSameStacks) {
  const fs::path td = test::testdata_dir();
  for (const fs::path& input : {td / "perf" / "q-g.perf", td / "demo.pstats", td / "pprof" / "go-cpu.pb.gz",
                                speedscope_dir() / "evented.speedscope.json"}) {
    SCOPED_TRACE(input.string());
    const fs::path out = test::temp_dir() / "out.speedscope.json";
    auto w = test::graphgen({input.string(), "-o", out.string(), "-q"});
    ASSERT_EQ(w.exit_code, 0) << w.err;
    EXPECT_TRUE(test::read_file(out).starts_with(
        "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"shared\":{\"frames\":["));
    auto before = test::graphgen({input.string(), "-T", "folded", "-q"});
    auto after = test::graphgen({out.string(), "-T", "folded", "-q"});
    ASSERT_EQ(after.exit_code, 0) << after.err;
    EXPECT_EQ(after.out, before.out);
  }
}

// Real files: py-spy's sampled threads (weights of 0.01 s) and
// speedscope's own evented export of a node profile; each thread's total
// is the sum of its samples' weights (testdata/speedscope/*.txt, *.tsv).
TEST(Speedscope, RealFilesReadWithTheirTotals) {
  auto r = test::graphgen({(speedscope_dir() / "pyspy-4threads.speedscope.json").string(), "-T", "folded"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, double> per_thread;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);)
    per_thread[line.substr(0, line.find(';'))] += std::stod(line.substr(line.rfind(' ') + 1));
  // Folded stacks carry seconds as microseconds.
  EXPECT_NEAR(per_thread["Thread_0x16DF7B000_\"Thread-1_(_handle_workers)\""], 0.02e6, 1);
  EXPECT_NEAR(per_thread["Thread_0x16EF87000_\"Thread-2_(_handle_tasks)\""], 31.86e6, 1);
  EXPECT_NEAR(per_thread["Thread_0x16FF93000_\"Thread-3_(_handle_results)\""], 31.86e6, 1);
  EXPECT_NEAR(per_thread["Thread_0x1FA08F100_\"MainThread\""], 38.07e6, 1);
  EXPECT_EQ(per_thread.size(), 4u);
  // speedscope's export of node-single.cpuprofile: 1 296 866 us covered,
  // each frame's self time as its oracle table gives it.
  auto e = test::graphgen({(speedscope_dir() / "ssexport-node-single.speedscope.json").string(), "-T", "stats"});
  ASSERT_EQ(e.exit_code, 0) << e.err;
  EXPECT_NE(e.out.find("0 function calls in 1.297 seconds"), std::string::npos) << e.out.substr(0, 300);
  auto folded = test::graphgen({(speedscope_dir() / "ssexport-node-single.speedscope.json").string(), "-T", "folded"});
  double sum = 0;
  std::istringstream lines(folded.out);
  for (std::string line; std::getline(lines, line);) sum += std::stod(line.substr(line.rfind(' ') + 1));
  EXPECT_EQ(sum, 1296866);
}

// Without the $schema member, "shared" and "frames" still say speedscope,
// over gprof2dot's JSON of the same extension.
TEST(Speedscope, DetectedWithoutTheSchemaMember) {
  std::string text = test::read_file(speedscope_dir() / "evented.speedscope.json");
  const std::string schema = "\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",";
  text.erase(text.find(schema), schema.size());
  const fs::path file = test::write_temp("trace.json", text);
  auto r = test::graphgen({file.string(), "-T", "folded"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("worker;parse;render 1250"), std::string::npos);
}

// graphgen's output validates against speedscope's published JSON schema
// (testdata/speedscope/file-format-schema.json, from the speedscope npm
// package), with Python's jsonschema (Debian's python3-jsonschema).
TEST(Speedscope, OutputFollowsTheSchema) {
  if (test::run({"python3", "-c", "import jsonschema"}).exit_code != 0)
    GTEST_SKIP() << "python3-jsonschema is not installed";
  const fs::path schema = speedscope_dir() / "file-format-schema.json";
  const fs::path td = test::testdata_dir();
  for (const fs::path& input : {td / "perf" / "q-g.perf", td / "demo.pstats", td / "pprof" / "go-heap.pb.gz"}) {
    SCOPED_TRACE(input.string());
    const fs::path out = test::temp_dir() / "out.speedscope.json";
    ASSERT_EQ(test::graphgen({input.string(), "-o", out.string(), "-q"}).exit_code, 0);
    auto v = test::run({"python3", "-c",
                        "import json, sys, jsonschema\n"
                        "jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))\n"
                        "print('valid')",
                        schema.string(), out.string()});
    EXPECT_EQ(v.exit_code, 0) << v.err;
    EXPECT_EQ(v.out, "valid\n");
  }
}

}  // namespace
}  // namespace graphgen
