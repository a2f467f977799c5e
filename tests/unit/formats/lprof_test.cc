// line_profiler files: every corpus .lprof decodes to what Python decoded,
// the text report is byte for byte line_profiler's own (testdata made with
// Debian's kernprof 4.0.2), unsafe pickles are refused, and the callgrind
// output shows per-line costs beside the source in callgrind_annotate.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "graphgen/io.h"
#include "lprof/reader.h"
#include "registry.h"
#include "util/both_ways.h"
#include "util/test_util.h"

namespace graphgen::lprof::lprof_test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

Profile read(const fs::path& p) {
  auto in = InputFile::open(p.string());
  Diagnostics d;
  auto s = lprof::read(*in, d);
  EXPECT_TRUE(s.has_value()) << (s ? "" : s.error().message);
  return s ? std::move(s).value() : Profile();
}

// [[(file, line, name), [[line, hits, ticks], ...]], ...] of a profile.
json timings(const Profile& p) {
  std::vector<json> rows(p.functions.size(), json::array());
  for (std::size_t r = 0; r < p.line_costs.size(); ++r)
    rows[p.line_costs[r].function].push_back(
        {p.line_costs[r].line, p.line_cost_values[2 * r + 1], p.line_cost_values[2 * r]});
  json out = json::array();
  for (FuncId f = 0; f < p.functions.size(); ++f) {
    const Function& fn = p.functions[f];
    out.push_back({json::array({std::string(p.str(fn.file)), fn.line, std::string(p.str(fn.name))}), rows[f]});
  }
  return out;
}

TEST(LprofReader, DecodesEveryCorpusFileExactlyAsPythonDid) {
  fs::path corpus = test::corpus_dir();
  if (corpus.empty()) GTEST_SKIP() << test::no_corpus_message();
  std::vector<std::pair<fs::path, fs::path>> cases{
      {corpus / "real/lprof/scatter.py.lprof", corpus / "real/lprof/scatter.expected.json"}};
  for (const auto& e : fs::directory_iterator(corpus / "edge/lprof"))
    if (e.path().extension() == ".lprof")
      cases.emplace_back(e.path(), e.path().parent_path() / (e.path().stem().string() + ".expected.json"));
  ASSERT_GE(cases.size(), 8u);  // 2.7 cPickle, protocols 2, 4, 5, line_profiler 4 and 5 class paths
  for (const auto& [file, expected_file] : cases) {
    SCOPED_TRACE(file.string());
    Profile p = read(file);
    json expected = json::parse(test::read_file(expected_file));
    EXPECT_EQ(p.events[0].seconds_per_unit, expected["unit"].get<double>());
    json mine = timings(p);
    json theirs = expected["timings"];
    auto by_key = [](const json& a, const json& b) { return a[0].dump() < b[0].dump(); };
    std::sort(mine.begin(), mine.end(), by_key);
    std::sort(theirs.begin(), theirs.end(), by_key);
    EXPECT_EQ(mine, theirs);
  }
}

TEST(LprofReader, KeepsFunctionsThatNeverRan) {
  Profile p = read(test::testdata_dir() / "lprof" / "shapes.lprof");
  ASSERT_EQ(p.events.size(), 2u);
  EXPECT_EQ(p.str(p.events[0].name), "time");
  EXPECT_EQ(p.str(p.events[1].name), "hits");
  FuncId never = UINT32_MAX;
  for (FuncId f = 0; f < p.functions.size(); ++f)
    if (p.str(p.functions[f].name) == "never_called") never = f;
  ASSERT_NE(never, UINT32_MAX);
  for (const LineCost& lc : p.line_costs) EXPECT_NE(lc.function, never);
  EXPECT_EQ(p.self(never, 1), 0);
}

TEST(LprofText, IsByteForByteLineProfilersReport) {
  // shapes.lprof.txt and .u3z.txt were printed by `python3 -m line_profiler`
  // (Debian 4.0.2) from shapes.lprof, in testdata/lprof, where shapes.py is.
  fs::path dir = test::testdata_dir() / "lprof";
  auto plain = test::graphgen({"-T", "text", "shapes.lprof"}, dir);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(plain.out, test::read_file(dir / "shapes.lprof.txt"));
  auto scaled = test::graphgen({"shapes.lprof", "-o", "-", "-T", "text", "--unit", "1e-3", "--skip-zero"}, dir);
  ASSERT_EQ(scaled.exit_code, 0) << scaled.err;
  EXPECT_EQ(scaled.out, test::read_file(dir / "shapes.lprof.u3z.txt"));
}

