// The collapsed-stacks reader: located frames, several files, bad counts.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "collapse/reader.h"
#include "graphgen/labels.h"
#include "util/test_util.h"

namespace graphgen::collapse_reader_test {
namespace {

namespace fs = std::filesystem;

// A temporary file holding `text`.
fs::path from_text(const std::string& name, const std::string& text) { return test::write_temp(name, text); }

TEST(CollapseReader, ReadsLocatedFramesAsFileAndName) {
  auto p = test::read_profiles({from_text("s.collapse",
                                          "main (app.py:3);work (lib/w.py:10) 5\nmain (app.py:3) 2\n"
                                          "main (app.py:9);a;b 1\n")},
                               "collapse");
  ASSERT_TRUE(p.has_value()) << p.error().message;
  ASSERT_EQ(p->functions.size(), 4u);  // main is one function whatever its line
  EXPECT_EQ(function_label(*p, 0), "main");
  std::string module;
  EXPECT_TRUE(module_line(*p, 0, module));
  EXPECT_EQ(module, "app.py");
  EXPECT_EQ(p->self(0, 0), 2);
  EXPECT_EQ(p->stack_inclusive(0, 0), 8);
  EXPECT_TRUE(module_line(*p, 1, module));
  EXPECT_EQ(module, "lib/w.py");
  EXPECT_FALSE(module_line(*p, 2, module));
}

TEST(CollapseReader, SeveralFilesSum) {
  auto p = test::read_profiles(
      {from_text("a.collapse", "main;f 2\nmain;g 1\n"), from_text("b.collapse", "main;g 4\nmain;h 8\n")}, "collapse");
  ASSERT_TRUE(p.has_value()) << p.error().message;
  ASSERT_EQ(p->functions.size(), 4u);  // main f g h, in order of first appearance
  EXPECT_EQ(function_label(*p, 3), "h");
  EXPECT_EQ(p->self(2, 0), 5);
  EXPECT_EQ(p->stack_inclusive(0, 0), 15);
}

TEST(CollapseReader, RejectsNonIntegerCounts) {
  Diagnostics d;
  auto p = test::read_profiles({from_text("c.collapse", "a;b 1\na;c 2.5\n")}, "collapse");
  ASSERT_FALSE(p.has_value());
  EXPECT_NE(p.error().message.find("c.collapse:2:5: expected an integer sample count, found '2.5'"), std::string::npos)
      << p.error().message;
}

// A folded file cut inside its last line (the collapsing tool killed, a
// full disk, head -c) failed the whole read ("expected 'frame;frame;...
// count'"): the stacks before the cut are read, with a warning naming the
// line. A malformed line that ends with a newline is still an error.
TEST(CollapseReader, ALastLineCutShortIsLeftOutWithAWarning) {
  const std::string text = test::read_file(test::testdata_dir() / "flame" / "flame.stackcollapse-pl.folded");
  const std::size_t last = text.rfind('\n', text.size() - 2) + 1;
  const std::size_t cut = last + (text.find(';', last) - last) + 3;  // inside the last stack's frames
  const std::size_t lines =
      static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(last), '\n'));
  const fs::path cut_file = from_text("cut.folded", text.substr(0, cut));
  auto r = test::graphgen({"-f", "collapse", "-T", "folded", cut_file.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "graphgen: warning: " + cut_file.string() + ":" + std::to_string(lines + 1) + ":" +
                       std::to_string(cut - last + 1) +
                       ": the last line is cut short (no newline at the end of the file) and was left out: '" +
                       text.substr(last, cut - last) + "'\n");
  auto whole =
      test::graphgen({"-f", "collapse", "-T", "folded", from_text("whole.folded", text.substr(0, last)).string()});
  EXPECT_EQ(r.out, whole.out);
  auto bad = test::read_profiles({from_text("bad.collapse", "a;b 1\na;c\n")}, "collapse");
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message.find("bad.collapse:2:1: expected 'frame;frame;... count'"), std::string::npos)
      << bad.error().message;
}

// heaptrack_print -F (testdata/flame/heaptrack-xz.folded) ends every stack
// with ';' (`...;__GI___strdup (strdup.c); 12`), which flamegraph.pl's Perl
// split drops. It was a function with an empty name holding every sample's
// self cost (210 of 210), each real leaf none.
TEST(CollapseReader, AStackEndingInASemicolonEndsAtItsLastFrame) {
  const fs::path file = test::testdata_dir() / "flame" / "heaptrack-xz.folded";
  std::map<std::string, long long> want;  // the input's stacks without the ';'
  std::istringstream in(test::read_file(file));
  for (std::string line; std::getline(in, line);) {
    const std::size_t space = line.rfind(' ');
    std::string stack = line.substr(0, space);
    ASSERT_TRUE(stack.ends_with(';')) << line;
    while (stack.ends_with(';')) stack.pop_back();
    want[stack] += std::stoll(line.substr(space + 1));
  }
  ASSERT_GT(want.size(), 20u);
  auto r = test::graphgen({"-T", "folded", file.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, long long> have;
  std::istringstream out(r.out);
  for (std::string line; std::getline(out, line);) {
    const std::size_t space = line.rfind(' ');
    have[line.substr(0, space)] += std::stoll(line.substr(space + 1));
  }
  EXPECT_EQ(have, want);
  auto p = test::read_profiles({file}, "collapse");
  ASSERT_TRUE(p.has_value()) << p.error().message;
  for (FuncId f = 0; f < p->functions.size(); ++f) EXPECT_NE(p->str(p->functions[f].name), "") << f;
  // Empty frames elsewhere are frames, as the script draws them.
  auto inner = test::read_profiles({from_text("inner.folded", "a;;b 2\n")}, "collapse");
  ASSERT_TRUE(inner.has_value());
  EXPECT_EQ(inner->functions.size(), 3u);
}

}  // namespace
}  // namespace graphgen::collapse_reader_test
