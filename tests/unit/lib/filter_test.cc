// pprof's --focus/--ignore/--hide/--show on stack formats (exact, checked
// against stacks counted by hand), on call-graph formats (pstats, callgrind:
// folded by call ratios), in every output; and perf's Python frames
// (python -X perf_jit, testdata/pyperf) with the mixed Python/C view and
// one [unknown] per DSO.
#include "graphgen/analysis/filter.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "graphgen/labels.h"
#include "perf/python.h"
#include "registry.h"
#include "util/test_util.h"

namespace graphgen::filter_test {
namespace {

namespace fs = std::filesystem;

// Stacks counted by hand below: 20 samples.
constexpr const char* kStacks =
    "main;alpha;beta 10\n"
    "main;alpha;gamma 5\n"
    "main;delta;beta 3\n"
    "main;delta 2\n";

Profile stacks() { return test::read_ok({test::write_temp("s.folded", kStacks)}, "collapse"); }

// Filters with one option set.
Filters with(std::vector<std::string> Filters::*option, std::vector<std::string> re) {
  Filters f;
  f.*option = std::move(re);
  return f;
}
Filters hide(std::vector<std::string> re) { return with(&Filters::hide, std::move(re)); }
Filters focus_on(std::vector<std::string> re) { return with(&Filters::focus, std::move(re)); }
Filters ignoring(std::vector<std::string> re) { return with(&Filters::ignore, std::move(re)); }
Filters showing(std::vector<std::string> re) { return with(&Filters::show, std::move(re)); }

Profile filtered(Profile p, const Filters& f, Diagnostics* diag = nullptr) {
  Diagnostics local;
  auto ok = apply_filters(p, f, diag ? *diag : local);
  EXPECT_TRUE(ok) << (ok ? "" : ok.error().message);
  return p;
}

// The function of this name, or of this label (`work:main`).
std::optional<FuncId> find(const Profile& p, std::string_view name) {
  for (FuncId f = 0; f < p.functions.size(); ++f)
    if (p.str(p.functions[f].name) == name || function_label(p, f) == name) return f;
  return std::nullopt;
}

double self(const Profile& p, std::string_view name, std::size_t e = 0) {
  auto f = find(p, name);
  EXPECT_TRUE(f) << name;
  return f ? p.value(e, p.self(*f, e)) : -1;
}

// The call caller -> callee: its inclusive cost (event e) and count, or -1.
std::pair<double, std::int64_t> call(const Profile& p, std::string_view caller, std::string_view callee,
                                     std::size_t e = 0) {
  auto a = find(p, caller), b = find(p, callee);
  if (!a || !b) return {-1, -1};
  for (CallId c = 0; c < p.calls.size(); ++c)
    if (p.calls[c].caller == *a && p.calls[c].callee == *b) return {p.call_value(c, e), p.calls[c].count};
  return {-1, -1};
}

double total_self(const Profile& p, std::size_t e = 0) {
  double sum = 0;
  for (FuncId f = 0; f < p.functions.size(); ++f) sum += p.value(e, p.self(f, e));
  return sum;
}

TEST(Filters, HideGivesAFramesCostToItsCallerAndKeepsEverySample) {
  Profile p = filtered(stacks(), hide({"^alpha$"}));
  EXPECT_FALSE(find(p, "alpha"));
  EXPECT_EQ(total_self(p), 20);
  EXPECT_EQ(self(p, "beta"), 13);
  EXPECT_EQ(self(p, "gamma"), 5);
  EXPECT_EQ(self(p, "delta"), 2);
  EXPECT_EQ(self(p, "main"), 0);
  EXPECT_EQ(call(p, "main", "beta").first, 10);  // main;alpha;beta became main;beta
  EXPECT_EQ(call(p, "main", "gamma").first, 5);
  EXPECT_EQ(call(p, "main", "delta").first, 5);
  EXPECT_EQ(call(p, "delta", "beta").first, 3);
  // Stack totals: main is in all 20 samples, beta in 13.
  EXPECT_EQ(p.value(0, p.stack_inclusive(*find(p, "main"), 0)), 20);
  EXPECT_EQ(p.value(0, p.stack_inclusive(*find(p, "beta"), 0)), 13);
}

TEST(Filters, FocusKeepsOnlySamplesThroughAMatch) {
  Profile p = filtered(stacks(), focus_on({"^beta$"}));
  EXPECT_EQ(total_self(p), 13);
  EXPECT_FALSE(find(p, "gamma"));  // only in a sample without beta
  EXPECT_EQ(call(p, "main", "alpha").first, 10);
  EXPECT_EQ(call(p, "main", "delta").first, 3);  // main;delta alone (2) is gone
  EXPECT_EQ(self(p, "delta"), 0);
}

TEST(Filters, IgnoreDropsSamplesThroughAMatch) {
  Profile p = filtered(stacks(), ignoring({"^delta$"}));
  EXPECT_EQ(total_self(p), 15);
  EXPECT_FALSE(find(p, "delta"));
  EXPECT_EQ(self(p, "beta"), 10);
  EXPECT_EQ(self(p, "gamma"), 5);
}

TEST(Filters, ShowKeepsOnlyMatchingFrames) {
  Profile p = filtered(stacks(), showing({"^(main|beta)$"}));
  EXPECT_EQ(p.functions.size(), 2u);
  EXPECT_EQ(total_self(p), 20);
  EXPECT_EQ(self(p, "beta"), 13);
  EXPECT_EQ(self(p, "main"), 7);  // main;alpha;gamma and main;delta end in main
  EXPECT_EQ(call(p, "main", "beta").first, 13);
}

TEST(Filters, CombineAsPprofDoes) {
  // Focus is decided on the stacks before hiding: main;alpha;beta and main;delta;beta.
  Profile p = filtered(stacks(), [] {
    Filters f = focus_on({"^beta$"});
    f.hide = {"^alpha$"};
    return f;
  }());
  EXPECT_EQ(total_self(p), 13);
  EXPECT_EQ(call(p, "main", "beta").first, 10);
  EXPECT_EQ(call(p, "delta", "beta").first, 3);
  // Several expressions of one option: any matching.
  Profile q = filtered(stacks(), ignoring({"^gamma$", "^delta$"}));
  EXPECT_EQ(total_self(q), 10);
}

TEST(Filters, StacksLeftEmptyAreDroppedWithAWarning) {
  Diagnostics diag;
  Profile p = filtered(stacks(), hide({"^(main|alpha|delta)$"}), &diag);
  EXPECT_EQ(total_self(p), 18);  // main;delta (2) has no frame left
  ASSERT_EQ(diag.warnings().size(), 1u);
  EXPECT_NE(diag.warnings()[0].find("1 sample stack(s) with no frame"), std::string::npos) << diag.warnings()[0];
  EXPECT_NE(diag.warnings()[0].find("10.00%"), std::string::npos) << diag.warnings()[0];
}

TEST(Filters, AnExpressionMatchingNothingIsSaidAndChangesNothing) {
  Diagnostics diag;
  Profile p = filtered(stacks(), hide({"^nothing$"}), &diag);
  ASSERT_EQ(diag.warnings().size(), 1u);
  EXPECT_EQ(diag.warnings()[0], "--hide: no function matches the expression");
  EXPECT_EQ(total_self(p), 20);
  EXPECT_EQ(p.functions.size(), 5u);
}

TEST(Filters, BadExpressionsAreUsageErrors) {
  auto bad = check_filters(focus_on({"a("}));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().kind, Error::Kind::kBadUsage);
  EXPECT_NE(bad.error().message.find("--focus 'a(': expected a POSIX extended regular expression"), std::string::npos)
      << bad.error().message;
  auto r = test::graphgen({"--hide", "(", (test::testdata_dir() / "demo.pstats").string(), "-o", "/dev/null"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
}

TEST(Filters, PerfSamplesAreFilteredExactly) {
  // q-g.perf: 44 samples, 22 of q's mutual recursion and 22 of the thread
  // `my worker`: start_thread -> worker -> __sin_fma (19) or sin@plt (3).
  fs::path q = test::testdata_dir() / "perf" / "q-g.perf";
  Profile all = test::read_ok({q}, "perf");
  ASSERT_EQ(total_self(all), 44);
  Profile hidden = filtered(test::read_ok({q}, "perf"), hide({"^worker$"}));
  EXPECT_EQ(total_self(hidden), 44);  // conserved
  EXPECT_FALSE(find(hidden, "worker"));
  EXPECT_EQ(call(hidden, "start_thread", "__sin_fma").first, 19);
  EXPECT_EQ(call(hidden, "start_thread", "sin@plt").first, 3);
  Profile focus = filtered(test::read_ok({q}, "perf"), focus_on({"^worker$"}));
  EXPECT_EQ(total_self(focus), 22);
  EXPECT_FALSE(find(focus, "is_odd"));
  Profile ignore = filtered(test::read_ok({q}, "perf"), ignoring({"^worker$"}));
  EXPECT_EQ(total_self(ignore), 22);
  EXPECT_FALSE(find(ignore, "__sin_fma"));
}

constexpr const char* kLen = "<built-in method builtins.len>";
constexpr const char* kGet = "<method 'get' of 'dict' objects>";

fs::path demo() { return test::testdata_dir() / "demo.pstats"; }

TEST(Filters, PstatsHideFoldsAFunctionIntoItsCaller) {
  Profile before = test::read_ok({demo()});
  Profile p = filtered(test::read_ok({demo()}), hide({"^merge$"}));
  EXPECT_FALSE(find(p, "merge"));
  ASSERT_TRUE(find(p, "merge_sort"));
  // merge's one caller is merge_sort: all of it goes there.
  EXPECT_EQ(self(p, "merge_sort"), self(before, "merge_sort") + self(before, "merge"));
  EXPECT_NEAR(total_self(p), total_self(before), 1e-12);
  // merge's calls now come from merge_sort, added to its own.
  EXPECT_EQ(call(p, "merge_sort", "<method 'append' of 'list' objects>").second, 42224);
  EXPECT_EQ(call(p, "merge_sort", kLen).second, 11998 + 89930);
  EXPECT_DOUBLE_EQ(call(p, "merge_sort", kLen).first,
                   call(before, "merge_sort", kLen).first + call(before, "merge", kLen).first);
  // Totals are the profiler's: unchanged.
  FuncId ms = *find(p, "merge_sort"), before_ms = *find(before, "merge_sort");
  EXPECT_EQ(p.total(ms, 0), before.total(before_ms, 0));
}

TEST(Filters, PstatsFocusAndIgnoreSelectByCallPaths) {
  Profile focus = filtered(test::read_ok({demo()}), focus_on({"^count$"}));
  for (const char* kept : {"count", kGet, "main", "<module>"}) EXPECT_TRUE(find(focus, kept)) << kept;
  EXPECT_FALSE(find(focus, "merge_sort"));
  Profile ignore = filtered(test::read_ok({demo()}), ignoring({"^count$"}));
  EXPECT_FALSE(find(ignore, "count"));
  EXPECT_FALSE(find(ignore, kGet));  // only count calls it
  EXPECT_TRUE(find(ignore, "merge_sort"));
}

TEST(Filters, CallgrindHideConservesEveryIntegerCost) {
  fs::path sites = test::testdata_dir() / "callgrind" / "sites.callgrind";
  Profile before = test::read_ok({sites});
  Profile p = filtered(test::read_ok({sites}), hide({"^work$"}));
  EXPECT_FALSE(find(p, "work"));
  for (std::size_t e = 0; e < p.events.size(); ++e) EXPECT_EQ(total_self(p, e), total_self(before, e));
  EXPECT_EQ(self(p, "main"), self(before, "main") + self(before, "work"));
  EXPECT_EQ(call(p, "main", "helper").first, call(before, "work", "helper").first);
  EXPECT_EQ(call(p, "main", "helper").second, call(before, "work", "helper").second);
}

TEST(Filters, WorkInEveryOutput) {
  // The hidden function is in no output; the functions it called are.
  struct Case {
    fs::path input;
    std::string hidden, kept;
  };
  std::vector<Case> cases = {{demo(), "is_odd", "is_even"},
                             {test::testdata_dir() / "perf" / "q-g.perf", "is_odd", "is_even"},
                             {test::write_temp("s.folded", kStacks), "alpha", "gamma"}};
  for (const Case& c : cases) {
    for (const formats::OutputFormat& out : formats::output_formats()) {
      // (text is line_profiler's, heatmaps are of ranks, images are not text,
      // compare tables take two profiles, pprof is gzipped: its test reads
      // it back.)
      if ((out.rendered && out.name != "svg") || out.name == "text" || out.name.starts_with("heatmap") ||
          out.name.starts_with("compare") || out.name == "pprof")
        continue;
      // (Only perf of these has sample times for a timeline.)
      if (out.needs == formats::Needs::kTimeline && c.input.extension() != ".perf") continue;
      if (out.needs == formats::Needs::kMemory) continue;  // (mprof's files only)
      auto r = test::graphgen(
          {c.input.string(), "-T", std::string(out.name), "--hide", "^" + c.hidden + "$", "-n0", "-e0", "-o", "-"});
      ASSERT_EQ(r.exit_code, 0) << out.name << ": " << r.err;
      EXPECT_EQ(r.out.find(c.hidden), std::string::npos) << out.name << " of " << c.input;
      EXPECT_NE(r.out.find(c.kept), std::string::npos) << out.name << " of " << c.input;
    }
  }
}

TEST(Filters, PerRankStatisticsOfSeveralInputsRefuseThem) {
  // Each rank's numbers are taken as it streams into the merge: a filter
  // would change the graph and not the ranks, so it is refused.
  std::vector<std::string> ranks;
  for (int i = 0; i < 4; ++i) ranks.push_back((test::testdata_dir() / "mpi" / fmt::format("cpu_{}.prof", i)).string());
  for (std::vector<std::string> extra : {std::vector<std::string>{"-T", "ranks"}, {"-T", "heatmap"}, {"--imbalance"}}) {
    std::vector<std::string> args = ranks;
    args.insert(args.end(), extra.begin(), extra.end());
    args.insert(args.end(), {"--hide", "checkpoint", "-o", "-"});
    auto r = test::graphgen(args);
    EXPECT_EQ(r.exit_code, 2) << extra.back();
    EXPECT_NE(r.err.find("apply to the merged profile, not to the per-rank statistics of " +
                         (extra.size() == 1 ? extra[0] : "-T " + extra[1])),
              std::string::npos)
        << r.err;
  }
  // The HTML report leaves its ranks table out and says so.
  fs::path html = test::temp_dir() / "r.html";
  std::vector<std::string> args = ranks;
  args.insert(args.end(), {"--hide", "checkpoint", "-o", html.string()});
  auto r = test::graphgen(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("the report has no ranks table"), std::string::npos) << r.err;
  std::string page = test::read_file(html);
  std::size_t begin = page.find('>', page.find("<script type=\"application/json\" id=\"data\">")) + 1;
  auto data = nlohmann::json::parse(page.substr(begin, page.find("</script>", begin) - begin));
  EXPECT_TRUE(data["ranks"].is_null());
  // One input is one rank, filtered like the graph.
  auto one = test::graphgen({ranks[0], "-T", "ranks", "--hide", "checkpoint"});
  EXPECT_EQ(one.exit_code, 0) << one.err;
}

// ---- perf's Python frames -------------------------------------------------

fs::path pyperf() { return test::testdata_dir() / "pyperf" / "work.perf.xz"; }

TEST(PerfPython, PythonFramesBecomePythonFunctions) {
  Diagnostics diag;
  auto read = test::read_profiles({pyperf()}, "", {}, &diag);
  ASSERT_TRUE(read) << read.error().message;
  const Profile& p = *read;
  auto main = find(p, "work:main");
  ASSERT_TRUE(main);
  EXPECT_TRUE(p.functions[*main].python);
  EXPECT_EQ(p.str(p.functions[*main].file), "/tmp/pyperf/work.py");
  EXPECT_EQ(function_label(p, *main), "work:main");
  EXPECT_EQ(total_self(p), 228);
  ASSERT_EQ(diag.warnings().size(), 1u);
  EXPECT_NE(diag.warnings()[0].find("226 of 228 samples hold Python frames (py::)"), std::string::npos)
      << diag.warnings()[0];
}

TEST(PerfPython, PythonFunctionsCallTheCFunctionsTheyReallyCalled) {
  Profile p = test::read_ok({pyperf()});
  // Each work function calls the C code below it directly.
  for (auto [caller, callee] : {std::pair{"work:main", "work:encode_records"},
                                {"work:main", "work:decode_records"},
                                {"work:main", "work:compress"},
                                {"work:compress", "zlib_compress"},
                                {"work:compress", "zlib_crc32"},
                                {"work:encode_records", "__init__:dumps"},
                                {"JSONEncoder.iterencode", "encoder_call"},
                                {"JSONDecoder.raw_decode", "scanner_call"}})
    EXPECT_GT(call(p, caller, callee).first, 0) << caller << " -> " << callee;
  // No interpreter frame and no unresolved address above a Python frame.
  for (const Call& c : p.calls) {
    const Function& caller = p.functions[c.caller];
    const Function& callee = p.functions[c.callee];
    if (callee.python) {
      EXPECT_FALSE(caller.unresolved) << p.str(callee.name);
      EXPECT_FALSE(perf::is_interpreter_frame(p.str(caller.name))) << p.str(caller.name);
    }
    if (caller.python) {
      EXPECT_FALSE(perf::is_interpreter_frame(p.str(callee.name))) << p.str(callee.name);
    }
  }
  // --no-python keeps the interpreter between them.
  formats::ReadOptions keep;
  keep.python = formats::ReadOptions::PythonView::kOff;
  Profile raw = test::read_ok({pyperf()}, "", keep);
  EXPECT_EQ(call(raw, "work:main", "work:compress").first, -1);
  EXPECT_GT(call(raw, "work:compress", "_PyEval_EvalFrameDefault").first, 0);
  EXPECT_EQ(total_self(raw), 228);
}

TEST(PerfPython, FoldUnknownMakesOneFunctionPerDso) {
  // flame.perf: Debian's python3.11 without symbols, a wall of addresses.
  fs::path flame = test::testdata_dir() / "flame" / "flame.perf";
  formats::ReadOptions fold;
  fold.fold_unknown = true;
  Profile p = test::read_ok({flame}, "", fold);
  Profile addresses = test::read_ok({flame});
  std::map<std::string, int> per_object, by_address;
  for (const Function& f : p.functions)
    if (f.unresolved) {
      EXPECT_EQ(p.str(f.name), "[unknown]");
      ++per_object[std::string(p.str(f.object))];
    }
  for (const Function& f : addresses.functions)
    if (f.unresolved) ++by_address[std::string(addresses.str(f.object))];
  for (const auto& [object, n] : per_object) EXPECT_EQ(n, 1) << object;
  EXPECT_GT(by_address["/usr/bin/python3.11"], 1);
  EXPECT_LT(p.functions.size(), addresses.functions.size());
  EXPECT_EQ(per_object.size(), by_address.size());
  // A run of them is one frame: no call from one to itself.
  for (const Call& c : p.calls) EXPECT_FALSE(c.caller == c.callee && p.functions[c.caller].unresolved);
  EXPECT_EQ(total_self(p), total_self(addresses));
}

}  // namespace
}  // namespace graphgen::filter_test
