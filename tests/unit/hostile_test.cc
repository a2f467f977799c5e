// Hostile inputs of at most 1 MB, built by generators at their worst sizes:
// each is read (or refused with one line) without a crash, a hang (a 60 s
// guard, not a timing assertion), or more than 200 MB of memory, with the
// output each should give; and the report reads no file it should not.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "common/decompress.h"
#include "util/test_util.h"

namespace graphgen::hostile_test {
namespace {

namespace fs = std::filesystem;

constexpr long kMaxPeakKb = 200 * 1024;
constexpr int kHangGuardSeconds = 60;

// Writes what a Python generator writes to sys.argv[1].
fs::path generate(const std::string& name, const std::string& python) {
  fs::path p = test::temp_dir() / name;
  auto r = test::run({"python3", "-c", "import sys\n" + python, p.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_LE(fs::file_size(p), std::uintmax_t{1} << 20) << "generators stay within 1 MB";
  return p;
}

// A Python prelude that pickles LineStats objects as line_profiler does,
// without line_profiler: the class only needs its module path.
const char* kLineStats =
    "import pickle, types\n"
    "m = types.ModuleType('line_profiler.line_profiler')\n"
    "sys.modules['line_profiler'] = types.ModuleType('line_profiler')\n"
    "sys.modules['line_profiler.line_profiler'] = m\n"
    "class LineStats:\n"
    "    def __init__(self, timings, unit):\n"
    "        self.timings, self.unit = timings, unit\n"
    "LineStats.__module__ = 'line_profiler.line_profiler'\n"
    "m.LineStats = LineStats\n"
    "def dump(timings, unit):\n"
    "    open(sys.argv[1], 'wb').write(pickle.dumps(LineStats(timings, unit), protocol=4))\n";

// Runs graphgen on a hostile input: it must finish, succeed or fail with one
// line (exit 1 or 2), and stay within the memory bound.
test::RunResult survive(const std::vector<std::string>& args, const fs::path& cwd = {}) {
  std::vector<std::string> argv{GRAPHGEN_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  auto r = test::run(argv, cwd, {}, kHangGuardSeconds);
  EXPECT_FALSE(r.timed_out) << "hung";
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1 || r.exit_code == 2) << "exit " << r.exit_code << "\n" << r.err;
  if (r.exit_code != 0) {
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
#ifndef GRAPHGEN_SANITIZE
  EXPECT_LT(r.peak_kb, kMaxPeakKb) << "peak " << r.peak_kb / 1024 << " MB";
#endif
  return r;
}

// The lines of folded stacks and the sum of their counts.
std::pair<std::size_t, double> folded_lines_and_sum(const std::string& folded) {
  std::size_t lines = 0;
  double sum = 0;
  std::istringstream in(folded);
  for (std::string line; std::getline(in, line); ++lines) sum += std::stod(line.substr(line.rfind(' ') + 1));
  return {lines, sum};
}

bool printable(const std::string& s) {
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 && c != '\n') return false;
    if (u == 0x7f) return false;
  }
  return true;
}

// --- 1. the line_profiler report never reads past a buffer --------------------

TEST(Hostile, HugeTimerUnitsFormatEveryDigit) {
  fs::path f = generate("big-unit.lprof",
                        std::string(kLineStats) + "dump({('f.py', 1, 'f'): [(1, 3, 10**15), (2, 1, 7)]}, 1e250)\n");
  auto r = survive({"-T", "text", f.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(printable(r.out));
  // Every digit Python prints for the same number (272 of them), no more.
  auto py = test::run({"python3", "-c", "print('%5.1f' % (10**15 * 1e250 / 1e-6))"});
  ASSERT_EQ(py.exit_code, 0);
  std::string digits = py.out.substr(0, py.out.size() - 1);
  EXPECT_GT(digits.size(), 270u);
  EXPECT_NE(r.out.find(" " + digits + " "), std::string::npos) << r.out.substr(0, 800);
  auto tiny = survive({"-T", "text", "--unit", "1e-300", (test::testdata_dir() / "lprof" / "shapes.lprof").string()});
  ASSERT_EQ(tiny.exit_code, 0) << tiny.err;
  EXPECT_TRUE(printable(tiny.out));
}

// --- 2. exponential time on tiny pstats files ---------------------------------

TEST(Hostile, NestedCodeObjectsThatFailDeepInsideAreLinear) {
  // 40 nested code objects (a function defined in a function ...), cut
  // inside the innermost: each layout fails there, and used to be retried
  // at every level (4^40 attempts).
  fs::path f = generate("nested.pstats",
                        "import marshal\n"
                        "src = 'def f0():\\n'\n"
                        "for i in range(1, 40): src += '    ' * i + 'def f%d():\\n' % i\n"
                        "src += '    ' * 40 + 'return 1\\n'\n"
                        "code = compile(src, 'n.py', 'exec').co_consts[0]\n"
                        "body = marshal.dumps(code, 2)\n"
                        "# the innermost code object's file name comes first: cut there\n"
                        "cut = body.find(b'n.py')\n"
                        "head = b'{' + b'(' + (3).to_bytes(4, 'little') + marshal.dumps('n.py', 2) + "
                        "marshal.dumps(1, 2)\n"
                        "open(sys.argv[1], 'wb').write(head + body[:cut])\n");
  auto r = survive({"-f", "pstats", f.string()});
  EXPECT_EQ(r.exit_code, 1);
}

TEST(Hostile, SharedKeyTuplesAreCheckedOnceEach) {
  // t_k = (t_k-1, t_k-1) as a dict key: 60 levels, 2^60 paths through refs.
  fs::path f = generate("dag.pstats",
                        "import marshal\n"
                        "t = ('a',)\n"
                        "for _ in range(60): t = (t, t)\n"
                        "# the dict is written by hand: Python itself would hash the key 2^60 times\n"
                        "open(sys.argv[1], 'wb').write(b'{' + marshal.dumps(t) + marshal.dumps(1) + b'0')\n");
  auto r = survive({"-f", "pstats", f.string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("expected a function key"), std::string::npos) << r.err;
}

// --- 3. memory in proportion to the input --------------------------------------

TEST(Hostile, OneLongStringSharedByThousandsOfPstatsKeys) {
  fs::path f = generate("shared.pstats",
                        "import marshal\n"
                        "s = 'x' * 200000\n"
                        "d = {('f.py', i, s): (1, 1, 0.0, 0.0, {}) for i in range(20000)}\n"
                        "open(sys.argv[1], 'wb').write(marshal.dumps(d))\n");
  fs::path out = test::temp_dir() / "out.pstats";
  auto as_pstats = survive({f.string(), "-o", out.string()});
  EXPECT_EQ(as_pstats.exit_code, 1);  // 20 000 copies of 200 KB: refused
  EXPECT_NE(as_pstats.err.find("would be larger than"), std::string::npos) << as_pstats.err;
  EXPECT_FALSE(fs::exists(out));
  survive({f.string(), "-T", "dot", "-o", (test::temp_dir() / "out.dot").string()});
  survive({f.string(), "-T", "callgrind", "-o", (test::temp_dir() / "out.callgrind").string()});
}

TEST(Hostile, OneLongStringSharedByThousandsOfLprofKeys) {
  fs::path f = generate("shared.lprof", std::string(kLineStats) +
                                            "s = 'y' * 100000\n"
                                            "dump({(s, i, 'f'): [(i, 1, 1)] for i in range(1, 20000)}, 1e-6)\n");
  auto r = survive({"-T", "text", f.string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("would be larger than"), std::string::npos) << r.err;
  survive({"-T", "dot", f.string()});
}

TEST(Hostile, AThousandEventsForEachOfManyFunctions) {
  std::string text = "events:";
  for (int e = 0; e < 1000; ++e) text += " e" + std::to_string(e);
  text += "\n";
  for (int f = 0; text.size() < 1000000; ++f)
    text += "fn=(" + std::to_string(f) + ") f" + std::to_string(f) + "\n0 1\n";
  fs::path f = test::write_temp("wide.callgrind", text);
  auto r = survive({"-T", "dot", f.string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("the profile needs more than"), std::string::npos) << r.err;
  // Given the memory, the same file is read.
  auto big =
      test::run({GRAPHGEN_BINARY, "--max-memory", "2G", "-T", "dot", "-q", f.string()}, {}, {}, kHangGuardSeconds);
  EXPECT_EQ(big.exit_code, 0) << big.err;
}

TEST(Hostile, ATextReportNeverPadsToALineNumberFromTheFile) {
  fs::path f = generate("far.lprof", std::string(kLineStats) +
                                         "dump({('/no/such.py', 1, 'f'): [(2**31, 1, 1)],"
                                         " ('/no/such.py', 2**63 - 5, 'g'): [(3, 1, 1)]}, 1e-6)\n");
  auto r = survive({"-T", "text", f.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_LT(r.out.size(), 4096u);
  EXPECT_NE(r.err.find("only its timed lines are printed"), std::string::npos) << r.err;
}

// --- 4. the report reads regular files only, under --source-root ------------

TEST(Hostile, TheReportReadsOnlyRegularFilesAndOnlyWhereAllowed) {
  fs::path dir = test::temp_dir();
  fs::path fifo = dir / "fifo.py";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::ofstream(dir / "ok.py") << "def h():\n    return 1\n";
  fs::permissions(dir / "ok.py", fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                                     fs::perms::others_read);  // whatever the umask
  std::string py = std::string(kLineStats) + "dump({('/dev/zero', 1, 'z'): [(1, 1, 1)], ('" + fifo.string() +
                   "', 1, 'p'): [(1, 1, 1)], ('/etc/passwd', 1, 'e'): [(1, 1, 1)], ('" + (dir / "ok.py").string() +
                   "', 1, 'h'): [(2, 1, 1)]}, 1e-6)\n";
  fs::path f = generate("paths.lprof", py);
  auto r = survive({"-T", "text", f.string()});  // a FIFO or /dev/zero would hang or grow
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Could not find file /dev/zero"), std::string::npos);
  EXPECT_NE(r.out.find("Could not find file " + fifo.string()), std::string::npos);
  EXPECT_NE(r.out.find("File: /etc/passwd"), std::string::npos);  // a regular file: read by default
  EXPECT_NE(r.out.find("return 1"), std::string::npos);
  auto rooted = survive({"-T", "text", "--source-root", dir.string(), f.string()});
  ASSERT_EQ(rooted.exit_code, 0) << rooted.err;
  EXPECT_NE(rooted.out.find("Could not find file /etc/passwd"), std::string::npos);  // outside the root
  EXPECT_NE(rooted.out.find("return 1"), std::string::npos);                         // inside it
}

TEST(Hostile, TheReportReadsOnlySourceTextTheUserMayRead) {
  // A profile can name any path: /proc, a binary, a file only its owner may
  // read. As root (who may read anything) a file must be readable by all.
  fs::path dir = test::temp_dir();
  std::ofstream(dir / "secret.py") << "SECRET = 'hunter2'\n";
  fs::permissions(dir / "secret.py", fs::perms::owner_read | fs::perms::owner_write);
  std::ofstream(dir / "binary.py", std::ios::binary) << std::string("def b():\n\0\0\0\n", 13);
  std::ofstream(dir / "ok.py") << "def h():\n    return 1\n";
  fs::permissions(dir / "ok.py", fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                                     fs::perms::others_read);  // whatever the umask
  auto key = [](const fs::path& p, const char* name) {
    return "('" + p.string() + "', 1, '" + name + "'): [(1, 1, 1)], ";
  };
  std::string py = std::string(kLineStats) + "dump({" + key(dir / "secret.py", "s") + key(dir / "binary.py", "b") +
                   key("/proc/self/environ", "e") + "('" + (dir / "ok.py").string() +
                   "', 1, 'h'): [(2, 1, 1)]}, 1e-6)\n";
  fs::path f = generate("secrets.lprof", py);
  auto r = survive({"-T", "text", f.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Could not find file " + (dir / "binary.py").string()), std::string::npos);  // NULs: not text
  EXPECT_NE(r.out.find("Could not find file /proc/self/environ"), std::string::npos);
  EXPECT_NE(r.out.find("return 1"), std::string::npos);
  if (::geteuid() == 0) {
    EXPECT_EQ(r.out.find("hunter2"), std::string::npos);
    EXPECT_NE(r.out.find("Could not find file " + (dir / "secret.py").string()), std::string::npos);
    auto rooted = survive({"-T", "text", "--source-root", dir.string(), f.string()});  // vouched for
    EXPECT_NE(rooted.out.find("hunter2"), std::string::npos);
  }
  auto none = survive({"-T", "text", "--no-source", f.string()});
  ASSERT_EQ(none.exit_code, 0) << none.err;
  EXPECT_EQ(none.out.find("return 1"), std::string::npos);
  EXPECT_EQ(none.out.find("Could not find file"), std::string::npos);
  EXPECT_NE(none.out.find("File: " + (dir / "ok.py").string() + "\nFunction: h at line 1\n"), std::string::npos)
      << none.out;
}

// --- 5. outputs that cannot be written --------------------------------------

TEST(Hostile, AFullDeviceIsExitOneForEveryKindOfOutput) {
  std::string demo = (test::testdata_dir() / "demo.pstats").string();
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {demo}, {"--list-functions", "+", demo}, {"--help"}, {demo, "-o", "/dev/stdout"}}) {
    std::string cmd = "\"$0\"";
    for (std::size_t i = 0; i < args.size(); ++i) cmd += " \"$" + std::to_string(i + 1) + "\"";
    std::vector<std::string> argv{"sh", "-c", cmd + " > /dev/full", GRAPHGEN_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = test::run(argv);
    SCOPED_TRACE(args[0]);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << r.err;
  }
}

// --- 7. one line means one line ------------------------------------------------

TEST(Hostile, InputQuotedInErrorsNeverBreaksTheLine) {
  using namespace std::string_literals;
  // STACK_GLOBAL naming "os\nsystem\x1b[2J".
  fs::path f = test::write_temp("evil.lprof", "\x80\x04\x8c\x03os\n\x8c\x0asystem\x1b[2J\x93."s);
  auto r = survive({"-T", "text", f.string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos);
  EXPECT_NE(r.err.find("refusing to load 'os\\n.system\\x1b[2J'"), std::string::npos) << r.err;
  // A file name with a newline and an escape sequence.
  fs::path dir = test::temp_dir();
  std::string name = "bad\nname\x1b[31m.pstats";
  std::ofstream(dir / name) << "not a profile";
  auto n = survive({name}, dir);
  EXPECT_EQ(n.exit_code, 1);
  EXPECT_EQ(n.err.find('\x1b'), std::string::npos) << n.err;
}

// --- 8. no quadratic corners ------------------------------------------------------

TEST(Hostile, ManyLprofKeys) {
  // Each key was compared with every earlier one (a 2.2 MB file took 67 s).
  fs::path f = generate(
      "keys.lprof", std::string(kLineStats) + "dump({('f.py', i, 'f'): [(i, 1, 1)] for i in range(40000)}, 1e-6)\n");
  auto r = survive({"-T", "folded", "-q", f.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // One stack per key, each one tick: 40 000 lines of weight 1.
  EXPECT_EQ(folded_lines_and_sum(r.out), (std::pair<std::size_t, double>{40000, 40000}));
}

TEST(Hostile, ManyDistinctPerfEvents) {
  std::string text;
  for (int i = 0; text.size() < 900000; ++i)
    text += "p 1 1.0: 1 ev" + std::to_string(i) + ":\n\t1 f (/x)\n\t2 main (/x)\n\n";
  fs::path f = test::write_temp("events.perf", text);
  // The first sample's event is kept, as stackcollapse-perf.pl keeps it:
  // one sample of command p, main calling f.
  auto r = survive({"-T", "folded", f.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "p;main;f 1\n");
  auto last = survive({"-T", "folded", "--event", "ev20000", "-q", f.string()});
  ASSERT_EQ(last.exit_code, 0) << last.err;
  EXPECT_EQ(last.out, "p;main;f 1\n");
}

TEST(Hostile, AFunctionWithAHundredThousandCallers) {
  fs::path f = generate("callers.pstats",
                        "import marshal\n"
                        "callers = {('c.py', i, 'c%d' % i): (1, 1, 0.0, 0.0) for i in range(25000)}\n"
                        "d = {('f.py', 1, 'f'): (25000, 25000, 1.0, 1.0, callers)}\n"
                        "open(sys.argv[1], 'wb').write(marshal.dumps(d))\n");
  auto r = survive({"-T", "dot", "-q", f.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("label=\"f:1:f\\n100.00%\\n(100.00%)\\n25000×\""), std::string::npos) << r.out;
  fs::path out = test::temp_dir() / "x.pstats";
  auto p = survive({"-T", "pstats", "-o", out.string(), f.string()});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  auto py = test::run({"python3", "-c",
                       "import pstats, sys\n"
                       "s = pstats.Stats(sys.argv[1]).stats\n"
                       "print(len(s), s[('f.py', 1, 'f')][:2], len(s[('f.py', 1, 'f')][4]))\n",
                       out.string()});
  ASSERT_EQ(py.exit_code, 0) << py.err;
  // The callers are not functions of the profile (they have no entry of
  // their own), as in the input.
  EXPECT_EQ(py.out, "1 (25000, 25000) 25000\n");
}

TEST(Hostile, ACycleEnteredEverywhere) {
  // n functions in one ring, each also called from main: n entry points.
  // Each member's total is 1 + (n - 1) / 2 of n samples, and each call
  // inside the ring carries (n - 1) / 2: gprof2dot's per-entry walk, which
  // took 4.4 s for 20 000 entries, now in closed form.
  for (int n : {250, 20000}) {
    std::string text;
    for (int i = 0; i < n; ++i) text += "main;f" + std::to_string(i) + ";f" + std::to_string((i + 1) % n) + " 1\n";
    fs::path f = test::write_temp("cycle" + std::to_string(n) + ".collapse", text);
    auto r = survive({"-T", "dot", "-q", f.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("main\\n100.00%"), std::string::npos);  // main holds every sample
    if (n == 250) {
      EXPECT_NE(r.out.find("label=\"f7\\n50.20%\\n(0.40%)\""), std::string::npos) << r.out.substr(0, 2000);
      EXPECT_NE(r.out.find("label=\"49.80%\""), std::string::npos);
    }
    auto folded = survive({"-T", "folded", "-q", f.string()});
    ASSERT_EQ(folded.exit_code, 0) << folded.err;
    EXPECT_EQ(folded_lines_and_sum(folded.out), (std::pair<std::size_t, double>{n, n}));
  }
}

TEST(Hostile, StripOnNestedParentheses) {
  std::string name(200000, '(');
  name += "x";
  name += std::string(200000, ')');
  fs::path f = test::write_temp("paren.collapse", "main;" + name + " 5\nmain 1\n");
  auto r = survive({"-T", "dot", "-s", "-q", f.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Stripped of its parameter lists, the name is empty up to the first '(':
  // a node of 5 of the 6 samples, far shorter than the name.
  EXPECT_NE(r.out.find("83.33%"), std::string::npos) << r.out.substr(0, 2000);
  EXPECT_LT(r.out.size(), 10000u);
}

// --- 9. small ones ------------------------------------------------------------------

TEST(Hostile, CollapsedStacksWithAFirstLineBeyondFourKilobytes) {
  std::string line = "main";
  for (int i = 0; i < 1000; ++i) line += ";frame_number_" + std::to_string(i);
  fs::path f = test::write_temp("long.folded", line + " 3\nmain;x 1\n");
  auto r = survive({"-T", "dot", f.string()});  // no -f: detected
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("frame_number_999"), std::string::npos);
}

TEST(Hostile, NamesThatAreNotUtf8LoadInPythonAsSurrogateEscapes) {
  using namespace std::string_literals;
  fs::path f = test::write_temp("latin1.collapse", "main;caf\xe9;na\xefve\xff 3\nmain 1\n"s);
  fs::path out = test::temp_dir() / "x.pstats";
  auto r = survive({f.string(), "-o", out.string(), "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto py = test::run({"python3", "-c",
                       "import pstats, os, sys\n"
                       "names = sorted(os.fsencode(k[2]) for k in pstats.Stats(sys.argv[1]).stats)\n"
                       "print(names)\n",
                       out.string()});
  ASSERT_EQ(py.exit_code, 0) << py.err;
  EXPECT_EQ(py.out, "[b'caf\\xe9', b'main', b'na\\xefve\\xff']\n");
}

// --- 10. compressed inputs are detected before they are inflated ---------------

TEST(Hostile, TwoHundredMegabytesOfCompressedZerosStopAtTheHead) {
  for (const char* kind : {"gzip", "lzma"}) {
    fs::path f = generate(std::string("zeros.") + (kind[0] == 'g' ? "gz" : "xz"),
                          std::string("import ") + kind + "\nwith " + kind +
                              ".open(sys.argv[1], 'wb') as f:\n"
                              "    for i in range(200): f.write(bytes(1 << 20))\n");
    auto r = survive({f.string(), "-o", (test::temp_dir() / "zeros.dot").string()});
    EXPECT_EQ(r.exit_code, 1) << kind;
    EXPECT_NE(r.err.find("cannot tell the profile format"), std::string::npos) << r.err;
#ifndef GRAPHGEN_SANITIZE
    EXPECT_LT(r.peak_kb, 64 * 1024) << kind << ": inflated past the head (" << r.peak_kb / 1024 << " MB)";
#endif
  }
}

TEST(Hostile, AVerySleepyCallstacksFileIsReadAsItInflates) {
  // 400 000 samples (13 MB of Callstacks.txt, a few KB zipped, CRLF lines
  // crossing every 64 KiB chunk) read within --max-memory 4M: the member is
  // streamed, not inflated whole; every sample counted.
  fs::path f =
      generate("big.sleepy",
               "import zipfile\n"
               "with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:\n"
               "    z.writestr('Symbols.txt', 'sym0 \"app\" \"main\" \"m.c\" 1\\r\\n'"
               "               'sym1 \"app\" \"work\" \"w.c\" 2\\r\\n')\n"
               "    z.writestr('Callstacks.txt', '0.5 sym1 sym0\\r\\n' * 300000 + '0.25 sym0\\r\\n' * 100000)\n");
  auto r = survive({f.string(), "--max-memory", "4M", "-T", "folded", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // 100 000 x 0.25 s and 300 000 x 0.5 s, in microseconds (floating seconds as whole counts).
  EXPECT_EQ(r.out, "main 25000000000\nmain;work 150000000000\n") << r.out;
#ifndef GRAPHGEN_SANITIZE
  EXPECT_LT(r.peak_kb, 64 * 1024) << r.peak_kb / 1024 << " MB";
#endif
}

TEST(Hostile, InflatedBytesCountAgainstMaxMemory) {
  // A real profile whose inflated size is over the budget given: refused as
  // it grows, naming the option.
  fs::path f = generate("big.collapse.gz",
                        "import gzip\nwith gzip.open(sys.argv[1], 'wb') as f:\n"
                        "    for i in range(400000): f.write(b'main;work;leaf%d 1\\n' % (i % 50))\n");
  auto r = survive({f.string(), "--max-memory", "4M", "-T", "stats"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("expands to more than --max-memory (4 MiB)"), std::string::npos) << r.err;
  auto ok = survive({f.string(), "-T", "folded"});
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(folded_lines_and_sum(ok.out), (std::pair<std::size_t, double>{50, 400000}));
}

// gzip's trailer announces the inflated size: the buffer takes it in one
// step, with the room simdjson reads past the end and no more (it grew by
// half its size each time: an 11 MB pprof profile took 16.8 MB, zero-
// filled). Only a hint: a file of two members announces the last one's
// size and is read whole; a trailer that lies is zlib's length error.
TEST(Hostile, AnInflatedInputTakesTheSizeItsTrailerAnnounces) {
  // 3.4 MB of lines in 1 MB of gzip, one member, then the same as two.
  const std::string lines =
      "import gzip\ntext = b''.join(b'main;work;f%d %d\\n' % (i * 7919 % 100003, i) "
      "for i in range(170000))\n";
  fs::path one = generate("announced.gz", lines + "open(sys.argv[1], 'wb').write(gzip.compress(text))\n");
  fs::path two = generate("two-members.gz", lines +
                                                "open(sys.argv[1], 'wb').write(gzip.compress(text[:3000000]) + "
                                                "gzip.compress(text[3000000:]))\n");
  std::string expected;
  for (int i = 0; i < 170000; ++i)
    expected += "main;work;f" + std::to_string(static_cast<long>(i) * 7919 % 100003) + " " + std::to_string(i) + "\n";
  formats::InflateLimits limits;
  limits.check_head = [](const InputFile&) -> Expected<bool> { return true; };
  for (const fs::path& f : {one, two}) {
    SCOPED_TRACE(f.string());
    auto file = InputFile::open(f.string());
    ASSERT_TRUE(file) << file.error().message;
    auto plain = formats::decompressed(std::move(file).value(), limits);
    ASSERT_TRUE(plain) << plain.error().message;
    EXPECT_TRUE(plain->bytes() == expected) << plain->bytes().size() << " bytes, " << expected.size() << " expected";
    if (f == one) {
      EXPECT_EQ(plain->readable_after_end(), formats::kInflatedSpare);
    } else {
      EXPECT_GE(plain->readable_after_end(), formats::kInflatedSpare);
    }
  }
  // The trailer made to announce 500 times the file: refused at the end.
  std::string bytes;
  {
    std::ifstream in(one, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  const std::uint32_t lie = static_cast<std::uint32_t>(bytes.size() * 500);
  for (int k = 0; k < 4; ++k) bytes[bytes.size() - 4 + k] = static_cast<char>(lie >> (8 * k));
  auto lied = formats::decompressed(InputFile::from_bytes("lie.gz", std::move(bytes)), limits);
  ASSERT_FALSE(lied);
  EXPECT_NE(lied.error().message.find("expected gzip-compressed data, found corrupt data ('incorrect length check')"),
            std::string::npos)
      << lied.error().message;
}

// --- 11. a deep stack lays out in seconds -------------------------------------

// One sample whose stack is n distinct functions deep, as xperf exports it.
fs::path deep_xperf(int n) {
  return generate("deep" + std::to_string(n) + ".xperf",
                  "n = " + std::to_string(n) +
                      "\nstack = '[Root]/' + '/'.join('app.exe!fn_%d' % i for i in range(n))\n"
                      "open(sys.argv[1], 'w').write('Process Name, Display Name, Process, Stack, Module, Function, "
                      "Address, Thread ID, CPU, Weight, % Weight, Count, TimeStamp\\n' + 'app.exe, App, app.exe "
                      "(4144), ' + stack + ', app.exe, fn_%d, 0x401010, 5104, 0, 1.000000, 100.00, 1, "
                      "1.0\\n' % (n - 1))\n");
}

// A file up to a megabyte is read into memory at once (not zeroed first):
// its bytes, then zeros for simdjson's padding, however it is moved.
TEST(Hostile, ASmallFileIsItsBytesThenZeros) {
  std::string text;
  for (int i = 0; i < 20000; ++i) text += static_cast<char>('a' + i * 7 % 26);
  text += '\xff';
  for (const std::string& bytes : {text, std::string("x")}) {
    auto file = InputFile::open(test::write_temp("small.bin", bytes).string());
    ASSERT_TRUE(file) << file.error().message;
    InputFile moved = std::move(file).value();
    EXPECT_TRUE(moved.bytes() == bytes);
    ASSERT_GE(moved.readable_after_end(), 64u);
    const char* after = moved.bytes().data() + moved.bytes().size();
    EXPECT_EQ(std::string(after, 64), std::string(64, '\0'));
  }
}

// A pipe's bytes are read into a buffer that grows in place (realloc moves
// a large block's pages): 48 MB from a FIFO raise the process's peak by
// about 48 MB, where a string doubling beside its copy added 80. The
// bytes, then zeros, as for a file.
TEST(Hostile, AStreamIsHeldOnceWhileItIsRead) {
  const fs::path fifo = test::temp_dir() / "stream.fifo";
  fs::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::size_t size = (std::size_t{48} << 20) + 17;
  std::thread writer([&] {
    std::FILE* out = std::fopen(fifo.c_str(), "wb");
    if (!out) return;
    std::string block(1 << 16, '\0');
    for (std::size_t done = 0; done < size;) {
      const std::size_t n = std::min(block.size(), size - done);
      for (std::size_t i = 0; i < n; ++i) block[i] = static_cast<char>('a' + (done + i) % 23);
      std::fwrite(block.data(), 1, n, out);
      done += n;
    }
    std::fclose(out);
  });
  auto kib = [](const char* field) {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
      if (line.rfind(field, 0) == 0) return std::stoul(line.substr(std::strlen(field)));
    return 0ul;
  };
  std::ofstream("/proc/self/clear_refs") << "5";  // (the peak starts again from here)
  const unsigned long before = kib("VmRSS:");
  auto file = InputFile::open(fifo.string());
  writer.join();
  ASSERT_TRUE(file) << file.error().message;
  const unsigned long peak = kib("VmHWM:");
  ASSERT_EQ(file->bytes().size(), size);
  bool same = true;
  for (std::size_t i = 0; i < size && same; i += 4093) same = file->bytes()[i] == static_cast<char>('a' + i % 23);
  EXPECT_TRUE(same);
  ASSERT_GE(file->readable_after_end(), 64u);
  EXPECT_EQ(std::string(file->bytes().data() + size, 64), std::string(64, '\0'));
  // (The peak measured from the reset: reset failed if it is below now.)
  if (peak >= kib("VmRSS:")) {
    EXPECT_LT(peak - before, size / 1024 * 5 / 4) << "KiB, for " << size / 1024 << " KiB read";
  }
  fs::remove(fifo);
}

TEST(Hostile, ADeepStackIsDrawnAsOneChain) {
  for (int n : {10000, 40000}) {
    fs::path f = deep_xperf(n);
    for (const char* format : {"svg", "html"}) {
      auto r = survive({"-T", format, f.string()});
      ASSERT_EQ(r.exit_code, 0) << r.err;
      EXPECT_NE(r.err.find("a chain of single calls (" + std::to_string(n) + " functions) is drawn as one node"),
                std::string::npos)
          << r.err;
      EXPECT_NE(r.out.find(std::to_string(n - 1) + " calls in a chain"), std::string::npos) << format;
      EXPECT_NE(r.out.find("fn_" + std::to_string(n - 1)), std::string::npos);
      if (std::string(format) == "html") {
        EXPECT_NE(r.out.find("A chain of single calls (" + std::to_string(n) +
                             " functions, each calling only the "
                             "next) is drawn as one node"),
                  std::string::npos);
      }
    }
  }
}

TEST(Hostile, ChainsAreKeptWhenAsked) {
  // Under the budget nothing is collapsed; --no-collapse-chains keeps them
  // past it, and the long-layout warning is on standard error before the
  // layout starts (the run is stopped long before Graphviz is done).
  fs::path small = deep_xperf(400);
  auto r = survive({"-T", "svg", small.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("calls in a chain"), std::string::npos);
  EXPECT_NE(r.out.find(">fn_200<"), std::string::npos);
  fs::path deep = deep_xperf(20000);
  auto slow = test::run({GRAPHGEN_BINARY, "-T", "svg", "--no-collapse-chains", deep.string()}, {}, {}, 8);
  EXPECT_NE(slow.err.find("the graph has 20000 nodes after pruning; laying it out can take minutes"), std::string::npos)
      << slow.err;
  auto dot = survive({"-T", "dot", deep.string()});  // gprof2dot's dot is not a picture: every node
  ASSERT_EQ(dot.exit_code, 0) << dot.err;
  EXPECT_EQ(dot.out.find("calls in a chain"), std::string::npos);
  EXPECT_NE(dot.out.find("fn_12345\\n"), std::string::npos);
}

}  // namespace
}  // namespace graphgen::hostile_test
