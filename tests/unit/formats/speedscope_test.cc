// speedscope's JSON file format: evented and sampled profiles read into
// stacks (each profile a thread), graphgen's output read back with the same
// stacks, and checked against speedscope's published schema.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "fuzz/fuzz.h"
#include "speedscope/reader.h"
#include "util/both_ways.h"
#include "util/test_util.h"

namespace fs = std::filesystem;

namespace graphgen::speedscope_test {
namespace {

fs::path speedscope_dir() { return test::testdata_dir() / "speedscope"; }

// By hand: `main` (0-10 ms) calls parse (1-3) and render (3-4) on the main
// thread; a worker runs parse (0.5-5) with render inside (1-2.25).
TEST(Speedscope, EventedProfilesAreStacksPerThread) {
  auto r = test::graphgen({(speedscope_dir() / "evented.speedscope.json").string(), "-T", "folded"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "main_thread;main 7000\nmain_thread;main;parse 2000\nmain_thread;main;render 1000\n"
            "worker;parse 3250\nworker;parse;render 1250\n");
  // Each profile is a thread of the per-rank statistics.
  auto ranks = test::graphgen({(speedscope_dir() / "evented.speedscope.json").string(), "-T", "ranks.csv"});
  ASSERT_EQ(ranks.exit_code, 0) << ranks.err;
  EXPECT_NE(ranks.out.find("parse"), std::string::npos);
  auto stats = test::graphgen({(speedscope_dir() / "evented.speedscope.json").string(), "-T", "stats"});
  EXPECT_NE(stats.out.find("in 0.015 seconds"), std::string::npos) << stats.out;
}

// What graphgen writes reads back as the same stacks: exactly for recorded
// stacks, and for a call graph the same rebuilt stacks. (xz | gzip under
// perf: addresses perf could not name are their library's frame, `[gzip]`
// as in the folded stacks; each such frame was named by the first address
// met, "4476".)
TEST(Speedscope, OwnOutputReadsBackWithTheSameStacks) {
  const fs::path td = test::testdata_dir();
  for (const fs::path& input :
       {td / "perf" / "q-g.perf", td / "perf" / "real" / "procs-xz-gzip.perf.xz", td / "demo.pstats",
        td / "pprof" / "go-cpu.pb.gz", speedscope_dir() / "evented.speedscope.json"}) {
    SCOPED_TRACE(input.string());
    const fs::path out = test::temp_dir() / "out.speedscope.json";
    auto w = test::graphgen({input.string(), "-o", out.string(), "-q"});
    ASSERT_EQ(w.exit_code, 0) << w.err;
    EXPECT_TRUE(test::read_file(out).starts_with(
        "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"shared\":{\"frames\":["));
    auto before = test::graphgen({input.string(), "-T", "folded", "-q"});
    auto after = test::graphgen({out.string(), "-T", "folded", "-q"});
    ASSERT_EQ(after.exit_code, 0) << after.err;
    EXPECT_EQ(after.out, before.out);
  }
}

// Real files: py-spy's sampled threads (weights of 0.01 s) and
// speedscope's own evented export of a node profile; each thread's total
// is the sum of its samples' weights (testdata/speedscope/*.txt, *.tsv).
TEST(Speedscope, RealFilesReadWithTheirTotals) {
  auto r = test::graphgen({(speedscope_dir() / "pyspy-4threads.speedscope.json").string(), "-T", "folded"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, double> per_thread;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);)
    per_thread[line.substr(0, line.find(';'))] += std::stod(line.substr(line.rfind(' ') + 1));
  // Folded stacks carry seconds as microseconds.
  EXPECT_NEAR(per_thread["Thread_0x16DF7B000_\"Thread-1_(_handle_workers)\""], 0.02e6, 1);
  EXPECT_NEAR(per_thread["Thread_0x16EF87000_\"Thread-2_(_handle_tasks)\""], 31.86e6, 1);
  EXPECT_NEAR(per_thread["Thread_0x16FF93000_\"Thread-3_(_handle_results)\""], 31.86e6, 1);
  EXPECT_NEAR(per_thread["Thread_0x1FA08F100_\"MainThread\""], 38.07e6, 1);
  EXPECT_EQ(per_thread.size(), 4u);
  // speedscope's export of node-single.cpuprofile: 1 296 866 us covered,
  // each frame's self time as its oracle table gives it.
  auto e = test::graphgen({(speedscope_dir() / "ssexport-node-single.speedscope.json").string(), "-T", "stats"});
  ASSERT_EQ(e.exit_code, 0) << e.err;
  EXPECT_NE(e.out.find("0 function calls in 1.297 seconds"), std::string::npos) << e.out.substr(0, 300);
  auto folded = test::graphgen({(speedscope_dir() / "ssexport-node-single.speedscope.json").string(), "-T", "folded"});
  double sum = 0;
  std::istringstream lines(folded.out);
  for (std::string line; std::getline(lines, line);) sum += std::stod(line.substr(line.rfind(' ') + 1));
  EXPECT_EQ(sum, 1296866);
}

// Without the $schema member, "shared" and "frames" still say speedscope,
// over gprof2dot's JSON of the same extension.
TEST(Speedscope, DetectedWithoutTheSchemaMember) {
  std::string text = test::read_file(speedscope_dir() / "evented.speedscope.json");
  const std::string schema = "\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",";
  text.erase(text.find(schema), schema.size());
  const fs::path file = test::write_temp("trace.json", text);
  auto r = test::graphgen({file.string(), "-T", "folded"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("worker;parse;render 1250"), std::string::npos);
}

// graphgen's output validates against speedscope's published JSON schema
// (testdata/speedscope/file-format-schema.json, from the speedscope npm
// package), with Python's jsonschema (Debian's python3-jsonschema).
TEST(Speedscope, OutputFollowsTheSchema) {
  if (test::run({"python3", "-c", "import jsonschema"}).exit_code != 0)
    GTEST_SKIP() << "python3-jsonschema is not installed";
  const fs::path schema = speedscope_dir() / "file-format-schema.json";
  const fs::path td = test::testdata_dir();
  for (const fs::path& input : {td / "perf" / "q-g.perf", td / "demo.pstats", td / "pprof" / "go-heap.pb.gz"}) {
    SCOPED_TRACE(input.string());
    const fs::path out = test::temp_dir() / "out.speedscope.json";
    ASSERT_EQ(test::graphgen({input.string(), "-o", out.string(), "-q"}).exit_code, 0);
    auto v = test::run({"python3", "-c",
                        "import json, sys, jsonschema\n"
                        "jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))\n"
                        "print('valid')",
                        schema.string(), out.string()});
    EXPECT_EQ(v.exit_code, 0) << v.err;
    EXPECT_EQ(v.out, "valid\n");
  }
}

// The streaming path (speedscope/reader.cc) against the whole document
// through simdjson: where it takes a file, the same tables, timeline,
// warnings and errors.
fuzz::TwoPaths read_both(const fs::path& path) {
  return test::both_ways(path, speedscope::read_streaming, speedscope::read_general, speedscope::read, true);
}

TEST(Speedscope, StreamingPathReadsEveryFileAsTheGeneralPathDoes) {
  const auto files = test::files_named({speedscope_dir(), test::testdata_dir() / "bad" / "speedscope"}, ".json");
  ASSERT_GE(files.size(), 9u);
  const std::set<std::string> streamed = test::streamed_files(files, read_both);
  for (const char* usual :
       {"pyspy-4threads.speedscope.json", "ssexport-node-single.speedscope.json", "evented.speedscope.json"})
    EXPECT_TRUE(streamed.count(usual)) << usual;
}

TEST(Speedscope, StreamingPathTakesTheUsualShapesAndLeavesTheRest) {
  const std::string frames =
      R"J("shared":{"frames":[{"name":"main","file":"a.py","line":1},{"name":"f\u00e9","file":"a.py","line":9,"col":null},{"name":"g"}]})J";
  auto profile = [](const std::string& samples, const std::string& weights, const std::string& extra = "") {
    return R"J({"type":"sampled","name":"t1","unit":"milliseconds","startValue":0,"endValue":9)J" + extra +
           R"J(,"samples":)J" + samples + R"J(,"weights":)J" + weights + "}";
  };
  auto doc = [&](const std::string& profiles, const std::string& extra = "") {
    return R"J({"$schema":"https://www.speedscope.app/file-format-schema.json",)J" + frames + extra +
           R"J(,"profiles":[)J" + profiles + "]}";
  };
  std::string many = "[", many_weights = "[";
  for (int i = 0; i < 20000; ++i) {
    many += "[0," + std::to_string(1 + i % 2) + (i % 3 ? ",2]" : "]") + (i + 1 < 20000 ? "," : "]");
    many_weights += std::to_string(1 + i % 5) + (i + 1 < 20000 ? ",\n" : "]");
  }
  auto ev = [](const std::string& events) {
    return R"J({"type":"evented","name":"ev","unit":"milliseconds","startValue":0,"endValue":9,"events":[)J" + events +
           "]}";
  };
  const std::string evented =
      R"J({"type":"evented","name":"ev","unit":"milliseconds","startValue":0,"endValue":4,"events":[{"type":"O","frame":0,"at":0},{"type":"C","frame":0,"at":4}]})J";
  const std::vector<test::MadeCase> cases = {
      {"as py-spy writes it", doc(profile("[[0,1],[0,1,2],[0]]", "[1,2,3]")), true},
      {"two profiles and an evented one",
       doc(profile("[[0,1]]", "[1]") + "," + profile("[[0]]", "[2]") + "," + evented), true},
      {"spaces and new lines", doc(profile("[ [ 0 , 1 ] ,\n[0] ]", "[\r\n1 ,\t2 ]")), true},
      {"many samples", doc(profile(many, many_weights)), true},
      {"profiles before the frames", R"J({"profiles":[)J" + profile("[[0,2]]", "[1]") + "]," + frames + "}", true},
      {"fractional weights", doc(profile("[[0],[1]]", "[0.5,2e-3]")), true},
      {"a weight past 2^31", doc(profile("[[0],[1]]", "[1,3000000000]")), true},
      {"an empty sample", doc(profile("[[],[0]]", "[1,1]")), true},
      {"weights before samples",
       doc(R"J({"type":"sampled","name":"t","unit":"none","weights":[4,5],"samples":[[0],[2,1]]})J"), true},
      {"a frame index past 65535", doc(profile("[[0],[70000]]", "[1,1]")), false},
      {"a weight of -0", doc(profile("[[0],[1]]", "[1,-0]")), false},
      {"a frame index 1.0", doc(profile("[[1.0]]", "[1]")), false},
      {"a negative frame index", doc(profile("[[-1]]", "[1]")), false},
      {"one weight too few", doc(profile("[[0],[1]]", "[1]")), false},
      {"samples twice", doc(profile("[[0]]", "[1]", R"J(,"samples":[[1]])J")), false},
      {"profiles twice", doc(profile("[[0]]", "[1]"), R"J(,"profiles":[])J"), false},
      {"an escaped key", doc(profile("[[0]]", "[1]", R"J(,"n\u0061me":"x")J")), false},
      {"a string among the weights", doc(profile("[[0]]", R"J(["1"])J")), false},
      {"a sample that is not an array", doc(profile("[0]", "[1]")), false},
      {"bytes after the document", doc(profile("[[0]]", "[1]")) + " x", false},
      {"invalid UTF-8 in a name", doc(profile("[[0]]", "[1]", R"J(,"x":")J" + std::string("\xff") + "\"")), false},
      {"units that differ",
       doc(profile("[[0]]", "[1]") + "," + R"J({"type":"sampled","unit":"bytes","samples":[],"weights":[]})J"), false},
      {"cut in the samples", doc(profile("[[0,1],[0]]", "[1,2]")).substr(0, frames.size() + 150), false},
      {"events in another key order",
       doc(ev(
           R"J({"at":0,"frame":0,"type":"O"},{"frame":1,"type":"O","at":1.5},{"type":"C","at":3,"frame":1},{"type":"C","frame":0,"at":4})J")),
       true},
      {"events past 2^31 and left open",
       doc(ev(R"J({"type":"O","frame":0,"at":2147483648},{"type":"O","frame":2,"at":2147483650})J")), true},
      {"an event with another key", doc(ev(R"J({"type":"O","frame":0,"at":0,"x":1},{"type":"C","frame":0,"at":1})J")),
       false},
      {"an event without at", doc(ev(R"J({"type":"O","frame":0},{"type":"C","frame":0,"at":1})J")), false},
      {"an event of type X", doc(ev(R"J({"type":"X","frame":0,"at":0})J")), false},
      {"events out of time order", doc(ev(R"J({"type":"O","frame":0,"at":5},{"type":"C","frame":0,"at":1})J")), false},
      {"a close of another frame", doc(ev(R"J({"type":"O","frame":0,"at":0},{"type":"C","frame":1,"at":1})J")), false},
  };
  test::expect_cases(cases, "s.speedscope.json", read_both);
}

// A long file's pages are given back as its samples are read, and its
// frame indices kept in 2 bytes (simdjson's index of the whole document
// took 4 bytes a bracket, comma and number).
TEST(Speedscope, StreamingPathGivesBackThePagesItRead) {
  std::string text =
      R"J({"shared":{"frames":[{"name":"a"},{"name":"b"}]},"profiles":[{"type":"sampled","unit":"none","samples":[)J";
  std::string weights;
  for (int i = 0; i < 400000; ++i) {  // about 6 MB
    text += i % 2 ? "[0,1,0,1]," : "[0,1],";
    weights += std::to_string(1 + i % 3) + ",";
  }
  text += R"J([1]],"weights":[)J" + weights + "7]}]}";
  auto r = test::read_mapped("pages.speedscope.json", text, speedscope::read_streaming);
  ASSERT_TRUE(r.read.has_value());
  ASSERT_TRUE(r.read->has_value()) << r.read->error().message;
  EXPECT_LT(r.resident_kib, 2048u) << "of " << r.file_kib << " KiB";
  EXPECT_EQ((*r.read)->functions.size(), 2u);
}

}  // namespace
}  // namespace graphgen::speedscope_test