// A lambda's block is its logical line (inspect.getblock stops at the
// first NEWLINE after `lambda`): a class after `square = staticmethod(lambda
// ...)` is not shown with it (pygments' lexer.py printed nine lines of
// LexerMeta under its lambda), while a lambda in a decorator's arguments
// or a default value leaves the def's block whole; a def whose line ends
// in `# noqa: F811` has its body below (sympy's flatten was printed as its
// def line alone); a "string \ continued on the next line ends nothing
// (sympy's DisjointUnion lost its last four lines), nor does a line a
// backslash continues at column 0. blocks.lprof.txt is
// `python3 -m line_profiler` (Debian 4.0.2) of blocks.lprof.
TEST(LprofText, BlocksEndWhereGetblockEndsThem) {
  fs::path dir = test::testdata_dir() / "lprof";
  auto r = test::graphgen({"-T", "text", "blocks.lprof"}, dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, test::read_file(dir / "blocks.lprof.txt"));
}

// The numbers of a report's table rows: line -> (hits, time, per hit, %).
std::map<std::string, std::vector<std::string>> numbers(const std::string& report) {
  std::map<std::string, std::vector<std::string>> rows;
  std::istringstream in(report);
  std::string line;
  int function = 0;
  while (std::getline(in, line)) {
    if (line.starts_with("Total time:")) ++function;
    std::istringstream fields(line.substr(0, std::min<std::size_t>(line.size(), 51)));
    std::vector<std::string> v;
    for (std::string f; fields >> f;) v.push_back(f);
    if (v.size() == 5 && std::isdigit(static_cast<unsigned char>(v[0][0])))
      rows[std::to_string(function) + ":" + v[0]] = {v.begin() + 1, v.end()};
  }
  return rows;
}

TEST(LprofText, ShowsTheNumbersOfTheRealScatterReport) {
  fs::path corpus = test::corpus_dir();
  if (corpus.empty()) GTEST_SKIP() << test::no_corpus_message();
  auto r = test::graphgen({"-T", "text", "real/lprof/scatter.py.lprof"}, corpus);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto expected = numbers(test::read_file(corpus / "real/lprof/scatter.py.lprof.txt"));
  EXPECT_EQ(expected.size(), 16u);
  EXPECT_EQ(numbers(r.out), expected);
}

