// Trace events written (-T trace): a real perf recording on a timeline
// holds, at each sample's time, exactly the stack perf printed for it; the
// events of every thread nest (each E closes the innermost open B, times
// never go back); timed inputs (.cpuprofile, evented speedscope, traces)
// come back from their trace with the same stacks and times; the
// two-core read of perf gives the same trace as one core; a trace larger
// than its profile is written as it is made, by -o's rules.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "chrome/trace_writer.h"
#include "perf/reader.h"
#include "util/test_util.h"

namespace graphgen::trace_out_test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct Thread {
  std::vector<const json*> events;  // B and E, in file order
};

// The trace's B/E events per (pid, tid), checked to nest.
std::map<std::pair<std::int64_t, std::int64_t>, Thread> threads_of(const json& trace) {
  std::map<std::pair<std::int64_t, std::int64_t>, Thread> threads;
  for (const json& e : trace.at("traceEvents")) {
    const std::string ph = e.at("ph");
    if (ph == "B" || ph == "E") threads[{e.at("pid"), e.at("tid")}].events.push_back(&e);
  }
  for (auto& [id, t] : threads) {
    std::vector<std::string> open;
    double last = -1e300;
    for (const json* e : t.events) {
      const double ts = e->at("ts");
      EXPECT_GE(ts, last) << "time goes back in thread " << id.second;
      last = ts;
      if ((*e)["ph"] == "B") {
        open.push_back(e->at("name"));
      } else {
        EXPECT_FALSE(open.empty()) << "an E with no B open";
        if (open.empty()) continue;
        EXPECT_EQ(open.back(), e->at("name").get<std::string>());
        open.pop_back();
      }
    }
    EXPECT_TRUE(open.empty()) << open.size() << " frames never closed in thread " << id.second;
  }
  return threads;
}

// The time under some frame, summed over the threads (microseconds).
double covered(const std::map<std::pair<std::int64_t, std::int64_t>, Thread>& threads) {
  double sum = 0;
  for (const auto& [id, t] : threads) {
    int depth = 0;
    double since = 0;
    for (const json* e : t.events) {
      const bool begin = (*e)["ph"] == "B";
      if (begin && depth++ == 0) since = e->at("ts");
      if (!begin && --depth == 0) sum += e->at("ts").get<double>() - since;
    }
  }
  return sum;
}

// One perf sample: its thread, time (microseconds) and frames, root first.
struct Sample {
  std::int64_t tid = 0;
  double us = 0;
  std::vector<std::string> frames;
};

// perf script's text, read here without graphgen: a header line
// `comm tid time: period event:` and frame lines `addr symbol+off (dso)`
// (an unresolved symbol is its address).
std::vector<Sample> perf_samples(const std::string& text) {
  std::vector<Sample> samples;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    std::vector<std::string> w;
    for (std::string s; words >> s;) w.push_back(s);
    if (line[0] != '\t' && line[0] != ' ') {
      for (std::size_t i = 1; i < w.size(); ++i)
        if (w[i].back() == ':' && w[i].find('.') != std::string::npos) {
          samples.push_back({std::stoll(w[i - 1]), std::stod(w[i]) * 1e6, {}});
          break;
        }
      continue;
    }
    std::string symbol = w.at(1);
    symbol = symbol.substr(0, symbol.rfind("+0x"));
    if (symbol == "[unknown]") {
      // Named by its address, as gprof2dot names unresolved frames.
      symbol = w.at(0).substr(std::min(w.at(0).find_first_not_of('0'), w.at(0).size() - 1));
    }
    samples.back().frames.insert(samples.back().frames.begin(), symbol);
  }
  return samples;
}

