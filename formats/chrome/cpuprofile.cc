#include "chrome/cpuprofile.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <optional>
#include <unordered_map>

#include "chrome/v8_nodes.h"
#include "common/json_doc.h"
#include "common/json_scan.h"
#include "common/narrow_array.h"
#include "graphgen/analysis/stacks.h"
#include "graphgen/text.h"

namespace graphgen::chrome {

namespace {

namespace od = simdjson::ondemand;

using Node = V8Node;

class Reader {
 public:
  Reader(const InputFile& in, const formats::ReadOptions& options) : in_(in), options_(options), json_(in) {}
  /// The same over `text` in place of the input's bytes (the streaming
  /// path's: the document without the bodies of its two long arrays).
  Reader(const InputFile& in, const formats::ReadOptions& options, std::string_view text)
      : in_(in), options_(options), json_(in, text) {}

  Expected<Profile> read() {
    if (auto ok = parse(); !ok) return ok.error();
    return build(
        samples_.size(), [&](std::size_t i) { return samples_[i]; }, [&](std::size_t i) { return deltas_[i]; });
  }

  /// The document read and its nodes linked, the samples and deltas not
  /// yet counted.
  Expected<bool> parse() {
    if (auto ok = json_.open(); !ok) return ok.error();
    od::object root;
    if (auto e = json_.doc().get_object().get(root); e)
      return fail("a CPU profile {\"nodes\": ..., \"samples\": ...}", e);
    bool nodes = false;
    for (auto field : root) {
      std::string_view key;
      if (auto e = field.unescaped_key().get(key); e) return fail("a member name", e);
      od::value v = field.value();
      if (key == "nodes") {
        if (auto ok = node_list(v); !ok) return ok.error();
        nodes = true;
      } else if (key == "head") {
        // (Detected for this message: sniff_cpuprofile.)
        if (in_.bytes().find("\"selfSize\"") != std::string_view::npos)
          return bad_input(
              fmt::format("{}: expected a CPU profile, found a V8 heap profile (\"head\" nodes with a \"selfSize\": "
                          "node --heap-prof, DevTools' allocation sampling), which graphgen does not read; "
                          "a CPU profile is node --cpu-prof's",
                          where(here())));
        return bad_input(
            fmt::format("{}: expected the \"nodes\" of a CPU profile (Chrome 58 and later, node), found "
                        "the older nested \"head\" format, which graphgen does not read",
                        where(here())));
      } else if (key == "samples" || key == "timeDeltas") {
        (key == "samples" ? samples_offset_ : deltas_offset_) = here();
        if (auto ok = numbers(v, key == "samples" ? samples_ : deltas_, key); !ok) return ok.error();
      } else if (key == "startTime") {
        // (endTime is not needed: the last sample lasts 0, as speedscope counts it.)
        if (auto e = v.get_double().get(start_); e) return fail("a time in microseconds", e);
      }
    }
    if (!nodes)
      return bad_input(
          fmt::format("{}: expected the member \"nodes\" of a CPU profile, found none", where(json_.closing())));
    if (deltas_.size() != samples_.size())
      return bad_input(fmt::format("{}: expected one time delta per sample, found {} deltas for {} samples",
                                   where(deltas_offset_), deltas_.size(), samples_.size()));
    return link();
  }

  /// The profile of `n` samples: the node id of sample i, its time delta.
  template <class Sample, class Delta>
  Expected<Profile> build(std::size_t n, Sample sample, Delta delta);

  const std::vector<double>& samples() const { return samples_; }
  const std::vector<double>& deltas() const { return deltas_; }

 private:
  std::size_t here() { return json_.here(); }
  std::string where(std::size_t offset) const { return json_.where(offset); }
  Error fail(std::string_view what, simdjson::error_code e) { return json_.fail(what, e); }

  Expected<bool> numbers(od::value v, std::vector<double>& out, std::string_view what) {
    od::array list;
    if (auto e = v.get_array().get(list); e) return fail(fmt::format("\"{}\": [number, ...]", what), e);
    for (auto x : list) {
      double d = 0;
      if (auto e = x.get_double().get(d); e) return fail("a number", e);
      out.push_back(d);
      if (options_.memory_budget && out.size() * 8 > options_.memory_budget)
        return bad_input(formats::over_budget_message(in_.path(), options_.memory_budget, nodes_.size(), 2));
    }
    return true;
  }

