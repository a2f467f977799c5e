#include "graphgen/analysis/timeline.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <map>
#include <utility>

namespace graphgen {

std::vector<double> sample_durations(const Profile& p) {
  const std::vector<TimedSample>& all = p.timeline;
  std::vector<double> out(all.size(), 0.0);
  // The samples of each track in time order (ties in the timeline's order).
  std::vector<std::size_t> order(all.size());
  for (std::size_t i = 0; i < all.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return all[a].track != all[b].track ? all[a].track < all[b].track : all[a].start < all[b].start;
  });
  std::vector<double> gaps;
  for (std::size_t begin = 0; begin < order.size();) {
    std::size_t end = begin;
    while (end < order.size() && all[order[end]].track == all[order[begin]].track) ++end;
    gaps.clear();
    for (std::size_t k = begin; k + 1 < end; ++k) {
      const TimedSample& s = all[order[k]];
      const double gap = all[order[k + 1]].start - s.start;
      if (s.duration < 0 && gap > 0) gaps.push_back(gap);
    }
    double median = 0;
    if (!gaps.empty()) {
      std::nth_element(gaps.begin(), gaps.begin() + static_cast<std::ptrdiff_t>(gaps.size() / 2), gaps.end());
      median = gaps[gaps.size() / 2];
    }
    for (std::size_t k = begin; k < end; ++k) {
      const TimedSample& s = all[order[k]];
      if (s.duration >= 0) {
        out[order[k]] = s.duration;
        continue;
      }
      const double gap = k + 1 < end ? all[order[k + 1]].start - s.start : HUGE_VAL;
      out[order[k]] = gap <= 2 * median ? gap : median;
    }
    begin = end;
  }
  return out;
}

void join_threads(Profile& p) {
  std::map<std::pair<std::int64_t, std::int64_t>, std::uint32_t> first;
  std::vector<std::uint32_t> to(p.tracks.size());
  std::vector<Track> kept;
  for (std::uint32_t t = 0; t < p.tracks.size(); ++t) {
    auto [it, fresh] = first.emplace(std::pair{p.tracks[t].pid, p.tracks[t].tid}, kept.size());
    if (fresh) kept.push_back(p.tracks[t]);
    to[t] = it->second;
  }
  if (kept.size() == p.tracks.size()) return;
  for (TimedSample& s : p.timeline)
    if (s.track < to.size()) s.track = to[s.track];
  p.tracks = std::move(kept);
}

void fix_durations(Profile& p) {
  if (std::none_of(p.timeline.begin(), p.timeline.end(), [](const TimedSample& s) { return s.duration < 0; })) return;
  const std::vector<double> d = sample_durations(p);
  for (std::size_t i = 0; i < d.size(); ++i) p.timeline[i].duration = d[i];
}

}  // namespace graphgen
