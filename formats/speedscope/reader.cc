#include "speedscope/reader.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <cmath>
#include <optional>
#include <unordered_map>

#include "common/json_doc.h"
#include "common/json_scan.h"
#include "common/narrow_array.h"
#include "common/units.h"
#include "graphgen/analysis/stacks.h"
#include "graphgen/text.h"

namespace graphgen::speedscope {

namespace {

namespace od = simdjson::ondemand;

struct Frame {
  std::string name, file;
  std::int64_t line = 0;
};

// One profile as the file gives it, checked once the frames are known.
struct Raw {
  std::string name, unit;
  bool evented = false;
  std::size_t offset = 0;                                     // of the profile object
  formats::NarrowArray<std::uint16_t, std::uint32_t> frames;  // the samples' frames, one after another
  std::vector<std::uint32_t> sample_begin{0};                 // sample k: frames[begin[k], begin[k+1])
  std::vector<std::size_t> sample_offset;                     // (the general path's, for messages)
  formats::NarrowArray<std::int32_t, double> weights;
  std::size_t weights_offset = 0;
  struct Ev {
    bool open = false;
    std::uint32_t frame = 0;
    double at = 0;
    std::size_t offset = 0;
  };
  // An evented profile's events, a column each (the times in a NarrowArray;
  // the offsets are the general path's, for its messages).
  struct Events {
    std::vector<std::uint32_t> frames;
    std::vector<bool> open;
    formats::NarrowArray<std::int32_t, double> at;
    std::vector<std::size_t> offsets;
    std::size_t size() const { return frames.size(); }
    bool empty() const { return frames.empty(); }
    void push_back(const Ev& ev, bool with_offset) {
      frames.push_back(ev.frame);
      open.push_back(ev.open);
      at.push_back(ev.at);
      if (with_offset) offsets.push_back(ev.offset);
    }
    /// Event i (at the profile's offset when it has none of its own).
    Ev operator()(std::size_t i, std::size_t profile_offset) const {
      return {open[i], frames[i], at[i], i < offsets.size() ? offsets[i] : profile_offset};
    }
  } events;
  double start = 0, end = 0;
  std::size_t samples() const { return sample_begin.size() - 1; }
  std::size_t sample_at(std::size_t s) const { return s < sample_offset.size() ? sample_offset[s] : offset; }
};

class Reader {
 public:
  Reader(const InputFile& in, const formats::ReadOptions& options, Diagnostics& diag)
      : in_(in), options_(options), diag_(diag), json_(in) {}
  /// The same over `text` in place of the input's bytes (the streaming
  /// path's: the document with its profiles' samples and weights empty).
  Reader(const InputFile& in, const formats::ReadOptions& options, Diagnostics& diag, std::string_view text)
      : in_(in), options_(options), diag_(diag), json_(in, text) {}

  Expected<Profile> read() {
    if (auto ok = parse(); !ok) return ok.error();
    return build();
  }

  /// The document read, not yet checked or built.
  Expected<bool> parse() {
    if (auto ok = json_.open(); !ok) return ok.error();
    od::object root;
    if (auto e = json_.doc().get_object().get(root); e)
      return fail("a speedscope file {\"shared\": ..., \"profiles\": ...}", e);
    bool shared = false, profiles = false;
    std::size_t profiles_at = 0;  // (where "profiles" begins)
    for (auto field : root) {
      std::string_view key;
      if (auto e = field.unescaped_key().get(key); e) return fail("a member name", e);
      if (key == "shared") {
        if (auto ok = shared_frames(field.value()); !ok) return ok.error();
        shared = true;
      } else if (key == "profiles") {
        profiles_at = here();
        if (auto ok = profile_list(field.value()); !ok) return ok.error();
        profiles = true;
      } else if (key == "exporter") {
        std::string_view exporter;
        if (!field.value().get_string().get(exporter)) running_lines_ = exporter.starts_with("py-spy");
      }
    }
    if (!shared || !profiles)
      return bad_input(
          fmt::format("{}: expected the members \"shared\" and \"profiles\" of a speedscope file, found "
                      "no {}",
                      where(json_.closing()), shared ? "\"profiles\"" : "\"shared\""));
    if (raw_.empty())
      return bad_input(
          fmt::format("{}: expected at least one profile in \"profiles\", found none", where(profiles_at)));
    return true;
  }

