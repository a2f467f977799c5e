#include "chrome/trace.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>
#include <unordered_map>

#include "chrome/v8_samples.h"
#include "common/json_doc.h"
#include "common/json_scan.h"
#include "graphgen/analysis/stacks.h"
#include "graphgen/text.h"

namespace graphgen::chrome {

namespace {

namespace od = simdjson::ondemand;

// One end of a slice on a thread's timeline.
struct Edge {
  double ts = 0;
  double dur = 0;  // openings: the slice's length (B: unknown, +inf)
  bool open = false;
  bool complete = false;  // of an X (else B or E)
  FuncId function = 0;
  std::uint32_t seq = 0;    // file order of its event
  std::uint32_t slice = 0;  // X: which slice, to close it
};

// Where an event's args place its frame (graphgen's traces name them).
struct Where {
  std::string file, object;
  std::int64_t line = 0;
};

struct Thread {
  std::string pid, tid;
  std::vector<Edge> edges;
};

// What a Reader reads: the slices until a V8 profile event shows up (then
// it stops, for a samples read), the slices whatever comes, or V8's CPU
// profile samples (v8_samples.h).
enum class Mode { kDetect, kSlices, kSamples };

class Reader : formats::JsonCursor {
 public:
  Reader(const InputFile& in, const formats::ReadOptions& options, Diagnostics& diag, Mode mode)
      : in_(in), options_(options), diag_(diag), detect_(mode == Mode::kDetect) {
    p_.line_in_identity = true;  // (functions are keyed by name, file and line)
    if (mode == Mode::kSamples) {
      v8_.emplace(options, in.path(), in.bytes().size());
      builder_.emplace(p_, v8_events(p_), options_.keep_stacks);  // (a .cpuprofile's)
      return;
    }
    // The event first: functions made while reading get its cost column.
    Event time;
    time.name = p_.strings.intern("time");
    time.unit = p_.strings.intern("seconds");
    time.floating = true;
    time.seconds_per_unit = 1;
    builder_.emplace(p_, std::vector<Event>{time}, options_.keep_stacks);
  }

  /// Samples mode found samples (else the slices are to be read instead).
  bool found_samples() const { return v8_ && v8_->samples() > 0; }
  /// kDetect met a V8 profile event and stopped: read the samples instead.
  bool saw_v8() const { return saw_v8_; }

  // The whole document through simdjson: every trace, and every error.
  Expected<Profile> read() {
    whole_.emplace(in_, closed(in_.bytes(), closing_));
    json_ = &*whole_;
    if (auto ok = json_->open(); !ok) return ok.error();
    od::array events;
    od::json_type type;
    if (auto e = json_->doc().type().get(type); e)
      return json_->fail("a trace: [events] or {\"traceEvents\": [...]}", e);
    if (type == od::json_type::array) {
      if (auto e = json_->doc().get_array().get(events); e) return json_->fail("an array of trace events", e);
      if (auto ok = event_list(events); !ok) return ok.error();
    } else {
      od::object root;
      if (auto e = json_->doc().get_object().get(root); e) return json_->fail("a trace {\"traceEvents\": [...]}", e);
      bool found = false;
      for (auto field : root) {
        std::string_view key;
        if (auto e = field.unescaped_key().get(key); e) return json_->fail("a member name", e);
        if (key != "traceEvents") continue;
        if (auto e = field.value().get_array().get(events); e) return json_->fail("\"traceEvents\": [...]", e);
        if (auto ok = event_list(events); !ok) return ok.error();
        found = true;
        if (saw_v8_) break;
      }
      if (!found)
        return bad_input(fmt::format("{}: expected the member \"traceEvents\" of a trace, found none",
                                     json_->where(json_->closing())));
    }
    if (saw_v8_) return Profile();  // (the caller reads the samples)
    return build();
  }

