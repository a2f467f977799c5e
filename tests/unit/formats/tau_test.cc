// TAU's profiles against ParaProf's own reading of the same files: every
// thread's calls, exclusive and inclusive values as TAU's Java reader
// (perfdmf's TauDataSource and PackedProfileDataSource) loads them
// (testdata/tau/README.md says how the dumps were made).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "common/decompress.h"
#include "graphgen/analysis/merge.h"
#include "graphgen/analysis/ranks.h"
#include "tau/reader.h"
#include "util/test_util.h"

namespace graphgen::tau_test {
namespace {

namespace fs = std::filesystem;

// One row of ParaProf's dump: a function's values on one thread, one metric.
struct Row {
  std::int64_t node = 0, context = 0, thread = 0;
  std::string metric, name;
  double calls = 0, excl = 0, incl = 0;
};

std::vector<Row> paraprof(const std::string& name) {
  std::istringstream in(test::read_file(test::testdata_dir() / "tau" / "paraprof" / name));
  std::vector<Row> rows;
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line,
            "node,context,thread,metric_index,metric_name,function_name,groups,calls,subroutines,exclusive,"
            "inclusive");
  while (std::getline(in, line)) {
    auto f = test::csv_fields(line);
    if (f.size() != 11) {
      ADD_FAILURE() << "bad oracle line: " << line;
      continue;
    }
    rows.push_back({std::stoll(f[0]), std::stoll(f[1]), std::stoll(f[2]), f[4], f[5], std::stod(f[7]), std::stod(f[9]),
                    std::stod(f[10])});
  }
  EXPECT_GT(rows.size(), 10u);
  return rows;
}

bool is_path(const std::string& name) { return name.find(" => ") != std::string::npos; }

std::map<std::string, FuncId> by_name(const Profile& p) {
  std::map<std::string, FuncId> out;
  for (FuncId f = 0; f < p.functions.size(); ++f) out[std::string(p.str(p.functions[f].name))] = f;
  return out;
}

// TAU's time is in microseconds; graphgen's in seconds, the same double
// divided once.
double seconds(double us) { return us / 1e6; }

// Each file of a folder of profile.N.0.0 against ParaProf's rows of node N.
void check_text_folder(const std::string& folder, const std::string& oracle) {
  std::vector<Row> rows = paraprof(oracle);
  std::set<std::int64_t> nodes;
  for (const Row& r : rows) nodes.insert(r.node);
  std::size_t checked = 0;
  for (std::int64_t node : nodes) {
    fs::path file = test::testdata_dir() / "tau" / folder / ("profile." + std::to_string(node) + ".0.0");
    Profile p = test::read_ok({file}, "tau");
    ASSERT_EQ(p.events.size(), 1u);
    EXPECT_EQ(p.str(p.events[0].name), rows.front().metric);
    auto names = by_name(p);
    std::size_t of_node = 0;
    for (const Row& r : rows) {
      if (r.node != node) continue;
      ++of_node;
      ASSERT_TRUE(names.count(r.name)) << file << ": no function " << r.name;
      FuncId f = names[r.name];
      EXPECT_EQ(p.functions[f].calls, static_cast<std::int64_t>(r.calls)) << r.name;
      EXPECT_EQ(cost_float(p.self(f, 0)), seconds(r.excl)) << r.name;
      EXPECT_EQ(cost_float(p.total(f, 0)), seconds(r.incl)) << r.name;
      ++checked;
    }
    EXPECT_EQ(p.functions.size(), of_node) << file;
  }
  EXPECT_EQ(checked, rows.size());
}

TEST(TauText, EveryTimerOfEveryRankEqualsParaProf) {
  check_text_folder("xmain_0", "xmain_0.csv");  // 8 ranks x 27 timers
  check_text_folder("wrap", "wrap.csv");        // routine names with source locations and parameters
}

TEST(TauText, SourceLocationsInNamesGiveFileAndLine) {
  Profile p = test::read_ok({test::testdata_dir() / "tau" / "wrap" / "profile.0.0.0"}, "tau");
  auto names = by_name(p);
  FuncId main = names.at("int main(int, char **) C [{main.c} {5,1}-{17,1}]");
  EXPECT_EQ(p.str(p.functions[main].file), "main.c");
  EXPECT_EQ(p.functions[main].line, 5);
}

// A packed file as its reader gives it, locations and all.
Profile read_packed(const std::string& file) {
  auto in = InputFile::open((test::testdata_dir() / "tau" / file).string());
  EXPECT_TRUE(in.has_value());
  auto opened = formats::prepared(std::move(in).value());  // gunzipped
  EXPECT_TRUE(opened.has_value());
  Diagnostics diag;
  auto p = tau::read_packed(*opened, {}, diag);
  EXPECT_TRUE(p.has_value()) << p.error().message;
  return std::move(p).value();
}

// Every thread of a packed file against ParaProf's rows of that thread;
// call paths against the edges they give.
void check_packed(const std::string& file, const std::string& oracle) {
  std::vector<Row> rows = paraprof(oracle);
  Profile p = read_packed(file);
  auto names = by_name(p);
  std::map<std::string, const Location*> locations;
  for (const Location& l : p.locations) locations[std::string(p.str(l.label))] = &l;
  const std::size_t ne = p.events.size();
  std::map<std::string, std::size_t> flat_rows;
  std::map<std::pair<FuncId, FuncId>, std::pair<double, double>> edges;  // calls, inclusive
  // Sampling: graphgen leaves out the [SUMMARY] timers (the [SAMPLE] ones'
  // time again) and takes a [CONTEXT] timer's inclusive time (its samples)
  // out of its function's exclusive time, which holds it too.
  std::map<std::pair<std::string, std::string>, double> sampled;  // (thread, function) -> context inclusive
  for (const Row& r : rows)
    if (!is_path(r.name) && r.name.starts_with("[CONTEXT] "))
      sampled[{std::to_string(r.node) + "," + std::to_string(r.context) + "," + std::to_string(r.thread),
               r.name.substr(10)}] += r.incl;
  for (const Row& r : rows) {
    if (r.name.starts_with("[SUMMARY] ")) continue;
    if (is_path(r.name)) {
      std::string callee = r.name.substr(r.name.rfind(" => ") + 4), head = r.name.substr(0, r.name.rfind(" => "));
      std::size_t before = head.rfind(" => ");
      std::string caller = before == std::string::npos ? head : head.substr(before + 4);
      ASSERT_TRUE(names.count(caller) && names.count(callee)) << r.name;
      auto& e = edges[{names[caller], names[callee]}];
      e.first += r.calls;
      e.second += seconds(r.incl);
      continue;
    }
    std::string label = std::to_string(r.node) + "," + std::to_string(r.context) + "," + std::to_string(r.thread);
    ASSERT_TRUE(locations.count(label)) << label;
    const Location& l = *locations[label];
    ++flat_rows[label];
    ASSERT_TRUE(names.count(r.name)) << r.name;
    FuncId f = names[r.name];
    bool found = false;
    for (std::uint32_t row = l.begin; row < l.end; ++row) {
      if (p.location_functions[row] != f) continue;
      found = true;
      auto ctx = sampled.find({label, r.name});
      double excl = ctx == sampled.end() ? seconds(r.excl) : std::max(0.0, seconds(r.excl) - seconds(ctx->second));
      EXPECT_EQ(cost_float(p.location_self[row * ne]), excl) << label << " " << r.name;
      EXPECT_EQ(cost_float(p.location_total[row * ne]), seconds(r.incl)) << label << " " << r.name;
    }
    EXPECT_TRUE(found) << label << " " << r.name;
  }
  // Calls: every thread's, added.
  std::map<std::string, double> calls;
  for (const Row& r : rows)
    if (!is_path(r.name) && !r.name.starts_with("[SUMMARY] ")) calls[r.name] += r.calls;
  for (const auto& [name, n] : calls) EXPECT_EQ(p.functions[names[name]].calls, static_cast<std::int64_t>(n)) << name;
  ASSERT_EQ(flat_rows.size(), p.locations.size());
  for (const Location& l : p.locations) EXPECT_EQ(l.end - l.begin, flat_rows[std::string(p.str(l.label))]);
  std::size_t calls_with_edges = 0;
  for (CallId c = 0; c < p.calls.size(); ++c) {
    auto it = edges.find({p.calls[c].caller, p.calls[c].callee});
    ASSERT_NE(it, edges.end());
    EXPECT_EQ(p.calls[c].count, static_cast<std::int64_t>(it->second.first));
    EXPECT_DOUBLE_EQ(cost_float(p.inclusive(c, 0)), it->second.second);
    ++calls_with_edges;
  }
  EXPECT_EQ(calls_with_edges, edges.size());
}

TEST(TauPacked, EveryThreadEqualsParaProf) {
  check_packed("DrawGraph-8.ppk", "DrawGraph-8.csv");  // 8 ranks, flat
  check_packed("matmult.ppk", "matmult.csv");          // 24 OpenMP threads, call paths and samples
}

TEST(TauPacked, CallPathsAreEdgesNotFlatTime) {
  Profile p = read_packed("matmult.ppk");
  EXPECT_EQ(p.calls.size(), 19u);
  for (const Function& f : p.functions) EXPECT_EQ(p.str(f.name).find(" => "), std::string_view::npos);
}

// With sampling, TAU's timers hold the sampled time and the [SAMPLE] timers
// hold it again: each thread's self costs added up to about twice its top
// timer's inclusive time. Now they add up to it, but for samples that
// overshoot their timer (at most 12.6 ms in this file, about one sample).
TEST(TauPacked, SampledTimeIsCountedOnce) {
  Profile p = read_packed("matmult.ppk");
  const std::size_t ne = p.events.size();
  for (const Location& l : p.locations) {
    double self = 0, top = 0;
    for (std::uint32_t r = l.begin; r < l.end; ++r) {
      self += cost_float(p.location_self[r * ne]);
      if (!p.str(p.functions[p.location_functions[r]].name).starts_with("["))
        top = std::max(top, cost_float(p.location_total[r * ne]));
    }
    EXPECT_NEAR(self, top, 0.013) << p.str(l.label);
    EXPECT_GT(top, 2.4) << p.str(l.label);
  }
}

// The per-rank table of a folder of rank files, and of a packed file's
// threads, from ParaProf's values: each function's largest and smallest
// inclusive time and where they are.
void check_rank_extremes(const std::vector<std::string>& args, const std::string& oracle, bool by_thread) {
  std::vector<Row> rows = paraprof(oracle);
  auto run = test::graphgen(args);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::istringstream in(run.out);
  std::string line;
  std::getline(in, line);
  auto header = test::csv_fields(line);
  auto column = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  std::map<std::string, std::pair<double, std::int64_t>> max;  // per function: value, rank
  std::set<std::int64_t> ranks;
  for (const Row& r : rows) {
    if (is_path(r.name) || r.name.starts_with("[SUMMARY] ")) continue;  // (left out: the samples' time again)
    std::int64_t rank = by_thread ? r.thread : r.node;
    ranks.insert(rank);
    auto [it, fresh] = max.try_emplace(r.name, seconds(r.incl), rank);
    if (!fresh &&
        (seconds(r.incl) > it->second.first || (seconds(r.incl) == it->second.first && rank < it->second.second)))
      it->second = {seconds(r.incl), rank};
  }
  std::size_t checked = 0;
  while (std::getline(in, line)) {
    auto f = test::csv_fields(line);
    ASSERT_TRUE(max.count(f[column("name")])) << line;
    auto [value, rank] = max[f[column("name")]];
    EXPECT_EQ(std::stod(f[column("inclusive_max")]), value) << line;
    EXPECT_EQ(std::stoll(f[column("inclusive_max_rank")]), rank) << line;
    EXPECT_EQ(std::stoull(f[column("ranks")]), ranks.size());
    ++checked;
  }
  EXPECT_EQ(checked, max.size());
}

TEST(TauRanks, RankFilesAreRanksByTheirNodeNumber) {
  check_rank_extremes({(test::testdata_dir() / "tau" / "xmain_0").string(), "-T", "ranks.csv", "--top", "1000"},
                      "xmain_0.csv", false);
}

TEST(TauRanks, PackedThreadsAreRanks) {
  check_rank_extremes({(test::testdata_dir() / "tau" / "DrawGraph-8.ppk").string(), "-T", "ranks.csv", "--top", "1000"},
                      "DrawGraph-8.csv", false);
  check_rank_extremes({(test::testdata_dir() / "tau" / "matmult.ppk").string(), "-T", "ranks.csv", "--top", "1000"},
                      "matmult.csv", true);
}

TEST(TauRanks, TheNodeNumberOfProfileNCT) {
  EXPECT_EQ(rank_from_path("out/profile.12.0.0"), 12);
  EXPECT_EQ(rank_from_path("MULTI__TIME/profile.3.0.0"), 3);
  EXPECT_EQ(rank_from_path("profile.3.0.1"), -1);  // a thread of rank 3: not a rank of its own
  EXPECT_EQ(rank_from_path("profile.x.0.0"), 0);   // not TAU's name: the last number
}

}  // namespace
}  // namespace graphgen::tau_test

