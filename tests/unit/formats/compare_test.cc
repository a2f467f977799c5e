// --compare beyond gprof2dot's graph: difffolded's columns, pairing across
// builds and edits, the tables, several files a side, and the graph of
// absolute change (--compare-by absolute, the default).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <tuple>

#include "util/test_util.h"

namespace fs = std::filesystem;

namespace graphgen::compare_test {
namespace {

std::string sorted_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::sort(lines.begin(), lines.end());
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

// -T folded --compare: difffolded.pl's three columns, on a real pair of perf
// recordings, by samples and by period, with and without --normalize (-n).
TEST(Folded, CompareIsDifffoldedOnARealPair) {
  fs::path dir = test::testdata_dir() / "compare" / "perf";
  const std::string before = (dir / "xz-1.perf.xz").string(), after = (dir / "xz-6.perf.xz").string();
  for (const auto& [oracle, extra] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"samples.difffolded", {}},
           {"samples-n.difffolded", {"--normalize"}},
           {"period.difffolded", {"--weight", "period"}},
           {"period-n.difffolded", {"--weight", "period", "--normalize"}}}) {
    SCOPED_TRACE(oracle);
    std::vector<std::string> args = {"--compare", before, after, "-T", "folded"};
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = test::graphgen(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(sorted_lines(r.out), test::read_file(dir / oracle));
  }
  // The order is the stacks' first appearance, before's then after's.
  auto r = test::graphgen({"--compare", before, after, "-T", "folded"});
  auto b = test::graphgen({before, "-T", "folded"});
  EXPECT_EQ(r.out.substr(0, r.out.find(' ')), b.out.substr(0, b.out.find(' ')));
  // The differential flame graph: flamegraph.pl's colours of the same
  // stacks (red grew, blue shrank, white unchanged), frame for frame.
  auto flame = test::graphgen({"--compare", before, after, "-T", "flame"});
  ASSERT_EQ(flame.exit_code, 0) << flame.err;
  std::map<std::string, std::vector<std::string>> fills;
  static const std::regex frame(R"re(<title>([^<]*) \([^<]*\)(?: in [^<]*)?</title><rect [^>]*fill="([^"]*)")re");
  for (auto it = std::sregex_iterator(flame.out.begin(), flame.out.end(), frame); it != std::sregex_iterator(); ++it)
    fills[test::xml_unescape((*it)[1].str())].push_back((*it)[2].str());
  std::istringstream colours(test::read_file(dir / "flamegraph.colours"));
  std::size_t compared = 0;
  for (std::string line; std::getline(colours, line);) {
    std::string fill = line.substr(0, line.find('\t')), name = line.substr(line.find('\t') + 1);
    ASSERT_EQ(fills[name].size(), 1u) << name;
    EXPECT_EQ(fills[name][0], fill) << name;
    ++compared;
  }
  EXPECT_EQ(compared, 37u);
  EXPECT_NE(flame.out.find("widths: xz-6.perf.xz; colours: its change from xz-1.perf.xz"), std::string::npos);
  // --normalize is for the folded comparison only.
  auto bad = test::graphgen({"--compare", "--normalize", before, after, "-T", "dot"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(
      bad.err,
      "graphgen: error: --normalize scales the stacks of --compare: write -T folded or -T flame, or leave it out\n");
}

}  // namespace
}  // namespace graphgen::compare_test

namespace graphgen::compare_test {
namespace {

// The same C program built -O0 and -O2 (callgrind): its own functions carry
// the binaries' names as objects, so none of them paired, without a word.
// The comparison now says which functions are alone and what share of the
// time they hold, and how to pair them.
TEST(Compare, UnpairedFunctionsAreNamedWithTheirShare) {
  fs::path dir = test::testdata_dir() / "compare" / "callgrind";
  const std::string a = (dir / "parity-O0.callgrind.xz").string(), b = (dir / "parity-O2.callgrind.xz").string();
  auto r = test::graphgen({"--compare-by", "share", "--compare", a, b, "-T", "dot"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("--compare: 10 of 247 functions of parity-O0.callgrind.xz have no match in "
                       "parity-O2.callgrind.xz (67.4% of its self cost; the heaviest: is_even'2 (33.0%), is_odd'2 "
                       "(32.7%), is_even (0.7%), is_odd (0.7%), main (0.4%)); 10 of 247 functions of "
                       "parity-O2.callgrind.xz have no match"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("; --merge-by-name pairs them by name\n"), std::string::npos) << r.err;
  // By name, every function of the program pairs; what is left is a few
  // unnamed addresses of no cost.
  auto m = test::graphgen({"--compare-by", "share", "--compare", "--merge-by-name", a, b, "-T", "dot"});
  ASSERT_EQ(m.exit_code, 0) << m.err;
  EXPECT_EQ(m.err.find("is_even"), std::string::npos) << m.err;
  EXPECT_NE(m.err.find("(0.0% of its self cost"), std::string::npos) << m.err;
}

}  // namespace
}  // namespace graphgen::compare_test

namespace graphgen::compare_test {
namespace {

std::map<std::string, std::vector<std::string>> compare_rows(const std::vector<std::string>& args) {
  auto r = test::graphgen(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::istringstream in(r.out);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line,
            "function,function_after,paired_by,unit,inclusive_before,inclusive_after,inclusive_delta,self_before,"
            "self_after,self_delta");
  std::map<std::string, std::vector<std::string>> rows;  // by the label before (or after)
  while (std::getline(in, line)) {
    auto f = test::csv_fields(line);
    rows[f[0].empty() ? f[1] : f[0]] = f;
  }
  return rows;
}

// A real script profiled before and after an edit that moved every
// function's line: each still pairs with itself (by name and file), and the
// new helper is after only.
TEST(Compare, FunctionsMovedByAnEditStillPair) {
  fs::path dir = test::testdata_dir() / "compare" / "python";
  auto rows = compare_rows(
      {"--compare", (dir / "before.pstats").string(), (dir / "after.pstats").string(), "-T", "compare.csv"});
  const std::map<std::string, std::string> moved = {{"shapes:17:main", "shapes:23:main"},
                                                    {"shapes:13:table", "shapes:19:table"},
                                                    {"shapes:14:<listcomp>", "shapes:20:<listcomp>"},
                                                    {"shapes:5:area", "shapes:11:area"},
                                                    {"shapes:9:perimeter", "shapes:15:perimeter"},
                                                    {"shapes:20:<genexpr>", "shapes:26:<genexpr>"}};
  for (const auto& [before, after] : moved) {
    ASSERT_TRUE(rows.count(before)) << before;
    EXPECT_EQ(rows[before][1], after);
    EXPECT_EQ(rows[before][2], "name and file");
  }
  EXPECT_EQ(rows["shapes:1:<module>"][2], "identity");
  EXPECT_EQ(rows["shapes:7:square"][2], "after only");
  for (const auto& [label, f] : rows) EXPECT_NE(f[2], "before only") << label;
  // table() does twice the work: its inclusive time more than doubled.
  EXPECT_GT(std::stod(rows["shapes:13:table"][5]), 2 * std::stod(rows["shapes:13:table"][4]));
}

// The -O0 and -O2 builds: every function of the program pairs, and the
// change is the instructions callgrind counted.
TEST(Compare, FunctionsOfTwoBuildsPairAndShowTheirChange) {
  fs::path dir = test::testdata_dir() / "compare" / "callgrind";
  auto rows = compare_rows({"--compare", (dir / "parity-O0.callgrind.xz").string(),
                            (dir / "parity-O2.callgrind.xz").string(), "-T", "compare.csv"});
  for (const char* f : {"main", "is_even", "is_odd", "is_even'2", "is_odd'2"}) {
    ASSERT_TRUE(rows.count(f)) << f;
    EXPECT_EQ(rows[f][1], f);
    EXPECT_EQ(rows[f][2], "name and file") << f;
    EXPECT_EQ(rows[f][3], "Ir");
    EXPECT_EQ(std::stoll(rows[f][9]), std::stoll(rows[f][8]) - std::stoll(rows[f][7])) << f;
  }
  EXPECT_EQ(rows["is_even'2"][7], "128304");  // self Ir, -O0
  EXPECT_EQ(rows["is_even'2"][8], "39600");   // -O2
  auto text = test::graphgen({"--compare", (dir / "parity-O0.callgrind.xz").string(),
                              (dir / "parity-O2.callgrind.xz").string(), "-T", "compare"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_TRUE(
      text.out.starts_with("Comparison of parity-O0.callgrind.xz (before) and parity-O2.callgrind.xz "
                           "(after), in Ir: 388690 -> 208388 (-180302, 0.536x).\n"))
      << text.out.substr(0, 300);
  auto alone = test::graphgen({(dir / "parity-O0.callgrind.xz").string(), "-T", "compare"});
  EXPECT_EQ(alone.exit_code, 2);
  EXPECT_NE(alone.err.find("give --compare BEFORE AFTER"), std::string::npos) << alone.err;
}

}  // namespace
}  // namespace graphgen::compare_test

namespace graphgen::compare_test {
namespace {

// Several files a side (MPI ranks before and after a change): each side is
// a quoted pattern or a folder, merged before the comparison, as the same
// files merged alone.
TEST(Compare, SeveralFilesASideMergeFirst) {
  fs::path dir = test::testdata_dir() / "mpi";
  // Patterns, and folders given with a trailing slash, which are named (the
  // title said "and  (after)").
  const fs::path sides = test::temp_dir();
  for (int k = 0; k < 8; ++k) {
    fs::create_directories(sides / (k < 4 ? "before" : "after"));
    fs::copy_file(dir / ("cpu_" + std::to_string(k) + ".prof"),
                  sides / (k < 4 ? "before" : "after") / ("cpu_" + std::to_string(k) + ".prof"),
                  fs::copy_options::overwrite_existing);
  }
  for (const auto& [cwd, before, after] :
       {std::tuple<fs::path, std::string, std::string>{dir, "cpu_[0-3].prof", "cpu_[4-7].prof"},
        {sides, "before/", "after/"}}) {
    auto r = test::graphgen({"--compare", before, after, "-T", "compare"}, cwd);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto named = [](std::string s) { return s.ends_with('/') ? s.substr(0, s.size() - 1) : s; };
    const std::string name = named(before), other = named(after);
    EXPECT_TRUE(r.out.starts_with("Comparison of " + name + " (before) and " + other +
                                  " (after), in seconds: 1.27425 -> 1.21716 (-0.0570838, 0.955x).\n"))
        << r.out.substr(0, 300);
  }
  // The totals are those of each side merged alone.
  for (const auto& [files, total] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"cpu_0.prof", "cpu_1.prof", "cpu_2.prof", "cpu_3.prof"}, "60120 function calls in 1.274 seconds"},
           {{"cpu_4.prof", "cpu_5.prof", "cpu_6.prof", "cpu_7.prof"}, "60120 function calls in 1.217 seconds"}}) {
    std::vector<std::string> args = files;
    args.insert(args.end(), {"-T", "stats"});
    auto s = test::graphgen(args, dir);
    EXPECT_NE(s.out.find(total), std::string::npos) << s.out.substr(0, 400);
  }
  // The graph takes the two sides too.
  auto dot = test::graphgen({"--compare", "cpu_[0-3].prof", "cpu_[4-7].prof", "-T", "dot"}, dir);
  ASSERT_EQ(dot.exit_code, 0) << dot.err;
  EXPECT_NE(dot.out.find("digraph"), std::string::npos);
  // Three sides are two too many, and the message says how to give several files.
  auto three = test::graphgen({"--compare", "cpu_0.prof", "cpu_1.prof", "cpu_2.prof", "-T", "compare"}, dir);
  EXPECT_EQ(three.exit_code, 2);
  EXPECT_NE(three.err.find("a folder or a quoted pattern each, --compare 'before/*.prof' after/); found 3"),
            std::string::npos)
      << three.err;
}

}  // namespace
}  // namespace graphgen::compare_test

namespace graphgen::compare_test {
namespace {

// Lua 5.4.4 built -O0 and -O2 in two folders (testdata/compare/lua): its
// functions carry two object paths, and -O2 renames what it split or
// specialised (singlematch.part.0.isra.0).
fs::path lua_dir() { return test::testdata_dir() / "compare" / "lua"; }

// No function is alone on both sides under one name (or one name once the
// compiler's clone suffixes are cut): whatever both builds ran, paired.
void expect_no_pair_missed(const std::map<std::string, std::vector<std::string>>& rows) {
  std::set<std::string> before, after;
  auto base = [](std::string name) {
    static const std::regex clone(R"(((\.part|\.isra|\.constprop|\.cold|\.lto_priv)(\.[0-9]+)?)+('[0-9]+)?$)");
    return std::regex_replace(name, clone, "$4");
  };
  for (const auto& [label, f] : rows) {
    if (f[2] == "before only") before.insert(base(f[0]));
    if (f[2] == "after only") after.insert(base(f[1]));
  }
  for (const std::string& name : before) EXPECT_FALSE(after.count(name)) << name << " is alone on both sides";
}

TEST(Compare, LuaBuiltO0AndO2UnderPerfPairsEveryFunctionBothRan) {
  auto rows = compare_rows({"--compare", (lua_dir() / "lua-O0.perf.xz").string(),
                            (lua_dir() / "lua-O2.perf.xz").string(), "-T", "compare.csv"});
  // Every function of the lua binary sampled in both recordings: one
  // object name (lua) in two folders.
  const std::vector<std::string> program = {"atomic",
                                            "auxsort",
                                            "close_state",
                                            "docall",
                                            "gmatch_aux",
                                            "index2value",
                                            "internshrstr",
                                            "ipairsaux",
                                            "l_strcmp",
                                            "luaB_tostring",
                                            "luaC_freeallobjects",
                                            "luaC_newobj",
                                            "luaC_step",
                                            "luaD_call",
                                            "luaD_callnoyield",
                                            "luaD_pcall",
                                            "luaD_poscall",
                                            "luaD_precall",
                                            "luaD_rawrunprotected",
                                            "luaH_getshortstr",
                                            "luaH_newkey",
                                            "luaH_resize",
                                            "luaL_addvalue",
                                            "luaL_checkinteger",
                                            "luaL_checklstring",
                                            "luaL_pushresult",
                                            "luaL_tolstring",
                                            "luaO_pushvfstring",
                                            "luaS_newlstr",
                                            "luaS_remove",
                                            "luaV_execute",
                                            "luaV_finishset",
                                            "luaV_lessthan",
                                            "lua_callk",
                                            "lua_compare",
                                            "lua_geti",
                                            "lua_pcallk",
                                            "lua_pushfstring",
                                            "lua_pushlstring",
                                            "lua_pushvalue",
                                            "lua_rotate",
                                            "lua_seti",
                                            "lua_settop",
                                            "lua_toboolean",
                                            "lua_tointegerx",
                                            "lua_tolstring",
                                            "lua_type",
                                            "main",
                                            "match",
                                            "pmain",
                                            "propagatemark",
                                            "pushstr",
                                            "sort",
                                            "sort_comp",
                                            "str_find_aux",
                                            "str_format",
                                            "str_rep",
                                            "tablerehash",
                                            "tconcat"};
  std::size_t by_object = 0;
  for (const auto& [label, f] : rows) by_object += f[2] == "name and object";
  EXPECT_EQ(by_object, program.size());
  for (const std::string& name : program) {
    ASSERT_TRUE(rows.count(name)) << name;
    EXPECT_EQ(rows[name][1], name);
    EXPECT_EQ(rows[name][2], "name and object") << name;
    EXPECT_EQ(rows[name][3], "samples");
  }
  // libc and the kernel: the same objects, so identity.
  EXPECT_EQ(rows["__libc_start_call_main"][2], "identity");
  // Static functions -O2 inlined are gone from its binary: before only.
  EXPECT_EQ(rows["partition"][2], "before only");
  // 539 samples before, 248 after; the interpreter loop inclusive 514 -> 230.
  EXPECT_EQ(rows["luaV_execute"][4], "514");
  EXPECT_EQ(rows["luaV_execute"][5], "230");
  expect_no_pair_missed(rows);
}

TEST(Compare, LuaBuiltO0AndO2UnderCallgrindPairsClonesToo) {
  auto rows = compare_rows({"--compare", (lua_dir() / "lua-O0.callgrind.xz").string(),
                            (lua_dir() / "lua-O2.callgrind.xz").string(), "-T", "compare.csv"});
  const std::map<std::string, std::string> clones = {
      {"singlematch", "singlematch.part.0.isra.0"}, {"luaL_getmetafield", "luaL_getmetafield.part.0"},
      {"sweepstep", "sweepstep.constprop.0"},       {"tostringbuff", "tostringbuff.part.0.isra.0"},
      {"mainpositionTV", "mainpositionTV.isra.0"},  {"singlevaraux", "singlevaraux.part.0"},
      {"singlevaraux'2", "singlevaraux.part.0'2"},  {"adjust_assign", "adjust_assign.isra.0"},
      {"luaK_codek", "luaK_codek.isra.0"}};
  for (const auto& [before, after] : clones) {
    ASSERT_TRUE(rows.count(before)) << before;
    EXPECT_EQ(rows[before][1], after);
    EXPECT_EQ(rows[before][2], "name without clone suffix") << before;
  }
  for (const char* f : {"luaV_execute", "auxsort", "luaH_getshortstr", "str_format", "main"}) {
    ASSERT_TRUE(rows.count(f)) << f;
    EXPECT_EQ(rows[f][2], "name and object") << f;
  }
  // Self costs are callgrind_annotate's, to the instruction.
  EXPECT_EQ(rows["luaV_execute"][7], "57247181");
  EXPECT_EQ(rows["luaV_execute"][8], "31443346");
  EXPECT_EQ(rows["str_format"][7], "4600004");
  EXPECT_EQ(rows["str_format"][8], "3860008");
  auto text = test::graphgen({"--compare", (lua_dir() / "lua-O0.callgrind.xz").string(),
                              (lua_dir() / "lua-O2.callgrind.xz").string(), "-T", "compare"});
  EXPECT_NE(text.out.find("Paired 688 of 920 functions before with 688 of 695 after: by identity 350, by name and "
                          "file 1, by name and object 328, by name alone 0, by name without clone suffix 9.\n"),
            std::string::npos)
      << text.out.substr(0, 400);
  expect_no_pair_missed(rows);
}

// The cost of a node or call as the graph prints it: counts whole below
// 10 000, else four significant digits and k, M, G.
std::string shown_amount(double v) {
  std::ostringstream s;
  if (std::fabs(v) < 1e4) {
    s << std::setprecision(v == std::round(v) ? 5 : 4) << v;
    return s.str();
  }
  const std::pair<double, const char*> scales[] = {{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
  for (auto [scale, suffix] : scales)
    if (std::fabs(v) >= scale) {
      s << std::setprecision(4) << v / scale << suffix;
      return s.str();
    }
  return "";
}

// The graph of absolute change (the default): each function once, with
// the values -T compare.csv gives, coloured by its change, its pairing rule
// on the node and in the tooltip, and a legend with both totals.
TEST(Compare, GraphShowsEachFunctionsCostBeforeAndAfter) {
  const std::string a = (lua_dir() / "lua-O0.callgrind.xz").string(), b = (lua_dir() / "lua-O2.callgrind.xz").string();
  auto rows = compare_rows({"--compare", a, b, "-T", "compare.csv"});
  auto r = test::graphgen({"--compare", a, b, "-T", "dot"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* f : {"luaV_execute", "auxsort", "luaH_getshortstr", "str_format"}) {
    SCOPED_TRACE(f);
    const auto& row = rows[f];
    const std::string line = shown_amount(std::stod(row[4])) + " \u2192 " + shown_amount(std::stod(row[5]));
    EXPECT_NE(r.out.find("\\n" + std::string(f) + "\\n" + line + " ("), std::string::npos) << line;
  }
  // auxsort's inclusive cost went from 472.5M to 257.9M instructions,
  // -45.4 %: log2(257.9 / 472.5) = -0.874 of the way to the full blue.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      r.out, m,
      std::regex(
          R"re(\t\d+ \[color="#[0-9a-f]+", fillcolor="(#[0-9a-f]+)", [^\n]*label="lua\\nauxsort\\n([^"]*)", tooltip="([^"]*)")re")))
      << r.out.substr(0, 2000);
  EXPECT_EQ(m[1].str(), "#3d79b6");
  EXPECT_NE(m[2].str().find("472.5M \u2192 257.9M (-45.4 %)\\n(8809 \u2192 2.989M)"), std::string::npos) << m[2];
  EXPECT_NE(m[2].str().find("\\npaired by name and object"), std::string::npos) << m[2];
  EXPECT_NE(m[3].str().find("ltablib.c"), std::string::npos) << m[3];
  EXPECT_NE(m[3].str().find("\\npaired by name and object"), std::string::npos) << m[3];
  // The clone pairs on one node, its rule said.
  EXPECT_NE(r.out.find("\\nsinglematch\\n"), std::string::npos);
  EXPECT_NE(r.out.find("\\npaired by name without clone suffix"), std::string::npos);
  // The legend: both totals, as -T compare gives them, and the scale.
  EXPECT_NE(r.out.find("lua-O0.callgrind.xz \u2192 lua-O2.callgrind.xz, in Ir: 885.9M \u2192 496M (-44.0 %)"),
            std::string::npos);
  EXPECT_NE(r.out.find("<td bgcolor=\"#2166ac\" width=\"96\" height=\"18\" fixedsize=\"true\"><font "
                       "color=\"#ffffff\">half or less</font></td>"),
            std::string::npos);
  EXPECT_NE(r.out.find("688 functions paired (350 by identity, 1 by name and file, 328 by name and object, 9 by "
                       "name without clone suffix)"),
            std::string::npos);
}

// A function only one side has is drawn too, and says which; an edit that
// moved a Python function pairs it by name and file, the tooltip naming
// where it went.
TEST(Compare, GraphShowsFunctionsOfOneSideAndWhereAPairMoved) {
  fs::path dir = test::testdata_dir() / "compare" / "python";
  auto r = test::graphgen(
      {"--compare", (dir / "before.pstats").string(), (dir / "after.pstats").string(), "-T", "dot", "-n0", "-e0"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("label=\"shapes:7:square\\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\\nonly in after.pstats\", tooltip="), std::string::npos) << r.out;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex(R"re(label="shapes:13:table\\n([^"]*)", tooltip="([^"]*)")re")))
      << r.out;
  EXPECT_NE(m[1].str().find("\\npaired by name and file"), std::string::npos) << m[1];
  EXPECT_TRUE(
      std::regex_search(m[2].str(), std::regex(R"(shapes\.py:13\\npaired by name and file with .*shapes\.py:19$)")))
      << m[2];
  // table() does twice the work: red, the full colour.
  EXPECT_NE(r.out.find("fillcolor=\"#b2182b\", fontcolor=\"#ffffff\", fontsize=\"10.00\", label=\"shapes:13:table"),
            std::string::npos)
      << r.out;
}

// gprof2dot's drawing stays one option away, and what takes the graph only
// says so.
TEST(Compare, CompareByShareIsGprof2dotsGraph) {
  fs::path dir = test::testdata_dir() / "compare" / "json";
  auto share = test::graphgen(
      {"--compare-by", "share", "--compare", (dir / "a.json").string(), (dir / "b.json").string(), "-T", "dot"});
  ASSERT_EQ(share.exit_code, 0) << share.err;
  EXPECT_NE(share.out.find("label=\"tokenize\\n85.00% - 20.0%"), std::string::npos) << share.out;
  EXPECT_NE(share.out.find("shape=cds"), std::string::npos);
  auto absolute = test::graphgen({"--compare", (dir / "a.json").string(), (dir / "b.json").string(), "-T", "dot"});
  EXPECT_EQ(absolute.out.find("shape=cds"), std::string::npos);
  EXPECT_NE(absolute.out.find("label=\"app\\ntokenize\\n85 \u2192 65 (-23.5 %)\\n(55 \u2192 45)"), std::string::npos)
      << absolute.out;
  auto alone = test::graphgen({"--compare-by", "share", (dir / "a.json").string()});
  EXPECT_EQ(alone.exit_code, 2);
  EXPECT_NE(alone.err.find("--compare-by, --compare-tolerance"), std::string::npos) << alone.err;
  auto bad =
      test::graphgen({"--compare-by", "ratio", "--compare", (dir / "a.json").string(), (dir / "b.json").string()});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("absolute, share"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace graphgen::compare_test