  // The windowed path: true when the trace was read, then build() makes the
  // profile; false leaves it to read(), with a fresh Reader.
  //
  // simdjson's index holds 4 bytes for each token of the document before
  // the first is read: more than the trace itself for events of short
  // members (a 228 MB trace peaked at 879 MiB, half of its time zeroing new
  // pages). Here the events array is read a megabyte of whole elements at
  // a time: the elements, found by counting brackets outside strings, are
  // copied between `[` and `]` into one buffer that simdjson reads with the
  // same code and buffers each time, and the file's pages are given back
  // once passed. The root object's other members are checked by simdjson
  // alone, as the whole document would be. Anything else (a key with an
  // escape, a second "traceEvents", bytes after the document, any error)
  // gives up, and read() reads the whole document again and owns every
  // message (tests and the fuzz target compare the two).
  bool read_windows() {
    text_ = in_.bytes();
    window_doc_.emplace(in_, std::string_view());
    json_ = &*window_doc_;
    space();
    if (pos_ >= text_.size()) return false;
    if (text_[pos_] == '[') {
      if (!event_windows(true)) return saw_v8_;
    } else {
      if (!eat('{')) return false;
      bool found = false;
      if (!object([&](std::string_view key) {
            // (Printable ASCII: the whole document's UTF-8 check of a key
            // the windows never give simdjson.)
            for (char c : key)
              if (c < 0x20 || c > 0x7E) return false;
            if (key == "traceEvents") {
              if (found || !event_windows(false)) return false;  // (saw_v8_ stops here too)
              found = true;
              return true;
            }
            // (A value starts as JSON's do: skip_value() passes any scalar
            // token, and simdjson's checks of it alone take `:100` too.)
            const std::size_t begin = pos_;
            if (begin >= text_.size() ||
                std::string_view("{[\"-0123456789tfn").find(text_[begin]) == std::string_view::npos)
              return false;
            return skip_value() && pos_ != begin && checked(text_.substr(begin, pos_ - begin));
          }))
        return saw_v8_;
      if (!found) return false;
    }
    space();
    return pos_ == text_.size();
  }
  /// The profile of what read_windows() read.
  Expected<Profile> finish() { return build(); }

 private:
  static constexpr std::size_t kWindow = std::size_t{1} << 20;
  // simdjson's checks of a value the whole document would have skipped
  // (its text is UTF-8, its strings closed and without control characters).
  bool checked(std::string_view value) {
    window_.assign(value);
    return reopen_window();
  }
  // simdjson starts on window_, its padding in the buffer's spare room.
  bool reopen_window() {
    window_.reserve(window_.size() + simdjson::SIMDJSON_PADDING);
    return static_cast<bool>(json_->reopen(window_, window_.capacity() - window_.size()));
  }
  // The events array, a window of whole elements at a time. A root array
  // may be cut short after an element (and a comma), as read() closes it.
  bool event_windows(bool root) {
    if (!eat('[')) return false;
    space();
    if (eat(']')) return true;
    for (bool ended = false; !ended;) {
      const std::size_t begin = pos_;
      std::size_t end = begin;
      while (!ended && end - begin < kWindow) {
        const std::size_t element = pos_;
        if (!skip_value() || pos_ == element) return false;
        end = pos_;
        space();
        if (eat(',')) {
          space();
          if (root && pos_ == text_.size()) ended = true;  // cut after a comma
        } else if (eat(']') || (root && pos_ == text_.size())) {
          ended = true;
        } else {
          return false;
        }
      }
      window_.assign(1, '[');
      window_.append(text_.substr(begin, end - begin));
      window_ += ']';
      if (!reopen_window()) return false;
      od::array events;
      if (json_->doc().get_array().get(events) || !event_list(events) || saw_v8_) return false;
      passed_.at(end);
    }
    return true;
  }

 private:
  // A trace cut short: the array closed where it stops (kept in `copy`;
  // a whole trace is parsed from the input's bytes as they are).
  static std::string_view closed(std::string_view text, std::string& copy) {
    std::size_t start = text.find_first_not_of(" \t\r\n");
    if (start == std::string_view::npos || text[start] != '[') return text;
    std::size_t end = text.find_last_not_of(" \t\r\n");
    if (text[end] == ']') return text;
    copy.assign(text.substr(0, text[end] == ',' ? end : end + 1));
    copy += ']';
    return copy;
  }

