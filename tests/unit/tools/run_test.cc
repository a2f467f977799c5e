// `graphgen run`: Python programs profiled in the embedded interpreter give
// the graph `python3 -m cProfile -o p.pstats` and graphgen give, and keep
// their exit status, traceback, threads, processes and C extensions.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "util/test_util.h"

namespace graphgen::run_test {
namespace {

namespace fs = std::filesystem;
using test::graphgen;

fs::path scripts() { return test::testdata_dir() / "python"; }

#ifdef GRAPHGEN_PYTHON_EXECUTABLE
// What a graph says apart from timings: each node's name and call count,
// each edge's ends and call count (percentages and colours come from times).
std::multiset<std::string> structure(const std::string& dot) {
  std::map<std::string, std::string> name;  // node id -> first label line
  std::multiset<std::string> out;
  std::regex node(R"re(^\t(\S+) \[.*label="([^"\\]*(?:\\.[^"\\]*)*)")re");
  std::regex edge(R"re(^\t(\S+) -> (\S+) \[.*label="([^"]*)")re");
  std::istringstream in(dot);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  auto calls = [](const std::string& label) {
    std::smatch m;
    static const std::regex times(R"re((\d+)×$)re");
    return std::regex_search(label, m, times) ? m[1].str() : std::string("-");
  };
  for (const std::string& line : lines) {
    std::smatch m;
    if (line.find(" -> ") == std::string::npos && std::regex_search(line, m, node)) {
      std::string label = m[2];
      std::string first = label.substr(0, label.find("\\n"));
      name[m[1]] = first;
      out.insert("node " + first + " " + calls(label));
    }
  }
  for (const std::string& line : lines) {
    std::smatch m;
    if (std::regex_search(line, m, edge)) out.insert("edge " + name[m[1]] + " -> " + name[m[2]] + " " + calls(m[3]));
  }
  return out;
}

// The program's part: the import system's frames (<frozen importlib...>)
// depend on what the interpreter had imported and cached before, and
// built-ins' total counts include its calls; the program's functions, their
// calls and the calls they make are the program's.
std::multiset<std::string> programs_own(const std::multiset<std::string>& all) {
  std::multiset<std::string> out;
  for (const std::string& s : all)
    if (s.find("<frozen") == std::string::npos && !s.starts_with("node ~:0:")) out.insert(s);
  return out;
}

std::string differences(const std::multiset<std::string>& want, const std::multiset<std::string>& got) {
  std::string out;
  for (const std::string& s : want)
    if (!got.count(s)) out += "- " + s + "\n";
  for (const std::string& s : got)
    if (!want.count(s)) out += "+ " + s + "\n";
  return out;
}

// python3 -m cProfile -o p.pstats ARGS..., then graphgen p.pstats: the dot.
std::string through_a_file(const std::vector<std::string>& args, const fs::path& dir) {
  std::vector<std::string> argv = {GRAPHGEN_PYTHON_EXECUTABLE, "-m", "cProfile", "-o", (dir / "p.pstats").string()};
  argv.insert(argv.end(), args.begin(), args.end());
  auto r = test::run(argv, scripts());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto g = graphgen({"-n0", "-e0", "-T", "dot", (dir / "p.pstats").string()});
  EXPECT_EQ(g.exit_code, 0) << g.err;
  return g.out;
}

test::RunResult run_python(std::vector<std::string> args, const fs::path& out) {
  std::vector<std::string> argv = {"run", "-n0", "-e0", "-T", "dot", "-o", out.string()};
  argv.insert(argv.end(), args.begin(), args.end());
  return graphgen(argv, scripts());
}
#endif

#ifdef GRAPHGEN_PYTHON_EXECUTABLE
#define SKIP_WITHOUT_PYTHON()
#else
#define SKIP_WITHOUT_PYTHON() GTEST_SKIP() << "graphgen is built without Python (python3-dev)"
#endif

TEST(Run, AScriptGivesTheGraphOfCProfileAndAFile) {
  SKIP_WITHOUT_PYTHON();
#ifdef GRAPHGEN_PYTHON_EXECUTABLE
  fs::path dir = test::temp_dir();
  auto r = run_python({"work.py", "6"}, dir / "run.dot");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "total 689905\n");  // the program's own output, as under python3
  auto want = programs_own(structure(through_a_file({"work.py", "6"}, dir)));
  auto got = programs_own(structure(test::read_file(dir / "run.dot")));
  EXPECT_GT(got.size(), 15u);
  EXPECT_TRUE(got.count("node work:15:fib 465")) << differences(want, got);
  EXPECT_TRUE(got.count("node helper:4:checksum 1")) << differences(want, got);
  EXPECT_EQ(differences(want, got), "");
#endif
}

// The program's arguments are its own, an empty one too (graphgen's own
// command line refuses an empty argument as an unset variable's).
TEST(Run, AnEmptyArgumentOfTheProgramIsPassedOn) {
  SKIP_WITHOUT_PYTHON();
#ifdef GRAPHGEN_PYTHON_EXECUTABLE
  const fs::path script = test::write_temp("args.py", "import sys\nprint(repr(sys.argv[1:]))\n");
  auto r = graphgen({"run", "-o", (test::temp_dir() / "args.pstats").string(), script.string(), "", "-T", "x"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "['', '-T', 'x']\n");
#endif
}

TEST(Run, AModuleRunsAsPythonDashMDoes) {
  SKIP_WITHOUT_PYTHON();
#ifdef GRAPHGEN_PYTHON_EXECUTABLE
  fs::path dir = test::temp_dir();
  auto r = run_python({"-m", "demo_module", "300"}, dir / "run.dot");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // sys.argv[0] is the module's file, as under python3 -m.
  EXPECT_EQ(r.out, "True 43171\n");
  // The module's own functions are cProfile's; runpy's frames differ (graphgen
  // runs the module as python3 -m does, cProfile without alter_sys).
  auto keep = [](const std::multiset<std::string>& all) {
    std::multiset<std::string> out;
    for (const std::string& s : all)
      if (s.find("runpy") == std::string::npos && s.find("<frozen") == std::string::npos &&
          s.find("_ModifiedArgv0") == std::string::npos && s.find("_TempModule") == std::string::npos &&
          s.find("sys.") == std::string::npos && s.find("builtins.") == std::string::npos &&
          s.find("~:0:") == std::string::npos)
        out.insert(s);
    return out;
  };
  auto want = keep(structure(through_a_file({"-m", "demo_module", "300"}, dir)));
  auto got = keep(structure(test::read_file(dir / "run.dot")));
  EXPECT_TRUE(got.count("node demo_module:7:squares 1")) << differences(want, got);
  EXPECT_EQ(differences(want, got), "");
#endif
}

TEST(Run, AnUncaughtExceptionIsPrintedAsPythonPrintsItAndTheProfileWritten) {
  SKIP_WITHOUT_PYTHON();
#ifdef GRAPHGEN_PYTHON_EXECUTABLE
  fs::path dir = test::temp_dir();
  auto r = run_python({"raises.py"}, dir / "run.dot");
  EXPECT_EQ(r.exit_code, 1);
  auto python = test::run({GRAPHGEN_PYTHON_EXECUTABLE, "raises.py"}, scripts());
  // The same traceback as python3 raises.py prints, but for the file name as
  // given (python3 makes a script's path absolute).
  std::string expected = std::regex_replace(python.err, std::regex(R"re("/[^"]*/raises\.py")re"), "\"raises.py\"");
  EXPECT_EQ(r.err, expected);
  EXPECT_TRUE(r.err.starts_with("Traceback (most recent call last):\n  File \"raises.py\", line 15, in <module>"))
      << r.err;
  EXPECT_TRUE(r.err.ends_with("ValueError: no more work\n")) << r.err;
  auto got = structure(test::read_file(dir / "run.dot"));
  EXPECT_TRUE(got.count("node raises:4:inner 4")) << differences({}, got);
#endif
}

TEST(Run, SystemExitKeepsItsStatus) {
  SKIP_WITHOUT_PYTHON();
#ifdef GRAPHGEN_PYTHON_EXECUTABLE
  fs::path dir = test::temp_dir();
  auto r = run_python({"exits.py"}, dir / "run.dot");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.err, "");
  EXPECT_TRUE(structure(test::read_file(dir / "run.dot")).count("node exits:5:leave 1"));
#endif
}

TEST(Run, ThreadsProcessesAndNumpyWork) {
  SKIP_WITHOUT_PYTHON();
#ifdef GRAPHGEN_PYTHON_EXECUTABLE
  fs::path dir = test::temp_dir();
  struct Case {
    std::vector<std::string> args;
    std::string output, function;
  };
  for (const Case& c : std::vector<Case>{{{"threads.py"}, "threads done\n", "node threads:5:spin 1"},
                                         {{"processes.py", "fork"}, "fork 328350\n", "node processes:10:main 1"},
                                         {{"processes.py", "spawn"}, "spawn 328350\n", "node processes:10:main 1"}}) {
    SCOPED_TRACE(c.args.back());
    auto r = run_python(c.args, dir / "run.dot");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, c.output);
    EXPECT_TRUE(structure(test::read_file(dir / "run.dot")).count(c.function)) << test::read_file(dir / "run.dot");
  }
  auto numpy = test::run({GRAPHGEN_PYTHON_EXECUTABLE, "-c", "import numpy"});
  if (numpy.exit_code != 0) GTEST_SKIP() << "numpy (python3-numpy) is not installed";
  auto r = run_python({"with_numpy.py"}, dir / "run.dot");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "21081693\n");
  std::string dot = test::read_file(dir / "run.dot");
  EXPECT_NE(dot.find("with_numpy:5:compute"), std::string::npos);
  EXPECT_NE(dot.find("numpy"), std::string::npos);  // numpy's own functions, called from compute
#endif
}

TEST(Run, KCacheGrindOpensTheCallgrindOutput) {
  SKIP_WITHOUT_PYTHON();
#ifdef GRAPHGEN_PYTHON_EXECUTABLE
  fs::path dir = test::temp_dir();
  fs::create_directory(dir / "bin");
  // A stand-in viewer that records what it was given.
  std::ofstream(dir / "bin" / "qcachegrind")
      << "#!/bin/sh\ncp \"$1\" \"" << (dir / "seen.callgrind").string() << "\"\n";
  fs::permissions(dir / "bin" / "qcachegrind", fs::perms::owner_all);
  std::string path = (dir / "bin").string() + ":/usr/bin:/bin";
  auto r = graphgen({"run", "-k", "exits.py"}, scripts(), {"PATH=" + path, "TMPDIR=" + dir.string()});
  EXPECT_EQ(r.exit_code, 3);  // the program's status stands
  std::string seen = test::read_file(dir / "seen.callgrind");
  EXPECT_TRUE(seen.starts_with("# callgrind format")) << seen.substr(0, 100);
  EXPECT_NE(seen.find("leave"), std::string::npos);
  // The temporary file is gone once the viewer is done with it (it stayed).
  auto left = [&] {
    std::size_t n = 0;
    for (const auto& e : fs::directory_iterator(dir))
      n += e.path().extension() == ".callgrind" && e.path() != dir / "seen.callgrind";
    return n;
  };
  EXPECT_EQ(left(), 0u);
  // A viewer that fails (no display): said, and the profile kept (it
  // exited 1 without a word).
  std::ofstream(dir / "bin" / "qcachegrind", std::ios::trunc) << "#!/bin/sh\nexit 1\n";
  auto failed = graphgen({"run", "-k", "work.py", "3"}, scripts(), {"PATH=" + path, "TMPDIR=" + dir.string()});
  EXPECT_EQ(failed.exit_code, 1);
  EXPECT_NE(failed.err.find("/bin/qcachegrind exited with status 1 (is there a display? DISPLAY is "),
            std::string::npos)
      << failed.err;
  EXPECT_NE(failed.err.find("; the profile is in " + dir.string() + "/graphgen-"), std::string::npos) << failed.err;
  EXPECT_EQ(left(), 1u);
  // Without a viewer: where the profile is, and how to get one.
  auto none =
      graphgen({"run", "-k", "-o", (dir / "p.callgrind").string(), "work.py", "3"}, scripts(), {"PATH=/nonexistent"});
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.err.find("-k: neither kcachegrind nor qcachegrind is on PATH (apt-get install kcachegrind); the "
                          "profile is in " +
                          (dir / "p.callgrind").string()),
            std::string::npos)
      << none.err;
  auto png = graphgen({"run", "-k", "-o", "x.png", "exits.py"}, scripts());
  EXPECT_EQ(png.exit_code, 2);
  EXPECT_NE(png.err.find("-k opens KCacheGrind on callgrind output"), std::string::npos) << png.err;
#endif
}

