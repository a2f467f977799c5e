// python -X importtime logs (testdata/importtime, made by make.sh there
// with Debian's sympy and docutils under CPython 3.8, 3.11 and 3.13): the
// tree of imports, each module's inclusive time the log's cumulative time.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <vector>

#include "util/test_util.h"

namespace graphgen::importtime_test {
namespace {

namespace fs = std::filesystem;

fs::path dir() { return test::testdata_dir() / "importtime"; }

// `log` as a file `name` of a fresh folder, read to folded stacks (its
// format found by its bytes).
test::RunResult folded_log(const std::string& name, const std::string& log) {
  const fs::path d = test::temp_dir();
  std::ofstream(d / name) << log;
  return test::graphgen({name, "-T", "folded"}, d);
}

// The log's rows as the test reads them: forwards, each row adopting the
// rows one level deeper that wait for their importer (the reader walks
// back from the end instead). Returns path -> cumulative time, the path
// being the importers outermost first, ';'-joined.
std::map<std::string, long long> cumulative_by_path(const std::string& log, long long* roots) {
  struct Pending {
    std::size_t level;
    std::vector<std::size_t> rows;  // the row and its imports, the row last
  };
  struct Row {
    std::string name;
    long long cumulative;
    std::size_t parent = SIZE_MAX;
  };
  std::vector<Row> rows;
  std::vector<Pending> pending;
  static const std::regex line(R"(^import time:\s+(\d+) \|\s+(\d+) \| ( *)(\S+)$)");
  std::istringstream in(log);
  for (std::string text; std::getline(in, text);) {
    std::smatch m;
    if (!std::regex_match(text, m, line)) continue;
    const std::size_t level = m[3].length() / 2, me = rows.size();
    rows.push_back({m[4], std::stoll(m[2])});
    Pending mine{level, {}};
    while (!pending.empty() && pending.back().level > level) {
      if (pending.back().level == level + 1) rows[pending.back().rows.back()].parent = me;
      mine.rows.insert(mine.rows.begin(), pending.back().rows.begin(), pending.back().rows.end());
      pending.pop_back();
    }
    mine.rows.push_back(me);
    pending.push_back(std::move(mine));
  }
  std::map<std::string, long long> out;
  *roots = 0;
  for (const Row& r : rows) {
    std::string path = r.name;
    for (std::size_t at = r.parent; at != SIZE_MAX; at = rows[at].parent) path = rows[at].name + ";" + path;
    out[path] += r.cumulative;
    if (r.parent == SIZE_MAX) *roots += r.cumulative;
  }
  return out;
}

// Folded stacks -> every prefix's inclusive value.
std::map<std::string, long long> inclusive_by_path(const std::string& folded, long long* all) {
  std::map<std::string, long long> out;
  *all = 0;
  std::istringstream in(folded);
  for (std::string line; std::getline(in, line);) {
    const std::size_t space = line.rfind(' ');
    const long long value = std::stoll(line.substr(space + 1));
    const std::string stack = line.substr(0, space);
    *all += value;
    for (std::size_t at = 0;; ++at) {
      at = stack.find(';', at);
      out[stack.substr(0, at)] += value;
      if (at == std::string::npos) break;
    }
  }
  return out;
}

TEST(Importtime, EveryImportsTotalIsTheLogsCumulativeTime) {
  for (const char* name : {"docutils-3.8", "docutils-3.13", "sympy-3.11"}) {
    SCOPED_TRACE(name);
    const fs::path log = dir() / (std::string(name) + ".importtime");
    long long roots = 0, all = 0;
    const auto want = cumulative_by_path(test::read_file(log), &roots);
    ASSERT_GT(want.size(), 50u);
    auto r = test::graphgen({log.string(), "-T", "folded"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err, "");
    const auto got = inclusive_by_path(r.out, &all);
    for (const auto& [path, cumulative] : want) EXPECT_EQ(got.count(path) ? got.at(path) : -1, cumulative) << path;
    EXPECT_EQ(got.size(), want.size());
    EXPECT_EQ(all, roots);
  }
}

TEST(Importtime, StatsGiveEachModuleItsCumulativeTime) {
  // sympy's own line: "import time:       911 |     290877 | sympy" (a
  // root: the program imported it), in pstats' table as 0.291 s.
  auto r = test::graphgen({(dir() / "sympy-3.11.importtime").string(), "-T", "stats", "--sort", "cumulative"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\n        1    0.001    0.001    0.291    0.291 sympy\n"), std::string::npos)
      << r.out.substr(0, 2000);
  EXPECT_NE(r.out.find("626 function calls in 0.320 seconds"), std::string::npos);  // 626 imports
}

TEST(Importtime, CachedOrphanedAndForeignLinesAreRead) {
  // 3.14's -X importtime=2 marks modules already imported "cached"; the
  // program's own stderr lies between; the log ends inside an import.
  auto r = folded_log("x.log",
                      "import time: self [us] | cumulative | imported package\n"
                      "Warning: something the program said\n"
                      "import time: cached    | cached     |   _io\n"
                      "import time:       594 |        594 |   _uuid\n"
                      "import time:      2428 |       3022 | uuid\n"
                      "import time:        12 |         12 |     deep\n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "deep 12\nuuid 2428\nuuid;_uuid 594\n");  // (_io costs nothing)
  EXPECT_EQ(
      r.err,
      "graphgen: warning: x.log: 1 imports have no importer in the log (the program ended, or its output was cut, "
      "inside an import): they are shown as imported by the program\n");
}

// Each line's importer is the next line one level out, found as the log
// is read (its imports' lines came before it): a line two levels deeper
// than the next one out has none in the log (deep, and tail, which the log
// ends inside), and an importer whose cumulative time is below its
// imports' has no own time (top: 3 against mid's 6).
TEST(Importtime, ImportersAreTheNextLineOneLevelOut) {
  auto r = folded_log("gap.log",
                      "import time: self [us] | cumulative | imported package\n"
                      "import time:         5 |          5 |       deep\n"
                      "import time:         4 |          6 |   mid\n"
                      "import time:         1 |          3 | top\n"
                      "import time:         7 |          7 |   tail\n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "deep 5\ntail 7\ntop;mid 6\n");
  EXPECT_EQ(r.err,
            "graphgen: warning: gap.log: 2 imports have no importer in the log (the program ended, or its output was "
            "cut, inside an import): they are shown as imported by the program\n"
            "graphgen: warning: gap.log: 1 imports took less cumulative time than their own imports (each is rounded "
            "up on its own); their own time is 0\n");
}

// The program's output without a newline before a record (unittest's dots
// on stderr, under -X importtime -m unittest): the record was taken for the
// program's line and lost (its importer's child shown as an orphan, with a
// warning blaming a cut log). A line cut short at the end of the file is
// left out, where it failed the read (digits cut) or made up a module
// (`json.deco`); a line that only holds the words is still the program's.
TEST(Importtime, RecordsAfterTheProgramsOutputAndACutLastLine) {
  const fs::path d = test::temp_dir();
  std::ofstream(d / "dots.log") << "import time: self [us] | cumulative | imported package\n"
                                   "import time:       100 |        100 |   child\n"
                                   "....import time:        50 |        150 | parent\n"
                                   "ran 4 tests; import time: fine\n";
  auto r = test::graphgen({"dots.log", "-T", "folded"}, d);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out, "parent 50\nparent;child 100\n");
  for (const char* cut : {"import time:        50 |        1", "import time:        50 |        150 | par"}) {
    SCOPED_TRACE(cut);
    std::ofstream(d / "cut.log") << "import time: self [us] | cumulative | imported package\n"
                                    "import time:       100 |        100 |   child\n"
                                 << cut;
    auto c = test::graphgen({"-f", "importtime", "cut.log", "-T", "folded"}, d);
    ASSERT_EQ(c.exit_code, 0) << c.err;
    EXPECT_EQ(c.out, "child 100\n");
    EXPECT_NE(c.err.find("cut.log:3:" + std::to_string(std::string(cut).size() + 1) +
                         ": the last line is cut short (no newline at the end of the file) and was left out"),
              std::string::npos)
        << c.err;
  }
}

// Functions are numbered as the walks from each row to its outermost
// importer first meet their names (the dot's node ids), a name repeated in
// a second process's log the same function: c, b and a from c's walk,
// then d from the second a's, e last.
TEST(Importtime, FunctionsAreNumberedAsTheWalksMeetThem) {
  const fs::path d = test::temp_dir();
  std::ofstream(d / "two.log") << "import time: self [us] | cumulative | imported package\n"
                                  "import time:         5 |          5 |     c\n"
                                  "import time:         3 |          8 |   b\n"
                                  "import time:         2 |         10 | a\n"
                                  "import time: self [us] | cumulative | imported package\n"
                                  "import time:         1 |          1 |   a\n"
                                  "import time:         4 |          4 |     e\n"
                                  "import time:         1 |          5 |   b\n"
                                  "import time:         2 |          8 | d\n";
  auto r = test::graphgen({"two.log", "-f", "importtime", "-T", "dot", "-n", "0", "-e", "0"}, d);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::map<int, std::string> order;  // node id: the function's number
  static const std::regex node(R"(^\t(\d+) \[.*label="([a-z]+)\\n.*)");
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_match(line, m, node)) order[std::stoi(m[1])] = m[2];
  }
  EXPECT_EQ(order, (std::map<int, std::string>{{0, "c"}, {1, "b"}, {2, "a"}, {3, "d"}, {4, "e"}}));
  auto folded = test::graphgen({"two.log", "-f", "importtime", "-T", "folded"}, d);
  EXPECT_EQ(folded.out, "a 2\na;b 3\na;b;c 5\nd 2\nd;a 1\nd;b 1\nd;b;e 4\n");
}

}  // namespace
}  // namespace graphgen::importtime_test