  // A function per name, and per file, line and object where the event's
  // args name them (graphgen's traces do).
  FuncId function(std::string_view name, const Where& w) {
    key_.assign(name).append(1, '\0').append(w.file).append(1, '\0').append(w.object);
    key_.append(1, '\0').append(std::to_string(w.line));
    auto [it, fresh] = functions_.try_emplace(key_, 0);
    if (fresh) {
      Function f;
      f.name = p_.strings.intern(name);
      if (!w.file.empty()) f.file = p_.strings.intern(w.file);
      if (!w.object.empty()) {
        f.object = p_.strings.intern(w.object);
        f.has_object = true;
      }
      f.line = w.line;
      it->second = p_.add_function(f);
    }
    return it->second;
  }

  // A pid or tid, a number or a string, as text (`slot` 0 a pid, 1 a tid).
  Expected<std::string> id(od::value v, int slot) {
    od::json_type t;
    if (auto e = v.type().get(t); e) return json_->fail("a pid or tid", e);
    if (t == od::json_type::string) {
      std::string_view s;
      if (auto e = v.get_string().get(s); e) return json_->fail("a pid or tid", e);
      return std::string(s);
    }
    double d = 0;
    if (auto e = v.get_double().get(d); e) return json_->fail("a pid or tid", e);
    // (Formatted once for a run of events of one process or thread: the
    // same bits, so -0 is not 0.)
    auto& [bits, text] = last_id_[slot];
    if (std::bit_cast<std::uint64_t>(d) != bits || text.empty()) {
      bits = std::bit_cast<std::uint64_t>(d);
      text = fmt::format("{}", d);
    }
    return text;
  }

  Expected<bool> event_list(od::array events) { return v8_ ? events_of<true>(events) : events_of<false>(events); }

