// Long work says how far it is (the CLI shows it on a terminal after two
// seconds): a merge of many inputs once per input, in order, with the
// total; a big input's read by the bytes its reader has passed; a big
// cycle's walks; Graphviz's layout.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <mutex>

#include "graphgen/io.h"
#include "pipeline.h"
#include "registry.h"
#include "util/test_util.h"

namespace graphgen::progress_test {
namespace {

namespace fs = std::filesystem;

TEST(Progress, EveryInputIsCountedOnceInOrder) {
  pipeline::Request r;
  for (int rank = 0; rank < 8; ++rank)
    r.inputs.push_back((test::testdata_dir() / "mpi" / ("cpu_" + std::to_string(rank) + ".prof")).string());
  r.output = formats::find_output_format("pstats");
  std::vector<std::pair<std::size_t, std::size_t>> seen;
  r.on_progress = [&](std::size_t done, std::size_t total) { seen.emplace_back(done, total); };
  Diagnostics diag;
  auto out = pipeline::convert(r, diag);
  ASSERT_TRUE(out.has_value()) << out.error().message;
  ASSERT_EQ(seen.size(), 8u);
  for (std::size_t i = 0; i < 8; ++i) EXPECT_EQ(seen[i], (std::pair<std::size_t, std::size_t>{i + 1, 8}));
}

// On a terminal, a merge that has run for the delay (two seconds; 0 here)
// says how far it is and clears its line when done; off a terminal, or
// with -q, nothing is printed (script(1) gives graphgen a terminal).
TEST(Progress, ATerminalSeesTheCountOfALongMerge) {
  if (test::run({"sh", "-c", "command -v script"}).exit_code != 0) GTEST_SKIP() << "script (bsdutils) is not installed";
  fs::path dir = test::temp_dir();
  for (int rank = 0; rank < 8; ++rank)
    fs::copy_file(test::testdata_dir() / "mpi" / ("cpu_" + std::to_string(rank) + ".prof"),
                  dir / ("cpu_" + std::to_string(rank) + ".prof"));
  const std::string cmd = std::string("'") + GRAPHGEN_BINARY +
                          "' -T ranks.csv -o out.csv cpu_0.prof cpu_1.prof cpu_2.prof "
                          "cpu_3.prof cpu_4.prof cpu_5.prof cpu_6.prof cpu_7.prof";
  auto tty = test::run({"script", "-qec", cmd, "/dev/null"}, dir, {"GRAPHGEN_TEST_PROGRESS_AFTER_MS=0"}, 120);
  ASSERT_EQ(tty.exit_code, 0) << tty.out;
  EXPECT_NE(tty.out.find("graphgen: reading: 1 of 8 inputs"), std::string::npos) << tty.out;
  EXPECT_NE(tty.out.find("graphgen: reading: 8 of 8 inputs\r\033[K"), std::string::npos) << tty.out;
  auto quiet = test::run({"script", "-qec", cmd + " -q", "/dev/null"}, dir, {"GRAPHGEN_TEST_PROGRESS_AFTER_MS=0"}, 120);
  EXPECT_EQ(quiet.out.find("graphgen: reading:"), std::string::npos) << quiet.out;
  auto pipe = test::graphgen({"-T", "ranks.csv", "-o", "out2.csv", "cpu_0.prof", "cpu_1.prof"}, dir,
                             {"GRAPHGEN_TEST_PROGRESS_AFTER_MS=0"});
  EXPECT_EQ(pipe.err, "");
}

// A warning that comes while a merge's count is shown takes the count's
// line instead of running on after it (each progress line and each
// warning go through one status line).
TEST(Progress, AWarningDuringAMergeClearsTheCountFirst) {
  if (test::run({"sh", "-c", "command -v script"}).exit_code != 0) GTEST_SKIP() << "script (bsdutils) is not installed";
  fs::path dir = test::temp_dir();
  // Austin recordings whose source graphgen cannot read: a warning each.
  for (const char* name : {"a.austin", "b.austin"})
    std::ofstream(dir / name) << "# austin: 3.6.0\n# mode: wall\n\nP1;T0:1;app.py:main:9 100\n";
  const std::string cmd = std::string("'") + GRAPHGEN_BINARY + "' a.austin b.austin -o out.dot";
  auto tty = test::run({"script", "-qec", cmd, "/dev/null"}, dir, {"GRAPHGEN_TEST_PROGRESS_AFTER_MS=0"}, 120);
  ASSERT_EQ(tty.exit_code, 0) << tty.out;
  EXPECT_NE(tty.out.find("inputs\r\033[Kgraphgen: warning: "), std::string::npos) << tty.out;
  EXPECT_EQ(tty.out.find("inputsgraphgen: warning"), std::string::npos) << tty.out;
}

// Graphviz says nothing while it lays out a graph (13 s for sympy's): on a
// terminal a line says what and for how long, and goes when it is done; off
// a terminal, or with -q, nothing.
TEST(Progress, ATerminalSeesTheLayoutOfACallGraph) {
  if (test::run({"sh", "-c", "command -v script"}).exit_code != 0) GTEST_SKIP() << "script (bsdutils) is not installed";
  fs::path dir = test::temp_dir();
  const std::string demo = (test::testdata_dir() / "demo.pstats").string();
  for (const char* out : {"x.png", "x.html"}) {
    SCOPED_TRACE(out);
    const std::string cmd = std::string("'") + GRAPHGEN_BINARY + "' '" + demo + "' -o " + out;
    auto tty = test::run({"script", "-qec", cmd, "/dev/null"}, dir, {"GRAPHGEN_TEST_PROGRESS_AFTER_MS=0"}, 120);
    ASSERT_EQ(tty.exit_code, 0) << tty.out;
    // demo.pstats' graph at the default thresholds: 11 nodes, 13 edges.
    EXPECT_NE(tty.out.find("\r\033[Kgraphgen: laying out the call graph: 11 nodes, 13 edges (0 s)\r\033[K"),
              std::string::npos)
        << tty.out;
    auto quiet = test::run({"script", "-qec", cmd + " -q", "/dev/null"}, dir, {"GRAPHGEN_TEST_PROGRESS_AFTER_MS=0"});
    EXPECT_EQ(quiet.out.find("laying out"), std::string::npos) << quiet.out;
  }
  auto pipe = test::graphgen({demo, "-o", (dir / "y.png").string()}, dir, {"GRAPHGEN_TEST_PROGRESS_AFTER_MS=0"});
  EXPECT_EQ(pipe.err, "");
}

// A call graph of one big cycle walks it once from each entry point: on a
// terminal a line counts the walks and goes when they are done; off a
// terminal, or with -q, nothing (the delay is 0 here, two seconds really).
TEST(Progress, ATerminalSeesTheWalksOfABigCycle) {
  if (test::run({"sh", "-c", "command -v script"}).exit_code != 0) GTEST_SKIP() << "script (bsdutils) is not installed";
  fs::path dir = test::temp_dir();
  // 40 functions that call each other under main: one cycle entered at each.
  std::string stacks;
  std::uint64_t x = 7;
  for (int s = 0; s < 400; ++s) {
    stacks += "main";
    for (int k = 0; k < 6; ++k) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      stacks += ";f" + std::to_string((x >> 33) % 40);
    }
    stacks += " 1\n";
  }
  std::ofstream(dir / "cycle.folded") << stacks;
  const std::string cmd = std::string("'") + GRAPHGEN_BINARY + "' cycle.folded -o out.dot";
  auto tty = test::run({"script", "-qec", cmd, "/dev/null"}, dir, {"GRAPHGEN_TEST_PROGRESS_AFTER_MS=0"}, 120);
  ASSERT_EQ(tty.exit_code, 0) << tty.out;
  const std::size_t at = tty.out.find(
      "\r\033[Kgraphgen: integrating a cycle of 40 functions: 1 of 40 entry points "
      "walked (0 s)");
  ASSERT_NE(at, std::string::npos) << tty.out;
  EXPECT_NE(tty.out.find("\r\033[K", at + 2), std::string::npos) << tty.out;  // (cleared when done)
  auto quiet = test::run({"script", "-qec", cmd + " -q", "/dev/null"}, dir, {"GRAPHGEN_TEST_PROGRESS_AFTER_MS=0"}, 120);
  EXPECT_EQ(quiet.out.find("integrating"), std::string::npos) << quiet.out;
  auto pipe = test::graphgen({"cycle.folded", "-o", "out2.dot"}, dir, {"GRAPHGEN_TEST_PROGRESS_AFTER_MS=0"});
  EXPECT_EQ(pipe.err, "");
  EXPECT_EQ(test::read_file(dir / "out.dot"), test::read_file(dir / "out2.dot"));
}

// `n` lines of folded stacks (about 23 bytes each), to read past a few
// megabytes.
std::string folded_lines(std::size_t n) {
  std::string text;
  for (std::size_t i = 0; i < n; ++i)
    text += "main;parse_" + std::to_string(i % 97) + ";scan_" + std::to_string(i % 13) + " " +
            std::to_string(i % 7 + 1) + "\n";
  return text;
}

// What set_read_progress() was told, reported from any reader's thread.
struct ReadCall {
  double seconds;
  std::string doing, path;
  std::size_t passed, size;
};
struct ReadCalls {
  std::mutex mutex;
  std::vector<ReadCall> calls;
  ReadCalls() {
    set_read_progress(
        [this](double seconds, std::string_view doing, std::string_view path, std::size_t passed, std::size_t size) {
          std::lock_guard lock(mutex);
          calls.push_back({seconds, std::string(doing), std::string(path), passed, size});
        },
        std::chrono::milliseconds(0));
  }
  ~ReadCalls() { set_read_progress({}, std::chrono::milliseconds(2000)); }
};

// What reading `inputs` (of `format`, when named) to folded stacks told
// set_read_progress(), in order (the delay is 0).
std::vector<ReadCall> watched_read(const std::vector<fs::path>& inputs, const std::string& format = {}) {
  ReadCalls seen;
  pipeline::Request r;
  for (const fs::path& input : inputs) r.inputs.push_back(input.string());
  r.input_format = format;
  r.output = formats::find_output_format("folded");
  Diagnostics diag;
  auto out = pipeline::convert(r, diag);
  EXPECT_TRUE(out.has_value()) << (out ? "" : out.error().message);
  std::lock_guard lock(seen.mutex);
  return seen.calls;
}

// The first report of `doing` is of `input` (its path, `size` bytes),
// reported at once with the first megabyte passed, and the last report
// says the work is done.
void expect_reported(const std::vector<ReadCall>& calls, std::string_view doing, const fs::path& input,
                     std::size_t size) {
  auto first = std::find_if(calls.begin(), calls.end(), [&](const ReadCall& c) { return c.doing == doing; });
  ASSERT_NE(first, calls.end());
  EXPECT_GE(first->seconds, 0);
  EXPECT_EQ(first->path, input.string());
  EXPECT_GT(first->passed, std::size_t{1} << 20);
  EXPECT_LE(first->passed, size);
  EXPECT_EQ(first->size, size);
  EXPECT_LT(calls.back().seconds, 0);
}

// A lone input's read says how many of its bytes its reader has passed (a
// megabyte at a time, never more than its size), then that it is done; in
// one part and in two (11 MiB of folded stacks: over 8 MiB); a merge of
// several inputs counts its inputs instead.
TEST(Progress, AReadCountsTheBytesItsReaderPassed) {
  fs::path dir = test::temp_dir();
  std::vector<fs::path> inputs;
  for (std::size_t lines : {std::size_t{120000}, std::size_t{500000}}) {
    SCOPED_TRACE(lines);
    const fs::path input = inputs.emplace_back(dir / ("in" + std::to_string(lines) + ".folded"));
    std::ofstream(input) << folded_lines(lines);
    const std::size_t size = fs::file_size(input);
    ASSERT_GT(size, std::size_t{2} << 20);
    auto calls = watched_read({input});
    expect_reported(calls, "reading", input, size);
    // Every half second at most between the first and the end.
    ASSERT_GE(calls.size(), 2u);
    for (std::size_t i = 0; i + 1 < calls.size(); ++i) EXPECT_GE(calls[i].seconds, 0) << i;
  }
  EXPECT_TRUE(watched_read(inputs).empty());
}

// A Very Sleepy capture is read as it inflates: its progress is how far
// into the archive the inflating is (a stored member here, 3 MB).
TEST(Progress, ASleepyCaptureCountsTheArchiveItHasInflated) {
  fs::path dir = test::temp_dir();
  const fs::path input = dir / "big.sleepy";
  auto made =
      test::run({"python3", "-c",
                 "import sys, zipfile\n"
                 "syms = ''.join('sym%d \"m\" \"f%d\" \"x.c\" %d\\n' % (i, i, i) for i in range(500))\n"
                 "stacks = ''.join('0.001 sym%d sym%d sym%d\\n' % (i % 500, i % 37, i % 11) for i in range(150000))\n"
                 "with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_STORED) as z:\n"
                 "  z.writestr('Symbols.txt', syms)\n"
                 "  z.writestr('Callstacks.txt', stacks)\n",
                 input.string()});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  const std::size_t size = fs::file_size(input);
  ASSERT_GT(size, std::size_t{2} << 20);
  expect_reported(watched_read({input}), "reading", input, size);
}

// A compressed input is inflated whole before it is read: that is watched
// too, by the compressed bytes passed, then the read by the inflated ones.
TEST(Progress, ACompressedInputCountsItsInflatingThenItsRead) {
  if (test::run({"sh", "-c", "command -v gzip"}).exit_code != 0) GTEST_SKIP() << "gzip is not installed";
  fs::path dir = test::temp_dir();
  // Stacks of made-up names that gzip cannot shrink much: 2 MB of gzip.
  std::string text;
  std::uint64_t x = 1;
  for (int i = 0; i < 150000; ++i) {
    text += "main";
    for (int k = 0; k < 2; ++k) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      text += fmt::format(";f{:016x}", x);
    }
    text += " 1\n";
  }
  std::ofstream(dir / "big.folded") << text;
  ASSERT_EQ(test::run({"gzip", "-1", (dir / "big.folded").string()}).exit_code, 0);
  const fs::path input = dir / "big.folded.gz";
  const std::size_t size = fs::file_size(input);
  ASSERT_GT(size, std::size_t{2} << 20);
  // Detected (the head is checked as it inflates), and named (the buffer
  // is sized from gzip's ISIZE at once).
  for (const char* format : {"", "collapse"}) {
    SCOPED_TRACE(format);
    auto calls = watched_read({input}, format);
    ASSERT_FALSE(calls.empty());
    EXPECT_EQ(calls[0].doing, "decompressing");
    expect_reported(calls, "decompressing", input, size);
    expect_reported(calls, "reading", input, text.size());
    // The inflating's end said before the read's first report.
    auto read = std::find_if(calls.begin(), calls.end(), [](const ReadCall& c) { return c.doing == "reading"; });
    ASSERT_NE(read, calls.begin());
    EXPECT_LT((read - 1)->seconds, 0);
  }
}

