// pstats tables against what Python itself decoded (.expected.json beside
// each file), merging as pstats.Stats(*files), and gprof2dot's reading of a
// table into the model.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "graphgen/analysis/graph.h"
#include "graphgen/io.h"
#include "pstats/pstats.h"
#include "util/test_util.h"

namespace graphgen::pstats {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

pstats::Table read(const fs::path& path) {
  auto in = InputFile::open(path.string());
  EXPECT_TRUE(in.has_value());
  Diagnostics diag;
  auto table = read_table(in->bytes(), path.filename().string(), diag);
  EXPECT_TRUE(table.has_value()) << (table ? "" : table.error().message);
  return table ? std::move(table).value() : Table();
}

std::string number_mismatch(const Number& n, const json& j, const std::string& where) {
  if (j.is_number_integer() || j.is_boolean()) {
    std::int64_t v = j.is_boolean() ? j.get<bool>() : j.get<std::int64_t>();
    if (!n.is_int) return where + ": expected int " + std::to_string(v) + ", found a float";
    if (n.i != v) return where + ": expected " + std::to_string(v) + ", found " + std::to_string(n.i);
    return "";
  }
  double v = j.get<double>();
  if (n.is_int) return where + ": expected a float, found int " + std::to_string(n.i);
  if (!(n.f == v || (std::isnan(n.f) && std::isnan(v))))
    return where + ": expected " + j.dump() + ", found " + std::to_string(n.f);
  return "";
}

std::string key_mismatch(const Table& t, std::uint32_t k, const json& j, const std::string& where) {
  const Key& key = t.keys[k];
  json mine = json::array({std::string(t.str(key.file)), key.line, std::string(t.str(key.name))});
  return mine == j ? "" : where + ": key " + mine.dump() + " vs " + j.dump();
}

// Python's tuple order on (filename, line, name); the corpus files list
// functions and callers sorted that way, and Python 2.7 dicts iterate in
// hash order, so both sides are compared sorted.
json key_json(const Table& t, std::uint32_t k) {
  const Key& key = t.keys[k];
  return json::array({std::string(t.str(key.file)), key.line, std::string(t.str(key.name))});
}

bool key_less(const json& a, const json& b) {
  if (a[0] != b[0]) return a[0].get<std::string>() < b[0].get<std::string>();
  if (a[1] != b[1]) return a[1].get<std::int64_t>() < b[1].get<std::int64_t>();
  return a[2].get<std::string>() < b[2].get<std::string>();
}

// Every function, caller and number equal to what Python decoded.
std::string compare(const Table& t, json expected) {
  if (t.entries.size() != expected.size())
    return "expected " + std::to_string(expected.size()) + " functions, found " + std::to_string(t.entries.size());
  std::sort(expected.begin(), expected.end(), [](const json& a, const json& b) { return key_less(a[0], b[0]); });
  std::vector<const Entry*> entries;
  for (const Entry& e : t.entries) entries.push_back(&e);
  std::sort(entries.begin(), entries.end(),
            [&](const Entry* a, const Entry* b) { return key_less(key_json(t, a->key), key_json(t, b->key)); });
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const Entry& e = *entries[i];
    json& row = expected[i];
    std::string where = "function " + row[0].dump();
    for (const std::string& m :
         {key_mismatch(t, e.key, row[0], where), number_mismatch(e.cc, row[1], where + " cc"),
          number_mismatch(e.nc, row[2], where + " nc"), number_mismatch(e.tt, row[3], where + " tt"),
          number_mismatch(e.ct, row[4], where + " ct")})
      if (!m.empty()) return m;
    json& callers = row[5];
    if (callers.size() != e.callers.size())
      return where + ": expected " + std::to_string(callers.size()) + " callers, found " +
             std::to_string(e.callers.size());
    std::sort(callers.begin(), callers.end(), [](const json& a, const json& b) { return key_less(a[0], b[0]); });
    std::vector<const Caller*> mine;
    for (const Caller& c : e.callers) mine.push_back(&c);
    std::sort(mine.begin(), mine.end(),
              [&](const Caller* a, const Caller* b) { return key_less(key_json(t, a->key), key_json(t, b->key)); });
    for (std::size_t c = 0; c < callers.size(); ++c) {
      const Caller& caller = *mine[c];
      std::string cw = where + " caller " + callers[c][0].dump();
      if (auto m = key_mismatch(t, caller.key, callers[c][0], cw); !m.empty()) return m;
      const json& v = callers[c][1];
      if (v.is_array() == caller.is_int) return cw + ": tuple/int kind differs";
      if (caller.is_int) {
        if (auto m = number_mismatch(t.numbers[caller.begin], v, cw); !m.empty()) return m;
        continue;
      }
      if (v.size() != caller.count) return cw + ": tuple length differs";
      for (std::uint32_t k = 0; k < caller.count; ++k)
        if (auto m = number_mismatch(t.numbers[caller.begin + k], v[k], cw + "[" + std::to_string(k) + "]");
            !m.empty())
          return m;
    }
  }
  return "";
}

