// Every reader against truncated and corrupted copies of real files (a
// fixed-seed stand-in for the fuzz targets): each call returns a profile or
// one error line naming the file, and never crashes or hangs.
#include <gtest/gtest.h>

#include <fstream>
#include <random>

#include "callgrind/reader.h"
#include "collapse/reader.h"
#include "lprof/reader.h"
#include "perf/reader.h"
#include "pstats/reader.h"
#include "registry.h"
#include "util/test_util.h"

namespace graphgen::robustness_test {
namespace {

namespace fs = std::filesystem;

// Mutants of `bytes`: truncations at many points, and copies with a few
// bytes overwritten, inserted or deleted.
// The i-th mutant of `bytes`.
std::string mutant(const std::string& bytes, std::mt19937& rng, int i) {
  std::string m = bytes;
  std::uniform_int_distribution<std::size_t> pos(0, m.empty() ? 0 : m.size() - 1);
  switch (i % 4) {
    case 0:
      m.resize(pos(rng));
      break;
    case 1:
      for (int k = 0; k < 4 && !m.empty(); ++k) m[pos(rng)] = static_cast<char>(rng() & 0xFF);
      break;
    case 2:
      if (!m.empty()) m.insert(pos(rng), 1, "\n;:=( )0x-+*\t\x80"[rng() % 14]);
      break;
    default:
      if (!m.empty()) m.erase(pos(rng), 1 + rng() % 8);
  }
  return m;
}

std::vector<std::string> mutants(const std::string& bytes, unsigned seed, int count) {
  std::mt19937 rng(seed);
  std::vector<std::string> out;
  for (int i = 0; i < count; ++i) out.push_back(mutant(bytes, rng, i));
  return out;
}

template <class Read>
void check(const fs::path& source, unsigned seed, Read read) {
  SCOPED_TRACE(source.string());
  std::string bytes = test::read_file(source);
  ASSERT_FALSE(bytes.empty());
  fs::path dir = test::temp_dir();
  fs::path path = dir / ("m" + source.extension().string());
  int errors = 0;
  for (const std::string& m : mutants(bytes, seed, 120)) {
    { std::ofstream(path, std::ios::binary) << m; }
    auto in = InputFile::open(path.string());
    ASSERT_TRUE(in.has_value());
    std::optional<Error> e = read(*in);
    if (e) {
      ++errors;
      EXPECT_TRUE(e->message.starts_with(path.string())) << e->message;
      EXPECT_EQ(e->message.find('\n'), std::string::npos) << e->message;
    }
  }
  EXPECT_GT(errors, 0);  // the mutations do reach the error paths
  fs::remove_all(dir);
}

TEST(Robustness, PstatsReaderSurvivesCorruption) {
  for (const char* f : {"demo.pstats", "demo-py27.pstats", "demo-profile.pstats"})
    check(test::testdata_dir() / f, 1, [](const InputFile& in) -> std::optional<Error> {
      Diagnostics d;
      auto t = pstats::read(in.bytes(), in.path(), d);
      return t ? std::nullopt : std::optional<Error>(t.error());
    });
}

TEST(Robustness, CallgrindReaderSurvivesCorruption) {
  check(test::testdata_dir() / "callgrind" / "parity.callgrind", 2, [](const InputFile& in) -> std::optional<Error> {
    Diagnostics d;
    auto p = callgrind::read(in, {}, d);
    return p ? std::nullopt : std::optional<Error>(p.error());
  });
}

TEST(Robustness, PerfReaderSurvivesCorruption) {
  check(test::testdata_dir() / "perf" / "q-g.perf", 3, [](const InputFile& in) -> std::optional<Error> {
    Diagnostics d;
    auto p = perf::read(in, {}, d, 4096);  // exercise the split read too
    return p ? std::nullopt : std::optional<Error>(p.error());
  });
}

TEST(Robustness, CollapseReaderSurvivesCorruption) {
  fs::path dir = test::temp_dir();
  std::ofstream(dir / "s.collapse") << "main (app.py:3);work (lib/w.py:10) 5\nmain;a;b 2\nmain;a 7\n";
  check(dir / "s.collapse", 4, [](const InputFile& in) -> std::optional<Error> {
    Diagnostics d;
    auto p = collapse::read(in, {}, d);
    return p ? std::nullopt : std::optional<Error>(p.error());
  });
}

TEST(Robustness, LprofReaderSurvivesCorruption) {
  check(test::testdata_dir() / "lprof" / "shapes.lprof", 5, [](const InputFile& in) -> std::optional<Error> {
    Diagnostics d;
    auto s = lprof::read(in, d);
    if (s) lprof::write_text(*s, {}, d);
    return s ? std::nullopt : std::optional<Error>(s.error());
  });
}

// gprof2dot's other formats: 10 000 corruptions each of a corpus file (of a
// file made here when the corpus is absent, or too large to read 10 000
// times), read in-process through the registry as the pipeline reads them.
struct CorruptionCase {
  const char* format;
  const char* corpus;    // under ../shared/corpus, or "" for none small enough
  const char* testdata;  // the fallback under testdata/
};

TEST(Robustness, OtherFormatsSurvive10000CorruptionsEach) {
  const CorruptionCase cases[] = {
      {"prof", "prof/cycle.prof", "prof/prog-q.prof"},
      {"axe", "axe/r000hs_vtune_gprof_2013.axe", "axe/small.axe"},
      {"hprof", "hprof/hadoop.hprof", "hprof/demo.hprof"},
      {"json", "json/memtrail.leaked.json", "json/procmod.json"},
      {"sleepy", "sleepy/val3_sleepy.sleepy", "sleepy/demo.sleepy"},
      {"sysprof", "", "sysprof/demo.sysprof"},  // nautilus.sysprof is 2.7 MB
      {"xperf", "", "xperf/quoted.xperf"},      // val3_xperf.xperf is 1.4 MB
      {"dtrace", "dtrace/go.dtrace", "dtrace/headers.dtrace"},
      {"tau", "", "tau/wrap/profile.0.0.0"},
  };
  fs::path corpus = test::corpus_dir();
  unsigned seed = 100;
  for (const CorruptionCase& c : cases) {
    fs::path source = !corpus.empty() && *c.corpus ? corpus / c.corpus : test::testdata_dir() / c.testdata;
    SCOPED_TRACE(source.string());
    const formats::InputFormat* format = formats::find_input_format(c.format);
    ASSERT_NE(format, nullptr);
    std::string bytes = test::read_file(source);
    std::size_t errors = 0;
    formats::ReadOptions options;
    options.memory_budget = formats::default_budget(bytes.size());
    std::mt19937 rng(seed++);
    for (int i = 0; i < 10000; ++i) {
      Diagnostics d;
      auto p = format->read(InputFile::from_bytes("mutant", mutant(bytes, rng, i)), options, d);
      if (p) continue;
      ++errors;
      EXPECT_TRUE(p.error().message.starts_with("mutant")) << p.error().message;
      EXPECT_EQ(p.error().message.find('\n'), std::string::npos) << p.error().message;
    }
    EXPECT_GT(errors, 0u);
  }
}

}  // namespace
}  // namespace graphgen::robustness_test