  /// The profiles as parse() left them (the streaming path fills in their
  /// samples and weights).
  std::vector<Raw>& profiles() { return raw_; }
  bool within_budget() { return static_cast<bool>(over_budget()); }

  Expected<Profile> build();

 private:
  std::size_t here() { return json_.here(); }
  std::string where(std::size_t offset) const { return json_.where(offset); }
  Error fail(std::string_view what, simdjson::error_code e) { return json_.fail(what, e); }

  /// The memory budget, counted as the general path counts it (the
  /// streaming path's profiles as if they had their offsets).
  Expected<bool> over_budget() {
    std::size_t bytes = frames_.size() * sizeof(Frame);
    for (const Raw& r : raw_)
      bytes +=
          r.frames.bytes() + r.sample_begin.size() * 4 + r.samples() * 8 + r.weights.bytes() + r.events.size() * 16;
    if (options_.memory_budget && bytes > options_.memory_budget)
      return bad_input(formats::over_budget_message(in_.path(), options_.memory_budget, frames_.size(), 1));
    return true;
  }

  Expected<bool> shared_frames(od::value value) {
    od::object shared;
    if (auto e = value.get_object().get(shared); e) return fail("\"shared\": {\"frames\": [...]}", e);
    for (auto field : shared) {
      std::string_view key;
      if (auto e = field.unescaped_key().get(key); e) return fail("a member name", e);
      if (key != "frames") continue;
      od::array list;
      if (auto e = field.value().get_array().get(list); e) return fail("\"frames\": [{\"name\": ...}, ...]", e);
      for (auto item : list) {
        od::object obj;
        const std::size_t at = here();
        if (auto e = item.get_object().get(obj); e) return fail("a frame {\"name\": ...}", e);
        Frame f;
        bool named = false;
        for (auto m : obj) {
          std::string_view k, s;
          if (auto e = m.unescaped_key().get(k); e) return fail("a member name", e);
          od::value v = m.value();
          bool null = false;
          if (auto e = v.is_null().get(null); !e && null) continue;  // py-spy writes "col": null
          if (k == "name" || k == "file") {
            if (auto e = v.get_string().get(s); e) return fail("a string", e);
            (k == "name" ? f.name : f.file) = std::string(s);
            named |= k == "name";
          } else if (k == "line") {
            double line = 0;
            if (auto e = v.get_double().get(line); e) return fail("a line number", e);
            f.line = std::isfinite(line) && line > 0 && line < 1e15 ? static_cast<std::int64_t>(line) : 0;
          }
        }
        if (!named)
          return bad_input(fmt::format("{}: expected \"name\" in frame {}, found none", where(at), frames_.size()));
        frames_.push_back(std::move(f));
        if (frames_.size() % 4096 == 0)
          if (auto ok = over_budget(); !ok) return ok.error();
      }
    }
    return true;
  }

