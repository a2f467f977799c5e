// graphgen on a machine without a library it loads on first use (Graphviz,
// the decompressors, expat): what needs the library fails in one line that
// says what to install, and everything else works as before (the library
// is no longer loaded at every start, so its absence no longer stops the
// binary from starting). The libraries are hidden by a preloaded dlopen()
// (tests/util/no_library.cc).
#include <gtest/gtest.h>

#include "util/test_util.h"

namespace graphgen::missing_library_test {
namespace {

namespace fs = std::filesystem;

// graphgen with the libraries whose names start with `prefixes` (comma-
// separated) missing.
test::RunResult without(const std::string& prefixes, const std::vector<std::string>& args) {
  // (The preload comes before a sanitizer build's runtime.)
  return test::graphgen(args, {},
                        {"LD_PRELOAD=" GRAPHGEN_TEST_NO_LIBRARY_SO, "GRAPHGEN_TEST_NO_LIBRARY=" + prefixes,
                         test::asan_options_with("verify_asan_link_order=0")});
}

std::size_t lines(const std::string& s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }

TEST(MissingLibrary, WithoutGraphvizDotIsWrittenAndAPictureSaysWhatToInstall) {
  const fs::path dir = test::temp_dir();
  const std::string demo = (test::source_dir() / "testdata" / "demo.pstats").string();
  const auto dot = without("libgvc.so", {demo, "-o", (dir / "x.dot").string()});
  EXPECT_EQ(dot.exit_code, 0) << dot.err;
  EXPECT_EQ(dot.err, "");
  EXPECT_EQ(test::read_file(dir / "x.dot").substr(0, 9), "digraph {");
  const auto png = without("libgvc.so", {demo, "-o", (dir / "x.png").string()});
  EXPECT_EQ(png.exit_code, 1);
  EXPECT_EQ(lines(png.err), 1u) << png.err;
  EXPECT_NE(png.err.find("graphviz: cannot load libgvc.so."), std::string::npos) << png.err;
  EXPECT_NE(png.err.find("No such file"), std::string::npos) << png.err;
  EXPECT_NE(png.err.find("which lays out and draws graphs (PNG, SVG, PDF, the HTML report's call graph): install "
                         "Graphviz"),
            std::string::npos)
      << png.err;
  EXPECT_FALSE(fs::exists(dir / "x.png"));
  // With the library there, the same preload changes nothing.
  const auto drawn = without("libnothing.so", {demo, "-o", (dir / "y.png").string()});
  EXPECT_EQ(drawn.exit_code, 0) << drawn.err;
  EXPECT_EQ(test::read_file(dir / "y.png").substr(1, 3), "PNG");
}

TEST(MissingLibrary, WithoutGraphvizTheReportHasEverythingButItsGraph) {
  // The report's tables, icicle and memory need no layout: it is written
  // with a note where the graph would be, and one warning. It failed whole
  // before.
  const fs::path dir = test::temp_dir();
  const std::string demo = (test::source_dir() / "testdata" / "demo.pstats").string();
  const auto r = without("libgvc.so", {demo, "-o", (dir / "r.html").string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("warning: -T html: the report has no call graph: graphviz: cannot load libgvc.so."),
            std::string::npos)
      << r.err;
  const std::string html = test::read_file(dir / "r.html");
  EXPECT_NE(html.find("libraries were not found when this report was written"), std::string::npos);
  EXPECT_EQ(html.find("id=\"graph-svg\""), std::string::npos);
  EXPECT_NE(html.find("id=\"icicle-canvas\""), std::string::npos);
  // With Graphviz, the same report has its graph and no warning.
  const auto drawn = without("libnothing.so", {demo, "-o", (dir / "d.html").string()});
  EXPECT_EQ(drawn.exit_code, 0) << drawn.err;
  EXPECT_EQ(drawn.err, "");
  EXPECT_NE(test::read_file(dir / "d.html").find("id=\"graph-svg\""), std::string::npos);
}

TEST(MissingLibrary, EachDecompressorIsNamedWithTheFileThatNeedsIt) {
  const fs::path compressed = test::source_dir() / "testdata" / "compressed";
  struct Case {
    const char* file;
    const char* library;
    const char* words;
  };
  for (const Case& c : {Case{"demo.pstats.gz", "libz.so", ": cannot decompress (gzip): cannot load libz.so."},
                        Case{"demo.pstats.bz2", "libbz2.so", ": cannot decompress (bzip2): cannot load libbz2.so."},
                        Case{"demo.pstats.xz", "liblzma.so", ": cannot decompress (xz): cannot load liblzma.so."},
                        Case{"demo.pstats.zst", "libzstd.so", ": cannot decompress (zstd): cannot load libzstd.so."}}) {
    SCOPED_TRACE(c.file);
    const std::string path = (compressed / c.file).string();
    const auto r = without(c.library, {path, "-T", "stats", "-o", "-"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(lines(r.err), 1u) << r.err;
    EXPECT_EQ(r.err.rfind(path + c.words, 0), 0u) << r.err;
    EXPECT_EQ(r.out, "");
    // The others are not needed for it.
    const auto others = without("libz.so,libbz2.so,liblzma.so,libzstd.so,libexpat.so,libgvc.so,libarchive.so",
                                {(test::source_dir() / "testdata" / "demo.pstats").string(), "-T", "stats"});
    EXPECT_EQ(others.exit_code, 0) << others.err;
    EXPECT_NE(others.out.find("function calls"), std::string::npos);
  }
}

TEST(MissingLibrary, WithoutExpatXmlIsOneLineAndZlibOutputsToo) {
  const std::string sysprof = (test::source_dir() / "testdata" / "sysprof" / "demo.sysprof").string();
  const auto r = without("libexpat.so", {"-f", "sysprof", sysprof});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_EQ(r.err.rfind(sysprof + ": cannot load libexpat.so.", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("which reads XML"), std::string::npos) << r.err;
  const auto pprof =
      without("libz.so", {"-q", (test::source_dir() / "testdata" / "demo.pstats").string(), "-T", "pprof", "-o", "-"});
  EXPECT_EQ(pprof.exit_code, 1);
  EXPECT_EQ(lines(pprof.err), 1u) << pprof.err;
  EXPECT_NE(pprof.err.find("pprof: cannot load libz.so."), std::string::npos) << pprof.err;
  EXPECT_EQ(pprof.out, "");
}

}  // namespace
}  // namespace graphgen::missing_library_test
