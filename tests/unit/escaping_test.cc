// Every byte value in a name, through every output: each text output shows
// a control as a visible escape (\x1b), an invalid byte as U+FFFD, and
// never writes a raw control but its own line breaks and tabs; the SVG is
// well-formed XML, the dot loads in Graphviz, a CSV cell a spreadsheet would
// run starts with '.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>

#include "util/test_util.h"

namespace graphgen::escaping_test {
namespace {

namespace fs = std::filesystem;

// One stack per byte value b: main;f<b>x<b>, but for the line end and the
// frame separator (which the format cannot hold in a name); then names
// with C1 controls, a terminal escape, and formulas.
fs::path every_byte(const std::string& name, int weight) {
  std::string text;
  for (int b = 0; b < 256; ++b) {
    if (b == '\n' || b == ';') continue;
    text += "main;f";
    text += static_cast<char>(b);
    text += 'x';
    text += static_cast<char>(b);
    text += " " + std::to_string(weight + b % 3) + "\n";
  }
  text += "main;g\xc2\x85\xc2\x9b[31mred " + std::to_string(weight) + "\n";
  text += "main;=cmd|' /C calc'!A0 1\nmain;@SUM(A1) 1\n";
  fs::path p = test::temp_dir() / name;
  std::ofstream(p, std::ios::binary) << text;
  return p;
}

// What no text output may hold: C0 controls but line feed and tab, DEL,
// C1 controls, and bytes that are not UTF-8.
std::string raw_controls(const std::string& s) {
  std::string found;
  for (std::size_t i = 0; i < s.size(); ++i) {
    auto u = static_cast<unsigned char>(s[i]);
    bool bad = (u < 0x20 && u != '\n' && u != '\t') || u == 0x7f ||
               (u == 0xc2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
                static_cast<unsigned char>(s[i + 1]) < 0xa0);
    if (bad && found.size() < 40) found += fmt::format("0x{:02x}@{} ", u, i);
  }
  return found;
}

// A program's standard input holding `text`.
test::Stdin holding(const std::string& text) {
  static int n = 0;
  return test::Stdin{.file = test::write_temp("stdin" + std::to_string(n++), text)};
}

bool valid_utf8(const std::string& s) {
  auto r = test::run({"python3", "-c", "import sys; sys.stdin.buffer.read().decode('utf-8')"}, {}, {}, 0, holding(s));
  return r.exit_code == 0;
}

class Escaping : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    a_ = every_byte("a.folded", 1);
    b_ = every_byte("b.folded", 2);
  }
  static fs::path a_, b_;
};
fs::path Escaping::a_, Escaping::b_;

TEST_F(Escaping, EveryTextOutputShowsEveryByte) {
  struct Case {
    std::vector<std::string> args;
    std::string escape;  // how ESC in "f<ESC>x<ESC>" must appear
  };
  const std::string a = a_.string(), b = b_.string();
  const std::vector<Case> cases{
      {{"-T", "dot", "-n", "0", "-e", "0", a}, "f\\\\x1bx\\\\x1b"},   // a dot string's backslash is doubled
      {{"-T", "html", "-n", "0", "-e", "0", a}, "f\\\\x1bx\\\\x1b"},  // and a JSON string's
      {{"-T", "stats", a}, "f\\x1bx\\x1b"},
      {{"-T", "callgrind", a}, "f\\x1bx\\x1b"},
      {{"-T", "folded", a}, "f\\x1bx\\x1b"},
      {{"-T", "flame", a}, "f\\x1bx\\x1b"},
      {{"-T", "ranks", "--top", "1000", a, b}, "f\\x1bx\\x1b"},
      {{"-T", "ranks.csv", a, b}, "f\\x1bx\\x1b"},
      {{"-T", "compare", "--top", "1000", "--compare", a, b}, "f\\x1bx\\x1b"},
      {{"-T", "compare.csv", "--compare", a, b}, "f\\x1bx\\x1b"},
      {{"--list-functions", "+", "-n", "0", "-e", "0", a}, "f\\x1bx\\x1b"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = c.args;
    args.push_back("-q");
    auto r = test::graphgen(args);
    const std::string what = c.args[0] + " " + c.args[1];
    const bool doubled = c.args[1] == "dot" || c.args[1] == "html";
    ASSERT_EQ(r.exit_code, 0) << what << ": " << r.err;
    EXPECT_EQ(raw_controls(r.out), "") << what;
    EXPECT_TRUE(valid_utf8(r.out)) << what;
    EXPECT_NE(r.out.find(c.escape), std::string::npos) << what;
    // NUL, CR, DEL, a C1 control, an invalid byte and a tab, each shown (a
    // tab before the count ends the name, as white space does).
    for (std::string shown : {"f\\x00x\\x00", "f\\x0dx\\x0d", "f\\x7fx\\x7f", "g\\u0085\\u009b[31mred",
                              "f\xEF\xBF\xBDx\xEF\xBF\xBD", "f\\x09x"}) {
      if (doubled)
        for (std::size_t at = 0; (at = shown.find('\\', at)) != std::string::npos; at += 2) shown.insert(at, "\\");
      EXPECT_NE(r.out.find(shown), std::string::npos) << what << " lacks " << shown;
    }
  }
}

TEST_F(Escaping, CsvCellsASpreadsheetWouldRunStartWithAQuote) {
  auto r = test::graphgen({"-T", "ranks.csv", "--top", "1000", "-q", a_.string(), b_.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\n'=cmd|' /C calc'!A0,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n'@SUM(A1),"), std::string::npos);
  auto c = test::graphgen({"-T", "compare.csv", "--compare", "-q", a_.string(), b_.string()});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_NE(c.out.find("\n'@SUM(A1),'@SUM(A1),"), std::string::npos) << c.out;
}

// Graphviz reads the dot graphgen writes (it stops at a raw NUL): the SVG's
// drawn text holds whole labels, past the escaped NUL; both SVGs are XML.
TEST_F(Escaping, GraphvizAndXmlReadersLoadWhatIsWritten) {
  for (const char* format : {"svg", "flame"}) {
    auto svg = test::graphgen({"-T", format, "-n", "0", "-e", "0", "-q", a_.string()});
    ASSERT_EQ(svg.exit_code, 0) << svg.err;
    auto xml = test::run({"python3", "-c",
                          "import sys, xml.dom.minidom as m\n"
                          "d = m.parseString(sys.stdin.buffer.read())\n"
                          "print('\\n'.join(t.firstChild.data for n in ('text', 'title') "
                          "for t in d.getElementsByTagName(n) if t.firstChild))\n"},
                         {}, {}, 0, holding(svg.out));
    ASSERT_EQ(xml.exit_code, 0) << format << ": " << xml.err;
    for (const char* shown : {"f\\x1bx\\x1b", "f\\x00x\\x00", "g\\u0085\\u009b[31mred"})
      EXPECT_NE(xml.out.find(shown), std::string::npos) << format << ": " << shown << " is not in the drawn text";
  }
}

}  // namespace
}  // namespace graphgen::escaping_test
