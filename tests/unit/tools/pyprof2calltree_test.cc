// pyprof2calltree's command lines given to graphgen unchanged (-i, --infile,
// -o, --outfile, -r, -k): the same files, by the same names, and callgrind
// equal by meaning to what pyprof2calltree (Debian's package) writes, by
// ../shared/conformance/callgrindcmp.py.
#include <gtest/gtest.h>

#include "util/test_util.h"

namespace graphgen::pyprof2calltree_test {
namespace {

namespace fs = std::filesystem;
using test::graphgen;

bool have_pyprof2calltree() { return test::run({"sh", "-c", "command -v pyprof2calltree"}).exit_code == 0; }

// callgrindcmp.py's verdict, "" when the files mean the same.
std::string differences(const fs::path& expected, const fs::path& actual) {
  auto r = test::run(
      {"python3", (test::conformance_dir() / "callgrindcmp.py").string(), expected.string(), actual.string()});
  return r.exit_code == 0 ? std::string() : r.out + r.err;
}

TEST(Pyprof2calltree, ItsCommandLinesGiveItsFiles) {
  if (!have_pyprof2calltree()) GTEST_SKIP() << "pyprof2calltree (Debian package pyprof2calltree) is not installed";
  if (test::conformance_dir().empty()) GTEST_SKIP() << test::no_corpus_message();
  const fs::path dir = test::temp_dir();
  fs::copy_file(test::testdata_dir() / "sphinx" / "jsontool.pstats", dir / "prof.pstats");
  // -i IN -o OUT, and their long forms: OUT is callgrind whatever its name.
  auto theirs = test::run({"pyprof2calltree", "-i", "prof.pstats", "-o", "theirs.out"}, dir);
  ASSERT_EQ(theirs.exit_code, 0) << theirs.err;
  for (std::vector<std::string> ours : {std::vector<std::string>{"-i", "prof.pstats", "-o", "ours.out"},
                                        {"--infile=prof.pstats", "--outfile", "ours.out"},
                                        {"--infile", "prof.pstats", "--outfile=ours.out"},
                                        {"-iprof.pstats", "-o", "ours.out"}}) {
    SCOPED_TRACE(ours[0] + " " + ours[1]);
    fs::remove(dir / "ours.out");
    auto r = graphgen(ours, dir);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err, "");
    EXPECT_EQ(differences(dir / "theirs.out", dir / "ours.out"), "");
  }
  // -i IN alone: IN.log in the current folder, said on stderr.
  ASSERT_EQ(test::run({"pyprof2calltree", "-i", "prof.pstats"}, dir).exit_code, 0);
  fs::rename(dir / "prof.pstats.log", dir / "theirs.log");
  auto named = graphgen({"-i", "prof.pstats"}, dir);
  ASSERT_EQ(named.exit_code, 0) << named.err;
  EXPECT_EQ(named.out, "");
  EXPECT_EQ(named.err, "graphgen: wrote prof.pstats.log, as pyprof2calltree names it (-o FILE for another name)\n");
  EXPECT_EQ(differences(dir / "theirs.log", dir / "prof.pstats.log"), "");
  // An -o name graphgen knows picks its format; graphgen's options mix in.
  auto png = graphgen({"-i", "prof.pstats", "-o", "g.png", "-n", "1"}, dir);
  ASSERT_EQ(png.exit_code, 0) << png.err;
  EXPECT_TRUE(test::read_file(dir / "g.png").starts_with("\x89PNG"));
  fs::remove_all(dir);
}

TEST(Pyprof2calltree, RunScriptProfilesTheScript) {
  if (!have_pyprof2calltree()) GTEST_SKIP() << "pyprof2calltree (Debian package pyprof2calltree) is not installed";
  if (test::conformance_dir().empty()) GTEST_SKIP() << test::no_corpus_message();
#ifndef GRAPHGEN_PYTHON_EXECUTABLE
  GTEST_SKIP() << "graphgen is built without Python (python3-dev)";
#else
  const fs::path dir = test::temp_dir();
  for (const char* f : {"work.py", "helper.py"}) fs::copy_file(test::testdata_dir() / "python" / f, dir / f);
  auto theirs = test::run({"pyprof2calltree", "-r", "work.py", "5"}, dir);
  ASSERT_EQ(theirs.exit_code, 0) << theirs.err;
  fs::rename(dir / "work.py.log", dir / "theirs.log");
  auto r = graphgen({"-r", "work.py", "5"}, dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, theirs.out);  // the program's own output
  EXPECT_EQ(r.err, "graphgen run: wrote work.py.log (-o FILE for another name, -o - for standard output)\n");
  // Timings differ run to run; the program's calls do not.
  for (const char* file : {"theirs.log", "work.py.log"}) {
    SCOPED_TRACE(file);
    auto dump = test::run({"python3", (test::conformance_dir() / "callgrindcmp.py").string(), "--dump", file}, dir);
    ASSERT_EQ(dump.exit_code, 0) << dump.err;
    EXPECT_NE(dump.out.find("call ('work.py', 'fib') -> ('work.py', 'fib') 464 "), std::string::npos) << dump.out;
    EXPECT_NE(dump.out.find("call ('work.py', 'main') -> ('work.py', 'fib') 1 "), std::string::npos) << dump.out;
  }
  fs::remove_all(dir);
#endif
}

}  // namespace
}  // namespace graphgen::pyprof2calltree_test
