// tracemalloc snapshots of a real program (testdata/tracemalloc/app.py:
// JSON round trips and docutils) written by CPython 3.8 and 3.13: -T stats
// is what Snapshot.statistics(KEY) prints, --compare -T stats what
// compare_to prints, byte for byte (the oracle files, make.sh); the
// memory flame graph holds every byte; lines are named after the function
// around them; a pickle naming any other class is refused and runs
// nothing.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "util/test_util.h"

namespace graphgen {
namespace {

namespace fs = std::filesystem;

fs::path dir() { return test::testdata_dir() / "tracemalloc"; }

std::string unxz(const fs::path& p) {
  auto r = test::run({"xz", "-dc", p.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

TEST(Tracemalloc, StatsAreSnapshotStatisticsByteForByte) {
  for (const char* py : {"3.8", "3.13"}) {
    const std::string late = (dir() / fmt::format("app-{}.late.snapshot.xz", py)).string();
    for (const char* key : {"lineno", "traceback", "filename"}) {
      SCOPED_TRACE(fmt::format("{} {}", py, key));
      const std::string want = unxz(dir() / fmt::format("app-{}.late.{}.txt.xz", py, key));
      auto r = test::graphgen({late, "-T", "stats", "--sort", key});
      ASSERT_EQ(r.exit_code, 0) << r.err;
      EXPECT_GT(want.size(), 1000u);
      EXPECT_EQ(r.out, want);
    }
    // The default is lineno; --top N keeps the first N lines.
    auto top = test::graphgen({late, "-T", "stats", "--top", "3"});
    const std::string lineno = unxz(dir() / fmt::format("app-{}.late.lineno.txt.xz", py));
    std::size_t third = 0;
    for (int i = 0; i < 3; ++i) third = lineno.find('\n', third) + 1;
    EXPECT_EQ(top.out, lineno.substr(0, third));
  }
}

TEST(Tracemalloc, CompareIsCompareToByteForByte) {
  for (const char* py : {"3.8", "3.13"}) {
    for (const char* key : {"lineno", "traceback", "filename"}) {
      SCOPED_TRACE(fmt::format("{} {}", py, key));
      auto r =
          test::graphgen({"--compare", (dir() / fmt::format("app-{}.early.snapshot.xz", py)).string(),
                          (dir() / fmt::format("app-{}.late.snapshot.xz", py)).string(), "-T", "stats", "--sort", key});
      ASSERT_EQ(r.exit_code, 0) << r.err;
      EXPECT_EQ(r.out, unxz(dir() / fmt::format("app-{}.compare.{}.txt.xz", py, key)));
    }
  }
}

// -T compare of two snapshots: bytes as whole numbers (%g printed
// "211213 -> 1.23089e+07"), the totals those of statistics('lineno').
TEST(Tracemalloc, CompareTableShowsWholeBytes) {
  auto r = test::graphgen({"--compare", (dir() / "app-3.13.early.snapshot.xz").string(),
                           (dir() / "app-3.13.late.snapshot.xz").string(), "-T", "compare", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("in bytes: 211213 -> 12308910 (+12097697, 58.277x)."), std::string::npos)
      << r.out.substr(0, 300);
  EXPECT_NE(r.out.find("      4073464     +4073464      new  (after only)    <frozen importlib._bootstrap>:488\n"),
            std::string::npos);
}

// sum(stat.size for stat in snapshot.statistics('lineno')), and the count.
TEST(Tracemalloc, MemoryFlameGraphHoldsEveryByte) {
  for (const char* py : {"3.8", "3.13"}) {
    SCOPED_TRACE(py);
    std::istringstream total(test::read_file(dir() / fmt::format("app-{}.total.txt", py)));
    std::int64_t size = 0, count = 0;
    total >> size >> count;
    ASSERT_GT(size, 100000);
    const std::string late = (dir() / fmt::format("app-{}.late.snapshot.xz", py)).string();
    for (auto [event, want] : {std::pair{"bytes", size}, std::pair{"blocks", count}}) {
      auto folded = test::graphgen({late, "-T", "folded", "--event", event});
      ASSERT_EQ(folded.exit_code, 0) << folded.err;
      std::int64_t sum = 0;
      std::istringstream lines(folded.out);
      for (std::string line; std::getline(lines, line);) sum += std::stoll(line.substr(line.rfind(' ') + 1));
      EXPECT_EQ(sum, want) << event;
    }
    auto flame = test::graphgen({late, "-T", "flame"});
    ASSERT_EQ(flame.exit_code, 0) << flame.err;
    std::string digits = std::to_string(size);  // 12,308,910
    for (std::size_t i = digits.size(); i > 3; i -= 3) digits.insert(i - 3, ",");
    EXPECT_NE(flame.out.find("all (" + digits + " bytes, 100.00%)"), std::string::npos) << flame.out.substr(0, 3000);
  }
}

// app.py is beside the snapshots (its frames name it relative, as run):
// each line is named after the def around it. (The standard library's
// files are pyenv's, absent elsewhere: their frames are file:line there,
// json/__init__.py:346, and file:def:line here.)
TEST(Tracemalloc, LinesAreNamedAfterTheirFunction) {
  auto r = test::graphgen({(dir() / "app-3.13.late.snapshot.xz").string(), "-T", "folded"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* name : {";app.py:make_rows:29", "app.py:<module>:57;app.py:main:50;", ";app.py:render:43;",
                           ";app.py:round_trip:34;json/__init__.py:", ";app.py:main:51"})
    EXPECT_NE(r.out.find(name), std::string::npos) << name;
}

// Lines in nested classes and defs, an async def, after blank lines and a
// comment at column 0 inside a method, and at module level: each frame of
// a real snapshot is named after the innermost def or class around it, as
// Python's own ast places it (the names come from one pass down the file).
// A def or class line itself runs in the scope around it (it makes the
// function or class there): named after that scope.
TEST(Tracemalloc, EveryFrameIsNamedAsPythonsAstNestsIt) {
  const fs::path work = test::temp_dir();
  std::ofstream(work / "tricky.py") << R"(import sys, tracemalloc
tracemalloc.start(8)
keep = []


class Outer:
    class Inner:
        def method(self):
            # a comment, and one at column 0 below
# column 0
            x = [bytearray(100 + i) for i in range(3)]
            keep.append(bytearray(150))
            return x

    async def coro(self):

        keep.append(bytearray(200))


def outer():
    def inner():

        if True:
            keep.append(bytearray(300))
    inner()
    keep.append(bytearray(400))


keep.append(bytearray(500))
keep.append(Outer.Inner().method())
outer()
c = Outer().coro()
try:
    c.send(None)
except StopIteration:
    pass
tracemalloc.take_snapshot().dump(sys.argv[1])
)";
  auto made = test::run({"python3", "tricky.py", "tricky.snapshot"}, work);
  ASSERT_EQ(made.exit_code, 0) << made.err;
  // The oracle: each line of tricky.py in the snapshot, named from ast.
  auto oracle = test::run({"python3", "-c", R"(import ast, sys, tracemalloc
tree = ast.parse(open('tricky.py').read())
defs = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
seen = set()
for t in tracemalloc.Snapshot.load('tricky.snapshot').traces:
    for f in t.traceback:
        if f.filename.endswith('tricky.py'):
            inside = [d for d in defs if d.lineno < f.lineno <= d.end_lineno]
            name = max(inside, key=lambda d: d.lineno).name if inside else '<module>'
            seen.add('tricky.py:%s:%d' % (name, f.lineno))
print('\n'.join(sorted(seen)))
)"},
                          work);
  ASSERT_EQ(oracle.exit_code, 0) << oracle.err;
  auto folded = test::graphgen({"tricky.snapshot", "-T", "folded"}, work);
  ASSERT_EQ(folded.exit_code, 0) << folded.err;
  std::set<std::string> names;
  std::istringstream lines(folded.out);
  for (std::string line; std::getline(lines, line);) {
    line = line.substr(0, line.rfind(' '));
    for (std::size_t at = 0; at <= line.size();) {
      std::size_t end = std::min(line.find(';', at), line.size());
      if (std::string frame = line.substr(at, end - at); frame.starts_with("tricky.py:")) names.insert(frame);
      at = end + 1;
    }
  }
  std::string ours;
  for (const std::string& n : names) ours += n + "\n";
  EXPECT_EQ(ours, oracle.out);
  // The lines the file allocates on, each there.
  for (const char* want : {"tricky.py:method:11", "tricky.py:method:12", "tricky.py:coro:17", "tricky.py:inner:24",
                           "tricky.py:outer:26", "tricky.py:<module>:29"})
    EXPECT_TRUE(names.count(want)) << want << "\n" << ours;
  fs::remove_all(work);
}

TEST(Tracemalloc, APickleNamingAnotherClassRunsNothing) {
  const fs::path ran = "/tmp/graphgen-tracemalloc-ran";  // what the pickle would touch
  fs::remove(ran);
  auto r = test::graphgen({(test::testdata_dir() / "bad" / "tracemalloc" / "unsafe.snapshot").string(), "-T", "stats"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("refusing to load 'posix.system': only tracemalloc's Snapshot and _Traces"), std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(ran));
}

}  // namespace
}  // namespace graphgen