// Readers with loops of their own count what they pass too: Austin's
// lines, and pprof's samples (after its inflating).
TEST(Progress, AustinAndPprofCountTheirReads) {
  fs::path dir = test::temp_dir();
  std::string austin = "# austin: 3.6.0\n# mode: wall\n# interval: 100\n\n";
  std::string folded;
  std::uint64_t x = 3;
  for (int i = 0; i < 60000; ++i) {
    austin += fmt::format("P4242;T0:4242;app.py:<module>:3;app.py:main:9;app.py:work_{}:{} {}\n", i % 50, i % 7 + 1,
                          1000 + i % 13);
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    folded += fmt::format("main;f{:016x};g{:x} 1\n", x, x >> 40);
  }
  std::ofstream(dir / "big.austin") << austin;
  std::ofstream(dir / "stacks.folded") << folded;
  auto made = test::graphgen({"stacks.folded", "-T", "pprof", "-o", "big.pb.gz"}, dir);
  ASSERT_EQ(made.exit_code, 0) << made.err;
  {
    SCOPED_TRACE("austin");
    expect_reported(watched_read({dir / "big.austin"}), "reading", dir / "big.austin", austin.size());
  }
  SCOPED_TRACE("pprof");
  auto calls = watched_read({dir / "big.pb.gz"});
  auto read = std::find_if(calls.begin(), calls.end(), [](const ReadCall& c) { return c.doing == "reading"; });
  ASSERT_NE(read, calls.end());
  expect_reported(calls, "reading", dir / "big.pb.gz", read->size);  // (the inflated protobuf's size)
}

