// The command line as users meet it: exit codes, one-line errors naming the
// file and offset, no half-written outputs, --help, stdin, and in-process
// rendering with no `dot` program on the PATH.
#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "options.h"
#include "registry.h"
#include "util/test_util.h"

namespace graphgen::cli_test {
namespace {

namespace fs = std::filesystem;
using test::graphgen;

std::size_t count_lines(const std::string& s) {
  std::size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

// testdata/bad/<format>/: malformed inputs of each reader, each with the
// exact one-line error in NAME.expected, read with -f <format>. Each says
// where, as every error must: `file:line:col: ` or `file:+0xOFF: ` (an
// archive's member named after the archive, with its own position).
TEST(Cli, EveryBadInputGivesExitOneAndItsExactMessage) {
  const std::regex positioned(R"(^[^\n]*?:([0-9]+:[0-9]+|\+0x[0-9a-f]+): )");
  std::set<std::string> readers;
  int checked = 0;
  for (const auto& dir : fs::directory_iterator(test::testdata_dir() / "bad")) {
    if (!dir.is_directory()) continue;
    const std::string format = dir.path().filename().string();
    ASSERT_NE(formats::find_input_format(format), nullptr) << dir.path() << " names no input format";
    for (const auto& entry : fs::directory_iterator(dir.path())) {
      fs::path expected = entry.path();
      if (expected.extension() != ".expected") continue;
      fs::path input;
      for (const auto& candidate : fs::directory_iterator(dir.path()))
        if (candidate.path().stem() == expected.stem() && candidate.path().extension() != ".expected")
          input = candidate.path();
      ASSERT_FALSE(input.empty()) << expected;
      fs::path out = test::temp_dir() / "out.dot";
      auto r = graphgen({"-f", format, input.filename().string(), "-o", out.string()}, dir.path());
      SCOPED_TRACE(format + "/" + input.filename().string());
      EXPECT_EQ(r.exit_code, 1);
      EXPECT_EQ(r.err, test::read_file(expected));
      EXPECT_EQ(count_lines(r.err), 1u);
      EXPECT_TRUE(std::regex_search(r.err, positioned)) << "no position: " << r.err;
      EXPECT_FALSE(fs::exists(out)) << "no output file may be left behind";
      readers.insert(format);
      ++checked;
    }
  }
  EXPECT_GE(checked, 40);
  EXPECT_EQ(readers.size(), formats::input_formats().size()) << "every reader has its bad inputs";
}

TEST(Cli, UnrecognisedBytesAskForAFormat) {
  std::string formats;
  for (std::string_view f : formats::input_format_names()) formats += (formats.empty() ? "" : ", ") + std::string(f);
  auto r = graphgen({"not-a-profile.txt"}, test::testdata_dir() / "bad" / "pstats");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "not-a-profile.txt:+0x0: cannot tell the profile format from the first bytes 'hello, this is n'; "
            "give it with -f (supported: " +
                formats + ")\n");
  r = graphgen({"empty.pstats"}, test::testdata_dir() / "bad" / "pstats");
  EXPECT_EQ(r.err, "empty.pstats:1:1: expected a profile, found an empty file\n");
}

// The files people give by mistake (the heads of real ones: perf 6.1's
// perf.data and perf report, glibc's gmon.out, valgrind 3.19's massif,
// heaptrack 1.4's data once unpacked, and those below) are named, with what
// to give instead, of the file's first byte (every error has a position).
TEST(Cli, FilesGivenByMistakeSayWhatToGiveInstead) {
  const struct {
    const char* name;
    std::string bytes;
    const char* says;
  } cases[] = {
      {"perf.data", std::string("PERFILE2h\0\0\0\0\0\0\0", 16) + std::string(200, '\0'),
       "this is perf's binary recording (perf.data), not its samples as text; give graphgen what perf script "
       "prints (perf script -i "},
      {"gmon.out", std::string("gmon\1\0\0\0\0\0\0\0\0\0\0\0", 16) + std::string(200, '\1'),
       "this is gprof's binary data (gmon.out), not its report; give graphgen what gprof prints (gprof PROGRAM "},
      {"report.txt",
       "# To display the perf.data header info, please use --header/--header-only options.\n#\n#\n"
       "# Total Lost Samples: 0\n#\n# Samples: 430  of event 'cpu-clock:ppp'\n#\n"
       "# Children      Self  Command  Shared Object      Symbol\n",
       "this is the table perf report prints, not the samples; give graphgen what perf script prints"},
      {"massif.out.1",
       "desc: --massif-out-file=massif.out.1\ncmd: xz -dc in.xz\ntime_unit: i\n#-----------\nsnapshot=0\n",
       "this is valgrind massif's heap profile, which graphgen does not read (ms_print shows it)"},
      {"heaptrack.data", "v 10400 3\nX xz -dc in.xz\ns 5 xz\n",
       "this is heaptrack's data, which graphgen does not read; give it the stacks heaptrack_print writes for "
       "flame graphs (heaptrack_print -f "},
      // gperftools 2.10's CPUPROFILE output (8-byte words: 0, 3, 0, a period
      // of 1000 µs, 0, then samples) and its 32-bit form; its HEAPPROFILE
      // output; valgrind 3.19's DHAT; node 18's --prof log; bpftrace 0.17's
      // print of @[ustack].
      {"cpu.gperf",
       std::string("\0\0\0\0\0\0\0\0\3\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\xe8\3\0\0\0\0\0\0", 32) + std::string(8, '\0') +
           std::string("\1\0\0\0\0\0\0\0\5\0\0\0\0\0\0\0\xc4\xe8\xdb\xf2\xfe\x55\0\0", 24),
       "this is gperftools' CPU profile, which holds addresses only; give graphgen what pprof makes of it with "
       "the program's symbols (google-pprof --collapsed PROGRAM "},
      {"cpu32.gperf", std::string("\0\0\0\0\3\0\0\0\0\0\0\0\x10\x27\0\0\0\0\0\0", 20) + std::string(40, '\1'),
       "this is gperftools' CPU profile, which holds addresses only"},
      {"prog.0001.heap",
       "heap profile:      1:     4096 [2845802: 142421792] @ heapprofile\n"
       "     1:     4096 [     1:     4096] @ 0x7f66394938cc 0x7f66394a10a0 0x55e924f46541\n",
       "this is a heap profile as gperftools writes it, which holds addresses only; give graphgen the stacks its "
       "pprof names with the program's symbols (google-pprof --collapsed PROGRAM "},
      {"dhat.out.9309", "{\"dhatFileVersion\":2\n,\"mode\":\"heap\",\"verb\":\"Allocated\"\n,\"bklt\":true\n",
       "this is valgrind DHAT's heap profile, which graphgen does not read (DHAT's dh_view.html shows it)"},
      {"bpftrace.txt",
       "Attaching 1 probe...\n\n\n@[\n    0x7fec2b798bb4\n    0x7fec2ba61860\n]: 1\n@[\n    0x7fec2b7af848\n]: 1\n",
       "this is bpftrace's print of a map of stacks, which graphgen does not read; give it the stacks "
       "FlameGraph's stackcollapse-bpftrace.pl folds from it"},
      {"isolate-0x9e45ee0-11208-v8.log",  // node 18's --prof
       "v8-version,11,3,244,8,-node.38,0\nv8-platform,linux,linux\nshared-library,/usr/bin/node,0x400000,0xb71000,0\n",
       "this is V8's log of ticks (node --prof), which graphgen does not read; record node's CPU profile instead "
       "(node --cpu-prof) and give graphgen its .cpuprofile"},
      {"offcpu.bt", "@stacks[\n    finish_task_switch+1\n    schedule+60\n, xz]: 12\n",
       "this is bpftrace's print of a map of stacks"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const fs::path file = test::write_temp(c.name, c.bytes);
    auto r = graphgen({file.string()});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_TRUE(r.err.starts_with(file.string() + ":+0x0: " + c.says)) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

TEST(Cli, MissingInputIsOneLine) {
  auto r = graphgen({"/nonexistent/x.pstats"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "/nonexistent/x.pstats: cannot open: No such file or directory\n");
}

TEST(Cli, BadUsageExitsTwo) {
  fs::path demo = test::testdata_dir() / "demo.pstats";
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"--no-such-option", demo},
           {"-f", "yaml", demo},
           {"-T", "bmp", demo},
           {"-c", "rainbow", demo},
           {"-n", "-1", demo},
           {"--node-label", "size", demo},
           {"--skew", "-1", demo},
           {"--time-format", "%q", demo},
       }) {
    auto r = graphgen(args);
    SCOPED_TRACE(args[0]);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(count_lines(r.err), 1u) << r.err;
    EXPECT_TRUE(r.err.starts_with("graphgen: error: ")) << r.err;
  }
}

// A flag takes no value. CLI11 takes `--timings=false` (and =0, =no), and
// the flag was on whatever the value said: `--timings=false` printed the
// timings. Each value but "true" is now the usage error the Python module
// gives for timings="no" (gprof2dot's argparse refuses every value), in
// every front end, for every flag.
TEST(Cli, AFlagGivenAValueIsAUsageError) {
  const std::string demo = (test::testdata_dir() / "demo.pstats").string();
  const fs::path dir = test::temp_dir() / "flag-value";
  fs::create_directories(dir);
  std::size_t checked = 0;
  for (const pipeline::OptionSpec& spec : pipeline::option_specs()) {
    if (spec.kind != pipeline::OptionKind::kFlag) continue;
    for (pipeline::FrontEnd front_end : {pipeline::kGraphgen, pipeline::kRun}) {
      if (!(spec.front_ends & front_end)) continue;
      const std::string name = spec.name_list(front_end).back();  // its long name
      for (const char* value : {"false", "0"}) {
        std::vector<std::string> args = {demo, name + "=" + value, "-o", "out.dot"};
        if (front_end == pipeline::kRun) args = {"run", name + "=" + value, "-o", "out.pstats", "never_run.py"};
        SCOPED_TRACE(args[0] + " " + args[1]);
        auto r = graphgen(args, dir);
        EXPECT_EQ(r.exit_code, 2);
        EXPECT_EQ(r.err, std::string(front_end == pipeline::kRun ? "graphgen run" : "graphgen") + ": error: --" +
                             spec.key + ": expected no value (a flag), found '" + value + "'\n");
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 30u);
  EXPECT_TRUE(fs::is_empty(dir)) << "nothing written, nothing run";
  // "true", as the Python module takes it, and a flag given twice, as
  // argparse takes it, are the flag.
  auto bare = graphgen({demo, "-T", "stats", "--timings"});
  auto with_true = graphgen({demo, "-T", "stats", "--timings=true", "--timings"});
  EXPECT_EQ(bare.exit_code, 0);
  EXPECT_EQ(with_true.exit_code, 0);
  EXPECT_EQ(bare.out, with_true.out);
  EXPECT_NE(with_true.err.find("peak"), std::string::npos) << with_true.err;
}

// An option given twice takes its last value, as gprof2dot's argparse
// does (an alias's `-n 1`, then the command's `-n 2`): CLI11 refused it
// with "At Most 1 required but received 2".
TEST(Cli, AnOptionGivenTwiceTakesTheLastValue) {
  const std::string demo = (test::testdata_dir() / "demo.pstats").string();
  auto last = graphgen({demo, "-n", "50", "-e", "40", "-n", "0", "-e", "0"});
  auto only = graphgen({demo, "-n", "0", "-e", "0"});
  auto first = graphgen({demo, "-n", "50", "-e", "40"});
  ASSERT_EQ(last.exit_code, 0) << last.err;
  EXPECT_EQ(last.out, only.out);
  EXPECT_NE(last.out, first.out);
  const fs::path dir = test::temp_dir() / "given-twice";
  fs::create_directories(dir);
  auto outputs = graphgen({demo, "-o", "a.dot", "-T", "stats", "-o", "b.stats"}, dir);
  ASSERT_EQ(outputs.exit_code, 0) << outputs.err;
  EXPECT_FALSE(fs::exists(dir / "a.dot"));
  EXPECT_NE(test::read_file(dir / "b.stats").find("function calls"), std::string::npos);
}

// An empty argument, as an unset variable gives (`graphgen "$IN" -T stats`,
// `-o "$OUT"`), is a usage error naming it. It was taken for
// pyprof2calltree's --outfile (which has no short name) and the next
// argument for its value: `graphgen x.pstats '' -T stats` read "stats" as
// a profile and was to write a callgrind file named "-T"; `-o ''` said
// ": cannot write".
// An option's empty value is still that option's error.
TEST(Cli, AnEmptyArgumentIsAUsageError) {
  const std::string demo = (test::testdata_dir() / "demo.pstats").string();
  const fs::path dir = test::temp_dir() / "empty-argument";
  fs::create_directories(dir);
  auto positional = graphgen({demo, "", "-T", "stats"}, dir);
  EXPECT_EQ(positional.exit_code, 2);
  EXPECT_EQ(positional.err,
            "graphgen: error: argument 2: expected a file name or an option, found '' (an unset variable?) (see "
            "graphgen --help)\n");
  EXPECT_TRUE(fs::is_empty(dir)) << "nothing written";
  auto first = graphgen({"", "-n", "3", demo});
  EXPECT_EQ(first.exit_code, 2);
  EXPECT_TRUE(first.err.starts_with("graphgen: error: argument 1: expected a file name")) << first.err;
  auto output = graphgen({demo, "-o", ""});
  EXPECT_EQ(output.exit_code, 2);
  EXPECT_EQ(output.err, "graphgen: error: --output: expected a file name (or - for standard output), found ''\n");
  auto to = graphgen({demo, "-T", ""});
  EXPECT_EQ(to.exit_code, 2);
  EXPECT_TRUE(to.err.starts_with("graphgen: error: --to: expected one of dot, ")) << to.err;
  EXPECT_TRUE(to.err.ends_with(", found ''\n")) << to.err;
}

// Long options as a text lists them: "--name" followed by a space, comma,
// '=', '`' or ']'.
std::set<std::string> long_options(const std::string& text) {
  std::set<std::string> out;
  for (std::size_t i = text.find("--"); i != std::string::npos; i = text.find("--", i + 2)) {
    if (i > 0 && text[i - 1] != ' ' && text[i - 1] != ',' && text[i - 1] != '`' && text[i - 1] != '[') continue;
    std::size_t j = i + 2;
    while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '-')) ++j;
    if (j > i + 2 && std::isalpha(static_cast<unsigned char>(text[i + 2]))) out.insert(text.substr(i, j - i));
  }
  return out;
}

TEST(Cli, TheFrontEndsNameNoFormat) {
  // Formats live in formats/registry.cc; the command line, graphgen run and
  // graphgen-mpi only map options to a request (docs/developing.md, "Adding
  // an input or output format"), so no source under tools/ spells a format's name.
  const std::regex named("\"(perf|callgrind|pstats|lprof|collapse)\"");
  std::size_t files = 0;
  for (const auto& e : fs::recursive_directory_iterator(test::source_dir() / "tools")) {
    if (e.path().extension() != ".cc" && e.path().extension() != ".h") continue;
    ++files;
    std::string text = test::read_file(e.path());
    std::smatch m;
    EXPECT_FALSE(std::regex_search(text, m, named)) << e.path() << " names " << m.str();
  }
  EXPECT_GT(files, 5u);
}

// --help, --help-all, graphgen run's and graphgen-mpi's: at most 100
// columns (51 lines were wider); --help shows the most used options and
// says how to see the rest, --help-all every one of them, by group.
TEST(Cli, HelpFitsOneHundredColumns) {
  std::vector<std::vector<std::string>> helps = {{"--help"}, {"--help-all"}, {"run", "--help"}, {"run", "--help-all"}};
  for (const auto& args : helps) {
    auto r = graphgen(args);
    SCOPED_TRACE(args.back());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::istringstream in(r.out);
    std::size_t lines = 0;
    for (std::string line; std::getline(in, line); ++lines) {
      std::size_t columns = 0;
      for (unsigned char c : line) columns += (c & 0xC0) != 0x80;
      EXPECT_LE(columns, 100u) << line;
    }
    EXPECT_GT(lines, 20u);
  }
  auto brief = graphgen({"--help"}), all = graphgen({"--help-all"});
  EXPECT_NE(brief.out.find("more options: graphgen --help-all lists every option, by group."), std::string::npos)
      << brief.out;
  EXPECT_LT(long_options(brief.out).size(), long_options(all.out).size());
  for (const char* group : {"Input and output:", "The call graph:", "Selecting functions and stacks:"})
    EXPECT_NE(all.out.find(group), std::string::npos) << group;
  for (const char* common : {"--output", "--to", "--node-thres", "--root", "--compare"})
    EXPECT_NE(brief.out.find(common), std::string::npos) << common;
}

// A PNG written to a terminal was noise that could leave it in a strange
// state, without a word: refused before any work, with the way out; a pipe
// still gets it.
TEST(Cli, BinaryOutputIsNotWrittenToATerminal) {
  if (test::run({"sh", "-c", "command -v script"}).exit_code != 0) GTEST_SKIP() << "script (bsdutils) is not installed";
  const std::string demo = (test::testdata_dir() / "demo.pstats").string();
  for (const char* format : {"png", "pstats"}) {
    SCOPED_TRACE(format);
    auto tty = test::run(
        {"script", "-qec", std::string("'") + GRAPHGEN_BINARY + "' '" + demo + "' -T " + format, "/dev/null"});
    EXPECT_EQ(tty.exit_code, 2) << tty.out;
    EXPECT_NE(tty.out.find(std::string("graphgen: error: ") + format +
                           " output is binary and standard output is a terminal: write it to a file (-o out." + format +
                           ") or pipe it"),
              std::string::npos)
        << tty.out;
    auto piped = graphgen({demo, "-T", format});
    EXPECT_EQ(piped.exit_code, 0) << piped.err;
    EXPECT_GT(piped.out.size(), 100u);
  }
  // Text goes to the terminal as ever.
  auto dot = test::run({"script", "-qec", std::string("'") + GRAPHGEN_BINARY + "' '" + demo + "'", "/dev/null"});
  EXPECT_EQ(dot.exit_code, 0);
  EXPECT_NE(dot.out.find("digraph {"), std::string::npos);
}

// graphgen --completion bash|zsh: the scripts cmake --install puts where the
// shells look. bash's is driven as bash-completion drives it: -T <TAB>
// offers the output formats, -c the colour maps, --no-<TAB> --no-python,
// `graphgen run -<TAB>` run's own options; zsh's must at least parse.
TEST(Cli, ShellCompletionOffersFormatsAndOptions) {
  const fs::path dir = test::temp_dir();
  auto bash_script = graphgen({"--completion", "bash"});
  ASSERT_EQ(bash_script.exit_code, 0) << bash_script.err;
  std::ofstream(dir / "graphgen.bash") << bash_script.out;
  auto complete = [&](const std::string& words, int cword) {
    auto r = test::run({"bash", "-c",
                        "source '" + (dir / "graphgen.bash").string() + "'; COMP_WORDS=(" + words + "); COMP_CWORD=" +
                            std::to_string(cword) + "; _graphgen; printf '%s\\n' \"${COMPREPLY[@]}\""});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out;
  };
  const std::string formats = complete("graphgen -T ''", 2);
  for (const formats::OutputFormat& f : formats::output_formats())
    EXPECT_NE(formats.find(std::string(f.name) + "\n"), std::string::npos) << f.name;
  EXPECT_EQ(complete("graphgen -c ''", 2), "bw\ncolor\ngray\npink\nprint\n");
  EXPECT_EQ(complete("graphgen --no-py", 1), "--no-python\n");
  const std::string run = complete("graphgen run --mo", 2);
  EXPECT_EQ(run, "--module\n");
  EXPECT_EQ(complete("graphgen run --no-py", 2), "\n");  // (perf's: not graphgen run's)
  auto zsh_script = graphgen({"--completion", "zsh"});
  ASSERT_EQ(zsh_script.exit_code, 0);
  EXPECT_TRUE(zsh_script.out.starts_with("#compdef graphgen\n"));
  if (test::run({"sh", "-c", "command -v zsh"}).exit_code == 0) {
    std::ofstream(dir / "_graphgen") << zsh_script.out;
    auto parsed = test::run({"zsh", "-n", (dir / "_graphgen").string()});
    EXPECT_EQ(parsed.exit_code, 0) << parsed.err;
  }
  auto other = graphgen({"--completion", "fish"});
  EXPECT_EQ(other.exit_code, 2);
  EXPECT_EQ(other.err, "graphgen: error: --completion 'fish': expected bash or zsh\n");
}

TEST(Cli, HelpAndTheOptionsDocumentListTheSameOptions) {
  auto r = graphgen({"--help-all"});
  EXPECT_EQ(r.exit_code, 0);
  std::set<std::string> help = long_options(r.out);
  EXPECT_GT(help.size(), 20u);
  auto run = graphgen({"run", "--help-all"});
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_TRUE(long_options(run.out).count("--module"));
  // Its usage comes first (it came last, after 50 options).
  EXPECT_TRUE(run.out.starts_with("Usage: graphgen run [OPTIONS] script.py [ARGS...]\n")) << run.out.substr(0, 200);
  help.merge(long_options(run.out.substr(0, run.out.find("\nExamples:"))));  // not the examples
  // Options of inputs graphgen run never reads are not offered there.
  for (const char* other : {"--format", "--pid", "--merge-by-name", "--imbalance", "--source-root"})
    EXPECT_EQ(run.out.find(std::string(other) + " "), std::string::npos) << other;
  // The tables of docs/options.md (their rows start with "| `-").
  std::string doc = test::read_file(test::source_dir() / "docs" / "options.md");
  std::string table;
  std::istringstream in(doc);
  for (std::string line; std::getline(in, line);)
    if (line.starts_with("| `-") || line.starts_with("| `INPUT")) table += line + "\n";
  std::set<std::string> documented = long_options(table);
  for (const std::string& o : help) EXPECT_TRUE(documented.count(o)) << o << " is in --help but not in docs/options.md";
  for (const std::string& o : documented) EXPECT_TRUE(help.count(o)) << o << " is in docs/options.md but not in --help";
  // The README stays a README.
  std::string readme = test::read_file(test::source_dir() / "README.md");
  EXPECT_LE(std::count(readme.begin(), readme.end(), '\n'), 250);
  EXPECT_TRUE(readme.starts_with("# graphgen\n\n```sh\ntools/dev.sh demo"));
  // Every output format and extension is listed in --help.
  for (const formats::OutputFormat& f : formats::output_formats()) {
    EXPECT_NE(r.out.find(std::string(f.name)), std::string::npos) << f.name;
    for (std::string_view e : f.extensions) EXPECT_NE(r.out.find(std::string(e)), std::string::npos) << e;
  }
  EXPECT_NE(r.out.find("0.5"), std::string::npos);
  EXPECT_NE(r.out.find("%.7g"), std::string::npos);
  auto v = graphgen({"--version"});
  EXPECT_EQ(v.exit_code, 0);
  EXPECT_TRUE(v.out.starts_with("graphgen ")) << v.out;
}

TEST(Cli, ReadsStandardInput) {
  fs::path demo = test::testdata_dir() / "demo.pstats";
  auto direct = graphgen({demo});
  auto piped = test::run({"sh", "-c", std::string("\"$0\" - < \"$1\""), GRAPHGEN_BINARY, demo.string()});
  EXPECT_EQ(piped.exit_code, 0) << piped.err;
  EXPECT_EQ(piped.out, direct.out);
}

// gprof2dot reads standard input when no file is named (`perf script |
// gprof2dot -f perf | dot`, `gprof prog | gprof2dot`); so does graphgen, but
// not from a terminal, where nobody would type a profile.
TEST(Cli, ReadsStandardInputWhenNoInputIsNamed) {
  fs::path perf = test::testdata_dir() / "perf" / "q-g.perf";
  auto named = graphgen({"-f", "perf", perf});
  ASSERT_EQ(named.exit_code, 0) << named.err;
  auto piped = graphgen({"-f", "perf"}, {}, {}, {perf});
  EXPECT_EQ(piped.exit_code, 0) << piped.err;
  EXPECT_EQ(piped.out, named.out);
  fs::path prof = test::testdata_dir() / "prof" / "prog.prof";
  auto detected = graphgen({"-T", "folded"}, {}, {}, {prof});
  EXPECT_EQ(detected.exit_code, 0) << detected.err;
  EXPECT_EQ(detected.out, graphgen({"-T", "folded", prof}).out);
  auto terminal = graphgen({"-f", "perf"}, {}, {}, {.file = {}, .terminal = true});
  EXPECT_EQ(terminal.exit_code, 2);
  EXPECT_EQ(terminal.err,
            "graphgen: error: expected a profile to read (a file, or - for standard input), found none; standard "
            "input is a terminal (see graphgen --help)\n");
  EXPECT_EQ(terminal.out, "");
  // Nothing piped in is an empty input, not a usage error.
  auto empty = graphgen({});
  EXPECT_EQ(empty.exit_code, 1);
  EXPECT_EQ(empty.err, "-:1:1: expected a profile, found an empty file\n");
}

// --timings: one line a phase, its seconds and the peak memory so far,
// which grows (or stays) from phase to phase; the output is unchanged.
TEST(Cli, TimingsGiveEachPhaseItsTimeAndPeakMemory) {
  fs::path demo = test::testdata_dir() / "demo.pstats";
  auto r = graphgen({demo, "--timings"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, graphgen({demo}).out);
  const std::regex line(R"(graphgen: timing: (\w+) +([0-9]+\.[0-9]{3}) s, peak memory ([0-9.]+) (KiB|MiB|GiB)\n)");
  std::vector<std::string> phases;
  double last_peak = 0;
  for (std::sregex_iterator it(r.err.begin(), r.err.end(), line), end; it != end; ++it) {
    phases.push_back((*it)[1]);
    const double scale = (*it)[4] == "KiB" ? 1.0 / 1024 : (*it)[4] == "MiB" ? 1.0 : 1024.0;
    const double peak = std::stod((*it)[3]) * scale;
    EXPECT_GT(peak, 1.0) << r.err;  // a process takes more than 1 MiB
    EXPECT_GE(peak, last_peak) << r.err;
    last_peak = peak;
  }
  EXPECT_EQ(phases, (std::vector<std::string>{"read", "analyse", "write"})) << r.err;
  EXPECT_EQ(count_lines(r.err), 3u) << r.err;
}

// The peak is graphgen's own, not that of the process it was started from
// (getrusage's ru_maxrss keeps it across fork and exec: a 7 MiB run said
// 514 MiB when a Python holding that much started it).
TEST(Cli, TimingsPeakIsThisRunsNotItsParents) {
  std::vector<char> held(std::size_t{256} << 20);
  for (std::size_t i = 0; i < held.size(); i += 4096) held[i] = 1;  // resident, as the parent's
  auto r = graphgen({test::testdata_dir() / "demo.pstats", "--timings", "-o", test::temp_dir() / "d.dot"});
  volatile char keep = held[held.size() / 2];
  (void)keep;
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::regex peak(R"(peak memory ([0-9.]+) (KiB|MiB|GiB))");
  std::size_t lines = 0;
  for (std::sregex_iterator it(r.err.begin(), r.err.end(), peak), end; it != end; ++it, ++lines)
    EXPECT_TRUE((*it)[2] != "GiB" && ((*it)[2] == "KiB" || std::stod((*it)[1]) < 128)) << r.err;
  EXPECT_EQ(lines, 3u) << r.err;
}

// The same for the tests' own measure (test::run()'s peak_kb, which the
// Hostile tests bound): a child forked from a test process holding 256 MiB
// said it had used them, and the whole suite run in one process failed two
// of those tests.
TEST(Cli, TheTestsMeasureAChildsPeakAsItsOwn) {
  std::vector<char> held(std::size_t{256} << 20);
  for (std::size_t i = 0; i < held.size(); i += 4096) held[i] = 1;
  auto r = graphgen({test::testdata_dir() / "demo.pstats", "-o", test::temp_dir() / "d.dot"});
  volatile char keep = held[held.size() / 2];
  (void)keep;
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_GT(r.peak_kb, 1024) << "a process takes more than 1 MiB";
  EXPECT_LT(r.peak_kb, 128 * 1024) << r.peak_kb / 1024 << " MiB";
}

// A run past its timeout ends with what it started (the spawner the
// tests start it through, and the program): nothing is left running.
TEST(Cli, TheTestsTimeoutEndsTheProgramItself) {
  const fs::path dir = test::temp_dir();
  const fs::path mark = dir / "still-running";
  auto r = test::run({"/bin/sh", "-c", "sleep 2; echo > " + mark.string()}, {}, {}, 1);
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.exit_code, 128 + SIGKILL);
  ::sleep(3);
  EXPECT_FALSE(fs::exists(mark)) << "the program outlived its timeout";
}

TEST(Cli, WritesTheOutputFileAtomically) {
  fs::path dir = test::temp_dir();
  fs::path out = dir / "graph.dot";
  auto r = graphgen({test::testdata_dir() / "demo.pstats", "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(test::read_file(out).starts_with("digraph {\n"));
  for (const auto& e : fs::directory_iterator(dir)) EXPECT_EQ(e.path().filename(), "graph.dot");
  auto bad = graphgen({test::testdata_dir() / "demo.pstats", "-o", dir / "missing" / "g.dot"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(count_lines(bad.err), 1u);
  fs::remove_all(dir);
}

// The sanitized build's children of the tests skip LeakSanitizer's check at
// exit (util/test_util.cc) unless asked: here it is asked for, on the
// command line's own paths (each output written to a file, standard input,
// a second input format), so leaks of main's and the pipeline's own are
// still reported there (on stderr, with a failing exit status).
TEST(Cli, LeakCheckedAtExit) {
  const std::vector<std::string> check = {test::asan_options_with("detect_leaks=1")};
  fs::path dir = test::temp_dir(), demo = test::testdata_dir() / "demo.pstats";
  const std::vector<std::pair<std::string, std::string>> outputs = {{"g.dot", "digraph {\n"},
                                                                    {"g.callgrind", "# callgrind format\n"},
                                                                    {"g.pstats", "{"},
                                                                    {"g.html", "<!DOCTYPE html>\n"},
                                                                    {"g.png", "\x89PNG\r\n\x1a\n"},
                                                                    {"g.svg", "<?xml version=\"1"},
                                                                    {"g.flame.svg", "<?xml version=\"1"},
                                                                    {"g.speedscope.json", "{\"$schema\":"}};
  for (const auto& [name, start] : outputs) {
    auto r = graphgen({demo.string(), "-o", (dir / name).string()}, {}, check);
    EXPECT_EQ(r.exit_code, 0) << name << ": " << r.err;
    EXPECT_EQ(r.err.find("LeakSanitizer"), std::string::npos) << name << ": " << r.err;
    EXPECT_TRUE(test::read_file(dir / name).starts_with(start)) << name;
  }
  auto stats = graphgen({"-T", "stats"}, {}, check, {.file = demo});
  EXPECT_EQ(stats.exit_code, 0) << stats.err;
  EXPECT_NE(stats.out.find("function calls"), std::string::npos) << stats.out;
  auto cg = graphgen({(test::testdata_dir() / "callgrind" / "cxx.callgrind").string(), "-T", "dot"}, {}, check);
  EXPECT_EQ(cg.exit_code, 0) << cg.err;
  EXPECT_TRUE(cg.out.starts_with("digraph {\n")) << cg.out.substr(0, 80);
  fs::remove_all(dir);
}

TEST(Cli, NodeCountKeepsTheHeaviestNodes) {
  fs::path demo = test::testdata_dir() / "demo.pstats";
  auto all = graphgen({"-n", "0", "-e", "0", demo});
  auto top = graphgen({"-n", "0", "-e", "0", "--node-count", "3", demo});
  ASSERT_EQ(top.exit_code, 0) << top.err;
  auto count_nodes = [](const std::string& dot) {  // lines with a label that are not edges
    std::size_t n = 0;
    std::istringstream in(dot);
    for (std::string line; std::getline(in, line);)
      n += line.find("label=") != std::string::npos && line.find(" -> ") == std::string::npos;
    return n;
  };
  EXPECT_GT(count_nodes(all.out), 3u);
  EXPECT_EQ(count_nodes(top.out), 3u);
  EXPECT_NE(top.out.find("builtins.exec"), std::string::npos);  // 100 %: among the heaviest
}

#ifdef GRAPHGEN_HAVE_RENDER
TEST(Cli, WarnsBeforeLayingOutAHugeGraph) {
  fs::path dir = test::temp_dir();
  {
    std::ofstream wide(dir / "wide.collapse");
    for (int i = 0; i < 600; ++i) wide << "main;f" << i << " 1\n";
  }
  auto r = graphgen({"-n", "0", "-e", "0", (dir / "wide.collapse").string(), "-o", (dir / "w.svg").string()});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err,
            "graphgen: warning: the graph has 601 nodes after pruning; laying it out can take minutes: raise -n or "
            "keep the heaviest with --node-count N\n");
  auto small = graphgen(
      {"-n", "0", "-e", "0", "--node-count", "50", (dir / "wide.collapse").string(), "-o", (dir / "w50.svg").string()});
  EXPECT_EQ(small.err, "");
  fs::remove_all(dir);
}
#endif

TEST(Cli, UnknownRootIsReportedLikeGprof2dot) {
  auto r = graphgen({"-z", "nope", test::testdata_dir() / "demo.pstats"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "root node nope not found (might already be pruned : try -e0 -n0 flags)\n");
}

TEST(Cli, ListFunctionsMatchesGprof2dotsListing) {
  fs::path corpus = test::corpus_dir();
  if (corpus.empty()) GTEST_SKIP() << test::no_corpus_message();
  // memtrail.list-functions.txt holds "### --list-functions=SEL" sections.
  std::string text = test::read_file(corpus / "pstats" / "memtrail.list-functions.txt");
  std::size_t pos = 0;
  int sections = 0;
  while ((pos = text.find("### --list-functions=", pos)) != std::string::npos) {
    std::size_t sel_begin = pos + 21;
    std::size_t sel_end = text.find('\n', sel_begin);
    std::string selector = text.substr(sel_begin, sel_end - sel_begin);
    std::size_t next = text.find("### --list-functions=", sel_end);
    std::string expected = text.substr(sel_end + 1, (next == std::string::npos ? text.size() : next) - sel_end - 1);
    auto r = graphgen({"--list-functions", selector, "pstats/memtrail.pstats"}, corpus);
    SCOPED_TRACE(selector);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    // Entries as a set: gprof2dot's order for glob selectors follows its
    // dict internals; graphgen lists in id order.
    auto entries = [](const std::string& s) {
      std::vector<std::string> v;
      std::size_t i = 0;
      while (i < s.size()) {
        std::size_t j = s.find('\n', i);
        if (j == std::string::npos) j = s.size();
        std::string line = s.substr(i, j - i);
        if (!line.empty() && line.back() == ',') line.pop_back();
        if (!line.empty()) v.push_back(line);
        i = j + 1;
      }
      std::sort(v.begin(), v.end());
      return v;
    };
    EXPECT_EQ(entries(r.out), entries(expected));
    ++sections;
    pos = sel_end;
  }
  EXPECT_EQ(sections, 6);
}

#ifdef GRAPHGEN_HAVE_RENDER
TEST(Render, PngAndSvgWithoutTheDotProgram) {
  fs::path dir = test::temp_dir();
  fs::path demo = test::testdata_dir() / "demo.pstats";
  std::vector<std::string> env{"PATH=/nonexistent"};
  auto png = graphgen({demo, "-o", dir / "g.png"}, {}, env);
  ASSERT_EQ(png.exit_code, 0) << png.err;
  EXPECT_TRUE(test::read_file(dir / "g.png").starts_with("\x89PNG\r\n\x1a\n"));
  auto svg = graphgen({"-T", "svg", demo, "-o", dir / "graph.image"}, {}, env);
  ASSERT_EQ(svg.exit_code, 0) << svg.err;
  // The SVG is well-formed XML, keeps the tooltips (source files), and
  // shows every line of every node label of the dot output.
  auto parse = test::run({"python3", "-c",
                          "import sys, xml.etree.ElementTree as ET\n"
                          "root = ET.parse(sys.argv[1]).getroot()\n"
                          "ns = '{http://www.w3.org/2000/svg}'\n"
                          "print('\\n'.join(t.text or '' for t in root.iter(ns + 'text')))\n"
                          "print('TOOLTIPS', ' '.join(a.get('{http://www.w3.org/1999/xlink}title', '') "
                          "for a in root.iter(ns + 'a')))",
                          (dir / "graph.image").string()});
  ASSERT_EQ(parse.exit_code, 0) << parse.err;
  EXPECT_NE(parse.out.find("wordfreq.py"), std::string::npos);  // tooltip of the pstats nodes
  auto dot = graphgen({demo});
  std::size_t labels = 0;
  for (std::size_t at = 0; (at = dot.out.find("label=\"", at)) != std::string::npos; ++labels) {
    at += 7;
    std::string label = dot.out.substr(at, dot.out.find('"', at) - at);
    for (std::size_t b = 0; b <= label.size();) {
      std::size_t e = label.find("\\n", b);
      std::string line = label.substr(b, e == std::string::npos ? std::string::npos : e - b);
      EXPECT_NE(parse.out.find(line), std::string::npos) << line;  // ElementTree gives the text unescaped
      if (e == std::string::npos) break;
      b = e + 2;
    }
  }
  EXPECT_GT(labels, 10u);
  auto pdf = graphgen({demo, "-o", dir / "g.pdf"}, {}, env);
  ASSERT_EQ(pdf.exit_code, 0) << pdf.err;
  EXPECT_TRUE(test::read_file(dir / "g.pdf").starts_with("%PDF-"));
  fs::remove_all(dir);
}
#endif

}  // namespace
}  // namespace graphgen::cli_test
