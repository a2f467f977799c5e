// Input arguments for more files than a command line holds: folders, quoted
// globs and @LIST files, in natural order.
#include "inputs.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>

#include "util/test_util.h"

namespace graphgen::inputs_test {
namespace {

namespace fs = std::filesystem;
using pipeline::expand_inputs;
using pipeline::natural_less;

TEST(Inputs, NaturalOrderPutsRank2BeforeRank10) {
  std::vector<std::string> names = {"cpu_10.prof", "cpu_2.prof", "cpu_1.prof", "cpu_02.prof", "a", "cpu_100.prof"};
  std::sort(names.begin(), names.end(), natural_less);
  EXPECT_EQ(names,
            (std::vector<std::string>{"a", "cpu_1.prof", "cpu_02.prof", "cpu_2.prof", "cpu_10.prof", "cpu_100.prof"}));
}

TEST(Inputs, FoldersGlobsAndListsNameTheirFiles) {
  fs::path dir = test::temp_dir();
  fs::create_directory(dir / "ranks");
  for (int r : {10, 2, 0, 1}) std::ofstream(dir / "ranks" / ("cpu_" + std::to_string(r) + ".prof")) << "x";
  std::ofstream(dir / "ranks" / "notes.txt") << "x";
  std::ofstream(dir / "ranks" / ".DS_Store") << "Bud1";  // broke a merge of rank files
  std::ofstream(dir / "ranks" / ".cpu_3.prof.swp") << "x";
  const std::string ranks = (dir / "ranks").string();
  auto folder = expand_inputs({ranks});
  ASSERT_TRUE(folder.has_value());
  EXPECT_EQ(*folder, (std::vector<std::string>{ranks + "/cpu_0.prof", ranks + "/cpu_1.prof", ranks + "/cpu_2.prof",
                                               ranks + "/cpu_10.prof", ranks + "/notes.txt"}));
  auto glob = expand_inputs({ranks + "/cpu_*.prof", "-"});
  ASSERT_TRUE(glob.has_value());
  EXPECT_EQ(*glob, (std::vector<std::string>{ranks + "/cpu_0.prof", ranks + "/cpu_1.prof", ranks + "/cpu_2.prof",
                                             ranks + "/cpu_10.prof", "-"}));
  std::ofstream(dir / "list.txt") << ranks << "/cpu_10.prof\r\n\n" << ranks << "/cpu_0.prof\n";
  auto list = expand_inputs({"@" + (dir / "list.txt").string()});
  ASSERT_TRUE(list.has_value());
  EXPECT_EQ(*list, (std::vector<std::string>{ranks + "/cpu_10.prof", ranks + "/cpu_0.prof"}));
  // A file whose name looks like a pattern is that file.
  std::ofstream(dir / "odd[1].prof") << "x";
  auto odd = expand_inputs({(dir / "odd[1].prof").string()});
  ASSERT_TRUE(odd.has_value());
  EXPECT_EQ(odd->size(), 1u);

  auto none = expand_inputs({ranks + "/gpu_*.prof"});
  ASSERT_FALSE(none.has_value());
  EXPECT_EQ(none.error().message, "'" + ranks + "/gpu_*.prof': no file matches this pattern");
  fs::create_directory(dir / "empty");
  std::ofstream(dir / "empty" / ".hidden") << "x";
  auto empty = expand_inputs({(dir / "empty").string()});
  ASSERT_FALSE(empty.has_value());
  EXPECT_NE(empty.error().message.find("expected profile files in this folder, found none"), std::string::npos);
  auto missing = expand_inputs({"@" + (dir / "nolist").string()});
  ASSERT_FALSE(missing.has_value());
  EXPECT_NE(missing.error().message.find("cannot read this list of inputs"), std::string::npos);
}

TEST(Inputs, AQuotedGlobMergesWhatTheShellWould) {
  fs::path mpi = test::testdata_dir() / "mpi";
  auto shell = test::run({"sh", "-c", "\"$0\" -T ranks.json \"$1\"/cpu_*.prof", GRAPHGEN_BINARY, mpi.string()});
  auto quoted = test::graphgen({"-T", "ranks.json", (mpi / "cpu_*.prof").string()});
  ASSERT_EQ(shell.exit_code, 0) << shell.err;
  ASSERT_EQ(quoted.exit_code, 0) << quoted.err;
  EXPECT_EQ(quoted.out, shell.out);
}

// A later input of another format is an error that names both, among
// inputs read a run at a time and checked against the first one's format
// without trying every format on each.
TEST(Inputs, AnInputOfAnotherFormatAmongManyIsNamed) {
  fs::path dir = test::temp_dir();
  std::vector<std::string> args = {"-T", "stats"};
  for (int r = 0; r < 40; ++r) {
    fs::path f = dir / ("cpu_" + std::to_string(r) + ".prof");
    if (r == 17)
      fs::copy_file(test::testdata_dir() / "callgrind" / "cxx.callgrind", f);
    else
      fs::copy_file(test::testdata_dir() / "mpi" / ("cpu_" + std::to_string(r % 8) + ".prof"), f);
    args.push_back(f.string());
  }
  auto r = test::graphgen(args);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(
      r.err,
      fmt::format("graphgen: error: inputs mix formats: {} is pstats but {} is callgrind; give one format at a time\n",
                  (dir / "cpu_0.prof").string(), (dir / "cpu_17.prof").string()));
  EXPECT_EQ(r.out, "");
}

// Standard input, a pipe or a device is read whole as it comes: `yes |
// graphgen -` and `graphgen /dev/zero` grew to gigabytes before the format
// was looked at, and --max-memory did not bound them (a 3 MB stream read
// under --max-memory 1M). The head is looked at first; the limit holds.
TEST(Inputs, AStreamIsCheckedAtItsHeadAndHeldWithinTheLimit) {
  auto endless = test::run({"timeout", "60", "sh", "-c", "yes | \"$0\" -", GRAPHGEN_BINARY});
  EXPECT_EQ(endless.exit_code, 1) << endless.err;
  EXPECT_TRUE(endless.err.starts_with("-:+0x0: cannot tell the profile format from the first bytes 'y\\ny\\n"))
      << endless.err;
  auto zeros = test::run({"timeout", "60", GRAPHGEN_BINARY, "/dev/zero"});
  EXPECT_EQ(zeros.exit_code, 1) << zeros.err;
  EXPECT_TRUE(zeros.err.starts_with("/dev/zero:+0x0: cannot tell the profile format")) << zeros.err;
  auto limited =
      test::run({"sh", "-c", "yes 'a;b 1' | head -c 3000000 | \"$0\" --max-memory 1M - -T stats", GRAPHGEN_BINARY});
  EXPECT_EQ(limited.exit_code, 1) << limited.err;
  EXPECT_EQ(limited.err, "-: more than 1 MiB read from a pipe or device, the memory limit (--max-memory raises it)\n");
  auto within = test::run({"sh", "-c", "yes 'a;b 1' | head -c 3000000 | \"$0\" - -T stats", GRAPHGEN_BINARY});
  EXPECT_EQ(within.exit_code, 0) << within.err;
  EXPECT_NE(within.out.find("in 500000 samples"), std::string::npos) << within.out;
}

}  // namespace
}  // namespace graphgen::inputs_test
