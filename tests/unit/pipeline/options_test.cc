// pipeline/options: every option written once (its default, its checks),
// and the same request whichever front end hands the settings over.
#include "options.h"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "graphgen/analysis/theme.h"
#include "registry.h"
#include "util/test_util.h"

namespace graphgen::pipeline::options_test {
namespace {

namespace fs = std::filesystem;

Options options_of(const Settings& settings) {
  Diagnostics diag;
  auto o = make_options(settings, diag);
  EXPECT_TRUE(o.has_value()) << (o ? "" : o.error().message);
  return o ? std::move(o).value() : Options{};
}

std::string usage_error(const Settings& settings) {
  Diagnostics diag;
  auto o = make_options(settings, diag);
  if (o) return "(accepted)";
  EXPECT_EQ(o.error().kind, Error::Kind::kBadUsage) << o.error().message;
  return o.error().message;
}

// Every product header: where the structs options fill are declared, and
// where cli.h once declared its own copy of each default.
std::vector<fs::path> product_headers() {
  std::vector<fs::path> out;
  for (const char* dir : {"lib", "formats", "pipeline", "tools", "python"})
    for (const auto& e : fs::recursive_directory_iterator(test::source_dir() / dir))
      if (e.path().extension() == ".h") out.push_back(e.path());
  return out;
}

// The defaults were written three times (-n's 0.5 in cli.h, pipeline.h
// and prune.h) and could disagree; now each is the initial value of the
// one field its option sets. Two greps over the product headers (where the
// structs options fill are declared): the field is declared with an
// initial value once, and no other declaration of any name starts at the
// same literal (cli.h's `double node_thres = 0.5;` was one).
TEST(Options, EachDefaultIsWrittenOnce) {
  struct Field {
    std::string type, name, literal;
  };
  const std::vector<Field> fields = {
      {"double", "node_threshold_percent", "0.5"},
      {"double", "edge_threshold_percent", "0.1"},
      {"std::string", "time_format", "\"%.7g\""},
      {"double", "skew", "1.0"},
      {"int", "depth", "-1"},
      {"std::size_t", "node_count", "0"},
      {"TotalMethod", "total", "TotalMethod::kCallRatios"},
      {"bool", "weight_by_period", "false"},
      {"double", "output_unit", "1e-6"},
      {"double", "tolerance", "0.001"},
      {"std::string_view", "kDefaultTheme", "\"color\""},
  };
  auto escaped = [](const std::string& s) {
    return std::regex_replace(s, std::regex(R"([.^$|()\[\]{}*+?\\])"), "\\$&");
  };
  std::vector<std::pair<std::string, std::string>> lines;  // where, text
  for (const fs::path& path : product_headers()) {
    std::ifstream in(path);
    std::string line;
    for (int n = 1; std::getline(in, line); ++n)
      lines.emplace_back(fs::relative(path, test::source_dir()).string() + ":" + std::to_string(n), line);
  }
  ASSERT_GT(lines.size(), 2000u);
  for (const Field& f : fields) {
    const std::regex field("(^|[^\\w:])" + escaped(f.type) + "\\s+" + f.name + "\\s*(=|\\{)");
    // Any declaration at this literal, but numbers and false only where the
    // type and name are the field's (0, -1 and false start many others).
    const bool common = f.literal == "0" || f.literal == "-1" || f.literal == "false";
    const std::regex same_literal(std::string("^\\s*(constexpr\\s+|inline\\s+|static\\s+)*") +
                                  (common ? escaped(f.type) : std::string("[\\w:<>]+")) + "\\s+" +
                                  (common ? f.name : std::string("\\w+")) + "\\s*=\\s*" + escaped(f.literal) + "\\s*;");
    std::string declared, at_literal;
    int n_declared = 0, n_literal = 0;
    for (const auto& [where, text] : lines) {
      if (std::regex_search(text, field)) ++n_declared, declared += " " + where;
      if (std::regex_search(text, same_literal)) ++n_literal, at_literal += " " + where;
    }
    EXPECT_EQ(n_declared, 1) << f.type << " " << f.name << " is declared with a default at:" << declared;
    EXPECT_EQ(n_literal, 1) << "a default of " << f.literal << " is written at:" << at_literal;
  }
  // And the theme is named once, not as a literal beside it.
  for (const auto& [where, text] : lines) EXPECT_EQ(text.find("find_theme(\"color\")"), std::string::npos) << where;
}

// --help shows each default from the field it sets, so what it says is
// what a request without the option gets.
TEST(Options, HelpShowsTheDefaultsARequestGets) {
  const Options o = options_of({{"input", "testdata/demo.pstats"}});
  const Request& r = o.request;
  auto shown = [](std::string_view key) { return find_option(key)->default_value; };
  EXPECT_EQ(std::stod(shown("node-thres")), r.graph.prune.node_threshold_percent);
  EXPECT_EQ(std::stod(shown("edge-thres")), r.graph.prune.edge_threshold_percent);
  EXPECT_EQ(r.graph.prune.node_threshold_percent, 0.5);  // gprof2dot's
  EXPECT_EQ(r.graph.prune.edge_threshold_percent, 0.1);
  EXPECT_EQ(shown("time-format"), r.write.dot.time_format);
  EXPECT_EQ(std::stod(shown("skew")), r.write.theme.skew);
  EXPECT_EQ(shown("colormap"), "color");
  EXPECT_EQ(find_theme(shown("colormap"))->name, r.write.theme.name);
  EXPECT_EQ(std::stoi(shown("depth")), r.graph.depth);
  EXPECT_EQ(std::stoul(shown("node-count")), r.graph.node_count);
  EXPECT_EQ(shown("total"), r.graph.total == TotalMethod::kCallRatios ? "callratios" : "callstacks");
  EXPECT_EQ(shown("weight"), r.read.weight_by_period ? "period" : "samples");
  EXPECT_EQ(std::stod(shown("unit")), r.write.text.output_unit);
  EXPECT_EQ(std::stod(shown("compare-tolerance")), r.compare_options.tolerance);
  EXPECT_EQ(o.output, "-");
  EXPECT_EQ(r.output->name, "dot");
  // Flags and lists have no default to show.
  for (const OptionSpec& s : option_specs()) {
    if (s.kind != OptionKind::kValue) {
      EXPECT_EQ(s.default_value, "") << s.key;
    }
  }
}

TEST(Options, KeysAreUniqueAndEveryFrontEndHasItsOwn) {
  std::set<std::string> keys;
  for (const OptionSpec& s : option_specs()) {
    EXPECT_TRUE(keys.insert(s.key).second) << s.key;
    EXPECT_FALSE(s.help.empty()) << s.key;
    EXPECT_NE(s.front_ends, 0u) << s.key;
    for (const std::string& other : s.excludes) {
      ASSERT_NE(find_option(other), nullptr) << s.key << " excludes " << other;
      const auto& back = find_option(other)->excludes;
      EXPECT_NE(std::find(back.begin(), back.end(), s.key), back.end()) << other << " does not exclude " << s.key;
    }
  }
  // What only one process can do is graphgen's; Python functions return
  // bytes, so they have no -o, -T, -q, --each or -k.
  for (const char* key : {"each", "jobs", "compare", "list-functions", "timings", "kcachegrind"})
    EXPECT_FALSE(find_option(key)->front_ends & kMpi) << key;
  for (const char* key : {"output", "to", "quiet", "each", "jobs", "compare", "kcachegrind", "keep-going"})
    EXPECT_FALSE(find_option(key)->front_ends & kPython) << key;
  EXPECT_FALSE(find_option("input")->front_ends & kRun);  // the script is the input
}

// Every value is checked here, once, with a message naming the option and
// what it found, the same for the CLI, graphgen-mpi and the Python module.
TEST(Options, BadValuesNameTheOptionAndTheValue) {
  const Settings in = {{"input", "testdata/demo.pstats"}};
  auto with = [&](Settings more) {
    Settings s = in;
    s.insert(s.end(), more.begin(), more.end());
    return usage_error(s);
  };
  EXPECT_EQ(with({{"node-thres", "200"}}), "--node-thres: expected a percentage in [0, 100], found '200'");
  EXPECT_EQ(with({{"edge-thres", "1e"}}), "--edge-thres: expected a percentage in [0, 100], found '1e'");
  EXPECT_EQ(with({{"node-thres", "nan"}}), "--node-thres: expected a percentage in [0, 100], found 'nan'");
  EXPECT_EQ(with({{"skew", "-1"}}), "--skew: expected a number not below 0, found '-1'");
  EXPECT_EQ(with({{"colormap", "rainbow"}}),
            "--colormap: expected one of " + std::string("bw, color, gray, pink, print") + ", found 'rainbow'");
  EXPECT_EQ(with({{"depth", "-2"}}), "--depth: expected a whole number, -1 for no limit, found '-2'");
  EXPECT_EQ(with({{"node-count", "-1"}}), "--node-count: expected a count of nodes, 0 for all, found '-1'");
  EXPECT_EQ(with({{"unit", "0"}}), "--unit: expected a positive number of seconds, found '0'");
  EXPECT_EQ(with({{"max-memory", "12Q"}}), "--max-memory: expected a size such as 512M or 4G, found '12Q'");
  EXPECT_EQ(with({{"jobs", "0"}, {"each", "true"}}), "--jobs: expected a positive number of jobs, found '0'");
  EXPECT_EQ(with({{"jobs", "2"}}), "--jobs goes with --each");
  EXPECT_EQ(with({{"top", "ten"}}), "--top: expected a count of functions, found 'ten'");
  // (0 printed every stats line and the ranks table's default 25, silently.)
  EXPECT_EQ(with({{"top", "0"}}), "--top: expected a count of functions of at least 1, found '0'");
  EXPECT_EQ(with({{"pid", "12a"}}), "--pid: expected a process or thread id, found '12a'");
  EXPECT_EQ(with({{"node-thres", "1"}, {"node-thres", "2"}}), "--node-thres is given twice; give it once");
  EXPECT_EQ(with({{"python", "true"}, {"no-python", "true"}}), "--python and --no-python exclude each other");
  EXPECT_EQ(with({{"strip", "yes"}}), "--strip: expected no value (a flag), found 'yes'");
  EXPECT_EQ(with({{"no-such", "1"}}), "unknown option '--no-such'");
  EXPECT_EQ(with({{"compare-only-slower", "true"}}),
            "--compare-by, --compare-tolerance, --compare-only-slower, --compare-only-faster, "
            "--compare-color-by-difference and --normalize go with --compare A B");
  EXPECT_EQ(with({{"normalize", "true"}}),
            "--compare-by, --compare-tolerance, --compare-only-slower, --compare-only-faster, "
            "--compare-color-by-difference and --normalize go with --compare A B");
  EXPECT_EQ(with({{"sort", "time"}}),
            "--sort, --restrict, --strip-dirs, --callers and --callees shape -T stats, pstats' report");
  EXPECT_NE(with({{"time-format", "%d%n"}}).find("--time-format"), std::string::npos);
}

TEST(Options, SettingsBecomeTheRequest) {
  const Options o = options_of({{"input", "testdata/demo.pstats"},
                                {"to", "stats"},
                                {"node-thres", "2.5"},
                                {"edge-thres", "0"},
                                {"colormap", "gray"},
                                {"skew", "0"},
                                {"path", "/a"},
                                {"path", "/b"},
                                {"sort", "time"},
                                {"sort", "name"},
                                {"top", "7"},
                                {"weight", "period"},
                                {"total", "callstacks"},
                                {"max-memory", "2M"},
                                {"output", "x.txt"},
                                {"quiet", "true"}});
  const Request& r = o.request;
  EXPECT_EQ(r.output->name, "stats");
  EXPECT_EQ(r.graph.prune.node_threshold_percent, 2.5);
  EXPECT_EQ(r.graph.prune.edge_threshold_percent, 0);
  EXPECT_EQ(r.write.theme.name, "gray");
  EXPECT_EQ(r.write.theme.skew, 1.0);  // gprof2dot ignores a zero skew
  EXPECT_EQ(r.graph.prune.paths, (std::vector<std::string>{"/a", "/b"}));
  EXPECT_EQ(r.write.stats.sort, (std::vector<std::string>{"time", "name"}));
  EXPECT_EQ(r.write.stats.restrictions, (std::vector<std::string>{"7"}));  // --top N is pstats' N lines
  EXPECT_TRUE(r.read.weight_by_period);
  EXPECT_EQ(r.graph.total, TotalMethod::kCallStacks);
  EXPECT_EQ(r.max_memory, 2u * 1024 * 1024);
  EXPECT_EQ(o.output, "x.txt");
  EXPECT_TRUE(o.quiet);
  EXPECT_EQ(r.write.title, "testdata/demo.pstats");
  // Only the outputs that draw stacks keep them.
  EXPECT_FALSE(r.read.keep_stacks);
  EXPECT_TRUE(options_of({{"input", "testdata/demo.pstats"}, {"to", "flame"}}).request.read.keep_stacks);
}

// Per-position detail (callgrind's lines and addresses, line_profiler's
// lines) is kept for the writers that show it, callgrind and line_profiler's
// report, and for no other output: pydoc-sep3's positions held 190 MB and
// took 0.7 s of the read for -T pstats, which writes none of them.
TEST(Options, OnlyTheOutputsThatShowPositionsKeepThem) {
  std::set<std::string> keeping;
  for (const formats::OutputFormat& f : formats::output_formats()) {
    const std::string input =
        f.needs == formats::Needs::kLineHits ? "testdata/lprof/blocks.lprof" : "testdata/demo.pstats";
    Diagnostics diag;
    auto o = make_options({{"input", input}, {"to", std::string(f.name)}}, diag);
    ASSERT_TRUE(o.has_value()) << f.name << ": " << o.error().message;
    const formats::ReadOptions& read = o->request.read;
    if (read.keep_positions) keeping.insert(std::string(f.name));
    EXPECT_EQ(read.graph_only, f.needs == formats::Needs::kGraph) << f.name;
  }
  EXPECT_EQ(keeping, (std::set<std::string>{"callgrind", "text"}));
  // --list-functions prints names only.
  auto listed = options_of({{"input", "testdata/demo.pstats"}, {"to", "callgrind"}, {"list-functions", "*"}});
  EXPECT_FALSE(listed.request.read.keep_positions);
  EXPECT_TRUE(listed.request.read.graph_only);
}

}  // namespace
}  // namespace graphgen::pipeline::options_test
