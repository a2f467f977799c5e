// pstats files against what Python itself decoded (.expected.json beside
// each file), merging as pstats.Stats(*files), and gprof2dot's reading of
// the stats into the model.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "graphgen/analysis/graph.h"
#include "graphgen/io.h"
#include "graphgen/labels.h"
#include "pstats/reader.h"
#include "pstats/stream.h"
#include "util/test_util.h"

namespace graphgen::pstats::pstats_test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

Profile read(const fs::path& path) {
  auto in = InputFile::open(path.string());
  EXPECT_TRUE(in.has_value());
  Diagnostics diag;
  auto p = pstats::read(in->bytes(), path.filename().string(), diag);
  EXPECT_TRUE(p.has_value()) << (p ? "" : p.error().message);
  return p ? std::move(p).value() : Profile();
}

// Numbers compare by value: Python's int placeholders (the profile module's
// 0 times) are the double 0.0 in the model.
std::string number_mismatch(double mine, const json& j, const std::string& where) {
  double v = j.is_boolean() ? j.get<bool>() : j.get<double>();
  if (mine == v || (std::isnan(mine) && std::isnan(v))) return "";
  return where + ": expected " + j.dump() + ", found " + std::to_string(mine);
}

std::string count_mismatch(std::int64_t mine, const json& j, const std::string& where) {
  if (!(j.is_number_integer() || j.is_boolean())) return where + ": expected " + j.dump() + ", found an int";
  std::int64_t v = j.is_boolean() ? j.get<bool>() : j.get<std::int64_t>();
  return mine == v ? "" : where + ": expected " + std::to_string(v) + ", found " + std::to_string(mine);
}

json key_json(const Profile& p, FuncId f) {
  const Function& fn = p.functions[f];
  return json::array({std::string(p.str(fn.file)), fn.line, std::string(p.str(fn.name))});
}

// Python's tuple order on (filename, line, name); the corpus files list
// functions and callers sorted that way, and Python 2.7 dicts iterate in
// hash order, so both sides are compared sorted.
bool key_less(const json& a, const json& b) {
  if (a[0] != b[0]) return a[0].get<std::string>() < b[0].get<std::string>();
  if (a[1] != b[1]) return a[1].get<std::int64_t>() < b[1].get<std::int64_t>();
  return a[2].get<std::string>() < b[2].get<std::string>();
}

// Every function, caller and number equal to what Python decoded.
std::string compare(const Profile& p, json expected) {
  if (p.listed.size() != expected.size())
    return "expected " + std::to_string(expected.size()) + " functions, found " + std::to_string(p.listed.size());
  std::sort(expected.begin(), expected.end(), [](const json& a, const json& b) { return key_less(a[0], b[0]); });
  std::vector<FuncId> entries = p.listed;
  std::sort(entries.begin(), entries.end(),
            [&](FuncId a, FuncId b) { return key_less(key_json(p, a), key_json(p, b)); });
  Adjacency adj = Adjacency::build(p);
  for (std::size_t i = 0; i < expected.size(); ++i) {
    FuncId f = entries[i];
    const Function& fn = p.functions[f];
    json& row = expected[i];
    std::string where = "function " + row[0].dump();
    if (key_json(p, f) != row[0]) return where + ": key " + key_json(p, f).dump();
    for (const std::string& m :
         {count_mismatch(fn.primitive_calls, row[1], where + " cc"), count_mismatch(fn.calls, row[2], where + " nc"),
          number_mismatch(p.value(0, p.self(f, 0)), row[3], where + " tt"),
          number_mismatch(p.value(0, p.total(f, 0)), row[4], where + " ct")})
      if (!m.empty()) return m;
    json& callers = row[5];
    std::vector<CallId> mine(adj.in_calls.begin() + adj.in_begin[f], adj.in_calls.begin() + adj.in_begin[f + 1]);
    if (callers.size() != mine.size())
      return where + ": expected " + std::to_string(callers.size()) + " callers, found " + std::to_string(mine.size());
    std::sort(callers.begin(), callers.end(), [](const json& a, const json& b) { return key_less(a[0], b[0]); });
    std::sort(mine.begin(), mine.end(), [&](CallId a, CallId b) {
      return key_less(key_json(p, p.calls[a].caller), key_json(p, p.calls[b].caller));
    });
    for (std::size_t c = 0; c < callers.size(); ++c) {
      const Call& call = p.calls[mine[c]];
      std::string cw = where + " caller " + callers[c][0].dump();
      if (key_json(p, call.caller) != callers[c][0]) return cw + ": key " + key_json(p, call.caller).dump();
      const json& v = callers[c][1];
      bool is_int = call.primitive_count == kUnknownCount;
      if (v.is_array() == is_int) return cw + ": tuple/int kind differs";
      if (is_int) {
        if (auto m = count_mismatch(call.count, v, cw); !m.empty()) return m;
        continue;
      }
      if (v.size() != 4) return cw + ": tuple length " + std::to_string(v.size());
      for (const std::string& m :
           {count_mismatch(call.count, v[0], cw + "[0]"), count_mismatch(call.primitive_count, v[1], cw + "[1]"),
            number_mismatch(p.value(0, p.along(mine[c], 0)), v[2], cw + "[2]"),
            number_mismatch(p.value(0, p.inclusive(mine[c], 0)), v[3], cw + "[3]")})
        if (!m.empty()) return m;
    }
  }
  return "";
}

