#include "pprof/writer.h"

#include <fmt/format.h>

#include <cmath>
#include <memory>
#include <unordered_map>

#include "common/units.h"
#include "graphgen/labels.h"
#include "graphgen/utf8.h"
#include "graphgen/zlib_api.h"
#include "profile.pb.h"

namespace graphgen::pprof {

namespace {

namespace pb = perftools::profiles;

// How an event's values are written: its sample type, and the factor from
// the event's unit value to the written integer (0: the cost as it is).
struct Written {
  std::string type, unit;
  double scale = 0;
};

Written written(const Profile& p, std::size_t e) {
  const Event& ev = p.events[e];
  Written w{std::string(p.str(ev.name)), std::string(p.str(ev.unit)), 0};
  if (ev.floating) {  // seconds as doubles
    w.unit = "nanoseconds";
    w.scale = 1e9 * (ev.seconds_per_unit > 0 ? ev.seconds_per_unit : 1);
  } else if (ev.seconds_per_unit > 0) {
    w.unit = std::string(formats::tick_name(ev.seconds_per_unit));
    if (w.unit.empty()) {
      w.unit = "nanoseconds";
      w.scale = ev.seconds_per_unit * 1e9;
    }
  } else if (w.unit.empty()) {
    w.unit = "count";
  }
  if (w.type.empty()) w.type = "samples";
  return w;
}

std::int64_t value_of(const Profile& p, std::size_t e, const Written& w, Cost c) {
  if (w.scale == 0) return c;
  const double v = std::round(p.value(e, c) * w.scale);
  return std::isfinite(v) && std::fabs(v) < 9.2e18 ? static_cast<std::int64_t>(v) : 0;
}

class Builder {
 public:
  Builder(const Profile& p, pb::Profile& out) : p_(p), out_(out), function_id_(p.functions.size(), 0) {
    out_.add_string_table("");  // (id 0, as the table's own "")
  }

  // A string's id in the string table, which holds them in the order first
  // asked for. (profile.proto's strings are UTF-8: other bytes are U+FFFD,
  // as in the dot output, where protobuf logged an error for each such
  // string.)
  std::int64_t string(std::string_view s) {
    const std::size_t known = strings_.size();
    const StringId id = strings_.intern(s);
    if (strings_.size() != known) out_.add_string_table(valid_utf8(s));
    return id;
  }

  // The location of function f (one per function, of the same id).
  std::uint64_t location(FuncId f) {
    std::uint64_t& id = function_id_[f];
    if (id) return id;
    id = static_cast<std::uint64_t>(out_.function_size()) + 1;
    const Function& fn = p_.functions[f];
    pb::Function* g = out_.add_function();
    g->set_id(id);
    g->set_name(string(function_label(p_, f)));
    g->set_system_name(string(p_.str(fn.name)));
    if (fn.file != kNoString) g->set_filename(string(p_.str(fn.file)));
    if (fn.line > 0) g->set_start_line(fn.line);
    pb::Location* l = out_.add_location();
    l->set_id(id);
    if (fn.object != kNoString && !p_.str(fn.object).empty()) l->set_mapping_id(mapping(fn.object));
    pb::Line* line = l->add_line();
    line->set_function_id(id);
    if (fn.line > 0) line->set_line(fn.line);
    return id;
  }

  std::uint64_t mapping(StringId object) {
    auto [it, fresh] = mappings_.try_emplace(object, static_cast<std::uint64_t>(out_.mapping_size()) + 1);
    if (fresh) {
      pb::Mapping* m = out_.add_mapping();
      m->set_id(it->second);
      m->set_filename(string(p_.str(object)));
      m->set_has_functions(true);
      m->set_has_filenames(true);
      m->set_has_line_numbers(true);
    }
    return it->second;
  }

  // Sample s's stack: node k and its ancestors (leaf first), a process
  // among them its label `process`; how many frames it got.
  template <class Node>
  std::size_t stack(pb::Sample* s, const std::vector<Node>& nodes, std::uint32_t k) {
    // (Its room first: in the arena a growing list leaves each old copy.)
    int depth = 0;
    for (std::uint32_t n = k; n != 0; n = nodes[n].parent) depth += nodes[n].process == kNoString;
    s->mutable_location_id()->Reserve(depth);
    std::size_t frames = 0;
    for (std::uint32_t n = k; n != 0; n = nodes[n].parent) {
      const Node& up = nodes[n];
      if (up.process != kNoString) {
        pb::Label* l = s->add_label();
        l->set_key(string("process"));
        l->set_str(string(p_.str(up.process)));
        continue;
      }
      s->add_location_id(location(up.function));
      ++frames;
    }
    return frames;
  }

