#include "reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cstring>
#include <memory>
#include <optional>

#include "graphgen/analysis/merge.h"
#include "graphgen/analysis/stacks.h"
#include "graphgen/analysis/timeline.h"
#include "graphgen/flat_index.h"
#include "graphgen/text.h"
#include "graphgen/thread.h"
#include "python.h"

namespace graphgen::perf {

namespace {

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool is_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// secs.usecs: digits '.' digits ':'
bool is_time(std::string_view t) {
  if (t.size() < 4 || t.back() != ':') return false;
  t.remove_suffix(1);
  std::size_t dot = t.find('.');
  return dot != std::string_view::npos && all_digits(t.substr(0, dot)) && all_digits(t.substr(dot + 1));
}

bool is_pid(std::string_view t) {
  std::size_t slash = t.find('/');
  if (slash == std::string_view::npos) return all_digits(t);
  return all_digits(t.substr(0, slash)) && all_digits(t.substr(slash + 1));
}

bool is_cpu(std::string_view t) {
  return t.size() >= 3 && t.front() == '[' && t.back() == ']' && all_digits(t.substr(1, t.size() - 2));
}

// Columns that `perf script -F +misc,+tod` prints between the cpu and the
// time: the sample's misc flags (`K`, `U`, `KUH`... up to 6 of KUHGgMESp)
// and the time of day (`2026-11-28 02:41:29.433185`).
bool is_misc(std::string_view t) {
  return !t.empty() && t.size() <= 6 && t.find_first_not_of("KUHGgMESp") == std::string_view::npos;
}

bool is_date(std::string_view t) {
  return t.size() == 10 && t[4] == '-' && t[7] == '-' && all_digits(t.substr(0, 4)) && all_digits(t.substr(5, 2)) &&
         all_digits(t.substr(8, 2));
}

bool is_clock(std::string_view t) {
  if (t.size() < 8 || t[2] != ':' || t[5] != ':') return false;
  if (!all_digits(t.substr(0, 2)) || !all_digits(t.substr(3, 2)) || !all_digits(t.substr(6, 2))) return false;
  return t.size() == 8 || (t[8] == '.' && t.size() > 9 && all_digits(t.substr(9)));
}

struct Header {
  std::string_view comm;
  std::int64_t pid = -1, tid = -1;  // `pid/tid`; a lone number is both (perf prints the tid there)
  std::string_view event;
  bool has_period = false;
  std::uint64_t period = 0;
  double time = -1;       // seconds, when the header has a time
  std::string_view rest;  // a frame, when recorded without -g
  // Where the columns before the time end (0 without a time), and where
  // the comm starts: what a later header can be matched against.
  std::size_t columns_end = 0, comm_begin = 0;
};

struct Token {
  std::size_t begin, end;
};

std::string_view token(std::string_view line, const Token& t) { return line.substr(t.begin, t.end - t.begin); }

struct Frame {
  std::string_view address, symbol, dso;
  bool unresolved = false;  // no symbol: named by its address
  bool has_dso = false;     // "(...)" present, possibly empty
  bool python = false;      // `py::NAME:FILE`: symbol is NAME, file FILE
  std::string_view file;
};

// `addr symbol[+0xoff] (dso)`, leading whitespace already removed. The dso is
// the last balanced (...) group at the end of the line.
bool parse_frame(std::string_view s, Frame& f) {
  std::size_t i = 0;
  while (i < s.size() && is_hex(s[i])) ++i;
  if (i == 0 || i >= s.size() || !is_blank(s[i])) return false;
  f.address = s.substr(0, i);
  std::string_view rest = trim(s.substr(i));
  f.dso = {};
  f.has_dso = false;
  if (!rest.empty() && rest.back() == ')') {
    f.has_dso = true;
    int depth = 0;
    std::size_t j = rest.size();
    while (j-- > 0) {
      if (rest[j] == ')') ++depth;
      if (rest[j] == '(' && --depth == 0) break;
    }
    if (j == SIZE_MAX || depth != 0) return false;
    f.dso = rest.substr(j + 1, rest.size() - j - 2);
    rest = trim(rest.substr(0, j));
  }
  // Strip a trailing +0x<hex> offset.
  std::size_t plus = rest.rfind("+0x");
  if (plus != std::string_view::npos && plus + 3 < rest.size() &&
      std::all_of(rest.begin() + static_cast<std::ptrdiff_t>(plus + 3), rest.end(), is_hex))
    rest = rest.substr(0, plus);
  f.unresolved = rest.empty() || rest == "[unknown]";
  f.symbol = f.unresolved ? f.address : rest;
  f.python = false;
  f.file = {};
  if (rest.starts_with("py::") && rest.size() > 4) {
    // python -X perf: `py::QUALNAME:FILENAME` (a qualname has no ':').
    f.python = true;
    rest.remove_prefix(4);
    std::size_t colon = rest.find(':');
    f.symbol = rest.substr(0, colon);
    if (colon != std::string_view::npos) f.file = rest.substr(colon + 1);
  }
  return true;
}

// What follows the columns when there is no event: nothing (frames on
// the next lines), or one frame `ip sym (dso)`.
bool frame_or_nothing(std::string_view rest) {
  Frame f;
  return rest.empty() || (parse_frame(rest, f) && f.has_dso);
}

// A header without an event: the index after the last pid (or pid and
// cpu) column that the rest of the line can follow, `comm 1234 ` or
// `comm 1234 [001] 55d0 sym (dso)`; SIZE_MAX when there is none.
std::size_t columns_end_without_event(std::string_view line, const Token* toks, std::size_t n) {
  for (std::size_t c = n; c-- > 1;) {
    std::string_view t = token(line, toks[c]);
    bool cpu_after_pid = is_cpu(t) && c > 1 && is_pid(token(line, toks[c - 1]));
    if (!is_pid(t) && !cpu_after_pid) continue;
    if (frame_or_nothing(trim(line.substr(toks[c].end)))) return c + 1;
  }
  return SIZE_MAX;
}

// `pid` or `pid/tid`, each saturating.
void read_pid(std::string_view pid, Header& h) {
  std::size_t slash = pid.find('/');
  std::uint64_t a = 0, b = 0;
  parse_u64(pid.substr(0, slash), a);
  h.pid = static_cast<std::int64_t>(std::min<std::uint64_t>(a, INT64_MAX));
  if (slash == std::string_view::npos) {
    h.tid = h.pid;
    return;
  }
  parse_u64(pid.substr(slash + 1), b);
  h.tid = static_cast<std::int64_t>(std::min<std::uint64_t>(b, INT64_MAX));
}

// Parses a sample header. comm may contain spaces, so the header is anchored
// at the timestamp (`secs.usecs:` after a pid or cpu column), or, in output
// without one (older perf, -F field selections), at the event: the first
// `name:` after a pid or cpu column (docs/formats.md §5.2). A timestamp
// anywhere wins over an earlier `name:`. Selections with
// neither (`-F comm,tid,ip,sym,dso`) end at the pid (or cpu) column, with
// the one frame after it when recorded without -g.
bool parse_header(std::string_view line, Header& h) {
  constexpr std::size_t kMaxTokens = 64;
  Token toks[kMaxTokens + 4];
  std::size_t n = 0;
  std::size_t i = 0;
  std::size_t anchor = SIZE_MAX;  // the time token, or the event token
  bool timed = false;
  auto next_token = [&] {
    while (i < line.size() && is_blank(line[i])) ++i;
    if (i >= line.size()) return false;
    std::size_t b = i;
    while (i < line.size() && !is_blank(line[i])) ++i;
    toks[n++] = {b, i};
    return true;
  };
  std::size_t extras = 0;  // misc and time-of-day columns before the time
  while (n < kMaxTokens && next_token()) {
    if (n < 2) continue;
    std::string_view t = token(line, toks[n - 1]);
    std::size_t c = n - 2;  // the column t follows
    if (is_time(t)) {
      if (c >= 3 && is_clock(token(line, toks[c])) && is_date(token(line, toks[c - 1]))) c -= 2;
      if (c >= 2 && is_misc(token(line, toks[c]))) --c;
    }
    std::string_view prev = token(line, toks[c]);
    if (!is_pid(prev) && !is_cpu(prev)) continue;
    if (is_time(t)) {
      anchor = n - 1;
      extras = n - 2 - c;
      timed = true;
      std::from_chars(t.data(), t.data() + t.size() - 1, h.time);
      break;
    }
    // A `name:` after a number may be the event, or part of a command
    // (a thread named "x 42 9: y"): a time after it says which.
    if (t.size() > 1 && t.back() == ':' && anchor == SIZE_MAX) anchor = n - 1;
  }
  // k: the index just after the pid and cpu columns.
  const bool evented = anchor != SIZE_MAX;
  std::size_t k = evented ? anchor - extras : columns_end_without_event(line, toks, n);
  if (k == SIZE_MAX) return false;
  // Columns before k: [cpu], before it [pid | pid/tid], the rest is comm.
  std::size_t end_of_columns = toks[k - 1].end;
  if (k > 0 && is_cpu(token(line, toks[k - 1]))) --k;
  if (k > 0 && is_pid(token(line, toks[k - 1]))) {
    read_pid(token(line, toks[k - 1]), h);
    --k;
  }
  if (k == 0) return false;  // no comm
  h.comm = trim(line.substr(0, toks[k - 1].end));
  h.comm_begin = static_cast<std::size_t>(h.comm.data() - line.data());
  if (timed) h.columns_end = toks[anchor - 1].end;
  if (!evented) {
    h.rest = trim(line.substr(end_of_columns));
    return true;
  }
  std::size_t e = anchor;
  if (timed) {
    // Period and event follow the time, unless the selection has no event
    // (`-F comm,tid,time,ip,sym,dso`): then nothing or the one frame does.
    bool event = false;
    for (int more = 0; more < 2 && next_token(); ++more)
      if (line[toks[n - 1].end - 1] == ':') {
        event = true;
        break;
      }
    if (!event) {
      h.rest = trim(line.substr(toks[anchor].end));
      return frame_or_nothing(h.rest);
    }
    e = anchor + 1;
    std::string_view tok = token(line, toks[e]);
    if (all_digits(tok)) {
      h.has_period = parse_u64(tok, h.period);
      if (++e >= n) return false;
    }
  }
  std::string_view ev = token(line, toks[e]);
  if (ev.size() < 2 || ev.back() != ':') return false;
  h.event = ev.substr(0, ev.size() - 1);
  h.rest = trim(line.substr(toks[e].end));
  return true;
}

// A side-band record that `perf script --show-task-events`,
// `--show-mmap-events` and the like print between samples
// (`xz 4957 31300.660416: PERF_RECORD_FORK(4957:4959):(4957:4957)`): a
// header's columns, then the record's name. Not a sample.
bool side_band(std::string_view line) {
  std::size_t at = line.find(" PERF_RECORD_");
  Header h;
  return at != std::string_view::npos && parse_header(line.substr(0, at), h) && h.event.empty();
}

// A part of one input: a whole file, or a run of whole samples of it.
struct Part {
  const InputFile* input;
  std::size_t begin, end;
};

// The tail of a part, handed to the thread that finished its own part
// first (the other core busy elsewhere, or a half of more work): the
// reader publishes where it is now and then, and stops at the start of a
// sample the other thread claimed, when it is not past it yet; the claimed
// tail is read as a part of its own and folded in after it. The profile is
// the same wherever the parts are cut.
// One per part, each on its own cache line: the reader of each part writes
// its own every sample (samples_), so two sharing a line made the two
// cores take it from each other at every sample (false sharing: a sixth
// of scatter-long's read went to that load).
class alignas(64) Handoff {
 public:
  /// Whether the tail from `claim` on was given up (after the reader is joined).
  bool given() const { return verdict_.load(std::memory_order_acquire) == kGiven; }
  /// Where the reader was a few samples ago, or kNotStarted / kFinished.
  std::size_t at() const { return at_.load(std::memory_order_relaxed); }