// --memory: tracemalloc instead of cProfile, its snapshot at the end read
// as a snapshot file is. Python's own tracemalloc, run on the same script
// by the same CPython, is the oracle for the program's biggest line (a few
// small objects differ with how the script is started).
TEST(Run, MemoryGivesTheSnapshotOfWhatTheProgramHolds) {
#ifdef GRAPHGEN_PYTHON_EXECUTABLE
  auto stats = graphgen({"run", "--memory", "-T", "stats", "-o", "-", "--top", "1", "memory.py"}, scripts());
  ASSERT_EQ(stats.exit_code, 0) << stats.err;
  auto python = test::run({GRAPHGEN_PYTHON_EXECUTABLE, "-c",
                           "import tracemalloc\n"
                           "tracemalloc.start(25)\n"
                           "exec(compile(open('memory.py').read(), 'memory.py', 'exec'), {'__name__': '__main__'})\n"
                           "print(tracemalloc.take_snapshot().statistics('lineno')[0])\n"},
                          scripts());
  ASSERT_EQ(python.exit_code, 0) << python.err;
  std::smatch ours, theirs;
  const std::regex line(R"re(^memory\.py:6: size=(\d+) KiB, count=(\d+), average=\d+ B\n$)re");
  ASSERT_TRUE(std::regex_match(stats.out, ours, line)) << stats.out;
  ASSERT_TRUE(std::regex_match(python.out, theirs, line)) << python.out;
  EXPECT_NEAR(std::stod(ours[1]), std::stod(theirs[1]), std::stod(theirs[1]) * 0.01);
  EXPECT_NEAR(std::stod(ours[2]), std::stod(theirs[2]), std::stod(theirs[2]) * 0.01);
  // The stacks start at the program's first frame, named after its functions.
  auto folded = graphgen({"run", "--memory=5", "-T", "folded", "-o", "-", "memory.py"}, scripts());
  ASSERT_EQ(folded.exit_code, 0) << folded.err;
  EXPECT_NE(folded.out.find("\nmemory.py:<module>:17;memory.py:load_rows:6"), std::string::npos) << folded.out;
  EXPECT_NE(folded.out.find("\nmemory.py:<module>:18;memory.py:fill:14;json/__init__.py:dumps:"), std::string::npos);
  EXPECT_EQ(folded.out.find("graphgen run"), std::string::npos);
  // Each said as given: CLI11's integer flags took =0 and =no for -1
  // frames, =yes for 1 frame and =25x for 25.
  for (std::string bad : {"0", "70000", "no", "yes", "25x", "-3", "+5", " 5"}) {
    auto r = graphgen({"run", "--memory=" + bad, "memory.py"}, scripts());
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_EQ(r.err, "graphgen run: error: --memory=" + bad +
                         ": expected 1 to 65535 frames a traceback, as tracemalloc.start takes\n");
  }
#endif
}