void expect_matches_json(const fs::path& pstats_file, const fs::path& json_file) {
  SCOPED_TRACE(pstats_file.string());
  Profile p = read(pstats_file);
  json expected = json::parse(test::read_file(json_file));
  EXPECT_EQ(compare(p, expected), "");
}

std::vector<fs::path> files_with_json(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& entry : fs::directory_iterator(dir)) {
    fs::path p = entry.path();
    if (p.extension() != ".pstats" && p.extension() != ".prof") continue;
    fs::path j = p.parent_path() / (p.stem().string() + ".expected.json");
    if (fs::exists(j)) out.push_back(p);
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(PstatsReader, DecodesEveryCorpusEdgeFileExactlyAsPythonDid) {
  fs::path corpus = test::corpus_dir();
  if (corpus.empty()) GTEST_SKIP() << test::no_corpus_message();
  auto files = files_with_json(corpus / "edge" / "pstats");
  ASSERT_GE(files.size(), 30u) << "edge/pstats holds 2.7 ... 3.13 cProfile, profile and merged files";
  for (const fs::path& p : files) expect_matches_json(p, p.parent_path() / (p.stem().string() + ".expected.json"));
}

TEST(PstatsReader, DecodesBundledFilesExactlyAsPythonDid) {
  // cProfile 3.11 and 3.13, Python 2.7 (t/R strings), and `python -m profile
  // script.py` (int callers, a 3.11 code object in a key; and a 2.7 one,
  // whose empty co_lnotab is the interned '': a 't' string, which 2.7's
  // marshal writes for its str, bytes, and which was refused as text).
  auto files = files_with_json(test::testdata_dir());
  ASSERT_EQ(files.size(), 5u);
  for (const fs::path& p : files) expect_matches_json(p, p.parent_path() / (p.stem().string() + ".expected.json"));
}

TEST(PstatsReader, LabelsCodeObjectKeysByNameFileAndLineAndKeepsTheCode) {
  Profile p = read(test::testdata_dir() / "demo-profile.pstats");
  bool found = false;
  for (const Function& f : p.functions)
    if (f.code != kNoString) {
      EXPECT_EQ(p.str(f.name), "<code object <module>, file \"wordfreq.py\", line 1>");
      EXPECT_EQ(p.str(f.code).substr(0, 1), "c");  // a marshalled code object
      found = true;
    }
  EXPECT_TRUE(found);
}

Expected<Profile> merge_paths(const std::vector<fs::path>& files) { return test::read_profiles(files, "pstats"); }

Profile merged(const std::vector<fs::path>& files) {
  auto m = merge_paths(files);
  EXPECT_TRUE(m.has_value()) << (m ? "" : m.error().message);
  return m ? std::move(m).value() : Profile();
}

TEST(PstatsMerge, EqualsPstatsStatsOfSeveralCProfileFilesWithExactSums) {
  // pstats.Stats(*files)'s keys, counts and order, and each time the exactly
  // rounded sum of the files' times (math.fsum): merged.fsum.json. Python
  // adds in its order, so 10 of its times differ in the last bit
  // (merged.expected.json); graphgen's do not depend on any order.
  fs::path dir = test::testdata_dir() / "ranks";
  Profile p = merged({dir / "rank0.pstats", dir / "rank1.pstats", dir / "rank2.pstats"});
  EXPECT_EQ(compare(p, json::parse(test::read_file(dir / "merged.fsum.json"))), "");
}

TEST(PstatsMerge, TimesDoNotDependOnTheOrderOfTheFiles) {
  fs::path dir = test::testdata_dir() / "ranks";
  std::vector<fs::path> files = {dir / "rank0.pstats", dir / "rank1.pstats", dir / "rank2.pstats"};
  Profile first = merged(files);
  auto times = [](const Profile& p) {
    std::map<std::string, std::pair<Cost, Cost>> out;
    for (FuncId f : p.listed) out[key_json(p, f).dump()] = {p.self(f, 0), p.total(f, 0)};
    return out;
  };
  auto want = times(first);
  std::sort(files.begin(), files.end());
  while (std::next_permutation(files.begin(), files.end())) {
    SCOPED_TRACE(files.front().filename().string() + " first");
    EXPECT_EQ(times(merged(files)), want);  // bit for bit
  }
}

TEST(PstatsMerge, KeepsIntCallersOfThePurePythonProfilerAsInts) {
  fs::path dir = test::testdata_dir() / "ranks";
  Profile p = merged({dir / "profile0.pstats", dir / "profile1.pstats"});
  EXPECT_EQ(compare(p, json::parse(test::read_file(dir / "profile-merged.expected.json"))), "");
}

TEST(PstatsMerge, RefusesToMixIntAndTupleCallers) {
  fs::path td = test::testdata_dir();
  // Both profile the same program: merge_sort's caller entries are tuples in
  // one and call counts in the other, which pstats cannot add either.
  auto m = merge_paths({td / "demo.pstats", td / "demo-profile.pstats"});
  ASSERT_FALSE(m.has_value());
  EXPECT_NE(m.error().message.find("profile and cProfile output do not mix"), std::string::npos) << m.error().message;
}

TEST(PstatsModel, ModuleIsTheBasenameWithoutExtension) {
  EXPECT_EQ(python_module("rec.py"), "rec");
  EXPECT_EQ(python_module("/usr/lib/python3.10/posixpath.py"), "posixpath");
  EXPECT_EQ(python_module("~"), "~");
  EXPECT_EQ(python_module("<frozen importlib._bootstrap>"), "<frozen importlib");
  EXPECT_EQ(python_module("/a/b/.hidden"), ".hidden");
  EXPECT_EQ(python_module("/x.y/z"), "z");
  EXPECT_EQ(python_module("a.tar.gz"), "a.tar");
  EXPECT_EQ(python_module(""), "");
}

TEST(PstatsModel, FollowsGprof2dotReadingOfCProfileStats) {
  Profile p = read(test::testdata_dir() / "demo.pstats");
  ASSERT_EQ(p.events.size(), 1u);
  EXPECT_EQ(p.str(p.events[0].unit), "s");
  EXPECT_TRUE(p.events[0].floating);
  EXPECT_TRUE(p.has_total_cost());
  // Functions in order of first appearance (the callee, then its callers);
  // label module:line:name.
  EXPECT_EQ(function_label(p, 0), "wordfreq:21:merge");
  EXPECT_EQ(function_label(p, 1), "wordfreq:14:merge_sort");
  FuncId sort = 1;
  EXPECT_EQ(p.functions[sort].calls, 7999);
  EXPECT_EQ(p.functions[sort].primitive_calls, 1);
  EXPECT_EQ(p.str(p.functions[sort].file), "wordfreq.py");
  // The recursive edge keeps the caller entry's nc and cc (the first two of
  // (nc, cc, tt, ct)); gprof2dot labels the edge with cc.
  json expected = json::parse(test::read_file(test::testdata_dir() / "demo.expected.json"));
  std::int64_t nc = -1, cc = -1;
  for (const json& row : expected)
    if (row[0][2] == "merge_sort")
      for (const json& caller : row[5])
        if (caller[0][2] == "merge_sort") {
          nc = caller[1][0];
          cc = caller[1][1];
        }
  bool seen = false;
  for (CallId c = 0; c < p.calls.size(); ++c) {
    if (p.calls[c].caller == sort && p.calls[c].callee == sort) {
      EXPECT_EQ(p.calls[c].count, nc);
      EXPECT_EQ(p.calls[c].primitive_count, cc);
      seen = true;
    }
  }
  EXPECT_LT(cc, nc);  // recursion: some calls were made while the pair was active
  EXPECT_TRUE(seen);
}

TEST(PstatsModel, IntCallersGetTheirShareOfCumulativeTime) {
  Profile p = read(test::testdata_dir() / "demo-profile.pstats");
  json expected = json::parse(test::read_file(test::testdata_dir() / "demo-profile.expected.json"));
  // For an int caller entry n: inclusive = n / nc * ct (gprof2dot's ratio:
  // 1 when nc is 0, clamped to [0, 1]).
  std::size_t checked = 0, int_callers = 0;
  for (const json& row : expected) {
    double nc = row[2].get<double>(), ct = row[4].get<double>();
    for (const json& caller : row[5]) {
      ASSERT_FALSE(caller[1].is_array());
      ++int_callers;
      std::int64_t n = caller[1];
      double share = nc == 0 ? 1.0 : std::clamp(static_cast<double>(n) / nc, 0.0, 1.0);
      for (CallId id = 0; id < p.calls.size(); ++id) {
        if (key_json(p, p.calls[id].callee) != row[0] || key_json(p, p.calls[id].caller) != caller[0]) continue;
        EXPECT_EQ(p.calls[id].count, n);
        EXPECT_DOUBLE_EQ(p.call_value(id, 0), share * ct);
        ++checked;
      }
    }
  }
  EXPECT_GT(int_callers, 10u);
  EXPECT_EQ(checked, int_callers);  // every int caller is an edge of the model
}

}  // namespace
}  // namespace graphgen::pstats::pstats_test