namespace graphgen::tau_test {
namespace {

// Two metrics as TAU writes them: MULTI__TIME and MULTI__PAPI_TOT_CYC, the
// same file names in each (the counter's files made from the time files'
// lines with the metric renamed: their numbers are the counts).
fs::path two_metric_run() {
  fs::path dir = test::temp_dir() / "tau-multi";
  fs::remove_all(dir);
  for (const char* metric : {"TIME", "PAPI_TOT_CYC"}) {
    fs::create_directories(dir / (std::string("MULTI__") + metric));
    for (int rank : {0, 1}) {
      std::string name = "profile." + std::to_string(rank) + ".0.0";
      std::string text = test::read_file(test::testdata_dir() / "tau" / "xmain_0" / name);
      for (std::string from : {"_MULTI_TIME\n", "<value>TIME</value>"}) {
        std::string to = from;
        to.replace(to.find("TIME"), 4, metric);
        text.replace(text.find(from), from.size(), to);
      }
      std::ofstream(dir / (std::string("MULTI__") + metric) / name) << text;
    }
  }
  return dir;
}

TEST(TauText, MetricFoldersAreEventsOfOneProfile) {
  fs::path dir = two_metric_run();
  Profile p = test::read_ok({dir / "MULTI__PAPI_TOT_CYC" / "profile.1.0.0"}, "tau");
  ASSERT_EQ(p.events.size(), 2u);
  EXPECT_EQ(p.str(p.events[0].name), "TIME");  // time first, whichever file was named
  EXPECT_EQ(p.str(p.events[1].name), "PAPI_TOT_CYC");
  EXPECT_TRUE(p.events[0].floating);
  EXPECT_FALSE(p.events[1].floating);
  auto names = by_name(p);
  FuncId app = names.at(".TAU application");  // rank 1: 1 11367 33779348 62482119
  EXPECT_EQ(cost_float(p.self(app, 0)), seconds(33779348));
  EXPECT_EQ(p.self(app, 1), 33779348);
  EXPECT_EQ(p.total(app, 1), 62482119);
  // The folder is two ranks, not four: each rank's file is read once.
  auto run = test::graphgen({dir.string(), "-T", "ranks.json", "--event", "PAPI_TOT_CYC"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("\"ranks\": 2, "), std::string::npos) << run.out.substr(0, 200);
  EXPECT_NE(run.out.find("\"rank_numbers\": [0, 1]"), std::string::npos) << run.out.substr(0, 200);
}

}  // namespace
}  // namespace graphgen::tau_test

namespace graphgen::tau_test {
namespace {

// ranks.matrix.csv: every rank's own value of every function, as ParaProf
// reads the files (a rank without the function: 0).
TEST(TauRanks, TheMatrixHoldsEveryRanksValueAsParaProf) {
  std::vector<Row> rows = paraprof("xmain_0.csv");
  auto run = test::graphgen({(test::testdata_dir() / "tau" / "xmain_0").string(), "-T", "ranks.matrix.csv"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::istringstream in(run.out);
  std::string line;
  std::getline(in, line);
  auto header = test::csv_fields(line);
  ASSERT_EQ(header.size(), 7u + 8u);
  EXPECT_EQ(header[6], "value");
  std::map<std::pair<std::string, std::int64_t>, const Row*> oracle;
  for (const Row& r : rows) oracle[{r.name, r.node}] = &r;
  std::size_t cells = 0;
  while (std::getline(in, line)) {
    auto f = test::csv_fields(line);
    ASSERT_EQ(f.size(), header.size());
    for (std::size_t c = 7; c < f.size(); ++c) {
      std::int64_t rank = std::stoll(header[c].substr(1));
      auto it = oracle.find({f[1], rank});
      double want = it == oracle.end() ? 0 : seconds(f[6] == "self" ? it->second->excl : it->second->incl);
      EXPECT_EQ(std::stod(f[c]), want) << f[1] << " " << header[c] << " " << f[6];
      ++cells;
    }
  }
  EXPECT_EQ(cells, 27u * 8u * 2u);
}

}  // namespace
}  // namespace graphgen::tau_test

namespace graphgen::tau_test {
namespace {

// The text reader keeps a timer's name as its frames between " => ", not
// as the input's bytes: names that only cutting and joining exactly tell
// apart must stay apart, and one name's timers must still add up in TAU's
// microseconds before they become seconds (1 + 0.3 us is 1.3e-06 s; 1e-06
// s + 3e-07 s is 1.2999999999999998e-06).
TEST(TauText, NamesAreTheirFramesExactly) {
  fs::path dir = test::temp_dir() / "tau-names";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const char* timers[] = {
      R"("main" 1 3 1 100 0 GROUP="TAU_USER")",
      R"("f" 1 0 1 2 0 GROUP="TAU_USER")",
      R"("f" 2 0 0.3 0.7 0 GROUP="TAU_USER")",                   // the same name again: added first
      R"("f  " 4 0 1.1 1.1 0 GROUP="TAU_USER")",                 // another name, the same function
      R"("main => f" 3 0 1 2 0 GROUP="TAU_CALLPATH")",           // the path's last two frames: main -> f
      R"("x => main => f" 2 0 0.3 0.7 0 GROUP="TAU_CALLPATH")",  // another path, the same edge
      R"("main => => g" 5 0 1 1 0 GROUP="TAU_CALLPATH")",        // " => " twice, overlapping: "main =>" -> g
      R"("say "hi" => f" 6 0 1 1 0 GROUP="TAU_CALLPATH")",       // quotes inside a name
  };
  std::string text = std::to_string(std::size(timers)) + " templated_functions_MULTI_TIME\n";
  text += "# Name Calls Subrs Excl Incl ProfileCalls\n";
  for (const char* t : timers) text += std::string(t) + "\n";
  text += "0 aggregates\n";
  std::ofstream(dir / "profile.0.0.0") << text;
  Profile p = test::read_ok({dir / "profile.0.0.0"}, "tau");
  auto names = by_name(p);
  ASSERT_TRUE(names.count("f") && names.count("main") && names.count("main =>") && names.count("g") &&
              names.count("say \"hi\""));
  EXPECT_FALSE(names.count("x"));  // a path's first frames are no function of it
  FuncId f = names["f"], main = names["main"];
  EXPECT_EQ(p.functions[f].calls, 1 + 2 + 4);
  // Not (1 + 0.3 + 1.1) / 1e6: "f  " is a timer of its own, added in seconds.
  EXPECT_EQ(cost_float(p.self(f, 0)), (1 + 0.3) / 1e6 + 1.1 / 1e6);
  EXPECT_EQ(cost_float(p.total(f, 0)), (2 + 0.7) / 1e6 + 1.1 / 1e6);
  std::map<std::pair<std::string, std::string>, const Call*> edges;
  for (const Call& c : p.calls)
    edges[{std::string(p.str(p.functions[c.caller].name)), std::string(p.str(p.functions[c.callee].name))}] = &c;
  ASSERT_EQ(edges.size(), 3u);
  const Call* mf = edges.at({"main", "f"});
  EXPECT_EQ(mf->count, 3 + 2);
  EXPECT_EQ(cost_float(p.inclusive(mf - p.calls.data(), 0)), 2 / 1e6 + 0.7 / 1e6);
  EXPECT_EQ(edges.at({"main =>", "g"})->count, 5);
  EXPECT_EQ(edges.at({"say \"hi\"", "f"})->count, 6);
  EXPECT_EQ(p.functions[main].calls, 1);
}

// A lone TAU file is the merged profile itself (registry: one function per
// name, one call per pair, the merge's keys): what the merge's copy would
// make of it, by meaning (string ids aside), for text files of one and two
// metrics and packed files of many threads.
std::string by_meaning(const Profile& p) {
  std::string out;
  const std::size_t ne = p.events.size();
  for (const Event& e : p.events) out += fmt::format("event {} {} {}\n", p.str(e.name), p.str(e.unit), e.floating);
  for (FuncId f = 0; f < p.functions.size(); ++f) {
    const Function& fn = p.functions[f];
    out += fmt::format("function {} {} {} calls {}:", p.str(fn.name), p.str(fn.file), fn.line, fn.calls);
    for (std::size_t e = 0; e < ne; ++e) out += fmt::format(" {} {}", p.self(f, e), p.total(f, e));
    out += "\n";
  }
  for (CallId c = 0; c < p.calls.size(); ++c) {
    out += fmt::format("call {} {} {}:", p.calls[c].caller, p.calls[c].callee, p.calls[c].count);
    for (std::size_t e = 0; e < ne; ++e) out += fmt::format(" {} {}", p.inclusive(c, e), p.along(c, e));
    out += "\n";
  }
  for (const Location& l : p.locations) {
    out += fmt::format("location {} {} {}:", l.rank, l.thread, p.str(l.label));
    for (std::uint32_t r = l.begin; r < l.end; ++r)
      for (std::size_t e = 0; e < ne; ++e)
        out += fmt::format(" {}={}/{}", p.location_functions[r], p.location_self[r * ne + e],
                           p.location_total[r * ne + e]);
    out += "\n";
  }
  for (const auto& [k, v] : p.metadata) out += fmt::format("metadata {}={}\n", p.str(k), p.str(v));
  return out;
}

TEST(TauText, ALoneFileIsWhatTheMergeWouldMakeOfIt) {
  const fs::path tau = test::testdata_dir() / "tau";
  std::vector<fs::path> files = {tau / "xmain_0" / "profile.0.0.0", tau / "DrawGraph-8.ppk", tau / "matmult.ppk",
                                 two_metric_run() / "MULTI__TIME" / "profile.1.0.0"};
  for (const fs::path& f : files) {
    SCOPED_TRACE(f.string());
    Profile lone = test::read_ok({f}, "tau");
    auto opened = formats::prepared(*InputFile::open(f.string()));  // (a .ppk gunzipped)
    ASSERT_TRUE(opened.has_value());
    Diagnostics d;
    Profile read = f.extension() == ".ppk" ? read_packed(f.filename().string()) : *tau::read_text(*opened, {}, d);
    Profile merged;
    ProfileMerger merger(merged);
    ASSERT_TRUE(merger.add(read, f.string()).has_value());
    merger.finish();
    EXPECT_GT(lone.functions.size(), 3u);
    EXPECT_EQ(by_meaning(lone), by_meaning(merged));
  }
}

}  // namespace
}  // namespace graphgen::tau_test
