// Per-rank statistics (-T ranks, ranks.csv, ranks.json, heatmap,
// --imbalance) on the real 8-rank mpi4py profiles of testdata/mpi, checked
// against testdata/mpi/rank_stats.py, which computes the same numbers with
// Python's own pstats.Stats of each file.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "util/test_util.h"

namespace graphgen::ranks_test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test::graphgen;

fs::path mpi_dir() { return test::testdata_dir() / "mpi"; }

// cpu_7.prof ... cpu_0.prof: the reverse of the rank order, so numbering by
// file name (not position) is what makes the ranks come out right.
std::vector<std::string> rank_files() {
  std::vector<std::string> files;
  for (int r = 7; r >= 0; --r) files.push_back((mpi_dir() / ("cpu_" + std::to_string(r) + ".prof")).string());
  return files;
}

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

json reference() {
  auto r = test::run(with({"python3", (mpi_dir() / "rank_stats.py").string()}, rank_files()));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::parse(r.out);
}

std::string key(const json& f) {
  return f["file"].get<std::string>() + ":" + std::to_string(f["line"].get<long>()) + ":" +
         f["name"].get<std::string>();
}

void expect_close(double got, double want, const std::string& what) {
  double scale = std::max({std::fabs(got), std::fabs(want), 1e-300});
  EXPECT_LE(std::fabs(got - want) / scale, 1e-12) << what << ": " << got << " vs " << want;
}

void expect_measure(const json& got, const json& want, const std::string& what) {
  for (const char* m : {"total", "mean", "min", "max", "imbalance", "imbalance_percent"})
    expect_close(got[m].get<double>(), want[m].get<double>(), what + " " + m);
  // Python computes sqrt(sum(x^2)/N - mean^2) too; a near-zero variance
  // loses digits to cancellation in both, so compare it against the scale
  // of the values.
  double scale = std::max(want["max"].get<double>(), 1e-300);
  EXPECT_LE(std::fabs(got["stddev"].get<double>() - want["stddev"].get<double>()) / scale, 1e-6) << what << " stddev";
  EXPECT_EQ(got["min_rank"], want["min_rank"]) << what;
  EXPECT_EQ(got["max_rank"], want["max_rank"]) << what;
}

// Every function of rank_stats.py's `want` in ranks.json's `got`, with the
// same presence and measures; got's functions by key, for further checks.
std::map<std::string, json> expect_same_functions(const json& got, const json& want) {
  std::map<std::string, json> by_key;
  for (const json& f : got["functions"]) by_key[key(f)] = f;
  EXPECT_EQ(by_key.size(), want["functions"].size());
  for (const json& w : want["functions"]) {
    std::string k = key(w);
    if (!by_key.count(k)) {
      ADD_FAILURE() << "missing " << k;
      continue;
    }
    EXPECT_EQ(by_key[k]["present"], w["present"]) << k;
    expect_measure(by_key[k]["inclusive"], w["inclusive"], k + " inclusive");
    expect_measure(by_key[k]["self"], w["self"], k + " self");
  }
  return by_key;
}

// `count` rank files in a new folder, copies of the 8 real ranks in turn,
// those numbered in `broken` cut short (not profiles).
struct RankFiles {
  fs::path dir;
  std::vector<std::string> all, readable;
};
RankFiles make_rank_files(int count, const std::set<int>& broken) {
  RankFiles out;
  out.dir = test::temp_dir();
  for (int r = 0; r < count; ++r) {
    fs::path f = out.dir / ("cpu_" + std::to_string(r) + ".prof");
    if (broken.count(r)) {
      std::ofstream(f) << "{(broken";
    } else {
      fs::copy_file(mpi_dir() / ("cpu_" + std::to_string(r % 8) + ".prof"), f);
      out.readable.push_back(f.string());
    }
    out.all.push_back(f.string());
  }
  return out;
}

// rank_stats.py's numbers for the readable files, and graphgen's
// ranks.json of them all under --keep-going.
std::pair<json, json> keep_going_ranks(const RankFiles& files) {
  auto ref = test::run(with({"python3", (mpi_dir() / "rank_stats.py").string()}, files.readable));
  EXPECT_EQ(ref.exit_code, 0) << ref.err;
  auto r = graphgen(with({"-T", "ranks.json", "--keep-going", "-q"}, files.all));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return {json::parse(ref.out), json::parse(r.out)};
}

