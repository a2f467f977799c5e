// A merge of many inputs reports its progress: once per input, in order,
// with the total (the CLI shows it on a terminal after two seconds).
#include <gtest/gtest.h>

#include <fstream>

#include "pipeline.h"
#include "registry.h"
#include "util/test_util.h"

namespace graphgen {
namespace {

namespace fs = std::filesystem;

TEST(Progress, EveryInputIsCountedOnceInOrder) {
  pipeline::Request r;
  for (int rank = 0; rank < 8; ++rank)
    r.inputs.push_back((test::testdata_dir() / "mpi" / ("cpu_" + std::to_string(rank) + ".prof")).string());
  r.output = formats::find_output_format("pstats");
  std::vector<std::pair<std::size_t, std::size_t>> seen;
  r.on_progress = [&](std::size_t done, std::size_t total) { seen.emplace_back(done, total); };
  Diagnostics diag;
  auto out = pipeline::convert(r, diag);
  ASSERT_TRUE(out.has_value()) << out.error().message;
  ASSERT_EQ(seen.size(), 8u);
  for (std::size_t i = 0; i < 8; ++i) EXPECT_EQ(seen[i], (std::pair<std::size_t, std::size_t>{i + 1, 8}));
}

// On a terminal, a merge that has run for the delay (two seconds; 0 here)
// says how far it is and clears its line when done; off a terminal, or
// with -q, nothing is printed (script(1) gives graphgen a terminal).
TEST(Progress, ATerminalSeesTheCountOfALongMerge) {
  if (test::run({"sh", "-c", "command -v script"}).exit_code != 0) GTEST_SKIP() << "script (bsdutils) is not installed";
  fs::path dir = test::temp_dir();
  for (int rank = 0; rank < 8; ++rank)
    fs::copy_file(test::testdata_dir() / "mpi" / ("cpu_" + std::to_string(rank) + ".prof"),
                  dir / ("cpu_" + std::to_string(rank) + ".prof"));
  const std::string cmd = std::string("'") + GRAPHGEN_BINARY +
                          "' -T ranks.csv -o out.csv cpu_0.prof cpu_1.prof cpu_2.prof "
                          "cpu_3.prof cpu_4.prof cpu_5.prof cpu_6.prof cpu_7.prof";
  auto tty = test::run({"script", "-qec", cmd, "/dev/null"}, dir, {"GRAPHGEN_TEST_PROGRESS_AFTER_MS=0"}, 120);
  ASSERT_EQ(tty.exit_code, 0) << tty.out;
  EXPECT_NE(tty.out.find("graphgen: reading: 1 of 8 inputs"), std::string::npos) << tty.out;
  EXPECT_NE(tty.out.find("graphgen: reading: 8 of 8 inputs\r\033[K"), std::string::npos) << tty.out;
  auto quiet = test::run({"script", "-qec", cmd + " -q", "/dev/null"}, dir, {"GRAPHGEN_TEST_PROGRESS_AFTER_MS=0"}, 120);
  EXPECT_EQ(quiet.out.find("graphgen: reading:"), std::string::npos) << quiet.out;
  auto pipe = test::graphgen({"-T", "ranks.csv", "-o", "out2.csv", "cpu_0.prof", "cpu_1.prof"}, dir,
                             {"GRAPHGEN_TEST_PROGRESS_AFTER_MS=0"});
  EXPECT_EQ(pipe.err, "");
}

// Graphviz says nothing while it lays out a graph (13 s for sympy's): on a
// terminal a line says what and for how long, and goes when it is done; off
// a terminal, or with -q, nothing.
TEST(Progress, ATerminalSeesTheLayoutOfACallGraph) {
  if (test::run({"sh", "-c", "command -v script"}).exit_code != 0) GTEST_SKIP() << "script (bsdutils) is not installed";
  fs::path dir = test::temp_dir();
  const std::string demo = (test::testdata_dir() / "demo.pstats").string();
  for (const char* out : {"x.png", "x.html"}) {
    SCOPED_TRACE(out);
    const std::string cmd = std::string("'") + GRAPHGEN_BINARY + "' '" + demo + "' -o " + out;
    auto tty = test::run({"script", "-qec", cmd, "/dev/null"}, dir, {"GRAPHGEN_TEST_PROGRESS_AFTER_MS=0"}, 120);
    ASSERT_EQ(tty.exit_code, 0) << tty.out;
    // demo.pstats' graph at the default thresholds: 11 nodes, 13 edges.
    EXPECT_NE(tty.out.find("\r\033[Kgraphgen: laying out the call graph: 11 nodes, 13 edges (0 s)\r\033[K"),
              std::string::npos)
        << tty.out;
    auto quiet = test::run({"script", "-qec", cmd + " -q", "/dev/null"}, dir, {"GRAPHGEN_TEST_PROGRESS_AFTER_MS=0"});
    EXPECT_EQ(quiet.out.find("laying out"), std::string::npos) << quiet.out;
  }
  auto pipe = test::graphgen({demo, "-o", (dir / "y.png").string()}, dir, {"GRAPHGEN_TEST_PROGRESS_AFTER_MS=0"});
  EXPECT_EQ(pipe.err, "");
}

// A call graph of one big cycle walks it once from each entry point: on a
// terminal a line counts the walks and goes when they are done; off a
// terminal, or with -q, nothing (the delay is 0 here, two seconds really).
TEST(Progress, ATerminalSeesTheWalksOfABigCycle) {
  if (test::run({"sh", "-c", "command -v script"}).exit_code != 0) GTEST_SKIP() << "script (bsdutils) is not installed";
  fs::path dir = test::temp_dir();
  // 40 functions that call each other under main: one cycle entered at each.
  std::string stacks;
  std::uint64_t x = 7;
  for (int s = 0; s < 400; ++s) {
    stacks += "main";
    for (int k = 0; k < 6; ++k) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      stacks += ";f" + std::to_string((x >> 33) % 40);
    }
    stacks += " 1\n";
  }
  std::ofstream(dir / "cycle.folded") << stacks;
  const std::string cmd = std::string("'") + GRAPHGEN_BINARY + "' cycle.folded -o out.dot";
  auto tty = test::run({"script", "-qec", cmd, "/dev/null"}, dir, {"GRAPHGEN_TEST_PROGRESS_AFTER_MS=0"}, 120);
  ASSERT_EQ(tty.exit_code, 0) << tty.out;
  const std::size_t at = tty.out.find(
      "\r\033[Kgraphgen: integrating a cycle of 40 functions: 1 of 40 entry points "
      "walked (0 s)");
  ASSERT_NE(at, std::string::npos) << tty.out;
  EXPECT_NE(tty.out.find("\r\033[K", at + 2), std::string::npos) << tty.out;  // (cleared when done)
  auto quiet = test::run({"script", "-qec", cmd + " -q", "/dev/null"}, dir, {"GRAPHGEN_TEST_PROGRESS_AFTER_MS=0"}, 120);
  EXPECT_EQ(quiet.out.find("integrating"), std::string::npos) << quiet.out;
  auto pipe = test::graphgen({"cycle.folded", "-o", "out2.dot"}, dir, {"GRAPHGEN_TEST_PROGRESS_AFTER_MS=0"});
  EXPECT_EQ(pipe.err, "");
  EXPECT_EQ(test::read_file(dir / "out.dot"), test::read_file(dir / "out2.dot"));
}

}  // namespace
}  // namespace graphgen
