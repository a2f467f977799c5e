// --each: one output per input, converted by worker processes, instead of a
// shell loop; failures reported one by one without stopping the rest.
#include "each.h"

#include <gtest/gtest.h>

#include <fstream>

#include "util/test_util.h"

namespace graphgen::each_test {
namespace {

namespace fs = std::filesystem;
using test::graphgen;

// `count` rank files (copies of the real 8-rank profiles) in a fresh folder.
fs::path rank_files(std::size_t count, std::vector<std::string>& names) {
  fs::path dir = test::temp_dir();
  for (std::size_t r = 0; r < count; ++r) {
    std::string name = "cpu_" + std::to_string(r) + ".prof";
    fs::copy_file(test::testdata_dir() / "mpi" / ("cpu_" + std::to_string(r % 8) + ".prof"), dir / name);
    names.push_back(name);
  }
  return dir;
}

TEST(Each, WritesOneOutputPerInput) {
  std::vector<std::string> names;
  fs::path dir = rank_files(64, names);
#ifdef GRAPHGEN_HAVE_RENDER
  const std::string ext = "png";
#else
  const std::string ext = "dot";
#endif
  std::vector<std::string> args{"--each", "-o", "out/{stem}." + ext};
  args.insert(args.end(), names.begin(), names.end());
  auto r = graphgen(args, dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  std::size_t outputs = 0;
  for (const auto& e : fs::directory_iterator(dir / "out")) {
    ++outputs;
    std::string bytes = test::read_file(e.path());
    if (ext == "png")
      EXPECT_TRUE(bytes.starts_with("\x89PNG")) << e.path();
    else
      EXPECT_TRUE(bytes.starts_with("digraph {")) << e.path();
  }
  EXPECT_EQ(outputs, 64u);
  // Each output is its own input's graph: rank 5 (the heavy one) alone.
  auto alone = graphgen({"-T", "dot", "cpu_5.prof"}, dir);
  auto each = graphgen({"--each", "-T", "dot", "-o", "dots/{rank}.dot", "cpu_5.prof", "cpu_6.prof"}, dir);
  ASSERT_EQ(each.exit_code, 0) << each.err;
  EXPECT_EQ(test::read_file(dir / "dots" / "5.dot"), alone.out);
}

TEST(Each, OneFailureIsReportedAndTheOthersAreWritten) {
  std::vector<std::string> names;
  fs::path dir = rank_files(6, names);
  { std::ofstream(dir / "cpu_6.prof") << "not a profile\n"; }
  names.push_back("cpu_6.prof");
  std::vector<std::string> args{"--each", "-T", "dot", "-o", "{stem}.dot"};
  args.insert(args.end(), names.begin(), names.end());
  auto r = graphgen(args, dir);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("cpu_6.prof:+0x0: cannot tell the profile format from the first bytes 'not a profile\\n'"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("--each: 1 of 7 inputs failed; the other 6 outputs are written"), std::string::npos) << r.err;
  for (int k = 0; k < 6; ++k) EXPECT_TRUE(fs::exists(dir / ("cpu_" + std::to_string(k) + ".dot"))) << k;
  EXPECT_FALSE(fs::exists(dir / "cpu_6.dot"));
  // A usage error in one input (text output from a pstats file) is exit 2.
  auto usage = graphgen({"--each", "-T", "text", "-o", "{stem}.txt", "cpu_0.prof", "cpu_1.prof"}, dir);
  EXPECT_EQ(usage.exit_code, 2) << usage.err;
}

TEST(Each, TemplatesAndTheirMistakes) {
  using pipeline::each_output_path;
  EXPECT_EQ(*each_output_path("png/{stem}.png", "runs/cpu_12.prof.gz", 3), "png/cpu_12.png");
  EXPECT_EQ(*each_output_path("{dir}/{name}.dot", "runs/cpu_12.prof", 3), "runs/cpu_12.prof.dot");
  EXPECT_EQ(*each_output_path("{dir}/{name}.dot", "cpu_12.prof", 3), "./cpu_12.prof.dot");
  EXPECT_EQ(*each_output_path("r{rank}-{index}.svg", "rank-7/out.pstats", 3), "r7-3.svg");
  EXPECT_EQ(*each_output_path("r{rank}.svg", "out.pstats", 3), "r3.svg");  // no number: the index
  EXPECT_EQ(*each_output_path("{{x}}{stem}", "a.prof", 0), "{x}a");
  auto bad = each_output_path("out/{file}.png", "a.prof", 0);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message,
            "-o 'out/{file}.png': expected a placeholder {stem}, {name}, {dir}, {rank} or {index} (or {{ for a "
            "brace), found '{file}'");

  std::vector<std::string> names;
  fs::path dir = rank_files(2, names);
  auto same = graphgen({"--each", "-o", "x.png", "cpu_0.prof", "cpu_1.prof"}, dir);
  EXPECT_EQ(same.exit_code, 2);
  EXPECT_EQ(same.err,
            "graphgen: error: --each would write cpu_0.prof and cpu_1.prof both to 'x.png': put {stem} (or {name}, "
            "{rank}, {index}) in -o\n");
  auto stdout_ = graphgen({"--each", "cpu_0.prof", "cpu_1.prof"}, dir);
  EXPECT_EQ(stdout_.exit_code, 2);
  EXPECT_NE(stdout_.err.find("--each writes one file per input"), std::string::npos);
  auto devnull = graphgen({"--each", "-T", "dot", "-o", "/dev/null", "cpu_0.prof", "cpu_1.prof"}, dir);
  EXPECT_EQ(devnull.exit_code, 0) << devnull.err;  // a device takes them all
  auto onto_input = graphgen({"--each", "-T", "dot", "-o", "{name}", "cpu_0.prof", "cpu_1.prof"}, dir);
  EXPECT_EQ(onto_input.exit_code, 2) << onto_input.err;
  auto jobs = graphgen({"--jobs", "2", "cpu_0.prof"}, dir);
  EXPECT_EQ(jobs.exit_code, 2);
  EXPECT_EQ(jobs.err, "graphgen: error: --jobs goes with --each\n");
}

// An input named ...pstats has the {stem} '..': out/{stem}/x.dot wrote
// ./x.dot, out of out/. A '.' or '..' the template does not write itself is
// refused, and nothing is written.
TEST(Each, AStemOfDotsCannotLeaveTheTemplatesFolder) {
  using pipeline::each_output_path;
  EXPECT_FALSE(each_output_path("out/{stem}/x.dot", "...pstats", 0));
  EXPECT_FALSE(each_output_path("out/{name}/x.dot", "..", 0));
  EXPECT_FALSE(each_output_path("out/{stem}{stem}/x.dot", "..pstats", 0));                 // '.' twice: '..'
  EXPECT_EQ(*each_output_path("../out/{stem}.dot", "cpu_1.prof", 0), "../out/cpu_1.dot");  // the template's own
  EXPECT_EQ(*each_output_path("out/{stem}.dot", "..a.pstats", 0), "out/..a.dot");
  // A {dir} inside the template's folder cannot climb out of it; leading, it
  // is the folder (beside the input).
  EXPECT_FALSE(each_output_path("out/{dir}/{stem}.dot", "../p/a.pstats", 0));
  EXPECT_FALSE(each_output_path("out/{dir}/{stem}.dot", "p/../../a.pstats", 0));
  EXPECT_EQ(*each_output_path("out/{dir}/{stem}.dot", "/data/p/a.pstats", 0), "out//data/p/a.dot");
  EXPECT_EQ(*each_output_path("{dir}/{stem}.dot", "../p/a.pstats", 0), "../p/a.dot");
  EXPECT_FALSE(each_output_path("{dir}/{stem}/x.dot", "../p/...pstats", 0));
  const fs::path dir = test::temp_dir();
  fs::copy_file(test::testdata_dir() / "demo.pstats", dir / "...pstats");
  fs::create_directory(dir / "out");
  auto r = graphgen({"--each", "...pstats", "-o", "out/{stem}/x.dot"}, dir);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "graphgen: error: --each: -o 'out/{stem}/x.dot' makes 'out/../x.dot' of '...pstats', a path out of the "
            "template's folder; rename the input, or use {index}\n");
  EXPECT_FALSE(fs::exists(dir / "x.dot"));
}

TEST(Each, ResultsComeBackFromEveryWorker) {
  // The library call: every input's result, in input order, whatever the
  // order the workers finished in.
  std::vector<std::string> names;
  fs::path dir = rank_files(16, names);
  pipeline::Request r;
  for (const std::string& n : names) r.inputs.push_back((dir / n).string());
  r.output = formats::find_output_format("dot");
  std::size_t calls = 0;
  auto results = pipeline::run_each(r, (dir / "{stem}.dot").string(), 2,
                                    [&](const pipeline::EachResult&, std::size_t done) { EXPECT_EQ(done, ++calls); });
  ASSERT_TRUE(results.has_value()) << results.error().message;
  ASSERT_EQ(results->size(), 16u);
  EXPECT_EQ(calls, 16u);
  for (std::size_t i = 0; i < 16; ++i) {
    EXPECT_TRUE((*results)[i].ok) << (*results)[i].error;
    EXPECT_EQ((*results)[i].input, r.inputs[i]);
    EXPECT_TRUE(fs::exists((*results)[i].output));
  }
}

}  // namespace
}  // namespace graphgen::each_test