  Expected<bool> profile_list(od::value value) {
    od::array list;
    if (auto e = value.get_array().get(list); e) return fail("\"profiles\": [{\"type\": ...}, ...]", e);
    for (auto item : list) {
      Raw r;
      r.offset = here();
      od::object obj;
      if (auto e = item.get_object().get(obj); e)
        return fail("a profile {\"type\": \"sampled\" | \"evented\", ...}", e);
      std::string type;
      for (auto m : obj) {
        std::string_view k, s;
        if (auto e = m.unescaped_key().get(k); e) return fail("a member name", e);
        od::value v = m.value();
        if (k == "type" || k == "name" || k == "unit") {
          if (auto e = v.get_string().get(s); e) return fail("a string", e);
          (k == "type" ? type : k == "name" ? r.name : r.unit) = std::string(s);
        } else if (k == "startValue" || k == "endValue") {
          double x = 0;
          if (auto e = v.get_double().get(x); e) return fail("a number", e);
          (k == "startValue" ? r.start : r.end) = x;
        } else if (k == "samples") {
          if (auto ok = samples(v, r); !ok) return ok.error();
        } else if (k == "weights") {
          if (auto ok = weights(v, r); !ok) return ok.error();
        } else if (k == "events") {
          if (auto ok = events(v, r); !ok) return ok.error();
        }
      }
      if (type != "sampled" && type != "evented")
        return bad_input(fmt::format("{}: expected a profile of \"type\": \"sampled\" or \"evented\", found {}",
                                     where(r.offset), type.empty() ? "no type" : quote_input(type)));
      r.evented = type == "evented";
      raw_.push_back(std::move(r));
      if (auto ok = over_budget(); !ok) return ok.error();
    }
    return true;
  }

  Expected<bool> samples(od::value value, Raw& r) {
    od::array list;
    if (auto e = value.get_array().get(list); e) return fail("\"samples\": [[frame, ...], ...]", e);
    for (auto item : list) {
      r.sample_offset.push_back(here());
      od::array stack;
      if (auto e = item.get_array().get(stack); e) return fail("a sample [frame, ...]", e);
      for (auto x : stack) {
        std::uint64_t i = 0;
        if (auto e = x.get_uint64().get(i); e) return fail("a frame index", e);
        r.frames.push_back(i > UINT32_MAX ? UINT32_MAX : static_cast<std::uint32_t>(i));
      }
      r.sample_begin.push_back(static_cast<std::uint32_t>(r.frames.size()));
      if (r.samples() % 4096 == 0)
        if (auto ok = over_budget(); !ok) return ok.error();
    }
    return true;
  }

  Expected<bool> weights(od::value value, Raw& r) {
    r.weights_offset = here();
    od::array list;
    if (auto e = value.get_array().get(list); e) return fail("\"weights\": [number, ...]", e);
    for (auto x : list) {
      double w = 0;
      if (auto e = x.get_double().get(w); e) return fail("a weight", e);
      r.weights.push_back(w);
    }
    return true;
  }

  Expected<bool> events(od::value value, Raw& r) {
    od::array list;
    if (auto e = value.get_array().get(list); e) return fail("\"events\": [{\"type\": \"O\", ...}, ...]", e);
    for (auto item : list) {
      Raw::Ev ev;
      ev.offset = here();
      od::object obj;
      if (auto e = item.get_object().get(obj); e) return fail("an event {\"type\", \"frame\", \"at\"}", e);
      std::string_view type;
      for (auto m : obj) {
        std::string_view k;
        if (auto e = m.unescaped_key().get(k); e) return fail("a member name", e);
        if (k == "type") {
          if (auto e = m.value().get_string().get(type); e) return fail("\"O\" or \"C\"", e);
        } else if (k == "frame") {
          std::uint64_t i = 0;
          if (auto e = m.value().get_uint64().get(i); e) return fail("a frame index", e);
          ev.frame = i > UINT32_MAX ? UINT32_MAX : static_cast<std::uint32_t>(i);
        } else if (k == "at") {
          if (auto e = m.value().get_double().get(ev.at); e) return fail("a number", e);
        }
      }
      if (type != "O" && type != "C")
        return bad_input(fmt::format("{}: expected an event of \"type\": \"O\" or \"C\", found {}", where(ev.offset),
                                     type.empty() ? "no type" : quote_input(type)));
      ev.open = type == "O";
      r.events.push_back(ev, true);
      if (r.events.size() % 4096 == 0)
        if (auto ok = over_budget(); !ok) return ok.error();
    }
    return true;
  }

