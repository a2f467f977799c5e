// Score-P's CUBE4 profiles against pycubexr's reading of the same files:
// every call-tree node's exclusive value of every metric (summed over the
// locations in their order), every location's values, the visits as call
// counts (testdata/cube/README.md says how the dumps were made).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "common/decompress.h"
#include "cube/anchor.h"
#include "cube/reader.h"
#include "util/test_util.h"

namespace graphgen::cube_test {
namespace {

namespace fs = std::filesystem;

// A dump of pycubexr's: rows of named columns.
std::vector<std::map<std::string, std::string>> dump(const std::string& name) {
  std::istringstream in(test::read_file(test::testdata_dir() / "cube" / "pycubexr" / name));
  std::string line;
  std::getline(in, line);
  auto header = test::csv_fields(line);
  std::vector<std::map<std::string, std::string>> rows;
  while (std::getline(in, line)) {
    auto f = test::csv_fields(line);
    EXPECT_EQ(f.size(), header.size()) << line;
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < f.size() && i < header.size(); ++i) row[header[i]] = f[i];
    rows.push_back(std::move(row));
  }
  EXPECT_FALSE(rows.empty()) << name;
  return rows;
}

// The cnode ids of the call tree in document order (the reader's order).
std::vector<long> cnode_ids(const InputFile& cubex) {
  std::string bytes(cubex.bytes());
  std::size_t at = bytes.find("<?xml");
  std::size_t end = bytes.find("</cube>", at);
  EXPECT_NE(end, std::string::npos);
  auto anchor = cube::detail::parse_anchor(bytes.substr(at, end + 7 - at), "anchor.xml");
  EXPECT_TRUE(anchor.has_value());
  std::vector<long> ids;
  for (const auto& c : anchor->cnodes) ids.push_back(static_cast<long>(c.id));
  return ids;
}

Profile read_cube(const std::string& file, std::vector<long>* ids = nullptr) {
  auto in = InputFile::open((test::testdata_dir() / "cube" / file).string());
  EXPECT_TRUE(in.has_value());
  auto opened = formats::prepared(std::move(in).value());  // gunzipped
  EXPECT_TRUE(opened.has_value());
  if (ids) *ids = cnode_ids(*opened);
  Diagnostics diag;
  auto p = cube::read(*opened, {}, diag);
  EXPECT_TRUE(p.has_value()) << p.error().message;
  return std::move(p).value();
}

struct Oracle {
  // metric -> cnode -> location -> (exclusive, inclusive), as numbers
  std::map<std::string, std::map<long, std::map<long, std::pair<std::string, std::string>>>> values;
  std::vector<std::map<std::string, std::string>> tree;
  std::size_t locations = 0;
};

Oracle oracle(const std::string& name) {
  Oracle o;
  for (auto& r : dump(name + ".values.csv"))
    o.values[r["metric"]][std::stol(r["cnode_id"])][std::stol(r["location_id"])] = {r["exclusive"], r["inclusive"]};
  o.tree = dump(name + ".tree.csv");
  o.locations = dump(name + ".locations.csv").size();
  return o;
}

// A cost as the text pycubexr printed: repr of a float, or an integer.
bool same(const Profile& p, std::size_t e, Cost c, const std::string& text) {
  if (p.events[e].floating) return cost_float(c) == std::stod(text);
  return c == std::stoll(text);
}

void check(const std::string& file, const std::string& name) {
  SCOPED_TRACE(file);
  std::vector<long> ids;
  Profile p = read_cube(file, &ids);
  Oracle o = oracle(name);
  const std::size_t ne = p.events.size(), cn = o.tree.size(), nl = o.locations;
  // The call tree: node c+1 is cnode c, its region and parent as pycubexr's.
  ASSERT_EQ(p.stack_nodes.size(), cn + 1);
  ASSERT_EQ(ids.size(), cn);
  std::map<long, std::size_t> row_of_id;  // the dumps are in id order
  for (std::size_t r = 0; r < cn; ++r) row_of_id[std::stol(o.tree[r]["cnode_id"])] = r;
  for (std::size_t c = 0; c < cn; ++c) {
    auto& row = o.tree[row_of_id.at(ids[c])];
    EXPECT_EQ(p.str(p.functions[p.stack_nodes[c + 1].function].name), row["region_name"]);
    long parent = std::stol(row["parent_cnode_id"]);
    std::uint32_t parent_node = p.stack_nodes[c + 1].parent;
    EXPECT_EQ(parent_node == 0 ? -1 : ids[parent_node - 1], parent);
  }
  // Every node's exclusive value of every event: the locations' sum.
  std::size_t checked = 0;
  for (std::size_t e = 0; e < ne; ++e) {
    std::string metric(p.str(p.events[e].name));
    ASSERT_TRUE(o.values.count(metric)) << metric;
    for (std::size_t c = 0; c < cn; ++c) {
      double dsum = 0;
      std::int64_t isum = 0;
      for (std::size_t l = 0; l < nl; ++l) {
        const std::string& v = o.values[metric][ids[c]][static_cast<long>(l)].first;
        if (p.events[e].floating)
          dsum += std::stod(v);
        else
          isum += std::stoll(v);
      }
      Cost got = p.stack_node_cost[(c + 1) * ne + e];
      if (p.events[e].floating)
        EXPECT_EQ(cost_float(got), dsum) << metric << " cnode " << c;
      else
        EXPECT_EQ(got, isum) << metric << " cnode " << c;
      ++checked;
    }
  }
  EXPECT_EQ(checked, ne * cn);
  // Each location: a function of one call-tree node has that node's values
  // there, exclusive and inclusive; visits are its calls.
  std::map<std::string, std::vector<long>> nodes_of;
  for (std::size_t r = 0; r < cn; ++r) nodes_of[o.tree[r]["region_name"]].push_back(std::stol(o.tree[r]["cnode_id"]));
  ASSERT_EQ(p.locations.size(), nl);
  std::size_t rows = 0;
  for (std::size_t l = 0; l < nl; ++l) {
    const Location& loc = p.locations[l];
    for (std::uint32_t r = loc.begin; r < loc.end; ++r) {
      std::string fname(p.str(p.functions[p.location_functions[r]].name));
      if (nodes_of[fname].size() != 1) continue;
      long c = nodes_of[fname][0];
      for (std::size_t e = 0; e < ne; ++e) {
        auto& [excl, incl] = o.values[std::string(p.str(p.events[e].name))][c][static_cast<long>(l)];
        EXPECT_TRUE(same(p, e, p.location_self[r * ne + e], excl)) << fname << " location " << l;
        EXPECT_TRUE(same(p, e, p.location_total[r * ne + e], incl)) << fname << " location " << l;
      }
      if (o.values.count("visits")) {
        EXPECT_NE(o.values["visits"][c][static_cast<long>(l)].first, "0");
      }
      ++rows;
    }
  }
  EXPECT_GT(rows, nl);
  // Calls: the visits of a function's nodes over every location.
  if (o.values.count("visits"))
    for (auto& [fname, nodes] : nodes_of) {
      std::int64_t visits = 0;
      for (long c : nodes)
        for (auto& [l, v] : o.values["visits"][c]) visits += std::stoll(v.first);
      bool found = false;
      for (const Function& f : p.functions)
        if (p.str(f.name) == fname) {
          EXPECT_EQ(f.calls, visits) << fname;
          found = true;
        }
      EXPECT_TRUE(found) << fname;
    }
}

TEST(Cube, EveryNodeAndLocationEqualsPycubexr) {
  check("call_tree_test.cubex.gz", "call_tree_test");  // one thread, 18 nodes, inclusive time
  check("kripke.p8.cubex.gz", "kripke");               // 8 MPI ranks, PAPI counters, bytes
  check("time.p4.cubex.gz", "time_p4");                // 4 ranks, 92 nodes
  check("values_example.cubex.gz", "values_example");  // every integer type, unsigned clamping, threads
}

TEST(Cube, TimeIsTheFirstEventAndVisitsTheCalls) {
  Profile p = read_cube("kripke.p8.cubex.gz");
  ASSERT_GE(p.events.size(), 2u);
  EXPECT_EQ(p.str(p.events[0].name), "time");
  EXPECT_TRUE(p.events[0].floating);
  for (const Event& e : p.events) EXPECT_NE(p.str(e.name), "visits");
  EXPECT_GT(p.calls.size(), 5u);
}

// Every Score-P profile holds min_time and max_time: leaving them out is no
// news (each file warned); metrics of other kinds are named.
TEST(Cube, OnlyUnusualMetricsLeftOutAreSaid) {
  auto kripke = test::graphgen({(test::testdata_dir() / "cube" / "kripke.p8.cubex.gz").string(), "-T", "stats"});
  ASSERT_EQ(kripke.exit_code, 0);
  EXPECT_EQ(kripke.err, "");
  auto example = test::graphgen({(test::testdata_dir() / "cube" / "values_example.cubex.gz").string(), "-T", "stats"});
  ASSERT_EQ(example.exit_code, 0);
  EXPECT_NE(example.err.find("metrics left out (composite values graphgen does not add up): RATE, TAU_ATOMIC, "
                             "HISTOGRAM5, NDOUBLES10, SCALE_FUNC3, COMPLEX, TAU_ATOMIC2\n"),
            std::string::npos)
      << example.err;
  EXPECT_EQ(example.err.find("MINDOUBLE"), std::string::npos) << example.err;
}

TEST(Cube, RanksAreTheLocationGroups) {
  auto run = test::graphgen({(test::testdata_dir() / "cube" / "kripke.p8.cubex.gz").string(), "-T", "ranks.json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("\"ranks\": 8, \"numbered_by_position\": false"), std::string::npos) << run.out.substr(0, 200);
  EXPECT_NE(run.out.find("\"rank_numbers\": [0, 1, 2, 3, 4, 5, 6, 7]"), std::string::npos);
}

// A tar's members are read where they lie in the archive; one libarchive
// hands over in pieces (a sparse member, GNU tar -S) is copied piece by
// piece: an extra metric file made sparse leaves the profile as it was.
TEST(Cube, AMemberInPiecesIsCopiedAndTheRestReadInPlace) {
  const fs::path dir = test::temp_dir() / "sparse-cube";
  fs::create_directories(dir);
  ASSERT_EQ(
      test::run({"tar", "-xzf", (test::testdata_dir() / "cube" / "kripke.p8.cubex.gz").string(), "-C", dir.string()})
          .exit_code,
      0);
  // 4 KiB, a 32 KiB hole, 4 KiB: 77 is no metric of the anchor's.
  auto made = test::run({"python3", "-c",
                         "import os, sys\n"
                         "f = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)\n"
                         "os.write(f, b'head' * 1024); os.lseek(f, 36864, 0); os.write(f, b'tail' * 1024)\n",
                         (dir / "77.data").string()});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  std::ofstream(dir / "77.index") << "x";
  std::vector<std::string> members;
  for (const auto& e : fs::directory_iterator(dir)) members.push_back(e.path().filename().string());
  std::sort(members.begin(), members.end());
  const fs::path sparse = test::temp_dir() / "sparse.cubex", plain = test::temp_dir() / "plain.cubex";
  for (const fs::path& archive : {sparse, plain}) {
    std::vector<std::string> tar = {"tar", archive == sparse ? "-cSf" : "-cf", archive.string(), "-C", dir.string()};
    tar.insert(tar.end(), members.begin(), members.end());
    ASSERT_EQ(test::run(tar).exit_code, 0);
  }
  if (fs::file_size(sparse) >= fs::file_size(plain))
    GTEST_SKIP() << "this file system keeps no holes, so tar -S wrote no sparse member";
  auto original = test::graphgen({(test::testdata_dir() / "cube" / "kripke.p8.cubex.gz").string(), "-T", "folded"});
  ASSERT_EQ(original.exit_code, 0) << original.err;
  for (const fs::path& archive : {sparse, plain}) {
    SCOPED_TRACE(archive.string());
    auto r = test::graphgen({archive.string(), "-T", "folded"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, original.out);
  }
}

// A metric's files are let go once its table is made, and the anchor once
// it is parsed: an 80 MB archive kept every member resident beside the
// tables made of it (2.4x its size at the peak; 1.9x since). A 3 MB
// archive of bench/make_memory_inputs.py's: anchor.xml, four metrics'
// index and data, two of them (min_time, max_time) left out.
TEST(Cube, MembersAreLetGoOnceRead) {
  const fs::path made = test::temp_dir() / "pages.cubex";
  auto run = test::run(
      {"python3", (test::source_dir() / "bench" / "make_memory_inputs.py").string(), "cube", made.string(), "3"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  auto r = test::read_mapped("pages.cubex", test::read_file(made),
                             [](const InputFile& in, const formats::ReadOptions& o, Diagnostics& d) {
                               return std::optional<Expected<Profile>>(cube::read(in, o, d));
                             });
  ASSERT_TRUE(r.read && r.read->has_value()) << (r.read && !r.read->has_value() ? r.read->error().message : "");
  EXPECT_GT((*r.read)->functions.size(), 100u);
  EXPECT_LT(r.resident_kib, r.file_kib / 10) << "of " << r.file_kib << " KiB";
}

}  // namespace
}  // namespace graphgen::cube_test
