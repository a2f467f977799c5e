// tracemalloc snapshots of a real program (testdata/tracemalloc/app.py:
// JSON round trips and docutils) written by CPython 3.8 and 3.13: -T stats
// is what Snapshot.statistics(KEY) prints, --compare -T stats what
// compare_to prints, byte for byte (the oracle files, make.sh); the
// memory flame graph holds every byte; lines are named after the function
// around them; a pickle naming any other class is refused and runs
// nothing; the streaming path reads what the general one does.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "fuzz/fuzz.h"
#include "graphgen/analysis/merge.h"
#include "graphgen/wire.h"
#include "tracemalloc/reader.h"
#include "util/both_ways.h"
#include "util/test_util.h"

namespace graphgen::tracemalloc_test {
namespace {

namespace fs = std::filesystem;

fs::path dir() { return test::testdata_dir() / "tracemalloc"; }

TEST(Tracemalloc, StatsAreSnapshotStatisticsByteForByte) {
  for (const char* py : {"3.8", "3.13"}) {
    const std::string late = (dir() / fmt::format("app-{}.late.snapshot.xz", py)).string();
    for (const char* key : {"lineno", "traceback", "filename"}) {
      SCOPED_TRACE(fmt::format("{} {}", py, key));
      const std::string want = test::unxz(dir() / fmt::format("app-{}.late.{}.txt.xz", py, key));
      auto r = test::graphgen({late, "-T", "stats", "--sort", key});
      ASSERT_EQ(r.exit_code, 0) << r.err;
      EXPECT_GT(want.size(), 1000u);
      EXPECT_EQ(r.out, want);
    }
    // The default is lineno; --top N keeps the first N lines.
    auto top = test::graphgen({late, "-T", "stats", "--top", "3"});
    const std::string lineno = test::unxz(dir() / fmt::format("app-{}.late.lineno.txt.xz", py));
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
      EXPECT_EQ(r.out, test::unxz(dir() / fmt::format("app-{}.compare.{}.txt.xz", py, key)));
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


class Message:
    def text(self):
        keep.append(bytearray(600))
        return """
a message's line at column 0, inside a string
"""

    def after(self):
        keep.append(bytearray(700))


def wrapped():
    keep.append(
bytearray(800))


class Defaults:
    def method(self,
               x=keep.append(bytearray(900))):
        pass


keep.append(bytearray(500))
keep.append(Outer.Inner().method())
outer()
Message().text()
Message().after()
wrapped()
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
  // (A statement's lines are one: the string's line at column 0 does not
  // end Message, a call's line at column 0 is in wrapped(), and a default
  // evaluated on a def's second line is in that def, as the AST spans it.)
  for (const char* want :
       {"tricky.py:method:11", "tricky.py:method:12", "tricky.py:coro:17", "tricky.py:inner:24", "tricky.py:outer:26",
        "tricky.py:after:37", "tricky.py:wrapped:42", "tricky.py:method:47", "tricky.py:<module>:51"})
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

// --- the streaming path (stream.cc) against the whole pickle decoded first

// Where the streaming path takes a snapshot: the same strings, functions,
// calls, costs, warnings and errors as the general path, and read() gives
// the same.
// The streaming path's tables with its memo switched after `at` memo sets.
std::optional<std::string> switched(const InputFile& in, std::uint64_t at) {
  formats::ReadOptions o;
  o.memory_budget = std::size_t{256} << 20;
  Diagnostics d;
  auto p = tracemalloc::read_streaming_switching(in, o, d, at);
  if (!p) return std::nullopt;
  return fuzz::tables(*p, d);
}

fuzz::TwoPaths read_both(const InputFile& in) {
  return test::both_ways(in, tracemalloc::read_streaming, tracemalloc::read_general, tracemalloc::read);
}

TEST(Tracemalloc, StreamingPathReadsEverySnapshotAsTheGeneralPathDoes) {
  const auto files = test::files_named({dir(), test::testdata_dir() / "bad" / "tracemalloc"}, ".snapshot");
  ASSERT_GE(files.size(), 8u);
  const std::set<std::string> streamed = test::streamed_files(files, [](const fs::path& f) {
    return read_both(InputFile::from_bytes(f.string(), f.extension() == ".xz" ? test::unxz(f) : test::read_file(f)));
  });
  // CPython 3.8's and 3.13's (protocol 5, with and without total_nframe).
  for (const char* usual : {"app-3.8.early.snapshot.xz", "app-3.8.late.snapshot.xz", "app-3.13.early.snapshot.xz",
                            "app-3.13.late.snapshot.xz"}) {
    EXPECT_TRUE(streamed.count(usual)) << usual;
    // The memo switched to the taken values at the start, early, late and never.
    const InputFile in = InputFile::from_bytes(usual, test::unxz(dir() / usual));
    const auto want = switched(in, UINT64_MAX - 1);
    ASSERT_TRUE(want.has_value()) << usual;
    for (std::uint64_t at : {0, 1, 1000, 30000})
      EXPECT_EQ(switched(in, at), want) << usual << " switched after " << at << " memo sets";
  }
}

// A graph needs no callsite tree (ReadOptions: neither stacks nor
// positions for a graph output), so neither path makes one for it: the
// same strings, functions, calls and costs as with the tree, and no node
// of it (the tree of a snapshot's tracebacks was 5 MB of a 33 MB peak).
std::string wire_bytes(const Profile& p) {
  wire::Writer w;
  wire::put_profile(w, p);
  return w.take();
}

TEST(Tracemalloc, AGraphIsReadWithoutTheCallsiteTree) {
  const auto files = test::files_named({dir()}, ".snapshot");
  ASSERT_GE(files.size(), 4u);
  formats::ReadOptions graph;
  graph.keep_positions = graph.keep_stacks = false;
  graph.graph_only = true;
  for (const fs::path& f : files) {
    SCOPED_TRACE(f.string());
    const InputFile in = InputFile::from_bytes(f.string(), f.extension() == ".xz" ? test::unxz(f) : test::read_file(f));
    Diagnostics d;
    auto tree = tracemalloc::read(in, formats::ReadOptions{}, d);
    ASSERT_TRUE(tree.has_value());
    EXPECT_GT(tree->stack_nodes.size(), 10u);
    tree->stack_nodes.clear();
    tree->stack_node_cost.clear();
    const std::string want = wire_bytes(*tree);
    auto streamed = tracemalloc::read_streaming(in, graph, d);
    ASSERT_TRUE(streamed.has_value() && streamed->has_value());
    EXPECT_EQ(wire_bytes(**streamed), want);
    auto general = tracemalloc::read_general(in, graph, d);
    ASSERT_TRUE(general.has_value());
    EXPECT_EQ(wire_bytes(*general), want);
  }
}

// The tables by meaning (names, not string ids): what a merge keeps.
std::string by_meaning(const Profile& p) {
  std::string out;
  const std::size_t ne = p.events.size();
  for (const Event& e : p.events) out += fmt::format("event {} {}\n", p.str(e.name), p.str(e.unit));
  for (FuncId f = 0; f < p.functions.size(); ++f) {
    const Function& fn = p.functions[f];
    out += fmt::format("function {} {} {} calls {}:", p.str(fn.name), p.str(fn.file), fn.line, fn.calls);
    for (std::size_t e = 0; e < ne; ++e) out += fmt::format(" {}", p.self(f, e));
    out += "\n";
  }
  for (CallId c = 0; c < p.calls.size(); ++c) {
    out += fmt::format("call {} {} {}:", p.calls[c].caller, p.calls[c].callee, p.calls[c].count);
    for (std::size_t e = 0; e < ne; ++e) out += fmt::format(" {}", p.inclusive(c, e));
    out += "\n";
  }
  for (std::size_t s = 0; s < p.stack_nodes.size(); ++s) {
    out += fmt::format("stack {} {}:", p.stack_nodes[s].parent, p.stack_nodes[s].function);
    for (std::size_t e = 0; e < ne; ++e) out += fmt::format(" {}", p.stack_node_cost[s * ne + e]);
    out += "\n";
  }
  for (const auto& [k, v] : p.metadata) out += fmt::format("metadata {}={}\n", p.str(k), p.str(v));
  return out;
}

// A lone snapshot is the merged profile itself (registry: functions by
// file and line, named with their line; calls and tracebacks by the
// stacks' keys), so the pipeline hands on the reader's profile as it is,
// with no copy through the merge beside it (4 MB of sympy's 20 MB peak):
// what the merge would make of it, by meaning, for a graph (no callsite
// tree) and for -T stats (the tree).
TEST(Tracemalloc, ALoneSnapshotIsWhatTheMergeWouldMakeOfIt) {
  const auto files = test::files_named({dir()}, ".snapshot");
  ASSERT_GE(files.size(), 4u);
  formats::ReadOptions graph;
  graph.keep_positions = graph.keep_stacks = false;
  graph.graph_only = true;
  for (const formats::ReadOptions& options : {graph, formats::ReadOptions{}}) {
    for (const fs::path& f : files) {
      SCOPED_TRACE(f.string() + (options.keep_stacks ? " (tree)" : " (graph)"));
      const Profile lone = test::read_ok({f}, "tracemalloc", options);
      const InputFile in =
          InputFile::from_bytes(f.string(), f.extension() == ".xz" ? test::unxz(f) : test::read_file(f));
      Diagnostics d;
      auto read = tracemalloc::read(in, options, d);
      ASSERT_TRUE(read.has_value());
      EXPECT_GT(read->functions.size(), 10u);
      EXPECT_EQ(read->stack_nodes.empty(), !options.keep_stacks);
      // As the reader made it: its strings in its order, not re-interned.
      EXPECT_TRUE(wire_bytes(lone) == wire_bytes(*read)) << "not the reader's profile: a copy (through the merge?)";
      Profile merged;
      ProfileMerger merger(merged);
      ASSERT_TRUE(merger.add(*read, f.string()).has_value());
      merger.finish();
      EXPECT_EQ(by_meaning(lone), by_meaning(merged));
    }
  }
}

// A pickle written opcode by opcode, as CPython's Pickler writes a
// Snapshot (protocol 4 and 5, or 2 with GLOBAL and BINPUT), or with one
// thing changed: each str and tuple put in the memo, a str written again
// taken from it.
class Pickle {
 public:
  using Frames = std::vector<std::pair<std::string, std::int64_t>>;
  explicit Pickle(int protocol = 4) : protocol_(protocol) { op(0x80).op(static_cast<unsigned char>(protocol)); }
  Pickle& op(unsigned char c) {
    b_ += static_cast<char>(c);
    return *this;
  }
  Pickle& raw(std::string_view s) {
    b_ += s;
    return *this;
  }
  Pickle& le(std::uint64_t v, int n) {
    for (int k = 0; k < n; ++k) op(static_cast<unsigned char>(v >> (8 * k)));
    return *this;
  }
  // MEMOIZE (protocol 4+) or BINPUT/LONG_BINPUT: the memo index.
  std::size_t memo() {
    if (protocol_ >= 4)
      op(0x94);
    else if (memo_ < 256)
      op('q').op(static_cast<unsigned char>(memo_));
    else
      op('r').le(memo_, 4);
    return memo_++;
  }
  Pickle& get(std::size_t index) {
    return index < 256 ? op('h').op(static_cast<unsigned char>(index)) : op('j').le(index, 4);
  }
  Pickle& str(const std::string& s) {
    if (auto known = strs_.find(s); known != strs_.end()) return get(known->second);
    if (protocol_ >= 4)
      op(0x8C).op(static_cast<unsigned char>(s.size()));
    else
      op('X').le(s.size(), 4);
    raw(s);
    strs_[s] = memo();
    return *this;
  }
  Pickle& integer(std::int64_t v) {
    if (v >= 0 && v < 256) return op('K').op(static_cast<unsigned char>(v));
    if (v >= 0 && v < 65536) return op('M').le(static_cast<std::uint64_t>(v), 2);
    if (v >= INT32_MIN && v <= INT32_MAX) return op('J').le(static_cast<std::uint64_t>(v), 4);
    return op(0x8A).op(8).le(static_cast<std::uint64_t>(v), 8);
  }
  // An object of tracemalloc's class, made with no arguments.
  Pickle& object(const std::string& cls) {
    if (protocol_ >= 4)
      str("tracemalloc").str(cls).op(0x93);
    else
      op('c').raw("tracemalloc\n").raw(cls).raw("\n");
    memo();
    op(')').op(0x81);
    memo();
    return *this;
  }
  // The head of a snapshot up to its list of traces, then the MARK of
  // their APPENDS.
  Pickle& head() {
    object("Snapshot").op('}');
    memo();
    op('(').str("traces").object("_Traces").op('}');
    memo();
    str("_traces").op(']');
    memo();
    return op('(');
  }
  // The end after the traces: the limit last, as CPython writes it.
  std::string tail(std::int64_t limit) {
    op('e').op('s').op('b').str("traceback_limit").integer(limit).op('u').op('b').op('.');
    return b_;
  }
  // A traceback's tuple of frames (filename, lineno): its memo index.
  std::size_t frames(const Frames& fs) {
    if (fs.empty()) {
      op(')');
      return memo();
    }
    if (fs.size() > 3) op('(');
    for (const auto& [file, line] : fs) {
      str(file).integer(line).op(0x86);
      memo();
    }
    op(fs.size() > 3 ? 't' : static_cast<unsigned char>(0x84 + fs.size()));
    return memo();
  }
  // A trace (domain, size, frames[, total_nframe]) of a new traceback or
  // one in the memo: its memo index.
  std::size_t trace(std::int64_t size, const Frames& fs, std::optional<std::int64_t> total = {},
                    std::optional<std::size_t> shared = {}) {
    if (total) op('(');
    integer(0).integer(size);
    if (shared)
      get(*shared);
    else
      last_frames = frames(fs);
    if (total) integer(*total);
    op(total ? 't' : 0x87);
    return memo();
  }
  std::size_t last_frames = 0;
  std::string b_;

 private:
  int protocol_;
  std::size_t memo_ = 0;
  std::map<std::string, std::size_t> strs_;
};

// Traces as CPython writes them: two of one traceback (shared through the
// memo), one cut at the limit, and one of a traceback of one frame.
std::string usual(int protocol, bool total, std::int64_t big = 4096, std::int64_t line = 40) {
  Pickle p(protocol);
  p.head();
  auto t = [&](std::int64_t n) { return total ? std::optional<std::int64_t>(n) : std::nullopt; };
  p.trace(big, {{"app.py", 3}, {"lib/x.py", line}}, t(2));
  p.trace(16, {}, t(2), p.last_frames);
  p.trace(8, {{"app.py", 9}, {"app.py", 3}, {"lib/x.py", 41}, {"<frozen abc>", 1}}, t(7));
  p.trace(5, {{"lib/x.py", 41}}, t(1));
  return p.tail(4);
}

TEST(Tracemalloc, StreamingPathTakesTheUsualShapesAndLeavesTheRest) {
  struct Case {
    std::string name, bytes;
    bool streams;
  };
  std::vector<Case> cases = {
      {"CPython 3.9+ (total_nframe)", usual(5, true), true},
      {"CPython 3.8 (no total_nframe: cut as long as the limit)", usual(4, false), true},
      {"protocol 2 (GLOBAL, BINPUT, BINUNICODE)", usual(2, true), true},
      {"sizes past 2^29 and 2^32", usual(4, true, std::int64_t{1} << 29), true},
      {"a size past 2^32", usual(4, true, std::int64_t{5} << 32), true},
      {"a line past 2^31", usual(4, true, 4096, std::int64_t{1} << 31), true},
      {"bytes after STOP", usual(4, true) + "junk", true},
      {"a cut pickle", usual(4, true).substr(0, 80), false},
      {"a negative size", usual(4, true, -5), false},
      {"a negative line", usual(4, true, 4096, -1), false},
  };
  {
    Pickle p;
    p.head();
    cases.push_back({"no traces", p.tail(1), true});
  }
  {
    Pickle p;
    p.head();
    p.trace(7, {}, 0);
    p.trace(9, {{"a.py", 1}}, 1);
    cases.push_back({"a trace without frames", p.tail(1), true});
  }
  {
    Pickle p;
    p.head();
    std::size_t first = p.trace(7, {{"a.py", 1}}, 1);
    p.get(first);  // the same trace twice in one APPENDS
    p.trace(2, {{"a.py", 2}}, 1);
    p.op('e').op('(');  // a second batch, as CPython writes each 1000
    p.trace(3, {{"a.py", 1}, {"b.py", 1}}, 2);
    cases.push_back({"two batches, a trace twice", p.tail(25), true});
  }
  {
    // A traceback memoized twice, taken again by either index (or a trace
    // holding it by its own), has a second trace.
    for (const char* by : {"first", "second", "trace"}) {
      Pickle p;
      p.head();
      p.op('(').integer(0).integer(7);
      const std::size_t first = p.frames({{"a.py", 1}, {"b.py", 2}});
      const std::size_t second = p.memo();
      p.integer(2).op('t');
      const std::size_t trace = p.memo();
      if (by == std::string_view("trace"))
        p.get(trace);
      else
        p.trace(9, {}, 2, by == std::string_view("first") ? first : second);
      cases.push_back({fmt::format("a traceback memoized twice, taken again by its {}", by), p.tail(2), true});
    }
  }
  {
    Pickle p;
    p.head();
    p.trace(7, {{"a.py", 1}}, 1);
    std::string b = p.tail(1);
    const std::size_t at = b.rfind("traceback_limit");
    cases.push_back({"a limit that is not an int", b.substr(0, at + 16) + "\x8c\x01x" + b.substr(at + 18), true});
    cases.push_back(
        {"a float for the limit", b.substr(0, at + 16) + "G" + std::string(8, '\0') + b.substr(at + 18), false});
  }
  {
    Pickle p;
    p.head();
    p.op('(').integer(0).integer(1).integer(2).integer(3).integer(4).op('t');  // five fields
    cases.push_back({"a trace of five fields", p.tail(1), false});
  }
  {
    Pickle p;
    p.head();
    p.trace(7, {{"a.py", 1}}, 1);
    p.op('e').op('s').str("more").op(']');  // a second list in Snapshot's state
    p.memo();
    p.op('s').op('b').str("traceback_limit").integer(1).op('u').op('b').op('.');
    cases.push_back({"a second list", p.b_, false});
  }
  {
    Pickle p;
    p.object("Snapshot").op('}');
    p.memo();
    p.op('(').str("traces").object("_Traces").op('}');
    p.memo();
    p.str("other").op(']');
    p.memo();
    p.op('(');
    p.trace(7, {{"a.py", 1}}, 1);
    cases.push_back({"the list under another name", p.tail(1), false});
  }
  {
    Pickle p;
    p.op('c').raw("posix\nsystem\n");
    cases.push_back({"another class", p.raw(")").op(0x81).op('.').b_, false});
  }
  {
    Pickle p;
    p.head();
    p.trace(7, {{"a.py", 1}}, 1);
    std::string b = p.tail(1);
    b.insert(b.size() - 2, std::string("r\x40\x0d\x03\x00", 5));  // the state put at memo index 200 000
    cases.push_back({"a memo index far past the others", b, false});
  }
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const InputFile in = InputFile::from_bytes("made.snapshot", c.bytes);
    auto r = read_both(in);
    EXPECT_EQ(r.fast.has_value(), c.streams) << r.general;
    if (r.fast) {
      EXPECT_EQ(*r.fast, r.general);
    }
    // The memo's switch to the values a GET takes (pickle::TakenMemo) at
    // every point of the decoding, and never, reads the same.
    for (std::uint64_t at = 0; at < 64; ++at)
      EXPECT_EQ(switched(in, at), r.fast) << "switched after " << at << " memo sets";
    EXPECT_EQ(switched(in, UINT64_MAX - 1), r.fast);
  }
  // The usual shapes read as CPython's own pickle module wrote them were
  // read (the warnings and sums of the first).
  auto first = read_both(InputFile::from_bytes("made.snapshot", usual(5, true)));
  EXPECT_NE(first.general.find("1 of 4 traces were cut at the traceback limit of 4 frames"), std::string::npos)
      << first.general;
}

// PEP 695's type parameters are no part of a name: frames in `class
// Box[T]` and `def first[T]` are named Box, get and first
// (testdata/python/generic.py, Python 3.12's syntax, read for the names
// only; the snapshot made here).
TEST(Tracemalloc, GenericClassesAndFunctionsAreNamedWithoutTheirParameters) {
  const fs::path work = test::temp_dir();
  fs::copy_file(test::testdata_dir() / "python" / "generic.py", work / "generic.py");
  Pickle p;
  p.head();
  p.trace(10, {{"generic.py", 3}});
  p.trace(20, {{"generic.py", 7}});
  p.trace(30, {{"generic.py", 2}});
  std::ofstream(work / "generic.snapshot", std::ios::binary) << p.tail(1);
  auto r = test::graphgen({"generic.snapshot", "-T", "folded"}, work);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "generic.py:Box:2 30\ngeneric.py:first:7 20\ngeneric.py:get:3 10\n");
  fs::remove_all(work);
}

// A big snapshot's pages are given back as its traces are read, and what
// is kept is far less than the whole pickle decoded (the general path: 12
// times the file).
TEST(Tracemalloc, StreamingPathGivesBackThePagesItRead) {
  Pickle p;
  p.head();
  for (int i = 0; i < 200000; ++i) {
    if (i % 1000 == 999) p.op('e').op('(');
    p.trace(i, {{"app.py", i % 50}, {"lib/long/path/to/a/module.py", i % 7}, {"app.py", 1}}, 3);
  }
  auto r = test::read_mapped("pages.snapshot", p.tail(3), tracemalloc::read_streaming);
  ASSERT_TRUE(r.read.has_value());
  ASSERT_TRUE(r.read->has_value());
  EXPECT_EQ((*r.read)->functions.size(), 57u);
  // (None at all at the end: the last megabyte passed goes too.)
  EXPECT_LT(r.resident_kib, 64u) << "of " << r.file_kib << " KiB";
  // A second read finds every byte again.
  Diagnostics d2;
  EXPECT_EQ(fuzz::tables(tracemalloc::read_general(*r.in, {}, d2), d2), fuzz::tables(*r.read, r.diag));
}

}  // namespace
}  // namespace graphgen::tracemalloc_test