void expect_matches_json(const fs::path& pstats_file, const fs::path& json_file) {
  SCOPED_TRACE(pstats_file.string());
  Table t = read(pstats_file);
  json expected = json::parse(test::read_file(json_file));
  EXPECT_EQ(compare(t, expected), "");
}

std::vector<fs::path> files_with_json(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& entry : fs::directory_iterator(dir)) {
    fs::path p = entry.path();
    if (p.extension() != ".pstats" && p.extension() != ".prof" && p.extension() != ".lprof") continue;
    if (p.extension() == ".lprof") continue;
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
  for (const fs::path& p : files)
    expect_matches_json(p, p.parent_path() / (p.stem().string() + ".expected.json"));
}

TEST(PstatsReader, DecodesBundledFilesExactlyAsPythonDid) {
  // cProfile 3.11 and 3.13, Python 2.7 (t/R strings), and `python -m profile
  // script.py` (int callers, a 3.11 code object in a key).
  auto files = files_with_json(test::testdata_dir());
  ASSERT_EQ(files.size(), 4u);
  for (const fs::path& p : files)
    expect_matches_json(p, p.parent_path() / (p.stem().string() + ".expected.json"));
}

TEST(PstatsReader, LabelsCodeObjectKeysByNameFileAndLine) {
  Table t = read(test::testdata_dir() / "demo-profile.pstats");
  bool found = false;
  for (const Key& k : t.keys)
    if (k.code) {
      EXPECT_EQ(t.str(k.name), "<code object <module>, file \"wordfreq.py\", line 1>");
      found = true;
    }
  EXPECT_TRUE(found);
}

Expected<Table> merge_paths(const std::vector<fs::path>& files) {
  std::vector<InputFile> inputs;
  for (const fs::path& f : files) inputs.push_back(std::move(InputFile::open(f.string())).value());
  Diagnostics d;
  return merge_files(inputs, d);
}

Table merged(const std::vector<fs::path>& files) {
  auto m = merge_paths(files);
  EXPECT_TRUE(m.has_value()) << (m ? "" : m.error().message);
  return m ? std::move(m).value() : Table();
}

TEST(PstatsMerge, EqualsPstatsStatsOfSeveralCProfileFiles) {
  fs::path dir = test::testdata_dir() / "ranks";
  Table t = merged({dir / "rank0.pstats", dir / "rank1.pstats", dir / "rank2.pstats"});
  EXPECT_EQ(compare(t, json::parse(test::read_file(dir / "merged.expected.json"))), "");
}

TEST(PstatsMerge, KeepsIntCallersOfThePurePythonProfilerAsInts) {
  fs::path dir = test::testdata_dir() / "ranks";
  Table t = merged({dir / "profile0.pstats", dir / "profile1.pstats"});
  EXPECT_EQ(compare(t, json::parse(test::read_file(dir / "profile-merged.expected.json"))), "");
}

