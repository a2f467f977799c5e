// Every writer graphgen draws itself (not Graphviz's pictures, whose bytes
// follow the Graphviz version), byte for byte against a golden file
// testdata/golden/<input>.<options>.<ext>: a change to any output shows as
// a diff to review. GRAPHGEN_UPDATE_GOLDENS=1 writes them anew.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>

#include "util/test_util.h"

namespace graphgen::writers_golden_test {
namespace {

namespace fs = std::filesystem;

struct Golden {
  const char* name;               // testdata/golden/<name>
  std::vector<std::string> args;  // run in testdata/
};

void PrintTo(const Golden& c, std::ostream* os) { *os << c.name; }

// What depends on the build and the checkout, not on the writer: the
// version (goldens say VERSION) and the files' times pstats' report prints
// (goldens say DATE).
std::string normalized(const std::string& s) {
  std::string out = std::regex_replace(s, std::regex("graphgen [0-9]+\\.[0-9]+\\.[0-9]+"), "graphgen VERSION");
  return std::regex_replace(out, std::regex("(^|\n)[A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-9][0-9] [0-9:]{8} [0-9]{4}    "),
                            "$1DATE    ");
}

class WriterGolden : public testing::TestWithParam<Golden> {};

TEST_P(WriterGolden, OutputEqualsGoldenByteForByte) {
  const Golden& g = GetParam();
  auto r = test::graphgen(g.args, test::testdata_dir());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string out = normalized(r.out);
  fs::path golden = test::testdata_dir() / "golden" / g.name;
  if (const char* u = std::getenv("GRAPHGEN_UPDATE_GOLDENS"); u && std::string(u) == "1")
    std::ofstream(golden, std::ios::binary) << out;
  ASSERT_TRUE(fs::exists(golden)) << golden << " missing; run with GRAPHGEN_UPDATE_GOLDENS=1";
  EXPECT_EQ(out, test::read_file(golden));
}

const std::vector<std::string> kRanks = {"ranks/rank0.pstats", "ranks/rank1.pstats", "ranks/rank2.pstats"};

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

INSTANTIATE_TEST_SUITE_P(
    EveryWriter, WriterGolden,
    testing::Values(
        // callgrind: from pstats (pyprof2calltree's mapping), and a callgrind file's own copy.
        Golden{"demo.callgrind", {"-T", "callgrind", "demo.pstats"}},
        Golden{"parity.callgrind", {"-T", "callgrind", "callgrind/parity.callgrind"}},
        // pstats: three rank files merged as pstats.Stats merges them.
        Golden{"ranks.merged.pstats", with({"-T", "pstats"}, kRanks)},
        // line_profiler's report, without the sources.
        Golden{"shapes.txt", {"-T", "text", "--source-root", "/nonexistent", "lprof/shapes.lprof"}},
        // Per-rank statistics: table, CSV, JSON.
        Golden{"ranks.ranks.txt", with({"-T", "ranks"}, kRanks)},
        Golden{"ranks.csv", with({"-T", "ranks.csv"}, kRanks)},
        Golden{"ranks.ranks.json", with({"-T", "ranks.json"}, kRanks)},
        // pstats' report, and its callers table.
        Golden{"demo.stats", {"-T", "stats", "demo.pstats"}},
        Golden{"demo.callers.stats", {"-T", "stats", "--callers", "--sort", "tottime", "demo.pstats"}},
        // Folded stacks: sampled (exact) and rebuilt from call ratios.
        Golden{"q-g.folded", {"-T", "folded", "perf/q-g.perf"}},
        Golden{"demo.folded", {"-T", "folded", "-q", "demo.pstats"}},
        // The flame graph and the icicle.
        Golden{"q-g.flame.svg", {"-T", "flame", "perf/q-g.perf"}},
        Golden{"q-g.icicle.flame.svg", {"-T", "flame", "--flame-reverse", "perf/q-g.perf"}},
        // --compare's graphs: gprof2dot's, and the absolute change.
        Golden{"compare-json.dot",
               {"--compare-by", "share", "--compare", "compare/json/a.json", "compare/json/b.json"}},
        Golden{"compare-json.absolute.dot", {"--compare", "compare/json/a.json", "compare/json/b.json"}}),
    [](const testing::TestParamInfo<Golden>& info) { return test::identifier(info.param.name); });

}  // namespace
}  // namespace graphgen::writers_golden_test