namespace graphgen::pstats::pstats_test {
namespace {

// Two profiles equal in every number and identity (string ids may differ).
std::string profile_mismatch(const Profile& a, const Profile& b) {
  if (a.functions.size() != b.functions.size()) return "function count";
  if (a.calls.size() != b.calls.size()) return "call count";
  if (a.keeps_call_self != b.keeps_call_self) return "calls' own times kept in one alone";
  if (a.listed != b.listed) return "listed order";
  for (FuncId f = 0; f < a.functions.size(); ++f) {
    const Function& x = a.functions[f];
    const Function& y = b.functions[f];
    if (a.str(x.name) != b.str(y.name) || a.str(x.file) != b.str(y.file) || x.line != y.line ||
        a.str(x.code) != b.str(y.code) || x.calls != y.calls || x.primitive_calls != y.primitive_calls ||
        a.self(f, 0) != b.self(f, 0) || a.total(f, 0) != b.total(f, 0))
      return "function " + function_label(a, f);
  }
  for (CallId c = 0; c < a.calls.size(); ++c) {
    const Call& x = a.calls[c];
    const Call& y = b.calls[c];
    if (x.caller != y.caller || x.callee != y.callee || x.count != y.count || x.primitive_count != y.primitive_count ||
        a.inclusive(c, 0) != b.inclusive(c, 0) || (a.keeps_call_self && a.along(c, 0) != b.along(c, 0)))
      return "call " + std::to_string(c);
  }
  if (a.call_costs_from_counts != b.call_costs_from_counts) return "call_costs_from_counts";
  return "";
}

// The streaming path's profile of `bytes`, checked equal to the general
// decoder's; nothing (and a failure) when the streaming path refuses it or
// the general decoder fails.
std::optional<Profile> streamed_as_general(const std::string& bytes, std::string_view name) {
  std::size_t trailing = 0;
  auto fast = detail::read_fast(bytes, trailing);
  if (!fast) {
    ADD_FAILURE() << name << ": the streaming path refused it";
    return std::nullopt;
  }
  Diagnostics diag;
  auto general = read_general(bytes, name, diag);
  if (!general) {
    ADD_FAILURE() << general.error().message;
    return std::nullopt;
  }
  EXPECT_EQ(profile_mismatch(*fast, *general), "") << name;
  return fast;
}

TEST(PstatsReader, StreamingPathEqualsTheGeneralDecoderOnEveryFile) {
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(test::testdata_dir()))
    if (e.path().extension() == ".pstats" && e.path().parent_path().parent_path().filename() != "bad")
      files.push_back(e.path());
  fs::path corpus = test::corpus_dir();
  if (!corpus.empty())
    for (const char* dir : {"pstats", "edge/pstats", "real/pstats", "real/pyversions", "real/mpi"})
      for (const auto& e : fs::directory_iterator(corpus / dir))
        if (e.path().extension() == ".pstats" || e.path().extension() == ".prof") files.push_back(e.path());
  std::set<fs::path> streamed;
  for (const fs::path& f : files) {
    SCOPED_TRACE(f.string());
    std::string bytes = test::read_file(f);
    std::size_t trailing = 0;
    auto fast = detail::read_fast(bytes, trailing);
    Diagnostics d;
    auto general = read_general(bytes, f.string(), d);
    ASSERT_TRUE(general.has_value()) << general.error().message;
    if (!fast) continue;  // code objects and the like: the general path alone
    streamed.insert(f);
    EXPECT_EQ(profile_mismatch(*fast, *general), "");
  }
  // The fast path does take the usual files: cProfile's of Python 3, with
  // or without the corpus beside the project.
  for (const char* usual : {"demo.pstats", "demo-py313.pstats", "pyversions/cprofile-py38.pstats",
                            "pyversions/cprofile-py312.pstats", "sphinx/jsontool.pstats", "ranks/rank0.pstats"})
    EXPECT_TRUE(streamed.count(test::testdata_dir() / usual)) << usual << " took the general path";
}

TEST(PstatsReader, StreamingPathLeavesEveryMalformedFileToTheGeneralDecoder) {
  // Each bad file gets its exact message from the general path (Cli tests
  // check them); the streaming path must not accept any of them.
  for (const auto& e : fs::directory_iterator(test::testdata_dir() / "bad" / "pstats")) {
    if (e.path().extension() != ".pstats") continue;
    SCOPED_TRACE(e.path().string());
    std::size_t trailing = 0;
    EXPECT_FALSE(detail::read_fast(test::read_file(e.path()), trailing).has_value());
  }
}

// A stats dict's marshal bytes written by hand (as Python 2 wrote them:
// no references): short strings, ints, floats, and function keys.
struct StatsBytes {
  std::string bytes = "{";
  void text(std::string_view s) {
    bytes += 'z';
    bytes += static_cast<char>(s.size());
    bytes += s;
  }
  void int32(std::int32_t v) {
    bytes += 'i';
    bytes.append(reinterpret_cast<const char*>(&v), 4);
  }
  void float64(double v) {
    bytes += 'g';
    bytes.append(reinterpret_cast<const char*>(&v), 8);
  }
  // Function i's key: (module i % 200, line 10 + i, function_i).
  void key(int i) {
    bytes += ")\x03";
    text("/src/pkg/module" + std::to_string(i % 200) + ".py");
    int32(10 + i);
    text("function_" + std::to_string(i));
  }
  // Key i, then a tuple of `size` starting with two ints and two floats.
  void keyed(int i, char size, std::int32_t a, std::int32_t b, double c, double d) {
    key(i);
    bytes += ')';
    bytes += size;
    int32(a);
    int32(b);
    float64(c);
    float64(d);
  }
  // Function i's entry, up to its callers: key, (cc, nc, tt, ct, {...
  void entry(int i, std::int32_t cc, std::int32_t nc, double tt, double ct) {
    keyed(i, 5, cc, nc, tt, ct);
    bytes += '{';
  }
  // One of its callers: key, (nc, cc, tt, ct).
  void caller(int i, std::int32_t nc, std::int32_t cc, double tt, double ct) { keyed(i, 4, nc, cc, tt, ct); }
};

// A caller key twice in one entry's callers (no dict holds it; a hand-made
// or damaged file can) is left to the general decoder, wherever the two
// are among the entry's callers, and a key repeated across entries is not
// a repeat: the streaming path reads that one.
TEST(PstatsReader, StreamingPathLeavesACallerListedTwiceToTheGeneralDecoder) {
  auto file = [](const std::vector<int>& callers_of_last) {
    StatsBytes m;
    const int n = 40;
    for (int i = 0; i < n; ++i) {
      m.entry(i, 2, 2, 1e-6, 2e-6);
      // Each function but the last is called by the one before it; the
      // last by the callers given.
      std::vector<int> callers = i + 1 < n ? std::vector<int>{} : callers_of_last;
      if (i + 1 < n && i > 0) callers.push_back(i - 1);
      for (int c : callers) m.caller(c, 1, 1, 1e-7, 1e-7);
      m.bytes += '0';
    }
    m.bytes += '0';
    return std::move(m.bytes);
  };
  for (const std::vector<int>& twice :
       {std::vector<int>{5, 5}, std::vector<int>{3, 9, 17, 30, 12, 3}, std::vector<int>{1, 2, 4, 8, 16, 32, 16}}) {
    SCOPED_TRACE(::testing::PrintToString(twice));
    const std::string bytes = file(twice);
    std::size_t trailing = 0;
    EXPECT_FALSE(detail::read_fast(bytes, trailing).has_value());
  }
  auto fast = streamed_as_general(file({3, 9, 17, 30, 12, 0}), "once.pstats");  // 0 and 3 also call others
  ASSERT_TRUE(fast.has_value());
  EXPECT_EQ(fast->calls.size(), 38u + 6u);
}

// A big pstats file read by the streaming path gives back each megabyte of
// its mapping once read: a 100 000-function profile's peak held the whole
// file beside the profile. Read again, the pages come back from the page
// cache, so the general path (and a second read) still see every byte.
TEST(PstatsReader, StreamingPathGivesBackThePagesItRead) {
  StatsBytes m;
  const int n = 150000;  // about 10 MB
  for (int i = 0; i < n; ++i) {
    m.entry(i, 1, 1, 1e-6, 2e-6);
    m.bytes += '0';
  }
  m.bytes += '0';
  const std::string& bytes = m.bytes;
  fs::path path = test::temp_dir() / "big.pstats";
  std::ofstream(path, std::ios::binary) << bytes;
  const std::size_t file_kib = bytes.size() / 1024;
  for (bool give_back : {false, true}) {
    SCOPED_TRACE(give_back ? "given the file" : "given the bytes alone");
    auto in = InputFile::open(path.string());
    ASSERT_TRUE(in.has_value());
    volatile char sum = 0;
    for (char c : in->bytes()) sum = sum + c;  // every page resident first
    ASSERT_GT(test::resident_kib(in->bytes().data()), file_kib * 9 / 10);
    Diagnostics diag;
    auto p = pstats::read(in->bytes(), path.string(), diag, give_back ? &*in : nullptr);
    ASSERT_TRUE(p.has_value()) << p.error().message;
    EXPECT_EQ(p->functions.size(), static_cast<std::size_t>(n));
    const std::size_t left = test::resident_kib(in->bytes().data());
    if (give_back)
      EXPECT_LT(left, 2048u) << "of " << file_kib << " KiB";
    else
      EXPECT_GT(left, file_kib * 9 / 10);
    // Every byte is still there to read again.
    Diagnostics again;
    auto general = read_general(in->bytes(), path.string(), again);
    ASSERT_TRUE(general.has_value());
    EXPECT_EQ(profile_mismatch(*p, *general), "");
  }
}

// A cProfile-shaped file of `functions` functions, each called by the
// `callers` before it (every key written whole, as Python 2 wrote them).
std::string many_calls_file(int functions, int callers) {
  StatsBytes m;
  for (int i = 0; i < functions; ++i) {
    m.entry(i, callers, callers, 1e-6 * (i % 7 + 1), 1e-5 * (i % 5 + 1));
    for (int k = 1; k <= callers && k <= i; ++k)
      m.caller(i - k, 1, 1, 1e-6 * (i % 7 + 1) / callers, 1e-5 * (i % 5 + 1) / callers);
    m.bytes += '0';
  }
  m.bytes += '0';
  return std::move(m.bytes);
}

// Every caller key written whole: the streaming path finds each among the
// functions already read, across its key index's growth (1 024 slots
// first, each function placed again by its key's hash as it doubles), and
// reads what the general decoder does.
TEST(PstatsReader, StreamingPathFindsWholeKeysAgainAsItsIndexGrows) {
  const int functions = 5000, callers = 3;
  auto fast = streamed_as_general(many_calls_file(functions, callers), "whole-keys.pstats");
  ASSERT_TRUE(fast.has_value());
  EXPECT_EQ(fast->functions.size(), std::size_t{functions});
  ASSERT_EQ(fast->calls.size(), std::size_t{functions} * callers - 6);
  // Function i is the i-th key met, called by the `callers` before it.
  for (FuncId f = 0; f < fast->functions.size(); ++f)
    ASSERT_EQ(fast->str(fast->functions[f].name), "function_" + std::to_string(f));
  for (const Call& c : fast->calls) {
    ASSERT_GE(c.callee, c.caller + 1);
    ASSERT_LE(c.callee, c.caller + callers);
  }
}

// A graph made while the calls are given back (what `graphgen` does) is
// the graph made from the profile as it is, edge for edge; the calls'
// pages go back as the edges are made, so making them adds next to nothing
// to the read's peak (before: 40-byte edges beside every call, the
// 100 000-function file's run 41 MiB against a read of 38).
TEST(PstatsGraph, EdgesTakeTheCallsPlace) {
  const int functions = 60000, callers = 6;
  const fs::path path = test::write_temp("many-calls.pstats", many_calls_file(functions, callers));
#ifndef GRAPHGEN_SANITIZE
  // (First: a child's peak counts what it was forked from.)
  auto r = test::graphgen({path.string(), "-q", "-o", (test::temp_dir() / "x.dot").string(), "--timings"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto peak = [&](std::string_view phase) {
    const std::size_t at = r.err.find(fmt::format("timing: {:<8}", phase));
    const std::size_t mib = r.err.find("peak memory ", at);
    return at == std::string::npos || mib == std::string::npos ? -1L : std::stol(r.err.substr(mib + 12));
  };
  ASSERT_GT(peak("read"), 0) << r.err;
  EXPECT_LE(peak("analyse"), peak("read"))
      << "360 000 calls' edges added " << peak("analyse") - peak("read") << " MiB to the read's peak";
#endif
  Profile kept = read(path);
  ASSERT_EQ(kept.calls.size(), std::size_t{functions} * callers - 21);
  Profile given = read(path);
  Diagnostics diag;
  const CallGraph whole = graph_from_reported_totals(kept, 0, diag);
  const CallGraph made = graph_releasing_calls(given, 0, diag);
  EXPECT_TRUE(given.calls.empty());
  ASSERT_EQ(made.edges.size(), whole.edges.size());
  for (std::size_t i = 0; i < whole.edges.size(); ++i) {
    const GraphEdge &a = whole.edges[i], &b = made.edges[i];
    ASSERT_TRUE(a.caller == b.caller && a.callee == b.callee && a.calls == b.calls && a.total_ratio == b.total_ratio)
        << "edge " << i << ": " << a.caller << "->" << a.callee << " against " << b.caller << "->" << b.callee;
  }
  EXPECT_EQ(made.edge_begin, whole.edge_begin);
  for (std::size_t i = 1; i < whole.edges.size(); ++i)
    ASSERT_TRUE(
        whole.edges[i - 1].caller < whole.edges[i].caller ||
        (whole.edges[i - 1].caller == whole.edges[i].caller && whole.edges[i - 1].callee < whole.edges[i].callee))
        << i;
}

// Read for a call graph (`keep_call_self` false, as the pipeline asks for
// dot and the pictures), both paths keep no call's own time (2 MB of the
// 100 000-function file's peak, which no graph reads) and everything else
// as a whole read does; the graphs are the same.
TEST(PstatsReader, AGraphReadKeepsNoOwnTimesOfCalls) {
  const std::string bytes = many_calls_file(3000, 4);
  Diagnostics diag;
  auto full = pstats::read(bytes, "calls.pstats", diag);
  auto lean = pstats::read(bytes, "calls.pstats", diag, nullptr, /*keep_call_self=*/false);
  auto lean_general = read_general(bytes, "calls.pstats", diag, /*keep_call_self=*/false);
  ASSERT_TRUE(full.has_value() && lean.has_value() && lean_general.has_value());
  std::size_t trailing = 0;
  ASSERT_TRUE(detail::read_fast(bytes, trailing).has_value()) << "the streaming path refused it";
  EXPECT_TRUE(full->keeps_call_self);
  EXPECT_EQ(full->call_self.size(), full->calls.size());
  for (const Profile* p : {&*lean, &*lean_general}) {
    EXPECT_FALSE(p->keeps_call_self);
    EXPECT_TRUE(p->call_self.empty());
  }
  EXPECT_EQ(profile_mismatch(*lean, *lean_general), "");
  const CallGraph whole = graph_from_reported_totals(*full, 0, diag);
  const CallGraph made = graph_from_reported_totals(*lean, 0, diag);
  full->call_self = {};
  full->keeps_call_self = false;
  EXPECT_EQ(profile_mismatch(*full, *lean), "");
  ASSERT_EQ(made.edges.size(), whole.edges.size());
  for (std::size_t i = 0; i < whole.edges.size(); ++i) {
    const GraphEdge &a = whole.edges[i], &b = made.edges[i];
    ASSERT_TRUE(a.caller == b.caller && a.callee == b.callee && a.calls == b.calls && a.total_ratio == b.total_ratio)
        << i;
  }
  for (FuncId f = 0; f < whole.nodes.size(); ++f)
    ASSERT_TRUE(whole.nodes[f].total_ratio == made.nodes[f].total_ratio &&
                whole.nodes[f].self_ratio == made.nodes[f].self_ratio)
        << f;
}

// Shared ints are FLAG_REF'd and read again through references: those of
// 0 to 2^29 - 1 are kept in the reference itself, the others (2^29, 2^40)
// beside it; each reads back as the general decoder reads it.
TEST(PstatsReader, StreamingPathReadsEveryIntThroughItsReference) {
  std::string bytes = "{";
  auto put32 = [&](std::int32_t v) { bytes.append(reinterpret_cast<const char*>(&v), 4); };
  auto text = [&](std::string_view s) {
    bytes += 'z';
    bytes += static_cast<char>(s.size());
    bytes += s;
  };
  auto key = [&](std::string_view name, std::int32_t line) {
    bytes += ")\x03";
    text("/src/m.py");
    bytes += 'i';
    put32(line);
    text(name);
  };
  auto float64 = [&](double v) {
    bytes += 'g';
    bytes.append(reinterpret_cast<const char*>(&v), 8);
  };
  std::int32_t refs = 0;
  // An int flagged as a reference; returns its index.
  auto shared = [&](std::int64_t v) {
    if (v <= INT32_MAX) {
      bytes += static_cast<char>('i' | 0x80);
      put32(static_cast<std::int32_t>(v));
    } else {  // TYPE_LONG: 15-bit digits, least significant first
      bytes += static_cast<char>('l' | 0x80);
      std::vector<std::uint16_t> digits;
      for (auto u = static_cast<std::uint64_t>(v); u; u >>= 15)
        digits.push_back(static_cast<std::uint16_t>(u & 0x7FFF));
      put32(static_cast<std::int32_t>(digits.size()));
      for (std::uint16_t d : digits) bytes.append(reinterpret_cast<const char*>(&d), 2);
    }
    return refs++;
  };
  auto ref = [&](std::int32_t index) {
    bytes += 'r';
    put32(index);
  };
  const std::int64_t values[] = {7, (std::int64_t{1} << 29) - 1, std::int64_t{1} << 29, std::int64_t{1} << 40};
  std::int32_t index[4] = {};
  key("main", 1);
  bytes += ")\x05";
  index[1] = shared(values[1]);
  ref(index[1]);
  float64(1e-6);
  float64(3e-6);
  bytes += '{';
  for (int i = 0; i < 4; ++i) {
    key("caller" + std::to_string(i), 10 + i);
    bytes += ")\x04";
    if (i == 1)
      ref(index[1]);  // (flagged in the entry above)
    else
      index[i] = shared(values[i]);
    ref(index[i]);
    float64(1e-7);
    float64(2e-7);
  }
  bytes += '0';
  // A second entry whose counts are references only: 2^40 and 7.
  key("caller3", 13);
  bytes += ")\x05";
  ref(index[3]);
  ref(index[0]);
  float64(1e-6);
  float64(1e-6);
  bytes += "{0";
  bytes += '0';

  auto fast = streamed_as_general(bytes, "refs.pstats");
  ASSERT_TRUE(fast.has_value());
  ASSERT_EQ(fast->calls.size(), 4u);
  for (const Call& c : fast->calls) {
    const std::string_view caller = fast->str(fast->functions[c.caller].name);
    const int i = caller.back() - '0';
    EXPECT_EQ(c.count, values[i]) << caller;
    EXPECT_EQ(c.primitive_count, values[i]) << caller;
  }
  const Function& main = fast->functions[fast->calls[0].callee];
  EXPECT_EQ(main.calls, values[1]);
  EXPECT_EQ(main.primitive_calls, values[1]);
  bool found = false;
  for (const Function& f : fast->functions)
    if (fast->str(f.name) == "caller3") {
      found = true;
      EXPECT_EQ(f.primitive_calls, values[3]);
      EXPECT_EQ(f.calls, values[0]);
    }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace graphgen::pstats::pstats_test