// A watch inside a watch counts nothing, and nothing is counted outside one.
TEST(Progress, OneReadIsWatchedAtATime) {
  ReadCalls seen;
  const std::string bytes(std::size_t{4} << 20, 'x');
  InputFile input = InputFile::from_bytes("mem", bytes);
  {
    PassedPages outside(&input);
    outside.at(std::size_t{3} << 20);
  }
  {
    ReadWatch first("reading", "first", bytes.size());
    ReadWatch second("reading", "second", 1);
    PassedPages pages(&input);
    pages.at((std::size_t{1} << 20) + 1);
  }
  std::lock_guard lock(seen.mutex);
  ASSERT_EQ(seen.calls.size(), 2u);
  EXPECT_EQ(seen.calls[0].path, "first");
  EXPECT_EQ(seen.calls[0].passed, (std::size_t{1} << 20) + 1);
  EXPECT_EQ(seen.calls[0].size, bytes.size());
  EXPECT_LT(seen.calls[1].seconds, 0);
}

// A reader gives each page it has passed back once. Each megabyte's call
// gave back everything from its part's start again, so a file of n
// megabytes cost n^2/2 megabytes of page-table walking (a 1.4 GB perf
// script: some 10^6 MB). Through the pipeline (18 MB of folded stacks), and
// by hand for a part that starts inside a page (that page is the other
// part's too: not given back).
TEST(Progress, EachPassedPageIsGivenBackOnce) {
  fs::path dir = test::temp_dir();
  const fs::path input = dir / "big.folded";
  std::ofstream(input) << folded_lines(800000);
  const std::size_t size = fs::file_size(input);
  ASSERT_GT(size, std::size_t{16} << 20);
  const std::size_t before = detail::given_back();
  watched_read({input}, "collapse");  // (named: the detection gives back its sniffed head besides)
  const std::size_t given = detail::given_back() - before;
  EXPECT_GT(given, size / 2);
  EXPECT_LE(given, size);
  auto file = InputFile::open(input.string());
  ASSERT_TRUE(file.has_value()) << file.error().message;
  const std::size_t start = detail::given_back();
  {
    PassedPages pages(&file.value(), 100);
    for (std::size_t pos = 0; pos + 100 < size; pos += (std::size_t{1} << 20) + 1) pages.at(pos);
  }
  const std::size_t by_hand = detail::given_back() - start;
  EXPECT_GT(by_hand, size / 2);
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  EXPECT_LE(by_hand, size - page);  // (the page holding byte 100 is the other part's too)
}