  /// The reader at the start of a sample, `pos` bytes into the input: true
  /// when it stops here, the tail from here on claimed.
  bool stop_at(std::size_t pos) {
    if ((++samples_ & 63) == 0) at_.store(pos, std::memory_order_relaxed);
    const std::size_t claim = claim_.load(std::memory_order_acquire);
    if (claim == kNone) return false;
    if (verdict_.load(std::memory_order_relaxed) == kOpen)
      verdict_.store(pos <= claim ? kGiven : kRefused, std::memory_order_release);
    return pos == claim && verdict_.load(std::memory_order_relaxed) == kGiven;
  }
  /// The reader is at its part's end (or failed): a claim not yet answered is refused.
  void finished() {
    at_.store(kFinished, std::memory_order_relaxed);
    if (verdict_.load(std::memory_order_relaxed) == kOpen) verdict_.store(kRefused, std::memory_order_release);
  }
  /// The other thread claims the tail from `pos` (the start of a sample).
  void claim(std::size_t pos) { claim_.store(pos, std::memory_order_release); }

  static constexpr std::size_t kNotStarted = 0, kFinished = SIZE_MAX;

 private:
  static constexpr std::size_t kNone = SIZE_MAX;
  enum : int { kOpen, kGiven, kRefused };
  std::size_t samples_ = 0;
  std::atomic<std::size_t> at_{kNotStarted}, claim_{kNone};
  std::atomic<int> verdict_{kOpen};
};

// Software clock events count nanoseconds in their period: `cpu-clock`,
// `task-clock`, with modifiers (`cpu-clock:ppp`, `cpu-clock/period=5000000/`).
bool is_clock_event(std::string_view event) {
  for (std::string_view clock : {"cpu-clock", "task-clock"})
    if (event.starts_with(clock) &&
        (event.size() == clock.size() || event[clock.size()] == ':' || event[clock.size()] == '/'))
      return true;
  return false;
}

// Distinct names (events, commands) seen in a file: one hash probe per
// sample, whatever their number (none when it repeats the last one).
class NameSet {
 public:
  /// (An empty name counts as any: a reader that begins at a sample
  /// without an event name, the second part of a file, counts it as the
  /// one that met a named sample first does.)
  void add(std::string_view name) { number(name); }
  /// add() that also gives the name's number, in the order names were
  /// first added.
  std::uint32_t number(std::string_view name) {
    if (!names_.empty() && name.size() == last_.size() && same_bytes(name.data(), last_.data(), name.size()))
      return last_id_;
    last_id_ = index_.find_or_add(
        FlatIndex::hash_bytes(name), [&](std::uint32_t i) { return names_[i] == name; },
        [&] {
          names_.emplace_back(name);
          return static_cast<std::uint32_t>(names_.size() - 1);
        });
    last_ = name;
    return last_id_;
  }
  void add_all(const NameSet& other) {
    for (const std::string& n : other.names_) add(n);
  }
  std::size_t size() const { return names_.size(); }
  /// Sorted, comma-separated, at most `limit` of them.
  std::string list(std::size_t limit = 20) const {
    std::vector<std::string> sorted = names_;
    std::sort(sorted.begin(), sorted.end());
    std::string out;
    for (std::size_t i = 0; i < sorted.size() && i < limit; ++i)
      out += (i == 0 ? "" : ", ") + (sorted[i].empty() ? std::string("(no name)") : sorted[i]);
    if (sorted.size() > limit) out += fmt::format(" and {} more", sorted.size() - limit);
    return out;
  }

 private:
  FlatIndex index_;
  std::vector<std::string> names_;
  std::string last_;
  std::uint32_t last_id_ = 0;
};

// Parses parts into its own profile; parts of one file read on both cores
// are merged afterwards in order (absorb).
class Reader {
 public:
  /// `event`: the event whose samples are kept (empty: all); `defaulted`
  /// when it is the file's first rather than one asked for.
  Reader(const formats::ReadOptions& o, std::string event, bool defaulted)
      : builder_(profile, o.weight_by_period ? "period" : "samples", "", o.keep_stacks),
        options_(o),
        event_(std::move(event)),
        event_defaulted_(defaulted) {}

  Profile profile;