  Expected<bool> call_frame(od::value v, Node& n) {
    od::object obj;
    if (auto e = v.get_object().get(obj); e) return fail("a \"callFrame\" {\"functionName\": ...}", e);
    for (auto m : obj) {
      std::string_view k, s;
      if (auto e = m.unescaped_key().get(k); e) return fail("a member name", e);
      if (k == "functionName" || k == "url") {
        if (auto e = m.value().get_string().get(s); e) return fail("a string", e);
        (k == "url" ? n.url : n.name) = std::string(s);
      } else if (k == "lineNumber") {
        if (auto e = m.value().get_int64().get(n.line); e) return fail("a line number", e);
      }
    }
    return true;
  }

  Expected<bool> node_list(od::value v) {
    od::array list;
    if (auto e = v.get_array().get(list); e) return fail("\"nodes\": [{\"id\": ...}, ...]", e);
    for (auto item : list) {
      Node n;
      n.offset = here();
      od::object obj;
      if (auto e = item.get_object().get(obj); e) return fail("a node {\"id\": ..., \"callFrame\": ...}", e);
      bool has_id = false;
      for (auto m : obj) {
        std::string_view k;
        if (auto e = m.unescaped_key().get(k); e) return fail("a member name", e);
        if (k == "id") {
          if (auto e = m.value().get_int64().get(n.id); e) return fail("a node id", e);
          has_id = true;
        } else if (k == "parent") {
          if (auto e = m.value().get_int64().get(n.parent_id); e) return fail("a node id", e);
        } else if (k == "callFrame") {
          if (auto ok = call_frame(m.value(), n); !ok) return ok.error();
        } else if (k == "children") {
          od::array kids;
          if (auto e = m.value().get_array().get(kids); e) return fail("\"children\": [id, ...]", e);
          for (auto x : kids) {
            std::int64_t id = 0;
            if (auto e = x.get_int64().get(id); e) return fail("a node id", e);
            n.children.push_back(id);
          }
        }
      }
      if (!has_id)
        return bad_input(fmt::format("{}: expected an \"id\" in node {}, found none", where(n.offset), nodes_.size()));
      if (!index_.try_emplace(n.id, static_cast<std::uint32_t>(nodes_.size())).second)
        return bad_input(fmt::format("{}: node id {} is given twice", where(n.offset), n.id));
      bytes_ += sizeof(Node) + n.name.size() + n.url.size() + n.children.size() * 8;
      nodes_.push_back(std::move(n));
      if (options_.memory_budget && bytes_ > options_.memory_budget)
        return bad_input(formats::over_budget_message(in_.path(), options_.memory_budget, nodes_.size(), 2));
    }
    return true;
  }

  // Parents from children (or parent) ids, checked; no loops.
  Expected<bool> link() {
    return link_nodes(nodes_, index_, depth_, [&](const Node& n) { return where(n.offset); });
  }

  FuncId function(const Node& n) { return functions_.of(p_, n); }

  const InputFile& in_;
  const formats::ReadOptions& options_;
  formats::JsonDocument json_;
  std::vector<Node> nodes_;
  std::unordered_map<std::int64_t, std::uint32_t> index_;
  std::vector<std::int64_t> depth_;
  std::vector<double> samples_, deltas_;
  double start_ = 0;
  std::size_t samples_offset_ = 0, deltas_offset_ = 0;
  std::size_t bytes_ = 0;
  Profile p_;
  V8Functions functions_;
};

template <class Sample, class Delta>
Expected<Profile> Reader::build(std::size_t n, Sample sample, Delta delta) {
  p_.line_in_identity = true;  // (functions are keyed by name, url and line: V8Functions)
  detail::StackBuilder builder(p_, v8_events(p_), options_.keep_stacks);
  // One thread, named after the file.
  auto track = [&] { return builder.track(0, 1, basename_of(in_.path())); };
  if (auto ok =
          add_v8_stacks(p_, builder, functions_, {nodes_, index_, depth_}, start_, n, sample, delta, options_,
                        {in_.path(), in_.bytes().size(), where(samples_offset_), where(deltas_offset_)}, {}, track);
      !ok)
    return ok.error();
  return std::move(p_);
}

// The streaming path's pass over the root object: "samples" and
// "timeDeltas" taken out by JsonCursor's number rule as they are passed (4
// bytes a sample, 4 a delta while they are integers of 32 bits:
// NarrowArray), the rest of the document kept for the general reader with
// those two arrays empty ("nodes" and the times: a small part of a long
// profile). It gives up on anything else: a key with an escape, either
// array twice, a sample that is not an integer of 0 to 2^32 - 1, a delta
// the rule does not take or -0 (which simdjson reads as -0.0).
class Scan : formats::JsonHollowing {
 public:
  Scan(const InputFile& in, const formats::ReadOptions& options) : JsonHollowing(in), options_(options) {}

