// What users meet on day one, on files made with the real tools
// (testdata/README.md): outputs to devices, FIFOs and links; gprof2dot's
// command lines; gprof2dot's time digits; lossless callgrind round trips
// through callgrind_annotate; the pure-Python profiler's code objects; what
// real producers write (timestamp-less perf headers, undefined callgrind
// ids, compressed files); honest units; the install.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "common/decompress.h"
#include "util/test_util.h"

namespace graphgen::fidelity_test {
namespace {

namespace fs = std::filesystem;
using test::graphgen;

bool have(const std::string& program) { return test::run({"sh", "-c", "command -v " + program}).exit_code == 0; }

fs::path demo() { return test::testdata_dir() / "demo.pstats"; }

std::size_t count_lines(const std::string& s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }

// --- 1. output to anything a user names --------------------------------------

TEST(Output, WritesThroughAFifoWithoutReplacingIt) {
  fs::path dir = test::temp_dir();
  fs::path fifo = dir / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // A reader drains the FIFO into a file while graphgen writes into it.
  auto r = test::run({"sh", "-c", "cat \"$1\" > \"$2\" & \"$0\" -T dot \"$3\" -o \"$1\"; s=$?; wait; exit $s",
                      GRAPHGEN_BINARY, fifo.string(), (dir / "got.dot").string(), demo().string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  struct stat st {};
  ASSERT_EQ(::stat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "the FIFO was replaced";
  EXPECT_EQ(test::read_file(dir / "got.dot"), graphgen({"-T", "dot", demo().string()}).out);
}

TEST(Output, WritesThroughACharacterDeviceWithoutReplacingIt) {
  if (::geteuid() != 0) GTEST_SKIP() << "making a device node needs root";
  fs::path dir = test::temp_dir();
  fs::path null = dir / "null";  // our own null device, never the real /dev/null
  if (::mknod(null.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) GTEST_SKIP() << "mknod is not allowed here";
  auto r = graphgen({"-T", "dot", demo().string(), "-o", null.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  struct stat st {};
  ASSERT_EQ(::stat(null.c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode)) << "the device was replaced by a regular file";
  EXPECT_EQ(fs::directory_iterator(dir)->path(), null);  // nothing else left behind
}

TEST(Output, DevStdoutIsStandardOutputEvenWhenItIsAFile) {
  auto direct = graphgen({"-T", "dot", demo().string(), "-o", "/dev/stdout"});
  ASSERT_EQ(direct.exit_code, 0) << direct.err;
  EXPECT_TRUE(direct.out.starts_with("digraph {")) << direct.out.substr(0, 40);
  fs::path dir = test::temp_dir();
  fs::path file = dir / "redirected.dot";
  auto r = test::run(
      {"sh", "-c", "\"$0\" -T dot \"$1\" -o /dev/stdout > \"$2\"", GRAPHGEN_BINARY, demo().string(), file.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(test::read_file(file), direct.out);
}

TEST(Output, FollowsASymlinkAndReplacesItsTarget) {
  fs::path dir = test::temp_dir();
  fs::create_directory(dir / "real");
  std::ofstream(dir / "real" / "graph.dot") << "old";
  fs::create_symlink("real/graph.dot", dir / "link.dot");  // relative, as users make them
  auto r = graphgen({"-T", "dot", demo().string(), "-o", (dir / "link.dot").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(dir / "link.dot")) << "the link itself was replaced";
  EXPECT_TRUE(test::read_file(dir / "real" / "graph.dot").starts_with("digraph {"));
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir / "real")) ++entries;
  EXPECT_EQ(entries, 1u);  // no temporary file left beside the target
}

// The kernel's rule for links in sticky world-writable folders (/tmp):
// another user's link is not followed (fs.protected_symlinks). -o opens a
// link as the shell's > does, so it is refused where > is, and the file the
// link points to is untouched.
TEST(Output, APlantedLinkInAStickyFolderIsRefusedWhereTheShellIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root, to plant a link owned by another user";
  fs::path dir = test::temp_dir() / "sticky";
  fs::create_directory(dir);
  ASSERT_EQ(::chmod(dir.c_str(), 01777), 0);
  fs::path victim = test::temp_dir() / "victim.txt";
  std::ofstream(victim) << "precious";
  fs::path link = dir / "out.dot";
  fs::create_symlink(victim, link);
  ASSERT_EQ(::lchown(link.c_str(), 65534, 65534), 0);  // nobody's
  const bool protected_links = test::read_file("/proc/sys/fs/protected_symlinks").starts_with("1");
  auto shell = test::run({"sh", "-c", "echo x > \"$0\"", link.string()});
  if (shell.exit_code == 0) std::ofstream(victim) << "precious";
  auto r = graphgen({"-T", "dot", demo().string(), "-o", link.string()});
  if (protected_links) {
    EXPECT_NE(shell.exit_code, 0) << "the kernel follows the planted link";
  }
  EXPECT_EQ(r.exit_code == 0, shell.exit_code == 0) << r.err;
  if (shell.exit_code != 0) {
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(count_lines(r.err), 1u);
    EXPECT_NE(r.err.find("Permission denied (through a symbolic link"), std::string::npos) << r.err;
    EXPECT_EQ(test::read_file(victim), "precious");
  }
  EXPECT_TRUE(fs::is_symlink(link));
}

TEST(Output, AFileOfSeveralHardLinksIsRewrittenInPlace) {
  fs::path dir = test::temp_dir();
  fs::path out = dir / "graph.dot";
  std::ofstream(out) << "old";
  fs::create_hard_link(out, dir / "alias.dot");
  struct stat before {};
  ASSERT_EQ(::stat(out.c_str(), &before), 0);
  auto r = graphgen({"-T", "dot", demo().string(), "-o", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  struct stat after {};
  ASSERT_EQ(::stat(out.c_str(), &after), 0);
  EXPECT_EQ(after.st_ino, before.st_ino);
  EXPECT_EQ(after.st_nlink, 2u);
  EXPECT_TRUE(test::read_file(dir / "alias.dot").starts_with("digraph {"));
  EXPECT_EQ(test::read_file(dir / "alias.dot"), test::read_file(out));
  // A shorter output leaves nothing of the longer old content.
  std::ofstream(out) << std::string(100000, 'x');
  ASSERT_EQ(graphgen({"-T", "dot", demo().string(), "-o", out.string()}).exit_code, 0);
  EXPECT_EQ(test::read_file(dir / "alias.dot"), test::read_file(out));
  EXPECT_EQ(test::read_file(out).find('x' + std::string(50, 'x')), std::string::npos);
}

TEST(Output, KeepsTheModeOfTheFileItReplaces) {
  fs::path dir = test::temp_dir();
  fs::path out = dir / "graph.dot";
  std::ofstream(out) << "old";
  fs::permissions(out, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  ASSERT_EQ(graphgen({"-T", "dot", demo().string(), "-o", out.string()}).exit_code, 0);
  EXPECT_EQ(fs::status(out).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
}

TEST(Output, RefusesToWriteOverOneOfItsInputs) {
  fs::path dir = test::temp_dir();
  fs::copy_file(test::testdata_dir() / "ranks" / "rank0.pstats", dir / "cpu_0.prof");
  fs::copy_file(test::testdata_dir() / "ranks" / "rank1.pstats", dir / "cpu_1.prof");
  std::string before = test::read_file(dir / "cpu_1.prof");
  fs::create_symlink("cpu_1.prof", dir / "alias.prof");
  for (const char* out : {"cpu_1.prof", "alias.prof"}) {
    SCOPED_TRACE(out);
    auto r = graphgen({"cpu_0.prof", "cpu_1.prof", "-o", out}, dir);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(count_lines(r.err), 1u);
    EXPECT_NE(r.err.find("is also an input"), std::string::npos) << r.err;
  }
  EXPECT_EQ(test::read_file(dir / "cpu_1.prof"), before);
}

TEST(Output, SigtermLeavesNoTemporaryFileBehind) {
  fs::path dir = test::temp_dir();
  // The test hook holds the finished temporary file 3 s before the rename;
  // the signal comes in that window.
  auto r = test::run({"sh", "-c", "\"$0\" -T dot \"$1\" -o \"$2\" & pid=$!; sleep 1; kill -TERM $pid; wait $pid",
                      GRAPHGEN_BINARY, demo().string(), (dir / "graph.dot").string()},
                     {}, {"GRAPHGEN_TEST_HOLD_OUTPUT_MS=3000"});
  EXPECT_NE(r.exit_code, 0);  // killed
  for (const auto& e : fs::directory_iterator(dir)) ADD_FAILURE() << "left behind: " << e.path();
}

// --- 2. gprof2dot command lines --------------------------------------------

TEST(GprofCommandLines, RepeatableOptionsTakeOneValueEach) {
  // argparse's append: the next word is the input, not a second value.
  auto p = graphgen({"-p", "/usr/lib/python3.11", demo().string(), "-T", "dot"});
  EXPECT_EQ(p.exit_code, 0) << p.err;
  auto labels = graphgen({"--node-label", "self-time", demo().string(), "--node-label", "total-time"});
  ASSERT_EQ(labels.exit_code, 0) << labels.err;
  EXPECT_NE(labels.out.find("(0.0"), std::string::npos);  // a self time in seconds
}

TEST(GprofCommandLines, RunUnchanged) {
  // From gprof2dot's README and issues, with our testdata as the files:
  // each spelling gprof2dot accepts (attached values, =, repeated options,
  // -f, -o) gives what the plain spelling gives, and what the options ask
  // for differs from the default graph (an option that parsed but did
  // nothing would be equal to it).
  fs::path td = test::testdata_dir();
  std::string pstats = demo().string(), cg = (td / "callgrind" / "parity.callgrind").string(),
              perf = (td / "perf" / "q-g.perf").string();
  struct Case {
    std::vector<std::string> gprof2dot, plain;
    bool differs_from_default;
  };
  const std::vector<Case> cases = {
      {{"-f", "pstats", pstats}, {pstats}, false},
      {{"-n0", "-e0", pstats}, {"-n", "0", "-e", "0", pstats}, true},
      {{"-n", "0", "-e", "0", "-f", "pstats", pstats}, {"--node-thres", "0", "--edge-thres", "0", pstats}, true},
      {{"--node-thres=5", "--edge-thres=2", pstats}, {"-n", "5", "-e", "2", pstats}, true},
      {{"-s", "-w", "-c", "print", pstats}, {"--strip", "--wrap", "--colormap", "print", pstats}, true},
      {{"--colour-nodes-by-selftime", "--skew=0.5", pstats},
       {"--color-nodes-by-selftime", "--skew", "0.5", pstats},
       true},
      {{"--node-label=total-time", "--node-label=self-time", pstats},
       {"--node-label", "total-time", "--node-label", "self-time", pstats},
       true},
      {{"--time-format=%.3f", "--node-label", "self-time", pstats},
       {"--node-label", "self-time", "--time-format", "%.3f", pstats},
       true},
      {{"-z", "wordfreq:51:main", "--depth=2", pstats}, {"--root", "wordfreq:51:main", "--depth", "2", pstats}, true},
      {{"-l", "wordfreq:21:merge", pstats}, {"--leaf", "wordfreq:21:merge", pstats}, true},
      {{"--list-functions=+", pstats}, {"--list-functions", "*", pstats}, true},
      {{"--list-functions", "*merge*", pstats}, {"--list-functions=*merge*", pstats}, true},
      {{"-f", "callgrind", cg}, {cg}, false},
      {{"-f", "callgrind", "--strip", cg}, {cg, "-s"}, true},
      {{"-f", "perf", perf}, {perf}, false},
      {{"-f", "perf", "--total=callstacks", "--show-samples", perf},
       {"--total", "callstacks", perf, "--show-samples"},
       true},
  };
  for (const Case& c : cases) {
    std::string joined;
    for (const std::string& a : c.gprof2dot) joined += a + " ";
    SCOPED_TRACE(joined);
    fs::path dir = test::temp_dir();
    auto r = graphgen(c.gprof2dot, dir);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto plain = graphgen(c.plain, dir);
    ASSERT_EQ(plain.exit_code, 0) << plain.err;
    EXPECT_EQ(r.out, plain.out);
    auto defaults = graphgen({c.gprof2dot.back()}, dir);  // the input is last
    ASSERT_EQ(defaults.exit_code, 0) << defaults.err;
    ASSERT_TRUE(defaults.out.starts_with("digraph {"));
    EXPECT_EQ(r.out != defaults.out, c.differs_from_default);
  }
  // -o writes to the file what standard output gets.
  fs::path dir = test::temp_dir();
  auto to_file = graphgen({"-f", "pstats", pstats, "-o", "output.dot"}, dir);
  ASSERT_EQ(to_file.exit_code, 0) << to_file.err;
  EXPECT_EQ(test::read_file(dir / "output.dot"), graphgen({pstats}).out);
}

TEST(GprofCommandLines, AnUnknownOutputNameGetsDotAsInGprof2dot) {
  fs::path dir = test::temp_dir();
  for (const char* name : {"graph.out", "graph", "report.unknown"}) {
    ASSERT_EQ(graphgen({demo().string(), "-o", name}, dir).exit_code, 0) << name;
    EXPECT_TRUE(test::read_file(dir / name).starts_with("digraph {")) << name;
  }
}

TEST(GprofCommandLines, CallgrindOutNamesWriteCallgrind) {
  fs::path dir = test::temp_dir();
  ASSERT_EQ(graphgen({demo().string(), "-o", "callgrind.out.wordfreq"}, dir).exit_code, 0);
  EXPECT_TRUE(test::read_file(dir / "callgrind.out.wordfreq").starts_with("# callgrind format\n"));
}

TEST(GprofCommandLines, JpgGifAndPsRenderWithGraphvizPlugins) {
  fs::path dir = test::temp_dir();
  for (const auto& [ext, magic] :
       std::vector<std::pair<std::string, std::string>>{{"jpg", "\xff\xd8\xff"}, {"gif", "GIF8"}, {"ps", "%!PS"}}) {
    SCOPED_TRACE(ext);
    auto r = graphgen({demo().string(), "-o", "g." + ext}, dir);
    if (r.exit_code != 0 && r.err.find("plugin") != std::string::npos) GTEST_SKIP() << r.err;
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(test::read_file(dir / ("g." + ext)).starts_with(magic));
  }
}

TEST(GprofCommandLines, WarnsWhenTheFormatAndTheNameDisagree) {
  fs::path dir = test::temp_dir();
  auto r = graphgen({"-T", "png", demo().string(), "-o", "x.dot"}, dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "graphgen: warning: writing png to 'x.dot', whose name says dot\n");
  EXPECT_TRUE(test::read_file(dir / "x.dot").starts_with("\x89PNG"));
  // .txt names any text: a stats table or folded stacks asked for by -T
  // are no mistake (each warned "whose name says text").
  for (const char* to : {"stats", "folded"}) {
    auto text = graphgen({"-T", to, demo().string(), "-o", "report.txt"}, dir);
    ASSERT_EQ(text.exit_code, 0) << text.err;
    EXPECT_EQ(text.err.find("whose name says"), std::string::npos) << to << ": " << text.err;
  }
  auto image = graphgen({"-T", "png", demo().string(), "-o", "x.txt"}, dir);
  EXPECT_EQ(image.err, "graphgen: warning: writing png to 'x.txt', whose name says text\n");
}

// --- 3. time labels are gprof2dot's digits -----------------------------------

// Node labels of a dot file: the text of every label="..." of a node line.
std::multiset<std::string> node_labels(const std::string& dot) {
  std::multiset<std::string> out;
  std::istringstream in(dot);
  std::regex label(R"re(label="((?:[^"\\]|\\.)*)")re");
  for (std::string line; std::getline(in, line);) {
    if (line.find(" -> ") != std::string::npos) continue;
    std::smatch m;
    if (std::regex_search(line, m, label)) out.insert(m[1]);
  }
  return out;
}

TEST(TimeLabels, EqualGprof2dotsDigitsOnARealProfile) {
  // jsontool.pstats: 323 functions; the .dot files are gprof2dot's own output.
  fs::path dir = test::testdata_dir() / "sphinx";
  for (const auto& [args, oracle] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{}, "jsontool.self-total.dot"}, {{"--time-format", "%.9f"}, "jsontool.self-total-9f.dot"}}) {
    SCOPED_TRACE(oracle);
    std::vector<std::string> a{"-f",         "pstats", "--node-label", "self-time",      "--node-label",
                               "total-time", "-n0",    "-e0",          "jsontool.pstats"};
    a.insert(a.end(), args.begin(), args.end());
    auto r = graphgen(a, dir);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto ours = node_labels(r.out), theirs = node_labels(test::read_file(dir / oracle));
    EXPECT_EQ(ours.size(), 323u);
    std::vector<std::string> only_ours, only_theirs;
    std::set_difference(ours.begin(), ours.end(), theirs.begin(), theirs.end(), std::back_inserter(only_ours));
    std::set_difference(theirs.begin(), theirs.end(), ours.begin(), ours.end(), std::back_inserter(only_theirs));
    EXPECT_TRUE(only_ours.empty()) << only_ours.size() << " labels differ, e.g. " << only_ours.front() << " vs "
                                   << (only_theirs.empty() ? "" : only_theirs.front());
  }
}

// --- 4. callgrind -> callgrind is lossless ------------------------------------

TEST(CallgrindRoundTrip, AnnotateInclusiveTreeBothPrintsTheSame) {
  if (!have("callgrind_annotate")) GTEST_SKIP() << "callgrind_annotate (valgrind) is not installed";
  fs::path src = test::testdata_dir() / "callgrind";
  // sites: --dump-instr=yes --collect-jumps=yes, calls from several lines;
  // threads: three threads in one file; cxx: C++ templates and virtuals.
  for (const char* name : {"sites.callgrind", "threads.callgrind", "cxx.callgrind", "parity.callgrind"}) {
    SCOPED_TRACE(name);
    // Both files under the same name in their own folders, so the header
    // annotate prints is the same; its hash order is fixed for both runs.
    fs::path a = test::temp_dir(), b = test::temp_dir();
    fs::copy_file(src / name, a / name);
    ASSERT_EQ(graphgen({(src / name).string(), "-o", (b / name).string()}).exit_code, 0);
    std::vector<std::string> env{"PERL_HASH_SEED=0", "PERL_PERTURB_KEYS=0"};
    std::vector<std::string> cmd{"callgrind_annotate",        "--auto=yes", "--inclusive=yes", "--tree=both",
                                 "--include=" + src.string(), name};
    auto original = test::run(cmd, a, env);
    auto round_trip = test::run(cmd, b, env);
    ASSERT_EQ(original.exit_code, 0) << original.err;
    ASSERT_EQ(round_trip.exit_code, 0) << round_trip.err;
    EXPECT_EQ(round_trip.err, original.err);
    EXPECT_EQ(round_trip.out, original.out);
    EXPECT_GT(count_lines(original.out), 100u);
  }
}

// Real profiles of Debian programs (testdata/callgrind/real/README rows):
// the cache and branch simulator's 13 events, whose summary valgrind wrote 2
// above the sum of its cost lines and whose lines leave trailing zero costs
// out (callgrind_annotate shows `.` for those, `0` for a written 0);
// --dump-instr, --collect-jumps, --separate-threads, --dump-line=no,
// --compress-strings=no. callgrind_annotate prints, for graphgen's copy,
// exactly what it printed for the original (the stored oracles).
TEST(CallgrindRoundTrip, RealProfilesAnnotateAsTheOriginals) {
  if (!have("callgrind_annotate")) GTEST_SKIP() << "callgrind_annotate (valgrind) is not installed";
  fs::path real = test::testdata_dir() / "callgrind" / "real";
  struct Case {
    std::string file, oracle;
  };
  const std::vector<Case> cases = {
      {"gzip-cachesim.callgrind", "gzip-cachesim"},
      {"xz-instr.callgrind", "xz-instr"},
      {"lua-jumps.callgrind", "lua-jumps"},
      {"sqlite-cte.callgrind", "sqlite-cte"},
      {"python-tiny.callgrind", "python-tiny"},
      {"sqlite-instronly.callgrind", "sqlite-instronly"},
      {"sqlite-nocompress.callgrind", "sqlite-nocompress"},
      {"xz-threads.callgrind-01", "xz-threads-01"},
      {"xz-threads.callgrind-02", "xz-threads-02"},
      {"xz-threads.callgrind-03", "xz-threads-03"},
  };
  auto unxz = [](const fs::path& from, const fs::path& to) {
    auto r = test::run({"sh", "-c", "xz -dc \"$0\" > \"$1\"", from.string(), to.string()});
    EXPECT_EQ(r.exit_code, 0) << r.err;
  };
  std::vector<std::string> env{"PERL_HASH_SEED=0", "PERL_PERTURB_KEYS=0"};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.file);
    // The copy under the original's name, so the header annotate prints is
    // the same; no source files beside it, as when the oracles were made.
    fs::path original = test::temp_dir(), copy = test::temp_dir();
    unxz(real / (c.file + ".xz"), original / c.file);
    auto converted = graphgen({(original / c.file).string(), "-T", "callgrind", "-o", (copy / c.file).string()});
    ASSERT_EQ(converted.exit_code, 0) << converted.err;
    for (const auto& [mode, suffix] : std::vector<std::pair<std::vector<std::string>, std::string>>{
             {{}, ".annotate.txt"}, {{"--inclusive=yes", "--tree=both"}, ".annotate-tree.txt"}}) {
      SCOPED_TRACE(suffix);
      fs::path oracle = real / (c.oracle + suffix);
      std::string expected;
      if (fs::exists(oracle)) {
        expected = test::read_file(oracle);
      } else {
        unxz(fs::path(oracle.string() + ".xz"), original / "oracle.txt");
        expected = test::read_file(original / "oracle.txt");
      }
      std::vector<std::string> cmd{"callgrind_annotate"};
      cmd.insert(cmd.end(), mode.begin(), mode.end());
      cmd.push_back(c.file);
      auto theirs = test::run(cmd, original, env);
      auto ours = test::run(cmd, copy, env);
      ASSERT_EQ(ours.exit_code, 0) << ours.err;
      EXPECT_EQ(theirs.out, expected) << "callgrind_annotate no longer prints the stored oracle for the original";
      EXPECT_EQ(ours.err, "");
      EXPECT_EQ(ours.out, expected);
    }
    fs::remove_all(original);
    fs::remove_all(copy);
  }
}

TEST(CallgrindRoundTrip, KeepsCallSitesPositionsJumpsAndTheHeader) {
  fs::path dir = test::temp_dir();
  fs::path in = test::testdata_dir() / "callgrind" / "sites.callgrind";
  ASSERT_EQ(graphgen({in.string(), "-o", (dir / "rt.callgrind").string()}).exit_code, 0);
  std::string rt = test::read_file(dir / "rt.callgrind");
  EXPECT_NE(rt.find("positions: instr line\n"), std::string::npos);
  EXPECT_NE(rt.find("cmd:  ./sites\n"), std::string::npos);
  EXPECT_NE(rt.find("desc: Trigger: Program termination\n"), std::string::npos);
  EXPECT_NE(rt.find("\njcnd="), std::string::npos);
  // main calls work() from lines 19, 20 and 21: three call lines.
  std::size_t work_calls = 0;
  std::istringstream lines(rt);
  std::string prev, line;
  std::set<std::string> sites;
  while (std::getline(lines, line)) {
    if (prev.starts_with("calls=") && line.size() > 2) sites.insert(line.substr(0, line.find(' ', line.find(' ') + 1)));
    if (prev.starts_with("cfn=") && prev.find(" work") != std::string::npos) ++work_calls;
    prev = line;
  }
  EXPECT_GE(work_calls, 1u);
  // Read back: the same call sites, positions and jumps.
  Profile a = test::read_ok({in}), b = test::read_ok({dir / "rt.callgrind"});
  EXPECT_EQ(a.call_sites.size(), b.call_sites.size());
  EXPECT_EQ(a.line_costs.size(), b.line_costs.size());
  EXPECT_EQ(a.jumps.size(), b.jumps.size());
  EXPECT_GT(a.jumps.size(), 10u);
  EXPECT_EQ(a.line_cost_values, b.line_cost_values);
}

// --- 5. profile-module pstats round trip ---------------------------------------

// A Python that loads both files and says whether their stats are equal
// (code objects in keys compare by value).
const char* kSameStats =
    "import pstats, sys\n"
    "a = pstats.Stats(*sys.argv[2:]).stats if len(sys.argv) > 3 else pstats.Stats(sys.argv[2]).stats\n"
    "b = pstats.Stats(sys.argv[1]).stats\n"
    "assert any(not isinstance(k[2], str) for k in b), 'no code object key'\n"
    "assert a == b, 'stats differ'\n";

TEST(ProfileModuleRoundTrip, MergedFilesKeepTheirCodeObjectKeys) {
  fs::path ranks = test::testdata_dir() / "ranks";
  fs::path out = test::temp_dir() / "merged.pstats";
  ASSERT_EQ(graphgen({(ranks / "profile0.pstats").string(), (ranks / "profile1.pstats").string(), "-o", out.string()})
                .exit_code,
            0);
  auto r = test::run({"python3", "-c", kSameStats, out.string(), (ranks / "profile0.pstats").string(),
                      (ranks / "profile1.pstats").string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(ProfileModuleRoundTrip, EveryPythonLoadsItsOwnMergeBack) {
  // The pairs of testdata/pyversions, each checked by the Python that wrote
  // it (when pyenv has it), against that Python's own merge.
  fs::path dir = test::testdata_dir() / "pyversions";
  int checked = 0;
  for (const auto& [version, python] :
       std::vector<std::pair<std::string, std::string>>{{"py38", "3.8"}, {"py312", "3.12"}, {"py313", "3.13"}}) {
    std::string exe = "python" + python;
    if (!have(exe)) continue;
    SCOPED_TRACE(exe);
    fs::path out = test::temp_dir() / "merged.pstats";
    ASSERT_EQ(graphgen({(dir / ("profile-" + version + "-a.pstats")).string(),
                        (dir / ("profile-" + version + "-b.pstats")).string(), "-o", out.string()})
                  .exit_code,
              0);
    auto r =
        test::run({exe, "-c", kSameStats, out.string(), (dir / ("profile-" + version + "-merged.pstats")).string()}, {},
                  {"PYENV_VERSION=" + python});
    if (r.err.find("not installed") != std::string::npos || r.err.find("command not found") != std::string::npos)
      continue;
    EXPECT_EQ(r.exit_code, 0) << r.err;
    ++checked;
  }
  if (checked == 0) GTEST_SKIP() << "no Python 3.8, 3.12 or 3.13 on this machine";
}

// --- 6. readers accept what real tools write ----------------------------------

TEST(RealProducers, CallgrindUndefinedNameIdsReadAsEmptyNamesWithOneWarning) {
  auto r = graphgen({"-T", "dot", (test::testdata_dir() / "callgrind" / "undefined-id.callgrind").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(count_lines(r.err), 1u);
  EXPECT_NE(r.err.find("name id(s) used without a definition"), std::string::npos) << r.err;
}

TEST(RealProducers, CallgrindCutLastLineIsIgnoredWithAWarning) {
  fs::path dir = test::temp_dir();
  std::string text = test::read_file(test::testdata_dir() / "callgrind" / "truncated.callgrind");
  // Cut in the middle of a name spec, as a killed valgrind leaves it.
  std::ofstream(dir / "cut.callgrind", std::ios::binary) << text.substr(0, text.rfind('\n') + 1) << "cfn=(9";
  auto r = graphgen({"-T", "dot", "cut.callgrind"}, dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("the last line is cut short"), std::string::npos) << r.err;
  auto whole = graphgen({"-T", "dot", (test::testdata_dir() / "callgrind" / "truncated.callgrind").string()});
  EXPECT_EQ(whole.exit_code, 0) << whole.err;  // "16 4" without a newline is a line
}

// A valgrind file cut at a line's end (head -n, a full disk) reads as a
// smaller well-formed profile: 140 of dot-layout's 267 edges, exit 0, no
// word. valgrind ends each dump with totals:, so one without is said.
TEST(RealProducers, CallgrindWithoutItsTotalsLineSaysItLooksCut) {
  const fs::path whole = test::testdata_dir() / "callgrind" / "threads-sep.callgrind-01";
  auto full = graphgen({"-T", "dot", "-o", "/dev/null", whole.string()});
  ASSERT_EQ(full.exit_code, 0) << full.err;
  EXPECT_EQ(full.err, "");
  const std::string text = test::read_file(whole);
  ASSERT_NE(text.find("\ntotals: "), std::string::npos);
  std::size_t at = 0;
  for (int line = 0; line < 300; ++line) at = text.find('\n', at) + 1;
  const fs::path dir = test::temp_dir();
  std::ofstream(dir / "cut.callgrind", std::ios::binary) << text.substr(0, at);
  auto cut = graphgen({"-T", "dot", "-o", "/dev/null", "cut.callgrind"}, dir);
  EXPECT_EQ(cut.exit_code, 0) << cut.err;
  EXPECT_TRUE(
      cut.err.starts_with("graphgen: warning: cut.callgrind: no 'totals:' line, which callgrind writes at the "
                          "end: the file looks cut short; what was read adds up to "))
      << cut.err;
  EXPECT_EQ(count_lines(cut.err), 1u) << cut.err;
}

TEST(RealProducers, PerfHeadersWithoutATimestamp) {
  fs::path td = test::testdata_dir() / "perf";
  for (const char* f : {"q-notime.perf", "q-notime-cpu.perf"}) {
    SCOPED_TRACE(f);
    Profile p = test::read_ok({td / f});  // detected as perf, no -f
    Cost samples = 0;
    for (FuncId g = 0; g < p.functions.size(); ++g) samples += p.self(g, 0);
    EXPECT_EQ(samples, 42);  // q 22 + my worker 20
  }
  formats::ReadOptions worker;
  worker.comms = {"my worker"};
  Profile w = test::read_ok({td / "q-notime.perf"}, "", worker);
  Cost samples = 0;
  for (FuncId g = 0; g < w.functions.size(); ++g) samples += w.self(g, 0);
  EXPECT_EQ(samples, 20);
}

TEST(RealProducers, PerfSamplesFilteredByProcessAndCommand) {
  fs::path multi = test::testdata_dir() / "perf" / "multi.perf";
  auto total = [&](const std::vector<std::string>& args) {
    std::vector<std::string> a = args;
    a.insert(a.end(), {multi.string(), "-T", "pstats", "-o", (test::temp_dir() / "x.pstats").string(), "-q"});
    auto r = graphgen(a);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    Profile p = test::read_ok({fs::path(a[a.size() - 2])});
    double t = 0;
    for (FuncId f : p.listed) t += p.value(0, p.self(f, 0));
    return t;
  };
  EXPECT_EQ(total({}), 59);
  EXPECT_EQ(total({"--comm", "other"}), 26);
  EXPECT_EQ(total({"--comm", "q", "--comm", "my worker"}), 33);
  auto none = graphgen({"--pid", "1", multi.string()});
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.err.find("no samples of the processes asked for"), std::string::npos) << none.err;
  EXPECT_NE(none.err.find("other (pid"), std::string::npos) << none.err;  // says what is there
}

TEST(RealProducers, CompressedProfilesAreReadAsTheyAre) {
  fs::path td = test::testdata_dir();
  std::string plain = graphgen({"-T", "dot", demo().string()}).out;
  for (const char* f : {"demo.pstats.gz", "demo.pstats.bz2", "demo.pstats.xz", "demo.pstats.zst"}) {
    SCOPED_TRACE(f);
    auto r = graphgen({"-T", "dot", (td / "compressed" / f).string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, plain);
  }
  auto piped = test::run(
      {"sh", "-c", "\"$0\" -T dot - < \"$1\"", GRAPHGEN_BINARY, (td / "compressed" / "demo.pstats.xz").string()});
  EXPECT_EQ(piped.out, plain);
  auto cg = graphgen({"-T", "dot", (td / "compressed" / "parity.callgrind.gz").string()});
  EXPECT_EQ(cg.out, graphgen({"-T", "dot", (td / "callgrind" / "parity.callgrind").string()}).out);
  // A compressed file that is not a profile says so; a broken one too.
  auto notes = graphgen({(td / "compressed" / "notes.txt.gz").string()});
  EXPECT_EQ(notes.exit_code, 1);
  EXPECT_NE(notes.err.find("cannot tell the profile format"), std::string::npos);
  fs::path dir = test::temp_dir();
  std::string gz = test::read_file(td / "compressed" / "demo.pstats.gz");
  std::ofstream(dir / "cut.gz", std::ios::binary) << gz.substr(0, gz.size() / 2);
  auto cut = graphgen({"cut.gz"}, dir);
  EXPECT_EQ(cut.exit_code, 1);
  EXPECT_EQ(cut.err, fmt::format("cut.gz:+0x{:x}: expected more gzip-compressed data, found the end of the file\n",
                                 gz.size() / 2));
}

// A compressed input that is cut short or damaged is an error at the byte
// where its library stopped, in the form every reader's errors take
// (file:+0xOFF: expected..., found...), not a message without a place.
TEST(RealProducers, BrokenCompressedInputsSayWhere) {
  fs::path td = test::testdata_dir();
  fs::path dir = test::temp_dir();
  for (auto [file, kind] : {std::pair{"demo.pstats.gz", "gzip"}, std::pair{"demo.pstats.bz2", "bzip2"},
                            std::pair{"demo.pstats.xz", "xz"}, std::pair{"demo.pstats.zst", "zstd"}}) {
    SCOPED_TRACE(file);
    const std::string bytes = test::read_file(td / "compressed" / file);
    const std::string ending = fs::path(file).extension().string();
    const std::size_t half = bytes.size() / 2;
    std::ofstream(dir / ("cut" + ending), std::ios::binary) << bytes.substr(0, half);
    auto cut = graphgen({"cut" + ending}, dir);
    EXPECT_EQ(cut.exit_code, 1);
    EXPECT_EQ(cut.err, fmt::format("cut{}:+0x{:x}: expected more {}-compressed data, found the end of the file\n",
                                   ending, half, kind));
    // Sixteen bytes of the middle overwritten: found where the library
    // noticed, at or after them.
    std::string damaged = bytes;
    for (std::size_t i = half; i < half + 16; ++i) damaged[i] = '\x55';
    std::ofstream(dir / ("bad" + ending), std::ios::binary) << damaged;
    auto bad = graphgen({"bad" + ending}, dir);
    EXPECT_EQ(bad.exit_code, 1);
    std::smatch m;
    const std::regex form("bad\\" + ending + ":\\+0x([0-9a-f]+): expected " + kind +
                          "-compressed data, found corrupt data( \\(.+\\))?\n");
    ASSERT_TRUE(std::regex_match(bad.err, m, form)) << bad.err;
    const std::size_t at = std::stoul(m[1].str(), nullptr, 16);
    EXPECT_GE(at, half) << bad.err;
    EXPECT_LE(at, bytes.size()) << bad.err;
  }
}

// Windows PowerShell's `>` saves text as UTF-16 with a byte-order mark, and
// Notepad puts a UTF-8 one in front: every text format reads them.
TEST(RealProducers, TextSavedAsUtf16OrWithAUtf8MarkIsRead) {
  const std::u32string text = U"main;na\u00efve_sort 3\nmain;\u8a08\u7b97;\U0001F600 2\n";
  std::string utf8, le = "\xff\xfe", be = "\xfe\xff";
  auto unit = [&](char32_t u) {
    le += static_cast<char>(u & 0xFF);
    le += static_cast<char>(u >> 8);
    be += static_cast<char>(u >> 8);
    be += static_cast<char>(u & 0xFF);
  };
  for (char32_t c : text) {
    if (c < 0x80) {
      utf8 += static_cast<char>(c);
    } else if (c < 0x800) {
      utf8 += {static_cast<char>(0xC0 | c >> 6), static_cast<char>(0x80 | (c & 0x3F))};
    } else if (c < 0x10000) {
      utf8 += {static_cast<char>(0xE0 | c >> 12), static_cast<char>(0x80 | ((c >> 6) & 0x3F)),
               static_cast<char>(0x80 | (c & 0x3F))};
    } else {
      utf8 += {static_cast<char>(0xF0 | c >> 18), static_cast<char>(0x80 | ((c >> 12) & 0x3F)),
               static_cast<char>(0x80 | ((c >> 6) & 0x3F)), static_cast<char>(0x80 | (c & 0x3F))};
    }
    if (c < 0x10000) {
      unit(c);
    } else {  // a surrogate pair
      unit(0xD800 + ((c - 0x10000) >> 10));
      unit(0xDC00 + ((c - 0x10000) & 0x3FF));
    }
  }
  auto plain = graphgen({"-T", "dot", test::write_temp("stacks.folded", utf8).string()});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_NE(plain.out.find("\U0001F600"), std::string::npos);
  for (const auto& [name, bytes] : std::vector<std::pair<std::string, std::string>>{
           {"utf16le", le}, {"utf16be", be}, {"utf8bom", "\xef\xbb\xbf" + utf8}}) {
    SCOPED_TRACE(name);
    auto r = graphgen({"-T", "dot", test::write_temp("stacks.folded", bytes).string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, plain.out);
  }
  fs::path dir = test::temp_dir();
  std::ofstream(dir / "odd.txt", std::ios::binary) << le.substr(0, le.size() - 1);
  auto odd = graphgen({"odd.txt"}, dir);
  EXPECT_EQ(odd.exit_code, 1);
  EXPECT_EQ(odd.err, fmt::format("odd.txt:+0x{:x}: expected UTF-16 text (it starts with a byte-order mark), found an "
                                 "odd number of bytes\n",
                                 le.size() - 2));
  std::ofstream(dir / "lone.txt", std::ios::binary) << std::string(
      "\xff\xfe"
      "a\0\x00\xdc"
      "b\0",
      8);
  auto lone = graphgen({"lone.txt"}, dir);
  EXPECT_EQ(lone.exit_code, 1);
  EXPECT_EQ(lone.err,
            "lone.txt:+0x4: expected UTF-16 text (it starts with a byte-order mark), found a lone surrogate 0xdc00\n");
}

TEST(RealProducers, WhatIsNotAProfileIsNamed) {
  fs::path np = test::testdata_dir() / "notprofiles";
  auto txt = graphgen({"cpu_0.txt"}, np);
  EXPECT_EQ(txt.exit_code, 1);
  EXPECT_EQ(
      txt.err,
      "cpu_0.txt:+0x0: this is the report pstats prints (print_stats), not a profile; give graphgen the file cProfile "
      "wrote (python -m cProfile -o out.prof, or Stats.dump_stats)\n");
  auto pickle = graphgen({"dict.pickle"}, np);
  EXPECT_EQ(pickle.exit_code, 1);
  EXPECT_EQ(
      pickle.err,
      "dict.pickle:+0xb: expected a LineStats object, found a dict: this pickle is not a line_profiler file; give "
      "graphgen the .lprof that kernprof -l writes\n");
}

// valgrind --separate-threads=yes leaves callgrind.out.PID empty beside its
// threads' parts (callgrind.out.PID-01...), so `graphgen callgrind.out.*`
// failed on the empty file ("found an empty file"; only --keep-going read
// the threads). The empty file is left out where its parts are given, and
// stands for them (as KCacheGrind opens them) where they are not.
TEST(RealProducers, TheEmptyBaseFileOfSeparateThreadsStandsForItsParts) {
  fs::path cg = test::testdata_dir() / "callgrind";
  std::vector<std::string> files;
  for (const char* f :
       {"threads-sep.callgrind", "threads-sep.callgrind-01", "threads-sep.callgrind-02", "threads-sep.callgrind-03"})
    files.push_back((cg / f).string());
  std::vector<std::string> args = files;
  args.insert(args.end(), {"-T", "dot"});
  auto all = graphgen(args);
  ASSERT_EQ(all.exit_code, 0) << all.err;
  EXPECT_EQ(all.err, "");
  for (const char* fn : {"bubble", "sum_to", "count_char"}) EXPECT_NE(all.out.find(fn), std::string::npos) << fn;
  auto parts = graphgen({files[1], files[2], files[3], "-T", "dot"});
  EXPECT_EQ(all.out, parts.out);
  // Some parts named, the empty file after them: those parts alone, once each.
  auto two = graphgen({files[1], files[2], files[0], "-T", "dot"});
  ASSERT_EQ(two.exit_code, 0) << two.err;
  EXPECT_EQ(two.err, "");
  EXPECT_EQ(two.out, graphgen({files[1], files[2], "-T", "dot"}).out);
  auto base = graphgen({files[0], "-T", "dot"});
  ASSERT_EQ(base.exit_code, 0) << base.err;
  EXPECT_EQ(base.out, parts.out);
  EXPECT_EQ(base.err, "graphgen: warning: " + files[0] +
                          " is empty, as valgrind --separate-threads=yes leaves it: its 3 thread(s), " + files[1] +
                          " to " + files[3] + ", are read instead\n");
  // A name of the user's (--callgrind-out-file=prof.out, nothing saying
  // callgrind): its first part says the parts are callgrind's. The empty
  // file was an error ("found an empty file") even with its parts given.
  const fs::path own = test::temp_dir() / "own-name";
  fs::create_directories(own);
  for (int k = 0; k < 4; ++k)
    fs::copy_file(files[k], own / (k == 0 ? std::string("prof.out") : "prof.out-0" + std::to_string(k)),
                  fs::copy_options::overwrite_existing);
  auto named = graphgen({"prof.out", "-T", "dot"}, own);
  ASSERT_EQ(named.exit_code, 0) << named.err;
  EXPECT_EQ(named.out, parts.out);
  EXPECT_EQ(named.err,
            "graphgen: warning: prof.out is empty, as valgrind --separate-threads=yes leaves it: its 3 thread(s), "
            "prof.out-01 to prof.out-03, are read instead\n");
  auto globbed = graphgen({"prof.out*", "-T", "dot"}, own);
  ASSERT_EQ(globbed.exit_code, 0) << globbed.err;
  EXPECT_EQ(globbed.err, "");
  EXPECT_EQ(globbed.out, parts.out);
  // Parts that are not callgrind's leave the empty file an empty file.
  std::ofstream(own / "ranks.out").close();
  fs::copy_file(test::testdata_dir() / "demo.pstats", own / "ranks.out-01", fs::copy_options::overwrite_existing);
  auto other = graphgen({"ranks.out", "-T", "dot"}, own);
  EXPECT_EQ(other.exit_code, 1);
  EXPECT_EQ(other.err, "ranks.out:1:1: expected a profile, found an empty file\n");
  // An empty file with no parts is still an error, and --keep-going skips it.
  const fs::path empty = test::temp_dir() / "callgrind.out.77";
  std::ofstream(empty).close();
  auto lone = graphgen({empty.string(), "-T", "dot"});
  EXPECT_EQ(lone.exit_code, 1);
  EXPECT_NE(lone.err.find("callgrind.out.77:1:1: expected a profile, found an empty file"), std::string::npos)
      << lone.err;
  auto lenient = graphgen({empty.string(), files[1], "-T", "dot", "--keep-going"});
  ASSERT_EQ(lenient.exit_code, 0) << lenient.err;
  EXPECT_NE(lenient.err.find("skipped 1 of 2 inputs"), std::string::npos) << lenient.err;
}

// --- 7. units and outputs that say the truth ----------------------------------

TEST(Units, CountsWrittenAsPstatsSayWhatTheyAre) {
  fs::path out = test::temp_dir() / "x.pstats";
  auto r = graphgen({(test::testdata_dir() / "perf" / "q-g.perf").string(), "-o", out.string()});
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_NE(r.err.find("pstats holds seconds, and this profile's 'samples' are counts"), std::string::npos) << r.err;
  // cpu-clock periods are nanoseconds: weighed by them, pstats gets seconds.
  auto timed = graphgen({(test::testdata_dir() / "perf" / "q-events.perf").string(), "--event",
                         "cpu-clock/period=5000000/", "--weight", "period", "-o", out.string()});
  ASSERT_EQ(timed.exit_code, 0) << timed.err;
  EXPECT_EQ(timed.err, "");
  auto py = test::run(
      {"python3", "-c", "import pstats,sys; print(round(pstats.Stats(sys.argv[1]).total_tt, 6))", out.string()});
  EXPECT_EQ(py.out, "0.285\n");  // 57 samples of 5 ms
}

TEST(Units, AnUnknownEventIsBadUsageForEveryFormat) {
  fs::path td = test::testdata_dir();
  for (const fs::path& f :
       {demo(), td / "callgrind" / "parity.callgrind", td / "perf" / "q-g.perf", td / "lprof" / "shapes.lprof"}) {
    SCOPED_TRACE(f.string());
    auto r = graphgen({"--event", "nosuchevent", f.string(), "-T", "dot"});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(count_lines(r.err), 1u);
    EXPECT_NE(r.err.find("nosuchevent"), std::string::npos);
  }
}

TEST(Units, AFilterThatLeavesNothingDoesNotDrawAnEmptyImage) {
  fs::path dir = test::temp_dir();
  auto r = graphgen({"-p", "/no/such/dir", demo().string(), "-o", "empty.png"}, dir);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("nothing to draw"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "empty.png"));
  auto dot = graphgen({"-p", "/no/such/dir", demo().string(), "-T", "dot"});
  EXPECT_EQ(dot.exit_code, 0);
  EXPECT_NE(dot.err.find("the graph is empty"), std::string::npos) << dot.err;
}

TEST(Units, SvgTitleNamesTheProfile) {
  auto r = graphgen({demo().string(), "-T", "svg"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("<title>" + demo().string() + "</title>"), std::string::npos);
  EXPECT_EQ(r.out.find("<title>%3</title>"), std::string::npos);
}

// --- 8. install like a tool ---------------------------------------------------

TEST(Install, InstallsTheBinaryAndAManPage) {
  fs::path build = fs::path(GRAPHGEN_BINARY).parent_path();
  fs::path prefix = test::temp_dir();
  auto r = test::run({"cmake", "--install", build.string(), "--prefix", prefix.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(prefix / "bin" / "graphgen"));
  // Completion where bash-completion and zsh look, the binary's own.
  const fs::path bash = prefix / "share" / "bash-completion" / "completions" / "graphgen";
  ASSERT_TRUE(fs::exists(bash));
  EXPECT_EQ(test::read_file(bash), test::graphgen({"--completion", "bash"}).out);
  EXPECT_TRUE(fs::exists(prefix / "share" / "zsh" / "vendor-completions" / "_graphgen"));
  if (!have("help2man")) GTEST_SKIP() << "help2man is not installed: no man page";
  // (gzipped, as Debian has man pages)
  auto page_of = [&](const char* name) {
    return test::run({"gzip", "-dc", (prefix / "share" / "man" / "man1" / (std::string(name) + ".gz")).string()}).out;
  };
  std::string page = page_of("graphgen.1");
  EXPECT_NE(page.find("keep\\-going"), std::string::npos);  // the options of --help, in roff
  // graphgen run's and graphgen-mpi's pages: their own options, in roff.
  const std::string run = page_of("graphgen-run.1");
  EXPECT_NE(run.find("graphgen-run"), std::string::npos);
  EXPECT_NE(run.find("\\-\\-memory"), std::string::npos);
  if (fs::exists(build / "graphgen-mpi")) {
    EXPECT_NE(page_of("graphgen-mpi.1").find("graphgen\\-mpi"), std::string::npos);
  }
  auto v = test::run({(prefix / "bin" / "graphgen").string(), "--version"});
  EXPECT_TRUE(v.out.starts_with("graphgen ")) << v.out;
}

// A text profile with Windows line ends (CRLF: copied from Windows, or
// written there) is detected and read as the same file with LF ends:
// every text profile of testdata/ (compressed ones decompressed), both
// copies under the same name, as folded stacks. Austin's files were read
// as folded stacks (its sniffer kept the '\r' on the number ending the
// first line) and refused in full mode.
TEST(Fidelity, WindowsLineEndsReadAsTheSameProfile) {
  const fs::path root = test::testdata_dir();
  std::size_t checked = 0;
  std::set<std::string> formats;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file() || entry.file_size() > (std::size_t{2} << 20)) continue;
    const std::string rel = fs::relative(entry.path(), root).generic_string();
    if (rel.starts_with("bad/") || rel.starts_with("golden/") || rel.starts_with("notprofiles/")) continue;
    auto file = InputFile::open(entry.path().string());
    if (!file) continue;
    const bool compressed = !formats::compression_of(file->bytes()).empty();
    auto plain = formats::decompressed(std::move(file).value());
    if (!plain) continue;
    const std::string_view text = plain->bytes();
    if (text.empty() || text.find('\0') != text.npos || text.find('\r') != text.npos || text.find('\n') == text.npos)
      continue;
    const std::string name = (compressed ? entry.path().stem() : entry.path().filename()).string();
    const fs::path lf_dir = test::temp_dir() / "lf" / std::to_string(checked);
    const fs::path crlf_dir = test::temp_dir() / "crlf" / std::to_string(checked);
    fs::create_directories(lf_dir);
    fs::create_directories(crlf_dir);
    std::string crlf;
    crlf.reserve(text.size() + text.size() / 16);
    for (char c : text) {
      if (c == '\n') crlf += '\r';
      crlf += c;
    }
    std::ofstream(lf_dir / name, std::ios::binary) << text;
    std::ofstream(crlf_dir / name, std::ios::binary) << crlf;
    auto lf = graphgen({name, "-T", "folded"}, lf_dir);
    if (lf.exit_code != 0) {  // (not a profile graphgen reads: sources, oracles, notes)
      fs::remove_all(lf_dir);
      fs::remove_all(crlf_dir);
      continue;
    }
    auto windows = graphgen({name, "-T", "folded"}, crlf_dir);
    EXPECT_EQ(windows.exit_code, 0) << rel << ": " << windows.err;
    EXPECT_EQ(windows.out, lf.out) << rel;
    formats.insert(entry.path().parent_path().filename().string());
    ++checked;
  }
  EXPECT_GE(checked, 60u);
  EXPECT_TRUE(formats.count("austin")) << "the austin files are among them";
}

}  // namespace
}  // namespace graphgen::fidelity_test