// -T text, or a .txt name (what a Python user names a report): of a
// pstats file, the message names the table they meant, -T stats, first.
// (No file is left.)
TEST(LprofText, TextNeedsALineProfilerInput) {
  const std::string demo = (test::testdata_dir() / "demo.pstats").string();
  const fs::path report = test::temp_dir() / "report.txt";
  for (const auto& args :
       {std::vector<std::string>{"-T", "text", demo}, std::vector<std::string>{demo, "-o", report}}) {
    auto r = test::graphgen(args);
    EXPECT_EQ(r.exit_code, 2);
    // The list of what can be written instead grows with the registry.
    EXPECT_TRUE(r.err.starts_with(
        "graphgen: error: text output is line_profiler's report; pstats input has no per-line report (for its "
        "table of functions, -T stats or a .stats name; or write dot, png, svg, pdf, jpg, gif, ps, callgrind, "
        "pstats"))
        << r.err;
    EXPECT_EQ(r.err.find("text,"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(fs::exists(report));
  }
}

std::string write_temp(const std::string& bytes) {
  fs::path p = test::temp_dir() / "x.lprof";
  std::ofstream(p, std::ios::binary) << bytes;
  return p.string();
}

// line_profiler records functions, no calls: each is a stack of one frame,
// exactly. -T folded rebuilt them from call ratios, left out the lambda
// (251 ns, under 0.001 % of the whole) and warned the stacks were
// approximate.
TEST(LprofFolded, EachFunctionIsItsOwnStackExactly) {
  auto r = test::graphgen({"-T", "folded", (test::testdata_dir() / "lprof" / "s2.lprof").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  // Nanoseconds: line_profiler's timings of each function, summed.
  EXPECT_EQ(r.out,
            "s2:14:st 204635\n"
            "s2:18:prop 55295060\n"
            "s2:23:inner 57646\n"
            "s2:28:<lambda> 251\n"
            "s2:6:coro 1603712\n");
}

TEST(LprofReader, RefusesUnsafeOrForeignPickles) {
  using namespace std::string_literals;
  struct Bad {
    std::string bytes;
    std::string message;
  };
  std::string header = "\x80\x04\x8c\x0e_line_profiler\x8c\x09LineStats\x93"s;
  for (const Bad& b : std::vector<Bad>{
           {header + ")R."s,
            "+0x1f: refusing pickle opcode REDUCE (0x52): not used by line_profiler and unsafe or unsupported here"},
           {"\x80\x04\x8c\x08"
            "builtins\x8c\x04"
            "eval\x93."s,
            "+0x12: refusing to load 'builtins.eval': only line_profiler's LineStats may appear in a .lprof file"},
           {"\x80\x02\x63os\nsystem\n."s,
            "+0x2: refusing to load 'os.system': only line_profiler's LineStats may appear in a .lprof file"},
           {header + ")\x81}\x8c\x04unitG>\x11.\x0b\xe8&\xd6\x95s"s,
            "+0x31: truncated pickle: need 1 byte for an opcode, 0 left"},
           {header + ")\x81}\x8c\x04unitG>\x11.\x0b\xe8&\xd6\x95sb."s,
            "+0x20: expected LineStats 'timings' (a dict), found none"},
           {"\x80\x04K\x01."s,
            "+0x2: expected a LineStats object, found an int: this pickle is not a line_profiler file; give graphgen "
            "the .lprof that kernprof -l writes"},
           {"\x80\x04\x8c\x01"
            "a\x8c\x01"
            "b\x8c\x01"
            "c\x93."s,
            "+0xb: refusing to load 'b.c': only line_profiler's LineStats may appear in a .lprof file"},
       }) {
    std::string path = write_temp(b.bytes);
    auto r = test::graphgen({"-T", "text", path});
    SCOPED_TRACE(b.message);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.err, path + ":" + b.message + "\n");
  }
}

TEST(LprofCallgrind, AnnotateShowsTimeAndHitsBesideTheSource) {
  if (test::run({"sh", "-c", "command -v callgrind_annotate"}).exit_code != 0)
    GTEST_SKIP() << "callgrind_annotate (valgrind) is not installed";
  fs::path dir = test::testdata_dir() / "lprof";
  fs::path out = test::temp_dir() / "shapes.callgrind";
  ASSERT_EQ(test::graphgen({"shapes.lprof", "-o", out.string()}, dir).exit_code, 0);
  auto ann = test::run({"callgrind_annotate", "--auto=yes", out.string()}, dir);
  EXPECT_EQ(ann.exit_code, 0) << ann.err;
  EXPECT_EQ(ann.err, "");
  // The source line with its ns and hits, e.g. "2,264,047  14,151  steps += 1".
  std::istringstream in(ann.out);
  bool found = false;
  for (std::string line; std::getline(in, line);)
    if (line.find("steps += 1") != std::string::npos && line.find("14,151") != std::string::npos) found = true;
  EXPECT_TRUE(found) << ann.out.substr(0, 3000);
}

// --- the streaming path (stream.cc) against the whole pickle decoded first

fuzz::TwoPaths read_both(const fs::path& f) {
  auto streaming = [](const InputFile& in, const formats::ReadOptions&, Diagnostics& d) {
    return lprof::read_streaming(in, d);
  };
  auto general = [](const InputFile& in, const formats::ReadOptions&, Diagnostics& d) {
    return lprof::read_general(in, d);
  };
  auto either = [](const InputFile& in, const formats::ReadOptions&, Diagnostics& d) { return lprof::read(in, d); };
  return test::both_ways(f, streaming, general, either);
}

// Where the streaming path takes a file: the same strings, functions, line
// rows, costs and units as the general path; it takes every file
// line_profiler wrote (Python 2.7's cPickle, protocols 2, 4 and 5).
TEST(LprofReader, StreamingPathReadsEveryFileAsTheGeneralPathDoes) {
  std::vector<fs::path> dirs = {test::testdata_dir() / "lprof", test::testdata_dir() / "bad" / "lprof"};
  const fs::path corpus = test::corpus_dir();
  if (!corpus.empty()) {
    dirs.push_back(corpus / "edge" / "lprof");
    dirs.push_back(corpus / "real" / "lprof");
  }
  const auto streamed = test::streamed_files(test::files_named(dirs, ".lprof"), read_both);
  EXPECT_TRUE(streamed.count("shapes.lprof"));
  EXPECT_FALSE(streamed.count("unsafe.lprof"));
  if (corpus.empty()) GTEST_SKIP() << test::no_corpus_message();
  for (const char* usual : {"demo.lprof", "nev.lprof", "v2_cpickle.lprof", "v2_py27_emul.lprof", "v4_emul.lprof",
                            "v4_py36_emul.lprof", "v5_emul.lprof", "scatter.py.lprof"})
    EXPECT_TRUE(streamed.count(usual)) << usual;
}

// Pickles made by Python's own Pickler, as line_profiler makes them, and
// with one thing changed each: what the streaming path takes, it reads as
// the general path; what it leaves (an object taken from the memo again, a
// negative hit count, a key repeated in the dict), the general path reads
// or refuses.
TEST(LprofReader, StreamingPathTakesWhatLineProfilerWritesAndLeavesTheRest) {
  const fs::path dir = test::temp_dir() / "lprof-made";
  fs::create_directories(dir);
  const char* script = R"PY(
import pickle, sys, types
out = sys.argv[1]
pkg = types.ModuleType('line_profiler'); mod = types.ModuleType('line_profiler.line_profiler')
sys.modules['line_profiler'] = pkg; sys.modules['line_profiler.line_profiler'] = mod
class LineStats:
    def __init__(self, timings, unit):
        self.timings = timings
        self.unit = unit
LineStats.__module__ = 'line_profiler.line_profiler'
mod.LineStats = LineStats
def write(name, timings, unit=1e-06, protocol=4, extra=None):
    s = LineStats(timings, unit)
    if extra: s.__dict__.update(extra)
    data = pickle.dumps(s, protocol)
    with open(out + '/' + name, 'wb') as f: f.write(data)
    return data
usual = {('app.py', 3, 'main'): [(4, 1, 50), (5, 10, 700), (7, 1, 3)],
         ('app.py', 9, 'never'): [],
         ('lib/util.py', 1, 'helper'): [(2, 10, 600), (2, 5, 7), (1, 3, -4)]}
for p in (2, 4, 5): write('usual-p%d.s' % p, usual, protocol=p)
write('unit-int.s', usual, unit=1)
write('names-not-ascii.s', {('caf\u00e9.py', 1, '\u00e9t\u00e9 \U0001f600'): [(2, 1, 5)]})
write('extra-attribute.s', usual, extra={'version': 4})
write('many-functions.s', {('m%d.py' % (i % 7), i, 'f%d' % i): [(i + k, k, k * 9) for k in range(i % 5)]
                           for i in range(2500)})
big = (1 << 40) + 3
write('long-ints.s', {('big.py', big, 'f'): [(big, big, -big)]})
t = (6, 1, 2)
write('same-tuple-twice.g', {('a.py', 1, 'f'): [t, t]})
shared = [(2, 1, 1)]
write('same-list-twice.g', {('a.py', 1, 'f'): shared, ('a.py', 5, 'g'): shared})
write('negative-hits.g', {('a.py', 1, 'f'): [(2, -1, 1)]})
write('unit-zero.g', usual, unit=0.0)
data = write('repeated-key.g', {('a.py', 1, 'f'): [(2, 1, 1)], ('a.py', 1, 'g'): [(3, 2, 2)]})
at = data.index(b'\x8c\x01g')
with open(out + '/repeated-key.g', 'wb') as f: f.write(data[:at] + b'\x8c\x01f' + data[at + 3:])
)PY";
  auto made = test::run({"python3", "-c", script, dir.string()});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  std::size_t cases = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    SCOPED_TRACE(name);
    const fuzz::TwoPaths r = read_both(e.path());
    EXPECT_EQ(r.fast.has_value(), name.ends_with(".s")) << r.general.substr(0, 300);
    if (r.fast) {
      EXPECT_EQ(*r.fast, r.general);
    }
    ++cases;
  }
  EXPECT_EQ(cases, 13u);  // (Python 2's str: the corpus's cPickle files above)
  // What the general path makes of the ones left to it.
  Diagnostics d;
  auto twice = lprof::read_general(*InputFile::open((dir / "same-tuple-twice.g").string()), d);
  ASSERT_TRUE(twice.has_value());
  EXPECT_EQ(twice->line_cost_values, (std::vector<Cost>{4, 2}));  // (time, hits) of line 6, summed
  auto repeated = lprof::read_general(*InputFile::open((dir / "repeated-key.g").string()), d);
  ASSERT_TRUE(repeated.has_value());
  ASSERT_EQ(repeated->functions.size(), 1u);
  EXPECT_EQ(repeated->line_costs.at(0).line, 3u);  // the last value, in the first key's place
  EXPECT_FALSE(lprof::read_general(*InputFile::open((dir / "negative-hits.g").string()), d).has_value());
}

// A function at a time: the pages of the file read are given back (the
// whole pickle decoded first was 12 times the file).
TEST(LprofReader, StreamingPathGivesBackThePagesItRead) {
  const fs::path dir = test::temp_dir() / "lprof-pages";
  fs::create_directories(dir);
  auto made = test::run({"python3", "-c",
                         "import pickle, sys, types\n"
                         "sys.modules['line_profiler'] = types.ModuleType('line_profiler')\n"
                         "m = types.ModuleType('line_profiler._line_profiler'); sys.modules[m.__name__] = m\n"
                         "class LineStats: pass\n"
                         "LineStats.__module__ = m.__name__; m.LineStats = LineStats\n"
                         "s = LineStats(); s.unit = 1e-9\n"
                         "s.timings = {('src/m%d.py' % (i % 50), i, 'f%d' % i): [(i + k, k + 1, 1000 * k + i) "
                         "for k in range(40)] for i in range(12000)}\n"
                         "open(sys.argv[1], 'wb').write(pickle.dumps(s, 4))\n",
                         (dir / "big.lprof").string()});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  auto r = test::read_mapped(
      "pages.lprof", test::read_file(dir / "big.lprof"),
      [](const InputFile& in, const formats::ReadOptions&, Diagnostics& d) { return lprof::read_streaming(in, d); });
  ASSERT_TRUE(r.read.has_value() && r.read->has_value());
  EXPECT_EQ((*r.read)->line_costs.size(), 12000u * 40);
  EXPECT_GT(r.file_kib, 4096u);
  EXPECT_LT(r.resident_kib, 2048u) << "of " << r.file_kib << " KiB";
}

// A graph shows no line, so the registry's reader, asked for no positions
// (keep_positions false: every graph output), makes no line rows: the same
// strings, functions, self costs and events as with them, on both paths,
// and no row (a reader that ignored the option kept 40 bytes a line).
TEST(LprofReader, WithoutPositionsTheSameFunctionsAndCostsAndNoLineRows) {
  std::vector<fs::path> dirs = {test::testdata_dir() / "lprof"};
  const fs::path corpus = test::corpus_dir();
  if (!corpus.empty()) {
    dirs.push_back(corpus / "edge" / "lprof");
    dirs.push_back(corpus / "real" / "lprof");
  }
  const formats::InputFormat* format = formats::find_input_format("lprof");
  ASSERT_NE(format, nullptr);
  const auto files = test::files_named(dirs, ".lprof");
  ASSERT_GE(files.size(), 2u);
  std::size_t rows = 0;
  for (const fs::path& f : files) {
    SCOPED_TRACE(f.string());
    auto in = InputFile::open(f.string());
    ASSERT_TRUE(in.has_value());
    Diagnostics d;
    formats::ReadOptions graph;
    graph.keep_positions = false;
    auto without = format->read(*in, graph, d);
    auto with = format->read(*in, formats::ReadOptions{}, d);
    ASSERT_TRUE(without.has_value() && with.has_value());
    EXPECT_TRUE(without->line_costs.empty() && without->line_cost_values.empty());
    rows += with->line_costs.size();
    with->line_costs.clear();
    with->line_cost_values.clear();
    EXPECT_EQ(fuzz::tables(without, d), fuzz::tables(with, d));
    // Both paths alike.
    auto general = lprof::read_general(*in, d, false);
    ASSERT_TRUE(general.has_value());
    EXPECT_EQ(fuzz::tables(general, d), fuzz::tables(with, d));
    if (auto streamed = lprof::read_streaming(*in, d, false)) {
      EXPECT_EQ(fuzz::tables(*streamed, d), fuzz::tables(with, d));
    }
  }
  EXPECT_GT(rows, 10u);
}

}  // namespace
}  // namespace graphgen::lprof::lprof_test