TEST(Run, MistakesAreSaidInOneLine) {
  auto none = graphgen({"run", "-o", "x.dot"});
  EXPECT_EQ(none.exit_code, 2);
  // An unknown option before the script is not the script (it was run as
  // one: "can't open file '--nosuch'"); cProfile's optparse says the same.
  for (const char* unknown : {"--nosuch", "-Z"}) {
    auto r = graphgen({"run", "-o", "x.dot", unknown, "exits.py"}, scripts());
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err, "graphgen run: error: no such option: " + std::string(unknown) +
                         " (graphgen run's options come before the script; -- before a script whose name starts with "
                         "-; see graphgen run --help)\n");
  }
#ifdef GRAPHGEN_PYTHON_EXECUTABLE
  EXPECT_EQ(none.err, "graphgen run: error: expected a script (or -m MODULE) to profile, found none\n");
  fs::path dir = test::temp_dir();
  auto missing = graphgen({"run", "-o", (dir / "x.dot").string(), "no_such_script.py"}, dir);
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(missing.err, "graphgen run: can't open file 'no_such_script.py': [Errno 2] No such file or directory\n");
  EXPECT_FALSE(fs::exists(dir / "x.dot"));
  // A module that is not there: Python's one line (it was graphgen's
  // traceback through runpy, and an empty profile written).
  auto module = graphgen({"run", "-m", "no_such_module"}, dir);
  EXPECT_EQ(module.exit_code, 1);
  EXPECT_EQ(module.err, "graphgen run: No module named no_such_module\n");
  EXPECT_FALSE(fs::exists(dir / "no_such_module.pstats"));
  auto package = graphgen({"run", "-o", "-", "-m", "email"}, dir);
  EXPECT_EQ(package.exit_code, 1);
  EXPECT_EQ(package.err,
            "graphgen run: No module named email.__main__; 'email' is a package and cannot be directly executed\n");
  auto onto = graphgen({"run", "-o", "exits.py", "exits.py"}, scripts());
  EXPECT_EQ(onto.exit_code, 2);  // never overwrites the script
  // `--` ends graphgen run's options (it was taken for the script); what
  // follows the script is the script's, options and `--` too.
  auto ended = graphgen({"run", "-o", "-", "-T", "folded", "--", "exits.py", "--", "-Z"}, scripts());
  EXPECT_EQ(ended.exit_code, 3) << ended.err;
  EXPECT_NE(ended.out.find(";exits:5:leave;"), std::string::npos) << ended.out;
  auto module_args = graphgen({"run", "-o", "-", "-T", "stats", "-m", "json.tool", "--nosuch"}, scripts());
  EXPECT_EQ(module_args.exit_code, 2) << module_args.err;  // json.tool's own usage error
  EXPECT_NE(module_args.err.find("unrecognized arguments: --nosuch"), std::string::npos) << module_args.err;