  bool run() {
    space();
    if (!eat('{')) return false;
    return object([&](std::string_view key) {
      if (key != "samples" && key != "timeDeltas") return skip_value();
      bool& seen = key == "samples" ? has_samples_ : has_deltas_;
      if (seen) return false;
      seen = true;
      return key == "samples" ? list(samples_, &Scan::sample) : list(deltas_, &Scan::delta);
    });
  }

  using JsonHollowing::kept;
  const std::vector<std::uint32_t>& samples() const { return samples_; }
  std::size_t deltas() const { return deltas_.size(); }
  double delta(std::size_t i) const { return deltas_[i]; }

 private:
  // An array of numbers, each read by `item`, into `out` (room for as many
  // as the rest of the input can hold: a number and its comma).
  template <class Out>
  bool list(Out& out, bool (Scan::*item)()) {
    out.reserve(room(2));
    std::size_t count = 0;
    // (The general path's budget: 8 bytes a number.)
    return take_array(
        [&] { return (this->*item)() && !(options_.memory_budget && ++count * 8 > options_.memory_budget); });
  }
  bool sample() {
    std::uint32_t id = 0;
    if (!json_index(id, UINT32_MAX)) return false;
    samples_.push_back(id);
    return true;
  }
  bool delta() {
    double d = 0;
    if (!json_double(d)) return false;
    deltas_.push_back(d);
    return true;
  }

  const formats::ReadOptions& options_;
  bool has_samples_ = false, has_deltas_ = false;
  std::vector<std::uint32_t> samples_;
  formats::NarrowArray<std::int32_t, double> deltas_;
};

}  // namespace

bool sniff_cpuprofile(std::string_view head) {
  const std::size_t i = head.find_first_not_of(" \t\r\n");
  if (i == std::string_view::npos || head[i] != '{') return false;
  // (A trace's V8 profile events hold nodes too, inside its traceEvents.
  // The nested "head" of older CPU profiles and of heap profiles is taken
  // for the reader to say what it is.)
  std::size_t nodes = head.find("\"nodes\"");
  if (nodes == std::string_view::npos) nodes = head.find("\"head\"");
  return nodes != std::string_view::npos && head.find("\"callFrame\"") != std::string_view::npos &&
         head.substr(0, nodes).find("\"traceEvents\"") == std::string_view::npos;
}

std::optional<Expected<Profile>> read_cpuprofile_streaming(const InputFile& input, const formats::ReadOptions& options,
                                                           Diagnostics&) {
  Scan scan(input, options);
  if (!scan.run()) return std::nullopt;
  Reader reader(input, options, scan.kept());
  if (!reader.parse() || !reader.samples().empty() || !reader.deltas().empty()) return std::nullopt;
  const auto& samples = scan.samples();
  if (scan.deltas() != samples.size()) return std::nullopt;
  auto p = reader.build(
      samples.size(), [&](std::size_t i) { return static_cast<double>(samples[i]); },
      [&](std::size_t i) { return scan.delta(i); });
  if (!p) return std::nullopt;
  return p;
}

Expected<Profile> read_cpuprofile_general(const InputFile& input, const formats::ReadOptions& options, Diagnostics&) {
  return Reader(input, options).read();
}

Expected<Profile> read_cpuprofile(const InputFile& input, const formats::ReadOptions& options, Diagnostics& diag) {
  if (auto streamed = read_cpuprofile_streaming(input, options, diag)) return std::move(*streamed);
  return read_cpuprofile_general(input, options, diag);
}

}  // namespace graphgen::chrome
