#include "share_wire.h"

#include <fmt/format.h>

#include "graphgen/wire.h"

namespace graphgen::pipeline {

using namespace formats;

std::string encode_share(const MergedShare& s) {
  wire::Writer w;
  wire::put_profile(w, s.profile);
  for (const std::vector<ExactSum>& table : s.exact) {
    w.put<std::uint64_t>(table.size());
    for (const ExactSum& e : table) w.exact(e);
  }
  w.put<std::uint64_t>(s.files);
  w.bytes(s.first_input);
  w.put<std::uint64_t>(s.input_bytes);
  w.put<std::uint64_t>(s.skipped.size());
  for (std::size_t i = 0; i < s.skipped.size(); ++i) {
    w.bytes(s.skipped[i]);
    w.put<std::uint64_t>(i < s.skipped_at.size() ? s.skipped_at[i] : UINT64_MAX);
  }
  w.put<std::uint8_t>(s.ranks.has_value());
  if (s.ranks) s.ranks->encode(w);
  return w.take();
}

Expected<MergedShare> decode_share(std::string_view bytes, const Request& request, const InputFormat& format,
                                   std::string_view sender) {
  auto broken = [&](std::string_view part) {
    return bad_input(fmt::format("{}: a damaged message (at its {})", sender, part));
  };
  wire::Reader in(bytes);
  auto profile = wire::get_profile(in, sender);
  if (!profile) return profile.error();
  MergedShare s;
  s.profile = std::move(profile).value();
  for (std::vector<ExactSum>& table : s.exact) {
    auto n = in.get<std::uint64_t>();
    if (!in.ok() || n > bytes.size()) return broken("exact sums");
    table.reserve(n);
    for (std::uint64_t i = 0; i < n && in.ok(); ++i) table.push_back(in.exact());
  }
  s.files = in.get<std::uint64_t>();
  s.first_input = std::string(in.bytes());
  s.input_bytes = in.get<std::uint64_t>();
  auto skipped = in.get<std::uint64_t>();
  for (std::uint64_t i = 0; i < skipped && in.ok(); ++i) {
    s.skipped.emplace_back(in.bytes());
    const auto at = in.get<std::uint64_t>();
    if (at >= request.inputs.size()) return broken("inputs");
    s.skipped_at.push_back(static_cast<std::size_t>(at));
  }
  if (!in.ok()) return broken("inputs");
  if (in.get<std::uint8_t>()) {
    s.ranks.emplace(request.inputs, format.merge_order == MergeOrder::kPstats, kHeatmapColumns);
    if (!s.ranks->decode(in)) return broken("per-rank statistics");
  }
  if (!in.ok() || !in.at_end()) return broken("end");
  return s;
}

}  // namespace graphgen::pipeline