TEST(TraceOut, PerfRecordingHoldsEachSampleStackAtItsTime) {
  const fs::path file = test::testdata_dir() / "compare" / "lua" / "lua-O2.perf.xz";
  auto text = test::run({"xz", "-dc", file.string()});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  const std::vector<Sample> samples = perf_samples(text.out);
  ASSERT_EQ(samples.size(), 248u);
  auto r = test::graphgen({file.string(), "-T", "trace"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json trace = json::parse(r.out);
  auto threads = threads_of(trace);
  ASSERT_EQ(threads.size(), 1u);
  EXPECT_EQ(threads.begin()->first, std::make_pair(std::int64_t{10038}, std::int64_t{10038}));
  // Replays the events: after those at or before a sample's time, the
  // open frames are that sample's stack.
  const auto& events = threads.begin()->second.events;
  std::vector<std::string> open;
  std::size_t next = 0, checked = 0;
  for (const Sample& s : samples) {
    while (next < events.size() && events[next]->at("ts").get<double>() <= s.us + 1e-3) {
      if ((*events[next])["ph"] == "B")
        open.push_back(events[next]->at("name"));
      else
        open.pop_back();
      ++next;
    }
    EXPECT_EQ(open, s.frames) << "the sample at " << s.us << " us";
    ++checked;
  }
  EXPECT_EQ(checked, samples.size());
  // The samples come every 2 ms of CPU (cpu-clock:ppp, period 2004008):
  // each lasts until the next, the last one the median interval (2.004 ms).
  const double first = events.front()->at("ts"), end = events.back()->at("ts");
  EXPECT_DOUBLE_EQ(first, samples.front().us);
  EXPECT_NEAR(end - samples.back().us, 2004, 0.5);
  EXPECT_NEAR(covered(threads), 498030, 0.01);
  // Thread and process names are perf's command.
  int named = 0;
  for (const json& e : trace.at("traceEvents"))
    if (e["ph"] == "M") {
      EXPECT_EQ(e.at("args").at("name"), "lua") << e.dump();
      ++named;
    }
  EXPECT_EQ(named, 2);
}

// --focus and --ignore split the samples; each keeps the length it had
// among all of them (a sample's neighbour left out does not stretch it).
TEST(TraceOut, FiltersKeepEachSampleLength) {
  const std::string file = (test::testdata_dir() / "compare" / "lua" / "lua-O2.perf.xz").string();
  double time[3];
  const char* filters[3] = {"--focus=^auxsort$", "--ignore=^auxsort$", "--hide=^luaV_execute$"};
  for (int i = 0; i < 3; ++i) {
    auto r = test::graphgen({file, "-T", "trace", filters[i]});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    time[i] = covered(threads_of(json::parse(r.out)));
    if (i == 2) {
      EXPECT_EQ(r.out.find("\"luaV_execute\""), std::string::npos);
    }
  }
  EXPECT_NEAR(time[0], 305599, 0.01);
  EXPECT_NEAR(time[0] + time[1], 498030, 0.01);
  EXPECT_NEAR(time[2], 498030, 0.01);
}

TEST(TraceOut, EveryThreadOfARealRecordingNests) {
  const fs::path file = test::testdata_dir() / "perf" / "real" / "xz-threads.perf.xz";
  auto r = test::graphgen({file.string(), "-T", "trace"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto threads = threads_of(json::parse(r.out));
  EXPECT_EQ(threads.size(), 5u);
  for (const auto& [id, t] : threads) EXPECT_GT(t.events.size(), 10u) << id.second;
}

// Inputs with times of their own come back from their trace as they were.
TEST(TraceOut, TimedInputsComeBackFromTheirTrace) {
  for (const char* name :
       {"chrome/node-single.cpuprofile", "chrome/node-worker.worker.cpuprofile",
        "speedscope/ssexport-node-single.speedscope.json", "chrome/node-trace-events.json", "chrome/cut.trace.json"}) {
    SCOPED_TRACE(name);
    const std::string file = (test::testdata_dir() / name).string();
    auto trace = test::graphgen({file, "-T", "trace", "-q"});
    ASSERT_EQ(trace.exit_code, 0) << trace.err;
    threads_of(json::parse(trace.out));
    const fs::path back = test::write_temp("back.trace.json", trace.out);
    auto want = test::graphgen({file, "-T", "folded", "-q"});
    auto have = test::graphgen({back.string(), "-T", "folded", "-q"});
    ASSERT_EQ(have.exit_code, 0) << have.err;
    EXPECT_FALSE(want.out.empty());
    EXPECT_EQ(have.out, want.out);
  }
}

// The whole read and the two halves: the same trace. A thread that exec
// renames (perf's own command running `sleep`, as ../shared/corpus'
// issue28.perf records it) stays one thread, named as it was first.
TEST(TraceOut, TwoCoreReadGivesTheSameTrace) {
  std::string exec;
  for (int i = 0; i < 40; ++i)
    exec += fmt::format("{} 12426 136526.{:06}:          1 cycles:ppp: \n\t    7f5c8a79bb97 work+0x1 (/bin/x)\n\n",
                        i < 20 ? "perf" : "sleep", 798940 + 10 * i);
  for (const fs::path& file : {test::testdata_dir() / "perf" / "multi.perf", test::write_temp("exec.perf", exec)}) {
    SCOPED_TRACE(file.string());
    formats::ReadOptions o;
    o.keep_timeline = true;
    std::string traces[2];
    for (int split = 0; split < 2; ++split) {
      auto in = InputFile::open(file.string());
      ASSERT_TRUE(in.has_value());
      Diagnostics d;
      auto p = perf::read(*in, o, d, split ? 1024 : perf::kSplitAbove);
      ASSERT_TRUE(p.has_value()) << p.error().message;
      auto t = chrome::write_trace(*p, {"graphgen", 0}, d);
      ASSERT_TRUE(t.has_value()) << t.error().message;
      traces[split] = *t;
    }
    EXPECT_GT(traces[0].size(), 400u);
    EXPECT_EQ(traces[0], traces[1]);
    EXPECT_EQ(threads_of(json::parse(traces[1])).size(), file.filename() == "exec.perf" ? 1u : 3u);
  }
}

TEST(TraceOut, FormatsWithoutTimesAreRefusedBeforeReading) {
  auto r = test::graphgen({(test::testdata_dir() / "demo.pstats").string(), "-T", "trace"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("trace output puts samples on a timeline; pstats input has no sample times"), std::string::npos)
      << r.err;
  // perf script printed without its time column: read, then refused.
  auto untimed = test::graphgen({(test::testdata_dir() / "perf" / "q-notime.perf").string(), "-T", "trace"});
  EXPECT_EQ(untimed.exit_code, 1);
  EXPECT_NE(untimed.err.find("the profile has no sample times"), std::string::npos) << untimed.err;
}

// A recording whose samples alternate between two stacks of 12 frames
// with no frame in common: each sample closes and opens 12 frames, so the
// trace is about six times the perf script.
std::string alternating_recording(int samples) {
  std::string text;
  for (int i = 0; i < samples; ++i) {
    text += fmt::format("p 7 {}.{:06}: 1000000 cpu-clock: \n", 100 + i / 1000, (i % 1000) * 1000);
    for (int k = 11; k >= 0; --k)
      text += fmt::format("\t{:x} {}{}+0x1 (/bin/p)\n", 0x1000 + k, i % 2 ? "odd" : "even", k);
    text += "\n";
  }
  return text;
}

// -o takes the trace a megabyte at a time (OutputFormat::stream): the
// write adds about one piece to what the read held, not the whole trace
// (before: the 30 MB trace held whole, 313 MiB for scatter-long's 228 MB).
// The bytes are those of the whole trace on standard output.
TEST(TraceOut, LargeTraceIsWrittenAsItIsMade) {
  const fs::path in = test::write_temp("alternating.perf", alternating_recording(20000));
  const fs::path out = test::temp_dir() / "big.trace.json";
  // The same read with a small output (folded stacks) first: a child's
  // peak counts what it was forked from, so both run before this process
  // holds the trace.
  auto folded = test::graphgen({in.string(), "-q", "-T", "folded", "-o", (test::temp_dir() / "x.folded").string()});
  ASSERT_EQ(folded.exit_code, 0) << folded.err;
  auto r = test::graphgen({in.string(), "-q", "-o", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string written = test::read_file(out);
  auto whole = test::graphgen({in.string(), "-q", "-T", "trace"});
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  EXPECT_EQ(written, whole.out);
  ASSERT_GT(written.size(), std::size_t{25} << 20);
  auto count = [&](std::string_view what) {
    std::size_t n = 0;
    for (std::size_t at = written.find(what); at != std::string::npos; at = written.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("{\"ph\":\"B\""), 12u * 20000);
  EXPECT_EQ(count("{\"ph\":\"E\""), 12u * 20000);
  // (the last piece holds the end)
  EXPECT_NE(written.find("\n],\"displayTimeUnit\":\"ms\",\"otherData\":{\"creator\":\"graphgen ", written.size() - 100),
            std::string::npos);
  EXPECT_TRUE(written.ends_with("\"}}\n"));
#ifndef GRAPHGEN_SANITIZE
  // What the trace's write adds to the read is far below the trace.
  const long trace_kb = static_cast<long>(written.size() / 1024);
  EXPECT_LT(r.peak_kb - folded.peak_kb, trace_kb / 4)
      << "the trace's write took " << (r.peak_kb - folded.peak_kb) / 1024 << " MB more for a " << trace_kb / 1024
      << " MB trace";
#endif
}

// Written as it is made, a trace still never leaves half a file: refused
// by its size (--max-memory) the old file stays as it was, and no
// temporary file is left beside it; a device that fills up is an error
// naming it; a file of two names gets the trace under both.
TEST(TraceOut, StreamedTraceKeepsTheOutputRules) {
  const fs::path in = test::write_temp("alternating.perf", alternating_recording(2000));
  const fs::path dir = test::temp_dir();
  const fs::path out = dir / "old.trace.json";
  { std::ofstream(out) << "old content\n"; }
  auto refused = test::graphgen({in.string(), "-q", "--max-memory", "2M", "-o", out.string()});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_EQ(refused.err, "the trace output would be over 2097152 bytes; --max-memory raises the limit\n");
  EXPECT_EQ(test::read_file(out), "old content\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);

  auto full = test::graphgen({in.string(), "-q", "-T", "trace", "-o", "/dev/full"});
  EXPECT_EQ(full.exit_code, 1);
  EXPECT_EQ(full.err, "/dev/full: cannot write: No space left on device\n");

  auto whole = test::graphgen({in.string(), "-q", "-T", "trace"});
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  const fs::path other = dir / "other-name.json";
  fs::create_hard_link(out, other);
  auto linked = test::graphgen({in.string(), "-q", "-o", out.string()});
  ASSERT_EQ(linked.exit_code, 0) << linked.err;
  EXPECT_EQ(test::read_file(out), whole.out);
  EXPECT_EQ(test::read_file(other), whole.out);
  EXPECT_EQ(fs::hard_link_count(out), 2u);
}

}  // namespace
}  // namespace graphgen::trace_out_test
