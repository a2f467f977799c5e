// The callgrind reader on two cores: the second half, read from a `fn=`
// line with the state at the cut unknown, gives the same profile, warnings
// and errors as one reader, on every real file cut at many places, and on
// files made to break each of its guesses (then the first reader reads on).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "callgrind/reader.h"
#include "common/decompress.h"
#include "fuzz/fuzz.h"
#include "util/test_util.h"

namespace graphgen::callgrind_split_test {
namespace {

namespace fs = std::filesystem;

// "" when equal, else the first line that differs in each (a dump of a
// real file is thousands of lines).
std::string difference(const std::string& a, const std::string& b) {
  std::size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  if (i == a.size() && i == b.size()) return "";
  auto line_at = [&](const std::string& s) {
    std::size_t begin = s.rfind('\n', i == 0 ? 0 : i - 1);
    begin = begin == std::string::npos || i == 0 ? 0 : begin + 1;
    return s.substr(begin, s.find('\n', begin) - begin);
  };
  return "one reader: " + line_at(a) + "\ntwo: " + line_at(b);
}

struct Read {
  std::string whole, split;
  bool used = false;
};

Read both(const InputFile& in, std::size_t from, bool merge_by_name = false) {
  formats::ReadOptions o;
  o.keep_positions = false;  // (read for a graph: what is split)
  o.merge_by_name = merge_by_name;
  o.memory_budget = formats::default_budget(in.bytes().size());
  Read r;
  Diagnostics d1, d2;
  r.whole = fuzz::tables(callgrind::read_from(in, o, d1, std::string_view::npos), d1);
  r.split = fuzz::tables(callgrind::read_from(in, o, d2, from, &r.used), d2);
  return r;
}

InputFile text_file(const std::string& text) { return InputFile::from_bytes("made.callgrind", text); }

std::vector<fs::path> callgrind_files() {
  std::vector<fs::path> out;
  std::vector<fs::path> roots = {test::testdata_dir()};
  if (!test::corpus_dir().empty()) roots.push_back(test::corpus_dir());
  for (const fs::path& root : roots)
    for (const auto& e : fs::recursive_directory_iterator(root)) {
      if (!e.is_regular_file()) continue;
      std::string name = e.path().filename().string();
      if (name.find("callgrind") != std::string::npos && e.path().parent_path().filename() != "bad")
        out.push_back(e.path());
    }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(CallgrindSplit, EveryFileCutAtSevenPlacesReadsAsOne) {
  std::size_t files = 0, cuts = 0, used = 0;
  for (const fs::path& path : callgrind_files()) {
    auto opened = InputFile::open(path.string());
    ASSERT_TRUE(opened) << path;
    auto in = formats::prepared(std::move(opened).value());
    if (!in || !callgrind::sniff(in->bytes().substr(0, 2048))) continue;
    ++files;
    const std::size_t size = in->bytes().size();
    for (bool by_name : {false, true})
      for (std::size_t k = 1; k < 8; ++k) {
        Read r = both(*in, size * k / 8, by_name);
        ASSERT_EQ(difference(r.whole, r.split), "") << path << " cut at " << k << "/8, merge_by_name " << by_name;
        ++cuts;
        used += r.used;
      }
  }
  EXPECT_GE(files, test::corpus_dir().empty() ? 10u : 40u);
  // The second half is kept, not read again, in most cuts of real files.
  EXPECT_GT(used * 2, cuts) << used << " of " << cuts;
}

// A valgrind file of two objects, named by ids, positions relative, ready
// to be cut at its second fn= line.
std::string made(const std::string& before_cut, const std::string& after_cut) {
  return "# callgrind format\nversion: 1\npositions: instr line\nevents: Ir Dr\nsummary: 100 20\n\n"
         "ob=(1) /lib/a.so\nfl=(1) a.c\nfn=(1) main\n0x10 10 5 1\n+2 +1 3\n"
         "cfn=(2) helper\ncalls=2 0x40 40\n+2 +1 7 2\n" +
         before_cut + "fn=(2)\n" + after_cut;
}

std::size_t second_fn(const std::string& text) { return text.find("\nfn=", text.find("\nfn=") + 1) + 1; }

TEST(CallgrindSplit, ResolvesNamesAndLinesDefinedBeforeTheCut) {
  // After the cut: ids defined before it (fl 1, fn 1, ob 1), relative
  // lines from the first half's last one, a new id, and the totals line.
  std::string text = made("",
                          "+16 -1 4\n* * 1 1\ncfn=(1)\ncalls=1 0x10 10\n+1 +1 9\n"
                          "ob=(2) /lib/b.so\nfl=(2) b.c\nfn=(3) deep\n0x90 90 2\n"
                          "fl=(1)\nfn=(4) late\n+3 -2 1\ntotals: 30 4\n");
  InputFile in = text_file(text);
  Read r = both(in, second_fn(text));
  EXPECT_TRUE(r.used);
  EXPECT_EQ(difference(r.whole, r.split), "");
  // helper: the call's line 12 before the cut, then -1; late: 90 - 2.
  Diagnostics diag;
  formats::ReadOptions o;
  o.keep_positions = false;
  auto p = callgrind::read_from(in, o, diag, second_fn(text));
  ASSERT_TRUE(p);
  std::vector<std::int64_t> lines;
  for (const Function& f : p->functions) lines.push_back(f.line);
  EXPECT_EQ(lines, (std::vector<std::int64_t>{10, 11, 90, 88}));
}

TEST(CallgrindSplit, EachStateAtTheCutReadsAsOne) {
  struct Case {
    const char* what;
    std::string before, after;
    bool merge_by_name = false;
    bool kept = false;  // the second half is kept (the guesses hold)
  };
  const std::vector<Case> cases = {
      // fi= just before the cut's fn=: that fn= takes the file of fi=.
      {"file switch pending", "fi=(5) inlined.h\n", "+1 +1 2\n"},
      // cob= kept until the next self cost line in gprof2dot's mode.
      {"cob kept", "cob=(3) /lib/c.so\ncfn=(6) other\ncalls=1 0x50 50\n+1 +1 1\n", "cfn=(7) x\ncalls=1 0 0\n+1 +1 1\n",
       true},
      // cfi= given and no call since.
      {"cfi set", "cfi=(4) far.c\n+1 +1 1\n", "cfn=(7) x\ncalls=1 0 0\n+1 +1 1\n"},
      // A calls= right before the cut: its cost line is after fn=.
      {"in a call", "cfn=(8) y\ncalls=1 0 0\n", "+1 +1 1\n"},
      // An id used after the cut and defined nowhere.
      {"undefined id", "", "cfn=(99)\ncalls=1 0 0\n+1 +1 1\n"},
      // Events given again before the cut, in another order: the second
      // half read its columns in the header's (the fuzzer's find).
      {"events before the cut", "events: Dr Ir\n", "+1 +1 3 4\n"},
      // A new part's events after the cut.
      {"events again", "", "+1 +1 1\nevents: Ir\nfn=(1)\n0x10 10 1\n"},
      // Malformed lines after the cut: the error names the whole file's line.
      {"bad cost", "", "+1 +1 x\n"},
      {"bad position", "", "+z 1 1\n"},
      // Totals read after the cut replace the first half's; an unreadable
      // line changes nothing (the fuzzer's find).
      {"totals after the cut", "", "+1 +1 1\ntotals: 30 4\n", false, true},
      {"unreadable totals after the cut", "totals: 25 3\n", "+1 +1 1\ntotals: 30\x01\n", false, true},
      // valgrind's creator line after the cut (a later part's header): a
      // file of valgrind's without totals is cut short, whichever half
      // said it was valgrind's (the fuzzer's find).
      {"creator after the cut", "", "+1 +1 1\ncreator: callgrind-3.19.0\n", false, true},
      // The file ends inside a call.
      {"ends in a call", "", "cfn=(2)\ncalls=1 0 0\n"},
      // The last line cut short (a call's cost line without costs is whole).
      {"last line cut", "", "+1 +1 1\n+1 +x"},
      {"call's cost line without a newline", "", "cfn=(2)\ncalls=1 0 0\n+1 +1", false, true},
      // Relative lines at the cut that come to 0 and below: the next one is
      // the first line, as reading on takes it.
      {"line 0", "", "+1 -12 1\n+1 +3 1\n", false, true},
      {"line below 0", "", "+1 -40 1\n+1 +50 1\n", false, true},
      // States at the cut the guesses get right: the second half is kept.
      {"relative lines", "", "+1 -3 1\n+1 +3 1\n", false, true},
      {"cob cleared by a self line", "cob=(3) /lib/c.so\ncfn=(6) other\ncalls=1 0x50 50\n+1 +1 1\n+1 +1 1\n",
       "cfn=(7) x\ncalls=1 0 0\n+1 +1 1\n", true, true},
      {"cfn from before the cut", "", "calls=1 0 0\n+1 +1 1\n", false, true},
      {"ids redefined after the cut", "", "fl=(1) other.c\nfn=(1) renamed\n0 1 1\n", false, true},
      // helper (no line before the cut) called by its text, then given a
      // first line under its id, then another under its text: two
      // functions after the cut, one folded, whose first line is the id's.
      {"one function named by id and by text", "",
       "fn=(3) other\n+1 +1 1\ncfn=helper\ncalls=1 0 0\n+1 +1 1\nfn=(2)\n0x40 40 1\nfn=helper\n0x50 50 1\n", false,
       true},
  };
  for (const Case& c : cases) {
    std::string text = made(c.before, c.after);
    InputFile in = text_file(text);
    Read r = both(in, second_fn(text), c.merge_by_name);
    EXPECT_EQ(difference(r.whole, r.split), "") << c.what;
    EXPECT_EQ(r.used, c.kept) << c.what;
  }
}

// Each half is held within half the memory budget while both are: a
// second half that holds most of the functions is read again on one core,
// and a budget too small for the whole file fails as one reader fails.
TEST(CallgrindSplit, TheTwoHalvesShareTheBudget) {
  std::string text = "events: Ir\nfn=(1) main\n1 1\n";
  const std::size_t cut = text.size();
  for (int i = 2; i < 6000; ++i) text += fmt::format("fn=({}) function_with_a_long_name_{}\n{} 1\n", i, i, i);
  InputFile in = text_file(text);
  formats::ReadOptions o;
  o.keep_positions = false;
  Diagnostics d;
  auto whole = callgrind::read_from(in, o, d, std::string_view::npos);
  ASSERT_TRUE(whole);
  const std::size_t bytes = whole->approximate_bytes();
  struct Case {
    std::size_t budget;
    bool kept;
  };
  for (Case c : {Case{bytes * 4, true}, Case{bytes + bytes / 8, false}, Case{bytes / 2, false}}) {
    o.memory_budget = c.budget;
    Diagnostics d1, d2;
    bool used = false;
    const std::string one = fuzz::tables(callgrind::read_from(in, o, d1, std::string_view::npos), d1);
    const std::string two = fuzz::tables(callgrind::read_from(in, o, d2, cut, &used), d2);
    EXPECT_EQ(difference(one, two), "") << "budget " << c.budget << " of " << bytes;
    EXPECT_EQ(used, c.kept) << "budget " << c.budget << " of " << bytes;
  }
}

// The tables are reserved once, at what the bytes can add, so that they
// never move (each doubling touched new pages, each a page fault: 10-15 us
// on some VMs); but not under an address-space limit, where that room
// would stay taken for the profile's life: there they grow as they need.
// (The room is address space only: untouched pages cost no memory.)
TEST(CallgrindSplit, TablesReservedAtTheirBoundExceptUnderAnAddressSpaceLimit) {
#ifdef GRAPHGEN_SANITIZE
  GTEST_SKIP() << "AddressSanitizer maps terabytes of shadow memory: no address-space limit can be set";
#endif
  std::string text = "positions: line\nevents: Ir\nfn=(1) main\n1 1\n";
  for (int i = 2; i < 3000; ++i) text += fmt::format("fn=({}) f{}\n{} 1\n+1 2\ncfn=(1)\ncalls=1 1\n3 4\n", i, i, i);
  const std::size_t cut = text.find("\nfn=", text.size() / 2) + 1;
  InputFile in = text_file(text);
  // What each read holds: "functions calls line_rows" as capacity / size,
  // rounded down.
  auto held = [&](bool positions) {
    formats::ReadOptions o;
    o.keep_positions = positions;
    Diagnostics d;
    auto p = callgrind::read_from(in, o, d, positions ? std::string_view::npos : cut);
    if (!p) return std::string("not read");
    auto times = [](const auto& v) { return v.empty() ? std::size_t{0} : v.capacity() / v.size(); };
    return fmt::format("{} {} {} of {} {} {}", times(p->functions), times(p->calls), times(p->line_costs),
                       p->functions.size(), p->calls.size(), p->line_costs.size());
  };
  for (bool positions : {false, true}) {
    // Unlimited: room for a function each 5 bytes of the first half
    // (the functions here take 48), a line's row each 4 of the whole.
    std::string unlimited = held(positions);
    std::size_t f = 0, c = 0, l = 0;
    ASSERT_EQ(std::sscanf(unlimited.c_str(), "%zu %zu %zu", &f, &c, &l), 3) << unlimited;
    EXPECT_GE(f, 3u) << unlimited;
    if (positions) {
      EXPECT_GE(l, 3u) << unlimited;
    }
  }
  // Under a limit: grown as they need (by doubling, under twice the size).
  auto limited_read = [&] {
    // The address space in use now and 1 GiB more.
    std::size_t pages = 0;
    if (FILE* f = std::fopen("/proc/self/statm", "r")) {
      if (std::fscanf(f, "%zu", &pages) != 1) pages = 0;
      std::fclose(f);
    }
    const rlim_t limit = pages * static_cast<rlim_t>(sysconf(_SC_PAGESIZE)) + (rlim_t{1} << 30);
    struct rlimit r = {limit, limit};
    std::string why = setrlimit(RLIMIT_AS, &r) != 0 ? "setrlimit failed" : "";
    for (bool positions : {false, true}) {
      std::string limited = held(positions);
      std::size_t f = 9, c = 9, l = 9;
      if (why.empty() && (std::sscanf(limited.c_str(), "%zu %zu %zu", &f, &c, &l) != 3 || f > 2 || c > 2 || l > 2))
        why = "under the limit: " + limited;
    }
    std::fprintf(stderr, "%s\n", why.c_str());
    std::fflush(stderr);
    _exit(why.empty() ? 0 : 1);
  };
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(limited_read(), ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace graphgen::callgrind_split_test