#endif
}

// mpirun -np 4 graphgen run -o 'prof_{rank}.pstats' wrote one file named
// with a literal {rank}: three ranks' profiles were lost without a word.
TEST(Run, UnderMpirunEachRankWritesItsOwnProfile) {
  SKIP_WITHOUT_PYTHON();
#ifdef GRAPHGEN_PYTHON_EXECUTABLE
  fs::path dir = test::temp_dir();
  std::ofstream(dir / "ranked.py") << "import os\n"
                                      "def work(n):\n"
                                      "    return sum(i * i for i in range(n))\n"
                                      "work(20000 * (1 + int(os.environ.get('OMPI_COMM_WORLD_RANK', '0'))))\n";
  auto outside = graphgen({"run", "-o", "prof_{rank}.pstats", "ranked.py"}, dir);
  EXPECT_EQ(outside.exit_code, 2);
  EXPECT_NE(outside.err.find("-o 'prof_{rank}.pstats': {rank} is taken from the MPI launcher"), std::string::npos)
      << outside.err;
  EXPECT_FALSE(fs::exists(dir / "prof_{rank}.pstats"));
  if (test::run({"sh", "-c", "command -v mpirun"}).exit_code != 0)
    GTEST_SKIP() << "mpirun (openmpi-bin) is not installed";
  auto r = test::run({"mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "4", GRAPHGEN_BINARY, "run", "-o",
                      "prof_{rank}_of_{size}.pstats", "ranked.py"},
                     dir, {"OMPI_MCA_rmaps_base_oversubscribe=1"}, 120);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (int rank = 0; rank < 4; ++rank) {
    fs::path p = dir / ("prof_" + std::to_string(rank) + "_of_4.pstats");
    ASSERT_TRUE(fs::exists(p)) << p;
    // Each is the profile of its own rank: work() ran once, over its own n.
    auto py = test::run({GRAPHGEN_PYTHON_EXECUTABLE, "-c",
                         "import pstats, sys\n"
                         "s = pstats.Stats(sys.argv[1]).stats\n"
                         "print([v[1] for k, v in s.items() if k[2] == 'work'])\n",
                         p.string()});
    ASSERT_EQ(py.exit_code, 0) << py.err;
    EXPECT_EQ(py.out, "[1]\n") << p;
  }
#endif
}

