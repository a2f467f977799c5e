// Flame graphs and the HTML report: -T folded against FlameGraph's
// stackcollapse-perf.pl and perf's own stackcollapse.py on a real perf
// recording, -T flame's rectangles against the folded stacks, stacks rebuilt
// from call ratios for pstats, and both pictures driven in headless Chromium
// (each page has a #selftest that zooms, sorts, filters and searches by
// itself); screenshots go to <build>/screenshots/ for people to look at.
#include "graphgen/analysis/flame.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <regex>
#include <set>
#include <sstream>

#include "flame/writer.h"
#include "util/test_util.h"

namespace graphgen::flame_test {
namespace {

namespace fs = std::filesystem;

fs::path flame_dir() { return test::testdata_dir() / "flame"; }

// A folded file as stack -> count; `unknown` maps every [bracketed] frame
// to [unknown] first (perf's stackcollapse.py does not name them by DSO).
std::map<std::string, long long> folded(const std::string& text, bool unknown = false) {
  std::map<std::string, long long> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::size_t space = line.rfind(' ');
    EXPECT_NE(space, std::string::npos) << line;
    if (space == std::string::npos) continue;
    std::string stack = line.substr(0, space);
    if (unknown) {
      std::string mapped, frame;
      std::istringstream frames(stack);
      while (std::getline(frames, frame, ';')) {
        if (!mapped.empty()) mapped += ';';
        mapped += frame.size() >= 2 && frame.front() == '[' && frame.back() == ']' ? "[unknown]" : frame;
      }
      stack = mapped;
    }
    out[stack] += std::stoll(line.substr(space + 1));
  }
  return out;
}

bool have(const std::string& program) { return test::run({"sh", "-c", "command -v " + program}).exit_code == 0; }

// Opens `file#selftest` in headless Chromium and returns the JSON its page
// wrote to data-selftest; also screenshots the file to <build>/screenshots.
nlohmann::json selftest(const fs::path& file, const std::string& screenshot, const std::string& tab = "") {
  fs::path profile = test::temp_dir();
  std::vector<std::string> common = {"chromium",
                                     "--headless",
                                     "--no-sandbox",
                                     "--disable-gpu",
                                     "--disable-dev-shm-usage",
                                     "--no-first-run",
                                     "--user-data-dir=" + profile.string()};
  auto dump = common;
  dump.push_back("--virtual-time-budget=10000");
  dump.push_back("--dump-dom");
  dump.push_back("file://" + file.string() + "#selftest");
  auto r = test::run(dump, {}, {"HOME=" + profile.string()}, 120);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::smatch m;
  static const std::regex attribute("data-selftest=\"([^\"]*)\"");
  EXPECT_TRUE(std::regex_search(r.out, m, attribute))
      << "no data-selftest in what Chromium shows of " << file << " (did the page load?):\n"
      << r.out.substr(0, 2000) << r.err.substr(0, 2000);
  nlohmann::json result = nlohmann::json::parse(test::xml_unescape(m.size() > 1 ? m[1].str() : "{}"));
  fs::path shots = fs::path(GRAPHGEN_BUILD_DIR) / "screenshots";
  fs::create_directories(shots);
  auto shot = common;
  shot.push_back("--window-size=1280,900");
  shot.push_back("--screenshot=" + (shots / screenshot).string());
  shot.push_back("file://" + file.string());
  auto s = test::run(shot, {}, {"HOME=" + profile.string()}, 120);
  EXPECT_EQ(s.exit_code, 0) << s.err;
  EXPECT_TRUE(fs::exists(shots / screenshot));
  if (!tab.empty()) {
    // The same page opened on another tab (the report's #icicle, #ranks).
    shot[shot.size() - 2] = "--screenshot=" + (shots / (tab + "-" + screenshot)).string();
    shot.back() += "#" + tab;
    EXPECT_EQ(test::run(shot, {}, {"HOME=" + profile.string()}, 120).exit_code, 0);
  }
  return result;
}

TEST(Folded, EqualsStackcollapsePerfPlByteForByte) {
  // stackcollapse-perf.pl weighs samples by their period, names unresolved
  // frames by their library and sorts the lines.
  auto r = test::graphgen({"-T", "folded", "--weight", "period", (flame_dir() / "flame.perf").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, test::read_file(flame_dir() / "flame.stackcollapse-pl.folded"));
}

// Real recordings of Debian programs (testdata/perf/real, see the README
// there): frame pointers and DWARF, -F selections without time or event
// (which graphgen refused and did not detect), several processes and
// threads, fixed and varying periods, two events (the first one is kept,
// as the reference does), samples with no frames (the reference writes the
// command alone). Each is read without -f.
TEST(Folded, EqualsStackcollapsePerfPlOnRealRecordings) {
  fs::path real = test::testdata_dir() / "perf" / "real";
  std::size_t compared = 0;
  for (const auto& e : fs::directory_iterator(real)) {
    std::string name = e.path().filename().string();
    if (!name.ends_with(".perf.xz")) continue;
    std::string stem = name.substr(0, name.size() - 8);
    fs::path oracle = real / (stem + ".stackcollapse.folded");
    if (!fs::exists(oracle)) continue;
    SCOPED_TRACE(name);
    auto r = test::graphgen({"-T", "folded", "--weight", "period", e.path().string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, test::read_file(oracle));
    ++compared;
  }
  EXPECT_GE(compared, 30u);
  // The other event of the two, chosen as stackcollapse-perf.pl's
  // --event-filter chooses it.
  auto other = test::graphgen(
      {"-T", "folded", "--weight", "period", "--event", "task-clock", (real / "lua-events.perf.xz").string()});
  ASSERT_EQ(other.exit_code, 0) << other.err;
  EXPECT_EQ(other.out, test::read_file(real / "lua-events.stackcollapse-task-clock.folded"));
  auto both = test::graphgen({"-T", "folded", (real / "lua-events.perf.xz").string()});
  EXPECT_NE(both.err.find("only the first event's are kept, page-faults"), std::string::npos) << both.err;
  // Frameless samples: the command alone, and a warning that says so.
  auto frameless = test::graphgen({"-T", "folded", (real / "lua-kcallchains.perf.xz").string()});
  EXPECT_TRUE(frameless.out.starts_with("lua5.4 120\n")) << frameless.out;
  EXPECT_NE(frameless.err.find("120 sample(s) have no stack frames"), std::string::npos) << frameless.err;
  // Filters rebuild the stacks: --hide removes no frame of theirs, --focus
  // asks for one they lack.
  auto hidden =
      test::graphgen({"-T", "folded", "--hide", "exc_page_fault", (real / "lua-kcallchains.perf.xz").string()});
  EXPECT_TRUE(hidden.out.starts_with("lua5.4 120\n")) << hidden.out;
  EXPECT_EQ(hidden.out.find("exc_page_fault;"), std::string::npos);
  auto focused =
      test::graphgen({"-T", "folded", "--focus", "do_syscall_64", (real / "lua-kcallchains.perf.xz").string()});
  EXPECT_EQ(focused.out.find("lua5.4 "), std::string::npos) << focused.out;
}

// What stackcollapse-perf.pl makes of a frame's name (its $tidy_generic):
// nothing where it starts with '(' (its "skip process names" rule, which
// also drops C++'s `(anonymous namespace)::f`), the name cut at its first
// '(' that is not an `(anonymous namespace)` (unless it looks like Go's
// `pkg.(*T).M`), quotes taken out.
std::optional<std::string> stackcollapse_name(const std::string& frame) {
  if (frame.starts_with("(")) return std::nullopt;
  std::string name = frame;
  if (!std::regex_search(name, std::regex(R"(\.\(.*\)\.)"))) {
    for (std::size_t at = name.find('('); at != std::string::npos; at = name.find('(', at + 1))
      if (name.compare(at, 21, "(anonymous namespace)") != 0) {
        name.erase(at);
        break;
      }
  }
  std::erase_if(name, [](char c) { return c == '"' || c == '\''; });
  return name;
}

// A C++ program's recording (testdata/perf/real/make3.sh): graphgen names
// each frame as every other view does, where stackcollapse-perf.pl cuts
// `Mixer::operator()` to `Mixer::operator`, a lambda or a local class's
// method to the function around it, `operator"" _work` to `operator
// _work`, and leaves `(anonymous namespace)::churn` frames out. Those rules
// applied to graphgen's stacks give the script's output byte for byte: the
// names are the one difference.
TEST(Folded, KeepsTheCppNamesStackcollapsePerfPlCuts) {
  fs::path real = test::testdata_dir() / "perf" / "real";
  auto r = test::graphgen({"-T", "folded", "--weight", "period", (real / "cpp-names.perf.xz").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string oracle = test::read_file(real / "cpp-names.stackcollapse-pl.folded");
  EXPECT_NE(r.out, oracle);
  for (const char* kept :
       {";(anonymous namespace)::churn;", ";Mixer::operator() ", ";main::{lambda(long)#1}::operator();",
        ";local_class(long)::Step::run;", ";operator\"\" _work;",
        ";std::_Function_handler<long (long), main::{lambda(long)#2}>::_M_invoke;"})
    EXPECT_NE(r.out.find(kept), std::string::npos) << kept;
  std::map<std::string, long long> cut;
  for (const auto& [stack, count] : folded(r.out)) {
    std::string frames, frame;
    std::istringstream in(stack);
    for (bool process = true; std::getline(in, frame, ';'); process = false) {
      std::optional<std::string> name = process ? std::optional<std::string>(frame) : stackcollapse_name(frame);
      if (name) frames += (frames.empty() ? "" : ";") + *name;
    }
    cut[frames] += count;
  }
  std::string written;
  for (const auto& [stack, count] : cut) written += stack + " " + std::to_string(count) + "\n";
  EXPECT_EQ(written, oracle);
}

// Without -g, perf script prints the one frame on the header line and no
// empty line between samples: stackcollapse-perf.pl writes nothing at all;
// graphgen keeps each sample's frame under its command.
TEST(Folded, RecordingsWithoutCallChainsKeepTheirOneFrame) {
  auto r = test::graphgen({"-T", "folded", (test::testdata_dir() / "perf/real/sqlite-nog.perf.xz").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  long long samples = 0;
  for (auto& [stack, count] : folded(r.out)) {
    EXPECT_TRUE(stack.starts_with("sqlite3;")) << stack;
    EXPECT_EQ(std::count(stack.begin(), stack.end(), ';'), 1) << stack;
    samples += count;
  }
  EXPECT_EQ(samples, 104);
}

// `perf script --max-stack=0`, or a recording of kernel call chains only:
// every sample is its header and an empty line. It was not recognised as
// perf at all ("cannot tell the profile format"); the reference writes the
// command alone for each sample.
TEST(Folded, RecordingsOfFramelessSamplesAreRecognised) {
  auto r = test::graphgen(
      {"-T", "folded", "--weight", "period", (test::testdata_dir() / "perf/real/lua-maxstack0.perf.xz").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto stacks = folded(r.out);
  ASSERT_EQ(stacks.size(), 1u) << r.out;
  EXPECT_EQ(stacks.begin()->first, "lua5.4");
  EXPECT_EQ(
      stacks.begin()->second,
      folded(test::read_file(test::testdata_dir() / "perf/real/lua-maxstack0.stackcollapse.folded")).at("lua5.4"));
}

// Tracepoints (testdata/perf/real/make4.sh: `-e sched:sched_switch -e
// syscalls:sys_enter_write -g`, as off-CPU profiles are recorded): perf
// script prints the tracepoint's fields after the event. Such a file was
// not recognised ("cannot tell the profile format"). Each event's stacks
// equal stackcollapse-perf.pl's on that event's samples alone (it reads no
// event from these headers and would sum both).
TEST(Folded, TracepointRecordingsAreRecognisedAndReadPerEvent) {
  fs::path real = test::testdata_dir() / "perf" / "real";
  const std::string file = (real / "tracepoints.perf.xz").string();
  auto first = test::graphgen({"-T", "folded", "--weight", "period", file});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(first.out, test::read_file(real / "tracepoints.stackcollapse-sched_switch.folded"));
  EXPECT_NE(first.err.find("samples of 2 events (sched:sched_switch, syscalls:sys_enter_write)"), std::string::npos)
      << first.err;
  auto writes = test::graphgen({"-T", "folded", "--event", "syscalls:sys_enter_write", file});
  ASSERT_EQ(writes.exit_code, 0) << writes.err;
  EXPECT_EQ(writes.out, test::read_file(real / "tracepoints.stackcollapse-sys_enter_write.folded"));
}

// One recording printed three ways (make4.sh): plain, with the misc flags
// and time of day that `-F +misc,+tod` put between the cpu and the time,
// and with the `PERF_RECORD_*` lines that `--show-task-events
// --show-mmap-events` put between samples. The extra columns made the
// whole header the command and the period the pid (every stack
// `xz_25795_K_____2026-11-28_..._31404.698426:;...` weighing 1); the
// side-band lines failed the read, or, first in the file, were taken for
// the event to keep (no sample kept, no warning). stackcollapse-perf.pl
// gives the same bytes for all three.
TEST(Folded, ExtraColumnsAndSideBandRecordsReadAsThePlainPrint) {
  fs::path real = test::testdata_dir() / "perf" / "real";
  const std::string oracle = test::read_file(real / "columns.stackcollapse.folded");
  for (const char* v : {"columns.perf.xz", "columns-misc-tod.perf.xz", "columns-side-band.perf.xz"}) {
    SCOPED_TRACE(v);
    auto r = test::graphgen({"-T", "folded", "--weight", "period", (real / v).string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, oracle);
    EXPECT_EQ(r.err, "");
  }
}

TEST(Folded, EqualsPerfsStackcollapseByMeaning) {
  // perf script report stackcollapse counts samples and writes [unknown].
  auto r = test::graphgen({"-T", "folded", (flame_dir() / "flame.perf").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto mine = folded(r.out, true);
  auto perf = folded(test::read_file(flame_dir() / "flame.stackcollapse-py.folded"), true);
  EXPECT_EQ(mine, perf);
  long long samples = 0;
  for (auto& [stack, count] : mine) samples += count;
  EXPECT_EQ(samples, 162);
}

TEST(Folded, KeepsEachProcessAsTheRootFrame) {
  auto r = test::graphgen({"-T", "folded", (test::testdata_dir() / "perf/multi.perf").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::set<std::string> roots;
  for (auto& [stack, count] : folded(r.out)) roots.insert(stack.substr(0, stack.find(';')));
  // `my worker` (a thread's comm with a space) as FlameGraph writes it.
  EXPECT_EQ(roots, (std::set<std::string>{"my_worker", "other", "q"}));
}

TEST(Folded, MergedFilesAddUpStackByStack) {
  fs::path perf = test::testdata_dir() / "perf/multi.perf";
  auto once = test::graphgen({"-T", "folded", perf.string()});
  auto twice = test::graphgen({"-T", "folded", perf.string(), perf.string()});
  ASSERT_EQ(twice.exit_code, 0) << twice.err;
  auto doubled = folded(once.out);
  for (auto& [stack, count] : doubled) count *= 2;
  EXPECT_EQ(folded(twice.out), doubled);
}

TEST(Folded, CollapsedStacksRoundTrip) {
  fs::path in = test::write_temp("in.folded", "main;parse;lex 30\nmain;parse 10\nmain;eval;add 45\nidle 5\n");
  auto r = test::graphgen({"-T", "folded", in.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "idle 5\nmain;eval;add 45\nmain;parse 10\nmain;parse;lex 30\n");
}

// -o takes the folded lines a megabyte at a time (OutputFormat::stream):
// 4 000 stacks of 50 long frames that differ in their leaf only are a
// small tree and 20 MB of lines; writing them adds about a piece to the
// graph's peak, not the lines (before: the 20 MB held whole; a 19 MB Very
// Sleepy capture's 758 MB of lines peaked at 1.5 GiB, now 589 MiB). The
// lines come back as they were (distinct, in byte order), on standard
// output too.
TEST(Folded, LargeOutputIsWrittenAsItIsMade) {
  std::string prefix;
  for (int k = 0; k < 49; ++k)
    prefix += fmt::format("namespace_{:02}::Class::method_with_a_long_name_{:060}", k, k) + ";";
  std::string text;
  for (int i = 0; i < 4000; ++i) text += prefix + fmt::format("leaf_{:05} {}\n", i, i % 7 + 1);
  const fs::path in = test::write_temp("deep.folded", text);
  auto graph = test::graphgen({in.string(), "-q", "-o", (test::temp_dir() / "x.dot").string()});
  ASSERT_EQ(graph.exit_code, 0) << graph.err;
  const fs::path out = test::temp_dir() / "deep-out.folded";
  auto r = test::graphgen({in.string(), "-q", "-T", "folded", "-o", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string written = test::read_file(out);
  ASSERT_GT(written.size(), std::size_t{19} << 20);
  EXPECT_TRUE(written == text) << "the lines differ";
  auto whole = test::graphgen({in.string(), "-q", "-T", "folded"});
  EXPECT_TRUE(whole.out == text) << "the lines on standard output differ";
#ifndef GRAPHGEN_SANITIZE
  const long lines_kb = static_cast<long>(written.size() / 1024);
  EXPECT_LT(r.peak_kb - graph.peak_kb, lines_kb / 5) << "the folded write took " << (r.peak_kb - graph.peak_kb) / 1024
                                                     << " MB more for " << lines_kb / 1024 << " MB of lines";
#endif
}

TEST(Folded, NamesWithSpacesKeepTheirCounts) {
  // Found by fuzz_frontdoor: a stack that is another one plus " word" was
  // taken for a count, and std::stod threw.
  fs::path in = test::write_temp("spaces.folded", "main;work;inner 5\nmain _(x:3);ork -b.py:10ner 5\nmain 1\nmain 2\n");
  auto r = test::graphgen({"-T", "folded", in.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "main 3\nmain _(x:3);ork -b.py:10ner 5\nmain;work;inner 5\n");
}

TEST(Folded, CallGraphsAreRebuiltFromCallRatiosAndSaySo) {
  auto r = test::graphgen({"-T", "folded", (test::testdata_dir() / "demo.pstats").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("approximate"), std::string::npos) << r.err;
  // main is not recursive: the lines through it add up to its cumulative
  // time (whole microseconds), as pstats reports it.
  auto stats = test::graphgen({"-T", "stats", "--restrict", "main", (test::testdata_dir() / "demo.pstats").string()});
  ASSERT_EQ(stats.exit_code, 0) << stats.err;
  std::smatch m;
  ASSERT_TRUE(
      std::regex_search(stats.out, m, std::regex(R"(\n\s+\d+\s+[\d.]+\s+[\d.]+\s+([\d.]+)\s+[\d.]+ \S+:51\(main\))")))
      << stats.out;
  double cumulative_us = std::stod(m[1]) * 1e6;
  long long through_main = 0;
  for (auto& [stack, count] : folded(r.out))
    if (stack.find("wordfreq:51:main") != std::string::npos) through_main += count;
  EXPECT_NEAR(static_cast<double>(through_main), cumulative_us, cumulative_us * 0.01 + 600);
}

// Each (depth, name) of the flame SVG's frames with its width, against the
// stack prefixes of the folded output.
// -T folded walks the tree in the order that sorting every stack's text
// gives, adding equal stacks: checked against that sort itself on random
// trees whose names start one another ("f", "f2", "f.y", "f x": the
// separator sorts after some of what follows a name, before the rest) or
// fold to one ("a;b" and "a:b"), with process frames, counts that round to
// 0, chains and bushes.
TEST(Folded, TheWalkWritesWhatSortingEveryStackGives) {
  const std::vector<std::string> names = {"f",   "f2",  "f.y", "f x", "f;x", "f:x",      "g",  "",
                                          "a;b", "a:b", "ab",  "a",   "~",   "\xc3\xa9", "f2;"};
  std::mt19937 rng(2026);
  for (int round = 0; round < 300; ++round) {
    Profile p;
    p.events.push_back({p.strings.intern("samples"), p.strings.intern(""), 0, false, kNoString});
    for (const std::string& name : names) {
      Function f;
      f.name = p.strings.intern(name);
      p.add_function(f);
    }
    FlameTree tree;
    tree.frames.emplace_back();
    const std::uint32_t n = 1 + rng() % 80;
    for (std::uint32_t k = 1; k <= n; ++k) {
      FlameFrame f;
      f.parent = rng() % 2 ? k - 1 : rng() % k;  // (chains and bushes)
      if (rng() % 9 == 0)
        f.process = p.strings.intern(rng() % 2 ? "my proc" : "my_proc");
      else
        f.function = static_cast<FuncId>(rng() % names.size());
      const double selves[] = {0, 0.4, 1, 2, 2.6, 7};
      f.self = selves[rng() % 6];
      tree.frames.push_back(f);
    }
    // What the writer did before it walked the tree: every stack's text,
    // sorted, equal ones added.
    std::vector<std::pair<std::string, double>> lines;
    for (std::uint32_t k = 1; k < tree.frames.size(); ++k) {
      const double count = std::round(tree.frames[k].self);
      if (!(count >= 1)) continue;
      std::vector<std::uint32_t> path;
      for (std::uint32_t at = k; at != 0; at = tree.frames[at].parent) path.push_back(at);
      std::string stack;
      for (std::size_t i = path.size(); i-- > 0;) {
        const FlameFrame& f = tree.frames[path[i]];
        for (char c : frame_name(p, f)) stack += c == ';' ? ':' : f.process != kNoString && c == ' ' ? '_' : c;
        if (i) stack += ';';
      }
      lines.emplace_back(stack, count);
    }
    std::sort(lines.begin(), lines.end());
    std::string expected;
    for (std::size_t i = 0; i < lines.size();) {
      double sum = 0;
      std::size_t j = i;
      for (; j < lines.size() && lines[j].first == lines[i].first; ++j) sum += lines[j].second;
      expected += lines[i].first + " " + std::to_string(static_cast<long long>(sum)) + "\n";
      i = j;
    }
    auto written = flame::write_folded(p, tree, 0, 0);
    ASSERT_TRUE(written.has_value());
    ASSERT_EQ(*written, expected) << "round " << round;
  }
}

TEST(Flame, OneRectanglePerStackPrefixWithItsWidth) {
  fs::path perf = flame_dir() / "flame.perf";
  auto f = test::graphgen({"-T", "folded", perf.string()});
  auto svg = test::graphgen({"-T", "flame", perf.string()});
  ASSERT_EQ(f.exit_code, 0) << f.err;
  ASSERT_EQ(svg.exit_code, 0) << svg.err;
  std::map<std::string, long long> prefixes;  // "depth|name-path" -> samples
  long long total = 0;
  for (auto& [stack, count] : folded(f.out)) {
    total += count;
    std::string path;
    std::istringstream frames(stack);
    std::string frame;
    while (std::getline(frames, frame, ';')) {
      path += (path.empty() ? "" : ";") + frame;
      prefixes[path] += count;
    }
  }
  const double usable = 1180;  // 1200 wide, 10 px either side
  std::multiset<std::pair<std::string, long>> expected, drawn;
  for (auto& [path, count] : prefixes) {
    double width = count * usable / total;
    if (width < 0.1) continue;
    std::size_t depth = static_cast<std::size_t>(std::count(path.begin(), path.end(), ';')) + 1;
    std::string name = path.substr(path.rfind(';') == std::string::npos ? 0 : path.rfind(';') + 1);
    expected.insert({std::to_string(depth) + "|" + name, std::lround(width * 10)});
  }
  static const std::regex frame(
      R"re(<g class="f" data-d="(\d+)" data-n="([^"]*)"><title>[^<]*</title><rect x="[\d.]+" y="[\d.]+" width="([\d.]+)")re");
  for (auto it = std::sregex_iterator(svg.out.begin(), svg.out.end(), frame); it != std::sregex_iterator(); ++it) {
    if ((*it)[1] == "0") {
      EXPECT_EQ((*it)[2], "all");
      EXPECT_EQ(std::stod((*it)[3]), usable);
      continue;
    }
    drawn.insert({(*it)[1].str() + "|" + test::xml_unescape((*it)[2]), std::lround(std::stod((*it)[3]) * 10)});
  }
  EXPECT_EQ(drawn.size(), expected.size());
  EXPECT_EQ(drawn, expected);
}

TEST(Flame, SaysWhenTheStacksAreApproximate) {
  auto svg = test::graphgen({"-T", "flame", (test::testdata_dir() / "demo.pstats").string()});
  ASSERT_EQ(svg.exit_code, 0) << svg.err;
  EXPECT_NE(svg.out.find("approximate: built from call ratios"), std::string::npos);
  auto exact = test::graphgen({"-T", "flame", (flame_dir() / "flame.perf").string()});
  EXPECT_EQ(exact.out.find("approximate: built"), std::string::npos);
  EXPECT_NE(exact.out.find("data-approximate=\"0\""), std::string::npos);
}

// XML 1.0 allows DEL and the C1 controls, HTML5 does not, and a browser
// shows them as nothing: in the flame graph's names each becomes a visible
// escape (as in every text output), in the report's title (the input's
// name) U+FFFD.
TEST(Flame, ControlCharactersInNamesAndTitlesAreShown) {
  using namespace std::string_literals;
  fs::path dir = test::temp_dir();
  fs::path in = dir / "del\x7f-nel\xc2\x85.folded";
  std::ofstream(in) << "main;del\x7fname;nel\xc2\x85name 3\nmain 1\n"s;
  auto no_control = [](const std::string& s) {
    for (std::size_t i = 0; i < s.size(); ++i) {
      auto u = static_cast<unsigned char>(s[i]);
      if (u == 0x7F) return false;
      if (u == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
          static_cast<unsigned char>(s[i + 1]) < 0xA0)
        return false;
    }
    return true;
  };
  auto svg = test::graphgen({"-T", "flame", in.string()});
  ASSERT_EQ(svg.exit_code, 0) << svg.err;
  EXPECT_TRUE(no_control(svg.out));
  EXPECT_NE(svg.out.find("del\\x7fname"), std::string::npos);
  EXPECT_NE(svg.out.find("nel\\u0085name"), std::string::npos);
  auto html = test::graphgen({"-T", "html", in.string()});
  ASSERT_EQ(html.exit_code, 0) << html.err;
  EXPECT_TRUE(no_control(html.out));
  EXPECT_NE(html.out.find("del\xEF\xBF\xBD-nel\xEF\xBF\xBD.folded - graphgen report</title>"), std::string::npos);
}

TEST(Flame, ReverseDrawsTheRootAtTheTop) {
  auto down = test::graphgen({"-T", "flame", "--flame-reverse", (flame_dir() / "flame.perf").string()});
  ASSERT_EQ(down.exit_code, 0) << down.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(down.out, m,
                                std::regex(R"re(data-n="all"><title>[^<]*</title><rect x="[\d.]+" y="([\d.]+)")re")));
  EXPECT_LT(std::stod(m[1]), 100.0);
  EXPECT_NE(down.out.find("Icicle Graph"), std::string::npos);
}

TEST(Html, ReportHoldsEveryFunctionAndFetchesNothing) {
  fs::path out = test::temp_dir() / "r.html";
  auto r = test::graphgen({(test::testdata_dir() / "sphinx/jsontool.pstats").string(), "-o", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string html = test::read_file(out);
  EXPECT_EQ(html.find("src=\"http"), std::string::npos);
  EXPECT_EQ(html.find("href=\"http"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  std::size_t begin = html.find("<script type=\"application/json\" id=\"data\">");
  ASSERT_NE(begin, std::string::npos);
  begin = html.find('>', begin) + 1;
  std::size_t end = html.find("</script>", begin);
  auto data = nlohmann::json::parse(html.substr(begin, end - begin));
  EXPECT_EQ(data["functions"].size(), 323u);
  EXPECT_TRUE(data["approximate"].get<bool>());
  EXPECT_GT(data["frames"].size(), 100u);
  EXPECT_TRUE(data["ranks"].is_null());
}

// The report's data: the JSON the page draws its table and icicle from.
nlohmann::json report_data(const std::string& html) {
  std::size_t begin = html.find("<script type=\"application/json\" id=\"data\">");
  if (begin == std::string::npos) return {};
  begin = html.find('>', begin) + 1;
  return nlohmann::json::parse(html.substr(begin, html.find("</script>", begin) - begin));
}

// Sampled profiles have no reported times, only ratios: the table showed 0
// for every function (issue 21).
TEST(Html, SampledProfilesShowTheirCostsInTheTable) {
  fs::path dir = test::temp_dir();
  std::ofstream(dir / "s.folded") << "main;a;b 10\nmain;a 5\nmain;c 3\n";
  auto r = test::graphgen({(dir / "s.folded").string(), "-o", (dir / "s.html").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto data = report_data(test::read_file(dir / "s.html"));
  EXPECT_EQ(data["total"], 18);
  std::map<std::string, std::pair<double, double>> rows;  // label -> self, inclusive
  for (auto& f : data["functions"]) rows[f[0]] = {f[3].get<double>(), f[4].get<double>()};
  EXPECT_EQ(rows, (std::map<std::string, std::pair<double, double>>{
                      {"main", {0, 18}}, {"a", {5, 15}}, {"b", {10, 10}}, {"c", {3, 3}}}));
  // A real recording: the self column adds up to its 228 samples.
  auto perf =
      test::graphgen({(test::testdata_dir() / "pyperf/work.perf.xz").string(), "-o", (dir / "p.html").string()});
  ASSERT_EQ(perf.exit_code, 0) << perf.err;
  data = report_data(test::read_file(dir / "p.html"));
  double self = 0;
  for (auto& f : data["functions"]) self += f[3].get<double>();
  EXPECT_EQ(data["total"], 228);
  EXPECT_DOUBLE_EQ(self, 228);
  fs::remove_all(dir);
}

// Call-graph profiles have no self times in their graph either: every
// callgrind profile's folded output was empty (issue 21).
TEST(Folded, CallgrindStacksAddUpToTheSummary) {
  for (const char* name : {"sites.callgrind", "cxx.callgrind", "threads.callgrind"}) {
    SCOPED_TRACE(name);
    fs::path in = test::testdata_dir() / "callgrind" / name;
    std::smatch m;
    std::string text = test::read_file(in);
    ASSERT_TRUE(std::regex_search(text, m, std::regex("\n(?:summary|totals): (\\d+)"))) << in;
    double summary = std::stod(m[1]);
    auto r = test::graphgen({"-T", "folded", in.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    double sum = 0, lines = 0;
    for (auto& [stack, count] : folded(r.out)) sum += static_cast<double>(count), ++lines;
    // Each line is rounded; branches under 0.001% of the whole are left out.
    EXPECT_GT(lines, 10);
    EXPECT_NEAR(sum, summary, lines / 2 + summary * 1e-3) << r.out.substr(0, 2000);
  }
}

// Python 3.11 gives nested comprehensions on one line one key, so a real
// sympy profile has a <listcomp> whose only caller is itself. It was the
// only root of the rebuilt stacks, which kept 0.66 % of the profile; the
// program's entry (the exec cycle) is the root (issue 21).
TEST(Folded, ASelfCallerDoesNotHideTheProgram) {
  fs::path in = test::testdata_dir() / "selfcall" / "sympy-py3117.pstats.xz";
  auto r = test::graphgen({"-T", "folded", in.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  long long sum = 0, through_exec = 0, through_script = 0;
  for (auto& [stack, count] : folded(r.out)) {
    sum += count;
    if (stack.starts_with("~:0:<built-in method builtins.exec>;")) through_exec += count;
    if (stack.find(";solve:1:<module>;") != std::string::npos) through_script += count;
    EXPECT_FALSE(stack.starts_with("conflict:39:<listcomp>")) << stack;
  }
  // The largest cumulative time, builtins.exec's 1.312977052 s (pstats'
  // total_tt is 1.307 s: cProfile's cumulative times run a little over).
  EXPECT_NEAR(static_cast<double>(sum), 1312977, 1312977 * 0.001);
  EXPECT_GT(through_exec, sum * 99 / 100);
  EXPECT_GT(through_script, sum / 10);
}

TEST(Browser, FlameGraphZoomsAndSearches) {
  if (!have("chromium")) GTEST_SKIP() << "chromium (Debian package chromium) is not installed";
  fs::path dir = test::temp_dir();
  for (auto [input, name] : {std::pair<fs::path, std::string>{flame_dir() / "flame.perf", "perf.flame.svg"},
                             {test::testdata_dir() / "sphinx/jsontool.pstats", "pstats.flame.svg"}}) {
    auto r = test::graphgen({input.string(), "-o", (dir / name).string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto result = selftest(dir / name, name + ".png");
    EXPECT_TRUE(result.value("pass", false)) << name << ": " << result.dump();
    EXPECT_TRUE(result["errors"].empty()) << result.dump();
    EXPECT_GT(result.value("frames", 0), 10) << result.dump();
  }
}

TEST(Browser, HtmlReportSortsFiltersAndZooms) {
  if (!have("chromium")) GTEST_SKIP() << "chromium (Debian package chromium) is not installed";
  fs::path dir = test::temp_dir();
  auto r =
      test::graphgen({(test::testdata_dir() / "sphinx/jsontool.pstats").string(), "-o", (dir / "r.html").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto result = selftest(dir / "r.html", "report.png", "icicle");
  EXPECT_TRUE(result.value("pass", false)) << result.dump();
  // The first rows: the functions of highest self time, as -T stats --sort tottime has them.
  auto stats = test::graphgen(
      {"-T", "stats", "--sort", "tottime", "--top", "3", (test::testdata_dir() / "sphinx/jsontool.pstats").string()});
  ASSERT_EQ(stats.exit_code, 0) << stats.err;
  ASSERT_GE(result["first_rows"].size(), 3u) << result.dump();
  EXPECT_NE(stats.out.find("method 'write' of '_io.TextIOWrapper' objects"), std::string::npos) << stats.out;
  EXPECT_EQ(result["first_rows"][0], "~:0:<method 'write' of '_io.TextIOWrapper' objects>") << result.dump();
  EXPECT_TRUE(result.value("sorted_by_calls", false));
  EXPECT_TRUE(result.value("zoomed", false)) << result.dump();
  EXPECT_TRUE(result.value("graph", false)) << result.dump();
  EXPECT_EQ(result.value("page", std::string()), "page 2 of 4");
  // The File:line column is right-to-left (long paths lose their start);
  // /usr/lib/x.py:214 showed as usr/lib/x.py:214/.
  EXPECT_TRUE(result.value("where_reads_left_to_right", false)) << result.dump();
  EXPECT_TRUE(result.value("where", std::string()).starts_with("/")) << result.dump();
  // A function chosen in the table: its callers and callees, one of them
  // followed, re-rooted in the icicle, back by a breadcrumb; the icicle cut
  // by the depth control; pstats' own column names for a time profile.
  EXPECT_TRUE(result.value("panel_row_selected", false)) << result.dump();
  EXPECT_GE(result.value("callers_rows", 0) + result.value("callees_rows", 0), 1) << result.dump();
  EXPECT_TRUE(result.value("followed", false)) << result.dump();
  EXPECT_TRUE(result.value("rerooted", false)) << result.dump();
  EXPECT_TRUE(result.value("reroot_crumbs", std::string()).starts_with("all \u203a ")) << result.dump();
  EXPECT_TRUE(result.value("crumb_back", false)) << result.dump();
  EXPECT_EQ(result.value("depth_rows", 0), 2) << result.dump();
  // The sunburst: the same frames as rings; a click zooms, the middle goes up.
  EXPECT_GT(result.value("sunburst_arcs", 0), 10) << result.dump();
  EXPECT_TRUE(result.value("sunburst_zoomed", false)) << result.dump();
  EXPECT_TRUE(result.value("sunburst_up", false)) << result.dump();
  EXPECT_GT(result.value("all_rows", 0), 5) << result.dump();
  const std::vector<std::string> pstats_names = {"Function", "tottime",       "tottime %",     "cumtime",  "cumtime %",
                                                 "ncalls",   "percall (tot)", "percall (cum)", "File:line"};
  EXPECT_EQ(result["headers"].get<std::vector<std::string>>(), pstats_names) << result.dump();
}

// pstats' percall (cum) is cumtime per primitive call: merge_sort, called
// 7999 times and once from outside (7999/1), takes 0.054 s a primitive
// call, as -T stats prints; the report divided by all 7999 calls.
TEST(Browser, HtmlReportsPercallCumPerPrimitiveCall) {
  if (!have("chromium")) GTEST_SKIP() << "chromium (Debian package chromium) is not installed";
  fs::path dir = test::temp_dir();
  auto r = test::graphgen({(test::testdata_dir() / "demo.pstats").string(), "-o", (dir / "demo.html").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto result = selftest(dir / "demo.html", "report-demo.png");
  EXPECT_TRUE(result.value("pass", false)) << result.dump();
  ASSERT_TRUE(result.contains("recursive_row")) << result.dump();
  const auto row = result["recursive_row"].get<std::vector<std::string>>();
  ASSERT_EQ(row.size(), 9u) << result.dump();
  EXPECT_EQ(row[0], "wordfreq:14:merge_sort") << result.dump();
  EXPECT_EQ(row[5], "7,999/1");
  EXPECT_EQ(row[7], row[3]);  // percall (cum) = cumtime / 1
  EXPECT_NE(row[6], row[1]);  // percall (tot) = tottime / 7999
}

// An mprof file's report has a Memory tab: the plot -T memplot draws, shown.
TEST(Browser, HtmlReportOfAnMprofFileShowsTheMemoryPlot) {
  if (!have("chromium")) GTEST_SKIP() << "chromium (Debian package chromium) is not installed";
  fs::path dir = test::temp_dir();
  const fs::path dat = test::testdata_dir() / "mprof" / "both.dat";
  auto r = test::graphgen({dat.string(), "-o", (dir / "m.html").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string page = test::read_file(dir / "m.html");
  EXPECT_NE(page.find("<button data-tab=\"memory\">Memory</button>"), std::string::npos);
  EXPECT_NE(page.find(">peak 199.555 MiB</text>"), std::string::npos);
  auto result = selftest(dir / "m.html", "report-memory.png", "memory");
  EXPECT_TRUE(result.value("pass", false)) << result.dump();
  EXPECT_EQ(result.value("memory_width", 0), 960) << result.dump();
  // Its polylines are those of -T memplot: the grid, two runs, 12 brackets, legends, the peak.
  auto plot = test::graphgen({dat.string(), "-T", "memplot"});
  std::size_t lines = 0;
  for (std::size_t at = 0; (at = plot.out.find("<polyline", at)) != std::string::npos; ++at) ++lines;
  EXPECT_GT(lines, 14u);
  EXPECT_EQ(result.value("memory_lines", 0u), lines) << result.dump();
  // A report without memory traces has no Memory tab.
  auto plain = test::graphgen({(test::testdata_dir() / "demo.pstats").string(), "-T", "html"});
  EXPECT_EQ(plain.out.find("data-tab=\"memory\""), std::string::npos);
}

TEST(Browser, HtmlReportOfRanksHasTheImbalanceTable) {
  if (!have("chromium")) GTEST_SKIP() << "chromium (Debian package chromium) is not installed";
  fs::path dir = test::temp_dir();
  std::vector<std::string> args;
  for (int i = 0; i < 8; ++i)
    args.push_back((test::testdata_dir() / "mpi" / ("cpu_" + std::to_string(i) + ".prof")).string());
  args.insert(args.end(), {"-o", (dir / "ranks.html").string()});
  auto r = test::graphgen(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto result = selftest(dir / "ranks.html", "report-ranks.png", "ranks");
  EXPECT_TRUE(result.value("pass", false)) << result.dump();
  EXPECT_GT(result.value("rank_rows", 0), 10) << result.dump();
  // A function across the ranks: a bar per rank, mean, min, max and +-1 std
  // lines, sortable by value, a histogram of every rank; a rank's own view.
  EXPECT_TRUE(result.value("function_shown", false)) << result.dump();
  EXPECT_EQ(result.value("function_bars", 0), 8) << result.dump();
  EXPECT_EQ(result.value("function_lines", 0), 5) << result.dump();
  EXPECT_TRUE(result.value("sorted_by_value", false)) << result.dump();
  EXPECT_EQ(result.value("histogram_ranks", 0), 8) << result.dump();
  EXPECT_EQ(result.value("rank_top_rows", 0), 8) << result.dump();
  EXPECT_NE(result.value("rank_shown", std::string()).find("% of its self cost"), std::string::npos) << result.dump();
  EXPECT_EQ(result.value("skipped_banner", std::string("?")), "") << result.dump();
}

// --keep-going: the report names the ranks left out; one packed TAU file
// is every rank of its run.
TEST(Browser, HtmlReportNamesSkippedRanksAndReadsPackedRanks) {
  if (!have("chromium")) GTEST_SKIP() << "chromium (Debian package chromium) is not installed";
  fs::path dir = test::temp_dir() / "skipped-ranks";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::vector<std::string> args = {"--keep-going", "-q"};
  for (int i = 0; i < 8; ++i) {
    fs::path p = dir / ("cpu_" + std::to_string(i) + ".prof");
    if (i == 2 || i == 6)
      std::ofstream(p) << "{(cut";
    else
      fs::copy_file(test::testdata_dir() / "mpi" / ("cpu_" + std::to_string(i) + ".prof"), p);
    args.push_back(p.string());
  }
  args.insert(args.end(), {"-o", (dir / "kept.html").string()});
  auto r = test::graphgen(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto result = selftest(dir / "kept.html", "report-skipped.png");
  EXPECT_TRUE(result.value("pass", false)) << result.dump();
  EXPECT_EQ(result.value("skipped_banner", std::string()),
            "Not counted: 2 ranks whose input could not be read (--keep-going): 2, 6.")
      << result.dump();
  EXPECT_EQ(result.value("function_bars", 0), 6) << result.dump();
  auto t =
      test::graphgen({(test::testdata_dir() / "tau" / "DrawGraph-8.ppk").string(), "-o", (dir / "tau.html").string()});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  auto tau = selftest(dir / "tau.html", "report-tau.png", "ranks");
  EXPECT_TRUE(tau.value("pass", false)) << tau.dump();
  EXPECT_EQ(tau.value("function_bars", 0), 8) << tau.dump();
}

TEST(Browser, HostileNamesCannotBreakThePages) {
  if (!have("chromium")) GTEST_SKIP() << "chromium (Debian package chromium) is not installed";
  fs::path dir = test::temp_dir();
  fs::path in = test::write_temp("hostile.folded",
                                 "main;</script><script>document.body.setAttribute('data-selftest','{}')</script> 5\n"
                                 "main;]]><x y=\"\xff\xfe\" &amp; 7\nmain;\x01\x02odd 3\nmain;plain 9\n");
  for (std::string name : {"h.flame.svg", "h.html"}) {
    auto r = test::graphgen({in.string(), "-o", (dir / name).string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto result = selftest(dir / name, "hostile-" + name + ".png");
    EXPECT_TRUE(result.value("pass", false)) << name << ": " << result.dump();
  }
}

}  // namespace
}  // namespace graphgen::flame_test

namespace graphgen::flame_test {
namespace {

// -T html --compare: every function's row, sortable and filtered in the
// page (Chromium runs its self-test).
TEST(Browser, CompareReportSortsAndFilters) {
  fs::path dir = test::testdata_dir() / "compare" / "callgrind";
  fs::path out = test::temp_dir() / "compare.html";
  auto r = test::graphgen({"--compare", (dir / "parity-O0.callgrind.xz").string(),
                           (dir / "parity-O2.callgrind.xz").string(), "-o", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string html = test::read_file(out);
  // One row per function of either side, as the CSV has them.
  std::size_t rows = 0;
  for (std::size_t at = 0; (at = html.find("<tr><td", at)) != std::string::npos; ++at) ++rows;
  EXPECT_EQ(rows, 250u);
  EXPECT_NE(html.find("<td data-v=\"-88704\" class=\"down\">-88704</td>"), std::string::npos);  // is_even'2's self
  if (!have("chromium")) GTEST_SKIP() << "chromium (Debian package chromium) is not installed";
  auto result = selftest(out, "compare-report.png");
  EXPECT_EQ(result.value("rows", 0), 250) << result.dump();
  EXPECT_TRUE(result.value("sorted_by_self_delta", false)) << result.dump();
  EXPECT_EQ(result.value("first", std::string()), "is_even'2") << result.dump();
  EXPECT_EQ(result.value("filtered", std::string()), "2 of 250 functions") << result.dump();
}

}  // namespace
}  // namespace graphgen::flame_test