  /// Reads `part`; with `handoff`, stops where another thread claims its tail.
  Expected<bool> read_part(const Part& part, Handoff* handoff = nullptr) {
    handoff_ = handoff;
    struct Finished {
      Handoff* h;
      ~Finished() {
        if (h) h->finished();
      }
    } finished{handoff};
    const InputFile& input = *part.input;
    path_ = input.path();
    part_ = part;
    const std::string_view data = input.bytes().substr(part.begin, part.end - part.begin);
    LineScanner scanner(data, &input, part.begin);
    std::string_view line;
    in_sample_ = false;
    blank_searched_ = false;
    streamed_ = 0;
    ahead_n_ = 0;
    reserve_cache(part.end - part.begin);
    std::size_t budget_line = 4096;  // the budget is looked at every 4096 lines
    auto over_budget = [&] {
      if (scanner.line_number() < budget_line) return false;
      budget_line = (scanner.line_number() | 4095) + 1;
      return options_.memory_budget && profile.approximate_bytes() > options_.memory_budget;
    };
    while (scanner.next(line)) {
      if (over_budget())
        return bad_input(formats::over_budget_message(path_, options_.memory_budget, profile.functions.size(), 1));
      if (line.empty()) {
        remember_stack(scanner);
        flush();
        if (handoff_ && handoff_->stop_at(part.begin + scanner.position())) break;
        continue;
      }
      char c = line[0];
      if (c == '#' && !in_sample_) continue;
      // Frames are tab-indented. A line indented with spaces is a padded
      // header (perf without -g pads comm), else a space-indented frame, else
      // the source line perf -F +srcline prints after a frame.
      Header h;
      const bool known = c != '\t' && same_shape(line, h);
      if (!known && c != '\t' && side_band(line)) {
        flush();  // (without -g no empty line ends the sample before it)
        continue;
      }
      const bool header = known || (c != '\t' && parse_header(line, h));
      if (header && !known) remember_shape(line, h);
      if (!header && in_sample_ && (c == '\t' || c == ' ')) {
        Frame f;
        std::size_t lead = 0;
        while (lead < line.size() && is_blank(line[lead])) ++lead;
        const std::string_view text = line.substr(lead);
        std::uint64_t hash = 0;  // (text's, for remembering it when new)
        if (known_frame(text, hash)) continue;
        if (parse_frame(text, f)) {
          add_frame(f, text, hash);
          continue;
        }
        if (c == ' ' && line.size() > 1 && line[1] == ' ' && !frames_.empty()) continue;  // -F +srcline
        if (c == '\t')
          return fail(scanner.line_number(), lead + 1,
                      fmt::format("expected a frame 'address symbol (dso)', found {}", quote_input(trim(line))));
      }
      if (c == '\t')
        return fail(scanner.line_number(), 1,
                    fmt::format("expected a sample header before this frame, found {}", quote_input(trim(line))));
      flush();
      if (!header)
        return fail(scanner.line_number(), 1,
                    fmt::format("expected a sample header 'comm pid [time:] [period] event:', found {}",
                                quote_input(trim(line))));
      start_sample(h, known);
      if (!h.rest.empty()) {  // recorded without -g: the one frame is on the header
        Frame f;
        if (parse_frame(h.rest, f)) add_frame(f, {}, 0);
      } else if (keep_ && seen_stack(scanner, data)) {
        if (over_budget())  // (the frames passed add nothing to the profile)
          return bad_input(formats::over_budget_message(path_, options_.memory_budget, profile.functions.size(), 1));
      }
    }
    flush();
    for (std::size_t i = 0; i < cache_.entries.size(); ++i) add_pending(i);
    return true;
  }

  // The stack cache serves read_part() alone: freed by the thread that
  // read the part, as soon as it is done (tens of thousands of entries,
  // each with its replay's arrays), not after the other part is folded.
  void drop_cache() {
    cache_ = StackCache{};
    memo_ = FrameMemo{};
  }

  // Folds a later part's reader into this one: what is new is appended in
  // the other's order, so parts folded in order equal one pass.
  Expected<bool> absorb(const Reader& other) {
    if (auto ok = add_profile(profile, other.profile, other.path_); !ok) return ok;
    events_.add_all(other.events_);
    processes_.add_all(other.processes_);
    kept_ += other.kept_;
    other_events_ += other.other_events_;
    frameless_ += other.frameless_;
    python_samples_ += other.python_samples_;
    python_native_ += other.python_native_;
    python_cut_ += other.python_cut_;
    filtered_ += other.filtered_;
    untimed_kept_ = untimed_kept_ || other.untimed_kept_;
    missing_period_ += other.missing_period_;
    return true;
  }

  Expected<bool> finish(Diagnostics& diag) {
    if (!options_.event.empty() && kept_ == 0 && frameless_ == 0 && filtered_ == 0)
      return bad_usage(fmt::format("--event {}: {} has no samples of event {}; the file has {}",
                                   quote_input(options_.event), path_, quote_input(options_.event),
                                   events_.size() == 0 ? "no samples" : events_.list()));
    if (kept_ == 0 && frameless_ == 0 && filtered_ > 0)
      return bad_input(fmt::format("{}: no samples of the processes asked for (--pid/--comm); the file has {}", path_,
                                   processes_.size() == 0 ? "no samples" : processes_.list()));
    if (event_defaulted_ && events_.size() > 1)
      diag.warn(
          fmt::format("{}: samples of {} events ({}): only the first event's are kept, {} ({} other samples "
                      "left out, as stackcollapse-perf.pl does); pick another with --event",
                      path_, events_.size(), events_.list(), event_, other_events_));
    if (frameless_ > 0)
      diag.warn(
          fmt::format("{}: {} sample(s) have no stack frames: the folded and flame outputs show them as their "
                      "command alone (as stackcollapse-perf.pl does), the call graph leaves them out (as "
                      "gprof2dot does)",
                      path_, frameless_));
    using PythonView = formats::ReadOptions::PythonView;
    if (python_samples_ > 0 && options_.python == PythonView::kAuto)
      diag.warn(
          fmt::format("{}: {} of {} samples hold Python frames (py::): the interpreter's own frames are hidden "
                      "between them (--no-python keeps them)",
                      path_, python_samples_, kept_));
    if (python_samples_ == 0 && options_.python == PythonView::kOn && kept_ > 0)
      diag.warn(
          fmt::format("--python: {} has no Python frames (py::); record Python 3.12+ with python -X perf, or "
                      "3.13+ with -X perf_jit and perf inject --jit",
                      path_));
    if (python_samples_ == 0 && python_native_ >= 20 && python_cut_ * 2 > python_native_)
      diag.warn(fmt::format(
          "{}: {} of {} samples of Python processes end in an unresolved frame and hold no Python function: perf "
          "could not walk the stacks of a Python built without frame pointers. Record with DWARF and 3.13's jitdump "
          "(perf record -k 1 --call-graph dwarf python3.13 -X perf_jit app.py, then perf inject --jit), or use a "
          "Python built with frame pointers and python -X perf (docs/formats.md: Python and C together)",
          path_, python_cut_, python_native_));
    if (missing_period_ > 0)
      diag.warn(
          fmt::format("{}: {} sample(s) have no period in their header and count 1 each", path_, missing_period_));
    // cpu-clock and task-clock periods are nanoseconds: weighed by them, the
    // profile is in time and pstats or callgrind outputs get real seconds.
    if (options_.weight_by_period && kept_ > 0 && !untimed_kept_ && missing_period_ == 0) {
      profile.events[0].unit = profile.strings.intern("ns");
      profile.events[0].seconds_per_unit = 1e-9;
    }
    return true;
  }

 private:
  Error fail(std::size_t line, std::size_t col, std::string message) const {
    // A part that starts inside the file counts the lines before it (only
    // on this error path).
    std::string_view before = part_.input->bytes().substr(0, part_.begin);
    line += static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n'));
    return bad_input(at_line(path_, line, col, message));
  }

