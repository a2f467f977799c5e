// Every corpus case of the formats graphgen reads (pstats, callgrind, perf,
// collapse, gprof's prof, axe, hprof, json, sleepy, sysprof, xperf, dtrace,
// the option cases and --compare) through the built binary, with and
// without -f, compared by meaning with gprof2dot's output
// (../shared/conformance/dotcmp.py: same nodes by label, same edges, same
// colours and sizes). Skips with one message when ../shared is absent.
//
// Known differences (README, "Where graphgen differs from gprof2dot on
// purpose"): gprof2dot identifies callgrind functions by name alone and so
// merges same-named functions of different objects. Those cases are run
// with --merge-by-name, which restores gprof2dot's identity, and must then
// match exactly: the identity is the only difference. Every other case,
// perf included, matches with graphgen's defaults.
#include <gtest/gtest.h>

#include <algorithm>

#include "util/test_util.h"

namespace graphgen::conformance_test {
namespace {

namespace fs = std::filesystem;

struct Case {
  std::string name;
  std::vector<std::string> args;  // relative to the corpus
  std::string expected;           // reference .dot, relative to the corpus
};

std::vector<std::string> split_words(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

const std::vector<std::string> kMergedByNameInGprof2dot = {
    "callgrind/googlecode-issue98.callgrind",
    "real/callgrind/dot-layout.callgrind",
};

bool listed(const std::vector<std::string>& list, const std::string& rel) {
  return std::find(list.begin(), list.end(), rel) != list.end();
}

std::vector<Case> cases() {
  std::vector<Case> out;
  fs::path corpus = test::corpus_dir();
  if (corpus.empty()) return {Case{"NoCorpus", {}, ""}};
  struct Dir {
    const char* path;
    const char* format;
    const char* ext;
  };
  for (const Dir& d :
       {Dir{"pstats", "pstats", ".pstats"}, Dir{"real/pstats", "pstats", ".pstats"},
        Dir{"real/pyversions", "pstats", ".pstats"}, Dir{"callgrind", "callgrind", ".callgrind"},
        Dir{"real/callgrind", "callgrind", ".callgrind"}, Dir{"perf", "perf", ".perf"},
        Dir{"real/perf", "perf", ".perf"}, Dir{"collapse", "collapse", ".collapse"}, Dir{"prof", "prof", ".prof"},
        Dir{"axe", "axe", ".axe"}, Dir{"hprof", "hprof", ".hprof"}, Dir{"json", "json", ".json"},
        Dir{"sleepy", "sleepy", ".sleepy"}, Dir{"sysprof", "sysprof", ".sysprof"}, Dir{"xperf", "xperf", ".xperf"},
        Dir{"dtrace", "dtrace", ".dtrace"}}) {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(corpus / d.path))
      if (e.path().extension() == d.ext) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const fs::path& f : files) {
      fs::path ref = f.parent_path() / (f.stem().string() + ".dot");
      if (!fs::exists(ref)) continue;
      std::string rel = fs::relative(f, corpus).string();
      std::string ref_rel = fs::relative(ref, corpus).string();
      std::vector<std::string> extra;
      if (listed(kMergedByNameInGprof2dot, rel)) extra.push_back("--merge-by-name");
      std::vector<std::string> forced{"-f", d.format};
      forced.insert(forced.end(), extra.begin(), extra.end());
      forced.push_back(rel);
      extra.push_back(rel);
      out.push_back({rel, forced, ref_rel});
      out.push_back({rel + " detected", extra, ref_rel});
    }
  }
  std::vector<fs::path> argfiles;
  for (const char* fmt : {"pstats", "callgrind", "perf", "collapse"})
    for (const auto& e : fs::directory_iterator(corpus / "options" / fmt))
      if (e.path().extension() == ".args") argfiles.push_back(e.path());
  std::sort(argfiles.begin(), argfiles.end());
  for (const fs::path& a : argfiles) {
    std::vector<std::string> args = split_words(test::read_file(a));
    out.push_back({fs::relative(a, corpus).string(), args,
                   fs::relative(a.parent_path() / (a.stem().string() + ".dot"), corpus).string()});
  }
  // --compare A B (gprof2dot's callgrind identity is the name: as above).
  for (const char* fmt : {"axe", "callgrind", "pstats"}) {
    std::vector<fs::path> dirs;
    for (const auto& e : fs::directory_iterator(corpus / "compare" / fmt))
      if (e.is_directory()) dirs.push_back(e.path());
    std::sort(dirs.begin(), dirs.end());
    for (const fs::path& dir : dirs) {
      std::vector<std::string> inputs;
      for (const auto& e : fs::directory_iterator(dir))
        if (e.path().extension() != ".dot") inputs.push_back(fs::relative(e.path(), corpus).string());
      std::sort(inputs.begin(), inputs.end());
      std::string name = dir.filename().string();
      // gprof2dot's comparison: the share of the total (the absolute change is graphgen's default).
      std::vector<std::string> args{"-f", fmt, "--compare-by", "share", "--compare"};
      if (std::string(fmt) == "callgrind") args.push_back("--merge-by-name");
      args.insert(args.end(), inputs.begin(), inputs.end());
      out.push_back({fs::relative(dir, corpus).string() + " compare", args,
                     fs::relative(dir / (name + ".compare.dot"), corpus).string()});
    }
  }
  std::vector<std::string> ranks;
  for (const auto& e : fs::directory_iterator(corpus / "real" / "mpi"))
    if (e.path().filename().string().starts_with("cpu_")) ranks.push_back(fs::relative(e.path(), corpus).string());
  std::sort(ranks.begin(), ranks.end());
  out.push_back({"real/mpi merged", ranks, "real/mpi/merged.dot"});
  return out;
}

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class Conformance : public testing::TestWithParam<Case> {};

TEST_P(Conformance, DotEqualsGprof2dotByMeaning) {
  const Case& c = GetParam();
  fs::path corpus = test::corpus_dir();
  if (corpus.empty()) GTEST_SKIP() << test::no_corpus_message();
  fs::path out = test::temp_dir() / "out.dot";
  std::vector<std::string> args = c.args;
  args.push_back("-o");
  args.push_back(out.string());
  auto r = test::graphgen(args, corpus);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto cmp = test::run(
      {"python3", (test::conformance_dir() / "dotcmp.py").string(), (corpus / c.expected).string(), out.string()});
  EXPECT_EQ(cmp.exit_code, 0) << cmp.out << cmp.err;
  fs::remove_all(out.parent_path());
}

// Profile outputs: pstats -> callgrind against pyprof2calltree (callgrindcmp)
// and the eight MPI ranks -> one pstats against pstats.Stats (pstatscmp).
TEST(ConformanceOutputs, PstatsToCallgrindEqualsPyprof2calltree) {
  fs::path corpus = test::corpus_dir();
  if (corpus.empty()) GTEST_SKIP() << test::no_corpus_message();
  for (const char* name : {"scatter", "pydoc-html"}) {
    SCOPED_TRACE(name);
    fs::path out = test::temp_dir() / "out.callgrind";
    auto r = test::graphgen({"real/pstats/" + std::string(name) + ".pstats", "-o", out.string()}, corpus);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto cmp = test::run({"python3", (test::conformance_dir() / "callgrindcmp.py").string(),
                          (corpus / "real/pstats" / (std::string(name) + ".pyprof2calltree.callgrind")).string(),
                          out.string()});
    EXPECT_EQ(cmp.exit_code, 0) << cmp.out;
  }
}

TEST(ConformanceOutputs, MergedRanksEqualPstatsStats) {
  fs::path corpus = test::corpus_dir();
  if (corpus.empty()) GTEST_SKIP() << test::no_corpus_message();
  std::vector<std::string> args;
  for (const auto& e : fs::directory_iterator(corpus / "real" / "mpi"))
    if (e.path().filename().string().starts_with("cpu_")) args.push_back(fs::relative(e.path(), corpus).string());
  std::sort(args.begin(), args.end());
  fs::path out = test::temp_dir() / "merged.pstats";
  args.push_back("-o");
  args.push_back(out.string());
  auto r = test::graphgen(args, corpus);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto cmp = test::run({"python3", (test::conformance_dir() / "pstatscmp.py").string(),
                        (corpus / "real/mpi/merged.pstats").string(), out.string()});
  EXPECT_EQ(cmp.exit_code, 0) << cmp.out;
}

INSTANTIATE_TEST_SUITE_P(Corpus, Conformance, testing::ValuesIn(cases()), [](const testing::TestParamInfo<Case>& info) {
  std::string n = info.param.name;
  for (char& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
});

}  // namespace
}  // namespace graphgen::conformance_test