// Without -o the profile goes to a file named after the script (the
// program's standard output is the program's alone: dot was mixed into it),
// and cProfile's -s KEY prints pstats' table when the program ends, as
// python3 -m cProfile -s KEY does (graphgen's -s is --strip elsewhere).
TEST(Run, WithoutOutputAFileNamedAfterTheScriptOrCProfilesTable) {
  SKIP_WITHOUT_PYTHON();
#ifdef GRAPHGEN_PYTHON_EXECUTABLE
  const fs::path dir = test::temp_dir();
  fs::copy_file(scripts() / "work.py", dir / "work.py");
  fs::copy_file(scripts() / "helper.py", dir / "helper.py");
  auto r = graphgen({"run", "work.py", "5"}, dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "total 689841\n");
  EXPECT_EQ(r.err,
            "graphgen run: wrote work.pstats (-o FILE for another name, -o - for standard output); graphgen "
            "work.pstats -o work.png draws it\n");
  auto stats = graphgen({"work.pstats", "-T", "stats", "--sort", "calls", "--top", "1"}, dir);
  EXPECT_NE(stats.out.find(" work.py:15(fib)\n"), std::string::npos) << stats.out;
  auto png = graphgen({"run", "-T", "svg", "-q", "work.py", "5"}, dir);
  ASSERT_EQ(png.exit_code, 0) << png.err;
  EXPECT_EQ(png.out, "total 689841\n");
  EXPECT_TRUE(test::read_file(dir / "work.svg").starts_with("<?xml")) << "the name after the script, -T's ending";
  // cProfile's -s: the table after the program's output, sorted as asked.
  auto sorted = graphgen({"run", "-s", "ncalls", "work.py", "5"}, dir);
  ASSERT_EQ(sorted.exit_code, 0) << sorted.err;
  EXPECT_TRUE(sorted.out.starts_with("total 689841\n")) << sorted.out;
  EXPECT_NE(sorted.out.find("   Ordered by: call count\n"), std::string::npos) << sorted.out;
  auto cprofile = test::run({GRAPHGEN_PYTHON_EXECUTABLE, "-m", "cProfile", "-s", "ncalls", "work.py", "5"}, dir);
  ASSERT_EQ(cprofile.exit_code, 0) << cprofile.err;
  // The first row, the most called function, is cProfile's.
  auto first_row = [](const std::string& out) {
    const std::size_t head = out.find("filename:lineno(function)\n");
    if (head == std::string::npos) return std::string();
    const std::size_t begin = head + 26, end = out.find('\n', begin);
    const std::string row = out.substr(begin, end - begin);
    return row.substr(0, row.find_first_not_of(" 0123456789/")) + row.substr(row.rfind(' ') + 1);
  };
  EXPECT_EQ(first_row(sorted.out), first_row(cprofile.out)) << sorted.out << cprofile.out;
  EXPECT_NE(first_row(sorted.out).find("work.py:15(fib)"), std::string::npos) << sorted.out;
  // cProfile strips the folders off file names (its print_stats calls
  // strip_dirs): helper.py, imported from the script's folder, is
  // helper.py:4(checksum) in both, where graphgen printed its whole path.
  for (const std::string* out : {&sorted.out, &cprofile.out}) {
    EXPECT_NE(out->find(" helper.py:4(checksum)\n"), std::string::npos) << *out;
    EXPECT_EQ(out->find((dir / "helper.py").string()), std::string::npos) << *out;
  }
  // --strip is still there, by its long name.
  auto strip = graphgen({"run", "--strip", "-o", "-", "work.py", "5"}, dir);
  EXPECT_EQ(strip.exit_code, 0) << strip.err;
#endif
}