  // Most samples repeat a stack seen before, byte for byte: its frame lines
  // are looked up whole (one hash of the bytes up to the empty line that
  // ends the sample) instead of parsed line by line. The first occurrence
  // of a stack is parsed as any; when its lines were all frames and the
  // empty line came where expected, its bytes and frames are kept.
  // What a sample of a known stack reads is an entry of 32 bytes, apart
  // from the replays: with tens of thousands of stacks looked up in no
  // order, the entries' cache lines are the wait. The replays are kept
  // flat (a StackBuilder::Replay each would be two allocations).
  struct StackCache {
    static constexpr std::uint32_t kNoComm = UINT32_MAX;
    struct Entry {
      std::uint32_t offset = 0, size = 0;  // in `bytes`
      std::uint32_t first = 0;             // in `frames`
      std::uint32_t count : 29 = 0;        // frames (fewer than 2^29: remember_stack)
      // What its recorded sample counted (SampleCounts), for the samples
      // added without their frames (add_known).
      std::uint32_t python : 1 = 0, native : 1 = 0, cut : 1 = 0;
      std::uint32_t lines = 0;
      std::uint32_t comm = kNoComm;  // the process (comms_) its replay was recorded in, once it was
      Cost pending = 0;              // the weight of its samples since, not added yet
    };
    FlatIndex index;
    std::vector<Entry> entries;
    // What each entry's last recorded sample added to: its leaf and node,
    // and its calls, then its distinct functions, in `replayed`.
    struct Replay {
      FuncId leaf = 0;
      std::uint32_t node = 0;
      std::uint32_t calls = 0, distinct = 0;
      std::uint32_t room = 0;  // in `replayed` at `begin` (a stack recorded again writes there when it fits)
      std::size_t begin = 0;
    };
    std::vector<Replay> replays;
    std::vector<std::uint32_t> replayed;
    detail::StackBuilder::Replay scratch;  // (add_sample() fills it, then it is kept flat)
    detail::StackBuilder::ReplayView view(std::size_t replay) const {
      const Replay& r = replays[replay];
      const std::uint32_t* at = replayed.data() + r.begin;
      return {r.leaf, {at, r.calls}, {at + r.calls, r.distinct}, r.node};
    }
    std::string bytes;
    std::vector<FuncId> frames;
    std::size_t mismatches = 0;  // equal tags, different bytes
    bool off = false;            // too many of those: parse every line
  };
  static constexpr std::size_t kEntrySize = sizeof(StackCache::Entry) + sizeof(StackCache::Replay);
  struct Pending {
    bool active = false;
    std::size_t begin = 0, end = 0, header_line = 0;  // the block's bytes in the part
    std::uint64_t hash = 0;
  };

  // A sample's block of frame lines: from `begin` (after its header) up to
  // the empty line ending it, `blank` (npos: none; below `begin`: no frames).
  struct Block {
    std::size_t begin = 0, blank = std::string_view::npos;
    std::uint64_t hash = 0;
    std::int64_t row = -1;  // the cache row its lookup will most likely find
    bool has_frames() const { return blank != std::string_view::npos && blank >= begin; }
  };

  // The block starting at `begin`, its blank line found and its bytes
  // hashed in one pass, into `b`. Each search starts where the last one
  // ended, and none after a search that found none: every byte once.
  // (Written field by field where it is kept: a Block returned and copied
  // was read in 16-byte halves just after find_block() wrote its 8-byte
  // fields, a load the processor cannot forward from the stores.)
  void block_at(std::string_view data, std::size_t begin, Block& b) {
    b.begin = begin;
    b.row = -1;
    const std::size_t from = begin - 1;
    std::uint64_t hash = 0;
    std::size_t blank;
    if (blank_searched_ && from >= blank_from_ && (blank_ == std::string_view::npos || from <= blank_)) {
      blank = blank_;
      if (blank != std::string_view::npos && blank >= begin) hash = hash_block(data.substr(begin, blank + 1 - begin));
    } else {
      blank = find_block(data, begin, hash);
      blank_from_ = from;
      blank_ = blank;
      blank_searched_ = true;
    }
    b.blank = blank;
    b.hash = hash;
  }

  // Samples come faster than memory answers: a lookup waits for the table
  // slot, then the entry, then its bytes, each far from the last sample's.
  // So the blocks of the next kAhead samples are found and hashed ahead
  // (assuming each is a one-line header after the last one's blank line),
  // and each sample on its way asks for one more of these into the cache.
  // A sample whose block was not guessed is found as before: the guesses
  // change when the memory is read, never what is read.
  static constexpr std::size_t kAhead = 6, kEntryAt = 4, kBytesAt = 2;
  // The look-ahead is the first to read the input's bytes: each cache line
  // is asked for kStreamAhead bytes before it, where the processor's own
  // prefetcher stops at every 4 KiB page (0.94x the time of scatter-long;
  // 512 to 8192 bytes all gave 0.94-0.97x).
  static constexpr std::size_t kStreamAhead = 2048;
  void look_ahead(std::string_view data, const Block& current) {
    if (ahead_off_) return;
    // ahead(k) is k + 1 samples away. kBytesAt away: the kept bytes and
    // frames of the entry found for it; kEntryAt away: that entry, named by
    // its slot; kAhead away (below): the slot.
    if (ahead_n_ >= kBytesAt && ahead(kBytesAt - 1).row >= 0) {
      const StackCache::Entry& e = cache_.entries[static_cast<std::size_t>(ahead(kBytesAt - 1).row)];
      const char* bytes = cache_.bytes.data() + e.offset;
      for (std::size_t o = 0; o < e.size && o < 512; o += 64) __builtin_prefetch(bytes + o);
      __builtin_prefetch(cache_.frames.data() + e.first);
    }
    if (ahead_n_ >= kEntryAt && ahead(kEntryAt - 1).has_frames()) {
      Block& b = ahead(kEntryAt - 1);
      b.row = cache_.index.likely_row(b.hash);
      if (b.row >= 0) {
        const char* e = reinterpret_cast<const char*>(&cache_.entries[static_cast<std::size_t>(b.row)]);
        __builtin_prefetch(e);
        __builtin_prefetch(e + sizeof(StackCache::Entry) - 1);  // (when it straddles two lines)
      }
    }
    // The next blocks, up to kAhead away, each with its slot.
    while (ahead_n_ < kAhead) {
      const Block& last = ahead_n_ > 0 ? ahead(ahead_n_ - 1) : current;
      if (!last.has_frames() || last.blank + 2 >= data.size()) return;
      const std::size_t header = last.blank + 2;
      const char* nl = find_newline(data.data() + header, data.size() - header);
      if (nl == nullptr) return;
      const auto begin = static_cast<std::size_t>(nl - data.data()) + 1;
      for (const std::size_t until = std::min(data.size(), header + kStreamAhead); streamed_ < until; streamed_ += 64)
        __builtin_prefetch(data.data() + streamed_);
      Block& next = ahead(ahead_n_);
      block_at(data, begin, next);
      if (next.has_frames()) cache_.index.prefetch(next.hash);
      ++ahead_n_;
    }
  }

  // The block guessed for `begin`, if any, taken off the guesses.
  bool take_ahead(std::size_t begin, Block& b) {
    std::size_t k = 0;
    while (k < ahead_n_ && ahead(k).begin < begin) ++k;  // (samples of other events pass)
    const bool found = k < ahead_n_ && ahead(k).begin == begin;
    if (found) b = ahead(k++);
    ahead_first_ = (ahead_first_ + k) % kAheadRoom;  // (the guesses stay where they are)
    ahead_n_ -= k;
    if (!found) {
      ahead_n_ = 0;
      // Guesses that keep missing (headers of several lines, comments
      // between samples) cost a search and a hash each: stop guessing.
      if (++ahead_misses_ > 1000 + ahead_hits_) ahead_off_ = true;
    } else {
      ++ahead_hits_;
    }
    return found;
  }

  // Called after a sample's header: true when the frame lines that follow
  // are a known stack, then in frames_, and the scanner is at the empty
  // line ending them.
  bool seen_stack(LineScanner& scanner, std::string_view data) {
    pending_.active = false;
    if (cache_.off) return false;
    const std::size_t begin = scanner.position();
    if (begin == 0) return false;
    Block b;
    if (!take_ahead(begin, b)) block_at(data, begin, b);
    look_ahead(data, b);
    if (!b.has_frames()) return false;                                       // none, or no frames
    const std::string_view block(data.data() + begin, b.blank + 1 - begin);  // (b.blank < data.size())
    std::int64_t row = cache_.index.find(b.hash, [&](std::uint32_t r) {
      const StackCache::Entry& e = cache_.entries[r];
      bool same = e.size == block.size() && std::memcmp(cache_.bytes.data() + e.offset, block.data(), e.size) == 0;
      cache_.mismatches += !same;
      return same;
    });
    if (cache_.mismatches > 1000 + cache_.entries.size()) cache_.off = true;
    if (row < 0) {
      pending_ = {true, begin, b.blank + 1, scanner.line_number(), b.hash};
      ask_for_frames(data, begin, b.blank);
      return false;
    }
    const StackCache::Entry& e = cache_.entries[static_cast<std::size_t>(row)];
    scanner.skip_to(b.blank + 1, e.lines);
    if (e.comm == comms_.number(comm_)) {
      // Recorded in this sample's command: added from its entry alone,
      // without its frames (add_known).
      entry_ = static_cast<std::size_t>(row);
      known_ = true;
      return true;
    }
    frames_.assign(cache_.frames.begin() + e.first, cache_.frames.begin() + e.first + e.count);
    entry_ = static_cast<std::size_t>(row);
    return true;
  }