  // The events, in samples mode (kV8) or not: two loops, so that the one
  // over every slice has none of the samples mode's branches (the 228 MB
  // trace of docs/speed.md read 20 % slower with them).
  template <bool kV8>
  Expected<bool> events_of(od::array events) {
    for (auto item : events) {
      od::object obj;
      const std::size_t at = json_->here();
      if (auto e = item.get_object().get(obj); e) return json_->fail("a trace event {\"ph\": ...}", e);
      // (ph and name: views into the parser's strings, which last as long as the document.)
      std::string_view ph, name, id_text, args_text;
      std::string pid, tid, meta;
      Where where;
      std::optional<double> ts, dur;
      for (auto m : obj) {
        std::string_view k, s;
        if (auto e = m.unescaped_key().get(k); e) return json_->fail("a member name", e);
        od::value v = m.value();
        if (kV8 && k == "args") {
          // (Kept as text: the phase may come after them.)
          od::object args;
          if (v.get_object().get(args)) continue;
          if (auto e = args.raw_json().get(args_text); e) return json_->fail("\"args\": {...}", e);
          continue;
        }
        if (kV8 && k == "id") {
          if (v.get_string().get(id_text)) id_text = v.raw_json_token();  // (a number)
          continue;
        }
        if (k == "ph" || k == "name") {
          if (auto e = v.get_string().get(s); e) return json_->fail("a string", e);
          (k == "ph" ? ph : name) = s;
        } else if (k == "pid" || k == "tid") {
          auto text = id(v, k == "pid" ? 0 : 1);
          if (!text) return text.error();
          (k == "pid" ? pid : tid) = std::move(text).value();
        } else if (k == "ts" || k == "dur") {
          double d = 0;
          if (auto e = v.get_double().get(d); e) return json_->fail("a time in microseconds", e);
          (k == "ts" ? ts : dur) = d;
        } else if (k == "args") {
          od::object args;
          if (v.get_object().get(args)) continue;
          for (auto a : args) {
            std::string_view ak, as;
            std::int64_t line = 0;
            if (a.unescaped_key().get(ak)) continue;
            if (ak == "line" && !a.value().get_int64().get(line) && line > 0) where.line = line;
            if ((ak != "name" && ak != "file" && ak != "object") || a.value().get_string().get(as)) continue;
            (ak == "name" ? meta : ak == "file" ? where.file : where.object) = std::string(as);
          }
        }
      }
      ++seq_;
      if (detect_ && ph.size() == 1 && (ph[0] == 'P' || ph[0] == 'I') &&
          (name == "Profile" || name == "ProfileChunk" || name == "CpuProfile")) {
        saw_v8_ = true;  // (read again for its samples: read_trace_windows, read_trace_whole)
        return true;
      }
      if constexpr (kV8) {
        if (ph == "M" || ph == "P" || name == "CpuProfile") {
          if (auto ok = v8_event(ph, name, pid, tid, id_text, args_text, json_->where(at)); !ok) return ok.error();
        } else if (ph == "X" || ph == "B") {
          ++slices_;
        }
        continue;
      }
      if (ph == "M") {
        if (name == "process_name") process_names_[pid] = meta;
        if (name == "thread_name") thread_names_[pid + '\0' + tid] = meta;
        continue;
      }
      if (ph != "X" && ph != "B" && ph != "E") continue;
      const bool bad_dur = ph == "X" && (!dur || !std::isfinite(*dur) || *dur < 0);
      if (!ts || !std::isfinite(*ts) || bad_dur)
        return bad_input(fmt::format("{}: expected \"ts\"{} in a trace event of phase {}, found {}", json_->where(at),
                                     ph == "X" ? " and a \"dur\" of 0 or more" : "", ph,
                                     !ts                 ? "no \"ts\""
                                     : !dur && ph == "X" ? "no \"dur\""
                                                         : "a time that is not a finite time"));
      if (last_thread_ == SIZE_MAX || threads_[last_thread_].pid != pid || threads_[last_thread_].tid != tid) {
        auto [it, fresh] = thread_index_.try_emplace(pid + '\0' + tid, threads_.size());
        if (fresh) threads_.push_back({pid, tid, {}});
        last_thread_ = it->second;
      }
      Thread& t = threads_[last_thread_];
      const FuncId f = ph == "E" ? 0 : function(name, where);
      if (ph == "X") {
        t.edges.push_back({*ts, *dur, true, true, f, seq_, slices_});
        t.edges.push_back({*ts + *dur, 0, false, true, f, seq_, slices_});
        ++slices_;
      } else {
        t.edges.push_back({*ts, HUGE_VAL, ph == "B", false, f, seq_, 0});
      }
      if (options_.memory_budget && seq_ % 4096 == 0 && (slices_ * 2 + seq_) * sizeof(Edge) > options_.memory_budget)
        return bad_input(formats::over_budget_message(in_.path(), options_.memory_budget, functions_.size(), 1));
    }
    return true;
  }

  Expected<Profile> build();
  Expected<Profile> build_samples();

  // An event samples mode reads: M (its args' name), or a V8 profile's.
  Expected<bool> v8_event(std::string_view ph, std::string_view name, const std::string& pid, const std::string& tid,
                          std::string_view id, std::string_view args, const std::string& where) {
    if (ph == "M") {
      if (name != "process_name" && name != "thread_name") return true;
      args_copy_.reserve(args.size() + simdjson::SIMDJSON_PADDING);
      args_copy_.assign(args);
      od::document doc;
      std::string_view value;
      if (args_parser_.iterate(args_copy_.data(), args_copy_.size(), args_copy_.capacity()).get(doc) ||
          doc.find_field_unordered("name").get_string().get(value))
        return true;  // (as the slices' reading: a name that is no string names nothing)
      (name == "process_name" ? process_names_[pid] : thread_names_[pid + '\0' + tid]) = std::string(value);
      return true;
    }
    if (name != "Profile" && name != "ProfileChunk" && name != "CpuProfile") return true;
    return v8_->add(name, pid, tid, id, args, where);
  }

