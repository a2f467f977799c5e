// Every pstats case of ../shared/corpus through the built binary, compared by
// meaning with the reference output (../shared/conformance/dotcmp.py: same
// nodes by label, same edges, same colours and sizes). Skips with one
// message when ../shared is not beside the project.
#include <gtest/gtest.h>

#include <algorithm>

#include "util/test_util.h"

namespace graphgen {
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

std::vector<Case> cases() {
  std::vector<Case> out;
  fs::path corpus = test::corpus_dir();
  if (corpus.empty()) return {Case{"NoCorpus", {}, ""}};
  for (const char* dir : {"pstats", "real/pstats", "real/pyversions"}) {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(corpus / dir))
      if (e.path().extension() == ".pstats") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const fs::path& f : files) {
      fs::path ref = f.parent_path() / (f.stem().string() + ".dot");
      if (!fs::exists(ref)) continue;
      std::string rel = fs::relative(f, corpus).string();
      std::string ref_rel = fs::relative(ref, corpus).string();
      out.push_back({rel, {"-f", "pstats", rel}, ref_rel});
      out.push_back({rel + " detected", {rel}, ref_rel});
    }
  }
  std::vector<fs::path> argfiles;
  for (const auto& e : fs::directory_iterator(corpus / "options" / "pstats"))
    if (e.path().extension() == ".args") argfiles.push_back(e.path());
  std::sort(argfiles.begin(), argfiles.end());
  for (const fs::path& a : argfiles)
    out.push_back({fs::relative(a, corpus).string(), split_words(test::read_file(a)),
                   fs::relative(a.parent_path() / (a.stem().string() + ".dot"), corpus).string()});
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
  auto cmp = test::run({"python3", (test::conformance_dir() / "dotcmp.py").string(), (corpus / c.expected).string(),
                        out.string()});
  EXPECT_EQ(cmp.exit_code, 0) << cmp.out << cmp.err;
  fs::remove_all(out.parent_path());
}

INSTANTIATE_TEST_SUITE_P(Corpus, Conformance, testing::ValuesIn(cases()),
                         [](const testing::TestParamInfo<Case>& info) {
                           std::string n = info.param.name;
                           for (char& ch : n)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });

}  // namespace
}  // namespace graphgen