  // At the empty line ending a sample: keeps the stack just parsed when its
  // lines were the block seen_stack() looked up (all frames: any other line
  // would have started a sample or failed).
  void remember_stack(const LineScanner& scanner) {
    Pending p = pending_;
    pending_.active = false;
    if (!p.active || !in_sample_ || !keep_ || scanner.line_offset() != p.end || cache_.off) return;
    // Bounded by the input: a file of distinct stacks keeps at most an
    // eighth of its size, counting each entry and the frames, calls and
    // functions its replay will hold (short stacks cost more in entries
    // than in bytes).
    const std::size_t held =
        cache_.bytes.size() + cache_.entries.size() * kEntrySize + cache_.frames.size() * 3 * sizeof(FuncId);
    if (held + (p.end - p.begin) + kEntrySize > (part_.end - part_.begin) / 8) return;
    // (Entries count in 32 bits: a part of over 32 GiB stops keeping stacks at 4 GiB of them.)
    if (cache_.bytes.size() + (p.end - p.begin) > UINT32_MAX || cache_.frames.size() + frames_.size() > UINT32_MAX ||
        frames_.size() >= (std::size_t{1} << 29))
      return;
    cache_.index.find_or_add(
        p.hash, [](std::uint32_t) { return false; },
        [&] {
          std::string_view block = part_.input->bytes().substr(part_.begin + p.begin, p.end - p.begin);
          StackCache::Entry e;
          e.offset = static_cast<std::uint32_t>(cache_.bytes.size());
          e.size = static_cast<std::uint32_t>(block.size());
          e.first = static_cast<std::uint32_t>(cache_.frames.size());
          e.count = static_cast<std::uint32_t>(frames_.size());
          e.lines = static_cast<std::uint32_t>(scanner.line_number() - p.header_line - 1);
          cache_.entries.push_back(e);
          cache_.replays.emplace_back();
          cache_.bytes.append(block);
          cache_.frames.insert(cache_.frames.end(), frames_.begin(), frames_.end());
          entry_ = cache_.entries.size() - 1;
          return static_cast<std::uint32_t>(entry_);
        });
  }

  // The cache holds at most an eighth of the part (remember_stack): its
  // arrays are reserved at that bound once, so they never move. Doubling
  // them copied each byte kept about once more and touched twice the
  // pages, each a page fault; pages reserved and never written cost none.
  // Up to 64 MiB each (parts of 512 MiB): address space stays modest under
  // a `ulimit -v`, and beyond it the arrays grow as before.
  void reserve_cache(std::size_t part_size) {
    const std::size_t bound = std::min<std::size_t>(part_size / 8, std::size_t{64} << 20);
    cache_.bytes.reserve(bound);
    cache_.entries.reserve(bound / kEntrySize);
    cache_.replays.reserve(bound / kEntrySize);
    cache_.frames.reserve(bound / (3 * sizeof(FuncId)));
    cache_.replayed.reserve(2 * (bound / (3 * sizeof(FuncId))));  // (calls and functions: about twice the frames)
    // The frame memo's bound: a sixteenth of the part.
    memo_.bytes.reserve(bound / 2);
    // And the profile's tables, at what the part can add: a function or a
    // call each frame line ("\t0 f (d)", 9 bytes with its newline) at
    // most. A later part's fold then appends in place (the one-cycle file:
    // a third of its page faults were these tables' doublings).
    profile.reserve_bound(part_size / 9, part_size / 9);
  }

  bool wanted_process(const Header& h) const {
    bool pid_ok = options_.pids.empty() ||
                  std::find(options_.pids.begin(), options_.pids.end(), h.pid) != options_.pids.end() ||
                  std::find(options_.pids.begin(), options_.pids.end(), h.tid) != options_.pids.end();
    bool comm_ok = options_.comms.empty() ||
                   std::find(options_.comms.begin(), options_.comms.end(), h.comm) != options_.comms.end();
    return pid_ok && comm_ok;
  }

  // Headers of one thread differ only in their time and period: a header
  // that starts with the columns of the last one read in full, then has a
  // time, the same period column and the same event, is read by checking
  // just that (what parse_header would decide, since the tokens before
  // the time are the same bytes).
  struct Shape {
    bool valid = false, has_period = false;
    std::string columns, event;  // `comm pid [cpu]`; `event:`
    std::size_t comm_begin = 0, comm_size = 0;
    std::int64_t pid = -1, tid = -1;
    // The last header read in full's event: its samples are kept (--event),
    // its period is time (is_clock_event).
    bool kept = true, clock = false;
  };

  bool same_shape(std::string_view line, Header& h) const {
    const Shape& s = shape_;
    const std::size_t p = s.columns.size(), n = line.size();
    if (!s.valid || n <= p || !is_blank(line[p]) || !same_bytes(line.data(), s.columns.data(), p)) return false;
    std::size_t i = p;
    auto blanks = [&] {
      while (i < n && is_blank(line[i])) ++i;
    };
    auto digits = [&] {
      std::size_t b = i;
      while (i < n && line[i] >= '0' && line[i] <= '9') ++i;
      return i > b;
    };
    auto token_ends = [&] { return i == n || is_blank(line[i]); };
    blanks();
    const std::size_t time_begin = i;
    if (!digits() || i == n || line[i++] != '.' || !digits() || i == n || line[i++] != ':' || !token_ends())
      return false;
    const std::size_t time_end = i - 1;
    blanks();
    if (s.has_period) {
      std::size_t b = i;
      if (!digits() || !token_ends()) return false;
      h.has_period = parse_u64({line.data() + b, i - b}, h.period);  // (in the line: no substr's check)
      blanks();
    }
    if (s.event.size() > n - i || !same_bytes(line.data() + i, s.event.data(), s.event.size())) return false;
    const std::size_t event_begin = i;
    i += s.event.size();
    if (!token_ends()) return false;
    blanks();
    if (i != n) return false;  // (a frame on the header: read in full)
    h.comm = {line.data() + s.comm_begin, s.comm_size};
    h.pid = s.pid;
    h.tid = s.tid;
    h.event = {line.data() + event_begin, s.event.size() - 1};
    h.time = -1;
    if (options_.keep_timeline) std::from_chars(line.data() + time_begin, line.data() + time_end, h.time);
    return true;
  }

  // After a header read in full: its shape, when it has a time and an
  // event and nothing after them.
  void remember_shape(std::string_view line, const Header& h) {
    if (h.columns_end == 0 || h.event.empty() || !h.rest.empty()) {
      shape_.valid = false;
      return;
    }
    shape_.valid = true;
    shape_.columns.assign(line.substr(0, h.columns_end));
    shape_.event.assign(h.event.data(), h.event.size() + 1);
    shape_.has_period = h.has_period;
    shape_.comm_begin = h.comm_begin;
    shape_.comm_size = h.comm.size();
    shape_.pid = h.pid;
    shape_.tid = h.tid;
  }

  // `known`: the header has the shape of the last one read in full, and so
  // its event, and what follows from the event alone.
  void start_sample(const Header& h, bool known) {
    in_sample_ = true;
    pending_.active = false;
    entry_ = SIZE_MAX;
    known_ = false;
    frames_.clear();
    if (!known) {
      events_.add(h.event);
      shape_.kept = event_.empty() || h.event == event_;
      shape_.clock = is_clock_event(h.event);
    }
    keep_ = shape_.kept;
    if (!keep_) ++other_events_;
    if (keep_ && (!options_.pids.empty() || !options_.comms.empty())) {
      processes_.add(fmt::format("{} (pid {})", h.comm, h.pid));
      if (!wanted_process(h)) {
        keep_ = false;
        ++filtered_;
      }
    }
    if (keep_ && !shape_.clock) untimed_kept_ = true;
    comm_ = h.comm;
    time_ = h.time;
    pid_ = h.pid;
    tid_ = h.tid;
    weight_ = 1;
    if (options_.weight_by_period) {
      if (h.has_period)
        weight_ = static_cast<Cost>(std::min<std::uint64_t>(h.period, INT64_MAX));
      else
        ++missing_period_;
    }
  }

