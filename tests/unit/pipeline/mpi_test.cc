// Merging in shares (graphgen-mpi's way): inputs read in contiguous shares,
// each share sent through graphgen's wire encoding and the shares combined
// in order, give the single-process merge byte for byte; and, when Open MPI
// is installed, graphgen-mpi under mpirun writes the bytes graphgen writes.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "share_wire.h"
#include "util/test_util.h"

namespace graphgen::mpi_test {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> mpi_ranks() {
  std::vector<std::string> files;
  for (int r = 0; r < 8; ++r)
    files.push_back((test::testdata_dir() / "mpi" / ("cpu_" + std::to_string(r) + ".prof")).string());
  return files;
}

// What graphgen writes for `inputs` as `output` (a format name), in one read.
std::string whole(const std::vector<std::string>& inputs, const char* output) {
  pipeline::Request r;
  r.inputs = inputs;
  r.output = formats::find_output_format(output);
  Diagnostics diag;
  auto out = pipeline::convert(r, diag);
  EXPECT_TRUE(out.has_value()) << out.error().message;
  return out ? out->bytes : "";
}

// The same read in shares cut at `cuts` (merge positions), each share sent
// through the wire encoding, then combined in order.
std::string in_shares(const std::vector<std::string>& inputs, const char* output, std::vector<std::size_t> cuts) {
  pipeline::Request r;
  r.inputs = inputs;
  r.output = formats::find_output_format(output);
  Diagnostics diag;
  auto format = pipeline::input_format_of(r);
  EXPECT_TRUE(format.has_value());
  if (!format) return "";
  const bool ranks = r.output->needs == formats::Needs::kRanks;
  cuts.insert(cuts.begin(), 0);
  cuts.push_back(inputs.size());
  std::optional<pipeline::MergedShare> all;
  for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
    auto share = pipeline::read_share(r, **format, cuts[k], cuts[k + 1], ranks, diag);
    EXPECT_TRUE(share.has_value()) << share.error().message;
    if (!share) return "";
    std::string bytes = pipeline::encode_share(*share);
    auto back = pipeline::decode_share(bytes, r, **format, "share " + std::to_string(k));
    EXPECT_TRUE(back.has_value()) << back.error().message;
    if (!back) return "";
    if (!all) {
      all = std::move(back).value();
    } else {
      auto ok = pipeline::combine_shares(*all, std::move(back).value());
      EXPECT_TRUE(ok.has_value()) << ok.error().message;
    }
  }
  RankTable table;
  auto profile = pipeline::finish_share(std::move(*all), r, diag, ranks ? &table : nullptr);
  EXPECT_TRUE(profile.has_value());
  if (!profile) return "";
  pipeline::Output out;
  if (ranks) out.ranks = std::move(table);
  auto ok = pipeline::convert_profile(std::move(profile).value(), **format, r, diag, out);
  EXPECT_TRUE(ok.has_value()) << ok.error().message;
  return out.bytes;
}

TEST(Shares, CombinedSharesEqualOneReadByteForByte) {
  std::vector<std::string> ranks = mpi_ranks();
  for (const char* output : {"pstats", "ranks.json", "ranks.csv", "ranks.matrix.csv", "dot", "callgrind"}) {
    SCOPED_TRACE(output);
    std::string want = whole(ranks, output);
    ASSERT_FALSE(want.empty());
    for (const std::vector<std::size_t>& cuts :
         std::vector<std::vector<std::size_t>>{{1}, {3, 5}, {1, 2, 3, 4, 5, 6, 7}, {0, 0, 8}}) {
      SCOPED_TRACE(cuts.size());
      EXPECT_EQ(in_shares(ranks, output, cuts), want);
    }
  }
  // Integer events and call sites (callgrind), sampled stacks (perf).
  fs::path cg = test::testdata_dir() / "callgrind";
  std::vector<std::string> threads = {(cg / "threads-sep.callgrind-01").string(),
                                      (cg / "threads-sep.callgrind-02").string(),
                                      (cg / "threads-sep.callgrind-03").string()};
  EXPECT_EQ(in_shares(threads, "callgrind", {1}), whole(threads, "callgrind"));
  EXPECT_EQ(in_shares(threads, "dot", {2}), whole(threads, "dot"));
  fs::path perf = test::testdata_dir() / "perf";
  std::vector<std::string> perfs = {(perf / "q-g.perf").string(), (perf / "multi.perf").string(),
                                    (perf / "q-g.perf").string()};
  EXPECT_EQ(in_shares(perfs, "dot", {1, 2}), whole(perfs, "dot"));
}

