#include "chrome/trace_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include "common/markup.h"
#include "graphgen/analysis/timeline.h"
#include "graphgen/labels.h"
#include "graphgen/text.h"

namespace graphgen::chrome {

namespace {

using formats::json_text;

// A sample of one thread as nanoseconds [begin, end) on its node.
struct Span {
  std::int64_t begin = 0, end = 0;
  std::uint32_t node = 0;
};

// A frame's run on a thread begins (B) or ends (E).
struct Edge {
  std::int64_t at = 0;
  FuncId function = 0;
  bool begin = false;
};

// Times beyond this (about 285 years, in seconds) do not fit nanoseconds.
constexpr double kMaxSeconds = 9e9;

std::int64_t nanoseconds(double seconds) { return static_cast<std::int64_t>(std::llround(seconds * 1e9)); }

// Each track's samples in time order, as nanoseconds (timeline.h says
// how long the samples of unknown length last). `skipped` counts samples
// whose times do not fit.
std::vector<std::vector<Span>> spans_of(const Profile& p, std::size_t& skipped) {
  const std::vector<double> durations = sample_durations(p);
  std::vector<std::vector<Span>> spans(p.tracks.size());
  for (std::size_t i = 0; i < p.timeline.size(); ++i) {
    const TimedSample& s = p.timeline[i];
    const double end = s.start + durations[i];
    if (s.track >= spans.size() || s.node == 0 || s.node >= p.stack_nodes.size() ||
        !(std::fabs(s.start) < kMaxSeconds) || !(std::fabs(end) < kMaxSeconds)) {
      ++skipped;
      continue;
    }
    spans[s.track].push_back({nanoseconds(s.start), nanoseconds(end), s.node});
  }
  for (std::vector<Span>& t : spans)
    std::stable_sort(t.begin(), t.end(), [](const Span& a, const Span& b) { return a.begin < b.begin; });
  return spans;
}

// A thread's spans as nested runs of frames, in time order (at one time,
// the ends innermost first, then the beginnings outermost first): a frame
// shared by consecutive samples (one node of the callsite tree) stays one
// run. B/E pairs, not X events: two runs of one span (a frame whose
// callee ran all its time) nest by their order, which viewers keep for
// B/E but may not for X events of equal times.
// Each edge is given to `emit` as it is found (a thread's edges were a
// vector: 75 MB of scatter-long's trace).
template <typename Emit>
void edges_of(const Profile& p, const std::vector<Span>& spans, Emit&& emit) {
  std::vector<std::uint32_t> open, path;  // stack nodes, outermost first
  std::int64_t last_end = INT64_MIN;
  auto close_from = [&](std::size_t k, std::int64_t at) {
    for (std::size_t i = open.size(); i-- > k;) emit(Edge{at, p.stack_nodes[open[i]].function, false});
    open.resize(k);
  };
  for (const Span& s : spans) {
    const std::int64_t begin = std::max(s.begin, last_end);  // (overlaps clipped)
    if (s.end <= begin) continue;
    if (begin > last_end) close_from(0, last_end);
    if (!open.empty() && s.node == open.back() && begin == last_end) {
      last_end = s.end;
      continue;
    }
    path.clear();
    std::size_t steps = 0;
    for (std::uint32_t n = s.node; n != 0 && n < p.stack_nodes.size() && steps < p.stack_nodes.size();
         n = p.stack_nodes[n].parent, ++steps)
      if (p.stack_nodes[n].process == kNoString) path.push_back(n);
    std::reverse(path.begin(), path.end());
    std::size_t k = 0;
    while (k < open.size() && k < path.size() && open[k] == path[k]) ++k;
    close_from(k, begin);
    for (; k < path.size(); ++k) {
      open.push_back(path[k]);
      emit(Edge{begin, p.stack_nodes[path[k]].function, true});
    }
    last_end = s.end;
  }
  close_from(0, last_end);
}

// Nanoseconds as microseconds, exactly: 1234567 -> 1234.567.
std::string micros(std::int64_t ns) {
  if (ns < 0) return "-" + micros(-ns);
  const std::int64_t whole = ns / 1000, part = ns % 1000;
  if (part == 0) return fmt::format("{}", whole);
  std::string s = fmt::format("{}.{:03}", whole, part);
  while (s.back() == '0') s.pop_back();
  return s;
}

// Functions whose label, file and line another function shares (one name
// in two objects): their events name their object too, so that readers
// tell them apart. (Others do not: speedscope shows a frame's args in its
// name.)
std::vector<bool> ambiguous(const Profile& p) {
  std::unordered_map<std::string, FuncId> first;
  std::vector<bool> out(p.functions.size(), false);
  for (FuncId f = 0; f < p.functions.size(); ++f) {
    const Function& fn = p.functions[f];
    std::string key = function_label(p, f);
    key.append(1, '\0').append(fn.file != kNoString ? p.str(fn.file) : "").append(1, '\0');
    key += std::to_string(fn.line);
    auto [it, fresh] = first.emplace(std::move(key), f);
    if (!fresh) out[f] = out[it->second] = true;
  }
  return out;
}

// The members of a frame's events after their times: name, cat, args
// (file, line, and the object where `with_object`).
std::string frame_members(const Profile& p, FuncId f, bool with_object) {
  const Function& fn = p.functions[f];
  const std::string_view object = fn.object != kNoString ? p.str(fn.object) : std::string_view();
  std::string m = ",\"name\":" + json_text(function_label(p, f)) + ",\"cat\":" +
                  json_text(!object.empty() ? basename_of(object)
                            : fn.python     ? std::string_view("python")
                                            : std::string_view("function"));
  std::string args;
  if (fn.file != kNoString) args += ",\"file\":" + json_text(p.str(fn.file));
  if (fn.line > 0) args += fmt::format(",\"line\":{}", fn.line);
  if (with_object && !object.empty()) args += ",\"object\":" + json_text(object);
  if (!args.empty()) m += ",\"args\":{" + args.substr(1) + "}";
  return m + "}";
}

// Each track's (pid, tid) in the trace: its own, unless an earlier track
// has the same pair (two files' threads): then a pid of its own.
std::vector<std::pair<std::int64_t, std::int64_t>> thread_ids(const Profile& p) {
  std::vector<std::pair<std::int64_t, std::int64_t>> ids;
  std::map<std::pair<std::int64_t, std::int64_t>, std::size_t> taken;
  std::int64_t top = 0;
  for (const Track& t : p.tracks) top = std::max(top, t.pid);
  for (const Track& t : p.tracks) {
    std::pair<std::int64_t, std::int64_t> id{t.pid, t.tid};
    if (taken.count(id) && top < INT64_MAX) id.first = ++top;
    taken.emplace(id, ids.size());
    ids.push_back(id);
  }
  return ids;
}

// process_name and thread_name metadata, where the input names them: a
// process by its own name, else by its main thread's (tid = pid: perf's
// command); a thread by its name.
std::string metadata(const Profile& p, const std::vector<std::pair<std::int64_t, std::int64_t>>& ids) {
  std::map<std::int64_t, std::pair<int, std::string_view>> process;  // pid -> (rank of the naming, name)
  std::string out;
  for (std::size_t t = 0; t < p.tracks.size(); ++t) {
    const Track& track = p.tracks[t];
    const std::string_view name = track.name != kNoString ? p.str(track.name) : std::string_view();
    const auto [pid, tid] = ids[t];
    const int rank = track.process != kNoString ? 2 : tid == pid && !name.empty() ? 1 : 0;
    auto& named = process[pid];
    if (rank > named.first) named = {rank, rank == 2 ? p.str(track.process) : name};
    if (!name.empty())
      out += fmt::format(",\n{{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":{},\"tid\":{},\"args\":{{\"name\":{}}}}}",
                         pid, tid, json_text(name));
  }
  for (const auto& [pid, named] : process)
    if (named.first > 0)
      out += fmt::format(",\n{{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":{},\"tid\":0,\"args\":{{\"name\":{}}}}}",
                         pid, json_text(named.second));
  return out;
}

}  // namespace

Expected<bool> write_trace(const Profile& p, const TraceWriteOptions& o, OutputSink& sink, Diagnostics& diag) {
  if (p.timeline.empty())
    return bad_input(
        "-T trace: the profile has no sample times to put on a timeline (they come from perf script, .cpuprofile, "
        "evented speedscope and trace-event inputs)");
  std::size_t skipped = 0;
  const std::vector<std::vector<Span>> spans = spans_of(p, skipped);
  if (skipped > 0 && skipped == p.timeline.size())
    return bad_input("-T trace: no sample time fits the trace's clock (within 9e9 seconds of 0)");
  const auto ids = thread_ids(p);
  std::vector<std::string> members(p.functions.size());
  const std::vector<bool> shared = ambiguous(p);
  SinkBuffer buffer(sink);
  std::string& out = buffer.text();
  out = "{\"traceEvents\":[\n";
  const std::string named = metadata(p, ids);
  bool first = named.empty();
  out += first ? named : named.substr(2);  // (no comma before the first)
  const std::string ending =
      fmt::format("\n],\"displayTimeUnit\":\"ms\",\"otherData\":{{\"creator\":{}}}}}\n", json_text(o.creator));
  std::size_t written = 0;
  // Twice over the events: their bytes counted (a trace too large is
  // refused before its first byte is given), then given to the sink a
  // megabyte at a time. Held whole, scatter-long's 228 MB trace was a
  // 313 MiB peak (452 MiB when the string grew by doubling).
  const bool first_before = first;
  std::size_t size = out.size();
  bool over = false, stopped = false;
  for (int pass = 0; pass < 2 && !over && !stopped; ++pass) {
    first = first_before;
    for (std::size_t t = 0; t < spans.size() && !over && !stopped; ++t) {
      const std::string thread = fmt::format(",\"pid\":{},\"tid\":{}", ids[t].first, ids[t].second);
      edges_of(p, spans[t], [&](const Edge& e) {
        if (over || stopped) return;
        std::string& m = members[e.function];
        if (m.empty()) m = frame_members(p, e.function, shared[e.function]);
        const std::string_view head = first ? "{\"ph\":\"" : ",\n{\"ph\":\"";
        first = false;
        const std::string_view kind = e.begin ? "B\",\"ts\":" : "E\",\"ts\":";
        const std::string at = micros(e.at);
        // (E names its frame too: some viewers check that it closes the B.)
        const std::string_view frame =
            e.begin ? std::string_view(m) : std::string_view(m).substr(0, m.find(",\"cat\":"));
        if (pass == 0) {
          size += head.size() + kind.size() + at.size() + thread.size() + frame.size() + (e.begin ? 0 : 1);
          over = o.max_bytes && size > o.max_bytes;
          return;
        }
        ++written;
        out += head;
        out += kind;
        out += at;
        out += thread;
        out += frame;
        if (!e.begin) out += '}';
        stopped = !buffer.maybe_give();  // (the sink's error is the write's)
      });
    }
    if (over)
      return bad_input(
          fmt::format("the trace output would be over {} bytes; --max-memory raises the limit", o.max_bytes));
    if (pass == 0) sink.expect(size + ending.size());
  }
  if (stopped) return false;
  if (written == 0) diag.warn("-T trace: no timed sample has a stack frame; the trace holds its threads and no event");
  if (skipped > 0)
    diag.warn(fmt::format("-T trace: {} of {} samples are left out: their times are not within 9e9 seconds of 0",
                          skipped, p.timeline.size()));
  out += ending;
  return buffer.give();
}

Expected<std::string> write_trace(const Profile& p, const TraceWriteOptions& o, Diagnostics& diag) {
  return produce_whole([&](OutputSink& sink) { return write_trace(p, o, sink, diag); });
}

}  // namespace graphgen::chrome