  Expected<bool> check(const Raw& r, std::size_t k) {
    if (r.unit != raw_[0].unit)
      return bad_input(fmt::format("{}: expected every profile in unit {} (as profile 0), found {} in profile {}",
                                   where(r.offset), quote_input(raw_[0].unit), quote_input(r.unit), k));
    if (!r.evented && r.weights.size() != r.samples())
      return bad_input(fmt::format("{}: expected one weight per sample in profile {}, found {} weights for {} samples",
                                   where(r.weights_offset ? r.weights_offset : r.offset), k, r.weights.size(),
                                   r.samples()));
    for (std::size_t s = 0; s < r.samples(); ++s)
      for (std::uint32_t i = r.sample_begin[s]; i < r.sample_begin[s + 1]; ++i)
        if (r.frames[i] >= frames_.size())
          return bad_input(fmt::format("{}: sample {} of profile {} names frame {}, but \"shared\".\"frames\" has {}",
                                       where(r.sample_at(s)), s, k, r.frames[i], frames_.size()));
    for (std::size_t i = 0; i < r.events.size(); ++i)
      if (r.events.frames[i] >= frames_.size())
        return bad_input(fmt::format("{}: an event of profile {} names frame {}, but \"shared\".\"frames\" has {}",
                                     where(r.events(i, r.offset).offset), k, r.events.frames[i], frames_.size()));
    for (std::size_t w = 0; w < r.weights.size(); ++w)
      if (!std::isfinite(r.weights[w]))
        return bad_input(fmt::format("{}: expected finite weights in profile {}", where(r.offset), k));
    return true;
  }

  // Whether every weight and event time is a whole number: integer costs.
  bool integral() const {
    auto whole = [](double v) { return std::fabs(v) < 9e15 && v == std::floor(v); };
    for (const Raw& r : raw_) {
      for (std::size_t w = 0; w < r.weights.size(); ++w)
        if (!whole(r.weights[w])) return false;
      for (std::size_t i = 0; i < r.events.size(); ++i)
        if (!whole(r.events.at[i])) return false;
    }
    return true;
  }

  FuncId function(std::uint32_t frame) {
    if (function_of_.size() < frames_.size()) function_of_.resize(frames_.size(), UINT32_MAX);
    FuncId& f = function_of_[frame];
    if (f != UINT32_MAX) return f;
    const Frame& fr = frames_[frame];
    std::string key = fr.name + '\0' + fr.file + '\0' + std::to_string(fr.line);
    auto [it, fresh] = by_identity_.try_emplace(std::move(key), 0);
    if (fresh) {
      Function fn;
      fn.name = p_.strings.intern(fr.name);
      if (!fr.file.empty()) fn.file = p_.strings.intern(fr.file);
      fn.line = fr.line;
      it->second = p_.add_function(fn);
    }
    return f = it->second;
  }

  Expected<bool> add_evented(const Raw& r, std::size_t k);
  void add(const std::vector<FuncId>& leaf_first, double weight);

