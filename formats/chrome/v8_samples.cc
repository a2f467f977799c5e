#include "chrome/v8_samples.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

namespace graphgen::chrome {

namespace od = simdjson::ondemand;

namespace {

std::int64_t number_or(const std::string& id, std::int64_t fallback) {
  std::int64_t v = 0;
  auto [end, ec] = std::from_chars(id.data(), id.data() + id.size(), v);
  return ec == std::errc() && end == id.data() + id.size() ? v : fallback;
}

}  // namespace

Error V8Samples::fail(const std::string& where, std::string_view expected, simdjson::error_code e) const {
  return bad_input(
      fmt::format("{}: expected {} in a V8 CPU profile event, found {}", where, expected, simdjson::error_message(e)));
}

std::size_t V8Samples::threads() const {
  return static_cast<std::size_t>(
      std::count_if(threads_.begin(), threads_.end(), [](const Thread& t) { return !t.samples.empty(); }));
}

Expected<bool> V8Samples::add(std::string_view name, const std::string& pid, const std::string& tid,
                              std::string_view id, std::string_view args, const std::string& where) {
  // A profile per process and id (a CpuProfile event: per thread).
  std::string key = pid;
  key.append(1, '\0').append(name == "CpuProfile" ? "\1" + tid : std::string(id));
  auto [it, fresh] = thread_of_.try_emplace(key, threads_.size());
  if (fresh) {
    threads_.emplace_back();
    threads_.back().pid = pid;
    threads_.back().tid = tid;
    // (Errors found once every event is read name the profile, not an
    // offset: the windowed read's offsets are its window's.)
    threads_.back().where = name == "CpuProfile"
                                ? fmt::format("{}: the V8 CPU profile of thread {} of process {}", path_, tid, pid)
                                : fmt::format("{}: the V8 CPU profile {} of process {}", path_, id, pid);
  }
  Thread& t = threads_[it->second];
  if (name == "Profile") t.tid = tid;  // (the profiled thread; chunks may come from the sampler's)
  buffer_.reserve(args.size() + simdjson::SIMDJSON_PADDING);
  buffer_.assign(args);
  od::document doc;
  if (auto e = parser_.iterate(buffer_.data(), buffer_.size(), buffer_.capacity()).get(doc); e)
    return fail(where, "args {\"data\": ...}", e);
  od::object root;
  if (auto e = doc.get_object().get(root); e) return fail(where, "args {\"data\": ...}", e);
  for (auto field : root) {
    std::string_view k;
    if (auto e = field.unescaped_key().get(k); e) return fail(where, "a member name", e);
    if (k != "data") continue;
    od::object data;
    if (auto e = field.value().get_object().get(data); e) return fail(where, "\"data\": {...}", e);
    for (auto m : data) {
      if (auto e = m.unescaped_key().get(k); e) return fail(where, "a member name", e);
      if (k == "startTime") {
        if (auto e = m.value().get_double().get(t.start); e) return fail(where, "a start time in microseconds", e);
      } else if (k == "cpuProfile") {
        od::object cp;
        if (auto e = m.value().get_object().get(cp); e) return fail(where, "\"cpuProfile\": {\"nodes\": ...}", e);
        if (auto ok = cpu_profile(cp, t, where); !ok) return ok.error();
      } else if (k == "timeDeltas") {
        od::array list;
        if (auto e = m.value().get_array().get(list); e) return fail(where, "\"timeDeltas\": [number, ...]", e);
        if (auto ok = numbers(list, t.deltas, where); !ok) return ok.error();
      }
    }
  }
  if (over_budget())
    return bad_input(formats::over_budget_message(path_, options_.memory_budget, functions_.size(), 2));
  return true;
}

Expected<bool> V8Samples::cpu_profile(od::object cp, Thread& t, const std::string& where) {
  for (auto m : cp) {
    std::string_view k;
    if (auto e = m.unescaped_key().get(k); e) return fail(where, "a member name", e);
    if (k == "nodes" || k == "samples" || k == "timeDeltas") {
      od::array list;
      if (auto e = m.value().get_array().get(list); e) return fail(where, fmt::format("\"{}\": [...]", k), e);
      if (k == "nodes") {
        if (auto ok = nodes(list, t, where); !ok) return ok.error();
      } else {
        const std::size_t before = t.samples.size();
        if (auto ok = numbers(list, k == "samples" ? t.samples : t.deltas, where); !ok) return ok.error();
        samples_ += t.samples.size() - before;
      }
    } else if (k == "startTime") {
      if (auto e = m.value().get_double().get(t.start); e) return fail(where, "a start time in microseconds", e);
    }
  }
  return true;
}

Expected<bool> V8Samples::numbers(od::array list, std::vector<double>& out, const std::string& where) {
  for (auto x : list) {
    double d = 0;
    if (auto e = x.get_double().get(d); e) return fail(where, "a number", e);
    out.push_back(d);
    bytes_ += sizeof(double);
  }
  return true;
}

Expected<bool> V8Samples::nodes(od::array list, Thread& t, const std::string& where) {
  for (auto item : list) {
    Node n;
    od::object obj;
    if (auto e = item.get_object().get(obj); e) return fail(where, "a node {\"id\": ..., \"callFrame\": ...}", e);
    bool has_id = false;
    for (auto m : obj) {
      std::string_view k;
      if (auto e = m.unescaped_key().get(k); e) return fail(where, "a member name", e);
      if (k == "id" || k == "parent") {
        if (auto e = m.value().get_int64().get(k == "id" ? n.id : n.parent_id); e) return fail(where, "a node id", e);
        has_id |= k == "id";
      } else if (k == "callFrame") {
        od::object frame;
        if (auto e = m.value().get_object().get(frame); e) return fail(where, "a \"callFrame\" {...}", e);
        for (auto f : frame) {
          std::string_view fk, s;
          if (auto e = f.unescaped_key().get(fk); e) return fail(where, "a member name", e);
          if (fk == "functionName" || fk == "url") {
            if (auto e = f.value().get_string().get(s); e) return fail(where, "a string", e);
            (fk == "url" ? n.url : n.name) = std::string(s);
          } else if (fk == "lineNumber") {
            if (auto e = f.value().get_int64().get(n.line); e) return fail(where, "a line number", e);
          }
        }
      } else if (k == "children") {
        od::array kids;
        if (auto e = m.value().get_array().get(kids); e) return fail(where, "\"children\": [id, ...]", e);
        for (auto x : kids) {
          std::int64_t c = 0;
          if (auto e = x.get_int64().get(c); e) return fail(where, "a node id", e);
          n.children.push_back(c);
        }
      }
    }
    if (!has_id) return bad_input(fmt::format("{}: expected an \"id\" in every node, found a node without", where));
    if (!t.index.try_emplace(n.id, static_cast<std::uint32_t>(t.nodes.size())).second)
      return bad_input(fmt::format("{}: node id {} is given twice in one profile", where, n.id));
    bytes_ += sizeof(Node) + n.name.size() + n.url.size() + n.children.size() * 8;
    t.nodes.push_back(std::move(n));
    if (over_budget())
      return bad_input(formats::over_budget_message(path_, options_.memory_budget, functions_.size(), 2));
  }
  return true;
}

Expected<bool> V8Samples::build_one(Profile& p, detail::StackBuilder& builder, Thread& t, std::string_view process,
                                    const Names& names) {
  const std::size_t n = t.samples.size();
  if (t.deltas.size() != n)
    return bad_input(fmt::format("{}: expected one time delta per sample, found {} deltas for {} samples", t.where,
                                 t.deltas.size(), n));
  std::vector<std::int64_t> depth;
  if (auto ok = link_nodes(t.nodes, t.index, depth, [&](const Node&) { return t.where; }); !ok) return ok.error();
  auto track = [&] { return builder.track(number_or(t.pid, 1), number_or(t.tid, 0), names.thread, names.process); };
  return add_v8_stacks(
      p, builder, functions_, {t.nodes, t.index, depth}, t.start, n, [&](std::size_t i) { return t.samples[i]; },
      [&](std::size_t i) { return t.deltas[i]; }, options_, {path_, input_bytes_, t.where, t.where}, process, track);
}

}  // namespace graphgen::chrome