 private:
  const Profile& p_;
  pb::Profile& out_;
  StringTable strings_;  // (its id 0 is "", as the string table's)
  std::unordered_map<StringId, std::uint64_t> mappings_;
  std::vector<std::uint64_t> function_id_;
};

Expected<std::string> gzip(const std::string& raw, std::size_t max_bytes) {
  std::string missing;
  const ZlibApi* zlib = zlib_api(missing);
  if (!zlib) return io_error(fmt::format("pprof: {}", missing));
  z_stream z{};
  // windowBits 15 + 16: a gzip wrapper (mtime 0, so the bytes depend on
  // the profile only).
  if (deflate_init(*zlib, &z, Z_DEFAULT_COMPRESSION, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    return bad_input("pprof: zlib could not start compressing");
  // Room for the worst case, not written before zlib writes it (a zeroed
  // string of the bound touched as many pages as the raw profile has).
  const std::size_t bound = zlib->deflate_bound(&z, raw.size());
  std::unique_ptr<char[]> room(new char[bound]);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(raw.data()));
  z.avail_in = static_cast<uInt>(raw.size());
  z.next_out = reinterpret_cast<Bytef*>(room.get());
  z.avail_out = static_cast<uInt>(bound);
  const int rc = zlib->deflate(&z, Z_FINISH);
  std::string out(room.get(), z.total_out);
  zlib->deflate_end(&z);
  if (rc != Z_STREAM_END) return bad_input("pprof: zlib could not compress the profile");
  if (max_bytes && out.size() > max_bytes)
    return bad_input(fmt::format("the pprof output would be over {} bytes; --max-memory raises the limit", max_bytes));
  return out;
}

}  // namespace

Expected<std::string> write(const Profile& p, std::size_t event, const FlameTree* rebuilt, std::size_t max_bytes) {
  // Every message in one arena, let go of at once: a million samples each
  // allocated and freed alone were a sixth of importtime's -T pprof.
  google::protobuf::ArenaOptions room;
  room.start_block_size = 64 << 10;
  room.max_block_size = 1 << 20;
  google::protobuf::Arena arena(room);
  pb::Profile& out = *google::protobuf::Arena::CreateMessage<pb::Profile>(&arena);
  Builder b(p, out);
  // The events written: all of them from recorded stacks, the one graphed
  // from rebuilt ones.
  std::vector<std::size_t> events;
  if (rebuilt) {
    events.push_back(event);
  } else {
    for (std::size_t e = 0; e < p.events.size(); ++e) events.push_back(e);
  }
  std::vector<Written> how;
  for (std::size_t e : events) {
    how.push_back(written(p, e));
    pb::ValueType* vt = out.add_sample_type();
    vt->set_type(b.string(how.back().type));
    vt->set_unit(b.string(how.back().unit));
  }
  out.set_default_sample_type(b.string(written(p, event).type));
  // The budget counts the stacks as they are written (a deep stack under
  // many leaves writes its frames once per leaf).
  std::size_t frames_written = 0;
  auto over = [&] { return max_bytes && frames_written * 2 > max_bytes; };
  auto too_large = [&] {
    return bad_input(fmt::format("the pprof output would be over {} bytes; --max-memory raises the limit", max_bytes));
  };
  if (rebuilt) {
    double exact = 0, written_sum = 0;
    for (std::size_t k = 1; k < rebuilt->frames.size(); ++k) {
      const FlameFrame& fr = rebuilt->frames[k];
      if (fr.self == 0 || fr.process != kNoString) continue;
      pb::Sample* s = out.add_sample();
      frames_written += b.stack(s, rebuilt->frames, static_cast<std::uint32_t>(k));
      // Each stack's value rounded so that the running sum stays the
      // rounded exact sum: the written total is the profile's, within one
      // unit, however many stacks share it.
      const Written& w = how[0];
      exact += fr.self * (w.scale == 0 ? 1 : w.scale);
      const double target = std::round(exact);
      const double v = std::isfinite(target) && std::fabs(target) < 9.2e18 ? target - written_sum : 0;
      written_sum += v;
      s->add_value(static_cast<std::int64_t>(v));
      if (over()) return too_large();
    }
    out.add_comment(b.string("graphgen: a call graph, not stacks: the stacks are rebuilt from call ratios"));
  } else {
    const std::size_t n = p.events.size();
    for (std::size_t k = 1; k < p.stack_nodes.size(); ++k) {
      bool any = false;
      for (std::size_t e = 0; e < n; ++e) any |= p.stack_node_cost[k * n + e] != 0;
      if (!any || p.stack_nodes[k].process != kNoString) continue;
      pb::Sample* s = out.add_sample();
      frames_written += b.stack(s, p.stack_nodes, static_cast<std::uint32_t>(k));
      for (std::size_t e = 0; e < n; ++e) s->add_value(value_of(p, e, how[e], p.stack_node_cost[k * n + e]));
      if (over()) return too_large();
    }
  }
  std::string raw;
  if (!out.SerializeToString(&raw)) return bad_input("pprof: the profile could not be serialized");
  arena.Reset();  // (the messages, before the compressed copy is made)
  return gzip(raw, max_bytes);
}

}  // namespace graphgen::pprof
