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
#include "util/test_util.h"

namespace graphgen {
namespace {

namespace fs = std::filesystem;

// Mutants of `bytes`: truncations at many points, and copies with a few
// bytes overwritten, inserted or deleted.
std::vector<std::string> mutants(const std::string& bytes, unsigned seed, int count) {
  std::mt19937 rng(seed);
  std::vector<std::string> out;
  for (int i = 0; i < count; ++i) {
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
    out.push_back(std::move(m));
  }
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

}  // namespace
}  // namespace graphgen