  // `text`: the frame's line from its first non-blank byte, remembered
  // with the function it names (empty: not remembered); `hash`: its hash.
  void add_frame(const Frame& f, std::string_view text, std::uint64_t hash) {
    if (!keep_) return;
    FuncId id;
    // One `[unknown]` per DSO, and a run of them one frame.
    const bool run_once = f.unresolved && !f.python && options_.fold_unknown;
    if (f.python) {
      id = builder_.python_function(f.symbol, f.file);
    } else if (run_once) {
      id = builder_.function("[unknown]", f.dso, f.has_dso, {}, true);
    } else {
      id = builder_.function(f.symbol, f.dso, f.has_dso, {}, f.unresolved);
    }
    remember_frame(text, hash, id, run_once);
    if (run_once && !frames_.empty() && frames_.back() == id) return;
    if (id >= kinds_.size()) {
      kinds_.resize(profile.functions.size(), kOther);
      const Function& fn = profile.functions[id];
      python_seen_ = python_seen_ || fn.python;
      kinds_[id] = fn.python                                    ? kPython
                   : fn.unresolved                              ? kUnresolved
                   : is_interpreter_frame(profile.str(fn.name)) ? kInterpreter
                                                                : kOther;
      python_dso_.resize(kinds_.size(), false);
      std::string_view dso = profile.str(fn.object);
      dso = dso.substr(dso.rfind('/') + 1);
      python_dso_[id] = dso.starts_with("libpython") || dso.starts_with("python");
    }
    frames_.push_back(id);
  }

  // A frame line seen before, byte for byte from its first non-blank
  // byte, names the same function: the sample gets it without parsing the
  // line or looking its symbol and DSO up (a new stack's lines are mostly
  // lines of stacks seen before; the stack cache finds only whole stacks
  // seen before). True when the line was known; `hash` is its hash.
  bool known_frame(std::string_view text, std::uint64_t& hash) {
    FrameMemo& m = memo_;
    if (m.off) return false;
    hash = FlatIndex::hash_bytes(text);
    const std::int64_t at = m.index.find(hash, [&](std::uint32_t r) { return m.key(r) == text; });
    if (at < 0) {
      // Lines that are mostly new (an address in every symbol) cost a
      // hash and a copy each: stop remembering them.
      if (++m.misses > 4096 + 4 * m.hits) m.off = true;
      return false;
    }
    ++m.hits;
    if (!keep_) return true;
    const FrameMemo::Head k = m.head(static_cast<std::uint32_t>(at));
    if (k.run_once && !frames_.empty() && frames_.back() == k.id) return true;
    frames_.push_back(k.id);
    return true;
  }

  // A stack not seen before is read a line at a time, each frame looked up
  // in the memo: a wait for its slot, then for its bytes (with 32 000
  // frames, as the cycle bench file's, four fifths of read_part()'s own
  // time). With a memo past the caches, the slots of the block's frames
  // [begin, end) are asked for first, then the bytes they likely name, so
  // that the waits overlap. Only memory is asked for: what is read is not
  // changed.
  static constexpr std::size_t kFramesAheadAbove = 4096, kFramesAhead = 64;
  void ask_for_frames(std::string_view data, std::size_t begin, std::size_t end) {
    FrameMemo& m = memo_;
    if (m.off || m.index.size() < kFramesAheadAbove) return;
    std::uint64_t hashes[kFramesAhead];
    std::size_t n = 0;
    for (std::size_t at = begin; at < end && n < kFramesAhead;) {
      const char* nl = find_newline(data.data() + at, end - at);
      const std::size_t line_end = nl ? static_cast<std::size_t>(nl - data.data()) : end;
      std::size_t lead = at;
      while (lead < line_end && is_blank(data[lead])) ++lead;
      hashes[n] = FlatIndex::hash_bytes(data.substr(lead, line_end - lead));
      m.index.prefetch(hashes[n++]);
      at = line_end + 1;
    }
    for (std::size_t i = 0; i < n; ++i) {
      const std::int64_t at = m.index.likely_row(hashes[i]);
      if (at >= 0) __builtin_prefetch(m.bytes.data() + at);
    }
  }

  void remember_frame(std::string_view text, std::uint64_t hash, FuncId id, bool run_once) {
    FrameMemo& m = memo_;
    if (text.empty() || m.off) return;
    // Bounded by the part: at most a sixteenth of it.
    const std::size_t grown = m.bytes.size() + sizeof(FrameMemo::Head) + text.size();
    if (grown > (part_.end - part_.begin) / 16 || grown > UINT32_MAX - 1 || text.size() > INT32_MAX) return;
    m.index.find_or_add(
        hash, [&](std::uint32_t r) { return m.key(r) == text; },
        [&] {
          const auto at = static_cast<std::uint32_t>(m.bytes.size());
          const FrameMemo::Head k{static_cast<std::uint32_t>(text.size()), id, run_once};
          m.bytes.append(reinterpret_cast<const char*>(&k), sizeof k);
          m.bytes.append(text);
          return at;
        });
  }

  void flush() {
    if (known_) {
      add_known();
    } else if (in_sample_ && keep_ && !frames_.empty()) {
      SampleCounts counts = count_python_native();
      if (options_.python != formats::ReadOptions::PythonView::kOff) counts.python = python_view();
      add_sample(counts);
      ++kept_;
      time_sample();
    } else if (in_sample_ && keep_) {
      builder_.add_frameless_sample(weight_, comm_);
      ++frameless_;
      time_sample();
    }
    in_sample_ = false;
    known_ = false;
    frames_.clear();
  }

  // What a sample counted besides its cells (the same for every sample of
  // one stack in one command, while python_seen_ stays as it is).
  struct SampleCounts {
    bool python = false;  // python_view() kept Python frames
    bool native = false;  // a Python process's sample without them (python_native_)
    bool cut = false;     // ... cut short (python_cut_)
  };

  // A sample of a stack whose replay was recorded in the same command
  // (its frames, after the Python view, depend on its bytes alone): what
  // flush() does with a sample's frames, from the entry alone. Its frames
  // hold a Python function only if python_seen_ was set when it was
  // recorded, and that stays set: the counts recorded then hold.
  void add_known() {
    StackCache::Entry& e = cache_.entries[entry_];
    if (!python_seen_ && e.native) {
      ++python_native_;
      python_cut_ += e.cut;
    }
    python_samples_ += e.python;
    // Its weight waits in the entry and is added to the cells once, at the
    // end (the same sums: whole numbers, and saturating adds of
    // non-negative ones do not depend on grouping); a timeline needs each
    // sample's tree node now.
    if (options_.keep_timeline)
      builder_.replay(cache_.view(entry_), weight_, weight_);
    else
      e.pending = saturating_add(e.pending, weight_);
    ++kept_;
    time_sample();
  }

  // A sample read frame by frame; a stack of the cache (entry_) records
  // what it adds to, for add_known().
  void add_sample(const SampleCounts& counts) {
    if (entry_ == SIZE_MAX) {
      builder_.add_sample(frames_, weight_, weight_, comm_);
      return;
    }
    StackCache::Entry& e = cache_.entries[entry_];
    add_pending(entry_);  // (to the cells of the process it was recorded in)
    builder_.add_sample(frames_, weight_, weight_, comm_, cache_.scratch);
    keep_replay(entry_);
    e.comm = cache_.scratch.valid ? comms_.number(comm_) : StackCache::kNoComm;
    e.python = counts.python;
    e.native = counts.native;
    e.cut = counts.cut;
  }

  // The replay add_sample() just filled, as entry `r`'s. A stack recorded
  // again (in another command) has the same calls and functions: the same
  // frames, and python_view() changes only frames holding a Python
  // function, which exist only once python_seen_ is set. (The room is
  // checked all the same.)
  void keep_replay(std::size_t r) {
    const detail::StackBuilder::Replay& from = cache_.scratch;
    StackCache::Replay& to = cache_.replays[r];
    const std::size_t n = from.calls.size() + from.distinct.size();
    if (n > to.room) {
      to.begin = cache_.replayed.size();
      to.room = static_cast<std::uint32_t>(n);
      cache_.replayed.resize(to.begin + n);
    }
    to.leaf = from.leaf;
    to.node = from.node;
    to.calls = static_cast<std::uint32_t>(from.calls.size());
    to.distinct = static_cast<std::uint32_t>(from.distinct.size());
    std::uint32_t* at = cache_.replayed.data() + to.begin;
    std::copy(from.calls.begin(), from.calls.end(), at);
    std::copy(from.distinct.begin(), from.distinct.end(), at + from.calls.size());
  }

  void add_pending(std::size_t entry) {
    StackCache::Entry& e = cache_.entries[entry];
    if (e.pending == 0) return;
    builder_.replay(cache_.view(entry), e.pending, e.pending);
    e.pending = 0;
  }