TEST(PstatsMerge, RefusesToMixIntAndTupleCallers) {
  fs::path td = test::testdata_dir();
  // Both profile the same program: merge_sort's caller entries are tuples in
  // one and call counts in the other, which pstats cannot add either.
  auto m = merge_paths({td / "demo.pstats", td / "demo-profile.pstats"});
  ASSERT_FALSE(m.has_value());
  EXPECT_NE(m.error().message.find("cannot merge caller"), std::string::npos) << m.error().message;
}

TEST(PstatsModel, ModuleIsTheBasenameWithoutExtension) {
  EXPECT_EQ(module_of("rec.py"), "rec");
  EXPECT_EQ(module_of("/usr/lib/python3.10/posixpath.py"), "posixpath");
  EXPECT_EQ(module_of("~"), "~");
  EXPECT_EQ(module_of("<frozen importlib._bootstrap>"), "<frozen importlib");
  EXPECT_EQ(module_of("/a/b/.hidden"), ".hidden");
  EXPECT_EQ(module_of("/x.y/z"), "z");
  EXPECT_EQ(module_of("a.tar.gz"), "a.tar");
  EXPECT_EQ(module_of(""), "");
}

TEST(PstatsModel, FollowsGprof2dotReadingOfCProfileStats) {
  Table t = read(test::testdata_dir() / "demo.pstats");
  Profile p = to_profile(t);
  ASSERT_EQ(p.events.size(), 1u);
  EXPECT_EQ(p.str(p.events[0].unit), "ns");
  EXPECT_TRUE(p.has_total_cost());
  // Functions in order of first appearance (the callee, then its callers);
  // label module:line:name.
  EXPECT_EQ(p.str(p.functions[0].label), "wordfreq:21:merge");
  EXPECT_EQ(p.str(p.functions[1].label), "wordfreq:14:merge_sort");
  FuncId sort = UINT32_MAX;
  for (FuncId f = 0; f < p.functions.size(); ++f)
    if (p.str(p.functions[f].label) == "wordfreq:14:merge_sort") sort = f;
  ASSERT_NE(sort, UINT32_MAX);
  EXPECT_EQ(p.functions[sort].calls, 7999);
  EXPECT_EQ(p.functions[sort].primitive_calls, 1);
  EXPECT_EQ(p.str(p.functions[sort].file), "wordfreq.py");
  // The recursive edge carries the caller entry's primitive count cc (the
  // second item of (nc, cc, tt, ct)), as gprof2dot shows it.
  const Entry* entry = nullptr;
  for (const Entry& e : t.entries)
    if (t.str(t.keys[e.key].name) == "merge_sort") entry = &e;
  ASSERT_NE(entry, nullptr);
  std::int64_t nc = -1, cc = -1;
  for (const Caller& c : entry->callers)
    if (c.key == entry->key) {
      nc = t.numbers[c.begin].i;
      cc = t.numbers[c.begin + 1].i;
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
  Table t = read(test::testdata_dir() / "demo-profile.pstats");
  Profile p = to_profile(t);
  // For an int caller entry n: inclusive = n / nc * ct.
  for (const Entry& e : t.entries) {
    for (const Caller& c : e.callers) {
      ASSERT_TRUE(c.is_int);
      std::int64_t n = t.numbers[c.begin].i;
      double expected = ratio(static_cast<double>(n), e.nc.as_double()) * e.ct.as_double();
      // Find the call in the model.
      for (CallId id = 0; id < p.calls.size(); ++id) {
        const Function& callee = p.functions[p.calls[id].callee];
        const Function& caller = p.functions[p.calls[id].caller];
        if (p.str(callee.name) == t.str(t.keys[e.key].name) && callee.line == t.keys[e.key].line &&
            p.str(caller.name) == t.str(t.keys[c.key].name) && p.str(callee.file) == t.str(t.keys[e.key].file) &&
            caller.line == t.keys[c.key].line && p.str(caller.file) == t.str(t.keys[c.key].file)) {
          EXPECT_EQ(p.calls[id].count, n);
          EXPECT_EQ(p.inclusive(id, 0), seconds_to_ns(expected));
        }
      }
    }
  }
}

}  // namespace
}  // namespace graphgen::pstats