TEST(Shares, DamagedMessagesAreErrors) {
  pipeline::Request r;
  r.inputs = mpi_ranks();
  r.output = formats::find_output_format("pstats");
  Diagnostics diag;
  auto format = pipeline::input_format_of(r);
  ASSERT_TRUE(format.has_value());
  auto share = pipeline::read_share(r, **format, 0, 2, true, diag);
  ASSERT_TRUE(share.has_value());
  std::string bytes = pipeline::encode_share(*share);
  for (std::size_t cut : {std::size_t{0}, std::size_t{3}, bytes.size() / 2, bytes.size() - 1}) {
    auto back = pipeline::decode_share(std::string_view(bytes).substr(0, cut), r, **format, "process 3");
    ASSERT_FALSE(back.has_value()) << cut;
    EXPECT_TRUE(back.error().message.starts_with("process 3: ")) << back.error().message;
  }
}

#ifdef GRAPHGEN_MPI_BINARY
std::vector<std::string> with_output(std::vector<std::string> args, const std::string& output) {
  args.insert(args.end(), {"-o", output});
  return args;
}

bool have(const std::string& program) { return test::run({"sh", "-c", "command -v " + program}).exit_code == 0; }

test::RunResult mpirun(int processes, std::vector<std::string> args, const fs::path& cwd) {
  std::vector<std::string> argv = {"mpirun", "--allow-run-as-root",     "--oversubscribe",
                                   "-np",    std::to_string(processes), GRAPHGEN_MPI_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<std::string> env = {"OMPI_MCA_rmaps_base_oversubscribe=1"};
#ifdef GRAPHGEN_SANITIZE
  // Open MPI leaks in components it unloads before exit, so no suppression
  // can name them; graphgen's share code is leak-checked in-process by the
  // Shares tests above.
  env.push_back("ASAN_OPTIONS=detect_leaks=0:abort_on_error=1");
#endif
  return test::run(argv, cwd, env, 120);
}
#endif

TEST(GraphgenMpi, FourProcessesWriteWhatOneProcessWrites) {
#ifndef GRAPHGEN_MPI_BINARY
  GTEST_SKIP() << "graphgen-mpi is not built (no libopenmpi-dev)";
#else
  if (!have("mpirun")) GTEST_SKIP() << "mpirun (openmpi-bin) is not installed";
  fs::path dir = test::temp_dir();
  // 24 ranks: the 8 real ones three times over, with new rank numbers.
  std::vector<std::string> inputs;
  for (int r = 0; r < 24; ++r) {
    std::string name = "cpu_" + std::to_string(r) + ".prof";
    fs::copy_file(test::testdata_dir() / "mpi" / ("cpu_" + std::to_string(r % 8) + ".prof"), dir / name);
    inputs.push_back(name);
  }
  for (const auto& [name, extra] :
       std::vector<std::pair<std::string, std::vector<std::string>>>{{"merged.pstats", {}},
                                                                     {"ranks.json", {}},
                                                                     {"ranks.txt", {"-T", "ranks"}},
                                                                     {"imb.dot", {"--imbalance"}},
                                                                     {"ranks.matrix.csv", {}},
                                                                     {"merged.stats", {"-T", "stats"}},
                                                                     {"report.html", {}}}) {
    SCOPED_TRACE(name);
    std::vector<std::string> args = extra;
    args.insert(args.end(), inputs.begin(), inputs.end());
    auto one = test::graphgen(with_output(args, "one-" + name), dir);
    ASSERT_EQ(one.exit_code, 0) << one.err;
    auto four = mpirun(4, with_output(args, "four-" + name), dir);
    ASSERT_EQ(four.exit_code, 0) << four.err << four.out;
    EXPECT_EQ(test::read_file(dir / ("four-" + name)), test::read_file(dir / ("one-" + name)));
  }
  // --keep-going: unreadable inputs in several processes' shares are not
  // ranks, and the tree of shares gives what one process gives.
  for (int r : {3, 17}) std::ofstream(dir / ("cpu_" + std::to_string(r) + ".prof"), std::ios::trunc) << "{(cut";
  for (const char* name : {"kept.ranks.json", "kept.ranks.txt", "kept.matrix.csv"}) {
    SCOPED_TRACE(name);
    std::string kind = std::string(name).ends_with(".json")  ? "ranks.json"
                       : std::string(name).ends_with(".csv") ? "ranks.matrix.csv"
                                                             : "ranks";
    std::vector<std::string> args = {"--keep-going", "-q", "-T", kind};
    args.insert(args.end(), inputs.begin(), inputs.end());
    auto one = test::graphgen(with_output(args, std::string("one-") + name), dir);
    ASSERT_EQ(one.exit_code, 0) << one.err;
    auto four = mpirun(4, with_output(args, std::string("four-") + name), dir);
    ASSERT_EQ(four.exit_code, 0) << four.err << four.out;
    EXPECT_EQ(test::read_file(dir / (std::string("four-") + name)),
              test::read_file(dir / (std::string("one-") + name)));
    const std::string said = test::read_file(dir / (std::string("one-") + name));
    const std::string header = said.substr(0, said.find('\n', said.find("function,")));
    EXPECT_TRUE(said.find("\"ranks\": 22,") != std::string::npos ||
                said.find("statistics of 22 ranks") != std::string::npos ||
                (header.find(",r23") != std::string::npos && header.find(",r3,") == std::string::npos &&
                 std::count(header.begin(), header.end(), 'r') >= 22))
        << said.substr(0, 300);
    EXPECT_TRUE(said.find("\"skipped_ranks\": [3, 17]") != std::string::npos ||
                said.find("(--keep-going): 3, 17.") != std::string::npos ||
                said.starts_with("# not counted, input could not be read: ranks 3 17\n"))
        << said.substr(0, 300);
  }
  // pstats' report names the 22 files read, as one process does (graphgen-mpi
  // printed no file lines at all).
  {
    std::vector<std::string> args = {"--keep-going", "-q", "-T", "stats"};
    args.insert(args.end(), inputs.begin(), inputs.end());
    auto one = test::graphgen(with_output(args, "one-kept.stats"), dir);
    ASSERT_EQ(one.exit_code, 0) << one.err;
    auto four = mpirun(4, with_output(args, "four-kept.stats"), dir);
    ASSERT_EQ(four.exit_code, 0) << four.err << four.out;
    const std::string report = test::read_file(dir / "one-kept.stats");
    EXPECT_EQ(test::read_file(dir / "four-kept.stats"), report);
    const std::string header = report.substr(0, report.find("\n\n"));
    EXPECT_EQ(std::count(header.begin(), header.end(), '\n') + 1, 22) << header;
    EXPECT_EQ(header.find("cpu_3.prof"), std::string::npos) << header;
    EXPECT_EQ(header.find("cpu_17.prof"), std::string::npos) << header;
  }
  // One bad input: process 0 says which, once, and every process exits 1.
  { std::ofstream(dir / "cpu_99.prof") << "not a profile\n"; }
  std::vector<std::string> bad = inputs;
  bad.push_back("cpu_99.prof");
  auto failed = mpirun(4, with_output(bad, "x.pstats"), dir);
  EXPECT_NE(failed.exit_code, 0);
  EXPECT_NE(failed.err.find("cpu_99.prof:+0x0: cannot tell the profile format"), std::string::npos) << failed.err;
  EXPECT_FALSE(fs::exists(dir / "x.pstats"));
  // A usage error is graphgen-mpi's, as its command line's own are (the
  // options' checks said "graphgen: error:"); a flag takes no value. (One
  // line among mpirun's and hwloc's, which a container adds before it; one
  // run: mpirun takes seconds to start there.)
  auto flag = mpirun(1, with_output({inputs[0], "--strip=0"}, "x.pstats"), dir);
  EXPECT_NE(flag.exit_code, 0);
  EXPECT_NE(("\n" + flag.err).find("\ngraphgen-mpi: error: --strip: expected no value (a flag), found '0'\n"),
            std::string::npos)
      << flag.err;
  EXPECT_EQ(flag.err.find("graphgen: error"), std::string::npos) << flag.err;
  EXPECT_FALSE(fs::exists(dir / "x.pstats"));
#endif
}

}  // namespace
}  // namespace graphgen::mpi_test