TEST(Ranks, JsonEqualsPythonPstatsOfEachRank) {
  json want = reference();
  auto r = graphgen(with({"-T", "ranks.json"}, rank_files()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json got = json::parse(r.out);
  EXPECT_EQ(got["ranks"], 8);
  EXPECT_EQ(got["numbered_by_position"], false);
  EXPECT_EQ(got["unit"], "s");
  EXPECT_EQ(got["rank_numbers"], json({7, 6, 5, 4, 3, 2, 1, 0}));  // input order
  std::map<std::string, json> by_key;
  for (const json& f : got["functions"]) by_key[key(f)] = f;
  ASSERT_EQ(by_key.size(), want["functions"].size());
  std::size_t missing_somewhere = 0;
  for (const json& w : want["functions"]) {
    std::string k = key(w);
    ASSERT_TRUE(by_key.count(k)) << k;
    const json& g = by_key[k];
    EXPECT_EQ(g["present"], w["present"]) << k;
    expect_measure(g["inclusive"], w["inclusive"], k + " inclusive");
    expect_measure(g["self"], w["self"], k + " self");
    if (w["present"].get<int>() < 8) {
      ++missing_somewhere;
      EXPECT_EQ(g["missing_rank"], 1) << k;  // odd ranks never checkpoint; 1 is the lowest
    } else {
      EXPECT_TRUE(g["missing_rank"].is_null()) << k;
    }
  }
  // checkpoint() and what only it calls run on the even ranks alone.
  EXPECT_EQ(missing_somewhere, 4u);
  // (The profiles name the script by the path it had when they were
  // recorded, not where this checkout is.)
  auto at = std::find_if(by_key.begin(), by_key.end(),
                         [](const auto& kv) { return kv.first.ends_with("/imbalance.py:35:checkpoint"); });
  ASSERT_NE(at, by_key.end());
  const json& checkpoint = at->second;
  EXPECT_EQ(checkpoint["present"], 4);
  EXPECT_EQ(checkpoint["inclusive"]["min"], 0.0);
  EXPECT_EQ(checkpoint["inclusive"]["min_rank"], 1);
  // JSON lists the functions by inclusive Imb, highest first.
  double last = INFINITY;
  for (const json& f : got["functions"]) {
    double imb = f["inclusive"]["imbalance"].get<double>();
    EXPECT_LE(imb, last) << key(f);
    last = imb;
  }
}

// --keep-going counted an unreadable file as a rank that ran nothing: with
// 2 broken files of 12, N was 12, an unreadable rank was the minimum (0 s)
// and Imb% came out 62.3 % instead of 53.9 %. The statistics are those of
// the 10 readable ranks, as rank_stats.py computes them from those 10.
TEST(Ranks, UnreadableInputsUnderKeepGoingAreNotRanks) {
  const RankFiles files = make_rank_files(12, {5, 10});
  const std::vector<std::string>& all = files.all;
  auto [want, got] = keep_going_ranks(files);
  EXPECT_EQ(got["ranks"], 10);
  EXPECT_EQ(got["skipped_ranks"], json({5, 10}));
  EXPECT_EQ(got["rank_numbers"], json({0, 1, 2, 3, 4, 6, 7, 8, 9, 11}));
  for (const auto& [k, f] : expect_same_functions(got, want)) {
    EXPECT_NE(f["inclusive"]["min_rank"], 5) << k;
    EXPECT_NE(f["inclusive"]["min_rank"], 10) << k;
  }
  // The table and the CSV say which ranks were left out.
  auto text = graphgen(with({"-T", "ranks", "--keep-going", "-q"}, all));
  EXPECT_NE(text.out.find("Per-rank statistics of 10 ranks"), std::string::npos) << text.out.substr(0, 400);
  EXPECT_NE(text.out.find("Not counted: 2 ranks whose input could not be read (--keep-going): 5, 10."),
            std::string::npos);
  auto csv = graphgen(with({"-T", "ranks.csv", "--keep-going", "-q"}, all));
  EXPECT_TRUE(csv.out.starts_with("# not counted, input could not be read: ranks 5 10\nfunction,"))
      << csv.out.substr(0, 200);
}

// pstats' report names the files it read: under --keep-going the header
// listed the unreadable ones too, and in the order of all the inputs
// (cpu_0, skipped, then 3, 2, 1 where pstats.Stats(cpu_1, cpu_2, cpu_3)
// names 1, 3, 2). The whole report is Python's for the readable files.
TEST(Ranks, TheStatsHeaderUnderKeepGoingNamesTheFilesRead) {
  for (const std::set<int>& broken : {std::set<int>{0}, std::set<int>{4}}) {
    const RankFiles files = make_rank_files(8, broken);
    SCOPED_TRACE(*broken.begin());
    auto python = test::run(with(
        {"python3", "-c", "import pstats, sys; pstats.Stats(*sys.argv[1:]).sort_stats('cumulative').print_stats()"},
        files.readable));
    ASSERT_EQ(python.exit_code, 0) << python.err;
    auto r = graphgen(with({"-T", "stats", "--keep-going", "-q"}, files.all));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, python.out);
  }
}

// Many small rank files are read a run at a time by the reader threads and
// by the merge itself; whatever the order they finish in, they are counted
// in input order, the first unreadable file in the merge's order is the one
// named, and --keep-going leaves out exactly the unreadable ones.
TEST(Ranks, ManySmallFilesReadInRunsKeepTheInputOrder) {
  const std::set<int> broken = {3, 101, 239};
  const RankFiles files = make_rank_files(240, broken);
  const fs::path& dir = files.dir;
  const std::vector<std::string>& all = files.all;
  // (pstats.Stats(*files) merges the first file, then the others from the
  // last back: cpu_239 is the first unreadable one it meets.)
  auto strict = graphgen(with({"-T", "ranks.json"}, all));
  EXPECT_EQ(strict.exit_code, 1);
  EXPECT_TRUE(strict.err.starts_with((dir / "cpu_239.prof").string() + ":")) << strict.err;
  std::vector<std::string> forward = all;
  forward.erase(forward.begin() + 239);
  auto next = graphgen(with({"-T", "ranks.json"}, forward));
  EXPECT_TRUE(next.err.starts_with((dir / "cpu_101.prof").string() + ":")) << next.err;

  auto [want, got] = keep_going_ranks(files);
  EXPECT_EQ(got["ranks"], 237);
  EXPECT_EQ(got["skipped_ranks"], json({3, 101, 239}));
  std::vector<int> numbers;
  for (int k = 0; k < 240; ++k)
    if (!broken.count(k)) numbers.push_back(k);
  EXPECT_EQ(got["rank_numbers"], json(numbers));
  expect_same_functions(got, want);

  // The merged profile: Python's merge of the readable files counts the same calls.
  auto calls =
      test::run(with({"python3", "-c",
                      "import pstats, sys\n"
                      "s = pstats.Stats(*sys.argv[1:])\n"
                      "print('%d function calls' % s.total_calls, end='')\n"
                      "if s.total_calls != s.prim_calls: print(' (%d primitive calls)' % s.prim_calls, end='')\n"
                      "print()"},
                     files.readable));
  ASSERT_EQ(calls.exit_code, 0) << calls.err;
  auto stats = graphgen(with({"-T", "stats", "--keep-going", "-q"}, all));
  ASSERT_EQ(stats.exit_code, 0) << stats.err;
  const std::string line = calls.out.substr(0, calls.out.find('\n'));
  EXPECT_NE(stats.out.find(line + " in "), std::string::npos) << line << "\n" << stats.out.substr(0, 600);
}

TEST(Ranks, CsvHasEveryFunctionWithThePythonNumbers) {
  json want = reference();
  std::map<std::string, json> by_key;
  for (const json& f : want["functions"]) by_key[key(f)] = f;
  auto r = graphgen(with({"-T", "ranks.csv"}, rank_files()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream in(r.out);
  std::string line;
  ASSERT_TRUE(std::getline(in, line));
  std::vector<std::string> header = test::csv_fields(line);
  std::map<std::string, std::size_t> col;
  for (std::size_t i = 0; i < header.size(); ++i) col[header[i]] = i;
  for (const char* c : {"name", "file", "line", "ranks_present", "missing_rank", "unit", "inclusive_mean",
                        "inclusive_max_rank", "inclusive_imb_percent", "self_stddev", "self_min_rank"})
    ASSERT_TRUE(col.count(c)) << c << " missing from " << line;
  std::size_t rows = 0;
  while (std::getline(in, line)) {
    std::vector<std::string> f = test::csv_fields(line);
    ASSERT_EQ(f.size(), header.size()) << line;
    std::string k = f[col["file"]] + ":" + f[col["line"]] + ":" + f[col["name"]];
    ASSERT_TRUE(by_key.count(k)) << k;
    const json& w = by_key[k];
    ++rows;
    EXPECT_EQ(f[col["unit"]], "s");
    EXPECT_EQ(std::stoi(f[col["ranks_present"]]), w["present"].get<int>()) << k;
    EXPECT_EQ(f[col["missing_rank"]], w["present"].get<int>() < 8 ? "1" : "") << k;
    // CSV prints every digit (it kept 6, as spreadsheets show them, which
    // lost what pandas users compute from it): Python's numbers, to the
    // rounding of the mean's division.
    for (const char* kind : {"inclusive", "self"}) {
      std::string p(kind);
      for (const auto& [c, m] :
           std::vector<std::pair<std::string, std::string>>{{"total", "total"},
                                                            {"mean", "mean"},
                                                            {"max", "max"},
                                                            {"imb", "imbalance"},
                                                            {"imb_percent", "imbalance_percent"}}) {
        double got = std::stod(f[col[p + "_" + c]]), exp = w[kind][m].get<double>();
        EXPECT_NEAR(got, exp, std::fabs(exp) * 1e-12 + 1e-300) << k << " " << p << "_" << c;
      }
      EXPECT_EQ(std::stol(f[col[p + "_max_rank"]]), w[kind]["max_rank"].get<long>()) << k;
      EXPECT_EQ(std::stol(f[col[p + "_min_rank"]]), w[kind]["min_rank"].get<long>()) << k;
    }
  }
  EXPECT_EQ(rows, want["functions"].size());
}

// Names are data: one a spreadsheet would run as a formula starts with ',
// bytes that are not UTF-8 become U+FFFD and NUL a visible \x00 (Python's
// csv and pandas read the file back).
TEST(Ranks, CsvNamesCannotBeFormulasOrBreakTheFile) {
  fs::path dir = test::temp_dir();
  const char a[] = "main;=cmd|calc;x\xff 3\nmain;@SUM(1) 2\nmain;a\"b,c\x00 1\n";
  const char b[] = "main;=cmd|calc;x\xff 5\nmain;+1 1\n";
  {
    std::ofstream(dir / "r0.folded", std::ios::binary).write(a, sizeof a - 1);
    std::ofstream(dir / "r1.folded", std::ios::binary).write(b, sizeof b - 1);
  }
  auto r = test::graphgen({"-T", "ranks.csv", (dir / "r0.folded").string(), (dir / "r1.folded").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\n'=cmd|calc,'=cmd|calc,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n'@SUM(1),'@SUM(1),"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n'+1,'+1,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nx\xEF\xBF\xBD,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n\"a\"\"b,c\\x00\","), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find('\0'), std::string::npos);
  fs::remove_all(dir);
}

TEST(Ranks, TextTableSortsByImbalanceAndHonoursTop) {
  auto r = graphgen(with({"-T", "ranks"}, rank_files()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Per-rank statistics of 8 ranks (numbered by the last number in each file name), in seconds; "
                       "a function missing in a rank counts as 0 there."),
            std::string::npos)
      << r.out;
  // The first inclusive row is the function of highest Imb (max - mean):
  // MPI's allreduce, where rank 0 waits longest for the slow rank 5.
  std::regex row(R"(\n\s+([0-9.]+)%\s+(\S+)\s+\S+\s+\S+\s+(r\d+)\s+\S+\s+(r\d+)\s+\S+\s+\S+\s+(\d+/8)  (.*))");
  std::size_t inclusive = r.out.find("Inclusive time\n");
  ASSERT_NE(inclusive, std::string::npos);
  std::smatch m;
  std::string rest = r.out.substr(inclusive);
  ASSERT_TRUE(std::regex_search(rest, m, row)) << rest;
  EXPECT_EQ(m[6], "~:0:<method 'allreduce' of 'mpi4py.MPI.Comm' objects>");
  EXPECT_EQ(m[3], "r5");  // min
  EXPECT_EQ(m[4], "r0");  // max
  // checkpoint: missing on the odd ranks, so its minimum is 0 on rank 1.
  std::regex checkpoint(
      R"(\n\s+[0-9.]+%\s+\S+\s+\S+\s+0\s+r1\s+\S+\s+r\d+\s+\S+\s+\S+\s+4/8  imbalance:35:checkpoint\n)");
  EXPECT_TRUE(std::regex_search(r.out, checkpoint)) << r.out;

  auto top = graphgen(with({"-T", "ranks", "--top", "3"}, rank_files()));
  ASSERT_EQ(top.exit_code, 0) << top.err;
  EXPECT_NE(top.out.find("3 of 15 functions"), std::string::npos) << top.out;
  std::size_t rows = 0;
  for (std::size_t at = 0; (at = top.out.find("/8  ", at)) != std::string::npos; ++at) ++rows;
  EXPECT_EQ(rows, 6u);  // 3 inclusive + 3 self
}

TEST(Ranks, TiesGoToTheLowestRankWhateverTheOrder) {
  // The same profile as ranks 9 and 2 (given in that order): every minimum
  // and maximum is a tie, and the lower rank number wins.
  fs::path dir = test::temp_dir();
  fs::copy_file(mpi_dir() / "cpu_3.prof", dir / "rank9.prof");
  fs::copy_file(mpi_dir() / "cpu_3.prof", dir / "rank2.prof");
  auto r = graphgen({"-T", "ranks.json", (dir / "rank9.prof").string(), (dir / "rank2.prof").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json got = json::parse(r.out);
  ASSERT_FALSE(got["functions"].empty());
  for (const json& f : got["functions"])
    for (const char* kind : {"inclusive", "self"}) {
      EXPECT_EQ(f[kind]["min_rank"], 2) << key(f);
      EXPECT_EQ(f[kind]["max_rank"], 2) << key(f);
      EXPECT_EQ(f[kind]["imbalance"], 0.0) << key(f);
    }
}

TEST(Ranks, NamesWithoutRankNumbersAreNumberedByPosition) {
  fs::path dir = test::temp_dir();
  fs::copy_file(mpi_dir() / "cpu_0.prof", dir / "before.prof");
  fs::copy_file(mpi_dir() / "cpu_5.prof", dir / "after.prof");
  auto r = graphgen({"-T", "ranks.json", (dir / "before.prof").string(), (dir / "after.prof").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json got = json::parse(r.out);
  EXPECT_EQ(got["numbered_by_position"], true);
  EXPECT_EQ(got["rank_numbers"], json({0, 1}));
  // compute() is slower in cpu_5.prof, now rank 1.
  for (const json& f : got["functions"]) {
    if (f["name"] == "compute") {
      EXPECT_EQ(f["inclusive"]["max_rank"], 1);
    }
  }
  auto text = graphgen({"-T", "ranks", (dir / "before.prof").string(), (dir / "after.prof").string()});
  EXPECT_NE(text.out.find("numbered by their order"), std::string::npos) << text.out;
}

// The SVG's text and cell tooltips, in document order.
struct Svg {
  std::vector<std::string> texts;
  std::vector<std::string> tooltips;
  std::vector<std::string> fills;  // of each tooltip's cell
  std::vector<bool> outlined;      // each tooltip's cell has a black outline
};

Svg parse_svg(const fs::path& svg) {
  const char* script = R"(
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
ns = '{http://www.w3.org/2000/svg}'
for e in root.iter():
    if e.tag == ns + 'text':
        print('T' + (e.text or '').replace('\n', ' '))
    elif e.tag == ns + 'a':
        polygons = [p for p in e.iter(ns + 'polygon')]
        fill = polygons[0].get('fill', '') if polygons else ''
        outline = any(p.get('fill') == 'none' and p.get('stroke') == '#000000' for p in polygons)
        print('A' + e.get('{http://www.w3.org/1999/xlink}title', '') + '\t' + fill + '\t' + str(int(outline)))
)";
  auto r = test::run({"python3", "-c", script, svg.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;  // the SVG parses as XML
  Svg out;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    if (line[0] == 'T') {
      out.texts.push_back(line.substr(1));
      continue;
    }
    std::size_t tab = line.rfind('\t'), tab2 = line.rfind('\t', tab - 1);
    out.tooltips.push_back(line.substr(1, tab2 - 1));
    out.fills.push_back(line.substr(tab2 + 1, tab - tab2 - 1));
    out.outlined.push_back(line.substr(tab + 1) == "1");
  }
  return out;
}

TEST(Ranks, HeatmapHasOneColumnPerRankAndTheMostImbalancedFirst) {
  fs::path out = test::temp_dir() / "ranks.svg";
  auto r = graphgen(with({"-T", "heatmap", "-o", out.string()}, rank_files()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");  // a heatmap is SVG, as the name says: no warning
  Svg svg = parse_svg(out);
  ASSERT_GT(svg.texts.size(), 12u);
  EXPECT_NE(svg.texts[0].find("(8 ranks)"), std::string::npos) << svg.texts[0];
  // The rank axis: "rank ", 0 .. 7, then the Imb% and max/min headers.
  EXPECT_EQ(svg.texts[1], "rank ");
  for (int c = 0; c < 8; ++c) EXPECT_EQ(svg.texts[2 + c], std::to_string(c));
  EXPECT_EQ(svg.texts[10], " Imb%");
  // The first row is the function of highest inclusive Imb.
  EXPECT_EQ(svg.texts[12], "~:0:<method 'allreduce' of 'mpi4py.MPI.Comm' objects> ");
  // 15 functions x 8 ranks, each cell with its value on hover.
  ASSERT_EQ(svg.tooltips.size(), 15u * 8u);
  // The tooltip names the function too (it said only the rank and value).
  const std::string allreduce = "~:0:<method 'allreduce' of 'mpi4py.MPI.Comm' objects>";
  EXPECT_TRUE(svg.tooltips[0].starts_with(allreduce + ", rank 0: 0.244762 s, 1.95x the mean")) << svg.tooltips[0];
  EXPECT_TRUE(svg.tooltips[5].starts_with(allreduce + ", rank 5: 0.036687 s")) << svg.tooltips[5];
  // The PNG is opaque, its margin too: RGB, no alpha (colour type 2).
  fs::path png = test::temp_dir() / "ranks.png";
  auto p = graphgen(with({"-T", "heatmap.png", "-o", png.string()}, rank_files()));
  ASSERT_EQ(p.exit_code, 0) << p.err;
  std::string bytes = test::read_file(png);
  ASSERT_GT(bytes.size(), 26u);
  EXPECT_EQ(static_cast<int>(bytes[25]), 2);
}

TEST(Ranks, HeatmapOf1024RanksBinsColumnsAndSaysSo) {
  fs::path dir = test::temp_dir();
  std::vector<std::string> args = {"-T", "heatmap", "-o", (dir / "out.svg").string()};
  for (int r = 0; r < 1024; ++r) {
    fs::path p = dir / ("cpu_" + std::to_string(r) + ".prof");
    fs::copy_file(mpi_dir() / ("cpu_" + std::to_string(r % 8) + ".prof"), p);
    args.push_back(p.string());
  }
  auto r = graphgen(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Svg svg = parse_svg(dir / "out.svg");
  ASSERT_FALSE(svg.texts.empty());
  EXPECT_NE(svg.texts[0].find("(1024 ranks, 8 per column: each cell the largest of its ranks)"), std::string::npos)
      << svg.texts[0];
  ASSERT_EQ(svg.tooltips.size(), 15u * 128u);
  const std::string allreduce = "~:0:<method 'allreduce' of 'mpi4py.MPI.Comm' objects>";
  EXPECT_TRUE(svg.tooltips[0].starts_with(allreduce + ", ranks 0-7 (largest): ")) << svg.tooltips[0];
  EXPECT_TRUE(svg.tooltips[127].starts_with(allreduce + ", ranks 1016-1023 (largest): ")) << svg.tooltips[127];
  // Every 8 ranks repeat the same 8 profiles, so every column holds the
  // same largest value: the function's max over the ranks.
  const std::string first = svg.tooltips[0].substr(svg.tooltips[0].find(": "));
  for (std::size_t i = 0; i < 128; ++i) EXPECT_TRUE(svg.tooltips[i].ends_with(first)) << svg.tooltips[i];
}

// Binned by the mean, one slow rank among 1024 vanished into its column
// (only the text column's 'max r777' said it); the column keeps its
// largest value, so it stands out.
TEST(Ranks, HeatmapOf1024RanksKeepsOneSlowRankVisible) {
  fs::path dir = test::temp_dir();
  std::vector<std::string> args = {"-T", "heatmap", "-o", (dir / "out.svg").string()};
  for (int r = 0; r < 1024; ++r) {
    fs::path p = dir / ("cpu_" + std::to_string(r) + ".prof");
    fs::copy_file(mpi_dir() / (r == 777 ? "cpu_5.prof" : "cpu_4.prof"), p);  // rank 5 of the job did twice the work
    args.push_back(p.string());
  }
  auto r = graphgen(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Svg svg = parse_svg(dir / "out.svg");
  const std::string compute = "imbalance:28:compute";
  std::vector<std::string> row;
  for (const std::string& t : svg.tooltips)
    if (t.starts_with(compute + ", ")) row.push_back(t);
  ASSERT_EQ(row.size(), 128u);
  // Column 97 holds ranks 776-783: its value is rank 777's, above the mean.
  for (std::size_t c = 0; c < 128; ++c) {
    double ratio = std::stod(row[c].substr(row[c].rfind(", ") + 2));
    if (c == 97)
      EXPECT_GT(ratio, 1.5) << row[c];
    else
      EXPECT_LT(ratio, 1.01) << row[c];
  }
}

// The hue (0-360) of a "#rrggbb" colour.
double hue(const std::string& hex);

// 10 000 ranks, one of them (4242) 5 times slower in compute: its column is
// red, outlined as more than 3 std above the mean, and says so; no other
// column is.
TEST(Ranks, HeatmapOf10000RanksShowsTheOneSlowRankRed) {
  fs::path dir = test::temp_dir() / "ten-thousand";
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (int r = 0; r < 10000; ++r)
    std::ofstream(dir / ("rank" + std::to_string(r) + ".folded"))
        << "main;compute " << (r == 4242 ? 500 : 100 + r % 7) << "\nmain;wait 50\n";
  fs::path out = dir.parent_path() / "ten-thousand.svg";
  auto r = graphgen({dir.string(), "-T", "heatmap", "-o", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Svg svg = parse_svg(out);
  std::size_t seen = 0;
  for (std::size_t i = 0; i < svg.tooltips.size(); ++i) {
    const std::string& t = svg.tooltips[i];
    if (!t.starts_with("compute, ")) continue;
    ++seen;
    std::size_t dash = t.find('-'), colon = t.find(" (largest)");
    ASSERT_NE(colon, std::string::npos) << t;
    int first = std::stoi(t.substr(t.find("ranks ") + 6)), last = std::stoi(t.substr(dash + 1));
    bool slow = first <= 4242 && 4242 <= last;
    EXPECT_EQ(svg.outlined[i], slow) << t;
    EXPECT_EQ(t.find("std above the mean") != std::string::npos, slow) << t;
    double h = hue(svg.fills[i]);
    if (slow) {
      EXPECT_TRUE(h < 10 || h > 350) << svg.fills[i];  // red
      EXPECT_EQ(svg.fills[i], "#ff2828") << "2x the mean or more: full red";
    } else {
      EXPECT_NE(svg.fills[i], "#ff2828") << t;
    }
  }
  EXPECT_EQ(seen, 128u);
}

double hue(const std::string& hex) {
  if (hex.size() != 7) return -1;
  double r = std::stoi(hex.substr(1, 2), nullptr, 16) / 255.0, g = std::stoi(hex.substr(3, 2), nullptr, 16) / 255.0,
         b = std::stoi(hex.substr(5, 2), nullptr, 16) / 255.0;
  double mx = std::max({r, g, b}), mn = std::min({r, g, b}), d = mx - mn;
  if (d == 0) return 0;
  double h = mx == r ? std::fmod((g - b) / d, 6.0) : mx == g ? (b - r) / d + 2 : (r - g) / d + 4;
  return std::fmod(h * 60 + 360, 360);
}

TEST(Ranks, ImbalanceColoursEachNodeByImbPercent) {
  auto r = graphgen(with({"--imbalance", "-T", "dot"}, rank_files()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::regex node(
      R"re(\n\t\d+ \[color="(#[0-9a-f]{6})", [^\n]*label="([^"\\]*)\\n[^\n]*\\nimb (\d+)% \(max (r\d+), min (r\d+)\)\\n)re");
  std::map<int, std::string> colour_by_imb;
  std::size_t nodes = 0;
  bool saw_compute = false;
  for (auto it = std::sregex_iterator(r.out.begin(), r.out.end(), node); it != std::sregex_iterator(); ++it) {
    const std::smatch& m = *it;
    ++nodes;
    colour_by_imb[std::stoi(m[3])] = m[1];
    if (m[2] == "imbalance:28:compute") {
      saw_compute = true;
      EXPECT_EQ(m[3], "51");
      EXPECT_EQ(m[4], "r5");  // the rank with the double share
      EXPECT_EQ(m[5], "r0");
    }
  }
  EXPECT_TRUE(saw_compute) << r.out;
  EXPECT_GE(nodes, 8u) << r.out;
  // The picture says its colour is imbalance, not time (it had no legend).
  EXPECT_NE(
      r.out.find("graph [label=\"Node colour: each function's inclusive Imb% over the 8 ranks, from 0 % (blue) to "
                 "100 % (red); imb: Imb%, and the ranks of its max and min time\", labelloc=t"),
      std::string::npos)
      << r.out.substr(0, 600);
  auto plain = graphgen(with({"-T", "dot"}, rank_files()));
  EXPECT_EQ(plain.out.find("Imb%"), std::string::npos);  // gprof2dot's graph stays gprof2dot's
  // gprof2dot's colour map runs from blue (cold) through green to red
  // (hot): the higher the Imb%, the lower the hue.
  double last = 361;
  for (const auto& [imb, colour] : colour_by_imb) {
    double h = hue(colour);
    EXPECT_LT(h, last) << "imb " << imb << "% " << colour;
    last = h;
  }
  EXPECT_GT(hue(colour_by_imb.begin()->second), 200);  // main, 9 %: blue
  EXPECT_LT(hue(colour_by_imb.rbegin()->second), 20);  // builtins.sum, 98 %: red
}

TEST(Ranks, RanksOutputsNeedOneFormatAndSayWhatIsWrong) {
  auto mixed = graphgen({"-T", "ranks", (mpi_dir() / "cpu_0.prof").string(),
                         (test::testdata_dir() / "callgrind" / "cxx.callgrind").string()});
  EXPECT_EQ(mixed.exit_code, 2);  // a usage error: give one format at a time
  EXPECT_EQ(std::count(mixed.err.begin(), mixed.err.end(), '\n'), 1) << mixed.err;
}

}  // namespace
}  // namespace graphgen::ranks_test

namespace graphgen::ranks_test {
namespace {

// One input and a filter: the table is the filtered profile's (it was taken
// before the filters renumbered the functions, and named them wrong: two
// rows of sin@plt, none of is_even).
TEST(Ranks, OneInputWithAFilterDescribesTheFilteredFunctions) {
  auto r = test::graphgen(
      {(test::testdata_dir() / "perf" / "q-g.perf").string(), "-T", "ranks.csv", "--hide", "^is_odd$", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream in(r.out);
  std::string line;
  std::getline(in, line);
  std::set<std::string> names;
  std::map<std::string, std::string> total;
  while (std::getline(in, line)) {
    std::string name = line.substr(0, line.find(','));
    EXPECT_TRUE(names.insert(name).second) << "twice: " << name;
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    total[name] = f[9];
  }
  EXPECT_TRUE(names.count("is_even"));
  EXPECT_FALSE(names.count("is_odd"));
  // The matrix, another view of the same values, agrees.
  auto m = test::graphgen(
      {(test::testdata_dir() / "perf" / "q-g.perf").string(), "-T", "ranks.matrix.csv", "--hide", "^is_odd$", "-q"});
  ASSERT_EQ(m.exit_code, 0) << m.err;
  std::istringstream min(m.out);
  std::getline(min, line);
  std::size_t rows = 0;
  while (std::getline(min, line)) {
    if (line.find(",inclusive,") == std::string::npos) continue;
    std::string name = line.substr(0, line.find(','));
    EXPECT_EQ(line.substr(line.rfind(',') + 1), total[name]) << name;
    ++rows;
  }
  EXPECT_EQ(rows, names.size());
}

}  // namespace
}  // namespace graphgen::ranks_test