// On a terminal a big input's read shows how much of it has been read and
// clears its line when done (the delay is 0 here, two seconds really);
// off a terminal, or with -q, nothing; the output is the same.
TEST(Progress, ATerminalSeesTheReadOfABigInput) {
  if (test::run({"sh", "-c", "command -v script"}).exit_code != 0) GTEST_SKIP() << "script (bsdutils) is not installed";
  fs::path dir = test::temp_dir();
  std::ofstream(dir / "big.folded") << folded_lines(80000);
  const std::string cmd = std::string("'") + GRAPHGEN_BINARY + "' big.folded -T folded -o out.folded";
  auto tty = test::run({"script", "-qec", cmd, "/dev/null"}, dir, {"GRAPHGEN_TEST_PROGRESS_AFTER_MS=0"}, 120);
  ASSERT_EQ(tty.exit_code, 0) << tty.out;
  const std::size_t at = tty.out.find("\r\033[Kgraphgen: reading big.folded: 1.0 MiB of ");
  ASSERT_NE(at, std::string::npos) << tty.out;
  EXPECT_NE(tty.out.find("\r\033[K", at + 2), std::string::npos) << tty.out;  // (cleared when done)
  auto quiet = test::run({"script", "-qec", cmd + " -q", "/dev/null"}, dir, {"GRAPHGEN_TEST_PROGRESS_AFTER_MS=0"}, 120);
  EXPECT_EQ(quiet.out.find("graphgen: reading"), std::string::npos) << quiet.out;
  // Standard input is named so (its path is "-" in messages).
  const std::string piped = std::string("cat big.folded | '") + GRAPHGEN_BINARY + "' - -T folded -o out3.folded";
  auto stdin_tty = test::run({"script", "-qec", "sh -c \"" + piped + "\"", "/dev/null"}, dir,
                             {"GRAPHGEN_TEST_PROGRESS_AFTER_MS=0"}, 120);
  ASSERT_EQ(stdin_tty.exit_code, 0) << stdin_tty.out;
  // First the pipe as it comes (its size unknown), then the parse.
  // (How much the first read() of the pipe gets is the kernel's.)
  const std::size_t as_it_comes = stdin_tty.out.find("\r\033[Kgraphgen: reading standard input: ");
  ASSERT_NE(as_it_comes, std::string::npos) << stdin_tty.out;
  EXPECT_NE(
      stdin_tty.out.substr(as_it_comes, stdin_tty.out.find('\r', as_it_comes + 1) - as_it_comes).find(" so far ("),
      std::string::npos)
      << stdin_tty.out;
  EXPECT_NE(stdin_tty.out.find("\r\033[Kgraphgen: reading standard input: 1.0 MiB of ", as_it_comes), std::string::npos)
      << stdin_tty.out;
  auto pipe =
      test::graphgen({"big.folded", "-T", "folded", "-o", "out2.folded"}, dir, {"GRAPHGEN_TEST_PROGRESS_AFTER_MS=0"});
  EXPECT_EQ(pipe.err, "");
  EXPECT_EQ(test::read_file(dir / "out.folded"), test::read_file(dir / "out2.folded"));
  EXPECT_EQ(test::read_file(dir / "out.folded"), test::read_file(dir / "out3.folded"));
  // A long name in a folder: the name alone, cut in its middle to fit the
  // terminal's 80 columns, so that the line stays one row \r can clear.
  fs::create_directories(dir / "sub");
  const std::string long_name = std::string(100, 'a') + std::string(100, 'z') + ".folded";
  fs::copy_file(dir / "big.folded", dir / "sub" / long_name);
  const std::string narrow =
      std::string("stty cols 80; '") + GRAPHGEN_BINARY + "' 'sub/" + long_name + "' -T folded -o out4.folded";
  auto long_tty = test::run({"script", "-qec", narrow, "/dev/null"}, dir, {"GRAPHGEN_TEST_PROGRESS_AFTER_MS=0"}, 120);
  ASSERT_EQ(long_tty.exit_code, 0) << long_tty.out;
  const std::size_t start = long_tty.out.find("\r\033[Kgraphgen: reading ");
  ASSERT_NE(start, std::string::npos) << long_tty.out;
  const std::string line = long_tty.out.substr(start + 4, long_tty.out.find('\r', start + 4) - start - 4);
  EXPECT_NE(line.find("aaa...zzz"), std::string::npos) << line;
  EXPECT_EQ(line.find("sub/"), std::string::npos) << line;
  EXPECT_LT(line.size(), 80u) << line;
  EXPECT_NE(line.find(": 1.0 MiB of "), std::string::npos) << line;
}

}  // namespace
}  // namespace graphgen::progress_test
