// V8's sampled CPU profile inside a Chrome trace: what DevTools'
// Performance panel saves, and Chromium's or node's tracing with the
// category disabled-by-default-v8.cpu_profiler. A `Profile` event (ph "P",
// an "id" per profiled thread, args.data.startTime) and `ProfileChunk`
// events of the same pid and id, each adding
//
//   args.data = { "cpuProfile": { "nodes": [{"id": N, "parent": N,
//                 "callFrame": {"functionName", "url", "lineNumber", ...}}],
//                 "samples": [node id, ...] }, "timeDeltas": [µs, ...] }
//
// to its profile: the nodes and samples of a `.cpuprofile` (cpuprofile.h),
// sent a little at a time. Older traces hold one `CpuProfile` event whose
// args.data.cpuProfile is a whole profile. Each profile is read as the
// .cpuprofile of its nodes and samples would be (a sample lasts until the
// next in time, the last 0; events time in microseconds and samples; a
// function per name, url and line), its thread a process frame of the
// stacks when there are several, as speedscope reads such a trace.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "chrome/v8_nodes.h"
#include "common/read_options.h"
#include "graphgen/analysis/stacks.h"
#include "graphgen/error.h"
#include "graphgen/profile.h"

namespace graphgen::chrome {

class V8Samples {
 public:
  V8Samples(const formats::ReadOptions& options, std::string_view path, std::size_t input_bytes)
      : options_(options), path_(path), input_bytes_(input_bytes) {}

  /// One `Profile`, `ProfileChunk` or `CpuProfile` event: `args` is the
  /// JSON text of its args, `where` the place errors name.
  Expected<bool> add(std::string_view name, const std::string& pid, const std::string& tid, std::string_view id,
                     std::string_view args, const std::string& where);

  /// Samples read so far, of all profiles.
  std::size_t samples() const { return samples_; }
  /// Profiles with at least one sample.
  std::size_t threads() const;

  /// A profiled thread's names, from the trace's `M` events.
  struct Names {
    std::string label, thread, process;
  };
  /// The stacks of every profile into `p` through `builder` (events: time
  /// in microseconds, samples); `names` names each profile's thread.
  template <class NamesOf>
  Expected<bool> build(Profile& p, detail::StackBuilder& builder, NamesOf names) {
    const bool several = threads() > 1;
    for (Thread& t : threads_) {
      if (t.samples.empty()) continue;
      const Names n = names(t.pid, t.tid);
      if (auto ok = build_one(p, builder, t, several ? std::string_view(n.label) : std::string_view(), n); !ok)
        return ok.error();
    }
    return true;
  }

 private:
  using Node = V8Node;
  struct Thread {
    std::string pid, tid, where;  // where: what its errors name
    double start = 0;
    std::vector<Node> nodes;
    std::unordered_map<std::int64_t, std::uint32_t> index;
    std::vector<double> samples, deltas;
  };

  Expected<bool> cpu_profile(simdjson::ondemand::object cp, Thread& t, const std::string& where);
  Expected<bool> nodes(simdjson::ondemand::array list, Thread& t, const std::string& where);
  Expected<bool> numbers(simdjson::ondemand::array list, std::vector<double>& out, const std::string& where);
  Expected<bool> build_one(Profile& p, detail::StackBuilder& builder, Thread& t, std::string_view process,
                           const Names& names);
  Error fail(const std::string& where, std::string_view expected, simdjson::error_code e) const;
  bool over_budget() const { return options_.memory_budget && bytes_ > options_.memory_budget; }

  const formats::ReadOptions& options_;
  std::string path_;
  std::size_t input_bytes_;
  simdjson::ondemand::parser parser_;
  std::string buffer_;  // one event's args, padded for simdjson
  std::vector<Thread> threads_;
  std::unordered_map<std::string, std::size_t> thread_of_;  // pid, id -> threads_
  V8Functions functions_;
  std::size_t samples_ = 0, bytes_ = 0;
};

}  // namespace graphgen::chrome
