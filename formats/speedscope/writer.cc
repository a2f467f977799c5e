#include "speedscope/writer.h"

#include <fmt/format.h>

#include <cmath>
#include <unordered_map>

#include "common/markup.h"
#include "common/units.h"
#include "graphgen/labels.h"
#include "graphgen/text.h"
#include "speedscope/reader.h"

namespace graphgen::speedscope {

namespace {

using formats::json_number;
using formats::json_text;

// One profile being written: its samples (frame lists, root first) and weights.
struct Out {
  std::string name;
  std::string samples, weights;
  double total = 0;
  std::size_t count = 0;
};

struct Unit {
  std::string_view name;
  double factor = 1;  // from the event's value (Profile::value) to the written one
};

Unit unit_of(const Profile& p, std::size_t event) {
  const Event& e = p.events[event];
  if (e.floating) return {e.seconds_per_unit > 0 ? "seconds" : "none", 1};
  if (e.seconds_per_unit > 0) {
    const std::string_view tick = formats::tick_name(e.seconds_per_unit);
    return tick.empty() ? Unit{"seconds", e.seconds_per_unit} : Unit{tick, 1};
  }
  const std::string_view name = p.str(e.name), unit = p.str(e.unit);
  return {name == "bytes" || unit == "bytes" ? "bytes" : "none", 1};
}

// The document put together in one string, each part let go of once it
// is in (the parts and two copies of the whole were held before).
std::string document(std::string& frames, std::vector<Out>& outs, const Unit& unit, const WriteOptions& o) {
  std::size_t room = frames.size() + 1024;
  for (const Out& out : outs) room += out.samples.size() + out.weights.size() + out.name.size() * 6 + 256;
  std::string json;
  json.reserve(output_reservation(o.max_bytes, room));
  json += "{\"$schema\":";
  json += json_text(kSchema);
  json += ",\"shared\":{\"frames\":[";
  json += frames;
  frames = std::string();
  json += "]},\"profiles\":[";
  bool first = true;
  for (Out& out : outs) {
    if (out.count == 0) continue;
    json += first ? "{" : ",{";
    json += "\"type\":\"sampled\",\"name\":";
    json += json_text(out.name);
    json += ",\"unit\":\"";
    json += unit.name;
    json += "\",\"startValue\":0,\"endValue\":";
    json += json_number(out.total);
    json += ",\"samples\":[";
    json += out.samples;
    out.samples = std::string();
    json += "],\"weights\":[";
    json += out.weights;
    out.weights = std::string();
    json += "]}";
    first = false;
  }
  // No stack at all (a call graph whose stacks cannot be rebuilt): one
  // empty profile, which speedscope and graphgen open.
  if (first)
    json += fmt::format(
        "{{\"type\":\"sampled\",\"name\":{},\"unit\":\"{}\",\"startValue\":0,\"endValue\":0,\"samples\":[],"
        "\"weights\":[]}}",
        json_text(o.name.empty() ? std::string("profile") : o.name), unit.name);
  json += fmt::format("],\"name\":{},\"activeProfileIndex\":0,\"exporter\":{}}}\n", json_text(o.name),
                      json_text(o.exporter));
  return json;
}

}  // namespace

Expected<std::string> write(const Profile& p, const FlameTree& tree, std::size_t event, const WriteOptions& o) {
  const Unit unit = unit_of(p, event);
  auto too_large = [&] {
    return bad_input(
        fmt::format("the speedscope output would be over {} bytes; --max-memory raises the limit", o.max_bytes));
  };
  // Frames: one per function met, in order of meeting.
  std::vector<std::int64_t> frame_of(p.functions.size(), -1);
  std::string frames;
  std::size_t frame_count = 0;
  std::unordered_map<std::string, std::int64_t> library_frame;  // one frame a library's unnamed addresses
  auto frame = [&](FuncId f) {
    std::int64_t& id = frame_of[f];
    if (id >= 0) return id;
    const Function& fn = p.functions[f];
    FlameFrame as_frame;
    as_frame.function = f;
    const std::string library = fn.unresolved ? frame_name(p, as_frame) : std::string();
    if (fn.unresolved) {
      auto [at, fresh] = library_frame.try_emplace(library, static_cast<std::int64_t>(frame_count));
      if (!fresh) return id = at->second;
    }
    id = static_cast<std::int64_t>(frame_count++);
    // The name alone where the file and line say the rest (Python's
    // `module:line:name` labels are built from them again when read back);
    // an address perf could not name is its library's, as in the folded
    // stacks the tree's frames were merged by (`[liblzma.so.5]`), not the
    // first address met.
    const std::string name = fn.unresolved          ? library
                             : fn.file != kNoString ? std::string(p.str(fn.name))
                                                    : function_label(p, f);
    frames += fmt::format("{}{{\"name\":{}", frames.empty() ? "" : ",", json_text(name));
    if (fn.file != kNoString) frames += ",\"file\":" + json_text(p.str(fn.file));
    if (fn.line > 0) frames += fmt::format(",\"line\":{}", fn.line);
    frames += '}';
    return id;
  };
  // Profiles: one per process frame under the root, and one for the rest.
  std::vector<Out> outs;
  std::vector<std::size_t> profile_of(tree.frames.size(), 0);
  std::size_t main_profile = SIZE_MAX;
  std::vector<std::int64_t> path;
  for (std::size_t k = 1; k < tree.frames.size(); ++k) {
    const FlameFrame& fr = tree.frames[k];
    if (fr.parent != 0) {
      profile_of[k] = profile_of[fr.parent];
    } else if (fr.process != kNoString) {
      profile_of[k] = outs.size();
      outs.push_back({std::string(p.str(fr.process)), {}, {}, 0, 0});
    } else {
      if (main_profile == SIZE_MAX) {
        main_profile = outs.size();
        outs.push_back({o.name.empty() ? std::string("profile") : o.name, {}, {}, 0, 0});
      }
      profile_of[k] = main_profile;
    }
    if (fr.self == 0 || fr.process != kNoString) continue;
    path.clear();
    for (std::uint32_t n = static_cast<std::uint32_t>(k); n != 0; n = tree.frames[n].parent)
      if (tree.frames[n].process == kNoString) path.push_back(frame(tree.frames[n].function));
    Out& out = outs[profile_of[k]];
    out.samples += out.count ? ",[" : "[";
    for (std::size_t i = path.size(); i-- > 0;) {
      if (i + 1 != path.size()) out.samples += ',';
      append_integer(out.samples, path[i]);
    }
    out.samples += ']';
    const double w = fr.self * unit.factor;
    out.weights += (out.count ? "," : "") + json_number(w);
    out.total += w;
    ++out.count;
    if (o.max_bytes && out.samples.size() + out.weights.size() + frames.size() > o.max_bytes) return too_large();
  }
  std::string json = document(frames, outs, unit, o);
  if (o.max_bytes && json.size() > o.max_bytes) return too_large();
  return json;
}

}  // namespace graphgen::speedscope