// graphgen run started every program on Debian's /usr/bin/python3: a module
// only the active venv had gave ModuleNotFoundError where python3 -m cProfile
// worked. A venv is a pyvenv.cfg, a bin/python3 linked to its base and a
// site-packages: made here by hand around the embedded Python.
TEST(Run, TheActiveVenvsPackagesAreSeen) {
  SKIP_WITHOUT_PYTHON();
#ifdef GRAPHGEN_PYTHON_EXECUTABLE
  auto version = test::run({GRAPHGEN_PYTHON_EXECUTABLE, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"});
  ASSERT_EQ(version.exit_code, 0);
  const std::string v = version.out.substr(0, version.out.find('\n'));
  const fs::path dir = test::temp_dir();
  auto make_venv = [&](const fs::path& venv, const std::string& says) {
    fs::create_directories(venv / "bin");
    fs::create_directories(venv / "lib" / ("python" + v) / "site-packages");
    fs::create_symlink(GRAPHGEN_PYTHON_EXECUTABLE, venv / "bin" / "python3");
    std::ofstream(venv / "pyvenv.cfg") << "home = " << fs::path(GRAPHGEN_PYTHON_EXECUTABLE).parent_path().string()
                                       << "\ninclude-system-site-packages = false\nversion = " << says << "\n";
    std::ofstream(venv / "lib" / ("python" + v) / "site-packages" / "onlyvenv.py") << "WHERE = 'the venv'\n";
  };
  make_venv(dir / "venv", v + ".0");
  std::ofstream(dir / "app.py") << "import sys, onlyvenv\nprint(onlyvenv.WHERE, sys.prefix == sys.exec_prefix)\n";
  // Activated (VIRTUAL_ENV), or only first on PATH: the venv's Python.
  for (const std::vector<std::string>& env : {std::vector<std::string>{"VIRTUAL_ENV=" + (dir / "venv").string()},
                                              {"PATH=" + (dir / "venv" / "bin").string() + ":/usr/bin:/bin"}}) {
    SCOPED_TRACE(env[0]);
    auto r = graphgen({"run", "-o", (dir / "p.pstats").string(), "app.py"}, dir, env);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "the venv True\n");
    EXPECT_EQ(r.err, "");
  }
  // A venv of another Python cannot run here: said in one line, and the
  // program runs on graphgen's own Python, without the venv's packages.
  make_venv(dir / "old", "2.7.18");
  auto other =
      graphgen({"run", "-o", (dir / "q.pstats").string(), "app.py"}, dir, {"VIRTUAL_ENV=" + (dir / "old").string()});
  EXPECT_EQ(other.exit_code, 1);
  EXPECT_TRUE(other.err.starts_with("graphgen run: the active virtualenv's Python (" + (dir / "old").string() +
                                    "/bin/python3) is Python 2.7, and graphgen runs programs on the Python " + v +
                                    " it embeds"))
      << other.err;
  EXPECT_NE(other.err.find("ModuleNotFoundError: No module named 'onlyvenv'"), std::string::npos) << other.err;
  fs::remove_all(dir);
#endif
}

// Another installation of the embedded version (pyenv's 3.11.7 beside
// Debian's 3.11.2) first on PATH: the program ran with that prefix but with
// the modules frozen into graphgen's libpython, whose Debian `site` looked
// for dist-packages there, so that Python's site-packages were not on
// sys.path (ModuleNotFoundError where `python3 -m cProfile` worked). Made
// here as a copy of the embedded executable with its own lib/pythonX.Y: the
// standard library's files linked, its own site.py putting its
// site-packages on the path.
TEST(Run, AnotherInstallOfThisVersionRunsOnItsOwnStandardLibrary) {
  SKIP_WITHOUT_PYTHON();
#ifdef GRAPHGEN_PYTHON_EXECUTABLE
  auto where = test::run({GRAPHGEN_PYTHON_EXECUTABLE, "-c",
                          "import sys, sysconfig; print('%d.%d' % sys.version_info[:2]); "
                          "print(sysconfig.get_path('stdlib'))"});
  ASSERT_EQ(where.exit_code, 0);
  std::istringstream lines(where.out);
  std::string v, stdlib;
  std::getline(lines, v);
  std::getline(lines, stdlib);
  const fs::path dir = test::temp_dir() / "other-install";
  fs::remove_all(dir);
  const fs::path lib = dir / "lib" / ("python" + v);
  fs::create_directories(dir / "bin");
  fs::create_directories(lib / "site-packages");
  fs::copy_file(GRAPHGEN_PYTHON_EXECUTABLE, dir / "bin" / "python3");  // (a copy: its prefix is dir)
  for (const auto& e : fs::directory_iterator(stdlib))
    if (e.path().filename() != "site.py" && e.path().filename() != "site-packages")
      fs::create_symlink(e.path(), lib / e.path().filename());
  std::ofstream(lib / "site.py") << "import sys\nsys.path.append('" << (lib / "site-packages").string() << "')\n";
  std::ofstream(lib / "site-packages" / "onlyhere.py") << "WHERE = 'its site-packages'\n";
  std::ofstream(dir / "app.py") << "import onlyhere\nprint(onlyhere.WHERE)\n";
  auto r = graphgen({"run", "-o", (dir / "p.pstats").string(), "app.py"}, dir,
                    {"PATH=" + (dir / "bin").string() + ":/usr/bin:/bin"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "its site-packages\n");
  EXPECT_EQ(r.err, "");
  fs::remove_all(dir);
#endif
}

// libpython is loaded with graphgen's Python module on first use (embed.h):
// a graph of a profile does not load it, `graphgen run` does (the dynamic
// loader's own account of the files it opens).
TEST(Run, LibpythonIsLoadedOnlyWhenPythonRuns) {
  SKIP_WITHOUT_PYTHON();
  const fs::path dir = test::temp_dir();
  auto graph = graphgen({(test::testdata_dir() / "demo.pstats").string(), "-o", (dir / "g.dot").string()}, {},
                        {"LD_DEBUG=files"});
  EXPECT_EQ(graph.exit_code, 0) << graph.err;
  EXPECT_NE(graph.err.find("file=libstdc++"), std::string::npos) << "(LD_DEBUG gave no account)";
  EXPECT_EQ(graph.err.find("libpython"), std::string::npos);
  EXPECT_EQ(graph.err.find("graphgen-python.so"), std::string::npos);
  auto run = graphgen({"run", "-q", "-T", "stats", "-o", (dir / "w.txt").string(), "work.py", "2"}, scripts(),
                      {"LD_DEBUG=files"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("graphgen-python.so"), std::string::npos);
  EXPECT_NE(run.err.find("libpython"), std::string::npos);
}

}  // namespace
}  // namespace graphgen::run_test
