// -T stats: pstats' report, byte for byte what Python's pstats prints for
// pstats input (tests/python/print_stats.py runs it), for every pstats file
// of ../shared/corpus and of testdata with several sort keys and
// restrictions; and the same table for other formats.
#include <gtest/gtest.h>

#include <regex>

#include "stats/writer.h"
#include "util/test_util.h"

namespace graphgen::stats_test {
namespace {

namespace fs = std::filesystem;
using test::graphgen;

const std::vector<std::vector<std::string>> kVariants = {
    {},
    {"--sort", "time"},
    {"--sort", "calls", "--sort", "name", "--restrict", "10"},
    {"--strip-dirs", "--sort", "nfl", "--restrict", "0.5"},
    {"--callers", "--sort", "stdname", "--restrict", "5"},
    {"--callees", "--restrict", ".*e.*"},
    {"--sort", "pcalls", "--sort", "line", "--restrict", "20", "--restrict", "^[a-z]"},
    {"--sort", "tottime", "--top", "3"},
    // Python's re syntax, which pstats users write: inline flags, named
    // groups and back references, look-behind, \A. std::regex ignored them
    // (every function listed, exit 0).
    {"--restrict", "(?i)(?<=/)MAIN|DUMP"},
    {"--restrict", "(?P<c>[g-z])(?P=c)"},  // (not hex: code objects print their address)
    {"--sort", "name", "--restrict", "\\A[^/]"},
    // The prefixes pstats' sort_stats expands (graphgen refused them).
    {"--sort", "tot", "--sort", "cu", "--restrict", "15"},
    {"--sort", "f", "--sort", "std", "--sort", "nc", "--restrict", "15"},
};

// --top N is pstats' restriction N, the last one.
std::vector<std::string> as_python(std::vector<std::string> variant) {
  for (std::size_t i = 0; i + 1 < variant.size(); ++i)
    if (variant[i] == "--top") variant[i] = "--restrict";
  return variant;
}

// Python's text for each variant on `files` (empty where it cannot load them,
// e.g. code objects of another Python version), in one Python run.
std::vector<std::string> python_reports(const std::vector<std::string>& files) {
  std::string json = "[";
  for (std::size_t v = 0; v < kVariants.size(); ++v) {
    json += v ? ", [" : "[";
    std::vector<std::string> args = as_python(kVariants[v]);
    for (std::size_t i = 0; i < args.size(); ++i) {
      std::string escaped;
      for (char c : args[i]) escaped += c == '\\' || c == '"' ? std::string{'\\', c} : std::string{c};
      json += (i ? ", \"" : "\"") + escaped + "\"";
    }
    json += "]";
  }
  json += "]";
  std::vector<std::string> py = {"python3", (test::source_dir() / "tests" / "python" / "print_stats.py").string(),
                                 "--variants", json};
  py.insert(py.end(), files.begin(), files.end());
  auto r = test::run(py);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> out;
  std::size_t at = 0;
  for (std::size_t nul; (nul = r.out.find('\0', at)) != std::string::npos; at = nul + 1)
    out.push_back(r.out.substr(at, nul - at));
  out.push_back(r.out.substr(at));
  for (std::string& text : out)
    if (text.starts_with("!")) text.clear();
  return out;
}

std::string ours(const std::vector<std::string>& files, const std::vector<std::string>& variant) {
  std::vector<std::string> g = {"-T", "stats"};
  g.insert(g.end(), variant.begin(), variant.end());
  g.insert(g.end(), files.begin(), files.end());
  auto o = graphgen(g);
  EXPECT_EQ(o.exit_code, 0) << o.err;
  return o.out;
}

// Python prints code objects (the pure-Python profiler's keys) with their
// memory address, which changes with every run; graphgen without it.
bool comparable(std::string& python, const std::vector<std::string>& variant) {
  if (python.find("<code object") == std::string::npos) return true;
  bool table = std::find(variant.begin(), variant.end(), "--callers") == variant.end() &&
               std::find(variant.begin(), variant.end(), "--callees") == variant.end();
  if (!table) return false;  // the address also sets the columns' width there
  python = std::regex_replace(python, std::regex(" at 0x[0-9a-f]+"), "");
  return true;
}

void check_all(const std::vector<fs::path>& files, std::size_t& compared) {
  for (const fs::path& f : files) {
    std::vector<std::string> python = python_reports({f.string()});
    ASSERT_EQ(python.size(), kVariants.size());
    for (std::size_t v = 0; v < kVariants.size(); ++v) {
      SCOPED_TRACE(f.string() + " " + ::testing::PrintToString(kVariants[v]));
      if (python[v].empty() || !comparable(python[v], kVariants[v])) continue;
      EXPECT_EQ(ours({f.string()}, kVariants[v]), python[v]);
      ++compared;
    }
  }
}

TEST(Stats, EqualsPythonsPrintStatsOnTestdata) {
  std::vector<fs::path> files;
  for (const char* f : {"demo.pstats", "demo-py27.pstats", "demo-py313.pstats", "demo-profile.pstats",
                        "sphinx/jsontool.pstats", "mpi/cpu_0.prof", "ranks/profile0.pstats"})
    files.push_back(test::testdata_dir() / f);
  std::size_t compared = 0;
  check_all(files, compared);
  EXPECT_GE(compared, 40u);
  // Several files: pstats.Stats(*files), its merge and its file lines.
  std::vector<std::string> ranks;
  for (int r = 0; r < 8; ++r)
    ranks.push_back((test::testdata_dir() / "mpi" / ("cpu_" + std::to_string(r) + ".prof")).string());
  std::vector<std::string> python = python_reports(ranks);
  for (std::size_t v = 0; v < kVariants.size(); ++v) {
    SCOPED_TRACE(::testing::PrintToString(kVariants[v]));
    EXPECT_EQ(ours(ranks, kVariants[v]), python[v]);
  }
  // The header names the files in the order pstats.Stats merges them.
  EXPECT_NE(python[0].find("cpu_0.prof\n"), std::string::npos);
  EXPECT_LT(python[0].find("cpu_0.prof\n"), python[0].find("cpu_7.prof\n"));
  EXPECT_LT(python[0].find("cpu_7.prof\n"), python[0].find("cpu_1.prof\n"));
}

// The corpus' pstats files (sorted): its edge cases' folder, or the others.
std::vector<fs::path> corpus_pstats(bool edge) {
  std::vector<fs::path> files;
  const fs::path corpus = test::corpus_dir();
  for (const auto& e : fs::recursive_directory_iterator(corpus))
    if (e.path().extension() == ".pstats" && (e.path().parent_path() == corpus / "edge" / "pstats") == edge)
      files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

// The corpus in two tests, so that two cores share it (whole, it took 262 s
// of the unit tests' 300 s timeout in the sanitized build, where these no
// longer run: graphgen runs 13 times a file, Python's `re` started in 5).
TEST(Stats, EqualsPythonsPrintStatsOnTheCorpusEdgeCases) {
  if (test::corpus_dir().empty()) GTEST_SKIP() << test::no_corpus_message();
  std::size_t compared = 0;
  check_all(corpus_pstats(true), compared);
  EXPECT_GE(compared, 250u);  // (284 with Python 3.11)
}

TEST(Stats, EqualsPythonsPrintStatsOnTheCorpusRealProfiles) {
  if (test::corpus_dir().empty()) GTEST_SKIP() << test::no_corpus_message();
  std::size_t compared = 0;
  check_all(corpus_pstats(false), compared);
  EXPECT_GE(compared, 200u);  // (243)
}

TEST(Stats, PrefixesOfTwoKeysAreNoKey) {
  // pstats takes a prefix for the first key that claimed it, and no prefix
  // two keys claimed ("c": calls and cumtime; "cum": cumtime and cumulative).
  for (const char* ambiguous : {"c", "cum", "t", "n"}) {
    auto r = graphgen({"-T", "stats", "--sort", ambiguous, (test::testdata_dir() / "demo.pstats").string()});
    EXPECT_EQ(r.exit_code, 2) << ambiguous;
    EXPECT_NE(r.err.find("--sort: expected one of calls, "), std::string::npos) << r.err;
  }
}

TEST(Stats, OtherFormatsGiveTheSameTable) {
  auto perf = graphgen({"-T", "stats", "--restrict", "3", (test::testdata_dir() / "perf" / "q-g.perf").string()});
  ASSERT_EQ(perf.exit_code, 0) << perf.err;
  // Samples, not seconds; inclusive counts from the sample stacks.
  EXPECT_NE(perf.out.find("         0 function calls in 44 samples\n"), std::string::npos) << perf.out;
  EXPECT_NE(perf.out.find("        0   15.000            22.000          q:is_odd\n"), std::string::npos) << perf.out;
  auto prof = graphgen(
      {"-T", "stats", "--callers", "--restrict", "fact", (test::testdata_dir() / "prof" / "prog.prof").string()});
  ASSERT_EQ(prof.exit_code, 0) << prof.err;
  EXPECT_NE(prof.out.find("fact  <-   70000    0.000    0.000  fact\n           10000    0.000    0.100  main\n"),
            std::string::npos)
      << prof.out;
}

TEST(Stats, OptionsOfTheReportNeedIt) {
  auto r = graphgen({"--sort", "time", (test::testdata_dir() / "demo.pstats").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "graphgen: error: --sort, --restrict, --strip-dirs, --callers and --callees shape -T stats, pstats' "
            "report\n");
  auto key = graphgen({"-T", "stats", "--sort", "speed", (test::testdata_dir() / "demo.pstats").string()});
  EXPECT_EQ(key.exit_code, 2);
  auto regex = graphgen({"-T", "stats", "--restrict", "(", (test::testdata_dir() / "demo.pstats").string()});
  EXPECT_EQ(regex.exit_code, 0);
  EXPECT_NE(regex.out.find("   <Invalid regular expression '('>\n"), std::string::npos) << regex.out;
}

TEST(Stats, HugeTimesPrintInFullAsPythonPrintsThem) {
  // printf's %8.3f of 1e300 is 304 characters: it once overran a 64-byte
  // buffer (AddressSanitizer: stack-buffer-overflow).
  fs::path in =
      test::write_temp("huge.json",
                       "{\"version\": 0, \"costs\": [{\"description\": \"Time\", \"unit\": \"s\"}], "
                       "\"functions\": [{\"name\": \"main\"}, {\"name\": \"work\"}], \"events\": "
                       "[{\"callchain\": [1, 0], \"cost\": [1e300]}, {\"callchain\": [0], \"cost\": [2.5]}]}");
  auto r = test::graphgen({"-T", "stats", in.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto python = test::run({"python3", "-c", "print('%8.3f' % 1e300)"});
  ASSERT_EQ(python.exit_code, 0);
  std::string digits = python.out.substr(0, python.out.size() - 1);
  EXPECT_EQ(digits.size(), 305u);
  EXPECT_NE(r.out.find(" in " + digits + " seconds"), std::string::npos) << r.out;
}

// Without Python (a build without python3-dev, where no program installs
// Python's re), a pattern with Python-only syntax is a usage error naming the
// construct, never a silent match-all. (This test binary installs no re.)
TEST(Stats, PythonOnlySyntaxIsRefusedWithoutPython) {
  EXPECT_EQ(stats::python_only_construct("(?i)main"), "(?i) (inline flags)");
  EXPECT_EQ(stats::python_only_construct("x(?P<name>a)"), "(?P<name>...) (a named group)");
  EXPECT_EQ(stats::python_only_construct("(?P=name)"), "(?P=name) (a named back reference)");
  EXPECT_EQ(stats::python_only_construct("(?<=/)enc"), "(?<=...) / (?<!...) (a look-behind)");
  EXPECT_EQ(stats::python_only_construct("\\Afoo"), "\\A (start of the string)");
  EXPECT_EQ(stats::python_only_construct("foo\\Z"), "\\Z (end of the string)");
  EXPECT_EQ(stats::python_only_construct("(?s:a.b)"), "(?s:...) (inline flags)");
  EXPECT_EQ(stats::python_only_construct("[(?i)]\\\\A(?:x)(?=y)(?!z)^a.*b$"), "");
  // Where both read a pattern, but not alike: a repeat from 0 (ECMAScript
  // refused it, so every line was kept where Python keeps 20 of 135), and a
  // POSIX class (ECMAScript's digits, Python's literal "[:digt" then ']').
  EXPECT_EQ(stats::python_only_construct("x{,2}y"), "{,2} (a repeat from 0)");
  EXPECT_EQ(stats::python_only_construct("f[[:digit:]]"),
            "[:...:] inside a set (a POSIX class, which Python reads as characters)");
  EXPECT_EQ(stats::python_only_construct("[^[=a=]]"),
            "[=...=] inside a set (a POSIX class, which Python reads as characters)");
  EXPECT_EQ(stats::python_only_construct("x{1,2}[a[]{,}\\{,3}"), "");
  Profile p = test::read_ok({test::testdata_dir() / "demo.pstats"});
  stats::Options o;
  o.restrictions = {"(?i)MAIN"};
  auto r = stats::write(p, 0, nullptr, o);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().kind, Error::Kind::kBadUsage);
  EXPECT_EQ(r.error().message,
            "--restrict '(?i)MAIN': (?i) (inline flags) is Python regular expression syntax, and this graphgen is "
            "built without Python (python3-dev), so its patterns are ECMAScript; write it without that construct");
  o.restrictions = {"wordfreq"};
  auto plain = stats::write(p, 0, nullptr, o);
  ASSERT_TRUE(plain.has_value()) << plain.error().message;
  EXPECT_NE(plain->find("List reduced from"), std::string::npos);
}

}  // namespace
}  // namespace graphgen::stats_test
