// Austin 1.0.1 (Debian's) recordings of a real threaded program
// (testdata/austin): totals equal the sum of their samples (an independent
// script's tables, testdata/austin/*.txt), every mode's columns are read,
// and Python functions carry the names cProfile gives them.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "util/test_util.h"

namespace fs = std::filesystem;

namespace graphgen::austin_test {
namespace {

fs::path austin_dir() { return test::testdata_dir() / "austin"; }

// The sum of a folded output's counts.
double folded_sum(const std::string& folded) {
  double sum = 0;
  std::istringstream in(folded);
  for (std::string line; std::getline(in, line);) sum += std::stod(line.substr(line.rfind(' ') + 1));
  return sum;
}

TEST(Austin, TotalsAreTheSumOfTheSamples) {
  // threads_time.txt: total time_us=8061839, of which 20217 on 3 lines
  // without frames (said, and left out).
  auto r = test::graphgen({"threads_time.austin.xz", "-T", "folded"}, austin_dir());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(folded_sum(r.out), 8061839 - 20217);
  EXPECT_NE(r.err.find("3 lines without frames are left out (20217 microseconds of time)"), std::string::npos) << r.err;
  // -f: time, memory grown and freed (threads_full.txt: 7464 and -552 KiB,
  // 480 of them freed on a line without frames).
  for (auto [event, total] : {std::pair{"memory_grown", 7464.0}, std::pair{"memory_freed", 552.0 - 480}}) {
    auto f = test::graphgen({"threads_full.austin.xz", "--event", event, "-T", "folded", "-q"}, austin_dir());
    ASSERT_EQ(f.exit_code, 0) << f.err;
    EXPECT_EQ(folded_sum(f.out), total) << event;
  }
  // -m: Austin 1 does not say it; --event memory does (threads_mem.txt: 6700 KiB).
  auto m = test::graphgen({"threads_mem.austin.xz", "--event", "memory", "-T", "stats", "-q"}, austin_dir());
  ASSERT_EQ(m.exit_code, 0) << m.err;
  EXPECT_NE(m.out.find("0 function calls in 6700 memory"), std::string::npos) << m.out.substr(0, 300);
}

TEST(Austin, PythonFunctionsAreNamedAsCProfileNamesThem) {
  // cProfile of the same workers (cprofile_workers.py, in the main thread:
  // cProfile sees no other).
  auto c = test::graphgen({"threads.pstats", "--list-functions", "*", "-n0", "-e0"}, austin_dir());
  ASSERT_EQ(c.exit_code, 0) << c.err;
  for (const char* file : {"threads_time.austin.xz", "threads_alt.austin.xz"}) {
    SCOPED_TRACE(file);
    auto a = test::graphgen({file, "--list-functions", "*", "-n0", "-e0", "-q"}, austin_dir());
    ASSERT_EQ(a.exit_code, 0) << a.err;
    std::set<std::string> mine;
    std::istringstream in(a.out);
    for (std::string line; std::getline(in, line);) {
      std::string label = line.substr(line.find('\t') + 1);
      if (label.ends_with(",")) label.pop_back();
      if (label.starts_with("threads_cpu:")) mine.insert(label);
    }
    // Austin gives the line running; the source gives the def line.
    for (const char* label : {"threads_cpu:18:json_worker", "threads_cpu:28:zlib_worker",
                              "threads_cpu:37:compress_block", "threads_cpu:13:make_doc", "threads_cpu:14:<listcomp>",
                              "threads_cpu:44:regex_sort_worker", "threads_cpu:56:tokenize",
                              "threads_cpu:60:sort_words", "threads_cpu:61:<lambda>", "threads_cpu:1:<module>"}) {
      EXPECT_TRUE(mine.count(label)) << label << " not read from Austin";
      EXPECT_NE(c.out.find(std::string(label) + ","), std::string::npos) << label << " not in cProfile's";
    }
    EXPECT_TRUE(mine.count("threads_cpu:64:main"));  // the main thread's, which the workers' cProfile lacks
  }
}

// A function with PEP 695 type parameters (`def first[T](...)`) is found
// at its def line too, and a decorated one at its first decorator's first
// line, as cProfile numbers them.
TEST(Austin, GenericFunctionsAreNamedAtTheirDefLine) {
  const fs::path work = test::temp_dir();
  fs::copy_file(test::testdata_dir() / "python" / "generic.py", work / "generic.py");
  std::ofstream(work / "generic.austin")
      << "Thread 1;first (generic.py);L7 100\nThread 1;get (generic.py);L3 50\nThread 1;page (generic.py);L15 25\n"
         "Thread 1;spaced (generic.py);L22 5\n";
  auto r = test::graphgen({"generic.austin", "--list-functions", "*", "-n0", "-e0", "-q"}, work);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("generic:6:first"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("generic:2:get"), std::string::npos) << r.out;
  // A decorator over several lines: cProfile's line is its first.
  EXPECT_NE(r.out.find("generic:10:page"), std::string::npos) << r.out;
  // ... and over a comment and a blank line between decorator and def.
  EXPECT_NE(r.out.find("generic:18:spaced"), std::string::npos) << r.out;
  fs::remove_all(work);
}

TEST(Austin, ThreadsAndProcessesAreRanks) {
  auto r = test::graphgen({"threads_time.austin.xz", "-T", "ranks.csv", "-q"}, austin_dir());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("json_worker"), std::string::npos);
  // -C: each child process's threads under their process.
  auto p = test::graphgen({"procs_children.austin.xz", "-T", "folded", "-q"}, austin_dir());
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_TRUE(p.out.starts_with("Process_")) << p.out.substr(0, 200);
}

}  // namespace
}  // namespace graphgen::austin_test