  // A sample of a Python process with no Python frame (py::): cut short
  // when its outermost frame is unresolved, as perf leaves the stacks of
  // an interpreter built without frame pointers.
  SampleCounts count_python_native() {
    SampleCounts counts;
    if (python_seen_) return counts;
    bool python = comm_.starts_with("python");
    for (std::size_t i = 0; i < frames_.size() && !python; ++i) python = python_dso_[frames_[i]];
    if (!python) return counts;
    counts.native = true;
    counts.cut = kinds_[frames_.back()] == kUnresolved;
    ++python_native_;
    python_cut_ += counts.cut;
    return counts;
  }

  // The sample just added on the timeline, when asked for and timed.
  void time_sample() {
    if (options_.keep_timeline && time_ >= 0) builder_.time_last_sample(time_, -1, builder_.track(pid_, tid_, comm_));
  }

  // python.h: in a sample with a Python frame, drops the interpreter's
  // frames, and unresolved frames above the innermost Python frame.
  // True when it did (the sample counts in python_samples_).
  bool python_view() {
    if (!python_seen_) return false;  // (no py:: frame yet: nothing to look for)
    std::size_t innermost = frames_.size();
    for (std::size_t i = 0; i < frames_.size(); ++i)
      if (kinds_[frames_[i]] == kPython) {
        innermost = i;
        break;
      }
    if (innermost == frames_.size()) return false;
    ++python_samples_;
    std::size_t out = 0;
    for (std::size_t i = 0; i < frames_.size(); ++i) {
      Kind k = kinds_[frames_[i]];
      if (k == kInterpreter || (k == kUnresolved && i > innermost)) continue;
      if (k == kUnresolved && out > 0 && frames_[out - 1] == frames_[i]) continue;  // a run, once more
      frames_[out++] = frames_[i];
    }
    frames_.resize(out);
    return true;
  }

  detail::StackBuilder builder_;
  std::string_view comm_;  // the current sample's command (in the input)
  const formats::ReadOptions& options_;
  std::string event_;
  bool event_defaulted_ = false;
  std::size_t other_events_ = 0;  // samples of other events, left out
  std::size_t frameless_ = 0;     // kept samples without a frame
  Part part_{};
  Handoff* handoff_ = nullptr;
  std::string path_;
  bool in_sample_ = false;
  bool keep_ = true;
  Cost weight_ = 1;
  double time_ = -1;  // the current sample's time (seconds), or -1
  std::int64_t pid_ = -1, tid_ = -1;
  std::vector<FuncId> frames_;
  StackCache cache_;
  // Frame lines seen before and the functions they name (known_frame()):
  // each a head and the line's bytes after it in one array, found by the
  // head's place, so a lookup reads the index's slot and one place.
  struct FrameMemo {
    struct Head {
      std::uint32_t size = 0;
      FuncId id = 0;
      bool run_once = false;  // an `[unknown]` whose run is one frame
    };
    Head head(std::uint32_t at) const {
      Head k;
      std::memcpy(&k, bytes.data() + at, sizeof k);
      return k;
    }
    std::string_view key(std::uint32_t at) const { return {bytes.data() + at + sizeof(Head), head(at).size}; }
    FlatIndex index;
    std::string bytes;
    std::size_t hits = 0, misses = 0;
    bool off = false;
  };
  FrameMemo memo_;
  Pending pending_;
  std::size_t entry_ = SIZE_MAX;  // the current sample's stack in cache_, if any
  Shape shape_;
  std::size_t blank_ = 0, blank_from_ = 0;  // the last search for a blank line: its result, its start
  bool blank_searched_ = false;
  // The next samples' blocks, nearest first: a ring of kAheadRoom from
  // ahead_first_ (each sample took its own off the front, and moving the
  // rest was a call of memmove a sample).
  static constexpr std::size_t kAheadRoom = 8;
  static_assert(kAhead <= kAheadRoom);
  Block ahead_[kAheadRoom];
  std::size_t ahead_first_ = 0, ahead_n_ = 0, ahead_hits_ = 0, ahead_misses_ = 0;
  Block& ahead(std::size_t k) { return ahead_[(ahead_first_ + k) % kAheadRoom]; }
  bool ahead_off_ = false;
  enum Kind : std::uint8_t { kOther, kPython, kInterpreter, kUnresolved };
  std::vector<Kind> kinds_;       // per function, for the Python view
  std::vector<bool> python_dso_;  // per function: in libpython or a python binary (looked at once)
  std::size_t python_samples_ = 0;
  std::size_t python_native_ = 0, python_cut_ = 0;  // samples of Python processes without py::, cut short
  bool python_seen_ = false;                        // a py:: function exists
  NameSet events_, processes_;
  NameSet comms_;             // the commands of samples added from the stack cache, numbered
  bool known_ = false;        // the current sample is added by add_known()
  std::size_t streamed_ = 0;  // the input's bytes before it were prefetched (look_ahead)
  std::size_t kept_ = 0, filtered_ = 0;
  bool untimed_kept_ = false;  // a kept sample of an event whose period is not time
  std::size_t missing_period_ = 0;
};

}  // namespace

bool sniff(std::string_view head) {
  LineScanner scanner(head);
  std::string_view line;
  bool side_bands = false;
  while (scanner.next(line)) {
    if (line.starts_with("# ========")) return true;
    if (line.empty() || line[0] == '#') continue;
    if (side_band(line)) {  // (a head of mmap records before the first sample)
      side_bands = true;
      continue;
    }
    Header h;
    if (!parse_header(line, h)) return false;
    Frame f;
    // What follows the event: the one frame of a sample recorded without
    // -g, or a tracepoint's fields (`sched:sched_switch: prev_comm=sh ...`),
    // which only a header with a time and an event carries.
    if (!h.rest.empty()) return parse_frame(h.rest, f) || (h.columns_end != 0 && !h.event.empty());
    std::string_view next;
    // (A header naming no event, `comm 1234`, is only one with a frame
    // after it: a line of collapsed stacks looks the same.)
    if (!scanner.next(next)) return !h.event.empty();
    // A sample with no frames (`--max-stack=0`, a recording without
    // user call chains) is its header and the empty line ending it.
    if (next.empty()) return !h.event.empty();
    std::size_t lead = 0;
    while (lead < next.size() && is_blank(next[lead])) ++lead;
    return next[0] == '\t' && parse_frame(next.substr(lead), f);
  }
  return side_bands;
}

namespace {

// The event of the first sample header (empty when it names none). A line
// indented with spaces may be one, as the reader takes it: perf script
// without -g (or with -G) pads the command to 16 columns.
std::string first_event(std::string_view bytes) {
  LineScanner scanner(bytes);
  std::string_view line;
  while (scanner.next(line)) {
    if (line.empty() || line[0] == '#' || line[0] == '\t' || side_band(line)) continue;
    Header h;
    if (parse_header(line, h)) return std::string(h.event);
  }
  return {};
}

// How much of the file to read. perf script ends every line with a
// newline, so a file that does not end with one was cut short (perf or the
// pipe killed, a full disk, `head -c`): its last sample is left out, with a
// warning, where reading the cut line would fail on a header cut in two or
// take a frame cut in two (`7f12 main+0x1 (/usr/bi`) for a symbol.
std::size_t readable_end(const InputFile& in, Diagnostics& diag) {
  const std::string_view b = in.bytes();
  if (b.empty() || b.back() == '\n') return b.size();
  const std::size_t last_line = b.rfind('\n') + 1;  // (npos + 1: the file is one line)
  // The line before: none or empty, the cut one began a sample; a frame (a
  // tab), or the cut one is a frame, it is inside a sample with frames,
  // which began after the last empty line; else both are samples of one
  // line (no -g, headers maybe padded with spaces).
  std::string_view before;
  if (last_line >= 1) {
    const std::size_t begin = last_line >= 2 ? b.rfind('\n', last_line - 2) + 1 : 0;  // (npos + 1: the first line)
    before = b.substr(begin, last_line - 1 - begin);
  }
  std::size_t end = last_line;
  if (!before.empty() && (b[last_line] == '\t' || before[0] == '\t')) {
    const std::size_t blank = b.rfind("\n\n", last_line - 2);
    end = blank == std::string_view::npos ? 0 : blank + 2;
  }
  // Line numbers by one count over the file (the sample's first line, then on to the cut one).
  const auto newlines = [&](std::size_t from, std::size_t to) {
    return static_cast<std::size_t>(
        std::count(b.begin() + static_cast<std::ptrdiff_t>(from), b.begin() + static_cast<std::ptrdiff_t>(to), '\n'));
  };
  const std::size_t sample_line = newlines(0, end) + 1, cut_line = sample_line + newlines(end, last_line);
  diag.warn(at_line(in.path(), cut_line, b.size() - last_line + 1,
                    end == last_line
                        ? std::string("the file ends inside this line (no newline at its end: perf script's "
                                      "output cut short); the line was left out")
                        : fmt::format("the file ends inside this line (no newline at its end: perf script's "
                                      "output cut short); its sample, from line {}, was left out",
                                      sample_line)));
  return end;
}

// Splits a large file in two at a sample boundary (an empty line) so both
// cores can parse it; small files stay whole. `end`: what readable_end() keeps.
std::vector<Part> plan_parts(const InputFile& in, std::size_t end, std::size_t split_above) {
  std::string_view b = in.bytes().substr(0, end);
  std::size_t cut = b.size() > split_above ? b.find("\n\n", b.size() / 2) : std::string_view::npos;
  if (cut == std::string_view::npos) return {{&in, 0, b.size()}};
  return {{&in, 0, cut + 2}, {&in, cut + 2, b.size()}};
}

// The tail of the other part, for the thread that finished its own first
// (two parts): as much as makes both end together, by how fast each went,
// when that is enough to pay for learning its stacks anew.
class Tail {
 public:
  Tail(const InputFile& input, const std::vector<Part>& parts, std::vector<Handoff>& handoffs)
      : input_(input), parts_(parts), handoffs_(handoffs), start_(std::chrono::steady_clock::now()) {}