  const InputFile& in_;
  const formats::ReadOptions& options_;
  Diagnostics& diag_;
  formats::JsonDocument json_;
  std::vector<Frame> frames_;
  std::vector<Raw> raw_;
  bool running_lines_ = false;  // py-spy's file: a frame's line is the one being run
  Profile p_;
  std::optional<detail::StackBuilder> builder_;
  std::vector<FuncId> function_of_;
  std::unordered_map<std::string, FuncId> by_identity_;
  // Building: the value scale, the profile's process (several profiles),
  // and each function's row in the current location.
  double scale_ = 1;
  bool floating_ = false;
  std::string process_;
  std::vector<std::uint32_t> rows_;
  std::vector<std::size_t> seen_;
  std::size_t stack_count_ = 0;
  bool located_ = false;  // several profiles: each a Location
};

// One stack of the current profile: into the model and its location.
void Reader::add(const std::vector<FuncId>& leaf_first, double weight) {
  const Cost c = floating_ ? float_cost(weight * scale_) : static_cast<Cost>(std::llround(weight));
  builder_->add_sample(leaf_first, &c, process_);
  ++stack_count_;
  if (!located_) return;
  if (seen_.size() < p_.functions.size()) seen_.resize(p_.functions.size(), 0);
  bool leaf = true;
  for (FuncId f : leaf_first) {
    const std::uint32_t row = p_.location_row(f, rows_);
    if (leaf) p_.location_self[row] = p_.add(0, p_.location_self[row], c);
    leaf = false;
    if (seen_[f] == stack_count_) continue;
    seen_[f] = stack_count_;
    p_.location_total[row] = p_.add(0, p_.location_total[row], c);
  }
}

// An evented profile: between two events, the open frames are a stack
// that lasts the time between them.
Expected<bool> Reader::add_evented(const Raw& r, std::size_t k) {
  std::vector<std::uint32_t> open;
  std::vector<FuncId> stack;
  // On the timeline (events in time units only): each stack from one
  // event to the next, the profile a thread of its own.
  const double spu = formats::seconds_per_tick(r.unit);
  const bool timed = options_.keep_timeline && spu > 0;
  const std::uint32_t track = timed ? builder_->track(0, static_cast<std::int64_t>(k) + 1,
                                                      r.name.empty() ? fmt::format("profile {}", k) : r.name)
                                    : 0;
  auto add_timed = [&](double from, double to) {
    add(stack, to - from);
    if (timed) builder_->time_last_sample(from * spu, (to - from) * spu, track);
  };
  double last = r.events.empty() ? r.start : r.events.at[0];
  for (std::size_t i = 0; i < r.events.size(); ++i) {
    const Raw::Ev ev = r.events(i, r.offset);
    if (ev.at < last)
      return bad_input(fmt::format("{}: expected events of profile {} in time order, found \"at\": {} after {}",
                                   where(ev.offset), k, ev.at, last));
    if (!open.empty() && ev.at > last) {
      stack.clear();
      for (std::size_t i = open.size(); i-- > 0;) stack.push_back(function(open[i]));
      add_timed(last, ev.at);
    }
    last = ev.at;
    if (ev.open) {
      open.push_back(ev.frame);
    } else if (open.empty() || open.back() != ev.frame) {
      return bad_input(
          fmt::format("{}: expected the close of {} in profile {}, found the close of frame {}", where(ev.offset),
                      open.empty() ? "nothing (no frame is open)" : fmt::format("frame {}", open.back()), k, ev.frame));
    } else {
      open.pop_back();
    }
  }
  if (!open.empty()) {
    diag_.warn(fmt::format("{}: profile {} ends with {} frames open; they are closed at its endValue", in_.path(), k,
                           open.size()));
    if (r.end > last) {
      stack.clear();
      for (std::size_t i = open.size(); i-- > 0;) stack.push_back(function(open[i]));
      add_timed(last, r.end);
    }
  }
  return true;
}

Expected<Profile> Reader::build() {
  for (std::size_t k = 0; k < raw_.size(); ++k)
    if (auto ok = check(raw_[k], k); !ok) return ok.error();
  const std::string& unit = raw_[0].unit;
  const double spu = formats::seconds_per_tick(unit);
  Event e;
  e.name = p_.strings.intern(spu > 0 ? "time" : unit == "bytes" ? "bytes" : "samples");
  e.unit = p_.strings.intern(unit);
  floating_ = !integral();
  if (floating_) {
    // Fractional ticks: seconds as doubles, as pstats keeps them.
    e.floating = true;
    e.seconds_per_unit = spu > 0 ? 1 : 0;
    scale_ = spu > 0 ? spu : 1;
  } else {
    e.seconds_per_unit = spu;
  }
  builder_.emplace(p_, std::vector<Event>{e}, options_.keep_stacks);
  located_ = raw_.size() > 1;
  // Python's frames (py-spy's, graphgen's of pstats): labelled as pstats
  // labels them, module:line:name.
  bool python = false, other = false;
  for (const Frame& f : frames_) {
    if (f.file.empty()) continue;
    (f.file.ends_with(".py") || f.file == "~" ? python : other) = true;
  }
  if (python && !other) p_.label_style = LabelStyle::kPython;
  // A frame is a function by name, file and line, as speedscope keys its
  // frames: one name at two lines of a file, two functions (every
  // anonymous function of a script). py-spy's frames carry the line being
  // run: one function at many lines.
  p_.line_in_identity = !running_lines_;
  std::vector<FuncId> stack;
  for (std::size_t k = 0; k < raw_.size(); ++k) {
    const Raw& r = raw_[k];
    process_ = raw_.size() > 1 ? (r.name.empty() ? fmt::format("profile {}", k) : r.name) : std::string();
    if (located_) {
      Location loc;
      loc.thread = static_cast<std::int64_t>(k);
      loc.label = p_.strings.intern(process_);
      loc.begin = loc.end = static_cast<std::uint32_t>(p_.location_functions.size());
      p_.locations.push_back(loc);
    }
    if (r.evented) {
      if (auto ok = add_evented(r, k); !ok) return ok.error();
      continue;
    }
    for (std::size_t s = 0; s < r.samples(); ++s) {
      stack.clear();
      for (std::uint32_t i = r.sample_begin[s + 1]; i-- > r.sample_begin[s];) stack.push_back(function(r.frames[i]));
      if (stack.empty()) continue;
      add(stack, r.weights[s]);
    }
  }
  if (options_.memory_budget && p_.approximate_bytes() > options_.memory_budget)
    return bad_input(formats::over_budget_message(in_.path(), options_.memory_budget, p_.functions.size(), 1));
  return std::move(p_);
}

// The streaming path's pass over the document: each profile's "samples",
// "weights" and "events" read by JsonCursor's number rule as they are
// passed (frame indices of 16 bits, weights and times of 32 while they fit:
// NarrowArray), the rest copied out, with those arrays left empty, for the
// general reader (the frames, the other members, with simdjson's checks).
// It gives up on anything else: a key with an escape or a control
// character, "profiles" or any of those arrays twice, a frame index that is
// not an integer of 0 to 2^32 - 2, a weight or time the rule does not take
// or -0, an event with another key, a key twice or one missing.
class Scan : formats::JsonHollowing {
 public:
  struct Streamed {
    formats::NarrowArray<std::uint16_t, std::uint32_t> frames;
    std::vector<std::uint32_t> sample_begin{0};
    formats::NarrowArray<std::int32_t, double> weights;
    Raw::Events events;
    bool has_samples = false, has_weights = false, has_events = false;
  };

