// What the pipeline's files share (read.cc: reading and merging;
// passes.cc: events, totals and the graph; pipeline.cc: the conversions);
// front ends use pipeline.h.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "pipeline.h"

namespace graphgen::pipeline {

inline std::string join(const std::vector<std::string_view>& items, std::string_view sep = ", ") {
  std::string out;
  for (std::string_view s : items) {
    if (!out.empty()) out += sep;
    out += s;
  }
  return out;
}

/// The order files of a format merge in: as given, or pstats.Stats(a, b,
/// c)'s a, c, b.
std::vector<std::size_t> merge_order(formats::MergeOrder order, std::size_t n);

/// --event: the cost column to use (formats whose readers filter samples
/// by event have one column).
Expected<std::size_t> pick_event(const Profile& p, const InputFormat& format, const std::string& event);

/// Each function's totals, as the format's rules give them (no pruning).
/// `releasable`, when given, is `p` itself, whose calls nothing reads
/// after the graph: a graph of reported totals or of call stacks gives them
/// back as it goes (graph_releasing_calls(), graph_from_call_stacks()).
CallGraph graph_totals(const Profile& p, const InputFormat& format, std::size_t event, const GraphOptions& o,
                       Diagnostics& diag, Profile* releasable = nullptr);

/// A rank's self and inclusive value per function, in the event's shown
/// unit.
Expected<bool> rank_values(const Profile& file, const InputFormat& format, const Request& r, std::vector<double>& self,
                           std::vector<double>& inclusive);

/// The graph a graph output draws: function identity for graphs, totals,
/// pruning, -z, -l, --node-count; with --list-functions, `listing` gets
/// the list instead. `release_calls`: nothing reads the profile's calls
/// after the graph, which may then leave them empty (a picture of reported
/// totals: the two are not held at once).
Expected<CallGraph> graph_of(Profile& profile, const InputFormat& format, std::size_t event, const Request& r,
                             bool merge_identity, Diagnostics& diag, std::string* listing = nullptr,
                             bool release_calls = false);

}  // namespace graphgen::pipeline
