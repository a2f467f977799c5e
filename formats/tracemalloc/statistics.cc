#include "tracemalloc/statistics.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <tuple>

#include "graphgen/utf8.h"

namespace graphgen::tracemalloc {

namespace {

// A traceback as tracemalloc compares them: frames oldest first.
using Frames = std::vector<std::pair<std::string_view, std::int64_t>>;

struct Stat {
  std::int64_t size = 0, count = 0;
};

// Python's "%.1f" / "%+.0f": C's printf rounds as CPython does.
std::string printf_double(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// tracemalloc's _format_size.
std::string format_size(double size, bool sign) {
  for (std::string_view unit : {"B", "KiB", "MiB", "GiB", "TiB"}) {
    if (std::fabs(size) < 100 && unit != "B")
      return printf_double(sign ? "%+.1f" : "%.1f", size) + " " + std::string(unit);
    if (std::fabs(size) < 10 * 1024 || unit == "TiB")
      return printf_double(sign ? "%+.0f" : "%.0f", size) + " " + std::string(unit);
    size /= 1024;
  }
  return {};
}

// Snapshot._group_by(key, cumulative=False): each group's size and count.
std::map<Frames, Stat> group(const Profile& p, std::string_view key) {
  std::map<Frames, Stat> groups;
  const std::size_t ne = p.events.size();
  auto frame = [&](FuncId f) { return std::pair{p.str(p.functions[f].file), p.functions[f].line}; };
  if (key == "traceback") {
    Frames frames;
    for (std::uint32_t n = 1; n < p.stack_nodes.size(); ++n) {
      const Cost count = p.stack_node_cost[n * ne + 1];
      if (count == 0) continue;
      frames.clear();
      for (std::uint32_t at = n; at != 0 && frames.size() < p.stack_nodes.size(); at = p.stack_nodes[at].parent)
        frames.push_back(frame(p.stack_nodes[at].function));
      std::reverse(frames.begin(), frames.end());
      Stat& s = groups[frames];
      s.size += p.stack_node_cost[n * ne];
      s.count += count;
    }
    return groups;
  }
  for (FuncId f = 0; f < p.functions.size(); ++f) {
    if (p.self(f, 1) == 0) continue;
    auto [file, line] = frame(f);
    Stat& s = groups[Frames{{file, key == "filename" ? 0 : line}}];
    s.size += p.self(f, 0);
    s.count += p.self(f, 1);
  }
  return groups;
}

std::string traceback_text(const Frames& f) {
  return fmt::format("{}:{}", visible_text(f.front().first), f.front().second);
}

std::string average(std::int64_t size, std::int64_t count) {
  return count ? ", average=" + format_size(static_cast<double>(size) / static_cast<double>(count), false) : "";
}

Expected<bool> check(const Profile& p, std::string_view key) {
  if (!is_key(key))
    return bad_usage(fmt::format("--sort {}: a tracemalloc snapshot groups by lineno, traceback or filename", key));
  if (p.events.size() != 2 || (key == "traceback" && p.stack_nodes.size() <= 1 && !p.functions.empty()))
    return bad_input("not a tracemalloc snapshot's profile (its sizes and counts per traceback)");
  return true;
}

}  // namespace

bool is_key(std::string_view key) { return key == "lineno" || key == "traceback" || key == "filename"; }

Expected<std::string> key_of(const stats::Options& o, std::size_t top, std::string_view what) {
  if (o.sort.size() > 1 || o.report != stats::Report::kStats || o.strip_dirs || o.restrictions.size() > (top ? 1u : 0u))
    return bad_usage(fmt::format(
        "-T stats of tracemalloc snapshots prints {}(KEY): one --sort KEY (lineno, traceback or filename) and "
        "--top N; --restrict, --strip-dirs, --callers and --callees are pstats'",
        what));
  return o.sort.empty() ? std::string("lineno") : o.sort[0];
}

Expected<std::string> statistics(const Profile& p, std::string_view key, std::size_t top) {
  if (auto ok = check(p, key); !ok) return ok.error();
  const std::map<Frames, Stat> groups = group(p, key);
  std::vector<const std::pair<const Frames, Stat>*> order;
  for (const auto& g : groups) order.push_back(&g);
  // sort(reverse=True, key=(size, count, traceback))
  std::sort(order.begin(), order.end(), [](auto* a, auto* b) {
    return std::tie(b->second.size, b->second.count, b->first) < std::tie(a->second.size, a->second.count, a->first);
  });
  std::string out;
  for (std::size_t i = 0; i < order.size() && (top == 0 || i < top); ++i) {
    const auto& [frames, s] = *order[i];
    out += fmt::format("{}: size={}, count={}{}\n", traceback_text(frames),
                       format_size(static_cast<double>(s.size), false), s.count, average(s.size, s.count));
  }
  return out;
}

Expected<std::string> compare_to(const Profile& earlier, const Profile& later, std::string_view key, std::size_t top) {
  if (auto ok = check(earlier, key); !ok) return ok.error();
  if (auto ok = check(later, key); !ok) return ok.error();
  const std::map<Frames, Stat> old_groups = group(earlier, key), new_groups = group(later, key);
  struct Diff {
    const Frames* frames;
    std::int64_t size, size_diff, count, count_diff;
  };
  std::vector<Diff> diffs;
  for (const auto& [frames, s] : new_groups) {
    auto old = old_groups.find(frames);
    const Stat before = old == old_groups.end() ? Stat{} : old->second;
    diffs.push_back({&frames, s.size, s.size - before.size, s.count, s.count - before.count});
  }
  for (const auto& [frames, s] : old_groups)
    if (!new_groups.count(frames)) diffs.push_back({&frames, 0, -s.size, 0, -s.count});
  // sort(reverse=True, key=(abs(size_diff), size, abs(count_diff), count, traceback))
  auto numbers = [](const Diff& d) {
    return std::tuple{std::llabs(d.size_diff), d.size, std::llabs(d.count_diff), d.count};
  };
  std::sort(diffs.begin(), diffs.end(), [&](const Diff& a, const Diff& b) {
    return numbers(a) != numbers(b) ? numbers(b) < numbers(a) : *b.frames < *a.frames;
  });
  std::string out;
  for (std::size_t i = 0; i < diffs.size() && (top == 0 || i < top); ++i) {
    const Diff& d = diffs[i];
    out += fmt::format("{}: size={} ({}), count={} ({:+}){}\n", traceback_text(*d.frames),
                       format_size(static_cast<double>(d.size), false),
                       format_size(static_cast<double>(d.size_diff), true), d.count, d.count_diff,
                       average(d.size, d.count));
  }
  return out;
}

}  // namespace graphgen::tracemalloc