  const InputFile& in_;
  const formats::ReadOptions& options_;
  Diagnostics& diag_;
  std::string closing_;  // a cut trace, closed
  std::optional<formats::JsonDocument> whole_, window_doc_;
  formats::JsonDocument* json_ = nullptr;  // the document event_list() reads
  std::string window_;
  PassedPages passed_{&in_};
  Profile p_;
  std::optional<detail::StackBuilder> builder_;
  std::optional<V8Samples> v8_;  // samples mode
  bool detect_ = false, saw_v8_ = false;
  simdjson::ondemand::parser args_parser_;
  std::string args_copy_;
  std::unordered_map<std::string, FuncId> functions_;
  std::string key_;
  std::unordered_map<std::string, std::size_t> thread_index_;
  std::vector<Thread> threads_;
  std::unordered_map<std::string, std::string> process_names_, thread_names_;
  std::uint32_t seq_ = 0, slices_ = 0;
  std::pair<std::uint64_t, std::string> last_id_[2];  // the last pid and tid numbers and their text
  std::size_t last_thread_ = SIZE_MAX;                // the last event's thread
};

// A pid or tid as a number for the timeline: the file's own when it is
// an integer, else `fallback` (a process or thread named by a string).
std::int64_t number(const std::string& id, std::int64_t fallback) {
  std::int64_t v = 0;
  auto [end, ec] = std::from_chars(id.data(), id.data() + id.size(), v);
  return ec == std::errc() && end == id.data() + id.size() ? v : fallback;
}

// The V8 profiles' stacks; the slices (counted) are left out, as
// speedscope leaves them out of such a trace.
Expected<Profile> Reader::build_samples() {
  if (!found_samples()) return std::move(p_);  // (the slices are read instead: read_trace_whole)
  auto names = [&](const std::string& pid, const std::string& tid) {
    V8Samples::Names n;
    if (auto it = process_names_.find(pid); it != process_names_.end()) n.process = it->second;
    if (auto it = thread_names_.find(pid + '\0' + tid); it != thread_names_.end()) n.thread = it->second;
    n.label = (n.thread.empty() ? "tid " + tid : n.thread) + " (" +
              (n.process.empty() ? "pid " + pid : n.process + " " + pid) + ")";
    return n;
  };
  if (auto ok = v8_->build(p_, *builder_, names); !ok) return ok.error();
  diag_.warn(fmt::format(
      "{}: the trace holds V8's sampled CPU profile (Profile and ProfileChunk events): its {} samples of {} "
      "thread(s) are read, as speedscope reads such a trace{}",
      in_.path(), v8_->samples(), v8_->threads(),
      slices_ ? fmt::format(", and its {} trace slices left out", slices_) : std::string()));
  return std::move(p_);
}

Expected<Profile> Reader::build() {
  if (v8_) return build_samples();
  detail::StackBuilder& builder = *builder_;
  std::size_t overlapping = 0, unmatched = 0, unclosed = 0;
  std::vector<std::pair<FuncId, std::int64_t>> open;  // function, X slice or -1
  std::vector<FuncId> stack;
  for (Thread& t : threads_) {
    // Time order; at one time, closings first (the later opened first),
    // then openings, the longer first.
    std::stable_sort(t.edges.begin(), t.edges.end(), [](const Edge& a, const Edge& b) {
      if (a.ts != b.ts) return a.ts < b.ts;
      if (a.open != b.open) return !a.open;
      if (a.open) return a.dur > b.dur;
      return a.seq > b.seq;
    });
    const std::string pname = process_names_.count(t.pid) ? process_names_[t.pid] : std::string();
    const std::string tname = thread_names_.count(t.pid + '\0' + t.tid) ? thread_names_[t.pid + '\0' + t.tid] : "";
    const std::string label =
        (tname.empty() ? "tid " + t.tid : tname) + " (" + (pname.empty() ? "pid " + t.pid : pname + " " + t.pid) + ")";
    open.clear();
    const std::uint32_t track = options_.keep_timeline ? builder.track(number(t.pid, 1 + (&t - threads_.data())),
                                                                       number(t.tid, 0), tname, pname)
                                                       : 0;
    double last = t.edges.empty() ? 0 : t.edges.front().ts;
    for (const Edge& e : t.edges) {
      if (e.ts > last && !open.empty()) {
        stack.clear();
        for (std::size_t i = open.size(); i-- > 0;) stack.push_back(open[i].first);
        const Cost w = float_cost((e.ts - last) * 1e-6);
        builder.add_sample(stack, &w, threads_.size() > 1 ? std::string_view(label) : std::string_view());
        if (options_.keep_timeline) builder.time_last_sample(last * 1e-6, (e.ts - last) * 1e-6, track);
      }
      last = std::max(last, e.ts);
      if (e.open) {
        open.emplace_back(e.function, e.complete ? static_cast<std::int64_t>(e.slice) : -1);
      } else if (e.complete) {
        auto it = std::find_if(open.rbegin(), open.rend(), [&](auto& o) { return o.second == e.slice; });
        if (it == open.rend()) continue;
        if (it != open.rbegin()) ++overlapping;
        open.erase(std::next(it).base());
      } else if (open.empty()) {
        ++unmatched;
      } else {
        open.pop_back();
      }
    }
    unclosed += open.size();
    if (options_.memory_budget && p_.approximate_bytes() > options_.memory_budget)
      return bad_input(formats::over_budget_message(in_.path(), options_.memory_budget, p_.functions.size(), 1));
  }
  std::string said;
  for (auto [n, what] : {std::pair{overlapping, "slices overlap others without nesting (each ends where it says)"},
                         std::pair{unmatched, "E events close no B"},
                         std::pair{unclosed, "slices are never closed (they end at their thread's last event)"}})
    if (n) said += fmt::format("{}{} {}", said.empty() ? "" : "; ", n, what);
  if (!said.empty()) diag_.warn(fmt::format("{}: {}", in_.path(), said));
  return std::move(p_);
}

}  // namespace

bool sniff_trace(std::string_view head) {
  const std::size_t i = head.find_first_not_of(" \t\r\n");
  if (i == std::string_view::npos) return false;
  if (head[i] == '{') return head.substr(i).find("\"traceEvents\"") != std::string_view::npos;
  if (head[i] != '[') return false;
  const std::size_t j = head.find_first_not_of(" \t\r\n", i + 1);
  return j != std::string_view::npos && head[j] == '{' && head.find("\"ph\"") != std::string_view::npos &&
         head.find("\"ts\"") != std::string_view::npos;
}

std::optional<Expected<Profile>> read_trace_windows(const InputFile& input, const formats::ReadOptions& options,
                                                    Diagnostics& diag) {
  // The slices, until a V8 profile event shows up: then its samples (the
  // slices, whatever comes, where it holds none).
  Reader windows(input, options, diag, Mode::kDetect);
  if (!windows.read_windows()) return std::nullopt;
  if (!windows.saw_v8()) return windows.finish();
  Reader samples(input, options, diag, Mode::kSamples);
  if (!samples.read_windows()) return std::nullopt;
  if (samples.found_samples()) return samples.finish();
  Reader slices(input, options, diag, Mode::kSlices);
  if (!slices.read_windows()) return std::nullopt;
  return slices.finish();
}

Expected<Profile> read_trace_whole(const InputFile& input, const formats::ReadOptions& options, Diagnostics& diag) {
  Reader detect(input, options, diag, Mode::kDetect);
  auto p = detect.read();
  if (!p || !detect.saw_v8()) return p;
  Reader samples(input, options, diag, Mode::kSamples);
  p = samples.read();
  if (!p || samples.found_samples()) return p;
  return Reader(input, options, diag, Mode::kSlices).read();
}

Expected<Profile> read_trace(const InputFile& input, const formats::ReadOptions& options, Diagnostics& diag) {
  if (auto windowed = read_trace_windows(input, options, diag)) return std::move(*windowed);
  return read_trace_whole(input, options, diag);
}

}  // namespace graphgen::chrome