  Scan(const InputFile& in, const formats::ReadOptions& options) : JsonHollowing(in), options_(options) {}

  bool run() {
    space();
    if (!eat('{')) return false;
    bool profiles = false;
    return object([&](std::string_view key) {
      if (key != "profiles") return skip_value();
      if (profiles) return false;
      profiles = true;
      return profile_list();
    });
  }

  using JsonHollowing::kept;
  std::vector<Streamed>& streamed() { return streamed_; }

 private:
  bool profile_list() {
    return eat('[') && items([&] {
             if (!eat('{')) return false;
             Streamed& p = streamed_.emplace_back();
             return object([&](std::string_view k) {
               if (k != "samples" && k != "weights" && k != "events") return skip_value();
               bool& seen = k == "samples" ? p.has_samples : k == "weights" ? p.has_weights : p.has_events;
               if (seen) return false;
               seen = true;
               return k == "samples" ? samples(p) : k == "weights" ? weights(p) : events(p);
             });
           }) &&
           eat(']');
  }

  bool samples(Streamed& p) {
    p.frames.reserve(room(2));        // "0,"
    p.sample_begin.reserve(room(3));  // "[],"
    return take_array([&] {
      if (!eat('[')) return false;
      if (!items([&] {
            std::uint32_t f = 0;
            if (!json_index(f, UINT32_MAX - 1)) return false;
            p.frames.push_back(f);
            return true;
          }))
        return false;
      ++pos_;  // the sample's `]`
      p.sample_begin.push_back(static_cast<std::uint32_t>(p.frames.size()));
      // (The general path's budget, counted as it counts.)
      bytes_ += 12;
      return !(options_.memory_budget && bytes_ + p.frames.bytes() > options_.memory_budget);
    });
  }
  bool weights(Streamed& p) {
    p.weights.reserve(room(2));
    return take_array([&] {
      double d = 0;
      if (!json_double(d)) return false;
      p.weights.push_back(d);
      return true;
    });
  }

