#include "chrome/v8_samples.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numeric>

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
  // The samples in time order: sample i at start + delta(0) + ... +
  // delta(i), lasting until the next in time (the last: 0).
  std::vector<double> at(n);
  double clock = t.start;
  for (std::size_t i = 0; i < n; ++i) at[i] = clock += t.deltas[i];
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  if (!std::is_sorted(at.begin(), at.end()))
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return at[a] < at[b]; });
  std::vector<double> time(t.nodes.size(), 0);
  std::vector<std::int64_t> count(t.nodes.size(), 0);
  std::vector<std::uint32_t> node_of(n);
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = order[k];
    const double id = t.samples[i];
    auto it =
        std::fabs(id) < 9e18 && id == std::floor(id) ? t.index.find(static_cast<std::int64_t>(id)) : t.index.end();
    if (it == t.index.end())
      return bad_input(fmt::format("{}: sample {} is of node {}, which is no node", t.where, i, id));
    time[it->second] += k + 1 < n ? at[order[k + 1]] - at[i] : 0;
    ++count[it->second];
    node_of[k] = it->second;
  }
  std::size_t frames = 0;
  const std::size_t limit = std::size_t{10'000'000} + 64 * input_bytes_;
  for (std::uint32_t i = 0; i < t.nodes.size(); ++i) {
    if (!(std::fabs(time[i]) < 9e18))
      return bad_input(
          fmt::format("{}: expected time deltas in microseconds, found deltas that add up to {} for node {}", t.where,
                      time[i], t.nodes[i].id));
    if (count[i]) frames += static_cast<std::size_t>(depth[i]);
  }
  if (frames > limit)
    return bad_input(
        fmt::format("{}: the sampled stacks hold {} frames, more than {} for a file of {} bytes (nodes "
                    "are nested too deep)",
                    path_, frames, limit, input_bytes_));
  const bool timeline = options_.keep_timeline && options_.keep_stacks;
  std::vector<std::uint32_t> stack_node(timeline ? t.nodes.size() : 0, 0);
  std::vector<FuncId> stack;
  for (std::uint32_t i = 0; i < t.nodes.size(); ++i) {
    if (!count[i]) continue;
    stack.clear();
    for (std::uint32_t m = i; m != kNoNode; m = t.nodes[m].parent)
      if (t.nodes[m].parent != kNoNode || t.nodes[m].name != "(root)") stack.push_back(functions_.of(p, t.nodes[m]));
    if (stack.empty()) continue;
    const Cost w[2] = {static_cast<Cost>(std::llround(time[i])), count[i]};
    builder.add_sample(stack, w, process);
    if (timeline) stack_node[i] = builder.last_node();
    if (options_.memory_budget && p.approximate_bytes() > options_.memory_budget)
      return bad_input(formats::over_budget_message(path_, options_.memory_budget, p.functions.size(), 2));
  }
  if (timeline) {
    const std::uint32_t track = builder.track(number_or(t.pid, 1), number_or(t.tid, 0), names.thread, names.process);
    for (std::size_t k = 0; k < n; ++k) {
      const std::uint32_t node = stack_node[node_of[k]];
      const double now = at[order[k]];
      if (node != 0) p.timeline.push_back({now * 1e-6, k + 1 < n ? (at[order[k + 1]] - now) * 1e-6 : 0.0, node, track});
    }
  }
  return true;
}

}  // namespace graphgen::chrome
