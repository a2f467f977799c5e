// Folded stacks and DTrace aggregations read in two parts on two cores
// (formats/common/two_parts.h) give what one pass gives: the same strings,
// functions, calls, stack tree and warnings on every real file cut at
// several places, and the same errors, line numbers and budget verdicts.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "collapse/reader.h"
#include "dtrace/reader.h"
#include "fuzz/fuzz.h"
#include "util/test_util.h"

namespace graphgen::two_parts_test {
namespace {

namespace fs = std::filesystem;

using Reader = Expected<Profile> (*)(const InputFile&, const formats::ReadOptions&, Diagnostics&, std::size_t);

struct Reads {
  std::string whole, split;
};

// `in` read in one pass and in two parts (whenever a cut is found).
Reads both(Reader read, const InputFile& in, formats::ReadOptions o) {
  Diagnostics d1, d2;
  auto whole = read(in, o, d1, SIZE_MAX);
  auto split = read(in, o, d2, 0);
  return {fuzz::tables(whole, d1) + fuzz::stacks(whole), fuzz::tables(split, d2) + fuzz::stacks(split)};
}

Reads both(Reader read, const std::string& name, const std::string& text) {
  formats::ReadOptions o;
  o.memory_budget = formats::default_budget(text.size());
  return both(read, InputFile::from_bytes(name, text), o);
}

// The real files of a format under testdata/ and the corpus (not bad/).
std::vector<fs::path> files_ending(const std::vector<std::string>& suffixes) {
  std::vector<fs::path> out;
  std::vector<fs::path> roots = {test::testdata_dir()};
  if (!test::corpus_dir().empty()) roots.push_back(test::corpus_dir());
  for (const fs::path& root : roots)
    for (const auto& e : fs::recursive_directory_iterator(root)) {
      if (!e.is_regular_file() || e.path().string().find("/bad/") != std::string::npos) continue;
      const std::string name = e.path().filename().string();
      for (const std::string& s : suffixes)
        if (name.ends_with(s)) out.push_back(e.path());
    }
  std::sort(out.begin(), out.end());
  return out;
}

// Each file whole and its first k eighths (cut at a line's end, so each
// read cuts its two parts at a different place), with and without stacks.
std::size_t compare_files(Reader read, const std::vector<std::string>& suffixes, std::size_t at_least) {
  std::size_t compared = 0;
  for (const fs::path& path : files_ending(suffixes)) {
    const std::string text = test::read_file(path);
    for (std::size_t k = 1; k <= 8; ++k) {
      std::size_t end = text.size() * k / 8;
      if (k < 8) end = text.find('\n', end) == std::string::npos ? text.size() : text.find('\n', end) + 1;
      for (bool keep_stacks : {true, false}) {
        SCOPED_TRACE(path.string() + " first " + std::to_string(end) + " bytes, stacks " + std::to_string(keep_stacks));
        formats::ReadOptions o;
        o.keep_stacks = keep_stacks;
        o.memory_budget = formats::default_budget(end);
        Reads r = both(read, InputFile::from_bytes(path.filename().string(), text.substr(0, end)), o);
        EXPECT_EQ(r.whole, r.split);
        ++compared;
      }
    }
  }
  EXPECT_GE(compared, at_least);
  return compared;
}

TEST(TwoParts, EveryFoldedFileReadsAsOnePass) {
  compare_files(collapse::read, {".folded", ".collapse", ".collapsed"}, 2 * 8 * 20);
}

TEST(TwoParts, EveryDtraceFileReadsAsOnePass) { compare_files(dtrace::read, {".dtrace"}, 2 * 8 * 2); }

// A bad line in the second part: the error one pass gives, its line
// counted from the file's start (the file is read again whole).
TEST(TwoParts, AnErrorInTheSecondPartIsOnePasssError) {
  std::string folded;
  for (int i = 0; i < 200; ++i) folded += "main;f" + std::to_string(i) + " 3\n";
  folded += "main;g x\n";
  Reads r = both(collapse::read, "late.folded", folded);
  EXPECT_EQ(r.whole, r.split);
  EXPECT_NE(r.split.find("late.folded:201:8: expected an integer sample count"), std::string::npos) << r.split;

  std::string dtrace;
  for (int i = 0; i < 200; ++i) dtrace += "\n              libc.so`f" + std::to_string(i) + "+0x1\n              3\n";
  dtrace += "what is this\n";
  r = both(dtrace::read, "late.dtrace", dtrace);
  EXPECT_EQ(r.whole, r.split);
  EXPECT_NE(r.split.find("late.dtrace:601:1: expected an indented frame"), std::string::npos) << r.split;
}

// A file cut short: the warning for its last line, once, as one pass
// gives it; a stack cut before its count likewise.
TEST(TwoParts, AFileCutShortWarnsAsOnePass) {
  std::string folded;
  for (int i = 0; i < 200; ++i) folded += "main;f" + std::to_string(i % 7) + " 3\n";
  Reads r = both(collapse::read, "cut.folded", folded + "main;g");
  EXPECT_EQ(r.whole, r.split);
  EXPECT_NE(r.split.find("warning cut.folded:201:7: the last line is cut short"), std::string::npos) << r.split;

  std::string dtrace;
  for (int i = 0; i < 200; ++i)
    dtrace += "\n              libc.so`f" + std::to_string(i % 7) + "+0x1\n              3\n";
  r = both(dtrace::read, "cut.dtrace", dtrace + "\n              libc.so`g\n");
  EXPECT_EQ(r.whole, r.split);
  EXPECT_NE(r.split.find("warning cut.dtrace:602:1: expected a sample count after the last stack's 1 frames"),
            std::string::npos)
      << r.split;
}

// A header's probe line that is a number is not a count: no part begins
// after it (its stack goes on below it in one pass).
TEST(TwoParts, DtraceIsNotCutAfterAHeadersProbeLine) {
  std::string dtrace;
  for (int i = 0; i < 100; ++i) dtrace += "              libc.so`a" + std::to_string(i) + "\n";
  dtrace += "CPU     ID                    FUNCTION:NAME\n  12345\n";
  for (int i = 0; i < 100; ++i) dtrace += "              libc.so`b" + std::to_string(i) + "\n";
  dtrace += "              7\n";
  Reads r = both(dtrace::read, "probe.dtrace", dtrace);
  EXPECT_EQ(r.whole, r.split);
  EXPECT_EQ(r.split.find("warning"), std::string::npos) << r.split;
}

// Past half the budget in a part, within it whole: read whole (each part
// is held to half, both are alive before the merge).
TEST(TwoParts, APartPastHalfTheBudgetLeavesTheFileToOnePass) {
  std::string folded;
  for (int i = 0; i < 40000; ++i) folded += "main;function_" + std::to_string(i) + " 1\n";
  for (int i = 0; i < 40000; ++i) folded += "main;function_0 1\n";
  const InputFile in = InputFile::from_bytes("budget.folded", folded);
  formats::ReadOptions o;
  Diagnostics d;
  auto unlimited = collapse::read(in, o, d, SIZE_MAX);
  ASSERT_TRUE(unlimited.has_value());
  o.memory_budget = unlimited->approximate_bytes() * 5 / 4;  // the first part alone is past half of it
  Reads r = both(collapse::read, in, o);
  EXPECT_EQ(r.whole, r.split);
  EXPECT_EQ(r.split.find("error"), std::string::npos) << r.split.substr(0, 300);
  o.memory_budget = unlimited->approximate_bytes() / 2;
  r = both(collapse::read, in, o);
  EXPECT_EQ(r.whole, r.split);
  EXPECT_NE(r.split.find("error"), std::string::npos);
}

}  // namespace
}  // namespace graphgen::two_parts_test