  // Events {"type": "O" | "C", "frame": index, "at": time}, each key once,
  // in any order.
  bool events(Streamed& p) {
    const std::size_t most = room(29);  // {"type":"O","frame":0,"at":0},
    p.events.frames.reserve(most);
    p.events.open.reserve(most);
    p.events.at.reserve(most);
    return take_array([&] {
      if (!eat('{')) return false;
      Raw::Ev ev;
      bool type = false, frame = false, at = false;
      if (!object([&](std::string_view k) {
            if (k == "type" && !type) {
              if (!eat('"') || pos_ >= text_.size() || (text_[pos_] != 'O' && text_[pos_] != 'C')) return false;
              ev.open = text_[pos_++] == 'O';
              type = true;
              return eat('"');
            }
            if (k == "at" && !at) return at = json_double(ev.at);
            if (k == "frame" && !frame) return frame = json_index(ev.frame, UINT32_MAX - 1);
            return false;
          }))
        return false;
      if (!type || !frame || !at) return false;
      p.events.push_back(ev, false);
      bytes_ += 16;
      return !(options_.memory_budget && bytes_ > options_.memory_budget);
    });
  }

  const formats::ReadOptions& options_;
  std::size_t bytes_ = 0;
  std::vector<Streamed> streamed_;
};

}  // namespace

int sniff(std::string_view head) {
  if (head.find(kSchema) != std::string_view::npos) return 3;
  std::size_t i = head.find_first_not_of(" \t\r\n");
  if (i == std::string_view::npos || head[i] != '{') return 0;
  return head.find("\"shared\"") != std::string_view::npos && head.find("\"frames\"") != std::string_view::npos ? 1 : 0;
}

std::optional<Expected<Profile>> read_streaming(const InputFile& input, const formats::ReadOptions& options,
                                                Diagnostics& diag) {
  Scan scan(input, options);
  if (!scan.run()) return std::nullopt;
  Diagnostics warnings;  // (passed on only when the path takes the file)
  Reader reader(input, options, warnings, scan.kept());
  if (!reader.parse()) return std::nullopt;
  std::vector<Raw>& raw = reader.profiles();
  auto& streamed = scan.streamed();
  if (raw.size() != streamed.size()) return std::nullopt;
  for (std::size_t k = 0; k < raw.size(); ++k) {
    if (raw[k].samples() != 0 || !raw[k].weights.empty() || !raw[k].events.empty()) return std::nullopt;
    raw[k].frames = std::move(streamed[k].frames);
    raw[k].sample_begin = std::move(streamed[k].sample_begin);
    raw[k].weights = std::move(streamed[k].weights);
    raw[k].events = std::move(streamed[k].events);
  }
  // (The general path checks as it reads: whatever it refuses is over at the end.)
  if (!reader.within_budget()) return std::nullopt;
  auto p = reader.build();
  if (!p) return std::nullopt;
  for (const std::string& w : warnings.warnings()) diag.warn(w);
  return p;
}

Expected<Profile> read_general(const InputFile& input, const formats::ReadOptions& options, Diagnostics& diag) {
  return Reader(input, options, diag).read();
}

Expected<Profile> read(const InputFile& input, const formats::ReadOptions& options, Diagnostics& diag) {
  if (auto streamed = read_streaming(input, options, diag)) return std::move(*streamed);
  return read_general(input, options, diag);
}

}  // namespace graphgen::speedscope
