// pprof's profile.proto: real files of Go's runtime/pprof and gperftools
// read as `go tool pprof` reads them (testdata/pprof/*.flat.tsv, its
// flat and cum per function), and graphgen's own pprof output read back
// the same, by graphgen and, where Go is installed, by go tool pprof.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "util/test_util.h"

namespace fs = std::filesystem;

namespace graphgen::pprof_test {
namespace {

fs::path pprof_dir() { return test::testdata_dir() / "pprof"; }

struct Totals {
  double self = 0, inclusive = 0;
};

// Each function's self and inclusive cost of event `event` (its unit
// shown: seconds for time), by label, as -T compare.csv of the file against
// itself gives them.
std::map<std::string, Totals> graphgen_totals(const std::string& file, const std::string& event = {}) {
  std::vector<std::string> args = {"--compare", file, file, "-T", "compare.csv", "-q"};
  if (!event.empty()) args.insert(args.end(), {"--event", event});
  auto r = test::graphgen(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, Totals> out;
  std::istringstream in(r.out);
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    auto f = test::csv_fields(line);
    Totals& t = out[f[0]];
    t.self += std::stod(f[7]);
    t.inclusive += std::stod(f[4]);
  }
  return out;
}

// flattool's table (testdata/pprof/flattool.go): per sample type, per
// function name, flat and cum in the profile's unit; and the units.
struct Oracle {
  std::map<std::string, std::map<std::string, Totals>> rows;
  std::map<std::string, std::string> unit;
  std::map<std::string, double> total;
};

Oracle oracle(const fs::path& tsv) {
  Oracle o;
  std::istringstream in(test::read_file(tsv));
  for (std::string line; std::getline(in, line);) {
    const std::vector<std::string> f = test::tsv_fields(line);
    if (f.size() == 4 && f[0] == "#total") {
      o.unit[f[1]] = f[2];
      o.total[f[1]] = std::stod(f[3]);
    } else if (f.size() >= 4 && !line.starts_with("#") && f[0] != "sample_type") {
      o.rows[f[0]][f[1]] = {std::stod(f[2]), std::stod(f[3])};
    }
  }
  return o;
}

void expect_near(double expected, double actual, const std::string& what) {
  EXPECT_NEAR(actual, expected, 1e-9 * std::max(1.0, std::fabs(expected))) << what;
}

TEST(Pprof, RealProfilesReadAsGoToolPprofReadsThem) {
  for (const char* name : {"go-cpu", "go-heap", "gperf-xz", "gperf-xz-dbg-inl"}) {
    SCOPED_TRACE(name);
    const Oracle o = oracle(pprof_dir() / (std::string(name) + ".flat.tsv"));
    ASSERT_FALSE(o.rows.empty());
    for (const auto& [type, rows] : o.rows) {
      SCOPED_TRACE(type);
      const double scale = o.unit.at(type) == "nanoseconds" ? 1e-9 : 1;
      auto got = graphgen_totals((pprof_dir() / (std::string(name) + ".pb.gz")).string(), type);
      std::set<std::string> names;
      double sum = 0;
      for (const auto& [label, t] : got) {
        if (t.self != 0 || t.inclusive != 0) names.insert(label);
        sum += t.self;
      }
      for (const auto& [label, t] : rows) names.insert(label);
      for (const std::string& n : names) {
        Totals want = rows.count(n) ? rows.at(n) : Totals{};
        Totals have = got.count(n) ? got.at(n) : Totals{};
        expect_near(want.self * scale, have.self, n + " flat");
        expect_near(want.inclusive * scale, have.inclusive, n + " cum");
      }
      expect_near(o.total.at(type) * scale, sum, "total");
    }
  }
}

TEST(Pprof, TheDefaultSampleTypeIsGraphedAndLabelsAreNamed) {
  // No default_sample_type: the last type, as pprof takes it (inuse_space).
  auto r = test::graphgen({(pprof_dir() / "go-heap.pb.gz").string(), "-T", "stats"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("encoding/json.Marshal"), std::string::npos);
  EXPECT_NE(r.err.find("go-heap.pb.gz: labels of 360 samples are left out (graphgen keeps no labels but process): "
                       "bytes\n"),
            std::string::npos)
      << r.err;
  // gperftools' drop_frames (names joined by |) is applied, without a word.
  auto g = test::graphgen({(pprof_dir() / "gperf-xz-dbg-inl.pb.gz").string(), "-T", "folded"});
  ASSERT_EQ(g.exit_code, 0) << g.err;
  EXPECT_EQ(g.err, "");
  EXPECT_NE(g.out.find("__libc_start_call_main;main;coder_run;coder_normal;"), std::string::npos) << g.out;
  // Frames without symbols: one function per library, as pprof shows them.
  auto s = test::graphgen({(pprof_dir() / "gperf-xz.pb.gz").string(), "-T", "folded"});
  ASSERT_EQ(s.exit_code, 0) << s.err;
  EXPECT_NE(s.out.find("[xz];[libc.so.6];[xz];[liblzma.so.5.4.1] "), std::string::npos) << s.out;
}

// What graphgen writes reads back with the same self cost per function:
// exactly for recorded stacks (perf, pprof), and for stacks rebuilt from
// call ratios (pstats, callgrind) with the same total.
TEST(Pprof, OwnOutputReadsBackWithTheSameCosts) {
  struct Case {
    std::string input, event;
    bool exact;
  };
  const fs::path td = test::testdata_dir();
  for (const Case& c : std::vector<Case>{{(td / "perf" / "q-g.perf").string(), "", true},
                                         {(pprof_dir() / "go-heap.pb.gz").string(), "alloc_space", true},
                                         {(td / "demo.pstats").string(), "", false},
                                         {(td / "callgrind" / "parity.callgrind").string(), "", false}}) {
    SCOPED_TRACE(c.input);
    const fs::path out = test::temp_dir() / "out.pb.gz";
    auto w = test::graphgen({c.input, "-o", out.string(), "-q"});
    ASSERT_EQ(w.exit_code, 0) << w.err;
    EXPECT_EQ(test::read_file(out).substr(0, 2), "\x1f\x8b");  // gzipped, as pprof writes it
    auto before = graphgen_totals(c.input, c.event);
    auto after = graphgen_totals(out.string(), c.event);
    double sum_before = 0, sum_after = 0;
    for (const auto& [label, t] : before) {
      sum_before += t.self;
      if (c.exact) {
        EXPECT_EQ(after[label].self, t.self) << label;
        EXPECT_EQ(after[label].inclusive, t.inclusive) << label;
      }
    }
    for (const auto& [label, t] : after) sum_after += t.self;
    // Rebuilt stacks are rounded to whole units so that their sum stays
    // the total (within one unit: pstats' seconds become nanoseconds).
    if (c.exact)
      EXPECT_EQ(sum_after, sum_before);
    else
      EXPECT_NEAR(sum_after, sum_before, c.input.ends_with(".pstats") ? 1e-9 : 1.0);
  }
  // Filters apply to what is written: the hidden function's cost goes to
  // its caller.
  const fs::path hidden = test::temp_dir() / "hidden.pb.gz";
  ASSERT_EQ(
      test::graphgen({(td / "perf" / "q-g.perf").string(), "--hide", "^is_odd$", "-o", hidden.string()}).exit_code, 0);
  auto folded = test::graphgen({hidden.string(), "-T", "folded"});
  EXPECT_EQ(folded.out.find("is_odd"), std::string::npos) << folded.out;
  EXPECT_NE(folded.out.find("is_even"), std::string::npos) << folded.out;
  // A call graph's stacks are rebuilt: the output says so.
  auto w = test::graphgen({(td / "demo.pstats").string(), "-o", (test::temp_dir() / "d.pb.gz").string()});
  EXPECT_NE(w.err.find("-T pprof is approximate: the profile records a call graph, not stacks"), std::string::npos)
      << w.err;
}

// A Profile message written by hand, field by field (protobuf's wire
// format: a varint tag, then a varint or a length and bytes).
class Message {
 public:
  Message& varint(std::uint32_t field, std::uint64_t v) {
    key(field, 0);
    put(v);
    return *this;
  }
  Message& bytes(std::uint32_t field, std::string_view b) {
    key(field, 2);
    put(b.size());
    out_.append(b);
    return *this;
  }
  Message& message(std::uint32_t field, const Message& m) { return bytes(field, m.out_); }
  const std::string& str() const { return out_; }

 private:
  void key(std::uint32_t field, int wire) { put(std::uint64_t{field} << 3 | static_cast<unsigned>(wire)); }
  void put(std::uint64_t v) {
    for (; v >= 0x80; v >>= 7) out_ += static_cast<char>(v | 0x80);
    out_ += static_cast<char>(v);
  }
  std::string out_;
};

// Ids are any 64-bit number (2^40 here), each table's own; two pprof
// functions of one name, file and line in one binary are one function;
// an id defined twice or named without a definition is an error naming it.
TEST(Pprof, IdsAreLookedUpInTheirOwnTableAndFunctionsMergeByIdentity) {
  constexpr std::uint64_t kBig = std::uint64_t{1} << 40;
  auto function = [](std::uint64_t id, std::uint64_t name, std::int64_t line) {
    return Message().varint(1, id).varint(2, name).varint(4, 5).varint(5, static_cast<std::uint64_t>(line));
  };
  auto location = [](std::uint64_t id, std::uint64_t function_id) {
    return Message().varint(1, id).message(4, Message().varint(1, function_id).varint(2, 12));
  };
  auto sample = [](std::vector<std::uint64_t> locations, std::uint64_t value) {
    Message s;
    for (std::uint64_t l : locations) s.varint(1, l);
    return s.varint(2, value);
  };
  auto profile = [&](const std::vector<Message>& functions, const std::vector<Message>& locations,
                     const std::vector<Message>& samples) {
    Message p;
    p.message(1, Message().varint(1, 1).varint(2, 2));
    for (const Message& s : samples) p.message(2, s);
    for (const Message& l : locations) p.message(4, l);
    for (const Message& f : functions) p.message(5, f);
    for (std::string_view s : {"", "samples", "count", "main", "work", "/src/a.go"}) p.bytes(6, s);
    return p.str();
  };
  auto folded = [](const std::string& bytes, const std::string& name) {
    const fs::path f = test::temp_dir() / name;
    std::ofstream(f, std::ios::binary) << bytes;
    return test::graphgen({"-f", "pprof", f.string(), "-T", "folded", "-q"});
  };
  // main (ids 7 and 9, the same function) calls work (id 2^40).
  const std::vector<Message> functions = {function(7, 3, 10), function(kBig, 4, 20), function(9, 3, 10)};
  const std::vector<Message> locations = {location(100, 7), location(kBig + 5, kBig), location(3, 9)};
  auto ok =
      folded(profile(functions, locations, {sample({kBig + 5, 100}, 3), sample({100}, 2), sample({3}, 4)}), "ids.pb");
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(ok.out, "main 6\nmain;work 3\n");

  struct Bad {
    std::vector<Message> functions, locations, samples;
    std::string error;
  };
  for (const Bad& b : std::vector<Bad>{
           {{function(7, 3, 10), function(7, 4, 20)},
            {location(100, 7)},
            {sample({100}, 1)},
            "function 7 is defined twice"},
           {functions, {location(100, 7), location(100, 9)}, {sample({100}, 1)}, "location 100 is defined twice"},
           {functions,
            {location(100, 8)},
            {sample({100}, 1)},
            "location 100 refers to function 8, which the profile does not define"},
           {functions,
            locations,
            {sample({100, kBig + 6}, 1)},
            "sample 0 refers to location 1099511627782, which the profile does not define"}}) {
    auto r = folded(profile(b.functions, b.locations, b.samples), "bad.pb");
    EXPECT_EQ(r.exit_code, 1) << b.error;
    EXPECT_NE(r.err.find(b.error), std::string::npos) << r.err;
  }
}

// go tool pprof reads graphgen's output as graphgen does: per function
// name, the flat and cum of `go tool pprof -raw`'s samples equal the self
// and inclusive cost graphgen reads back. Needs Go (golang-go).
// One Go function in the profiles of two binaries (a program and its test)
// stays two functions in the graph (each names its binary), but pstats'
// key (file, line, name) cannot tell them apart: -T stats printed two
// rows of one key, 0.290 and 0.160 s, where the pstats output holds one
// entry, print_stats prints 0.450 and go tool pprof -top 0.45 s.
TEST(Pprof, FunctionsOfTwoBinariesAreOneStatsRowAsInPstats) {
  fs::path dir = test::testdata_dir() / "pprof" / "two-binaries";
  auto r = test::graphgen({"gw-cpu.pb.gz", "gw-test-cpu.pb.gz", "-T", "stats"}, dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream in(r.out);
  std::map<std::string, int> rows;
  std::string unmarshal, marshal;
  for (std::string line; std::getline(in, line);) {
    const std::size_t at = line.find("/usr/lib/go-1.19/src/");
    if (at == std::string::npos) continue;
    ++rows[line.substr(at)];
    if (line.ends_with("(encoding/json.Unmarshal)")) unmarshal = line;
    if (line.ends_with("(encoding/json.Marshal)")) marshal = line;
  }
  ASSERT_FALSE(rows.empty()) << r.out;
  for (const auto& [key, count] : rows) EXPECT_EQ(count, 1) << key;
  // go tool pprof -top: cum 0.45 s and 0.26 s.
  EXPECT_NE(unmarshal.find("   0.450   "), std::string::npos) << unmarshal;
  EXPECT_NE(marshal.find("   0.260   "), std::string::npos) << marshal;
  EXPECT_NE(r.out.find("function calls in 2.160 seconds"), std::string::npos) << r.out;
}

// profile.proto's strings are UTF-8: a name with other bytes (a folded
// stack's, as any input may have) made protobuf log an error to stderr for
// each, -q or not, and wrote the raw bytes. They are U+FFFD, as in dot.
TEST(Pprof, NamesThatAreNotUtf8AreWrittenAsReplacementCharacters) {
  const fs::path dir = test::temp_dir();
  std::ofstream(dir / "u.collapse") << "main;b\xff\xfe"
                                       "az 5\nmain;c 3\n";
  auto w = test::graphgen({"-q", "u.collapse", "-o", "u.pb.gz"}, dir);
  ASSERT_EQ(w.exit_code, 0) << w.err;
  EXPECT_EQ(w.err, "");
  auto back = test::graphgen({"u.pb.gz", "-T", "folded"}, dir);
  ASSERT_EQ(back.exit_code, 0) << back.err;
  EXPECT_EQ(back.out,
            "main;b\xef\xbf\xbd\xef\xbf\xbd"
            "az 5\nmain;c 3\n");
}

TEST(Pprof, GoToolPprofReadsTheOutput) {
  if (test::run({"sh", "-c", "command -v go"}).exit_code != 0) GTEST_SKIP() << "go (golang-go) is not installed";
  const fs::path td = test::testdata_dir();
  for (const fs::path& input : {td / "perf" / "q-g.perf", td / "demo.pstats", pprof_dir() / "go-cpu.pb.gz"}) {
    SCOPED_TRACE(input.string());
    const fs::path out = test::temp_dir() / "out.pb.gz";
    ASSERT_EQ(test::graphgen({input.string(), "-o", out.string(), "-q"}).exit_code, 0);
    auto raw = test::run({"go", "tool", "pprof", "-raw", out.string()}, {}, {"HOME=" + test::temp_dir().string()});
    ASSERT_EQ(raw.exit_code, 0) << raw.err;
    // Samples: `  value value: loc loc ...`, one value per sample type in
    // their order; Locations: `  id: 0x0 M=n name file:line s=N`.
    std::istringstream in(raw.out);
    std::string line, section;
    std::vector<std::pair<std::vector<double>, std::vector<int>>> samples;
    std::map<int, std::string> location_name;
    std::vector<std::string> types;
    int default_index = -1;
    while (std::getline(in, line)) {
      if (line == "Samples:" || line == "Locations" || line == "Mappings") {
        section = line;
        continue;
      }
      if (section == "Samples:" && types.empty()) {
        std::istringstream t(line);
        for (std::string type; t >> type;) {
          if (type.ends_with("[dflt]")) default_index = static_cast<int>(types.size());
          types.push_back(type);
        }
        continue;
      }
      if (section == "Samples:" && line.find(':') != std::string::npos && line.find("process:") == std::string::npos) {
        std::vector<double> values;
        std::istringstream v(line.substr(0, line.find(':')));
        for (double x; v >> x;) values.push_back(x);
        std::vector<int> locs;
        std::istringstream l(line.substr(line.find(':') + 1));
        for (int id; l >> id;) locs.push_back(id);
        samples.push_back({values, locs});
      } else if (section == "Locations") {
        // "     1: 0x0 M=1 name file:line s=0": the name is between the
        // mapping and the last two fields.
        std::istringstream l(line);
        std::string id, address, mapping;
        l >> id >> address >> mapping;
        std::string rest;
        std::getline(l, rest);
        rest = rest.substr(1);
        std::size_t s = rest.rfind(" s=");
        std::size_t file = rest.rfind(' ', s - 1);
        location_name[std::stoi(id)] = rest.substr(0, file);
      }
    }
    ASSERT_GE(default_index, 0) << raw.out.substr(0, 300);
    std::map<std::string, Totals> go;
    for (const auto& [values, locs] : samples) {
      ASSERT_EQ(values.size(), types.size());
      const double v = values[static_cast<std::size_t>(default_index)];
      go[location_name[locs.front()]].self += v;
      std::set<std::string> seen;
      for (int id : locs)
        if (seen.insert(location_name[id]).second) go[location_name[id]].inclusive += v;
    }
    const double scale =
        types[static_cast<std::size_t>(default_index)].find("nanoseconds") != std::string::npos ? 1e-9 : 1;
    auto back = graphgen_totals(out.string());
    for (const auto& [name, t] : back) {
      if (t.self == 0 && t.inclusive == 0) continue;
      expect_near(t.self, go[name].self * scale, name + " flat");
      expect_near(t.inclusive, go[name].inclusive * scale, name + " cum");
    }
  }
}

}  // namespace
}  // namespace graphgen::pprof_test