  /// The part to read from part `other`'s tail, claimed, or none.
  std::optional<Part> take(std::size_t other) {
    if (parts_.size() != 2 || taken_.exchange(true)) return std::nullopt;
    const std::size_t at = handoffs_[other].at();
    if (at == Handoff::kNotStarted || at == Handoff::kFinished) return std::nullopt;
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const Part& mine = parts_[1 - other];
    const Part& theirs = parts_[other];
    if (seconds <= 0 || at <= theirs.begin || at >= theirs.end) return std::nullopt;
    const double my_rate = static_cast<double>(mine.end - mine.begin) / seconds;
    const double their_rate = static_cast<double>(at - theirs.begin) / seconds;
    const double left = static_cast<double>(theirs.end - at);
    // Both end together: (left - x) / their_rate == x / my_rate + kNewPart.
    const double x = (left / their_rate - kNewPartSeconds) / (1 / their_rate + 1 / my_rate);
    if (x < kLeastBytes || left - x < kMargin) return std::nullopt;
    return claim(other, theirs.end - static_cast<std::size_t>(x));
  }

  /// Tests: the tail of the second part from the first sample at or after
  /// byte `at`, claimed before either thread starts (read after them).
  std::optional<Part> plan(std::size_t at) {
    if (parts_.size() != 2 || at < parts_[1].begin + 2 || taken_.exchange(true)) return std::nullopt;
    return claim(1, at - 2);
  }

  std::size_t from = 0;
  std::unique_ptr<Reader> reader;
  std::optional<Error> error;

 private:
  // A part's stacks learnt anew (scatter-long: 6.5 ms of CPU for a second
  // part), the least worth taking, and what the other reader may have read
  // past where it last said it was (it says so every 64 samples).
  static constexpr double kNewPartSeconds = 0.008;
  static constexpr double kLeastBytes = 4 << 20, kMargin = 2 << 20;
  // The tail of part `other` from the first sample that starts after an
  // empty line at or after byte `search`.
  std::optional<Part> claim(std::size_t other, std::size_t search) {
    const Part& theirs = parts_[other];
    const std::size_t blank = input_.bytes().substr(0, theirs.end).find("\n\n", search);
    if (blank == std::string_view::npos || blank + 2 >= theirs.end) return std::nullopt;
    from = other;
    handoffs_[other].claim(blank + 2);
    return Part{&input_, blank + 2, theirs.end};
  }

  const InputFile& input_;
  const std::vector<Part>& parts_;
  std::vector<Handoff>& handoffs_;
  std::chrono::steady_clock::time_point start_;
  std::atomic<bool> taken_{false};
};

}  // namespace

Expected<Profile> read(const InputFile& input, const formats::ReadOptions& options, Diagnostics& diag,
                       std::size_t split_above, std::size_t tail_at) {
  const std::size_t end = readable_end(input, diag);
  std::vector<Part> parts = plan_parts(input, end, split_above);
  // Two parts' profiles are held together before they are folded: each
  // is read within half the memory budget (each within the whole, a file
  // of distinct functions past the budget was read whole by two halves
  // under it), and when either fails the file is read again on this core
  // (below), so that the budget's verdict and any error are one pass's.
  formats::ReadOptions part_options = options;
  if (parts.size() > 1 && options.memory_budget)
    part_options.memory_budget = std::max<std::size_t>(options.memory_budget / 2, 1);
  std::vector<std::unique_ptr<Reader>> readers;
  std::vector<std::optional<Error>> errors(parts.size());
  // Without --event, the first sample's event is kept, as
  // stackcollapse-perf.pl does: summing cycles and page faults means nothing.
  std::string event = options.event.empty() ? first_event(input.bytes().substr(0, end)) : options.event;
  for (std::size_t i = 0; i < parts.size(); ++i)
    readers.push_back(std::make_unique<Reader>(part_options, event, options.event.empty()));
  // Two workers take parts in turn; the merge below is in part order, so
  // the result does not depend on which worker read what. The first done
  // may take the tail of the other's part (Handoff).
  std::atomic<std::size_t> next{0};
  std::vector<Handoff> handoffs(parts.size());
  Tail tail(input, parts, handoffs);
  const std::optional<Part> planned = tail_at ? tail.plan(tail_at) : std::nullopt;
  auto read_one = [&](Reader& reader, const Part& part, Handoff* handoff, std::optional<Error>& error) {
    try {
      if (auto ok = reader.read_part(part, handoff); !ok) error = ok.error();
      reader.drop_cache();
    } catch (const std::bad_alloc&) {
      error = bad_input(fmt::format("{}: out of memory while reading it", input.path()));
    }
  };
  auto work = [&] {
    std::size_t mine = parts.size();
    for (std::size_t i; (i = next.fetch_add(1)) < parts.size();) {
      read_one(*readers[i], parts[i], parts.size() == 2 ? &handoffs[i] : nullptr, errors[i]);
      mine = i;
    }
    if (mine < parts.size())
      if (std::optional<Part> taken = tail.take(1 - mine)) {
        tail.reader = std::make_unique<Reader>(part_options, event, options.event.empty());
        read_one(*tail.reader, *taken, nullptr, tail.error);
      }
  };
  BesideThread helper;
  if (parts.size() > 1) helper = BesideThread::try_start(work);  // (none: this thread reads every part)
  work();
  if (helper.joinable()) helper.join();
  if (planned && handoffs[1].given()) {
    tail.reader = std::make_unique<Reader>(part_options, event, options.event.empty());
    read_one(*tail.reader, *planned, nullptr, tail.error);
  }
  if (tail.reader && handoffs[tail.from].given()) {  // (refused: its reader read on to its end)
    readers.insert(readers.begin() + static_cast<std::ptrdiff_t>(tail.from) + 1, std::move(tail.reader));
    errors.insert(errors.begin() + static_cast<std::ptrdiff_t>(tail.from) + 1, tail.error);
  }
  if (parts.size() > 1 && std::any_of(errors.begin(), errors.end(), [](const auto& e) { return e.has_value(); })) {
    readers.clear();
    errors.assign(1, std::nullopt);
    readers.push_back(std::make_unique<Reader>(options, event, options.event.empty()));
    read_one(*readers[0], Part{&input, 0, end}, nullptr, errors[0]);
  }
  for (const auto& e : errors)
    if (e) return *e;
  for (std::size_t i = 1; i < readers.size(); ++i) {
    if (auto ok = readers[0]->absorb(*readers[i]); !ok) return ok.error();
    readers[i].reset();
  }
  if (auto ok = readers[0]->finish(diag); !ok) return ok.error();
  join_threads(readers[0]->profile);  // (a thread the halves name apart)
  readers[0]->profile.label_style = LabelStyle::kName;
  return std::move(readers[0]->profile);
}

}  // namespace graphgen::perf
